# F and D: NaN results are canonical, signaling inputs raise NV, fsgnj family
# (bitwise, no canonicalization), fmin/fmax corner cases, fclass of every
# class, feq (quiet) vs flt/fle (signaling) with NaNs, NaN-boxing of singles.
#include "isa_test.h"
.equ ONE,    0x3f800000
.equ NONE,   0xbf800000
.equ TWO,    0x40000000
.equ NTWO,   0xc0000000
.equ PZERO,  0x00000000
.equ NZERO,  0x80000000
.equ INF,    0x7f800000
.equ NINF,   0xff800000
.equ MINNORM, 0x00800000
.equ MAXSUB, 0x007fffff
.equ MINSUB, 0x00000001
.equ QNAN,   0x7fc00000          /* canonical */
.equ QNANP,  0x7fc12345          /* quiet, with payload */
.equ NQNAN,  0xffc00000
.equ SNAN,   0x7f812345
.equ NSNAN,  0xff812345

.equ DONE,   0x3ff0000000000000
.equ DNONE,  0xbff0000000000000
.equ DTWO,   0x4000000000000000
.equ DNTWO,  0xc000000000000000
.equ DPZERO, 0x0000000000000000
.equ DNZERO, 0x8000000000000000
.equ DINF,   0x7ff0000000000000
.equ DNINF,  0xfff0000000000000
.equ DMINNORM, 0x0010000000000000
.equ DMINSUB, 0x0000000000000001
.equ DQNAN,  0x7ff8000000000000  /* canonical */
.equ DQNANP, 0x7ff8000000012345
.equ DNQNAN, 0xfff8000000000000
.equ DSNAN,  0x7ff0000000012345
.equ DNSNAN, 0xfff0000000000001

.equ UNBOXED1, 0x000000003f800000 /* 1.0f without the upper ones: not a valid single */

TEST_BEGIN
  # ---- arithmetic on NaNs gives the canonical NaN; sNaN inputs raise NV ----
  FTEST  2, fadd.s, s, s, 0, QNAN, QNANP, ONE
  FTEST  3, fadd.s, s, s, FNV, QNAN, SNAN, ONE
  FTEST  4, fadd.s, s, s, 0, QNAN, NQNAN, ONE
  FTEST  5, fmul.s, s, s, FNV, QNAN, ONE, NSNAN
  FTEST  6, fsqrt.s, s, s, FNV, QNAN, SNAN
  FTEST  7, fsqrt.s, s, s, 0, QNAN, QNANP
  FTEST  8, fdiv.s, s, s, FNV, QNAN, QNANP, SNAN
  FTEST  9, fsub.s, s, s, 0, QNAN, QNANP, QNANP
  FTEST 10, fadd.d, d, d, 0, DQNAN, DQNANP, DONE
  FTEST 11, fadd.d, d, d, FNV, DQNAN, DSNAN, DONE
  FTEST 12, fadd.d, d, d, 0, DQNAN, DNQNAN, DONE
  FTEST 13, fmul.d, d, d, FNV, DQNAN, DONE, DNSNAN
  FTEST 14, fsqrt.d, d, d, FNV, DQNAN, DSNAN
  FTEST 15, fsqrt.d, d, d, 0, DQNAN, DQNANP
  FTEST 16, fdiv.d, d, d, FNV, DQNAN, DQNANP, DSNAN
  FTEST 17, fsub.d, d, d, 0, DQNAN, DQNANP, DQNANP
  # ---- fsgnj / fsgnjn / fsgnjx: sign bit only, payloads kept, no flags ----
  FTEST 18, fsgnj.s, s, s, 0, NSNAN, SNAN, NONE
  FTEST 19, fsgnjn.s, s, s, 0, SNAN, SNAN, NONE
  FTEST 20, fsgnjx.s, s, s, 0, SNAN, NSNAN, NONE
  FTEST 21, fsgnj.s, s, s, 0, NONE, ONE, NZERO
  FTEST 22, fsgnjn.s, s, s, 0, NONE, ONE, ONE       # fneg
  FTEST 23, fsgnjx.s, s, s, 0, ONE, NONE, NONE      # fabs
  FTEST 24, fsgnjx.s, s, s, 0, NONE, NONE, ONE
  FTEST 25, fsgnj.s, s, s, 0, QNANP, QNANP, ONE
  FTEST 26, fsgnj.d, d, d, 0, 0xfff0000000012345, DSNAN, DNONE
  FTEST 27, fsgnjn.d, d, d, 0, DNONE, DONE, DONE
  FTEST 28, fsgnjx.d, d, d, 0, DONE, DNONE, DNONE
  FTEST 29, fsgnjn.d, d, d, 0, 0xfff8000000012345, DQNANP, DQNANP
  FTEST 30, fsgnjx.d, d, d, 0, DNZERO, DPZERO, DNINF
  # ---- fmin / fmax: one NaN gives the other operand, two give the canonical
  # NaN, sNaN raises NV either way; -0 < +0 ----
  FTEST 31, fmin.s, s, s, 0, ONE, ONE, QNANP
  FTEST 32, fmin.s, s, s, 0, ONE, QNANP, ONE
  FTEST 33, fmax.s, s, s, 0, NINF, QNANP, NINF
  FTEST 34, fmin.s, s, s, 0, QNAN, QNANP, QNANP
  FTEST 35, fmin.s, s, s, FNV, ONE, SNAN, ONE
  FTEST 36, fmax.s, s, s, FNV, ONE, ONE, SNAN
  FTEST 37, fmin.s, s, s, FNV, QNAN, SNAN, QNANP
  FTEST 38, fmax.s, s, s, FNV, QNAN, SNAN, SNAN
  FTEST 39, fmin.s, s, s, 0, NZERO, NZERO, PZERO
  FTEST 40, fmin.s, s, s, 0, NZERO, PZERO, NZERO
  FTEST 41, fmax.s, s, s, 0, PZERO, NZERO, PZERO
  FTEST 42, fmax.s, s, s, 0, PZERO, PZERO, NZERO
  FTEST 43, fmin.s, s, s, 0, NONE, NONE, TWO
  FTEST 44, fmax.s, s, s, 0, INF, NINF, INF
  FTEST 45, fmax.s, s, s, 0, NONE, NONE, NTWO
  FTEST 46, fmin.s, s, s, 0, MINSUB, MINNORM, MINSUB
  FTEST 47, fmin.d, d, d, 0, DONE, DONE, DQNANP
  FTEST 48, fmax.d, d, d, 0, DNINF, DQNANP, DNINF
  FTEST 49, fmin.d, d, d, 0, DQNAN, DQNANP, DNQNAN
  FTEST 50, fmin.d, d, d, FNV, DONE, DSNAN, DONE
  FTEST 51, fmax.d, d, d, FNV, DQNAN, DSNAN, DQNANP
  FTEST 52, fmin.d, d, d, 0, DNZERO, DPZERO, DNZERO
  FTEST 53, fmax.d, d, d, 0, DPZERO, DNZERO, DPZERO
  FTEST 54, fmax.d, d, d, 0, DNONE, DNTWO, DNONE
  # ---- fclass: one bit per class ----
  FTEST 55, fclass.s, x, s, 0, 0x001, NINF
  FTEST 56, fclass.s, x, s, 0, 0x002, NONE
  FTEST 57, fclass.s, x, s, 0, 0x004, 0x80000001
  FTEST 58, fclass.s, x, s, 0, 0x008, NZERO
  FTEST 59, fclass.s, x, s, 0, 0x010, PZERO
  FTEST 60, fclass.s, x, s, 0, 0x020, MINSUB
  FTEST 61, fclass.s, x, s, 0, 0x020, MAXSUB
  FTEST 62, fclass.s, x, s, 0, 0x040, MINNORM
  FTEST 63, fclass.s, x, s, 0, 0x040, 0x7f7fffff
  FTEST 64, fclass.s, x, s, 0, 0x080, INF
  FTEST 65, fclass.s, x, s, 0, 0x100, SNAN
  FTEST 66, fclass.s, x, s, 0, 0x100, 0x7f800001
  FTEST 67, fclass.s, x, s, 0, 0x200, QNAN
  FTEST 68, fclass.s, x, s, 0, 0x200, NQNAN
  FTEST 69, fclass.s, x, s, 0, 0x100, NSNAN
  FTEST 70, fclass.d, x, d, 0, 0x001, DNINF
  FTEST 71, fclass.d, x, d, 0, 0x002, DNONE
  FTEST 72, fclass.d, x, d, 0, 0x004, 0x800fffffffffffff
  FTEST 73, fclass.d, x, d, 0, 0x008, DNZERO
  FTEST 74, fclass.d, x, d, 0, 0x010, DPZERO
  FTEST 75, fclass.d, x, d, 0, 0x020, DMINSUB
  FTEST 76, fclass.d, x, d, 0, 0x040, DMINNORM
  FTEST 77, fclass.d, x, d, 0, 0x080, DINF
  FTEST 78, fclass.d, x, d, 0, 0x100, DSNAN
  FTEST 79, fclass.d, x, d, 0, 0x100, 0x7ff0000000000001
  FTEST 80, fclass.d, x, d, 0, 0x200, DQNAN
  FTEST 81, fclass.d, x, d, 0, 0x200, 0xfff8000000000001
  FTEST 82, fclass.d, x, d, 0, 0x100, DNSNAN
  # ---- feq is quiet (NV only for sNaN); flt / fle signal on any NaN ----
  FTEST 83, feq.s, x, s, 0, 1, ONE, ONE
  FTEST 84, feq.s, x, s, 0, 0, QNAN, ONE
  FTEST 85, feq.s, x, s, 0, 0, QNANP, QNANP
  FTEST 86, feq.s, x, s, FNV, 0, SNAN, ONE
  FTEST 87, feq.s, x, s, FNV, 0, ONE, SNAN
  FTEST 88, flt.s, x, s, FNV, 0, QNAN, ONE
  FTEST 89, fle.s, x, s, FNV, 0, ONE, QNAN
  FTEST 90, flt.s, x, s, FNV, 0, SNAN, ONE
  FTEST 91, fle.s, x, s, FNV, 0, QNAN, QNAN
  FTEST 92, feq.s, x, s, 0, 1, NZERO, PZERO
  FTEST 93, flt.s, x, s, 0, 0, NZERO, PZERO
  FTEST 94, fle.s, x, s, 0, 1, PZERO, NZERO
  FTEST 95, flt.s, x, s, 0, 1, NINF, INF
  FTEST 96, fle.s, x, s, 0, 1, INF, INF
  FTEST 97, flt.s, x, s, 0, 0, ONE, ONE
  FTEST 98, flt.s, x, s, 0, 1, NONE, ONE
  FTEST 99, fle.s, x, s, 0, 0, TWO, ONE
  FTEST 100, flt.s, x, s, 0, 1, MINSUB, MINNORM
  FTEST 101, flt.s, x, s, 0, 1, NTWO, NONE
  FTEST 102, feq.d, x, d, 0, 1, DONE, DONE
  FTEST 103, feq.d, x, d, 0, 0, DQNAN, DONE
  FTEST 104, feq.d, x, d, FNV, 0, DSNAN, DONE
  FTEST 105, flt.d, x, d, FNV, 0, DQNAN, DONE
  FTEST 106, fle.d, x, d, FNV, 0, DONE, DQNANP
  FTEST 107, fle.d, x, d, FNV, 0, DSNAN, DSNAN
  FTEST 108, feq.d, x, d, 0, 1, DNZERO, DPZERO
  FTEST 109, flt.d, x, d, 0, 0, DPZERO, DNZERO
  FTEST 110, fle.d, x, d, 0, 1, DNZERO, DPZERO
  FTEST 111, flt.d, x, d, 0, 1, DNTWO, DNONE
  FTEST 112, fle.d, x, d, 0, 0, DTWO, DONE
  # ---- NaN-boxing: a single whose upper 32 bits are not all ones reads as
  # the canonical NaN in every single operation (src d = raw 64-bit pattern) ----
  FTEST 113, fadd.s, s, d, 0, QNAN, UNBOXED1, 0xffffffff3f800000
  FTEST 114, fsgnj.s, s, d, 0, QNAN, UNBOXED1, UNBOXED1               # fmv.s
  FTEST 115, fsgnjn.s, s, d, 0, NQNAN, UNBOXED1, 0xffffffff3f800000   # canonical NaN, sign flipped
  FTEST 116, fclass.s, x, d, 0, 0x200, UNBOXED1
  FTEST 117, fclass.s, x, d, 0, 0x200, 0xfffffffe3f800000            # one zero bit is enough
  FTEST 118, fcvt.d.s, d, d, 0, DQNAN, UNBOXED1
  FTEST 119, feq.s, x, d, 0, 0, UNBOXED1, UNBOXED1
  FTEST 120, fmin.s, s, d, 0, ONE, UNBOXED1, 0xffffffff3f800000
  # ... but moves out (fmv.x.w, fsw) take the low 32 bits as they are
  FTEST 121, fmv.x.w, x, d, 0, 0x3f800000, 0x123456783f800000
  FTEST 122, fmv.x.w, x, d, 0, 0xffffffffbf800000, 0x00000000bf800000 # sign-extended
  CASE 123
  li t0, 0x123456789abcdef0
  fmv.d.x fa0, t0
  la a1, fdat
  sd zero, 0(a1)
  fsw fa0, 0(a1)
  ld a0, 0(a1)
  CHECK a0, 0x9abcdef0
  # flw and fmv.w.x box; fld / fmv.d.x / fmv.x.d move bits, sNaN payloads
  # included, without flags
  CASE 124
  fsflags x0
  la a1, fdat
  li t0, SNAN
  sw t0, 0(a1)
  flw fa0, 0(a1)
  fmv.x.d a0, fa0
  CHECK a0, 0xffffffff00000000 | SNAN
  li t0, 0x7f800001
  fmv.w.x fa1, t0
  fmv.x.d a0, fa1
  CHECK a0, 0xffffffff7f800001
  fmv.x.w a0, fa1
  CHECK a0, 0x7f800001
  li t0, DSNAN
  sd t0, 8(a1)
  fld fa2, 8(a1)
  fsd fa2, 0(a1)
  ld a0, 0(a1)
  CHECK a0, DSNAN
  fmv.x.d a0, fa2
  CHECK a0, DSNAN
  frflags a0
  CHECK a0, 0
TEST_END

  .data
  .balign 8
fdat: .dword 0, 0

# F and D fused multiply-add family: one rounding (no intermediate rounding
# or overflow), all four sign variants, rounding modes, the sign of exact
# zero results (fnmadd negates before adding), fma(inf, 0, qNaN) -> NV.
#include "isa_test.h"
.equ ONE,    0x3f800000
.equ NONE,   0xbf800000
.equ TWO,    0x40000000
.equ THREE,  0x40400000
.equ HALF,   0x3f000000
.equ PZERO,  0x00000000
.equ NZERO,  0x80000000
.equ INF,    0x7f800000
.equ NINF,   0xff800000
.equ MAX,    0x7f7fffff
.equ NMAX,   0xff7fffff
.equ MINNORM, 0x00800000
.equ MAXSUB, 0x007fffff
.equ MINSUB, 0x00000001
.equ QNAN,   0x7fc00000
.equ QNANP,  0x7fc12345
.equ SNAN,   0x7f812345
.equ E24,    0x33800000
.equ ONEP,   0x3f800001          /* 1 + 2^-23 */
.equ ONEM2,  0x3f7ffffe          /* 1 - 2^-23 */

.equ DONE,   0x3ff0000000000000
.equ DNONE,  0xbff0000000000000
.equ DTWO,   0x4000000000000000
.equ DTHREE, 0x4008000000000000
.equ DPZERO, 0x0000000000000000
.equ DNZERO, 0x8000000000000000
.equ DINF,   0x7ff0000000000000
.equ DMAX,   0x7fefffffffffffff
.equ DNMAX,  0xffefffffffffffff
.equ DMINNORM, 0x0010000000000000
.equ DMAXSUB, 0x000fffffffffffff
.equ DQNAN,  0x7ff8000000000000
.equ DSNAN,  0x7ff0000000012345
.equ DE53,   0x3ca0000000000000
.equ DONEP,  0x3ff0000000000001
.equ DONEM2, 0x3feffffffffffffe

TEST_BEGIN
  # ---- single ----                   flags  result      a      b      c
  FTEST  2, fmadd.s, s, s, 0, 0x40a00000, ONE, TWO, THREE      # 1*2 + 3
  FTEST  3, fmsub.s, s, s, 0, 0x40a00000, TWO, THREE, ONE      # 2*3 - 1
  FTEST  4, fnmsub.s, s, s, 0, 0xc0a00000, TWO, THREE, ONE     # -(2*3) + 1
  FTEST  5, fnmadd.s, s, s, 0, 0xc0e00000, TWO, THREE, ONE     # -(2*3) - 1
  # (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; unfused it would be 0
  FTEST  6, fmadd.s, s, s, 0, 0xa8800000, ONEP, ONEM2, NONE
  FTEST  7, fmsub.s, s, s, 0, 0xa8800000, ONEP, ONEM2, ONE
  FTEST  8, fnmsub.s, s, s, 0, 0x28800000, ONEP, ONEM2, ONE
  # 2 * MAX - MAX = MAX: no intermediate overflow
  FTEST  9, fmadd.s, s, s, 0, MAX, MAX, TWO, NMAX
  #                                 a    b            rne    rtz    rdn    rup    rmm
  FT5 10, fmadd.s, s, s, FNX, ONE, ONE,            ONE,   ONE,   ONE,   ONEP,  ONEP,  static, E24
  FT5 11, fmadd.s, s, s, FNX, ONE, ONE,            ONE,   ONE,   ONE,   ONEP,  ONEP,  dyn, E24
  # exact zero sums: +0 except in RDN; fnmadd/fnmsub negate the product first
  FT5 12, fmadd.s, s, s, 0, NONE, ONE,             PZERO, PZERO, NZERO, PZERO, PZERO, static, ONE
  FT5 13, fnmadd.s, s, s, 0, ONE, ONE,             PZERO, PZERO, NZERO, PZERO, PZERO, static, NONE
  FT5 14, fnmsub.s, s, s, 0, ONE, ONE,             PZERO, PZERO, NZERO, PZERO, PZERO, static, ONE
  FT5 15, fmsub.s, s, s, 0, ONE, ONE,              PZERO, PZERO, NZERO, PZERO, PZERO, static, ONE
  FTEST 16, fmadd.s, s, s, 0, NZERO, ONE, NZERO, NZERO          # -0 + -0
  FTEST 17, fnmadd.s, s, s, 0, NZERO, ONE, PZERO, PZERO         # -(+0) - (+0)
  # invalid: inf * 0 even with a quiet NaN addend
  FTEST 18, fmadd.s, s, s, FNV, QNAN, INF, PZERO, QNANP
  FTEST 19, fmadd.s, s, s, FNV, QNAN, PZERO, NINF, QNAN
  FTEST 20, fmadd.s, s, s, FNV, QNAN, INF, ONE, NINF           # inf - inf
  FTEST 21, fmadd.s, s, s, FNV, QNAN, ONE, ONE, SNAN
  FTEST 22, fnmadd.s, s, s, FNV, QNAN, ONE, SNAN, ONE
  FTEST 23, fmadd.s, s, s, 0, QNAN, QNANP, ONE, ONE
  FTEST 24, fmadd.s, s, s, 0, QNAN, ONE, ONE, QNANP
  FTEST 25, fmadd.s, s, s, 0, INF, INF, TWO, NMAX
  # overflow and underflow (tininess after rounding)
  FTEST 26, fmadd.s, s, s, FOF|FNX, INF, MAX, TWO, PZERO
  FTEST 27, fmadd.s, s, s, FNX, MINNORM, ONEP, MAXSUB, PZERO, rne
  FTEST 28, fmadd.s, s, s, FUF|FNX, MAXSUB, ONEP, MAXSUB, PZERO, rtz
  FTEST 29, fmadd.s, s, s, FUF|FNX, PZERO, MINSUB, HALF, PZERO, rne
  FTEST 30, fmadd.s, s, s, 0, 0x00400000, MINNORM, HALF, PZERO
  # an addend that is not NaN-boxed reads as the canonical (quiet) NaN
  FTEST 31, fmadd.s, s, d, 0, QNAN, 0xffffffff3f800000, 0xffffffff3f800000, 0x000000003f800000
  # ---- double ----
  FTEST 32, fmadd.d, d, d, 0, 0x4014000000000000, DONE, DTWO, DTHREE
  FTEST 33, fmsub.d, d, d, 0, 0x4014000000000000, DTWO, DTHREE, DONE
  FTEST 34, fnmsub.d, d, d, 0, 0xc014000000000000, DTWO, DTHREE, DONE
  FTEST 35, fnmadd.d, d, d, 0, 0xc01c000000000000, DTWO, DTHREE, DONE
  FTEST 36, fmadd.d, d, d, 0, 0xb970000000000000, DONEP, DONEM2, DNONE   # -2^-104
  FTEST 37, fmadd.d, d, d, 0, DMAX, DMAX, DTWO, DNMAX
  FT5 38, fmadd.d, d, d, FNX, DONE, DONE,          DONE,  DONE,  DONE,  DONEP, DONEP, static, DE53
  FT5 39, fmadd.d, d, d, FNX, DONE, DONE,          DONE,  DONE,  DONE,  DONEP, DONEP, dyn, DE53
  FT5 40, fmadd.d, d, d, 0, DNONE, DONE,           DPZERO, DPZERO, DNZERO, DPZERO, DPZERO, static, DONE
  FT5 41, fnmadd.d, d, d, 0, DONE, DONE,           DPZERO, DPZERO, DNZERO, DPZERO, DPZERO, static, DNONE
  FTEST 42, fmadd.d, d, d, FNV, DQNAN, DINF, DPZERO, DQNAN
  FTEST 43, fmadd.d, d, d, FNV, DQNAN, DONE, DONE, DSNAN
  FTEST 44, fmsub.d, d, d, FNV, DQNAN, DINF, DONE, DINF
  FTEST 45, fmadd.d, d, d, FOF|FNX, DINF, DMAX, DTWO, DPZERO
  FTEST 46, fmadd.d, d, d, FNX, DMINNORM, DONEP, DMAXSUB, DPZERO, rne
  FTEST 47, fmadd.d, d, d, FUF|FNX, DMAXSUB, DONEP, DMAXSUB, DPZERO, rtz
TEST_END

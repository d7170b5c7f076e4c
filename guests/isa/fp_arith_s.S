# F: fadd/fsub/fmul/fdiv/fsqrt.s in every static rounding mode and in the
# dynamic mode via frm, checking result bits and fflags: ties, signed zeros
# (x - x is -0 only in RDN), overflow, underflow with tininess detected after
# rounding, division by zero, invalid operations.
#include "isa_test.h"
.equ ONE,     0x3f800000
.equ NONE,    0xbf800000
.equ TWO,     0x40000000
.equ THREE,   0x40400000
.equ FOUR,    0x40800000
.equ HALF,    0x3f000000
.equ PZERO,   0x00000000
.equ NZERO,   0x80000000
.equ INF,     0x7f800000
.equ NINF,    0xff800000
.equ MAX,     0x7f7fffff
.equ NMAX,    0xff7fffff
.equ QNAN,    0x7fc00000          /* canonical NaN */
.equ MINNORM, 0x00800000          /* 2^-126 */
.equ MAXSUB,  0x007fffff
.equ MINSUB,  0x00000001          /* 2^-149 */
.equ E24,     0x33800000          /* 2^-24: half an ulp of 1.0 */
.equ NE24,    0xb3800000
.equ E25,     0x33000000          /* 2^-25: half an ulp below 1.0 */
.equ E24X15,  0x33c00000          /* 1.5 * 2^-24: 0.75 ulp of 1.0 */
.equ ONEP,    0x3f800001          /* 1 + 2^-23 */
.equ NONEP,   0xbf800001
.equ ONEM,    0x3f7fffff          /* 1 - 2^-24 */

TEST_BEGIN
  #            op     dst src flags    a      b       rne         rtz         rdn         rup         rmm
  FT5  2, fadd.s, s, s, FNX, ONE, E24,       ONE,        ONE,        ONE,        ONEP,       ONEP       # tie
  FT5  3, fadd.s, s, s, FNX, NONE, NE24,     NONE,       NONE,       NONEP,      NONE,       NONEP
  FT5  4, fadd.s, s, s, FNX, ONE, E24X15,    ONEP,       ONE,        ONE,        ONEP,       ONEP
  FT5  5, fadd.s, s, s, 0, ONE, TWO,         THREE,      THREE,      THREE,      THREE,      THREE
  FT5  6, fsub.s, s, s, FNX, ONE, E25,       ONE,        ONEM,       ONEM,       ONE,        ONE        # tie
  FT5  7, fsub.s, s, s, 0, ONE, ONE,         PZERO,      PZERO,      NZERO,      PZERO,      PZERO
  FT5  8, fadd.s, s, s, 0, ONE, NONE,        PZERO,      PZERO,      NZERO,      PZERO,      PZERO
  FT5  9, fadd.s, s, s, 0, NZERO, NZERO,     NZERO,      NZERO,      NZERO,      NZERO,      NZERO
  FT5 10, fadd.s, s, s, 0, PZERO, NZERO,     PZERO,      PZERO,      NZERO,      PZERO,      PZERO
  FT5 11, fmul.s, s, s, FNX, ONEP, ONEP,     0x3f800002, 0x3f800002, 0x3f800002, 0x3f800003, 0x3f800002
  FT5 12, fmul.s, s, s, FNX, NONEP, ONEP,    0xbf800002, 0xbf800002, 0xbf800003, 0xbf800002, 0xbf800002
  FT5 13, fdiv.s, s, s, FNX, ONE, THREE,     0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab, 0x3eaaaaab
  FT5 14, fdiv.s, s, s, FNX, NONE, THREE,    0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab
  FT5 15, fsqrt.s, s, s, FNX, TWO, ,         0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4, 0x3fb504f3
  FT5 16, fsqrt.s, s, s, 0, FOUR, ,          TWO,        TWO,        TWO,        TWO,        TWO
  # overflow: to infinity or to the largest finite value, by mode
  FT5 17, fadd.s, s, s, FOF|FNX, MAX, MAX,   INF,        MAX,        MAX,        INF,        INF
  FT5 18, fadd.s, s, s, FOF|FNX, NMAX, NMAX, NINF,       NMAX,       NINF,       NMAX,       NINF
  FT5 19, fmul.s, s, s, FOF|FNX, MAX, TWO,   INF,        MAX,        MAX,        INF,        INF
  # underflow, tininess after rounding: (1 + 2^-23) * (2^-126 - 2^-149) = 2^-126 - 2^-172
  # rounds (unbounded exponent) to 2^-126 in RNE/RUP/RMM: not tiny, no UF
  FTEST 20, fmul.s, s, s, FNX, MINNORM, ONEP, MAXSUB, , rne
  FTEST 21, fmul.s, s, s, FUF|FNX, MAXSUB, ONEP, MAXSUB, , rtz
  FTEST 22, fmul.s, s, s, FUF|FNX, MAXSUB, ONEP, MAXSUB, , rdn
  FTEST 23, fmul.s, s, s, FNX, MINNORM, ONEP, MAXSUB, , rup
  FTEST 24, fmul.s, s, s, FNX, MINNORM, ONEP, MAXSUB, , rmm
  FT5 25, fmul.s, s, s, FUF|FNX, MINSUB, HALF,  PZERO,   PZERO,      PZERO,      MINSUB,     MINSUB
  # (1 - 2^-24) * 2^-126 = 2^-126 - 2^-150: tiny in every mode, a tie in the subnormal format
  FT5 26, fmul.s, s, s, FUF|FNX, ONEM, MINNORM, MINNORM, MAXSUB,     MAXSUB,     MINNORM,    MINNORM
  FT5 27, fmul.s, s, s, 0, MINNORM, HALF,    0x00400000, 0x00400000, 0x00400000, 0x00400000, 0x00400000 # exact subnormal: no UF
  FT5 28, fadd.s, s, s, 0, MINSUB, MINSUB,   0x00000002, 0x00000002, 0x00000002, 0x00000002, 0x00000002
  FT5 29, fsub.s, s, s, 0, MINNORM, MINSUB,  MAXSUB,     MAXSUB,     MAXSUB,     MAXSUB,     MAXSUB
  # division by zero and invalid operations
  FTEST 30, fdiv.s, s, s, FDZ, INF, ONE, PZERO
  FTEST 31, fdiv.s, s, s, FDZ, NINF, NONE, PZERO
  FTEST 32, fdiv.s, s, s, FDZ, NINF, ONE, NZERO
  FTEST 33, fdiv.s, s, s, FNV, QNAN, PZERO, PZERO
  FTEST 34, fdiv.s, s, s, FNV, QNAN, INF, INF
  FTEST 35, fdiv.s, s, s, 0, INF, INF, PZERO            # inf / 0 is exact: no DZ
  FTEST 36, fdiv.s, s, s, 0, PZERO, PZERO, INF
  FTEST 37, fsqrt.s, s, s, FNV, QNAN, NONE
  FTEST 38, fsqrt.s, s, s, 0, NZERO, NZERO              # sqrt(-0) = -0
  FTEST 39, fsqrt.s, s, s, 0, INF, INF
  FTEST 40, fsqrt.s, s, s, FNV, QNAN, NINF
  FTEST 41, fadd.s, s, s, FNV, QNAN, INF, NINF
  FTEST 42, fmul.s, s, s, FNV, QNAN, INF, PZERO
  FTEST 43, fsub.s, s, s, FNV, QNAN, INF, INF
  FTEST 44, fmul.s, s, s, 0, NINF, INF, NONE
  FTEST 45, fsqrt.s, s, s, FNX, 0x1a3504f3, MINSUB      # sqrt(2^-149) = 2^-75 * sqrt(2)
  FTEST 46, fdiv.s, s, s, FUF|FNX, 0x00200000, ONE, MAX  # ~2^-128: subnormal, inexact
  # the dynamic rounding mode (frm) gives the same results as the static modes
  FT5 47, fadd.s, s, s, FNX, ONE, E24,       ONE,        ONE,        ONE,        ONEP,       ONEP,       dyn
  FT5 48, fdiv.s, s, s, FNX, NONE, THREE,    0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab, dyn
  FT5 49, fsub.s, s, s, 0, ONE, ONE,         PZERO,      PZERO,      NZERO,      PZERO,      PZERO,      dyn
  FT5 50, fsqrt.s, s, s, FNX, TWO, ,         0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4, 0x3fb504f3, dyn
  FT5 51, fadd.s, s, s, FOF|FNX, NMAX, NMAX, NINF,       NMAX,       NINF,       NMAX,       NINF,       dyn
  # a static mode overrides frm; dyn follows it
  CASE 52
  fsrmi x0, RM_RUP
  FCASE fadd.s, s, s, FNX, ONE, ONE, E24, , rne
  FCASE fadd.s, s, s, FNX, ONEP, ONE, E24, , dyn
  fsrmi x0, RM_RNE
  # fflags accrue until cleared; operations without exceptions leave them alone
  CASE 53
  fsflags x0
  FLOAD s, fa1, ONE
  FLOAD s, fa2, PZERO
  FLOAD s, fa3, THREE
  fdiv.s fa0, fa1, fa2             # DZ
  fadd.s fa0, fa1, fa1             # exact
  frflags a0
  CHECK a0, FDZ
  fdiv.s fa0, fa1, fa3             # NX
  frflags a0
  CHECK a0, FDZ|FNX
  fsflags x0
  fadd.s fa0, fa1, fa1
  frflags a0
  CHECK a0, 0
TEST_END

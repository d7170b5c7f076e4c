# D: fadd/fsub/fmul/fdiv/fsqrt.d in every static rounding mode and in the
# dynamic mode via frm, checking result bits and fflags (see fp_arith_s.S).
#include "isa_test.h"
.equ ONE,     0x3ff0000000000000
.equ NONE,    0xbff0000000000000
.equ TWO,     0x4000000000000000
.equ THREE,   0x4008000000000000
.equ FOUR,    0x4010000000000000
.equ HALF,    0x3fe0000000000000
.equ PZERO,   0x0000000000000000
.equ NZERO,   0x8000000000000000
.equ INF,     0x7ff0000000000000
.equ NINF,    0xfff0000000000000
.equ MAX,     0x7fefffffffffffff
.equ NMAX,    0xffefffffffffffff
.equ QNAN,    0x7ff8000000000000   /* canonical NaN */
.equ MINNORM, 0x0010000000000000   /* 2^-1022 */
.equ MAXSUB,  0x000fffffffffffff
.equ MINSUB,  0x0000000000000001   /* 2^-1074 */
.equ E53,     0x3ca0000000000000   /* 2^-53: half an ulp of 1.0 */
.equ NE53,    0xbca0000000000000
.equ E54,     0x3c90000000000000   /* half an ulp below 1.0 */
.equ E53X15,  0x3ca8000000000000   /* 0.75 ulp of 1.0 */
.equ ONEP,    0x3ff0000000000001   /* 1 + 2^-52 */
.equ NONEP,   0xbff0000000000001
.equ ONEM,    0x3fefffffffffffff   /* 1 - 2^-53 */
.equ THIRD,   0x3fd5555555555555
.equ NTHIRD,  0xbfd5555555555555
.equ SQRT2,   0x3ff6a09e667f3bcd   /* sqrt(2) rounded to nearest: above the exact value */
.equ SQRT2DN, 0x3ff6a09e667f3bcc

TEST_BEGIN
  #            op     dst src flags    a      b       rne         rtz         rdn         rup         rmm
  FT5  2, fadd.d, d, d, FNX, ONE, E53,       ONE,        ONE,        ONE,        ONEP,       ONEP       # tie
  FT5  3, fadd.d, d, d, FNX, NONE, NE53,     NONE,       NONE,       NONEP,      NONE,       NONEP
  FT5  4, fadd.d, d, d, FNX, ONE, E53X15,    ONEP,       ONE,        ONE,        ONEP,       ONEP
  FT5  5, fadd.d, d, d, 0, ONE, TWO,         THREE,      THREE,      THREE,      THREE,      THREE
  FT5  6, fsub.d, d, d, FNX, ONE, E54,       ONE,        ONEM,       ONEM,       ONE,        ONE        # tie
  FT5  7, fsub.d, d, d, 0, ONE, ONE,         PZERO,      PZERO,      NZERO,      PZERO,      PZERO
  FT5  8, fadd.d, d, d, 0, ONE, NONE,        PZERO,      PZERO,      NZERO,      PZERO,      PZERO
  FT5  9, fadd.d, d, d, 0, NZERO, NZERO,     NZERO,      NZERO,      NZERO,      NZERO,      NZERO
  FT5 10, fadd.d, d, d, 0, PZERO, NZERO,     PZERO,      PZERO,      NZERO,      PZERO,      PZERO
  FT5 11, fmul.d, d, d, FNX, ONEP, ONEP,     0x3ff0000000000002, 0x3ff0000000000002, 0x3ff0000000000002, 0x3ff0000000000003, 0x3ff0000000000002
  FT5 12, fmul.d, d, d, FNX, NONEP, ONEP,    0xbff0000000000002, 0xbff0000000000002, 0xbff0000000000003, 0xbff0000000000002, 0xbff0000000000002
  FT5 13, fdiv.d, d, d, FNX, ONE, THREE,     THIRD,      THIRD,      THIRD,      0x3fd5555555555556, THIRD
  FT5 14, fdiv.d, d, d, FNX, NONE, THREE,    NTHIRD,     NTHIRD,     0xbfd5555555555556, NTHIRD, NTHIRD
  FT5 15, fsqrt.d, d, d, FNX, TWO, ,         SQRT2,      SQRT2DN,    SQRT2DN,    SQRT2,      SQRT2
  FT5 16, fsqrt.d, d, d, 0, FOUR, ,          TWO,        TWO,        TWO,        TWO,        TWO
  # overflow
  FT5 17, fadd.d, d, d, FOF|FNX, MAX, MAX,   INF,        MAX,        MAX,        INF,        INF
  FT5 18, fadd.d, d, d, FOF|FNX, NMAX, NMAX, NINF,       NMAX,       NINF,       NMAX,       NINF
  FT5 19, fmul.d, d, d, FOF|FNX, MAX, TWO,   INF,        MAX,        MAX,        INF,        INF
  # underflow, tininess after rounding: (1 + 2^-52) * (2^-1022 - 2^-1074)
  FTEST 20, fmul.d, d, d, FNX, MINNORM, ONEP, MAXSUB, , rne
  FTEST 21, fmul.d, d, d, FUF|FNX, MAXSUB, ONEP, MAXSUB, , rtz
  FTEST 22, fmul.d, d, d, FUF|FNX, MAXSUB, ONEP, MAXSUB, , rdn
  FTEST 23, fmul.d, d, d, FNX, MINNORM, ONEP, MAXSUB, , rup
  FTEST 24, fmul.d, d, d, FNX, MINNORM, ONEP, MAXSUB, , rmm
  FT5 25, fmul.d, d, d, FUF|FNX, MINSUB, HALF,  PZERO,   PZERO,      PZERO,      MINSUB,     MINSUB
  FT5 26, fmul.d, d, d, FUF|FNX, ONEM, MINNORM, MINNORM, MAXSUB,     MAXSUB,     MINNORM,    MINNORM
  FT5 27, fmul.d, d, d, 0, MINNORM, HALF,    0x0008000000000000, 0x0008000000000000, 0x0008000000000000, 0x0008000000000000, 0x0008000000000000
  FT5 28, fadd.d, d, d, 0, MINSUB, MINSUB,   2,          2,          2,          2,          2
  FT5 29, fsub.d, d, d, 0, MINNORM, MINSUB,  MAXSUB,     MAXSUB,     MAXSUB,     MAXSUB,     MAXSUB
  # division by zero and invalid operations
  FTEST 30, fdiv.d, d, d, FDZ, INF, ONE, PZERO
  FTEST 31, fdiv.d, d, d, FDZ, NINF, NONE, PZERO
  FTEST 32, fdiv.d, d, d, FDZ, NINF, ONE, NZERO
  FTEST 33, fdiv.d, d, d, FNV, QNAN, PZERO, PZERO
  FTEST 34, fdiv.d, d, d, FNV, QNAN, INF, INF
  FTEST 35, fdiv.d, d, d, 0, INF, INF, PZERO
  FTEST 36, fdiv.d, d, d, 0, PZERO, PZERO, INF
  FTEST 37, fsqrt.d, d, d, FNV, QNAN, NONE
  FTEST 38, fsqrt.d, d, d, 0, NZERO, NZERO
  FTEST 39, fsqrt.d, d, d, 0, INF, INF
  FTEST 40, fsqrt.d, d, d, FNV, QNAN, NINF
  FTEST 41, fadd.d, d, d, FNV, QNAN, INF, NINF
  FTEST 42, fmul.d, d, d, FNV, QNAN, INF, PZERO
  FTEST 43, fsub.d, d, d, FNV, QNAN, INF, INF
  FTEST 44, fmul.d, d, d, 0, NINF, INF, NONE
  FTEST 45, fsqrt.d, d, d, 0, 0x1e60000000000000, MINSUB     # sqrt(2^-1074) = 2^-537 exactly
  FTEST 46, fdiv.d, d, d, FUF|FNX, 0x0004000000000000, ONE, MAX   # ~2^-1024
  # dynamic rounding mode
  FT5 47, fadd.d, d, d, FNX, ONE, E53,       ONE,        ONE,        ONE,        ONEP,       ONEP,       dyn
  FT5 48, fdiv.d, d, d, FNX, NONE, THREE,    NTHIRD,     NTHIRD,     0xbfd5555555555556, NTHIRD, NTHIRD, dyn
  FT5 49, fsub.d, d, d, 0, ONE, ONE,         PZERO,      PZERO,      NZERO,      PZERO,      PZERO,      dyn
  FT5 50, fsqrt.d, d, d, FNX, TWO, ,         SQRT2,      SQRT2DN,    SQRT2DN,    SQRT2,      SQRT2,      dyn
  FT5 51, fadd.d, d, d, FOF|FNX, NMAX, NMAX, NINF,       NMAX,       NINF,       NMAX,       NINF,       dyn
  CASE 52
  fsrmi x0, RM_RUP
  FCASE fadd.d, d, d, FNX, ONE, ONE, E53, , rne
  FCASE fadd.d, d, d, FNX, ONEP, ONE, E53, , dyn
  fsrmi x0, RM_RNE
  CASE 53
  fsflags x0
  FLOAD d, fa1, ONE
  FLOAD d, fa2, PZERO
  FLOAD d, fa3, THREE
  fdiv.d fa0, fa1, fa2
  fadd.d fa0, fa1, fa1
  frflags a0
  CHECK a0, FDZ
  fdiv.d fa0, fa1, fa3
  frflags a0
  CHECK a0, FDZ|FNX
TEST_END

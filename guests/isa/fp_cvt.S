# F and D conversions: fcvt.w/wu/l/lu from s and d (rounding, saturation with
# NV for out-of-range / NaN / infinities, NX when inexact, -0.5, 2^31, 2^63,
# 2^64), fcvt from integers (inexact -> NX, +0 from 0 in every mode), and
# fcvt.s.d / fcvt.d.s (rounding, overflow, underflow, NaNs).
#include "isa_test.h"
.equ S_ONE,  0x3f800000
.equ S_NONE, 0xbf800000
.equ S_HALF, 0x3f000000
.equ S_NHALF, 0xbf000000
.equ S_1P5,  0x3fc00000
.equ S_N1P5, 0xbfc00000
.equ S_2P5,  0x40200000
.equ S_2E31, 0x4f000000
.equ S_N2E31, 0xcf000000
.equ S_2E32, 0x4f800000
.equ S_2E63, 0x5f000000
.equ S_N2E63, 0xdf000000
.equ S_2E64, 0x5f800000
.equ S_3E9,  0x4f32d05e        /* 3000000000 = 0xb2d05e00, exact */
.equ S_INF,  0x7f800000
.equ S_NINF, 0xff800000
.equ S_NZERO, 0x80000000
.equ S_MAX,  0x7f7fffff
.equ S_QNAN, 0x7fc00000
.equ S_QNANP, 0x7fc12345
.equ S_NQNAN, 0xffc00000
.equ S_SNAN, 0x7f812345

.equ D_ONE,  0x3ff0000000000000
.equ D_NONE, 0xbff0000000000000
.equ D_NHALF, 0xbfe0000000000000
.equ D_2P5,  0x4004000000000000
.equ D_2E31, 0x41e0000000000000
.equ D_2E31M, 0x41dfffffffe00000   /* 2^31 - 0.5 */
.equ D_N2E31M, 0xc1e0000000100000  /* -2^31 - 0.5 */
.equ D_2E32M, 0x41effffffff00000   /* 2^32 - 0.5 */
.equ D_2E63, 0x43e0000000000000
.equ D_N2E63, 0xc3e0000000000000
.equ D_2E64, 0x43f0000000000000
.equ D_1E19, 0x43e158e460913d00
.equ D_INF,  0x7ff0000000000000
.equ D_NINF, 0xfff0000000000000
.equ D_NZERO, 0x8000000000000000
.equ D_MAX,  0x7fefffffffffffff
.equ D_QNAN, 0x7ff8000000000000
.equ D_QNANP, 0x7ff8000000012345
.equ D_SNAN, 0x7ff0000000012345

.equ I32MAX, 0x7fffffff
.equ I32MIN, 0xffffffff80000000
.equ I64MAX, 0x7fffffffffffffff
.equ I64MIN, 0x8000000000000000

TEST_BEGIN
  # ---- fcvt.w.s ----                       a        rne  rtz  rdn  rup  rmm
  FT5  2, fcvt.w.s, x, s, FNX, S_1P5, ,      2,   1,   1,   2,   2
  FT5  3, fcvt.w.s, x, s, FNX, S_2P5, ,      2,   2,   2,   3,   3
  FT5  4, fcvt.w.s, x, s, FNX, S_N1P5, ,     -2,  -1,  -2,  -1,  -2
  FT5  5, fcvt.w.s, x, s, FNX, S_NHALF, ,    0,   0,   -1,  0,   -1
  FT5  6, fcvt.w.s, x, s, FNX, S_HALF, ,     0,   0,   0,   1,   1
  FTEST  7, fcvt.w.s, x, s, FNV, I32MAX, S_2E31, , , rtz
  FTEST  8, fcvt.w.s, x, s, 0, I32MIN, S_N2E31, , , rtz
  FTEST  9, fcvt.w.s, x, s, FNV, I32MAX, S_QNAN, , , rtz
  FTEST 10, fcvt.w.s, x, s, FNV, I32MAX, S_NQNAN, , , rtz    # any NaN: the largest value
  FTEST 11, fcvt.w.s, x, s, FNV, I32MAX, S_SNAN, , , rtz
  FTEST 12, fcvt.w.s, x, s, FNV, I32MAX, S_INF, , , rtz
  FTEST 13, fcvt.w.s, x, s, FNV, I32MIN, S_NINF, , , rtz
  FTEST 14, fcvt.w.s, x, s, 0, 0, S_NZERO, , , rtz
  FTEST 15, fcvt.w.s, x, s, 0, 0x7fffff80, 0x4effffff, , , rtz
  FTEST 16, fcvt.w.s, x, s, FNV, I32MIN, 0xcf000001, , , rtz
  # ---- fcvt.wu.s: the 32-bit result is sign-extended ----
  FTEST 17, fcvt.wu.s, x, s, 0, 0xffffffffb2d05e00, S_3E9, , , rtz
  FTEST 18, fcvt.wu.s, x, s, FNV, 0, S_NONE, , , rtz
  FTEST 19, fcvt.wu.s, x, s, FNX, 0, S_NHALF, , , rtz         # rounds to 0: in range
  FTEST 20, fcvt.wu.s, x, s, FNV, 0, S_NHALF, , , rdn         # rounds to -1: out of range
  FTEST 21, fcvt.wu.s, x, s, FNV, -1, S_2E32, , , rtz
  FTEST 22, fcvt.wu.s, x, s, FNV, -1, S_QNAN, , , rtz
  FTEST 23, fcvt.wu.s, x, s, FNV, 0, S_NINF, , , rtz
  FTEST 24, fcvt.wu.s, x, s, FNV, -1, S_INF, , , rtz
  FTEST 25, fcvt.wu.s, x, s, FNX, 2, S_1P5, , , rup
  # ---- fcvt.l.s / fcvt.lu.s ----
  FTEST 26, fcvt.l.s, x, s, FNV, I64MAX, S_2E63, , , rtz
  FTEST 27, fcvt.l.s, x, s, 0, I64MIN, S_N2E63, , , rtz
  FTEST 28, fcvt.l.s, x, s, FNV, I64MAX, S_QNAN, , , rtz
  FTEST 29, fcvt.l.s, x, s, FNV, I64MIN, S_NINF, , , rtz
  FTEST 30, fcvt.l.s, x, s, 0, 3000000000, S_3E9, , , rtz
  FT5 31, fcvt.l.s, x, s, FNX, S_N1P5, ,     -2,  -1,  -2,  -1,  -2
  FTEST 32, fcvt.lu.s, x, s, FNV, -1, S_2E64, , , rtz
  FTEST 33, fcvt.lu.s, x, s, 0, I64MIN, S_2E63, , , rtz
  FTEST 34, fcvt.lu.s, x, s, FNV, 0, S_NONE, , , rtz
  FTEST 35, fcvt.lu.s, x, s, FNX, 0, S_NHALF, , , rtz
  FTEST 36, fcvt.lu.s, x, s, FNV, -1, S_SNAN, , , rtz
  FTEST 37, fcvt.lu.s, x, s, FNV, 0, S_NINF, , , rtz
  FTEST 38, fcvt.lu.s, x, s, 0, 0xffffff0000000000, 0x5f7fffff, , , rtz
  # ---- fcvt.w.d: 2^31 - 0.5 and -2^31 - 0.5 land in or out of range by mode ----
  FTEST 39, fcvt.w.d, x, d, FNX, I32MAX, D_2E31M, , , rtz
  FTEST 40, fcvt.w.d, x, d, FNV, I32MAX, D_2E31M, , , rne    # tie to even: 2^31
  FTEST 41, fcvt.w.d, x, d, FNX, I32MAX, D_2E31M, , , rdn
  FTEST 42, fcvt.w.d, x, d, FNV, I32MAX, D_2E31M, , , rup
  FTEST 43, fcvt.w.d, x, d, FNV, I32MAX, D_2E31M, , , rmm
  FTEST 44, fcvt.w.d, x, d, FNX, I32MIN, D_N2E31M, , , rtz
  FTEST 45, fcvt.w.d, x, d, FNX, I32MIN, D_N2E31M, , , rne   # tie to even: -2^31
  FTEST 46, fcvt.w.d, x, d, FNV, I32MIN, D_N2E31M, , , rdn
  FTEST 47, fcvt.w.d, x, d, FNX, I32MIN, D_N2E31M, , , rup
  FTEST 48, fcvt.w.d, x, d, FNV, I32MIN, D_N2E31M, , , rmm
  FTEST 49, fcvt.w.d, x, d, FNV, I32MAX, D_2E31, , , rtz
  FT5 50, fcvt.w.d, x, d, FNX, D_NHALF, ,    0,   0,   -1,  0,   -1
  FTEST 51, fcvt.w.d, x, d, FNV, I32MAX, D_QNAN, , , rtz
  FTEST 52, fcvt.w.d, x, d, FNV, I32MIN, D_NINF, , , rtz
  # ---- fcvt.wu.d ----
  FTEST 53, fcvt.wu.d, x, d, FNX, -1, D_2E32M, , , rtz       # 0xffffffff, sign-extended
  FTEST 54, fcvt.wu.d, x, d, FNV, -1, D_2E32M, , , rup
  FTEST 55, fcvt.wu.d, x, d, FNV, 0, D_NONE, , , rtz
  FTEST 56, fcvt.wu.d, x, d, 0, 0, D_NZERO, , , rtz
  FTEST 57, fcvt.wu.d, x, d, 0, 0xffffffff80000000, D_2E31, , , rtz
  # ---- fcvt.l.d / fcvt.lu.d ----
  FTEST 58, fcvt.l.d, x, d, FNV, I64MAX, D_2E63, , , rtz
  FTEST 59, fcvt.l.d, x, d, 0, I64MIN, D_N2E63, , , rtz
  FTEST 60, fcvt.l.d, x, d, FNV, I64MAX, D_1E19, , , rtz
  FTEST 61, fcvt.l.d, x, d, 0, 0x7ffffffffffffc00, 0x43dfffffffffffff, , , rtz
  FTEST 62, fcvt.l.d, x, d, FNV, I64MAX, D_QNAN, , , rtz
  FTEST 63, fcvt.l.d, x, d, FNV, I64MAX, D_INF, , , rtz
  FTEST 64, fcvt.l.d, x, d, FNV, I64MIN, D_NINF, , , rtz
  FT5 65, fcvt.l.d, x, d, FNX, D_2P5, ,      2,   2,   2,   3,   3
  FTEST 66, fcvt.lu.d, x, d, FNV, -1, D_2E64, , , rtz
  FTEST 67, fcvt.lu.d, x, d, 0, 0xfffffffffffff800, 0x43efffffffffffff, , , rtz
  FTEST 68, fcvt.lu.d, x, d, FNV, 0, D_NONE, , , rtz
  FTEST 69, fcvt.lu.d, x, d, FNX, 0, D_NHALF, , , rtz
  FTEST 70, fcvt.lu.d, x, d, FNV, 0, D_NHALF, , , rdn
  FTEST 71, fcvt.lu.d, x, d, FNV, -1, D_QNAN, , , rtz
  # ---- integer to float ----                 a          rne         rtz         rdn         rup         rmm
  FT5 72, fcvt.s.w, s, x, FNX, 16777217, ,   0x4b800000, 0x4b800000, 0x4b800000, 0x4b800001, 0x4b800001
  FT5 73, fcvt.s.w, s, x, FNX, -16777217, ,  0xcb800000, 0xcb800000, 0xcb800001, 0xcb800000, 0xcb800001
  FT5 74, fcvt.s.w, s, x, FNX, 0x7fffffff, , 0x4f000000, 0x4effffff, 0x4effffff, 0x4f000000, 0x4f000000
  FTEST 75, fcvt.s.w, s, x, 0, S_N2E31, 0x80000000          # the low word is -2^31
  FTEST 76, fcvt.s.w, s, x, 0, 0x40400000, 0x1234567800000003
  FT5 77, fcvt.s.w, s, x, 0, 0, ,            0,          0,          0,          0,          0          # +0, even in RDN
  FTEST 78, fcvt.s.wu, s, x, FNX, S_2E32, 0xffffffff, , , rne
  FTEST 79, fcvt.s.wu, s, x, FNX, 0x4f7fffff, 0xffffffff, , , rtz
  FTEST 80, fcvt.s.wu, s, x, 0, S_2E31, 0xffffffff80000000   # low word as unsigned
  FTEST 81, fcvt.s.l, s, x, FNX, S_2E63, I64MAX, , , rne
  FTEST 82, fcvt.s.l, s, x, 0, S_NONE, -1
  FTEST 83, fcvt.s.lu, s, x, FNX, S_2E64, -1, , , rne
  FTEST 84, fcvt.s.l, s, x, 0, S_N2E63, I64MIN
  FT5 85, fcvt.d.l, d, x, FNX, 0x20000000000001, , 0x4340000000000000, 0x4340000000000000, 0x4340000000000000, 0x4340000000000001, 0x4340000000000001
  FTEST 86, fcvt.d.l, d, x, FNX, D_2E63, I64MAX, , , rne
  FTEST 87, fcvt.d.l, d, x, 0, D_N2E63, I64MIN
  FTEST 88, fcvt.d.lu, d, x, FNX, D_2E64, -1, , , rne
  FTEST 89, fcvt.d.w, d, x, 0, 0x41dfffffffc00000, 0x7fffffff
  FTEST 90, fcvt.d.wu, d, x, 0, 0x41efffffffe00000, 0xffffffff
  FTEST 91, fcvt.d.w, d, x, 0, D_NONE, 0xffffffff           # the low word is -1
  FTEST 92, fcvt.d.lu, d, x, FNX, D_2E63, 0x8000000000000001, , , rne
  FTEST 93, fcvt.d.l, d, x, 0, 0, 0, , , rdn
  # ---- fcvt.s.d ----                     a                  rne         rtz         rdn         rup         rmm
  FT5 94, fcvt.s.d, s, d, FNX, 0x3fd5555555555555, , 0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab, 0x3eaaaaab
  FT5 95, fcvt.s.d, s, d, FNX, 0x3ff0000010000000, , S_ONE,  S_ONE,      S_ONE,      0x3f800001, 0x3f800001 # tie
  FT5 96, fcvt.s.d, s, d, 0, 0x3ff8000000000000, ,   S_1P5,  S_1P5,      S_1P5,      S_1P5,      S_1P5
  FT5 97, fcvt.s.d, s, d, FOF|FNX, D_MAX, ,          S_INF,  S_MAX,      S_MAX,      S_INF,      S_INF
  FT5 98, fcvt.s.d, s, d, FUF|FNX, 0x358dee7a4ad4b81f, , 0,  0,          0,          1,          0          # 1e-50
  FTEST  99, fcvt.s.d, s, d, 0, S_QNAN, D_QNANP
  FTEST 100, fcvt.s.d, s, d, FNV, S_QNAN, D_SNAN
  FTEST 101, fcvt.s.d, s, d, 0, S_NINF, D_NINF
  FTEST 102, fcvt.s.d, s, d, 0, S_NZERO, D_NZERO
  FTEST 103, fcvt.s.d, s, d, 0, 1, 0x36a0000000000000       # 2^-149: exact subnormal
  FTEST 104, fcvt.s.d, s, d, FUF|FNX, 0, 0x3690000000000000, , , rne   # 2^-150: tie to 0
  FTEST 105, fcvt.s.d, s, d, FUF|FNX, 1, 0x3690000000000000, , , rup
  # ---- fcvt.d.s: exact, NaNs canonical ----
  FTEST 106, fcvt.d.s, d, s, 0, 0x3fd5555560000000, 0x3eaaaaab
  FTEST 107, fcvt.d.s, d, s, 0, D_QNAN, S_QNANP
  FTEST 108, fcvt.d.s, d, s, FNV, D_QNAN, S_SNAN
  FTEST 109, fcvt.d.s, d, s, 0, 0x36a0000000000000, 1        # subnormal single: normal double
  FTEST 110, fcvt.d.s, d, s, 0, D_NINF, S_NINF
  FTEST 111, fcvt.d.s, d, s, 0, D_NZERO, S_NZERO
TEST_END

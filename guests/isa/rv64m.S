# RV64M: mul and the high parts, div/rem with division by zero and signed
# overflow (results fixed by the spec, no trap), word forms.
#include "isa_test.h"
.equ MIN, 0x8000000000000000
.equ MAX, 0x7fffffffffffffff
TEST_BEGIN
  TEST_RR  2, mul, 21, 3, 7
  TEST_RR  3, mul, 1, -1, -1
  TEST_RR  4, mul, MIN, MIN, -1
  TEST_RR  5, mul, 0, 0x100000000, 0x100000000
  TEST_RR  6, mul, 0xfffffffffffffffe, MAX, 2
  TEST_RR  7, mul, 0xc24a442fe55618cf, 0x1234567890abcdef, 0xfedcba0987654321
  # mulh: signed x signed, high 64 bits
  TEST_RR  8, mulh, 0, -1, -1
  TEST_RR  9, mulh, 0x4000000000000000, MIN, MIN
  TEST_RR 10, mulh, 0xc000000000000000, MIN, MAX
  TEST_RR 11, mulh, -1, -1, 1
  TEST_RR 12, mulh, 1, 0x100000000, 0x100000000
  TEST_RR 13, mulh, 0xffeb498812c66c68, 0x1234567890abcdef, 0xfedcba0987654321
  # mulhu: unsigned x unsigned
  TEST_RR 14, mulhu, 0xfffffffffffffffe, -1, -1
  TEST_RR 15, mulhu, 1, MIN, 2
  TEST_RR 16, mulhu, 0, -1, 1
  TEST_RR 17, mulhu, 0x121fa000a3723a57, 0x1234567890abcdef, 0xfedcba0987654321
  # mulhsu: rs1 signed, rs2 unsigned
  TEST_RR 18, mulhsu, -1, -1, -1
  TEST_RR 19, mulhsu, MIN, MIN, -1
  TEST_RR 20, mulhsu, 0, 1, -1
  TEST_RR 21, mulhsu, 1, 2, MIN
  TEST_RR 22, mulhsu, 0xffeb498812c66c68, 0xfedcba0987654321, 0x1234567890abcdef
  # mulw: low 32 bits of the product, sign-extended
  TEST_RR 23, mulw, -2, 0x7fffffff, 2
  TEST_RR 24, mulw, 15, 0x100000003, 0x100000005
  TEST_RR 25, mulw, 0, 0x10000, 0x10000
  TEST_RR 26, mulw, 1, -1, -1
  TEST_RR 27, mulw, 0xffffffff80000000, 0x40000000, 2
  # div / divu (round toward zero)
  TEST_RR 28, div, 3, 20, 6
  TEST_RR 29, div, -3, -20, 6
  TEST_RR 30, div, -3, 20, -6
  TEST_RR 31, div, 3, -20, -6
  TEST_RR 32, div, -1, 20, 0              # by zero: all ones
  TEST_RR 33, div, -1, MIN, 0
  TEST_RR 34, div, MIN, MIN, -1           # overflow: dividend
  TEST_RR 35, divu, 3, 20, 6
  TEST_RR 36, divu, 0x2aaaaaaaaaaaaaa7, -20, 6
  TEST_RR 37, divu, -1, 20, 0             # by zero: 2^64 - 1
  TEST_RR 38, divu, 0, MIN, -1
  TEST_RR 39, divu, -1, -1, 1
  # rem / remu (sign of the dividend)
  TEST_RR 40, rem, 2, 20, 6
  TEST_RR 41, rem, -2, -20, 6
  TEST_RR 42, rem, 2, 20, -6
  TEST_RR 43, rem, -2, -20, -6
  TEST_RR 44, rem, 20, 20, 0              # by zero: dividend
  TEST_RR 45, rem, -20, -20, 0
  TEST_RR 46, rem, 0, MIN, -1             # overflow: 0
  TEST_RR 47, remu, 2, 20, 6
  TEST_RR 48, remu, 2, -20, 6
  TEST_RR 49, remu, -20, -20, 0           # by zero: dividend
  TEST_RR 50, remu, MIN, MIN, -1
  # word forms: operands are the low 32 bits, results sign-extended
  TEST_RR 51, divw, 3, 0xffffffff00000014, 6
  TEST_RR 52, divw, -3, -20, 6
  TEST_RR 53, divw, -1, 20, 0
  TEST_RR 54, divw, -1, 20, 0x100000000  # low word of rs2 is 0
  TEST_RR 55, divw, 0xffffffff80000000, 0x80000000, -1
  TEST_RR 56, divuw, 0x2aaaaaa7, -20, 6
  TEST_RR 57, divuw, -1, 20, 0            # 0xffffffff sign-extended
  TEST_RR 58, divuw, 0x40000000, 0x80000000, 2
  TEST_RR 59, divuw, -1, 0xffffffff, 1
  TEST_RR 60, remw, -2, -20, 6
  TEST_RR 61, remw, 0, 0x80000000, -1
  TEST_RR 62, remw, 0xffffffff80000005, 0x180000005, 0
  TEST_RR 63, remw, 2, 0x1234567800000014, 0xffffffff00000006
  TEST_RR 64, remuw, 2, -20, 6
  TEST_RR 65, remuw, 0xffffffff80000005, 0x180000005, 0
  TEST_RR 66, remuw, 0xffffffff80000000, 0x80000000, -1  # 0x80000000 % 0xffffffff, sign-extended
  TEST_RR 67, remuw, 0xffffffff80000000, 0x80000000, 0xffffffff00000000
  # aliasing
  TEST_RR_REGS 68, mul, 49, 7, 7, a1, a1, a1
  TEST_RR_REGS 69, div, 1, 7, 7, a2, a2, a2
  TEST_RR_REGS 70, mulhu, 0, 5, 6, x0, a1, a2
TEST_END

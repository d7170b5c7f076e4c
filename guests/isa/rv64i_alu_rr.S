# RV64I register-register ALU ops (shifts are in rv64i_shift.S).
#include "isa_test.h"
TEST_BEGIN
  # add
  TEST_RR  2, add, 0, 0, 0
  TEST_RR  3, add, 2, 1, 1
  TEST_RR  4, add, 10, 3, 7
  TEST_RR  5, add, 0xffffffffffff8000, 0xffffffffffff8000, 0
  TEST_RR  6, add, 0x8000000000000000, 0x7fffffffffffffff, 1
  TEST_RR  7, add, 0x7fffffffffffffff, 0x8000000000000000, -1
  TEST_RR  8, add, 0, -1, 1
  TEST_RR  9, add, 0x80000000, 0x7fffffff, 1
  # sub
  TEST_RR 10, sub, 0, 0, 0
  TEST_RR 11, sub, -4, 3, 7
  TEST_RR 12, sub, 0x7fffffffffffffff, 0x8000000000000000, 1
  TEST_RR 13, sub, 0x8000000000000000, 0, 0x8000000000000000
  TEST_RR 14, sub, 0, -1, -1
  # slt (signed)
  TEST_RR 15, slt, 1, 0, 1
  TEST_RR 16, slt, 0, 1, 0
  TEST_RR 17, slt, 1, -1, 0
  TEST_RR 18, slt, 1, 0x8000000000000000, 0x7fffffffffffffff
  TEST_RR 19, slt, 0, 0x7fffffffffffffff, 0x8000000000000000
  TEST_RR 20, slt, 0, 5, 5
  # sltu (unsigned)
  TEST_RR 21, sltu, 0, -1, 0
  TEST_RR 22, sltu, 1, 0, -1
  TEST_RR 23, sltu, 0, 0x8000000000000000, 0x7fffffffffffffff
  TEST_RR 24, sltu, 0, 5, 5
  TEST_RR 25, sltu, 1, 0, 1
  # logic
  TEST_RR 26, xor, 0xf0f0f0f0f0f0f0f0, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0
  TEST_RR 27, or,  0xfff0fff0fff0fff0, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0
  TEST_RR 28, and, 0x0f000f000f000f00, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0
  TEST_RR 29, xor, 0xaaaaaaaaaaaaaaaa, -1, 0x5555555555555555
  # addw / subw: 32-bit result, sign-extended; upper source bits ignored
  TEST_RR 30, addw, 0xffffffff80000000, 0x7fffffff, 1
  TEST_RR 31, addw, 0, 0xffffffff, 1
  TEST_RR 32, addw, 0xffffffff9abcdef0, 0x123456789abcdef0, 0
  TEST_RR 33, addw, 2, 0x100000001, 0x100000001
  TEST_RR 34, addw, -2, -1, -1
  TEST_RR 35, subw, 0x7fffffff, 0x80000000, 1
  TEST_RR 36, subw, -1, 0, 1
  TEST_RR 37, subw, 0, 0x100000000, 0
  TEST_RR 38, subw, 0xffffffff80000000, 0x7fffffff, -1
  # register aliasing and x0
  TEST_RR_REGS 39, add, 5, 2, 3, a1, a1, a2        # rd = rs1
  TEST_RR_REGS 40, sub, -1, 2, 3, a2, a1, a2       # rd = rs2
  TEST_RR_REGS 41, add, 6, 3, 3, a1, a1, a1        # rd = rs1 = rs2
  TEST_RR_REGS 42, add, 0, 1, 2, x0, a1, a2        # writes to x0 are discarded
  TEST_RR_REGS 43, sub, -7, 0, 7, a0, x0, a2       # rs1 = x0
  TEST_RR_REGS 44, or, 5, 5, 0, a0, a1, x0         # rs2 = x0
  TEST_RR_REGS 45, add, 3, 5, 3, a0, x0, a2        # `li x0, 5` leaves x0 = 0
  TEST_RR_REGS 46, sltu, 1, 0, 9, a0, x0, a2       # snez
TEST_END

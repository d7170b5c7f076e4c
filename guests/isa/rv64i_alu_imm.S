# RV64I register-immediate ALU ops (shifts are in rv64i_shift.S).
#include "isa_test.h"
TEST_BEGIN
  # addi
  TEST_RI  2, addi, 0, 0, 0
  TEST_RI  3, addi, 2, 1, 1
  TEST_RI  4, addi, 10, 3, 7
  TEST_RI  5, addi, 0xfffffffffffff800, 0, -2048
  TEST_RI  6, addi, 0x7ff, 0, 2047
  TEST_RI  7, addi, 0x8000000000000000, 0x7fffffffffffffff, 1
  TEST_RI  8, addi, 0, -1, 1
  TEST_RI  9, addi, 0x80000000, 0x7fffffff, 1
  # slti / sltiu (the immediate is sign-extended, then compared)
  TEST_RI 10, slti, 1, 0, 1
  TEST_RI 11, slti, 1, -1, 0
  TEST_RI 12, slti, 0, 0, -1
  TEST_RI 13, slti, 1, 0x8000000000000000, -2048
  TEST_RI 14, slti, 0, 0x7ff, 2047
  TEST_RI 15, sltiu, 1, 0, 1
  TEST_RI 16, sltiu, 0, 5, 1
  TEST_RI 17, sltiu, 1, 5, -1
  TEST_RI 18, sltiu, 0, -1, -1
  TEST_RI 19, sltiu, 1, 0x7fffffffffffffff, -2048
  # xori / ori / andi
  TEST_RI 20, xori, 0x00ff00ff00ff000f, 0x00ff00ff00ff00ff, 0x0f0
  TEST_RI 21, xori, 0xedcba98765432100, 0x123456789abcdeff, -1
  TEST_RI 22, ori, 0xffffffffffffff0f, 0xff00ff00ff00ff00, -241
  TEST_RI 23, ori, 0x00ff00ff00ff07ff, 0x00ff00ff00ff00ff, 0x70f
  TEST_RI 24, andi, 0xff00ff00ff00ff00, 0xff00ff00ff00ff00, -241
  TEST_RI 25, andi, 0x700, 0xff00ff00ff00ff00, 0x70f
  # addiw
  TEST_RI 26, addiw, 0xffffffff80000000, 0x7fffffff, 1
  TEST_RI 27, addiw, 0, 0xffffffff, 1
  TEST_RI 28, addiw, 0xffffffff9abcdef0, 0x123456789abcdef0, 0
  TEST_RI 29, addiw, 0x7fffffff, 0x80000000, -1
  TEST_RI 30, addiw, -2048, 0, -2048
  # register aliasing and x0
  TEST_RI 31, addi, 12, 5, 7, a1, a1           # rd = rs1
  TEST_RI 32, addi, 0, 5, 7, x0, a1            # rd = x0
  TEST_RI 33, addi, 2047, 9, 2047, a0, x0      # rs1 = x0
  TEST_RI 34, addiw, -5, 0xffffffff00000000, -5, a2, a2
TEST_END

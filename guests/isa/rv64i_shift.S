# RV64I shifts, register and immediate, 64-bit and word forms; amounts 0/31/32/63
# and amounts with ignored upper bits.
#include "isa_test.h"
TEST_BEGIN
  # sll: amount = rs2[5:0]
  TEST_RR  2, sll, 1, 1, 0
  TEST_RR  3, sll, 0x80000000, 1, 31
  TEST_RR  4, sll, 0x100000000, 1, 32
  TEST_RR  5, sll, 0x8000000000000000, 1, 63
  TEST_RR  6, sll, 1, 1, 64
  TEST_RR  7, sll, 0x8000000000000000, -1, 63
  TEST_RR  8, sll, 0x42424242, 0x21212121, 0xffffffffffffffc1
  # srl
  TEST_RR  9, srl, 0x8000000000000000, 0x8000000000000000, 0
  TEST_RR 10, srl, 0x100000000, 0x8000000000000000, 31
  TEST_RR 11, srl, 0x80000000, 0x8000000000000000, 32
  TEST_RR 12, srl, 1, 0x8000000000000000, 63
  TEST_RR 13, srl, 0x7fffffffffffffff, -1, 65
  # sra
  TEST_RR 14, sra, 0x8000000000000000, 0x8000000000000000, 0
  TEST_RR 15, sra, 0xffffffff00000000, 0x8000000000000000, 31
  TEST_RR 16, sra, 0xffffffff80000000, 0x8000000000000000, 32
  TEST_RR 17, sra, -1, 0x8000000000000000, 63
  TEST_RR 18, sra, 0, 0x7fffffffffffffff, 63
  TEST_RR 19, sra, 1, 0x7fffffffffffffff, 62
  # slli / srli / srai
  TEST_RI 20, slli, 0x8000000000000001, 0x8000000000000001, 0
  TEST_RI 21, slli, 0x80000000, 1, 31
  TEST_RI 22, slli, 0x100000000, 1, 32
  TEST_RI 23, slli, 0x8000000000000000, 1, 63
  TEST_RI 24, srli, 0x8000000000000001, 0x8000000000000001, 0
  TEST_RI 25, srli, 0x100000000, 0x8000000000000000, 31
  TEST_RI 26, srli, 0x80000000, 0x8000000000000000, 32
  TEST_RI 27, srli, 1, 0x8000000000000000, 63
  TEST_RI 28, srai, 0x8000000000000001, 0x8000000000000001, 0
  TEST_RI 29, srai, 0xffffffff00000000, 0x8000000000000000, 31
  TEST_RI 30, srai, 0xffffffff80000000, 0x8000000000000000, 32
  TEST_RI 31, srai, -1, 0x8000000000000000, 63
  # sllw / srlw / sraw: amount = rs2[4:0], 32-bit result sign-extended
  TEST_RR 32, sllw, 1, 1, 0
  TEST_RR 33, sllw, 0xffffffff80000000, 1, 31
  TEST_RR 34, sllw, 1, 1, 32
  TEST_RR 35, sllw, 2, 0xffffffff00000001, 1
  TEST_RR 36, sllw, 0x23456780, 0x12345678, 4
  TEST_RR 37, srlw, 0xffffffff80000000, 0xffffffff80000000, 0
  TEST_RR 38, srlw, 1, 0xffffffff80000000, 31
  TEST_RR 39, srlw, 0x40000000, 0x80000000, 1
  TEST_RR 40, srlw, 0xffffffff80000000, 0x80000000, 32
  TEST_RR 41, srlw, 0, 0x123456780000000f, 63
  TEST_RR 42, sraw, 0xffffffff80000000, 0x80000000, 0
  TEST_RR 43, sraw, -1, 0x80000000, 31
  TEST_RR 44, sraw, 0xffffffffc0000000, 0x80000000, 1
  TEST_RR 45, sraw, 0, 0x7fffffff, 31
  TEST_RR 46, sraw, 0xffffffff80000000, 0x80000000, 32
  TEST_RR 47, sraw, 0x07ffffff, 0xffffffff7fffffff, 4
  # slliw / srliw / sraiw (amounts 0..31)
  TEST_RI 48, slliw, 0xffffffff80000001, 0x80000001, 0
  TEST_RI 49, slliw, 0xffffffff80000000, 1, 31
  TEST_RI 50, slliw, 0xffffffffc0000000, 0xffffffff00000003, 30
  TEST_RI 51, srliw, 0xffffffff80000000, 0xffffffff80000000, 0
  TEST_RI 52, srliw, 1, 0x80000000, 31
  TEST_RI 53, srliw, 0x7fffffff, -1, 1
  TEST_RI 54, sraiw, 0xffffffff80000000, 0x80000000, 0
  TEST_RI 55, sraiw, -1, 0x80000000, 31
  TEST_RI 56, sraiw, 1, 0x123456787fffffff, 30
  # aliasing
  TEST_RR_REGS 57, sll, 0x300, 3, 8, a1, a1, a2
  TEST_RR_REGS 58, srl, 0, 8, 8, a1, a1, a1     # 8 >> 8
  TEST_RI 59, srai, -2, -8, 2, a1, a1
TEST_END

# RV64I LUI and AUIPC: 20-bit immediates shifted by 12, sign-extended to 64 bits.
# AUIPC is checked against the link value of a JAL (pc of the next instruction).
#include "isa_test.h"

/* a0 = auipc(imm) - pc of that auipc */
.macro AUIPC_DELTA n, imm, delta
  CASE \n
  jal a1, .Lhere\@
.Lhere\@:
  auipc a0, \imm
  sub a0, a0, a1
  CHECK a0, \delta
.endm

TEST_BEGIN
  CASE 2
  lui a0, 0
  CHECK a0, 0
  CASE 3
  lui a0, 0xfffff
  CHECK a0, 0xfffffffffffff000
  CASE 4
  lui a0, 0x7ffff
  CHECK a0, 0x7ffff000
  CASE 5
  lui a0, 0x80000
  CHECK a0, 0xffffffff80000000
  CASE 6
  lui a0, 0x12345
  addi a0, a0, 0x678
  CHECK a0, 0x12345678
  CASE 7
  li a0, 7
  lui x0, 0x12345          # rd = x0: no effect
  CHECK x0, 0

  AUIPC_DELTA  8, 0, 0
  AUIPC_DELTA  9, 1, 0x1000
  AUIPC_DELTA 10, 0x80000, -0x80000000
  AUIPC_DELTA 11, 0xfffff, -0x1000
  AUIPC_DELTA 12, 0x7ffff, 0x7ffff000
TEST_END

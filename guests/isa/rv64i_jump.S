# RV64I JAL and JALR: link values, offsets (negative too), jalr clearing bit 0
# of the target, rd = rs1, rd = x0.
#include "isa_test.h"
TEST_BEGIN
  # jal: link = address of the next instruction
  CASE 2
  la a2, 1f
2:
  jal ra, 3f
1:
  j fail
3:
  CHECK_REG ra, a2
  la a3, 2b
  sub a3, ra, a3
  CHECK a3, 4

  # jal backward, rd = x0 (j)
  CASE 3
  li a0, 0
  j 5f
4:
  addi a0, a0, 1
  j 6f
5:
  j 4b
6:
  CHECK a0, 1

  # jal with another link register
  CASE 4
  la a2, 1f
  jal t3, 2f
1:
  j fail
2:
  CHECK_REG t3, a2

  # jalr: target = rs1 + imm, link = next pc
  CASE 5
  la t0, 2f
  la a2, 1f
  jalr ra, 0(t0)
1:
  j fail
2:
  CHECK_REG ra, a2

  CASE 6                       # positive offset
  la t0, 2f - 8
  jalr ra, 8(t0)
  j fail
2:

  CASE 7                       # negative offset
  la t0, 2f + 16
  jalr ra, -16(t0)
  j fail
2:

  CASE 8                       # odd target: bit 0 is cleared
  la t0, 2f
  addi t0, t0, 1
  jalr ra, 0(t0)
  j fail
2:

  CASE 9                       # odd through the immediate
  la t0, 2f
  jalr ra, 1(t0)
  j fail
2:

  CASE 10                      # rd = rs1: target read before the link is written
  la a0, 2f
  la a2, 1f
  jalr a0, 0(a0)
1:
  j fail
2:
  CHECK_REG a0, a2

  CASE 11                      # rd = x0 (jr), x0 stays 0
  la t0, 2f
  jalr x0, 0(t0)
  j fail
2:
  CHECK x0, 0

  CASE 12                      # call and return through ra
  li a0, 5
  jal ra, double_a0
  CHECK a0, 10
  j 3f
double_a0:
  add a0, a0, a0
  ret
3:
TEST_END

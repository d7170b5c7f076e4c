# Zifencei: store a new instruction over code that already ran, execute
# fence.i, run it again: the new instruction must execute.
#include "isa_test.h"
.equ LI_A0_1, 0x00100513   /* addi a0, x0, 1 */
.equ LI_A0_2, 0x00200513   /* addi a0, x0, 2 */
.equ LI_A0_3, 0x00300513   /* addi a0, x0, 3 */

TEST_BEGIN
  # `slot` and cases 5-6 live in section .smc: writable code (an RWX segment).
  CASE 2                        # the slot runs as assembled
  la a1, slot
  li a0, 0
  jalr ra, 0(a1)
  CHECK a0, 1
  CASE 3                        # run it often (so any cache holds it), then patch it
  li s1, 50
1:
  jalr ra, 0(a1)
  addi s1, s1, -1
  bnez s1, 1b
  li t0, LI_A0_2
  sw t0, 0(a1)
  fence.i
  jalr ra, 0(a1)
  CHECK a0, 2
  CASE 4                        # patch back to the first instruction
  li t0, LI_A0_1
  sw t0, 0(a1)
  fence.i
  jalr ra, 0(a1)
  CHECK a0, 1
  j smc_cases
  .pushsection .smc, "awx", @progbits   # code that patches itself must be writable
smc_cases:
  CASE 5                        # patch an instruction ahead in the running code
  la a1, 2f
  li t0, LI_A0_3
  sw t0, 0(a1)
  fence.i
2:
  addi a0, x0, 1                # replaced by addi a0, x0, 3
  CHECK a0, 3
  CASE 6                        # loop whose body is patched between iterations
  la a1, 4f
  li s1, 0                      # sum of the values the body produced
  li s2, 3                      # iterations
3:
4:
  addi a0, x0, 1                # iteration 1: 1, later: 2
  add s1, s1, a0
  li t0, LI_A0_2
  sw t0, 0(a1)
  fence.i
  addi s2, s2, -1
  bnez s2, 3b
  CHECK s1, 5
  j smc_done
  .balign 4
slot:
  addi a0, x0, 1
  ret
  .popsection
smc_done:
TEST_END

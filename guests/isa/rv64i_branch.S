# RV64I conditional branches: taken and not taken, signed and unsigned
# boundaries, forward and backward targets, x0 operands.
#include "isa_test.h"

.macro BR_TAKEN n, op, a, b
  CASE \n
  li a1, \a
  li a2, \b
  \op a1, a2, .Ltaken\@
  j fail
.Ltaken\@:
.endm

.macro BR_NOT_TAKEN n, op, a, b
  CASE \n
  li a1, \a
  li a2, \b
  \op a1, a2, .Ltaken\@
  j .Lnext\@
.Ltaken\@:
  j fail
.Lnext\@:
.endm

TEST_BEGIN
  BR_TAKEN      2, beq, 0, 0
  BR_TAKEN      3, beq, -1, -1
  BR_NOT_TAKEN  4, beq, 0, 1
  BR_NOT_TAKEN  5, beq, 0x100000000, 0          # upper bits take part
  BR_NOT_TAKEN  6, beq, 0x8000000000000000, 0
  BR_TAKEN      7, bne, 0, 1
  BR_TAKEN      8, bne, 0x100000000, 0
  BR_NOT_TAKEN  9, bne, 5, 5
  BR_NOT_TAKEN 10, bne, -1, -1

  BR_TAKEN     11, blt, 0, 1
  BR_TAKEN     12, blt, -1, 1
  BR_TAKEN     13, blt, 0x8000000000000000, 0x7fffffffffffffff
  BR_TAKEN     14, blt, -2, -1
  BR_NOT_TAKEN 15, blt, 1, 0
  BR_NOT_TAKEN 16, blt, 1, -1
  BR_NOT_TAKEN 17, blt, 0x7fffffffffffffff, 0x8000000000000000
  BR_NOT_TAKEN 18, blt, 5, 5

  BR_TAKEN     19, bge, 0, 0
  BR_TAKEN     20, bge, 1, 0
  BR_TAKEN     21, bge, 1, -1
  BR_TAKEN     22, bge, 0x7fffffffffffffff, 0x8000000000000000
  BR_NOT_TAKEN 23, bge, 0, 1
  BR_NOT_TAKEN 24, bge, -1, 0
  BR_NOT_TAKEN 25, bge, 0x8000000000000000, 0x7fffffffffffffff

  BR_TAKEN     26, bltu, 0, 1
  BR_TAKEN     27, bltu, 1, -1
  BR_TAKEN     28, bltu, 0x7fffffffffffffff, 0x8000000000000000
  BR_NOT_TAKEN 29, bltu, -1, 1
  BR_NOT_TAKEN 30, bltu, 0x8000000000000000, 0x7fffffffffffffff
  BR_NOT_TAKEN 31, bltu, 5, 5

  BR_TAKEN     32, bgeu, 5, 5
  BR_TAKEN     33, bgeu, -1, 1
  BR_TAKEN     34, bgeu, 0x8000000000000000, 0x7fffffffffffffff
  BR_TAKEN     35, bgeu, -1, 0
  BR_NOT_TAKEN 36, bgeu, 1, -1
  BR_NOT_TAKEN 37, bgeu, 0, 1
  BR_NOT_TAKEN 38, bgeu, 0x7fffffffffffffff, 0x8000000000000000

  # backward taken branches: a counted loop
  CASE 39
  li a1, 10
  li a0, 0
1:
  add a0, a0, a1
  addi a1, a1, -1
  bnez a1, 1b
  CHECK a0, 55

  # x0 operands
  CASE 40
  li a1, -3
  bltz a1, 1f                  # blt a1, x0
  j fail
1:
  bgtz a1, fail2               # blt x0, a1: not taken
  bgeu x0, a1, fail2           # 0 >= 2^64-3 unsigned: not taken
  bgeu a1, x0, 2f              # anything >= 0 unsigned: taken
  j fail
2:
  # a branch that falls through to its own target
  CASE 41
  li a0, 0
  beqz a0, 3f
3:
  addi a0, a0, 1
  CHECK a0, 1
  j 4f
fail2:
  j fail
4:
TEST_END

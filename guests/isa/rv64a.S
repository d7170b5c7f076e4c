# RV64A: LR/SC (success, failure without / after losing the reservation) and
# every AMO in .w and .d, including sign extension of .w results.
#include "isa_test.h"

/* Memory at adat = init (64 bits); op rd, val, (adat) must return old and
 * leave the dword mem. A .w op sees only the low word and returns it
 * sign-extended; the upper word must stay as it was. */
.macro TEST_AMO n, op, init, val, old, mem
  CASE \n
  la a1, adat
  li t0, \init
  sd t0, 0(a1)
  li a2, \val
  \op a0, a2, (a1)
  CHECK a0, \old
  ld a3, 0(a1)
  CHECK a3, \mem
.endm

.equ UP, 0xdeadbeef00000000   /* upper word beside the .w operands */

TEST_BEGIN
  # ---- LR/SC --------------------------------------------------------------
  CASE 2                        # lr.d/sc.d succeed: rd = 0, memory written
  la a1, adat
  li t0, 0x1111111111111111
  sd t0, 0(a1)
  lr.d a0, (a1)
  CHECK a0, 0x1111111111111111
  li a2, 0x2222222222222222
  sc.d a3, a2, (a1)
  CHECK a3, 0
  ld a0, 0(a1)
  CHECK a0, 0x2222222222222222

  CASE 3                        # lr.w sign-extends; sc.w writes 32 bits only
  la a1, adat
  li t0, UP | 0x87654321
  sd t0, 0(a1)
  lr.w a0, (a1)
  CHECK a0, 0xffffffff87654321
  li a2, 0xffffffff00000005
  sc.w a3, a2, (a1)
  CHECK a3, 0
  ld a0, 0(a1)
  CHECK a0, UP | 5

  CASE 4                        # a second sc after a successful one fails
  la a1, adat
  li a2, 0x33
  sc.d a3, a2, (a1)
  beqz a3, fail
  ld a0, 0(a1)
  CHECK a0, UP | 5

  CASE 5                        # an sc to another address between lr and sc
  la a1, adat                   # makes the second sc fail (spec: "must fail")
  la a4, adat2
  lr.d a0, (a1)
  sc.d a3, a2, (a4)             # wrong address: fails, no write
  beqz a3, fail
  ld a0, 0(a4)
  CHECK a0, 0
  li a2, 0x44
  sc.d a3, a2, (a1)             # an SC happened in between: fails
  beqz a3, fail
  ld a0, 0(a1)
  CHECK a0, UP | 5

  CASE 6                        # lr/sc loop: atomic increment
  la a1, adat
  sd zero, 0(a1)
  li a5, 10
1:
  lr.w a0, (a1)
  addi a0, a0, 3
  sc.w a3, a0, (a1)
  bnez a3, 1b
  addi a5, a5, -1
  bnez a5, 1b
  ld a0, 0(a1)
  CHECK a0, 30

  CASE 7                        # intervening store by this hart: the spec lets
  la a1, adat                   # the sc fail or succeed, but the outcome must be
  li t0, 7                      # consistent with memory
  sd t0, 0(a1)
  lr.d a0, (a1)
  li t0, 8
  sd t0, 0(a1)
  li a2, 9
  sc.d a3, a2, (a1)
  ld a0, 0(a1)
  bnez a3, 2f
  CHECK a0, 9                   # succeeded: sc's value
  j 3f
2:
  CHECK a0, 8                   # failed: the store's value
3:

  # ---- AMO .d ---------------------------------------------------------------
  TEST_AMO  8, amoswap.d, 0x0123456789abcdef, -1, 0x0123456789abcdef, -1
  TEST_AMO  9, amoadd.d, 0x7fffffffffffffff, 1, 0x7fffffffffffffff, 0x8000000000000000
  TEST_AMO 10, amoxor.d, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0, 0xff00ff00ff00ff00, 0xf0f0f0f0f0f0f0f0
  TEST_AMO 11, amoand.d, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0, 0xff00ff00ff00ff00, 0x0f000f000f000f00
  TEST_AMO 12, amoor.d, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0, 0xff00ff00ff00ff00, 0xfff0fff0fff0fff0
  TEST_AMO 13, amomin.d, 0x8000000000000000, 1, 0x8000000000000000, 0x8000000000000000
  TEST_AMO 14, amomin.d, 1, -1, 1, -1
  TEST_AMO 15, amomax.d, 0x8000000000000000, 1, 0x8000000000000000, 1
  TEST_AMO 16, amomax.d, -1, -2, -1, -1
  TEST_AMO 17, amominu.d, 0x8000000000000000, 1, 0x8000000000000000, 1
  TEST_AMO 18, amominu.d, 5, -1, 5, 5
  TEST_AMO 19, amomaxu.d, 0x8000000000000000, 1, 0x8000000000000000, 0x8000000000000000
  TEST_AMO 20, amomaxu.d, 5, -1, 5, -1

  # ---- AMO .w: low word only, old value sign-extended, upper word kept --------
  TEST_AMO 21, amoswap.w, UP | 0x80000000, 0x1234567800000001, 0xffffffff80000000, UP | 1
  TEST_AMO 22, amoadd.w, UP | 0x7fffffff, 1, 0x7fffffff, UP | 0x80000000
  TEST_AMO 23, amoadd.w, UP | 0xffffffff, 1, -1, UP           # carry does not leave the word
  TEST_AMO 24, amoxor.w, UP | 0xff00ff00, 0x0ff00ff0, 0xffffffffff00ff00, UP | 0xf0f0f0f0
  TEST_AMO 25, amoand.w, UP | 0xff00ff00, 0x0ff00ff0, 0xffffffffff00ff00, UP | 0x0f000f00
  TEST_AMO 26, amoor.w, UP | 0xff00ff00, 0x0ff00ff0, 0xffffffffff00ff00, UP | 0xfff0fff0
  TEST_AMO 27, amomin.w, UP | 0x80000000, 0xffffffff00000001, 0xffffffff80000000, UP | 0x80000000
  TEST_AMO 28, amomin.w, UP | 1, 0x00000000ffffffff, 1, UP | 0xffffffff   # rs2 low word is -1
  TEST_AMO 29, amomax.w, UP | 0x80000000, 0xffffffff00000001, 0xffffffff80000000, UP | 1
  TEST_AMO 30, amomax.w, UP | 0xfffffffe, -1, -2, UP | 0xffffffff
  TEST_AMO 31, amominu.w, UP | 0x80000000, 0xffffffff00000001, 0xffffffff80000000, UP | 1
  TEST_AMO 32, amominu.w, UP | 5, -1, 5, UP | 5
  TEST_AMO 33, amomaxu.w, UP | 0x80000000, 0xffffffff00000001, 0xffffffff80000000, UP | 0x80000000
  TEST_AMO 34, amomaxu.w, UP | 5, 0x00000000ffffffff, 5, UP | 0xffffffff
  TEST_AMO 35, amoadd.w.aqrl, UP | 0x10, 0x20, 0x10, UP | 0x30
  TEST_AMO 36, amoswap.d.aq, 1, 2, 1, 2

  CASE 37                       # rd = x0 still performs the update
  la a1, adat
  li t0, 40
  sd t0, 0(a1)
  li a2, 2
  amoadd.d x0, a2, (a1)
  ld a0, 0(a1)
  CHECK a0, 42
  CASE 38                       # rd = rs2: the old value replaces the operand
  li a2, 7
  amoswap.d a2, a2, (a1)
  CHECK a2, 42
  ld a0, 0(a1)
  CHECK a0, 7
TEST_END

  .data
  .balign 8
adat: .dword 0
  .balign 4096
adat2: .dword 0

# C extension: every instruction format (CR, CI, CSS, CIW, CL, CS, CA, CB, CJ)
# written with explicit c.* mnemonics, plus 4-byte instructions and jump
# targets at addresses that are 2 mod 4. Assembled with -march=rv64gc.
#include "isa_test.h"
.option rvc

TEST_BEGIN
  la sp, stack_area               # sp-relative accesses use sp + 0..511
  # ---- CI: c.li, c.lui, c.addi, c.addiw, c.addi16sp, c.slli, c.nop ----
  CASE 2
  c.li a0, -32
  CHECK a0, -32
  c.li a0, 31
  CHECK a0, 31
  CASE 3
  c.lui a0, 0xfffff               # nzimm[17:12] = -1
  CHECK a0, 0xfffffffffffff000
  c.lui a0, 0x1f
  CHECK a0, 0x1f000
  c.lui a0, 0xfffe0               # most negative: -32 << 12
  CHECK a0, 0xfffffffffffe0000
  CASE 4
  li a0, 10
  c.addi a0, -11
  CHECK a0, -1
  c.addi a0, 31
  CHECK a0, 30
  c.nop
  CASE 5
  li a0, 0x7fffffff
  c.addiw a0, 1                   # 32-bit add, sign-extended
  CHECK a0, 0xffffffff80000000
  li a0, 0x123456789abcdef0
  c.addiw a0, 0                   # sext.w
  CHECK a0, 0xffffffff9abcdef0
  CASE 6
  mv s1, sp
  c.addi16sp sp, -64
  sub a0, s1, sp
  CHECK a0, 64
  c.addi16sp sp, 496
  sub a0, sp, s1
  CHECK a0, 432
  mv sp, s1
  CASE 7
  li a0, 1
  c.slli a0, 63
  CHECK a0, 0x8000000000000000
  li a0, 3
  c.slli a0, 32
  CHECK a0, 0x300000000
  # ---- CIW: c.addi4spn ----
  CASE 8
  c.addi4spn a0, sp, 1020
  sub a0, a0, sp
  CHECK a0, 1020
  c.addi4spn a1, sp, 4
  sub a1, a1, sp
  CHECK a1, 4
  # ---- CSS / CI loads: c.sdsp, c.swsp, c.fsdsp, c.ldsp, c.lwsp, c.fldsp ----
  CASE 9
  li a0, 0x0123456789abcdef
  c.sdsp a0, 8(sp)
  c.ldsp a1, 8(sp)
  CHECK a1, 0x0123456789abcdef
  li a0, 0x80000001
  c.swsp a0, 4(sp)
  c.lwsp a1, 4(sp)                # sign-extends
  CHECK a1, 0xffffffff80000001
  c.lwsp a1, 8(sp)
  CHECK a1, 0xffffffff89abcdef
  CASE 10
  li a0, 0x400921fb54442d18       # pi
  fmv.d.x fa5, a0
  c.fsdsp fa5, 504(sp)
  c.fldsp fa4, 504(sp)
  fmv.x.d a1, fa4
  CHECK a1, 0x400921fb54442d18
  c.ldsp a1, 504(sp)
  CHECK a1, 0x400921fb54442d18
  # ---- CL / CS: c.lw, c.ld, c.fld, c.sw, c.sd, c.fsd (x8-x15 registers) ----
  CASE 11
  la s0, cdat
  li a0, 0xfedcba9876543210
  c.sd a0, 8(s0)
  c.ld a1, 8(s0)
  CHECK a1, 0xfedcba9876543210
  c.lw a2, 12(s0)
  CHECK a2, 0xfffffffffedcba98
  li a3, 0x7fffffff
  c.sw a3, 124(s0)
  c.lw a4, 124(s0)
  CHECK a4, 0x7fffffff
  CASE 12
  li a0, 0xc000000000000000       # -2.0
  fmv.d.x fa0, a0
  c.fsd fa0, 248(s0)
  c.fld fa1, 248(s0)
  fmv.x.d a1, fa1
  CHECK a1, 0xc000000000000000
  # ---- CA: c.sub, c.xor, c.or, c.and, c.subw, c.addw ----
  CASE 13
  li a0, 5
  li a1, 7
  c.sub a0, a1
  CHECK a0, -2
  li a0, 0xff00ff00ff00ff00
  li a1, 0x0ff00ff00ff00ff0
  mv a2, a0
  c.xor a2, a1
  CHECK a2, 0xf0f0f0f0f0f0f0f0
  mv a2, a0
  c.or a2, a1
  CHECK a2, 0xfff0fff0fff0fff0
  mv a2, a0
  c.and a2, a1
  CHECK a2, 0x0f000f000f000f00
  CASE 14
  li a0, 0x80000000
  li a1, 1
  c.subw a0, a1
  CHECK a0, 0x7fffffff
  li a0, 0x7fffffff
  c.addw a0, a1
  CHECK a0, 0xffffffff80000000
  # ---- CB: c.srli, c.srai, c.andi, c.beqz, c.bnez ----
  CASE 15
  li a0, 0x8000000000000000
  c.srli a0, 63
  CHECK a0, 1
  li a0, 0x8000000000000000
  c.srai a0, 32
  CHECK a0, 0xffffffff80000000
  li a0, 0x8000000000000000
  c.srli a0, 1
  CHECK a0, 0x4000000000000000
  li a0, 0xffff
  c.andi a0, -16
  CHECK a0, 0xfff0
  c.andi a0, 5
  CHECK a0, 0
  CASE 16
  li a0, 0
  c.beqz a0, 1f
  j fail
1:
  c.bnez a0, fail16
  li a0, -1
  c.bnez a0, 2f
  j fail
2:
  c.beqz a0, fail16
  # ---- CR: c.mv, c.add, c.jr, c.jalr ----
  CASE 17
  li a1, 0x1234
  c.mv a0, a1
  CHECK a0, 0x1234
  c.add a0, a1
  CHECK a0, 0x2468
  CASE 18
  la a1, 3f
  c.jr a1
  j fail
3:
  CASE 19                         # c.jalr links pc + 2
  la a1, 5f
  la a2, 4f
  c.jalr a1
4:
  j fail
5:
  CHECK_REG ra, a2
  # ---- CJ: c.j forward and backward ----
  CASE 20
  li a0, 0
  c.j 7f
6:
  addi a0, a0, 1
  c.j 8f
7:
  c.j 6b
8:
  CHECK a0, 1
  # ---- mixed lengths: 4-byte instructions and targets at 2 mod 4 ----
  CASE 21
  .balign 4
  c.nop                           # the next instruction starts at 2 mod 4
  addi a0, x0, 77                 # 4 bytes, straddling a 4-byte boundary
  c.addi a0, 1
  la a1, 9f
  andi a2, a1, 3
  CHECK a2, 2                     # the target below is at 2 mod 4
  jalr ra, 0(a1)
  j fail
  .balign 4
  c.nop
9:
  CHECK a0, 78
  CASE 22                         # a taken 4-byte branch to a 2 mod 4 target
  li a0, 1
  beq a0, a0, 10f
  j fail
  .balign 4
  c.nop
10:
  lui a3, 0x12345                 # a 4-byte instruction at 2 mod 4
  c.addi a3, 6
  CHECK a3, 0x12345006
  j 11f
fail16:
  j fail
11:
TEST_END

  .data
  .balign 16
cdat:
  .fill 32, 8, 0
  .balign 16
stack_area:
  .fill 64, 8, 0

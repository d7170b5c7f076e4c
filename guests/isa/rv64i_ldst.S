# RV64I loads and stores of every width: sign/zero extension, positive and
# negative offsets (incl. -2048/+2047), partial stores leaving neighbours intact.
#include "isa_test.h"

/* a0 = op off(base + bias) where base = ldat; checks a0 == res */
.macro TEST_LD n, op, res, off, bias=0
  CASE \n
  la a1, ldat + \bias
  \op a0, \off(a1)
  CHECK a0, \res
.endm

/* Fill sdat with a pattern, store val with op at off, read back the dword. */
.macro TEST_ST n, op, val, off, res, bias=0
  CASE \n
  la a1, sdat
  li t0, 0xaaaaaaaaaaaaaaaa
  sd t0, 0(a1)
  sd t0, 8(a1)
  la a1, sdat + \bias
  li a2, \val
  \op a2, \off(a1)
  la a1, sdat
  ld a0, 0(a1)
  CHECK a0, \res
  ld a0, 8(a1)
  CHECK a0, 0xaaaaaaaaaaaaaaaa
.endm

TEST_BEGIN
  # ldat = 80 7f ff 00 | 00 80 ff 7f | 00 00 00 80 | ff ff ff 7f | 0123456789abcdef
  TEST_LD  2, lb, 0xffffffffffffff80, 0
  TEST_LD  3, lb, 0x7f, 1
  TEST_LD  4, lb, -1, 2
  TEST_LD  5, lb, 0, 3
  TEST_LD  6, lbu, 0x80, 0
  TEST_LD  7, lbu, 0xff, 2
  TEST_LD  8, lh, 0x7f80, 0
  TEST_LD  9, lh, 0xffffffffffff8000, 4
  TEST_LD 10, lh, 0x7fff, 6
  TEST_LD 11, lhu, 0x8000, 4
  TEST_LD 12, lhu, 0x00ff, 2
  TEST_LD 13, lw, 0x00ff7f80, 0
  TEST_LD 14, lw, 0xffffffff80000000, 8
  TEST_LD 15, lw, 0x7fffffff, 12
  TEST_LD 16, lwu, 0x80000000, 8
  TEST_LD 17, lwu, 0x7fff8000, 4
  TEST_LD 18, ld, 0x7fff800000ff7f80, 0
  TEST_LD 19, ld, 0x7fffffff80000000, 8
  TEST_LD 20, ld, 0x0123456789abcdef, 16
  # negative and extreme offsets
  TEST_LD 21, lb, 0xffffffffffffff80, -16, 16
  TEST_LD 22, lhu, 0x8000, -12, 16
  TEST_LD 23, lw, 0xffffffff80000000, -8, 16
  TEST_LD 24, ld, 0x0123456789abcdef, -2048, 2064
  TEST_LD 25, ld, 0x0123456789abcdef, 2047, -2031
  TEST_LD 26, lwu, 0x89abcdef, 16          # little-endian low word
  TEST_LD 27, lbu, 0x01, 23                # high byte
  # rd = base register
  CASE 28
  la a1, ldat + 16
  ld a1, 0(a1)
  CHECK a1, 0x0123456789abcdef
  # load into x0 is discarded
  CASE 29
  la a1, ldat
  lw x0, 0(a1)
  CHECK x0, 0

  # stores write only their bytes; the upper bits of the source are ignored
  TEST_ST 30, sb, 0x1234567890abcdef, 0, 0xaaaaaaaaaaaaaaef
  TEST_ST 31, sb, 0x12, 7, 0x12aaaaaaaaaaaaaa
  TEST_ST 32, sh, 0x1234567890abcdef, 2, 0xaaaaaaaacdefaaaa
  TEST_ST 33, sh, 0xffff, 6, 0xffffaaaaaaaaaaaa
  TEST_ST 34, sw, 0x1234567890abcdef, 0, 0xaaaaaaaa90abcdef
  TEST_ST 35, sw, 0x80000001, 4, 0x80000001aaaaaaaa
  TEST_ST 36, sd, 0x1234567890abcdef, 0, 0x1234567890abcdef
  TEST_ST 37, sb, 0x55, -8, 0xaaaaaaaaaaaaaa55, 8
  TEST_ST 38, sh, 0x6655, -6, 0xaaaaaaaa6655aaaa, 8
  TEST_ST 39, sw, 0x44332211, -2048, 0xaaaaaaaa44332211, 2048
  TEST_ST 40, sd, -2, 2047, 0xfffffffffffffffe, -2047
  # store then load back with every width
  CASE 41
  la a1, sdat
  li a2, 0xfedcba9876543210
  sd a2, 0(a1)
  lb a0, 7(a1)
  CHECK a0, 0xfffffffffffffffe
  lbu a0, 6(a1)
  CHECK a0, 0xdc
  lh a0, 6(a1)
  CHECK a0, 0xfffffffffffffedc
  lhu a0, 2(a1)
  CHECK a0, 0x7654
  lw a0, 4(a1)
  CHECK a0, 0xfffffffffedcba98
  lwu a0, 4(a1)
  CHECK a0, 0xfedcba98
  # base register = data register
  CASE 42
  la a1, sdat
  sd a1, 0(a1)
  ld a0, 0(a1)
  CHECK_REG a0, a1
TEST_END

  .data
  .balign 16
ldat:
  .byte 0x80, 0x7f, 0xff, 0x00, 0x00, 0x80, 0xff, 0x7f
  .byte 0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0x7f
  .dword 0x0123456789abcdef
  .balign 16
sdat:
  .dword 0, 0

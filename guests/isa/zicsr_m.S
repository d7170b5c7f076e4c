# Zicsr on machine-mode CSRs (bare metal only; qemu-user cannot run this):
# mscratch with every csrr* form and the rd = x0 / rs1 = x0 rules, mcycle /
# minstret writes, mstatus.FS as the environment set it, mie = 0.
#include "isa_test.h"
#ifdef ISA_ENV_USER
#error "zicsr_m.S needs machine mode"
#endif

/* Preset mscratch to init, run `op a0, mscratch, src`; a0 == old, mscratch == new. */
.macro TEST_MSCRATCH n, op, init, src, old, new, imm=0
  CASE \n
  li t0, \init
  csrw mscratch, t0
  .if \imm
    \op a0, mscratch, \src
  .else
    li a1, \src
    \op a0, mscratch, a1
  .endif
  CHECK a0, \old
  csrr a2, mscratch
  CHECK a2, \new
.endm

TEST_BEGIN
  # mscratch is a full 64-bit read/write register
  TEST_MSCRATCH  2, csrrw, 0, 0x0123456789abcdef, 0, 0x0123456789abcdef
  TEST_MSCRATCH  3, csrrw, -1, 0, -1, 0
  TEST_MSCRATCH  4, csrrs, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0, 0xff00ff00ff00ff00, 0xfff0fff0fff0fff0
  TEST_MSCRATCH  5, csrrc, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0, 0xff00ff00ff00ff00, 0xf000f000f000f000
  TEST_MSCRATCH  6, csrrwi, -1, 0x1f, -1, 0x1f, 1
  TEST_MSCRATCH  7, csrrsi, 0x8000000000000000, 0x15, 0x8000000000000000, 0x8000000000000015, 1
  TEST_MSCRATCH  8, csrrci, -1, 0x1f, -1, 0xffffffffffffffe0, 1
  CASE 9                          # rd = x0 still writes
  csrw mscratch, zero
  li a1, 0x55
  csrrw x0, mscratch, a1
  CHECK x0, 0
  csrr a0, mscratch
  CHECK a0, 0x55
  CASE 10                         # rs1 = x0 and uimm = 0 do not write
  csrrs a0, mscratch, x0
  CHECK a0, 0x55
  csrrc a0, mscratch, x0
  CHECK a0, 0x55
  csrrsi a0, mscratch, 0
  csrrci a0, mscratch, 0
  csrr a0, mscratch
  CHECK a0, 0x55
  CASE 11                         # rd = rs1: old value returned, new written
  li a1, 0x66
  csrrw a1, mscratch, a1
  CHECK a1, 0x55
  csrr a0, mscratch
  CHECK a0, 0x66
  CASE 12                         # csrrw with rs1 = x0 writes zero
  csrrw a0, mscratch, x0
  CHECK a0, 0x66
  csrr a0, mscratch
  CHECK a0, 0
  # machine counters are writable; reads continue from the written value
  CASE 13
  li t0, 1000000
  csrw minstret, t0
  csrr a0, minstret
  sub a0, a0, t0
  sltiu a0, a0, 16                 # at most a few instructions later
  CHECK a0, 1
  CASE 14
  li t0, 0x100000000
  csrw mcycle, t0
  csrr a0, mcycle
  bltu a0, t0, fail
  # the unprivileged aliases read the same counters
  CASE 15
  csrr a0, minstret
  rdinstret a1
  bltu a1, a0, fail
  sub a1, a1, a0
  sltiu a1, a1, 16
  CHECK a1, 1
  # mstatus.FS was set by the environment (Initial, or Dirty after FP use)
  CASE 16
  csrr a0, mstatus
  li t0, MSTATUS_FS
  and a0, a0, t0
  beqz a0, fail
  # mie is WARL, and zero is always legal: it reads back as written
  CASE 17
  csrw mie, zero
  csrr a0, mie
  CHECK a0, 0
  csrrs a0, mie, x0
  CHECK a0, 0
TEST_END

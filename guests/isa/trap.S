# Machine-mode traps (bare metal only; qemu-user cannot run this): ecall,
# ebreak, c.ebreak, illegal instructions with mtval = the instruction bits,
# mret to the mepc the handler wrote (trapping pc + 2 or 4), misa / mhartid.
#include "isa_test.h"
#ifdef ISA_ENV_USER
#error "trap.S needs machine mode"
#endif
.option norvc   /* 4-byte code except where a case says otherwise */

.equ CAUSE_ILLEGAL, 2
.equ CAUSE_BREAKPOINT, 3
.equ CAUSE_ECALL_M, 11
.equ MSTATUS_MIE, 0x8
.equ MSTATUS_MPIE, 0x80
.equ MSTATUS_MPP, 0x1800
.equ ILLEGAL_OP, 0xfe000033          /* OP with funct7 = 0x7f: no such instruction */

/* Expect the instruction(s) at label `at` to trap once with cause; s2 = mepc
 * the handler saw, s3 = mtval. Check count, cause and mepc. */
.macro CHECK_TRAP cause, at
  CHECK s4, 1
  CHECK s1, \cause
  la t0, \at
  CHECK_REG s2, t0
.endm

/* Reset the handler's record; mtval = a marker so that a write is visible. */
.macro ARM
  li s4, 0
  li s1, -1
  li s2, -1
  li t0, 0x5a5a
  csrw mtval, t0
.endm

TEST_BEGIN
  csrw mie, zero                     # no interrupt sources enabled (case 12 sets MIE)
  la t0, handler
  csrw mtvec, t0
  CASE 2                             # mtvec holds the direct-mode handler address
  csrr a0, mtvec
  la t0, handler
  CHECK_REG a0, t0

  CASE 3                             # ecall from M: cause 11, mtval 0
  ARM
1:
  ecall
  CHECK_TRAP CAUSE_ECALL_M, 1b
  CHECK s3, 0

  CASE 4                             # ebreak: cause 3, mtval = pc or 0
  ARM
2:
  ebreak
  CHECK_TRAP CAUSE_BREAKPOINT, 2b
  beqz s3, 3f
  la t0, 2b
  CHECK_REG s3, t0
3:

  CASE 5                             # c.ebreak: the handler skips 2 bytes
  ARM
  .option push
  .option rvc
4:
  c.ebreak
  .option pop
  CHECK_TRAP CAUSE_BREAKPOINT, 4b

  CASE 6                             # an unknown instruction: mtval = its bits
  ARM
5:
  .word ILLEGAL_OP
  CHECK_TRAP CAUSE_ILLEGAL, 5b
  CHECK s3, ILLEGAL_OP

  CASE 7                             # the all-zero 16-bit instruction is illegal
  ARM
6:
  .half 0
  CHECK_TRAP CAUSE_ILLEGAL, 6b

  CASE 8                             # write to a read-only CSR (cycle)
  ARM
7:
  csrrw x0, cycle, a1
  CHECK_TRAP CAUSE_ILLEGAL, 7b
  la t0, 7b
  lwu t0, 0(t0)
  CHECK_REG s3, t0

  CASE 9                             # csrrs / csrrsi with rs1 = x0 / uimm = 0 only read
  ARM
  csrrs a0, cycle, x0
  csrrsi a0, instret, 0
  CHECK s4, 0

  CASE 10                            # dynamic rounding with frm = 7 is illegal
  ARM
  fsrmi x0, 7
9:
  fadd.d fa0, fa1, fa2, dyn
  CHECK_TRAP CAUSE_ILLEGAL, 9b
  la t0, 9b
  lwu t0, 0(t0)
  CHECK_REG s3, t0
  fsrmi x0, 0

  CASE 11                            # FP instructions trap while mstatus.FS = Off
  ARM
  li t0, MSTATUS_FS
  csrc mstatus, t0
10:
  fadd.d fa0, fa1, fa2
  CHECK_TRAP CAUSE_ILLEGAL, 10b
  ARM
11:
  csrr a0, fcsr
  CHECK_TRAP CAUSE_ILLEGAL, 11b
  li t0, MSTATUS_FS_INITIAL
  csrs mstatus, t0
  csrr a0, fcsr                      # enabled again: no trap
  CHECK s4, 1

  CASE 12                            # mret jumps to mepc and sets MIE = MPIE, MPIE = 1
  li t0, MSTATUS_MIE | MSTATUS_MPIE
  csrc mstatus, t0
  li t0, MSTATUS_MPIE | MSTATUS_MPP  # MPIE = 1, MPP = M: stay in machine mode
  csrs mstatus, t0
  la t0, 12f
  csrw mepc, t0
  mret
  j fail
12:
  csrr a0, mstatus
  andi a1, a0, MSTATUS_MIE
  CHECK a1, MSTATUS_MIE
  andi a1, a0, MSTATUS_MPIE
  CHECK a1, MSTATUS_MPIE
  li t0, MSTATUS_MIE                 # mie = 0, so nothing can interrupt; clear again
  csrc mstatus, t0

  CASE 13                            # a trap saves MIE into MPIE and clears MIE
  li t0, MSTATUS_MPP
  csrs mstatus, t0
  li t0, MSTATUS_MIE
  csrs mstatus, t0
  ARM
  ecall
  CHECK s4, 1
  li t0, MSTATUS_MPIE
  and a1, s5, t0                     # mstatus as the handler saw it
  CHECK a1, MSTATUS_MPIE
  andi a1, s5, MSTATUS_MIE
  CHECK a1, 0
  li t0, MSTATUS_MIE                 # the handler's mret restored MIE
  csrr a0, mstatus
  and a0, a0, t0
  CHECK a0, MSTATUS_MIE
  csrc mstatus, t0

  CASE 14                            # misa: MXL = 2 (RV64) and I, M, A, F, D, C
  csrr a0, misa
  srli a1, a0, 62
  CHECK a1, 2
  li t0, (1 << 0) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 8) | (1 << 12)
  and a1, a0, t0
  CHECK_REG a1, t0

  CASE 15                            # a single hart: mhartid = 0
  csrr a0, mhartid
  CHECK a0, 0

  CASE 16                            # mepc / mcause / mtval are read-write
  la t0, 12b
  csrw mepc, t0
  csrr a0, mepc
  CHECK_REG a0, t0
  li t0, 0x1234
  csrw mtval, t0
  csrr a0, mtval
  CHECK a0, 0x1234

  # Kept last: qemu 7.2 (user and system) does not trap here, the spec does.
  # CSRRS with rs1 != x0 is a write even when the register holds zero
  # (unprivileged spec, Zicsr: "will still attempt to write the unmodified
  # value back"), and a write to a read-only CSR is an illegal instruction.
  CASE 17
  ARM
  li a1, 0
8:
  csrrs a0, cycle, a1
  CHECK_TRAP CAUSE_ILLEGAL, 8b
TEST_END

  /* Record mcause, mepc, mtval, mstatus; count; resume after the trapping
   * instruction (2 or 4 bytes, from its low bits) through mret. */
  .balign 4
handler:
  csrr s1, mcause
  csrr s2, mepc
  csrr s3, mtval
  csrr s5, mstatus
  addi s4, s4, 1
  lhu t0, 0(s2)
  andi t0, t0, 3
  addi t1, s2, 2
  li t2, 3
  bne t0, t2, 1f
  addi t1, s2, 4
1:
  csrw mepc, t1
  mret

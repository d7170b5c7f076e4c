/*
 * isa_test.h: profkit's environment for self-checking RISC-V ISA tests.
 *
 * One source builds in two flavours, chosen by a preprocessor switch:
 *
 *   bare metal (default): code at 0x80000000 (link.ld) in machine mode, a trap
 *     vector in mtvec, mstatus.FS enabled; the result goes to the 8-byte
 *     `tohost` symbol in section .tohost: 1 = pass, (case << 1) | 1 = fail.
 *   Linux user (-DISA_ENV_USER): `_start` in user mode; the result is the exit
 *     status of the exit system call: 0 = pass, the failing case otherwise.
 *     The user flavour exists so that qemu-riscv64 can check every expected
 *     value; parts that need machine mode go inside `#ifndef ISA_ENV_USER`.
 *
 * The case number lives in gp. Cases are numbered 2..255 (1 means "failed
 * outside any case", e.g. an unexpected trap before the first case; 255 is
 * the largest exit status). Each case defines the label `case_<n>`, so a
 * number used twice is an assembler error and objdump shows where a case is.
 *
 * Registers used by the check macros: a0-a3, t0-t2, fa0-fa3 (and gp).
 */
#ifndef ISA_TEST_H
#define ISA_TEST_H

/* gp holds the case number, so the linker must not relax `la` into
 * gp-relative addressing (the Linux default script defines __global_pointer$). */
.option norelax

/* Name the source in the symbol table; otherwise the linker records gcc's
 * randomly named temporary object and rebuilt ELFs differ byte for byte. */
.file __BASE_FILE__

/* fflags bits (RISC-V unprivileged spec, "Floating-Point Control and Status Register"). */
.equ FNX, 0x01 /* inexact */
.equ FUF, 0x02 /* underflow */
.equ FOF, 0x04 /* overflow */
.equ FDZ, 0x08 /* divide by zero */
.equ FNV, 0x10 /* invalid operation */

/* frm values. */
.equ RM_RNE, 0
.equ RM_RTZ, 1
.equ RM_RDN, 2
.equ RM_RUP, 3
.equ RM_RMM, 4

/* mstatus.FS = Initial (riscv-tests write the same to enable the FPU). */
.equ MSTATUS_FS, 0x00006000
.equ MSTATUS_FS_INITIAL, 0x00002000

/* ---- case bookkeeping and checks --------------------------------------- */

/* Start case n: record it in gp and mark its place. */
.macro CASE n
  .if (\n < 2) || (\n > 255)
    .error "case numbers are 2..255"
  .endif
case_\n:
  li gp, \n
.endm

/* Fail the current case unless reg == val (val: any `li` constant). */
.macro CHECK reg, val
  li t2, \val
  beq \reg, t2, .Lok\@
  j fail
.Lok\@:
.endm

/* Fail the current case unless the two registers are equal. */
.macro CHECK_REG reg, other
  beq \reg, \other, .Lok\@
  j fail
.Lok\@:
.endm

/* Register-register op with explicit registers (rs1 == rs2 loads b last). */
.macro TEST_RR_REGS n, op, res, a, b, rd, rs1, rs2
  CASE \n
  li \rs1, \a
  li \rs2, \b
  \op \rd, \rs1, \rs2
  CHECK \rd, \res
.endm

/* rd = op(a, b) */
.macro TEST_RR n, op, res, a, b
  TEST_RR_REGS \n, \op, \res, \a, \b, a0, a1, a2
.endm

/* rd = op(a, imm); rd, rs1 may be given to test rd == rs1. */
.macro TEST_RI n, op, res, a, imm, rd=a0, rs1=a1
  CASE \n
  li \rs1, \a
  \op \rd, \rs1, \imm
  CHECK \rd, \res
.endm

/* rd = op(a) for one-source ops. */
.macro TEST_R1 n, op, res, a
  CASE \n
  li a1, \a
  \op a0, a1
  CHECK a0, \res
.endm

/* ---- floating point ----------------------------------------------------- */

/* Load a bit pattern into an f register: s = NaN-boxed single, d = 64 bits. */
.macro FLOAD kind, freg, val
  li t0, \val
  .ifc \kind, s
    fmv.w.x \freg, t0
  .else
    fmv.d.x \freg, t0
  .endif
.endm

/* Emit `op rd, r1[, r2[, r3]][, rm]`. */
.macro FEMIT op, rd, r1, r2, r3, rm
  .ifb \r2
    .ifb \rm
      \op \rd, \r1
    .else
      \op \rd, \r1, \rm
    .endif
  .else
    .ifb \r3
      .ifb \rm
        \op \rd, \r1, \r2
      .else
        \op \rd, \r1, \r2, \rm
      .endif
    .else
      .ifb \rm
        \op \rd, \r1, \r2, \r3
      .else
        \op \rd, \r1, \r2, \r3, \rm
      .endif
    .endif
  .endif
.endm

/* Run op on fa1[, fa2[, fa3]] (or on a1 when src = x) into rd. */
.macro FRUN op, rd, src, b, c, rm
  .ifc \src, x
    FEMIT \op, \rd, a1, , , \rm
  .else
    .ifb \b
      FEMIT \op, \rd, fa1, , , \rm
    .else
      .ifb \c
        FEMIT \op, \rd, fa1, fa2, , \rm
      .else
        FEMIT \op, \rd, fa1, fa2, fa3, \rm
      .endif
    .endif
  .endif
.endm

/*
 * One floating-point check: clear fflags, run `op` on up to three operands,
 * then check the result bits and the accrued fflags exactly.
 *   dst: s = single result (the whole f register must be NaN-boxed),
 *        d = double result, x = integer result in a0.
 *   src: s / d = operand bit patterns loaded into fa1..fa3,
 *        x = one integer operand in a1.
 *   res: single results as 32-bit patterns, others as 64-bit values.
 *   rm:  static rounding mode (rne, rtz, rdn, rup, rmm, dyn) or blank for
 *        ops without one (blank on an op with rm means dyn in the assembler).
 */
.macro FCASE op, dst, src, flags, res, a, b, c, rm
  .ifc \src, x
    li a1, \a
  .else
    FLOAD \src, fa1, \a
    .ifnb \b
      FLOAD \src, fa2, \b
    .endif
    .ifnb \c
      FLOAD \src, fa3, \c
    .endif
  .endif
  fsflags x0
  .ifc \dst, x
    FRUN \op, a0, \src, \b, \c, \rm
  .else
    FRUN \op, fa0, \src, \b, \c, \rm
  .endif
  frflags t1
  .ifc \dst, s
    fmv.x.d a0, fa0
    CHECK a0, (0xffffffff00000000 | (\res))
  .else
    .ifc \dst, d
      fmv.x.d a0, fa0
    .endif
    CHECK a0, \res
  .endif
  CHECK t1, \flags
.endm

/* Case n: one FCASE. */
.macro FTEST n, op, dst, src, flags, res, a, b, c, rm
  CASE \n
  FCASE \op, \dst, \src, \flags, \res, \a, \b, \c, \rm
.endm

/* Case n: one operation in all five rounding modes, same flags in each.
 * mode = static: rne, rtz, rdn, rup, rmm in the instruction;
 * mode = dyn: the same modes set in frm, the instruction says dyn
 * (frm is left at RNE afterwards). c = third operand of the fused ops. */
.macro FT5 n, op, dst, src, flags, a, b, rne, rtz, rdn, rup, rmm, mode=static, c
  CASE \n
  .irp m, rne, rtz, rdn, rup, rmm
    .ifc \m, rne
      .set .Lres, \rne
    .endif
    .ifc \m, rtz
      .set .Lres, \rtz
    .endif
    .ifc \m, rdn
      .set .Lres, \rdn
    .endif
    .ifc \m, rup
      .set .Lres, \rup
    .endif
    .ifc \m, rmm
      .set .Lres, \rmm
    .endif
    .ifc \mode, dyn
      .ifc \m, rne
        fsrmi x0, RM_RNE
      .endif
      .ifc \m, rtz
        fsrmi x0, RM_RTZ
      .endif
      .ifc \m, rdn
        fsrmi x0, RM_RDN
      .endif
      .ifc \m, rup
        fsrmi x0, RM_RUP
      .endif
      .ifc \m, rmm
        fsrmi x0, RM_RMM
      .endif
      FCASE \op, \dst, \src, \flags, .Lres, \a, \b, \c, dyn
    .else
      FCASE \op, \dst, \src, \flags, .Lres, \a, \b, \c, \m
    .endif
  .endr
  .ifc \mode, dyn
    fsrmi x0, RM_RNE
  .endif
.endm

/* Set frm for the dynamic rounding mode (imm: RM_*). */
.macro SET_FRM mode
  fsrmi x0, \mode
.endm

/* ---- environment: entry, pass/fail, data -------------------------------- */

/* Zero x1..x31 except sp (the Linux flavour keeps the kernel's stack). */
.macro ZERO_XREGS
  .irp r, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    li x\r, 0
  .endr
.endm

/* Zero f0..f31 (needs the FPU enabled). */
.macro ZERO_FREGS
  .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    fmv.d.x f\r, x0
  .endr
.endm

#ifdef ISA_ENV_USER

.macro TEST_BEGIN
  .text
  .globl _start
_start:
  ZERO_XREGS
  ZERO_FREGS
  csrwi fcsr, 0
  li gp, 1
.endm

.macro TEST_END
  li a0, 0
  li a7, 93 /* exit */
  ecall
fail:
  mv a0, gp /* 2..255, never 0 */
  li a7, 93
  ecall
.Lhang\@:
  j .Lhang\@
.endm

#else /* bare metal, machine mode */

.macro TEST_BEGIN
  .section .text.init, "ax", @progbits
  .globl _start
_start:
  ZERO_XREGS
  li sp, 0 /* no stack in this environment */
  li gp, 1
  la t0, trap_vector
  csrw mtvec, t0
  li t0, MSTATUS_FS_INITIAL
  csrs mstatus, t0
  ZERO_FREGS
  csrwi fcsr, 0
  j test_body

  /* An unexpected trap fails the case that caused it (tests that expect a
   * trap install their own handler in mtvec). */
  .balign 4
trap_vector:
  j fail

test_body:
.endm

.macro TEST_END
  fence
  li t0, 1
  la t1, tohost
  sd t0, 0(t1)
.Lpass\@:
  j .Lpass\@
fail:
  fence
  slli t0, gp, 1
  ori t0, t0, 1
  la t1, tohost
  sd t0, 0(t1)
.Lfail\@:
  j .Lfail\@

  /* HTIF mailboxes: the host polls tohost; fromhost is unused but present. */
  .pushsection .tohost, "aw", @progbits
  .balign 64
  .globl tohost
  .type tohost, @object
  .size tohost, 8
tohost: .dword 0
  .balign 64
  .globl fromhost
  .type fromhost, @object
  .size fromhost, 8
fromhost: .dword 0
  .popsection
.endm

#endif /* ISA_ENV_USER */

#endif /* ISA_TEST_H */

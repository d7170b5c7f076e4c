/* Machine-mode startup for the bare-metal guests: sets up gp, sp, tp, the trap vector and the
 * FPU, zeroes .tbss/.bss, runs constructors and calls main(argc = 1, argv = {"guest", NULL}),
 * then exit(main's value), which ends in _exit (htif.c).
 *
 * Built with -DBARE_ON_LINUX, the same code runs as a Linux user program (under qemu-riscv64) to
 * check that the picolibc build prints what the glibc build prints; that variant skips the
 * machine-mode CSRs, which user mode may not touch. */

    .file   "start.S"  /* else the symbol table names a random temporary file */

    .section .text.init.enter, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax         /* gp is not yet valid: no gp-relative relaxation here */
    la      gp, __global_pointer$
    .option pop
    la      sp, __stack_top
#ifndef BARE_ON_LINUX
    la      t0, bare_trap_entry
    csrw    mtvec, t0
    li      t0, (1 << 13)   /* mstatus.FS = Initial: floating point on */
    csrs    mstatus, t0
    csrwi   fcsr, 0
#endif
    la      t0, __bss_start /* zero .tbss and .bss (8-byte aligned, whole doublewords) */
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sd      zero, 0(t0)
    addi    t0, t0, 8
    j       1b
2:  la      tp, __tls_base
    call    __libc_init_array
    li      a0, 1
    la      a1, bare_argv
    li      a2, 0
    call    main
    call    exit
3:  j       3b
    .size _start, . - _start

#ifndef BARE_ON_LINUX
/* Any trap is fatal: report it through C (htif.c) with the cause, pc and value. */
    .text
    .balign 4
    .globl bare_trap_entry
    .type bare_trap_entry, @function
bare_trap_entry:
    la      sp, __stack_top
    csrr    a0, mcause
    csrr    a1, mepc
    csrr    a2, mtval
    call    bare_trap
4:  j       4b
    .size bare_trap_entry, . - bare_trap_entry
#endif

    .section .rodata
bare_argv0:
    .string "guest"
    .balign 8
bare_argv:
    .dword  bare_argv0
    .dword  0

# tiny.S: the smallest useful static RISC-V Linux executable, used by the ELF loader and
# Linux environment tests. Rebuild (committed as tiny.elf):
#   riscv64-unknown-elf-as -march=rv64gc -o tiny.o tiny.S
#   riscv64-unknown-elf-ld -T tiny.ld --build-id=none -o tiny.elf tiny.o
# It writes "hello\n" to stdout and exits with status 7. The rodata string sits in a PT_NOTE
# segment so tests can turn that header into PT_INTERP (a "dynamically linked" variant).

    .text
    .globl _start
    .type _start, @function
_start:
    li a0, 1
    la a1, msg
    li a2, 6
    li a7, 64               # write
    ecall
    call helper
    li a7, 93               # exit
    ecall
    .size _start, . - _start

    .globl helper
    .type helper, @function
helper:
    li a0, 7
    ret
    .size helper, . - helper

    .section .rodata
    .type interp, @object
interp:
    .asciz "/lib/ld-linux-riscv64-lp64d.so.1"
    .size interp, . - interp

    .data
    .type msg, @object
msg:
    .ascii "hello\n"
    .size msg, . - msg
    .balign 8
    .globl tohost
    .type tohost, @object
tohost:
    .dword 0
    .size tohost, 8
    .globl fromhost
    .type fromhost, @object
fromhost:
    .dword 0
    .size fromhost, 8

    .bss
    .balign 8
    .type scratch, @object
scratch:
    .zero 4096
    .size scratch, 4096

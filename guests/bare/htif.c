/* Console and exit for the bare-metal guests over HTIF (the host-target interface of Spike):
 *   putchar(b): tohost = (1 << 56) | (1 << 48) | b   (device 1 = console, command 1 = putchar),
 *               then wait until the host has cleared tohost back to 0;
 *   exit(code): tohost = (code << 1) | 1, then spin (the host stops the machine).
 * picolibc's stdin/stdout/stderr are one write-only stream whose put function is htif_putc.
 *
 * With -DBARE_ON_LINUX the same streams write with the Linux write/exit_group system calls
 * instead, so that the picolibc build can be compared with the glibc build under qemu-riscv64. */
#include <stdint.h>
#include <stdio.h>

volatile uint64_t tohost __attribute__((section(".tohost"), aligned(8), used));
volatile uint64_t fromhost __attribute__((section(".tohost"), aligned(8), used));

#define HTIF_DEVICE_CONSOLE 1ULL
#define HTIF_COMMAND_PUTCHAR 1ULL

#ifdef BARE_ON_LINUX
static long linux_syscall3(long nr, long a0, long a1, long a2)
{
    register long r_a0 __asm__("a0") = a0;
    register long r_a1 __asm__("a1") = a1;
    register long r_a2 __asm__("a2") = a2;
    register long r_nr __asm__("a7") = nr;
    __asm__ volatile("ecall" : "+r"(r_a0) : "r"(r_a1), "r"(r_a2), "r"(r_nr) : "memory");
    return r_a0;
}
#endif

static int htif_putc(char c, FILE *file)
{
    (void)file;
#ifdef BARE_ON_LINUX
    linux_syscall3(64 /* write */, 1, (long)&c, 1);
#else
    tohost = (HTIF_DEVICE_CONSOLE << 56) | (HTIF_COMMAND_PUTCHAR << 48) | (uint8_t)c;
    while (tohost != 0)
        ;
#endif
    return (unsigned char)c;
}

static FILE htif_stream = FDEV_SETUP_STREAM(htif_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &htif_stream;
FILE *const stdout = &htif_stream;
FILE *const stderr = &htif_stream;

/* The exit status is reduced to 8 bits, as a Linux parent would see it. */
void _exit(int code)
{
    uint64_t status = (uint64_t)((unsigned)code & 0xFF);
#ifdef BARE_ON_LINUX
    linux_syscall3(94 /* exit_group */, (long)status, 0, 0);
#else
    tohost = (status << 1) | 1;
#endif
    for (;;)
        ;
}

#ifndef BARE_ON_LINUX
/* Called by bare_trap_entry (start.S) on any exception or interrupt: no guest here expects one. */
void bare_trap(uint64_t mcause, uint64_t mepc, uint64_t mtval)
{
    printf("\nbare-metal trap: mcause %llx mepc %llx mtval %llx\n", (unsigned long long)mcause,
           (unsigned long long)mepc, (unsigned long long)mtval);
    _exit(0x80 | (int)(mcause & 0x3F));
}
#endif

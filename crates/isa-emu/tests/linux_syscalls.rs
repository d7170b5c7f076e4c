//! System calls, one family per test, driven through `Linux::syscall` on registers and
//! guest memory exactly as the run loop will (number in a7, arguments in a0..a5, result
//! or -errno in a0). Struct layouts and constants are riscv64's (asm-generic).

mod common;

use common::*;
use isa_emu::elf::ElfImage;
use isa_emu::linux::{Input, Linux, LinuxConfig, Output, SyscallOutcome, EPOCH_SECS};
use isa_emu::Memory;

const EPERM: i64 = -1;
const ENOENT: i64 = -2;
const ESRCH: i64 = -3;
const EBADF: i64 = -9;
const EAGAIN: i64 = -11;
const ENOMEM: i64 = -12;
const EACCES: i64 = -13;
const EFAULT: i64 = -14;
const EEXIST: i64 = -17;
const ENOTDIR: i64 = -20;
const EINVAL: i64 = -22;
const ENOTTY: i64 = -25;
const ESPIPE: i64 = -29;
const ERANGE: i64 = -34;
const ENAMETOOLONG: i64 = -36;
const ENOSYS: i64 = -38;
const ETIMEDOUT: i64 = -110;

const SCRATCH: u64 = 0x11180; // tiny.elf's 4 KiB bss buffer
const BAD: u64 = 0xdead_0000_0000;
const AT_FDCWD: u64 = -100i64 as u64;

mod nr {
    pub const GETCWD: u64 = 17;
    pub const DUP: u64 = 23;
    pub const DUP3: u64 = 24;
    pub const FCNTL: u64 = 25;
    pub const IOCTL: u64 = 29;
    pub const FACCESSAT: u64 = 48;
    pub const OPENAT: u64 = 56;
    pub const CLOSE: u64 = 57;
    pub const LSEEK: u64 = 62;
    pub const READ: u64 = 63;
    pub const WRITE: u64 = 64;
    pub const READV: u64 = 65;
    pub const WRITEV: u64 = 66;
    pub const PREAD64: u64 = 67;
    pub const PWRITE64: u64 = 68;
    pub const READLINKAT: u64 = 78;
    pub const NEWFSTATAT: u64 = 79;
    pub const FSTAT: u64 = 80;
    pub const EXIT: u64 = 93;
    pub const EXIT_GROUP: u64 = 94;
    pub const SET_TID_ADDRESS: u64 = 96;
    pub const FUTEX: u64 = 98;
    pub const SET_ROBUST_LIST: u64 = 99;
    pub const NANOSLEEP: u64 = 101;
    pub const CLOCK_GETTIME: u64 = 113;
    pub const CLOCK_GETRES: u64 = 114;
    pub const CLOCK_NANOSLEEP: u64 = 115;
    pub const SCHED_GETAFFINITY: u64 = 123;
    pub const SCHED_YIELD: u64 = 124;
    pub const KILL: u64 = 129;
    pub const TGKILL: u64 = 131;
    pub const SIGALTSTACK: u64 = 132;
    pub const RT_SIGACTION: u64 = 134;
    pub const RT_SIGPROCMASK: u64 = 135;
    pub const UNAME: u64 = 160;
    pub const GETTIMEOFDAY: u64 = 169;
    pub const GETPID: u64 = 172;
    pub const GETPPID: u64 = 173;
    pub const GETUID: u64 = 174;
    pub const GETEGID: u64 = 177;
    pub const GETTID: u64 = 178;
    pub const BRK: u64 = 214;
    pub const MUNMAP: u64 = 215;
    pub const MREMAP: u64 = 216;
    pub const MMAP: u64 = 222;
    pub const MPROTECT: u64 = 226;
    pub const MADVISE: u64 = 233;
    pub const RISCV_HWPROBE: u64 = 258;
    pub const PRLIMIT64: u64 = 261;
    pub const GETRANDOM: u64 = 278;
    pub const STATX: u64 = 291;
    pub const RSEQ: u64 = 293;
    pub const MKDIRAT: u64 = 34;
    pub const UNLINKAT: u64 = 35;
    pub const FTRUNCATE: u64 = 46;
    pub const FSYNC: u64 = 82;
    pub const SYSINFO: u64 = 179;
    pub const GETDENTS64: u64 = 61;
}

struct Env {
    mem: Memory,
    linux: Linux,
    x: [u64; 32],
    instret: u64,
}

fn cfg() -> LinuxConfig {
    LinuxConfig {
        args: vec![b"/bin/prog".to_vec(), b"arg".to_vec()],
        stdin: Input::Bytes(b"line one\nline two\n".to_vec()),
        stdout: Output::Capture,
        stderr: Output::Capture,
        seed: 1,
        ..LinuxConfig::default()
    }
}

impl Env {
    fn new(cfg: LinuxConfig) -> Env {
        Env::with_mem(cfg, 64 << 20)
    }

    fn with_mem(cfg: LinuxConfig, size: u64) -> Env {
        let img = ElfImage::parse(TINY).unwrap();
        let mut mem = Memory::new(0x10000, size).unwrap();
        img.load_into(&mut mem).unwrap();
        let mut linux = Linux::new(cfg);
        let mut x = [0; 32];
        x[2] = linux.setup(&mut mem, &img).unwrap();
        Env {
            mem,
            linux,
            x,
            instret: 0,
        }
    }

    fn outcome(&mut self, number: u64, args: &[u64]) -> SyscallOutcome {
        self.x[17] = number;
        for (i, a) in args.iter().enumerate() {
            self.x[10 + i] = *a;
        }
        self.linux.syscall(&mut self.x, &mut self.mem, self.instret)
    }

    fn call(&mut self, number: u64, args: &[u64]) -> i64 {
        match self.outcome(number, args) {
            SyscallOutcome::Continue => self.x[10] as i64,
            SyscallOutcome::Exit(c) => panic!("unexpected exit {c}"),
        }
    }

    /// Writes a NUL-terminated string at `addr`.
    fn cstr(&mut self, addr: u64, s: &[u8]) -> u64 {
        self.mem.write_bytes(addr, s).unwrap();
        self.mem.store_u::<1>(addr + s.len() as u64, 0).unwrap();
        addr
    }

    fn words(&self, addr: u64, n: usize) -> Vec<u64> {
        (0..n)
            .map(|i| self.mem.load_u::<8>(addr + 8 * i as u64).unwrap())
            .collect()
    }

    fn put_words(&mut self, addr: u64, w: &[u64]) {
        for (i, v) in w.iter().enumerate() {
            self.mem.store_u::<8>(addr + 8 * i as u64, *v).unwrap();
        }
    }
}

#[test]
fn write_and_writev_reach_the_captured_streams() {
    let mut e = Env::new(cfg());
    let msg = 0x11168; // "hello\n" in tiny.elf's data
    assert_eq!(e.call(nr::WRITE, &[1, msg, 6]), 6);
    assert_eq!(e.call(nr::WRITE, &[2, msg, 5]), 5);
    e.put_words(SCRATCH, &[msg, 2, msg + 2, 4]);
    assert_eq!(e.call(nr::WRITEV, &[1, SCRATCH, 2]), 6);
    assert_eq!(e.linux.stdout_captured(), b"hello\nhello\n");
    assert_eq!(e.linux.stderr_captured(), b"hello");
    assert_eq!(e.call(nr::WRITE, &[1, BAD, 6]), EFAULT);
    assert_eq!(e.call(nr::WRITE, &[1, u64::MAX - 2, 6]), EFAULT);
    assert_eq!(e.call(nr::WRITE, &[7, msg, 6]), EBADF);
    assert_eq!(e.call(nr::WRITE, &[0, msg, 6]), EBADF);
    assert_eq!(e.call(nr::WRITE, &[1, msg, 0]), 0);
    assert_eq!(e.call(nr::WRITEV, &[1, SCRATCH, 5000]), EINVAL);
    assert_eq!(e.call(nr::WRITEV, &[1, BAD, 1]), EFAULT);
    assert_eq!(e.call(nr::CLOSE, &[1]), 0);
    assert_eq!(e.call(nr::WRITE, &[1, msg, 6]), EBADF);
    assert_eq!(e.call(nr::CLOSE, &[1]), EBADF);
    assert_eq!(e.linux.stdout_captured(), b"hello\nhello\n");
}

#[test]
fn read_and_readv_consume_stdin_then_eof() {
    let mut e = Env::new(cfg());
    assert_eq!(e.call(nr::READ, &[0, SCRATCH, 5]), 5);
    assert_eq!(e.mem.slice(SCRATCH, 5).unwrap(), b"line ");
    e.put_words(SCRATCH + 0x100, &[SCRATCH, 3, SCRATCH + 0x10, 100]);
    assert_eq!(e.call(nr::READV, &[0, SCRATCH + 0x100, 2]), 13);
    assert_eq!(e.mem.slice(SCRATCH, 3).unwrap(), b"one");
    assert_eq!(e.mem.slice(SCRATCH + 0x10, 10).unwrap(), b"\nline two\n");
    assert_eq!(e.call(nr::READ, &[0, SCRATCH, 5]), 0);
    assert_eq!(e.call(nr::READ, &[0, BAD, 5]), EFAULT);
    assert_eq!(e.call(nr::READ, &[1, SCRATCH, 5]), EBADF);
    assert_eq!(e.call(nr::READ, &[99, SCRATCH, 5]), EBADF);
    assert_eq!(e.call(nr::LSEEK, &[0, 0, 0]), ESPIPE);
    assert_eq!(e.call(nr::PREAD64, &[0, SCRATCH, 1, 0]), ESPIPE);
}

#[test]
fn exit_and_exit_group_end_the_run_with_the_low_byte() {
    let mut e = Env::new(cfg());
    assert_eq!(e.outcome(nr::EXIT_GROUP, &[300]), SyscallOutcome::Exit(44));
    assert_eq!(e.outcome(nr::EXIT, &[7]), SyscallOutcome::Exit(7));
    assert_eq!(
        e.outcome(nr::EXIT, &[-1i64 as u64]),
        SyscallOutcome::Exit(255)
    );
}

#[test]
fn unknown_syscalls_are_enosys_and_counted() {
    let mut e = Env::new(cfg());
    assert_eq!(e.call(9999, &[]), ENOSYS);
    assert_eq!(e.call(9999, &[]), ENOSYS);
    assert_eq!(e.call(220, &[]), ENOSYS); // clone: a single-threaded process cannot
    assert_eq!(e.call(nr::STATX, &[]), ENOSYS); // known, glibc falls back to newfstatat
    assert_eq!(e.call(nr::RSEQ, &[]), ENOSYS);
    assert_eq!(e.call(nr::GETPID, &[]), 1000);
    let unknown: Vec<_> = e
        .linux
        .unknown_syscalls()
        .iter()
        .map(|(&k, &v)| (k, v))
        .collect();
    assert_eq!(unknown, vec![(220, 1), (9999, 2)]);
    assert_eq!(e.linux.syscall_counts().get(&nr::STATX), Some(&1));
    assert_eq!(e.linux.syscall_counts().values().sum::<u64>(), 6);
    assert_eq!(Linux::syscall_name(63), Some("read"));
    assert_eq!(Linux::syscall_name(220), Some("clone"));
    assert_eq!(Linux::syscall_name(258), Some("riscv_hwprobe"));
    assert_eq!(Linux::syscall_name(9999), None);
}

/// The numbers this test file uses agree with the name table (itself generated from the
/// riscv64 toolchain's <asm/unistd.h>).
#[test]
fn syscall_numbers_match_their_names() {
    for (n, name) in [
        (nr::GETCWD, "getcwd"),
        (nr::OPENAT, "openat"),
        (nr::READLINKAT, "readlinkat"),
        (nr::NEWFSTATAT, "newfstatat"),
        (nr::FSTAT, "fstat"),
        (nr::EXIT_GROUP, "exit_group"),
        (nr::FUTEX, "futex"),
        (nr::CLOCK_GETTIME, "clock_gettime"),
        (nr::TGKILL, "tgkill"),
        (nr::RT_SIGACTION, "rt_sigaction"),
        (nr::UNAME, "uname"),
        (nr::BRK, "brk"),
        (nr::MMAP, "mmap"),
        (nr::MREMAP, "mremap"),
        (nr::PRLIMIT64, "prlimit64"),
        (nr::GETRANDOM, "getrandom"),
        (nr::STATX, "statx"),
        (nr::RSEQ, "rseq"),
        (nr::MKDIRAT, "mkdirat"),
        (nr::UNLINKAT, "unlinkat"),
        (nr::FTRUNCATE, "ftruncate"),
        (nr::FSYNC, "fsync"),
        (nr::SYSINFO, "sysinfo"),
        (nr::GETDENTS64, "getdents64"),
    ] {
        assert_eq!(Linux::syscall_name(n), Some(name));
    }
}

#[test]
fn brk_grows_reads_zero_and_fails_like_linux() {
    let mut e = Env::with_mem(cfg(), 16 << 20);
    let start = e.call(nr::BRK, &[0]) as u64;
    assert_eq!(start, 0x13000);
    assert_eq!(e.call(nr::BRK, &[start + 0x5000]) as u64, start + 0x5000);
    assert!(e.mem.slice(start, 0x5000).unwrap().iter().all(|&b| b == 0));
    e.mem.write_bytes(start, &[1; 0x5000]).unwrap();
    assert_eq!(e.call(nr::BRK, &[start]) as u64, start);
    assert_eq!(e.call(nr::BRK, &[start + 0x5000]) as u64, start + 0x5000);
    assert!(e.mem.slice(start, 0x5000).unwrap().iter().all(|&b| b == 0));
    // Into the stack: refused, the old break comes back.
    let end = e.mem.end();
    assert_eq!(e.call(nr::BRK, &[end - 0x1000]) as u64, start + 0x5000);
    assert_eq!(e.call(nr::BRK, &[0x1000]) as u64, start + 0x5000);
}

const PROT_RW: u64 = 3;
const MAP_PRIVATE_ANON: u64 = 0x22;

#[test]
fn mmap_munmap_mremap_and_the_memory_cap() {
    let mut e = Env::with_mem(cfg(), 16 << 20);
    let stack_lo = e.mem.end() - (8 << 20);
    let a = e.call(
        nr::MMAP,
        &[0, 10000, PROT_RW, MAP_PRIVATE_ANON, -1i64 as u64, 0],
    ) as u64;
    assert_eq!(a, stack_lo - 0x3000);
    assert!(e.mem.slice(a, 0x3000).unwrap().iter().all(|&b| b == 0));
    e.mem.write_bytes(a, b"old contents").unwrap();
    // Grow: cannot extend upwards into the stack, so it moves with its contents.
    let b = e.call(nr::MREMAP, &[a, 0x3000, 0x8000, 1, 0]) as u64;
    assert_eq!(b, stack_lo - 0x3000 - 0x8000);
    assert_eq!(e.mem.slice(b, 12).unwrap(), b"old contents");
    assert_eq!(e.call(nr::MREMAP, &[b, 0x8000, 0x10000, 0, 0]), ENOMEM);
    assert_eq!(e.call(nr::MREMAP, &[b + 1, 0x1000, 0x2000, 1, 0]), EINVAL);
    assert_eq!(e.call(nr::MREMAP, &[a, 0x3000, 0x4000, 1, 0]), EFAULT); // a is gone
                                                                        // The space a left is reused, zeroed.
    e.mem.write_bytes(a, &[7; 0x3000]).unwrap();
    let c = e.call(
        nr::MMAP,
        &[0, 0x3000, PROT_RW, MAP_PRIVATE_ANON, -1i64 as u64, 0],
    ) as u64;
    assert_eq!(c, a);
    assert!(e.mem.slice(c, 0x3000).unwrap().iter().all(|&b| b == 0));
    // MADV_DONTNEED zeroes anonymous memory; mprotect is accepted.
    e.mem.write_bytes(c, &[7; 16]).unwrap();
    assert_eq!(e.call(nr::MADVISE, &[c, 0x1000, 4]), 0);
    assert_eq!(e.mem.load_u::<8>(c).unwrap(), 0);
    assert_eq!(e.call(nr::MPROTECT, &[c, 0x1000, 1]), 0);
    assert_eq!(e.call(nr::MPROTECT, &[c + 1, 0x1000, 1]), EINVAL);
    assert_eq!(e.call(nr::MUNMAP, &[c + 1, 0x1000]), EINVAL);
    assert_eq!(e.call(nr::MUNMAP, &[c, 0]), EINVAL);
    assert_eq!(e.call(nr::MUNMAP, &[c, 0x3000]), 0);
    // Bad arguments.
    assert_eq!(
        e.call(
            nr::MMAP,
            &[0, 0, PROT_RW, MAP_PRIVATE_ANON, -1i64 as u64, 0]
        ),
        EINVAL
    );
    assert_eq!(
        e.call(nr::MMAP, &[0, 4096, PROT_RW, 0x20, -1i64 as u64, 0]),
        EINVAL
    );
    assert_eq!(e.call(nr::MMAP, &[0, 4096, PROT_RW, 2, 55, 0]), EBADF);
    assert_eq!(e.call(nr::MMAP, &[0, 4096, PROT_RW, 2, 1, 0]), -19); // ENODEV
    assert_eq!(
        e.call(
            nr::MMAP,
            &[0, u64::MAX, PROT_RW, MAP_PRIVATE_ANON, -1i64 as u64, 0]
        ),
        ENOMEM
    );
    // MAP_FIXED and MAP_FIXED_NOREPLACE.
    let fixed = stack_lo - 0x40_0000;
    let flags_fixed = MAP_PRIVATE_ANON | 0x10;
    assert_eq!(
        e.call(
            nr::MMAP,
            &[fixed, 0x2000, PROT_RW, flags_fixed, -1i64 as u64, 0]
        ) as u64,
        fixed
    );
    let noreplace = MAP_PRIVATE_ANON | 0x10_0000;
    assert_eq!(
        e.call(
            nr::MMAP,
            &[fixed, 0x1000, PROT_RW, noreplace, -1i64 as u64, 0]
        ),
        EEXIST
    );
    assert_eq!(
        e.call(
            nr::MMAP,
            &[fixed + 1, 0x1000, PROT_RW, flags_fixed, -1i64 as u64, 0]
        ),
        EINVAL
    );
    // The memory cap: mapping until the span is exhausted ends in ENOMEM, and then the
    // break cannot grow either.
    let mut total = 0u64;
    loop {
        let r = e.call(
            nr::MMAP,
            &[0, 0x10_0000, PROT_RW, MAP_PRIVATE_ANON, -1i64 as u64, 0],
        );
        if r == ENOMEM {
            break;
        }
        assert!(r > 0);
        total += 0x10_0000;
        assert!(total < 16 << 20, "never ran out");
    }
    let brk = e.call(nr::BRK, &[0]) as u64;
    assert_eq!(e.call(nr::BRK, &[brk + 0x10_0000]) as u64, brk);
}

#[test]
fn clocks_follow_instructions_and_sleeps() {
    let mut e = Env::new(cfg());
    let ts = SCRATCH;
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[0, ts]), 0);
    assert_eq!(e.words(ts, 2), vec![EPOCH_SECS, 0]);
    assert_eq!(EPOCH_SECS, 1_767_225_600); // 2026-01-01T00:00:00Z
    e.instret = 1_500_000_123;
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[0, ts]), 0);
    assert_eq!(e.words(ts, 2), vec![EPOCH_SECS + 1, 500_000_123]);
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[1, ts]), 0); // MONOTONIC
    assert_eq!(e.words(ts, 2), vec![1, 500_000_123]);
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[99, ts]), EINVAL);
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[0, BAD]), EFAULT);
    // nanosleep(2.25 s) advances the monotonic and real clocks but not CPU time.
    e.put_words(ts + 64, &[2, 250_000_000]);
    assert_eq!(e.call(nr::NANOSLEEP, &[ts + 64, 0]), 0);
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[1, ts]), 0);
    assert_eq!(e.words(ts, 2), vec![3, 750_000_123]);
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[2, ts]), 0); // PROCESS_CPUTIME_ID
    assert_eq!(e.words(ts, 2), vec![1, 500_000_123]);
    e.put_words(ts + 64, &[0, 1_000_000_000]);
    assert_eq!(e.call(nr::NANOSLEEP, &[ts + 64, 0]), EINVAL);
    // clock_nanosleep to an absolute monotonic time of 10 s.
    e.put_words(ts + 64, &[10, 0]);
    assert_eq!(e.call(nr::CLOCK_NANOSLEEP, &[1, 1, ts + 64, 0]), 0);
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[1, ts]), 0);
    assert_eq!(e.words(ts, 2), vec![10, 0]);
    assert_eq!(e.call(nr::GETTIMEOFDAY, &[ts, ts + 16]), 0);
    assert_eq!(e.words(ts, 3), vec![EPOCH_SECS + 10, 0, 0]);
    assert_eq!(e.call(nr::CLOCK_GETRES, &[1, ts]), 0);
    assert_eq!(e.words(ts, 2), vec![0, 1]);
    assert_eq!(e.call(nr::CLOCK_GETRES, &[1, 0]), 0);
    assert_eq!(e.call(nr::CLOCK_GETRES, &[77, ts]), EINVAL);
}

#[test]
fn identity_uname_limits_affinity_and_hwprobe() {
    let mut e = Env::new(cfg());
    assert_eq!(e.call(nr::GETPID, &[]), 1000);
    assert_eq!(e.call(nr::GETTID, &[]), 1000);
    assert_eq!(e.call(nr::GETPPID, &[]), 1);
    assert_eq!(e.call(nr::GETUID, &[]), 1000);
    assert_eq!(e.call(nr::GETEGID, &[]), 1000);
    assert_eq!(e.call(nr::SET_TID_ADDRESS, &[SCRATCH]), 1000);
    assert_eq!(e.linux.clear_child_tid(), SCRATCH);
    assert_eq!(e.call(nr::SET_ROBUST_LIST, &[SCRATCH, 24]), 0);
    assert_eq!(e.call(nr::SET_ROBUST_LIST, &[SCRATCH, 8]), EINVAL);
    assert_eq!(e.call(nr::SCHED_YIELD, &[]), 0);

    assert_eq!(e.call(nr::UNAME, &[SCRATCH]), 0);
    let field = |e: &Env, i: u64| e.mem.read_cstr(SCRATCH + 65 * i, 65).unwrap().to_vec();
    assert_eq!(field(&e, 0), b"Linux");
    assert_eq!(field(&e, 2), isa_emu::linux::RELEASE.as_bytes());
    assert_eq!(field(&e, 4), b"riscv64");
    assert_eq!(e.call(nr::UNAME, &[BAD]), EFAULT);

    // RLIMIT_STACK reports the configured stack; a new limit is stored and read back.
    assert_eq!(e.call(nr::PRLIMIT64, &[0, 3, 0, SCRATCH]), 0);
    assert_eq!(e.words(SCRATCH, 2), vec![8 << 20, u64::MAX]);
    e.put_words(SCRATCH + 16, &[100, 200]);
    assert_eq!(e.call(nr::PRLIMIT64, &[0, 7, SCRATCH + 16, SCRATCH]), 0);
    assert_eq!(e.words(SCRATCH, 2), vec![1024, 1024]);
    assert_eq!(e.call(nr::PRLIMIT64, &[1000, 7, 0, SCRATCH]), 0);
    assert_eq!(e.words(SCRATCH, 2), vec![100, 200]);
    e.put_words(SCRATCH + 16, &[300, 200]);
    assert_eq!(e.call(nr::PRLIMIT64, &[0, 7, SCRATCH + 16, 0]), EINVAL);
    assert_eq!(e.call(nr::PRLIMIT64, &[0, 16, 0, SCRATCH]), EINVAL);
    assert_eq!(e.call(nr::PRLIMIT64, &[5, 3, 0, SCRATCH]), ESRCH);

    assert_eq!(e.call(nr::SCHED_GETAFFINITY, &[0, 128, SCRATCH]), 8);
    assert_eq!(e.words(SCRATCH, 1), vec![1]);
    assert_eq!(e.call(nr::SCHED_GETAFFINITY, &[0, 4, SCRATCH]), EINVAL);

    // sysinfo: RAM is the memory span; all of it but the image, break and stack is free.
    e.instret = 5_000_000_000;
    assert_eq!(e.call(nr::SYSINFO, &[SCRATCH]), 0);
    let info = e.words(SCRATCH, 14);
    assert_eq!(info[0], 5); // uptime, seconds
    assert_eq!(info[4], 64 << 20); // totalram
    let (brk, stack_lo) = (0x13000, e.mem.end() - (8 << 20));
    assert_eq!(info[5], stack_lo - brk); // freeram
    assert_eq!(info[10] & 0xffff, 1); // procs
    assert_eq!(info[13] & 0xffff_ffff, 1); // mem_unit
    assert_eq!(e.call(nr::SYSINFO, &[BAD]), EFAULT);

    // riscv_hwprobe: base IMA, IMA_EXT_0 = FD | C, unknown keys answered with key -1.
    e.put_words(SCRATCH, &[3, 0, 4, 0, 99, 0]);
    assert_eq!(e.call(nr::RISCV_HWPROBE, &[SCRATCH, 3, 0, 0, 0]), 0);
    assert_eq!(e.words(SCRATCH, 6), vec![3, 1, 4, 3, u64::MAX, 0]);
    assert_eq!(e.call(nr::RISCV_HWPROBE, &[SCRATCH, 1, 0, 0, 1]), EINVAL);
}

#[test]
fn getrandom_is_deterministic_per_seed() {
    let draw = |seed: u64| {
        let mut e = Env::new(LinuxConfig { seed, ..cfg() });
        assert_eq!(e.call(nr::GETRANDOM, &[SCRATCH, 32, 1]), 32);
        e.mem.slice(SCRATCH, 32).unwrap().to_vec()
    };
    assert_eq!(draw(5), draw(5));
    assert_ne!(draw(5), draw(6));
    let mut e = Env::new(cfg());
    assert_eq!(e.call(nr::GETRANDOM, &[SCRATCH, 8, 8]), EINVAL);
    assert_eq!(e.call(nr::GETRANDOM, &[SCRATCH, 8, 6]), EINVAL);
    assert_eq!(e.call(nr::GETRANDOM, &[BAD, 8, 0]), EFAULT);
}

#[test]
fn terminals_are_never_found() {
    let mut e = Env::new(cfg());
    for fd in 0..3 {
        assert_eq!(e.call(nr::IOCTL, &[fd, 0x5401, SCRATCH]), ENOTTY); // TCGETS
        assert_eq!(e.call(nr::IOCTL, &[fd, 0x5413, SCRATCH]), ENOTTY); // TIOCGWINSZ
    }
    assert_eq!(e.call(nr::IOCTL, &[5, 0x5401, SCRATCH]), EBADF);
    // The standard streams are pipes: glibc buffers them the same on every host.
    assert_eq!(e.call(nr::FSTAT, &[1, SCRATCH]), 0);
    assert_eq!(e.mem.load_u::<4>(SCRATCH + 16).unwrap(), 0o010600); // S_IFIFO | 0600
    let empty = e.cstr(SCRATCH + 512, b"");
    assert_eq!(e.call(nr::NEWFSTATAT, &[1, empty, SCRATCH, 0x1000]), 0);
    assert_eq!(e.mem.load_u::<4>(SCRATCH + 16).unwrap(), 0o010600);
    assert_eq!(e.call(nr::FSTAT, &[1, BAD]), EFAULT);
    assert_eq!(e.call(nr::FSTAT, &[9, SCRATCH]), EBADF);
}

#[test]
fn signals_are_recorded_and_fatal_ones_end_the_run() {
    let mut e = Env::new(cfg());
    let (act, old) = (SCRATCH, SCRATCH + 64);
    e.put_words(act, &[0x1234, 0x4000_0000, 0x5]);
    assert_eq!(e.call(nr::RT_SIGACTION, &[10, act, 0, 8]), 0);
    assert_eq!(e.call(nr::RT_SIGACTION, &[10, 0, old, 8]), 0);
    assert_eq!(e.words(old, 3), vec![0x1234, 0x4000_0000, 0x5]);
    assert_eq!(e.call(nr::RT_SIGACTION, &[9, act, 0, 8]), EINVAL); // SIGKILL
    assert_eq!(e.call(nr::RT_SIGACTION, &[65, 0, old, 8]), EINVAL);
    assert_eq!(e.call(nr::RT_SIGACTION, &[10, 0, old, 16]), EINVAL);
    assert_eq!(e.call(nr::RT_SIGACTION, &[10, BAD, 0, 8]), EFAULT);
    // Block SIGUSR1 (10) and SIGKILL: SIGKILL cannot be blocked.
    e.put_words(act, &[(1 << 9) | (1 << 8)]);
    assert_eq!(e.call(nr::RT_SIGPROCMASK, &[0, act, old, 8]), 0);
    assert_eq!(e.words(old, 1), vec![0]);
    assert_eq!(e.call(nr::RT_SIGPROCMASK, &[2, 0, old, 8]), 0);
    assert_eq!(e.words(old, 1), vec![1 << 9]);
    assert_eq!(e.call(nr::RT_SIGPROCMASK, &[7, act, 0, 8]), EINVAL);
    // sigaltstack starts disabled (SS_DISABLE = 2) and records what it is given.
    assert_eq!(e.call(nr::SIGALTSTACK, &[0, old]), 0);
    assert_eq!(e.words(old, 3), vec![0, 2, 0]);
    e.put_words(act, &[0x8000, 0, 0x4000]);
    assert_eq!(e.call(nr::SIGALTSTACK, &[act, 0]), 0);
    assert_eq!(e.call(nr::SIGALTSTACK, &[0, old]), 0);
    assert_eq!(e.words(old, 3), vec![0x8000, 0, 0x4000]);
    // A blocked signal stays pending; an ignored one by default too; SIGABRT kills.
    assert_eq!(e.call(nr::TGKILL, &[1000, 1000, 10]), 0);
    assert_eq!(e.call(nr::KILL, &[1000, 17]), 0); // SIGCHLD
    assert_eq!(e.call(nr::KILL, &[1000, 0]), 0);
    assert_eq!(e.call(nr::KILL, &[4242, 6]), EPERM);
    assert_eq!(e.call(nr::TGKILL, &[1000, 4242, 6]), ESRCH);
    assert_eq!(
        e.outcome(nr::TGKILL, &[1000, 1000, 6]),
        SyscallOutcome::Exit(134)
    );
}

#[test]
fn futex_for_one_thread() {
    let mut e = Env::new(cfg());
    e.mem.store_u::<4>(SCRATCH, 5).unwrap();
    assert_eq!(e.call(nr::FUTEX, &[SCRATCH, 1, 1]), 0); // WAKE
    assert_eq!(e.call(nr::FUTEX, &[SCRATCH, 129, 1]), 0); // WAKE | PRIVATE
    assert_eq!(e.call(nr::FUTEX, &[SCRATCH, 0, 4, 0]), EAGAIN); // value changed
    assert_eq!(e.call(nr::FUTEX, &[SCRATCH, 0, 5, 0]), EAGAIN); // would block forever
    assert_eq!(e.call(nr::FUTEX, &[SCRATCH + 2, 0, 5, 0]), EINVAL);
    assert_eq!(e.call(nr::FUTEX, &[BAD, 0, 5, 0]), EFAULT);
    // A timed wait lets the timeout pass.
    e.put_words(SCRATCH + 64, &[3, 0]);
    assert_eq!(
        e.call(nr::FUTEX, &[SCRATCH, 128, 5, SCRATCH + 64]),
        ETIMEDOUT
    );
    assert_eq!(e.call(nr::CLOCK_GETTIME, &[1, SCRATCH + 64]), 0);
    assert_eq!(e.words(SCRATCH + 64, 2), vec![3, 0]);
    assert_eq!(e.call(nr::FUTEX, &[SCRATCH, 6, 0, 0]), ENOSYS); // LOCK_PI
}

/// A sandbox directory with a file, a subdirectory, a symlink inside and one leading out.
fn sandbox() -> (std::path::PathBuf, std::path::PathBuf) {
    let top = temp_dir("syscalls");
    let root = top.join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("data.txt"), b"0123456789").unwrap();
    std::fs::write(root.join("sub/inner.txt"), b"inner").unwrap();
    std::fs::write(top.join("secret.txt"), b"secret").unwrap();
    std::os::unix::fs::symlink(top.join("secret.txt"), root.join("escape")).unwrap();
    std::os::unix::fs::symlink("data.txt", root.join("alias")).unwrap();
    (top, root)
}

#[test]
fn files_inside_the_allowed_directory() {
    let (top, root) = sandbox();
    let mut e = Env::new(LinuxConfig {
        allow_dir: Some(root.clone()),
        ..cfg()
    });
    let path = e.cstr(SCRATCH + 2048, b"data.txt");
    let fd = e.call(nr::OPENAT, &[AT_FDCWD, path, 0, 0]);
    assert_eq!(fd, 3);
    let fd = fd as u64;
    assert_eq!(e.call(nr::READ, &[fd, SCRATCH, 4]), 4);
    assert_eq!(e.mem.slice(SCRATCH, 4).unwrap(), b"0123");
    assert_eq!(e.call(nr::LSEEK, &[fd, 2, 1]), 6);
    assert_eq!(e.call(nr::READ, &[fd, SCRATCH, 100]), 4);
    assert_eq!(e.mem.slice(SCRATCH, 4).unwrap(), b"6789");
    assert_eq!(e.call(nr::LSEEK, &[fd, -3i64 as u64, 2]), 7);
    assert_eq!(e.call(nr::LSEEK, &[fd, -3i64 as u64, 0]), EINVAL);
    assert_eq!(e.call(nr::PREAD64, &[fd, SCRATCH, 3, 1]), 3);
    assert_eq!(e.mem.slice(SCRATCH, 3).unwrap(), b"123");
    assert_eq!(e.call(nr::FSTAT, &[fd, SCRATCH]), 0);
    assert_eq!(e.mem.load_u::<8>(SCRATCH + 48).unwrap(), 10); // st_size
    assert_eq!(e.call(nr::WRITE, &[fd, SCRATCH, 1]), EBADF); // opened read-only
    let d = e.call(nr::DUP, &[fd]) as u64;
    assert_eq!(d, 4);
    assert_eq!(e.call(nr::DUP3, &[fd, 10, 0]), 10);
    assert_eq!(e.call(nr::DUP3, &[fd, fd, 0]), EINVAL);
    assert_eq!(e.call(nr::FCNTL, &[fd, 3, 0]), 0); // F_GETFL: O_RDONLY
    assert_eq!(e.call(nr::FCNTL, &[fd, 1030, 20]), 20); // F_DUPFD_CLOEXEC
    for f in [fd, d, 10, 20] {
        assert_eq!(e.call(nr::CLOSE, &[f]), 0);
    }

    // Create, write, read back through a directory descriptor; mmap the file.
    let sub = e.cstr(SCRATCH + 2048, b"sub");
    let dirfd = e.call(nr::OPENAT, &[AT_FDCWD, sub, 0o200000, 0]) as u64; // O_DIRECTORY
    let name = e.cstr(SCRATCH + 2048, b"new.txt");
    let w = e.call(nr::OPENAT, &[dirfd, name, 0o101, 0o644]) as u64; // O_WRONLY|O_CREAT
    e.mem.write_bytes(SCRATCH, b"written by the guest").unwrap();
    assert_eq!(e.call(nr::WRITE, &[w, SCRATCH, 20]), 20);
    assert_eq!(e.call(nr::PWRITE64, &[w, SCRATCH, 7, 100]), 7);
    assert_eq!(e.call(nr::CLOSE, &[w]), 0);
    let body = std::fs::read(root.join("sub/new.txt")).unwrap();
    assert_eq!(&body[..20], b"written by the guest");
    assert_eq!(body.len(), 107);
    assert_eq!(e.call(nr::OPENAT, &[dirfd, name, 0o301, 0o644]), EEXIST); // O_EXCL
    let file = e.cstr(SCRATCH + 3072, b"data.txt");
    assert_eq!(e.call(nr::OPENAT, &[AT_FDCWD, file, 0o200000, 0]), ENOTDIR);
    let r = e.call(nr::OPENAT, &[AT_FDCWD, file, 0, 0]) as u64;
    let m = e.call(nr::MMAP, &[0, 5000, 1, 2, r, 0]) as u64; // PROT_READ, MAP_PRIVATE
    assert_eq!(e.mem.slice(m, 10).unwrap(), b"0123456789");
    assert!(e.mem.slice(m + 10, 8182).unwrap().iter().all(|&b| b == 0));
    assert_eq!(e.call(nr::MMAP, &[0, 5000, 1, 2, r, 100]), EINVAL); // unaligned offset

    // stat by path, access, links, the working directory.
    let alias = e.cstr(SCRATCH + 2048, b"alias");
    assert_eq!(e.call(nr::NEWFSTATAT, &[AT_FDCWD, alias, SCRATCH, 0]), 0);
    assert_eq!(e.mem.load_u::<8>(SCRATCH + 48).unwrap(), 10);
    assert_eq!(
        e.call(nr::NEWFSTATAT, &[AT_FDCWD, alias, SCRATCH, 0x100]),
        0
    );
    assert_eq!(
        e.mem.load_u::<4>(SCRATCH + 16).unwrap() & 0o170000,
        0o120000
    ); // S_IFLNK
    assert_eq!(e.call(nr::FACCESSAT, &[AT_FDCWD, alias, 4]), 0); // R_OK
    assert_eq!(e.call(nr::FACCESSAT, &[AT_FDCWD, alias, 1]), EACCES); // X_OK on 0644
    assert_eq!(e.call(nr::FACCESSAT, &[AT_FDCWD, alias, 8]), EINVAL);
    assert_eq!(e.call(nr::READLINKAT, &[AT_FDCWD, alias, SCRATCH, 100]), 8);
    assert_eq!(e.mem.slice(SCRATCH, 8).unwrap(), b"data.txt");
    assert_eq!(
        e.call(nr::READLINKAT, &[AT_FDCWD, file, SCRATCH, 100]),
        EINVAL
    ); // not a link
    let cwd = root.canonicalize().unwrap();
    let cwd = cwd.to_str().unwrap().as_bytes();
    assert_eq!(e.call(nr::GETCWD, &[SCRATCH, 4096]), cwd.len() as i64 + 1);
    assert_eq!(e.mem.read_cstr(SCRATCH, 4096).unwrap(), cwd);
    assert_eq!(e.call(nr::GETCWD, &[SCRATCH, 3]), ERANGE);

    // Directories and removal; truncation.
    let dir = e.cstr(SCRATCH + 2048, b"made");
    assert_eq!(e.call(nr::MKDIRAT, &[AT_FDCWD, dir, 0o755]), 0);
    assert!(root.join("made").is_dir());
    assert_eq!(e.call(nr::MKDIRAT, &[AT_FDCWD, dir, 0o755]), EEXIST);
    assert_eq!(e.call(nr::UNLINKAT, &[AT_FDCWD, dir, 0]), -21); // EISDIR
    assert_eq!(e.call(nr::UNLINKAT, &[AT_FDCWD, dir, 0x200]), 0);
    assert!(!root.join("made").exists());
    let w = e.call(nr::OPENAT, &[AT_FDCWD, file, 2, 0]) as u64; // O_RDWR
    assert_eq!(e.call(nr::FTRUNCATE, &[w, 3]), 0);
    assert_eq!(e.call(nr::FSYNC, &[w]), 0);
    assert_eq!(std::fs::read(root.join("data.txt")).unwrap(), b"012");
    assert_eq!(e.call(nr::FTRUNCATE, &[1, 3]), EINVAL);
    let alias = e.cstr(SCRATCH + 2048, b"alias");
    assert_eq!(e.call(nr::UNLINKAT, &[AT_FDCWD, alias, 0]), 0); // the link, not its target
    assert!(root.join("data.txt").exists() && !root.join("alias").exists());
    std::fs::remove_dir_all(&top).unwrap();
}

#[test]
fn escapes_from_the_allowed_directory_are_refused() {
    let (top, root) = sandbox();
    let mut e = Env::new(LinuxConfig {
        allow_dir: Some(root.join("sub")),
        ..cfg()
    });
    let secret = top.join("secret.txt");
    let attempts: Vec<Vec<u8>> = vec![
        b"../data.txt".to_vec(),
        b"../../secret.txt".to_vec(),
        b"./../sub/../../secret.txt".to_vec(),
        b"/etc/passwd".to_vec(),
        secret.to_str().unwrap().as_bytes().to_vec(),
        root.join("data.txt").to_str().unwrap().as_bytes().to_vec(),
    ];
    for p in &attempts {
        let path = e.cstr(SCRATCH + 2048, p);
        let r = e.call(nr::OPENAT, &[AT_FDCWD, path, 0, 0]);
        assert_eq!(r, EACCES, "{}", String::from_utf8_lossy(p));
        assert_eq!(
            e.call(nr::NEWFSTATAT, &[AT_FDCWD, path, SCRATCH, 0]),
            EACCES
        );
        assert_eq!(e.call(nr::FACCESSAT, &[AT_FDCWD, path, 0]), EACCES);
        let create = e.call(nr::OPENAT, &[AT_FDCWD, path, 0o101, 0o644]);
        assert!(create == EACCES || create == ENOENT, "{create}");
        let unlink = e.call(nr::UNLINKAT, &[AT_FDCWD, path, 0]);
        assert!(unlink == EACCES || unlink == ENOENT, "{unlink}");
        let mkdir = e.call(nr::MKDIRAT, &[AT_FDCWD, path, 0o755]);
        assert!(
            mkdir == EACCES || mkdir == ENOENT || mkdir == EEXIST,
            "{mkdir}"
        );
    }
    assert_eq!(std::fs::read(top.join("secret.txt")).unwrap(), b"secret");
    assert_eq!(std::fs::read(root.join("data.txt")).unwrap(), b"0123456789");
    // Symlinks leading out, from the root directory.
    let mut e = Env::new(LinuxConfig {
        allow_dir: Some(root.clone()),
        ..cfg()
    });
    let escape = e.cstr(SCRATCH + 2048, b"escape");
    assert_eq!(e.call(nr::OPENAT, &[AT_FDCWD, escape, 0, 0]), EACCES);
    assert_eq!(
        e.call(nr::OPENAT, &[AT_FDCWD, escape, 0o1101, 0o644]),
        EACCES
    );
    assert_eq!(std::fs::read(&secret).unwrap(), b"secret");
    let missing = e.cstr(SCRATCH + 2048, b"missing.txt");
    assert_eq!(e.call(nr::OPENAT, &[AT_FDCWD, missing, 0, 0]), ENOENT);
    // A relative path against a descriptor that is not a directory.
    assert_eq!(e.call(nr::OPENAT, &[1, missing, 0, 0]), ENOTDIR);
    assert_eq!(e.call(nr::OPENAT, &[77, missing, 0, 0]), EBADF);
    // Bad and overlong paths.
    assert_eq!(e.call(nr::OPENAT, &[AT_FDCWD, BAD, 0, 0]), EFAULT);
    e.mem.write_bytes(SCRATCH, &[b'a'; 8192]).unwrap();
    assert_eq!(e.call(nr::OPENAT, &[AT_FDCWD, SCRATCH, 0, 0]), ENAMETOOLONG);
    std::fs::remove_dir_all(&top).unwrap();
}

#[test]
fn without_an_allowed_directory_no_host_file_is_reachable() {
    let mut e = Env::new(cfg());
    for p in [&b"/etc/passwd"[..], b"Cargo.toml", b"."] {
        let path = e.cstr(SCRATCH + 2048, p);
        assert_eq!(e.call(nr::OPENAT, &[AT_FDCWD, path, 0, 0]), EACCES);
    }
    assert_eq!(e.call(nr::GETCWD, &[SCRATCH, 100]), 2);
    assert_eq!(e.mem.read_cstr(SCRATCH, 100).unwrap(), b"/");
    // /proc/self/exe is argv[0], truncated to the buffer as readlink does.
    let exe = e.cstr(SCRATCH + 2048, b"/proc/self/exe");
    assert_eq!(e.call(nr::READLINKAT, &[AT_FDCWD, exe, SCRATCH, 4096]), 9);
    assert_eq!(e.mem.slice(SCRATCH, 9).unwrap(), b"/bin/prog");
    assert_eq!(
        e.call(nr::READLINKAT, &[AT_FDCWD, exe, SCRATCH + 100, 4]),
        4
    );
    assert_eq!(e.mem.slice(SCRATCH + 100, 4).unwrap(), b"/bin");
    assert_eq!(e.call(nr::READLINKAT, &[AT_FDCWD, exe, SCRATCH, 0]), EINVAL);
    assert_eq!(e.call(nr::READLINKAT, &[AT_FDCWD, exe, BAD, 10]), EFAULT);
    // A relative argv[0] is made absolute (glibc's _dl_get_origin asserts it is).
    let mut e = Env::new(LinuxConfig {
        args: vec![b"./bin/../prog".to_vec()],
        ..cfg()
    });
    let exe = e.cstr(SCRATCH + 2048, b"/proc/self/exe");
    assert_eq!(e.call(nr::READLINKAT, &[AT_FDCWD, exe, SCRATCH, 4096]), 5);
    assert_eq!(e.mem.slice(SCRATCH, 5).unwrap(), b"/prog");
}

/// Parses `linux_dirent64` records: (d_off, d_type, name).
fn dirents(bytes: &[u8]) -> Vec<(u64, u8, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let off = get_u64(bytes, at + 8);
        let len = u16::from_le_bytes([bytes[at + 16], bytes[at + 17]]) as usize;
        let name = &bytes[at + 19..at + len];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap()];
        out.push((
            off,
            bytes[at + 18],
            String::from_utf8(name.to_vec()).unwrap(),
        ));
        assert_eq!(len % 8, 0);
        at += len;
    }
    out
}

#[test]
fn directory_listing_is_sorted_and_resumable() {
    let (top, root) = sandbox();
    let mut e = Env::new(LinuxConfig {
        allow_dir: Some(root.clone()),
        ..cfg()
    });
    let dot = e.cstr(SCRATCH + 3072, b".");
    let fd = e.call(nr::OPENAT, &[AT_FDCWD, dot, 0o200000, 0]) as u64;
    // Room for about two records at a time: the listing comes in pieces.
    let mut all = Vec::new();
    loop {
        let n = e.call(nr::GETDENTS64, &[fd, SCRATCH, 64]);
        assert!(n >= 0, "{n}");
        if n == 0 {
            break;
        }
        all.extend(dirents(e.mem.slice(SCRATCH, n as u64).unwrap()));
    }
    let names: Vec<(u8, &str)> = all.iter().map(|(_, t, n)| (*t, n.as_str())).collect();
    // DT_DIR 4, DT_LNK 10, DT_REG 8.
    assert_eq!(
        names,
        vec![
            (4, "."),
            (4, ".."),
            (10, "alias"),
            (8, "data.txt"),
            (10, "escape"),
            (4, "sub")
        ]
    );
    let offs: Vec<u64> = all.iter().map(|(o, _, _)| *o).collect();
    assert_eq!(offs, vec![1, 2, 3, 4, 5, 6]);
    // Rewind (rewinddir) and list again in one call; a tiny buffer is EINVAL.
    assert_eq!(e.call(nr::LSEEK, &[fd, 0, 0]), 0);
    assert_eq!(e.call(nr::GETDENTS64, &[fd, SCRATCH, 8]), EINVAL);
    let n = e.call(nr::GETDENTS64, &[fd, SCRATCH, 4096]);
    assert_eq!(dirents(e.mem.slice(SCRATCH, n as u64).unwrap()), all);
    assert_eq!(e.call(nr::GETDENTS64, &[fd, BAD, 4096]), 0); // at the end: nothing to write
    assert_eq!(e.call(nr::LSEEK, &[fd, 2, 0]), 2);
    assert_eq!(e.call(nr::GETDENTS64, &[fd, BAD, 4096]), EFAULT);
    assert_eq!(e.call(nr::GETDENTS64, &[1, SCRATCH, 4096]), ENOTDIR);
    let file = e.cstr(SCRATCH + 3072, b"data.txt");
    let f = e.call(nr::OPENAT, &[AT_FDCWD, file, 0, 0]) as u64;
    assert_eq!(e.call(nr::GETDENTS64, &[f, SCRATCH, 4096]), ENOTDIR);
    std::fs::remove_dir_all(&top).unwrap();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Any sequence of system calls with any arguments (pointers into memory, into the
    /// stack, unmapped, or arbitrary) returns a value or ends the run; it never panics. No
    /// host directory is allowed, so nothing on the host is touched.
    #[test]
    fn arbitrary_syscalls_never_panic(
        calls in proptest::collection::vec(
            (proptest::prop_oneof![
                0u64..460,
                proptest::sample::select(vec![
                    17u64, 23, 24, 25, 29, 34, 35, 46, 48, 56, 57, 61, 62, 63, 64, 65, 66, 67,
                    68, 78, 79, 80, 82, 96, 98, 99, 101, 113, 114, 115, 123, 124, 129, 131,
                    132, 134, 135, 160, 169, 179, 214, 215, 216, 222, 226, 233, 258, 261, 278,
                ]),
            ], proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::Just(SCRATCH),
                    proptest::prelude::Just(0u64),
                    proptest::prelude::Just(BAD),
                    proptest::prelude::Just(u64::MAX),
                    0u64..4096,
                    proptest::prelude::any::<u64>(),
                ], 6)),
            1..40),
    ) {
        let mut e = Env::with_mem(cfg(), 16 << 20);
        let sp = e.x[2];
        for (i, (number, mut args)) in calls.into_iter().enumerate() {
            if i % 3 == 0 {
                args[1] = sp; // a valid pointer into the stack
            }
            e.instret += 1000;
            if let SyscallOutcome::Exit(c) = e.outcome(number, &args) {
                proptest::prop_assert!((0..=255).contains(&c));
                break;
            }
        }
    }
}

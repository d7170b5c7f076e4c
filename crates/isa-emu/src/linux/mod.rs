//! Linux user mode: the process a statically linked RISC-V Linux program expects around it.
//!
//! [`Linux::setup`] lays out the initial stack (argv, envp, auxv) and the address space;
//! [`Linux::syscall`] performs one system call on the guest's registers and memory. The
//! environment is deterministic: time is a fixed epoch plus one nanosecond per retired
//! instruction (plus virtual sleeps), randomness comes from a PRNG seeded by
//! [`LinuxConfig::seed`], identities (pid, uid, host name) are fixed, and the standard
//! streams look like pipes whatever the host has, so a run's behaviour does not depend on
//! the host's clock, terminal or process table.
//!
//! Guests are untrusted: every guest pointer goes through [`Memory`]'s bounds checks (a bad
//! one gives `-EFAULT`), host files are reachable only under [`LinuxConfig::allow_dir`]
//! (see `fs.rs`), and unknown system calls return `-ENOSYS` and are counted.
//!
//! System calls (riscv64 generic numbers): files and streams (`read`, `write`, `readv`,
//! `writev`, `pread64`, `pwrite64`, `lseek`, `openat`, `close`, `dup`, `dup3`, `fcntl`,
//! `ioctl`, `fstat`, `newfstatat`, `faccessat`, `faccessat2`, `readlinkat`, `getcwd`,
//! `getdents64`, `mkdirat`, `unlinkat`, `ftruncate`, `fsync`); memory (`brk`, `mmap`,
//! `munmap`, `mremap`, `mprotect`, `madvise`); time (`clock_gettime`, `clock_getres`,
//! `gettimeofday`, `nanosleep`, `clock_nanosleep`); process (`exit`, `exit_group`,
//! `set_tid_address`, `set_robust_list`, `getpid`, `gettid`, `getppid`, `getuid`,
//! `geteuid`, `getgid`, `getegid`, `uname`, `sysinfo`, `prlimit64`, `getrandom`,
//! `sched_getaffinity`, `sched_yield`, `riscv_hwprobe`, `futex`); signals (`rt_sigaction`,
//! `rt_sigprocmask`, `sigaltstack`, `kill`, `tgkill`). `statx` and `rseq` answer `ENOSYS`
//! (glibc falls back to `newfstatat` and runs without rseq).
//!
//! Not enforced, by design of the flat memory: page protections (`mprotect` succeeds
//! without effect), advice other than `MADV_DONTNEED` (which zeroes anonymous mappings),
//! and resource limits (`prlimit64` stores and reports them). Signals are never delivered:
//! `rt_sigaction` and friends record their arguments, and a signal sent to the process with
//! `kill`/`tgkill` whose default action terminates it ends the run with status 128 + signal.

mod dir;
mod errno;
mod fs;
mod io;
mod mm;
mod process;
mod stack;
mod sysno;
mod time;

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::SeedableRng;
use rand_pcg::Pcg64;

use crate::elf::ElfImage;
use crate::memory::{MemFault, Memory};
use errno::{Errno, EFAULT, EINVAL, ENAMETOOLONG, ENOMEM, ENOSYS};
use fs::{FdTable, Sandbox};
use mm::{page_down, page_up, AddressSpace, PAGE};
use process::Signals;
use time::Clock;

pub use process::RELEASE;
pub use time::EPOCH_SECS;

/// Where the guest's standard input comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Input {
    /// The host process's standard input.
    #[default]
    Inherit,
    /// These bytes, then end of file.
    Bytes(Vec<u8>),
}

/// Where a guest output stream goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    /// The host process's stream of the same name.
    #[default]
    Inherit,
    /// Kept in memory; see [`Linux::stdout_captured`].
    Capture,
}

/// How to run a program.
#[derive(Clone, Debug)]
pub struct LinuxConfig {
    /// `argv`, including `argv[0]`.
    pub args: Vec<Vec<u8>>,
    /// `envp` entries (`NAME=value`).
    pub env: Vec<Vec<u8>>,
    /// Standard input.
    pub stdin: Input,
    /// Standard output.
    pub stdout: Output,
    /// Standard error.
    pub stderr: Output,
    /// The only host directory whose files the guest may open; also its working directory.
    /// `None`: no host file is reachable.
    pub allow_dir: Option<PathBuf>,
    /// The guest's working directory, a host path: relative paths are taken against it
    /// (and must still name files inside `allow_dir`). `None`: `allow_dir` itself.
    pub cwd: Option<PathBuf>,
    /// Seed of `AT_RANDOM` and `getrandom`.
    pub seed: u64,
    /// Bytes reserved for the stack at the top of guest memory.
    pub stack_size: u64,
}

/// Default stack size, Linux's usual `RLIMIT_STACK`: 8 MiB.
pub const DEFAULT_STACK_SIZE: u64 = 8 << 20;

impl Default for LinuxConfig {
    fn default() -> LinuxConfig {
        LinuxConfig {
            args: Vec::new(),
            env: Vec::new(),
            stdin: Input::Inherit,
            stdout: Output::Inherit,
            stderr: Output::Inherit,
            allow_dir: None,
            cwd: None,
            seed: 0,
            stack_size: DEFAULT_STACK_SIZE,
        }
    }
}

/// What the run loop does after a system call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyscallOutcome {
    /// Resume at the instruction after `ecall`.
    Continue,
    /// The process ended with this exit status (0..=255; 128 + signal for a fatal signal).
    Exit(i32),
}

/// Why the process could not be set up.
#[non_exhaustive]
#[derive(thiserror::Error, Debug)]
pub enum LinuxError {
    /// The memory span cannot hold the program, its break and the stack.
    #[error("guest memory [{mem_lo:#x}, {mem_hi:#x}) has no room for the program (ending at {image_end:#x}) and a {stack_size}-byte stack: raise the memory size or lower the stack size")]
    NoRoom {
        /// Memory start.
        mem_lo: u64,
        /// Memory end.
        mem_hi: u64,
        /// End of the highest segment.
        image_end: u64,
        /// Requested stack size.
        stack_size: u64,
    },
    /// Arguments and environment exceed a quarter of the stack, as Linux's `E2BIG` rule.
    #[error("arguments and environment need {needed} bytes, more than a quarter of the {stack_size}-byte stack: shorten them or raise the stack size")]
    ArgsTooLarge {
        /// Bytes needed.
        needed: u64,
        /// Stack size.
        stack_size: u64,
    },
    /// Writing the initial stack faulted.
    #[error("writing the initial stack: {0}")]
    Stack(MemFault),
}

/// The Linux user-mode environment of one process.
#[derive(Debug)]
pub struct Linux {
    args: Vec<Vec<u8>>,
    env: Vec<Vec<u8>>,
    stack_size: u64,
    stdin: Input,
    stdin_pos: usize,
    stdout: Output,
    stderr: Output,
    stdout_buf: Vec<u8>,
    stderr_buf: Vec<u8>,
    fds: FdTable,
    sandbox: Sandbox,
    space: AddressSpace,
    rng: Pcg64,
    clock: Clock,
    signals: Signals,
    limits: [(u64, u64); process::RLIM_NLIMITS],
    clear_child_tid: u64,
    counts: BTreeMap<u64, u64>,
    unknown: BTreeMap<u64, u64>,
}

/// Process id (and thread id) the guest sees.
pub const PID: u64 = 1000;
/// Parent process id the guest sees.
pub const PPID: u64 = 1;
/// User and group id the guest sees.
pub const UID: u32 = 1000;

impl Linux {
    /// A process that has not been set up yet ([`Linux::setup`]).
    pub fn new(config: LinuxConfig) -> Linux {
        Linux {
            sandbox: Sandbox::new(config.allow_dir.as_deref(), config.cwd.as_deref()),
            args: config.args,
            env: config.env,
            stack_size: config.stack_size,
            stdin: config.stdin,
            stdin_pos: 0,
            stdout: config.stdout,
            stderr: config.stderr,
            stdout_buf: Vec::new(),
            stderr_buf: Vec::new(),
            fds: FdTable::new(),
            space: AddressSpace::new(0, 0),
            rng: Pcg64::seed_from_u64(config.seed),
            clock: Clock::default(),
            signals: Signals::default(),
            limits: process::default_limits(config.stack_size),
            clear_child_tid: 0,
            counts: BTreeMap::new(),
            unknown: BTreeMap::new(),
        }
    }

    /// Lays out the initial stack at the top of `mem` exactly as the Linux kernel does for a
    /// static ELF (argc, argv pointers, NULL, envp, NULL, auxv: `AT_HWCAP` (RV64IMAFDC),
    /// `AT_PAGESZ`, `AT_CLKTCK`=100, `AT_PHDR`, `AT_PHENT`, `AT_PHNUM`, `AT_BASE`=0,
    /// `AT_FLAGS`=0, `AT_ENTRY`, `AT_UID`/`EUID`/`GID`/`EGID`, `AT_SECURE`=0, `AT_RANDOM`
    /// (16 seeded bytes), `AT_EXECFN` (argv\[0\]), `AT_NULL`; strings at the top, 16-byte
    /// aligned sp), reserves the stack, starts the program break at the page after the
    /// highest segment, and returns the initial sp.
    pub fn setup(&mut self, mem: &mut Memory, image: &ElfImage) -> Result<u64, LinuxError> {
        let top = mem.end() & !15;
        let image_end = image.highest_addr();
        let no_room = || LinuxError::NoRoom {
            mem_lo: mem.base(),
            mem_hi: mem.end(),
            image_end,
            stack_size: self.stack_size,
        };
        let brk_start = page_up(image_end).ok_or_else(no_room)?;
        let stack_lo = match top.checked_sub(self.stack_size).map(page_down) {
            Some(s) if s >= brk_start && s >= mem.base() => s,
            _ => return Err(no_room()),
        };
        let mut random = [0u8; 16];
        rand::RngCore::fill_bytes(&mut self.rng, &mut random);
        let info = stack::StackInfo {
            args: &self.args,
            env: &self.env,
            execfn: self.args.first().map_or(&[][..], Vec::as_slice),
            random,
            auxv: stack::auxv(
                image.phdr_addr,
                image.phent,
                image.phnum,
                image.entry,
                UID,
                UID,
            ),
        };
        let needed = stack::needed_bytes(&info);
        if needed > self.stack_size / 4 {
            return Err(LinuxError::ArgsTooLarge {
                needed,
                stack_size: self.stack_size,
            });
        }
        let sp = stack::build(mem, top, &info).map_err(LinuxError::Stack)?;
        self.space = AddressSpace::new(brk_start, stack_lo);
        Ok(sp)
    }

    /// Performs the system call whose number is `x[17]` with arguments `x[10..=15]`, and
    /// writes the result (or -errno) to `x[10]`. `instret` drives the virtual clock.
    pub fn syscall(&mut self, x: &mut [u64; 32], mem: &mut Memory, instret: u64) -> SyscallOutcome {
        let nr = x[17];
        let a = [x[10], x[11], x[12], x[13], x[14], x[15]];
        *self.counts.entry(nr).or_default() += 1;
        let now = self.clock.now(instret);
        let result = match nr {
            sysno::EXIT | sysno::EXIT_GROUP => {
                return SyscallOutcome::Exit((a[0] & 0xff) as i32);
            }
            sysno::KILL | sysno::TGKILL => match self.kill(nr, a) {
                Ok(Some(status)) => return SyscallOutcome::Exit(status),
                Ok(None) => Ok(0),
                Err(e) => Err(e),
            },
            sysno::READ => self.read(mem, a[0], a[1], a[2]),
            sysno::WRITE => self.write(mem, a[0], a[1], a[2]),
            sysno::READV => self.readv(mem, a[0], a[1], a[2]),
            sysno::WRITEV => self.writev(mem, a[0], a[1], a[2]),
            sysno::PREAD64 => self.pread(mem, a[0], a[1], a[2], a[3]),
            sysno::PWRITE64 => self.pwrite(mem, a[0], a[1], a[2], a[3]),
            sysno::LSEEK => self.lseek(a[0], a[1], a[2]),
            sysno::OPENAT => self.openat(mem, a[0], a[1], a[2], a[3]),
            sysno::CLOSE => self.fds.close(a[0]).map(|()| 0),
            sysno::DUP => self.dup(a[0]),
            sysno::DUP3 => self.dup3(a[0], a[1], a[2]),
            sysno::FCNTL => self.fcntl(a[0], a[1], a[2]),
            sysno::IOCTL => self.ioctl(a[0]),
            sysno::FSTAT => self.fstat(mem, a[0], a[1]),
            sysno::NEWFSTATAT => self.newfstatat(mem, a[0], a[1], a[2], a[3]),
            sysno::FACCESSAT => self.faccessat(mem, a[0], a[1], a[2], 0),
            sysno::FACCESSAT2 => self.faccessat(mem, a[0], a[1], a[2], a[3]),
            sysno::READLINKAT => self.readlinkat(mem, a[0], a[1], a[2], a[3]),
            sysno::GETCWD => self.getcwd(mem, a[0], a[1]),
            sysno::MKDIRAT => self.mkdirat(mem, a[0], a[1], a[2]),
            sysno::UNLINKAT => self.unlinkat(mem, a[0], a[1], a[2]),
            sysno::FTRUNCATE => self.ftruncate(a[0], a[1]),
            sysno::GETDENTS64 => self.getdents64(mem, a[0], a[1], a[2]),
            sysno::FSYNC => self.fds.get(a[0]).map(|_| 0),
            sysno::SYSINFO => self.sysinfo(mem, now, a[0]),
            sysno::BRK => Ok(self.space.brk(mem, a[0])),
            sysno::MMAP => self.mmap(mem, a),
            sysno::MUNMAP => self.munmap(a[0], a[1]),
            sysno::MREMAP => self.mremap(mem, a),
            sysno::MPROTECT => check_page_aligned(a[0]).map(|()| 0),
            sysno::MADVISE => self.madvise(mem, a[0], a[1], a[2]),
            sysno::CLOCK_GETTIME => time::clock_gettime(mem, now, instret, a[0], a[1]),
            sysno::CLOCK_GETRES => time::clock_getres(mem, a[0], a[1]),
            sysno::GETTIMEOFDAY => time::gettimeofday(mem, now, a[0], a[1]),
            sysno::NANOSLEEP => self.clock.nanosleep(mem, a[0]),
            sysno::CLOCK_NANOSLEEP => self.clock.clock_nanosleep(mem, instret, a[0], a[1], a[2]),
            sysno::FUTEX => self.futex(mem, instret, a),
            sysno::SET_TID_ADDRESS => {
                self.clear_child_tid = a[0];
                Ok(PID)
            }
            sysno::SET_ROBUST_LIST => process::set_robust_list(a[1]),
            sysno::GETPID | sysno::GETTID => Ok(PID),
            sysno::GETPPID => Ok(PPID),
            sysno::GETUID | sysno::GETEUID | sysno::GETGID | sysno::GETEGID => Ok(u64::from(UID)),
            sysno::UNAME => process::uname(mem, a[0]),
            sysno::PRLIMIT64 => self.prlimit(mem, a[0], a[1], a[2], a[3]),
            sysno::GETRANDOM => self.getrandom(mem, a[0], a[1], a[2]),
            sysno::RT_SIGACTION => self.signals.sigaction(mem, a[0], a[1], a[2], a[3]),
            sysno::RT_SIGPROCMASK => self.signals.sigprocmask(mem, a[0], a[1], a[2], a[3]),
            sysno::SIGALTSTACK => self.signals.sigaltstack(mem, a[0], a[1]),
            sysno::SCHED_GETAFFINITY => process::sched_getaffinity(mem, a[0], a[1], a[2]),
            sysno::SCHED_YIELD => Ok(0),
            sysno::RISCV_HWPROBE => process::riscv_hwprobe(mem, a),
            // Known, deliberately unsupported: glibc falls back (statx -> newfstatat) or
            // copes (rseq registration is optional).
            sysno::STATX | sysno::RSEQ => Err(ENOSYS),
            _ => {
                *self.unknown.entry(nr).or_default() += 1;
                Err(ENOSYS)
            }
        };
        x[10] = match result {
            Ok(v) => v,
            Err(Errno(e)) => e.wrapping_neg(),
        };
        SyscallOutcome::Continue
    }

    /// Bytes the guest wrote to standard output with [`Output::Capture`].
    pub fn stdout_captured(&self) -> &[u8] {
        &self.stdout_buf
    }

    /// Bytes the guest wrote to standard error with [`Output::Capture`].
    pub fn stderr_captured(&self) -> &[u8] {
        &self.stderr_buf
    }

    /// System calls that returned `-ENOSYS` because they are not known: number -> count.
    pub fn unknown_syscalls(&self) -> &BTreeMap<u64, u64> {
        &self.unknown
    }

    /// Every system call made: number -> count.
    pub fn syscall_counts(&self) -> &BTreeMap<u64, u64> {
        &self.counts
    }

    /// The name of RISC-V Linux system call `number`.
    pub fn syscall_name(number: u64) -> Option<&'static str> {
        sysno::NAMES
            .binary_search_by_key(&number, |&(n, _)| n)
            .ok()
            .and_then(|i| sysno::NAMES.get(i))
            .map(|&(_, name)| name)
    }

    /// The current program break (for reports and tests).
    pub fn program_break(&self) -> u64 {
        self.space.brk_value()
    }

    /// The address the guest registered with `set_tid_address` (0 if none).
    pub fn clear_child_tid(&self) -> u64 {
        self.clear_child_tid
    }

    /// `sysinfo(info)`: uptime from the virtual clock, RAM from the memory span (what the
    /// break and mappings have not taken is free), one process, no swap or load.
    fn sysinfo(&mut self, mem: &mut Memory, now: u64, info: u64) -> Result<u64, Errno> {
        let total = mem.end() - mem.base();
        let mut b = [0u8; 112];
        let mut put = |off: usize, v: &[u8]| {
            if let Some(d) = b.get_mut(off..off + v.len()) {
                d.copy_from_slice(v);
            }
        };
        put(0, &(now / 1_000_000_000).to_le_bytes());
        put(32, &total.to_le_bytes());
        put(40, &self.space.free_bytes().to_le_bytes());
        put(80, &1u16.to_le_bytes());
        put(104, &1u32.to_le_bytes());
        mem.write_bytes(info, &b)?;
        Ok(0)
    }

    fn mmap(&mut self, mem: &mut Memory, a: [u64; 6]) -> Result<u64, Errno> {
        const MAP_TYPE: u64 = 0x3;
        const MAP_FIXED: u64 = 0x10;
        const MAP_ANONYMOUS: u64 = 0x20;
        const MAP_FIXED_NOREPLACE: u64 = 0x10_0000;
        let [addr, len, _prot, flags, fd, off] = a;
        if len == 0 || off % PAGE != 0 || flags & MAP_TYPE == 0 {
            return Err(EINVAL);
        }
        let len = page_up(len).ok_or(ENOMEM)?;
        let file = if flags & MAP_ANONYMOUS == 0 {
            Some(self.fds.get(fd)?.host_file()?.try_clone()?)
        } else {
            None
        };
        let at = if flags & (MAP_FIXED | MAP_FIXED_NOREPLACE) != 0 {
            check_page_aligned(addr)?;
            let end = addr.checked_add(len).ok_or(ENOMEM)?;
            self.space
                .map_fixed(mem, addr, end, flags & MAP_FIXED == 0)?;
            addr
        } else {
            self.space.map_anywhere(mem, len)?
        };
        if let Some(file) = file {
            if let Err(e) = io::read_file_at(&file, mem.slice_mut(at, len)?, off) {
                self.space.unmap(at, at + len);
                return Err(e);
            }
        }
        Ok(at)
    }

    fn munmap(&mut self, addr: u64, len: u64) -> Result<u64, Errno> {
        check_page_aligned(addr)?;
        let end = addr.checked_add(len).and_then(page_up).ok_or(EINVAL)?;
        if len == 0 {
            return Err(EINVAL);
        }
        self.space.unmap(addr, end);
        Ok(0)
    }

    fn mremap(&mut self, mem: &mut Memory, a: [u64; 6]) -> Result<u64, Errno> {
        const MREMAP_MAYMOVE: u64 = 1;
        let [old, old_len, new_len, flags, ..] = a;
        // MREMAP_FIXED and MREMAP_DONTUNMAP are not supported.
        if flags & !MREMAP_MAYMOVE != 0 {
            return Err(EINVAL);
        }
        check_page_aligned(old)?;
        let old_len = page_up(old_len).ok_or(EINVAL)?;
        let new_len = page_up(new_len).ok_or(EINVAL)?;
        self.space
            .remap(mem, old, old_len, new_len, flags & MREMAP_MAYMOVE != 0)
    }

    fn madvise(
        &mut self,
        mem: &mut Memory,
        addr: u64,
        len: u64,
        advice: u64,
    ) -> Result<u64, Errno> {
        const MADV_DONTNEED: u64 = 4;
        check_page_aligned(addr)?;
        let end = addr.checked_add(len).and_then(page_up).ok_or(EINVAL)?;
        // Private anonymous pages read as zero after MADV_DONTNEED; other advice is a hint.
        if advice == MADV_DONTNEED && self.space.is_mapped(addr, end) {
            mem.slice_mut(addr, end - addr)?.fill(0);
        }
        Ok(0)
    }
}

fn check_page_aligned(addr: u64) -> Result<(), Errno> {
    if addr % PAGE == 0 {
        Ok(())
    } else {
        Err(EINVAL)
    }
}

/// Longest path accepted from the guest, with its NUL (`PATH_MAX`).
const PATH_MAX: u64 = 4096;

/// A NUL-terminated path from guest memory.
fn read_path(mem: &Memory, addr: u64) -> Result<&[u8], Errno> {
    match mem.read_cstr(addr, PATH_MAX) {
        Ok(p) => Ok(p),
        Err(_) if mem.contains(addr, PATH_MAX) => Err(ENAMETOOLONG),
        Err(_) => Err(EFAULT),
    }
}

/// Writes little-endian 64-bit words at `addr`.
fn write_words(mem: &mut Memory, addr: u64, words: &[u64]) -> Result<(), Errno> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    mem.write_bytes(addr, &bytes)?;
    Ok(())
}

/// Reads `N` little-endian 64-bit words at `addr`.
fn read_words<const N: usize>(mem: &Memory, addr: u64) -> Result<[u64; N], Errno> {
    let mut out = [0u64; N];
    for (i, w) in out.iter_mut().enumerate() {
        *w = mem.load_u::<8>(addr.wrapping_add(8 * i as u64))?;
    }
    Ok(out)
}

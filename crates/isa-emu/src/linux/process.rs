//! Process-level system calls: signals (recorded, never delivered), futexes for one thread,
//! resource limits, randomness, identity (uname), CPU affinity and `riscv_hwprobe`.

use rand::RngCore;

use super::errno::{Errno, EAGAIN, EINVAL, ENOSYS, EPERM, ESRCH, ETIMEDOUT};
use super::time::{read_timespec, CLOCK_REALTIME};
use super::{read_words, write_words, Linux, PID};
use crate::memory::Memory;

/// Number of resource limits (`RLIM_NLIMITS`).
pub(crate) const RLIM_NLIMITS: usize = 16;
const RLIM_INFINITY: u64 = u64::MAX;
const RLIMIT_STACK: usize = 3;
const RLIMIT_NOFILE: usize = 7;

/// Limits as a fresh Linux process has them: the stack as configured, 1024 files, the
/// rest unlimited. They are reported, not enforced (the memory cap is the span's size).
pub(crate) fn default_limits(stack_size: u64) -> [(u64, u64); RLIM_NLIMITS] {
    let mut l = [(RLIM_INFINITY, RLIM_INFINITY); RLIM_NLIMITS];
    l[RLIMIT_STACK] = (stack_size, RLIM_INFINITY);
    let files = super::fs::MAX_FDS as u64;
    l[RLIMIT_NOFILE] = (files, files);
    l
}

const NSIG: u64 = 64;
const SIGKILL: u64 = 9;
const SIGSTOP: u64 = 19;
const SIG_IGN: u64 = 1;

/// Recorded signal state: one `struct sigaction` (handler, flags, mask: 24 bytes on
/// riscv64) per signal, the blocked mask and the alternate stack.
#[derive(Clone, Debug)]
pub(crate) struct Signals {
    actions: [[u64; 3]; NSIG as usize],
    blocked: u64,
    altstack: [u64; 3],
}

impl Default for Signals {
    fn default() -> Signals {
        const SS_DISABLE: u64 = 2;
        Signals {
            actions: [[0; 3]; NSIG as usize],
            blocked: 0,
            altstack: [0, SS_DISABLE, 0],
        }
    }
}

fn sig_bit(sig: u64) -> u64 {
    1 << (sig - 1)
}

impl Signals {
    /// `rt_sigaction(sig, act, oact, sigsetsize)`.
    pub(crate) fn sigaction(
        &mut self,
        mem: &mut Memory,
        sig: u64,
        act: u64,
        oact: u64,
        setsize: u64,
    ) -> Result<u64, Errno> {
        if setsize != 8 || !(1..=NSIG).contains(&sig) {
            return Err(EINVAL);
        }
        let new = if act != 0 {
            if sig == SIGKILL || sig == SIGSTOP {
                return Err(EINVAL);
            }
            Some(read_words::<3>(mem, act)?)
        } else {
            None
        };
        let slot = self.actions.get_mut((sig - 1) as usize).ok_or(EINVAL)?;
        if oact != 0 {
            write_words(mem, oact, slot.as_slice())?;
        }
        if let Some(new) = new {
            *slot = new;
        }
        Ok(0)
    }

    /// `rt_sigprocmask(how, set, oset, sigsetsize)`.
    pub(crate) fn sigprocmask(
        &mut self,
        mem: &mut Memory,
        how: u64,
        set: u64,
        oset: u64,
        setsize: u64,
    ) -> Result<u64, Errno> {
        if setsize != 8 {
            return Err(EINVAL);
        }
        let old = self.blocked;
        if set != 0 {
            let s = mem.load_u::<8>(set)?;
            self.blocked = match how {
                0 => old | s,
                1 => old & !s,
                2 => s,
                _ => return Err(EINVAL),
            } & !(sig_bit(SIGKILL) | sig_bit(SIGSTOP));
        }
        if oset != 0 {
            mem.store_u::<8>(oset, old)?;
        }
        Ok(0)
    }

    /// `sigaltstack(ss, oss)`: recorded (`stack_t` is 24 bytes).
    pub(crate) fn sigaltstack(
        &mut self,
        mem: &mut Memory,
        ss: u64,
        oss: u64,
    ) -> Result<u64, Errno> {
        let new = if ss != 0 {
            Some(read_words::<3>(mem, ss)?)
        } else {
            None
        };
        if oss != 0 {
            write_words(mem, oss, &self.altstack)?;
        }
        if let Some(new) = new {
            self.altstack = new;
        }
        Ok(0)
    }

    /// What happens when `sig` is sent to the process: `Some(status)` if it ends it.
    fn deliver(&self, sig: u64) -> Option<i32> {
        // SIGCHLD, SIGCONT, SIGURG, SIGWINCH are ignored by default; stop signals have
        // nothing to stop for (no job control) and are treated as ignored too.
        const IGNORED_BY_DEFAULT: [u64; 8] = [17, 18, 23, 28, 19, 20, 21, 22];
        let handler = self.actions.get((sig - 1) as usize).map_or(0, |a| a[0]);
        if handler == SIG_IGN
            || self.blocked & sig_bit(sig) != 0
            || IGNORED_BY_DEFAULT.contains(&sig)
        {
            return None;
        }
        Some(128 + sig as i32)
    }
}

impl Linux {
    /// `kill(pid, sig)` / `tgkill(tgid, tid, sig)` aimed at this process. A blocked or
    /// ignored signal stays pending forever; any other ends the process as if unhandled,
    /// since handlers are never run.
    pub(crate) fn kill(&mut self, nr: u64, a: [u64; 6]) -> Result<Option<i32>, Errno> {
        let (target_ok, sig) = if nr == super::sysno::KILL {
            let pid = a[0] as i32;
            (pid == PID as i32 || pid == 0 || pid == -1, a[1])
        } else {
            (a[0] as i32 == PID as i32 && a[1] as i32 == PID as i32, a[2])
        };
        if sig > NSIG {
            return Err(EINVAL);
        }
        if !target_ok {
            return Err(if nr == super::sysno::KILL {
                EPERM
            } else {
                ESRCH
            });
        }
        if sig == 0 {
            return Ok(None);
        }
        Ok(self.signals.deliver(sig))
    }

    /// `futex` for a single thread: wakes find nobody, a wait on a changed word is
    /// `EAGAIN`, a timed wait on an unchanged word lets the timeout pass (`ETIMEDOUT`), and
    /// an untimed wait on an unchanged word, which would block forever, is `EAGAIN`.
    pub(crate) fn futex(
        &mut self,
        mem: &mut Memory,
        instret: u64,
        a: [u64; 6],
    ) -> Result<u64, Errno> {
        const FUTEX_WAIT: u64 = 0;
        const FUTEX_WAKE: u64 = 1;
        const FUTEX_WAIT_BITSET: u64 = 9;
        const FUTEX_WAKE_BITSET: u64 = 10;
        const FUTEX_CLOCK_REALTIME: u64 = 256;
        const FUTEX_CMD_MASK: u64 = 0x7f;
        let [uaddr, op, val, timeout, ..] = a;
        match op & FUTEX_CMD_MASK {
            FUTEX_WAKE | FUTEX_WAKE_BITSET => {
                if uaddr % 4 != 0 {
                    return Err(EINVAL);
                }
                Ok(0)
            }
            cmd @ (FUTEX_WAIT | FUTEX_WAIT_BITSET) => {
                if uaddr % 4 != 0 {
                    return Err(EINVAL);
                }
                if mem.load_u::<4>(uaddr)? != val & 0xffff_ffff || timeout == 0 {
                    return Err(EAGAIN);
                }
                let ns = read_timespec(mem, timeout)?;
                if cmd == FUTEX_WAIT {
                    self.clock.advance(ns);
                } else {
                    let clock = if op & FUTEX_CLOCK_REALTIME != 0 {
                        CLOCK_REALTIME
                    } else {
                        1
                    };
                    self.clock.sleep_until(instret, clock, ns);
                }
                Err(ETIMEDOUT)
            }
            _ => Err(ENOSYS),
        }
    }

    /// `prlimit64(pid, resource, new, old)`.
    pub(crate) fn prlimit(
        &mut self,
        mem: &mut Memory,
        pid: u64,
        resource: u64,
        new: u64,
        old: u64,
    ) -> Result<u64, Errno> {
        if pid != 0 && pid != PID {
            return Err(ESRCH);
        }
        let slot = usize::try_from(resource)
            .ok()
            .and_then(|r| self.limits.get_mut(r))
            .ok_or(EINVAL)?;
        let set = if new != 0 {
            let [cur, max] = read_words::<2>(mem, new)?;
            if cur > max {
                return Err(EINVAL);
            }
            Some((cur, max))
        } else {
            None
        };
        if old != 0 {
            write_words(mem, old, &[slot.0, slot.1])?;
        }
        if let Some(v) = set {
            *slot = v;
        }
        Ok(0)
    }

    /// `getrandom(buf, len, flags)` from the seeded generator.
    pub(crate) fn getrandom(
        &mut self,
        mem: &mut Memory,
        buf: u64,
        len: u64,
        flags: u64,
    ) -> Result<u64, Errno> {
        const GRND_NONBLOCK: u64 = 1;
        const GRND_RANDOM: u64 = 2;
        const GRND_INSECURE: u64 = 4;
        if flags & !(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE) != 0
            || flags & (GRND_RANDOM | GRND_INSECURE) == GRND_RANDOM | GRND_INSECURE
        {
            return Err(EINVAL);
        }
        let len = len.min(i32::MAX as u64);
        self.rng.fill_bytes(mem.slice_mut(buf, len)?);
        Ok(len)
    }
}

/// `set_robust_list(head, len)`: recorded nowhere (no thread ever dies before the
/// process), but the size is checked as Linux does.
pub(crate) fn set_robust_list(len: u64) -> Result<u64, Errno> {
    if len != 24 {
        return Err(EINVAL);
    }
    Ok(0)
}

/// Kernel release reported by `uname`.
pub const RELEASE: &str = "6.6.0";

/// `uname(buf)`: six 65-byte fields.
pub(crate) fn uname(mem: &mut Memory, buf: u64) -> Result<u64, Errno> {
    let fields = ["Linux", "profkit", RELEASE, "#1 SMP", "riscv64", "(none)"];
    let mut out = [0u8; 6 * 65];
    for (chunk, f) in out.chunks_mut(65).zip(fields) {
        if let Some(dst) = chunk.get_mut(..f.len()) {
            dst.copy_from_slice(f.as_bytes());
        }
    }
    mem.write_bytes(buf, &out)?;
    Ok(0)
}

/// `sched_getaffinity(pid, len, mask)`: one CPU; returns the mask size written.
pub(crate) fn sched_getaffinity(
    mem: &mut Memory,
    pid: u64,
    len: u64,
    mask: u64,
) -> Result<u64, Errno> {
    if pid != 0 && pid != PID {
        return Err(ESRCH);
    }
    if len < 8 || len % 8 != 0 {
        return Err(EINVAL);
    }
    mem.store_u::<8>(mask, 1)?;
    Ok(8)
}

/// `riscv_hwprobe(pairs, count, cpusetsize, cpus, flags)` with Linux 6.6's keys.
pub(crate) fn riscv_hwprobe(mem: &mut Memory, a: [u64; 6]) -> Result<u64, Errno> {
    const BASE_BEHAVIOR_IMA: u64 = 1;
    const IMA_FD: u64 = 1 << 0;
    const IMA_C: u64 = 1 << 1;
    let [pairs, count, _cpusetsize, _cpus, flags, _] = a;
    if flags != 0 {
        return Err(EINVAL);
    }
    for i in 0..count {
        let at = pairs.wrapping_add(16 * i);
        let key = mem.load_u::<8>(at)?;
        let (key, value) = match key {
            // mvendorid, marchid, mimpid: not a real vendor's part.
            0..=2 => (key, 0),
            3 => (key, BASE_BEHAVIOR_IMA),
            4 => (key, IMA_FD | IMA_C),
            // CPUPERF_0: misaligned access speed unknown; ZICBOZ_BLOCK_SIZE: no Zicboz.
            5 | 6 => (key, 0),
            _ => (u64::MAX, 0),
        };
        write_words(mem, at, &[key, value])?;
    }
    Ok(0)
}

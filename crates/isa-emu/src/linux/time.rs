//! Virtual time: a fixed epoch plus one nanosecond per retired instruction plus the time
//! the guest slept. Nothing comes from the host clock.

use super::errno::{Errno, EINVAL};
use super::{read_words, write_words};
use crate::memory::Memory;

/// `CLOCK_REALTIME` at instruction 0: 2026-01-01T00:00:00Z.
pub const EPOCH_SECS: u64 = 1_767_225_600;

const NS: u64 = 1_000_000_000;

pub(crate) const CLOCK_REALTIME: u64 = 0;
const CLOCK_PROCESS_CPUTIME_ID: u64 = 2;
const CLOCK_THREAD_CPUTIME_ID: u64 = 3;
const CLOCK_REALTIME_COARSE: u64 = 5;
const CLOCK_TAI: u64 = 11;
const TIMER_ABSTIME: u64 = 1;

/// The sleep offset; the instruction count comes with each call.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Clock {
    slept_ns: u64,
}

impl Clock {
    /// Nanoseconds since instruction 0 (the monotonic clock).
    pub(crate) fn now(&self, instret: u64) -> u64 {
        instret.saturating_add(self.slept_ns)
    }

    /// Lets `ns` nanoseconds pass.
    pub(crate) fn advance(&mut self, ns: u64) {
        self.slept_ns = self.slept_ns.saturating_add(ns);
    }

    /// `nanosleep(req, rem)`: the full time always passes, so `rem` is never written.
    pub(crate) fn nanosleep(&mut self, mem: &Memory, req: u64) -> Result<u64, Errno> {
        let ns = read_timespec(mem, req)?;
        self.advance(ns);
        Ok(0)
    }

    /// `clock_nanosleep(clock, flags, req, rem)`.
    pub(crate) fn clock_nanosleep(
        &mut self,
        mem: &Memory,
        instret: u64,
        clock: u64,
        flags: u64,
        req: u64,
    ) -> Result<u64, Errno> {
        if clock == CLOCK_THREAD_CPUTIME_ID || clock_value(clock, 0, 0).is_none() {
            return Err(EINVAL);
        }
        let ns = read_timespec(mem, req)?;
        if flags & TIMER_ABSTIME != 0 {
            self.sleep_until(instret, clock, ns);
        } else {
            self.advance(ns);
        }
        Ok(0)
    }

    /// Advances until `clock` reads at least `target` nanoseconds.
    pub(crate) fn sleep_until(&mut self, instret: u64, clock: u64, target: u64) {
        let now = clock_value(clock, self.now(instret), instret).unwrap_or(0);
        self.advance(target.saturating_sub(now));
    }
}

/// The value of `clock` in nanoseconds, or `None` for an unknown clock.
fn clock_value(clock: u64, now: u64, instret: u64) -> Option<u64> {
    match clock {
        CLOCK_REALTIME | CLOCK_REALTIME_COARSE | CLOCK_TAI => {
            Some((EPOCH_SECS * NS).saturating_add(now))
        }
        // MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME (and the alarm variants).
        1 | 4 | 6 | 7 | 9 => Some(now),
        // Sleeping uses no CPU time.
        CLOCK_PROCESS_CPUTIME_ID | CLOCK_THREAD_CPUTIME_ID => Some(instret),
        8 => Some((EPOCH_SECS * NS).saturating_add(now)), // REALTIME_ALARM
        _ => None,
    }
}

/// A `struct timespec` as nanoseconds; `EINVAL` if it is negative or not normalised.
pub(crate) fn read_timespec(mem: &Memory, addr: u64) -> Result<u64, Errno> {
    let [sec, nsec] = read_words::<2>(mem, addr)?;
    if sec > i64::MAX as u64 || nsec >= NS {
        return Err(EINVAL);
    }
    Ok(sec.saturating_mul(NS).saturating_add(nsec))
}

fn write_timespec(mem: &mut Memory, addr: u64, ns: u64) -> Result<(), Errno> {
    write_words(mem, addr, &[ns / NS, ns % NS])
}

/// `clock_gettime(clock, tp)`.
pub(crate) fn clock_gettime(
    mem: &mut Memory,
    now: u64,
    instret: u64,
    clock: u64,
    tp: u64,
) -> Result<u64, Errno> {
    let ns = clock_value(clock, now, instret).ok_or(EINVAL)?;
    write_timespec(mem, tp, ns)?;
    Ok(0)
}

/// `clock_getres(clock, res)`: every clock ticks in nanoseconds; `res` may be NULL.
pub(crate) fn clock_getres(mem: &mut Memory, clock: u64, res: u64) -> Result<u64, Errno> {
    clock_value(clock, 0, 0).ok_or(EINVAL)?;
    if res != 0 {
        write_timespec(mem, res, 1)?;
    }
    Ok(0)
}

/// `gettimeofday(tv, tz)`: either may be NULL; the time zone is UTC.
pub(crate) fn gettimeofday(mem: &mut Memory, now: u64, tv: u64, tz: u64) -> Result<u64, Errno> {
    if tv != 0 {
        let ns = (EPOCH_SECS * NS).saturating_add(now);
        write_words(mem, tv, &[ns / NS, ns % NS / 1000])?;
    }
    if tz != 0 {
        mem.write_bytes(tz, &[0; 8])?;
    }
    Ok(0)
}

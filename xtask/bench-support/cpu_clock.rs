//! The thread's CPU time, for the benchmark examples that `cargo xtask bench` runs
//! (cfg-bl's `overhead`, strata's `strata_cost` and `strata_replay`), which include this
//! file by path.

/// Nanoseconds this thread has run on a CPU (`CLOCK_THREAD_CPUTIME_ID`), if the host
/// reports it. (Not `/proc/thread-self/schedstat`: for a thread that makes no system calls
/// it advances only at the scheduler's tick, which made every time a multiple of 4 ms.)
pub fn thread_cpu_ns() -> Option<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a timespec the call may write.
    let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    let ns = u64::try_from(t.tv_sec).ok()? * 1_000_000_000 + u64::try_from(t.tv_nsec).ok()?;
    read.then_some(ns)
}

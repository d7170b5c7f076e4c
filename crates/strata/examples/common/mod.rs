//! What the measurement examples share: the guest's machine, the sink's configuration from
//! the environment, and CPU-time measurement.

use std::time::Instant;

use isa_emu::linux::{LinuxConfig, Output};
use isa_emu::{Config as EmuConfig, Machine};
use strata::Config;

/// The guest `elf` with arguments `args` (after its name), output captured.
pub fn machine(elf: &[u8], args: &[String]) -> Machine {
    let mut argv = vec![b"guest".to_vec()];
    argv.extend(args.iter().map(|a| a.as_bytes().to_vec()));
    let linux = LinuxConfig {
        args: argv,
        stdout: Output::Capture,
        stderr: Output::Capture,
        ..LinuxConfig::default()
    };
    Machine::linux(elf, linux, EmuConfig::default()).expect("guest loads")
}

/// The arguments `ELF [RUNS ...]`: the guest's path and bytes, and RUNS (default 5).
pub fn guest_and_runs(args: &[String]) -> (String, Vec<u8>, usize) {
    let path = args
        .first()
        .cloned()
        .unwrap_or_else(|| "guests/bin/crc.elf".into());
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let elf = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (path, elf, runs)
}

/// The sink's configuration: STRATA_GRAMMAR=0 leaves the grammar out, STRATA_LEVELS=n
/// sets the upper levels.
pub fn config_from_env() -> Config {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<usize>().ok());
    Config {
        grammar: env("STRATA_GRAMMAR") != Some(0),
        upper_levels: env("STRATA_LEVELS").unwrap_or(2),
        ..Config::default()
    }
}

#[path = "../../../../xtask/bench-support/cpu_clock.rs"]
mod cpu_clock;
use cpu_clock::thread_cpu_ns as cpu_ns;

/// Runs `f` and returns its CPU time in seconds (wall time without that clock).
pub fn timed(f: impl FnOnce()) -> f64 {
    let (t, c) = (Instant::now(), cpu_ns());
    f();
    match (c, cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e9,
        _ => t.elapsed().as_secs_f64(),
    }
}

/// The median of `v` (sorted in place; the upper one of an even count).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

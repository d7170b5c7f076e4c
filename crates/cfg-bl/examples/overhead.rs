//! Overhead of path profiling: runs a guest with no sink, with an empty sink that asks for
//! every edge event, with a sink whose probes do nothing (the floor of the probes'
//! machinery), and with the path sink in flat, region-based and global-based mode,
//! alternating the configurations round by round, and prints each one's median time as a
//! ratio to the run without sinks.
//!
//! `cargo run --release -p cfg-bl --example overhead --features bench-examples -- [--runs N] [--dense-limit N] [--only CONFIG [--alone]] [--perf-map PATH] guests/bin/primes.elf [ARGS...]`
//! (the options in any order before the guest; the guest runs with cwd = the current
//! directory, empty stdin, output captured; every configuration must print the same and
//! exit the same way).
//!
//! Times are the thread's CPU time (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), not wall time. A
//! path-sink run's time includes setting the sink up (listing the functions and copying
//! the code: `LazyProgram::new`) and recovering and instrumenting each function on its
//! first call. That set-up, the fixed part of the overhead, is reported apart (the listing's
//! time plus `PathSink::set_up_time`, wall-clock time within the CPU-time total), so that
//! "run" ratios (time minus set-up) can be told apart. The last lines, `result CONFIG
//! MEDIAN_S MEDIAN_SETUP_S`,
//! are for `cargo xtask bench`. `--only CONFIG --alone` runs that configuration only and
//! prints just `behaviour HASH` (of the guest's output and outcome), for counting its
//! instructions (`cargo xtask bench-paths --instructions`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cfg_bl::sink::{PathSink, RegionChoice};
use cfg_bl::{LazyProgram, Mode};
use isa_emu::linux::{Input, LinuxConfig, Output};
use isa_emu::{Config, Machine};
use prof_events::{BlockInfo, Interest, NoOpProbes, Sink};

fn machine(elf: &[u8], argv: &[String], perf_map: Option<&PathBuf>) -> Machine {
    let linux = LinuxConfig {
        args: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
        env: vec![b"LANG=C".to_vec()],
        stdin: Input::Bytes(Vec::new()),
        stdout: Output::Capture,
        stderr: Output::Capture,
        cwd: std::env::current_dir().ok(),
        ..LinuxConfig::default()
    };
    let config = Config {
        perf_map: perf_map.cloned(),
        ..Config::default()
    };
    match Machine::linux(elf, linux, config) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot load the guest: {e}");
            std::process::exit(2);
        }
    }
}

/// Asks for every edge event and does nothing: the cost of the events alone.
struct EdgesOnly;

impl Sink for EdgesOnly {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, _: &BlockInfo) -> Interest {
        Interest::EDGE
    }
}

/// A configuration: its name and, for the path sink, mode and regions.
type Setup = (&'static str, Option<(Mode, RegionChoice)>);

const SETUPS: &[Setup] = &[
    ("none", None),
    ("edges", None),
    ("no-op", None),
    ("flat", Some((Mode::RegionBased, RegionChoice::Flat))),
    ("region", Some((Mode::RegionBased, RegionChoice::Loops))),
    (
        "global",
        Some((Mode::GlobalBased { shrink: true }, RegionChoice::Loops)),
    ),
];

/// What one timed run gave: total time, the path sink's set-up time, and what the guest did.
struct Run {
    total: Duration,
    set_up: Duration,
    behaviour: (Vec<u8>, String),
    desync: u64,
}

#[path = "../../../xtask/bench-support/cpu_clock.rs"]
mod cpu_clock;

/// A clock of this thread's time on a CPU ([`cpu_clock::thread_cpu_ns`]), so that time
/// spent waiting for a CPU on a busy machine is not counted; wall time where unavailable.
struct Clock(Option<u64>, Instant);

impl Clock {
    fn cpu_ns() -> Option<u64> {
        cpu_clock::thread_cpu_ns()
    }

    fn start() -> Clock {
        Clock(Clock::cpu_ns(), Instant::now())
    }

    fn elapsed(&self) -> Duration {
        match (self.0, Clock::cpu_ns()) {
            (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
            _ => self.1.elapsed(),
        }
    }
}

/// What a run is given besides the guest.
struct Given<'a> {
    argv: &'a [String],
    dense_limit: u128,
    perf_map: Option<&'a PathBuf>,
}

fn run_once(elf: &[u8], setup: &Setup, given: &Given<'_>) -> Run {
    let mut m = machine(elf, given.argv, given.perf_map);
    let start = Clock::start();
    let mut set_up = Duration::ZERO;
    let (summary, desync) = match (setup.0, setup.1) {
        ("none", _) => (m.run(&mut ()), 0),
        ("no-op", _) => (m.run(&mut NoOpProbes::default()), 0),
        (_, None) => (m.run(&mut EdgesOnly), 0),
        (_, Some((mode, regions))) => {
            let program = LazyProgram::new(m.image().clone(), &[m.image().entry]);
            let listed = start.elapsed();
            let mut sink = PathSink::lazy(program, mode, regions);
            sink.dense_limit = given.dense_limit;
            let s = m.run(&mut sink);
            set_up = listed + sink.set_up_time();
            (s, sink.stats.desync)
        }
    };
    let total = start.elapsed();
    let out = m
        .linux_env()
        .map(|l| l.stdout_captured().to_vec())
        .unwrap_or_default();
    Run {
        total,
        set_up,
        behaviour: (out, format!("{:?}", summary.outcome)),
        desync,
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// The command line's options, before the guest's path.
struct Options {
    runs: usize,
    dense_limit: u128,
    only: Option<String>,
    alone: bool,
    perf_map: Option<PathBuf>,
}

const USAGE: &str = "usage: overhead [--runs N] [--dense-limit N] [--only CONFIG [--alone]] \
                     [--perf-map PATH] GUEST.elf [ARGS...]";

/// Takes the options, in any order, off the front of `args` (up to the guest's path).
fn options(args: &mut Vec<String>) -> Result<Options, String> {
    let mut o = Options {
        runs: 3,
        dense_limit: cfg_bl::runtime::DENSE_LIMIT,
        only: None,
        alone: false,
        perf_map: None,
    };
    while let Some(flag) = args.first().filter(|a| a.starts_with("--")).cloned() {
        args.remove(0);
        if flag == "--alone" {
            o.alone = true;
            continue;
        }
        if args.is_empty() {
            return Err(format!("{flag} needs a value"));
        }
        let value = args.remove(0);
        let bad = |what: &str| format!("{flag} needs {what}, not `{value}`");
        match flag.as_str() {
            "--runs" => {
                o.runs = value
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| bad("a positive number"))?;
            }
            // The sink's dense/sparse threshold (see `PathSink::dense_limit`).
            "--dense-limit" => o.dense_limit = value.parse().map_err(|_| bad("a number"))?,
            // One configuration (besides `none`), for profiling; with `--alone`, that one
            // only (for counting its instructions in a process of its own).
            "--only" if SETUPS.iter().any(|s| s.0 == value) => o.only = Some(value),
            "--only" => {
                let names: Vec<&str> = SETUPS.iter().map(|s| s.0).collect();
                return Err(format!(
                    "--only: no configuration `{value}` (one of {names:?})"
                ));
            }
            // The emulator writes a perf map of its compiled code to PATH (for `cargo
            // xtask bench-paths --sections`).
            "--perf-map" => o.perf_map = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if o.alone && o.only.is_none() {
        return Err("--alone needs --only CONFIG".into());
    }
    Ok(o)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let Options {
        runs,
        dense_limit,
        only,
        alone,
        perf_map,
    } = match options(&mut args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let Some(path) = args.first() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let elf = match std::fs::read(path) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let mut totals = vec![Vec::new(); SETUPS.len()];
    let mut set_ups = vec![Vec::new(); SETUPS.len()];
    let mut reference = None;
    for _ in 0..runs {
        for (i, setup) in SETUPS.iter().enumerate() {
            let others = i > 0 || alone;
            if others && only.as_ref().is_some_and(|o| o != setup.0) {
                continue;
            }
            let given = Given {
                argv: &args,
                dense_limit,
                perf_map: perf_map.as_ref(),
            };
            let r = run_once(&elf, setup, &given);
            match &reference {
                None => reference = Some(r.behaviour.clone()),
                Some(b) if *b != r.behaviour => {
                    eprintln!("{path}: {} printed or exited differently", setup.0);
                    std::process::exit(1);
                }
                Some(_) => {}
            }
            if r.desync > 0 {
                eprintln!("{path}: {}: {} transfers not followed", setup.0, r.desync);
            }
            totals[i].push(r.total);
            set_ups[i].push(r.set_up);
        }
    }
    // What the guest did, as a hash, for runs in separate processes to compare.
    if let Some((out, outcome)) = &reference {
        let mut h = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&(out, outcome), &mut h);
        println!("behaviour {:016x}", std::hash::Hasher::finish(&h));
    }
    if totals[0].is_empty() {
        return;
    }
    let base = median(&mut totals[0].clone()).as_secs_f64().max(1e-9);
    println!("{path}: median of {runs} alternating run(s); ratios to the run with no sink");
    println!(
        "{:<8} {:>9} {:>7} {:>11} {:>9}",
        "config", "time s", "ratio", "setup s", "run ratio"
    );
    let mut results = Vec::new();
    for (i, setup) in SETUPS.iter().enumerate() {
        if totals[i].is_empty() {
            continue;
        }
        let t = median(&mut totals[i]).as_secs_f64();
        let r = median(&mut set_ups[i]).as_secs_f64();
        println!(
            "{:<8} {t:>9.3} {:>6.2}x {r:>11.3} {:>8.2}x",
            setup.0,
            t / base,
            (t - r) / base
        );
        results.push(format!("result {} {t:.6} {r:.6}", setup.0));
    }
    for line in results {
        println!("{line}");
    }
}

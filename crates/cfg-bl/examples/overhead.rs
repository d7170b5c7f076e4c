//! Overhead of path profiling: runs a guest with no sink and with the path sink in each mode,
//! and prints each mode's time as a ratio to the run without sinks.
//!
//! `cargo run --release -p cfg-bl --example overhead -- guests/bin/primes.elf [ARGS...]`
//! (the guest runs with cwd = the current directory, empty stdin, output captured).

use std::time::{Duration, Instant};

use cfg_bl::sink::{PathSink, RegionChoice};
use cfg_bl::{Mode, Program};
use isa_emu::linux::{Input, LinuxConfig, Output};
use isa_emu::{Config, Machine};
use prof_events::Sink;

fn machine(elf: &[u8], argv: &[String]) -> Machine {
    let linux = LinuxConfig {
        args: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
        env: vec![b"LANG=C".to_vec()],
        stdin: Input::Bytes(Vec::new()),
        stdout: Output::Capture,
        stderr: Output::Capture,
        cwd: std::env::current_dir().ok(),
        ..LinuxConfig::default()
    };
    match Machine::linux(elf, linux, Config::default()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot load the guest: {e}");
            std::process::exit(2);
        }
    }
}

/// Best of `reps` runs of a fresh machine with the sink `make` builds (recovery included).
fn time<S: Sink>(elf: &[u8], argv: &[String], reps: u32, make: impl Fn(&Machine) -> S) -> Duration {
    (0..reps)
        .map(|_| {
            let mut m = machine(elf, argv);
            let start = Instant::now();
            let mut sink = make(&m);
            let _ = m.run(&mut sink);
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Asks for every edge event and does nothing: the cost of the events alone.
struct EdgesOnly;

impl Sink for EdgesOnly {
    fn interest(&mut self, _: &prof_events::BlockInfo) -> prof_events::Interest {
        prof_events::Interest::EDGE
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = argv.first() else {
        eprintln!("usage: overhead GUEST.elf [ARGS...]");
        std::process::exit(2);
    };
    let elf = match std::fs::read(path) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let reps = 3;
    let base = time(&elf, &argv, reps, |_| ());
    println!("{path}: no sink {:.3} s", base.as_secs_f64());
    let start = Instant::now();
    let m = machine(&elf, &argv);
    let program = Program::recover(&m, &[m.image().entry]);
    println!(
        "{path}: recovery of {} functions {:.3} s",
        program.functions.len(),
        start.elapsed().as_secs_f64()
    );
    let edges = time(&elf, &argv, reps, |_| EdgesOnly);
    println!(
        "{path}: empty edge sink {:.3} s  ratio {:.2}x",
        edges.as_secs_f64(),
        edges.as_secs_f64() / base.as_secs_f64().max(1e-9)
    );
    let modes = [
        ("flat BL", Mode::RegionBased, RegionChoice::Flat),
        ("region-based", Mode::RegionBased, RegionChoice::Loops),
        (
            "global-based",
            Mode::GlobalBased { shrink: true },
            RegionChoice::Loops,
        ),
    ];
    for (name, mode, regions) in modes {
        let t = time(&elf, &argv, reps, |m: &Machine| {
            PathSink::new(Program::recover(m, &[m.image().entry]), mode, regions)
        });
        println!(
            "{path}: {name:<13} {:.3} s  ratio {:.2}x",
            t.as_secs_f64(),
            t.as_secs_f64() / base.as_secs_f64().max(1e-9)
        );
    }
}

//! What a sink that wants nothing costs: runs a guest with no sink (`()`) and with a sink
//! that is asked about every block but answers `Interest::NONE`, alternating, and prints the
//! median times and their ratio.
//!
//! `cargo run --release -p isa-emu --example sink_cost --features bench-examples -- guests/bin/crc.elf [RUNS]`

use std::time::Instant;

use isa_emu::linux::{LinuxConfig, Output};
use isa_emu::{Config, Machine};
use prof_events::{BlockInfo, Interest, Sink};

/// Sees every block at translation time and wants nothing from any of them.
struct WantsNothing(u64);

impl Sink for WantsNothing {
    fn interest(&mut self, _: &BlockInfo) -> Interest {
        self.0 += 1;
        Interest::NONE
    }
}

fn time_run(elf: &[u8], sink: &mut dyn FnMut(&mut Machine) -> u64) -> (f64, u64) {
    let linux = LinuxConfig {
        args: vec![b"guest".to_vec()],
        stdout: Output::Capture,
        stderr: Output::Capture,
        ..LinuxConfig::default()
    };
    let mut m = Machine::linux(elf, linux, Config::default()).expect("guest loads");
    let start = Instant::now();
    let instret = sink(&mut m);
    (start.elapsed().as_secs_f64(), instret)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "guests/bin/crc.elf".into());
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(11);
    let elf = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut none, mut nothing) = (Vec::new(), Vec::new());
    let mut insns = 0;
    for _ in 0..runs {
        let (t, n) = time_run(&elf, &mut |m| m.run(&mut ()).instret);
        none.push(t);
        insns = n;
        let (t, _) = time_run(&elf, &mut |m| m.run(&mut WantsNothing(0)).instret);
        nothing.push(t);
    }
    let (a, b) = (median(&mut none), median(&mut nothing));
    println!("{path}: {insns} instructions, {runs} runs each, alternating");
    println!(
        "  no sink              median {:.4} s  ({:.0} MIPS)",
        a,
        insns as f64 / a / 1e6
    );
    println!(
        "  sink wanting nothing median {:.4} s  ({:.0} MIPS)",
        b,
        insns as f64 / b / 1e6
    );
    println!("  ratio (wanting nothing / no sink): {:.3}", b / a);
}

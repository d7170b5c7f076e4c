//! The strata sink's own cost per block, without the emulator: a guest's block events are
//! recorded once, then replayed into fresh sinks (median of RUNS timed batches), so a
//! profiler sees only the sink. Prints ns per block and per path. A third argument `loop`
//! replays for about 20 s (for `perf record`); `once` replays once untimed (for
//! cachegrind, whose counts of the recording run are the same for any sink).
//!
//! `cargo run --release -p strata --example strata_replay --features bench-examples -- guests/bin/crc.elf [RUNS [ARGS...]]`
//!
//! STRATA_GRAMMAR=0 and STRATA_LEVELS=n as for `strata_cost`.

use std::time::Instant;

use prof_events::{BlockId, BlockInfo, Control, Exit, Interest, Sink};
use strata::{PhaseConfig, StrataSink};

mod common;
use common::{config_from_env, guest_and_runs, machine, median, timed};

/// A recorded event, in run order.
enum Event {
    Interest(BlockInfo),
    Block(BlockId, u64),
    Exit(Exit),
}

#[derive(Default)]
struct Record(Vec<Event>);

impl Sink for Record {
    fn wants(&mut self) -> Interest {
        Interest::EXIT
    }
    fn interest(&mut self, block: &BlockInfo) -> Interest {
        self.0.push(Event::Interest(*block));
        Interest::BLOCK
    }
    fn block(&mut self, id: BlockId, pc: u64) -> Control {
        self.0.push(Event::Block(id, pc));
        Control::Continue
    }
    fn exit(&mut self, exit: &Exit) {
        self.0.push(Event::Exit(*exit));
    }
}

fn replay(events: &[Event], sink: &mut StrataSink) {
    for e in events {
        match e {
            Event::Interest(b) => {
                sink.interest(b);
            }
            Event::Block(id, pc) => {
                let _ = sink.block(*id, *pc);
            }
            Event::Exit(x) => sink.exit(x),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, elf, runs) = guest_and_runs(&args);
    let mode = args
        .get(2)
        .filter(|a| *a == "loop" || *a == "once")
        .cloned();
    let guest_args = args
        .get(if mode.is_some() { 3 } else { 2 }..)
        .unwrap_or(&[]);
    let config = config_from_env();
    let mut m = machine(&elf, guest_args);
    let mut rec = Record::default();
    m.run(&mut rec);
    let events = rec.0;
    let blocks = events
        .iter()
        .filter(|e| matches!(e, Event::Block(..)))
        .count();
    if mode.as_deref() == Some("once") {
        let mut s = StrataSink::new(&config, PhaseConfig::default());
        replay(&events, &mut s);
        println!("{path}: {blocks} blocks, {} paths", s.detector().closed(0));
        return;
    }
    // One untimed replay: the paths, and how many replays make a timed batch of ~0.3 s.
    let (paths, batch) = {
        let t = Instant::now();
        let mut s = StrataSink::new(&config, PhaseConfig::default());
        replay(&events, &mut s);
        let batch = (0.3 / t.elapsed().as_secs_f64().max(1e-6)).ceil().max(1.0) as usize;
        (s.detector().closed(0), batch)
    };
    if mode.as_deref() == Some("loop") {
        let end = Instant::now() + std::time::Duration::from_secs(20);
        while Instant::now() < end {
            let mut s = StrataSink::new(&config, PhaseConfig::default());
            replay(&events, &mut s);
        }
        return;
    }
    let mut times = Vec::new();
    for _ in 0..runs {
        let mut sinks: Vec<StrataSink> = (0..batch)
            .map(|_| StrataSink::new(&config, PhaseConfig::default()))
            .collect();
        let secs = timed(|| {
            for s in &mut sinks {
                replay(&events, s);
            }
        });
        times.push(secs / batch as f64);
    }
    let med = median(&mut times);
    println!(
        "{path}: {blocks} blocks, {paths} paths; sink alone median {:.3} ms: {:.2} ns per block, \
         {:.1} ns per path ({runs} runs of {batch})",
        med * 1e3,
        med * 1e9 / blocks as f64,
        med * 1e9 / paths.max(1) as f64
    );
}

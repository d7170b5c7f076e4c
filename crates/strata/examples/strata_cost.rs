//! Measurements for issue 6: the cost of strata on every block as a ratio to the emulator
//! with no sink (median of RUNS alternating runs, like isa-emu's `sink_cost`), and the
//! size of the SEQUITUR grammar against the raw repeated-path stream and against `xz -9`
//! of the same stream (if `xz` is installed).
//!
//! `cargo run --release -p strata --example strata_cost --features bench-examples -- guests/bin/crc.elf [RUNS [ARGS...]]`
//!
//! ARGS are the guest's arguments. Times are the thread's CPU time (Linux
//! `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, so time spent waiting for a CPU on a shared machine is
//! not counted; wall time where it is missing). The last line, `summary key=value ...`, is
//! what `cargo xtask bench` reads.
//!
//! Sizes: the grammar file ([`strata::grammar_file`], range-coded, read back and checked
//! here) and, for reference, both the raw stream and the grammar in a plain fixed-width serialization in which a terminal (a repeated
//! path) costs the same 12 bytes: the raw stream is 12 bytes per repeated path (path id
//! u32, trip count u64, little endian); the grammar is 4 bytes per body symbol (a rule or
//! terminal index), 4 per rule (its length) and 12 per distinct terminal (its table). `xz
//! -9` compresses the raw stream's bytes. The symbol counts (repeated paths in, symbols in
//! the grammar's bodies out) are printed too, as a unit-free check.
//!
//! Also printed: the blocks executed and the time per block of the emulator with no sink,
//! and what a block counter (the cheapest sink that sees every block) and strata add per
//! block, the time of a run counter (a sink that counts the blocks too but takes the
//! emulator's traces, so it works once per run of blocks, not per block), against the 0.3 x no-sink time per block that the 1.3x goal leaves; the grammar's own cost (the stream re-fed to fresh grammars, fastest of
//! RUNS batches of about 50 ms, in CPU ns per repeated path), the mean trip count of each level (cycles
//! closed per repeated unit: how much of the run repeats one loop body unchanged), and
//! the start rule's share of the grammar (the part of the stream that no rule repeats),
//! and the size of a grammar of the path ids alone (trip counts dropped, so not lossless:
//! how much of the grammar the trip counts cost).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use isa_emu::Machine;
use prof_events::{BlockId, BlockInfo, Control, Interest, Sink, TraceId, TracePart};
use strata::{PhaseConfig, StrataSink};

mod common;
use common::{config_from_env, guest_and_runs, machine, median, timed};

/// Wants every block's entry and only counts them: the floor of any per-block sink. With
/// `per_run` it takes the emulator's traces too, so a run through `n` parts of a trace is
/// one call that adds `n`: the floor of a sink that sees every block yet works once per run
/// of blocks (as a detector that memoized its steps per trace would).
struct CountBlocks {
    blocks: u64,
    per_run: bool,
}

impl CountBlocks {
    fn new(per_run: bool) -> Self {
        CountBlocks { blocks: 0, per_run }
    }
}

impl Sink for CountBlocks {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, _: &BlockInfo) -> Interest {
        Interest::BLOCK
    }
    fn block(&mut self, _: BlockId, _: u64) -> Control {
        self.blocks += 1;
        Control::Continue
    }
    fn trace_formed(&mut self, _: TraceId, _: &[TracePart]) -> bool {
        self.per_run
    }
    fn trace(&mut self, _: TraceId, n: u32) -> Control {
        self.blocks += u64::from(n);
        Control::Continue
    }
}

fn xz_len(data: &[u8]) -> Option<usize> {
    let mut child = Command::new("xz")
        .args(["-9", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    out.status.success().then_some(out.stdout.len())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, elf, runs) = guest_and_runs(&args);
    let guest_args = args.get(2..).unwrap_or(&[]);
    let config = config_from_env();
    let (mut none, mut with, mut count) = (Vec::new(), Vec::new(), Vec::new());
    let mut runs_count = Vec::new();
    let mut insns = 0;
    let mut blocks = 0;
    let mut last = None;
    // The kernel accounts CPU time per scheduler tick (4 ms here), so a timed sample
    // runs the guest `reps` times, enough for about 0.3 s, and is divided by `reps`.
    let mut warm = machine(&elf, guest_args);
    let once = Instant::now();
    warm.run(&mut ());
    let reps = (0.3 / once.elapsed().as_secs_f64().max(1e-6))
        .ceil()
        .clamp(1.0, 64.0) as usize;
    let machines = || -> Vec<Machine> { (0..reps).map(|_| machine(&elf, guest_args)).collect() };
    for _ in 0..runs {
        let mut ms = machines();
        none.push(
            timed(|| ms.iter_mut().for_each(|m| insns = m.run(&mut ()).instret)) / reps as f64,
        );

        // The block counter, then the run counter, which must count the same blocks.
        for (per_run, times) in [(false, &mut count), (true, &mut runs_count)] {
            let mut ms = machines();
            times.push(
                timed(|| {
                    ms.iter_mut().for_each(|m| {
                        let mut counter = CountBlocks::new(per_run);
                        m.run(&mut counter);
                        if per_run {
                            assert_eq!(counter.blocks, blocks, "traces stand for every block");
                        }
                        blocks = counter.blocks;
                    })
                }) / reps as f64,
            );
        }

        let mut ms = machines();
        let mut sinks: Vec<StrataSink> = (0..reps)
            .map(|_| StrataSink::new(&config, PhaseConfig::default()))
            .collect();
        with.push(
            timed(|| {
                for (m, sink) in ms.iter_mut().zip(&mut sinks) {
                    m.run(sink);
                    sink.finish();
                }
            }) / reps as f64,
        );
        last = sinks.pop();
    }
    // Paired: each run's strata time over the no-sink time measured just before it.
    let mut ratios: Vec<f64> = with.iter().zip(&none).map(|(w, n)| w / n).collect();
    let ratio = median(&mut ratios);
    let (a, b, c) = (median(&mut none), median(&mut with), median(&mut count));
    println!(
        "{path}: {insns} instructions, {runs} runs each ({reps} guest runs per timed run), \
         alternating"
    );
    println!(
        "  no sink       median {a:.4} s ({:.0} MIPS)",
        insns as f64 / a / 1e6
    );
    println!(
        "  block counter median {c:.4} s ({:.0} MIPS), ratio {:.3}",
        insns as f64 / c / 1e6,
        c / a
    );
    let r = median(&mut runs_count);
    println!(
        "  run counter   median {r:.4} s ({:.0} MIPS), ratio {:.3}",
        insns as f64 / r / 1e6,
        r / a
    );
    println!(
        "  strata sink   median {b:.4} s ({:.0} MIPS)",
        insns as f64 / b / 1e6
    );
    println!(
        "  ratio (strata / no sink): {ratio:.3} (median of per-run ratios; of medians {:.3})",
        b / a
    );
    // Per block: what the emulator takes with no sink, what the counter and strata add, and
    // what a sink may add for the 1.3x goal (0.3 of the no-sink time, spread over the blocks).
    let per_block = |s: f64| s * 1e9 / blocks.max(1) as f64;
    println!(
        "  {blocks} blocks: no sink {:.2} ns per block; the counter adds {:.2} ns, strata {:.2} ns; \
         the 1.3x goal leaves {:.3} ns per block",
        per_block(a),
        per_block(c - a),
        per_block(b - a),
        per_block(0.3 * a)
    );

    let Some(sink) = last else { return };
    let d = sink.detector();
    let Some(g) = d.grammar() else { return };
    let st = g.stats();
    let expanded = g.expand();
    assert_eq!(
        expanded.len() as u64,
        d.emitted(0),
        "the grammar expands to the stream"
    );
    // The grammar's share: the same stream fed to fresh grammars, timed alone (the fastest
    // of RUNS batches: the least disturbed by other work on the machine). A batch feeds the
    // stream often enough to last about 50 ms, far above the granularity of the kernel's
    // CPU-time accounting (a scheduler tick).
    let feed = || {
        let mut fresh = strata::Sequitur::new();
        for &r in &expanded {
            let _ = fresh.push(r);
        }
    };
    let once = Instant::now();
    feed();
    let batch = (0.05 / once.elapsed().as_secs_f64().max(1e-6))
        .ceil()
        .clamp(1.0, 1e4) as usize;
    let alone = (0..runs)
        .map(|_| timed(|| (0..batch).for_each(|_| feed())))
        .fold(f64::INFINITY, f64::min);
    let grammar_ns = alone * 1e9 / (batch * expanded.len()).max(1) as f64;
    println!(
        "  grammar alone: {grammar_ns:.1} ns per repeated path (the stream re-fed to a fresh \
         grammar, fastest of {runs})"
    );
    // What the stream is made of: paths closed per repeated path (the mean trip count: how
    // loop-bound the run is), and what the grammar's size is made of.
    let mean_trips = |k: usize| d.closed(k) as f64 / d.emitted(k).max(1) as f64;
    let trips_per_rep = mean_trips(0);
    println!(
        "  mean trips per repeated unit: paths {:.2}, strata {:.2}, layers {:.2}",
        mean_trips(0),
        mean_trips(1),
        mean_trips(2)
    );
    let path_ids: std::collections::HashSet<u32> = expanded.iter().map(|r| r.id).collect();
    let rule0 = g.body(0).map_or(0, |b| b.len());
    println!(
        "  {trips_per_rep:.2} paths per repeated path; {} terminals over {} distinct paths; \
         start rule {rule0} of {} symbols",
        st.terminals,
        path_ids.len(),
        st.symbols
    );
    // How much of the grammar the trip counts cost: a grammar of the path ids alone (not
    // lossless: the trip counts are dropped).
    let mut ids = strata::Sequitur::new();
    for r in &expanded {
        let _ = ids.push(r.id);
    }
    let ids = ids.stats();
    println!(
        "  path ids alone (trip counts dropped): {} symbols in {} rules, {:.2}x fewer symbols",
        ids.symbols,
        ids.rules,
        st.symbols as f64 / ids.symbols.max(1) as f64
    );
    let mut raw = Vec::with_capacity(expanded.len() * 12);
    for r in &expanded {
        raw.extend_from_slice(&r.id.to_le_bytes());
        raw.extend_from_slice(&r.trips.to_le_bytes());
    }
    let grammar_bytes = st.symbols * 4 + st.rules * 4 + st.terminals * 12;
    println!(
        "  levels: {} paths, {} repeated paths; {} strata, {} repeated strata; {} layers, {} repeated layers",
        d.distinct(0),
        d.emitted(0),
        d.distinct(1),
        d.emitted(1),
        d.distinct(2),
        d.emitted(2)
    );
    println!(
        "  grammar: {} repeated paths -> {} symbols in {} rules, {} distinct terminals",
        st.input_len, st.symbols, st.rules, st.terminals
    );
    println!(
        "  raw stream {} bytes, grammar {} bytes: {:.1}x smaller",
        raw.len(),
        grammar_bytes,
        raw.len() as f64 / grammar_bytes.max(1) as f64
    );
    // The grammar file (range-coded, see `strata::grammar_file`), checked by reading it back.
    let encode_start = Instant::now();
    let coded = g.encode();
    let encode_s = encode_start.elapsed().as_secs_f64();
    let back = strata::grammar_file::decode(&coded).expect("the grammar file reads back");
    assert_eq!(
        back.expand().expect("the grammar file expands"),
        expanded,
        "the grammar file expands to the stream"
    );
    println!(
        "  grammar file {} bytes: {:.1}x smaller than raw (written in {:.1} ms)",
        coded.len(),
        raw.len() as f64 / coded.len().max(1) as f64,
        encode_s * 1e3
    );
    let xz = xz_len(&raw);
    match xz {
        Some(x) => println!(
            "  xz -9 of the raw stream: {x} bytes ({:.1}x smaller than raw; grammar / xz = {:.2})",
            raw.len() as f64 / x.max(1) as f64,
            grammar_bytes as f64 / x.max(1) as f64
        ),
        None => println!("  xz: not available"),
    }
    println!(
        "summary instructions={insns} blocks={blocks} runs={runs} none_s={a:.6} counter_s={c:.6} \
         run_counter_s={r:.6} strata_s={b:.6} ratio={ratio:.4} \
         repeated_paths={} grammar_symbols={} grammar_rules={} terminals={} raw_bytes={} \
         grammar_bytes={grammar_bytes} coded_bytes={} xz_bytes={} grammar_ns={grammar_ns:.1} \
         trips_paths={trips_per_rep:.3} trips_strata={:.3} trips_layers={:.3} start_rule={rule0}",
        st.input_len,
        st.symbols,
        st.rules,
        st.terminals,
        raw.len(),
        coded.len(),
        xz.map_or(-1, |x| x as i64),
        mean_trips(1),
        mean_trips(2)
    );
}

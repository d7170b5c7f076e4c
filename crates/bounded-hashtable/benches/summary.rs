//! Prints the summary table of the goals, every ratio measured side by side in one
//! run: `cargo bench -p bounded-hashtable --bench summary` (`BHT_FULL=1` for 10^3..10^6
//! keys; the default uses 10^3 and 10^6). Sections: `lookups`, `thresholds` (the frequency
//! threshold's trade-off), `phase`, `alarms`; name some to run only those.

mod common;

use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bounded_hashtable::{Period, SortPolicy};
use common::*;

/// Timed repetitions; the fastest counts (the machine is shared).
const REPS: usize = 5;

fn time<F: FnMut() -> u64>(mut f: F) -> Duration {
    let start = Instant::now();
    std::hint::black_box(f());
    start.elapsed()
}

/// Lookups per timed chunk: short enough (~0.1-1 ms) that most chunks run without being
/// preempted, so the sum of per-chunk minima over the passes filters out a shared machine's
/// noise. Every table runs the same chunks (a sorted table's pass falls in the same chunk of
/// every pass, so its cost is included).
const CHUNK: usize = 1 << 14;

/// Runs `f` over `stream` chunk by chunk, keeping each chunk's fastest time in `best`.
fn chunked(best: &mut [Duration], stream: &[u64], mut f: impl FnMut(&[u64]) -> u64) {
    for (b, c) in best.iter_mut().zip(stream.chunks(CHUNK)) {
        *b = (*b).min(time(|| f(c)));
    }
}

fn mops(d: Duration) -> f64 {
    STREAM as f64 / d.as_secs_f64() / 1e6
}

/// Prints the lookup table. `probe bound` is the unsorted table's mean probe depth over the
/// probe floor (the mean depth of the best order of every chain, hottest first): the
/// sorted/unsorted ratio a table could reach if its lookups cost nothing but probes, at
/// equal cost per probe. A lookup's fixed cost (hashing, counting) only lowers the ratio,
/// so where probes cost the same (a table that fits in the cache) and the bound is below a
/// goal, no order of the chains reaches that goal. In a table larger than the cache a probe
/// past the head is likelier to miss, and the ratio can pass the bound.
fn lookup_table() {
    println!("## Counted lookups (*get_mut(k) += 1), Mlookups/s: {REPS} passes of 2^20, each chunk of {CHUNK} timed, sum of the per-chunk minima");
    println!("| zipf s | keys | load | sorted | hashbrown | unsorted | move-to-front | sorted/hashbrown | sorted/unsorted | sorted/mtf | probe sorted | probe unsorted | probe floor | probe bound | unsorted laid out | sorted/laid out |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &s in &SKEWS {
        for &n in &sizes() {
            let warm = zipf_stream(n, s, 2 * STREAM, 1);
            let stream = zipf_stream(n, s, STREAM, 2);
            for &load in &LOADS {
                let mut t = Contenders::new(n, load, &warm);
                t.sorted.1.reset_stats();
                t.unsorted.1.reset_stats();
                let chunks = stream.len().div_ceil(CHUNK);
                let mut best: [Vec<Duration>; 5] =
                    std::array::from_fn(|_| vec![Duration::MAX; chunks]);
                let mut probes = (0.0, 0.0);
                for rep in 0..REPS {
                    chunked(&mut best[0], &stream, |c| run(&mut t.sorted, c));
                    chunked(&mut best[1], &stream, |c| run(&mut t.hashbrown, c));
                    chunked(&mut best[2], &stream, |c| run(&mut t.unsorted, c));
                    chunked(&mut best[3], &stream, |c| run(&mut t.mtf, c));
                    chunked(&mut best[4], &stream, |c| run(&mut t.laid_out, c));
                    if rep == 0 {
                        // Mean probe depth of the first pass: the order the warm-up sorts left.
                        probes = (
                            t.sorted.1.stats().mean_probe_depth(),
                            t.unsorted.1.stats().mean_probe_depth(),
                        );
                    }
                }
                let m: Vec<f64> = best.iter().map(|b| mops(b.iter().sum())).collect();
                let floor = probe_floor(&t.sorted.1, n, s);
                println!(
                    "| {s} | {n} | {load} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} | {:.3} | {:.3} | {:.3} | {:.2} | {:.1} | {:.2} |",
                    m[0],
                    m[1],
                    m[2],
                    m[3],
                    m[0] / m[1],
                    m[0] / m[2],
                    m[0] / m[3],
                    probes.0,
                    probes.1,
                    floor,
                    probes.1 / floor,
                    m[4],
                    m[0] / m[4]
                );
            }
        }
    }
}

/// Frequency thresholds compared side by side (the default policy's is 4; 64 was).
const THRESHOLDS: [u64; 4] = [1, 4, 16, 64];

/// Prints the frequency-threshold table: the sorted table with each of [`THRESHOLDS`]
/// against hashbrown and the unsorted table at loads 1 and 4, all timed in the same passes,
/// so that the trade-off between fewer probes (more entries sorted) and costlier passes is
/// measured in one run rather than across runs of a shared machine.
fn threshold_table() {
    println!();
    println!("## Frequency threshold (entries qualify with this many accesses in the period of 2^20), counted lookups as above");
    print!("| zipf s | keys | load | hashbrown | unsorted |");
    for t in THRESHOLDS {
        print!(" sorted {t} | /hashbrown | /unsorted | probe |");
    }
    println!();
    println!(
        "|---|---|---|---|---|{}",
        "---|---|---|---|".repeat(THRESHOLDS.len())
    );
    for &s in &SKEWS {
        for &n in &sizes() {
            let warm = zipf_stream(n, s, 2 * STREAM, 1);
            let stream = zipf_stream(n, s, STREAM, 2);
            for load in [1, 4] {
                let mut map = prepared(hashbrown(n), n, &warm);
                let mut unsorted = prepared(Named("unsorted", unsorted(n, load)), n, &warm);
                let mut tables: Vec<Named<Sorted>> = THRESHOLDS
                    .iter()
                    .map(|&frequency_threshold| {
                        let t = sorted(n, load).with_policy(SortPolicy {
                            frequency_threshold,
                            ..SortPolicy::default()
                        });
                        let mut t = prepared(Named("sorted", t), n, &warm);
                        t.1.reset_stats();
                        t
                    })
                    .collect();
                let chunks = stream.len().div_ceil(CHUNK);
                let mut best = vec![vec![Duration::MAX; chunks]; 2 + THRESHOLDS.len()];
                let mut probes = vec![0.0; THRESHOLDS.len()];
                for rep in 0..REPS {
                    chunked(&mut best[0], &stream, |c| run(&mut map, c));
                    chunked(&mut best[1], &stream, |c| run(&mut unsorted, c));
                    for (i, t) in tables.iter_mut().enumerate() {
                        chunked(&mut best[2 + i], &stream, |c| run(t, c));
                        if rep == 0 {
                            probes[i] = t.1.stats().mean_probe_depth();
                        }
                    }
                }
                let m: Vec<f64> = best.iter().map(|b| mops(b.iter().sum())).collect();
                print!("| {s} | {n} | {load} | {:.1} | {:.1} |", m[0], m[1]);
                for (i, p) in probes.iter().enumerate() {
                    let r = m[2 + i];
                    print!(
                        " {r:.1} | {:.2} | {:.2} | {p:.3} |",
                        r / m[0].max(1e-9),
                        r / m[1].max(1e-9)
                    );
                }
                println!();
            }
        }
    }
}

/// Period of the phase experiments, in accesses.
const K: usize = 1 << 16;
const PHASE_KEYS: usize = 10_000;

/// A prepared table for the phase experiments: every key present, one empty pass so that
/// pass `p + 1` ends stream period `p`; returns the table and the passes that fired.
fn phase_table(load: usize) -> (Sorted, Arc<Mutex<Vec<u64>>>) {
    let mut t = sorted(PHASE_KEYS, load).with_policy(SortPolicy {
        period: Period::Accesses(NonZeroU64::new(K as u64).unwrap_or(NonZeroU64::MIN)),
        ..SortPolicy::default()
    });
    for k in shuffled_keys(PHASE_KEYS, 7) {
        t.insert(k, 0);
    }
    t.sort();
    let fired = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&fired);
    t.set_phase_callback(Some(Box::new(move |r| {
        if let Ok(mut v) = sink.lock() {
            v.push(r.pass - 1);
        }
    })));
    (t, fired)
}

fn fired(passes: &Arc<Mutex<Vec<u64>>>) -> Vec<u64> {
    passes.lock().map(|v| v.clone()).unwrap_or_default()
}

fn phase_shift() {
    println!();
    println!("## Phase shift: {PHASE_KEYS} keys, Zipf 1.1, load 4, period 2^16 accesses, hot set reversed after 20 + f periods");
    println!("(throughput: 10 periods after the shift vs the 10 before, {REPS} replays, sum of per-chunk minima; latency: from the shift to the end of the first period whose pass fired)");
    println!("| f | Mlookups/s before | after | after/before | fired at period ends | latency (periods) | false alarms before shift (periods 2..20) |");
    println!("|---|---|---|---|---|---|---|");
    let zipf = Zipf::new(PHASE_KEYS, 1.1);
    let ranks = zipf.ranks(40 * K, 3);
    let last = PHASE_KEYS as u64 - 1;
    for f in [0.25, 0.5, 0.75] {
        let shift = ((20.0 + f) * K as f64) as usize;
        let stream: Vec<u64> = ranks
            .iter()
            .enumerate()
            .map(|(i, &r)| scramble(if i < shift { r as u64 } else { last - r as u64 }))
            .collect();
        // Every repetition replays the same stream on a fresh table, so its chunks are the
        // same work each time: the per-chunk minima filter out preemption.
        let window = |w: &[u64]| vec![Duration::MAX; w.len().div_ceil(CHUNK)];
        let (before_w, after_w) = (
            &stream[shift - 10 * K..shift],
            &stream[shift..shift + 10 * K],
        );
        let (mut before, mut after) = (window(before_w), window(after_w));
        let mut passes = Vec::new();
        for _ in 0..REPS {
            let (t, p) = phase_table(4);
            let mut t = Named("sorted", t);
            run(&mut t, &stream[..shift - 10 * K]);
            chunked(&mut before, before_w, |c| run(&mut t, c));
            chunked(&mut after, after_w, |c| run(&mut t, c));
            passes = fired(&p);
        }
        let (before, after): (Duration, Duration) = (before.iter().sum(), after.iter().sum());
        let rate = |d: Duration| (10 * K) as f64 / d.as_secs_f64() / 1e6;
        let first_after = passes.iter().find(|&&p| p as usize * K > shift);
        let latency = first_after.map_or("never".to_string(), |&p| {
            format!("{:.2}", (p as usize * K - shift) as f64 / K as f64)
        });
        let false_alarms = passes.iter().filter(|&&p| (2..=20).contains(&p)).count();
        println!(
            "| {f} | {:.1} | {:.1} | {:.3} | {:?} | {latency} | {false_alarms} |",
            rate(before),
            rate(after),
            before.as_secs_f64() / after.as_secs_f64(),
            passes
        );
    }
}

fn false_alarms() {
    println!();
    println!("## False alarms on stationary streams: {PHASE_KEYS} keys, period 2^16, passes of periods 3..22 (20 periods)");
    println!("| zipf s | load | phase changes / 20 periods | reversals in those passes |");
    println!("|---|---|---|---|");
    for &s in &SKEWS {
        let stream = zipf_stream(PHASE_KEYS, s, 22 * K, 5);
        for &load in &LOADS {
            let (t, p) = phase_table(load);
            let mut t = Named("sorted", t);
            run(&mut t, &stream[..2 * K]);
            t.1.reset_stats();
            run(&mut t, &stream[2 * K..]);
            let alarms = fired(&p).iter().filter(|&&p| p >= 3).count();
            println!("| {s} | {load} | {alarms} | {} |", t.1.stats().reversals);
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects sections.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let want = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    if want("lookups") {
        lookup_table();
    }
    if want("thresholds") {
        threshold_table();
    }
    if want("phase") {
        phase_shift();
    }
    if want("alarms") {
        false_alarms();
    }
}

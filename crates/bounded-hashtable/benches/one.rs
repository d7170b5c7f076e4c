//! One configuration of the summary's lookup table, for profilers (perf, cachegrind): builds
//! and warms one table exactly as `summary` does, then counts the stream `BHT_REPS` times.
//! `BHT_TABLE` = sorted | hashbrown | unsorted | move-to-front (or one of the diagnostic
//! tables below), `BHT_KEYS` (default 10^6),
//! `BHT_LOAD` (4), `BHT_S` (1.1), `BHT_REPS` (5). Prints Mlookups/s of each pass, the median
//! and slowest 2^14-lookup chunk, and chunk 2 (at 10^6 keys the one holding the sorted
//! table's pass), then
//! the mean probe depth. `probe-mtf` / `probe-plain`: a move-to-front / insertion-order
//! chained table with 4-byte heads that also counts its probes (for comparing depths);
//! `heads-copy`: that table (no move-to-front) holding the sorted table's chains after the
//! warm-up, each chain's nodes adjacent (the same order without inline heads);
//! `unsorted-laid-out`: the unsorted table after a pass that moves nothing.

mod common;

use std::time::Instant;

use common::*;

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn measure<C: Counter>(table: C, n: usize, warm: &[u64], stream: &[u64], reps: usize) -> C {
    let mut t = prepared(table, n, warm);
    for _ in 0..reps {
        let mut chunks: Vec<f64> = stream
            .chunks(1 << 14)
            .map(|c| {
                let start = Instant::now();
                std::hint::black_box(run(&mut t, c));
                start.elapsed().as_secs_f64()
            })
            .collect();
        let total: f64 = chunks.iter().sum();
        let last = chunks[2];
        chunks.sort_by(f64::total_cmp);
        println!(
            "{} {:.1} Mlookups/s; chunk of 2^14: median {:.2} ms, max {:.2} ms, chunk 2 {:.2} ms",
            t.name(),
            STREAM as f64 / total / 1e6,
            chunks[chunks.len() / 2] * 1e3,
            chunks[chunks.len() - 1] * 1e3,
            last * 1e3
        );
    }
    t
}

fn main() {
    let n = env("BHT_KEYS", 1_000_000usize);
    let load = env("BHT_LOAD", 4usize);
    let s = env("BHT_S", 1.1f64);
    let reps = env("BHT_REPS", 5usize);
    let which = std::env::var("BHT_TABLE").unwrap_or_else(|_| "sorted".into());
    let warm = zipf_stream(n, s, 2 * STREAM, 1);
    let stream = zipf_stream(n, s, STREAM, 2);
    match which.as_str() {
        "hashbrown" => drop(measure(hashbrown(n), n, &warm, &stream, reps)),
        "unsorted-laid-out" => {
            let t = measure(laid_out(n, load, &warm), 0, &[], &stream, reps);
            println!("mean probe depth {:.3}", t.1.stats().mean_probe_depth());
        }
        "heads-copy" => {
            // The sorted table's chains after the warm-up, copied in chain order into a
            // table of 4-byte heads and adjacent 24-byte nodes (no move-to-front): the
            // same probes without inline heads.
            let t = prepared(Named("sorted", sorted(n, load)), n, &warm);
            let mut p = Chained::<false, true>::new(n, load);
            for b in 0..t.1.bucket_count() {
                let chain: Vec<u64> = t.1.chain(b).map(|(k, _, _)| *k).collect();
                let start = p.nodes.len();
                for (j, &k) in chain.iter().enumerate() {
                    let next = if j + 1 < chain.len() {
                        (start + j + 1) as u32
                    } else {
                        u32::MAX
                    };
                    p.nodes.push((k, 0, next));
                }
                if !chain.is_empty() {
                    p.heads[b] = start as u32;
                }
            }
            let t = measure(p, 0, &[], &stream, reps);
            println!("mean probe depth {:.3}", t.probes as f64 / t.hits as f64);
        }
        "unsorted" => drop(measure(
            Named("unsorted", unsorted(n, load)),
            n,
            &warm,
            &stream,
            reps,
        )),
        "move-to-front" => drop(measure(MoveToFront::new(n, load), n, &warm, &stream, reps)),
        "probe-mtf" => probe_depth(Chained::<true, true>::new(n, load), n, &warm, &stream, reps),
        "probe-plain" => probe_depth(
            Chained::<false, true>::new(n, load),
            n,
            &warm,
            &stream,
            reps,
        ),
        _ => {
            let t = measure(Named("sorted", sorted(n, load)), n, &warm, &stream, reps);
            let st = t.1.stats();
            println!(
                "mean probe depth {:.3}; per pass: {:.0} buckets sorted, {:.0} entries moved",
                st.mean_probe_depth(),
                st.buckets_sorted as f64 / st.sorts as f64,
                st.entries_moved as f64 / st.sorts as f64
            );
        }
    }
}

/// Runs a probe-counting chained table like the others (`n` keys, warmed up) and prints
/// its mean probe depth over the measured passes.
fn probe_depth<const MTF: bool>(
    table: Chained<MTF, true>,
    n: usize,
    warm: &[u64],
    stream: &[u64],
    reps: usize,
) {
    let mut t = prepared(table, n, warm);
    t.probes = 0;
    t.hits = 0;
    let t = measure(t, 0, &[], stream, reps);
    println!("mean probe depth {:.3}", t.probes as f64 / t.hits as f64);
}

#![allow(missing_docs)] // criterion_group! generates an undocumented function.
//! Criterion benchmarks: counted lookups (`*get_mut(k) += 1`) of scrambled u64 keys drawn
//! from Zipf(s) for the sorted table, hashbrown + foldhash, the same chained table with
//! sorting off (also once laid out by a pass that moves nothing), and a move-to-front
//! chained table. `BHT_FULL=1` sweeps 10^3..10^6 keys; the default run uses 10^3 and 10^6.
//! The `summary` bench prints the ratios side by side.

mod common;

use std::time::Duration;

use common::*;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Lookups per criterion iteration.
const CHUNK: usize = 1 << 16;

fn lookups(c: &mut Criterion) {
    for &s in &SKEWS {
        for &n in &sizes() {
            let warm = zipf_stream(n, s, STREAM, 1);
            let stream = zipf_stream(n, s, STREAM, 2);
            for &load in &LOADS {
                let mut group = c.benchmark_group(format!("zipf{s}/n{n}/load{load}"));
                group
                    .throughput(Throughput::Elements(CHUNK as u64))
                    .sample_size(10)
                    .warm_up_time(Duration::from_millis(300))
                    .measurement_time(Duration::from_secs(1));
                let mut t = Contenders::new(n, load, &warm);
                // Each iteration counts the next CHUNK keys of the stream (wrapping), so slow
                // configurations stay short and the sorted table still sorts every 2^20.
                let mut bench = |name: &str, f: &mut dyn FnMut(&[u64]) -> u64| {
                    let mut at = 0;
                    group.bench_function(BenchmarkId::from_parameter(name), |b| {
                        b.iter(|| {
                            at = (at + CHUNK) % STREAM;
                            black_box(f(&stream[at..at + CHUNK]))
                        })
                    });
                };
                bench("sorted", &mut |c| run(&mut t.sorted, c));
                bench("unsorted", &mut |c| run(&mut t.unsorted, c));
                bench("move-to-front", &mut |c| run(&mut t.mtf, c));
                bench("unsorted-laid-out", &mut |c| run(&mut t.laid_out, c));
                // hashbrown has no load parameter: measured once per (s, n).
                if load == 1 {
                    bench("hashbrown", &mut |c| run(&mut t.hashbrown, c));
                }
                group.finish();
            }
        }
    }
}

criterion_group!(benches, lookups);
criterion_main!(benches);

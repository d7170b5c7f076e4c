//! Hotlist against Space-Saving, Misra-Gries (datasketches) and HeavyKeeper (heavykeeper)
//! at equal memory on Zipf streams, printed as one table.
//!
//! `cargo bench -j1 -p hotlist --bench anchors` runs the sweep (s in {0.8, 1.1, 1.5},
//! N in {16, 256, 1000}, 2^20 keys) with 10^6 events, about 1 minute on 2 busy cores;
//! `-- --full` uses the specified 10^7 events (about 10 minutes). `--s 1.5` and `--n 1000`
//! (each repeatable) restrict the sweep to those rows, for repeated runs of a few cases.
//! Memory budget per N: the bytes of the hotlist of N tuples (`Hotlist::memory_bytes`);
//! each anchor gets the largest size whose own estimate of its bytes fits in it.

use std::collections::HashSet;
use std::hint::black_box;
use std::time::Instant;

use datasketches::frequencies::{ErrorType, FrequentItemsSketch};
use heavykeeper::TopK;
use hotlist::space_saving::SpaceSaving;
use hotlist::{Config, Hotlist, Policy};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const KEYS: usize = 1 << 20;

/// Zipf(s) over KEYS ranks by inverse CDF; rank r becomes key r * odd mod 2^20 (a
/// bijection) so frequent keys are not small numbers.
fn zipf_stream(s: f64, events: usize, seed: u64) -> Vec<u64> {
    let mut cdf = Vec::with_capacity(KEYS);
    let mut acc = 0.0;
    for r in 1..=KEYS {
        acc += 1.0 / (r as f64).powf(s);
        cdf.push(acc);
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..events)
        .map(|_| {
            let u = rng.gen::<f64>() * acc;
            let rank = cdf.partition_point(|&c| c < u).min(KEYS - 1) as u64;
            (rank.wrapping_mul(0x9E37_79B1)) & (KEYS as u64 - 1)
        })
        .collect()
}

/// What one algorithm reports after the stream.
struct Outcome {
    name: String,
    bytes: usize,
    secs: f64,
    /// Reported top K (by its own estimates), for each K asked.
    tops: Vec<Vec<u64>>,
    /// Its estimates of the true top-K keys (largest K), 0 if not tracked.
    estimates: Vec<f64>,
}

fn timed(stream: &[u64], mut f: impl FnMut(u64)) -> f64 {
    let t = Instant::now();
    for &k in stream {
        f(black_box(k));
    }
    t.elapsed().as_secs_f64()
}

fn run_hotlist(policy: Policy, n: usize, stream: &[u64], ks: &[usize], truth: &[u64]) -> Outcome {
    let cfg = Config::new(n).with_policy(policy);
    let mut h = Hotlist::<u64>::with_seed(cfg, 7).expect("valid config");
    let secs = timed(stream, |k| h.update(k));
    let name = match policy {
        Policy::Concise => "hotlist concise",
        Policy::Counting => "hotlist counting",
        Policy::Adaptive { .. } => "hotlist adaptive",
    };
    Outcome {
        name: format!("{name} N={n}"),
        bytes: h.memory_bytes(),
        secs,
        tops: ks
            .iter()
            .map(|&k| h.top(k).map(|(v, _)| *v).collect())
            .collect(),
        estimates: truth.iter().map(|v| h.estimate_of(v)).collect(),
    }
}

fn run_space_saving(budget: usize, stream: &[u64], ks: &[usize], truth: &[u64]) -> Outcome {
    let mut m = 1;
    while SpaceSaving::<u64>::bytes_for(m + 1) <= budget {
        m += 1;
    }
    let mut ss = SpaceSaving::<u64>::new(m).expect("m >= 1");
    let secs = timed(stream, |k| ss.update(k));
    Outcome {
        name: format!("space-saving m={m}"),
        bytes: ss.memory_bytes(),
        secs,
        tops: ks
            .iter()
            .map(|&k| ss.top(k).into_iter().map(|e| e.0).collect())
            .collect(),
        estimates: truth.iter().map(|v| ss.estimate(v) as f64).collect(),
    }
}

/// Bytes of a full Misra-Gries sketch of map size 2^lg.
fn mg_full_bytes(lg: u32) -> usize {
    let mut s = FrequentItemsSketch::<u64>::new(1 << lg).expect("power of two");
    for k in 0..(4u64 << lg) {
        s.update(k);
    }
    s.estimated_size()
}

fn run_misra_gries(budget: usize, stream: &[u64], ks: &[usize], truth: &[u64]) -> Outcome {
    let mut lg = 3;
    while lg < 20 && mg_full_bytes(lg + 1) <= budget {
        lg += 1;
    }
    let mut s = FrequentItemsSketch::<u64>::new(1 << lg).expect("power of two");
    let secs = timed(stream, |k| s.update(k));
    let mut rows = s.frequent_items_with_threshold(ErrorType::NoFalseNegatives, 0);
    rows.sort_by_key(|r| std::cmp::Reverse(r.estimate()));
    Outcome {
        name: format!("misra-gries map={}", 1 << lg),
        bytes: s.estimated_size(),
        secs,
        tops: ks
            .iter()
            .map(|&k| rows.iter().take(k).map(|r| *r.item()).collect())
            .collect(),
        estimates: truth.iter().map(|v| s.estimate(v) as f64).collect(),
    }
}

fn run_heavykeeper(budget: usize, stream: &[u64], ks: &[usize], truth: &[u64]) -> Outcome {
    let k_max = ks.iter().copied().max().unwrap_or(1);
    let (depth, decay) = (2, 0.9);
    let mem = |w: usize| TopK::<u64>::new(k_max, w, depth, decay).mem_bytes(|_| 0);
    let (m1, m2) = (mem(1), mem(2));
    let slope = (m2 - m1).max(1);
    // Leave room for the top-k queue, which grows as it fills.
    let queue = k_max * 48;
    let w = (budget.saturating_sub(m1 + queue) / slope + 1).max(1);
    let mut hk = TopK::<u64>::new(k_max, w, depth, decay);
    let secs = timed(stream, |k| hk.add(&k, 1));
    let mut nodes = hk.list();
    nodes.sort_by_key(|n| std::cmp::Reverse(n.count));
    Outcome {
        name: format!("heavykeeper k={k_max} w={w} d={depth}"),
        bytes: hk.mem_bytes(|_| 0),
        secs,
        tops: ks
            .iter()
            .map(|&k| nodes.iter().take(k).map(|n| n.item).collect())
            .collect(),
        estimates: truth.iter().map(|v| hk.count(v) as f64).collect(),
    }
}

/// The values following each `flag` on the command line (all of `all` when none).
fn chosen<T: Copy + std::str::FromStr>(args: &[String], flag: &str, all: &[T]) -> Vec<T> {
    let picked: Vec<T> = args
        .windows(2)
        .filter(|w| w[0] == flag)
        .filter_map(|w| w[1].parse().ok())
        .collect();
    if picked.is_empty() {
        all.to_vec()
    } else {
        picked
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let full = args.iter().any(|a| a == "--full");
    let events = if full { 10_000_000 } else { 1_000_000 };
    println!("# hotlist anchors: Zipf over 2^20 keys, {events} events, one table (K = max(1, N/100), max(1, N/10))");
    println!(
        "{:<5} {:>5} {:>4}  {:<34} {:>9} {:>7} {:>7} {:>8} {:>9} {:>8}",
        "s", "N", "K", "algorithm", "bytes", "recall", "prec", "ARE", "Mupd/s", "vs SS"
    );
    for s in chosen(&args, "--s", &[0.8, 1.1, 1.5]) {
        let stream = zipf_stream(s, events, 42);
        let mut counts = vec![0u64; KEYS];
        for &k in &stream {
            counts[k as usize] += 1;
        }
        let mut order: Vec<u64> = (0..KEYS as u64).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(counts[k as usize]));
        for n in chosen(&args, "--n", &[16usize, 256, 1000]) {
            let ks: Vec<usize> = {
                let mut v = vec![(n / 100).max(1), (n / 10).max(1)];
                v.dedup();
                v
            };
            let k_max = *ks.iter().max().unwrap_or(&1);
            let truth = &order[..k_max];
            let mut outs = vec![
                run_hotlist(Policy::Concise, n, &stream, &ks, truth),
                run_hotlist(Policy::Counting, n, &stream, &ks, truth),
                run_hotlist(Policy::default(), n, &stream, &ks, truth),
            ];
            let budget = outs[1].bytes;
            outs.push(run_space_saving(budget, &stream, &ks, truth));
            outs.push(run_misra_gries(budget, &stream, &ks, truth));
            outs.push(run_heavykeeper(budget, &stream, &ks, truth));
            let ss_rate = events as f64 / outs[3].secs;
            for (ki, &k) in ks.iter().enumerate() {
                let kth = counts[order[k - 1] as usize];
                for o in &outs {
                    let reported: HashSet<u64> = o.tops[ki].iter().copied().collect();
                    let correct = reported
                        .iter()
                        .filter(|&&v| counts[v as usize] >= kth)
                        .count();
                    let recall = correct as f64 / k as f64;
                    let prec = if reported.is_empty() {
                        0.0
                    } else {
                        correct as f64 / reported.len() as f64
                    };
                    let are = (0..k)
                        .map(|i| {
                            let t = counts[order[i] as usize] as f64;
                            (o.estimates[i] - t).abs() / t
                        })
                        .sum::<f64>()
                        / k as f64;
                    let rate = events as f64 / o.secs;
                    println!(
                        "{:<5} {:>5} {:>4}  {:<34} {:>9} {:>7.3} {:>7.3} {:>8.4} {:>9.1} {:>7.2}x",
                        s,
                        n,
                        k,
                        o.name,
                        o.bytes,
                        recall,
                        prec,
                        are,
                        rate / 1e6,
                        rate / ss_rate
                    );
                }
            }
        }
    }
}

//! Statistical properties over many seeds: invariant values, unbiased estimates, fast coin
//! paths distributed as the one-coin-at-a-time definition.

use hotlist::{CoinSource, Config, Hotlist, Mode, PcgCoins, Policy};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A PCG source that only implements `flip`: the batched methods use the trait's
/// one-coin-at-a-time definitions.
struct SlowCoins(PcgCoins);

impl CoinSource for SlowCoins {
    fn flip(&mut self, p: f64) -> bool {
        self.0.flip(p)
    }
}

/// A fixed stream over 200 values whose frequencies fall off geometrically (value 0 is ~25%).
fn stream(len: usize) -> (Vec<u32>, Vec<u64>) {
    let mut rng = Pcg64Mcg::seed_from_u64(99);
    let mut truth = vec![0u64; 200];
    let s: Vec<u32> = (0..len)
        .map(|_| {
            let mut v = 0u32;
            while v < 199 && rng.gen::<f64>() < 0.75 {
                v += 1;
                if rng.gen::<f64>() < 0.5 {
                    break;
                }
            }
            truth[v as usize] += 1;
            v
        })
        .collect();
    (s, truth)
}

struct Moments {
    mean: f64,
    sd: f64,
}

fn moments(xs: &[f64]) -> Moments {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Moments {
        mean,
        sd: var.sqrt(),
    }
}

/// Mean estimate of each of the `top` most frequent values over `runs` seeds.
fn estimates<R: CoinSource>(
    policy: Policy,
    n: usize,
    runs: u64,
    top: usize,
    make: impl Fn(u64) -> R,
) -> (Vec<Moments>, Vec<u64>) {
    let (s, truth) = stream(20_000);
    let mut order: Vec<usize> = (0..truth.len()).collect();
    order.sort_by_key(|&v| std::cmp::Reverse(truth[v]));
    let mut per_value = vec![Vec::new(); top];
    for seed in 0..runs {
        let cfg = Config::new(n).with_policy(policy);
        let mut h = Hotlist::with_coins(cfg, make(seed)).unwrap();
        for &v in &s {
            h.update(v);
        }
        assert!(h.probability() < 1.0, "the test must exercise reductions");
        for (i, &v) in order.iter().take(top).enumerate() {
            per_value[i].push(h.estimate_of(&(v as u32)));
        }
    }
    let truths = order.iter().take(top).map(|&v| truth[v]).collect();
    (per_value.iter().map(|x| moments(x)).collect(), truths)
}

/// Unbiasedness: the mean over 300 seeds lies within 4 standard errors of the true count
/// (plus 1% for the approximations the spec's estimators make).
fn assert_unbiased(policy: Policy) {
    let runs = 300;
    let (ms, truths) = estimates(policy, 8, runs, 3, PcgCoins::new);
    for (m, &t) in ms.iter().zip(&truths) {
        let se = m.sd / (runs as f64).sqrt();
        let tol = 4.0 * se + 0.01 * t as f64;
        assert!(
            (m.mean - t as f64).abs() <= tol,
            "{policy:?}: mean {} vs true {t} (tolerance {tol})",
            m.mean
        );
    }
}

#[test]
fn concise_estimates_are_unbiased() {
    assert_unbiased(Policy::Concise);
}

#[test]
fn counting_estimates_are_unbiased() {
    assert_unbiased(Policy::Counting);
}

/// N above `LINEAR_SCAN_MAX`: reduction rounds move cut tuples into place and keep the
/// hash index instead of re-sorting; the estimates stay unbiased. The stream: values 0, 1 and 2 make up 1/4, 1/8 and 1/16 of it, the rest is spread over
/// 3000 light values, so a hotlist of 48 tuples reduces often.
#[test]
fn indexed_hotlists_are_unbiased() {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut truth = [0u64; 3];
    let s: Vec<u32> = (0..20_000)
        .map(|_| match rng.gen_range(0..16) {
            0..=3 => 0,
            4 | 5 => 1,
            6 => 2,
            _ => rng.gen_range(3..3003),
        })
        .inspect(|&v| {
            if let Some(t) = truth.get_mut(v as usize) {
                *t += 1;
            }
        })
        .collect();
    let runs = 200;
    for policy in [Policy::Concise, Policy::Counting] {
        let mut per_value = vec![Vec::new(); 3];
        for seed in 0..runs {
            let cfg = Config::new(48).with_policy(policy);
            let mut h = Hotlist::with_seed(cfg, seed).unwrap();
            for &v in &s {
                h.update(v);
            }
            assert!(h.probability() < 0.5, "the test must exercise reductions");
            for (v, est) in per_value.iter_mut().enumerate() {
                est.push(h.estimate_of(&(v as u32)));
            }
        }
        for (est, &t) in per_value.iter().zip(&truth) {
            let m = moments(est);
            let tol = 4.0 * m.sd / (runs as f64).sqrt() + 0.01 * t as f64;
            assert!(
                (m.mean - t as f64).abs() <= tol,
                "{policy:?}: mean {} vs true {t} (tolerance {tol})",
                m.mean
            );
        }
    }
}

/// The fast samplers (geometric skips, binomial, capped geometric) give the same estimate
/// distribution as flipping every coin: means agree within 5 standard errors of their
/// difference and standard deviations within 20%.
#[test]
fn fast_paths_match_one_coin_at_a_time() {
    for policy in [Policy::Concise, Policy::Counting] {
        let runs = 200;
        let (fast, _) = estimates(policy, 8, runs, 3, |s| PcgCoins::new(s + 1_000));
        let (slow, _) = estimates(policy, 8, runs, 3, |s| SlowCoins(PcgCoins::new(s)));
        for (f, s) in fast.iter().zip(&slow) {
            let se = ((f.sd.powi(2) + s.sd.powi(2)) / runs as f64).sqrt();
            assert!(
                (f.mean - s.mean).abs() <= 5.0 * se,
                "{policy:?}: {} vs {}",
                f.mean,
                s.mean
            );
            assert!(
                (f.sd / s.sd - 1.0).abs() < 0.2,
                "{policy:?}: sd {} vs {}",
                f.sd,
                s.sd
            );
        }
    }
}

#[test]
fn coin_samplers_have_the_defined_moments() {
    let mut fast = PcgCoins::new(5);
    let mut slow = SlowCoins(PcgCoins::new(6));
    let n = 20_000;
    for p in [0.01, 0.3, 0.9] {
        let f: Vec<f64> = (0..n).map(|_| fast.falses_before_true(p) as f64).collect();
        let s: Vec<f64> = (0..n).map(|_| slow.falses_before_true(p) as f64).collect();
        let want = (1.0 - p) / p;
        for m in [moments(&f), moments(&s)] {
            assert!(
                (m.mean - want).abs() < 5.0 * m.sd / (n as f64).sqrt(),
                "{p}: {}",
                m.mean
            );
        }
        let b: Vec<f64> = (0..n).map(|_| fast.binomial(40, p) as f64).collect();
        let m = moments(&b);
        assert!((m.mean - 40.0 * p).abs() < 5.0 * m.sd / (n as f64).sqrt() + 1e-9);
        assert!((m.sd.powi(2) / (40.0 * p * (1.0 - p)) - 1.0).abs() < 0.1);
        let c: Vec<f64> = (0..n)
            .map(|_| fast.trues_before_false(p, 3) as f64)
            .collect();
        let d: Vec<f64> = (0..n)
            .map(|_| slow.trues_before_false(p, 3) as f64)
            .collect();
        let (mc, md) = (moments(&c), moments(&d));
        assert!(
            (mc.mean - md.mean).abs()
                < 5.0 * ((mc.sd.powi(2) + md.sd.powi(2)) / n as f64).sqrt() + 1e-9
        );
        assert!(c.iter().all(|&x| x <= 3.0));
    }
}

/// An invariant value is always reported with 100% of the samples, in every mode, for
/// every seed: its tuple is the only one and holds every event.
#[test]
fn invariant_value_always_has_all_samples() {
    for policy in [Policy::Concise, Policy::Counting, Policy::default()] {
        for seed in 0..200 {
            for n in [1, 3, 16, 100] {
                let mut h = Hotlist::with_seed(Config::new(n).with_policy(policy), seed).unwrap();
                for _ in 0..1_000 {
                    h.update((0x40u64, 7u8));
                }
                assert_eq!(h.len(), 1);
                let t = &h.tuples()[0];
                assert_eq!((t.value, t.count, t.first_seq), ((0x40, 7), 1_000, 1));
                assert_eq!(h.share(t), 1.0);
                assert_eq!(h.estimate(t), 1_000.0);
            }
        }
    }
}

/// With the adaptive policy a stream dominated by held values moves to concise samples, and
/// a stream of new values moves back to counting samples.
#[test]
fn satcount_switches_modes_with_hysteresis() {
    let mut h = Hotlist::with_seed(Config::new(64), 1).unwrap();
    assert_eq!(h.mode(), Mode::Counting);
    for i in 0..49 {
        h.update(i % 2);
    }
    assert_eq!(h.mode(), Mode::Counting, "47 net hits stay below MaxEnd");
    for i in 0..10 {
        h.update(i % 2);
    }
    assert_eq!((h.mode(), h.sat_count()), (Mode::Concise, 50));
    let mut v = 1_000u64;
    while h.mode() == Mode::Concise {
        v += 1;
        h.update(v);
        assert!(v < 1_051, "50 new values bring SatCount down to MinEnd");
    }
    assert_eq!(h.sat_count(), 0);
}

//! Configuration errors, invariants under arbitrary input, serde, merging, sequence
//! numbers, the old-singleton hint, and the helpers (stats, histograms, value functions,
//! indexing table, sink, Space-Saving) against direct computations.

use std::collections::HashMap;

use hotlist::space_saving::SpaceSaving;
use hotlist::strategies;
use hotlist::*;
use prof_events::{BlockEnd, BlockId, BlockInfo, Interest, MemAccess, MemKind, Sink};
use proptest::prelude::*;

#[test]
fn bad_configurations_are_errors() {
    let e = |c: Config| Hotlist::<u64>::new(c).err();
    assert_eq!(e(Config::new(0)), Some(HotlistError::ZeroCapacity));
    assert_eq!(
        e(Config::new(MAX_CAPACITY + 1)),
        Some(HotlistError::CapacityTooLarge(MAX_CAPACITY + 1))
    );
    for f in [1.0, 0.5, -1.0, f64::INFINITY, 2e6] {
        assert_eq!(
            e(Config::new(4).with_factor(f)),
            Some(HotlistError::BadFactor(f))
        );
    }
    assert!(matches!(
        e(Config::new(4).with_factor(f64::NAN)),
        Some(HotlistError::BadFactor(_))
    ));
    let p = Policy::Adaptive {
        min_end: 5,
        max_end: 5,
    };
    assert_eq!(
        e(Config::new(4).with_policy(p)),
        Some(HotlistError::BadSatRange {
            min_end: 5,
            max_end: 5
        })
    );
    assert!(matches!(
        e(Config::new(4).with_old_singleton_margin(0.0)),
        Some(HotlistError::BadMargin(_))
    ));
    assert!(SpaceSaving::<u64>::new(0).is_err());
    assert!(Histogram::new(Bucketing::Linear {
        origin: 0,
        width: 0
    })
    .is_err());
    assert!(ValueFn::bit_field(60, 5).is_err() && ValueFn::bit_field(0, 0).is_err());
    assert!(IndexTable::<u64>::new(Config::new(0), 1).is_err());
    // N = 1: f defaults to 2 (N/(N-1) is undefined) and the hotlist works.
    let mut h = Hotlist::new(Config::new(1)).unwrap();
    assert_eq!(h.factor(), 2.0);
    for v in 0..10_000u64 {
        h.update(v % 7);
    }
    assert!(h.len() <= 1);
}

fn check_invariants(h: &Hotlist<u64>) {
    let t = h.tuples();
    assert!(t.len() <= h.capacity());
    assert!(
        t.windows(2).all(|w| w[0].count >= w[1].count),
        "sorted by count"
    );
    assert!(t
        .iter()
        .all(|x| x.count > 0 && x.first_seq >= 1 && x.first_seq <= h.scur()));
    let mut vals: Vec<u64> = t.iter().map(|x| x.value).collect();
    vals.sort_unstable();
    vals.dedup();
    assert_eq!(vals.len(), t.len(), "values unique");
    assert!(h.probability() > 0.0 && h.probability() <= 1.0);
    assert!(h.samples() <= h.scur(), "every count is a distinct event");
    for x in t {
        assert_eq!(h.get(&x.value), Some(x), "index agrees with the tuples");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_config_is_valid_or_a_clear_error(c in strategies::config(), s in strategies::stream(400)) {
        match Hotlist::<u64>::new(c) {
            Err(_) => prop_assert!(c.validate().is_err()),
            Ok(mut h) => {
                for v in s {
                    h.update(v);
                }
                check_invariants(&h);
            }
        }
    }

    #[test]
    fn serde_round_trip_continues_identically(h in strategies::hotlist(300), rest in strategies::stream(200)) {
        let json = serde_json::to_string(&h).unwrap();
        let mut back: Hotlist<u64> = serde_json::from_str(&json).unwrap();
        let mut orig = h.clone();
        for v in rest {
            orig.update(v);
            back.update(v);
        }
        prop_assert_eq!(orig.tuples(), back.tuples());
        prop_assert_eq!(orig.probability(), back.probability());
    }

    #[test]
    fn merge_keeps_invariants(a in strategies::hotlist(300), b in strategies::hotlist(300)) {
        let mut m = a.clone();
        m.merge(&b);
        prop_assert_eq!(m.scur(), a.scur() + b.scur());
        prop_assert!(m.probability() <= a.probability().min(b.probability()));
        let t = m.tuples();
        prop_assert!(t.len() <= m.capacity());
        prop_assert!(t.windows(2).all(|w| w[0].count >= w[1].count));
    }
}

#[test]
fn corrupt_serialized_state_is_rejected() {
    // Scripted coins: serde_json::Value cannot hold the u128 state of the PCG generator.
    let mut h = Hotlist::<u64, _>::with_coins(Config::new(4), ScriptedCoins::new([])).unwrap();
    for v in [1, 1, 2] {
        h.update(v);
    }
    let good = serde_json::to_value(&h).unwrap();
    let mutate = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = good.clone();
        f(&mut v);
        serde_json::from_value::<Hotlist<u64, ScriptedCoins>>(v).is_err()
    };
    assert!(mutate(&|v| v["tuples"][0]["count"] = 0.into()));
    assert!(mutate(&|v| v["tuples"][1]["count"] = 9.into()));
    assert!(mutate(&|v| v["tuples"][1]["value"] = 1.into()));
    assert!(mutate(&|v| v["p"] = 1.5.into()));
    assert!(mutate(&|v| v["config"]["capacity"] = 1.into()));
    assert!(mutate(&|v| v["sat_count"] = 99.into()));
    assert!(!mutate(&|_| {}));
}

/// Merging the hotlists of two halves of a stream estimates the heavy values of the whole.
#[test]
fn merged_halves_estimate_the_whole() {
    for policy in [Policy::Concise, Policy::Counting] {
        let mut sum = [0.0f64; 2];
        let runs = 100;
        for seed in 0..runs {
            let cfg = Config::new(8).with_policy(policy);
            let (mut a, mut b) = (
                Hotlist::with_seed(cfg, seed).unwrap(),
                Hotlist::with_seed(cfg, seed + 1000).unwrap(),
            );
            for i in 0..20_000u64 {
                let v = if i % 4 == 0 {
                    0
                } else if i % 4 == 1 {
                    1
                } else {
                    10 + i % 97
                };
                if i < 10_000 {
                    a.update(v)
                } else {
                    b.update(v)
                }
            }
            a.merge(&b);
            sum[0] += a.estimate_of(&0);
            sum[1] += a.estimate_of(&1);
        }
        for s in sum {
            let mean = s / runs as f64;
            assert!((mean - 5_000.0).abs() < 250.0, "{policy:?}: {mean}");
        }
    }
}

/// S stays within [first occurrence, Scur] through reductions, and a value seen once early
/// is flagged as an old singleton while a recent one is not.
#[test]
fn sequence_numbers_and_old_singletons() {
    let mut h = Hotlist::with_seed(Config::new(16).with_policy(Policy::Counting), 3).unwrap();
    h.update(999_999u64);
    let mut first = HashMap::new();
    first.insert(999_999u64, 1u64);
    for i in 0..50_000u64 {
        let v = if i % 3 == 0 { i % 9 } else { 100 + i % 5_000 };
        first.entry(v).or_insert(h.scur() + 1);
        h.update(v);
        if h.scur() == 2 {
            assert!(!h.is_old_singleton(h.get(&999_999).unwrap()), "recent");
        }
    }
    for t in h.tuples() {
        assert!(t.first_seq >= first[&t.value] && t.first_seq <= h.scur());
    }
    if let Some(t) = h.get(&999_999) {
        assert!(h.is_old_singleton(t));
    }
    let fresh = h
        .tuples()
        .iter()
        .filter(|t| t.count == 1 && t.first_seq * 2 > h.scur());
    assert!(fresh.clone().all(|t| !h.is_old_singleton(t)));
}

#[test]
fn running_stats_match_two_pass() {
    let xs: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
    let mut a = RunningStats::new();
    let mut b = RunningStats::new();
    for (i, &x) in xs.iter().enumerate() {
        if i < 300 {
            a.record(x)
        } else {
            b.record(x)
        }
    }
    a.merge(&b);
    a.record(f64::NAN);
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    assert_eq!(a.count(), 1000);
    assert!((a.mean().unwrap() - mean).abs() < 1e-9);
    assert!((a.variance().unwrap() - var).abs() < 1e-9);
    assert_eq!((a.min(), a.max()), (Some(-50.0), Some(50.0)));
    assert_eq!(RunningStats::new().mean(), None);
}

#[test]
fn histograms_and_value_functions() {
    let mut h = Histogram::new(Bucketing::Log2).unwrap();
    for x in [0, 1, 2, 3, 4, 7, 8, u64::MAX] {
        h.record(x);
    }
    let b: Vec<_> = h.buckets().collect();
    assert_eq!(b, [(0, 1), (1, 1), (2, 2), (4, 2), (8, 1), (1 << 63, 1)]);
    let mut l = Histogram::new(Bucketing::Linear {
        origin: 10,
        width: 4,
    })
    .unwrap();
    for x in [0, 9, 10, 13, 14] {
        l.record(x);
    }
    assert_eq!(
        l.buckets().collect::<Vec<_>>(),
        [(0, 1), (6, 1), (10, 2), (14, 1)]
    );
    assert!(l.merge(&h).is_err());

    assert_eq!(ValueFn::Lsb.apply(7), 1);
    assert_eq!(ValueFn::Sign.apply(-5i64 as u64), 2);
    assert_eq!(ValueFn::Sign.apply(0), 0);
    assert_eq!(ValueFn::Alignment.apply(24), 3);
    assert_eq!(ValueFn::Alignment.apply(0), 64);
    assert_eq!(ValueFn::bit_field(4, 8).unwrap().apply(0xABCD), 0xBC);
    assert_eq!(ValueFn::bit_field(0, 64).unwrap().apply(u64::MAX), u64::MAX);
    assert_eq!(difference(3, 5) as i64, -2);
    let mut d = Delta::new();
    assert_eq!(
        [d.next(100), d.next(108), d.next(116)],
        [None, Some(8), Some(8)]
    );
}

/// Space-Saving's guarantee on a skewed stream: never under, over by at most n/m.
#[test]
fn space_saving_bounds() {
    let mut ss = SpaceSaving::new(20).unwrap();
    let mut exact = HashMap::new();
    let n = 30_000u64;
    for i in 0..n {
        let v = (i * i) % 97 % (1 + i % 50);
        ss.update(v);
        *exact.entry(v).or_insert(0u64) += 1;
    }
    for (v, c, err) in ss.top(20) {
        assert!(c >= exact[&v] && c - exact[&v] <= err && err <= n / 20);
    }
}

#[test]
fn index_table_and_mem_value_sink() {
    let table = IndexTable::new(Config::new(4), 9).unwrap();
    let mut sink = MemValueSink::new(table, [0x1004], 7, ValueFn::Alignment);
    let block = |start, end| BlockInfo {
        id: BlockId(0),
        start,
        end,
        insns: 2,
        ends_with: BlockEnd::Jump,
    };
    assert_eq!(sink.interest(&block(0x1000, 0x1008)), Interest::MEM_VALUES);
    assert_eq!(sink.interest(&block(0x2000, 0x2008)), Interest::NONE);
    for (pc, value) in [(0x1004, 16u64), (0x1004, 48), (0x1000, 1), (0x1004, 8)] {
        let _ = sink.mem(&MemAccess {
            block: BlockId(0),
            pc,
            addr: 0,
            size: 8,
            kind: MemKind::Load,
            value,
        });
    }
    let t = sink.into_table();
    assert_eq!(t.len(), 1);
    let key = IndexKey {
        pid: 7,
        pc: 0x1004,
        kind: InsnKind::Load,
    };
    let h = t.get(&key).unwrap();
    let got: Vec<_> = h.tuples().iter().map(|x| (x.value, x.count)).collect();
    assert_eq!(got, [(4, 2), (3, 1)]);
    let json = serde_json::to_string(&t).unwrap();
    let mut back: IndexTable<u64> = serde_json::from_str(&json).unwrap();
    back.merge(&t);
    assert_eq!(back.get(&key).unwrap().tuples()[0].count, 4);
}

/// Scur counts every event, also while concise mode passes over known-false coins (it
/// counts those ahead) and across mode switches, merges and serde round trips.
#[test]
fn scur_counts_every_event() {
    for policy in [Policy::Concise, Policy::Counting, Policy::default()] {
        for n in [4, 64] {
            let mut h = Hotlist::with_seed(Config::new(n).with_policy(policy), 5).unwrap();
            for i in 1..=20_000u64 {
                h.update(if i % 3 == 0 { 1 } else { i % 500 });
                assert_eq!(h.scur(), i, "{policy:?} N={n}");
                assert!(h.tuples().iter().all(|t| t.first_seq <= i));
            }
            check_invariants(&h);
            let json = serde_json::to_string(&h).unwrap();
            let back: Hotlist<u64> = serde_json::from_str(&json).unwrap();
            assert_eq!(back.scur(), 20_000);
            let mut m = h.clone();
            m.merge(&h);
            assert_eq!(m.scur(), 40_000);
        }
    }
}

//! The spec's worked example and hand-checked scenarios of the sort, the phase detector,
//! growth and merging.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bounded_hashtable::{BoundedHashTable, CountBasis, Period, SortOrder, SortPolicy};

/// The frequencies of the spec's example bucket, in chain order.
const SPEC_FREQS: [u64; 9] = [
    100_000_000,
    101_000_000,
    9_000,
    22,
    8_431,
    99_997,
    32_111,
    6_719,
    5_234,
];

fn manual(frequency_threshold: u64) -> SortPolicy {
    SortPolicy {
        period: Period::Manual,
        frequency_threshold,
        phase_threshold: 1,
        ..SortPolicy::default()
    }
}

/// One bucket holding keys 0..n in chain order, key `i` accessed `freqs[i]` times.
fn one_bucket(freqs: &[u64], policy: SortPolicy) -> BoundedHashTable<u32, ()> {
    let mut t = BoundedHashTable::with_fixed_buckets(1).with_policy(policy);
    for (k, &f) in freqs.iter().enumerate() {
        t.insert(k as u32, ());
        t.record(&(k as u32), f - 1);
    }
    t
}

fn chain_keys(t: &BoundedHashTable<u32, ()>, b: usize) -> Vec<u32> {
    t.chain(b).map(|(k, _, _)| *k).collect()
}

#[test]
fn spec_example_bucket() {
    let mut t = one_bucket(&SPEC_FREQS, manual(100_000));
    assert_eq!(chain_keys(&t, 0), (0..9).collect::<Vec<_>>());
    let r = t.sort();
    // 101E6 and 100E6 in front, in descending order; the rest in their original order.
    assert_eq!(chain_keys(&t, 0), vec![1, 0, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!((r.buckets_sorted, r.entries_moved), (1, 2));
    // 100E6 and 101E6 are similar: swapping them is not a reversal.
    assert_eq!((r.reversals, r.phase_change), (0, false));
    // Counts survive; the new period starts at zero.
    let c = t.counts(&1).expect("present");
    assert_eq!((c.total, c.period), (101_000_000, 0));
}

#[test]
fn threshold_is_inclusive_and_depth_gates() {
    // 99 997 qualifies at threshold 99 997 ("reaches or exceeds").
    let mut t = one_bucket(&SPEC_FREQS, manual(99_997));
    t.sort();
    assert_eq!(chain_keys(&t, 0), vec![1, 0, 5, 2, 3, 4, 6, 7, 8]);
    // A bucket of 9 is not deeper than a depth threshold of 9: untouched.
    let mut t = one_bucket(
        &SPEC_FREQS,
        SortPolicy {
            depth_threshold: 9,
            ..manual(100_000)
        },
    );
    assert_eq!(t.sort().buckets_sorted, 0);
    assert_eq!(chain_keys(&t, 0), (0..9).collect::<Vec<_>>());
}

#[test]
fn ascending_preserve_and_bucket_threshold() {
    let order = |order| SortPolicy {
        order,
        ..manual(9_000)
    };
    let mut t = one_bucket(&SPEC_FREQS, order(SortOrder::Ascending));
    t.sort();
    assert_eq!(chain_keys(&t, 0), vec![2, 6, 5, 0, 1, 3, 4, 7, 8]);
    let mut t = one_bucket(&SPEC_FREQS, order(SortOrder::Preserve));
    t.sort();
    assert_eq!(chain_keys(&t, 0), vec![0, 1, 2, 5, 6, 3, 4, 7, 8]);
    let sum: u64 = SPEC_FREQS.iter().sum();
    let gated = SortPolicy {
        bucket_frequency_threshold: sum + 1,
        ..order(SortOrder::Descending)
    };
    let mut t = one_bucket(&SPEC_FREQS, gated);
    assert_eq!(t.sort().buckets_sorted, 0);
}

#[test]
fn reversal_of_an_order_of_magnitude_signals_a_phase_change() {
    let mut t = one_bucket(&SPEC_FREQS, manual(100_000));
    let fired = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&fired);
    t.set_phase_callback(Some(Box::new(move |r| {
        seen.store(r.pass, Ordering::SeqCst);
    })));
    t.sort();
    // Next period: key 8 becomes as hot as key 1; key 0 (hot before) falls to 50.
    t.record(&8, 1_000_000);
    t.record(&1, 1_000_000);
    t.record(&0, 50);
    let r = t.sort();
    // 8 ties with 1 (1 keeps its place) and overtakes 0, which was hot: one reversal.
    assert_eq!(chain_keys(&t, 0), vec![1, 8, 0, 2, 3, 4, 5, 6, 7]);
    assert_eq!((r.reversals, r.phase_change, r.pass), (1, true, 2));
    assert_eq!(fired.load(Ordering::SeqCst), 2);
    assert_eq!(t.stats().phase_changes, 1);
    // A similar-count swap is not a reversal.
    t.record(&8, 1_000);
    t.record(&1, 900);
    let r = t.sort();
    assert!(r.reversals == 0 && !r.phase_change, "{r:?}");
}

#[test]
fn cumulative_basis_orders_by_total() {
    let policy = SortPolicy {
        basis: CountBasis::Total,
        ..manual(100_000)
    };
    let mut t = one_bucket(&SPEC_FREQS, policy);
    t.sort();
    // In a new period only key 3 is accessed, but totals still rank 1 and 0 first.
    t.record(&3, 99_978);
    t.sort();
    assert_eq!(chain_keys(&t, 0), vec![1, 0, 3, 2, 4, 5, 6, 7, 8]);
}

#[test]
fn periodic_and_tick_sorting() {
    let mut t = BoundedHashTable::with_fixed_buckets(1).with_policy(SortPolicy {
        frequency_threshold: 3,
        ..SortPolicy::every(10)
    });
    for k in 0..4u32 {
        t.insert(k, ());
    }
    for _ in 0..5 {
        t.get_mut(&3);
    }
    // 4 inserts + 5 lookups; the 10th access triggers the pass.
    assert_eq!(t.stats().sorts, 0);
    t.get_mut(&3);
    assert_eq!(t.stats().sorts, 1);
    assert_eq!(chain_keys(&t, 0), vec![3, 0, 1, 2]);

    let mut t: BoundedHashTable<u32, ()> =
        BoundedHashTable::with_fixed_buckets(1).with_policy(SortPolicy {
            period: Period::Ticks(std::num::NonZeroU64::new(100).expect("non-zero")),
            ..SortPolicy::default()
        });
    assert!(t.tick(99).is_none());
    assert_eq!(t.tick(1).map(|r| r.pass), Some(1));
}

/// A pass runs on exactly every K-th counted access, whichever path counts it (inlined
/// hits, `record`, inserts, `entry`) and under both count bases, also across a policy change
/// of basis (which keeps the progress); lookups that miss and `get` count nothing.
#[test]
fn passes_fall_on_every_kth_counted_access() {
    const K: u64 = 7;
    for first in [CountBasis::Period, CountBasis::Total] {
        let policy = |basis| SortPolicy {
            basis,
            ..SortPolicy::every(K)
        };
        let mut t = BoundedHashTable::with_fixed_buckets(3).with_policy(policy(first));
        let (mut left, mut passes, mut hits) = (K, 0u64, 0u64);
        let mut count = |n: u64, left: &mut u64| {
            if n >= *left {
                passes += 1;
                *left = K;
            } else {
                *left -= n;
            }
            passes
        };
        for i in 0..400u64 {
            let key = i % 11;
            let n = match i % 9 {
                0 => {
                    let fresh = t.insert(key, i).is_none();
                    hits += u64::from(!fresh);
                    1
                }
                1 => u64::from(t.get_mut(&(key + 100)).is_some()),
                2 => {
                    assert_eq!(t.get(&key).is_some(), t.contains_key(&key));
                    0
                }
                3 => {
                    let n = i % 4;
                    hits += u64::from(t.record(&key, n).is_some());
                    if t.contains_key(&key) {
                        n
                    } else {
                        0
                    }
                }
                4 => {
                    let present = t.contains_key(&key);
                    *t.entry(key).or_insert(0) += 1;
                    hits += u64::from(present);
                    1
                }
                5 if i % 45 == 5 => {
                    // Switch the basis mid-period: the progress is kept.
                    let basis = match t.policy().basis {
                        CountBasis::Period => CountBasis::Total,
                        CountBasis::Total => CountBasis::Period,
                    };
                    t.set_policy(policy(basis));
                    0
                }
                _ => {
                    let found = t.get_mut(&key).is_some();
                    hits += u64::from(found);
                    u64::from(found)
                }
            };
            let expect = count(n, &mut left);
            assert_eq!(t.stats().sorts, expect, "after access {i} ({first:?})");
            assert_eq!(t.stats().hits, hits, "after access {i} ({first:?})");
        }
        assert!(passes > 40, "{passes} passes");
    }
}

/// Totals beyond 2^32 stay exact (the base's low half carries into its high half on the
/// inlined path too, both when a new period folds the old count in and when a saturated
/// period count adds to the base), and saturate at `u64::MAX`.
#[test]
fn totals_carry_past_32_bits_and_saturate() {
    const M: u64 = u32::MAX as u64;
    let mut t = BoundedHashTable::with_fixed_buckets(1).with_policy(manual(1));
    t.insert(7u32, 0u8);
    t.record(&7, (1 << 32) - 31);
    let mut total = (1 << 32) - 30;
    assert_eq!(t.counts(&7).map(|c| c.total), Some(total));
    t.sort();
    // Inlined first access of the period: folds 2^32 - 30 into an empty base.
    t.get_mut(&7);
    total += 1;
    // The period count saturates: the base becomes 2^32 - 29.
    t.record(&7, M);
    total += M;
    assert_eq!(
        t.counts(&7).map(|c| (c.total, c.period)),
        Some((total, u32::MAX))
    );
    // Further hits add to the base, whose low half carries after 29 of them.
    for _ in 0..40 {
        t.get_mut(&7);
        total += 1;
    }
    assert_eq!(
        t.counts(&7).map(|c| (c.total, c.period)),
        Some((total, u32::MAX))
    );
    t.sort();
    // The next period's first hit folds u32::MAX into a low half of 11: carries again.
    t.get_mut(&7);
    total += 1;
    assert_eq!(t.counts(&7).map(|c| (c.total, c.period)), Some((total, 1)));
    assert_eq!(total, (2 << 32) + 11);
    // The high half moves with the entry through growth, removal and merging.
    let mut g = BoundedHashTable::with_capacity(1).with_policy(manual(1));
    g.insert(7u32, 0u8);
    g.record(&7, (1 << 40) + 3);
    g.sort();
    g.get_mut(&7);
    for k in 0..100u32 {
        g.insert(k + 10, 0);
    }
    g.remove(&10);
    assert_eq!(g.counts(&7).map(|c| c.total), Some((1 << 40) + 5));
    let mut merged = BoundedHashTable::with_fixed_buckets(2).with_policy(manual(1));
    merged.merge(g, |_, _, _| {});
    merged.merge(t, |_, _, _| {});
    assert_eq!(
        merged.counts(&7).map(|c| c.total),
        Some((1 << 40) + 5 + total)
    );
    // Saturation.
    let mut s = BoundedHashTable::with_fixed_buckets(1).with_policy(manual(1));
    s.insert(1u32, ());
    s.record(&1, u64::MAX);
    s.sort();
    for _ in 0..3 {
        s.get_mut(&1);
    }
    s.record(&1, M);
    s.get_mut(&1);
    assert_eq!(
        s.counts(&1).map(|c| (c.total, c.period)),
        Some((u64::MAX, u32::MAX))
    );
}

#[test]
fn growth_keeps_sorted_order_and_contents() {
    let mut t = BoundedHashTable::with_capacity(4).with_policy(manual(10));
    for k in 0..64u64 {
        t.insert(k, k * 2);
    }
    for k in (0..64u64).step_by(5) {
        t.record(&k, 100);
    }
    t.sort();
    for k in 64..5000u64 {
        t.insert(k, k * 2);
    }
    assert!(t.bucket_count() >= 5000);
    for k in 0..5000u64 {
        assert_eq!(t.get(&k), Some(&(k * 2)));
    }
    // Hot entries (multiples of 5 below 64) still precede cold ones in every chain.
    for b in 0..t.bucket_count() {
        let hot: Vec<bool> = t.chain(b).map(|(k, _, _)| *k < 64 && k % 5 == 0).collect();
        assert!(hot.windows(2).all(|w| w[0] || !w[1]), "bucket {b}: {hot:?}");
    }
}

#[test]
fn merge_adds_counts_and_combines_values() {
    let mut a = BoundedHashTable::new();
    let mut b = BoundedHashTable::new();
    a.insert("x", 1u32);
    a.record(&"x", 4);
    b.insert("x", 10);
    b.insert("y", 20);
    b.record(&"y", 2);
    a.merge(b, |_, mine, theirs| *mine += theirs);
    assert_eq!(a.get(&"x"), Some(&11));
    assert_eq!(a.get(&"y"), Some(&20));
    assert_eq!(a.counts(&"x").map(|c| c.total), Some(6));
    assert_eq!(a.counts(&"y").map(|c| (c.total, c.period)), Some((3, 3)));
    assert_eq!(a.len(), 2);
}

#[test]
fn reversal_threshold_is_separate_from_the_sort_threshold() {
    // Entry 0 leads with 61 accesses to 6, then entry 1 leads with 60 to 5: ten times apart
    // both times, so a reversal unless the phase detector's threshold exceeds the counts.
    let reversals = |reversal_threshold| {
        let policy = SortPolicy {
            reversal_threshold,
            ..manual(2)
        };
        let mut t = one_bucket(&[61, 6], policy);
        assert_eq!(t.sort().entries_moved, 0);
        t.record(&1, 60);
        t.record(&0, 5);
        let r = t.sort();
        assert_eq!(chain_keys(&t, 0), vec![1, 0]);
        r.reversals
    };
    assert_eq!(reversals(0), 1);
    assert_eq!(reversals(60), 1);
    assert_eq!(reversals(61), 0); // 1 counts 60 now
    assert_eq!(reversals(64), 0);
}

#[test]
fn inline_head_after_remove_retain_sort_and_merge() {
    // Two buckets, so removals move entries of the other bucket into the holes.
    let mut t = BoundedHashTable::with_fixed_buckets(2).with_policy(manual(10));
    for k in 0..40u32 {
        t.insert(k, k * 3);
    }
    let chains = |t: &BoundedHashTable<u32, u32>| -> Vec<Vec<u32>> {
        (0..2)
            .map(|b| t.chain(b).map(|(k, _, _)| *k).collect())
            .collect()
    };
    let mut expect = chains(&t);
    // Removing a head promotes its successor; every other entry keeps its place.
    for round in 0..5 {
        let b = round % 2;
        let head = expect[b][0];
        assert_eq!(t.remove(&head), Some(head * 3));
        expect[b].remove(0);
        assert_eq!(chains(&t), expect);
        // And a chained entry from the middle.
        let mid = expect[b][expect[b].len() / 2];
        assert_eq!(t.remove(&mid), Some(mid * 3));
        expect[b].retain(|&k| k != mid);
        assert_eq!(chains(&t), expect);
    }
    t.retain(|k, _| k % 3 != 0);
    for chain in &mut expect {
        chain.retain(|k| k % 3 != 0);
    }
    assert_eq!(chains(&t), expect);
    assert_eq!(t.len(), expect[0].len() + expect[1].len());
    // A sort brings each bucket's hottest entry into the inline slot.
    let hottest: Vec<u32> = expect.iter().map(|c| c[c.len() - 1]).collect();
    for &k in &hottest {
        t.record(&k, 100);
    }
    t.sort();
    for (b, &k) in hottest.iter().enumerate() {
        assert_eq!(t.chain(b).next().map(|(k, _, _)| *k), Some(k));
        assert_eq!(t.get(&k), Some(&(k * 3)));
    }
    // Merging keeps the heads and appends new keys behind them.
    let mut other = BoundedHashTable::with_fixed_buckets(5);
    other.insert(hottest[0], 1);
    other.insert(1000, 7);
    t.merge(other, |_, mine, theirs| *mine += theirs);
    assert_eq!(t.get(&hottest[0]), Some(&(hottest[0] * 3 + 1)));
    assert_eq!(t.get(&1000), Some(&7));
    for (b, &k) in hottest.iter().enumerate() {
        assert_eq!(t.chain(b).next().map(|(k, _, _)| *k), Some(k));
    }
    let b = t.bucket_of(&1000);
    assert_eq!(t.chain(b).last().map(|(k, _, _)| *k), Some(1000));
    // Emptying a bucket empties its inline slot; the table still answers.
    let keys: Vec<u32> = t.chain(0).map(|(k, _, _)| *k).collect();
    for k in keys {
        assert!(t.remove(&k).is_some());
    }
    assert_eq!(t.chain(0).count(), 0);
    assert!(t.get(&hottest[0]).is_none() || t.bucket_of(&hottest[0]) != 0);
    assert_eq!(t.iter().count(), t.len());
}

#[test]
fn stats_count_hits_and_probes_by_chain_position() {
    // One bucket, keys 0..5 in chain order: key k is found at depth k + 1.
    let mut t = BoundedHashTable::with_fixed_buckets(1).with_policy(manual(1_000));
    for k in 0..5u32 {
        t.insert(k, ());
    }
    t.reset_stats();
    for k in [0u32, 4, 4, 2] {
        assert!(t.get_mut(&k).is_some());
    }
    assert!(t.get_mut(&9).is_none()); // a miss is no hit
    t.record(&1, 10); // one hit at depth 2, ten accesses
    let s = t.stats();
    assert_eq!(
        (s.hits, s.hit_probes, s.max_probe),
        (5, 1 + 5 + 5 + 3 + 2, 5)
    );
    t.reset_stats();
    assert_eq!(t.stats().hits, 0);
    assert!(t.get_mut(&3).is_some());
    assert_eq!((t.stats().hits, t.stats().hit_probes), (1, 4));
}

/// A pass lays scattered chains out again bucket by bucket (slot order = heads, then each
/// bucket's chained entries in chain order) without changing any chain's order or counts,
/// and the access that ended the period still gets its own entry's value.
#[test]
fn pass_lays_chains_out_and_keeps_the_accessed_entry() {
    const K: u64 = 50;
    let mut t = BoundedHashTable::with_fixed_buckets(4).with_policy(SortPolicy {
        // Nothing qualifies: the pass moves no entry, only the layout can change.
        frequency_threshold: u64::MAX,
        ..SortPolicy::every(K)
    });
    // Interleaved insertion scatters each chain over the arena.
    for k in 0..40u64 {
        t.insert(k, k * 10);
    }
    let chains = |t: &BoundedHashTable<u64, u64>| -> Vec<Vec<(u64, u64, u64)>> {
        (0..t.bucket_count())
            .map(|b| t.chain(b).map(|(k, v, c)| (*k, *v, c.total)).collect())
            .collect()
    };
    let before = chains(&t);
    // 40 inserts counted; the 10th lookup ends the period and runs the pass.
    for k in 0..9u64 {
        *t.get_mut(&k).expect("present") += 1;
    }
    assert_eq!(t.stats().sorts, 0);
    let last = 37u64;
    *t.get_mut(&last).expect("present") += 1000;
    assert_eq!(t.stats().sorts, 1);
    assert_eq!(t.get(&last), Some(&(last * 10 + 1000)));
    let mut expect = before;
    for chain in &mut expect {
        for e in chain.iter_mut() {
            if e.0 < 9 {
                (e.1, e.2) = (e.1 + 1, e.2 + 1);
            } else if e.0 == last {
                (e.1, e.2) = (e.1 + 1000, e.2 + 1);
            }
        }
    }
    let after = chains(&t);
    assert_eq!(after, expect);
    let heads = after.iter().filter_map(|c| c.first());
    let rest = after.iter().flat_map(|c| c.iter().skip(1));
    let laid_out: Vec<u64> = heads.chain(rest).map(|e| e.0).collect();
    let slot_order: Vec<u64> = t.keys().copied().collect();
    assert_eq!(slot_order, laid_out);
}

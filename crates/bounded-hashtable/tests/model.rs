//! Property tests: the table against std's HashMap under random operations with sorts at
//! random points, and every sort pass against a naive model of the two-group procedure and
//! of the reversal count.

use std::collections::{HashMap, HashSet};

use bounded_hashtable::strategies::{ops, small_keys, sort_policy, Op};
use bounded_hashtable::{
    BoundedHashTable, CountBasis, Counts, Period, SortOrder, SortPolicy, SortReport, Stats,
};
use proptest::prelude::*;

type Table = BoundedHashTable<u64, u32>;

/// Value and total count of each key, as std's HashMap sees them.
#[derive(Default)]
struct Model {
    map: HashMap<u64, (u32, u64)>,
}

impl Model {
    fn touch(&mut self, k: u64, n: u64) -> Option<&mut u32> {
        let (v, total) = self.map.get_mut(&k)?;
        *total += n;
        Some(v)
    }
}

/// Applies `op` to both and checks they answer alike.
fn apply(t: &mut Table, m: &mut Model, op: &Op<u64>) -> Result<(), TestCaseError> {
    match *op {
        Op::Insert(k, v) => {
            let old = m.map.get(&k).map(|e| e.0);
            let total = m.map.get(&k).map_or(0, |e| e.1) + 1;
            m.map.insert(k, (v, total));
            prop_assert_eq!(t.insert(k, v), old);
        }
        Op::Get(k) => prop_assert_eq!(t.get(&k), m.map.get(&k).map(|e| &e.0)),
        Op::GetMut(k) | Op::Record(k, _) => {
            let n = if let Op::Record(_, n) = *op { n } else { 1 };
            let bump = |v: &mut u32| {
                *v = v.wrapping_add(1);
                *v
            };
            let got = if n == 1 && matches!(op, Op::GetMut(_)) {
                t.get_mut(&k).map(bump)
            } else {
                t.record(&k, n).map(bump)
            };
            prop_assert_eq!(got, m.touch(k, n).map(bump));
        }
        Op::Upsert(k, v) => {
            let slot = t.entry(k).or_insert(v);
            *slot = slot.wrapping_add(1);
            let got = *slot;
            let e = m.map.entry(k).or_insert((v, 0));
            e.0 = e.0.wrapping_add(1);
            e.1 += 1;
            prop_assert_eq!(got, e.0);
        }
        Op::Remove(k) => prop_assert_eq!(t.remove(&k), m.map.remove(&k).map(|e| e.0)),
        Op::Tick(u) => {
            t.tick(u);
        }
        Op::Sort => {
            t.sort();
        }
    }
    prop_assert_eq!(t.len(), m.map.len());
    Ok(())
}

/// Every entry sits exactly once in the chain of its own bucket, with the model's total.
fn check_structure(t: &Table, m: &Model) -> Result<(), TestCaseError> {
    let mut seen = HashSet::new();
    for b in 0..t.bucket_count() {
        for (k, v, c) in t.chain(b) {
            prop_assert!(seen.insert(*k), "key {} twice", k);
            prop_assert_eq!(t.bucket_of(k), b);
            let (mv, mt) = m.map.get(k).copied().unwrap_or_default();
            prop_assert_eq!((*v, c.total), (mv, mt), "key {}", k);
        }
    }
    prop_assert_eq!(seen.len(), m.map.len());
    let listed: HashMap<u64, u32> = t.iter().map(|(k, v)| (*k, *v)).collect();
    let expect: HashMap<u64, u32> = m.map.iter().map(|(k, e)| (*k, e.0)).collect();
    prop_assert_eq!(listed, expect);
    Ok(())
}

/// The statistics a counted lookup of `op` must add: one hit at the key's position in its
/// chain (1 = the inline head), found by walking the chain from outside.
fn expect_probe(t: &Table, op: &Op<u64>, expect: &mut Stats) {
    let (Op::Insert(k, _) | Op::GetMut(k) | Op::Record(k, _) | Op::Upsert(k, _)) = *op else {
        return;
    };
    if let Some(p) = t.chain(t.bucket_of(&k)).position(|(key, _, _)| *key == k) {
        let depth = p as u32 + 1;
        expect.hits += 1;
        expect.hit_probes += u64::from(depth);
        expect.max_probe = expect.max_probe.max(depth);
    }
}

fn table(buckets: Option<usize>, policy: SortPolicy) -> Table {
    match buckets {
        Some(n) => BoundedHashTable::with_fixed_buckets(n),
        None => BoundedHashTable::with_capacity(2),
    }
    .with_policy(policy)
}

fn bucket_choice() -> impl Strategy<Value = Option<usize>> {
    prop_oneof![Just(None), (1usize..6).prop_map(Some)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Same contents and answers as HashMap; sorts (periodic, ticked, explicit) never lose,
    /// duplicate or corrupt an entry or its count.
    #[test]
    fn behaves_like_hashmap(
        buckets in bucket_choice(),
        policy in sort_policy(),
        ops in ops(small_keys(48), 400),
    ) {
        let mut t = table(buckets, policy);
        let mut m = Model::default();
        let mut expect = Stats::default();
        for op in &ops {
            expect_probe(&t, op, &mut expect);
            apply(&mut t, &mut m, op)?;
            check_structure(&t, &m)?;
            let got = t.stats();
            prop_assert_eq!(
                (got.hits, got.hit_probes, got.max_probe),
                (expect.hits, expect.hit_probes, expect.max_probe),
                "{:?}", op
            );
        }
        let merged_into = {
            let mut other = table(Some(3), SortPolicy::default());
            other.merge(t.clone(), |_, mine, theirs| *mine = mine.wrapping_add(theirs));
            other
        };
        check_structure(&merged_into, &m)?;
    }
}

/// The sort state the model remembers per key: in the first group last time, and its key.
#[derive(Clone, Copy, Default)]
struct Remembered {
    hot: bool,
    prev_key: u64,
}

fn apart(x: u64, y: u64, r: u64) -> bool {
    let (hi, lo) = (x.max(y), x.min(y));
    hi > 0 && u128::from(hi) >= u128::from(lo) * u128::from(r.max(1))
}

/// The naive model of one pass: expected chains and report, from the chains before it.
fn model_pass(
    p: &SortPolicy,
    before: &[Vec<(u64, Counts)>],
    memory: &mut HashMap<u64, Remembered>,
) -> (Vec<(Vec<u64>, bool)>, SortReport) {
    let mut report = SortReport::default();
    let mut chains = Vec::new();
    for chain in before {
        let key = |c: &Counts| match p.basis {
            CountBasis::Period => u64::from(c.period),
            CountBasis::Total => c.total,
        };
        let keys: Vec<u64> = chain.iter().map(|(_, c)| key(c)).collect();
        let old: Vec<u64> = chain.iter().map(|(k, _)| *k).collect();
        let deep = chain.len() > p.depth_threshold;
        // Visited: some entry accessed this period qualifies (it queued the bucket).
        let queued = chain
            .iter()
            .any(|(_, c)| c.period >= 1 && key(c) >= p.frequency_threshold);
        let is_hot = |i: usize| keys[i] >= p.frequency_threshold;
        if !deep
            || !queued
            || !(0..old.len()).any(is_hot)
            || keys.iter().sum::<u64>() < p.bucket_frequency_threshold
        {
            chains.push((old, false));
            continue;
        }
        let mut hot: Vec<usize> = (0..old.len()).filter(|&i| is_hot(i)).collect();
        match p.order {
            // Stable sorts: ties keep their chain order.
            SortOrder::Descending => hot.sort_by(|&x, &y| keys[y].cmp(&keys[x])),
            SortOrder::Ascending => hot.sort_by(|&x, &y| keys[x].cmp(&keys[y])),
            SortOrder::Preserve => {}
        }
        let order: Vec<usize> = hot
            .iter()
            .copied()
            .chain((0..old.len()).filter(|&i| !is_hot(i)))
            .collect();
        {
            report.buckets_sorted += 1;
            let mut new_pos = vec![0; old.len()];
            for (n, &o) in order.iter().enumerate() {
                new_pos[o] = n;
                report.entries_moved += u64::from(n != o);
            }
            for i in 0..old.len() {
                for j in i + 1..old.len() {
                    let (a, b) = (memory.get(&old[i]), memory.get(&old[j]));
                    let (a, b) = (
                        a.copied().unwrap_or_default(),
                        b.copied().unwrap_or_default(),
                    );
                    if new_pos[i] > new_pos[j]
                        && a.hot
                        && a.prev_key >= p.reversal_threshold
                        && keys[j] >= p.reversal_threshold
                        && (apart(a.prev_key, b.prev_key, p.reversal_ratio)
                            || apart(keys[i], keys[j], p.reversal_ratio))
                    {
                        report.reversals += 1;
                    }
                }
            }
        }
        for (i, k) in old.iter().enumerate() {
            memory.insert(
                *k,
                Remembered {
                    hot: is_hot(i),
                    prev_key: keys[i],
                },
            );
        }
        chains.push((order.iter().map(|&i| old[i]).collect(), true));
    }
    report.phase_change = report.reversals >= p.phase_threshold.max(1);
    (chains, report)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every explicit pass reorders exactly as the naive two-group model says (so hot entries
    /// precede cold ones and the rest keep their order) and reports the same moves and
    /// reversals; the period counts restart.
    #[test]
    fn sort_matches_model(
        buckets in 1usize..4,
        policy in sort_policy(),
        ops in ops(small_keys(24), 300),
    ) {
        let policy = SortPolicy { period: Period::Manual, ..policy };
        let mut t = table(Some(buckets), policy);
        let mut m = Model::default();
        let mut memory: HashMap<u64, Remembered> = HashMap::new();
        for op in &ops {
            if let Op::Remove(k) = op {
                memory.remove(k);
            }
            if *op != Op::Sort {
                apply(&mut t, &mut m, op)?;
                continue;
            }
            let before: Vec<Vec<(u64, Counts)>> = (0..buckets)
                .map(|b| t.chain(b).map(|(k, _, c)| (*k, c)).collect())
                .collect();
            let (expect, mut expect_report) = model_pass(&policy, &before, &mut memory);
            let report = t.sort();
            expect_report.pass = report.pass;
            prop_assert_eq!(report, expect_report);
            for (b, (chain, sorted)) in expect.iter().enumerate() {
                let got: Vec<u64> = t.chain(b).map(|(k, _, _)| *k).collect();
                prop_assert_eq!(&got, chain, "bucket {}", b);
                // Stated directly: no hot entry behind a cold one in a sorted bucket.
                let hot: Vec<bool> = chain
                    .iter()
                    .map(|k| memory.get(k).is_some_and(|r| r.hot))
                    .collect();
                if *sorted {
                    prop_assert!(hot.windows(2).all(|w| w[0] || !w[1]), "{:?}", hot);
                }
            }
            prop_assert!(t.iter_counts().all(|(_, _, c)| c.period == 0));
            check_structure(&t, &m)?;
        }
    }
}

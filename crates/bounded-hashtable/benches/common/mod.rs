//! Workloads and baseline tables shared by the criterion benches and the summary table.
#![allow(dead_code)]

use std::hash::BuildHasher;

use bounded_hashtable::{BoundedHashTable, Period, SortPolicy};
use foldhash::fast::FixedState;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Lookups per measured pass.
pub const STREAM: usize = 1 << 20;

/// Distinct-key counts of the default run and of the full sweep (`BHT_FULL=1`).
pub fn sizes() -> Vec<usize> {
    if let Some(n) = std::env::var("BHT_KEYS").ok().and_then(|v| v.parse().ok()) {
        vec![n]
    } else if std::env::var_os("BHT_FULL").is_some() {
        vec![1_000, 10_000, 100_000, 1_000_000]
    } else {
        vec![1_000, 1_000_000]
    }
}

pub const SKEWS: [f64; 3] = [0.8, 1.1, 1.5];
pub const LOADS: [usize; 3] = [1, 4, 16];

/// A bijective 64-bit mix (splitmix64's finaliser): rank -> scrambled key.
pub fn scramble(rank: u64) -> u64 {
    let mut z = rank.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Zipf(s) ranks 0..n by inverse-CDF sampling.
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Self {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=n)
            .map(|r| {
                acc += (r as f64).powf(-s);
                acc
            })
            .collect();
        for c in &mut cdf {
            *c /= acc;
        }
        Self { cdf }
    }

    pub fn sample(&self, rng: &mut Pcg64) -> usize {
        let u: f64 = rng.gen();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }

    /// `len` ranks.
    pub fn ranks(&self, len: usize, seed: u64) -> Vec<usize> {
        let mut rng = Pcg64::seed_from_u64(seed);
        (0..len).map(|_| self.sample(&mut rng)).collect()
    }
}

/// A stream of scrambled keys of Zipf(s) ranks over `n` keys.
pub fn zipf_stream(n: usize, s: f64, len: usize, seed: u64) -> Vec<u64> {
    Zipf::new(n, s)
        .ranks(len, seed)
        .into_iter()
        .map(|r| scramble(r as u64))
        .collect()
}

/// All `n` keys in a random order (insertion order of every table).
pub fn shuffled_keys(n: usize, seed: u64) -> Vec<u64> {
    let mut keys: Vec<u64> = (0..n as u64).map(scramble).collect();
    let mut rng = Pcg64::seed_from_u64(seed);
    for i in (1..keys.len()).rev() {
        keys.swap(i, rng.gen_range(0..=i));
    }
    keys
}

/// The tables compared. Every one counts an occurrence as `*get_mut(key) += 1`.
pub trait Counter {
    fn name(&self) -> &'static str;
    fn put(&mut self, key: u64);
    fn hit(&mut self, key: u64) -> bool;
}

pub type Sorted = BoundedHashTable<u64, u64>;

/// The table under test with the default policy (a pass every 2^20 accesses; `BHT_FREQ`
/// overrides the frequency threshold, for sweeps).
pub fn sorted(n: usize, load: usize) -> Sorted {
    let table = BoundedHashTable::with_fixed_buckets(n.div_ceil(load));
    match std::env::var("BHT_FREQ").ok().and_then(|v| v.parse().ok()) {
        Some(frequency_threshold) => table.with_policy(SortPolicy {
            frequency_threshold,
            ..SortPolicy::default()
        }),
        None => table,
    }
}

/// The least mean probe depth any order of the table's chains can give on Zipf(s) over its
/// `n` keys (each chain sorted by the keys' true probabilities): the floor a sort can reach.
pub fn probe_floor(table: &Sorted, n: usize, s: f64) -> f64 {
    let rank: std::collections::HashMap<u64, usize> =
        (0..n).map(|r| (scramble(r as u64), r)).collect();
    let mut p = Vec::new();
    let (mut sum, mut weight) = (0.0, 0.0);
    for b in 0..table.bucket_count() {
        p.clear();
        p.extend(
            table
                .chain(b)
                .filter_map(|(k, _, _)| rank.get(k))
                .map(|&r| ((r + 1) as f64).powf(-s)),
        );
        p.sort_by(|x, y| y.total_cmp(x));
        for (i, &q) in p.iter().enumerate() {
            sum += q * (i + 1) as f64;
            weight += q;
        }
    }
    sum / weight
}

/// The same table with sorting off: the unsorted chained baseline.
pub fn unsorted(n: usize, load: usize) -> Sorted {
    sorted(n, load).with_policy(SortPolicy {
        period: Period::Manual,
        ..SortPolicy::default()
    })
}

/// The unsorted table once a pass that moves no entry (none qualifies) has laid its
/// chains out bucket by bucket: the sorted table's memory layout without its order, to
/// tell the two gains apart.
pub fn laid_out(n: usize, load: usize, warm: &[u64]) -> Named<Sorted> {
    let policy = SortPolicy {
        period: Period::Manual,
        frequency_threshold: u64::MAX,
        ..SortPolicy::default()
    };
    let mut t = prepared(
        Named("laid-out", sorted(n, load).with_policy(policy)),
        n,
        warm,
    );
    t.1.sort();
    t
}

pub struct Named<T>(pub &'static str, pub T);

pub type Hashbrown = hashbrown::HashMap<u64, u64, FixedState>;

/// The hashbrown contender, empty, with room for `n` keys.
pub fn hashbrown(n: usize) -> Named<Hashbrown> {
    Named(
        "hashbrown",
        Hashbrown::with_capacity_and_hasher(n, FixedState::default()),
    )
}

/// Maps from key to count: a hit increments, a put inserts zero.
macro_rules! map_counter {
    ($($map:ty),+) => {$(
        impl Counter for Named<$map> {
            fn name(&self) -> &'static str {
                self.0
            }
            fn put(&mut self, key: u64) {
                self.1.insert(key, 0);
            }
            #[inline]
            fn hit(&mut self, key: u64) -> bool {
                match self.1.get_mut(&key) {
                    Some(v) => {
                        *v += 1;
                        true
                    }
                    None => false,
                }
            }
        }
    )+};
}

map_counter!(Sorted, Hashbrown);

const NIL: u32 = u32::MAX;

/// A chained table with 4-byte heads and 24-byte nodes. `MTF` moves every found entry to
/// the head of its chain (the move-to-front contender); `PROBES` also counts the probes of
/// hits (diagnostics, off in timed comparisons).
pub struct Chained<const MTF: bool, const PROBES: bool> {
    pub heads: Vec<u32>,
    pub nodes: Vec<(u64, u64, u32)>,
    hasher: FixedState,
    pub probes: u64,
    pub hits: u64,
}

/// The move-to-front contender.
pub type MoveToFront = Chained<true, false>;

impl<const MTF: bool, const PROBES: bool> Chained<MTF, PROBES> {
    /// Empty, with `n / load` buckets.
    pub fn new(n: usize, load: usize) -> Self {
        Self {
            heads: vec![NIL; n.div_ceil(load).max(1)],
            nodes: Vec::with_capacity(n),
            hasher: FixedState::default(),
            probes: 0,
            hits: 0,
        }
    }

    fn bucket(&self, key: u64) -> usize {
        ((u128::from(self.hasher.hash_one(key)) * self.heads.len() as u128) >> 64) as usize
    }
}

impl<const MTF: bool, const PROBES: bool> Counter for Chained<MTF, PROBES> {
    fn name(&self) -> &'static str {
        match (MTF, PROBES) {
            (true, false) => "move-to-front",
            (true, true) => "probe-mtf",
            (false, _) => "probe-plain",
        }
    }
    fn put(&mut self, key: u64) {
        let b = self.bucket(key);
        self.nodes.push((key, 0, self.heads[b]));
        self.heads[b] = (self.nodes.len() - 1) as u32;
    }
    #[inline]
    fn hit(&mut self, key: u64) -> bool {
        let b = self.bucket(key);
        let (mut prev, mut i) = (NIL, self.heads[b]);
        let mut depth = 0;
        while i != NIL {
            if PROBES {
                depth += 1;
            }
            let node = self.nodes[i as usize];
            if node.0 == key {
                if PROBES {
                    self.probes += depth;
                    self.hits += 1;
                }
                self.nodes[i as usize].1 += 1;
                if MTF && prev != NIL {
                    self.nodes[prev as usize].2 = node.2;
                    self.nodes[i as usize].2 = self.heads[b];
                    self.heads[b] = i;
                }
                return true;
            }
            prev = i;
            i = node.2;
        }
        false
    }
}

/// Counts every key of `stream`; returns the hits (so the work is observable).
#[inline(never)]
pub fn run<C: Counter>(table: &mut C, stream: &[u64]) -> u64 {
    let mut hits = 0;
    for &k in stream {
        hits += u64::from(table.hit(k));
    }
    hits
}

/// A table of kind `make` holding all `n` keys, inserted in random order, then warmed up on
/// `warm` (two periods of the sorted table, so it has sorted twice).
pub fn prepared<C: Counter>(mut table: C, n: usize, warm: &[u64]) -> C {
    for k in shuffled_keys(n, 7) {
        table.put(k);
    }
    run(&mut table, warm);
    table
}

/// The contenders for one (n, load), prepared on `warm`.
pub struct Contenders {
    pub sorted: Named<Sorted>,
    pub hashbrown: Named<Hashbrown>,
    pub unsorted: Named<Sorted>,
    pub mtf: MoveToFront,
    pub laid_out: Named<Sorted>,
}

impl Contenders {
    pub fn new(n: usize, load: usize, warm: &[u64]) -> Self {
        Self {
            sorted: prepared(Named("sorted", sorted(n, load)), n, warm),
            hashbrown: prepared(hashbrown(n), n, warm),
            unsorted: prepared(Named("unsorted", unsorted(n, load)), n, warm),
            mtf: prepared(MoveToFront::new(n, load), n, warm),
            laid_out: laid_out(n, load, warm),
        }
    }
}

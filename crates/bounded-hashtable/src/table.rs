//! The chained table itself: bucket heads, the node arena, lookups, insertion, removal,
//! growth, iteration and merging.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};

use crate::policy::{CountBasis, Period, SortPolicy};
use crate::sort::Scratch;
use crate::stats::{ChainProfile, Counts, SortReport, Stats};

/// The default hasher: foldhash's fast hasher with a fixed seed, so bucket placement, sort
/// results and phase reports are reproducible from run to run. Use
/// `foldhash::fast::RandomState` (or any [`BuildHasher`]) when keys come from an adversary.
pub type DefaultHashBuilder = foldhash::fast::FixedState;

/// Link value meaning "no entry".
pub(crate) const NIL: u32 = u32::MAX;

/// The largest number of entries a table can hold (arena indices are `u32`, one value is
/// reserved as the end-of-chain link). Inserting beyond it panics, like `Vec`'s capacity
/// overflow.
pub const MAX_ENTRIES: usize = (u32::MAX - 1) as usize;

/// The access count that ends a period under `policy` (never reached unless
/// [`Period::Accesses`]).
fn pass_every(policy: &SortPolicy) -> u64 {
    match policy.period {
        Period::Accesses(k) => k.get(),
        Period::Ticks(_) | Period::Manual => u64::MAX,
    }
}

/// A callback receiving the report of every pass that signals a phase change.
pub type PhaseCallback = Box<dyn FnMut(&SortReport) + Send>;

/// One arena node: key, value, counts and the chain link together, so a probe touches one
/// place. A counted lookup only increments `stamp`: the period count is valid while the
/// stamp's period number equals the table's epoch (a pass starts a new period without
/// visiting any entry), and the total is `base` plus the stamp's count (the first access
/// of a new period folds the old count into `base`).
#[derive(Clone)]
pub(crate) struct Node<K, V> {
    pub(crate) key: K,
    pub(crate) value: V,
    /// Accesses before the stamp's period.
    base: u64,
    /// Period number (high 32 bits) and accesses in that period (low 32 bits).
    stamp: u64,
    pub(crate) next: u32,
}

/// The stamp of a period's first moment: `epoch` with a count of 0.
#[inline]
fn stamp_of(epoch: u32) -> u64 {
    u64::from(epoch) << 32
}

impl<K, V> Node<K, V> {
    fn new(key: K, value: V, epoch: u32, counts: Counts) -> Self {
        Self {
            key,
            value,
            base: counts.total.saturating_sub(u64::from(counts.period)),
            stamp: stamp_of(epoch) | u64::from(counts.period),
            next: NIL,
        }
    }

    #[inline]
    pub(crate) fn period_count(&self, epoch: u32) -> u32 {
        if self.stamp >> 32 == u64::from(epoch) {
            self.stamp as u32
        } else {
            0
        }
    }

    #[inline]
    pub(crate) fn total(&self) -> u64 {
        self.base.saturating_add(u64::from(self.stamp as u32))
    }

    /// Adds `n` accesses in period `epoch` (saturating: a period count beyond `u32::MAX`
    /// still reaches the total).
    fn bump(&mut self, epoch: u32, n: u64) {
        if self.stamp >> 32 != u64::from(epoch) {
            self.base = self.total();
            self.stamp = stamp_of(epoch);
        }
        let room = u64::from(u32::MAX - self.stamp as u32);
        self.stamp += n.min(room);
        self.base = self.base.saturating_add(n.saturating_sub(room));
    }

    /// Adds `counts` (total and current-period accesses) in period `epoch`.
    fn add_counts(&mut self, epoch: u32, counts: Counts) {
        self.bump(epoch, u64::from(counts.period));
        let rest = counts.total.saturating_sub(u64::from(counts.period));
        self.base = self.base.saturating_add(rest);
    }

    /// Forgets the period numbers (before the table's epoch wraps around).
    pub(crate) fn fold_period(&mut self) {
        self.base = self.total();
        self.stamp = 0;
    }

    pub(crate) fn counts(&self, epoch: u32) -> Counts {
        Counts {
            total: self.total(),
            period: self.period_count(epoch),
        }
    }
}

/// What the previous sort of an entry's bucket decided about it; read only by sort passes,
/// so it lives outside the node to keep probes compact.
#[derive(Clone, Copy, Default)]
pub(crate) struct Meta {
    /// The entry was in the first group of its bucket's last sort.
    pub(crate) hot: bool,
    /// Its count (in the policy's basis) at that sort.
    pub(crate) prev_key: u64,
}

/// A chained hash table with per-entry access counts that periodically sorts the hot entries
/// of its deep buckets to the front of their chains and reports phase changes.
///
/// See the [crate documentation](crate) for the model, the policy and an example.
pub struct BoundedHashTable<K, V, S = DefaultHashBuilder> {
    /// First entry of each bucket's chain.
    pub(crate) heads: Vec<u32>,
    /// Length of each bucket's chain (lets a pass skip shallow buckets without walking them).
    pub(crate) lens: Vec<u32>,
    /// The entries, dense; removal swaps the last entry into the hole.
    pub(crate) nodes: Vec<Node<K, V>>,
    /// Sort-time state of each entry, parallel to `nodes`.
    pub(crate) meta: Vec<Meta>,
    hasher: S,
    /// The bucket count never changes (chains deepen instead).
    fixed: bool,
    pub(crate) policy: SortPolicy,
    /// Current period number (see [`Node::period_count`]).
    pub(crate) epoch: u32,
    /// Counted accesses left until the period of [`Period::Accesses`] ends (`u64::MAX`
    /// under other periods), counted down so a lookup tests one field.
    pub(crate) until_pass: u64,
    /// The stamp of this period with a count of 0 (`epoch` in the high half).
    pub(crate) now_stamp: u64,
    /// The stamp of an entry of this period whose count just reached the frequency
    /// threshold, under [`CountBasis::Period`] (unreachable otherwise); see `count_one`.
    pub(crate) hot_mark: u64,
    /// External clock units since the last pass (for [`Period::Ticks`]).
    pub(crate) since_sort: u64,
    pub(crate) passes: u64,
    /// Cumulative statistics, except that `hit_probes` and `max_probe` count only lookups
    /// past the chain head (`stats()` adds the rest).
    pub(crate) stats: Stats,
    pub(crate) last_report: Option<SortReport>,
    pub(crate) scratch: Scratch,
    pub(crate) on_phase: Option<PhaseCallback>,
    /// Buckets where an entry began to qualify this period (may repeat); the next pass
    /// visits only these, so its cost follows the hot entries, not the table size.
    pub(crate) pending: Vec<u32>,
    /// The next pass must visit every bucket (after growth, a policy change or a merge).
    pub(crate) full_pass: bool,
}

impl<K, V> BoundedHashTable<K, V, DefaultHashBuilder> {
    /// An empty growable table with the default hasher and policy.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty growable table with room for `capacity` entries before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity_and_hasher(capacity, DefaultHashBuilder::default())
    }

    /// An empty table with exactly `buckets` buckets (at least 1) that never grows: chains
    /// deepen as entries are added, and sorting keeps the hot entries near their heads.
    pub fn with_fixed_buckets(buckets: usize) -> Self {
        Self::with_fixed_buckets_and_hasher(buckets, DefaultHashBuilder::default())
    }
}

impl<K, V> Default for BoundedHashTable<K, V, DefaultHashBuilder> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, V, S> BoundedHashTable<K, V, S> {
    fn build(buckets: usize, capacity: usize, hasher: S, fixed: bool) -> Self {
        let buckets = buckets.max(1);
        let mut table = Self {
            heads: vec![NIL; buckets],
            lens: vec![0; buckets],
            nodes: Vec::with_capacity(capacity),
            meta: Vec::with_capacity(capacity),
            hasher,
            fixed,
            policy: SortPolicy::default(),
            epoch: 0,
            until_pass: pass_every(&SortPolicy::default()),
            now_stamp: 0,
            hot_mark: 0,
            since_sort: 0,
            passes: 0,
            stats: Stats::default(),
            last_report: None,
            scratch: Scratch::default(),
            on_phase: None,
            pending: Vec::new(),
            full_pass: true,
        };
        table.refresh_marks();
        table
    }

    /// An empty growable table using `hasher`.
    pub fn with_hasher(hasher: S) -> Self {
        Self::with_capacity_and_hasher(0, hasher)
    }

    /// An empty growable table with room for `capacity` entries, using `hasher`.
    pub fn with_capacity_and_hasher(capacity: usize, hasher: S) -> Self {
        let capacity = capacity.min(MAX_ENTRIES);
        Self::build(capacity.next_power_of_two(), capacity, hasher, false)
    }

    /// An empty table with exactly `buckets` buckets (at least 1) that never grows, using
    /// `hasher`.
    pub fn with_fixed_buckets_and_hasher(buckets: usize, hasher: S) -> Self {
        Self::build(buckets, 0, hasher, true)
    }

    /// Replaces the sort policy (builder style).
    pub fn with_policy(mut self, policy: SortPolicy) -> Self {
        self.set_policy(policy);
        self
    }

    /// Recomputes the stamps `count_hit` compares with, after the epoch or policy changed.
    pub(crate) fn refresh_marks(&mut self) {
        self.now_stamp = stamp_of(self.epoch);
        let t = self.policy.frequency_threshold;
        self.hot_mark = match self.policy.basis {
            CountBasis::Period if t <= u64::from(u32::MAX) => self.now_stamp + t,
            // A period count never reaches it (counts stay below 2^32 and the fast path
            // sees only this period's stamps).
            _ => u64::MAX,
        };
    }

    /// The sort policy.
    pub fn policy(&self) -> &SortPolicy {
        &self.policy
    }

    /// Replaces the sort policy; the progress toward the next pass is kept (accesses counted
    /// under an access period, clock units under a tick period).
    pub fn set_policy(&mut self, policy: SortPolicy) {
        let done = pass_every(&self.policy) - self.until_pass;
        self.policy = policy;
        self.until_pass = pass_every(&policy).saturating_sub(done).max(1);
        self.refresh_marks();
        self.full_pass = true;
    }

    /// Installs (or with `None` removes) the callback called with the report of every pass
    /// that signals a phase change.
    pub fn set_phase_callback(&mut self, callback: Option<PhaseCallback>) {
        self.on_phase = callback;
    }

    /// The hasher.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Number of buckets.
    pub fn bucket_count(&self) -> usize {
        self.heads.len()
    }

    /// Whether the bucket count is fixed.
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    /// Entries the arena holds without reallocating.
    pub fn capacity(&self) -> usize {
        self.nodes.capacity()
    }

    /// Removes every entry; buckets, policy, statistics and the period state are kept.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.meta.clear();
        self.heads.fill(NIL);
        self.lens.fill(0);
        self.pending.clear();
    }

    /// Cumulative statistics.
    pub fn stats(&self) -> Stats {
        // Lookups store only the probes beyond the head (see `count_one`).
        Stats {
            hit_probes: self.stats.hit_probes + self.stats.hits,
            max_probe: self.stats.max_probe.max(u32::from(self.stats.hits > 0)),
            ..self.stats
        }
    }

    /// Zeroes the statistics (pass numbering continues).
    pub fn reset_stats(&mut self) {
        self.stats = Stats::default();
    }

    /// The report of the most recent sort pass.
    pub fn last_report(&self) -> Option<&SortReport> {
        self.last_report.as_ref()
    }

    /// Iterates over `(key, value)` in arena order (insertion order, except that a removal
    /// moves the last entry into the hole).
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter {
            inner: self.nodes.iter(),
        }
    }

    /// Iterates over `(key, value)` with mutable values; does not count accesses.
    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        IterMut {
            inner: self.nodes.iter_mut(),
        }
    }

    /// Iterates over `(key, value, counts)`.
    pub fn iter_counts(&self) -> impl Iterator<Item = (&K, &V, Counts)> + '_ {
        let epoch = self.epoch;
        self.nodes
            .iter()
            .map(move |n| (&n.key, &n.value, n.counts(epoch)))
    }

    /// Iterates over the keys.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.nodes.iter().map(|n| &n.key)
    }

    /// Iterates over the values.
    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.nodes.iter().map(|n| &n.value)
    }

    /// The entries of bucket `bucket` in chain order (probe order) with their counts; empty
    /// when `bucket` is out of range.
    pub fn chain(&self, bucket: usize) -> Chain<'_, K, V, S> {
        Chain {
            table: self,
            next: self.heads.get(bucket).copied().unwrap_or(NIL),
        }
    }

    /// Length of every chain and the access-weighted mean probe depth of the current order.
    pub fn chain_profile(&self) -> ChainProfile {
        let (mut weight_t, mut sum_t, mut weight_p, mut sum_p) = (0f64, 0f64, 0f64, 0f64);
        let mut profile = ChainProfile {
            buckets: self.heads.len(),
            ..ChainProfile::default()
        };
        for b in 0..self.heads.len() {
            let mut depth = 0usize;
            for (_, _, c) in self.chain(b) {
                depth += 1;
                weight_t += c.total as f64;
                sum_t += c.total as f64 * depth as f64;
                weight_p += f64::from(c.period);
                sum_p += f64::from(c.period) * depth as f64;
            }
            profile.occupied += usize::from(depth > 0);
            profile.max_depth = profile.max_depth.max(depth);
        }
        let ratio = |s: f64, w: f64| if w > 0.0 { s / w } else { 0.0 };
        profile.weighted_depth_total = ratio(sum_t, weight_t);
        profile.weighted_depth_period = ratio(sum_p, weight_p);
        profile
    }

    /// Feeds `units` of the external clock. With [`Period::Ticks`]`(k)`, runs a sort pass
    /// once `k` units have accumulated since the last one (one pass however many periods
    /// elapsed) and returns its report; otherwise only returns `None`.
    pub fn tick(&mut self, units: u64) -> Option<SortReport>
    where
        K: Hash + Eq,
        S: BuildHasher,
    {
        let Period::Ticks(k) = self.policy.period else {
            return None;
        };
        self.since_sort = self.since_sort.saturating_add(units);
        (self.since_sort >= k.get()).then(|| self.sort())
    }

    /// Appends arena entry `idx` to the tail of bucket `b`'s chain.
    fn link_tail(&mut self, b: usize, idx: u32) {
        let mut i = self.heads[b];
        if i == NIL {
            self.heads[b] = idx;
        } else {
            while self.nodes[i as usize].next != NIL {
                i = self.nodes[i as usize].next;
            }
            self.nodes[i as usize].next = idx;
        }
        self.lens[b] += 1;
    }

    /// Makes whatever links to `from` in bucket `b` link to `to` instead.
    fn relink(&mut self, b: usize, from: u32, to: u32) {
        if self.heads[b] == from {
            self.heads[b] = to;
            return;
        }
        let mut i = self.heads[b];
        while i != NIL {
            let node = &mut self.nodes[i as usize];
            if node.next == from {
                node.next = to;
                return;
            }
            i = node.next;
        }
        debug_assert!(false, "entry {from} missing from bucket {b}");
    }
}

impl<K: Hash + Eq, V, S: BuildHasher> BoundedHashTable<K, V, S> {
    #[inline]
    pub(crate) fn hash_of<Q: Hash + ?Sized>(&self, key: &Q) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Bucket of a hash: the high bits scaled to the bucket count ("fastrange"), so any
    /// bucket count works and doubling splits bucket `b` into `2b` and `2b + 1`.
    #[inline]
    pub(crate) fn bucket_for(&self, hash: u64) -> usize {
        ((u128::from(hash) * self.heads.len() as u128) >> 64) as usize
    }

    /// The bucket `key` belongs to.
    pub fn bucket_of<Q>(&self, key: &Q) -> usize
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.bucket_for(self.hash_of(key))
    }

    /// Arena index and probe depth (1 = head) of `key` in bucket `b`.
    #[inline]
    pub(crate) fn walk<Q>(&self, b: usize, key: &Q) -> Option<(usize, u32)>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        let mut i = self.heads.get(b).copied().unwrap_or(NIL);
        let mut depth = 1u32;
        // `NIL` is out of the arena's range: `get` ends the chain and checks bounds at once.
        while let Some(node) = self.nodes.get(i as usize) {
            if node.key.borrow() == key {
                return Some((i as usize, depth));
            }
            i = node.next;
            depth += 1;
        }
        None
    }

    /// Counts one access of `node` in the common cases: it was already accessed this period
    /// (count below saturation), or this is its first access of the period. Returns whether
    /// its bucket begins to qualify, or `None` (nothing counted) for the rare cases: zero or
    /// saturated counts.
    #[inline(always)]
    fn count_one(
        node: &mut Node<K, V>,
        now: u64,
        hot_mark: u64,
        policy: &SortPolicy,
    ) -> Option<bool> {
        let t = policy.frequency_threshold;
        let total_basis = policy.basis == CountBasis::Total;
        // The count of this period if the stamp is of this period, else above u32::MAX.
        let seen = node.stamp.wrapping_sub(now);
        if seen.wrapping_sub(1) < u64::from(u32::MAX - 1) {
            node.stamp += 1;
            // The count was at least 1 before, so it begins to qualify exactly when it
            // reaches the threshold (a saturated total may queue its bucket again: harmless).
            Some(if total_basis {
                node.total() == t
            } else {
                node.stamp == hot_mark
            })
        } else if seen > u64::from(u32::MAX) {
            // First access this period: the old period's count joins the base.
            node.base = node.total();
            node.stamp = now + 1;
            Some((if total_basis { node.total() } else { 1 }) >= t)
        } else {
            None
        }
    }

    /// Whether an entry whose counts went from `before` to `now` begins to qualify in this
    /// period: its count reaches the frequency threshold, or it is accessed for the first
    /// time this period while qualifying.
    fn begins_to_qualify(policy: &SortPolicy, before: Counts, now: Counts) -> bool {
        let t = policy.frequency_threshold;
        let (old, new) = match policy.basis {
            CountBasis::Period => (u64::from(before.period), u64::from(now.period)),
            CountBasis::Total => (before.total, now.total),
        };
        new >= t && (old < t || before.period == 0)
    }

    /// Records a lookup found at `depth` (`Stats` keeps only the probes past the head).
    #[inline(always)]
    fn note_probe(stats: &mut Stats, depth: u32) {
        stats.hits += 1;
        if depth > 1 {
            stats.hit_probes += u64::from(depth - 1);
            stats.max_probe = stats.max_probe.max(depth);
        }
    }

    /// Counts `n` accesses of entry `idx` found (once) at `depth` in bucket `b`, then runs a
    /// pass if the period has elapsed; returns whether it did. Sorting only relinks chains,
    /// so `idx` stays valid.
    pub(crate) fn count_access(&mut self, idx: usize, b: usize, depth: u32, n: u64) -> bool {
        let node = &mut self.nodes[idx];
        let before = node.counts(self.epoch);
        node.bump(self.epoch, n);
        if n > 0 && Self::begins_to_qualify(&self.policy, before, node.counts(self.epoch)) {
            self.pending.push(b as u32);
        }
        Self::note_probe(&mut self.stats, depth);
        self.count_new_access(n)
    }

    /// Advances the access clock by `n` and runs a pass when the period (of
    /// [`Period::Accesses`]) has elapsed; returns whether it did.
    #[inline]
    pub(crate) fn count_new_access(&mut self, n: u64) -> bool {
        self.until_pass = self.until_pass.saturating_sub(n);
        if self.until_pass == 0 {
            self.end_period();
            return true;
        }
        false
    }

    /// The access clock ran out: a pass under [`Period::Accesses`], otherwise only a reset
    /// of the clock (kept out of line, it runs once a period).
    #[cold]
    #[inline(never)]
    fn end_period(&mut self) {
        if matches!(self.policy.period, Period::Accesses(_)) {
            self.sort();
        } else {
            self.until_pass = u64::MAX;
        }
    }

    /// Looks `key` up and counts `n` accesses; the arena index if present.
    fn access<Q>(&mut self, key: &Q, n: u64) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let b = self.bucket_for(self.hash_of(key));
        let (idx, depth) = self.walk(b, key)?;
        self.count_access(idx, b, depth, n);
        Some(idx)
    }

    /// The counted lookup of `get_mut` and `entry`: finds `key` in bucket `b` and counts one
    /// access; its arena index and value. Unless this access ends the period (one
    /// predictable test of the clock), no pass can run, so the found node is counted and
    /// returned through one reference.
    #[inline]
    pub(crate) fn hit<Q>(&mut self, b: usize, key: &Q) -> Option<(usize, &mut V)>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        if self.until_pass <= 1 {
            return self.hit_ending_period(b, key);
        }
        let (idx, depth) = self.walk(b, key)?;
        // `walk` just checked `idx` against the same length: no second check is emitted.
        let node = self.nodes.get_mut(idx)?;
        let qualifies = match Self::count_one(node, self.now_stamp, self.hot_mark, &self.policy) {
            Some(q) => q,
            None => {
                let before = node.counts(self.epoch);
                node.bump(self.epoch, 1);
                Self::begins_to_qualify(&self.policy, before, node.counts(self.epoch))
            }
        };
        if qualifies {
            self.pending.push(b as u32);
        }
        Self::note_probe(&mut self.stats, depth);
        self.until_pass -= 1;
        Some((idx, &mut node.value))
    }

    /// [`hit`](Self::hit) for the access that ends the period and runs a pass.
    #[cold]
    #[inline(never)]
    fn hit_ending_period<Q>(&mut self, b: usize, key: &Q) -> Option<(usize, &mut V)>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        let (idx, depth) = self.walk(b, key)?;
        self.count_access(idx, b, depth, 1);
        Some((idx, &mut self.nodes[idx].value))
    }

    /// A shared reference to the value of `key`. A pure read: it counts no access and never
    /// sorts (use [`get_mut`](Self::get_mut) or [`entry`](Self::entry) to count).
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (idx, _) = self.walk(self.bucket_of(key), key)?;
        Some(&self.nodes[idx].value)
    }

    /// The stored key and value of `key`, without counting.
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (idx, _) = self.walk(self.bucket_of(key), key)?;
        let node = &self.nodes[idx];
        Some((&node.key, &node.value))
    }

    /// Whether `key` is present (no counting).
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.get(key).is_some()
    }

    /// The access counts of `key` (no counting).
    pub fn counts<Q>(&self, key: &Q) -> Option<Counts>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (idx, _) = self.walk(self.bucket_of(key), key)?;
        Some(self.nodes[idx].counts(self.epoch))
    }

    /// A mutable reference to the value of `key`; counts one access when present (the
    /// profiler's "record an occurrence"), which may run a sort pass first.
    #[inline]
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let b = self.bucket_for(self.hash_of(key));
        self.hit(b, key).map(|(_, value)| value)
    }

    /// Like [`get_mut`](Self::get_mut) but counts `n` accesses at once (a trip count
    /// gathered elsewhere, such as a repeated path's); the access clock advances by `n`.
    /// `n = 0` is a lookup that only records its probe depth.
    pub fn record<Q>(&mut self, key: &Q, n: u64) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let idx = self.access(key, n)?;
        Some(&mut self.nodes[idx].value)
    }

    /// Inserts `key` with `value`, counting one access. Returns the previous value if the
    /// key was present (its counts continue); a new key starts with counts of 1 and is
    /// appended to its chain's tail.
    ///
    /// # Panics
    /// When the table already holds [`MAX_ENTRIES`] entries.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let hash = self.hash_of(&key);
        let b = self.bucket_for(hash);
        if let Some((idx, depth)) = self.walk(b, &key) {
            let old = std::mem::replace(&mut self.nodes[idx].value, value);
            self.count_access(idx, b, depth, 1);
            return Some(old);
        }
        self.insert_new(
            hash,
            key,
            value,
            Counts {
                total: 1,
                period: 1,
            },
        );
        self.count_new_access(1);
        None
    }

    /// Appends a new entry (the key must be absent) with the given counts and returns its
    /// arena index. Grows a growable table first when it would exceed one entry per bucket.
    pub(crate) fn insert_new(&mut self, hash: u64, key: K, value: V, counts: Counts) -> usize {
        assert!(
            self.nodes.len() < MAX_ENTRIES,
            "bounded-hashtable: more than MAX_ENTRIES entries"
        );
        if !self.fixed && self.nodes.len() >= self.heads.len() {
            self.rehash(self.heads.len().saturating_mul(2));
        }
        let idx = self.nodes.len();
        self.nodes.push(Node::new(key, value, self.epoch, counts));
        self.meta.push(Meta::default());
        let b = self.bucket_for(hash);
        self.link_tail(b, idx as u32);
        if counts.total > 0
            && Self::begins_to_qualify(
                &self.policy,
                Counts::default(),
                self.nodes[idx].counts(self.epoch),
            )
        {
            self.pending.push(b as u32);
        }
        idx
    }

    /// Rebuilds the chains for `buckets` buckets. Old chains are walked in order and entries
    /// appended to the new tails, so the sorted order survives (doubling splits each chain).
    fn rehash(&mut self, buckets: usize) {
        self.full_pass = true;
        let old = std::mem::replace(&mut self.heads, vec![NIL; buckets]);
        self.lens = vec![0; buckets];
        let mut tails = vec![NIL; buckets];
        for head in old {
            let mut i = head;
            while i != NIL {
                let next = self.nodes[i as usize].next;
                self.nodes[i as usize].next = NIL;
                let b = self.bucket_for(self.hash_of(&self.nodes[i as usize].key));
                match tails[b] {
                    NIL => self.heads[b] = i,
                    t => self.nodes[t as usize].next = i,
                }
                tails[b] = i;
                self.lens[b] += 1;
                i = next;
            }
        }
    }

    /// Removes `key`, returning its value (no counting).
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.remove_entry(key).map(|(_, v)| v)
    }

    /// Removes `key`, returning the stored key and value (no counting).
    pub fn remove_entry<Q>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let b = self.bucket_of(key);
        let (idx, _) = self.walk(b, key)?;
        Some(self.remove_at(b, idx))
    }

    /// Unlinks arena entry `idx` of bucket `b` and takes it out of the arena, moving the
    /// last entry into its place.
    pub(crate) fn remove_at(&mut self, b: usize, idx: usize) -> (K, V) {
        let idx32 = idx as u32;
        let next = self.nodes[idx].next;
        self.relink(b, idx32, next);
        self.lens[b] -= 1;
        let last = (self.nodes.len() - 1) as u32;
        let node = self.nodes.swap_remove(idx);
        self.meta.swap_remove(idx);
        if idx32 != last {
            let moved = self.bucket_for(self.hash_of(&self.nodes[idx].key));
            self.relink(moved, last, idx32);
        }
        (node.key, node.value)
    }

    /// Keeps only the entries for which `keep` returns true (no counting).
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let mut i = 0;
        while i < self.nodes.len() {
            let node = &mut self.nodes[i];
            if keep(&node.key, &mut node.value) {
                i += 1;
            } else {
                let b = self.bucket_for(self.hash_of(&self.nodes[i].key));
                self.remove_at(b, i);
            }
        }
    }

    /// Merges `other` into `self` (for combining profiles): counts are added (total and
    /// current period, saturating); a key present in both has `combine(key, &mut mine,
    /// theirs)` called; other keys are inserted with their counts. Merging counts no
    /// accesses and runs no pass; chain order of existing entries is unchanged and new ones
    /// are appended.
    pub fn merge<S2>(
        &mut self,
        other: BoundedHashTable<K, V, S2>,
        mut combine: impl FnMut(&K, &mut V, V),
    ) {
        self.full_pass = true;
        let other_epoch = other.epoch;
        for node in other.nodes {
            let counts = node.counts(other_epoch);
            let hash = self.hash_of(&node.key);
            match self.walk(self.bucket_for(hash), &node.key) {
                Some((idx, _)) => {
                    let epoch = self.epoch;
                    let mine = &mut self.nodes[idx];
                    combine(&mine.key, &mut mine.value, node.value);
                    mine.add_counts(epoch, counts);
                }
                None => {
                    self.insert_new(hash, node.key, node.value, counts);
                }
            }
        }
    }
}

impl<K: Clone, V: Clone, S: Clone> Clone for BoundedHashTable<K, V, S> {
    /// Clones everything except the phase callback, which cannot be cloned.
    fn clone(&self) -> Self {
        Self {
            heads: self.heads.clone(),
            lens: self.lens.clone(),
            nodes: self.nodes.clone(),
            meta: self.meta.clone(),
            hasher: self.hasher.clone(),
            fixed: self.fixed,
            policy: self.policy,
            epoch: self.epoch,
            until_pass: self.until_pass,
            now_stamp: self.now_stamp,
            hot_mark: self.hot_mark,
            since_sort: self.since_sort,
            passes: self.passes,
            stats: self.stats,
            last_report: self.last_report,
            scratch: Scratch::default(),
            on_phase: None,
            pending: self.pending.clone(),
            full_pass: self.full_pass,
        }
    }
}

impl<K: fmt::Debug, V: fmt::Debug, S> fmt::Debug for BoundedHashTable<K, V, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Hash + Eq, V, S: BuildHasher> Extend<(K, V)> for BoundedHashTable<K, V, S> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: Hash + Eq, V> FromIterator<(K, V)> for BoundedHashTable<K, V, DefaultHashBuilder> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut table = Self::new();
        table.extend(iter);
        table
    }
}

/// Iterator over `(&K, &V)`, from [`BoundedHashTable::iter`].
pub struct Iter<'a, K, V> {
    inner: std::slice::Iter<'a, Node<K, V>>,
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|n| (&n.key, &n.value))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<K, V> ExactSizeIterator for Iter<'_, K, V> {}

/// Iterator over `(&K, &mut V)`, from [`BoundedHashTable::iter_mut`].
pub struct IterMut<'a, K, V> {
    inner: std::slice::IterMut<'a, Node<K, V>>,
}

impl<'a, K, V> Iterator for IterMut<'a, K, V> {
    type Item = (&'a K, &'a mut V);
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|n| (&n.key, &mut n.value))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<K, V> ExactSizeIterator for IterMut<'_, K, V> {}

/// Owning iterator over `(K, V)`.
pub struct IntoIter<K, V> {
    inner: std::vec::IntoIter<Node<K, V>>,
}

impl<K, V> Iterator for IntoIter<K, V> {
    type Item = (K, V);
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|n| (n.key, n.value))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<K, V> ExactSizeIterator for IntoIter<K, V> {}

impl<K, V, S> IntoIterator for BoundedHashTable<K, V, S> {
    type Item = (K, V);
    type IntoIter = IntoIter<K, V>;
    fn into_iter(self) -> IntoIter<K, V> {
        IntoIter {
            inner: self.nodes.into_iter(),
        }
    }
}

impl<'a, K, V, S> IntoIterator for &'a BoundedHashTable<K, V, S> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Iter<'a, K, V> {
        self.iter()
    }
}

/// The entries of one bucket in probe order, from [`BoundedHashTable::chain`].
pub struct Chain<'a, K, V, S> {
    table: &'a BoundedHashTable<K, V, S>,
    next: u32,
}

impl<'a, K, V, S> Iterator for Chain<'a, K, V, S> {
    type Item = (&'a K, &'a V, Counts);
    fn next(&mut self) -> Option<Self::Item> {
        let node = self.table.nodes.get(self.next as usize)?;
        self.next = node.next;
        Some((&node.key, &node.value, node.counts(self.table.epoch)))
    }
}

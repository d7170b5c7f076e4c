//! The chained table itself: the slots (each bucket's first entry inline, the chained
//! entries behind them), lookups, insertion, removal, growth, iteration and merging.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::num::NonZeroU32;

use crate::policy::{CountBasis, Period, SortPolicy};
use crate::sort::Scratch;
use crate::stats::{ChainProfile, Counts, SortReport, Stats};

/// The default hasher: foldhash's fast hasher with a fixed seed, so bucket placement, sort
/// results and phase reports are reproducible from run to run. Use
/// `foldhash::fast::RandomState` (or any [`BuildHasher`]) when keys come from an adversary.
pub type DefaultHashBuilder = foldhash::fast::FixedState;

/// A chain link: the slot index of the next entry. Links only point to chained slots
/// (indices at or above the bucket count, so never 0), which gives `Option<Node>` a niche:
/// an empty bucket costs no tag.
pub(crate) type Link = NonZeroU32;

/// Link value meaning "no entry" (out of the slots' range, so a lookup's bounds check also
/// ends the chain).
pub(crate) const NIL: Link = NonZeroU32::MAX;

/// The link to slot `i` (a chained slot, so `i >= 1`).
#[inline]
pub(crate) fn link(i: usize) -> Link {
    u32::try_from(i)
        .ok()
        .and_then(NonZeroU32::new)
        .unwrap_or(NIL)
}

/// The largest number of entries a table can hold (slot indices are `u32`, one value is
/// reserved as the end-of-chain link; the bucket count and the chained entries together
/// stay below it). Inserting beyond it panics, like `Vec`'s capacity overflow.
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

/// One entry: key, value, counts and the chain link together, so a probe touches one
/// place. A counted lookup only increments `stamp`: the period count is valid while the
/// stamp's period number equals the table's epoch (a pass starts a new period without
/// visiting any entry), and the total is the *base* plus the stamp's count (the first
/// access of a new period folds the old count into the base).
///
/// The base's low half lives here and its high half in the entry's [`Meta`] (touched only
/// when the low half carries, once per 2^32 accesses of an entry), so with `u64` keys and
/// values a node is 32 bytes; aligned to 32, a node never straddles two cache lines.
#[derive(Clone)]
#[repr(align(32))]
pub(crate) struct Node<K, V> {
    pub(crate) key: K,
    pub(crate) value: V,
    /// Period number (high 32 bits) and accesses in that period (low 32 bits).
    stamp: u64,
    /// Accesses before the stamp's period, low 32 bits (the high ones: [`Meta::base_hi`]).
    base: u32,
    pub(crate) next: Link,
}

/// The stamp of a period's first moment: `epoch` with a count of 0.
#[inline]
fn stamp_of(epoch: u32) -> u64 {
    u64::from(epoch) << 32
}

impl<K, V> Node<K, V> {
    /// A new entry with `counts` in period `epoch`, and its sort state (holding the base's
    /// high half).
    fn new(key: K, value: V, epoch: u32, counts: Counts) -> (Self, Meta) {
        let mut node = Self {
            key,
            value,
            stamp: stamp_of(epoch) | u64::from(counts.period),
            base: 0,
            next: NIL,
        };
        let mut meta = Meta::default();
        node.set_base(
            &mut meta,
            counts.total.saturating_sub(u64::from(counts.period)),
        );
        (node, meta)
    }

    /// Accesses before the stamp's period (`meta` is the entry's).
    #[inline]
    fn base(&self, meta: &Meta) -> u64 {
        u64::from(meta.base_hi) << 32 | u64::from(self.base)
    }

    fn set_base(&mut self, meta: &mut Meta, base: u64) {
        self.base = base as u32;
        meta.base_hi = (base >> 32) as u32;
    }

    /// Adds `n` accesses to the base (saturating) of the entry whose sort state is
    /// `metas[at]`, which only a carry out of the low half touches.
    #[inline(always)]
    fn add_base(&mut self, n: u32, metas: &mut [Meta], at: usize) {
        let (low, carried) = self.base.overflowing_add(n);
        self.base = low;
        if carried {
            self.carry(metas.get_mut(at));
        }
    }

    #[cold]
    #[inline(never)]
    fn carry(&mut self, meta: Option<&mut Meta>) {
        match meta {
            Some(m) if m.base_hi < u32::MAX => m.base_hi += 1,
            // At u64::MAX (or, never, without its state): saturate.
            _ => self.base = u32::MAX,
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
    pub(crate) fn total(&self, meta: &Meta) -> u64 {
        self.base(meta).saturating_add(u64::from(self.stamp as u32))
    }

    /// Adds `n` accesses in period `epoch` (saturating: a period count beyond `u32::MAX`
    /// still reaches the total).
    fn bump(&mut self, meta: &mut Meta, epoch: u32, n: u64) {
        if self.stamp >> 32 != u64::from(epoch) {
            let total = self.total(meta);
            self.set_base(meta, total);
            self.stamp = stamp_of(epoch);
        }
        let room = u64::from(u32::MAX - self.stamp as u32);
        self.stamp += n.min(room);
        let base = self.base(meta).saturating_add(n.saturating_sub(room));
        self.set_base(meta, base);
    }

    /// Adds `counts` (total and current-period accesses) in period `epoch`.
    fn add_counts(&mut self, meta: &mut Meta, epoch: u32, counts: Counts) {
        self.bump(meta, epoch, u64::from(counts.period));
        let rest = counts.total.saturating_sub(u64::from(counts.period));
        let base = self.base(meta).saturating_add(rest);
        self.set_base(meta, base);
    }

    /// Forgets the period numbers (before the table's epoch wraps around).
    pub(crate) fn fold_period(&mut self, meta: &mut Meta) {
        let total = self.total(meta);
        self.set_base(meta, total);
        self.stamp = 0;
    }

    pub(crate) fn counts(&self, meta: &Meta, epoch: u32) -> Counts {
        Counts {
            total: self.total(meta),
            period: self.period_count(epoch),
        }
    }
}

/// What the previous sort of an entry's bucket decided about it, and the high half of its
/// count base; rarely touched by lookups, so it lives outside the node to keep probes
/// compact. It moves with its entry.
#[derive(Clone, Copy, Default)]
pub(crate) struct Meta {
    /// The entry was in the first group of its bucket's last sort.
    pub(crate) hot: bool,
    /// High 32 bits of the entry's base (see [`Node`]).
    base_hi: u32,
    /// Its count (in the policy's basis) at that sort.
    pub(crate) prev_key: u64,
}

impl Meta {
    /// This state with the sort's decision replaced (the base is kept).
    pub(crate) fn sorted(self, hot: bool, prev_key: u64) -> Self {
        Self {
            hot,
            prev_key,
            ..self
        }
    }
}

/// A chained hash table with per-entry access counts that periodically sorts the hot entries
/// of its deep buckets to the front of their chains and reports phase changes.
///
/// See the [crate documentation](crate) for the model, the policy and an example.
pub struct BoundedHashTable<K, V, S = DefaultHashBuilder> {
    /// Slot `b < buckets` holds bucket `b`'s first entry inline (`None`: empty bucket), so a
    /// hit on a chain head reads one place; the entries behind the heads follow, dense
    /// (removal moves the last one into the hole).
    pub(crate) slots: Vec<Option<Node<K, V>>>,
    /// Number of buckets (the inline slots).
    pub(crate) buckets: usize,
    /// Length of each bucket's chain (lets a pass skip shallow buckets without walking them).
    pub(crate) lens: Vec<u32>,
    /// Sort-time state of each slot's entry, parallel to `slots`.
    pub(crate) meta: Vec<Meta>,
    /// Number of entries.
    len: usize,
    hasher: S,
    /// The bucket count never changes (chains deepen instead).
    fixed: bool,
    pub(crate) policy: SortPolicy,
    /// Current period number (see [`Node::period_count`]).
    pub(crate) epoch: u32,
    /// The access clock's countdown, which a lookup tests against a constant: hits take the
    /// inlined path while it exceeds 1 (the period's last access runs a pass out of line).
    /// Under [`CountBasis::Period`] it holds all the counted accesses left until the
    /// period of [`Period::Accesses`] ends (`u64::MAX` under other periods); under
    /// [`CountBasis::Total`], whose hits all go out of line, at most 1 of them.
    pub(crate) until_pass: u64,
    /// The rest of the accesses left (0 under [`CountBasis::Period`]); see `left`.
    held: u64,
    /// `until_pass` when the statistics last took in the lookups it counted (`fold_clock`):
    /// the inlined hits since then are `clock_top - until_pass` (every other path resets
    /// the clock), so a hit stores no hit counter of its own.
    clock_top: u64,
    /// The stamp of this period with a count of 0 (`epoch` in the high half).
    pub(crate) now_stamp: u64,
    /// The stamp an entry reaches on the access that makes it begin to qualify, under
    /// [`CountBasis::Period`] (unreachable otherwise); see `count_one`.
    pub(crate) hot_mark: u64,
    /// External clock units since the last pass (for [`Period::Ticks`]).
    pub(crate) since_sort: u64,
    pub(crate) passes: u64,
    /// Cumulative statistics, except that `hit_probes` and `max_probe` count only lookups
    /// past the chain head and `hits` lacks the lookups since `fold_clock` (`stats()` adds
    /// the rest).
    pub(crate) stats: Stats,
    pub(crate) last_report: Option<SortReport>,
    pub(crate) scratch: Scratch,
    pub(crate) on_phase: Option<PhaseCallback>,
    /// Buckets where an entry began to qualify this period (may repeat); the next pass
    /// visits only these, so its cost follows the hot entries, not the table size.
    pub(crate) pending: Vec<u32>,
    /// The next pass must visit every bucket (after growth, a policy change or a merge).
    pub(crate) full_pass: bool,
    /// A slot whose entry a pass must track while it moves entries (`usize::MAX`: none);
    /// lets an access that ends a period return its entry after the pass.
    pub(crate) follow: usize,
    /// Chained entries placed or moved since the chains were last laid out bucket by
    /// bucket (see `relayout_if_scattered`).
    pub(crate) strays: usize,
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

    /// An empty table with exactly `buckets` buckets (at least 1, at most [`MAX_ENTRIES`])
    /// that never grows: chains deepen as entries are added, and sorting keeps the hot
    /// entries near their heads. Room for as many chained entries as buckets is reserved
    /// (address space, touched only as entries arrive).
    pub fn with_fixed_buckets(buckets: usize) -> Self {
        Self::with_fixed_buckets_and_hasher(buckets, DefaultHashBuilder::default())
    }
}

impl<K, V> Default for BoundedHashTable<K, V, DefaultHashBuilder> {
    fn default() -> Self {
        Self::new()
    }
}

/// `buckets` empty inline slots, with room for `chained` entries behind them.
fn empty_slots<K, V>(buckets: usize, chained: usize) -> Vec<Option<Node<K, V>>> {
    let mut slots = Vec::with_capacity(buckets.saturating_add(chained));
    slots.extend(std::iter::repeat_with(|| None).take(buckets));
    slots
}

impl<K, V, S> BoundedHashTable<K, V, S> {
    fn build(buckets: usize, hasher: S, fixed: bool) -> Self {
        let buckets = buckets.clamp(1, MAX_ENTRIES);
        // A fixed table chains its overflow behind the heads in the same vector. Room for
        // as many chained entries as buckets costs address space only until used, and
        // spares the first chained entry a copy of every head (6 MB for 65536 buckets
        // of 96-byte nodes: a third of the strata sink's time on a short run).
        let chained = if fixed { buckets } else { 0 };
        let mut meta = Vec::with_capacity(buckets + chained);
        meta.resize(buckets, Meta::default());
        let mut table = Self {
            slots: empty_slots(buckets, chained),
            buckets,
            lens: vec![0; buckets],
            meta,
            len: 0,
            hasher,
            fixed,
            policy: SortPolicy::default(),
            epoch: 0,
            until_pass: 0,
            held: 0,
            clock_top: 0,
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
            follow: usize::MAX,
            strays: 0,
        };
        table.set_clock(pass_every(&table.policy));
        table.refresh_marks();
        table
    }

    /// An empty growable table using `hasher`.
    pub fn with_hasher(hasher: S) -> Self {
        Self::with_capacity_and_hasher(0, hasher)
    }

    /// An empty growable table with room for `capacity` entries, using `hasher`.
    pub fn with_capacity_and_hasher(capacity: usize, hasher: S) -> Self {
        let capacity = capacity.min(MAX_ENTRIES / 2);
        Self::build(capacity.next_power_of_two(), hasher, false)
    }

    /// An empty table with exactly `buckets` buckets (at least 1, at most
    /// [`MAX_ENTRIES`]) that never grows, using `hasher`.
    pub fn with_fixed_buckets_and_hasher(buckets: usize, hasher: S) -> Self {
        Self::build(buckets, hasher, true)
    }

    /// Replaces the sort policy (builder style).
    pub fn with_policy(mut self, policy: SortPolicy) -> Self {
        self.set_policy(policy);
        self
    }

    /// Recomputes the stamps `count_one` compares with, after the epoch or policy changed.
    pub(crate) fn refresh_marks(&mut self) {
        self.now_stamp = stamp_of(self.epoch);
        let t = self.policy.frequency_threshold;
        self.hot_mark = match self.policy.basis {
            // An entry begins to qualify when its period count reaches the threshold, or
            // (threshold 0) at its first access of the period.
            CountBasis::Period if t <= u64::from(u32::MAX) => self.now_stamp + t.max(1),
            // A period count never reaches it (counts stay below 2^32 and the fast path
            // sees only this period's stamps).
            _ => u64::MAX,
        };
    }

    /// Takes the lookups counted since the last call into the statistics (before the clock
    /// is reset or the statistics are read or zeroed).
    fn fold_clock(&mut self) {
        self.stats.hits += self.fast_hits();
        self.clock_top = self.until_pass;
    }

    /// Inlined hits since the last `fold_clock`.
    fn fast_hits(&self) -> u64 {
        self.clock_top - self.until_pass
    }

    /// Counted accesses left until the period ends.
    pub(crate) fn left(&self) -> u64 {
        self.until_pass + self.held
    }

    /// Sets the access clock to `left` accesses until the period ends (after folding what
    /// it counted), split between `until_pass` and `held` by the policy's count basis.
    pub(crate) fn set_clock(&mut self, left: u64) {
        self.fold_clock();
        self.until_pass = match self.policy.basis {
            CountBasis::Period => left,
            CountBasis::Total => left.min(1),
        };
        self.held = left - self.until_pass;
        self.clock_top = self.until_pass;
    }

    /// The sort policy.
    pub fn policy(&self) -> &SortPolicy {
        &self.policy
    }

    /// Replaces the sort policy; the progress toward the next pass is kept (accesses counted
    /// under an access period, clock units under a tick period).
    pub fn set_policy(&mut self, policy: SortPolicy) {
        let done = pass_every(&self.policy) - self.left();
        self.policy = policy;
        self.set_clock(pass_every(&policy).saturating_sub(done).max(1));
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
        self.len
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of buckets.
    pub fn bucket_count(&self) -> usize {
        self.buckets
    }

    /// Whether the bucket count is fixed.
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    /// Slots allocated: one inline slot per bucket plus room for the entries chained
    /// behind the heads, without reallocating.
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Removes every entry; buckets, policy, statistics and the period state are kept.
    pub fn clear(&mut self) {
        self.slots.truncate(self.buckets);
        self.slots.fill_with(|| None);
        self.meta.truncate(self.buckets);
        self.meta.fill(Meta::default());
        self.lens.fill(0);
        self.len = 0;
        self.pending.clear();
        self.strays = 0;
    }

    /// Cumulative statistics.
    pub fn stats(&self) -> Stats {
        // Lookups store only the probes beyond the head (see `note_probe`) and no hit count
        // (see `fold_clock`).
        let hits = self.stats.hits + self.fast_hits();
        Stats {
            hits,
            hit_probes: self.stats.hit_probes + hits,
            max_probe: self.stats.max_probe.max(u32::from(hits > 0)),
            ..self.stats
        }
    }

    /// Zeroes the statistics (pass numbering continues).
    pub fn reset_stats(&mut self) {
        self.fold_clock();
        self.stats = Stats::default();
    }

    /// The report of the most recent sort pass.
    pub fn last_report(&self) -> Option<&SortReport> {
        self.last_report.as_ref()
    }

    /// Iterates over `(key, value)` in slot order: the buckets' first entries in bucket
    /// order, then the chained entries: bucket by bucket in chain order as the last growth
    /// or pass laid them out, then the ones appended since in insertion order (a removal
    /// moves the last one into the hole, a sort exchanges entries within a chain).
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter {
            inner: self.slots.iter().flatten(),
            left: self.len,
        }
    }

    /// Iterates over `(key, value)` with mutable values; does not count accesses.
    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        IterMut {
            inner: self.slots.iter_mut().flatten(),
            left: self.len,
        }
    }

    /// Iterates over `(key, value, counts)`.
    pub fn iter_counts(&self) -> impl Iterator<Item = (&K, &V, Counts)> + '_ {
        let epoch = self.epoch;
        self.slots
            .iter()
            .zip(&self.meta)
            .filter_map(move |(n, m)| n.as_ref().map(|n| (&n.key, &n.value, n.counts(m, epoch))))
    }

    /// Every entry, in slot order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = &Node<K, V>> + '_ {
        self.slots.iter().flatten()
    }

    /// Iterates over the keys.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.entries().map(|n| &n.key)
    }

    /// Iterates over the values.
    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.entries().map(|n| &n.value)
    }

    /// The entries of bucket `bucket` in chain order (probe order) with their counts; empty
    /// when `bucket` is out of range.
    pub fn chain(&self, bucket: usize) -> Chain<'_, K, V, S> {
        Chain {
            table: self,
            next: if bucket < self.buckets {
                bucket
            } else {
                usize::MAX
            },
        }
    }

    /// Length of every chain and the access-weighted mean probe depth of the current order.
    pub fn chain_profile(&self) -> ChainProfile {
        let (mut weight_t, mut sum_t, mut weight_p, mut sum_p) = (0f64, 0f64, 0f64, 0f64);
        let mut profile = ChainProfile {
            buckets: self.buckets,
            ..ChainProfile::default()
        };
        for b in 0..self.buckets {
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

    /// The entry in slot `i`, which the caller knows to be occupied (an index a lookup
    /// returned, not changed since).
    pub(crate) fn node(&self, i: usize) -> &Node<K, V> {
        match self.slots.get(i) {
            Some(Some(node)) => node,
            _ => unreachable!("slot {i} holds an entry"),
        }
    }

    /// The counts of the entry in slot `i` (occupied).
    pub(crate) fn counts_at(&self, i: usize) -> Counts {
        self.node(i).counts(&self.meta[i], self.epoch)
    }

    /// [`node`](Self::node), mutably.
    pub(crate) fn node_mut(&mut self, i: usize) -> &mut Node<K, V> {
        match self.slots.get_mut(i) {
            Some(Some(node)) => node,
            _ => unreachable!("slot {i} holds an entry"),
        }
    }

    /// The entry in slot `i` (occupied) and its sort state, mutably.
    fn entry_mut(&mut self, i: usize) -> (&mut Node<K, V>, &mut Meta) {
        match (self.slots.get_mut(i), self.meta.get_mut(i)) {
            (Some(Some(node)), Some(meta)) => (node, meta),
            _ => unreachable!("slot {i} holds an entry"),
        }
    }

    /// Makes whatever links to chained slot `from` in bucket `b` link to `to` instead.
    fn relink(&mut self, b: usize, from: usize, to: Link) {
        let mut i = b;
        while let Some(Some(node)) = self.slots.get_mut(i) {
            if node.next.get() as usize == from {
                node.next = to;
                return;
            }
            i = node.next.get() as usize;
        }
        debug_assert!(false, "slot {from} missing from bucket {b}");
    }

    /// Puts `node` into bucket `b`'s chain at its tail (in the inline slot if the bucket is
    /// empty); returns its slot. `tail` is the chain's last slot if the caller knows it.
    fn place(&mut self, b: usize, tail: Option<usize>, node: Node<K, V>, meta: Meta) -> usize {
        self.lens[b] += 1;
        if self.slots[b].is_none() {
            self.slots[b] = Some(node);
            self.meta[b] = meta;
            return b;
        }
        let idx = self.slots.len();
        assert!(
            idx < NIL.get() as usize,
            "bounded-hashtable: more than MAX_ENTRIES slots"
        );
        self.slots.push(Some(node));
        self.meta.push(meta);
        self.strays += 1;
        let mut t = tail.unwrap_or(b);
        while let Some(Some(n)) = self.slots.get(t) {
            if n.next == NIL {
                break;
            }
            t = n.next.get() as usize;
        }
        self.node_mut(t).next = link(idx);
        idx
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
        ((u128::from(hash) * self.buckets as u128) >> 64) as usize
    }

    /// The bucket `key` belongs to.
    pub fn bucket_of<Q>(&self, key: &Q) -> usize
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.bucket_for(self.hash_of(key))
    }

    /// Slot and probe depth (1 = head) of `key` in bucket `b`.
    #[inline]
    pub(crate) fn walk<Q>(&self, b: usize, key: &Q) -> Option<(usize, u32)>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        self.walk_from(b, 1, key)
    }

    /// [`walk`](Self::walk) from slot `i`, found at `depth`.
    #[inline]
    fn walk_from<Q>(&self, mut i: usize, mut depth: u32, key: &Q) -> Option<(usize, u32)>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        // `NIL` is out of the slots' range: `get` ends the chain and checks bounds at once;
        // only an inline slot can be empty.
        while let Some(Some(node)) = self.slots.get(i) {
            if node.key.borrow() == key {
                return Some((i, depth));
            }
            i = node.next.get() as usize;
            depth += 1;
        }
        None
    }

    /// Counts one access of `node` under [`CountBasis::Period`]: it was already accessed
    /// this period, or this is its first access of the period (the old period's count joins
    /// the base). Returns whether its bucket begins to qualify (the count reaches the
    /// threshold; see `refresh_marks`). A branch-free selection of the two cases cost 8.5
    /// more instructions per lookup and measured no faster at 10^6 keys.
    #[inline(always)]
    fn count_one(
        node: &mut Node<K, V>,
        metas: &mut [Meta],
        idx: usize,
        now: u64,
        hot_mark: u64,
    ) -> bool {
        // The count of this period if the stamp is of this period, else above u32::MAX.
        let seen = node.stamp.wrapping_sub(now);
        if seen < u64::from(u32::MAX) {
            // Already seen this period: mostly the hot entries, a predictable branch.
            node.stamp += 1;
        } else if seen == u64::from(u32::MAX) {
            // A saturated period count (which qualified long ago): only the total grows.
            node.add_base(1, metas, idx);
            return false;
        } else {
            node.add_base(node.stamp as u32, metas, idx);
            node.stamp = now + 1;
        }
        node.stamp == hot_mark
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

    /// Records the probes of a lookup found at `depth` beyond the head (`stats()` adds the
    /// head's).
    #[inline(always)]
    fn note_probe(stats: &mut Stats, depth: u32) {
        if depth > 1 {
            stats.hit_probes += u64::from(depth - 1);
            stats.max_probe = stats.max_probe.max(depth);
        }
    }

    /// Counts `n` accesses of the entry in slot `idx` found (once) at `depth` in bucket
    /// `b`, then runs a pass if the period has elapsed; returns the entry's slot afterwards
    /// (a pass may move it within its chain).
    pub(crate) fn count_access(&mut self, idx: usize, b: usize, depth: u32, n: u64) -> usize {
        let epoch = self.epoch;
        let (node, meta) = self.entry_mut(idx);
        let before = node.counts(meta, epoch);
        node.bump(meta, epoch, n);
        let now = node.counts(meta, epoch);
        if n > 0 && Self::begins_to_qualify(&self.policy, before, now) {
            self.pending.push(b as u32);
        }
        self.stats.hits += 1;
        Self::note_probe(&mut self.stats, depth);
        self.count_new_access(n, idx)
    }

    /// Advances the access clock by `n` and runs a pass when the period (of
    /// [`Period::Accesses`]) has elapsed; returns where the entry of slot `idx` is after it.
    #[inline]
    pub(crate) fn count_new_access(&mut self, n: u64, idx: usize) -> usize {
        let left = self.left();
        self.set_clock(left - n.min(left));
        if self.left() == 0 {
            self.follow = idx;
            self.end_period();
            return std::mem::replace(&mut self.follow, usize::MAX);
        }
        idx
    }

    /// The access clock ran out: a pass under [`Period::Accesses`], otherwise only a reset
    /// of the clock (kept out of line, it runs once a period).
    #[cold]
    #[inline(never)]
    fn end_period(&mut self) {
        if matches!(self.policy.period, Period::Accesses(_)) {
            self.sort();
        } else {
            self.set_clock(u64::MAX);
        }
    }

    /// Looks `key` up and counts `n` accesses; the entry's slot if present.
    fn access<Q>(&mut self, key: &Q, n: u64) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let b = self.bucket_for(self.hash_of(key));
        let (idx, depth) = self.walk(b, key)?;
        Some(self.count_access(idx, b, depth, n))
    }

    /// The counted lookup of `get_mut` and `entry`: finds `key` in bucket `b` and counts one
    /// access; its slot and value. Unless this access ends the period (one predictable test
    /// of the clock), no pass can run, so the found entry is counted and returned through
    /// one reference; the clock's countdown doubles as the hit counter.
    #[inline]
    pub(crate) fn hit<Q>(&mut self, b: usize, key: &Q) -> Option<(usize, &mut V)>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        if self.until_pass <= 1 {
            return self.hit_slow(b, key);
        }
        // A head hit is counted on its own path: its bounds check is shared with the
        // counting's and it records no probe.
        let next = match self.slots.get(b) {
            Some(Some(head)) if head.key.borrow() == key => return self.count_hit(b, b, 1),
            Some(Some(head)) => head.next.get() as usize,
            _ => return None,
        };
        let (idx, depth) = self.walk_from(next, 2, key)?;
        self.count_hit(b, idx, depth)
    }

    /// Counts the hit on slot `idx` of bucket `b` found at `depth` on the fast path.
    #[inline(always)]
    fn count_hit(&mut self, b: usize, idx: usize, depth: u32) -> Option<(usize, &mut V)> {
        let Some(Some(node)) = self.slots.get_mut(idx) else {
            return None;
        };
        if Self::count_one(node, &mut self.meta, idx, self.now_stamp, self.hot_mark) {
            self.pending.push(b as u32);
        }
        Self::note_probe(&mut self.stats, depth);
        self.until_pass -= 1;
        Some((idx, &mut node.value))
    }

    /// [`hit`](Self::hit) for the access that ends the period (and runs a pass), and every
    /// hit under [`CountBasis::Total`].
    #[cold]
    #[inline(never)]
    fn hit_slow<Q>(&mut self, b: usize, key: &Q) -> Option<(usize, &mut V)>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        let (idx, depth) = self.walk(b, key)?;
        let idx = self.count_access(idx, b, depth, 1);
        Some((idx, &mut self.node_mut(idx).value))
    }

    /// A shared reference to the value of `key`. A pure read: it counts no access and never
    /// sorts (use [`get_mut`](Self::get_mut) or [`entry`](Self::entry) to count).
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.get_key_value(key).map(|(_, v)| v)
    }

    /// The stored key and value of `key`, without counting.
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (idx, _) = self.walk(self.bucket_of(key), key)?;
        let node = self.node(idx);
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
        Some(self.counts_at(idx))
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
        Some(&mut self.node_mut(idx).value)
    }

    /// Inserts `key` with `value`, counting one access. Returns the previous value if the
    /// key was present (its counts continue); a new key starts with counts of 1 and is
    /// appended to its chain's tail (the inline slot of an empty bucket).
    ///
    /// # Panics
    /// When the table already holds [`MAX_ENTRIES`] entries, or its buckets and chained
    /// entries together would exceed that many slots.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let hash = self.hash_of(&key);
        let b = self.bucket_for(hash);
        if let Some((idx, depth)) = self.walk(b, &key) {
            let old = std::mem::replace(&mut self.node_mut(idx).value, value);
            self.count_access(idx, b, depth, 1);
            return Some(old);
        }
        let idx = self.insert_new(
            hash,
            key,
            value,
            Counts {
                total: 1,
                period: 1,
            },
        );
        self.count_new_access(1, idx);
        None
    }

    /// Appends a new entry (the key must be absent) with the given counts and returns its
    /// slot. Grows a growable table first when it would exceed one entry per bucket.
    pub(crate) fn insert_new(&mut self, hash: u64, key: K, value: V, counts: Counts) -> usize {
        assert!(
            self.len < MAX_ENTRIES,
            "bounded-hashtable: more than MAX_ENTRIES entries"
        );
        let grown = self.buckets.saturating_mul(2).min(MAX_ENTRIES / 2);
        if !self.fixed && self.len >= self.buckets && grown > self.buckets {
            self.rehash(grown);
        }
        let b = self.bucket_for(hash);
        let (node, meta) = Node::new(key, value, self.epoch, counts);
        let idx = self.place(b, None, node, meta);
        self.len += 1;
        if counts.total > 0
            && Self::begins_to_qualify(&self.policy, Counts::default(), self.counts_at(idx))
        {
            self.pending.push(b as u32);
        }
        idx
    }

    /// Rebuilds the chains for `buckets` buckets. Old chains are walked in order and entries
    /// appended to the new tails, so the sorted order survives (doubling splits each chain)
    /// and each chain's chained entries end up adjacent.
    fn rehash(&mut self, buckets: usize) {
        self.full_pass = true;
        let old_buckets = self.buckets;
        let mut old = std::mem::replace(&mut self.slots, empty_slots(buckets, 0));
        let old_meta = std::mem::replace(&mut self.meta, vec![Meta::default(); buckets]);
        self.slots
            .reserve(old.len().saturating_sub(old_buckets) / 2);
        self.buckets = buckets;
        self.lens = vec![0; buckets];
        let mut tails = vec![0usize; buckets];
        for head in 0..old_buckets {
            let mut i = head;
            while let Some(mut node) = old.get_mut(i).and_then(Option::take) {
                let next = node.next;
                node.next = NIL;
                let b = self.bucket_for(self.hash_of(&node.key));
                let tail = (self.lens[b] > 0).then_some(tails[b]);
                tails[b] = self.place(b, tail, node, old_meta[i]);
                i = next.get() as usize;
            }
        }
        self.strays = 0;
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

    /// Takes the entry of slot `idx` out of bucket `b`. A removed head is replaced by its
    /// successor (which leaves the chained slots); a chained slot left empty is filled with
    /// the last one.
    pub(crate) fn remove_at(&mut self, b: usize, idx: usize) -> (K, V) {
        let Some(node) = self.slots.get_mut(idx).and_then(Option::take) else {
            unreachable!("slot {idx} holds an entry");
        };
        self.lens[b] -= 1;
        self.len -= 1;
        if idx == b {
            self.meta[b] = Meta::default();
            if node.next != NIL {
                let succ = node.next.get() as usize;
                self.slots.swap(b, succ);
                self.meta.swap(b, succ);
                self.fill_hole(succ);
            }
        } else {
            self.relink(b, idx, node.next);
            self.fill_hole(idx);
        }
        (node.key, node.value)
    }

    /// Fills the empty chained slot `hole` with the last slot's entry and relinks it.
    fn fill_hole(&mut self, hole: usize) {
        let last = self.slots.len() - 1;
        self.slots.swap_remove(hole);
        self.meta.swap_remove(hole);
        self.strays += 1;
        if hole != last {
            let moved = self.bucket_for(self.hash_of(&self.node(hole).key));
            self.relink(moved, last, link(hole));
        }
    }

    /// Keeps only the entries for which `keep` returns true (no counting).
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let mut i = 0;
        while i < self.slots.len() {
            let Some(node) = self.slots[i].as_mut() else {
                i += 1;
                continue;
            };
            if keep(&node.key, &mut node.value) {
                i += 1;
            } else {
                // Removal refills slot `i` from a slot not yet visited (a successor or the
                // last one): look at it again.
                let b = self.bucket_for(self.hash_of(&self.node(i).key));
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
        let entries = other.slots.into_iter().zip(other.meta);
        for (node, meta) in entries.filter_map(|(n, m)| Some((n?, m))) {
            let counts = node.counts(&meta, other_epoch);
            let hash = self.hash_of(&node.key);
            match self.walk(self.bucket_for(hash), &node.key) {
                Some((idx, _)) => {
                    let epoch = self.epoch;
                    let (mine, my_meta) = self.entry_mut(idx);
                    combine(&mine.key, &mut mine.value, node.value);
                    mine.add_counts(my_meta, epoch, counts);
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
            slots: self.slots.clone(),
            buckets: self.buckets,
            lens: self.lens.clone(),
            meta: self.meta.clone(),
            len: self.len,
            hasher: self.hasher.clone(),
            fixed: self.fixed,
            policy: self.policy,
            epoch: self.epoch,
            until_pass: self.until_pass,
            held: self.held,
            clock_top: self.clock_top,
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
            follow: usize::MAX,
            strays: self.strays,
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
    inner: std::iter::Flatten<std::slice::Iter<'a, Option<Node<K, V>>>>,
    left: usize,
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);
    fn next(&mut self) -> Option<Self::Item> {
        let n = self.inner.next()?;
        self.left -= 1;
        Some((&n.key, &n.value))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<K, V> ExactSizeIterator for Iter<'_, K, V> {}

/// Iterator over `(&K, &mut V)`, from [`BoundedHashTable::iter_mut`].
pub struct IterMut<'a, K, V> {
    inner: std::iter::Flatten<std::slice::IterMut<'a, Option<Node<K, V>>>>,
    left: usize,
}

impl<'a, K, V> Iterator for IterMut<'a, K, V> {
    type Item = (&'a K, &'a mut V);
    fn next(&mut self) -> Option<Self::Item> {
        let n = self.inner.next()?;
        self.left -= 1;
        Some((&n.key, &mut n.value))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<K, V> ExactSizeIterator for IterMut<'_, K, V> {}

/// Owning iterator over `(K, V)`.
pub struct IntoIter<K, V> {
    inner: std::iter::Flatten<std::vec::IntoIter<Option<Node<K, V>>>>,
    left: usize,
}

impl<K, V> Iterator for IntoIter<K, V> {
    type Item = (K, V);
    fn next(&mut self) -> Option<Self::Item> {
        let n = self.inner.next()?;
        self.left -= 1;
        Some((n.key, n.value))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<K, V> ExactSizeIterator for IntoIter<K, V> {}

impl<K, V, S> IntoIterator for BoundedHashTable<K, V, S> {
    type Item = (K, V);
    type IntoIter = IntoIter<K, V>;
    fn into_iter(self) -> IntoIter<K, V> {
        IntoIter {
            inner: self.slots.into_iter().flatten(),
            left: self.len,
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
    next: usize,
}

impl<'a, K, V, S> Iterator for Chain<'a, K, V, S> {
    type Item = (&'a K, &'a V, Counts);
    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        let node = self.table.slots.get(i)?.as_ref()?;
        self.next = node.next.get() as usize;
        Some((&node.key, &node.value, self.table.counts_at(i)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With `u64` keys and values a node fills half a cache line (and is aligned to it).
    #[test]
    fn a_u64_node_is_half_a_cache_line() {
        assert_eq!(size_of::<Option<Node<u64, u64>>>(), 32);
        assert_eq!(align_of::<Option<Node<u64, u64>>>(), 32);
    }
}

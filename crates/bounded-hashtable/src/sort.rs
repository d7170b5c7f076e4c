//! The sort pass: the spec's two-group procedure applied to every deep bucket, and the
//! reversal count that drives phase-change detection.

use std::hash::{BuildHasher, Hash};

use crate::policy::{CountBasis, Period, SortOrder};
use crate::stats::SortReport;
use crate::table::{link, BoundedHashTable, NIL};

/// Buffers reused by every pass so sorting allocates only while they grow.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The bucket's slots in chain order (old positions).
    chain: Vec<u32>,
    /// Sort key of each old position.
    keys: Vec<u64>,
    /// Old positions in their new order.
    order: Vec<u32>,
    /// New position of each old position.
    new_pos: Vec<u32>,
    /// Old positions of the entries that were hot at the bucket's previous sort.
    was_hot: Vec<u32>,
    /// While permuting: the old position whose entry is in each chain slot.
    at: Vec<u32>,
    /// While permuting: the chain slot holding each old position's entry.
    cur: Vec<u32>,
    /// The chains of a batch of buckets, gathered together (see `gather_chains`).
    chains: Vec<Vec<u32>>,
}

/// Buckets whose chains a pass walks together. A chain walk is a series of dependent cache
/// misses (at 10^6 keys nearly all of a pass's time); walking this many chains in lockstep
/// lets their misses overlap.
const BATCH: usize = 16;

/// Whether two counts are at least `ratio` apart (the larger one must be non-zero).
fn apart(x: u64, y: u64, ratio: u64) -> bool {
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    hi > 0 && u128::from(hi) >= u128::from(lo) * u128::from(ratio)
}

impl<K: Hash + Eq, V, S: BuildHasher> BoundedHashTable<K, V, S> {
    /// Runs one sort pass now, whatever the period, and starts a new period.
    ///
    /// Every bucket deeper than the policy's depth threshold whose counts reach the bucket
    /// threshold is reordered: the entries whose count reaches the frequency threshold go
    /// to the front in the policy's order, the others keep their relative order behind
    /// them. Returns what the pass did; if it signals a phase change, the callback (if any)
    /// is called with the same report.
    pub fn sort(&mut self) -> SortReport {
        self.passes += 1;
        let mut report = SortReport {
            pass: self.passes,
            ..SortReport::default()
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut buckets = std::mem::take(&mut self.pending);
        if std::mem::take(&mut self.full_pass) {
            buckets.clear();
            buckets.extend(0..self.buckets as u32);
        } else {
            buckets.sort_unstable();
            buckets.dedup();
        }
        let depth = self.policy.depth_threshold;
        buckets.retain(|&b| self.lens[b as usize] as usize > depth);
        for batch in buckets.chunks(BATCH) {
            self.gather_chains(batch, &mut scratch);
            for j in 0..batch.len() {
                // Borrow the gathered chain as the bucket's, keeping both allocations.
                std::mem::swap(&mut scratch.chain, &mut scratch.chains[j]);
                self.sort_bucket(&mut scratch, &mut report);
                std::mem::swap(&mut scratch.chain, &mut scratch.chains[j]);
            }
        }
        buckets.clear();
        self.pending = buckets;
        self.relayout_if_scattered(&mut scratch);
        self.scratch = scratch;
        report.phase_change = report.reversals >= self.policy.phase_reversals();
        self.stats.add_report(&report);
        self.last_report = Some(report);
        self.start_period();
        if report.phase_change {
            if let Some(callback) = self.on_phase.as_mut() {
                callback(&report);
            }
        }
        report
    }

    /// Starts a new period: per-period counts of every entry read as 0 from now on.
    fn start_period(&mut self) {
        self.since_sort = 0;
        if let Period::Accesses(k) = self.policy.period {
            self.set_clock(k.get());
        }
        if self.epoch == u32::MAX {
            // Wrapping would make stale counts look current: clear them all once.
            for (node, meta) in self.slots.iter_mut().zip(&mut self.meta) {
                if let Some(node) = node {
                    node.fold_period(meta);
                }
            }
            self.epoch = 0;
        }
        self.epoch += 1;
        self.refresh_marks();
    }

    fn sort_key(&self, idx: u32) -> u64 {
        let node = self.node(idx as usize);
        match self.policy.basis {
            CountBasis::Period => u64::from(node.period_count(self.epoch)),
            CountBasis::Total => node.total(&self.meta[idx as usize]),
        }
    }

    /// Fills `s.chains[j]` with the slots of bucket `batch[j]`'s chain in order, walking the
    /// chains side by side (one step of each per round) so their cache misses overlap. The
    /// rounds follow the known chain lengths, not the loaded links: a branch on a link
    /// that missed the cache would, when mispredicted at a chain's end, discard the other
    /// chains' loads in flight.
    fn gather_chains(&self, batch: &[u32], s: &mut Scratch) {
        if s.chains.len() < batch.len() {
            s.chains.resize_with(batch.len(), Vec::new);
        }
        let mut at = [(0usize, 0u32); BATCH];
        let mut rounds = 0;
        for ((lane, chain), &b) in at.iter_mut().zip(&mut s.chains).zip(batch) {
            chain.clear();
            *lane = (b as usize, self.lens[b as usize]);
            rounds = rounds.max(lane.1);
        }
        for _ in 0..rounds {
            for ((cursor, left), chain) in at.iter_mut().zip(&mut s.chains) {
                if *left > 0 {
                    *left -= 1;
                    chain.push(*cursor as u32);
                    *cursor = match self.slots.get(*cursor) {
                        Some(Some(node)) => node.next.get() as usize,
                        _ => unreachable!("bucket chains hold `lens` entries"),
                    };
                }
            }
        }
    }

    /// Lays the chained entries out again bucket by bucket, each chain's in chain order,
    /// once at least an eighth of them were appended or moved since the last layout (so
    /// the work stays a constant per insertion). An entry is appended where the arena
    /// ends, so the entries of one chain end up scattered over it; a lookup that walks
    /// past the head then takes a cache and TLB miss per probe, where adjacent entries
    /// share lines and pages. The heads stay; the chains are walked in lockstep batches,
    /// then the entries are copied in their new order (independent reads) and relinked.
    /// Tracks the entry of `self.follow`.
    fn relayout_if_scattered(&mut self, s: &mut Scratch) {
        let buckets = self.buckets;
        let chained = self.slots.len() - buckets;
        if self.strays == 0 || self.strays < chained / 8 {
            return;
        }
        self.strays = 0;
        s.order.clear();
        // Only buckets with chained entries contribute, in bucket order: a table of many
        // buckets and few chains (strata's 65536 per level) skips its heads unread.
        let mut ids = [0u32; BATCH];
        let mut n = 0;
        for b in 0..buckets {
            if self.lens[b] > 1 {
                ids[n] = b as u32;
                n += 1;
            }
            if n == BATCH || (n > 0 && b + 1 == buckets) {
                self.gather_chains(&ids[..n], s);
                for chain in &s.chains[..n] {
                    s.order.extend(chain.iter().skip(1));
                }
                n = 0;
            }
        }
        let mut old = self.slots.split_off(buckets);
        let old_meta = self.meta.split_off(buckets);
        let mut follow = self.follow;
        for &i in &s.order {
            let k = i as usize - buckets;
            if i as usize == self.follow {
                follow = self.slots.len();
            }
            self.slots.push(old[k].take());
            self.meta.push(old_meta[k]);
        }
        self.follow = follow;
        // Bucket b's chained entries now fill slots `at..at + lens[b] - 1`.
        let mut at = buckets;
        for b in 0..buckets {
            let Some(behind) = (self.lens[b] as usize).checked_sub(1) else {
                continue;
            };
            let mut prev = b;
            for i in at..at + behind {
                self.node_mut(prev).next = link(i);
                prev = i;
            }
            self.node_mut(prev).next = NIL;
            at += behind;
        }
    }

    /// The two-group procedure on the bucket whose chain `s.chain` holds.
    fn sort_bucket(&mut self, s: &mut Scratch, report: &mut SortReport) {
        s.keys.clear();
        s.keys.extend(s.chain.iter().map(|&i| self.sort_key(i)));
        let bucket_sum = s.keys.iter().fold(0u64, |a, &k| a.saturating_add(k));
        if bucket_sum < self.policy.bucket_frequency_threshold {
            return;
        }
        let threshold = self.policy.frequency_threshold;
        let hot = |p: u32| s.keys[p as usize] >= threshold;
        // Only a bucket where a qualifying entry was accessed this period is sorted; the
        // others are left alone, order and memory included. (Exactly the buckets queued
        // by accesses, which is why a pass need not visit the rest.)
        let active = |p: u32| {
            hot(p)
                && self
                    .node(s.chain[p as usize] as usize)
                    .period_count(self.epoch)
                    > 0
        };
        if !(0..s.chain.len() as u32).any(active) {
            return;
        }

        // First group: qualifying entries in the policy's order (ties: previous order);
        // second group: the rest, in their previous order.
        s.order.clear();
        s.order
            .extend((0..s.chain.len() as u32).filter(|&p| hot(p)));
        let hot_count = s.order.len();
        let keys = &s.keys;
        match self.policy.order {
            SortOrder::Descending => s
                .order
                .sort_unstable_by(|&x, &y| keys[y as usize].cmp(&keys[x as usize]).then(x.cmp(&y))),
            SortOrder::Ascending => s
                .order
                .sort_unstable_by(|&x, &y| keys[x as usize].cmp(&keys[y as usize]).then(x.cmp(&y))),
            SortOrder::Preserve => {}
        }
        s.order
            .extend((0..s.chain.len() as u32).filter(|&p| !hot(p)));

        report.buckets_sorted += 1;
        s.new_pos.clear();
        s.new_pos.resize(s.chain.len(), 0);
        let mut moved = 0;
        for (new, &old) in s.order.iter().enumerate() {
            s.new_pos[old as usize] = new as u32;
            moved += u64::from(new as u32 != old);
        }
        let reversals = if moved > 0 {
            self.count_reversals(s, hot_count)
        } else {
            0
        };
        for (p, &idx) in s.chain.iter().enumerate() {
            let meta = &mut self.meta[idx as usize];
            *meta = meta.sorted(s.keys[p] >= threshold, s.keys[p]);
        }
        if moved > 0 {
            report.entries_moved += moved;
            report.reversals += reversals;
            self.permute_chain(s);
        }
    }

    /// Reversals of this bucket's sort: pairs where entry `a` preceded `b` before and follows
    /// it now, `a` was in the first group of the bucket's previous sort (its place was
    /// earned, not an accident of insertion) with a count of at least the reversal
    /// threshold, `b` counts at least that now, and the two counts are at least the ratio
    /// apart at the previous sort or now. Only first-group entries move forward, so `b`
    /// ranges over them.
    fn count_reversals(&self, s: &mut Scratch, hot_count: usize) -> u64 {
        let rt = self.policy.reversal_threshold;
        s.was_hot.clear();
        s.was_hot.extend((0..s.chain.len() as u32).filter(|&p| {
            let m = self.meta[s.chain[p as usize] as usize];
            m.hot && m.prev_key >= rt
        }));
        let ratio = self.policy.ratio();
        let prev = |p: u32| self.meta[s.chain[p as usize] as usize].prev_key;
        let mut reversals = 0;
        let overtakers = s.order[..hot_count]
            .iter()
            .filter(|&&b| s.keys[b as usize] >= rt);
        for &b in overtakers {
            for &a in s.was_hot.iter().take_while(|&&a| a < b) {
                let reversed = s.new_pos[a as usize] > s.new_pos[b as usize];
                if reversed
                    && (apart(prev(a), prev(b), ratio)
                        || apart(s.keys[a as usize], s.keys[b as usize], ratio))
                {
                    reversals += 1;
                }
            }
        }
        reversals
    }

    /// Moves the chain's entries (with their sort state) so that its slots, in chain order,
    /// hold `s.order`: the links stay, so the first group's first entry lands in the
    /// bucket's inline slot. Tracks the entry of `self.follow`.
    fn permute_chain(&mut self, s: &mut Scratch) {
        let n = s.chain.len() as u32;
        s.at.clear();
        s.at.extend(0..n);
        s.cur.clear();
        s.cur.extend(0..n);
        for (q, &p) in s.order.iter().enumerate() {
            let from = s.cur[p as usize] as usize;
            if from != q {
                let (x, y) = (s.chain[q] as usize, s.chain[from] as usize);
                self.slots.swap(x, y);
                self.meta.swap(x, y);
                let displaced = s.at[q];
                s.at[from] = displaced;
                s.cur[displaced as usize] = from as u32;
                s.at[q] = p;
                s.cur[p as usize] = q as u32;
            }
        }
        // The swaps moved the links with the entries: restore the chain's.
        for (q, &slot) in s.chain.iter().enumerate() {
            let next = s.chain.get(q + 1).map_or(NIL, |&i| link(i as usize));
            self.node_mut(slot as usize).next = next;
        }
        if let Some(p) = s.chain.iter().position(|&i| i as usize == self.follow) {
            self.follow = s.chain[s.new_pos[p] as usize] as usize;
        }
    }
}

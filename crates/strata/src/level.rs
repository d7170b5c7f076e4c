//! One level of the hierarchy: cuts a stream of symbols into cycles (sequences of unique
//! symbols), merges consecutive equal cycles into repeated units and keeps per-cycle
//! statistics in a [`BoundedHashTable`].
//!
//! Symbols are interned to dense indices first, so the per-symbol work is a few array
//! accesses: membership in the open cycle is an epoch stamp per symbol (the epoch advances
//! when a cycle closes), and the open cycle is kept as [`Cycle`] says (a trie for paths).
//! The table is touched once per new cycle and once per repeated unit, with a key whose
//! hash is computed once.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use crate::cycle::Cycle;
use bounded_hashtable::{BoundedHashTable, DefaultHashBuilder, Period, SortPolicy, SortReport};

/// A repeated unit: `trips` consecutive occurrences of the sequence `id` of one level (a
/// repeated path at level 0, a repeated stratum at level 1, ...). It is the symbol of the
/// next level up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rep {
    /// The sequence's id in its level's table.
    pub id: u32,
    /// Consecutive occurrences.
    pub trips: u64,
}

/// Statistics of one sequence (path, stratum, layer) in its level's table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqStats {
    /// Unique id, dense per level in order of first occurrence.
    pub id: u32,
    /// Global trip count: occurrences of the sequence over the whole run.
    pub trips: u64,
    /// Repeated units formed by the sequence (each counts its consecutive trips once).
    pub occurrences: u64,
    /// Instructions of one trip.
    pub insns: u64,
    /// Heat of one trip: the sum of its members' weights.
    pub heat: u64,
    /// Instruction number at which its first trip began.
    pub first_insn: u64,
    /// Instruction number at which its last trip so far ended.
    pub last_insn: u64,
}

impl SeqStats {
    /// Heat times frequency: the spec's measure of how hot the sequence is.
    pub fn hotness(&self) -> u128 {
        u128::from(self.heat) * u128::from(self.trips)
    }
}

/// A repeated unit as a level emits it, with what the next level needs to know about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unit {
    pub rep: Rep,
    /// Instructions of all trips.
    pub insns: u64,
    /// Weight of all trips.
    pub weight: u64,
    /// Level-0 paths in all trips.
    pub paths: u64,
    /// Instruction number at which the first trip began.
    pub start: u64,
}

/// A table key: an interned sequence (dense symbol indices) with its hash computed once,
/// so a table access per repeated unit hashes 8 bytes, not the whole sequence.
#[derive(Clone, Debug)]
pub(crate) struct SeqKey {
    hash: u64,
    seq: Arc<[u32]>,
}

impl SeqKey {
    fn new(seq: Arc<[u32]>) -> Self {
        SeqKey {
            hash: DefaultHashBuilder::default().hash_one(&seq),
            seq,
        }
    }
}

impl Hash for SeqKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for SeqKey {
    fn eq(&self, other: &Self) -> bool {
        // The level's keys and the table's share their sequences: usually one pointer test.
        self.hash == other.hash && (Arc::ptr_eq(&self.seq, &other.seq) || self.seq == other.seq)
    }
}

impl Eq for SeqKey {}

/// The open repeated unit and its sequence's token ([`Cycle::token`]).
#[derive(Clone, Copy, Debug)]
struct Prev {
    unit: Unit,
    token: u32,
}

/// One level of cycle detection, its open cycle kept as `C` says.
pub(crate) struct Level<T, C> {
    table: BoundedHashTable<SeqKey, SeqStats>,
    /// Symbol interning: `syms[i]` is the symbol with dense index `i`.
    ids: HashMap<T, u32, DefaultHashBuilder>,
    syms: Vec<T>,
    /// `stamp[i] == epoch` iff symbol `i` is in the open cycle.
    stamp: Vec<u32>,
    epoch: u32,
    /// The open cycle.
    open: C,
    /// Per sequence id: its symbols, and its table key.
    seqs: Vec<Box<[T]>>,
    keys: Vec<SeqKey>,
    /// Weight and level-0 paths of the open cycle, and where it began (its instructions
    /// are `pos - cur_start`).
    cur_weight: u64,
    cur_paths: u64,
    cur_start: u64,
    prev: Option<Prev>,
    pos: u64,
    max_len: usize,
    closed: u64,
    pub(crate) reorders: Vec<(u64, SortReport)>,
}

impl<T: Hash + Eq + Clone, C: Cycle> Level<T, C> {
    pub(crate) fn new(max_len: Option<usize>, buckets: usize, sort_every: u64) -> Self {
        let policy = SortPolicy {
            period: Period::Ticks(
                std::num::NonZeroU64::new(sort_every.max(1)).unwrap_or(std::num::NonZeroU64::MIN),
            ),
            ..SortPolicy::default()
        };
        Level {
            table: BoundedHashTable::with_fixed_buckets(buckets.max(1)).with_policy(policy),
            ids: HashMap::default(),
            syms: Vec::new(),
            stamp: Vec::new(),
            epoch: 1,
            open: C::default(),
            seqs: Vec::new(),
            keys: Vec::new(),
            cur_weight: 0,
            cur_paths: 0,
            cur_start: 0,
            prev: None,
            pos: 0,
            max_len: max_len.unwrap_or(usize::MAX).max(1),
            closed: 0,
            reorders: Vec::new(),
        }
    }

    /// The dense index of `sym`, interning it if new.
    pub(crate) fn intern(&mut self, sym: T) -> u32 {
        if let Some(&i) = self.ids.get(&sym) {
            return i;
        }
        let i = self.syms.len() as u32;
        self.syms.push(sym.clone());
        self.ids.insert(sym, i);
        self.stamp.push(0);
        self.open.add_symbol();
        i
    }

    /// Appends one symbol (interned first) covering `insns` instructions, `weight` and
    /// `paths` level-0 paths. See [`push_index`](Self::push_index).
    #[inline]
    pub(crate) fn push(&mut self, sym: T, insns: u64, weight: u64, paths: u64) -> Option<Unit> {
        let i = self.intern(sym);
        self.push_index(i, insns, weight, paths)
    }

    /// Appends the symbol with dense index `i` (from [`intern`](Self::intern); an unknown
    /// index is ignored). A symbol that repeats a member of the current sequence, or a full
    /// sequence, closes it first; closing may emit the previous repeated unit.
    #[inline]
    pub(crate) fn push_index(
        &mut self,
        i: u32,
        insns: u64,
        weight: u64,
        paths: u64,
    ) -> Option<Unit> {
        let &stamp = self.stamp.get(i as usize)?;
        let out = if stamp == self.epoch || self.open.len() >= self.max_len {
            self.close()
        } else {
            None
        };
        self.open.push(i);
        self.stamp[i as usize] = self.epoch;
        self.cur_weight += weight;
        self.cur_paths += paths;
        self.pos += insns;
        out
    }

    /// Closes the current sequence and compares it with the previous one. The same
    /// sequence adds a trip to the previous repeated unit without touching the table; a
    /// different one is interned and the previous unit is emitted, its trips added to its
    /// global statistics then (the spec's "incremented by the current trip count").
    #[inline]
    fn close(&mut self) -> Option<Unit> {
        if self.open.len() == 0 {
            return None;
        }
        self.closed += 1;
        let (end, start) = (self.pos, self.cur_start);
        let same = self.prev.is_some_and(|p| {
            let seq = self
                .keys
                .get(p.unit.rep.id as usize)
                .map_or(&[][..], |k| &k.seq);
            self.open.same(p.token, seq)
        });
        let out = match &mut self.prev {
            Some(p) if same => {
                let u = &mut p.unit;
                u.rep.trips += 1;
                u.insns += end - start;
                u.weight += self.cur_weight;
                u.paths += self.cur_paths;
                None
            }
            _ => self.replace_prev(),
        };
        self.open.clear();
        self.epoch = match self.epoch.checked_add(1) {
            Some(e) => e,
            None => {
                self.stamp.fill(0);
                1
            }
        };
        self.cur_weight = 0;
        self.cur_paths = 0;
        self.cur_start = end;
        out
    }

    /// The closed cycle differs from the previous one: it becomes the previous repeated
    /// unit (interned if new) and the previous one is emitted.
    #[cold]
    fn replace_prev(&mut self) -> Option<Unit> {
        let start = self.cur_start;
        let id = match self.open.id() {
            Some(id) => id,
            None => self.intern_seq(start),
        };
        let unit = Unit {
            rep: Rep { id, trips: 1 },
            insns: self.pos - start,
            weight: self.cur_weight,
            paths: self.cur_paths,
            start,
        };
        let token = self.open.token();
        let done = self.prev.replace(Prev { unit, token });
        done.map(|p| self.account(p.unit))
    }

    /// Gives the open cycle's sequence (seen for the first time) its id and its table
    /// entry (with no trips yet).
    fn intern_seq(&mut self, start: u64) -> u32 {
        let idx = self.open.symbols();
        let id = self.seqs.len() as u32;
        self.seqs
            .push(idx.iter().map(|&i| self.syms[i as usize].clone()).collect());
        let key = SeqKey::new(idx.into());
        self.open.set_id(id, &key.seq);
        self.keys.push(key.clone());
        let stats = SeqStats {
            id,
            trips: 0,
            occurrences: 0,
            insns: self.pos - start,
            heat: self.cur_weight,
            first_insn: start,
            last_insn: start,
        };
        self.table.insert(key, stats);
        id
    }

    /// Adds an emitted unit to its sequence's statistics (counting its trips as table
    /// accesses) and runs the table's sort clock.
    fn account(&mut self, u: Unit) -> Unit {
        if let Some(key) = self.keys.get(u.rep.id as usize) {
            if let Some(stats) = self.table.record(key, u.rep.trips) {
                stats.trips += u.rep.trips;
                stats.occurrences += 1;
                stats.last_insn = u.start + u.insns;
            }
        }
        if let Some(report) = self.table.tick(u.insns) {
            if report.phase_change {
                self.reorders.push((u.start + u.insns, report));
            }
        }
        u
    }

    /// Ends the stream: closes the current sequence and emits what is pending, in order.
    pub(crate) fn finish(&mut self) -> impl Iterator<Item = Unit> {
        let first = self.close();
        let second = self.prev.take().map(|p| self.account(p.unit));
        first.into_iter().chain(second)
    }

    pub(crate) fn seq(&self, id: u32) -> Option<&[T]> {
        self.seqs.get(id as usize).map(|s| &**s)
    }

    /// Distinct sequences so far.
    pub(crate) fn distinct(&self) -> usize {
        self.seqs.len()
    }

    /// Statistics of sequence `id` so far, the open repeated unit's trips included.
    pub(crate) fn stats(&self, id: u32) -> Option<SeqStats> {
        let mut s = *self.table.get(self.keys.get(id as usize)?)?;
        if let Some(p) = self.prev.filter(|p| p.unit.rep.id == id) {
            s.trips += p.unit.rep.trips;
            s.occurrences += 1;
            s.last_insn = p.unit.start + p.unit.insns;
        }
        Some(s)
    }

    /// The open repeated unit (the spec's Previous Path / Previous Stratum) and its trips.
    pub(crate) fn pending(&self) -> Option<Rep> {
        self.prev.map(|p| p.unit.rep)
    }

    pub(crate) fn table(&self) -> &BoundedHashTable<SeqKey, SeqStats> {
        &self.table
    }

    pub(crate) fn closed(&self) -> u64 {
        self.closed
    }

    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::{Buffer, Trie};

    /// The units a level emits for a stream that stamps the letters with small epochs, then
    /// jumps the epoch (as after many closed cycles) to `jump`, closes 20 cycles over other
    /// symbols and goes through the letters again.
    fn units<C: Cycle>(jump: u32) -> Vec<(Rep, u64, u64, u64)> {
        let mut level: Level<char, C> = Level::new(None, 64, 1 << 20);
        let mut out = Vec::new();
        let mut feed = |level: &mut Level<char, C>, text: &str| {
            for c in text.chars() {
                let u = level.push(c, 1, 2, 1);
                out.extend(u.map(|u| (u.rep, u.insns, u.weight, u.start)));
            }
        };
        // "aabbcc...": the letters' stamps are the epochs 2, 3, ..., 27.
        let doubled: String = ('a'..='z').flat_map(|c| [c, c]).collect();
        feed(&mut level, &doubled);
        level.epoch = jump;
        feed(&mut level, &"01".repeat(20));
        feed(&mut level, &"abcdefghijklmnopqrstuvwxyz01".repeat(3));
        out.extend(level.finish().map(|u| (u.rep, u.insns, u.weight, u.start)));
        out
    }

    #[test]
    fn epoch_wrap_around_changes_no_unit() {
        // Jumping to just before u32::MAX makes the epoch wrap and count 1, 2, ... again
        // while the letters still hold their old stamps; a far jump that does not wrap is
        // the reference.
        for (far, wrapped) in [
            (units::<Trie>(1 << 20), units::<Trie>(u32::MAX - 3)),
            (units::<Buffer>(1 << 20), units::<Buffer>(u32::MAX - 3)),
        ] {
            assert!(far.len() > 10);
            assert_eq!(far, wrapped);
        }
    }
}

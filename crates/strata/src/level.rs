//! One level of the hierarchy: cuts a stream of symbols into cycles (sequences of unique
//! symbols), merges consecutive equal cycles into repeated units and keeps per-cycle
//! statistics in a [`BoundedHashTable`].

use std::collections::HashSet;

use bounded_hashtable::DefaultHashBuilder;
use std::hash::Hash;

use bounded_hashtable::{BoundedHashTable, Period, SortPolicy, SortReport};

/// A repeated unit: `trips` consecutive occurrences of the sequence `id` of one level (a
/// repeated path at level 0, a repeated stratum at level 1, ...). It is the symbol of the
/// next level up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

/// Below this length the current sequence is searched linearly; above it, a set is kept.
const SMALL: usize = 16;

/// One level of cycle detection.
pub(crate) struct Level<T> {
    table: BoundedHashTable<Box<[T]>, SeqStats>,
    seqs: Vec<Box<[T]>>,
    cur: Vec<T>,
    members: HashSet<T, DefaultHashBuilder>,
    cur_insns: u64,
    cur_weight: u64,
    cur_paths: u64,
    cur_start: u64,
    prev: Option<Unit>,
    pos: u64,
    max_len: usize,
    closed: u64,
    pub(crate) reorders: Vec<(u64, SortReport)>,
}

impl<T: Hash + Eq + Clone> Level<T> {
    pub(crate) fn new(max_len: Option<usize>, buckets: usize, sort_every: u64) -> Self {
        let policy = SortPolicy {
            period: Period::Ticks(
                std::num::NonZeroU64::new(sort_every.max(1)).unwrap_or(std::num::NonZeroU64::MIN),
            ),
            ..SortPolicy::default()
        };
        Level {
            table: BoundedHashTable::with_fixed_buckets(buckets.max(1)).with_policy(policy),
            seqs: Vec::new(),
            cur: Vec::new(),
            members: HashSet::default(),
            cur_insns: 0,
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

    fn contains(&self, sym: &T) -> bool {
        if self.cur.len() <= SMALL {
            self.cur.contains(sym)
        } else {
            self.members.contains(sym)
        }
    }

    /// Appends one symbol covering `insns` instructions, `weight` and `paths` level-0 paths.
    /// A symbol that repeats a member of the current sequence, or a full sequence, closes it
    /// first; closing may emit the previous repeated unit.
    pub(crate) fn push(&mut self, sym: T, insns: u64, weight: u64, paths: u64) -> Option<Unit> {
        let out = if self.cur.len() >= self.max_len || self.contains(&sym) {
            self.close()
        } else {
            None
        };
        if self.cur.len() == SMALL {
            self.members.extend(self.cur.iter().cloned());
        }
        if self.cur.len() >= SMALL {
            self.members.insert(sym.clone());
        }
        self.cur.push(sym);
        self.cur_insns += insns;
        self.cur_weight += weight;
        self.cur_paths += paths;
        self.pos += insns;
        out
    }

    /// Closes the current sequence and compares it with the previous one. The same
    /// sequence adds a trip to the previous repeated unit without touching the table; a
    /// different one is interned and the previous unit is emitted, its trips added to its
    /// global statistics then (the spec's "incremented by the current trip count").
    fn close(&mut self) -> Option<Unit> {
        if self.cur.is_empty() {
            return None;
        }
        self.closed += 1;
        let (end, start) = (self.pos, self.cur_start);
        let this = Unit {
            rep: Rep { id: 0, trips: 1 },
            insns: self.cur_insns,
            weight: self.cur_weight,
            paths: self.cur_paths,
            start,
        };
        let continues = self.prev.is_some_and(|p| {
            self.seqs
                .get(p.rep.id as usize)
                .is_some_and(|s| **s == *self.cur)
        });
        let out = match &mut self.prev {
            Some(p) if continues => {
                p.rep.trips += 1;
                p.insns += this.insns;
                p.weight += this.weight;
                p.paths += this.paths;
                None
            }
            _ => {
                let id = self.intern(start);
                let done = self.prev.replace(Unit {
                    rep: Rep { id, trips: 1 },
                    ..this
                });
                done.map(|u| self.account(u))
            }
        };
        self.cur.clear();
        self.members.clear();
        self.cur_insns = 0;
        self.cur_weight = 0;
        self.cur_paths = 0;
        self.cur_start = end;
        out
    }

    /// The id of the current sequence, inserting it (with no trips yet) if new.
    fn intern(&mut self, start: u64) -> u32 {
        if let Some(stats) = self.table.get(&self.cur[..]) {
            return stats.id;
        }
        let id = self.seqs.len() as u32;
        let seq: Box<[T]> = self.cur.clone().into_boxed_slice();
        self.seqs.push(seq.clone());
        let stats = SeqStats {
            id,
            trips: 0,
            occurrences: 0,
            insns: self.cur_insns,
            heat: self.cur_weight,
            first_insn: start,
            last_insn: start,
        };
        self.table.insert(seq, stats);
        id
    }

    /// Adds an emitted unit to its sequence's statistics (counting its trips as table
    /// accesses) and runs the table's sort clock.
    fn account(&mut self, u: Unit) -> Unit {
        if let Some(key) = self.seqs.get(u.rep.id as usize) {
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
        let second = self.prev.take().map(|u| self.account(u));
        first.into_iter().chain(second)
    }

    pub(crate) fn seq(&self, id: u32) -> Option<&[T]> {
        self.seqs.get(id as usize).map(|s| &**s)
    }

    pub(crate) fn seqs(&self) -> &[Box<[T]>] {
        &self.seqs
    }

    /// Statistics of sequence `id` so far, the open repeated unit's trips included.
    pub(crate) fn stats(&self, id: u32) -> Option<SeqStats> {
        let mut s = *self.table.get(self.seqs.get(id as usize)?)?;
        if let Some(p) = self.prev.filter(|p| p.rep.id == id) {
            s.trips += p.rep.trips;
            s.occurrences += 1;
            s.last_insn = p.start + p.insns;
        }
        Some(s)
    }

    /// The open repeated unit (the spec's Previous Path / Previous Stratum) and its trips.
    pub(crate) fn pending(&self) -> Option<Rep> {
        self.prev.map(|p| p.rep)
    }

    pub(crate) fn table(&self) -> &BoundedHashTable<Box<[T]>, SeqStats> {
        &self.table
    }

    pub(crate) fn closed(&self) -> u64 {
        self.closed
    }

    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }
}

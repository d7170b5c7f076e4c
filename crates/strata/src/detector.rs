//! The online detector: level 0 turns symbols (blocks) into paths and repeated paths, each
//! further level turns the repeated units below it into strata, stratum layers, ...

use std::hash::Hash;

use crate::cycle::{Buffer, Trie};
use crate::level::{Level, Rep, SeqStats, Unit};
use crate::sequitur::Sequitur;

/// How the detector is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Levels above the paths: 1 = strata, 2 = strata and stratum layers (default), ...
    pub upper_levels: usize,
    /// Longest path (level 0); a full path closes as if the next block repeated. `None`:
    /// unbounded (the spec's definition).
    pub path_max_len: Option<usize>,
    /// Longest stratum / layer (levels >= 1): the spec's "only fully track a stratum whose
    /// length has 4 or less repeated paths" is `Some(4)`. `None`: unbounded.
    pub stratum_max_len: Option<usize>,
    /// Buckets of each level's bounded hash table (fixed, so hot chains are sorted; the
    /// default 65536 keeps chains short, fewer make deeper chains and more reorder signals
    /// at the cost of longer walks).
    pub buckets: usize,
    /// Sort period of each level's table, in instructions.
    pub sort_every: u64,
    /// Keep one [`StratumRecord`] per repeated stratum (level 1 output), for the ISAM file.
    pub keep_records: bool,
    /// Feed the repeated-path stream to an online SEQUITUR grammar.
    pub grammar: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            upper_levels: 2,
            path_max_len: None,
            stratum_max_len: None,
            buckets: 1 << 16,
            sort_every: 1 << 20,
            keep_records: true,
            grammar: false,
        }
    }
}

/// One repeated stratum as it ended: the record the ISAM file stores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StratumRecord {
    /// The stratum's id (level 1).
    pub stratum: u32,
    /// Consecutive trips.
    pub trips: u64,
    /// Instruction number at which its first trip began.
    pub start_insn: u64,
    /// Instruction number just past its last trip (the ending instruction number).
    pub end_insn: u64,
    /// Paths (level-0 cycles) completed by its end (the ending path number).
    pub end_path: u64,
    /// Strata (level-1 cycles) completed by its end (the ending stratum number).
    pub end_stratum: u64,
}

/// The whole-program path detector, generic over the symbol type `S` (a block address, a
/// block id, a letter in a test).
pub struct Detector<S> {
    base: Level<S, Trie>,
    upper: Vec<Level<Rep, Buffer>>,
    /// Per upper level, per id of the level below: the last two trip counts that id was
    /// seen with and those repeated units' symbol indices, most recent first, so a loop
    /// whose trip count is steady or alternates between two values is interned without
    /// hashing.
    last_rep: Vec<Vec<[(u64, u32); 2]>>,
    top: Vec<Rep>,
    records: Vec<StratumRecord>,
    keep_records: bool,
    rec_paths: u64,
    rec_strata: u64,
    emitted: Vec<u64>,
    grammar: Option<Sequitur<Rep>>,
    finished: bool,
}

/// The symbol index of `rep` at `level`, interned there if new, found first in `last`
/// (see [`Detector`]'s `last_rep`), which it updates.
#[inline]
fn symbol_of(level: &mut Level<Rep, Buffer>, last: &mut Vec<[(u64, u32); 2]>, rep: Rep) -> u32 {
    let slot = rep.id as usize;
    if last.len() <= slot {
        last.resize(slot + 1, [(0, u32::MAX); 2]);
    }
    let seen = &mut last[slot];
    let hit = |(trips, sym): (u64, u32)| trips == rep.trips && sym != u32::MAX;
    if hit(seen[0]) {
        return seen[0].1;
    }
    if !hit(seen[1]) {
        seen[1] = (rep.trips, level.intern(rep));
    }
    seen.swap(0, 1);
    seen[0].1
}

impl<S: Hash + Eq + Clone> Detector<S> {
    /// A detector built as `config` says.
    pub fn new(config: &Config) -> Self {
        Detector {
            base: Level::new(config.path_max_len, config.buckets, config.sort_every),
            upper: (0..config.upper_levels)
                .map(|_| Level::new(config.stratum_max_len, config.buckets, config.sort_every))
                .collect(),
            last_rep: vec![Vec::new(); config.upper_levels],
            top: Vec::new(),
            records: Vec::new(),
            keep_records: config.keep_records,
            rec_paths: 0,
            rec_strata: 0,
            emitted: vec![0; config.upper_levels + 1],
            grammar: config.grammar.then(Sequitur::new),
            finished: false,
        }
    }

    /// Feeds one symbol that stands for `insns` instructions and weighs `weight`.
    /// Symbols pushed after [`finish`](Self::finish) are ignored.
    #[inline]
    pub fn push(&mut self, sym: S, insns: u64, weight: u64) {
        if self.finished {
            return;
        }
        if let Some(u) = self.base.push(sym, insns, weight, 0) {
            self.lift(0, u);
        }
    }

    /// The dense index of `sym` in the path level's symbol table, interning it if new: a
    /// caller that feeds the same symbols many times (the sink: one per translated block)
    /// interns each once and feeds indices with [`push_index`](Self::push_index), so the
    /// per-symbol work involves no hashing.
    pub fn intern(&mut self, sym: S) -> u32 {
        self.base.intern(sym)
    }

    /// Feeds the symbol with index `index` (from [`intern`](Self::intern)), standing for
    /// `insns` instructions and weighing `weight`, exactly as [`push`](Self::push) feeds the
    /// symbol. An index not returned by `intern` is ignored, as are symbols pushed after
    /// [`finish`](Self::finish).
    #[inline]
    pub fn push_index(&mut self, index: u32, insns: u64, weight: u64) {
        if self.finished {
            return;
        }
        if let Some(u) = self.base.push_index(index, insns, weight, 0) {
            self.lift(0, u);
        }
    }

    /// Feeds symbols of one instruction and weight each.
    pub fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        for s in iter {
            self.push(s, 1, 1);
        }
    }

    /// Ends the stream: closes every open sequence, level by level. Idempotent.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        let pending: Vec<Unit> = self.base.finish().collect();
        for u in pending {
            self.lift(0, u);
        }
        for k in 0..self.upper.len() {
            let pending: Vec<Unit> = self.upper[k].finish().collect();
            for u in pending {
                self.lift(k + 1, u);
            }
        }
        self.finished = true;
    }

    /// Passes the unit that level `k` emitted up the hierarchy.
    fn lift(&mut self, mut k: usize, mut u: Unit) {
        loop {
            if k == 0 {
                // A path's unit counts its trips as paths.
                u.paths = u.rep.trips;
            }
            if let Some(n) = self.emitted.get_mut(k) {
                *n += 1;
            }
            if k == 1 {
                self.rec_paths += u.paths;
                self.rec_strata += u.rep.trips;
                if self.keep_records {
                    self.records.push(StratumRecord {
                        stratum: u.rep.id,
                        trips: u.rep.trips,
                        start_insn: u.start,
                        end_insn: u.start + u.insns,
                        end_path: self.rec_paths,
                        end_stratum: self.rec_strata,
                    });
                }
            }
            let mut upper = self.upper.get_mut(k).zip(self.last_rep.get_mut(k));
            let sym = upper
                .as_mut()
                .map(|(level, last)| symbol_of(level, last, u.rep));
            if let Some(g) = self.grammar.as_mut().filter(|_| k == 0) {
                // Level 1 interns the repeated paths in the grammar's order: its symbol
                // index is (checked) the grammar's terminal index. A full grammar (2^30
                // rules) stops growing; its input_len says so.
                let _ = match sym {
                    Some(sym) => g.push_hinted(sym, u.rep),
                    None => g.push(u.rep),
                };
            }
            let (Some((level, _)), Some(sym)) = (upper, sym) else {
                self.top.push(u.rep);
                return;
            };
            match level.push_index(sym, u.insns, u.weight, u.paths) {
                Some(v) => {
                    k += 1;
                    u = v;
                }
                None => return,
            }
        }
    }

    /// Levels in all: paths plus the upper levels.
    pub fn levels(&self) -> usize {
        self.upper.len() + 1
    }

    /// The symbols of path `id`.
    pub fn path(&self, id: u32) -> Option<&[S]> {
        self.base.seq(id)
    }

    /// The repeated units of sequence `id` of upper level `level` (1 = strata, 2 = layers).
    pub fn sequence(&self, level: usize, id: u32) -> Option<&[Rep]> {
        self.upper.get(level.checked_sub(1)?)?.seq(id)
    }

    /// The open repeated unit of `level`: the previous path (stratum, ...) with its trip
    /// count so far, not yet passed up.
    pub fn pending(&self, level: usize) -> Option<Rep> {
        match level {
            0 => self.base.pending(),
            _ => self.upper.get(level - 1)?.pending(),
        }
    }

    /// Statistics of sequence `id` of `level` (0 = paths) so far.
    pub fn stats(&self, level: usize, id: u32) -> Option<SeqStats> {
        match level {
            0 => self.base.stats(id),
            _ => self.upper.get(level - 1)?.stats(id),
        }
    }

    /// All statistics of `level`, in id order.
    pub fn all_stats(&self, level: usize) -> Vec<SeqStats> {
        let n = match level {
            0 => self.base.distinct(),
            _ => self.upper.get(level - 1).map_or(0, |l| l.distinct()),
        };
        (0..n as u32)
            .filter_map(|id| self.stats(level, id))
            .collect()
    }

    /// Distinct sequences of `level`.
    pub fn distinct(&self, level: usize) -> usize {
        match level {
            0 => self.base.distinct(),
            _ => self.upper.get(level - 1).map_or(0, |l| l.distinct()),
        }
    }

    /// Cycles closed at `level` (paths, strata, layers), counting every trip.
    pub fn closed(&self, level: usize) -> u64 {
        match level {
            0 => self.base.closed(),
            _ => self.upper.get(level - 1).map_or(0, Level::closed),
        }
    }

    /// Repeated units emitted by `level` so far (repeated paths, repeated strata, ...).
    pub fn emitted(&self, level: usize) -> u64 {
        self.emitted.get(level).copied().unwrap_or(0)
    }

    /// Instructions fed so far.
    pub fn instructions(&self) -> u64 {
        self.base.pos()
    }

    /// The repeated units the top level emitted (complete after [`finish`](Self::finish)).
    pub fn top(&self) -> &[Rep] {
        &self.top
    }

    /// The repeated strata, one record each (if [`Config::keep_records`]).
    pub fn records(&self) -> &[StratumRecord] {
        &self.records
    }

    /// The grammar of the repeated-path stream (if [`Config::grammar`]).
    pub fn grammar(&self) -> Option<&Sequitur<Rep>> {
        self.grammar.as_ref()
    }

    /// Instruction numbers at which a level's table sort reported a phase change
    /// (bounded-hashtable's reorder signal), with the level.
    pub fn reorders(&self) -> Vec<(u64, usize)> {
        let mut v: Vec<(u64, usize)> = self.base.reorders.iter().map(|(i, _)| (*i, 0)).collect();
        for (k, l) in self.upper.iter().enumerate() {
            v.extend(l.reorders.iter().map(|(i, _)| (*i, k + 1)));
        }
        v.sort_unstable();
        v
    }

    /// The level-`level` table (for its chain profile and sort statistics).
    pub fn table_stats(&self, level: usize) -> Option<bounded_hashtable::Stats> {
        match level {
            0 => Some(self.base.table().stats()),
            _ => self.upper.get(level - 1).map(|l| l.table().stats()),
        }
    }

    /// Expands the repeated unit `rep` of `level` down to symbols, calling `out` for each.
    /// Returns false if an id is unknown.
    pub fn expand_rep(&self, level: usize, rep: Rep, out: &mut impl FnMut(&S)) -> bool {
        for _ in 0..rep.trips {
            if level == 0 {
                let Some(p) = self.base.seq(rep.id) else {
                    return false;
                };
                p.iter().for_each(&mut *out);
            } else {
                let Some(members) = self.sequence(level, rep.id) else {
                    return false;
                };
                for &m in members {
                    if !self.expand_rep(level - 1, m, out) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Expands the whole hierarchy (top units -> ... -> paths -> symbols): after
    /// [`finish`](Self::finish), exactly the input stream.
    pub fn expand(&self) -> Option<Vec<S>> {
        let mut out = Vec::new();
        let top = self.upper.len();
        for &r in &self.top {
            if !self.expand_rep(top, r, &mut |s| out.push(s.clone())) {
                return None;
            }
        }
        Some(out)
    }
}

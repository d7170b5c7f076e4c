//! Executing a plan: the running sum, the stack of saved outer sums, and counter tables.
//!
//! Each table (a region's: region-based, of its own numbering; global-based, a slice of
//! the function's) is chosen by its size: a dense vector of counters indexed by path sum
//! (less the table's first) when it holds at most [`DENSE_LIMIT`] (65536 sums, 512 KiB:
//! a count is one indexed add), and otherwise a sparse [`BoundedHashTable`] keyed by path
//! sum, whose per-entry access counts are the path counts (only paths that run take
//! memory; the table's periodic sort keeps hot paths at the front of their chains),
//! behind a 64-entry direct-mapped cache of pending counts so that a hot path's count is
//! one add. Both give the same counts ([`Counters::with_dense_limit`] chooses another
//! threshold, e.g. 0 for all-sparse). Operations count through a [`Tally`]:
//! [`Counters`] itself, or (in the [`PathSink`](crate::PathSink)) a pool holding the dense
//! tables of every function, copied into their `Counters` at the end of the run.

use bounded_hashtable::{BoundedHashTable, MAX_ENTRIES};

use petgraph::graph::NodeIndex;

use crate::cfg::Cfg;
use crate::plan::{HierPath, Instrumented, Op};
use crate::Error;

/// Largest NumPaths of a table kept as a dense vector (by default). Raised from 4096:
/// the hot tables of flat primes' `main` and of global-based coremark's inlined benchmark
/// hold 4096-65536 sums (cachegrind: primes 400000 flat 4653.1M -> 4468.4M instructions,
/// coremark 3000 global-based 4789.7M -> 4737.3M).
pub const DENSE_LIMIT: u128 = 1 << 16;

/// Tables of at most this many sums stay dense in the [`PathSink`](crate::PathSink) when
/// its dense counters have spent their budget ([`DENSE_BUDGET`]).
pub const SMALL_TABLE: u128 = 1 << 12;

/// Dense counters the [`PathSink`](crate::PathSink) holds (2^22, 32 MiB) before it makes
/// only tables of at most [`SMALL_TABLE`] sums dense, so that a large program's tables
/// of up to [`DENSE_LIMIT`] sums (512 KiB each) cannot take unbounded memory.
pub const DENSE_BUDGET: usize = 1 << 22;

/// Entries of a sparse table's front cache.
const FRONT: usize = 64;

/// One counter table.
#[derive(Debug)]
pub enum Table {
    /// Indexed by path sum.
    Dense(Vec<u64>),
    /// Path sums that occurred, with their counts.
    Sparse(Box<Sparse>),
}

/// A sparse counter table: a [`BoundedHashTable`] keyed by path sum whose per-entry access
/// counts are the path counts, behind a small direct-mapped front cache of pending counts
/// (a hot path's count is an add in the cache; the table receives it as one
/// [`record`](BoundedHashTable::record) of `n` accesses when the entry is evicted).
pub struct Sparse {
    table: BoundedHashTable<u128, ()>,
    /// `(sum, pending count)`; a count of 0 marks an empty entry.
    front: Vec<(u128, u64)>,
}

impl std::fmt::Debug for Sparse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sparse({} sums)", self.table.len())
    }
}

impl Default for Sparse {
    fn default() -> Sparse {
        Sparse {
            table: BoundedHashTable::new(),
            front: vec![(0, 0); FRONT],
        }
    }
}

impl Sparse {
    /// Counts `n` occurrences of `sum`; `false` if the table is full (a new sum is dropped).
    #[inline]
    fn add(&mut self, sum: u128, n: u64) -> bool {
        let h = ((sum as u64) ^ ((sum >> 64) as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let i = (h >> 58) as usize % FRONT;
        let Some(e) = self.front.get_mut(i) else {
            return false;
        };
        if e.1 != 0 && e.0 == sum {
            e.1 += n;
            return true;
        }
        let old = std::mem::replace(e, (sum, n));
        old.1 == 0 || self.flush(old.0, old.1)
    }

    /// Adds `n` counts of `sum` to the table (not through the front cache); `false` if the
    /// table is full (the counts are dropped).
    fn flush(&mut self, sum: u128, n: u64) -> bool {
        if self.table.record(&sum, n).is_some() {
            return true;
        }
        if self.table.len() >= MAX_ENTRIES {
            return false;
        }
        self.table.insert(sum, ());
        if n > 1 {
            self.table.record(&sum, n - 1);
        }
        true
    }

    /// `(sum, count)` of every sum counted, in no particular order.
    pub fn counts(&self) -> Vec<(u128, u64)> {
        let mut v: Vec<(u128, u64)> = self
            .table
            .iter_counts()
            .map(|(&s, _, c)| (s, c.total))
            .collect();
        v.sort_unstable();
        let mut new = Vec::new();
        // Front entries have distinct sums (one place per sum).
        for &(s, n) in self.front.iter().filter(|e| e.1 != 0) {
            match v.binary_search_by_key(&s, |e| e.0) {
                Ok(i) => v[i].1 += n,
                Err(_) => new.push((s, n)),
            }
        }
        v.extend(new);
        v
    }
}

/// The counters of one instrumented CFG, plus anomalies seen while counting.
#[derive(Debug)]
pub struct Counters {
    /// One table per [`Instrumented::tables`].
    pub tables: Vec<Table>,
    /// Per table, the sum its counter 0 counts ([`Instrumented::table_sums`]; none: 0).
    pub first_sums: Vec<u128>,
    /// Counts at sums outside their table (a plan bug if ever non-zero), or beyond a
    /// sparse table's [`MAX_ENTRIES`].
    pub out_of_range: u64,
    /// Pops of an empty stack (a plan bug if ever non-zero).
    pub underflow: u64,
}

impl Counters {
    /// Empty tables for `inst`: dense up to [`DENSE_LIMIT`] path sums, sparse above.
    pub fn new(inst: &Instrumented) -> Counters {
        Counters::with_dense_limit(inst, DENSE_LIMIT)
    }

    /// Empty tables for `inst`: dense when its size ([`Instrumented::table_sizes`]) is at
    /// most `limit`, sparse above (the limit is capped at 2^24 sums, 128 MiB).
    pub fn with_dense_limit(inst: &Instrumented, limit: u128) -> Counters {
        let limit = limit.min(1 << 24);
        Counters {
            tables: inst
                .table_sizes()
                .into_iter()
                .map(|n| {
                    if n <= limit {
                        Table::Dense(vec![0; n as usize])
                    } else {
                        Table::Sparse(Box::default())
                    }
                })
                .collect(),
            first_sums: inst.table_sums().iter().map(|r| r.start).collect(),
            out_of_range: 0,
            underflow: 0,
        }
    }

    /// Adds `n` counts of `sum` to table `table` (`n` > 1: counts held in front of it, e.g.
    /// in the path sink's pool); counts it cannot take (at a sum outside a dense table, a
    /// plan bug, or beyond a sparse table's [`MAX_ENTRIES`]) are out of range.
    #[inline]
    pub(crate) fn add(&mut self, table: u32, sum: u128, n: u64) {
        let taken = match self.tables.get_mut(table as usize) {
            Some(Table::Dense(v)) => usize::try_from(sum)
                .ok()
                .and_then(|i| v.get_mut(i))
                .map(|c| *c += n)
                .is_some(),
            Some(Table::Sparse(m)) => m.add(sum, n),
            None => false,
        };
        if !taken {
            self.out_of_range += n;
        }
    }

    /// Non-zero counters as `(table, sum, count)`, ascending.
    pub fn nonzero(&self) -> Vec<(usize, u128, u64)> {
        let mut v = Vec::new();
        for (t, table) in self.tables.iter().enumerate() {
            let first = self.first_sums.get(t).copied().unwrap_or(0);
            let sum = |i: u128| first.wrapping_add(i);
            match table {
                Table::Dense(d) => v.extend(
                    d.iter()
                        .enumerate()
                        .filter(|(_, &c)| c != 0)
                        .map(|(i, &c)| (t, sum(i as u128), c)),
                ),
                Table::Sparse(m) => {
                    v.extend(m.counts().into_iter().map(|(i, c)| (t, sum(i), c)));
                }
            }
        }
        v.sort();
        v
    }

    /// The counted hierarchical paths with their counts (sums that decode to no path are
    /// reported as errors).
    pub fn paths(&self, inst: &Instrumented) -> Result<Vec<(HierPath, u64)>, Error> {
        self.nonzero()
            .into_iter()
            .map(|(t, s, c)| {
                inst.decode(t, s).map(|p| (p, c)).ok_or_else(|| {
                    Error::Invalid(format!("sum {s} of table {t} decodes to no path"))
                })
            })
            .collect()
    }
}

/// Where a plan's operations count path ends: [`Counters`], or the path sink's shared pool
/// of dense tables in front of a function's counters.
pub trait Tally {
    /// `cnt[table][sum]++`.
    fn count(&mut self, table: u32, sum: u128);
    /// A pop found the stack of saved sums empty (a plan bug).
    fn underflow(&mut self);
}

impl Tally for Counters {
    #[inline]
    fn count(&mut self, table: u32, sum: u128) {
        self.add(table, sum, 1);
    }

    fn underflow(&mut self) {
        self.underflow += 1;
    }
}

/// The state of one function activation: the running sum and the saved outer sums.
#[derive(Clone, Debug, Default)]
pub struct Activation {
    /// The current path sum.
    pub sum: u128,
    /// Saved outer sums.
    pub stack: Vec<u128>,
}

impl Activation {
    /// Executes `ops`, counting into `tally` (e.g. a [`Counters`]).
    #[inline]
    pub fn run<T: Tally + ?Sized>(&mut self, ops: &[Op], tally: &mut T) {
        for op in ops {
            match *op {
                Op::Add(v) => self.sum = self.sum.wrapping_add(v),
                Op::Set(v) => self.sum = v,
                Op::Push(v) => self.stack.push(self.sum.wrapping_add(v)),
                Op::Pop => match self.stack.pop() {
                    Some(s) => self.sum = s,
                    None => tally.underflow(),
                },
                Op::Count { table, add } => tally.count(table, self.sum.wrapping_add(add)),
            }
        }
    }
}

impl Instrumented {
    /// Runs the plan along a walk of CFG nodes that starts at the virtual entry and ends at
    /// the virtual exit (one activation), counting into `counters`.
    pub fn walk(&self, nodes: &[NodeIndex], counters: &mut Counters) -> Result<(), Error> {
        if nodes.first() != Some(&Cfg::entry()) || nodes.last() != Some(&Cfg::exit()) {
            return Err(Error::Invalid(
                "a walk goes from the entry to the exit".into(),
            ));
        }
        let mut act = Activation::default();
        act.run(&self.start_ops, counters);
        for pair in nodes.windows(2) {
            let e =
                self.hier.cfg.find_edge(pair[0], pair[1]).ok_or_else(|| {
                    Error::Invalid(format!("no edge {:?}->{:?}", pair[0], pair[1]))
                })?;
            act.run(self.ops_for(e.index()), counters);
        }
        act.run(&self.end_ops, counters);
        Ok(())
    }
}

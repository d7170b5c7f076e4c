//! Executing a plan: the running sum, the stack of saved outer sums, and counter tables.
//!
//! Each table (a region's, region-based; the function's, global-based) is chosen by its
//! NumPaths: a dense vector of counters indexed by path sum when NumPaths is at most
//! [`DENSE_LIMIT`] (4096 sums, 32 KiB: a count is one indexed add), and otherwise a sparse
//! [`BoundedHashTable`] keyed by path sum, whose per-entry access counts are the path
//! counts (only paths that run take memory; the table's periodic sort keeps hot paths at
//! the front of their chains). Both give the same counts ([`Counters::with_dense_limit`]
//! chooses another threshold, e.g. 0 for all-sparse).

use bounded_hashtable::{BoundedHashTable, MAX_ENTRIES};

use petgraph::graph::NodeIndex;

use crate::cfg::Cfg;
use crate::plan::{HierPath, Instrumented, Op};
use crate::Error;

/// Largest NumPaths of a table kept as a dense vector (by default).
pub const DENSE_LIMIT: u128 = 1 << 12;

/// One counter table.
pub enum Table {
    /// Indexed by path sum.
    Dense(Vec<u64>),
    /// Path sums that occurred; each entry's access count is the path's count.
    Sparse(BoundedHashTable<u128, ()>),
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Table::Dense(v) => write!(f, "Dense({} sums)", v.len()),
            Table::Sparse(t) => write!(f, "Sparse({} sums)", t.len()),
        }
    }
}

/// The counters of one instrumented CFG, plus anomalies seen while counting.
#[derive(Debug)]
pub struct Counters {
    /// One table per [`Instrumented::tables`].
    pub tables: Vec<Table>,
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

    /// Empty tables for `inst`: dense when NumPaths is at most `limit`, sparse above (the
    /// limit is capped at 2^24 sums, 128 MiB).
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
                        Table::Sparse(BoundedHashTable::new())
                    }
                })
                .collect(),
            out_of_range: 0,
            underflow: 0,
        }
    }

    #[inline]
    fn bump(&mut self, table: u32, sum: u128) {
        match self.tables.get_mut(table as usize) {
            Some(Table::Dense(v)) => {
                // `sum` is below the table size (at most DENSE_LIMIT) for a correct plan.
                match usize::try_from(sum).ok().and_then(|i| v.get_mut(i)) {
                    Some(c) => *c += 1,
                    None => self.out_of_range += 1,
                }
            }
            Some(Table::Sparse(m)) => {
                if m.record(&sum, 1).is_none() {
                    if m.len() < MAX_ENTRIES {
                        m.insert(sum, ());
                    } else {
                        self.out_of_range += 1;
                    }
                }
            }
            None => self.out_of_range += 1,
        }
    }

    /// Non-zero counters as `(table, sum, count)`, ascending.
    pub fn nonzero(&self) -> Vec<(usize, u128, u64)> {
        let mut v = Vec::new();
        for (t, table) in self.tables.iter().enumerate() {
            match table {
                Table::Dense(d) => v.extend(
                    d.iter()
                        .enumerate()
                        .filter(|(_, &c)| c != 0)
                        .map(|(s, &c)| (t, s as u128, c)),
                ),
                Table::Sparse(m) => v.extend(m.iter_counts().map(|(&s, _, c)| (t, s, c.total))),
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

/// The state of one function activation: the running sum and the saved outer sums.
#[derive(Clone, Debug, Default)]
pub struct Activation {
    /// The current path sum.
    pub sum: u128,
    /// Saved outer sums.
    pub stack: Vec<u128>,
}

impl Activation {
    /// Executes `ops`.
    #[inline]
    pub fn run(&mut self, ops: &[Op], counters: &mut Counters) {
        for op in ops {
            match *op {
                Op::Add(v) => self.sum = self.sum.wrapping_add(v),
                Op::Set(v) => self.sum = v,
                Op::Push(v) => self.stack.push(self.sum.wrapping_add(v)),
                Op::Pop => match self.stack.pop() {
                    Some(s) => self.sum = s,
                    None => counters.underflow += 1,
                },
                Op::Count { table, add } => counters.bump(table, self.sum.wrapping_add(add)),
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

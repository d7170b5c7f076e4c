//! The path sink's dense counters: every dense table of every instrumented function in one
//! vector, so that a cached path end is one bounds check and one indexed add (no walk from
//! the function to its counters and table). The tables are copied into each function's
//! [`Counters`] at the end of the run.

use crate::plan::Op;
use crate::runtime::{Counters, Table, Tally};

/// Where one dense table lies in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dense {
    /// Index of the counter of sum 0.
    base: usize,
    /// NumPaths of the table.
    size: u128,
}

/// The pool of dense counters.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    counts: Vec<u64>,
}

impl Pool {
    /// Places `counters`' dense tables in the pool: per table, where it lies (`None` for a
    /// sparse table, which stays in `counters`).
    pub(crate) fn place(&mut self, counters: &Counters) -> Vec<Option<Dense>> {
        counters
            .tables
            .iter()
            .map(|t| match t {
                Table::Dense(v) => {
                    let base = self.counts.len();
                    self.counts.resize(base + v.len(), 0);
                    Some(Dense {
                        base,
                        size: v.len() as u128,
                    })
                }
                Table::Sparse(_) => None,
            })
            .collect()
    }

    /// `cnt[sum]++` in table `d`; `false` if `sum` lies outside it (a plan bug).
    #[inline]
    pub(crate) fn bump(&mut self, d: Dense, sum: u128) -> bool {
        if sum >= d.size {
            return false;
        }
        self.bump_at(d.base, sum as usize)
    }

    /// `cnt[sum]++` in the table whose counter of sum 0 is at `base` and that holds `size`
    /// sums; `false` if `sum` lies outside it.
    #[inline]
    fn bump_in(&mut self, base: u64, size: u64, sum: u128) -> bool {
        sum < u128::from(size) && self.bump_at(base as usize, sum as usize)
    }

    /// `counts[base + sum]++`; `false` if that lies outside the pool.
    #[inline]
    fn bump_at(&mut self, base: usize, sum: usize) -> bool {
        match self.counts.get_mut(base.wrapping_add(sum)) {
            Some(c) => {
                *c += 1;
                true
            }
            None => false,
        }
    }

    /// Copies the pooled tables `dense` into `counters` (idempotent: the pool holds the
    /// counts).
    pub(crate) fn copy_out(&self, dense: &[Option<Dense>], counters: &mut Counters) {
        for (d, t) in dense.iter().zip(&mut counters.tables) {
            if let (Some(d), Table::Dense(v)) = (d, t) {
                if let Some(src) = self.counts.get(d.base..d.base + v.len()) {
                    v.copy_from_slice(src);
                }
            }
        }
    }
}

/// One function's tables as the sink counts them: dense ones in the pool, sparse ones (and
/// anomalies) in its [`Counters`].
pub(crate) struct Pooled<'a> {
    pub(crate) pool: &'a mut Pool,
    pub(crate) dense: &'a [Option<Dense>],
    pub(crate) counters: &'a mut Counters,
}

impl Tally for Pooled<'_> {
    #[inline]
    fn count(&mut self, table: u32, sum: u128) {
        match self.dense.get(table as usize) {
            Some(&Some(d)) => {
                if !self.pool.bump(d, sum) {
                    self.counters.out_of_range += 1;
                }
            }
            _ => self.counters.count(table, sum),
        }
    }

    fn underflow(&mut self) {
        self.counters.underflow += 1;
    }
}

/// Where a path end counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// A pooled dense table.
    Pool(Dense),
    /// Sparse table `t` of the function's [`Counters`].
    Sparse(u32),
}

/// A path's end at a backedge, `cnt[sum + add]++; sum = set`: the common long step of a
/// cached block, executed without interpreting [`Op`]s. Half a cache line, with `add` and
/// `set` sign-extended (a path end whose values do not fit stays an interpreted step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(32))]
pub(crate) struct PathEnd {
    /// A pooled table: the pool index of its counter of sum 0; a sparse one: its index.
    base: u64,
    /// A pooled table: its NumPaths; a sparse one: 0 (no sum is in range, so every count
    /// takes [`place`](Self::place)).
    size: u64,
    add: i64,
    set: i64,
}

impl Place {
    /// Where table `table` of a function whose pooled tables are `dense` counts.
    pub(crate) fn of(table: u32, dense: &[Option<Dense>]) -> Place {
        match dense.get(table as usize) {
            Some(&Some(d)) => Place::Pool(d),
            _ => Place::Sparse(table),
        }
    }
}

/// An [`Op`] whose table is resolved to its [`Place`]: a cached arena step (region entries
/// and exits) runs on the sink's hoisted sum without walking to the function's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlacedOp {
    /// `sum += v`.
    Add(u128),
    /// `sum = v`.
    Set(u128),
    /// `push(sum + v)`.
    Push(u128),
    /// `sum = pop()`.
    Pop,
    /// `cnt[place][sum + add]++`.
    Count(Place, u128),
}

impl PlacedOp {
    /// `op` in a function whose pooled tables are `dense`.
    pub(crate) fn of(op: Op, dense: &[Option<Dense>]) -> PlacedOp {
        match op {
            Op::Add(v) => PlacedOp::Add(v),
            Op::Set(v) => PlacedOp::Set(v),
            Op::Push(v) => PlacedOp::Push(v),
            Op::Pop => PlacedOp::Pop,
            Op::Count { table, add } => PlacedOp::Count(Place::of(table, dense), add),
        }
    }
}

impl PathEnd {
    /// The path end that `ops` are, if they are one, in a function whose pooled tables are
    /// `dense`.
    pub(crate) fn of(ops: &[Op], dense: &[Option<Dense>]) -> Option<PathEnd> {
        let [Op::Count { table, add }, Op::Set(set)] = *ops else {
            return None;
        };
        let (base, size) = match Place::of(table, dense) {
            // Size 0 marks a sparse table: an empty pooled one stays interpreted.
            Place::Pool(d) if d.size > 0 => {
                (u64::try_from(d.base).ok()?, u64::try_from(d.size).ok()?)
            }
            Place::Pool(_) => return None,
            Place::Sparse(t) => (u64::from(t), 0),
        };
        let (a, s) = (add as i64, set as i64);
        if a as i128 as u128 != add || s as i128 as u128 != set {
            return None;
        }
        Some(PathEnd {
            base,
            size,
            add: a,
            set: s,
        })
    }

    /// Counts `sum + add` in `pool`; `Err` with that sum when the pool does not take it (a
    /// sparse table's sum, or one out of range: it goes to [`place`](Self::place)).
    #[inline(always)]
    pub(crate) fn count(&self, pool: &mut Pool, sum: u128) -> Result<(), u128> {
        let sum = sum.wrapping_add(self.add as i128 as u128);
        if pool.bump_in(self.base, self.size, sum) {
            Ok(())
        } else {
            Err(sum)
        }
    }

    /// The sum after the path end.
    #[inline(always)]
    pub(crate) fn set(&self) -> u128 {
        self.set as i128 as u128
    }

    /// Where a count that the pool did not take goes.
    pub(crate) fn place(&self) -> Place {
        match self.size {
            0 => Place::Sparse(self.base as u32),
            size => Place::Pool(Dense {
                base: self.base as usize,
                size: u128::from(size),
            }),
        }
    }
}

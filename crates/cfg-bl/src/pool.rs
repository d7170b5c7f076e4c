//! The path sink's dense counters: every dense table of every instrumented function in one
//! vector, so that a cached path end is one bounds check and one indexed add (no walk from
//! the function to its counters and table). The tables are copied into each function's
//! [`Counters`] at the end of the run.
//!
//! A sparse table stays in the function's [`Counters`] (behind its own front cache), but a
//! cached path end of a sparse table counts its latest sums in pool counters of its own
//! (a [`Memo`] per way of the path end), exactly as a dense table's path end counts: a hot
//! path's count in a huge
//! region (a flat profile's `main`: coremark counts 14M path ends in a sparse table) is
//! an indexed add.

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

/// The pool of dense counters and of [`Memo`]s' counters.
///
/// The counters lie in one zeroed allocation of [`RESERVE`] counters or more, of which the
/// first `len` are placed: placing a table writes nothing, so the pages of counters that
/// never count are never touched (an allocation that large is mapped zeroed by the system,
/// page by page as it is first written; a global-based profile's tables hold mostly sums
/// that never run).
#[derive(Debug, Default)]
pub(crate) struct Pool {
    /// The allocation: `len` counters placed, zeros past them.
    counts: Vec<u64>,
    /// How many counters are placed.
    len: usize,
    /// Counters of [`Memo`]s given back, for reuse.
    free: Vec<usize>,
}

/// Counters the pool allocates at first (32 MiB, mapped as they are written), and then
/// at least twice what it held.
const RESERVE: usize = 1 << 22;

impl Pool {
    /// How many counters the pool holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The counters placed.
    fn placed(&self) -> &[u64] {
        &self.counts[..self.len]
    }

    /// The counters placed (for probes, which count in them).
    pub(crate) fn counts_mut(&mut self) -> &mut [u64] {
        &mut self.counts[..self.len]
    }

    /// Places `n` more counters (holding 0) and returns the first's index.
    fn grow(&mut self, n: usize) -> usize {
        let base = self.len;
        let len = base.saturating_add(n);
        if len > self.counts.len() {
            let mut bigger = vec![0; len.max(2 * self.counts.len()).max(RESERVE)];
            bigger[..base].copy_from_slice(&self.counts[..base]);
            self.counts = bigger;
        }
        self.len = len;
        base
    }

    /// Places `counters`' tables in the pool: per table, where it counts (a dense table in
    /// the pool, a sparse one in `counters`).
    pub(crate) fn place(&mut self, counters: &Counters) -> Vec<Place> {
        (0u32..)
            .zip(&counters.tables)
            .map(|(table, t)| match t {
                Table::Dense(v) => Place::Pool(Dense {
                    base: self.grow(v.len()),
                    size: v.len() as u128,
                }),
                Table::Sparse(_) => Place::Sparse(table),
            })
            .collect()
    }

    /// A counter of its own (holding 0) for a [`Memo`].
    pub(crate) fn alloc(&mut self) -> usize {
        self.free.pop().unwrap_or_else(|| self.grow(1))
    }

    /// Gives counter `i` from [`alloc`](Self::alloc) back (its count is dropped).
    pub(crate) fn free(&mut self, i: usize) {
        if let Some(c) = self.counts_mut().get_mut(i) {
            *c = 0;
            self.free.push(i);
        }
    }

    /// Counter `i`'s count.
    pub(crate) fn count(&self, i: usize) -> u64 {
        self.placed().get(i).copied().unwrap_or(0)
    }

    /// Counter `i`'s count, leaving it 0.
    pub(crate) fn take(&mut self, i: usize) -> u64 {
        self.counts_mut().get_mut(i).map_or(0, std::mem::take)
    }

    /// Sets counter `i` to `n`.
    pub(crate) fn set(&mut self, i: usize, n: u64) {
        if let Some(c) = self.counts_mut().get_mut(i) {
            *c = n;
        }
    }

    /// `cnt[sum]++` in table `d`; `false` if `sum` lies outside it (a plan bug).
    #[inline]
    pub(crate) fn bump(&mut self, d: Dense, sum: u128) -> bool {
        sum < d.size && self.add(d.base.wrapping_add(sum as usize), 1)
    }

    /// `counts[i] += n`; `false` if `i` lies outside the pool.
    #[inline]
    pub(crate) fn add(&mut self, i: usize, n: u64) -> bool {
        match self.counts_mut().get_mut(i) {
            Some(c) => {
                *c += n;
                true
            }
            None => false,
        }
    }

    /// Counts `sum` where `place` says, anomalies and sparse tables in `counters`.
    #[inline]
    pub(crate) fn count_at(&mut self, place: Place, sum: u128, counters: &mut Counters) {
        match place {
            Place::Pool(d) => {
                if !self.bump(d, sum) {
                    counters.out_of_range += 1;
                }
            }
            Place::Sparse(table) => counters.add(table, sum, 1),
        }
    }

    /// Brings `counters` up to date with the pool (`places` as [`place`](Self::place) gave
    /// them): copies the dense tables' counts into them. A dense table's counts only grow,
    /// so only those that are not 0 are written: the pages of a table's counters that
    /// never counted stay untouched.
    pub(crate) fn copy_out(&self, places: &[Place], counters: &mut Counters) {
        for (place, t) in places.iter().zip(&mut counters.tables) {
            if let (Place::Pool(d), Table::Dense(v)) = (place, t) {
                if let Some(src) = self.placed().get(d.base..d.base + v.len()) {
                    for (c, &n) in v.iter_mut().zip(src).filter(|(_, &n)| n != 0) {
                        *c = n;
                    }
                }
            }
        }
    }
}

/// One function's tables as the sink counts them: dense ones in the pool, sparse ones (and
/// anomalies) in its [`Counters`].
pub(crate) struct Pooled<'a> {
    pub(crate) pool: &'a mut Pool,
    pub(crate) places: &'a [Place],
    pub(crate) counters: &'a mut Counters,
}

impl Tally for Pooled<'_> {
    #[inline]
    fn count(&mut self, table: u32, sum: u128) {
        let place = Place::of(table, self.places);
        self.pool.count_at(place, sum, self.counters);
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
    /// Sparse table `table` of the function's [`Counters`].
    Sparse(u32),
}

/// A path's end at a backedge, `cnt[sum + add]++; sum = set`: the common long step of a
/// cached block, executed without interpreting [`Op`]s. Half a cache line, with `add` and
/// `set` sign-extended (a path end whose values do not fit stays an interpreted step): a
/// [`prof_events::ProbeEnd`], which compiled probes read. A pooled table's `base` is the pool
/// index of its counter of sum 0 and `size` its NumPaths; a sparse one's `base` is its
/// index and `size` 0 (no sum is in range, so every count takes [`PathEndOps::place`]).
pub(crate) type PathEnd = prof_events::ProbeEnd;

impl Place {
    /// Where table `table` of a function whose tables are placed at `places` counts (a
    /// table with no place counts in the function's [`Counters`], which finds it out of
    /// range).
    #[inline]
    pub(crate) fn of(table: u32, places: &[Place]) -> Place {
        places
            .get(table as usize)
            .copied()
            .unwrap_or(Place::Sparse(table))
    }
}

/// A sparse table's path end that counts its latest sum in a pool counter of its own: its
/// [`PathEnd`] is a [`window`](PathEnd::window) of that one sum, which the hot path counts
/// like a dense table's. Another sum moves the window to it, and the counts pending at the
/// old sum go to the table (a path end's sums repeat: on coremark, flat,
/// 98% of the 14.5M counts in sparse tables are the same path end's previous sum).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Memo {
    /// The function whose table it is.
    pub(crate) func: u32,
    /// The table.
    pub(crate) table: u32,
    /// The window's pool counter.
    pub(crate) counter: usize,
    /// The sum the window counts.
    pub(crate) sum: u128,
    /// The path end's addition (see [`PathEnd::addition`]).
    pub(crate) add: u128,
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
    /// `op` in a function whose tables are placed at `places`.
    pub(crate) fn of(op: Op, places: &[Place]) -> PlacedOp {
        match op {
            Op::Add(v) => PlacedOp::Add(v),
            Op::Set(v) => PlacedOp::Set(v),
            Op::Push(v) => PlacedOp::Push(v),
            Op::Pop => PlacedOp::Pop,
            Op::Count { table, add } => PlacedOp::Count(Place::of(table, places), add),
        }
    }
}

/// `v` as a signed 64-bit value, if it is one sign-extended to 128 bits (what compiled
/// probes and [`PathEnd`]s hold).
pub(crate) fn signed_64(v: u128) -> Option<i64> {
    (v as i64 as i128 as u128 == v).then_some(v as i64)
}

/// What the sink does with a [`PathEnd`].
pub(crate) trait PathEndOps: Sized {
    /// The path end that `ops` are, if they are one, in a function whose tables are placed
    /// at `places`.
    fn of(ops: &[Op], places: &[Place]) -> Option<PathEnd>;

    /// Counts `sum + add` in `pool`; `Err` with that sum when the pool does not take it (a
    /// sparse table's sum, or one out of range: it goes to [`place`](Self::place)).
    fn count(&self, pool: &mut Pool, sum: u128) -> Result<(), u128>;

    /// The pool counter that [`count`](Self::count) on `sum` bumps, if it is one of a
    /// dense table (or a window: the caller tells those apart) and `sum` is in range.
    fn fixed_counter(&self, sum: u128) -> Option<usize>;

    /// The sum after the path end.
    fn set(&self) -> u128;

    /// The path end's addition to the sum it counts.
    fn addition(&self) -> u128;

    /// This path end, of a sparse table and adding `add`, as a window of the one sum `sum`
    /// counted at pool counter `counter` (any other sum `s` is out of its range, as
    /// `s - sum`); `None` if `add - sum` does not fit the path end.
    fn window(&self, counter: usize, add: u128, sum: u128) -> Option<PathEnd>;

    /// Where a count that the pool did not take goes.
    fn place(&self) -> Place;
}

impl PathEndOps for PathEnd {
    fn of(ops: &[Op], places: &[Place]) -> Option<PathEnd> {
        let [Op::Count { table, add }, Op::Set(set)] = *ops else {
            return None;
        };
        let (base, size) = match Place::of(table, places) {
            // Size 0 marks a sparse table: an empty pooled one stays interpreted.
            Place::Pool(d) if d.size > 0 => {
                (u64::try_from(d.base).ok()?, u64::try_from(d.size).ok()?)
            }
            Place::Pool(_) => return None,
            Place::Sparse(table) => (u64::from(table), 0),
        };
        let (a, s) = (signed_64(add)?, signed_64(set)?);
        Some(PathEnd {
            base,
            size,
            add: a,
            set: s,
        })
    }

    #[inline(always)]
    fn count(&self, pool: &mut Pool, sum: u128) -> Result<(), u128> {
        match self.fixed_counter(sum) {
            Some(i) if pool.add(i, 1) => Ok(()),
            _ => Err(sum.wrapping_add(self.add as i128 as u128)),
        }
    }

    #[inline(always)]
    fn fixed_counter(&self, sum: u128) -> Option<usize> {
        let sum = sum.wrapping_add(self.add as i128 as u128);
        (sum < u128::from(self.size)).then(|| (self.base as usize).wrapping_add(sum as usize))
    }

    #[inline(always)]
    fn set(&self) -> u128 {
        self.set as i128 as u128
    }

    fn addition(&self) -> u128 {
        self.add as i128 as u128
    }

    fn window(&self, counter: usize, add: u128, sum: u128) -> Option<PathEnd> {
        let shift = add.wrapping_sub(sum);
        let a = shift as i64;
        (a as i128 as u128 == shift).then_some(PathEnd {
            base: u64::try_from(counter).ok()?,
            size: 1,
            add: a,
            set: self.set,
        })
    }

    fn place(&self) -> Place {
        match self.size {
            0 => Place::Sparse(self.base as u32),
            size => Place::Pool(Dense {
                base: self.base as usize,
                size: u128::from(size),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A dense table of 8 sums and two sparse tables.
    fn tables() -> Counters {
        Counters {
            tables: vec![
                Table::Dense(vec![0; 8]),
                Table::Sparse(Box::default()),
                Table::Sparse(Box::default()),
            ],
            first_sums: Vec::new(),
            out_of_range: 0,
            underflow: 0,
        }
    }

    fn sum() -> impl Strategy<Value = u128> {
        prop_oneof![
            0u128..200,
            Just(u128::MAX),
            (1u128 << 64)..(1u128 << 64) + 4
        ]
    }

    proptest! {
        /// Counting through the pool (dense tables, sparse tables, a table that does not
        /// exist), by plan operations and by path ends, and copying out at any
        /// point and more than once, gives the counts of the counters alone.
        #[test]
        fn pooled_counts_are_the_counters_counts(
            counts in prop::collection::vec((0u32..4, sum(), any::<bool>()), 0..600),
            copy_at in 0usize..600,
        ) {
            let mut direct = tables();
            let mut pooled = tables();
            let mut pool = Pool::default();
            // Another function's tables first: this one's lie at non-zero offsets.
            pool.place(&tables());
            let places = pool.place(&pooled);
            for (i, &(t, s, as_end)) in counts.iter().enumerate() {
                direct.count(t, s);
                let end = [Op::Count { table: t, add: 0 }, Op::Set(0)];
                match PathEnd::of(&end, &places).filter(|_| as_end) {
                    Some(end) => {
                        if let Err(s) = end.count(&mut pool, s) {
                            pool.count_at(end.place(), s, &mut pooled);
                        }
                    }
                    None => Pooled {
                        pool: &mut pool,
                        places: &places,
                        counters: &mut pooled,
                    }
                    .count(t, s),
                }
                if i == copy_at {
                    pool.copy_out(&places, &mut pooled);
                }
            }
            pool.copy_out(&places, &mut pooled);
            pool.copy_out(&places, &mut pooled);
            prop_assert_eq!(pooled.nonzero(), direct.nonzero());
            prop_assert_eq!(pooled.out_of_range, direct.out_of_range);
        }
    }

    #[test]
    fn a_window_counts_its_one_sum_in_its_counter_and_tells_others_apart() {
        let mut pool = Pool::default();
        let places = pool.place(&tables());
        let ops = [Op::Count { table: 1, add: 5 }, Op::Set(2)];
        let end = PathEnd::of(&ops, &places).expect("a sparse table's path end");
        assert_eq!(end.addition(), 5);
        // Not in the pool: the sum counted goes to the table.
        assert_eq!(end.count(&mut pool, 7), Err(12));
        let c = pool.alloc();
        let window = end.window(c, end.addition(), 12).expect("fits");
        assert_eq!(
            (window.set(), window.addition()),
            (2, 5u128.wrapping_sub(12))
        );
        assert_eq!(window.count(&mut pool, 7), Ok(()));
        assert_eq!(window.count(&mut pool, 7), Ok(()));
        // Another sum: out of the window, by its distance from the window's sum.
        assert_eq!(window.count(&mut pool, 9), Err(2));
        assert_eq!(window.count(&mut pool, 0), Err(5u128.wrapping_sub(12)));
        assert_eq!((pool.take(c), pool.take(c)), (2, 0));
        // A window too far from the path end's addition does not fit.
        assert_eq!(end.window(c, end.addition(), 1 << 100), None);
        // Counters are reused once freed.
        pool.set(c, 3);
        pool.free(c);
        assert_eq!(pool.alloc(), c);
        assert_eq!(pool.take(c), 0);
    }
}

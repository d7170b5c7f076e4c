//! The sort policy: when the table sorts, which buckets and entries qualify, and in what order.

use std::num::NonZeroU64;

/// When a sort pass runs. Every pass ends a *period*: per-period counts restart from zero
/// and the phase detector compares the pass's reversals with its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// After every `k` counted accesses (see the crate docs for which operations count).
    Accesses(NonZeroU64),
    /// After every `k` units of an external clock fed through
    /// [`BoundedHashTable::tick`](crate::BoundedHashTable::tick), such as instructions
    /// executed or cycles.
    Ticks(NonZeroU64),
    /// Only when [`BoundedHashTable::sort`](crate::BoundedHashTable::sort) is called.
    Manual,
}

/// Which access count the frequency thresholds and the order use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountBasis {
    /// Accesses since the last sort pass (the count of the period that just ended).
    /// Follows phase changes; the default.
    Period,
    /// Accesses since the entry was inserted (cumulative).
    Total,
}

/// How the first group (the qualifying, hot entries) is ordered at the front of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortOrder {
    /// Most accessed first (the spec's example); ties keep their previous relative order.
    Descending,
    /// Least accessed first; ties keep their previous relative order.
    Ascending,
    /// The hot entries keep their previous relative order (the spec's "other order":
    /// they are only moved in front of the cold ones).
    Preserve,
}

/// The complete sort policy of a table.
///
/// A bucket is sorted in a pass when its depth exceeds [`depth_threshold`](Self::depth_threshold)
/// and the sum of its entries' counts reaches
/// [`bucket_frequency_threshold`](Self::bucket_frequency_threshold). Within it, the entries
/// whose count reaches [`frequency_threshold`](Self::frequency_threshold) form the first group,
/// placed at the front in [`order`](Self::order); the others keep their relative order behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortPolicy {
    /// When passes run.
    pub period: Period,
    /// Only buckets with more entries than this are considered (`1`: every chain of two or
    /// more).
    pub depth_threshold: usize,
    /// An entry qualifies for the first group when its count (in [`basis`](Self::basis)) is
    /// at least this. `0` makes every entry qualify.
    pub frequency_threshold: u64,
    /// A bucket is sorted only when its entries' counts sum to at least this (the spec's
    /// "total number of accesses to an entire bucket"); `0` disables the test.
    pub bucket_frequency_threshold: u64,
    /// The count used by both thresholds and by the order.
    pub basis: CountBasis,
    /// The order of the first group.
    pub order: SortOrder,
    /// Two reordered entries record a reversal when their counts are at least this ratio
    /// apart (`10`: an order of magnitude). Values below 1 act as 1.
    pub reversal_ratio: u64,
    /// The phase detector's own frequency threshold: a pair of reordered entries records a
    /// reversal only if the entry that lost its place counted at least this at its
    /// bucket's previous sort and the one that overtook it counts at least this now (both
    /// in [`basis`](Self::basis)). Kept apart from
    /// [`frequency_threshold`](Self::frequency_threshold) so that a low sort threshold
    /// (more entries sorted, shallower probes) does not turn the noise of rarely accessed
    /// entries into phase changes.
    pub reversal_threshold: u64,
    /// A pass whose reversal count reaches this signals a phase change. Values below 1 act
    /// as 1.
    pub phase_threshold: u64,
}

impl SortPolicy {
    /// The default period: a pass every 2^20 counted accesses.
    pub const DEFAULT_PERIOD: u64 = 1 << 20;

    /// The default policy with passes every `k` counted accesses (`0` acts as 1).
    pub fn every(k: u64) -> Self {
        Self {
            period: Period::Accesses(NonZeroU64::new(k).unwrap_or(NonZeroU64::MIN)),
            ..Self::default()
        }
    }

    /// The ratio actually used (at least 1).
    pub(crate) fn ratio(&self) -> u64 {
        self.reversal_ratio.max(1)
    }

    /// The phase threshold actually used (at least 1).
    pub(crate) fn phase_reversals(&self) -> u64 {
        self.phase_threshold.max(1)
    }
}

impl Default for SortPolicy {
    /// Passes every 2^20 accesses; buckets of two or more entries; hot means at least 4
    /// accesses in the period (the summary bench's `thresholds` section: at load 4 with
    /// 10^6 keys it sorted far deeper than 64 and ran faster, at load 1 as fast); descending
    /// order; reversals between entries of at least 64 accesses whose counts are 10 times
    /// apart; phase change at 2 reversals in a pass.
    fn default() -> Self {
        Self {
            period: Period::Accesses(
                NonZeroU64::new(Self::DEFAULT_PERIOD).unwrap_or(NonZeroU64::MIN),
            ),
            depth_threshold: 1,
            frequency_threshold: 4,
            bucket_frequency_threshold: 0,
            basis: CountBasis::Period,
            order: SortOrder::Descending,
            reversal_ratio: 10,
            reversal_threshold: 64,
            phase_threshold: 2,
        }
    }
}

//! Counters the table keeps about itself: lookups, probe depths, sort passes and phase changes.

/// The access counts of one entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Counted accesses since the entry was inserted (saturating).
    pub total: u64,
    /// Counted accesses since the last sort pass (saturating at `u32::MAX`).
    pub period: u32,
}

/// What one sort pass did. The last one is kept by the table
/// ([`last_report`](crate::BoundedHashTable::last_report)) and passed to the phase callback.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SortReport {
    /// Number of this pass (the first pass is 1).
    pub pass: u64,
    /// Buckets that passed the depth and bucket-frequency thresholds and had at least one
    /// qualifying entry.
    pub buckets_sorted: u64,
    /// Entries whose position in their chain changed.
    pub entries_moved: u64,
    /// Pairs of entries whose order the pass reversed while their counts were at least the
    /// policy's ratio apart (see the crate docs).
    pub reversals: u64,
    /// Whether `reversals` reached the policy's phase threshold.
    pub phase_change: bool,
}

/// Cumulative statistics of a table (since creation or [`reset_stats`](crate::BoundedHashTable::reset_stats)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Counted lookups that found their key.
    pub hits: u64,
    /// Sum over those lookups of the probe depth (entries examined, 1 = chain head).
    pub hit_probes: u64,
    /// Largest probe depth of a counted lookup.
    pub max_probe: u32,
    /// Sort passes run.
    pub sorts: u64,
    /// Sum of [`SortReport::buckets_sorted`].
    pub buckets_sorted: u64,
    /// Sum of [`SortReport::entries_moved`].
    pub entries_moved: u64,
    /// Sum of [`SortReport::reversals`].
    pub reversals: u64,
    /// Passes that signalled a phase change.
    pub phase_changes: u64,
}

impl Stats {
    /// Mean probe depth of counted successful lookups (0 when there were none).
    pub fn mean_probe_depth(&self) -> f64 {
        if self.hits == 0 {
            0.0
        } else {
            self.hit_probes as f64 / self.hits as f64
        }
    }

    pub(crate) fn add_report(&mut self, r: &SortReport) {
        self.sorts += 1;
        self.buckets_sorted += r.buckets_sorted;
        self.entries_moved += r.entries_moved;
        self.reversals += r.reversals;
        self.phase_changes += u64::from(r.phase_change);
    }
}

/// The shape of the chains, computed on demand by
/// [`chain_profile`](crate::BoundedHashTable::chain_profile).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChainProfile {
    /// Number of buckets.
    pub buckets: usize,
    /// Buckets holding at least one entry.
    pub occupied: usize,
    /// Longest chain.
    pub max_depth: usize,
    /// Mean position (1 = head) of the entries, weighted by their total counts: the mean
    /// probe depth the recorded accesses would have with the current order.
    pub weighted_depth_total: f64,
    /// The same weighted by the counts of the current period.
    pub weighted_depth_period: f64,
}

//! Hotlist configuration: N, the factor f, the SatCount range and the sampling policy.

use serde::{Deserialize, Serialize};

use crate::HotlistError;

/// Largest accepted capacity N (2^24 tuples). Bounds memory and the length of one
/// eviction round.
pub const MAX_CAPACITY: usize = 1 << 24;
/// Smallest accepted factor f, 1 + 2^-24: with f closer to 1 one eviction round would
/// remove almost nothing and the eviction loop would iterate for a very long time.
pub const MIN_FACTOR: f64 = 1.0 + 1.0 / (1u64 << 24) as f64;
/// Largest accepted factor f.
pub const MAX_FACTOR: f64 = 1e6;
/// Capacities above this keep a hash index beside the sorted tuples; at or below it a
/// lookup is the spec's linear scan from the highest count down.
pub const LINEAR_SCAN_MAX: usize = 32;

/// Which of the spec's two update methods a hotlist uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    /// Switch with the saturating counter: counting samples (Fig. 11A) until SatCount
    /// reaches `max_end`, concise samples (Fig. 11B) until it falls back to `min_end`.
    Adaptive {
        /// MinEnd (spec default 0).
        min_end: u32,
        /// MaxEnd (spec default 50).
        max_end: u32,
    },
    /// Concise samples only (the spec's "alternate embodiment").
    Concise,
    /// Counting samples only.
    Counting,
}

impl Default for Policy {
    /// `Adaptive { min_end: 0, max_end: 50 }`, the spec's typical values.
    fn default() -> Self {
        Policy::Adaptive {
            min_end: 0,
            max_end: 50,
        }
    }
}

/// The update method in force for the next event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Fig. 11B: each event is looked at with probability p.
    Concise,
    /// Fig. 11A: events of values in the hotlist are always counted, others enter with
    /// probability p.
    Counting,
}

/// A validated hotlist configuration. Build with [`Config::new`] and the `with_*` methods,
/// then [`Config::validate`] (done by [`crate::Hotlist::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// N, the maximum number of tuples kept.
    pub capacity: usize,
    /// The factor f by which p is divided in one reduction step; `None` means the spec's
    /// N/(N-1), or 2 when N = 1 (where N/(N-1) is undefined).
    pub factor: Option<f64>,
    /// Concise, counting, or switching between them.
    pub policy: Policy,
    /// How much larger Scur/2 must be than S/p for a singleton to count as "old"
    /// ([`crate::Hotlist::is_old_singleton`]); the spec says "significantly", we default to 2.
    pub old_singleton_margin: f64,
}

impl Config {
    /// The spec's defaults for capacity `n`: f = N/(N-1), adaptive policy with MinEnd 0 and
    /// MaxEnd 50.
    pub fn new(n: usize) -> Self {
        Config {
            capacity: n,
            factor: None,
            policy: Policy::default(),
            old_singleton_margin: 2.0,
        }
    }

    /// Sets the factor f.
    pub fn with_factor(mut self, f: f64) -> Self {
        self.factor = Some(f);
        self
    }

    /// Sets the policy.
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the old-singleton margin.
    pub fn with_old_singleton_margin(mut self, margin: f64) -> Self {
        self.old_singleton_margin = margin;
        self
    }

    /// The factor f in force.
    pub fn effective_factor(&self) -> f64 {
        match self.factor {
            Some(f) => f,
            None if self.capacity <= 1 => 2.0,
            None => self.capacity as f64 / (self.capacity - 1) as f64,
        }
    }

    /// The mode a fresh hotlist starts in: counting samples unless the policy is concise
    /// (SatCount starts at MinEnd, and MinEnd selects counting samples).
    pub fn initial_mode(&self) -> Mode {
        match self.policy {
            Policy::Concise => Mode::Concise,
            _ => Mode::Counting,
        }
    }

    /// Checks every field; the error says which one is wrong.
    pub fn validate(&self) -> Result<(), HotlistError> {
        if self.capacity == 0 {
            return Err(HotlistError::ZeroCapacity);
        }
        if self.capacity > MAX_CAPACITY {
            return Err(HotlistError::CapacityTooLarge(self.capacity));
        }
        let f = self.effective_factor();
        if !(MIN_FACTOR..=MAX_FACTOR).contains(&f) {
            return Err(HotlistError::BadFactor(f));
        }
        if let Policy::Adaptive { min_end, max_end } = self.policy {
            if min_end >= max_end {
                return Err(HotlistError::BadSatRange { min_end, max_end });
            }
        }
        let m = self.old_singleton_margin;
        if !(m.is_finite() && m > 0.0) {
            return Err(HotlistError::BadMargin(m));
        }
        Ok(())
    }
}

//! Running statistics of values: count, min, max, mean and variance (Welford's update,
//! Chan et al.'s merge), as the spec's interrupt handler or daemon keeps them beside a
//! hotlist.

use serde::{Deserialize, Serialize};

/// Count, minimum, maximum, mean and variance of the values seen, in O(1) space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunningStats {
    count: u64,
    min: f64,
    max: f64,
    mean: f64,
    /// Sum of squared deviations from the mean.
    m2: f64,
}

impl RunningStats {
    /// No values yet.
    pub fn new() -> Self {
        RunningStats::default()
    }

    /// Adds one value; NaN is ignored (it has no order and would poison the mean).
    pub fn record(&mut self, x: f64) {
        if x.is_nan() {
            return;
        }
        if self.count == 0 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.count += 1;
        let d = x - self.mean;
        self.mean += d / self.count as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Adds an unsigned value (converted to f64; exact below 2^53).
    pub fn record_u64(&mut self, x: u64) {
        self.record(x as f64);
    }

    /// Adds a signed value (converted to f64; exact below 2^53 in magnitude).
    pub fn record_i64(&mut self, x: i64) {
        self.record(x as f64);
    }

    /// Combines the statistics of another stream into these.
    pub fn merge(&mut self, other: &RunningStats) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let (na, nb) = (self.count as f64, other.count as f64);
        let n = na + nb;
        let d = other.mean - self.mean;
        self.mean += d * nb / n;
        self.m2 += other.m2 + d * d * na * nb / n;
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Smallest value, if any.
    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    /// Largest value, if any.
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// Arithmetic mean, if any value was recorded.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then_some(self.mean)
    }

    /// Population variance (divisor n), if any value was recorded.
    pub fn variance(&self) -> Option<f64> {
        (self.count > 0).then(|| self.m2 / self.count as f64)
    }

    /// Sample variance (divisor n - 1), if at least two values were recorded.
    pub fn sample_variance(&self) -> Option<f64> {
        (self.count > 1).then(|| self.m2 / (self.count - 1) as f64)
    }

    /// Population standard deviation.
    pub fn std_dev(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }
}

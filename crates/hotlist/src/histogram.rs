//! Exact histograms of values: each bucket is a (value, count) tuple, as the spec's
//! histogram table 182 is, with the bucket chosen by a [`Bucketing`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::HotlistError;

/// How a value maps to a bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bucketing {
    /// Buckets `[origin + k*width, origin + (k+1)*width)` (values below `origin` go to the
    /// bucket starting at `origin - width`, `origin - 2*width`, ..., wrapping never: the
    /// bucket start saturates at 0).
    Linear {
        /// Start of one bucket.
        origin: u64,
        /// Bucket width, at least 1 (1 gives one bucket per value).
        width: u64,
    },
    /// Bucket 0 holds 0, bucket k >= 1 holds `[2^(k-1), 2^k)`: latencies, sizes, strides.
    Log2,
}

/// An exact histogram with a bucket per distinct bucket key (no fixed size: use a
/// [`crate::Hotlist`] when the number of buckets must be bounded).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram {
    bucketing: Bucketing,
    buckets: BTreeMap<u64, u64>,
    total: u64,
}

impl Histogram {
    /// An empty histogram; a zero linear width is an error.
    pub fn new(bucketing: Bucketing) -> Result<Self, HotlistError> {
        if let Bucketing::Linear { width: 0, .. } = bucketing {
            return Err(HotlistError::ZeroBucketWidth);
        }
        Ok(Histogram {
            bucketing,
            buckets: BTreeMap::new(),
            total: 0,
        })
    }

    /// The lowest value of the bucket holding `x`.
    pub fn bucket_start(&self, x: u64) -> u64 {
        match self.bucketing {
            Bucketing::Linear { origin, width } => {
                let w = width.max(1);
                if x >= origin {
                    origin + (x - origin) / w * w
                } else {
                    origin.saturating_sub((origin - x).div_ceil(w).saturating_mul(w))
                }
            }
            Bucketing::Log2 => match x {
                0 => 0,
                _ => 1u64 << (63 - x.leading_zeros()),
            },
        }
    }

    /// Counts one value.
    pub fn record(&mut self, x: u64) {
        self.record_n(x, 1);
    }

    /// Counts `n` occurrences of a value.
    pub fn record_n(&mut self, x: u64, n: u64) {
        let c = self.buckets.entry(self.bucket_start(x)).or_insert(0);
        *c = c.saturating_add(n);
        self.total = self.total.saturating_add(n);
    }

    /// Adds another histogram's counts; they must bucket alike.
    pub fn merge(&mut self, other: &Histogram) -> Result<(), HotlistError> {
        if self.bucketing != other.bucketing {
            return Err(HotlistError::BadState(
                "merging histograms with different bucketing".into(),
            ));
        }
        for (&k, &c) in &other.buckets {
            let e = self.buckets.entry(k).or_insert(0);
            *e = e.saturating_add(c);
        }
        self.total = self.total.saturating_add(other.total);
        Ok(())
    }

    /// (bucket start, count) in increasing order of bucket start.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.buckets.iter().map(|(&k, &c)| (k, c))
    }

    /// Total count.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The bucketing rule.
    pub fn bucketing(&self) -> Bucketing {
        self.bucketing
    }
}

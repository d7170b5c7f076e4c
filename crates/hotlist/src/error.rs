//! Errors of hotlist configuration, restoration and merging.

use thiserror::Error;

/// Everything that can go wrong when building, restoring or merging hotlists.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum HotlistError {
    /// N = 0: a hotlist must have room for at least one tuple.
    #[error("hotlist capacity N must be at least 1")]
    ZeroCapacity,
    /// N above [`crate::MAX_CAPACITY`].
    #[error("hotlist capacity N = {0} exceeds the maximum {max}", max = crate::MAX_CAPACITY)]
    CapacityTooLarge(usize),
    /// The reduction factor f is not a finite number in the allowed range.
    #[error("reduction factor f = {0} must be finite and in [{min}, {max}]", min = crate::MIN_FACTOR, max = crate::MAX_FACTOR)]
    BadFactor(f64),
    /// MinEnd must be below MaxEnd for the saturating counter to switch modes.
    #[error(
        "SatCount range MinEnd = {min_end} .. MaxEnd = {max_end} is empty (need MinEnd < MaxEnd)"
    )]
    BadSatRange {
        /// The requested MinEnd.
        min_end: u32,
        /// The requested MaxEnd.
        max_end: u32,
    },
    /// The old-singleton margin is not a finite positive number.
    #[error("old-singleton margin {0} must be finite and positive")]
    BadMargin(f64),
    /// A restored (deserialized) hotlist is internally inconsistent.
    #[error("inconsistent hotlist state: {0}")]
    BadState(String),
    /// A histogram bucket width of zero.
    #[error("histogram bucket width must be at least 1")]
    ZeroBucketWidth,
    /// A bit field that does not fit in 64 bits.
    #[error("bit field at bit {lo} of width {width} does not fit in 64 bits (need 1 <= width, lo + width <= 64)")]
    BadBitField {
        /// Lowest bit of the field.
        lo: u32,
        /// Width of the field in bits.
        width: u32,
    },
}

//! Functions of values profiled instead of (or beside) the values themselves: the spec's
//! least significant bit, sign, alignment, bit fields and differences of two values.

use serde::{Deserialize, Serialize};

use crate::HotlistError;

/// A function of one 64-bit value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueFn {
    /// The value itself.
    Identity,
    /// The least significant bit (0 or 1): even/odd.
    Lsb,
    /// The sign of the value read as i64: 0 for zero, 1 for positive, 2 for negative
    /// (unsigned codes so every result is a small hotlist key).
    Sign,
    /// The alignment: the number of trailing zero bits (64 for zero), so 3 means
    /// "a multiple of 8 but not of 16".
    Alignment,
    /// Bits `lo .. lo + width` of the value, shifted down. Build with [`ValueFn::bit_field`].
    BitField {
        /// Lowest bit.
        lo: u8,
        /// Width in bits (1..=64).
        width: u8,
    },
}

impl ValueFn {
    /// The bit field `lo .. lo + width`, checked.
    pub fn bit_field(lo: u32, width: u32) -> Result<ValueFn, HotlistError> {
        if width == 0 || lo.checked_add(width).is_none_or(|end| end > 64) {
            return Err(HotlistError::BadBitField { lo, width });
        }
        Ok(ValueFn::BitField {
            lo: lo as u8,
            width: width as u8,
        })
    }

    /// Applies the function.
    #[inline]
    pub fn apply(self, x: u64) -> u64 {
        match self {
            ValueFn::Identity => x,
            ValueFn::Lsb => x & 1,
            ValueFn::Sign => match (x as i64).signum() {
                0 => 0,
                1 => 1,
                _ => 2,
            },
            ValueFn::Alignment => u64::from(x.trailing_zeros()),
            ValueFn::BitField { lo, width } => {
                let shifted = x.checked_shr(u32::from(lo)).unwrap_or(0);
                match 1u64.checked_shl(u32::from(width)) {
                    Some(m) => shifted & (m - 1),
                    None => shifted,
                }
            }
        }
    }
}

/// The difference of two values, `a - b` wrapping (read it as i64 for a signed delta):
/// a stride between successive addresses, or between a call's two arguments.
#[inline]
pub fn difference(a: u64, b: u64) -> u64 {
    a.wrapping_sub(b)
}

/// Feeds a stream of values through "difference from the previous value", the usual way
/// to profile strides; the first value gives no difference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta {
    prev: Option<u64>,
}

impl Delta {
    /// No previous value.
    pub fn new() -> Self {
        Delta::default()
    }

    /// The difference from the previous value, if there was one.
    pub fn next(&mut self, x: u64) -> Option<u64> {
        let d = self.prev.map(|p| difference(x, p));
        self.prev = Some(x);
        d
    }
}

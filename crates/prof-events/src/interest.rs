//! What a sink wants: a small bit set, asked once and cached.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign};

/// A set of event kinds. Per block: [`BLOCK`](Self::BLOCK), [`EDGE`](Self::EDGE),
/// [`MEM`](Self::MEM), [`MEM_VALUES`](Self::MEM_VALUES). Per run:
/// [`SYSCALL`](Self::SYSCALL), [`SAMPLE`](Self::SAMPLE), [`EXIT`](Self::EXIT).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Interest(u8);

impl Interest {
    /// Nothing.
    pub const NONE: Interest = Interest(0);
    /// [`Sink::block`](crate::Sink::block) when the block is entered.
    pub const BLOCK: Interest = Interest(1);
    /// [`Sink::edge`](crate::Sink::edge) for the control transfer that ends the block.
    pub const EDGE: Interest = Interest(1 << 1);
    /// [`Sink::mem`](crate::Sink::mem) for every load and store of the block (address, size, kind).
    pub const MEM: Interest = Interest(1 << 2);
    /// As [`MEM`](Self::MEM), and the value loaded or stored is filled in. Implies `MEM`.
    pub const MEM_VALUES: Interest = Interest(1 << 3 | 1 << 2);
    /// [`Sink::syscall`](crate::Sink::syscall) (run-wide).
    pub const SYSCALL: Interest = Interest(1 << 4);
    /// [`Sink::sample`](crate::Sink::sample) (run-wide).
    pub const SAMPLE: Interest = Interest(1 << 5);
    /// [`Sink::exit`](crate::Sink::exit) (run-wide).
    pub const EXIT: Interest = Interest(1 << 6);
    /// Every per-block event, values included.
    pub const ALL_BLOCK: Interest = Interest(0b1111);
    /// Every event.
    pub const ALL: Interest = Interest(0b111_1111);

    /// The raw bits.
    #[inline(always)]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Builds a set from raw bits, dropping unknown ones.
    #[inline(always)]
    pub const fn from_bits_truncate(bits: u8) -> Interest {
        Interest(bits & Self::ALL.0)
    }

    /// True if every kind in `other` is in `self`.
    #[inline(always)]
    pub const fn contains(self, other: Interest) -> bool {
        self.0 & other.0 == other.0
    }

    /// True if some kind in `other` is in `self`.
    #[inline(always)]
    pub const fn intersects(self, other: Interest) -> bool {
        self.0 & other.0 != 0
    }

    /// True if the set is empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union.
    #[inline(always)]
    pub const fn union(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }
}

impl BitOr for Interest {
    type Output = Interest;
    #[inline(always)]
    fn bitor(self, rhs: Interest) -> Interest {
        self.union(rhs)
    }
}

impl BitOrAssign for Interest {
    #[inline(always)]
    fn bitor_assign(&mut self, rhs: Interest) {
        self.0 |= rhs.0;
    }
}

impl BitAnd for Interest {
    type Output = Interest;
    #[inline(always)]
    fn bitand(self, rhs: Interest) -> Interest {
        Interest(self.0 & rhs.0)
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [&str; 7] = [
            "BLOCK",
            "EDGE",
            "MEM",
            "MEM_VALUES",
            "SYSCALL",
            "SAMPLE",
            "EXIT",
        ];
        let mut first = true;
        write!(f, "Interest(")?;
        for (bit, name) in NAMES.iter().enumerate() {
            if self.0 & (1 << bit) != 0 {
                if !first {
                    write!(f, " | ")?;
                }
                write!(f, "{name}")?;
                first = false;
            }
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_values_implies_mem() {
        assert!(Interest::MEM_VALUES.contains(Interest::MEM));
        assert!(!Interest::MEM.contains(Interest::MEM_VALUES));
    }

    #[test]
    fn union_and_debug() {
        let i = Interest::BLOCK | Interest::EDGE;
        assert!(i.contains(Interest::EDGE));
        assert!(!i.intersects(Interest::MEM));
        assert_eq!(format!("{i:?}"), "Interest(BLOCK | EDGE)");
        assert_eq!(Interest::from_bits_truncate(0xff), Interest::ALL);
    }
}

//! Dense id newtypes.

use std::fmt;

/// A translated basic block. Ids are dense and assigned by the driver in order of first
/// translation, starting at 0, so analyses can keep per-block data in a `Vec`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The id as a vector index.
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A trace: a run of blocks the driver executes as one (see [`Sink::trace_formed`]).
/// Ids are dense and assigned in order of announcement, starting at 0.
///
/// [`Sink::trace_formed`]: crate::Sink::trace_formed
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TraceId(pub u32);

impl TraceId {
    /// The id as a vector index.
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

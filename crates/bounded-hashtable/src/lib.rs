//! bounded-hashtable (docs to come)
#![forbid(unsafe_code)]

mod entry;
mod policy;
mod sort;
mod stats;
#[cfg(feature = "proptest")]
pub mod strategies;
mod table;

pub use entry::{Entry, OccupiedEntry, VacantEntry};
pub use policy::{CountBasis, Period, SortOrder, SortPolicy};
pub use stats::{ChainProfile, Counts, SortReport, Stats};
pub use table::{
    BoundedHashTable, Chain, DefaultHashBuilder, IntoIter, Iter, IterMut, PhaseCallback,
    MAX_ENTRIES,
};

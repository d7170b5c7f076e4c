//! hotlist (manual written later)
#![forbid(unsafe_code)]

mod coin;
mod config;
mod error;
pub mod fasthash;
mod histogram;
mod hotlist;
mod index;
mod sink;
pub mod space_saving;
mod stats;
#[cfg(feature = "proptest")]
pub mod strategies;
mod valuefn;

pub use coin::{CoinSource, PcgCoins, ScriptedCoins};
pub use config::{Config, Mode, Policy, LINEAR_SCAN_MAX, MAX_CAPACITY, MAX_FACTOR, MIN_FACTOR};
pub use error::HotlistError;
pub use histogram::{Bucketing, Histogram};
pub use hotlist::{Hotlist, Step, Tuple, P_FLOOR};
pub use index::{IndexKey, IndexTable, InsnKind};
pub use sink::MemValueSink;
pub use stats::RunningStats;
pub use valuefn::{difference, Delta, ValueFn};

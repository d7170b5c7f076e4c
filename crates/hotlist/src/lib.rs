//! hotlist (manual written later)
#![forbid(unsafe_code)]

mod coin;
mod config;
mod error;
pub mod fasthash;
mod hotlist;

pub use coin::{CoinSource, PcgCoins, ScriptedCoins};
pub use config::{Config, Mode, Policy, LINEAR_SCAN_MAX, MAX_CAPACITY, MAX_FACTOR, MIN_FACTOR};
pub use error::HotlistError;
pub use hotlist::{Hotlist, Step, Tuple, P_FLOOR};

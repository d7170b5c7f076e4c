//! # strata: whole-program paths, strata and stratum layers
//! (manual written below)
#![forbid(unsafe_code)]

mod detector;
mod level;
pub mod sequitur;

pub use detector::{Config, Detector, StratumRecord};
pub use level::{Rep, SeqStats};
pub use sequitur::{GSym, GrammarStats, HotRule, Sequitur};
#[cfg(feature = "proptest")]
pub mod strategies;

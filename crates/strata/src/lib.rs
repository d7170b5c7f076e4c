//! # strata: whole-program paths, strata and stratum layers
//! (manual written below)
#![forbid(unsafe_code)]

mod detector;
pub mod isam;
mod level;
pub mod phase;
pub mod sequitur;
mod sink;

pub use detector::{Config, Detector, StratumRecord};
pub use level::{Rep, SeqStats};
pub use phase::{Phase, PhaseConfig, PhaseDetector, Signal};
pub use sequitur::{GSym, GrammarStats, HotRule, Sequitur};
pub use sink::{BlockMeta, StrataSink, WeightFn};
#[cfg(feature = "proptest")]
pub mod strategies;

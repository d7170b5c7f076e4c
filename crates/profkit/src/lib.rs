//! # profkit: whole-program profiling of RISC-V programs
//!
//! The umbrella crate: it re-exports the profiling crates under short names and provides the
//! profile that the `profkit` binary prints.
//!
//! | name | crate | what |
//! |---|---|---|
//! | [`events`] | prof-events | the event vocabulary: `Sink`, `BlockInfo`, `CodeView` |
//! | [`emu`] | isa-emu | the RV64GC emulator that runs programs and pushes events |
//! | [`bl`] | cfg-bl | CFG recovery, Ball-Larus and hierarchical path profiling |
//! | [`hashtable`] | bounded-hashtable | the table that sorts only hot entries of deep buckets |
//! | [`hotlist`] | hotlist | value hotlists kept by concise and counting samples |
//! | [`strata`] | strata | whole-program paths, strata, stratum layers, grammar, ISAM file |
//! | [`profile`] | (here) | the block profile and its text/JSON report |
//! | [`paths`] | (here, on cfg-bl) | flat and hierarchical path profiles and their report |
//!
//! ```no_run
//! use profkit::emu::{Config, Machine, linux::LinuxConfig};
//! use profkit::profile::BlockProfile;
//!
//! let elf = std::fs::read("guests/bin/sort.elf").unwrap();
//! let linux = LinuxConfig { args: vec![b"sort".to_vec()], ..LinuxConfig::default() };
//! let mut machine = Machine::linux(&elf, linux, Config::default()).unwrap();
//! let mut profile = BlockProfile::new();
//! let summary = machine.run(&mut profile);
//! println!("{} instructions, hottest block at {:#x}", summary.instret, profile.hottest()[0].info.start);
//! ```
#![forbid(unsafe_code)]

pub use bounded_hashtable as hashtable;
pub use cfg_bl as bl;
pub use hotlist;
pub use isa_emu as emu;
pub use prof_events as events;
pub use strata;

pub mod paths;
pub mod profile;
pub mod progress;

/// The names most programs need.
pub mod prelude {
    pub use isa_emu::{Config, Machine, Outcome, RunSummary};
    pub use prof_events::{BlockId, BlockInfo, CodeView, Control, Interest, Sink, SinkExt};
}

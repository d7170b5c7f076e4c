//! cfg-bl: manual (placeholder, completed below).
#![forbid(unsafe_code)]

pub mod cfg;
pub mod check;
pub mod hier;
pub mod numbering;
pub mod plan;
pub mod recover;
pub mod runtime;
pub mod sink;
pub mod structure;

#[cfg(any(test, feature = "proptest"))]
pub mod strategies;

#[cfg(test)]
mod proptests;

pub use cfg::{Block, CallSite, Cfg, EdgeKind, NodeKind};
pub use hier::{EdgeClass, Hierarchy, Level};
pub use numbering::{Dag, Numbering};
pub use plan::{HierPath, Instrumented, Mode, Op, Weights};
pub use recover::Program;
pub use runtime::{Activation, Counters};
pub use sink::{PathSink, RegionChoice, Stats};
pub use structure::{Child, Region, RegionId, RegionKind, RegionTree};

/// Errors of analysis and numbering.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is malformed.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A graph that must be acyclic has a cycle.
    #[error("cycle: {0}")]
    Cyclic(String),
    /// A path count does not fit in 128 bits.
    #[error("more than 2^128 - 1 paths")]
    Overflow,
}

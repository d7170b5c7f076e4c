//! # isa-emu: an RV64GC emulator built for profiling
//!
//! (The crate manual is written as the crate takes shape; see `docs/architecture.md`.)
#![forbid(unsafe_code)]

pub mod fpu;
pub mod insn;
pub mod memory;

pub use insn::{Insn, Op};
pub use memory::{AccessKind, MemFault, Memory};

//! # profkit: whole-program profiling of RISC-V programs
#![forbid(unsafe_code)]

pub use isa_emu as emu;
pub use prof_events as events;

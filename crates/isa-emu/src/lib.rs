//! # isa-emu: an RV64GC emulator built for profiling
//!
//! (The crate manual is written as the crate takes shape; see `docs/architecture.md`.)
#![forbid(unsafe_code)]

pub mod bare;
mod block;
pub mod cpu;
pub mod decode;
pub mod disasm;
pub mod elf;
mod error;
mod exec;
pub mod fpu;
pub mod insn;
pub mod linux;
mod machine;
pub mod memory;

pub use bare::{Bare, BareConfig};
pub use cpu::{Cpu, Mode};
pub use decode::{decode, insn_len};
pub use disasm::{disasm, disasm_at};
pub use elf::{ElfError, ElfImage};
pub use error::Error;
pub use exec::Trap;
pub use insn::{Insn, Op};
pub use linux::{Linux, LinuxConfig, LinuxError, SyscallOutcome};
pub use machine::{Config, Fault, Machine, Outcome, RunSummary};
pub use memory::{AccessKind, MemFault, Memory};

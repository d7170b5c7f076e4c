//! # isa-emu: an RV64GC emulator built for profiling
//!
//! (The crate manual is written as the crate takes shape; see `docs/architecture.md`.)
#![forbid(unsafe_code)]

pub mod decode;
pub mod disasm;
pub mod elf;
pub mod insn;
pub mod linux;
pub mod memory;

pub use decode::{decode, insn_len};
pub use disasm::{disasm, disasm_at};
pub use elf::{ElfError, ElfImage};
pub use insn::{Insn, Op};
pub use linux::{Linux, LinuxConfig, LinuxError, SyscallOutcome};
pub use memory::{AccessKind, MemFault, Memory};

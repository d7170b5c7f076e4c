//! # isa-emu: an RV64GC emulator built for profiling
//!
//! isa-emu runs real, statically linked RISC-V programs (RV64IMAFDC + Zicsr + Zifencei) and
//! pushes what they do into a [`prof_events::Sink`]. It is the engine under profkit, and it is
//! built for that job: blocks are decoded once, the sink is asked once per block which events
//! it wants, and nothing else is paid at run time.
//!
//! ## Should I use it?
//!
//! Use it to profile or trace RISC-V programs deterministically from Rust: path profiles,
//! memory traces, value profiles, instruction counts. It is bit-exact against qemu-riscv64
//! (integer, atomics, IEEE-754 in every rounding mode with fflags) and runs glibc, musl,
//! newlib and picolibc static binaries, plus bare-metal machine-mode programs that use HTIF.
//! It is not a system emulator: there is no MMU, no supervisor mode, no devices, no
//! interrupts, no threads or signals delivered to the guest.
//!
//! ## Example
//!
//! ```
//! use isa_emu::linux::{LinuxConfig, Output};
//! use isa_emu::{Config, Machine, Outcome};
//! use prof_events::{BlockId, BlockInfo, Control, Interest, Sink};
//!
//! /// Counts executed blocks.
//! #[derive(Default)]
//! struct Blocks(u64);
//! impl Sink for Blocks {
//!     fn interest(&mut self, _: &BlockInfo) -> Interest { Interest::BLOCK }
//!     fn block(&mut self, _: BlockId, _: u64) -> Control { self.0 += 1; Control::Continue }
//! }
//!
//! // A tiny static program that writes "hello\n" and exits with status 7.
//! let elf = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny.elf"));
//! let linux = LinuxConfig {
//!     args: vec![b"tiny".to_vec()],
//!     stdout: Output::Capture,
//!     ..LinuxConfig::default()
//! };
//! let mut machine = Machine::linux(elf, linux, Config::default())?;
//! let mut blocks = Blocks::default();
//! let summary = machine.run(&mut blocks);
//! assert_eq!(summary.outcome, Outcome::Exited(7));
//! assert_eq!(machine.linux_env().unwrap().stdout_captured(), b"hello\n");
//! assert!(blocks.0 >= 3);
//! # Ok::<(), isa_emu::Error>(())
//! ```
//!
//! ## Features
//!
//! - `proptest`: strategies for legal RV64GC encodings and straight-line code
//!   (`isa_emu::strategies`).
//!
//! ## How it works
//!
//! - [`ElfImage`] reads the program with the `object` crate; [`Memory`] is one flat,
//!   bounds-checked span whose size is the memory cap.
//! - The [`Machine`] translates code into blocks ([`decode()`] once per instruction; compressed
//!   instructions expand), asks the sink's [`interest`](prof_events::Sink::interest) once per
//!   block, and runs blocks from a cache found through a two-level table by pc (allocated
//!   per page of code that actually runs), chaining each block to its last successors. The run
//!   loop is generic over the sink, and memory hooks exist only in the instance of the block
//!   executor that blocks asking for them use.
//! - With [`Config::jit`] (x86-64 Linux hosts), blocks are compiled to host code that runs
//!   the integer instructions and floating-point loads and stores, calls the interpreter's
//!   code for floating-point computations and CSRs, and bails out to the interpreter
//!   before anything else; in runs
//!   without sinks it chains superblock to superblock, and with sinks that watch blocks the
//!   run loop delivers the events around each block's or event superblock's code (blocks
//!   with memory events stay interpreted); the results are the interpreter's (tests
//!   compare them on random blocks and on every guest, and `cargo xtask difftest` against
//!   qemu). This is the crate's only unsafe code.
//! - [`Config::single_step`] re-decodes every instruction every time; it produces the same event
//!   stream as the cached mode (a test checks it on every bundled guest).
//! - Environments: [`linux`] (system calls, initial stack, sandboxed host files, virtual time
//!   and seeded randomness) and [`bare`] (machine-mode traps, `mret`, HTIF `tohost`).
//! - A run never panics on guest behaviour: it ends with an [`Outcome`] (exit status, a
//!   [`Fault`] with pc and cause, fuel exhausted, stopped by a sink).
//! - Determinism: the same ELF, arguments, configuration and seed give the same instruction
//!   count and the same events, byte for byte.
//!
//! ## Semantics chosen where the specification leaves room
//!
//! - `sc` succeeds if the reserved address still holds the value `lr` read (as qemu does).
//! - Misaligned loads and stores succeed (as under Linux); misaligned atomics fault.
//! - `cycle`, `time` and `instret` all count retired instructions. Instructions that complete
//!   by trapping into the environment (`ecall`, `ebreak` on bare metal, `fence.i`) count;
//!   faulting ones do not.
//! - A conditional branch whose target is the next instruction reports its edge as not taken.
//! - Stores into code are noticed at the next block boundary (RISC-V requires `fence.i` anyway);
//!   both flush every translated block.
// Unsafe code is confined to `jit::code` (the executable buffer of compiled blocks).
#![deny(unsafe_code)]

pub mod bare;
pub mod block;
mod code_pointers;
pub mod cpu;
pub mod decode;
pub mod disasm;
pub mod elf;
mod error;
mod exec;
pub mod fpu;
pub mod insn;
mod jit;
mod jump_table;
pub mod linux;
mod machine;
pub mod memory;
#[cfg(feature = "proptest")]
pub mod strategies;
mod threaded;
mod xlat;

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

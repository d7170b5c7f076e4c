//! Compiled blocks: the superblocks of runs without sinks, compiled to x86-64 code.
//!
//! In superblock mode (no sink watches anything, see [`block`](crate::block)) every block
//! whose first instruction the compiler knows is also compiled ([`compile`]) when it is
//! translated, and the run loop calls its code instead of the threaded interpreter. The code
//! computes exactly what the interpreter does: it runs the integer instructions (RV64I and
//! most of M) and bails out before anything else (floating point, atomics, divisions, system
//! instructions, and any load or store that might fault or touch code), after which the
//! threaded interpreter runs the block's rest from that instruction. The block's
//! [`Tinsn`]s, `Meta` and exits stay those of the interpreter, so side exits, chaining,
//! instruction counts and traps are unchanged.
//!
//! The x86-64 encodings are in [`x86`] and the block compiler in [`compile`], both safe
//! code; the executable buffer and the call into it are the crate's only unsafe code
//! ([`code`]). On other hosts, or if the host refuses executable memory, nothing is compiled.

mod code;
mod compile;
mod x86;

#[cfg(test)]
mod tests;

use crate::memory::Memory;
use crate::xlat::Tinsn;

pub(crate) use compile::status;

/// What compiled code reads of guest memory (rsi points to it): see [`compile`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemCtx {
    /// Host address of the span's first byte.
    host: *mut u8,
    /// Guest address of the span's first byte.
    base: u64,
    /// The span's length less 8: an access at a larger offset may leave it.
    limit: u64,
    /// The lowest address a store may start at and still touch code (7 below it).
    code_lo: u64,
    /// Stores at `code_lo + [0, code_span)` may touch code.
    code_span: u64,
}

impl MemCtx {
    const HOST: usize = 0;
    const BASE: usize = 8;
    const LIMIT: usize = 16;
    const CODE_LO: usize = 24;
    const CODE_SPAN: usize = 32;

    /// The context of `mem`, if its span holds at least 8 bytes (every compiled access
    /// checks room for 8).
    #[inline(always)]
    pub fn new(mem: &mut Memory) -> Option<MemCtx> {
        let (base, len) = (mem.base(), mem.end() - mem.base());
        let (lo, hi) = mem.code_range();
        let code_lo = lo.saturating_sub(7);
        Some(MemCtx {
            host: mem.host_ptr(),
            base,
            limit: len.checked_sub(8)?,
            code_lo,
            code_span: if hi > lo { hi - code_lo } else { 0 },
        })
    }
}

/// How a call of compiled code ended: the next pc and the [`status`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CodeExit {
    pub pc: u64,
    pub status: u64,
}

/// The compiled code of a block cache's blocks.
pub(crate) struct Jit {
    code: code::CodeBuf,
    asm: x86::Asm,
}

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jit")
            .field("bytes", &self.code.len())
            .finish()
    }
}

/// Bytes of address space reserved for compiled code (the host provides pages as they are
/// written); when it is full, later blocks are interpreted until the cache is flushed.
const CODE_BYTES: usize = 64 << 20;

impl Jit {
    /// A compiler with an empty code buffer, if this host can run compiled blocks.
    pub fn new() -> Option<Jit> {
        Some(Jit {
            code: code::CodeBuf::new(CODE_BYTES)?,
            asm: x86::Asm::default(),
        })
    }

    /// Compiles the translated block `insns` (arena index of its first instruction `first`,
    /// fall-through `end`). Returns its entry, or `None` if it is not worth compiling or
    /// the buffer is full.
    pub fn compile(&mut self, insns: &[Tinsn], first: usize, end: u64) -> Option<u32> {
        self.asm.code.clear();
        if !compile::compile(&mut self.asm, insns, first, end) {
            return None;
        }
        self.code.append(&self.asm.code)
    }

    /// Forgets all compiled code (the block cache was flushed).
    pub fn clear(&mut self) {
        self.code.clear();
    }

    /// Bytes of compiled code.
    pub fn bytes(&self) -> usize {
        self.code.len()
    }

    /// Runs the compiled block `entry` on the registers `x` and the memory `mem`; `None`
    /// if it cannot run (see [`code::CodeBuf::call`]).
    #[inline(always)]
    pub fn run(&self, entry: u32, x: &mut [u64; 256], mem: &mut Memory) -> Option<CodeExit> {
        self.code.call(entry, x, mem)
    }
}

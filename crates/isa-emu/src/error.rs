//! The crate's error type: everything that can stop a program from being loaded.
//! (Once running, a guest ends with an [`Outcome`](crate::Outcome), never an error.)

use crate::elf::ElfError;
use crate::linux::LinuxError;

/// Why a program could not be loaded or started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The ELF file cannot be run.
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// The Linux environment could not be set up (arguments too large for the stack, ...).
    #[error(transparent)]
    Linux(#[from] LinuxError),
    /// The program does not fit in the configured guest memory.
    #[error("the program needs {needed:#x} bytes of address space but guest memory is limited to {limit:#x} bytes; raise the memory limit")]
    MemoryTooSmall {
        /// Bytes the program's segments span.
        needed: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The guest memory span cannot be had: it wraps around the address space or the host
    /// refused the allocation.
    #[error("cannot allocate {} MiB of guest memory: {reason}", .size.div_ceil(1 << 20))]
    GuestMemory {
        /// The span's size in bytes.
        size: u64,
        /// Why not.
        reason: &'static str,
    },
    /// The perf map asked for ([`Config::perf_map`](crate::Config)) cannot be opened.
    #[error("cannot open the perf map {}: {reason}", .path.display())]
    PerfMap {
        /// Its path.
        path: std::path::PathBuf,
        /// Why not.
        reason: String,
    },
    /// A bare-metal program has no `tohost` symbol, so it could never report its exit.
    #[error("this bare-metal ELF has no `tohost` symbol: bare-metal programs must exit through HTIF (see the isa-emu docs)")]
    NoTohost,
}

//! A perf map of the compiled code: a line `START SIZE NAME` (start and size in
//! hexadecimal) for each stretch of each compiled block, the format in which `perf report`
//! reads the names of code that no file backs from `/tmp/perf-PID.map`. A name gives the
//! guest pc where the block starts, whether it is a block or an event superblock, and what
//! the stretch does ([`Section`]): `isa-emu 0x10a3c block body`, `isa-emu 0x10a3c event
//! superblock probe return`. So a profile of the emulator tells the guest's code, the
//! probes run for a sink and the emulator's own glue (exits, logs, indirect jumps) apart.
//!
//! A flush of the block cache reuses the buffer's addresses, and perf keeps one name per
//! address: in a run that flushed ([`RunSummary::cache_flushes`](crate::RunSummary)),
//! code compiled after the flush may carry an earlier block's name.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::compile::Section;

/// An open perf map, written as blocks are compiled.
pub(crate) struct PerfMap {
    path: PathBuf,
    /// `None` once a write failed (reported once on stderr; later blocks are not mapped).
    out: Option<BufWriter<File>>,
}

impl PerfMap {
    /// Opens `path` to append to (creating it).
    pub fn open(path: &Path) -> io::Result<PerfMap> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(PerfMap {
            path: path.to_path_buf(),
            out: Some(BufWriter::new(file)),
        })
    }

    /// Maps the `len` bytes of code at host address `start`, compiled for the block (or
    /// event superblock, with `superblock`; with no probes run, `unprobed`: see
    /// [`Source::unprobed`](super::Source)) at guest `pc`, whose `sections` start at the
    /// offsets given (in order, the first at 0).
    pub fn add(
        &mut self,
        start: usize,
        len: usize,
        pc: u64,
        (superblock, unprobed): (bool, bool),
        sections: &[(u32, Section)],
    ) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let kind = match (superblock, unprobed) {
            (true, false) => "event superblock",
            (true, true) => "unprobed event superblock",
            (false, false) => "block",
            (false, true) => "unprobed block",
        };
        let ends = sections.iter().skip(1).map(|s| s.0 as usize).chain([len]);
        let written = sections
            .iter()
            .zip(ends)
            .try_for_each(|(&(at, what), end)| {
                let (at, size) = (at as usize, end.saturating_sub(at as usize));
                if size == 0 {
                    return Ok(());
                }
                writeln!(
                    out,
                    "{:x} {size:x} isa-emu {pc:#x} {kind} {what}",
                    start + at
                )
            });
        if let Err(e) = written {
            self.failed(&e);
        }
    }

    /// Reports a failed write once and stops writing.
    fn failed(&mut self, e: &io::Error) {
        eprintln!(
            "isa-emu: cannot write the perf map {}: {e}; code compiled from now on is not in it",
            self.path.display()
        );
        self.out = None;
    }
}

impl Drop for PerfMap {
    fn drop(&mut self) {
        if let Some(Err(e)) = self.out.as_mut().map(Write::flush) {
            self.failed(&e);
        }
    }
}

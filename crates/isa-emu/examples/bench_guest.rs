//! Runs one Linux guest under a chosen sink, for `cargo xtask bench`: the guest's stdout and
//! stderr pass through, and the last line on stderr is `instret N` (instructions retired).
//!
//! `bench_guest none|edges|mem FILE [ARGS...]`
//!
//! - `none`: no sink (`()`), what `profkit run --no-profile` does;
//! - `edges`: a sink that counts every block entry and every control-flow edge;
//! - `mem`: a sink that receives every memory access with its value (and folds them into a
//!   checksum so the work cannot be optimised away).

use std::collections::HashMap;
use std::process::ExitCode;

use isa_emu::linux::LinuxConfig;
use isa_emu::{Config, Machine};
use prof_events::{BlockId, BlockInfo, Control, Edge, Interest, MemAccess, Sink};

/// Counts per block, and per (block, successor) edge: each block's first two successors
/// have their own counters, any further ones go to a map.
#[derive(Default)]
struct EdgeCounter {
    blocks: Vec<u64>,
    edges: Vec<[(u64, u64); 2]>,
    other: HashMap<(u32, u64), u64>,
}

impl Sink for EdgeCounter {
    fn wants(&mut self) -> Interest {
        Interest::BLOCK | Interest::EDGE
    }

    fn interest(&mut self, _: &BlockInfo) -> Interest {
        Interest::BLOCK | Interest::EDGE
    }

    fn block(&mut self, id: BlockId, _pc: u64) -> Control {
        let i = id.0 as usize;
        if i >= self.blocks.len() {
            self.blocks.resize(i + 1, 0);
            self.edges.resize(i + 1, [(u64::MAX, 0); 2]);
        }
        self.blocks[i] += 1;
        Control::Continue
    }

    fn edge(&mut self, e: &Edge) -> Control {
        let i = e.from.0 as usize;
        if i >= self.edges.len() {
            self.blocks.resize(i + 1, 0);
            self.edges.resize(i + 1, [(u64::MAX, 0); 2]);
        }
        let slots = &mut self.edges[i];
        if let Some(s) = slots.iter_mut().find(|s| s.0 == e.to || s.0 == u64::MAX) {
            s.0 = e.to;
            s.1 += 1;
        } else {
            *self.other.entry((e.from.0, e.to)).or_insert(0) += 1;
        }
        Control::Continue
    }
}

/// Receives every memory access with its value.
#[derive(Default)]
struct MemChecksum {
    accesses: u64,
    sum: u64,
}

impl Sink for MemChecksum {
    fn wants(&mut self) -> Interest {
        Interest::MEM_VALUES
    }

    fn interest(&mut self, _: &BlockInfo) -> Interest {
        Interest::MEM_VALUES
    }

    fn mem(&mut self, a: &MemAccess) -> Control {
        self.accesses += 1;
        self.sum = self
            .sum
            .rotate_left(5)
            .wrapping_add(a.addr ^ a.value ^ u64::from(a.size));
        Control::Continue
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mode), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: bench_guest none|edges|mem FILE [ARGS...]");
        return ExitCode::from(2);
    };
    let elf = match std::fs::read(path) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let linux = LinuxConfig {
        args: args[1..].iter().map(|a| a.as_bytes().to_vec()).collect(),
        ..LinuxConfig::default()
    };
    let mut m = match Machine::linux(&elf, linux, Config::default()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let summary = match mode.as_str() {
        "none" => m.run(&mut ()),
        "edges" => {
            let mut s = EdgeCounter::default();
            let r = m.run(&mut s);
            let edges: u64 =
                s.edges.iter().flatten().map(|e| e.1).sum::<u64>() + s.other.values().sum::<u64>();
            eprintln!("blocks {} edges {edges}", s.blocks.iter().sum::<u64>());
            r
        }
        "mem" => {
            let mut s = MemChecksum::default();
            let r = m.run(&mut s);
            eprintln!("accesses {} checksum {:#x}", s.accesses, s.sum);
            r
        }
        other => {
            eprintln!("unknown mode `{other}` (none, edges, mem)");
            return ExitCode::from(2);
        }
    };
    eprintln!("instret {}", summary.instret);
    ExitCode::from(summary.outcome.exit_code().clamp(0, 255) as u8)
}

//! Runs one Linux guest under a chosen sink, for `cargo xtask bench`: the guest's stdout and
//! stderr pass through, and the last line on stderr is `instret N` (instructions retired).
//!
//! `bench_guest none|interpret|edges|edges-each|mem|plain|empty-events FILE [ARGS...]`
//!
//! - `none`: no sink (`()`), what `profkit run --no-profile` does (compiled superblocks);
//! - `interpret`: no sink, with compiled code turned off ([`Config::jit`] `false`): the
//!   threaded interpreter alone;
//! - `edges`: a sink that counts every block entry and every control-flow edge (exactly:
//!   it counts the runs of each trace, an event superblock, and adds them to its parts'
//!   counters at the end; `edges-each` counts every block and edge event one by one);
//! - `mem`: a sink that receives every memory access with its value (and folds them into a
//!   checksum so the work cannot be optimised away).
//!
//! Two more modes split the cost of `edges` from that of `none`: `plain`, a sink that
//! watches blocks, may stop and wants no event of any (plain blocks, as for every such sink,
//! instead of superblocks or event superblocks, and no events), and `empty-events`, every
//! block and edge event of plain blocks delivered to a sink that does nothing with them.

use std::collections::HashMap;
use std::process::ExitCode;

use isa_emu::linux::LinuxConfig;
use isa_emu::{Config, Machine};
use prof_events::{
    part_counts, BlockId, BlockInfo, Control, Edge, EdgeKind, Exit, Interest, MemAccess, Sink,
    TraceId, TracePart,
};

/// Counts per block, and per (block, successor) edge. Each block has two exit counters:
/// for a block ending in a branch, jump or call, its sequential exit and its direct
/// target, picked by the edge's kind; for one ending in a return or an indirect jump, its
/// first two targets, found by address, with any further ones counted in a map.
///
/// The counters grow in `interest`, called once per translated block, so that `block`
/// and `edge`, called on every execution, only index and add. With `traces`, it takes
/// every trace, counts its runs by length, and adds them to the parts' counters at the exit.
#[derive(Default)]
struct EdgeCounter {
    blocks: Vec<u64>,
    /// Per block: two exits as (count, target address; `u64::MAX` while unused).
    exits: Vec<[(u64, u64); 2]>,
    /// Targets of indirect exits beyond a block's first two.
    more: HashMap<(u32, u64), u64>,
    traces: bool,
    /// Per trace: its parts, and its runs through the first 1, 2, ... parts.
    runs: Vec<(Box<[TracePart]>, Vec<u64>)>,
}

impl EdgeCounter {
    fn edges(&self) -> u64 {
        self.exits.iter().flatten().map(|x| x.0).sum::<u64>() + self.more.values().sum::<u64>()
    }

    /// Counts `n` runs along edge `e`.
    #[inline(always)]
    fn count_edge(&mut self, e: &Edge, n: u64) {
        let Some(x) = self.exits.get_mut(e.from.index()) else {
            return;
        };
        let exit = match e.kind {
            EdgeKind::NotTaken | EdgeKind::FallThrough => &mut x[0],
            EdgeKind::Taken | EdgeKind::Jump | EdgeKind::Call => &mut x[1],
            EdgeKind::Return | EdgeKind::IndirectJump | EdgeKind::IndirectCall => {
                match x.iter_mut().find(|s| s.1 == e.to || s.1 == u64::MAX) {
                    Some(s) => s,
                    None => {
                        *self.more.entry((e.from.0, e.to)).or_insert(0) += n;
                        return;
                    }
                }
            }
        };
        *exit = (exit.0 + n, e.to);
    }

    /// Adds the runs of every trace to its parts' counters.
    fn settle(&mut self) {
        for (parts, runs) in std::mem::take(&mut self.runs) {
            for (p, (blocks, edges)) in parts.iter().zip(part_counts(&runs)) {
                if p.interest.contains(Interest::BLOCK) {
                    self.blocks[p.block.index()] += blocks;
                }
                if p.interest.contains(Interest::EDGE) && edges > 0 {
                    self.count_edge(&p.edge, edges);
                }
            }
        }
    }
}

impl Sink for EdgeCounter {
    fn wants(&mut self) -> Interest {
        Interest::BLOCK | Interest::EDGE
    }

    /// It only counts, so the emulator may run it on event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, info: &BlockInfo) -> Interest {
        let i = info.id.index();
        if i >= self.blocks.len() {
            self.blocks.resize(i + 1, 0);
            self.exits.resize(i + 1, [(0, u64::MAX); 2]);
        }
        Interest::BLOCK | Interest::EDGE
    }

    #[inline(always)]
    fn block(&mut self, id: BlockId, _pc: u64) -> Control {
        if let Some(n) = self.blocks.get_mut(id.index()) {
            *n += 1;
        }
        Control::Continue
    }

    #[inline(always)]
    fn edge(&mut self, e: &Edge) -> Control {
        self.count_edge(e, 1);
        Control::Continue
    }

    fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
        if self.traces {
            if self.runs.len() <= id.index() {
                self.runs.resize_with(id.index() + 1, Default::default);
            }
            self.runs[id.index()] = (parts.into(), vec![0; parts.len()]);
        }
        self.traces
    }

    #[inline(always)]
    fn trace(&mut self, id: TraceId, n: u32) -> Control {
        if let Some(r) = self.runs.get_mut(id.index()) {
            r.1[n as usize - 1] += 1;
        }
        Control::Continue
    }

    fn exit(&mut self, _: &Exit) {
        self.settle();
    }
}

/// Watches blocks and may stop (so the cache forms plain blocks, neither superblocks nor
/// event superblocks) and, with `EVENTS`, receives every block and edge event and does
/// nothing with them; without, wants none.
struct Watching<const EVENTS: bool>;

impl<const EVENTS: bool> Sink for Watching<EVENTS> {
    fn wants(&mut self) -> Interest {
        Interest::BLOCK | Interest::EDGE
    }

    fn interest(&mut self, _: &BlockInfo) -> Interest {
        if EVENTS {
            Interest::BLOCK | Interest::EDGE
        } else {
            Interest::NONE
        }
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
        eprintln!(
            "usage: bench_guest none|interpret|edges|edges-each|mem|plain|empty-events FILE [ARGS...]"
        );
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
    let config = Config {
        jit: mode != "interpret",
        ..Config::default()
    };
    let mut m = match Machine::linux(&elf, linux, config) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let summary = match mode.as_str() {
        "none" | "interpret" => m.run(&mut ()),
        "edges" | "edges-each" => {
            let mut s = EdgeCounter {
                traces: mode == "edges",
                ..EdgeCounter::default()
            };
            let r = m.run(&mut s);
            let blocks: u64 = s.blocks.iter().sum();
            eprintln!("blocks {blocks} edges {}", s.edges());
            r
        }
        "plain" => m.run(&mut Watching::<false>),
        "empty-events" => m.run(&mut Watching::<true>),
        "mem" => {
            let mut s = MemChecksum::default();
            let r = m.run(&mut s);
            eprintln!("accesses {} checksum {:#x}", s.accesses, s.sum);
            r
        }
        other => {
            eprintln!(
                "unknown mode `{other}` (none, interpret, edges, edges-each, mem, plain, empty-events)"
            );
            return ExitCode::from(2);
        }
    };
    eprintln!("instret {}", summary.instret);
    ExitCode::from(summary.outcome.exit_code().clamp(0, 255) as u8)
}

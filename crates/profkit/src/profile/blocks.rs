//! The first profile: how often each block ran, which system calls the guest made.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use prof_events::{
    part_counts, BlockId, BlockInfo, CodeView, Control, Exit, Interest, Sink, Syscall, TraceId,
    TracePart,
};

/// A sink that counts block executions and system calls. It takes traces: a run of a trace
/// is one count, added to its blocks' counts when the run ends.
#[derive(Clone, Debug, Default)]
pub struct BlockProfile {
    blocks: Vec<BlockInfo>,
    counts: Vec<u64>,
    syscalls: BTreeMap<u64, u64>,
    /// Per trace: its blocks, and its runs through the first 1, 2, ... of them.
    traces: Vec<(Box<[BlockId]>, Vec<u64>)>,
}

/// One row of the hottest-blocks table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HotBlock {
    /// The block as translated.
    pub info: BlockInfo,
    /// Times it ran.
    pub executions: u64,
    /// Instructions it retired (executions x length; a block cut short by a fault or the
    /// fuel limit is counted whole).
    pub instructions: u64,
}

impl BlockProfile {
    /// An empty profile.
    pub fn new() -> Self {
        Self::default()
    }

    /// Blocks by instructions executed, hottest first; ties broken by address so the order
    /// is deterministic.
    pub fn hottest(&self) -> Vec<HotBlock> {
        let mut rows: Vec<HotBlock> = self
            .blocks
            .iter()
            .zip(&self.counts)
            .filter(|(_, &n)| n > 0)
            .map(|(info, &n)| HotBlock {
                info: *info,
                executions: n,
                instructions: n * u64::from(info.insns),
            })
            .collect();
        rows.sort_by(|a, b| {
            b.instructions
                .cmp(&a.instructions)
                .then(a.info.start.cmp(&b.info.start))
        });
        rows
    }

    /// Distinct blocks that ran at least once.
    pub fn blocks_executed(&self) -> usize {
        self.counts.iter().filter(|&&n| n > 0).count()
    }

    /// System call numbers and how often each was made.
    pub fn syscalls(&self) -> &BTreeMap<u64, u64> {
        &self.syscalls
    }
}

impl Sink for BlockProfile {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn wants(&mut self) -> Interest {
        Interest::SYSCALL | Interest::EXIT
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        let i = block.id.index();
        if self.blocks.len() <= i {
            self.blocks.resize(i + 1, *block);
            self.counts.resize(i + 1, 0);
        }
        self.blocks[i] = *block;
        Interest::BLOCK
    }

    #[inline]
    fn block(&mut self, id: BlockId, _pc: u64) -> Control {
        if let Some(c) = self.counts.get_mut(id.index()) {
            *c += 1;
        }
        Control::Continue
    }

    fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
        if self.traces.len() <= id.index() {
            self.traces.resize_with(id.index() + 1, Default::default);
        }
        let blocks = parts.iter().map(|p| p.block).collect();
        self.traces[id.index()] = (blocks, vec![0; parts.len()]);
        true
    }

    #[inline]
    fn trace(&mut self, id: TraceId, n: u32) -> Control {
        if let Some(runs) = self.traces.get_mut(id.index()) {
            if let Some(c) = runs.1.get_mut(n as usize - 1) {
                *c += 1;
            }
        }
        Control::Continue
    }

    fn syscall(&mut self, call: &Syscall) -> Control {
        *self.syscalls.entry(call.number).or_insert(0) += 1;
        Control::Continue
    }

    /// Adds the runs of every trace to its blocks' counts.
    fn exit(&mut self, _: &Exit) {
        for (blocks, runs) in &mut self.traces {
            for (block, (n, _)) in blocks.iter().zip(part_counts(runs)) {
                if let Some(c) = self.counts.get_mut(block.index()) {
                    *c += n;
                }
            }
            runs.fill(0);
        }
    }
}

/// Formats `n` with thousands separators.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Renders `addr` as `symbol+0xoff` when the code view knows a symbol.
pub fn symbolize(code: &dyn CodeView, addr: u64) -> String {
    match code.symbol(addr) {
        Some((name, 0)) => format!("{addr:#x} <{name}>"),
        Some((name, off)) => format!("{addr:#x} <{name}+{off:#x}>"),
        None => format!("{addr:#x}"),
    }
}

/// The hottest-blocks table with disassembly, as text.
pub fn render_hot_blocks(
    profile: &BlockProfile,
    code: &dyn CodeView,
    total_insns: u64,
    top: usize,
) -> String {
    let mut out = String::new();
    let rows = profile.hottest();
    let _ = writeln!(out, "hottest blocks (by instructions executed):");
    let _ = writeln!(out, "  rank   share   instructions   executions  block");
    for (rank, row) in rows.iter().take(top).enumerate() {
        let share = 100.0 * row.instructions as f64 / total_insns.max(1) as f64;
        let _ = writeln!(
            out,
            "  {:>4}  {:>5.1}%  {:>13}  {:>11}  {} ({} insns)",
            rank + 1,
            share,
            thousands(row.instructions),
            thousands(row.executions),
            symbolize(code, row.info.start),
            row.info.insns
        );
        let mut pc = row.info.start;
        while pc < row.info.end {
            let Some(insn) = code.insn(pc) else { break };
            let text = code.text(pc).unwrap_or_default();
            let _ = writeln!(out, "          {pc:>8x}:  {}", text.replace('\t', " "));
            pc += u64::from(insn.len);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_events::{BlockEnd, Edge, EdgeKind, ExitReason};

    #[test]
    fn runs_of_a_trace_count_for_every_block_they_went_through() {
        let mut p = BlockProfile::new();
        for i in 0..4u32 {
            let info = BlockInfo {
                id: BlockId(i),
                start: u64::from(i) * 8,
                end: u64::from(i) * 8 + 8,
                insns: 2,
                ends_with: BlockEnd::FallThrough,
            };
            assert_eq!(p.interest(&info), Interest::BLOCK);
        }
        // Blocks 1, 2 and 3 form a trace; it runs twice through two parts, once through all.
        let part = |i: u32| TracePart {
            block: BlockId(i),
            pc: u64::from(i) * 8,
            interest: Interest::BLOCK,
            edge: Edge {
                from: BlockId(i),
                pc: u64::from(i) * 8 + 4,
                to: u64::from(i) * 8 + 8,
                kind: EdgeKind::FallThrough,
            },
        };
        assert!(p.trace_formed(TraceId(0), &[part(1), part(2), part(3)]));
        for n in [2, 2, 3] {
            assert_eq!(p.trace(TraceId(0), n), Control::Continue);
        }
        let _ = p.block(BlockId(0), 0);
        let _ = p.block(BlockId(1), 8);
        p.exit(&Exit {
            reason: ExitReason::Exited(0),
            pc: 0,
            instret: 0,
        });
        assert_eq!(p.counts, [1, 4, 3, 1]);
        assert_eq!(p.blocks_executed(), 4);
    }
}

//! The first profile: how often each block ran, which system calls the guest made.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use prof_events::{BlockId, BlockInfo, CodeView, Control, Interest, Sink, Syscall};

/// A sink that counts block executions and system calls.
#[derive(Clone, Debug, Default)]
pub struct BlockProfile {
    blocks: Vec<BlockInfo>,
    counts: Vec<u64>,
    syscalls: BTreeMap<u64, u64>,
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

    fn syscall(&mut self, call: &Syscall) -> Control {
        *self.syscalls.entry(call.number).or_insert(0) += 1;
        Control::Continue
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

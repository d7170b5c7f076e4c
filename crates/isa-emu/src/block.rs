//! Translation of guest code into pre-decoded basic blocks, and the block cache.
//!
//! A block is decoded once; its instructions live in one arena (`insns`), so running a block
//! is a walk over a slice. Blocks are found by a dense table indexed by `(pc - base) / 2`
//! over the executable segments (no hashing on the hot path); code outside them (rare: code
//! copied to the heap) goes through a hash map. Each block remembers the last successor it
//! jumped to on each of its two exits, so chained blocks skip even the table lookup.

use std::collections::HashMap;

use prof_events::{BlockEnd, BlockId, BlockInfo, FlowClass, Interest, Sink};

use crate::decode::decode;
use crate::exec::writes_xreg;
use crate::insn::Insn;
use crate::memory::{MemFault, Memory};

/// "No block" in the index and chain slots.
const NONE: u32 = u32::MAX;

/// One translated block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    pub start: u64,
    pub end: u64,
    /// First instruction in the arena.
    pub first: u32,
    /// Number of instructions.
    pub count: u32,
    pub interest: Interest,
    pub ends_with: BlockEnd,
    /// Chain: the last successor seen on the fall-through (0) and other (1) exits,
    /// as (pc, slot).
    pub chain: [(u64, u32); 2],
}

impl Block {
    pub fn info(&self, id: BlockId) -> BlockInfo {
        BlockInfo {
            id,
            start: self.start,
            end: self.end,
            insns: self.count,
            ends_with: self.ends_with,
        }
    }
}

/// Fetches and decodes the instruction at `pc`, with x0 destinations redirected to the
/// scratch register slot (see [`Cpu::x`](crate::cpu::Cpu::x)).
pub(crate) fn fetch_decode(mem: &Memory, pc: u64) -> Result<Insn, MemFault> {
    let low = mem.fetch_u16(pc)?;
    let raw = if low & 3 == 3 {
        u32::from(low) | u32::from(mem.fetch_u16(pc.wrapping_add(2))?) << 16
    } else {
        u32::from(low)
    };
    let mut insn = decode(raw);
    if insn.rd == 0 && writes_xreg(insn.op) {
        insn.rd = 32;
    }
    Ok(insn)
}

/// Decodes the block starting at `pc` into `out` (cleared first). Fails only if the first
/// instruction cannot be fetched; a fetch failure later ends the block before it.
pub(crate) fn scan_block(
    mem: &Memory,
    pc: u64,
    max_insns: u32,
    out: &mut Vec<Insn>,
) -> Result<(u64, BlockEnd), MemFault> {
    out.clear();
    let mut p = pc;
    loop {
        let insn = match fetch_decode(mem, p) {
            Ok(i) => i,
            Err(e) if out.is_empty() => return Err(e),
            Err(_) => return Ok((p, BlockEnd::FallThrough)),
        };
        out.push(insn);
        let at = p;
        p = p.wrapping_add(u64::from(insn.len));
        if insn.ends_block() {
            let end = match insn.flow(at) {
                FlowClass::Branch { target } => BlockEnd::Branch { target },
                FlowClass::Jump { .. } => BlockEnd::Jump,
                FlowClass::Call { .. } => BlockEnd::Call,
                FlowClass::Return => BlockEnd::Return,
                FlowClass::IndirectJump => BlockEnd::IndirectJump,
                FlowClass::IndirectCall => BlockEnd::IndirectCall,
                FlowClass::Syscall => BlockEnd::Syscall,
                FlowClass::None | FlowClass::Halt => BlockEnd::FallThrough,
            };
            return Ok((p, end));
        }
        if out.len() as u32 >= max_insns {
            return Ok((p, BlockEnd::FallThrough));
        }
    }
}

/// The block cache.
pub(crate) struct BlockCache {
    pub blocks: Vec<Block>,
    pub insns: Vec<Insn>,
    /// Id of `blocks[0]`: ids keep counting across flushes so they stay unique in a run.
    pub id_base: u32,
    /// Keep decoded instructions (`false` in single-step mode, which re-decodes every
    /// instruction each time it runs, but still forms the same blocks).
    keep_insns: bool,
    max_insns: u32,
    index_base: u64,
    index: Vec<u32>,
    overflow: HashMap<u64, u32>,
    scratch: Vec<Insn>,
    /// Blocks translated since the run began (all flushes included).
    pub translated: u64,
    /// Times the cache was flushed.
    pub flushes: u64,
}

impl BlockCache {
    /// A cache whose dense index covers `[lo, hi)` (the executable segments).
    pub fn new(lo: u64, hi: u64, max_insns: u32, keep_insns: bool) -> BlockCache {
        let span = usize::try_from(hi.saturating_sub(lo) / 2 + 1).unwrap_or(0);
        BlockCache {
            blocks: Vec::new(),
            insns: Vec::new(),
            id_base: 0,
            keep_insns,
            max_insns: max_insns.max(1),
            index_base: lo,
            index: vec![NONE; span],
            overflow: HashMap::new(),
            scratch: Vec::new(),
            translated: 0,
            flushes: 0,
        }
    }

    /// The slot of the block starting at `pc`, if translated.
    #[inline(always)]
    pub fn lookup(&self, pc: u64) -> Option<u32> {
        let off = pc.wrapping_sub(self.index_base) >> 1;
        match self.index.get(off as usize) {
            Some(&NONE) => None,
            Some(&slot) => Some(slot),
            None => self.overflow.get(&pc).copied(),
        }
    }

    /// Translates the block at `pc`, asks `sink` for its interest, and returns its slot.
    pub fn translate<S: Sink + ?Sized>(
        &mut self,
        mem: &Memory,
        pc: u64,
        sink: &mut S,
    ) -> Result<u32, MemFault> {
        let (end, ends_with) = scan_block(mem, pc, self.max_insns, &mut self.scratch)?;
        let slot = self.blocks.len() as u32;
        let first = self.insns.len() as u32;
        if self.keep_insns {
            self.insns.extend_from_slice(&self.scratch);
        }
        let mut block = Block {
            start: pc,
            end,
            first,
            count: self.scratch.len() as u32,
            interest: Interest::NONE,
            ends_with,
            chain: [(0, NONE); 2],
        };
        block.interest =
            sink.interest(&block.info(BlockId(self.id_base + slot))) & Interest::ALL_BLOCK;
        self.blocks.push(block);
        let off = pc.wrapping_sub(self.index_base) >> 1;
        match self.index.get_mut(off as usize) {
            Some(e) => *e = slot,
            None => {
                self.overflow.insert(pc, slot);
            }
        }
        self.translated += 1;
        Ok(slot)
    }

    /// Discards every translated block (after `fence.i` or a store into code).
    pub fn flush(&mut self) {
        self.id_base += self.blocks.len() as u32;
        self.blocks.clear();
        self.insns.clear();
        self.index.fill(NONE);
        self.overflow.clear();
        self.flushes += 1;
    }

    /// The decoded instructions of `slot` (empty in single-step mode).
    #[inline(always)]
    pub fn insns(&self, block: &Block) -> &[Insn] {
        let first = block.first as usize;
        if self.keep_insns {
            &self.insns[first..first + block.count as usize]
        } else {
            &[]
        }
    }

    /// Follows or records the chain from `from` to the block at `pc`.
    #[inline(always)]
    pub fn chained(&self, from: u32, exit: usize, pc: u64) -> Option<u32> {
        let (cpc, slot) = self.blocks[from as usize].chain[exit];
        (slot != NONE && cpc == pc).then_some(slot)
    }

    #[inline(always)]
    pub fn set_chain(&mut self, from: u32, exit: usize, pc: u64, to: u32) {
        self.blocks[from as usize].chain[exit] = (pc, to);
    }

    /// Bytes held by the cache (for the memory column of benchmarks).
    pub fn footprint(&self) -> usize {
        self.blocks.capacity() * size_of::<Block>()
            + self.insns.capacity() * size_of::<Insn>()
            + self.index.capacity() * size_of::<u32>()
            + self.overflow.capacity() * (size_of::<u64>() + size_of::<u32>())
    }
}

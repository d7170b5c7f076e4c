//! Translation of guest code into pre-decoded basic blocks, and the block cache.
//!
//! A block is decoded once and translated (the private `xlat` module); its translated
//! instructions live in one arena (`insns`), so running a block is a walk over a slice.
//! Blocks are found through a [`PcIndex`]: a two-level table over the executable segments
//! whose second-level pages are allocated only where code runs (no hashing on the hot path,
//! memory proportional to the code executed); code outside them (rare: code copied to the
//! heap) goes through a hash map. Each block links to its successor on each exit whose
//! target is fixed (the fall-through, a direct branch, jump or call), so chained blocks skip
//! even the table lookup; indirect jumps look their target up each time.
//!
//! # Superblocks
//!
//! Most of the run loop's cost is per block, so when no sink wants events the cache forms
//! longer blocks: in *superblock mode* translation goes on along the likely path of a
//! conditional branch, up to the block size limit: past a forward one (usually not taken)
//! along its fall-through, and past a backward one (usually closing a loop, and taken) at its
//! target, so that short loops are unrolled; there the branch is translated as the inverse
//! branch to its fall-through. A loop is unrolled only by whole iterations and only if its
//! head is in the superblock; other backward branches and jumps end it, so a loop is not
//! translated once per rotation of its body. It also goes on past a direct jump or call at
//! its target (a call becomes the write of its return address). A branch inside a
//! superblock that leaves the likely path is a *side exit*: the block ends there, having
//! retired the instructions up to the branch (`Meta::idx` + 1). Its target is fixed, so once
//! found it is chained in the branch's `Meta::chain` (the block has no exit slot for it:
//! `SIDE_EXIT`). Traps and counter CSRs inside a superblock find their pc and instruction
//! count in `Meta` as in any block; the offsets are signed, as a followed jump or branch may
//! go backwards.
//!
//! The machine turns the mode on for a cached Linux run (bare metal polls HTIF after every
//! block) whose sink promises, by [`Sink::watches_blocks`] returning `false`, that it wants
//! no events of any block, and that takes no samples (a sample is delivered at the first
//! block boundary after its threshold, which a superblock would move). In that mode the sink
//! is not asked about blocks at all. Changing the mode flushes the cache, so a sink that
//! watches blocks never sees the id of a superblock nor has one run.
//!
//! Sinks that watch blocks but never stop a run get *event superblocks* instead (the
//! private `event_super` module): superblocks formed later, from blocks already translated,
//! that keep their ids and events.
//!
//! Which way a superblock went past a conditional branch is recorded in the pc of its next
//! instruction (`scan_block`'s `pcs`); translation turns a branch followed at its target
//! into the inverse branch.

mod event_super;

use std::collections::HashMap;

use prof_events::{
    BlockEnd, BlockId, BlockInfo, Edge, EdgeKind, FlowClass, Interest, Probe, ProbeLease, ProbeOp,
    Sink, TracePart,
};

use crate::cpu::Cpu;
use crate::decode::decode;
use crate::exec::writes_xreg;
use crate::insn::{Insn, Op};
use crate::jit::{Jit, Left, Link, PerfMap, Probes, Site, SiteKind, Source, SUPER};
use crate::memory::{MemFault, Memory};
use crate::threaded;
use crate::xlat::{fuse, inverse_branch, translate, Here, Meta, Tinsn};

pub(crate) use event_super::{EventSuper, Part, UNFORMED};

/// "No block" in the index and chain slots.
pub(crate) const NONE: u32 = u32::MAX;

/// The exit number of a superblock's side exit: it has no slot in [`Block::chain`] (its
/// chain is in the branch's [`Meta`]).
pub(crate) const SIDE_EXIT: usize = 2;

/// The longest block, in instructions, whatever the configuration asks: the threaded
/// interpreter runs a block as a chain of handler calls, one per instruction, which a
/// build that does not turn them into jumps (debug) keeps on the stack.
pub const MAX_BLOCK_INSNS: u32 = 1024;

/// Instruction slots (one per 2-byte halfword) in one page of the [`PcIndex`]: 4 KiB of code.
const PAGE_SLOTS: usize = 2048;

/// A map from the start pc of a block to a `u32` slot: a two-level table over a code range
/// `[lo, hi)` (the executable segments), plus a hash map for addresses outside it.
///
/// The first level has one entry per 4 KiB of the range; a second-level page (8 KiB, one
/// slot per halfword) is allocated when the first block in its 4 KiB is inserted, so the
/// index grows with the code that runs, not with the size of the text. A lookup is two
/// loads and no hashing.
#[derive(Clone, Debug)]
pub struct PcIndex {
    lo: u64,
    pages: Vec<Option<Box<[u32; PAGE_SLOTS]>>>,
    allocated: usize,
    overflow: HashMap<u64, u32>,
}

impl PcIndex {
    /// An empty index whose table covers `[lo, hi)`.
    pub fn new(lo: u64, hi: u64) -> PcIndex {
        let halfwords = hi.saturating_sub(lo) / 2 + 1;
        let pages = usize::try_from(halfwords.div_ceil(PAGE_SLOTS as u64)).unwrap_or(0);
        PcIndex {
            lo,
            pages: vec![None; pages],
            allocated: 0,
            overflow: HashMap::new(),
        }
    }

    /// The slot stored for `pc`.
    #[inline(always)]
    pub fn get(&self, pc: u64) -> Option<u32> {
        let off = pc.wrapping_sub(self.lo) >> 1;
        let slot = match self.pages.get((off / PAGE_SLOTS as u64) as usize) {
            Some(Some(page)) => page[off as usize % PAGE_SLOTS],
            Some(None) => NONE,
            None => return self.overflow.get(&pc).copied(),
        };
        (slot != NONE).then_some(slot)
    }

    /// Stores `slot` (not `u32::MAX`, which means "none") for `pc`.
    pub fn insert(&mut self, pc: u64, slot: u32) {
        let off = pc.wrapping_sub(self.lo) >> 1;
        match self.pages.get_mut((off / PAGE_SLOTS as u64) as usize) {
            Some(page) => {
                let page = page.get_or_insert_with(|| {
                    self.allocated += 1;
                    Box::new([NONE; PAGE_SLOTS])
                });
                page[off as usize % PAGE_SLOTS] = slot;
            }
            None => {
                self.overflow.insert(pc, slot);
            }
        }
    }

    /// Removes every entry and frees the pages.
    pub fn clear(&mut self) {
        self.pages.fill(None);
        self.allocated = 0;
        self.overflow.clear();
    }

    /// Bytes held by the index.
    pub fn bytes(&self) -> usize {
        self.pages.capacity() * size_of::<Option<Box<[u32; PAGE_SLOTS]>>>()
            + self.allocated * PAGE_SLOTS * size_of::<u32>()
            + self.overflow.capacity() * (size_of::<u64>() + size_of::<u32>())
    }
}

/// One translated block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    pub start: u64,
    pub end: u64,
    /// Address of the last instruction (the branch an edge event names), found once here
    /// rather than per edge, and available in single-step mode, which keeps no instructions.
    pub last: u64,
    /// First translated instruction in the arena.
    pub first: u32,
    /// Number of translated instructions (fewer than `count` when pairs fused).
    pub len: u32,
    /// Number of guest instructions.
    pub count: u32,
    pub interest: Interest,
    pub ends_with: BlockEnd,
    /// The edge kinds of the sequential exit (to `end`) and the other one, found once here
    /// so that an edge event picks one by index instead of matching `ends_with`.
    pub kinds: [EdgeKind; 2],
    /// Chain: the slot of the successor on the fall-through (0) and other (1) exits
    /// (`NONE` if none yet, and always on the other exit of an indirect jump).
    pub chain: [u32; 2],
    /// The event superblock that starts with this block: its index in
    /// `BlockCache::supers`, [`UNFORMED`] while the block warms up, or `NONE`.
    pub sup: u32,
    /// Runs of the block while [`UNFORMED`].
    pub heat: u32,
    /// The handle of the block's compiled code (see [`jit`](crate::jit)), or `NONE`.
    pub compiled: u32,
    /// Its call or return exit has a probe, or its indirect call a site (see
    /// [`BlockCache::set_probing`]; an indirect jump's: [`BlockCache::runs_probes`]).
    pub probed: bool,
    /// Its indirect call's or jump's [`Site`], or `NONE`.
    pub site: u32,
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

    /// Its indirect call's or jump's [`Site`] and which it is, if it has one.
    pub fn site(&self) -> Option<(u32, SiteKind)> {
        SiteKind::of(self.ends_with)
            .filter(|_| self.site != NONE)
            .map(|kind| (self.site, kind))
    }

    /// The block linked to exit `exit` (0 for the fall-through, else 1), if any. A link is
    /// only set where the exit's target never changes (see [`BlockCache::set_chain`]), so
    /// it needs no check against the pc jumped to.
    #[inline(always)]
    pub fn link(&self, exit: usize) -> Option<u32> {
        let slot = if exit == 0 {
            self.chain[0]
        } else {
            self.chain[1]
        };
        (slot != NONE).then_some(slot)
    }

    /// The edge event for leaving this block (as block `id`) for `to`.
    #[inline(always)]
    pub fn edge(&self, id: BlockId, to: u64) -> Edge {
        Edge {
            from: id,
            pc: self.last,
            to,
            kind: self.kinds[usize::from(to != self.end)],
        }
    }
}

/// The edge kind of a block's exit; `sequential` if control went to the block's end.
fn edge_kind(end: BlockEnd, sequential: bool) -> EdgeKind {
    match end {
        BlockEnd::Branch { .. } if sequential => EdgeKind::NotTaken,
        BlockEnd::Branch { .. } => EdgeKind::Taken,
        BlockEnd::Jump => EdgeKind::Jump,
        BlockEnd::Call => EdgeKind::Call,
        BlockEnd::Return => EdgeKind::Return,
        BlockEnd::IndirectJump => EdgeKind::IndirectJump,
        BlockEnd::IndirectCall => EdgeKind::IndirectCall,
        BlockEnd::Syscall | BlockEnd::FallThrough => EdgeKind::FallThrough,
    }
}

/// Fetches and decodes the instruction at `pc`, with x0 destinations redirected to the
/// scratch register slot (see [`Cpu::x`](crate::cpu::Cpu::x)).
pub(crate) fn fetch_decode(mem: &Memory, pc: u64) -> Result<Insn, MemFault> {
    decode_fetched(|a| mem.fetch_u16(a), pc)
}

/// [`fetch_decode`] with the instruction's halfwords read by `fetch`.
#[inline(always)]
pub(crate) fn decode_fetched<E>(fetch: impl Fn(u64) -> Result<u16, E>, pc: u64) -> Result<Insn, E> {
    let low = fetch(pc)?;
    let raw = if low & 3 == 3 {
        u32::from(low) | u32::from(fetch(pc.wrapping_add(2))?) << 16
    } else {
        u32::from(low)
    };
    let mut insn = decode(raw);
    if insn.rd == 0 && writes_xreg(insn.op) {
        insn.rd = 32;
    }
    Ok(insn)
}

/// Decodes the block starting at `pc` into `out`, and the pc of each instruction into `pcs`
/// (both cleared first; the pcs say which way a superblock went). Fails only if the first
/// instruction cannot be fetched; a fetch failure later ends the block before it.
///
/// Returns the end pc (of the fall-through) and how the block ends. With `superblock` set
/// the block is a superblock, which goes on past forward conditional branches and direct
/// jumps and calls (see the module docs).
pub(crate) fn scan_block(
    mem: &Memory,
    pc: u64,
    max_insns: u32,
    superblock: bool,
    out: &mut Vec<Insn>,
    pcs: &mut Vec<u64>,
) -> Result<(u64, BlockEnd), MemFault> {
    out.clear();
    pcs.clear();
    let mut p = pc;
    // The fall-through and the end of the last instruction if it ended the block but was
    // followed: a fetch failure at its target ends the block with it, as without following.
    let mut followed = None;
    let end = loop {
        let insn = match fetch_decode(mem, p) {
            Ok(i) => i,
            Err(e) if out.is_empty() => return Err(e),
            Err(_) => match followed {
                Some((fall_through, end)) => {
                    p = fall_through;
                    break end;
                }
                None => break BlockEnd::FallThrough,
            },
        };
        followed = None;
        out.push(insn);
        pcs.push(p);
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
            // The superblock goes on along the likely path: a forward branch is taken less
            // often than not, so along its fall-through; a backward one usually closes a
            // loop and is taken, so at its target (unrolling the loop); a direct jump or
            // call at its target.
            let go_on = match insn.flow(at) {
                FlowClass::Branch { target } if target > at => Some(p),
                FlowClass::Branch { target } | FlowClass::Jump { target } if target <= at => {
                    // A loop is unrolled only by whole iterations, and only if its head is
                    // in the superblock: a superblock that ended inside the body would make
                    // the next one start there, and the loop would be translated once per
                    // rotation (a 54-instruction SHA-256 round then ran at half the speed
                    // of plain blocks, its cache twice as large).
                    let len = out.len();
                    let body = pcs.iter().rposition(|&q| q == target).map(|i| len - i);
                    body.filter(|&b| len + b <= max_insns as usize)
                        .map(|_| target)
                }
                FlowClass::Jump { target } | FlowClass::Call { target } => Some(target),
                _ => None,
            };
            let Some(to) = go_on.filter(|_| superblock && (out.len() as u32) < max_insns) else {
                break end;
            };
            followed = Some((p, end));
            p = to;
            continue;
        }
        if out.len() as u32 >= max_insns {
            break BlockEnd::FallThrough;
        }
    };
    Ok((p, end))
}

/// The block cache.
pub(crate) struct BlockCache {
    pub blocks: Vec<Block>,
    insns: Vec<Tinsn>,
    /// Parallel to `insns`.
    meta: Vec<Meta>,
    /// Id of `blocks[0]`: ids keep counting across flushes so they stay unique in a run.
    pub id_base: u32,
    /// Keep decoded instructions (`false` in single-step mode, which re-decodes every
    /// instruction each time it runs, but still forms the same blocks).
    keep_insns: bool,
    /// Form superblocks (see the module docs).
    superblocks: bool,
    /// Form event superblocks (see [`event_super`]).
    event_supers: bool,
    /// Compile the sink's probes into blocks with only edge events (see
    /// [`set_probing`](Self::set_probing)).
    probing: bool,
    /// The probes compiled into each block's fixed exits, by the exit's next pc (parallel
    /// to `blocks`): a probed event superblock's parts run them too.
    exit_probes: Vec<[Option<(u64, Probe)>; 2]>,
    /// Per block: its return's probe, if it ends in a return that has one (a probed event
    /// superblock may end in it).
    ret_probes: Vec<Option<Probe>>,
    /// The event superblocks, and their parts (ranges of `parts` and `part_events`).
    pub supers: Vec<EventSuper>,
    parts: Vec<Part>,
    part_events: Vec<TracePart>,
    /// Event superblocks formed since the run began (all flushes included).
    pub supers_formed: u64,
    max_insns: u32,
    index: PcIndex,
    scratch: Vec<Insn>,
    /// The pc of each instruction in `scratch`.
    scratch_pcs: Vec<u64>,
    /// Blocks translated since the run began (all flushes included).
    pub translated: u64,
    /// Times the cache was flushed.
    pub flushes: u64,
    /// The compiler of blocks, if compiled code is wanted and the host runs it.
    jit: Option<Jit>,
    /// Per guarded block (slot, or event superblock index with `SUPER`): the times its
    /// guard's check failed before its unprobed code was compiled ([`divert`](Self::divert)),
    /// or `u32::MAX` once it was (or could not be).
    guard_misses: HashMap<u32, u32>,
    /// Guarded blocks whose failed checks go on in their unprobed code (all flushes
    /// included).
    pub diverted: u64,
    /// Blocks of indirect calls or jumps compiled again once their site held a probe (all
    /// flushes included; see [`ask_site`](Self::ask_site)).
    pub sites_known: u64,
    /// A state was not lent because its epoch is not the compiled code's ([`lends`]):
    /// the run loop flushes the cache before it runs compiled code again.
    ///
    /// [`lends`]: Self::lends
    pub stale: bool,
}

/// The failed guard checks after which a guarded block's unprobed code is compiled: a
/// check that fails runs the block interpreted and delivers its events, which costs more
/// than its compiled code with no probes (logged), but most blocks' checks rarely fail.
const DIVERT_AFTER: u32 = 8;

impl BlockCache {
    /// A cache whose index table covers `[lo, hi)` (the executable segments). With `jit`
    /// set, blocks are also compiled where the host can run compiled code, and named in
    /// `perf_map` if given.
    pub fn new(
        lo: u64,
        hi: u64,
        max_insns: u32,
        keep_insns: bool,
        jit: bool,
        perf_map: Option<PerfMap>,
    ) -> BlockCache {
        BlockCache {
            jit: if jit && keep_insns {
                Jit::new(perf_map)
            } else {
                None
            },
            blocks: Vec::new(),
            insns: Vec::new(),
            id_base: 0,
            keep_insns,
            superblocks: false,
            event_supers: false,
            probing: false,
            exit_probes: Vec::new(),
            ret_probes: Vec::new(),
            supers: Vec::new(),
            parts: Vec::new(),
            part_events: Vec::new(),
            supers_formed: 0,
            max_insns: max_insns.clamp(1, MAX_BLOCK_INSNS),
            index: PcIndex::new(lo, hi),
            meta: Vec::new(),
            scratch: Vec::new(),
            scratch_pcs: Vec::new(),
            translated: 0,
            flushes: 0,
            guard_misses: HashMap::new(),
            diverted: 0,
            sites_known: 0,
            stale: false,
        }
    }

    /// The slot of the block starting at `pc`, if translated.
    #[inline(always)]
    pub fn lookup(&self, pc: u64) -> Option<u32> {
        self.index.get(pc)
    }

    /// Translates the block at `pc`, asks `sink` for its interest, and returns its slot.
    ///
    /// In superblock mode the block is a superblock and `sink` is not asked: it promised
    /// to want nothing of any block ([`Sink::watches_blocks`]).
    pub fn translate<S: Sink + ?Sized>(
        &mut self,
        mem: &Memory,
        pc: u64,
        sink: &mut S,
    ) -> Result<u32, MemFault> {
        let (end, ends_with) = scan_block(
            mem,
            pc,
            self.max_insns,
            self.superblocks,
            &mut self.scratch,
            &mut self.scratch_pcs,
        )?;
        let slot = self.blocks.len() as u32;
        let first = self.insns.len();
        if self.keep_insns {
            self.append_translation(&[]);
        }
        let mut block = Block {
            start: pc,
            end,
            last: end - self.scratch.last().map_or(0, |i| u64::from(i.len)),
            first: first as u32,
            len: (self.insns.len() - first) as u32,
            count: self.scratch.len() as u32,
            interest: Interest::NONE,
            ends_with,
            kinds: [edge_kind(ends_with, true), edge_kind(ends_with, false)],
            chain: [NONE; 2],
            sup: if self.event_supers { UNFORMED } else { NONE },
            heat: 0,
            compiled: NONE,
            probed: false,
            site: NONE,
        };
        let (mut probes, mut ret_probe) = ([None, None], None);
        if !self.superblocks {
            let info = block.info(BlockId(self.id_base + slot));
            block.interest = sink.interest(&info) & Interest::ALL_BLOCK;
            if self.probing && block.interest == Interest::EDGE && self.jit.is_some() {
                probes = self.probes(&block, first, &info, sink);
                if block.ends_with == BlockEnd::Return {
                    // (Only a return's probe reads the jump's target.)
                    ret_probe = sink
                        .probe_return(&info)
                        .filter(|p| matches!(p.op, ProbeOp::Return { .. }));
                }
                if SiteKind::of(block.ends_with).is_some() {
                    // Its probe comes with its target (see `BlockCache::ask_site`).
                    block.site = self.jit.as_mut().and_then(Jit::new_site).unwrap_or(NONE);
                }
                // The counters as they are now (the sink may have added some since the run
                // loop last lent them, when it instrumented the function this block is
                // in): the code then counts in them with no check of their length.
                if let (Some(lease), Some(jit)) = (sink.probe_state(), self.jit.as_mut()) {
                    jit.lend(lease.counts.len());
                }
                block.probed = match block.ends_with {
                    BlockEnd::Call => probes[0].is_some(),
                    BlockEnd::IndirectCall => block.site != NONE,
                    // Once its site holds a probe (see `runs_probes`).
                    BlockEnd::IndirectJump => false,
                    _ => ret_probe.is_some(),
                };
            }
        }
        self.blocks.push(block);
        self.exit_probes.push(probes);
        self.ret_probes.push(ret_probe);
        let compiled = self.compile_block(slot, false);
        if let Some(b) = self.blocks.get_mut(slot as usize) {
            b.compiled = compiled;
        }
        self.index.insert(pc, slot);
        self.translated += 1;
        Ok(slot)
    }

    /// Compiles the translated block in `slot` with its probes (its handle, or `NONE`); or,
    /// `unprobed`, logged with none run: the code its guard's failed check diverts to.
    fn compile_block(&mut self, slot: u32, unprobed: bool) -> u32 {
        let i = slot as usize;
        let (Some(block), Some(&probes), Some(&ret_probe), Some(jit)) = (
            self.blocks.get(i),
            self.exit_probes.get(i),
            self.ret_probes.get(i),
            self.jit.as_mut(),
        ) else {
            return NONE;
        };
        // (A block's instructions, or none where the arena keeps none.)
        let first = block.first as usize;
        let span = |len: usize| first..(first + block.len as usize).min(len).max(first);
        let (insns, meta) = (&self.insns, &self.meta);
        let (Some(insns), Some(meta)) = (insns.get(span(insns.len())), meta.get(span(meta.len())))
        else {
            return NONE;
        };
        // A block with memory events always runs interpreted (its accesses are events).
        if block.interest.contains(Interest::MEM) {
            return NONE;
        }
        let src = Source {
            pc: block.start,
            insns,
            meta,
            first,
            slot,
            end: block.end,
            count: block.count,
            // Its events come from the log when it runs chained (see `logging`).
            logged: unprobed || !block.interest.is_empty(),
            unprobed,
            // (Unprobed code is given them, not run: see `Source::unprobed`.)
            probes,
            ret_probe,
            site: block.site().filter(|_| !unprobed),
            parts: &[],
        };
        jit.compile(&src).unwrap_or(NONE)
    }

    /// The sink's probes for the fixed exits of `block` (translated at arena index
    /// `first`), by the exit's next pc: a branch's target and fall-through, a jump's or a
    /// call's target, a block cut short's fall-through.
    fn probes<S: Sink + ?Sized>(
        &self,
        block: &Block,
        first: usize,
        info: &BlockInfo,
        sink: &mut S,
    ) -> [Option<(u64, Probe)>; 2] {
        let jump = || {
            let last = self.insns.get(first..)?.last()?;
            (last.op == Op::Jal).then_some(last.imm)
        };
        let exits = match block.ends_with {
            BlockEnd::Branch { target } => [Some(target), Some(block.end)],
            BlockEnd::Jump | BlockEnd::Call => [jump(), None],
            BlockEnd::FallThrough => [None, Some(block.end)],
            _ => [None, None],
        };
        // A return's probe needs an indirect exit's target: not one of these.
        let fixed = |p: &Probe| !matches!(p.op, ProbeOp::Return { .. });
        exits.map(|to| to.and_then(|to| Some((to, sink.probe(info, to).filter(fixed)?))))
    }

    /// Turns probes on for a run whose sink has them (see [`prof_events::probe`]) or off.
    /// A run with probes starts from an empty cache, whose blocks ask its sink for them;
    /// the first run without after one empties it again. While on, blocks with only edge
    /// events run chained, logged, their probes compiled in (a probe that does not apply
    /// logs its exit and returns: see [`Source::probes`]). Event superblocks that pass a
    /// call, a return or an indirect jump no probe runs deliver their parts' events;
    /// elsewhere they are *probed*: their code runs each part's probe to the next (see
    /// [`event_super`]). `saves_sums` is the sink's [`Sink::saves_sums`]: where it is
    /// false, the code leaves the floor out of calls and returns, and its probes that save
    /// a sum never apply (see [`lends`](Self::lends)).
    pub fn set_probing(&mut self, on: bool, saves_sums: bool) {
        if (on || self.probing) && !self.blocks.is_empty() {
            self.flush();
        }
        self.probing = on;
        // (The compiler keeps it: the code it compiles assumes it.)
        if let Some(jit) = self.jit.as_mut() {
            jit.saves_sums = saves_sums;
        }
    }

    /// Whether compiled code may run probes on `lease`: its sum is a signed 64-bit one
    /// (the low half the code works on), for a sink that saves no sums it keeps its
    /// promise (no sum saved, every floor 0), which the code's calls and returns assume
    /// (they leave a frame's floor as they find it: those of the frames not open must be
    /// 0 too), it has every counter the code adds to unchecked ([`Jit::lend`]), and its
    /// epoch is the compiled code's, which checks none ([`Jit::lends_epoch`]; else the
    /// cache is [`stale`](Self::stale)).
    pub fn lends(&mut self, lease: &ProbeLease<'_>) -> bool {
        let state = &*lease.state;
        if self
            .jit
            .as_mut()
            .is_some_and(|jit| !jit.lends_epoch(state.epoch))
        {
            self.stale = true;
            return false;
        }
        let sum = state.sum as u64 as i64 as i128 as u128 == state.sum;
        let floors =
            || state.saved == 0 && state.floor == 0 && state.frames.iter().all(|f| f.floor == 0);
        let saves_sums = self.jit.as_ref().is_none_or(|jit| jit.saves_sums);
        sum && (saves_sums || floors())
            && self
                .jit
                .as_mut()
                .is_none_or(|jit| jit.lend(lease.counts.len()))
    }

    /// Sets superblock mode (see the module docs for when the machine turns it on).
    /// Changing it discards the translated blocks, so that a sink that watches blocks never
    /// sees a superblock's id.
    pub fn set_superblocks(&mut self, on: bool) {
        if on != self.superblocks {
            if !self.blocks.is_empty() {
                self.flush();
            }
            self.superblocks = on;
        }
    }

    /// Translates the decoded block in `scratch` (its pcs in `scratch_pcs`) onto the
    /// arenas, fusing pairs. A direct jump or call inside a (super)block is followed: it
    /// becomes the write of its return address (nothing for `j`), and translation goes on at
    /// its target. A conditional branch inside one is followed where the next pc says: at
    /// its fall-through, or at its target as the inverse branch to its fall-through. No
    /// pair fuses across the indices in `cuts` (the parts of a probed event superblock).
    fn append_translation(&mut self, cuts: &[usize]) {
        let first = self.insns.len();
        let Some(&pc) = self.scratch_pcs.first() else {
            return;
        };
        for (idx, (insn, &at)) in self.scratch.iter().zip(&self.scratch_pcs).enumerate() {
            let meta = Meta {
                off: at.wrapping_sub(pc) as u32,
                idx: idx as u32,
                chain: NONE,
            };
            let next = at.wrapping_add(u64::from(insn.len));
            // Where the (super)block goes on, if this instruction is not its last.
            let followed = self.scratch_pcs.get(idx + 1).copied();
            if insn.op == Op::Jal && followed.is_some() {
                if insn.rd != 32 {
                    let link = Insn {
                        op: Op::Lui,
                        imm: 0,
                        ..*insn
                    };
                    self.insns.push(Tinsn {
                        imm: next,
                        ..translate(&link, at)
                    });
                    self.meta.push(meta);
                }
                continue;
            }
            let t = translate(insn, at);
            let taken = followed == Some(t.imm) && t.imm != next;
            if let Some(inverse) = inverse_branch(t.op).filter(|_| taken) {
                // A branch followed at its target: the inverse branch, to the fall-through,
                // is the side exit.
                self.insns.push(Tinsn {
                    op: inverse,
                    imm: next,
                    ..t
                });
                self.meta.push(meta);
                continue;
            }
            let fused = match self.insns.last() {
                Some(prev) if self.insns.len() > first && !cuts.contains(&idx) => fuse(prev, insn),
                _ => None,
            };
            match (fused, self.insns.last_mut(), self.meta.last_mut()) {
                (Some(t), Some(prev), Some(m)) => (*prev, *m) = (t, meta),
                _ => {
                    self.insns.push(t);
                    self.meta.push(meta);
                }
            }
        }
        if let Some(block) = self.insns.get_mut(first..) {
            threaded::assign(block);
        }
    }

    /// Discards every translated block (after `fence.i` or a store into code).
    pub fn flush(&mut self) {
        self.id_base += self.blocks.len() as u32;
        self.blocks.clear();
        self.exit_probes.clear();
        self.ret_probes.clear();
        self.insns.clear();
        self.meta.clear();
        self.index.clear();
        self.supers.clear();
        self.parts.clear();
        self.part_events.clear();
        self.guard_misses.clear();
        if let Some(jit) = self.jit.as_mut() {
            jit.clear();
        }
        self.stale = false;
        self.flushes += 1;
    }

    /// The translated instructions of `block` (empty in single-step mode).
    #[inline(always)]
    pub fn insns(&self, block: &Block) -> &[Tinsn] {
        let first = block.first as usize;
        self.insns
            .get(first..first + block.len as usize)
            .unwrap_or(&[])
    }

    /// Where `block`'s translated instructions run, after `base` instructions retired
    /// before it: its start, and the arena's [`Meta`] and address (so that entering a block
    /// computes no slice or offset for them).
    #[inline(always)]
    pub fn here(&self, block: &Block, base: u64) -> Here<'_> {
        Here {
            start: block.start,
            base,
            meta: &self.meta,
            arena: self.insns.as_ptr() as usize,
        }
    }

    /// Follows or records the chain from `from` to the block at `pc`.
    #[inline(always)]
    pub fn chained(&self, from: u32, exit: usize, pc: u64) -> Option<u32> {
        let slot = *self.blocks.get(from as usize)?.chain.get(exit)?;
        // `NONE` is out of range too.
        (self.blocks.get(slot as usize)?.start == pc).then_some(slot)
    }

    /// The block linked to the side exit of translated instruction `at` (an index in the
    /// arena), if any.
    #[inline(always)]
    pub fn side_link(&self, at: usize) -> Option<u32> {
        let slot = self.meta.get(at)?.chain;
        (slot != NONE).then_some(slot)
    }

    /// Records that the side exit of translated instruction `at` led to the block in `to`
    /// (a side exit is a direct branch: its target never changes).
    #[inline(always)]
    pub fn set_side_chain(&mut self, at: usize, to: u32) {
        if let Some(m) = self.meta.get_mut(at) {
            m.chain = to;
        }
    }

    /// Records that exit `exit` of the block in `from` led to the block in `to`, if that
    /// exit always leads to the same pc: the fall-through exit, and the other exit of a
    /// direct branch, jump or call. (An indirect exit's target varies; it is looked up in
    /// the index each time, which costs no more than checking a link and mispredicts less.)
    #[inline(always)]
    pub fn set_chain(&mut self, from: u32, exit: usize, to: u32) {
        let Some(block) = self.blocks.get_mut(from as usize) else {
            return;
        };
        let fixed = exit == 0
            || matches!(
                block.ends_with,
                BlockEnd::Branch { .. } | BlockEnd::Jump | BlockEnd::Call
            );
        if let (true, Some(c)) = (fixed, block.chain.get_mut(exit)) {
            *c = to;
        }
    }

    /// Bytes held by the cache (for the memory column of benchmarks).
    pub fn footprint(&self) -> usize {
        self.blocks.capacity() * size_of::<Block>()
            + self.insns.capacity() * size_of::<Tinsn>()
            + self.meta.capacity() * size_of::<Meta>()
            + self.index.bytes()
            + self.supers.capacity() * size_of::<EventSuper>()
            + self.parts.capacity() * size_of::<Part>()
            + self.part_events.capacity() * size_of::<TracePart>()
            + self.jit.as_ref().map_or(0, Jit::bytes)
    }

    /// Runs the compiled code `handle` (a block's or an event superblock's) on the
    /// registers `x` and the memory `mem` with `budget` instructions (see [`Jit::run`]);
    /// `None` if it cannot run.
    #[inline(always)]
    pub fn run_compiled(
        &self,
        handle: u32,
        cpu: &mut Cpu,
        mem: &mut Memory,
        budget: u64,
        probes: Probes,
    ) -> Option<Left> {
        self.jit.as_ref()?.run(handle, cpu, mem, budget, probes)
    }

    /// Whether blocks with block or edge events and event superblocks run chained, their
    /// runs logged (see [`Source::logged`](crate::jit::Source)): with event superblocks or
    /// probes on, in runs whose sinks never stop.
    #[inline(always)]
    pub fn logging(&self) -> bool {
        (self.event_supers || self.probing) && self.jit.is_some()
    }

    /// Whether compiled code runs probes at the exit of block `b` that ends a transfer out
    /// of straight-line flow (a call, a return or an indirect jump): its call or return
    /// has a probe, its indirect call a site, or its indirect jump a site that holds a
    /// probe (a sink that gives none, as a hierarchical profile in a region, leaves its
    /// events to traces).
    pub(crate) fn runs_probes(&self, b: &Block) -> bool {
        match b.ends_with {
            BlockEnd::IndirectJump => self
                .jit
                .as_ref()
                .and_then(|jit| jit.site(b.site))
                .is_some_and(Site::holds_probe),
            _ => b.probed,
        }
    }

    /// Before the logged run of the block in `slot` that called or jumped to `to` reaches
    /// `sink`: if the block's indirect call or jump has a site that holds no probe for `to`
    /// of the probe state's `epoch`, asks `sink` for the transfer's probe to `to` (the
    /// sink's state is the one the transfer leaves) and puts it, or none, in the way
    /// [`Site::learn`] picks; a transfer that keeps changing its target stops asking after
    /// [`Site::ASKS`]. A block whose site thus holds its first probe of a call or an
    /// addition is compiled again: its code runs that probe with its fields known for that
    /// target.
    #[inline(always)]
    pub fn ask_site<S: Sink + ?Sized>(
        &mut self,
        slot: u32,
        to: u64,
        epoch: Option<u64>,
        sink: &mut S,
    ) {
        if self
            .blocks
            .get(slot as usize)
            .is_some_and(|b| b.site != NONE)
        {
            self.ask_site_of(slot, to, epoch, sink);
        }
    }

    /// [`ask_site`](Self::ask_site) for a block with a site.
    #[inline(never)]
    fn ask_site_of<S: Sink + ?Sized>(
        &mut self,
        slot: u32,
        to: u64,
        epoch: Option<u64>,
        sink: &mut S,
    ) {
        let (Some(block), Some(jit)) = (self.blocks.get(slot as usize), self.jit.as_mut()) else {
            return;
        };
        let Some((index, kind)) = block.site() else {
            return;
        };
        let Some(site) = jit.site_mut(index) else {
            return;
        };
        if site.answers(to, epoch) || site.asked >= Site::ASKS {
            return;
        }
        let knew = site.hottest(kind).is_some();
        site.learn(
            sink.probe(&block.info(BlockId(self.id_base + slot)), to),
            to,
            kind,
        );
        // The block is compiled again once its site holds a probe its code may know (a
        // call's, or a jump table's addition), which the code then applies for that
        // target with the probe's fields known (the target most calls of a `qsort` or a
        // list sort go to), before any way search. Code linked to the old one goes on
        // there, as it did.
        if !knew && site.hottest(kind).is_some() {
            let compiled = self.compile_block(slot, false);
            if let Some(b) = self
                .blocks
                .get_mut(slot as usize)
                .filter(|_| compiled != NONE)
            {
                b.compiled = compiled;
                self.sites_known += 1;
            }
        }
    }

    /// The records of the logged blocks of the last [`run_compiled`](Self::run_compiled)
    /// (`n`: its [`Left::logged`]), in the order they ran.
    #[inline(always)]
    pub fn logged(&self, n: usize) -> &[std::cell::Cell<crate::jit::Rec>] {
        self.jit.as_ref().map_or(&[], |jit| jit.logged(n))
    }

    /// Links the compiled exit `link` to the block in `to`: to its compiled code if it has
    /// no events, or, while runs are logged ([`logging`](Self::logging)), only block and
    /// edge events; and while logging, to the code of the event superblock formed at it
    /// instead (so its parts' events stay one trace).
    pub fn link_compiled(&mut self, link: Link, to: u32) {
        if let Link::Divert(from) = link {
            return self.divert(from);
        }
        let logging = self.logging();
        let Some(b) = self.blocks.get(to as usize) else {
            return;
        };
        let sup = self
            .supers
            .get(b.sup as usize)
            .filter(|s| logging && s.compiled != NONE);
        let (handle, count) = match sup {
            Some(s) => (s.compiled, s.count),
            // A block warming up to form one runs through the run loop, which counts it.
            None if b.sup == UNFORMED && !b.interest.is_empty() => return,
            None if b.interest.is_empty() || logging => (b.compiled, b.count),
            None => return,
        };
        if let (Some(jit), false) = (self.jit.as_mut(), handle == NONE) {
            jit.link(link, b.start, handle, count);
        }
    }

    /// Counts a failed guard check of the code of `from` (a block's slot, or an event
    /// superblock's index with `SUPER`); at the [`DIVERT_AFTER`]th, compiles the block
    /// with no probes ([`Source::unprobed`]) and makes its failed checks go on there
    /// ([`Jit::divert`]). The unprobed code logs every exit, so the run loop delivers
    /// the same events as after a bail-out, in the same order.
    fn divert(&mut self, from: u32) {
        let misses = self.guard_misses.entry(from).or_insert(0);
        if *misses == u32::MAX {
            return;
        }
        *misses += 1;
        if *misses < DIVERT_AFTER {
            return;
        }
        *misses = u32::MAX;
        let (handle, unprobed) = if from & SUPER != 0 {
            let index = from & !SUPER;
            let Some(sup) = self.supers.get(index as usize).copied() else {
                return;
            };
            (sup.compiled, self.compile_super(&sup, index, true))
        } else {
            let Some(b) = self.blocks.get(from as usize).copied() else {
                return;
            };
            (b.compiled, self.compile_block(from, true))
        };
        if let (Some(jit), false) = (self.jit.as_mut(), handle == NONE || unprobed == NONE) {
            self.diverted += u64::from(jit.divert(handle, unprobed));
        }
    }
}

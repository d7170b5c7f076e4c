//! Event superblocks: superblocks for sinks that watch blocks.
//!
//! A plain superblock (see the parent module) has no block ids inside it, so it is only
//! formed when no sink watches blocks. A sink that counts blocks and edges still pays the
//! run loop's cost once per basic block, about a quarter of the time of a run without
//! sinks. An *event superblock* keeps the basic blocks and their ids, and only changes how
//! they run: once a block has run [`HOT`] times, the blocks its links already lead to along
//! the likely path (the same path a plain superblock follows) are translated once more as
//! one superblock, its *parts*. Entering the first block then runs the whole superblock (its
//! compiled code if it has some, which logs each run and may go on into the code it is
//! linked to, see [`jit`](crate::jit); else on the threaded interpreter), and afterwards
//! delivers the block and edge events of every part that ran, in order, with the ids, pcs
//! and edges of the basic blocks: the events are the ones
//! single-stepping gives, only delivered after the instructions they describe instead of
//! between them.
//!
//! That is invisible to a sink unless it could act between them, so event superblocks need:
//! - a sink that promised never to stop a run from a block or edge hook
//!   ([`Sink::may_stop`] `false`): a stop would land after the superblock instead of at
//!   the next block boundary;
//! - no part that wants memory events (they must come between the block events): such a
//!   block ends the walk;
//! - the fuel and sampling threshold outside the superblock: one that would reach it runs
//!   its first block alone, so both stay exact.
//!
//! Ids stay those of single-stepping because forming translates no new block: the parts
//! are blocks already translated, found through their links. A side exit or a trap inside
//! the superblock ends it in some part: the events up to that part's block event are
//! delivered, and the run loop goes on as if that part had run alone (its exit, its links,
//! its trap). A store into code inside a superblock is seen at its end, as for any block.
//!
//! In runs with probes (see [`BlockCache::set_probing`]), an event superblock that passes
//! no call, return or indirect jump without a probe is *probed*: it takes the parts whose
//! probe to the next one adds to the sum, ends a path or makes a call that only opens the
//! callee's frame ([`runs_between_parts`]), and may end in a return with a probe or in an
//! indirect call or jump with a site; its code runs those probes between the parts and
//! each exit's probe (the return's and the site's too, as a block's code does), instead
//! of logging (see
//! [`Source::parts`](crate::jit::Source)), and a probe that does not apply has that part's
//! basic block's exit logged, so the run loop delivers it alone. After a bail-out, the
//! events of the parts from the one it bailed out in are delivered. Forming one asks the
//! sink again for the path ends of the parts that run in the activation it starts in, and
//! takes an answer that differs only by a way given first ([`ProbeOp::End`]'s `first`):
//! by now a sparse table's path end may have a window the sink pinned, and with it the
//! code counts a sum it knows at a counter it knows.
//!
//! Each event superblock is announced to the sink as a *trace* when formed
//! ([`Sink::trace_formed`]). A sink that takes it receives each run as one
//! [`Sink::trace`] call with the number of parts that ran, instead of their block and edge
//! events (the last part's exit still comes as an edge event): a counting sink then counts
//! runs of traces and settles its per-block counts at the end.

use prof_events::{
    BlockEnd, BlockId, Interest, Probe, ProbeEnd, ProbeOp, Sink, TraceId, TracePart,
};

use super::{scan_block, Block, BlockCache, NONE};
use crate::jit::{runs_between_parts, PartProbes, Source, SUPER};
use crate::memory::Memory;
use crate::xlat::{Here, Tinsn};

/// [`Block::sup`] of a block that may still start an event superblock.
pub(crate) const UNFORMED: u32 = u32::MAX - 1;

/// Runs of a block before the event superblock starting with it is formed: enough for the
/// links along its likely path to have been made, few enough that a loop forms it early.
const HOT: u32 = 16;

/// An event superblock: the translated instructions of its parts, run as one superblock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventSuper {
    /// The first part's start: where the superblock's [`Meta`](crate::xlat::Meta) offsets
    /// count from.
    pub start: u64,
    /// The fall-through of its last instruction.
    pub end: u64,
    /// Guest instructions in all its parts.
    pub count: u32,
    /// Its id as a trace, and whether the sink takes its runs as traces
    /// ([`Sink::trace_formed`]) rather than as events.
    pub trace: TraceId,
    pub batched: bool,
    /// Its compiled code runs its parts' probes (see [`BlockCache::probed_len`]): a run
    /// that bailed out ran those of the parts before the one it bailed out in.
    pub probed: bool,
    /// The handle of its compiled code (see [`jit`](crate::jit)), or `NONE`.
    pub compiled: u32,
    /// The arena index of its first translated instruction.
    pub first: u32,
    len: u32,
    parts: u32,
    nparts: u32,
}

/// One basic block of an event superblock (its events are a [`TracePart`] alongside).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Part {
    pub slot: u32,
    /// Guest instructions of the superblock up to and including this part.
    pub done: u32,
}

impl BlockCache {
    /// Turns event superblocks on or off (the machine decides per run). Changing the mode
    /// forgets the formed ones (their code stays in the arena until the next flush); blocks
    /// translated before keep their ids either way. Like blocks, event superblocks are
    /// announced once (as traces) and kept across runs of a machine while the mode stays on.
    pub fn set_event_superblocks(&mut self, on: bool) {
        if on != self.event_supers {
            // Blocks with events were linked to while the mode was on; their code logs
            // their runs, which only a run with the mode on delivers.
            if self.event_supers {
                if let Some(jit) = self.jit.as_mut() {
                    jit.unlink_all();
                }
            }
            self.event_supers = on;
            self.supers.clear();
            self.parts.clear();
            self.part_events.clear();
            for b in &mut self.blocks {
                b.sup = if on { UNFORMED } else { NONE };
                b.heat = 0;
            }
        }
    }

    /// The index of the event superblock starting with the block in `slot`, if there is
    /// one; counts a run of a block that may start one, and forms it when the block is hot.
    #[inline(always)]
    pub fn event_super<S: Sink + ?Sized>(
        &mut self,
        slot: u32,
        mem: &Memory,
        sink: &mut S,
    ) -> Option<u32> {
        let b = self.blocks.get_mut(slot as usize)?;
        match b.sup {
            NONE => None,
            UNFORMED => {
                b.heat += 1;
                if b.heat < HOT {
                    None
                } else {
                    self.form(slot, mem, sink)
                }
            }
            s => Some(s),
        }
    }

    /// The parts of `sup`, and their events.
    #[inline(always)]
    pub fn parts(&self, sup: &EventSuper) -> (&[Part], &[TracePart]) {
        let range = sup.parts as usize..(sup.parts + sup.nparts) as usize;
        let parts = self.parts.get(range.clone()).unwrap_or(&[]);
        (parts, self.part_events.get(range).unwrap_or(&[]))
    }

    /// The translated instructions of `sup`, and where they run after `base` retired.
    #[inline(always)]
    pub fn super_code(&self, sup: &EventSuper, base: u64) -> (&[Tinsn], Here<'_>) {
        let first = sup.first as usize;
        let insns = self.insns.get(first..first + sup.len as usize);
        let here = Here {
            start: sup.start,
            base,
            meta: &self.meta,
            arena: self.insns.as_ptr() as usize,
        };
        (insns.unwrap_or(&[]), here)
    }

    /// Forms the event superblock starting with the block in `head`, if its links lead to
    /// at least one more part, and announces it to `sink` as a trace; marks the block
    /// either way.
    #[cold]
    #[inline(never)]
    fn form<S: Sink + ?Sized>(&mut self, head: u32, mem: &Memory, sink: &mut S) -> Option<u32> {
        self.blocks[head as usize].sup = NONE;
        let mut chosen = self.walk(head);
        if chosen.len() < 2 {
            return None;
        }
        // With probes, a trace where it passes a call, a return or an indirect jump that
        // no probe runs delivers its events; elsewhere its compiled code runs the parts'
        // probes, so it takes only the parts they lead through.
        let through_call = chosen[..chosen.len() - 1].iter().any(|&(slot, _)| {
            let b = &self.blocks[slot as usize];
            !self.runs_probes(b)
                && !matches!(
                    b.ends_with,
                    BlockEnd::Branch { .. } | BlockEnd::Jump | BlockEnd::FallThrough
                )
        });
        let probed = self.probing && !through_call;
        if probed {
            chosen.truncate(self.probed_len(&chosen));
            if chosen.len() < 2 {
                return None;
            }
        }
        // Decode the parts again (they decode as when translated: stores into code flush
        // the cache) and translate them as one superblock.
        let (mut decoded, mut pcs) = (Vec::new(), Vec::new());
        for &(slot, _) in &chosen {
            let b = &self.blocks[slot as usize];
            let (scratch, scratch_pcs) = (&mut self.scratch, &mut self.scratch_pcs);
            let (end, _) =
                scan_block(mem, b.start, self.max_insns, false, scratch, scratch_pcs).ok()?;
            if end != b.end || scratch.len() != b.count as usize {
                return None;
            }
            decoded.extend_from_slice(scratch);
            pcs.extend_from_slice(scratch_pcs);
        }
        (self.scratch, self.scratch_pcs) = (decoded, pcs);
        let start = self.blocks[head as usize].start;
        let first = self.insns.len();
        // A probed superblock's parts keep their own instructions, for the probes between.
        let cuts: Vec<usize> = match probed {
            true => chosen.iter().map(|&(_, done)| done as usize).collect(),
            false => Vec::new(),
        };
        self.append_translation(&cuts);
        let parts = self.parts.len();
        for (i, &(slot, done)) in chosen.iter().enumerate() {
            let b = &self.blocks[slot as usize];
            let id = BlockId(self.id_base + slot);
            let to = chosen
                .get(i + 1)
                .map_or(b.end, |&(next, _)| self.blocks[next as usize].start);
            self.parts.push(Part { slot, done });
            self.part_events.push(TracePart {
                block: id,
                pc: b.start,
                interest: b.interest,
                edge: b.edge(id, to),
            });
        }
        let (last, count) = chosen[chosen.len() - 1];
        let trace = TraceId(self.supers_formed as u32);
        let batched = sink.trace_formed(trace, &self.part_events[parts..]);
        let mut sup = EventSuper {
            start,
            end: self.blocks[last as usize].end,
            count,
            trace,
            batched,
            probed,
            compiled: NONE,
            first: first as u32,
            len: (self.insns.len() - first) as u32,
            parts: parts as u32,
            nparts: chosen.len() as u32,
        };
        let index = self.supers.len() as u32;
        if probed {
            self.refine_probes(&chosen, sink);
        }
        sup.compiled = self.compile_super(&sup, index, false);
        self.supers.push(sup);
        self.blocks[head as usize].sup = index;
        self.supers_formed += 1;
        Some(index)
    }

    /// Asks `sink` again for the path ends ([`ProbeOp::End`]), region exits
    /// ([`ProbeOp::Pop`]) and region entries at path ends ([`ProbeOp::PushEnd`]) with no
    /// way given first among the exit probes of the `chosen` parts that run in the
    /// activation the superblock starts in (up to its first call), which the sink answers
    /// for now: a block asks for its probes when first translated, before a sparse table's
    /// path end has a window it could pin and give first, and by now it may have (a sink
    /// pins it only if it gives it). Only the way given first may differ: any other answer
    /// leaves the probe as it was.
    fn refine_probes<S: Sink + ?Sized>(&mut self, chosen: &[(u32, u32)], sink: &mut S) {
        for &(slot, _) in chosen {
            let Some(b) = self.blocks.get(slot as usize) else {
                return;
            };
            let (info, call) = (
                b.info(BlockId(self.id_base + slot)),
                matches!(b.ends_with, BlockEnd::Call | BlockEnd::IndirectCall),
            );
            let Some(probes) = self.exit_probes.get_mut(slot as usize) else {
                return;
            };
            for (to, probe) in probes.iter_mut().flatten() {
                if first_way(&mut probe.op).is_some_and(|first| first.is_none()) {
                    let again = sink.probe(&info, *to);
                    if let Some(again) = again.filter(|a| refines(a, probe)) {
                        *probe = again;
                    }
                }
            }
            if call {
                return;
            }
        }
    }

    /// Compiles `sup` (to be event superblock `index`), logged, if compiled code is wanted
    /// and its code is worth compiling; returns its handle or `NONE`. (Its code logs each
    /// run, from which the run loop delivers the parts' events; see [`jit`](crate::jit).)
    /// With `unprobed`, a probed superblock's code that runs none of its probes: the code
    /// its guard's failed check diverts to ([`Source::unprobed`]).
    pub(super) fn compile_super(&mut self, sup: &EventSuper, index: u32, unprobed: bool) -> u32 {
        // A probed superblock may end in a return, whose probe its exit runs, or in an
        // indirect call or jump, whose site it searches, as its last part's code does.
        let last = (sup.parts + sup.nparts)
            .checked_sub(1)
            .filter(|_| sup.probed)
            .and_then(|i| self.parts.get(i as usize))
            .map(|part| part.slot);
        let ret_probe = last.and_then(|slot| self.ret_probe(slot));
        let site = last
            .filter(|_| !unprobed)
            .and_then(|slot| self.blocks.get(slot as usize)?.site());
        let range = sup.first as usize..(sup.first + sup.len) as usize;
        let (Some(jit), Some(insns), Some(meta)) = (
            self.jit.as_mut(),
            self.insns.get(range.clone()),
            self.meta.get(range),
        ) else {
            return NONE;
        };
        // A probed superblock's parts: each starts at the first instruction past the ones
        // before it.
        let parts = &self.parts[sup.parts as usize..(sup.parts + sup.nparts) as usize];
        let (mut before, mut insn) = (0, 0);
        let parts: Vec<PartProbes> = match sup.probed {
            false => Vec::new(),
            true => parts
                .iter()
                .map(|part| {
                    let b = &self.blocks[part.slot as usize];
                    while meta.get(insn).is_some_and(|m| m.idx < before) {
                        insn += 1;
                    }
                    before = part.done;
                    PartProbes {
                        slot: part.slot,
                        at: b.first + b.len.saturating_sub(1),
                        insn,
                        pc: b.start,
                        probes: self.exit_probes[part.slot as usize],
                    }
                })
                .collect(),
        };
        let src = Source {
            pc: sup.start,
            insns,
            meta,
            first: sup.first as usize,
            slot: index | SUPER,
            end: sup.end,
            count: sup.count,
            logged: true,
            unprobed,
            probes: [None, None],
            ret_probe,
            site,
            parts: &parts,
        };
        jit.compile(&src).unwrap_or(NONE)
    }

    /// How many of the parts `chosen` (a walk's) a probed event superblock takes: blocks
    /// with only edge events, each but the last with a probe to the next that
    /// [`runs_between_parts`] (the code runs it between them), the last leaving by a fixed
    /// exit (whose stubs run its probes), a return with a probe (which its exit runs) or
    /// an indirect call or jump with a site (which its exit searches): see
    /// [`ends_probed`](Self::ends_probed).
    fn probed_len(&self, chosen: &[(u32, u32)]) -> usize {
        let block = |i: usize| &self.blocks[chosen[i].0 as usize];
        let leads = |i: usize| {
            let to = block(i + 1).start;
            self.exit_probes[chosen[i].0 as usize]
                .iter()
                .flatten()
                .any(|(pc, p)| *pc == to && runs_between_parts(&p.op))
        };
        // A first block that is only a jump translates to nothing (the jump is followed):
        // a bail-out at the entry would then look like one after the probe past it.
        let b = block(0);
        if b.count == 1 && b.ends_with == BlockEnd::Jump {
            return 0;
        }
        let mut n = 0;
        while n < chosen.len() && block(n).interest == Interest::EDGE && (n == 0 || leads(n - 1)) {
            n += 1;
        }
        while n > 0
            && !matches!(
                block(n - 1).ends_with,
                BlockEnd::Branch { .. } | BlockEnd::Jump | BlockEnd::FallThrough | BlockEnd::Call
            )
            && !self.ends_probed(chosen[n - 1].0)
        {
            n -= 1;
        }
        n
    }

    /// Whether the block in `slot` ends in an indirect exit whose probe its code runs: a
    /// return with a probe, or an indirect call or jump with a site. A probed superblock
    /// may end there, its exit running the probe as the block's code does. Ending in the
    /// site rather than before it gives each superblock that leads to a `switch` its own
    /// copy of the dispatch, as a plain superblock has (coremark 3000, flat, cachegrind's
    /// branch simulator: 1.45M of the process's 10.7M indirect branches mispredicted,
    /// 0.36M after).
    fn ends_probed(&self, slot: u32) -> bool {
        self.ret_probe(slot).is_some()
            || self
                .blocks
                .get(slot as usize)
                .is_some_and(|b| b.site().is_some())
    }

    /// The probe of the return the block in `slot` ends in, if it has one.
    fn ret_probe(&self, slot: u32) -> Option<Probe> {
        *self.ret_probes.get(slot as usize)?
    }

    /// The parts of the event superblock starting with `head`, each with the instructions
    /// up to its end: the blocks that `head`'s links lead to along the path a plain
    /// superblock follows (see [`scan_block`]), up to the block size limit, a block with
    /// memory events or an exit without a link, except that a branch is followed the other
    /// way when only that exit has run. (Following each branch the way it went in most of
    /// its first runs instead was no faster: 7% faster on the `strings` guest, 7% slower on
    /// `sort`.)
    fn walk(&self, head: u32) -> Vec<(u32, u32)> {
        let mut chosen: Vec<(u32, u32)> = Vec::new();
        let mut total = 0u32;
        let mut slot = head;
        loop {
            let b: &Block = &self.blocks[slot as usize];
            if b.interest.intersects(Interest::MEM_VALUES) || total + b.count > self.max_insns {
                break;
            }
            total += b.count;
            chosen.push((slot, total));
            // A loop is followed back to its head only by whole iterations that fit, and
            // only if its head is a part, as in a plain superblock.
            let back_to = |target: u64| {
                let at = chosen
                    .iter()
                    .rposition(|&(s, _)| self.blocks[s as usize].start == target)?;
                let before = if at == 0 { 0 } else { chosen[at - 1].1 };
                (2 * total - before <= self.max_insns).then_some(())
            };
            // A branch goes on the way a plain superblock guesses, or else the other way if
            // only that one has run so far (its link is set).
            let next = match b.ends_with {
                BlockEnd::Branch { target } if target > b.last => b.link(0).or(b.link(1)),
                BlockEnd::Branch { target } => back_to(target)
                    .and_then(|()| b.link(1))
                    .or_else(|| b.link(1).is_none().then(|| b.link(0)).flatten()),
                BlockEnd::Jump => b.link(1).filter(|&n| {
                    let target = self.blocks[n as usize].start;
                    target > b.last || back_to(target).is_some()
                }),
                BlockEnd::Call => b.link(1),
                _ => None,
            };
            match next {
                Some(n) => slot = n,
                None => break,
            }
        }
        chosen
    }
}

/// The way given first of a path end, region exit or region entry at a path end (the
/// probes [`BlockCache::refine_probes`] asks for again).
fn first_way(op: &mut ProbeOp) -> Option<&mut Option<ProbeEnd>> {
    match op {
        ProbeOp::End { first, .. }
        | ProbeOp::Pop { first, .. }
        | ProbeOp::PushEnd { first, .. } => Some(first),
        _ => None,
    }
}

/// Whether `again` is `probe` (one [`first_way`] names, with no way given first) with a
/// way given first.
fn refines(again: &Probe, probe: &Probe) -> bool {
    let mut bare = *again;
    first_way(&mut bare.op).is_some_and(|first| first.take().is_some()) && bare == *probe
}

//! Calls and their inclusive cost: a shadow call stack over the emulator's call and return
//! edges, the call graph that callgrind-format profiles (KCachegrind, `callgrind_annotate`)
//! show.
//!
//! The cost is instructions. A block's instructions count when it is entered (a block cut
//! short by a fault or the fuel limit counts whole, as in [`BlockProfile`](super::BlockProfile)),
//! so a call's inclusive cost is the instructions entered from the call's edge to the
//! return that comes back to the instruction after it.
//!
//! Returns are matched by address: a return to the address after some pending call's
//! instruction closes that call and every call made inside it that did not return
//! normally (`longjmp`, exceptions). A return that matches no pending call (a thread or
//! coroutine switch) closes nothing. Calls still pending when the run ends (the program
//! exits from inside `main`) close at the end. Tail calls (jumps to another function)
//! count as part of the function that jumped.

use std::collections::{HashMap, VecDeque};

use prof_events::{BlockEnd, BlockId, BlockInfo, Control, Edge, EdgeKind, Exit, Interest, Sink};

/// The deepest shadow stack kept. A deeper call closes the outermost pending call early
/// (its inclusive cost then stops there), so a program that calls without returning
/// cannot grow the profiler without bound.
pub const MAX_DEPTH: usize = 1 << 16;

/// One call arc: a call instruction and the function it reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallArc {
    /// Address of the call instruction.
    pub site: u64,
    /// Address it called.
    pub callee: u64,
}

/// What a call arc cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArcCost {
    /// Times the call was made.
    pub calls: u64,
    /// Instructions executed inside the calls (the callee and everything it called).
    pub inclusive: u64,
}

/// A pending call on the shadow stack.
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Index of its arc.
    arc: usize,
    /// The address a return must go to.
    ret: u64,
    /// Instructions entered when the call was made.
    start: u64,
}

/// A sink that records every call arc with its count and inclusive instruction cost.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    /// Instructions per block id.
    lens: Vec<u32>,
    /// End address per block id (where a call ending the block returns to).
    ends: Vec<u64>,
    /// Instructions entered so far.
    entered: u64,
    stack: VecDeque<Frame>,
    index: HashMap<CallArc, usize>,
    arcs: Vec<(CallArc, ArcCost)>,
}

impl CallGraph {
    /// An empty call graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every call arc with its cost, by call site then callee.
    pub fn arcs(&self) -> Vec<(CallArc, ArcCost)> {
        let mut arcs = self.arcs.clone();
        arcs.sort_by_key(|&(arc, _)| arc);
        arcs
    }

    /// Instructions entered so far (the sum of every entered block's length).
    pub fn instructions(&self) -> u64 {
        self.entered
    }

    fn call(&mut self, edge: &Edge) {
        let arc = CallArc {
            site: edge.pc,
            callee: edge.to,
        };
        let next = self.arcs.len();
        let i = *self.index.entry(arc).or_insert(next);
        if i == next {
            self.arcs.push((arc, ArcCost::default()));
        }
        if let Some((_, cost)) = self.arcs.get_mut(i) {
            cost.calls += 1;
        }
        if self.stack.len() >= MAX_DEPTH {
            if let Some(outermost) = self.stack.pop_front() {
                self.close(outermost);
            }
        }
        let ret = self.ret_addr(edge);
        self.stack.push_back(Frame {
            arc: i,
            ret,
            start: self.entered,
        });
    }

    /// The address a call's return goes to: the end of the calling block, since a call is
    /// its block's last instruction.
    fn ret_addr(&self, edge: &Edge) -> u64 {
        self.ends
            .get(edge.from.index())
            .copied()
            .unwrap_or(u64::MAX)
    }

    fn ret(&mut self, to: u64) {
        if let Some(depth) = self.stack.iter().rposition(|f| f.ret == to) {
            while self.stack.len() > depth {
                if let Some(f) = self.stack.pop_back() {
                    self.close(f);
                }
            }
        }
    }

    fn close(&mut self, frame: Frame) {
        if let Some((_, cost)) = self.arcs.get_mut(frame.arc) {
            cost.inclusive += self.entered - frame.start;
        }
    }
}

impl Sink for CallGraph {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn wants(&mut self) -> Interest {
        Interest::EXIT
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        let i = block.id.index();
        if self.lens.len() <= i {
            self.lens.resize(i + 1, 0);
            self.ends.resize(i + 1, u64::MAX);
        }
        self.lens[i] = block.insns;
        self.ends[i] = block.end;
        match block.ends_with {
            BlockEnd::Call | BlockEnd::IndirectCall | BlockEnd::Return => {
                Interest::BLOCK | Interest::EDGE
            }
            _ => Interest::BLOCK,
        }
    }

    #[inline]
    fn block(&mut self, id: BlockId, _pc: u64) -> Control {
        if let Some(&n) = self.lens.get(id.index()) {
            self.entered += u64::from(n);
        }
        Control::Continue
    }

    fn edge(&mut self, edge: &Edge) -> Control {
        match edge.kind {
            EdgeKind::Call | EdgeKind::IndirectCall => self.call(edge),
            EdgeKind::Return => self.ret(edge.to),
            _ => {}
        }
        Control::Continue
    }

    fn exit(&mut self, _: &Exit) {
        while let Some(f) = self.stack.pop_back() {
            self.close(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_events::ExitReason;

    /// Drives a `CallGraph` by hand: blocks are (start, end, insns, how they end).
    struct Run {
        g: CallGraph,
        blocks: Vec<BlockInfo>,
    }

    impl Run {
        fn new(blocks: &[(u64, u64, u32, BlockEnd)]) -> Run {
            let mut g = CallGraph::new();
            let blocks: Vec<BlockInfo> = blocks
                .iter()
                .enumerate()
                .map(|(i, &(start, end, insns, ends_with))| BlockInfo {
                    id: BlockId(i as u32),
                    start,
                    end,
                    insns,
                    ends_with,
                })
                .collect();
            for b in &blocks {
                g.interest(b);
            }
            Run { g, blocks }
        }

        /// Enters block `i`, then leaves it for `to` by an edge of `kind`.
        fn step(&mut self, i: usize, kind: EdgeKind, to: u64) -> &mut Self {
            let b = self.blocks[i];
            let _ = self.g.block(b.id, b.start);
            let _ = self.g.edge(&Edge {
                from: b.id,
                pc: b.end - 4,
                to,
                kind,
            });
            self
        }

        fn exit(&mut self) -> Vec<(CallArc, ArcCost)> {
            self.g.exit(&Exit {
                reason: ExitReason::Exited(0),
                pc: 0,
                instret: self.g.instructions(),
            });
            self.g.arcs()
        }
    }

    fn arc(site: u64, callee: u64, calls: u64, inclusive: u64) -> (CallArc, ArcCost) {
        (CallArc { site, callee }, ArcCost { calls, inclusive })
    }

    #[test]
    fn a_call_costs_what_runs_until_its_return() {
        // main calls f (0x200, 5 instructions) from 0x10c, then again from 0x114.
        let mut r = Run::new(&[
            (0x100, 0x110, 4, BlockEnd::Call),
            (0x200, 0x214, 5, BlockEnd::Return),
            (0x110, 0x118, 2, BlockEnd::Call),
        ]);
        r.step(0, EdgeKind::Call, 0x200)
            .step(1, EdgeKind::Return, 0x110)
            .step(2, EdgeKind::Call, 0x200)
            .step(1, EdgeKind::Return, 0x118);
        let arcs = r.exit();
        assert_eq!(arcs, [arc(0x10c, 0x200, 1, 5), arc(0x114, 0x200, 1, 5)]);
        assert_eq!(r.g.instructions(), 4 + 5 + 2 + 5);
    }

    #[test]
    fn a_return_past_pending_calls_closes_them_all() {
        // a (0x100) calls b (0x200), which calls c (0x300), which returns straight to a
        // (longjmp-like): b's and c's calls both end there.
        let mut r = Run::new(&[
            (0x100, 0x108, 2, BlockEnd::Call),
            (0x200, 0x20c, 3, BlockEnd::Call),
            (0x300, 0x310, 4, BlockEnd::Return),
            (0x108, 0x10c, 1, BlockEnd::Return),
        ]);
        r.step(0, EdgeKind::Call, 0x200)
            .step(1, EdgeKind::Call, 0x300)
            .step(2, EdgeKind::Return, 0x108)
            // A return that matches no pending call closes nothing.
            .step(3, EdgeKind::Return, 0x999);
        let arcs = r.exit();
        assert_eq!(arcs, [arc(0x104, 0x200, 1, 3 + 4), arc(0x208, 0x300, 1, 4)]);
    }

    #[test]
    fn recursion_and_calls_pending_at_exit() {
        // r (0x400) calls itself from 0x40c; the innermost activation exits the program.
        let mut r = Run::new(&[(0x400, 0x410, 4, BlockEnd::Call)]);
        r.step(0, EdgeKind::Call, 0x400)
            .step(0, EdgeKind::Call, 0x400)
            .step(0, EdgeKind::Call, 0x400);
        // The three calls, outermost first, close at the exit with 8, 4 and 0 instructions
        // entered after them.
        let arcs = r.exit();
        assert_eq!(arcs, [arc(0x40c, 0x400, 3, 8 + 4)]);
    }

    #[test]
    fn the_shadow_stack_is_bounded() {
        let mut r = Run::new(&[(0x400, 0x410, 1, BlockEnd::Call)]);
        for _ in 0..MAX_DEPTH + 10 {
            r.step(0, EdgeKind::Call, 0x400);
        }
        assert_eq!(r.g.stack.len(), MAX_DEPTH);
        let arcs = r.exit();
        assert_eq!(arcs[0].1.calls, (MAX_DEPTH + 10) as u64);
    }
}

//! Composition of sinks: [`Both`] (built by [`SinkExt::and`]) and tuples.

use crate::trace::replay;
use crate::{
    BlockId, BlockInfo, Control, Edge, Exit, Interest, MemAccess, Probe, ProbeLease, Sample, Sink,
    Syscall, TraceId, TracePart,
};

/// Two sinks as one. Each member receives only the events it asked for: `Both` keeps both
/// members' interest per block (one byte per block) and filters on it. It takes every
/// trace, and replays each run of one as events to a member that did not take it. The
/// probes of one member (the first that has them) run, on blocks the other wants no event
/// of.
#[derive(Debug, Clone, Default)]
pub struct Both<A, B> {
    a: A,
    b: B,
    /// Per block: the first member's interest in the low nibble, the second's in the high one.
    per_block: Vec<u8>,
    run_a: Interest,
    run_b: Interest,
    /// Per trace, for each member: `None` if it took the trace, else the parts to replay
    /// (none if it wants no event of any).
    traces: Vec<[Option<Box<[TracePart]>>; 2]>,
}

impl<A: Sink, B: Sink> Both<A, B> {
    /// Combines `a` and `b`.
    pub fn new(a: A, b: B) -> Self {
        Both {
            a,
            b,
            per_block: Vec::new(),
            run_a: Interest::NONE,
            run_b: Interest::NONE,
            traces: Vec::new(),
        }
    }

    /// The first member.
    pub fn first(&self) -> &A {
        &self.a
    }

    /// The second member.
    pub fn second(&self) -> &B {
        &self.b
    }

    /// Both members, by value.
    pub fn into_inner(self) -> (A, B) {
        (self.a, self.b)
    }

    /// The probing member's probe (asked through `ask`), for a block the other member wants
    /// no event of.
    fn probing(
        &mut self,
        block: &BlockInfo,
        ask: impl FnOnce(&mut dyn Sink, &BlockInfo) -> Option<Probe>,
    ) -> Option<Probe> {
        let (ia, ib) = self.split(block.id);
        if self.a.probe_state().is_some() {
            ib.is_empty().then(|| ask(&mut self.a, block)).flatten()
        } else {
            ia.is_empty().then(|| ask(&mut self.b, block)).flatten()
        }
    }

    #[inline(always)]
    fn split(&self, id: BlockId) -> (Interest, Interest) {
        let packed = self.per_block.get(id.index()).copied().unwrap_or(0);
        (
            Interest::from_bits_truncate(packed & 0xf),
            Interest::from_bits_truncate(packed >> 4),
        )
    }
}

impl<A: Sink, B: Sink> Sink for Both<A, B> {
    fn wants(&mut self) -> Interest {
        self.run_a = self.a.wants();
        self.run_b = self.b.wants();
        self.run_a | self.run_b
    }

    fn watches_blocks(&mut self) -> bool {
        // `|`, not `||`: both members are asked, as for `wants`.
        self.a.watches_blocks() | self.b.watches_blocks()
    }

    fn may_stop(&mut self) -> bool {
        self.a.may_stop() | self.b.may_stop()
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        let ia = self.a.interest(block) & Interest::ALL_BLOCK;
        let ib = self.b.interest(block) & Interest::ALL_BLOCK;
        let i = block.id.index();
        if self.per_block.len() <= i {
            self.per_block.resize(i + 1, 0);
        }
        self.per_block[i] = ia.bits() | ib.bits() << 4;
        ia | ib
    }

    #[inline]
    fn block(&mut self, id: BlockId, pc: u64) -> Control {
        let (ia, ib) = self.split(id);
        let mut c = Control::Continue;
        if ia.contains(Interest::BLOCK) {
            c = c.or(self.a.block(id, pc));
        }
        if ib.contains(Interest::BLOCK) {
            c = c.or(self.b.block(id, pc));
        }
        c
    }

    #[inline]
    fn edge(&mut self, edge: &Edge) -> Control {
        let (ia, ib) = self.split(edge.from);
        let mut c = Control::Continue;
        if ia.contains(Interest::EDGE) {
            c = c.or(self.a.edge(edge));
        }
        if ib.contains(Interest::EDGE) {
            c = c.or(self.b.edge(edge));
        }
        c
    }

    fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
        // Each member sees the parts with its own interest.
        let (pa, pb): (Vec<TracePart>, Vec<TracePart>) = parts
            .iter()
            .map(|p| {
                let (ia, ib) = self.split(p.block);
                let own = |i: Interest| TracePart {
                    interest: p.interest & i,
                    ..*p
                };
                (own(ia), own(ib))
            })
            .unzip();
        let took_a = self.a.trace_formed(id, &pa);
        let took_b = self.b.trace_formed(id, &pb);
        if self.traces.len() <= id.index() {
            self.traces.resize(id.index() + 1, [None, None]);
        }
        // A member that wants no event of the parts gets no replay.
        let replay = |took: bool, parts: Vec<TracePart>| {
            let wanted = |p: &TracePart| p.interest.intersects(Interest::BLOCK | Interest::EDGE);
            (!took).then(|| match parts.iter().any(wanted) {
                true => parts.into_boxed_slice(),
                false => Box::default(),
            })
        };
        self.traces[id.index()] = [replay(took_a, pa), replay(took_b, pb)];
        true
    }

    fn trace(&mut self, id: TraceId, n: u32) -> Control {
        let Some([ra, rb]) = self.traces.get(id.index()) else {
            return Control::Continue;
        };
        let ca = match ra {
            None => self.a.trace(id, n),
            Some(parts) => replay(&mut self.a, parts, n as usize),
        };
        let cb = match rb {
            None => self.b.trace(id, n),
            Some(parts) => replay(&mut self.b, parts, n as usize),
        };
        ca.or(cb)
    }

    #[inline]
    fn mem(&mut self, access: &MemAccess) -> Control {
        let (ia, ib) = self.split(access.block);
        let mut c = Control::Continue;
        if ia.contains(Interest::MEM) {
            let mut own = *access;
            if !ia.contains(Interest::MEM_VALUES) {
                own.value = 0;
            }
            c = c.or(self.a.mem(&own));
        }
        if ib.contains(Interest::MEM) {
            let mut own = *access;
            if !ib.contains(Interest::MEM_VALUES) {
                own.value = 0;
            }
            c = c.or(self.b.mem(&own));
        }
        c
    }

    fn sample(&mut self, sample: &Sample) -> Control {
        let mut c = Control::Continue;
        if self.run_a.contains(Interest::SAMPLE) {
            c = c.or(self.a.sample(sample));
        }
        if self.run_b.contains(Interest::SAMPLE) {
            c = c.or(self.b.sample(sample));
        }
        c
    }

    fn syscall(&mut self, call: &Syscall) -> Control {
        let mut c = Control::Continue;
        if self.run_a.contains(Interest::SYSCALL) {
            c = c.or(self.a.syscall(call));
        }
        if self.run_b.contains(Interest::SYSCALL) {
            c = c.or(self.b.syscall(call));
        }
        c
    }

    fn exit(&mut self, exit: &Exit) {
        self.a.exit(exit);
        self.b.exit(exit);
    }

    /// The first member's state if it has probes, else the second's: one member's probes
    /// run in a run.
    fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
        match self.a.probe_state() {
            Some(state) => Some(state),
            None => self.b.probe_state(),
        }
    }

    /// Whether the probing member's probes may save sums.
    fn saves_sums(&mut self) -> bool {
        match self.a.probe_state() {
            Some(_) => self.a.saves_sums(),
            None => self.b.saves_sums(),
        }
    }

    /// The probing member's probe, for a block the other member wants no event of.
    fn probe(&mut self, block: &BlockInfo, to: u64) -> Option<Probe> {
        self.probing(block, |s, b| s.probe(b, to))
    }

    /// As [`probe`](Sink::probe).
    fn probe_return(&mut self, block: &BlockInfo) -> Option<Probe> {
        self.probing(block, |s, b| s.probe_return(b))
    }
}

/// The named combinator: `a.and(b)` reads better than nested tuples.
pub trait SinkExt: Sink + Sized {
    /// A sink that delivers to `self` and `other`, each only what it asked for.
    fn and<B: Sink>(self, other: B) -> Both<Self, B> {
        Both::new(self, other)
    }
}

impl<S: Sink> SinkExt for S {}

/// Tuples deliver every event to every member: a member may see events of blocks that only
/// another member asked for, and a value of 0 in a [`MemAccess`] it did not ask values for.
/// That keeps tuples stateless; use [`SinkExt::and`] when members must be filtered.
macro_rules! tuple_sink {
    ($($name:ident . $idx:tt),+) => {
        impl<$($name: Sink),+> Sink for ($($name,)+) {
            #[inline]
            fn wants(&mut self) -> Interest {
                Interest::NONE $(| self.$idx.wants())+
            }
            #[inline]
            fn watches_blocks(&mut self) -> bool {
                // Every member is asked (no short circuit), as for `wants`.
                false $(| self.$idx.watches_blocks())+
            }
            #[inline]
            fn may_stop(&mut self) -> bool {
                false $(| self.$idx.may_stop())+
            }
            /// A tuple takes a trace only if every member does (every member is asked).
            #[inline]
            fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
                true $(& self.$idx.trace_formed(id, parts))+
            }
            #[inline]
            fn trace(&mut self, id: TraceId, n: u32) -> Control {
                Control::Continue $(.or(self.$idx.trace(id, n)))+
            }
            #[inline]
            fn interest(&mut self, block: &BlockInfo) -> Interest {
                Interest::NONE $(| self.$idx.interest(block))+
            }
            #[inline]
            fn block(&mut self, id: BlockId, pc: u64) -> Control {
                Control::Continue $(.or(self.$idx.block(id, pc)))+
            }
            #[inline]
            fn edge(&mut self, edge: &Edge) -> Control {
                Control::Continue $(.or(self.$idx.edge(edge)))+
            }
            #[inline]
            fn mem(&mut self, access: &MemAccess) -> Control {
                Control::Continue $(.or(self.$idx.mem(access)))+
            }
            #[inline]
            fn sample(&mut self, sample: &Sample) -> Control {
                Control::Continue $(.or(self.$idx.sample(sample)))+
            }
            #[inline]
            fn syscall(&mut self, call: &Syscall) -> Control {
                Control::Continue $(.or(self.$idx.syscall(call)))+
            }
            #[inline]
            fn exit(&mut self, exit: &Exit) {
                $(self.$idx.exit(exit);)+
            }
        }
    };
}

tuple_sink!(A.0, B.1);
tuple_sink!(A.0, B.1, C.2);
tuple_sink!(A.0, B.1, C.2, D.3);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BlockEnd, EdgeKind, Event, MemKind, Recorder};

    fn info(id: u32) -> BlockInfo {
        BlockInfo {
            id: BlockId(id),
            start: 0,
            end: 4,
            insns: 1,
            ends_with: BlockEnd::Jump,
        }
    }

    /// Asks for edges, and has probes (of key 7) if `probes`, which save no sums.
    #[derive(Default)]
    struct Prober(crate::ProbeState, bool);

    impl Sink for Prober {
        fn interest(&mut self, _: &BlockInfo) -> Interest {
            Interest::EDGE
        }
        fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
            self.1.then_some(ProbeLease {
                state: &mut self.0,
                counts: &mut [],
                ends: &[],
            })
        }
        fn saves_sums(&mut self) -> bool {
            false
        }
        fn probe(&mut self, _: &BlockInfo, to: u64) -> Option<Probe> {
            Some(Probe {
                key: 7,
                epoch: 0,
                next: to,
                op: crate::ProbeOp::Add(1),
            })
        }
    }

    #[test]
    fn both_runs_one_members_probes_where_the_other_wants_nothing() {
        let probes = || Prober(crate::ProbeState::default(), true);
        let mut s = probes().and(Recorder::new(Interest::NONE));
        assert!(s.probe_state().is_some());
        assert_eq!(s.interest(&info(0)), Interest::EDGE);
        assert_eq!(s.probe(&info(0), 4).map(|p| p.next), Some(4));
        let mut s = Recorder::new(Interest::BLOCK).and(probes());
        assert!(s.probe_state().is_some());
        let _ = s.interest(&info(0));
        assert_eq!(
            s.probe(&info(0), 4),
            None,
            "the first member wants its block event"
        );
        let mut s = Recorder::new(Interest::NONE).and(probes());
        let _ = s.interest(&info(0));
        assert!(s.probe(&info(0), 4).is_some());
        let mut s = Prober::default().and(Prober::default());
        assert!(s.probe_state().is_none());
    }

    #[test]
    fn both_saves_sums_where_its_probing_member_does() {
        let probes = || Prober(crate::ProbeState::default(), true);
        assert!(!probes().and(Recorder::new(Interest::NONE)).saves_sums());
        assert!(!Recorder::new(Interest::NONE).and(probes()).saves_sums());
        // The first member would save none, but has no probes: the second's answer.
        let mut s = Prober::default().and(Recorder::new(Interest::NONE));
        assert!(s.saves_sums());
    }

    #[test]
    fn both_filters_per_member() {
        let mut s =
            Recorder::new(Interest::BLOCK).and(Recorder::new(Interest::EDGE | Interest::MEM));
        assert_eq!(
            s.interest(&info(0)),
            Interest::BLOCK | Interest::EDGE | Interest::MEM
        );
        let _ = s.block(BlockId(0), 0);
        let _ = s.edge(&Edge {
            from: BlockId(0),
            pc: 0,
            to: 4,
            kind: EdgeKind::Jump,
        });
        let _ = s.mem(&MemAccess {
            block: BlockId(0),
            pc: 0,
            addr: 8,
            size: 4,
            kind: MemKind::Load,
            value: 7,
        });
        let (a, b) = s.into_inner();
        assert!(a
            .events
            .iter()
            .all(|e| matches!(e, Event::Interest(..) | Event::Block(..))));
        assert_eq!(a.events.len(), 2);
        assert_eq!(b.events.len(), 3);
        // b asked for MEM without values: the value is hidden.
        assert!(matches!(
            b.events[2],
            Event::Mem(MemAccess { value: 0, .. })
        ));
    }

    #[test]
    fn stop_from_either_member_stops() {
        struct Stopper;
        impl Sink for Stopper {
            fn interest(&mut self, _: &BlockInfo) -> Interest {
                Interest::BLOCK
            }
            fn block(&mut self, _: BlockId, _: u64) -> Control {
                Control::Stop
            }
        }
        let mut s = ().and(Stopper);
        let _ = s.interest(&info(0));
        assert_eq!(s.block(BlockId(0), 0), Control::Stop);
        let mut t = ((), Stopper);
        assert_eq!(t.block(BlockId(0), 0), Control::Stop);
    }

    /// Says `watches` and counts how often it was asked.
    #[derive(Default)]
    struct Watches {
        watches: bool,
        asked: u32,
    }
    impl Sink for Watches {
        fn watches_blocks(&mut self) -> bool {
            self.asked += 1;
            self.watches
        }
    }
    fn watches(w: bool) -> Watches {
        Watches {
            watches: w,
            asked: 0,
        }
    }

    #[test]
    fn combinators_watch_blocks_if_any_member_does_and_ask_every_member() {
        for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut both = watches(a).and(watches(b));
            assert_eq!(both.watches_blocks(), a || b, "Both {a} {b}");
            assert_eq!((both.first().asked, both.second().asked), (1, 1));
            let mut pair = (watches(a), watches(b));
            assert_eq!(pair.watches_blocks(), a || b, "pair {a} {b}");
            assert_eq!((pair.0.asked, pair.1.asked), (1, 1));
            let mut triple = (watches(false), watches(a), watches(b));
            assert_eq!(triple.watches_blocks(), a || b, "triple {a} {b}");
            let mut quad = (watches(a), (), watches(b), watches(false));
            assert_eq!(quad.watches_blocks(), a || b, "quad {a} {b}");
            assert_eq!((quad.0.asked, quad.2.asked, quad.3.asked), (1, 1, 1));
        }
        // `()` watches nothing; a member with the default watches.
        assert!(!().and(()).watches_blocks());
        assert!(().and(Recorder::default()).watches_blocks());
        assert!(((), Recorder::default()).watches_blocks());
        assert!(!((), None::<Recorder>, ()).watches_blocks());
    }

    /// Never stops, or may (the default).
    struct Stops(bool);
    impl Sink for Stops {
        fn may_stop(&mut self) -> bool {
            self.0
        }
    }

    #[test]
    fn combinators_may_stop_if_any_member_may() {
        for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
            assert_eq!(Stops(a).and(Stops(b)).may_stop(), a || b, "Both {a} {b}");
            assert_eq!((Stops(a), Stops(b)).may_stop(), a || b, "pair {a} {b}");
            assert_eq!(
                (Stops(a), (), Stops(b)).may_stop(),
                a || b,
                "triple {a} {b}"
            );
        }
        // `()`, `None` and the recorder never stop; a sink with the default may.
        assert!(!().and(Recorder::default()).may_stop());
        assert!(!Option::<Stops>::None.may_stop());
        assert!(Some(Stops(true)).may_stop());
        assert!(Watches::default().may_stop(), "the default is true");
        let mut boxed: Box<dyn Sink> = Box::new(Stops(false));
        assert!(!boxed.may_stop());
    }

    /// Wants block events and takes traces if `takes`, recording what it got.
    #[derive(Default)]
    struct Traces {
        takes: bool,
        formed: Vec<Vec<TracePart>>,
        runs: Vec<(TraceId, u32)>,
        blocks: Vec<BlockId>,
    }
    impl Sink for Traces {
        fn interest(&mut self, _: &BlockInfo) -> Interest {
            Interest::BLOCK
        }
        fn block(&mut self, id: BlockId, _: u64) -> Control {
            self.blocks.push(id);
            Control::Continue
        }
        fn trace_formed(&mut self, _: TraceId, parts: &[TracePart]) -> bool {
            self.formed.push(parts.to_vec());
            self.takes
        }
        fn trace(&mut self, id: TraceId, n: u32) -> Control {
            self.runs.push((id, n));
            Control::Continue
        }
    }

    /// Three parts, blocks 0, 1 and 2 in a row, with block and edge events.
    fn three_parts() -> Vec<TracePart> {
        (0..3u32)
            .map(|i| TracePart {
                block: BlockId(i),
                pc: u64::from(i) * 4,
                interest: Interest::BLOCK | Interest::EDGE,
                edge: Edge {
                    from: BlockId(i),
                    pc: u64::from(i) * 4,
                    to: u64::from(i + 1) * 4,
                    kind: EdgeKind::FallThrough,
                },
            })
            .collect()
    }

    #[test]
    fn both_takes_traces_and_replays_them_to_a_member_that_does_not() {
        let taker = Traces {
            takes: true,
            ..Traces::default()
        };
        let mut both = taker.and(Recorder::new(Interest::EDGE));
        for i in 0..3 {
            let _ = both.interest(&info(i));
        }
        let parts = three_parts();
        assert!(both.trace_formed(TraceId(0), &parts));
        assert_eq!(both.trace(TraceId(0), 2), Control::Continue);
        let (taker, recorder) = both.into_inner();
        // The taker sees its own interest in the parts, and the run as one call.
        assert!(taker.formed[0]
            .iter()
            .all(|p| p.interest == Interest::BLOCK));
        assert_eq!(taker.runs, [(TraceId(0), 2)]);
        assert!(taker.blocks.is_empty());
        // The recorder gets the events the run stands for, filtered to what it asked for:
        // the edge from the first part to the second (the second's exit is the driver's).
        let events: Vec<_> = recorder.events.into_iter().skip(3).collect();
        assert_eq!(events, [Event::Edge(parts[0].edge)]);
    }

    #[test]
    fn a_tuple_takes_a_trace_only_if_every_member_does() {
        let parts = three_parts();
        let take = |t| Traces {
            takes: t,
            ..Traces::default()
        };
        let mut pair = (take(true), take(false));
        assert!(!pair.trace_formed(TraceId(0), &parts));
        assert_eq!(
            (pair.0.formed.len(), pair.1.formed.len()),
            (1, 1),
            "both asked"
        );
        let mut pair = (take(true), take(true));
        assert!(pair.trace_formed(TraceId(0), &parts));
        let _ = pair.trace(TraceId(0), 3);
        assert_eq!(pair.1.runs, [(TraceId(0), 3)]);
        // `replay` delivers a run as events: blocks of all three, edges between them.
        let mut r = Recorder::new(Interest::BLOCK | Interest::EDGE);
        let _ = replay(&mut r, &parts, 3);
        assert_eq!(r.events.len(), 5);
    }

    #[test]
    fn tuple_takes_union() {
        let mut t = (
            Recorder::new(Interest::BLOCK),
            Recorder::new(Interest::MEM_VALUES),
        );
        assert_eq!(t.interest(&info(1)), Interest::BLOCK | Interest::MEM_VALUES);
    }
}

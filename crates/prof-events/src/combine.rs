//! Composition of sinks: [`Both`] (built by [`SinkExt::and`]) and tuples.

use crate::{BlockId, BlockInfo, Control, Edge, Exit, Interest, MemAccess, Sample, Sink, Syscall};

/// Two sinks as one. Each member receives only the events it asked for: `Both` keeps both
/// members' interest per block (one byte per block) and filters on it.
#[derive(Debug, Clone, Default)]
pub struct Both<A, B> {
    a: A,
    b: B,
    /// Per block: the first member's interest in the low nibble, the second's in the high one.
    per_block: Vec<u8>,
    run_a: Interest,
    run_b: Interest,
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

    #[test]
    fn tuple_takes_union() {
        let mut t = (
            Recorder::new(Interest::BLOCK),
            Recorder::new(Interest::MEM_VALUES),
        );
        assert_eq!(t.interest(&info(1)), Interest::BLOCK | Interest::MEM_VALUES);
    }
}

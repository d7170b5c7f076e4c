//! # prof-events: the vocabulary every profkit crate speaks
//!
//! This crate is the small interface at the bottom of profkit. It defines
//!
//! - dense id newtypes ([`BlockId`]) so analyses index vectors, not hash maps;
//! - the block-granular event model: [`BlockInfo`] (what a translated block is),
//!   [`Interest`] (what a sink wants for it), and the run-time events [`Edge`],
//!   [`MemAccess`], [`Sample`], [`Syscall`] and [`Exit`];
//! - the [`Sink`] trait with its combinators: `()`, tuples, [`Option`], `&mut S`,
//!   `Box<dyn Sink>` and [`SinkExt::and`];
//! - [`probe`]: edge work compiled into the driver's code in place of edge events, and
//!   [`NoOpProbes`], probes that do no work, the floor of their cost;
//! - [`CodeView`], the read-only view of a program's code used by ISA-independent
//!   analyses (CFG recovery, trace reconstruction, reports).
//!
//! ## Features
//!
//! - `proptest`: strategies for the vocabulary's types and for consistent event streams
//!   (`prof_events::strategies`), for property tests of sinks.
//!
//! It depends on nothing (but proptest, optionally), so an analysis crate can depend on it without pulling in the
//! emulator, and test suites can drive analyses with synthetic event streams.
//!
//! ## The cost model
//!
//! The emulator (the *driver*) owns the hot loop and pushes events into a sink. A sink pays
//! only for what it asks:
//!
//! 1. **Translation time, once per block.** When the driver decodes a basic block it calls
//!    [`Sink::interest`] with the block's [`BlockInfo`]. The answer is cached in the block.
//!    This is the only call a sink that wants nothing ever receives, and it happens once per
//!    distinct block, not once per execution.
//! 2. **Run time, per wanted event.** When a cached block runs, the driver tests the cached
//!    bits and calls only the wanted hooks: [`Sink::block`] on entry, [`Sink::edge`] for the
//!    control transfer at its end, [`Sink::mem`] for every load and store (with the value only
//!    if [`Interest::MEM_VALUES`] was asked). A block whose interest is empty runs exactly as
//!    it would with no sink at all.
//! 3. **Run-wide events** ([`Sink::syscall`], [`Sink::sample`], [`Sink::exit`]) are rare and
//!    gated by [`Sink::wants`], asked once at the start of a run.
//!
//! A sink that never wants block events says so with [`Sink::watches_blocks`] (asked once
//! at the start of a run; `()` and `None` say `false`). The driver then need not ask it
//! about blocks at all, and is free to run several basic blocks as one.
//!
//! A sink that watches blocks but never stops a run from [`Sink::block`] or [`Sink::edge`]
//! says so with [`Sink::may_stop`] returning `false` (the default is `true`). The driver may
//! then also run several basic blocks as one and deliver their events, unchanged and in
//! order, after them: a counting or recording sink should say it. Such a run of blocks is
//! announced once as a *trace* ([`Sink::trace_formed`], with its [`TracePart`]s), and a
//! sink that takes it receives each run through it as one [`Sink::trace`] call instead of
//! its events: what a counting sink needs to count a run of blocks with one add.
//!
//! A sink whose edges only add constants to a running sum and count the sum in a table
//! (Ball-Larus path profiling) can go further: it lends the driver a [`ProbeLease`]
//! ([`Sink::probe_state`]) and gives each fixed exit of a block a [`Probe`]
//! ([`Sink::probe`]; a call's and a tail call's too, an indirect call's per target) and a
//! return its own
//! ([`Sink::probe_return`]), which a
//! driver that compiles blocks runs in the block's code instead of delivering the edge
//! event (see [`probe`] for the contract).
//!
//! ```
//! use prof_events::{
//!     part_counts, BlockEnd, BlockId, BlockInfo, Control, Edge, EdgeKind, Exit, ExitReason,
//!     Interest, Sink, TraceId, TracePart,
//! };
//!
//! /// Counts block entries; a run of a trace is one add, settled into the counts at the exit.
//! #[derive(Default)]
//! struct Counts {
//!     per_block: Vec<u64>,
//!     traces: Vec<(Vec<BlockId>, Vec<u64>)>,
//! }
//!
//! impl Sink for Counts {
//!     fn may_stop(&mut self) -> bool {
//!         false
//!     }
//!     fn interest(&mut self, block: &BlockInfo) -> Interest {
//!         self.per_block.resize(self.per_block.len().max(block.id.index() + 1), 0);
//!         Interest::BLOCK
//!     }
//!     fn block(&mut self, id: BlockId, _pc: u64) -> Control {
//!         self.per_block[id.index()] += 1;
//!         Control::Continue
//!     }
//!     fn trace_formed(&mut self, _id: TraceId, parts: &[TracePart]) -> bool {
//!         // Trace ids are dense, in order of announcement.
//!         let blocks = parts.iter().map(|p| p.block).collect();
//!         self.traces.push((blocks, vec![0; parts.len()]));
//!         true
//!     }
//!     fn trace(&mut self, id: TraceId, n: u32) -> Control {
//!         self.traces[id.index()].1[n as usize - 1] += 1;
//!         Control::Continue
//!     }
//!     fn exit(&mut self, _: &Exit) {
//!         for (blocks, runs) in &self.traces {
//!             for (b, (entries, _edges)) in blocks.iter().zip(part_counts(runs)) {
//!                 self.per_block[b.index()] += entries;
//!             }
//!         }
//!     }
//! }
//!
//! // A driver announces blocks 0, 1 and 2, then a trace of blocks 1 and 2.
//! let mut sink = Counts::default();
//! for i in 0..3 {
//!     let info = BlockInfo { id: BlockId(i), start: 8 * u64::from(i), end: 8 * u64::from(i) + 8,
//!                            insns: 2, ends_with: BlockEnd::FallThrough };
//!     assert_eq!(sink.interest(&info), Interest::BLOCK);
//! }
//! let part = |i: u32| TracePart {
//!     block: BlockId(i),
//!     pc: 8 * u64::from(i),
//!     interest: Interest::BLOCK,
//!     edge: Edge { from: BlockId(i), pc: 8 * u64::from(i) + 4, to: 8 * u64::from(i) + 8,
//!                  kind: EdgeKind::FallThrough },
//! };
//! assert!(sink.trace_formed(TraceId(0), &[part(1), part(2)]));
//! // Block 0 runs alone; the trace runs twice through both parts and once only through
//! // the first (a side exit).
//! let _ = sink.block(BlockId(0), 0);
//! for n in [2, 2, 1] {
//!     let _ = sink.trace(TraceId(0), n);
//! }
//! sink.exit(&Exit { reason: ExitReason::Exited(0), pc: 0, instret: 0 });
//! assert_eq!(sink.per_block, [1, 3, 2]);
//! ```
//!
//! The driver's run loop is generic over `S: Sink`, so with `()` every hook is an inlined
//! empty function and the interest test folds to a constant.
//!
//! ## Composition
//!
//! Combined sinks see the union of their members' interests. Each member still receives only
//! the events it asked for: the combinator ([`Both`], built by [`SinkExt::and`] or a tuple)
//! remembers each member's interest per block and filters. Hooks return [`Control`]; a
//! [`Control::Stop`] from any member stops the run at the next block boundary, and
//! [`Sink::exit`] is still delivered to every member.
//!
//! ```
//! use prof_events::{BlockId, BlockInfo, Control, Interest, Sink, SinkExt, BlockEnd};
//!
//! #[derive(Default)]
//! struct CountBlocks(Vec<u64>);
//!
//! impl Sink for CountBlocks {
//!     fn interest(&mut self, block: &BlockInfo) -> Interest {
//!         let i = block.id.index();
//!         if self.0.len() <= i { self.0.resize(i + 1, 0); }
//!         Interest::BLOCK
//!     }
//!     fn block(&mut self, id: BlockId, _pc: u64) -> Control {
//!         self.0[id.index()] += 1;
//!         Control::Continue
//!     }
//! }
//!
//! // A driver (normally isa-emu) announces a block, then runs it twice.
//! let mut sink = CountBlocks::default().and(());
//! let info = BlockInfo { id: BlockId(0), start: 0x1000, end: 0x1008, insns: 2, ends_with: BlockEnd::Return };
//! assert!(sink.interest(&info).contains(Interest::BLOCK));
//! sink.block(BlockId(0), 0x1000);
//! sink.block(BlockId(0), 0x1000);
//! assert_eq!(sink.first().0[0], 2);
//! ```
#![forbid(unsafe_code)]

mod code_view;
mod combine;
mod event;
mod id;
mod interest;
mod noop;
pub mod probe;
mod recorder;
#[cfg(feature = "proptest")]
pub mod strategies;
mod trace;

pub use code_view::{CodeView, FlowClass, InsnInfo};
pub use combine::{Both, SinkExt};
pub use event::{
    BlockEnd, BlockInfo, Edge, EdgeKind, Exit, ExitReason, MemAccess, MemKind, Sample, Syscall,
};
pub use id::{BlockId, TraceId};
pub use interest::Interest;
pub use noop::NoOpProbes;
pub use probe::{Frame, Probe, ProbeEnd, ProbeLease, ProbeOp, ProbeState, FRAMES, SAVES};
pub use recorder::{Event, Recorder};
pub use trace::{part_counts, replay, TracePart};

/// What a hook tells the driver: go on, or stop the run at the next block boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[must_use]
pub enum Control {
    /// Keep running.
    #[default]
    Continue,
    /// Stop the run at the next block boundary; [`Sink::exit`] is still called.
    Stop,
}

impl Control {
    /// `Stop` if either is `Stop`.
    #[inline(always)]
    pub fn or(self, other: Control) -> Control {
        if self == Control::Stop || other == Control::Stop {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

/// A consumer of execution events. Every hook has an empty default, so a sink implements
/// only what it uses; see the crate docs for the cost model.
///
/// The trait is object safe: `Box<dyn Sink>` is a sink too.
pub trait Sink {
    /// Run-wide events wanted for this run: any of [`Interest::SYSCALL`],
    /// [`Interest::SAMPLE`], [`Interest::EXIT`]. Asked once when a run starts.
    #[inline]
    fn wants(&mut self) -> Interest {
        Interest::EXIT
    }

    /// Whether this sink may want events of any block. Asked once when a run starts.
    ///
    /// A sink that returns `false` promises that [`Sink::interest`] returns
    /// [`Interest::NONE`] for every block of the run, so it never receives
    /// [`Sink::block`], [`Sink::edge`] or [`Sink::mem`]: the driver may then skip asking
    /// it about blocks and may run several basic blocks as one (superblocks), whose
    /// [`BlockInfo`]s it never announces. Run-wide events ([`Sink::wants`]) are not
    /// affected. The default, `true`, is always correct.
    #[inline]
    fn watches_blocks(&mut self) -> bool {
        true
    }

    /// Whether this sink may return [`Control::Stop`] from [`Sink::block`] or
    /// [`Sink::edge`]. Asked once when a run starts.
    ///
    /// A sink that returns `false` promises never to stop a run from those two hooks. The
    /// driver may then run several basic blocks as one and deliver their block and edge
    /// events, in the same order and with the same contents, after the whole run of them
    /// (event superblocks): a stop would land several blocks late. The default, `true`, is
    /// always correct; a sink that only counts or records should return `false`.
    #[inline]
    fn may_stop(&mut self) -> bool {
        true
    }

    /// Called once when the driver translates a block; the answer is cached with the block.
    /// Block ids are dense and assigned in order of first translation, so a sink may use
    /// them to index its own vectors. Not called in a run where
    /// [`Sink::watches_blocks`] returned `false`.
    #[inline]
    fn interest(&mut self, _block: &BlockInfo) -> Interest {
        Interest::NONE
    }

    /// The block `id` starting at `pc` is about to execute.
    #[inline]
    fn block(&mut self, _id: BlockId, _pc: u64) -> Control {
        Control::Continue
    }

    /// The control transfer that ended block `edge.from` happened.
    #[inline]
    fn edge(&mut self, _edge: &Edge) -> Control {
        Control::Continue
    }

    /// The driver formed trace `id`: `parts`, blocks already announced by
    /// [`Sink::interest`], that it will run as one from now on. Return `true` to receive
    /// each run through it as one [`Sink::trace`] call instead of its parts' block and edge
    /// events (a counting sink can then count runs of the trace, and its parts' counts
    /// follow). Called only in runs where [`Sink::may_stop`] returned `false`. `true` is a
    /// request: a combinator may still deliver the events one by one, so a sink must take
    /// them either way. The default is `false`.
    #[inline]
    fn trace_formed(&mut self, _id: TraceId, _parts: &[TracePart]) -> bool {
        false
    }

    /// A run through the first `n` parts (at least one) of trace `id` happened. It stands
    /// for the block and edge events [`replay`] delivers for them; the exit of the last part
    /// that ran follows as an ordinary edge event. Called only for traces whose
    /// [`Sink::trace_formed`] returned `true`.
    #[inline]
    fn trace(&mut self, _id: TraceId, _n: u32) -> Control {
        Control::Continue
    }

    /// A memory access of an instruction of a block that asked for [`Interest::MEM`].
    #[inline]
    fn mem(&mut self, _access: &MemAccess) -> Control {
        Control::Continue
    }

    /// A sampling interrupt fired.
    #[inline]
    fn sample(&mut self, _sample: &Sample) -> Control {
        Control::Continue
    }

    /// A system call completed (or an environment call was handled).
    #[inline]
    fn syscall(&mut self, _call: &Syscall) -> Control {
        Control::Continue
    }

    /// The run ended. Always the last event of a run.
    #[inline]
    fn exit(&mut self, _exit: &Exit) {}

    /// The state, counters and path ends this sink's probes run on (see [`probe`]), lent
    /// to the driver until it calls a hook again; `None` (the default) if the sink has no
    /// probes. A driver that
    /// runs probes asks once when a run starts (a sink that returns `None` then gets no
    /// [`Sink::probe`] call in the run) and again before each stretch of compiled code.
    #[inline]
    fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
        None
    }

    /// Whether this sink's probes may save sums ([`ProbeOp::Push`] and its kin, or a call,
    /// tail call or restart that saves one). Asked once when a run that runs the sink's
    /// probes starts.
    ///
    /// A sink that returns `false` (a flat path profile's) promises that its state's
    /// `saved` and `floor`, and the `floor` of every frame in it (open or not), stay 0.
    /// The driver may then leave out of its compiled calls and returns the floor that they
    /// would save, check and restore, and never run a probe that saves a sum (its event is
    /// delivered instead); it lends no state that breaks the promise. The default, `true`,
    /// is always correct.
    #[inline]
    fn saves_sums(&mut self) -> bool {
        true
    }

    /// The probe for the exit of `block` to `to`, a fixed next pc (a branch's target or
    /// fall-through, a jump's or call's target), if the sink has one; `None` where it wants
    /// the event. Asked when `block` was just announced by [`Sink::interest`] with
    /// [`Interest::EDGE`] and nothing else, in runs where [`Sink::probe_state`] returned a
    /// state. For an indirect call ([`BlockEnd::IndirectCall`]) or jump
    /// ([`BlockEnd::IndirectJump`]) it is asked later, with the target it went to, just
    /// before its edge event (a driver may keep the probe, a [`ProbeOp::Call`] or a
    /// [`ProbeOp::Restart`], for transfers to the same target).
    #[inline]
    fn probe(&mut self, _block: &BlockInfo, _to: u64) -> Option<Probe> {
        None
    }

    /// The probe for the indirect exit of `block`, a return ([`BlockEnd::Return`]):
    /// [`ProbeOp::Return`] or `None`. Asked as [`Sink::probe`] is.
    #[inline]
    fn probe_return(&mut self, _block: &BlockInfo) -> Option<Probe> {
        None
    }
}

impl Sink for () {
    #[inline(always)]
    fn wants(&mut self) -> Interest {
        Interest::NONE
    }
    #[inline(always)]
    fn watches_blocks(&mut self) -> bool {
        false
    }
    #[inline(always)]
    fn may_stop(&mut self) -> bool {
        false
    }
}

/// Pointers to sinks are sinks: every hook forwards to the pointee.
macro_rules! forward_sink {
    ($($ptr:ty),+) => {$(
        impl<S: Sink + ?Sized> Sink for $ptr {
            #[inline(always)]
            fn wants(&mut self) -> Interest {
                (**self).wants()
            }
            #[inline(always)]
            fn watches_blocks(&mut self) -> bool {
                (**self).watches_blocks()
            }
            #[inline(always)]
            fn may_stop(&mut self) -> bool {
                (**self).may_stop()
            }
            #[inline(always)]
            fn interest(&mut self, block: &BlockInfo) -> Interest {
                (**self).interest(block)
            }
            #[inline(always)]
            fn block(&mut self, id: BlockId, pc: u64) -> Control {
                (**self).block(id, pc)
            }
            #[inline(always)]
            fn edge(&mut self, edge: &Edge) -> Control {
                (**self).edge(edge)
            }
            #[inline(always)]
            fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
                (**self).trace_formed(id, parts)
            }
            #[inline(always)]
            fn trace(&mut self, id: TraceId, n: u32) -> Control {
                (**self).trace(id, n)
            }
            #[inline(always)]
            fn mem(&mut self, access: &MemAccess) -> Control {
                (**self).mem(access)
            }
            #[inline(always)]
            fn sample(&mut self, sample: &Sample) -> Control {
                (**self).sample(sample)
            }
            #[inline(always)]
            fn syscall(&mut self, call: &Syscall) -> Control {
                (**self).syscall(call)
            }
            #[inline(always)]
            fn exit(&mut self, exit: &Exit) {
                (**self).exit(exit)
            }
            #[inline(always)]
            fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
                (**self).probe_state()
            }
            #[inline(always)]
            fn saves_sums(&mut self) -> bool {
                (**self).saves_sums()
            }
            #[inline(always)]
            fn probe(&mut self, block: &BlockInfo, to: u64) -> Option<Probe> {
                (**self).probe(block, to)
            }
            #[inline(always)]
            fn probe_return(&mut self, block: &BlockInfo) -> Option<Probe> {
                (**self).probe_return(block)
            }
        }
    )+};
}

forward_sink!(&mut S, Box<S>);

/// `None` is a sink that wants nothing; `Some(s)` behaves as `s`. Switches a sink at run time.
impl<S: Sink> Sink for Option<S> {
    #[inline]
    fn wants(&mut self) -> Interest {
        self.as_mut().map_or(Interest::NONE, Sink::wants)
    }
    #[inline]
    fn watches_blocks(&mut self) -> bool {
        self.as_mut().is_some_and(Sink::watches_blocks)
    }
    #[inline]
    fn may_stop(&mut self) -> bool {
        self.as_mut().is_some_and(Sink::may_stop)
    }
    #[inline]
    fn interest(&mut self, block: &BlockInfo) -> Interest {
        self.as_mut().map_or(Interest::NONE, |s| s.interest(block))
    }
    #[inline]
    fn block(&mut self, id: BlockId, pc: u64) -> Control {
        self.as_mut().map_or(Control::Continue, |s| s.block(id, pc))
    }
    #[inline]
    fn edge(&mut self, edge: &Edge) -> Control {
        self.as_mut().map_or(Control::Continue, |s| s.edge(edge))
    }
    #[inline]
    fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
        self.as_mut().is_some_and(|s| s.trace_formed(id, parts))
    }
    #[inline]
    fn trace(&mut self, id: TraceId, n: u32) -> Control {
        self.as_mut().map_or(Control::Continue, |s| s.trace(id, n))
    }
    #[inline]
    fn mem(&mut self, access: &MemAccess) -> Control {
        self.as_mut().map_or(Control::Continue, |s| s.mem(access))
    }
    #[inline]
    fn sample(&mut self, sample: &Sample) -> Control {
        self.as_mut()
            .map_or(Control::Continue, |s| s.sample(sample))
    }
    #[inline]
    fn syscall(&mut self, call: &Syscall) -> Control {
        self.as_mut().map_or(Control::Continue, |s| s.syscall(call))
    }
    #[inline]
    fn exit(&mut self, exit: &Exit) {
        if let Some(s) = self {
            s.exit(exit)
        }
    }
    #[inline]
    fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
        self.as_mut().and_then(Sink::probe_state)
    }
    #[inline]
    fn saves_sums(&mut self) -> bool {
        self.as_mut().is_none_or(Sink::saves_sums)
    }
    #[inline]
    fn probe(&mut self, block: &BlockInfo, to: u64) -> Option<Probe> {
        self.as_mut().and_then(|s| s.probe(block, to))
    }
    #[inline]
    fn probe_return(&mut self, block: &BlockInfo) -> Option<Probe> {
        self.as_mut().and_then(|s| s.probe_return(block))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: u32) -> BlockInfo {
        BlockInfo {
            id: BlockId(id),
            start: 0x100 * u64::from(id),
            end: 0x100 * u64::from(id) + 8,
            insns: 2,
            ends_with: BlockEnd::Jump,
        }
    }

    #[test]
    fn unit_sink_wants_nothing() {
        let mut s = ();
        assert_eq!(s.wants(), Interest::NONE);
        assert_eq!(s.interest(&info(0)), Interest::NONE);
    }

    #[test]
    fn option_none_wants_nothing_and_some_forwards() {
        let mut none: Option<Recorder> = None;
        assert_eq!(none.interest(&info(0)), Interest::NONE);
        let mut some = Some(Recorder::new(Interest::BLOCK));
        assert_eq!(some.interest(&info(0)), Interest::BLOCK);
        let _ = some.block(BlockId(0), 0);
        assert_eq!(some.unwrap().events.len(), 2);
    }

    #[test]
    fn boxed_dyn_sink_forwards() {
        let mut b: Box<dyn Sink> = Box::new(Recorder::new(Interest::EDGE));
        assert_eq!(b.interest(&info(3)), Interest::EDGE);
    }

    #[test]
    fn watches_blocks_defaults_to_true_and_pointers_forward() {
        assert!(!().watches_blocks());
        assert!(Recorder::default().watches_blocks(), "the default is true");
        assert!(!Option::<Recorder>::None.watches_blocks());
        assert!(Some(Recorder::default()).watches_blocks());
        assert!(!Some(()).watches_blocks());
        // Through the pointers' own impls (a method call would pick the pointee's).
        fn ask<S: Sink>(mut s: S) -> bool {
            s.watches_blocks()
        }
        let (mut quiet, mut loud) = ((), Recorder::default());
        assert!(!ask(&mut quiet));
        assert!(ask(&mut loud));
        assert!(!ask(Box::new(())));
        let boxed: Box<dyn Sink> = Box::new(Recorder::default());
        assert!(ask(boxed));
        let mut boxed: Box<dyn Sink> = Box::new(());
        assert!(!ask(&mut boxed));
    }

    #[test]
    fn control_or() {
        assert_eq!(Control::Continue.or(Control::Continue), Control::Continue);
        assert_eq!(Control::Continue.or(Control::Stop), Control::Stop);
        assert_eq!(Control::Stop.or(Control::Continue), Control::Stop);
    }
}

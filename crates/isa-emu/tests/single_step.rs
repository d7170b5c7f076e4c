//! The block cache changes nothing: on every guest, block-cached and single-step runs give
//! identical event streams (every event kind, memory values included).

mod guest_util;
use guest_util as common;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use isa_emu::Config;
use prof_events::{
    BlockId, BlockInfo, Control, Edge, Event, Exit, Interest, MemAccess, Sample, Sink, Syscall,
};

/// Folds every event into a hash and keeps the first few for a readable diff. Blocks get
/// the interest `pick` gives them. A fingerprint that never stops lets the emulator form
/// event superblocks.
struct Fingerprint {
    hasher: DefaultHasher,
    count: u64,
    first: Vec<Event>,
    pick: fn(&BlockInfo) -> Interest,
    may_stop: bool,
}

impl Fingerprint {
    fn new(pick: fn(&BlockInfo) -> Interest, may_stop: bool) -> Self {
        Fingerprint {
            hasher: DefaultHasher::new(),
            count: 0,
            first: Vec::new(),
            pick,
            may_stop,
        }
    }
    fn add(&mut self, e: Event) {
        e.hash(&mut self.hasher);
        self.count += 1;
        if self.first.len() < 64 {
            self.first.push(e);
        }
    }
}

impl Sink for Fingerprint {
    fn wants(&mut self) -> Interest {
        Interest::ALL
    }
    fn may_stop(&mut self) -> bool {
        self.may_stop
    }
    fn interest(&mut self, block: &BlockInfo) -> Interest {
        self.add(Event::Interest(*block));
        (self.pick)(block)
    }
    fn block(&mut self, id: BlockId, pc: u64) -> Control {
        self.add(Event::Block(id, pc));
        Control::Continue
    }
    fn edge(&mut self, edge: &Edge) -> Control {
        self.add(Event::Edge(*edge));
        Control::Continue
    }
    fn mem(&mut self, access: &MemAccess) -> Control {
        self.add(Event::Mem(*access));
        Control::Continue
    }
    fn sample(&mut self, sample: &Sample) -> Control {
        self.add(Event::Sample(*sample));
        Control::Continue
    }
    fn syscall(&mut self, call: &Syscall) -> Control {
        self.add(Event::Syscall(*call));
        Control::Continue
    }
    fn exit(&mut self, exit: &Exit) {
        self.add(Event::Exit(*exit));
    }
}

/// Instructions per guest for the comparison: enough to cover start-up, I/O and the main
/// loops; single-step mode is slow by design.
const FUEL: u64 = 3_000_000;

/// Runs every guest cached and single-stepped with blocks given interest by `pick`, and
/// asserts both give the same summary and event stream. Returns the event superblocks the
/// cached runs formed.
fn compare_modes(pick: fn(&BlockInfo) -> Interest, fuel: u64, may_stop: bool) -> u64 {
    let mut formed = 0;
    for g in common::guests() {
        let mut run = |single_step: bool| {
            let config = Config {
                fuel: Some(fuel),
                single_step,
                sample_interval: Some(10_007),
                ..Config::default()
            };
            let mut m = common::machine(&g, config);
            let mut f = Fingerprint::new(pick, may_stop);
            let summary = m.run(&mut f);
            formed += summary.event_superblocks;
            (
                summary.instret,
                summary.outcome,
                summary.pc,
                f.count,
                f.hasher.finish(),
                f.first,
            )
        };
        let cached = run(false);
        let stepped = run(true);
        assert_eq!(cached.5, stepped.5, "{}: first events differ", g.name);
        assert_eq!(cached, stepped, "{}: event streams differ", g.name);
        assert!(cached.3 > 100, "{}: the run produced events", g.name);
    }
    formed
}

#[test]
fn cached_and_single_step_event_streams_are_identical() {
    compare_modes(|_| Interest::ALL_BLOCK, FUEL, false);
}

/// Blocks without events run chained back to back; samples, system calls, the exit and the
/// fuel limit must still fall exactly where single-stepping puts them.
#[test]
fn chained_blocks_without_events_keep_samples_and_fuel_exact() {
    compare_modes(|_| Interest::NONE, FUEL + 12_345, true);
}

/// Chained runs that deliver block and edge events, and that alternate with blocks wanting
/// memory events and with blocks wanting nothing.
#[test]
fn chained_blocks_with_some_events_match_single_step() {
    compare_modes(|_| Interest::BLOCK | Interest::EDGE, FUEL / 2 + 1, true);
    compare_modes(mixed, FUEL / 2 + 7, true);
}

/// Every third block wants nothing, memory events and its edge, or its entry.
fn mixed(b: &BlockInfo) -> Interest {
    match b.id.0 % 3 {
        0 => Interest::NONE,
        1 => Interest::MEM_VALUES | Interest::EDGE,
        _ => Interest::BLOCK,
    }
}

/// Blocks with events run compiled like the others but must leave for the run loop at
/// their end, also by an indirect jump whose target is a compiled block without events (the
/// table of indirect targets holds those): the interest by address mixes blocks with and
/// without events along the guests' paths, returns and their targets included.
#[test]
fn indirect_jumps_of_blocks_with_events_leave_compiled_code() {
    compare_modes(by_address, FUEL / 2 + 5, true);
    compare_modes(by_address, FUEL / 2 + 9, false);
}

/// A machine runs in slices with sinks that never stop, may stop, and never stop again:
/// the compiled code links blocks with events only while sinks never stop (their runs are
/// logged), so in the slice that may stop, blocks without events must not run on into the
/// code of blocks with events linked before it (every other block wants its edge). Each
/// slice's events must be single-stepping's.
#[test]
fn slices_with_sinks_that_may_stop_or_not_match_single_step() {
    let slices = [(FUEL / 3, false), (2 * FUEL / 3, true), (FUEL, false)];
    for g in common::guests() {
        let run = |single_step: bool| {
            let config = Config {
                fuel: Some(slices[0].0),
                single_step,
                ..Config::default()
            };
            let mut m = common::machine(&g, config);
            let mut streams = Vec::new();
            for &(fuel, may_stop) in &slices {
                m.set_fuel(Some(fuel));
                let mut f = Fingerprint::new(by_address, may_stop);
                let summary = m.run(&mut f);
                streams.push((
                    summary.instret,
                    summary.outcome,
                    f.count,
                    f.hasher.finish(),
                    f.first,
                ));
            }
            streams
        };
        let (cached, stepped) = (run(false), run(true));
        for (i, (c, s)) in cached.iter().zip(&stepped).enumerate() {
            assert_eq!(c.4, s.4, "{} slice {i}: first events differ", g.name);
            assert_eq!(c, s, "{} slice {i}: event streams differ", g.name);
        }
    }
}

/// Blocks at every other halfword address want their edge; the others nothing.
fn by_address(b: &BlockInfo) -> Interest {
    if b.start & 2 == 0 {
        Interest::EDGE
    } else {
        Interest::NONE
    }
}

/// A sink that never stops gets event superblocks (blocks run as one, their events
/// delivered after them): the events, fuel and samples stay exactly those of
/// single-stepping, with side exits, traps and system calls inside them, parts that want
/// nothing, and blocks with memory events (which are never parts).
#[test]
fn event_superblocks_match_single_step() {
    let formed = compare_modes(|_| Interest::BLOCK | Interest::EDGE, FUEL / 2 + 3, false);
    assert!(formed > 100, "event superblocks formed: {formed}");
    let formed = compare_modes(mixed, FUEL / 2 + 11, false);
    assert!(formed > 10, "event superblocks formed: {formed}");
    let edges_only = compare_modes(|_| Interest::EDGE, FUEL / 3, false);
    assert!(edges_only > 100, "event superblocks formed: {edges_only}");
}

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

/// Folds every event into a hash and keeps the first few for a readable diff.
struct Fingerprint {
    hasher: DefaultHasher,
    count: u64,
    first: Vec<Event>,
}

impl Fingerprint {
    fn new() -> Self {
        Fingerprint {
            hasher: DefaultHasher::new(),
            count: 0,
            first: Vec::new(),
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
    fn interest(&mut self, block: &BlockInfo) -> Interest {
        self.add(Event::Interest(*block));
        Interest::ALL_BLOCK
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

#[test]
fn cached_and_single_step_event_streams_are_identical() {
    for g in common::guests() {
        let run = |single_step: bool| {
            let config = Config {
                fuel: Some(FUEL),
                single_step,
                sample_interval: Some(10_007),
                ..Config::default()
            };
            let mut m = common::machine(&g, config);
            let mut f = Fingerprint::new();
            let summary = m.run(&mut f);
            (
                summary.instret,
                summary.outcome,
                f.count,
                f.hasher.finish(),
                f.first,
            )
        };
        let cached = run(false);
        let stepped = run(true);
        assert_eq!(cached.4, stepped.4, "{}: first events differ", g.name);
        assert_eq!(cached, stepped, "{}: event streams differ", g.name);
        assert!(cached.2 > 1000, "{}: the run produced events", g.name);
    }
}

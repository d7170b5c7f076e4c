//! A sink that records everything it is given, for tests and differential checks.

use crate::{BlockId, BlockInfo, Control, Edge, Exit, Interest, MemAccess, Sample, Sink, Syscall};

/// One recorded event.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A block was translated (the recorder answered with its configured interest).
    Interest(BlockInfo),
    /// A block was entered.
    Block(BlockId, u64),
    /// An edge was taken.
    Edge(Edge),
    /// A memory access.
    Mem(MemAccess),
    /// A sampling interrupt.
    Sample(Sample),
    /// A system call.
    Syscall(Syscall),
    /// The run ended.
    Exit(Exit),
}

/// Records every event it receives, asking for a fixed interest on every block.
/// Two runs that must behave alike (block-cached and single-step, say) can be compared by
/// comparing their recorders' `events`.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// What to ask for on every block and for the run.
    pub interest: Interest,
    /// The events, in order.
    pub events: Vec<Event>,
}

impl Recorder {
    /// A recorder asking for `interest` on every block (and the run-wide part of it).
    pub fn new(interest: Interest) -> Self {
        Recorder {
            interest,
            events: Vec::new(),
        }
    }
}

impl Sink for Recorder {
    fn wants(&mut self) -> Interest {
        self.interest
    }
    fn may_stop(&mut self) -> bool {
        false
    }
    fn interest(&mut self, block: &BlockInfo) -> Interest {
        self.events.push(Event::Interest(*block));
        self.interest & Interest::ALL_BLOCK
    }
    fn block(&mut self, id: BlockId, pc: u64) -> Control {
        self.events.push(Event::Block(id, pc));
        Control::Continue
    }
    fn edge(&mut self, edge: &Edge) -> Control {
        self.events.push(Event::Edge(*edge));
        Control::Continue
    }
    fn mem(&mut self, access: &MemAccess) -> Control {
        self.events.push(Event::Mem(*access));
        Control::Continue
    }
    fn sample(&mut self, sample: &Sample) -> Control {
        self.events.push(Event::Sample(*sample));
        Control::Continue
    }
    fn syscall(&mut self, call: &Syscall) -> Control {
        self.events.push(Event::Syscall(*call));
        Control::Continue
    }
    fn exit(&mut self, exit: &Exit) {
        self.events.push(Event::Exit(*exit));
    }
}

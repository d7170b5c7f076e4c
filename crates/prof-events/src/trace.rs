//! Traces: runs of blocks whose events are known before they run.

use crate::{BlockId, Control, Edge, Interest, Sink};

/// One block of a trace, with the events a run through it delivers: its block event (if
/// `interest` has [`Interest::BLOCK`]) and, unless it is the trace's last part, the edge
/// to the next part (if `interest` has [`Interest::EDGE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TracePart {
    /// The block.
    pub block: BlockId,
    /// Its start.
    pub pc: u64,
    /// The events of this block the receiving sink asked for (only
    /// [`Interest::BLOCK`] and [`Interest::EDGE`] matter here).
    pub interest: Interest,
    /// The edge to the next part. For the last part, its sequential exit: that part's exit
    /// is delivered as an ordinary edge event, since it is known only when the run leaves.
    pub edge: Edge,
}

/// Delivers the block and edge events of a run through the first `n` parts of a trace to
/// `sink`, as [`Sink::trace`] stands for: what a driver or combinator does for a sink that
/// takes traces event by event.
pub fn replay<S: Sink + ?Sized>(sink: &mut S, parts: &[TracePart], n: usize) -> Control {
    let parts = &parts[..n.min(parts.len())];
    let mut control = Control::Continue;
    for (i, p) in parts.iter().enumerate() {
        if p.interest.contains(Interest::BLOCK) {
            control = control.or(sink.block(p.block, p.pc));
        }
        if i + 1 < parts.len() && p.interest.contains(Interest::EDGE) {
            control = control.or(sink.edge(&p.edge));
        }
    }
    control
}

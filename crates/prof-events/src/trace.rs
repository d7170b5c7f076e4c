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
/// `sink`, the events a [`Sink::trace`] call stands for: what a driver or combinator does
/// for a sink that did not take the trace.
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

/// Settles counted runs of a trace with `runs[n - 1]` runs through exactly its first `n`
/// parts: for each part, the block events and the edge events to the next part that those
/// runs stand for (a run of length `n` went through parts `0..n` and the edges between
/// them). A part's interest still says which of those events it has.
pub fn part_counts(runs: &[u64]) -> Vec<(u64, u64)> {
    let mut through = 0;
    let mut counts: Vec<(u64, u64)> = runs
        .iter()
        .rev()
        .map(|&n| {
            // Runs through this part, and those that went on past it.
            let past = through;
            through += n;
            (through, past)
        })
        .collect();
    counts.reverse();
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EdgeKind, Recorder};

    #[test]
    fn part_counts_match_replaying_every_run() {
        let parts: Vec<TracePart> = (0..4u32)
            .map(|i| TracePart {
                block: BlockId(i),
                pc: u64::from(i),
                interest: Interest::BLOCK | Interest::EDGE,
                edge: Edge {
                    from: BlockId(i),
                    pc: u64::from(i),
                    to: u64::from(i + 1),
                    kind: EdgeKind::Taken,
                },
            })
            .collect();
        let runs = [3, 0, 2, 5];
        let mut r = Recorder::default();
        for (len, &n) in runs.iter().enumerate() {
            for _ in 0..n {
                let _ = replay(&mut r, &parts, len + 1);
            }
        }
        let mut blocks = [0u64; 4];
        let mut edges = [0u64; 4];
        for e in &r.events {
            match e {
                crate::Event::Block(id, _) => blocks[id.index()] += 1,
                crate::Event::Edge(e) => edges[e.from.index()] += 1,
                _ => {}
            }
        }
        let counts = part_counts(&runs);
        assert_eq!(counts, [(10, 7), (7, 7), (7, 5), (5, 0)]);
        for (i, &(b, e)) in counts.iter().enumerate() {
            assert_eq!((b, e), (blocks[i], edges[i]), "part {i}");
        }
    }
}

//! [`NoOpProbes`]: the probes of a flat path profile without their work, to measure what
//! running with probes costs a driver before any addition or path end.

use crate::probe::{Probe, ProbeEnd, ProbeLease, ProbeOp, ProbeState};
use crate::{BlockEnd, BlockInfo, Control, Edge, Interest, Sink};

/// A sink whose probes do nothing but keep frames: every fixed exit adds 0, calls and
/// returns open and close frames as a flat path profile's do (returns and restarts count
/// one counter), and indirect jumps restart; no path end anywhere else. Its cost is the
/// floor of a path profile's on a driver that compiles probes. Calls and returns whose
/// probes miss (past the frames' room) reach it as edge events.
///
/// Any event takes over the open frames, as a path profile's sink does: their calls'
/// activations are then the sink's, and their returns come as events.
///
/// ```
/// use prof_events::{NoOpProbes, Sink};
///
/// let mut floor = NoOpProbes::default();
/// assert!(floor.probe_state().is_some());
/// floor.lends = false; // every edge comes as an event instead
/// assert!(floor.probe_state().is_none());
/// ```
#[derive(Clone, Debug)]
pub struct NoOpProbes {
    state: ProbeState,
    /// `counts[0]`: the one path end's counter; `counts[1]`: the returns and restarts
    /// compiled code took.
    counts: [u64; 2],
    ends: [ProbeEnd; 1],
    /// Edge events handled.
    pub edges: u64,
    /// Whether it lends its state (`false`: no probe runs, every edge comes as an event).
    pub lends: bool,
}

impl NoOpProbes {
    const EPOCH: u64 = 1;

    /// `op` under the one key and epoch.
    fn probe_of(op: ProbeOp) -> Probe {
        Probe {
            key: 0,
            epoch: Self::EPOCH,
            next: 0,
            op,
        }
    }
}

impl Default for NoOpProbes {
    fn default() -> Self {
        NoOpProbes {
            state: ProbeState {
                epoch: Self::EPOCH,
                ..ProbeState::default()
            },
            counts: [0; 2],
            ends: [ProbeEnd {
                base: 0,
                size: 1,
                add: 0,
                set: 0,
            }],
            edges: 0,
            lends: true,
        }
    }
}

impl Sink for NoOpProbes {
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, _: &BlockInfo) -> Interest {
        Interest::EDGE
    }

    fn edge(&mut self, _: &Edge) -> Control {
        self.edges += 1;
        self.state.depth = 0;
        Control::Continue
    }

    fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
        self.lends.then_some(ProbeLease {
            state: &mut self.state,
            counts: &mut self.counts,
            ends: &self.ends,
        })
    }

    /// As a flat path profile's.
    fn saves_sums(&mut self) -> bool {
        false
    }

    fn probe(&mut self, block: &BlockInfo, _to: u64) -> Option<Probe> {
        Some(Self::probe_of(match block.ends_with {
            BlockEnd::Call | BlockEnd::IndirectCall => ProbeOp::Call {
                add: 0,
                ret: block.end,
                resume: 0,
                resume_add: 0,
                site: 0,
                start: 0,
                push: None,
                end: None,
                enter: None,
            },
            BlockEnd::IndirectJump => ProbeOp::Restart {
                end: 0,
                ways: 1,
                pairs: 1,
                push: None,
            },
            _ => ProbeOp::Add(0),
        }))
    }

    fn probe_return(&mut self, _: &BlockInfo) -> Option<Probe> {
        Some(Self::probe_of(ProbeOp::Return {
            end: 0,
            ways: 1,
            pairs: 1,
            // (Its path end never changes, as a dense table's.)
            first: Some(self.ends[0]),
            saves_none: false,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::apply;
    use crate::BlockId;

    fn block(ends_with: BlockEnd, end: u64) -> BlockInfo {
        BlockInfo {
            id: BlockId(0),
            start: end - 4,
            end,
            insns: 1,
            ends_with,
        }
    }

    /// Its probes apply as far as its frames reach: a call opens one, its return closes
    /// it and counts; an event takes the open frames over.
    #[test]
    fn calls_and_returns_keep_frames() {
        let mut s = NoOpProbes::default();
        let call = s.probe(&block(BlockEnd::Call, 0x104), 0x200).unwrap();
        let ret = s.probe_return(&block(BlockEnd::Return, 0x204)).unwrap();
        let add = s
            .probe(&block(BlockEnd::Branch { target: 0x300 }, 0x108), 0x300)
            .unwrap();
        let lease = s.probe_state().unwrap();
        assert!(apply(&add, 0x300, lease.state, lease.counts, lease.ends));
        assert!(apply(&call, 0x200, lease.state, lease.counts, lease.ends));
        assert_eq!(lease.state.depth, 1);
        assert!(apply(&ret, 0x104, lease.state, lease.counts, lease.ends));
        assert_eq!((lease.state.depth, &lease.counts[..]), (0, &[1, 1][..]));
        // A return with no frame open misses.
        assert!(!apply(&ret, 0x104, lease.state, lease.counts, lease.ends));
        assert!(apply(&call, 0x200, lease.state, lease.counts, lease.ends));
        let edge = Edge {
            from: BlockId(0),
            pc: 0x100,
            to: 0x200,
            kind: crate::EdgeKind::Call,
        };
        let _ = s.edge(&edge);
        assert_eq!((s.state.depth, s.edges), (0, 1));
    }
}

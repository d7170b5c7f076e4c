//! Probes with hostile fields: a sink may give any probe, and compiled code must do what
//! [`apply`] does with it (or leave the edge to the sink) and never touch memory outside
//! the lent state, counters and path ends. On every guest, a sink whose probes are drawn
//! from extreme values (path ends past the table or with no ways, windows whose counters
//! lie past the counters or wrap around, sums at the ends of the 64-bit range, frames that
//! return elsewhere, full stacks of saved sums, a lent state whose stacks claim more than
//! they hold) ends the run in the same state whether the
//! emulator runs its probes or delivers every edge event, and compiled code takes edges.

mod guest_util;
use guest_util as common;

use std::collections::BTreeMap;

use prof_events::probe::apply;
use prof_events::{BlockEnd, BlockInfo, Control, Edge, EdgeKind, Exit, Interest, Probe};
use prof_events::{ProbeEnd, ProbeLease, ProbeOp, ProbeState, Sink, FRAMES, SAVES};

/// Counters lent: few, so that many windows reach past them.
const COUNTERS: usize = 96;

/// Values at and near the edges of the ranges compiled code works in, and small ones.
const EDGY: [i64; 12] = [
    0,
    1,
    -1,
    2,
    3,
    63,
    i64::MAX,
    i64::MIN,
    i64::MAX - 1,
    i64::MIN + 1,
    1 << 32,
    -(1 << 31),
];

/// Draws from a small generator seeded by an edge: each edge gets the same probe whenever
/// it is asked (by compiled code's translation or by the edge event).
struct Draw(u64);

impl Draw {
    fn new(from: u64, to: u64) -> Draw {
        Draw((from ^ to.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Mostly a small value (sums then stay where windows count them), sometimes an edge.
    fn value(&mut self) -> i64 {
        match self.below(8) {
            0 => EDGY[self.below(EDGY.len() as u64) as usize],
            _ => self.below(5) as i64 - 2,
        }
    }

    /// A path end: the first way's index (mostly among the ends, some past them) and the
    /// ways (some none, some past the table's end).
    fn end(&mut self, ends: usize) -> (u32, u8) {
        let end = match self.below(10) {
            0 => u32::MAX - self.below(3) as u32,
            1 => (ends + self.below(4) as usize) as u32,
            _ => self.below(ends as u64) as u32,
        };
        let ways = [0, 1, 1, 1, 2, 3, 6, 255][self.below(8) as usize];
        (end, ways)
    }

    /// A way given first: for half of the probes, one from the same wild lot.
    fn first(&mut self, ends: &[ProbeEnd]) -> Option<ProbeEnd> {
        (self.below(2) == 0).then(|| ends[self.below(ends.len() as u64) as usize])
    }

    fn maybe(&mut self) -> Option<i64> {
        (self.below(3) == 0).then(|| self.value())
    }
}

/// The path ends: windows that count (sums 0..16 at the counters' start, the next 16 at
/// the next ones), and windows that must not: past the counters, straddling their end
/// (one from the last counter on, whose sum after is the one past it),
/// wrapping around the address space, of sizes that overflow.
fn ends() -> Vec<ProbeEnd> {
    let counters = COUNTERS as u64;
    let end = |base: u64, size: u64, add: i64, set: i64| ProbeEnd {
        base,
        size,
        add,
        set,
    };
    vec![
        end(0, 16, 0, 0),
        end(16, 16, -16, 1),
        end(32, 64, 3, 2),
        end(counters - 4, 16, 0, 0),
        // Sum 0 counts at the last counter, sum 1 at the first past them.
        end(counters - 1, 4, 0, 1),
        end(counters, 1, 0, 0),
        end(u64::MAX, 2, 0, 3),
        end(u64::MAX - 8, u64::MAX, 0, 0),
        end(0, u64::MAX, i64::MIN, 1),
        end(8, 4, i64::MAX, 0),
        end(1 << 40, 16, 0, 0),
        end(48, 8, -(1 << 31), i64::MIN),
        end(56, 8, 1, i64::MAX),
    ]
}

/// The sink: standing at the start of the next block (its key), each edge does the probe
/// [`Wild::probe_for`] draws for it; where that does not apply, the edge is counted in
/// `missed` and the state moves on to the edge's end.
struct Wild {
    state: ProbeState,
    counts: Vec<u64>,
    ends: Vec<ProbeEnd>,
    missed: u64,
    /// Edges handled, by the name of their probe's operation.
    kinds: BTreeMap<&'static str, u64>,
    blocks: common::Bounds,
    probes: bool,
    /// Says its probes save no sums ([`Sink::saves_sums`]), which they and its lent
    /// states belie.
    no_saves: bool,
}

impl Wild {
    fn new(start: u64, probes: bool, no_saves: bool) -> Wild {
        Wild {
            state: ProbeState {
                key: start,
                ..ProbeState::default()
            },
            counts: vec![0; COUNTERS],
            ends: ends(),
            missed: 0,
            kinds: BTreeMap::new(),
            blocks: common::Bounds::default(),
            probes,
            no_saves,
        }
    }

    /// The probe of the edge from the block at `from` (ending at `ret`, ending with
    /// `ends_with`) to `to`.
    fn probe_for(&self, from: u64, to: u64, ret: u64, ends_with: BlockEnd) -> Probe {
        let mut d = Draw::new(from, to);
        let ends = self.ends.len();
        let (end, ways) = d.end(ends);
        let pairs = [0, COUNTERS as u32 - 1, COUNTERS as u32, u32::MAX][d.below(4) as usize];
        let op = match ends_with {
            BlockEnd::Call | BlockEnd::IndirectCall => ProbeOp::Call {
                add: d.value(),
                // Mostly where the call returns to.
                ret: if d.below(4) == 0 { ret ^ 4 } else { ret },
                resume: ret,
                resume_add: d.value(),
                site: from,
                start: d.value(),
                push: d.maybe(),
                end: (d.below(3) == 0).then(|| d.end(ends)),
                enter: (d.below(3) == 0).then(|| (d.value(), d.value())),
            },
            // An unresolved jump's target restarts; a quarter are a jump table's, which
            // add (drawn after the restart, whose draws stay those of the others).
            BlockEnd::IndirectJump => {
                let restart = ProbeOp::Restart {
                    end,
                    ways,
                    pairs,
                    push: d.maybe(),
                };
                match d.below(4) {
                    0 => ProbeOp::Add(d.value()),
                    _ => restart,
                }
            }
            _ => match d.below(12) {
                0..=2 => ProbeOp::Add(d.value()),
                3 => ProbeOp::End {
                    end,
                    ways,
                    set: d.value(),
                    first: d.first(&self.ends),
                },
                4 => ProbeOp::Count(self.ends[d.below(ends as u64) as usize]),
                5 => ProbeOp::Push {
                    add: d.value(),
                    inner: d.maybe(),
                    set: d.value(),
                },
                6 => ProbeOp::PushEnd {
                    add: d.value(),
                    inner: d.maybe(),
                    set: d.value(),
                    end,
                    ways,
                    first: d.first(&self.ends),
                },
                7 => ProbeOp::Pop {
                    end,
                    ways,
                    add: d.value(),
                    first: d.first(&self.ends),
                },
                8 => ProbeOp::Through {
                    add: d.value(),
                    set: d.value(),
                    end,
                    ways,
                },
                9 => ProbeOp::PopPush {
                    end,
                    ways,
                    add: d.value(),
                    set: d.value(),
                },
                10 => {
                    let (outer, outer_ways) = d.end(ends);
                    ProbeOp::PopEnd {
                        end,
                        ways,
                        outer,
                        outer_ways,
                        pop: d.below(2) == 0,
                    }
                }
                _ => ProbeOp::Tail {
                    end,
                    ways,
                    pairs,
                    push: d.maybe(),
                },
            },
        };
        Probe {
            key: from,
            epoch: self.state.epoch,
            next: to,
            op,
        }
    }

    /// The probe of a return from the block at `from`.
    fn return_for(&self, from: u64) -> Probe {
        let mut d = Draw::new(from, u64::MAX);
        let (end, ways) = d.end(self.ends.len());
        Probe {
            key: from,
            epoch: self.state.epoch,
            next: 0,
            op: ProbeOp::Return {
                end,
                ways,
                pairs: [0, COUNTERS as u32, u32::MAX][d.below(3) as usize],
                first: d.first(&self.ends),
                saves_none: d.below(2) == 1,
            },
        }
    }

    /// The edges the sink handled (the rest ran as probes).
    fn edges(&self) -> u64 {
        self.kinds.values().sum()
    }

    /// After a miss (the same ones with probes and without): now and then the state lent
    /// goes wrong (more frames or saved sums than it holds, a floor above every sum, a
    /// floor in the frame the next call opens), as a faulty sink's might, until the next
    /// miss; otherwise a full or broken stack of saved sums or frames empties, so that
    /// entries and calls apply again.
    fn after_miss(&mut self, from: u64, to: u64) {
        let s = &mut self.state;
        let mut d = Draw::new(from ^ self.missed, to);
        match d.below(48) {
            0 => s.depth = FRAMES as u64 + d.below(3),
            // (Frames that far up are not even addresses.)
            1 => s.depth = [u64::MAX, 1 << 57][d.below(2) as usize],
            2 => s.saved = SAVES as u64 + 1 + d.below(2),
            3 => s.saved = u64::MAX,
            4 => s.floor = u64::MAX - d.below(2),
            5..=16 => {
                if let Some(f) = s.frames.get_mut(s.depth as usize) {
                    f.floor = 1 + d.below(2);
                }
            }
            _ => {
                if s.saved >= SAVES as u64 || s.floor > s.saved {
                    (s.saved, s.floor) = (0, 0);
                }
                if s.depth >= FRAMES as u64 {
                    (s.depth, s.saved, s.floor) = (0, 0, 0);
                }
                let open = s.depth as usize;
                for f in s.frames.iter_mut().skip(open) {
                    f.floor = 0;
                }
            }
        }
    }
}

impl Sink for Wild {
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        self.blocks.note(block);
        Interest::EDGE
    }

    fn edge(&mut self, edge: &Edge) -> Control {
        let (from, ret) = self.blocks.of(edge.from);
        let p = match edge.kind {
            EdgeKind::Return => self.return_for(from),
            EdgeKind::Call | EdgeKind::IndirectCall => {
                self.probe_for(from, edge.to, ret, BlockEnd::Call)
            }
            EdgeKind::IndirectJump => self.probe_for(from, edge.to, ret, BlockEnd::IndirectJump),
            _ => self.probe_for(from, edge.to, ret, BlockEnd::FallThrough),
        };
        let kind = match (edge.kind, p.op) {
            (EdgeKind::IndirectJump, ProbeOp::Add(_)) => "jump table's add",
            _ => p.op.name(),
        };
        *self.kinds.entry(kind).or_default() += 1;
        if !apply(&p, edge.to, &mut self.state, &mut self.counts, &self.ends) {
            self.missed += 1;
            self.state.key = edge.to;
            self.after_miss(from, edge.to);
        }
        Control::Continue
    }

    fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
        self.probes.then_some(ProbeLease {
            state: &mut self.state,
            counts: &mut self.counts,
            ends: &self.ends,
        })
    }

    fn saves_sums(&mut self) -> bool {
        !self.no_saves
    }

    fn probe(&mut self, block: &BlockInfo, to: u64) -> Option<Probe> {
        Some(self.probe_for(block.start, to, block.end, block.ends_with))
    }

    fn probe_return(&mut self, block: &BlockInfo) -> Option<Probe> {
        Some(self.return_for(block.start))
    }

    fn exit(&mut self, _exit: &Exit) {}
}

#[test]
fn hostile_probes_do_what_the_events_do() {
    let (mut with_all, mut without_all) = (0, 0);
    let mut taken = BTreeMap::<&str, i64>::new();
    // Every other guest's sink breaks its promise to save no sums: compiled code must
    // not run its probes that save, nor lend its states that hold saved sums or floors.
    for (i, guest) in common::guests().iter().enumerate() {
        let no_saves = i % 2 == 1;
        let (with, without, _) = common::with_and_without_probes(guest, |start, probes| {
            Wild::new(start, probes, no_saves)
        });
        let name = &guest.name;
        let state = |w: &Wild| {
            (
                w.state.sum,
                w.state.key,
                w.state.open().to_vec(),
                w.state.saved_sums().to_vec(),
                w.state.floor,
                w.missed,
            )
        };
        assert_eq!(state(&with), state(&without), "{name}");
        assert_eq!(with.counts, without.counts, "{name}");
        if guest.env != "bare" {
            eprintln!(
                "{name}: {} of {} edges reached the sink",
                with.edges(),
                without.edges()
            );
            with_all += with.edges();
            for (kind, n) in &without.kinds {
                let left = with.kinds.get(kind).copied().unwrap_or(0);
                *taken.entry(kind).or_default() += (n - left) as i64;
            }
            without_all += without.edges();
        }
    }
    eprintln!("taken by compiled code, by operation: {taken:?}");
    assert!(with_all < without_all, "compiled code took no edge");
    // Every operation drawn ran as compiled code somewhere.
    assert_eq!(taken.len(), 14, "{taken:?}");
    for (kind, n) in &taken {
        assert!(*n > 0, "compiled code took no {kind}");
    }
}

//! Probes run by compiled code do what the edge events they stand for would: on every
//! guest, a sink whose edges add to a sum and count it in a table ends the run in the same
//! state (sum, key, counters, the edges it handled itself) whether the emulator runs its
//! probes or delivers every edge event, while compiled code takes many of the edges.

mod guest_util;
use guest_util as common;

use std::collections::BTreeMap;

use isa_emu::Config;
use prof_events::probe::apply;
use prof_events::{BlockInfo, Control, Edge, EdgeKind, Exit, Interest, Probe, ProbeEnd, ProbeOp};
use prof_events::{ProbeLease, ProbeState, Sink};

/// The sink: standing at the start of the next block (its key), each edge from a block
/// to `to` does the probe [`Walker::op`] gives the edge (an addition, or a path end at the
/// edge's own table, whose range some sums miss), then stands at `to`; where that probe
/// does not apply, the edge is counted in `missed` instead. The epoch moves once, at the
/// `stale_at`-th edge the sink handles, after which no probe given before applies.
struct Walker {
    state: ProbeState,
    counts: Vec<u64>,
    ends: Vec<ProbeEnd>,
    end_of: BTreeMap<(u64, u64), u32>,
    missed: BTreeMap<(u64, u64), u64>,
    /// Edge events handled (the rest ran as probes).
    edges: u64,
    /// Start of each block, by id.
    starts: Vec<u64>,
    stale_at: u64,
    probes: bool,
    /// Stand nowhere: every key is 0, so probes apply wherever they run, and calls,
    /// returns and indirect jumps (which have no probe) change the sum instead (`+ 7`,
    /// modulo 64): a probe that ran before such an edge's event was delivered would count
    /// the wrong sum.
    nowhere: bool,
}

/// A small hash of an edge.
fn mix(from: u64, to: u64) -> u64 {
    (from ^ to.rotate_left(17)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40
}

impl Walker {
    fn new(start: u64, probes: bool, (stale_at, nowhere): (u64, bool)) -> Walker {
        Walker {
            state: ProbeState {
                key: if nowhere { 0 } else { start },
                ..ProbeState::default()
            },
            counts: Vec::new(),
            ends: Vec::new(),
            end_of: BTreeMap::new(),
            missed: BTreeMap::new(),
            edges: 0,
            starts: Vec::new(),
            stale_at,
            probes,
            nowhere,
        }
    }

    /// The operation of the edge from the block at `from` to `to` (a path end gets its
    /// table when first asked for: one way of 64 sums, or every other path end two, the
    /// second for the next 64 sums).
    fn op(&mut self, from: u64, to: u64) -> ProbeOp {
        let h = mix(from, to);
        if h % 3 != 0 {
            return ProbeOp::Add((h % 5) as i64 - 1);
        }
        let ways = 1 + (h / 3 % 2) as u8;
        let n = self.ends.len() as u32;
        let e = *self.end_of.entry((from, to)).or_insert(n);
        if e == n {
            for w in 0..i64::from(ways) {
                self.ends.push(ProbeEnd {
                    base: self.counts.len() as u64,
                    size: 64,
                    add: (h % 5) as i64 - 2 - 64 * w,
                    set: (h % 3) as i64,
                });
                self.counts.extend([0; 64]);
            }
        }
        ProbeOp::End { end: e, ways }
    }

    fn probe_of(&mut self, from: u64, to: u64) -> Probe {
        let at = |pc| if self.nowhere { 0 } else { pc };
        Probe {
            key: at(from),
            epoch: self.state.epoch,
            next: at(to),
            op: self.op(from, to),
        }
    }
}

impl Sink for Walker {
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        let i = block.id.index();
        if self.starts.len() <= i {
            self.starts.resize(i + 1, 0);
        }
        self.starts[i] = block.start;
        Interest::EDGE
    }

    fn edge(&mut self, edge: &Edge) -> Control {
        self.edges += 1;
        if self.edges == self.stale_at {
            self.state.epoch += 1;
        }
        let from = self.starts[edge.from.index()];
        let fixed = !matches!(
            edge.kind,
            EdgeKind::Call | EdgeKind::IndirectCall | EdgeKind::Return | EdgeKind::IndirectJump
        );
        if self.nowhere && !fixed {
            self.state.sum = self.state.sum.wrapping_add(7) % 64;
            return Control::Continue;
        }
        let p = self.probe_of(from, edge.to);
        if !apply(&p, &mut self.state, &mut self.counts, &self.ends) {
            *self.missed.entry((from, edge.to)).or_default() += 1;
            self.state.key = p.next;
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

    fn probe(&mut self, block: &BlockInfo, to: u64) -> Option<Probe> {
        Some(self.probe_of(block.start, to))
    }

    fn exit(&mut self, _exit: &Exit) {}
}

impl Walker {
    /// Each edge's path-end counters that counted, by edge (the tables' order is the
    /// order the sink first met the edges in, which probes change).
    fn tables(&self) -> BTreeMap<(u64, u64), Vec<u64>> {
        self.end_of
            .iter()
            .filter_map(|(&edge, &e)| {
                let end = self.ends[e as usize];
                // A path end's ways' counters follow each other.
                let ways = if mix(edge.0, edge.1) / 3 % 2 == 0 {
                    1
                } else {
                    2
                };
                let c = &self.counts[end.base as usize..(end.base + ways * end.size) as usize];
                c.iter().any(|&n| n > 0).then(|| (edge, c.to_vec()))
            })
            .collect()
    }
}

/// Runs every guest with and without probes, the epoch moving at the `stale_at`-th edge
/// the sink handles, standing `nowhere` or at blocks; returns the edges that reached the
/// sink with probes and without, per Linux guest.
fn with_and_without_probes(walk: (u64, bool)) -> Vec<(String, u64, u64)> {
    let mut edges = Vec::new();
    for guest in common::guests() {
        let run = |probes: bool| {
            let mut m = common::machine(&guest, Config::default());
            let mut w = Walker::new(m.image().entry, probes, walk);
            let s = m.run(&mut w);
            (w, s.instret, common::stdout(&m))
        };
        let (with, instret, out) = run(true);
        let (without, instret_events, out_events) = run(false);
        let name = &guest.name;
        assert_eq!((instret, out), (instret_events, out_events), "{name}");
        assert_eq!(
            (with.state.sum, with.state.key),
            (without.state.sum, without.state.key),
            "{name}"
        );
        assert_eq!(with.tables(), without.tables(), "{name}");
        assert_eq!(with.missed, without.missed, "{name}");
        assert!(with.counts.iter().sum::<u64>() > 0, "{name}");
        // Bare-metal runs do not chain blocks: no compiled code runs probes there.
        if guest.env != "bare" {
            edges.push((guest.name.clone(), with.edges, without.edges));
        }
    }
    edges
}

#[test]
fn probes_leave_the_state_the_edge_events_leave() {
    let edges = with_and_without_probes((u64::MAX, false));
    for (name, with, without) in &edges {
        eprintln!("{name}: {with} of {without} edges reached the sink");
        assert!(with < without, "{name}: no probe ran");
    }
    // Compiled code took a good part of the edges: calls, returns, indirect jumps,
    // bail-outs (nbody's floating point), misses and the parts of traces through calls
    // reach the sink.
    let (with, without) = edges.iter().fold((0, 0), |(a, b), e| (a + e.1, b + e.2));
    assert!(
        with * 4 < without * 3,
        "{with} of {without} edges reached the sink"
    );
}

#[test]
fn stale_probes_leave_the_state_to_the_edge_events() {
    with_and_without_probes((2_000, false));
}

/// Probes that apply anywhere wait for every event before them.
#[test]
fn probes_run_after_the_events_before_them() {
    with_and_without_probes((u64::MAX, true));
}

//! Probes run by compiled code do what the edge events they stand for would: on every
//! guest, a sink whose edges add to a sum and count it in a table ends the run in the same
//! state (sum, key, counters, the edges it handled itself) whether the emulator runs its
//! probes or delivers every edge event, while compiled code takes many of the edges; and
//! so does one whose calls and returns open and close a frame, and one whose edges enter
//! and leave regions, saving and restoring sums.

mod guest_util;
use guest_util as common;

use std::collections::BTreeMap;

use isa_emu::Config;
use prof_events::probe::apply;
use prof_events::{BlockEnd, BlockInfo, Control, Edge, EdgeKind, Exit, Interest, Probe};
use prof_events::{Frame, ProbeEnd, ProbeOp};
use prof_events::{NoOpProbes, ProbeLease, ProbeState, Sink, SAVES};

/// The sink: standing at the start of the next block (its key), each edge from a block
/// to `to` does the probe [`Walker::op`] gives the edge (an addition, or a path end at the
/// edge's own table, whose range some sums miss), then stands at `to`; where that probe
/// does not apply, the edge is counted in `missed` instead. The epoch moves once, at the
/// `stale_at`-th edge the sink handles, after which no probe given before applies (the
/// path ends' counters move). From its `shrink_at`-th edge on, it lends one counter only,
/// the first of a buffer of its own as long as all of them and more (added to the first
/// when the lease ends), so that every path end it lends misses, and one that counted
/// beyond the lease would be seen.
struct Walker {
    state: ProbeState,
    counts: Vec<u64>,
    ends: Vec<ProbeEnd>,
    end_of: BTreeMap<(u64, u64), u32>,
    missed: BTreeMap<(u64, u64), u64>,
    /// Edge events handled (the rest ran as probes).
    edges: u64,
    /// Start and end of each block, by id.
    blocks: common::Bounds,
    /// Calls and returns have probes: a call opens the frame (returning to the call
    /// block's end, resuming there), a return counts the sum in its own table and closes
    /// it; `counts[0]` counts the calls whose return a probe took.
    calls: bool,
    /// Call and return events handled, and the indirect calls among them.
    call_events: u64,
    indirect_calls: u64,
    /// Tail calls handled.
    tails: u64,
    /// Indirect jumps handled (restarts or additions, where calls have probes).
    restarts: u64,
    /// Edges enter and leave regions too (see [`Walker::op`]).
    regions: bool,
    /// Region entries and exits handled.
    region_events: u64,
    /// The frames of the calls not returned from, below the state's (see `settle`).
    frames: Vec<Frame>,
    stale_at: u64,
    shrink_at: u64,
    /// From `shrink_at` on, the buffer whose first counter it lends.
    shrunk: Vec<u64>,
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
    fn new(start: u64, probes: bool, walk: Walk) -> Walker {
        let (stale_at, nowhere, calls, regions, shrink_at) = walk;
        Walker {
            state: ProbeState {
                key: if nowhere { 0 } else { start },
                ..ProbeState::default()
            },
            counts: vec![0],
            ends: Vec::new(),
            end_of: BTreeMap::new(),
            missed: BTreeMap::new(),
            edges: 0,
            blocks: common::Bounds::default(),
            calls,
            call_events: 0,
            indirect_calls: 0,
            tails: 0,
            restarts: 0,
            regions,
            region_events: 0,
            frames: Vec::new(),
            stale_at,
            shrink_at,
            shrunk: Vec::new(),
            probes,
            nowhere,
        }
    }

    /// The operation of the edge from the block at `from` to `to` (a path end gets its
    /// table when first asked for: one way of 64 sums, or every other path end two, the
    /// second for the next 64 sums; every other one-way path end is given in the probe,
    /// [`ProbeOp::Count`]); with `regions`, an eighth of the edges enter a region
    /// and as many leave one, and an eighth of the rest each enter one at a path end, pass
    /// through one, or leave one for the next.
    fn op(&mut self, from: u64, to: u64) -> ProbeOp {
        let h = mix(from, to);
        let add = (h % 5) as i64 - 1;
        let region = if self.regions { h / 7 % 8 } else { 7 };
        // Every third region entry enters a region nested in it too; every other exit adds
        // to the saved sum.
        let inner = (h / 11 % 3 == 0).then_some((h / 13 % 4) as i64);
        if region == 0 {
            return ProbeOp::Push {
                add,
                inner,
                set: (h % 3) as i64,
            };
        }
        if h % 3 != 0 && region > 4 {
            return ProbeOp::Add(add);
        }
        let (e, ways) = self.edge_end(from, to);
        match region {
            1 => ProbeOp::Pop {
                end: e,
                ways,
                add: (h / 17 % 2) as i64 * add,
                first: self.first(e, from, to),
            },
            2 => ProbeOp::PushEnd {
                add,
                inner,
                set: (h % 4) as i64,
                end: e,
                ways,
                first: self.first(e, from, to),
            },
            3 => ProbeOp::Through {
                add,
                set: (h % 4) as i64,
                end: e,
                ways,
            },
            4 => ProbeOp::PopPush {
                end: e,
                ways,
                add,
                set: (h % 3) as i64,
            },
            5 => {
                // The outer path end: the reverse edge's.
                let (outer, outer_ways) = self.edge_end(to, from);
                ProbeOp::PopEnd {
                    end: e,
                    ways,
                    outer,
                    outer_ways,
                    pop: h / 19 % 2 == 0,
                }
            }
            // Every other one-way path end comes in the probe (it never changes).
            _ if ways == 1 && h % 2 == 0 => ProbeOp::Count(self.ends[e as usize]),
            // Some have no ways, and always miss.
            _ if h % 17 == 0 => ProbeOp::End {
                end: e,
                ways: 0,
                set: 0,
                first: None,
            },
            // The sum after: mostly the ways' (as a path profile's), else another; given a
            // way first (see `first`).
            _ => ProbeOp::End {
                end: e,
                ways,
                set: (h % 3 + h / 11 % 2) as i64,
                first: self.first(e, from, to),
            },
        }
    }

    /// The way given first in the path end `e` of the edge from `from` to `to`: for a
    /// third of the edges its own first way (as a pinned window is), for a third the
    /// reverse edge's path end's.
    fn first(&mut self, e: u32, from: u64, to: u64) -> Option<ProbeEnd> {
        match mix(from, to) / 23 % 3 {
            0 => Some(self.ends[e as usize]),
            1 => {
                let (reverse, _) = self.edge_end(to, from);
                Some(self.ends[reverse as usize])
            }
            _ => None,
        }
    }

    /// The path end of the edge from the block at `from` to `to`, made when first asked
    /// for: one way of 64 sums, or every other path end two, the second for the next 64
    /// sums; or for a third of the edges ways of one sum each (as a sparse table's
    /// windows).
    fn edge_end(&mut self, from: u64, to: u64) -> (u32, u8) {
        let h = mix(from, to);
        let ways = 1 + (h / 3 % 2) as u8;
        let one = h / 29 % 3 == 0;
        let n = self.ends.len() as u32;
        let e = *self.end_of.entry((from, to)).or_insert(n);
        if e == n {
            for w in 0..i64::from(ways) {
                let (size, add) = match one {
                    true => (1, -((h / 31 % 4) as i64) - w),
                    false => (64, (h % 5) as i64 - 2 - 64 * w),
                };
                self.ends.push(ProbeEnd {
                    base: self.counts.len() as u64,
                    size,
                    add,
                    set: (h % 3) as i64,
                });
                self.counts.resize(self.counts.len() + size as usize, 0);
            }
        }
        (e, ways)
    }

    /// Keeps an open frame below the state, as a sink takes over a call whose return
    /// compiled code did not take: whenever it is called, so that the frames it keeps are
    /// the same with probes and without.
    fn settle(&mut self) {
        self.frames.extend_from_slice(self.state.open());
        self.state.depth = 0;
        if let Some(first) = self.shrunk.first_mut() {
            self.counts[0] += std::mem::take(first);
        }
    }

    /// A return or tail call `p` (to `to`) that found no frame open: if there is a frame
    /// below (and, for a return, it returns to `to`), `p` applies to it as to an open one
    /// (the same probe on it; a return pops it), else it is dropped.
    fn below(&mut self, p: &Probe, to: u64) -> bool {
        let (ProbeOp::Return { .. } | ProbeOp::Tail { .. }, Some(&frame)) =
            (p.op, self.frames.last())
        else {
            return false;
        };
        let returns = matches!(p.op, ProbeOp::Return { .. });
        if (returns && frame.ret != to) || self.state.depth != 0 {
            return false;
        }
        self.state.frames[0] = frame;
        self.state.depth = 1;
        let applied = apply(p, to, &mut self.state, &mut self.counts, &self.ends);
        self.state.depth = 0;
        if applied && returns {
            self.frames.pop();
        }
        applied
    }

    /// The path end of the return from the block at `from`: a table of its own (one way).
    fn return_end(&mut self, from: u64) -> u32 {
        let n = self.ends.len() as u32;
        let e = *self.end_of.entry((from, u64::MAX)).or_insert(n);
        if e == n {
            let h = mix(from, 0);
            self.ends.push(ProbeEnd {
                base: self.counts.len() as u64,
                size: 64,
                add: (h % 5) as i64 - 2,
                set: 0,
            });
            self.counts.extend([0; 64]);
        }
        e
    }

    /// The probe of a call from the block at `from` (ending at `ret`) to `to`; every third
    /// ends a path of the caller first, at the edge's path end, and where edges enter
    /// regions, every third (some of those that end a path too) enters one then.
    fn call_of(&mut self, from: u64, to: u64, ret: u64) -> Probe {
        let h = mix(from, to);
        let end = (h % 3 == 1).then(|| self.edge_end(from, to));
        let enter =
            (self.regions && h / 11 % 3 == 2).then_some(((h / 3 % 5) as i64 - 2, (h % 4) as i64));
        Probe {
            key: from,
            epoch: self.state.epoch,
            next: to,
            op: ProbeOp::Call {
                add: (h % 5) as i64 - 2,
                ret,
                resume: ret,
                resume_add: (h % 7) as i64 - 3,
                site: from,
                start: (h % 3) as i64,
                // Every fourth callee starts in a region, where edges enter regions.
                push: (self.regions && h % 4 == 0).then_some((h % 5) as i64),
                end,
                enter,
            },
        }
    }

    /// The probe of a return from the block at `from` (to `to`, where it does not apply).
    /// A third are given their way first (as a dense table's is), a third the first path
    /// end's.
    fn return_of(&mut self, from: u64, to: u64) -> Probe {
        let end = self.return_end(from);
        Probe {
            key: from,
            epoch: self.state.epoch,
            next: to,
            op: ProbeOp::Return {
                end,
                ways: 1,
                pairs: 0,
                first: match mix(from, 1) % 3 {
                    0 => Some(self.ends[end as usize]),
                    1 => Some(self.ends[0]),
                    _ => None,
                },
                saves_none: false,
            },
        }
    }

    /// Whether the jump from the block at `from` to `to` is a tail call: every other one,
    /// where calls have probes.
    fn tail(&self, from: u64, to: u64) -> bool {
        self.calls && mix(from, to) % 2 == 0
    }

    /// The probe of a tail call from the block at `from` to `to`: a path end of its own
    /// (one way), counting the activation in `counts[0]` (where edges enter regions,
    /// every fourth callee starts in one, as with calls).
    fn tail_of(&mut self, from: u64, to: u64) -> Probe {
        let h = mix(from, to);
        Probe {
            key: from,
            epoch: self.state.epoch,
            next: to,
            op: ProbeOp::Tail {
                end: self.return_end(from),
                ways: 1,
                pairs: 0,
                push: (self.regions && h % 4 == 0).then_some((h % 5) as i64),
            },
        }
    }

    /// The probe of an indirect jump from the block at `from` to `to`, where calls have
    /// probes: at every third target an addition (a jump table's flow edge), else the
    /// activation restarts there, through the edge's path end, counted in `counts[0]` (in
    /// a region, saving a sum, at every other target where edges enter regions).
    fn restart_of(&mut self, from: u64, to: u64) -> Probe {
        let (end, ways) = self.edge_end(from, to);
        let h = mix(from, to);
        Probe {
            key: from,
            epoch: self.state.epoch,
            next: to,
            op: if h / 19 % 3 == 0 {
                ProbeOp::Add((h % 5) as i64 - 1)
            } else {
                ProbeOp::Restart {
                    end,
                    ways,
                    pairs: 0,
                    // Where edges enter regions, every other target is in one.
                    push: (self.regions && h % 2 == 0).then_some((h % 7) as i64),
                }
            },
        }
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
        self.blocks.note(block);
        Interest::EDGE
    }

    fn edge(&mut self, edge: &Edge) -> Control {
        self.settle();
        self.edges += 1;
        if self.edges == self.stale_at {
            self.state.epoch += 1;
            // Another epoch, other counters: every path end's move past those so far (a
            // stale probe that counted at a way it carries would be seen).
            let moved = self.counts.len() as u64;
            self.counts.extend_from_within(..);
            for end in &mut self.ends {
                end.base += moved;
            }
        }
        if self.edges == self.shrink_at {
            self.shrunk = vec![0; self.counts.len() + 4096];
        }
        let (from, ret) = self.blocks.of(edge.from);
        let fixed = !matches!(
            edge.kind,
            EdgeKind::Call | EdgeKind::IndirectCall | EdgeKind::Return | EdgeKind::IndirectJump
        );
        if self.nowhere && !fixed {
            self.state.sum = self.state.sum.wrapping_add(7) % 64;
            return Control::Continue;
        }
        let p = match edge.kind {
            EdgeKind::Call | EdgeKind::IndirectCall if self.calls => {
                self.call_events += 1;
                self.indirect_calls += u64::from(edge.kind == EdgeKind::IndirectCall);
                self.call_of(from, edge.to, ret)
            }
            EdgeKind::Return if self.calls => {
                self.call_events += 1;
                self.return_of(from, edge.to)
            }
            EdgeKind::Jump if self.tail(from, edge.to) => {
                self.tails += 1;
                self.tail_of(from, edge.to)
            }
            EdgeKind::IndirectJump if self.calls => {
                self.restarts += 1;
                self.restart_of(from, edge.to)
            }
            _ => self.probe_of(from, edge.to),
        };
        if matches!(
            p.op,
            ProbeOp::Push { .. }
                | ProbeOp::PushEnd { .. }
                | ProbeOp::Pop { .. }
                | ProbeOp::PopEnd { .. }
                | ProbeOp::Through { .. }
                | ProbeOp::PopPush { .. }
        ) {
            self.region_events += 1;
        }
        if !apply(&p, edge.to, &mut self.state, &mut self.counts, &self.ends)
            && !self.below(&p, edge.to)
        {
            *self.missed.entry((from, edge.to)).or_default() += 1;
            self.state.key = p.next;
            // A loop that enters regions it does not leave fills the stack: forget the
            // activation's sums, or (from half the stack up) every sum the state saved,
            // so that entries apply again.
            if self.state.saved == SAVES as u64 {
                if self.state.floor >= SAVES as u64 / 2 {
                    self.state.floor = 0;
                    let depth = self.state.depth as usize;
                    for frame in &mut self.state.frames[..depth] {
                        frame.floor = 0;
                    }
                }
                self.state.saved = self.state.floor;
            }
        }
        Control::Continue
    }

    fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
        self.settle();
        let counts = match self.shrunk.is_empty() {
            true => &mut self.counts[..],
            false => &mut self.shrunk[..1],
        };
        self.probes.then_some(ProbeLease {
            state: &mut self.state,
            counts,
            ends: &self.ends,
        })
    }

    /// Only edges that enter regions, and calls, tail calls and restarts into them, save.
    fn saves_sums(&mut self) -> bool {
        self.regions
    }

    /// Probes for the exits its edge events treat as fixed (a call's only with `calls`).
    fn probe(&mut self, block: &BlockInfo, to: u64) -> Option<Probe> {
        match block.ends_with {
            BlockEnd::Call | BlockEnd::IndirectCall if self.calls => {
                Some(self.call_of(block.start, to, block.end))
            }
            BlockEnd::Call | BlockEnd::IndirectCall => None,
            BlockEnd::Jump if self.tail(block.start, to) => Some(self.tail_of(block.start, to)),
            BlockEnd::IndirectJump if self.calls => Some(self.restart_of(block.start, to)),
            // (Its event changes the sum otherwise: see `nowhere`.)
            BlockEnd::IndirectJump if self.nowhere => None,
            _ => Some(self.probe_of(block.start, to)),
        }
    }

    fn probe_return(&mut self, block: &BlockInfo) -> Option<Probe> {
        self.calls.then(|| self.return_of(block.start, 0))
    }

    fn exit(&mut self, _exit: &Exit) {
        self.settle();
        assert!(
            self.shrunk.iter().all(|&n| n == 0),
            "counted beyond the lease"
        );
    }
}

impl Walker {
    /// Each edge's path-end counters that counted, by edge (the tables' order is the
    /// order the sink first met the edges in, which probes change).
    fn tables(&self) -> BTreeMap<(u64, u64), Vec<u64>> {
        self.end_of
            .iter()
            .filter_map(|(&edge, &e)| {
                let end = self.ends[e as usize];
                // A path end's ways' counters follow each other (a return's has one).
                let ways = if edge.1 == u64::MAX || mix(edge.0, edge.1) / 3 % 2 == 0 {
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

/// How the sink walks: the edge at which the epoch moves, whether it stands nowhere,
/// whether calls and returns have probes, whether edges enter and leave regions, and the
/// edge from which it lends one counter.
type Walk = (u64, bool, bool, bool, u64);

/// Runs every guest with and without probes, the epoch moving at the `stale_at`-th edge
/// the sink handles, standing `nowhere` or at blocks, with or without probes of calls and
/// of regions; returns the edges, the calls and returns, the indirect calls, the tail
/// calls, the indirect jumps and the region entries and exits that reached the sink with
/// probes and without, per Linux guest.
fn with_and_without_probes(walk: Walk) -> Vec<(String, [u64; 12])> {
    with_and_without_probes_summed(walk).0
}

/// [`with_and_without_probes`], with the guarded blocks diverted to their unprobed code,
/// the cache flushes and the indirect calls' and jumps' blocks compiled with their site's
/// probe known, of the runs with probes, all guests together.
fn with_and_without_probes_summed(walk: Walk) -> (Vec<(String, [u64; 12])>, [u64; 3]) {
    let mut edges = Vec::new();
    let (mut diverted, mut flushes, mut known) = (0, 0, 0);
    for guest in common::guests() {
        let (with, without, summary) = common::with_and_without_probes(&guest, |entry, probes| {
            Walker::new(entry, probes, walk)
        });
        diverted += summary.guards_diverted;
        flushes += summary.cache_flushes;
        known += summary.sites_known;
        let name = &guest.name;
        // (Closed frames keep what they held: not part of the state.)
        let state = |w: &Walker| {
            (
                w.state.sum,
                w.state.key,
                w.state.epoch,
                w.state.open().to_vec(),
                w.state.saved_sums().to_vec(),
                w.state.floor,
            )
        };
        assert_eq!(state(&with), state(&without), "{name}");
        assert_eq!(
            with.counts[0], without.counts[0],
            "{name}: calls returned by probes"
        );
        assert_eq!(with.tables(), without.tables(), "{name}");
        assert_eq!(with.missed, without.missed, "{name}");
        assert!(with.counts.iter().sum::<u64>() > 0, "{name}");
        // Bare-metal runs do not chain blocks: no compiled code runs probes there.
        if guest.env != "bare" {
            let calls = [with.call_events, without.call_events];
            let indirect = [with.indirect_calls, without.indirect_calls];
            let tails = [with.tails, without.tails];
            let restarts = [with.restarts, without.restarts];
            let regions = [with.region_events, without.region_events];
            edges.push((
                guest.name.clone(),
                [
                    with.edges,
                    without.edges,
                    calls[0],
                    calls[1],
                    indirect[0],
                    indirect[1],
                    tails[0],
                    tails[1],
                    restarts[0],
                    restarts[1],
                    regions[0],
                    regions[1],
                ],
            ));
        }
    }
    (edges, [diverted, flushes, known])
}

#[test]
fn probes_leave_the_state_the_edge_events_leave() {
    let edges = with_and_without_probes((u64::MAX, false, false, false, u64::MAX));
    for (name, [with, without, ..]) in &edges {
        eprintln!("{name}: {with} of {without} edges reached the sink");
        assert!(with < without, "{name}: no probe ran");
    }
    // Compiled code took a good part of the edges: calls, returns, indirect jumps,
    // bail-outs, misses and the parts of traces through calls reach the sink.
    let (with, without) = edges
        .iter()
        .fold((0, 0), |(a, b), e| (a + e.1[0], b + e.1[1]));
    assert!(
        with * 4 < without * 3,
        "{with} of {without} edges reached the sink"
    );
}

/// Once stale, no probe given before applies: compiled code, which checks no epoch of the
/// states it was lent, is flushed before a state of the new epoch is lent, and the blocks
/// compiled again run the new epoch's probes.
#[test]
fn stale_probes_leave_the_state_to_the_edge_events() {
    let (edges, [_, flushes, _]) =
        with_and_without_probes_summed((2_000, false, false, false, u64::MAX));
    assert!(flushes > 0, "the stale code was not flushed");
    for (name, [with, without, ..]) in &edges {
        eprintln!("{name}: {with} of {without} edges reached the sink");
        assert!(with < without, "{name}: no probe ran");
    }
}

/// Probes that apply anywhere wait for every event before them.
#[test]
fn probes_run_after_the_events_before_them() {
    with_and_without_probes((u64::MAX, true, false, false, u64::MAX));
}

/// Calls and returns with probes: compiled code takes calls whose return it takes too (a
/// return into a frame of its own), indirect ones included (through the probe the sink
/// gives for the target the call went to last, and, once the call's block is compiled
/// again, with the first such probe's fields known), tail calls within them and restarts
/// at indirect jumps' targets (as indirect calls, and additions with their fields known
/// as a call's), and leaves the state, the frame included, and the counters that the
/// events leave.
#[test]
fn probed_calls_and_returns_leave_the_state_the_events_leave() {
    let (edges, [.., known]) =
        with_and_without_probes_summed((u64::MAX, false, true, false, u64::MAX));
    assert!(
        known > 0,
        "no indirect call's block was compiled with its site's probe known"
    );
    let (mut taken, mut indirect, mut tails, mut restarts) = (0, 0, 0, 0);
    for (name, [_, _, with, without, iwith, iwithout, twith, twithout, rwith, rwithout, ..]) in
        &edges
    {
        eprintln!(
            "{name}: {with} of {without} calls and returns reached the sink, \
             {iwith} of {iwithout} indirect calls, {twith} of {twithout} tail calls, \
             {rwith} of {rwithout} indirect jumps"
        );
        taken += without - with;
        indirect += iwithout - iwith;
        tails += twithout - twith;
        restarts += rwithout - rwith;
    }
    assert!(taken > 0, "compiled code took no call or return");
    assert!(indirect > 0, "compiled code took no indirect call");
    assert!(tails > 0, "compiled code took no tail call");
    assert!(restarts > 0, "compiled code took no indirect jump");
}

/// The same with the epoch moving mid-run: probes given before, calls' and returns'
/// included, no longer apply.
#[test]
fn stale_call_probes_leave_the_state_to_the_events() {
    with_and_without_probes((100, false, true, false, u64::MAX));
}

/// Region entries and exits with probes, with calls' and returns': compiled code saves
/// and restores sums, each activation its own, and leaves the state, the sums saved
/// included, and the counters that the events leave.
#[test]
fn probed_region_entries_and_exits_leave_the_state_the_events_leave() {
    let edges = with_and_without_probes((u64::MAX, false, true, true, u64::MAX));
    let mut taken = 0;
    for (name, [.., with, without]) in &edges {
        eprintln!("{name}: {with} of {without} region entries and exits reached the sink");
        taken += without - with;
    }
    assert!(taken > 0, "compiled code took no region entry or exit");
}

/// The same standing nowhere, with the epoch moving mid-run.
#[test]
fn stale_region_probes_leave_the_state_to_the_events() {
    with_and_without_probes((5_000, true, false, true, u64::MAX));
}

/// A sink whose counters get fewer mid-run: compiled code, which adds to the counters it
/// was compiled for unchecked, no longer runs its probes (its path ends would count
/// beyond the counters lent), and leaves the state and the counters that the events
/// leave. Its state is then not lent, and the blocks' guards fail their checks: the blocks
/// whose checks fail often go on in their unprobed code, whose records deliver the events.
#[test]
fn probes_count_only_in_the_counters_lent() {
    let (_, [diverted, _, _]) =
        with_and_without_probes_summed((u64::MAX, false, true, true, 20_000));
    eprintln!("{diverted} guarded blocks diverted to their unprobed code");
    assert!(diverted > 0, "no failed check went on in unprobed code");
}

/// The same standing nowhere (every key 0): while no state is lent, compiled code runs
/// on one that no probe applies to, whatever the probe's key.
#[test]
fn probes_count_only_in_the_counters_lent_standing_nowhere() {
    with_and_without_probes((u64::MAX, true, false, false, 20_000));
}

/// The ranges of this process's anonymous mappings (no file behind them).
fn anonymous_mappings() -> Vec<(u64, u64)> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    maps.lines()
        .filter(|l| l.split_whitespace().count() == 5)
        .filter_map(|l| {
            let (lo, hi) = l.split_whitespace().next()?.split_once('-')?;
            Some((
                u64::from_str_radix(lo, 16).ok()?,
                u64::from_str_radix(hi, 16).ok()?,
            ))
        })
        .collect()
}

/// A perf map names each stretch of the compiled code (the blocks' own code and the
/// probes they run for the sink), a block's stretches one after the other from its
/// prologue on, all in anonymous memory, the only kind perf reads a map for.
#[test]
fn a_perf_map_names_the_compiled_code_and_its_probes() {
    let guest = common::guests()
        .into_iter()
        .find(|g| g.name == "sort")
        .expect("the sort guest");
    let path = std::env::temp_dir().join(format!("isa-emu-{}.perf.map", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let config = Config {
        perf_map: Some(path.clone()),
        ..Config::default()
    };
    let mut m = common::machine(&guest, config);
    let mut w = Walker::new(
        m.image().entry,
        true,
        (u64::MAX, false, true, true, u64::MAX),
    );
    m.run(&mut w as &mut dyn Sink);
    let anonymous = anonymous_mappings();
    drop(m);
    let map = std::fs::read_to_string(&path).expect("the perf map");
    std::fs::remove_file(&path).unwrap();
    let mut sections = BTreeMap::new();
    let mut end = None;
    for line in map.lines() {
        let mut fields = line.splitn(3, ' ');
        let mut hex = || u64::from_str_radix(fields.next().unwrap_or(""), 16).unwrap();
        let (start, size) = (hex(), hex());
        let name = fields.next().unwrap_or("");
        assert!(size > 0, "{line}");
        let in_anonymous = |&(lo, hi): &(u64, u64)| lo <= start && start + size <= hi;
        assert!(
            anonymous.iter().any(in_anonymous),
            "{line}: not anonymous memory"
        );
        let section = ["block ", "event superblock "]
            .iter()
            .find_map(|kind| name.split_once(kind).map(|(_, s)| s))
            .unwrap_or_else(|| panic!("{line}: no block named"));
        assert!(name.starts_with("isa-emu 0x"), "{line}");
        if section != "prologue" {
            assert_eq!(Some(start), end, "{line}: not after the stretch before");
        }
        end = Some(start + size);
        *sections.entry(section.to_string()).or_insert(0) += 1;
    }
    eprintln!("sort: stretches named in the perf map: {sections:?}");
    for section in [
        "prologue",
        "guard",
        "body",
        "exit",
        "epilogue",
        "probe add",
        "probe call",
        "probe return",
        "probe indirect call",
    ] {
        assert!(sections.contains_key(section), "no {section}");
    }
    assert!(
        sections.keys().any(|s| s.starts_with("probe p")),
        "no region probe (push or pop)"
    );
}

/// A perf map that cannot be opened stops the program from loading, with the path and
/// the reason.
#[test]
fn a_perf_map_that_cannot_be_opened_is_an_error() {
    let elf = std::fs::read(common::guests_dir().join("bin/primes.elf")).expect("guest ELF");
    let path = std::path::PathBuf::from("/nonexistent-directory/isa-emu.perf.map");
    let config = Config {
        perf_map: Some(path.clone()),
        ..Config::default()
    };
    let linux = isa_emu::LinuxConfig::default();
    match isa_emu::Machine::linux(&elf, linux, config) {
        Err(e @ isa_emu::Error::PerfMap { .. }) => {
            let message = e.to_string();
            assert!(message.contains(path.to_str().unwrap()), "{message}");
            assert!(message.contains("No such file"), "{message}");
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("loaded"),
    }
}

/// After a probe that does not apply, compiled code returns to the run loop with the one
/// event, and the probes after it apply again: the events do not feed themselves (going
/// on with every probe missing until the event is delivered hands the sink the frames of
/// the calls made meanwhile, whose returns then miss in turn: 1.9M events in a run of
/// sort 300000 with `NoOpProbes`, against 554).
#[test]
fn a_probe_that_misses_leaves_the_next_ones_to_compiled_code() {
    for guest in common::guests().iter().filter(|g| g.env != "bare") {
        let (with, without, _) = common::with_and_without_probes(guest, |_, lends| {
            let mut sink = NoOpProbes::default();
            sink.lends = lends;
            sink
        });
        let name = &guest.name;
        eprintln!(
            "{name}: {} of {} edges reached the sink",
            with.edges, without.edges
        );
        assert!(with.edges < without.edges, "{name}: no probe ran");
        // Sort: 250 of 11617793 edges reach the sink, against 298312 when code goes on
        // after a miss.
        if name == "sort" {
            assert!(with.edges * 1000 < without.edges, "{name}");
        }
    }
}

//! Traces (event superblocks announced to the sink): a sink that takes them and counts
//! their runs gets exactly the block and edge counts that single-stepping delivers event by
//! event, on every guest; one that declines them gets every event.

mod guest_util;
use guest_util as common;

use std::collections::BTreeMap;

use isa_emu::Config;
use prof_events::{BlockId, BlockInfo, Control, Edge, Interest, Sink, TraceId, TracePart};

/// Counts every block entry and every edge (by source, target and kind). With `takes`, it
/// takes every trace and counts its runs by length, adding them to the counts at the end.
#[derive(Default)]
struct Counts {
    takes: bool,
    interest: Interest,
    blocks: BTreeMap<BlockId, u64>,
    edges: BTreeMap<(BlockId, u64, u64, String), u64>,
    runs: Vec<(Vec<TracePart>, Vec<u64>)>,
    events: u64,
}

impl Counts {
    fn new(takes: bool, interest: Interest) -> Self {
        Counts {
            takes,
            interest,
            ..Counts::default()
        }
    }

    fn count_edge(&mut self, e: &Edge, n: u64) {
        let key = (e.from, e.pc, e.to, format!("{:?}", e.kind));
        *self.edges.entry(key).or_default() += n;
    }
}

impl Sink for Counts {
    fn may_stop(&mut self) -> bool {
        false
    }
    fn interest(&mut self, _: &BlockInfo) -> Interest {
        self.interest
    }
    fn block(&mut self, id: BlockId, _: u64) -> Control {
        *self.blocks.entry(id).or_default() += 1;
        self.events += 1;
        Control::Continue
    }
    fn edge(&mut self, e: &Edge) -> Control {
        self.count_edge(e, 1);
        self.events += 1;
        Control::Continue
    }
    fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
        assert_eq!(id.index(), self.runs.len(), "trace ids are dense");
        assert!(parts.len() >= 2);
        self.runs.push((parts.to_vec(), vec![0; parts.len()]));
        self.takes
    }
    fn trace(&mut self, id: TraceId, n: u32) -> Control {
        assert!(self.takes, "only taken traces run as traces");
        self.runs[id.index()].1[n as usize - 1] += 1;
        Control::Continue
    }
    fn exit(&mut self, _: &prof_events::Exit) {
        let runs = std::mem::take(&mut self.runs);
        for (parts, by_len) in &runs {
            for (len, &n) in by_len.iter().enumerate() {
                let mut r = Counts::default();
                let _ = prof_events::replay(&mut r, parts, len + 1);
                for (b, c) in r.blocks {
                    *self.blocks.entry(b).or_default() += c * n;
                }
                for (e, c) in r.edges {
                    *self.edges.entry(e).or_default() += c * n;
                }
            }
        }
        self.runs = runs;
    }
}

/// Runs every guest with `interest` on every block, single-stepped and cached with and
/// without taking traces; asserts the counts agree and returns the traces taken.
fn compare(interest: Interest) -> u64 {
    let mut taken_runs = 0;
    for g in common::guests() {
        let run = |single_step: bool, takes: bool| {
            let config = Config {
                fuel: Some(2_000_000),
                single_step,
                sample_interval: Some(9_973),
                ..Config::default()
            };
            let mut m = common::machine(&g, config);
            let mut c = Counts::new(takes, interest);
            let summary = m.run(&mut c);
            let runs: u64 = c.runs.iter().flat_map(|r| r.1.iter()).sum();
            ((summary.instret, summary.outcome, summary.pc), c, runs)
        };
        let (stepped, s, _) = run(true, false);
        let (cached, c, runs) = run(false, true);
        let (declined, d, _) = run(false, false);
        assert_eq!(cached, stepped, "{}", g.name);
        assert_eq!(declined, stepped, "{}", g.name);
        assert_eq!(c.blocks, s.blocks, "{}: block counts", g.name);
        assert_eq!(c.edges, s.edges, "{}: edge counts", g.name);
        assert_eq!((d.blocks, d.edges), (s.blocks, s.edges), "{}", g.name);
        assert_eq!(
            d.events, s.events,
            "{}: a declining sink gets every event",
            g.name
        );
        // Bare metal polls its host interface after every block: no superblocks there.
        if g.env == "linux" {
            assert!(c.events < s.events, "{}: trace runs replace events", g.name);
        }
        taken_runs += runs;
    }
    taken_runs
}

#[test]
fn counting_trace_runs_gives_the_counts_of_single_stepping() {
    let runs = compare(Interest::BLOCK | Interest::EDGE);
    assert!(runs > 100_000, "trace runs: {runs}");
    let runs = compare(Interest::EDGE);
    assert!(runs > 100_000, "trace runs: {runs}");
}

//! On every guest (Linux and bare-metal): the path profile agrees with the edge profile
//! observed on the same run, per function and region, in flat, region-based and
//! global-based modes.

use std::path::{Path, PathBuf};

use cfg_bl::runtime::Table;
use cfg_bl::sink::{PathSink, RegionChoice};
use cfg_bl::{LazyProgram, Mode, Program};
use isa_emu::linux::{Input, LinuxConfig, Output};
use isa_emu::{Config, Machine, RunSummary};
use prof_events::{CodeView, Sink};

fn guests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

/// A Linux guest of the manifest.
struct Guest {
    name: String,
    elf: PathBuf,
    args: Vec<String>,
    stdin: Option<PathBuf>,
    allow_dir: Option<PathBuf>,
    /// A bare-metal (HTIF) guest.
    bare: bool,
}

/// Every guest of the manifest, Linux and bare-metal.
fn all_guests() -> Vec<Guest> {
    let text = std::fs::read_to_string(guests_dir().join("manifest.json")).expect("manifest");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest parses");
    let s = |g: &serde_json::Value, k: &str| g[k].as_str().map(String::from);
    v.as_array()
        .expect("array")
        .iter()
        .map(|g| Guest {
            name: s(g, "name").expect("name"),
            elf: guests_dir().join(s(g, "elf").expect("elf")),
            args: g["args"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            stdin: s(g, "stdin").map(|p| guests_dir().join(p)),
            allow_dir: s(g, "allow_dir").map(|p| guests_dir().join(p)),
            bare: g["env"] == "bare",
        })
        .collect()
}

fn linux_guests() -> Vec<Guest> {
    all_guests().into_iter().filter(|g| !g.bare).collect()
}

/// Runs `m` with `sink` behind `dyn Sink` (why: docs/architecture.md, isa-emu's `machine.rs`).
fn run(m: &mut Machine, sink: &mut dyn Sink) -> RunSummary {
    m.run(sink)
}

fn machine(g: &Guest) -> Machine {
    let elf = std::fs::read(&g.elf).expect("ELF");
    if g.bare {
        let console = isa_emu::BareConfig {
            console: Output::Capture,
        };
        return Machine::bare_metal(&elf, console, Config::default()).expect("guest loads");
    }
    let mut argv = vec![g.name.as_bytes().to_vec()];
    argv.extend(g.args.iter().map(|a| a.as_bytes().to_vec()));
    let stdin = g
        .stdin
        .as_ref()
        .map(|p| std::fs::read(p).expect("stdin"))
        .unwrap_or_default();
    let linux = LinuxConfig {
        args: argv,
        env: vec![b"LANG=C".to_vec()],
        stdin: Input::Bytes(stdin),
        stdout: Output::Capture,
        stderr: Output::Capture,
        allow_dir: g.allow_dir.clone(),
        cwd: Some(guests_dir()),
        seed: 0,
        ..LinuxConfig::default()
    };
    Machine::linux(&elf, linux, Config::default()).expect("guest loads")
}

/// Instructions executed according to an edge profile: every visit of a block leaves it by
/// exactly one edge, so visits are out-edge counts; instructions per block by decoding.
fn executed_insns(m: &Machine, inst: &cfg_bl::Instrumented, counts: &[u64]) -> u64 {
    let cfg = &inst.hier.cfg;
    let mut total = 0;
    for n in cfg.graph.node_indices().skip(2) {
        let visits: u64 = cfg.succs(n).iter().map(|(e, _)| counts[e.index()]).sum();
        if visits == 0 {
            continue;
        }
        total += visits * block_insns(m, cfg.graph[n].start, cfg.graph[n].end);
    }
    total
}

/// Instructions in the block `[start, end)`.
fn block_insns(m: &Machine, start: u64, end: u64) -> u64 {
    let (mut pc, mut insns) = (start, 0);
    while pc < end {
        let i = m.insn(pc).expect("decodes");
        pc += u64::from(i.len);
        insns += 1;
    }
    insns
}

/// Instructions of the block a bare-metal guest stopped at without running it (none for a
/// Linux guest, which stops inside its `exit` system call). The emulator polls HTIF's
/// `tohost` after each block, so a bare guest's `_exit` (`sd a5, tohost; j .`) stops at
/// its `j .` after taking it once: the sink has followed that edge, and the run's last path
/// ends in the block at the final pc, which the edge profile counts but no instruction of
/// which retired.
fn not_run(guest: &Guest, sink: &PathSink, m: &Machine, pc: u64) -> u64 {
    if !guest.bare {
        return 0;
    }
    sink.functions
        .iter()
        .filter_map(|f| f.inst.as_ref())
        .flat_map(|inst| inst.hier.cfg.graph.node_weights())
        .find(|b| b.start == pc && b.end > pc)
        .map_or(0, |b| block_insns(m, b.start, b.end))
}

#[test]
fn path_profiles_agree_with_edge_profiles_on_every_guest() {
    let guests = all_guests();
    assert!(guests.iter().filter(|g| g.bare).count() >= 3, "bare guests");
    assert!(guests.len() >= 12, "guests found: {}", guests.len());
    for (i, guest) in guests.iter().enumerate() {
        let name = &guest.name;
        let mut modes = vec![
            (Mode::RegionBased, RegionChoice::Flat),
            (Mode::RegionBased, RegionChoice::Loops),
            (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        ];
        if i < 3 {
            // The unshrunk global graph on a few guests (it only adds unused numbers).
            modes.push((Mode::GlobalBased { shrink: false }, RegionChoice::Loops));
        } else if i < 7 {
            modes.push((Mode::RegionBased, RegionChoice::LoopsAndHammocks));
            modes.push((
                Mode::GlobalBased { shrink: true },
                RegionChoice::LoopsAndHammocks,
            ));
        }
        for (mode, regions) in modes {
            let (mut m, mut sink) = sink_for(guest, mode, regions);
            sink.record_edges = true;
            let summary = run(&mut m, &mut sink);
            let mut items = 0;
            let mut executed = 0u64;
            let mut paths_total = 0;
            let mut functions = 0;
            for f in &sink.functions {
                let (Some(inst), Some(c)) = (&f.inst, &f.counters) else {
                    continue;
                };
                functions += 1;
                assert_eq!(
                    (c.underflow, c.out_of_range),
                    (0, 0),
                    "{name} {}",
                    inst.hier.cfg.name
                );
                let paths = c.paths(inst).expect("every counted sum decodes");
                paths_total += paths.iter().map(|(_, n)| n).sum::<u64>();
                executed += executed_insns(&m, inst, &f.edge_counts);
                items += cfg_bl::check::agreement(inst, &f.edge_counts, f.starts, f.ends, &paths)
                    .unwrap_or_else(|e| panic!("{name} {mode:?} {regions:?}: {e}"));
            }
            eprintln!(
                "{name} {mode:?} {regions:?}: exit {:?}, {functions} functions, {paths_total} paths, {items} items agree, {:?}",
                summary.outcome, sink.stats
            );
            assert_eq!(sink.stats.truncated, 0, "{name}: {:?}", sink.stats);
            // Independent of numbering and plans: the edge profile accounts for every
            // instruction the emulator retired.
            assert_eq!(
                executed,
                summary.instret + not_run(guest, &sink, &m, summary.pc),
                "{name}: instructions in visited blocks"
            );
            assert!(paths_total > 0);
        }
    }
}

/// `guest`'s machine and a sink for its recovered program.
fn sink_for(guest: &Guest, mode: Mode, regions: RegionChoice) -> (Machine, PathSink) {
    let m = machine(guest);
    let program = Program::recover(&m, &[m.image().entry]);
    (m, PathSink::new(program, mode, regions))
}

/// A profile: `(function, path, sum, count)` as [`PathSink::paths`] gives it.
type Paths = Vec<(usize, cfg_bl::HierPath, u128, u64)>;

/// The profile of `guest` in `mode` with the sink adjusted by `setup`, and its stats.
fn profile(
    guest: &Guest,
    mode: Mode,
    regions: RegionChoice,
    setup: impl Fn(&mut PathSink),
) -> (Paths, cfg_bl::Stats) {
    let (mut m, mut sink) = sink_for(guest, mode, regions);
    setup(&mut sink);
    run(&mut m, &mut sink);
    (sink.paths(), sink.stats)
}

/// The runtime's cached inline steps (used when edges are not recorded) give the profile
/// that the arena steps (used when they are, and checked above) give.
#[test]
fn recording_edges_changes_no_path_count() {
    let guests = linux_guests();
    for guest in guests.iter().take(6) {
        for (mode, regions) in [
            (Mode::RegionBased, RegionChoice::Flat),
            (Mode::RegionBased, RegionChoice::Loops),
            (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        ] {
            let plain = profile(guest, mode, regions, |_| {});
            let recorded = profile(guest, mode, regions, |s| s.record_edges = true);
            assert!(!plain.0.is_empty(), "{}", guest.name);
            assert_eq!(plain, recorded, "{} {mode:?} {regions:?}", guest.name);
        }
    }
}

/// Dense and sparse (bounded-hashtable) counter tables give the same profile: all sparse,
/// the default threshold, dense up to 2^20 sums, and with the dense budget spent at once.
#[test]
fn dense_and_sparse_counters_give_identical_profiles() {
    let guests = linux_guests();
    for guest in guests.iter().take(5) {
        for (mode, regions) in [
            (Mode::RegionBased, RegionChoice::Flat),
            (Mode::RegionBased, RegionChoice::Loops),
            (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        ] {
            let default = profile(guest, mode, regions, |_| {});
            let sparse = profile(guest, mode, regions, |s| s.dense_limit = 0);
            let dense = profile(guest, mode, regions, |s| s.dense_limit = 1 << 20);
            let spent = profile(guest, mode, regions, |s| s.dense_budget = 0);
            assert!(!default.0.is_empty(), "{}", guest.name);
            assert_eq!(default, sparse, "{} {mode:?} {regions:?}", guest.name);
            assert_eq!(default, dense, "{} {mode:?} {regions:?}", guest.name);
            assert_eq!(default, spent, "{} {mode:?} {regions:?}", guest.name);
        }
    }
}

/// A table of more than [`SMALL_TABLE`](cfg_bl::runtime::SMALL_TABLE) sums is dense up to
/// the dense limit while the sink's budget lasts, and sparse once it is spent.
#[test]
fn the_dense_budget_makes_large_tables_sparse() {
    let guest = guest("primes");
    // Per budget: (large tables dense, large tables sparse), over every function run.
    let large = |budget: usize| {
        let (mut m, mut sink) = sink_for(&guest, Mode::RegionBased, RegionChoice::Flat);
        sink.dense_budget = budget;
        run(&mut m, &mut sink);
        let (mut dense, mut sparse) = (0, 0);
        for f in &sink.functions {
            let (Some(inst), Some(c)) = (&f.inst, &f.counters) else {
                continue;
            };
            for (size, table) in inst.table_sizes().into_iter().zip(&c.tables) {
                match table {
                    _ if size <= cfg_bl::runtime::SMALL_TABLE => {}
                    Table::Dense(_) if size <= cfg_bl::runtime::DENSE_LIMIT => dense += 1,
                    Table::Sparse(_) => sparse += 1,
                    Table::Dense(_) => panic!("a dense table of {size} sums"),
                }
            }
        }
        (dense, sparse)
    };
    let (dense, sparse) = large(cfg_bl::runtime::DENSE_BUDGET);
    assert!(dense > 0, "primes runs no table of 4097-65536 sums");
    assert_eq!(large(0), (0, dense + sparse));
}

/// Forwards events to a path sink and switches its edge recording every `every` edges (a
/// trace's run counts as its edges), which clears its cache (arena, path ends and their
/// memos of sparse tables, and with them the traces' compositions) each time. With
/// `traces`, it passes the emulator's traces on (and never stops a run, so that there are
/// some); without, it takes none and may stop, so that every block runs alone.
struct Switching {
    sink: PathSink,
    every: u64,
    edges: u64,
    traces: bool,
}

impl Switching {
    fn count(&mut self, edges: u64) {
        for _ in 0..edges {
            self.edges += 1;
            if self.edges % self.every == 0 {
                self.sink.record_edges = !self.sink.record_edges;
            }
        }
    }
}

impl Sink for Switching {
    fn may_stop(&mut self) -> bool {
        !self.traces
    }

    fn wants(&mut self) -> prof_events::Interest {
        self.sink.wants()
    }

    fn watches_blocks(&mut self) -> bool {
        self.sink.watches_blocks()
    }

    fn interest(&mut self, block: &prof_events::BlockInfo) -> prof_events::Interest {
        self.sink.interest(block)
    }

    fn edge(&mut self, edge: &prof_events::Edge) -> prof_events::Control {
        self.count(1);
        self.sink.edge(edge)
    }

    fn trace_formed(&mut self, id: prof_events::TraceId, parts: &[prof_events::TracePart]) -> bool {
        self.traces && self.sink.trace_formed(id, parts)
    }

    fn trace(&mut self, id: prof_events::TraceId, n: u32) -> prof_events::Control {
        self.count(u64::from(n) - 1);
        self.sink.trace(id, n)
    }

    fn exit(&mut self, exit: &prof_events::Exit) {
        self.sink.exit(exit)
    }
}

/// Clearing the sink's cache mid-run (here by switching edge recording) loses no count
/// pending in it: sparse tables' path ends count their latest sum in a pool counter of
/// their own, which the clear moves to the table.
#[test]
fn clearing_the_cache_mid_run_changes_no_path_count() {
    for name in ["coremark", "strings"] {
        let guest = guest(name);
        for (mode, regions) in [
            (Mode::RegionBased, RegionChoice::Flat),
            (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        ] {
            for dense_limit in [0, cfg_bl::runtime::DENSE_LIMIT] {
                let plain = profile(&guest, mode, regions, |s| s.dense_limit = dense_limit);
                for traces in [false, true] {
                    let (mut m, mut sink) = sink_for(&guest, mode, regions);
                    sink.dense_limit = dense_limit;
                    let mut switching = Switching {
                        sink,
                        every: 20_000,
                        edges: 0,
                        traces,
                    };
                    let summary = run(&mut m, &mut switching);
                    assert!(switching.edges > 4 * switching.every, "{name}");
                    assert_eq!(summary.event_superblocks > 0, traces, "{name}");
                    let sink = switching.sink;
                    assert!(!plain.0.is_empty(), "{name}");
                    assert_eq!(
                        plain,
                        (sink.paths(), sink.stats),
                        "{name} {mode:?} {traces}"
                    );
                }
            }
        }
    }
}

/// Forwards events to a path sink but its probes, and its traces unless `traces` says so:
/// the emulator delivers the runs of its event superblocks to it edge by edge, or as runs.
struct Forward<S> {
    sink: S,
    traces: bool,
}

/// [`Forward`] without traces.
fn edge_by_edge<S>(sink: S) -> Forward<S> {
    Forward {
        sink,
        traces: false,
    }
}

impl<S: Sink> Sink for Forward<S> {
    fn may_stop(&mut self) -> bool {
        false
    }

    fn wants(&mut self) -> prof_events::Interest {
        self.sink.wants()
    }

    fn interest(&mut self, block: &prof_events::BlockInfo) -> prof_events::Interest {
        self.sink.interest(block)
    }

    fn edge(&mut self, edge: &prof_events::Edge) -> prof_events::Control {
        self.sink.edge(edge)
    }

    fn trace_formed(&mut self, id: prof_events::TraceId, parts: &[prof_events::TracePart]) -> bool {
        self.traces && self.sink.trace_formed(id, parts)
    }

    fn trace(&mut self, id: prof_events::TraceId, n: u32) -> prof_events::Control {
        self.sink.trace(id, n)
    }

    fn exit(&mut self, exit: &prof_events::Exit) {
        self.sink.exit(exit)
    }
}

/// Forwards everything to a path sink, counting the edge events it takes.
struct Counted(PathSink, u64);

impl Sink for Counted {
    fn may_stop(&mut self) -> bool {
        self.0.may_stop()
    }

    fn wants(&mut self) -> prof_events::Interest {
        self.0.wants()
    }

    fn interest(&mut self, block: &prof_events::BlockInfo) -> prof_events::Interest {
        self.0.interest(block)
    }

    fn edge(&mut self, edge: &prof_events::Edge) -> prof_events::Control {
        self.1 += 1;
        self.0.edge(edge)
    }

    fn exit(&mut self, exit: &prof_events::Exit) {
        self.0.exit(exit)
    }

    fn probe_state(&mut self) -> Option<prof_events::ProbeLease<'_>> {
        self.0.probe_state()
    }

    fn probe(&mut self, block: &prof_events::BlockInfo, to: u64) -> Option<prof_events::Probe> {
        self.0.probe(block, to)
    }

    fn probe_return(&mut self, block: &prof_events::BlockInfo) -> Option<prof_events::Probe> {
        self.0.probe_return(block)
    }
}

/// Checks that the profile of `guest` in `mode` through `wrap` (which `unwrap` takes
/// apart after the run) is the same sink's edge by edge: paths, stats and activations.
/// Returns the event superblocks of the run through `wrap`, and the edge events the sink
/// took edge by edge.
fn against_edge_by_edge<W: Sink>(
    guest: &Guest,
    (mode, regions): (Mode, RegionChoice),
    wrap: impl FnOnce(PathSink) -> W,
    unwrap: impl FnOnce(W) -> PathSink,
) -> (u64, u64) {
    let (mut m, sink) = sink_for(guest, mode, regions);
    let mut wrapped = wrap(sink);
    let supers = run(&mut m, &mut wrapped).event_superblocks;
    let sink = unwrap(wrapped);
    let (mut m, plain) = sink_for(guest, mode, regions);
    let mut one_by_one = Counted(plain, 0);
    run(&mut m, &mut edge_by_edge(&mut one_by_one));
    let (plain, edges) = (one_by_one.0, one_by_one.1);
    assert!(!plain.paths().is_empty(), "{}", guest.name);
    let what = format!("{} {mode:?} {regions:?}", guest.name);
    assert_eq!(sink.paths(), plain.paths(), "{what}");
    assert_eq!(sink.stats, plain.stats, "{what}");
    let activations = |s: &PathSink| -> Vec<(u64, u64)> {
        s.functions.iter().map(|f| (f.starts, f.ends)).collect()
    };
    assert_eq!(activations(&sink), activations(&plain), "{what}");
    (supers, edges)
}

const MODES: [(Mode, RegionChoice); 3] = [
    (Mode::RegionBased, RegionChoice::Flat),
    (Mode::RegionBased, RegionChoice::LoopsAndHammocks),
    (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
];

/// Runs of traces, composed from the cached steps of their edges (from the key each run
/// starts at), give the profile that the same edges one by one give, on every Linux guest
/// and in every mode.
#[test]
fn composed_traces_give_the_profile_of_their_edges_one_by_one() {
    for guest in linux_guests() {
        for modes in MODES {
            let traced = |sink| Forward { sink, traces: true };
            let (supers, _) = against_edge_by_edge(&guest, modes, traced, |t| t.sink);
            assert!(supers > 0, "{}", guest.name);
        }
    }
}

/// The sink's probes, run by the emulator's compiled code in place of most edge events,
/// give the profile that the same edges one by one give, on every Linux guest and in every
/// mode.
#[test]
fn compiled_probes_give_the_profile_of_their_edges_one_by_one() {
    for guest in linux_guests() {
        for modes in MODES {
            let mut taken = 0;
            let (_, all) = against_edge_by_edge(
                &guest,
                modes,
                |s| Counted(s, 0),
                |c| {
                    taken = c.1;
                    c.0
                },
            );
            eprintln!(
                "{} {modes:?}: {taken} of {all} edges reached the sink",
                guest.name
            );
        }
    }
}

fn guest(name: &str) -> Guest {
    linux_guests()
        .into_iter()
        .find(|g| g.name == name)
        .expect("guest in the manifest")
}

/// The regions of every instrumented function of `sink` with inner regions, as block start
/// addresses, by function entry.
fn regions_as_addresses(sink: &PathSink) -> Vec<(u64, Vec<Vec<u64>>)> {
    sink.functions
        .iter()
        .filter_map(|f| f.inst.as_ref())
        .filter(|inst| inst.hier.regions.len() > 1)
        .map(|inst| {
            let cfg = &inst.hier.cfg;
            let regions = inst.hier.regions.regions[1..]
                .iter()
                .map(|r| r.nodes.iter().map(|&v| cfg.graph[v].start).collect())
                .collect();
            (cfg.addr, regions)
        })
        .collect()
}

/// Regions given by the user through the sink: a flat sink given every function's natural
/// loops as user regions profiles those functions exactly as the loop sink does, and its
/// profile agrees with its edge profile.
#[test]
fn user_regions_given_to_the_sink_profile_like_the_same_loops() {
    let g = guest("sort");
    for mode in [Mode::RegionBased, Mode::GlobalBased { shrink: true }] {
        let (mut m, mut loops) = sink_for(&g, mode, RegionChoice::Loops);
        run(&mut m, &mut loops);
        let given = regions_as_addresses(&loops);
        assert!(given.len() >= 2, "sort has functions with loops");
        let (mut m, mut user) = sink_for(&g, mode, RegionChoice::Flat);
        user.record_edges = true;
        for (entry, regions) in &given {
            user.set_regions(*entry, regions)
                .expect("loops are valid regions");
        }
        let summary = run(&mut m, &mut user);
        assert_eq!(
            user.stats,
            cfg_bl::Stats::default(),
            "{:?}",
            summary.outcome
        );
        let with_user: Vec<usize> = given
            .iter()
            .map(|(e, _)| {
                user.functions
                    .iter()
                    .position(|f| f.inst.as_ref().is_some_and(|i| i.hier.cfg.addr == *e))
                    .expect("instrumented")
            })
            .collect();
        let of = |paths: Paths| -> Paths {
            paths
                .into_iter()
                .filter(|p| with_user.contains(&p.0))
                .collect()
        };
        let expected = of(loops.paths());
        assert!(expected.iter().any(|p| p.1.region > 0));
        assert_eq!(of(user.paths()), expected, "{mode:?}");
        // The other functions are flat: their paths are all in the root region.
        assert!(user
            .paths()
            .iter()
            .all(|p| with_user.contains(&p.0) || p.1.region == 0));
        for f in &user.functions {
            let (Some(inst), Some(c)) = (&f.inst, &f.counters) else {
                continue;
            };
            let paths = c.paths(inst).expect("every counted sum decodes");
            cfg_bl::check::agreement(inst, &f.edge_counts, f.starts, f.ends, &paths)
                .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        }
    }
}

/// Bad user regions and weights are clear errors that change nothing, never panics.
#[test]
fn bad_user_regions_and_weights_are_clear_errors() {
    let g = guest("sort");
    let (mut m, mut sink) = sink_for(&g, Mode::RegionBased, RegionChoice::Loops);
    let program = Program::recover(&m, &[m.image().entry]);
    // A function with a chain u -> x -> w of forward flow edges (so {u, w} is left at x and
    // re-entered without a backedge) and a block outside the chain.
    let (cfg, (u, x, w), other) = program
        .functions
        .iter()
        .find_map(|cfg| {
            let back = cfg_bl::structure::backedges(cfg);
            let fwd = |v| {
                cfg.succs(v)
                    .into_iter()
                    .filter(|(e, t)| !back[e.index()] && t.index() >= 2)
                    .map(|(_, t)| t)
                    .collect::<Vec<_>>()
            };
            let chain = cfg.graph.node_indices().skip(2).find_map(|u| {
                fwd(u).into_iter().find_map(|x| {
                    fwd(x)
                        .into_iter()
                        .find(|&w| w != u && w != x)
                        .map(|w| (u, x, w))
                })
            })?;
            let other = cfg
                .graph
                .node_indices()
                .skip(2)
                .find(|&v| v != chain.0 && v != chain.1 && v != chain.2)?;
            Some((cfg, chain, other))
        })
        .expect("sort has a function with a chain of three blocks");
    let at = |v: petgraph::graph::NodeIndex| cfg.graph[v].start;
    let (u, x, w, o) = (at(u), at(x), at(w), at(other));
    let name = cfg.name.clone();
    let cases: Vec<(u64, Vec<Vec<u64>>, String)> = vec![
        (
            1,
            vec![vec![u]],
            "no recovered function starts at 0x1".into(),
        ),
        (
            cfg.addr,
            vec![vec![u], vec![u + 1]],
            format!("{name}: region 1: no block of the recovered function starts at"),
        ),
        (cfg.addr, vec![vec![]], format!("{name}: region 0 is empty")),
        (
            cfg.addr,
            vec![vec![o], vec![u, x], vec![x, w]],
            format!("{name}: regions 1 and 2 overlap without nesting"),
        ),
        (
            cfg.addr,
            vec![vec![u, x], vec![x, u]],
            format!("{name}: regions 0 and 1 have the same nodes"),
        ),
        (cfg.addr, vec![vec![u, w]], format!("cycle: {name}: ")),
    ];
    for (entry, regions, says) in cases {
        let e = sink.set_regions(entry, &regions).expect_err(&says);
        assert!(e.to_string().contains(&says), "{e} / {says}");
    }
    let e = sink
        .set_weights(cfg.addr, vec![1, 2])
        .expect_err("too short");
    assert!(e.to_string().contains("2 edge counts for"), "{e}");
    // The failed calls changed nothing: the profile is the plain loop profile.
    run(&mut m, &mut sink);
    assert_eq!(
        sink.paths(),
        profile(&g, Mode::RegionBased, RegionChoice::Loops, |_| {}).0
    );
    let ran = sink
        .functions
        .iter()
        .find_map(|f| f.inst.as_ref().map(|i| i.hier.cfg.addr))
        .expect("a function ran");
    let e = sink.set_regions(ran, &[]).expect_err("after the run");
    assert!(e.to_string().contains("already instrumented"), "{e}");
}

/// Increments placed on a maximum spanning tree of a measured edge profile (the first run's)
/// instead of the static estimate: the same path profile (numbers and counts) and the same
/// edge profile; only where the additions are changes.
#[test]
fn measured_weights_move_increments_but_not_paths() {
    for guest in linux_guests().iter().take(4) {
        for (mode, regions) in [
            (Mode::RegionBased, RegionChoice::Flat),
            (Mode::RegionBased, RegionChoice::Loops),
            (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        ] {
            let (mut m, mut estimate) = sink_for(guest, mode, regions);
            estimate.record_edges = true;
            run(&mut m, &mut estimate);
            let edges = estimate.edge_profile();
            let (mut m, mut measured) = sink_for(guest, mode, regions);
            measured.record_edges = true;
            measured.set_edge_profile(&edges).expect("the profile fits");
            run(&mut m, &mut measured);
            let what = format!("{} {mode:?} {regions:?}", guest.name);
            assert!(!estimate.paths().is_empty(), "{what}");
            assert_eq!(measured.paths(), estimate.paths(), "{what}");
            assert_eq!(measured.edge_profile(), edges, "{what}");
            assert_eq!(measured.stats, estimate.stats, "{what}");
            // Dynamic additions: the measured tree moved them off the hot edges.
            let adds = |s: &PathSink| -> u64 {
                s.functions
                    .iter()
                    .filter_map(|f| Some((f.inst.as_ref()?, &f.edge_counts)))
                    .flat_map(|(inst, counts)| {
                        counts.iter().enumerate().map(|(e, &n)| {
                            let ops = inst.ops_for(e);
                            n * ops
                                .iter()
                                .filter(|op| matches!(op, cfg_bl::Op::Add(v) if *v != 0))
                                .count() as u64
                        })
                    })
                    .sum()
            };
            let (a, b) = (adds(&estimate), adds(&measured));
            eprintln!("{what}: additions executed: estimate {a}, measured {b}");
            assert!(b <= a, "{what}: the hot edges carry fewer additions");
            let moved = estimate
                .functions
                .iter()
                .zip(&measured.functions)
                .any(|(x, y)| match (&x.inst, &y.inst) {
                    (Some(x), Some(y)) => x.ops != y.ops,
                    _ => false,
                });
            assert!(
                moved,
                "{what}: the measured weights placed some increment elsewhere"
            );
        }
    }
}

/// A sink that recovers each function on its first call gives the profile of one that
/// recovers every function first: the same functions, plans, paths, counts and stats, and
/// it recovers only the functions called.
#[test]
fn lazy_recovery_gives_the_eager_profile() {
    for guest in all_guests() {
        for (mode, regions) in [
            (Mode::RegionBased, RegionChoice::Flat),
            (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        ] {
            let observe = |mut m: Machine, mut sink: PathSink| {
                run(&mut m, &mut sink);
                let called: Vec<(usize, String)> = (sink.functions.iter().enumerate())
                    .filter(|(_, f)| f.inst.is_some() || f.error.is_some())
                    .map(|(i, f)| (i, f.name().to_string()))
                    .collect();
                (sink.paths(), sink.stats, called, sink.functions.len())
            };
            let (m, eager) = sink_for(&guest, mode, regions);
            let eager = observe(m, eager);
            let m = machine(&guest);
            let program = LazyProgram::new(m.image().clone(), &[m.image().entry]);
            let lazy = observe(m, PathSink::lazy(program, mode, regions));
            assert!(!eager.0.is_empty(), "{}", guest.name);
            // A static C library: most of its functions never run.
            if !guest.bare {
                assert!(
                    eager.2.len() * 4 < eager.3,
                    "{}: {} called",
                    guest.name,
                    eager.2.len()
                );
            }
            assert_eq!(eager, lazy, "{} {mode:?} {regions:?}", guest.name);
        }
    }
}

/// The set-up a sink reports is the time it spent recovering and instrumenting the
/// functions called: none before the run, some after it, and within the run's time.
#[test]
fn set_up_time_is_the_runs_recovery_and_instrumentation() {
    for guest in all_guests().into_iter().take(2) {
        let mut m = machine(&guest);
        let program = LazyProgram::new(m.image().clone(), &[m.image().entry]);
        let mut sink = PathSink::lazy(program, Mode::RegionBased, RegionChoice::Loops);
        assert_eq!(
            sink.set_up_time(),
            std::time::Duration::ZERO,
            "{}",
            guest.name
        );
        let started = std::time::Instant::now();
        run(&mut m, &mut sink);
        let took = started.elapsed();
        let instrumented = sink.functions.iter().filter(|f| f.inst.is_some()).count();
        assert!(instrumented > 0, "{}", guest.name);
        let set_up = sink.set_up_time();
        assert!(
            set_up > std::time::Duration::ZERO && set_up <= took,
            "{}: set-up {set_up:?} of a run of {took:?}",
            guest.name
        );
    }
}

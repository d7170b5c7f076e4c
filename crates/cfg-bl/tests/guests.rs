//! On every Linux guest: the path profile agrees with the edge profile observed on the same
//! run, per function and region, in flat, region-based and global-based modes.

use std::path::{Path, PathBuf};

use cfg_bl::sink::{PathSink, RegionChoice};
use cfg_bl::{Mode, Program};
use isa_emu::linux::{Input, LinuxConfig, Output};
use isa_emu::{Config, Machine};
use prof_events::CodeView;

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
}

fn linux_guests() -> Vec<Guest> {
    let text = std::fs::read_to_string(guests_dir().join("manifest.json")).expect("manifest");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest parses");
    let s = |g: &serde_json::Value, k: &str| g[k].as_str().map(String::from);
    v.as_array()
        .expect("array")
        .iter()
        .filter(|g| g["env"] == "linux")
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
        })
        .collect()
}

fn machine(g: &Guest) -> Machine {
    let elf = std::fs::read(&g.elf).expect("ELF");
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
        let (mut pc, end) = (cfg.graph[n].start, cfg.graph[n].end);
        let mut insns = 0;
        while pc < end {
            let i = m.insn(pc).expect("decodes");
            pc += u64::from(i.len);
            insns += 1;
        }
        total += visits * insns;
    }
    total
}

#[test]
fn path_profiles_agree_with_edge_profiles_on_every_guest() {
    let guests = linux_guests();
    assert!(guests.len() >= 5, "guests found: {}", guests.len());
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
            let mut m = machine(guest);
            let program = Program::recover(&m, &[m.image().entry]);
            let mut sink = PathSink::new(program, mode, regions);
            sink.record_edges = true;
            let summary = m.run(&mut sink);
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
                executed, summary.instret,
                "{name}: instructions in visited blocks"
            );
            assert!(paths_total > 0);
        }
    }
}

/// The profile of `guest` in `mode` with the sink adjusted by `setup`, and its stats.
fn profile(
    guest: &Guest,
    mode: Mode,
    regions: RegionChoice,
    setup: impl Fn(&mut PathSink),
) -> (Vec<(usize, cfg_bl::HierPath, u128, u64)>, cfg_bl::Stats) {
    let mut m = machine(guest);
    let program = Program::recover(&m, &[m.image().entry]);
    let mut sink = PathSink::new(program, mode, regions);
    setup(&mut sink);
    m.run(&mut sink);
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
/// the default threshold, and dense up to 2^16 sums.
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
            let dense = profile(guest, mode, regions, |s| s.dense_limit = 1 << 16);
            assert!(!default.0.is_empty(), "{}", guest.name);
            assert_eq!(default, sparse, "{} {mode:?} {regions:?}", guest.name);
            assert_eq!(default, dense, "{} {mode:?} {regions:?}", guest.name);
        }
    }
}

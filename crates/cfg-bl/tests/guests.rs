//! On every Linux guest: the path profile agrees with the edge profile observed on the same
//! run, per function and region, in flat, region-based and global-based modes.

use std::path::{Path, PathBuf};

use cfg_bl::sink::{PathSink, RegionChoice};
use cfg_bl::{Mode, Program};
use isa_emu::linux::{Input, LinuxConfig, Output};
use isa_emu::{Config, Machine};

fn guests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

/// `(name, elf, args, stdin)` of the Linux guests in the manifest.
fn linux_guests() -> Vec<(
    String,
    PathBuf,
    Vec<String>,
    Option<PathBuf>,
    Option<PathBuf>,
)> {
    let text = std::fs::read_to_string(guests_dir().join("manifest.json")).expect("manifest");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest parses");
    let s = |g: &serde_json::Value, k: &str| g[k].as_str().map(String::from);
    v.as_array()
        .expect("array")
        .iter()
        .filter(|g| g["env"] == "linux")
        .map(|g| {
            (
                s(g, "name").expect("name"),
                guests_dir().join(s(g, "elf").expect("elf")),
                g["args"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
                s(g, "stdin").map(|p| guests_dir().join(p)),
                s(g, "allow_dir").map(|p| guests_dir().join(p)),
            )
        })
        .collect()
}

fn machine(
    name: &str,
    elf: &Path,
    args: &[String],
    stdin: &Option<PathBuf>,
    allow: &Option<PathBuf>,
) -> Machine {
    let elf = std::fs::read(elf).expect("ELF");
    let mut argv = vec![name.as_bytes().to_vec()];
    argv.extend(args.iter().map(|a| a.as_bytes().to_vec()));
    let linux = LinuxConfig {
        args: argv,
        env: vec![b"LANG=C".to_vec()],
        stdin: Input::Bytes(
            stdin
                .as_ref()
                .map(|p| std::fs::read(p).expect("stdin"))
                .unwrap_or_default(),
        ),
        stdout: Output::Capture,
        stderr: Output::Capture,
        allow_dir: allow.clone(),
        cwd: Some(guests_dir()),
        seed: 0,
        ..LinuxConfig::default()
    };
    Machine::linux(&elf, linux, Config::default()).expect("guest loads")
}

#[test]
fn path_profiles_agree_with_edge_profiles_on_every_guest() {
    let guests = linux_guests();
    assert!(guests.len() >= 5, "guests found: {}", guests.len());
    for (name, elf, args, stdin, allow) in &guests {
        for (mode, regions) in [
            (Mode::RegionBased, RegionChoice::Flat),
            (Mode::RegionBased, RegionChoice::Loops),
            (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        ] {
            let mut m = machine(name, elf, args, stdin, allow);
            let program = Program::recover(&m, &[m.image().entry]);
            let mut sink = PathSink::new(program, mode, regions);
            sink.record_edges = true;
            let summary = m.run(&mut sink);
            let mut items = 0;
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
                items += cfg_bl::check::agreement(inst, &f.edge_counts, f.starts, f.ends, &paths)
                    .unwrap_or_else(|e| panic!("{name} {mode:?} {regions:?}: {e}"));
            }
            eprintln!(
                "{name} {mode:?} {regions:?}: exit {:?}, {functions} functions, {paths_total} paths, {items} items agree, {:?}",
                summary.outcome, sink.stats
            );
            assert_eq!(sink.stats.truncated, 0, "{name}: {:?}", sink.stats);
            assert!(paths_total > 0);
        }
    }
}

//! The path-profiling part of `cargo xtask bench` (also `cargo xtask bench-paths`): the
//! overhead of cfg-bl's path sink (flat Ball-Larus, region-based and global-based
//! hierarchical) as a ratio to isa-emu with no sink, per guest.
//!
//! Each guest runs in one process (cfg-bl's `overhead` example) that alternates the
//! configurations round by round: no sink, an empty sink asking for every edge event, a
//! sink whose probes do nothing (calls and returns keep their frames; the floor of any path
//! mode that runs as probes), and the three path modes. Times are the thread's CPU time; a
//! path run includes setting the sink up (listing the functions, copying the code) and
//! recovering and instrumenting each function on its first call: that fixed part, the
//! set-up, is timed apart (`PathSink::set_up_time`), and the table gives it per path mode
//! in milliseconds, and a second row of geomeans with it left out (each mode's median time
//! less its median set-up). Every configuration must print the same as the run without
//! sinks. The table gives medians of `--runs N` (default 3; `--quick`: one run of small
//! sizes, a smoke test whose ratios mean little).
//!
//! `--instructions` counts instructions instead, which do not vary from run to run as
//! times do on a shared machine: each configuration runs once (`--runs` is ignored), alone
//! in a process of its own under `valgrind --tool=cachegrind` (installed if missing; some
//! 15 times slower, so the table takes several minutes), and the table gives each count as
//! a ratio to the count with no sink. The counts are the whole process's, set-up included,
//! as the times are. A count is not a time (it weighs a taken branch or a cache miss like
//! an addition), so this measures changes to what the code does, not the goal's time ratio.
//!
//! `--sections [GUEST...]` says where those instructions go: each configuration runs once
//! under `valgrind --tool=callgrind --dump-instr=yes` with the emulator's perf map, and a
//! table per guest (the ones named, or all) gives its instructions per kind of compiled
//! code (the guest's code, exits, guards, each kind of probe; see [`crate::sections`])
//! and in the native code (run loop, sink, set-up). Callgrind is slower still (coremark
//! 3000 takes some 4 minutes a configuration).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bench::Options;
use crate::{sections, tools};

/// Guests: name (in `guests/bin/`), argument for the real run (0.15-0.3 s with no sink;
/// crc's buffer stops at 1 MiB, 0.07 s), argument for `--quick`.
const GUESTS: &[(&str, &str, &str)] = &[
    ("coremark", "3000", "20"),
    ("sort", "300000", "5000"),
    ("chase", "250000", "10000"),
    ("nbody", "50000", "1000"),
    ("strings", "500000", "5000"),
    ("primes", "400000", "2000"),
    ("crc", "1048576", "20000"),
];

/// The configurations `--instructions` counts (the edge events' is left out: with
/// nothing compiled for them, it says little of the probes and takes long).
const COUNTED: &[&str] = &["none", "no-op", "flat", "region", "global"];

/// The configurations the example prints, in its order, and their column titles.
const CONFIGS: &[(&str, &str)] = &[
    ("none", "no sink s"),
    ("edges", "edges"),
    ("no-op", "no-op"),
    ("flat", "flat BL"),
    ("region", "region"),
    ("global", "global"),
];

/// One guest's medians: per configuration, (time s, set-up s).
type Medians = Vec<(f64, f64)>;

/// Runs the example on one guest and parses its `result` lines.
fn measure(
    runner: &Path,
    guests: &Path,
    elf: &str,
    size: &str,
    runs: usize,
) -> Result<Medians, String> {
    let mut cmd = Command::new(runner);
    cmd.current_dir(guests)
        .args(["--runs", &runs.to_string(), elf, size]);
    let out = tools::output_checked(&mut cmd)?;
    let text = String::from_utf8_lossy(&out.stdout);
    CONFIGS
        .iter()
        .map(|(name, _)| {
            text.lines()
                .find_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    match f.as_slice() {
                        ["result", n, t, r] if n == name => {
                            Some((t.parse().ok()?, r.parse().ok()?))
                        }
                        _ => None,
                    }
                })
                .ok_or_else(|| format!("{elf}: no result for {name} in:\n{text}"))
        })
        .collect()
}

/// The task's entry point (arguments as for `cargo xtask bench`, or `--instructions`, or
/// `--sections` with guest names).
pub fn run(args: &[String]) -> Result<(), String> {
    let counted = args.iter().any(|a| a == "--instructions");
    let sectioned = args.iter().any(|a| a == "--sections");
    let named: Vec<&str> = GUESTS
        .iter()
        .map(|g| g.0)
        .filter(|g| args.iter().any(|a| a == g))
        .collect();
    let rest: Vec<String> = args
        .iter()
        .filter(|a| !["--instructions", "--sections"].contains(&a.as_str()))
        .filter(|a| !named.contains(&a.as_str()))
        .cloned()
        .collect();
    let options = Options::parse(&rest)?;
    if sectioned {
        sections(options, &named)
    } else if counted {
        instructions(options)
    } else {
        table(options)
    }
}

/// The geometric mean of `ratios` (each at least 1e-9; 1 of none).
fn geomean(ratios: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = ratios.len().max(1) as f64;
    (ratios.map(|r| r.max(1e-9).ln()).sum::<f64>() / n).exp()
}

/// The `overhead` example, built, and the guests' directory.
fn runner() -> Result<(PathBuf, PathBuf), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let runner = tools::build_example(&root, "cfg-bl", "overhead")?;
    Ok((runner, root.join("guests")))
}

/// Each guest's name and argument (for `--quick`, or for the real run).
fn sizes(quick: bool) -> impl Iterator<Item = (&'static str, &'static str)> {
    GUESTS
        .iter()
        .map(move |&(name, full, small)| (name, if quick { small } else { full }))
}

/// Counts one configuration's instructions on one guest (the whole process, under
/// cachegrind), with the hash of what the guest did.
fn count(
    runner: &Path,
    guests: &Path,
    config: &str,
    elf: &str,
    size: &str,
) -> Result<(u64, String), String> {
    let tool = [
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
    ];
    let mut cmd = alone_under_valgrind(&tool, runner, guests, config, &[], elf, size);
    let out = tools::output_checked(&mut cmd)?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    // `==PID== I   refs:      1,234,567`
    let refs = stderr.lines().find_map(|l| {
        let (_, n) = l.split_once("I   refs:")?;
        n.trim().replace(',', "").parse().ok()
    });
    match (refs, behaviour(&stdout)) {
        (Some(n), Some(b)) => Ok((n, b)),
        _ => Err(format!(
            "`{}`: no instruction count or behaviour in:\n{stdout}{stderr}",
            tools::describe(&cmd)
        )),
    }
}

/// `valgrind TOOL... RUNNER --runs 1 --only CONFIG --alone ARGS... ELF SIZE`, run in the
/// guests' directory: one configuration alone in a process of its own, under a valgrind
/// tool (with `--smc-check=all`: the code compiled is patched as blocks chain).
fn alone_under_valgrind(
    tool: &[&str],
    runner: &Path,
    guests: &Path,
    config: &str,
    args: &[&std::ffi::OsStr],
    elf: &str,
    size: &str,
) -> Command {
    let mut cmd = Command::new("valgrind");
    cmd.current_dir(guests)
        .args(tool)
        .arg("--smc-check=all")
        .arg(runner)
        .args(["--runs", "1", "--only", config, "--alone"])
        .args(args)
        .args([elf, size]);
    cmd
}

/// The hash of what the guest did, from the `behaviour HASH` line the runner prints.
fn behaviour(stdout: &str) -> Option<String> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("behaviour "))
        .map(str::to_owned)
}

/// Counts and prints the table of `--instructions`.
fn instructions(Options { quick, .. }: Options) -> Result<(), String> {
    tools::ensure(&["valgrind"], &["valgrind"])?;
    let (runner, guests) = runner()?;
    let mut rows = Vec::new();
    for (name, size) in sizes(quick) {
        eprintln!("bench-paths --instructions {name} {size}");
        let elf = format!("bin/{name}.elf");
        let mut counts = Vec::new();
        for config in COUNTED {
            let (n, behaviour) = count(&runner, &guests, config, &elf, size)?;
            if counts.first().is_some_and(|(_, b)| *b != behaviour) {
                return Err(format!(
                    "{name} {size}: {config} printed or exited differently"
                ));
            }
            counts.push((n, behaviour));
        }
        rows.push((format!("{name} {size}"), counts));
    }
    println!(
        "\npath profiling overhead in instructions (cachegrind, whole process, set-up included); \
         ratios to isa-emu with no sink"
    );
    print!("{:<18} {:>12}", "guest", "no sink");
    for config in &COUNTED[1..] {
        print!(" {config:>8}");
    }
    println!();
    for (guest, counts) in &rows {
        let base = counts[0].0.max(1) as f64;
        print!("{guest:<18} {:>11.1}M", base / 1e6);
        for (n, _) in &counts[1..] {
            print!(" {:>7.3}x", *n as f64 / base);
        }
        println!();
    }
    print!("{:<18} {:>12}", "geomean", "");
    for c in 1..COUNTED.len() {
        let ratios = rows
            .iter()
            .map(|(_, m)| m[c].0 as f64 / m[0].0.max(1) as f64);
        print!(" {:>7.3}x", geomean(ratios));
    }
    println!();
    Ok(())
}

/// Runs one configuration on one guest (alone, in a process of its own) under callgrind with
/// the emulator's perf map, and returns its instructions per kind of stretch of the
/// compiled code (see [`crate::sections`]), with the hash of what the guest did.
fn count_sections(
    runner: &Path,
    guests: &Path,
    config: &str,
    elf: &str,
    size: &str,
) -> Result<(BTreeMap<String, u64>, String), String> {
    let dir = std::env::temp_dir().join(format!("bench-paths-sections-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (profile, map) = (dir.join("callgrind.out"), dir.join("perf.map"));
    // (The map is appended to: a stale one would name old code.)
    let _ = std::fs::remove_file(&map);
    let out_file = format!("--callgrind-out-file={}", profile.display());
    let tool = ["--tool=callgrind", "--dump-instr=yes", &out_file];
    let args = ["--perf-map".as_ref(), map.as_os_str()];
    let mut cmd = alone_under_valgrind(&tool, runner, guests, config, &args, elf, size);
    let out = tools::output_checked(&mut cmd)?;
    let behaviour = behaviour(&String::from_utf8_lossy(&out.stdout))
        .ok_or_else(|| format!("`{}`: no behaviour printed", tools::describe(&cmd)))?;
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let costs = sections::parse_callgrind(&read(&profile)?)?;
    // (No map when nothing was compiled.)
    let map_text = match std::fs::read_to_string(&map) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", map.display())),
    };
    let stretches = sections::parse_map(&map_text)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok((sections::by_kind(&costs, &stretches), behaviour))
}

/// Counts and prints, per guest (those `named`, or all), each configuration's instructions
/// per kind of compiled stretch (`--sections`).
fn sections(Options { quick, .. }: Options, named: &[&str]) -> Result<(), String> {
    tools::ensure(&["valgrind"], &["valgrind"])?;
    let (runner, guests) = runner()?;
    for (name, size) in sizes(quick).filter(|(n, _)| named.is_empty() || named.contains(n)) {
        let elf = format!("bin/{name}.elf");
        let mut columns: Vec<BTreeMap<String, u64>> = Vec::new();
        let mut reference = None;
        for config in COUNTED {
            eprintln!("bench-paths --sections {name} {size}: {config}");
            let (kinds, behaviour) = count_sections(&runner, &guests, config, &elf, size)?;
            if reference.get_or_insert_with(|| behaviour.clone()) != &behaviour {
                return Err(format!(
                    "{name} {size}: {config} printed or exited differently"
                ));
            }
            columns.push(kinds);
        }
        let mut kinds: Vec<&String> = columns.iter().flat_map(|c| c.keys()).collect();
        kinds.sort();
        kinds.dedup();
        let get = |c: &BTreeMap<String, u64>, k: &str| c.get(k).copied().unwrap_or(0);
        // Most added by the configuration that adds most first.
        let added = |k: &str| {
            let base = get(&columns[0], k) as i128;
            columns
                .iter()
                .map(|c| get(c, k) as i128 - base)
                .max()
                .unwrap_or(0)
        };
        kinds.sort_by_key(|k| std::cmp::Reverse(added(k)));
        println!(
            "\n{name} {size}: millions of instructions (callgrind, whole process) by kind of code"
        );
        print!("{:<38}", "kind");
        for config in COUNTED {
            print!(" {config:>9}");
        }
        println!();
        // (Kinds under 0.05M in every configuration are left out.)
        for k in kinds
            .into_iter()
            .filter(|k| columns.iter().any(|c| get(c, k) >= 50_000))
        {
            print!("{k:<38}");
            for c in &columns {
                print!(" {:>9.1}", get(c, k) as f64 / 1e6);
            }
            println!();
        }
        print!("{:<38}", "total");
        for c in &columns {
            print!(" {:>9.1}", c.values().sum::<u64>() as f64 / 1e6);
        }
        println!();
    }
    Ok(())
}

/// Measures and prints the table.
pub fn table(Options { quick, runs }: Options) -> Result<(), String> {
    let (runner, guests) = runner()?;
    let mut rows = Vec::new();
    for (name, size) in sizes(quick) {
        eprintln!("bench-paths {name} {size}: {runs} alternating run(s) per configuration");
        let elf = format!("bin/{name}.elf");
        rows.push((
            format!("{name} {size}"),
            measure(&runner, &guests, &elf, size, runs)?,
        ));
    }
    println!(
        "\npath profiling overhead: median of {runs} alternating run(s), thread CPU time; \
         ratios to isa-emu with no sink (path modes include set-up, recovery and instrumentation)"
    );
    print!("{:<18}", "guest");
    for (_, title) in CONFIGS {
        print!(" {title:>9}");
    }
    println!(" {:>16}", "setup ms f/r/g");
    for (guest, m) in &rows {
        let base = m[0].0.max(1e-9);
        print!("{guest:<18} {:>9.3}", m[0].0);
        for &(t, _) in &m[1..] {
            print!(" {:>8.2}x", t / base);
        }
        // The set-up column: each path mode's, in milliseconds.
        let set_ups: Vec<String> = CONFIGS
            .iter()
            .zip(m)
            .filter(|((name, _), _)| ["flat", "region", "global"].contains(name))
            .map(|(_, &(_, s))| format!("{:.0}", s * 1e3))
            .collect();
        println!(" {:>16}", set_ups.join("/"));
    }
    // Ratios of the whole runs, then of the runs less their set-up (the fixed part: see
    // the example's `PathSink::set_up_time`), which is what grows with a longer run.
    for (title, less_set_up) in [("geomean", false), ("  set-up excluded", true)] {
        print!("{title:<18} {:>9}", "");
        for c in 1..CONFIGS.len() {
            let ratios = rows.iter().map(|(_, m)| {
                let (t, s) = m[c];
                (t - if less_set_up { s } else { 0.0 }) / m[0].0.max(1e-9)
            });
            print!(" {:>8.2}x", geomean(ratios));
        }
        println!();
    }
    Ok(())
}

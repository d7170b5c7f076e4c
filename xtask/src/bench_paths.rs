//! The path-profiling part of `cargo xtask bench` (also `cargo xtask bench-paths`): the
//! overhead of cfg-bl's path sink (flat Ball-Larus, region-based and global-based
//! hierarchical) as a ratio to isa-emu with no sink, per guest.
//!
//! Each guest runs in one process (cfg-bl's `overhead` example) that alternates the
//! configurations round by round: no sink, an empty sink asking for every edge event, a
//! sink whose probes do nothing (calls and returns keep their frames; the floor of any path
//! mode that runs as probes), and the three path modes. Times are the thread's CPU time; a
//! path run includes setting the sink up (listing the functions, copying the code) and
//! recovering and instrumenting each function on its first call (the set-up column gives
//! the fixed part). Every configuration must print the same as the run without sinks. The table gives medians of `--runs N` (default 3; `--quick`: one run
//! of small sizes, a smoke test whose ratios mean little).

use std::path::Path;
use std::process::Command;

use crate::bench::Options;
use crate::tools;

/// Guests: name (in `guests/bin/`), argument for the real run (0.15-0.3 s with no sink,
/// so that the 4 ms tick of the CPU-time clock moves a ratio by under 3%; crc's buffer
/// stops at 1 MiB, 0.07 s), argument for `--quick`.
const GUESTS: &[(&str, &str, &str)] = &[
    ("coremark", "3000", "20"),
    ("sort", "300000", "5000"),
    ("chase", "250000", "10000"),
    ("nbody", "50000", "1000"),
    ("strings", "500000", "5000"),
    ("primes", "400000", "2000"),
    ("crc", "1048576", "20000"),
];

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
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", tools::describe(&cmd)))?;
    if !out.status.success() {
        return Err(format!(
            "`{}` failed: {}",
            tools::describe(&cmd),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
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

/// The task's entry point (arguments as for `cargo xtask bench`).
pub fn run(args: &[String]) -> Result<(), String> {
    table(Options::parse(args)?)
}

/// Measures and prints the table.
pub fn table(Options { quick, runs }: Options) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let runner = tools::build_example(&root, "cfg-bl", "overhead")?;
    let guests = root.join("guests");
    let mut rows = Vec::new();
    for &(name, full, small) in GUESTS {
        let size = if quick { small } else { full };
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
    println!(" {:>11}", "setup s");
    for (guest, m) in &rows {
        let base = m[0].0.max(1e-9);
        print!("{guest:<18} {:>9.3}", m[0].0);
        for &(t, _) in &m[1..] {
            print!(" {:>8.2}x", t / base);
        }
        // The set-up column: the flat mode's (every path mode sets up the same way).
        let set_up = CONFIGS.iter().zip(m).find(|((name, _), _)| *name == "flat");
        println!(" {:>11.3}", set_up.map_or(0.0, |(_, &(_, s))| s));
    }
    print!("{:<18} {:>9}", "geomean", "");
    for c in 1..CONFIGS.len() {
        let logs: f64 = rows
            .iter()
            .map(|(_, m)| (m[c].0 / m[0].0.max(1e-9)).max(1e-9).ln())
            .sum();
        print!(" {:>8.2}x", (logs / rows.len().max(1) as f64).exp());
    }
    println!();
    Ok(())
}

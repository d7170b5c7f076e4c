//! `cargo xtask bench`'s strata table (issue 6): per guest, the cost of the strata sink on
//! every block (two upper levels and the SEQUITUR grammar, strata's full detector) as a
//! ratio to the emulator with no sink, and the grammar's size against the raw
//! repeated-path stream and against `xz -9` of that stream.
//!
//! Each guest runs in strata's `strata_cost` example, which alternates the emulator with no
//! sink, with a block counter and with the strata sink in one process, times each run's
//! CPU time, and prints a `summary key=value ...` line. The ratio is the median over the
//! runs of each run's strata time over the no-sink time measured just before it. Sizes are
//! bytes of a plain fixed-width serialization in which a repeated path costs 12 bytes in
//! both (see the example's documentation).

use std::path::Path;
use std::process::Command;

use crate::bench::Options;
use crate::tools;

/// A guest (in `guests/bin/`), its argument for the real run (the guest's default size)
/// and for `--quick`, and whether its hot paths are loops (the grammar goal).
const GUESTS: &[(&str, Option<&str>, &str, bool)] = &[
    ("coremark", None, "4", true),
    ("crc", None, "8192", true),
    ("nbody", None, "300", true),
    ("phases", None, "1", true),
    ("sort", None, "4000", true),
    ("chase", None, "20000", true),
    ("primes", None, "5000", true),
    ("hash", None, "5000", false),
    ("strings", None, "2000", false),
    ("recursion", None, "6", false),
];

/// One guest's figures, as the example printed them.
struct Row {
    guest: &'static str,
    loops: bool,
    instructions: u64,
    ratio: f64,
    repeated_paths: u64,
    symbols: u64,
    rules: u64,
    raw: u64,
    grammar: u64,
    xz: Option<u64>,
}

/// The `summary` line's value for `key`.
fn field(summary: &str, key: &str) -> Result<f64, String> {
    summary
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("strata_cost summary has no `{key}`: {summary}"))
}

fn measure(runner: &Path, elf: &Path, runs: usize, arg: Option<&str>) -> Result<String, String> {
    let mut cmd = Command::new(runner);
    cmd.arg(elf).arg(runs.to_string()).args(arg);
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", tools::describe(&cmd)))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "`{}` failed: {}\n{}",
            tools::describe(&cmd),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary "))
        .map(str::to_owned)
        .ok_or_else(|| format!("`{}` printed no summary", tools::describe(&cmd)))
}

/// Measures every guest and prints the strata table.
pub fn run(Options { quick, runs }: Options) -> Result<(), String> {
    tools::ensure(&["xz"], &["xz-utils"])?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let runner = tools::build_example(&root, "strata", "strata_cost")?;
    let runs = if quick { 1 } else { runs.max(3) };
    let mut rows = Vec::new();
    for &(guest, full, small, loops) in GUESTS {
        let arg = if quick { Some(small) } else { full };
        eprintln!("bench strata {guest}: {runs} run(s) per configuration");
        let elf = root.join("guests/bin").join(format!("{guest}.elf"));
        let s = measure(&runner, &elf, runs, arg)?;
        let xz = field(&s, "xz_bytes")?;
        rows.push(Row {
            guest,
            loops,
            instructions: field(&s, "instructions")? as u64,
            ratio: field(&s, "ratio")?,
            repeated_paths: field(&s, "repeated_paths")? as u64,
            symbols: field(&s, "grammar_symbols")? as u64,
            rules: field(&s, "grammar_rules")? as u64,
            raw: field(&s, "raw_bytes")? as u64,
            grammar: field(&s, "grammar_bytes")? as u64,
            xz: (xz >= 0.0).then_some(xz as u64),
        });
    }
    print_table(&rows, runs);
    Ok(())
}

fn print_table(rows: &[Row], runs: usize) {
    println!(
        "\nstrata (issue 6): cost = strata sink (paths, strata, layers, grammar) on every block \
         / emulator with no sink, CPU time, median of {runs} paired run(s) (goal <= 1.3); \
         sizes in bytes, 12 per repeated path raw (goal raw / grammar >= 64 on loop guests)"
    );
    println!(
        "{:<10} {:>5} {:>12} {:>6} {:>10} {:>9} {:>7} {:>11} {:>10} {:>9} {:>8} {:>8} {:>9}",
        "guest",
        "loops",
        "instructions",
        "cost",
        "rep.paths",
        "symbols",
        "rules",
        "raw B",
        "grammar B",
        "xz B",
        "raw/gram",
        "raw/xz",
        "gram/xz"
    );
    for r in rows {
        let xz = r.xz.map_or("-".into(), |x| x.to_string());
        let per = |a: u64, b: Option<u64>| {
            b.map_or("-".into(), |b| format!("{:.1}", a as f64 / b.max(1) as f64))
        };
        println!(
            "{:<10} {:>5} {:>12} {:>6.2} {:>10} {:>9} {:>7} {:>11} {:>10} {:>9} {:>8} {:>8} {:>9}",
            r.guest,
            if r.loops { "yes" } else { "no" },
            r.instructions,
            r.ratio,
            r.repeated_paths,
            r.symbols,
            r.rules,
            r.raw,
            r.grammar,
            xz,
            per(r.raw, Some(r.grammar)),
            per(r.raw, r.xz),
            r.xz.map_or("-".into(), |x| format!(
                "{:.2}",
                r.grammar as f64 / x.max(1) as f64
            )),
        );
    }
}

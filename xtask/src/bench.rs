//! `cargo xtask bench`: isa-emu against qemu-riscv64 on compute-heavy guests.
//!
//! Each guest runs with the same ELF and arguments under qemu-riscv64 and under isa-emu (the
//! `bench_guest` example of isa-emu) with no sink (superblocks compiled to host code, and
//! again with the threaded interpreter alone), with a sink counting every block and edge,
//! and with a sink receiving every memory access with its value. Runs alternate between the
//! five configurations; each child runs under GNU time, which reports its CPU time (user +
//! system) and peak resident memory. Instructions retired come from isa-emu (qemu does not
//! count them; both execute the same program, and the outputs are compared). The table gives
//! the median CPU time, MIPS, the ratio to qemu's MIPS and the geomean of the ratios.
//!
//! `cargo xtask bench [--quick] [--runs N]`: `--quick` uses small sizes and one run (a smoke
//! test; far below a second per run, so its ratios mean little).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::tools;

/// A benchmark guest: name (in `guests/bin/`), argument for the real run (>= 1 s under
/// qemu-riscv64 on the reference machine), argument for `--quick`, and its character.
const GUESTS: &[(&str, &str, &str, &str)] = &[
    (
        "coremark",
        "7000",
        "100",
        "lists, matrices, state machine, CRC",
    ),
    (
        "sort",
        "350000",
        "20000",
        "quick/merge/heap/radix sorts: loads, stores, branches",
    ),
    (
        "chase",
        "500000",
        "30000",
        "pointer chasing over a shuffled list",
    ),
    ("nbody", "170000", "3000", "double-precision floating point"),
    (
        "strings",
        "900000",
        "20000",
        "libc string and formatting routines",
    ),
];

/// The configurations, in the order they run and print.
const CONFIGS: &[(&str, Option<&str>)] = &[
    ("qemu-riscv64", None),
    ("isa-emu", Some("none")),
    ("interpreted", Some("interpret")),
    ("+block/edge", Some("edges")),
    ("+mem values", Some("mem")),
];

/// What one child process cost, and what it printed.
struct Measured {
    cpu: f64,
    rss_kib: u64,
    stdout: Vec<u8>,
    status: i32,
    instret: Option<u64>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `program args` under GNU time, stdout captured, stderr captured.
fn measure(program: &Path, args: &[&str], time_out: &Path) -> Result<Measured, String> {
    let mut cmd = Command::new("time");
    cmd.arg("-f")
        .arg("%U %S %M")
        .arg("-o")
        .arg(time_out)
        .arg(program)
        .args(args)
        .stdin(Stdio::null());
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", tools::describe(&cmd)))?;
    let report =
        std::fs::read_to_string(time_out).map_err(|e| format!("{}: {e}", time_out.display()))?;
    // GNU time prefixes "Command exited with non-zero status N" on its own line.
    let last = report.lines().last().unwrap_or("");
    let f: Vec<&str> = last.split_whitespace().collect();
    let parse = |i: usize| -> Result<f64, String> {
        f.get(i)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("cannot parse GNU time output `{last}`"))
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let instret = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("instret ")?.trim().parse().ok());
    Ok(Measured {
        cpu: parse(0)? + parse(1)?,
        rss_kib: parse(2)? as u64,
        stdout: out.stdout,
        status: out.status.code().unwrap_or(-1),
        instret,
    })
}

/// One row of the table.
struct Row {
    guest: String,
    config: &'static str,
    instret: u64,
    cpu: f64,
    rss_kib: u64,
    ratio: f64,
}

/// The options of the bench tasks: `--quick` (small sizes, one run) and `--runs N`.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Small sizes and one run: a smoke test whose ratios mean little.
    pub quick: bool,
    /// Runs per configuration (medians are reported).
    pub runs: usize,
}

impl Options {
    /// Parses the task's arguments.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut quick = false;
        let mut runs = 3usize;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--quick" => quick = true,
                "--runs" => {
                    runs = it
                        .next()
                        .and_then(|n| n.parse().ok())
                        .filter(|&n| n > 0)
                        .ok_or("--runs needs a positive number")?;
                }
                other => return Err(format!("unknown argument `{other}` (--quick, --runs N)")),
            }
        }
        Ok(Options {
            quick,
            runs: if quick { 1 } else { runs },
        })
    }
}

/// The task's entry point.
pub fn run(args: &[String]) -> Result<(), String> {
    let Options { quick, runs } = Options::parse(args)?;
    tools::ensure(&["qemu-riscv64"], &["qemu-user"])?;
    tools::ensure(&["time"], &["time"])?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let runner = tools::build_example(&root, "isa-emu", "bench_guest")?;
    let time_out = std::env::temp_dir().join(format!("xtask-bench-{}.time", std::process::id()));
    let qemu = PathBuf::from("qemu-riscv64");

    let mut rows = Vec::new();
    for &(name, full, small, what) in GUESTS {
        let size = if quick { small } else { full };
        let elf = root.join("guests/bin").join(format!("{name}.elf"));
        let elf = elf.to_string_lossy().into_owned();
        eprintln!("bench {name} {size} ({what}): {runs} run(s) per configuration");
        let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); CONFIGS.len()];
        let mut rss = vec![0u64; CONFIGS.len()];
        let mut instret = None;
        let mut reference: Option<(Vec<u8>, i32)> = None;
        for _ in 0..runs {
            for (c, &(label, mode)) in CONFIGS.iter().enumerate() {
                let m = match mode {
                    None => measure(&qemu, &[&elf, size], &time_out)?,
                    Some(mode) => measure(&runner, &[mode, &elf, size], &time_out)?,
                };
                // Every configuration must behave exactly as qemu did.
                match &reference {
                    None => reference = Some((m.stdout.clone(), m.status)),
                    Some((out, status)) if (out, *status) != (&m.stdout, m.status) => {
                        return Err(format!(
                            "{name} {size}: {label} printed or exited differently from qemu"
                        ));
                    }
                    Some(_) => {}
                }
                if mode.is_some() {
                    let n = m
                        .instret
                        .ok_or(format!("{name}: {label} printed no instret"))?;
                    if instret.is_some_and(|i| i != n) {
                        return Err(format!("{name}: instret differs between configurations"));
                    }
                    instret = Some(n);
                }
                cpu[c].push(m.cpu);
                rss[c] = rss[c].max(m.rss_kib);
            }
        }
        let instret = instret.unwrap_or(0);
        let medians: Vec<f64> = cpu.iter_mut().map(|v| median(v)).collect();
        for (c, &(label, _)) in CONFIGS.iter().enumerate() {
            rows.push(Row {
                guest: format!("{name} {size}"),
                config: label,
                instret,
                cpu: medians[c],
                rss_kib: rss[c],
                ratio: medians[0] / medians[c].max(1e-9),
            });
        }
    }
    let _ = std::fs::remove_file(&time_out);
    print_table(&rows, runs);
    crate::bench_paths::table(Options { quick, runs })?;
    crate::bench_strata::run(Options { quick, runs })
}

fn print_table(rows: &[Row], runs: usize) {
    println!(
        "\nmedian of {runs} run(s); CPU = user + system seconds; MIPS = instructions / CPU; \
         x qemu = MIPS / qemu's MIPS"
    );
    println!(
        "{:<16} {:<13} {:>14} {:>9} {:>8} {:>7} {:>10}",
        "guest", "config", "instructions", "CPU s", "MIPS", "x qemu", "peak RSS"
    );
    for r in rows {
        println!(
            "{:<16} {:<13} {:>14} {:>9.3} {:>8.0} {:>7.3} {:>7.1} MiB",
            r.guest,
            r.config,
            r.instret,
            r.cpu,
            r.instret as f64 / r.cpu.max(1e-9) / 1e6,
            r.ratio,
            r.rss_kib as f64 / 1024.0
        );
    }
    for &(label, _) in CONFIGS {
        let sel: Vec<&Row> = rows.iter().filter(|r| r.config == label).collect();
        let n = sel.len().max(1) as f64;
        let geo = |f: &dyn Fn(&Row) -> f64| (sel.iter().map(|r| f(r).ln()).sum::<f64>() / n).exp();
        println!(
            "{:<16} {:<13} {:>14} {:>9.3} {:>8.0} {:>7.3} {:>7.1} MiB",
            "geomean",
            label,
            "",
            geo(&|r| r.cpu.max(1e-9)),
            geo(&|r| (r.instret as f64 / r.cpu.max(1e-9) / 1e6).max(1e-9)),
            geo(&|r| r.ratio.max(1e-9)),
            geo(&|r| (r.rss_kib as f64).max(1.0)) / 1024.0
        );
    }
}

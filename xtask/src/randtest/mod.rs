//! `cargo xtask randtest`: a randomized instruction-stream differential test of our
//! emulator against qemu-riscv64.
//!
//! For each seed a random RV64GC user-mode program is generated ([`gen`]), built with the
//! Debian `riscv64-unknown-elf` binutils, and run under qemu-riscv64 and under
//! `profkit run --no-profile`; the exit statuses and stdout must be identical: register
//! records written every 20 units, the final registers, fcsr, scratch buffer and a log of
//! the fflags raised by single FP instructions. A mismatch is reported field by field, then the
//! program is shrunk to a minimal one that still mismatches.
//!
//! Decisions: the random instructions are always legal, and `frm` is kept valid between
//! them so `dyn` operations never trap (invalid `frm` values are still written and read
//! back); one program in eight ends with a deliberate trap, an FP operation with `dyn`
//! rounding under an invalid `frm`, whose SIGILL (exit status 132) must match.
//! Misaligned loads and stores are generated: qemu-user performs them. LR/SC only in
//! deterministic patterns: `sc` to the reserved address right after `lr`, to another
//! address, or with no reservation.

mod compare;
mod exec;
mod gen;
mod shrink;
mod values;

use compare::{compare, report, Difference};
use exec::{Outcome, QEMU};
use gen::{Program, CLASSES};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask randtest [--seeds N] [--start S] [--len L] [--emu PATH] \
[--keep DIR] [--qemu-only] [--no-shrink] [--stats]
  --seeds N     number of seeds (default 200)
  --start S     first seed (default 0)
  --len L       random instructions per program (default 400)
  --emu PATH    our emulator (default: build target/release/profkit)
  --keep DIR    keep every program (.s, .elf) in DIR
  --qemu-only   compare qemu with itself (checks that the programs are deterministic)
  --no-shrink   report mismatches without shrinking them
  --stats       print how many units of each class and which mnemonics were generated";

/// Shrinking stops after this many trial runs.
const SHRINK_BUDGET: usize = 3000;

struct Options {
    seeds: u64,
    start: u64,
    len: usize,
    emu: Option<PathBuf>,
    keep: Option<PathBuf>,
    qemu_only: bool,
    shrink: bool,
    stats: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        seeds: 200,
        start: 0,
        len: 400,
        emu: None,
        keep: None,
        qemu_only: false,
        shrink: true,
        stats: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        let num = |v: &String| {
            v.parse::<u64>()
                .map_err(|_| format!("{a}: `{v}` is not a number\n{USAGE}"))
        };
        match a.as_str() {
            "--seeds" => o.seeds = num(value()?)?,
            "--start" => o.start = num(value()?)?,
            "--len" => {
                o.len = usize::try_from(num(value()?)?).map_err(|_| "--len: too large")?;
            }
            "--emu" => o.emu = Some(PathBuf::from(value()?)),
            "--keep" => o.keep = Some(PathBuf::from(value()?)),
            "--qemu-only" => o.qemu_only = true,
            "--no-shrink" => o.shrink = false,
            "--stats" => o.stats = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            _ => return Err(format!("unknown argument `{a}`\n{USAGE}")),
        }
    }
    Ok(o)
}

/// The machine under test: a program and the arguments before the ELF path.
struct Machine {
    program: PathBuf,
    args: Vec<&'static str>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Builds `profkit` in release mode and returns its path.
fn build_profkit() -> Result<PathBuf, String> {
    let root = workspace_root();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "-p", "profkit"])
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build --release -p profkit failed".into());
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok(target.join("release").join("profkit"))
}

/// Runs one build of `p` (keeping the units in `keep`) under qemu and under `m`.
/// Errors are failures of the tools or of qemu, not of the machine under test, whose
/// failure to run becomes a difference.
fn check(
    p: &Program,
    keep: Option<&[bool]>,
    m: &Machine,
    dir: &Path,
    name: &str,
) -> Result<(Vec<Difference>, Outcome), String> {
    let elf = exec::build(&p.render(keep), dir, name)?;
    let q = exec::run(Path::new(QEMU), &[], &elf, dir)?;
    let whole =
        q.stdout.len() >= gen::AREA && (q.stdout.len() - gen::AREA).is_multiple_of(gen::RECORD_LEN);
    if q.status != p.expected_status() || !whole {
        return Err(format!(
            "qemu rejected {} (status {}, {} bytes of output): {}",
            elf.display(),
            q.status,
            q.stdout.len(),
            q.stderr.trim()
        ));
    }
    match exec::run(&m.program, &m.args, &elf, dir) {
        Ok(e) => Ok((compare(&q, &e, p.units.len()), e)),
        Err(err) => Ok((
            vec![Difference {
                name: "run".into(),
                loc: None,
                before: p.units.len(),
                qemu: "exit 0".into(),
                ours: err.clone(),
            }],
            Outcome {
                status: -1,
                stdout: Vec::new(),
                stderr: err,
            },
        )),
    }
}

/// Instruction lines in a unit list, as generated (an `la` counts once).
fn count_instructions(p: &Program) -> usize {
    p.units.iter().map(|u| u.lines.len()).sum()
}

/// The registers named in `lines` with their initial values, for the minimal program.
fn initial_values(p: &Program, lines: &[&String]) -> String {
    let mut xs = std::collections::BTreeSet::new();
    let mut fs = std::collections::BTreeSet::new();
    for l in lines {
        for tok in l.split(|c: char| !c.is_ascii_alphanumeric()) {
            let reg = |prefix: char| {
                tok.strip_prefix(prefix)
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|&n| n < 32)
            };
            if let Some(n) = reg('x') {
                xs.insert(n);
            } else if let Some(n) = reg('f') {
                fs.insert(n);
            }
        }
    }
    let mut s = String::new();
    for n in xs {
        match n {
            0 => {}
            2 | 8 => s += &format!("    x{n} = buf\n"),
            _ => s += &format!("    x{n} = {:#018x}\n", p.init_x[n]),
        }
    }
    for n in fs {
        s += &format!("    f{n} = {:#018x}\n", p.init_f[n]);
    }
    s + &format!(
        "    frm = {}, fflags written with {:#x}\n",
        p.init_frm, p.init_fflags
    )
}

/// Shrinks the failing program `p` and prints the minimal one.
fn shrink_and_print(p: &Program, m: &Machine, dir: &Path) -> Result<(), String> {
    let name = format!("seed{}-min", p.seed);
    let mut keep = vec![true; p.units.len()];
    let t0 = Instant::now();
    let trials = shrink::shrink(&mut keep, SHRINK_BUDGET, |k| {
        check(p, Some(k), m, dir, &name).is_ok_and(|(d, _)| !d.is_empty())
    });
    let (diffs, ours) = check(p, Some(&keep), m, dir, &name)?;
    let lines: Vec<&String> = p
        .units
        .iter()
        .zip(&keep)
        .filter(|(_, &k)| k)
        .flat_map(|(u, _)| &u.lines)
        .collect();
    println!(
        "seed {}: minimal program ({} of {} units, {trials} trials, {:.1}s), {}:",
        p.seed,
        keep.iter().filter(|&&k| k).count(),
        p.units.len(),
        t0.elapsed().as_secs_f64(),
        dir.join(format!("{name}.s")).display()
    );
    for (i, u) in p.units.iter().enumerate().filter(|(i, _)| keep[*i]) {
        let rvc = if u.norvc { "  (.option norvc)" } else { "" };
        println!("  {i:>4}: {}{rvc}", u.lines.join("\n        "));
    }
    if let Some(t) = &p.trap {
        println!(
            "  tail: fsrmi {}; {}; (dump); {}  (must trap)",
            t.frm, t.static_op, t.dyn_op
        );
    }
    println!("  initial values:\n{}", initial_values(p, &lines));
    println!("  differences of the minimal program:");
    print!("{}", report(p, &keep, &diffs, &ours.stderr));
    Ok(())
}

/// The `randtest` task.
pub fn main(args: &[String]) -> Result<(), String> {
    let o = parse(args)?;
    exec::ensure_tools()?;
    let machine = if o.qemu_only {
        Machine {
            program: PathBuf::from(QEMU),
            args: Vec::new(),
        }
    } else {
        let program = match &o.emu {
            Some(p) => p.clone(),
            None => build_profkit()?,
        };
        Machine {
            program,
            args: vec!["run", "--no-profile"],
        }
    };
    let dir = match &o.keep {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!("randtest-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let t0 = Instant::now();
    let (mut insns, mut mismatches, mut failed) = (0, 0, Vec::new());
    let mut classes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mnemonics: BTreeMap<String, usize> = BTreeMap::new();
    for seed in o.start..o.start.saturating_add(o.seeds) {
        let p = gen::generate(seed, o.len);
        insns += count_instructions(&p);
        if o.stats {
            for u in &p.units {
                *classes.entry(u.class).or_default() += 1;
                for l in &u.lines {
                    let l = l.strip_prefix("1: ").unwrap_or(l);
                    let m = l.split_whitespace().next().unwrap_or("");
                    *mnemonics.entry(m.to_string()).or_default() += 1;
                }
            }
        }
        let name = format!("seed{seed}");
        let (diffs, ours) = check(&p, None, &machine, &dir, &name)?;
        if diffs.is_empty() {
            if o.keep.is_none() {
                for ext in ["s", "o", "elf"] {
                    let _ = std::fs::remove_file(dir.join(format!("{name}.{ext}")));
                }
            }
            continue;
        }
        mismatches += 1;
        failed.push(seed);
        println!(
            "MISMATCH seed {seed}: {} ({} differences)",
            dir.join(format!("{name}.s")).display(),
            diffs.len()
        );
        let all = vec![true; p.units.len()];
        print!("{}", report(&p, &all, &diffs, &ours.stderr));
        if o.shrink {
            shrink_and_print(&p, &machine, &dir)?;
        }
    }
    if o.stats {
        println!("classes (units):");
        for (c, _, _) in CLASSES {
            println!("  {c:<12} {}", classes.get(c).copied().unwrap_or(0));
        }
        println!("mnemonics ({} distinct):", mnemonics.len());
        let list: Vec<String> = mnemonics.iter().map(|(m, n)| format!("{m}:{n}")).collect();
        println!("  {}", list.join(" "));
    }
    let _ = std::fs::remove_file(dir.join("stdout"));
    let _ = std::fs::remove_file(dir.join("stderr"));
    if o.keep.is_none() && mismatches == 0 {
        let _ = std::fs::remove_dir(&dir);
    }
    println!(
        "randtest: {} seeds, {insns} instructions, {mismatches} mismatches ({:.1}s, against {})",
        o.seeds,
        t0.elapsed().as_secs_f64(),
        machine.program.display()
    );
    if mismatches > 0 {
        return Err(format!("mismatching seeds: {failed:?}"));
    }
    Ok(())
}

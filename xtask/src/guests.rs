//! `cargo xtask guests [--check]`: the bundled RISC-V guest programs.
//!
//! Without arguments it rebuilds every ELF in `guests/bin/` from `guests/src/` (static glibc
//! for Linux user mode; picolibc + `guests/bare/` for machine mode), runs each Linux ELF twice
//! under qemu-riscv64 (the runs must agree), records `guests/expected/<name>.stdout` and writes
//! `guests/manifest.json`. A bare-metal ELF cannot run under qemu-user, so its source is also
//! built as a Linux program with the same picolibc and startup (`-DBARE_ON_LINUX`, into
//! `guests/build/`), and that build must print exactly what the glibc build printed.
//!
//! With `--check` it only runs the recorded Linux guests under qemu-riscv64 and compares their
//! output and exit code with the manifest (what CI's difftest relies on).

use crate::tools::{self, describe};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Debian packages that provide the cross compilers, picolibc and qemu-riscv64.
const PACKAGES: &[&str] = &[
    "gcc-riscv64-linux-gnu",
    "libc6-dev-riscv64-cross",
    "gcc-riscv64-unknown-elf",
    "picolibc-riscv64-unknown-elf",
    "qemu-user",
];

const LINUX_CC: &str = "riscv64-linux-gnu-gcc";
const BARE_CC: &str = "riscv64-unknown-elf-gcc";
const QEMU: &str = "qemu-riscv64";

/// Flags shared by both builds: RV64GC, size-trimmed, symbol table kept, no debug info.
const COMMON_FLAGS: &[&str] = &[
    "-O2",
    "-march=rv64gc",
    "-mabi=lp64d",
    "-ffunction-sections",
    "-fdata-sections",
    "-Wl,--gc-sections",
    "-Wl,--strip-debug",
    "-Wall",
    "-Wextra",
    "-Isrc",
];
const LINUX_FLAGS: &[&str] = &["-static"];
/// Machine mode at 0x80000000: our linker script and startup instead of picolibc's crt0.
const BARE_FLAGS: &[&str] = &[
    "--specs=picolibc.specs",
    "-mcmodel=medany",
    "-nostartfiles",
    "-Tbare/link.ld",
];
const BARE_RUNTIME: &[&str] = &["bare/start.S", "bare/htif.c"];

/// A guest run longer than this is treated as hung.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// One bundled program: how it is built and how it is run.
struct Guest {
    name: &'static str,
    args: &'static [&'static str],
    stdin: Option<&'static str>,
    allow_dir: Option<&'static str>,
    /// Also built for bare metal (needs no files, stdin or arguments).
    bare: bool,
    /// The program `cargo run --release` profiles.
    default: bool,
    description: &'static str,
}

const GUESTS: &[Guest] = &[
    Guest {
        name: "coremark",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: true,
        default: true,
        description: "CoreMark-like mixed kernel: linked-list find/reverse/merge sort, int16 \
                      matrix arithmetic, a switch-driven state machine, CRC-16 of the results",
    },
    Guest {
        name: "crc",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: true,
        default: false,
        description: "integer loops: CRC-32 bitwise and by table, CRC-16/CCITT, Adler-32, \
                      Fletcher-16 over a generated buffer",
    },
    Guest {
        name: "primes",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: true,
        default: false,
        description: "sieve and Miller-Rabin (128-bit mulmod); a Fermat self-check that fails \
                      for 341, 561, 645 makes it exit with status 3 on purpose",
    },
    Guest {
        name: "nbody",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: true,
        default: false,
        description: "floating point: five-body simulation in double and in float (sqrt, \
                      sqrtf, conversions), energies printed with %.9f",
    },
    Guest {
        name: "recursion",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: false,
        default: false,
        description: "deep and wide call trees: naive Fibonacci, Ackermann, N-queens, Towers \
                      of Hanoi, mutual recursion",
    },
    Guest {
        name: "chase",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: false,
        default: false,
        description: "pointer chasing: a shuffled linked list of 131072 nodes, then a binary \
                      search tree of 131072 malloc'ed nodes (insert, lookup, in-order walk)",
    },
    Guest {
        name: "strings",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: false,
        default: false,
        description: "string processing: strstr against a hand-written KMP, strtok, in-place \
                      reversal, palindromes, case changes, snprintf/strtol round trips",
    },
    Guest {
        name: "sort",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: false,
        default: false,
        description: "sorting: qsort against hand-written merge sort and heap sort on ints, \
                      qsort(strcmp) against a bucket/insertion sort on strings",
    },
    Guest {
        name: "hash",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: false,
        default: false,
        description: "hash tables: a growing chained table with string keys, an \
                      open-addressing table with backward-shift deletion",
    },
    Guest {
        name: "phases",
        args: &[],
        stdin: None,
        allow_dir: None,
        bare: false,
        default: false,
        description: "four distinct phases in sequence (integer histogram, double matrix \
                      multiply, pointer chase, byte hashing), one output line after each",
    },
    Guest {
        name: "wordfreq",
        args: &[],
        stdin: Some("inputs/words.txt"),
        allow_dir: None,
        bare: false,
        default: false,
        description: "reads stdin, counts words in a hash table, prints the most frequent",
    },
    Guest {
        name: "csvstats",
        args: &["inputs/samples.csv"],
        stdin: None,
        allow_dir: Some("inputs"),
        bare: false,
        default: false,
        description: "opens the CSV file named by argv[1], parses it with strtol/strtod over \
                      three passes (fseek/rewind), prints per-column statistics",
    },
];

/// The execution environment of an ELF.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum Env {
    Linux,
    Bare,
}

/// One row of `guests/manifest.json`; paths are relative to `guests/`, which is also the
/// working directory the guest runs in.
#[derive(Serialize, Deserialize, Debug)]
struct ManifestEntry {
    name: String,
    elf: String,
    env: Env,
    source: String,
    args: Vec<String>,
    stdin: Option<String>,
    allow_dir: Option<String>,
    stdout: String,
    exit_code: i32,
    /// For a bare-metal build: the Linux entry whose expected output it shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    same_output_as: Option<String>,
    default: bool,
    description: String,
}

/// What a run printed and how it ended.
#[derive(PartialEq, Eq)]
struct Outcome {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    exit_code: i32,
}

/// Entry point of `cargo xtask guests`.
pub fn run(args: &[String]) -> Result<(), String> {
    let (check, emu) = match args {
        [] => (false, None),
        [flag] if flag == "--check" => (true, None),
        [flag, e, path] if flag == "--check" && e == "--emu" => (true, Some(PathBuf::from(path))),
        _ => {
            return Err(format!(
                "usage: cargo xtask guests [--check [--emu PROFKIT]], got {args:?}"
            ))
        }
    };
    let dir = guests_dir()?;
    if check {
        tools::ensure(&[QEMU], PACKAGES)?;
        check_manifest(&dir, emu.as_deref())
    } else {
        tools::ensure(&[LINUX_CC, BARE_CC, QEMU], PACKAGES)?;
        ensure_picolibc()?;
        build_all(&dir)
    }
}

fn guests_dir() -> Result<PathBuf, String> {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = xtask
        .parent()
        .ok_or("xtask has no parent directory")?
        .join("guests");
    if dir.join("src").is_dir() {
        Ok(dir)
    } else {
        Err(format!("{} has no src/ directory", dir.display()))
    }
}

/// picolibc comes in its own package; gcc finds its specs file when it is installed.
fn ensure_picolibc() -> Result<(), String> {
    let found = || -> Result<bool, String> {
        let out = Command::new(BARE_CC)
            .arg("-print-file-name=picolibc.specs")
            .output()
            .map_err(|e| format!("{BARE_CC}: {e}"))?;
        Ok(Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_absolute())
    };
    if !found()? {
        tools::install(PACKAGES)?;
        if !found()? {
            return Err("picolibc.specs not found after installing picolibc".into());
        }
    }
    Ok(())
}

fn run_checked(cmd: &mut Command) -> Result<(), String> {
    eprintln!("+ {}", describe(cmd));
    tools::run_checked(cmd)
}

/// Compiles `inputs` (paths relative to `dir`) with `cc` into `out`.
fn compile(
    dir: &Path,
    cc: &str,
    extra: &[&str],
    inputs: &[&str],
    out: &Path,
) -> Result<(), String> {
    let mut cmd = Command::new(cc);
    cmd.current_dir(dir)
        .args(COMMON_FLAGS)
        .args(extra)
        .arg("-o")
        .arg(out)
        .args(inputs)
        .arg("-lm");
    run_checked(&mut cmd)
}

/// Runs `elf` under qemu-riscv64 in `dir`, with stdin from `stdin` (or empty).
fn run_qemu(
    dir: &Path,
    elf: &str,
    args: &[String],
    stdin: Option<&str>,
) -> Result<Outcome, String> {
    run_under(&[QEMU], dir, elf, args, stdin)
}

/// Runs `elf` with the command line `runner... elf args...` in `dir`.
fn run_under(
    runner: &[&str],
    dir: &Path,
    elf: &str,
    args: &[String],
    stdin: Option<&str>,
) -> Result<Outcome, String> {
    let scratch = dir.join("build").join("run");
    fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let (out_path, err_path) = (scratch.join("stdout"), scratch.join("stderr"));
    let create = |p: &Path| fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let input = match stdin {
        Some(p) => Stdio::from(fs::File::open(dir.join(p)).map_err(|e| format!("{p}: {e}"))?),
        None => Stdio::null(),
    };
    let (program, runner_args) = runner.split_first().ok_or("no runner")?;
    let mut child = Command::new(program)
        .current_dir(dir)
        .args(runner_args)
        .arg(elf)
        .args(args)
        .stdin(input)
        .stdout(create(&out_path)?)
        .stderr(create(&err_path)?)
        .spawn()
        .map_err(|e| format!("{program} {elf}: {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("{elf}: {e}"))? {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            // Best effort: the run has already failed, and the error says why.
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{elf} did not finish within {RUN_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |p: &Path| fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let exit_code = status
        .code()
        .ok_or_else(|| format!("{elf} was killed by a signal ({status})"))?;
    Ok(Outcome {
        stdout: read(&out_path)?,
        stderr: read(&err_path)?,
        exit_code,
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn file_size(path: &Path) -> Result<u64, String> {
    fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

/// Builds one guest (and its bare-metal twin), records its output, returns its manifest rows.
fn build_guest(dir: &Path, g: &Guest) -> Result<Vec<ManifestEntry>, String> {
    let source = format!("src/{}.c", g.name);
    let elf = format!("bin/{}.elf", g.name);
    compile(dir, LINUX_CC, LINUX_FLAGS, &[&source], &dir.join(&elf))?;

    let args = strings(g.args);
    let first = run_qemu(dir, &elf, &args, g.stdin)?;
    let second = run_qemu(dir, &elf, &args, g.stdin)?;
    if first != second {
        return Err(format!(
            "{elf}: two runs under qemu differ (not deterministic)"
        ));
    }
    if !first.stderr.is_empty() {
        return Err(format!(
            "{elf} wrote to stderr: {}",
            String::from_utf8_lossy(&first.stderr)
        ));
    }
    let stdout = format!("expected/{}.stdout", g.name);
    write_file(&dir.join(&stdout), &first.stdout)?;

    let linux = ManifestEntry {
        name: g.name.to_owned(),
        elf,
        env: Env::Linux,
        source: source.clone(),
        args,
        stdin: g.stdin.map(str::to_owned),
        allow_dir: g.allow_dir.map(str::to_owned),
        stdout: stdout.clone(),
        exit_code: first.exit_code,
        same_output_as: None,
        default: g.default,
        description: g.description.to_owned(),
    };
    let mut rows = vec![linux];
    if g.bare {
        rows.push(build_bare(dir, g, &source, &stdout, &first)?);
    }
    Ok(rows)
}

/// Builds `<name>.bare.elf`, and checks its picolibc build against the glibc `linux` outcome.
fn build_bare(
    dir: &Path,
    g: &Guest,
    source: &str,
    stdout: &str,
    linux: &Outcome,
) -> Result<ManifestEntry, String> {
    if !g.args.is_empty() || g.stdin.is_some() {
        return Err(format!(
            "{}: a bare-metal guest takes no arguments or stdin",
            g.name
        ));
    }
    let inputs = [BARE_RUNTIME, &[source]].concat();
    let elf = format!("bin/{}.bare.elf", g.name);
    compile(dir, BARE_CC, BARE_FLAGS, &inputs, &dir.join(&elf))?;

    let twin = format!("build/{}.bare-on-linux.elf", g.name);
    let twin_flags = [BARE_FLAGS, &["-DBARE_ON_LINUX"]].concat();
    compile(dir, BARE_CC, &twin_flags, &inputs, &dir.join(&twin))?;
    let picolibc = run_qemu(dir, &twin, &[], None)?;
    if picolibc.stdout != linux.stdout || picolibc.exit_code != linux.exit_code {
        return Err(format!(
            "{}: the picolibc build prints or exits differently from the glibc build \
             (exit {} vs {}); compare {twin} with bin/{}.elf",
            g.name, picolibc.exit_code, linux.exit_code, g.name
        ));
    }
    Ok(ManifestEntry {
        name: format!("{}.bare", g.name),
        elf,
        env: Env::Bare,
        source: source.to_owned(),
        args: Vec::new(),
        stdin: None,
        allow_dir: None,
        stdout: stdout.to_owned(),
        exit_code: linux.exit_code,
        same_output_as: Some(g.name.to_owned()),
        default: false,
        description: format!("bare-metal (machine mode, HTIF) build of {}", g.name),
    })
}

fn build_all(dir: &Path) -> Result<(), String> {
    for sub in ["bin", "expected", "build"] {
        let p = dir.join(sub);
        fs::create_dir_all(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let mut manifest = Vec::new();
    for g in GUESTS {
        manifest.extend(build_guest(dir, g)?);
    }
    let mut json = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    json.push('\n');
    write_file(&dir.join("manifest.json"), json.as_bytes())?;

    let mut total = 0;
    println!(
        "{:<16} {:>6} {:>5} {:>9}",
        "guest", "env", "exit", "ELF bytes"
    );
    for e in &manifest {
        let size = file_size(&dir.join(&e.elf))?;
        total += size;
        println!(
            "{:<16} {:>6} {:>5} {:>9}",
            e.name,
            format!("{:?}", e.env).to_lowercase(),
            e.exit_code,
            size
        );
    }
    println!(
        "{} ELFs, {total} bytes; wrote guests/manifest.json",
        manifest.len()
    );
    Ok(())
}

/// Checks that qemu still gives every Linux guest its recorded output and, with `emu`
/// (a `profkit` binary), that our emulator gives every guest, bare-metal ones included, the
/// same output and exit code, side by side.
fn check_manifest(dir: &Path, emu: Option<&Path>) -> Result<(), String> {
    let path = dir.join("manifest.json");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let manifest: Vec<ManifestEntry> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut failures = Vec::new();
    let (mut ran, mut bare, mut ours) = (0, 0, 0);
    for e in &manifest {
        let expected =
            fs::read(dir.join(&e.stdout)).map_err(|err| format!("{}: {err}", e.stdout))?;
        if !dir.join(&e.elf).is_file() {
            failures.push(format!("{}: {} is missing", e.name, e.elf));
            continue;
        }
        let mut compare = |who: &str, got: Outcome| {
            if got.stdout != expected {
                failures.push(format!(
                    "{} under {who}: stdout differs from {}",
                    e.name, e.stdout
                ));
            }
            if got.exit_code != e.exit_code {
                failures.push(format!(
                    "{} under {who}: exit code {} (expected {})",
                    e.name, got.exit_code, e.exit_code
                ));
            }
        };
        if e.env == Env::Bare {
            bare += 1; // qemu-user cannot run machine-mode code
        } else {
            compare(QEMU, run_qemu(dir, &e.elf, &e.args, e.stdin.as_deref())?);
            ran += 1;
        }
        if let Some(emu) = emu {
            let emu = emu.to_string_lossy();
            let mut runner = vec![emu.as_ref(), "run", "--no-profile", "--clear-env"];
            if e.env == Env::Bare {
                runner.push("--bare");
            }
            if let Some(allowed) = &e.allow_dir {
                runner.extend(["--allow-dir", allowed.as_str()]);
            }
            compare(
                "profkit",
                run_under(&runner, dir, &e.elf, &e.args, e.stdin.as_deref())?,
            );
            ours += 1;
        }
    }
    if failures.is_empty() {
        println!(
            "guests: {ran} Linux guests match their recorded output under {QEMU}; \
             {ours} guests ({bare} bare-metal) match it under our emulator"
        );
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

//! `cargo xtask isa [--check]`: build profkit's own ISA tests (`guests/isa`).
//!
//! Every test source builds twice from one file:
//! - bare metal (machine mode, code at 0x80000000, result in `tohost`) into
//!   `guests/isa/bin/<name>.elf`, committed for the emulator's bare-metal tests;
//! - Linux user (`-DISA_ENV_USER`, result as the exit status) into a temporary
//!   directory. With `--check` these run under qemu-riscv64, a reference nobody
//!   here wrote, and must exit 0; a non-zero status is the failing case number.
//!
//! Tests that need machine mode (traps, machine CSRs) have no user flavour.
//! When `qemu-system-riscv64` is installed (Debian: qemu-system-misc), `--check`
//! also runs every bare-metal ELF on qemu's `spike` machine, whose HTIF reads
//! `tohost` and exits with `tohost >> 1`: 0 for pass, else the failing case.
//! The task also writes `guests/isa/manifest.json`.

use crate::tools;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// One test source `guests/isa/<name>.S`.
struct IsaTest {
    name: &'static str,
    /// `-march` for both flavours; only the C test uses compressed code.
    march: &'static str,
    /// Instruction classes the test covers (the manifest's `classes`).
    classes: &'static [&'static str],
    /// Has a Linux-user flavour that qemu-riscv64 validates.
    user: bool,
    /// The case at which qemu-system-riscv64 7.2 is known to stop the
    /// bare-metal flavour, and why; each is the last case of its file.
    system_deviation: Option<(i32, &'static str)>,
}

impl IsaTest {
    /// Every case has been checked by some qemu: the user flavour by
    /// qemu-riscv64, or the bare-metal flavour by qemu-system-riscv64 in full.
    fn qemu_validated(&self) -> bool {
        self.user || self.system_deviation.is_none()
    }
}

const G: &str = "rv64g";
const GC: &str = "rv64gc";

/// The tests, in the order they are built and reported.
const TESTS: &[IsaTest] = &[
    test("rv64i_alu_rr", G, &["rv64i", "alu-reg"], true),
    test("rv64i_alu_imm", G, &["rv64i", "alu-imm"], true),
    test("rv64i_shift", G, &["rv64i", "shift"], true),
    test("rv64i_lui_auipc", G, &["rv64i", "lui-auipc"], true),
    test("rv64i_branch", G, &["rv64i", "branch"], true),
    test("rv64i_jump", G, &["rv64i", "jal-jalr"], true),
    test("rv64i_ldst", G, &["rv64i", "load-store"], true),
    test("rv64m", G, &["rv64m"], true),
    test("rv64a", G, &["rv64a", "lr-sc", "amo"], true),
    IsaTest {
        system_deviation: Some((26, "qemu's spike machine has no `time` CSR in M-mode")),
        ..test("zicsr", G, &["zicsr", "fcsr", "counters"], true)
    },
    test("zicsr_m", G, &["zicsr", "machine-csr"], false),
    test("zifencei", G, &["zifencei"], true),
    test("rvc", GC, &["rvc"], true),
    IsaTest {
        system_deviation: Some((
            17,
            "qemu 7.2 lets csrrs rd, cycle, rs1 (rs1 != x0, value 0) read without the \
             illegal-instruction trap the spec requires",
        )),
        ..test("trap", GC, &["trap", "machine-csr", "mret"], false)
    },
    test("fp_arith_s", G, &["f", "fp-arith", "rounding"], true),
    test("fp_arith_d", G, &["d", "fp-arith", "rounding"], true),
    test(
        "fp_nan_cmp",
        G,
        &[
            "f",
            "d",
            "nan",
            "fsgnj",
            "fminmax",
            "fclass",
            "fcmp",
            "nan-boxing",
        ],
        true,
    ),
    test("fp_cvt", G, &["f", "d", "fcvt"], true),
    test("fp_fma", G, &["f", "d", "fma"], true),
];

const fn test(
    name: &'static str,
    march: &'static str,
    classes: &'static [&'static str],
    user: bool,
) -> IsaTest {
    IsaTest {
        name,
        march,
        classes,
        user,
        system_deviation: None,
    }
}

const GCC: &str = "riscv64-unknown-elf-gcc";
const QEMU: &str = "qemu-riscv64";
const QEMU_SYSTEM: &str = "qemu-system-riscv64";
/// qemu's spike machine loads the ELF at its addresses and implements HTIF;
/// -icount makes minstret count instructions rather than host time.
const QEMU_SYSTEM_ARGS: &[&str] = &[
    "-machine",
    "spike",
    "-bios",
    "none",
    "-nographic",
    "-m",
    "128M",
    "-icount",
    "shift=0",
    "-kernel",
];
const APT_PACKAGES: &[&str] = &[
    "gcc-riscv64-unknown-elf",
    "binutils-riscv64-unknown-elf",
    "qemu-user",
];
/// A test runs a few thousand instructions; this only stops a hang (a
/// bare-metal test whose pass/fail store is lost spins forever).
const QEMU_TIMEOUT: Duration = Duration::from_secs(20);

/// Entry point of the `isa` task.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut check = false;
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            "-h" | "--help" => {
                println!(
                    "cargo xtask isa [--check]\n\n  builds guests/isa/*.S (bare-metal ELFs into guests/isa/bin,\n  Linux-user flavours into a temp dir) and writes guests/isa/manifest.json;\n  --check runs the user flavours under {QEMU} and requires exit 0"
                );
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    let isa_dir = workspace_root()?.join("guests").join("isa");
    let mut tools = vec![GCC];
    if check {
        tools.push(QEMU);
    }
    tools::ensure(&tools, APT_PACKAGES)?;

    let user_dir = std::env::temp_dir().join("profkit-isa-user");
    std::fs::create_dir_all(&user_dir)
        .map_err(|e| format!("cannot create {}: {e}", user_dir.display()))?;
    std::fs::create_dir_all(isa_dir.join("bin"))
        .map_err(|e| format!("cannot create {}/bin: {e}", isa_dir.display()))?;

    for t in TESTS {
        let bare = PathBuf::from("bin").join(format!("{}.elf", t.name));
        build(&isa_dir, t, &bare, false)?;
        if t.user {
            build(&isa_dir, t, &user_dir.join(t.name), true)?;
        }
    }
    let manifest = isa_dir.join("manifest.json");
    std::fs::write(&manifest, manifest_json())
        .map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
    println!(
        "isa: built {} bare-metal ELFs in {}, user flavours in {}",
        TESTS.len(),
        isa_dir.join("bin").display(),
        user_dir.display()
    );
    if check {
        check_under_qemu(&isa_dir, &user_dir)
    } else {
        Ok(())
    }
}

/// The repository root: the parent of this crate's directory.
fn workspace_root() -> Result<PathBuf, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "xtask has no parent directory".to_string())
}

/// Assemble and link one flavour of a test. gcc runs inside `guests/isa` with
/// relative paths so that the committed ELFs do not record this checkout's path.
fn build(isa_dir: &Path, t: &IsaTest, out: &Path, user: bool) -> Result<(), String> {
    let mut cmd = Command::new(GCC);
    cmd.current_dir(isa_dir)
        .arg(format!("-march={}", t.march))
        .args([
            "-mabi=lp64d",
            "-nostdlib",
            "-nostartfiles",
            "-static",
            "-I",
            ".",
        ])
        // zifencei patches its own code, which lives in a writable segment.
        .arg("-Wl,--no-warn-rwx-segments");
    if user {
        cmd.arg("-DISA_ENV_USER");
    } else {
        cmd.args(["-T", "link.ld"]);
    }
    cmd.arg("-o").arg(out).arg(format!("{}.S", t.name));
    let output = cmd.output().map_err(|e| format!("cannot run {GCC}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "building {} ({} flavour) failed:\n{}",
            t.name,
            if user { "user" } else { "bare-metal" },
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Run every user flavour under qemu-riscv64 (all must exit 0) and, if
/// installed, every bare-metal ELF under qemu-system-riscv64 (all must exit 0
/// or stop at their documented deviation).
fn check_under_qemu(isa_dir: &Path, user_dir: &Path) -> Result<(), String> {
    let mut failed = Vec::new();
    println!("{QEMU} (Linux-user flavours):");
    for t in TESTS.iter().filter(|t| t.user) {
        let verdict = run_qemu(Command::new(QEMU).arg(user_dir.join(t.name)))?;
        report(t.name, &verdict, None, &mut failed);
    }
    if tools::on_path(QEMU_SYSTEM) {
        println!("{QEMU_SYSTEM} -machine spike (bare-metal ELFs):");
        for t in TESTS {
            let elf = isa_dir.join("bin").join(format!("{}.elf", t.name));
            let verdict = run_qemu(Command::new(QEMU_SYSTEM).args(QEMU_SYSTEM_ARGS).arg(elf))?;
            report(t.name, &verdict, t.system_deviation, &mut failed);
        }
    } else {
        println!("{QEMU_SYSTEM} not installed (Debian: qemu-system-misc): bare-metal ELFs not run");
    }
    if failed.is_empty() {
        println!("isa: all checks passed");
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
}

/// Print one verdict; record a failure unless it is the expected deviation.
fn report(
    name: &'static str,
    verdict: &Verdict,
    deviation: Option<(i32, &str)>,
    failed: &mut Vec<&'static str>,
) {
    match (verdict, deviation) {
        (Verdict::Pass, _) => println!("  {name:<16} PASS"),
        (Verdict::FailCase(n), Some((case, why))) if *n == case => {
            println!("  {name:<16} known qemu deviation at case {n}: {why}")
        }
        _ => {
            println!("  {name:<16} {verdict}");
            failed.push(name);
        }
    }
}

/// The outcome of one run.
enum Verdict {
    Pass,
    /// Exit status = the failing case number.
    FailCase(i32),
    /// Killed by a signal or otherwise abnormal.
    Abnormal(ExitStatus),
    Timeout,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Pass => write!(f, "PASS"),
            Verdict::FailCase(n) => write!(f, "FAIL at case {n}"),
            Verdict::Abnormal(s) => write!(f, "FAIL ({s})"),
            Verdict::Timeout => write!(f, "FAIL (no exit within {QEMU_TIMEOUT:?})"),
        }
    }
}

/// Run a qemu command to completion (or the timeout) with no terminal input.
fn run_qemu(cmd: &mut Command) -> Result<Verdict, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let deadline = Instant::now() + QEMU_TIMEOUT;
    loop {
        let polled = child
            .try_wait()
            .map_err(|e| format!("waiting for {cmd:?}: {e}"))?;
        if let Some(status) = polled {
            return Ok(match status.code() {
                Some(0) => Verdict::Pass,
                Some(n) => Verdict::FailCase(n),
                None => Verdict::Abnormal(status),
            });
        }
        if Instant::now() >= deadline {
            // Best effort: the child may exit between the poll and the kill.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Verdict::Timeout);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `guests/isa/manifest.json`: one entry per test; `elf` is relative to the
/// repository root; `qemu_validated` says every case passed under a qemu
/// (see `IsaTest::qemu_validated`).
fn manifest_json() -> String {
    let entries: Vec<String> = TESTS
        .iter()
        .map(|t| {
            let classes: Vec<String> = t.classes.iter().map(|c| json_string(c)).collect();
            format!(
                "  {{\"name\": {}, \"elf\": {}, \"classes\": [{}], \"qemu_validated\": {}}}",
                json_string(t.name),
                json_string(&format!("guests/isa/bin/{}.elf", t.name)),
                classes.join(", "),
                t.qemu_validated()
            )
        })
        .collect();
    format!("[\n{}\n]\n", entries.join(",\n"))
}

/// A JSON string literal (names here are ASCII, but escape anyway).
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_has_a_source_and_unique_name() {
        let dir = workspace_root().unwrap().join("guests").join("isa");
        let mut names: Vec<&str> = TESTS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TESTS.len(), "duplicate test name");
        for t in TESTS {
            assert!(dir.join(format!("{}.S", t.name)).is_file(), "{}", t.name);
        }
    }

    #[test]
    fn manifest_matches_the_committed_one() {
        let path = workspace_root()
            .unwrap()
            .join("guests")
            .join("isa")
            .join("manifest.json");
        let committed = std::fs::read_to_string(path).unwrap();
        assert_eq!(committed, manifest_json(), "run `cargo xtask isa`");
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}

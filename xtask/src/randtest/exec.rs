//! External tools: the Debian RISC-V binutils that build the programs, and the two
//! machines (qemu-riscv64 and our emulator) that run them.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const AS: &str = "riscv64-unknown-elf-as";
const LD: &str = "riscv64-unknown-elf-ld";
/// The reference machine.
pub const QEMU: &str = "qemu-riscv64";
/// A program runs a few thousand instructions; anything slower is hung.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Makes sure the assembler, linker and qemu are installed, installing the Debian packages
/// (as root, after `apt-get update`) when one is missing.
pub fn ensure_tools() -> Result<(), String> {
    crate::tools::ensure(
        &[AS, LD, QEMU],
        &[
            "binutils-riscv64-unknown-elf",
            "gcc-riscv64-unknown-elf",
            "qemu-user",
        ],
    )
}

fn run_tool(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{:?} failed: {}",
            cmd.get_program(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Writes `source` to `dir/name.s` and assembles and links it to `dir/name.elf`.
pub fn build(source: &str, dir: &Path, name: &str) -> Result<PathBuf, String> {
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    let elf = dir.join(format!("{name}.elf"));
    std::fs::write(&s, source).map_err(|e| format!("writing {}: {e}", s.display()))?;
    run_tool(
        Command::new(AS)
            .args(["-march=rv64gc", "-mabi=lp64d", "-o"])
            .arg(&o)
            .arg(&s),
    )?;
    run_tool(
        Command::new(LD)
            .args(["-static", "--no-relax", "-o"])
            .arg(&elf)
            .arg(&o),
    )?;
    Ok(elf)
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Exit status: the exit code, or 128 + signal number as a shell reports it.
    pub status: i32,
    /// Everything written to stdout.
    pub stdout: Vec<u8>,
    /// The start of stderr, for the report.
    pub stderr: String,
}

/// Runs `program args... elf` with stdout and stderr sent to files in `dir`, killing it
/// after [`TIMEOUT`].
pub fn run(program: &Path, args: &[&str], elf: &Path, dir: &Path) -> Result<Outcome, String> {
    let out_path = dir.join("stdout");
    let err_path = dir.join("stderr");
    let file = |p: &Path| File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut child = Command::new(program)
        .args(args)
        .arg(elf)
        .stdin(Stdio::null())
        .stdout(file(&out_path)?)
        .stderr(file(&err_path)?)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let start = Instant::now();
    let mut nap = Duration::from_micros(200);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} {} did not finish in {}s",
                    program.display(),
                    elf.display(),
                    TIMEOUT.as_secs()
                ));
            }
            Ok(None) => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(5));
            }
            Err(e) => return Err(format!("waiting for {}: {e}", program.display())),
        }
    };
    let code = status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    });
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let stderr = read(&err_path)?;
    Ok(Outcome {
        status: code,
        stdout: read(&out_path)?,
        stderr: String::from_utf8_lossy(&stderr[..stderr.len().min(2000)]).into_owned(),
    })
}

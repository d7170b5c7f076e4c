//! `cargo xtask difftest`: every differential test against the reference tools, in one run.
//!
//! 1. every guest under qemu-riscv64 and under our emulator, side by side, against the
//!    recorded output (`guests --check --emu`);
//! 2. the disassembler against objdump on every instruction of every guest ELF, and on every
//!    16-bit and millions of 32-bit encodings (`disasm-check`);
//! 3. random instruction streams, final register, fflags and memory state against qemu
//!    (`randtest`);
//! 4. the ISA tests' expected values against qemu (`isa --check`);
//! 5. the floating-point unit against qemu on millions of operands per operation and rounding
//!    mode (the ignored test `fpu_matches_qemu`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools;

/// Debian packages of the reference tools.
const PACKAGES: &[&str] = &[
    "qemu-user",
    "binutils-riscv64-unknown-elf",
    "gcc-riscv64-unknown-elf",
    "gcc-riscv64-linux-gnu",
    "libc6-dev-riscv64-cross",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The FPU's qemu oracle, an ignored test because it needs the cross compiler.
fn fpu_against_qemu(_: &[String]) -> Result<(), String> {
    tools::run_checked(
        Command::new(env!("CARGO"))
            .current_dir(root())
            .args([
                "test",
                "--quiet",
                "-p",
                "isa-emu",
                "--lib",
                "fpu_matches_qemu",
            ])
            .args(["--", "--ignored", "--nocapture"]),
    )
}

/// Entry point.
pub fn run(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err(format!(
            "usage: cargo xtask difftest (no arguments), got {args:?}"
        ));
    }
    tools::ensure(
        &[
            "qemu-riscv64",
            "riscv64-unknown-elf-objdump",
            "riscv64-unknown-elf-gcc",
        ],
        PACKAGES,
    )?;
    let root = root();
    tools::run_checked(Command::new(env!("CARGO")).current_dir(&root).args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "profkit",
    ]))?;
    let profkit = root.join("target/release/profkit");
    let emu = profkit.to_string_lossy().into_owned();

    let mut elfs: Vec<String> = Vec::new();
    for dir in ["guests/bin", "guests/isa/bin"] {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|x| x == "elf") {
                elfs.push(path.to_string_lossy().into_owned());
            }
        }
    }
    elfs.sort();
    let mut disasm_args = vec!["--exhaustive".to_string()];
    disasm_args.extend(elfs);

    let steps: [(&str, crate::TaskFn, Vec<String>); 5] = [
        (
            "guests",
            crate::guests::run,
            vec!["--check".into(), "--emu".into(), emu.clone()],
        ),
        ("disasm-check", crate::disasm_check::run, disasm_args),
        ("randtest", crate::randtest::main, vec!["--emu".into(), emu]),
        ("isa", crate::isa::run, vec!["--check".into()]),
        ("fpu-qemu", fpu_against_qemu, Vec::new()),
    ];
    let mut failed = Vec::new();
    let total = steps.len();
    for (name, step, step_args) in steps {
        println!("\n--- difftest: {name}");
        if let Err(e) = step(&step_args) {
            eprintln!("difftest: {name} FAILED: {e}");
            failed.push(name);
        }
    }
    if failed.is_empty() {
        println!("\ndifftest: all {total} differential tests passed");
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
}

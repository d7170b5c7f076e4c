//! Developer tasks: `cargo xtask <task> [args]`. Run `cargo xtask help` for the table.

use std::process::ExitCode;

mod bench;
mod bench_paths;
mod bench_strata;
mod difftest;
mod disasm_check;
mod guests;
mod isa;
mod randtest;
mod sections;
mod tools;

/// A task's entry point.
type TaskFn = fn(&[String]) -> Result<(), String>;
type Task = (&'static str, &'static str, TaskFn);

/// The task table: name, one-line description, entry point.
const TASKS: &[Task] = &[
    ("help", "list the tasks", help),
    ("ci", "run what CI runs (.ci/run)", ci),
    (
        "bench",
        "isa-emu (no sink, block/edge sink, memory sink) vs qemu-riscv64; --quick, --runs N",
        bench::run,
    ),
    (
        "bench-paths",
        "path profiling overhead (flat, region, global) vs isa-emu; --quick, --runs N, --instructions, --sections [GUEST...]",
        bench_paths::run,
    ),
    (
        "bench-strata",
        "strata cost vs isa-emu and grammar size vs raw/xz; --quick, --runs N",
        bench_strata::task,
    ),
    (
        "difftest",
        "all differential tests against qemu-riscv64 and objdump (what CI runs)",
        difftest::run,
    ),
    (
        "disasm-check",
        "compare the disassembler with objdump: ELF files, or --exhaustive",
        disasm_check::run,
    ),
    (
        "isa",
        "build guests/isa tests (--check: run under qemu)",
        isa::run,
    ),
    (
        "guests",
        "rebuild guest ELFs and expected outputs; --check: rerun",
        guests::run,
    ),
    (
        "randtest",
        "random instruction streams: our emulator vs qemu-riscv64",
        randtest::main,
    ),
];

fn ci(_: &[String]) -> Result<(), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    tools::run_checked(std::process::Command::new("bash").arg(root.join(".ci/run")))
}

fn help(_: &[String]) -> Result<(), String> {
    println!("cargo xtask <task> [args]\n");
    for (name, what, _) in TASKS {
        println!("  {name:<10} {what}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map(String::as_str).unwrap_or("help");
    let Some((_, _, task)) = TASKS.iter().find(|(n, _, _)| *n == name) else {
        eprintln!("xtask: unknown task `{name}`");
        let _ = help(&[]);
        return ExitCode::FAILURE;
    };
    match task(&args[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {name}: {e}");
            ExitCode::FAILURE
        }
    }
}

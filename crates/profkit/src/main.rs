//! The `profkit` command-line profiler.
//!
//! - `profkit` with no arguments profiles the bundled default guest program.
//! - `profkit run FILE [ARGS...]` runs a statically linked RISC-V program with stdin, stdout
//!   and stderr passed through, prints a profile to stderr (or `--out FILE`) and exits with
//!   the guest's exit code.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::RangedU64ValueParser;
use clap::{Parser, Subcommand};

use profkit::emu::linux::{Input, LinuxConfig, Output};
use profkit::emu::{BareConfig, Config, Machine, Outcome, RunSummary};
use profkit::events::SinkExt;
use profkit::paths::{PathMode, PathOptions, PathReport};
use profkit::profile::{render_callgrind, BlockProfile, CallGraph, Report};
use profkit::progress::{self, Progress};

mod strata;

/// The bundled guest that `profkit` with no arguments profiles.
const DEFAULT_GUEST: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../guests/bin/coremark.elf"
));
const DEFAULT_GUEST_NAME: &str = "coremark";

/// Most guest memory `--memory` allows, in MiB (64 GiB): far more than the guests need, and
/// a bound that keeps a typo from asking the host for terabytes.
const MAX_MEMORY_MIB: u64 = 1 << 16;

#[derive(Parser, Debug)]
#[command(
    name = "profkit",
    version,
    about = "Whole-program profiler for RISC-V programs"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a statically linked RV64GC program and profile it.
    Run(RunArgs),
    /// Run a program and print its hottest (hierarchical) Ball-Larus paths (to stderr, or
    /// to --out FILE).
    Paths(PathsArgs),
    /// Whole-program paths, strata and stratum layers of a run (or query their ISAM file).
    Strata(strata::StrataArgs),
}

#[derive(Parser, Debug)]
struct PathsArgs {
    /// Profiling scheme: flat Ball-Larus, region-based or global-based hierarchical.
    #[arg(long, value_enum, default_value_t = PathMode::Region)]
    mode: PathMode,
    /// Write the paths as JSON (same as `--format json`); to stderr unless --out is given.
    #[arg(long)]
    json: bool,
    /// Paths format (written to stderr, so the guest's stdout stays its own, or to --out).
    #[arg(long, value_enum, default_value_t = PathsFormat::Text)]
    format: PathsFormat,
    /// Also make single-entry single-exit hammocks regions (hierarchical modes).
    #[arg(long)]
    hammocks: bool,
    /// Regions of the functions FILE names, in place of the mode's (hierarchical modes).
    /// FILE is a JSON object from function names or entry addresses to lists of regions,
    /// each a list of block start addresses: {"main": [["0x10450", "0x1045c"]]}.
    #[arg(long, value_name = "FILE")]
    regions: Option<PathBuf>,
    /// Where increments go: on a maximum spanning tree of a static edge-frequency estimate,
    /// or of the edge profile measured by a first run of the guest (the guest then runs
    /// twice: the first run's output is discarded and its stdin, read to its end first, is
    /// given to both runs). Path numbers and counts are the same.
    #[arg(long, value_enum, default_value_t = PathWeights::Estimate)]
    weights: PathWeights,
    /// Global mode: keep the prolog and epilog edges of every region entry and exit, not
    /// only the representative ones (a larger counter table, the same counts).
    #[arg(long)]
    no_shrink: bool,
    #[command(flatten)]
    report: ReportArgs,
    #[command(flatten)]
    guest: GuestArgs,
}

#[derive(Parser, Debug)]
struct RunArgs {
    /// Run with no profiling sink at all (for speed comparisons); prints no profile.
    #[arg(long, conflicts_with_all = ["out", "format", "top"])]
    no_profile: bool,
    /// Profile format (written to stderr, so the guest's stdout stays its own, or to --out).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    report: ReportArgs,
    #[command(flatten)]
    guest: GuestArgs,
}

/// Where a report goes and how much of it: shared by `run` and `paths`.
#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// Write the report to this file instead of stderr.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Hottest entries (blocks or paths) to show.
    #[arg(long, default_value_t = 10)]
    top: usize,
}

/// The guest program, its arguments and how to run it: shared by `run` and `paths`.
#[derive(clap::Args, Debug)]
struct GuestArgs {
    #[command(flatten)]
    opts: GuestOptions,
    /// The program to run.
    file: PathBuf,
    /// Its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// How to run a guest program: shared by every subcommand that runs one.
#[derive(clap::Args, Debug)]
struct GuestOptions {
    /// Stop after this many instructions.
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,
    /// Guest memory limit in MiB, 1 to 65536 (one host allocation of this size, whose
    /// pages the host provides as the guest touches them).
    #[arg(long, value_name = "MIB", default_value_t = 2048,
          value_parser = RangedU64ValueParser::<u64>::new().range(1..=MAX_MEMORY_MIB))]
    memory: u64,
    /// Host directory the guest may open files in (nothing else is reachable).
    #[arg(long, value_name = "DIR")]
    allow_dir: Option<PathBuf>,
    /// Start the guest with an empty environment instead of the host's. The host's holds
    /// variables that differ between shells and runs (such as `_`, the path profkit was
    /// started by), which a guest's libc reads, so profiles to compare byte for byte across
    /// hosts or builds want this flag.
    #[arg(long)]
    clear_env: bool,
    /// Set a guest environment variable (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    envs: Vec<String>,
    /// Seed for the guest's randomness (AT_RANDOM, getrandom).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Decode and execute one instruction at a time (slow; for checking the block cache).
    #[arg(long)]
    single_step: bool,
    /// Interpret the guest instead of compiling its blocks to host code (slower; for
    /// checking the compiled code, which gives the same results and profiles).
    #[arg(long)]
    no_jit: bool,
    /// Write a perf map of the compiled code to /tmp/perf-PID.map, so that `perf record`
    /// and `perf report` of this run name the guest's blocks, the probes a profile runs in
    /// them and the emulator's glue instead of showing bare addresses.
    #[arg(long)]
    perf_map: bool,
    /// The program is a bare-metal machine-mode ELF (HTIF console and exit).
    #[arg(long)]
    bare: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    /// Callgrind's format with the call graph, for KCachegrind and `callgrind_annotate`.
    Callgrind,
}

/// Where `paths` places increments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PathWeights {
    /// Edges in loop nests of depth d weigh 8^d.
    Estimate,
    /// The edge profile of a first run.
    Measured,
}

/// The formats `paths` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PathsFormat {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Run(args)) => {
            read_guest(&args.guest.file).and_then(|(elf, name)| run(&elf, &name, &args))
        }
        Some(Command::Paths(args)) => paths(&args),
        Some(Command::Strata(args)) => strata::run(&args),
        None => {
            let args = RunArgs::parse_from(["run", DEFAULT_GUEST_NAME]);
            note(&format!("profiling the bundled guest `{DEFAULT_GUEST_NAME}` (try `profkit run FILE` for your own program)\n"));
            run(DEFAULT_GUEST, DEFAULT_GUEST_NAME, &args)
        }
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(msg) => {
            note(&format!("error: {msg}"));
            ExitCode::from(2)
        }
    }
}

/// The host's environment as `NAME=value` entries: what a guest sees by default, as under
/// qemu or valgrind.
fn host_env() -> Vec<Vec<u8>> {
    std::env::vars_os()
        .map(|(k, v)| {
            [
                k.into_encoded_bytes(),
                b"=".to_vec(),
                v.into_encoded_bytes(),
            ]
            .concat()
        })
        .collect()
}

fn guest_env(opts: &GuestOptions) -> Vec<Vec<u8>> {
    let mut env = if opts.clear_env {
        Vec::new()
    } else {
        host_env()
    };
    env.extend(opts.envs.iter().map(|s| s.as_bytes().to_vec()));
    env
}

/// Loads the guest `elf` as `guest` says, its standard streams the host's.
fn load(elf: &[u8], name: &str, guest: &GuestArgs) -> Result<Machine, String> {
    load_with(
        elf,
        name,
        &guest.args,
        &guest.opts,
        Input::Inherit,
        Output::Inherit,
    )
}

/// Where perf looks for this process's map of code that no file backs.
fn perf_map_path() -> PathBuf {
    PathBuf::from(format!("/tmp/perf-{}.map", std::process::id()))
}

/// Loads the guest `elf` with arguments `argv` (after its name) as `opts` say, with `stdin`
/// and its output (stdout, stderr, the bare-metal console) to `output`.
fn load_with(
    elf: &[u8],
    name: &str,
    argv: &[String],
    opts: &GuestOptions,
    stdin: Input,
    output: Output,
) -> Result<Machine, String> {
    let config = Config {
        fuel: opts.fuel,
        single_step: opts.single_step,
        jit: !opts.no_jit,
        sample_interval: Some(progress::INTERVAL),
        // In range (at most 64 GiB), so this cannot overflow.
        memory: opts.memory << 20,
        perf_map: opts.perf_map.then(perf_map_path),
        ..Config::default()
    };
    if let Some(path) = &config.perf_map {
        eprintln!("profkit: perf map: {}", path.display());
    }
    if opts.bare {
        Machine::bare_metal(elf, BareConfig { console: output }, config)
    } else {
        let linux = LinuxConfig {
            args: std::iter::once(name)
                .chain(argv.iter().map(String::as_str))
                .map(|a| a.as_bytes().to_vec())
                .collect(),
            env: guest_env(opts),
            stdin,
            stdout: output,
            stderr: output,
            allow_dir: opts.allow_dir.clone(),
            // Relative paths mean what they mean to the user's shell.
            cwd: std::env::current_dir().ok(),
            seed: opts.seed,
            ..LinuxConfig::default()
        };
        Machine::linux(elf, linux, config)
    }
    .map_err(|e| format!("{name}: {e}"))
}

/// Runs the guest; returns the exit status to give the shell.
fn run(elf: &[u8], name: &str, args: &RunArgs) -> Result<i32, String> {
    let mut machine = load(elf, name, &args.guest)?;

    let summary: RunSummary;
    if args.no_profile {
        summary = machine.run(&mut ());
    } else {
        // The call graph's shadow stack costs a little on every block: only when asked.
        let calls = (args.format == Format::Callgrind).then(CallGraph::new);
        let mut sinks = BlockProfile::new().and(calls).and(Progress::new());
        summary = machine.run(&mut sinks);
        let (profile, calls) = sinks.into_inner().0.into_inner();
        let report = Report::new(name, &machine, &summary, &profile, args.report.top);
        let text = match args.format {
            Format::Text => report.to_text(),
            Format::Json => report.to_json(),
            // `calls` is `Some` in this format.
            Format::Callgrind => {
                let calls = calls.unwrap_or_default();
                render_callgrind(&command_line(name, &args.guest), &machine, &profile, &calls)
            }
        };
        emit(args.report.out.as_deref(), "profile", &text)?;
    }
    Ok(guest_status(&summary))
}

/// The guest's command line, for reports.
fn command_line(name: &str, args: &GuestArgs) -> String {
    std::iter::once(name)
        .chain(args.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads a guest ELF; returns its bytes and the name reports use.
fn read_guest(file: &Path) -> Result<(Vec<u8>, String), String> {
    let elf = fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    Ok((elf, file.display().to_string()))
}

/// Writes a report to `out`, or to stderr after the guest's stdout is flushed.
fn emit(out: Option<&Path>, what: &str, text: &str) -> Result<(), String> {
    match out {
        Some(path) => fs::write(path, text)
            .map_err(|e| format!("cannot write the {what} to {}: {e}", path.display())),
        None => {
            let _ = io::stdout().flush();
            write_report(&mut io::stderr().lock(), text)
                .map_err(|e| format!("cannot write the {what} to stderr: {e}"))
        }
    }
}

/// Writes report text to `w`. A reader that went away (`profkit ... | head`) ends the
/// report quietly, as it does for any Unix tool; other write errors are returned.
fn write_report(w: &mut dyn Write, text: &str) -> io::Result<()> {
    match w.write_all(text.as_bytes()).and_then(|()| w.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// A `profkit:` message on stderr; if stderr is gone there is nowhere left to say it.
fn note(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "profkit: {msg}");
}

/// Reports a guest fault on stderr; returns the exit status to give the shell.
fn guest_status(summary: &RunSummary) -> i32 {
    if let Outcome::Fault(f) = summary.outcome {
        note(&format!("guest fault: {f}"));
    }
    summary.outcome.exit_code()
}

/// `profkit paths`: runs the guest under the path profiler; returns the guest's exit status.
fn paths(args: &PathsArgs) -> Result<i32, String> {
    let mut options = path_options(args)?;
    let (elf, name) = read_guest(&args.guest.file)?;
    let mut machine = if args.weights == PathWeights::Measured {
        // Both runs read the same input; the first one's output goes nowhere.
        let mut input = Vec::new();
        if !args.guest.opts.bare {
            io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
        }
        let mut first = load_with(
            &elf,
            &name,
            &args.guest.args,
            &args.guest.opts,
            Input::Bytes(input.clone()),
            Output::Capture,
        )?;
        let mut sink = path_sink(&first, args, &options)?;
        sink.record_edges = true;
        first.run(&mut sink);
        options.weights = Some(sink.edge_profile());
        load_with(
            &elf,
            &name,
            &args.guest.args,
            &args.guest.opts,
            Input::Bytes(input),
            Output::Inherit,
        )?
    } else {
        load(&elf, &name, &args.guest)?
    };
    let mut sink = path_sink(&machine, args, &options)?;
    let summary = machine.run(&mut sink);
    let report = PathReport::new(&machine, &sink, args.mode, &options);
    let text = if args.json || args.format == PathsFormat::Json {
        report.to_json()
    } else {
        report.to_text(args.report.top)
    };
    emit(args.report.out.as_deref(), "paths", &text)?;
    Ok(guest_status(&summary))
}

/// The path sink for `machine` (its errors are about the regions file, if any).
fn path_sink(
    machine: &Machine,
    args: &PathsArgs,
    options: &PathOptions,
) -> Result<profkit::bl::PathSink, String> {
    profkit::paths::sink(machine, args.mode, options).map_err(|e| match &args.regions {
        Some(file) => format!("--regions {}: {e}", file.display()),
        None => e,
    })
}

/// The profiling options of `args`, the regions file read; rejects options the mode does
/// not honour.
fn path_options(args: &PathsArgs) -> Result<PathOptions, String> {
    if args.no_shrink && args.mode != PathMode::Global {
        return Err("--no-shrink applies to --mode global only".into());
    }
    if args.hammocks && args.mode == PathMode::Flat {
        return Err("--hammocks applies to the hierarchical modes (region, global)".into());
    }
    let regions = match &args.regions {
        Some(_) if args.mode == PathMode::Flat => {
            return Err("--regions applies to the hierarchical modes (region, global)".into())
        }
        Some(file) => {
            let text = fs::read_to_string(file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            profkit::paths::parse_regions(&text)
                .map_err(|e| format!("--regions {}: {e}", file.display()))?
        }
        None => Vec::new(),
    };
    Ok(PathOptions {
        hammocks: args.hammocks,
        no_shrink: args.no_shrink,
        regions,
        weights: None,
    })
}

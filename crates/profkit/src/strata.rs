//! `profkit strata`: the whole-program path profile of a run (hottest paths, strata and
//! stratum layers, phases, grammar), written with the ISAM file to a directory, and
//! queries of that file.

use std::fmt::Write as _;
use std::fs;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use clap::builder::RangedU64ValueParser;
use clap::Parser;

use ::strata::isam::IsamFile;
use ::strata::{Config, PhaseConfig, Signal, StrataSink};
use isa_emu::linux::{Input, Output};
use isa_emu::RunSummary;
use prof_events::CodeView;
use profkit::profile::{symbolize, thousands};

/// The ISAM file's name in the output directory.
const ISAM_FILE: &str = "strata.isam";
/// The log summary's name in the output directory.
const LOG_FILE: &str = "strata.log";
/// The grammar file's name in the output directory (`strata::grammar_file`).
const GRAMMAR_FILE: &str = "strata.grammar";

/// Most `--levels`: far more than programs repeat (layers of layers of strata), and few
/// enough that the level numbers fit the ISAM file's byte.
const MAX_LEVELS: u64 = 16;
/// Most `--buckets` per level: each bucket costs about 100 bytes up front, so 2^24 is some
/// 1.6 GB per level table.
const MAX_BUCKETS: u64 = 1 << 24;
/// Most buckets over all the level tables (some 6.4 GB).
const MAX_TOTAL_BUCKETS: usize = 1 << 26;

/// Arguments of `profkit strata`.
#[derive(Parser, Debug)]
pub struct StrataArgs {
    /// Directory to write the ISAM file and the log summary to.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Answer from the ISAM file in DIR instead of running a program.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    query: Option<PathBuf>,
    /// With --query: the instruction number to locate.
    #[arg(long, value_name = "N", requires = "query")]
    at: Option<u64>,
    /// Hottest paths and sequences to show.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Levels above the paths (1 = strata, 2 = strata and stratum layers, ...; 1 to 16:
    /// the ISAM file's records are level 1, and each level costs a table of --buckets).
    #[arg(long, default_value_t = 2, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_LEVELS))]
    levels: usize,
    /// Bound on stratum length (the spec's "4 or less"; at least 1); unbounded if absent.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    max_stratum: Option<usize>,
    /// Buckets per level table, 1 to 2^24 (fixed; fewer buckets make deeper chains, so sort
    /// passes and their reorder phase signal happen on smaller programs). All levels
    /// together (--levels + 1 tables) may have at most 2^26 buckets.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_BUCKETS))]
    buckets: usize,
    /// Phase interval in instructions (at least 1).
    #[arg(long, value_name = "N", default_value_t = 1 << 20, value_parser = RangedU64ValueParser::<u64>::new().range(1..))]
    interval: u64,
    #[command(flatten)]
    guest: crate::GuestOptions,
    /// The program to run.
    file: Option<PathBuf>,
    /// Its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// Parses `--max-stratum`: a bound of 0 would stop every stratum before it starts.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave --max-stratum out for no bound)".into()),
        n => n.map_err(|e| e.to_string()),
    }
}

/// Runs `profkit strata`; returns the exit status (the guest's, for a run).
pub fn run(args: &StrataArgs) -> Result<i32, String> {
    if let Some(dir) = &args.query {
        let at = args.at.ok_or("--query needs --at N")?;
        return query(dir, at);
    }
    let file = args
        .file
        .as_ref()
        .ok_or("strata needs a FILE to run (or --query DIR --at N)")?;
    let out = args.out.as_ref().ok_or("strata needs --out DIR")?;
    let tables = args.levels + 1;
    if tables.saturating_mul(args.buckets) > MAX_TOTAL_BUCKETS {
        return Err(format!(
            "--levels {} --buckets {} makes {tables} tables of {} buckets: at most {MAX_TOTAL_BUCKETS} buckets in all (some 100 bytes each); use fewer levels or buckets",
            args.levels, args.buckets, args.buckets
        ));
    }
    let (elf, name) = crate::read_guest(file)?;
    // Samples come every `progress::INTERVAL` instructions: the sink writes the ISAM
    // file's finished batches at each.
    let mut machine = crate::load_with(
        &elf,
        &name,
        &args.args,
        &args.guest,
        Input::Inherit,
        Output::Inherit,
    )?;
    let config = Config {
        upper_levels: args.levels,
        stratum_max_len: args.max_stratum,
        buckets: args.buckets,
        grammar: true,
        ..Config::default()
    };
    let phases = PhaseConfig {
        interval: args.interval,
        branch_threshold: args.interval / 20,
        ..PhaseConfig::default()
    };
    // The ISAM file is written while the guest runs (records at every sampling interrupt),
    // so an interrupted run leaves its readable prefix.
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let isam_path = out.join(ISAM_FILE);
    let cannot_write =
        |path: &Path, e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let file = fs::File::create(&isam_path).map_err(|e| cannot_write(&isam_path, e))?;
    let mut sink = StrataSink::new(&config, phases)
        .stream_to(BufWriter::new(file))
        .map_err(|e| cannot_write(&isam_path, e))?;
    let summary = machine.run(&mut sink);
    let bytes = sink
        .finish_file()
        .unwrap_or(Ok(0))
        .map_err(|e| cannot_write(&isam_path, e))?;
    let text = report(&name, &machine, &summary, &sink, args.top);
    let log_path = out.join(LOG_FILE);
    fs::write(&log_path, text.as_bytes()).map_err(|e| cannot_write(&log_path, e))?;
    let mut wrote = format!(
        "  wrote {} ({} records, {bytes} bytes), {}",
        isam_path.display(),
        sink.detector().records().len(),
        log_path.display()
    );
    if let Some(g) = sink.detector().grammar() {
        let grammar_path = out.join(GRAMMAR_FILE);
        let coded = g.encode();
        fs::write(&grammar_path, &coded).map_err(|e| cannot_write(&grammar_path, e))?;
        // The raw stream: 12 bytes per repeated path (path id u32, trip count u64).
        let raw = g.stats().input_len.saturating_mul(12);
        wrote += &format!(
            " and {} ({} bytes, {:.1}x smaller than the raw repeated-path stream)",
            grammar_path.display(),
            coded.len(),
            raw as f64 / coded.len().max(1) as f64
        );
    }
    wrote.push('\n');
    crate::emit(None, "report", &(text + &wrote))?;
    Ok(crate::guest_status(&summary))
}

/// The report printed and written to the log.
fn report(
    name: &str,
    code: &dyn CodeView,
    summary: &RunSummary,
    sink: &StrataSink,
    top: usize,
) -> String {
    let d = sink.detector();
    let mut out = String::new();
    let _ = writeln!(out, "== profkit strata of {name} ==");
    let _ = writeln!(
        out,
        "  instructions          {}",
        thousands(summary.instret)
    );
    let names = ["paths", "strata", "stratum layers"];
    for level in 0..d.levels() {
        let label = names
            .get(level)
            .map_or_else(|| format!("layers {level}"), |s| s.to_string());
        let _ = writeln!(
            out,
            "  {label:<21} {} distinct, {} closed, {} repeated units",
            thousands(d.distinct(level) as u64),
            thousands(d.closed(level)),
            thousands(d.emitted(level))
        );
    }
    let _ = writeln!(out, "\n-- hottest paths (heat x frequency) --");
    let mut paths = d.all_stats(0);
    paths.sort_by(|a, b| b.hotness().cmp(&a.hotness()).then(a.id.cmp(&b.id)));
    let total = summary.instret.max(1) as f64;
    for s in paths.iter().take(top) {
        let blocks = d.path(s.id).unwrap_or_default();
        let _ = writeln!(
            out,
            "  path {:<6} heat {:>4} x {:>12} trips = {:>14} ({:5.1}% of instructions), {} repeats, insns {}..{}",
            s.id,
            s.heat,
            thousands(s.trips),
            thousands(s.hotness().min(u128::from(u64::MAX)) as u64),
            100.0 * (s.insns * s.trips) as f64 / total,
            thousands(s.occurrences),
            thousands(s.first_insn),
            thousands(s.last_insn)
        );
        for &a in blocks.iter().take(8) {
            let w = sink.block_at(a).map_or(0, |b| b.weight);
            let _ = writeln!(out, "      {} (weight {w})", symbolize(code, a));
        }
        if blocks.len() > 8 {
            let _ = writeln!(out, "      ... {} blocks in all", blocks.len());
        }
    }
    if let Some(s) = paths.first() {
        let first = d.path(s.id).and_then(|p| p.first().copied());
        if let Some(a) = first {
            let _ = writeln!(out, "  disassembly of the hottest path's first block:");
            for line in sink.disassemble(code, a) {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
    for level in 1..d.levels() {
        let label = names.get(level).copied().unwrap_or("layers");
        let _ = writeln!(
            out,
            "\n-- hottest {label} (members: id^trips of the level below) --"
        );
        let mut seqs = d.all_stats(level);
        seqs.sort_by(|a, b| b.hotness().cmp(&a.hotness()).then(a.id.cmp(&b.id)));
        for s in seqs.iter().take(top.min(5)) {
            let members: Vec<String> = d
                .sequence(level, s.id)
                .unwrap_or_default()
                .iter()
                .take(8)
                .map(|r| format!("{}^{}", r.id, r.trips))
                .collect();
            let _ = writeln!(
                out,
                "  {:<6} {:>12} trips, {:>12} insns/trip, {:5.1}% of instructions: {}",
                s.id,
                thousands(s.trips),
                thousands(s.insns),
                100.0 * (s.insns * s.trips) as f64 / total,
                members.join(" ")
            );
        }
    }
    if let Some(g) = d.grammar() {
        let st = g.stats();
        let _ = writeln!(
            out,
            "\n-- grammar of the repeated-path stream (SEQUITUR) --"
        );
        let _ = writeln!(
            out,
            "  {} repeated paths -> {} symbols in {} rules ({:.1}x smaller)",
            thousands(st.input_len),
            thousands(st.symbols as u64),
            thousands(st.rules as u64),
            st.input_len as f64 / st.symbols.max(1) as f64
        );
        let heat = |r: &::strata::Rep| d.stats(0, r.id).map_or(0.0, |s| (s.insns * r.trips) as f64);
        for h in g.hot_rules(heat, top.min(5)) {
            let _ = writeln!(
                out,
                "  rule {:<6} {:>10} uses x {:>10} repeated paths, {:5.1}% of instructions",
                h.rule,
                thousands(h.uses),
                thousands(h.len),
                100.0 * h.heat() / total
            );
        }
    }
    let phases = sink.phases();
    let _ = writeln!(
        out,
        "\n-- phase changes (interval {} instructions) --",
        thousands(sink.phase_config().interval)
    );
    let count = |f: fn(&Signal) -> bool| phases.iter().filter(|p| f(&p.signal)).count();
    let _ = writeln!(
        out,
        "  {} in all: {} branch-count, {} working-set, {} reorder",
        phases.len(),
        count(|s| *s == Signal::BranchCount),
        count(|s| *s == Signal::WorkingSet),
        count(|s| matches!(s, Signal::Reorder(_)))
    );
    for p in phases.iter().take(20) {
        let _ = writeln!(out, "  at {:>14}  {}", thousands(p.insn), p.signal.name());
    }
    if phases.len() > 20 {
        let _ = writeln!(out, "  ... {} more", phases.len() - 20);
    }
    out
}

/// `profkit strata --query DIR --at N`.
fn query(dir: &Path, at: u64) -> Result<i32, String> {
    let path = dir.join(ISAM_FILE);
    let (file, damage) =
        IsamFile::open(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if let Some(e) = &damage {
        crate::note(&format!(
            "warning: {}: {e}; answering from the readable prefix ({} records)",
            path.display(),
            file.len()
        ));
    }
    match file.locate(at) {
        Some(loc) => {
            let r = loc.record;
            let mut out = String::new();
            let _ = writeln!(out, "instruction {at}:");
            let _ = writeln!(
                out,
                "  repeated stratum #{} (stratum {} x {} trips, instructions {}..{}, ends at path {} / stratum {}), trip {}",
                loc.record_no, r.stratum, r.trips, r.start_insn, r.end_insn, r.end_path, r.end_stratum,
                loc.within.as_ref().map_or_else(|| "?".into(), |w| w.stratum_trip.to_string())
            );
            match loc.within {
                Some(w) => {
                    let _ = writeln!(
                        out,
                        "  path {} (trip {} of its repeated path): {} blocks",
                        w.path,
                        w.path_trip,
                        w.path_blocks.len()
                    );
                    let blocks: Vec<String> =
                        w.path_blocks.iter().map(|a| format!("{a:#x}")).collect();
                    let _ = writeln!(out, "    {}", blocks.join(" "));
                    if let Some(b) = w.block {
                        let _ = writeln!(out, "  block {b:#x}");
                    }
                }
                None => {
                    let _ = writeln!(out, "  path: unknown (the level tables are not readable)");
                }
            }
            crate::write_report(&mut std::io::stdout().lock(), &out)
                .map_err(|e| format!("cannot write to stdout: {e}"))?;
            Ok(0)
        }
        None => Err(format!(
            "instruction {at} is not covered by {} ({} records)",
            path.display(),
            file.len()
        )),
    }
}

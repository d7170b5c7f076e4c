//! `profkit paths`: Ball-Larus path profiles (flat) and hierarchical path profiles
//! (region-based or global-based; regions are natural loops, plus single-entry single-exit
//! hammocks with `--hammocks`) of a whole program, from
//! [`cfg_bl`], rendered as text (hottest paths with symbols) or JSON.
//!
//! JSON schema: `{"mode", "stats", "functions": [{"name", "entry", "paths": [{"region",
//! "number", "count", "blocks"}]}]}`. `entry` is the function's address; `region` is 0 for
//! the function and `n` for the function's n-th region (loops, outermost first);
//! `number` is the path sum (a JSON number when it fits in 64 bits, else a decimal string);
//! `blocks` lists the path's blocks in order as start addresses, an inner region as
//! `{"region": n}`. Paths of a function are sorted by count, descending.

use std::fmt::Write as _;

use cfg_bl::sink::{PathSink, RegionChoice, Stats};
use cfg_bl::{Child, Mode, Program};
use isa_emu::Machine;
use prof_events::CodeView;
use serde_json::{json, Value};

use crate::profile::thousands;

/// The path profiling scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PathMode {
    /// Ball and Larus' flat path profile (backedges end paths).
    Flat,
    /// Hierarchical, one counter table per loop region.
    Region,
    /// Hierarchical, one sparse table per function (shrunk augmented graph).
    Global,
}

impl PathMode {
    fn parts(self) -> (Mode, RegionChoice) {
        match self {
            PathMode::Flat => (Mode::RegionBased, RegionChoice::Flat),
            PathMode::Region => (Mode::RegionBased, RegionChoice::Loops),
            PathMode::Global => (Mode::GlobalBased { shrink: true }, RegionChoice::Loops),
        }
    }

    fn name(self) -> &'static str {
        match self {
            PathMode::Flat => "flat",
            PathMode::Region => "region-based",
            PathMode::Global => "global-based",
        }
    }
}

/// A path sink for `machine`'s program: recovers every function (and the ELF entry).
/// With `hammocks`, hierarchical modes also make single-entry single-exit hammocks regions.
pub fn sink(machine: &Machine, mode: PathMode, hammocks: bool) -> PathSink {
    let program = Program::recover(machine, &[machine.image().entry]);
    let (m, mut r) = mode.parts();
    if hammocks && r == RegionChoice::Loops {
        r = RegionChoice::LoopsAndHammocks;
    }
    PathSink::new(program, m, r)
}

/// One counted path, ready to print.
struct Row {
    function: usize,
    region: usize,
    number: u128,
    count: u64,
    blocks: Vec<Child>,
}

/// A finished run's path profile.
pub struct PathReport<'a> {
    machine: &'a Machine,
    sink: &'a PathSink,
    mode: PathMode,
    rows: Vec<Row>,
}

impl<'a> PathReport<'a> {
    /// Collects the counted paths of `sink` (which ran on `machine`).
    pub fn new(machine: &'a Machine, sink: &'a PathSink, mode: PathMode) -> Self {
        let mut rows: Vec<Row> = sink
            .paths()
            .into_iter()
            .map(|(function, p, number, count)| Row {
                function,
                region: p.region,
                number,
                count,
                blocks: p
                    .children
                    .into_iter()
                    .filter(|c| !matches!(c, Child::Block(b) if b.index() < 2))
                    .collect(),
            })
            .collect();
        rows.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(a.function.cmp(&b.function))
                .then(a.region.cmp(&b.region))
                .then(a.number.cmp(&b.number))
        });
        PathReport {
            machine,
            sink,
            mode,
            rows,
        }
    }

    fn block_addr(&self, f: usize, c: Child) -> Option<u64> {
        let inst = self.sink.functions.get(f)?.inst.as_ref()?;
        match c {
            Child::Block(b) => Some(inst.hier.cfg.graph[b].start),
            Child::Region(_) => None,
        }
    }

    fn render(&self, row: &Row) -> String {
        row.blocks
            .iter()
            .map(|&c| match (c, self.block_addr(row.function, c)) {
                (Child::Region(r), _) => format!("[R{r}]"),
                (_, Some(a)) => match self.machine.symbol(a) {
                    Some((s, off)) => format!("{s}+{off:#x}"),
                    None => format!("{a:#x}"),
                },
                _ => "?".to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn stats_text(stats: &Stats) -> String {
        format!(
            "{} truncated, {} unfollowed transfers, {} functions not instrumented, {} events outside known code",
            stats.truncated, stats.desync, stats.failed_functions, stats.unknown_events
        )
    }

    /// The hottest `top` paths with symbols.
    pub fn to_text(&self, top: usize) -> String {
        let total: u64 = self.rows.iter().map(|r| r.count).sum();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} path profile: {} distinct paths, {} path executions ({})",
            self.mode.name(),
            thousands(self.rows.len() as u64),
            thousands(total),
            Self::stats_text(&self.sink.stats)
        );
        let _ = writeln!(s, "{:>14}  {:>6}  function / region: path", "count", "%");
        for row in self.rows.iter().take(top) {
            let name = self
                .sink
                .functions
                .get(row.function)
                .and_then(|f| f.inst.as_ref())
                .map_or("?", |i| i.hier.cfg.name.as_str());
            let pct = 100.0 * row.count as f64 / total.max(1) as f64;
            let _ = writeln!(
                s,
                "{:>14}  {pct:>5.1}%  {name} / R{}: {}",
                thousands(row.count),
                row.region,
                self.render(row)
            );
        }
        s
    }

    /// The JSON document described in the module docs.
    pub fn to_json(&self) -> String {
        let mut functions: Vec<Value> = Vec::new();
        for (f, func) in self.sink.functions.iter().enumerate() {
            let Some(inst) = &func.inst else { continue };
            let paths: Vec<Value> = self
                .rows
                .iter()
                .filter(|r| r.function == f)
                .map(|r| {
                    let number = u64::try_from(r.number)
                        .map_or_else(|_| json!(r.number.to_string()), |n| json!(n));
                    let blocks: Vec<Value> = r
                        .blocks
                        .iter()
                        .map(|&c| match (c, self.block_addr(f, c)) {
                            (Child::Region(id), _) => json!({ "region": id }),
                            (_, a) => json!(a),
                        })
                        .collect();
                    json!({ "region": r.region, "number": number, "count": r.count, "blocks": blocks })
                })
                .collect();
            if paths.is_empty() {
                continue;
            }
            functions.push(json!({
                "name": inst.hier.cfg.name,
                "entry": inst.hier.cfg.addr,
                "paths": paths,
            }));
        }
        let st = &self.sink.stats;
        let doc = json!({
            "mode": self.mode.name(),
            "stats": {
                "truncated": st.truncated,
                "desync": st.desync,
                "failed_functions": st.failed_functions,
                "unknown_events": st.unknown_events,
            },
            "functions": functions,
        });
        let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
        out.push('\n');
        out
    }
}

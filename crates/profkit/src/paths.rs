//! `profkit paths`: Ball-Larus path profiles (flat) and hierarchical path profiles
//! (region-based or global-based; regions are natural loops, plus single-entry single-exit
//! hammocks with `--hammocks`, or given per function in a file with `--regions`) of a whole
//! program, from [`cfg_bl`], rendered as text (hottest paths with symbols) or JSON.
//!
//! JSON schema: `{"mode", "options", "stats", "functions": [{"name", "entry", "restarts",
//! "paths": [{"region", "number", "count", "blocks"}]}]}`. `options` records what shaped
//! the profile: `hammocks` (bool), `shrink` (bool, global mode; `null` otherwise),
//! `weights` (`"estimate"` or `"measured"`) and `user_regions` (the functions a regions
//! file named, as given). `entry` is the function's address; `restarts` is true where the
//! function has an indirect jump whose targets were not resolved (no `switch` jump table
//! that the emulator's code view resolves): its paths end at such a jump and restart at
//! the target. `region` is 0 for the function and `n` for the function's n-th region
//! (larger regions first: loops, outermost first); `number` is the path sum (a JSON
//! number when it fits in 64 bits, else a decimal string); `blocks` lists the path's
//! blocks in order as start addresses, an inner region as `{"region": n}`. Paths of a
//! function are sorted by count, descending.
//!
//! Regions file (`--regions FILE`, [`parse_regions`]): a JSON object whose keys name
//! functions, by symbol or by entry address, and whose values list that function's regions,
//! each a list of the start addresses of its blocks (the addresses that `blocks` of a
//! `--json` profile shows). Addresses are JSON numbers or strings, `"0x..."` hexadecimal or
//! decimal. Regions must be nested or disjoint; an empty list profiles the function flat.
//! The functions the file names get exactly its regions, the others those of the mode:
//!
//! ```json
//! { "main": [["0x10450", "0x1045c"], ["0x1045c"]], "0x10500": [[66816, 66820]] }
//! ```

use std::collections::BTreeSet;
use std::fmt::Write as _;

use cfg_bl::sink::{EdgeProfile, PathSink, RegionChoice, Stats};
use cfg_bl::{Child, LazyProgram, Mode};
use isa_emu::Machine;
use prof_events::CodeView;
use serde::Serialize;
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
    fn name(self) -> &'static str {
        match self {
            PathMode::Flat => "flat",
            PathMode::Region => "region-based",
            PathMode::Global => "global-based",
        }
    }
}

/// What `profkit paths` profiles with, besides the mode.
#[derive(Clone, Debug, Default)]
pub struct PathOptions {
    /// Hierarchical modes also make single-entry single-exit hammocks regions.
    pub hammocks: bool,
    /// Global mode keeps every prolog and epilog edge ([`Mode::GlobalBased`] `{ shrink:
    /// false }`) instead of only the representative ones.
    pub no_shrink: bool,
    /// Regions given per function (see [`parse_regions`]).
    pub regions: UserRegions,
    /// A measured edge profile to place increments by (else the static estimate).
    pub weights: Option<EdgeProfile>,
}

impl PathOptions {
    /// The options as the JSON profile's `options` object (for `mode`).
    fn to_json(&self, mode: PathMode) -> Value {
        let user_regions: Vec<Value> = self
            .regions
            .iter()
            .map(|(f, _)| match f {
                FunctionRef::Name(n) => json!(n),
                FunctionRef::Entry(a) => json!(format!("{a:#x}")),
            })
            .collect();
        json!({
            "hammocks": self.hammocks,
            "shrink": (mode == PathMode::Global).then_some(!self.no_shrink),
            "weights": self.weights_name(),
            "user_regions": user_regions,
        })
    }

    fn weights_name(&self) -> &'static str {
        if self.weights.is_some() {
            "measured"
        } else {
            "estimate"
        }
    }

    /// The options that differ from the defaults, for the text report's header.
    fn summary(&self, mode: PathMode) -> String {
        let mut parts = vec![format!("weights {}", self.weights_name())];
        if self.hammocks {
            parts.push("hammocks".into());
        }
        if mode == PathMode::Global && self.no_shrink {
            parts.push("no shrink".into());
        }
        if !self.regions.is_empty() {
            parts.push(format!("user regions in {} functions", self.regions.len()));
        }
        parts.join(", ")
    }

    /// The sink's mode and region choice for `mode`.
    fn parts(&self, mode: PathMode) -> (Mode, RegionChoice) {
        let auto = if self.hammocks {
            RegionChoice::LoopsAndHammocks
        } else {
            RegionChoice::Loops
        };
        match mode {
            PathMode::Flat => (Mode::RegionBased, RegionChoice::Flat),
            PathMode::Region => (Mode::RegionBased, auto),
            PathMode::Global => (
                Mode::GlobalBased {
                    shrink: !self.no_shrink,
                },
                auto,
            ),
        }
    }
}

/// Regions given per function: each region a list of block start addresses.
pub type UserRegions = Vec<(FunctionRef, Vec<Vec<u64>>)>;

/// A function named in a regions file: by symbol or by entry address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionRef {
    /// The function's symbol.
    Name(String),
    /// The function's entry address.
    Entry(u64),
}

/// An address: a JSON number, or a string in hexadecimal (`0x...`) or decimal.
fn address(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Parses a regions file (format in the module docs): per function, its regions as lists
/// of block start addresses. Errors say where the file is wrong.
pub fn parse_regions(text: &str) -> Result<UserRegions, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(functions) = doc else {
        return Err(
            "expected an object from function names or entry addresses to lists of regions".into(),
        );
    };
    let mut out = Vec::with_capacity(functions.len());
    for (key, value) in functions {
        let function = match address(&key) {
            Some(a) if key.starts_with(|c: char| c.is_ascii_digit()) => FunctionRef::Entry(a),
            _ => FunctionRef::Name(key.clone()),
        };
        let Value::Array(list) = value else {
            return Err(format!("{key}: expected a list of regions"));
        };
        let mut regions = Vec::with_capacity(list.len());
        for (i, region) in list.iter().enumerate() {
            let Value::Array(blocks) = region else {
                return Err(format!(
                    "{key}: region {i}: expected a list of block start addresses"
                ));
            };
            let mut addrs = Vec::with_capacity(blocks.len());
            for b in blocks {
                let a = match b {
                    Value::Number(n) => n.as_u64(),
                    Value::String(s) => address(s),
                    _ => None,
                };
                addrs.push(a.ok_or_else(|| {
                    format!(
                        "{key}: region {i}: {b} is not an address (a number, \"0x...\" or decimal)"
                    )
                })?);
            }
            regions.push(addrs);
        }
        out.push((function, regions));
    }
    Ok(out)
}

/// The entry address of function `f` of `program`.
fn resolve(program: &LazyProgram, f: &FunctionRef) -> Result<u64, String> {
    let functions = program.functions();
    match f {
        FunctionRef::Entry(a) if functions.iter().any(|(e, _)| e == a) => Ok(*a),
        FunctionRef::Entry(a) => Err(format!("no function starts at {a:#x}")),
        FunctionRef::Name(n) => {
            let mut found = functions.iter().filter(|(_, name)| name == n);
            match (found.next(), found.next()) {
                (Some(&(entry, _)), None) => Ok(entry),
                (Some(_), Some(_)) => Err(format!(
                    "{n}: several functions have this name; give the entry address"
                )),
                (None, _) => Err(format!("{n}: no such function")),
            }
        }
    }
}

/// A path sink for `machine`'s program in `mode` with `options`: its functions (and the
/// ELF entry) are recovered on their first call. Fails if a function of `options.regions` does not exist or its
/// regions cannot be profiled, or the edge profile does not fit the program.
pub fn sink(machine: &Machine, mode: PathMode, options: &PathOptions) -> Result<PathSink, String> {
    let image = machine.image();
    let program = LazyProgram::new(image.clone(), &[image.entry]);
    let mut entries = Vec::with_capacity(options.regions.len());
    for (f, _) in &options.regions {
        let entry = resolve(&program, f)?;
        if entries.contains(&entry) {
            return Err(format!("the function at {entry:#x} is given twice"));
        }
        entries.push(entry);
    }
    let (m, r) = options.parts(mode);
    let mut sink = PathSink::lazy(program, m, r);
    for (entry, (_, regions)) in entries.into_iter().zip(&options.regions) {
        sink.set_regions(entry, regions)
            .map_err(|e| e.to_string())?;
    }
    if let Some(profile) = &options.weights {
        sink.set_edge_profile(profile).map_err(|e| e.to_string())?;
    }
    Ok(sink)
}

/// One counted path, ready to print.
struct Row {
    function: usize,
    region: usize,
    number: u128,
    count: u64,
    blocks: Vec<Child>,
}

/// The JSON profile, written straight from these (a tree of `serde_json::Value`s took
/// two thirds of the instructions of `paths --json` on chase 250000's 16 568 paths). Fields
/// are in the document's key order, which is sorted.
#[derive(Serialize)]
struct JsonProfile<'a> {
    functions: Vec<JsonFunction<'a>>,
    mode: &'a str,
    options: Value,
    stats: Value,
}

#[derive(Serialize)]
struct JsonFunction<'a> {
    entry: u64,
    name: &'a str,
    paths: Vec<JsonPath>,
    restarts: bool,
}

#[derive(Serialize)]
struct JsonPath {
    blocks: Vec<JsonBlock>,
    count: u64,
    number: JsonNumber,
    region: usize,
}

/// A path's block: its address, or an inner region as `{"region": id}`.
#[derive(Serialize)]
#[serde(untagged)]
enum JsonBlock {
    Addr(Option<u64>),
    Region { region: usize },
}

/// A path's sum: a number where it fits 64 bits, else its decimal digits.
#[derive(Serialize)]
#[serde(untagged)]
enum JsonNumber {
    Small(u64),
    Wide(String),
}

/// A finished run's path profile.
pub struct PathReport<'a> {
    machine: &'a Machine,
    sink: &'a PathSink,
    mode: PathMode,
    options: &'a PathOptions,
    rows: Vec<Row>,
}

impl<'a> PathReport<'a> {
    /// Collects the counted paths of `sink` (which ran on `machine` in `mode` with
    /// `options`).
    pub fn new(
        machine: &'a Machine,
        sink: &'a PathSink,
        mode: PathMode,
        options: &'a PathOptions,
    ) -> Self {
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
            options,
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
        let profiled: BTreeSet<usize> = self.rows.iter().map(|r| r.function).collect();
        let restarting = profiled.into_iter().filter(|&f| {
            let inst = self.sink.functions.get(f).and_then(|f| f.inst.as_ref());
            inst.is_some_and(|i| i.hier.cfg.restarts())
        });
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} path profile ({}): {} distinct paths, {} path executions ({}; {} of the functions \
             restart paths at indirect jumps not resolved)",
            self.mode.name(),
            self.options.summary(self.mode),
            thousands(self.rows.len() as u64),
            thousands(total),
            Self::stats_text(&self.sink.stats),
            restarting.count()
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
        let mut functions = Vec::new();
        for (f, func) in self.sink.functions.iter().enumerate() {
            let Some(inst) = &func.inst else { continue };
            let paths: Vec<JsonPath> = self
                .rows
                .iter()
                .filter(|r| r.function == f)
                .map(|r| JsonPath {
                    blocks: r
                        .blocks
                        .iter()
                        .map(|&c| match c {
                            Child::Region(id) => JsonBlock::Region { region: id },
                            _ => JsonBlock::Addr(self.block_addr(f, c)),
                        })
                        .collect(),
                    count: r.count,
                    number: u64::try_from(r.number).map_or_else(
                        |_| JsonNumber::Wide(r.number.to_string()),
                        JsonNumber::Small,
                    ),
                    region: r.region,
                })
                .collect();
            if paths.is_empty() {
                continue;
            }
            functions.push(JsonFunction {
                entry: inst.hier.cfg.addr,
                name: &inst.hier.cfg.name,
                paths,
                restarts: inst.hier.cfg.restarts(),
            });
        }
        let st = &self.sink.stats;
        let doc = JsonProfile {
            functions,
            mode: self.mode.name(),
            options: self.options.to_json(self.mode),
            stats: json!({
                "truncated": st.truncated,
                "desync": st.desync,
                "failed_functions": st.failed_functions,
                "unknown_events": st.unknown_events,
            }),
        };
        let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path writes the object the schema gives: sorted keys, a sum beyond 64 bits as its
    /// digits, an inner region as `{"region": id}` and a block with no address as `null`.
    #[test]
    fn a_json_path_is_the_schemas_object() {
        let wide = u128::from(u64::MAX) + 1;
        let path = JsonPath {
            blocks: vec![
                JsonBlock::Addr(Some(0x1000)),
                JsonBlock::Region { region: 2 },
                JsonBlock::Addr(None),
            ],
            count: 7,
            number: JsonNumber::Wide(wide.to_string()),
            region: 1,
        };
        let expected = json!({
            "region": 1,
            "number": "18446744073709551616",
            "count": 7,
            "blocks": [4096, {"region": 2}, null],
        });
        let text = serde_json::to_string_pretty(&path).unwrap();
        assert_eq!(text, serde_json::to_string_pretty(&expected).unwrap());
        let small = serde_json::to_string(&JsonNumber::Small(5)).unwrap();
        assert_eq!(small, "5");
    }
}

//! The profile in callgrind's format (version 1), which KCachegrind, QCachegrind and
//! `callgrind_annotate` open: instructions executed (`Ir`) per instruction address,
//! grouped by function, with every call arc's count and inclusive cost.
//!
//! Positions are instruction addresses (`positions: instr`), so tools show costs on the
//! disassembly; there is no line information (the guests carry no debug info we read).
//! A call arc's cost is the inclusive cost of its calls, recursive ones included, as in
//! Callgrind's own files: summing a recursive function's arcs counts nested calls again
//! (`callgrind_annotate --inclusive=yes` then shows it above 100%, as it does for
//! Callgrind's output), and KCachegrind's cycle detection accounts for it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use prof_events::CodeView;

use super::{ArcCost, BlockProfile, CallArc, CallGraph};

/// Instructions executed at each address: every execution of a block executes each of
/// its instructions once.
fn self_costs(code: &dyn CodeView, blocks: &BlockProfile) -> BTreeMap<u64, u64> {
    let mut costs = BTreeMap::new();
    for b in blocks.hottest() {
        let mut addr = b.info.start;
        while addr < b.info.end {
            *costs.entry(addr).or_insert(0) += b.executions;
            match code.insn(addr) {
                Some(i) if i.len > 0 => addr += u64::from(i.len),
                _ => break,
            }
        }
    }
    costs
}

/// A function: its start (the symbol's address) and name; code outside every symbol goes
/// to one function named `???` (callgrind's name for the unknown).
fn function_of(code: &dyn CodeView, addr: u64) -> (u64, String) {
    match code.symbol(addr) {
        Some((name, off)) => (addr - off, name.to_string()),
        None => (u64::MAX, "???".to_string()),
    }
}

/// A function's part of the file: its name, its instructions' costs (address, cost) and
/// its call arcs with their callees' names.
#[derive(Default)]
struct Function {
    name: String,
    lines: Vec<(u64, u64)>,
    arcs: Vec<(CallArc, ArcCost, String)>,
}

impl Function {
    /// The function holding `addr` in `functions` (keyed by start address), added if new.
    fn of<'a>(
        functions: &'a mut BTreeMap<u64, Function>,
        code: &dyn CodeView,
        addr: u64,
    ) -> &'a mut Function {
        let (start, name) = function_of(code, addr);
        functions.entry(start).or_insert_with(|| Function {
            name,
            ..Function::default()
        })
    }
}

/// Names as callgrind's compressed `(id) name` on first use and `(id)` after.
#[derive(Default)]
struct Names(BTreeMap<String, usize>);

impl Names {
    fn get(&mut self, name: &str) -> String {
        if let Some(id) = self.0.get(name) {
            return format!("({id})");
        }
        let id = self.0.len() + 1;
        self.0.insert(name.to_string(), id);
        format!("({id}) {name}")
    }
}

/// The callgrind file of a run of `cmd` (the program and its arguments, for the header)
/// from its block profile and call graph.
pub fn render_callgrind(
    cmd: &str,
    code: &dyn CodeView,
    blocks: &BlockProfile,
    calls: &CallGraph,
) -> String {
    let costs = self_costs(code, blocks);
    let total: u64 = costs.values().sum();
    // By function start address, so the file's order is the program's.
    let mut functions: BTreeMap<u64, Function> = BTreeMap::new();
    for (&addr, &cost) in &costs {
        Function::of(&mut functions, code, addr)
            .lines
            .push((addr, cost));
    }
    for (arc, cost) in calls.arcs() {
        let callee = function_of(code, arc.callee).1;
        Function::of(&mut functions, code, arc.site)
            .arcs
            .push((arc, cost, callee));
    }

    let mut out = String::new();
    let _ = writeln!(out, "# callgrind format");
    let _ = writeln!(out, "version: 1");
    let _ = writeln!(out, "creator: profkit {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(out, "cmd: {cmd}");
    let _ = writeln!(out, "positions: instr");
    let _ = writeln!(out, "events: Ir");
    let _ = writeln!(out, "summary: {total}");
    let _ = writeln!(out);
    let program = cmd.split(' ').next().unwrap_or(cmd);
    let _ = writeln!(out, "ob={program}");
    let _ = writeln!(out, "fl=???");
    let mut names = Names::default();
    for Function { name, lines, arcs } in functions.values() {
        let _ = writeln!(out, "fn={}", names.get(name));
        for (addr, cost) in lines {
            let _ = writeln!(out, "{addr:#x} {cost}");
        }
        for (arc, cost, callee) in arcs {
            let _ = writeln!(out, "cfn={}", names.get(callee));
            let _ = writeln!(out, "calls={} {:#x}", cost.calls, arc.callee);
            let _ = writeln!(out, "{:#x} {}", arc.site, cost.inclusive);
        }
    }
    let _ = writeln!(out, "totals: {total}");
    out
}

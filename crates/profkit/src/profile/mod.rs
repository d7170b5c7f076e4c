//! The whole-program profile that `profkit run` prints: run summary, hottest blocks with
//! symbols and disassembly, system calls; and, for profiling tools, the same run in
//! callgrind's format with its call graph.

mod blocks;
mod callgrind;
mod calls;

pub use blocks::{render_hot_blocks, symbolize, thousands, BlockProfile, HotBlock};
pub use callgrind::render_callgrind;
pub use calls::{ArcCost, CallArc, CallGraph, MAX_DEPTH};

use std::fmt::Write as _;

use isa_emu::linux::Linux;
use isa_emu::{Machine, Outcome, RunSummary};
use prof_events::CodeView;

/// A finished run's profile, ready to render as text or JSON.
pub struct Report<'a> {
    name: &'a str,
    machine: &'a Machine,
    summary: &'a RunSummary,
    profile: &'a BlockProfile,
    top: usize,
}

impl<'a> Report<'a> {
    /// Collects what to report about `machine`'s run of `name`.
    pub fn new(
        name: &'a str,
        machine: &'a Machine,
        summary: &'a RunSummary,
        profile: &'a BlockProfile,
        top: usize,
    ) -> Self {
        Report {
            name,
            machine,
            summary,
            profile,
            top,
        }
    }

    fn outcome_text(&self) -> String {
        match self.summary.outcome {
            Outcome::Exited(c) => format!("exited with status {c}"),
            Outcome::Fault(f) => format!("faulted: {f}"),
            Outcome::FuelExhausted => "stopped: instruction limit reached".into(),
            Outcome::Stopped => "stopped by a sink".into(),
            Outcome::UnsupportedHtif(v) => format!("stopped: unsupported HTIF request {v:#x}"),
        }
    }

    fn syscall_rows(&self) -> Vec<(String, u64, u64)> {
        self.profile
            .syscalls()
            .iter()
            .map(|(&n, &count)| {
                let name = Linux::syscall_name(n).map_or_else(|| format!("#{n}"), str::to_string);
                (name, n, count)
            })
            .collect()
    }

    /// The profile as readable text.
    pub fn to_text(&self) -> String {
        let s = self.summary;
        let mut out = String::new();
        let _ = writeln!(out, "== profkit profile of {} ==", self.name);
        let _ = writeln!(out, "  outcome               {}", self.outcome_text());
        let _ = writeln!(out, "  instructions retired  {}", thousands(s.instret));
        let _ = writeln!(
            out,
            "  blocks                {} translated, {} executed",
            thousands(s.blocks_translated),
            thousands(self.profile.blocks_executed() as u64)
        );
        let _ = writeln!(out, "  block cache           {} KiB", s.cache_bytes / 1024);
        if s.cache_flushes > 0 {
            let _ = writeln!(out, "  cache flushes         {}", s.cache_flushes);
        }
        let _ = writeln!(out);
        out.push_str(&render_hot_blocks(
            self.profile,
            self.machine,
            s.instret,
            self.top,
        ));
        let rows = self.syscall_rows();
        if !rows.is_empty() {
            let _ = writeln!(out, "\nsystem calls:");
            for (name, n, count) in &rows {
                let _ = writeln!(out, "  {name:<20} ({n:>3})  {:>10}", thousands(*count));
            }
        }
        if let Some(linux) = self.machine.linux_env() {
            let unknown = linux.unknown_syscalls();
            if !unknown.is_empty() {
                let list: Vec<String> = unknown.iter().map(|(n, c)| format!("#{n} x{c}")).collect();
                let _ = writeln!(out, "  unsupported (answered ENOSYS): {}", list.join(", "));
            }
        }
        out
    }

    /// The profile as a JSON document.
    pub fn to_json(&self) -> String {
        let s = self.summary;
        let hot: Vec<serde_json::Value> = self
            .profile
            .hottest()
            .iter()
            .take(self.top)
            .map(|b| {
                let sym = self.machine.symbol(b.info.start);
                serde_json::json!({
                    "start": b.info.start,
                    "end": b.info.end,
                    "insns": b.info.insns,
                    "executions": b.executions,
                    "instructions": b.instructions,
                    "symbol": sym.map(|(n, _)| n),
                    "offset": sym.map(|(_, o)| o),
                })
            })
            .collect();
        let syscalls: Vec<serde_json::Value> = self
            .syscall_rows()
            .into_iter()
            .map(|(name, n, count)| serde_json::json!({"name": name, "number": n, "count": count}))
            .collect();
        let (exit_code, fault) = match s.outcome {
            Outcome::Fault(f) => (serde_json::Value::Null, Some(f.to_string())),
            o => (o.exit_code().into(), None),
        };
        let doc = serde_json::json!({
            "program": self.name,
            "outcome": self.outcome_text(),
            "exit_code": exit_code,
            "fault": fault,
            "instructions": s.instret,
            "blocks_translated": s.blocks_translated,
            "blocks_executed": self.profile.blocks_executed(),
            "hot_blocks": hot,
            "syscalls": syscalls,
        });
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }
}

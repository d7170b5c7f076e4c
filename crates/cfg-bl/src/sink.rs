//! The runtime: a [`Sink`] that executes the plans of recovered functions on the emulator's
//! edge events, with one activation (running sum and stack of saved outer sums) per call.
//!
//! The emulator's blocks end only at control transfers, so one emulator block may span several
//! recovered blocks (split at branch targets): on each edge event the sink first follows the
//! fall-through edges inside the emulator block, then the transfer itself. Calls push an
//! activation of the callee (or an opaque one for code outside every recovered function);
//! returns pop to the activation waiting for that return address, each popped activation
//! ending its paths at the virtual exit. A jump or branch to another function's entry is a
//! tail call; an indirect jump inside a function with [`EdgeKind::Resync`] edges ends the
//! activation's paths and restarts at the target. At the end of the run every activation
//! ends its paths where it stands (calls and system calls may end the program, so those
//! blocks have exit edges). Anything else the sink cannot follow is counted in [`Stats`]
//! and the activation's open paths are dropped.

use std::collections::HashMap;

use petgraph::graph::{EdgeIndex, NodeIndex};
use prof_events::{BlockId, BlockInfo, Control, Edge, EdgeKind as EmuEdge, Exit};
use prof_events::{Interest, Sink};

use crate::cfg::{Cfg, EdgeKind};
use crate::hier::Hierarchy;
use crate::plan::{HierPath, Instrumented, Mode, Weights};
use crate::recover::Program;
use crate::runtime::{Activation, Counters};
use crate::structure::RegionTree;

/// Which regions to profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionChoice {
    /// Only the function: Ball and Larus' flat path profile (backedges end paths).
    Flat,
    /// The function and its natural loops.
    Loops,
    /// The function, its natural loops and single-entry single-exit hammocks.
    LoopsAndHammocks,
}

/// Counts of events the sink could not follow (all zero on a clean run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Activations whose open paths were dropped (no exit edge where they stood).
    pub truncated: u64,
    /// Transfers that matched no CFG edge, call or return.
    pub desync: u64,
    /// Functions that could not be instrumented (too many paths, malformed regions).
    pub failed_functions: u64,
    /// Edge events of code outside every recovered function.
    pub unknown_events: u64,
}

/// One recovered function with its plan and counters (instrumented on first call).
#[derive(Debug)]
pub struct Function {
    /// The plan (and CFG, regions, numbering); `None` until called, or if it failed.
    pub inst: Option<Instrumented>,
    /// Why instrumentation failed.
    pub error: Option<String>,
    /// The counters.
    pub counters: Option<Counters>,
    /// Per CFG edge: how often the runtime took it (the observed edge profile), if the sink
    /// records edges ([`PathSink::record_edges`]).
    pub edge_counts: Vec<u64>,
    /// Activations started and ended at the virtual exit.
    pub starts: u64,
    /// Activations that ended their paths at the virtual exit.
    pub ends: u64,
    cfg: Option<Cfg>,
    node_at: HashMap<u64, NodeIndex>,
    /// The edge from the virtual entry to the entry block.
    start: Option<(EdgeIndex, NodeIndex)>,
    /// Per node: its end address.
    node_end: Vec<u64>,
    /// Per node: the fall-through flow edge into the block at its end address.
    fall: Vec<Option<(usize, NodeIndex)>>,
    /// Per node: its edge to the virtual exit.
    leave: Vec<Option<usize>>,
    /// Per node: flow edges `(target start, edge, target)`.
    flows: Vec<Vec<(u64, usize, NodeIndex)>>,
    resync: HashMap<NodeIndex, usize>,
}

#[derive(Clone, Debug)]
struct Act {
    /// Function index, or `None` for code outside every recovered function.
    func: Option<usize>,
    node: NodeIndex,
    /// Where the caller resumes.
    ret: Option<u64>,
    state: Activation,
}

/// The hierarchical path profiling sink.
#[derive(Debug)]
pub struct PathSink {
    /// The functions, in [`Program`] order.
    pub functions: Vec<Function>,
    by_entry: HashMap<u64, usize>,
    mode: Mode,
    regions: RegionChoice,
    blocks: Vec<(u64, u64)>,
    acts: Vec<Act>,
    /// Stacks of finished activations, reused.
    spare: Vec<Vec<u128>>,
    /// What could not be followed.
    pub stats: Stats,
    /// Also count every CFG edge taken into [`Function::edge_counts`] (for checking the
    /// path profile against the edge profile; off by default, it costs time).
    pub record_edges: bool,
    /// The first few transfers that could not be followed: function, block start, target,
    /// kind.
    pub desync_samples: Vec<(String, u64, u64, EmuEdge)>,
}

impl PathSink {
    /// A sink profiling `program` in `mode` with regions chosen by `regions`.
    pub fn new(program: Program, mode: Mode, regions: RegionChoice) -> PathSink {
        let functions = program.functions.into_iter().map(Function::new).collect();
        PathSink {
            functions,
            by_entry: program.by_entry,
            mode,
            regions,
            blocks: Vec::new(),
            acts: Vec::new(),
            spare: Vec::new(),
            stats: Stats::default(),
            record_edges: false,
            desync_samples: Vec::new(),
        }
    }

    fn ensure(&mut self, f: usize) -> bool {
        let mode = self.mode;
        let regions = self.regions;
        let Some(func) = self.functions.get_mut(f) else {
            return false;
        };
        if let Some(cfg) = func.cfg.take() {
            let tree = match regions {
                RegionChoice::Flat => RegionTree::flat(&cfg),
                RegionChoice::Loops => RegionTree::loops(&cfg),
                RegionChoice::LoopsAndHammocks => RegionTree::loops_and_hammocks(&cfg),
            };
            let built = Hierarchy::new(cfg, tree)
                .and_then(|h| Instrumented::new(h, mode, &Weights::Estimate));
            match built {
                Ok(inst) => {
                    func.counters = Some(Counters::new(&inst));
                    func.inst = Some(inst);
                }
                Err(e) => {
                    func.error = Some(e.to_string());
                    self.stats.failed_functions += 1;
                }
            }
        }
        func.inst.is_some()
    }

    /// Starts an activation of function `f` at its entry block.
    fn start(&mut self, f: Option<usize>, ret: Option<u64>) {
        let mut act = Act {
            func: None,
            node: Cfg::entry(),
            ret,
            state: Activation {
                sum: 0,
                stack: self.spare.pop().unwrap_or_default(),
            },
        };
        if let Some(f) = f.filter(|&f| self.ensure(f)) {
            let func = &mut self.functions[f];
            if let (Some(inst), Some(counters)) = (&func.inst, &mut func.counters) {
                if let Some((e, w)) = func.start {
                    act.state.run(&inst.start_ops, counters);
                    act.state.run(inst.ops_for(e.index()), counters);
                    if self.record_edges {
                        func.edge_counts[e.index()] += 1;
                    }
                    func.starts += 1;
                    act.func = Some(f);
                    act.node = w;
                }
            }
        }
        self.acts.push(act);
    }

    /// Pops the top activation, keeping its stack's memory for the next one; returns where
    /// its caller resumes.
    fn pop_act(&mut self) -> Option<u64> {
        let mut act = self.acts.pop()?;
        act.state.stack.clear();
        self.spare.push(std::mem::take(&mut act.state.stack));
        act.ret
    }

    /// Takes CFG edge `e` to `w` in the top activation.
    fn take(&mut self, e: usize, w: NodeIndex) {
        let Some(act) = self.acts.last_mut() else {
            return;
        };
        let Some(func) = act.func.and_then(|f| self.functions.get_mut(f)) else {
            return;
        };
        if let (Some(inst), Some(counters)) = (&func.inst, &mut func.counters) {
            act.state.run(inst.ops_for(e), counters);
            if self.record_edges {
                func.edge_counts[e] += 1;
            }
            act.node = w;
        }
    }

    /// Ends the paths of the top activation at its current node (through its exit edge).
    fn finish_top(&mut self) {
        let Some(act) = self.acts.last_mut() else {
            return;
        };
        let Some(func) = act.func.and_then(|f| self.functions.get_mut(f)) else {
            return;
        };
        let leave = func.leave.get(act.node.index()).copied().flatten();
        if let (Some(inst), Some(counters), Some(e)) = (&func.inst, &mut func.counters, leave) {
            act.state.run(inst.ops_for(e), counters);
            act.state.run(&inst.end_ops, counters);
            if self.record_edges {
                func.edge_counts[e] += 1;
            }
            func.ends += 1;
            act.node = Cfg::exit();
        } else {
            self.stats.truncated += 1;
        }
        act.func = None;
    }

    /// Follows fall-through edges inside the top activation's function until the node that
    /// holds the byte before `end`, then, if `to` is given and the node ends at `end`, the
    /// flow edge to the block at `to`. Returns `true` if `to` was followed (or lies inside
    /// the node: the emulator block ended mid-block), `false` if the transfer is not a flow
    /// edge of the function. The hot path: no allocation, no hashing.
    #[inline]
    fn advance(&mut self, end: u64, to: Option<u64>) -> bool {
        let record = self.record_edges;
        let Some(act) = self.acts.last_mut() else {
            return false;
        };
        let Some(func) = act.func.and_then(|f| self.functions.get_mut(f)) else {
            return false;
        };
        let (Some(inst), Some(counters)) = (&func.inst, &mut func.counters) else {
            return false;
        };
        let mut node = act.node.index();
        let mut guard = 0u32;
        while func.node_end.get(node).is_some_and(|&e| e < end) && guard < 1 << 16 {
            let Some(Some((e, w))) = func.fall.get(node).copied() else {
                break;
            };
            act.state.run(inst.ops_for(e), counters);
            if record {
                func.edge_counts[e] += 1;
            }
            node = w.index();
            guard += 1;
        }
        act.node = NodeIndex::new(node);
        let Some(to) = to else { return true };
        if func.node_end.get(node).is_some_and(|&e| e > end) {
            return true;
        }
        let hit = func
            .flows
            .get(node)
            .and_then(|v| v.iter().find(|(s, ..)| *s == to));
        match hit {
            Some(&(_, e, w)) => {
                act.state.run(inst.ops_for(e), counters);
                if record {
                    func.edge_counts[e] += 1;
                }
                act.node = w;
                true
            }
            None => false,
        }
    }

    fn on_edge(&mut self, from: BlockId, to: u64, kind: EmuEdge) {
        let Some(&(_, end)) = self.blocks.get(from.index()) else {
            return;
        };
        if self.acts.is_empty() {
            // The first block of the run: an activation of the function it starts, if any.
            let first = self.blocks[from.index()].0;
            let f = self.by_entry.get(&first).copied();
            self.start(f, None);
        }
        let flow = !matches!(
            kind,
            EmuEdge::Call | EmuEdge::IndirectCall | EmuEdge::Return
        );
        if self.advance(end, flow.then_some(to)) && flow {
            return;
        }
        let top = self.acts.len() - 1;
        let func = self.acts[top].func;
        if func.is_none() {
            self.stats.unknown_events += 1;
        }
        match kind {
            EmuEdge::Call | EmuEdge::IndirectCall => {
                let f = self.by_entry.get(&to).copied();
                self.start(f, Some(end));
                return;
            }
            EmuEdge::Return => {
                self.on_return(to);
                return;
            }
            _ => {}
        }
        let Some(f) = func else {
            // Unknown code jumping to a known function's entry: follow it from there.
            if let Some(&g) = self.by_entry.get(&to) {
                let ret = self.pop_act();
                self.start(Some(g), ret);
            }
            return;
        };
        let node = self.acts[top].node;
        let fun = &self.functions[f];
        let Some(cfg) = fun.inst.as_ref().map(|i| &i.hier.cfg) else {
            return;
        };
        if let Some(&g) = self.by_entry.get(&to) {
            // Tail call.
            self.finish_top();
            let ret = self.pop_act();
            self.start(Some(g), ret);
            return;
        }
        let target = fun.node_at.get(&to).copied();
        let resync = target.and_then(|w| fun.resync.get(&w).map(|&e| (e, w)));
        if let (EmuEdge::IndirectJump, Some((e, w))) = (kind, resync) {
            self.finish_top();
            let act = &mut self.acts[top];
            act.func = Some(f);
            act.node = Cfg::entry();
            act.state.sum = 0;
            act.state.stack.clear();
            let func = &mut self.functions[f];
            if let (Some(inst), Some(counters)) = (&func.inst, &mut func.counters) {
                act.state.run(&inst.start_ops, counters);
                func.starts += 1;
            }
            self.take(e, w);
            return;
        }
        let sample = (cfg.name.clone(), cfg.graph[node].start, to, kind);
        self.desynced(sample);
    }

    /// Drops the top activation's open paths after a transfer it cannot follow.
    fn desynced(&mut self, sample: (String, u64, u64, EmuEdge)) {
        self.stats.desync += 1;
        self.stats.truncated += 1;
        if self.desync_samples.len() < 8 {
            self.desync_samples.push(sample);
        }
        if let Some(a) = self.acts.last_mut() {
            a.func = None;
        }
    }

    fn on_return(&mut self, to: u64) {
        match self.acts.iter().rposition(|a| a.ret == Some(to)) {
            Some(i) => {
                while self.acts.len() > i {
                    self.finish_top();
                    self.pop_act();
                }
                // The caller resumes at its return site.
                let Some(act) = self.acts.last() else { return };
                let Some(fun) = act.func.and_then(|f| self.functions.get(f)) else {
                    return;
                };
                let hit = fun
                    .flows
                    .get(act.node.index())
                    .and_then(|v| v.iter().find(|(s, ..)| *s == to))
                    .map(|&(_, e, w)| (e, w));
                let sample = fun.inst.as_ref().map(|i| {
                    let cfg = &i.hier.cfg;
                    (
                        cfg.name.clone(),
                        cfg.graph[act.node].start,
                        to,
                        EmuEdge::Return,
                    )
                });
                match (hit, sample) {
                    (Some((e, w)), _) => self.take(e, w),
                    (None, Some(sample)) => self.desynced(sample),
                    (None, None) => {}
                }
            }
            None => {
                // A return nobody waits for (longjmp, or out of the first function).
                while !self.acts.is_empty() {
                    self.finish_top();
                    self.pop_act();
                }
                self.start(None, None);
            }
        }
    }

    /// The counted paths of every function: `(function, path, sum, count)`.
    pub fn paths(&self) -> Vec<(usize, HierPath, u128, u64)> {
        let mut out = Vec::new();
        for (f, func) in self.functions.iter().enumerate() {
            if let (Some(inst), Some(c)) = (&func.inst, &func.counters) {
                for (t, s, n) in c.nonzero() {
                    if let Some(p) = inst.decode(t, s) {
                        out.push((f, p, s, n));
                    }
                }
            }
        }
        out
    }
}

impl Function {
    fn new(cfg: Cfg) -> Function {
        let n = cfg.node_count();
        let mut fall = vec![None; n];
        let mut leave = vec![None; n];
        let mut flows = vec![Vec::new(); n];
        let mut resync = HashMap::new();
        let mut node_at = HashMap::new();
        for v in cfg.graph.node_indices().skip(2) {
            node_at.insert(cfg.graph[v].start, v);
        }
        for v in cfg.graph.node_indices() {
            for (e, w) in cfg.succs(v) {
                match cfg.graph[e] {
                    EdgeKind::Flow => {
                        let ts = cfg.graph[w].start;
                        flows[v.index()].push((ts, e.index(), w));
                        if ts == cfg.graph[v].end {
                            fall[v.index()] = Some((e.index(), w));
                        }
                    }
                    EdgeKind::Leave => leave[v.index()] = Some(e.index()),
                    EdgeKind::Resync => {
                        resync.insert(w, e.index());
                    }
                    EdgeKind::Start => {}
                }
            }
        }
        let start = cfg
            .succs(Cfg::entry())
            .into_iter()
            .find(|&(e, _)| cfg.graph[e] == EdgeKind::Start);
        Function {
            start,
            node_end: cfg.graph.node_weights().map(|b| b.end).collect(),
            inst: None,
            error: None,
            counters: None,
            edge_counts: vec![0; cfg.graph.edge_count()],
            starts: 0,
            ends: 0,
            cfg: Some(cfg),
            node_at,
            fall,
            leave,
            flows,
            resync,
        }
    }
}

impl Sink for PathSink {
    fn wants(&mut self) -> Interest {
        Interest::EXIT
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        let i = block.id.index();
        if self.blocks.len() <= i {
            self.blocks.resize(i + 1, (0, 0));
        }
        self.blocks[i] = (block.start, block.end);
        Interest::EDGE
    }

    #[inline]
    fn edge(&mut self, edge: &Edge) -> Control {
        self.on_edge(edge.from, edge.to, edge.kind);
        Control::Continue
    }

    fn exit(&mut self, exit: &Exit) {
        self.advance(exit.pc, None);
        while !self.acts.is_empty() {
            self.finish_top();
            self.pop_act();
        }
    }
}

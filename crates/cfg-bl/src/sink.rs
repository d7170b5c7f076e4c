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
//!
//! Cost: each emulator block (dense [`BlockId`]) has a cache entry keyed by the function
//! and CFG node its activation stands at, holding for up to two successor addresses the
//! composed operations of the falls and the transfer's edge, so that a flow edge event is
//! a key compare, an address compare and an addition; a path's end at a backedge is, in
//! addition, one indexed add into the pool of dense counter tables of all functions (a
//! sparse table's path end counts its latest sums the same way, in pool counters of its
//! own, memos in the end's ways; another sum is one call, which moves one memo); region
//! entries and exits
//! run their composed operations. The top activation's function, node and sum are held in
//! the sink while edges hit the cache.
//! A call or return block's slot caches its falls and (for a call) its callee's start, so
//! that a call whose callee starts with an assignment (and at most one push), and a return
//! whose end is a single count and whose caller resumes with an addition, skip the general
//! path. A tail call's slot entry holds the falls and the callee, so it skips the lookups
//! that recognise it.
//! A run through an emulator trace (an event superblock) is one [`Sink::trace`] call, which
//! executes the cached steps of its edges (calls included), composed once per trace and
//! entry key: the first path end counts the entry sum, later ones known sums.
//! Probes ([`prof_events::probe`]): the hoisted key and sum are the [`ProbeState`] the sink
//! lends the emulator with the pool's counters and the arena's path ends, and a block's
//! probe for a
//! fixed exit is its cache entry for the function the top activation runs (composed when
//! the emulator translates the block, as a miss would compose it), when that entry is an
//! addition or a path end; compiled code then runs it without an event. A call's probe
//! (an indirect call's for the target the emulator asks with) pushes a frame of the probe
//! state, after ending the caller's path where the call's block passes a loop's back
//! edge; a resynchronising indirect jump's (for the target the emulator asks with) ends
//! the activation's paths and restarts it there, through a path end the sink also counts
//! the restarts left to it through (`restart_through`); a return's counts the activation's end at a path end of its own, through which
//! the sink counts the returns the probe leaves to it, so that a sparse table's window
//! moves to their sums; a tail call's (a jump to another function's entry) counts it too
//! and sets the callee's sum, within a frame compiled code opened. A step that enters or
//! leaves a region (an arena action of the hierarchical modes) has a probe on the state's
//! stack of saved sums when its operations are one of [`ProbeOp::Push`]'s kin; the sink
//! runs such an action as the probe does (`run_region`), counting through the probe's own
//! path end. Open frames and saved sums stay in the state until a hook reads the
//! activations (`settle`), which gives each activation the sums saved from its floor up;
//! a lease lends up to four of the top activation's latest saved sums. Clearing the cache moves the
//! state's epoch, so no probe given before applies; while edges are recorded there are
//! none.
//! Functions are instrumented and indexed on their first call. The dense tables and the
//! counts pending in memos reach [`Function::counters`] at the run's exit event.

use std::collections::{BTreeMap, HashMap as StdHashMap};
use std::time::{Duration, Instant};

/// Hash maps of the runtime: keys are addresses and indices, not attacker-chosen.
type HashMap<K, V> = StdHashMap<K, V, foldhash::fast::FixedState>;

use petgraph::graph::{EdgeIndex, NodeIndex};
use prof_events::SAVES;
use prof_events::{BlockEnd, BlockId, BlockInfo, Control, Edge, EdgeKind as EmuEdge, Exit};
use prof_events::{Interest, Probe, ProbeLease, ProbeOp, ProbeState, Sink, TraceId, TracePart};

use crate::adjacency::Adjacency;
use crate::blockcache::{
    compose, ends_in_flow, entry_of, key, key_func, key_node, Arena, CachedCall, Cold, Out,
    Restart, Slot, Step, NODE_BITS, NONE, NOT_FLOW, NO_KEY, RESTARTS,
};
use crate::cfg::{Cfg, EdgeKind};
use crate::hier::Hierarchy;
use crate::offsets;
use crate::plan::{HierPath, Instrumented, Mode, Op, Weights};
use crate::pool::{signed_64, Memo, PathEndOps, Place, Pool, Pooled};
use crate::recover::{LazyProgram, Program};
use crate::runtime::{Activation, Counters};
use crate::structure::RegionTree;
use crate::traces::{Call, Composed, Count, Traces};
use crate::Error;

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

/// An edge profile: per function entry address, one count per edge index of the function's
/// recovered CFG (what [`Function::edge_counts`] holds after a run that recorded edges).
/// [`Program::recover`] is deterministic, so the edge indices of a program's functions are
/// the same in every run of it.
pub type EdgeProfile = BTreeMap<u64, Vec<u64>>;

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
    /// (Boxed, as the runtime's tables are, so that a function the run never calls costs
    /// a small header: a static binary lists a thousand functions or more.)
    pub inst: Option<Box<Instrumented>>,
    /// Why instrumentation failed.
    pub error: Option<String>,
    /// The counters (complete after the run's [`Sink::exit`]: the sink counts dense tables,
    /// and sparse tables' latest sums at cached path ends, in a pool shared by all
    /// functions, and brings them here at the exit).
    pub counters: Option<Counters>,
    /// Per CFG edge: how often the runtime took it (the observed edge profile), if the sink
    /// records edges ([`PathSink::record_edges`]); empty until the function is instrumented.
    pub edge_counts: Vec<u64>,
    /// Activations started and ended at the virtual exit (complete after the run's
    /// [`Sink::exit`], which adds the calls whose return compiled probes took).
    pub starts: u64,
    /// Activations that ended their paths at the virtual exit (complete after the exit, as
    /// `starts`).
    pub ends: u64,
    /// The pool counter of its activations that compiled probes started and ended (see
    /// [`ProbeOp::Return`]), once it has one.
    pairs: Option<usize>,
    name: String,
    /// The CFG until it is instrumented (`None` before a lazy sink recovers it, too).
    cfg: Option<Box<Cfg>>,
    /// Regions given by the user ([`PathSink::set_regions`]) in place of the sink's
    /// [`RegionChoice`].
    user_regions: Option<Vec<Vec<NodeIndex>>>,
    /// A measured edge profile ([`PathSink::set_weights`]) in place of the estimate.
    weights: Option<Vec<u64>>,
    /// Per counter table: where it counts (in the sink's pool, or sparse in `counters`).
    places: Vec<Place>,
    /// Its plan saves no sum (see [`Instrumented::saves_none`]): its activations own none
    /// of the saved sums, so its returns need not check for them.
    saves_none: bool,
    /// The runtime's tables, once it is instrumented ([`Function::t`] reads them).
    tables: Option<Box<Tables>>,
}

/// What the runtime looks up in an instrumented function, by node and by address.
#[derive(Debug, Default)]
struct Tables {
    node_at: HashMap<u64, NodeIndex>,
    /// The edge from the virtual entry to the entry block.
    start: Option<(EdgeIndex, NodeIndex)>,
    /// What the start and the entry edge do to a fresh activation, when they count nothing
    /// and push at most one sum.
    entry: Option<Entry>,
    /// Per node: where and at which addition the exit edge and the end count, when they
    /// compose to a single count.
    finish: Vec<Option<(Place, u128)>>,
    /// Per node: the flow edge to the block at its end (where a call in it returns to) as
    /// the node reached and its addition, when it is one.
    resume: Vec<Option<(NodeIndex, i64)>>,
    /// Per node: its end address.
    node_end: Vec<u64>,
    /// Per node: the fall-through flow edge into the block at its end address.
    fall: Vec<Option<(usize, NodeIndex)>>,
    /// Per node: its edge to the virtual exit.
    leave: Vec<Option<usize>>,
    /// Per node: flow edges `(target start, edge, target)`.
    flows: Adjacency<(u64, usize, NodeIndex)>,
    /// Resynchronisation edges and their targets, by the target's start address.
    resync: HashMap<u64, (usize, NodeIndex)>,
    /// Per node: the sum an activation standing there may lend its probes in place of a
    /// wide one, if any ([`offsets::room`]); found when one first needs it.
    room: Option<Vec<Option<i64>>>,
}

/// The tables of a function not instrumented: all empty.
static NO_TABLES: Tables = Tables {
    node_at: HashMap::with_hasher(foldhash::fast::FixedState::with_seed(0)),
    start: None,
    entry: None,
    finish: Vec::new(),
    resume: Vec::new(),
    node_end: Vec::new(),
    fall: Vec::new(),
    leave: Vec::new(),
    flows: Adjacency::EMPTY,
    resync: HashMap::with_hasher(foldhash::fast::FixedState::with_seed(0)),
    room: None,
};

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
    /// Where functions not recovered yet come from, if the sink recovers lazily.
    lazy: Option<LazyProgram>,
    mode: Mode,
    regions: RegionChoice,
    /// Per emulator block: the cached composed plan (hot part).
    slots: Vec<Slot>,
    /// Per emulator block: its addresses and what misses, calls and returns need.
    cold: Vec<Cold>,
    arena: Arena,
    /// The emulator's traces taken, and their compositions on the cache.
    traces: Traces,
    /// The dense counter tables of every instrumented function.
    pool: Pool,
    scratch_ops: Vec<Op>,
    scratch_edges: Vec<u32>,
    acts: Vec<Act>,
    /// The top activation's [`key`] ([`NO_FUNC`] if it runs no instrumented function) and
    /// running sum while edges hit the cache: the activation's own node and sum are stale
    /// until [`spill`](Self::spill), and everything else works on the activation.
    /// (Held in the state compiled probes run on: see [`Sink::probe`].)
    probe: ProbeState,
    /// While the state lends the top activation's probes a sum in place of its wide one
    /// (see [`offsets`]): what the sum lent is short of the true one, else 0 (the sum lent
    /// is negative, the true one above 2^63).
    offset: u128,
    /// Stacks of finished activations, reused.
    spare: Vec<Vec<u128>>,
    /// What could not be followed.
    pub stats: Stats,
    /// Tables with at most this many path sums are dense vectors, larger ones sparse hash
    /// tables ([`runtime::DENSE_LIMIT`](crate::runtime::DENSE_LIMIT) by default; set before
    /// the run).
    pub dense_limit: u128,
    /// Once the sink's pooled counters (the dense tables of the functions instrumented so far, and
    /// the few that hot path ends of sparse tables count in) number this many,
    /// only tables of at most [`runtime::SMALL_TABLE`](crate::runtime::SMALL_TABLE) sums
    /// are dense ([`runtime::DENSE_BUDGET`](crate::runtime::DENSE_BUDGET) by default; set
    /// before the run).
    pub dense_budget: usize,
    /// Also count every CFG edge taken into [`Function::edge_counts`] (for checking the
    /// path profile against the edge profile; off by default, it costs time).
    pub record_edges: bool,
    /// The first few transfers that could not be followed: function, block start, target,
    /// kind.
    pub desync_samples: Vec<(String, u64, u64, EmuEdge)>,
    /// Time spent recovering and instrumenting functions ([`set_up_time`](Self::set_up_time)).
    set_up: Duration,
}

impl PathSink {
    /// A sink profiling `program` in `mode` with regions chosen by `regions`.
    pub fn new(program: Program, mode: Mode, regions: RegionChoice) -> PathSink {
        let functions = program
            .functions
            .into_iter()
            .map(|cfg| Function::new(cfg.name.clone(), Some(cfg)))
            .collect();
        PathSink::with_functions(functions, program.by_entry, None, mode, regions)
    }

    /// [`new`](Self::new) for a program whose functions are recovered on their first call
    /// (or when [`set_regions`](Self::set_regions) or [`set_weights`](Self::set_weights)
    /// needs them): the same profile, without recovering the functions the run never
    /// calls. [`Function::inst`] of a function never called stays `None`.
    pub fn lazy(program: LazyProgram, mode: Mode, regions: RegionChoice) -> PathSink {
        let (functions, by_entry): (Vec<Function>, Vec<(u64, usize)>) = program
            .functions()
            .iter()
            .enumerate()
            .map(|(i, (entry, name))| (Function::new(name.clone(), None), (*entry, i)))
            .unzip();
        PathSink::with_functions(functions, by_entry, Some(program), mode, regions)
    }

    fn with_functions(
        functions: Vec<Function>,
        by_entry: impl IntoIterator<Item = (u64, usize)>,
        lazy: Option<LazyProgram>,
        mode: Mode,
        regions: RegionChoice,
    ) -> PathSink {
        PathSink {
            functions,
            by_entry: by_entry.into_iter().collect(),
            lazy,
            mode,
            regions,
            slots: Vec::new(),
            cold: Vec::new(),
            arena: Arena::default(),
            traces: Traces::default(),
            pool: Pool::default(),
            scratch_ops: Vec::new(),
            scratch_edges: Vec::new(),
            acts: Vec::new(),
            probe: ProbeState {
                key: NO_FUNC,
                ..ProbeState::default()
            },
            offset: 0,
            spare: Vec::new(),
            stats: Stats::default(),
            record_edges: false,
            dense_limit: crate::runtime::DENSE_LIMIT,
            dense_budget: crate::runtime::DENSE_BUDGET,
            desync_samples: Vec::new(),
            set_up: Duration::ZERO,
        }
    }

    /// The wall-clock time this sink has spent so far recovering (if it recovers lazily)
    /// and instrumenting functions on their first call: the fixed part of its overhead,
    /// which a benchmark tells apart from the part that grows with the run (the `overhead`
    /// example, `cargo xtask bench-paths`). Not part of the profile, which stays the same
    /// from run to run.
    pub fn set_up_time(&self) -> Duration {
        self.set_up
    }

    /// Profiles the function entered at `entry` with `regions` in place of the regions the
    /// sink's [`RegionChoice`] finds for it (see [`RegionTree::from_user`]). Each region is a
    /// set of blocks of the function's recovered CFG given by their start addresses
    /// ([`Block::start`](crate::Block::start)); regions must be non-empty, distinct, and
    /// nested or disjoint; an empty list profiles the function flat. Region ids in the
    /// profile are the tree's (larger regions first), not positions in `regions`.
    ///
    /// Call before the run. Fails, changing nothing, if no recovered function starts at
    /// `entry`, it is already instrumented, an address starts none of its blocks, or the
    /// regions cannot be profiled in the sink's mode (overlapping without nesting, left and
    /// re-entered without a backedge, 2^128 paths or more); the message names the function
    /// and the region by its position in `regions`.
    pub fn set_regions(&mut self, entry: u64, regions: &[Vec<u64>]) -> Result<(), Error> {
        let mode = self.mode;
        let (f, cfg) = self.pending(entry)?;
        let at: HashMap<u64, NodeIndex> = cfg
            .graph
            .node_indices()
            .skip(2)
            .map(|v| (cfg.graph[v].start, v))
            .collect();
        let mut sets = Vec::with_capacity(regions.len());
        for (i, region) in regions.iter().enumerate() {
            let mut set = Vec::with_capacity(region.len());
            for a in region {
                let v = at.get(a).ok_or_else(|| {
                    Error::Invalid(format!(
                        "{}: region {i}: no block of the recovered function starts at {a:#x}",
                        cfg.name
                    ))
                })?;
                set.push(*v);
            }
            sets.push(set);
        }
        // The whole plan, so that every error shows now rather than at the first call.
        let named = |e: Error| e.in_function(&cfg.name);
        let tree = RegionTree::from_user(cfg, &sets).map_err(named)?;
        Hierarchy::new(cfg.clone(), tree)
            .and_then(|h| Instrumented::new(h, mode, &Weights::Estimate))
            .map_err(named)?;
        self.functions[f].user_regions = Some(sets);
        Ok(())
    }

    /// Places the increments of the function entered at `entry` on the chords of a maximum
    /// spanning tree of a measured edge profile, `counts` (one per edge index of its
    /// recovered CFG: [`Function::edge_counts`] of an earlier run of the same program with
    /// [`record_edges`](Self::record_edges)), instead of the static estimate. The hottest
    /// edges then carry no increment; path numbers and counts do not change.
    ///
    /// Call before the run. Fails, changing nothing, if no recovered function starts at
    /// `entry`, it is already instrumented, or `counts` does not have one count per edge.
    pub fn set_weights(&mut self, entry: u64, counts: Vec<u64>) -> Result<(), Error> {
        let (f, cfg) = self.pending(entry)?;
        let edges = cfg.graph.edge_count();
        if counts.len() != edges {
            return Err(Error::Invalid(format!(
                "{}: {} edge counts for {edges} edges (an edge profile of another program?)",
                cfg.name,
                counts.len()
            )));
        }
        self.functions[f].weights = Some(counts);
        Ok(())
    }

    /// [`set_weights`](Self::set_weights) for every function of `profile` (the others keep
    /// the estimate). Stops at the first error.
    pub fn set_edge_profile(&mut self, profile: &EdgeProfile) -> Result<(), Error> {
        for (&entry, counts) in profile {
            self.set_weights(entry, counts.clone())?;
        }
        Ok(())
    }

    /// The run's edge profile: the edge counts of every instrumented function by entry
    /// address (counted only with [`record_edges`](Self::record_edges); zero otherwise).
    pub fn edge_profile(&self) -> EdgeProfile {
        self.functions
            .iter()
            .filter_map(|f| {
                let inst = f.inst.as_ref()?;
                Some((inst.hier.cfg.addr, f.edge_counts.clone()))
            })
            .collect()
    }

    /// The index and CFG of the function entered at `entry`, if it is not instrumented yet.
    fn pending(&mut self, entry: u64) -> Result<(usize, &Cfg), Error> {
        let f = *self
            .by_entry
            .get(&entry)
            .filter(|&&f| f < self.functions.len())
            .ok_or_else(|| Error::Invalid(format!("no recovered function starts at {entry:#x}")))?;
        self.recover(f);
        let cfg = self.functions[f].cfg.as_ref().ok_or_else(|| {
            Error::Invalid(format!(
                "the function at {entry:#x} is already instrumented (set regions and weights before the run)"
            ))
        })?;
        Ok((f, cfg))
    }

    /// Recovers function `f`'s CFG if the sink recovers lazily and has not yet.
    fn recover(&mut self, f: usize) {
        let (Some(lazy), Some(func)) = (&self.lazy, self.functions.get_mut(f)) else {
            return;
        };
        if func.cfg.is_none() && func.inst.is_none() && func.error.is_none() {
            if let Some(&(entry, _)) = lazy.functions().get(f) {
                func.cfg = Some(Box::new(lazy.recover(entry)));
            }
        }
    }

    /// Whether function `f` is instrumented, instrumenting it (and recovering it first, if
    /// the sink recovers lazily) if it is not yet and has not failed: timed, as set-up.
    fn ensure(&mut self, f: usize) -> bool {
        match self.functions.get(f) {
            Some(func) if func.inst.is_some() => return true,
            Some(func) if func.error.is_none() => {}
            _ => return false,
        }
        let started = Instant::now();
        let instrumented = self.recover_and_instrument(f);
        self.set_up += started.elapsed();
        instrumented
    }

    /// [`ensure`](Self::ensure) of a function not instrumented yet.
    fn recover_and_instrument(&mut self, f: usize) -> bool {
        self.recover(f);
        let mode = self.mode;
        let regions = self.regions;
        let dense_limit = if self.pool.len() < self.dense_budget {
            self.dense_limit
        } else {
            self.dense_limit.min(crate::runtime::SMALL_TABLE)
        };
        let Some(func) = self.functions.get_mut(f) else {
            return false;
        };
        if let Some(cfg) = func.cfg.take() {
            let built = func.instrument(*cfg, mode, regions);
            match built {
                Ok(inst) => {
                    func.index(&inst.hier.cfg);
                    let counters = Counters::with_dense_limit(&inst, dense_limit);
                    func.places = self.pool.place(&counters);
                    func.shortcuts(&inst);
                    func.saves_none = inst.saves_none();
                    func.counters = Some(counters);
                    func.inst = Some(Box::new(inst));
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
            if let Some((e, w)) = func.t().start {
                let lists = [Ops::Start, Ops::Edge(e.index())];
                let entered = match func.t().entry.filter(|_| !self.record_edges) {
                    Some(entry) => {
                        act.state.stack.extend(entry.push);
                        act.state.sum = entry.sum;
                        true
                    }
                    None => func.execute(&mut self.pool, &mut act.state, &lists, self.record_edges),
                };
                if entered {
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
        if func.execute(
            &mut self.pool,
            &mut act.state,
            &[Ops::Edge(e)],
            self.record_edges,
        ) {
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
        let leave = func.t().leave.get(act.node.index()).copied().flatten();
        let lists = leave.map(|e| [Ops::Edge(e), Ops::End]);
        let quick = func.t().finish.get(act.node.index()).copied().flatten();
        if let (Some((place, add)), false) = (quick, self.record_edges) {
            func.count_at(&mut self.pool, place, act.state.sum.wrapping_add(add));
            func.ends += 1;
            act.node = Cfg::exit();
        } else if lists
            .is_some_and(|l| func.execute(&mut self.pool, &mut act.state, &l, self.record_edges))
        {
            func.ends += 1;
            act.node = Cfg::exit();
        } else {
            self.stats.truncated += 1;
        }
        act.func = None;
    }

    /// Executes `step` in the top activation, which runs function `f`.
    #[inline(never)]
    fn step_top(&mut self, f: usize, step: Step) {
        let Some(act) = self.acts.last_mut() else {
            return;
        };
        match step {
            Step::Add(v) => act.state.sum = act.state.sum.wrapping_add(v as i128 as u128),
            Step::End(e) => {
                let sum = act.state.sum;
                let sum = self.end_path(f, e, sum);
                if let Some(act) = self.acts.last_mut() {
                    act.state.sum = sum;
                }
            }
            Step::Action(a) => {
                if let Some(func) = self.functions.get_mut(f) {
                    if let Some(counters) = &mut func.counters {
                        let mut tally = Pooled {
                            pool: &mut self.pool,
                            places: &func.places,
                            counters,
                        };
                        self.arena
                            .apply(a, &mut act.state, &mut tally, &mut func.edge_counts);
                    }
                }
            }
        }
    }

    /// Runs arena action `a` of function `f`: one that has a probe (a region's entry or
    /// exit, see [`Arena::region_probe`](crate::blockcache::Arena)) as the probe does, on
    /// the hoisted sum and the top activation's stack, counting through the probe's path
    /// end (so that a sparse table's window moves to the sum, as a flow edge's does); any
    /// other action, or one that must record edges, through [`step_top`](Self::step_top),
    /// the activation's own interpreter.
    #[inline(never)]
    fn placed_action(&mut self, f: usize, a: u32) {
        if let Some(op) = self.arena.probe(a) {
            if self.run_region(f, op) {
                return;
            }
        }
        // Any other action runs in the activation's own interpreter, then its transfer out.
        self.spill();
        self.step_top(f, Step::Action(a));
        if let Some(out) = self.arena.out(a) {
            self.leave(f, out);
        }
        self.fill();
    }

    /// [`placed_action`](Self::placed_action)'s run of a region's entry or exit `op` in
    /// function `f` (128-bit sums); `false`, having changed nothing, if it pops a sum the top
    /// activation did not save.
    fn run_region(&mut self, f: usize, op: ProbeOp) -> bool {
        let wide = |v: i64| v as i128 as u128;
        let sum = self.probe.sum;
        let Some(act) = self.acts.last_mut() else {
            return false;
        };
        let stack = &mut act.state.stack;
        self.probe.sum = match op {
            ProbeOp::Push { add, inner, set } => {
                stack.push(sum.wrapping_add(wide(add)));
                stack.extend(inner.map(wide));
                wide(set)
            }
            ProbeOp::PushEnd {
                add,
                inner,
                set,
                end,
                ..
            } => {
                stack.push(sum.wrapping_add(wide(add)));
                stack.extend(inner.map(wide));
                self.end_path(f, end, wide(set))
            }
            ProbeOp::Pop { end, add, .. } => {
                let Some(saved) = stack.pop() else {
                    return false;
                };
                self.end_path(f, end, sum);
                saved.wrapping_add(wide(add))
            }
            ProbeOp::PopEnd {
                end, outer, pop, ..
            } => {
                // The top saved sum, which the outer end counts, and with `pop` the next.
                let Some(keep) = stack.len().checked_sub(1 + usize::from(pop)) else {
                    return false;
                };
                let (next, saved) = match stack[keep..] {
                    [next, saved] => (Some(next), saved),
                    [saved] => (None, saved),
                    _ => return false,
                };
                stack.truncate(keep);
                self.end_path(f, end, sum);
                let set = self.end_path(f, outer, saved);
                next.unwrap_or(set)
            }
            ProbeOp::Through { add, set, end, .. } => {
                self.end_path(f, end, wide(set));
                sum.wrapping_add(wide(add))
            }
            ProbeOp::PopPush { end, add, set, .. } => {
                let Some(top) = stack.last_mut() else {
                    return false;
                };
                *top = top.wrapping_add(wide(add));
                self.end_path(f, end, sum);
                wide(set)
            }
            _ => return false,
        };
        true
    }

    /// Runs path end `e` of function `f` on running sum `sum`; returns the new sum.
    #[inline(always)]
    fn end_path(&mut self, f: usize, e: u32, sum: u128) -> u128 {
        let Some(&end) = self.arena.end(e) else {
            return sum;
        };
        if end.count(&mut self.pool, sum).is_err() && !self.count_in_window(e, sum) {
            self.count_in(f, e, sum);
        }
        end.set()
    }

    /// Counts `sum` at path end `e` in another way's window, if one holds it.
    #[inline(always)]
    fn count_in_window(&mut self, e: u32, sum: u128) -> bool {
        (e + 1..e + self.arena.ways(e)).any(|w| {
            let end = self.arena.end(w).copied();
            end.is_some_and(|end| end.count(&mut self.pool, sum).is_ok())
        })
    }

    /// Counts what path end `e` of function `f` did not count in the pool, `sum` being the
    /// running sum: a sparse table's path end moves a window (see [`Arena::victim`]) to the sum
    /// (a new memo is made at first); a pooled table's sum out of range goes to the
    /// function's counters.
    #[inline(never)]
    fn count_in(&mut self, f: usize, e: u32, running: u128) {
        let ways = self.arena.ways(e);
        let Some(&end) = self.arena.end(e) else {
            return;
        };
        // The path end's own addition (a window's is less its sum) and sparse table.
        let memo = (e..e + ways).find_map(|w| self.arena.memo(w));
        let add = memo.map_or(end.addition(), |m| m.add);
        let sum = running.wrapping_add(add);
        let table = match (memo, end.place()) {
            (Some(m), _) => m.table,
            (None, Place::Sparse(table)) => table,
            (None, place) => {
                if let Some(func) = self.functions.get_mut(f) {
                    func.count_at(&mut self.pool, place, sum);
                }
                return;
            }
        };
        // A memo for a way that has none.
        let fresh = Memo {
            func: f as u32,
            table,
            counter: usize::MAX,
            sum,
            add,
        };
        let pool = &self.pool;
        let Some(w) = self.arena.victim(e, |c| pool.count(c)) else {
            // (Every way is pinned: the sum goes to the table.)
            return self.count_sparse(fresh, sum, 1);
        };
        let Some(&end) = self.arena.end(w) else {
            return;
        };
        let (memo, old) = match self.arena.memo(w) {
            Some(m) => {
                let n = self.pool.take(m.counter);
                self.count_sparse(m, m.sum, n);
                (Memo { sum, ..m }, true)
            }
            None => (fresh, false),
        };
        let counter = if old { memo.counter } else { self.pool.alloc() };
        match end.window(counter, memo.add, memo.sum) {
            Some(window) => {
                self.pool.set(counter, 1);
                self.arena.set_memo(w, window, Memo { counter, ..memo });
            }
            None => {
                // The window cannot reach this sum: it stays where it was (empty), and a
                // new memo's counter goes back unused.
                if !old {
                    self.pool.free(counter);
                }
                self.count_sparse(memo, memo.sum, 1);
            }
        }
    }

    /// Counts `n` of `sum` in the sparse table of `memo`.
    fn count_sparse(&mut self, memo: Memo, sum: u128, n: u64) {
        if n == 0 {
            return;
        }
        let func = self.functions.get_mut(memo.func as usize);
        if let Some(c) = func.and_then(|f| f.counters.as_mut()) {
            c.add(memo.table, sum, n);
        }
    }

    /// Moves the counts of every memo's window to its table (and frees
    /// their counters when `free`: the arena is about to be cleared).
    fn flush_memos(&mut self, free: bool) {
        for i in 0..self.arena.memos().len() {
            let Some(&m) = self.arena.memos().get(i) else {
                break;
            };
            let n = self.pool.take(m.counter);
            self.count_sparse(m, m.sum, n);
            if free {
                self.pool.free(m.counter);
            }
        }
    }

    /// Writes the hoisted key and sum back into the top activation.
    #[inline]
    fn spill(&mut self) {
        if let Some(act) = self.acts.last_mut() {
            act.state.sum = self.probe.sum;
            if self.probe.key != NO_FUNC {
                act.node = NodeIndex::new(key_node(self.probe.key));
            }
        }
    }

    /// Hoists the top activation's key and sum (after [`spill`](Self::spill) and changes).
    #[inline]
    fn fill(&mut self) {
        (self.probe.key, self.probe.sum) = match self.acts.last() {
            Some(act) => (
                act.func.map_or(NO_FUNC, |f| key(f, act.node.index())),
                act.state.sum,
            ),
            None => (NO_FUNC, 0),
        };
    }

    /// Empties the cache (when the arena is full or edge recording was switched).
    fn clear_cache(&mut self) {
        // The arena's path ends go: no probe given so far may apply.
        self.probe.epoch += 1;
        self.flush_memos(true);
        self.arena.clear();
        self.traces.forget();
        self.arena.record = self.record_edges;
        self.slots.fill(Slot::default());
        for c in &mut self.cold {
            *c = Cold::new(c.start, c.end, c.flow);
        }
    }

    /// Keys slot `id` to function `f` entered at `node`: the falls to the block's last node.
    fn rekey(&mut self, id: usize, f: usize, node: usize) {
        if self.arena.full() || self.arena.record != self.record_edges {
            self.clear_cache();
        }
        let (Some(cold), Some(func)) = (self.cold.get_mut(id), self.functions.get(f)) else {
            return;
        };
        self.scratch_ops.clear();
        self.scratch_edges.clear();
        let (ops, edges) = (&mut self.scratch_ops, &mut self.scratch_edges);
        cold.last = func.walk_falls(node, cold.end, ops, edges) as u32;
        cold.falls = self.arena.store(ops, edges, &func.places);
        cold.victim = 0;
        cold.ret_end = NONE;
        cold.restarts = Default::default();
        self.slots[id] = Slot {
            key: cold.key(f, node),
            ..Slot::default()
        };
    }

    /// Keys slot `id` to function `f` entered at `node`, unless it is keyed so already.
    fn key_slot(&mut self, id: usize, f: usize, node: usize) {
        let keyed = match (self.slots.get(id), self.cold.get(id)) {
            (Some(slot), Some(cold)) => slot.key == cold.key(f, node),
            _ => return,
        };
        if !keyed {
            self.rekey(id, f, node);
        }
    }

    /// The cached successor of keyed slot `id` at `to`; on a miss, composed (as a flow
    /// edge, or as the transfer out of the function that an edge of kind `out` is) and
    /// cached in `entry` (see [`remember`](Self::remember)).
    fn successor(
        &mut self,
        id: usize,
        to: u64,
        entry: Option<usize>,
        out: Option<EmuEdge>,
    ) -> Option<(u32, Step)> {
        if let Some(hit) = self.slots.get(id)?.find(to) {
            return Some(hit);
        }
        let hit = self
            .resolve(id, to)
            .or_else(|| out.and_then(|kind| self.resolve_out(id, to, kind)))?;
        self.remember(id, to, entry, hit);
        Some(hit)
    }

    /// The successor of keyed slot `id` at `to`: the falls, then the flow edge to the block
    /// at `to` (or nothing when the emulator block ended inside the last node). `None` if
    /// `to` is not a flow successor of the function.
    fn resolve(&mut self, id: usize, to: u64) -> Option<(u32, Step)> {
        let k = self.slots.get(id)?.key & !NOT_FLOW;
        let Cold { end, last, .. } = *self.cold.get(id)?;
        let func = self.functions.get(key_func(k))?;
        let inst = func.inst.as_ref()?;
        // A transfer that is no flow edge from the block's last node (found when the slot
        // was keyed), such as a resynchronising indirect jump (coremark 600K, strings 500K),
        // fails before the falls are composed.
        let last = last as usize;
        if func.t().node_end.get(last).is_some_and(|&e| e <= end)
            && func.t().flow_to(last, to).is_none()
        {
            return None;
        }
        self.scratch_ops.clear();
        self.scratch_edges.clear();
        let (ops, edges) = (&mut self.scratch_ops, &mut self.scratch_edges);
        let last = func.walk_falls(key_node(k), end, ops, edges);
        let node = if func.t().node_end.get(last).is_some_and(|&e| e > end) {
            last
        } else {
            let (e, w) = func.t().flow_to(last, to)?;
            compose(ops, inst.ops_for(e));
            edges.push(e as u32);
            w.index()
        };
        Some((node as u32, self.arena.store(ops, edges, &func.places)))
    }

    /// Caches successor `to` of keyed slot `id` in `entry` (see [`entry_of`]; an indirect
    /// jump's replaces the older of two).
    fn remember(&mut self, id: usize, to: u64, entry: Option<usize>, (next, step): (u32, Step)) {
        let (Some(slot), Some(cold)) = (self.slots.get_mut(id), self.cold.get_mut(id)) else {
            return;
        };
        let i = match (entry, slot.next.iter().position(|&n| n == NO_KEY)) {
            (Some(i), _) | (None, Some(i)) => i,
            (None, None) => {
                cold.victim ^= 1;
                usize::from(cold.victim)
            }
        };
        slot.set(i, to, next, step);
    }

    /// Caches in keyed slot `id` the call to `to` (function `g`, returning to `ret`) that
    /// just started the top activation, if its start was an assignment of its sum (after
    /// at most one push, which the callee's [`Entry`] repeats).
    fn remember_call(&mut self, id: usize, to: u64, g: usize, ret: u64) {
        let (Some(act), Some(fun)) = (self.acts.last(), self.functions.get(g)) else {
            return;
        };
        // The sum as a sign-extended addition (the start may be a negative value).
        let sum = fun.t().entry.and_then(|e| {
            let v = e.sum as i64;
            (v as i128 as u128 == e.sum).then_some(v)
        });
        if let (Some(sum), Some(true), false) = (sum, act.func.map(|a| a == g), self.record_edges) {
            let call = CachedCall {
                callee: g as u32,
                entry: act.node.index() as u32,
                sum,
                ret,
            };
            if let Some(slot) = self.slots.get_mut(id).filter(|s| s.falls().is_some()) {
                slot.set_call(to, call);
            }
        }
    }

    /// Runs the cached falls `falls` of a call or return block on the hoisted sum of
    /// function `f`: the sum after them, `None` (nothing done) for an arena action.
    #[inline(always)]
    fn cached_falls(&mut self, falls: Step) -> Option<u128> {
        match falls {
            Step::Add(v) => Some(self.probe.sum.wrapping_add(v as i128 as u128)),
            Step::End(e) => Some(self.end_path(key_func(self.probe.key), e, self.probe.sum)),
            Step::Action(_) => None,
        }
    }

    /// Takes over the calls whose returns compiled code did not take (the probe state's
    /// open frames, see [`ProbeOp::Call`]) and the region entries it did not leave (its
    /// saved sums, see [`ProbeOp::Push`]), and the offset lent in place of a wide sum (see
    /// [`lend_offset`](Self::lend_offset)), before anything reads the activations.
    #[inline(always)]
    fn settle(&mut self) {
        self.take_offset();
        if self.probe.depth != 0 {
            self.open_frames();
        } else if self.probe.saved != 0 {
            self.give_back_saves();
        }
    }

    /// [`settle`](Self::settle) with no frame open: the sums saved are the top
    /// activation's.
    #[inline]
    fn give_back_saves(&mut self) {
        let saved = std::mem::take(&mut self.probe.saved) as usize;
        self.probe.floor = 0;
        if let (Some(top), Some(saves)) = (self.acts.last_mut(), self.probe.saves.get(..saved)) {
            top.state
                .stack
                .extend(saves.iter().map(|&s| s as i128 as u128));
        }
    }

    /// Lends the top activation's latest saved sums to the probe state (up to half its
    /// stack, the room left for region entries), so that compiled code's region exits
    /// find them; [`settle`](Self::settle) gives them back.
    fn hoist_saves(&mut self) {
        let (
            ProbeState {
                saved: 0, depth: 0, ..
            },
            Some(act),
        ) = (&self.probe, self.acts.last_mut())
        else {
            return;
        };
        let stack = &mut act.state.stack;
        let fits = stack.iter().rev().take(SAVES / 2);
        let n = fits.take_while(|&&s| signed_64(s).is_some()).count();
        let from = stack.len() - n;
        for (save, &s) in self.probe.saves.iter_mut().zip(&stack[from..]) {
            *save = s as i64;
        }
        self.probe.saved = n as u64;
        stack.truncate(from);
    }

    /// Lends the probe state a sum in place of the top activation's, if that sum is wide
    /// (compiled probes hold 64-bit sums) and the activation may take an offset where it
    /// stands: its function saves no sum, and every way on from its node adds little
    /// enough ([`offsets::room`]). Nothing else is lent (no frame open, no sum saved). An
    /// offset lent stays lent from lease to lease until the sink next reads its
    /// activations, when [`take_offset`](Self::take_offset) adds what compiled code added
    /// to the lent sum to the true one.
    fn lend_offset(&mut self) {
        let probe = &self.probe;
        if signed_64(probe.sum).is_some() || probe.depth != 0 || probe.saved != 0 {
            return;
        }
        let (f, node) = (key_func(probe.key), key_node(probe.key));
        let own = |a: &Act| a.func == Some(f) && a.state.stack.is_empty();
        if !self.acts.last().is_some_and(own) {
            return;
        }
        let Some(fun) = self.functions.get_mut(f) else {
            return;
        };
        let (Some(inst), true) = (&fun.inst, fun.saves_none) else {
            return;
        };
        let Some(tables) = fun.tables.as_deref_mut() else {
            return;
        };
        let room = tables.room.get_or_insert_with(|| offsets::room(inst));
        if let Some(&Some(lent)) = room.get(node) {
            let lent = lent as i128 as u128;
            self.offset = self.probe.sum.wrapping_sub(lent);
            self.probe.sum = lent;
        }
    }

    /// Takes back the offset [`lend_offset`](Self::lend_offset) lent, if one is (one
    /// compare when none is).
    #[inline(always)]
    fn take_offset(&mut self) {
        if self.offset != 0 {
            self.give_back_offset();
        }
    }

    /// [`take_offset`](Self::take_offset)'s work: the activation the offset was lent for
    /// has its true sum again (in the state, or in its frame's caller, taken over first,
    /// if compiled code left calls open).
    #[cold]
    #[inline(never)]
    fn give_back_offset(&mut self) {
        let offset = std::mem::take(&mut self.offset);
        let true_sum = |lent: u128| offset.wrapping_add(lent);
        if self.probe.depth == 0 {
            self.probe.sum = true_sum(self.probe.sum);
        } else {
            let k = self.acts.len().wrapping_sub(1);
            self.open_frames();
            if let Some(caller) = self.acts.get_mut(k) {
                caller.state.sum = true_sum(caller.state.sum);
            }
        }
    }

    /// [`settle`](Self::settle)'s work: for each open frame, outermost first, the caller
    /// stands at its call block's last node with the sum it called with, and the callee's
    /// activation is pushed (the innermost one at the hoisted key and sum), as
    /// [`fast_call`](Self::fast_call) would have left them; each activation's stack gets
    /// the sums saved from its floor up.
    #[cold]
    #[inline(never)]
    fn open_frames(&mut self) {
        let depth = std::mem::take(&mut self.probe.depth) as usize;
        let frames = self.probe.frames;
        let open = &frames[..depth.min(frames.len())];
        let saves = self.probe.saves;
        let saved = std::mem::take(&mut self.probe.saved) as usize;
        let saved = saves.get(..saved).unwrap_or(&saves);
        let floor = std::mem::take(&mut self.probe.floor) as usize;
        // Activation 0 is the sink's top one, activation `j + 1` the one frame `j` called;
        // each saved the sums from its floor up to the next one's (frame `j`, or the state
        // for the innermost, keeps activation `j`'s floor).
        let mut bounds = [0; prof_events::FRAMES + 2];
        for (j, frame) in open.iter().enumerate().skip(1) {
            bounds[j] = frame.floor as usize;
        }
        if depth > 0 {
            bounds[open.len()] = floor;
        }
        bounds[open.len() + 1] = saved.len();
        for j in 1..=open.len() + 1 {
            bounds[j] = bounds[j].clamp(bounds[j - 1], saved.len());
        }
        let own = |j: usize| {
            saved[bounds[j]..bounds[j + 1]]
                .iter()
                .map(|&s| s as i128 as u128)
        };
        if let Some(top) = self.acts.last_mut() {
            top.state.stack.extend(own(0));
        }
        for (i, frame) in open.iter().enumerate() {
            let site = frame.site as usize;
            // The frame keeps the sum the caller resumes with: less the resume's addition.
            let g = self.acts.last().and_then(|a| a.func);
            let fun = g.and_then(|g| self.functions.get(g));
            let resume = fun.and_then(|fun| fun.t().resume.get(site).copied().flatten());
            let saved = frame.resumed.wrapping_sub(resume.map_or(0, |(_, add)| add));
            if let Some(caller) = self.acts.last_mut() {
                caller.node = NodeIndex::new(site);
                caller.state.sum = saved as i128 as u128;
            }
            // The callee: the next frame's caller, or the innermost one, at the hoisted key.
            let (callee, node, sum) = match open.get(i + 1) {
                Some(next) => (key_func(next.resume), 0, 0),
                None => (
                    key_func(self.probe.key),
                    key_node(self.probe.key),
                    self.probe.sum,
                ),
            };
            if let Some(fun) = self.functions.get_mut(callee) {
                fun.starts += 1;
            }
            let mut stack = self.spare.pop().unwrap_or_default();
            stack.extend(own(i + 1));
            self.acts.push(Act {
                func: Some(callee),
                node: NodeIndex::new(node),
                ret: Some(frame.ret),
                state: Activation { sum, stack },
            });
        }
    }

    /// The probe of a call from keyed slot `id` (function `f` entered at `node`) to `to`:
    /// the falls are an addition, a path's end (a loop's back edge within the block) or a
    /// region's entry (a loop's),
    /// the callee starts with an assignment of its sum (after saving one sum, if it starts
    /// in a region), and the caller resumes at the call block's end with an addition;
    /// the callee is instrumented now, as its first call would.
    fn call_probe(&mut self, id: usize, f: usize, node: usize, to: u64) -> Option<Probe> {
        let Cold {
            last, falls, end, ..
        } = *self.cold.get(id)?;
        let (add, path_end, enter) = match falls {
            Step::Add(add) => (add, None, None),
            Step::End(e) => (0, Some((e, self.arena.ways(e) as u8)), None),
            // The block enters a loop before the call (a call in a loop whose header the
            // function's entry block runs into, as in a recursive walk whose tail call
            // became a loop: chase's tree_walk, 110 000 calls).
            Step::Action(a) => match self.arena.probe(a)? {
                ProbeOp::Push {
                    add,
                    inner: None,
                    set,
                } => (0, None, Some((add, set))),
                _ => return None,
            },
        };
        let (g, start, w, push) = self.callee_start(to)?;
        let caller = self.functions.get(f)?;
        if caller.t().node_end.get(last as usize) != Some(&end) {
            return None;
        }
        let (resume, resume_add) = caller.t().resume.get(last as usize).copied().flatten()?;
        Some(Probe {
            key: key(f, node),
            epoch: self.probe.epoch,
            next: key(g, w.index()),
            op: ProbeOp::Call {
                add,
                ret: end,
                resume: key(f, resume.index()),
                resume_add,
                site: u64::from(last),
                start,
                push,
                end: path_end,
                enter,
            },
        })
    }

    /// The function whose entry is `to`, instrumented now (as its first call would), with
    /// the sum it starts with, its first node and the sum it saves first if it starts in
    /// a region, if its start is an assignment of a signed 64-bit sum (and pushes one).
    fn callee_start(&mut self, to: u64) -> Option<(usize, i64, NodeIndex, Option<i64>)> {
        let g = self.by_entry.get(&to).copied()?;
        if !self.ensure(g) {
            return None;
        }
        let callee = self.functions.get(g)?;
        let (Some(entry), Some((_, w))) = (callee.t().entry, callee.t().start) else {
            return None;
        };
        let (start, push) = entry.signed()?;
        Some((g, start, w, push))
    }

    /// The end of the activation of function `f` that keyed slot `id` ends (its falls an
    /// addition, then a single count, after which the sum is `set`) as a path end, and
    /// `f`'s pair counter (activations started and ended in compiled code, added to its
    /// starts and ends at the exit).
    fn activation_end(&mut self, id: usize, f: usize, set: i64) -> Option<(u32, u32)> {
        let Cold { last, falls, .. } = *self.cold.get(id)?;
        let Step::Add(add) = falls else {
            return None;
        };
        let fun = self.functions.get(f)?;
        let inst = fun.inst.as_ref()?;
        let leave = fun.t().leave.get(last as usize).copied().flatten()?;
        let (table, at) = Function::finish_count(inst, leave)?;
        let at = at.wrapping_add(add as i128 as u128);
        let ops = [Op::Count { table, add: at }, Op::Set(set as i128 as u128)];
        let Step::End(end) = self.arena.store(&ops, &[], &fun.places) else {
            return None;
        };
        Some((end, u32::try_from(self.pairs(f)?).ok()?))
    }

    /// The window of sparse path end `e` pinned for the probes of this epoch, if one
    /// counted (see [`Arena::pinned`]).
    fn pinned(&mut self, e: u32) -> Option<prof_events::ProbeEnd> {
        let pool = &self.pool;
        self.arena.pinned(e, |c| pool.count(c))
    }

    /// Function `f`'s pair counter (activations started and ended in compiled code, added
    /// to its starts and ends at the exit), allocated at first.
    fn pairs(&mut self, f: usize) -> Option<usize> {
        let fun = self.functions.get_mut(f)?;
        Some(*fun.pairs.get_or_insert_with(|| self.pool.alloc()))
    }

    /// The probe of a return from keyed slot `id` (function `f` entered at `node`): the
    /// falls are an addition and the activation's end counts one sum. Counts its calls and
    /// returns taken in compiled code in `f`'s pair counter.
    fn return_probe(&mut self, id: usize, f: usize, node: usize) -> Option<Probe> {
        let (end, pairs) = self.activation_end(id, f, 0)?;
        // The sink counts the returns the probe leaves to it through the same path end,
        // whose windows (a sparse table's) then follow their sums.
        self.cold.get_mut(id)?.ret_end = end;
        Some(Probe {
            key: key(f, node),
            epoch: self.probe.epoch,
            next: NO_KEY,
            op: ProbeOp::Return {
                end,
                ways: self.arena.ways(end) as u8,
                pairs,
                // A dense table's path end, which never changes, comes in the probe.
                first: self.arena.fixed_end(end),
                saves_none: self.functions.get(f)?.saves_none,
            },
        })
    }

    /// The probe of a tail call from keyed slot `id` (function `f` entered at `node`) to
    /// `to`, another function's entry: `f`'s activation ends as a return's would (its
    /// pair counter counting it) and the callee's starts with an assignment of its sum
    /// (after saving one sum, if it starts in a region). (A sparse table's end gets no
    /// window: the sink does not count through it, so such a tail call's probe never
    /// applies.)
    fn tail_probe(&mut self, id: usize, f: usize, node: usize, to: u64) -> Option<Probe> {
        if !matches!(self.out_to(f, to, EmuEdge::Jump), Some(Out::Tail(_))) {
            return None;
        }
        let (g, start, w, push) = self.callee_start(to)?;
        let (end, pairs) = self.activation_end(id, f, start)?;
        self.cold.get_mut(id)?.ret_end = end;
        Some(Probe {
            key: key(f, node),
            epoch: self.probe.epoch,
            next: key(g, w.index()),
            op: ProbeOp::Tail {
                end,
                ways: self.arena.ways(end) as u8,
                pairs,
                push,
            },
        })
    }

    /// The probe of a resynchronising indirect jump from keyed slot `id` (function `f`
    /// entered at `node`) to `to`: the activation ends as a return's would (its pair
    /// counter counting it and the one that starts) and restarts through the resync edge
    /// to `to`, when that is an assignment of its sum (after saving one sum, if `to` is in
    /// a region).
    fn restart_probe(&mut self, id: usize, f: usize, node: usize, to: u64) -> Option<Probe> {
        let Some(Out::Resync { edge, node: w }) = self.out_to(f, to, EmuEdge::IndirectJump) else {
            return None;
        };
        let inst = self.functions.get(f)?.inst.as_ref()?;
        let mut ops = Vec::new();
        compose(&mut ops, &inst.start_ops);
        compose(&mut ops, inst.ops_for(edge as usize));
        let (start, push) = Entry::of(&ops)?.signed()?;
        let (end, pairs) = self.activation_end(id, f, start)?;
        let restarts = &mut self.cold.get_mut(id)?.restarts;
        let at = restarts
            .iter()
            .position(|r| r.is_some_and(|r| r.to == to))
            .unwrap_or(RESTARTS - 1);
        restarts.copy_within(..at, 1);
        restarts[0] = Some(Restart {
            to,
            end,
            node: w,
            push,
        });
        Some(Probe {
            key: key(f, node),
            epoch: self.probe.epoch,
            next: key(f, w as usize),
            op: ProbeOp::Restart {
                end,
                ways: self.arena.ways(end) as u8,
                pairs,
                push,
            },
        })
    }

    /// Runs the call `edge` from a block keyed to the state's key as its probe does, if it
    /// has one that applies to the state as it stands (a probe that missed because events
    /// were pending): its frame stays in the state, for compiled code to take its return.
    /// (A return's probe would add a path end to the arena at each ask.)
    fn probe_edge(&mut self, edge: &Edge) -> bool {
        let (id, key) = (edge.from.index(), self.probe.key);
        let (f, node) = (key_func(key), key_node(key));
        let probe = match edge.kind {
            _ if signed_64(self.probe.sum).is_none() => None,
            EmuEdge::Call | EmuEdge::IndirectCall => self.call_probe(id, f, node, edge.to),
            _ => None,
        };
        let Some(probe) = probe else {
            return false;
        };
        let (counts, ends) = (self.pool.counts_mut(), self.arena.ends());
        prof_events::probe::apply(&probe, edge.to, &mut self.probe, counts, ends)
    }

    /// Counts the path that a return from keyed slot `id` ends in function `f`, whose
    /// falls are `falls` from node `last`, on the hoisted sum: through the return probe's
    /// path end where it has one (whose windows then follow the sum), else the falls and
    /// the function's finish. `false`, having done nothing, where the falls are an arena
    /// action or the finish is unknown.
    fn count_return(&mut self, id: usize, f: usize, (last, falls): (u32, Step)) -> bool {
        if matches!(falls, Step::Action(_)) {
            return false;
        }
        let finish = self
            .functions
            .get(f)
            .and_then(|fun| fun.t().finish.get(last as usize));
        let Some(&Some((place, fadd))) = finish else {
            return false;
        };
        match (falls, self.cold.get(id).map_or(NONE, |c| c.ret_end)) {
            (Step::Add(_), e) if e != NONE => {
                self.end_path(f, e, self.probe.sum);
            }
            _ => {
                let sum = self
                    .cached_falls(falls)
                    .unwrap_or(self.probe.sum)
                    .wrapping_add(fadd);
                if let Some(fun) = self.functions.get_mut(f) {
                    fun.count_at(&mut self.pool, place, sum);
                }
            }
        }
        true
    }

    /// Runs the return `edge` from a block keyed to the state's key into the state's
    /// innermost open frame as its probe does, counting the callee's path through the
    /// probe's path end (a probe misses where a sparse table's windows hold no counter of
    /// its sum; the windows then follow the sum), so that the frames below stay compiled
    /// code's: taking them over, as any other event does, would leave each of their
    /// returns to the sink too (chase's recursive `tree_height`; with
    /// [`frame_tail`](Self::frame_tail), a flat run of chase 250000 delivers 269390 edge
    /// events instead of 322294).
    #[inline(never)]
    fn frame_return(&mut self, edge: &Edge) -> bool {
        if edge.kind != EmuEdge::Return || self.record_edges {
            return false;
        }
        let f = key_func(self.probe.key);
        let saves_none = self.functions.get(f).is_some_and(|fun| fun.saves_none);
        let Some(frame) = self.probe.closing(edge.to, saves_none) else {
            return false;
        };
        let id = edge.from.index();
        let Some(falls) = self.cold.get(id).map(|c| (c.last, c.falls)) else {
            return false;
        };
        // (Counted, `f` is a function: it has a pair counter.)
        if !self.count_return(id, f, falls) {
            return false;
        }
        if let Some(pairs) = self.pairs(f) {
            self.pool.add(pairs, 1);
        }
        self.probe.close_frame(frame);
        true
    }

    /// Runs the tail call `edge` (a jump's) from a block keyed to the state's key within
    /// the state's innermost open frame as its probe does, counting the caller's path
    /// through the probe's path end (which a sparse table's windows may not hold; they
    /// then follow the sum), so that the frames stay compiled code's, as in
    /// [`frame_return`](Self::frame_return) (chase's `tree_free`, whose tail call to
    /// `free` took them over 31744 times in a flat run of chase 250000).
    #[inline(never)]
    fn frame_tail(&mut self, edge: &Edge) -> bool {
        if self.record_edges || self.probe.depth == 0 || self.probe.saved != self.probe.floor {
            return false;
        }
        let id = edge.from.index();
        let keyed = self.slots.get(id).is_some_and(|s| s.key == self.probe.key);
        let end = self.cold.get(id).map_or(NONE, |c| c.ret_end);
        if !keyed || end == NONE {
            return false;
        }
        let f = key_func(self.probe.key);
        let Some((g, _, w, push)) = self.callee_start(edge.to) else {
            return false;
        };
        if !self.probe.room_for(usize::from(push.is_some())) {
            return false;
        }
        let Some(pairs) = self.pairs(f) else {
            return false;
        };
        self.probe.sum = self.end_path(f, end, self.probe.sum);
        self.pool.add(pairs, 1);
        if let Some(push) = push {
            self.probe.save(push);
        }
        self.probe.key = key(g, w.index());
        true
    }

    /// The slot of `block` keyed for the function the top activation runs, entered at the
    /// block's start: its index, the function and the node (none while edges are
    /// recorded: every edge must reach the sink).
    fn probe_slot(&mut self, block: &BlockInfo) -> Option<(usize, usize, usize)> {
        self.settle();
        if self.record_edges {
            return None;
        }
        let id = block.id.index();
        let f = self.acts.last()?.func?;
        let node = self
            .functions
            .get(f)?
            .t()
            .node_at
            .get(&block.start)?
            .index();
        self.key_slot(id, f, node);
        Some((id, f, node))
    }

    /// A cached call from keyed slot `id` to `to` (see [`Slot::call`]) on the hoisted
    /// state; `false` if it is not cached.
    #[inline(never)]
    fn fast_call(&mut self, id: usize, to: u64) -> bool {
        let Some(((last, falls), call)) = self.slots.get(id).and_then(|s| s.call(to)) else {
            return false;
        };
        let Some(push) = self
            .functions
            .get(call.callee as usize)
            .map(Function::first_push)
        else {
            return false;
        };
        if self.acts.is_empty() {
            return false;
        }
        // The falls may count a path's end: nothing after them may give up.
        let Some(sum) = self.cached_falls(falls) else {
            return false;
        };
        self.push_call(&Call::cached(last, None, call, push), sum);
        self.probe.key = key(call.callee as usize, call.entry as usize);
        self.probe.sum = call.sum as i128 as u128;
        true
    }

    /// Runs a trace's composed `step` on the hoisted state.
    #[inline(always)]
    fn run_composed(&mut self, step: Composed) {
        let f = key_func(self.probe.key);
        let sum = self.probe.sum.wrapping_add(step.pre);
        if step.first != NONE {
            self.end_path(f, step.first, sum);
        }
        let (start, len) = step.calls;
        for i in start..start + len {
            if let Some(call) = self.traces.call(i) {
                self.push_call(&call, sum);
            }
        }
        let (start, len) = step.counts;
        for i in start..start + len {
            match self.traces.count(i) {
                // A dense table's counter: always in the pool.
                Some(Count::Bump { counter, n }) => {
                    self.pool.add(counter, n);
                }
                Some(Count::End {
                    func,
                    end,
                    sum: known,
                }) => {
                    self.end_path(func as usize, end, known);
                }
                None => {}
            }
        }
        self.probe.key = step.next;
        self.probe.sum = if step.known { step.post } else { sum };
    }

    /// A run of a trace whose composition is not made for the top activation's key or
    /// stops short of the run: composes it (within its budget), runs what is composed,
    /// and the rest edge by edge.
    #[inline(never)]
    fn trace_slow(&mut self, id: TraceId, n: u32) {
        let functions = &self.functions;
        let push = |g: u32| functions.get(g as usize).map(Function::first_push);
        let plan = self
            .traces
            .plan(id, n, self.probe.key, &self.slots, &self.arena, push);
        if let Some(step) = plan.step {
            self.run_composed(step);
        }
        for i in plan.done..plan.end {
            if let Some(e) = self.traces.edge(id, i) {
                let _ = self.edge(&e);
            }
        }
    }

    /// Makes cached call `call` from the top activation, whose sum is then `call.sum` or
    /// else `sum`: the caller stands at its call block's last node, and the callee's
    /// activation is pushed. The hoisted key and sum are left to the caller.
    #[inline(always)]
    fn push_call(&mut self, call: &Call, sum: u128) {
        if let Some(act) = self.acts.last_mut() {
            act.node = NodeIndex::new(call.node as usize);
            act.state.sum = call.sum.unwrap_or(sum);
        }
        if let Some(fun) = self.functions.get_mut(call.callee as usize) {
            fun.starts += 1;
        }
        let mut stack = self.spare.pop().unwrap_or_default();
        stack.extend(call.push);
        self.acts.push(Act {
            func: Some(call.callee as usize),
            node: NodeIndex::new(call.entry as usize),
            ret: Some(call.ret),
            state: Activation {
                sum: call.start,
                stack,
            },
        });
    }

    /// A return from keyed slot `id` to `to` on the hoisted state, when its falls are
    /// cached, the top activation returns to `to`, its end is a single count, and its
    /// caller resumes with an addition; `false` otherwise (nothing done).
    #[inline(never)]
    fn fast_return(&mut self, id: usize, to: u64) -> bool {
        let Some((last, falls)) = self.slots.get(id).and_then(Slot::falls) else {
            return false;
        };
        let n = self.acts.len();
        let (Some(top), Some(caller)) = (self.acts.get(n.wrapping_sub(1)), n.checked_sub(2)) else {
            return false;
        };
        let Some(caller) = self.acts.get(caller) else {
            return false;
        };
        let f = key_func(self.probe.key);
        let (Some(g), true, false) = (caller.func, top.ret == Some(to), self.record_edges) else {
            return false;
        };
        let at = caller.node.index();
        let resume = self.functions.get(g).and_then(|fun| {
            (fun.t().node_end.get(at) == Some(&to))
                .then(|| fun.t().resume.get(at).copied().flatten())
                .flatten()
        });
        let Some((w, radd)) = resume else {
            return false;
        };
        if !self.count_return(id, f, (last, falls)) {
            return false;
        }
        if let Some(fun) = self.functions.get_mut(f) {
            fun.ends += 1;
        }
        self.pop_act();
        let Some(caller) = self.acts.last_mut() else {
            return true;
        };
        caller.node = w;
        // From a register, not reloaded from the halves just stored.
        let sum = caller.state.sum.wrapping_add(radd as i128 as u128);
        caller.state.sum = sum;
        self.probe.key = key(g, w.index());
        self.probe.sum = sum;
        true
    }

    /// Follows the fall-through edges of the top activation up to the node that holds the
    /// byte before `end` (uncached: for the end of the run).
    fn advance(&mut self, end: u64) {
        let Some(act) = self.acts.last() else { return };
        let Some(f) = act.func else { return };
        let Some(func) = self.functions.get(f) else {
            return;
        };
        self.scratch_ops.clear();
        self.scratch_edges.clear();
        let (ops, edges) = (&mut self.scratch_ops, &mut self.scratch_edges);
        let last = func.walk_falls(act.node.index(), end, ops, edges);
        let step = self.arena.store(ops, edges, &func.places);
        self.step_top(f, step);
        if let Some(act) = self.acts.last_mut() {
            act.node = NodeIndex::new(last);
        }
    }

    /// Everything but a cached inline step (see [`Sink::edge`]): fills the cache, runs
    /// arena steps, calls, returns, and transfers out of the function.
    #[inline(never)]
    fn on_edge(&mut self, from: BlockId, to: u64, kind: EmuEdge) {
        let id = from.index();
        let Some(&Cold { start, end, .. }) = self.cold.get(id) else {
            return;
        };
        if self.acts.is_empty() {
            // The first block of the run: an activation of the function it starts, if any.
            let f = self.by_entry.get(&start).copied();
            self.start(f, None);
        }
        let top = self.acts.len() - 1;
        let func = self.acts[top].func;
        if let Some(f) = func {
            let node = self.acts[top].node.index();
            self.key_slot(id, f, node);
            if let Some(entry) = entry_of(kind) {
                if let Some((next, step)) = self.successor(id, to, entry, Some(kind)) {
                    self.step_top(f, step);
                    self.acts[top].node = NodeIndex::new(next as usize);
                    if let Some(out) = match step {
                        Step::Action(a) => self.arena.out(a),
                        _ => None,
                    } {
                        self.leave(f, out);
                    }
                    return;
                }
            }
            if kind == EmuEdge::IndirectJump && self.restart_through(id, f, to) {
                return;
            }
            let Cold { last, falls, .. } = self.cold[id];
            self.step_top(f, falls);
            self.acts[top].node = NodeIndex::new(last as usize);
            if let (false, None) = (self.record_edges, entry_of(kind)) {
                // A call or return block: its entries are free for its falls.
                self.slots[id].set_falls(last, falls);
            }
        } else {
            self.stats.unknown_events += 1;
        }
        match kind {
            EmuEdge::Call | EmuEdge::IndirectCall => {
                let callee = match self.cold[id].callee {
                    Some((t, g)) if t == to => (g != NONE).then_some(g as usize),
                    _ => {
                        let g = self.by_entry.get(&to).copied();
                        self.cold[id].callee = Some((to, g.map_or(NONE, |g| g as u32)));
                        g
                    }
                };
                self.start(callee, Some(end));
                if let (Some(_), Some(g)) = (func, callee) {
                    self.remember_call(id, to, g, end);
                }
            }
            EmuEdge::Return => self.on_return(to),
            _ => self.transfer_out(func, to, kind),
        }
    }

    /// A transfer that is no flow edge of the top activation's function (or in unknown
    /// code): a tail call, a resynchronising indirect jump, or a desynchronisation.
    fn transfer_out(&mut self, func: Option<usize>, to: u64, kind: EmuEdge) {
        let Some(f) = func else {
            // Unknown code jumping to a known function's entry: follow it from there.
            if let Some(&g) = self.by_entry.get(&to) {
                let ret = self.pop_act();
                self.start(Some(g), ret);
            }
            return;
        };
        let fun = &self.functions[f];
        let Some(cfg) = fun.inst.as_ref().map(|i| &i.hier.cfg) else {
            return;
        };
        match self.out_to(f, to, kind) {
            Some(out) => self.leave(f, out),
            None => {
                let node = self.acts[self.acts.len() - 1].node;
                let sample = (cfg.name.clone(), cfg.graph[node].start, to, kind);
                self.desynced(sample);
            }
        }
    }

    /// What a transfer of `kind` to `to` that is no flow edge of function `f` is: a tail
    /// call (to another function's entry), or a resynchronising indirect jump.
    fn out_to(&self, f: usize, to: u64, kind: EmuEdge) -> Option<Out> {
        if let Some(&g) = self.by_entry.get(&to) {
            return Some(Out::Tail(g as u32));
        }
        let &(e, w) = self.functions.get(f)?.t().resync.get(&to)?;
        (kind == EmuEdge::IndirectJump).then_some(Out::Resync {
            edge: e as u32,
            node: w.index() as u32,
        })
    }

    /// The successor of keyed slot `id` at `to` when it is a tail call: the falls to the
    /// block's last node, then the call. A resynchronising indirect jump is left uncached:
    /// its targets vary (a `switch`) and thrash the slot's two entries, and caching it made
    /// coremark slower (overhead --only region, 1.54x to 1.64x).
    fn resolve_out(&mut self, id: usize, to: u64, kind: EmuEdge) -> Option<(u32, Step)> {
        let k = self.slots.get(id)?.key & !NOT_FLOW;
        let f = key_func(k);
        let out = self
            .out_to(f, to, kind)
            .filter(|out| matches!(out, Out::Tail(_)))?;
        let end = self.cold.get(id)?.end;
        let func = self.functions.get(f)?;
        self.scratch_ops.clear();
        self.scratch_edges.clear();
        let (ops, edges) = (&mut self.scratch_ops, &mut self.scratch_edges);
        let last = func.walk_falls(key_node(k), end, ops, edges);
        let step = self.arena.store_out(ops, edges, &func.places, Some(out));
        Some((last as u32, step))
    }

    /// Takes transfer `out` from the top activation, which runs function `f` and stands at
    /// the node the transfer leaves from.
    fn leave(&mut self, f: usize, out: Out) {
        self.finish_top();
        match out {
            Out::Tail(g) => {
                let ret = self.pop_act();
                self.start(Some(g as usize), ret);
            }
            Out::Resync { edge, node } => {
                let Some(act) = self.acts.last_mut() else {
                    return;
                };
                act.func = Some(f);
                act.node = Cfg::entry();
                act.state.sum = 0;
                act.state.stack.clear();
                let func = &mut self.functions[f];
                if func.execute(&mut self.pool, &mut act.state, &[Ops::Start], false) {
                    func.starts += 1;
                }
                self.take(edge as usize, NodeIndex::new(node as usize));
            }
        }
    }

    /// The restart of the top activation (function `f`, standing at keyed slot `id`'s
    /// node) at `to` as its probe does, when slot `id` was given the probe of that restart
    /// and the activation saved no sum: through the probe's path end (see
    /// [`Cold::restarts`]), as [`leave`](Self::leave) would count it otherwise; `false` if
    /// not (nothing done).
    fn restart_through(&mut self, id: usize, f: usize, to: u64) -> bool {
        let Some(&Cold {
            restarts,
            falls: Step::Add(_),
            ..
        }) = self.cold.get(id)
        else {
            return false;
        };
        let Some(restart) = restarts.into_iter().flatten().find(|r| r.to == to) else {
            return false;
        };
        let Some(act) = self.acts.last() else {
            return false;
        };
        if self.record_edges || !act.state.stack.is_empty() {
            return false;
        }
        let sum = self.end_path(f, restart.end, act.state.sum);
        if let Some(fun) = self.functions.get_mut(f) {
            fun.ends += 1;
            fun.starts += 1;
        }
        if let Some(act) = self.acts.last_mut() {
            act.state.sum = sum;
            act.state
                .stack
                .extend(restart.push.map(|p| p as i128 as u128));
            act.node = NodeIndex::new(restart.node as usize);
        }
        true
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
                match fun.t().flow_to(act.node.index(), to) {
                    Some((e, w)) => self.take(e, w),
                    None => {
                        if let Some(cfg) = fun.inst.as_ref().map(|i| &i.hier.cfg) {
                            let from = cfg.graph[act.node].start;
                            self.desynced((cfg.name.clone(), from, to, EmuEdge::Return));
                        }
                    }
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

/// The hoisted key of an activation outside every instrumented function (no slot's key:
/// function indices stay far below `u32::MAX`).
const NO_FUNC: u64 = u64::MAX - 1;

/// An activation's start (start operations and entry edge) that counts nothing and pushes
/// at most one sum: a fresh activation (sum 0, empty stack) pushes `push`, then holds `sum`.
/// Its entry block heads a loop in region-based mode, for one (e.g. `strcmp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    push: Option<u128>,
    sum: u128,
}

impl Entry {
    /// The effect of `ops` on a fresh activation, if it is an [`Entry`].
    fn of(ops: &[Op]) -> Option<Entry> {
        let mut sum = 0u128;
        let mut push = None;
        for &op in ops {
            match op {
                Op::Add(v) => sum = sum.wrapping_add(v),
                Op::Set(v) => sum = v,
                Op::Push(v) if push.is_none() => push = Some(sum.wrapping_add(v)),
                Op::Push(_) | Op::Pop | Op::Count { .. } => return None,
            }
        }
        Some(Entry { push, sum })
    }

    /// The sum it starts with and the one it saves first, if any, as a probe gives them:
    /// `None` unless they are signed 64-bit values.
    fn signed(self) -> Option<(i64, Option<i64>)> {
        let push = match self.push {
            Some(p) => Some(signed_64(p)?),
            None => None,
        };
        Some((signed_64(self.sum)?, push))
    }
}

/// Which of a plan's operation lists to run.
#[derive(Clone, Copy, Debug)]
enum Ops {
    /// When an activation starts.
    Start,
    /// On a CFG edge.
    Edge(usize),
    /// When an activation ends at the virtual exit.
    End,
}

impl Function {
    /// The sum its start pushes on a fresh activation, if any (a cached call's).
    fn first_push(&self) -> Option<u128> {
        self.t().entry.and_then(|e| e.push)
    }

    /// The function's name (its symbol, or its address).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The plan of `cfg`: the user's regions, else those `regions` chooses; the measured
    /// weights, else the estimate; saved sums known when instrumenting folded away
    /// ([`Instrumented::fold_known_saves`]).
    fn instrument(
        &mut self,
        cfg: Cfg,
        mode: Mode,
        regions: RegionChoice,
    ) -> Result<Instrumented, Error> {
        // (Every node must have a key; checked before any of the plan is built.)
        let nodes = cfg.node_count();
        if nodes > 1 << NODE_BITS {
            return Err(Error::Invalid(format!(
                "{nodes} CFG nodes, more than a path profile's keys name (2^{NODE_BITS})"
            )));
        }
        let tree = match (&self.user_regions, regions) {
            (Some(user), _) => RegionTree::from_user(&cfg, user)?,
            (None, RegionChoice::Flat) => RegionTree::flat(&cfg),
            (None, RegionChoice::Loops) => RegionTree::loops(&cfg),
            (None, RegionChoice::LoopsAndHammocks) => RegionTree::loops_and_hammocks(&cfg),
        };
        let weights = self
            .weights
            .take()
            .map_or(Weights::Estimate, Weights::Measured);
        let mut inst = Instrumented::new(Hierarchy::new(cfg, tree)?, mode, &weights)?;
        inst.fold_known_saves();
        Ok(inst)
    }

    /// The table and addition of the single count that exit edge `leave` and the end
    /// compose to, if they do.
    fn finish_count(inst: &Instrumented, leave: usize) -> Option<(u32, u128)> {
        let mut ops = Vec::new();
        compose(&mut ops, inst.ops_for(leave));
        compose(&mut ops, &inst.end_ops);
        match ops[..] {
            // The sum is dead once the activation ends.
            [Op::Count { table, add }] | [Op::Count { table, add }, Op::Add(_)] => {
                Some((table, add))
            }
            _ => None,
        }
    }

    /// Precomputes the shortcuts of activation starts and ends (`entry`, `finish`) and of
    /// returns (`resume`), once the tables are indexed and the counters placed.
    fn shortcuts(&mut self, inst: &Instrumented) {
        let places = &self.places;
        let Some(t) = self.tables.as_deref_mut() else {
            return;
        };
        let mut ops = Vec::new();
        compose(&mut ops, &inst.start_ops);
        if let Some((e, _)) = t.start {
            compose(&mut ops, inst.ops_for(e.index()));
        }
        t.entry = Entry::of(&ops);
        t.finish = t
            .leave
            .iter()
            .map(|leave| {
                let (table, add) = Self::finish_count(inst, (*leave)?)?;
                Some((Place::of(table, places), add))
            })
            .collect();
        t.resume = (0..t.node_end.len())
            .map(|v| {
                let (e, w) = t.flow_to(v, *t.node_end.get(v)?)?;
                let mut ops = Vec::new();
                compose(&mut ops, inst.ops_for(e));
                match ops[..] {
                    [] => Some((w, 0)),
                    [Op::Add(a)] if a as i64 as u128 == a => Some((w, a as i64)),
                    _ => None,
                }
            })
            .collect();
    }

    /// Counts `sum` at `place` (a pooled table or a sparse one of the function's counters).
    fn count_at(&mut self, pool: &mut Pool, place: Place, sum: u128) {
        if let Some(counters) = &mut self.counters {
            pool.count_at(place, sum, counters);
        }
    }

    /// Runs `lists` of the plan on `state`, dense tables counting into `pool` (and edges
    /// into `edge_counts` when `record`); `false` if the function is not instrumented.
    fn execute(
        &mut self,
        pool: &mut Pool,
        state: &mut Activation,
        lists: &[Ops],
        record: bool,
    ) -> bool {
        let (Some(inst), Some(counters)) = (&self.inst, &mut self.counters) else {
            return false;
        };
        let mut tally = Pooled {
            pool,
            places: &self.places,
            counters,
        };
        for &list in lists {
            let ops = match list {
                Ops::Start => &inst.start_ops[..],
                Ops::Edge(e) => {
                    if let (true, Some(c)) = (record, self.edge_counts.get_mut(e)) {
                        *c += 1;
                    }
                    inst.ops_for(e)
                }
                Ops::End => &inst.end_ops[..],
            };
            state.run(ops, &mut tally);
        }
        true
    }

    /// Follows fall-through edges from `node` to the node that holds the byte before `end`,
    /// appending their composed operations and their indices. Returns that node.
    fn walk_falls(&self, node: usize, end: u64, ops: &mut Vec<Op>, edges: &mut Vec<u32>) -> usize {
        let Some(inst) = &self.inst else { return node };
        let mut node = node;
        let mut guard = 0u32;
        let t = self.t();
        while t.node_end.get(node).is_some_and(|&e| e < end) && guard < 1 << 16 {
            let Some(Some((e, w))) = t.fall.get(node).copied() else {
                break;
            };
            compose(ops, inst.ops_for(e));
            edges.push(e as u32);
            node = w.index();
            guard += 1;
        }
        node
    }

    /// A function not instrumented yet (named `name`; its CFG, unless it is recovered
    /// later): its tables are built on its first call.
    fn new(name: String, cfg: Option<Cfg>) -> Function {
        Function {
            name,
            inst: None,
            error: None,
            counters: None,
            edge_counts: Vec::new(),
            starts: 0,
            ends: 0,
            pairs: None,
            cfg: cfg.map(Box::new),
            user_regions: None,
            weights: None,
            places: Vec::new(),
            saves_none: false,
            tables: None,
        }
    }

    /// The runtime's tables (empty until the function is instrumented).
    fn t(&self) -> &Tables {
        self.tables.as_deref().unwrap_or(&NO_TABLES)
    }

    /// Builds the runtime's tables of `cfg`.
    fn index(&mut self, cfg: &Cfg) {
        self.tables = Some(Box::new(Tables::of(cfg)));
        self.edge_counts = vec![0; cfg.graph.edge_count()];
    }
}

impl Tables {
    /// The tables of `cfg` (its shortcuts, `entry`, `finish` and `resume`, come with the
    /// plan: see [`Function::shortcuts`]).
    fn of(cfg: &Cfg) -> Tables {
        let n = cfg.node_count();
        let mut t = Tables {
            fall: vec![None; n],
            leave: vec![None; n],
            ..Tables::default()
        };
        t.node_at.reserve(n);
        for v in cfg.graph.node_indices().skip(2) {
            t.node_at.insert(cfg.graph[v].start, v);
        }
        let succs = cfg.all_succs();
        let flows = cfg.graph.node_indices().flat_map(|v| {
            let flow = |&&(e, _): &&(EdgeIndex, NodeIndex)| cfg.graph[e] == EdgeKind::Flow;
            let to = move |&(e, w): &(EdgeIndex, NodeIndex)| {
                (v.index(), (cfg.graph[w].start, e.index(), w))
            };
            succs.of(v).iter().filter(flow).map(to)
        });
        t.flows = Adjacency::new(n, flows);
        for v in cfg.graph.node_indices() {
            for &(e, w) in succs.of(v) {
                match cfg.graph[e] {
                    EdgeKind::Flow => {
                        let ts = cfg.graph[w].start;
                        if ts == cfg.graph[v].end {
                            t.fall[v.index()] = Some((e.index(), w));
                        }
                    }
                    EdgeKind::Leave => t.leave[v.index()] = Some(e.index()),
                    EdgeKind::Resync => {
                        t.resync.insert(cfg.graph[w].start, (e.index(), w));
                    }
                    EdgeKind::Start => {}
                }
            }
        }
        t.start = cfg
            .succs(Cfg::entry())
            .into_iter()
            .find(|&(e, _)| cfg.graph[e] == EdgeKind::Start);
        t.node_end = cfg.graph.node_weights().map(|b| b.end).collect();
        t
    }

    /// The flow edge from `node` to the block starting at `to`.
    fn flow_to(&self, node: usize, to: u64) -> Option<(usize, NodeIndex)> {
        self.flows
            .of(node)
            .iter()
            .find(|(s, ..)| *s == to)
            .map(|&(_, e, w)| (e, w))
    }
}

impl Sink for PathSink {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn wants(&mut self) -> Interest {
        Interest::EXIT
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        let i = block.id.index();
        if self.slots.len() <= i {
            self.slots.resize(i + 1, Slot::default());
            self.cold.resize(i + 1, Cold::new(0, 0, true));
        }
        self.slots[i] = Slot::default();
        self.cold[i] = Cold::new(block.start, block.end, ends_in_flow(block.ends_with));
        Interest::EDGE
    }

    /// The hot path: a flow transfer from a block whose slot is keyed to the top
    /// activation's function and node (hoisted in `cur`), to a cached successor with an
    /// inline addition, is a key compare, an address compare, an add and two stores (the
    /// new key is the entry's); a path's end is an indexed add in the pool, a longer arena
    /// step one call. The edge's kind is not read: a call or return block's key is marked
    /// (`NOT_FLOW`), so it fails the first compare and meets the second. Everything else
    /// goes to `on_edge`. (First, a wide sum lent as an offset is taken back: one compare.)
    #[inline(always)]
    fn edge(&mut self, edge: &Edge) -> Control {
        self.take_offset();
        // A tail call whose probe missed (its cached step, if any, is an action); the
        // kind is tested here, so that other edges make no call out of line.
        if edge.kind == EmuEdge::Jump && self.frame_tail(edge) {
            return Control::Continue;
        }
        if let Some(slot) = self.slots.get(edge.from.index()) {
            if slot.key == self.probe.key {
                if let Some((next, step)) = slot.hit(edge.to) {
                    let f = key_func(self.probe.key);
                    self.probe.key = next;
                    match step {
                        Step::Add(v) => {
                            self.probe.sum = self.probe.sum.wrapping_add(v as i128 as u128)
                        }
                        Step::End(e) => self.probe.sum = self.end_path(f, e, self.probe.sum),
                        Step::Action(a) => {
                            self.settle();
                            self.placed_action(f, a)
                        }
                    }
                    return Control::Continue;
                }
            } else if slot.key == self.probe.key | NOT_FLOW {
                if self.probe_edge(edge) || self.frame_return(edge) {
                    return Control::Continue;
                }
                self.settle();
                let taken = match edge.kind {
                    EmuEdge::Return => self.fast_return(edge.from.index(), edge.to),
                    _ => self.fast_call(edge.from.index(), edge.to),
                };
                if taken {
                    return Control::Continue;
                }
            }
        }
        self.settle();
        self.spill();
        self.on_edge(edge.from, edge.to, edge.kind);
        self.fill();
        Control::Continue
    }

    /// Takes every trace whose parts deliver their edges (all, when the sink runs alone): a
    /// run executes its edges' cached steps composed once per trace and entry key.
    fn trace_formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
        self.traces.formed(id, parts)
    }

    #[inline]
    fn trace(&mut self, id: TraceId, n: u32) -> Control {
        self.settle();
        match self.traces.composed(id, n, self.probe.key) {
            Some(&step) => self.run_composed(step),
            None => self.trace_slow(id, n),
        }
        Control::Continue
    }

    /// The hoisted key and sum, over the pool's counters and the arena's path ends; a
    /// switch of [`record_edges`](Self::record_edges) clears the cache first, so that no
    /// probe given before applies.
    fn probe_state(&mut self) -> Option<ProbeLease<'_>> {
        if self.arena.record != self.record_edges {
            self.settle();
            self.clear_cache();
        }
        self.hoist_saves();
        self.lend_offset();
        Some(ProbeLease {
            state: &mut self.probe,
            counts: self.pool.counts_mut(),
            ends: self.arena.ends(),
        })
    }

    /// A flat profile saves no sums: its only region is the function, which no edge
    /// enters or leaves but calls and returns.
    fn saves_sums(&mut self) -> bool {
        self.regions != RegionChoice::Flat
    }

    /// The cached step of the flow edge from `block` to `to` for the function the top
    /// activation runs, entered at the block's start, when it is an addition or a path
    /// end (composed and cached now, as a miss would): the hot path's hit, as a probe; for
    /// a call whose falls are an addition into a callee that starts with an assignment of
    /// its sum, the call's. None while edges are recorded (every edge must reach the sink).
    fn probe(&mut self, block: &BlockInfo, to: u64) -> Option<Probe> {
        let (id, f, node) = self.probe_slot(block)?;
        let k = self.slots.get(id)?.key;
        if k & NOT_FLOW != 0 {
            let call = matches!(block.ends_with, BlockEnd::Call | BlockEnd::IndirectCall);
            return call.then(|| self.call_probe(id, f, node, to)).flatten();
        }
        let entry = match block.ends_with {
            // An unresolved jump restarts the activation; a jump table's is a flow edge.
            BlockEnd::IndirectJump if !self.functions.get(f)?.t().resync.is_empty() => {
                return self.restart_probe(id, f, node, to);
            }
            BlockEnd::IndirectJump => None,
            _ => Some(usize::from(to != block.end)),
        };
        let Some((next, step)) = self.successor(id, to, entry, None) else {
            return self.tail_probe(id, f, node, to);
        };
        let op = match step {
            Step::Add(v) => ProbeOp::Add(v),
            Step::End(e) => match self.arena.fixed_end(e) {
                Some(end) => ProbeOp::Count(end),
                None => ProbeOp::End {
                    end: e,
                    ways: self.arena.ways(e) as u8,
                    // (Every way, a window of the path end's table, sets the path end's.)
                    set: self.arena.end(e)?.set,
                    first: self.pinned(e),
                },
            },
            Step::Action(a) => {
                // A sparse table's region exit or entry at a path end tries its pinned
                // window first, as a path end does (a dense table's comes in the probe).
                let mut op = self.arena.probe(a)?;
                if let ProbeOp::Pop { end, first, .. } | ProbeOp::PushEnd { end, first, .. } =
                    &mut op
                {
                    if first.is_none() {
                        *first = self.pinned(*end);
                    }
                }
                op
            }
        };
        Some(Probe {
            key: k,
            epoch: self.probe.epoch,
            next: key(key_func(k), next as usize),
            op,
        })
    }

    /// The probe of a return block whose falls are an addition and whose activation's end
    /// is a single count (a sparse table's in the windows its path end keeps): it counts
    /// the path, and the call and return in the
    /// function's pair counter (added to its starts and ends at the exit).
    fn probe_return(&mut self, block: &BlockInfo) -> Option<Probe> {
        let (id, f, node) = self.probe_slot(block)?;
        self.return_probe(id, f, node)
    }

    fn exit(&mut self, exit: &Exit) {
        self.settle();
        self.spill();
        self.advance(exit.pc);
        while !self.acts.is_empty() {
            self.finish_top();
            self.pop_act();
        }
        self.flush_memos(false);
        for func in &mut self.functions {
            if let Some(c) = &mut func.counters {
                self.pool.copy_out(&func.places, c);
            }
            if let Some(p) = func.pairs {
                let n = self.pool.take(p);
                func.starts += n;
                func.ends += n;
            }
        }
        self.fill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_a_start_that_counts_nothing_and_pushes_at_most_once() {
        let entry = |push, sum| Some(Entry { push, sum });
        assert_eq!(Entry::of(&[]), entry(None, 0));
        assert_eq!(Entry::of(&[Op::Set(5)]), entry(None, 5));
        assert_eq!(
            Entry::of(&[Op::Set(0), Op::Push(0), Op::Set(0)]),
            entry(Some(0), 0)
        );
        assert_eq!(
            Entry::of(&[Op::Add(2), Op::Push(1), Op::Set(7), Op::Add(1)]),
            entry(Some(3), 8)
        );
        assert_eq!(Entry::of(&[Op::Push(0), Op::Push(0)]), None);
        assert_eq!(Entry::of(&[Op::Push(0), Op::Pop]), None);
        assert_eq!(Entry::of(&[Op::Count { table: 0, add: 0 }]), None);
    }
}

//! Augmented CFGs (region-based and global-based), their numbering, and the instrumentation
//! plan: per CFG edge a short list of [`Op`]s, as RB_PProf and GPProf insert them.
//!
//! Both traversals of the spec visit every edge once and insert code that depends only on the
//! edge's class (see [`crate::hier`]), so the plan is built edge by edge; for an edge
//! `v->w` leaving regions `R1..Rk` (innermost first) at children `x1..xk`, moving `a->b` at
//! level `L`, and entering `r1..rm` (outermost first) at children `c1..cm`:
//!
//! | step | region-based (RB_PProf) | global-based (GPProf) |
//! |---|---|---|
//! | each exit `i` | `cnt_Ri[sum + val(xi->Rx(Ri))]++; sum = pop()` | `cnt[sum + val(Xr(xi)->fx)]++; sum = pop()` |
//! | level, backedge | `cnt_L[sum + val(a->Rx)]++; sum = val(Re->b)` | `cnt[sum + val(Xr(a)->fx)]++; sum = val(fe->Er(b))` |
//! | level, other | `sum += val(a->b)` | `sum += val(Xr(a)->Er(b))` (the reassigned value) |
//! | each entry `j` | `push(sum); sum = val(Re(rj)->cj)` | `push(sum + val(Pr(rj))); sum = val(fe->Er(cj))` |
//!
//! where `Er`/`Xr` of a block is the block and of a region its representative entry/exit
//! block. A function activation starts with `sum = val(Re->entry)` and ends with
//! `cnt[sum + val(exit->Rx)]++` at the root. With `val` replaced by Ball-Larus increments on
//! the chords of a maximum spanning tree, every operand becomes the increment sum of the same
//! augmented-graph edges, and complete path sums are unchanged.
//!
//! Two readings of the scanned spec are made explicit here. GPProf's multi-level exit adds
//! `val(v->fx)` at every level; for level `i > 1` the outer path ends at the representative
//! exit of the inner region it holds (its pushed sum already covers `Pr`), so the operand is
//! `val(Xr(x_i)->fx)`, which equals `val(v->fx)` exactly when `v` is that representative exit
//! (as in Fig. 9). And the global augmented graph gets one virtual entry `E_R` per region
//! (`fe->E_R->Er(c)` instead of `fe->Er(c)`): without it a region whose path is a single inner
//! region would share its plain path with that inner region's representative path.

use std::collections::HashMap;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use crate::cfg::Cfg;
use crate::hier::{Hierarchy, Level};
use crate::numbering::{Dag, Numbering};
use crate::structure::{Child, RegionId};
use crate::Error;

/// Which hierarchical scheme to number and instrument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One augmented CFG and one counter table per region; sums unique within a region.
    RegionBased,
    /// One augmented CFG for the function, sums unique in it (counted in one table per
    /// region, each a slice of them: see [`Instrumented::table_sums`]).
    GlobalBased {
        /// Leave out the original edges into non-representative entries and out of
        /// non-representative exits, which only add unused path numbers.
        shrink: bool,
    },
}

/// Edge frequencies for placing increments on the chords of a maximum spanning tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Weights {
    /// Static estimate: an edge whose source is in a loop nest of depth d weighs 8^d.
    Estimate,
    /// A measured edge profile: one count per CFG edge index.
    Measured(Vec<u64>),
}

/// One instrumentation operation on the running path sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `sum += v` (wrapping: increments may be negative).
    Add(u128),
    /// `sum = v`.
    Set(u128),
    /// `push(sum + v)`: save the outer path's sum on entering a region.
    Push(u128),
    /// `sum = pop()`: restore the outer sum on leaving a region.
    Pop,
    /// `cnt[table][sum + add]++`: a path ended. Counter `i` of a table counts the path
    /// whose sum is the table's first ([`Instrumented::table_sums`]) plus `i`. Where a
    /// table's paths start, the plan takes off its first sum (global-based) and what its
    /// most frequent count would add, which so adds nothing.
    Count {
        /// Counter table: the region whose path ends (global-based, 0 for a function of
        /// more than 2^63 - 1 paths, whose one table holds them all).
        table: u32,
        /// Added to the sum to finish the path.
        add: u128,
    },
}

/// A reference to one edge of one augmented graph.
type AugEdge = (usize, usize);

/// An operation whose operand is a sum over augmented-graph edges: those of a span of
/// [`SymOps::edges`].
#[derive(Clone, Copy, Debug)]
enum SymOp {
    Add(Span),
    Set(Span),
    Push(Span),
    Pop,
    Count(u32, Span),
}

/// A range of [`SymOps::edges`] or [`SymOps::ops`].
type Span = (u32, u32);

/// The symbolic operations of a plan, with their augmented edges in one arena (a vector
/// per operation and per edge's list cost an allocation each, the most frequent ones of
/// instrumenting a function).
#[derive(Default)]
struct SymOps {
    ops: Vec<SymOp>,
    edges: Vec<AugEdge>,
}

impl SymOps {
    /// Pushes the operation `make` builds from the edges `fill` adds to the arena.
    fn push(
        &mut self,
        make: impl FnOnce(Span) -> SymOp,
        fill: impl FnOnce(&mut Vec<AugEdge>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let start = self.edges.len() as u32;
        fill(&mut self.edges)?;
        self.ops.push(make((start, self.edges.len() as u32)));
        Ok(())
    }

    /// The operations `f` pushes, as a span of [`SymOps::ops`].
    fn group(&mut self, f: impl FnOnce(&mut SymOps) -> Result<(), Error>) -> Result<Span, Error> {
        let start = self.ops.len() as u32;
        f(self)?;
        Ok((start, self.ops.len() as u32))
    }

    fn ops(&self, (a, b): Span) -> &[SymOp] {
        &self.ops[a as usize..b as usize]
    }

    /// The augmented edges of `op`.
    fn edges(&self, op: &SymOp) -> &[AugEdge] {
        match *op {
            SymOp::Add((a, b))
            | SymOp::Set((a, b))
            | SymOp::Push((a, b))
            | SymOp::Count(_, (a, b)) => &self.edges[a as usize..b as usize],
            SymOp::Pop => &[],
        }
    }
}

/// One augmented graph with its numbering.
#[derive(Clone, Debug)]
pub struct AugGraph {
    /// The DAG (virtual sink->source edge not included).
    pub dag: Dag,
    /// Ball-Larus values.
    pub numbering: Numbering,
    /// Increments on chords (two's complement), per edge.
    pub inc: Vec<u128>,
    /// Per DAG node: what it stands for.
    pub nodes: Vec<AugNode>,
    index: HashMap<(usize, usize), usize, foldhash::fast::FixedState>,
}

/// What a node of an augmented graph stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AugNode {
    /// A child of the region (region-based).
    Child(Child),
    /// A CFG node (global-based).
    Block(NodeIndex),
    /// The region source `Re` / function entry `fe`.
    Source,
    /// The region sink `Rx` / function exit `fx`.
    Sink,
    /// The per-region entry hub `E_R` (global-based).
    RegionEntry(RegionId),
}

impl AugGraph {
    /// A graph of `nodes` with room for `edges` edges.
    fn new(nodes: Vec<AugNode>, source: usize, sink: usize, edges: usize) -> AugGraph {
        let mut dag = Dag::new(nodes.len(), source, sink);
        dag.edges.reserve(edges);
        AugGraph {
            dag,
            numbering: Numbering::trivial(),
            inc: Vec::new(),
            nodes,
            index: HashMap::with_capacity_and_hasher(edges, Default::default()),
        }
    }

    fn edge(&mut self, a: usize, b: usize) -> usize {
        let dag = &mut self.dag;
        *self
            .index
            .entry((a, b))
            .or_insert_with(|| dag.add_edge(a, b))
    }

    fn get(&self, a: usize, b: usize) -> Result<usize, Error> {
        self.index
            .get(&(a, b))
            .copied()
            .ok_or_else(|| Error::Invalid(format!("augmented edge {a}->{b} missing")))
    }
}

/// A hierarchical path: the region and its node sequence, inner regions as single nodes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HierPath {
    /// The region the path lies in.
    pub region: RegionId,
    /// Its children in order (virtual entry and exit included for root paths).
    pub children: Vec<Child>,
}

/// A CFG numbered and instrumented for hierarchical path profiling.
#[derive(Clone, Debug)]
pub struct Instrumented {
    /// The CFG and its regions.
    pub hier: Hierarchy,
    /// The scheme.
    pub mode: Mode,
    /// The augmented graphs: one per region (region-based) or one (global-based).
    pub graphs: Vec<AugGraph>,
    /// All operations; `edge_ops[e]` is the range for CFG edge `e`.
    pub ops: Vec<Op>,
    /// Per CFG edge index: `(start, len)` into `ops`.
    pub edge_ops: Vec<(u32, u32)>,
    /// Operations when a function activation starts.
    pub start_ops: Vec<Op>,
    /// Operations when an activation ends at the virtual exit.
    pub end_ops: Vec<Op>,
    /// Per counter table: the sum its counter 0 counts, and its size (see [`Op::Count`]).
    slices: Vec<(u128, u128)>,
}

impl Instrumented {
    /// Builds the augmented graph(s), numbers them, places increments with `weights`, and
    /// produces the plan.
    pub fn new(hier: Hierarchy, mode: Mode, weights: &Weights) -> Result<Instrumented, Error> {
        let mut graphs = match mode {
            Mode::RegionBased => region_graphs(&hier),
            Mode::GlobalBased { shrink } => vec![global_graph(&hier, shrink)],
        };
        for g in graphs.iter_mut() {
            g.numbering = Numbering::new(&g.dag)?;
        }
        let slices = slices(&hier, mode, &graphs);
        let sym = Symbolic {
            hier: &hier,
            graphs: &graphs,
            mode,
            sliced: slices.len() > 1,
        };
        let mut syms = SymOps::default();
        let mut edge_sym = Vec::with_capacity(hier.classes.len());
        for e in hier.cfg.graph.edge_indices() {
            edge_sym.push(syms.group(|s| sym.edge_ops(e.index(), s))?);
        }
        let root = Child::Block(Cfg::entry());
        let start_sym = syms.group(|s| s.push(SymOp::Set, |out| sym.entry(0, root, out)))?;
        let end_sym = syms.group(|s| {
            s.push(
                |es| SymOp::Count(sym.table(0), es),
                |out| sym.exit(0, Child::Block(Cfg::exit()), out),
            )
        })?;
        // Weights of augmented edges: the weight of every CFG edge whose additions use
        // them. An increment that lands in a count, an assignment or a push costs nothing
        // there (the operation runs anyway), so edges used only so weigh 0 and become
        // chords first: a loop's branches then add nothing where its paths end apart.
        let cfg_w = cfg_weights(&hier, weights);
        let mut aug_w: Vec<Vec<u64>> = graphs.iter().map(|g| vec![0; g.dag.edges.len()]).collect();
        let start_w: u64 = hier
            .cfg
            .graph
            .edges(Cfg::entry())
            .map(|e| cfg_w[e.id().index()])
            .fold(0, u64::saturating_add);
        let all = || {
            edge_sym
                .iter()
                .zip(cfg_w.iter().copied())
                .chain([(&start_sym, start_w), (&end_sym, start_w)])
        };
        for (&ops, w) in all() {
            for op in syms.ops(ops) {
                if !matches!(op, SymOp::Add(_)) {
                    continue;
                }
                for &(g, e) in syms.edges(op) {
                    aug_w[g][e] = aug_w[g][e].saturating_add(w);
                }
            }
        }
        for (g, w) in graphs.iter_mut().zip(&aug_w) {
            g.inc = g.numbering.increments(w);
        }
        let total = |graphs: &[AugGraph], op: &SymOp| {
            syms.edges(op)
                .iter()
                .fold(0u128, |s, &(g, e)| s.wrapping_add(graphs[g].inc[e]))
        };
        // Per table, what its counts add less: the total of its heaviest count, which then
        // adds nothing (taken off where its paths start, see `rebase`).
        let counts = all().flat_map(|(&ops, w)| {
            syms.ops(ops).iter().filter_map(move |op| match op {
                SymOp::Count(t, _) => Some((*t, op, w)),
                _ => None,
            })
        });
        let mut shift = heaviest(
            counts.map(|(t, op, w)| (t, total(&graphs, op), w)),
            slices.len(),
        );
        rebase(&hier, mode, &mut graphs, &slices, &mut shift);
        let total = |op: &SymOp| total(&graphs, op);
        let lower = |span: Span, out: &mut Vec<Op>| {
            out.extend(syms.ops(span).iter().filter_map(|op| match *op {
                SymOp::Add(_) => {
                    let v = total(op);
                    (v != 0).then_some(Op::Add(v))
                }
                SymOp::Set(_) => Some(Op::Set(total(op))),
                SymOp::Push(_) => Some(Op::Push(total(op))),
                SymOp::Pop => Some(Op::Pop),
                SymOp::Count(table, _) => Some(Op::Count {
                    table,
                    add: total(op).wrapping_sub(shift[table as usize]),
                }),
            }))
        };
        let mut ops = Vec::with_capacity(syms.ops.len());
        let mut edge_ops = Vec::with_capacity(edge_sym.len());
        for &span in &edge_sym {
            let start = ops.len();
            lower(span, &mut ops);
            edge_ops.push((start as u32, (ops.len() - start) as u32));
        }
        let (mut start_ops, mut end_ops) = (Vec::new(), Vec::new());
        lower(start_sym, &mut start_ops);
        lower(end_sym, &mut end_ops);
        Ok(Instrumented {
            hier,
            mode,
            graphs,
            ops,
            edge_ops,
            start_ops,
            end_ops,
            slices,
        })
    }

    /// The operations for CFG edge `e` (empty for an unknown index).
    #[inline]
    pub fn ops_for(&self, e: usize) -> &[Op] {
        match self.edge_ops.get(e) {
            Some(&(s, l)) => self.ops.get(s as usize..(s + l) as usize).unwrap_or(&[]),
            None => &[],
        }
    }

    /// Whether no operation saves or restores a sum (flat plans, and those whose saves
    /// were all folded, see [`fold_known_saves`](Self::fold_known_saves)).
    pub fn saves_none(&self) -> bool {
        !self.all_ops().any(|op| matches!(op, Op::Push(_) | Op::Pop))
    }

    /// Every operation of the plan: the edges', the start's and the end's.
    pub(crate) fn all_ops(&self) -> impl Iterator<Item = &Op> {
        self.ops.iter().chain(&self.start_ops).chain(&self.end_ops)
    }

    /// Number of counter tables.
    pub fn tables(&self) -> usize {
        self.slices.len()
    }

    /// Size of each table: the number of path sums it may receive.
    pub fn table_sizes(&self) -> Vec<u128> {
        self.slices.iter().map(|&(_, n)| n).collect()
    }

    /// The sums each table counts, counter 0 the first: from 0 but for the slices of a
    /// global-based function's numbering.
    pub fn table_sums(&self) -> Vec<std::ops::Range<u128>> {
        self.slices
            .iter()
            .map(|&(first, n)| first..first + n)
            .collect()
    }

    /// The hierarchical path counted at `sum` in `table`, or `None` if no path has that sum
    /// (or it is not a hierarchical path: unused numbers of the global scheme).
    pub fn decode(&self, table: usize, sum: u128) -> Option<HierPath> {
        let (first, size) = *self.slices.get(table)?;
        if sum.checked_sub(first)? >= size {
            return None;
        }
        match self.mode {
            Mode::RegionBased => {
                let g = self.graphs.get(table)?;
                // The path's children, straight from the walk. (Room for most paths at
                // once: nearly all of a path's nodes are children.)
                let mut children = Vec::with_capacity(64);
                let mut child = |n: usize| {
                    if let AugNode::Child(c) = g.nodes[n] {
                        children.push(c);
                    }
                };
                child(g.dag.source);
                g.numbering.walk(sum, |_, n| child(n)).then_some(HierPath {
                    region: table,
                    children,
                })
            }
            Mode::GlobalBased { .. } => {
                // (One graph, whichever slice.)
                let g = self.graphs.first()?;
                let mut nodes: Vec<AugNode> = Vec::with_capacity(64);
                nodes.push(g.nodes[g.dag.source]);
                if !g.numbering.walk(sum, |_, n| nodes.push(g.nodes[n])) {
                    return None;
                }
                let region = match nodes.get(1) {
                    Some(AugNode::RegionEntry(r)) if self.tables() == 1 || *r == table => *r,
                    _ => return None,
                };
                let mut children: Vec<Child> = Vec::new();
                let mut blocks = Vec::new();
                for n in nodes.get(2..).unwrap_or(&[]) {
                    if let AugNode::Block(b) = n {
                        if !self.hier.regions.contains(region, *b) {
                            return None;
                        }
                        blocks.push(*b);
                        let c = self.hier.regions.child_of(region, *b);
                        if children.last() != Some(&c) {
                            children.push(c);
                        }
                    }
                }
                // Only plain paths that are expansions of hierarchical paths count.
                let path = HierPath { region, children };
                (self.expand(&path)? == blocks).then_some(path)
            }
        }
    }

    /// The blocks of a hierarchical path with every inner region replaced by its
    /// representative path, or `None` if `p` is not a path of its region's hierarchical
    /// graph from an entry child to an exit child.
    pub fn expand(&self, p: &HierPath) -> Option<Vec<NodeIndex>> {
        let level = self.hier.levels.get(p.region)?;
        let (first, last) = (p.children.first()?, p.children.last()?);
        if !level.entries.contains(first) || !level.exits.contains(last) {
            return None;
        }
        let linked = |a: Child, b: Child| {
            let at = self.hier.position(p.region, a);
            at.is_some_and(|i| level.succs(i).any(|s| s == b))
        };
        if p.children.windows(2).any(|w| !linked(w[0], w[1])) {
            return None;
        }
        let mut out = Vec::new();
        for &c in &p.children {
            self.expand_child(c, &mut out);
        }
        Some(out)
    }

    fn expand_child(&self, c: Child, out: &mut Vec<NodeIndex>) {
        match c {
            Child::Block(b) => out.push(b),
            Child::Region(r) => {
                for &x in &self.hier.rep[r] {
                    self.expand_child(x, out);
                }
            }
        }
    }

    /// A path's rendering, e.g. `A R2 H I` (virtual entry and exit left out).
    pub fn render(&self, p: &HierPath) -> String {
        p.children
            .iter()
            .filter(|c| !matches!(c, Child::Block(b) if b.index() < 2))
            .map(|c| self.hier.child_label(*c))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Per CFG edge weight from `weights`.
fn cfg_weights(hier: &Hierarchy, weights: &Weights) -> Vec<u64> {
    hier.cfg
        .graph
        .edge_references()
        .map(|e| match weights {
            Weights::Measured(m) => m.get(e.id().index()).copied().unwrap_or(0),
            Weights::Estimate => {
                let depth = hier.regions.regions[hier.regions.region_of[e.source().index()]].depth;
                8u64.saturating_pow(depth)
            }
        })
        .collect()
}

/// Edges of a level's augmented graph: one from its start to each entry, one per
/// out-item (an edge between children, or an exit's to its end).
fn out_edges(level: &Level) -> usize {
    level.entries.len() + level.edges.len() + level.exits.len()
}

/// The region-based augmented CFG of every region: children, `Re`, `Rx`.
fn region_graphs(hier: &Hierarchy) -> Vec<AugGraph> {
    hier.levels
        .iter()
        .map(|level| {
            let k = level.children.len();
            let mut nodes: Vec<AugNode> =
                level.children.iter().map(|&c| AugNode::Child(c)).collect();
            nodes.push(AugNode::Source);
            nodes.push(AugNode::Sink);
            let mut g = AugGraph::new(nodes, k, k + 1, out_edges(level));
            for &c in &level.entries {
                g.edge(k, hier.at(c));
            }
            for i in 0..k {
                for item in level.out_items(i) {
                    match *item {
                        Some(b) => g.edge(i, hier.at(b)),
                        None => g.edge(i, k + 1),
                    };
                }
            }
            g
        })
        .collect()
}

/// The global-based augmented CFG: CFG nodes, `fe`, `fx`, and one entry hub per region.
fn global_graph(hier: &Hierarchy, shrink: bool) -> AugGraph {
    let n = hier.cfg.node_count();
    let (fe, fx) = (n, n + 1);
    // (The hubs follow, as `hub` numbers them.)
    let mut nodes: Vec<AugNode> = hier.cfg.graph.node_indices().map(AugNode::Block).collect();
    nodes.push(AugNode::Source);
    nodes.push(AugNode::Sink);
    nodes.extend((0..hier.levels.len()).map(AugNode::RegionEntry));
    // (Per level, `fe->E_R` and the level's own; then the CFG's.)
    let levels: usize = hier.levels.iter().map(|l| 1 + out_edges(l)).sum();
    let cfg_edges = if shrink {
        0
    } else {
        hier.cfg.graph.edge_count()
    };
    let mut g = AugGraph::new(nodes, fe, fx, levels + cfg_edges);
    let inn = |c: Child| hier.rep_entry(c).index();
    let out = |c: Child| hier.rep_exit(c).index();
    for (r, level) in hier.levels.iter().enumerate() {
        if !level.entries.is_empty() {
            g.edge(fe, hub(hier, r));
        }
    }
    for (r, level) in hier.levels.iter().enumerate() {
        for &c in &level.entries {
            g.edge(hub(hier, r), inn(c));
        }
    }
    for level in &hier.levels {
        for (i, &c) in level.children.iter().enumerate() {
            for item in level.out_items(i) {
                match item {
                    Some(b) => g.edge(out(c), inn(*b)),
                    None => g.edge(out(c), fx),
                };
            }
        }
    }
    if !shrink {
        for e in hier.cfg.graph.edge_references() {
            if !hier.regions.backedge[e.id().index()] {
                g.edge(e.source().index(), e.target().index());
            }
        }
    }
    g
}

/// The node of region `r`'s entry hub `E_R` in the global-based augmented CFG (after the
/// CFG's nodes, `fe` and `fx`).
fn hub(hier: &Hierarchy, r: RegionId) -> usize {
    hier.cfg.node_count() + 2 + r
}

/// Takes `shift[t]` and table `t`'s first sum off where every path counted in table `t`
/// starts, on edges no other path takes (region-based, the out-edges of region `t`'s
/// source; global-based, `fe->E_t`), so that a path's running sum at its count is its
/// counter's index less `shift[t]`, what the count adds: the edges start paths with an
/// assignment or a push, which runs anyway. A wide table's paths are left as numbered, its
/// shift set to 0 (its counts' additions stay non-negative, as [`crate::offsets`] needs).
fn rebase(
    hier: &Hierarchy,
    mode: Mode,
    graphs: &mut [AugGraph],
    slices: &[(u128, u128)],
    shift: &mut [u128],
) {
    for (t, (&(first, size), k)) in slices.iter().zip(shift.iter_mut()).enumerate() {
        if crate::numbering::wide(size) {
            *k = 0;
        }
        let by = k.wrapping_sub(first);
        match mode {
            Mode::RegionBased => {
                let Some(g) = graphs.get_mut(t) else { continue };
                let source = g.dag.source;
                for (inc, _) in g
                    .inc
                    .iter_mut()
                    .zip(&g.dag.edges)
                    .filter(|(_, e)| e.0 == source)
                {
                    *inc = inc.wrapping_add(by);
                }
            }
            Mode::GlobalBased { .. } => {
                let Some(g) = graphs.first_mut() else {
                    continue;
                };
                if let Ok(e) = g.get(g.dag.source, hub(hier, t)) {
                    g.inc[e] = g.inc[e].wrapping_add(by);
                }
            }
        }
    }
}

/// Per table of `tables`, the value that `items`, `(table, value, weight)`, give the
/// greatest total weight (on a tie the least value; 0 for a table with none).
fn heaviest(items: impl Iterator<Item = (u32, u128, u64)>, tables: usize) -> Vec<u128> {
    let mut items: Vec<_> = items.collect();
    items.sort_unstable_by_key(|&(t, v, _)| (t, v));
    let mut best = vec![(0u128, 0u64); tables];
    for run in items.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let (t, v, _) = run[0];
        let w = run.iter().fold(0u64, |s, &(_, _, w)| s.saturating_add(w));
        if let Some(b) = best.get_mut(t as usize) {
            if w > b.1 {
                *b = (v, w);
            }
        }
    }
    best.into_iter().map(|(v, _)| v).collect()
}

/// The counter tables' slices of the sums, `(first, size)`: region-based, each region's
/// table holds its sums; global-based, the function's one numbering is cut in one slice
/// per region, since every path of region `R` starts with `fe->E_R` and its sums are the
/// `NumPaths(E_R)` from `val(fe->E_R)` on (so a region's small slice can be a dense table
/// where the whole would not), unless the function has more than 2^63 - 1 paths (its
/// counts' additions then stay non-negative, see [`crate::offsets`]).
fn slices(hier: &Hierarchy, mode: Mode, graphs: &[AugGraph]) -> Vec<(u128, u128)> {
    let whole = |g: &AugGraph| (0, g.numbering.total());
    match (mode, graphs) {
        (Mode::GlobalBased { .. }, [g]) if !crate::numbering::wide(g.numbering.total()) => {
            let fe = g.dag.source;
            (0..hier.levels.len())
                .map(|r| match g.get(fe, hub(hier, r)) {
                    Ok(e) => (g.numbering.val[e], g.numbering.num_paths[hub(hier, r)]),
                    // (A region no edge enters: no path.)
                    Err(_) => (0, 0),
                })
                .collect()
        }
        _ => graphs.iter().map(whole).collect(),
    }
}

/// Builds symbolic operations from the augmented graphs.
struct Symbolic<'a> {
    hier: &'a Hierarchy,
    graphs: &'a [AugGraph],
    mode: Mode,
    /// Global-based: the table is cut in one slice per region.
    sliced: bool,
}

impl Symbolic<'_> {
    fn table(&self, r: RegionId) -> u32 {
        match self.mode {
            Mode::GlobalBased { .. } if !self.sliced => 0,
            _ => r as u32,
        }
    }

    /// Region-based: the DAG node of child `c` of region `r`.
    fn rb_node(&self, r: RegionId, c: Child) -> Result<usize, Error> {
        self.hier
            .position(r, c)
            .ok_or_else(|| Error::Invalid(format!("child {c:?} not in region {r}")))
    }

    fn global_aug(&self, a: usize, b: usize, out: &mut Vec<AugEdge>) -> Result<(), Error> {
        out.push((0, self.graphs[0].get(a, b)?));
        Ok(())
    }

    /// Edges from the region's start to child `c`, onto `out`.
    fn entry(&self, r: RegionId, c: Child, out: &mut Vec<AugEdge>) -> Result<(), Error> {
        match self.mode {
            Mode::RegionBased => {
                let g = &self.graphs[r];
                out.push((r, g.get(g.dag.source, self.rb_node(r, c)?)?));
                Ok(())
            }
            Mode::GlobalBased { .. } => {
                let (fe, hub) = (self.hier.cfg.node_count(), hub(self.hier, r));
                self.global_aug(fe, hub, out)?;
                self.global_aug(hub, self.hier.rep_entry(c).index(), out)
            }
        }
    }

    /// Edges from child `c` to the region's end, onto `out`.
    fn exit(&self, r: RegionId, c: Child, out: &mut Vec<AugEdge>) -> Result<(), Error> {
        match self.mode {
            Mode::RegionBased => {
                let g = &self.graphs[r];
                out.push((r, g.get(self.rb_node(r, c)?, g.dag.sink)?));
                Ok(())
            }
            Mode::GlobalBased { .. } => {
                let fx = self.hier.cfg.node_count() + 1;
                self.global_aug(self.hier.rep_exit(c).index(), fx, out)
            }
        }
    }

    /// Edges of the hierarchical edge `a->b` in region `r`, onto `out`.
    fn step(&self, r: RegionId, a: Child, b: Child, out: &mut Vec<AugEdge>) -> Result<(), Error> {
        match self.mode {
            Mode::RegionBased => {
                let g = &self.graphs[r];
                out.push((r, g.get(self.rb_node(r, a)?, self.rb_node(r, b)?)?));
                Ok(())
            }
            Mode::GlobalBased { .. } => self.global_aug(
                self.hier.rep_exit(a).index(),
                self.hier.rep_entry(b).index(),
                out,
            ),
        }
    }

    /// Edges of the representative path of region `r` (global-based only), onto `out`.
    fn rep_path(&self, r: RegionId, out: &mut Vec<AugEdge>) -> Result<(), Error> {
        let rep = &self.hier.rep[r];
        for (i, &c) in rep.iter().enumerate() {
            if let Child::Region(inner) = c {
                self.rep_path(inner, out)?;
            }
            if let Some(&next) = rep.get(i + 1) {
                self.step(r, c, next, out)?;
            }
        }
        Ok(())
    }

    /// Pushes the operations of CFG edge `e` onto `syms`.
    fn edge_ops(&self, e: usize, syms: &mut SymOps) -> Result<(), Error> {
        let class = &self.hier.classes[e];
        for &(r, x) in &class.exits {
            syms.push(
                |es| SymOp::Count(self.table(r), es),
                |out| self.exit(r, x, out),
            )?;
            syms.ops.push(SymOp::Pop);
        }
        let l = class.level;
        if class.back {
            syms.push(
                |es| SymOp::Count(self.table(l), es),
                |out| self.exit(l, class.from, out),
            )?;
            syms.push(SymOp::Set, |out| self.entry(l, class.to, out))?;
        } else {
            syms.push(SymOp::Add, |out| self.step(l, class.from, class.to, out))?;
        }
        for &(r, c) in &class.entries {
            syms.push(SymOp::Push, |out| match self.mode {
                Mode::RegionBased => Ok(()),
                Mode::GlobalBased { .. } => self.rep_path(r, out),
            })?;
            syms.push(SymOp::Set, |out| self.entry(r, c, out))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Cfg, Hierarchy, Instrumented, Mode, Op, RegionTree, Weights};

    /// `crc16_ccitt`'s shape: an inner loop whose head `H` branches to `A` or `B` on every
    /// iteration, each going back to `H` or on to `T`, inside an outer loop `O .. T`. An
    /// increment on an edge into a path's end lands in its count, and one on an edge out of
    /// a path's start in its assignment, where it costs nothing: so the branch adds
    /// nothing, its paths told apart where they end.
    #[test]
    fn a_hot_branch_adds_nothing_when_its_paths_end_apart() {
        let edges = [(1, 2), (1, 3)];
        for (mode, ops) in hot_branch(&edges) {
            for ((a, b), ops) in edges.iter().zip(ops) {
                assert!(
                    !ops.iter().any(|op| matches!(op, Op::Add(_))),
                    "{mode:?}, edge {a}->{b}: {ops:?}"
                );
            }
        }
    }

    /// In the same CFG, of the counts at the inner loop's two latches (as hot as each
    /// other) one adds nothing in every mode: a table's heaviest count adds nothing, what
    /// it would add taken off where the table's paths start (global-based, with the
    /// slice's first sum).
    #[test]
    fn the_heaviest_count_of_a_table_adds_nothing() {
        for (mode, ops) in hot_branch(&[(2, 1), (3, 1)]) {
            let adds: Vec<u128> = ops
                .iter()
                .flatten()
                .filter_map(|op| match op {
                    Op::Count { add, .. } => Some(*add),
                    _ => None,
                })
                .collect();
            assert_eq!(adds.len(), 2, "{mode:?}");
            assert!(adds.contains(&0), "{mode:?}: {adds:?}");
        }
    }

    /// The plans of [`a_hot_branch_adds_nothing_when_its_paths_end_apart`]'s CFG (flat,
    /// region-based, and global-based with and without shrinking), each with its
    /// operations on `edges` (`(a, b)` for `O H A B T X`'s positions).
    fn hot_branch(edges: &[(usize, usize)]) -> Vec<(Mode, Vec<Vec<Op>>)> {
        let (cfg, n) = Cfg::from_names(
            &["O", "H", "A", "B", "T", "X"],
            &["O"],
            &[
                ("O", "H"),
                ("H", "A"),
                ("H", "B"),
                ("A", "H"),
                ("A", "T"),
                ("B", "H"),
                ("B", "T"),
                ("T", "O"),
                ("T", "X"),
            ],
            &["X"],
        )
        .unwrap();
        let plans = [
            (RegionTree::flat(&cfg), Mode::RegionBased),
            (RegionTree::loops(&cfg), Mode::RegionBased),
            (RegionTree::loops(&cfg), Mode::GlobalBased { shrink: false }),
            (RegionTree::loops(&cfg), Mode::GlobalBased { shrink: true }),
        ];
        plans
            .into_iter()
            .map(|(regions, mode)| {
                let hier = Hierarchy::new(cfg.clone(), regions).unwrap();
                let inst = Instrumented::new(hier, mode, &Weights::Estimate).unwrap();
                let ops = edges.iter().map(|&(a, b)| {
                    let e = cfg.find_edge(n[a], n[b]).unwrap().index();
                    inst.ops_for(e).to_vec()
                });
                (mode, ops.collect())
            })
            .collect()
    }
}

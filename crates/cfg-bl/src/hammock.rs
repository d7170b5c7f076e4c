//! Single-entry single-exit hammocks as regions, nested in the natural loops.
//!
//! Within each loop level (the hierarchical graph of the function or of a loop, inner loops
//! as single nodes, with its source `Re` and sink `Rx`), every branch `a` (two or more
//! successors) whose immediate postdominator `b` is not `Rx` spans the hammock of the
//! children reachable from `a` without passing `b`, if `a` dominates them all. In the
//! acyclic level graph every edge leaving them then goes to `b`, so the hammock is entered
//! only at `a` and left only to `b`; hammocks of one level are nested or disjoint, and contain whole
//! inner loops, so together with the loops they form a region tree.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Reversed;

use crate::cfg::Cfg;
use crate::hier::Hierarchy;
use crate::structure::{Child, RegionKind, RegionTree};

impl RegionTree {
    /// Natural loops plus single-entry single-exit hammocks (see the [module docs](self)).
    /// Falls back to loops only if the combined sets do not form a tree (never expected).
    pub fn loops_and_hammocks(cfg: &Cfg) -> RegionTree {
        Self::try_loops_and_hammocks(cfg).unwrap_or_else(|_| RegionTree::loops(cfg))
    }

    /// As [`RegionTree::loops_and_hammocks`], with the error instead of the fallback.
    pub fn try_loops_and_hammocks(cfg: &Cfg) -> Result<RegionTree, crate::Error> {
        let loops = RegionTree::loops(cfg);
        let hier = Hierarchy::new(cfg.clone(), loops.clone())?;
        let mut sets: Vec<(Option<NodeIndex>, Vec<NodeIndex>, RegionKind)> = loops
            .regions
            .iter()
            .skip(1)
            .map(|r| (r.header, r.nodes.clone(), r.kind))
            .collect();
        for r in 0..hier.levels.len() {
            sets.extend(
                level_hammocks(&hier, r, &loops)
                    .into_iter()
                    .map(|n| (None, n, RegionKind::Hammock)),
            );
        }
        let tree = RegionTree::build(cfg, sets)?;
        // The hierarchy must be valid too (acyclic levels).
        Hierarchy::new(cfg.clone(), tree.clone())?;
        Ok(tree)
    }
}

/// The hammocks of region `r`'s level, as CFG node sets.
fn level_hammocks(hier: &Hierarchy, r: usize, loops: &RegionTree) -> Vec<Vec<NodeIndex>> {
    let level = &hier.levels[r];
    let k = level.children.len();
    let mut g: DiGraph<(), ()> = DiGraph::new();
    for _ in 0..k + 2 {
        g.add_node(());
    }
    let (re, rx) = (NodeIndex::new(k), NodeIndex::new(k + 1));
    let idx = |c: &Child| hier.position(r, *c).map(NodeIndex::new);
    for c in &level.entries {
        if let Some(i) = idx(c) {
            g.add_edge(re, i, ());
        }
    }
    for at in 0..k {
        let i = NodeIndex::new(at);
        for item in level.out_items(at) {
            match item.as_ref().and_then(&idx) {
                Some(j) => g.add_edge(i, j, ()),
                None => g.add_edge(i, rx, ()),
            };
        }
    }
    let pdom = simple_fast(Reversed(&g), rx);
    let dom = simple_fast(&g, re);
    let dominated_by =
        |x: NodeIndex, a: NodeIndex| dom.dominators(x).is_some_and(|mut it| it.any(|d| d == a));
    let mut out = Vec::new();
    for a in 0..k {
        let a = NodeIndex::new(a);
        if g.neighbors(a).count() < 2 {
            continue;
        }
        let Some(b) = pdom.immediate_dominator(a) else {
            continue;
        };
        if b == rx {
            continue;
        }
        // Children reachable from `a` without passing `b`.
        let mut seen = vec![false; k + 2];
        let mut work = vec![a];
        let mut members = Vec::new();
        while let Some(x) = work.pop() {
            if x == b || seen[x.index()] {
                continue;
            }
            seen[x.index()] = true;
            members.push(x);
            work.extend(g.neighbors(x));
        }
        // Single entry: `a` dominates every member (reachability alone is not enough).
        if members.len() < 2
            || members
                .iter()
                .any(|&m| m.index() >= k || !dominated_by(m, a))
        {
            continue;
        }
        let mut nodes = Vec::new();
        for m in members {
            match level.children[m.index()] {
                Child::Block(n) => nodes.push(n),
                Child::Region(r) => nodes.extend(loops.regions[r].nodes.iter().copied()),
            }
        }
        if nodes.iter().any(|n| n.index() < 2) {
            continue;
        }
        out.push(nodes);
    }
    out
}

//! Structure of a CFG: backedges, dominators, natural loops and the region tree.
//!
//! Backedges are the retreating edges of a depth-first search from the entry (for reducible
//! graphs exactly the edges whose target dominates their source). A retreating edge whose
//! target dominates its source closes a natural loop; loops with the same header are merged.
//! Natural loops are nested or disjoint, so they form a tree under the root region (the whole
//! function). Retreating edges of irreducible parts make no loop: they are still backedges
//! (they end a path and start the next), at the level of the innermost region holding both
//! ends. [`EdgeKind::Resync`] edges are left out of the search so that they cannot change
//! which edges retreat.

use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::NodeIndex;
use petgraph::visit::{EdgeFiltered, EdgeRef};
use petgraph::Direction;

use crate::adjacency::Adjacency;
use crate::cfg::{Cfg, EdgeKind};
use crate::Error;

/// Index of a region in a [`RegionTree`]; 0 is the root (the whole function).
pub type RegionId = usize;

/// How a region was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// The whole function.
    Function,
    /// A natural loop (all backedges to one header).
    Loop,
    /// Given by the user.
    User,
    /// A single-entry single-exit hammock: a branch and everything up to its immediate
    /// postdominator, within one loop level.
    Hammock,
}

/// One region: a set of CFG nodes, nested in its parent.
#[derive(Clone, Debug)]
pub struct Region {
    /// The enclosing region (`None` for the root).
    pub parent: Option<RegionId>,
    /// 0 for the root.
    pub depth: u32,
    /// Loop header, for loops.
    pub header: Option<NodeIndex>,
    /// How it was found.
    pub kind: RegionKind,
    /// Every node in the region, nested regions' nodes included, ascending.
    pub nodes: Vec<NodeIndex>,
}

/// A node of a region's hierarchical graph: a block directly in it, or an inner region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Child {
    /// A CFG node whose innermost region is this one.
    Block(NodeIndex),
    /// An inner region, represented by a single node.
    Region(RegionId),
}

/// Backedges and regions of one CFG.
#[derive(Clone, Debug)]
pub struct RegionTree {
    /// Per CFG edge index: is it a backedge?
    pub backedge: Vec<bool>,
    /// The regions; index 0 is the root. Parents come before children.
    pub regions: Vec<Region>,
    /// Per CFG node: its innermost region.
    pub region_of: Vec<RegionId>,
}

/// Retreating edges of a depth-first search from the entry (then from any node left
/// unvisited), ignoring [`EdgeKind::Resync`] edges. Indexed by edge index.
pub fn backedges(cfg: &Cfg) -> Vec<bool> {
    let g = &cfg.graph;
    let mut back = vec![false; g.edge_count()];
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; g.node_count()];
    let succs = cfg.all_succs();
    let roots = std::iter::once(Cfg::entry()).chain(g.node_indices());
    let mut stack = Vec::new();
    for root in roots {
        if state[root.index()] != 0 {
            continue;
        }
        state[root.index()] = 1;
        stack.push((root, 0usize));
        while let Some((v, i)) = stack.last_mut() {
            let v = *v;
            if let Some(&(e, w)) = succs.of(v).get(*i) {
                *i += 1;
                if g[e] == EdgeKind::Resync {
                    continue;
                }
                match state[w.index()] {
                    0 => {
                        state[w.index()] = 1;
                        stack.push((w, 0));
                    }
                    1 => back[e.index()] = true,
                    _ => {}
                }
            } else {
                state[v.index()] = 2;
                stack.pop();
            }
        }
    }
    back
}

/// Dominators from the virtual entry, ignoring [`EdgeKind::Resync`] edges.
pub fn dominators(cfg: &Cfg) -> Dominators<NodeIndex> {
    let view = EdgeFiltered::from_fn(&cfg.graph, |e| *e.weight() != EdgeKind::Resync);
    simple_fast(&view, Cfg::entry())
}

/// Immediate dominators from the virtual entry, ignoring [`EdgeKind::Resync`] edges, as
/// [`dominators`] finds them (the same iterative algorithm of Cooper, Harvey and Kennedy),
/// on dense indices: per node, its immediate dominator's index (the entry's is itself), or
/// `u32::MAX` if the entry does not reach it. (petgraph's keeps its sets in hash maps: it
/// was two thirds of finding the loops of a function when first instrumenting it.)
fn immediate_dominators(cfg: &Cfg) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let g = &cfg.graph;
    let n = g.node_count();
    let succs = cfg.all_succs();
    let preds = Adjacency::new(
        n,
        g.edge_references()
            .filter(|e| *e.weight() != EdgeKind::Resync)
            .map(|e| (e.target().index(), e.source().index())),
    );
    // Reverse postorder of the nodes the entry reaches (`order`: their place in it).
    let entry = Cfg::entry().index();
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(Cfg::entry(), 0usize)];
    seen[entry] = true;
    while let Some((v, i)) = stack.last_mut() {
        let v = *v;
        match succs.of(v).get(*i) {
            Some(&(e, w)) => {
                *i += 1;
                if g[e] != EdgeKind::Resync && !seen[w.index()] {
                    seen[w.index()] = true;
                    stack.push((w, 0));
                }
            }
            None => {
                post.push(v.index());
                stack.pop();
            }
        }
    }
    post.reverse();
    let mut order = vec![NONE; n];
    for (i, &v) in post.iter().enumerate() {
        order[v] = i as u32;
    }
    let mut idom = vec![NONE; n];
    idom[entry] = entry as u32;
    let mut changed = true;
    while changed {
        changed = false;
        for &v in &post[1..] {
            let mut new = NONE;
            for &p in preds.of(v) {
                if idom[p] == NONE {
                    continue;
                }
                new = match new {
                    NONE => p as u32,
                    _ => {
                        // The nearest common dominator of `p` and `new`.
                        let (mut a, mut b) = (p as u32, new);
                        while a != b {
                            while order[a as usize] > order[b as usize] {
                                a = idom[a as usize];
                            }
                            while order[b as usize] > order[a as usize] {
                                b = idom[b as usize];
                            }
                        }
                        a
                    }
                };
            }
            if idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    idom
}

/// True if `a` dominates `b`, by `b`'s chain of immediate dominators `idom` (never where
/// the entry does not reach `b`, as with [`dominators`]).
fn dominates(idom: &[u32], a: NodeIndex, b: NodeIndex) -> bool {
    let mut x = b.index() as u32;
    loop {
        let Some(&d) = idom.get(x as usize).filter(|&&d| d != u32::MAX) else {
            return false;
        };
        if x == a.index() as u32 {
            return true;
        }
        if d == x {
            return false;
        }
        x = d;
    }
}

/// Natural loops as `(header, body)`, bodies ascending, one per header.
pub fn natural_loops(cfg: &Cfg, back: &[bool]) -> Vec<(NodeIndex, Vec<NodeIndex>)> {
    let g = &cfg.graph;
    let doms = immediate_dominators(cfg);
    let mut by_header: Vec<(NodeIndex, Vec<bool>)> = Vec::new();
    for e in g.edge_references() {
        let (v, h) = (e.source(), e.target());
        if !back[e.id().index()] || !dominates(&doms, h, v) {
            continue;
        }
        let pos = match by_header.iter().position(|(x, _)| *x == h) {
            Some(p) => p,
            None => {
                let mut body = vec![false; g.node_count()];
                body[h.index()] = true;
                by_header.push((h, body));
                by_header.len() - 1
            }
        };
        let body = &mut by_header[pos].1;
        // Nodes reaching v backwards without passing h.
        let mut work = vec![v];
        while let Some(x) = work.pop() {
            if body[x.index()] {
                continue;
            }
            body[x.index()] = true;
            for p in g.edges_directed(x, Direction::Incoming) {
                if *p.weight() != EdgeKind::Resync {
                    work.push(p.source());
                }
            }
        }
    }
    by_header
        .into_iter()
        .map(|(h, body)| {
            let nodes = body
                .iter()
                .enumerate()
                .filter(|(_, &b)| b)
                .map(|(i, _)| NodeIndex::new(i))
                .collect();
            (h, nodes)
        })
        .collect()
}

impl RegionTree {
    /// Only the root region: hierarchical profiling then is Ball and Larus' flat profiling.
    pub fn flat(cfg: &Cfg) -> RegionTree {
        RegionTree {
            backedge: backedges(cfg),
            regions: vec![Self::root(cfg)],
            region_of: vec![0; cfg.node_count()],
        }
    }

    /// The root and one region per natural loop.
    pub fn loops(cfg: &Cfg) -> RegionTree {
        let back = backedges(cfg);
        let loops = natural_loops(cfg, &back)
            .into_iter()
            .map(|(h, b)| (Some(h), b, RegionKind::Loop))
            .collect();
        // Natural loops nest or are disjoint, so this cannot fail; fall back to flat anyway.
        Self::build(cfg, loops).unwrap_or_else(|_| Self::flat(cfg))
    }

    /// Regions given by the user as node sets. They must be non-empty, nested or disjoint,
    /// distinct, and must not contain the virtual entry or exit; errors name the offending
    /// regions by their positions in `regions`. Region ids in the tree are ordered by size
    /// (larger first), not by position.
    pub fn from_user(cfg: &Cfg, regions: &[Vec<NodeIndex>]) -> Result<RegionTree, Error> {
        let n = cfg.node_count();
        let mut sets: Vec<Vec<NodeIndex>> = Vec::with_capacity(regions.len());
        for (i, r) in regions.iter().enumerate() {
            let mut s = r.clone();
            s.sort();
            s.dedup();
            if s.is_empty() {
                return Err(Error::Invalid(format!("region {i} is empty")));
            }
            if let Some(bad) = s.iter().find(|x| x.index() >= n || x.index() < 2) {
                return Err(Error::Invalid(format!(
                    "region {i}: node {} is virtual or out of range",
                    bad.index()
                )));
            }
            for (j, t) in sets.iter().enumerate() {
                let common = s.iter().filter(|x| t.binary_search(x).is_ok()).count();
                if common == s.len() && common == t.len() {
                    return Err(Error::Invalid(format!(
                        "regions {j} and {i} have the same nodes"
                    )));
                }
                if common != 0 && common != s.len() && common != t.len() {
                    return Err(Error::Invalid(format!(
                        "regions {j} and {i} overlap without nesting"
                    )));
                }
            }
            sets.push(s);
        }
        let sets = sets
            .into_iter()
            .map(|s| (None, s, RegionKind::User))
            .collect();
        Self::build(cfg, sets)
    }

    fn root(cfg: &Cfg) -> Region {
        Region {
            parent: None,
            depth: 0,
            header: None,
            kind: RegionKind::Function,
            nodes: cfg.graph.node_indices().collect(),
        }
    }

    /// Builds the tree from node sets (with loop header and kind).
    pub(crate) fn build(
        cfg: &Cfg,
        mut sets: Vec<(Option<NodeIndex>, Vec<NodeIndex>, RegionKind)>,
    ) -> Result<RegionTree, Error> {
        let n = cfg.node_count();
        for (_, s, _) in sets.iter_mut() {
            s.sort();
            s.dedup();
            if s.is_empty() {
                return Err(Error::Invalid("empty region".into()));
            }
            if let Some(bad) = s.iter().find(|x| x.index() >= n || x.index() < 2) {
                return Err(Error::Invalid(format!(
                    "region node {} is virtual or out of range",
                    bad.index()
                )));
            }
        }
        // Larger first: every region that can contain a set comes before it.
        sets.sort_by_key(|(_, s, _)| std::cmp::Reverse(s.len()));
        let mut regions = vec![Self::root(cfg)];
        let mut region_of = vec![0usize; n];
        for (header, nodes, kind) in sets {
            let mut parent = 0;
            for (t, reg) in regions.iter().enumerate().skip(1) {
                let inside = nodes
                    .iter()
                    .filter(|x| reg.nodes.binary_search(x).is_ok())
                    .count();
                if inside == nodes.len() {
                    if reg.nodes.len() == nodes.len() {
                        return Err(Error::Invalid("two regions have the same nodes".into()));
                    }
                    parent = t;
                } else if inside != 0 {
                    return Err(Error::Invalid("regions overlap without nesting".into()));
                }
            }
            let id = regions.len();
            for x in &nodes {
                region_of[x.index()] = id;
            }
            regions.push(Region {
                parent: Some(parent),
                depth: regions[parent].depth + 1,
                header,
                kind,
                nodes,
            });
        }
        Ok(RegionTree {
            backedge: backedges(cfg),
            regions,
            region_of,
        })
    }

    fn is_within(regions: &[Region], mut r: RegionId, outer: RegionId) -> bool {
        loop {
            if r == outer {
                return true;
            }
            match regions[r].parent {
                Some(p) => r = p,
                None => return false,
            }
        }
    }

    /// True if region `r` is `outer` or nested in it.
    pub fn within(&self, r: RegionId, outer: RegionId) -> bool {
        Self::is_within(&self.regions, r, outer)
    }

    /// True if CFG node `n` belongs to region `r` (directly or through nested regions).
    pub fn contains(&self, r: RegionId, n: NodeIndex) -> bool {
        self.within(self.region_of[n.index()], r)
    }

    /// The child of region `r` that holds node `n` (which must be in `r`).
    pub fn child_of(&self, r: RegionId, n: NodeIndex) -> Child {
        let mut x = self.region_of[n.index()];
        if x == r {
            return Child::Block(n);
        }
        while let Some(p) = self.regions[x].parent {
            if p == r {
                return Child::Region(x);
            }
            x = p;
        }
        Child::Block(n)
    }

    /// The innermost region holding both `a` and `b`.
    pub fn common(&self, a: RegionId, b: RegionId) -> RegionId {
        let (mut a, mut b) = (a, b);
        while self.regions[a].depth > self.regions[b].depth {
            a = self.regions[a].parent.unwrap_or(0);
        }
        while self.regions[b].depth > self.regions[a].depth {
            b = self.regions[b].parent.unwrap_or(0);
        }
        while a != b {
            a = self.regions[a].parent.unwrap_or(0);
            b = self.regions[b].parent.unwrap_or(0);
        }
        a
    }

    /// Regions from `from` up to, not including, `outer` (innermost first).
    pub fn chain(&self, from: RegionId, outer: RegionId) -> impl Iterator<Item = RegionId> + '_ {
        let mut next = (from != outer).then_some(from);
        std::iter::from_fn(move || {
            let x = next?;
            next = self.regions[x].parent.filter(|&p| p != outer);
            Some(x)
        })
    }

    /// Number of regions, the root included.
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// Always false: the root region exists.
    pub fn is_empty(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A CFG of up to 9 code blocks with arbitrary edges among all its nodes, some of them
    /// `Resync`: irreducible parts, unreachable blocks and self-loops included.
    fn arbitrary_cfg() -> impl Strategy<Value = Cfg> {
        (1usize..10).prop_flat_map(|n| {
            let edge = (0..n + 2, 0..n + 2, proptest::bool::weighted(0.15));
            proptest::collection::vec(edge, 0..4 * n + 4).prop_map(move |edges| {
                let mut cfg = Cfg::new("f", 0);
                for i in 0..n {
                    cfg.add_block(i as u64, i as u64, "");
                }
                for (a, b, resync) in edges {
                    let kind = if resync {
                        EdgeKind::Resync
                    } else {
                        EdgeKind::Flow
                    };
                    cfg.graph
                        .add_edge(NodeIndex::new(a), NodeIndex::new(b), kind);
                }
                cfg
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Dominance read from the immediate dominators is petgraph's ([`dominators`]), for
        /// every pair of nodes.
        #[test]
        fn immediate_dominators_agree_with_petgraph(cfg in arbitrary_cfg()) {
            let idom = immediate_dominators(&cfg);
            let doms = dominators(&cfg);
            for a in cfg.graph.node_indices() {
                for b in cfg.graph.node_indices() {
                    let want = doms.dominators(b).is_some_and(|mut it| it.any(|d| d == a));
                    prop_assert_eq!(dominates(&idom, a, b), want, "{:?} dominates {:?}", a, b);
                }
            }
        }
    }
}

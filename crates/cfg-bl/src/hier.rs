//! The hierarchical view of a CFG: how every edge crosses regions, and each region's
//! hierarchical graph (its blocks, with inner regions as single nodes).
//!
//! For a CFG edge `v->w` let `L` be the innermost region holding both ends, `a` and `b` the
//! children of `L` holding `v` and `w`. The edge leaves the regions from `v`'s innermost
//! region up to (not including) `L` (each is exited at the child holding `v`), moves from `a`
//! to `b` at level `L` (or, if it is a backedge, ends `L`'s path at `a` and starts the next
//! at `b`), then enters the regions from below `L` down to `w`'s innermost region.
//!
//! A region's entry children are those entered from outside it or targeted by a backedge at
//! its level; its exit children are those left to the outside or that are the source of a
//! backedge at its level. The root's entry is the virtual entry node and its exit the
//! virtual exit node. A child with no predecessor (successor) in the hierarchical graph is
//! made an entry (exit), so every child lies on some path.

use std::collections::HashMap as StdHashMap;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

/// The maps of a hierarchy: keyed by children and filled per edge when a function is first
/// instrumented, so a fast fixed hash (std's SipHash guards against keys an adversary
/// chooses, which a CFG's children are not).
pub type HashMap<K, V> = StdHashMap<K, V, foldhash::fast::FixedState>;
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

use crate::cfg::Cfg;
use crate::structure::{Child, RegionId, RegionTree};
use crate::Error;

/// How one CFG edge crosses the region hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeClass {
    /// Regions left, innermost first, each with its child holding the source.
    pub exits: Vec<(RegionId, Child)>,
    /// The innermost region holding both ends.
    pub level: RegionId,
    /// The child of `level` holding the source.
    pub from: Child,
    /// The child of `level` holding the target.
    pub to: Child,
    /// True if the edge is a backedge (at `level`).
    pub back: bool,
    /// Regions entered, outermost first, each with its child holding the target.
    pub entries: Vec<(RegionId, Child)>,
}

/// The hierarchical graph of one region (before augmentation).
#[derive(Clone, Debug, Default)]
pub struct Level {
    /// Children in order of first appearance.
    pub children: Vec<Child>,
    /// Per child: its index in `children` (its node in the region's DAG).
    pub index: HashMap<Child, usize>,
    /// Entry children, in order of first appearance.
    pub entries: Vec<Child>,
    /// Exit children, in order of first appearance.
    pub exits: Vec<Child>,
    /// Non-back edges between children, in order of first appearance (no duplicates).
    pub edges: Vec<(Child, Child)>,
    /// Per child: its out-items in order of first appearance: `Some(b)` for an edge to `b`,
    /// `None` for "exit". Fixes the order of out-edges in the augmented graphs.
    pub out_order: HashMap<Child, Vec<Option<Child>>>,
    /// The set of `edges`: the virtual entry may have an edge to nearly every child (1738
    /// of 1740 in one of coremark's functions), which a search of its out-items for each
    /// new edge made quadratic.
    linked: HashSet<(Child, Child)>,
}

impl Level {
    fn child(&mut self, c: Child) {
        if let std::collections::hash_map::Entry::Vacant(v) = self.out_order.entry(c) {
            v.insert(Vec::new());
            self.index.insert(c, self.children.len());
            self.children.push(c);
        }
    }

    fn add_entry(&mut self, c: Child) {
        self.child(c);
        if !self.entries.contains(&c) {
            self.entries.push(c);
        }
    }

    fn add_exit(&mut self, c: Child) {
        self.child(c);
        if !self.exits.contains(&c) {
            self.exits.push(c);
            self.out_order.entry(c).or_default().push(None);
        }
    }

    fn add_edge(&mut self, a: Child, b: Child) {
        self.child(a);
        self.child(b);
        if self.linked.insert((a, b)) {
            self.out_order.entry(a).or_default().push(Some(b));
            self.edges.push((a, b));
        }
    }

    /// Successors of `c` in the hierarchical graph (exits excluded).
    pub fn succs(&self, c: Child) -> impl Iterator<Item = Child> + '_ {
        self.out_order
            .get(&c)
            .into_iter()
            .flatten()
            .filter_map(|x| *x)
    }
}

/// A CFG with its regions, every edge classified, and every region's hierarchical graph.
#[derive(Clone, Debug)]
pub struct Hierarchy {
    /// The CFG.
    pub cfg: Cfg,
    /// Its regions.
    pub regions: RegionTree,
    /// Per CFG edge index.
    pub classes: Vec<EdgeClass>,
    /// Per region.
    pub levels: Vec<Level>,
    /// Per region: the representative path, a path of children from an entry child to an
    /// exit child of its hierarchical graph (used by global-based profiling).
    pub rep: Vec<Vec<Child>>,
}

impl Hierarchy {
    /// Classifies every edge and builds every region's hierarchical graph. Fails if the CFG is
    /// malformed or a hierarchical graph with backedges removed has a cycle (possible only
    /// with user regions that are entered, left and re-entered without a backedge).
    pub fn new(cfg: Cfg, regions: RegionTree) -> Result<Hierarchy, Error> {
        cfg.validate()?;
        if regions.region_of.len() != cfg.node_count()
            || regions.backedge.len() != cfg.graph.edge_count()
        {
            return Err(Error::Invalid(
                "the region tree belongs to another CFG".into(),
            ));
        }
        let mut levels = vec![Level::default(); regions.len()];
        levels[0].add_entry(Child::Block(Cfg::entry()));
        let mut classes = Vec::with_capacity(cfg.graph.edge_count());
        for e in cfg.graph.edge_references() {
            let (v, w) = (e.source(), e.target());
            let rv = regions.region_of[v.index()];
            let rw = regions.region_of[w.index()];
            let level = regions.common(rv, rw);
            let exits: Vec<(RegionId, Child)> = regions
                .chain(rv, level)
                .into_iter()
                .map(|r| (r, regions.child_of(r, v)))
                .collect();
            let mut entries: Vec<(RegionId, Child)> = regions
                .chain(rw, level)
                .into_iter()
                .map(|r| (r, regions.child_of(r, w)))
                .collect();
            entries.reverse();
            let class = EdgeClass {
                exits,
                level,
                from: regions.child_of(level, v),
                to: regions.child_of(level, w),
                back: regions.backedge[e.id().index()],
                entries,
            };
            for &(r, c) in &class.exits {
                levels[r].add_exit(c);
            }
            if class.back {
                levels[level].add_exit(class.from);
                levels[level].add_entry(class.to);
            } else {
                levels[level].add_edge(class.from, class.to);
            }
            for &(r, c) in &class.entries {
                levels[r].add_entry(c);
            }
            classes.push(class);
        }
        levels[0].add_exit(Child::Block(Cfg::exit()));
        // Blocks and regions no edge touches still belong to their parent level.
        for n in cfg.graph.node_indices() {
            let mut r = regions.region_of[n.index()];
            levels[r].child(Child::Block(n));
            while let Some(p) = regions.regions[r].parent {
                levels[p].child(Child::Region(r));
                r = p;
            }
        }
        for level in levels.iter_mut() {
            let mut has_pred: HashMap<Child, bool> = HashMap::default();
            for &(_, b) in &level.edges {
                has_pred.insert(b, true);
            }
            for c in level.children.clone() {
                if !has_pred.contains_key(&c) {
                    level.add_entry(c);
                }
                if level.succs(c).next().is_none() {
                    level.add_exit(c);
                }
            }
        }
        let mut h = Hierarchy {
            cfg,
            regions,
            classes,
            levels,
            rep: Vec::new(),
        };
        h.check_acyclic()?;
        h.rep = (0..h.levels.len()).map(|r| h.representative(r)).collect();
        Ok(h)
    }

    fn check_acyclic(&self) -> Result<(), Error> {
        for (r, level) in self.levels.iter().enumerate() {
            let mut dag = crate::numbering::Dag::new(level.children.len(), 0, 0);
            for (a, b) in &level.edges {
                dag.add_edge(level.index[a], level.index[b]);
            }
            dag.topo_order().map_err(|_| {
                Error::Cyclic(format!(
                    "the hierarchical graph of region {r} has a cycle without a backedge"
                ))
            })?;
        }
        Ok(())
    }

    /// The representative path of region `r`: from its first entry child, first successors
    /// until an exit child.
    fn representative(&self, r: RegionId) -> Vec<Child> {
        let level = &self.levels[r];
        let Some(&first) = level.entries.first() else {
            return Vec::new();
        };
        let mut path = vec![first];
        let mut cur = first;
        while !level.exits.contains(&cur) {
            match level.succs(cur).next() {
                Some(n) if path.len() <= level.children.len() => {
                    path.push(n);
                    cur = n;
                }
                _ => break,
            }
        }
        path
    }

    /// The representative entry block of a child: the block itself, or (recursively) the
    /// first block of a region's representative path.
    pub fn rep_entry(&self, c: Child) -> NodeIndex {
        match c {
            Child::Block(b) => b,
            Child::Region(r) => match self.rep[r].first() {
                Some(&f) => self.rep_entry(f),
                None => Cfg::entry(),
            },
        }
    }

    /// The representative exit block of a child.
    pub fn rep_exit(&self, c: Child) -> NodeIndex {
        match c {
            Child::Block(b) => b,
            Child::Region(r) => match self.rep[r].last() {
                Some(&l) => self.rep_exit(l),
                None => Cfg::exit(),
            },
        }
    }

    /// A child's label: the block's label or `R<id>`.
    pub fn child_label(&self, c: Child) -> String {
        match c {
            Child::Block(b) => self.cfg.label(b),
            Child::Region(r) => format!("R{r}"),
        }
    }
}

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

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

/// The set of a hierarchy's edges: filled per edge when a function is first instrumented,
/// so a fast fixed hash (std's SipHash guards against keys an adversary chooses, which a
/// CFG's children are not).
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

use crate::adjacency::Adjacency;
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
    /// Children in order of first appearance (a child's index here is its node in the
    /// region's DAG, [`Hierarchy::position`]).
    pub children: Vec<Child>,
    /// Entry children, in order of first appearance.
    pub entries: Vec<Child>,
    /// Exit children, in order of first appearance.
    pub exits: Vec<Child>,
    /// Non-back edges between children, in order of first appearance (no duplicates).
    pub edges: Vec<(Child, Child)>,
    /// Per child: its out-items ([`Level::out_items`]).
    outs: Adjacency<Option<Child>>,
    /// Per child: [`ENTRY`] and [`EXIT`] marks.
    marks: Vec<u8>,
}

/// [`Level::marks`]: the child is in `entries`.
const ENTRY: u8 = 1;
/// [`Level::marks`]: the child is in `exits`.
const EXIT: u8 = 2;

impl Level {
    /// The out-items of the child at index `i` of `children`, in order of first appearance:
    /// `Some(b)` for an edge to `b`, `None` for "exit". They fix the order of out-edges in
    /// the augmented graphs.
    pub fn out_items(&self, i: usize) -> &[Option<Child>] {
        self.outs.of(i)
    }

    /// Successors of the child at index `i` in the hierarchical graph (exits excluded).
    pub fn succs(&self, i: usize) -> impl Iterator<Item = Child> + '_ {
        self.out_items(i).iter().filter_map(|x| *x)
    }

    /// Whether the child at index `i` is an exit child.
    pub fn is_exit(&self, i: usize) -> bool {
        self.marks.get(i).is_some_and(|m| m & EXIT != 0)
    }
}

/// Builds the levels of a hierarchy. Children are found by a dense id (a block's node
/// index, a region's after them) in arrays, not hashed: instrumenting a function builds
/// its hierarchy once, on its first call, and maps keyed by children were most of that.
struct Builder {
    levels: Vec<Level>,
    /// Per child id: its index in its level's children, or `u32::MAX`.
    pos: Vec<u32>,
    /// Blocks: ids below this are blocks.
    blocks: usize,
    /// Per level: `(child index, out-item)` in order of first appearance.
    items: Vec<Vec<(u32, Option<Child>)>>,
    /// The edges added, as `(id of a) << 32 | id of b`: the virtual entry may have an edge
    /// to nearly every child (1738 of 1740 in one of coremark's functions), which a search
    /// of its out-items for each new edge made quadratic.
    linked: HashSet<u64>,
}

impl Builder {
    fn id(blocks: usize, c: Child) -> usize {
        match c {
            Child::Block(n) => n.index(),
            Child::Region(r) => blocks + r,
        }
    }

    /// `c`'s index in level `l`, added if new.
    fn child(&mut self, l: RegionId, c: Child) -> u32 {
        let id = Builder::id(self.blocks, c);
        let level = &mut self.levels[l];
        let at = &mut self.pos[id];
        if *at == u32::MAX {
            *at = level.children.len() as u32;
            level.children.push(c);
            level.marks.push(0);
        }
        *at
    }

    fn add_entry(&mut self, l: RegionId, c: Child) {
        let i = self.child(l, c) as usize;
        let level = &mut self.levels[l];
        if level.marks[i] & ENTRY == 0 {
            level.marks[i] |= ENTRY;
            level.entries.push(c);
        }
    }

    fn add_exit(&mut self, l: RegionId, c: Child) {
        let i = self.child(l, c);
        let level = &mut self.levels[l];
        if level.marks[i as usize] & EXIT == 0 {
            level.marks[i as usize] |= EXIT;
            level.exits.push(c);
            self.items[l].push((i, None));
        }
    }

    fn add_edge(&mut self, l: RegionId, a: Child, b: Child) {
        let i = self.child(l, a);
        self.child(l, b);
        let key = (Builder::id(self.blocks, a) as u64) << 32 | Builder::id(self.blocks, b) as u64;
        if self.linked.insert(key) {
            self.items[l].push((i, Some(b)));
            self.levels[l].edges.push((a, b));
        }
    }

    /// The levels, each child's out-items grouped by child (in their order).
    fn finish(mut self) -> (Vec<Level>, Vec<u32>) {
        for (level, items) in self.levels.iter_mut().zip(&self.items) {
            let pairs = items.iter().map(|&(i, item)| (i as usize, item));
            level.outs = Adjacency::new(level.children.len(), pairs);
        }
        (self.levels, self.pos)
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
    /// Per child id ([`Builder::id`]): its index in its level's children.
    pos: Vec<u32>,
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
        let blocks = cfg.node_count();
        let mut b = Builder {
            levels: vec![Level::default(); regions.len()],
            pos: vec![u32::MAX; blocks + regions.len()],
            blocks,
            items: vec![Vec::new(); regions.len()],
            linked: HashSet::with_capacity_and_hasher(cfg.graph.edge_count(), Default::default()),
        };
        b.add_entry(0, Child::Block(Cfg::entry()));
        let mut classes = Vec::with_capacity(cfg.graph.edge_count());
        for e in cfg.graph.edge_references() {
            let (v, w) = (e.source(), e.target());
            let rv = regions.region_of[v.index()];
            let rw = regions.region_of[w.index()];
            let level = regions.common(rv, rw);
            let exits: Vec<(RegionId, Child)> = regions
                .chain(rv, level)
                .map(|r| (r, regions.child_of(r, v)))
                .collect();
            let mut entries: Vec<(RegionId, Child)> = regions
                .chain(rw, level)
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
                b.add_exit(r, c);
            }
            if class.back {
                b.add_exit(level, class.from);
                b.add_entry(level, class.to);
            } else {
                b.add_edge(level, class.from, class.to);
            }
            for &(r, c) in &class.entries {
                b.add_entry(r, c);
            }
            classes.push(class);
        }
        b.add_exit(0, Child::Block(Cfg::exit()));
        // Blocks and regions no edge touches still belong to their parent level.
        for n in cfg.graph.node_indices() {
            let mut r = regions.region_of[n.index()];
            b.child(r, Child::Block(n));
            while let Some(p) = regions.regions[r].parent {
                b.child(p, Child::Region(r));
                r = p;
            }
        }
        for l in 0..b.levels.len() {
            let k = b.levels[l].children.len();
            let mut has_pred = vec![false; k];
            let mut has_succ = vec![false; k];
            for &(i, item) in &b.items[l] {
                if let Some(c) = item {
                    has_pred[b.pos[Builder::id(blocks, c)] as usize] = true;
                    has_succ[i as usize] = true;
                }
            }
            for i in 0..k {
                let c = b.levels[l].children[i];
                if !has_pred[i] {
                    b.add_entry(l, c);
                }
                if !has_succ[i] {
                    b.add_exit(l, c);
                }
            }
        }
        let (levels, pos) = b.finish();
        let mut h = Hierarchy {
            cfg,
            regions,
            classes,
            levels,
            rep: Vec::new(),
            pos,
        };
        h.check_acyclic()?;
        h.rep = (0..h.levels.len()).map(|r| h.representative(r)).collect();
        Ok(h)
    }

    /// The index of child `c` in the children of region `r`'s level, if it is one of them.
    pub fn position(&self, r: RegionId, c: Child) -> Option<usize> {
        let at = *self.pos.get(Builder::id(self.cfg.node_count(), c))? as usize;
        (self.levels.get(r)?.children.get(at) == Some(&c)).then_some(at)
    }

    /// [`position`](Self::position) of a child known to be in its level (one of a level's
    /// entries, exits or out-items).
    pub(crate) fn at(&self, c: Child) -> usize {
        self.pos[Builder::id(self.cfg.node_count(), c)] as usize
    }

    fn check_acyclic(&self) -> Result<(), Error> {
        for (r, level) in self.levels.iter().enumerate() {
            let mut dag = crate::numbering::Dag::new(level.children.len(), 0, 0);
            for &(a, b) in &level.edges {
                dag.add_edge(self.at(a), self.at(b));
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
        while !level.is_exit(self.at(cur)) {
            match level.succs(self.at(cur)).next() {
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

//! Proptest strategies for reducible CFGs with nested loops, random walks through them, and
//! a brute-force oracle that cuts a walk into hierarchical paths (feature `proptest`).
//!
//! CFGs come from small structured programs (sequences, if/else, while and do-while loops,
//! `break` out of one or more loops, `continue`, `return`), so they are reducible and their
//! loops nest; multi-level breaks make edges that leave several regions at once.

use std::collections::BTreeMap;

use petgraph::graph::NodeIndex;
use proptest::prelude::*;
use rand::Rng;

use crate::cfg::{Cfg, EdgeKind};
use crate::plan::HierPath;
use crate::structure::{Child, RegionTree};

/// A statement of the generated programs.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// A straight-line block.
    Block,
    /// Two-way branch.
    If(Vec<Stmt>, Vec<Stmt>),
    /// Test at the top.
    While(Vec<Stmt>),
    /// Test at the bottom.
    DoWhile(Vec<Stmt>),
    /// Conditionally leave this many enclosing loops (clamped to the nesting depth).
    Break(u8),
    /// Conditionally go to the innermost loop's test.
    Continue,
    /// Conditionally leave the function.
    Return,
}

/// Programs of up to `depth` levels of nesting.
pub fn program(depth: u32) -> impl Strategy<Value = Vec<Stmt>> {
    let leaf = prop_oneof![
        3 => Just(Stmt::Block),
        2 => (1u8..=3).prop_map(Stmt::Break),
        1 => Just(Stmt::Continue),
        1 => Just(Stmt::Return),
    ];
    let stmt = leaf.prop_recursive(depth, 48, 4, |inner| {
        let body = prop::collection::vec(inner, 1..4);
        prop_oneof![
            (body.clone(), body.clone()).prop_map(|(a, b)| Stmt::If(a, b)),
            body.clone().prop_map(Stmt::While),
            body.prop_map(Stmt::DoWhile),
        ]
    });
    prop::collection::vec(stmt, 1..5)
}

/// A reducible CFG with nested loops.
pub fn reducible_cfg(depth: u32) -> impl Strategy<Value = Cfg> {
    program(depth).prop_map(|p| build(&p))
}

/// The CFG of a program: blocks named `b0`, `b1`, ...
pub fn build(program: &[Stmt]) -> Cfg {
    let mut b = Builder {
        cfg: Cfg::new("generated", 0),
        loops: Vec::new(),
    };
    let first = b.block();
    b.cfg.graph.add_edge(Cfg::entry(), first, EdgeKind::Start);
    if let Some(end) = b.seq(program, Some(first)) {
        b.cfg.graph.add_edge(end, Cfg::exit(), EdgeKind::Leave);
    }
    b.cfg
}

struct Builder {
    cfg: Cfg,
    /// Enclosing loops, innermost last: (test block, exit block).
    loops: Vec<(NodeIndex, NodeIndex)>,
}

impl Builder {
    fn block(&mut self) -> NodeIndex {
        let i = self.cfg.node_count() as u64;
        self.cfg.add_block(i, i, &format!("b{i}"))
    }

    fn flow(&mut self, a: NodeIndex, b: NodeIndex) {
        self.cfg.graph.add_edge(a, b, EdgeKind::Flow);
    }

    /// Emits `stmts` after `cur` (None: unreachable so far); returns the block that falls
    /// out of the sequence, if any.
    fn seq(&mut self, stmts: &[Stmt], mut cur: Option<NodeIndex>) -> Option<NodeIndex> {
        for s in stmts {
            cur = self.stmt(s, cur?);
        }
        cur
    }

    fn stmt(&mut self, s: &Stmt, cur: NodeIndex) -> Option<NodeIndex> {
        match s {
            Stmt::Block => {
                let b = self.block();
                self.flow(cur, b);
                Some(b)
            }
            Stmt::If(t, e) => {
                let (bt, be, join) = (self.block(), self.block(), self.block());
                self.flow(cur, bt);
                self.flow(cur, be);
                for (start, body) in [(bt, t), (be, e)] {
                    if let Some(end) = self.seq(body, Some(start)) {
                        self.flow(end, join);
                    }
                }
                Some(join)
            }
            Stmt::While(body) | Stmt::DoWhile(body) => {
                let (test, start, exit) = (self.block(), self.block(), self.block());
                let top_test = matches!(s, Stmt::While(_));
                if top_test {
                    self.flow(cur, test);
                    self.flow(test, start);
                    self.flow(test, exit);
                } else {
                    self.flow(cur, start);
                }
                self.loops.push((test, exit));
                let end = self.seq(body, Some(start));
                self.loops.pop();
                if let Some(end) = end {
                    self.flow(end, test);
                }
                if !top_test {
                    self.flow(test, start);
                    self.flow(test, exit);
                }
                Some(exit)
            }
            // Conditional: `if (c) break k;` and so on, so the sequence goes on.
            Stmt::Break(k) => {
                if let Some(target) = (!self.loops.is_empty()).then(|| {
                    let k = (*k as usize).clamp(1, self.loops.len());
                    self.loops[self.loops.len() - k].1
                }) {
                    self.flow(cur, target);
                }
                self.stmt(&Stmt::Block, cur)
            }
            Stmt::Continue => {
                if let Some(&(test, _)) = self.loops.last() {
                    self.flow(cur, test);
                }
                self.stmt(&Stmt::Block, cur)
            }
            Stmt::Return => {
                self.cfg.graph.add_edge(cur, Cfg::exit(), EdgeKind::Leave);
                self.stmt(&Stmt::Block, cur)
            }
        }
    }
}

/// A random walk from the entry to the exit. After `soft_limit` steps it only takes edges
/// that get closer to the exit, so it always ends; `None` if the exit is unreachable.
pub fn random_walk<R: Rng>(cfg: &Cfg, rng: &mut R, soft_limit: usize) -> Option<Vec<NodeIndex>> {
    let dist = distance_to_exit(cfg);
    dist[Cfg::entry().index()]?;
    let mut walk = vec![Cfg::entry()];
    let mut v = Cfg::entry();
    while v != Cfg::exit() {
        let succs: Vec<NodeIndex> = cfg
            .succs(v)
            .into_iter()
            .map(|(_, w)| w)
            .filter(|w| dist[w.index()].is_some())
            .collect();
        let d = dist[v.index()]?;
        let pick: Vec<NodeIndex> = if walk.len() > soft_limit {
            succs
                .into_iter()
                .filter(|w| dist[w.index()].is_some_and(|x| x < d))
                .collect()
        } else {
            succs
        };
        v = *pick.get(rng.gen_range(0..pick.len().max(1)))?;
        walk.push(v);
    }
    Some(walk)
}

fn distance_to_exit(cfg: &Cfg) -> Vec<Option<usize>> {
    let mut dist = vec![None; cfg.node_count()];
    dist[Cfg::exit().index()] = Some(0);
    let mut queue = std::collections::VecDeque::from([Cfg::exit()]);
    while let Some(x) = queue.pop_front() {
        let d = dist[x.index()].unwrap_or(0);
        for p in cfg
            .graph
            .neighbors_directed(x, petgraph::Direction::Incoming)
        {
            if dist[p.index()].is_none() {
                dist[p.index()] = Some(d + 1);
                queue.push_back(p);
            }
        }
    }
    dist
}

/// The brute-force oracle: cuts a walk (entry to exit) into hierarchical paths straight from
/// the definition (open one path per region entered, close it when the region is left or its
/// backedge is taken), independently of numbering and plans.
pub fn oracle(cfg: &Cfg, regions: &RegionTree, walk: &[NodeIndex]) -> BTreeMap<HierPath, u64> {
    let mut done: BTreeMap<HierPath, u64> = BTreeMap::new();
    let mut finish = |p: HierPath| *done.entry(p).or_insert(0) += 1;
    let mut open: Vec<HierPath> = vec![HierPath {
        region: 0,
        children: vec![Child::Block(Cfg::entry())],
    }];
    for pair in walk.windows(2) {
        let (v, w) = (pair[0], pair[1]);
        let Some(e) = cfg.graph.find_edge(v, w) else {
            continue;
        };
        let level = regions.common(regions.region_of[v.index()], regions.region_of[w.index()]);
        while open.last().is_some_and(|p| p.region != level) {
            if let Some(p) = open.pop() {
                finish(p);
            }
        }
        let b = regions.child_of(level, w);
        if regions.backedge[e.index()] {
            if let Some(p) = open.pop() {
                finish(p);
            }
            open.push(HierPath {
                region: level,
                children: vec![b],
            });
        } else if let Some(top) = open.last_mut() {
            top.children.push(b);
        }
        let mut cur = b;
        while let Child::Region(r) = cur {
            cur = regions.child_of(r, w);
            open.push(HierPath {
                region: r,
                children: vec![cur],
            });
        }
    }
    while let Some(p) = open.pop() {
        finish(p);
    }
    done
}

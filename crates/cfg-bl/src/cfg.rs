//! The control-flow graph of one function: blocks, edges, the virtual entry and exit.

use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::adjacency::Adjacency;
use crate::Error;

/// What a CFG node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// The virtual function entry: its edges lead to the blocks where an activation starts.
    Entry,
    /// The virtual function exit: returns, tail calls and program termination lead here.
    Exit,
    /// A basic block of code.
    Code,
}

/// The out-edges of every node of a [`Cfg`] ([`Cfg::all_succs`]).
#[derive(Clone, Debug)]
pub struct Succs(Adjacency<(EdgeIndex, NodeIndex)>);

impl Succs {
    /// The out-edges of `n` in insertion order: `(edge, target)`, as [`Cfg::succs`] gives
    /// them.
    pub fn of(&self, n: NodeIndex) -> &[(EdgeIndex, NodeIndex)] {
        self.0.of(n.index())
    }
}

/// One CFG node. For recovered CFGs `start..end` are guest addresses; for hand-built ones
/// `start` is the node's creation index and `end == start`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Address of the first instruction (or a creation index).
    pub start: u64,
    /// Address just past the last instruction.
    pub end: u64,
    /// Entry, exit or code.
    pub kind: NodeKind,
    /// A name for reports (`A`, `B`, ... in hand-built graphs; empty for recovered ones).
    pub name: String,
}

/// Why an edge exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// Control flow between blocks: branch, jump, fall-through, or a call's return site.
    Flow,
    /// From the virtual entry to the function's entry block.
    Start,
    /// From the virtual entry to a block an unresolved indirect jump may reach (every block
    /// of a function with such a jump): the profile restarts there.
    Resync,
    /// To the virtual exit: return, tail call, indirect jump, or a point where the program may
    /// terminate (system call, call, halt).
    Leave,
}

/// A call made by a block: the call-site record of recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The calling block.
    pub block: NodeIndex,
    /// Address of the call instruction.
    pub pc: u64,
    /// The callee's address, if the call is direct.
    pub target: Option<u64>,
}

/// The CFG of one function. Node 0 is the virtual [`NodeKind::Entry`], node 1 the virtual
/// [`NodeKind::Exit`]; out-edges are numbered in insertion order, which fixes Ball-Larus values.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// The graph.
    pub graph: DiGraph<Block, EdgeKind>,
    /// The function's name (symbol) for reports.
    pub name: String,
    /// Address of the entry block (0 for hand-built graphs).
    pub addr: u64,
    /// Calls made by the function's blocks.
    pub calls: Vec<CallSite>,
}

impl Cfg {
    /// The virtual entry node.
    #[inline]
    pub fn entry() -> NodeIndex {
        NodeIndex::new(0)
    }

    /// The virtual exit node.
    #[inline]
    pub fn exit() -> NodeIndex {
        NodeIndex::new(1)
    }

    /// An empty CFG with only the virtual entry and exit.
    pub fn new(name: &str, addr: u64) -> Cfg {
        let mut graph = DiGraph::new();
        for (kind, n) in [(NodeKind::Entry, "entry"), (NodeKind::Exit, "exit")] {
            graph.add_node(Block {
                start: 0,
                end: 0,
                kind,
                name: n.to_string(),
            });
        }
        Cfg {
            graph,
            name: name.to_string(),
            addr,
            calls: Vec::new(),
        }
    }

    /// Builds a CFG by hand: `names` become code blocks (`start` = position), `entries` get
    /// [`EdgeKind::Start`] edges, `edges` are [`EdgeKind::Flow`] edges in the given order and
    /// `exits` get [`EdgeKind::Leave`] edges. Returns the CFG and the node of each name.
    pub fn from_names(
        names: &[&str],
        entries: &[&str],
        edges: &[(&str, &str)],
        exits: &[&str],
    ) -> Result<(Cfg, Vec<NodeIndex>), Error> {
        let mut cfg = Cfg::new("hand-built", 0);
        let nodes: Vec<NodeIndex> = names
            .iter()
            .enumerate()
            .map(|(i, n)| cfg.add_block(i as u64, i as u64, n))
            .collect();
        let find = |n: &str| {
            names
                .iter()
                .position(|m| *m == n)
                .map(|i| nodes[i])
                .ok_or_else(|| Error::Invalid(format!("unknown block name `{n}`")))
        };
        for e in entries {
            cfg.graph.add_edge(Cfg::entry(), find(e)?, EdgeKind::Start);
        }
        for (a, b) in edges {
            cfg.graph.add_edge(find(a)?, find(b)?, EdgeKind::Flow);
        }
        for x in exits {
            cfg.graph.add_edge(find(x)?, Cfg::exit(), EdgeKind::Leave);
        }
        Ok((cfg, nodes))
    }

    /// Adds a code block.
    pub fn add_block(&mut self, start: u64, end: u64, name: &str) -> NodeIndex {
        self.graph.add_node(Block {
            start,
            end,
            kind: NodeKind::Code,
            name: name.to_string(),
        })
    }

    /// Number of nodes, virtual ones included.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Whether the function has an indirect jump whose targets recovery did not resolve:
    /// its paths end at such a jump and restart at the target ([`EdgeKind::Resync`] edges).
    pub fn restarts(&self) -> bool {
        self.graph.edge_weights().any(|&k| k == EdgeKind::Resync)
    }

    /// A node's label for reports: its name, or its start address in hex.
    pub fn label(&self, n: NodeIndex) -> String {
        let b = &self.graph[n];
        if b.name.is_empty() {
            format!("{:#x}", b.start)
        } else {
            b.name.clone()
        }
    }

    /// The out-edges of every node, each node's in insertion order ([`Succs::of`]): for a
    /// walk over many nodes, one pass over the edges instead of a sorted vector per node.
    pub fn all_succs(&self) -> Succs {
        let edges = self.graph.edge_references();
        let pairs = edges.map(|e| (e.source().index(), (e.id(), e.target())));
        Succs(Adjacency::new(self.graph.node_count(), pairs))
    }

    /// The out-edges of `n` in insertion order: `(edge, target)`.
    pub fn succs(&self, n: NodeIndex) -> Vec<(EdgeIndex, NodeIndex)> {
        let mut v: Vec<(EdgeIndex, NodeIndex)> = self
            .graph
            .edges_directed(n, Direction::Outgoing)
            .map(|e| (e.id(), e.target()))
            .collect();
        v.sort_by_key(|(e, _)| e.index());
        v
    }

    /// The edge `a -> b` of kind other than `Leave`/`Resync` if there is one, else any edge
    /// `a -> b`.
    pub fn find_edge(&self, a: NodeIndex, b: NodeIndex) -> Option<EdgeIndex> {
        self.graph.find_edge(a, b)
    }

    /// Checks the invariants the analyses rely on: nothing enters the virtual entry, nothing
    /// leaves the virtual exit, and every other edge has a code block or the entry as source.
    pub fn validate(&self) -> Result<(), Error> {
        if self.graph.node_count() < 2
            || self.graph[Cfg::entry()].kind != NodeKind::Entry
            || self.graph[Cfg::exit()].kind != NodeKind::Exit
        {
            return Err(Error::Invalid(
                "nodes 0 and 1 must be the entry and exit".into(),
            ));
        }
        if self
            .graph
            .edges_directed(Cfg::entry(), Direction::Incoming)
            .next()
            .is_some()
            || self
                .graph
                .edges_directed(Cfg::exit(), Direction::Outgoing)
                .next()
                .is_some()
        {
            return Err(Error::Invalid(
                "edges may not enter the virtual entry or leave the virtual exit".into(),
            ));
        }
        if self
            .graph
            .edges_directed(Cfg::entry(), Direction::Outgoing)
            .next()
            .is_none()
        {
            return Err(Error::Invalid("the CFG has no entry block".into()));
        }
        Ok(())
    }
}

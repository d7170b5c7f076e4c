//! The open cycle of a level (the symbols since the last cut) and how a closed cycle finds
//! its sequence id: a trie for paths, a buffer and a sequence index for the levels above.
//!
//! Paths repeat the same few block sequences millions of times, one symbol at a time, so
//! level 0 walks a trie whose nodes remember their last two successors: a loop body costs
//! one comparison per block and no hashing, and a node *is* a sequence, so comparing a
//! closed path with the previous one is one integer comparison. Upper levels see far fewer
//! symbols but mostly short, often new sequences (strata of data-dependent loops), where a
//! trie would allocate and hash a node per symbol; they buffer the symbols and look the
//! sequence up once per closed cycle.

use std::collections::HashMap;
use std::sync::Arc;

use bounded_hashtable::DefaultHashBuilder;

/// No node / no sequence yet.
pub(crate) const NIL: u32 = u32::MAX;

/// How a level keeps its open cycle (symbols are dense indices).
pub(crate) trait Cycle: Default {
    /// Symbols in the open cycle.
    fn len(&self) -> usize;
    /// Appends a symbol.
    fn push(&mut self, i: u32);
    /// A token of the open cycle's sequence, equal for equal sequences where the
    /// representation allows it ([`NIL`] otherwise): remembered with the previous unit.
    fn token(&self) -> u32;
    /// The open cycle equals the previous one, whose token and symbols are given.
    fn same(&self, token: u32, seq: &[u32]) -> bool;
    /// The open cycle's sequence id, if it has one.
    fn id(&self) -> Option<u32>;
    /// The open cycle's symbols.
    fn symbols(&self) -> Vec<u32>;
    /// Gives the open cycle's sequence (`seq`, its symbols) the id `id`.
    fn set_id(&mut self, id: u32, seq: &Arc<[u32]>);
    /// Starts the next cycle.
    fn clear(&mut self);
    /// A new symbol index exists.
    fn add_symbol(&mut self) {}
}

/// A trie node: the sequence of symbols on the way from the root.
#[derive(Clone, Copy, Debug)]
struct Node {
    parent: u32,
    sym: u32,
    /// The last successor taken from here (symbol, child): the common case of a loop.
    last_sym: u32,
    last_child: u32,
    /// The successor before the last one: a loop body with one data-dependent branch
    /// alternates between two successors without hashing.
    alt_sym: u32,
    alt_child: u32,
    /// The sequence id, once a cycle has ended here.
    seq: u32,
    /// Symbols from the root.
    depth: u32,
}

impl Node {
    fn new(parent: u32, sym: u32, depth: u32) -> Self {
        Node {
            parent,
            sym,
            last_sym: NIL,
            last_child: NIL,
            alt_sym: NIL,
            alt_child: NIL,
            seq: NIL,
            depth,
        }
    }
}

/// The open cycle as a node of the trie of all cycles seen; node 0 is the empty sequence.
pub(crate) struct Trie {
    nodes: Vec<Node>,
    /// Successors beyond a node's last two, keyed by (node, symbol).
    children: HashMap<u64, u32, DefaultHashBuilder>,
    /// The root's children by symbol (every cycle starts there).
    first: Vec<u32>,
    cur: u32,
}

impl Default for Trie {
    fn default() -> Self {
        Trie {
            nodes: vec![Node::new(NIL, NIL, 0)],
            children: HashMap::default(),
            first: Vec::new(),
            cur: 0,
        }
    }
}

impl Trie {
    /// The child of the open node for symbol `i` past its last successor, remembered as
    /// its last successor.
    #[cold]
    fn step(&mut self, i: u32) -> u32 {
        let parent = self.cur;
        let p = self.nodes[parent as usize];
        let child = if p.alt_sym == i {
            p.alt_child
        } else if parent == 0 && self.first.get(i as usize).is_some_and(|&c| c != NIL) {
            self.first[i as usize]
        } else {
            self.child(parent, i)
        };
        let node = &mut self.nodes[parent as usize];
        node.alt_sym = node.last_sym;
        node.alt_child = node.last_child;
        node.last_sym = i;
        node.last_child = child;
        child
    }

    /// The child of `parent` for symbol `i` from the children index, created if new.
    fn child(&mut self, parent: u32, i: u32) -> u32 {
        let fresh = self.nodes.len() as u32;
        let child = *self
            .children
            .entry(u64::from(parent) << 32 | u64::from(i))
            .or_insert(fresh);
        if child == fresh {
            if let Some(f) = self.first.get_mut(i as usize).filter(|_| parent == 0) {
                *f = child;
            }
            let depth = self.nodes[parent as usize].depth + 1;
            self.nodes.push(Node::new(parent, i, depth));
        }
        child
    }
}

impl Cycle for Trie {
    #[inline]
    fn len(&self) -> usize {
        self.nodes[self.cur as usize].depth as usize
    }

    #[inline]
    fn push(&mut self, i: u32) {
        let node = &self.nodes[self.cur as usize];
        self.cur = if node.last_sym == i {
            node.last_child
        } else {
            self.step(i)
        };
    }

    #[inline]
    fn token(&self) -> u32 {
        self.cur
    }

    #[inline]
    fn same(&self, token: u32, _: &[u32]) -> bool {
        token == self.cur
    }

    fn id(&self) -> Option<u32> {
        Some(self.nodes[self.cur as usize].seq).filter(|&s| s != NIL)
    }

    fn symbols(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len());
        let mut n = self.cur;
        while let Some(x) = self.nodes.get(n as usize).filter(|_| n != 0) {
            out.push(x.sym);
            n = x.parent;
        }
        out.reverse();
        out
    }

    fn set_id(&mut self, id: u32, _: &Arc<[u32]>) {
        self.nodes[self.cur as usize].seq = id;
    }

    #[inline]
    fn clear(&mut self) {
        self.cur = 0;
    }

    fn add_symbol(&mut self) {
        self.first.push(NIL);
    }
}

/// The open cycle as a buffer of symbols, identified through an index of the sequences
/// once per closed cycle.
#[derive(Default)]
pub(crate) struct Buffer {
    buf: Vec<u32>,
    index: HashMap<Arc<[u32]>, u32, DefaultHashBuilder>,
}

impl Cycle for Buffer {
    #[inline]
    fn len(&self) -> usize {
        self.buf.len()
    }

    #[inline]
    fn push(&mut self, i: u32) {
        self.buf.push(i);
    }

    fn token(&self) -> u32 {
        NIL
    }

    fn same(&self, _: u32, seq: &[u32]) -> bool {
        *seq == *self.buf
    }

    fn id(&self) -> Option<u32> {
        self.index.get(&self.buf[..]).copied()
    }

    fn symbols(&self) -> Vec<u32> {
        self.buf.clone()
    }

    fn set_id(&mut self, id: u32, seq: &Arc<[u32]>) {
        self.index.insert(Arc::clone(seq), id);
    }

    fn clear(&mut self) {
        self.buf.clear();
    }
}

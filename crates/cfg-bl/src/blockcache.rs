//! The runtime's per-block cache: for each emulator block (dense [`prof_events::BlockId`]),
//! the plan's operations along the block, composed once, so that an edge event costs a few
//! loads and an add.
//!
//! An emulator block may span several CFG blocks joined by fall-through edges, and ends in
//! one transfer. For the function and CFG node an activation stands at when the block
//! starts (the cache key), the cache holds the node the block's last instruction lies in,
//! the composed operations of the fall-through edges up to it, and for up to two successor
//! addresses the composed operations of those falls plus the transfer's CFG edge and the
//! node reached. Composition merges additions (`Add(a); Add(b)` is `Add(a + b)`, `Set(a);
//! Add(b)` is `Set(a + b)`), so most actions are a single addition held inline; longer ones
//! (path ends, region entries and exits) live in an arena. The cache changes nothing
//! observable: a miss computes exactly what the uncached walk would do, and the hit replays
//! it.
//!
//! The hot part of an entry ([`Slot`]) is one cache line: the key, the two successor
//! addresses, the nodes reached and their additions (an index into the arena for anything
//! longer); the rest ([`Cold`]) is read only on misses, calls and returns.

use crate::plan::Op;
use crate::runtime::{Activation, Counters};

/// A node or function index that holds nothing.
pub(crate) const NONE: u32 = u32::MAX;

/// The key of a slot that holds nothing.
pub(crate) const NO_KEY: u64 = u64::MAX;

/// Largest arena (operations plus edges) before the cache is cleared and rebuilt; bounds
/// memory when blocks are shared by functions and keep changing keys.
const ARENA_LIMIT: usize = 1 << 22;

/// The key of function `f` standing at CFG node `node`.
#[inline]
pub(crate) fn key(f: usize, node: usize) -> u64 {
    ((f as u64) << 32) | node as u64
}

/// Composed operations in the arena (and the CFG edges they came from, for edge recording).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Action {
    ops_start: u32,
    ops_len: u32,
    edges_start: u32,
    edges_len: u32,
}

/// How a cached successor changes the sum: `sum += add` inline, or an arena action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// `sum += add` (sign-extended to 128 bits).
    Add(i64),
    /// The arena action with this index.
    Action(u32),
}

/// The hot part of one emulator block's entry: one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(crate) struct Slot {
    /// [`key`] of the function and node at the block's start ([`NO_KEY`]: empty).
    pub(crate) key: u64,
    /// Successor addresses.
    pub(crate) to: [u64; 2],
    /// CFG node reached ([`NONE`]: the entry is empty).
    pub(crate) next: [u32; 2],
    /// Additions of inline steps.
    pub(crate) add: [i64; 2],
    /// [`NONE`] for an inline addition, else the arena action.
    pub(crate) action: [u32; 2],
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            key: NO_KEY,
            to: [0; 2],
            next: [NONE; 2],
            add: [0; 2],
            action: [NONE; 2],
        }
    }
}

impl Slot {
    /// The cached successor at `to`: the node reached and the step.
    #[inline]
    pub(crate) fn find(&self, to: u64) -> Option<(u32, Step)> {
        let i = if self.to[0] == to && self.next[0] != NONE {
            0
        } else if self.to[1] == to && self.next[1] != NONE {
            1
        } else {
            return None;
        };
        let step = match self.action[i] {
            NONE => Step::Add(self.add[i]),
            a => Step::Action(a),
        };
        Some((self.next[i], step))
    }

    /// Stores a successor in entry `i`.
    pub(crate) fn set(&mut self, i: usize, to: u64, next: u32, step: Step) {
        self.to[i] = to;
        self.next[i] = next;
        (self.add[i], self.action[i]) = match step {
            Step::Add(v) => (v, NONE),
            Step::Action(a) => (0, a),
        };
    }
}

/// The cold part of one emulator block's entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cold {
    /// Block start and end addresses (from the emulator).
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// The node holding the block's last instruction (for the keyed function and node).
    pub(crate) last: u32,
    /// The falls from the key's node to `last`.
    pub(crate) falls: Step,
    /// Which successor entry the next miss replaces.
    pub(crate) victim: u8,
    /// Last call target and its function ([`NONE`]: not a function entry).
    pub(crate) callee: Option<(u64, u32)>,
}

impl Cold {
    pub(crate) fn new(start: u64, end: u64) -> Cold {
        Cold {
            start,
            end,
            last: NONE,
            falls: Step::Add(0),
            victim: 0,
            callee: None,
        }
    }
}

/// Composed operation lists and edge lists of the steps that are not an inline addition.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    actions: Vec<Action>,
    ops: Vec<Op>,
    edges: Vec<u32>,
    /// Every step goes to the arena (so that edges are recorded).
    pub(crate) record: bool,
}

impl Arena {
    /// Whether the arena outgrew its bound (the caller then clears every slot and the arena).
    pub(crate) fn full(&self) -> bool {
        self.ops.len() + self.edges.len() + self.actions.len() > ARENA_LIMIT
    }

    pub(crate) fn clear(&mut self) {
        self.actions.clear();
        self.ops.clear();
        self.edges.clear();
    }

    /// The step for the composed `ops` (see [`compose`]) of CFG `edges`.
    pub(crate) fn store(&mut self, ops: &[Op], edges: &[u32]) -> Step {
        if !self.record {
            match ops {
                [] => return Step::Add(0),
                [Op::Add(v)] if *v as i64 as u128 == *v => return Step::Add(*v as i64),
                _ => {}
            }
        }
        let a = Action {
            ops_start: self.ops.len() as u32,
            ops_len: ops.len() as u32,
            edges_start: self.edges.len() as u32,
            edges_len: edges.len() as u32,
        };
        self.ops.extend_from_slice(ops);
        self.edges.extend_from_slice(edges);
        self.actions.push(a);
        Step::Action(self.actions.len() as u32 - 1)
    }

    /// Executes arena action `a` on `state`, counting its edges into `edge_counts` when
    /// recording.
    pub(crate) fn apply(
        &self,
        a: u32,
        state: &mut Activation,
        counters: &mut Counters,
        edge_counts: &mut [u64],
    ) {
        let Some(a) = self.actions.get(a as usize) else {
            return;
        };
        let (s, l) = (a.ops_start as usize, a.ops_len as usize);
        match self.ops.get(s..s + l).unwrap_or(&[]) {
            // A path's end at a backedge (or in a loop region's sink), the common long step.
            &[Op::Count { table, add }, Op::Set(v)] => {
                counters.bump(table, state.sum.wrapping_add(add));
                state.sum = v;
            }
            ops => state.run(ops, counters),
        }
        if self.record {
            let (s, l) = (a.edges_start as usize, a.edges_len as usize);
            for &e in self.edges.get(s..s + l).unwrap_or(&[]) {
                if let Some(c) = edge_counts.get_mut(e as usize) {
                    *c += 1;
                }
            }
        }
    }
}

/// Appends `ops` to `out`, merging additions into a preceding addition or assignment and
/// dropping additions of zero; the result has the same effect on sum, stack and counters.
pub(crate) fn compose(out: &mut Vec<Op>, ops: &[Op]) {
    for &op in ops {
        match (out.last_mut(), op) {
            (_, Op::Add(0)) => {}
            (Some(Op::Add(a) | Op::Set(a)), Op::Add(b)) => *a = a.wrapping_add(b),
            _ => out.push(op),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composition_merges_additions_only() {
        let mut v = Vec::new();
        compose(&mut v, &[Op::Add(2), Op::Add(0), Op::Add(u128::MAX)]);
        assert_eq!(v, [Op::Add(1)]);
        compose(
            &mut v,
            &[Op::Count { table: 0, add: 3 }, Op::Set(5), Op::Add(2)],
        );
        assert_eq!(v, [Op::Add(1), Op::Count { table: 0, add: 3 }, Op::Set(7)]);
        compose(&mut v, &[Op::Push(1), Op::Add(4), Op::Pop]);
        assert_eq!(
            v,
            [
                Op::Add(1),
                Op::Count { table: 0, add: 3 },
                Op::Set(7),
                Op::Push(1),
                Op::Add(4),
                Op::Pop
            ]
        );
    }

    #[test]
    fn a_slot_finds_its_successors_and_the_arena_keeps_long_steps() {
        let mut s = Slot::default();
        assert_eq!(s.find(0), None);
        s.set(0, 16, 3, Step::Add(-2));
        s.set(1, 32, 4, Step::Action(7));
        assert_eq!(s.find(16), Some((3, Step::Add(-2))));
        assert_eq!(s.find(32), Some((4, Step::Action(7))));
        assert_eq!(s.find(48), None);
        let mut arena = Arena::default();
        assert_eq!(arena.store(&[Op::Add(u128::MAX)], &[1]), Step::Add(-1));
        assert_eq!(arena.store(&[Op::Add(1 << 70)], &[1]), Step::Action(0));
        arena.record = true;
        assert_eq!(arena.store(&[], &[1]), Step::Action(1));
    }
}

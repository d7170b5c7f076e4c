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
//! Add(b)` is `Set(a + b)`; an addition before a count or an assignment is folded into
//! it), so most actions are a single addition held inline, and a path's end at a backedge
//! on a dense table is a [`PathEnd`] (one indexed add into the
//! [`Pool`](crate::pool::Pool)); longer ones (region entries and exits, sparse tables)
//! live in an arena. The cache changes nothing
//! observable: a miss computes exactly what the uncached walk would do, and the hit replays
//! it.
//!
//! The hot part of an entry ([`Slot`]) is one cache line: the key, the two successor
//! addresses, the keys of the nodes reached (the next hoisted key is a load) and their
//! additions (an index into the arena for anything longer); the rest ([`Cold`]) is read
//! only on misses and uncached calls and returns. A block that ends in a call or return
//! has no flow successors: its key is marked ([`NOT_FLOW`]), so that the hot path's key
//! compare also tells flow from calls and returns, and its entries hold its falls when
//! they are an addition, and a call's callee when it starts with an assignment
//! ([`CachedCall`]), so that most calls and returns skip the general path too.

use prof_events::{BlockEnd, EdgeKind as EmuEdge, ProbeOp};

use crate::plan::Op;
use crate::pool::{signed_64, Memo, PathEnd, PathEndOps, Place, PlacedOp, Pooled};
use crate::runtime::Activation;

/// A node or function index that holds nothing.
pub(crate) const NONE: u32 = u32::MAX;

/// Marks a slot's action as a [`PathEnd`] (the other bits index [`Arena::end`]).
const END_BIT: u32 = 1 << 31;

/// The key of a slot that holds nothing.
pub(crate) const NO_KEY: u64 = u64::MAX;

/// Ways of a sparse table's path end: windows on as many sums. (Replaying the sums that a
/// single window missed on coremark 700 and primes 60000, flat, through four windows kept
/// least recently used left 238 of 270 820 and 23 763 of 568 461 misses; the window that
/// moves is the one that counted least since the last miss, see [`Arena::victim`].)
pub(crate) const WINDOWS: u8 = 6;

/// Largest arena (operations plus edges) before the cache is cleared and rebuilt; bounds
/// memory when blocks are shared by functions and keep changing keys.
const ARENA_LIMIT: usize = 1 << 22;

/// Set in the [`key`] of a slot whose block ends in a call or return: such a slot holds its
/// falls and cached call, not flow successors, so the hot path's key compare alone tells
/// the two apart (a flow hit needs neither the edge's kind nor a test of it). No hoisted
/// key has it (function indices stay far below 2^43).
pub(crate) const NOT_FLOW: u64 = 1 << 63;

/// Bits of a [`key`] that hold the node (a function with more CFG nodes is not
/// instrumented): the keys of the first 2^11 functions then fit a sign-extended 32-bit
/// immediate, which compiled code compares and stores in one instruction, where a 64-bit
/// key takes two.
pub(crate) const NODE_BITS: u32 = 20;

/// The key of function `f` standing at CFG node `node` (below 2^[`NODE_BITS`]).
#[inline]
pub(crate) fn key(f: usize, node: usize) -> u64 {
    debug_assert!(node < 1 << NODE_BITS);
    ((f as u64) << NODE_BITS) | node as u64
}

/// The function of key `k` (past every function's index if `k` has [`NOT_FLOW`]).
#[inline]
pub(crate) fn key_func(k: u64) -> usize {
    (k >> NODE_BITS) as usize
}

/// The CFG node of key `k`.
#[inline]
pub(crate) fn key_node(k: u64) -> usize {
    (k & ((1 << NODE_BITS) - 1)) as usize
}

/// Composed operations in the arena (and the CFG edges they came from, for edge recording),
/// and the transfer out of the function that follows them, if any.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Action {
    ops_start: u32,
    ops_len: u32,
    edges_start: u32,
    edges_len: u32,
    out: Option<Out>,
}

/// A transfer that follows no flow edge of the function it leaves. A tail call is cached
/// (after the falls to the block's last node), so that it skips the lookups that recognise
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Out {
    /// A tail call of function `g`: the activation ends its paths and the callee's starts.
    Tail(u32),
    /// An indirect jump that resynchronises: the activation ends its paths and restarts
    /// through [`EdgeKind::Resync`](crate::cfg::EdgeKind::Resync) edge `edge` to `node`.
    Resync {
        /// The resync edge.
        edge: u32,
        /// The node it reaches.
        node: u32,
    },
}

/// How a cached successor changes the sum: `sum += add` inline, a path end, or an arena
/// action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// `sum += add` (sign-extended to 128 bits).
    Add(i64),
    /// The [`PathEnd`] with this index.
    End(u32),
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
    /// [`key`] of the function and CFG node reached ([`NO_KEY`]: the entry is empty), so
    /// that a hit's new hoisted key is a load; the node in the low half (a call's entry
    /// node for the callee in a call block's second entry).
    pub(crate) next: [u64; 2],
    /// Additions of inline steps.
    pub(crate) add: [i64; 2],
    /// [`NONE`] for an inline addition, else the arena action or ([`END_BIT`] set) path end.
    pub(crate) action: [u32; 2],
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            key: NO_KEY,
            to: [0; 2],
            next: [NO_KEY; 2],
            add: [0; 2],
            action: [NONE; 2],
        }
    }
}

impl Slot {
    /// The cached successor of a flow transfer to `to`: the node reached
    /// and the step. The entry is chosen by address, with no branch on the edge's kind: the
    /// two entries of a block never hold the same address (a fixed exit's are its end and
    /// its target, which the emulator tells apart by address too; an indirect jump's are
    /// cached only on a miss of both).
    #[inline(always)]
    pub(crate) fn find(&self, to: u64) -> Option<(u32, Step)> {
        self.hit(to)
            .map(|(next, step)| (key_node(next) as u32, step))
    }

    /// [`find`](Self::find) with the [`key`] of the node reached, for the hot path.
    #[inline(always)]
    pub(crate) fn hit(&self, to: u64) -> Option<(u64, Step)> {
        let i = usize::from(self.to[0] != to);
        if self.to[i] != to || self.next[i] == NO_KEY {
            return None;
        }
        Some((self.next[i], self.step(i)))
    }

    /// The cached falls of a call or return block (its entries hold no flow successors):
    /// the node of its last instruction and their step.
    #[inline(always)]
    pub(crate) fn falls(&self) -> Option<(u32, Step)> {
        (self.next[0] != NO_KEY).then(|| (key_node(self.next[0]) as u32, self.step(0)))
    }

    /// The step of entry `i`.
    #[inline(always)]
    fn step(&self, i: usize) -> Step {
        match self.action[i] {
            NONE => Step::Add(self.add[i]),
            a if a & END_BIT != 0 => Step::End(a & !END_BIT),
            a => Step::Action(a),
        }
    }

    /// The cached call of a call block to `to`: the falls, then [`CachedCall`].
    #[inline(always)]
    pub(crate) fn call(&self, to: u64) -> Option<((u32, Step), CachedCall)> {
        let falls = self.falls()?;
        (self.to[0] == to && self.next[1] != NO_KEY).then_some((
            falls,
            CachedCall {
                callee: self.action[1],
                entry: key_node(self.next[1]) as u32,
                sum: self.add[1],
                ret: self.to[1],
            },
        ))
    }

    /// Caches the falls of a call or return block (in entry 0).
    pub(crate) fn set_falls(&mut self, last: u32, falls: Step) {
        self.set(0, 0, last, falls);
    }

    /// Caches the call of a call block to `to` (after [`set_falls`](Self::set_falls)).
    pub(crate) fn set_call(&mut self, to: u64, call: CachedCall) {
        self.to[0] = to;
        self.to[1] = call.ret;
        self.next[1] = u64::from(call.entry);
        self.add[1] = call.sum;
        self.action[1] = call.callee;
    }

    /// Stores a successor in entry `i`.
    pub(crate) fn set(&mut self, i: usize, to: u64, next: u32, step: Step) {
        self.to[i] = to;
        // Flow successors stay in the slot's function.
        self.next[i] = key(key_func(self.key & !NOT_FLOW), next as usize);
        (self.add[i], self.action[i]) = match step {
            Step::Add(v) => (v, NONE),
            Step::End(a) => (0, a | END_BIT),
            Step::Action(a) => (0, a),
        };
    }
}

/// A call whose callee starts with an assignment of its sum: pushes an activation of
/// function `callee` at node `entry` with sum `sum` that returns to `ret` (and whose stack
/// holds the sum the callee's start pushes, if any).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CachedCall {
    pub(crate) callee: u32,
    pub(crate) entry: u32,
    pub(crate) sum: i64,
    pub(crate) ret: u64,
}

/// The successor entry of a slot where a miss of a flow transfer of `kind` is cached:
/// `Some(Some(i))` for a fixed-target exit (0: the block's end, 1: the branch or jump
/// target), `Some(None)` for an indirect jump (either entry), `None` for calls and returns
/// (never cached as flow).
pub(crate) fn entry_of(kind: EmuEdge) -> Option<Option<usize>> {
    match kind {
        EmuEdge::NotTaken | EmuEdge::FallThrough => Some(Some(0)),
        EmuEdge::Taken | EmuEdge::Jump => Some(Some(1)),
        EmuEdge::IndirectJump => Some(None),
        EmuEdge::Call | EmuEdge::IndirectCall | EmuEdge::Return => None,
    }
}

/// Whether a block that ends as `end` leaves by flow transfers (not calls or returns): the
/// kinds of its edges are fixed by how it ends.
pub(crate) fn ends_in_flow(end: BlockEnd) -> bool {
    !matches!(
        end,
        BlockEnd::Call | BlockEnd::IndirectCall | BlockEnd::Return
    )
}

/// A restart at an indirect jump's target given as a probe ([`Cold::restarts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Restart {
    /// The target.
    pub(crate) to: u64,
    /// The path end that ends the activation's path and sets the sum it restarts with.
    pub(crate) end: u32,
    /// The node it restarts at.
    pub(crate) node: u32,
    /// The sum it saves first, if it restarts in a region.
    pub(crate) push: Option<i64>,
}

/// Restarts a block's entry remembers (see [`Cold::restarts`]).
pub(crate) const RESTARTS: usize = 4;

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
    /// The block ends in a flow transfer (not a call or return: see [`NOT_FLOW`]).
    pub(crate) flow: bool,
    /// Last call target and its function ([`NONE`]: not a function entry).
    pub(crate) callee: Option<(u64, u32)>,
    /// The path end of the keyed return's or tail call's probe ([`NONE`]: none given),
    /// through which the sink counts the returns and tail calls the probe left to it, so
    /// that a sparse table's window moves to their sums as an edge's path end's does.
    pub(crate) ret_end: u32,
    /// The last restarts whose probes the keyed indirect jump was given (as many as a site
    /// holds; the latest first), through which the sink counts the restarts there that
    /// the probes left to it (for the same reason as `ret_end`).
    pub(crate) restarts: [Option<Restart>; RESTARTS],
}

impl Cold {
    pub(crate) fn new(start: u64, end: u64, flow: bool) -> Cold {
        Cold {
            start,
            end,
            last: NONE,
            falls: Step::Add(0),
            victim: 0,
            flow,
            callee: None,
            ret_end: NONE,
            restarts: [None; RESTARTS],
        }
    }

    /// The slot key of this block for function `f` at `node`.
    pub(crate) fn key(&self, f: usize, node: usize) -> u64 {
        key(f, node) | if self.flow { 0 } else { NOT_FLOW }
    }
}

/// Composed operation lists and edge lists of the steps that are not an inline addition,
/// and the path ends.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    actions: Vec<Action>,
    ops: Vec<Op>,
    /// `ops` with their tables resolved (same indices).
    placed: Vec<PlacedOp>,
    edges: Vec<u32>,
    /// Per action: the probe that does its operations, if there is one (see
    /// [`region_probe`](Self::region_probe)).
    probes: Vec<Option<ProbeOp>>,
    /// Path ends, each in its ways: one for a dense table, [`WINDOWS`] for a sparse one
    /// (each way a window on one sum once it has a [`Memo`]).
    ends: Vec<PathEnd>,
    /// Per entry of `ends`: the path end's ways at its first way, 0 at the others.
    ways: Vec<u8>,
    /// Per entry of `ends`: a sparse path end's window's count when the path end last
    /// missed (see [`victim`](Self::victim)).
    seen: Vec<u64>,
    /// Per entry of `ends`: its index in `memos` ([`NONE`]: it has no [`Memo`]).
    end_memo: Vec<u32>,
    memos: Vec<Memo>,
    /// Per entry of `ends`: at a sparse path end's first way, its pinned way ([`NONE`]:
    /// none; see [`pinned`](Self::pinned)).
    pins: Vec<u32>,
    /// Every step goes to the arena (so that edges are recorded).
    pub(crate) record: bool,
}

impl Arena {
    /// Whether the arena outgrew its bound (the caller then clears every slot and the arena).
    pub(crate) fn full(&self) -> bool {
        self.ops.len() + self.edges.len() + self.actions.len() + self.ends.len() > ARENA_LIMIT
    }

    /// Empties the arena (the caller first moves the memos' counts out and frees their
    /// counters).
    pub(crate) fn clear(&mut self) {
        self.actions.clear();
        self.ops.clear();
        self.placed.clear();
        self.edges.clear();
        self.probes.clear();
        self.ends.clear();
        self.ways.clear();
        self.seen.clear();
        self.end_memo.clear();
        self.memos.clear();
        self.pins.clear();
    }

    /// The step for the composed `ops` (see [`compose`]) of CFG `edges`, in a function
    /// whose tables are placed at `places`.
    pub(crate) fn store(&mut self, ops: &[Op], edges: &[u32], places: &[Place]) -> Step {
        self.store_out(ops, edges, places, None)
    }

    /// [`store`](Self::store), followed by the transfer `out` if any (always an arena
    /// action then).
    pub(crate) fn store_out(
        &mut self,
        ops: &[Op],
        edges: &[u32],
        places: &[Place],
        out: Option<Out>,
    ) -> Step {
        if !self.record && out.is_none() {
            match ops {
                [] => return Step::Add(0),
                [Op::Add(v)] => {
                    if let Some(v) = signed_64(*v) {
                        return Step::Add(v);
                    }
                }
                _ => {}
            }
            if let Some(end) = PathEnd::of(ops, places) {
                return Step::End(self.add_end(end));
            }
        }
        let probe = if self.record || out.is_some() {
            None
        } else {
            self.region_probe(ops, places)
        };
        let a = Action {
            ops_start: self.ops.len() as u32,
            ops_len: ops.len() as u32,
            edges_start: self.edges.len() as u32,
            edges_len: edges.len() as u32,
            out,
        };
        self.ops.extend_from_slice(ops);
        self.placed
            .extend(ops.iter().map(|&op| PlacedOp::of(op, places)));
        self.edges.extend_from_slice(edges);
        self.probes.push(probe);
        self.actions.push(a);
        Step::Action(self.actions.len() as u32 - 1)
    }

    /// Adds path end `end` in its ways; returns its index.
    fn add_end(&mut self, end: PathEnd) -> u32 {
        let e = self.ends.len() as u32;
        let ways = match end.place() {
            Place::Sparse(_) => WINDOWS,
            Place::Pool(_) => 1,
        };
        for w in 0..ways {
            self.ends.push(end);
            self.ways.push(if w == 0 { ways } else { 0 });
            self.seen.push(0);
            self.end_memo.push(NONE);
            self.pins.push(NONE);
        }
        e
    }

    /// The probe of composed `ops` that enter or leave a region, if one does them (with
    /// 64-bit values): `push; set` and `push; set; push; set` ([`ProbeOp::Push`]),
    /// `push; set; count; set` and `push; set; push; set; count; set`
    /// ([`ProbeOp::PushEnd`]), `count; pop` and `count; pop; add` ([`ProbeOp::Pop`], an
    /// addition before the pop lost), `push; set; count; pop` ([`ProbeOp::Through`]) or
    /// `count; pop; push; set` ([`ProbeOp::PopPush`]), `count; pop; count; set` or
    /// `count; pop; count; pop` ([`ProbeOp::PopEnd`]); the path ends it counts with are
    /// added.
    fn region_probe(&mut self, ops: &[Op], places: &[Place]) -> Option<ProbeOp> {
        let mut counts = |count: Op, set: u128| {
            let end = PathEnd::of(&[count, Op::Set(set)], places)?;
            let e = self.add_end(end);
            Some((e, self.ways(e) as u8))
        };
        // The regions the step enters first, if any: `push; set`, and a second one nested
        // in the first, whose saved sum is the first one's start plus its own addition.
        let (entry, rest) = match *ops {
            [Op::Push(v), Op::Set(w), Op::Push(v2), Op::Set(w2), ref rest @ ..] => {
                (Some((v, Some(w.wrapping_add(v2)), w2)), rest)
            }
            [Op::Push(v), Op::Set(w), ref rest @ ..] => (Some((v, None, w)), rest),
            _ => (None, ops),
        };
        // `(add, inner, set)` in 64 bits.
        let signed = |(v, inner, w): (u128, Option<u128>, u128)| {
            let inner = match inner {
                Some(i) => Some(signed_64(i)?),
                None => None,
            };
            Some((signed_64(v)?, inner, signed_64(w)?))
        };
        Some(match (entry, rest) {
            (Some(entry), []) => {
                let (add, inner, set) = signed(entry)?;
                ProbeOp::Push { add, inner, set }
            }
            (Some(entry), [count @ Op::Count { .. }, Op::Set(x)]) => {
                let (add, inner, set) = signed(entry)?;
                let (end, ways) = counts(*count, *x)?;
                ProbeOp::PushEnd {
                    add,
                    inner,
                    set,
                    end,
                    ways,
                    // (A dense table's path end, given in the probe as a pop's is.)
                    first: self.fixed_end(end),
                }
            }
            (Some(entry @ (_, None, _)), [count @ Op::Count { .. }, Op::Pop]) => {
                let (add, _, set) = signed(entry)?;
                let (end, ways) = counts(*count, 0)?;
                ProbeOp::Through {
                    add,
                    set,
                    end,
                    ways,
                }
            }
            (
                None,
                [count @ Op::Count { .. }, Op::Pop]
                | [count @ Op::Count { .. }, Op::Add(_), Op::Pop]
                | [count @ Op::Count { .. }, Op::Pop, Op::Add(_)],
            ) => {
                let add = match rest {
                    [.., Op::Pop, Op::Add(v)] => signed_64(*v)?,
                    _ => 0,
                };
                let (end, ways) = counts(*count, 0)?;
                // (A dense table's path end, given in the probe as a return's is.)
                let first = self.fixed_end(end);
                ProbeOp::Pop {
                    end,
                    ways,
                    add,
                    first,
                }
            }
            (
                None,
                [inner @ Op::Count { .. }, Op::Pop, outer @ Op::Count { .. }, then @ (Op::Pop | Op::Set(_))],
            ) => {
                // After the outer count: the sum it sets, or the next saved sum.
                let (pop, set) = match *then {
                    Op::Set(x) => (false, x),
                    _ => (true, 0),
                };
                let (end, ways) = counts(*inner, 0)?;
                let (outer, outer_ways) = counts(*outer, set)?;
                ProbeOp::PopEnd {
                    end,
                    ways,
                    outer,
                    outer_ways,
                    pop,
                }
            }
            (None, [count @ Op::Count { .. }, Op::Pop, Op::Push(v), Op::Set(w)]) => {
                let (add, set) = (signed_64(*v)?, signed_64(*w)?);
                let (end, ways) = counts(*count, 0)?;
                ProbeOp::PopPush {
                    end,
                    ways,
                    add,
                    set,
                }
            }
            _ => return None,
        })
    }

    /// The probe of arena action `a`, if one does its operations (see
    /// [`region_probe`](Self::region_probe)).
    pub(crate) fn probe(&self, a: u32) -> Option<ProbeOp> {
        *self.probes.get(a as usize)?
    }

    /// The path ends, every way (for probes).
    pub(crate) fn ends(&self) -> &[PathEnd] {
        &self.ends
    }

    /// The ways of the path end at `e` (its first way).
    #[inline]
    pub(crate) fn ways(&self, e: u32) -> u32 {
        self.ways.get(e as usize).map_or(0, |&w| u32::from(w))
    }

    /// Path end `e` if it never changes while the arena lasts (a pooled table's, in one
    /// way; a sparse table's ways are windows that move): a probe may carry it.
    pub(crate) fn fixed_end(&self, e: u32) -> Option<PathEnd> {
        (self.ways(e) == 1).then(|| self.end(e).copied()).flatten()
    }

    /// The way of the sparse path end at `e` whose window moves to a sum it missed: an
    /// empty one, else the one that counted least since the path end last missed (its
    /// windows' counts, `count(counter)`, are noted for the next miss). The hot sums'
    /// windows stay while the others take turns: taking the ways in turn, primes 400000
    /// (flat) moved windows 164 000 times at one path end of main whose paths have six hot
    /// sums.
    pub(crate) fn victim(&mut self, e: u32, count: impl Fn(usize) -> u64) -> Option<u32> {
        let (mut best, pinned) = (None, self.pin(e));
        for w in e..e + self.ways(e).max(1) {
            if pinned == Some(w) {
                continue;
            }
            let now = self.memo(w).map(|m| count(m.counter));
            let Some(seen) = self.seen.get_mut(w as usize) else {
                break;
            };
            // (An empty way before any window.)
            let since = now.map_or((false, 0), |n| (true, n.saturating_sub(*seen)));
            *seen = now.unwrap_or(0);
            if best.is_none_or(|(_, least)| since < least) {
                best = Some((w, since));
            }
        }
        best.map(|(w, _)| w)
    }

    /// The way of the sparse path end at `e` that is pinned: its window never moves again
    /// while the arena lasts, so a probe may carry it ([`ProbeOp::End`]'s `first`).
    fn pin(&self, e: u32) -> Option<u32> {
        self.pins.get(e as usize).copied().filter(|&w| w != NONE)
    }

    /// The pinned window of the sparse path end at `e`, pinning the one that counted most
    /// (`count(counter)`) if none is yet; none before any window counted.
    pub(crate) fn pinned(&mut self, e: u32, count: impl Fn(usize) -> u64) -> Option<PathEnd> {
        if self.pin(e).is_none() {
            let hot = (e..e + self.ways(e))
                .filter_map(|w| Some((w, count(self.memo(w)?.counter))))
                .filter(|&(_, n)| n > 0)
                .max_by_key(|&(w, n)| (n, std::cmp::Reverse(w)))?;
            *self.pins.get_mut(e as usize)? = hot.0;
        }
        self.end(self.pin(e)?).copied()
    }

    /// Path end entry `i` (a way).
    #[inline]
    pub(crate) fn end(&self, i: u32) -> Option<&PathEnd> {
        self.ends.get(i as usize)
    }

    /// The [`Memo`] of path end `i`, if it has one.
    pub(crate) fn memo(&self, i: u32) -> Option<Memo> {
        let m = *self.end_memo.get(i as usize)?;
        self.memos.get(m as usize).copied()
    }

    /// Makes path end `i` the window `end` of `memo`.
    pub(crate) fn set_memo(&mut self, i: u32, end: PathEnd, memo: Memo) {
        let (Some(e), Some(m)) = (
            self.ends.get_mut(i as usize),
            self.end_memo.get_mut(i as usize),
        ) else {
            return;
        };
        *e = end;
        if let Some(seen) = self.seen.get_mut(i as usize) {
            *seen = 0;
        }
        match self.memos.get_mut(*m as usize) {
            Some(old) => *old = memo,
            None => {
                *m = self.memos.len() as u32;
                self.memos.push(memo);
            }
        }
    }

    /// Every memo.
    pub(crate) fn memos(&self) -> &[Memo] {
        &self.memos
    }

    /// The transfer out that follows arena action `a`'s operations, if any.
    pub(crate) fn out(&self, a: u32) -> Option<Out> {
        self.actions.get(a as usize)?.out
    }

    /// Executes arena action `a`'s operations on `state` (not its transfer out), counting
    /// its edges into `edge_counts` when recording.
    pub(crate) fn apply(
        &self,
        a: u32,
        state: &mut Activation,
        tally: &mut Pooled<'_>,
        edge_counts: &mut [u64],
    ) {
        let Some(a) = self.actions.get(a as usize) else {
            return;
        };
        let (s, l) = (a.ops_start as usize, a.ops_len as usize);
        state.run(self.ops.get(s..s + l).unwrap_or(&[]), tally);
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

/// Appends `ops` to `out`, merging additions into a preceding addition or assignment,
/// folding an addition into a following count (`Add(a); Count(t, b)` is `Count(t, a + b);
/// Add(a)`), push (`Add(a); Push(b)` is `Push(a + b); Add(a)`) or assignment (`Add(a);
/// Set(v)` and `Set(a); Set(v)` are `Set(v)`), and dropping additions of zero or that
/// cancel the one before; the result has the same effect on sum, stack and counters.
pub(crate) fn compose(out: &mut Vec<Op>, ops: &[Op]) {
    for &op in ops {
        match (out.last_mut(), op) {
            (_, Op::Add(0)) => {}
            (Some(Op::Add(a)), Op::Add(b)) => {
                *a = a.wrapping_add(b);
                if *a == 0 {
                    out.pop();
                }
            }
            (Some(Op::Set(a)), Op::Add(b)) => *a = a.wrapping_add(b),
            (Some(last @ (Op::Add(_) | Op::Set(_))), Op::Set(v)) => *last = Op::Set(v),
            (Some(&mut Op::Add(a)), Op::Count { table, add }) => {
                out.pop();
                out.push(Op::Count {
                    table,
                    add: add.wrapping_add(a),
                });
                out.push(Op::Add(a));
            }
            (Some(&mut Op::Add(a)), Op::Push(v)) => {
                out.pop();
                out.push(Op::Push(v.wrapping_add(a)));
                out.push(Op::Add(a));
            }
            _ => out.push(op),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::{Place, Pool};
    use crate::runtime::Counters;
    use proptest::prelude::*;

    proptest! {
        /// A key names its function and node again; the first 2^11 functions' keys fit a
        /// sign-extended 32-bit immediate; a key with [`NOT_FLOW`] names no function.
        #[test]
        fn a_key_names_its_function_and_node(f in 0usize..1 << 43, node in 0usize..1 << NODE_BITS) {
            let k = key(f, node);
            prop_assert_eq!((key_func(k), key_node(k)), (f, node));
            prop_assert_eq!(i32::try_from(k).is_ok(), f < 1 << 11);
            prop_assert!(key_func(k | NOT_FLOW) >= 1 << 43);
            prop_assert_eq!(key_node(k | NOT_FLOW), node);
        }
    }

    /// A sparse path end's window that moves is an empty way's, else the one that counted
    /// least since the path end last missed.
    #[test]
    fn the_window_counted_least_since_the_last_miss_moves() {
        let mut arena = Arena::default();
        let end = [Op::Count { table: 0, add: 0 }, Op::Set(0)];
        assert_eq!(arena.store(&end, &[1], &[Place::Sparse(0)]), Step::End(0));
        let ways = u32::from(WINDOWS);
        assert_eq!(arena.ways(0), ways);
        // Way w's window counts at pool counter w.
        let mut counts = vec![0u64; WINDOWS as usize];
        for w in 0..ways {
            assert_eq!(
                arena.victim(0, |c| counts[c]),
                Some(w),
                "the empty ways first"
            );
            let memo = Memo {
                func: 0,
                table: 0,
                counter: w as usize,
                sum: u128::from(w),
                add: 0,
            };
            let path_end = PathEnd::of(&end, &[Place::Sparse(0)]).unwrap();
            let window = path_end.window(w as usize, 0, u128::from(w)).unwrap();
            arena.set_memo(w, window, memo);
            counts[w as usize] = 1;
        }
        // Way 2 counted least since it moved; then, of the counts since this miss, way 1.
        for (w, c) in counts.iter_mut().enumerate() {
            *c += [50, 40, 3, 60, 9, 70, 80, 90][w];
        }
        assert_eq!(arena.victim(0, |c| counts[c]), Some(2));
        for (w, c) in counts.iter_mut().enumerate() {
            *c += [5, 1, 7, 8, 2, 9, 10, 11][w];
        }
        assert_eq!(arena.victim(0, |c| counts[c]), Some(1));
        // Pinning takes the window that counted most (way 5: 80), which then stays
        // pinned and never moves, though it counted least since the last miss.
        let hot = arena.end(5).copied();
        assert_eq!(hot.map(|h| h.base), Some(5));
        assert_eq!(arena.pinned(0, |c| counts[c]), hot);
        counts[3] += 1000;
        assert_eq!(arena.pinned(0, |c| counts[c]), hot);
        for (w, c) in counts.iter_mut().enumerate() {
            *c += [5, 6, 7, 8, 9, 0, 0, 0][w];
        }
        assert_eq!(arena.victim(0, |c| counts[c]), Some(0));
    }

    /// No window is pinned before one counted.
    #[test]
    fn a_path_end_pins_no_window_before_one_counted() {
        let mut arena = Arena::default();
        let end = [Op::Count { table: 0, add: 0 }, Op::Set(0)];
        assert_eq!(arena.store(&end, &[1], &[Place::Sparse(0)]), Step::End(0));
        assert_eq!(arena.pinned(0, |_| 0), None);
        assert_eq!(arena.victim(0, |_| 0), Some(0));
    }

    #[test]
    fn composition_merges_and_folds_additions() {
        let mut v = Vec::new();
        compose(&mut v, &[Op::Add(2), Op::Add(0), Op::Add(u128::MAX)]);
        assert_eq!(v, [Op::Add(1)]);
        let mut cancelled = Vec::new();
        compose(&mut cancelled, &[Op::Add(2), Op::Add(u128::MAX - 1)]);
        assert_eq!(cancelled, []);
        compose(
            &mut v,
            &[Op::Count { table: 0, add: 3 }, Op::Set(5), Op::Add(2)],
        );
        assert_eq!(v, [Op::Count { table: 0, add: 4 }, Op::Set(7)]);
        compose(&mut v, &[Op::Push(1), Op::Add(4), Op::Pop]);
        assert_eq!(
            v,
            [
                Op::Count { table: 0, add: 4 },
                Op::Set(7),
                Op::Push(1),
                Op::Add(4),
                Op::Pop
            ]
        );
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u128..4).prop_map(Op::Add),
            Just(Op::Add(u128::MAX)),
            (0u128..4).prop_map(Op::Set),
            (0u128..4).prop_map(Op::Push),
            Just(Op::Pop),
            (0u32..2, 0u128..4).prop_map(|(table, add)| Op::Count { table, add }),
        ]
    }

    /// What running ops did: non-zero counters, anomalies, final sum and stack.
    type Effect = (Vec<(usize, u128, u64)>, u64, u128, Vec<u128>);

    /// Runs `ops` from sum `sum` with one saved sum.
    fn effect(ops: &[Op], sum: u128) -> Effect {
        let mut c = Counters {
            tables: vec![
                crate::runtime::Table::Dense(vec![0; 64]),
                crate::runtime::Table::Dense(vec![0; 64]),
            ],
            first_sums: Vec::new(),
            out_of_range: 0,
            underflow: 0,
        };
        let mut a = Activation {
            sum,
            stack: vec![9],
        };
        a.run(ops, &mut c);
        (c.nonzero(), c.out_of_range + c.underflow, a.sum, a.stack)
    }

    proptest! {
        #[test]
        fn composition_keeps_the_effect(ops in prop::collection::vec(op(), 0..12), sum in 0u128..8) {
            let mut composed = Vec::new();
            compose(&mut composed, &ops);
            prop_assert!(composed.len() <= ops.len());
            prop_assert_eq!(effect(&composed, sum), effect(&ops, sum));
        }
    }

    #[test]
    fn a_slot_finds_its_successors_and_the_arena_keeps_long_steps() {
        let mut s = Slot::default();
        assert_eq!(s.find(0), None);
        s.set(0, 16, 3, Step::Add(-2));
        assert_eq!(s.find(32), None);
        s.set(1, 32, 4, Step::Action(7));
        assert_eq!(s.find(16), Some((3, Step::Add(-2))));
        assert_eq!(s.find(32), Some((4, Step::Action(7))));
        assert_eq!(s.find(48), None);
        s.set(1, 32, 5, Step::End(7));
        assert_eq!(s.find(32), Some((5, Step::End(7))));
        for kind in [
            EmuEdge::Taken,
            EmuEdge::NotTaken,
            EmuEdge::Jump,
            EmuEdge::FallThrough,
        ] {
            assert!(entry_of(kind).is_some_and(|e| e.is_some()));
        }
        assert!(entry_of(EmuEdge::IndirectJump) == Some(None));
        for kind in [EmuEdge::Call, EmuEdge::IndirectCall, EmuEdge::Return] {
            assert!(entry_of(kind).is_none());
        }
        // A block's slot is keyed as flow exactly when its edges' kinds are flow.
        for (end, kinds) in [
            (
                BlockEnd::Branch { target: 8 },
                [EmuEdge::Taken, EmuEdge::NotTaken],
            ),
            (BlockEnd::Jump, [EmuEdge::Jump; 2]),
            (BlockEnd::IndirectJump, [EmuEdge::IndirectJump; 2]),
            (BlockEnd::Syscall, [EmuEdge::FallThrough; 2]),
            (BlockEnd::FallThrough, [EmuEdge::FallThrough; 2]),
            (BlockEnd::Call, [EmuEdge::Call; 2]),
            (BlockEnd::IndirectCall, [EmuEdge::IndirectCall; 2]),
            (BlockEnd::Return, [EmuEdge::Return; 2]),
        ] {
            for kind in kinds {
                assert_eq!(ends_in_flow(end), entry_of(kind).is_some(), "{end:?}");
            }
        }
        // A hit gives the key of the node reached, in the slot's function; a call or return
        // block's key is marked, so that it never equals a hoisted key.
        let (flow, call) = (Cold::new(0, 8, true), Cold::new(0, 8, false));
        assert_eq!(flow.key(5, 1), key(5, 1));
        assert_eq!(call.key(5, 1), key(5, 1) | NOT_FLOW);
        for k in [flow.key(5, 1), call.key(5, 1)] {
            let mut s = Slot {
                key: k,
                ..Slot::default()
            };
            s.set(1, 32, 4, Step::Add(3));
            assert_eq!(s.hit(32), Some((key(5, 4), Step::Add(3))));
            assert_eq!(s.find(32), Some((4, Step::Add(3))));
        }
        let mut arena = Arena::default();
        assert_eq!(arena.store(&[Op::Add(u128::MAX)], &[1], &[]), Step::Add(-1));
        assert_eq!(arena.store(&[Op::Add(1 << 70)], &[1], &[]), Step::Action(0));
        let end = [Op::Count { table: 0, add: 1 }, Op::Set(2)];
        // A sparse table's path end keeps its table.
        let sparse = Place::Sparse(3);
        assert_eq!(arena.store(&end, &[1], &[sparse]), Step::End(0));
        assert_eq!(arena.end(0).map(PathEnd::place), Some(sparse));
        let mut pool = Pool::default();
        let dense = pool.place(&Counters {
            tables: vec![crate::runtime::Table::Dense(vec![0; 4])],
            first_sums: Vec::new(),
            out_of_range: 0,
            underflow: 0,
        });
        // The sparse one takes its windows' ways, the dense one a single way.
        let next = u32::from(WINDOWS);
        assert_eq!(arena.store(&end, &[1], &dense), Step::End(next));
        assert_eq!((arena.ways(0), arena.ways(next)), (next, 1));
        assert!(matches!(
            arena.end(next).map(PathEnd::place),
            Some(Place::Pool(_))
        ));
        let out = Some(Out::Tail(3));
        assert_eq!(arena.store_out(&[], &[1], &[], out), Step::Action(1));
        assert_eq!((arena.out(1), arena.probe(1)), (out, None));
        assert_eq!((arena.out(0), arena.probe(0)), (None, None));
        // Region entries and exits get probes; an exit's count, a path end.
        let push = [Op::Push(u128::MAX), Op::Set(5)];
        assert_eq!(arena.store(&push, &[1], &[]), Step::Action(2));
        let push = ProbeOp::Push {
            add: -1,
            inner: None,
            set: 5,
        };
        assert_eq!(arena.probe(2), Some(push));
        let pop = [Op::Count { table: 0, add: 1 }, Op::Pop];
        let e = arena.ends().len() as u32;
        assert_eq!(arena.store(&pop, &[1], &dense), Step::Action(3));
        assert_eq!(
            arena.probe(3),
            Some(ProbeOp::Pop {
                end: e,
                ways: 1,
                add: 0,
                // A dense table's, given in the probe.
                first: arena.end(e).copied(),
            })
        );
        assert!(arena.fixed_end(e).is_some());
        assert_eq!(arena.end(e).map(|end| end.add), Some(1));
        let far = [Op::Push(1 << 70), Op::Set(0)];
        assert_eq!(arena.store(&far, &[1], &[]), Step::Action(4));
        assert_eq!(arena.probe(4), None);
        {
            // Two regions entered at once (the inner saves the outer's start 7 plus -3),
            // and an exit that adds to the saved sum (-2) after its pop.
            let mut arena = Arena::default();
            let ops = [Op::Push(1), Op::Set(7), Op::Push(u128::MAX - 2), Op::Set(0)];
            assert_eq!(arena.store(&ops, &[1], &[]), Step::Action(0));
            let push = ProbeOp::Push {
                add: 1,
                inner: Some(4),
                set: 0,
            };
            assert_eq!(arena.probe(0), Some(push));
            let count = Op::Count { table: 0, add: 1 };
            let ops = [ops.as_slice(), &[count, Op::Set(2)]].concat();
            assert_eq!(arena.store(&ops, &[1], &dense), Step::Action(1));
            let Some(ProbeOp::PushEnd { inner, set, .. }) = arena.probe(1) else {
                panic!("{:?}", arena.probe(1));
            };
            assert_eq!((inner, set), (Some(4), 0));
            let pop_add = [count, Op::Pop, Op::Add(u128::MAX - 1)];
            assert_eq!(arena.store(&pop_add, &[1], &dense), Step::Action(2));
            let Some(ProbeOp::Pop { add, .. }) = arena.probe(2) else {
                panic!("{:?}", arena.probe(2));
            };
            assert_eq!(add, -2);
        }
        arena.record = true;
        assert_eq!(arena.store(&[], &[1], &[]), Step::Action(5));
        assert_eq!(arena.store(&end, &[1], &dense), Step::Action(6));
        assert_eq!(arena.store(&pop, &[1], &dense), Step::Action(7));
        assert_eq!(arena.probe(7), None);
    }
}

//! The path sink's traces: a run through the first `n` parts of an emulator trace
//! ([`prof_events::Sink::trace`]) stands for the edge events between them, and the sink
//! executes it as one composed step instead of one cached step per edge.
//!
//! Composition follows the per-block cache ([`Slot`]) exactly as the hot path would, edge by
//! edge from the key the run starts at, through flow steps and cached calls, and stops where
//! the hot path would leave the cache (a miss, an arena action, a call it does not cache)
//! or where the result would depend on state it cannot see (see below). A trace holds no
//! return (a return ends an event superblock). What it composes is a prefix of the trace's
//! edges, kept for every length: a run through more parts than that executes the rest edge
//! by edge.
//!
//! Along cached flow steps the running sum only gains additions until a path ends or a call
//! saves it in the caller's activation; the first path end counts the entry sum plus those
//! additions, and sets the sum to a constant; a callee starts from a constant. From then on
//! every sum is known: calls save known sums, later path ends of dense tables count fixed
//! pool counters (merged, so an unrolled loop's `k` iterations are one add of `k - 1` after
//! the first), and the sum leaves as a constant. A later path end of a sparse table (its
//! counter is a [`Memo`](crate::pool::Memo)'s window, which moves with the sums it sees) or
//! one whose fixed sum lies outside its table runs as the hot path runs it, on its known
//! sum, in order.
//!
//! Compositions name arena path ends and are made for one entry key; both are checked on
//! every run (the arena's generation, the key), and a trace whose key changes is composed
//! again, up to [`BUDGET`] times.

use prof_events::{Edge, Interest, TraceId, TracePart};

use crate::blockcache::{key_func, Arena, CachedCall, Slot, Step, NONE, NOT_FLOW, NO_KEY};
use crate::pool::PathEndOps;

/// Entries of [`Traces::counts`] and [`Traces::calls`] before they are emptied (every
/// composition then goes stale).
const LISTS_LIMIT: usize = 1 << 20;

/// Compositions of one trace, counting the first and those after a key change or a cache
/// clear; after that the trace runs edge by edge (a trace entered from changing keys gains
/// nothing from composing).
const BUDGET: u8 = 32;

/// What a run's first `m` edges do, from the key the trace was composed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Composed {
    /// Added to the entry sum: the whole change if no path ends (`first` is [`NONE`]),
    /// else the addition before the first path end.
    pub(crate) pre: u128,
    /// The sum afterwards if `known` (after a path end or a call); else it is the entry
    /// sum plus `pre`.
    pub(crate) post: u128,
    /// The key reached.
    pub(crate) next: u64,
    /// The range of [`Traces::counts`]: what the later path ends count.
    pub(crate) counts: (u32, u32),
    /// The range of [`Traces::calls`]: the calls made, in order.
    pub(crate) calls: (u32, u32),
    /// The first path end (an arena path end, run on the entry sum plus `pre`), or [`NONE`].
    pub(crate) first: u32,
    pub(crate) known: bool,
}

/// What a path end after the first counts, its sum known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// `n` counts in pool counter `counter` (of a dense table).
    Bump { counter: usize, n: u64 },
    /// Path end `end` of function `func` on `sum`, as the hot path runs it.
    End { func: u32, end: u32, sum: u128 },
}

/// A cached call inside a trace: what the hot path's call does to the activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Call {
    /// The caller's node (its call block's last) and sum when it calls (`None`: the
    /// entry sum plus the composition's `pre`).
    pub(crate) node: u32,
    pub(crate) sum: Option<u128>,
    /// The callee, its entry node, the sum it starts with and the sum it pushes first.
    pub(crate) callee: u32,
    pub(crate) entry: u32,
    pub(crate) start: u128,
    pub(crate) push: Option<u128>,
    /// Where the caller resumes.
    pub(crate) ret: u64,
}

impl Call {
    /// The cached call `call` from a block whose last node is `node`, the caller's sum
    /// `sum`, into a callee whose entry pushes `push` first.
    pub(crate) fn cached(
        node: u32,
        sum: Option<u128>,
        call: CachedCall,
        push: Option<u128>,
    ) -> Call {
        Call {
            node,
            sum,
            callee: call.callee,
            entry: call.entry,
            start: call.sum as i128 as u128,
            push,
            ret: call.ret,
        }
    }
}

/// One trace's edges and compositions.
#[derive(Debug, Default)]
struct Trace {
    /// The edges from each part to the next.
    edges: Box<[Edge]>,
    /// The key the compositions start from ([`NO_KEY`]: none).
    key: u64,
    /// The arena generation they name.
    generation: u64,
    /// Per prefix length `m` (from 0): its composition.
    prefixes: Vec<Composed>,
    /// The composition stopped at a cache miss, which the edge-by-edge rest fills: compose
    /// again on the next run.
    missed: bool,
    /// Compositions left.
    budget: u8,
}

/// The traces the sink took, by [`TraceId`].
#[derive(Debug, Default)]
pub(crate) struct Traces {
    traces: Vec<Trace>,
    /// Lists of the compositions' later path ends.
    counts: Vec<Count>,
    /// Lists of the compositions' calls.
    calls: Vec<Call>,
    /// Bumped whenever the arena is cleared ([`forget`](Self::forget)) or the lists are
    /// emptied: compositions naming an older one are stale.
    generation: u64,
}

/// How a run of a trace is executed: its first `done` edges composed into `step` (if
/// any), then edges `done..end` one by one ([`Traces::edge`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub(crate) step: Option<Composed>,
    pub(crate) done: usize,
    pub(crate) end: usize,
}

impl Traces {
    /// Makes every composition stale (the arena whose path ends they name is cleared).
    pub(crate) fn forget(&mut self) {
        self.generation += 1;
    }

    /// Takes trace `id` with `parts`, if every part but the last has its edge event (the
    /// path sink asks for every block's; a trace that skips one is declined).
    pub(crate) fn formed(&mut self, id: TraceId, parts: &[TracePart]) -> bool {
        let inner = &parts[..parts.len().saturating_sub(1)];
        if !inner.iter().all(|p| p.interest.contains(Interest::EDGE)) {
            return false;
        }
        let i = id.index();
        if self.traces.len() <= i {
            self.traces.resize_with(i + 1, Trace::default);
        }
        self.traces[i] = Trace {
            edges: inner.iter().map(|p| p.edge).collect(),
            key: NO_KEY,
            generation: 0,
            prefixes: Vec::new(),
            missed: false,
            budget: BUDGET,
        };
        true
    }

    /// The composition of a run through the first `n` parts of trace `id` from `key`, if
    /// it is made and covers the whole run: the common case, checked first.
    #[inline(always)]
    pub(crate) fn composed(&self, id: TraceId, n: u32, key: u64) -> Option<&Composed> {
        let t = self.traces.get(id.index())?;
        if t.key != key || t.generation != self.generation {
            return None;
        }
        t.prefixes.get((n as usize).checked_sub(1)?)
    }

    /// How to execute a run through the first `n` parts of trace `id` from `key`,
    /// composing it first if needed (with the cache's `slots` and `arena`; `push` gives a
    /// function's first push on entry, `None` for no function).
    pub(crate) fn plan(
        &mut self,
        id: TraceId,
        n: u32,
        key: u64,
        slots: &[Slot],
        arena: &Arena,
        push: impl Fn(u32) -> Option<Option<u128>>,
    ) -> Plan {
        let Some(t) = self.traces.get_mut(id.index()) else {
            return Plan {
                step: None,
                done: 0,
                end: 0,
            };
        };
        let end = (n as usize).saturating_sub(1).min(t.edges.len());
        let stale = t.key != key || t.generation != self.generation;
        if (stale || (t.missed && end >= t.prefixes.len())) && t.budget > 0 {
            t.budget -= 1;
            if self.counts.len() + self.calls.len() > LISTS_LIMIT {
                // Recomposed traces leave their old lists behind.
                self.counts.clear();
                self.calls.clear();
                self.generation += 1;
            }
            let lists = Lists {
                counts: &mut self.counts,
                calls: &mut self.calls,
            };
            compose(t, key, slots, arena, &push, self.generation, lists);
        } else if stale {
            return Plan {
                step: None,
                done: 0,
                end,
            };
        }
        let done = end.min(t.prefixes.len() - 1);
        Plan {
            step: t.prefixes.get(done).copied(),
            done,
            end,
        }
    }

    /// Entry `i` of the count lists.
    #[inline]
    pub(crate) fn count(&self, i: u32) -> Option<Count> {
        self.counts.get(i as usize).copied()
    }

    /// Entry `i` of the call lists.
    #[inline]
    pub(crate) fn call(&self, i: u32) -> Option<Call> {
        self.calls.get(i as usize).copied()
    }

    /// The edge from part `i` of trace `id` to the next.
    #[inline]
    pub(crate) fn edge(&self, id: TraceId, i: usize) -> Option<Edge> {
        self.traces.get(id.index())?.edges.get(i).copied()
    }
}

/// Where compositions keep their lists.
struct Lists<'a> {
    counts: &'a mut Vec<Count>,
    calls: &'a mut Vec<Call>,
}

/// A composition under way: the sum before the first path end or call is the entry sum
/// plus `pre`, then `known`.
struct State {
    at: u64,
    pre: u128,
    first: u32,
    known: Option<u128>,
    counts: Vec<Count>,
    calls: Vec<Call>,
}

impl State {
    /// Adds cached step `step` (of the hot path, or a call block's falls); `false` if it
    /// cannot be composed.
    fn step(&mut self, step: Step, arena: &Arena) -> bool {
        match (step, self.known) {
            (Step::Add(v), None) => self.pre = self.pre.wrapping_add(v as i128 as u128),
            (Step::Add(v), Some(k)) => self.known = Some(k.wrapping_add(v as i128 as u128)),
            (Step::End(e), None) => {
                let Some(end) = arena.end(e) else {
                    return false;
                };
                self.first = e;
                self.known = Some(end.set());
            }
            (Step::End(e), Some(k)) => {
                let Some(end) = arena.end(e) else {
                    return false;
                };
                // A dense table's counter is fixed; windows move, so a sparse end runs.
                let fixed = end.fixed_counter(k).filter(|_| arena.ways(e) == 1);
                let bumped = fixed.and_then(|c| {
                    self.counts.iter_mut().find_map(|n| match n {
                        Count::Bump { counter, n } if *counter == c => Some(n),
                        _ => None,
                    })
                });
                match (fixed, bumped) {
                    (_, Some(n)) => *n += 1,
                    (Some(counter), None) => self.counts.push(Count::Bump { counter, n: 1 }),
                    (None, _) => self.counts.push(Count::End {
                        func: key_func(self.at) as u32,
                        end: e,
                        sum: k,
                    }),
                }
                self.known = Some(end.set());
            }
            (Step::Action(_), _) => return false,
        }
        true
    }

    /// The composition so far, its lists stored in `lists`.
    fn snapshot(&self, lists: &mut Lists<'_>) -> Composed {
        let range = |start: usize, len: usize| (start as u32, len as u32);
        let counts = range(lists.counts.len(), self.counts.len());
        let calls = range(lists.calls.len(), self.calls.len());
        lists.counts.extend_from_slice(&self.counts);
        lists.calls.extend_from_slice(&self.calls);
        Composed {
            next: self.at,
            pre: self.pre,
            first: self.first,
            known: self.known.is_some(),
            post: self.known.unwrap_or(0),
            counts,
            calls,
        }
    }
}

/// Composes `t`'s prefixes from `key`, as the hot path would run its edges on the cache.
fn compose(
    t: &mut Trace,
    key: u64,
    slots: &[Slot],
    arena: &Arena,
    push: &impl Fn(u32) -> Option<Option<u128>>,
    generation: u64,
    mut lists: Lists<'_>,
) {
    t.key = key;
    t.generation = generation;
    t.prefixes.clear();
    t.missed = false;
    let mut s = State {
        at: key,
        pre: 0,
        first: NONE,
        known: None,
        counts: Vec::new(),
        calls: Vec::new(),
    };
    t.prefixes.push(s.snapshot(&mut lists));
    for edge in t.edges.iter() {
        let Some(slot) = slots.get(edge.from.index()) else {
            t.missed = true;
            break;
        };
        if slot.key == s.at {
            let Some((next, step)) = slot.hit(edge.to) else {
                t.missed = true;
                break;
            };
            if !s.step(step, arena) {
                break;
            }
            s.at = next;
        } else if slot.key == s.at | NOT_FLOW {
            // A call (as `fast_call` makes it).
            let Some(((last, falls), call)) = slot.call(edge.to) else {
                // Not cached yet: the hot path's miss caches it.
                t.missed = true;
                break;
            };
            let Some(first_push) = push(call.callee) else {
                break;
            };
            if !s.step(falls, arena) {
                break;
            }
            let call = Call::cached(last, s.known, call, first_push);
            s.calls.push(call);
            s.known = Some(call.start);
            s.at = crate::blockcache::key(call.callee as usize, call.entry as usize);
        } else {
            t.missed = true;
            break;
        }
        t.prefixes.push(s.snapshot(&mut lists));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_events::{BlockId, EdgeKind};

    fn part(i: u32, interest: Interest) -> TracePart {
        TracePart {
            block: BlockId(i),
            pc: u64::from(i) * 4,
            interest,
            edge: Edge {
                from: BlockId(i),
                pc: u64::from(i) * 4,
                to: u64::from(i + 1) * 4,
                kind: EdgeKind::FallThrough,
            },
        }
    }

    #[test]
    fn a_trace_is_taken_only_if_its_inner_parts_deliver_edges() {
        let mut t = Traces::default();
        let edge = Interest::EDGE;
        // The last part's edge is its exit, delivered as an event either way.
        let ok = [part(0, edge), part(1, edge), part(2, Interest::NONE)];
        assert!(t.formed(TraceId(0), &ok));
        let gap = [part(0, edge), part(1, Interest::BLOCK), part(2, edge)];
        assert!(!t.formed(TraceId(1), &gap));
        // Taken, but composed only at its first run, for the key it starts from.
        assert_eq!(t.edge(TraceId(0), 1), Some(ok[1].edge));
        assert!(t.composed(TraceId(0), 3, 0).is_none());
        let plan = t.plan(TraceId(0), 3, 0, &[], &Arena::default(), |_| None);
        // No slot is cached: nothing is composed, both edges go one by one, and the next
        // run composes again.
        assert_eq!((plan.done, plan.end), (0, 2));
        assert!(t.traces[0].missed);
    }
}

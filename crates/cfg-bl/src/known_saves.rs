//! Saved sums known when instrumenting: a region whose every entry saves one constant outer
//! sum needs neither the push nor the pops.
//!
//! RB_PProf and GPProf save the outer path's sum on entering a region (`push`) and restore
//! it on leaving (`sum = pop()`). Where the outer sum at every entry of a region is the same
//! constant `c`, which it is wherever one outer path leads to the region (a loop at a
//! function's start, such as `strcmp`'s; a loop after a straight prologue; the second of
//! two loops in sequence, entered from the first's exit, which restores a constant), the
//! plan can drop the region's pushes and let each of its pops assign `c` instead
//! ([`Instrumented::fold_known_saves`]): the same sums and counts, without the stack
//! operations (and a region exit becomes a plain path end, which compiled probes do
//! cheaply).
//!
//! The constants come from a forward dataflow over the CFG edges' operations: per node the
//! running sum (a constant or varying) and the stack of saved sums, each slot with its value
//! and the class of pushes that may have saved it (pushes whose sums meet in one slot are
//! one class, through union-find). A class whose pushes all save one constant is folded.
//! A plan whose stack depths disagree at a node (none that RB_PProf or GPProf build) is
//! left as it is.

use petgraph::visit::EdgeRef;

use crate::cfg::Cfg;
use crate::plan::{Instrumented, Op};

/// What the dataflow knows of a sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Const(u128),
    Varying,
}

impl Val {
    fn join(self, other: Val) -> Val {
        if self == other {
            self
        } else {
            Val::Varying
        }
    }

    fn plus(self, v: u128) -> Val {
        match self {
            Val::Const(c) => Val::Const(c.wrapping_add(v)),
            Val::Varying => Val::Varying,
        }
    }
}

/// The dataflow state at a point: the running sum, and per saved slot (outermost first)
/// its value and the push class that saved it.
#[derive(Clone, Debug)]
struct State {
    sum: Val,
    stack: Vec<(Val, u32)>,
}

impl State {
    /// An activation's state before its start's operations: sum 0, nothing saved.
    fn start() -> State {
        State {
            sum: Val::Const(0),
            stack: Vec::new(),
        }
    }

    fn copy_from(&mut self, other: &State) {
        self.sum = other.sum;
        self.stack.clear();
        self.stack.extend_from_slice(&other.stack);
    }
}

/// Union-find over push classes (one per operation index of the plan, see [`Ops`]): the
/// pushes whose sums meet in one stack slot somewhere are one class.
struct Classes(Vec<u32>);

impl Classes {
    fn find(&mut self, mut c: u32) -> u32 {
        while self.0[c as usize] != c {
            let up = self.0[self.0[c as usize] as usize];
            self.0[c as usize] = up;
            c = up;
        }
        c
    }

    /// Merges the classes of `a` and `b`; whether they were apart.
    fn union(&mut self, a: u32, b: u32) -> bool {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a.max(b) as usize] = a.min(b);
        }
        a != b
    }
}

/// Every operation list of a plan, with a global index per operation: the edges' (as
/// `ops`), then the start's, then the end's.
struct Ops<'a> {
    inst: &'a Instrumented,
}

impl Ops<'_> {
    fn start(&self) -> (&[Op], u32) {
        (&self.inst.start_ops, self.inst.ops.len() as u32)
    }

    fn end(&self) -> (&[Op], u32) {
        let at = self.inst.ops.len() + self.inst.start_ops.len();
        (&self.inst.end_ops, at as u32)
    }

    fn edge(&self, e: usize) -> (&[Op], u32) {
        let at = self.inst.edge_ops.get(e).map_or(0, |&(s, _)| s);
        (self.inst.ops_for(e), at)
    }

    fn len(&self) -> usize {
        self.inst.ops.len() + self.inst.start_ops.len() + self.inst.end_ops.len()
    }
}

/// What an operation met at the fixpoint: the value a push saved and its class, the class
/// a pop restored, the sum before an assignment.
#[derive(Clone, Copy, Debug)]
enum Met {
    Push(Val, u32),
    Pop(u32),
    Set(Val),
}

/// Runs `ops` (the first at global index `at`) on `state`, recording in `met` what each
/// push, pop and assignment met (a class as it was then); `None` if one pops an empty
/// stack.
fn transfer(state: &mut State, (ops, at): (&[Op], u32), met: &mut [Option<Met>]) -> Option<()> {
    for (i, op) in ops.iter().enumerate() {
        let seen = match *op {
            Op::Add(v) => {
                state.sum = state.sum.plus(v);
                continue;
            }
            Op::Set(v) => Met::Set(std::mem::replace(&mut state.sum, Val::Const(v))),
            Op::Push(v) => {
                let saved = state.sum.plus(v);
                state.stack.push((saved, at + i as u32));
                Met::Push(saved, at + i as u32)
            }
            Op::Pop => {
                let (saved, class) = state.stack.pop()?;
                state.sum = saved;
                Met::Pop(class)
            }
            Op::Count { .. } => continue,
        };
        met[at as usize + i] = Some(seen);
    }
    Some(())
}

/// Joins `from` into `into`; whether `into` changed, or `None` if their stacks differ in
/// depth.
fn join(into: &mut State, from: &State, classes: &mut Classes) -> Option<bool> {
    if into.stack.len() != from.stack.len() {
        return None;
    }
    let sum = into.sum.join(from.sum);
    let mut changed = sum != into.sum;
    into.sum = sum;
    for (slot, &(val, class)) in into.stack.iter_mut().zip(&from.stack) {
        let joined = slot.0.join(val);
        changed |= joined != slot.0;
        slot.0 = joined;
        changed |= classes.union(slot.1, class);
    }
    Some(changed)
}

/// What every operation of the plan met at the dataflow's fixpoint (`None` for one not
/// reached, or an addition or count); `None` if stack depths disagree somewhere. (A node's
/// out-edges run last on its final state, after its last change queued it, so what they
/// meet then stands.)
fn meetings(ops: &Ops<'_>) -> Option<Vec<Option<Met>>> {
    let graph = &ops.inst.hier.cfg.graph;
    let mut classes = Classes((0..ops.len() as u32).collect());
    let mut met = vec![None; ops.len()];
    let mut states: Vec<Option<State>> = vec![None; graph.node_count()];
    let mut start = State::start();
    transfer(&mut start, ops.start(), &mut met)?;
    states[Cfg::entry().index()] = Some(start);
    let mut work = vec![Cfg::entry()];
    let mut queued = vec![false; graph.node_count()];
    queued[Cfg::entry().index()] = true;
    // (Two states reused for every edge: a function is folded on its first call.)
    let (mut here, mut out) = (State::start(), State::start());
    while let Some(v) = work.pop() {
        queued[v.index()] = false;
        let Some(state) = &states[v.index()] else {
            continue;
        };
        here.copy_from(state);
        for e in graph.edges(v) {
            out.copy_from(&here);
            transfer(&mut out, ops.edge(e.id().index()), &mut met)?;
            let w = e.target();
            let changed = match &mut states[w.index()] {
                Some(old) => join(old, &out, &mut classes)?,
                slot @ None => {
                    *slot = Some(out.clone());
                    true
                }
            };
            if changed && !queued[w.index()] {
                queued[w.index()] = true;
                work.push(w);
            }
        }
    }
    if let Some(state) = &mut states[Cfg::exit().index()] {
        transfer(state, ops.end(), &mut met)?;
    }
    // Classes are found now, once they have all merged.
    for m in met.iter_mut() {
        if let Some(Met::Push(_, class) | Met::Pop(class)) = m {
            *class = classes.find(*class);
        }
    }
    Some(met)
}

impl Instrumented {
    /// Drops the pushes of every region whose entries all save one constant outer sum, and
    /// makes each of its pops assign that constant (see [`known_saves`](crate::known_saves)),
    /// where nothing but additions, assignments and dropped pushes follows such a pop on its
    /// edge (a pop followed by an outer path's count or by another pop keeps a form the
    /// sink's probes know). The assignment of the sum that follows a dropped push becomes
    /// an addition. Sums, counts and the stack as every remaining pop sees it are unchanged
    /// along every walk from the entry; operations of edges the entry does not reach are
    /// left as they are. Returns the number of pushes dropped.
    ///
    /// ```
    /// use cfg_bl::{Cfg, Counters, Hierarchy, Instrumented, Mode, Op, RegionTree, Weights};
    ///
    /// // A loop that heads its function (`strcmp`'s shape): H <-> B, H -> X.
    /// let (cfg, n) = Cfg::from_names(
    ///     &["H", "B", "X"],
    ///     &["H"],
    ///     &[("H", "B"), ("B", "H"), ("H", "X")],
    ///     &["X"],
    /// )?;
    /// let hier = Hierarchy::new(cfg.clone(), RegionTree::loops(&cfg))?;
    /// let spec = Instrumented::new(hier, Mode::RegionBased, &Weights::Estimate)?;
    /// let mut folded = spec.clone();
    /// assert_eq!(folded.fold_known_saves(), 1);
    /// assert!(!folded.ops.iter().any(|op| matches!(op, Op::Push(_) | Op::Pop)));
    ///
    /// // Both plans count the same hierarchical paths along a walk.
    /// let walk = [Cfg::entry(), n[0], n[1], n[0], n[2], Cfg::exit()];
    /// let paths = |inst: &Instrumented| -> Result<_, cfg_bl::Error> {
    ///     let mut counters = Counters::new(inst);
    ///     inst.walk(&walk, &mut counters)?;
    ///     counters.paths(inst)
    /// };
    /// assert_eq!(paths(&folded)?, paths(&spec)?);
    /// # Ok::<(), cfg_bl::Error>(())
    /// ```
    pub fn fold_known_saves(&mut self) -> usize {
        // (Flat plans save nothing: no dataflow for them.)
        if self.saves_none() {
            return 0;
        }
        let ops = Ops { inst: self };
        let Some(met) = meetings(&ops) else {
            return 0;
        };
        let lists: Vec<(&[Op], usize)> = (0..self.edge_ops.len())
            .map(|e| ops.edge(e))
            .chain([ops.start(), ops.end()])
            .map(|(l, at)| (l, at as usize))
            .collect();
        let fold = folds(&lists, &met);
        let mut dropped = 0;
        let mut new_ops = Vec::with_capacity(self.ops.len());
        let mut edge_ops = Vec::with_capacity(self.edge_ops.len());
        for &list in &lists[..self.edge_ops.len()] {
            let at = new_ops.len();
            dropped += rewrite(list, &met, &fold, &mut new_ops);
            edge_ops.push((at as u32, (new_ops.len() - at) as u32));
        }
        let (mut start_ops, mut end_ops) = (Vec::new(), Vec::new());
        dropped += rewrite(lists[self.edge_ops.len()], &met, &fold, &mut start_ops);
        dropped += rewrite(lists[self.edge_ops.len() + 1], &met, &fold, &mut end_ops);
        self.ops = new_ops;
        self.edge_ops = edge_ops;
        self.start_ops = start_ops;
        self.end_ops = end_ops;
        dropped
    }
}

/// Per operation of the plan (`lists`, each with its first operation's index): the
/// constant of the folded class a push or pop belongs to, if it does. A class is folded
/// when all its pushes save one constant and no pop of it is followed, on its edge, by a
/// count, a pop, or a push of a class not folded.
fn folds(lists: &[(&[Op], usize)], met: &[Option<Met>]) -> Vec<Option<u128>> {
    let class = |g: usize| match met[g] {
        Some(Met::Push(_, c) | Met::Pop(c)) => Some(c as usize),
        _ => None,
    };
    let mut known: Vec<Option<Val>> = vec![None; met.len()];
    for m in met {
        if let Some(Met::Push(val, c)) = *m {
            let k = &mut known[c as usize];
            *k = Some(k.map_or(val, |s| s.join(val)));
        }
    }
    let of = |known: &[Option<Val>], g: usize| match class(g).and_then(|c| known[c]) {
        Some(Val::Const(c)) => Some(c),
        _ => None,
    };
    // Unfolding one class may block another's pop: until nothing changes.
    loop {
        let mut changed = false;
        for &(list, at) in lists {
            for (i, op) in list.iter().enumerate() {
                if *op != Op::Pop || of(&known, at + i).is_none() {
                    continue;
                }
                let blocked = list.iter().enumerate().skip(i + 1).any(|(j, op)| match op {
                    Op::Count { .. } | Op::Pop => true,
                    Op::Push(_) => of(&known, at + j).is_none(),
                    Op::Add(_) | Op::Set(_) => false,
                });
                if let (true, Some(c)) = (blocked, class(at + i)) {
                    known[c] = Some(Val::Varying);
                    changed = true;
                }
            }
        }
        if !changed {
            return (0..met.len()).map(|g| of(&known, g)).collect();
        }
    }
}

/// Appends `list` (its first operation at index `at` of the plan) to `out` with its
/// folded pushes dropped, its folded pops made assignments of their constant, and an
/// assignment right after a dropped push made an addition; composed again if anything
/// changed (a pop that became an assignment merges with what follows). Returns the
/// number of pushes dropped.
fn rewrite(
    (list, at): (&[Op], usize),
    met: &[Option<Met>],
    fold: &[Option<u128>],
    out: &mut Vec<Op>,
) -> usize {
    if fold[at..at + list.len()].iter().all(Option::is_none) {
        out.extend_from_slice(list);
        return 0;
    }
    let mut folded = Vec::with_capacity(list.len());
    let (mut dropped, mut after_push) = (0, false);
    for (i, &op) in list.iter().enumerate() {
        let g = at + i;
        let op = match (op, fold[g], met[g]) {
            (Op::Push(_), Some(_), _) => {
                dropped += 1;
                after_push = true;
                continue;
            }
            (Op::Pop, Some(c), _) => Op::Set(c),
            // (The sum before it is the dropped push's, known.)
            (Op::Set(v), _, Some(Met::Set(Val::Const(k)))) if after_push => {
                Op::Add(v.wrapping_sub(k))
            }
            _ => op,
        };
        after_push = false;
        folded.push(op);
    }
    if folded.as_slice() == list {
        out.extend_from_slice(list);
    } else {
        let mut composed = Vec::with_capacity(folded.len());
        crate::blockcache::compose(&mut composed, &folded);
        out.extend(composed);
    }
    dropped
}

#[cfg(test)]
impl Instrumented {
    /// The plan's pushes (its start's and end's included).
    pub(crate) fn pushes(&self) -> usize {
        self.all_ops()
            .filter(|op| matches!(op, Op::Push(_)))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use crate::{Cfg, Counters, Hierarchy, Instrumented, Mode, Op, RegionTree, Weights};

    /// A loop at the function's start (`strcmp`'s shape) is entered with one known outer
    /// sum: its push goes, its exit becomes a path end that sets that sum, and a walk
    /// counts the same paths.
    #[test]
    fn a_loop_entered_with_one_outer_sum_saves_nothing() {
        let (cfg, n) = Cfg::from_names(
            &["H", "B", "X"],
            &["H"],
            &[("H", "B"), ("B", "H"), ("H", "X")],
            &["X"],
        )
        .unwrap();
        for mode in [Mode::RegionBased, Mode::GlobalBased { shrink: false }] {
            let hier = Hierarchy::new(cfg.clone(), RegionTree::loops(&cfg)).unwrap();
            let inst = Instrumented::new(hier, mode, &Weights::Estimate).unwrap();
            assert_eq!(inst.pushes(), 1, "{mode:?}");
            let mut folded = inst.clone();
            assert_eq!(folded.fold_known_saves(), 1);
            assert_eq!(folded.pushes(), 0);
            assert!(!folded.ops.contains(&Op::Pop));
            let exit = cfg.find_edge(n[0], n[2]).unwrap().index();
            assert!(
                matches!(folded.ops_for(exit), [Op::Count { .. }, Op::Set(_)]),
                "{:?}",
                folded.ops_for(exit)
            );
            let walk = [
                Cfg::entry(),
                n[0],
                n[1],
                n[0],
                n[1],
                n[0],
                n[2],
                Cfg::exit(),
            ];
            let paths = |inst: &Instrumented| {
                let mut counters = Counters::new(inst);
                inst.walk(&walk, &mut counters).unwrap();
                assert_eq!(counters.underflow, 0);
                counters.paths(inst).unwrap()
            };
            assert_eq!(paths(&folded), paths(&inst));
        }
    }

    /// A loop reached from its function's entry directly or through `B` is entered with
    /// two outer sums: its saves stay.
    #[test]
    fn a_region_entered_with_different_outer_sums_keeps_its_saves() {
        let (cfg, _) = Cfg::from_names(
            &["A", "B", "H", "L", "X"],
            &["A"],
            &[
                ("A", "B"),
                ("A", "H"),
                ("B", "H"),
                ("H", "L"),
                ("L", "H"),
                ("H", "X"),
            ],
            &["X"],
        )
        .unwrap();
        let regions = RegionTree::loops(&cfg);
        let hier = Hierarchy::new(cfg, regions).unwrap();
        let mut inst = Instrumented::new(hier, Mode::RegionBased, &Weights::Estimate).unwrap();
        let before = (inst.ops.clone(), inst.start_ops.clone());
        assert_eq!(inst.pushes(), 2);
        assert_eq!(inst.fold_known_saves(), 0);
        assert_eq!((inst.ops, inst.start_ops), before);
    }
}

//! Wide sums lent to compiled probes as offsets.
//!
//! Compiled probes hold 64-bit sums, so an activation whose running sum passes 2^63 (a
//! path numbered that high: gcc inlines chase's recursive `tree_height` into itself until
//! it has 6.3e21 paths) would run with every probe missing until its path ends: each of its
//! blocks an event for the sink. Instead the sink keeps the activation's true sum `s` and
//! lends the probes a negative value `-(m + 1)` in its place, `m` being the most that any
//! way on from the activation's node adds before its path end counts ([`room`]); what
//! compiled code adds to it, the sink adds to `s` when it takes the state back.
//!
//! That is exact only while the lent sum never reaches a counter, and a compiled path end
//! counts `sum + add` at a counter (a dense table's `0..size`, or a sparse table's window
//! of one sum `w`, whose addition `add - w` is a signed 64-bit value). So the sink lends an
//! offset only at a node from which every way on, up to and including the count that ends
//! the path (its addition too), adds at least 0 and at most `m < 2^63 - 1`. The value
//! counted, `c` (the lent sum plus the count's addition `add`), is then in `[-(m + 1), -1]`:
//! as an unsigned 64-bit index at least 2^63, past a dense table; and a window of `w`
//! holds it only if `w = c + 2^64` (or more by multiples of 2^64), while `add - w >= -2^63`
//! makes `c <= add - 2^63`: the lent sum before the count, `c - add`, would be at most
//! -2^63, below where it started (`-(m + 1) > -2^63`), and additions only raise it. The
//! probe misses there, and the sink counts the true sum. Operations that could let a lent
//! sum escape otherwise (an assignment, a save or a restore) make a node lend nothing. A
//! call saves the lent sum in its frame, and its return restores it: the callee's sums are
//! its own. (Small lent sums also keep compiled code's deferred additions, which check
//! that the sum lies within ±2^62.)

use petgraph::visit::EdgeRef;

use crate::cfg::Cfg;
use crate::plan::{Instrumented, Op};

/// What the ways on from a node may add, `0..LIMIT`, before their path ends count.
const LIMIT: i128 = i64::MAX as i128;

/// What one edge's operations do to a lent sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// They add this and the path goes on at the edge's target.
    Goes(i128),
    /// They add this and then end the path, counting the sum plus the count's addition:
    /// the most added when counted.
    Counts(i128),
    /// They assign, save or restore the sum, or add a negative value or too much.
    Escapes,
}

/// The walk of `ops` on a lent sum.
fn walk(ops: &[Op]) -> Walk {
    let mut added = 0i128;
    for &op in ops {
        match op {
            Op::Add(v) => added += bounded(v).unwrap_or(LIMIT),
            Op::Count { add, .. } => {
                return match bounded(add) {
                    Some(a) if added + a < LIMIT => Walk::Counts(added + a),
                    _ => Walk::Escapes,
                }
            }
            Op::Set(_) | Op::Push(_) | Op::Pop => return Walk::Escapes,
        }
        if added >= LIMIT {
            return Walk::Escapes;
        }
    }
    Walk::Goes(added)
}

/// `v` if it is in `0..LIMIT`.
fn bounded(v: u128) -> Option<i128> {
    (v < LIMIT as u128).then_some(v as i128)
}

/// Per CFG node of `inst`: the sum the sink may lend an activation standing there in place
/// of its own, `-(m + 1)` if every way on adds at most `m < 2^63 - 1` before its path
/// end counts (see the module docs), or `None`.
pub(crate) fn room(inst: &Instrumented) -> Vec<Option<i64>> {
    let g = &inst.hier.cfg.graph;
    let n = g.node_count();
    // `most[v]`: the most a way on from v adds before it counts, `None` if one escapes.
    // Known for a node once all its successors through edges that go on are (ways on
    // without a count run in a cycle, which escapes too: such nodes are never known).
    let mut most: Vec<Option<Option<i128>>> = vec![None; n];
    // Per edge: its walk, an edge to the virtual exit's with the end's operations after.
    let at_exit = walk(&inst.end_ops);
    let steps: Vec<Walk> = g
        .edge_references()
        .map(|e| match walk(inst.ops_for(e.id().index())) {
            Walk::Goes(a) if e.target() == Cfg::exit() => match at_exit {
                Walk::Counts(x) => Walk::Counts(a + x),
                _ => Walk::Escapes,
            },
            step => step,
        })
        .collect();
    let goes =
        |e: &petgraph::graph::EdgeReference<'_, _>| matches!(steps[e.id().index()], Walk::Goes(_));
    // Reverse topological order over the edges that go on, by counting each node's
    // successors not yet known.
    let mut pending = vec![0usize; n];
    let mut ready = Vec::new();
    for v in g.node_indices() {
        pending[v.index()] = g.edges(v).filter(goes).count();
        if pending[v.index()] == 0 {
            ready.push(v);
        }
    }
    while let Some(v) = ready.pop() {
        let mut max = Some(0i128);
        for e in g.edges(v) {
            let at = match steps[e.id().index()] {
                Walk::Goes(a) => most[e.target().index()].flatten().map(|m| a + m),
                Walk::Counts(a) => Some(a),
                Walk::Escapes => None,
            };
            max = max.zip(at).map(|(m, a)| m.max(a)).filter(|&m| m < LIMIT);
        }
        most[v.index()] = Some(max);
        for e in g.edges_directed(v, petgraph::Direction::Incoming) {
            let p = e.source().index();
            if goes(&e) {
                pending[p] -= 1;
                if pending[p] == 0 {
                    ready.push(e.source());
                }
            }
        }
    }
    let lent = |m: i128| i64::try_from(-(m + 1)).ok();
    most.into_iter()
        .map(|m| m.flatten().and_then(lent))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategies::reducible_cfg;
    use crate::{Hierarchy, Mode, RegionTree, Weights};
    use proptest::prelude::*;

    /// Where a way on stands after some operations: going on, having added this, or
    /// counted this.
    enum Way {
        On(i128),
        Counted(i128),
    }

    /// `added` after `ops` by brute force, `Err` if one assigns, saves, restores or adds
    /// a negative value.
    fn run(ops: &[Op], mut added: i128) -> Result<Way, ()> {
        for &op in ops {
            match op {
                Op::Add(a) if (a as i128) >= 0 => added += a as i128,
                Op::Count { add, .. } if (add as i128) >= 0 => {
                    return Ok(Way::Counted(added + add as i128))
                }
                _ => return Err(()),
            }
        }
        Ok(Way::On(added))
    }

    /// What every way on from `v` adds before it counts, by brute force over the plan's
    /// operations: the most, `Err` if one escapes ([`run`]) or runs in a cycle without
    /// counting; `None` past `cap` ways.
    fn most_on(inst: &Instrumented, v: usize, cap: usize) -> Option<Result<i128, ()>> {
        let g = &inst.hier.cfg.graph;
        let mut most = 0i128;
        let mut ways = 0;
        // (node, added so far, nodes on the way since its start)
        let mut stack = vec![(v, 0i128, vec![v])];
        while let Some((u, added, on)) = stack.pop() {
            for e in g.edges(petgraph::graph::NodeIndex::new(u)) {
                let w = e.target();
                let mut way = run(inst.ops_for(e.id().index()), added);
                if let (Ok(Way::On(a)), true) = (&way, w == Cfg::exit()) {
                    way = match run(&inst.end_ops, *a) {
                        Ok(Way::Counted(c)) => Ok(Way::Counted(c)),
                        _ => Err(()),
                    };
                }
                match way {
                    Err(()) => return Some(Err(())),
                    Ok(Way::Counted(c)) => {
                        most = most.max(c);
                        ways += 1;
                        if ways > cap {
                            return None;
                        }
                    }
                    Ok(Way::On(_)) if on.contains(&w.index()) => return Some(Err(())),
                    Ok(Way::On(a)) => {
                        let mut on = on.clone();
                        on.push(w.index());
                        stack.push((w.index(), a, on));
                    }
                }
            }
        }
        Some(Ok(most))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The sum lent at each node is `-(m + 1)` for the most `m` any way on adds before
        /// it counts, and none where a way escapes, as a brute-force walk of every way on
        /// finds (flat and loop regions, both modes, the spec's plans and the folded ones
        /// the sink runs; small graphs' increments may be negative, which escapes).
        #[test]
        fn room_matches_every_way_on(cfg in reducible_cfg(4)) {
            for tree in [RegionTree::flat(&cfg), RegionTree::loops(&cfg)] {
                for mode in [Mode::RegionBased, Mode::GlobalBased { shrink: true }] {
                    let hier = Hierarchy::new(cfg.clone(), tree.clone()).unwrap();
                    let spec = Instrumented::new(hier, mode, &Weights::Estimate).unwrap();
                    // The sink's plans, with the saves known when instrumenting folded.
                    let mut folded = spec.clone();
                    folded.fold_known_saves();
                    for inst in [&spec, &folded] {
                        let room = room(inst);
                        for (v, &lent) in room.iter().enumerate() {
                            let Some(most) = most_on(inst, v, 5000) else { continue };
                            let fits = |&m: &i128| m < i64::MAX as i128;
                            let want = most.ok().filter(fits).map(|m| -(m + 1) as i64);
                            prop_assert_eq!(lent, want, "node {} {:?}", v, mode);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_walk_goes_on_counts_or_escapes() {
        let count = |add| Op::Count { table: 0, add };
        assert_eq!(walk(&[]), Walk::Goes(0));
        assert_eq!(walk(&[Op::Add(3), Op::Add(4)]), Walk::Goes(7));
        assert_eq!(walk(&[Op::Add(3), count(5), Op::Set(0)]), Walk::Counts(8));
        assert_eq!(walk(&[Op::Set(1)]), Walk::Escapes);
        assert_eq!(walk(&[Op::Push(0)]), Walk::Escapes);
        assert_eq!(walk(&[Op::Pop]), Walk::Escapes);
        // Negative additions (wrapping) and sums reaching 2^63 - 1 escape.
        let most = i64::MAX as u128;
        assert_eq!(walk(&[Op::Add(u128::MAX)]), Walk::Escapes);
        assert_eq!(walk(&[Op::Add(1 << 62), Op::Add(1 << 62)]), Walk::Escapes);
        let below = walk(&[Op::Add(most - 2), count(1)]);
        assert_eq!(below, Walk::Counts(most as i128 - 1));
        assert_eq!(walk(&[Op::Add(most - 1), count(1)]), Walk::Escapes);
    }

    /// A chain of 64 diamonds has 2^64 paths, numbered with edge values as increments:
    /// where `p` paths go on, the ways on add at most `p - 1`, so an activation may take
    /// the offset `-p` where `p - 1 < 2^63 - 1`, here from the fourth diamond on.
    #[test]
    fn room_is_where_fewer_than_2_63_paths_go_on() {
        let k = 64;
        let mut names = Vec::new();
        let mut edges = Vec::new();
        for i in 0..k {
            names.extend([format!("T{i}"), format!("L{i}"), format!("R{i}")]);
            let next = format!("T{}", i + 1);
            edges.extend([
                (format!("T{i}"), format!("L{i}")),
                (format!("T{i}"), format!("R{i}")),
                (format!("L{i}"), next.clone()),
                (format!("R{i}"), next),
            ]);
        }
        // The last block loops on itself: its backedge ends a path.
        names.push(format!("T{k}"));
        edges.push((format!("T{k}"), format!("T{k}")));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let edges: Vec<(&str, &str)> = edges
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let last = format!("T{k}");
        let (cfg, n) = Cfg::from_names(&names, &["T0"], &edges, &[last.as_str()]).unwrap();
        let hier = Hierarchy::new(cfg.clone(), RegionTree::flat(&cfg)).unwrap();
        let inst = Instrumented::new(hier, Mode::RegionBased, &Weights::Estimate).unwrap();
        let room = room(&inst);
        // Paths on from each named block: two ways through each diamond left, then two
        // ways out of the loop (its backedge, or the exit).
        let paths_on = |i: usize| -> u128 {
            let diamonds = (k - i / 3) as u32 - u32::from(i % 3 != 0);
            2u128 << diamonds
        };
        for (i, &v) in n.iter().enumerate() {
            let lent = (paths_on(i) < 1 << 63).then(|| -(paths_on(i) as i64));
            assert_eq!(room[v.index()], lent, "{}", names[i]);
        }
        assert!(room[n[6].index()].is_none() && room[n[9].index()] == Some(-(1 << 62)));
    }
}

//! Ball-Larus path numbering of a DAG with one source and one sink, path regeneration, and
//! increments placed on the chords of a maximum spanning tree (beyond 63 bits of paths, of
//! the tree of each node's first out-edge).
//!
//! Path counts are `u128` and every addition is checked: a DAG with 2^128 or more paths is
//! an [`Error::Overflow`], never a wrapped count. Increments may be "negative"; they are kept
//! as two's-complement `u128` and added with wrapping arithmetic, which gives exact sums at
//! the end of every complete path because those lie in `[0, NumPaths)`.

use petgraph::unionfind::UnionFind;

use crate::adjacency::Adjacency;
use crate::Error;

/// A DAG to number: nodes `0..nodes`, edges in order (the order of each node's out-edges
/// fixes the values: the first out-edge gets 0; in a DAG with more than `i64::MAX` paths,
/// the out-edges whose targets have fewer paths come first, ties in edge order).
#[derive(Clone, Debug, Default)]
pub struct Dag {
    /// Number of nodes.
    pub nodes: usize,
    /// Where every path starts.
    pub source: usize,
    /// Where every path ends.
    pub sink: usize,
    /// Edges `(from, to)`.
    pub edges: Vec<(usize, usize)>,
}

impl Dag {
    /// A DAG with `nodes` nodes and no edges.
    pub fn new(nodes: usize, source: usize, sink: usize) -> Dag {
        Dag {
            nodes,
            source,
            sink,
            edges: Vec::new(),
        }
    }

    /// Adds an edge and returns its index.
    pub fn add_edge(&mut self, from: usize, to: usize) -> usize {
        self.edges.push((from, to));
        self.edges.len() - 1
    }

    /// The out-edges of every node, in edge order.
    fn out_lists(&self) -> Adjacency<usize> {
        Adjacency::new(
            self.nodes,
            self.edges.iter().enumerate().map(|(i, &(a, _))| (a, i)),
        )
    }

    /// Topological order, or an error naming a node on a cycle.
    pub fn topo_order(&self) -> Result<Vec<usize>, Error> {
        self.topo_order_by(&self.out_lists())
    }

    /// [`topo_order`](Self::topo_order) along the out-edges `out` (the DAG's).
    fn topo_order_by(&self, out: &Adjacency<usize>) -> Result<Vec<usize>, Error> {
        let mut indeg = vec![0usize; self.nodes];
        for &(_, b) in &self.edges {
            indeg[b] += 1;
        }
        let mut ready: Vec<usize> = (0..self.nodes).filter(|&n| indeg[n] == 0).collect();
        let mut order = Vec::with_capacity(self.nodes);
        while let Some(n) = ready.pop() {
            order.push(n);
            for &e in out.of(n) {
                let b = self.edges[e].1;
                indeg[b] -= 1;
                if indeg[b] == 0 {
                    ready.push(b);
                }
            }
        }
        match (0..self.nodes).find(|&n| indeg[n] != 0) {
            Some(n) => Err(Error::Cyclic(format!("node {n} lies on a cycle"))),
            None => Ok(order),
        }
    }
}

/// Whether a graph of `paths` paths is wide, beyond `i64::MAX`: numbered fewest paths
/// first, with its edge values as increments (see [`Dag`] and [`Numbering::increments`]).
pub(crate) fn wide(paths: u128) -> bool {
    paths > i64::MAX as u128
}

/// The Ball-Larus numbering of a [`Dag`].
#[derive(Clone, Debug)]
pub struct Numbering {
    /// NumPaths(v): paths from `v` to the sink.
    pub num_paths: Vec<u128>,
    /// Val(e) for every edge: the sums of the paths from the source are exactly
    /// `0..num_paths[source]`, each once.
    pub val: Vec<u128>,
    out: Adjacency<usize>,
    source: usize,
    sink: usize,
    edges: Vec<(usize, usize)>,
}

impl Numbering {
    /// Numbers `dag`: NumPaths in reverse topological order; each node's out-edges get the
    /// running total of their predecessors' targets' NumPaths (in edge order, or beyond
    /// 63 bits of paths by their targets' NumPaths, see [`Dag`]).
    pub fn new(dag: &Dag) -> Result<Numbering, Error> {
        if dag.source >= dag.nodes || dag.sink >= dag.nodes {
            return Err(Error::Invalid("source or sink out of range".into()));
        }
        if let Some(&(a, b)) = dag
            .edges
            .iter()
            .find(|&&(a, b)| a >= dag.nodes || b >= dag.nodes)
        {
            return Err(Error::Invalid(format!("edge {a}->{b} out of range")));
        }
        let mut out = dag.out_lists();
        let order = dag.topo_order_by(&out)?;
        let mut num_paths = vec![0u128; dag.nodes];
        for &v in order.iter().rev() {
            num_paths[v] = if v == dag.sink {
                1
            } else {
                out.of(v).iter().try_fold(0u128, |total, &e| {
                    total
                        .checked_add(num_paths[dag.edges[e].1])
                        .ok_or(Error::Overflow)
                })?
            };
        }
        // Beyond 63 bits, smaller successors first: a path that takes the branch with
        // fewer paths (an early return, a recursion's base case) is numbered lower, so
        // more of the hot paths of a wide graph keep sums that fit the 64 bits compiled
        // probes hold (chase's `tree_height`, with its recursion inlined, has 6.3e21
        // paths; its hottest, a null pointer's return, was numbered NumPaths - 1).
        if wide(num_paths[dag.source]) {
            for v in 0..dag.nodes {
                out.of_mut(v).sort_by_key(|&e| num_paths[dag.edges[e].1]);
            }
        }
        let mut val = vec![0u128; dag.edges.len()];
        for v in (0..dag.nodes).filter(|&v| v != dag.sink) {
            // (At most NumPaths(v), which was checked.)
            let mut total: u128 = 0;
            for &e in out.of(v) {
                val[e] = total;
                total += num_paths[dag.edges[e].1];
            }
        }
        Ok(Numbering {
            num_paths,
            val,
            out,
            source: dag.source,
            sink: dag.sink,
            edges: dag.edges.clone(),
        })
    }

    /// The numbering of a one-node graph (a placeholder before numbering).
    pub(crate) fn trivial() -> Numbering {
        Numbering {
            num_paths: vec![1],
            val: Vec::new(),
            out: Adjacency::new(1, std::iter::empty()),
            source: 0,
            sink: 0,
            edges: Vec::new(),
        }
    }

    /// NumPaths(source): the number of source-to-sink paths.
    pub fn total(&self) -> u128 {
        self.num_paths[self.source]
    }

    /// The sum of `val` along `edges` (checked; `None` on overflow or a bad index).
    pub fn path_sum(&self, edges: &[usize]) -> Option<u128> {
        edges
            .iter()
            .try_fold(0u128, |s, &e| s.checked_add(*self.val.get(e)?))
    }

    /// The edges of the source-to-sink path whose sum is `sum`, or `None` if
    /// `sum >= total()`.
    pub fn regenerate(&self, sum: u128) -> Option<Vec<usize>> {
        // (Room for most paths at once: growing from empty took 5 reallocations a path
        // on chase 250000's 16 568, a quarter of the report's time.)
        let mut path = Vec::with_capacity(64);
        self.walk(sum, |e, _| path.push(e)).then_some(path)
    }

    /// Walks the source-to-sink path whose sum is `sum`, giving `visit` each of its edges
    /// and the edge's target, in order; false if `sum >= total()` (having visited nothing)
    /// or no path has that sum. What [`regenerate`](Self::regenerate) collects, for a
    /// caller that wants the nodes without the edges' list.
    pub fn walk(&self, sum: u128, mut visit: impl FnMut(usize, usize)) -> bool {
        if sum >= self.total() {
            return false;
        }
        let mut rest = sum;
        let mut v = self.source;
        while v != self.sink {
            // The out-edge with the largest value not above `rest` that still leads to the
            // sink: values ascend along `out[v]`.
            let next = self.out.of(v).iter().rev().find_map(|&e| {
                let (val, to) = (self.val[e], self.edges[e].1);
                (val <= rest && self.num_paths[to] > 0).then_some((e, val, to))
            });
            let Some((e, val, to)) = next else {
                return false;
            };
            rest -= val;
            visit(e, to);
            v = to;
        }
        rest == 0
    }

    /// Ball and Larus' increments: with the virtual edge sink->source forced into a maximum
    /// spanning tree of the undirected graph weighted by `weights` (one per edge, e.g. an
    /// estimated or measured edge frequency), tree edges get increment 0 and each chord the
    /// value that keeps every complete path's sum unchanged. Returned as two's-complement.
    ///
    /// Beyond 63 bits of paths, the tree is each node's first out-edge (value 0) instead,
    /// whatever the weights: every chord's increment is then its value, so a path's running
    /// sum only grows towards its number, and a path numbered below 2^63 never leaves the
    /// 64 bits compiled probes hold (a maximum spanning tree's increments, two's-complement
    /// 128-bit values, may pass them on the way even where the path's number fits).
    pub fn increments(&self, weights: &[u64]) -> Vec<u128> {
        if wide(self.total()) {
            return self.val.clone();
        }
        let n = self.num_paths.len();
        let mut order: Vec<usize> = (0..self.edges.len()).collect();
        order.sort_by_key(|&e| std::cmp::Reverse(weights.get(e).copied().unwrap_or(0)));
        let mut uf = UnionFind::<usize>::new(n);
        uf.union(self.sink, self.source);
        // Tree edges, both ways: (from, (neighbour, value to add going there)).
        let mut tree: Vec<(usize, (usize, u128))> = Vec::with_capacity(2 * n);
        tree.extend([(self.sink, (self.source, 0)), (self.source, (self.sink, 0))]);
        let mut in_tree = vec![false; self.edges.len()];
        for e in order {
            let (a, b) = self.edges[e];
            if uf.union(a, b) {
                in_tree[e] = true;
                tree.push((a, (b, self.val[e])));
                tree.push((b, (a, self.val[e].wrapping_neg())));
            }
        }
        let adj = Adjacency::new(n, tree.iter().copied());
        // Potentials: phi(b) = phi(a) + val(a->b) along tree edges.
        let mut phi: Vec<Option<u128>> = vec![None; n];
        let mut stack = Vec::new();
        for root in 0..n {
            if phi[root].is_some() {
                continue;
            }
            phi[root] = Some(0);
            stack.push(root);
            while let Some(a) = stack.pop() {
                let pa = phi[a].unwrap_or(0);
                for &(b, d) in adj.of(a) {
                    if phi[b].is_none() {
                        phi[b] = Some(pa.wrapping_add(d));
                        stack.push(b);
                    }
                }
            }
        }
        self.edges
            .iter()
            .enumerate()
            .map(|(e, &(a, b))| {
                if in_tree[e] {
                    0
                } else {
                    let pa = phi[a].unwrap_or(0);
                    let pb = phi[b].unwrap_or(0);
                    self.val[e].wrapping_add(pa).wrapping_sub(pb)
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path of a small DAG, by brute force.
    fn all_paths(dag: &Dag) -> Vec<Vec<usize>> {
        fn go(dag: &Dag, v: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if v == dag.sink {
                out.push(cur.clone());
                return;
            }
            for (e, &(a, b)) in dag.edges.iter().enumerate() {
                if a == v {
                    cur.push(e);
                    go(dag, b, cur, out);
                    cur.pop();
                }
            }
        }
        let mut out = Vec::new();
        go(dag, dag.source, &mut Vec::new(), &mut out);
        out
    }

    #[test]
    fn diamond_chain_sums_are_dense_and_regenerate() {
        // Three diamonds in a row: 8 paths.
        let mut d = Dag::new(7, 0, 6);
        for i in 0..3 {
            let a = 2 * i;
            d.add_edge(a, a + 1);
            d.add_edge(a, a + 2);
            d.add_edge(a + 1, a + 2);
        }
        let n = Numbering::new(&d).unwrap();
        assert_eq!(n.total(), 8);
        let mut sums: Vec<u128> = all_paths(&d)
            .iter()
            .map(|p| {
                let s = n.path_sum(p).unwrap();
                assert_eq!(n.regenerate(s).as_deref(), Some(p.as_slice()));
                s
            })
            .collect();
        sums.sort();
        assert_eq!(sums, (0..8).collect::<Vec<u128>>());
        assert_eq!(n.regenerate(8), None);
        let inc = n.increments(&vec![1; d.edges.len()]);
        for p in all_paths(&d) {
            let s = p.iter().fold(0u128, |s, &e| s.wrapping_add(inc[e]));
            assert_eq!(Some(s), n.path_sum(&p));
        }
    }

    #[test]
    fn overflow_is_an_error_and_u128_is_exact() {
        // 127 diamonds: 2^127 paths fit; 128 overflow.
        for (k, ok) in [(127usize, true), (128, false)] {
            let mut d = Dag::new(2 * k + 1, 0, 2 * k);
            for i in 0..k {
                d.add_edge(2 * i, 2 * i + 1);
                d.add_edge(2 * i, 2 * i + 2);
                d.add_edge(2 * i + 1, 2 * i + 2);
            }
            match Numbering::new(&d) {
                Ok(n) => {
                    assert!(ok);
                    assert_eq!(n.total(), 1u128 << 127);
                    let top = n.total() - 1;
                    let p = n.regenerate(top).unwrap();
                    assert_eq!(n.path_sum(&p), Some(top));
                }
                Err(e) => {
                    assert!(!ok);
                    assert!(matches!(e, Error::Overflow));
                }
            }
        }
    }

    /// Beyond 63 bits of paths, a node's out-edges with fewer paths behind them come
    /// first, and every chord's increment is its value: a path numbered below 2^63 keeps
    /// a running sum that only grows to its number. Below 63 bits, edge order and the
    /// maximum spanning tree stay.
    #[test]
    fn a_wide_graph_numbers_its_short_paths_low_and_its_sums_only_grow() {
        // 70 diamonds, each diamond's node also able to leave at once: entry 0 leaves
        // first in edge order, into the diamonds (2^70 paths) second.
        let k = 70;
        let sink = 2 * k + 1;
        for (diamonds, wide) in [(k, true), (10, false)] {
            let mut d = Dag::new(sink + 1, 0, sink);
            for i in 0..diamonds {
                let a = 2 * i;
                d.add_edge(a, a + 1);
                d.add_edge(a, a + 2);
                d.add_edge(a + 1, a + 2);
                d.add_edge(a, sink);
            }
            d.add_edge(2 * diamonds, sink);
            let n = Numbering::new(&d).unwrap();
            assert_eq!(n.total() > i64::MAX as u128, wide);
            let leave = d.edges.iter().position(|&e| e == (0, sink)).unwrap();
            // Leaving at once is the path with fewest edges behind the branch: number 0
            // when wide, the last of entry's out-edges' values in edge order otherwise.
            assert_eq!(n.val[leave] == 0, wide);
            let inc = n.increments(&vec![1; d.edges.len()]);
            assert_eq!(inc == n.val, wide);
            // Random paths: regenerated, their sums exact, and (wide) each running sum
            // at most the path's number.
            let mut rng = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..200 {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let sum = (u128::from(rng) << 64 | u128::from(rng.rotate_left(17))) % n.total();
                let path = n.regenerate(sum).unwrap();
                assert_eq!(n.path_sum(&path), Some(sum));
                let mut running = 0u128;
                for &e in &path {
                    running = running.wrapping_add(inc[e]);
                    assert!(!wide || running <= sum);
                }
                assert_eq!(running, sum);
            }
        }
    }

    #[test]
    fn cycle_is_rejected() {
        let mut d = Dag::new(3, 0, 2);
        d.add_edge(0, 1);
        d.add_edge(1, 0);
        d.add_edge(1, 2);
        assert!(matches!(Numbering::new(&d), Err(Error::Cyclic(_))));
    }
}

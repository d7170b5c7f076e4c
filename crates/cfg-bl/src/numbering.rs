//! Ball-Larus path numbering of a DAG with one source and one sink, path regeneration, and
//! increments placed on the chords of a maximum spanning tree.
//!
//! Path counts are `u128` and every addition is checked: a DAG with 2^128 or more paths is
//! an [`Error::Overflow`], never a wrapped count. Increments may be "negative"; they are kept
//! as two's-complement `u128` and added with wrapping arithmetic, which gives exact sums at
//! the end of every complete path because those lie in `[0, NumPaths)`.

use petgraph::unionfind::UnionFind;

use crate::Error;

/// A DAG to number: nodes `0..nodes`, edges in order (the order of each node's out-edges
/// fixes the values: the first out-edge gets 0).
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

    /// The out-edge lists, in edge order.
    fn out_lists(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.nodes];
        for (i, &(a, _)) in self.edges.iter().enumerate() {
            out[a].push(i);
        }
        out
    }

    /// Topological order, or an error naming a node on a cycle.
    pub fn topo_order(&self) -> Result<Vec<usize>, Error> {
        let mut indeg = vec![0usize; self.nodes];
        for &(_, b) in &self.edges {
            indeg[b] += 1;
        }
        let out = self.out_lists();
        let mut ready: Vec<usize> = (0..self.nodes).filter(|&n| indeg[n] == 0).collect();
        let mut order = Vec::with_capacity(self.nodes);
        while let Some(n) = ready.pop() {
            order.push(n);
            for &e in &out[n] {
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

/// The Ball-Larus numbering of a [`Dag`].
#[derive(Clone, Debug)]
pub struct Numbering {
    /// NumPaths(v): paths from `v` to the sink.
    pub num_paths: Vec<u128>,
    /// Val(e) for every edge: the sums of the paths from the source are exactly
    /// `0..num_paths[source]`, each once.
    pub val: Vec<u128>,
    out: Vec<Vec<usize>>,
    source: usize,
    sink: usize,
    edges: Vec<(usize, usize)>,
}

impl Numbering {
    /// Numbers `dag`: NumPaths in reverse topological order; each node's out-edges get the
    /// running total of their predecessors' targets' NumPaths.
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
        let order = dag.topo_order()?;
        let out = dag.out_lists();
        let mut num_paths = vec![0u128; dag.nodes];
        let mut val = vec![0u128; dag.edges.len()];
        for &v in order.iter().rev() {
            if v == dag.sink {
                num_paths[v] = 1;
                continue;
            }
            let mut total: u128 = 0;
            for &e in &out[v] {
                val[e] = total;
                total = total
                    .checked_add(num_paths[dag.edges[e].1])
                    .ok_or(Error::Overflow)?;
            }
            num_paths[v] = total;
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
            out: vec![Vec::new()],
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
        if sum >= self.total() {
            return None;
        }
        let mut rest = sum;
        let mut v = self.source;
        // (Room for most paths at once: growing from empty took 5 reallocations a path
        // on chase 250000's 16 568, a quarter of the report's time.)
        let mut path = Vec::with_capacity(64);
        while v != self.sink {
            // The out-edge with the largest value not above `rest` that still leads to the
            // sink: values ascend along `out[v]`.
            let e = *self.out[v]
                .iter()
                .rev()
                .find(|&&e| self.val[e] <= rest && self.num_paths[self.edges[e].1] > 0)?;
            rest -= self.val[e];
            path.push(e);
            v = self.edges[e].1;
        }
        (rest == 0).then_some(path)
    }

    /// Ball and Larus' increments: with the virtual edge sink->source forced into a maximum
    /// spanning tree of the undirected graph weighted by `weights` (one per edge, e.g. an
    /// estimated or measured edge frequency), tree edges get increment 0 and each chord the
    /// value that keeps every complete path's sum unchanged. Returned as two's-complement.
    pub fn increments(&self, weights: &[u64]) -> Vec<u128> {
        let n = self.num_paths.len();
        let mut order: Vec<usize> = (0..self.edges.len()).collect();
        order.sort_by_key(|&e| std::cmp::Reverse(weights.get(e).copied().unwrap_or(0)));
        let mut uf = UnionFind::<usize>::new(n);
        uf.union(self.sink, self.source);
        // Tree adjacency: (neighbour, value to add going there).
        let mut adj: Vec<Vec<(usize, u128)>> = vec![Vec::new(); n];
        adj[self.sink].push((self.source, 0));
        adj[self.source].push((self.sink, 0));
        let mut in_tree = vec![false; self.edges.len()];
        for e in order {
            let (a, b) = self.edges[e];
            if uf.union(a, b) {
                in_tree[e] = true;
                adj[a].push((b, self.val[e]));
                adj[b].push((a, self.val[e].wrapping_neg()));
            }
        }
        // Potentials: phi(b) = phi(a) + val(a->b) along tree edges.
        let mut phi: Vec<Option<u128>> = vec![None; n];
        for root in 0..n {
            if phi[root].is_some() {
                continue;
            }
            phi[root] = Some(0);
            let mut stack = vec![root];
            while let Some(a) = stack.pop() {
                let pa = phi[a].unwrap_or(0);
                for &(b, d) in &adj[a] {
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

    #[test]
    fn cycle_is_rejected() {
        let mut d = Dag::new(3, 0, 2);
        d.add_edge(0, 1);
        d.add_edge(1, 0);
        d.add_edge(1, 2);
        assert!(matches!(Numbering::new(&d), Err(Error::Cyclic(_))));
    }
}

//! Items grouped by node in one array (compressed sparse rows).

/// Items per node in one array: node `v`'s are `items[start[v]..start[v + 1]]`, in the
/// order given. (A vector per node cost an allocation per node, the most frequent one of
/// instrumenting a function.)
#[derive(Clone, Debug, Default)]
pub(crate) struct Adjacency<T> {
    start: Vec<usize>,
    items: Vec<T>,
}

impl<T: Copy + Default> Adjacency<T> {
    /// No nodes.
    pub(crate) const EMPTY: Adjacency<T> = Adjacency {
        start: Vec::new(),
        items: Vec::new(),
    };

    /// The `(node, item)` pairs of `pairs` (nodes below `nodes`), grouped by node.
    pub(crate) fn new(
        nodes: usize,
        pairs: impl Iterator<Item = (usize, T)> + Clone,
    ) -> Adjacency<T> {
        let mut start = vec![0usize; nodes + 1];
        for (v, _) in pairs.clone() {
            start[v + 1] += 1;
        }
        for v in 0..nodes {
            start[v + 1] += start[v];
        }
        let mut next = start.clone();
        let mut items = vec![T::default(); start[nodes]];
        for (v, item) in pairs {
            items[next[v]] = item;
            next[v] += 1;
        }
        Adjacency { start, items }
    }

    /// Node `v`'s items (none for a node out of range).
    pub(crate) fn of(&self, v: usize) -> &[T] {
        match (self.start.get(v), self.start.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.items[a..b],
            _ => &[],
        }
    }

    /// Node `v`'s items, to reorder.
    pub(crate) fn of_mut(&mut self, v: usize) -> &mut [T] {
        &mut self.items[self.start[v]..self.start[v + 1]]
    }
}

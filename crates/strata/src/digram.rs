//! SEQUITUR's digram index: an open-addressing map from a digram (two 31-bit symbol
//! codes) to the node where it starts, probed linearly, deleting by backward shift (no
//! tombstones, so a long run's churn of digrams never slows the probes).
//!
//! Every symbol the grammar takes probes it at least once, and a repeat rewrites several
//! digrams, so the index is the grammar's hottest structure. A general hash map hashes
//! the key through a seeded hasher and matches control bytes first; here the key is two
//! small integers, one multiplication spreads it, and a probe compares the key directly in
//! a 12-byte slot.

/// A slot: the digram's two codes and its node; `a == EMPTY` marks a free slot (no code
/// reaches it: codes are below 2^31 | 2^30).
#[derive(Clone, Copy, Debug)]
struct Slot {
    a: u32,
    b: u32,
    node: u32,
}

const EMPTY: u32 = u32::MAX;

const FREE: Slot = Slot {
    a: EMPTY,
    b: EMPTY,
    node: EMPTY,
};

/// Slots of a new index (a power of two).
const INITIAL: usize = 64;

/// The digram index: (first code, second code) -> first node.
#[derive(Clone, Debug)]
pub(crate) struct DigramIndex {
    slots: Vec<Slot>,
    len: usize,
    /// `64 - log2(slots.len())`: a hash's top bits pick the home slot.
    shift: u32,
}

impl Default for DigramIndex {
    fn default() -> Self {
        DigramIndex {
            slots: vec![FREE; INITIAL],
            len: 0,
            shift: 64 - INITIAL.trailing_zeros(),
        }
    }
}

impl DigramIndex {
    /// The home slot of a key (Fibonacci hashing: the product's top bits).
    #[inline]
    fn home(&self, a: u32, b: u32) -> usize {
        let k = u64::from(a) << 32 | u64::from(b);
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot holding `[a, b]`, or the free slot where it would go.
    #[inline]
    fn find(&self, [a, b]: [u32; 2]) -> (usize, bool) {
        debug_assert!(a != EMPTY, "a digram code reached the free marker");
        let mask = self.mask();
        let mut i = self.home(a, b);
        loop {
            let s = self.slots[i];
            if s.a == a && s.b == b {
                return (i, true);
            }
            if s.a == EMPTY {
                return (i, false);
            }
            i = (i + 1) & mask;
        }
    }

    /// The node where digram `key` starts, if indexed.
    pub(crate) fn get(&self, key: [u32; 2]) -> Option<u32> {
        let (i, found) = self.find(key);
        found.then(|| self.slots[i].node)
    }

    /// Indexes `key` at `node`, replacing what it was at.
    #[inline]
    pub(crate) fn insert(&mut self, key: [u32; 2], node: u32) {
        let (i, found) = self.find(key);
        if found {
            self.slots[i].node = node;
        } else {
            self.fill(i, key, node);
        }
    }

    /// The node `key` is indexed at; if it is not, indexes it at `node` and returns `None`.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, key: [u32; 2], node: u32) -> Option<u32> {
        let (i, found) = self.find(key);
        if found {
            return Some(self.slots[i].node);
        }
        self.fill(i, key, node);
        None
    }

    /// Puts `key` into the free slot `i` (its probe's end), growing past half full.
    #[inline]
    fn fill(&mut self, i: usize, [a, b]: [u32; 2], node: u32) {
        self.slots[i] = Slot { a, b, node };
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
    }

    #[cold]
    fn grow(&mut self) {
        let doubled = vec![FREE; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        self.shift -= 1;
        let mask = self.mask();
        for s in old.into_iter().filter(|s| s.a != EMPTY) {
            let mut i = self.home(s.a, s.b);
            while self.slots[i].a != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// Removes `key` if it is indexed at `node` (an occurrence elsewhere stays).
    #[inline]
    pub(crate) fn remove_at(&mut self, key: [u32; 2], node: u32) {
        let (mut hole, found) = self.find(key);
        if !found || self.slots[hole].node != node {
            return;
        }
        self.len -= 1;
        // Backward shift: pull later members of the probe run into the hole unless their
        // home lies cyclically after the hole (they would become unreachable).
        let mask = self.mask();
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s.a == EMPTY {
                break;
            }
            let home = self.home(s.a, s.b);
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = s;
                hole = j;
            }
        }
        self.slots[hole] = FREE;
    }

    /// Digrams indexed.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// An operation on the index and on the reference map.
    #[derive(Clone, Debug)]
    enum Op {
        Insert([u32; 2], u32),
        GetOrInsert([u32; 2], u32),
        RemoveAt([u32; 2], u32),
    }

    /// Keys from a small space (so operations collide, runs form and removals hit), some
    /// with codes past the rule bit.
    fn key() -> impl Strategy<Value = [u32; 2]> {
        let code = prop_oneof![0u32..24, (0u32..8).prop_map(|r| r | 1 << 31)];
        [code.clone(), code]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (key(), 0u32..4).prop_map(|(k, n)| Op::Insert(k, n)),
            (key(), 0u32..4).prop_map(|(k, n)| Op::GetOrInsert(k, n)),
            (key(), 0u32..4).prop_map(|(k, n)| Op::RemoveAt(k, n)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// After every operation the index answers every key as a `HashMap` does.
        #[test]
        fn agrees_with_a_hash_map(ops in proptest::collection::vec(op(), 0..600)) {
            let mut index = DigramIndex::default();
            let mut map: HashMap<[u32; 2], u32> = HashMap::new();
            for op in ops {
                match op.clone() {
                    Op::Insert(k, n) => {
                        index.insert(k, n);
                        map.insert(k, n);
                    }
                    Op::GetOrInsert(k, n) => {
                        let want = map.get(&k).copied();
                        map.entry(k).or_insert(n);
                        prop_assert_eq!(index.get_or_insert(k, n), want);
                    }
                    Op::RemoveAt(k, n) => {
                        if map.get(&k) == Some(&n) {
                            map.remove(&k);
                        }
                        index.remove_at(k, n);
                    }
                }
                let k = match op { Op::Insert(k, _) | Op::GetOrInsert(k, _) | Op::RemoveAt(k, _) => k };
                prop_assert_eq!(index.get(k), map.get(&k).copied());
                prop_assert_eq!(index.len(), map.len());
            }
            let codes = || (0u32..24).chain((0..8).map(|r| r | 1 << 31));
            for a in codes() {
                for b in codes() {
                    prop_assert_eq!(index.get([a, b]), map.get(&[a, b]).copied());
                }
            }
        }
    }
}

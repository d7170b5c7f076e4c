//! Space-Saving (Metwally, Agrawal, El Abbadi 2005) with an indexed min-heap: the
//! deterministic anchor the hotlist is benchmarked against.
//!
//! m counters; a monitored key's counter is incremented, an unmonitored key replaces the
//! key of the smallest counter and inherits its count plus one (recording the inherited
//! part as the error). Counts never underestimate; the overestimate is at most the
//! minimum counter, at most n/m after n events.

use std::collections::HashMap;
use std::hash::Hash;
use std::mem::size_of;

use crate::fasthash::{hash_table_bytes, FastBuild};
use crate::HotlistError;

#[derive(Clone, Debug)]
struct Slot<K> {
    key: K,
    count: u64,
    error: u64,
    heap_pos: u32,
}

/// A Space-Saving summary of at most m counters.
#[derive(Clone, Debug)]
pub struct SpaceSaving<K> {
    m: usize,
    slots: Vec<Slot<K>>,
    /// Min-heap of slot ids by count.
    heap: Vec<u32>,
    map: HashMap<K, u32, FastBuild>,
}

impl<K: Hash + Eq + Clone> SpaceSaving<K> {
    /// A summary with `m` counters (1 ..= 2^24).
    pub fn new(m: usize) -> Result<Self, HotlistError> {
        if m == 0 {
            return Err(HotlistError::ZeroCapacity);
        }
        if m > crate::MAX_CAPACITY {
            return Err(HotlistError::CapacityTooLarge(m));
        }
        Ok(SpaceSaving {
            m,
            slots: Vec::with_capacity(m),
            heap: Vec::with_capacity(m),
            map: HashMap::with_capacity_and_hasher(m, FastBuild::default()),
        })
    }

    /// Counts one occurrence of `key`.
    #[inline]
    pub fn update(&mut self, key: K) {
        if let Some(&s) = self.map.get(&key) {
            let slot = &mut self.slots[s as usize];
            slot.count += 1;
            let pos = slot.heap_pos as usize;
            self.sift_down(pos);
        } else if self.slots.len() < self.m {
            let s = self.slots.len() as u32;
            let pos = self.heap.len();
            self.map.insert(key.clone(), s);
            self.slots.push(Slot {
                key,
                count: 1,
                error: 0,
                heap_pos: pos as u32,
            });
            self.heap.push(s);
            self.sift_up(pos);
        } else {
            let s = self.heap[0];
            let slot = &mut self.slots[s as usize];
            self.map.remove(&slot.key);
            self.map.insert(key.clone(), s);
            slot.key = key;
            slot.error = slot.count;
            slot.count += 1;
            self.sift_down(0);
        }
    }

    #[inline]
    fn count_at(&self, pos: usize) -> u64 {
        self.slots[self.heap[pos] as usize].count
    }

    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.slots[self.heap[a] as usize].heap_pos = a as u32;
        self.slots[self.heap[b] as usize].heap_pos = b as u32;
    }

    fn sift_down(&mut self, mut pos: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * pos + 1;
            if l >= n {
                return;
            }
            let r = l + 1;
            let c = if r < n && self.count_at(r) < self.count_at(l) {
                r
            } else {
                l
            };
            if self.count_at(c) >= self.count_at(pos) {
                return;
            }
            self.swap(pos, c);
            pos = c;
        }
    }

    fn sift_up(&mut self, mut pos: usize) {
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if self.count_at(parent) <= self.count_at(pos) {
                return;
            }
            self.swap(pos, parent);
            pos = parent;
        }
    }

    /// The estimated count of `key` (an overestimate by at most its error), 0 if not
    /// monitored.
    pub fn estimate(&self, key: &K) -> u64 {
        self.map
            .get(key)
            .map_or(0, |&s| self.slots[s as usize].count)
    }

    /// The `k` monitored keys with the largest counts: (key, count, error).
    pub fn top(&self, k: usize) -> Vec<(K, u64, u64)> {
        let mut v: Vec<_> = self
            .slots
            .iter()
            .map(|s| (s.key.clone(), s.count, s.error))
            .collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        v.truncate(k);
        v
    }

    /// Number of counters m.
    pub fn capacity(&self) -> usize {
        self.m
    }

    /// Estimated bytes for `m` counters of key type `K` (struct, slots, heap, index).
    pub fn bytes_for(m: usize) -> usize {
        size_of::<Self>()
            + m * (size_of::<Slot<K>>() + size_of::<u32>())
            + hash_table_bytes(m, size_of::<(K, u32)>())
    }

    /// Estimated bytes of this summary.
    pub fn memory_bytes(&self) -> usize {
        Self::bytes_for(self.m)
    }
}

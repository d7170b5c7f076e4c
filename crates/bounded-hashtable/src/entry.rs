//! The entry API: look a key up once, then read, update or insert it.

use std::hash::{BuildHasher, Hash};

use crate::stats::Counts;
use crate::table::BoundedHashTable;

/// A view into one key's slot, from [`BoundedHashTable::entry`].
pub enum Entry<'a, K, V, S> {
    /// The key is present; the lookup was counted as an access.
    Occupied(OccupiedEntry<'a, K, V, S>),
    /// The key is absent; inserting counts the access.
    Vacant(VacantEntry<'a, K, V, S>),
}

/// A present key, from [`Entry::Occupied`].
pub struct OccupiedEntry<'a, K, V, S> {
    table: &'a mut BoundedHashTable<K, V, S>,
    idx: usize,
}

/// An absent key, from [`Entry::Vacant`].
pub struct VacantEntry<'a, K, V, S> {
    table: &'a mut BoundedHashTable<K, V, S>,
    key: K,
    hash: u64,
}

impl<K: Hash + Eq, V, S: BuildHasher> BoundedHashTable<K, V, S> {
    /// The entry of `key`. A present key's lookup counts one access (and may run a pass); an
    /// absent key's access is counted when it is inserted.
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V, S> {
        let hash = self.hash_of(&key);
        let b = self.bucket_for(hash);
        match self.hit(b, &key) {
            Some((idx, _)) => Entry::Occupied(OccupiedEntry { table: self, idx }),
            None => Entry::Vacant(VacantEntry {
                table: self,
                key,
                hash,
            }),
        }
    }
}

impl<'a, K: Hash + Eq, V, S: BuildHasher> Entry<'a, K, V, S> {
    /// The key.
    pub fn key(&self) -> &K {
        match self {
            Entry::Occupied(e) => e.key(),
            Entry::Vacant(e) => e.key(),
        }
    }

    /// The value, inserting `default` if absent.
    pub fn or_insert(self, default: V) -> &'a mut V {
        self.or_insert_with(|| default)
    }

    /// The value, inserting `make()` if absent.
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(make()),
        }
    }

    /// The value, inserting `make(&key)` if absent.
    pub fn or_insert_with_key(self, make: impl FnOnce(&K) -> V) -> &'a mut V {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let value = make(&e.key);
                e.insert(value)
            }
        }
    }

    /// The value, inserting `V::default()` if absent.
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    /// Calls `f` on the value if present.
    pub fn and_modify(mut self, f: impl FnOnce(&mut V)) -> Self {
        if let Entry::Occupied(e) = &mut self {
            f(e.get_mut());
        }
        self
    }
}

impl<'a, K: Hash + Eq, V, S: BuildHasher> OccupiedEntry<'a, K, V, S> {
    /// The stored key.
    pub fn key(&self) -> &K {
        &self.table.node(self.idx).key
    }

    /// The value.
    pub fn get(&self) -> &V {
        &self.table.node(self.idx).value
    }

    /// The value, mutably.
    pub fn get_mut(&mut self) -> &mut V {
        &mut self.table.node_mut(self.idx).value
    }

    /// The value, mutably, for the table's lifetime.
    pub fn into_mut(self) -> &'a mut V {
        &mut self.table.node_mut(self.idx).value
    }

    /// The access counts (including this lookup).
    pub fn counts(&self) -> Counts {
        self.table.counts_at(self.idx)
    }

    /// Replaces the value, returning the old one.
    pub fn insert(&mut self, value: V) -> V {
        std::mem::replace(self.get_mut(), value)
    }

    /// Removes the entry, returning its value.
    pub fn remove(self) -> V {
        self.remove_entry().1
    }

    /// Removes the entry, returning its key and value.
    pub fn remove_entry(self) -> (K, V) {
        let b = self.table.bucket_of(self.key());
        self.table.remove_at(b, self.idx)
    }
}

impl<'a, K: Hash + Eq, V, S: BuildHasher> VacantEntry<'a, K, V, S> {
    /// The key that would be inserted.
    pub fn key(&self) -> &K {
        &self.key
    }

    /// Gives the key back.
    pub fn into_key(self) -> K {
        self.key
    }

    /// Inserts `value` (counts of 1, appended to the chain's tail, one access counted).
    pub fn insert(self, value: V) -> &'a mut V {
        let idx = self.table.insert_new(
            self.hash,
            self.key,
            value,
            Counts {
                total: 1,
                period: 1,
            },
        );
        let idx = self.table.count_new_access(1, idx);
        &mut self.table.node_mut(idx).value
    }
}

//! The spec's indexing table 205: (process id, pc, instruction kind) -> hotlist.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use serde::{Deserialize, Serialize};

use crate::coin::PcgCoins;
use crate::fasthash::FastBuild;
use crate::{Config, Hotlist, HotlistError};

/// The kind of instruction a hotlist profiles (a load's value and a store's value at the
/// same pc are different profiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum InsnKind {
    /// A load: the value loaded.
    Load,
    /// A store: the value stored.
    Store,
    /// An atomic read-modify-write: the value read.
    Atomic,
    /// A call: e.g. (call site, argument) tuples.
    Call,
    /// A return: e.g. returned values.
    Return,
    /// A register-writing instruction: the destination value.
    Register,
    /// A latency (of a load or store) rather than a value.
    Latency,
}

/// The key of the indexing table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct IndexKey {
    /// Process identifier.
    pub pid: u32,
    /// Address of the instruction.
    pub pc: u64,
    /// What is profiled there.
    pub kind: InsnKind,
}

/// One hotlist per [`IndexKey`], created on the key's first value with a common
/// configuration and a seed derived from the table's seed and the key (so runs repeat).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(
    try_from = "IndexTableRepr<V>",
    into = "IndexTableRepr<V>",
    bound(
        serialize = "V: Serialize + Clone",
        deserialize = "V: Deserialize<'de> + Hash + Eq + Clone"
    )
)]
pub struct IndexTable<V> {
    config: Config,
    seed: u64,
    lists: HashMap<IndexKey, Hotlist<V>, FastBuild>,
}

/// Serialized form: entries as a list sorted by key (JSON maps need string keys).
#[derive(Serialize, Deserialize)]
#[serde(bound(
    serialize = "V: Serialize",
    deserialize = "V: Deserialize<'de> + Hash + Eq + Clone"
))]
struct IndexTableRepr<V> {
    config: Config,
    seed: u64,
    entries: Vec<(IndexKey, Hotlist<V>)>,
}

impl<V: Clone> From<IndexTable<V>> for IndexTableRepr<V> {
    fn from(t: IndexTable<V>) -> Self {
        let mut entries: Vec<_> = t.lists.into_iter().collect();
        entries.sort_by_key(|e| e.0);
        IndexTableRepr {
            config: t.config,
            seed: t.seed,
            entries,
        }
    }
}

impl<V> TryFrom<IndexTableRepr<V>> for IndexTable<V> {
    type Error = HotlistError;

    fn try_from(r: IndexTableRepr<V>) -> Result<Self, HotlistError> {
        r.config.validate()?;
        let n = r.entries.len();
        let lists: HashMap<_, _, FastBuild> = r.entries.into_iter().collect();
        if lists.len() != n {
            return Err(HotlistError::BadState("a key appears twice".into()));
        }
        Ok(IndexTable {
            config: r.config,
            seed: r.seed,
            lists,
        })
    }
}

impl<V: Hash + Eq + Clone> IndexTable<V> {
    /// An empty table whose hotlists will use `config`; `seed` seeds their coins.
    pub fn new(config: Config, seed: u64) -> Result<Self, HotlistError> {
        config.validate()?;
        Ok(IndexTable {
            config,
            seed,
            lists: HashMap::default(),
        })
    }

    /// Feeds `value` to the hotlist of `key`, creating it if needed.
    #[inline]
    pub fn update(&mut self, key: IndexKey, value: V) {
        let (config, seed) = (self.config, self.seed);
        self.lists
            .entry(key)
            .or_insert_with(|| {
                let s = seed ^ FastBuild::default().hash_one(key);
                Hotlist::from_valid(config, PcgCoins::new(s))
            })
            .update(value);
    }

    /// The hotlist of `key`, if it received a value.
    pub fn get(&self, key: &IndexKey) -> Option<&Hotlist<V>> {
        self.lists.get(key)
    }

    /// All (key, hotlist) pairs, sorted by key.
    pub fn entries(&self) -> Vec<(&IndexKey, &Hotlist<V>)> {
        let mut v: Vec<_> = self.lists.iter().collect();
        v.sort_by_key(|e| *e.0);
        v
    }

    /// Number of hotlists.
    pub fn len(&self) -> usize {
        self.lists.len()
    }

    /// Whether no hotlist exists yet.
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Merges another table (say, the profile of another run) key by key.
    pub fn merge(&mut self, other: &IndexTable<V>) {
        for (k, h) in &other.lists {
            match self.lists.get_mut(k) {
                Some(mine) => mine.merge(h),
                None => {
                    self.lists.insert(*k, h.clone());
                }
            }
        }
    }
}

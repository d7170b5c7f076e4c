//! A small, fast, non-cryptographic hasher for the hotlist's value index.
//!
//! std's SipHash costs more than the rest of a hotlist update. Hotlist values come from the
//! profiled program, not from an adversary, so a multiply-rotate hash (the FxHash scheme)
//! is enough; a colliding stream only slows lookups, it cannot make them wrong.

use std::hash::{BuildHasherDefault, Hasher};

const K: u64 = 0x517c_c1b7_2722_0a95;

/// FxHash-style hasher: `h = (rotl(h, 5) ^ word) * K` per word.
#[derive(Default, Clone, Copy, Debug)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // Fold the high bits down: hashbrown takes its bucket index from the low bits and
        // a tag from the top 7 bits.
        self.hash ^ (self.hash >> 29)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i.into());
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(i.into());
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i.into());
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

/// `BuildHasher` for [`FastHasher`].
pub type FastBuild = BuildHasherDefault<FastHasher>;

/// Estimated bytes of a hashbrown (std `HashMap`) table with `capacity` usable slots of
/// `slot` bytes each: buckets are a power of two at most 7/8 full, plus one control byte
/// per bucket and one 16-byte control group.
pub fn hash_table_bytes(capacity: usize, slot: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = if capacity < 8 {
        if capacity < 4 {
            4
        } else {
            8
        }
    } else {
        (capacity.saturating_mul(8) / 7).next_power_of_two()
    };
    buckets * (slot + 1) + 16
}

//! The guest address space inside the flat memory span: the program break and anonymous
//! mappings.
//!
//! ```text
//! base .. image .. [brk_start, brk) ..free.. [mmap_low, mmap_top) [stack] end
//! ```
//! The break grows up from the page after the image; mappings are handed out top-down below
//! the stack, first fit from a free list, so unmapped space is reused. The two meet in the
//! middle: when they would collide, `brk` fails as Linux's does (returns the old break) and
//! `mmap` fails with `ENOMEM`, which is how the memory cap shows to the guest.
//!
//! Memory handed out must read as zero. The span starts zeroed, so only addresses that were
//! handed out before (below the break's high-water mark or above the lowest mapping ever
//! made) are cleared, which keeps fresh allocations from touching host pages.

use std::collections::BTreeMap;

use super::errno::{Errno, EEXIST, EFAULT, EINVAL, ENOMEM};
use crate::memory::Memory;

/// Guest page size (`AT_PAGESZ`).
pub(crate) const PAGE: u64 = 4096;

/// `x` rounded up to a page, or `None` on overflow.
pub(crate) fn page_up(x: u64) -> Option<u64> {
    Some(x.checked_add(PAGE - 1)? & !(PAGE - 1))
}

/// `x` rounded down to a page.
pub(crate) fn page_down(x: u64) -> u64 {
    x & !(PAGE - 1)
}

/// A set of disjoint, non-adjacent half-open ranges, as start -> end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RangeSet(BTreeMap<u64, u64>);

impl RangeSet {
    /// Adds `[lo, hi)`, merging with overlapping and adjacent ranges.
    pub(crate) fn insert(&mut self, mut lo: u64, mut hi: u64) {
        if lo >= hi {
            return;
        }
        let touching: Vec<(u64, u64)> = self
            .0
            .range(..=hi)
            .rev()
            .take_while(|(_, &e)| e >= lo)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in touching {
            self.0.remove(&s);
            lo = lo.min(s);
            hi = hi.max(e);
        }
        self.0.insert(lo, hi);
    }

    /// Removes `[lo, hi)`, splitting ranges that straddle it.
    pub(crate) fn remove(&mut self, lo: u64, hi: u64) {
        if lo >= hi {
            return;
        }
        let overlapping: Vec<(u64, u64)> = self
            .0
            .range(..hi)
            .rev()
            .take_while(|(_, &e)| e > lo)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in overlapping {
            self.0.remove(&s);
            if s < lo {
                self.0.insert(s, lo);
            }
            if e > hi {
                self.0.insert(hi, e);
            }
        }
    }

    /// True if all of `[lo, hi)` is in the set.
    pub(crate) fn contains(&self, lo: u64, hi: u64) -> bool {
        lo >= hi || matches!(self.0.range(..=lo).next_back(), Some((_, &e)) if e >= hi)
    }

    /// True if any of `[lo, hi)` is in the set.
    pub(crate) fn intersects(&self, lo: u64, hi: u64) -> bool {
        lo < hi && matches!(self.0.range(..hi).next_back(), Some((_, &e)) if e > lo)
    }

    fn first(&self) -> Option<(u64, u64)> {
        self.0.first_key_value().map(|(&s, &e)| (s, e))
    }

    fn iter_rev(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().rev().map(|(&s, &e)| (s, e))
    }
}

/// Program break and anonymous mappings.
#[derive(Clone, Debug)]
pub(crate) struct AddressSpace {
    brk_start: u64,
    brk: u64,
    /// Lowest address of the mapping area; everything in `[mmap_low, mmap_top)` not in
    /// `free` is mapped. Invariant: no free range starts at `mmap_low`.
    mmap_low: u64,
    mmap_top: u64,
    free: RangeSet,
    /// Highest page end the break ever reached.
    brk_high: u64,
    /// Lowest address ever mapped.
    mmap_lowest: u64,
}

impl AddressSpace {
    /// An empty space: the break starts at `brk_start` (page aligned by the caller) and
    /// mappings live below `mmap_top`.
    pub(crate) fn new(brk_start: u64, mmap_top: u64) -> AddressSpace {
        AddressSpace {
            brk_start,
            brk: brk_start,
            mmap_low: mmap_top,
            mmap_top,
            free: RangeSet::default(),
            brk_high: brk_start,
            mmap_lowest: mmap_top,
        }
    }

    /// The current program break.
    pub(crate) fn brk_value(&self) -> u64 {
        self.brk
    }

    /// Zeroes the part of `[lo, hi)` that may have been handed out before.
    fn clear_reused(&self, mem: &mut Memory, lo: u64, hi: u64) -> Result<(), Errno> {
        for (a, b) in [(lo, hi.min(self.brk_high)), (lo.max(self.mmap_lowest), hi)] {
            if a < b {
                mem.slice_mut(a, b - a)?.fill(0);
            }
        }
        Ok(())
    }

    /// `brk(2)`: returns the new break, or the old one if `addr` is 0, below the start, or
    /// would run into the mappings.
    pub(crate) fn brk(&mut self, mem: &mut Memory, addr: u64) -> u64 {
        if addr < self.brk_start {
            return self.brk;
        }
        let (Some(new_end), Some(old_end)) = (page_up(addr), page_up(self.brk)) else {
            return self.brk;
        };
        if new_end > self.mmap_low {
            return self.brk;
        }
        if new_end > old_end && self.clear_reused(mem, old_end, new_end).is_err() {
            return self.brk;
        }
        self.brk_high = self.brk_high.max(new_end);
        self.brk = addr;
        addr
    }

    /// Bytes neither the break nor a mapping holds (for `sysinfo`).
    pub(crate) fn free_bytes(&self) -> u64 {
        let gap = self.mmap_low.saturating_sub(self.brk_end());
        gap + self.free.0.iter().map(|(s, e)| e - s).sum::<u64>()
    }

    fn brk_end(&self) -> u64 {
        page_up(self.brk).unwrap_or(u64::MAX)
    }

    /// Takes `[lo, hi)` (inside `[brk_end, mmap_top)`) out of the free space and zeroes it.
    fn take(&mut self, mem: &mut Memory, lo: u64, hi: u64) -> Result<(), Errno> {
        if lo < self.mmap_low {
            self.free.insert(hi.min(self.mmap_low), self.mmap_low);
            self.mmap_low = lo;
        }
        self.free.remove(lo, hi);
        self.clear_reused(mem, lo, hi)?;
        self.mmap_lowest = self.mmap_lowest.min(lo);
        self.normalize();
        Ok(())
    }

    /// Restores the invariant that no free range starts at `mmap_low`.
    fn normalize(&mut self) {
        while let Some((s, e)) = self.free.first() {
            if s != self.mmap_low {
                break;
            }
            self.free.remove(s, e);
            self.mmap_low = e;
        }
    }

    /// Maps `len` bytes (page multiple) anywhere: the highest free range that fits, else
    /// fresh space below the lowest mapping.
    pub(crate) fn map_anywhere(&mut self, mem: &mut Memory, len: u64) -> Result<u64, Errno> {
        let fit = self.free.iter_rev().find(|&(s, e)| e - s >= len);
        let lo = match fit {
            Some((_, e)) => e - len,
            None => match self.mmap_low.checked_sub(len) {
                Some(lo) if lo >= self.brk_end() => lo,
                _ => return Err(ENOMEM),
            },
        };
        self.take(mem, lo, lo + len)?;
        Ok(lo)
    }

    /// Maps exactly `[lo, hi)` (page aligned), replacing what is there unless `noreplace`.
    pub(crate) fn map_fixed(
        &mut self,
        mem: &mut Memory,
        lo: u64,
        hi: u64,
        noreplace: bool,
    ) -> Result<(), Errno> {
        if lo < self.brk_end() || hi > self.mmap_top {
            return Err(ENOMEM);
        }
        let (a, b) = (lo.max(self.mmap_low), hi);
        if noreplace && a < b && !self.free.contains(a, b) {
            return Err(EEXIST);
        }
        self.take(mem, lo, hi)
    }

    /// `munmap(2)` of `[lo, hi)`: the part inside the mapping area becomes free. Unmapping
    /// anything else (the image, the break) is accepted and ignored.
    pub(crate) fn unmap(&mut self, lo: u64, hi: u64) {
        let (a, b) = (lo.max(self.mmap_low), hi.min(self.mmap_top));
        self.free.insert(a, b);
        self.normalize();
    }

    /// True if all of `[lo, hi)` is currently mapped.
    pub(crate) fn is_mapped(&self, lo: u64, hi: u64) -> bool {
        lo >= self.mmap_low && hi <= self.mmap_top && lo < hi && !self.free.intersects(lo, hi)
    }

    /// `mremap(2)` without `MREMAP_FIXED`; sizes are page multiples, `old` page aligned.
    pub(crate) fn remap(
        &mut self,
        mem: &mut Memory,
        old: u64,
        old_len: u64,
        new_len: u64,
        may_move: bool,
    ) -> Result<u64, Errno> {
        if old_len == 0 || new_len == 0 {
            return Err(EINVAL);
        }
        let old_end = old.checked_add(old_len).ok_or(EFAULT)?;
        if !self.is_mapped(old, old_end) {
            return Err(EFAULT);
        }
        if new_len <= old_len {
            self.unmap(old + new_len, old_end);
            return Ok(old);
        }
        let new_end = old.checked_add(new_len).ok_or(ENOMEM)?;
        if new_end <= self.mmap_top && self.free.contains(old_end, new_end) {
            self.take(mem, old_end, new_end)?;
            return Ok(old);
        }
        if !may_move {
            return Err(ENOMEM);
        }
        let contents = mem.slice(old, old_len)?.to_vec();
        let new = self.map_anywhere(mem, new_len)?;
        mem.write_bytes(new, &contents)?;
        self.unmap(old, old_end);
        Ok(new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: u64 = 0x10_0000;

    fn setup() -> (Memory, AddressSpace) {
        (
            Memory::new(0, TOP + 0x1000).unwrap(),
            AddressSpace::new(0x1000, TOP),
        )
    }

    #[test]
    fn range_set_merges_and_splits() {
        let mut s = RangeSet::default();
        s.insert(10, 20);
        s.insert(30, 40);
        s.insert(20, 30);
        assert_eq!(s.0.iter().collect::<Vec<_>>(), vec![(&10, &40)]);
        s.remove(15, 25);
        assert_eq!(s.0.iter().collect::<Vec<_>>(), vec![(&10, &15), (&25, &40)]);
        assert!(s.contains(25, 40) && !s.contains(14, 26));
        assert!(s.intersects(14, 26) && !s.intersects(15, 25));
        s.insert(5, 50);
        assert_eq!(s.0.iter().collect::<Vec<_>>(), vec![(&5, &50)]);
    }

    #[test]
    fn brk_grows_shrinks_and_regrows_zeroed() {
        let (mut m, mut a) = setup();
        assert_eq!(a.brk(&mut m, 0), 0x1000);
        assert_eq!(a.brk(&mut m, 0x3800), 0x3800);
        m.write_bytes(0x1ff0, &[0xaa; 0x1810]).unwrap();
        assert_eq!(a.brk(&mut m, 0x1800), 0x1800);
        // The page holding the new break stays; pages above it are gone.
        assert_eq!(a.brk(&mut m, 0x3800), 0x3800);
        assert_eq!(m.load_u::<1>(0x1fff).unwrap(), 0xaa);
        assert_eq!(m.load_u::<8>(0x2000).unwrap(), 0);
        assert_eq!(m.load_u::<8>(0x37f8).unwrap(), 0);
        // Below the start and past the mappings: fails, returning the old break.
        assert_eq!(a.brk(&mut m, 0x10), 0x3800);
        assert_eq!(a.brk(&mut m, TOP + 1), 0x3800);
        assert_eq!(a.brk(&mut m, u64::MAX), 0x3800);
    }

    #[test]
    fn mmap_is_top_down_and_reuses_freed_space_zeroed() {
        let (mut m, mut a) = setup();
        let x = a.map_anywhere(&mut m, 0x2000).unwrap();
        let y = a.map_anywhere(&mut m, 0x1000).unwrap();
        assert_eq!((x, y), (TOP - 0x2000, TOP - 0x3000));
        m.write_bytes(x, &[1; 0x2000]).unwrap();
        a.unmap(x, x + 0x2000);
        assert!(!a.is_mapped(x, x + 0x1000) && a.is_mapped(y, y + 0x1000));
        let z = a.map_anywhere(&mut m, 0x1000).unwrap();
        assert_eq!(z, TOP - 0x1000);
        assert!(m.slice(z, 0x1000).unwrap().iter().all(|&b| b == 0));
        // Unmapping the lowest mapping gives the space back to the break.
        a.unmap(y, y + 0x1000);
        assert_eq!(a.mmap_low, TOP - 0x1000);
        assert_eq!(a.brk(&mut m, TOP - 0x1000), TOP - 0x1000);
        assert_eq!(a.map_anywhere(&mut m, 0x1000), Err(ENOMEM));
        // The break's fresh pages include the once-mapped page, zeroed.
        assert_eq!(m.load_u::<8>(x).unwrap(), 0);
    }

    #[test]
    fn mmap_fails_with_enomem_when_the_span_is_full() {
        let (mut m, mut a) = setup();
        assert_eq!(a.map_anywhere(&mut m, TOP), Err(ENOMEM));
        let big = TOP - 0x1000;
        assert_eq!(a.map_anywhere(&mut m, big).unwrap(), 0x1000);
        assert_eq!(a.brk(&mut m, 0x1001), 0x1000);
    }

    #[test]
    fn map_fixed_replaces_or_refuses() {
        let (mut m, mut a) = setup();
        let lo = TOP - 0x8000;
        a.map_fixed(&mut m, lo, lo + 0x1000, false).unwrap();
        assert!(a.is_mapped(lo, lo + 0x1000));
        assert!(!a.is_mapped(lo + 0x1000, lo + 0x2000));
        assert_eq!(a.map_fixed(&mut m, lo, lo + 0x1000, true), Err(EEXIST));
        a.map_fixed(&mut m, lo + 0x1000, lo + 0x2000, true).unwrap();
        assert_eq!(a.map_fixed(&mut m, 0, 0x1000, false), Err(ENOMEM));
        // The gap above the fixed mapping is reused first.
        assert_eq!(a.map_anywhere(&mut m, 0x1000).unwrap(), TOP - 0x1000);
    }

    #[test]
    fn mremap_grows_in_place_or_moves_with_contents() {
        let (mut m, mut a) = setup();
        let x = a.map_anywhere(&mut m, 0x1000).unwrap();
        let y = a.map_anywhere(&mut m, 0x1000).unwrap();
        m.write_bytes(y, b"payload").unwrap();
        // y cannot grow in place (x is above it): it moves.
        assert_eq!(a.remap(&mut m, y, 0x1000, 0x3000, false), Err(ENOMEM));
        let z = a.remap(&mut m, y, 0x1000, 0x3000, true).unwrap();
        assert_ne!(z, y);
        assert_eq!(m.slice(z, 7).unwrap(), b"payload");
        assert!(a.is_mapped(z, z + 0x3000) && !a.is_mapped(y, y + 0x1000));
        // Shrinking happens in place.
        assert_eq!(a.remap(&mut m, z, 0x3000, 0x1000, false).unwrap(), z);
        assert!(!a.is_mapped(z + 0x1000, z + 0x2000));
        // Now z can grow back in place, and the regrown part reads as zero.
        m.write_bytes(z + 0x1000, &[9; 8]).unwrap();
        assert_eq!(a.remap(&mut m, z, 0x1000, 0x2000, false).unwrap(), z);
        assert_eq!(m.load_u::<8>(z + 0x1000).unwrap(), 0);
        assert_eq!(
            a.remap(&mut m, x + 0x1000, 0x1000, 0x2000, true),
            Err(EFAULT)
        );
        assert_eq!(a.remap(&mut m, x, 0, 0x2000, true), Err(EINVAL));
    }
}

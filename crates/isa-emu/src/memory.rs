//! Guest memory: one flat, bounds-checked span of bytes.
//!
//! The span `[base, base + size)` is one lazily zeroed host allocation (the host kernel
//! hands out pages on first touch), so translating a guest address is a subtraction and a
//! bounds check, and the span's size is the guest's memory cap. Every access outside the
//! span is a [`MemFault`], never a host panic.
//!
//! Stores into the code range set a flag that the run loop checks at block boundaries to
//! invalidate translated blocks (self-modifying code, loaders).

use std::fmt;

use crate::Error;

/// What kind of access faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// Data load.
    Load,
    /// Data store (or atomic read-modify-write).
    Store,
    /// Instruction fetch.
    Fetch,
}

/// An access outside guest memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemFault {
    /// First byte of the access.
    pub addr: u64,
    /// Bytes accessed.
    pub size: u64,
    /// Load, store or fetch.
    pub kind: AccessKind,
}

impl fmt::Display for MemFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            AccessKind::Load => "load from",
            AccessKind::Store => "store to",
            AccessKind::Fetch => "instruction fetch from",
        };
        write!(
            f,
            "{what} unmapped address {:#x} ({} bytes)",
            self.addr, self.size
        )
    }
}

/// Guest memory.
#[derive(Clone)]
pub struct Memory {
    base: u64,
    bytes: Vec<u8>,
    code_lo: u64,
    code_hi: u64,
    code_written: bool,
}

impl fmt::Debug for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Memory")
            .field("base", &format_args!("{:#x}", self.base))
            .field("size", &self.bytes.len())
            .finish()
    }
}

impl Memory {
    /// A zeroed span of `size` bytes starting at guest address `base`.
    /// Returns `None` if the span wraps around the address space or the host cannot
    /// allocate it ([`Memory::try_new`] says which).
    pub fn new(base: u64, size: u64) -> Option<Memory> {
        Self::try_new(base, size).ok()
    }

    /// A zeroed span of `size` bytes starting at guest address `base`, or
    /// [`Error::GuestMemory`] if the span wraps around the address space or the host cannot
    /// allocate it.
    pub fn try_new(base: u64, size: u64) -> Result<Memory, Error> {
        let fail = |reason| Error::GuestMemory { size, reason };
        if base.checked_add(size).is_none() {
            return Err(fail("the span would wrap around the address space"));
        }
        let len = usize::try_from(size).map_err(|_| fail("the host's address space is smaller"))?;
        // `vec!` aborts the process when the host refuses, and a fallible zeroed allocation
        // needs unsafe code; so first reserve the same size and give it back. Untouched, it
        // costs no pages, and the zeroed allocation below then gets the same answer.
        let mut probe = Vec::<u8>::new();
        probe
            .try_reserve_exact(len)
            .map_err(|_| fail("the host refused the allocation"))?;
        // The probe must be observed: an optimiser may assume that an allocation nobody
        // uses succeeds and drop it (plain release builds did, and the zeroed allocation
        // then aborted the process).
        std::hint::black_box(&mut probe);
        Ok(Memory {
            base,
            bytes: vec![0; len],
            code_lo: 0,
            code_hi: 0,
            code_written: false,
        })
    }

    /// Moves the span out, leaving an empty one in its place.
    pub(crate) fn take(&mut self) -> Memory {
        std::mem::replace(
            self,
            Memory {
                base: 0,
                bytes: Vec::new(),
                code_lo: 0,
                code_hi: 0,
                code_written: false,
            },
        )
    }

    /// First guest address of the span.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the last guest address of the span.
    pub fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }

    /// True if `[addr, addr + len)` lies inside the span.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        self.offset(addr, len).is_some()
    }

    #[inline(always)]
    fn offset(&self, addr: u64, len: u64) -> Option<usize> {
        let off = addr.wrapping_sub(self.base);
        let end = off.checked_add(len)?;
        if end <= self.bytes.len() as u64 {
            Some(off as usize)
        } else {
            None
        }
    }

    /// Reads `N` bytes at `addr`.
    #[inline(always)]
    pub fn read<const N: usize>(&self, addr: u64) -> Result<[u8; N], MemFault> {
        // One bounds check: `get` of a fixed-size range (`off + N` cannot overflow after
        // `offset` accepted it) converts to an array without a second check.
        let bytes = self
            .offset(addr, N as u64)
            .and_then(|off| self.bytes.get(off..off + N))
            .and_then(|b| <[u8; N]>::try_from(b).ok());
        match bytes {
            Some(out) => Ok(out),
            None => Err(MemFault {
                addr,
                size: N as u64,
                kind: AccessKind::Load,
            }),
        }
    }

    /// Writes `N` bytes at `addr`.
    #[inline(always)]
    pub fn write<const N: usize>(&mut self, addr: u64, value: [u8; N]) -> Result<(), MemFault> {
        let slot = self
            .offset(addr, N as u64)
            .and_then(|off| self.bytes.get_mut(off..off + N))
            .and_then(|b| <&mut [u8; N]>::try_from(b).ok());
        match slot {
            Some(b) => {
                *b = value;
                self.note_store(addr, N as u64);
                Ok(())
            }
            None => Err(MemFault {
                addr,
                size: N as u64,
                kind: AccessKind::Store,
            }),
        }
    }

    /// Reads a little-endian value of `N` bytes, zero-extended.
    #[inline(always)]
    pub fn load_u<const N: usize>(&self, addr: u64) -> Result<u64, MemFault> {
        let b = self.read::<N>(addr)?;
        let mut wide = [0u8; 8];
        wide[..N].copy_from_slice(&b);
        Ok(u64::from_le_bytes(wide))
    }

    /// Writes the low `N` bytes of `value`, little-endian.
    #[inline(always)]
    pub fn store_u<const N: usize>(&mut self, addr: u64, value: u64) -> Result<(), MemFault> {
        let wide = value.to_le_bytes();
        let mut b = [0u8; N];
        b.copy_from_slice(&wide[..N]);
        self.write::<N>(addr, b)
    }

    /// Reads 2 bytes for an instruction fetch.
    #[inline(always)]
    pub fn fetch_u16(&self, addr: u64) -> Result<u16, MemFault> {
        self.read::<2>(addr)
            .map(u16::from_le_bytes)
            .map_err(|f| MemFault {
                kind: AccessKind::Fetch,
                ..f
            })
    }

    /// The bytes `[addr, addr + len)`.
    pub fn slice(&self, addr: u64, len: u64) -> Result<&[u8], MemFault> {
        match self.offset(addr, len) {
            Some(off) => Ok(&self.bytes[off..off + len as usize]),
            None => Err(MemFault {
                addr,
                size: len,
                kind: AccessKind::Load,
            }),
        }
    }

    /// The bytes `[addr, addr + len)`, writable.
    pub fn slice_mut(&mut self, addr: u64, len: u64) -> Result<&mut [u8], MemFault> {
        match self.offset(addr, len) {
            Some(off) => {
                self.note_store(addr, len);
                Ok(&mut self.bytes[off..off + len as usize])
            }
            None => Err(MemFault {
                addr,
                size: len,
                kind: AccessKind::Store,
            }),
        }
    }

    /// Copies `data` to `addr`.
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        self.slice_mut(addr, data.len() as u64)?
            .copy_from_slice(data);
        Ok(())
    }

    /// Reads a NUL-terminated string of at most `max` bytes (without the NUL).
    pub fn read_cstr(&self, addr: u64, max: u64) -> Result<&[u8], MemFault> {
        let off = self.offset(addr, 1).ok_or(MemFault {
            addr,
            size: 1,
            kind: AccessKind::Load,
        })?;
        let avail = &self.bytes[off..];
        let lim = avail.len().min(max as usize);
        match avail[..lim].iter().position(|&b| b == 0) {
            Some(n) => Ok(&avail[..n]),
            None => Err(MemFault {
                addr,
                size: lim as u64 + 1,
                kind: AccessKind::Load,
            }),
        }
    }

    /// Host address of the span's first byte (for compiled code: see `jit`).
    #[inline(always)]
    pub(crate) fn host_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr()
    }

    /// The range whose modification must invalidate translated code.
    #[inline(always)]
    pub(crate) fn code_range(&self) -> (u64, u64) {
        (self.code_lo, self.code_hi)
    }

    /// Sets the range whose modification must invalidate translated code.
    pub fn set_code_range(&mut self, lo: u64, hi: u64) {
        self.code_lo = lo;
        self.code_hi = hi;
    }

    /// Widens the code range to include `[lo, hi)`.
    pub fn add_code_range(&mut self, lo: u64, hi: u64) {
        if self.code_lo == self.code_hi {
            self.set_code_range(lo, hi);
        } else {
            self.code_lo = self.code_lo.min(lo);
            self.code_hi = self.code_hi.max(hi);
        }
    }

    #[inline(always)]
    fn note_store(&mut self, addr: u64, len: u64) {
        if addr < self.code_hi && addr.wrapping_add(len) > self.code_lo {
            self.code_written = true;
        }
    }

    /// True if code was written since the last [`take_code_written`](Self::take_code_written).
    #[inline(always)]
    pub fn code_written(&self) -> bool {
        self.code_written
    }

    /// True (once) if code was written since the last call.
    #[inline(always)]
    pub fn take_code_written(&mut self) -> bool {
        // Read first: the run loop asks after every block and the answer is almost always no.
        if self.code_written {
            self.code_written = false;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_stores_round_trip() {
        let mut m = Memory::new(0x1000, 0x1000).unwrap();
        m.store_u::<8>(0x1008, 0x1122_3344_5566_7788).unwrap();
        assert_eq!(m.load_u::<8>(0x1008).unwrap(), 0x1122_3344_5566_7788);
        assert_eq!(m.load_u::<1>(0x1008).unwrap(), 0x88);
        assert_eq!(m.load_u::<2>(0x100e).unwrap(), 0x1122);
    }

    #[test]
    fn out_of_range_faults() {
        let mut m = Memory::new(0x1000, 0x1000).unwrap();
        assert_eq!(
            m.load_u::<4>(0xffe),
            Err(MemFault {
                addr: 0xffe,
                size: 4,
                kind: AccessKind::Load
            })
        );
        assert!(m.load_u::<8>(0x1ff9).is_err());
        assert!(m.load_u::<8>(0x1ff8).is_ok());
        assert!(m.store_u::<1>(u64::MAX, 0).is_err());
        assert!(m.slice(0x1000, u64::MAX).is_err());
        assert!(Memory::new(u64::MAX - 4, 16).is_none());
    }

    #[test]
    fn a_span_the_host_cannot_allocate_is_an_error() {
        // 4 EiB: beyond any host's address space, so the allocation fails everywhere.
        let e = Memory::try_new(0, 1 << 62).unwrap_err();
        assert!(matches!(e, Error::GuestMemory { size, .. } if size == 1 << 62));
        assert_eq!(
            e.to_string(),
            "cannot allocate 4398046511104 MiB of guest memory: the host refused the allocation"
        );
        let wraps = Memory::try_new(u64::MAX - 4, 16).unwrap_err();
        assert!(wraps.to_string().contains("wrap around"), "{wraps}");
        assert!(Memory::new(0, 1 << 62).is_none());
    }

    #[test]
    fn stores_into_code_are_noticed() {
        let mut m = Memory::new(0, 0x100).unwrap();
        m.set_code_range(0x10, 0x20);
        m.store_u::<4>(0x0c, 1).unwrap();
        assert!(!m.take_code_written());
        m.store_u::<8>(0x0c, 1).unwrap();
        assert!(m.take_code_written());
        assert!(!m.take_code_written());
    }

    #[test]
    fn code_overlap_is_exact_for_every_size() {
        let mut m = Memory::new(0, 0x100).unwrap();
        m.set_code_range(0x40, 0x50);
        for addr in 0x30..0x60u64 {
            let check = |m: &mut Memory, n: u64| {
                let hit = addr < 0x50 && addr + n > 0x40;
                assert_eq!(m.take_code_written(), hit, "addr {addr:#x} size {n}");
            };
            m.store_u::<1>(addr, 0).unwrap();
            check(&mut m, 1);
            m.store_u::<2>(addr, 0).unwrap();
            check(&mut m, 2);
            m.store_u::<4>(addr, 0).unwrap();
            check(&mut m, 4);
            m.store_u::<8>(addr, 0).unwrap();
            check(&mut m, 8);
        }
        // An empty or inverted range never matches.
        m.set_code_range(u64::MAX, 0);
        m.store_u::<8>(0xf8, 0).unwrap();
        m.store_u::<1>(0, 0).unwrap();
        assert!(!m.take_code_written());
    }

    #[test]
    fn accesses_at_the_span_edges() {
        let mut m = Memory::new(u64::MAX - 0x10, 0x10).unwrap();
        assert!(m.load_u::<8>(u64::MAX - 0x8).is_ok());
        assert!(m.load_u::<8>(u64::MAX - 0x7).is_err());
        assert!(m.store_u::<2>(u64::MAX - 1, 0).is_err());
        assert!(m.load_u::<1>(0).is_err());
        let small = Memory::new(0x10, 4).unwrap();
        assert!(small.load_u::<8>(0x10).is_err());
        assert!(small.load_u::<4>(0x10).is_ok());
        assert!(small.load_u::<4>(0x11).is_err());
    }

    #[test]
    fn cstr_is_bounded() {
        let mut m = Memory::new(0, 16).unwrap();
        m.write_bytes(0, b"hi\0").unwrap();
        assert_eq!(m.read_cstr(0, 16).unwrap(), b"hi");
        m.write_bytes(0, &[b'x'; 16]).unwrap();
        assert!(m.read_cstr(0, 16).is_err());
    }
}

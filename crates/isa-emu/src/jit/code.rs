//! The executable buffer of compiled blocks and the call into it: the crate's only unsafe
//! code.
//!
//! The buffer is one private anonymous mapping, writable while code is appended and
//! executable (not writable) otherwise. Each appended function gets a handle, an index
//! into the list of entries the buffer handed out, so that a call can only enter the start
//! of a function [`compile`](super::compile) produced since the last clear.
//!
//! Why the call is sound rests on the compiler: its code reads and writes the 64-bit slots
//! 0..33 of the register file it is given, reads the [`MemCtx`] it is given, and reads or
//! writes guest memory only at `host + off` for `off <= limit` (8 bytes at most), which
//! [`MemCtx::new`] derives from the span's length; it saves and restores the callee-saved
//! registers it uses, does not touch the stack otherwise, and returns by `ret`.

#![allow(unsafe_code)]

use super::{CodeExit, MemCtx};

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod host {
    use super::{CodeExit, MemCtx};
    use crate::memory::Memory;

    /// A mapping of `cap` bytes of which `len` hold code.
    pub(crate) struct CodeBuf {
        ptr: *mut u8,
        cap: usize,
        len: usize,
        entries: Vec<u32>,
    }

    // SAFETY: the buffer owns its mapping; nothing else refers to it.
    unsafe impl Send for CodeBuf {}

    impl CodeBuf {
        /// Reserves `cap` bytes, or `None` if the host refuses.
        pub fn new(cap: usize) -> Option<CodeBuf> {
            // SAFETY: a fresh private anonymous mapping aliases nothing.
            let ptr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    cap,
                    libc::PROT_READ | libc::PROT_EXEC,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if ptr == libc::MAP_FAILED {
                return None;
            }
            Some(CodeBuf {
                ptr: ptr.cast(),
                cap,
                len: 0,
                entries: Vec::new(),
            })
        }

        /// Sets the protection of the whole mapping.
        fn protect(&self, prot: libc::c_int) -> bool {
            // SAFETY: the range is exactly the mapping this buffer owns.
            unsafe { libc::mprotect(self.ptr.cast(), self.cap, prot) == 0 }
        }

        /// Appends a function; returns its handle, or `None` if it does not fit or the
        /// host refuses to make the buffer writable.
        pub fn append(&mut self, code: &[u8]) -> Option<u32> {
            let end = self.len.checked_add(code.len())?;
            if end > self.cap || self.entries.len() >= u32::MAX as usize {
                return None;
            }
            if !self.protect(libc::PROT_READ | libc::PROT_WRITE) {
                return None;
            }
            // SAFETY: `[len, end)` is inside the mapping (checked above), now writable, and
            // `code` is a host slice, which cannot overlap the mapping.
            unsafe {
                std::ptr::copy_nonoverlapping(code.as_ptr(), self.ptr.add(self.len), code.len())
            };
            let writable_again = !self.protect(libc::PROT_READ | libc::PROT_EXEC);
            if writable_again {
                // The code stays unreachable: no handle is given out for it.
                return None;
            }
            self.entries.push(self.len as u32);
            self.len = end;
            Some((self.entries.len() - 1) as u32)
        }

        /// Forgets every function (their handles become invalid).
        pub fn clear(&mut self) {
            self.len = 0;
            self.entries.clear();
        }

        /// Bytes of code held.
        pub fn len(&self) -> usize {
            self.len
        }

        /// Calls the function `handle` on the registers `x` and the memory `mem`; `None`
        /// if `handle` was not given out since the last clear (a bug of the caller) or
        /// `mem` is too small for compiled code.
        #[inline(always)]
        pub fn call(&self, handle: u32, x: &mut [u64; 256], mem: &mut Memory) -> Option<CodeExit> {
            let off = *self.entries.get(handle as usize)? as usize;
            let ctx = MemCtx::new(mem)?;
            // SAFETY: `off` is the start of a function `compile` produced, inside the
            // mapping, which is executable. The function's contract (module docs) keeps it
            // within `x` (256 slots), `ctx`, and the guest span `ctx` describes, which
            // `mem` lends mutably for the call.
            let f: extern "sysv64" fn(*mut u64, *const MemCtx) -> CodeExit =
                unsafe { std::mem::transmute(self.ptr.add(off)) };
            Some(f(x.as_mut_ptr(), &ctx))
        }
    }

    impl Drop for CodeBuf {
        fn drop(&mut self) {
            // SAFETY: unmaps exactly the mapping this buffer owns; no handle outlives it.
            unsafe {
                libc::munmap(self.ptr.cast(), self.cap);
            }
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod host {
    use super::CodeExit;
    use crate::memory::Memory;

    /// No executable buffer on this host: nothing is ever compiled.
    pub(crate) struct CodeBuf(std::convert::Infallible);

    impl CodeBuf {
        pub fn new(_cap: usize) -> Option<CodeBuf> {
            None
        }
        pub fn append(&mut self, _code: &[u8]) -> Option<u32> {
            match self.0 {}
        }
        pub fn clear(&mut self) {}
        pub fn len(&self) -> usize {
            0
        }
        pub fn call(&self, _: u32, _: &mut [u64; 256], _: &mut Memory) -> Option<CodeExit> {
            match self.0 {}
        }
    }
}

pub(crate) use host::CodeBuf;

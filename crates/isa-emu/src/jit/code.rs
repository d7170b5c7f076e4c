//! The executable buffer of compiled blocks and the call into it: the crate's only unsafe
//! code.
//!
//! The buffer is a memory file mapped twice, once executable and once writable, so code is
//! appended and stubs patched without changing any protection; where the host refuses
//! that, or when a perf map is written (perf reads maps only for anonymous memory), it is
//! one private anonymous mapping, writable while code is appended and executable (not
//! writable) otherwise (two `mprotect` calls per write: 2933 in a run of coremark 700 with
//! no sink, measured with `strace -c`). Each appended function gets a
//! handle, an index into the list of entries the buffer handed out, so that a call can
//! only enter the start of a function [`compile`](super::compile) produced since the last
//! clear.
//!
//! Why the call is sound rests on the compiler: its code reads and writes the 64-bit slots
//! 0..33 of the register file it is given, the hart's 32 floating-point registers (at the
//! displacement of its `f` from its `x`) and the [`Ctx`](super::Ctx) it is given, and
//! reads or writes guest memory only at `host + off` for `off <= limit` (8 bytes at most),
//! which `Ctx::new` derives from the span's length, and the log's record `log_len` only
//! while `log_len < LOG_CAP` (a call starts at 0, and a logged block that fills
//! the log to its cap, `Ctx::log_cap <= LOG_CAP`, returns instead of going on; see
//! `Compiler::log`); a probe (`Compiler::probe`)
//! reads and writes the fixed fields of the `ProbeState` the context points to (if it is
//! not null), reads path end `e` only for `e < ends_len` and adds to counter `i` only for
//! `i < counts_len` (checked, or known when compiled to be below the counters of a lease
//! that `Jit::lend` accepted, which accepts none with fewer until the buffer is cleared),
//! all taken from a `ProbeLease` (borrows of the sink's state, counters
//! and path ends) that the run loop holds while the code runs, and an indirect call's
//! probe reads its site `i` of the context's sites (`Jit::new_site` gave `i` before the
//! block was compiled, and sites only grow until the buffer is cleared); it saves and restores the callee-saved
//! registers it uses, and returns by `ret`; it calls only [`exec_op`], on the hart the
//! context points to, having stored the guest register the computation reads and
//! dropping its copy of the one it writes, with the stack 16-byte aligned and the
//! caller-saved registers it keeps pushed around the call (or loaded again from the
//! context after it); it does not touch the stack otherwise. A patched
//! stub, and a jump through the table of indirect targets (which only this module writes,
//! and empties with the buffer), go only to the body of another function of the buffer
//! (a stub possibly past the body's guard check, which only skips tests of the state's
//! key and epoch, never a bounds check), which makes the same assumptions of the
//! registers the prologue set.
//!
//! Miri cannot run generated machine code, so this module is not tested under Miri; the
//! property test of compiled against interpreted blocks (`jit::tests`), every guest test
//! and `cargo xtask difftest` (random instruction streams against qemu) run it instead.

#![allow(unsafe_code)]

use crate::cpu::Cpu;
use crate::threaded::OPS;

/// Runs op number `OP`, a floating-point computation or an access of a floating-point CSR,
/// on the hart `cpu` for compiled code, as the interpreter does
/// ([`exec::fp_compute`](crate::exec::fp_compute), [`exec::csr_op`](crate::exec::csr_op);
/// here with the op known, as in the interpreter's handlers): `regs` holds `rd`, `rs1`,
/// then `rs2`, `rs3` and `rm` (a computation's) or the CSR's number (an access's), a byte
/// each from the lowest. Returns 1, or 0 having changed nothing where the instruction
/// raises an exception (floating point off, a reserved rounding mode), which the code
/// leaves to the interpreter.
pub(crate) extern "sysv64" fn exec_op<const OP: u8>(cpu: *mut Cpu, regs: u64) -> u64 {
    use crate::insn::Op;
    let op = const { OPS[OP as usize] };
    let [rd, rs1, b2, b3, rm, ..] = regs.to_le_bytes();
    // SAFETY: compiled code calls this with the context's hart, which its caller borrowed
    // mutably for the call (`CodeBuf::call`) and which nothing else reads or writes while
    // this runs.
    let cpu = unsafe { &mut *cpu };
    let done = match op {
        // (The floating-point CSRs' accesses do not read the instruction count.)
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
            let num = u16::from_le_bytes([b2, b3]);
            crate::exec::csr_op(op, cpu, [rd, rs1], num, 0)
        }
        _ => crate::exec::fp_compute(op, cpu, [rd, rs1, b2, b3], rm),
    };
    u64::from(done)
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod host {
    use crate::cpu::Cpu;
    use crate::jit::compile::{Guard, Stub, Tramp};
    use crate::jit::{Ctx, Ret, Target, TARGET_SLOTS};

    #[cfg(test)]
    thread_local! {
        /// Tests set this to make the buffers this thread creates take the fallback: one
        /// private mapping whose protection changes around each write.
        pub(crate) static PRIVATE_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    #[cfg(test)]
    fn private_only() -> bool {
        PRIVATE_ONLY.with(std::cell::Cell::get)
    }

    #[cfg(not(test))]
    fn private_only() -> bool {
        false
    }

    /// A mapping of `cap` bytes of which `len` hold code.
    pub(crate) struct CodeBuf {
        ptr: *mut u8,
        /// A second, writable mapping of the same pages, if the host gave one: code is
        /// written there and the executable mapping is never made writable (no `mprotect`
        /// per compiled block or link).
        alias: Option<*mut u8>,
        cap: usize,
        len: usize,
        /// Bytes from the start whose pages are mapped in both mappings ([`populate`]).
        ///
        /// [`populate`]: CodeBuf::populate
        populated: usize,
        /// Each function's entry points, by handle.
        entries: Vec<Function>,
        /// Each stub's patch positions (absolute), by number.
        stubs: Vec<Stub>,
        /// The table of indirect targets, which compiled code reads (and jumps through).
        targets: Box<[Target]>,
    }

    /// A function of the buffer: where it may be entered (absolute positions).
    struct Function {
        /// Its start: the run loop calls it there.
        start: u32,
        /// Its body, after the prologue: a stub or an indirect jump goes on there.
        body: u32,
        /// A guarded function's guard and its code right after the guard's check, where a
        /// stub that follows a probe leaving the state so goes on instead (with rcx
        /// pointing to the state, as the check leaves it).
        verified: Option<(Guard, u32)>,
        /// The displacement of the jump its guard's failed check takes, while it may still
        /// be patched to go on in the function's unprobed code ([`divert`](CodeBuf::divert)).
        divert: Option<u32>,
    }

    // SAFETY: the buffer owns its mapping; nothing else refers to it.
    unsafe impl Send for CodeBuf {}

    impl CodeBuf {
        /// Reserves `cap` bytes, or `None` if the host refuses: as a shared memory file
        /// mapped twice (executable, and writable), or else (or if `private`) as one
        /// private mapping that is made writable while it is written.
        pub fn new(cap: usize, private: bool) -> Option<CodeBuf> {
            let twice = if private || private_only() {
                None
            } else {
                Self::map_twice(cap)
            };
            let (ptr, alias) = match twice {
                Some((exec, write)) => (exec, Some(write)),
                None => (Self::map_private(cap)?, None),
            };
            Some(CodeBuf {
                ptr,
                alias,
                cap,
                len: 0,
                populated: 0,
                entries: Vec::new(),
                stubs: Vec::new(),
                targets: vec![Target::EMPTY; TARGET_SLOTS].into_boxed_slice(),
            })
        }

        /// A private anonymous mapping of `cap` bytes, readable and executable.
        fn map_private(cap: usize) -> Option<*mut u8> {
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
            (ptr != libc::MAP_FAILED).then_some(ptr.cast())
        }

        /// A memory file of `cap` bytes mapped twice: readable and executable, and readable
        /// and writable (the file descriptor is closed; the mappings keep the pages).
        fn map_twice(cap: usize) -> Option<(*mut u8, *mut u8)> {
            let len = libc::off_t::try_from(cap).ok()?;
            // SAFETY: the name is a NUL-terminated string; the call creates a new file.
            let fd = unsafe { libc::memfd_create(c"isa-emu-jit".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return None;
            }
            let map = |prot| {
                // SAFETY: a fresh shared mapping of the file this function created, which
                // nothing else maps.
                let p =
                    unsafe { libc::mmap(std::ptr::null_mut(), cap, prot, libc::MAP_SHARED, fd, 0) };
                (p != libc::MAP_FAILED).then_some(p.cast::<u8>())
            };
            // SAFETY: `fd` is the file just created; sizing it touches nothing else.
            let sized = unsafe { libc::ftruncate(fd, len) } == 0;
            let exec = sized
                .then(|| map(libc::PROT_READ | libc::PROT_EXEC))
                .flatten();
            let write = exec.and_then(|_| map(libc::PROT_READ | libc::PROT_WRITE));
            // SAFETY: closes the descriptor this function opened; the mappings stay valid.
            unsafe { libc::close(fd) };
            match (exec, write) {
                (Some(e), Some(w)) => Some((e, w)),
                (Some(e), None) => {
                    // SAFETY: unmaps the mapping made above, which nothing refers to yet.
                    unsafe { libc::munmap(e.cast(), cap) };
                    None
                }
                _ => None,
            }
        }

        /// Sets the protection of the pages that hold `[lo, hi)` (inside the mapping).
        fn protect(&self, lo: usize, hi: usize, prot: libc::c_int) -> bool {
            const PAGE: usize = 4096;
            let lo = lo / PAGE * PAGE;
            let hi = hi.div_ceil(PAGE) * PAGE;
            // SAFETY: the range is page-aligned and inside the mapping this buffer owns
            // (`cap` is a multiple of the page size).
            unsafe { libc::mprotect(self.ptr.add(lo).cast(), hi - lo, prot) == 0 }
        }

        /// Writes each `(at, bytes)` piece (all inside the mapping): through the writable
        /// mapping, or with the pages they span made writable for it; `false` if they do
        /// not fit or the host refuses. Should the pages fail to become executable again,
        /// every handle is withdrawn (calls return `None`) and nothing more is written.
        fn write(&mut self, pieces: &[(usize, &[u8])]) -> bool {
            let lo = pieces.iter().map(|p| p.0).min().unwrap_or(0);
            let hi = pieces.iter().map(|p| p.0 + p.1.len()).max().unwrap_or(0);
            if hi > self.cap {
                return false;
            }
            if let Some(alias) = self.alias {
                if hi > self.populated {
                    self.populate(alias, hi);
                }
                for &(at, bytes) in pieces {
                    // SAFETY: `[at, at + len)` is inside the writable mapping of the same
                    // `cap` bytes (checked above), and `bytes` is a host slice, which cannot
                    // overlap it. x86 keeps instruction fetches coherent with stores to
                    // the same physical pages, whichever mapping the store went through.
                    unsafe {
                        std::ptr::copy_nonoverlapping(bytes.as_ptr(), alias.add(at), bytes.len())
                    };
                }
                return true;
            }
            if !self.protect(lo, hi, libc::PROT_READ | libc::PROT_WRITE) {
                return false;
            }
            for &(at, bytes) in pieces {
                // SAFETY: `[at, at + len)` is inside the mapping (checked above), now
                // writable, and `bytes` is a host slice, which cannot overlap the mapping.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(at), bytes.len())
                };
            }
            if self.protect(lo, hi, libc::PROT_READ | libc::PROT_EXEC) {
                return true;
            }
            self.clear();
            self.cap = 0;
            false
        }

        /// Maps the pages of both mappings up to `hi`, a chunk at a time, before code is
        /// written there: otherwise each new page of code faults twice, once written and
        /// once run, and a fault takes microseconds in a virtual machine (coremark 1,
        /// region-based: 110 of 1752 samples of its set-up were such faults). A host that
        /// refuses the advice faults as before.
        fn populate(&mut self, alias: *mut u8, hi: usize) {
            const CHUNK: usize = 256 << 10;
            let end = hi.div_ceil(CHUNK).saturating_mul(CHUNK).min(self.cap);
            let (at, len) = (self.populated, end.saturating_sub(self.populated));
            // SAFETY: `[at, at + len)` is page-aligned (`populated` and `cap` are multiples
            // of the page size) and inside both mappings this buffer owns; the advice
            // changes no contents.
            unsafe {
                libc::madvise(alias.add(at).cast(), len, libc::MADV_POPULATE_WRITE);
                libc::madvise(self.ptr.add(at).cast(), len, libc::MADV_POPULATE_READ);
            }
            self.populated = end;
        }

        /// Appends a function with its body's start and its stubs (positions relative to
        /// the function); returns its handle, or `None` if it does not fit or the host
        /// refuses to make the buffer writable.
        pub fn append(
            &mut self,
            code: &[u8],
            (body, verified, divert): (u32, Option<(Guard, u32)>, Option<u32>),
            stubs: &[Stub],
        ) -> Option<u32> {
            let start = u32::try_from(self.len).ok()?;
            if body as usize >= code.len() || !self.write(&[(self.len, code)]) {
                return None;
            }
            self.len += code.len();
            let abs = |p: u32| start + p;
            self.stubs.extend(stubs.iter().map(|&s| Stub {
                entry: abs(s.entry),
                count: abs(s.count),
                body: abs(s.body),
                tramp: s.tramp.map(|t| Tramp {
                    start: abs(t.start),
                    jump: abs(t.jump),
                }),
                ..s
            }));
            self.entries.push(Function {
                start,
                body: abs(body),
                verified: verified.map(|(g, at)| (g, abs(at))),
                divert: divert.map(abs),
            });
            Some((self.entries.len() - 1) as u32)
        }

        /// Patches the jump that function `from`'s guard takes where its check fails to go
        /// on at the body of function `to` (once: the jump is then given up), which runs
        /// the same block with no probes. Returns whether it did: not for a function with
        /// no guard, one diverted already, or a handle not given out.
        pub fn divert(&mut self, from: u32, to: u32) -> bool {
            let Some(body) = self.entries.get(to as usize).map(|e| e.body) else {
                return false;
            };
            let Some(at) = self
                .entries
                .get_mut(from as usize)
                .and_then(|e| e.divert.take())
            else {
                return false;
            };
            let rel = (body as i64 - (at as i64 + 4)) as i32;
            self.write(&[(at as usize, &rel.to_le_bytes()[..])])
        }

        /// The number the next appended function's first stub gets.
        pub fn stubs(&self) -> u32 {
            self.stubs.len() as u32
        }

        /// Patches `stub` to go on at the body of function `to` when `count` instructions
        /// fit in the budget: past its guard's check if the stub follows a probe that
        /// leaves the state as the guard checks it. Does nothing for a stub or function
        /// not given out.
        pub fn chain(&mut self, stub: u32, to: u32, count: u32) {
            let Some((s, body)) = self.chain_target(stub, to) else {
                return;
            };
            let rel = |from: u32, to: u32| (to as i64 - (from as i64 + 4)) as i32;
            let tramp = s.tramp.zip(self.entries.get(to as usize).map(|e| e.body));
            let tramp = tramp.map(|(t, to)| (t.jump, rel(t.jump, to).to_le_bytes()));
            let (count, body, entry) = (
                count.to_le_bytes(),
                rel(s.body, body).to_le_bytes(),
                s.chained.to_le_bytes(),
            );
            let mut pieces = vec![
                (s.count as usize, &count[..]),
                (s.body as usize, &body[..]),
                (s.entry as usize, &entry[..]),
            ];
            if let Some((at, disp)) = &tramp {
                pieces.push((*at as usize, &disp[..]));
            }
            self.write(&pieces);
        }

        /// The stub and where [`chain`](Self::chain) makes it go in function `to`: past
        /// the block's check where the stub's probe left its guard, else to its check,
        /// through the stub's trampoline if the probe left its key pending.
        fn chain_target(&self, stub: u32, to: u32) -> Option<(Stub, u32)> {
            let s = *self.stubs.get(stub as usize)?;
            let e = self.entries.get(to as usize)?;
            Some(match e.verified {
                Some((guard, past)) if s.follows == Some(guard) => (s, past),
                _ => (s, s.tramp.map_or(e.body, |t| t.start)),
            })
        }

        /// Undoes every [`chain`](Self::chain) and empties the table of indirect targets:
        /// each function's exits return to the run loop again.
        pub fn unchain_all(&mut self) {
            let disps: Vec<(usize, [u8; 4])> = self
                .stubs
                .iter()
                .flat_map(|s| {
                    [
                        (s.entry as usize, 0i32.to_le_bytes()),
                        (s.count as usize, u32::MAX.to_le_bytes()),
                    ]
                })
                .collect();
            let pieces: Vec<(usize, &[u8])> = disps.iter().map(|(at, d)| (*at, &d[..])).collect();
            if !pieces.is_empty() {
                self.write(&pieces);
            }
            self.targets.fill(Target::EMPTY);
        }

        /// Enters the function `to` (its body) at `pc` in the table of indirect targets,
        /// with its count. Does nothing for a function not given out.
        pub fn set_target(&mut self, pc: u64, to: u32, count: u32) {
            let Some(&Function { body, .. }) = self.entries.get(to as usize) else {
                return;
            };
            let slot = (pc >> 1) as usize % TARGET_SLOTS;
            self.targets[slot] = Target {
                pc,
                body: self.ptr as usize + body as usize,
                count: u64::from(count),
                _pad: 0,
            };
        }

        /// The table of indirect targets.
        pub fn targets(&self) -> *const Target {
            self.targets.as_ptr()
        }

        /// Forgets every function (their handles become invalid).
        pub fn clear(&mut self) {
            self.len = 0;
            self.entries.clear();
            self.stubs.clear();
            self.targets.fill(Target::EMPTY);
        }

        /// Bytes of code held.
        pub fn len(&self) -> usize {
            self.len
        }

        /// The host address where the function `handle` starts, if it was given out
        /// since the last clear.
        pub fn address(&self, handle: u32) -> Option<usize> {
            let start = self.entries.get(handle as usize)?.start;
            Some(self.ptr as usize + start as usize)
        }

        /// Calls the function `handle` on the hart `cpu` (the context's, which the caller
        /// borrowed mutably for the call) and the context `ctx`; `None` if `handle` was
        /// not given out since the last clear (a bug of the caller).
        #[inline(always)]
        pub fn call(&self, handle: u32, cpu: *mut Cpu, ctx: &mut Ctx) -> Option<Ret> {
            let start = self.entries.get(handle as usize)?.start;
            // SAFETY: `start` is the start of a function `compile` produced, inside the
            // mapping, which is executable. The function's contract (module docs) keeps it
            // and the functions its stubs chain to within the hart's registers (`x`, 256
            // slots, and `f`), `ctx`, the guest span `ctx` describes, which its creator
            // borrowed mutably for the call, and the log `ctx` points to (`LOG_CAP`
            // records in a `Cell` of the `Jit`); it calls only `exec_op`, on the hart.
            let f: extern "sysv64" fn(*mut u64, *mut Ctx) -> Ret =
                unsafe { std::mem::transmute(self.ptr.add(start as usize)) };
            // SAFETY: a field of the hart the caller borrowed (no reference is made).
            let x = unsafe { std::ptr::addr_of_mut!((*cpu).x) };
            Some(f(x.cast(), ctx))
        }
    }

    impl Drop for CodeBuf {
        fn drop(&mut self) {
            // SAFETY: unmaps exactly the mappings this buffer owns; no handle outlives them.
            unsafe {
                libc::munmap(self.ptr.cast(), self.cap);
                if let Some(alias) = self.alias {
                    libc::munmap(alias.cast(), self.cap);
                }
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_stub_chains_past_the_guard_only_after_a_probe_that_leaves_it() {
            let guard = |key| Guard { key, epoch: 3 };
            let stub = |follows, tramp| Stub {
                entry: 0,
                count: 0,
                body: 0,
                chained: 0,
                follows,
                tramp,
            };
            let mut buf = CodeBuf::new(1 << 16, false).expect("an executable buffer");
            let code = [0xc3u8; 32];
            // Function 0 has stubs 0..3; function 1 is guarded (its check ends at 20).
            let tramp = Some(Tramp {
                start: 28,
                jump: 30,
            });
            let stubs = [
                stub(Some(guard(7)), tramp),
                stub(Some(guard(8)), None),
                stub(None, None),
                stub(Some(guard(8)), tramp),
            ];
            buf.append(&code, (4, None, None), &stubs).unwrap();
            buf.append(&code, (4, Some((guard(7), 20)), None), &[])
                .unwrap();
            let start = buf.address(0).unwrap();
            assert_eq!(
                buf.address(1),
                Some(start + 32),
                "the second function's start"
            );
            assert_eq!(buf.address(2), None);
            let to = |stub| buf.chain_target(stub, 1).map(|(_, at)| at);
            assert_eq!(to(0), Some(32 + 20));
            assert_eq!(to(1), Some(32 + 4), "another key");
            assert_eq!(to(2), Some(32 + 4), "no probe ran");
            assert_eq!(to(3), Some(28), "another key, left pending");
            let to_unguarded = |stub| buf.chain_target(stub, 0).map(|(_, at)| at);
            assert_eq!(to_unguarded(1), Some(4), "unguarded");
            assert_eq!(to_unguarded(0), Some(28), "unguarded, key left pending");
            assert_eq!(buf.chain_target(4, 1), None);
        }

        #[test]
        fn pages_are_populated_a_chunk_ahead_of_the_code() {
            const CHUNK: usize = 256 << 10;
            let mut buf = CodeBuf::new(3 * CHUNK / 2, false).expect("an executable buffer");
            if buf.alias.is_none() {
                return; // (A private mapping is made writable per write instead.)
            }
            let code = vec![0xc3u8; CHUNK - 16];
            buf.append(&code, (0, None, None), &[]).unwrap();
            assert_eq!(buf.populated, CHUNK, "the first chunk");
            buf.append(&code[..16], (0, None, None), &[]).unwrap();
            assert_eq!(buf.populated, CHUNK, "the code ends at the chunk's end");
            buf.append(&[0x90, 0xc3], (0, None, None), &[]).unwrap();
            assert_eq!(buf.populated, 3 * CHUNK / 2, "the rest, up to the capacity");
            // SAFETY: the bytes lie inside the executable mapping, which stays readable.
            let last = unsafe { std::slice::from_raw_parts(buf.ptr.add(CHUNK), 2) };
            assert_eq!(last, [0x90, 0xc3], "written past the first chunk");
        }

        #[test]
        fn a_failed_guard_check_is_diverted_once_to_the_unprobed_code() {
            let mut buf = CodeBuf::new(1 << 16, false).expect("an executable buffer");
            let code = [0xc3u8; 32];
            // Function 0 is guarded, the displacement of its failed check's jump at 10;
            // function 1 (its unprobed code) has its body at 6.
            let guarded = (4, Some((Guard { key: 1, epoch: 2 }, 20)), Some(10));
            buf.append(&code, guarded, &[]).unwrap();
            buf.append(&code, (6, None, None), &[]).unwrap();
            let disp = |buf: &CodeBuf| {
                // SAFETY: bytes 10..14 lie inside the mapping, which stays readable.
                let bytes = unsafe { std::slice::from_raw_parts(buf.ptr.add(10), 4) };
                i32::from_le_bytes(bytes.try_into().unwrap())
            };
            assert!(!buf.divert(1, 0), "no guard");
            assert!(!buf.divert(0, 2), "no such function");
            assert_eq!(disp(&buf), 0x_c3c3_c3c3_u32 as i32, "unpatched");
            assert!(buf.divert(0, 1));
            assert_eq!(disp(&buf), 32 + 6 - 14, "to the unprobed code's body");
            assert!(!buf.divert(0, 1), "once");
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod host {
    use crate::cpu::Cpu;
    use crate::jit::compile::{Guard, Stub};
    use crate::jit::{Ctx, Ret, Target};

    /// No executable buffer on this host: nothing is ever compiled.
    pub(crate) struct CodeBuf(std::convert::Infallible);

    impl CodeBuf {
        pub fn new(_cap: usize, _private: bool) -> Option<CodeBuf> {
            None
        }
        pub fn append(
            &mut self,
            _: &[u8],
            _: (u32, Option<(Guard, u32)>, Option<u32>),
            _: &[Stub],
        ) -> Option<u32> {
            match self.0 {}
        }
        pub fn divert(&mut self, _: u32, _: u32) -> bool {
            match self.0 {}
        }
        pub fn stubs(&self) -> u32 {
            match self.0 {}
        }
        pub fn chain(&mut self, _: u32, _: u32, _: u32) {
            match self.0 {}
        }
        pub fn set_target(&mut self, _: u64, _: u32, _: u32) {
            match self.0 {}
        }
        pub fn unchain_all(&mut self) {
            match self.0 {}
        }
        pub fn targets(&self) -> *const Target {
            match self.0 {}
        }
        pub fn clear(&mut self) {}
        pub fn len(&self) -> usize {
            0
        }
        pub fn address(&self, _: u32) -> Option<usize> {
            match self.0 {}
        }
        pub fn call(&self, _: u32, _: *mut Cpu, _: &mut Ctx) -> Option<Ret> {
            match self.0 {}
        }
    }
}

pub(crate) use host::CodeBuf;
#[cfg(all(test, target_arch = "x86_64", target_os = "linux"))]
pub(crate) use host::PRIVATE_ONLY;

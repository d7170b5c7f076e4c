//! Compiled blocks: translated blocks compiled to x86-64 code.
//!
//! Every block whose first instructions the compiler knows is also compiled ([`compile`])
//! when it is translated: the superblocks of superblock mode (no sink watches anything, see
//! [`block`](crate::block)), the basic blocks of runs whose sinks watch blocks (but for
//! those with memory events, whose accesses must reach the sink), and event superblocks
//! when they are formed. The run loop calls the code instead of the threaded interpreter.
//! The code computes exactly what the interpreter does: it runs the integer instructions
//! (RV64I, M but `mulhsu`, and A's swap, add, xor, and and or) and F and D loads and
//! stores, calls the interpreter's arithmetic for F and D computations and its accesses
//! of the floating-point CSRs ([`exec_op`]), and bails out before anything else
//! (floating point while it is off, a reserved rounding mode, other CSRs, LR/SC and A's
//! minimum and maximum, `mulhsu`, system instructions, and any load, store or atomic
//! that might fault or touch code), after
//! which the threaded interpreter runs the block's rest from that instruction. The block's
//! [`Tinsn`](crate::xlat::Tinsn)s, `Meta` and exits stay those of the interpreter, so side
//! exits, instruction counts and traps are unchanged.
//!
//! Compiled blocks run on into each other: the run loop links a fixed exit that led to
//! another compiled block by patching its stub ([`Link::Stub`]), and an indirect jump's
//! target through a table ([`Link::Indirect`]); the code follows a link while its budget
//! (instructions before the next fuel or sample threshold) holds the next block.
//!
//! Events decide what is linked. Blocks without events are linked to in every run. Blocks
//! with only block and edge events, and event superblocks, are compiled *logged*
//! ([`Source::logged`]): each run that leaves by an exit other than a bail-out appends a
//! [`Rec`] (the block or superblock, the instruction it left by, the next pc) to a log of
//! [`LOG_CAP`] records before going on, and the run loop delivers the records' events in
//! order when the code returns (a full log returns at once, and so does the first record
//! while a sink's state is lent, see `Ctx::log_cap`; code that bailed out logged
//! nothing, and the loop delivers its events after the interpreter ran its rest). They
//! are linked to only while event superblocks are on, that is in runs whose sinks never
//! stop, since a stop would come late: a link to a block where an event superblock formed
//! goes to the superblock's code, and a block still warming up to form one is not linked
//! to (the run loop counts its runs). Turning the mode off undoes every link
//! ([`Jit::unlink_all`]). In runs whose sink has probes ([`prof_events::probe`]), a logged
//! block's fixed exits may carry one ([`Source::probes`]): its stub runs the probe on the
//! sink's state instead of logging, if the key and epoch match (while no state is lent, or
//! once the code logged a record, which may change the state when delivered, the context
//! points to an idle state no probe applies to; code compiled once a state was lent tests
//! only the key, see [`Jit::lends_epoch`]) and the arithmetic stays in range; otherwise it
//! logs the exit and returns, so that the run loop delivers the event before any other probe
//! runs. A logged block's indirect call or jump has a [`Site`] instead ([`Source::site`]):
//! the probes of calls (or restarts, [`SiteKind`]) to [`Site::WAYS`] targets, which the run
//! loop asks the sink for before delivering a transfer to a target none holds (or in
//! another epoch), at most [`Site::ASKS`] times; the code runs the one for the target, if
//! any. An indirect call's or jump's block is compiled again once its site holds a call's
//! or an addition's probe (see `BlockCache::ask_site`): its code first compares the
//! target with that probe's ([`Site::hottest`]) and runs the probe as a fixed exit's
//! (its fields immediates), searching the ways only for other targets (sort's `qsort` comparisons:
//! 1.4% fewer instructions). A
//! return's probe ([`Source::ret_probe`]) and a site's
//! run before the jump through the table of indirect targets, and log the exit where they
//! do not apply. A block whose probes all apply under one key and epoch tests them once,
//! on entry, and bails out before its first instruction where they differ (the run loop
//! then runs it and delivers its event); a stub after a probe that leaves that key and
//! epoch chains past the test ([`compile::Guard`]). A block whose test failed a few times
//! ([`Link::Divert`]) is compiled again with no probes, logged ([`Source::unprobed`]),
//! and a failed test then goes on in that code ([`Jit::divert`]), which returns to the
//! run loop after any exit but one whose probe would only add to the sum (so a run whose
//! sum is too wide to lend, such as a recursive function inlined into itself, runs its
//! path's additions compiled, and its events come from the log). A *probed* event superblock
//! ([`Source::parts`]) runs the probe of each part to the next where it goes on into it
//! (under the key the probe before left, known, so unchecked), and its exits carry their
//! part's probes; a probe that does not apply there logs the exit of the part's basic
//! block and leaves ([`kind::PART`]). Otherwise the code of a block with
//! events is given its own count as its budget, so it never goes on: the run loop
//! delivers its events, before and after it as for interpreted code. Blocks with memory
//! events are not compiled.
//!
//! The x86-64 encodings are in [`x86`] and the block compiler in [`compile`], both safe
//! code, and so is [`perf_map`], which names each stretch of the compiled code for perf
//! ([`Config::perf_map`](crate::Config)); the executable buffer and the call into it are
//! the crate's only unsafe code ([`code`]). On other hosts, or if the host refuses
//! executable memory, nothing is compiled.

mod code;
mod compile;
mod perf_map;
mod site;
mod x86;

#[cfg(test)]
mod tests;

use std::cell::Cell;

use crate::block::NONE;
use crate::cpu::Cpu;
use crate::memory::Memory;
use prof_events::{ProbeEnd, ProbeLease, ProbeState};

pub(crate) use code::exec_op;
pub(crate) use compile::{kind, runs_between_parts, PartProbes, Source};
pub(crate) use perf_map::PerfMap;
pub(crate) use site::{call_operands, Site, SiteKind, SiteProbe, RESUME_ADD};

/// The function compiled code calls for an op it runs as the interpreter does.
pub(crate) type OpHelper = extern "sysv64" fn(*mut Cpu, u64) -> u64;

/// What compiled code reads and writes besides the registers (rsi points to it): guest
/// memory (see [`compile`]), the budget, and how it left.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    /// Host address of the span's first byte.
    host: *mut u8,
    /// Guest address of the span's first byte.
    base: u64,
    /// The span's length less 8: an access at a larger offset may leave it.
    limit: u64,
    /// The lowest address a store may start at and still touch code (7 below it).
    code_lo: u64,
    /// Stores at `code_lo + [0, code_span)` may touch code.
    code_span: u64,
    /// Instructions that may retire before the run loop must look (see [`compile`]); on
    /// return, those left before the block that left.
    budget: u64,
    /// The slot of the block that left.
    slot: u32,
    /// The arena index of the instruction that left (see [`kind`]).
    at: u32,
    /// The stub of the exit taken, if the exit is fixed and not chained yet; [`INDIRECT`]
    /// for an indirect jump's; else `NONE`.
    stub: u32,
    /// The table of indirect jumps' targets.
    targets: *const Target,
    /// The log that blocks compiled as logged write their exits to ([`Rec`], [`LOG_CAP`]).
    log: *mut Rec,
    /// Records written to `log`.
    log_len: u64,
    /// What compiled probes run on (see [`Source::probes`]): the state (`idle` when there
    /// is none or the log holds records, so that every probe misses), the counters and the
    /// path ends.
    probe: *mut ProbeState,
    counts: *mut u64,
    counts_len: u64,
    ends: *const ProbeEnd,
    ends_len: u64,
    /// The indirect calls' and jumps' probes ([`Site`]).
    sites: *const Site,
    /// A state no probe applies to (its epoch is [`NO_EPOCH`]).
    idle: *mut ProbeState,
    /// The records after which a logged block returns to the run loop rather than go on:
    /// [`LOG_CAP`], or 1 while a state is lent. Once a record is logged every probe
    /// misses until it is delivered, so going on would log the run's calls and returns,
    /// which the sink then owns, and whose returns miss again, without end (sort 300000
    /// with [`prof_events::NoOpProbes`]: 1.9M edge events, against 554 when returning at
    /// once).
    log_cap: u64,
    /// The hart whose registers `x` are (rdi points to them), for the floating-point
    /// registers and the calls that run floating-point computations ([`exec_op`]).
    cpu: *mut Cpu,
    /// Not 0 where floating point is off (the hart's `mstatus.FS`): a floating-point
    /// instruction then bails out, and the interpreter raises the exception. Only writes
    /// of `mstatus`, which are not compiled, turn it on or off.
    fp_off: u64,
}

/// The epoch of the state that compiled code runs probes on while none is lent or records
/// wait in the log (`Ctx::idle`): a probe given for it never applies.
pub(crate) const NO_EPOCH: u64 = u64::MAX;

/// The key of that idle state: a probe given for it never applies either (compiled code
/// checks the key alone where the epoch is the code's, see [`Jit::lends_epoch`]).
pub(crate) const IDLE_KEY: u64 = u64::MAX;

/// A [`ProbeLease`]'s addresses, for compiled code (the run loop holds the lease while the
/// code runs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probes {
    state: *mut ProbeState,
    counts: *mut u64,
    counts_len: u64,
    ends: *const ProbeEnd,
    ends_len: u64,
}

impl Probes {
    /// No probes: every probe misses.
    pub const NONE: Probes = Probes {
        state: std::ptr::null_mut(),
        counts: std::ptr::null_mut(),
        counts_len: 0,
        ends: std::ptr::null(),
        ends_len: 0,
    };

    /// The addresses of `lease`.
    pub fn of(lease: &mut ProbeLease<'_>) -> Probes {
        Probes {
            state: &mut *lease.state,
            counts: lease.counts.as_mut_ptr(),
            counts_len: lease.counts.len() as u64,
            ends: lease.ends.as_ptr(),
            ends_len: lease.ends.len() as u64,
        }
    }
}

/// Records the log holds: a logged block whose record fills it returns to the run loop.
pub(crate) const LOG_CAP: usize = 256;

/// A logged block's record of a run that left it by an exit other than a bail-out: its
/// slot (or its event superblock's index with [`SUPER`]), the arena index of the
/// instruction it left by (with [`SIDE`] for a superblock's side exit), and the next pc;
/// the run loop derives its block and edge events from them (see [`Source::logged`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rec {
    pub pc: u64,
    pub slot: u32,
    pub at: u32,
}

/// In a [`Rec`]'s or [`Left`]'s slot: the code is the event superblock with this index.
pub(crate) const SUPER: u32 = 1 << 31;
/// In a [`Rec`]'s `at`: the superblock left by the side exit at this arena index.
pub(crate) const SIDE: u32 = 1 << 31;
/// In a [`Rec`]'s `at`: the superblock's unprobed code left after this part, into the
/// next (see [`Source::unprobed`]).
pub(crate) const PART_REC: u32 = 1 << 30;

impl Rec {
    const PC: i32 = 0;
    const SLOT: i32 = 8;
    const AT: i32 = 12;
    /// log2 of the record's size.
    const SHIFT: u8 = 4;
}

/// The `stub` of an indirect jump's exit.
pub(crate) const INDIRECT: u32 = NONE - 1;
/// The `stub` of a guarded block's bail-out where its guard's check failed (see
/// [`Compiled::divert`](compile::Compiled)).
pub(crate) const DIVERT: u32 = NONE - 2;
/// The `stub` of a bail-out of a block's unprobed code ([`Source::unprobed`]).
pub(crate) const UNPROBED: u32 = NONE - 3;

/// Entries in the table of indirect targets (a power of two).
pub(crate) const TARGET_SLOTS: usize = 4096;

/// An entry of the table of indirect targets, direct-mapped by `pc / 2 % TARGET_SLOTS`: the
/// compiled block at `pc`, its body's host address and its guest instruction count.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// The block's pc, or 1 (no pc is odd) in an empty entry.
    pc: u64,
    body: usize,
    count: u64,
    _pad: u64,
}

impl Target {
    const PC: usize = 0;
    const BODY: usize = 8;
    const COUNT: usize = 16;
    /// An entry that no pc matches.
    const EMPTY: Target = Target {
        pc: 1,
        body: 0,
        count: 0,
        _pad: 0,
    };
}

/// Where an exit that left compiled code may be linked to the compiled block it led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Link {
    /// A fixed exit: its stub.
    Stub(u32),
    /// An indirect jump: through the table of targets.
    Indirect,
    /// Not an exit: the guard's check of the code of the block in this slot (or of the
    /// event superblock, with [`SUPER`]) failed, so the code bailed out before its first
    /// instruction; its failed check may go on in the block's unprobed code instead
    /// ([`Jit::divert`]).
    Divert(u32),
}

impl Ctx {
    const HOST: usize = 0;
    const BASE: usize = 8;
    const LIMIT: usize = 16;
    const CODE_LO: usize = 24;
    const CODE_SPAN: usize = 32;
    const BUDGET: usize = 40;
    const SLOT: usize = 48;
    const AT: usize = 52;
    const STUB: usize = 56;
    const TARGETS: usize = 64;
    const LOG: usize = 72;
    const LOG_LEN: usize = 80;
    const PROBE: usize = 88;
    const COUNTS: usize = 96;
    const COUNTS_LEN: usize = 104;
    const ENDS: usize = 112;
    const ENDS_LEN: usize = 120;
    const SITES: usize = 128;
    const IDLE: usize = 136;
    const LOG_CAP: usize = 144;
    const CPU: usize = 152;
    const FP_OFF: usize = 160;
}

// The offsets compiled code uses are the fields'.
const _: () = {
    use std::mem::offset_of;
    assert!(offset_of!(Ctx, budget) == Ctx::BUDGET && offset_of!(Ctx, stub) == Ctx::STUB);
    assert!(offset_of!(Ctx, log_len) == Ctx::LOG_LEN && offset_of!(Ctx, probe) == Ctx::PROBE);
    assert!(offset_of!(Ctx, ends_len) == Ctx::ENDS_LEN && offset_of!(Ctx, sites) == Ctx::SITES);
    assert!(offset_of!(Ctx, idle) == Ctx::IDLE && offset_of!(Ctx, log_cap) == Ctx::LOG_CAP);
    assert!(offset_of!(Ctx, cpu) == Ctx::CPU && offset_of!(Ctx, fp_off) == Ctx::FP_OFF);
};

impl Ctx {
    /// The context of the hart `cpu` (whether its floating point is off) and `mem` with
    /// `budget`, if the span holds at least 8 bytes (every compiled access checks room for
    /// 8).
    #[inline(always)]
    fn new(
        (cpu, fp_off): (*mut Cpu, bool),
        mem: &mut Memory,
        budget: u64,
        targets: *const Target,
        log: *mut Rec,
        probes: Probes,
        (sites, idle): (*const Site, *mut ProbeState),
    ) -> Option<Ctx> {
        let (base, len) = (mem.base(), mem.end() - mem.base());
        let (lo, hi) = mem.code_range();
        let code_lo = lo.saturating_sub(7);
        Some(Ctx {
            host: mem.host_ptr(),
            base,
            limit: len.checked_sub(8)?,
            code_lo,
            code_span: if hi > lo { hi - code_lo } else { 0 },
            budget,
            slot: NONE,
            at: NONE,
            stub: NONE,
            targets,
            log,
            log_len: 0,
            probe: if probes.state.is_null() {
                idle
            } else {
                probes.state
            },
            counts: probes.counts,
            counts_len: probes.counts_len,
            ends: probes.ends,
            ends_len: probes.ends_len,
            sites,
            idle,
            log_cap: if probes.state.is_null() { LOG_CAP } else { 1 } as u64,
            cpu,
            fp_off: u64::from(fp_off),
        })
    }
}

/// What compiled code returns: the next pc and the exit's [`kind`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ret {
    pc: u64,
    kind: u64,
}

/// How a call of compiled code ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Left {
    /// The next pc (for [`kind::BAIL`], meaningless).
    pub pc: u64,
    /// See [`kind`].
    pub kind: u64,
    /// The budget left before the block that left: the budget given less the
    /// instructions of the blocks run before it.
    pub budget: u64,
    /// The slot of the block that left (or its event superblock's index, with [`SUPER`]).
    pub slot: u32,
    /// The arena index of the instruction that left (the part, for [`kind::PART`]).
    pub at: u32,
    /// How the exit taken may be linked to the block it leads to ([`Jit::link`]), if it is
    /// an indirect one or a fixed one not chained yet.
    pub link: Option<Link>,
    /// Records the logged code that ran wrote ([`Jit::logged`]), the last one's included
    /// if it is logged and did not bail out.
    pub logged: usize,
    /// The code bailed out in a block's unprobed code ([`Source::unprobed`]).
    pub unprobed: bool,
}

/// The compiled code of a block cache's blocks.
pub(crate) struct Jit {
    code: code::CodeBuf,
    asm: x86::Asm,
    /// The log of the last call (a `Cell`: the code writes it through `&self`).
    log: Box<Cell<[Rec; LOG_CAP]>>,
    /// The indirect calls' and jumps' probes, by [`Source::site`].
    sites: Vec<Site>,
    /// `Ctx::idle` (a `Cell`: the code reads it through `&self`).
    idle: Box<Cell<ProbeState>>,
    /// Where each compiled block's code is named, if anywhere.
    perf_map: Option<PerfMap>,
    /// The sink's probes may save sums (see [`BlockCache::set_probing`]).
    ///
    /// [`BlockCache::set_probing`]: crate::block::BlockCache::set_probing
    pub saves_sums: bool,
    /// The counters of the latest lease [`lend`](Self::lend) accepted: code compiled
    /// now adds to those below it with no check of the counters' length.
    lent: u64,
    /// The counters the compiled code adds to with no check: [`lend`](Self::lend)
    /// accepts no lease with fewer.
    unchecked: u64,
    /// The epoch of the states lent since the code was cleared, if one was: code compiled
    /// since checks no epoch of its probes (one of another epoch never applies), so no
    /// state of another is lent ([`lends_epoch`](Self::lends_epoch)).
    epoch: Option<u64>,
    /// The compiler's vectors, kept from one compilation to the next.
    scratch: compile::Scratch,
}

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jit")
            .field("bytes", &self.code.len())
            .finish()
    }
}

/// Bytes of address space reserved for compiled code (the host provides pages as they are
/// written); when it is full, later blocks are interpreted until the cache is flushed.
const CODE_BYTES: usize = 64 << 20;

impl Jit {
    /// A compiler with an empty code buffer, if this host can run compiled blocks; it
    /// names the code it compiles in `perf_map`, if given.
    pub fn new(perf_map: Option<PerfMap>) -> Option<Jit> {
        Some(Jit {
            code: code::CodeBuf::new(CODE_BYTES, perf_map.is_some())?,
            asm: x86::Asm::default(),
            log: Box::new(Cell::new([Rec::default(); LOG_CAP])),
            sites: Vec::new(),
            idle: Box::new(Cell::new(ProbeState {
                key: IDLE_KEY,
                epoch: NO_EPOCH,
                ..ProbeState::default()
            })),
            perf_map,
            saves_sums: true,
            lent: 0,
            unchecked: 0,
            epoch: None,
            scratch: compile::Scratch::default(),
        })
    }

    /// A new site for a block's indirect call or jump, applying to no target yet; none when there
    /// are [`Site::MAX`] already.
    pub fn new_site(&mut self) -> Option<u32> {
        let i = self.sites.len();
        (i < Site::MAX).then(|| self.sites.push(Site::EMPTY))?;
        u32::try_from(i).ok()
    }

    /// Site `i`.
    pub fn site(&self, i: u32) -> Option<&Site> {
        self.sites.get(i as usize)
    }

    /// Site `i`, to change between runs (the code reads it).
    pub fn site_mut(&mut self, i: u32) -> Option<&mut Site> {
        self.sites.get_mut(i as usize)
    }

    /// Compiles the block `src`. Returns its handle, or `None` if it is not worth compiling
    /// or the buffer is full.
    pub fn compile(&mut self, src: &Source<'_>) -> Option<u32> {
        self.asm.code.clear();
        let modes = (self.saves_sums, self.lent, self.epoch);
        let (asm, stubs) = (&mut self.asm, self.code.stubs());
        // An indirect call's or jump's site knows its hottest target's probe by now, if
        // its block is compiled again once the site learned one (see
        // `BlockCache::ask_site`).
        let known = src
            .site
            .and_then(|(site, kind)| self.sites.get(site as usize)?.hottest(kind));
        let compiled = compile::compile(asm, (src, known), stubs, modes, &mut self.scratch)?;
        let handle = self.code.append(
            &self.asm.code,
            (compiled.body, compiled.verified, compiled.divert),
            &compiled.stubs,
        )?;
        self.unchecked = self.unchecked.max(compiled.unchecked);
        if let (Some(map), Some(start)) = (self.perf_map.as_mut(), self.code.address(handle)) {
            let superblock = src.slot & SUPER != 0;
            map.add(
                start,
                self.asm.code.len(),
                src.pc,
                (superblock, src.unprobed),
                &compiled.sections,
            );
        }
        self.scratch.give_back(compiled);
        Some(handle)
    }

    /// Links the exit `link` (from a [`Left`]) to the compiled block `to` at `pc`, whose
    /// guest instruction count is `count`: the exit then goes on in `to`'s code while the
    /// budget allows (an indirect one, while `pc` keeps its entry in the table).
    pub fn link(&mut self, link: Link, pc: u64, to: u32, count: u32) {
        match link {
            Link::Stub(stub) => self.code.chain(stub, to, count),
            Link::Indirect => self.code.set_target(pc, to, count),
            // (Not an exit: see `divert`.)
            Link::Divert(_) => {}
        }
    }

    /// Makes the compiled block `from`'s failed guard check go on in `to`, the same block
    /// compiled with no probes ([`Source::unprobed`]), instead of bailing out. Returns
    /// whether it did (see [`code::CodeBuf::divert`]).
    pub fn divert(&mut self, from: u32, to: u32) -> bool {
        self.code.divert(from, to)
    }

    /// Undoes every link: each block's exits return to the run loop again.
    pub fn unlink_all(&mut self) {
        self.code.unchain_all();
    }

    /// Forgets all compiled code (the block cache was flushed).
    pub fn clear(&mut self) {
        self.code.clear();
        self.sites.clear();
        // (The next sink's counters may be fewer.)
        (self.lent, self.unchecked) = (0, 0);
        self.epoch = None;
    }

    /// Whether the compiled code may run probes on a state of `epoch`: the states lent
    /// since the code was cleared were of that epoch (or none was, and `epoch` becomes
    /// theirs). The run loop clears the code before lending a state of another.
    pub fn lends_epoch(&mut self, epoch: u64) -> bool {
        *self.epoch.get_or_insert(epoch) == epoch
    }

    /// Whether the compiled code may run probes on a lease of `counts` counters: not if
    /// it adds to counters beyond them with no check. A sink's counters only grow (a
    /// path profile's do), so this always holds for its leases; one whose counters get
    /// fewer loses its compiled probes (they miss and its events are delivered) until
    /// the cache is flushed. Code compiled after a lease is accepted counts in its
    /// counters unchecked.
    pub fn lend(&mut self, counts: usize) -> bool {
        let counts = counts as u64;
        let lends = counts >= self.unchecked;
        if lends {
            self.lent = counts;
        }
        lends
    }

    /// Bytes of compiled code.
    pub fn bytes(&self) -> usize {
        self.code.len()
    }

    /// Runs the compiled block `handle` on the hart `cpu` and the memory `mem`, with
    /// `budget` instructions that may retire before the run loop must look (more than the
    /// block's count), and what probes run on (`Probes::NONE`: every probe misses);
    /// `None` if it cannot run (see [`code::CodeBuf::call`]).
    #[inline(always)]
    pub fn run(
        &self,
        handle: u32,
        cpu: &mut Cpu,
        mem: &mut Memory,
        budget: u64,
        probes: Probes,
    ) -> Option<Left> {
        let log = self.log.as_ptr().cast::<Rec>();
        let shared = (self.sites.as_ptr(), self.idle.as_ptr());
        let fp_off = cpu.fp_disabled();
        let cpu: *mut Cpu = cpu;
        let mut ctx = Ctx::new(
            (cpu, fp_off),
            mem,
            budget,
            self.code.targets(),
            log,
            probes,
            shared,
        )?;
        let ret = self.code.call(handle, cpu, &mut ctx)?;
        Some(Left {
            pc: ret.pc,
            kind: ret.kind,
            budget: ctx.budget,
            slot: ctx.slot,
            at: ctx.at,
            link: match ctx.stub {
                NONE | UNPROBED => None,
                INDIRECT => Some(Link::Indirect),
                DIVERT => Some(Link::Divert(ctx.slot)),
                stub => Some(Link::Stub(stub)),
            },
            unprobed: ctx.stub == UNPROBED,
            logged: (ctx.log_len as usize).min(LOG_CAP),
        })
    }

    /// The records of the last [`run`](Self::run) (`n` of them: its [`Left::logged`]).
    pub fn logged(&self, n: usize) -> &[Cell<Rec>] {
        let log: &Cell<[Rec]> = &*self.log;
        let recs = log.as_slice_of_cells();
        &recs[..n.min(recs.len())]
    }
}

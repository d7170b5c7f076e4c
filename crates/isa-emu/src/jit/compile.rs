//! Compiles a translated block into x86-64 code.
//!
//! The code keeps the guest registers in [`Cpu::x`](crate::cpu::Cpu::x) (pointed to by
//! rdi) and caches up to six of them in host registers while the block runs. A result
//! stays in its cache register until the register is evicted or the code leaves the
//! block: each exit first stores the registers dirty where it is taken.
//!
//! Guest memory is reached through the [`Ctx`] that rsi points to, kept in r8 (host
//! address of the span), r9 (its guest base) and r10 (its length less 8). An access whose
//! offset in the span is above r10, or a store that may touch code, is not performed: the
//! code *bails out* before the instruction, and the threaded interpreter runs the rest of
//! the block from there, raising the fault or noting the store into code exactly as without
//! compiled code. Operations the compiler does not know bail out the same way.
//!
//! r11 holds the budget (see [`compile`]); rax, rcx and rdx are scratch, but for the
//! probes' state: rcx points to it past a guard's check, and from there on wherever the
//! code loaded it and nothing wrote rcx since, so probes load it only where it may have
//! changed; likewise the counters in rdx, within a block's code and into its exits' stubs
//! (see [`Kept`]).
//!
//! Floating-point loads and stores move between guest memory and the hart's `f`
//! registers, which stay in memory (at their displacement from `x`). A floating-point
//! computation, and an access of a floating-point CSR, is a call of
//! [`exec_op`](super::exec_op), which runs the interpreter's code on the hart (the
//! context's `cpu`): correctly rounded, with its flags, as a host instruction sequence
//! would reproduce only with much more code.

use super::x86::{Alu, Asm, Cc, Load, Mem, Reg, Shift, W};
use super::x86::{R10, R11, R12, R13, R14, R15, R8, R9, RAX, RBP, RBX, RCX, RDI, RDX, RSI};
use super::{
    call_operands, Ctx, Rec, Site, SiteKind, SiteProbe, Target, DIVERT, IDLE_KEY, INDIRECT,
    NO_EPOCH, PART_REC, RESUME_ADD, SIDE, TARGET_SLOTS, UNPROBED,
};
use crate::cpu::{csr, Cpu};
use crate::fpu;
use crate::insn::Op;
use crate::xlat::{Meta, Tinsn};
use prof_events::{Frame, Probe, ProbeEnd, ProbeOp, ProbeState, SAVES};

/// Host registers that cache guest registers.
const CACHE: [Reg; 6] = [RBX, RBP, R12, R13, R14, R15];
/// Registers the prologue saves and the epilogue restores: System V's callee-saved ones,
/// which are the cache registers.
const SAVED: [Reg; 6] = CACHE;
/// The fewest instructions compiled before one that always bails out: a shorter prefix
/// saves less than the call and the bail-out cost.
const MIN_PREFIX: usize = 6;
/// No register.
const NO: u8 = u8::MAX;
/// Offsets of a [`ProbeEnd`]'s fields.
const END_BASE: i32 = std::mem::offset_of!(ProbeEnd, base) as i32;
const END_SIZE: i32 = std::mem::offset_of!(ProbeEnd, size) as i32;
const END_ADD: i32 = std::mem::offset_of!(ProbeEnd, add) as i32;
const END_SET: i32 = std::mem::offset_of!(ProbeEnd, set) as i32;
/// The displacement of the top saved sum from `Mem::Words(state, saved)`
/// ([`ProbeState::SAVES`] less one sum).
const TOP_SAVED: i32 = ProbeState::SAVES as i32 - 8;
/// Guest register slots the code may touch: x0 … x31 and the x0-write scratch slot 32.
const GUEST_SLOTS: usize = 33;

/// A probe's operand: an immediate, or a field of the [`SiteProbe`] r14 points to.
#[derive(Clone, Copy, Debug)]
enum Val {
    Imm(u64),
    Site(i32),
}

impl Val {
    /// The value as a 32-bit immediate that sign-extends to it, if it is one.
    fn imm32(self) -> Option<i32> {
        match self {
            Val::Imm(v) => i32::try_from(v as i64).ok(),
            Val::Site(_) => None,
        }
    }
}

/// Where a probe finds the sum it reads: the state's, a register's, known when compiled,
/// or the state's plus an addition not yet stored ([`Ahead::Plus`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sum {
    State,
    Reg(Reg),
    Known(i64),
    Plus(i32),
}

impl Sum {
    /// The sum where the code is ahead of the state, or else the state's.
    fn of(ahead: Option<Ahead>) -> Sum {
        match ahead {
            None => Sum::State,
            Some(Ahead::Known(v)) => Sum::Known(v),
            Some(Ahead::Plus(d)) => Sum::Plus(d),
        }
    }
}

/// What the code knows of the sum's low half that the state does not hold yet (see
/// [`Compiler::pending`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ahead {
    /// The sum, known when compiled (after a path end, which sets it).
    Known(i64),
    /// The state's sum plus this, the additions since: the first checked the state's sum
    /// within ±2^62 ([`Compiler::defer_add`]), and this stays a nonzero 32-bit one, so no
    /// sum on the way leaves 64 bits and every addition deferred would have applied.
    Plus(i32),
}

/// An address the context holds that the code keeps in a scratch register once it loaded
/// it, for as long as nothing writes the register ([`Asm::era`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kept {
    /// rcx = the probe state the context points to. Code past a guard's check starts
    /// with it, since every stub chained there loads it first if need be (see
    /// [`Compiler::stub`]).
    State,
    /// rdx = the counters (which compiled code never changes).
    Counters,
}

impl Kept {
    const ALL: [Kept; 2] = [Kept::State, Kept::Counters];

    fn reg(self) -> Reg {
        match self {
            Kept::State => RCX,
            Kept::Counters => RDX,
        }
    }

    fn field(self) -> i32 {
        match self {
            Kept::State => Ctx::PROBE as i32,
            Kept::Counters => Ctx::COUNTS as i32,
        }
    }
}

/// Where a way that counts has found its counter: in rax, known when compiled (its
/// byte offset in the counters, a 32-bit displacement), or at rax plus a base known when
/// compiled (its offset in the counters, a 32-bit displacement).
#[derive(Clone, Copy, Debug)]
enum Counter {
    Rax,
    At(i32),
    RaxPlus(i32),
}

impl Counter {
    /// The counter at index `c`, if its offset is a 32-bit displacement.
    fn at(c: u64) -> Option<Counter> {
        let disp = c.checked_mul(8)?;
        i32::try_from(disp).ok().map(Counter::At)
    }
}

/// A path end's ways: `ways` from index `end` on, or those the [`SiteProbe`] r14 points to
/// names (at most [`Site::END_WAYS`]).
#[derive(Clone, Copy, Debug)]
enum EndAt {
    Fixed { end: u32, ways: u8 },
    Site,
}

/// The dirty cache registers at one point of the code, with the guest register each holds
/// (guest, host): a copy with no allocation, since every exit and bail-out takes one.
#[derive(Clone, Copy)]
struct Dirty {
    regs: [(u8, Reg); CACHE.len()],
    len: u8,
}

impl std::ops::Deref for Dirty {
    type Target = [(u8, Reg)];

    fn deref(&self) -> &[(u8, Reg)] {
        &self.regs[..usize::from(self.len)]
    }
}

/// Which guest register each cache register holds.
struct RegCache {
    /// Index into [`CACHE`] holding each guest register, or [`NO`].
    slot_of: [u8; GUEST_SLOTS],
    /// Guest register held in each cache register, or [`NO`].
    guest: [u8; CACHE.len()],
    /// When each cache register was last used (for least-recently-used eviction).
    used: [u32; CACHE.len()],
    /// Each cache register holds a value not yet stored to `x`.
    dirty: [bool; CACHE.len()],
    clock: u32,
}

impl RegCache {
    fn new() -> RegCache {
        RegCache {
            slot_of: [NO; GUEST_SLOTS],
            guest: [NO; CACHE.len()],
            used: [0; CACHE.len()],
            dirty: [false; CACHE.len()],
            clock: 0,
        }
    }

    /// The dirty cache registers, with the guest register each holds.
    fn dirty(&self) -> Dirty {
        let mut d = Dirty {
            regs: [(0, 0); CACHE.len()],
            len: 0,
        };
        for s in (0..CACHE.len()).filter(|&s| self.dirty[s]) {
            d.regs[usize::from(d.len)] = (self.guest[s], CACHE[s]);
            d.len += 1;
        }
        d
    }

    fn touch(&mut self, slot: usize) -> Reg {
        self.clock += 1;
        self.used[slot] = self.clock;
        CACHE[slot]
    }

    /// A cache register for guest register `g`, evicting the least recently used one that
    /// is not `keep`, and the guest register it held if that one is dirty (the caller
    /// stores it before filling the register).
    fn claim(&mut self, g: u8, keep: Reg) -> (usize, Option<u8>) {
        let slot = (0..CACHE.len())
            .filter(|&s| CACHE[s] != keep)
            .min_by_key(|&s| (self.guest[s] != NO, self.used[s]))
            .unwrap_or(0);
        let evicted = self.guest[slot];
        if let Some(old) = self.slot_of.get_mut(usize::from(evicted)) {
            *old = NO;
        }
        let spill = std::mem::take(&mut self.dirty[slot]).then_some(evicted);
        self.guest[slot] = g;
        self.slot_of[usize::from(g)] = slot as u8;
        (slot, spill)
    }
}

/// The host shift and width of a shift operation (by a register or an immediate).
fn shift_of(op: Op) -> Option<(Shift, W)> {
    Some(match op {
        Op::Sll | Op::Slli => (Shift::Shl, W::Q),
        Op::Srl | Op::Srli => (Shift::Shr, W::Q),
        Op::Sra | Op::Srai => (Shift::Sar, W::Q),
        Op::Sllw | Op::Slliw => (Shift::Shl, W::D),
        Op::Srlw | Op::Srliw => (Shift::Shr, W::D),
        Op::Sraw | Op::Sraiw => (Shift::Sar, W::D),
        _ => return None,
    })
}

/// The offset of guest register `g` in `x`.
fn disp(g: u8) -> i32 {
    i32::from(g) * 8
}

/// The displacement of floating-point register `f` from `x`.
fn fdisp(f: u8) -> i32 {
    use std::mem::offset_of;
    const F: i32 = offset_of!(Cpu, f) as i32 - offset_of!(Cpu, x) as i32;
    F + 8 * i32::from(f & 31)
}

/// The caller-saved registers the code keeps (see the module docs) that a call must not
/// lose: pushed around it (r8, r9 and r10 are the context's, loaded again after it).
const KEPT: [Reg; 3] = [RDI, RSI, R11];

/// Loads r8, r9 and r10 from the context rsi points to (see the module docs).
fn span_registers(asm: &mut Asm) {
    asm.load(R8, RSI, Ctx::HOST as i32);
    asm.load(R9, RSI, Ctx::BASE as i32);
    asm.load(R10, RSI, Ctx::LIMIT as i32);
}

/// The F and D computations (every F and D op but the loads and stores).
fn fp_computes(op: Op) -> bool {
    op >= Op::Flw && !matches!(op, Op::Flw | Op::Fsw | Op::Fld | Op::Fsd)
}

/// The compiler's state for one block.
struct Compiler<'a> {
    asm: &'a mut Asm,
    regs: RegCache,
    /// Exits to emit after the body.
    exits: Vec<ExitCode>,
    /// Way searches to emit after the exits (see [`ColdWays`]).
    colds: Vec<ColdWays>,
    /// Jumps to the epilogue (emitted last).
    returns: Vec<usize>,
    /// The code runs no probe ([`Source::unprobed`]).
    unprobed: bool,
    /// The key and epoch the state has here, if known: the block's entry checked them
    /// (see [`Guard`]), or, further on in a probed superblock, the probes between its
    /// parts left them. A probe under them needs no check of its own.
    guard: Option<Guard>,
    /// What the state must get before anything reads it: additions and path ends under a
    /// known guard leave their next key and sum here instead of storing them, since the
    /// code that follows knows them, and path ends of a known sum between a probed
    /// superblock's parts leave their counts. Whatever reads the state (a check, a probe
    /// of another kind, the run loop, a block chained to) gets them stored first
    /// ([`Compiler::settle`]).
    pending: Unstored,
    /// The top saved sum, where this code saved it (a region entry, or a call into a
    /// region, between a probed superblock's parts) and no probe since may have changed
    /// the saved sums: a region exit pops it without reading it (it checks the floor only)
    /// and knows the sum after.
    top_saved: Option<i64>,
    /// Additions under the known guard may be deferred where the sum is the state's
    /// ([`defer_add`](Self::defer_add)): between a probed superblock's parts, where more
    /// probes follow that take them.
    defer: bool,
    /// The sink's probes may save sums ([`prof_events::Sink::saves_sums`]): where they
    /// do not, the state lent holds no sum saved and every floor is 0 (the run loop lends
    /// no other), so calls and returns need not save, check or restore the floor, and a
    /// probe that saves a sum never applies.
    saves: bool,
    /// The counters of the latest lease ([`Jit::lend`](super::Jit::lend)): a way known
    /// when compiled to count below this adds to its counter with no check of the
    /// counters' length.
    lent: u64,
    /// The counters that code counts in unchecked (see [`Compiled::unchecked`]).
    unchecked: u64,
    /// The epoch of the states lent to compiled code since it was cleared, if one was
    /// (see [`Jit::lends_epoch`](super::Jit::lends_epoch)).
    epoch: Option<u64>,
    /// Where the block's code starts in the assembler's buffer.
    start: usize,
    /// Per [`Kept`] address, the era of its register in which the code loaded it: the
    /// register holds it while that era lasts.
    kept: [Option<u32>; 2],
    /// What each stretch of the code does (see [`Compiled::sections`]).
    sections: Vec<(u32, Section)>,
}

/// What the code knows of the probe state at a point, which an exit taken there carries
/// into its stub ([`Compiler::known`]).
#[derive(Clone, Copy, Debug)]
struct Known {
    /// See [`Compiler::guard`].
    guard: Option<Guard>,
    /// See [`Compiler::pending`].
    pending: Unstored,
    /// See [`Compiler::top_saved`].
    top_saved: Option<i64>,
}

/// The key and the sum's low half known at a point of the code and not yet stored in the
/// state, and the counts not yet added to a counter (see [`Compiler::pending`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Unstored {
    key: Option<u64>,
    sum: Option<Ahead>,
    /// `(disp, n)`: `n` counts of the counter at displacement `disp` from the counters,
    /// known when compiled, from path ends between a probed superblock's parts (see
    /// [`Compiler::count_between`]). Like an addition deferred, they count each time
    /// they are stored.
    count: Option<(i32, i32)>,
}

impl Compiler<'_> {
    /// The code from here on does `what` (see [`Compiled::sections`]).
    fn section(&mut self, what: Section) {
        let at = (self.asm.code.len() - self.start) as u32;
        match self.sections.last_mut() {
            Some(last) if last.1 == what => {}
            Some(last) if last.0 == at => last.1 = what,
            _ => self.sections.push((at, what)),
        }
    }

    /// What the code being emitted does.
    fn current_section(&self) -> Section {
        self.sections
            .last()
            .map_or(Section::Code("prologue"), |s| s.1)
    }

    /// The host register holding guest register `g`, loading it if it is not cached;
    /// `keep` (a register another operand is in) is not evicted for it.
    fn get(&mut self, g: u8, keep: Reg) -> Reg {
        let slot = match self.regs.slot_of[usize::from(g)] {
            NO => {
                let s = self.claim(g, keep);
                self.asm.load(CACHE[s], RDI, disp(g));
                s
            }
            s => usize::from(s),
        };
        self.regs.touch(slot)
    }

    /// A cache register for `g` (see [`RegCache::claim`]), the dirty value it held stored.
    fn claim(&mut self, g: u8, keep: Reg) -> usize {
        let (slot, spill) = self.regs.claim(g, keep);
        if let Some(old) = spill {
            self.asm.store(RDI, disp(old), CACHE[slot]);
        }
        slot
    }

    /// Stores `dirty` registers (guest, host) to `x`.
    fn write_back(&mut self, dirty: &[(u8, Reg)]) {
        for &(g, h) in dirty {
            self.asm.store(RDI, disp(g), h);
        }
    }

    /// Stores guest register `g` to `x` if its cache register holds a newer value, and
    /// with `forget` drops it from the cache (for code that writes it in `x`).
    fn flush(&mut self, g: u8, forget: bool) {
        let slot = usize::from(self.regs.slot_of[usize::from(g)]);
        if slot >= CACHE.len() {
            return;
        }
        if std::mem::take(&mut self.regs.dirty[slot]) {
            self.asm.store(RDI, disp(g), CACHE[slot]);
        }
        if forget {
            self.regs.guest[slot] = NO;
            self.regs.slot_of[usize::from(g)] = NO;
        }
    }

    /// Both source operands of `insn`.
    fn get2(&mut self, insn: &Tinsn) -> (Reg, Reg) {
        let a = self.get(insn.rs1, NO);
        let b = self.get(insn.rs2, a);
        (a, b)
    }

    /// Guest register `g` = host register `value` (not a cache register), in its cache
    /// register (stored to `x` on eviction and on leaving).
    fn set(&mut self, g: u8, value: Reg) {
        let slot = match self.regs.slot_of[usize::from(g)] {
            NO => self.claim(g, NO),
            s => usize::from(s),
        };
        let h = self.regs.touch(slot);
        self.regs.dirty[slot] = true;
        self.asm.mov(h, value);
    }

    /// Guest register `g` = `imm`.
    fn set_imm(&mut self, g: u8, imm: u64) {
        self.asm.mov_imm(RAX, imm);
        self.set(g, RAX);
    }

    /// A bail-out before arena index `at`, taken by the jump whose displacement is at
    /// `jump`.
    fn bail(&mut self, jump: usize, at: usize) {
        self.bail_out(Jumps::one(jump), at, false);
    }

    /// A bail-out before arena index `at`, taken by `jumps`; with `divert`, that of a
    /// guard's failed check ([`ExitCode::divert`]).
    fn bail_out(&mut self, jumps: Jumps, at: usize, divert: bool) {
        self.exits.push(ExitCode {
            dirty: self.regs.dirty(),
            jumps,
            pc: 0,
            kind: kind::BAIL,
            at: at as u32,
            retired: None,
            known: self.known(),
            divert,
            held: [false; 2],
        });
    }

    /// Goes on at the compiled block for the pc in rax if the table of indirect targets
    /// holds it and its count fits in the budget once this block's `retired` instructions
    /// are deducted; else falls through (rax kept).
    fn indirect(&mut self, retired: u32) {
        self.section(Section::Code("indirect jump"));
        self.asm.load(RCX, RSI, Ctx::TARGETS as i32);
        self.asm.mov(RDX, RAX);
        self.asm
            .alu_imm(W::D, Alu::And, RDX, (TARGET_SLOTS as i32 - 1) << 1);
        self.asm.shift_imm(W::D, Shift::Shl, RDX, 4);
        self.asm.alu(W::Q, Alu::Add, RCX, RDX);
        self.asm
            .alu_mem(W::Q, Alu::Cmp, RAX, RCX, Target::PC as i32);
        let miss = self.asm.jcc(Cc::Ne);
        self.asm.alu_imm32(Alu::Sub, R11, retired);
        self.asm
            .alu_mem(W::Q, Alu::Cmp, R11, RCX, Target::COUNT as i32);
        let short = self.asm.jcc(Cc::Be);
        self.asm.jmp_mem(RCX, Target::BODY as i32);
        self.asm.patch(short);
        self.asm.alu_imm32(Alu::Add, R11, retired);
        self.asm.patch(miss);
    }

    /// Leaves for the run loop with the next pc in rax (see [`kind`]).
    fn leave(&mut self, kind: u64, at: u32, slot: u32) {
        self.section(Section::Code("leave"));
        self.asm.mov_imm(RDX, kind);
        self.asm.store_imm32(RSI, Ctx::SLOT as i32, slot);
        self.asm.store_imm32(RSI, Ctx::AT as i32, at);
        let j = self.asm.jmp();
        self.returns.push(j);
    }

    /// Appends the record ([`Rec`]) of a logged block's exit by instruction `at` to the
    /// next pc (`pc`, or the one in rax) to the log; returns the jump (`jae`) taken when
    /// that filled the log to its cap ([`Ctx`]'s `log_cap`, at most [`LOG_CAP`](super::LOG_CAP)), after
    /// which the code must return to the run loop rather than go on.
    fn log(&mut self, pc: Option<u64>, slot: u32, at: u32) -> usize {
        self.section(Section::Code("log"));
        self.asm.load(RCX, RSI, Ctx::LOG_LEN as i32);
        self.asm.mov(RDX, RCX);
        self.asm.shift_imm(W::Q, Shift::Shl, RDX, Rec::SHIFT);
        self.asm.alu_mem(W::Q, Alu::Add, RDX, RSI, Ctx::LOG as i32);
        // A fixed exit's pc goes through rax, which its stub sets again before leaving
        // (and a chained block's body does not read).
        if let Some(pc) = pc {
            self.asm.mov_imm(RAX, pc);
        }
        self.asm.store(RDX, Rec::PC, RAX);
        self.asm.store_imm32(RDX, Rec::SLOT, slot);
        self.asm.store_imm32(RDX, Rec::AT, at);
        // Probes miss until the run loop delivered the record.
        self.asm.load(RDX, RSI, Ctx::IDLE as i32);
        self.asm.store(RSI, Ctx::PROBE as i32, RDX);
        self.asm.alu_imm(W::Q, Alu::Add, RCX, 1);
        self.asm.store(RSI, Ctx::LOG_LEN as i32, RCX);
        self.asm
            .alu_mem(W::Q, Alu::Cmp, RCX, RSI, Ctx::LOG_CAP as i32);
        self.asm.jcc(Cc::Ae)
    }

    /// Runs `probe` on the [`ProbeState`], counters and path ends the context points to
    /// (see [`prof_events::probe`]):
    /// pushes onto `miss` the jumps taken, having changed nothing, where it does not apply
    /// (no state; records not yet delivered, which may change the state; another key or
    /// epoch, which a probe under the block's [`Guard`] leaves to the block's entry; an
    /// addition past the signed 64-bit range; a path end out of the state's ends, or
    /// counting out of range or out of its counters), and falls through where it applied.
    /// Works on the sum's low half, a signed 64-bit sum: the run loop lends the state only
    /// when its sum is one, and sign-extends the low half into the high one after the code
    /// ran. A probe under the known [`guard`](Self::guard) takes what is
    /// [`pending`](Self::pending) but for a tail call's and a restart's
    /// ([`takes_pending`]): it leaves its next key pending, and the sum after where it is
    /// known (a call the callee's key and sum; a return sets its frame's); a caller stores
    /// what was pending before the probe where it misses. Any other probe stores what is
    /// pending first, then its own key. Uses rax, rcx and rdx, and r12 to r15 (cache
    /// registers, free once the exit stored the guest registers); a return's jump target
    /// is in r12.
    fn probe(&mut self, probe: &Probe, miss: &mut Vec<usize>) {
        let around = self.current_section();
        self.section(Section::Probe(probe.op.name()));
        self.probe_op(probe, miss);
        self.section(around);
    }

    /// [`probe`](Self::probe)'s code.
    fn probe_op(&mut self, probe: &Probe, miss: &mut Vec<usize>) {
        const SUM: i32 = ProbeState::SUM as i32;
        // Additions and path ends leave the saved sums alone; other probes may change them.
        let top = self.top_saved.take();
        if leaves_pending(&probe.op) {
            self.top_saved = top;
        }
        // Probes under the known guard that take what is pending read no key: their next
        // is left pending (a call's is the callee's; a return sets its frame's). Tail
        // calls and restarts, and probes under another guard, get the one pending first.
        let guarded = self.guard == Some(Guard::of(probe));
        let lazy = guarded && takes_pending(&probe.op);
        // A call under the known guard sets the key and the sum itself: what is pending
        // need not be stored (a miss stores it), and a sum known is the caller's.
        let mut caller = Sum::State;
        if guarded && matches!(probe.op, ProbeOp::Call { .. }) {
            caller = Sum::of(self.take_key_and_sum().sum);
        } else if self.stores_pending(probe) {
            self.settle();
        } else if self.known_sum(probe, miss) {
            self.next_key(probe, true);
            return;
        }
        if guarded {
            self.keep(Kept::State);
        } else {
            self.applies(Val::Imm(probe.key), Val::Imm(probe.epoch), miss);
        }
        let a = &mut *self.asm;
        match probe.op {
            // An edge that adds nothing only moves the key.
            ProbeOp::Add(0) => {}
            ProbeOp::Add(v) => {
                // (A path's running sum may dip below 0 on the way.) On what is pending,
                // where `known_sum` could not fold the addition into it.
                let sum = self.pending_sum();
                self.sum_into(RAX, sum);
                self.plus(RAX, v, miss);
                self.asm.store(RCX, SUM, RAX);
            }
            ProbeOp::End {
                end,
                ways,
                set,
                first,
            } => {
                let sum = self.pending_sum();
                self.count_first_then_ways(first, EndAt::Fixed { end, ways }, sum, miss);
                self.sum_after(set, lazy);
            }
            ProbeOp::Count(end) => self.count_fixed(&end, miss, lazy),
            ProbeOp::Push { add, inner, set } => {
                // (With no cache register: a probed superblock goes on past it.)
                self.room_for(1 + u8::from(inner.is_some()), miss);
                let sum = self.pending_sum();
                let known = match sum {
                    Sum::Known(sum) => sum.checked_add(add),
                    _ => None,
                };
                match known {
                    Some(saved) => self.save_known(saved),
                    // (A known sum that overflows misses when run.)
                    None => {
                        self.sum_into(RAX, sum);
                        self.plus(RAX, add, miss);
                        self.save(RAX, RDX);
                    }
                }
                if let Some(inner) = inner {
                    self.save_known(inner);
                }
                self.top_saved = inner.or(known);
                self.sum_after(set, lazy);
            }
            ProbeOp::PushEnd {
                add,
                inner,
                set,
                end,
                ways,
                first,
            } => {
                self.room_for(1 + u8::from(inner.is_some()), miss);
                self.sum_plus(R12, add, miss);
                // The path end counts the known `set`: at a known counter where the way
                // given first counts it (which then sets the sum), else through a search;
                // the sums save once it cannot miss.
                let known = match first.and_then(|f| Some((f.set, counter_of(&f, set)?))) {
                    Some((after, c)) => Some((after, self.counter_known(c, miss))),
                    None => {
                        self.path_end(EndAt::Fixed { end, ways }, Sum::Known(set), miss);
                        None
                    }
                };
                self.save(R12, R15);
                self.save_inner(inner);
                match known {
                    Some((after, counter)) => {
                        self.count(counter);
                        self.sum_after(after, lazy);
                    }
                    None => self.count_end(),
                }
            }
            ProbeOp::Pop {
                end,
                ways,
                add,
                first,
            } => {
                // The top saved sum + add pops after the count (of the sum pending, under
                // the known guard). Where this code saved it, it is known, and so is the
                // sum after; but it is the activation's only above its floor, which a
                // state lent may have put above the sums saved.
                let sum = self.pending_sum();
                let after = top.and_then(|top| top.checked_add(add));
                match after {
                    Some(_) => self.saved_above_floor(RAX, miss),
                    None => self.top_saved_plus(add, miss),
                }
                self.count_first_then_ways(first, EndAt::Fixed { end, ways }, sum, miss);
                self.asm
                    .alu_mem_imm(Alu::Sub, RCX, ProbeState::SAVED as i32, 1);
                match after {
                    Some(after) => self.sum_after(after, lazy),
                    None => self.asm.store(RCX, SUM, R12),
                }
            }
            ProbeOp::PopEnd {
                end,
                ways,
                outer,
                outer_ways,
                pop,
            } => {
                // r12 = the top saved sum, which the outer path end counts; with `pop`, the
                // one below must be the activation's too. r13 = the inner path end's
                // counter; both are found before either counts. The inner one counts the
                // sum pending.
                let sum = self.pending_sum();
                self.top_saved_plus(0, miss);
                if pop {
                    // (saved > floor, checked: saved - 1 does not wrap.)
                    let a = &mut *self.asm;
                    a.load(RAX, RCX, ProbeState::SAVED as i32);
                    a.alu_imm(W::Q, Alu::Sub, RAX, 1);
                    a.alu_mem(W::Q, Alu::Cmp, RAX, RCX, ProbeState::FLOOR as i32);
                    miss.push(a.jcc(Cc::Be));
                }
                self.path_end(EndAt::Fixed { end, ways }, sum, miss);
                self.asm.mov(R13, RAX);
                let outer = EndAt::Fixed {
                    end: outer,
                    ways: outer_ways,
                };
                self.path_end(outer, Sum::Reg(R12), miss);
                // r15 = the sum after: the next saved sum, or the one the outer end sets.
                let (base, after, pops) = match pop {
                    true => (Mem::Words(RCX, R14), TOP_SAVED - 8, 2),
                    false => (Mem::Base(RDX), END_SET, 1),
                };
                self.asm.load(R15, base, after);
                self.count_at(RAX);
                // (rdx = the counters, from the count before.)
                self.asm.count_sib(RDX, R13);
                let a = &mut *self.asm;
                a.store(RCX, SUM, R15);
                a.alu_mem_imm(Alu::Sub, RCX, ProbeState::SAVED as i32, pops);
            }
            ProbeOp::Through {
                add,
                set,
                end,
                ways,
            } => {
                self.sum_plus(R12, add, miss);
                self.path_end(EndAt::Fixed { end, ways }, Sum::Known(set), miss);
                self.count_at(RAX);
                self.asm.store(RCX, SUM, R12);
            }
            ProbeOp::PopPush {
                end,
                ways,
                add,
                set,
            } => {
                // The top saved sum becomes itself + add, and stays; the sum pending counts,
                // and the sum after is known (pending if lazy).
                let sum = self.pending_sum();
                self.top_saved_plus(add, miss);
                self.path_end(EndAt::Fixed { end, ways }, sum, miss);
                self.count_at(RAX);
                self.asm.store(Mem::Words(RCX, R14), TOP_SAVED, R12);
                self.sum_after(set, lazy);
            }
            ProbeOp::Call {
                push,
                end,
                enter,
                start,
                ..
            } => {
                if let Some((operands, _)) = call_operands(&probe.op) {
                    let operands = operands.map(Val::Imm);
                    let saves = u8::from(enter.is_some());
                    self.then_save(push, saves, miss, |c, miss| {
                        // r15 = the caller's sum after the path end it passes first (r13 =
                        // that end's counter), and after the region it enters then (r14 =
                        // the sum that saves); all checked before anything changes.
                        let mut sum = caller;
                        if let Some((end, ways)) = end {
                            c.path_end(EndAt::Fixed { end, ways }, sum, miss);
                            c.asm.mov(R13, RAX);
                            c.asm.load(R15, RDX, END_SET);
                            sum = Sum::Reg(R15);
                        }
                        if let Some((add, set)) = enter {
                            c.sum_into(R14, sum);
                            c.plus(R14, add, miss);
                            sum = Sum::Known(set);
                        }
                        let resumed = c.call_checks(operands, sum, miss);
                        if enter.is_some() {
                            c.save(R14, R15);
                        }
                        c.call_open(operands, resumed);
                        if end.is_some() {
                            c.count_at(R13);
                        }
                    });
                    // The callee's sum, and the one it saved first, if any.
                    self.sum_after(start, lazy);
                    self.top_saved = push;
                }
            }
            ProbeOp::Tail {
                end,
                ways,
                pairs,
                push,
            }
            | ProbeOp::Restart {
                end,
                ways,
                pairs,
                push,
            } => {
                if let ProbeOp::Tail { .. } = probe.op {
                    a.alu_mem_imm(Alu::Cmp, RCX, ProbeState::DEPTH as i32, 0);
                    miss.push(a.jcc(Cc::E));
                }
                self.then_save(push, 0, miss, |c, miss| {
                    c.restart(EndAt::Fixed { end, ways }, Val::Imm(pairs.into()), miss)
                });
            }
            ProbeOp::Return {
                end,
                ways,
                pairs,
                first,
                saves_none,
            } => {
                // r14 = the top frame's offset, of depth - 1 (one of the state's: a depth
                // of 0 wraps above them, as does one a sink lent past them), which must
                // return where the jump goes (in r12).
                const AT: i32 = ProbeState::FRAMES as i32;
                let top = Mem::Indexed(RCX, R14);
                a.load(R14, RCX, ProbeState::DEPTH as i32);
                a.alu_imm(W::Q, Alu::Sub, R14, 1);
                a.alu_imm(W::Q, Alu::Cmp, R14, prof_events::FRAMES as i32);
                miss.push(a.jcc(Cc::Ae));
                a.shift_imm(W::Q, Shift::Shl, R14, Frame::SHIFT as u8);
                a.alu_mem(W::Q, Alu::Cmp, R12, top, AT + Frame::RET as i32);
                miss.push(a.jcc(Cc::Ne));
                // (Under the known guard, the sum pending; the key it sets supersedes
                // the one pending.)
                let taken = std::mem::take(&mut self.pending);
                let sum = Sum::of(taken.sum);
                let pairs = Val::Imm(pairs.into());
                self.activation_checks(pairs, saves_none, miss);
                self.count_first_then_ways(first, EndAt::Fixed { end, ways }, sum, miss);
                self.count_pairs(pairs);
                let a = &mut *self.asm;
                a.load(RAX, top, AT + Frame::RESUMED as i32);
                a.store(RCX, SUM, RAX);
                a.load(RAX, top, AT + Frame::RESUME as i32);
                a.store(RCX, ProbeState::KEY as i32, RAX);
                if self.saves {
                    a.load(RAX, top, AT + Frame::FLOOR as i32);
                    a.store(RCX, ProbeState::FLOOR as i32, RAX);
                }
                a.alu_mem_imm(Alu::Sub, RCX, ProbeState::DEPTH as i32, 1);
                // The counts pending, past the checks (a miss stores what was pending
                // before the probe): the code leaves the activation.
                self.add_counts(taken.count);
                return;
            }
        }
        self.next_key(probe, lazy);
    }

    /// Whether `probe`'s code stores what is pending before it runs: all but those under
    /// the known guard that take it ([`takes_pending`]). A caller whose code stores what
    /// was pending before a probe where it misses settles first for such a probe: an
    /// addition deferred ([`Ahead::Plus`]) counts each time it is stored.
    fn stores_pending(&self, probe: &Probe) -> bool {
        !(takes_pending(&probe.op) && self.guard == Some(Guard::of(probe)))
    }

    /// Stores what is pending before `probe` if its code would store it itself
    /// ([`stores_pending`](Self::stores_pending)), for a caller whose code stores what was
    /// pending before the probe where it misses.
    fn settle_before(&mut self, probe: Option<&Probe>) {
        if probe.is_some_and(|p| self.stores_pending(p)) {
            self.settle();
        }
    }

    /// The state gets `probe`'s next key: stored, or left pending if `lazy`. A probe
    /// applies only where the state's key is its key, which nothing in it changes: one
    /// that keeps it need not store it.
    fn next_key(&mut self, probe: &Probe, lazy: bool) {
        if probe.next == probe.key {
            return;
        }
        if lazy {
            self.pending.key = Some(probe.next);
        } else {
            self.set_state(ProbeState::KEY, Val::Imm(probe.next));
        }
    }

    /// An addition or path end under the known guard whose code what the code knows of
    /// the sum makes shorter or needless: an addition to a known sum is one at compile
    /// time, as is one to additions deferred ([`Ahead::Plus`]), and a path end of a known
    /// sum counts a known counter. False for any other (whose code then reads the sum with
    /// what is pending: an addition that would leave its range does so and stores it).
    fn known_sum(&mut self, probe: &Probe, miss: &mut Vec<usize>) -> bool {
        let folded = match (probe.op, self.pending.sum) {
            (ProbeOp::Add(0), _) => Some(self.pending.sum),
            (ProbeOp::Add(v), Some(Ahead::Known(sum))) => {
                sum.checked_add(v).map(|sum| Some(Ahead::Known(sum)))
            }
            (ProbeOp::Add(v), Some(Ahead::Plus(d))) => i64::from(d)
                .checked_add(v)
                .and_then(|d| i32::try_from(d).ok())
                .map(|d| (d != 0).then_some(Ahead::Plus(d))),
            (ProbeOp::Add(v), None) if self.defer => return self.defer_add(v, miss),
            (ProbeOp::Count(end), Some(Ahead::Known(_))) => {
                self.count_fixed(&end, miss, true);
                return true;
            }
            _ => None,
        };
        folded.map(|sum| self.pending.sum = sum).is_some()
    }

    /// An addition of `v` to the state's sum, deferred ([`Ahead::Plus`]) if it is a 32-bit
    /// one: where the state's sum lies within ±2^62 (else it misses) the sum stays in
    /// 64 bits however many such additions follow, until what is pending is stored or a
    /// probe reads the sum. False (nothing emitted) for a wider addition.
    fn defer_add(&mut self, v: i64, miss: &mut Vec<usize>) -> bool {
        let Ok(v) = i32::try_from(v) else {
            return false;
        };
        // The sum doubled overflows exactly where it lies outside [-2^62, 2^62).
        self.keep(Kept::State);
        let a = &mut *self.asm;
        a.load(RAX, RCX, ProbeState::SUM as i32);
        a.alu(W::Q, Alu::Add, RAX, RAX);
        miss.push(a.jcc(Cc::O));
        self.pending.sum = Some(Ahead::Plus(v));
        true
    }

    /// Whether the way `end`, given in the probe, counts the sum `sum` (or the state's
    /// rcx points to): falls through with the counter if so (returned), else jumps to a
    /// `next`. Where the sum is known, so is the counter: only the counters' length is
    /// read (not even that below [`lent`](Self::lent)), and the count adds to it at its
    /// displacement; where the sum is known out of
    /// the way's range, nothing is emitted and this returns `None` (the way never
    /// counts). Uses rax and rdx.
    fn given_way(&mut self, end: &ProbeEnd, sum: Sum, next: &mut Vec<usize>) -> Option<Counter> {
        match sum {
            Sum::Known(sum) => return Some(self.counter_known(counter_of(end, sum)?, next)),
            _ if end.size == 1 => return self.one_sum_way(end, sum, next),
            _ => {}
        }
        // rax = sum + add, counted if below size (a negative one is above as unsigned), at
        // base + rax if that is one of the counters.
        // (Where size and add are within 2^62, a sum + add beyond 64 bits wraps to at least
        // 2^62 and so fails the size check: no overflow check is needed.)
        const WITHIN: u64 = 1 << 62;
        let wraps_out = end.size <= WITHIN && end.add.unsigned_abs() <= WITHIN;
        // The additions pending and the end's in one: the same 64 bits, and the same
        // overflow, since the state's sum plus those pending cannot overflow.
        let (sum, add) = match sum {
            Sum::Plus(d) => match i64::from(d).checked_add(end.add) {
                Some(add) => (Sum::State, add),
                None => (sum, end.add),
            },
            _ => (sum, end.add),
        };
        self.sum_into(RAX, sum);
        self.plus_val(
            RAX,
            Val::Imm(add as u64),
            (!wraps_out).then_some(&mut *next),
        );
        self.alu_u64(Alu::Cmp, RAX, end.size);
        next.push(self.asm.jcc(Cc::Ae));
        // (rax < size: no carry where base + size fits.)
        let below = end.base.checked_add(end.size);
        // Counters all of the latest lease's need no check: the base is the count's
        // displacement then, where it fits.
        if let Some(Counter::At(disp)) = Counter::at(end.base) {
            if below.is_some_and(|b| self.lent_below(b)) {
                return Some(Counter::RaxPlus(disp));
            }
        }
        self.alu_u64(Alu::Add, RAX, end.base);
        if below.is_none() {
            next.push(self.asm.jcc(Cc::B));
        }
        self.rax_in_counts(below, next);
        Some(Counter::Rax)
    }

    /// [`given_way`](Self::given_way) of a way of one sum (a sparse table's window, or a
    /// table of one path), the sum not known when compiled: it counts the sum `-add`, at
    /// counter `base`, so the code compares the sum with that and counts at a counter it
    /// knows (where the general code adds, compares with the size and adds the base).
    /// Uses rax and rdx.
    fn one_sum_way(&mut self, end: &ProbeEnd, sum: Sum, next: &mut Vec<usize>) -> Option<Counter> {
        // (With add = i64::MIN no 64-bit sum counts.)
        let only = end.add.checked_neg()?;
        self.sum_into(RAX, sum);
        self.alu_u64(Alu::Cmp, RAX, only as u64);
        next.push(self.asm.jcc(Cc::Ne));
        Some(self.counter_known(end.base, next))
    }

    /// Counter `c`, known when compiled: at its displacement if that fits, else in rax;
    /// jumps to a `next` unless it is one of the counters.
    fn counter_known(&mut self, c: u64, next: &mut Vec<usize>) -> Counter {
        if let Some(Counter::At(disp)) = Counter::at(c) {
            self.known_counter(disp / 8, next);
            return Counter::At(disp);
        }
        self.asm.mov_imm(RAX, c);
        self.rax_in_counts(c.checked_add(1), next);
        Counter::Rax
    }

    /// Jumps to a `next` unless the counter index in rax (below `below`, if known) is one
    /// of the counters: no check where those below `below` are the latest lease's.
    fn rax_in_counts(&mut self, below: Option<u64>, next: &mut Vec<usize>) {
        if !below.is_some_and(|b| self.lent_below(b)) {
            let a = &mut *self.asm;
            a.alu_mem(W::Q, Alu::Cmp, RAX, RSI, Ctx::COUNTS_LEN as i32);
            next.push(a.jcc(Cc::Ae));
        }
    }

    /// Jumps to a `miss` unless counter `c`, known when compiled, is one of the counters:
    /// no check where it is one of the latest lease's ([`lent_below`](Self::lent_below)).
    fn known_counter(&mut self, c: i32, miss: &mut Vec<usize>) {
        if u64::try_from(c).is_ok_and(|c| self.lent_below(c + 1)) {
            return;
        }
        let a = &mut *self.asm;
        a.alu_mem_imm(Alu::Cmp, RSI, Ctx::COUNTS_LEN as i32, c);
        miss.push(a.jcc(Cc::Be));
    }

    /// Whether the counters below `n` are all the latest lease's (and so every lease's
    /// that runs this code): if so, the code adds to them with no check of the counters'
    /// length, and says so in [`Compiled::unchecked`].
    fn lent_below(&mut self, n: u64) -> bool {
        let lent = n <= self.lent;
        if lent {
            self.unchecked = self.unchecked.max(n);
        }
        lent
    }

    /// Stores what is pending ([`pending`](Self::pending)) in the state the context points
    /// to. Uses rax and rcx, and rdx where it counts.
    fn settle(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.store(pending);
    }

    /// What the code knows of the state here.
    fn known(&self) -> Known {
        Known {
            guard: self.guard,
            pending: self.pending,
            top_saved: self.top_saved,
        }
    }

    /// Goes on from what `known` says (at an exit's stub).
    fn resume(&mut self, known: Known) {
        (self.guard, self.pending, self.top_saved) = (known.guard, known.pending, known.top_saved);
    }

    /// Whether `k`'s register holds it here.
    fn holds(&self, k: Kept) -> bool {
        self.kept[k as usize] == Some(self.asm.era(k.reg()))
    }

    /// Each [`Kept`] address's register holds it here or not ([`holds`](Self::holds)).
    fn held(&self) -> [bool; 2] {
        Kept::ALL.map(|k| self.holds(k))
    }

    /// Notes that `k`'s register holds it here (every jump here comes from code where
    /// it does).
    fn assume(&mut self, k: Kept) {
        self.kept[k as usize] = Some(self.asm.era(k.reg()));
    }

    /// `k`'s register = `k`, loaded from the context unless it still holds it.
    fn keep(&mut self, k: Kept) {
        if !self.holds(k) {
            self.asm.load(k.reg(), RSI, k.field());
            self.assume(k);
        }
    }

    /// Stores the key and sum of `unstored` in the state the context points to, and adds
    /// its counts to their counter. Uses rax and rcx, and rdx where it counts.
    fn store(&mut self, unstored: Unstored) {
        if unstored == Unstored::default() {
            return;
        }
        self.keep(Kept::State);
        if let Some(key) = unstored.key {
            self.set_state(ProbeState::KEY, Val::Imm(key));
        }
        match unstored.sum {
            Some(Ahead::Known(sum)) => self.set_state(ProbeState::SUM, Val::Imm(sum as u64)),
            Some(Ahead::Plus(d)) => self
                .asm
                .alu_mem_imm(Alu::Add, RCX, ProbeState::SUM as i32, d),
            None => {}
        }
        self.add_counts(unstored.count);
    }

    /// Adds the counts `count` of [`Unstored`], if any, to their counter. Uses rdx.
    fn add_counts(&mut self, count: Option<(i32, i32)>) {
        if let Some((disp, n)) = count {
            self.keep(Kept::Counters);
            self.asm.alu_mem_imm(Alu::Add, RDX, disp, n);
        }
    }

    /// The key and sum pending, taken for a call that sets them itself; the counts stay
    /// pending.
    fn take_key_and_sum(&mut self) -> Unstored {
        Unstored {
            key: self.pending.key.take(),
            sum: self.pending.sum.take(),
            count: None,
        }
    }

    /// The probe of the site way r14 points to ([`SiteProbe`]) of a site of `kind`, which
    /// applies where a call or restart probe with its fields would; as
    /// [`probe`](Self::probe) otherwise. Uses rax, rcx, rdx, r12 and r15.
    fn site_probe(&mut self, kind: SiteKind, miss: &mut Vec<usize>) {
        let around = self.current_section();
        self.section(Section::Probe(match kind {
            SiteKind::Call => "indirect call",
            SiteKind::Jump => "indirect jump",
        }));
        let at = |field: i32| Val::Site(field);
        // (A site's probes may save a sum or open a frame.)
        self.top_saved = None;
        self.applies(at(SiteProbe::KEY), at(SiteProbe::EPOCH), miss);
        match kind {
            SiteKind::Call => {
                let operands = std::array::from_fn(|i| match i {
                    RESUME_ADD => Val::Imm(0),
                    _ => at(SiteProbe::OPERANDS + 8 * i as i32),
                });
                self.call(operands, Sum::State, miss);
            }
            SiteKind::Jump => {
                // A jump table's target adds to the sum (no ways); an unresolved jump's
                // restarts the activation.
                self.asm.alu_mem_imm(Alu::Cmp, R14, SiteProbe::WAYS, 0);
                let restart = self.asm.jcc(Cc::Ne);
                self.sum_into(RAX, Sum::State);
                self.plus_val(RAX, at(SiteProbe::ADD), Some(miss));
                self.asm.store(RCX, ProbeState::SUM as i32, RAX);
                let added = self.asm.jmp();
                self.asm.patch(restart);
                // Where the restart saves a sum, the stack must have room, and the sum is
                // saved after.
                self.asm.alu_mem_imm(Alu::Cmp, R14, SiteProbe::PUSHES, 0);
                let none = self.asm.jcc(Cc::E);
                self.room_for(1, miss);
                self.asm.patch(none);
                self.restart(EndAt::Site, at(SiteProbe::PAIRS), miss);
                self.asm.alu_mem_imm(Alu::Cmp, R14, SiteProbe::PUSHES, 0);
                let none = self.asm.jcc(Cc::E);
                self.asm.load(R12, R14, SiteProbe::PUSH);
                self.save(R12, R15);
                self.asm.patch(none);
                self.asm.patch(added);
            }
        }
        self.set_state(ProbeState::KEY, at(SiteProbe::NEXT));
        self.section(around);
    }

    /// The checks every probe starts with: rcx = the state the context points to (the idle
    /// one while none is lent or records wait in the log), whose key and epoch are `key`
    /// and `epoch`. Uses rax. Once the code has an epoch ([`Compiler::epoch`]), a probe
    /// of another never applies, and one of it checks only its key (the idle state's is
    /// no such probe's).
    fn applies(&mut self, key: Val, epoch: Val, miss: &mut Vec<usize>) {
        // (No state, or records in the log: the context points to the idle one.)
        self.keep(Kept::State);
        match (epoch, self.epoch) {
            (Val::Imm(NO_EPOCH), _) => miss.push(self.asm.jmp()),
            (Val::Imm(e), Some(current)) => {
                if e == current && !matches!(key, Val::Imm(IDLE_KEY)) {
                    self.check(&[(ProbeState::KEY, key)], miss);
                } else {
                    miss.push(self.asm.jmp());
                }
            }
            _ => self.check(&[(ProbeState::KEY, key), (ProbeState::EPOCH, epoch)], miss),
        }
    }

    /// Jumps to a `miss` unless each of the state's `fields` (rcx points to it) holds its
    /// value. Uses rax.
    fn check(&mut self, fields: &[(usize, Val)], miss: &mut Vec<usize>) {
        for &(field, value) in fields {
            match value.imm32() {
                Some(v) => self.asm.alu_mem_imm(Alu::Cmp, RCX, field as i32, v),
                None => {
                    self.val(RAX, value);
                    self.asm.alu_mem(W::Q, Alu::Cmp, RAX, RCX, field as i32);
                }
            }
            miss.push(self.asm.jcc(Cc::Ne));
        }
    }

    /// [`ProbeOp::Call`] on the state rcx points to, its fields `add`, `ret`, `resume`,
    /// `resume_add`, `site` and `start` in that order, the caller's sum being `sum`:
    /// pushes the frame if the stack has room and sets the callee's sum. Uses rax, rdx
    /// and r12.
    fn call(&mut self, operands: [Val; 6], sum: Sum, miss: &mut Vec<usize>) {
        let resumed = self.call_checks(operands, sum, miss);
        self.call_open(operands, resumed);
        self.set_state(ProbeState::SUM, operands[5]);
    }

    /// The checks of [`call`](Self::call), which change nothing: falls through with rdx =
    /// the next frame's offset in the state (see [`Mem::Indexed`]), if the stack has room,
    /// and returns the caller's sum when it resumes, if it fits 64 bits: known, or in rax.
    /// Uses r12 for an addition that is not a 32-bit immediate. ([`call_operands`] sums
    /// `add` and `resume_add` where that fits; where it does not, both have one sign, and
    /// each sum on the way fits exactly where the last does.)
    fn call_checks(
        &mut self,
        [add, _, _, resume_add, _, _]: [Val; 6],
        mut sum: Sum,
        miss: &mut Vec<usize>,
    ) -> Sum {
        let a = &mut *self.asm;
        a.load(RDX, RCX, ProbeState::DEPTH as i32);
        a.alu_imm(W::Q, Alu::Cmp, RDX, prof_events::FRAMES as i32);
        miss.push(a.jcc(Cc::Ae));
        a.shift_imm(W::Q, Shift::Shl, RDX, Frame::SHIFT as u8);
        for v in [add, resume_add] {
            match (sum, v) {
                (_, Val::Imm(0)) => {}
                // (One that leaves the range misses every time.)
                (Sum::Known(known), Val::Imm(v)) => match known.checked_add(v as i64) {
                    Some(known) => sum = Sum::Known(known),
                    None => miss.push(self.asm.jmp()),
                },
                _ => {
                    self.sum_into(RAX, sum);
                    sum = Sum::Reg(RAX);
                    self.alu_val(Alu::Add, RAX, v, R12);
                    miss.push(self.asm.jcc(Cc::O));
                }
            }
        }
        if let Sum::Known(_) = sum {
            return sum;
        }
        self.sum_into(RAX, sum);
        Sum::Reg(RAX)
    }

    /// `dst = sum`.
    fn sum_into(&mut self, dst: Reg, sum: Sum) {
        match sum {
            Sum::Reg(reg) if reg == dst => {}
            Sum::Reg(reg) => self.asm.mov(dst, reg),
            Sum::Known(v) => self.asm.mov_imm(dst, v as u64),
            Sum::State => self.asm.load(dst, RCX, ProbeState::SUM as i32),
            Sum::Plus(d) => {
                self.asm.load(dst, RCX, ProbeState::SUM as i32);
                self.asm.alu_imm(W::Q, Alu::Add, dst, d);
            }
        }
    }

    /// The frame [`call_checks`](Self::call_checks) found room for (rdx) opens with the
    /// caller's sum when it resumes, `resumed` (the callee's sum is the caller's to set).
    /// Uses rax.
    fn call_open(&mut self, [_, ret, resume, _, site, _]: [Val; 6], resumed: Sum) {
        const AT: i32 = ProbeState::FRAMES as i32;
        let frame = Mem::Indexed(RCX, RDX);
        match resumed {
            Sum::Known(v) => self.store_val(frame, AT + Frame::RESUMED as i32, Val::Imm(v as u64)),
            _ => {
                self.sum_into(RAX, resumed);
                self.asm.store(frame, AT + Frame::RESUMED as i32, RAX);
            }
        }
        for (field, value) in [
            (Frame::RET, ret),
            (Frame::RESUME, resume),
            (Frame::SITE, site),
        ] {
            self.store_val(frame, AT + field as i32, value);
        }
        // The callee's floor is the sums saved so far; the caller's returns with the frame.
        // (Both 0 where no sum is ever saved, and so is the floor of every frame in a
        // state lent then, open or not: see `BlockCache::lends`.)
        let a = &mut *self.asm;
        if self.saves {
            a.load(RAX, RCX, ProbeState::FLOOR as i32);
            a.store(frame, AT + Frame::FLOOR as i32, RAX);
            a.load(RAX, RCX, ProbeState::SAVED as i32);
            a.store(RCX, ProbeState::FLOOR as i32, RAX);
        }
        a.alu_mem_imm(Alu::Add, RCX, ProbeState::DEPTH as i32, 1);
    }

    /// Stores `value` in the state's field at `offset` (rcx points to the state). Uses rax.
    fn set_state(&mut self, offset: usize, value: Val) {
        self.store_val(RCX, offset as i32, value);
    }

    /// `[base + disp] = value`: an immediate that sign-extends to it, or else through rax.
    fn store_val(&mut self, base: impl Into<Mem>, disp: i32, value: Val) {
        match value.imm32() {
            Some(v) => self.asm.store_imm(base, disp, v),
            None => {
                self.val(RAX, value);
                self.asm.store(base, disp, RAX);
            }
        }
    }

    /// `dst = value`.
    fn val(&mut self, dst: Reg, value: Val) {
        match value {
            Val::Imm(v) => self.asm.mov_imm(dst, v),
            Val::Site(field) => self.asm.load(dst, R14, field),
        }
    }

    /// The way search of the path end at `end` with `ways` ways on the state rcx points to
    /// (see [`prof_events::ProbeOp::End`]), for the sum `sum` (or the state's): falls
    /// through with rax = the counter and rdx = the way's
    /// [`ProbeEnd`] if a way counts the sum, else jumps to a
    /// `miss`. Uses rax and rdx.
    fn path_end(&mut self, at: EndAt, sum: Sum, miss: &mut Vec<usize>) {
        // Fixed ways, whose entries lie at displacements that fit 32 bits: the table is
        // checked and loaded once, each way then read at its displacement.
        if let EndAt::Fixed {
            end,
            ways: ways @ 1..,
        } = at
        {
            let last = u64::from(end) + u64::from(ways) - 1;
            if let (Ok(last), Ok(_)) = (i32::try_from(last), i32::try_from((last + 1) << 5)) {
                return self.fixed_ways(end, ways, last, sum, miss);
            }
        }
        // Each way in turn, until one counts: rdx = &ends[e], if e < ends_len, then
        // [`way_counts`](Self::way_counts).
        let ways = match at {
            EndAt::Fixed { ways, .. } => ways,
            EndAt::Site => Site::END_WAYS,
        };
        self.each_way(ways, miss, |c, w, next, miss| {
            let a = &mut *c.asm;
            match at {
                EndAt::Fixed { end, .. } => a.mov_imm(RDX, u64::from(end) + u64::from(w)),
                EndAt::Site => {
                    if w > 0 {
                        // The site's ways are fewer: none counted.
                        a.alu_mem_imm(Alu::Cmp, R14, SiteProbe::WAYS, i32::from(w));
                        miss.push(a.jcc(Cc::Be));
                    }
                    a.load(RDX, R14, SiteProbe::END);
                    a.alu_imm(W::Q, Alu::Add, RDX, i32::from(w));
                }
            }
            a.alu_mem(W::Q, Alu::Cmp, RDX, RSI, Ctx::ENDS_LEN as i32);
            next.push(a.jcc(Cc::Ae));
            a.shift_imm(W::Q, Shift::Shl, RDX, 5);
            a.alu_mem(W::Q, Alu::Add, RDX, RSI, Ctx::ENDS as i32);
            c.way_counts(sum, 0, next);
        });
    }

    /// [`path_end`](Self::path_end) of the `ways` ways from `end` on, `last` the index of
    /// the last: jumps to a `miss` unless the ends hold them all, then tries each at its
    /// displacement from the ends (rdx) and points rdx to the one that counts.
    fn fixed_ways(&mut self, end: u32, ways: u8, last: i32, sum: Sum, miss: &mut Vec<usize>) {
        let a = &mut *self.asm;
        a.alu_mem_imm(Alu::Cmp, RSI, Ctx::ENDS_LEN as i32, last);
        miss.push(a.jcc(Cc::Be));
        a.load(RDX, RSI, Ctx::ENDS as i32);
        self.each_way(ways, miss, |c, w, next, _| {
            // (Fits: checked by the caller.)
            let disp = ((end + u32::from(w)) << 5) as i32;
            c.way_counts(sum, disp, next);
            if disp != 0 {
                c.asm.alu_imm(W::Q, Alu::Add, RDX, disp);
            }
        });
    }

    /// The tries of `ways` ways, each emitted by `way(self, w, next, miss)`, which falls
    /// through where way `w` counts and jumps to a `next` where it does not: a way that
    /// does not count goes on to the next, the last one's to a `miss`, and those that count
    /// meet after the last. With no ways, none counts.
    fn each_way(
        &mut self,
        ways: u8,
        miss: &mut Vec<usize>,
        mut way: impl FnMut(&mut Self, u8, &mut Vec<usize>, &mut Vec<usize>),
    ) {
        if ways == 0 {
            miss.push(self.asm.jmp());
            return;
        }
        let mut counts = Vec::new();
        for w in 0..ways {
            let mut next = Vec::new();
            way(self, w, &mut next, miss);
            if w + 1 == ways {
                miss.extend(next);
            } else {
                counts.push(self.asm.jmp());
                for j in next {
                    self.asm.patch(j);
                }
            }
        }
        for j in counts {
            self.asm.patch(j);
        }
    }

    /// Whether the way at rdx + `disp` counts the sum `sum` (or the state's): rax = sum +
    /// add, counted if in [0, size) (a negative one is above as unsigned), at base + rax if
    /// that is one of the counters; falls through with rax = the counter if so, else jumps
    /// to a `next`.
    fn way_counts(&mut self, sum: Sum, disp: i32, next: &mut Vec<usize>) {
        self.sum_into(RAX, sum);
        let a = &mut *self.asm;
        a.alu_mem(W::Q, Alu::Add, RAX, RDX, disp + END_ADD);
        next.push(a.jcc(Cc::O));
        a.alu_mem(W::Q, Alu::Cmp, RAX, RDX, disp + END_SIZE);
        next.push(a.jcc(Cc::Ae));
        a.alu_mem(W::Q, Alu::Add, RAX, RDX, disp + END_BASE);
        next.push(a.jcc(Cc::B));
        a.alu_mem(W::Q, Alu::Cmp, RAX, RSI, Ctx::COUNTS_LEN as i32);
        next.push(a.jcc(Cc::Ae));
    }

    /// [`ProbeOp::Count`] of the path end `end`, whose values are immediates, on the sum
    /// pending, if any, or else the state rcx points to: where the sum is known, so is
    /// the counter (and one out of the end's range always misses). The sum it sets is
    /// left pending if `lazy` ([`Compiler::pending`]). Uses rax and rdx.
    fn count_fixed(&mut self, end: &ProbeEnd, miss: &mut Vec<usize>, lazy: bool) {
        let sum = self.pending_sum();
        match self.given_way(end, sum, miss) {
            Some(counter) => self.count_between(counter),
            None => miss.push(self.asm.jmp()),
        }
        self.sum_after(end.set, lazy);
    }

    /// [`count`](Self::count), but between a probed superblock's parts ([`defer`]) the
    /// count of a counter known when compiled is left pending: a loop the superblock
    /// unrolls then adds its iterations' counts to the counter once, at the exit it
    /// leaves by, rather than each to the count the one before had just stored (a chain
    /// of read-modify-writes of one address). The count it replaces in what is pending, of
    /// another counter, is added here: past the probe's checks, so a miss, which stores
    /// what was pending before the probe, still counts it once.
    ///
    /// [`defer`]: Self::defer
    fn count_between(&mut self, counter: Counter) {
        let (Counter::At(disp), true) = (counter, self.defer) else {
            return self.count(counter);
        };
        let n = match self.pending.count {
            Some((d, n)) if d == disp => n + 1,
            other => {
                self.add_counts(other);
                1
            }
        };
        self.pending.count = Some((disp, n));
    }

    /// The sum after a probe, `set`, known when compiled: left pending if `lazy`
    /// ([`Compiler::pending`]), so that the additions and path ends after it know it too,
    /// else stored in the state rcx points to. Uses rax.
    fn sum_after(&mut self, set: i64, lazy: bool) {
        if lazy {
            self.pending.sum = Some(Ahead::Known(set));
        } else {
            self.set_state(ProbeState::SUM, Val::Imm(set as u64));
        }
    }

    /// The sum pending ([`Compiler::pending`]), taken: the state's where none is.
    fn pending_sum(&mut self) -> Sum {
        Sum::of(self.pending.sum.take())
    }

    /// `dst = sum + add`, the sum pending or else the state's (rcx points to it), jumping
    /// to a `miss` if that overflows. Uses rdx.
    fn sum_plus(&mut self, dst: Reg, add: i64, miss: &mut Vec<usize>) {
        let sum = self.pending_sum();
        self.sum_into(dst, sum);
        self.plus(dst, add, miss);
    }

    /// Jumps to a `miss` unless the current activation saved a sum (and the state's `saved`
    /// is within its stack) and that sum plus `add` fits 64 bits: falls through with r14 =
    /// `saved` (the top saved sum at `Mem::Words(rcx, r14)` + [`TOP_SAVED`]) and r12 = it +
    /// `add`. Uses rdx.
    fn top_saved_plus(&mut self, add: i64, miss: &mut Vec<usize>) {
        self.saved_above_floor(R14, miss);
        let a = &mut *self.asm;
        a.alu_imm(W::Q, Alu::Cmp, R14, SAVES as i32);
        miss.push(a.jcc(Cc::A));
        a.load(R12, Mem::Words(RCX, R14), TOP_SAVED);
        if add != 0 {
            self.plus(R12, add, miss);
        }
    }

    /// Jumps to a `miss` unless the current activation saved a sum (the state's `saved`
    /// is above its floor): falls through with `reg` = `saved`.
    fn saved_above_floor(&mut self, reg: Reg, miss: &mut Vec<usize>) {
        self.saved_to_floor(reg, Cc::Be, miss);
    }

    /// Loads the state's `saved` into `reg` and compares it with its `floor`, jumping to a
    /// `miss` where `cc` holds.
    fn saved_to_floor(&mut self, reg: Reg, cc: Cc, miss: &mut Vec<usize>) {
        let a = &mut *self.asm;
        a.load(reg, RCX, ProbeState::SAVED as i32);
        a.alu_mem(W::Q, Alu::Cmp, reg, RCX, ProbeState::FLOOR as i32);
        miss.push(a.jcc(cc));
    }

    /// `dst += add`, jumping to a `miss` if that overflows. Uses rdx.
    fn plus(&mut self, dst: Reg, add: i64, miss: &mut Vec<usize>) {
        self.plus_val(dst, Val::Imm(add as u64), Some(miss));
    }

    /// [`plus`](Self::plus) of a value that may be a site's field, unchecked without a
    /// `miss` to jump to (where an overflow cannot matter). Uses rdx.
    fn plus_val(&mut self, dst: Reg, add: Val, miss: Option<&mut Vec<usize>>) {
        if matches!(add, Val::Imm(0)) {
            return;
        }
        self.alu_val(Alu::Add, dst, add, RDX);
        if let Some(miss) = miss {
            miss.push(self.asm.jcc(Cc::O));
        }
    }

    /// `dst op= imm` at 64 bits: an immediate that sign-extends to `imm`, or else through
    /// rdx.
    fn alu_u64(&mut self, op: Alu, dst: Reg, imm: u64) {
        self.alu_val(op, dst, Val::Imm(imm), RDX);
    }

    /// `dst op= value` at 64 bits: a 32-bit immediate, or else through `scratch`.
    fn alu_val(&mut self, op: Alu, dst: Reg, value: Val, scratch: Reg) {
        match value.imm32() {
            Some(v) => self.asm.alu_imm(W::Q, op, dst, v),
            None => {
                self.val(scratch, value);
                self.asm.alu(W::Q, op, dst, scratch);
            }
        }
    }

    /// Jumps to a `miss` unless the stack of saved sums of the state rcx points to has room
    /// for `n` more.
    fn room_for(&mut self, n: u8, miss: &mut Vec<usize>) {
        if !self.saves {
            miss.push(self.asm.jmp());
            return;
        }
        let a = &mut *self.asm;
        let most = SAVES as i32 - i32::from(n);
        a.alu_mem_imm(Alu::Cmp, RCX, ProbeState::SAVED as i32, most);
        miss.push(a.jcc(Cc::A));
    }

    /// Saves the sum of an inner region entered at once, if any ([`ProbeOp::PushEnd`]).
    /// Uses r12 and r15.
    fn save_inner(&mut self, inner: Option<i64>) {
        if let Some(inner) = inner {
            self.asm.mov_imm(R12, inner as u64);
            self.save(R12, R15);
        }
    }

    /// `op`, which saves `saves` sums, after which the activation that starts saves `push`,
    /// if any: the stack of saved sums must have room for them all, which is checked before
    /// `op` (which may miss too) changes anything. Uses rax and rdx after `op`.
    fn then_save(
        &mut self,
        push: Option<i64>,
        saves: u8,
        miss: &mut Vec<usize>,
        op: impl FnOnce(&mut Self, &mut Vec<usize>),
    ) {
        let n = saves + u8::from(push.is_some());
        if n > 0 {
            self.room_for(n, miss);
        }
        op(self, miss);
        if let Some(push) = push {
            self.save_known(push);
        }
    }

    /// Pushes the known `sum` as [`save`](Self::save) does, with no cache register (a
    /// call or region entry between a probed superblock's parts saves so). Uses rax and
    /// rdx.
    fn save_known(&mut self, sum: i64) {
        self.asm.load(RDX, RCX, ProbeState::SAVED as i32);
        let top = Mem::Words(RCX, RDX);
        self.store_val(top, ProbeState::SAVES as i32, Val::Imm(sum as u64));
        self.asm
            .alu_mem_imm(Alu::Add, RCX, ProbeState::SAVED as i32, 1);
    }

    /// Pushes `sum` on the stack of saved sums of the state rcx points to (which has room),
    /// its index in `index`.
    fn save(&mut self, sum: Reg, index: Reg) {
        let a = &mut *self.asm;
        a.load(index, RCX, ProbeState::SAVED as i32);
        a.store(Mem::Words(RCX, index), ProbeState::SAVES as i32, sum);
        a.alu_mem_imm(Alu::Add, RCX, ProbeState::SAVED as i32, 1);
    }

    /// The checks of a return, a tail call or a restart that ends the current activation,
    /// counting it in `counts[pairs]`: the activation saved no sum (the state's `saved` is
    /// its `floor`; not checked where its function `saves_none`) and `pairs` is a counter.
    /// Uses rax and rdx.
    fn activation_checks(&mut self, pairs: Val, saves_none: bool, miss: &mut Vec<usize>) {
        if self.saves && !saves_none {
            self.saved_to_floor(RAX, Cc::Ne, miss);
        }
        match pairs.imm32() {
            Some(p) => self.known_counter(p, miss),
            None => {
                self.val(RDX, pairs);
                self.asm
                    .alu_mem(W::Q, Alu::Cmp, RDX, RSI, Ctx::COUNTS_LEN as i32);
                miss.push(self.asm.jcc(Cc::Ae));
            }
        }
    }

    /// The way search of a path end given first (`first`), then, where that way does not
    /// count the sum, of those at `at`, and the count: jumps to a `miss` if no way counts
    /// the sum. A sum known in `first`'s range tries `first` only. Uses rax and rdx.
    fn count_first_then_ways(
        &mut self,
        first: Option<ProbeEnd>,
        at: EndAt,
        sum: Sum,
        miss: &mut Vec<usize>,
    ) {
        if let Some(first) = first {
            // A known sum in the given way's range is that way's to count, unless the
            // counters are too few for it (which no sink leaves while the probe's epoch
            // lasts): a miss then stands for the search of the other ways, which needs no
            // code, and the count falls through.
            let known = matches!(sum, Sum::Known(s) if counter_of(&first, s).is_some());
            let mut next = Vec::new();
            let fails = if known { &mut *miss } else { &mut next };
            if let Some(counter) = self.given_way(&first, sum, fails) {
                self.count(counter);
                if !known {
                    // The search of the other ways, rarely run, goes after the exits, so
                    // that the count falls through.
                    self.colds.push(ColdWays {
                        entry: next,
                        at,
                        sum,
                        back: self.asm.code.len(),
                        miss: None,
                    });
                    miss.push(ColdWays::link(self.colds.len() - 1));
                }
                return;
            }
        }
        self.path_end(at, sum, miss);
        self.count_at(RAX);
    }

    /// Patches `jumps` (a probe's misses, which may hold the [`ColdWays::link`] of a way
    /// search whose misses land there too) to here.
    fn land(&mut self, jumps: impl IntoIterator<Item = usize>) {
        self.asm.label();
        let here = self.asm.code.len();
        for j in jumps {
            match ColdWays::linked(j) {
                Some(i) => self.colds[i].miss = Some(here),
                None => self.asm.patch(j),
            }
        }
    }

    /// The way searches left for after the exits ([`ColdWays`]): each counts as
    /// [`path_end`](Self::path_end) and goes back to where its probe goes on, or to where
    /// its probe's misses landed. `None` if one's misses never landed.
    fn cold_ways(&mut self) -> Option<()> {
        for cold in std::mem::take(&mut self.colds) {
            let miss_at = cold.miss?;
            self.section(Section::Probe("path end ways"));
            for j in cold.entry {
                self.asm.patch(j);
            }
            // (Entered from its probe's code, where rcx points to the state; it goes back
            // there with what the code keeps.)
            self.assume(Kept::State);
            let mut miss = Vec::new();
            self.path_end(cold.at, cold.sum, &mut miss);
            self.count_at(RAX);
            for k in Kept::ALL {
                self.keep(k);
            }
            let back = self.asm.jmp();
            self.asm.patch_to(back, cold.back);
            for j in miss {
                self.asm.patch_to(j, miss_at);
            }
        }
        Some(())
    }

    /// The current activation ends at the path end `at` and the next starts with the sum
    /// it sets (a tail call's callee, or a restart's), counted in `counts[pairs]`; rcx
    /// points to the state again after. Uses rax and rdx.
    fn restart(&mut self, at: EndAt, pairs: Val, miss: &mut Vec<usize>) {
        self.activation_checks(pairs, false, miss);
        self.path_end(at, Sum::State, miss);
        self.count_end();
        self.count_pairs(pairs);
    }

    /// Counts an activation in `counts[pairs]` (checked in range), through the counters
    /// rdx keeps ([`Kept::Counters`]; a count before it left them there). Uses rax.
    fn count_pairs(&mut self, pairs: Val) {
        self.keep(Kept::Counters);
        let known = match pairs {
            Val::Imm(p) => Counter::at(p),
            Val::Site(_) => None,
        };
        match known {
            Some(counter) => self.count_loaded(counter),
            None => {
                self.val(RAX, pairs);
                self.count_loaded(Counter::Rax);
            }
        }
    }

    /// A path end that applies (after [`path_end`](Self::path_end)): `sum = set`, then the
    /// count. Uses rax and rdx.
    fn count_end(&mut self) {
        self.asm.load(RDX, RDX, END_SET);
        self.asm.store(RCX, ProbeState::SUM as i32, RDX);
        self.count_at(RAX);
    }

    /// Adds one to `counter` (checked in range), leaving rdx = the counters. Uses rax and
    /// rdx.
    fn count(&mut self, counter: Counter) {
        self.keep(Kept::Counters);
        self.count_loaded(counter);
    }

    /// [`count`](Self::count) where rdx = the counters already.
    fn count_loaded(&mut self, counter: Counter) {
        match counter {
            Counter::Rax => self.asm.count_sib(RDX, RAX),
            Counter::At(disp) => self.asm.alu_mem_imm(Alu::Add, RDX, disp, 1),
            Counter::RaxPlus(disp) => self.asm.count_sib_disp(RDX, RAX, disp),
        }
    }

    /// Adds one to the counter whose index is in `index` (checked in range). Uses rax,
    /// and rdx where `index` is rax.
    fn count_at(&mut self, index: Reg) {
        if index == RAX {
            self.count(Counter::Rax);
        } else {
            self.asm.load(RAX, RSI, Ctx::COUNTS as i32);
            self.asm.count_sib(RAX, index);
        }
    }

    /// Where a probed superblock goes on from part `from` (number `k`) into part `to`:
    /// `from`'s probe to `to`, which stands for that edge's event. Where it does not apply,
    /// or is not one that [`runs_between_parts`] (the others use cache registers), the
    /// code leaves ([`kind::PART`]) after the event's record.
    fn between(&mut self, k: usize, from: &PartProbes, to: &PartProbes) {
        let probe = from.to(to.pc);
        if self.unprobed && probe.is_some_and(|p| matches!(p.op, ProbeOp::Add(_))) {
            // Unprobed code goes on where the probe only adds, and elsewhere leaves after
            // the record of the parts so far, as where a probe misses (`Source::unprobed`).
            return;
        }
        let mut miss = Vec::new();
        let probe = probe.filter(|p| !self.unprobed && runs_between_parts(&p.op));
        self.settle_before(probe);
        // Where the probe does not apply, it changed nothing: what is still to store is
        // what was pending before it.
        let known = self.known();
        match probe {
            Some(p) => {
                self.defer = true;
                self.probe(p, &mut miss);
                self.defer = false;
            }
            None => miss.push(self.asm.jmp()),
        }
        if !miss.is_empty() {
            self.exits.push(ExitCode {
                dirty: self.regs.dirty(),
                jumps: Jumps::of(miss),
                pc: to.pc,
                kind: kind::PART,
                at: k as u32,
                retired: None,
                known,
                divert: false,
                held: [false; 2],
            });
        }
        // Past the probe, the state has its next key (a part that leaves keeps the guard,
        // which nothing after it reads).
        if let Some(p) = probe {
            self.guard = Guard::after(p);
        }
    }

    /// The stub of an exit of `src` to the fixed `pc` that retires `retired` guest
    /// instructions of it (the [`Stub`]'s positions are relative to `start`, the
    /// function's).
    fn stub(
        &mut self,
        e: &ExitCode,
        retired: u32,
        src: &Source<'_>,
        stub: u32,
        start: usize,
    ) -> Stub {
        let (slot, logged) = (src.slot, src.logged);
        let probe = src.exit_probe(e.at, e.pc).filter(|_| logged);
        let (rec_slot, rec_at) = src.record(e.at, e.kind == kind::SIDE_EXIT);
        // A probe that applies stands for the record (the exit's event); one that does not
        // logs it and returns, so that the run loop delivers it before any other probe runs.
        let mut miss = Vec::new();
        self.settle_before(probe);
        let before = self.pending;
        let mut stop = None;
        let full = match probe {
            Some(p) => {
                self.probe(p, &mut miss);
                None
            }
            None => {
                self.settle();
                let full = logged.then(|| self.log(Some(e.pc), rec_slot, rec_at));
                // (Unprobed code returns as if full unless the probe adds.)
                if src.unprobed && !src.adds(e.at, e.pc) {
                    stop = Some(self.asm.jmp());
                }
                full
            }
        };
        // The sum the probe left pending is stored before the block chained to reads it;
        // its key, which a block chained to past its check knows, only where the run loop
        // or a block that checks it (through the trampoline below) reads it.
        let after = std::mem::take(&mut self.pending);
        self.store(Unstored { key: None, ..after });
        let after = after.key;
        let follows = probe.and_then(Guard::after);
        // The code past the check of the guard a chained stub follows keeps the state
        // (see `Kept::State`).
        if follows.is_some() {
            self.keep(Kept::State);
        }
        // The chain check: goes on in the block chained to if the budget left holds its
        // whole count, the immediate; unchained, that is u32::MAX (-1), which none is above.
        self.asm.alu_imm32(Alu::Sub, R11, retired);
        let count = self.asm.alu_imm32(Alu::Cmp, R11, u32::MAX);
        let short = self.asm.jcc(Cc::Be);
        let body = self.asm.jmp();
        self.asm.patch(short);
        self.asm.patch(body);
        self.asm.alu_imm32(Alu::Add, R11, retired);
        // Unchained, the run loop learns the stub, to chain it; chained, it knows it.
        let entry = self.asm.jmp();
        self.asm.patch(entry);
        self.asm.store_imm32(RSI, Ctx::STUB as i32, stub);
        self.asm.label();
        let chained = (self.asm.code.len() - (entry + 4)) as i32;
        for j in full.into_iter().chain(stop) {
            self.asm.patch(j);
        }
        self.store(Unstored {
            key: after,
            ..Unstored::default()
        });
        self.asm.label();
        let leave = self.asm.code.len();
        self.asm.mov_imm(RAX, e.pc);
        self.leave(e.kind, e.at, slot);
        if !miss.is_empty() {
            self.land(miss);
            // The probe changed nothing: what was pending before it.
            self.store(before);
            let full = self.log(Some(e.pc), rec_slot, rec_at);
            self.asm.patch_to(full, leave);
            let j = self.asm.jmp();
            self.asm.patch_to(j, leave);
        }
        let rel = |p: usize| (p - start) as u32;
        let tramp = after.map(|key| {
            self.asm.label();
            let at = self.asm.code.len();
            self.store(Unstored {
                key: Some(key),
                ..Unstored::default()
            });
            let jump = self.asm.jmp();
            Tramp {
                start: rel(at),
                jump: rel(jump),
            }
        });
        Stub {
            entry: rel(entry),
            count: rel(count),
            body: rel(body),
            chained,
            follows,
            tramp,
        }
    }

    /// `rax = x[rs1] + imm`, the address of a load or store.
    fn address(&mut self, insn: &Tinsn) -> Option<()> {
        let imm = i32::try_from(insn.imm as i64).ok()?;
        let a = self.get(insn.rs1, NO);
        self.asm.mov(RAX, a);
        self.asm.alu_imm(W::Q, Alu::Add, RAX, imm);
        Some(())
    }

    /// Turns the address in rax into its offset in the span, bailing out (to arena index
    /// `at`) if an 8-byte access there would leave it.
    fn bounds(&mut self, at: usize) {
        self.asm.alu(W::Q, Alu::Sub, RAX, R9);
        self.asm.alu(W::Q, Alu::Cmp, RAX, R10);
        let j = self.asm.jcc(Cc::A);
        self.bail(j, at);
    }

    /// The checks of a store to the address in rax: bails out (to arena index `at`) if it
    /// may touch code (the interpreter notes such a store) or leave the span, as
    /// [`bounds`](Self::bounds), which leaves rax the offset in the span.
    fn store_bounds(&mut self, at: usize) {
        // (In rdx: rcx may hold the state for the probes after, see `Kept`.)
        self.asm.mov(RDX, RAX);
        self.asm
            .alu_mem(W::Q, Alu::Sub, RDX, RSI, Ctx::CODE_LO as i32);
        self.asm
            .alu_mem(W::Q, Alu::Cmp, RDX, RSI, Ctx::CODE_SPAN as i32);
        let j = self.asm.jcc(Cc::B);
        self.bail(j, at);
        self.bounds(at);
    }

    /// An atomic memory operation of the A extension (swap, add, xor, and, or; at arena
    /// index `at`): `rd` = the old value (a word's sign-extended), memory = old op `rs2`.
    /// One hart runs, so a load and a store are atomic. A misaligned address bails out
    /// (the interpreter raises the fault), as a store would. glibc's locks use these:
    /// `amoswap.w` in `_int_free` made chase's flat profile bail out of an event
    /// superblock there and deliver four edges through the run loop per `free`.
    fn amo(&mut self, insn: &Tinsn, at: usize) {
        use Op::*;
        let (width, load) = match insn.op {
            AmoswapW | AmoaddW | AmoxorW | AmoandW | AmoorW => (4, Load::I32),
            _ => (8, Load::U64),
        };
        let a = self.get(insn.rs1, NO);
        self.asm.mov(RAX, a);
        self.asm.mov(RCX, RAX);
        self.asm.alu_imm(W::Q, Alu::And, RCX, i32::from(width) - 1);
        let misaligned = self.asm.jcc(Cc::Ne);
        self.bail(misaligned, at);
        self.store_bounds(at);
        // rcx = old, rdx = new.
        self.asm.load_sib(load, RCX, R8, RAX);
        let src = self.get(insn.rs2, NO);
        self.asm.mov(RDX, src);
        let op = match insn.op {
            AmoaddW | AmoaddD => Some(Alu::Add),
            AmoxorW | AmoxorD => Some(Alu::Xor),
            AmoandW | AmoandD => Some(Alu::And),
            AmoorW | AmoorD => Some(Alu::Or),
            _ => None,
        };
        if let Some(op) = op {
            self.asm.alu(W::Q, op, RDX, RCX);
        }
        self.asm.store_sib(width, R8, RAX, RDX);
        self.set(insn.rd, RCX);
    }

    /// The code of body or last instruction `insn` (arena index `at`), after which
    /// `retired` guest instructions of the block have retired; `None` if it is not
    /// compiled (the code bails out before it).
    fn insn(&mut self, insn: &Tinsn, at: usize, last: bool, retired: u32) -> Option<()> {
        if [insn.rd, insn.rs1, insn.rs2]
            .iter()
            .any(|&r| usize::from(r) >= GUEST_SLOTS)
        {
            return None;
        }
        let (rd, imm) = (insn.rd, insn.imm);
        let asm_imm = i32::try_from(imm as i64).ok();
        match insn.op {
            Op::Lui => self.set_imm(rd, imm),
            Op::Fence | Op::FenceTso => {}
            Op::Add | Op::Sub | Op::And | Op::Or | Op::Xor => {
                let op = match insn.op {
                    Op::Add => Alu::Add,
                    Op::Sub => Alu::Sub,
                    Op::And => Alu::And,
                    Op::Or => Alu::Or,
                    _ => Alu::Xor,
                };
                self.rr(insn, W::Q, |asm, b| asm.alu(W::Q, op, RAX, b));
            }
            Op::Addw | Op::Subw => {
                let op = if insn.op == Op::Addw {
                    Alu::Add
                } else {
                    Alu::Sub
                };
                self.rr(insn, W::D, |asm, b| asm.alu(W::D, op, RAX, b));
            }
            Op::Mul => self.rr(insn, W::Q, |asm, b| asm.imul(W::Q, RAX, b)),
            Op::Mulw => self.rr(insn, W::D, |asm, b| asm.imul(W::D, RAX, b)),
            Op::Mulh | Op::Mulhu => {
                let (a, b) = self.get2(insn);
                self.asm.mov(RAX, a);
                self.asm.mul_wide(insn.op == Op::Mulh, b);
                self.set(rd, RDX);
            }
            Op::Div
            | Op::Divu
            | Op::Rem
            | Op::Remu
            | Op::Divw
            | Op::Divuw
            | Op::Remw
            | Op::Remuw => self.divide(insn),
            Op::Sll | Op::Srl | Op::Sra | Op::Sllw | Op::Srlw | Op::Sraw => {
                let (shift, w) = shift_of(insn.op)?;
                self.rr(insn, w, |asm, b| {
                    asm.mov(RCX, b);
                    asm.shift_cl(w, shift, RAX);
                });
            }
            Op::Slt | Op::Sltu => {
                let (a, b) = self.get2(insn);
                self.asm.alu(W::Q, Alu::Cmp, a, b);
                let cc = if insn.op == Op::Slt { Cc::L } else { Cc::B };
                self.asm.set(cc, RAX);
                self.set(rd, RAX);
            }
            Op::Addi | Op::Andi | Op::Ori | Op::Xori | Op::Addiw => {
                let op = match insn.op {
                    Op::Andi => Alu::And,
                    Op::Ori => Alu::Or,
                    Op::Xori => Alu::Xor,
                    _ => Alu::Add,
                };
                let w = if insn.op == Op::Addiw { W::D } else { W::Q };
                let imm = asm_imm?;
                self.ri(insn, w, |asm| asm.alu_imm(w, op, RAX, imm));
            }
            Op::Slti | Op::Sltiu => {
                let imm = asm_imm?;
                let a = self.get(insn.rs1, NO);
                self.asm.alu_imm(W::Q, Alu::Cmp, a, imm);
                let cc = if insn.op == Op::Slti { Cc::L } else { Cc::B };
                self.asm.set(cc, RAX);
                self.set(rd, RAX);
            }
            Op::Slli | Op::Srli | Op::Srai | Op::Slliw | Op::Srliw | Op::Sraiw => {
                let (shift, w) = shift_of(insn.op)?;
                let n = (imm & if w == W::Q { 63 } else { 31 }) as u8;
                self.ri(insn, w, |asm| asm.shift_imm(w, shift, RAX, n));
            }
            Op::Lb | Op::Lbu | Op::Lh | Op::Lhu | Op::Lw | Op::Lwu | Op::Ld => {
                let kind = match insn.op {
                    Op::Lb => Load::I8,
                    Op::Lbu => Load::U8,
                    Op::Lh => Load::I16,
                    Op::Lhu => Load::U16,
                    Op::Lw => Load::I32,
                    Op::Lwu => Load::U32,
                    _ => Load::U64,
                };
                self.address(insn)?;
                self.bounds(at);
                self.asm.load_sib(kind, RAX, R8, RAX);
                self.set(rd, RAX);
            }
            Op::Sb | Op::Sh | Op::Sw | Op::Sd => {
                let bytes = match insn.op {
                    Op::Sb => 1,
                    Op::Sh => 2,
                    Op::Sw => 4,
                    _ => 8,
                };
                self.address(insn)?;
                self.store_bounds(at);
                let v = self.get(insn.rs2, NO);
                self.asm.store_sib(bytes, R8, RAX, v);
            }
            Op::Flw | Op::Fld => {
                self.address(insn)?;
                self.fp_on(at);
                self.bounds(at);
                let single = insn.op == Op::Flw;
                let kind = if single { Load::U32 } else { Load::U64 };
                self.asm.load_sib(kind, RAX, R8, RAX);
                if single {
                    // NaN-boxed.
                    self.asm.mov_imm(RDX, fpu::BOX);
                    self.asm.alu(W::Q, Alu::Or, RAX, RDX);
                }
                self.asm.store(RDI, fdisp(rd), RAX);
            }
            Op::Fsw | Op::Fsd => {
                self.address(insn)?;
                self.fp_on(at);
                self.store_bounds(at);
                self.asm.load(RDX, RDI, fdisp(insn.rs2));
                let bytes = if insn.op == Op::Fsw { 4 } else { 8 };
                self.asm.store_sib(bytes, R8, RAX, RDX);
            }
            op if fp_computes(op) => {
                self.fp_on(at);
                self.fp_call(insn, at);
            }
            // The floating-point CSRs (which raise the exception themselves while floating
            // point is off).
            Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci
                if (csr::FFLAGS..=csr::FCSR).contains(&(imm as u16 & 0xfff)) =>
            {
                let reads = crate::exec::csr_reads_rs1(insn.op).then_some(insn.rs1);
                let [lo, hi] = (imm as u16 & 0xfff).to_le_bytes();
                let regs = [rd, insn.rs1, lo, hi, 0];
                self.exec_op(insn, at, (reads, Some(rd)), regs);
            }
            Op::AmoswapW
            | Op::AmoaddW
            | Op::AmoxorW
            | Op::AmoandW
            | Op::AmoorW
            | Op::AmoswapD
            | Op::AmoaddD
            | Op::AmoxorD
            | Op::AmoandD
            | Op::AmoorD => self.amo(insn, at),
            Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
                let cc = match insn.op {
                    Op::Beq => Cc::E,
                    Op::Bne => Cc::Ne,
                    Op::Blt => Cc::L,
                    Op::Bge => Cc::Ge,
                    Op::Bltu => Cc::B,
                    _ => Cc::Ae,
                };
                let (a, b) = self.get2(insn);
                self.asm.alu(W::Q, Alu::Cmp, a, b);
                let jump = self.asm.jcc(cc);
                self.exits.push(ExitCode {
                    dirty: self.regs.dirty(),
                    jumps: Jumps::one(jump),
                    pc: imm,
                    kind: if last { kind::END } else { kind::SIDE_EXIT },
                    at: at as u32,
                    retired: Some(retired),
                    known: self.known(),
                    divert: false,
                    held: self.held(),
                });
            }
            _ => return None,
        }
        Some(())
    }

    /// Bails out (to arena index `at`) where floating point is off ([`Ctx::fp_off`]).
    fn fp_on(&mut self, at: usize) {
        self.asm.alu_mem_imm(Alu::Cmp, RSI, Ctx::FP_OFF as i32, 0);
        let j = self.asm.jcc(Cc::Ne);
        self.bail(j, at);
    }

    /// The F or D computation `insn` (at arena index `at`), run by [`exec_op`](super::exec_op)
    /// (after [`fp_on`](Self::fp_on)).
    fn fp_call(&mut self, insn: &Tinsn, at: usize) {
        let reads = fpu::reads_xreg(insn.op).then_some(insn.rs1);
        let writes = fpu::writes_xreg(insn.op).then_some(insn.rd);
        let regs = [insn.rd, insn.rs1, insn.rs2, insn.rs3, insn.rm];
        self.exec_op(insn, at, (reads, writes), regs);
    }

    /// `insn` (at arena index `at`) as the interpreter runs it: a call of
    /// [`exec_op`](super::exec_op) on the hart with `regs` (its operands, see there), the
    /// guest register it `reads` stored first and the one it `writes` dropped from the
    /// cache; bails out where the call changed nothing (the instruction raises an
    /// exception).
    fn exec_op(
        &mut self,
        insn: &Tinsn,
        at: usize,
        (reads, writes): (Option<u8>, Option<u8>),
        regs: [u8; 5],
    ) {
        if let Some(g) = reads {
            self.flush(g, false);
        }
        if let Some(g) = writes {
            self.flush(g, true);
        }
        let mut operands = [0; 8];
        operands[..5].copy_from_slice(&regs);
        let a = &mut *self.asm;
        // rsp is 8 off a 16-byte boundary in the body (the return address and the
        // prologue's six pushes), and on one after three more.
        for r in KEPT {
            a.push(r);
        }
        a.load(RDI, RSI, Ctx::CPU as i32);
        a.mov_imm(RSI, u64::from_le_bytes(operands));
        a.mov_imm(RAX, crate::threaded::op_helper(insn.op) as *const () as u64);
        a.call(RAX);
        for r in KEPT.iter().rev() {
            a.pop(*r);
        }
        span_registers(a);
        a.alu_imm(W::D, Alu::Cmp, RAX, 0);
        let j = a.jcc(Cc::E);
        self.bail(j, at);
    }

    /// `rd = rs1 op rs2`, where `op` computes `rax op= b` (with rax = rs1) at width `w`.
    /// A division or remainder of the M extension, with RISC-V's results where x86's
    /// `div` would fault: a zero divisor gives all ones (quotient) or the dividend
    /// (remainder), and the signed overflow `MIN / -1` gives `MIN` and 0. The `w` forms
    /// work on the low 32 bits and sign-extend the 32-bit result.
    fn divide(&mut self, insn: &Tinsn) {
        let w = match insn.op {
            Op::Divw | Op::Divuw | Op::Remw | Op::Remuw => W::D,
            _ => W::Q,
        };
        let signed = matches!(insn.op, Op::Div | Op::Rem | Op::Divw | Op::Remw);
        let rem = matches!(insn.op, Op::Rem | Op::Remu | Op::Remw | Op::Remuw);
        let (a, b) = self.get2(insn);
        self.asm.mov(RAX, a);
        self.asm.alu_imm(w, Alu::Cmp, b, 0);
        let zero = self.asm.jcc(Cc::E);
        let mut overflow = None;
        if signed {
            self.asm.alu_imm(w, Alu::Cmp, b, -1);
            let plain = self.asm.jcc(Cc::Ne);
            if w == W::Q {
                self.asm.mov_imm(RDX, i64::MIN as u64);
                self.asm.alu(W::Q, Alu::Cmp, RAX, RDX);
            } else {
                self.asm.alu_imm(W::D, Alu::Cmp, RAX, i32::MIN);
            }
            overflow = Some(self.asm.jcc(Cc::E));
            self.asm.patch(plain);
            self.asm.sign_into_rdx(w);
        } else {
            self.asm.alu(W::D, Alu::Xor, RDX, RDX);
        }
        self.asm.div_wide(w, signed, b);
        if rem {
            self.asm.mov(RAX, RDX);
        }
        let done = self.asm.jmp();
        // The zero divisor: the dividend (in rax) is the remainder; the quotient is -1.
        self.asm.patch(zero);
        if !rem {
            self.asm.mov_imm(RAX, u64::MAX);
        }
        let zero_done = self.asm.jmp();
        // The signed overflow: the dividend (MIN, in rax) is the quotient; the remainder is 0.
        if let Some(overflow) = overflow {
            self.asm.patch(overflow);
            if rem {
                self.asm.alu(W::D, Alu::Xor, RAX, RAX);
            }
        }
        self.asm.patch(done);
        self.asm.patch(zero_done);
        if w == W::D {
            self.asm.sext32(RAX, RAX);
        }
        self.set(insn.rd, RAX);
    }

    fn rr(&mut self, insn: &Tinsn, w: W, op: impl FnOnce(&mut Asm, Reg)) {
        let (a, b) = self.get2(insn);
        self.asm.mov(RAX, a);
        op(self.asm, b);
        if w == W::D {
            self.asm.sext32(RAX, RAX);
        }
        self.set(insn.rd, RAX);
    }

    /// `rd = rs1 op imm`, where `op` computes `rax op= imm` (with rax = rs1) at width `w`.
    fn ri(&mut self, insn: &Tinsn, w: W, op: impl FnOnce(&mut Asm)) {
        let a = self.get(insn.rs1, NO);
        self.asm.mov(RAX, a);
        op(self.asm);
        if w == W::D {
            self.asm.sext32(RAX, RAX);
        }
        self.set(insn.rd, RAX);
    }
}

/// How a compiled block's code leaves for the run loop: the exit's kind (in rdx; the next
/// pc is in rax) and, in the [`Ctx`], the block it leaves (`slot`), the arena index of the
/// instruction that left (`at`: a side exit's branch, or the instruction bailed out
/// before) and the exit's stub (`stub`: see [`compile`]).
pub(crate) mod kind {
    /// The block ran to its end.
    pub const END: u64 = 0;
    /// A superblock's side exit was taken.
    pub const SIDE_EXIT: u64 = 1;
    /// The code bailed out before instruction `at`.
    pub const BAIL: u64 = 2;
    /// A probed event superblock ended in its part number `at`, whose probe to the next
    /// part did not apply (see [`Source::parts`](super::Source)).
    pub const PART: u64 = 3;
}

/// Where a stub of a fixed exit is patched to chain (positions in the function's code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stub {
    /// The displacement of the jump the stub takes when it does not go on: 0 (to the note
    /// of the stub for the run loop), or past that note once chained.
    pub entry: u32,
    /// The immediate of `cmp r11, count`: the instruction count of the block chained to,
    /// or `u32::MAX` while unchained.
    pub count: u32,
    /// The displacement of the jump to the body of the block chained to.
    pub body: u32,
    /// `entry`'s displacement once chained.
    pub chained: i32,
    /// The state's key and epoch whenever the stub runs: the exit's probe applied.
    pub follows: Option<Guard>,
    /// Where the stub stores the key its probe left pending ([`Compiler::pending`]) before
    /// it goes on in a block that checks the key: chained to such a block, the body jump
    /// goes there.
    pub tramp: Option<Tramp>,
}

/// A stub's trampoline (positions in the function's code): it stores the key the stub's
/// probe left pending, then jumps (a displacement patched when chained) to the body of
/// the block chained to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tramp {
    /// Where it starts.
    pub start: u32,
    /// The displacement of its jump.
    pub jump: u32,
}

/// The key and epoch a block's probes all apply under (a plain block with at least one
/// probe, or a probed superblock's first part). Its code checks them once at entry, and bails out before its first
/// instruction if they differ (the run loop then runs the block and delivers its events);
/// a stub that follows a probe whose next key and epoch are these chains to the code right
/// after the check, since a probe changes no epoch and nothing between it and the next
/// block changes the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Guard {
    pub key: u64,
    pub epoch: u64,
}

impl Guard {
    /// The key and epoch `probe` applies under.
    fn of(probe: &Probe) -> Guard {
        Guard {
            key: probe.key,
            epoch: probe.epoch,
        }
    }

    /// The state's key and epoch after `probe` applied: its next key (a return's comes
    /// from its frame), under its epoch, which no probe changes.
    fn after(probe: &Probe) -> Option<Guard> {
        let returns = matches!(probe.op, ProbeOp::Return { .. });
        (probe.epoch != NO_EPOCH && !returns).then_some(Guard {
            key: probe.next,
            epoch: probe.epoch,
        })
    }

    /// The guard of a block with these probes: the one they share, if they all apply under
    /// one (not [`NO_EPOCH`], under which none applies).
    fn shared<'p>(probes: impl IntoIterator<Item = &'p Probe>) -> Option<Guard> {
        let mut probes = probes.into_iter().map(Guard::of);
        let first = probes.next()?;
        (first.epoch != NO_EPOCH && probes.all(|g| g == first)).then_some(first)
    }
}

/// The jumps (displacement positions) that take an exit: most take one, which needs no
/// allocation.
struct Jumps {
    one: Option<usize>,
    more: Vec<usize>,
}

impl Jumps {
    fn one(jump: usize) -> Jumps {
        Jumps {
            one: Some(jump),
            more: Vec::new(),
        }
    }

    fn of(jumps: Vec<usize>) -> Jumps {
        Jumps {
            one: None,
            more: jumps,
        }
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.one.into_iter().chain(self.more.iter().copied())
    }
}

/// A block's exit, emitted after its body.
struct ExitCode {
    /// The cache registers to store to `x` first (guest, host): those dirty at the jump.
    dirty: Dirty,
    /// The jumps (displacement positions) that take it.
    jumps: Jumps,
    /// The next pc (ignored for a bail-out).
    pc: u64,
    kind: u64,
    /// Arena index of the instruction that leaves (of a [`kind::PART`] exit: the part).
    at: u32,
    /// For an exit whose target is fixed: the guest instructions retired when it is taken
    /// (chaining deducts them from the budget).
    retired: Option<u32>,
    /// What the code knows of the state where it is taken.
    known: Known,
    /// The bail-out of a guard's check that failed, which goes to the block's unprobed
    /// code instead once that is compiled ([`Compiled::divert`]).
    divert: bool,
    /// Which [`Kept`] addresses their registers hold where it is taken.
    held: [bool; 2],
}

/// The search of a path end's ways in `ends` where the way its probe gave first does not
/// count a sum not known when compiled: rarely run, it is emitted after the exits, so that
/// the count of the first way falls through (see
/// [`count_first_then_ways`](Compiler::count_first_then_ways)).
struct ColdWays {
    /// The jumps taken where the first way does not count.
    entry: Vec<usize>,
    at: EndAt,
    sum: Sum,
    /// Where the probe goes on once a way counted.
    back: usize,
    /// Where the probe's misses landed ([`Compiler::land`]), once they have.
    miss: Option<usize>,
}

impl ColdWays {
    /// Marks a link in a probe's misses (which are otherwise positions in the code).
    const LINK: usize = 1 << (usize::BITS - 2);

    /// The link standing for the misses of way search `i` in a probe's misses.
    fn link(i: usize) -> usize {
        Self::LINK | i
    }

    /// The way search a miss stands for, if it is a [`link`](Self::link).
    fn linked(miss: usize) -> Option<usize> {
        (miss & Self::LINK != 0).then_some(miss & !Self::LINK)
    }
}

/// The code of one block, appended to an [`Asm`].
pub(crate) struct Compiled {
    /// Where the block's body starts (after the prologue): a chained jump enters there.
    pub body: u32,
    /// A guarded block's guard and where its code goes on after the check.
    pub verified: Option<(Guard, u32)>,
    /// A guarded block's jump (the position of its displacement) taken where its guard's
    /// check fails: to the bail-out that follows it, or, once patched, to the body of the
    /// block's unprobed code ([`Source::unprobed`]).
    pub divert: Option<u32>,
    /// The stubs of its fixed exits, numbered from `first_stub` in the order given.
    pub stubs: Vec<Stub>,
    /// What its code does, stretch by stretch: each stretch's start (from the block's
    /// first byte, in order, the first at 0) and a name ("body", "probe call", "exit",
    /// ...), for a perf map ([`Jit::compile`](super::Jit::compile)).
    pub sections: Vec<(u32, Section)>,
    /// Its probes add to counters below this one with no check of the counters' length
    /// (at most the `lent` it was compiled with): a lease with fewer must not be lent to
    /// it.
    pub unchecked: u64,
}

/// The block `insns` to compile: arena index of its first instruction, its slot, its
/// fall-through and its guest instruction counts.
pub(crate) struct Source<'a> {
    /// The guest pc where it starts.
    pub pc: u64,
    pub insns: &'a [Tinsn],
    /// Parallel to `insns`.
    pub meta: &'a [Meta],
    pub first: usize,
    pub slot: u32,
    pub end: u64,
    /// Guest instructions in the whole block.
    pub count: u32,
    /// Each run that leaves by an exit other than a bail-out appends a [`Rec`] to the log
    /// before the code goes on (a block with block or edge events, or an event superblock:
    /// the run loop delivers their events from the log).
    pub logged: bool,
    /// The code is a guarded block's (or probed superblock's) without its probes, which its
    /// guard's failed check diverts to ([`Compiled::divert`]): logged, so that its run
    /// delivers its events from the log rather than bail out and run interpreted. Its
    /// probes (and parts') are given but not run: the code goes on after an exit (or into
    /// the next part) whose probe would only add to the sum, and returns to the run loop
    /// after any other, where the sink's state may become lent again (a call, a return,
    /// a path end). Its records name it, not its parts' blocks (with [`PART_REC`] where a
    /// part leaves), and its bail-outs say so ([`UNPROBED`]): they follow no probe of a
    /// part before them.
    pub unprobed: bool,
    /// Probes for fixed exits of a logged block, by the exit's next pc (see [`Compiler::probe`]).
    pub probes: [Option<(u64, Probe)>; 2],
    /// The probe for the indirect exit of a logged block that returns.
    pub ret_probe: Option<Probe>,
    /// The [`Site`] of a logged block's indirect call or jump, and which it is: the run
    /// loop sets the probes it holds, for up to [`Site::WAYS`] targets.
    pub site: Option<(u32, SiteKind)>,
    /// A *probed* event superblock's parts, in order (empty otherwise): it runs each
    /// part's probe to the next part where it goes on into it, and each exit carries its
    /// part's probe for it, instead of `probes`. The record of an exit whose probe does not
    /// apply names the part's basic block, so that the run loop delivers that block's edge
    /// alone (the probes before it applied); one that does not apply between parts also
    /// leaves ([`kind::PART`]).
    pub parts: &'a [PartProbes],
}

/// A part of a probed event superblock (see [`Source::parts`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PartProbes {
    /// Its basic block's slot, and the arena index of that block's last instruction: what
    /// the record of its exit names.
    pub slot: u32,
    pub at: u32,
    /// The index in [`Source::insns`] of its first instruction (no pair fuses across
    /// parts; a part that is only a jump followed has none, and the next part's index),
    /// and its pc.
    pub insn: usize,
    pub pc: u64,
    /// Its basic block's probes, as [`Source::probes`].
    pub probes: [Option<(u64, Probe)>; 2],
}

impl PartProbes {
    /// The probe of the exit to `pc`, if any.
    fn to(&self, pc: u64) -> Option<&Probe> {
        probe_to(&self.probes, pc)
    }
}

/// What a stretch of a compiled block's code does (see [`Compiled::sections`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    /// The block's own code: "prologue", "guard" (the test of its probes' key and
    /// epoch), "body", "exit", "bail out", "log", "indirect jump", "leave", ...
    Code(&'static str),
    /// A probe ([`ProbeOp::name`], or the probe of an indirect call's or jump's site).
    Probe(&'static str),
}

impl std::fmt::Display for Section {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Section::Code(what) => f.write_str(what),
            Section::Probe(what) => write!(f, "probe {what}"),
        }
    }
}

/// The counter of the way `end` for the sum `sum`: `base + sum + add`, if `sum + add` is
/// in `[0, size)` (and nothing overflows).
fn counter_of(end: &ProbeEnd, sum: i64) -> Option<u64> {
    let i = u64::try_from(sum.checked_add(end.add)?).ok()?;
    (i < end.size).then(|| end.base.checked_add(i)).flatten()
}

/// Whether a probed superblock's code runs a probe of `op` between two parts (where the
/// guest registers stay in cache registers): an addition, a path end, a region entry, or
/// a call that only opens a frame, and saves the callee's first sum where it starts in a
/// region (see [`plain_call`]), which use none.
pub(crate) fn runs_between_parts(op: &ProbeOp) -> bool {
    leaves_pending(op) || plain_call(op) || matches!(op, ProbeOp::Push { .. })
}

/// Whether a probe of `op` under the known guard leaves its next key, and the sum where it
/// is known, pending ([`Compiler::pending`]): an addition or a path end.
fn leaves_pending(op: &ProbeOp) -> bool {
    matches!(
        op,
        ProbeOp::Add(_) | ProbeOp::End { .. } | ProbeOp::Count(_)
    )
}

/// Whether a probe of `op` under the known guard takes what is pending
/// ([`Compiler::pending`]) instead of having it stored first: all but a tail call's and a
/// restart's. An addition or a path end leaves its next key, and the sum where it is
/// known, pending ([`leaves_pending`]); a call the callee's; a region's entry, exit or
/// both ([`ProbeOp::Push`] and the rest) read the sum pending and leave their next key
/// pending (and the sum after where it is known: [`ProbeOp::Push`]'s and
/// [`ProbeOp::PopPush`]'s); a return sets the key and sum from its frame.
fn takes_pending(op: &ProbeOp) -> bool {
    !matches!(op, ProbeOp::Tail { .. } | ProbeOp::Restart { .. })
}

/// A [`ProbeOp::Call`] that only opens the callee's frame (no path end or region entry
/// before; the callee may start in a region, `push`) with additions that are 32-bit
/// immediates: its code uses rax, rcx and rdx only.
fn plain_call(op: &ProbeOp) -> bool {
    matches!(
        *op,
        ProbeOp::Call {
            add,
            resume_add,
            end: None,
            enter: None,
            ..
        } if i32::try_from(add).is_ok() && i32::try_from(resume_add).is_ok()
    )
}

/// The probe among `probes` (by next pc) of the exit to `pc`, if any.
fn probe_to(probes: &[Option<(u64, Probe)>], pc: u64) -> Option<&Probe> {
    probes
        .iter()
        .flatten()
        .find(|(to, _)| *to == pc)
        .map(|(_, p)| p)
}

impl Source<'_> {
    /// The part of a probed superblock that holds arena index `at`.
    fn part(&self, at: u32) -> Option<&PartProbes> {
        let i = (at as usize).wrapping_sub(self.first);
        self.parts.iter().rev().find(|p| p.insn <= i)
    }

    /// The probe of the fixed exit by arena index `at` to `pc`, if any.
    fn exit_probe(&self, at: u32, pc: u64) -> Option<&Probe> {
        self.given_probe(at, pc).filter(|_| !self.unprobed)
    }

    /// The probe given for the fixed exit by arena index `at` to `pc`, if any, run or not
    /// ([`unprobed`](Self::unprobed)).
    fn given_probe(&self, at: u32, pc: u64) -> Option<&Probe> {
        match self.part(at) {
            Some(part) => part.to(pc),
            None => probe_to(&self.probes, pc),
        }
    }

    /// Whether the probe of the fixed exit by arena index `at` to `pc` (of unprobed code,
    /// the one it does not run) only adds to the sum.
    fn adds(&self, at: u32, pc: u64) -> bool {
        matches!(
            self.given_probe(at, pc).map(|p| p.op),
            Some(ProbeOp::Add(_))
        )
    }

    /// The slot and instruction that the record of the exit by arena index `at` (`side`:
    /// a side exit's, flagged [`SIDE`]) names: a probed superblock part's basic block.
    fn record(&self, at: u32, side: bool) -> (u32, u32) {
        match self.part(at) {
            Some(part) if !self.unprobed => (part.slot, part.at),
            _ if side => (self.slot, at | SIDE),
            _ => (self.slot, at),
        }
    }

    /// The key and epoch the probes of its first block (or part) share, if they do (see
    /// [`Guard`]).
    fn guard(&self) -> Option<Guard> {
        if self.unprobed {
            return None;
        }
        match self.parts.first() {
            Some(part) => Guard::shared(part.probes.iter().flatten().map(|(_, p)| p)),
            None => {
                let fixed = self.probes.iter().flatten().map(|(_, p)| p);
                Guard::shared(fixed.chain(&self.ret_probe))
            }
        }
    }
}

/// The vectors a compilation fills, kept from one to the next with their room (a
/// compilation grew each of them from empty, for every block and superblock), each taken
/// empty ([`emptied`]). [`Compiled`]'s go back with [`Scratch::give_back`].
#[derive(Default)]
pub(crate) struct Scratch {
    exits: Vec<ExitCode>,
    colds: Vec<ColdWays>,
    returns: Vec<usize>,
    sections: Vec<(u32, Section)>,
    stubs: Vec<Stub>,
}

/// The vector of `field`, taken and emptied, with its room.
fn emptied<T>(field: &mut Vec<T>) -> Vec<T> {
    let mut v = std::mem::take(field);
    v.clear();
    v
}

impl Scratch {
    /// Keeps the room of `compiled`'s vectors for the next compilation.
    pub(crate) fn give_back(&mut self, compiled: Compiled) {
        self.sections = compiled.sections;
        self.stubs = compiled.stubs;
    }
}

/// Appends to `asm` the code of block `src`, whose stubs are numbered from `first_stub`
/// (the buffer's count so far): a function `extern "sysv64" fn(x: *mut u64,
/// ctx: *mut Ctx) -> (next pc, kind)` (see [`kind`]). Returns `None`, having emitted
/// nothing, if the code would always bail out before [`MIN_PREFIX`] instructions.
///
/// r11 holds the *budget*: instructions that may still retire before the run loop must
/// look (a fuel or sample threshold), read from the context by the prologue and written
/// back by the epilogue. Each exit whose target is fixed has a stub that the run loop may
/// later patch ([`Stub`]) to go on at the body of the block it leads to, if that block's
/// whole count fits in the budget left: the code then runs block after block without
/// returning, and the budget tells the run loop how many instructions retired.
pub(crate) fn compile(
    asm: &mut Asm,
    (src, known): (&Source<'_>, Option<(u64, Probe)>),
    first_stub: u32,
    (saves, lent, epoch): (bool, u64, Option<u64>),
    scratch: &mut Scratch,
) -> Option<Compiled> {
    let start = asm.code.len();
    for r in SAVED {
        asm.push(r);
    }
    span_registers(asm);
    asm.load(R11, RSI, Ctx::BUDGET as i32);
    let body = (asm.code.len() - start) as u32;
    let guard = src.guard();
    let mut c = Compiler {
        asm,
        regs: RegCache::new(),
        exits: emptied(&mut scratch.exits),
        colds: emptied(&mut scratch.colds),
        returns: emptied(&mut scratch.returns),
        unprobed: src.unprobed,
        guard: None,
        pending: Unstored::default(),
        top_saved: None,
        defer: false,
        saves,
        lent,
        epoch,
        unchecked: 0,
        start,
        kept: [None; 2],
        sections: emptied(&mut scratch.sections),
    };
    c.sections.push((0, Section::Code("prologue")));
    let verified = guard.map(|g| {
        c.section(Section::Code("guard"));
        let mut miss = Vec::new();
        c.applies(Val::Imm(g.key), Val::Imm(g.epoch), &mut miss);
        c.bail_out(Jumps::of(miss), src.first, true);
        c.guard = Some(g);
        // A stub whose probe left this guard pending chains to the code past the check:
        // the state may not hold the key yet (and rcx points to it, as here).
        c.pending.key = Some(g.key);
        (g, (c.asm.code.len() - start) as u32)
    });
    let insns = src.insns;
    // How the block ends if it runs to its end: at a fixed next pc (its end, or a jump's
    // target), at the pc in rax (an indirect jump), or not at all (it always bails out).
    let mut next = Some(Some(src.end));
    // The next part of a probed superblock, whose probe from the one before runs before
    // its first instruction (parts start in order; one that is only a jump starts where
    // the next does).
    let mut next_part = 1;
    for (i, insn) in insns.iter().enumerate() {
        let at = src.first + i;
        let last = i + 1 == insns.len();
        while let Some(to) = src.parts.get(next_part).filter(|p| p.insn == i) {
            c.between(next_part - 1, &src.parts[next_part - 1], to);
            next_part += 1;
        }
        c.section(Section::Code("body"));
        let done = match insn.op {
            Op::Jal if last => {
                c.set_imm(insn.rd, src.end);
                next = Some(Some(insn.imm));
                Some(())
            }
            Op::Jalr if last => i32::try_from(insn.imm as i64).ok().map(|imm| {
                let a = c.get(insn.rs1, NO);
                c.asm.mov(RDX, a);
                c.asm.alu_imm(W::Q, Alu::Add, RDX, imm);
                c.asm.alu_imm(W::Q, Alu::And, RDX, -2);
                c.set_imm(insn.rd, src.end);
                c.asm.mov(RAX, RDX);
                next = Some(None);
            }),
            _ => {
                let retired = match src.meta.get(i) {
                    Some(m) if !last => m.idx + 1,
                    _ => src.count,
                };
                c.insn(insn, at, last, retired)
            }
        };
        if done.is_none() {
            if i < MIN_PREFIX {
                c.asm.code.truncate(start);
                return None;
            }
            let j = c.asm.jmp();
            c.bail(j, at);
            next = None;
            break;
        }
    }
    match next {
        Some(Some(pc)) => {
            let j = c.asm.jmp();
            c.exits.push(ExitCode {
                dirty: c.regs.dirty(),
                jumps: Jumps::one(j),
                pc,
                kind: kind::END,
                at: (src.first + insns.len() - 1) as u32,
                retired: Some(src.count),
                known: c.known(),
                divert: false,
                held: c.held(),
            });
        }
        Some(None) => {
            let at = (src.first + insns.len() - 1) as u32;
            let dirty = c.regs.dirty();
            c.write_back(&dirty);
            // Return and site probes, the record and the run loop read the state's key
            // (the next pc, in rax, waits in r12 meanwhile), but for a return's probe
            // under the known guard, which takes what is pending (a miss stores it).
            let ret_probe = src.ret_probe.filter(|_| src.logged && !src.unprobed);
            if c.pending != Unstored::default() && ret_probe.is_none_or(|p| c.stores_pending(&p)) {
                c.asm.mov(R12, RAX);
                c.settle();
                c.asm.mov(RAX, R12);
            }
            // A return's probe that applies stands for the record, as a fixed exit's does.
            let applied = match (ret_probe, src.site.filter(|_| !src.unprobed)) {
                (Some(p), _) => {
                    let mut miss = Vec::new();
                    let before = c.pending;
                    c.asm.mov(R12, RAX);
                    c.probe(&p, &mut miss);
                    c.asm.mov(RAX, R12);
                    let applied = c.asm.jmp();
                    c.land(miss);
                    c.store(before);
                    c.asm.mov(RAX, R12);
                    vec![applied]
                }
                (None, Some((site, kind))) if src.logged => {
                    c.section(Section::Code("indirect call site"));
                    let mut elsewhere = Vec::new();
                    let mut applied = Vec::new();
                    if let Some((to, probe)) = known {
                        // The probe known when compiled, for its target: run as a fixed
                        // exit's, and no way is searched. (What it leaves pending is
                        // stored: the code leaves.)
                        c.alu_u64(Alu::Cmp, RAX, to);
                        let other = c.asm.jcc(Cc::Ne);
                        let mut miss = Vec::new();
                        c.probe(&probe, &mut miss);
                        c.settle();
                        c.asm.mov_imm(RAX, to);
                        applied.push(c.asm.jmp());
                        c.land(miss);
                        c.asm.mov_imm(RAX, to);
                        elsewhere.push(c.asm.jmp());
                        // (The way search knows nothing the known way's code kept.)
                        c.land([other]);
                    }
                    // r14 = the site's way for the target, if one holds it (it then holds
                    // the target for rax).
                    let mut miss = Vec::new();
                    c.asm.load(R14, RSI, Ctx::SITES as i32);
                    let offset = site as usize * size_of::<Site>();
                    c.asm
                        .alu_imm(W::Q, Alu::Add, R14, i32::try_from(offset).ok()?);
                    let mut found = Vec::new();
                    for _ in 1..Site::WAYS {
                        c.asm.alu_mem(W::Q, Alu::Cmp, RAX, R14, SiteProbe::TO);
                        found.push(c.asm.jcc(Cc::E));
                        c.asm
                            .alu_imm(W::Q, Alu::Add, R14, size_of::<SiteProbe>() as i32);
                    }
                    c.asm.alu_mem(W::Q, Alu::Cmp, RAX, R14, SiteProbe::TO);
                    elsewhere.push(c.asm.jcc(Cc::Ne));
                    for j in found {
                        c.asm.patch(j);
                    }
                    c.site_probe(kind, &mut miss);
                    c.asm.alu_mem_imm(Alu::Add, R14, SiteProbe::RUNS, 1);
                    c.asm.load(RAX, R14, SiteProbe::TO);
                    applied.push(c.asm.jmp());
                    c.land(miss);
                    c.asm.load(RAX, R14, SiteProbe::TO);
                    c.land(elsewhere);
                    applied
                }
                _ => Vec::new(),
            };
            let (slot, rec_at) = src.record(at, false);
            let full = src.logged.then(|| c.log(None, slot, rec_at));
            // (Unprobed code returns after an indirect jump: see `Compiler::stub`.)
            let stop = src.unprobed.then(|| c.asm.jmp());
            for j in applied {
                c.asm.patch(j);
            }
            c.indirect(src.count);
            c.asm.store_imm32(RSI, Ctx::STUB as i32, INDIRECT);
            for j in full.into_iter().chain(stop) {
                c.asm.patch(j);
            }
            c.leave(kind::END, at, src.slot);
        }
        None => {}
    }
    let mut stubs = emptied(&mut scratch.stubs);
    let mut divert = None;
    let mut exits = std::mem::take(&mut c.exits);
    for e in exits.drain(..) {
        c.section(Section::Code(if e.kind == kind::BAIL {
            "bail out"
        } else {
            "exit"
        }));
        c.land(e.jumps.iter());
        for k in Kept::ALL.into_iter().filter(|&k| e.held[k as usize]) {
            c.assume(k);
        }
        if e.divert {
            // A jump to the next instruction until the block's unprobed code is compiled
            // and the jump patched to go on there; the run loop learns of the failed check
            // from the stub's note.
            let j = c.asm.jmp();
            c.asm.patch(j);
            divert = Some((j - start) as u32);
            c.asm.store_imm32(RSI, Ctx::STUB as i32, DIVERT);
        } else if src.unprobed && e.kind == kind::BAIL {
            // (A superblock's unprobed code ran no probe of the parts before the bail-out.)
            c.asm.store_imm32(RSI, Ctx::STUB as i32, UNPROBED);
        }
        c.write_back(&e.dirty);
        c.resume(e.known);
        if let Some(retired) = e.retired {
            let stub = first_stub + stubs.len() as u32;
            stubs.push(c.stub(&e, retired, src, stub, start));
            continue;
        }
        // The run loop reads the state.
        c.settle();
        if e.kind == kind::PART {
            // The record of the part's exit, then back to the run loop.
            let (slot, at) = match src.parts.get(e.at as usize) {
                Some(_) if src.unprobed => (src.slot, e.at | PART_REC),
                Some(p) => (p.slot, p.at),
                None => (src.slot, 0),
            };
            let full = c.log(Some(e.pc), slot, at);
            c.asm.patch(full);
            c.leave(e.kind, e.at, src.slot);
        } else {
            c.asm.mov_imm(RAX, e.pc);
            c.leave(e.kind, e.at, src.slot);
        }
    }
    if c.cold_ways().is_none() {
        c.asm.code.truncate(start);
        return None;
    }
    c.section(Section::Code("epilogue"));
    let epilogue = c.asm.code.len();
    c.asm.store(RSI, Ctx::BUDGET as i32, R11);
    for r in SAVED.iter().rev() {
        c.asm.pop(*r);
    }
    c.asm.ret();
    for &j in &c.returns {
        c.asm.patch_to(j, epilogue);
    }
    scratch.exits = exits;
    scratch.colds = std::mem::take(&mut c.colds);
    scratch.returns = std::mem::take(&mut c.returns);
    Some(Compiled {
        body,
        verified,
        divert,
        stubs,
        sections: c.sections,
        unchecked: c.unchecked,
    })
}

#[cfg(test)]
mod guard_tests {
    use super::*;

    fn probe(key: u64, epoch: u64, op: ProbeOp) -> Probe {
        Probe {
            key,
            epoch,
            next: key + 10,
            op,
        }
    }

    #[test]
    fn a_block_is_guarded_by_the_key_and_epoch_all_its_probes_share() {
        let add = ProbeOp::Add(1);
        let (a, b) = (
            probe(1, 2, add),
            probe(
                1,
                2,
                ProbeOp::End {
                    end: 0,
                    ways: 1,
                    set: 0,
                    first: None,
                },
            ),
        );
        assert_eq!(Guard::shared([&a, &b]), Some(Guard { key: 1, epoch: 2 }));
        assert_eq!(Guard::shared([&a, &probe(3, 2, add)]), None, "another key");
        assert_eq!(
            Guard::shared([&a, &probe(1, 4, add)]),
            None,
            "another epoch"
        );
        assert_eq!(Guard::shared([&probe(1, NO_EPOCH, add)]), None);
        assert_eq!(Guard::shared([]), None);
    }

    #[test]
    fn a_probe_that_applied_leaves_its_next_key() {
        let add = probe(1, 2, ProbeOp::Add(1));
        assert_eq!(Guard::after(&add), Some(Guard { key: 11, epoch: 2 }));
        let ret = ProbeOp::Return {
            end: 0,
            ways: 1,
            pairs: 0,
            first: None,
            saves_none: false,
        };
        assert_eq!(Guard::after(&probe(1, 2, ret)), None, "the frame's key");
        assert_eq!(Guard::after(&probe(1, NO_EPOCH, ProbeOp::Add(1))), None);
    }
}

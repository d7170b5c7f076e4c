//! Compiles a translated block into x86-64 code.
//!
//! The code keeps the guest registers in [`Cpu::x`](crate::cpu::Cpu::x) (pointed to by
//! rdi) and caches up to seven of them in host registers while the block runs. The cache
//! is write-through: every result is stored to `x` at once, so `x` is always current and
//! leaving the block at any point needs no write-back; the cache only spares the loads
//! (and their store-forwarding latency) of registers the block already holds.
//!
//! Guest memory is reached through the [`MemCtx`] that rsi points to, kept in r8 (host
//! address of the span), r9 (its guest base) and r10 (its length less 8). An access whose
//! offset in the span is above r10, or a store that may touch code, is not performed: the
//! code *bails out* before the instruction, and the threaded interpreter runs the rest of
//! the block from there, raising the fault or noting the store into code exactly as without
//! compiled code. Operations the compiler does not know bail out the same way.

use super::x86::{Alu, Asm, Cc, Load, Reg, Shift, W};
use super::x86::{R10, R11, R12, R13, R14, R15, R8, R9, RAX, RBP, RBX, RCX, RDI, RDX, RSI};
use super::MemCtx;
use crate::insn::Op;
use crate::xlat::Tinsn;

/// What the `rdx` half of a compiled block's result says (`rax` is the next pc).
pub(crate) mod status {
    /// The block ran to its end; `rax` is the next pc.
    pub const END: u64 = u64::MAX;

    /// The side exit of the branch at arena index `at` was taken; `rax` is its target.
    pub fn side_exit(at: usize) -> u64 {
        (at as u64) << 1
    }

    /// The code bailed out before the instruction at arena index `at`.
    pub fn bail(at: usize) -> u64 {
        (at as u64) << 1 | 1
    }
}

/// Host registers that cache guest registers (callee-saved ones are saved by the prologue).
const CACHE: [Reg; 7] = [RBX, RBP, R11, R12, R13, R14, R15];
/// Registers the prologue saves (System V callee-saved ones among [`CACHE`]).
const SAVED: [Reg; 6] = [RBX, RBP, R12, R13, R14, R15];
/// The fewest instructions compiled before one that always bails out: a shorter prefix
/// saves less than the call and the bail-out cost.
const MIN_PREFIX: usize = 6;
/// No register.
const NO: u8 = u8::MAX;
/// Guest register slots the code may touch: x0 … x31 and the x0-write scratch slot 32.
const GUEST_SLOTS: usize = 33;

/// Which guest register each cache register holds.
struct RegCache {
    /// Index into [`CACHE`] holding each guest register, or [`NO`].
    slot_of: [u8; GUEST_SLOTS],
    /// Guest register held in each cache register, or [`NO`].
    guest: [u8; CACHE.len()],
    /// When each cache register was last used (for least-recently-used eviction).
    used: [u32; CACHE.len()],
    clock: u32,
}

impl RegCache {
    fn new() -> RegCache {
        RegCache {
            slot_of: [NO; GUEST_SLOTS],
            guest: [NO; CACHE.len()],
            used: [0; CACHE.len()],
            clock: 0,
        }
    }

    fn touch(&mut self, slot: usize) -> Reg {
        self.clock += 1;
        self.used[slot] = self.clock;
        CACHE[slot]
    }

    /// A cache register for guest register `g`, evicting the least recently used one that
    /// is not `keep`. Its old value stays unloaded (the caller fills it).
    fn claim(&mut self, g: u8, keep: Reg) -> usize {
        let slot = (0..CACHE.len())
            .filter(|&s| CACHE[s] != keep)
            .min_by_key(|&s| (self.guest[s] != NO, self.used[s]))
            .unwrap_or(0);
        if let Some(old) = self.slot_of.get_mut(usize::from(self.guest[slot])) {
            *old = NO;
        }
        self.guest[slot] = g;
        self.slot_of[usize::from(g)] = slot as u8;
        slot
    }
}

/// The offset of guest register `g` in `x`.
fn disp(g: u8) -> i32 {
    i32::from(g) * 8
}

/// The compiler's state for one block.
struct Compiler<'a> {
    asm: &'a mut Asm,
    regs: RegCache,
    /// Exits to emit after the body: the jump to patch, the next pc and the status.
    exits: Vec<(usize, u64, u64)>,
}

impl Compiler<'_> {
    /// The host register holding guest register `g`, loading it if it is not cached;
    /// `keep` (a register another operand is in) is not evicted for it.
    fn get(&mut self, g: u8, keep: Reg) -> Reg {
        let slot = match self.regs.slot_of[usize::from(g)] {
            NO => {
                let s = self.regs.claim(g, keep);
                self.asm.load(CACHE[s], RDI, disp(g));
                s
            }
            s => usize::from(s),
        };
        self.regs.touch(slot)
    }

    /// Both source operands of `insn`.
    fn get2(&mut self, insn: &Tinsn) -> (Reg, Reg) {
        let a = self.get(insn.rs1, NO);
        let b = self.get(insn.rs2, a);
        (a, b)
    }

    /// Guest register `g` = host register `value` (not a cache register), written through.
    fn set(&mut self, g: u8, value: Reg) {
        let slot = match self.regs.slot_of[usize::from(g)] {
            NO => self.regs.claim(g, NO),
            s => usize::from(s),
        };
        let h = self.regs.touch(slot);
        self.asm.mov(h, value);
        self.asm.store(RDI, disp(g), value);
    }

    /// Guest register `g` = `imm`, written through.
    fn set_imm(&mut self, g: u8, imm: u64) {
        self.asm.mov_imm(RAX, imm);
        self.set(g, RAX);
    }

    /// An exit taken by the jump whose displacement is at `jump`.
    fn exit(&mut self, jump: usize, pc: u64, status: u64) {
        self.exits.push((jump, pc, status));
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
        self.exit(j, 0, status::bail(at));
    }

    /// The code of body or last instruction `insn` (arena index `at`); `None` if it is not
    /// compiled (the code bails out before it).
    fn insn(&mut self, insn: &Tinsn, at: usize, last: bool) -> Option<()> {
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
            Op::Sll | Op::Srl | Op::Sra | Op::Sllw | Op::Srlw | Op::Sraw => {
                let (shift, w) = match insn.op {
                    Op::Sll => (Shift::Shl, W::Q),
                    Op::Srl => (Shift::Shr, W::Q),
                    Op::Sra => (Shift::Sar, W::Q),
                    Op::Sllw => (Shift::Shl, W::D),
                    Op::Srlw => (Shift::Shr, W::D),
                    _ => (Shift::Sar, W::D),
                };
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
                let (shift, w) = match insn.op {
                    Op::Slli => (Shift::Shl, W::Q),
                    Op::Srli => (Shift::Shr, W::Q),
                    Op::Srai => (Shift::Sar, W::Q),
                    Op::Slliw => (Shift::Shl, W::D),
                    Op::Srliw => (Shift::Shr, W::D),
                    _ => (Shift::Sar, W::D),
                };
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
                // A store that may touch code bails out: the interpreter notes it.
                self.asm.mov(RCX, RAX);
                self.asm
                    .alu_mem(W::Q, Alu::Sub, RCX, RSI, MemCtx::CODE_LO as i32);
                self.asm
                    .alu_mem(W::Q, Alu::Cmp, RCX, RSI, MemCtx::CODE_SPAN as i32);
                let j = self.asm.jcc(Cc::B);
                self.exit(j, 0, status::bail(at));
                self.bounds(at);
                let v = self.get(insn.rs2, NO);
                self.asm.store_sib(bytes, R8, RAX, v);
            }
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
                let j = self.asm.jcc(cc);
                let status = if last {
                    status::END
                } else {
                    status::side_exit(at)
                };
                self.exit(j, imm, status);
            }
            _ => return None,
        }
        Some(())
    }

    /// `rd = rs1 op rs2`, where `op` computes `rax op= b` (with rax = rs1) at width `w`.
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

/// Appends to `asm` the code of the translated block `insns` (arena index of its first
/// instruction `first`, fall-through `end`): a function `extern "sysv64" fn(x: *mut u64,
/// ctx: *const MemCtx) -> (next pc, status)` (see [`status`]). Returns `false`, having
/// emitted nothing, if the code would always bail out before [`MIN_PREFIX`] instructions.
pub(crate) fn compile(asm: &mut Asm, insns: &[Tinsn], first: usize, end: u64) -> bool {
    let start = asm.code.len();
    for r in SAVED {
        asm.push(r);
    }
    asm.load(R8, RSI, MemCtx::HOST as i32);
    asm.load(R9, RSI, MemCtx::BASE as i32);
    asm.load(R10, RSI, MemCtx::LIMIT as i32);
    let mut c = Compiler {
        asm,
        regs: RegCache::new(),
        exits: Vec::new(),
    };
    // The next pc of a block that runs to its end is `end`, unless its last instruction
    // jumps (then in rax, or a constant).
    let mut next = Some(end);
    for (i, insn) in insns.iter().enumerate() {
        let at = first + i;
        let last = i + 1 == insns.len();
        let done = match insn.op {
            Op::Jal if last => {
                c.set_imm(insn.rd, end);
                next = Some(insn.imm);
                Some(())
            }
            Op::Jalr if last => i32::try_from(insn.imm as i64).ok().map(|imm| {
                let a = c.get(insn.rs1, NO);
                c.asm.mov(RDX, a);
                c.asm.alu_imm(W::Q, Alu::Add, RDX, imm);
                c.asm.alu_imm(W::Q, Alu::And, RDX, -2);
                c.set_imm(insn.rd, end);
                c.asm.mov(RAX, RDX);
                next = None;
            }),
            _ => c.insn(insn, at, last),
        };
        if done.is_none() {
            if i < MIN_PREFIX {
                c.asm.code.truncate(start);
                return false;
            }
            let j = c.asm.jmp();
            c.exit(j, 0, status::bail(at));
            next = None;
            break;
        }
    }
    // The block's end (unless it bailed out unconditionally, where this is unreachable).
    if let Some(pc) = next {
        c.asm.mov_imm(RAX, pc);
    }
    c.asm.mov_imm(RDX, status::END);
    let epilogue = c.asm.code.len();
    for r in SAVED.iter().rev() {
        c.asm.pop(*r);
    }
    c.asm.ret();
    for (jump, pc, status) in std::mem::take(&mut c.exits) {
        c.asm.patch(jump);
        c.asm.mov_imm(RAX, pc);
        c.asm.mov_imm(RDX, status);
        let j = c.asm.jmp();
        c.asm.patch_to(j, epilogue);
    }
    true
}

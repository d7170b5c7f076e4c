//! The few x86-64 encodings the block compiler emits, in safe code: register-register and
//! register-memory forms over 64-bit general registers, with memory operands `[base + disp]`
//! (the guest register file and the context), `[base + index + disp]` (a probe state's
//! frame, see [`Mem`]), `[base + index]` (guest memory) and `[base + index * 8]` (a probe's
//! counter).
//!
//! Registers are numbered as in the encoding (rax 0 … r15 15). Every instruction carries a
//! REX prefix, so byte registers 4–7 are spl, bpl, sil and dil, never ah … bh.

/// A host register.
pub(crate) type Reg = u8;

/// The address of a `[base + disp]` operand: a register, or the sum of two (a frame of the
/// probe state: the state's address plus the frame's offset; a saved sum: the state's
/// address plus 8 times its index), so that no instruction adds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mem {
    Base(Reg),
    /// `base + index` (`index` not rsp).
    Indexed(Reg, Reg),
    /// `base + 8 * index` (`index` not rsp).
    Words(Reg, Reg),
}

impl From<Reg> for Mem {
    fn from(base: Reg) -> Mem {
        Mem::Base(base)
    }
}

pub(crate) const RAX: Reg = 0;
pub(crate) const RCX: Reg = 1;
pub(crate) const RDX: Reg = 2;
pub(crate) const RBX: Reg = 3;
pub(crate) const RBP: Reg = 5;
pub(crate) const RSI: Reg = 6;
pub(crate) const RDI: Reg = 7;
pub(crate) const R8: Reg = 8;
pub(crate) const R9: Reg = 9;
pub(crate) const R10: Reg = 10;
pub(crate) const R11: Reg = 11;
pub(crate) const R12: Reg = 12;
pub(crate) const R13: Reg = 13;
pub(crate) const R14: Reg = 14;
pub(crate) const R15: Reg = 15;

/// Operand width of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum W {
    /// 32 bits (writing a register zero-extends it).
    D,
    /// 64 bits (REX.W).
    Q,
}

/// Condition codes (the low nibble of `jcc`/`setcc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cc {
    /// Overflow (signed).
    O = 0x0,
    /// Below (unsigned <).
    B = 0x2,
    /// Above or equal (unsigned >=).
    Ae = 0x3,
    /// Equal.
    E = 0x4,
    /// Not equal.
    Ne = 0x5,
    /// Below or equal (unsigned <=).
    Be = 0x6,
    /// Above (unsigned >).
    A = 0x7,
    /// Less (signed <).
    L = 0xc,
    /// Greater or equal (signed >=).
    Ge = 0xd,
}

/// Two-operand ALU operations of the `op r64, r/m64` (opcode) and `op r/m64, imm`
/// (`0x81 /ext`) families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alu {
    Add,
    Or,
    And,
    Sub,
    Xor,
    Cmp,
}

impl Alu {
    /// The opcode of `op reg, r/m`.
    fn load_form(self) -> u8 {
        match self {
            Alu::Add => 0x03,
            Alu::Or => 0x0b,
            Alu::And => 0x23,
            Alu::Sub => 0x2b,
            Alu::Xor => 0x33,
            Alu::Cmp => 0x3b,
        }
    }

    /// The ModRM reg field of `op r/m, imm32` (`0x81`).
    fn ext(self) -> u8 {
        match self {
            Alu::Add => 0,
            Alu::Or => 1,
            Alu::And => 4,
            Alu::Sub => 5,
            Alu::Xor => 6,
            Alu::Cmp => 7,
        }
    }
}

/// Shifts (`0xd3 /ext` by cl, `0xc1 /ext` by an immediate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shift {
    Shl = 4,
    Shr = 5,
    Sar = 7,
}

/// Memory access widths and extensions for loads from `[base + index]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Load {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
}

/// A code buffer being written.
#[derive(Debug, Default)]
pub(crate) struct Asm {
    pub code: Vec<u8>,
    /// See [`era`](Self::era).
    eras: [u32; 16],
}

impl Asm {
    /// The current *era* of register `r`: it changes at every instruction that may write
    /// `r`, at every position a jump was patched to ([`patch`](Self::patch)) and at every
    /// [`label`](Self::label), so code that loaded a value into `r` knows it still holds
    /// it while the era is the one after the load (straight-line code in between).
    pub fn era(&self, r: Reg) -> u32 {
        self.eras[usize::from(r & 15)]
    }

    /// Starts a new era of every register at a position jumps may land on from code not
    /// emitted straight before it (through [`patch_to`](Self::patch_to), or patched at run
    /// time).
    pub fn label(&mut self) {
        for era in &mut self.eras {
            *era = era.wrapping_add(1);
        }
    }

    /// Notes that the instruction being emitted writes `dst`.
    fn writes(&mut self, dst: Reg) {
        let era = &mut self.eras[usize::from(dst & 15)];
        *era = era.wrapping_add(1);
    }

    fn byte(&mut self, b: u8) {
        self.code.push(b);
    }

    fn u32(&mut self, v: u32) {
        self.code.extend_from_slice(&v.to_le_bytes());
    }

    /// The REX prefix for operand width `w`, ModRM reg `reg`, SIB index `index` and base
    /// or r/m `rm` (always emitted: see the module docs).
    fn rex(&mut self, w: W, reg: Reg, index: Reg, rm: Reg) {
        let w = u8::from(w == W::Q);
        self.byte(0x40 | w << 3 | (reg >> 3) << 2 | (index >> 3) << 1 | rm >> 3);
    }

    /// `opcode` with a register-direct ModRM (`mod = 11`).
    fn rr(&mut self, w: W, opcode: &[u8], reg: Reg, rm: Reg) {
        self.rex(w, reg, 0, rm);
        self.code.extend_from_slice(opcode);
        self.byte(0xc0 | (reg & 7) << 3 | rm & 7);
    }

    /// `opcode` with a `[base + disp]` operand, `base` a [`Mem`] (a single base neither
    /// rsp/r12 nor rbp/r13, which need other forms; an indexed one takes the SIB form).
    /// (Inlined: left to LLVM, it was once outlined with its pushes, 5M more instructions
    /// of compilation at sort 30000.)
    #[inline]
    fn rm_disp(&mut self, w: W, opcode: &[u8], reg: Reg, base: impl Into<Mem>, disp: i32) {
        let short = i8::try_from(disp).ok();
        // mod 01 or 10 (a base of rbp/r13 in a SIB byte then means itself).
        let form = if short.is_some() { 0x40 } else { 0x80 };
        match base.into() {
            Mem::Base(base) => {
                debug_assert!(!matches!(base & 7, 4 | 5));
                self.rex(w, reg, 0, base);
                self.code.extend_from_slice(opcode);
                self.byte(form | (reg & 7) << 3 | base & 7);
            }
            Mem::Indexed(base, index) => self.sib_form(w, opcode, form, reg, (base, index, 0)),
            Mem::Words(base, index) => self.sib_form(w, opcode, form, reg, (base, index, 3)),
        }
        match short {
            Some(d) => self.byte(d as u8),
            None => self.u32(disp as u32),
        }
    }

    /// `opcode` with a ModRM of mod `form` (0x00, 0x40 or 0x80) naming a SIB byte for
    /// `[base + index << scale]` (`index` not rsp, `scale` at most 3); a displacement of
    /// the form's size follows, the caller's to emit.
    fn sib_form(&mut self, w: W, opcode: &[u8], form: u8, reg: Reg, sib: (Reg, Reg, u8)) {
        let (base, index, scale) = sib;
        debug_assert!(index != 4 && scale <= 3);
        self.rex(w, reg, index, base);
        self.code.extend_from_slice(opcode);
        self.byte(form | (reg & 7) << 3 | 4);
        self.byte(scale << 6 | (index & 7) << 3 | base & 7);
    }

    /// `opcode` with a `[base + index << scale]` operand (`base` not rbp/r13, `index` not
    /// rsp, `scale` at most 3).
    fn rm_sib(&mut self, w: W, opcode: &[u8], reg: Reg, sib: (Reg, Reg, u8)) {
        debug_assert!(sib.0 & 7 != 5);
        self.sib_form(w, opcode, 0, reg, sib);
    }

    /// `mov dst, src`.
    pub fn mov(&mut self, dst: Reg, src: Reg) {
        self.writes(dst);
        self.rr(W::Q, &[0x89], src, dst);
    }

    /// `mov dst, [base + disp]`.
    pub fn load(&mut self, dst: Reg, base: impl Into<Mem>, disp: i32) {
        self.writes(dst);
        self.rm_disp(W::Q, &[0x8b], dst, base, disp);
    }

    /// `mov [base + disp], src`.
    pub fn store(&mut self, base: impl Into<Mem>, disp: i32, src: Reg) {
        self.rm_disp(W::Q, &[0x89], src, base, disp);
    }

    /// `dst = imm` (the shortest of `mov r32, imm32`, `mov r64, simm32` and `movabs`).
    pub fn mov_imm(&mut self, dst: Reg, imm: u64) {
        self.writes(dst);
        if let Ok(v) = u32::try_from(imm) {
            self.rex(W::D, 0, 0, dst);
            self.byte(0xb8 | dst & 7);
            self.u32(v);
        } else if let Ok(v) = i32::try_from(imm as i64) {
            self.rr(W::Q, &[0xc7], 0, dst);
            self.u32(v as u32);
        } else {
            self.rex(W::Q, 0, 0, dst);
            self.byte(0xb8 | dst & 7);
            self.code.extend_from_slice(&imm.to_le_bytes());
        }
    }

    /// `op dst, src`.
    pub fn alu(&mut self, w: W, op: Alu, dst: Reg, src: Reg) {
        self.writes(dst);
        self.rr(w, &[op.load_form()], dst, src);
    }

    /// `op dst, [base + disp]`.
    pub fn alu_mem(&mut self, w: W, op: Alu, dst: Reg, base: impl Into<Mem>, disp: i32) {
        self.writes(dst);
        self.rm_disp(w, &[op.load_form()], dst, base, disp);
    }

    /// `op dst, imm` (sign-extended 32-bit immediate).
    pub fn alu_imm(&mut self, w: W, op: Alu, dst: Reg, imm: i32) {
        self.writes(dst);
        if let Ok(v) = i8::try_from(imm) {
            self.rr(w, &[0x83], op.ext(), dst);
            self.byte(v as u8);
        } else {
            self.rr(w, &[0x81], op.ext(), dst);
            self.u32(imm as u32);
        }
    }

    /// `op dst, imm32` in its 7-byte form whatever the immediate (so that it can be
    /// patched): the immediate is at the returned position.
    pub fn alu_imm32(&mut self, op: Alu, dst: Reg, imm: u32) -> usize {
        self.writes(dst);
        self.rr(W::Q, &[0x81], op.ext(), dst);
        self.u32(imm);
        self.code.len() - 4
    }

    /// `op qword [base + disp], imm` (sign-extended 32-bit immediate).
    pub fn alu_mem_imm(&mut self, op: Alu, base: impl Into<Mem>, disp: i32, imm: i32) {
        if let Ok(v) = i8::try_from(imm) {
            self.rm_disp(W::Q, &[0x83], op.ext(), base, disp);
            self.byte(v as u8);
        } else {
            self.rm_disp(W::Q, &[0x81], op.ext(), base, disp);
            self.u32(imm as u32);
        }
    }

    /// `mov qword [base + disp], imm` (sign-extended 32-bit immediate).
    pub fn store_imm(&mut self, base: impl Into<Mem>, disp: i32, imm: i32) {
        self.rm_disp(W::Q, &[0xc7], 0, base, disp);
        self.u32(imm as u32);
    }

    /// `mov dword [base + disp], imm`.
    pub fn store_imm32(&mut self, base: Reg, disp: i32, imm: u32) {
        self.rm_disp(W::D, &[0xc7], 0, base, disp);
        self.u32(imm);
    }

    /// `imul dst, src` (the low half of the product).
    pub fn imul(&mut self, w: W, dst: Reg, src: Reg) {
        self.writes(dst);
        self.rr(w, &[0x0f, 0xaf], dst, src);
    }

    /// `rdx:rax = rax * src`, signed (`imul src`) or unsigned (`mul src`).
    pub fn mul_wide(&mut self, signed: bool, src: Reg) {
        self.writes(RAX);
        self.writes(RDX);
        self.rr(W::Q, &[0xf7], if signed { 5 } else { 4 }, src);
    }

    /// `div src` (unsigned) or `idiv src` (signed) of rdx:rax, edx:eax for [`W::D`]:
    /// quotient in rax, remainder in rdx. Faults on a zero divisor or a signed overflow,
    /// which the caller rules out first.
    pub fn div_wide(&mut self, w: W, signed: bool, src: Reg) {
        self.writes(RAX);
        self.writes(RDX);
        self.rr(w, &[0xf7], if signed { 7 } else { 6 }, src);
    }

    /// `cqo` ([`W::Q`]) or `cdq`: rdx (edx) = the sign of rax (eax).
    pub fn sign_into_rdx(&mut self, w: W) {
        self.writes(RDX);
        if w == W::Q {
            self.byte(0x48);
        }
        self.byte(0x99);
    }

    /// `op dst, cl`.
    pub fn shift_cl(&mut self, w: W, op: Shift, dst: Reg) {
        self.writes(dst);
        self.rr(w, &[0xd3], op as u8, dst);
    }

    /// `op dst, imm`.
    pub fn shift_imm(&mut self, w: W, op: Shift, dst: Reg, imm: u8) {
        self.writes(dst);
        self.rr(w, &[0xc1], op as u8, dst);
        self.byte(imm);
    }

    /// `movsxd dst, src32`.
    pub fn sext32(&mut self, dst: Reg, src: Reg) {
        self.writes(dst);
        self.rr(W::Q, &[0x63], dst, src);
    }

    /// `setcc dst8; movzx dst32, dst8`: `dst = cc as u64`.
    pub fn set(&mut self, cc: Cc, dst: Reg) {
        self.writes(dst);
        self.rr(W::D, &[0x0f, 0x90 | cc as u8], 0, dst);
        self.rr(W::D, &[0x0f, 0xb6], dst, dst);
    }

    /// `dst = [base + index]` with the width and extension of `kind`.
    pub fn load_sib(&mut self, kind: Load, dst: Reg, base: Reg, index: Reg) {
        self.writes(dst);
        let (w, op): (W, &[u8]) = match kind {
            Load::U8 => (W::D, &[0x0f, 0xb6]),
            Load::I8 => (W::Q, &[0x0f, 0xbe]),
            Load::U16 => (W::D, &[0x0f, 0xb7]),
            Load::I16 => (W::Q, &[0x0f, 0xbf]),
            Load::U32 => (W::D, &[0x8b]),
            Load::I32 => (W::Q, &[0x63]),
            Load::U64 => (W::Q, &[0x8b]),
        };
        self.rm_sib(w, op, dst, (base, index, 0));
    }

    /// `[base + index] = src` (its low `bytes`: 1, 2, 4 or 8).
    pub fn store_sib(&mut self, bytes: u8, base: Reg, index: Reg, src: Reg) {
        match bytes {
            1 => self.rm_sib(W::D, &[0x88], src, (base, index, 0)),
            2 => {
                self.byte(0x66);
                self.rm_sib(W::D, &[0x89], src, (base, index, 0));
            }
            4 => self.rm_sib(W::D, &[0x89], src, (base, index, 0)),
            _ => self.rm_sib(W::Q, &[0x89], src, (base, index, 0)),
        }
    }

    /// `add qword [base + index * 8], 1`: a counter's count.
    pub fn count_sib(&mut self, base: Reg, index: Reg) {
        self.rm_sib(W::Q, &[0x83], Alu::Add.ext(), (base, index, 3));
        self.byte(1);
    }

    /// `add qword [base + index * 8 + disp], 1` (disp32): the count of a counter whose
    /// index is a table's base plus `index`.
    pub fn count_sib_disp(&mut self, base: Reg, index: Reg, disp: i32) {
        self.sib_form(W::Q, &[0x83], 0x80, Alu::Add.ext(), (base, index, 3));
        self.u32(disp as u32);
        self.byte(1);
    }

    /// `jmp qword [base + disp]`.
    pub fn jmp_mem(&mut self, base: Reg, disp: i32) {
        self.rm_disp(W::D, &[0xff], 4, base, disp);
    }

    /// `push r`.
    pub fn push(&mut self, r: Reg) {
        self.rex(W::D, 0, 0, r);
        self.byte(0x50 | r & 7);
    }

    /// `pop r`.
    pub fn pop(&mut self, r: Reg) {
        self.writes(r);
        self.rex(W::D, 0, 0, r);
        self.byte(0x58 | r & 7);
    }

    /// `call r`.
    pub fn call(&mut self, r: Reg) {
        // (The callee may write any caller-saved register.)
        self.label();
        self.rr(W::D, &[0xff], 2, r);
    }

    /// `ret`.
    pub fn ret(&mut self) {
        self.byte(0xc3);
    }

    /// `jcc rel32` to a target not yet known: returns the position of the displacement
    /// for [`Asm::patch`].
    pub fn jcc(&mut self, cc: Cc) -> usize {
        self.byte(0x0f);
        self.byte(0x80 | cc as u8);
        self.u32(0);
        self.code.len() - 4
    }

    /// `jmp rel32` to a target not yet known (see [`Asm::jcc`]).
    pub fn jmp(&mut self) -> usize {
        self.byte(0xe9);
        self.u32(0);
        self.code.len() - 4
    }

    /// Points the displacement at `at` (from [`Asm::jcc`] or [`Asm::jmp`]) to the current
    /// position.
    pub fn patch(&mut self, at: usize) {
        self.label();
        let rel = (self.code.len() - (at + 4)) as u32;
        self.code[at..at + 4].copy_from_slice(&rel.to_le_bytes());
    }

    /// Points the displacement at `at` back to the position `to`, already emitted: a
    /// [`label`](Self::label), or a position whose code assumes of the registers only what
    /// holds at `at`.
    pub fn patch_to(&mut self, at: usize, to: usize) {
        let rel = (to as i64 - (at as i64 + 4)) as u32;
        self.code[at..at + 4].copy_from_slice(&rel.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An instruction to emit, and the bytes it must give.
    type Case<'a> = (&'a dyn Fn(&mut Asm), &'a [u8]);

    /// Every instruction that writes rcx (or may: a call) starts an era of rcx, as do
    /// positions jumps land on; those that only read it, or write another register, do not.
    /// The same for rdx.
    #[test]
    fn a_register_has_a_new_era_wherever_it_may_change() {
        let writes: [&dyn Fn(&mut Asm); 17] = [
            &|a| a.mov(RCX, RAX),
            &|a| a.load(RCX, RSI, 8),
            &|a| a.mov_imm(RCX, 1),
            &|a| a.mov_imm(RCX, u64::MAX),
            &|a| a.alu(W::Q, Alu::Add, RCX, RAX),
            &|a| a.alu_mem(W::D, Alu::Xor, RCX, RSI, 8),
            &|a| a.alu_imm(W::Q, Alu::And, RCX, 7),
            &|a| {
                a.alu_imm32(Alu::Sub, RCX, 9);
            },
            &|a| a.imul(W::Q, RCX, RDX),
            &|a| a.shift_cl(W::Q, Shift::Shl, RCX),
            &|a| a.shift_imm(W::D, Shift::Sar, RCX, 3),
            &|a| a.sext32(RCX, RAX),
            &|a| a.set(Cc::E, RCX),
            &|a| a.load_sib(Load::I8, RCX, R8, RAX),
            &|a| a.pop(RCX),
            &|a| a.call(RAX),
            &|a| a.label(),
        ];
        let keeps: [&dyn Fn(&mut Asm); 14] = [
            &|a| a.mov(RAX, RCX),
            &|a| a.load(RDX, RCX, 8),
            &|a| a.store(RCX, 8, RAX),
            &|a| a.store(Mem::Indexed(RCX, RDX), 8, RAX),
            &|a| a.alu_mem(W::Q, Alu::Cmp, RAX, RCX, 0x10),
            &|a| a.alu_mem_imm(Alu::Cmp, RCX, 0x10, 3),
            &|a| a.store_imm(RCX, 0, 0),
            &|a| a.shift_cl(W::Q, Shift::Shl, RAX),
            &|a| a.mul_wide(true, RCX),
            &|a| a.div_wide(W::Q, false, RCX),
            &|a| a.count_sib(RDX, RCX),
            &|a| a.store_sib(8, R8, RAX, RCX),
            &|a| a.push(RCX),
            &|a| {
                a.jcc(Cc::Ne);
            },
        ];
        // rdx, which the wide multiplication and division and `cqo` write too.
        let rdx_writes: [&dyn Fn(&mut Asm); 4] = [
            &|a| a.mul_wide(false, RCX),
            &|a| a.div_wide(W::D, true, RCX),
            &|a| a.sign_into_rdx(W::Q),
            &|a| a.load(RDX, RSI, 0x60),
        ];
        let rdx_keeps: [&dyn Fn(&mut Asm); 4] = [
            &|a| a.count_sib(RDX, RAX),
            &|a| a.count_sib_disp(RDX, RAX, 8),
            &|a| a.alu_mem_imm(Alu::Add, RDX, 8, 1),
            &|a| a.load(RCX, RSI, 0x58),
        ];
        let mut a = Asm::default();
        let cases = [
            (RCX, &writes[..], true),
            (RCX, &keeps[..], false),
            (RDX, &rdx_writes[..], true),
            (RDX, &rdx_keeps[..], false),
        ];
        for (reg, emits, changes) in cases {
            for (i, emit) in emits.iter().enumerate() {
                let before = a.era(reg);
                emit(&mut a);
                let what = if changes { "writes" } else { "keeps" };
                assert_eq!(
                    a.era(reg) != before,
                    changes,
                    "instruction {i}, which {what} {reg}"
                );
            }
        }
        let j = a.jmp();
        let before = a.era(RCX);
        a.patch_to(j, 0);
        assert_eq!(a.era(RCX), before, "patch_to leaves the current position");
        a.patch(j);
        assert_ne!(a.era(RCX), before, "a position a jump lands on");
    }

    /// `[base + index + disp]` operands and counts at `[base + index * 8 + disp]`, with GNU
    /// objdump's reading of the bytes (disp8 and disp32, rbp and r13 as base or index, REX.X
    /// and REX.B for r12-r15).
    #[test]
    fn indexed_operands_encode_as_objdump_reads_them() {
        let mut a = Asm::default();
        let cases: [Case<'_>; 11] = [
            // mov 0x90(%rcx,%r14,1),%rax
            (
                &|a| a.load(RAX, Mem::Indexed(RCX, R14), 0x90),
                &[0x4a, 0x8b, 0x84, 0x31, 0x90, 0, 0, 0],
            ),
            // mov %rax,0x80(%rcx,%rdx,1)
            (
                &|a| a.store(Mem::Indexed(RCX, RDX), 0x80, RAX),
                &[0x48, 0x89, 0x84, 0x11, 0x80, 0, 0, 0],
            ),
            // movq $0xfffffffffffffffb,0x98(%rcx,%rdx,1)
            (
                &|a| a.store_imm(Mem::Indexed(RCX, RDX), 0x98, -5),
                &[
                    0x48, 0xc7, 0x84, 0x11, 0x98, 0, 0, 0, 0xfb, 0xff, 0xff, 0xff,
                ],
            ),
            // cmp 0x80(%rcx,%r14,1),%r12
            (
                &|a| a.alu_mem(W::Q, Alu::Cmp, R12, Mem::Indexed(RCX, R14), 0x80),
                &[0x4e, 0x3b, 0xa4, 0x31, 0x80, 0, 0, 0],
            ),
            // mov 0x8(%r13,%rbp,1),%r13
            (
                &|a| a.load(R13, Mem::Indexed(R13, RBP), 8),
                &[0x4d, 0x8b, 0x6c, 0x2d, 0x08],
            ),
            // addq $0x1,-0x8(%rbp,%r12,1)
            (
                &|a| a.alu_mem_imm(Alu::Add, Mem::Indexed(RBP, R12), -8, 1),
                &[0x4a, 0x83, 0x44, 0x25, 0xf8, 0x01],
            ),
            // mov 0x30(%rcx,%r14,8),%r12
            (
                &|a| a.load(R12, Mem::Words(RCX, R14), 0x30),
                &[0x4e, 0x8b, 0x64, 0xf1, 0x30],
            ),
            // mov %r12,0x38(%rcx,%r15,8)
            (
                &|a| a.store(Mem::Words(RCX, R15), 0x38, R12),
                &[0x4e, 0x89, 0x64, 0xf9, 0x38],
            ),
            // movq $0xfffffffffffffffb,0x138(%rcx,%rdx,8)
            (
                &|a| a.store_imm(Mem::Words(RCX, RDX), 0x138, -5),
                &[
                    0x48, 0xc7, 0x84, 0xd1, 0x38, 0x01, 0, 0, 0xfb, 0xff, 0xff, 0xff,
                ],
            ),
            // addq $0x1,0x1000(%rdx,%rax,8)
            (
                &|a| a.count_sib_disp(RDX, RAX, 0x1000),
                &[0x48, 0x83, 0x84, 0xc2, 0, 0x10, 0, 0, 0x01],
            ),
            // addq $0x1,-0x8(%rbp,%r12,8)
            (
                &|a| a.count_sib_disp(RBP, R12, -8),
                &[0x4a, 0x83, 0x84, 0xe5, 0xf8, 0xff, 0xff, 0xff, 0x01],
            ),
        ];
        for (emit, bytes) in cases {
            a.code.clear();
            emit(&mut a);
            assert_eq!(a.code, bytes);
        }
    }
}

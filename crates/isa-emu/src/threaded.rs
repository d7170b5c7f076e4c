//! The threaded interpreter of blocks without memory events (superblocks, and the blocks of
//! sinks that watch only blocks and edges): every translated instruction holds a pointer to
//! its operation's own handler ([`Handler`]), and each handler, after its operation, jumps
//! to the next instruction's handler (a tail call), so each operation has its own dispatch
//! branch and the host predicts the next handler from the current one. Handlers run
//! [`exec`] with their operation constant, so their semantics are exactly those that
//! single-stepping and blocks with memory events run through `exec`'s `match`.
//! Common adjacent pairs of operations get one handler for both ([`assign`]).
//!
//! A chain is as long as its block (at most
//! [`MAX_BLOCK_INSNS`](crate::block::MAX_BLOCK_INSNS)), so where the host compiler does not
//! turn a handler's tail call into a jump (debug builds), the recursion stays shallow.

use crate::cpu::Cpu;
use crate::exec::{exec, MemHook, Trapped, FALLS_THROUGH};
use crate::insn::Op;
use crate::memory::Memory;
use crate::xlat::{Here, Tinsn};

/// What a chain of handlers shares: memory, the block's position, the trap and the block's
/// end, and how the chain left the block.
pub(crate) struct Lean<'a, 'h> {
    pub mem: &'a mut Memory,
    pub here: &'a Here<'h>,
    pub hook: MemHook<'a, ()>,
    /// The block's end: the last instruction's fall-through.
    pub end: u64,
    /// The arena index of the instruction that took a side exit or trapped (`usize::MAX`:
    /// the chain ran to the block's end).
    pub at: usize,
    /// The instruction at `at` trapped (its trap in the hook); else it took a side exit.
    pub trapped: bool,
}

/// Runs `insns[0]` and the rest of the chain after it; returns the next pc (see [`Lean`]
/// for how the chain left the block). One word, so that a handler's call of the next one
/// is a jump.
pub(crate) type Handler = fn(&mut Cpu, &mut Lean<'_, '_>, &[Tinsn]) -> u64;

/// Runs `insn` of a block's body as operation `op`: `None` if it falls through, else the
/// pc the chain leaves the block for (a superblock's side exit, or a trap's 0).
#[inline(always)]
fn step(op: Op, cpu: &mut Cpu, lean: &mut Lean<'_, '_>, insn: &Tinsn) -> Option<u64> {
    let here = lean.here;
    match exec::<false, ()>(op, cpu, lean.mem, insn, FALLS_THROUGH, here, &mut lean.hook) {
        Ok(FALLS_THROUGH) => None,
        // A superblock's side exit.
        Ok(to) => {
            lean.at = here.index(insn);
            Some(to)
        }
        Err(Trapped) => Some(trapped(lean, insn)),
    }
}

/// Goes on with the chain at `rest`, the instructions after a body instruction.
#[inline(always)]
fn next(cpu: &mut Cpu, lean: &mut Lean<'_, '_>, rest: &[Tinsn]) -> u64 {
    match rest.first() {
        Some(next) => (next.h)(cpu, lean, rest),
        // Only a body instruction placed last by mistake gets here: end the block.
        None => lean.end,
    }
}

/// The handler of operation `op` in a block's body: runs it, then the rest of the chain.
#[inline(always)]
fn body(op: Op, cpu: &mut Cpu, lean: &mut Lean<'_, '_>, insns: &[Tinsn]) -> u64 {
    let Some((insn, rest)) = insns.split_first() else {
        return lean.end;
    };
    match step(op, cpu, lean, insn) {
        None => next(cpu, lean, rest),
        Some(pc) => pc,
    }
}

/// The handler of operation `op` as a block's last instruction: runs it and returns the
/// next pc.
#[inline(always)]
fn last(op: Op, cpu: &mut Cpu, lean: &mut Lean<'_, '_>, insns: &[Tinsn]) -> u64 {
    let Some(insn) = insns.first() else {
        return lean.end;
    };
    match exec::<false, ()>(op, cpu, lean.mem, insn, lean.end, lean.here, &mut lean.hook) {
        Ok(to) => to,
        Err(Trapped) => trapped(lean, insn),
    }
}

/// The handler of a common pair of operations `a`, `b` in a block's body: one dispatch
/// for two instructions (the second's own handler is skipped).
#[inline(always)]
fn pair_body(a: Op, b: Op, cpu: &mut Cpu, lean: &mut Lean<'_, '_>, insns: &[Tinsn]) -> u64 {
    let [x, y, rest @ ..] = insns else {
        return body(a, cpu, lean, insns);
    };
    if let Some(pc) = step(a, cpu, lean, x) {
        return pc;
    }
    match step(b, cpu, lean, y) {
        None => next(cpu, lean, rest),
        Some(pc) => pc,
    }
}

/// The handler of a common pair `a`, `b` whose second instruction ends the block.
#[inline(always)]
fn pair_last(a: Op, b: Op, cpu: &mut Cpu, lean: &mut Lean<'_, '_>, insns: &[Tinsn]) -> u64 {
    let [x, y] = insns else {
        return body(a, cpu, lean, insns);
    };
    match step(a, cpu, lean, x) {
        None => last(b, cpu, lean, std::slice::from_ref(y)),
        Some(pc) => pc,
    }
}

/// Records that `insn` trapped.
#[cold]
fn trapped(lean: &mut Lean<'_, '_>, insn: &Tinsn) -> u64 {
    lean.at = lean.here.index(insn);
    lean.trapped = true;
    0
}

/// Runs the chain of `insns`, a whole block whose last instruction holds its [`last_handler`].
#[inline(always)]
pub(crate) fn run(cpu: &mut Cpu, lean: &mut Lean<'_, '_>, insns: &[Tinsn]) -> u64 {
    match insns.first() {
        Some(first) => (first.h)(cpu, lean, insns),
        None => lean.end,
    }
}

/// Gives the instructions of a translated block their handlers for a chain, each derived
/// from its operation (whatever translation did to it): body handlers, the last
/// instruction its [`last_handler`], and common pairs, left to right, one handler for both.
pub(crate) fn assign(block: &mut [Tinsn]) {
    for t in block.iter_mut() {
        t.h = body_handler(t.op);
    }
    if let Some(end) = block.last_mut() {
        end.h = last_handler(end.op);
    }
    let mut i = 0;
    while let [x, y, ..] = &block[i..] {
        match pair_handler(x.op, y.op, i + 2 == block.len()) {
            Some(h) => {
                block[i].h = h;
                i += 2;
            }
            None => i += 1,
        }
    }
}

macro_rules! handlers {
    ($($op:ident),* $(,)?) => {
        /// Every op, in the order of their discriminants (checked in a test): an op's number
        /// indexes it.
        pub(crate) const OPS: &[Op] = &[$(Op::$op),*];

        /// The function compiled code calls to run `op` ([`exec_op`](crate::jit::exec_op),
        /// specialized to it), if an F or D computation or a CSR access.
        pub(crate) fn op_helper(op: Op) -> crate::jit::OpHelper {
            match op {
                $(Op::$op => crate::jit::exec_op::<{ Op::$op as u8 }>,)*
            }
        }

        /// The handler of `op` in a block's body.
        pub(crate) fn body_handler(op: Op) -> Handler {
            match op {
                $(Op::$op => |cpu, lean, insns| body(Op::$op, cpu, lean, insns),)*
            }
        }

        /// The handler of `op` as a block's last instruction.
        pub(crate) fn last_handler(op: Op) -> Handler {
            match op {
                $(Op::$op => |cpu, lean, insns| last(Op::$op, cpu, lean, insns),)*
            }
        }
    };
}

handlers!(
    Illegal, Lui, Auipc, Jal, Jalr, Beq, Bne, Blt, Bge, Bltu, Bgeu, Lb, Lh, Lw, Lbu, Lhu, Lwu, Ld,
    Sb, Sh, Sw, Sd, Addi, Slti, Sltiu, Xori, Ori, Andi, Slli, Srli, Srai, Add, Sub, Sll, Slt, Sltu,
    Xor, Srl, Sra, Or, And, Fence, FenceTso, FenceI, Ecall, Ebreak, Addiw, Slliw, Srliw, Sraiw,
    Addw, Subw, Sllw, Srlw, Sraw, Mul, Mulh, Mulhsu, Mulhu, Div, Divu, Rem, Remu, Mulw, Divw,
    Divuw, Remw, Remuw, LrW, ScW, AmoswapW, AmoaddW, AmoxorW, AmoandW, AmoorW, AmominW, AmomaxW,
    AmominuW, AmomaxuW, LrD, ScD, AmoswapD, AmoaddD, AmoxorD, AmoandD, AmoorD, AmominD, AmomaxD,
    AmominuD, AmomaxuD, Csrrw, Csrrs, Csrrc, Csrrwi, Csrrsi, Csrrci, Mret, Wfi, Flw, Fsw, FmaddS,
    FmsubS, FnmsubS, FnmaddS, FaddS, FsubS, FmulS, FdivS, FsqrtS, FsgnjS, FsgnjnS, FsgnjxS, FminS,
    FmaxS, FcvtWS, FcvtWuS, FcvtLS, FcvtLuS, FmvXW, FeqS, FltS, FleS, FclassS, FcvtSW, FcvtSWu,
    FcvtSL, FcvtSLu, FmvWX, Fld, Fsd, FmaddD, FmsubD, FnmsubD, FnmaddD, FaddD, FsubD, FmulD, FdivD,
    FsqrtD, FsgnjD, FsgnjnD, FsgnjxD, FminD, FmaxD, FcvtSD, FcvtDS, FcvtWD, FcvtWuD, FcvtLD,
    FcvtLuD, FmvXD, FeqD, FltD, FleD, FclassD, FcvtDW, FcvtDWu, FcvtDL, FcvtDLu, FmvDX,
);

macro_rules! pairs {
    ($(($a:ident, $b:ident)),* $(,)?) => {
        /// The handler of the pair `a`, `b` (its second instruction the block's last if
        /// `last`), if it is one of the common pairs that get their own.
        pub(crate) fn pair_handler(a: Op, b: Op, last: bool) -> Option<Handler> {
            Some(match (a, b, last) {
                $(
                    (Op::$a, Op::$b, false) => |cpu, lean, insns| pair_body(Op::$a, Op::$b, cpu, lean, insns),
                    (Op::$a, Op::$b, true) => |cpu, lean, insns| pair_last(Op::$a, Op::$b, cpu, lean, insns),
                )*
                _ => return None,
            })
        }
    };
}

// The adjacent pairs most frequent in the committed guests (mean share of retired
// instructions over twelve of them, from 4% for `sd; sd` down to about 0.4%), in translated
// form: `mv` and `li` are `addi`, `auipc` and `lui` are `lui`, `beqz`/`bnez` compare with x0.
pairs!(
    (Sd, Sd),
    (Ld, Ld),
    (Add, Add),
    (Addi, Addi),
    (Sll, Add),
    (Ld, Add),
    (Lbu, Add),
    (Add, Sd),
    (Fld, Fld),
    (Add, Bne),
    (Flw, Flw),
    (Add, Srl),
    (Add, Lbu),
    (Ld, Addi),
    (Sd, Add),
    (Addw, Bne),
    (Srl, Xor),
    (Lbu, Beq),
    (Lh, Lh),
    (Lui, Ld),
    (Andi, Bne),
    (Srl, Andi),
    (Sll, Srl),
    (Lh, Add),
    (Add, Mulw),
    (Add, Bgeu),
    (Mulw, Addw),
    (Add, Lw),
    (Addi, Add),
    (Sb, Bne),
    (Addi, Ld),
    (Lw, Add),
    (Addw, Addiw),
    (Add, Addw),
    (Add, Sll),
    (Ld, Beq),
    (Add, Jalr),
    (Lui, Add),
    (Add, Ld),
    (Addi, Bne),
    (Addi, Sd),
    (Lw, Lw),
    (Sw, Sw),
    (Lbu, Bne),
    (Addi, Jalr),
);

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cpu::Mode;
    use crate::decode::decode;
    use crate::exec::Trap;
    use crate::xlat::translate;

    #[test]
    fn ops_are_listed_by_number() {
        for (i, &op) in OPS.iter().enumerate() {
            assert_eq!(usize::from(op as u8), i, "{op:?}");
        }
        assert_eq!(OPS.last(), Some(&Op::FmvDX));
    }

    const ADDI_A0_1: u32 = 0x0015_0513; // addi a0, a0, 1
    const LD_A1_A0: u32 = 0x0005_3583; // ld a1, 0(a0)
    const BEQ_A0_A0_8: u32 = 0x00a5_0463; // beq a0, a0, +8
    const BNE_A0_0_8: u32 = 0x0005_1463; // bnez a0, +8

    /// Runs `words` (at 0x1000, 4 bytes apart) as one block on the chain, from a0 = 0x10
    /// with memory at 0x2000..0x3000 only; the next pc, the chain's exit and a0.
    fn chain(words: &[u32]) -> (u64, usize, bool, Trap, u64) {
        let mut insns: Vec<Tinsn> = (0..)
            .zip(words)
            .map(|(i, &w)| translate(&decode(w), 0x1000 + 4 * i))
            .collect();
        assign(&mut insns);
        let here = Here {
            start: 0x1000,
            base: 0,
            meta: &[],
            arena: insns.as_ptr() as usize,
        };
        let mut mem = Memory::new(0x2000, 0x1000).unwrap();
        let mut cpu = Cpu::new(Mode::User, 0x1000);
        cpu.x[10] = 0x10;
        let mut nothing = ();
        let mut lean = Lean {
            mem: &mut mem,
            here: &here,
            hook: MemHook::new(
                &mut nothing,
                prof_events::BlockId(0),
                prof_events::Interest::NONE,
            ),
            end: 0x1000 + 4 * words.len() as u64,
            at: usize::MAX,
            trapped: false,
        };
        let next = run(&mut cpu, &mut lean, &insns);
        (next, lean.at, lean.trapped, lean.hook.trap, cpu.x[10])
    }

    #[test]
    fn a_chain_runs_its_block_to_the_end() {
        let (next, at, trapped, _, a0) = chain(&[ADDI_A0_1, ADDI_A0_1, ADDI_A0_1]);
        assert_eq!((next, at, trapped, a0), (0x100c, usize::MAX, false, 0x13));
    }

    #[test]
    fn a_taken_branch_in_the_body_is_a_side_exit_at_its_index() {
        let (next, at, trapped, _, a0) = chain(&[ADDI_A0_1, BEQ_A0_A0_8, ADDI_A0_1]);
        assert_eq!((next, at, trapped, a0), (0x100c, 1, false, 0x11));
    }

    #[test]
    fn a_trap_stops_the_chain_at_the_trapping_instruction() {
        let (_, at, trapped, trap, a0) = chain(&[ADDI_A0_1, LD_A1_A0, ADDI_A0_1]);
        assert_eq!((at, trapped, a0), (1, true, 0x11));
        assert!(matches!(trap, Trap::AccessFault(f) if f.addr == 0x11));
        // As the last instruction too.
        let (_, at, trapped, _, _) = chain(&[ADDI_A0_1, LD_A1_A0]);
        assert_eq!((at, trapped), (1, true));
    }

    #[test]
    fn pairs_leave_their_block_as_single_handlers_do() {
        // (addi, bnez) is a pair: its branch's side exit is at the branch.
        let (next, at, trapped, _, a0) = chain(&[ADDI_A0_1, BNE_A0_0_8, ADDI_A0_1]);
        assert_eq!((next, at, trapped, a0), (0x100c, 1, false, 0x11));
        // The same pair ending the block: the branch's target is the next pc, no side exit.
        let (next, at, trapped, _, a0) = chain(&[ADDI_A0_1, BNE_A0_0_8]);
        assert_eq!((next, at, trapped, a0), (0x100c, usize::MAX, false, 0x11));
        // (ld, ld) is a pair: a trap in its first instruction stops it there.
        let (_, at, trapped, _, a0) = chain(&[LD_A1_A0, LD_A1_A0, ADDI_A0_1]);
        assert_eq!((at, trapped, a0), (0, true, 0x10));
        // (addi, addi) twice, then a last addi: all run.
        let (next, at, _, _, a0) = chain(&[ADDI_A0_1; 5]);
        assert_eq!((next, at, a0), (0x1014, usize::MAX, 0x15));
    }
}

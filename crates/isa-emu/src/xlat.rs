//! The translated form of an instruction: what the block cache keeps and the interpreter runs.
//!
//! The decoder's [`Insn`] describes an encoding; a [`Tinsn`] is that instruction specialised
//! for the address it sits at, so the interpreter does less per instruction:
//!
//! - the immediate is sign-extended once, to a `u64`;
//! - anything that only depends on the pc is a constant: `auipc` becomes `lui` of its result,
//!   branch and `jal` immediates become absolute targets; so the body of a block never needs
//!   its pc (the pc of a trapping instruction or of a memory access comes from [`Meta`]);
//! - `addi rd, x0, imm` (`li`) becomes `lui` of `imm`;
//! - in a block, a constant followed by `addi`/`addiw` of it into the same register
//!   (`lui`+`addi`, `auipc`+`addi`, `li`+`addiw`) is fused into one constant: the pair
//!   cannot trap and the first result is overwritten, so one write retires both.
//!
//! Single-step mode translates each instruction on its own and runs the same [`exec`](crate::exec)
//! code, so both engines share one semantics.

use crate::insn::{Insn, Op};
use crate::threaded::{body_handler, Handler};

/// One translated instruction (24 bytes). Fields as in [`Insn`], except:
/// - `op` is never `Auipc` (it becomes `Lui`, whose `imm` is then the result);
/// - `imm` is sign-extended, and is the absolute target for branches and `jal`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tinsn {
    /// The handler of `op` (see [`threaded`](crate::threaded)).
    pub h: Handler,
    pub op: Op,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub rs3: u8,
    pub rm: u8,
    pub len: u8,
    pub imm: u64,
}

/// Where a translated instruction came from, read only off the hot path (traps, memory
/// events, counter CSRs, side exits): its byte offset from the block's start (signed, as
/// `i32` bits: a superblock may follow a jump backwards) and its index among the block's
/// guest instructions (the number retired before it). For a fused pair, those of the second
/// instruction. A superblock's side exit (a branch, whose target is fixed) also keeps the
/// slot of the block it leads to once found (`chain`, `u32::MAX` if none), as a block's
/// exits do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    pub off: u32,
    pub idx: u32,
    pub chain: u32,
}

impl Meta {
    /// The instruction's pc in a block starting at `start`. The offset is signed: a
    /// superblock may follow a jump backwards.
    #[inline(always)]
    pub fn pc(&self, start: u64) -> u64 {
        start.wrapping_add(self.off as i32 as i64 as u64)
    }
}

/// The position of running code: the block's start pc, the instructions retired before the
/// block, the [`Meta`] of the whole arena, and the address of the arena's first translated
/// instruction (`arena`). An instruction's [`Meta`] is found from its address when needed
/// (off the hot path), so entering a block stores no more than its start and count.
pub(crate) struct Here<'a> {
    pub start: u64,
    pub base: u64,
    pub meta: &'a [Meta],
    pub arena: usize,
}

impl Here<'_> {
    /// The index in the arena of `insn`, one of its translated instructions.
    #[inline(always)]
    pub fn index(&self, insn: &Tinsn) -> usize {
        (insn as *const Tinsn as usize).wrapping_sub(self.arena) / size_of::<Tinsn>()
    }

    /// The [`Meta`] of the translated instruction at arena index `i` (zero in single-step
    /// mode).
    #[inline(always)]
    pub fn meta(&self, i: usize) -> Meta {
        self.meta.get(i).copied().unwrap_or_default()
    }

    /// The pc of the translated instruction at arena index `i`.
    #[inline(always)]
    pub fn pc(&self, i: usize) -> u64 {
        self.meta(i).pc(self.start)
    }

    /// The instructions retired before the translated instruction at arena index `i`.
    #[inline(always)]
    pub fn instret(&self, i: usize) -> u64 {
        self.base.wrapping_add(u64::from(self.meta(i).idx))
    }
}

/// Translates `insn` at `pc`.
pub(crate) fn translate(insn: &Insn, pc: u64) -> Tinsn {
    let imm = insn.imm as i64 as u64;
    let (op, imm) = match insn.op {
        Op::Auipc => (Op::Lui, pc.wrapping_add(imm)),
        Op::Addi if insn.rs1 == 0 => (Op::Lui, imm),
        Op::Jal | Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
            (insn.op, pc.wrapping_add(imm))
        }
        op => (op, imm),
    };
    Tinsn {
        h: body_handler(op),
        op,
        rd: insn.rd,
        rs1: insn.rs1,
        rs2: insn.rs2,
        rs3: insn.rs3,
        rm: insn.rm,
        len: insn.len,
        imm,
    }
}

/// The conditional branch whose condition is the negation of `op`'s, if `op` is one.
pub(crate) fn inverse_branch(op: Op) -> Option<Op> {
    Some(match op {
        Op::Beq => Op::Bne,
        Op::Bne => Op::Beq,
        Op::Blt => Op::Bge,
        Op::Bge => Op::Blt,
        Op::Bltu => Op::Bgeu,
        Op::Bgeu => Op::Bltu,
        _ => return None,
    })
}

/// `prev` followed by `next` as one translated instruction, if they fuse (see the module
/// docs).
pub(crate) fn fuse(prev: &Tinsn, next: &Insn) -> Option<Tinsn> {
    if prev.op != Op::Lui || next.rs1 != prev.rd || next.rd != prev.rd {
        return None;
    }
    let sum = prev.imm.wrapping_add(next.imm as i64 as u64);
    let imm = match next.op {
        Op::Addi => sum,
        Op::Addiw => sum as i32 as i64 as u64,
        _ => return None,
    };
    Some(Tinsn { imm, ..*prev })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::decode::decode;

    #[test]
    fn pc_relative_values_become_constants() {
        let pc = 0x1000;
        // auipc a0, 0x1 ; jal ra, +8 ; beq a0, a1, -16
        let t = translate(&decode(0x0000_1517), pc);
        assert_eq!((t.op, t.imm), (Op::Lui, 0x2000));
        assert_eq!(translate(&decode(0x0080_00ef), pc).imm, 0x1008);
        assert_eq!(translate(&decode(0xfeb5_08e3), pc).imm, 0xff0);
        // li a0, -1
        let t = translate(&decode(0xfff0_0513), pc);
        assert_eq!((t.op, t.imm), (Op::Lui, u64::MAX));
    }

    #[test]
    fn constant_pairs_fuse_only_into_the_same_register() {
        // lui a0, 0x80000 ; addiw a0, a0, -1  => 0x7fffffff
        let lui = translate(&decode(0x8000_0537), 0);
        let t = fuse(&lui, &decode(0xfff5_051b)).unwrap();
        assert_eq!((t.op, t.rd, t.imm), (Op::Lui, 10, 0x7fff_ffff));
        // addi a0, a0, -1 (64-bit): 0xffffffff80000000 - 1
        let t = fuse(&lui, &decode(0xfff5_0513)).unwrap();
        assert_eq!(t.imm, 0xffff_ffff_7fff_ffff);
        // addi a1, a0, 1: a0 must keep the lui result, so no fusion.
        assert!(fuse(&lui, &decode(0x0015_0593)).is_none());
        // add a0, a0, a1 is not a constant.
        assert!(fuse(&lui, &decode(0x00b5_0533)).is_none());
    }
}

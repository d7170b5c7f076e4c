//! The RV64GC decoder: one instruction word to an [`Insn`].
//!
//! Covers RV64IMAFDC, Zicsr, Zifencei, `fence.tso`, `mret` and `wfi`. Compressed
//! instructions decode to the operation they expand to (spec chapter "C" expansion table)
//! with `len = 2`. Reserved encodings decode to [`Insn::illegal`]; HINT encodings (for
//! example `c.addi x0, 1` or `c.slli a0, 0`) are legal and decode to their expansion.
//!
//! Choices where the specification leaves room:
//! - Floating-point rounding modes 5 and 6 are reserved; such instructions still decode
//!   (with `rm` = 5 or 6, as objdump shows them with `,unknown`) and the interpreter raises
//!   the illegal-instruction exception when it executes them, exactly as it does for the
//!   dynamic mode with an invalid `frm`.
//! - `fence` ignores `rd`, `rs1` and reserved `fm` values, and `fence.i` ignores its
//!   immediate, `rs1` and `rd`, as the specification requires of base implementations.
//!
//! The decoder allocates nothing and never panics: it is one `match` per format level.

use crate::insn::{Insn, Op};

/// Length in bytes (2 or 4) of the instruction whose low 16 bits are `low_half`.
///
/// Encodings longer than 32 bits (low bits `11111`) are not part of RV64GC; they count as
/// 4 bytes here and [`decode`] reports them as illegal.
#[inline]
pub fn insn_len(low_half: u16) -> u8 {
    if low_half & 3 == 3 {
        4
    } else {
        2
    }
}

/// Decodes the instruction whose first bytes, read little-endian, are `raw`.
///
/// If the low two bits are not `11` the instruction is compressed and only the low half is
/// used. Never fails: invalid and reserved encodings decode to [`Op::Illegal`].
#[inline]
pub fn decode(raw: u32) -> Insn {
    if raw & 3 == 3 {
        decode32(raw).unwrap_or(Insn::illegal(raw, 4))
    } else {
        let half = raw & 0xffff;
        decode16(half).unwrap_or(Insn::illegal(half, 2))
    }
}

/// An instruction with no rounding mode and no third source.
#[inline]
const fn mk(op: Op, rd: u32, rs1: u32, rs2: u32, imm: i32, len: u8) -> Insn {
    Insn {
        op,
        rd: (rd & 31) as u8,
        rs1: (rs1 & 31) as u8,
        rs2: (rs2 & 31) as u8,
        rs3: 0,
        rm: 0,
        len,
        imm,
    }
}

/// Sign-extends the low `bits` bits of `value`.
#[inline]
const fn sext(value: u32, bits: u32) -> i32 {
    let shift = 32 - bits;
    ((value << shift) as i32) >> shift
}

/// Bit field `raw[hi:lo]`, moved to bit `to`.
#[inline]
const fn field(raw: u32, hi: u32, lo: u32, to: u32) -> u32 {
    ((raw >> lo) & ((1 << (hi - lo + 1)) - 1)) << to
}

// --- 32-bit encodings -------------------------------------------------------------------

fn decode32(raw: u32) -> Option<Insn> {
    let rd = (raw >> 7) & 31;
    let rs1 = (raw >> 15) & 31;
    let rs2 = (raw >> 20) & 31;
    let f3 = (raw >> 12) & 7;
    let f7 = raw >> 25;
    let imm_i = (raw as i32) >> 20;
    let imm_s = ((raw as i32) >> 25 << 5) | field(raw, 11, 7, 0) as i32;
    let r = |op| Some(mk(op, rd, rs1, rs2, 0, 4));
    let i = |op| Some(mk(op, rd, rs1, 0, imm_i, 4));
    match raw & 0x7f {
        0x37 => Some(mk(Op::Lui, rd, 0, 0, (raw & 0xffff_f000) as i32, 4)),
        0x17 => Some(mk(Op::Auipc, rd, 0, 0, (raw & 0xffff_f000) as i32, 4)),
        0x6f => {
            let imm = field(raw, 31, 31, 20)
                | field(raw, 19, 12, 12)
                | field(raw, 20, 20, 11)
                | field(raw, 30, 21, 1);
            Some(mk(Op::Jal, rd, 0, 0, sext(imm, 21), 4))
        }
        0x67 if f3 == 0 => i(Op::Jalr),
        0x63 => {
            let op = match f3 {
                0 => Op::Beq,
                1 => Op::Bne,
                4 => Op::Blt,
                5 => Op::Bge,
                6 => Op::Bltu,
                7 => Op::Bgeu,
                _ => return None,
            };
            let imm = field(raw, 31, 31, 12)
                | field(raw, 7, 7, 11)
                | field(raw, 30, 25, 5)
                | field(raw, 11, 8, 1);
            Some(mk(op, 0, rs1, rs2, sext(imm, 13), 4))
        }
        0x03 => i(match f3 {
            0 => Op::Lb,
            1 => Op::Lh,
            2 => Op::Lw,
            3 => Op::Ld,
            4 => Op::Lbu,
            5 => Op::Lhu,
            6 => Op::Lwu,
            _ => return None,
        }),
        0x23 => {
            let op = match f3 {
                0 => Op::Sb,
                1 => Op::Sh,
                2 => Op::Sw,
                3 => Op::Sd,
                _ => return None,
            };
            Some(mk(op, 0, rs1, rs2, imm_s, 4))
        }
        0x13 => op_imm(raw, rd, rs1, f3, imm_i),
        0x1b => op_imm32(raw, rd, rs1, f3, imm_i),
        0x33 => r(op_reg(f7, f3)?),
        0x3b => r(op_reg32(f7, f3)?),
        0x0f => misc_mem(raw, f3),
        0x73 => system(raw, rd, rs1, f3),
        0x2f => amo(raw, rd, rs1, rs2, f3),
        0x07 => i(match f3 {
            2 => Op::Flw,
            3 => Op::Fld,
            _ => return None,
        }),
        0x27 => {
            let op = match f3 {
                2 => Op::Fsw,
                3 => Op::Fsd,
                _ => return None,
            };
            Some(mk(op, 0, rs1, rs2, imm_s, 4))
        }
        0x43 | 0x47 | 0x4b | 0x4f => fused(raw, rd, rs1, rs2, f3),
        0x53 => op_fp(rd, rs1, rs2, f3, f7),
        _ => None,
    }
}

fn op_imm(raw: u32, rd: u32, rs1: u32, f3: u32, imm: i32) -> Option<Insn> {
    // RV64 shifts: 6-bit shamt, the bits above it select logical/arithmetic.
    let shamt = ((raw >> 20) & 0x3f) as i32;
    let (op, imm) = match (f3, raw >> 26) {
        (0, _) => (Op::Addi, imm),
        (2, _) => (Op::Slti, imm),
        (3, _) => (Op::Sltiu, imm),
        (4, _) => (Op::Xori, imm),
        (6, _) => (Op::Ori, imm),
        (7, _) => (Op::Andi, imm),
        (1, 0) => (Op::Slli, shamt),
        (5, 0) => (Op::Srli, shamt),
        (5, 0x10) => (Op::Srai, shamt),
        _ => return None,
    };
    Some(mk(op, rd, rs1, 0, imm, 4))
}

fn op_imm32(raw: u32, rd: u32, rs1: u32, f3: u32, imm: i32) -> Option<Insn> {
    let shamt = ((raw >> 20) & 0x1f) as i32;
    let (op, imm) = match (f3, raw >> 25) {
        (0, _) => (Op::Addiw, imm),
        (1, 0) => (Op::Slliw, shamt),
        (5, 0) => (Op::Srliw, shamt),
        (5, 0x20) => (Op::Sraiw, shamt),
        _ => return None,
    };
    Some(mk(op, rd, rs1, 0, imm, 4))
}

fn op_reg(f7: u32, f3: u32) -> Option<Op> {
    const BASE: [Op; 8] = [
        Op::Add,
        Op::Sll,
        Op::Slt,
        Op::Sltu,
        Op::Xor,
        Op::Srl,
        Op::Or,
        Op::And,
    ];
    const MUL: [Op; 8] = [
        Op::Mul,
        Op::Mulh,
        Op::Mulhsu,
        Op::Mulhu,
        Op::Div,
        Op::Divu,
        Op::Rem,
        Op::Remu,
    ];
    let f3 = (f3 & 7) as usize;
    match (f7, f3) {
        (0, _) => BASE.get(f3).copied(),
        (1, _) => MUL.get(f3).copied(),
        (0x20, 0) => Some(Op::Sub),
        (0x20, 5) => Some(Op::Sra),
        _ => None,
    }
}

fn op_reg32(f7: u32, f3: u32) -> Option<Op> {
    Some(match (f7, f3) {
        (0, 0) => Op::Addw,
        (0x20, 0) => Op::Subw,
        (0, 1) => Op::Sllw,
        (0, 5) => Op::Srlw,
        (0x20, 5) => Op::Sraw,
        (1, 0) => Op::Mulw,
        (1, 4) => Op::Divw,
        (1, 5) => Op::Divuw,
        (1, 6) => Op::Remw,
        (1, 7) => Op::Remuw,
        _ => return None,
    })
}

fn misc_mem(raw: u32, f3: u32) -> Option<Insn> {
    match f3 {
        0 => {
            let sets = ((raw >> 20) & 0xff) as u8;
            // fm = 1000 with pred = succ = rw is fence.tso; every other fm/set combination
            // behaves as a normal fence (rd and rs1 are ignored).
            let op = if raw >> 28 == 0b1000 && sets == 0x33 {
                Op::FenceTso
            } else {
                Op::Fence
            };
            Some(Insn {
                rm: sets,
                ..mk(op, 0, 0, 0, 0, 4)
            })
        }
        1 => Some(mk(Op::FenceI, 0, 0, 0, 0, 4)),
        _ => None,
    }
}

fn system(raw: u32, rd: u32, rs1: u32, f3: u32) -> Option<Insn> {
    let csr = (raw >> 20) as i32;
    let op = match f3 {
        0 => {
            let op = match raw {
                0x0000_0073 => Op::Ecall,
                0x0010_0073 => Op::Ebreak,
                0x3020_0073 => Op::Mret,
                0x1050_0073 => Op::Wfi,
                _ => return None,
            };
            return Some(mk(op, 0, 0, 0, 0, 4));
        }
        1 => Op::Csrrw,
        2 => Op::Csrrs,
        3 => Op::Csrrc,
        5 => Op::Csrrwi,
        6 => Op::Csrrsi,
        7 => Op::Csrrci,
        _ => return None,
    };
    Some(mk(op, rd, rs1, 0, csr, 4))
}

fn amo(raw: u32, rd: u32, rs1: u32, rs2: u32, f3: u32) -> Option<Insn> {
    const W: [Op; 11] = [
        Op::LrW,
        Op::ScW,
        Op::AmoswapW,
        Op::AmoaddW,
        Op::AmoxorW,
        Op::AmoandW,
        Op::AmoorW,
        Op::AmominW,
        Op::AmomaxW,
        Op::AmominuW,
        Op::AmomaxuW,
    ];
    const D: [Op; 11] = [
        Op::LrD,
        Op::ScD,
        Op::AmoswapD,
        Op::AmoaddD,
        Op::AmoxorD,
        Op::AmoandD,
        Op::AmoorD,
        Op::AmominD,
        Op::AmomaxD,
        Op::AmominuD,
        Op::AmomaxuD,
    ];
    let index = match raw >> 27 {
        0b00010 if rs2 == 0 => 0,
        0b00011 => 1,
        0b00001 => 2,
        0b00000 => 3,
        0b00100 => 4,
        0b01100 => 5,
        0b01000 => 6,
        0b10000 => 7,
        0b10100 => 8,
        0b11000 => 9,
        0b11100 => 10,
        _ => return None,
    };
    let op = match f3 {
        2 => W.get(index),
        3 => D.get(index),
        _ => None,
    }?;
    Some(Insn {
        rm: ((raw >> 25) & 3) as u8,
        ..mk(*op, rd, rs1, rs2, 0, 4)
    })
}

/// An FP operation; `rm` is the funct3 field for operations that round, 0 otherwise.
#[inline]
fn fp(op: Op, rd: u32, rs1: u32, rs2: u32, rm: u32) -> Option<Insn> {
    Some(Insn {
        rm: rm as u8,
        ..mk(op, rd, rs1, rs2, 0, 4)
    })
}

fn fused(raw: u32, rd: u32, rs1: u32, rs2: u32, rm: u32) -> Option<Insn> {
    let double = match (raw >> 25) & 3 {
        0 => false,
        1 => true,
        _ => return None,
    };
    let op = match (raw & 0x7f, double) {
        (0x43, false) => Op::FmaddS,
        (0x47, false) => Op::FmsubS,
        (0x4b, false) => Op::FnmsubS,
        (0x4f, false) => Op::FnmaddS,
        (0x43, true) => Op::FmaddD,
        (0x47, true) => Op::FmsubD,
        (0x4b, true) => Op::FnmsubD,
        _ => Op::FnmaddD,
    };
    Some(Insn {
        rs3: (raw >> 27) as u8,
        ..fp(op, rd, rs1, rs2, rm)?
    })
}

fn op_fp(rd: u32, rs1: u32, rs2: u32, f3: u32, f7: u32) -> Option<Insn> {
    // Bit 0 of funct7 is the format (0 = S, 1 = D); pick the operation by the rest.
    let d = f7 & 1 == 1;
    let pick = |s: Op, dd: Op| if d { dd } else { s };
    let rounded = |s, dd| fp(pick(s, dd), rd, rs1, rs2, f3);
    let unary_rounded = |s, dd| fp(pick(s, dd), rd, rs1, 0, f3);
    let exact = |op| fp(op, rd, rs1, rs2, 0);
    match (f7 & !1, f3, rs2) {
        (0x00, _, _) => rounded(Op::FaddS, Op::FaddD),
        (0x04, _, _) => rounded(Op::FsubS, Op::FsubD),
        (0x08, _, _) => rounded(Op::FmulS, Op::FmulD),
        (0x0c, _, _) => rounded(Op::FdivS, Op::FdivD),
        (0x2c, _, 0) => unary_rounded(Op::FsqrtS, Op::FsqrtD),
        (0x10, 0, _) => exact(pick(Op::FsgnjS, Op::FsgnjD)),
        (0x10, 1, _) => exact(pick(Op::FsgnjnS, Op::FsgnjnD)),
        (0x10, 2, _) => exact(pick(Op::FsgnjxS, Op::FsgnjxD)),
        (0x14, 0, _) => exact(pick(Op::FminS, Op::FminD)),
        (0x14, 1, _) => exact(pick(Op::FmaxS, Op::FmaxD)),
        // fcvt.s.d rounds; fcvt.d.s is exact but still carries rm.
        (0x20, _, 1) if !d => fp(Op::FcvtSD, rd, rs1, 0, f3),
        (0x20, _, 0) if d => fp(Op::FcvtDS, rd, rs1, 0, f3),
        (0x50, 2, _) => exact(pick(Op::FeqS, Op::FeqD)),
        (0x50, 1, _) => exact(pick(Op::FltS, Op::FltD)),
        (0x50, 0, _) => exact(pick(Op::FleS, Op::FleD)),
        (0x60, _, 0) => unary_rounded(Op::FcvtWS, Op::FcvtWD),
        (0x60, _, 1) => unary_rounded(Op::FcvtWuS, Op::FcvtWuD),
        (0x60, _, 2) => unary_rounded(Op::FcvtLS, Op::FcvtLD),
        (0x60, _, 3) => unary_rounded(Op::FcvtLuS, Op::FcvtLuD),
        (0x68, _, 0) => unary_rounded(Op::FcvtSW, Op::FcvtDW),
        (0x68, _, 1) => unary_rounded(Op::FcvtSWu, Op::FcvtDWu),
        (0x68, _, 2) => unary_rounded(Op::FcvtSL, Op::FcvtDL),
        (0x68, _, 3) => unary_rounded(Op::FcvtSLu, Op::FcvtDLu),
        (0x70, 0, 0) => fp(pick(Op::FmvXW, Op::FmvXD), rd, rs1, 0, 0),
        (0x70, 1, 0) => fp(pick(Op::FclassS, Op::FclassD), rd, rs1, 0, 0),
        (0x78, 0, 0) => fp(pick(Op::FmvWX, Op::FmvDX), rd, rs1, 0, 0),
        _ => None,
    }
}

// --- 16-bit (compressed) encodings ------------------------------------------------------

/// Decodes a compressed instruction to its expansion (len 2); `None` if reserved.
fn decode16(x: u32) -> Option<Insn> {
    // Three-bit register fields name x8..x15 (or f8..f15).
    let rd_p = 8 + field(x, 4, 2, 0);
    let rs1_p = 8 + field(x, 9, 7, 0);
    let rd = field(x, 11, 7, 0);
    let rs2 = field(x, 6, 2, 0);
    let imm6 = sext(field(x, 12, 12, 5) | field(x, 6, 2, 0), 6);
    let shamt = (field(x, 12, 12, 5) | field(x, 6, 2, 0)) as i32;
    // Offsets of c.fld/c.ld/c.fsd/c.sd (8-byte scaled) and c.lw/c.sw (4-byte scaled).
    let off_d = (field(x, 12, 10, 3) | field(x, 6, 5, 6)) as i32;
    let off_w = (field(x, 12, 10, 3) | field(x, 6, 6, 2) | field(x, 5, 5, 6)) as i32;
    // Stack-pointer-relative offsets.
    let sp_ld = (field(x, 12, 12, 5) | field(x, 6, 5, 3) | field(x, 4, 2, 6)) as i32;
    let sp_lw = (field(x, 12, 12, 5) | field(x, 6, 4, 2) | field(x, 3, 2, 6)) as i32;
    let sp_sd = (field(x, 12, 10, 3) | field(x, 9, 7, 6)) as i32;
    let sp_sw = (field(x, 12, 9, 2) | field(x, 8, 7, 6)) as i32;
    let c = |op, rd, rs1, rs2, imm| Some(mk(op, rd, rs1, rs2, imm, 2));
    match (x & 3, x >> 13) {
        (0, 0) => {
            let imm =
                field(x, 12, 11, 4) | field(x, 10, 7, 6) | field(x, 6, 6, 2) | field(x, 5, 5, 3);
            if imm == 0 {
                return None; // also covers the all-zero halfword (c.unimp)
            }
            c(Op::Addi, rd_p, 2, 0, imm as i32)
        }
        (0, 1) => c(Op::Fld, rd_p, rs1_p, 0, off_d),
        (0, 2) => c(Op::Lw, rd_p, rs1_p, 0, off_w),
        (0, 3) => c(Op::Ld, rd_p, rs1_p, 0, off_d),
        (0, 5) => c(Op::Fsd, 0, rs1_p, rd_p, off_d),
        (0, 6) => c(Op::Sw, 0, rs1_p, rd_p, off_w),
        (0, 7) => c(Op::Sd, 0, rs1_p, rd_p, off_d),
        (1, 0) => c(Op::Addi, rd, rd, 0, imm6),
        (1, 1) if rd != 0 => c(Op::Addiw, rd, rd, 0, imm6),
        (1, 2) => c(Op::Addi, rd, 0, 0, imm6),
        (1, 3) if rd == 2 => {
            let imm = field(x, 12, 12, 9)
                | field(x, 6, 6, 4)
                | field(x, 5, 5, 6)
                | field(x, 4, 3, 7)
                | field(x, 2, 2, 5);
            if imm == 0 {
                return None;
            }
            c(Op::Addi, 2, 2, 0, sext(imm, 10))
        }
        (1, 3) if imm6 != 0 => c(Op::Lui, rd, 0, 0, imm6 << 12),
        (1, 4) => match (field(x, 11, 10, 0), field(x, 12, 12, 0), field(x, 6, 5, 0)) {
            (0, _, _) => c(Op::Srli, rs1_p, rs1_p, 0, shamt),
            (1, _, _) => c(Op::Srai, rs1_p, rs1_p, 0, shamt),
            (2, _, _) => c(Op::Andi, rs1_p, rs1_p, 0, imm6),
            (_, 0, f2) => {
                let op = [Op::Sub, Op::Xor, Op::Or, Op::And].get(f2 as usize)?;
                c(*op, rs1_p, rs1_p, rd_p, 0)
            }
            (_, _, 0) => c(Op::Subw, rs1_p, rs1_p, rd_p, 0),
            (_, _, 1) => c(Op::Addw, rs1_p, rs1_p, rd_p, 0),
            _ => None,
        },
        (1, 5) => {
            let imm = field(x, 12, 12, 11)
                | field(x, 11, 11, 4)
                | field(x, 10, 9, 8)
                | field(x, 8, 8, 10)
                | field(x, 7, 7, 6)
                | field(x, 6, 6, 7)
                | field(x, 5, 3, 1)
                | field(x, 2, 2, 5);
            c(Op::Jal, 0, 0, 0, sext(imm, 12))
        }
        (1, 6 | 7) => {
            let imm = field(x, 12, 12, 8)
                | field(x, 11, 10, 3)
                | field(x, 6, 5, 6)
                | field(x, 4, 3, 1)
                | field(x, 2, 2, 5);
            let op = if x >> 13 == 6 { Op::Beq } else { Op::Bne };
            c(op, 0, rs1_p, 0, sext(imm, 9))
        }
        (2, 0) => c(Op::Slli, rd, rd, 0, shamt),
        (2, 1) => c(Op::Fld, rd, 2, 0, sp_ld),
        (2, 2) if rd != 0 => c(Op::Lw, rd, 2, 0, sp_lw),
        (2, 3) if rd != 0 => c(Op::Ld, rd, 2, 0, sp_ld),
        (2, 4) => match (field(x, 12, 12, 0), rd, rs2) {
            (0, 0, 0) => None,
            (0, _, 0) => c(Op::Jalr, 0, rd, 0, 0),
            (0, _, _) => c(Op::Add, rd, 0, rs2, 0),
            (_, 0, 0) => c(Op::Ebreak, 0, 0, 0, 0),
            (_, _, 0) => c(Op::Jalr, 1, rd, 0, 0),
            _ => c(Op::Add, rd, rd, rs2, 0),
        },
        (2, 5) => c(Op::Fsd, 0, 2, rs2, sp_sd),
        (2, 6) => c(Op::Sw, 0, 2, rs2, sp_sw),
        (2, 7) => c(Op::Sd, 0, 2, rs2, sp_sd),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Op::*;

    /// Asserts that `raw` decodes to `op rd, rs1, rs2, imm` of length `len`.
    #[track_caller]
    fn check(raw: u32, op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32, len: u8) {
        let insn = decode(raw);
        assert_eq!(
            (insn.op, insn.rd, insn.rs1, insn.rs2, insn.imm, insn.len),
            (op, rd, rs1, rs2, imm, len),
            "decode({raw:#x}) = {insn:?}"
        );
    }

    // Encodings below were produced by `riscv64-unknown-elf-as -march=rv64gc` from the
    // instruction in the comment; the expected fields come from that source text.

    #[test]
    fn compressed_quadrant0() {
        check(0x1fe8, Addi, 10, 2, 0, 1020, 2); // c.addi4spn a0, sp, 1020
        check(0x0040, Addi, 8, 2, 0, 4, 2); // c.addi4spn s0, sp, 4
        check(0x3ffc, Fld, 15, 15, 0, 248, 2); // c.fld fa5, 248(a5)
        check(0x5de8, Lw, 10, 11, 0, 124, 2); // c.lw a0, 124(a1)
        check(0x7ef0, Ld, 12, 13, 0, 248, 2); // c.ld a2, 248(a3)
        check(0xa404, Fsd, 0, 8, 9, 8, 2); // c.fsd fs1, 8(s0)
        check(0xc35c, Sw, 0, 14, 15, 4, 2); // c.sw a5, 4(a4)
        check(0xe144, Sd, 0, 10, 9, 128, 2); // c.sd s1, 128(a0)
    }

    #[test]
    fn compressed_quadrant1() {
        check(0x0001, Addi, 0, 0, 0, 0, 2); // c.nop
        check(0x1501, Addi, 10, 10, 0, -32, 2); // c.addi a0, -32
        check(0x0ffd, Addi, 31, 31, 0, 31, 2); // c.addi t6, 31
        check(0x357d, Addiw, 10, 10, 0, -1, 2); // c.addiw a0, -1
        check(0x5281, Addi, 5, 0, 0, -32, 2); // c.li t0, -32
        check(0x7101, Addi, 2, 2, 0, -512, 2); // c.addi16sp sp, -512
        check(0x617d, Addi, 2, 2, 0, 496, 2); // c.addi16sp sp, 496
        check(0x7501, Lui, 10, 0, 0, -32 << 12, 2); // c.lui a0, 0xfffe0
        check(0x647d, Lui, 8, 0, 0, 0x1f << 12, 2); // c.lui s0, 0x1f
        check(0x917d, Srli, 10, 10, 0, 63, 2); // c.srli a0, 63
        check(0x8485, Srai, 9, 9, 0, 1, 2); // c.srai s1, 1
        check(0x997d, Andi, 10, 10, 0, -1, 2); // c.andi a0, -1
        check(0x8c05, Sub, 8, 8, 9, 0, 2); // c.sub s0, s1
        check(0x8d2d, Xor, 10, 10, 11, 0, 2); // c.xor a0, a1
        check(0x8e55, Or, 12, 12, 13, 0, 2); // c.or a2, a3
        check(0x8f7d, And, 14, 14, 15, 0, 2); // c.and a4, a5
        check(0x9c1d, Subw, 8, 8, 15, 0, 2); // c.subw s0, a5
        check(0x9fa1, Addw, 15, 15, 8, 0, 2); // c.addw a5, s0
        check(0xb001, Jal, 0, 0, 0, -2048, 2); // c.j .-2048
        check(0xaffd, Jal, 0, 0, 0, 2046, 2); // c.j .+2046
        check(0xd101, Beq, 0, 10, 0, -256, 2); // c.beqz a0, .-256
        check(0xeffd, Bne, 0, 15, 0, 254, 2); // c.bnez a5, .+254
    }

    #[test]
    fn compressed_quadrant2() {
        check(0x10fe, Slli, 1, 1, 0, 63, 2); // c.slli ra, 63
        check(0x307e, Fld, 0, 2, 0, 504, 2); // c.fldsp ft0, 504(sp)
        check(0x50fe, Lw, 1, 2, 0, 252, 2); // c.lwsp ra, 252(sp)
        check(0x7ffe, Ld, 31, 2, 0, 504, 2); // c.ldsp t6, 504(sp)
        check(0x8082, Jalr, 0, 1, 0, 0, 2); // c.jr ra
        check(0x857e, Add, 10, 0, 31, 0, 2); // c.mv a0, t6
        check(0x9002, Ebreak, 0, 0, 0, 0, 2); // c.ebreak
        check(0x9502, Jalr, 1, 10, 0, 0, 2); // c.jalr a0
        check(0x929a, Add, 5, 5, 6, 0, 2); // c.add t0, t1
        check(0xbfee, Fsd, 0, 2, 27, 504, 2); // c.fsdsp fs11, 504(sp)
        check(0xdf86, Sw, 0, 2, 1, 252, 2); // c.swsp ra, 252(sp)
        check(0xfffe, Sd, 0, 2, 31, 504, 2); // c.sdsp t6, 504(sp)
    }

    #[test]
    fn compressed_upper_half_is_ignored() {
        check(0xdead_8082, Jalr, 0, 1, 0, 0, 2);
        assert_eq!(insn_len(0x8082), 2);
        assert_eq!(insn_len(0x0013), 4);
        assert!((0..=u16::MAX).all(|h| insn_len(h) == if h & 3 == 3 { 4 } else { 2 }));
    }

    #[test]
    fn all_zero_word_is_a_two_byte_illegal_instruction() {
        assert_eq!(decode(0), Insn::illegal(0, 2));
    }

    #[test]
    fn compressed_hints_are_legal() {
        check(0x0005, Addi, 0, 0, 0, 1, 2); // c.nop 1
        check(0x0501, Addi, 10, 10, 0, 0, 2); // c.addi a0, 0
        check(0x4005, Addi, 0, 0, 0, 1, 2); // c.li x0, 1
        check(0x6005, Lui, 0, 0, 0, 1 << 12, 2); // c.lui x0, 1
        check(0x0002, Slli, 0, 0, 0, 0, 2); // c.slli x0, 0
        check(0x8001, Srli, 8, 8, 0, 0, 2); // c.srli s0, 0
        check(0x8006, Add, 0, 0, 1, 0, 2); // c.mv x0, ra
        check(0x9006, Add, 0, 0, 1, 0, 2); // c.add x0, ra
    }

    #[test]
    fn compressed_reserved_encodings_are_illegal() {
        for (raw, why) in [
            (0x0000, "all-zero halfword"),
            (0x0010, "c.addi4spn with nzuimm = 0 (rd' = a2)"),
            (0x2001, "c.addiw rd = 0"),
            (0x6101, "c.addi16sp nzimm = 0"),
            (0x6081, "c.lui ra, 0"),
            (0x4002, "c.lwsp rd = 0"),
            (0x6002, "c.ldsp rd = 0"),
            (0x8002, "c.jr rs1 = 0"),
            (0x8000, "quadrant 0 funct3 100 (reserved)"),
            (0x9c41, "c.subw-space funct2 10 (reserved)"),
            (0x9c61, "c.subw-space funct2 11 (reserved)"),
        ] {
            let insn = decode(raw);
            assert_eq!(insn, Insn::illegal(raw, 2), "{why}");
        }
    }

    #[test]
    fn base_formats_and_sign_extension() {
        check(0xffff_f537, Lui, 10, 0, 0, -4096, 4); // lui a0, 0xfffff
        check(0x8000_0297, Auipc, 5, 0, 0, i32::MIN, 4); // auipc t0, 0x80000
        check(0x8000_00ef, Jal, 1, 0, 0, -1_048_576, 4); // jal ra, .-1048576
        check(0x7fff_f06f, Jal, 0, 0, 0, 1_048_574, 4); // j .+1048574
        check(0x8007_8367, Jalr, 6, 15, 0, -2048, 4); // jalr t1, -2048(a5)
        check(0x80b5_0063, Beq, 0, 10, 11, -4096, 4); // beq a0, a1, .-4096
        check(0x7e94_6fe3, Bltu, 0, 8, 9, 4094, 4); // bltu s0, s1, .+4094
        check(0x8001_0503, Lb, 10, 2, 0, -2048, 4); // lb a0, -2048(sp)
        check(0x7ff5_6283, Lwu, 5, 10, 0, 2047, 4); // lwu t0, 2047(a0)
        check(0xffbf_bfa3, Sd, 0, 31, 27, -1, 4); // sd s11, -1(t6)
        check(0x8005_8513, Addi, 10, 11, 0, -2048, 4); // addi a0, a1, -2048
        check(0x03f5_9513, Slli, 10, 11, 0, 63, 4); // slli a0, a1, 63
        check(0x43f5_d513, Srai, 10, 11, 0, 63, 4); // srai a0, a1, 63
        check(0x0205_d513, Srli, 10, 11, 0, 32, 4); // srli a0, a1, 32
        check(0x41f5_d51b, Sraiw, 10, 11, 0, 31, 4); // sraiw a0, a1, 31
        check(0x40c5_8533, Sub, 10, 11, 12, 0, 4); // sub a0, a1, a2
        check(0x0324_a433, Mulhsu, 8, 9, 18, 0, 4); // mulhsu s0, s1, s2
        check(0x0273_72bb, Remuw, 5, 6, 7, 0, 4); // remuw t0, t1, t2
        check(0x0000_0073, Ecall, 0, 0, 0, 0, 4);
        check(0x0010_0073, Ebreak, 0, 0, 0, 0, 4);
        check(0x3020_0073, Mret, 0, 0, 0, 0, 4);
        check(0x1050_0073, Wfi, 0, 0, 0, 0, 4);
    }

    #[test]
    fn csr_fields() {
        check(0xfff5_9573, Csrrw, 10, 11, 0, 0xfff, 4); // csrrw a0, 0xfff, a1
        check(0x001f_f073, Csrrci, 0, 31, 0, 1, 4); // csrrci zero, fflags, 31 (zimm in rs1)
    }

    #[test]
    fn atomics_keep_ordering_bits() {
        let amo = decode(0x0eb6_352f); // amoswap.d.aqrl a0, a1, (a2)
        assert_eq!(
            (amo.op, amo.rd, amo.rs1, amo.rs2, amo.rm),
            (AmoswapD, 10, 12, 11, 3)
        );
        let lr = decode(0x1403_22af); // lr.w.aq t0, (t1)
        assert_eq!((lr.op, lr.rd, lr.rs1, lr.rm), (LrW, 5, 6, 2));
        let sc = decode(0x1bce_b3af); // sc.d.rl t2, t3, (t4)
        assert_eq!((sc.op, sc.rd, sc.rs1, sc.rs2, sc.rm), (ScD, 7, 29, 28, 1));
        // lr with rs2 != 0 is reserved.
        assert_eq!(decode(0x1413_22af).op, Illegal);
    }

    #[test]
    fn floating_point_fields() {
        let fma = decode(0x6ac5_9543); // fmadd.d fa0, fa1, fa2, fa3, rtz
        assert_eq!(
            (fma.op, fma.rd, fma.rs1, fma.rs2, fma.rs3, fma.rm),
            (FmaddD, 10, 11, 12, 13, 1)
        );
        let fnma = decode(0xf820_f04f); // fnmadd.s ft0, ft1, ft2, ft11, dyn
        assert_eq!((fnma.op, fnma.rs3, fnma.rm), (FnmaddS, 31, 7));
        let cvt = decode(0xc005_1553); // fcvt.w.s a0, fa0, rtz
        assert_eq!((cvt.op, cvt.rd, cvt.rs1, cvt.rm), (FcvtWS, 10, 10, 1));
        assert_eq!(decode(0x4015_c553).op, FcvtSD); // fcvt.s.d fa0, fa1, rmm
        assert_eq!(decode(0x4015_c553).rm, 4);
        assert_eq!(decode(0x4205_8553).op, FcvtDS); // fcvt.d.s fa0, fa1
        check(0x22c5_a553, FsgnjxD, 10, 11, 12, 0, 4); // fsgnjx.d fa0, fa1, fa2
        check(0xe20f_8553, FmvXD, 10, 31, 0, 0, 4); // fmv.x.d a0, ft11
        check(0xe005_1553, FclassS, 10, 10, 0, 0, 4); // fclass.s a0, fa0
        check(0xffc1_2007, Flw, 0, 2, 0, -4, 4); // flw ft0, -4(sp)
        check(0x7e85_3c27, Fsd, 0, 10, 8, 2040, 4); // fsd fs0, 2040(a0)
                                                    // Reserved rounding modes decode (the interpreter traps on them).
        assert_eq!(decode(0x0200_5053).rm, 5); // fadd.d ft0, ft0, ft0, rm=5
    }

    #[test]
    fn fences() {
        let f = decode(0x0f10_000f); // fence iorw, w
        assert_eq!((f.op, f.rm), (Fence, 0xf1));
        assert_eq!(decode(0x8330_000f).op, FenceTso);
        assert_eq!(decode(0x8210_000f).op, Fence); // fm=1000 without rw,rw: a normal fence
        assert_eq!(decode(0x0000_100f).op, FenceI);
        assert_eq!(decode(0x0010_908f).op, FenceI); // reserved fields ignored
    }

    #[test]
    fn base_reserved_encodings_are_illegal() {
        for (raw, why) in [
            (0xffff_ffff, "all-ones word"),
            (0x0000_1067, "jalr funct3 != 0"),
            (0x0000_2063, "branch funct3 010"),
            (0x0000_7003, "load funct3 111"),
            (0x0000_4023, "store funct3 100"),
            (0x0400_1013, "slli with bit 26 set beyond shamt"),
            (0x8000_5013, "srai with a bad funct6"),
            (0x0200_101b, "slliw shamt bit 5 set"),
            (0x0200_501b, "srliw shamt bit 5 set"),
            (0x4000_1033, "sll with funct7 0x20"),
            (0x0000_4073, "SYSTEM funct3 100"),
            (0x1020_0073, "sret (supervisor)"),
            (0x0000_300f, "MISC-MEM funct3 011"),
            (0x0000_402f, "AMO funct3 100"),
            (0x2800_202f, "AMO funct5 00101 (unassigned)"),
            (0x0000_1007, "flh (Zfh, not in RV64GC)"),
            (0x0400_0043, "fmadd with fmt = H"),
            (0x0600_0053, "fadd with fmt = Q"),
            (0x5810_1053, "fsqrt.s with rs2 != 0"),
            (0x4020_0053, "fcvt.s.h (rs2 = 2; only fcvt.s.d exists)"),
            (0xe000_2053, "fmv.x.w with funct3 010"),
            (0x0000_001f, "48-bit encoding prefix"),
            (0x0000_007f, "long encoding prefix"),
        ] {
            assert_eq!(decode(raw), Insn::illegal(raw, 4), "{why}: {raw:#x}");
        }
    }

    proptest::proptest! {
        /// Every word decodes, its length follows its low bits, and the disassembler
        /// marks exactly the illegal ones as data.
        #[test]
        fn decode_is_total_and_consistent(raw in proptest::prelude::any::<u32>()) {
            let insn = decode(raw);
            proptest::prop_assert_eq!(insn.len, insn_len(raw as u16));
            let text = crate::disasm::disasm(&insn, 0x1000);
            let data = text.starts_with(".2byte") || text.starts_with(".4byte")
                || (insn.len == 2 && text == "unimp");
            proptest::prop_assert_eq!(insn.op == Illegal, data, "{:#x}: {}", raw, text);
        }
    }
}

//! The decoded form of one instruction: the contract between decoder, disassembler,
//! floating-point unit and interpreter.
//!
//! Compressed instructions decode to the operation they expand to; `len` (2 or 4) keeps
//! their size, so the interpreter never needs to know they were compressed.

/// An operation of RV64IMAFDC + Zicsr + Zifencei (plus `mret` and `wfi` for bare metal).
///
/// `Illegal` stands for any encoding that is not a valid instruction; executing it raises
/// an illegal-instruction exception. Its raw bits are in [`Insn::imm`].
/// Variant names are the ISA mnemonics in CamelCase, with the `.w`/`.d`/`.s` suffixes
/// folded in (`AmoaddW` is `amoadd.w`, `FcvtLuD` is `fcvt.lu.d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Op {
    /// Not a valid instruction.
    Illegal,
    // RV64I
    Lui,
    Auipc,
    Jal,
    Jalr,
    Beq,
    Bne,
    Blt,
    Bge,
    Bltu,
    Bgeu,
    Lb,
    Lh,
    Lw,
    Lbu,
    Lhu,
    Lwu,
    Ld,
    Sb,
    Sh,
    Sw,
    Sd,
    Addi,
    Slti,
    Sltiu,
    Xori,
    Ori,
    Andi,
    Slli,
    Srli,
    Srai,
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
    Fence,
    FenceTso,
    FenceI,
    Ecall,
    Ebreak,
    Addiw,
    Slliw,
    Srliw,
    Sraiw,
    Addw,
    Subw,
    Sllw,
    Srlw,
    Sraw,
    // M
    Mul,
    Mulh,
    Mulhsu,
    Mulhu,
    Div,
    Divu,
    Rem,
    Remu,
    Mulw,
    Divw,
    Divuw,
    Remw,
    Remuw,
    // A
    LrW,
    ScW,
    AmoswapW,
    AmoaddW,
    AmoxorW,
    AmoandW,
    AmoorW,
    AmominW,
    AmomaxW,
    AmominuW,
    AmomaxuW,
    LrD,
    ScD,
    AmoswapD,
    AmoaddD,
    AmoxorD,
    AmoandD,
    AmoorD,
    AmominD,
    AmomaxD,
    AmominuD,
    AmomaxuD,
    // Zicsr
    Csrrw,
    Csrrs,
    Csrrc,
    Csrrwi,
    Csrrsi,
    Csrrci,
    // Privileged (machine mode)
    Mret,
    Wfi,
    // F
    Flw,
    Fsw,
    FmaddS,
    FmsubS,
    FnmsubS,
    FnmaddS,
    FaddS,
    FsubS,
    FmulS,
    FdivS,
    FsqrtS,
    FsgnjS,
    FsgnjnS,
    FsgnjxS,
    FminS,
    FmaxS,
    FcvtWS,
    FcvtWuS,
    FcvtLS,
    FcvtLuS,
    FmvXW,
    FeqS,
    FltS,
    FleS,
    FclassS,
    FcvtSW,
    FcvtSWu,
    FcvtSL,
    FcvtSLu,
    FmvWX,
    // D
    Fld,
    Fsd,
    FmaddD,
    FmsubD,
    FnmsubD,
    FnmaddD,
    FaddD,
    FsubD,
    FmulD,
    FdivD,
    FsqrtD,
    FsgnjD,
    FsgnjnD,
    FsgnjxD,
    FminD,
    FmaxD,
    FcvtSD,
    FcvtDS,
    FcvtWD,
    FcvtWuD,
    FcvtLD,
    FcvtLuD,
    FmvXD,
    FeqD,
    FltD,
    FleD,
    FclassD,
    FcvtDW,
    FcvtDWu,
    FcvtDL,
    FcvtDLu,
    FmvDX,
}

/// One decoded instruction, 12 bytes, `Copy`.
///
/// Field use by format:
/// - `rd`, `rs1`, `rs2`, `rs3`: register numbers (x or f, as the operation implies);
///   for `csrr?i`, `rs1` holds the 5-bit immediate.
/// - `imm`: the sign-extended immediate (I, S, B, U, J formats; for `lui`/`auipc` the value
///   already shifted left by 12), the shift amount for shifts, the CSR number for Zicsr,
///   the raw encoding for `Illegal`.
/// - `rm`: the rounding-mode field of floating-point operations (0-4 static, 7 dynamic);
///   `aq << 1 | rl` for LR/SC/AMOs; `pred << 4 | succ` for `fence`.
/// - `len`: 2 for a compressed encoding, 4 otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Insn {
    /// The operation.
    pub op: Op,
    /// Destination register.
    pub rd: u8,
    /// First source register.
    pub rs1: u8,
    /// Second source register.
    pub rs2: u8,
    /// Third source register (fused multiply-add).
    pub rs3: u8,
    /// Rounding mode, atomic ordering bits or fence sets; see the type docs.
    pub rm: u8,
    /// Encoded length in bytes: 2 or 4.
    pub len: u8,
    /// Immediate; see the type docs.
    pub imm: i32,
}

impl Insn {
    /// An illegal instruction of length `len` whose raw encoding is `raw`.
    pub const fn illegal(raw: u32, len: u8) -> Insn {
        Insn {
            op: Op::Illegal,
            rd: 0,
            rs1: 0,
            rs2: 0,
            rs3: 0,
            rm: 0,
            len,
            imm: raw as i32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insn_is_small() {
        assert_eq!(size_of::<Insn>(), 12);
    }
}

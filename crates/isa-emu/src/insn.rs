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

/// Classification for block building and analyses.
///
/// Block boundaries: an instruction ends a basic block if it transfers control
/// ([`Insn::flow`] is not `None`), or if it is `fence.i` (code may have changed), `wfi`, or
/// a Zicsr instruction on any CSR other than `fflags`/`frm`/`fcsr`. Those CSRs hold machine
/// state (status, trap vectors, counters) that the run loop settles at block boundaries,
/// so accesses to them end the block; the floating-point CSRs are accessed often by libm
/// and the interpreter reads `frm` on each dynamically rounded operation, so they do not.
impl Insn {
    /// True for a 16-bit (compressed) encoding.
    #[inline]
    pub fn is_compressed(&self) -> bool {
        self.len == 2
    }

    /// The control-flow class of this instruction at address `pc`.
    ///
    /// Link registers follow the return-address-stack hints of the RISC-V specification
    /// (x1 and x5 are link registers): `jal` linking one is a call, `jal x0` a jump;
    /// `jalr` writing a link register is an indirect call, `jalr` reading a link register
    /// without writing one is a return, other `jalr`s are indirect jumps. `mret` is an
    /// indirect jump, `ecall` a system call, `ebreak` and illegal encodings halt.
    pub fn flow(&self, pc: u64) -> prof_events::FlowClass {
        use prof_events::FlowClass;
        let target = pc.wrapping_add(self.imm as i64 as u64);
        let is_link = |r: u8| r == 1 || r == 5;
        match self.op {
            Op::Jal if is_link(self.rd) => FlowClass::Call { target },
            Op::Jal => FlowClass::Jump { target },
            Op::Jalr if is_link(self.rd) => FlowClass::IndirectCall,
            Op::Jalr if is_link(self.rs1) => FlowClass::Return,
            Op::Jalr | Op::Mret => FlowClass::IndirectJump,
            Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
                FlowClass::Branch { target }
            }
            Op::Ecall => FlowClass::Syscall,
            Op::Ebreak | Op::Illegal => FlowClass::Halt,
            _ => FlowClass::None,
        }
    }

    /// True if this instruction must be the last of a basic block (see the impl docs).
    pub fn ends_block(&self) -> bool {
        match self.op {
            Op::FenceI | Op::Wfi => true,
            Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
                !matches!(self.imm, 1..=3)
            }
            _ => self.flow(0).ends_block(),
        }
    }

    /// The memory access this instruction makes, if any: size in bytes and kind.
    ///
    /// `lr` is a load and `sc` a store (it may not write); AMOs are atomic
    /// read-modify-writes.
    pub fn mem_access(&self) -> Option<(u8, prof_events::MemKind)> {
        use prof_events::MemKind::{Atomic, Load, Store};
        use Op::*;
        Some(match self.op {
            Lb | Lbu => (1, Load),
            Lh | Lhu => (2, Load),
            Lw | Lwu | Flw | LrW => (4, Load),
            Ld | Fld | LrD => (8, Load),
            Sb => (1, Store),
            Sh => (2, Store),
            Sw | Fsw | ScW => (4, Store),
            Sd | Fsd | ScD => (8, Store),
            AmoswapW | AmoaddW | AmoxorW | AmoandW | AmoorW | AmominW | AmomaxW | AmominuW
            | AmomaxuW => (4, Atomic),
            AmoswapD | AmoaddD | AmoxorD | AmoandD | AmoorD | AmominD | AmomaxD | AmominuD
            | AmomaxuD => (8, Atomic),
            _ => return None,
        })
    }

    /// What an ISA-independent analysis needs to know about this instruction at `pc`.
    pub fn info(&self, pc: u64) -> prof_events::InsnInfo {
        prof_events::InsnInfo {
            len: self.len,
            flow: self.flow(pc),
            accesses_memory: self.mem_access().is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::decode::decode;
    use prof_events::{FlowClass, MemKind};

    #[test]
    fn flow_follows_the_link_register_hints() {
        let pc = 0x1000;
        let flow = |raw| decode(raw).flow(pc);
        assert_eq!(flow(0x0080_00ef), FlowClass::Call { target: 0x1008 }); // jal ra, +8
        assert_eq!(flow(0x0080_02ef), FlowClass::Call { target: 0x1008 }); // jal t0, +8
        assert_eq!(flow(0xff9f_f06f), FlowClass::Jump { target: 0xff8 }); // j -8
        assert_eq!(flow(0x0080_056f), FlowClass::Jump { target: 0x1008 }); // jal a0, +8
        assert_eq!(flow(0x0000_8067), FlowClass::Return); // ret
        assert_eq!(flow(0x8082), FlowClass::Return); // c.jr ra
        assert_eq!(flow(0x0002_8067), FlowClass::Return); // jr t0
        assert_eq!(flow(0x0005_00e7), FlowClass::IndirectCall); // jalr a0
        assert_eq!(flow(0x9502), FlowClass::IndirectCall); // c.jalr a0
        assert_eq!(flow(0x0000_82e7), FlowClass::IndirectCall); // jalr t0, 0(ra)
        assert_eq!(flow(0x0005_0067), FlowClass::IndirectJump); // jr a0
        assert_eq!(flow(0xd101), FlowClass::Branch { target: 0xf00 }); // c.beqz a0, -256
        assert_eq!(flow(0x0000_0073), FlowClass::Syscall);
        assert_eq!(flow(0x0010_0073), FlowClass::Halt);
        assert_eq!(flow(0x0000_0000), FlowClass::Halt);
        assert_eq!(flow(0x3020_0073), FlowClass::IndirectJump); // mret
        assert_eq!(flow(0x00b5_0533), FlowClass::None); // add
    }

    #[test]
    fn block_ends() {
        let ends = |raw| decode(raw).ends_block();
        assert!(ends(0x0000_100f)); // fence.i
        assert!(ends(0x1050_0073)); // wfi
        assert!(ends(0xc010_2573)); // rdtime a0
        assert!(ends(0x3005_9073)); // csrw mstatus, a1
        assert!(ends(0x0000_8067)); // ret
        assert!(!ends(0x0010_2573)); // frflags a0
        assert!(!ends(0x0025_9073)); // fsrm a1
        assert!(!ends(0x0ff0_000f)); // fence
        assert!(!ends(0x00b5_0533)); // add
    }

    #[test]
    fn memory_accesses() {
        let mem = |raw| decode(raw).mem_access();
        assert_eq!(mem(0x5de8), Some((4, MemKind::Load))); // c.lw
        assert_eq!(mem(0xfffe), Some((8, MemKind::Store))); // c.sdsp
        assert_eq!(mem(0x00b5_202f), Some((4, MemKind::Atomic))); // amoadd.w
        assert_eq!(mem(0x1003_352f), Some((8, MemKind::Load))); // lr.d
        assert_eq!(mem(0x1bce_b3af), Some((8, MemKind::Store))); // sc.d.rl
        assert_eq!(mem(0xffc1_2007), Some((4, MemKind::Load))); // flw
        assert_eq!(mem(0x00b5_0533), None); // add
        assert!(!decode(0x00b5_0533).info(0).accesses_memory);
    }

    #[test]
    fn insn_is_small() {
        assert_eq!(size_of::<Insn>(), 12);
    }
}

//! The semantics of every instruction: one `match` over the translated form's [`Op`], shared
//! by the block-cached and single-step engines so both compute exactly the same thing.

use prof_events::{BlockId, Control, Interest, MemAccess, MemKind, Sink};

use crate::cpu::{Cpu, Mode};
use crate::fpu;
use crate::insn::Op;
use crate::memory::{AccessKind, MemFault, Memory};
use crate::xlat::{Here, Tinsn};

/// Why an instruction did not complete normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trap {
    /// Not a valid instruction here (bad encoding, reserved rounding mode, missing CSR).
    IllegalInstruction {
        /// The instruction's bits (16 or 32).
        bits: u32,
    },
    /// A load, store or fetch outside guest memory.
    AccessFault(MemFault),
    /// An atomic access to a misaligned address.
    Misaligned {
        /// The address.
        addr: u64,
        /// Load (LR) or store (SC, AMO).
        kind: AccessKind,
    },
    /// `ecall`.
    EnvironmentCall,
    /// `ebreak`.
    Breakpoint,
    /// `mret` (machine mode only; the environment performs it).
    MachineReturn,
    /// `wfi`: wait for an interrupt. No interrupt source exists, so the environment decides.
    WaitForInterrupt,
    /// `fence.i`: translated code must be discarded before going on.
    FenceI,
}

/// The error of [`exec`]: the instruction trapped, and the trap is in [`MemHook::trap`].
/// Keeping the (32-byte) trap out of the return value lets the next pc come back in a
/// register on every instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Trapped;

/// The next pc to give [`exec`] for an instruction of a block's body, which it returns when
/// the instruction does not transfer control: odd, so no taken branch's target can be
/// mistaken for it.
pub(crate) const FALLS_THROUGH: u64 = 1;

/// Where memory events go while a block that asked for them runs, and where a trap is
/// recorded.
pub(crate) struct MemHook<'a, S: ?Sized> {
    pub sink: &'a mut S,
    pub block: BlockId,
    pub values: bool,
    pub control: Control,
    /// The last trap (valid after `exec` returned `Err(Trapped)`).
    pub trap: Trap,
}

impl<'a, S: Sink + ?Sized> MemHook<'a, S> {
    /// A hook for the block `block`, whose sinks' `interest` says whether accesses carry
    /// their values.
    #[inline(always)]
    pub fn new(sink: &'a mut S, block: BlockId, interest: Interest) -> Self {
        MemHook {
            sink,
            block,
            values: interest.contains(Interest::MEM_VALUES),
            control: Control::Continue,
            trap: Trap::Breakpoint,
        }
    }

    #[inline(always)]
    fn emit(&mut self, pc: u64, addr: u64, size: u8, kind: MemKind, value: u64) {
        let value = if self.values { value } else { 0 };
        let access = MemAccess {
            block: self.block,
            pc,
            addr,
            size,
            kind,
            value,
        };
        self.control = self.control.or(self.sink.mem(&access));
    }
}

/// The bits of an instruction for an illegal-instruction trap.
#[inline(never)]
fn illegal(mem: &Memory, pc: u64, len: u8) -> Trap {
    let bits = if len == 2 {
        mem.load_u::<2>(pc).unwrap_or(0)
    } else {
        mem.load_u::<4>(pc).unwrap_or(0)
    };
    Trap::IllegalInstruction { bits: bits as u32 }
}

#[inline(always)]
fn sext32(v: u64) -> u64 {
    v as i32 as i64 as u64
}

/// Executes translated instruction `insn` of the code at `here` as operation `op` (its own
/// `op`, or a constant: inlined with a constant, only that operation's code is left, which
/// is how the threaded interpreter's handlers are made). Returns the address of the next
/// instruction, which is `end` unless `insn` transfers control (the last instruction
/// of a block, with `end` the block's end, or a superblock's side exit), or `Trapped` with
/// the trap stored in `hook.trap`.
///
/// The pc (of a trap, a memory event, `illegal`) and the instructions retired before this
/// one (counter CSRs) come from `here`, off the common path. With `MEM = true`, every
/// access is reported to `hook`.
#[inline(always)]
pub(crate) fn exec<const MEM: bool, S: Sink + ?Sized>(
    op: Op,
    cpu: &mut Cpu,
    mem: &mut Memory,
    insn: &Tinsn,
    end: u64,
    here: &Here<'_>,
    hook: &mut MemHook<'_, S>,
) -> Result<u64, Trapped> {
    // Integer register numbers index `x` unmasked (it has a slot for every `u8`); the
    // floating-point ones are masked where used.
    let rd = usize::from(insn.rd);
    let rs1 = usize::from(insn.rs1);
    let rs2 = usize::from(insn.rs2);
    let imm = insn.imm;
    let next = end;
    let x = &mut cpu.x;

    // The pc and the instructions retired before this one, off the common path (computed
    // where used, so that no path that does not need them computes the index).
    macro_rules! pc {
        () => {
            here.pc(here.index(insn))
        };
    }
    macro_rules! instret {
        () => {
            here.instret(here.index(insn))
        };
    }
    macro_rules! trap {
        ($t:expr) => {{
            hook.trap = $t;
            return Err(Trapped);
        }};
    }
    macro_rules! fault {
        ($r:expr) => {
            match $r {
                Ok(v) => v,
                Err(f) => trap!(Trap::AccessFault(f)),
            }
        };
    }
    macro_rules! alu {
        ($e:expr) => {{
            x[rd] = $e;
        }};
    }
    macro_rules! load {
        ($n:literal, $ext:expr) => {{
            let addr = x[rs1].wrapping_add(imm);
            let raw = fault!(mem.load_u::<$n>(addr));
            if MEM {
                hook.emit(pc!(), addr, $n, MemKind::Load, raw);
            }
            let ext: fn(u64) -> u64 = $ext;
            ext(raw)
        }};
    }
    macro_rules! store {
        ($n:literal, $v:expr) => {{
            let addr = x[rs1].wrapping_add(imm);
            let v: u64 = $v;
            fault!(mem.store_u::<$n>(addr, v));
            if MEM {
                hook.emit(
                    pc!(),
                    addr,
                    $n,
                    MemKind::Store,
                    v & (u64::MAX >> (64 - 8 * $n)),
                );
            }
        }};
    }
    macro_rules! fp_enabled {
        () => {
            // Field by field (not `Cpu::fp_disabled`) so `x` may stay borrowed.
            if cpu.mode == Mode::Machine && cpu.m.mstatus & (3 << 13) == 0 {
                trap!(illegal(mem, pc!(), insn.len));
            }
        };
    }
    macro_rules! branch {
        ($cond:expr) => {{
            return Ok(if $cond { imm } else { next });
        }};
    }
    macro_rules! amo {
        ($n:literal, $f:expr) => {{
            let addr = x[rs1];
            if addr % $n != 0 {
                trap!(Trap::Misaligned {
                    addr,
                    kind: AccessKind::Store,
                });
            }
            let old = fault!(mem.load_u::<$n>(addr));
            let src = x[rs2];
            let f: fn(u64, u64) -> u64 = $f;
            let new = f(old, src);
            fault!(mem.store_u::<$n>(addr, new));
            if MEM {
                hook.emit(pc!(), addr, $n, MemKind::Atomic, old);
            }
            x[rd] = if $n == 4 { sext32(old) } else { old };
        }};
    }

    match op {
        Op::Illegal => trap!(illegal(mem, pc!(), insn.len)),
        // RV64I
        // Translation turns `auipc` into `lui` of its result.
        Op::Lui | Op::Auipc => alu!(imm),
        Op::Jal => {
            x[rd] = next;
            return Ok(imm);
        }
        Op::Jalr => {
            let target = x[rs1].wrapping_add(imm) & !1;
            x[rd] = next;
            return Ok(target);
        }
        Op::Beq => branch!(x[rs1] == x[rs2]),
        Op::Bne => branch!(x[rs1] != x[rs2]),
        Op::Blt => branch!((x[rs1] as i64) < (x[rs2] as i64)),
        Op::Bge => branch!((x[rs1] as i64) >= (x[rs2] as i64)),
        Op::Bltu => branch!(x[rs1] < x[rs2]),
        Op::Bgeu => branch!(x[rs1] >= x[rs2]),
        Op::Lb => alu!(load!(1, |v| v as i8 as i64 as u64)),
        Op::Lh => alu!(load!(2, |v| v as i16 as i64 as u64)),
        Op::Lw => alu!(load!(4, sext32)),
        Op::Ld => alu!(load!(8, |v| v)),
        Op::Lbu => alu!(load!(1, |v| v)),
        Op::Lhu => alu!(load!(2, |v| v)),
        Op::Lwu => alu!(load!(4, |v| v)),
        Op::Sb => store!(1, x[rs2]),
        Op::Sh => store!(2, x[rs2]),
        Op::Sw => store!(4, x[rs2]),
        Op::Sd => store!(8, x[rs2]),
        Op::Addi => alu!(x[rs1].wrapping_add(imm)),
        Op::Slti => alu!(u64::from((x[rs1] as i64) < (imm as i64))),
        Op::Sltiu => alu!(u64::from(x[rs1] < imm)),
        Op::Xori => alu!(x[rs1] ^ imm),
        Op::Ori => alu!(x[rs1] | imm),
        Op::Andi => alu!(x[rs1] & imm),
        Op::Slli => alu!(x[rs1] << (imm & 63)),
        Op::Srli => alu!(x[rs1] >> (imm & 63)),
        Op::Srai => alu!(((x[rs1] as i64) >> (imm & 63)) as u64),
        Op::Add => alu!(x[rs1].wrapping_add(x[rs2])),
        Op::Sub => alu!(x[rs1].wrapping_sub(x[rs2])),
        Op::Sll => alu!(x[rs1] << (x[rs2] & 63)),
        Op::Slt => alu!(u64::from((x[rs1] as i64) < (x[rs2] as i64))),
        Op::Sltu => alu!(u64::from(x[rs1] < x[rs2])),
        Op::Xor => alu!(x[rs1] ^ x[rs2]),
        Op::Srl => alu!(x[rs1] >> (x[rs2] & 63)),
        Op::Sra => alu!(((x[rs1] as i64) >> (x[rs2] & 63)) as u64),
        Op::Or => alu!(x[rs1] | x[rs2]),
        Op::And => alu!(x[rs1] & x[rs2]),
        Op::Fence | Op::FenceTso => {}
        Op::FenceI => trap!(Trap::FenceI),
        Op::Ecall => trap!(Trap::EnvironmentCall),
        Op::Ebreak => trap!(Trap::Breakpoint),
        Op::Addiw => alu!(sext32(x[rs1].wrapping_add(imm))),
        Op::Slliw => alu!(sext32(x[rs1] << (imm & 31))),
        Op::Srliw => alu!(sext32((x[rs1] as u32 >> (imm & 31)) as u64)),
        Op::Sraiw => alu!(((x[rs1] as i32) >> (imm & 31)) as i64 as u64),
        Op::Addw => alu!(sext32(x[rs1].wrapping_add(x[rs2]))),
        Op::Subw => alu!(sext32(x[rs1].wrapping_sub(x[rs2]))),
        Op::Sllw => alu!(sext32(x[rs1] << (x[rs2] & 31))),
        Op::Srlw => alu!(sext32((x[rs1] as u32 >> (x[rs2] & 31)) as u64)),
        Op::Sraw => alu!(((x[rs1] as i32) >> (x[rs2] & 31)) as i64 as u64),
        // M
        Op::Mul => alu!(x[rs1].wrapping_mul(x[rs2])),
        Op::Mulh => alu!(((i128::from(x[rs1] as i64) * i128::from(x[rs2] as i64)) >> 64) as u64),
        Op::Mulhsu => {
            alu!(((i128::from(x[rs1] as i64) * i128::from(x[rs2])) >> 64) as u64)
        }
        Op::Mulhu => alu!(((u128::from(x[rs1]) * u128::from(x[rs2])) >> 64) as u64),
        Op::Div => alu!(div(x[rs1] as i64, x[rs2] as i64) as u64),
        Op::Divu => alu!(x[rs1].checked_div(x[rs2]).unwrap_or(u64::MAX)),
        Op::Rem => alu!(rem(x[rs1] as i64, x[rs2] as i64) as u64),
        Op::Remu => alu!(x[rs1].checked_rem(x[rs2]).unwrap_or(x[rs1])),
        Op::Mulw => alu!(sext32(x[rs1].wrapping_mul(x[rs2]))),
        Op::Divw => alu!(i64::from(div32(x[rs1] as i32, x[rs2] as i32)) as u64),
        Op::Divuw => {
            let (a, b) = (x[rs1] as u32, x[rs2] as u32);
            alu!(sext32(u64::from(a.checked_div(b).unwrap_or(u32::MAX))))
        }
        Op::Remw => alu!(i64::from(rem32(x[rs1] as i32, x[rs2] as i32)) as u64),
        Op::Remuw => {
            let (a, b) = (x[rs1] as u32, x[rs2] as u32);
            alu!(sext32(u64::from(a.checked_rem(b).unwrap_or(a))))
        }
        // A
        Op::LrW | Op::LrD => {
            let addr = x[rs1];
            let n = if op == Op::LrW { 4 } else { 8 };
            if addr % n != 0 {
                trap!(Trap::Misaligned {
                    addr,
                    kind: AccessKind::Load,
                });
            }
            let v = if n == 4 {
                sext32(fault!(mem.load_u::<4>(addr)))
            } else {
                fault!(mem.load_u::<8>(addr))
            };
            if MEM {
                hook.emit(
                    pc!(),
                    addr,
                    n as u8,
                    MemKind::Load,
                    v & (u64::MAX >> (64 - 8 * n)),
                );
            }
            cpu.reservation = Some((addr, v));
            x[rd] = v;
        }
        Op::ScW | Op::ScD => {
            let addr = x[rs1];
            let n = if op == Op::ScW { 4 } else { 8 };
            if addr % n != 0 {
                trap!(Trap::Misaligned {
                    addr,
                    kind: AccessKind::Store,
                });
            }
            let reservation = cpu.reservation.take();
            // As qemu does: succeed if the reserved address still holds the value LR read.
            let current = fault!(if n == 4 {
                mem.load_u::<4>(addr).map(sext32)
            } else {
                mem.load_u::<8>(addr)
            });
            let ok = reservation == Some((addr, current));
            if ok {
                let v = x[rs2];
                if n == 4 {
                    fault!(mem.store_u::<4>(addr, v));
                } else {
                    fault!(mem.store_u::<8>(addr, v));
                }
                if MEM {
                    hook.emit(
                        pc!(),
                        addr,
                        n as u8,
                        MemKind::Store,
                        v & (u64::MAX >> (64 - 8 * n)),
                    );
                }
            }
            x[rd] = u64::from(!ok);
        }
        Op::AmoswapW => amo!(4, |_, s| s),
        Op::AmoaddW => amo!(4, |o, s| o.wrapping_add(s)),
        Op::AmoxorW => amo!(4, |o, s| o ^ s),
        Op::AmoandW => amo!(4, |o, s| o & s),
        Op::AmoorW => amo!(4, |o, s| o | s),
        Op::AmominW => amo!(4, |o, s| (o as i32).min(s as i32) as u32 as u64),
        Op::AmomaxW => amo!(4, |o, s| (o as i32).max(s as i32) as u32 as u64),
        Op::AmominuW => amo!(4, |o, s| u64::from((o as u32).min(s as u32))),
        Op::AmomaxuW => amo!(4, |o, s| u64::from((o as u32).max(s as u32))),
        Op::AmoswapD => amo!(8, |_, s| s),
        Op::AmoaddD => amo!(8, |o, s| o.wrapping_add(s)),
        Op::AmoxorD => amo!(8, |o, s| o ^ s),
        Op::AmoandD => amo!(8, |o, s| o & s),
        Op::AmoorD => amo!(8, |o, s| o | s),
        Op::AmominD => amo!(8, |o, s| (o as i64).min(s as i64) as u64),
        Op::AmomaxD => amo!(8, |o, s| (o as i64).max(s as i64) as u64),
        Op::AmominuD => amo!(8, |o, s| o.min(s)),
        Op::AmomaxuD => amo!(8, |o, s| o.max(s)),
        // Zicsr
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
            let num = (insn.imm & 0xfff) as u16;
            if !csr_op(op, cpu, [insn.rd, insn.rs1], num, instret!()) {
                trap!(illegal(mem, pc!(), insn.len));
            }
        }
        Op::Mret => {
            if cpu.mode != Mode::Machine {
                trap!(illegal(mem, pc!(), insn.len));
            }
            trap!(Trap::MachineReturn);
        }
        Op::Wfi => {
            if cpu.mode != Mode::Machine {
                trap!(illegal(mem, pc!(), insn.len));
            }
            trap!(Trap::WaitForInterrupt);
        }
        // F and D loads and stores
        Op::Flw => {
            fp_enabled!();
            let v = load!(4, |v| v);
            cpu.f[usize::from(insn.rd & 31)] = fpu::nan_box(v as u32);
        }
        Op::Fld => {
            fp_enabled!();
            let v = load!(8, |v| v);
            cpu.f[usize::from(insn.rd & 31)] = v;
        }
        Op::Fsw => {
            fp_enabled!();
            store!(4, cpu.f[rs2 & 31])
        }
        Op::Fsd => {
            fp_enabled!();
            store!(8, cpu.f[rs2 & 31])
        }
        // F and D computation (listed, so that the dispatch table covers every op and needs
        // no range check)
        op @ (Op::FmaddS
        | Op::FmsubS
        | Op::FnmsubS
        | Op::FnmaddS
        | Op::FaddS
        | Op::FsubS
        | Op::FmulS
        | Op::FdivS
        | Op::FsqrtS
        | Op::FsgnjS
        | Op::FsgnjnS
        | Op::FsgnjxS
        | Op::FminS
        | Op::FmaxS
        | Op::FcvtWS
        | Op::FcvtWuS
        | Op::FcvtLS
        | Op::FcvtLuS
        | Op::FmvXW
        | Op::FeqS
        | Op::FltS
        | Op::FleS
        | Op::FclassS
        | Op::FcvtSW
        | Op::FcvtSWu
        | Op::FcvtSL
        | Op::FcvtSLu
        | Op::FmvWX
        | Op::FmaddD
        | Op::FmsubD
        | Op::FnmsubD
        | Op::FnmaddD
        | Op::FaddD
        | Op::FsubD
        | Op::FmulD
        | Op::FdivD
        | Op::FsqrtD
        | Op::FsgnjD
        | Op::FsgnjnD
        | Op::FsgnjxD
        | Op::FminD
        | Op::FmaxD
        | Op::FcvtSD
        | Op::FcvtDS
        | Op::FcvtWD
        | Op::FcvtWuD
        | Op::FcvtLD
        | Op::FcvtLuD
        | Op::FmvXD
        | Op::FeqD
        | Op::FltD
        | Op::FleD
        | Op::FclassD
        | Op::FcvtDW
        | Op::FcvtDWu
        | Op::FcvtDL
        | Op::FcvtDLu
        | Op::FmvDX) => {
            fp_enabled!();
            let regs = [insn.rd, insn.rs1, insn.rs2, insn.rs3];
            if !fp_compute(op, cpu, regs, insn.rm) {
                trap!(illegal(mem, pc!(), insn.len));
            }
        }
    }
    Ok(next)
}

/// The CSR instruction `op` on CSR `num`, with registers `[rd, rs1]` (`rs1` the immediate
/// of the immediate forms), on `cpu`, `instret` instructions retired before it: `false`,
/// having changed nothing, where it raises an illegal-instruction exception instead.
/// Compiled code calls it too for the floating-point CSRs ([`jit`](crate::jit)).
#[inline(always)]
pub(crate) fn csr_op(op: Op, cpu: &mut Cpu, [rd, rs1]: [u8; 2], num: u16, instret: u64) -> bool {
    let src = match csr_reads_rs1(op) {
        true => cpu.x[usize::from(rs1)],
        false => u64::from(rs1),
    };
    let Some(old) = cpu.read_csr(num, instret) else {
        return false;
    };
    let new = match op {
        Op::Csrrw | Op::Csrrwi => Some(src),
        // csrrs/csrrc with rs1 = x0 (or zimm = 0) do not write.
        _ if rs1 == 0 => None,
        Op::Csrrs | Op::Csrrsi => Some(old | src),
        _ => Some(old & !src),
    };
    if let Some(v) = new {
        if cpu.write_csr(num, v, instret).is_none() {
            return false;
        }
    }
    cpu.x[usize::from(rd)] = old;
    true
}

/// Whether the CSR instruction `op` reads register `rs1` (not the immediate forms).
pub(crate) fn csr_reads_rs1(op: Op) -> bool {
    matches!(op, Op::Csrrw | Op::Csrrs | Op::Csrrc)
}

/// The F or D computation `op` (any F or D op but the loads and stores) of an instruction
/// with registers `[rd, rs1, rs2, rs3]` and rounding-mode field `rm`, on `cpu` with
/// floating point on: `false`, having changed nothing, where it raises an
/// illegal-instruction exception instead (a reserved rounding mode). Compiled code calls
/// it too ([`jit`](crate::jit)), so both run the same arithmetic.
#[inline(always)]
pub(crate) fn fp_compute(op: Op, cpu: &mut Cpu, [rd, rs1, rs2, rs3]: [u8; 4], rm: u8) -> bool {
    let rm = if fpu::uses_rm(op) {
        let rm = if rm == 7 { cpu.frm } else { rm };
        if rm > 4 {
            return false;
        }
        rm
    } else {
        0
    };
    let a = if fpu::reads_xreg(op) {
        cpu.x[usize::from(rs1)]
    } else {
        cpu.f[usize::from(rs1 & 31)]
    };
    let b = cpu.f[usize::from(rs2 & 31)];
    let c = cpu.f[usize::from(rs3 & 31)];
    let v = fpu::execute(op, a, b, c, rm, &mut cpu.fflags);
    if fpu::writes_xreg(op) {
        cpu.x[usize::from(rd)] = v;
    } else {
        cpu.f[usize::from(rd & 31)] = v;
    }
    true
}

#[inline(always)]
fn div(a: i64, b: i64) -> i64 {
    if b == 0 {
        -1
    } else {
        a.wrapping_div(b)
    }
}

#[inline(always)]
fn rem(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        a.wrapping_rem(b)
    }
}

#[inline(always)]
fn div32(a: i32, b: i32) -> i32 {
    if b == 0 {
        -1
    } else {
        a.wrapping_div(b)
    }
}

#[inline(always)]
fn rem32(a: i32, b: i32) -> i32 {
    if b == 0 {
        a
    } else {
        a.wrapping_rem(b)
    }
}

/// True if `op` writes its result to the integer register `rd` (so that a write to x0 must
/// be discarded).
pub(crate) fn writes_xreg(op: Op) -> bool {
    use Op::*;
    match op {
        Beq | Bne | Blt | Bge | Bltu | Bgeu | Sb | Sh | Sw | Sd | Fence | FenceTso | FenceI
        | Ecall | Ebreak | Mret | Wfi | Illegal | Flw | Fld | Fsw | Fsd => false,
        _ if op >= Flw => fpu::writes_xreg(op),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_corner_cases_follow_the_spec() {
        assert_eq!(div(7, 0), -1);
        assert_eq!(rem(7, 0), 7);
        assert_eq!(div(i64::MIN, -1), i64::MIN);
        assert_eq!(rem(i64::MIN, -1), 0);
        assert_eq!(div32(i32::MIN, -1), i32::MIN);
        assert_eq!(rem32(i32::MIN, -1), 0);
        assert_eq!(div32(-7, 2), -3);
        assert_eq!(rem32(-7, 2), -1);
    }

    #[test]
    fn x_writers() {
        assert!(writes_xreg(Op::Add));
        assert!(writes_xreg(Op::Jal));
        assert!(writes_xreg(Op::Csrrw));
        assert!(!writes_xreg(Op::Sd));
        assert!(!writes_xreg(Op::FaddD));
        assert!(writes_xreg(Op::FeqD));
        assert!(writes_xreg(Op::FmvXW));
        assert!(!writes_xreg(Op::Flw));
    }
}

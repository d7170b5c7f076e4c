//! Architectural state of one hart: registers, floating-point CSR, machine CSRs, and the
//! LR/SC reservation.

/// Privilege environment the hart runs in; decides which CSRs exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// User mode under a Linux-like environment: only the floating-point CSRs and the
    /// read-only counters exist.
    User,
    /// Machine mode on bare metal: the machine CSRs exist too.
    Machine,
}

/// CSR numbers the emulator implements.
pub mod csr {
    #![allow(missing_docs)]
    pub const FFLAGS: u16 = 0x001;
    pub const FRM: u16 = 0x002;
    pub const FCSR: u16 = 0x003;
    pub const CYCLE: u16 = 0xc00;
    pub const TIME: u16 = 0xc01;
    pub const INSTRET: u16 = 0xc02;
    pub const MSTATUS: u16 = 0x300;
    pub const MISA: u16 = 0x301;
    pub const MEDELEG: u16 = 0x302;
    pub const MIDELEG: u16 = 0x303;
    pub const MIE: u16 = 0x304;
    pub const MTVEC: u16 = 0x305;
    pub const MCOUNTEREN: u16 = 0x306;
    pub const MSCRATCH: u16 = 0x340;
    pub const MEPC: u16 = 0x341;
    pub const MCAUSE: u16 = 0x342;
    pub const MTVAL: u16 = 0x343;
    pub const MIP: u16 = 0x344;
    pub const SATP: u16 = 0x180;
    pub const PMPCFG0: u16 = 0x3a0;
    pub const PMPADDR0: u16 = 0x3b0;
    pub const MCYCLE: u16 = 0xb00;
    pub const MINSTRET: u16 = 0xb02;
    pub const MVENDORID: u16 = 0xf11;
    pub const MARCHID: u16 = 0xf12;
    pub const MIMPID: u16 = 0xf13;
    pub const MHARTID: u16 = 0xf14;
}

/// `misa` for RV64IMAFDC with user mode: MXL=2, extensions A C D F I M U.
pub const MISA_RV64GC: u64 =
    2 << 62 | 1 << 0 | 1 << 2 | 1 << 3 | 1 << 5 | 1 << 8 | 1 << 12 | 1 << 20;

/// `mstatus` bits that software may write (MIE, MPIE, MPP, FS); the rest read as zero,
/// except SD, which mirrors FS == dirty, and UXL = 2.
const MSTATUS_WRITABLE: u64 = 1 << 3 | 1 << 7 | 3 << 11 | 3 << 13;
const MSTATUS_UXL64: u64 = 2 << 32;

/// Machine-mode CSRs (bare metal only).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MachineCsrs {
    /// mstatus (writable bits only).
    pub mstatus: u64,
    /// mtvec.
    pub mtvec: u64,
    /// mepc.
    pub mepc: u64,
    /// mcause.
    pub mcause: u64,
    /// mtval.
    pub mtval: u64,
    /// mscratch.
    pub mscratch: u64,
    /// mie.
    pub mie: u64,
    /// mip (no interrupt sources are modelled; software may write it).
    pub mip: u64,
    /// What software wrote to minstret and mcycle, as offsets from the retired-instruction
    /// count (the counters keep counting from the written value).
    pub instret_offset: u64,
    /// See `instret_offset`.
    pub cycle_offset: u64,
    /// Registers that hold what is written and have no other effect
    /// (medeleg, mideleg, mcounteren, satp, pmpcfg0, pmpaddr0).
    pub inert: [u64; 6],
}

/// The architectural state of one hart.
#[derive(Clone, Debug)]
pub struct Cpu {
    /// Integer registers. Index 0 reads as zero; writes to x0 are redirected at translation
    /// time to the scratch slot 32, so no instruction needs a special case for x0. Slots 33..
    /// exist so that `x[i]` for any `u8` register number needs no bounds check or mask.
    pub x: [u64; 256],
    /// Floating-point registers as raw 64-bit patterns (singles are NaN-boxed).
    pub f: [u64; 32],
    /// Program counter.
    pub pc: u64,
    /// Accrued exception flags (fcsr.fflags).
    pub fflags: u8,
    /// Dynamic rounding mode (fcsr.frm).
    pub frm: u8,
    /// LR reservation: address and the value LR read (SC succeeds only if memory still holds
    /// it, as in qemu).
    pub reservation: Option<(u64, u64)>,
    /// Privilege environment.
    pub mode: Mode,
    /// Machine CSRs (used in [`Mode::Machine`]).
    pub m: MachineCsrs,
}

impl Cpu {
    /// A hart with all registers zero, starting at `pc`.
    pub fn new(mode: Mode, pc: u64) -> Cpu {
        Cpu {
            x: [0; 256],
            f: [0; 32],
            pc,
            fflags: 0,
            frm: 0,
            reservation: None,
            mode,
            m: MachineCsrs::default(),
        }
    }

    /// Integer register `i` (0..32).
    #[inline(always)]
    pub fn xreg(&self, i: u8) -> u64 {
        self.x[usize::from(i & 31)]
    }

    /// Sets integer register `i`; writes to x0 are ignored.
    #[inline(always)]
    pub fn set_xreg(&mut self, i: u8, v: u64) {
        if i != 0 {
            self.x[usize::from(i & 31)] = v;
        }
    }

    /// True if floating-point instructions are disabled (machine mode with mstatus.FS = Off);
    /// they are then illegal instructions.
    #[inline(always)]
    pub fn fp_disabled(&self) -> bool {
        self.mode == Mode::Machine && self.m.mstatus & (3 << 13) == 0
    }

    /// Reads CSR `num`. `instret` is the number of instructions retired before the reading
    /// instruction (cycle and time are virtual and equal to it). `None` if the CSR does not
    /// exist in this mode.
    pub fn read_csr(&self, num: u16, instret: u64) -> Option<u64> {
        use csr::*;
        if matches!(num, FFLAGS | FRM | FCSR) && self.fp_disabled() {
            return None;
        }
        let v = match num {
            FFLAGS => u64::from(self.fflags),
            FRM => u64::from(self.frm),
            FCSR => u64::from(self.frm) << 5 | u64::from(self.fflags),
            CYCLE | MCYCLE if self.mode == Mode::Machine => {
                instret.wrapping_add(self.m.cycle_offset)
            }
            INSTRET | MINSTRET if self.mode == Mode::Machine => {
                instret.wrapping_add(self.m.instret_offset)
            }
            CYCLE | TIME | INSTRET => instret,
            _ if self.mode == Mode::User => return None,
            MSTATUS => {
                let fs_dirty = self.m.mstatus >> 13 & 3 == 3;
                self.m.mstatus | MSTATUS_UXL64 | u64::from(fs_dirty) << 63
            }
            MISA => MISA_RV64GC,
            MTVEC => self.m.mtvec,
            MEPC => self.m.mepc,
            MCAUSE => self.m.mcause,
            MTVAL => self.m.mtval,
            MSCRATCH => self.m.mscratch,
            MIE => self.m.mie,
            MIP => self.m.mip,
            MVENDORID | MARCHID | MIMPID | MHARTID => 0,
            _ => self.m.inert[inert_slot(num)?],
        };
        Some(v)
    }

    /// Writes CSR `num`; `instret` as for [`read_csr`](Self::read_csr). `None` if it does
    /// not exist or is read-only.
    pub fn write_csr(&mut self, num: u16, v: u64, instret: u64) -> Option<()> {
        use csr::*;
        if num >> 10 == 3 {
            return None; // read-only space (counters, ids)
        }
        if matches!(num, FFLAGS | FRM | FCSR) && self.fp_disabled() {
            return None;
        }
        match num {
            FFLAGS => self.fflags = (v & 0x1f) as u8,
            FRM => self.frm = (v & 7) as u8,
            FCSR => {
                self.fflags = (v & 0x1f) as u8;
                self.frm = (v >> 5 & 7) as u8;
            }
            _ if self.mode == Mode::User => return None,
            MSTATUS => self.m.mstatus = v & MSTATUS_WRITABLE,
            MISA => {}                      // WARL: the extensions cannot be changed
            MTVEC => self.m.mtvec = v & !2, // direct (0) or vectored (1) mode
            MEPC => self.m.mepc = v & !1,
            MCAUSE => self.m.mcause = v,
            MTVAL => self.m.mtval = v,
            MSCRATCH => self.m.mscratch = v,
            MIE => self.m.mie = v,
            MIP => self.m.mip = v,
            MINSTRET => self.m.instret_offset = v.wrapping_sub(instret),
            MCYCLE => self.m.cycle_offset = v.wrapping_sub(instret),
            _ => self.m.inert[inert_slot(num)?] = v,
        }
        Some(())
    }
}

fn inert_slot(num: u16) -> Option<usize> {
    use csr::*;
    Some(match num {
        MEDELEG => 0,
        MIDELEG => 1,
        MCOUNTEREN => 2,
        SATP => 3,
        PMPCFG0 => 4,
        PMPADDR0 => 5,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_mode_has_only_fp_csrs_and_counters() {
        let mut c = Cpu::new(Mode::User, 0);
        assert_eq!(c.read_csr(csr::MSTATUS, 0), None);
        assert_eq!(c.write_csr(csr::MSCRATCH, 1, 0), None);
        c.write_csr(csr::FCSR, 0xff, 0).unwrap();
        assert_eq!((c.frm, c.fflags), (7, 0x1f));
        assert_eq!(c.read_csr(csr::FCSR, 0), Some(0xff));
        assert_eq!(c.read_csr(csr::INSTRET, 42), Some(42));
        assert_eq!(c.write_csr(csr::CYCLE, 1, 0), None);
    }

    #[test]
    fn machine_csrs_hold_warl_values() {
        let mut c = Cpu::new(Mode::Machine, 0);
        c.write_csr(csr::MSTATUS, u64::MAX, 0).unwrap();
        assert_eq!(
            c.read_csr(csr::MSTATUS, 0),
            Some(MSTATUS_WRITABLE | MSTATUS_UXL64 | 1 << 63)
        );
        c.write_csr(csr::MEPC, 0x1001, 0).unwrap();
        assert_eq!(c.read_csr(csr::MEPC, 0), Some(0x1000));
        c.write_csr(csr::SATP, 5, 0).unwrap();
        assert_eq!(c.read_csr(csr::SATP, 0), Some(5));
        assert_eq!(c.read_csr(0x7c0, 0), None);
        c.write_csr(csr::MINSTRET, 1000, 10).unwrap();
        assert_eq!(c.read_csr(csr::MINSTRET, 15), Some(1005));
        assert_eq!(c.read_csr(csr::INSTRET, 15), Some(1005));
        c.write_csr(csr::MSTATUS, 0, 0).unwrap();
        assert!(c.fp_disabled());
        assert_eq!(c.read_csr(csr::FCSR, 0), None);
    }
}

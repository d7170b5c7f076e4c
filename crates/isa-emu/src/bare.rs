//! The bare-metal environment: machine-mode traps and `mret`, and the HTIF `tohost`
//! protocol that test programs use for console output and exit.
//!
//! HTIF (the Berkeley host-target interface, as in Spike and riscv-tests): the guest stores a
//! 64-bit command into the `tohost` symbol. The machine polls it at every block boundary:
//! - `value & 1 == 1` with device and command 0: exit with status `value >> 1` (riscv-tests
//!   write 1 to pass, `case << 1 | 1` to fail);
//! - device 1 (console), command 1 (putchar): the low byte is written to the console;
//! - anything else ends the run as [`Outcome::UnsupportedHtif`](crate::Outcome::UnsupportedHtif).
//!
//! A handled request is acknowledged by clearing `tohost`, which the guest may wait for.

use std::io::Write;

use crate::cpu::Cpu;
use crate::exec::Trap;
use crate::linux::Output;
use crate::memory::AccessKind;

/// Settings of the bare-metal environment.
#[derive(Clone, Debug, Default)]
pub struct BareConfig {
    /// Where HTIF console output goes.
    pub console: Output,
}

/// A request read from `tohost` that ends the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HtifRequest {
    /// Exit with this status.
    Exit(i32),
    /// A device or command this emulator does not implement.
    Unsupported(u64),
}

/// The bare-metal environment.
#[derive(Debug)]
pub struct Bare {
    config: BareConfig,
    tohost: u64,
    captured: Vec<u8>,
}

/// Exception codes of `mcause`.
mod cause {
    pub const FETCH_ACCESS: u64 = 1;
    pub const ILLEGAL: u64 = 2;
    pub const BREAKPOINT: u64 = 3;
    pub const LOAD_MISALIGNED: u64 = 4;
    pub const LOAD_ACCESS: u64 = 5;
    pub const STORE_MISALIGNED: u64 = 6;
    pub const STORE_ACCESS: u64 = 7;
    pub const ECALL_M: u64 = 11;
}

impl Bare {
    /// An environment whose `tohost` word is at `tohost`.
    pub fn new(config: BareConfig, tohost: u64) -> Bare {
        Bare {
            config,
            tohost,
            captured: Vec::new(),
        }
    }

    /// Console output, when the console is [`Output::Capture`].
    pub fn console_captured(&self) -> &[u8] {
        &self.captured
    }

    /// Serves a pending `tohost` request, if any. Returns a request that ends the run.
    pub(crate) fn poll(&mut self, mem: &mut crate::Memory) -> Option<HtifRequest> {
        let v = mem.load_u::<8>(self.tohost).ok()?;
        if v == 0 {
            return None;
        }
        let device = v >> 56;
        let command = v >> 48 & 0xff;
        match (device, command) {
            (0, 0) if v & 1 == 1 => return Some(HtifRequest::Exit((v >> 1) as i32)),
            (1, 1) => {
                let byte = [v as u8];
                match self.config.console {
                    Output::Capture => self.captured.extend_from_slice(&byte),
                    Output::Inherit => {
                        // A closed host stdout must not stop the guest.
                        let _ = std::io::stdout().write_all(&byte);
                    }
                }
            }
            _ => return Some(HtifRequest::Unsupported(v)),
        }
        let _ = mem.store_u::<8>(self.tohost, 0);
        None
    }

    /// Enters the machine-mode trap handler for `trap` raised at `pc`; returns the new pc.
    pub(crate) fn trap(cpu: &mut Cpu, trap: Trap, pc: u64) -> u64 {
        let (code, tval) = match trap {
            Trap::IllegalInstruction { bits } => (cause::ILLEGAL, u64::from(bits)),
            Trap::AccessFault(f) => match f.kind {
                AccessKind::Fetch => (cause::FETCH_ACCESS, f.addr),
                AccessKind::Load => (cause::LOAD_ACCESS, f.addr),
                AccessKind::Store => (cause::STORE_ACCESS, f.addr),
            },
            Trap::Misaligned {
                addr,
                kind: AccessKind::Load,
            } => (cause::LOAD_MISALIGNED, addr),
            Trap::Misaligned { addr, .. } => (cause::STORE_MISALIGNED, addr),
            Trap::Breakpoint => (cause::BREAKPOINT, pc),
            Trap::EnvironmentCall => (cause::ECALL_M, 0),
            // Handled by the machine; never raised as exceptions.
            Trap::MachineReturn | Trap::WaitForInterrupt | Trap::FenceI => (cause::ILLEGAL, 0),
        };
        let m = &mut cpu.m;
        m.mepc = pc;
        m.mcause = code;
        m.mtval = tval;
        // MPIE <- MIE, MIE <- 0, MPP <- M.
        let mie = m.mstatus >> 3 & 1;
        m.mstatus = (m.mstatus & !(1 << 7 | 1 << 3)) | mie << 7 | 3 << 11;
        m.mtvec & !3
    }

    /// Performs `mret`; returns the new pc. Privilege levels below M are not modelled: the
    /// hart keeps running in machine mode, with MPP set to U as the spec requires.
    pub(crate) fn mret(cpu: &mut Cpu) -> u64 {
        let m = &mut cpu.m;
        let mpie = m.mstatus >> 7 & 1;
        m.mstatus = (m.mstatus & !(1 << 3 | 3 << 11)) | mpie << 3 | 1 << 7;
        m.mepc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Mode;
    use crate::Memory;

    #[test]
    fn htif_console_and_exit() {
        let mut mem = Memory::new(0x8000_0000, 0x1000).unwrap();
        let mut bare = Bare::new(
            BareConfig {
                console: Output::Capture,
            },
            0x8000_0100,
        );
        assert_eq!(bare.poll(&mut mem), None);
        mem.store_u::<8>(0x8000_0100, 1 << 56 | 1 << 48 | u64::from(b'A'))
            .unwrap();
        assert_eq!(bare.poll(&mut mem), None);
        assert_eq!(bare.console_captured(), b"A");
        assert_eq!(
            mem.load_u::<8>(0x8000_0100).unwrap(),
            0,
            "request acknowledged"
        );
        mem.store_u::<8>(0x8000_0100, 3 << 1 | 1).unwrap();
        assert_eq!(bare.poll(&mut mem), Some(HtifRequest::Exit(3)));
        mem.store_u::<8>(0x8000_0100, 2 << 56 | 5).unwrap();
        assert!(matches!(
            bare.poll(&mut mem),
            Some(HtifRequest::Unsupported(_))
        ));
    }

    #[test]
    fn trap_and_mret_follow_the_privileged_spec() {
        let mut cpu = Cpu::new(Mode::Machine, 0);
        cpu.m.mtvec = 0x8000_0041; // vectored mode: exceptions still go to the base
        cpu.m.mstatus = 1 << 3; // MIE
        let pc = Bare::trap(
            &mut cpu,
            Trap::IllegalInstruction { bits: 0xdead },
            0x8000_0010,
        );
        assert_eq!(pc, 0x8000_0040);
        assert_eq!(
            (cpu.m.mepc, cpu.m.mcause, cpu.m.mtval),
            (0x8000_0010, 2, 0xdead)
        );
        assert_eq!(
            cpu.m.mstatus & (1 << 3 | 1 << 7 | 3 << 11),
            1 << 7 | 3 << 11
        );
        cpu.m.mepc += 4;
        assert_eq!(Bare::mret(&mut cpu), 0x8000_0014);
        assert_eq!(cpu.m.mstatus & (1 << 3 | 1 << 7 | 3 << 11), 1 << 3 | 1 << 7);
    }
}

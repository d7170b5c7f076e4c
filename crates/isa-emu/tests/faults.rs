//! Guest faults end in a structured outcome with pc and cause, never a host panic or hang.
//! The programs are built here, in memory, from hand-encoded instructions (no toolchain needed).

mod common;

use common::{tiny_elf, tiny_machine};
use isa_emu::linux::LinuxConfig;
use isa_emu::{AccessKind, Config, Fault, Machine, MemFault, Outcome, Trap};

fn run(code: &[u32], fuel: Option<u64>) -> (Outcome, u64, u64) {
    let config = Config {
        fuel,
        ..Config::default()
    };
    let (mut m, entry) = tiny_machine(code, config);
    let s = m.run(&mut ());
    (s.outcome, s.pc - entry, s.instret)
}

const LI_A0_7: u32 = 0x0070_0513; // addi a0, zero, 7
const LI_A7_93: u32 = 0x05d0_0893; // addi a7, zero, 93 (exit)
const ECALL: u32 = 0x0000_0073;
const EBREAK: u32 = 0x0010_0073;
const LD_A0_0_ZERO: u32 = 0x0000_3503; // ld a0, 0(zero)
const JR_ZERO: u32 = 0x0000_0067; // jalr zero, 0(zero)
const J_SELF: u32 = 0x0000_006f; // jal zero, 0
const LI_A0_1: u32 = 0x0010_0513; // addi a0, zero, 1
const AMOADD_W_A1_A2_A0: u32 = 0x00c5_25af; // amoadd.w a1, a2, (a0)

#[test]
fn exit_status_is_passed_through() {
    // The run ends at the exit call itself.
    assert_eq!(
        run(&[LI_A0_7, LI_A7_93, ECALL], None),
        (Outcome::Exited(7), 8, 3)
    );
}

#[test]
fn illegal_instruction_is_a_fault_with_pc_and_bits() {
    let (o, at, n) = run(&[LI_A0_7, 0xffff_ffff], None);
    assert_eq!((at, n), (4, 1));
    let Outcome::Fault(Fault {
        trap: Trap::IllegalInstruction { bits },
        ..
    }) = o
    else {
        panic!("{o:?}")
    };
    assert_eq!(bits, 0xffff_ffff);
    assert_eq!(o.exit_code(), 128 + 4, "SIGILL, as qemu reports it");
}

#[test]
fn the_all_zero_word_is_illegal() {
    let (o, at, _) = run(&[0], None);
    assert_eq!(at, 0);
    assert!(matches!(
        o,
        Outcome::Fault(Fault {
            trap: Trap::IllegalInstruction { bits: 0 },
            ..
        })
    ));
}

#[test]
fn load_from_unmapped_memory_is_an_access_fault() {
    let (o, at, n) = run(&[LI_A0_7, LD_A0_0_ZERO], None);
    assert_eq!((at, n), (4, 1));
    let expected = MemFault {
        addr: 0,
        size: 8,
        kind: AccessKind::Load,
    };
    assert!(matches!(o, Outcome::Fault(Fault { trap: Trap::AccessFault(f), .. }) if f == expected));
    assert_eq!(o.exit_code(), 128 + 11, "SIGSEGV");
}

#[test]
fn jump_to_unmapped_code_is_a_fetch_fault() {
    let (elf, _) = tiny_elf(&[JR_ZERO]);
    let linux = LinuxConfig {
        args: vec![b"t".to_vec()],
        ..LinuxConfig::default()
    };
    let mut m = Machine::linux(&elf, linux, Config::default()).unwrap();
    let s = m.run(&mut ());
    assert_eq!(s.pc, 0);
    let Outcome::Fault(f) = s.outcome else {
        panic!("{:?}", s.outcome)
    };
    assert!(matches!(
        f.trap,
        Trap::AccessFault(MemFault {
            kind: AccessKind::Fetch,
            ..
        })
    ));
    assert!(f.to_string().contains("instruction fetch"), "{f}");
}

#[test]
fn ebreak_is_a_breakpoint_fault() {
    let (o, _, _) = run(&[EBREAK], None);
    assert!(matches!(
        o,
        Outcome::Fault(Fault {
            trap: Trap::Breakpoint,
            ..
        })
    ));
}

#[test]
fn misaligned_atomic_is_a_fault() {
    let (o, at, _) = run(&[LI_A0_1, AMOADD_W_A1_A2_A0], None);
    assert_eq!(at, 4);
    assert!(matches!(
        o,
        Outcome::Fault(Fault {
            trap: Trap::Misaligned { addr: 1, .. },
            ..
        })
    ));
}

#[test]
fn an_infinite_loop_stops_exactly_at_the_fuel_limit() {
    for fuel in [0, 1, 2, 1000, 12_345] {
        let (o, at, n) = run(&[LI_A0_7, J_SELF], Some(fuel));
        assert_eq!(o, Outcome::FuelExhausted);
        assert_eq!(n, fuel);
        assert_eq!(at, if fuel == 0 { 0 } else { 4 });
    }
}

//! Guest faults end in a structured outcome with pc and cause, never a host panic or hang.
//! The programs are built here, in memory, from hand-encoded instructions (no toolchain needed).

use isa_emu::linux::{LinuxConfig, Output};
use isa_emu::{AccessKind, Config, Fault, Machine, MemFault, Outcome, Trap};
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, Writer};

const BASE: u64 = 0x10000;

/// A static RISC-V ELF executable whose only segment holds `code`, entered at its first word.
/// Returns the ELF and the entry address.
fn tiny_elf(code: &[u32]) -> (Vec<u8>, u64) {
    let mut buf = Vec::new();
    let mut w = Writer::new(object::Endianness::Little, true, &mut buf);
    w.reserve_file_header();
    w.reserve_program_headers(1);
    let bytes: Vec<u8> = code.iter().flat_map(|i| i.to_le_bytes()).collect();
    let off = w.reserve(bytes.len(), 4) as u64;
    let total = off + bytes.len() as u64;
    let entry = BASE + off;
    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_SYSV,
        abi_version: 0,
        e_type: elf::ET_EXEC,
        e_machine: elf::EM_RISCV,
        e_entry: entry,
        e_flags: elf::EF_RISCV_RVC | elf::EF_RISCV_FLOAT_ABI_DOUBLE,
    })
    .unwrap();
    w.write_align_program_headers();
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_LOAD,
        p_flags: elf::PF_R | elf::PF_X,
        p_offset: 0,
        p_vaddr: BASE,
        p_paddr: BASE,
        p_filesz: total,
        p_memsz: total,
        p_align: 0x1000,
    });
    w.write_align(4);
    w.write(&bytes);
    (buf, entry)
}

fn run(code: &[u32], fuel: Option<u64>) -> (Outcome, u64, u64) {
    let (elf, entry) = tiny_elf(code);
    let linux = LinuxConfig {
        args: vec![b"tiny".to_vec()],
        stdout: Output::Capture,
        stderr: Output::Capture,
        ..LinuxConfig::default()
    };
    let config = Config {
        fuel,
        memory: 64 << 20,
        ..Config::default()
    };
    let mut m = Machine::linux(&elf, linux, config).expect("tiny ELF loads");
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

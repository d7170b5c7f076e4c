//! Helpers shared by the isa-emu integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use isa_emu::linux::{LinuxConfig, Output};
use isa_emu::{Config, Machine};
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, Writer};

/// The committed tiny executable (see tests/data/tiny.S).
pub const TINY: &[u8] = include_bytes!("../data/tiny.elf");

/// Byte offsets of ELF64 header fields (ELF specification, "ELF Header").
pub const E_TYPE: usize = 16;
pub const E_MACHINE: usize = 18;
pub const E_ENTRY: usize = 24;
pub const E_PHOFF: usize = 32;
/// Size of one ELF64 program header and offsets of its fields.
pub const PHENT: usize = 56;
pub const P_TYPE: usize = 0;
pub const P_VADDR: usize = 16;
pub const P_FILESZ: usize = 32;
pub const P_MEMSZ: usize = 40;

/// tiny.elf's program headers, in file order (riscv64-unknown-elf-readelf -l).
pub const PH_PHDR: usize = 0;
pub const PH_TEXT: usize = 1;
pub const PH_DATA: usize = 2;
pub const PH_NOTE: usize = 3;

pub fn put_u16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}
pub fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
pub fn put_u64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}
pub fn get_u64(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

/// File offset of program header `i`.
pub fn phdr(b: &[u8], i: usize) -> usize {
    get_u64(b, E_PHOFF) as usize + i * PHENT
}

/// tiny.elf with `f` applied.
pub fn tiny_with(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = TINY.to_vec();
    f(&mut b);
    b
}

/// A fresh empty directory under the host's temp dir.
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("isa-emu-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// True if `tool` can be run from PATH.
pub fn have(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

pub const BASE: u64 = 0x10000;

/// A static RISC-V ELF executable whose only segment holds `code`, entered at its first word.
/// Returns the ELF and the entry address.
pub fn tiny_elf(code: &[u32]) -> (Vec<u8>, u64) {
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

/// A Linux machine running `code` (see [`tiny_elf`]) with its output captured and a 64 MiB
/// memory cap (`config`'s own cap is replaced). Returns it and the entry address.
pub fn tiny_machine(code: &[u32], config: Config) -> (Machine, u64) {
    let (elf, entry) = tiny_elf(code);
    let linux = LinuxConfig {
        args: vec![b"tiny".to_vec()],
        stdout: Output::Capture,
        stderr: Output::Capture,
        ..LinuxConfig::default()
    };
    let config = Config {
        memory: 64 << 20,
        ..config
    };
    let m = Machine::linux(&elf, linux, config).expect("tiny ELF loads");
    (m, entry)
}

/// An I-type instruction (`op`, `f3`, `rd`, `rs1`, a 12-bit immediate).
pub fn i_type(op: u32, f3: u32, rd: u32, rs1: u32, imm: i32) -> u32 {
    ((imm as u32 & 0xfff) << 20) | rs1 << 15 | f3 << 12 | rd << 7 | op
}

/// An S-type store (`f3` picks the width) of `rs2` at `imm(rs1)`.
pub fn s_type(f3: u32, rs1: u32, rs2: u32, imm: i32) -> u32 {
    let i = imm as u32 & 0xfff;
    (i >> 5) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (i & 0x1f) << 7 | 0x23
}

/// A conditional branch (`f3` picks the condition) by `off` bytes.
pub fn branch(f3: u32, rs1: u32, rs2: u32, off: i32) -> u32 {
    let o = off as u32;
    (o >> 12 & 1) << 31
        | (o >> 5 & 0x3f) << 25
        | rs2 << 20
        | rs1 << 15
        | f3 << 12
        | (o >> 1 & 0xf) << 8
        | (o >> 11 & 1) << 7
        | 0x63
}

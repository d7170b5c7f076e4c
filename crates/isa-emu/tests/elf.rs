//! ELF loader tests: the committed tiny executable against values read by binutils'
//! readelf, every rejection derived from it by patching header fields, and (when the
//! cross toolchain is installed) real glibc executables against readelf and nm.

mod common;

use common::*;
use isa_emu::elf::{ElfError, ElfImage};
use isa_emu::Memory;

// Values below are from `riscv64-unknown-elf-readelf -lhs tests/data/tiny.elf`.
const ENTRY: u64 = 0x10120;
const TEXT: (u64, u64) = (0x10000, 0x165);
const DATA: (u64, u64, u64) = (0x11168, 0x18, 0x1018); // vaddr, filesz, memsz

#[test]
fn tiny_parses_as_readelf_reports() {
    let img = ElfImage::parse(TINY).unwrap();
    assert_eq!(img.entry, ENTRY);
    assert_eq!(img.segments.len(), 2);
    let (t, d) = (&img.segments[0], &img.segments[1]);
    assert_eq!(
        (t.vaddr, t.mem_size, t.data.len() as u64),
        (TEXT.0, TEXT.1, TEXT.1)
    );
    assert!(t.read && t.exec && !t.write);
    assert_eq!((d.vaddr, d.data.len() as u64, d.mem_size), DATA);
    assert!(d.read && d.write && !d.exec);
    assert_eq!(&t.data[..], &TINY[..TEXT.1 as usize]);
    assert_eq!(&d.data[..6], b"hello\n");
    assert_eq!((img.phdr_addr, img.phent, img.phnum), (0x10040, 56, 4));
    assert_eq!((img.tohost, img.fromhost), (Some(0x11170), Some(0x11178)));
    assert_eq!(img.lowest_addr(), 0x10000);
    assert_eq!(img.highest_addr(), DATA.0 + DATA.2);
    assert_eq!(
        img.exec_ranges().collect::<Vec<_>>(),
        vec![(0x10000, 0x10165)]
    );
    let names: Vec<(&str, u64, u64, bool)> = img
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.addr, s.size, s.is_function))
        .collect();
    assert_eq!(
        names,
        vec![
            ("_start", 0x10120, 32, true),
            ("helper", 0x10140, 4, true),
            ("interp", 0x10144, 33, false),
            ("msg", 0x11168, 6, false),
            ("tohost", 0x11170, 8, false),
            ("fromhost", 0x11178, 8, false),
            ("scratch", 0x11180, 4096, false),
        ]
    );
}

#[test]
fn symbolize_finds_the_containing_function() {
    let img = ElfImage::parse(TINY).unwrap();
    assert_eq!(img.symbolize(0x10120), Some(("_start", 0)));
    assert_eq!(img.symbolize(0x1013e), Some(("_start", 0x1e)));
    assert_eq!(img.symbolize(0x10140), Some(("helper", 0)));
    assert_eq!(img.symbolize(0x10143), Some(("helper", 3)));
    assert_eq!(img.symbolize(0x10144), None); // rodata, past helper's 4 bytes
    assert_eq!(img.symbolize(0x1011f), None); // before any function
    assert_eq!(img.symbolize(u64::MAX), None);
}

#[test]
fn load_copies_data_zeroes_bss_and_marks_code() {
    let img = ElfImage::parse(TINY).unwrap();
    let mut mem = Memory::new(0x10000, 0x4000).unwrap();
    mem.write_bytes(0x10000, &[0xee; 0x4000]).unwrap();
    img.load_into(&mut mem).unwrap();
    assert_eq!(mem.slice(0x10000, 0x165).unwrap(), &TINY[..0x165]);
    assert_eq!(mem.slice(DATA.0, 6).unwrap(), b"hello\n");
    let bss = mem.slice(DATA.0 + DATA.1, DATA.2 - DATA.1).unwrap();
    assert!(bss.iter().all(|&b| b == 0));
    // Bytes outside the segments are left alone.
    assert_eq!(mem.load_u::<1>(0x10165).unwrap(), 0xee);
    mem.take_code_written();
    mem.store_u::<4>(ENTRY, 0).unwrap();
    assert!(mem.take_code_written());

    let mut small = Memory::new(0x10000, 0x1000).unwrap();
    let err = img.load_into(&mut small).unwrap_err();
    assert!(
        matches!(err, ElfError::DoesNotFit { lo: 0x11168, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("raise the memory size"));
}

/// Parses `bytes`, expecting an error whose message contains `hint`.
fn reject(bytes: &[u8], hint: &str) -> ElfError {
    let err = ElfImage::parse(bytes).expect_err("must be rejected");
    let msg = err.to_string();
    assert!(msg.contains(hint), "message {msg:?} lacks {hint:?}");
    err
}

#[test]
fn rejects_files_that_are_not_elf() {
    let e = reject(b"#!/bin/sh\necho hi\n", "not an ELF file");
    assert!(matches!(e, ElfError::NotElf { .. }));
    assert!(e.to_string().contains("23 21 2f 62"), "{e}");
    assert!(matches!(reject(b"", "not an ELF"), ElfError::NotElf { .. }));
}

#[test]
fn rejects_truncated_and_corrupt_files() {
    for (len, hint) in [
        (10, "ELF identification"),
        (40, "ELF header"),
        (0x100, "program headers"),
        (0x160, "PT_LOAD"),
    ] {
        let e = reject(&TINY[..len], hint);
        assert!(matches!(e, ElfError::Corrupt { .. }), "{len}: {e}");
        assert!(e.to_string().contains("truncated or corrupt"));
    }
    let bad_phoff = tiny_with(|b| put_u64(b, E_PHOFF, 0x10_0000));
    assert!(matches!(
        reject(&bad_phoff, "program headers"),
        ElfError::Corrupt { .. }
    ));
    let bad_seg = tiny_with(|b| {
        let p = phdr(b, PH_DATA);
        put_u64(b, p + 8, 0xffff_ffff_0000) // p_offset
    });
    assert!(matches!(
        reject(&bad_seg, "outside the"),
        ElfError::Corrupt { .. }
    ));
}

#[test]
fn rejects_wrong_class_byte_order_and_machine() {
    let e32 = tiny_with(|b| b[4] = 1); // EI_CLASS = ELFCLASS32
    assert!(matches!(reject(&e32, "32-bit"), ElfError::Elf32));
    let be = tiny_with(|b| b[5] = 2); // EI_DATA = ELFDATA2MSB
    assert!(matches!(reject(&be, "big-endian"), ElfError::BigEndian));
    let x86 = tiny_with(|b| put_u16(b, E_MACHINE, 62));
    let e = reject(&x86, "x86-64");
    assert!(matches!(e, ElfError::NotRiscv { code: 62, .. }));
    let arm = tiny_with(|b| put_u16(b, E_MACHINE, 183));
    reject(&arm, "AArch64");
    let odd = tiny_with(|b| put_u16(b, E_MACHINE, 0x7777));
    reject(&odd, "e_machine 30583");
}

#[test]
fn rejects_dynamic_pie_and_non_executables() {
    let dynamic = tiny_with(|b| {
        let p = phdr(b, PH_NOTE);
        put_u32(b, p + P_TYPE, 3) // PT_NOTE -> PT_INTERP
    });
    let e = reject(&dynamic, "link it with -static");
    match e {
        ElfError::Dynamic { interpreter } => {
            assert_eq!(interpreter, "/lib/ld-linux-riscv64-lp64d.so.1")
        }
        other => panic!("{other}"),
    }
    let pie = tiny_with(|b| put_u16(b, E_TYPE, 3)); // ET_DYN
    assert!(matches!(reject(&pie, "-no-pie"), ElfError::StaticPie));
    let rel = tiny_with(|b| put_u16(b, E_TYPE, 1)); // ET_REL
    assert!(matches!(
        reject(&rel, "relocatable object"),
        ElfError::NotExecutable { .. }
    ));
    let core = tiny_with(|b| put_u16(b, E_TYPE, 4)); // ET_CORE
    assert!(matches!(
        reject(&core, "core dump"),
        ElfError::NotExecutable { .. }
    ));
}

#[test]
fn rejects_bad_segment_layouts() {
    let none = tiny_with(|b| {
        for i in [PH_TEXT, PH_DATA] {
            let p = phdr(b, i);
            put_u32(b, p + P_TYPE, 0); // PT_NULL
        }
    });
    assert!(matches!(
        reject(&none, "no loadable"),
        ElfError::NoLoadableSegment
    ));
    let overlap = tiny_with(|b| {
        let p = phdr(b, PH_DATA);
        put_u64(b, p + P_VADDR, 0x10100)
    });
    let e = reject(&overlap, "overlap");
    assert!(matches!(
        e,
        ElfError::OverlappingSegments {
            first_lo: 0x10000,
            first_hi: 0x10165,
            second_lo: 0x10100,
            ..
        }
    ));
    let wrap = tiny_with(|b| {
        let p = phdr(b, PH_DATA);
        put_u64(b, p + P_VADDR, u64::MAX - 0x10)
    });
    assert!(matches!(
        reject(&wrap, "64-bit address space"),
        ElfError::SegmentOutOfRange { .. }
    ));
    let fat = tiny_with(|b| {
        let p = phdr(b, PH_DATA);
        put_u64(b, p + P_MEMSZ, 0x10) // below p_filesz 0x18
    });
    assert!(matches!(
        reject(&fat, "file size 0x18"),
        ElfError::FileSizeExceedsMemSize { .. }
    ));
    let entry = tiny_with(|b| put_u64(b, E_ENTRY, DATA.0));
    assert!(matches!(
        reject(&entry, "not inside an executable segment"),
        ElfError::EntryNotExecutable { entry: 0x11168 }
    ));
    // A zero-sized PT_LOAD is ignored rather than rejected (Linux maps nothing for it).
    let empty = tiny_with(|b| {
        let p = phdr(b, PH_DATA);
        put_u64(b, p + P_FILESZ, 0);
        put_u64(b, p + P_MEMSZ, 0)
    });
    assert_eq!(ElfImage::parse(&empty).unwrap().segments.len(), 1);
}

/// Runs a host tool and returns its stdout.
fn run(tool: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(tool)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{tool} {args:?} failed");
    String::from_utf8(out.stdout).unwrap()
}

/// A static glibc executable, checked against readelf/nm. Needs the riscv64 cross
/// toolchain; without it the test says so and checks nothing.
#[test]
fn glibc_static_executable_matches_binutils() {
    if !have("riscv64-linux-gnu-gcc") || !have("riscv64-unknown-elf-readelf") {
        eprintln!("SKIPPED: riscv64-linux-gnu-gcc / readelf not installed");
        return;
    }
    let dir = temp_dir("glibc");
    let src = dir.join("hello.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nint main(void){puts(\"hi\");return 0;}\n",
    )
    .unwrap();
    let exe = dir.join("hello");
    let (src_s, exe_s) = (src.to_str().unwrap(), exe.to_str().unwrap());
    run(
        "riscv64-linux-gnu-gcc",
        &["-O2", "-static", "-o", exe_s, src_s],
    );
    let bytes = std::fs::read(&exe).unwrap();
    let img = ElfImage::parse(&bytes).unwrap();

    let header = run("riscv64-unknown-elf-readelf", &["-hW", exe_s]);
    let field = |name: &str| -> String {
        let line = header
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        line.split(':')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(format!("{:#x}", img.entry), field("Entry point address"));
    assert_eq!(img.phnum.to_string(), field("Number of program headers"));
    let loads = run("riscv64-unknown-elf-readelf", &["-lW", exe_s]);
    let n_loads = loads
        .lines()
        .filter(|l| l.trim_start().starts_with("LOAD"))
        .count();
    assert_eq!(img.segments.len(), n_loads);

    // Every function symbol nm lists symbolizes to itself at offset 0 (or to an alias at
    // the same address).
    let nm = run("riscv64-unknown-elf-nm", &["--defined-only", exe_s]);
    let mut checked = 0;
    for line in nm.lines() {
        let mut it = line.split_whitespace();
        let (Some(addr), Some(kind), Some(name)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if !matches!(kind, "T" | "t") || name.starts_with('$') {
            continue;
        }
        let addr = u64::from_str_radix(addr, 16).unwrap();
        let (found, off) = img
            .symbolize(addr)
            .unwrap_or_else(|| panic!("{name} at {addr:#x}"));
        assert_eq!(off, 0, "{name}");
        let same = img
            .symbols
            .iter()
            .any(|s| s.name == found && s.addr == addr);
        assert!(same, "{name} symbolized as {found}");
        checked += 1;
    }
    assert!(checked > 500, "only {checked} functions");
    let main = img.symbols.iter().find(|s| s.name == "main").unwrap();
    assert_eq!(img.symbolize(main.addr + 2), Some(("main", 2)));

    // The same program linked dynamically is refused with the interpreter named.
    let dyn_exe = dir.join("hello-dyn");
    run(
        "riscv64-linux-gnu-gcc",
        &["-O2", "-o", dyn_exe.to_str().unwrap(), src_s],
    );
    let e = ElfImage::parse(&std::fs::read(&dyn_exe).unwrap()).unwrap_err();
    assert!(matches!(e, ElfError::Dynamic { .. }), "{e}");
    assert!(e.to_string().contains("ld-linux-riscv64"), "{e}");
    eprintln!("checked {checked} function symbols against nm");
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest::proptest! {
    /// Any corruption of a valid file is either parsed or rejected, never a panic, and a
    /// parsed image loads or reports that it does not fit.
    #[test]
    fn mutated_files_never_panic(
        edits in proptest::collection::vec((0usize..1408, proptest::prelude::any::<u8>()), 1..8),
        cut in 0usize..1500,
    ) {
        let mut b = TINY.to_vec();
        for (at, v) in edits {
            if let Some(x) = b.get_mut(at) {
                *x = v;
            }
        }
        b.truncate(cut.max(1));
        if let Ok(img) = ElfImage::parse(&b) {
            let mut mem = Memory::new(0x10000, 0x4000).unwrap();
            let _ = img.load_into(&mut mem);
            let _ = img.symbolize(img.entry);
        }
    }
}

/// The file's own code view (what an analysis can own while the machine runs) shows every
/// instruction of every executable segment as the loaded machine's view does: decoding,
/// disassembly and symbols; past the loaded range it shows nothing.
#[test]
fn the_images_code_view_is_the_loaded_machines() {
    use isa_emu::linux::LinuxConfig;
    use isa_emu::{Config, Machine};
    use prof_events::CodeView;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../guests/bin/crc.elf");
    let elf = std::fs::read(path).expect("committed guest");
    let m = Machine::linux(&elf, LinuxConfig::default(), Config::default()).expect("loads");
    let img = m.image().clone();
    let mut insns = 0;
    for (lo, hi) in img.exec_ranges().collect::<Vec<_>>() {
        for pc in (lo..hi).step_by(2) {
            assert_eq!(img.insn(pc), m.insn(pc), "{pc:#x}");
            assert_eq!(img.symbol(pc), m.symbol(pc), "{pc:#x}");
            if pc % 64 == 0 {
                assert_eq!(img.text(pc), m.text(pc), "{pc:#x}");
            }
            insns += usize::from(img.insn(pc).is_some());
        }
    }
    assert!(insns > 10_000, "{insns}");
    assert_eq!(img.functions(), m.functions());
    assert_eq!(img.insn(img.highest_addr()), None);
    assert_eq!(img.insn(img.lowest_addr().wrapping_sub(4)), None);
}

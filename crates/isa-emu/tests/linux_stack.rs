//! The initial process stack and address space, read back from guest memory the way
//! glibc's `_start` and `__libc_start_main` read them (argc at sp, argv, envp after
//! argv's NULL, auxv after envp's NULL), with the kernel's layout (fs/binfmt_elf.c,
//! `create_elf_tables`).

mod common;

use common::*;
use isa_emu::elf::ElfImage;
use isa_emu::linux::{Linux, LinuxConfig, LinuxError, Output};
use isa_emu::Memory;

const MEM: u64 = 64 << 20;
const AT_NULL: u64 = 0;
const AT_PHDR: u64 = 3;
const AT_RANDOM: u64 = 25;
const AT_EXECFN: u64 = 31;

fn config(args: &[&str], env: &[&str], seed: u64) -> LinuxConfig {
    LinuxConfig {
        args: args.iter().map(|s| s.as_bytes().to_vec()).collect(),
        env: env.iter().map(|s| s.as_bytes().to_vec()).collect(),
        stdout: Output::Capture,
        stderr: Output::Capture,
        seed,
        ..LinuxConfig::default()
    }
}

/// Loads tiny.elf into a 64 MiB span and sets up the process; returns (memory, sp, env).
fn boot(cfg: LinuxConfig) -> (Memory, u64, Linux) {
    let img = ElfImage::parse(TINY).unwrap();
    let mut mem = Memory::new(img.lowest_addr() & !0xfff, MEM).unwrap();
    img.load_into(&mut mem).unwrap();
    let mut linux = Linux::new(cfg);
    let sp = linux.setup(&mut mem, &img).unwrap();
    (mem, sp, linux)
}

struct Parsed {
    argc: u64,
    argv: Vec<(u64, Vec<u8>)>,
    envp: Vec<(u64, Vec<u8>)>,
    auxv: Vec<(u64, u64)>,
    end: u64,
}

fn parse_stack(mem: &Memory, sp: u64) -> Parsed {
    let word = |a: u64| mem.load_u::<8>(a).unwrap();
    let string = |a: u64| mem.read_cstr(a, 1 << 16).unwrap().to_vec();
    let argc = word(sp);
    let mut at = sp + 8;
    let list = |at: &mut u64| {
        let mut v = Vec::new();
        loop {
            let p = word(*at);
            *at += 8;
            if p == 0 {
                return v;
            }
            v.push((p, string(p)));
        }
    };
    let argv = list(&mut at);
    let envp = list(&mut at);
    let mut auxv = Vec::new();
    loop {
        let (k, v) = (word(at), word(at + 8));
        at += 16;
        auxv.push((k, v));
        if k == AT_NULL {
            break;
        }
    }
    Parsed {
        argc,
        argv,
        envp,
        auxv,
        end: at,
    }
}

#[test]
fn stack_holds_argc_argv_envp_and_auxv_in_kernel_order() {
    let (mem, sp, _) = boot(config(&["prog", "a1", ""], &["A=1", "LONGER=xyz"], 7));
    let top = mem.end();
    assert_eq!(sp % 16, 0);
    assert!(sp < top && sp > top - (8 << 20));
    let p = parse_stack(&mem, sp);
    assert_eq!(p.argc, 3);
    let strs = |v: &[(u64, Vec<u8>)]| v.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>();
    assert_eq!(
        strs(&p.argv),
        vec![b"prog".to_vec(), b"a1".to_vec(), b"".to_vec()]
    );
    assert_eq!(strs(&p.envp), vec![b"A=1".to_vec(), b"LONGER=xyz".to_vec()]);

    let keys: Vec<u64> = p.auxv.iter().map(|&(k, _)| k).collect();
    // AT_HWCAP, AT_PAGESZ, AT_CLKTCK, AT_PHDR, AT_PHENT, AT_PHNUM, AT_BASE, AT_FLAGS,
    // AT_ENTRY, AT_UID, AT_EUID, AT_GID, AT_EGID, AT_SECURE, AT_RANDOM, AT_EXECFN, AT_NULL
    assert_eq!(
        keys,
        vec![16, 6, 17, 3, 4, 5, 7, 8, 9, 11, 12, 13, 14, 23, 25, 31, 0]
    );
    let aux = |k: u64| p.auxv.iter().find(|a| a.0 == k).unwrap().1;
    assert_eq!(aux(16), 0x112d); // I M A F D C
    assert_eq!(aux(6), 4096);
    assert_eq!(aux(17), 100);
    assert_eq!((aux(AT_PHDR), aux(4), aux(5)), (0x10040, 56, 4));
    assert_eq!((aux(7), aux(8), aux(23)), (0, 0, 0));
    assert_eq!(aux(9), 0x10120);
    assert_eq!(
        (aux(11), aux(12), aux(13), aux(14)),
        (1000, 1000, 1000, 1000)
    );

    // AT_PHDR points at the program headers as loaded: the same bytes as in the file,
    // first of them the PT_PHDR header (type 6) that glibc uses to find its load bias.
    let phoff = get_u64(TINY, E_PHOFF) as usize;
    assert_eq!(
        mem.slice(aux(AT_PHDR), 4 * 56).unwrap(),
        &TINY[phoff..phoff + 4 * 56]
    );
    assert_eq!(mem.load_u::<4>(aux(AT_PHDR)).unwrap(), 6);

    // Strings: argv then envp, contiguous and ascending, then execfn, then 8 zero bytes
    // at the very top; AT_RANDOM's 16 bytes sit below the (16-aligned) strings, above the
    // tables.
    let mut expect = p.argv[0].0;
    for (addr, s) in p.argv.iter().chain(&p.envp) {
        assert_eq!(*addr, expect);
        expect += s.len() as u64 + 1;
    }
    assert_eq!(aux(AT_EXECFN), expect);
    assert_eq!(mem.read_cstr(expect, 64).unwrap(), b"prog");
    assert_eq!(expect + 5, top - 8);
    assert_eq!(mem.load_u::<8>(top - 8).unwrap(), 0);
    let random = aux(AT_RANDOM);
    assert_eq!(random, (p.argv[0].0 & !15) - 16);
    assert!(p.end <= random && random - p.end < 16);
    assert!(mem.slice(random, 16).unwrap().iter().any(|&b| b != 0));
}

#[test]
fn empty_argv_and_env_still_give_a_valid_stack() {
    let (mem, sp, _) = boot(config(&[], &[], 0));
    let p = parse_stack(&mem, sp);
    assert_eq!((p.argc, p.argv.len(), p.envp.len()), (0, 0, 0));
    let execfn = p.auxv.iter().find(|a| a.0 == AT_EXECFN).unwrap().1;
    assert_eq!(mem.read_cstr(execfn, 8).unwrap(), b"");
}

#[test]
fn setup_is_deterministic_per_seed() {
    let a = boot(config(&["p"], &["X=1"], 42));
    let b = boot(config(&["p"], &["X=1"], 42));
    let c = boot(config(&["p"], &["X=1"], 43));
    assert_eq!(a.1, b.1);
    let top = a.0.end();
    let span = |m: &Memory| m.slice(a.1, top - a.1).unwrap().to_vec();
    assert_eq!(span(&a.0), span(&b.0));
    let rand_of = |m: &Memory, sp| {
        let r = parse_stack(m, sp)
            .auxv
            .iter()
            .find(|x| x.0 == AT_RANDOM)
            .unwrap()
            .1;
        m.slice(r, 16).unwrap().to_vec()
    };
    assert_ne!(rand_of(&a.0, a.1), rand_of(&c.0, c.1));
}

#[test]
fn program_break_starts_on_the_page_after_bss() {
    let (_, _, linux) = boot(config(&["p"], &[], 0));
    // tiny.elf's bss ends at 0x12180 (readelf: 0x11168 + 0x1018).
    assert_eq!(linux.program_break(), 0x13000);
}

#[test]
fn setup_refuses_what_does_not_fit() {
    let img = ElfImage::parse(TINY).unwrap();
    let mut small = Memory::new(0x10000, 0x10_0000).unwrap();
    img.load_into(&mut small).unwrap();
    let mut linux = Linux::new(config(&["p"], &[], 0));
    let e = linux.setup(&mut small, &img).unwrap_err();
    assert!(matches!(e, LinuxError::NoRoom { .. }), "{e}");
    assert!(e.to_string().contains("raise the memory size"));

    let mut cfg = config(&["p"], &[], 0);
    cfg.stack_size = 0x8000;
    cfg.args.push(vec![b'x'; 0x2000]);
    let mut mem = Memory::new(0x10000, MEM).unwrap();
    img.load_into(&mut mem).unwrap();
    let e = Linux::new(cfg).setup(&mut mem, &img).unwrap_err();
    assert!(matches!(e, LinuxError::ArgsTooLarge { .. }), "{e}");
}

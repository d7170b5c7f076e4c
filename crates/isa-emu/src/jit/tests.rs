//! Compiled code against the threaded interpreter, on random superblocks: the same next pc
//! or early exit, registers, memory and trap.

use std::cell::Cell;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::block::{BlockCache, NONE};
use crate::cpu::{Cpu, Mode};
use crate::exec::Trap;
use crate::machine::{run_compiled, run_threaded, Entry};
use crate::memory::Memory;

/// Where the code sits, and the span of guest memory (code, then data).
const CODE: u64 = 0x1_2000;
const BASE: u64 = 0x1_0000;
const SIZE: u64 = 0x1_0000;

fn r(f7: u32, rs2: u32, rs1: u32, f3: u32, rd: u32, op: u32) -> u32 {
    f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}

fn i(imm: u32, rs1: u32, f3: u32, rd: u32, op: u32) -> u32 {
    (imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}

/// A floating-point instruction: a load or store (compiled), a computation or an access
/// of a floating-point CSR (a call of the interpreter's code), reading and writing `f` or
/// `x` registers, with every
/// rounding mode: the five, the dynamic one (the hart's `frm`, which may be reserved) and
/// a reserved one (an illegal instruction, left to the interpreter).
fn fp_insn() -> impl Strategy<Value = u32> {
    let reg = || 0u32..32;
    let offset = || prop_oneof![any::<u32>(), (0u32..16).prop_map(|k| k.wrapping_sub(8))];
    // flw, fld; fsw, fsd.
    let load = (2u32..4, offset(), reg(), reg()).prop_map(|(f3, imm, a, d)| i(imm, a, f3, d, 0x07));
    let store = (2u32..4, offset(), reg(), reg()).prop_map(|(f3, imm, a, b)| {
        (imm >> 5 & 0x7f) << 25 | b << 20 | a << 15 | f3 << 12 | (imm & 0x1f) << 7 | 0x27
    });
    let rm = || prop::sample::select(&[0u32, 1, 2, 3, 4, 7, 7, 7, 5][..]);
    // (funct7, rs2 if fixed, funct3 if fixed): OP-FP computations of both formats.
    let op_fp = (
        prop::sample::select(
            &[
                (0x01, None, None),       // fadd.d
                (0x05, None, None),       // fsub.d
                (0x09, None, None),       // fmul.d
                (0x0d, None, None),       // fdiv.d
                (0x2d, Some(0), None),    // fsqrt.d
                (0x11, None, Some(0)),    // fsgnj.d
                (0x11, None, Some(1)),    // fsgnjn.d
                (0x11, None, Some(2)),    // fsgnjx.d
                (0x15, None, Some(0)),    // fmin.d
                (0x15, None, Some(1)),    // fmax.d
                (0x20, Some(1), None),    // fcvt.s.d
                (0x21, Some(0), None),    // fcvt.d.s
                (0x51, None, Some(2)),    // feq.d
                (0x51, None, Some(1)),    // flt.d
                (0x51, None, Some(0)),    // fle.d
                (0x71, Some(0), Some(1)), // fclass.d
                (0x71, Some(0), Some(0)), // fmv.x.d
                (0x61, Some(0), None),    // fcvt.w.d
                (0x61, Some(3), None),    // fcvt.lu.d
                (0x69, Some(0), None),    // fcvt.d.w
                (0x69, Some(2), None),    // fcvt.d.l
                (0x79, Some(0), Some(0)), // fmv.d.x
                (0x00, None, None),       // fadd.s
                (0x08, None, None),       // fmul.s
                (0x0c, None, None),       // fdiv.s
                (0x2c, Some(0), None),    // fsqrt.s
                (0x50, None, Some(1)),    // flt.s
                (0x70, Some(0), Some(0)), // fmv.x.w
                (0x78, Some(0), Some(0)), // fmv.w.x
                (0x60, Some(1), None),    // fcvt.wu.s
                (0x68, Some(2), None),    // fcvt.s.l
            ][..],
        ),
        reg(),
        reg(),
        reg(),
        rm(),
    )
        .prop_map(|((f7, rs2, f3), a, b, d, rm)| {
            r(f7, rs2.unwrap_or(b), a, f3.unwrap_or(rm), d, 0x53)
        });
    // fmadd, fmsub, fnmsub, fnmadd of either format.
    let fma = (0u32..4, 0u32..2, reg(), reg(), reg(), reg(), rm()).prop_map(
        |(k, fmt, a, b, c, d, rm)| {
            c << 27 | fmt << 25 | b << 20 | a << 15 | rm << 12 | d << 7 | (0x43 + 4 * k)
        },
    );
    // Accesses of fflags, frm and fcsr (compiled), and of cycle (a bail-out), by register
    // or immediate, reading only (rs1 = 0) or writing (any value, reserved modes too).
    let csr = (
        prop::sample::select(&[1u32, 2, 3, 0xc00][..]),
        1u32..8,
        reg(),
        reg(),
    )
        .prop_map(|(num, f3, a, d)| {
            let f3 = if f3 == 4 { 2 } else { f3 };
            i(num, a, f3, d, 0x73)
        });
    prop_oneof![2 => load, 2 => store, 4 => op_fp, 2 => fma, 2 => csr]
}

/// An instruction the compiler handles, or now and then one it bails out on (`mulhsu`,
/// `lr.w`, `amomin`, `ecall`).
fn insn() -> impl Strategy<Value = u32> {
    let reg = || 0u32..32;
    let rtype = (
        prop::sample::select(
            &[
                (0x00, 0, 0x33),
                (0x20, 0, 0x33),
                (0, 1, 0x33),
                (0, 2, 0x33),
                (0, 3, 0x33),
                (0, 4, 0x33),
                (0, 5, 0x33),
                (0x20, 5, 0x33),
                (0, 6, 0x33),
                (0, 7, 0x33),
                (1, 0, 0x33),
                (1, 1, 0x33),
                (1, 3, 0x33),
                (0, 0, 0x3b),
                (0x20, 0, 0x3b),
                (0, 1, 0x3b),
                (0, 5, 0x3b),
                (0x20, 5, 0x3b),
                (1, 0, 0x3b),
                // div, divu, rem, remu and their w forms.
                (1, 4, 0x33),
                (1, 5, 0x33),
                (1, 6, 0x33),
                (1, 7, 0x33),
                (1, 4, 0x3b),
                (1, 5, 0x3b),
                (1, 6, 0x3b),
                (1, 7, 0x3b),
                // A bail-out: mulhsu.
                (1, 2, 0x33),
            ][..],
        ),
        reg(),
        reg(),
        reg(),
    )
        .prop_map(|((f7, f3, op), a, b, d)| r(f7, b, a, f3, d, op));
    let itype = (
        prop::sample::select(
            &[
                (0, 0x13),
                (2, 0x13),
                (3, 0x13),
                (4, 0x13),
                (6, 0x13),
                (7, 0x13),
                (0, 0x1b),
            ][..],
        ),
        any::<u32>(),
        reg(),
        reg(),
    )
        .prop_map(|((f3, op), imm, a, d)| i(imm, a, f3, d, op));
    let shift = (
        prop::sample::select(
            &[
                (1, 0, 0x13),
                (5, 0, 0x13),
                (5, 0x400, 0x13),
                (1, 0, 0x1b),
                (5, 0, 0x1b),
                (5, 0x400, 0x1b),
            ][..],
        ),
        0u32..64,
        reg(),
        reg(),
    )
        .prop_map(|((f3, hi, op), sh, a, d)| {
            let sh = if op == 0x1b { sh & 31 } else { sh };
            i(hi | sh, a, f3, d, op)
        });
    let upper = (any::<u32>(), reg(), prop::bool::ANY)
        .prop_map(|(imm, d, lui)| imm & !0xfff | d << 7 | if lui { 0x37 } else { 0x17 });
    // Offsets of loads and stores: small ones, with a base at the end of the span or the
    // start of the code, test the bounds exactly.
    let offset = || prop_oneof![any::<u32>(), (0u32..16).prop_map(|k| k.wrapping_sub(8))];
    let load = (0u32..7, offset(), reg(), reg()).prop_map(|(f3, imm, a, d)| i(imm, a, f3, d, 0x03));
    let store = (0u32..4, offset(), reg(), reg()).prop_map(|(f3, imm, a, b)| {
        (imm >> 5 & 0x7f) << 25 | b << 20 | a << 15 | f3 << 12 | (imm & 0x1f) << 7 | 0x23
    });
    // Forward conditional branches by 8 or 12 bytes: the superblock goes on along the
    // fall-through, and a taken one is a side exit.
    let branch = (
        prop::sample::select(&[0u32, 1, 4, 5, 6, 7][..]),
        2u32..4,
        reg(),
        reg(),
    )
        .prop_map(|(f3, k, a, b)| {
            let off = k * 4;
            ((off >> 5) & 0x3f) << 25
                | b << 20
                | a << 15
                | f3 << 12
                | ((off >> 1) & 0xf) << 8
                | 0x63
        });
    // Atomics: swap, add, xor, and, or (compiled), and min (a bail-out), of words and
    // doublewords, with any ordering bits.
    let atomic = (
        prop::sample::select(&[0b00001u32, 0b00000, 0b00100, 0b01100, 0b01000, 0b10000][..]),
        0u32..4,
        2u32..4,
        reg(),
        reg(),
        reg(),
    )
        .prop_map(|(f5, aqrl, f3, a, b, d)| r(f5 << 2 | aqrl, b, a, f3, d, 0x2f));
    let other = prop::sample::select(
        &[
            0x0000_0073u32, // ecall
            0x0005_252f,    // lr.w a0, (a0)
        ][..],
    );
    prop_oneof![
        6 => rtype,
        4 => itype,
        3 => shift,
        2 => upper,
        4 => load,
        4 => store,
        2 => branch,
        2 => atomic,
        3 => fp_insn(),
        1 => other,
    ]
}

/// A floating-point register: NaN-boxed singles (some not boxed), special doubles (zeros,
/// infinities, NaNs, the extremes of the normal and subnormal ranges), ordinary doubles
/// that round inexactly, or any bits.
fn fp_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => any::<f32>().prop_map(|v| 0xffff_ffff_0000_0000 | u64::from(v.to_bits())),
        1 => prop::sample::select(&[
            0, 1 << 63, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 0x7ff8_0000_0000_0000,
            0x7ff0_0000_0000_0001, 1, 0x0010_0000_0000_0000, 0x7fef_ffff_ffff_ffff,
            0xffff_ffff_7f80_0001, 0x3ff0_0000_0000_0000, 0xbff8_0000_0000_0000,
        ][..]),
        3 => (-1e6f64..1e6).prop_map(f64::to_bits),
        1 => any::<u64>(),
    ]
}

/// A register value: mostly addresses in guest memory (so that loads and stores mostly
/// land), some right at the end of the span or at the start of the code, some that divide
/// specially (zero, -1, the most negative 64- and 32-bit values), else anything.
fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => BASE + 0x4000..BASE + SIZE - 0x800,
        1 => BASE + SIZE - 16..BASE + SIZE + 8,
        1 => CODE - 16..CODE + 8,
        1 => prop::sample::select(&[0, u64::MAX, 1 << 63, 0xffff_ffff, 0x8000_0000, 0xffff_ffff_8000_0000][..]),
        2 => any::<u64>(),
    ]
}

/// Guest memory with `words` at `CODE` and `data` at `BASE + 0x4000`, a hart at `CODE`
/// with registers x1.. from `x`, and the cache (in superblock mode) with the block at
/// `CODE` translated in the slot returned.
fn setup(words: &[u32], x: &[u64], data: &[u8]) -> (Memory, Cpu, BlockCache, u32) {
    setup_fp(words, x, data, &[], 0)
}

/// [`setup`], with floating-point registers f0.. from `f` and `fcsr` bits `fcsr` (the
/// flags, then the rounding mode).
fn setup_fp(
    words: &[u32],
    x: &[u64],
    data: &[u8],
    f: &[u64],
    fcsr: u8,
) -> (Memory, Cpu, BlockCache, u32) {
    let mut mem = Memory::new(BASE, SIZE).unwrap();
    mem.write_bytes(BASE + 0x4000, data).unwrap();
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    mem.write_bytes(CODE, &code).unwrap();
    let code_end = CODE + code.len() as u64;
    mem.set_code_range(CODE, code_end);
    let mut cpu = Cpu::new(Mode::User, CODE);
    for (r, v) in cpu.x[1..32].iter_mut().zip(x) {
        *r = *v;
    }
    for (r, v) in cpu.f.iter_mut().zip(f) {
        *r = *v;
    }
    (cpu.fflags, cpu.frm) = (fcsr & 31, fcsr >> 5);
    let mut cache = BlockCache::new(BASE, BASE + SIZE, 64, true, true, None);
    cache.set_superblocks(true);
    let slot = cache.translate(&mem, CODE, &mut ()).unwrap();
    (mem, cpu, cache, slot)
}

/// Runs the block at `CODE` of `words` compiled and interpreted, from registers `x` and
/// data `data`, and compares. Returns whether the block had compiled code.
fn compare(words: &[u32], x: &[u64], data: &[u8]) -> Result<bool, TestCaseError> {
    compare_fp(words, x, data, &[], 0)
}

/// [`compare`], from floating-point registers `f` and `fcsr` too (see [`setup_fp`]).
fn compare_fp(
    words: &[u32],
    x: &[u64],
    data: &[u8],
    f: &[u64],
    fcsr: u8,
) -> Result<bool, TestCaseError> {
    let (mem, cpu, cache, slot) = setup_fp(words, x, data, f, fcsr);
    let block = cache.blocks[slot as usize];
    let here = cache.here(&block, 0);

    let (mut cpu_i, mut mem_i, mut trap_i) = (cpu.clone(), mem.clone(), Trap::Breakpoint);
    let interpreted = run_threaded(
        &mut cpu_i,
        &mut mem_i,
        cache.insns(&block),
        &here,
        block.end,
        &mut trap_i,
    );
    let (mut cpu_c, mut mem_c, mut trap_c) = (cpu, mem, Trap::Breakpoint);
    let mut retired = 0;
    let compiled = run_compiled(
        &mut cpu_c,
        &mut mem_c,
        &cache,
        Entry::Block(slot),
        &mut retired,
        u64::MAX,
        &mut trap_c,
        crate::jit::Probes::NONE,
    )
    .result;

    prop_assert_eq!(format!("{compiled:?}"), format!("{interpreted:?}"));
    prop_assert_eq!(&cpu_c.x[..33], &cpu_i.x[..33]);
    prop_assert_eq!(cpu_c.f, cpu_i.f);
    prop_assert_eq!((cpu_c.fflags, cpu_c.frm), (cpu_i.fflags, cpu_i.frm));
    prop_assert_eq!(trap_c, trap_i);
    prop_assert_eq!(
        mem_c.slice(BASE, SIZE).unwrap(),
        mem_i.slice(BASE, SIZE).unwrap()
    );
    prop_assert_eq!(mem_c.code_written(), mem_i.code_written());
    Ok(block.compiled != NONE)
}

#[test]
fn compiled_blocks_compute_what_the_interpreter_does() {
    compiled_and_interpreted_agree(3000);
}

/// The same in the fallback code buffer (one mapping made writable for each write), which
/// hosts that refuse a doubly mapped memory file get.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn compiled_blocks_in_the_fallback_buffer_compute_what_the_interpreter_does() {
    super::code::PRIVATE_ONLY.with(|p| p.set(true));
    compiled_and_interpreted_agree(1500);
}

/// Compares `cases` random blocks compiled and interpreted.
fn compiled_and_interpreted_agree(cases: u32) {
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let compiled = Cell::new(0);
    let strategy = (
        proptest::collection::vec(insn(), 1..48),
        proptest::collection::vec(value(), 31),
        proptest::collection::vec(any::<u8>(), 0x100),
        (proptest::collection::vec(fp_value(), 32), any::<u8>()),
    );
    runner
        .run(&strategy, |(words, x, data, (f, fcsr))| {
            if compare_fp(&words, &x, &data, &f, fcsr)? {
                compiled.set(compiled.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    // The comparison means something only if most blocks had compiled code.
    assert!(
        compiled.get() > cases / 3,
        "{} blocks compiled",
        compiled.get()
    );
}

/// Runs the compiled code of the block in `slot` alone (no budget, no probes): how it left,
/// and the arena index of the block's first instruction.
fn run_alone(cache: &BlockCache, slot: u32, cpu: &mut Cpu, mem: &mut Memory) -> (super::Left, u32) {
    let block = cache.blocks[slot as usize];
    let left = cache.run_compiled(block.compiled, cpu, mem, u64::MAX, super::Probes::NONE);
    (left.unwrap(), block.first)
}

/// Atomics on aligned addresses run in compiled code, with the interpreter's results: a
/// block of them leaves only at the illegal (zero) word after it, not before an atomic.
#[test]
fn aligned_atomics_run_compiled() {
    // x10..x15 = a0..a5; data at BASE + 0x4000.
    let words = [
        i(1, 6, 0, 6, 0x13),                      // addi t1, t1, 1
        r(0b00000 << 2, 11, 12, 3, 10, 0x2f),     // amoadd.d a0, a1, (a2)
        r(0b00001 << 2 | 3, 14, 15, 2, 13, 0x2f), // amoswap.w.aqrl a3, a4, (a5)
        r(0b01000 << 2, 11, 15, 2, 0, 0x2f),      // amoor.w zero, a1, (a5)
        r(0b01100 << 2, 14, 12, 3, 12, 0x2f),     // amoand.d a2, a4, (a2)
        r(0b00100 << 2, 11, 15, 2, 15, 0x2f),     // amoxor.w a5, a1, (a5)
        i(1, 6, 0, 6, 0x13),                      // addi t1, t1, 1
    ];
    let mut x = [0u64; 31];
    x[10] = 0x1234_5678_9abc_def0; // a1
    x[11] = BASE + 0x4010; // a2
    x[13] = 0xffff_ffff_8765_4321; // a4
    x[14] = BASE + 0x4024; // a5
    let data: Vec<u8> = (0..0x100u32).map(|b| (b * 37 + 11) as u8).collect();
    assert!(compare(&words, &x, &data).unwrap());

    let (mut mem, mut cpu, cache, slot) = setup(&words, &x, &data);
    let (left, first) = run_alone(&cache, slot, &mut cpu, &mut mem);
    assert_eq!(left.kind, super::kind::BAIL);
    assert_eq!(left.at, first + words.len() as u32);
    // amoadd.d: a0 = the old doubleword; amoand.d: a2 = old + a1, memory = that & a4.
    let old = u64::from_le_bytes(data[0x10..0x18].try_into().unwrap());
    let added = old.wrapping_add(x[10]);
    assert_eq!((cpu.x[10], cpu.x[12]), (old, added));
    assert_eq!(mem.load_u::<8>(BASE + 0x4010).unwrap(), added & x[13]);
}

/// Floating-point instructions run compiled while floating point is on, and bail out
/// before the first of them while it is off (a machine-mode hart with `mstatus.FS` 0),
/// where the interpreter raises the illegal-instruction exception.
#[test]
fn floating_point_runs_compiled_only_while_it_is_on() {
    // x12 = a2 (data at BASE + 0x4000); three additions (so that the block is long enough
    // to compile), fld, fmul.d, fsd, then an illegal (zero) word.
    let addi = i(1, 6, 0, 6, 0x13); // addi t1, t1, 1
    let words = [
        addi,
        addi,
        addi,
        i(8, 12, 3, 1, 0x07),                          // fld ft1, 8(a2)
        r(0x09, 1, 1, 0, 2, 0x53),                     // fmul.d ft2, ft1, ft1 (rne)
        2 << 20 | 12 << 15 | 3 << 12 | 16 << 7 | 0x27, // fsd ft2, 16(a2)
    ];
    let mut x = [0u64; 31];
    x[11] = BASE + 0x4000;
    let mut data = vec![0u8; 0x100];
    data[8..16].copy_from_slice(&1.5f64.to_bits().to_le_bytes());
    for fs in [1u64, 0] {
        let (mut mem, mut cpu, cache, slot) = setup(&words, &x, &data);
        cpu.mode = Mode::Machine;
        cpu.m.mstatus = fs << 13;
        let (left, first) = run_alone(&cache, slot, &mut cpu, &mut mem);
        assert_eq!(left.kind, super::kind::BAIL);
        let (at, square) = match fs {
            1 => (words.len(), 2.25f64.to_bits()),
            _ => (3, 0),
        };
        assert_eq!(left.at, first + at as u32, "FS = {fs}");
        assert_eq!(cpu.f[2], square);
        assert_eq!(mem.load_u::<8>(BASE + 0x4010).unwrap(), square);
        assert_eq!(cpu.x[6], 3);
    }
}

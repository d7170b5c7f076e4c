//! Oracle 1: `simple-soft-float` with `PlatformProperties::RISC_V` (tininess after rounding,
//! canonical NaN results, NV for inf*0+qNaN), compared bit for bit and flag for flag over
//! every op it models and all five rounding modes.
//!
//! simple-soft-float does not model RISC-V's register conventions or integer saturation; the
//! harness adds them from the spec: NaN-boxing on read and write, sign extension of 32-bit
//! integer results, and the saturation values for out-of-range conversions (where the oracle
//! reports "no value" plus NV). fmin/fmax, sign injection and moves are not modelled by it at
//! all; they are checked against hand-written spec rules in `spec_rules.rs`.

use super::gen::{self, Rng};
use crate::fpu::{execute, nan_box, soft::Fmt, DZ, NV, NX, OF, UF};
use crate::insn::Op;
use simple_soft_float::{
    F32WithPlatformPropertiesTraits, F64WithPlatformPropertiesTraits, FPState, Float, FloatClass,
    FloatTraits, PlatformProperties, RoundingMode, StatusFlags,
};
use std::cmp::Ordering;

/// A simple-soft-float format usable with raw `u64` bits.
trait Ssf: FloatTraits + Copy {
    const TRAITS: Self;
    fn from_u64(x: u64) -> Self::Bits;
    fn to_u64(b: &Self::Bits) -> u64;
}

impl Ssf for F32WithPlatformPropertiesTraits {
    const TRAITS: Self = F32WithPlatformPropertiesTraits(PlatformProperties::RISC_V);
    fn from_u64(x: u64) -> u32 {
        x as u32
    }
    fn to_u64(b: &u32) -> u64 {
        u64::from(*b)
    }
}

impl Ssf for F64WithPlatformPropertiesTraits {
    const TRAITS: Self = F64WithPlatformPropertiesTraits(PlatformProperties::RISC_V);
    fn from_u64(x: u64) -> u64 {
        x
    }
    fn to_u64(b: &u64) -> u64 {
        *b
    }
}

type F32 = F32WithPlatformPropertiesTraits;
type F64 = F64WithPlatformPropertiesTraits;

fn mk<T: Ssf>(x: u64) -> Float<T> {
    Float::from_bits_and_traits(T::from_u64(x), T::TRAITS)
}

fn bits<T: Ssf>(x: &Float<T>) -> u64 {
    T::to_u64(x.bits())
}

fn mode(rm: u8) -> RoundingMode {
    [
        RoundingMode::TiesToEven,
        RoundingMode::TowardZero,
        RoundingMode::TowardNegative,
        RoundingMode::TowardPositive,
        RoundingMode::TiesToAway,
    ][usize::from(rm)]
}

fn flags(st: &FPState) -> u8 {
    let s = st.status_flags;
    [
        (StatusFlags::INEXACT, NX),
        (StatusFlags::UNDERFLOW, UF),
        (StatusFlags::OVERFLOW, OF),
        (StatusFlags::DIVISION_BY_ZERO, DZ),
        (StatusFlags::INVALID_OPERATION, NV),
    ]
    .iter()
    .filter(|(f, _)| s.contains(*f))
    .fold(0, |acc, (_, b)| acc | b)
}

/// What an op computes, independent of its precision.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
    /// Fused multiply-add; negate the product, negate the addend.
    Fma(bool, bool),
    /// Float to integer: signed, 64-bit.
    ToInt(bool, bool),
    /// Integer to float: signed, 64-bit.
    FromInt(bool, bool),
    Eq,
    Lt,
    Le,
    Class,
    /// The other precision to this one (`fcvt.d.s` for the single table, `fcvt.s.d` for the
    /// double one).
    Convert,
}

/// Every op this oracle checks: (op, double precision, kind).
pub const OPS: &[(Op, bool, Kind)] = {
    use Kind::*;
    &[
        (Op::FaddS, false, Add),
        (Op::FsubS, false, Sub),
        (Op::FmulS, false, Mul),
        (Op::FdivS, false, Div),
        (Op::FsqrtS, false, Sqrt),
        (Op::FmaddS, false, Fma(false, false)),
        (Op::FmsubS, false, Fma(false, true)),
        (Op::FnmsubS, false, Fma(true, false)),
        (Op::FnmaddS, false, Fma(true, true)),
        (Op::FcvtWS, false, ToInt(true, false)),
        (Op::FcvtWuS, false, ToInt(false, false)),
        (Op::FcvtLS, false, ToInt(true, true)),
        (Op::FcvtLuS, false, ToInt(false, true)),
        (Op::FcvtSW, false, FromInt(true, false)),
        (Op::FcvtSWu, false, FromInt(false, false)),
        (Op::FcvtSL, false, FromInt(true, true)),
        (Op::FcvtSLu, false, FromInt(false, true)),
        (Op::FeqS, false, Eq),
        (Op::FltS, false, Lt),
        (Op::FleS, false, Le),
        (Op::FclassS, false, Class),
        (Op::FcvtSD, true, Convert),
        (Op::FaddD, true, Add),
        (Op::FsubD, true, Sub),
        (Op::FmulD, true, Mul),
        (Op::FdivD, true, Div),
        (Op::FsqrtD, true, Sqrt),
        (Op::FmaddD, true, Fma(false, false)),
        (Op::FmsubD, true, Fma(false, true)),
        (Op::FnmsubD, true, Fma(true, false)),
        (Op::FnmaddD, true, Fma(true, true)),
        (Op::FcvtWD, true, ToInt(true, false)),
        (Op::FcvtWuD, true, ToInt(false, false)),
        (Op::FcvtLD, true, ToInt(true, true)),
        (Op::FcvtLuD, true, ToInt(false, true)),
        (Op::FcvtDW, true, FromInt(true, false)),
        (Op::FcvtDWu, true, FromInt(false, false)),
        (Op::FcvtDL, true, FromInt(true, true)),
        (Op::FcvtDLu, true, FromInt(false, true)),
        (Op::FeqD, true, Eq),
        (Op::FltD, true, Lt),
        (Op::FleD, true, Le),
        (Op::FclassD, true, Class),
        (Op::FcvtDS, false, Convert),
    ]
};

/// The spec's saturation value for an out-of-range or NaN conversion.
fn saturate(x: &Float<impl Ssf>, signed: bool, wide: bool) -> i128 {
    let (min, max): (i128, i128) = match (signed, wide) {
        (true, false) => (i32::MIN.into(), i32::MAX.into()),
        (false, false) => (0, u32::MAX.into()),
        (true, true) => (i64::MIN.into(), i64::MAX.into()),
        (false, true) => (0, u64::MAX.into()),
    };
    if !x.is_nan() && x.sign() == simple_soft_float::Sign::Negative {
        min
    } else {
        max
    }
}

/// The oracle's result for one op on format `T`: raw float bits (not boxed) for float
/// results, the x-register value for integer results.
fn eval<T: Ssf>(kind: Kind, x: [u64; 3], rm: u8) -> (u64, u8) {
    let mut st = FPState::default();
    let rmo = Some(mode(rm));
    let (a, b, c) = (mk::<T>(x[0]), mk::<T>(x[1]), mk::<T>(x[2]));
    let v = match kind {
        Kind::Add => bits(&a.add(&b, rmo, Some(&mut st))),
        Kind::Sub => bits(&a.sub(&b, rmo, Some(&mut st))),
        Kind::Mul => bits(&a.mul(&b, rmo, Some(&mut st))),
        Kind::Div => bits(&a.div(&b, rmo, Some(&mut st))),
        Kind::Sqrt => bits(&a.sqrt(rmo, Some(&mut st))),
        Kind::Fma(np, nc) => {
            let a = if np { a.neg() } else { a };
            let c = if nc { c.neg() } else { c };
            bits(&a.fused_mul_add(&b, &c, rmo, Some(&mut st)))
        }
        Kind::ToInt(signed, wide) => {
            let s = Some(&mut st);
            let r: Option<i128> = match (signed, wide) {
                (true, false) => a.to_i32(true, rmo, s).map(i128::from),
                (false, false) => a.to_u32(true, rmo, s).map(i128::from),
                (true, true) => a.to_i64(true, rmo, s).map(i128::from),
                (false, true) => a.to_u64(true, rmo, s).map(i128::from),
            };
            let v = r.unwrap_or_else(|| saturate(&a, signed, wide));
            // 32-bit results are sign-extended into the x register.
            if wide {
                v as u64
            } else {
                v as i32 as i64 as u64
            }
        }
        Kind::FromInt(signed, wide) => {
            let s = Some(&mut st);
            let t = T::TRAITS;
            let r = match (signed, wide) {
                (true, false) => Float::from_i32_with_traits(x[0] as i32, rmo, s, t),
                (false, false) => Float::from_u32_with_traits(x[0] as u32, rmo, s, t),
                (true, true) => Float::from_i64_with_traits(x[0] as i64, rmo, s, t),
                (false, true) => Float::from_u64_with_traits(x[0], rmo, s, t),
            };
            bits(&r)
        }
        Kind::Eq => u64::from(a.compare_quiet(&b, Some(&mut st)) == Some(Ordering::Equal)),
        Kind::Lt => u64::from(a.compare_signaling(&b, Some(&mut st)) == Some(Ordering::Less)),
        Kind::Le => u64::from(matches!(
            a.compare_signaling(&b, Some(&mut st)),
            Some(Ordering::Less | Ordering::Equal)
        )),
        Kind::Class => {
            use FloatClass::*;
            let order = [
                NegativeInfinity,
                NegativeNormal,
                NegativeSubnormal,
                NegativeZero,
                PositiveZero,
                PositiveSubnormal,
                PositiveNormal,
                PositiveInfinity,
                SignalingNaN,
                QuietNaN,
            ];
            let cls = a.class();
            1 << order.iter().position(|&k| k == cls).unwrap_or(99)
        }
        Kind::Convert => unreachable!("handled by the caller"),
    };
    (v, flags(&st))
}

/// Float-to-float conversion from `F` to `T`.
fn convert<F: Ssf, T: Ssf>(x: u64, rm: u8) -> (u64, u8) {
    let mut st = FPState::default();
    let r = Float::convert_from_float_with_traits(
        &mk::<F>(x),
        Some(mode(rm)),
        Some(&mut st),
        T::TRAITS,
    );
    (bits(&r), flags(&st))
}

/// Reads a single-precision source per the spec's NaN-boxing rule.
fn unbox(x: u64) -> u64 {
    if x >> 32 == 0xffff_ffff {
        x & 0xffff_ffff
    } else {
        0x7fc0_0000
    }
}

/// The expected register result and flags for `op` on raw register values.
pub fn oracle(op: Op, double: bool, kind: Kind, regs: [u64; 3], rm: u8) -> (u64, u8) {
    let int_src = matches!(kind, Kind::FromInt(..));
    let float_dst = matches!(
        kind,
        Kind::Add
            | Kind::Sub
            | Kind::Mul
            | Kind::Div
            | Kind::Sqrt
            | Kind::Fma(..)
            | Kind::FromInt(..)
    );
    if let Kind::Convert = kind {
        return if op == Op::FcvtSD {
            let (v, f) = convert::<F64, F32>(regs[0], rm);
            (nan_box(v as u32), f)
        } else {
            convert::<F32, F64>(unbox(regs[0]), rm)
        };
    }
    if double {
        eval::<F64>(kind, regs, rm)
    } else {
        let x = if int_src { regs } else { regs.map(unbox) };
        let (v, f) = eval::<F32>(kind, x, rm);
        (if float_dst { nan_box(v as u32) } else { v }, f)
    }
}

/// Source register values for one case of `kind` at precision `f`.
pub fn operands(r: &mut Rng, f: Fmt, double: bool, kind: Kind) -> [u64; 3] {
    if let Kind::FromInt(..) = kind {
        return [gen::int(r), 0, 0];
    }
    // fcvt.d.s reads a single; fcvt.s.d a double.
    let (f, double) = match kind {
        Kind::Convert => (gen::fmt(!double), !double),
        _ => (f, double),
    };
    let a = gen::float(r, f);
    let b = gen::partner(r, f, a);
    let c = if r.chance(3) {
        gen::partner(r, f, a)
    } else {
        gen::float(r, f)
    };
    let reg = |r: &mut Rng, x: u64| if double { x } else { gen::boxed(r, x) };
    [reg(r, a), reg(r, b), reg(r, c)]
}

/// The share of `n` to run for an op: simple-soft-float computes in exact real arithmetic,
/// taking tens of microseconds per binary32 operation, hundreds for binary64 and much more
/// for square roots and results near underflow. Returns (cases, keep one in k tiny operands).
fn budget(double: bool, kind: Kind, n: usize) -> (usize, u64) {
    let arith = matches!(
        kind,
        Kind::Add | Kind::Sub | Kind::Mul | Kind::Div | Kind::Fma(..)
    );
    match (double, kind) {
        (false, Kind::Sqrt) => (n / 20, 1),
        (false, _) if arith => (n / 4, 1),
        // The rounding code is shared with binary32, which gets the full bias to tiny values.
        (true, Kind::Sqrt) => (n / 40, 8),
        (true, _) if arith => (n / 16, 8),
        _ => (n, 1),
    }
}

/// Runs `n` cases per rounding mode of every op in `OPS` with the given precision (the
/// conversion between precisions counts with its source), panicking on any mismatch;
/// returns the number compared.
fn run(double: bool, n: usize, seed: u64) -> usize {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (i, &(op, dbl, kind)) in OPS.iter().enumerate().filter(|(_, o)| o.1 == double) {
        let (n, tiny_keep) = budget(dbl, kind, n);
        for rm in 0..5u8 {
            let mut r = Rng::new(seed ^ (i as u64) << 8 ^ u64::from(rm));
            let t0 = std::time::Instant::now();
            for _ in 0..n {
                let regs = loop {
                    let regs = operands(&mut r, gen::fmt(dbl), dbl, kind);
                    let tiny = regs.iter().any(|&x| (x >> 52) & 0x7ff < 0x100);
                    if !tiny || r.chance(tiny_keep) {
                        break regs;
                    }
                };
                let want = oracle(op, dbl, kind, regs, rm);
                let mut fl = 0;
                let got = execute(op, regs[0], regs[1], regs[2], rm, &mut fl);
                compared += 1;
                if (got, fl) != want && failures.len() < 20 {
                    failures.push(format!(
                        "{op:?} rm={rm} in={regs:x?} got=({got:#x}, {fl:#x}) want=({:#x}, {:#x})",
                        want.0, want.1
                    ));
                }
            }
            if std::env::var_os("FPU_TIMING").is_some() {
                eprintln!("{op:?} rm={rm}: {n} cases in {:?}", t0.elapsed());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    compared
}

/// Cases per op per rounding mode: `FPU_CASES` or a default sized for a ~30 s test run.
fn cases() -> usize {
    std::env::var("FPU_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

const DEFAULT_CASES: usize = 2400;

#[test]
fn fpu_single_matches_simple_soft_float() {
    let compared = run(false, cases(), 0x5eed_f00d);
    println!("simple-soft-float oracle, single: {compared} cases compared, 0 mismatches");
}

#[test]
fn fpu_double_matches_simple_soft_float() {
    let compared = run(true, cases(), 0x5eed_d00b);
    println!("simple-soft-float oracle, double: {compared} cases compared, 0 mismatches");
}

/// Guards this module's claims about the oracle's configuration, on its own outputs.
#[test]
fn simple_soft_float_is_configured_for_risc_v() {
    use simple_soft_float::{ExceptionHandlingMode, TininessDetectionMode};
    let st = FPState::default();
    assert_eq!(
        st.tininess_detection_mode,
        TininessDetectionMode::AfterRounding
    );
    assert_eq!(
        st.exception_handling_mode,
        ExceptionHandlingMode::IgnoreExactUnderflow
    );
    let (inf, one, canon) = (0x7ff0_0000_0000_0000, 1f64.to_bits(), 0x7ff8_0000_0000_0000);
    // inf * 0 + qNaN is invalid; NaN results are canonical, payloads dropped.
    let fma = eval::<F64>(Kind::Fma(false, false), [inf, 0, 0x7ff8_0000_dead_0000], 0);
    assert_eq!(fma, (canon, NV));
    assert_eq!(
        eval::<F64>(Kind::Add, [0xfff8_0000_0000_0001, one, 0], 0),
        (canon, 0)
    );
    // Tiny after rounding, rounded up to the smallest normal: UF and NX.
    let below_one = 0x3fef_ffff_ffff_ffff;
    let min_normal = 0x0010_0000_0000_0000;
    let tiny = eval::<F64>(Kind::Mul, [below_one, min_normal, 0], 0);
    assert_eq!(tiny, (min_normal, UF | NX));
}

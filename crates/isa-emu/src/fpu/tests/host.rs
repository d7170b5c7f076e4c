//! Oracle 2: the host's IEEE 754 f32/f64 arithmetic (round to nearest even) for add, sub,
//! mul, div, sqrt and mul_add, compared with both `execute` (fast paths included) and the
//! integer soft-float path alone. The host has no flags to offer, so flags are checked by a
//! second comparison: `execute` (fast paths) against the integer path, results and flags,
//! in every rounding mode.

use super::gen::{self, Rng};
use crate::fpu::soft::{self, D, S};
use crate::fpu::{execute, nan_box};
use crate::insn::Op::{self, *};

const CASES: usize = 200_000;

/// The host's result for `op` on f64 operands (any op not listed is fmadd).
fn host_d(op: Op, x: f64, y: f64, z: f64) -> f64 {
    match op {
        FaddD => x + y,
        FsubD => x - y,
        FmulD => x * y,
        FdivD => x / y,
        FsqrtD => x.sqrt(),
        _ => x.mul_add(y, z),
    }
}

fn host_s(op: Op, x: f32, y: f32, z: f32) -> f32 {
    match op {
        FaddS => x + y,
        FsubS => x - y,
        FmulS => x * y,
        FdivS => x / y,
        FsqrtS => x.sqrt(),
        _ => x.mul_add(y, z),
    }
}

/// The integer-path result of `op` (raw bits, unboxed), bypassing the fast paths.
fn soft_only(op: Op, a: u64, b: u64, c: u64, rm: u8, fl: &mut u8) -> u64 {
    let f = if format!("{op:?}").ends_with('D') {
        D
    } else {
        S
    };
    match op {
        FaddD | FaddS => soft::add(f, a, b, rm, fl),
        FsubD | FsubS => soft::sub(f, a, b, rm, fl),
        FmulD | FmulS => soft::mul(f, a, b, rm, fl),
        FdivD | FdivS => soft::div(f, a, b, rm, fl),
        FsqrtD | FsqrtS => soft::sqrt(f, a, rm, fl),
        FcvtWD | FcvtWS => soft::to_int(f, &soft::W, a, rm, fl),
        FcvtWuD | FcvtWuS => soft::to_int(f, &soft::WU, a, rm, fl),
        FcvtLD | FcvtLS => soft::to_int(f, &soft::L, a, rm, fl),
        FcvtLuD | FcvtLuS => soft::to_int(f, &soft::LU, a, rm, fl),
        FmsubD | FmsubS => soft::fma(f, a, b, c ^ f.sign(), rm, fl),
        FnmsubD | FnmsubS => soft::fma(f, a ^ f.sign(), b, c, rm, fl),
        FnmaddD | FnmaddS => soft::fma(f, a ^ f.sign(), b, c ^ f.sign(), rm, fl),
        _ => soft::fma(f, a, b, c, rm, fl),
    }
}

/// RISC-V returns the canonical NaN where the host returns some NaN.
fn canon_d(x: f64) -> u64 {
    if x.is_nan() {
        D.nan()
    } else {
        x.to_bits()
    }
}

fn canon_s(x: f32) -> u64 {
    if x.is_nan() {
        S.nan()
    } else {
        u64::from(x.to_bits())
    }
}

#[test]
fn fpu_matches_host_float_rne() {
    let ops = [
        FaddD, FsubD, FmulD, FdivD, FsqrtD, FmaddD, FaddS, FsubS, FmulS, FdivS, FsqrtS, FmaddS,
    ];
    let mut compared = 0;
    for (i, &op) in ops.iter().enumerate() {
        let double = i < 6;
        let f = gen::fmt(double);
        let mut r = Rng::new(0x4057 + i as u64);
        for _ in 0..CASES {
            let a = gen::float(&mut r, f);
            let b = gen::partner(&mut r, f, a);
            let c = gen::partner(&mut r, f, a);
            let (want, regs) = if double {
                let [x, y, z] = [a, b, c].map(f64::from_bits);
                (canon_d(host_d(op, x, y, z)), [a, b, c])
            } else {
                let [x, y, z] = [a, b, c].map(|v| f32::from_bits(v as u32));
                (
                    canon_s(host_s(op, x, y, z)),
                    [a, b, c].map(|v| nan_box(v as u32)),
                )
            };
            let mut fl = 0;
            let got = execute(op, regs[0], regs[1], regs[2], 0, &mut fl);
            let got = if double { got } else { u64::from(got as u32) };
            let soft = soft_only(op, a, b, c, 0, &mut fl);
            assert_eq!(
                (got, soft),
                (want, want),
                "{op:?} {a:#x} {b:#x} {c:#x}: execute {got:#x}, integer path {soft:#x}, host {want:#x}"
            );
            compared += 2;
        }
    }
    println!("host-float oracle (RNE): {compared} results compared");
}

#[test]
fn fast_paths_match_integer_path() {
    let ops = [
        FaddD, FsubD, FmulD, FdivD, FsqrtD, FmaddD, FmsubD, FnmaddD, FcvtWD, FcvtWuD, FcvtLD,
        FcvtLuD, FaddS, FsubS, FmulS, FdivS, FsqrtS, FcvtWS, FcvtWuS, FcvtLS, FcvtLuS, FnmsubD,
        FmaddS, FmsubS, FnmsubS, FnmaddS,
    ];
    let mut compared = 0;
    for (i, &op) in ops.iter().enumerate() {
        let double = format!("{op:?}").ends_with('D');
        let f = gen::fmt(double);
        let mut r = Rng::new(0xfa57 + i as u64);
        for k in 0..CASES {
            let rm = (k % 5) as u8;
            let a = gen::float(&mut r, f);
            let b = gen::partner(&mut r, f, a);
            let c = gen::partner(&mut r, f, a);
            let (mut fast_fl, mut soft_fl) = (0, 0);
            let regs = if double {
                [a, b, c]
            } else {
                [a, b, c].map(|v| nan_box(v as u32))
            };
            let fast = execute(op, regs[0], regs[1], regs[2], rm, &mut fast_fl);
            let soft = soft_only(op, a, b, c, rm, &mut soft_fl);
            let soft = if double || crate::fpu::writes_xreg(op) {
                soft
            } else {
                nan_box(soft as u32)
            };
            assert_eq!(
                (fast, fast_fl),
                (soft, soft_fl),
                "{op:?} rm={rm} {a:#x} {b:#x} {c:#x}"
            );
            compared += 1;
        }
    }
    println!("fast path vs integer path (all modes, with flags): {compared} cases compared");
}

#[test]
fn fma_s_double_rounding_goes_to_the_integer_path() {
    // (1 + 2^-23) * (2^-24 - 2^-47) + (1 + 2^-23) = 1 + 2^-23 + 2^-24 - 2^-70 exactly: just
    // below a binary32 midpoint, so 1 + 2^-23 (inexact). Its binary64 rounding is the
    // midpoint itself, which would round to even, 1 + 2^-22.
    let a = u64::from((1.0f32 + f32::EPSILON).to_bits());
    let b = u64::from((f32::EPSILON / 2.0 * (1.0 - f32::EPSILON)).to_bits());
    let mut fl = 0;
    let r = execute(
        FmaddS,
        nan_box(a as u32),
        nan_box(b as u32),
        nan_box(a as u32),
        0,
        &mut fl,
    );
    assert_eq!((r, fl), (nan_box(a as u32), crate::fpu::NX));
}

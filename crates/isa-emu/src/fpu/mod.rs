//! The RISC-V F and D floating-point unit: every computational F/D instruction, bit-exact
//! with the unprivileged spec (20191213), including exception flags and NaN-boxing.
//!
//! [`execute`] takes raw register values and returns the raw value for `rd`. The arithmetic
//! is integer soft-float (`soft`). Double add, sub, mul, div, sqrt and fused multiply-add
//! (RNE and the directed modes), single add, sub, mul, div, sqrt and fused multiply-add (RNE)
//! and all float-to-integer conversions first try host-float fast paths (`fast`), which are
//! used only where provably identical, flags included.

mod fast;
mod soft;

#[cfg(test)]
mod tests;

use crate::insn::Op;
use soft::{Fmt, IntFmt, D, L, LU, RNE, S, W, WU};

/// fflags bit: inexact.
pub const NX: u8 = 1;
/// fflags bit: underflow.
pub const UF: u8 = 2;
/// fflags bit: overflow.
pub const OF: u8 = 4;
/// fflags bit: divide by zero.
pub const DZ: u8 = 8;
/// fflags bit: invalid operation.
pub const NV: u8 = 16;

/// Upper half of a NaN-boxed single in a 64-bit f register.
pub const BOX: u64 = 0xffff_ffff_0000_0000;

/// Reads a single from an f register: a value not NaN-boxed is the canonical NaN.
pub fn unbox(x: u64) -> u32 {
    if x & BOX == BOX {
        x as u32
    } else {
        S.nan() as u32
    }
}

/// NaN-boxes a single for writing to an f register.
pub fn nan_box(x: u32) -> u64 {
    BOX | u64::from(x)
}

/// The integer format of a float-to-integer or integer-to-float conversion (by reference:
/// copying its i128 bounds through the stack costs a store-forwarding stall).
fn int_fmt(op: Op) -> Option<&'static IntFmt> {
    use Op::*;
    Some(match op {
        FcvtWS | FcvtWD | FcvtSW | FcvtDW => &W,
        FcvtWuS | FcvtWuD | FcvtSWu | FcvtDWu => &WU,
        FcvtLS | FcvtLD | FcvtSL | FcvtDL => &L,
        FcvtLuS | FcvtLuD | FcvtSLu | FcvtDLu => &LU,
        _ => return None,
    })
}

/// Executes one F/D computational instruction (every F/D `Op` except `Flw`/`Fsw`/`Fld`/`Fsd`).
///
/// `a`, `b`, `c` are the raw source register values in rs1, rs2, rs3 order: f-register
/// contents (64 bits) or, for ops whose source is an integer register (`fcvt.s.w/wu/l/lu`,
/// `fcvt.d.*`, `fmv.w.x`, `fmv.d.x`), the x-register value. `rm` is the resolved static
/// rounding mode 0..=4 (the interpreter resolves dyn=7 from frm and traps on invalid modes;
/// other values are treated as RNE). Accrues exception flags into `fflags`. Returns the value
/// to write to rd: NaN-boxed for single results in f registers, the integer register value
/// (sign-extended per spec) for results in x registers. Any other `Op` returns 0 and raises
/// no flag.
///
/// Always inlined: the interpreter's handler of each operation then keeps only its own
/// arm. Left to LLVM, that depended on how the crate happened to be split for code
/// generation (nbody 5000 with no sink: 543.4M instructions, or 448.9M where it inlined).
#[inline(always)]
pub fn execute(op: Op, a: u64, b: u64, c: u64, rm: u8, fflags: &mut u8) -> u64 {
    use Op::*;
    let fl = fflags;
    match op {
        // Double precision: the hot ones first try the host.
        FaddD => fast::add_d(a, b, rm, fl).unwrap_or_else(|| soft::add(D, a, b, rm, fl)),
        FsubD => fast::add_d(a, b ^ D.sign(), rm, fl).unwrap_or_else(|| soft::sub(D, a, b, rm, fl)),
        FmulD => fast::mul_d(a, b, rm, fl).unwrap_or_else(|| soft::mul(D, a, b, rm, fl)),
        FdivD => fast::div_d(a, b, rm, fl).unwrap_or_else(|| soft::div(D, a, b, rm, fl)),
        FsqrtD => fast::sqrt_d(a, rm, fl).unwrap_or_else(|| soft::sqrt(D, a, rm, fl)),
        FmaddD | FmsubD | FnmsubD | FnmaddD => {
            let (a, c) = fma_signs(D, op, a, c);
            fast::fma_d(a, b, c, rm, fl).unwrap_or_else(|| soft::fma(D, a, b, c, rm, fl))
        }
        FsgnjD => soft::sgnj(D, a, b, 0),
        FsgnjnD => soft::sgnj(D, a, b, 1),
        FsgnjxD => soft::sgnj(D, a, b, 2),
        FminD => soft::fmin_max(D, a, b, false, fl),
        FmaxD => soft::fmin_max(D, a, b, true, fl),
        FeqD => soft::feq(D, a, b, fl),
        FltD => soft::flt_le(D, a, b, false, fl),
        FleD => soft::flt_le(D, a, b, true, fl),
        FclassD => soft::class(D, a),
        FmvXD | FmvDX => a,
        FcvtSD => nan_box(soft::convert(D, S, a, rm, fl) as u32),
        FcvtDS => soft::convert(S, D, u64::from(unbox(a)), rm, fl),
        FcvtWD | FcvtWuD | FcvtLD | FcvtLuD => int_fmt(op).map_or(0, |t| {
            fast::to_int(f64::from_bits(a), t, rm, fl)
                .unwrap_or_else(|| soft::to_int(D, t, a, rm, fl))
        }),
        FcvtDW | FcvtDWu | FcvtDL | FcvtDLu => {
            int_fmt(op).map_or(0, |t| soft::from_int(D, t, a, rm, fl))
        }
        // Single precision.
        FmvXW => a as u32 as i32 as i64 as u64,
        FmvWX => nan_box(a as u32),
        FcvtWS | FcvtWuS | FcvtLS | FcvtLuS => {
            let x = unbox(a);
            int_fmt(op).map_or(0, |t| {
                fast::to_int(f32::from_bits(x).into(), t, rm, fl)
                    .unwrap_or_else(|| soft::to_int(S, t, u64::from(x), rm, fl))
            })
        }
        FcvtSW | FcvtSWu | FcvtSL | FcvtSLu => {
            nan_box(int_fmt(op).map_or(0, |t| soft::from_int(S, t, a, rm, fl)) as u32)
        }
        FeqS | FltS | FleS | FclassS => {
            let (a, b) = (u64::from(unbox(a)), u64::from(unbox(b)));
            match op {
                FeqS => soft::feq(S, a, b, fl),
                FltS => soft::flt_le(S, a, b, false, fl),
                FleS => soft::flt_le(S, a, b, true, fl),
                _ => soft::class(S, a),
            }
        }
        _ => single_to_f(op, a, b, c, rm, fl),
    }
}

/// Applies the sign conventions of the fused multiply-add family: `fmsub` is `a*b - c`,
/// `fnmsub` is `-(a*b) + c`, `fnmadd` is `-(a*b) - c` (negating operands, not the result,
/// so exact-zero signs follow IEEE).
fn fma_signs(f: Fmt, op: Op, a: u64, c: u64) -> (u64, u64) {
    use Op::*;
    let (neg_prod, neg_c) = match op {
        FmsubS | FmsubD => (false, true),
        FnmsubS | FnmsubD => (true, false),
        FnmaddS | FnmaddD => (true, true),
        _ => (false, false),
    };
    let flip = |x: u64, yes: bool| if yes { x ^ f.sign() } else { x };
    (flip(a, neg_prod), flip(c, neg_c))
}

/// Single-precision operations with f-register sources and an f-register result: unboxes
/// the sources, computes, boxes the result. Always inlined, as [`execute`] is: left to
/// LLVM, a change elsewhere in the crate made it a call that matched on the operation
/// (nbody 5000, region-based: 457.5M instructions, or 488.8M where it was called).
#[inline(always)]
fn single_to_f(op: Op, a: u64, b: u64, c: u64, rm: u8, fl: &mut u8) -> u64 {
    use Op::*;
    let (x, y) = (unbox(a), unbox(b));
    let (a, b, c) = (u64::from(x), u64::from(y), u64::from(unbox(c)));
    let arith =
        |code: u8, fl: &mut u8| (rm == RNE).then(|| fast::arith_s(code, x, y, fl)).flatten();
    let r = match op {
        FaddS => arith(0, fl).unwrap_or_else(|| soft::add(S, a, b, rm, fl)),
        FsubS => arith(1, fl).unwrap_or_else(|| soft::sub(S, a, b, rm, fl)),
        FmulS => arith(2, fl).unwrap_or_else(|| soft::mul(S, a, b, rm, fl)),
        FdivS => arith(3, fl).unwrap_or_else(|| soft::div(S, a, b, rm, fl)),
        FsqrtS => (rm == RNE)
            .then(|| fast::sqrt_s(x, fl))
            .flatten()
            .unwrap_or_else(|| soft::sqrt(S, a, rm, fl)),
        FmaddS | FmsubS | FnmsubS | FnmaddS => {
            let (a, c) = fma_signs(S, op, a, c);
            (rm == RNE)
                .then(|| fast::fma_s(a as u32, b as u32, c as u32, fl))
                .flatten()
                .unwrap_or_else(|| soft::fma(S, a, b, c, rm, fl))
        }
        FsgnjS => soft::sgnj(S, a, b, 0),
        FsgnjnS => soft::sgnj(S, a, b, 1),
        FsgnjxS => soft::sgnj(S, a, b, 2),
        FminS => soft::fmin_max(S, a, b, false, fl),
        FmaxS => soft::fmin_max(S, a, b, true, fl),
        // Not an F/D computational operation.
        _ => return 0,
    };
    nan_box(r as u32)
}

/// True if `op` writes an integer (x) register.
pub fn writes_xreg(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        FcvtWS
            | FcvtWuS
            | FcvtLS
            | FcvtLuS
            | FcvtWD
            | FcvtWuD
            | FcvtLD
            | FcvtLuD
            | FmvXW
            | FmvXD
            | FeqS
            | FltS
            | FleS
            | FeqD
            | FltD
            | FleD
            | FclassS
            | FclassD
    )
}

/// True if `op` reads rs1 from an integer (x) register.
pub fn reads_xreg(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        FcvtSW | FcvtSWu | FcvtSL | FcvtSLu | FcvtDW | FcvtDWu | FcvtDL | FcvtDLu | FmvWX | FmvDX
    )
}

/// True if `op` uses the rm field (so the interpreter must validate it): arithmetic and all
/// conversions, including the exact ones (`fcvt.d.s`, `fcvt.d.w[u]`), as on real hardware
/// and in qemu.
pub fn uses_rm(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        FmaddS
            | FmsubS
            | FnmsubS
            | FnmaddS
            | FaddS
            | FsubS
            | FmulS
            | FdivS
            | FsqrtS
            | FmaddD
            | FmsubD
            | FnmsubD
            | FnmaddD
            | FaddD
            | FsubD
            | FmulD
            | FdivD
            | FsqrtD
            | FcvtSD
            | FcvtDS
    ) || int_fmt(op).is_some()
}

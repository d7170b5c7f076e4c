//! Host-arithmetic fast paths, used only where the result and its flags are provably the
//! same as the integer path's; each returns `None` (having touched no flag) otherwise.
//!
//! The host computes IEEE 754 binary64 operations correctly rounded to nearest-even (Rust
//! never changes the host rounding mode; this assumes SSE2-style binary64 arithmetic without
//! flush-to-zero, as on x86_64 and aarch64, not x87 extended precision), and `f64::mul_add`
//! is a correctly rounded fused multiply-add. The exact error of that result, or its sign, comes
//! from an error-free transformation; it decides NX (the only flag a fast path raises, besides
//! NV for out-of-range conversions) and the directed-rounding results. Results that could be
//! tiny, overflow, or be NaN, and infinite/NaN operands, are left to the integer path.
//!
//! Single precision is computed in binary64 and rounded once more to binary32; with
//! 53 >= 2 * 24 + 2 that double rounding is innocuous for +, -, *, / and sqrt (Figueroa,
//! "When is double rounding innocuous?", 1995).

use super::soft::{IntFmt, RDN, RMM, RNE, RTZ, RUP};
use super::{NV, NX};

/// Results with magnitude in `(MIN_POSITIVE, MAX]` are normal; such a result is never tiny
/// (tininess after rounding would need the unbounded-exponent rounding below MIN_POSITIVE).
fn normal_f64(x: f64) -> bool {
    x.abs() > f64::MIN_POSITIVE && x.abs() <= f64::MAX
}

fn normal_f32(x: f32) -> bool {
    x.abs() > f32::MIN_POSITIVE && x.abs() <= f32::MAX
}

/// 2^k for the safe-range bounds below.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// Magnitude within `[2^-900, 2^900]`: products, quotients and residuals of such values
/// neither overflow nor lose bits to underflow.
fn mid_range(x: f64) -> bool {
    (pow2(-900)..=pow2(900)).contains(&x.abs())
}

/// The rounding error `x + y - s` of `s = RN(x + y)`, exactly (Knuth's TwoSum; exact
/// unless an intermediate overflows).
fn two_sum_err(x: f64, y: f64, s: f64) -> f64 {
    let yy = s - x;
    let xx = s - yy;
    (x - xx) + (y - yy)
}

fn nx_if(inexact: bool, flags: &mut u8) {
    if inexact {
        *flags |= NX;
    }
}

/// Finishes a binary64 operation from its RNE result `s` (normal, or an exact zero) and
/// `err`, a value with the sign of (exact result - `s`), zero iff `s` is exact. `s` is the
/// grid neighbour of the exact value on the side `err` points away from, so a directed
/// mode either keeps `s` or steps one ulp. RMM (ties need more care) and results leaving
/// the normal range go to the integer path.
fn finish_d(s: f64, err: f64, rm: u8, flags: &mut u8) -> Option<u64> {
    if err == 0.0 {
        return Some(s.to_bits());
    }
    let floor = match rm {
        RNE => {
            *flags |= NX;
            return Some(s.to_bits());
        }
        RTZ => s > 0.0,
        RDN => true,
        RUP => false,
        _ => return None,
    };
    let bits = s.to_bits();
    // Stepping the bits by one moves the magnitude by one ulp.
    let r = match (floor, err > 0.0) {
        (true, true) | (false, false) => s,
        (true, false) => f64::from_bits(if s > 0.0 { bits - 1 } else { bits + 1 }),
        (false, true) => f64::from_bits(if s > 0.0 { bits + 1 } else { bits - 1 }),
    };
    if !normal_f64(r) {
        return None;
    }
    *flags |= NX;
    Some(r.to_bits())
}

/// `fadd.d` (`b` already negated for `fsub.d`).
pub fn add_d(a: u64, b: u64, rm: u8, flags: &mut u8) -> Option<u64> {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let s = x + y;
    // Keep TwoSum's intermediates clear of overflow.
    let lim = pow2(1020);
    if !(x.abs() < lim && y.abs() < lim && s.abs() < lim) {
        return None;
    }
    if s == 0.0 {
        // Finite operands summing to zero do so exactly; the zero's sign depends on rm.
        return (rm == RNE).then_some(s.to_bits());
    }
    if !normal_f64(s) {
        return None;
    }
    finish_d(s, two_sum_err(x, y, s), rm, flags)
}

/// `fmul.d`.
pub fn mul_d(a: u64, b: u64, rm: u8, flags: &mut u8) -> Option<u64> {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let p = x * y;
    if !normal_f64(p) {
        // A zero product of finite operands is exact only if an operand is zero.
        return (p == 0.0 && (x == 0.0 || y == 0.0)).then_some(p.to_bits());
    }
    if rm == RNE {
        // Exact iff the significand product spans at most 53 bits (cheaper than an fma).
        let sig = |v: u64| (v & ((1 << 52) - 1)) | u64::from(v & (0x7ff << 52) != 0) << 52;
        let prod = u128::from(sig(a)) * u128::from(sig(b));
        let span = 128 - prod.leading_zeros() - prod.trailing_zeros();
        nx_if(span > 53, flags);
        return Some(p.to_bits());
    }
    // The product's rounding error is representable (and exactly computed) when the
    // product is well above the underflow range.
    if !mid_range(p) {
        return None;
    }
    finish_d(p, x.mul_add(y, -p), rm, flags)
}

/// `fdiv.d`.
pub fn div_d(a: u64, b: u64, rm: u8, flags: &mut u8) -> Option<u64> {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let q = x / y;
    if !(mid_range(x) && mid_range(y) && mid_range(q)) {
        return None;
    }
    // The residual x - q*y of a correctly rounded quotient is representable, so the fused
    // multiply-add computes it exactly; x/y - q has the sign of residual / y.
    let res = (-q).mul_add(y, x);
    finish_d(q, if y > 0.0 { res } else { -res }, rm, flags)
}

/// `fsqrt.d`.
pub fn sqrt_d(a: u64, rm: u8, flags: &mut u8) -> Option<u64> {
    let x = f64::from_bits(a);
    if !mid_range(x) || x < 0.0 {
        return None;
    }
    let r = x.sqrt();
    // sqrt(x) - r has the sign of x - r*r, which is representable and computed exactly.
    finish_d(r, (-r).mul_add(r, x), rm, flags)
}

/// `fmadd.d` (`a`, `c` already negated per the variant).
///
/// The exact error comes from ErrFma (Boldo and Muller, "Exact and approximated error of
/// the FMA", IEEE TC 2011): with no underflow or overflow, `a*b + c = r1 + r2 + r3` exactly
/// with `r2 = RN(r2 + r3)`, so `r2` is zero iff `r1` is exact and otherwise has the sign of
/// the error. Bounding the product and the addend to `[2^-800, 2^800]` (or a zero addend)
/// keeps every term a multiple of about 2^-910 and below 2^802, far from both limits.
pub fn fma_d(a: u64, b: u64, c: u64, rm: u8, flags: &mut u8) -> Option<u64> {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let u1 = x * y;
    if !(mid_range_800(u1) && (z == 0.0 || mid_range_800(z))) {
        return None;
    }
    let r1 = x.mul_add(y, z);
    if r1 == 0.0 {
        // Terms that are multiples of 2^-910 cancel only exactly, to +0 (-0 in RDN).
        return (rm == RNE).then_some(r1.to_bits());
    }
    let u2 = x.mul_add(y, -u1);
    let alpha1 = z + u2;
    let alpha2 = two_sum_err(z, u2, alpha1);
    let beta1 = u1 + alpha1;
    let beta2 = two_sum_err(u1, alpha1, beta1);
    let gamma = (beta1 - r1) + beta2;
    let r2 = gamma + alpha2;
    finish_d(r1, r2, rm, flags)
}

/// Magnitude within `[2^-800, 2^800]`.
fn mid_range_800(x: f64) -> bool {
    (pow2(-800)..=pow2(800)).contains(&x.abs())
}

/// Float to integer for `|x| < 2^52` (binary32 inputs widened exactly), any rounding mode:
/// truncation and the fraction `x - trunc(x)` are exact there. `None` for larger
/// magnitudes, infinities and NaN.
pub fn to_int(x: f64, t: &IntFmt, rm: u8, flags: &mut u8) -> Option<u64> {
    if x.is_nan() || x.abs() >= pow2(52) {
        return None;
    }
    let trunc = x as i64;
    let frac = x - trunc as f64;
    let away = if frac < 0.0 { -1 } else { 1 };
    let half = frac.abs().total_cmp(&0.5);
    let step = match rm {
        RTZ => 0,
        RDN => -i64::from(frac < 0.0),
        RUP => i64::from(frac > 0.0),
        RMM => away * i64::from(half.is_ge()),
        _ => away * i64::from(half.is_gt() || (half.is_eq() && trunc & 1 != 0)),
    };
    let v = i128::from(trunc + step);
    if v < t.min || v > t.max {
        *flags |= NV;
        return Some(t.xreg_value(if v < t.min { t.min } else { t.max }));
    }
    nx_if(frac != 0.0, flags);
    Some(t.xreg_value(v))
}

/// Rounds the binary64 `d` (the RNE result of an operation on binary32 operands, exact if
/// `exact`) to binary32, if the result is normal or an exact zero.
fn finish_s(d: f64, exact: bool, flags: &mut u8) -> Option<u64> {
    let r = d as f32;
    if d == 0.0 && exact {
        return Some(u64::from(r.to_bits()));
    }
    if !normal_f32(r) {
        return None;
    }
    nx_if(!exact || f64::from(r) != d, flags);
    Some(u64::from(r.to_bits()))
}

/// A binary32 operation in RNE on unboxed operands: `op` 0 add, 1 sub, 2 mul, 3 div.
pub fn arith_s(op: u8, a: u32, b: u32, flags: &mut u8) -> Option<u64> {
    let (x, y) = (f64::from(f32::from_bits(a)), f64::from(f32::from_bits(b)));
    match op {
        0 | 1 => {
            let y = if op == 1 { -y } else { y };
            let s = x + y;
            // NaN or infinite operands give a non-normal binary32 result below.
            finish_s(s, s.is_finite() && two_sum_err(x, y, s) == 0.0, flags)
        }
        // The 48-bit product is exact in binary64.
        2 => finish_s(x * y, true, flags),
        _ => {
            let q = x / y;
            if !(q.is_finite() && y != 0.0) {
                return None;
            }
            if q == 0.0 {
                // 0 / y or x / inf: exact.
                return Some(u64::from((q as f32).to_bits()));
            }
            // Exact iff r * y == x; the product of two binary32 values is exact in binary64.
            let exact = y.is_finite() && f64::from(q as f32) * y == x;
            finish_s(q, exact, flags)
        }
    }
}

/// `fmadd.s` in RNE on unboxed operands (`a`, `c` already negated per the variant).
///
/// The product of two binary32 values is exact in binary64, and TwoSum gives the exact error
/// of the binary64 sum `s` of it and the addend (no intermediate comes near either end of the
/// binary64 range). Rounding `s` to binary32 rounds the exact result correctly, except when
/// `s` is inexact and is itself a binary32 midpoint (a double rounding): those go to the
/// integer path.
pub fn fma_s(a: u32, b: u32, c: u32, flags: &mut u8) -> Option<u64> {
    let [x, y, z] = [a, b, c].map(|v| f64::from(f32::from_bits(v)));
    let p = x * y;
    let s = p + z;
    let err = two_sum_err(p, z, s);
    // A binary32 midpoint in binary32's normal range: of the 29 fraction bits binary32 drops,
    // only the top one is set.
    if err != 0.0 && s.to_bits() & 0x1fff_ffff == 0x1000_0000 {
        return None;
    }
    // NaN or infinite operands or results give a non-normal binary32 result below.
    finish_s(s, s.is_finite() && err == 0.0, flags)
}

/// `fsqrt.s` in RNE on an unboxed operand.
pub fn sqrt_s(a: u32, flags: &mut u8) -> Option<u64> {
    let x = f64::from(f32::from_bits(a));
    if !(x >= 0.0 && x.is_finite()) {
        return None;
    }
    let d = x.sqrt();
    let r = f64::from(d as f32);
    finish_s(d, r * r == x, flags)
}

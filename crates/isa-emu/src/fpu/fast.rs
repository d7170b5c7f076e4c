//! Host-arithmetic fast paths for round-to-nearest-even, used only where the result and
//! its flags are provably the same as the integer path's; each returns `None` otherwise.
//!
//! The host computes IEEE 754 binary64 operations correctly rounded to nearest-even (Rust
//! never changes the host rounding mode). Exactness, the only flag a fast path may raise
//! (NX), is decided by an error-free transformation. Results that could be tiny, overflow,
//! or be NaN, and infinite/NaN operands, are left to the integer path.
//!
//! Single precision is computed in binary64 and rounded once more to binary32; with
//! 53 >= 2 * 24 + 2 that double rounding is innocuous for +, -, *, / and sqrt (Figueroa,
//! "When is double rounding innocuous?", 1995).

use super::NX;

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

/// The rounding error of `s = RN(x + y)` is zero (Knuth's TwoSum, exact without overflow).
fn sum_is_exact(x: f64, y: f64, s: f64) -> bool {
    let yy = s - x;
    let xx = s - yy;
    (x - xx) + (y - yy) == 0.0
}

fn nx_if(inexact: bool, flags: &mut u8) {
    if inexact {
        *flags |= NX;
    }
}

/// `fadd.d` in RNE.
pub fn add_d(a: u64, b: u64, flags: &mut u8) -> Option<u64> {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let s = x + y;
    // Keep TwoSum's intermediates clear of overflow.
    let lim = pow2(1020);
    if !(x.abs() < lim && y.abs() < lim && s.abs() < lim) {
        return None;
    }
    if s == 0.0 {
        // Finite operands summing to zero do so exactly, and the host's zero sign is RNE's.
        return Some(s.to_bits());
    }
    if !normal_f64(s) {
        return None;
    }
    nx_if(!sum_is_exact(x, y, s), flags);
    Some(s.to_bits())
}

/// `fmul.d` in RNE.
pub fn mul_d(a: u64, b: u64, flags: &mut u8) -> Option<u64> {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let p = x * y;
    if !normal_f64(p) {
        // A zero product of finite operands is exact only if an operand is zero.
        return (p == 0.0 && (x == 0.0 || y == 0.0)).then_some(p.to_bits());
    }
    // Exact iff the significand product spans at most 53 bits.
    let sig = |v: u64| (v & ((1 << 52) - 1)) | u64::from(v & (0x7ff << 52) != 0) << 52;
    let prod = u128::from(sig(a)) * u128::from(sig(b));
    let span = 128 - prod.leading_zeros() - prod.trailing_zeros();
    nx_if(span > 53, flags);
    Some(p.to_bits())
}

/// `fdiv.d` in RNE.
pub fn div_d(a: u64, b: u64, flags: &mut u8) -> Option<u64> {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let q = x / y;
    if !(mid_range(x) && mid_range(y) && mid_range(q)) {
        return None;
    }
    // The residual x - q*y of a correctly rounded quotient is representable, so the fused
    // multiply-add computes it exactly.
    nx_if((-q).mul_add(y, x) != 0.0, flags);
    Some(q.to_bits())
}

/// `fsqrt.d` in RNE.
pub fn sqrt_d(a: u64, flags: &mut u8) -> Option<u64> {
    let x = f64::from_bits(a);
    if !mid_range(x) || x < 0.0 {
        return None;
    }
    let r = x.sqrt();
    nx_if((-r).mul_add(r, x) != 0.0, flags);
    Some(r.to_bits())
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
            finish_s(s, s.is_finite() && sum_is_exact(x, y, s), flags)
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

//! Seeded test-input generation biased toward the values where floating-point goes wrong.

use crate::fpu::soft::{Fmt, D, S};

/// SplitMix64: a small seeded generator, so failures reproduce from the printed seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0; the tiny modulo bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

/// `(-1)^neg * 1.frac * 2^exp` bits for a normal exponent, or raw field values.
fn compose(f: Fmt, neg: bool, biased_exp: u64, frac: u64) -> u64 {
    (u64::from(neg) << (f.exp_bits + f.frac_bits))
        | (biased_exp << f.frac_bits)
        | (frac & ((1 << f.frac_bits) - 1))
}

/// Bits of the float nearest to `v` (an integer-valued f64) in format `f`.
fn from_f64(f: Fmt, v: f64) -> u64 {
    if f.frac_bits == S.frac_bits {
        u64::from((v as f32).to_bits())
    } else {
        v.to_bits()
    }
}

/// Mask of every bit of format `f`.
fn all_bits(f: Fmt) -> u64 {
    u64::MAX >> (63 - f.exp_bits - f.frac_bits)
}

/// A fraction field with structure: random, all ones, sparse, ties-prone trailing zeros.
fn frac(r: &mut Rng, f: Fmt) -> u64 {
    let mask = (1u64 << f.frac_bits) - 1;
    match r.below(6) {
        0 => mask,
        1 => 0,
        2 => 1 << r.below(u64::from(f.frac_bits)),
        3 => mask ^ (1 << r.below(u64::from(f.frac_bits))),
        // Few significant bits: exact products/quotients and exact ties.
        4 => (r.next() & mask) >> r.below(u64::from(f.frac_bits)) << r.below(8),
        _ => r.next() & mask,
    }
}

/// A floating-point operand of format `f` (raw bits, not boxed).
pub fn float(r: &mut Rng, f: Fmt) -> u64 {
    let max_exp = (1u64 << f.exp_bits) - 1;
    let bias = max_exp / 2;
    let neg = r.chance(2);
    let quiet = 1u64 << (f.frac_bits - 1);
    match r.below(16) {
        0 => compose(f, neg, 0, 0),
        1 => compose(f, neg, max_exp, 0),
        // NaNs: canonical, quiet with payload, signaling with payload.
        2 => match r.below(3) {
            0 => f.nan(),
            1 => compose(f, neg, max_exp, quiet | r.next()),
            _ => compose(f, neg, max_exp, (r.next() & (quiet - 1)).max(1)),
        },
        // Subnormals and the smallest normals.
        3 | 4 => compose(f, neg, r.below(3), frac(r, f)),
        // The largest normals.
        5 => compose(f, neg, max_exp - 1 - r.below(3), frac(r, f)),
        // Exponents near the ends of the range (over/underflowing products and quotients).
        6 => compose(f, neg, r.below(bias / 2 + 1), frac(r, f)),
        7 => compose(f, neg, max_exp - 1 - r.below(bias / 2), frac(r, f)),
        // Near integer conversion limits: 2^31, 2^32, 2^63, 2^64 plus a few ulps either way.
        8 => {
            let limit = [31.0, 32.0, 63.0, 64.0][r.below(4) as usize];
            let base = from_f64(f, 2f64.powf(limit)) | u64::from(neg) << (f.exp_bits + f.frac_bits);
            base.wrapping_add(r.below(5)).wrapping_sub(2)
        }
        // Small integers and halves (conversion ties).
        9 => from_f64(
            f,
            (r.below(64) as f64 - 32.0) * [1.0, 0.5, 0.25][r.below(3) as usize],
        ),
        // Moderate values around 1.
        10..=12 => compose(f, neg, bias - 8 + r.below(16), frac(r, f)),
        13 => compose(f, neg, bias - 64 + r.below(128), frac(r, f)),
        _ => r.next() & all_bits(f),
    }
}

/// A second operand related to `a` (cancellation, near ties) or independent.
pub fn partner(r: &mut Rng, f: Fmt, a: u64) -> u64 {
    match r.below(5) {
        0 => {
            a.wrapping_add(r.below(7)).wrapping_sub(3)
                ^ (u64::from(r.chance(2)) << (f.exp_bits + f.frac_bits))
        }
        1 => {
            // Same magnitude region, shifted exponent: alignment shifts around the precision.
            let shift = r.below(u64::from(f.frac_bits) + 8) << f.frac_bits;
            (if r.chance(2) {
                a.wrapping_add(shift)
            } else {
                a.wrapping_sub(shift)
            }) & all_bits(f)
        }
        2 => {
            // A factor putting a * b just around 2^emin when a is below 1 with a full
            // significand: the tininess-after-rounding boundary.
            let bias = (1u64 << (f.exp_bits - 1)) - 1;
            let field = (a >> f.frac_bits) & ((1 << f.exp_bits) - 1);
            match bias.checked_sub(field) {
                Some(b_field) if b_field >= 1 => compose(f, r.chance(2), b_field, r.below(4)),
                _ => float(r, f),
            }
        }
        _ => float(r, f),
    }
}

/// An f-register value holding single `x`: NaN-boxed, or rarely not (reads as canonical NaN).
pub fn boxed(r: &mut Rng, x: u64) -> u64 {
    if r.chance(40) {
        // Upper half anything but all ones.
        let upper = r.next() & 0xffff_fffe_ffff_ffff;
        (upper & 0xffff_ffff_0000_0000) | x
    } else {
        0xffff_ffff_0000_0000 | x
    }
}

/// An x-register value for integer-to-float conversions: near powers of two, small, random.
pub fn int(r: &mut Rng) -> u64 {
    match r.below(5) {
        0 => {
            let k = r.below(65);
            (1u128 << k)
                .wrapping_add(u128::from(r.below(9)))
                .wrapping_sub(4) as u64
        }
        1 => (r.below(2000) as i64 - 1000) as u64,
        // Random bit length: exercises every rounding position.
        2 => r.next() >> r.below(64),
        3 => (r.next() >> r.below(64)).wrapping_neg(),
        _ => r.next(),
    }
}

/// The format of a test's operands.
pub fn fmt(double: bool) -> Fmt {
    if double {
        D
    } else {
        S
    }
}

//! Random initial register values, biased towards the corner cases of integer and
//! IEEE-754 arithmetic (the bit patterns where implementations usually disagree).

use rand::seq::SliceRandom;
use rand::Rng;
use rand_pcg::Pcg64;

/// A 64-bit integer register value: extremes, sign boundaries of both widths, small
/// numbers, powers of two and their neighbours, FP bit patterns, or plain random bits.
pub fn int_value(rng: &mut Pcg64) -> u64 {
    const FIXED: &[u64] = &[
        0,
        1,
        u64::MAX,
        i64::MIN as u64,
        i64::MAX as u64,
        0xffff_ffff_8000_0000,
        0x8000_0000,
        0x7fff_ffff,
        0xffff_ffff,
        0x1_0000_0000,
    ];
    match rng.gen_range(0..8) {
        0 => *FIXED.choose(rng).unwrap_or(&0),
        1 => rng.gen_range(-64i64..64) as u64,
        2 => {
            let p = 1u64 << rng.gen_range(0..64);
            [p, p.wrapping_sub(1), p.wrapping_add(1), p.wrapping_neg()][rng.gen_range(0..4)]
        }
        3 => i64::from(rng.gen::<i32>()) as u64,
        4 => u64::from(rng.gen::<u32>()),
        5 => {
            let single = rng.gen();
            fp_value(rng, single)
        }
        _ => rng.gen(),
    }
}

/// The fields of one IEEE-754 binary format.
struct Format {
    /// Exponent bits.
    exp_bits: u32,
    /// Fraction (trailing significand) bits.
    frac_bits: u32,
}

const SINGLE: Format = Format {
    exp_bits: 8,
    frac_bits: 23,
};
const DOUBLE: Format = Format {
    exp_bits: 11,
    frac_bits: 52,
};

impl Format {
    fn bias(&self) -> u64 {
        (1 << (self.exp_bits - 1)) - 1
    }
    fn max_exp(&self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    fn frac_mask(&self) -> u64 {
        (1 << self.frac_bits) - 1
    }
    fn pack(&self, sign: bool, exp: u64, frac: u64) -> u64 {
        (u64::from(sign) << (self.exp_bits + self.frac_bits))
            | ((exp & self.max_exp()) << self.frac_bits)
            | (frac & self.frac_mask())
    }

    /// A random value of this format, biased to specials: zeros, infinities, quiet and
    /// signalling NaNs with payloads, subnormals, extreme normals, numbers near the integer
    /// conversion limits 2^31, 2^32, 2^63, 2^64, halves (ties when rounding to integer) and
    /// significands with a tie or near-tie pattern in their low bits.
    fn random(&self, rng: &mut Pcg64) -> u64 {
        let sign = rng.gen_bool(0.5);
        let quiet = 1u64 << (self.frac_bits - 1);
        let frac: u64 = rng.gen::<u64>() & self.frac_mask();
        let max = self.max_exp();
        let bias = self.bias();
        match rng.gen_range(0..18) {
            0 => self.pack(sign, 0, 0),
            1 => self.pack(sign, max, 0),
            // Quiet NaN: canonical or with a payload.
            2 => self.pack(sign, max, quiet | if rng.gen() { 0 } else { frac }),
            // Signalling NaN: quiet bit clear, payload non-zero.
            3 => self.pack(sign, max, (frac & !quiet).max(1)),
            // Subnormals: smallest, largest, random.
            4 => self.pack(
                sign,
                0,
                [1, self.frac_mask(), frac.max(1)][rng.gen_range(0..3)],
            ),
            // Smallest and largest normal.
            5 => self.pack(
                sign,
                if rng.gen() { 1 } else { max - 1 },
                frac_pattern(self, rng),
            ),
            // Near the integer conversion limits: 2^k times a significand close to 1 or 2.
            6 => {
                let k = [31u64, 32, 63, 64][rng.gen_range(0..4)];
                let e = bias + k - u64::from(rng.gen_bool(0.5));
                self.pack(sign, e, frac_pattern(self, rng))
            }
            // Small numbers with a fractional part: halves and near-halves, ties to integer.
            7 => {
                let j = rng.gen_range(0..6);
                self.pack(sign, bias + j, frac_pattern_at(self, rng, j as u32))
            }
            // Exponents near the extremes, to over- and underflow in arithmetic.
            8 => {
                let e = if rng.gen() {
                    rng.gen_range(1..=self.frac_bits as u64 + 2)
                } else {
                    max - rng.gen_range(1..=4)
                };
                self.pack(sign, e, frac_pattern(self, rng))
            }
            // Exact small integers and one.
            9 => {
                let e = bias + rng.gen_range(0..4);
                self.pack(sign, e, frac & !(self.frac_mask() >> 3))
            }
            _ => {
                let e = bias - 8 + rng.gen_range(0..16);
                self.pack(sign, e, frac_pattern(self, rng))
            }
        }
    }
}

/// A fraction whose low bits sit at or next to a rounding tie for the narrower formats
/// and for integer conversion, or all zeros / all ones, or random.
fn frac_pattern(f: &Format, rng: &mut Pcg64) -> u64 {
    let keep = rng.gen_range(0..f.frac_bits);
    frac_pattern_at(f, rng, keep)
}

/// Like [`frac_pattern`], with the tie placed below the top `keep` fraction bits.
fn frac_pattern_at(f: &Format, rng: &mut Pcg64, keep: u32) -> u64 {
    let mask = f.frac_mask();
    let r: u64 = rng.gen::<u64>() & mask;
    // The bit below the kept part when rounding to `keep` fraction bits.
    let half = 1u64 << (f.frac_bits - 1 - keep);
    let high = r & !((half << 1) - 1) & mask;
    match rng.gen_range(0..6) {
        0 => 0,
        1 => mask,
        2 => high | half,
        3 => high | (half - 1),
        4 => (high | half | 1) & mask,
        // Double -> single ties: 29 dropped bits exactly one half.
        _ if f.frac_bits == 52 => (r & !((1 << 29) - 1)) | (1 << 28),
        _ => r,
    }
}

/// A raw 64-bit FP register value: a double, or a single that is NaN-boxed (upper 32 bits
/// all ones) or, less often, not properly boxed (so it must read as the canonical NaN).
pub fn fp_value(rng: &mut Pcg64, single: bool) -> u64 {
    if !single {
        return DOUBLE.random(rng);
    }
    let single = SINGLE.random(rng);
    let upper: u64 = match rng.gen_range(0..8) {
        0 => 0,
        1 => 0xffff_fffe,
        2 => rng.gen::<u32>().into(),
        _ => 0xffff_ffff,
    };
    (upper << 32) | single
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn formats_pack_fields_in_place() {
        assert_eq!(
            DOUBLE.pack(true, DOUBLE.max_exp(), 0),
            0xfff0_0000_0000_0000
        );
        assert_eq!(SINGLE.pack(false, SINGLE.bias(), 0), 0x3f80_0000);
        assert_eq!(
            f64::from_bits(DOUBLE.pack(false, DOUBLE.bias() + 31, 0)),
            2f64.powi(31)
        );
    }

    #[test]
    fn fp_values_cover_the_special_classes() {
        let mut rng = Pcg64::seed_from_u64(7);
        let (mut nan, mut inf, mut sub, mut unboxed, mut snan) = (0, 0, 0, 0, 0);
        for _ in 0..4000 {
            let single = rng.gen();
            let v = fp_value(&mut rng, single);
            if v >> 32 == 0xffff_ffff {
                let s = f32::from_bits(v as u32);
                nan += usize::from(s.is_nan());
                inf += usize::from(s.is_infinite());
                sub += usize::from(s.is_subnormal());
                snan += usize::from(s.is_nan() && v & (1 << 22) == 0);
            } else {
                let d = f64::from_bits(v);
                unboxed += usize::from(!d.is_nan() || v >> 51 & 1 == 1);
            }
        }
        for (what, n) in [("nan", nan), ("inf", inf), ("sub", sub), ("snan", snan)] {
            assert!(n > 20, "{what}: {n}");
        }
        assert!(unboxed > 100);
    }
}

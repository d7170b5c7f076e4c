//! Bit-exact IEEE 754 binary32/binary64 arithmetic in integer arithmetic, with RISC-V
//! conventions: tininess after rounding, canonical NaN results, saturating conversions.
//!
//! Every function takes the format as a [`Fmt`] value and raw bits in the low bits of a
//! `u64`; with the two formats as constants the compiler specialises each call site.
//! A finite nonzero value is handled as `sig * 2^exp` with an integer `sig` (u64/u128), and
//! every result goes through [`round_pack`], the single rounding step.

use super::{DZ, NV, NX, OF, UF};

/// Rounding modes, as encoded in the `rm` field and `frm`.
pub const RNE: u8 = 0;
/// Round towards zero.
pub const RTZ: u8 = 1;
/// Round down (towards -inf).
pub const RDN: u8 = 2;
/// Round up (towards +inf).
pub const RUP: u8 = 3;
/// Round to nearest, ties to max magnitude.
pub const RMM: u8 = 4;

/// An IEEE 754 binary interchange format.
#[derive(Clone, Copy, Debug)]
pub struct Fmt {
    /// Width of the exponent field.
    pub exp_bits: u32,
    /// Width of the fraction (trailing significand) field.
    pub frac_bits: u32,
}

/// binary32 (single precision).
pub const S: Fmt = Fmt {
    exp_bits: 8,
    frac_bits: 23,
};
/// binary64 (double precision).
pub const D: Fmt = Fmt {
    exp_bits: 11,
    frac_bits: 52,
};

impl Fmt {
    const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// Unbiased exponent of the smallest normal number.
    const fn emin(self) -> i32 {
        1 - self.bias()
    }
    /// The sign bit.
    pub const fn sign(self) -> u64 {
        1 << (self.exp_bits + self.frac_bits)
    }
    /// Bits of +infinity (the exponent field mask).
    pub const fn inf(self) -> u64 {
        ((1 << self.exp_bits) - 1) << self.frac_bits
    }
    const fn frac_mask(self) -> u64 {
        (1 << self.frac_bits) - 1
    }
    /// The canonical quiet NaN.
    pub const fn nan(self) -> u64 {
        self.inf() | 1 << (self.frac_bits - 1)
    }
    /// Magnitude bits (sign cleared).
    const fn abs(self, x: u64) -> u64 {
        x & (self.sign() - 1)
    }
    fn is_neg(self, x: u64) -> bool {
        x & self.sign() != 0
    }
    /// True for any NaN.
    pub fn is_nan(self, x: u64) -> bool {
        self.abs(x) > self.inf()
    }
    /// True for a signaling NaN.
    pub fn is_snan(self, x: u64) -> bool {
        self.is_nan(x) && x & (1 << (self.frac_bits - 1)) == 0
    }
    fn is_inf(self, x: u64) -> bool {
        self.abs(x) == self.inf()
    }
    fn is_zero(self, x: u64) -> bool {
        self.abs(x) == 0
    }
    fn zero(self, neg: bool) -> u64 {
        if neg {
            self.sign()
        } else {
            0
        }
    }
    fn signed_inf(self, neg: bool) -> u64 {
        self.zero(neg) | self.inf()
    }
    /// `(sig, exp)` with value `sig * 2^exp` for a finite nonzero `x`; `sig < 2^(frac_bits+1)`.
    fn unpack(self, x: u64) -> (u64, i32) {
        let biased = (self.abs(x) >> self.frac_bits) as i32;
        let frac = x & self.frac_mask();
        if biased == 0 {
            (frac, self.emin() - self.frac_bits as i32)
        } else {
            (
                frac | 1 << self.frac_bits,
                biased - self.bias() - self.frac_bits as i32,
            )
        }
    }
}

/// Splits `sig` at bit `drop` (>= 1): the kept high part, the round bit (the highest dropped
/// bit) and the sticky bit (any lower dropped bit set).
fn split(sig: u128, drop: u32) -> (u128, bool, bool) {
    match drop {
        0 => (sig, false, false),
        1..=127 => (
            sig >> drop,
            (sig >> (drop - 1)) & 1 != 0,
            sig & ((1u128 << (drop - 1)) - 1) != 0,
        ),
        128 => (0, sig >> 127 != 0, sig & (u128::MAX >> 1) != 0),
        _ => (0, false, sig != 0),
    }
}

/// Whether rounding increments the kept magnitude.
fn round_up(rm: u8, neg: bool, odd: bool, round: bool, sticky: bool) -> bool {
    match rm {
        RTZ => false,
        RDN => neg && (round || sticky),
        RUP => !neg && (round || sticky),
        RMM => round,
        // RNE; the interpreter never passes other values.
        _ => round && (sticky || odd),
    }
}

/// Shifts `x` right by `d`, OR-ing every bit shifted out into bit 0 ("jamming"): the result
/// rounds like the exact value at any position at least two bits above bit 0.
fn shift_right_jam(x: u128, d: u32) -> u128 {
    match d {
        0 => x,
        1..=127 => (x >> d) | u128::from(x & ((1u128 << d) - 1) != 0),
        _ => u128::from(x != 0),
    }
}

/// Rounds `(-1)^neg * sig * 2^exp` (`sig != 0`) to format `f` under `rm`, accruing NX, UF
/// (tiny after rounding and inexact) and OF. `sig` may carry a jammed sticky bit in bit 0
/// provided the rounding position is at least two bits higher.
pub fn round_pack(f: Fmt, neg: bool, exp: i32, sig: u128, rm: u8, flags: &mut u8) -> u64 {
    let p = f.frac_bits as i32 + 1;
    let msb = 127 - sig.leading_zeros() as i32;
    // Unbiased exponent of the exact value's leading bit.
    let e = exp + msb;
    let emin = f.emin();
    let normal_drop = msb + 1 - p;
    let drop = normal_drop + (emin - e).max(0);
    let (kept, inexact) = if drop <= 0 {
        ((sig << -drop) as u64, false)
    } else {
        let (k, r, s) = split(sig, drop as u32);
        let up = round_up(rm, neg, k & 1 != 0, r, s);
        ((k + u128::from(up)) as u64, r || s)
    };
    if inexact {
        *flags |= NX;
        let tiny = match e.cmp(&(emin - 1)) {
            std::cmp::Ordering::Less => true,
            // Tiny unless rounding to p bits with unbounded exponent carries up to 2^emin.
            std::cmp::Ordering::Equal => {
                normal_drop <= 0 || {
                    let (k, r, s) = split(sig, normal_drop as u32);
                    k + u128::from(round_up(rm, neg, k & 1 != 0, r, s)) != 1u128 << p
                }
            }
            std::cmp::Ordering::Greater => false,
        };
        if tiny {
            *flags |= UF;
        }
    }
    // `kept` includes the leading bit, so adding it to (biased exponent - 1) both sets the
    // implicit bit's exponent and absorbs a rounding carry; subnormals get field 0.
    let field = (e.max(emin) + f.bias() - 1) as u64;
    let bits = (field << f.frac_bits) + kept;
    if bits >= f.inf() {
        *flags |= OF | NX;
        let to_inf = match rm {
            RTZ => false,
            RDN => neg,
            RUP => !neg,
            _ => true,
        };
        return if to_inf {
            f.signed_inf(neg)
        } else {
            f.zero(neg) | (f.inf() - 1)
        };
    }
    f.zero(neg) | bits
}

/// The canonical NaN, raising NV if any operand is a signaling NaN.
fn nan_result(f: Fmt, ops: &[u64], flags: &mut u8) -> u64 {
    if ops.iter().any(|&x| f.is_snan(x)) {
        *flags |= NV;
    }
    f.nan()
}

/// Invalid operation: NV and the canonical NaN.
fn invalid(f: Fmt, flags: &mut u8) -> u64 {
    *flags |= NV;
    f.nan()
}

/// The exact zero sum of operands of opposite sign: -0 only when rounding down.
fn exact_zero_sum(f: Fmt, rm: u8) -> u64 {
    f.zero(rm == RDN)
}

/// Adds two nonzero magnitudes `x * 2^ex` and `y * 2^ey` (normalised so both leading bits
/// sit at the same position with room for a carry) with signs, then rounds.
fn add_aligned(
    f: Fmt,
    (xn, ex, x): (bool, i32, u128),
    (yn, ey, y): (bool, i32, u128),
    rm: u8,
    flags: &mut u8,
) -> u64 {
    let ((bn, be, big), (sn, _, small), d) = if ex >= ey {
        ((xn, ex, x), (yn, ey, y), (ex - ey) as u32)
    } else {
        ((yn, ey, y), (xn, ex, x), (ey - ex) as u32)
    };
    let small = shift_right_jam(small, d);
    let (neg, sig) = if bn == sn {
        (bn, big + small)
    } else if big >= small {
        (bn, big - small)
    } else {
        (sn, small - big)
    };
    if sig == 0 {
        return exact_zero_sum(f, rm);
    }
    round_pack(f, neg, be, sig, rm, flags)
}

/// `a + b`.
pub fn add(f: Fmt, a: u64, b: u64, rm: u8, flags: &mut u8) -> u64 {
    if f.is_nan(a) || f.is_nan(b) {
        return nan_result(f, &[a, b], flags);
    }
    let (an, bn) = (f.is_neg(a), f.is_neg(b));
    match (f.is_inf(a), f.is_inf(b)) {
        (true, true) if an != bn => return invalid(f, flags),
        (true, _) => return a,
        (_, true) => return b,
        _ => {}
    }
    match (f.is_zero(a), f.is_zero(b)) {
        (true, true) if an == bn => return a,
        (true, true) => return exact_zero_sum(f, rm),
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let (ma, ea) = f.unpack(a);
    let (mb, eb) = f.unpack(b);
    // 64 guard bits below each significand keep jamming well below the rounding position.
    add_aligned(
        f,
        (an, ea - 64, u128::from(ma) << 64),
        (bn, eb - 64, u128::from(mb) << 64),
        rm,
        flags,
    )
}

/// `a - b`.
pub fn sub(f: Fmt, a: u64, b: u64, rm: u8, flags: &mut u8) -> u64 {
    // Flipping the sign of a NaN keeps it a NaN of the same kind, so this is exact.
    add(f, a, b ^ f.sign(), rm, flags)
}

/// `a * b`.
pub fn mul(f: Fmt, a: u64, b: u64, rm: u8, flags: &mut u8) -> u64 {
    if f.is_nan(a) || f.is_nan(b) {
        return nan_result(f, &[a, b], flags);
    }
    let neg = f.is_neg(a) != f.is_neg(b);
    let (ai, bi, az, bz) = (f.is_inf(a), f.is_inf(b), f.is_zero(a), f.is_zero(b));
    if (ai && bz) || (az && bi) {
        return invalid(f, flags);
    }
    if ai || bi {
        return f.signed_inf(neg);
    }
    if az || bz {
        return f.zero(neg);
    }
    let (ma, ea) = f.unpack(a);
    let (mb, eb) = f.unpack(b);
    round_pack(f, neg, ea + eb, u128::from(ma) * u128::from(mb), rm, flags)
}

/// `(sig, exp)` of a finite nonzero `x` with the leading bit of `sig` at bit 63.
fn unpack_norm(f: Fmt, x: u64) -> (u64, i32) {
    let (m, e) = f.unpack(x);
    let lz = m.leading_zeros();
    (m << lz, e - lz as i32)
}

/// `a / b`.
pub fn div(f: Fmt, a: u64, b: u64, rm: u8, flags: &mut u8) -> u64 {
    if f.is_nan(a) || f.is_nan(b) {
        return nan_result(f, &[a, b], flags);
    }
    let neg = f.is_neg(a) != f.is_neg(b);
    let (ai, bi, az, bz) = (f.is_inf(a), f.is_inf(b), f.is_zero(a), f.is_zero(b));
    if (ai && bi) || (az && bz) {
        return invalid(f, flags);
    }
    if ai {
        return f.signed_inf(neg);
    }
    if bz {
        *flags |= DZ;
        return f.signed_inf(neg);
    }
    if az || bi {
        return f.zero(neg);
    }
    let (ma, ea) = unpack_norm(f, a);
    let (mb, eb) = unpack_norm(f, b);
    // Quotient of 64 or 65 bits, then one bit for the remainder's sticky.
    let num = u128::from(ma) << 64;
    let q = num / u128::from(mb);
    let rem = num % u128::from(mb);
    let sig = (q << 1) | u128::from(rem != 0);
    round_pack(f, neg, ea - eb - 65, sig, rm, flags)
}

/// Floor of the square root of `n`.
fn isqrt(n: u128) -> u128 {
    if n == 0 {
        return 0;
    }
    // The f64 estimate is within a few thousand units; one Newton step brings it to within
    // one, and the loops make it exact.
    let mut x = (n as f64).sqrt() as u128;
    if x == 0 {
        x = 1;
    }
    x = (x + n / x) / 2;
    while x.checked_mul(x).is_none_or(|sq| sq > n) {
        x -= 1;
    }
    while (x + 1).checked_mul(x + 1).is_some_and(|sq| sq <= n) {
        x += 1;
    }
    x
}

/// `sqrt(a)`.
pub fn sqrt(f: Fmt, a: u64, rm: u8, flags: &mut u8) -> u64 {
    if f.is_nan(a) {
        return nan_result(f, &[a], flags);
    }
    if f.is_zero(a) {
        return a;
    }
    if f.is_neg(a) {
        return invalid(f, flags);
    }
    if f.is_inf(a) {
        return a;
    }
    let (mut m, mut e) = unpack_norm(f, a);
    // Make the exponent even; bit 0 of m is zero after normalisation (sig < 2^53).
    if e & 1 != 0 {
        m >>= 1;
        e += 1;
    }
    let n = u128::from(m) << 64;
    let r = isqrt(n);
    let sig = (r << 1) | u128::from(r * r != n);
    round_pack(f, false, (e - 64) / 2 - 1, sig, rm, flags)
}

/// `a * b + c` with a single rounding; RISC-V raises NV for `inf * 0 + qNaN`.
pub fn fma(f: Fmt, a: u64, b: u64, c: u64, rm: u8, flags: &mut u8) -> u64 {
    let (ai, bi, az, bz) = (f.is_inf(a), f.is_inf(b), f.is_zero(a), f.is_zero(b));
    let inf_times_zero = (ai && bz) || (az && bi);
    if f.is_nan(a) || f.is_nan(b) || f.is_nan(c) {
        if inf_times_zero {
            *flags |= NV;
        }
        return nan_result(f, &[a, b, c], flags);
    }
    if inf_times_zero {
        return invalid(f, flags);
    }
    let pn = f.is_neg(a) != f.is_neg(b);
    let cn = f.is_neg(c);
    if ai || bi {
        if f.is_inf(c) && cn != pn {
            return invalid(f, flags);
        }
        return f.signed_inf(pn);
    }
    if f.is_inf(c) {
        return c;
    }
    if az || bz {
        if f.is_zero(c) {
            return if pn == cn {
                f.zero(pn)
            } else {
                exact_zero_sum(f, rm)
            };
        }
        return c;
    }
    let (ma, ea) = f.unpack(a);
    let (mb, eb) = f.unpack(b);
    let prod = u128::from(ma) * u128::from(mb);
    if f.is_zero(c) {
        return round_pack(f, pn, ea + eb, prod, rm, flags);
    }
    let (mc, ec) = f.unpack(c);
    // Both leading bits at bit 125: room for the carry, and jamming only ever happens far
    // below the rounding position of the sum.
    let ps = prod.leading_zeros() - 2;
    let cs = u128::from(mc).leading_zeros() - 2;
    add_aligned(
        f,
        (pn, ea + eb - ps as i32, prod << ps),
        (cn, ec - cs as i32, u128::from(mc) << cs),
        rm,
        flags,
    )
}

/// Converts between formats (`from` to `to`), canonicalising NaNs.
pub fn convert(from: Fmt, to: Fmt, a: u64, rm: u8, flags: &mut u8) -> u64 {
    if from.is_nan(a) {
        nan_result(from, &[a], flags);
        return to.nan();
    }
    let neg = from.is_neg(a);
    if from.is_inf(a) {
        return to.signed_inf(neg);
    }
    if from.is_zero(a) {
        return to.zero(neg);
    }
    let (m, e) = from.unpack(a);
    round_pack(to, neg, e, u128::from(m), rm, flags)
}

/// An integer conversion target: its range.
#[derive(Clone, Copy, Debug)]
pub struct IntFmt {
    /// Smallest value.
    pub min: i128,
    /// Largest value.
    pub max: i128,
    /// True for the 32-bit formats, whose results are sign-extended to 64 bits.
    pub word: bool,
}

/// `fcvt.w.*` target.
pub const W: IntFmt = IntFmt {
    min: i32::MIN as i128,
    max: i32::MAX as i128,
    word: true,
};
/// `fcvt.wu.*` target.
pub const WU: IntFmt = IntFmt {
    min: 0,
    max: u32::MAX as i128,
    word: true,
};
/// `fcvt.l.*` target.
pub const L: IntFmt = IntFmt {
    min: i64::MIN as i128,
    max: i64::MAX as i128,
    word: false,
};
/// `fcvt.lu.*` target.
pub const LU: IntFmt = IntFmt {
    min: 0,
    max: u64::MAX as i128,
    word: false,
};

impl IntFmt {
    /// The x-register value of `v` (which is in range): 32-bit results sign-extended.
    pub fn xreg_value(&self, v: i128) -> u64 {
        if self.word {
            v as u32 as i32 as i64 as u64
        } else {
            v as u64
        }
    }
}

/// Float to integer: rounds per `rm`; NaN and out-of-range values saturate (NaN to the
/// maximum) with NV only; in-range inexact results raise NX.
pub fn to_int(f: Fmt, t: &IntFmt, a: u64, rm: u8, flags: &mut u8) -> u64 {
    let neg = f.is_neg(a);
    let saturated = |flags: &mut u8| {
        *flags |= NV;
        t.xreg_value(if neg && !f.is_nan(a) { t.min } else { t.max })
    };
    if f.is_nan(a) || f.is_inf(a) {
        return saturated(flags);
    }
    if f.is_zero(a) {
        return 0;
    }
    let (m, e) = f.unpack(a);
    let (mag, inexact) = if e >= 0 {
        if e > 64 {
            return saturated(flags);
        }
        (u128::from(m) << e, false)
    } else {
        let (k, r, s) = split(u128::from(m), e.unsigned_abs());
        (k + u128::from(round_up(rm, neg, k & 1 != 0, r, s)), r || s)
    };
    let v = if neg { -(mag as i128) } else { mag as i128 };
    if v < t.min || v > t.max {
        return saturated(flags);
    }
    if inexact {
        *flags |= NX;
    }
    t.xreg_value(v)
}

/// Integer (x-register value `x`, read as format `t`) to float.
pub fn from_int(f: Fmt, t: &IntFmt, x: u64, rm: u8, flags: &mut u8) -> u64 {
    let v: i128 = match (t.word, t.min < 0) {
        (true, true) => i128::from(x as i32),
        (true, false) => i128::from(x as u32),
        (false, true) => i128::from(x as i64),
        (false, false) => i128::from(x),
    };
    if v == 0 {
        return 0;
    }
    round_pack(f, v < 0, 0, v.unsigned_abs(), rm, flags)
}

/// An ordering key: increasing with the value, equal for +0 and -0 (not for NaN).
fn key(f: Fmt, x: u64) -> i64 {
    let mag = f.abs(x) as i64;
    if f.is_neg(x) {
        -mag
    } else {
        mag
    }
}

/// `feq`: quiet comparison (NV only for signaling NaN).
pub fn feq(f: Fmt, a: u64, b: u64, flags: &mut u8) -> u64 {
    if f.is_nan(a) || f.is_nan(b) {
        nan_result(f, &[a, b], flags);
        return 0;
    }
    u64::from(key(f, a) == key(f, b))
}

/// `flt` (`le == false`) or `fle` (`le == true`): signaling comparisons (NV on any NaN).
pub fn flt_le(f: Fmt, a: u64, b: u64, le: bool, flags: &mut u8) -> u64 {
    if f.is_nan(a) || f.is_nan(b) {
        *flags |= NV;
        return 0;
    }
    let (ka, kb) = (key(f, a), key(f, b));
    u64::from(if le { ka <= kb } else { ka < kb })
}

/// `fmin` (`max == false`) or `fmax`, RISC-V 2.2 semantics: -0 < +0, one NaN operand
/// yields the other, two give the canonical NaN, signaling NaN raises NV.
pub fn fmin_max(f: Fmt, a: u64, b: u64, max: bool, flags: &mut u8) -> u64 {
    match (f.is_nan(a), f.is_nan(b)) {
        (true, true) => return nan_result(f, &[a, b], flags),
        (true, false) => {
            nan_result(f, &[a], flags);
            return b;
        }
        (false, true) => {
            nan_result(f, &[b], flags);
            return a;
        }
        _ => {}
    }
    // Ordering with -0 below +0: equal keys differ only for zeros of opposite sign.
    let (ka, kb) = (key(f, a), key(f, b));
    let a_less = ka < kb || (ka == kb && f.is_neg(a));
    if a_less != max {
        a
    } else {
        b
    }
}

/// `fclass`: a one-hot 10-bit mask.
pub fn class(f: Fmt, a: u64) -> u64 {
    let neg = f.is_neg(a);
    let bit = if f.is_nan(a) {
        if f.is_snan(a) {
            8
        } else {
            9
        }
    } else {
        let rank = if f.is_inf(a) {
            0
        } else if f.abs(a) >= 1 << f.frac_bits {
            1
        } else if !f.is_zero(a) {
            2
        } else {
            3
        };
        if neg {
            rank
        } else {
            7 - rank
        }
    };
    1 << bit
}

/// Sign injection: `fsgnj` (kind 0), `fsgnjn` (1), `fsgnjx` (2).
pub fn sgnj(f: Fmt, a: u64, b: u64, kind: u8) -> u64 {
    let s = f.sign();
    let sign = match kind {
        0 => b & s,
        1 => !b & s,
        _ => (a ^ b) & s,
    };
    (a & !s) | sign
}

//! A binary adaptive range coder (the LZMA design: 32-bit range, 11-bit probabilities that
//! move 1/32 of the way to each coded bit, carries propagated through a cached byte) and
//! the bit-tree and number models the grammar code builds on.
//!
//! Every decision is a binary one, so a model is a handful of probabilities and needs no
//! frequency tables; adaptation by exponential decay follows a stream whose statistics
//! drift, which a grammar's symbol stream does (its rules are introduced as it goes).

/// Probabilities are `prob / 2^PROB_BITS` that the next bit is 0.
const PROB_BITS: u32 = 11;
const PROB_ONE: u16 = 1 << PROB_BITS;
/// Adaptation speed: a probability moves `1 / 2^MOVE_BITS` of the way to the coded bit.
const MOVE_BITS: u32 = 5;
/// The range is renormalized (a byte shifted out) when it falls below this.
const TOP: u32 = 1 << 24;

/// One adaptive binary probability.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prob(u16);

impl Default for Prob {
    fn default() -> Self {
        Prob(PROB_ONE / 2)
    }
}

impl Prob {
    #[inline]
    fn update(&mut self, bit: bool) {
        if bit {
            self.0 -= self.0 >> MOVE_BITS;
        } else {
            self.0 += (PROB_ONE - self.0) >> MOVE_BITS;
        }
    }
}

/// The encoder: bits in, bytes out.
pub(crate) struct Encoder {
    low: u64,
    range: u32,
    /// The last byte not yet written (a carry may still increment it), and the number of
    /// pending bytes: it and the 0xFF bytes after it.
    cache: u8,
    cache_size: u64,
    out: Vec<u8>,
}

impl Encoder {
    pub(crate) fn new() -> Self {
        Encoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            cache_size: 1,
            out: Vec::new(),
        }
    }

    fn shift_low(&mut self) {
        if (self.low as u32) < 0xFF00_0000 || self.low >> 32 != 0 {
            let carry = (self.low >> 32) as u8;
            let mut byte = self.cache;
            loop {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xFF;
                self.cache_size -= 1;
                if self.cache_size == 0 {
                    break;
                }
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.cache_size += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    #[inline]
    fn normalize(&mut self) {
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    /// Codes `bit` with probability `p`, then adapts `p`.
    pub(crate) fn bit(&mut self, p: &mut Prob, bit: bool) {
        let bound = (self.range >> PROB_BITS) * u32::from(p.0);
        if bit {
            self.low += u64::from(bound);
            self.range -= bound;
        } else {
            self.range = bound;
        }
        p.update(bit);
        self.normalize();
    }

    /// Codes the low `n` bits of `v`, most significant first, each with probability 1/2.
    pub(crate) fn direct(&mut self, v: u64, n: u32) {
        for i in (0..n).rev() {
            self.range >>= 1;
            if v >> i & 1 == 1 {
                self.low += u64::from(self.range);
            }
            self.normalize();
        }
    }

    /// Flushes the coder's state and returns the bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.shift_low();
        }
        self.out
    }
}

/// The decoder: bytes in, bits out. Reading past the end of its input feeds zero bytes and
/// is remembered ([`overrun`](Self::overrun)): a truncated stream decodes to garbage that
/// the caller's checks reject, never to a panic.
pub(crate) struct Decoder<'a> {
    input: &'a [u8],
    pos: usize,
    range: u32,
    code: u32,
    overrun: bool,
}

impl<'a> Decoder<'a> {
    /// A decoder of `input`; `None` unless it begins as an encoder's output does (a zero
    /// byte, then at least four more).
    pub(crate) fn new(input: &'a [u8]) -> Option<Self> {
        if input.len() < 5 || input[0] != 0 {
            return None;
        }
        let code = u32::from_be_bytes([input[1], input[2], input[3], input[4]]);
        Some(Decoder {
            input,
            pos: 5,
            range: u32::MAX,
            code,
            overrun: false,
        })
    }

    /// Whether decoding read past the end of the input.
    pub(crate) fn overrun(&self) -> bool {
        self.overrun
    }

    #[inline]
    fn normalize(&mut self) {
        while self.range < TOP {
            let byte = match self.input.get(self.pos) {
                Some(&b) => b,
                None => {
                    self.overrun = true;
                    0
                }
            };
            self.pos += 1;
            self.range <<= 8;
            self.code = self.code << 8 | u32::from(byte);
        }
    }

    /// Decodes a bit coded with probability `p`, then adapts `p`.
    pub(crate) fn bit(&mut self, p: &mut Prob) -> bool {
        let bound = (self.range >> PROB_BITS) * u32::from(p.0);
        let bit = self.code >= bound;
        if bit {
            self.code -= bound;
            self.range -= bound;
        } else {
            self.range = bound;
        }
        p.update(bit);
        self.normalize();
        bit
    }

    /// Decodes `n` bits coded by [`Encoder::direct`].
    pub(crate) fn direct(&mut self, n: u32) -> u64 {
        let mut v = 0u64;
        for _ in 0..n {
            self.range >>= 1;
            let bit = self.code >= self.range;
            if bit {
                self.code -= self.range;
            }
            v = v << 1 | u64::from(bit);
            self.normalize();
        }
        v
    }
}

/// An adaptive model of `BITS`-bit values: a binary tree of probabilities, one per prefix.
#[derive(Clone, Debug)]
pub(crate) struct BitTree<const BITS: u32> {
    probs: Vec<Prob>,
}

impl<const BITS: u32> Default for BitTree<BITS> {
    fn default() -> Self {
        BitTree {
            probs: vec![Prob::default(); 1 << BITS],
        }
    }
}

impl<const BITS: u32> BitTree<BITS> {
    pub(crate) fn encode(&mut self, enc: &mut Encoder, v: u32) {
        let mut node = 1usize;
        for i in (0..BITS).rev() {
            let bit = v >> i & 1 == 1;
            enc.bit(&mut self.probs[node], bit);
            node = node << 1 | usize::from(bit);
        }
    }

    pub(crate) fn decode(&mut self, dec: &mut Decoder<'_>) -> u32 {
        let mut node = 1usize;
        for _ in 0..BITS {
            let bit = dec.bit(&mut self.probs[node]);
            node = node << 1 | usize::from(bit);
        }
        (node - (1 << BITS)) as u32
    }
}

/// How many of a number's bits below its leading one are modelled (the rest are coded
/// directly): the top of a magnitude class is skewed, its low bits are noise.
const MODELLED: u32 = 2;

/// An adaptive model of `u64` numbers that are mostly small: the bit length (0 to 64) by a
/// bit tree, then the [`MODELLED`] bits below the leading one by a tree per bit length,
/// then the rest directly.
#[derive(Clone, Debug)]
pub(crate) struct NumModel {
    length: BitTree<7>,
    top: Vec<BitTree<MODELLED>>,
}

impl Default for NumModel {
    fn default() -> Self {
        NumModel {
            length: BitTree::default(),
            top: vec![BitTree::default(); 65],
        }
    }
}

impl NumModel {
    pub(crate) fn encode(&mut self, enc: &mut Encoder, v: u64) {
        let len = 64 - v.leading_zeros();
        self.length.encode(enc, len);
        if len < 2 {
            return;
        }
        let below = len - 1;
        let modelled = below.min(MODELLED);
        let rest = below - modelled;
        // A short number's top bits are shifted into the tree's high end: the tree's
        // model per length keeps them apart.
        let top = ((v >> rest) & ((1 << modelled) - 1)) << (MODELLED - modelled);
        self.top[len as usize].encode(enc, top as u32);
        enc.direct(v, rest);
    }

    pub(crate) fn decode(&mut self, dec: &mut Decoder<'_>) -> Option<u64> {
        let len = self.length.decode(dec);
        match len {
            0 | 1 => return Some(u64::from(len)),
            65.. => return None,
            _ => {}
        }
        let below = len - 1;
        let modelled = below.min(MODELLED);
        let rest = below - modelled;
        let top = u64::from(self.top[len as usize].decode(dec) >> (MODELLED - modelled));
        let low = dec.direct(rest);
        Some((1u64 << below) | top << rest | low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_bits_round_trip() {
        let values: Vec<u64> = (0..64)
            .flat_map(|i| [1u64 << i, (1u64 << i) - 1, (1u64 << i) + 1])
            .chain([0, 1, 2, 3, 5, 7, 1000, u64::MAX, u64::MAX - 1])
            .collect();
        let (mut num, mut p, mut tree) = (
            NumModel::default(),
            Prob::default(),
            BitTree::<3>::default(),
        );
        let mut enc = Encoder::new();
        for (i, &v) in values.iter().enumerate() {
            num.encode(&mut enc, v);
            enc.bit(&mut p, v & 1 == 1);
            tree.encode(&mut enc, (i % 8) as u32);
            enc.direct(v, 13);
        }
        let bytes = enc.finish();
        let (mut num, mut p, mut tree) = (
            NumModel::default(),
            Prob::default(),
            BitTree::<3>::default(),
        );
        let mut dec = Decoder::new(&bytes).expect("an encoder's output");
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(num.decode(&mut dec), Some(v));
            assert_eq!(dec.bit(&mut p), v & 1 == 1);
            assert_eq!(tree.decode(&mut dec), (i % 8) as u32);
            assert_eq!(dec.direct(13), v & 0x1FFF);
        }
        assert!(!dec.overrun());
    }

    #[test]
    fn a_skewed_stream_codes_below_its_raw_size() {
        // 10 000 bits, 1 in 64 set: about 0.12 bits each at best.
        let mut enc = Encoder::new();
        let mut p = Prob::default();
        for i in 0..10_000 {
            enc.bit(&mut p, i % 64 == 0);
        }
        let bytes = enc.finish();
        assert!(bytes.len() < 300, "{} bytes", bytes.len());
    }

    #[test]
    fn truncated_input_is_noticed() {
        let mut enc = Encoder::new();
        enc.direct(0xDEAD_BEEF_CAFE, 48);
        let bytes = enc.finish();
        assert!(Decoder::new(&bytes[..4]).is_none());
        let mut dec = Decoder::new(&bytes[..5]).expect("a header");
        let _ = dec.direct(48);
        assert!(dec.overrun());
    }
}

//! Proptest strategies (feature `proptest`): legal RV64GC encodings and their decoded form,
//! for property tests of anything that consumes instructions (decoders, analyses that walk
//! code through [`CodeView`](prof_events::CodeView), instrumentation planners).

use proptest::prelude::*;

use crate::decode::decode;
use crate::insn::{Insn, Op};

/// A legal 32-bit or 16-bit encoding (the latter in the low half) with its decoded form.
pub fn legal_insn() -> impl Strategy<Value = (u32, Insn)> {
    // Steering the major opcode to the RV64GC ones makes legal encodings common; the filter
    // then keeps only those the decoder accepts.
    const MAJOR: [u32; 21] = [
        0x03, 0x07, 0x0f, 0x13, 0x17, 0x1b, 0x23, 0x27, 0x2f, 0x33, 0x37, 0x3b, 0x43, 0x47, 0x4b,
        0x4f, 0x53, 0x63, 0x67, 0x6f, 0x73,
    ];
    let wide = (prop::sample::select(&MAJOR[..]), any::<u32>())
        .prop_map(|(major, rest)| (rest & !0x7f) | major);
    let compressed = any::<u16>()
        .prop_filter("compressed", |h| h & 3 != 3)
        .prop_map(u32::from);
    prop_oneof![3 => wide, 1 => compressed]
        .prop_map(|raw| (raw, decode(raw)))
        .prop_filter("legal", |(_, insn)| insn.op != Op::Illegal)
}

/// A straight-line sequence of legal encodings as little-endian bytes (what a code buffer
/// holds), with the decoded instructions.
pub fn code(max_insns: usize) -> impl Strategy<Value = (Vec<u8>, Vec<Insn>)> {
    proptest::collection::vec(legal_insn(), 1..=max_insns.max(1)).prop_map(|v| {
        let mut bytes = Vec::new();
        let mut insns = Vec::new();
        for (raw, insn) in v {
            let n = usize::from(insn.len);
            bytes.extend_from_slice(&raw.to_le_bytes()[..n]);
            insns.push(insn);
        }
        (bytes, insns)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Memory;

    proptest! {
        #[test]
        fn code_decodes_back_to_its_instructions((bytes, insns) in code(16)) {
            let mut mem = Memory::new(0x1000, 0x1000).unwrap();
            mem.write_bytes(0x1000, &bytes).unwrap();
            let mut pc = 0x1000;
            for insn in insns {
                let raw = mem.load_u::<4>(pc).unwrap_or_else(|_| mem.load_u::<2>(pc).unwrap());
                prop_assert_eq!(decode(raw as u32), insn);
                pc += u64::from(insn.len);
            }
        }
    }
}

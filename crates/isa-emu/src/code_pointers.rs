//! Code pointers: where inside its function an indirect jump may land that the jump-table
//! analysis (isa-emu's `jump_table`) does not resolve.
//!
//! Such a jump is a computed goto (`goto *p`: glibc's `vfprintf` dispatches on each
//! character of the format through tables of label addresses) or a switch whose index the
//! analysis loses. In a statically linked executable (the loader refuses static-PIE, so no
//! relocation is left to apply at run time) the address of an instruction inside a
//! function comes from one of three places:
//!
//! - the function's own code, which forms it: `lui` or `auipc`, then at most an addition
//!   of 12 bits (`addi`, or the offset of a `jalr`, a load or a store). The analyses
//!   assume, as the jump-table analysis does, that a function is entered only at its entry,
//!   so no other function forms such an address (C cannot: a label's address is taken in
//!   its own function);
//! - the file's data: a table of label addresses that the static linker filled in, copied
//!   around as the program runs;
//! - a call, which links its return address (the instruction after the call, where a
//!   block starts anyway).
//!
//! So where a function's code forms no address inside itself and each of its indirect
//! jumps goes to a doubleword it loaded (a pointer from memory: a switch's table holds
//! offsets, which a jump reaches through an addition, and is ruled out), the jumps land on
//! the words of the file's data that point inside it, or on return sites.
//! [`CodePointers`] lists the words, once per image: those at 8-byte aligned addresses
//! (where the psABI places a pointer) of the loaded segments' file bytes that point into
//! an executable segment. [`CodePointers::inside`] checks the function and gives its
//! landing places, or `None` (an analysis must then take its jumps as landing on any
//! instruction).

use std::collections::HashSet;

use prof_events::FlowClass;

use crate::block::decode_fetched;
use crate::elf::ElfImage;
use crate::insn::{Insn, Op};

/// The reach of the 12-bit signed addition that completes a `lui` or `auipc`.
const LO12: u64 = 2048;

/// The code pointers of one image's data (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct CodePointers {
    /// Words of the file's data that point into an executable segment, ascending, each once.
    held: Vec<u64>,
}

impl CodePointers {
    /// Scans `image`'s segments' file bytes for held words.
    pub fn of(image: &ElfImage) -> CodePointers {
        let exec: Vec<(u64, u64)> = image.exec_ranges().collect();
        let is_code = |w: u64| exec.iter().any(|&(lo, hi)| (lo..hi).contains(&w));
        let mut held: Vec<u64> = image
            .segments
            .iter()
            .flat_map(|s| {
                let skip = (s.vaddr.wrapping_neg() % 8) as usize;
                s.data.get(skip..).unwrap_or_default().chunks_exact(8)
            })
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default()))
            .filter(|&w| is_code(w))
            .collect();
        held.sort_unstable();
        held.dedup();
        CodePointers { held }
    }

    /// The held code pointers inside the function whose code, `code`, starts at `start`,
    /// that start one of its instructions (decoded linearly), ascending, if its code forms
    /// no address past its entry (the entry itself may be formed: a recursive call) and
    /// each of its indirect jumps goes to a doubleword it loaded; `None` if not.
    pub fn inside(&self, start: u64, code: &[u8]) -> Option<Vec<u64>> {
        let insns = decoded(start, code);
        let end = start.saturating_add(code.len() as u64);
        let interior = start.saturating_add(1)..end;
        if formed(&insns).any(|(lo, hi)| hi >= interior.start && lo < interior.end) {
            return None;
        }
        let at = self.held.partition_point(|&w| w < start);
        // (A held word inside an instruction is no label.)
        let held: Vec<u64> = self.held[at..]
            .iter()
            .take_while(|&&w| w < end)
            .filter(|&&w| insns.binary_search_by_key(&w, |&(pc, _)| pc).is_ok())
            .copied()
            .collect();
        jumps_load_pointers(&insns, &held).then_some(held)
    }
}

/// The instructions of `code` (loaded at `base`), decoded linearly, with their addresses,
/// up to the first that is cut off by its end.
fn decoded(base: u64, code: &[u8]) -> Vec<(u64, Insn)> {
    let half = |a: u64| -> Result<u16, ()> {
        let k = usize::try_from(a.wrapping_sub(base)).map_err(|_| ())?;
        let b = code.get(k..k.saturating_add(2)).ok_or(())?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    };
    let mut insns = Vec::new();
    let mut pc = base;
    while let Ok(insn) = decode_fetched(half, pc) {
        insns.push((pc, insn));
        pc = pc.wrapping_add(u64::from(insn.len));
    }
    insns
}

/// Whether every indirect jump of `insns` (a function, decoded linearly) jumps to a
/// register that its block loaded with `ld` (and nothing wrote since): the block's start is
/// any target of a direct branch or jump, any of `held`, and any instruction after one that
/// does not fall through (or a call, whose callee changes the registers).
fn jumps_load_pointers(insns: &[(u64, Insn)], held: &[u64]) -> bool {
    let targets: HashSet<u64> = insns
        .iter()
        .filter_map(|&(pc, i)| match i.flow(pc) {
            FlowClass::Branch { target } | FlowClass::Jump { target } => Some(target),
            _ => None,
        })
        .collect();
    // Bit r: register r holds a doubleword the block loaded.
    let mut loaded = 0u32;
    for &(pc, i) in insns {
        if targets.contains(&pc) || held.binary_search(&pc).is_ok() {
            loaded = 0;
        }
        let flow = i.flow(pc);
        if flow == FlowClass::IndirectJump && loaded & (1 << (i.rs1 & 31)) == 0 {
            return false;
        }
        if (1..32).contains(&i.rd) {
            loaded &= !(1 << i.rd);
            if i.op == Op::Ld {
                loaded |= 1 << i.rd;
            }
        }
        if !matches!(flow, FlowClass::None | FlowClass::Branch { .. }) {
            loaded = 0;
        }
    }
    true
}

/// `[lo, hi]` of each value that `lui` and `auipc` form in `insns` (a function, decoded
/// linearly): a single value where an `addi`/`addiw` into the same register follows, none
/// where a `jalr` through it follows (`call`/`tail`), else the window of a 12-bit addition.
fn formed(insns: &[(u64, Insn)]) -> impl Iterator<Item = (u64, u64)> + '_ {
    insns.iter().enumerate().filter_map(|(k, &(pc, insn))| {
        let value = match insn.op {
            Op::Lui => i64::from(insn.imm) as u64,
            Op::Auipc => pc.wrapping_add(i64::from(insn.imm) as u64),
            _ => return None,
        };
        let rd = insn.rd;
        if !(1..32).contains(&rd) {
            return None;
        }
        let (lo, hi) = match insns.get(k + 1).map(|&(_, n)| n) {
            // `call`/`tail`: the jump consumes it, and links a return address.
            Some(n) if n.op == Op::Jalr && n.rs1 == rd => return None,
            // `la`/`li`: the register holds exactly the sum.
            Some(n) if n.op == Op::Addi && n.rs1 == rd && n.rd == rd => {
                let v = value.wrapping_add(i64::from(n.imm) as u64);
                (v, v)
            }
            Some(n) if n.op == Op::Addiw && n.rs1 == rd && n.rd == rd => {
                let v = value.wrapping_add(i64::from(n.imm) as u64) as u32 as i32;
                let v = i64::from(v) as u64;
                (v, v)
            }
            _ => (value.wrapping_sub(LO12), value.wrapping_add(LO12 - 1)),
        };
        (lo <= hi).then_some((lo, hi))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::{Segment, Symbol};

    const NOP: u32 = 0x13;

    fn auipc(rd: u32, hi: u32) -> u32 {
        hi << 12 | rd << 7 | 0x17
    }

    fn lui(rd: u32, hi: u32) -> u32 {
        hi << 12 | rd << 7 | 0x37
    }

    fn i_type(opcode: u32, rd: u32, rs1: u32, imm: i32) -> u32 {
        ((imm as u32) & 0xfff) << 20 | rs1 << 15 | rd << 7 | opcode
    }

    fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
        i_type(0x13, rd, rs1, imm)
    }

    fn jalr(rd: u32, rs1: u32, imm: i32) -> u32 {
        i_type(0x67, rd, rs1, imm)
    }

    /// An image of `code` (32-bit instructions) at 0x1000 whose functions start at
    /// `entries`, and of `data` (words) at 0x8000.
    fn image(code: &[u32], entries: &[u64], data: &[u64]) -> ElfImage {
        let segment = |vaddr: u64, data: Vec<u8>, exec: bool| Segment {
            vaddr,
            mem_size: data.len() as u64,
            data,
            read: true,
            write: !exec,
            exec,
        };
        ElfImage::of_parts(
            vec![
                segment(
                    0x1000,
                    code.iter().flat_map(|w| w.to_le_bytes()).collect(),
                    true,
                ),
                segment(
                    0x8000,
                    data.iter().flat_map(|w| w.to_le_bytes()).collect(),
                    false,
                ),
            ],
            entries
                .iter()
                .map(|&addr| Symbol {
                    addr,
                    size: 0,
                    name: format!("f{addr:x}"),
                    is_function: true,
                })
                .collect(),
        )
    }

    #[test]
    fn a_table_of_labels_gives_the_labels_inside_the_function() {
        // f at 0x1000..0x1010, g at 0x1010; the data holds two labels of f, g's entry,
        // and a word that is no code address.
        let img = image(&[NOP; 8], &[0x1000, 0x1010], &[0x1008, 0x100c, 0x1010, 0x7]);
        assert_eq!(
            img.code_pointers_inside(0x1000, 0x1010),
            Some(vec![0x1008, 0x100c])
        );
        assert_eq!(img.code_pointers_inside(0x1010, 0x1020), Some(vec![0x1010]));
    }

    #[test]
    fn a_function_that_forms_an_address_inside_itself_has_none() {
        // la a4, 0x100c (auipc at 0x1000 + 12); jr a4
        let code = [auipc(14, 0), addi(14, 14, 12), jalr(0, 14, 0), NOP, NOP];
        let img = &image(&code, &[0x1000, 0x1010], &[]);
        assert_eq!(img.code_pointers_inside(0x1000, 0x1010), None);
        // The value is exact: the next function is not reached.
        assert_eq!(img.code_pointers_inside(0x1010, 0x1014), Some(vec![]));
    }

    #[test]
    fn an_auipc_without_an_addition_reaches_its_window() {
        // f: auipc a5, 0, then a load through it: a5 + any 12-bit offset may be formed,
        // which reaches f's own code. g, after it, forms nothing.
        let code = [auipc(15, 0), i_type(0x03, 10, 15, 8), NOP, NOP, NOP, NOP];
        let img = image(&code, &[0x1000, 0x1010], &[]);
        assert_eq!(img.code_pointers_inside(0x1000, 0x1010), None);
        assert_eq!(img.code_pointers_inside(0x1010, 0x1018), Some(vec![]));
    }

    #[test]
    fn calls_and_function_pointers_form_no_interior_address() {
        // f: call f (auipc ra, 0; jalr ra, 0(ra)); la a0, g (lui a0, 1; addi a0, a0, 16)
        let code = [
            auipc(1, 0),
            jalr(1, 1, 0),
            lui(10, 1),
            addi(10, 10, 16),
            NOP,
        ];
        let img = &image(&code, &[0x1000, 0x1010], &[]);
        assert_eq!(img.code_pointers_inside(0x1000, 0x1010), Some(vec![]));
        assert_eq!(img.code_pointers_inside(0x1010, 0x1014), Some(vec![]));
    }

    #[test]
    fn compressed_lui_forms_its_window() {
        // c.lui a0, 1 (0x6505) then c.nop: a0 = 0x1000 + any 12-bit offset.
        let code = [0x0001_6505, NOP, NOP];
        let img = &image(&code, &[0x1000], &[]);
        assert_eq!(img.code_pointers_inside(0x1000, 0x100c), None);
    }

    #[test]
    fn only_jumps_to_loaded_doublewords_are_taken_as_jumps_through_held_pointers() {
        // ld a4, 0(a5); addi t3, x0, 1; jr a4: a pointer from memory (a table of labels).
        let ld = i_type(0x03, 14, 15, 0) | 3 << 12;
        let through_table = [ld, addi(28, 0, 1), jalr(0, 14, 0), NOP];
        let img = image(&through_table, &[0x1000], &[0x100c]);
        assert_eq!(img.code_pointers_inside(0x1000, 0x1010), Some(vec![0x100c]));
        // lw a4, 0(a5); add a4, a4, a6; jr a4: an offset from a switch's table.
        let lw = i_type(0x03, 14, 15, 0) | 2 << 12;
        let add = 16 << 20 | 14 << 15 | 14 << 7 | 0x33;
        let switch = [lw, add, jalr(0, 14, 0), NOP];
        assert_eq!(
            image(&switch, &[0x1000], &[]).code_pointers_inside(0x1000, 0x1010),
            None
        );
        // A branch to the jump joins a path where a4 was not loaded.
        let beq_to_jr = 2 << 8 | 0x63; // beq x0, x0, +4
        let joined = [ld, beq_to_jr, jalr(0, 14, 0), NOP];
        assert_eq!(
            image(&joined, &[0x1000], &[]).code_pointers_inside(0x1000, 0x1010),
            None
        );
    }
}

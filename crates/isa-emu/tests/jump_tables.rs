//! The jump tables the code view resolves ([`CodeView::jump_tables`]) and the code pointers
//! it finds ([`CodeView::code_pointers`]) against the runs of the bundled guests: every
//! indirect jump a guest makes from a resolved jump goes to one of its targets, and one
//! from a function whose code pointers are known lands on one of them, on a return site, or
//! outside the function.

mod guest_util;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use isa_emu::{Config, ElfImage};
use prof_events::{CodeView, Control, Edge, EdgeKind, Interest, Sink};

/// The targets of the indirect jumps a run made, by the jump's address.
#[derive(Default)]
struct Jumps(BTreeMap<u64, BTreeSet<u64>>);

impl Sink for Jumps {
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, _: &prof_events::BlockInfo) -> Interest {
        Interest::EDGE
    }

    fn edge(&mut self, e: &Edge) -> Control {
        if e.kind == EdgeKind::IndirectJump {
            self.0.entry(e.pc).or_default().insert(e.to);
        }
        Control::Continue
    }
}

/// Each bundled guest's image, and the targets of the indirect jumps its run made.
fn runs() -> impl Iterator<Item = (String, ElfImage, Jumps)> {
    guest_util::guests().into_iter().map(|guest| {
        let elf = std::fs::read(guest_util::guests_dir().join(&guest.elf)).expect("guest ELF");
        let image = ElfImage::parse(&elf).expect("guest parses");
        let mut m = guest_util::machine(&guest, Config::default());
        let mut seen = Jumps::default();
        m.run(&mut seen);
        (guest.name, image, seen)
    })
}

/// Every function's resolved jumps: jump address -> (function entry, targets).
fn resolved(image: &ElfImage) -> (BTreeMap<u64, (u64, Vec<u64>)>, usize) {
    let entries = image.functions();
    let all: HashSet<u64> = entries.iter().copied().collect();
    let mut jumps = BTreeMap::new();
    let mut unresolved = 0;
    for &f in &entries {
        match image.jump_tables(f, &|a| a != f && all.contains(&a)) {
            Some(tables) => {
                jumps.extend(tables.into_iter().map(|(pc, t)| (pc, (f, t))));
            }
            None => unresolved += 1,
        }
    }
    (jumps, unresolved)
}

#[test]
fn every_indirect_jump_of_a_resolved_table_goes_to_one_of_its_targets() {
    let mut checked = 0;
    for (name, image, seen) in runs() {
        let (tables, unresolved) = resolved(&image);
        let mut hit = 0;
        for (pc, targets) in &seen.0 {
            if let Some((f, resolved)) = tables.get(pc) {
                hit += 1;
                let missed: Vec<_> = targets.iter().filter(|t| !resolved.contains(t)).collect();
                assert!(
                    missed.is_empty(),
                    "{}: the jump at {pc:#x} (function {f:#x}) went to {missed:x?}, not among {resolved:x?}",
                    name
                );
            }
        }
        for pc in seen.0.keys().filter(|pc| !tables.contains_key(pc)) {
            println!(
                "  unresolved {pc:#x} {:?} -> {}",
                image.symbolize(*pc),
                seen.0[pc].len()
            );
        }
        println!(
            "{}: {} jumps resolved, {} functions with one not; {} of the {} jumps run resolved",
            name,
            tables.len(),
            unresolved,
            hit,
            seen.0.len()
        );
        checked += hit;
        if name == "coremark" {
            // Its own `switch` (`next_token`: `bltu t3, a0` with t3 = 4): a table of five
            // cases (0x1109e, 0x110d8, 0x1110e, 0x1113c, 0x11168 by `objdump -s` of its
            // words at 0x50fc0), but the state it switches on is only ever set to 0, 1, 2,
            // 4 and 5, so no path takes the fourth.
            let f = image
                .symbols
                .iter()
                .find(|s| s.name == "next_token")
                .expect("symbol")
                .addr;
            let own: Vec<_> = tables.values().filter(|(g, _)| *g == f).collect();
            assert_eq!(own.len(), 1);
            assert_eq!(own[0].1.len(), 4, "{:x?}", own[0].1);
        }
    }
    assert!(checked > 0);
}

/// `[entry, end)` of each function with an indirect jump that the jump-table analysis does
/// not resolve (`end`: its symbol's size, or the next function's entry).
fn unresolved(image: &ElfImage) -> Vec<(u64, u64)> {
    let entries = image.functions();
    let all: HashSet<u64> = entries.iter().copied().collect();
    let size = |f: u64| {
        let s = image.symbols.iter().find(|s| s.is_function && s.addr == f);
        s.map_or(0, |s| s.size)
    };
    entries
        .iter()
        .enumerate()
        .filter(|&(_, &f)| {
            image
                .jump_tables(f, &|a| a != f && all.contains(&a))
                .is_none()
        })
        .map(|(k, &f)| {
            let next = entries.get(k + 1).copied().unwrap_or(u64::MAX);
            (f, if size(f) > 0 { f + size(f) } else { next })
        })
        .collect()
}

#[test]
fn every_indirect_jump_not_resolved_lands_on_a_code_pointer_or_a_return_site() {
    let mut landed = 0;
    for (name, image, seen) in runs() {
        let functions = unresolved(&image);
        // The instruction before `to` is a call (of either length): `to` is a return site.
        let after_call = |to: u64| {
            [2, 4].iter().any(|&len| {
                image.insn(to.wrapping_sub(len)).is_some_and(|i| {
                    i.len as u64 == len
                        && matches!(
                            i.flow,
                            prof_events::FlowClass::Call { .. }
                                | prof_events::FlowClass::IndirectCall
                        )
                })
            })
        };
        let mut known = 0;
        for &(f, end) in &functions {
            let Some(held) = image.code_pointers(f, end) else {
                continue;
            };
            known += 1;
            for (pc, targets) in seen.0.range(f..end) {
                for &to in targets.iter().filter(|&&to| to > f && to < end) {
                    assert!(
                        held.contains(&to) || after_call(to),
                        "{}: the jump at {pc:#x} ({:?}) went to {to:#x}, not a code pointer \
                         ({held:x?}) or a return site",
                        name,
                        image.symbolize(*pc),
                    );
                    landed += 1;
                }
            }
        }
        println!(
            "{}: {} functions with a jump not resolved, {known} with their code pointers known",
            name,
            functions.len()
        );
    }
    // glibc's vfprintf (every Linux guest) jumps through its tables of labels.
    assert!(landed > 0);
}

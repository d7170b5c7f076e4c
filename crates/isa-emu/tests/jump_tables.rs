//! The jump tables the code view resolves ([`CodeView::jump_tables`]) against the runs of
//! the bundled guests: every indirect jump a guest makes from a resolved jump goes to one
//! of its targets.

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
    for guest in guest_util::guests() {
        let elf = std::fs::read(guest_util::guests_dir().join(&guest.elf)).expect("guest ELF");
        let image = ElfImage::parse(&elf).expect("guest parses");
        let (tables, unresolved) = resolved(&image);
        let mut m = guest_util::machine(&guest, Config::default());
        let mut seen = Jumps::default();
        m.run(&mut seen);
        let mut hit = 0;
        for (pc, targets) in &seen.0 {
            if let Some((f, resolved)) = tables.get(pc) {
                hit += 1;
                let missed: Vec<_> = targets.iter().filter(|t| !resolved.contains(t)).collect();
                assert!(
                    missed.is_empty(),
                    "{}: the jump at {pc:#x} (function {f:#x}) went to {missed:x?}, not among {resolved:x?}",
                    guest.name
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
            guest.name,
            tables.len(),
            unresolved,
            hit,
            seen.0.len()
        );
        checked += hit;
        if guest.name == "coremark" {
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

//! Every bundled guest produces exactly its recorded stdout and exit code (recorded from
//! qemu-riscv64 by `cargo xtask guests`), and every bare-metal ISA test passes.

mod guest_util;
use guest_util as common;

use isa_emu::{Config, Outcome};

#[test]
fn every_guest_matches_its_recorded_output() {
    let mut failures = Vec::new();
    let guests = common::guests();
    assert!(guests.len() >= 10, "the manifest lists the guests");
    for g in &guests {
        let mut m = common::machine(g, Config::default());
        let summary = m.run(&mut ());
        let expected = std::fs::read(common::guests_dir().join(&g.stdout)).expect("expected");
        let got = common::stdout(&m);
        if summary.outcome != Outcome::Exited(g.exit_code) || got != expected {
            failures.push(format!(
                "{} ({}): outcome {:?}, expected exit {}; stdout {} bytes, expected {} bytes{}",
                g.name,
                g.env,
                summary.outcome,
                g.exit_code,
                got.len(),
                expected.len(),
                if got == expected { "" } else { " (differs)" }
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "guests that differ:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_isa_test_passes_on_bare_metal() {
    let root = common::guests_dir().join("..");
    let tests = common::isa_tests();
    assert!(!tests.is_empty());
    let mut failures = Vec::new();
    for t in &tests {
        let elf = std::fs::read(root.join(&t.elf)).expect("ISA test ELF");
        let bare = isa_emu::BareConfig {
            console: isa_emu::linux::Output::Capture,
        };
        let config = Config {
            fuel: Some(50_000_000),
            ..Config::default()
        };
        let mut m = isa_emu::Machine::bare_metal(&elf, bare, config).expect("loads");
        let summary = m.run(&mut ());
        match summary.outcome {
            Outcome::Exited(0) => {}
            Outcome::Exited(case) => failures.push(format!("{}: case {case} failed", t.name)),
            other => failures.push(format!("{}: {other:?} at pc {:#x}", t.name, summary.pc)),
        }
    }
    assert!(
        failures.is_empty(),
        "ISA tests that fail:\n{}",
        failures.join("\n")
    );
}

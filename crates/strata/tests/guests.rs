//! On real guests run by the emulator: the hierarchy expands back to exactly the block
//! addresses a second sink recorded in the same run, and the statistics add up to the
//! emulator's retired-instruction count.

use std::path::Path;

use isa_emu::linux::{LinuxConfig, Output};
use isa_emu::{Config as EmuConfig, Machine, RunSummary};
use prof_events::{BlockId, BlockInfo, CodeView, Control, Interest, Sink, SinkExt};
use strata::{Config, PhaseConfig, StrataSink};

/// Records the start address of every executed block.
#[derive(Default)]
struct Trace(Vec<u64>);

impl Sink for Trace {
    fn interest(&mut self, _: &BlockInfo) -> Interest {
        Interest::BLOCK
    }
    fn block(&mut self, _: BlockId, pc: u64) -> Control {
        self.0.push(pc);
        Control::Continue
    }
}

/// The guest `guests/bin/NAME.elf` loaded with no arguments, its output captured.
fn load(guest: &str, emu: EmuConfig) -> Machine {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests");
    let elf = std::fs::read(dir.join("bin").join(format!("{guest}.elf"))).expect("guest ELF");
    let linux = LinuxConfig {
        args: vec![guest.as_bytes().to_vec()],
        stdout: Output::Capture,
        stderr: Output::Capture,
        ..LinuxConfig::default()
    };
    Machine::linux(&elf, linux, emu).expect("guest loads")
}

/// Runs `m` with `sinks` behind `dyn Sink` (why: docs/architecture.md, isa-emu's `machine.rs`).
fn run_with(m: &mut Machine, sinks: &mut dyn Sink) -> RunSummary {
    m.run(sinks)
}

fn run(guest: &str) -> (StrataSink, Trace, u64, Machine) {
    let mut m = load(guest, EmuConfig::default());
    let config = Config {
        grammar: true,
        ..Config::default()
    };
    let mut sinks = StrataSink::new(&config, PhaseConfig::default()).and(Trace::default());
    let summary = run_with(&mut m, &mut sinks);
    let (s, t) = sinks.into_inner();
    (s, t, summary.instret, m)
}

#[test]
fn primes_and_crc_expand_to_their_block_traces() {
    for guest in ["primes", "crc"] {
        let (s, trace, instret, m) = run(guest);
        let d = s.detector();
        assert_eq!(d.expand().as_deref(), Some(&trace.0[..]), "{guest}");
        assert_eq!(d.instructions(), instret, "{guest}");
        for level in 0..d.levels() {
            let covered: u64 = d
                .all_stats(level)
                .iter()
                .map(|st| st.insns * st.trips)
                .sum();
            assert_eq!(covered, instret, "{guest} level {level}");
        }
        let g = d.grammar().unwrap();
        assert_eq!(g.expand().len() as u64, d.emitted(0));
        assert!(g.check_invariants().is_ok());
        // The ISAM file locates instructions in the blocks the trace has there.
        let (f, err) = strata::isam::IsamFile::parse(strata::isam::write(d, s.blocks()));
        assert_eq!(err, None);
        let step = (instret / 97).max(1);
        let (mut at, mut next) = (0u64, 0u64);
        for &pc in &trace.0 {
            let insns = u64::from(s.block_at(pc).unwrap().insns);
            while next < at + insns {
                let loc = f.locate(next).unwrap().within.unwrap();
                assert_eq!(loc.block, Some(pc), "{guest} instruction {next}");
                next += step;
            }
            at += insns;
        }
        // Disassembly through the machine's CodeView.
        let first = s.disassemble(&m, trace.0[0]);
        assert!(!first.is_empty(), "{guest}");
    }
}

/// Counts instructions as the strata sink does (block sizes at entry) and notes the
/// instruction number of every entry to the block at `mark`.
struct Marks {
    insns: Vec<u32>,
    clock: u64,
    mark: u64,
    seen: Vec<u64>,
}

impl Sink for Marks {
    fn interest(&mut self, b: &BlockInfo) -> Interest {
        let i = b.id.index();
        if self.insns.len() <= i {
            self.insns.resize(i + 1, 0);
        }
        self.insns[i] = b.insns;
        Interest::BLOCK
    }
    fn block(&mut self, id: BlockId, pc: u64) -> Control {
        if pc == self.mark {
            self.seen.push(self.clock);
        }
        self.clock += u64::from(self.insns[id.index()]);
        Control::Continue
    }
}

#[test]
fn phases_guest_signals_at_its_phase_boundaries() {
    // guests/src/phases.c runs four different loops, calling printf after each: the
    // entries to printf mark the phase boundaries.
    let mut m = load("phases", EmuConfig::default());
    let printf = m
        .functions()
        .into_iter()
        .find(|&a| {
            m.symbol(a)
                .is_some_and(|(name, off)| name == "printf" && off == 0)
        })
        .expect("printf symbol");
    let interval = 1 << 20;
    let phases = PhaseConfig {
        interval,
        branch_threshold: interval / 20,
        working_set_threshold: 0.5,
    };
    let marks = Marks {
        insns: Vec::new(),
        clock: 0,
        mark: printf,
        seen: Vec::new(),
    };
    let mut sinks = StrataSink::new(&Config::default(), phases).and(marks);
    run_with(&mut m, &mut sinks);
    let (s, marks) = sinks.into_inner();
    let found = s.phases();
    assert_eq!(marks.seen.len(), 4, "{:?}", marks.seen);
    // Each of the three boundaries between phases is followed within two intervals by a
    // signal (the interval containing the boundary is mixed; the next one is new).
    for &b in &marks.seen[..3] {
        let near = found
            .iter()
            .any(|p| p.insn >= b && p.insn <= b + 2 * interval);
        assert!(
            near,
            "no phase signal within 2 intervals after {b}: {found:?}"
        );
    }
}

/// A `Vec` behind a shared handle, so a test reads what a sink it gave away has written.
#[derive(Clone, Default)]
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_isam_file_streamed_during_a_run_has_its_batches_before_the_exit() {
    let emu = EmuConfig {
        sample_interval: Some(1_000_000),
        ..EmuConfig::default()
    };
    let mut m = load("crc", emu);
    let out = Shared::default();
    let streaming = StrataSink::new(&Config::default(), PhaseConfig::default())
        .stream_to(out.clone())
        .expect("header written");
    // Watches the file at every sample: batches land while the guest still runs.
    struct Watch(Shared, Vec<usize>);
    impl Sink for Watch {
        fn wants(&mut self) -> Interest {
            Interest::SAMPLE
        }
        fn sample(&mut self, _: &prof_events::Sample) -> Control {
            self.1.push(self.0 .0.borrow().len());
            Control::Continue
        }
    }
    let mut sinks = streaming.and(Watch(out.clone(), Vec::new()));
    run_with(&mut m, &mut sinks);
    let (mut sink, watch) = sinks.into_inner();
    let len = sink.finish_file().expect("streaming").expect("written");
    let bytes = out.0.borrow().clone();
    assert_eq!(len, bytes.len() as u64);
    assert_eq!(bytes, strata::isam::write(sink.detector(), sink.blocks()));
    assert!(
        watch.1.iter().any(|&n| n > 16),
        "no batch was written before the exit: {:?}",
        watch.1
    );
}

//! Shared by the integration tests: the guest manifest and how to start a guest.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use isa_emu::linux::{Input, LinuxConfig, Output};
use isa_emu::{BareConfig, Config, Machine};
use serde::Deserialize;

/// One entry of `guests/manifest.json`.
#[derive(Debug, Deserialize)]
pub struct Guest {
    pub name: String,
    pub elf: String,
    pub env: String,
    #[serde(default)]
    pub args: Vec<String>,
    pub stdin: Option<String>,
    pub allow_dir: Option<String>,
    pub stdout: String,
    pub exit_code: i32,
}

/// One entry of `guests/isa/manifest.json`.
#[derive(Debug, Deserialize)]
pub struct IsaTest {
    pub name: String,
    pub elf: String,
}

pub fn guests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

pub fn guests() -> Vec<Guest> {
    let text = std::fs::read_to_string(guests_dir().join("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest parses")
}

pub fn isa_tests() -> Vec<IsaTest> {
    let text =
        std::fs::read_to_string(guests_dir().join("isa/manifest.json")).expect("isa manifest");
    serde_json::from_str(&text).expect("isa manifest parses")
}

/// A machine ready to run `guest`, with its output captured.
pub fn machine(guest: &Guest, config: Config) -> Machine {
    let dir = guests_dir();
    let elf = std::fs::read(dir.join(&guest.elf)).expect("guest ELF");
    if guest.env == "bare" {
        let bare = BareConfig {
            console: Output::Capture,
        };
        return Machine::bare_metal(&elf, bare, config).expect("bare-metal guest loads");
    }
    let mut args = vec![guest.name.as_bytes().to_vec()];
    args.extend(guest.args.iter().map(|a| a.as_bytes().to_vec()));
    let stdin = match &guest.stdin {
        Some(p) => Input::Bytes(std::fs::read(dir.join(p)).expect("stdin file")),
        None => Input::Bytes(Vec::new()),
    };
    let linux = LinuxConfig {
        args,
        env: vec![b"LANG=C".to_vec()],
        stdin,
        stdout: Output::Capture,
        stderr: Output::Capture,
        // As under qemu: the guest runs in guests/ and may open files under allow_dir.
        allow_dir: guest.allow_dir.as_ref().map(|d| dir.join(d)),
        cwd: Some(dir.clone()),
        seed: 0,
        ..LinuxConfig::default()
    };
    Machine::linux(&elf, linux, config).expect("guest loads")
}

/// What the guest wrote to stdout (or the bare-metal console).
pub fn stdout(m: &Machine) -> Vec<u8> {
    match (m.linux_env(), m.bare_env()) {
        (Some(l), _) => l.stdout_captured().to_vec(),
        (_, Some(b)) => b.console_captured().to_vec(),
        _ => unreachable!(),
    }
}

/// Runs `guest` with the sink `make(entry, true)`, whose probes compiled code runs, and
/// again with `make(entry, false)`, which gets every edge as an event; asserts that both
/// runs retired the same instructions and printed the same, and returns both sinks.
pub fn with_and_without_probes<S: prof_events::Sink>(
    guest: &Guest,
    make: impl Fn(u64, bool) -> S,
) -> (S, S, isa_emu::RunSummary) {
    let run = |probes: bool| {
        let mut m = machine(guest, Config::default());
        let mut sink = make(m.image().entry, probes);
        // Behind `dyn Sink` (why: docs/architecture.md, `machine.rs`).
        let s = m.run(&mut sink as &mut dyn prof_events::Sink);
        (sink, s, stdout(&m))
    };
    let (with, summary, out) = run(true);
    let (without, events, out_events) = run(false);
    let name = &guest.name;
    assert_eq!(
        (summary.instret, out),
        (events.instret, out_events),
        "{name}"
    );
    (with, without, summary)
}

/// The start and end of each block a sink was told of, by id (an edge names only its
/// source block's id).
#[derive(Debug, Default)]
pub struct Bounds(Vec<(u64, u64)>);

impl Bounds {
    /// Notes `block`'s start and end.
    pub fn note(&mut self, block: &prof_events::BlockInfo) {
        let i = block.id.index();
        if self.0.len() <= i {
            self.0.resize(i + 1, (0, 0));
        }
        self.0[i] = (block.start, block.end);
    }

    /// The start and end of block `id`.
    pub fn of(&self, id: prof_events::BlockId) -> (u64, u64) {
        self.0[id.index()]
    }
}

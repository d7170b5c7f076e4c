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

//! Micro benchmarks of the translator's two hot pieces: decoding an instruction word and one
//! block-cache index lookup (`PcIndex::get`), on the real code of a bundled guest.
//!
//! `cargo bench -p isa-emu --bench decode_lookup`

use criterion::{black_box, Criterion};
use isa_emu::block::PcIndex;
use isa_emu::linux::{LinuxConfig, Output};
use isa_emu::{decode, insn_len, Config, Machine};

/// The instruction words and their addresses in the text of guests/bin/coremark.elf.
fn guest_code() -> (Vec<u32>, Vec<u64>, (u64, u64)) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../guests/bin/coremark.elf");
    let elf = std::fs::read(path).expect("guests/bin/coremark.elf is committed");
    let linux = LinuxConfig {
        stdout: Output::Capture,
        ..LinuxConfig::default()
    };
    let m = Machine::linux(&elf, linux, Config::default()).expect("guest loads");
    let (lo, hi) = m
        .image()
        .exec_ranges()
        .fold((u64::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
    let (mut words, mut pcs) = (Vec::new(), Vec::new());
    let mut pc = lo;
    while pc + 4 <= hi {
        let Ok(w) = m.memory().load_u::<4>(pc) else {
            break;
        };
        words.push(w as u32);
        pcs.push(pc);
        pc += insn_len(w as u16) as u64;
    }
    (words, pcs, (lo, hi))
}

fn benches(c: &mut Criterion) {
    let (words, pcs, (lo, hi)) = guest_code();
    c.bench_function("decode (coremark text, per instruction)", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % words.len();
            decode(black_box(words[i]))
        })
    });
    // Every 5th instruction starts a block, as in typical compiled code.
    let mut index = PcIndex::new(lo, hi);
    let starts: Vec<u64> = pcs.iter().copied().step_by(5).collect();
    for (slot, &pc) in starts.iter().enumerate() {
        index.insert(pc, slot as u32);
    }
    c.bench_function("block-cache lookup (PcIndex::get, hit)", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 7) % starts.len();
            index.get(black_box(starts[i]))
        })
    });
}

fn main() {
    // criterion_main! would generate undocumented items (missing_docs); this is its body.
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}

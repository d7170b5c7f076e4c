//! The threaded interpreter (every superblock, and the blocks of sinks that watch only
//! blocks and edges), with its pair handlers, against single-stepping on random straight
//! programs of integer, memory and branch instructions: the same final state (outcome, pc,
//! instructions retired, registers) at random fuel limits, and the same block and edge
//! events. Loads from arbitrary registers fault, so traps land inside pairs too.

mod common;

use common::{branch, i_type, s_type, tiny_machine};
use isa_emu::{Config, Outcome};
use prof_events::{Interest, Recorder, Sink};
use proptest::prelude::*;

const SP: u32 = 2;
const A7: u32 = 17;

fn r(f7: u32, f3: u32, op: u32, rd: u32, rs1: u32, rs2: u32) -> u32 {
    f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}
/// One instruction of a program `len` long at index `at`: `kind` picks the template; a
/// branch goes at most 4 instructions forward or back, inside the program.
fn insn(kind: u8, rd: u32, rs1: u32, rs2: u32, imm: i32, at: usize, len: usize) -> u32 {
    let off = (imm.rem_euclid(9) - 4) as i64; // -4..=4 instructions
    let to = (at as i64 + off).clamp(0, len as i64);
    let boff = ((to - at as i64) * 4) as i32;
    let boff = if boff == 0 { 4 } else { boff };
    let slot = imm & 0x78; // 8-aligned stack slot 0..120
    match kind % 24 {
        0 => r(0, 0, 0x33, rd, rs1, rs2),         // add
        1 => r(0x20, 0, 0x33, rd, rs1, rs2),      // sub
        2 => r(0, 1, 0x33, rd, rs1, rs2),         // sll
        3 => r(0, 5, 0x33, rd, rs1, rs2),         // srl
        4 => r(0, 4, 0x33, rd, rs1, rs2),         // xor
        5 => r(0, 0, 0x3b, rd, rs1, rs2),         // addw
        6 => r(1, 0, 0x3b, rd, rs1, rs2),         // mulw
        7 => r(0, 2, 0x33, rd, rs1, rs2),         // slt
        8 => i_type(0x13, 0, rd, rs1, imm),       // addi
        9 => i_type(0x13, 7, rd, rs1, imm),       // andi
        10 => i_type(0x1b, 0, rd, rs1, imm),      // addiw
        11 => i_type(0x13, 1, rd, rs1, imm & 63), // slli
        12 => i_type(0x03, 3, rd, SP, slot),      // ld from the stack
        13 => i_type(0x03, 4, rd, SP, slot),      // lbu from the stack
        14 => i_type(0x03, 2, rd, SP, slot),      // lw from the stack
        15 => i_type(0x03, 1, rd, SP, slot),      // lh from the stack
        16 => s_type(3, SP, rs2, slot),           // sd to the stack
        17 => s_type(2, SP, rs2, slot),           // sw to the stack
        18 => s_type(0, SP, rs2, slot),           // sb to the stack
        19 => i_type(0x03, 3, rd, rs1, imm),      // ld anywhere (may fault)
        20 => branch(1, rs1, rs2, boff),          // bne
        21 => branch(0, rs1, rs2, boff),          // beq
        22 => branch(7, rs1, rs2, boff),          // bgeu
        _ => branch(4, rs1, rs2, boff),           // blt
    }
}

/// (template, rd, rs1, rs2, immediate) per instruction; registers from x0 and x5..x15
/// (x2, the stack pointer, is only a base).
fn program() -> impl Strategy<Value = Vec<u32>> {
    let reg = prop_oneof![Just(0u32), 5u32..16];
    prop::collection::vec(
        (any::<u8>(), reg.clone(), reg.clone(), reg, -2048i32..2048),
        1..40,
    )
    .prop_map(|spec| {
        let len = spec.len();
        let mut code: Vec<u32> = spec
            .iter()
            .enumerate()
            .map(|(at, &(k, rd, rs1, rs2, imm))| insn(k, rd, rs1, rs2, imm, at, len))
            .collect();
        // Make room on the stack first (so the slots are the program's), exit last.
        code.insert(0, i_type(0x13, 0, SP, SP, -128));
        code.extend([i_type(0x13, 0, A7, 0, 93), 0x73]);
        code
    })
}

type State = (Outcome, u64, u64, Vec<u64>);

fn run(code: &[u32], fuel: u64, single_step: bool, sink: &mut dyn Sink) -> State {
    let config = Config {
        fuel: Some(fuel),
        single_step,
        ..Config::default()
    };
    let (mut m, entry) = tiny_machine(code, config);
    let s = m.run(sink);
    let regs = m.cpu().x[..32].to_vec();
    (s.outcome, s.pc.wrapping_sub(entry), s.instret, regs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn threaded_chains_match_single_stepping(code in program(), fuel in 1u64..400) {
        for fuel in [fuel, 100_000] {
            let stepped = run(&code, fuel, true, &mut ());
            prop_assert_eq!(&run(&code, fuel, false, &mut ()), &stepped, "superblocks, fuel {}", fuel);
            let events = Interest::BLOCK | Interest::EDGE;
            let (mut cached, mut single) = (Recorder::new(events), Recorder::new(events));
            prop_assert_eq!(&run(&code, fuel, false, &mut cached), &stepped, "blocks, fuel {}", fuel);
            prop_assert_eq!(&run(&code, fuel, true, &mut single), &stepped);
            prop_assert_eq!(cached.events, single.events, "events, fuel {}", fuel);
        }
    }
}

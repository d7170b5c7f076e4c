//! Superblocks (formed when no sink wants events) change nothing a guest or a caller can see:
//! side exits taken or not, fuel running out inside one, traps after a not-taken branch,
//! followed jumps and calls, and counter reads give the state single-stepping gives.

mod common;
mod guest_util;

use common::tiny_machine;
use isa_emu::{Config, Fault, Outcome, RunSummary, Trap};
use prof_events::{Interest, Sink};

// Register numbers.
const RA: u32 = 1;
const T0: u32 = 5;
const A0: u32 = 10;
const A1: u32 = 11;
const A2: u32 = 12;
const A7: u32 = 17;

fn i_type(op: u32, f3: u32, rd: u32, rs1: u32, imm: i32) -> u32 {
    ((imm as u32 & 0xfff) << 20) | rs1 << 15 | f3 << 12 | rd << 7 | op
}
fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0x13, 0, rd, rs1, imm)
}
fn andi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0x13, 7, rd, rs1, imm)
}
fn ld(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0x03, 3, rd, rs1, imm)
}
fn jalr(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0x67, 0, rd, rs1, imm)
}
/// `csrrs rd, instret, zero` (`rdinstret rd`).
fn rdinstret(rd: u32) -> u32 {
    0xc02 << 20 | 2 << 12 | rd << 7 | 0x73
}
fn add(rd: u32, rs1: u32, rs2: u32) -> u32 {
    rs2 << 20 | rs1 << 15 | rd << 7 | 0x33
}
fn branch(f3: u32, rs1: u32, rs2: u32, off: i32) -> u32 {
    let o = off as u32;
    (o >> 12 & 1) << 31
        | (o >> 5 & 0x3f) << 25
        | rs2 << 20
        | rs1 << 15
        | f3 << 12
        | (o >> 1 & 0xf) << 8
        | (o >> 11 & 1) << 7
        | 0x63
}
fn beq(rs1: u32, rs2: u32, off: i32) -> u32 {
    branch(0, rs1, rs2, off)
}
fn bne(rs1: u32, rs2: u32, off: i32) -> u32 {
    branch(1, rs1, rs2, off)
}
fn jal(rd: u32, off: i32) -> u32 {
    let o = off as u32;
    (o >> 20 & 1) << 31
        | (o >> 1 & 0x3ff) << 21
        | (o >> 11 & 1) << 20
        | (o >> 12 & 0xff) << 12
        | rd << 7
        | 0x6f
}
const ECALL: u32 = 0x73;

/// Exits with status a0.
fn exit() -> [u32; 2] {
    [addi(A7, 0, 93), ECALL]
}

/// A sink that wants the exit event and nothing else: it turns superblocks off.
struct ExitOnly;
impl Sink for ExitOnly {
    fn wants(&mut self) -> Interest {
        Interest::EXIT
    }
}

/// What a run leaves behind: its summary's outcome, pc (from the entry) and instret, and
/// the integer registers.
type State = (Outcome, u64, u64, Vec<u64>);

fn run_with(
    code: &[u32],
    fuel: Option<u64>,
    single_step: bool,
    sink: &mut dyn Sink,
) -> (State, RunSummary) {
    let config = Config {
        fuel,
        single_step,
        ..Config::default()
    };
    let (mut m, entry) = tiny_machine(code, config);
    let s = m.run(sink);
    let regs = m.cpu().x[..32].to_vec();
    ((s.outcome, s.pc.wrapping_sub(entry), s.instret, regs), s)
}

/// Runs `code` cached with no sink (superblocks) and single-stepped, at every fuel from 1 to
/// past its end, and asserts both leave the same state. Returns the state of the full run.
fn same_as_single_step(code: &[u32]) -> State {
    let (full, _) = run_with(code, None, false, &mut ());
    let (stepped, _) = run_with(code, None, true, &mut ());
    assert_eq!(full, stepped, "full run");
    for fuel in 1..=full.2 + 1 {
        let (cached, _) = run_with(code, Some(fuel), false, &mut ());
        let (stepped, _) = run_with(code, Some(fuel), true, &mut ());
        assert_eq!(cached, stepped, "fuel {fuel}");
    }
    full
}

/// A loop whose body is one superblock: a forward branch inside it is taken (a side exit)
/// on every other iteration, and the backward branch at its end closes the loop.
fn side_exit_loop() -> Vec<u32> {
    let mut code = vec![
        addi(A0, 0, 0),
        addi(A1, 0, 10),
        // loop (8):
        addi(A0, A0, 3),
        andi(T0, A1, 1),
        beq(T0, 0, 12), // a1 even: skip the next two (side exit)
        addi(A0, A0, 5),
        addi(A2, A2, 1),
        addi(A1, A1, -1), // 28
        bne(A1, 0, -24),
    ];
    code.extend(exit());
    code
}

#[test]
fn side_exits_taken_and_not_taken_match_single_step() {
    let code = side_exit_loop();
    let (outcome, _, instret, regs) = same_as_single_step(&code);
    // Ten iterations, a1 from 10 down: the side exit is taken when a1 is even.
    let (mut a0, mut a2, mut n) = (0u64, 0u64, 2u64);
    for a1 in (1..=10u64).rev() {
        a0 += 3;
        n += 3;
        if a1 % 2 == 1 {
            a0 += 5;
            a2 += 1;
            n += 2;
        }
        n += 2;
    }
    n += 2;
    assert_eq!(outcome, Outcome::Exited(a0 as i32));
    assert_eq!(instret, n);
    assert_eq!((regs[A0 as usize], regs[A2 as usize]), (a0, a2));
    assert_eq!(a2, 5, "both sides of the branch ran");
}

#[test]
fn superblocks_form_only_when_no_sink_wants_events() {
    let code = side_exit_loop();
    let (lean, lean_summary) = run_with(&code, None, false, &mut ());
    let (plain, plain_summary) = run_with(&code, None, false, &mut ExitOnly);
    assert_eq!(lean, plain);
    // Plain blocks: the entry up to the beq, the loop head, its fall-through, the beq's
    // target, the exit. Superblocks merge the first two pairs.
    assert_eq!(plain_summary.blocks_translated, 5);
    assert_eq!(lean_summary.blocks_translated, 4);
}

#[test]
fn a_trap_after_a_not_taken_branch_has_its_pc_and_count() {
    let mut code = vec![
        addi(A0, 0, 1),
        beq(A0, 0, 12), // not taken
        ld(A1, 0, 0),   // faults at 8, after two instructions
        addi(A0, 0, 2),
    ];
    code.extend(exit());
    let (outcome, pc, instret, _) = same_as_single_step(&code);
    assert_eq!((pc, instret), (8, 2));
    assert!(matches!(
        outcome,
        Outcome::Fault(Fault {
            trap: Trap::AccessFault(_),
            ..
        })
    ));
}

#[test]
fn followed_jumps_and_calls_keep_pcs_counts_and_return_addresses() {
    let mut code = vec![
        addi(A0, 0, 0),
        addi(A1, 0, 5),
        // loop (8): a call inside a superblock
        jal(RA, 36), // f at 44
        addi(A1, A1, -1),
        bne(A1, 0, -8),
        jal(0, 8),       // j tail (28)
        addi(A0, 0, 99), // skipped
        rdinstret(A2),   // tail (28)
        add(A0, A0, A2),
    ];
    code.extend(exit()); // 36, 40
    code.extend([
        // f (44)
        addi(A0, A0, 7),
        andi(T0, A1, 1),
        beq(T0, 0, 8),
        addi(A0, A0, 1),
        jalr(0, RA, 0),
    ]);
    let (outcome, _, instret, regs) = same_as_single_step(&code);
    // rdinstret reads the instructions retired before it: 2, 7 or 8 per iteration (8 when
    // a1 is odd and f's branch is not taken), 1 for the jump to the tail.
    let (mut a0, mut before) = (0u64, 2u64);
    for a1 in (1..=5u64).rev() {
        a0 += 7;
        before += 3 + 3;
        if a1 % 2 == 1 {
            a0 += 1;
            before += 1;
        }
        before += 1;
    }
    before += 1;
    assert_eq!(regs[A2 as usize], before);
    assert_eq!(outcome, Outcome::Exited((a0 + before) as u8 as i32));
    assert_eq!(instret, before + 4);
    assert_eq!(regs[RA as usize] % 4, 0, "ra holds a return address");
}

#[test]
fn a_trap_after_a_backward_jump_inside_a_superblock_has_its_pc() {
    let code = [
        addi(A1, 0, 2),
        jal(0, 12),   // to 16
        ld(A0, 0, 0), // 8: faults when reached from 24
        ECALL,
        addi(A1, A1, -1), // 16
        bne(A1, 0, -4),
        jal(0, -16), // 24: back to 8
    ];
    let (outcome, pc, instret, _) = same_as_single_step(&code);
    assert_eq!((pc, instret), (8, 7));
    assert!(matches!(outcome, Outcome::Fault(_)));
}

/// Every guest, cached with no sink (superblocks) and single-stepped, at fuel limits that
/// land all over its blocks: the same outcome, pc, instret and registers.
#[test]
fn guests_with_superblocks_match_single_step_at_many_fuel_limits() {
    for g in guest_util::guests() {
        for fuel in [200_000, 200_001, 200_003, 200_007, 200_015, 1_000_033] {
            let run = |single_step: bool| {
                let config = Config {
                    fuel: Some(fuel),
                    single_step,
                    ..Config::default()
                };
                let mut m = guest_util::machine(&g, config);
                let s = m.run(&mut ());
                (
                    s.outcome,
                    s.pc,
                    s.instret,
                    m.cpu().x[..32].to_vec(),
                    m.cpu().f,
                )
            };
            assert_eq!(run(false), run(true), "{} at fuel {fuel}", g.name);
        }
    }
}

//! Superblocks (formed when no sink watches blocks, `Sink::watches_blocks`, and none takes
//! samples) change nothing a guest or a caller can see: side exits taken or not, fuel running
//! out inside one, traps after a not-taken branch, followed jumps and calls, and counter
//! reads give the state single-stepping gives. A sink that watches blocks gets exactly the
//! events of single-stepping even when it wants no run-wide events.

mod common;
mod guest_util;

use common::{branch, i_type, s_type, tiny_machine};
use isa_emu::{Config, Fault, Outcome, RunSummary, Trap};
use prof_events::{
    BlockEnd, BlockId, BlockInfo, Control, Edge, Event, Exit, Interest, MemAccess, Recorder,
    Sample, Sink, Syscall,
};

// Register numbers.
const RA: u32 = 1;
const SP: u32 = 2;
const T0: u32 = 5;
const A0: u32 = 10;
const A1: u32 = 11;
const A2: u32 = 12;
const A7: u32 = 17;

fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0x13, 0, rd, rs1, imm)
}
fn andi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0x13, 7, rd, rs1, imm)
}
fn ld(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0x03, 3, rd, rs1, imm)
}
fn sd(rs2: u32, rs1: u32, imm: i32) -> u32 {
    s_type(3, rs1, rs2, imm)
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

/// A sink that wants the exit event and nothing else, and keeps the default
/// `watches_blocks` (true): it turns superblocks off.
struct ExitOnly;
impl Sink for ExitOnly {
    fn wants(&mut self) -> Interest {
        Interest::EXIT
    }
}

/// Records every event it gets (in a [`Recorder`]), asking for `run` run-wide and
/// `blocks(info)` of each block, and saying `watches` from `watches_blocks`; counts the
/// `interest` calls apart.
struct Log {
    run: Interest,
    blocks: fn(&BlockInfo) -> Interest,
    watches: bool,
    asked: u64,
    rec: Recorder,
}

impl Log {
    fn new(run: Interest, blocks: fn(&BlockInfo) -> Interest, watches: bool) -> Self {
        Log {
            run,
            blocks,
            watches,
            asked: 0,
            rec: Recorder::new(Interest::NONE),
        }
    }
}

impl Sink for Log {
    fn wants(&mut self) -> Interest {
        self.run
    }
    fn watches_blocks(&mut self) -> bool {
        self.watches
    }
    fn interest(&mut self, block: &BlockInfo) -> Interest {
        self.asked += 1;
        self.rec.interest(block);
        (self.blocks)(block)
    }
    fn block(&mut self, id: BlockId, pc: u64) -> Control {
        self.rec.block(id, pc)
    }
    fn edge(&mut self, edge: &Edge) -> Control {
        self.rec.edge(edge)
    }
    fn mem(&mut self, access: &MemAccess) -> Control {
        self.rec.mem(access)
    }
    fn sample(&mut self, sample: &Sample) -> Control {
        self.rec.sample(sample)
    }
    fn syscall(&mut self, call: &Syscall) -> Control {
        self.rec.syscall(call)
    }
    fn exit(&mut self, exit: &Exit) {
        self.rec.exit(exit)
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
    run_config(code, config, sink)
}

fn run_config(code: &[u32], config: Config, sink: &mut dyn Sink) -> (State, RunSummary) {
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
fn superblocks_form_only_when_no_sink_watches_blocks() {
    let code = side_exit_loop();
    let (lean, lean_summary) = run_with(&code, None, false, &mut ());
    let (plain, plain_summary) = run_with(&code, None, false, &mut ExitOnly);
    assert_eq!(lean, plain);
    // Plain blocks: the entry up to the beq, the loop head, its fall-through, the beq's
    // target, the exit. Superblocks follow the beq's fall-through and the bne back to the
    // loop head (unrolling whole iterations); the entry's ends at a bne it cannot follow by
    // a whole iteration, so the entry, the loop head, the beq's target and the exit start
    // one.
    assert_eq!(plain_summary.blocks_translated, 5);
    assert_eq!(lean_summary.blocks_translated, 4);
    // `None` and `Box<()>` watch nothing either; a sink that wants run-wide events but
    // watches no blocks gets superblocks too, and is never asked about a block.
    let (_, none) = run_with(&code, None, false, &mut None::<ExitOnly>);
    let (_, boxed) = run_with(&code, None, false, &mut Box::new(()));
    let mut quiet = Log::new(
        Interest::SYSCALL | Interest::EXIT,
        |_| Interest::NONE,
        false,
    );
    let (_, quiet_summary) = run_with(&code, None, false, &mut quiet);
    assert_eq!(
        [none, boxed, quiet_summary].map(|s| s.blocks_translated),
        [4; 3]
    );
    assert_eq!(quiet.asked, 0, "interest() is not asked in superblock mode");
    // One member that watches blocks turns them off for the combination.
    let (_, pair) = run_with(&code, None, false, &mut ((), ExitOnly));
    assert_eq!(pair.blocks_translated, 5);
}

#[test]
fn a_loop_longer_than_half_a_superblock_is_not_translated_once_per_rotation() {
    // A straight 7-instruction body run 10 times. With 10-instruction superblocks no whole
    // second iteration fits, so every superblock ends at the bne and none starts inside the
    // body. Following the bne into a partial iteration would end each superblock mid-body
    // and start the next one there: a translation per rotation of the body (7 of them).
    let mut code = vec![addi(A0, 0, 0), addi(A1, 0, 10)];
    code.extend([addi(A0, A0, 1); 5]); // loop (8)
    code.extend([addi(A1, A1, -1), bne(A1, 0, -24)]);
    code.extend(exit());
    let config = |max_block_insns, single_step| Config {
        max_block_insns,
        single_step,
        ..Config::default()
    };
    for (max, translated) in [(10, 3), (16, 3), (64, 3)] {
        let (lean, summary) = run_config(&code, config(max, false), &mut ());
        let (stepped, _) = run_config(&code, config(max, true), &mut ());
        assert_eq!(lean, stepped, "max {max}");
        assert_eq!(lean.0, Outcome::Exited(50));
        // The entry (with whole iterations), the loop head (unrolled by whole iterations
        // where they fit), the exit.
        assert_eq!(summary.blocks_translated, translated, "max {max}");
    }
}

/// A `getpid` system call, then a loop that stores, loads and calls across forward
/// branches, taken on some iterations and not on others.
fn forward_branches_with_memory() -> Vec<u32> {
    let mut code = vec![
        addi(A7, 0, 172),
        ECALL,
        addi(A0, 0, 0),
        addi(A1, 0, 6),
        addi(SP, SP, -16),
        // loop (20):
        sd(A1, SP, 0),
        andi(T0, A1, 3),
        beq(T0, 0, 12), // a1 % 4 == 0: skip the next two
        ld(A2, SP, 0),
        add(A0, A0, A2),
        jal(RA, 28), // 40: f at 68
        addi(A1, A1, -1),
        bne(A1, 0, -28),
        addi(SP, SP, 16),
        andi(A0, A0, 0xff),
    ];
    code.extend(exit()); // 60, 64
    code.extend([
        // f (68)
        sd(A0, SP, 8),
        andi(T0, A1, 1),
        bne(T0, 0, 8),
        addi(A0, A0, 1),
        jalr(0, RA, 0),
    ]);
    code
}

/// Every block event, with values, of blocks that do not end with a conditional branch.
fn all_but_branch_blocks(block: &BlockInfo) -> Interest {
    match block.ends_with {
        BlockEnd::Branch { .. } => Interest::NONE,
        _ => Interest::BLOCK | Interest::EDGE | Interest::MEM_VALUES,
    }
}

/// Every block event, with values, of every block.
fn every_block(_: &BlockInfo) -> Interest {
    Interest::BLOCK | Interest::EDGE | Interest::MEM_VALUES
}

/// The contract superblocks rely on: a sink that wants no run-wide events (`wants()` empty)
/// but events of blocks (the default `watches_blocks`) gets exactly the events of a
/// single-stepped run, for every block, including those after forward branches, whether it
/// wants events of every block or only of some (the blocks it wants nothing of must not
/// swallow the ones after them).
#[test]
fn a_sink_watching_blocks_without_run_events_gets_every_event() {
    for (code, pick) in [
        (side_exit_loop(), every_block as fn(&BlockInfo) -> Interest),
        (side_exit_loop(), all_but_branch_blocks),
        (forward_branches_with_memory(), every_block),
        (forward_branches_with_memory(), all_but_branch_blocks),
        (followed_jumps_and_calls(), every_block),
        (followed_jumps_and_calls(), all_but_branch_blocks),
    ] {
        let mut cached = Log::new(Interest::NONE, pick, true);
        let (cached_state, cached_summary) = run_with(&code, None, false, &mut cached);
        let mut stepped = Log::new(Interest::NONE, pick, true);
        let (stepped_state, _) = run_with(&code, None, true, &mut stepped);
        assert_eq!(cached_state, stepped_state);
        assert_eq!(cached.rec.events, stepped.rec.events);
        // Every basic block was announced and entered: as many as `ExitOnly` translates.
        let (_, plain) = run_with(&code, None, false, &mut ExitOnly);
        assert_eq!(cached_summary.blocks_translated, plain.blocks_translated);
        let (_, lean) = run_with(&code, None, false, &mut ());
        assert!(lean.blocks_translated < plain.blocks_translated);
        assert!(cached
            .rec
            .events
            .iter()
            .any(|e| matches!(e, Event::Block(..))));
    }
    let mut log = Log::new(Interest::NONE, every_block, true);
    let _ = run_with(&forward_branches_with_memory(), None, false, &mut log);
    let loads = |e: &&Event| matches!(e, Event::Mem(MemAccess { value: 3, .. }));
    assert_eq!(
        log.rec.events.iter().filter(loads).count(),
        2,
        "sd and ld of a1 = 3"
    );
}

/// A sink that watches no blocks still gets the run-wide events of single-stepping: system
/// calls and the exit (an `ecall` ends every block). One that takes samples turns
/// superblocks off, so its samples come at the block boundaries of single-stepping.
#[test]
fn run_wide_events_of_a_sink_that_watches_no_blocks_match_single_step() {
    let code = forward_branches_with_memory();
    let run = |wants: Interest, single_step: bool| {
        let config = Config {
            single_step,
            sample_interval: Some(3),
            ..Config::default()
        };
        let mut log = Log::new(wants, |_| Interest::NONE, false);
        let (state, summary) = run_config(&code, config, &mut log);
        // Without superblocks the sink may still be asked about blocks (it wants none).
        log.rec.events.retain(|e| !matches!(e, Event::Interest(_)));
        (state, summary.blocks_translated, log.rec.events)
    };
    let quiet = Interest::SYSCALL | Interest::EXIT;
    let (cached, cached_blocks, cached_events) = run(quiet, false);
    let (stepped, stepped_blocks, stepped_events) = run(quiet, true);
    assert_eq!((cached, cached_events.clone()), (stepped, stepped_events));
    assert!(cached_blocks < stepped_blocks, "superblocks");
    assert!(matches!(
        cached_events[..],
        [Event::Syscall(_), Event::Exit(_)]
    ));
    let sampled = Interest::SAMPLE | Interest::EXIT;
    let (cached, cached_blocks, cached_events) = run(sampled, false);
    let (stepped, stepped_blocks, stepped_events) = run(sampled, true);
    assert_eq!(cached_blocks, stepped_blocks, "no superblocks");
    let samples = |e: &[Event]| e.iter().filter(|e| matches!(e, Event::Sample(_))).count();
    assert!(samples(&cached_events) > 5);
    assert_eq!((cached, cached_events), (stepped, stepped_events));
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

fn followed_jumps_and_calls() -> Vec<u32> {
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
    code
}

#[test]
fn followed_jumps_and_calls_keep_pcs_counts_and_return_addresses() {
    let code = followed_jumps_and_calls();
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

/// A superblock that follows a call or a backward branch to code that cannot be fetched
/// ends with that instruction, as a plain block does: the call links its own return
/// address, and the branch, not taken, falls through.
#[test]
fn a_followed_transfer_to_unfetchable_code_ends_the_superblock() {
    let call = [addi(A0, 0, 1), jal(RA, 0x8_0000)];
    let (outcome, pc, instret, regs) = same_as_single_step(&call);
    assert!(matches!(outcome, Outcome::Fault(_)));
    assert_eq!((pc, instret), (4 + 0x8_0000, 2));
    assert_eq!(regs[RA as usize] % 4, 0, "ra holds a return address");
    let mut branch = vec![addi(A0, 0, 0), bne(A0, 0, -2048), addi(A0, 0, 7)];
    branch.extend(exit());
    let (outcome, _, instret, _) = same_as_single_step(&branch);
    assert_eq!((outcome, instret), (Outcome::Exited(7), 5));
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
                // Behind `dyn Sink`, as `run_config`'s sinks (why: docs/architecture.md).
                let s = m.run(&mut () as &mut dyn Sink);
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

#[test]
fn blocks_are_capped_whatever_the_configured_limit() {
    // 3000 straight-line instructions: with no limit asked, superblocks are still cut at
    // MAX_BLOCK_INSNS (the threaded interpreter's chain is a call per instruction where
    // calls stay calls, as in this debug build), and the run matches single-stepping.
    let mut code = vec![addi(A0, 0, 0)];
    code.extend([addi(A0, A0, 1); 3000]);
    code.extend(exit());
    let config = |single_step| Config {
        max_block_insns: u32::MAX,
        single_step,
        ..Config::default()
    };
    let (lean, summary) = run_config(&code, config(false), &mut ());
    let (stepped, _) = run_config(&code, config(true), &mut ());
    assert_eq!(lean, stepped);
    assert_eq!(lean.0, Outcome::Exited(3000 % 256));
    let cap = isa_emu::block::MAX_BLOCK_INSNS as u64;
    assert_eq!(summary.blocks_translated, 3003_u64.div_ceil(cap));
}

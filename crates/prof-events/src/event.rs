//! The events a driver delivers, as plain data.

use crate::BlockId;

/// How a basic block ends, known at translation time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockEnd {
    /// A conditional direct branch: taken goes to `target`, not taken falls through.
    Branch {
        /// Target when taken.
        target: u64,
    },
    /// A direct jump that does not link.
    Jump,
    /// A direct call (a jump that links a return address).
    Call,
    /// A return (an indirect jump through the return-address register).
    Return,
    /// An indirect jump that is not a return.
    IndirectJump,
    /// An indirect call.
    IndirectCall,
    /// A system call or environment call; execution resumes after it.
    Syscall,
    /// An instruction after which the driver must re-translate (for example `fence.i`),
    /// a trap-raising instruction, or the block size limit; execution falls through.
    FallThrough,
}

/// What a sink learns about a block when it is translated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockInfo {
    /// Dense id.
    pub id: BlockId,
    /// Address of the first instruction.
    pub start: u64,
    /// Address just past the last instruction.
    pub end: u64,
    /// Number of instructions.
    pub insns: u32,
    /// How the block ends.
    pub ends_with: BlockEnd,
}

/// The kind of a control transfer at the end of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// Conditional branch, taken.
    Taken,
    /// Conditional branch, not taken.
    NotTaken,
    /// Direct jump.
    Jump,
    /// Direct call.
    Call,
    /// Return.
    Return,
    /// Indirect jump (not a return).
    IndirectJump,
    /// Indirect call.
    IndirectCall,
    /// Sequential flow into the next block (size limit, after a system call, `fence.i`).
    FallThrough,
}

impl EdgeKind {
    /// A short stable name for reports and file formats.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Taken => "taken",
            EdgeKind::NotTaken => "not-taken",
            EdgeKind::Jump => "jump",
            EdgeKind::Call => "call",
            EdgeKind::Return => "return",
            EdgeKind::IndirectJump => "indirect-jump",
            EdgeKind::IndirectCall => "indirect-call",
            EdgeKind::FallThrough => "fall-through",
        }
    }
}

/// A control transfer at the end of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The block that ended.
    pub from: BlockId,
    /// Address of the block's last instruction (the branch).
    pub pc: u64,
    /// Address control went to.
    pub to: u64,
    /// What kind of transfer it was.
    pub kind: EdgeKind,
}

/// Whether an access reads, writes, or both (atomic read-modify-write).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// An atomic read-modify-write; `value` is the value read.
    Atomic,
}

/// A memory access by one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// The block the instruction belongs to.
    pub block: BlockId,
    /// Address of the instruction.
    pub pc: u64,
    /// Guest address accessed.
    pub addr: u64,
    /// Size in bytes (1, 2, 4 or 8).
    pub size: u8,
    /// Load, store or atomic.
    pub kind: MemKind,
    /// The value loaded or stored, zero-extended; 0 unless the block asked for
    /// [`Interest::MEM_VALUES`](crate::Interest::MEM_VALUES).
    pub value: u64,
}

/// A sampling interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sample {
    /// Address of the next instruction to execute.
    pub pc: u64,
    /// Instructions retired so far.
    pub instret: u64,
}

/// A system call as the guest made it and as the environment answered it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Syscall {
    /// Address of the `ecall`.
    pub pc: u64,
    /// System call number (register a7 on RISC-V Linux).
    pub number: u64,
    /// Arguments a0..a5.
    pub args: [u64; 6],
    /// Return value placed in a0 (negative errno on failure).
    pub ret: i64,
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitReason {
    /// The guest exited with this status.
    Exited(i32),
    /// The guest faulted (illegal instruction, access fault, ...); the driver's own error
    /// type carries the details.
    Fault,
    /// The instruction limit was reached.
    FuelExhausted,
    /// A sink asked to stop.
    Stopped,
}

/// The last event of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Exit {
    /// Why the run ended.
    pub reason: ExitReason,
    /// Address of the next instruction that would have executed.
    pub pc: u64,
    /// Instructions retired.
    pub instret: u64,
}

//! A read-only, ISA-independent view of a program's code.

use std::collections::BTreeMap;

/// The control-flow class of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowClass {
    /// Execution continues at the next instruction.
    None,
    /// Conditional direct branch.
    Branch {
        /// Target when taken.
        target: u64,
    },
    /// Direct jump that does not link.
    Jump {
        /// Target.
        target: u64,
    },
    /// Direct call.
    Call {
        /// Target.
        target: u64,
    },
    /// Return.
    Return,
    /// Indirect jump (not a return).
    IndirectJump,
    /// Indirect call.
    IndirectCall,
    /// System or environment call; execution normally resumes at the next instruction.
    Syscall,
    /// Execution does not continue (breakpoint, permanently illegal instruction).
    Halt,
}

impl FlowClass {
    /// True if the instruction ends a basic block.
    pub fn ends_block(self) -> bool {
        !matches!(self, FlowClass::None)
    }
}

/// What an analysis needs to know about one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InsnInfo {
    /// Length in bytes.
    pub len: u8,
    /// Control-flow class.
    pub flow: FlowClass,
    /// True if the instruction reads or writes memory.
    pub accesses_memory: bool,
}

/// The read-only view of a program's code that ISA-independent analyses use.
///
/// isa-emu implements it for a loaded program; tests implement it for synthetic programs.
pub trait CodeView {
    /// The instruction at `addr`, or `None` if there is no valid instruction there.
    fn insn(&self, addr: u64) -> Option<InsnInfo>;

    /// The instruction's text for reports (for RISC-V, objdump's syntax).
    fn text(&self, addr: u64) -> Option<String>;

    /// The symbol containing `addr` and the offset into it.
    fn symbol(&self, addr: u64) -> Option<(&str, u64)> {
        let _ = addr;
        None
    }

    /// Entry addresses of the program's functions, ascending (from symbols where present).
    fn functions(&self) -> Vec<u64> {
        Vec::new()
    }

    /// The targets of every indirect jump in the function at `entry` (the code reached from
    /// it up to transfers to where `leaves` holds: other functions' entries), each
    /// ascending, by the jump's address: the jump tables of its `switch`es. `None` where
    /// one of them is not known (the default): an analysis must then take every indirect
    /// jump of the function as one that may go anywhere in it.
    fn jump_tables(
        &self,
        entry: u64,
        leaves: &dyn Fn(u64) -> bool,
    ) -> Option<BTreeMap<u64, Vec<u64>>> {
        let _ = (entry, leaves);
        None
    }

    /// Where inside the function whose code lies at `[start, end)` an indirect jump that
    /// [`jump_tables`](Self::jump_tables) does not resolve may land, when the program
    /// holds every address of an instruction there that it may jump to: the addresses of
    /// its instructions that its data holds (a computed goto's table of labels),
    /// ascending. A return address a
    /// call linked (the instruction after a call) may be landed on too, and another
    /// function's code. `None` (the default) where that is not known, as where code may
    /// form such an address itself: the jump may then land on any instruction of the
    /// function.
    fn code_pointers(&self, start: u64, end: u64) -> Option<Vec<u64>> {
        let _ = (start, end);
        None
    }
}

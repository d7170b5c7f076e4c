//! A prof-events [`Sink`] that profiles the values loaded and stored by chosen
//! instructions into an [`IndexTable`].

use std::collections::HashSet;

use prof_events::{BlockInfo, Control, Interest, MemAccess, MemKind, Sink};

use crate::fasthash::FastBuild;
use crate::index::{IndexKey, IndexTable, InsnKind};
use crate::valuefn::ValueFn;

/// Feeds `f(value)` of every memory access at a chosen pc to the hotlist of
/// (pid, pc, Load/Store/Atomic). Only blocks containing a chosen pc ask for values, so the
/// rest of the program runs without memory events.
#[derive(Debug)]
pub struct MemValueSink {
    table: IndexTable<u64>,
    pcs: HashSet<u64, FastBuild>,
    pid: u32,
    func: ValueFn,
}

impl MemValueSink {
    /// Profiles `func` of the values at `pcs` of process `pid` into `table`.
    pub fn new(
        table: IndexTable<u64>,
        pcs: impl IntoIterator<Item = u64>,
        pid: u32,
        func: ValueFn,
    ) -> Self {
        MemValueSink {
            table,
            pcs: pcs.into_iter().collect(),
            pid,
            func,
        }
    }

    /// The table filled so far.
    pub fn table(&self) -> &IndexTable<u64> {
        &self.table
    }

    /// Gives the table back.
    pub fn into_table(self) -> IndexTable<u64> {
        self.table
    }
}

impl Sink for MemValueSink {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        if self
            .pcs
            .iter()
            .any(|&pc| (block.start..block.end).contains(&pc))
        {
            Interest::MEM_VALUES
        } else {
            Interest::NONE
        }
    }

    fn mem(&mut self, access: &MemAccess) -> Control {
        if self.pcs.contains(&access.pc) {
            let kind = match access.kind {
                MemKind::Load => InsnKind::Load,
                MemKind::Store => InsnKind::Store,
                MemKind::Atomic => InsnKind::Atomic,
            };
            let key = IndexKey {
                pid: self.pid,
                pc: access.pc,
                kind,
            };
            self.table.update(key, self.func.apply(access.value));
        }
        Control::Continue
    }
}

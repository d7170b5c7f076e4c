//! Proptest strategies for the event vocabulary (feature `proptest`), so that test suites of
//! analyses can drive their sinks with generated input.
//!
//! [`event_stream`] produces a *consistent* stream, as a driver would: every block is
//! announced with [`Event::Interest`] before it runs, ids are dense in order of announcement,
//! edges leave the block that just ran, and the stream ends with one [`Event::Exit`].

use proptest::prelude::*;

use crate::{
    BlockEnd, BlockId, BlockInfo, Edge, EdgeKind, Event, Exit, ExitReason, MemAccess, MemKind,
};

/// Any edge kind.
pub fn edge_kind() -> impl Strategy<Value = EdgeKind> {
    prop_oneof![
        Just(EdgeKind::Taken),
        Just(EdgeKind::NotTaken),
        Just(EdgeKind::Jump),
        Just(EdgeKind::Call),
        Just(EdgeKind::Return),
        Just(EdgeKind::IndirectJump),
        Just(EdgeKind::IndirectCall),
        Just(EdgeKind::FallThrough),
    ]
}

/// A block end; branch targets are 2-byte aligned addresses below 2^32.
pub fn block_end() -> impl Strategy<Value = BlockEnd> {
    prop_oneof![
        (0u64..1 << 31).prop_map(|t| BlockEnd::Branch { target: t * 2 }),
        Just(BlockEnd::Jump),
        Just(BlockEnd::Call),
        Just(BlockEnd::Return),
        Just(BlockEnd::IndirectJump),
        Just(BlockEnd::IndirectCall),
        Just(BlockEnd::Syscall),
        Just(BlockEnd::FallThrough),
    ]
}

/// A block description with id `id`: 1 to 64 instructions of 2 or 4 bytes.
pub fn block_info(id: u32) -> impl Strategy<Value = BlockInfo> {
    (0u64..1 << 31, 1u32..=64, 2u64..=4, block_end()).prop_map(move |(s, insns, w, end)| {
        let start = s * 2;
        BlockInfo {
            id: BlockId(id),
            start,
            end: start + u64::from(insns) * if w == 3 { 2 } else { w },
            insns,
            ends_with: end,
        }
    })
}

/// A memory access of block `block`: naturally aligned, 1 to 8 bytes, value fitting the size.
pub fn mem_access(block: BlockId) -> impl Strategy<Value = MemAccess> {
    let kind = prop_oneof![
        Just(MemKind::Load),
        Just(MemKind::Store),
        Just(MemKind::Atomic)
    ];
    (0u64..1 << 40, 0u32..4, kind, any::<u64>(), 0u64..1 << 31).prop_map(
        move |(addr, log, kind, value, pc)| {
            let size = 1u8 << log;
            MemAccess {
                block,
                pc: pc * 2,
                addr: addr & !(u64::from(size) - 1),
                size,
                kind,
                value: value & (u64::MAX >> (64 - 8 * u32::from(size))),
            }
        },
    )
}

/// A consistent event stream over at most `max_blocks` distinct blocks and `max_runs` block
/// executions, each followed by an edge to the next block run.
pub fn event_stream(max_blocks: u32, max_runs: usize) -> impl Strategy<Value = Vec<Event>> {
    let blocks =
        (1..=max_blocks.max(1)).prop_flat_map(|n| (0..n).map(block_info).collect::<Vec<_>>());
    (
        blocks,
        proptest::collection::vec(
            (any::<prop::sample::Index>(), edge_kind()),
            1..=max_runs.max(1),
        ),
    )
        .prop_map(|(blocks, runs)| {
            let mut events = Vec::new();
            let mut announced = 0usize;
            let order: Vec<(usize, EdgeKind)> = runs
                .iter()
                .map(|(i, k)| (i.index(blocks.len()), *k))
                .collect();
            let mut instret = 0u64;
            for (n, &(b, _)) in order.iter().enumerate() {
                // Blocks are announced in id order the first time one at or past them runs.
                while announced <= b {
                    events.push(Event::Interest(blocks[announced]));
                    announced += 1;
                }
                let info = blocks[b];
                events.push(Event::Block(info.id, info.start));
                instret += u64::from(info.insns);
                if let Some(&(next, kind)) = order.get(n + 1) {
                    let to = blocks[next].start;
                    let pc = info.end - 2;
                    events.push(Event::Edge(Edge {
                        from: info.id,
                        pc,
                        to,
                        kind,
                    }));
                }
            }
            let last = blocks[order.last().map_or(0, |&(b, _)| b)];
            events.push(Event::Exit(Exit {
                reason: ExitReason::Exited(0),
                pc: last.end,
                instret,
            }));
            events
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest! {
        #[test]
        fn streams_are_consistent(events in event_stream(8, 40)) {
            let mut known = 0u32;
            let mut last_block = None;
            for e in &events {
                match e {
                    Event::Interest(info) => {
                        prop_assert_eq!(info.id.0, known, "dense ids in announcement order");
                        known += 1;
                    }
                    Event::Block(id, _) => {
                        prop_assert!(id.0 < known, "a block runs only after its announcement");
                        last_block = Some(*id);
                    }
                    Event::Edge(edge) => prop_assert_eq!(Some(edge.from), last_block),
                    _ => {}
                }
            }
            prop_assert!(matches!(events.last(), Some(Event::Exit(_))));
        }

        #[test]
        fn accesses_are_aligned_and_values_fit(a in mem_access(BlockId(3))) {
            prop_assert_eq!(a.addr % u64::from(a.size), 0);
            prop_assert!(a.size == 8 || a.value >> (8 * a.size) == 0);
        }
    }
}

//! Probes: the work of an edge event, run by the driver's compiled code in place of the
//! event (the instrumentation of Ball and Larus: add a constant to a running sum on some
//! edges, count the sum in a table and reset it on others).
//!
//! A sink that has probes lends the driver its [`ProbeState`] with its counters and path
//! ends, borrowed for as long as the driver holds them ([`ProbeLease`],
//! [`Sink::probe_state`]), and
//! gives, per block, a [`Probe`] for each of the block's fixed exits it wants ([`Sink::probe`]). When
//! the block leaves by an exit with a probe, the driver may run the probe instead of
//! delivering the edge event:
//!
//! 1. The probe *applies* if the state's `key` and `epoch` equal the probe's and, for
//!    [`ProbeOp::End`], one of the path end's ways (the first that does) is in the state's
//!    `ends`, its count in range (`sum + add < size`, computed in 128 bits) and its counter
//!    in `counts`.
//! 2. If it applies: [`ProbeOp::Add`] adds to `sum`; [`ProbeOp::End`] adds one to that
//!    way's counter and sets `sum`; then `key` becomes the probe's `next`. The edge event is
//!    not delivered.
//! 3. Otherwise nothing changes and the edge event is delivered, before any later probe
//!    runs.
//!
//! The driver may always deliver the event instead (code that is not compiled, a run that
//! cannot use the probes), so **a sink's edge event must do exactly what its probe does**
//! where the probe applies; its `key`, and an `epoch` it changes when its probes go stale,
//! make sure a probe applies only there. A driver that runs probes delivers every other
//! event of the run (block, edge or trace) before any probe runs after it, so a sink sees
//! its state change in the order the program ran.
//!
//! [`Sink::probe_state`]: crate::Sink::probe_state
//! [`Sink::probe`]: crate::Sink::probe

/// A path end: counts `sum + add` at `counts[base + sum + add]` if `sum + add < size`
/// (128-bit arithmetic, `add` sign-extended), then sets `sum` to `set` (sign-extended).
/// The layout is fixed: compiled code reads it (half a cache line).
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeEnd {
    /// Index in `counts` of the counter of `sum + add == 0`.
    pub base: u64,
    /// Counters of the table (0: none; the end never applies).
    pub size: u64,
    /// Added to the sum before counting.
    pub add: i64,
    /// The sum after the end.
    pub set: i64,
}

/// What a probe does when it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeOp {
    /// `sum += v` (sign-extended to 128 bits).
    Add(i64),
    /// The path end whose `ways` ways are the state's `ends` from index `end` on (read
    /// when the probe runs, so the sink may change them): the first way that counts the
    /// sum counts it (a sink keeps several windows of a sparse table's sums this way).
    End {
        /// Index of the first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
    },
}

/// A probe on one exit of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Probe {
    /// The state's `key` under which it applies.
    pub key: u64,
    /// The state's `epoch` under which it applies.
    pub epoch: u64,
    /// The state's `key` after it.
    pub next: u64,
    /// What it does to the sum.
    pub op: ProbeOp,
}

/// The state probes run on, owned by the sink: the running sum and where the sink stands.
/// The layout is fixed: compiled code reads and writes it.
#[repr(C)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeState {
    /// The running sum.
    pub sum: u128,
    /// Where the sink stands (probes apply under their own key only).
    pub key: u64,
    /// Changed by the sink when probes it gave may no longer apply.
    pub epoch: u64,
}

impl ProbeState {
    /// Byte offsets of the fields compiled code uses.
    pub const SUM: usize = std::mem::offset_of!(ProbeState, sum);
    /// See [`SUM`](Self::SUM).
    pub const KEY: usize = std::mem::offset_of!(ProbeState, key);
    /// See [`SUM`](Self::SUM).
    pub const EPOCH: usize = std::mem::offset_of!(ProbeState, epoch);
}

/// What a sink lends the driver for probes to run on: its state, counters and path ends,
/// borrowed until the driver gives the lease up (before it calls the sink again).
#[derive(Debug)]
pub struct ProbeLease<'a> {
    /// The sum and the key.
    pub state: &'a mut ProbeState,
    /// The counters path ends count in.
    pub counts: &'a mut [u64],
    /// The path ends ([`ProbeOp::End`] indexes them).
    pub ends: &'a [ProbeEnd],
}

/// Runs `probe` on `state` over `counts` and `ends` as compiled code does (the reference
/// for drivers and for tests): `true` if it applied.
pub fn apply(probe: &Probe, state: &mut ProbeState, counts: &mut [u64], ends: &[ProbeEnd]) -> bool {
    if state.key != probe.key || state.epoch != probe.epoch {
        return false;
    }
    match probe.op {
        ProbeOp::Add(v) => state.sum = state.sum.wrapping_add(v as i128 as u128),
        ProbeOp::End { end, ways } => {
            let sum = state.sum;
            let way = |end: &ProbeEnd| {
                let i = sum.wrapping_add(end.add as i128 as u128);
                (i < u128::from(end.size))
                    .then(|| end.base.checked_add(i as u64))
                    .flatten()
                    .and_then(|c| usize::try_from(c).ok())
                    .filter(|&c| c < counts.len())
            };
            let ways = ends.iter().skip(end as usize).take(usize::from(ways));
            let Some((c, set)) = ways.into_iter().find_map(|e| Some((way(e)?, e.set))) else {
                return false;
            };
            counts[c] += 1;
            state.sum = set as i128 as u128;
        }
    }
    state.key = probe.next;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_apply_under_their_key_and_epoch_only() {
        let ends = [ProbeEnd {
            base: 2,
            size: 3,
            add: -1,
            set: 7,
        }];
        let mut counts = [0u64; 5];
        let mut s = ProbeState {
            sum: 1,
            key: 10,
            ..ProbeState::default()
        };
        let add = Probe {
            key: 10,
            epoch: 0,
            next: 11,
            op: ProbeOp::Add(2),
        };
        assert!(apply(&add, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key), (3, 11));
        // Wrong key, then wrong epoch: nothing changes.
        assert!(!apply(&add, &mut s, &mut counts, &ends));
        let end = Probe {
            key: 11,
            epoch: 1,
            next: 12,
            op: ProbeOp::End { end: 0, ways: 1 },
        };
        assert!(!apply(&end, &mut s, &mut counts, &ends));
        s.epoch = 1;
        // sum 3 - 1 = 2 < 3: counter 2 + 2.
        assert!(apply(&end, &mut s, &mut counts, &ends));
        assert_eq!(counts, [0, 0, 0, 0, 1]);
        assert_eq!((s.sum, s.key), (7, 12));
        // Out of range (7 - 1 = 6 >= 3), and a missing end: no change.
        let again = Probe { key: 12, ..end };
        assert!(!apply(&again, &mut s, &mut counts, &ends));
        let missing = Probe {
            op: ProbeOp::End { end: 1, ways: 1 },
            ..again
        };
        assert!(!apply(&missing, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key), (7, 12));
    }

    #[test]
    fn a_path_end_counts_in_the_first_way_that_holds_the_sum() {
        // Two windows: sum 5 (at counter 0) and sum 9 (at counter 1).
        let ends = [
            ProbeEnd {
                base: 0,
                size: 1,
                add: -5,
                set: 0,
            },
            ProbeEnd {
                base: 1,
                size: 1,
                add: -9,
                set: 0,
            },
        ];
        let mut counts = [0u64; 2];
        let end = |ways| Probe {
            key: 0,
            epoch: 0,
            next: 0,
            op: ProbeOp::End { end: 0, ways },
        };
        for (sum, ways, applies) in [(9, 2, true), (5, 2, true), (9, 1, false), (7, 2, false)] {
            let mut s = ProbeState {
                sum,
                ..ProbeState::default()
            };
            assert_eq!(
                apply(&end(ways), &mut s, &mut counts, &ends),
                applies,
                "{sum}"
            );
        }
        assert_eq!(counts, [1, 1]);
    }

    #[test]
    fn the_layout_is_what_compiled_code_reads() {
        assert_eq!(size_of::<ProbeEnd>(), 32);
        assert_eq!(ProbeState::SUM, 0);
        assert_eq!(ProbeState::KEY, 16);
        assert_eq!(ProbeState::EPOCH, 24);
    }
}

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
//!    [`ProbeOp::End`], one of the path end's ways (the first that does: the one given in
//!    the probe, if any, then those in the state's `ends`) counts the sum: its count in
//!    range (`sum + add < size`, computed in 128 bits) and its counter in `counts`
//!    ([`ProbeOp::Count`]: its one path end, given in the probe).
//! 2. If it applies: [`ProbeOp::Add`] adds to `sum`; [`ProbeOp::End`] and
//!    [`ProbeOp::Count`] add one to that way's counter and set `sum` (to the probe's
//!    `set` and the way's, respectively); then `key` becomes
//!    the probe's `next`. The edge event is not delivered.
//! 3. Otherwise nothing changes and the edge event is delivered, before any later probe
//!    runs.
//!
//! Calls and returns have probes too ([`ProbeOp::Call`] on a call's fixed exit, or on an
//! indirect call's exit for one target,
//! [`ProbeOp::Return`] on a return's indirect exit, [`Sink::probe_return`]): the state
//! holds a stack of up to [`FRAMES`] *frames*, the calls that compiled code made and whose
//! returns it may take. A call applies only while the stack has room and pushes a frame;
//! a return applies only to the top frame's return address and pops it; a tail call
//! ([`ProbeOp::Tail`]) applies only while a frame is open and leaves it. A sink finds
//! frames open when compiled code made calls whose returns it did not take: the calls'
//! activations are then the sink's to keep (the driver calls the sink only after the code
//! stopped). An indirect jump's exit has a probe for one target too: an addition where the
//! jump is a flow edge (a jump table's), or where the activation restarts at it
//! ([`ProbeOp::Restart`]).
//!
//! Hierarchical profiles save the outer path's sum on entering a region and restore it on
//! leaving ([`ProbeOp::Push`], [`ProbeOp::PushEnd`], [`ProbeOp::Pop`], [`ProbeOp::PopEnd`],
//! and both on one edge: [`ProbeOp::Through`], [`ProbeOp::PopPush`]): the state holds up
//! to [`SAVES`] saved sums, and each activation's own are those from its `floor` up (a call
//! sets the floor to the sums saved so far, its return restores the caller's), so a pop
//! applies only above the floor, and a return or a tail call only where the ending
//! activation saved none. A sink finds sums saved when compiled code entered regions that
//! it did not leave: they are then the sink's to keep, each the region's of the
//! activation whose floor it is above. A sink whose probes never save a sum (a flat path
//! profile's) says so ([`Sink::saves_sums`]), and the driver's calls and returns then
//! leave the floor alone.
//!
//! The driver may always deliver the event instead (code that is not compiled, a run that
//! cannot use the probes), so **a sink's edge event must do exactly what its probe does**
//! where the probe applies; its `key`, and an `epoch` it changes when its probes go stale,
//! make sure a probe applies only there. A driver that runs probes delivers every other
//! event of the run (block, edge or trace) before any probe runs after it, so a sink sees
//! its state change in the order the program ran.
//!
//! [`Sink::probe_state`]: crate::Sink::probe_state
//! [`Sink::saves_sums`]: crate::Sink::saves_sums
//! [`Sink::probe`]: crate::Sink::probe
//! [`Sink::probe_return`]: crate::Sink::probe_return

/// A path end: counts `sum + add` at `counts[base + sum + add]` if `sum + add < size`
/// (128-bit arithmetic, `add` sign-extended), then sets `sum` to `set` (sign-extended).
/// The layout is fixed: compiled code reads it (half a cache line).
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProbeEnd {
    /// Index in `counts` of the counter of `sum + add == 0`.
    pub base: u64,
    /// Counters of the table (0: none; the end never applies).
    pub size: u64,
    /// Added to the sum before counting.
    pub add: i64,
    /// The sum after the end (but for [`ProbeOp::End`], which carries its own).
    pub set: i64,
}

/// What a probe does when it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeOp {
    /// `sum += v` (sign-extended to 128 bits).
    Add(i64),
    /// The path end whose `ways` ways are the state's `ends` from index `end` on (read
    /// when the probe runs, so the sink may change them), after `first` if given: the
    /// first way that counts the sum counts it (a sink keeps several windows of a sparse
    /// table's sums this way), and the sum becomes `set`, not the way's: the sum after a
    /// path end is the path end's, whichever window counted, so compiled code knows it
    /// without reading the way.
    End {
        /// Index of the first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
        /// The sum after.
        set: i64,
        /// A way tried before those in `ends`, given in the probe: a sink gives one that
        /// does not change while the probe's epoch lasts (a window it pinned), so that
        /// where compiled code knows the sum it knows the counter too.
        first: Option<ProbeEnd>,
    },
    /// The path end given, counted as one way of [`ProbeOp::End`] is: a sink gives it for
    /// a path end that never changes while the probe's epoch lasts (a dense table's), so
    /// that compiled code need not read it from `ends`.
    Count(ProbeEnd),
    /// A call (on a call's exit, or an indirect call's for one target), if the stack has
    /// room (and, with `push`, the stack of saved sums): pushes the frame of `ret`,
    /// `resume`, `site` and the caller's sum when it resumes, `sum + add + resume_add`
    /// (which must fit 64 bits); then `sum = start`, and the callee saves
    /// `push`, if any (it starts in a region, see [`ProbeOp::Push`]). With `end`, a path
    /// of the caller ends first (the call's block passes a loop's back edge): that path
    /// end counts the sum and sets it as [`ProbeOp::End`] does, and applies only where it
    /// counts, before the rest. With `enter`, the caller enters a region first (the call's
    /// block passes a loop's entry), as [`ProbeOp::Push`] `{ add, set }` does, below the
    /// callee's floor; the stack must have room for it and `push`.
    Call {
        /// Added to the caller's sum when it calls.
        add: i64,
        /// The return address.
        ret: u64,
        /// The key the caller resumes with.
        resume: u64,
        /// Added to the caller's sum when it resumes.
        resume_add: i64,
        /// The sink's note of where the call was made.
        site: u64,
        /// The callee's sum.
        start: i64,
        /// The sum the callee saves first, if it starts in a region.
        push: Option<i64>,
        /// The path end (its first way in `ends`, and its ways) the caller's sum passes
        /// first, if any.
        end: Option<(u32, u8)>,
        /// The region the caller enters then, if any: the addition to the sum it saves,
        /// and the sum after.
        enter: Option<(i64, i64)>,
    },
    /// A return (on a return's indirect exit), if the top frame returns where the jump
    /// goes and the callee saved no sum (none above the floor, unchecked with
    /// `saves_none`): the path end of `end` and `ways`, after `first` if given, counts the
    /// sum as [`ProbeOp::End`] does, `counts[pairs]` counts the call and return taken,
    /// and the frame pops: `sum` and `key` become its resumed sum and `resume` (the
    /// probe's `next` is not used).
    Return {
        /// Index of the path end's first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
        /// The counter of calls whose return compiled code took.
        pairs: u32,
        /// A way tried before those in `ends`, given in the probe, as [`ProbeOp::End`]'s
        /// `first` is: a sink gives one that does not change while the probe's epoch lasts
        /// (a dense table's path end), so that compiled code need not read it from `ends`.
        first: Option<ProbeEnd>,
        /// The returning function saves no sum (no probe of it saves or restores one), so
        /// that none above the floor can be its own: the return need not check.
        saves_none: bool,
    },
    /// A tail call (on a jump's or branch's exit to another function), if a frame is open
    /// (so compiled code made the call it ends) and the activation that ends saved no sum
    /// since: the path end of `end` and `ways` counts the
    /// sum and sets the callee's as [`ProbeOp::End`] does, and `counts[pairs]` counts the
    /// activation that ends (started by a call probe, uncounted); the frame stays, for the
    /// callee's return. The callee saves `push`, if any (it starts in a region, see
    /// [`ProbeOp::Push`]; the stack must have room).
    Tail {
        /// Index of the path end's first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
        /// The counter of activations started and ended in compiled code.
        pairs: u32,
        /// The sum the callee saves first, if any.
        push: Option<i64>,
    },
    /// An activation that restarts (on an indirect jump's exit for one target, where the
    /// profile ends the activation's paths and starts anew at the target, as a path
    /// profile does after a `switch` it cannot follow), if the activation saved no sum:
    /// the path end of `end` and `ways` counts the sum and sets the one it restarts with
    /// as [`ProbeOp::End`] does, and `counts[pairs]` counts the activation that ends and
    /// the one that starts, which saves `push`, if any (it restarts in a region, see
    /// [`ProbeOp::Push`]; the stack must have room). Unlike [`ProbeOp::Tail`], it needs no
    /// frame: both are counted.
    Restart {
        /// Index of the path end's first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
        /// The counter of activations ended and started.
        pairs: u32,
        /// The sum the activation saves first when it restarts, if any.
        push: Option<i64>,
    },
    /// Entering a region (the hierarchical profiles' `push(sum + add); sum = set`), and
    /// with `inner` a region nested in it at once (`push(sum + add); sum = start;
    /// push(sum + add2); sum = set`, whose second saved sum `start + add2` is a constant,
    /// `inner`), if the state's stack of saved sums has room for them and `sum + add` fits
    /// 64 bits: saves `sum + add` on it, then `inner`, if any, then `sum = set`.
    Push {
        /// Added to the sum saved.
        add: i64,
        /// The sum an inner region entered at once saves, if any.
        inner: Option<i64>,
        /// The sum after.
        set: i64,
    },
    /// A region (and with `inner` a region nested in it) entered at a path's end:
    /// [`ProbeOp::Push`], then the path end of `end` and `ways` counts the sum `set` and
    /// sets the sum as [`ProbeOp::End`] does; applies only where both do.
    PushEnd {
        /// Added to the sum saved.
        add: i64,
        /// The sum an inner region entered at once saves, if any.
        inner: Option<i64>,
        /// The sum the path end counts.
        set: i64,
        /// Index of the path end's first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
        /// A way tried before those in `ends`, given in the probe, as
        /// [`ProbeOp::End`]'s `first` is: where it counts `set`, compiled code knows the
        /// counter and the sum after.
        first: Option<ProbeEnd>,
    },
    /// Leaving a region at a path's end (`count; sum = pop() + add`), if the current
    /// activation saved a sum ([`ProbeState::saved`] above [`ProbeState::floor`]), the
    /// saved sum plus `add` fits 64 bits and the path end of `end` and `ways` counts the
    /// sum as [`ProbeOp::End`] does: counts it, then `sum` becomes the saved sum plus
    /// `add`, and the saved sum pops.
    Pop {
        /// Index of the path end's first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
        /// Added to the saved sum (the edge's value in the outer region).
        add: i64,
        /// A way tried before those in `ends`, given in the probe, as
        /// [`ProbeOp::End`]'s `first` is (a dense table's path end, which never changes,
        /// or a sparse table's window pinned while the probe's epoch lasts).
        first: Option<ProbeEnd>,
    },
    /// Leaving a region at a path's end straight into a path end of the region around it
    /// (`count; sum = pop(); count; sum = set`: a loop's exit that is also the outer loop's
    /// back edge), or, with `pop`, out of two regions at once (`count; sum = pop(); count;
    /// sum = pop()`), if the current activation saved the sums it pops and both path ends
    /// count: the path end of `end` and `ways` counts the sum and the one of `outer` and
    /// `outer_ways` the top saved sum, as [`ProbeOp::End`] does, the saved sum pops, and
    /// the sum becomes the one `outer` sets, or with `pop` the next saved sum, which pops
    /// too.
    PopEnd {
        /// Index of the inner path end's first way in `ends`.
        end: u32,
        /// Its ways (at least 1).
        ways: u8,
        /// Index of the outer path end's first way in `ends`.
        outer: u32,
        /// Its ways (at least 1).
        outer_ways: u8,
        /// Whether the next saved sum pops too (the outer region is left as well).
        pop: bool,
    },
    /// A region entered and left by one edge (`push(sum + add); sum = set; count; sum =
    /// pop()`), if `sum + add` fits 64 bits and the path end of `end` and `ways` counts the
    /// sum `set` as [`ProbeOp::End`] does: counts it, then `sum += add`.
    Through {
        /// Added to the sum.
        add: i64,
        /// The sum the path end counts.
        set: i64,
        /// Index of the path end's first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
    },
    /// Leaving a region for the next one (`count; sum = pop(); push(sum + add); sum =
    /// set`), where [`ProbeOp::Pop`] applies and the saved sum plus `add` fits 64 bits:
    /// counts the sum, adds `add` to the saved sum, which stays, then `sum = set`.
    PopPush {
        /// Index of the path end's first way in `ends`.
        end: u32,
        /// Ways (at least 1).
        ways: u8,
        /// Added to the saved sum.
        add: i64,
        /// The sum after.
        set: i64,
    },
}

impl ProbeOp {
    /// What it is, in a few words (for diagnostics such as the names of compiled code in
    /// a perf map).
    pub fn name(&self) -> &'static str {
        match self {
            ProbeOp::Add(_) => "add",
            ProbeOp::End { .. } => "path end",
            ProbeOp::Count(_) => "count",
            ProbeOp::Call { .. } => "call",
            ProbeOp::Return { .. } => "return",
            ProbeOp::Tail { .. } => "tail call",
            ProbeOp::Restart { .. } => "restart",
            ProbeOp::Push { .. } => "push",
            ProbeOp::PushEnd { .. } => "push end",
            ProbeOp::Pop { .. } => "pop",
            ProbeOp::PopEnd { .. } => "pop end",
            ProbeOp::Through { .. } => "through",
            ProbeOp::PopPush { .. } => "pop push",
        }
    }
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

/// Frames the probe state holds (calls made by probes whose returns are open): enough
/// for the call chains of a program's inner work (with 4, sort's comparisons through
/// `qsort` and recursion's calls overflowed the stack and left their returns to the sink).
pub const FRAMES: usize = 16;

/// Sums the probe state's stack holds ([`ProbeOp::Push`]).
pub const SAVES: usize = 8;

/// A call made by a probe ([`ProbeOp::Call`]). The layout is fixed: compiled code reads
/// and writes it (64 bytes, so that an index shifts into an offset).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The return address.
    pub ret: u64,
    /// The key the caller resumes with.
    pub resume: u64,
    /// The caller's sum when it resumes.
    pub resumed: i64,
    /// The call's [`site`](ProbeOp::Call::site).
    pub site: u64,
    /// The caller's [`floor`](ProbeState::floor), which the return restores.
    pub floor: u64,
}

impl Frame {
    /// Byte offsets of the fields compiled code uses.
    pub const RET: usize = std::mem::offset_of!(Frame, ret);
    /// See [`RET`](Self::RET).
    pub const RESUME: usize = std::mem::offset_of!(Frame, resume);
    /// See [`RET`](Self::RET).
    pub const RESUMED: usize = std::mem::offset_of!(Frame, resumed);
    /// See [`RET`](Self::RET).
    pub const SITE: usize = std::mem::offset_of!(Frame, site);
    /// See [`RET`](Self::RET).
    pub const FLOOR: usize = std::mem::offset_of!(Frame, floor);
    /// `log2` of the frame's size.
    pub const SHIFT: u32 = size_of::<Frame>().trailing_zeros();
}

const _: () = assert!(size_of::<Frame>() == 1 << Frame::SHIFT);

/// The state probes run on, owned by the sink: the running sum, where the sink stands,
/// the frames of the calls made by probes and the sums saved by region entries. The
/// layout is fixed: compiled code reads and writes it.
#[repr(C)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeState {
    /// The running sum.
    pub sum: u128,
    /// Where the sink stands (probes apply under their own key only).
    pub key: u64,
    /// Changed by the sink when probes it gave may no longer apply.
    pub epoch: u64,
    /// Frames open, at most [`FRAMES`] (the innermost call's last).
    pub depth: u64,
    /// Sums saved, at most [`SAVES`] (the innermost region's last).
    pub saved: u64,
    /// The first of `saves` that the current activation saved (the ones below are its
    /// callers'): the `saved` of its call's probe, or 0.
    pub floor: u64,
    /// The sums saved by [`ProbeOp::Push`], `saves[..saved]`.
    pub saves: [i64; SAVES],
    /// The frames, `frames[..depth]` open.
    pub frames: [Frame; FRAMES],
}

impl ProbeState {
    /// Byte offsets of the fields compiled code uses.
    pub const SUM: usize = std::mem::offset_of!(ProbeState, sum);
    /// See [`SUM`](Self::SUM).
    pub const KEY: usize = std::mem::offset_of!(ProbeState, key);
    /// See [`SUM`](Self::SUM).
    pub const EPOCH: usize = std::mem::offset_of!(ProbeState, epoch);
    /// See [`SUM`](Self::SUM).
    pub const DEPTH: usize = std::mem::offset_of!(ProbeState, depth);
    /// See [`SUM`](Self::SUM).
    pub const SAVED: usize = std::mem::offset_of!(ProbeState, saved);
    /// See [`SUM`](Self::SUM).
    pub const FLOOR: usize = std::mem::offset_of!(ProbeState, floor);
    /// See [`SUM`](Self::SUM).
    pub const SAVES: usize = std::mem::offset_of!(ProbeState, saves);
    /// See [`SUM`](Self::SUM).
    pub const FRAMES: usize = std::mem::offset_of!(ProbeState, frames);

    /// The open frames, outermost first.
    pub fn open(&self) -> &[Frame] {
        &self.frames[..(self.depth as usize).min(FRAMES)]
    }

    /// The sums saved, outermost first.
    pub fn saved_sums(&self) -> &[i64] {
        &self.saves[..(self.saved as usize).min(SAVES)]
    }

    /// The index of the last sum saved, if the current activation saved it (it is above the
    /// floor).
    fn own_top(&self) -> Option<usize> {
        let saved = self.saved as usize;
        (self.floor < self.saved && saved <= SAVES).then(|| saved - 1)
    }

    /// Whether the stack of saved sums has room for `n` more: always for none, and for
    /// more never where a sink lent a count of saved sums past the stack.
    pub fn room_for(&self, n: usize) -> bool {
        n == 0
            || SAVES
                .checked_sub(n)
                .is_some_and(|most| self.saved <= most as u64)
    }

    /// Saves `sum`, then `inner`, if any, if the stack has room for both (else changes
    /// nothing).
    fn save_all(&mut self, sum: i64, inner: Option<i64>) -> bool {
        self.room_for(1 + usize::from(inner.is_some()))
            && self.save(sum)
            && inner.is_none_or(|i| self.save(i))
    }

    /// The innermost open frame, if a return to `to` closes it: the frame returns there
    /// and the activation in it saved no sum (none of its own to give back first; known
    /// if its function `saves_none`, see [`ProbeOp::Return`]).
    pub fn closing(&self, to: u64, saves_none: bool) -> Option<Frame> {
        let &frame = self.frames.get((self.depth as usize).checked_sub(1)?)?;
        (frame.ret == to && (saves_none || self.saved == self.floor)).then_some(frame)
    }

    /// Closes the innermost open frame, `frame` (a return to its `ret`): the caller goes
    /// on at its key and sum, its floor back. (The state must have `frame` open on top.)
    pub fn close_frame(&mut self, frame: Frame) {
        self.sum = frame.resumed as i128 as u128;
        self.key = frame.resume;
        self.depth -= 1;
        self.floor = frame.floor;
    }

    /// Pushes `sum` on the stack of saved sums, if it has room.
    pub fn save(&mut self, sum: i64) -> bool {
        let Some(slot) = self.saves.get_mut(self.saved as usize) else {
            return false;
        };
        *slot = sum;
        self.saved += 1;
        true
    }
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
/// for drivers and for tests), for an exit to `to`: `true` if it applied.
pub fn apply(
    probe: &Probe,
    to: u64,
    state: &mut ProbeState,
    counts: &mut [u64],
    ends: &[ProbeEnd],
) -> bool {
    if state.key != probe.key || state.epoch != probe.epoch {
        return false;
    }
    match probe.op {
        ProbeOp::Add(v) => state.sum = state.sum.wrapping_add(v as i128 as u128),
        ProbeOp::End {
            end,
            ways,
            set,
            first,
        } => {
            let Some((c, _)) = first_counter(state.sum, first, end, ways, counts.len(), ends)
            else {
                return false;
            };
            counts[c] += 1;
            state.sum = set as i128 as u128;
        }
        ProbeOp::Count(end) => {
            let Some(c) = way(state.sum, &end, counts.len()) else {
                return false;
            };
            counts[c.0] += 1;
            state.sum = c.1 as i128 as u128;
        }
        ProbeOp::Call {
            add,
            ret,
            resume,
            resume_add,
            site,
            start,
            push,
            end,
            enter,
        } => {
            let (sum, count) = match end {
                Some((end, ways)) => match counter(state.sum, end, ways, counts.len(), ends) {
                    Some((c, set)) => (set, Some(c)),
                    None => return false,
                },
                None => (state.sum as i64, None),
            };
            // The sum the caller saves entering a region, and its sum after.
            let (saves, sum) = match enter {
                Some((add, set)) => match sum.checked_add(add) {
                    Some(saved) => (Some(saved), set),
                    None => return false,
                },
                None => (None, sum),
            };
            let resumed =
                i64::try_from(i128::from(sum) + i128::from(add) + i128::from(resume_add)).ok();
            let depth = state.depth as usize;
            let room = state.room_for(usize::from(saves.is_some()) + usize::from(push.is_some()));
            let (true, Some(resumed), true) = (depth < FRAMES, resumed, room) else {
                return false;
            };
            if let Some(c) = count {
                counts[c] += 1;
            }
            if let Some(saved) = saves {
                state.save(saved);
            }
            // (In range: checked above.)
            state.frames[depth] = Frame {
                ret,
                resume,
                resumed,
                site,
                floor: state.floor,
            };
            state.depth += 1;
            state.floor = state.saved;
            state.sum = start as i128 as u128;
            if let Some(push) = push {
                state.save(push);
            }
        }
        ProbeOp::Return {
            end,
            ways,
            pairs,
            first,
            saves_none,
        } => {
            let Some(frame) = state.closing(to, saves_none) else {
                return false;
            };
            let pairs = pairs as usize;
            if pairs >= counts.len() {
                return false;
            }
            let Some((c, _)) = first_counter(state.sum, first, end, ways, counts.len(), ends)
            else {
                return false;
            };
            counts[c] += 1;
            counts[pairs] += 1;
            state.close_frame(frame);
            return true;
        }
        ProbeOp::Tail {
            end,
            ways,
            pairs,
            push,
        }
        | ProbeOp::Restart {
            end,
            ways,
            pairs,
            push,
        } => {
            let pairs = pairs as usize;
            let tail = matches!(probe.op, ProbeOp::Tail { .. });
            let room = state.room_for(usize::from(push.is_some()));
            if (tail && state.depth == 0)
                || pairs >= counts.len()
                || state.saved != state.floor
                || !room
            {
                return false;
            }
            let Some(c) = counter(state.sum, end, ways, counts.len(), ends) else {
                return false;
            };
            counts[c.0] += 1;
            counts[pairs] += 1;
            state.sum = c.1 as i128 as u128;
            if let Some(push) = push {
                state.save(push);
            }
        }
        ProbeOp::Push { add, inner, set } => {
            let Some(saved) = (state.sum as i64).checked_add(add) else {
                return false;
            };
            if !state.save_all(saved, inner) {
                return false;
            }
            state.sum = set as i128 as u128;
        }
        ProbeOp::PushEnd {
            add,
            inner,
            set,
            end,
            ways,
            first,
        } => {
            let saved = (state.sum as i64).checked_add(add);
            let set = set as i128 as u128;
            let c = first_counter(set, first, end, ways, counts.len(), ends);
            let (Some(saved), Some(c)) = (saved, c) else {
                return false;
            };
            if !state.save_all(saved, inner) {
                return false;
            }
            counts[c.0] += 1;
            state.sum = c.1 as i128 as u128;
        }
        ProbeOp::Pop {
            end,
            ways,
            add,
            first,
        } => {
            let top = state.own_top();
            let sum = top.and_then(|t| state.saves[t].checked_add(add));
            let c = first_counter(state.sum, first, end, ways, counts.len(), ends);
            let (Some(top), Some(sum), Some((c, _))) = (top, sum, c) else {
                return false;
            };
            counts[c] += 1;
            state.saved = top as u64;
            state.sum = sum as i128 as u128;
        }
        ProbeOp::PopEnd {
            end,
            ways,
            outer,
            outer_ways,
            pop,
        } => {
            let Some(top) = state.own_top() else {
                return false;
            };
            // With `pop`, the saved sum below the top must be the activation's too.
            let next = top.checked_sub(1).filter(|&n| n as u64 >= state.floor);
            if pop && next.is_none() {
                return false;
            }
            let saved = state.saves[top] as i128 as u128;
            let c = counter(state.sum, end, ways, counts.len(), ends);
            let o = counter(saved, outer, outer_ways, counts.len(), ends);
            let (Some((c, _)), Some((o, set))) = (c, o) else {
                return false;
            };
            counts[c] += 1;
            counts[o] += 1;
            let (saved, sum) = match next.filter(|_| pop) {
                Some(n) => (n, state.saves[n]),
                None => (top, set),
            };
            state.saved = saved as u64;
            state.sum = sum as i128 as u128;
        }
        ProbeOp::Through {
            add,
            set,
            end,
            ways,
        } => {
            let through = (state.sum as i64).checked_add(add);
            let c = counter(set as i128 as u128, end, ways, counts.len(), ends);
            let (Some(through), Some((c, _))) = (through, c) else {
                return false;
            };
            counts[c] += 1;
            state.sum = through as i128 as u128;
        }
        ProbeOp::PopPush {
            end,
            ways,
            add,
            set,
        } => {
            let Some(top) = state.own_top() else {
                return false;
            };
            let next = state.saves[top].checked_add(add);
            let c = counter(state.sum, end, ways, counts.len(), ends);
            let (Some(next), Some((c, _))) = (next, c) else {
                return false;
            };
            counts[c] += 1;
            state.saves[top] = next;
            state.sum = set as i128 as u128;
        }
    }
    state.key = probe.next;
    true
}

/// The counter that the path end at `end` with `ways` ways counts `sum` in, if one of its
/// ways holds it in range and among `counts` counters, and the sum it sets.
fn counter(
    sum: u128,
    end: u32,
    ways: u8,
    counts: usize,
    ends: &[ProbeEnd],
) -> Option<(usize, i64)> {
    let mut ways = ends.iter().skip(end as usize).take(usize::from(ways));
    ways.find_map(|end| way(sum, end, counts))
}

/// [`counter`] after the way `first`, if given.
fn first_counter(
    sum: u128,
    first: Option<ProbeEnd>,
    end: u32,
    ways: u8,
    counts: usize,
    ends: &[ProbeEnd],
) -> Option<(usize, i64)> {
    let first = first.and_then(|f| way(sum, &f, counts));
    first.or_else(|| counter(sum, end, ways, counts, ends))
}

/// The counter (below `counts`) that path end `end` counts `sum` in, and the sum it
/// sets, if the sum is in its range.
fn way(sum: u128, end: &ProbeEnd, counts: usize) -> Option<(usize, i64)> {
    let i = sum.wrapping_add(end.add as i128 as u128);
    (i < u128::from(end.size))
        .then(|| end.base.checked_add(i as u64))
        .flatten()
        .and_then(|c| usize::try_from(c).ok())
        .filter(|&c| c < counts)
        .map(|c| (c, end.set))
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
        assert!(apply(&add, 0, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key), (3, 11));
        // Wrong key, then wrong epoch: nothing changes.
        assert!(!apply(&add, 0, &mut s, &mut counts, &ends));
        let end = Probe {
            key: 11,
            epoch: 1,
            next: 12,
            op: ProbeOp::End {
                end: 0,
                ways: 1,
                set: 7,
                first: None,
            },
        };
        assert!(!apply(&end, 0, &mut s, &mut counts, &ends));
        s.epoch = 1;
        // sum 3 - 1 = 2 < 3: counter 2 + 2.
        assert!(apply(&end, 0, &mut s, &mut counts, &ends));
        assert_eq!(counts, [0, 0, 0, 0, 1]);
        assert_eq!((s.sum, s.key), (7, 12));
        // Out of range (7 - 1 = 6 >= 3), and a missing end: no change.
        let again = Probe { key: 12, ..end };
        assert!(!apply(&again, 0, &mut s, &mut counts, &ends));
        let missing = Probe {
            op: ProbeOp::End {
                end: 1,
                ways: 1,
                set: 7,
                first: None,
            },
            ..again
        };
        assert!(!apply(&missing, 0, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key), (7, 12));
    }

    #[test]
    fn a_path_end_given_in_the_probe_counts_as_one_in_ends_does() {
        let end = ProbeEnd {
            base: 2,
            size: 3,
            add: -1,
            set: 7,
        };
        let probe = |key, op| Probe {
            key,
            epoch: 0,
            next: key + 1,
            op,
        };
        for sum in 0..6u128 {
            let (mut given, mut counts_given) = (ProbeState::default(), [0u64; 4]);
            let (mut listed, mut counts_listed) = (ProbeState::default(), [0u64; 4]);
            given.sum = sum;
            listed.sum = sum;
            let count = probe(0, ProbeOp::Count(end));
            let end_op = probe(
                0,
                ProbeOp::End {
                    end: 0,
                    ways: 1,
                    set: end.set,
                    first: None,
                },
            );
            // Counter 2 + sum - 1 exists for sums 1 and 2 only (4 counters).
            let applied = apply(&count, 0, &mut given, &mut counts_given, &[]);
            assert_eq!(applied, (1..=2).contains(&sum), "{sum}");
            assert_eq!(
                applied,
                apply(&end_op, 0, &mut listed, &mut counts_listed, &[end])
            );
            assert_eq!((given, counts_given), (listed, counts_listed), "{sum}");
        }
    }

    #[test]
    fn a_path_end_tries_the_way_given_in_the_probe_before_those_in_ends() {
        // In ends: sum 5 at counter 0, sum 9 at counter 1. Given: sums 5 and 6 at
        // counters 2 and 3, then sums 5 and 6 at counters 3 and 4 (past the counters:
        // sum 6 falls back to the ways in ends, which do not hold it).
        let window = |base, sum: i64| ProbeEnd {
            base,
            size: 1,
            add: -sum,
            set: 0,
        };
        let ends = [window(0, 5), window(1, 9)];
        let given = |base| ProbeEnd {
            base,
            size: 2,
            add: -5,
            set: 0,
        };
        let end = |first| Probe {
            key: 0,
            epoch: 0,
            next: 0,
            op: ProbeOp::End {
                end: 0,
                ways: 2,
                set: 1,
                first: Some(first),
            },
        };
        for (first, sum, counter) in [
            (given(2), 5, Some(2)),
            (given(2), 6, Some(3)),
            (given(2), 9, Some(1)),
            (given(2), 7, None),
            (given(3), 5, Some(3)),
            (given(3), 6, None),
        ] {
            let mut counts = [0u64; 4];
            let mut s = ProbeState {
                sum,
                ..ProbeState::default()
            };
            let applied = apply(&end(first), 0, &mut s, &mut counts, &ends);
            assert_eq!(applied, counter.is_some(), "{sum}");
            let mut want = [0u64; 4];
            if let Some(c) = counter {
                want[c] = 1;
            }
            assert_eq!(counts, want, "{sum}");
            assert_eq!(s.sum, if applied { 1 } else { sum }, "{sum}");
        }
    }

    #[test]
    fn a_path_end_counts_in_the_first_way_that_holds_the_sum_and_sets_its_own() {
        // Two windows: sum 5 (at counter 0) and sum 9 (at counter 1), whose sets the
        // probe's set overrides.
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
            op: ProbeOp::End {
                end: 0,
                ways,
                set: 3,
                first: None,
            },
        };
        for (sum, ways, applies) in [(9, 2, true), (5, 2, true), (9, 1, false), (7, 2, false)] {
            let mut s = ProbeState {
                sum,
                ..ProbeState::default()
            };
            assert_eq!(
                apply(&end(ways), 0, &mut s, &mut counts, &ends),
                applies,
                "{sum}"
            );
            assert_eq!(s.sum, if applies { 3 } else { sum }, "{sum}");
        }
        assert_eq!(counts, [1, 1]);
    }

    #[test]
    fn the_layout_is_what_compiled_code_reads() {
        assert_eq!(size_of::<ProbeEnd>(), 32);
        assert_eq!(ProbeState::SUM, 0);
        assert_eq!(ProbeState::KEY, 16);
        assert_eq!(ProbeState::EPOCH, 24);
        assert_eq!(ProbeState::DEPTH, 32);
        assert_eq!(ProbeState::SAVED, 40);
        assert_eq!(ProbeState::FLOOR, 48);
        assert_eq!(ProbeState::SAVES, 56);
        assert_eq!(ProbeState::FRAMES, 128);
        assert_eq!((size_of::<Frame>(), Frame::SHIFT), (64, 6));
        assert_eq!(
            (
                Frame::RET,
                Frame::RESUME,
                Frame::RESUMED,
                Frame::SITE,
                Frame::FLOOR
            ),
            (0, 8, 16, 24, 32)
        );
    }

    #[test]
    fn a_return_counts_in_the_way_given_first_then_in_its_ways() {
        // The ways in `ends`: sum 9 at counter 0. The way given: sums 4 and 5 at 2 and 3.
        let ends = [ProbeEnd {
            base: 0,
            size: 1,
            add: -9,
            set: 0,
        }];
        let given = ProbeEnd {
            base: 2,
            size: 2,
            add: -4,
            set: 0,
        };
        let ret = Probe {
            key: 0,
            epoch: 0,
            next: 0,
            op: ProbeOp::Return {
                end: 0,
                ways: 1,
                pairs: 1,
                first: Some(given),
                saves_none: false,
            },
        };
        for (sum, counter) in [(4, Some(2)), (5, Some(3)), (9, Some(0)), (6, None)] {
            let mut counts = [0u64; 4];
            let mut s = ProbeState {
                sum,
                depth: 1,
                ..ProbeState::default()
            };
            s.frames[0] = Frame {
                ret: 0x100,
                resume: 7,
                resumed: 3,
                ..Frame::default()
            };
            let applied = apply(&ret, 0x100, &mut s, &mut counts, &ends);
            assert_eq!(applied, counter.is_some(), "{sum}");
            let mut want = [0u64; 4];
            if let Some(c) = counter {
                want[c] = 1;
                want[1] = 1;
            }
            assert_eq!(counts, want, "{sum}");
            let after = if applied { (3, 7, 0) } else { (sum, 0, 1) };
            assert_eq!((s.sum, s.key, s.depth), after, "{sum}");
        }
    }

    #[test]
    fn calls_push_frames_that_their_returns_pop() {
        // The callees' one path end: sum 4 - 4 = 0 at counter 0; pairs at counter 1.
        let ends = [ProbeEnd {
            base: 0,
            size: 1,
            add: -4,
            set: 0,
        }];
        let mut counts = [0u64; 2];
        let mut s = ProbeState {
            sum: 10,
            key: 1,
            ..ProbeState::default()
        };
        let call = |key, ret| Probe {
            key,
            epoch: 0,
            next: 2,
            op: ProbeOp::Call {
                add: 5,
                ret,
                resume: key + 100,
                resume_add: -1,
                site: 9,
                start: 4,
                push: None,
                end: None,
                enter: None,
            },
        };
        assert!(apply(&call(1, 0x100), 0, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, s.depth), (4, 2, 1));
        assert_eq!(
            s.open()[0],
            Frame {
                ret: 0x100,
                resume: 101,
                resumed: 14,
                site: 9,
                floor: 0,
            }
        );
        // Calls nest up to FRAMES deep.
        for depth in 2..=FRAMES as u64 {
            assert!(apply(&call(2, 0x200), 0, &mut s, &mut counts, &ends));
            assert_eq!(s.depth, depth);
        }
        assert!(!apply(&call(2, 0x200), 0, &mut s, &mut counts, &ends));
        let ret = Probe {
            key: 2,
            epoch: 0,
            next: 77,
            op: ProbeOp::Return {
                end: 0,
                ways: 1,
                pairs: 1,
                first: None,
                saves_none: false,
            },
        };
        // Not to the top frame's return address: no change.
        assert!(!apply(&ret, 0x100, &mut s, &mut counts, &ends));
        assert_eq!(
            (s.sum, s.key, counts, s.depth),
            (4, 2, [0, 0], FRAMES as u64)
        );
        // The inner returns (the callees' sums are 4 each time, counted at counter 0).
        for depth in (1..FRAMES as u64).rev() {
            s.key = 2;
            assert!(apply(&ret, 0x200, &mut s, &mut counts, &ends));
            assert_eq!((s.key, s.depth), (102, depth));
            s.sum = 4;
        }
        s.key = 2;
        assert!(apply(&ret, 0x100, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, s.depth), (14, 101, 0));
        assert_eq!(counts, [FRAMES as u64, FRAMES as u64]);
        // No frame open: a return does not apply.
        s.key = 2;
        assert!(!apply(&ret, 0x100, &mut s, &mut counts, &ends));
    }

    #[test]
    fn tail_calls_end_the_activation_of_an_open_frame_and_keep_it() {
        let (ends, mut counts, mut s) = activation_end_setup();
        let frame = Frame {
            ret: 0x100,
            resume: 50,
            resumed: 20,
            site: 3,
            floor: 0,
        };
        let tail = probe(ProbeOp::Tail {
            end: 0,
            ways: 1,
            pairs: 5,
            push: None,
        });
        // No frame open: the activation's start was counted elsewhere.
        assert!(!apply(&tail, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, counts), (3, 1, [0; 6]));
        s.frames[0] = frame;
        s.depth = 1;
        assert!(apply(&tail, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, s.depth), (7, 2, 1));
        assert_eq!(s.open(), [frame]);
        assert_eq!(counts, [0, 0, 0, 0, 1, 1]);
        // Out of the table's range: no change.
        s.key = 1;
        s.sum = 4;
        assert!(!apply(&tail, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, counts), (4, 1, [0, 0, 0, 0, 1, 1]));
    }

    /// The path end of an activation that ends (sum 3 + 1 = 4 at counter 4; the next
    /// activation starts at 7; pairs at counter 5), its counters and a state at sum 3
    /// under key 1.
    fn activation_end_setup() -> ([ProbeEnd; 1], [u64; 6], ProbeState) {
        let ends = [ProbeEnd {
            base: 0,
            size: 5,
            add: 1,
            set: 7,
        }];
        let state = ProbeState {
            sum: 3,
            key: 1,
            ..ProbeState::default()
        };
        (ends, [0; 6], state)
    }

    #[test]
    fn restarts_end_and_start_the_activation_where_it_saved_no_sum() {
        let (ends, mut counts, mut s) = activation_end_setup();
        s.saved = 1;
        let restart = probe(ProbeOp::Restart {
            end: 0,
            ways: 1,
            pairs: 5,
            push: None,
        });
        // A sum saved by the activation: its region is open.
        assert!(!apply(&restart, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, counts), (3, 1, [0; 6]));
        // Saved by its caller: no frame is needed, and none changes.
        s.floor = 1;
        assert!(apply(&restart, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, s.depth, s.saved), (7, 2, 0, 1));
        assert_eq!(counts, [0, 0, 0, 0, 1, 1]);
        // Out of the table's range, or a pair counter out of the counters: no change.
        for (sum, pairs) in [(4, 5), (3, 6)] {
            s.key = 1;
            s.sum = sum;
            let restart = probe(ProbeOp::Restart {
                end: 0,
                ways: 1,
                pairs,
                push: None,
            });
            assert!(!apply(&restart, 0x300, &mut s, &mut counts, &ends));
            assert_eq!((s.sum, s.key, counts), (sum, 1, [0, 0, 0, 0, 1, 1]));
        }
        // Restarting in a region saves a sum, where the stack has room.
        let restart = probe(ProbeOp::Restart {
            end: 0,
            ways: 1,
            pairs: 5,
            push: Some(-2),
        });
        s.key = 1;
        s.sum = 3;
        s.saved = SAVES as u64;
        s.floor = SAVES as u64;
        assert!(!apply(&restart, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, counts), (3, 1, [0, 0, 0, 0, 1, 1]));
        s.saved = 1;
        s.floor = 1;
        assert!(apply(&restart, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, s.floor), (7, 2, 1));
        assert_eq!(s.saved_sums()[1..], [-2]);
        assert_eq!(counts, [0, 0, 0, 0, 2, 2]);
    }

    #[test]
    fn calls_may_end_a_path_first() {
        // The caller's path: sum 3 + 1 = 4 at counter 4; the caller's sum is 7 after it,
        // and resumes at 7 + 2 - 1.
        let ends = [ProbeEnd {
            base: 0,
            size: 5,
            add: 1,
            set: 7,
        }];
        let mut counts = [0u64; 5];
        let call = probe(ProbeOp::Call {
            add: 2,
            ret: 0x100,
            resume: 50,
            resume_add: -1,
            site: 3,
            start: 9,
            push: None,
            end: Some((0, 1)),
            enter: None,
        });
        let mut s = ProbeState {
            sum: 3,
            key: 1,
            ..ProbeState::default()
        };
        assert!(apply(&call, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, s.depth, s.open()[0].resumed), (9, 2, 1, 8));
        assert_eq!(counts, [0, 0, 0, 0, 1]);
        // Out of the path end's range: nothing counts and no frame opens.
        s = ProbeState {
            sum: 4,
            key: 1,
            ..ProbeState::default()
        };
        assert!(!apply(&call, 0x300, &mut s, &mut counts, &ends));
        assert_eq!((s.sum, s.key, s.depth, counts), (4, 1, 0, [0, 0, 0, 0, 1]));
        // A full stack: the path end does not count either.
        s = ProbeState {
            sum: 3,
            key: 1,
            depth: FRAMES as u64,
            ..ProbeState::default()
        };
        assert!(!apply(&call, 0x300, &mut s, &mut counts, &ends));
        assert_eq!(counts, [0, 0, 0, 0, 1]);
    }

    #[test]
    fn a_state_lent_with_more_saved_sums_than_its_stack_saves_none() {
        let (ends, _) = region_setup(0, 4, 0);
        let mut counts = [0u64; 4];
        let call = |push| ProbeOp::Call {
            add: 0,
            ret: 0x300,
            resume: 5,
            resume_add: 0,
            site: 0,
            start: 1,
            push,
            end: None,
            enter: None,
        };
        for saved in [SAVES as u64 + 1, u64::MAX] {
            let mut s = ProbeState {
                saved,
                ..ProbeState::default()
            };
            // No room for a sum, and none needed by a call that saves none.
            let push = ProbeOp::Push {
                add: 0,
                inner: None,
                set: 0,
            };
            assert!(!run(&mut s, &mut counts, &ends, push, 0));
            assert!(!run(&mut s, &mut counts, &ends, call(Some(3)), 0));
            assert_eq!((s.saved, s.depth), (saved, 0));
            assert!(run(&mut s, &mut counts, &ends, call(None), 0));
            assert_eq!((s.depth, s.floor, s.saved), (1, saved, saved));
        }
    }

    /// A probe of `op` under key 1, to key 2.
    fn probe(op: ProbeOp) -> Probe {
        Probe {
            key: 1,
            epoch: 0,
            next: 2,
            op,
        }
    }

    /// Applies [`probe`]`(op)` for an exit to `to`, the state's key set to the probe's.
    fn run(
        s: &mut ProbeState,
        counts: &mut [u64],
        ends: &[ProbeEnd],
        op: ProbeOp,
        to: u64,
    ) -> bool {
        s.key = 1;
        apply(&probe(op), to, s, counts, ends)
    }

    /// One path end of `size` sums from counter `base` on, setting the sum to 9; and a
    /// state at sum `sum`.
    fn region_setup(base: u64, size: u64, sum: u128) -> ([ProbeEnd; 1], ProbeState) {
        let end = ProbeEnd {
            base,
            size,
            add: 0,
            set: 9,
        };
        (
            [end],
            ProbeState {
                sum,
                key: 1,
                ..ProbeState::default()
            },
        )
    }

    #[test]
    fn region_entries_save_sums_that_their_exits_restore() {
        // One path end: sums 0..4 at counters 0..4.
        let (ends, mut s) = region_setup(0, 4, 10);
        let mut counts = [0u64; 4];
        let run = |s: &mut ProbeState, counts: &mut [u64], op| run(s, counts, &ends, op, 0);
        let push = ProbeOp::Push {
            add: 5,
            inner: None,
            set: 1,
        };
        let pop = ProbeOp::Pop {
            end: 0,
            ways: 1,
            add: 0,
            first: None,
        };
        assert!(run(&mut s, &mut counts, push));
        assert_eq!((s.sum, s.key, s.saved_sums()), (1, 2, &[15][..]));
        // Counts sum 1 and restores 15.
        assert!(run(&mut s, &mut counts, pop));
        assert_eq!((s.sum, s.saved, counts), (15, 0, [0, 1, 0, 0]));
        // Nothing saved: no pop.
        s.sum = 2;
        assert!(!run(&mut s, &mut counts, pop));
        assert_eq!((s.sum, s.key, counts), (2, 1, [0, 1, 0, 0]));
        // A way given first counts where it can (sum 2 at counter 1 + 2 - 2), else the
        // ways in `ends` do (sum 3 at counter 3).
        let first = ProbeEnd {
            base: 1,
            size: 1,
            add: -2,
            set: 0,
        };
        let pop_first = ProbeOp::Pop {
            end: 0,
            ways: 1,
            add: 0,
            first: Some(first),
        };
        let mut firsts = [0u64; 4];
        for (sum, after) in [(2, [0, 1, 0, 0]), (3, [0, 1, 0, 1])] {
            // Saves 2 + 5.
            s.sum = 2;
            assert!(run(&mut s, &mut firsts, push));
            s.sum = sum;
            assert!(run(&mut s, &mut firsts, pop_first));
            assert_eq!((s.sum, s.saved, firsts), (7, 0, after));
        }
        s.sum = 2;
        // A region entered at a path end counts `set` (3) and sets the end's sum.
        let push_end = ProbeOp::PushEnd {
            add: -2,
            inner: None,
            set: 3,
            end: 0,
            ways: 1,
            first: None,
        };
        assert!(run(&mut s, &mut counts, push_end));
        assert_eq!((s.sum, s.saved_sums(), counts), (9, &[0][..], [0, 1, 0, 1]));
        // Out of the end's range: neither the save nor the count.
        let outside = ProbeOp::PushEnd {
            add: -2,
            inner: None,
            set: 4,
            end: 0,
            ways: 1,
            first: None,
        };
        assert!(!run(&mut s, &mut counts, outside));
        assert_eq!((s.sum, s.saved, counts), (9, 1, [0, 1, 0, 1]));
        // A way given first counts `set` where it can (4 at counter 2 + 4 - 4), and the
        // sum after is that way's.
        let way = ProbeEnd {
            base: 2,
            size: 1,
            add: -4,
            set: 5,
        };
        let mut first_end = outside;
        if let ProbeOp::PushEnd { first, .. } = &mut first_end {
            *first = Some(way);
        }
        let (mut t, mut c) = (s.clone(), counts);
        assert!(run(&mut t, &mut c, first_end));
        assert_eq!((t.sum, t.saved_sums(), c), (5, &[0, 7][..], [0, 1, 1, 1]));
        // A sum past 64 bits is not saved; the stack holds SAVES sums.
        let far = ProbeOp::Push {
            add: i64::MAX,
            inner: None,
            set: 0,
        };
        assert!(!run(&mut s, &mut counts, far));
        for saved in 2..=SAVES as u64 {
            assert!(run(&mut s, &mut counts, push));
            assert_eq!(s.saved, saved);
        }
        assert!(!run(&mut s, &mut counts, push));
        // A pop whose end does not count the sum changes nothing.
        s.sum = 7;
        assert!(!run(&mut s, &mut counts, pop));
        assert_eq!((s.sum, s.saved), (7, SAVES as u64));
    }

    #[test]
    fn a_region_left_at_an_outer_path_end_counts_both_sums_and_pops_one_or_two() {
        // Inner path end: sums 0..4 at counters 0..4; outer: sums 10..14 at counters 4..8,
        // setting the sum to 9.
        let ([inner], mut s) = region_setup(0, 4, 1);
        let outer = ProbeEnd {
            base: 4,
            size: 4,
            add: -10,
            set: 9,
        };
        let ends = [inner, outer];
        let mut counts = [0u64; 8];
        let run = |s: &mut ProbeState, counts: &mut [u64], op| run(s, counts, &ends, op, 0);
        let pop_end = |pop| ProbeOp::PopEnd {
            end: 0,
            ways: 1,
            outer: 1,
            outer_ways: 1,
            pop,
        };
        s.saves[..2].copy_from_slice(&[12, 11]);
        s.saved = 2;
        // Counts 1 (inner) and 11 (outer), pops 11, sets 9.
        assert!(run(&mut s, &mut counts, pop_end(false)));
        assert_eq!(
            (s.sum, s.saved_sums(), counts),
            (9, &[12][..], [0, 1, 0, 0, 0, 1, 0, 0])
        );
        // The inner end does not count 9: nothing changes.
        assert!(!run(&mut s, &mut counts, pop_end(false)));
        assert_eq!((s.sum, s.saved), (9, 1));
        // The outer end does not count the saved sum 12 + 3: nothing changes.
        s.sum = 3;
        s.saves[0] = 15;
        assert!(!run(&mut s, &mut counts, pop_end(false)));
        assert_eq!((s.sum, s.saved, counts[3]), (3, 1, 0));
        // Two levels at once: one saved sum is not enough.
        s.saves[0] = 12;
        assert!(!run(&mut s, &mut counts, pop_end(true)));
        // Nor are two where the lower one is a caller's (below the floor).
        s.saves[..2].copy_from_slice(&[5, 13]);
        (s.saved, s.floor) = (2, 1);
        assert!(!run(&mut s, &mut counts, pop_end(true)));
        // Both the activation's own: counts 3 and 13, then the sum is 5, nothing saved.
        s.floor = 0;
        assert!(run(&mut s, &mut counts, pop_end(true)));
        assert_eq!((s.sum, s.saved, counts), (5, 0, [0, 1, 0, 1, 0, 1, 0, 1]));
    }

    #[test]
    fn nested_regions_entered_at_once_save_both_sums_and_an_exit_adds_after_its_pop() {
        // One path end: sums 0..4 at counters 0..4.
        let (ends, mut s) = region_setup(0, 4, 10);
        let mut counts = [0u64; 4];
        let run = |s: &mut ProbeState, counts: &mut [u64], op| run(s, counts, &ends, op, 0);
        // push(10 + 5); sum = 7; push(7 - 3); sum = 1, as one probe.
        let both = ProbeOp::Push {
            add: 5,
            inner: Some(4),
            set: 1,
        };
        assert!(run(&mut s, &mut counts, both));
        assert_eq!((s.sum, s.saved_sums()), (1, &[15, 4][..]));
        // Leaving the inner region counts 1, then the sum is 4 + 2.
        let out = |add| ProbeOp::Pop {
            end: 0,
            ways: 1,
            add,
            first: None,
        };
        assert!(run(&mut s, &mut counts, out(2)));
        assert_eq!(
            (s.sum, s.saved_sums(), counts),
            (6, &[15][..], [0, 1, 0, 0])
        );
        // A saved sum plus the addition past 64 bits: no change.
        s.sum = 3;
        assert!(!run(&mut s, &mut counts, out(i64::MAX)));
        assert_eq!(
            (s.sum, s.saved_sums(), counts),
            (3, &[15][..], [0, 1, 0, 0])
        );
        assert!(run(&mut s, &mut counts, out(-20)));
        assert_eq!((s.sum, s.saved, counts), (-5i128 as u128, 0, [0, 1, 0, 1]));
        // At a path end: counts `set` (2), sets the end's sum.
        let at_end = ProbeOp::PushEnd {
            add: 0,
            inner: Some(9),
            set: 2,
            end: 0,
            ways: 1,
            first: None,
        };
        s.sum = 8;
        assert!(run(&mut s, &mut counts, at_end));
        assert_eq!(
            (s.sum, s.saved_sums(), counts),
            (9, &[8, 9][..], [0, 1, 1, 1])
        );
        // Room for one sum only: neither is saved.
        s.saved = SAVES as u64 - 1;
        assert!(!run(&mut s, &mut counts, both));
        assert!(!run(&mut s, &mut counts, at_end));
        assert_eq!(
            (s.sum, s.saved, counts),
            (9, SAVES as u64 - 1, [0, 1, 1, 1])
        );
    }

    #[test]
    fn a_call_whose_caller_enters_a_region_first_saves_below_the_callee_floor() {
        let (ends, mut s) = region_setup(0, 4, 10);
        let mut counts = [0u64; 4];
        let call = |enter, push| ProbeOp::Call {
            add: 1,
            ret: 0x100,
            resume: 5,
            resume_add: 2,
            site: 0,
            start: 3,
            push,
            end: None,
            enter,
        };
        // The caller saves 10 + 4 and its sum becomes 6; the frame resumes it at 6 + 1 + 2.
        let p = call(Some((4, 6)), Some(8));
        assert!(run(&mut s, &mut counts, &ends, p, 0));
        assert_eq!((s.sum, s.saved_sums(), s.floor), (3, &[14, 8][..], 1));
        assert_eq!((s.open()[0].resumed, s.open()[0].floor), (9, 0));
        // No room for both sums, or a sum past 64 bits: nothing changes.
        let before = s.clone();
        s.saved = SAVES as u64 - 1;
        let full = s.clone();
        assert!(!run(&mut s, &mut counts, &ends, p, 0));
        assert_eq!(s, ProbeState { key: 1, ..full });
        s = before;
        let far = call(Some((i64::MAX, 0)), None);
        assert!(!run(&mut s, &mut counts, &ends, far, 0));
        assert_eq!((s.depth, s.saved), (1, 2));
    }

    #[test]
    fn a_region_passed_through_or_left_for_the_next_counts_its_path() {
        // Sums 0..4 at counters 1..5.
        let (ends, mut s) = region_setup(1, 4, 10);
        let mut counts = [0u64; 5];
        let run = |s: &mut ProbeState, counts: &mut [u64], op| run(s, counts, &ends, op, 0);
        let through = |set| ProbeOp::Through {
            add: -3,
            set,
            end: 0,
            ways: 1,
        };
        // Counts 2, then the sum is 10 - 3; nothing saved.
        assert!(run(&mut s, &mut counts, through(2)));
        assert_eq!((s.sum, s.saved, counts), (7, 0, [0, 0, 0, 1, 0]));
        assert!(!run(&mut s, &mut counts, through(4)));
        assert_eq!((s.sum, counts), (7, [0, 0, 0, 1, 0]));
        let next = ProbeOp::PopPush {
            end: 0,
            ways: 1,
            add: 5,
            set: 1,
        };
        // Nothing saved: no exit.
        assert!(!run(&mut s, &mut counts, next));
        s.sum = 3;
        assert!(run(
            &mut s,
            &mut counts,
            ProbeOp::Push {
                add: 0,
                inner: None,
                set: 3
            }
        ));
        // Counts 3; the saved 3 becomes 8; the sum 1.
        assert!(run(&mut s, &mut counts, next));
        assert_eq!(
            (s.sum, s.saved_sums(), counts),
            (1, &[8][..], [0, 0, 0, 1, 1])
        );
        // A saved sum past 64 bits: no change.
        s.saves[0] = i64::MAX;
        assert!(!run(&mut s, &mut counts, next));
        assert_eq!((s.sum, counts), (1, [0, 0, 0, 1, 1]));
    }

    #[test]
    fn a_call_starts_an_activation_whose_pops_stop_at_its_floor() {
        let (ends, mut s) = region_setup(0, 10, 1);
        let mut counts = [0u64; 10];
        let run = |s: &mut ProbeState, counts: &mut [u64], op, to| run(s, counts, &ends, op, to);
        let push = ProbeOp::Push {
            add: 0,
            inner: None,
            set: 2,
        };
        let pop = ProbeOp::Pop {
            end: 0,
            ways: 1,
            add: 0,
            first: None,
        };
        let call = |push| ProbeOp::Call {
            add: 0,
            ret: 0x100,
            resume: 1,
            resume_add: 0,
            site: 0,
            start: 3,
            push,
            end: None,
            enter: None,
        };
        let ret = ProbeOp::Return {
            end: 0,
            ways: 1,
            pairs: 7,
            first: None,
            saves_none: false,
        };
        assert!(run(&mut s, &mut counts, push, 0));
        assert!(run(&mut s, &mut counts, call(None), 0));
        assert_eq!((s.floor, s.saved, s.open()[0].floor), (1, 1, 0));
        // The callee's pop finds none of its own; its return, none left saved.
        assert!(!run(&mut s, &mut counts, pop, 0));
        assert!(run(&mut s, &mut counts, push, 0));
        assert!(!run(&mut s, &mut counts, ret, 0x100));
        assert_eq!((s.depth, s.saved), (1, 2));
        // A return whose function saves no sum does not look: the one above the floor
        // stays saved, and the caller's floor comes back.
        let (mut unchecked, mut c) = (s.clone(), counts);
        let ret_saving_none = ProbeOp::Return {
            end: 0,
            ways: 1,
            pairs: 7,
            first: None,
            saves_none: true,
        };
        assert!(run(&mut unchecked, &mut c, ret_saving_none, 0x100));
        assert_eq!(
            (unchecked.depth, unchecked.saved, unchecked.floor),
            (0, 2, 0)
        );
        // A tail call waits for the same.
        let tail = ProbeOp::Tail {
            end: 0,
            ways: 1,
            pairs: 7,
            push: None,
        };
        assert!(!run(&mut s, &mut counts, tail, 0));
        assert!(run(&mut s, &mut counts, pop, 0));
        assert!(run(&mut s, &mut counts, tail, 0));
        assert!(run(&mut s, &mut counts, ret, 0x100));
        assert_eq!((s.depth, s.floor, s.saved), (0, 0, 1));
        // The caller's own pop restores what it saved before the call.
        assert!(run(&mut s, &mut counts, pop, 0));
        assert_eq!((s.sum, s.saved), (1, 0));
        // A callee that starts in a region saves its first sum above its floor, if the
        // stack has room.
        let call = call(Some(6));
        s.saved = SAVES as u64;
        assert!(!run(&mut s, &mut counts, call, 0));
        assert_eq!(s.depth, 0);
        s.saved = 1;
        assert!(run(&mut s, &mut counts, call, 0));
        assert_eq!((s.floor, s.saved_sums()[1], s.sum), (1, 6, 3));
        assert!(!run(&mut s, &mut counts, ret, 0x100));
        assert!(run(&mut s, &mut counts, pop, 0));
        assert!(run(&mut s, &mut counts, ret, 0x100));
        assert_eq!((s.depth, s.floor, s.saved), (0, 0, 1));
    }
}

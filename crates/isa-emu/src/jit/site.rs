//! The probes of a logged block's indirect call or jump ([`Site`]): one per target for up
//! to [`Site::WAYS`] targets, which the run loop asks the sink for and the compiled code
//! runs (see the [module docs](super)).

use prof_events::{BlockEnd, Probe, ProbeOp};

use super::NO_EPOCH;

/// The probes of a logged block's indirect call or jump, each for one target, which the
/// run loop asks the sink for when the transfer goes to a target none holds (see
/// [`Source::site`](super::Source::site)).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    /// The code tries them in order.
    pub ways: [SiteProbe; Site::WAYS],
    /// Probes asked for so far (not read by the code).
    pub asked: u64,
}

impl Site {
    /// Targets a site holds probes for: a `switch`'s warm targets. With 4, the 7-target
    /// `switch` in sort's `_wordcopy_fwd_aligned` left 14 473 restarts to the sink, each
    /// taking over the frames open, whose returns then reached the sink too (sort 300000,
    /// flat: 250 000 edges and 61 000 traces delivered; 2 700 and 300 with 8).
    pub(crate) const WAYS: usize = 8;
    /// The ways of a restart's path end, at most (the code tries each in turn).
    pub(crate) const END_WAYS: u8 = 8;
    /// Sites, at most: a block past them compiles no site.
    pub(crate) const MAX: usize = 1 << 16;
    /// The probes asked for a site, at most (a call whose target keeps changing gives up).
    pub(crate) const ASKS: u64 = 16;

    pub(crate) const EMPTY: Site = Site {
        ways: [SiteProbe::EMPTY; Site::WAYS],
        asked: 0,
    };

    /// Whether a way holds what the sink would give for a call to `to` in `epoch` (the
    /// probe state's, if lent): the call's probe for that epoch, or none.
    pub(crate) fn answers(&self, to: u64, epoch: Option<u64>) -> bool {
        self.ways
            .iter()
            .any(|w| w.to & !1 == to && (w.to & 1 == 1 || epoch.is_none_or(|e| e == w.epoch)))
    }

    /// Whether a way holds a probe (not the answer that the sink gave none).
    pub(crate) fn holds_probe(&self) -> bool {
        self.ways.iter().any(|w| w.to & 1 == 0)
    }

    /// The target and probe of the way holding a call's or an addition's probe (not a
    /// restart's) that ran most (the first of those), which the code of the site's block
    /// may run as a fixed exit's probe, known when compiled (see
    /// [`Source::site`](super::Source::site)).
    pub(crate) fn hottest(&self, kind: SiteKind) -> Option<(u64, Probe)> {
        let known = self.ways.iter().filter_map(|w| Some((w, w.probe(kind)?)));
        let (way, probe) = known.rev().max_by_key(|(w, _)| w.runs)?;
        Some((way.to, probe))
    }

    /// Holds `probe` (the sink's for a transfer of `kind` to `to`) in the way that held
    /// `to` before (in an older epoch: the code takes the first way that holds the
    /// target), else in an empty way, else in the one whose probe ran least, so that
    /// the hot targets of a `switch` stay while its rare ones take turns in one way (with
    /// the ways taken in turn, a 7-target `switch` in sort's `_wordcopy_fwd_aligned` used up
    /// its asks on rare targets and left its hot ones to the run loop, 97 000 times).
    /// Halves every way's runs, so that targets that have gone cold make way in time.
    pub(crate) fn learn(&mut self, probe: Option<Probe>, to: u64, kind: SiteKind) {
        let at = self
            .ways
            .iter()
            .position(|w| w.to & !1 == to)
            .or_else(|| self.ways.iter().position(|w| w.to == SiteProbe::EMPTY.to))
            .or_else(|| {
                let least = self.ways.iter().enumerate().min_by_key(|(_, w)| w.runs);
                least.map(|(i, _)| i)
            });
        for way in &mut self.ways {
            way.runs /= 2;
        }
        if let Some(way) = at.and_then(|i| self.ways.get_mut(i)) {
            *way = SiteProbe::of(probe, to, kind);
        }
        self.asked += 1;
    }
}

/// What a [`Site`]'s block ends with, which tells the probes it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SiteKind {
    /// An indirect call: [`ProbeOp::Call`]s whose callee saves no sum first and whose
    /// caller's path goes on.
    Call,
    /// An indirect jump: [`ProbeOp::Restart`]s of at most [`Site::END_WAYS`] ways, or
    /// [`ProbeOp::Add`]s (a jump table's targets, flow edges of the function).
    Jump,
}

impl SiteKind {
    /// The site of a block that ends with `end`, if it has one.
    pub(crate) fn of(end: BlockEnd) -> Option<SiteKind> {
        match end {
            BlockEnd::IndirectCall => Some(SiteKind::Call),
            BlockEnd::IndirectJump => Some(SiteKind::Jump),
            _ => None,
        }
    }

    /// The operands of `op` as a site of this kind holds them, if it may.
    fn operands(self, op: &ProbeOp) -> Option<[u64; 6]> {
        match (self, *op) {
            (
                SiteKind::Call,
                ProbeOp::Call {
                    end: None,
                    enter: None,
                    ..
                },
            ) => call_operands(op)
                .filter(|(call, push)| push.is_none() && call[RESUME_ADD] == 0)
                .map(|(call, _)| call),
            (
                SiteKind::Jump,
                ProbeOp::Restart {
                    end,
                    ways,
                    pairs,
                    push,
                },
            ) if (1..=Site::END_WAYS).contains(&ways) => Some([
                u64::from(end),
                u64::from(ways),
                u64::from(pairs),
                u64::from(push.is_some()),
                push.unwrap_or(0) as u64,
                0,
            ]),
            // (No ways: the code tells an addition from a restart by that.)
            (SiteKind::Jump, ProbeOp::Add(add)) => Some([0, 0, 0, 0, 0, add as u64]),
            (SiteKind::Call | SiteKind::Jump, _) => None,
        }
    }
}

/// Where a call's `resume_add` is among [`call_operands`]: a site holds only calls whose
/// `resume_add` is 0 there (the additions summed), and its code reads no such operand.
pub(crate) const RESUME_ADD: usize = 3;

/// A [`Site`]'s probe for one target; the code reads its fields as those of a
/// [`ProbeOp::Call`], [`ProbeOp::Restart`] or [`ProbeOp::Add`] probe, by the site's
/// [`SiteKind`] and, at a jump, its ways.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SiteProbe {
    /// The target it applies to; plus one (no pc is odd) where the sink gave no probe for
    /// that target.
    pub to: u64,
    pub key: u64,
    pub epoch: u64,
    pub next: u64,
    /// A call's operands ([`call_operands`]), a restart's `end`, `ways`, `pairs`,
    /// whether it saves a sum and the sum, or an addition's 0 ways and, last, the addition.
    pub operands: [u64; 6],
    /// Times the code ran the probe since it was learned, halved at each
    /// [`Site::learn`] (which replaces the way run least).
    pub runs: u64,
}

impl SiteProbe {
    pub(crate) const TO: i32 = 0;
    pub(crate) const KEY: i32 = 8;
    pub(crate) const EPOCH: i32 = 16;
    pub(crate) const NEXT: i32 = 24;
    pub(crate) const OPERANDS: i32 = 32;
    /// A restart's operands.
    pub(crate) const END: i32 = Self::OPERANDS;
    /// See [`END`](Self::END).
    pub(crate) const WAYS: i32 = Self::OPERANDS + 8;
    /// See [`END`](Self::END).
    pub(crate) const PAIRS: i32 = Self::OPERANDS + 16;
    /// See [`END`](Self::END).
    pub(crate) const PUSHES: i32 = Self::OPERANDS + 24;
    /// See [`END`](Self::END).
    pub(crate) const PUSH: i32 = Self::OPERANDS + 32;
    /// An addition's operand (its `ways`, at [`WAYS`](Self::WAYS), are 0).
    pub(crate) const ADD: i32 = Self::OPERANDS + 40;
    pub(crate) const RUNS: i32 = Self::OPERANDS + 48;

    /// The probe the way holds for a site of `kind`, as the sink gave it (a call's two
    /// additions summed, see [`call_operands`]), if it is a call's or an addition's: `None`
    /// for a restart's, or where the sink gave none.
    fn probe(&self, kind: SiteKind) -> Option<Probe> {
        if self.to & 1 == 1 {
            return None;
        }
        let op = match (kind, self.operands) {
            (SiteKind::Call, [add, ret, resume, _, site, start]) => ProbeOp::Call {
                add: add as i64,
                ret,
                resume,
                resume_add: 0,
                site,
                start: start as i64,
                push: None,
                end: None,
                enter: None,
            },
            // (No ways: an addition's.)
            (SiteKind::Jump, [_, 0, _, _, _, add]) => ProbeOp::Add(add as i64),
            (SiteKind::Jump, _) => return None,
        };
        Some(Probe {
            key: self.key,
            epoch: self.epoch,
            next: self.next,
            op,
        })
    }

    const EMPTY: SiteProbe = SiteProbe {
        to: 1,
        key: 0,
        epoch: 0,
        next: 0,
        operands: [0; 6],
        runs: 0,
    };

    /// The way that applies `probe` (one a site of `kind` may hold) to the transfer to
    /// `to`; none otherwise.
    fn of(probe: Option<Probe>, to: u64, kind: SiteKind) -> SiteProbe {
        match probe.and_then(|p| Some((p, kind.operands(&p.op)?))) {
            Some((p, operands)) if p.epoch != NO_EPOCH => SiteProbe {
                to,
                key: p.key,
                epoch: p.epoch,
                next: p.next,
                operands,
                runs: 0,
            },
            _ => SiteProbe {
                to: to | 1,
                ..SiteProbe::EMPTY
            },
        }
    }
}

// The offsets compiled code reads a site at.
const _: () = assert!(
    std::mem::offset_of!(SiteProbe, to) == SiteProbe::TO as usize
        && std::mem::offset_of!(SiteProbe, key) == SiteProbe::KEY as usize
        && std::mem::offset_of!(SiteProbe, epoch) == SiteProbe::EPOCH as usize
        && std::mem::offset_of!(SiteProbe, next) == SiteProbe::NEXT as usize
        && std::mem::offset_of!(SiteProbe, operands) == SiteProbe::OPERANDS as usize
        && std::mem::offset_of!(SiteProbe, runs) == SiteProbe::RUNS as usize
        && std::mem::offset_of!(Site, ways) == 0
);

/// A call probe's operands in the order its code takes them: `add`, `ret`, `resume`,
/// `resume_add`, `site`, `start` (the signed ones as their bits), and the sum the callee
/// saves first, if any (the path end a caller's sum passes first and the region it
/// enters are not among them); `None` for other ops. Where `add + resume_add` fits 64
/// bits, it is the first and `resume_add` is 0: the caller's sum when it resumes is what
/// the code needs, so it adds (and checks for overflow) once.
pub(crate) fn call_operands(op: &ProbeOp) -> Option<([u64; 6], Option<i64>)> {
    match *op {
        ProbeOp::Call {
            add,
            ret,
            resume,
            resume_add,
            site,
            start,
            push,
            ..
        } => {
            let (add, resume_add) = match add.checked_add(resume_add) {
                Some(both) => (both, 0),
                None => (add, resume_add),
            };
            Some((
                [
                    add as u64,
                    ret,
                    resume,
                    resume_add as u64,
                    site,
                    start as u64,
                ],
                push,
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A restart's probe for the target `to`, in `epoch`.
    fn restart(epoch: u64) -> Option<Probe> {
        Some(Probe {
            key: 1,
            epoch,
            next: 2,
            op: ProbeOp::Restart {
                end: 0,
                ways: 1,
                pairs: 0,
                push: None,
            },
        })
    }

    /// The targets the site holds, by way.
    fn held(site: &Site) -> Vec<u64> {
        site.ways.iter().map(|w| w.to).collect()
    }

    #[test]
    fn the_targets_run_most_stay_while_rare_ones_take_turns() {
        let mut site = Site::EMPTY;
        let first: Vec<u64> = (1..=Site::WAYS as u64).map(|i| i << 8).collect();
        for &to in &first {
            site.learn(restart(0), to, SiteKind::Jump);
        }
        assert_eq!(held(&site), first);
        // The code ran the probes of the second and the last way often, the others once.
        let (hot, warm) = (first[1], first[Site::WAYS - 1]);
        for (way, to) in site.ways.iter_mut().zip(&first) {
            way.runs = match *to {
                t if t == hot => 1000,
                t if t == warm => 500,
                _ => 1,
            };
        }
        let rare: Vec<u64> = (1..=Site::WAYS as u64 + 1)
            .map(|i| (i + 0x10) << 8)
            .collect();
        for &to in &rare {
            site.learn(restart(0), to, SiteKind::Jump);
        }
        let held = held(&site);
        assert!(held.contains(&hot) && held.contains(&warm), "{held:x?}");
        assert!(held.contains(rare.last().unwrap()), "{held:x?}");
        assert_eq!(site.asked as usize, 2 * Site::WAYS + 1);
    }

    #[test]
    fn the_hottest_way_holds_a_probe_the_code_may_know() {
        let probe = |op| {
            Some(Probe {
                key: 1,
                epoch: 0,
                next: 2,
                op,
            })
        };
        let mut site = Site::EMPTY;
        assert_eq!(site.hottest(SiteKind::Jump), None, "empty");
        site.learn(None, 0x100, SiteKind::Jump);
        site.learn(restart(0), 0x500, SiteKind::Jump);
        assert_eq!(
            site.hottest(SiteKind::Jump),
            None,
            "no probe, and a restart's"
        );
        for (to, v) in [(0x200, 5), (0x300, -3), (0x400, 7)] {
            site.learn(probe(ProbeOp::Add(v)), to, SiteKind::Jump);
        }
        let hottest = |site: &Site| site.hottest(SiteKind::Jump).map(|(to, _)| to);
        assert_eq!(hottest(&site), Some(0x200), "the first of equals");
        for (way, runs) in site.ways.iter_mut().zip([1000, 2000, 1, 10, 5]) {
            way.runs = runs;
        }
        assert_eq!(hottest(&site), Some(0x300), "the addition run most");
        assert_eq!(
            site.hottest(SiteKind::Jump).map(|(_, p)| p),
            probe(ProbeOp::Add(-3)),
            "as the sink gave it"
        );
        // A call's probe, its additions summed as the code takes them.
        let call = |add, resume_add| ProbeOp::Call {
            add,
            ret: 0x1004,
            resume: 9,
            resume_add,
            site: 3,
            start: -7,
            push: None,
            end: None,
            enter: None,
        };
        let mut site = Site::EMPTY;
        site.learn(probe(call(4, 5)), 0x2000, SiteKind::Call);
        assert_eq!(
            site.hottest(SiteKind::Call),
            Some((0x2000, probe(call(9, 0)).unwrap()))
        );
    }

    #[test]
    fn a_target_learned_again_takes_its_own_way() {
        let mut site = Site::EMPTY;
        for to in [0x100, 0x200] {
            site.learn(restart(0), to, SiteKind::Jump);
        }
        site.ways[1].runs = 1000;
        // A new epoch's probe for 0x200 replaces the old one; no way holds it twice.
        site.learn(restart(1), 0x200, SiteKind::Jump);
        assert_eq!(held(&site)[..2], [0x100, 0x200]);
        assert_eq!(site.ways[1].epoch, 1);
        assert!(site.answers(0x200, Some(1)) && !site.answers(0x200, Some(0)));
        // So does the answer that the sink gives none, and then a probe again.
        site.learn(None, 0x100, SiteKind::Jump);
        assert_eq!(held(&site)[..2], [0x101, 0x200]);
        site.learn(restart(1), 0x100, SiteKind::Jump);
        assert_eq!(held(&site)[..3], [0x100, 0x200, SiteProbe::EMPTY.to]);
    }
}

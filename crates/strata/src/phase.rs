//! Program phase changes from three signals: the conditional-branch count per fixed
//! instruction interval, the change of the block working set between intervals, and the
//! bounded hash table's reorder signal.

/// The signal that reported a phase change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signal {
    /// Conditional branches in the interval differ from the previous interval's by more
    /// than the threshold.
    BranchCount,
    /// The set of blocks executed in the interval differs from the previous interval's by
    /// more than the threshold (Jaccard distance).
    WorkingSet,
    /// A sort pass of a level's table reversed entries whose counts were an order of
    /// magnitude apart (bounded-hashtable's phase signal); the value is the level.
    Reorder(usize),
}

impl Signal {
    /// A short name for reports.
    pub fn name(self) -> String {
        match self {
            Signal::BranchCount => "branch-count".into(),
            Signal::WorkingSet => "working-set".into(),
            Signal::Reorder(l) => format!("reorder(level {l})"),
        }
    }
}

/// A phase change: the instruction number at which it was detected, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Phase {
    /// Instruction number (the start of the interval that differs from the one before).
    pub insn: u64,
    /// The signal that fired.
    pub signal: Signal,
}

/// Thresholds of the interval signals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseConfig {
    /// Interval length in instructions.
    pub interval: u64,
    /// Branch-count signal: fires when consecutive intervals' conditional-branch counts
    /// differ by more than this.
    pub branch_threshold: u64,
    /// Working-set signal: fires when the Jaccard distance of consecutive intervals' block
    /// sets exceeds this (0 = identical sets, 1 = disjoint).
    pub working_set_threshold: f64,
}

impl Default for PhaseConfig {
    fn default() -> Self {
        PhaseConfig {
            interval: 1 << 20,
            // 5% of the interval's instructions.
            branch_threshold: (1 << 20) / 20,
            working_set_threshold: 0.5,
        }
    }
}

/// Watches blocks (by dense index) and reports interval phase changes.
#[derive(Clone, Debug)]
pub struct PhaseDetector {
    config: PhaseConfig,
    pos: u64,
    interval_end: u64,
    branches: u64,
    prev_branches: Option<u64>,
    cur: Vec<u32>,
    in_cur: Vec<bool>,
    in_prev: Vec<bool>,
    prev: Vec<u32>,
    have_prev: bool,
    phases: Vec<Phase>,
}

impl PhaseDetector {
    /// A detector with `config` (an interval of 0 is taken as 1).
    pub fn new(config: PhaseConfig) -> Self {
        let interval = config.interval.max(1);
        PhaseDetector {
            config: PhaseConfig { interval, ..config },
            pos: 0,
            interval_end: interval,
            branches: 0,
            prev_branches: None,
            cur: Vec::new(),
            in_cur: Vec::new(),
            in_prev: Vec::new(),
            prev: Vec::new(),
            have_prev: false,
            phases: Vec::new(),
        }
    }

    /// Block `block` (a dense index) of `insns` instructions ran; `cond_branch` if it ends
    /// in a conditional branch. A block belongs to the interval it starts in.
    #[inline]
    pub fn observe(&mut self, block: u32, insns: u64, cond_branch: bool) {
        let i = block as usize;
        if i >= self.in_cur.len() {
            self.in_cur.resize(i + 1, false);
            self.in_prev.resize(i + 1, false);
        }
        if !self.in_cur[i] {
            self.in_cur[i] = true;
            self.cur.push(block);
        }
        self.branches += u64::from(cond_branch);
        self.pos += insns;
        if self.pos >= self.interval_end {
            self.end_interval();
        }
    }

    fn end_interval(&mut self) {
        let at = self.pos;
        if let Some(prev) = self.prev_branches {
            if prev.abs_diff(self.branches) > self.config.branch_threshold {
                self.phases.push(Phase {
                    insn: at,
                    signal: Signal::BranchCount,
                });
            }
        }
        if self.have_prev {
            let common = self
                .cur
                .iter()
                .filter(|&&b| self.in_prev[b as usize])
                .count();
            let union = self.cur.len() + self.prev.len() - common;
            let distance = 1.0 - common as f64 / union.max(1) as f64;
            if distance > self.config.working_set_threshold {
                self.phases.push(Phase {
                    insn: at,
                    signal: Signal::WorkingSet,
                });
            }
        }
        for &b in &self.prev {
            self.in_prev[b as usize] = false;
        }
        for &b in &self.cur {
            self.in_prev[b as usize] = true;
            self.in_cur[b as usize] = false;
        }
        std::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.clear();
        self.have_prev = true;
        self.prev_branches = Some(self.branches);
        self.branches = 0;
        // One interval per boundary crossed; a huge block skips the empty ones.
        self.interval_end = (self.pos / self.config.interval + 1) * self.config.interval;
    }

    /// Instructions observed.
    pub fn instructions(&self) -> u64 {
        self.pos
    }

    /// The phase changes found so far, in order.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// The configuration.
    pub fn config(&self) -> &PhaseConfig {
        &self.config
    }
}

/// Merges interval phases with reorder signals `(instruction, level)` in instruction order.
pub fn merge_phases(interval: &[Phase], reorders: &[(u64, usize)]) -> Vec<Phase> {
    let mut all: Vec<Phase> = interval.to_vec();
    all.extend(reorders.iter().map(|&(insn, l)| Phase {
        insn,
        signal: Signal::Reorder(l),
    }));
    all.sort();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> PhaseConfig {
        PhaseConfig {
            interval: 100,
            branch_threshold: 5,
            working_set_threshold: 0.5,
        }
    }

    #[test]
    fn a_branchy_loop_after_a_straight_one_fires_the_branch_signal_only() {
        let mut p = PhaseDetector::new(config());
        // 300 instructions of block 0 (no branches), then block 1 ... same working-set size.
        for _ in 0..30 {
            p.observe(0, 10, false);
        }
        for _ in 0..30 {
            p.observe(0, 10, true);
        }
        assert_eq!(
            p.phases(),
            [Phase {
                insn: 400,
                signal: Signal::BranchCount
            }]
        );
    }

    #[test]
    fn a_new_working_set_fires_the_working_set_signal() {
        let mut p = PhaseDetector::new(config());
        for i in 0..40u32 {
            p.observe(i % 4, 10, false);
        }
        for i in 0..40u32 {
            p.observe(10 + i % 4, 10, false);
        }
        assert_eq!(
            p.phases(),
            [Phase {
                insn: 500,
                signal: Signal::WorkingSet
            }]
        );
    }

    #[test]
    fn a_steady_loop_fires_nothing() {
        let mut p = PhaseDetector::new(config());
        for i in 0..1000u32 {
            p.observe(i % 3, 7, i % 3 == 0);
        }
        assert!(p.phases().is_empty(), "{:?}", p.phases());
    }
}

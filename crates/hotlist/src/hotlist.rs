//! The hotlist: at most N tuples (value, count, estimated first sequence number) kept by
//! concise samples (Fig. 11B) or counting samples (Fig. 11A).

use std::collections::HashMap;
use std::hash::Hash;
use std::mem::size_of;

use serde::{Deserialize, Serialize};

use crate::coin::{CoinSource, PcgCoins};
use crate::config::{Config, Mode, Policy, LINEAR_SCAN_MAX};
use crate::fasthash::{hash_table_bytes, FastBuild};
use crate::HotlistError;

/// p never falls below 2^-60: a hotlist would need ~10^18 events to get there, and the floor
/// keeps every coin probability a normal positive number.
pub const P_FLOOR: f64 = 1.0 / (1u64 << 60) as f64;

/// A reduction round re-sorts and re-indexes the list when more than 1/INCREMENTAL_SHARE of
/// its tuples lost counts; fewer cut tuples are moved into place one by one.
const INCREMENTAL_SHARE: usize = 8;

/// SatCount range used for reporting by the fixed policies (they never switch).
const FIXED_SAT_RANGE: (u32, u32) = (0, 50);

/// What [`Hotlist::update_observed`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The event was processed (counted, inserted or passed over); no reduction yet.
    Event,
    /// One reduction round (p = p/f, then thinning) finished.
    Reduced,
}

/// One hotlist entry (V, C, S).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tuple<V> {
    /// The value V (may itself be a tuple of correlated values).
    pub value: V,
    /// The count C, always at least 1.
    pub count: u64,
    /// S: the estimated sequence number of the first event counted in `count` (1-based:
    /// the first event of the stream has sequence number 1).
    pub first_seq: u64,
}

/// A fixed-size hotlist of the most frequent values of a stream; see the crate docs.
///
/// `R` is the coin source (the spec's `flip_coin`): [`PcgCoins`] by default,
/// [`crate::ScriptedCoins`] in tests.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(
    try_from = "HotlistState<V, R>",
    bound(
        serialize = "V: Serialize, R: Serialize",
        deserialize = "V: Deserialize<'de> + Hash + Eq + Clone, R: Deserialize<'de>"
    )
)]
pub struct Hotlist<V, R = PcgCoins> {
    config: Config,
    #[serde(skip)]
    factor: f64,
    tuples: Vec<Tuple<V>>,
    /// value -> position in `tuples`, kept when N > LINEAR_SCAN_MAX.
    #[serde(skip)]
    index: Option<HashMap<V, u32, FastBuild>>,
    p: f64,
    /// Scur, except in concise mode, where it already counts the `skip` events known to be
    /// passed over (see [`Hotlist::scur`]), so that passing over one touches only `skip`.
    scur: u64,
    sat_count: u32,
    mode: Mode,
    /// The next `skip` event coins at the current p are known to be false...
    skip: u64,
    /// ...and, if `armed`, the one after them true (the geometric fast path).
    armed: bool,
    /// Index entries removed since the index was last rebuilt.
    #[serde(skip)]
    removals: usize,
    coins: R,
}

/// The serialized form of a [`Hotlist`], checked on the way back in.
#[derive(Deserialize)]
struct HotlistState<V, R> {
    config: Config,
    tuples: Vec<Tuple<V>>,
    p: f64,
    scur: u64,
    sat_count: u32,
    mode: Mode,
    skip: u64,
    armed: bool,
    coins: R,
}

impl<V: Hash + Eq + Clone, R> TryFrom<HotlistState<V, R>> for Hotlist<V, R> {
    type Error = HotlistError;

    fn try_from(s: HotlistState<V, R>) -> Result<Self, HotlistError> {
        let bad = |m: &str| Err(HotlistError::BadState(m.to_string()));
        s.config.validate()?;
        if s.tuples.len() > s.config.capacity {
            return bad("more tuples than the capacity N");
        }
        if !(s.p.is_finite() && (P_FLOOR..=1.0).contains(&s.p)) {
            return bad("probability p outside [2^-60, 1]");
        }
        if s.tuples
            .iter()
            .any(|t| t.count == 0 || t.first_seq > s.scur)
        {
            return bad("a tuple has count 0 or a sequence number after Scur");
        }
        if s.tuples.windows(2).any(|w| w[0].count < w[1].count) {
            return bad("tuples not sorted by count");
        }
        let fixed = match s.config.policy {
            Policy::Concise => Some(Mode::Concise),
            Policy::Counting => Some(Mode::Counting),
            Policy::Adaptive { .. } => None,
        };
        if fixed.is_some_and(|m| m != s.mode) {
            return bad("mode contradicts the fixed policy");
        }
        if s.mode == Mode::Concise && s.skip > s.scur {
            return bad("more events passed over than Scur counts");
        }
        let mut h = Hotlist {
            factor: s.config.effective_factor(),
            config: s.config,
            tuples: s.tuples,
            index: None,
            p: s.p,
            scur: s.scur,
            sat_count: s.sat_count,
            mode: s.mode,
            skip: s.skip,
            armed: s.armed,
            removals: 0,
            coins: s.coins,
        };
        let (lo, hi) = h.sat_range();
        if !(lo..=hi).contains(&h.sat_count) {
            return bad("SatCount outside MinEnd..=MaxEnd");
        }
        h.rebuild_index();
        let distinct = match &h.index {
            Some(ix) => ix.len(),
            None => {
                let t = &h.tuples;
                (0..t.len())
                    .filter(|&i| !t[..i].iter().any(|u| u.value == t[i].value))
                    .count()
            }
        };
        if distinct != h.tuples.len() {
            return bad("a value appears in two tuples");
        }
        Ok(h)
    }
}

impl<V: Hash + Eq + Clone> Hotlist<V, PcgCoins> {
    /// An empty hotlist with a PCG coin source seeded with 0.
    pub fn new(config: Config) -> Result<Self, HotlistError> {
        Self::with_coins(config, PcgCoins::new(0))
    }

    /// An empty hotlist with a PCG coin source seeded with `seed`.
    pub fn with_seed(config: Config, seed: u64) -> Result<Self, HotlistError> {
        Self::with_coins(config, PcgCoins::new(seed))
    }
}

impl<V: Hash + Eq + Clone, R: CoinSource> Hotlist<V, R> {
    /// An empty hotlist (step 210: no tuples, p = 1, SatCount = MinEnd) drawing its coins
    /// from `coins`.
    pub fn with_coins(config: Config, coins: R) -> Result<Self, HotlistError> {
        config.validate()?;
        Ok(Self::from_valid(config, coins))
    }

    /// [`Hotlist::with_coins`] for a configuration already validated.
    pub(crate) fn from_valid(config: Config, coins: R) -> Self {
        let n = config.capacity;
        // Capacity N + 1: the list briefly holds one tuple too many before a reduction.
        let index = (n > LINEAR_SCAN_MAX)
            .then(|| HashMap::with_capacity_and_hasher(n + 1, FastBuild::default()));
        let mut h = Hotlist {
            factor: config.effective_factor(),
            config,
            tuples: Vec::with_capacity(n + 1),
            index,
            p: 1.0,
            scur: 0,
            sat_count: 0,
            mode: config.initial_mode(),
            skip: 0,
            armed: false,
            removals: 0,
            coins,
        };
        h.sat_count = h.sat_range().0;
        h
    }

    /// Receives one V-event (steps 216-230 or 232-242).
    #[inline]
    pub fn update(&mut self, value: V) {
        self.update_observed(value, |_, _| {});
    }

    /// [`Hotlist::update`] that shows the intermediate states, as the rows of the spec's
    /// Tables 1 and 2 do: `observe(Step::Event, ..)` once after the event was counted (or
    /// not), before any reduction, then `observe(Step::Reduced, ..)` after each reduction
    /// round (p = p/f and thinning).
    #[inline]
    pub fn update_observed<F: FnMut(Step, &Self)>(&mut self, value: V, mut observe: F) {
        let mode = self.mode;
        // Fast path: a known-false coin costs one decrement (Scur counted it already).
        if mode == Mode::Concise && self.skip > 0 {
            self.skip -= 1;
            observe(Step::Event, self);
            return;
        }
        self.scur = self.scur.saturating_add(1);
        let inserted = match mode {
            Mode::Concise => self.event_coin() && self.count_or_insert(value),
            Mode::Counting => match self.find(&value) {
                Some(i) => {
                    self.increment(i);
                    self.sat_step(true);
                    false
                }
                None => {
                    self.sat_step(false);
                    self.event_coin() && {
                        self.insert(value);
                        true
                    }
                }
            },
        };
        observe(Step::Event, self);
        if inserted {
            self.reduce_while_full(mode, &mut observe);
        }
    }

    /// Step 224: counts a sampled value or inserts it; true when it was inserted.
    #[inline]
    fn count_or_insert(&mut self, value: V) -> bool {
        match self.find(&value) {
            Some(i) => {
                self.increment(i);
                self.sat_step(true);
                false
            }
            None => {
                self.insert(value);
                self.sat_step(false);
                true
            }
        }
    }

    /// The flip_coin(p) of steps 218 and 236, through the geometric skip.
    #[inline]
    fn event_coin(&mut self) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        if self.armed {
            self.armed = false;
            return true;
        }
        if self.p >= 1.0 {
            return true;
        }
        match self.coins.falses_before_true(self.p) {
            0 => true,
            k => {
                self.skip = k - 1;
                self.armed = true;
                if self.mode == Mode::Concise {
                    self.count_skip_ahead();
                }
                false
            }
        }
    }

    /// Concise mode: adds the `skip` events known to be passed over to Scur now. A skip
    /// longer than Scur can count is cut short and disarmed (coins are independent, so a
    /// fresh draw after it is distributed alike).
    fn count_skip_ahead(&mut self) {
        let room = u64::MAX - self.scur;
        if self.skip > room {
            self.skip = room;
            self.armed = false;
        }
        self.scur += self.skip;
    }

    /// Switches the method; in concise mode Scur counts the known skip ahead.
    fn set_mode(&mut self, mode: Mode) {
        if mode == self.mode {
            return;
        }
        if self.mode == Mode::Concise {
            self.scur -= self.skip;
        }
        self.mode = mode;
        if mode == Mode::Concise {
            self.count_skip_ahead();
        }
    }

    /// Forgets the known coins (they were drawn at a p no longer in force).
    fn clear_skip(&mut self) {
        if self.mode == Mode::Concise {
            self.scur -= self.skip;
        }
        self.skip = 0;
        self.armed = false;
    }

    /// SatCount up on a hit, down on a miss, saturating; at an end the mode switches
    /// (adaptive policy only).
    #[inline]
    fn sat_step(&mut self, hit: bool) {
        let (lo, hi) = self.sat_range();
        self.sat_count = if hit {
            (self.sat_count + 1).min(hi)
        } else {
            self.sat_count.saturating_sub(1).max(lo)
        };
        if let Policy::Adaptive { .. } = self.config.policy {
            if self.sat_count == hi {
                self.set_mode(Mode::Concise);
            } else if self.sat_count == lo {
                self.set_mode(Mode::Counting);
            }
        }
    }

    #[inline]
    fn find(&self, value: &V) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(value).map(|&i| i as usize),
            None => self.tuples.iter().position(|t| t.value == *value),
        }
    }

    /// Adds one to the count at `i`, keeping the tuples sorted: the tuple swaps places with
    /// the first tuple of equal count (found by binary search), so nothing else moves.
    #[inline]
    fn increment(&mut self, i: usize) {
        let c = self.tuples[i].count;
        let j = self.tuples[..i].partition_point(|t| t.count > c);
        if j != i {
            self.tuples.swap(i, j);
            self.reindex(i);
            self.reindex(j);
        }
        self.tuples[j].count = c.saturating_add(1);
    }

    /// Appends (V, 1, Scur); count 1 is the smallest count, so the order holds.
    fn insert(&mut self, value: V) {
        if let Some(ix) = &mut self.index {
            ix.insert(value.clone(), self.tuples.len() as u32);
        }
        self.tuples.push(Tuple {
            value,
            count: 1,
            first_seq: self.scur,
        });
    }

    /// Steps 226-230 / 238-242: while there are N+1 tuples, p = p/f and every tuple is
    /// thinned by the rules of `mode`.
    fn reduce_while_full<F: FnMut(Step, &Self)>(&mut self, mode: Mode, observe: &mut F) {
        let mut cuts = Vec::new();
        while self.tuples.len() > self.config.capacity {
            self.p = (self.p / self.factor).max(P_FLOOR);
            cuts.clear();
            thin(
                &self.tuples,
                &mut self.coins,
                mode,
                1.0 / self.factor,
                self.p,
                &mut cuts,
            );
            if self.index.is_some() && cuts.len() <= self.tuples.len() / INCREMENTAL_SHARE {
                // Few cuts (f close to 1): move each cut tuple down into place, keeping
                // the index, instead of re-sorting and re-indexing all N tuples.
                for &(i, removed) in cuts.iter().rev() {
                    self.demote(i, removed);
                }
                self.drop_emptied();
            } else if !cuts.is_empty() {
                let len = self.tuples.len();
                apply_cuts(&mut self.tuples, &cuts, self.scur);
                // Positions only move when a count fell out of order or a tuple left; the
                // stable sort keeps equal counts in their order (the spec's tables).
                let sorted = self.tuples.windows(2).all(|w| w[0].count >= w[1].count);
                if !(sorted && self.tuples.len() == len) {
                    self.tuples.sort_by_key(|t| std::cmp::Reverse(t.count));
                    self.rebuild_index();
                }
            }
            observe(Step::Reduced, self);
        }
        // The skip was a statement about coins at the old p.
        self.clear_skip();
    }

    /// Removes `removed` counts from the tuple at `i` (of a sorted list) and moves it down
    /// to keep the order: it swaps places with the last tuple of each higher count it
    /// passes, so only one tuple per count level moves, and the index follows.
    fn demote(&mut self, mut i: usize, removed: u64) {
        cut(&mut self.tuples[i], removed, self.scur);
        let new = self.tuples[i].count;
        while let Some(c) = self.tuples.get(i + 1).map(|t| t.count).filter(|&c| c > new) {
            let end = i + self.tuples[i + 1..].partition_point(|t| t.count >= c);
            self.tuples.swap(i, end);
            self.reindex(i);
            self.reindex(end);
            i = end;
        }
    }

    /// Drops the tuples [`Hotlist::demote`] emptied: count 0 sorts them to the end.
    fn drop_emptied(&mut self) {
        let len = self.tuples.len();
        while self.tuples.last().is_some_and(|t| t.count == 0) {
            if let (Some(t), Some(ix)) = (self.tuples.pop(), &mut self.index) {
                ix.remove(&t.value);
            }
        }
        // Removals leave tombstones in the hash table, which lengthen the probes of every
        // lookup of a value not held (most lookups in counting mode); rebuilding the index
        // after N removals clears them at an amortized cost of one insert per removal.
        self.removals += len - self.tuples.len();
        if self.removals > self.config.capacity {
            self.rebuild_index();
        }
    }

    /// Points the index entry of the tuple at `k` to `k`.
    #[inline]
    fn reindex(&mut self, k: usize) {
        if let Some(ix) = &mut self.index {
            if let Some(slot) = ix.get_mut(&self.tuples[k].value) {
                *slot = k as u32;
            }
        }
    }

    /// Merges `other` into `self` as if `other`'s stream had followed `self`'s: both are
    /// brought to the lower p by the thinning rule of `self`'s current mode, counts of
    /// equal values are added (in counting mode plus a geometric draw with mean 1/p - 1 for
    /// the events `other` saw before it started counting the value, so the estimate stays
    /// unbiased), `other`'s sequence numbers are shifted by `self`'s Scur, and the result
    /// is reduced to N tuples.
    pub fn merge<R2>(&mut self, other: &Hotlist<V, R2>) {
        if other.scur() == 0 {
            return;
        }
        self.clear_skip();
        let mode = self.mode;
        let p_low = self.p.min(other.p);
        let mut cuts = Vec::new();
        if self.p > p_low {
            thin(
                &self.tuples,
                &mut self.coins,
                mode,
                p_low / self.p,
                p_low,
                &mut cuts,
            );
            apply_cuts(&mut self.tuples, &cuts, self.scur);
        }
        let mut theirs = other.tuples.clone();
        if other.p > p_low {
            cuts.clear();
            thin(
                &theirs,
                &mut self.coins,
                mode,
                p_low / other.p,
                p_low,
                &mut cuts,
            );
            apply_cuts(&mut theirs, &cuts, other.scur());
        }
        self.rebuild_index();
        for t in theirs {
            match self.find(&t.value) {
                Some(i) => {
                    let hidden = match mode {
                        Mode::Counting if p_low < 1.0 => self.coins.falses_before_true(p_low),
                        _ => 0,
                    };
                    let c = &mut self.tuples[i].count;
                    *c = c.saturating_add(t.count).saturating_add(hidden);
                }
                None => self.tuples.push(Tuple {
                    first_seq: self.scur.saturating_add(t.first_seq),
                    ..t
                }),
            }
        }
        self.scur = self.scur.saturating_add(other.scur());
        self.p = p_low;
        self.tuples.sort_by_key(|t| std::cmp::Reverse(t.count));
        self.rebuild_index();
        self.reduce_while_full(mode, &mut |_, _| {});
    }
}

/// Thins every tuple from probability p_old to p_new = keep * p_old: pushes onto `cuts`
/// (position, counts removed) for each tuple that loses counts, in position order, without
/// changing the tuples ([`apply_cuts`] or [`Hotlist::demote`] applies them).
///
/// Concise samples (step 230): each of the C events of a tuple is evicted with probability
/// 1 - keep. Counting samples (step 240): per tuple one coin with probability 1 - keep; if
/// it comes up true the count drops by one and then by one more for each true of a coin
/// with probability 1 - p_new, until the first false (or the count reaches 0).
///
/// The coins are drawn in exactly that order (tuple by tuple, event by event), but runs of
/// false coins are skipped with one geometric draw, so a round costs a walk over the
/// tuples plus O(1) per eviction; when evictions are expected to outnumber the tuples,
/// concise thinning takes one binomial draw per tuple instead. Both are exact.
fn thin<V, R: CoinSource>(
    tuples: &[Tuple<V>],
    coins: &mut R,
    mode: Mode,
    keep: f64,
    p_new: f64,
    cuts: &mut Vec<(usize, u64)>,
) {
    let evict = 1.0 - keep;
    let mut cut = |i: usize, removed: u64| {
        let removed = removed.min(tuples[i].count);
        if removed > 0 {
            cuts.push((i, removed));
        }
    };
    match mode {
        Mode::Concise => {
            let total = tuples.iter().fold(0u64, |a, t| a.saturating_add(t.count));
            if evict * total as f64 > tuples.len() as f64 {
                for (i, t) in tuples.iter().enumerate() {
                    cut(i, coins.binomial(t.count, evict));
                }
            } else {
                // The next `falses` coins are false, then (if `then_true`) one is true;
                // a run is drawn only when the previous one is used up and may span
                // tuples. `left` counts the coins not drawn yet.
                let mut left = total;
                let (mut falses, mut then_true) = (0u64, false);
                for (i, t) in tuples.iter().enumerate() {
                    let (mut rem, mut removed) = (t.count, 0);
                    while rem > 0 {
                        if falses == 0 && !then_true {
                            let g = coins.falses_before_true_capped(evict, left);
                            then_true = g < left;
                            left -= g.saturating_add(u64::from(then_true)).min(left);
                            falses = g;
                        }
                        if falses >= rem {
                            falses -= rem;
                            rem = 0;
                        } else {
                            rem -= falses;
                            falses = 0;
                            if then_true {
                                then_true = false;
                                removed += 1;
                                rem -= 1;
                            } else {
                                // Unreachable: a run without a true covers all coins left.
                                break;
                            }
                        }
                    }
                    cut(i, removed);
                }
            }
        }
        Mode::Counting => {
            for (i, t) in tuples.iter().enumerate() {
                if coins.flip(evict) {
                    cut(i, 1 + coins.trues_before_false(1.0 - p_new, t.count - 1));
                }
            }
        }
    }
}

/// Removes `removed` counts from `t` (at most its count). A surviving tuple whose count fell
/// from C to C' gets S = Scur - (Scur - S) * C'/C, which moves S later, to where the first
/// of the C' remaining counts is expected to lie (see the crate docs on this reading of the
/// spec's formula).
fn cut<V>(t: &mut Tuple<V>, removed: u64, scur: u64) {
    let old = t.count;
    t.count = old - removed.min(old);
    if t.count > 0 && t.count < old {
        let span = u128::from(scur.saturating_sub(t.first_seq));
        let kept = span * u128::from(t.count) / u128::from(old);
        t.first_seq = scur - kept as u64;
    }
}

/// Applies the cuts of [`thin`] in place and drops the emptied tuples, keeping the order of
/// the others (the list may need sorting afterwards).
fn apply_cuts<V>(tuples: &mut Vec<Tuple<V>>, cuts: &[(usize, u64)], scur: u64) {
    for &(i, removed) in cuts {
        if let Some(t) = tuples.get_mut(i) {
            cut(t, removed, scur);
        }
    }
    if !cuts.is_empty() {
        tuples.retain(|t| t.count > 0);
    }
}

impl<V: Hash + Eq + Clone, R> Hotlist<V, R> {
    fn rebuild_index(&mut self) {
        self.removals = 0;
        if self.config.capacity <= LINEAR_SCAN_MAX {
            self.index = None;
            return;
        }
        let ix = self.index.get_or_insert_with(|| {
            HashMap::with_capacity_and_hasher(self.config.capacity + 1, FastBuild::default())
        });
        ix.clear();
        for (i, t) in self.tuples.iter().enumerate() {
            ix.insert(t.value.clone(), i as u32);
        }
    }
}

impl<V, R> Hotlist<V, R> {
    fn sat_range(&self) -> (u32, u32) {
        match self.config.policy {
            Policy::Adaptive { min_end, max_end } => (min_end, max_end),
            _ => FIXED_SAT_RANGE,
        }
    }

    /// The tuples, highest count first.
    pub fn tuples(&self) -> &[Tuple<V>] {
        &self.tuples
    }

    /// Number of tuples held (at most N).
    pub fn len(&self) -> usize {
        self.tuples.len()
    }

    /// Whether no tuple is held.
    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// N.
    pub fn capacity(&self) -> usize {
        self.config.capacity
    }

    /// The factor f in force.
    pub fn factor(&self) -> f64 {
        self.factor
    }

    /// The probability p.
    pub fn probability(&self) -> f64 {
        self.p
    }

    /// Scur: the number of events received (the sequence number of the latest event).
    pub fn scur(&self) -> u64 {
        match self.mode {
            Mode::Concise => self.scur - self.skip,
            Mode::Counting => self.scur,
        }
    }

    /// SatCount.
    pub fn sat_count(&self) -> u32 {
        self.sat_count
    }

    /// The method the next event is processed with.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The coin source.
    pub fn coins(&self) -> &R {
        &self.coins
    }

    /// The estimated number of occurrences of the tuple's value: C/p in concise mode,
    /// C + 1/p - 1 in counting mode (the formula of the current mode; see the crate docs
    /// on the adaptive policy).
    pub fn estimate(&self, t: &Tuple<V>) -> f64 {
        let c = t.count as f64;
        match self.mode {
            Mode::Concise => c / self.p,
            Mode::Counting => c + 1.0 / self.p - 1.0,
        }
    }

    /// The `k` values with the highest estimates, highest first.
    pub fn top(&self, k: usize) -> impl Iterator<Item = (&V, f64)> + '_ {
        self.tuples
            .iter()
            .take(k)
            .map(move |t| (&t.value, self.estimate(t)))
    }

    /// The sum of the counts, the spec's s# (samples behind the hotlist).
    pub fn samples(&self) -> u64 {
        self.tuples
            .iter()
            .fold(0u64, |a, t| a.saturating_add(t.count))
    }

    /// The tuple's share of [`Hotlist::samples`] (1.0 for an invariant value).
    pub fn share(&self, t: &Tuple<V>) -> f64 {
        match self.samples() {
            0 => 0.0,
            s => t.count as f64 / s as f64,
        }
    }

    /// The spec's eviction hint: a singleton (C = 1) is "old" when Scur/2 exceeds S/p by
    /// the configured margin, i.e. it entered early and was never seen again, which makes
    /// it a good candidate for eviction.
    pub fn is_old_singleton(&self, t: &Tuple<V>) -> bool {
        t.count == 1
            && self.scur() as f64 / 2.0
                > self.config.old_singleton_margin * t.first_seq as f64 / self.p
    }

    /// The tuples [`Hotlist::is_old_singleton`] flags.
    pub fn old_singletons(&self) -> impl Iterator<Item = &Tuple<V>> + '_ {
        self.tuples.iter().filter(|t| self.is_old_singleton(t))
    }

    /// Estimated bytes of this hotlist: the struct, the tuple array and the hash index
    /// (heap memory owned by values themselves is not counted).
    pub fn memory_bytes(&self) -> usize {
        let index = self.index.as_ref().map_or(0, |ix| {
            hash_table_bytes(ix.capacity(), size_of::<(V, u32)>())
        });
        size_of::<Self>() + self.tuples.capacity() * size_of::<Tuple<V>>() + index
    }
}

impl<V: Hash + Eq, R> Hotlist<V, R> {
    /// The tuple of `value`, if held.
    pub fn get(&self, value: &V) -> Option<&Tuple<V>> {
        match &self.index {
            Some(ix) => ix.get(value).and_then(|&i| self.tuples.get(i as usize)),
            None => self.tuples.iter().find(|t| t.value == *value),
        }
    }

    /// The estimate for `value` (0 when it is not held).
    pub fn estimate_of(&self, value: &V) -> f64 {
        self.get(value).map_or(0.0, |t| self.estimate(t))
    }
}

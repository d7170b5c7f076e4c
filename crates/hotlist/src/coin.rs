//! Coin sources: the `flip_coin` procedure of the spec, injected.
//!
//! [`CoinSource::flip`] is the only required method; it *defines* the semantics. The other
//! methods are batched forms whose default implementations call `flip` exactly as the spec's
//! flowcharts do, one coin at a time, in order. [`PcgCoins`] overrides them with fast samplers
//! of the same distribution (a geometric skip instead of one coin per event, one binomial
//! draw instead of C coins), and [`ScriptedCoins`] keeps the defaults so a script of coin
//! outcomes replays a flowchart step by step.

use rand::{Rng, SeedableRng};
use rand_distr::{Binomial, Distribution, Geometric};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// A source of biased coins.
pub trait CoinSource {
    /// `true` with probability `p` (`p <= 0`: never, `p >= 1`: always).
    fn flip(&mut self, p: f64) -> bool;

    /// The number of `false` results of `flip(p)` before the first `true` (a geometric
    /// variable), saturating at `u64::MAX`. Callers never pass `p <= 0`.
    fn falses_before_true(&mut self, p: f64) -> u64 {
        let mut k = 0u64;
        while !self.flip(p) {
            k = k.saturating_add(1);
        }
        k
    }

    /// The number of `false` results of `flip(p)` before the first `true`, looking at no
    /// more than `cap` flips: `cap` means the first `cap` flips were all false.
    fn falses_before_true_capped(&mut self, p: f64, cap: u64) -> u64 {
        let mut k = 0u64;
        while k < cap && !self.flip(p) {
            k += 1;
        }
        k
    }

    /// The number of `true` results of `flip(p)` before the first `false`, stopping early
    /// once `cap` trues were seen (so at most `cap`).
    fn trues_before_false(&mut self, p: f64, cap: u64) -> u64 {
        let mut k = 0u64;
        while k < cap && self.flip(p) {
            k += 1;
        }
        k
    }

    /// The number of `true` results among `n` calls of `flip(p)` (a binomial variable).
    fn binomial(&mut self, n: u64, p: f64) -> u64 {
        (0..n).filter(|_| self.flip(p)).count() as u64
    }
}

/// The default coin source: a seeded PCG generator (`Pcg64Mcg`) with fast samplers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PcgCoins {
    rng: Pcg64Mcg,
}

impl PcgCoins {
    /// A generator seeded with `seed`; equal seeds give equal coin sequences.
    pub fn new(seed: u64) -> Self {
        PcgCoins {
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }
}

impl Default for PcgCoins {
    /// Seed 0.
    fn default() -> Self {
        PcgCoins::new(0)
    }
}

impl CoinSource for PcgCoins {
    #[inline]
    fn flip(&mut self, p: f64) -> bool {
        // gen::<f64>() is uniform on [0, 1), so p = 0 never and p = 1 always succeeds.
        self.rng.gen::<f64>() < p
    }

    fn falses_before_true(&mut self, p: f64) -> u64 {
        if p >= 1.0 {
            return 0;
        }
        match Geometric::new(p) {
            Ok(g) => g.sample(&mut self.rng),
            Err(_) => u64::MAX,
        }
    }

    fn falses_before_true_capped(&mut self, p: f64, cap: u64) -> u64 {
        if cap == 0 || p >= 1.0 {
            return 0;
        }
        self.falses_before_true(p).min(cap)
    }

    fn trues_before_false(&mut self, p: f64, cap: u64) -> u64 {
        if p <= 0.0 || cap == 0 {
            return 0;
        }
        if p >= 1.0 {
            return cap;
        }
        match Geometric::new(1.0 - p) {
            Ok(g) => g.sample(&mut self.rng).min(cap),
            Err(_) => cap,
        }
    }

    fn binomial(&mut self, n: u64, p: f64) -> u64 {
        if n == 0 || p <= 0.0 {
            return 0;
        }
        if p >= 1.0 {
            return n;
        }
        match Binomial::new(n, p) {
            Ok(b) => b.sample(&mut self.rng),
            Err(_) => 0,
        }
    }
}

/// A scripted coin source for tests: returns the scripted outcomes in order and records
/// every call's probability, so a test can check both the outcomes a flowchart consumed and
/// the probabilities it asked for. A coin with `p >= 1` or `p <= 0` is decided without
/// consuming the script (its outcome is certain). When the script runs out the source
/// falls back to a fixed-seed PCG generator and [`ScriptedCoins::exhausted`] turns true.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScriptedCoins {
    script: Vec<bool>,
    next: usize,
    log: Vec<(f64, bool)>,
    /// Not serialized: a restored source falls back from seed 0 again.
    #[serde(skip)]
    fallback: PcgCoins,
    exhausted: bool,
}

impl ScriptedCoins {
    /// A source that returns `script` in order.
    pub fn new(script: impl IntoIterator<Item = bool>) -> Self {
        ScriptedCoins {
            script: script.into_iter().collect(),
            next: 0,
            log: Vec::new(),
            fallback: PcgCoins::new(0),
            exhausted: false,
        }
    }

    /// Parses a script of `T`/`1` (true) and `F`/`0` (false); other characters
    /// (spaces, `|` as separators) are ignored.
    pub fn parse(script: &str) -> Self {
        ScriptedCoins::new(script.chars().filter_map(|c| match c {
            'T' | 't' | '1' => Some(true),
            'F' | 'f' | '0' => Some(false),
            _ => None,
        }))
    }

    /// Scripted outcomes not consumed yet.
    pub fn remaining(&self) -> usize {
        self.script.len() - self.next.min(self.script.len())
    }

    /// Whether a coin was asked for after the script ran out.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Every uncertain coin flipped so far: (probability of `true`, outcome).
    pub fn log(&self) -> &[(f64, bool)] {
        &self.log
    }
}

impl CoinSource for ScriptedCoins {
    fn flip(&mut self, p: f64) -> bool {
        if p >= 1.0 {
            return true;
        }
        if p <= 0.0 {
            return false;
        }
        let outcome = match self.script.get(self.next) {
            Some(&b) => {
                self.next += 1;
                b
            }
            None => {
                self.exhausted = true;
                self.fallback.flip(p)
            }
        };
        self.log.push((p, outcome));
        outcome
    }
}

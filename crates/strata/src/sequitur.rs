//! Online SEQUITUR (Nevill-Manning and Witten): a context-free grammar of a symbol stream
//! kept under two invariants, digram uniqueness (no pair of adjacent symbols occurs twice
//! in the grammar, except overlapping in a run like `a a a`) and rule utility (every rule
//! but the start rule is used at least twice).

use std::collections::hash_map::Entry;
use std::collections::HashMap;

// foldhash with a fixed seed, as the level tables use: deterministic and fast.
use bounded_hashtable::DefaultHashBuilder as Fast;
use std::hash::{Hash, Hasher};

/// A symbol of a rule's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GSym {
    /// The terminal with this index (see [`Sequitur::terminal`]).
    Term(u32),
    /// A reference to rule `n`.
    Rule(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Sym {
    Term(u32),
    Rule(u32),
    Guard(u32),
}

const NIL: u32 = u32::MAX;

/// Terminals and rules each get 31 bits in a digram key.
const RULE_BIT: u32 = 1 << 31;

impl Sym {
    /// The symbol's half of a digram key (guards are never in a digram).
    fn code(self) -> u32 {
        match self {
            Sym::Term(t) => t,
            Sym::Rule(r) | Sym::Guard(r) => r | RULE_BIT,
        }
    }
}

/// A digram index key: two symbol codes. Its map entry (key and node) takes 12 bytes where
/// a packed `u64` key takes 16: the index is the grammar's largest structure and its
/// lookups miss the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Digram([u32; 2]);

impl Hash for Digram {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from(self.0[0]) << 32 | u64::from(self.0[1]));
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    sym: Sym,
    prev: u32,
    next: u32,
}

#[derive(Clone, Copy, Debug)]
struct RuleData {
    guard: u32,
    uses: u32,
    live: bool,
}

/// Size statistics of a grammar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GrammarStats {
    /// Symbols fed.
    pub input_len: u64,
    /// Rules, the start rule included.
    pub rules: usize,
    /// Symbols in all rule bodies: the grammar's size.
    pub symbols: usize,
    /// Distinct terminals.
    pub terminals: usize,
}

/// A rule as a hot-subsequence query reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HotRule {
    /// The rule.
    pub rule: u32,
    /// Times its expansion occurs in the input's derivation.
    pub uses: u64,
    /// Terminals in one expansion.
    pub len: u64,
    /// Weight of one expansion (sum of its terminals' weights).
    pub weight: f64,
}

impl HotRule {
    /// Weight of one expansion times its uses.
    pub fn heat(&self) -> f64 {
        self.weight * self.uses as f64
    }
}

/// An online SEQUITUR grammar over terminals of type `T`.
#[derive(Clone, Debug)]
pub struct Sequitur<T> {
    nodes: Vec<Node>,
    free: Vec<u32>,
    rules: Vec<RuleData>,
    /// Digram index: (first, second) symbol ([`Sym::code`]) -> first node.
    digrams: HashMap<Digram, u32, Fast>,
    terms: Vec<T>,
    term_ids: HashMap<T, u32, Fast>,
    input_len: u64,
}

impl<T: Hash + Eq + Clone> Default for Sequitur<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Hash + Eq + Clone> Sequitur<T> {
    /// An empty grammar (the start rule, rule 0, with an empty body).
    pub fn new() -> Self {
        let mut g = Sequitur {
            nodes: Vec::new(),
            free: Vec::new(),
            rules: Vec::new(),
            digrams: HashMap::default(),
            terms: Vec::new(),
            term_ids: HashMap::default(),
            input_len: 0,
        };
        g.new_rule();
        g
    }

    /// Appends one terminal and restores both invariants. Returns false, leaving the
    /// grammar unchanged, once it holds 2^30 rules or 2^31 - 1 terminals (its symbols'
    /// code space; far beyond what fits in memory).
    #[must_use = "false: the grammar is full and did not take the terminal"]
    pub fn push(&mut self, t: T) -> bool {
        if self.full() {
            return false;
        }
        let id = self.term_id(t);
        self.append(id);
        true
    }

    /// [`push`](Self::push) for a caller that knows the terminal's likely index `hint`
    /// (the detector: level 1 interns the same stream in the same order): if `hint` holds
    /// `t`, the terminal index is found without hashing; otherwise as `push`.
    #[must_use = "false: the grammar is full and did not take the terminal"]
    pub(crate) fn push_hinted(&mut self, hint: u32, t: T) -> bool {
        if self.full() {
            return false;
        }
        let id = match self.terms.get(hint as usize) {
            Some(known) if *known == t => hint,
            _ => self.term_id(t),
        };
        self.append(id);
        true
    }

    /// No room for another rule or terminal in the symbols' code space.
    fn full(&self) -> bool {
        self.rules.len() >= (RULE_BIT / 2) as usize || self.terms.len() >= (RULE_BIT - 1) as usize
    }

    /// The index of terminal `t`, interned if new.
    fn term_id(&mut self, t: T) -> u32 {
        match self.term_ids.get(&t) {
            Some(&id) => id,
            None => {
                let id = self.terms.len() as u32;
                self.terms.push(t.clone());
                self.term_ids.insert(t, id);
                id
            }
        }
    }

    /// Appends terminal `id` to the start rule and restores both invariants.
    fn append(&mut self, id: u32) {
        self.input_len += 1;
        let last = self.last(0);
        let n = self.new_node(Sym::Term(id));
        self.insert_after(last, n);
        let p = self.nodes[n as usize].prev;
        self.check(p);
    }

    /// The terminal with index `id`.
    pub fn terminal(&self, id: u32) -> Option<&T> {
        self.terms.get(id as usize)
    }

    /// Ids of the live rules, the start rule (0) first.
    pub fn rule_ids(&self) -> Vec<u32> {
        (0..self.rules.len() as u32)
            .filter(|&r| self.rules[r as usize].live)
            .collect()
    }

    /// The body of rule `r`, or `None` if there is no such rule.
    pub fn body(&self, r: u32) -> Option<Vec<GSym>> {
        let rule = self.rules.get(r as usize).filter(|d| d.live)?;
        let mut out = Vec::new();
        let mut n = self.nodes[rule.guard as usize].next;
        while n != rule.guard {
            out.push(match self.nodes[n as usize].sym {
                Sym::Term(t) => GSym::Term(t),
                Sym::Rule(x) => GSym::Rule(x),
                Sym::Guard(_) => break,
            });
            n = self.nodes[n as usize].next;
        }
        Some(out)
    }

    /// References to rule `r` in the grammar's bodies.
    pub fn rule_uses(&self, r: u32) -> u32 {
        self.rules.get(r as usize).map_or(0, |d| d.uses)
    }

    /// Size statistics.
    pub fn stats(&self) -> GrammarStats {
        let ids = self.rule_ids();
        GrammarStats {
            input_len: self.input_len,
            rules: ids.len(),
            symbols: ids
                .iter()
                .map(|&r| self.body(r).map_or(0, |b| b.len()))
                .sum(),
            terminals: self.terms.len(),
        }
    }

    /// Expands rule 0: the input so far.
    pub fn expand(&self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.input_len as usize);
        let g0 = self.rules[0].guard;
        let mut stack = vec![(self.nodes[g0 as usize].next, g0)];
        while let Some((n, g)) = stack.pop() {
            if n == g {
                continue;
            }
            let node = self.nodes[n as usize];
            stack.push((node.next, g));
            match node.sym {
                Sym::Term(t) => out.push(self.terms[t as usize].clone()),
                Sym::Rule(x) => {
                    let gx = self.rules[x as usize].guard;
                    stack.push((self.nodes[gx as usize].next, gx));
                }
                Sym::Guard(_) => {}
            }
        }
        out
    }

    /// Rules ranked by heat (weight of one expansion x uses in the derivation), hottest
    /// first, computed from the grammar without expanding it: uses top-down from the start
    /// rule, lengths and weights bottom-up. `weight` gives each terminal's weight.
    pub fn hot_rules(&self, weight: impl Fn(&T) -> f64, top: usize) -> Vec<HotRule> {
        let order = self.post_order();
        let n = self.rules.len();
        let (mut len, mut w) = (vec![0u64; n], vec![0f64; n]);
        let bodies: Vec<Vec<GSym>> = (0..n as u32)
            .map(|r| self.body(r).unwrap_or_default())
            .collect();
        for &r in &order {
            for s in &bodies[r as usize] {
                let (l, x) = match *s {
                    GSym::Term(t) => (1, weight(&self.terms[t as usize])),
                    GSym::Rule(x) => (len[x as usize], w[x as usize]),
                };
                len[r as usize] += l;
                w[r as usize] += x;
            }
        }
        let mut uses = vec![0u64; n];
        uses[0] = 1;
        for &r in order.iter().rev() {
            for s in &bodies[r as usize] {
                if let GSym::Rule(x) = *s {
                    uses[x as usize] += uses[r as usize];
                }
            }
        }
        let mut hot: Vec<HotRule> = order
            .iter()
            .filter(|&&r| r != 0)
            .map(|&r| HotRule {
                rule: r,
                uses: uses[r as usize],
                len: len[r as usize],
                weight: w[r as usize],
            })
            .collect();
        hot.sort_by(|a, b| b.heat().total_cmp(&a.heat()).then(a.rule.cmp(&b.rule)));
        hot.truncate(top);
        hot
    }

    /// Live rules in post order from the start rule (callees before callers).
    fn post_order(&self) -> Vec<u32> {
        let mut seen = vec![false; self.rules.len()];
        let mut order = Vec::new();
        let mut stack = vec![(0u32, false)];
        while let Some((r, done)) = stack.pop() {
            if done {
                order.push(r);
                continue;
            }
            if std::mem::replace(&mut seen[r as usize], true) {
                continue;
            }
            stack.push((r, true));
            for s in self.body(r).unwrap_or_default() {
                if let GSym::Rule(x) = s {
                    if !seen[x as usize] {
                        stack.push((x, false));
                    }
                }
            }
        }
        order
    }

    /// Checks both invariants; returns the first violation found.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen: HashMap<(GSym, GSym), (u32, usize)> = HashMap::new();
        for r in self.rule_ids() {
            let body = self.body(r).unwrap_or_default();
            if r != 0 && self.rules[r as usize].uses < 2 {
                return Err(format!(
                    "rule {r} is used {} times",
                    self.rules[r as usize].uses
                ));
            }
            if r != 0 && body.len() < 2 {
                return Err(format!("rule {r} has {} symbols", body.len()));
            }
            for (i, d) in body.windows(2).enumerate() {
                let key = (d[0], d[1]);
                if let Some(&(r2, i2)) = seen.get(&key) {
                    // Overlapping occurrences in a run (`a a a`) are allowed.
                    let overlap = r2 == r && i2 + 1 == i && d[0] == d[1];
                    if !overlap {
                        return Err(format!(
                            "digram {key:?} in rule {r2} at {i2} and rule {r} at {i}"
                        ));
                    }
                } else {
                    seen.insert(key, (r, i));
                }
            }
        }
        Ok(())
    }

    // ---- the algorithm (after the reference implementation's symbols and rules) ----

    fn new_rule(&mut self) -> u32 {
        // Rule ids are never reused, so a stale id can never name a different rule.
        self.rules.push(RuleData {
            guard: NIL,
            uses: 0,
            live: false,
        });
        let r = self.rules.len() as u32 - 1;
        let g = self.alloc(Sym::Guard(r));
        self.nodes[g as usize].prev = g;
        self.nodes[g as usize].next = g;
        self.rules[r as usize] = RuleData {
            guard: g,
            uses: 0,
            live: true,
        };
        r
    }

    fn alloc(&mut self, sym: Sym) -> u32 {
        let node = Node {
            sym,
            prev: NIL,
            next: NIL,
        };
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() as u32 - 1
            }
        }
    }

    fn new_node(&mut self, sym: Sym) -> u32 {
        if let Sym::Rule(r) = sym {
            self.rules[r as usize].uses += 1;
        }
        self.alloc(sym)
    }

    fn last(&self, r: u32) -> u32 {
        self.nodes[self.rules[r as usize].guard as usize].prev
    }

    fn first(&self, r: u32) -> u32 {
        self.nodes[self.rules[r as usize].guard as usize].next
    }

    fn sym(&self, n: u32) -> Sym {
        self.nodes[n as usize].sym
    }

    fn is_guard(&self, n: u32) -> bool {
        n == NIL || matches!(self.sym(n), Sym::Guard(_))
    }

    fn next(&self, n: u32) -> u32 {
        self.nodes[n as usize].next
    }

    fn prev(&self, n: u32) -> u32 {
        self.nodes[n as usize].prev
    }

    fn key(&self, n: u32) -> Option<Digram> {
        let m = self.next(n);
        (!self.is_guard(n) && !self.is_guard(m))
            .then(|| Digram([self.sym(n).code(), self.sym(m).code()]))
    }

    fn delete_digram(&mut self, n: u32) {
        if let Some(k) = self.key(n) {
            // One hash per removal: through the entry.
            if let Entry::Occupied(e) = self.digrams.entry(k) {
                if *e.get() == n {
                    e.remove();
                }
            }
        }
    }

    /// Links `left -> right`, first dropping the digram that started at `left` and
    /// restoring the index of runs like `a a a` that the unlink would lose.
    fn join(&mut self, left: u32, right: u32) {
        self.join_indexed(left, right, true);
    }

    /// [`join`](Self::join), told whether `left`'s digram may be in the index: it is not
    /// when `left` was linked to its successor just before, by a join that put no digram
    /// of `left` in the index (the caller knows), and looking it up would only cost a hash
    /// probe that cannot find it.
    fn join_indexed(&mut self, left: u32, right: u32, indexed: bool) {
        if self.next(left) != NIL {
            if indexed {
                self.delete_digram(left);
            } else {
                debug_assert!(
                    self.key(left)
                        .is_none_or(|k| self.digrams.get(&k) != Some(&left)),
                    "node {left}'s digram is indexed"
                );
            }
            let (rp, rn) = (self.prev(right), self.next(right));
            if rp != NIL
                && rn != NIL
                && self.sym(right) == self.sym(rp)
                && self.sym(right) == self.sym(rn)
            {
                if let Some(k) = self.key(right) {
                    self.digrams.insert(k, right);
                }
            }
            let (lp, ln) = (self.prev(left), self.next(left));
            if lp != NIL
                && ln != NIL
                && self.sym(left) == self.sym(lp)
                && self.sym(left) == self.sym(ln)
            {
                if let Some(k) = self.key(lp) {
                    self.digrams.insert(k, lp);
                }
            }
        }
        self.nodes[left as usize].next = right;
        self.nodes[right as usize].prev = left;
    }

    fn insert_after(&mut self, at: u32, n: u32) {
        self.insert_after_indexed(at, n, true);
    }

    /// [`insert_after`](Self::insert_after); `indexed` as for
    /// [`join_indexed`](Self::join_indexed), of `at`'s digram.
    fn insert_after_indexed(&mut self, at: u32, n: u32, indexed: bool) {
        let after = self.next(at);
        self.join(n, after);
        self.join_indexed(at, n, indexed);
    }

    /// Unlinks and frees node `n`, dropping its digram and its rule reference; `indexed`
    /// as for [`join_indexed`](Self::join_indexed), of its predecessor's digram.
    fn remove(&mut self, n: u32, indexed: bool) {
        let (p, nx) = (self.prev(n), self.next(n));
        self.join_indexed(p, nx, indexed);
        if !self.is_guard(n) {
            self.delete_digram(n);
            if let Sym::Rule(r) = self.sym(n) {
                self.rules[r as usize].uses -= 1;
            }
        }
        self.free.push(n);
    }

    /// Looks up the digram starting at `n`: records it if new, or enforces uniqueness if it
    /// occurs elsewhere. Returns true if the grammar changed.
    fn check(&mut self, n: u32) -> bool {
        let Some(k) = self.key(n) else {
            return false;
        };
        let m = match self.digrams.entry(k) {
            Entry::Vacant(v) => {
                v.insert(n);
                return false;
            }
            Entry::Occupied(o) => *o.get(),
        };
        if m == n || self.next(m) == n || self.next(n) == m {
            return false;
        }
        self.matched(n, m);
        true
    }

    /// The digram at `n` repeats the one at `m`: reuse the rule that is exactly `m`'s
    /// digram, or make a new rule, and substitute it for both.
    fn matched(&mut self, n: u32, m: u32) {
        let r = if self.is_guard(self.prev(m)) && self.is_guard(self.next(self.next(m))) {
            let Sym::Guard(r) = self.sym(self.prev(m)) else {
                return;
            };
            self.substitute(n, r);
            r
        } else {
            let r = self.new_rule();
            let (a, b) = (self.sym(n), self.sym(self.next(n)));
            let na = self.new_node(a);
            let g = self.rules[r as usize].guard;
            self.insert_after(g, na);
            let nb = self.new_node(b);
            self.insert_after(na, nb);
            self.substitute(m, r);
            self.substitute(n, r);
            if let Some(k) = self.key(na) {
                self.digrams.insert(k, na);
            }
            r
        };
        // Rule utility: a rule referenced once (from the new rule's body) is inlined.
        if self.rules[r as usize].live {
            for end in [self.first(r), self.last(r)] {
                if let Sym::Rule(x) = self.sym(end) {
                    if self.rules[x as usize].live && self.rules[x as usize].uses == 1 {
                        self.expand_node(end);
                    }
                }
            }
        }
    }

    /// Replaces the digram starting at `n` by a reference to rule `r`.
    fn substitute(&mut self, n: u32, r: u32) {
        let q = self.prev(n);
        // Only the first unlink can find a digram of `q` in the index: each join below
        // gives `q` a successor it had no digram with.
        self.remove(self.next(q), true);
        self.remove(self.next(q), false);
        let s = self.new_node(Sym::Rule(r));
        self.insert_after_indexed(q, s, false);
        if !self.check(q) {
            let s = self.next(q);
            self.check(s);
        }
    }

    /// Inlines the body of the rule referenced by node `n` (its only use) and deletes the rule.
    fn expand_node(&mut self, n: u32) {
        let Sym::Rule(x) = self.sym(n) else {
            return;
        };
        let (left, right) = (self.prev(n), self.next(n));
        let (f, l) = (self.first(x), self.last(x));
        self.delete_digram(n);
        let g = self.rules[x as usize].guard;
        self.rules[x as usize] = RuleData {
            guard: NIL,
            uses: 0,
            live: false,
        };
        self.free.push(g);
        self.join(left, f);
        self.join(l, right);
        self.free.push(n);
        if let Some(k) = self.key(l) {
            self.digrams.insert(k, l);
        }
    }
}

//! SEQUITUR: the grammar expands to its input and keeps digram uniqueness and rule utility
//! after every symbol; hot-rule queries agree with counting in the expansion.

use proptest::prelude::*;
use strata::strategies::{looped_stream, random_stream};
use strata::{GSym, Sequitur};

fn check_online(stream: &[u8]) -> Result<Sequitur<u8>, TestCaseError> {
    let mut g = Sequitur::new();
    for (i, &s) in stream.iter().enumerate() {
        prop_assert!(g.push(s));
        if let Err(e) = g.check_invariants() {
            return Err(TestCaseError::fail(format!("after {} symbols: {e}", i + 1)));
        }
    }
    prop_assert_eq!(g.expand(), stream.to_vec());
    Ok(g)
}

/// Expands rule `r` by walking bodies (the oracle for the hot-rule query).
fn expand_rule(g: &Sequitur<u8>, r: u32) -> Vec<u8> {
    g.body(r)
        .unwrap()
        .into_iter()
        .flat_map(|s| match s {
            GSym::Term(t) => vec![*g.terminal(t).unwrap()],
            GSym::Rule(x) => expand_rule(g, x),
        })
        .collect()
}

/// Occurrences of rule `r` in the derivation tree, counted by walking it.
fn derivation_uses(g: &Sequitur<u8>, from: u32, r: u32) -> u64 {
    g.body(from)
        .unwrap()
        .into_iter()
        .map(|s| match s {
            GSym::Rule(x) if x == r => 1,
            GSym::Rule(x) => derivation_uses(g, x, r),
            GSym::Term(_) => 0,
        })
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_streams(stream in random_stream(3, 400)) {
        check_online(&stream)?;
    }

    #[test]
    fn looped_streams(stream in looped_stream(5, 5)) {
        let g = check_online(&stream)?;
        for h in g.hot_rules(|&t| f64::from(t) + 1.0, usize::MAX) {
            let e = expand_rule(&g, h.rule);
            prop_assert_eq!(h.len, e.len() as u64);
            prop_assert_eq!(h.weight, e.iter().map(|&t| f64::from(t) + 1.0).sum::<f64>());
            prop_assert_eq!(h.uses, derivation_uses(&g, 0, h.rule));
        }
    }
}

#[test]
fn textbook_example() {
    // Nevill-Manning & Witten's example: "abcdbcabcd" gives S -> B A B, A -> b c,
    // B -> a A d.
    let mut g = Sequitur::new();
    "abcdbcabcd".bytes().for_each(|b| assert!(g.push(b)));
    assert_eq!(g.expand(), b"abcdbcabcd");
    assert!(g.check_invariants().is_ok());
    let s = g.stats();
    assert_eq!((s.rules, s.input_len, s.terminals), (3, 10, 4));
    assert_eq!(s.symbols, 8);
    let body0 = g.body(0).unwrap();
    assert_eq!(body0.len(), 3);
    assert_eq!(body0[0], body0[2]);
}

#[test]
fn a_long_loop_compresses_logarithmically() {
    let mut g = Sequitur::new();
    for _ in 0..1 << 12 {
        assert!(g.push(1u8) && g.push(2u8));
    }
    assert!(g.check_invariants().is_ok());
    assert!(g.stats().symbols < 40, "{:?}", g.stats());
    assert_eq!(g.expand().len(), 1 << 13);
}

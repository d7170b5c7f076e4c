//! Expanding the whole hierarchy reproduces the input exactly, and the tables' statistics
//! add up to the stream.

use proptest::prelude::*;
use strata::strategies::{config, looped_stream, random_stream};
use strata::{Config, Detector};

fn check(stream: &[u8], config: &Config) -> Result<(), TestCaseError> {
    let mut d = Detector::new(config);
    for (i, &s) in stream.iter().enumerate() {
        // Weights that differ per symbol, instruction counts too.
        d.push(s, u64::from(s % 3) + 1, u64::from(s) + i as u64 % 2);
    }
    d.finish();
    let expanded = d.expand();
    prop_assert_eq!(expanded.as_deref(), Some(stream));
    // Every level accounts for every instruction.
    let total: u64 = stream.iter().map(|&s| u64::from(s % 3) + 1).sum();
    for level in 0..d.levels() {
        let covered: u64 = d.all_stats(level).iter().map(|s| s.insns * s.trips).sum();
        prop_assert_eq!(covered, total, "level {}", level);
    }
    // Strata records tile the run.
    let mut at = 0;
    for r in d.records() {
        prop_assert_eq!(r.start_insn, at);
        at = r.end_insn;
    }
    if config.upper_levels > 0 {
        prop_assert_eq!(at, total);
        prop_assert_eq!(d.records().last().map_or(0, |r| r.end_path), d.closed(0));
        prop_assert_eq!(d.records().last().map_or(0, |r| r.end_stratum), d.closed(1));
    }
    // The grammar of the repeated-path stream expands to it and keeps its invariants.
    let g = d.grammar().unwrap();
    prop_assert_eq!(g.stats().input_len, d.emitted(0));
    if let Err(e) = g.check_invariants() {
        return Err(TestCaseError::fail(e));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn hierarchy_expands_to_the_looped_input(stream in looped_stream(6, 4), config in config()) {
        check(&stream, &config)?;
    }

    #[test]
    fn hierarchy_expands_to_random_input(stream in random_stream(4, 300), config in config()) {
        check(&stream, &config)?;
    }
}

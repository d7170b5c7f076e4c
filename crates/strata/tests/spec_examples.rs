//! The spec's examples of paths, repeated paths and strata, and its Table 1 segmentation.

use strata::{Config, Detector, Rep};

fn letters(s: &str) -> Vec<char> {
    s.split_whitespace()
        .filter_map(|w| w.chars().next())
        .collect()
}

fn detector(upper_levels: usize) -> Detector<char> {
    Detector::new(&Config {
        upper_levels,
        ..Config::default()
    })
}

fn path_of(d: &Detector<char>, id: u32) -> String {
    d.path(id).map(|p| p.iter().collect()).unwrap_or_default()
}

#[test]
fn abcabcb_increments_the_trip_count_and_starts_path_b() {
    let mut d = detector(1);
    d.extend(letters("A B C A B C B"));
    // ABC closed twice (at the second A and at the third B), nothing emitted yet: the
    // previous path ABC goes on with trip count 2.
    assert_eq!(path_of(&d, 0), "ABC");
    assert_eq!(d.pending(0), Some(Rep { id: 0, trips: 2 }));
    assert_eq!(d.stats(0, 0).map(|s| s.trips), Some(2));
    assert_eq!(d.emitted(0), 0);
    assert_eq!(d.closed(0), 2);
    // The new path holds B: closing the stream makes it path 1, after ABC x2.
    d.finish();
    assert_eq!(path_of(&d, 1), "B");
    let rps: Vec<Rep> = d.sequence(1, 0).unwrap().to_vec();
    assert_eq!(rps, [Rep { id: 0, trips: 2 }, Rep { id: 1, trips: 1 }]);
}

#[test]
fn abcabda_emits_abc_and_keeps_abd_as_previous() {
    let mut d = detector(0);
    d.extend(letters("A B C A B D A"));
    // The mismatch of ABD with ABC passes ABC (trip count 1) along; ABD is now previous.
    assert_eq!(d.emitted(0), 1);
    assert_eq!(d.top(), [Rep { id: 0, trips: 1 }]);
    assert_eq!(path_of(&d, 0), "ABC");
    assert_eq!(path_of(&d, 1), "ABD");
    assert_eq!(d.pending(0), Some(Rep { id: 1, trips: 1 }));
    assert_eq!(d.stats(0, 1).map(|s| s.trips), Some(1));
    d.finish();
    // The new path A follows ABD.
    assert_eq!(path_of(&d, 2), "A");
    assert_eq!(
        d.top(),
        [
            Rep { id: 0, trips: 1 },
            Rep { id: 1, trips: 1 },
            Rep { id: 2, trips: 1 }
        ]
    );
}

/// Blocks whose repeated paths are the given ones in order: path `x` is the block pair
/// `#` `x`, closed by the next `#`, so different consecutive paths are one RP each.
fn paths_stream(rps: &str) -> Vec<String> {
    letters(rps)
        .into_iter()
        .flat_map(|p| ["#".to_string(), p.to_string()])
        .collect()
}

fn stratum_of(d: &Detector<String>, id: u32) -> String {
    d.sequence(1, id)
        .unwrap_or_default()
        .iter()
        .map(|r| d.path(r.id).unwrap()[1].clone())
        .collect()
}

#[test]
fn strata_examples_over_repeated_paths() {
    // "P1 P2 P3 P1 P2 P3 P2": at the third P2 the strata P1P2P3 match: trip count 2, and
    // the new stratum is P2.
    let mut d = Detector::new(&Config {
        upper_levels: 1,
        ..Config::default()
    });
    d.extend(paths_stream("1 2 3 1 2 3 2"));
    d.finish();
    assert_eq!(stratum_of(&d, 0), "123");
    assert_eq!(d.stats(1, 0).map(|s| s.trips), Some(2));
    assert_eq!(stratum_of(&d, 1), "2");
    assert_eq!(d.top(), [Rep { id: 0, trips: 2 }, Rep { id: 1, trips: 1 }]);

    // "P1 P2 P3 P1 P2 P4 P1": the mismatch passes P1P2P3 (trip count 1) along and P1P2P4
    // becomes the previous stratum; the new one is P1.
    let mut d = Detector::new(&Config {
        upper_levels: 1,
        ..Config::default()
    });
    d.extend(paths_stream("1 2 3 1 2 4 1"));
    d.finish();
    assert_eq!(
        (stratum_of(&d, 0), stratum_of(&d, 1), stratum_of(&d, 2)),
        ("123".into(), "124".into(), "1".into())
    );
    assert_eq!(d.records().len(), 3);
    assert_eq!(d.records()[0].end_path, 3);

    // "P1 P2 P3 P1": S0 = P1 P2 P3 and S1 = P1.
    let mut d = Detector::new(&Config {
        upper_levels: 1,
        ..Config::default()
    });
    d.extend(paths_stream("1 2 3 1"));
    d.finish();
    assert_eq!(
        (stratum_of(&d, 0), stratum_of(&d, 1)),
        ("123".into(), "1".into())
    );
}

#[test]
fn table_1_segmentation() {
    // Table 1: the first three blocks A B C are Path 0, the fourth (the second B) starts
    // Path 1, and so forth.
    let mut d = detector(0);
    d.extend(letters("A B C B C D B A B C"));
    d.finish();
    let paths: Vec<String> = (0..d.distinct(0) as u32).map(|i| path_of(&d, i)).collect();
    // B C D closes at the third B, B A at the B after A, and the stream ends inside B C.
    assert_eq!(paths, ["ABC", "BCD", "BA", "BC"]);
    let top: Vec<(u32, u64)> = d.top().iter().map(|r| (r.id, r.trips)).collect();
    assert_eq!(top, [(0, 1), (1, 1), (2, 1), (3, 1)]);
}

#[test]
fn stratum_length_bound_closes_full_strata() {
    let mut d = Detector::new(&Config {
        upper_levels: 1,
        stratum_max_len: Some(4),
        ..Config::default()
    });
    d.extend(paths_stream("1 2 3 4 5 6 1 2 3 4 5 6"));
    d.finish();
    assert!((0..d.distinct(1) as u32).all(|s| d.sequence(1, s).unwrap().len() <= 4));
    assert_eq!(stratum_of(&d, 0), "1234");
    assert_eq!(d.expand().unwrap(), paths_stream("1 2 3 4 5 6 1 2 3 4 5 6"));
}

#[test]
fn heat_is_weight_times_frequency() {
    let mut d: Detector<char> = detector(2);
    // A (2 instructions, weight 5) B (3, 7), looped 10 times.
    for _ in 0..10 {
        d.push('A', 2, 5);
        d.push('B', 3, 7);
    }
    d.finish();
    let s = d.stats(0, 0).unwrap();
    assert_eq!((s.trips, s.occurrences, s.insns, s.heat), (10, 1, 5, 12));
    assert_eq!(s.hotness(), 120);
    assert_eq!((s.first_insn, s.last_insn), (0, 50));
    assert_eq!(d.instructions(), 50);
}

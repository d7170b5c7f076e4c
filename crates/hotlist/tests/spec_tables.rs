//! The spec's Table 1 (concise samples) and Table 2 (counting samples), reproduced row by
//! row with scripted coins, and the estimates the spec draws from them.

use hotlist::{Config, Hotlist, Policy, ScriptedCoins, Step};

/// The spec's input stream (both examples).
const STREAM: [u32; 32] = [
    0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 5,
];

/// One table row: the data value (None for a reduction row), the hotlist, p.
type Row = (Option<u32>, Vec<(u32, u64)>, f64);

/// Parses rows written as in the spec: `value | (v, c) (v, c) ... | p`, value `-` for the
/// rows of reduction steps.
fn rows(text: &str) -> Vec<Row> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            let value = f[0].parse().ok();
            let nums: Vec<u64> = f[1]
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            let list = nums.chunks(2).map(|c| (c[0] as u32, c[1])).collect();
            (value, list, f[2].parse().unwrap())
        })
        .collect()
}

/// Runs the stream with the scripted coins and records a row per event and per reduction.
fn replay(policy: Policy, script: &str) -> (Vec<Row>, Hotlist<u32, ScriptedCoins>) {
    let config = Config::new(3).with_factor(8.0 / 7.0).with_policy(policy);
    let mut h = Hotlist::with_coins(config, ScriptedCoins::parse(script)).unwrap();
    let mut got = vec![(None, vec![], h.probability())];
    for v in STREAM {
        h.update_observed(v, |step, h| {
            let list = h.tuples().iter().map(|t| (t.value, t.count)).collect();
            let value = (step == Step::Event).then_some(v);
            got.push((value, list, h.probability()));
        });
    }
    (got, h)
}

fn assert_rows(got: &[Row], want: &[Row]) {
    assert_eq!(got.len(), want.len(), "row count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!((g.0, &g.1), (w.0, &w.1), "row {i}");
        // The spec prints p rounded to 8 significant digits.
        assert!((g.2 - w.2).abs() < 5e-8, "row {i}: p {} vs {}", g.2, w.2);
    }
}

const TABLE_1: &str = "
- | [] | 1
0 | [(0, 1)] | 1
1 | [(0, 1), (1, 1)] | 1
0 | [(0,2), (1,1)] | 1
2 | [(0, 2), (1, 1), (2, 1)] | 1
0 | [(0, 3), (1, 1), (2, 1)] | 1
1 | [(0, 3), (1, 2), (2, 1)] | 1
0 | [(0, 4), (1, 2), (2, 1)] | 1
3 | [(0, 4), (1, 2), (2, 1), (3, 1)] | 1
- | [(0, 4), (1, 2), (2, 1), (3, 1)] | 0.875
- | [(0, 3), (1, 2), (2, 1), (3, 1)] | 0.765625
- | [(0, 3), (1, 1), (3, 1)] | 0.66992188
0 | [(0, 4), (1, 1), (3, 1)] | 0.66992188
1 | [(0, 4), (1, 2), (3, 1)] | 0.66992188
0 | [(0, 5), (1, 2), (3, 1)] | 0.66992188
2 | [(0, 5), (1, 2), (3, 1), (2, 1)] | 0.66992188
- | [(0, 5), (1, 2), (3, 1), (2, 1)] | 0.58618164
- | [(0, 5), (1, 2), (3, 1), (2, 1)] | 0.51290894
- | [(0, 4), (1, 2), (3, 1)] | 0.44879532
0 | [(0, 4), (1, 2), (3, 1)] | 0.44879532
1 | [(0, 4), (1, 2), (3, 1)] | 0.44879532
0 | [(0, 4), (1, 2), (3, 1)] | 0.44879532
4 | [(0, 4), (1, 2), (3, 1)] | 0.44879532
0 | [(0, 4), (1, 2), (3, 1)] | 0.44879532
1 | [(0, 4), (1, 2), (3, 1)] | 0.44879532
0 | [(0, 5), (1, 2), (3, 1)] | 0.44879532
2 | [(0, 5), (1, 2), (3, 1), (2, 1)] | 0.44879532
- | [(0, 5), (1, 2)] | 0.3926959
0 | [(0, 5), (1, 2)] | 0.3926959
1 | [(0, 5), (1, 3)] | 0.3926959
0 | [(0, 6), (1, 3)] | 0.3926959
3 | [(0, 6), (1, 3), (3, 1)] | 0.3926959
0 | [(0, 6), (1, 3), (3, 1)] | 0.3926959
1 | [(0, 6), (1, 4), (3, 1)] | 0.3926959
0 | [(0, 6), (1, 4), (3, 1)] | 0.3926959
2 | [(0, 6), (1, 4), (3, 1)] | 0.3926959
0 | [(0, 7), (1, 4), (3, 1)] | 0.3926959
1 | [(0, 7), (1, 4), (3, 1)] | 0.3926959
0 | [(0, 8), (1, 4), (3, 1)] | 0.3926959
5 | [(0, 8), (1, 4), (3, 1)] | 0.3926959
";

/// Coins for Table 1, in the order the flowchart of Fig. 11B flips them. Events at p = 1
/// flip no coin. A reduction flips C coins of probability 1 - 1/f = 1/8 per tuple, highest
/// count first (true = evict one event). At p < 1 each event flips one coin of probability
/// p (true = sample it); the geometric skip draws them as runs "F...FT", which is the same
/// order, and the run for the last event ends in the coin of a 33rd event never seen.
const SCRIPT_1: &str = "
    FFFF FF F F | TFFF FF F F | FFF TF T F
    T T T T
    FFFFF FF F F | FFFFF FF F F | TFFFF FF F T
    FFFFFFT T
    FFFFF FF T T
    FT T T FT FFT FT FT
";

#[test]
fn table_1_concise_samples_row_by_row() {
    let (got, h) = replay(Policy::Concise, SCRIPT_1);
    assert_rows(&got, &rows(TABLE_1));
    let coins = h.coins();
    assert!(!coins.exhausted() && coins.remaining() == 0);
    // Every coin had the probability the flowchart prescribes: 1/8 for an eviction, else
    // the p of an event (0.875^3, 0.875^6, 0.875^7: the three p at which events flipped).
    let event_ps = [0.875f64.powi(3), 0.875f64.powi(6), 0.875f64.powi(7)];
    let evictions = 8 + 8 + 7 + 9 + 9 + 9 + 9;
    let (evict, event): (Vec<f64>, Vec<f64>) = coins
        .log()
        .iter()
        .map(|&(p, _)| p)
        .partition(|&p| (p - 0.125).abs() < 1e-12);
    assert_eq!(evict.len(), evictions);
    assert!(event
        .iter()
        .all(|p| event_ps.iter().any(|q| (p - q).abs() < 1e-12)));
    // The spec: zero about 20, one about 10, three about 2 to 3.
    let est: Vec<(u32, f64)> = h.top(3).map(|(v, e)| (*v, e)).collect();
    assert_eq!(est.iter().map(|e| e.0).collect::<Vec<_>>(), [0, 1, 3]);
    assert!((est[0].1 - 20.37).abs() < 0.01, "{est:?}");
    assert!((est[1].1 - 10.19).abs() < 0.01, "{est:?}");
    assert!((2.0..=3.0).contains(&est[2].1), "{est:?}");
}

const TABLE_2: &str = "
- | [] | 1
0 | [(0, 1)] | 1
1 | [(0, 1), (1, 1)] | 1
0 | [(0, 2), (1, 1)] | 1
2 | [(0, 2), (1, 1), (2, 1)] | 1
0 | [(0, 3), (1, 1), (2, 1)] | 1
1 | [(0, 3), (1, 2), (2, 1)] | 1
0 | [(0, 4), (1, 2), (2, 1)] | 1
3 | [(0, 4), (1, 2), (2, 1), (3, 1)] | 1
- | [(0, 3), (1, 1)] | 0.875
0 | [(0, 4), (1, 1)] | 0.875
1 | [(0, 4), (1, 2)] | 0.875
0 | [(0, 5), (1, 2)] | 0.875
2 | [(0, 5), (1, 2)] | 0.875
0 | [(0, 6), (1, 2)] | 0.875
1 | [(0, 6), (1, 3)] | 0.875
0 | [(0, 7), (1, 3)] | 0.875
4 | [(0, 7), (1, 3), (4, 1)] | 0.875
0 | [(0, 8), (1, 3), (4, 1)] | 0.875
1 | [(0, 8), (1, 4), (4, 1)] | 0.875
0 | [(0, 9), (1, 4), (4, 1)] | 0.875
2 | [(0, 9), (1, 4), (4, 1)] | 0.875
0 | [(0, 10), (1, 4), (4, 1)] | 0.875
1 | [(0, 10), (1, 5), (4, 1)] | 0.875
0 | [(0, 11), (1, 5), (4, 1)] | 0.875
3 | [(0, 11), (1, 5), (4, 1), (3, 1)] | 0.875
- | [(0, 10), (1, 4)] | 0.765625
0 | [(0, 11), (1, 4)] | 0.765625
1 | [(0, 11), (1, 5)] | 0.765625
0 | [(0, 12), (1, 5)] | 0.765625
2 | [(0, 12), (1, 5), (2, 1)] | 0.765625
0 | [(0, 13), (1, 5), (2, 1)] | 0.765625
1 | [(0, 13), (1, 6), (2, 1)] | 0.765625
0 | [(0, 14), (1, 6), (2, 1)] | 0.765625
5 | [(0, 14), (1, 6), (2, 1), (5, 1)] | 0.765625
- | [(0, 11), (1, 4)] | 0.66992188
";

/// Coins for Table 2, in the order of Fig. 11A. A reduction flips, per tuple, one coin of
/// probability 1/8 (true = evict one event) and after a true, coins of probability 1 - p
/// until the first false (each true evicts one more; none once the count is 0). A value
/// not in the hotlist flips one coin of probability p (true = insert); values in it flip
/// none. The misses at events 12 and 17 (values 2, 4) are one geometric run "FT", as are
/// events 21 and 25 (2, 3).
const SCRIPT_2: &str = "
    TF TF T T
    FT
    FT
    TF TF T T
    T T
    TTTF TTF T T
";

#[test]
fn table_2_counting_samples_row_by_row() {
    let (got, h) = replay(Policy::Counting, SCRIPT_2);
    assert_rows(&got, &rows(TABLE_2));
    let coins = h.coins();
    assert!(!coins.exhausted() && coins.remaining() == 0);
    // The spec: zero about 11.5, one about 4.5 (1/0.67 + C - 1), no third value.
    assert_eq!(h.len(), 2);
    let est: Vec<(u32, f64)> = h.top(2).map(|(v, e)| (*v, e)).collect();
    assert_eq!((est[0].0, est[1].0), (0, 1));
    assert!((est[0].1 - 11.49).abs() < 0.01, "{est:?}");
    assert!((est[1].1 - 4.49).abs() < 0.01, "{est:?}");
}

/// The probabilities asked of the coin source in Table 2's replay are exactly those of
/// Fig. 11A: 1/8 for the first eviction coin of a tuple, 1 - p (new p) for the following
/// ones, p for a value not in the hotlist.
#[test]
fn table_2_coin_probabilities() {
    let (_, h) = replay(Policy::Counting, SCRIPT_2);
    let ps: Vec<f64> = h.coins().log().iter().map(|&(p, _)| p).collect();
    let e = 0.125;
    let (p1, p2, p3) = (0.875, 0.765625, 0.669921875);
    let want = [
        e,
        1.0 - p1,
        e,
        1.0 - p1,
        e,
        e, // reduction to 0.875
        p1,
        p1,
        p1,
        p1, // misses at events 12, 17, 21, 25
        e,
        1.0 - p2,
        e,
        1.0 - p2,
        e,
        e, // reduction to 0.765625
        p2,
        p2, // misses at events 29, 32
        e,
        1.0 - p3,
        1.0 - p3,
        1.0 - p3,
        e,
        1.0 - p3,
        1.0 - p3,
        e,
        e,
    ];
    assert_eq!(ps.len(), want.len());
    for (i, (g, w)) in ps.iter().zip(want).enumerate() {
        assert!((g - w).abs() < 1e-12, "coin {i}: {g} vs {w}");
    }
}

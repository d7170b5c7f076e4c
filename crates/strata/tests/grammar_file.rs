//! The grammar file: decoding what `Sequitur::encode` wrote gives a grammar of the same size
//! that expands to the input (random and loop-shaped repeated-path streams), and a file cut
//! short anywhere is an error.

use proptest::prelude::*;
use strata::grammar_file::decode;
use strata::strategies::{looped_stream, random_stream};
use strata::{Rep, Sequitur};

/// Repeated paths from small symbols: path id and trip count both taken from them, so
/// terminals repeat and new path ids come both in order and out of it.
fn reps(stream: &[u8]) -> Vec<Rep> {
    stream
        .windows(2)
        .map(|w| Rep {
            id: u32::from(w[0] % 7),
            trips: 1 + u64::from(w[1] % 3) * 1000,
        })
        .collect()
}

fn round_trip(stream: &[Rep]) -> Result<(), TestCaseError> {
    let mut g = Sequitur::new();
    for &r in stream {
        prop_assert!(g.push(r));
    }
    let bytes = g.encode();
    let back = decode(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(back.stats(), g.stats());
    prop_assert_eq!(
        back.expand()
            .map_err(|e| TestCaseError::fail(e.to_string()))?,
        stream
    );
    for cut in (0..bytes.len()).step_by(7) {
        prop_assert!(decode(&bytes[..cut]).is_err());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_streams_round_trip(stream in random_stream(5, 600)) {
        round_trip(&reps(&stream))?;
    }

    #[test]
    fn looped_streams_round_trip(stream in looped_stream(6, 6)) {
        round_trip(&reps(&stream))?;
    }
}

//! Proptest strategies: symbol streams with the nested repetition that loops produce, and
//! detector configurations.

use proptest::collection::vec;
use proptest::prelude::*;

use crate::Config;

/// A stream over `alphabet` letters built from nested repetitions: a sequence of pieces,
/// each a run of random letters or a repeated smaller stream, like the blocks of loop nests.
pub fn looped_stream(alphabet: u8, depth: u32) -> BoxedStrategy<Vec<u8>> {
    let leaf = vec(0..alphabet.max(1), 1..6).boxed();
    leaf.prop_recursive(depth, 256, 4, |inner| {
        prop_oneof![
            (inner.clone(), 1usize..5).prop_map(|(body, n)| body.repeat(n)),
            vec(inner, 1..4).prop_map(|parts| parts.concat()),
        ]
    })
    .prop_map(|mut v| {
        v.truncate(4096);
        v
    })
    .boxed()
}

/// Any stream of up to `max_len` letters over `alphabet`.
pub fn random_stream(alphabet: u8, max_len: usize) -> BoxedStrategy<Vec<u8>> {
    vec(0..alphabet.max(1), 0..max_len).boxed()
}

/// Detector configurations: 0 to 3 upper levels, optional length bounds, tiny tables (so
/// chains are deep and sort passes run), records and grammar on.
pub fn config() -> BoxedStrategy<Config> {
    (
        0usize..4,
        proptest::option::of(1usize..6),
        proptest::option::of(1usize..6),
        1usize..8,
        1u64..64,
    )
        .prop_map(
            |(upper_levels, path_max_len, stratum_max_len, buckets, sort_every)| Config {
                upper_levels,
                path_max_len,
                stratum_max_len,
                buckets,
                sort_every,
                keep_records: true,
                grammar: true,
            },
        )
        .boxed()
}

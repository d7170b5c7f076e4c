//! Proptest strategies (feature `proptest`): configurations, including invalid ones, value
//! streams with heavy hitters, and hotlists built from them.

use proptest::prelude::*;

use crate::{Config, Hotlist, Policy};

/// Any policy, including empty SatCount ranges (invalid).
pub fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        Just(Policy::Concise),
        Just(Policy::Counting),
        (0u32..8, 0u32..60).prop_map(|(min_end, max_end)| Policy::Adaptive { min_end, max_end }),
    ]
}

/// Any configuration: N from 0 to 300, factors from absurd to sensible, any margin.
/// Roughly half are invalid; `Config::validate` must reject exactly those.
pub fn config() -> impl Strategy<Value = Config> {
    let factor = prop_oneof![
        Just(None),
        (1.0f64..4.0).prop_map(Some),
        prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(1.0),
            Just(0.5),
            Just(-3.0)
        ]
        .prop_map(Some),
    ];
    let margin = prop_oneof![Just(2.0), 0.01f64..10.0, Just(0.0), Just(f64::NAN)];
    (0usize..300, factor, policy(), margin).prop_map(|(n, factor, policy, margin)| Config {
        capacity: n,
        factor,
        policy,
        old_singleton_margin: margin,
    })
}

/// A valid configuration.
pub fn valid_config() -> impl Strategy<Value = Config> {
    config().prop_filter("valid", |c| c.validate().is_ok())
}

/// A stream of up to `max_len` values: a few heavy hitters among up to 1000 light ones.
pub fn stream(max_len: usize) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(
        prop_oneof![3 => 0u64..4, 1 => 0u64..1000, 1 => any::<u64>()],
        0..max_len,
    )
}

/// A hotlist with a valid configuration and seed, fed a stream.
pub fn hotlist(max_len: usize) -> impl Strategy<Value = Hotlist<u64>> {
    (valid_config(), any::<u64>(), stream(max_len)).prop_filter_map(
        "valid config",
        |(c, seed, s)| {
            let mut h = Hotlist::with_seed(c, seed).ok()?;
            for v in s {
                h.update(v);
            }
            Some(h)
        },
    )
}

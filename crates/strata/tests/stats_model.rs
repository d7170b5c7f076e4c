//! Every level's sequences and statistics against a brute-force model of the definitions:
//! cycles of unique symbols (a full cycle closes early), consecutive equal cycles merged
//! into repeated units, which are the next level's symbols.

use proptest::prelude::*;
use strata::strategies::{config, looped_stream, random_stream};
use strata::{Config, Detector, Rep, SeqStats};

/// A symbol of one level with the instructions and weight it stands for.
#[derive(Clone)]
struct Item<T> {
    sym: T,
    insns: u64,
    weight: u64,
}

/// One level by the definitions: its sequences in order of first occurrence with their
/// statistics, and the repeated units it emits (the next level's items).
#[allow(clippy::type_complexity)]
fn level<T: Clone + PartialEq>(
    items: &[Item<T>],
    max_len: Option<usize>,
) -> (Vec<(Vec<T>, SeqStats)>, Vec<Item<Rep>>) {
    // Cycles: (symbols, first instruction, instructions, weight).
    let mut cycles: Vec<(Vec<T>, u64, u64, u64)> = Vec::new();
    let (mut cur, mut start, mut pos, mut weight) = (Vec::new(), 0, 0, 0);
    for it in items {
        if cur.contains(&it.sym) || max_len.is_some_and(|m| cur.len() >= m) {
            cycles.push((std::mem::take(&mut cur), start, pos - start, weight));
            (start, weight) = (pos, 0);
        }
        cur.push(it.sym.clone());
        pos += it.insns;
        weight += it.weight;
    }
    if !cur.is_empty() {
        cycles.push((cur, start, pos - start, weight));
    }
    let mut seqs: Vec<(Vec<T>, SeqStats)> = Vec::new();
    let mut units: Vec<Item<Rep>> = Vec::new();
    let mut prev: Option<u32> = None;
    for (syms, start, insns, weight) in cycles {
        let id = match seqs.iter().position(|(s, _)| *s == syms) {
            Some(id) => id as u32,
            None => {
                let id = seqs.len() as u32;
                let first = SeqStats {
                    id,
                    insns,
                    heat: weight,
                    first_insn: start,
                    ..SeqStats::default()
                };
                seqs.push((syms, first));
                id
            }
        };
        let s = &mut seqs[id as usize].1;
        s.trips += 1;
        s.last_insn = start + insns;
        if prev == Some(id) {
            let u = units.last_mut().expect("a previous unit");
            u.sym.trips += 1;
            u.insns += insns;
            u.weight += weight;
        } else {
            s.occurrences += 1;
            units.push(Item {
                sym: Rep { id, trips: 1 },
                insns,
                weight,
            });
        }
        prev = Some(id);
    }
    (seqs, units)
}

fn check(stream: &[u8], config: &Config) -> Result<(), TestCaseError> {
    let mut d = Detector::new(config);
    let items: Vec<Item<u8>> = stream
        .iter()
        .enumerate()
        .map(|(i, &s)| Item {
            sym: s,
            insns: u64::from(s % 3) + 1,
            weight: u64::from(s) + i as u64 % 2,
        })
        .collect();
    for it in &items {
        d.push(it.sym, it.insns, it.weight);
    }
    d.finish();
    let (paths, mut units) = level(&items, config.path_max_len);
    prop_assert_eq!(d.distinct(0), paths.len());
    for (id, (syms, stats)) in paths.iter().enumerate() {
        prop_assert_eq!(d.path(id as u32), Some(&syms[..]));
        prop_assert_eq!(d.stats(0, id as u32), Some(*stats));
    }
    for k in 1..d.levels() {
        let (seqs, next) = level(&units, config.stratum_max_len);
        prop_assert_eq!(d.distinct(k), seqs.len(), "level {}", k);
        for (id, (members, stats)) in seqs.iter().enumerate() {
            prop_assert_eq!(d.sequence(k, id as u32), Some(&members[..]));
            prop_assert_eq!(d.stats(k, id as u32), Some(*stats), "level {}", k);
        }
        units = next;
    }
    let top: Vec<Rep> = units.iter().map(|u| u.sym).collect();
    prop_assert_eq!(d.top(), &top[..]);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn statistics_match_the_model_on_looped_input(stream in looped_stream(6, 4), config in config()) {
        check(&stream, &config)?;
    }

    #[test]
    fn statistics_match_the_model_on_random_input(stream in random_stream(4, 300), config in config()) {
        check(&stream, &config)?;
    }
}

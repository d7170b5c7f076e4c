//! Property tests over generated reducible CFGs with nested loops.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use rand::SeedableRng;

use crate::plan::{HierPath, Instrumented, Mode, Weights};
use crate::runtime::Counters;
use crate::strategies::{oracle, random_walk, reducible_cfg};
use crate::{Cfg, Hierarchy, RegionTree};

/// Every source-to-sink path of a DAG (edge lists), by brute force; `None` past `cap`.
fn all_paths(n: &crate::Dag, cap: usize) -> Option<Vec<Vec<usize>>> {
    let mut out = Vec::new();
    let mut stack = vec![(n.source, Vec::new())];
    while let Some((v, path)) = stack.pop() {
        if v == n.sink {
            out.push(path);
            if out.len() > cap {
                return None;
            }
            continue;
        }
        for (e, &(a, b)) in n.edges.iter().enumerate() {
            if a == v {
                let mut p = path.clone();
                p.push(e);
                stack.push((b, p));
            }
        }
    }
    Some(out)
}

fn instrument(cfg: &Cfg, tree: RegionTree, mode: Mode, weights: &Weights) -> Instrumented {
    let hier = Hierarchy::new(cfg.clone(), tree).expect("hierarchy");
    Instrumented::new(hier, mode, weights).expect("instrumented")
}

const MODES: [Mode; 3] = [
    Mode::RegionBased,
    Mode::GlobalBased { shrink: false },
    Mode::GlobalBased { shrink: true },
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Plain Ball-Larus sums of every augmented graph are unique and exactly fill
    /// [0, NumPaths), regeneration inverts numbering, and increments keep every sum.
    #[test]
    fn sums_dense_unique_and_regenerate(cfg in reducible_cfg(4), seed: u64) {
        for tree in [
            RegionTree::flat(&cfg),
            RegionTree::loops(&cfg),
            RegionTree::try_loops_and_hammocks(&cfg).expect("a region tree"),
        ] {
            for mode in MODES {
                let inst = instrument(&cfg, tree.clone(), mode, &Weights::Estimate);
                for g in &inst.graphs {
                    let Some(paths) = all_paths(&g.dag, 20_000) else { continue };
                    prop_assert_eq!(paths.len() as u128, g.numbering.total());
                    let mut sums = BTreeSet::new();
                    let inc_weights: Vec<u64> =
                        (0..g.dag.edges.len() as u64).map(|i| i.wrapping_mul(seed) % 97).collect();
                    let inc = g.numbering.increments(&inc_weights);
                    for p in &paths {
                        let s = g.numbering.path_sum(p).unwrap();
                        prop_assert!(sums.insert(s), "duplicate sum {}", s);
                        let regen = g.numbering.regenerate(s);
                        prop_assert_eq!(regen.as_ref(), Some(p));
                        let by_inc = p.iter().fold(0u128, |a, &e| a.wrapping_add(inc[e]));
                        prop_assert_eq!(by_inc, s);
                    }
                    prop_assert_eq!(sums.into_iter().collect::<Vec<_>>(),
                        (0..paths.len() as u128).collect::<Vec<_>>());
                }
            }
        }
    }

    /// Random walks through the plan count exactly what the brute-force oracle cuts the walks
    /// into, in every mode, with estimated and with measured weights.
    #[test]
    fn plan_matches_oracle(cfg in reducible_cfg(4), seed: u64) {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let walks: Vec<Vec<_>> = (0..8).filter_map(|_| random_walk(&cfg, &mut rng, 200)).collect();
        prop_assume!(!walks.is_empty());
        // A measured edge profile from the walks themselves.
        let mut measured = vec![0u64; cfg.graph.edge_count()];
        for w in &walks {
            for p in w.windows(2) {
                if let Some(e) = cfg.graph.find_edge(p[0], p[1]) {
                    measured[e.index()] += 1;
                }
            }
        }
        for tree in [
            RegionTree::flat(&cfg),
            RegionTree::loops(&cfg),
            RegionTree::try_loops_and_hammocks(&cfg).expect("a region tree"),
        ] {
            let mut want: BTreeMap<HierPath, u64> = BTreeMap::new();
            for w in &walks {
                for (p, c) in oracle(&cfg, &tree, w) {
                    *want.entry(p).or_insert(0) += c;
                }
            }
            for mode in MODES {
                for weights in [Weights::Estimate, Weights::Measured(measured.clone())] {
                    let inst = instrument(&cfg, tree.clone(), mode, &weights);
                    // The plan with its known saved sums folded counts the same.
                    let mut folded = inst.clone();
                    folded.fold_known_saves();
                    for inst in [&inst, &folded] {
                        let mut counters = Counters::new(inst);
                        for w in &walks {
                            inst.walk(w, &mut counters).unwrap();
                        }
                        prop_assert_eq!((counters.underflow, counters.out_of_range), (0, 0));
                        let mut got: BTreeMap<HierPath, u64> = BTreeMap::new();
                        for (p, c) in counters.paths(inst).unwrap() {
                            *got.entry(p).or_insert(0) += c;
                        }
                        prop_assert_eq!(&got, &want, "mode {:?}", mode);
                    }
                }
            }
        }
    }

    /// Every hierarchical path decoded from a table is unique in it (global: in the function).
    #[test]
    fn decoded_paths_are_unique(cfg in reducible_cfg(3)) {
        let tree = RegionTree::loops(&cfg);
        for mode in MODES {
            let inst = instrument(&cfg, tree.clone(), mode, &Weights::Estimate);
            let mut seen = BTreeSet::new();
            for (t, sums) in inst.table_sums().into_iter().enumerate() {
                if sums.end - sums.start > 50_000 { continue; }
                for s in sums {
                    if let Some(p) = inst.decode(t, s) {
                        prop_assert!(seen.insert(p.clone()), "{:?} decoded twice", p);
                    } else {
                        prop_assert!(mode != Mode::RegionBased, "region-based sums are dense");
                    }
                }
            }
        }
    }
}

#[test]
fn generated_cfgs_are_not_trivial() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut loops, mut multi_exit, mut nested, mut hammocks) = (0, 0, 0, 0);
    let (mut pushes, mut folded) = (0, 0);
    for _ in 0..200 {
        let cfg = reducible_cfg(4).new_tree(&mut runner).unwrap().current();
        hammocks += RegionTree::try_loops_and_hammocks(&cfg)
            .expect("loops and hammocks form a tree")
            .regions
            .iter()
            .filter(|r| r.kind == crate::RegionKind::Hammock)
            .count();
        let tree = RegionTree::loops(&cfg);
        loops += tree.len() - 1;
        nested += tree.regions.iter().filter(|r| r.depth >= 2).count();
        let hier = Hierarchy::new(cfg, tree).unwrap();
        multi_exit += hier.classes.iter().filter(|c| c.exits.len() >= 2).count();
        let mut inst = Instrumented::new(hier, Mode::RegionBased, &Weights::Estimate).unwrap();
        pushes += inst.pushes();
        folded += inst.fold_known_saves();
    }
    eprintln!("200 CFGs: {loops} loops, {nested} nested >= 2 deep, {multi_exit} multi-level exits, {hammocks} hammocks; {folded} of {pushes} region-based pushes folded");
    assert!(loops > 100 && nested > 20 && multi_exit > 20 && hammocks > 100);
    // Folding is exercised, and not everywhere.
    assert!(folded > 20 && folded < pushes);
}

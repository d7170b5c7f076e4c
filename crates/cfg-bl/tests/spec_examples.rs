//! The worked examples of the spec (Figs. 2-10), as tests.

use std::collections::{BTreeMap, BTreeSet};

use cfg_bl::{Cfg, Counters, Hierarchy, Instrumented, Mode, RegionTree, Weights};
use petgraph::graph::NodeIndex;

/// CFG 200 (Fig. 2A): R1 = {C, D, E, F} with entries C, E, exits D, F and backedge F->C;
/// the outer region (the root here) has entries A, B and exits H, G. The edge order is
/// chosen so Ball-Larus values come out as in Figs. 3A and 4A.
fn cfg200() -> (Cfg, Vec<NodeIndex>) {
    Cfg::from_names(
        &["A", "B", "C", "D", "E", "F", "G", "H"],
        &["A", "B"],
        &[
            ("A", "C"),
            ("B", "E"),
            ("C", "D"),
            ("C", "E"),
            ("D", "H"),
            ("D", "F"),
            ("E", "F"),
            ("F", "G"),
            ("F", "C"),
        ],
        &["H", "G"],
    )
    .unwrap()
}

/// CFG 700 (Fig. 7A): R1 = {C, D, E, F} (entry C, exits D, F), R2 = {B, ..., G} (entry B,
/// exits D, G, backedge G->B), R3 the function A..I.
fn cfg700() -> (Cfg, Vec<NodeIndex>) {
    Cfg::from_names(
        &["A", "B", "C", "D", "E", "F", "G", "H", "I"],
        &["A"],
        &[
            ("A", "B"),
            ("B", "C"),
            ("C", "D"),
            ("C", "E"),
            ("D", "H"),
            ("D", "F"),
            ("E", "F"),
            ("F", "G"),
            ("G", "B"),
            ("G", "H"),
            ("H", "I"),
        ],
        &["I"],
    )
    .unwrap()
}

fn build(cfg: Cfg, regions: &[Vec<NodeIndex>], mode: Mode) -> Instrumented {
    let tree = RegionTree::from_user(&cfg, regions).unwrap();
    let hier = Hierarchy::new(cfg, tree).unwrap();
    Instrumented::new(hier, mode, &Weights::Estimate).unwrap()
}

/// Every hierarchical path of every region as `(region, rendering) -> sum`, by decoding
/// every number of every table; also checks sums are unique per table.
fn enumerate(inst: &Instrumented) -> BTreeMap<(usize, String), u128> {
    let mut out = BTreeMap::new();
    for (t, sums) in inst.table_sums().into_iter().enumerate() {
        for s in sums {
            if let Some(p) = inst.decode(t, s) {
                let key = (p.region, inst.render(&p));
                assert!(out.insert(key.clone(), s).is_none(), "{key:?} twice");
            }
        }
    }
    out
}

fn nodes(names: &[NodeIndex], walk: &str) -> Vec<NodeIndex> {
    let mut v = vec![Cfg::entry()];
    v.extend(walk.bytes().map(|c| names[(c - b'A') as usize]));
    v.push(Cfg::exit());
    v
}

#[test]
fn cfg200_region_based_paths_and_values() {
    let (cfg, n) = cfg200();
    let r1 = vec![n[2], n[3], n[4], n[5]];
    let inst = build(cfg, &[r1], Mode::RegionBased);
    let got = enumerate(&inst);
    let want: BTreeMap<(usize, String), u128> = [
        // Fig. 6A: CD=0, CDF=1, CEF=2, EF=3.
        ((1, "C D"), 0),
        ((1, "C D F"), 1),
        ((1, "C E F"), 2),
        ((1, "E F"), 3),
        // Fig. 6B: AR1H=0, AR1G=1, BR1H=2, BR1G=3.
        ((0, "A R1 H"), 0),
        ((0, "A R1 G"), 1),
        ((0, "B R1 H"), 2),
        ((0, "B R1 G"), 3),
    ]
    .into_iter()
    .map(|((r, s), v)| ((r, s.to_string()), v))
    .collect();
    assert_eq!(got, want);
    // Fig. 5 walk: A C E F C D H: paths CEF (via the backedge), CD, then A R1 H.
    let mut c = Counters::new(&inst);
    inst.walk(&nodes(&n, "ACEFCDH"), &mut c).unwrap();
    let paths: BTreeSet<String> = c
        .paths(&inst)
        .unwrap()
        .into_iter()
        .map(|(p, k)| format!("{} {}x{k}", p.region, inst.render(&p)))
        .collect();
    let want: BTreeSet<String> = ["1 C E Fx1", "1 C Dx1", "0 A R1 Hx1"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(paths, want);
}

fn cfg700_paths(shrink: bool) -> (Instrumented, Vec<NodeIndex>) {
    let (cfg, n) = cfg700();
    let r1 = vec![n[2], n[3], n[4], n[5]];
    let r2 = vec![n[1], n[2], n[3], n[4], n[5], n[6]];
    (build(cfg, &[r1, r2], Mode::GlobalBased { shrink }), n)
}

#[test]
fn cfg700_global_based_paths_are_those_of_fig_7b() {
    for shrink in [false, true] {
        let (inst, _) = cfg700_paths(shrink);
        // One numbering for the function, cut in one slice of sums per region.
        let sums = inst.table_sums();
        assert_eq!(sums.len(), 3);
        let mut cut: Vec<_> = sums.iter().map(|r| (r.start, r.end)).collect();
        cut.sort();
        assert!(cut.windows(2).all(|w| w[0].1 == w[1].0), "{cut:?}");
        assert_eq!((cut[0].0, cut[2].1), (0, inst.graphs[0].numbering.total()));
        let got: BTreeSet<(usize, String)> = enumerate(&inst).into_keys().collect();
        // Region ids (and `R<id>` labels) are numbered by size, larger first: our 1 is the
        // spec's R2 (B..G), our 2 the spec's R1 (C..F), 0 the spec's R3 (A..I). So Fig. 7B's
        // "B R1 G" renders as "B R2 G" and "A R2 H I" as "A R1 H I": labels swapped, paths same.
        let want: BTreeSet<(usize, String)> = [
            (2, "C D"),
            (2, "C D F"),
            (2, "C E F"),
            (1, "B R2"),
            (1, "B R2 G"),
            (0, "A R1 H I"),
        ]
        .into_iter()
        .map(|(r, s)| (r, s.to_string()))
        .collect();
        assert_eq!(got, want, "shrink {shrink}");
    }
}

#[test]
fn cfg700_walk_abcefghi_counts_cef_br1g_ar2hi() {
    for shrink in [false, true] {
        let (inst, n) = cfg700_paths(shrink);
        let mut c = Counters::new(&inst);
        inst.walk(&nodes(&n, "ABCEFGHI"), &mut c).unwrap();
        assert_eq!((c.underflow, c.out_of_range), (0, 0));
        let nz = c.nonzero();
        assert_eq!(nz.len(), 3, "exactly three counters");
        let paths: BTreeSet<(usize, String, u64)> = c
            .paths(&inst)
            .unwrap()
            .into_iter()
            .map(|(p, k)| (p.region, inst.render(&p), k))
            .collect();
        // The spec's CEF, BR1G and AR2HI in our labels (R1 and R2 swapped, see above).
        let want: BTreeSet<(usize, String, u64)> =
            [(2, "C E F", 1), (1, "B R2 G", 1), (0, "A R1 H I", 1)]
                .into_iter()
                .map(|(r, s, k)| (r, s.to_string(), k))
                .collect();
        assert_eq!(paths, want);
    }
}

#[test]
fn user_regions_must_nest_and_have_no_cycle_without_backedge() {
    let (cfg, n) = cfg200();
    // Overlapping without nesting.
    let err = RegionTree::from_user(&cfg, &[vec![n[2], n[3]], vec![n[3], n[4]]]);
    assert!(matches!(err, Err(cfg_bl::Error::Invalid(_))));
    // The virtual entry cannot be in a region.
    let err = RegionTree::from_user(&cfg, &[vec![Cfg::entry(), n[0]]]);
    assert!(matches!(err, Err(cfg_bl::Error::Invalid(_))));
    // A region left and re-entered without a backedge: X -> r -> Y -> r.
    let (cfg, n) = Cfg::from_names(
        &["X", "P", "Q", "Y"],
        &["X"],
        &[("X", "P"), ("P", "Q"), ("Q", "Y"), ("Y", "P"), ("Q", "P")],
        &["Y"],
    )
    .unwrap();
    // Backedges by DFS are Y->P and Q->P. The region {P, Y} is left by P->Q and re-entered
    // by Q->Y, a forward edge: its hierarchical graph R->Q->R is cyclic, so it is rejected.
    let tree = RegionTree::from_user(&cfg, &[vec![n[1], n[3]]]).unwrap();
    assert!(matches!(
        Hierarchy::new(cfg.clone(), tree),
        Err(cfg_bl::Error::Cyclic(_))
    ));
    // The loop {P, Q, Y} itself is fine.
    let tree = RegionTree::from_user(&cfg, &[vec![n[1], n[2], n[3]]]).unwrap();
    assert!(Hierarchy::new(cfg, tree).is_ok());
}

#[test]
fn path_counts_beyond_u64_are_exact_and_beyond_u128_are_errors() {
    // A chain of k diamonds has 2^k paths.
    let chain = |k: usize| {
        let names: Vec<String> = (0..=2 * k).map(|i| format!("n{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut edges = Vec::new();
        for i in 0..k {
            edges.push((refs[2 * i], refs[2 * i + 1]));
            edges.push((refs[2 * i], refs[2 * i + 2]));
            edges.push((refs[2 * i + 1], refs[2 * i + 2]));
        }
        let (cfg, _) = Cfg::from_names(&refs, &[refs[0]], &edges, &[refs[2 * k]]).unwrap();
        let tree = RegionTree::flat(&cfg);
        Instrumented::new(
            Hierarchy::new(cfg, tree).unwrap(),
            Mode::RegionBased,
            &Weights::Estimate,
        )
    };
    let inst = chain(100).unwrap();
    assert_eq!(inst.table_sizes(), vec![1u128 << 100]);
    let top = (1u128 << 100) - 1;
    // The largest sum takes every diamond's second (skipping) edge: entry, 101 blocks, exit.
    assert_eq!(inst.decode(0, top).unwrap().children.len(), 2 + 101);
    assert_eq!(inst.decode(0, 0).unwrap().children.len(), 2 + 201);
    assert!(matches!(chain(128), Err(cfg_bl::Error::Overflow)));
}

//! Agreement of a path profile with an edge profile, per region: every hierarchical edge's
//! count equals the number of times counted paths run through it, and every child's count of
//! path starts (ends) equals the count of edges entering (leaving) the region there plus
//! backedges into (out of) it.

use std::collections::BTreeMap;

use crate::cfg::Cfg;
use crate::plan::{HierPath, Instrumented};
use crate::structure::{Child, RegionId};

/// What one region-level item counts: an edge between children, a path start or a path end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Edge(Child, Child),
    Start(Child),
    End(Child),
}

/// Checks that `paths` (with counts) agree with `edge_counts` (one count per CFG edge) for
/// an instrumented CFG whose activations started `starts` times and ended `ends` times.
/// Returns the number of region-level items compared, or a description of the first
/// disagreement.
pub fn agreement(
    inst: &Instrumented,
    edge_counts: &[u64],
    starts: u64,
    ends: u64,
    paths: &[(HierPath, u64)],
) -> Result<usize, String> {
    let mut from_edges: BTreeMap<(RegionId, Item), u64> = BTreeMap::new();
    let add = |m: &mut BTreeMap<(RegionId, Item), u64>, k, n: u64| {
        if n != 0 {
            *m.entry(k).or_insert(0) += n;
        }
    };
    for (e, class) in inst.hier.classes.iter().enumerate() {
        let n = edge_counts.get(e).copied().unwrap_or(0);
        for &(r, x) in &class.exits {
            add(&mut from_edges, (r, Item::End(x)), n);
        }
        if class.back {
            add(&mut from_edges, (class.level, Item::End(class.from)), n);
            add(&mut from_edges, (class.level, Item::Start(class.to)), n);
        } else {
            add(
                &mut from_edges,
                (class.level, Item::Edge(class.from, class.to)),
                n,
            );
        }
        for &(r, c) in &class.entries {
            add(&mut from_edges, (r, Item::Start(c)), n);
        }
    }
    add(
        &mut from_edges,
        (0, Item::Start(Child::Block(Cfg::entry()))),
        starts,
    );
    add(
        &mut from_edges,
        (0, Item::End(Child::Block(Cfg::exit()))),
        ends,
    );
    let mut from_paths: BTreeMap<(RegionId, Item), u64> = BTreeMap::new();
    for (p, n) in paths {
        let (Some(&first), Some(&last)) = (p.children.first(), p.children.last()) else {
            return Err(format!("empty path in region {}", p.region));
        };
        add(&mut from_paths, (p.region, Item::Start(first)), *n);
        add(&mut from_paths, (p.region, Item::End(last)), *n);
        for w in p.children.windows(2) {
            add(&mut from_paths, (p.region, Item::Edge(w[0], w[1])), *n);
        }
    }
    if from_edges != from_paths {
        let keys: std::collections::BTreeSet<_> =
            from_edges.keys().chain(from_paths.keys()).collect();
        for k in keys {
            let (a, b) = (from_edges.get(k), from_paths.get(k));
            if a != b {
                return Err(format!(
                    "{}: region {} {:?}: edge profile {:?}, path profile {:?}",
                    inst.hier.cfg.name, k.0, k.1, a, b
                ));
            }
        }
    }
    Ok(from_edges.len())
}

//! CFG recovery over a [`CodeView`]: one CFG per function entry.
//!
//! From the entry address, instructions are followed along fall-through, branch and jump
//! targets; leaders (entry, targets, instructions after block-ending ones) start blocks.
//! Edges by how a block ends:
//!
//! | last instruction | edges |
//! |---|---|
//! | conditional branch | taken and not-taken [`EdgeKind::Flow`] |
//! | direct jump | `Flow` to the target, or [`EdgeKind::Leave`] if it is another function's entry (tail call) |
//! | call, indirect call, system call | `Flow` to the return site, and `Leave` (the program may end there: `exit`) |
//! | return, halt, undecodable | `Leave` |
//! | any block that cannot reach a `Leave` edge (an endless loop: `j .` after a bare-metal exit's store to `tohost`) | `Leave` in addition: only the program's end leaves it |
//! | indirect jump, its jump table resolved ([`CodeView::jump_tables`]) | `Flow` to each target |
//! | indirect jump, unresolved (then every indirect jump of the function is) | `Leave`, and [`EdgeKind::Resync`] edges lead from the entry to where such a jump may land, where a profile restarts: the code pointers the program holds inside the function ([`CodeView::code_pointers`], followed too) and the return sites; or, where those are not known, every instruction of the function, swept linearly over its symbol, each starting a block |
//!
//! A branch, jump or fall-through to another function's entry leaves the function. Calls are
//! recorded as [`CallSite`]s. Functions larger than [`MAX_INSNS`] instructions are cut there
//! (the cut block leaves the function).

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use foldhash::fast::FixedState;
use petgraph::graph::NodeIndex;
use prof_events::{CodeView, FlowClass, InsnInfo};

use crate::cfg::{CallSite, Cfg, EdgeKind};

/// Most instructions followed in one function.
pub const MAX_INSNS: usize = 200_000;

/// The recovered CFGs of a program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// One CFG per function, in ascending entry order.
    pub functions: Vec<Cfg>,
    /// Function index by entry address.
    pub by_entry: HashMap<u64, usize>,
}

impl Program {
    /// Recovers every function the code view lists (its symbols), plus `extra` entries (for
    /// example the ELF entry point if no symbol names it).
    pub fn recover(code: &dyn CodeView, extra: &[u64]) -> Program {
        let (entries, all) = entries(code, extra);
        let functions: Vec<Cfg> = entries
            .iter()
            .map(|&e| recover_function(code, e, &all))
            .collect();
        let by_entry = functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.addr, i))
            .collect();
        Program {
            functions,
            by_entry,
        }
    }
}

/// The functions of a program, each recovered when first asked for: the functions of
/// [`Program::recover`] (same entries, same order, same CFGs), without the cost of
/// recovering those a run never calls (most of a statically linked C library). It owns its
/// code view, so a profiler can hold it while the code runs.
pub struct LazyProgram {
    code: Box<dyn CodeView>,
    /// Entries, ascending, and their names ([`Cfg::name`]).
    functions: Vec<(u64, String)>,
    all: HashSet<u64, FixedState>,
}

impl LazyProgram {
    /// The functions of `code` (its symbols), plus `extra` entries, as for
    /// [`Program::recover`]; nothing is recovered yet.
    pub fn new(code: impl CodeView + 'static, extra: &[u64]) -> LazyProgram {
        let (entries, all) = entries(&code, extra);
        let functions = entries.iter().map(|&e| (e, name_of(&code, e))).collect();
        LazyProgram {
            code: Box::new(code),
            functions,
            all,
        }
    }

    /// Entries, ascending, and names of the functions: index `i` is the function
    /// [`Program::recover`] would put at `functions[i]`.
    pub fn functions(&self) -> &[(u64, String)] {
        &self.functions
    }

    /// The CFG of the function at `entry`, recovered now (as [`Program::recover`] recovers
    /// it).
    pub fn recover(&self, entry: u64) -> Cfg {
        recover_function(&*self.code, entry, &self.all)
    }
}

impl std::fmt::Debug for LazyProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyProgram")
            .field("functions", &self.functions.len())
            .finish_non_exhaustive()
    }
}

/// The entries of the functions `code` lists plus `extra`, ascending, where an instruction
/// decodes; and every listed entry (jumps to them leave a function).
fn entries(code: &dyn CodeView, extra: &[u64]) -> (Vec<u64>, HashSet<u64, FixedState>) {
    let mut entries: BTreeSet<u64> = code.functions().into_iter().collect();
    entries.extend(extra.iter().copied());
    let all = entries.iter().copied().collect();
    let decodes = entries
        .into_iter()
        .filter(|&e| code.insn(e).is_some())
        .collect();
    (decodes, all)
}

/// A function's name: the symbol at `entry`, or its address.
fn name_of(code: &dyn CodeView, entry: u64) -> String {
    match code.symbol(entry) {
        Some((s, 0)) => s.to_string(),
        Some((s, off)) => format!("{s}+{off:#x}"),
        None => format!("fn_{entry:#x}"),
    }
}

/// Recovers the CFG of the function at `entry`; `functions` are all function entries (jumps
/// to them leave this function).
pub fn recover_function<S: std::hash::BuildHasher>(
    code: &dyn CodeView,
    entry: u64,
    functions: &HashSet<u64, S>,
) -> Cfg {
    let foreign = |a: u64| a != entry && functions.contains(&a);
    // Phase 1: every reachable instruction and the leaders. Hash lookups while following
    // the code, then one sort: the blocks are runs of consecutive instructions, which
    // phase 2 walks in address order (ordered maps cost a tree search per instruction).
    // (Room for most functions' instructions: growing from empty rehashed them 6 times.)
    let mut insns: HashMap<u64, InsnInfo, FixedState> =
        HashMap::with_capacity_and_hasher(256, FixedState::default());
    let mut leaders: Vec<u64> = vec![entry];
    follow(code, &foreign, vec![entry], &mut insns, &mut leaders);
    // Indirect jumps: through the jump tables the code view resolves, whose targets are
    // followed too, or else (any jump not resolved) as jumps that restart paths where
    // they land: at the code pointers the program holds inside the function, where the
    // code view knows them (followed too), or else on any instruction of the function (its
    // symbol is swept linearly and every instruction starts a block).
    let mut tables = BTreeMap::new();
    // Where an unresolved jump may land (`None`: on every block).
    let mut landings: Option<Vec<u64>> = None;
    if insns.values().any(|i| i.flow == FlowClass::IndirectJump) {
        tables = code.jump_tables(entry, &foreign).unwrap_or_default();
        let targets: Vec<u64> = tables.values().flatten().copied().collect();
        leaders.extend(&targets);
        follow(code, &foreign, targets, &mut insns, &mut leaders);
        let unresolved = insns
            .iter()
            .any(|(pc, i)| i.flow == FlowClass::IndirectJump && !tables.contains_key(pc));
        if unresolved {
            tables.clear();
            let mut swept = HashMap::default();
            let end = sweep(code, entry, functions, &mut swept);
            match code.code_pointers(entry, end) {
                Some(held) => {
                    leaders.extend(&held);
                    follow(code, &foreign, held.clone(), &mut insns, &mut leaders);
                    landings = Some(held);
                }
                None => {
                    insns.extend(swept);
                    leaders.extend(insns.keys().copied());
                }
            }
        }
    }
    let mut insns: Vec<(u64, InsnInfo)> = insns.into_iter().collect();
    insns.sort_unstable_by_key(|&(pc, _)| pc);
    leaders.sort_unstable();
    leaders.dedup();
    // Phase 2: blocks from leaders, in address order; a block runs over consecutive
    // instructions up to one that ends it, a gap (an instruction not followed: cut or
    // undecodable), or the next leader.
    let mut cfg = Cfg::new(&name_of(code, entry), entry);
    let mut node_at: HashMap<u64, NodeIndex, FixedState> = HashMap::default();
    // (block, last instruction pc, its info or None when cut/undecodable, fall-through addr)
    let mut ends: Vec<(NodeIndex, u64, Option<InsnInfo>, u64)> = Vec::new();
    let is_leader = |a: u64| leaders.binary_search(&a).is_ok();
    let mut at = 0;
    for &start in &leaders {
        at += insns[at..].partition_point(|&(pc, _)| pc < start);
        if insns.get(at).is_none_or(|&(pc, _)| pc != start) {
            continue;
        }
        let mut k = at;
        let (last_pc, last, end) = loop {
            let (pc, i) = insns[k];
            let next = pc.wrapping_add(u64::from(i.len));
            // Usually the next entry; past instructions that overlap this one (a target
            // inside it) otherwise.
            let after = match insns.get(k + 1) {
                Some(&(a, _)) if a < next => {
                    k + 1 + insns[k + 1..].partition_point(|&(a, _)| a < next)
                }
                _ => k + 1,
            };
            let followed = insns.get(after).is_some_and(|&(a, _)| a == next);
            if i.flow.ends_block() || (followed && is_leader(next)) {
                break (pc, Some(i), next);
            }
            if !followed {
                break (next, None, next);
            }
            k = after;
        };
        let n = cfg.add_block(start, end, "");
        node_at.insert(start, n);
        ends.push((n, last_pc, last, end));
    }
    let mut indirect = false;
    for &(n, pc, last, next) in &ends {
        let flow_to = |cfg: &mut Cfg, a: u64| match node_at.get(&a) {
            Some(&t) if !foreign(a) => {
                cfg.graph.add_edge(n, t, EdgeKind::Flow);
            }
            _ => {
                cfg.graph.add_edge(n, Cfg::exit(), EdgeKind::Leave);
            }
        };
        match last.map(|i| i.flow) {
            None => {
                cfg.graph.add_edge(n, Cfg::exit(), EdgeKind::Leave);
            }
            Some(FlowClass::None) => flow_to(&mut cfg, next),
            Some(FlowClass::Branch { target }) => {
                flow_to(&mut cfg, next);
                flow_to(&mut cfg, target);
            }
            Some(FlowClass::Jump { target }) => flow_to(&mut cfg, target),
            Some(f @ (FlowClass::Call { .. } | FlowClass::IndirectCall | FlowClass::Syscall)) => {
                flow_to(&mut cfg, next);
                cfg.graph.add_edge(n, Cfg::exit(), EdgeKind::Leave);
                let target = match f {
                    FlowClass::Call { target } => Some(target),
                    _ => None,
                };
                if f != FlowClass::Syscall {
                    cfg.calls.push(CallSite {
                        block: n,
                        pc,
                        target,
                    });
                }
            }
            Some(FlowClass::IndirectJump) => match tables.get(&pc) {
                Some(targets) => {
                    for &t in targets {
                        flow_to(&mut cfg, t);
                    }
                }
                None => {
                    indirect = true;
                    cfg.graph.add_edge(n, Cfg::exit(), EdgeKind::Leave);
                }
            },
            Some(FlowClass::Return | FlowClass::Halt) => {
                cfg.graph.add_edge(n, Cfg::exit(), EdgeKind::Leave);
            }
        }
    }
    if let Some(&e) = node_at.get(&entry) {
        cfg.graph.add_edge(Cfg::entry(), e, EdgeKind::Start);
    }
    if indirect {
        // Landings: the held code pointers and the return sites (a call links them), or
        // every block.
        let returns: HashSet<u64> = ends
            .iter()
            .filter(|e| {
                let flow = e.2.map(|i| i.flow);
                matches!(flow, Some(FlowClass::Call { .. } | FlowClass::IndirectCall))
            })
            .map(|e| e.3)
            .collect();
        let entry_node = node_at.get(&entry).copied().unwrap_or(Cfg::entry());
        for &(n, ..) in &ends {
            let start = cfg.graph[n].start;
            let lands = landings
                .as_ref()
                .is_none_or(|held| held.binary_search(&start).is_ok() || returns.contains(&start));
            if lands && n != entry_node {
                cfg.graph.add_edge(Cfg::entry(), n, EdgeKind::Resync);
            }
        }
    }
    leave_dead_ends(&mut cfg);
    cfg
}

/// Follows the code from `work` (phase 1 of [`recover_function`]): every instruction
/// reached by fall-through, branch and jump targets that are not `foreign`, into `insns`,
/// and the blocks' leaders into `leaders`.
fn follow(
    code: &dyn CodeView,
    foreign: &dyn Fn(u64) -> bool,
    mut work: Vec<u64>,
    insns: &mut HashMap<u64, InsnInfo, FixedState>,
    leaders: &mut Vec<u64>,
) {
    while let Some(mut pc) = work.pop() {
        while insns.len() < MAX_INSNS {
            let Entry::Vacant(slot) = insns.entry(pc) else {
                break;
            };
            let Some(i) = code.insn(pc) else { break };
            slot.insert(i);
            let next = pc.wrapping_add(u64::from(i.len));
            let mut lead = |a: u64, work: &mut Vec<u64>| {
                if !foreign(a) {
                    leaders.push(a);
                    work.push(a);
                }
            };
            match i.flow {
                FlowClass::None => {
                    pc = next;
                    continue;
                }
                FlowClass::Branch { target } => {
                    lead(target, &mut work);
                    lead(next, &mut work);
                }
                FlowClass::Jump { target } => lead(target, &mut work),
                FlowClass::Call { .. } | FlowClass::IndirectCall | FlowClass::Syscall => {
                    lead(next, &mut work)
                }
                FlowClass::Return | FlowClass::IndirectJump | FlowClass::Halt => {}
            }
            break;
        }
    }
}

/// Sweeps the symbol of the function at `entry` linearly into `insns`, up to another
/// function's entry: the instructions an unresolved indirect jump may land on. Returns
/// where the sweep ended (the function's end).
fn sweep<S: std::hash::BuildHasher>(
    code: &dyn CodeView,
    entry: u64,
    functions: &HashSet<u64, S>,
    insns: &mut HashMap<u64, InsnInfo, FixedState>,
) -> u64 {
    let name = code.symbol(entry).map(|(n, _)| n.to_string());
    let mut pc = entry;
    while insns.len() < MAX_INSNS && (pc == entry || !functions.contains(&pc)) {
        let same = match (&name, code.symbol(pc)) {
            (Some(n), Some((m, _))) => n == m,
            _ => false,
        };
        let Some(i) = code.insn(pc).filter(|_| same) else {
            break;
        };
        insns.insert(pc, i);
        pc = pc.wrapping_add(u64::from(i.len));
    }
    pc
}

/// Gives every block that cannot reach the virtual exit a [`EdgeKind::Leave`] edge: code
/// that never returns, calls or leaves (`sd a5, tohost; j .` in a bare-metal `_exit`) ends
/// only with the program, by a store to a device or a trap, so, as after a call or a
/// system call, the program may end in any of its blocks.
fn leave_dead_ends(cfg: &mut Cfg) {
    let g = &cfg.graph;
    let mut reaches = vec![false; g.node_count()];
    reaches[Cfg::exit().index()] = true;
    let mut work = vec![Cfg::exit()];
    while let Some(w) = work.pop() {
        for v in g.neighbors_directed(w, petgraph::Direction::Incoming) {
            if !reaches[v.index()] {
                reaches[v.index()] = true;
                work.push(v);
            }
        }
    }
    let dead: Vec<NodeIndex> = g
        .node_indices()
        .skip(2)
        .filter(|v| !reaches[v.index()])
        .collect();
    for v in dead {
        cfg.graph.add_edge(v, Cfg::exit(), EdgeKind::Leave);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A synthetic program: 4-byte instructions at the given addresses.
    struct Code(BTreeMap<u64, FlowClass>);

    impl CodeView for Code {
        fn insn(&self, addr: u64) -> Option<InsnInfo> {
            self.0.get(&addr).map(|&flow| InsnInfo {
                len: 4,
                flow,
                accesses_memory: false,
            })
        }
        fn text(&self, _: u64) -> Option<String> {
            None
        }
        fn functions(&self) -> Vec<u64> {
            vec![0x100, 0x200]
        }
    }

    #[test]
    fn loop_call_tail_call_and_indirect_jump() {
        use FlowClass::*;
        let code = Code(BTreeMap::from([
            // f: 0x100 nop; 0x104 call g; 0x108 bnez -> 0x100; 0x10c j g (tail call)
            (0x100, None),
            (0x104, Call { target: 0x200 }),
            (0x108, Branch { target: 0x100 }),
            (0x10c, Jump { target: 0x200 }),
            // g: 0x200 jr (indirect); 0x204 ret
            (0x200, IndirectJump),
            (0x204, Return),
        ]));
        let p = Program::recover(&code, &[]);
        assert_eq!(p.functions.len(), 2);
        let f = &p.functions[p.by_entry[&0x100]];
        assert_eq!(blocks(f), [(0x100, 0x108), (0x108, 0x10c), (0x10c, 0x110)]);
        let edge = |a: usize, b: usize| {
            f.graph
                .find_edge(NodeIndex::new(a), NodeIndex::new(b))
                .map(|e| f.graph[e])
        };
        assert_eq!(edge(0, 2), Some(EdgeKind::Start));
        assert_eq!(edge(2, 3), Some(EdgeKind::Flow)); // call returns
        assert_eq!(edge(2, 1), Some(EdgeKind::Leave)); // program may end in the callee
        assert_eq!(edge(3, 2), Some(EdgeKind::Flow)); // loop
        assert_eq!(edge(4, 1), Some(EdgeKind::Leave)); // tail call
        assert_eq!(f.calls.len(), 1);
        assert_eq!(f.calls[0].target, Some(0x200));
        let tree = crate::RegionTree::loops(f);
        assert_eq!(tree.len(), 2);
        // g's indirect jump: only its entry block is reachable, resync edges cover it.
        let g = &p.functions[p.by_entry[&0x200]];
        assert_eq!(g.node_count(), 3);
    }

    /// `[start, end)` of each block of `f`, in node order.
    fn blocks(f: &Cfg) -> Vec<(u64, u64)> {
        f.graph
            .node_indices()
            .skip(2)
            .map(|n| (f.graph[n].start, f.graph[n].end))
            .collect()
    }

    /// [`Code`] whose code view resolves the jump tables `tables` (of every function), and
    /// knows the code pointers `pointers` (of every function).
    struct Switch(Code, Option<BTreeMap<u64, Vec<u64>>>, Option<Vec<u64>>);

    impl CodeView for Switch {
        fn insn(&self, addr: u64) -> Option<InsnInfo> {
            self.0.insn(addr)
        }
        fn text(&self, _: u64) -> Option<String> {
            None
        }
        fn symbol(&self, addr: u64) -> Option<(&str, u64)> {
            (0x100..0x118).contains(&addr).then(|| ("f", addr - 0x100))
        }
        fn functions(&self) -> Vec<u64> {
            vec![0x100]
        }
        fn jump_tables(&self, _: u64, _: &dyn Fn(u64) -> bool) -> Option<BTreeMap<u64, Vec<u64>>> {
            self.1.clone()
        }
        fn code_pointers(&self, _: u64, _: u64) -> Option<Vec<u64>> {
            self.2.clone()
        }
    }

    #[test]
    fn a_resolved_jump_table_gives_flow_edges_and_an_unresolved_one_resyncs_where_it_may_land() {
        use FlowClass::*;
        // 0x100 nop; 0x104 jr (cases 0x108, 0x110); 0x108 nop; 0x10c ret;
        // 0x110 bnez -> 0x100; 0x114 ret.
        let code = || {
            Code(BTreeMap::from([
                (0x100, None),
                (0x104, IndirectJump),
                (0x108, None),
                (0x10c, Return),
                (0x110, Branch { target: 0x100 }),
                (0x114, Return),
            ]))
        };
        let tables = BTreeMap::from([(0x104, vec![0x108, 0x110])]);
        let f = recover_function(
            &Switch(code(), Some(tables), Option::None),
            0x100,
            &HashSet::<u64>::from([0x100]),
        );
        assert_eq!(
            blocks(&f),
            [
                (0x100, 0x108),
                (0x108, 0x110),
                (0x110, 0x114),
                (0x114, 0x118)
            ]
        );
        let kinds = |from: usize| -> Vec<(usize, EdgeKind)> {
            let mut v: Vec<_> = f
                .graph
                .edges(NodeIndex::new(from))
                .map(|e| (petgraph::visit::EdgeRef::target(&e).index(), *e.weight()))
                .collect();
            v.sort_by_key(|&(t, _)| t);
            v
        };
        assert_eq!(kinds(2), [(3, EdgeKind::Flow), (4, EdgeKind::Flow)]);
        assert_eq!(kinds(0), [(2, EdgeKind::Start)]);
        // Unresolved: every instruction starts a block, each entered from the entry.
        let f = recover_function(
            &Switch(code(), Option::None, Option::None),
            0x100,
            &HashSet::<u64>::from([0x100]),
        );
        assert_eq!(f.node_count(), 2 + 6);
        let resyncs = |f: &Cfg| -> Vec<u64> {
            let mut to: Vec<u64> = f
                .graph
                .edge_indices()
                .filter(|&e| f.graph[e] == EdgeKind::Resync)
                .filter_map(|e| Some(f.graph[f.graph.edge_endpoints(e)?.1].start))
                .collect();
            to.sort_unstable();
            to
        };
        assert_eq!(resyncs(&f), [0x104, 0x108, 0x10c, 0x110, 0x114]);
        // Unresolved, with the code pointers known: the code from the entry and from the
        // one pointer (0x110), entered there only.
        let f = recover_function(
            &Switch(code(), Option::None, Some(vec![0x110])),
            0x100,
            &HashSet::<u64>::from([0x100]),
        );
        assert_eq!(blocks(&f), [(0x100, 0x108), (0x110, 0x114), (0x114, 0x118)]);
        assert_eq!(resyncs(&f), [0x110]);
    }

    #[test]
    fn blocks_that_cannot_leave_get_an_exit_edge() {
        use FlowClass::*;
        // A bare-metal _exit: 0x100 store (no flow); 0x104 j 0x104.
        let code = Code(BTreeMap::from([
            (0x100, None),
            (0x104, Jump { target: 0x104 }),
        ]));
        let p = Program::recover(&code, &[]);
        let f = &p.functions[p.by_entry[&0x100]];
        let edges: Vec<(usize, usize, EdgeKind)> = f
            .graph
            .edge_indices()
            .filter_map(|e| {
                let (a, b) = f.graph.edge_endpoints(e)?;
                Some((a.index(), b.index(), f.graph[e]))
            })
            .collect();
        assert!(edges.contains(&(2, 3, EdgeKind::Flow)), "{edges:?}");
        assert!(edges.contains(&(3, 3, EdgeKind::Flow)), "{edges:?}");
        assert!(edges.contains(&(2, 1, EdgeKind::Leave)), "{edges:?}");
        assert!(edges.contains(&(3, 1, EdgeKind::Leave)), "{edges:?}");
        // A function that returns gains nothing.
        let code = Code(BTreeMap::from([(0x100, None), (0x104, Return)]));
        let p = Program::recover(&code, &[]);
        let f = &p.functions[p.by_entry[&0x100]];
        let leaves = f
            .graph
            .edge_weights()
            .filter(|&&k| k == EdgeKind::Leave)
            .count();
        assert_eq!(leaves, 1);
    }
}

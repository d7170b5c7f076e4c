//! Jump tables: the targets of the indirect jumps a function's `switch`es compile to.
//!
//! GCC compiles a dense `switch` to a bounds check and a jump through a table in read-only
//! data (for RV64, of 32-bit offsets from the table's start):
//!
//! ```text
//! li    t3, 4              # the largest case
//! auipc a6, 0x40           # a6 = the table
//! addi  a6, a6, -184
//! bltu  t3, a0, default    # a0 > 4: the default case
//! slli  a0, a0, 2
//! add   a4, a0, a6
//! lw    a4, 0(a4)
//! add   a4, a4, a6
//! jr    a4
//! ```
//!
//! [`resolve`] finds the targets without matching that sequence: it follows the function's
//! code from its entry with, for each register, the values it may hold there (a set of at
//! most [`MAX_VALUES`], or any value), as a forward data-flow analysis to a fixed point.
//! Constants come from `lui`, `auipc` and `li`; a branch bounds what it compares on each
//! of its edges (`a0 <= 4` where `bltu t3, a0` falls through); arithmetic maps the sets;
//! a load from read-only data reads each address; an indirect jump's targets are the
//! values of its register, and the analysis goes on at each. A function is resolved only
//! if every indirect jump it reaches has a bounded set of targets inside it, so that no
//! unresolved jump could enter code the analysis followed with narrower values.
//!
//! What it assumes of the code, as any static recovery of compiled code does: the function
//! is entered only at its entry, a call returns to the instruction after it with the
//! callee-saved registers (`sp`, `gp`, `tp`, `s0`-`s11`) as they were (the psABI's
//! convention) and every other register changed, and read-only data does not change. A
//! sink that follows the run still sees every transfer the program makes, so a target the
//! analysis missed shows as a transfer to no successor, never as a wrong count.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::block::decode_fetched;
use crate::elf::ElfImage;
use crate::insn::{Insn, Op};

/// Values a register may hold that the analysis keeps apart, at most: a larger set is
/// any value. Sized for the tables of real programs (glibc's largest in the bundled
/// guests has 33 entries).
pub(crate) const MAX_VALUES: usize = 64;

/// Instructions followed in one function, at most: past them the function is not
/// resolved (its indirect jumps restart paths). Each instruction followed keeps up to 32
/// sets of [`MAX_VALUES`] values, so this bounds the analysis's memory on hostile code (a
/// `switch` of real code lies in a function of a few thousand instructions at most).
const MAX_INSNS: usize = 20_000;

/// Times an instruction's values may grow before the registers that still grow there are
/// taken as any value: a loop's counter would otherwise grow one value per pass.
const WIDEN_AFTER: u32 = 4;

/// Registers the psABI lets a callee change: `ra`, `t0`-`t2`, `a0`-`a7`, `t3`-`t6`.
const CALLER_SAVED: [usize; 16] = [1, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31];

/// The program a function is resolved in.
pub(crate) trait Code {
    /// The instruction at `pc`, if it decodes.
    fn insn(&self, pc: u64) -> Option<Insn>;

    /// The `len` bytes (1, 2, 4 or 8) at `addr`, little-endian, if they lie in memory the
    /// program cannot write.
    fn read_only(&self, addr: u64, len: u8) -> Option<u64>;
}

impl Code for ElfImage {
    fn insn(&self, pc: u64) -> Option<Insn> {
        decode_fetched(|a| self.fetch_u16(a), pc).ok()
    }

    fn read_only(&self, addr: u64, len: u8) -> Option<u64> {
        ElfImage::read_only(self, addr, len)
    }
}

/// What a register may hold at one point of the code.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Val {
    /// Any value.
    Any,
    /// One of these, ascending, at least one and at most [`MAX_VALUES`]. Shared: every
    /// instruction followed copies the registers, and most of them pass on unchanged.
    Set(Rc<[u64]>),
}

impl Val {
    fn one(v: u64) -> Val {
        Val::Set(Rc::new([v]))
    }

    /// The set of `values`, or any value if they are too many.
    fn of(values: Vec<u64>) -> Val {
        set_of(values).map_or(Val::Any, |s| Val::Set(s.into()))
    }

    /// `0..n`, or any value if that is too many.
    fn below(n: u64) -> Val {
        if n == 0 || n > MAX_VALUES as u64 {
            Val::Any
        } else {
            Val::Set((0..n).collect())
        }
    }

    fn map(&self, f: impl Fn(u64) -> u64) -> Val {
        match self {
            Val::Any => Val::Any,
            Val::Set(s) => Val::of(s.iter().map(|&v| f(v)).collect()),
        }
    }

    fn map2(&self, other: &Val, f: impl Fn(u64, u64) -> u64) -> Val {
        match (self, other) {
            (Val::Set(a), Val::Set(b)) if a.len() * b.len() <= MAX_VALUES => Val::of(
                a.iter()
                    .flat_map(|&x| b.iter().map(move |&y| (x, y)))
                    .map(|(x, y)| f(x, y))
                    .collect(),
            ),
            _ => Val::Any,
        }
    }

    /// The values either may hold.
    fn join(&self, other: &Val) -> Val {
        match (self, other) {
            // (Usually one holds the other: the join keeps it, shared.)
            (Val::Set(a), Val::Set(b)) if contains(a, b) => self.clone(),
            (Val::Set(a), Val::Set(b)) if contains(b, a) => other.clone(),
            (Val::Set(a), Val::Set(b)) => Val::of(a.iter().chain(b.iter()).copied().collect()),
            _ => Val::Any,
        }
    }
}

/// Whether ascending `outer` holds every value of ascending `inner`.
fn contains(outer: &[u64], inner: &[u64]) -> bool {
    let mut rest = outer.iter();
    inner.len() <= outer.len() && inner.iter().all(|v| rest.any(|o| o == v))
}

/// `values` ascending without repeats, if at most [`MAX_VALUES`] of them (the values of a
/// [`Val::Set`]).
fn set_of(mut values: Vec<u64>) -> Option<Vec<u64>> {
    values.sort_unstable();
    values.dedup();
    (values.len() <= MAX_VALUES).then_some(values)
}

/// Each integer register's values (`x0` always 0).
type Regs = Vec<Val>;

fn sext32(v: u64) -> u64 {
    v as u32 as i32 as i64 as u64
}

/// The values of `insn`'s destination after it runs at `pc` with `r`, read-only data read
/// through `code`.
fn result(code: &dyn Code, insn: &Insn, pc: u64, r: &Regs) -> Val {
    let imm = insn.imm as i64 as u64;
    let (a, b) = (&r[usize::from(insn.rs1)], &r[usize::from(insn.rs2)]);
    let shamt = (insn.imm & 63) as u32;
    let load = |len: u8, signed: bool| match a {
        Val::Any => Val::Any,
        Val::Set(s) => {
            let mut out = Vec::with_capacity(s.len());
            for &base in s.iter() {
                let Some(v) = code.read_only(base.wrapping_add(imm), len) else {
                    return Val::Any;
                };
                let bits = 8 * u32::from(len);
                out.push(if signed && bits < 64 {
                    ((v << (64 - bits)) as i64 >> (64 - bits)) as u64
                } else {
                    v
                });
            }
            Val::of(out)
        }
    };
    match insn.op {
        Op::Lui => Val::one(imm),
        Op::Auipc => Val::one(pc.wrapping_add(imm)),
        Op::Addi => a.map(|x| x.wrapping_add(imm)),
        Op::Addiw => a.map(|x| sext32(x.wrapping_add(imm))),
        Op::Xori => a.map(|x| x ^ imm),
        Op::Ori => a.map(|x| x | imm),
        // Any value masked by a few bits: every combination of them (the mask's submasks,
        // each the one before less one, masked).
        Op::Andi if *a == Val::Any && imm.count_ones() <= MAX_VALUES.ilog2() => {
            let mut submasks = vec![imm];
            while let Some(&m) = submasks.last().filter(|&&m| m != 0) {
                submasks.push((m - 1) & imm);
            }
            Val::of(submasks)
        }
        Op::Andi => a.map(|x| x & imm),
        Op::Slli => a.map(|x| x << shamt),
        Op::Srli => a.map(|x| x >> shamt),
        Op::Srai => a.map(|x| ((x as i64) >> shamt) as u64),
        Op::Slliw => a.map(|x| sext32(x << (shamt & 31))),
        Op::Add => a.map2(b, u64::wrapping_add),
        Op::Sub => a.map2(b, u64::wrapping_sub),
        Op::Addw => a.map2(b, |x, y| sext32(x.wrapping_add(y))),
        Op::And => a.map2(b, |x, y| x & y),
        Op::Or => a.map2(b, |x, y| x | y),
        Op::Xor => a.map2(b, |x, y| x ^ y),
        Op::Sll => a.map2(b, |x, y| x << (y & 63)),
        Op::Srl => a.map2(b, |x, y| x >> (y & 63)),
        Op::Lb => load(1, true),
        Op::Lbu => load(1, false),
        Op::Lh => load(2, true),
        Op::Lhu => load(2, false),
        Op::Lw => load(4, true),
        Op::Lwu => load(4, false),
        Op::Ld => load(8, false),
        _ => Val::Any,
    }
}

/// A branch's condition on `(rs1, rs2)`.
fn condition(op: Op) -> Option<fn(u64, u64) -> bool> {
    Some(match op {
        Op::Beq => |x, y| x == y,
        Op::Bne => |x, y| x != y,
        Op::Blt => |x, y| (x as i64) < (y as i64),
        Op::Bge => |x, y| (x as i64) >= (y as i64),
        Op::Bltu => |x, y| x < y,
        Op::Bgeu => |x, y| x >= y,
        _ => return None,
    })
}

/// The registers on the edge of branch `insn` where its condition is `holds`, or `None`
/// if no values they may hold take that edge (any other instruction: as they are).
fn refine(insn: &Insn, holds: bool, r: &Regs) -> Option<Regs> {
    let Some(cond) = condition(insn.op) else {
        return Some(r.clone());
    };
    let test = |x: u64, y: u64| cond(x, y) == holds;
    let (i, j) = (usize::from(insn.rs1), usize::from(insn.rs2));
    let (a, b) = (&r[i], &r[j]);
    let (a2, b2) = match (a, b) {
        (Val::Set(xs), Val::Set(ys)) => {
            let keep_a: Vec<u64> = xs
                .iter()
                .copied()
                .filter(|&x| ys.iter().any(|&y| test(x, y)))
                .collect();
            let keep_b: Vec<u64> = ys
                .iter()
                .copied()
                .filter(|&y| xs.iter().any(|&x| test(x, y)))
                .collect();
            if keep_a.is_empty() {
                return None;
            }
            (Val::Set(keep_a.into()), Val::Set(keep_b.into()))
        }
        // Any value against one: unsigned bounds and equality bound it.
        (Val::Any, Val::Set(ys)) if ys.len() == 1 => {
            (bound(insn.op, holds, ys[0], true), b.clone())
        }
        (Val::Set(xs), Val::Any) if xs.len() == 1 => {
            (a.clone(), bound(insn.op, holds, xs[0], false))
        }
        _ => return Some(r.clone()),
    };
    let mut out = r.clone();
    // (Both may be one register: then they agree.)
    if i != 0 {
        out[i] = a2;
    }
    if j != 0 && j != i {
        out[j] = b2;
    }
    Some(out)
}

/// What any value `x` is on the edge where `x op c` (`left`) or `c op x` is `holds`.
fn bound(op: Op, holds: bool, c: u64, left: bool) -> Val {
    // As an unsigned `x < c` (or `c < x`) that holds or not, if not an equality.
    let less = match (op, holds) {
        (Op::Bltu, h) => h,
        (Op::Bgeu, h) => !h,
        (Op::Beq, true) | (Op::Bne, false) => return Val::one(c),
        _ => return Val::Any,
    };
    match (left, less) {
        // x < c
        (true, true) => Val::below(c),
        // c >= x, that is x <= c
        (false, false) => Val::below(c.wrapping_add(1)),
        _ => Val::Any,
    }
}

/// The registers after a call returns: the callee-saved ones as they were.
fn after_call(r: &Regs) -> Regs {
    let mut out = r.clone();
    for i in CALLER_SAVED {
        out[i] = Val::Any;
    }
    out
}

/// The targets of every indirect jump reached from the function at `entry` without a
/// transfer to where `leaves` holds (another function's entry: a tail call), by the jump's
/// address, each ascending; `None` if one of them is not resolved (see the module docs).
pub(crate) fn resolve(
    code: &dyn Code,
    entry: u64,
    leaves: &dyn Fn(u64) -> bool,
) -> Option<BTreeMap<u64, Vec<u64>>> {
    let inside = |pc: u64| pc == entry || !leaves(pc);
    let mut start: Regs = vec![Val::Any; 32];
    start[0] = Val::one(0);
    let mut at: HashMap<u64, (Regs, u32)> = HashMap::new();
    at.insert(entry, (start, 0));
    let mut work = vec![entry];
    let mut jumps = BTreeMap::new();
    while let Some(pc) = work.pop() {
        if at.len() > MAX_INSNS {
            return None;
        }
        let insn = code.insn(pc)?;
        let mut r = at[&pc].0.clone();
        let next = pc.wrapping_add(u64::from(insn.len));
        // A jump that links a register other than a link register (`jal t1, f`) is no
        // call, but it still writes the return address.
        let rd = usize::from(insn.rd);
        if matches!(insn.op, Op::Jal | Op::Jalr) && (1..32).contains(&rd) {
            r[rd] = Val::one(next);
        }
        let mut out: Vec<(u64, Regs)> = Vec::new();
        match insn.op {
            Op::Jal | Op::Jalr if matches!(insn.rd, 1 | 5) => out.push((next, after_call(&r))),
            Op::Jal => out.push((pc.wrapping_add(insn.imm as i64 as u64), r)),
            // A return.
            Op::Jalr if matches!(insn.rs1, 1 | 5) => {}
            Op::Jalr => {
                let Val::Set(base) = &r[usize::from(insn.rs1)] else {
                    return None;
                };
                let targets = set_of(
                    base.iter()
                        .map(|b| b.wrapping_add(insn.imm as i64 as u64) & !1)
                        .collect(),
                )?;
                if !targets.iter().all(|&t| inside(t)) {
                    return None;
                }
                out.extend(targets.iter().map(|&t| (t, r.clone())));
                jumps.insert(pc, targets);
            }
            Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
                let target = pc.wrapping_add(insn.imm as i64 as u64);
                out.extend(refine(&insn, true, &r).map(|r| (target, r)));
                out.extend(refine(&insn, false, &r).map(|r| (next, r)));
            }
            Op::Ecall => {
                r[10] = Val::Any;
                r[11] = Val::Any;
                out.push((next, r));
            }
            Op::Ebreak | Op::Illegal => {}
            Op::Mret => return None,
            _ => {
                if crate::exec::writes_xreg(insn.op) && (1..32).contains(&rd) {
                    r[rd] = result(code, &insn, pc, &r);
                }
                out.push((next, r));
            }
        }
        for (to, r) in out {
            if !inside(to) {
                continue;
            }
            match at.get_mut(&to) {
                None => {
                    at.insert(to, (r, 0));
                    work.push(to);
                }
                Some((old, grew)) => {
                    let mut changed = false;
                    for (o, n) in old.iter_mut().zip(&r) {
                        let j = o.join(n);
                        if j != *o {
                            *o = if *grew >= WIDEN_AFTER { Val::Any } else { j };
                            changed = true;
                        }
                    }
                    if changed {
                        *grew += 1;
                        work.push(to);
                    }
                }
            }
        }
    }
    Some(jumps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A join is the set of the values either holds, whether or not one holds the
        /// other (then it keeps that one).
        #[test]
        fn a_join_is_the_union(
            a in proptest::collection::vec(0u64..40, 1..30),
            b in proptest::collection::vec(0u64..40, 1..30),
            overlap in any::<bool>(),
        ) {
            let b = if overlap { a[..a.len() / 2 + 1].to_vec() } else { b };
            let union = Val::of(a.iter().chain(&b).copied().collect());
            prop_assert_eq!(Val::of(a.clone()).join(&Val::of(b.clone())), union.clone());
            prop_assert_eq!(Val::of(b).join(&Val::of(a)), union);
        }
    }

    /// A synthetic program: instructions by address, and read-only words.
    #[derive(Default)]
    struct Prog {
        insns: BTreeMap<u64, Insn>,
        data: BTreeMap<u64, u32>,
    }

    impl Code for Prog {
        fn insn(&self, pc: u64) -> Option<Insn> {
            self.insns.get(&pc).copied()
        }

        fn read_only(&self, addr: u64, len: u8) -> Option<u64> {
            (len == 4).then(|| self.data.get(&addr).map(|&w| u64::from(w)))?
        }
    }

    const ENTRY: u64 = 0x1000;
    const TABLE: u64 = 0x2000;
    const RA: u8 = 1;
    const S1: u8 = 9;
    const A0: u8 = 10;
    const A2: u8 = 12;
    const A4: u8 = 14;
    const A5: u8 = 15;
    const A6: u8 = 16;
    const T3: u8 = 28;

    fn op(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Insn {
        Insn {
            op,
            rd,
            rs1,
            rs2,
            rs3: 0,
            rm: 0,
            len: 4,
            imm,
        }
    }

    /// `prefix` (each 4 bytes) from the entry, then the table's jump through `base`
    /// (`slli a0, a0, 2; add a4, a0, base; lw a4, 0(a4); add a4, a4, base; jr a4`), then
    /// five cases and a default, each a return, the table's words pointing at the cases;
    /// the cases' addresses.
    fn program(prefix: &[Insn], base: u8) -> (Prog, Vec<u64>) {
        let mut p = Prog::default();
        let mut pc = ENTRY;
        let jump = [
            op(Op::Slli, A0, A0, 0, 2),
            op(Op::Add, A4, A0, base, 0),
            op(Op::Lw, A4, A4, 0, 0),
            op(Op::Add, A4, A4, base, 0),
            op(Op::Jalr, 0, A4, 0, 0),
        ];
        for &i in prefix.iter().chain(&jump) {
            p.insns.insert(pc, i);
            pc += 4;
        }
        let cases: Vec<u64> = (0..5).map(|k| pc + 4 * k).collect();
        for k in 0..6 {
            p.insns.insert(pc + 4 * k, op(Op::Jalr, 0, RA, 0, 0));
        }
        for (k, &c) in cases.iter().enumerate() {
            p.data
                .insert(TABLE + 4 * k as u64, c.wrapping_sub(TABLE) as u32);
        }
        (p, cases)
    }

    /// `li t3, 4; auipc base; addi base, base, off` (the table's address), then `head`,
    /// then `bltu t3, a0, default` (the default is the last return).
    fn bounded(head: &[Insn], base: u8) -> Vec<Insn> {
        let mut v = vec![op(Op::Addi, T3, 0, 0, 4), op(Op::Auipc, base, 0, 0, 0x1000)];
        let auipc = ENTRY + 4;
        v.push(op(
            Op::Addi,
            base,
            base,
            0,
            (TABLE as i64 - (auipc + 0x1000) as i64) as i32,
        ));
        v.extend_from_slice(head);
        let bltu = ENTRY + 4 * v.len() as u64;
        // The default: past the jump (5), the cases (5), at the sixth return.
        let default = bltu + 4 * (1 + 5 + 5);
        v.push(op(Op::Bltu, 0, T3, A0, (default - bltu) as i32));
        v
    }

    fn resolve_in(p: &Prog) -> Option<BTreeMap<u64, Vec<u64>>> {
        resolve(p, ENTRY, &|a| a == 0x9000)
    }

    #[test]
    fn a_bounded_table_resolves_to_its_cases() {
        let (p, cases) = program(&bounded(&[], A6), A6);
        let tables = resolve_in(&p).expect("resolved");
        assert_eq!(tables.into_values().collect::<Vec<_>>(), [cases]);
    }

    #[test]
    fn an_unbounded_index_leaves_the_function_unresolved() {
        let mut prefix = bounded(&[], A6);
        prefix.pop();
        let (p, _) = program(&prefix, A6);
        assert_eq!(resolve_in(&p), None);
    }

    #[test]
    fn a_table_in_writable_memory_is_not_read() {
        let (mut p, _) = program(&bounded(&[], A6), A6);
        p.data.clear();
        assert_eq!(resolve_in(&p), None);
    }

    #[test]
    fn a_call_keeps_only_the_callee_saved_registers() {
        // (The bound is set again after the call: t3 is the callee's to change too.)
        let call = [op(Op::Jal, RA, 0, 0, 0x8000), op(Op::Addi, T3, 0, 0, 4)];
        let (p, _) = program(&bounded(&call, A6), A6);
        assert_eq!(resolve_in(&p), None, "a6 is the callee's to change");
        let (p, cases) = program(&bounded(&call, S1), S1);
        let tables = resolve_in(&p).expect("s1 survives the call");
        assert_eq!(tables.into_values().collect::<Vec<_>>(), [cases]);
    }

    #[test]
    fn a_mask_bounds_the_index() {
        // andi a0, a2, 3: cases 0 to 3 only.
        let mut prefix = bounded(&[op(Op::Andi, A0, A2, 0, 3)], A6);
        prefix.pop();
        let (p, cases) = program(&prefix, A6);
        let tables = resolve_in(&p).expect("resolved");
        assert_eq!(
            tables.into_values().collect::<Vec<_>>(),
            [cases[..4].to_vec()]
        );
    }

    #[test]
    fn a_target_outside_the_function_or_another_jump_unresolved_fails_it() {
        let (mut p, cases) = program(&bounded(&[], A6), A6);
        p.data
            .insert(TABLE + 8, 0x9000u64.wrapping_sub(TABLE) as u32);
        assert_eq!(resolve_in(&p), None, "a case at another function's entry");
        // The second case jumps through a register the code never sets.
        let (mut p, _) = program(&bounded(&[], A6), A6);
        p.insns.insert(cases[1], op(Op::Jalr, 0, A5, 0, 0));
        assert_eq!(resolve_in(&p), None);
    }

    #[test]
    fn a_function_past_the_bound_is_not_resolved() {
        // (The code runs past 0x9000, which `resolve_in` takes for another function.)
        let nops = vec![op(Op::Addi, 0, 0, 0, 0); MAX_INSNS];
        let (p, _) = program(&bounded(&nops, A6), A6);
        assert_eq!(resolve(&p, ENTRY, &|_| false), None);
        let (p, cases) = program(&bounded(&nops[..MAX_INSNS - 100], A6), A6);
        let tables = resolve(&p, ENTRY, &|_| false).expect("resolved");
        assert_eq!(tables.into_values().collect::<Vec<_>>(), [cases]);
    }

    #[test]
    fn a_loop_widens_what_grows_and_keeps_the_constants() {
        // auipc/addi a6; li a2, 0; loop: addi a2, a2, 1; andi a0, a2, 3; the jump, whose
        // second case (a2 = 1, the first pass's) goes back to the loop: a2 grows by one a
        // pass, a6 stays.
        let head = [
            op(Op::Addi, A2, 0, 0, 0),
            op(Op::Addi, A2, A2, 0, 1),
            op(Op::Andi, A0, A2, 0, 3),
        ];
        let mut prefix = bounded(&head, A6);
        prefix.pop();
        let (mut p, cases) = program(&prefix, A6);
        let loop_head = ENTRY + 16;
        let back = (loop_head as i64 - cases[1] as i64) as i32;
        p.insns.insert(cases[1], op(Op::Jal, 0, 0, 0, back));
        let tables = resolve_in(&p).expect("resolved");
        assert_eq!(
            tables.into_values().collect::<Vec<_>>(),
            [cases[..4].to_vec()]
        );
    }
}

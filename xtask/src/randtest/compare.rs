//! Comparing two runs of a program: exit status, and the dumped registers, fcsr and
//! scratch buffer, field by field.

use super::exec::Outcome;
use super::gen::{Loc, Program, DUMP_F, DUMP_FCSR, DUMP_X, OUTPUT_LEN, SCRATCH};
use std::fmt::Write as _;

/// One differing piece of state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// What differs: `x5`, `f3`, `fcsr`, `mem[0x18..0x20]`, `exit status`, `stdout`.
    pub name: String,
    /// The state it is, for finding the unit that last wrote it.
    pub loc: Option<Loc>,
    /// qemu's value, readable.
    pub qemu: String,
    /// Ours, readable.
    pub ours: String,
}

fn word(bytes: &[u8], off: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(s) = bytes.get(off..off + 8) {
        w.copy_from_slice(s);
    }
    u64::from_le_bytes(w)
}

/// A raw FP register with its value as a NaN-boxed single or as a double.
fn fp_text(v: u64) -> String {
    if v >> 32 == 0xffff_ffff {
        format!("{v:#018x} (s {:e})", f32::from_bits(v as u32))
    } else {
        format!("{v:#018x} (d {:e})", f64::from_bits(v))
    }
}

fn fcsr_text(v: u64) -> String {
    let flags: Vec<&str> = ["NX", "UF", "OF", "DZ", "NV"]
        .iter()
        .enumerate()
        .filter(|(i, _)| v >> i & 1 == 1)
        .map(|(_, n)| *n)
        .collect();
    format!("{v:#x} (frm {} fflags {})", v >> 5 & 7, flags.join("|"))
}

/// The differences between qemu's run `q` and ours `e`; empty when they agree.
pub fn compare(q: &Outcome, e: &Outcome) -> Vec<Difference> {
    let mut d = Vec::new();
    let mut push = |name: String, loc, qemu: String, ours: String| {
        if qemu != ours {
            d.push(Difference {
                name,
                loc,
                qemu,
                ours,
            });
        }
    };
    push(
        "exit status".into(),
        None,
        q.status.to_string(),
        e.status.to_string(),
    );
    if q.stdout.len() != OUTPUT_LEN || e.stdout.len() != OUTPUT_LEN {
        push(
            "stdout".into(),
            None,
            format!("{} bytes", q.stdout.len()),
            format!("{} bytes", e.stdout.len()),
        );
        if q.stdout != e.stdout && q.stdout.len() == e.stdout.len() {
            push("stdout".into(), None, "bytes".into(), "other bytes".into());
        }
        return d;
    }
    let (qb, eb) = (&q.stdout, &e.stdout);
    for i in 1..32u8 {
        let off = DUMP_X + 8 * (usize::from(i) - 1);
        push(
            format!("x{i}"),
            Some(Loc::X(i)),
            format!("{:#018x}", word(qb, off)),
            format!("{:#018x}", word(eb, off)),
        );
    }
    for i in 0..32u8 {
        let off = DUMP_F + 8 * usize::from(i);
        push(
            format!("f{i}"),
            Some(Loc::F(i)),
            fp_text(word(qb, off)),
            fp_text(word(eb, off)),
        );
    }
    push(
        "fcsr".into(),
        Some(Loc::Fcsr),
        fcsr_text(word(qb, DUMP_FCSR)),
        fcsr_text(word(eb, DUMP_FCSR)),
    );
    for off in (0..SCRATCH).step_by(8) {
        // Narrow the reported range to the differing bytes of this word.
        let differ: Vec<usize> = (off..off + 8).filter(|&i| qb[i] != eb[i]).collect();
        if let (Some(&lo), Some(&hi)) = (differ.first(), differ.last()) {
            let hex = |b: &[u8]| {
                b.iter()
                    .rev()
                    .fold(String::new(), |s, x| s + &format!("{x:02x}"))
            };
            push(
                format!("mem[{lo:#x}..{:#x}]", hi + 1),
                Some(Loc::Mem {
                    off: lo as u16,
                    len: (hi + 1 - lo) as u16,
                }),
                hex(&qb[lo..=hi]),
                hex(&eb[lo..=hi]),
            );
        }
    }
    d
}

/// The index of the last kept unit that may write `loc` (statically: a branch may have
/// skipped it).
pub fn last_writer(p: &Program, keep: &[bool], loc: Loc) -> Option<usize> {
    (0..p.units.len()).rev().find(|&i| {
        keep.get(i).copied().unwrap_or(true) && p.units[i].writes.iter().any(|w| w.covers(loc))
    })
}

/// A readable report of `diffs`, naming the unit that last wrote each differing field.
pub fn report(p: &Program, keep: &[bool], diffs: &[Difference], stderr: &str) -> String {
    let mut s = String::new();
    for d in diffs {
        let _ = writeln!(
            s,
            "  {:<16} qemu {}\n  {:<16} ours {}",
            d.name, d.qemu, "", d.ours
        );
        if let Some(i) = d.loc.and_then(|l| last_writer(p, keep, l)) {
            let _ = writeln!(
                s,
                "  {:<16} last written by unit {i} [{}]: {}",
                "",
                p.units[i].class,
                p.units[i].lines.join("; ")
            );
        } else if d.loc.is_some() {
            let tail = if p.trap.is_some() {
                " or the trap tail"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "  {:<16} not written by any unit (initial value{tail})",
                ""
            );
        }
    }
    if !stderr.trim().is_empty() {
        let _ = writeln!(s, "  our stderr: {}", stderr.trim());
    }
    s
}

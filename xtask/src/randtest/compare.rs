//! Comparing two runs of a program: exit status, the register records of the checkpoints,
//! and the final area (scratch buffer, last record, fflags log), field by field.

use super::exec::Outcome;
use super::gen::{Loc, Program, AREA, LOG, LOG_LEN, RECORD, RECORD_LEN, SCRATCH};
use std::fmt::Write as _;

/// One differing piece of state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// What differs: `x5`, `f3`, `fcsr`, `mem[0x18..0x20]`, `fflags log[3]`,
    /// `exit status`, `stdout`.
    pub name: String,
    /// The state it is, for finding the unit that last wrote it.
    pub loc: Option<Loc>,
    /// Units before this index ran when the state was recorded.
    pub before: usize,
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

fn flags_text(v: u64) -> String {
    let names: Vec<&str> = ["NX", "UF", "OF", "DZ", "NV"]
        .iter()
        .enumerate()
        .filter(|(i, _)| v >> i & 1 == 1)
        .map(|(_, n)| *n)
        .collect();
    names.join("|")
}

fn fcsr_text(v: u64) -> String {
    format!("{v:#x} (frm {} fflags {})", v >> 5 & 7, flags_text(v))
}

/// A run's output split into checkpoint records and the final area.
struct Output<'a> {
    records: Vec<&'a [u8]>,
    area: &'a [u8],
}

fn split(stdout: &[u8]) -> Option<Output<'_>> {
    let n = stdout.len().checked_sub(AREA)?;
    if !n.is_multiple_of(RECORD_LEN) {
        return None;
    }
    Some(Output {
        records: stdout[..n].chunks(RECORD_LEN).collect(),
        area: &stdout[n..],
    })
}

/// Collects differences, skipping equal values.
struct Diffs(Vec<Difference>);

impl Diffs {
    fn push(&mut self, name: String, loc: Option<Loc>, before: usize, q: String, e: String) {
        if q != e {
            self.0.push(Difference {
                name,
                loc,
                before,
                qemu: q,
                ours: e,
            });
        }
    }

    /// Compares two register records (tag, x1..x31, f0..f31, fcsr).
    fn record(&mut self, q: &[u8], e: &[u8], prefix: &str, before: usize) {
        for i in 1..32u8 {
            let off = 8 * usize::from(i);
            let hex = |b: &[u8]| format!("{:#018x}", word(b, off));
            self.push(
                format!("{prefix}x{i}"),
                Some(Loc::X(i)),
                before,
                hex(q),
                hex(e),
            );
        }
        for i in 0..32u8 {
            let off = 8 * (32 + usize::from(i));
            let (qv, ev) = (fp_text(word(q, off)), fp_text(word(e, off)));
            self.push(format!("{prefix}f{i}"), Some(Loc::F(i)), before, qv, ev);
        }
        let (qv, ev) = (fcsr_text(word(q, 8 * 64)), fcsr_text(word(e, 8 * 64)));
        self.push(format!("{prefix}fcsr"), Some(Loc::Fcsr), before, qv, ev);
    }
}

/// The differences between qemu's run `q` and ours `e` of a program with `units` units;
/// empty when they agree. Only the first differing checkpoint is compared in detail
/// (later ones mostly repeat it); the final area always is.
pub fn compare(q: &Outcome, e: &Outcome, units: usize) -> Vec<Difference> {
    let mut d = Diffs(Vec::new());
    d.push(
        "exit status".into(),
        None,
        units,
        q.status.to_string(),
        e.status.to_string(),
    );
    let (Some(qo), Some(eo)) = (split(&q.stdout), split(&e.stdout)) else {
        d.push(
            "stdout".into(),
            None,
            units,
            format!("{} bytes", q.stdout.len()),
            format!("{} bytes", e.stdout.len()),
        );
        return d.0;
    };
    let tags = |o: &Output<'_>| -> Vec<u64> { o.records.iter().map(|r| word(r, 0)).collect() };
    let (qt, et) = (tags(&qo), tags(&eo));
    d.push(
        "checkpoints".into(),
        None,
        units,
        format!("{qt:?}"),
        format!("{et:?}"),
    );
    for (qr, er) in qo.records.iter().zip(&eo.records) {
        if qr != er && word(qr, 0) == word(er, 0) {
            let tag = word(qr, 0);
            let before = usize::try_from(tag).unwrap_or(usize::MAX);
            d.record(qr, er, &format!("@{tag} "), before);
            break;
        }
    }
    let (qa, ea) = (qo.area, eo.area);
    d.record(&qa[RECORD..], &ea[RECORD..], "", units);
    for off in (0..SCRATCH).step_by(8) {
        // Narrow the reported range to the differing bytes of this word.
        let differ: Vec<usize> = (off..off + 8).filter(|&i| qa[i] != ea[i]).collect();
        if let (Some(&lo), Some(&hi)) = (differ.first(), differ.last()) {
            let hex = |b: &[u8]| {
                b.iter()
                    .rev()
                    .fold(String::new(), |s, x| s + &format!("{x:02x}"))
            };
            d.push(
                format!("mem[{lo:#x}..{:#x}]", hi + 1),
                Some(Loc::Mem {
                    off: lo as u16,
                    len: (hi + 1 - lo) as u16,
                }),
                units,
                hex(&qa[lo..=hi]),
                hex(&ea[lo..=hi]),
            );
        }
    }
    for slot in 0..LOG_LEN {
        let (qv, ev) = (qa[LOG + slot], ea[LOG + slot]);
        d.push(
            format!("fflags log[{slot}]"),
            Some(Loc::Log(slot as u16)),
            units,
            format!("{qv:#04x} {}", flags_text(qv.into())),
            format!("{ev:#04x} {}", flags_text(ev.into())),
        );
    }
    d.0
}

/// The index of the last kept unit before `before` that may write `loc` (statically: a
/// branch may have skipped it).
pub fn last_writer(p: &Program, keep: &[bool], loc: Loc, before: usize) -> Option<usize> {
    (0..before.min(p.units.len())).rev().find(|&i| {
        keep.get(i).copied().unwrap_or(true) && p.units[i].writes.iter().any(|w| w.covers(loc))
    })
}

/// A readable report of `diffs`, naming the unit that last wrote each differing field.
/// Fields named `@N x5` were recorded by the checkpoint before unit N.
pub fn report(p: &Program, keep: &[bool], diffs: &[Difference], stderr: &str) -> String {
    let mut s = String::new();
    for d in diffs {
        let _ = writeln!(s, "  {:<18} qemu {}", d.name, d.qemu);
        let _ = writeln!(s, "  {:<18} ours {}", "", d.ours);
        if let Some(i) = d.loc.and_then(|l| last_writer(p, keep, l, d.before)) {
            let u = &p.units[i];
            let _ = writeln!(
                s,
                "  {:<18} last written by unit {i} [{}]: {}",
                "",
                u.class,
                u.lines.join("; ")
            );
        } else if d.loc.is_some() {
            let tail = if p.trap.is_some() {
                " or the trap tail"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "  {:<18} not written by any unit (initial value{tail})",
                ""
            );
        }
    }
    if !stderr.trim().is_empty() {
        let _ = writeln!(s, "  our stderr: {}", stderr.trim());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output with one checkpoint record (tag 20) and the final area.
    fn output(status: i32) -> Outcome {
        let mut stdout = vec![0u8; RECORD_LEN + AREA];
        stdout[0] = 20;
        stdout[RECORD_LEN + RECORD] = 40;
        Outcome {
            status,
            stdout,
            stderr: String::new(),
        }
    }

    fn names(d: &[Difference]) -> Vec<&str> {
        d.iter().map(|d| d.name.as_str()).collect()
    }

    #[test]
    fn equal_runs_have_no_differences() {
        assert!(compare(&output(0), &output(0), 40).is_empty());
    }

    #[test]
    fn fields_of_checkpoints_area_and_log_are_named() {
        let (q, mut e) = (output(0), output(132));
        e.stdout[8 * 5 + 1] = 1; // x5 in the checkpoint
        e.stdout[RECORD_LEN + RECORD + 8 * 64] = 0x10; // final fcsr: NV
        e.stdout[RECORD_LEN + 0x13] = 7; // scratch byte 0x13
        e.stdout[RECORD_LEN + LOG + 2] = 1; // log slot 2: NX
        let d = compare(&q, &e, 40);
        assert_eq!(
            names(&d),
            [
                "exit status",
                "@20 x5",
                "fcsr",
                "mem[0x13..0x14]",
                "fflags log[2]"
            ]
        );
        assert_eq!(d[1].before, 20);
        assert_eq!(d[4].ours, "0x01 NX");
    }

    #[test]
    fn truncated_output_is_a_length_difference() {
        let (q, mut e) = (output(0), output(0));
        e.stdout.truncate(100);
        assert_eq!(names(&compare(&q, &e, 40)), ["stdout"]);
    }

    #[test]
    fn a_skipped_checkpoint_is_reported() {
        let (q, mut e) = (output(0), output(0));
        e.stdout.drain(..RECORD_LEN);
        assert_eq!(names(&compare(&q, &e, 40)), ["checkpoints"]);
    }
}

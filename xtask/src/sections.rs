//! Where a run's instructions go in the compiled code: a callgrind profile taken with
//! `--dump-instr=yes` gives each executed host instruction's count, and the emulator's perf
//! map names each stretch of compiled code (`isa-emu 0x10a3c event superblock probe
//! return`, see isa-emu's `jit::perf_map`); together they give the instructions of each
//! kind of stretch (the guest's code, its exits, each probe kind), and of the native code
//! (the emulator's run loop, the sink, set-up) as one more.

use std::collections::{BTreeMap, HashMap};

/// The name of the native code's share.
pub const NATIVE: &str = "(native code: run loop, sink, set-up)";

/// Per host instruction address, its own count of executed instructions (`Ir`, calls'
/// inclusive costs left out), from a callgrind profile written with `--dump-instr=yes`.
/// Fails unless the counts add up to the profile's `summary:` line.
pub fn parse_callgrind(text: &str) -> Result<HashMap<u64, u64>, String> {
    let mut costs: HashMap<u64, u64> = HashMap::new();
    let (mut addr, mut line) = (0u64, 0u64);
    let (mut positions_ok, mut summary, mut call_cost_next) = (false, None, false);
    for (n, l) in text.lines().enumerate() {
        let bad = || format!("callgrind profile line {}: cannot read `{l}`", n + 1);
        if let Some(p) = l.strip_prefix("positions:") {
            positions_ok = p.split_whitespace().eq(["instr", "line"]);
            continue;
        }
        if let Some(s) = l.strip_prefix("summary:") {
            summary = Some(s.trim().parse::<u64>().map_err(|_| bad())?);
            continue;
        }
        if l.starts_with("calls=") {
            // The next cost line is the call's inclusive cost, not the caller's own.
            call_cost_next = true;
            continue;
        }
        if !l.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            continue;
        }
        if !positions_ok {
            return Err("the callgrind profile has no `positions: instr line` \
                        (run callgrind with --dump-instr=yes)"
                .into());
        }
        let mut fields = l.split_whitespace();
        let (Some(a), Some(li)) = (fields.next(), fields.next()) else {
            return Err(bad());
        };
        addr = position(a, addr).ok_or_else(bad)?;
        line = position(li, line).ok_or_else(bad)?;
        let ir = match fields.next() {
            Some(c) => c.parse::<u64>().map_err(|_| bad())?,
            None => 0,
        };
        if std::mem::take(&mut call_cost_next) {
            continue;
        }
        *costs.entry(addr).or_default() += ir;
    }
    let total: u64 = costs.values().sum();
    match summary {
        Some(s) if s == total => Ok(costs),
        Some(s) => Err(format!(
            "the callgrind profile's counts add up to {total}, its summary says {s}"
        )),
        None => Err("the callgrind profile has no `summary:` line".into()),
    }
}

/// A callgrind position: absolute (`0x1f`, `31`), relative to the last (`+4`, `-2`), or the
/// same (`*`).
fn position(s: &str, last: u64) -> Option<u64> {
    let number = |t: &str| match t.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    };
    match s.as_bytes().first()? {
        b'*' => Some(last),
        b'+' => last.checked_add(number(&s[1..])?),
        b'-' => last.checked_sub(number(&s[1..])?),
        _ => number(s),
    }
}

/// A perf map's stretches (`START SIZE NAME`, hexadecimal), sorted by start.
pub fn parse_map(text: &str) -> Result<Vec<(u64, u64, String)>, String> {
    let mut stretches = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.splitn(3, ' ');
            let hex = |t: Option<&str>| t.and_then(|t| u64::from_str_radix(t, 16).ok());
            match (hex(f.next()), hex(f.next()), f.next()) {
                (Some(start), Some(size), Some(name)) => Ok((start, size, name.to_owned())),
                _ => Err(format!("perf map: cannot read `{l}`")),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    stretches.sort();
    Ok(stretches)
}

/// The kind of stretch a perf map name gives, without the guest pc and whether the code is
/// a block's or an event superblock's: `isa-emu 0x10a3c event superblock probe return` is
/// `probe return`.
fn kind(name: &str) -> &str {
    let rest = name.strip_prefix("isa-emu ").unwrap_or(name);
    let rest = rest.split_once(' ').map_or(rest, |(_, r)| r);
    rest.strip_prefix("event superblock ")
        .or_else(|| rest.strip_prefix("block "))
        .unwrap_or(rest)
}

/// The counts of `costs` per kind of stretch of `map` ([`NATIVE`] for addresses outside
/// the compiled code).
pub fn by_kind(costs: &HashMap<u64, u64>, map: &[(u64, u64, String)]) -> BTreeMap<String, u64> {
    let mut kinds = BTreeMap::new();
    for (&addr, &ir) in costs {
        let i = map.partition_point(|&(start, _, _)| start <= addr);
        let name = match i.checked_sub(1).and_then(|i| map.get(i)) {
            Some((start, size, name)) if addr - start < *size => kind(name),
            _ => NATIVE,
        };
        *kinds.entry(name.to_owned()).or_default() += ir;
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative and repeated positions, a call whose inclusive cost is left out, and the
    /// summary check.
    const PROFILE: &str = "\
version: 1
positions: instr line
events: Ir
summary: 17

fn=(1) a
0x1000 3 4
+4 * 2
calls=1 0x2000 7
* * 100
-2 4 1
fn=(2) b
0x2000 7 10
";

    #[test]
    fn callgrind_counts_are_per_instruction_without_calls() {
        let costs = parse_callgrind(PROFILE).unwrap();
        let mut v: Vec<_> = costs.into_iter().collect();
        v.sort();
        assert_eq!(v, [(0x1000, 4), (0x1002, 1), (0x1004, 2), (0x2000, 10)]);
    }

    #[test]
    fn a_profile_that_does_not_add_up_or_has_no_instructions_fails() {
        let wrong = PROFILE.replace("summary: 17", "summary: 117");
        assert!(parse_callgrind(&wrong).unwrap_err().contains("117"));
        let lines_only = PROFILE.replace("instr line", "line");
        assert!(parse_callgrind(&lines_only)
            .unwrap_err()
            .contains("--dump-instr"));
        assert!(parse_callgrind("positions: instr line\n0x10 1 zz\n").is_err());
    }

    #[test]
    fn counts_go_to_the_kind_of_stretch_they_fall_in() {
        let map = parse_map(
            "1004 4 isa-emu 0x10a3c event superblock probe return\n\
             1000 4 isa-emu 0x10a3c block body\n",
        )
        .unwrap();
        assert_eq!(map[0].0, 0x1000);
        let costs = parse_callgrind(PROFILE).unwrap();
        let kinds: Vec<_> = by_kind(&costs, &map).into_iter().collect();
        assert_eq!(
            kinds,
            [
                (NATIVE.to_owned(), 10),
                ("body".to_owned(), 5),
                ("probe return".to_owned(), 2)
            ]
        );
        assert!(parse_map("10 zz name\n").is_err());
    }
}

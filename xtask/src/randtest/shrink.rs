//! Delta debugging of a failing program: delete units, in halving chunks and then one at a
//! time until no single deletion keeps the failure, so what remains is 1-minimal.

/// Shrinks the kept set `keep` (initially all true) while `fails(keep)` holds; `fails` is
/// called at most `budget` times. Returns the number of trials made.
pub fn shrink(keep: &mut [bool], budget: usize, mut fails: impl FnMut(&[bool]) -> bool) -> usize {
    let mut trials = 0;
    let mut chunk = keep.len().div_ceil(2).max(1);
    loop {
        let mut changed = false;
        let mut start = 0;
        while start < keep.len() {
            let end = (start + chunk).min(keep.len());
            if keep[start..end].iter().any(|&k| k) {
                if trials == budget {
                    return trials;
                }
                let saved: Vec<bool> = keep[start..end].to_vec();
                keep[start..end].fill(false);
                trials += 1;
                if fails(keep) {
                    changed = true;
                } else {
                    keep[start..end].copy_from_slice(&saved);
                }
            }
            start = end;
        }
        if chunk > 1 {
            chunk = chunk.div_ceil(2);
        } else if !changed {
            return trials;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_two_units_that_together_fail() {
        let mut keep = vec![true; 100];
        shrink(&mut keep, 10_000, |k| k[17] && k[80]);
        let left: Vec<usize> = (0..100).filter(|&i| keep[i]).collect();
        assert_eq!(left, [17, 80]);
    }

    #[test]
    fn stops_at_the_budget() {
        let mut keep = vec![true; 100];
        assert_eq!(shrink(&mut keep, 5, |_| false), 5);
        assert!(keep.iter().all(|&k| k));
    }
}

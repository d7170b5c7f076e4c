//! The initial process stack, laid out as Linux's `create_elf_tables` (fs/binfmt_elf.c)
//! does for a static executable.
//!
//! From the top of the stack down:
//! ```text
//! [8 zero bytes]                      bprm->p starts one pointer below the top
//! execfn string                       copied first (AT_EXECFN)
//! envp strings, argv strings          envp[n-1] highest, argv[0] lowest
//! (align down to 16)                  arch_align_stack, without randomisation
//! 16 random bytes                     AT_RANDOM
//! (padding)                           STACK_ROUND: the final sp is 16-byte aligned
//! auxv pairs, AT_NULL last
//! NULL, envp[n-1] .. envp[0]
//! NULL, argv[argc-1] .. argv[0]
//! argc                                <- sp
//! ```
//! The auxiliary vector carries the entries in the kernel's order; there is no vDSO
//! (`AT_SYSINFO_EHDR` absent), so the C library makes real clock system calls.

use crate::memory::{MemFault, Memory};

pub(crate) const AT_NULL: u64 = 0;
pub(crate) const AT_PHDR: u64 = 3;
pub(crate) const AT_PHENT: u64 = 4;
pub(crate) const AT_PHNUM: u64 = 5;
pub(crate) const AT_PAGESZ: u64 = 6;
pub(crate) const AT_BASE: u64 = 7;
pub(crate) const AT_FLAGS: u64 = 8;
pub(crate) const AT_ENTRY: u64 = 9;
pub(crate) const AT_UID: u64 = 11;
pub(crate) const AT_EUID: u64 = 12;
pub(crate) const AT_GID: u64 = 13;
pub(crate) const AT_EGID: u64 = 14;
pub(crate) const AT_HWCAP: u64 = 16;
pub(crate) const AT_CLKTCK: u64 = 17;
pub(crate) const AT_SECURE: u64 = 23;
pub(crate) const AT_RANDOM: u64 = 25;
pub(crate) const AT_EXECFN: u64 = 31;

/// `AT_HWCAP` for RV64IMAFDC: one bit per single-letter extension, bit (letter - 'A').
pub(crate) const HWCAP_RV64IMAFDC: u64 = {
    let mut bits = 0;
    let letters = *b"IMAFDC";
    let mut i = 0;
    while i < letters.len() {
        bits |= 1 << (letters[i] - b'A');
        i += 1;
    }
    bits
};

/// What goes on the stack besides the strings.
pub(crate) struct StackInfo<'a> {
    pub args: &'a [Vec<u8>],
    pub env: &'a [Vec<u8>],
    pub execfn: &'a [u8],
    pub random: [u8; 16],
    /// `(type, value)` pairs before `AT_RANDOM`/`AT_EXECFN` are filled in; see [`auxv`].
    pub auxv: Vec<(u64, u64)>,
}

/// Bytes of strings and tables `info` needs, for the `E2BIG` check.
pub(crate) fn needed_bytes(info: &StackInfo<'_>) -> u64 {
    let strings: usize = info
        .args
        .iter()
        .chain(info.env)
        .map(|s| s.len() + 1)
        .sum::<usize>()
        + info.execfn.len()
        + 1;
    let words = 1 + info.args.len() + 1 + info.env.len() + 1 + 2 * (info.auxv.len() + 3);
    (strings + 8 * words + 8 + 16 + 32) as u64
}

/// The auxiliary vector in the kernel's order. `AT_RANDOM` and `AT_EXECFN` carry
/// placeholders that [`build`] fills in with the addresses it chooses.
pub(crate) fn auxv(
    phdr: u64,
    phent: u16,
    phnum: u16,
    entry: u64,
    uid: u32,
    gid: u32,
) -> Vec<(u64, u64)> {
    vec![
        (AT_HWCAP, HWCAP_RV64IMAFDC),
        (AT_PAGESZ, super::mm::PAGE),
        (AT_CLKTCK, 100),
        (AT_PHDR, phdr),
        (AT_PHENT, u64::from(phent)),
        (AT_PHNUM, u64::from(phnum)),
        (AT_BASE, 0),
        (AT_FLAGS, 0),
        (AT_ENTRY, entry),
        (AT_UID, u64::from(uid)),
        (AT_EUID, u64::from(uid)),
        (AT_GID, u64::from(gid)),
        (AT_EGID, u64::from(gid)),
        (AT_SECURE, 0),
        (AT_RANDOM, 0),
        (AT_EXECFN, 0),
    ]
}

/// Writes the stack below `top` and returns the initial sp.
pub(crate) fn build(mem: &mut Memory, top: u64, info: &StackInfo<'_>) -> Result<u64, MemFault> {
    let fault = MemFault {
        addr: top,
        size: 0,
        kind: crate::memory::AccessKind::Store,
    };
    let mut p = top.checked_sub(8).ok_or(fault)?;
    mem.store_u::<8>(p, 0)?;
    let mut push_str = |p: &mut u64, s: &[u8]| -> Result<u64, MemFault> {
        *p = p.checked_sub(s.len() as u64 + 1).ok_or(fault)?;
        mem.write_bytes(*p, s)?;
        mem.store_u::<1>(*p + s.len() as u64, 0)?;
        Ok(*p)
    };
    let execfn = push_str(&mut p, info.execfn)?;
    let mut env_ptrs = Vec::with_capacity(info.env.len());
    for s in info.env.iter().rev() {
        env_ptrs.push(push_str(&mut p, s)?);
    }
    env_ptrs.reverse();
    let mut arg_ptrs = Vec::with_capacity(info.args.len());
    for s in info.args.iter().rev() {
        arg_ptrs.push(push_str(&mut p, s)?);
    }
    arg_ptrs.reverse();
    p &= !15;
    p = p.checked_sub(16).ok_or(fault)?;
    let random = p;
    mem.write_bytes(random, &info.random)?;

    let mut words: Vec<u64> = Vec::new();
    words.push(info.args.len() as u64);
    words.extend(&arg_ptrs);
    words.push(0);
    words.extend(&env_ptrs);
    words.push(0);
    for &(key, value) in &info.auxv {
        let value = match key {
            AT_RANDOM => random,
            AT_EXECFN => execfn,
            _ => value,
        };
        words.extend([key, value]);
    }
    words.extend([AT_NULL, 0]);
    let sp = p.checked_sub(8 * words.len() as u64).ok_or(fault)? & !15;
    for (i, w) in words.iter().enumerate() {
        mem.store_u::<8>(sp + 8 * i as u64, *w)?;
    }
    Ok(sp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hwcap_has_the_letters_linux_reports_for_rv64gc() {
        // Linux on an RV64GC hart reports 0x112d (I M A F D C).
        assert_eq!(HWCAP_RV64IMAFDC, 0x112d);
    }
}

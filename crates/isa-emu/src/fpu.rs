//! PLACEHOLDER (uncommitted)
use crate::insn::Op;
pub fn execute(_op: Op, _a: u64, _b: u64, _c: u64, _rm: u8, _f: &mut u8) -> u64 {
    0
}
pub fn writes_xreg(_op: Op) -> bool {
    false
}
pub fn reads_xreg(_op: Op) -> bool {
    false
}
pub fn uses_rm(_op: Op) -> bool {
    false
}

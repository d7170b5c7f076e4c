//! The random program generator.
//!
//! A program is a prologue that loads every register and the FP control state from a
//! random table, a list of *units* (one instruction, or a few that must stay together,
//! such as `lr`/`sc` or a CSR write followed by its `frm` repair), and an epilogue. Every
//! unit is preceded by its own label, which stays when the shrinker deletes the unit, so
//! branches (always forward, to a later unit's label) stay valid in every reduced program.
//!
//! Output (stdout): before every [`CHECKPOINT_EVERY`]th unit a register record (tag = the
//! unit's index, x1..x31, f0..f31, fcsr; [`RECORD_LEN`] bytes), then at the end the whole
//! [`AREA`] behind the base register: the scratch buffer, the final record and the fflags
//! log. Half of the FP units that may raise flags read and clear fflags afterwards and
//! store the flags into the next byte of the log, so flags are compared per instruction
//! rather than only accumulated.
//!
//! Invariants that keep programs legal and deterministic:
//! - x8 (the base register) and x2 (sp) both point at the scratch buffer and are never
//!   written (`c.addi16sp` is always undone in the same unit); memory offsets keep every
//!   access inside the [`SCRATCH`]-byte buffer.
//! - `frm` always holds a valid rounding mode (0..=4) between units, so a `dyn` operation
//!   never traps: a unit that may write an invalid `frm` reads it back and then repairs
//!   it with `fsrmi`. Illegal instructions are deliberately not generated.
//! - Branches and jumps only go forward, so there are no loops.
//!
//! The one deliberate trap: one program in eight ends with a [`TrapTail`]: after the units
//! it writes an invalid `frm` (5..=7) and runs an FP operation with a static rounding mode
//! (which must not trap; its result is in the dump), writes the dump, and then runs an
//! operation with `dyn` rounding, which must raise an illegal-instruction exception: under
//! qemu-user SIGILL kills the process, exit status 132.

use super::values::{fp_value, int_value};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::fmt::Write as _;

/// Size in bytes of the scratch buffer that loads and stores use.
pub const SCRATCH: usize = 512;
/// Offset (from the base register) of the register record that checkpoints fill and write.
pub const RECORD: usize = SCRATCH;
/// A register record: a tag (the index of the next unit), x1..x31, f0..f31 raw, fcsr.
pub const RECORD_LEN: usize = 8 + 31 * 8 + 32 * 8 + 8;
/// Offset of the fflags log: one byte per logged FP unit, the flags it raised.
pub const LOG: usize = RECORD + RECORD_LEN;
/// The area behind the base register ends where 12-bit offsets stop reaching.
pub const AREA: usize = 2048;
/// Bytes in the fflags log.
pub const LOG_LEN: usize = AREA - LOG;
/// Units between two checkpoints. A checkpoint writes the register record to stdout, so
/// a wrong result is seen even when a later instruction overwrites it.
pub const CHECKPOINT_EVERY: usize = 20;
/// Values in the read-only pool of fresh values that `reload` units load, so that
/// registers do not all end up NaN or zero in a long program.
const POOL_LEN: usize = 64;

/// A piece of guest state, for telling which unit last wrote what differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// Integer register.
    X(u8),
    /// FP register.
    F(u8),
    /// fcsr (frm and fflags).
    Fcsr,
    /// Byte `0` of the fflags log.
    Log(u16),
    /// Bytes `off..off + len` of the scratch buffer.
    Mem {
        /// First byte.
        off: u16,
        /// Length in bytes.
        len: u16,
    },
}

impl Loc {
    /// Whether writing `self` may change `other`.
    pub fn covers(self, other: Loc) -> bool {
        match (self, other) {
            (Loc::Mem { off, len }, Loc::Mem { off: o2, len: l2 }) => {
                off < o2 + l2 && o2 < off + len
            }
            _ => self == other,
        }
    }
}

/// One indivisible group of instructions.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The generator class that made it.
    pub class: &'static str,
    /// Assembly lines.
    pub lines: Vec<String>,
    /// State it may write.
    pub writes: Vec<Loc>,
    /// Whether it may be assembled with `.option norvc` (no explicit `c.*` forms).
    pub allow_norvc: bool,
    /// Assemble with `.option norvc`, so the assembler does not compress it.
    pub norvc: bool,
}

impl Unit {
    fn new(class: &'static str) -> Unit {
        Unit {
            class,
            lines: Vec::new(),
            writes: Vec::new(),
            allow_norvc: true,
            norvc: false,
        }
    }
    fn line(&mut self, s: String) -> &mut Self {
        self.lines.push(s);
        self
    }
    fn w(&mut self, l: Loc) -> &mut Self {
        if !matches!(l, Loc::X(0)) {
            self.writes.push(l);
        }
        self
    }
    fn wx(&mut self, r: u8) -> &mut Self {
        self.w(Loc::X(r))
    }
    fn wf(&mut self, r: u8) -> &mut Self {
        self.w(Loc::F(r))
    }
    fn wmem(&mut self, off: usize, len: usize) -> &mut Self {
        // Offsets and widths are below SCRATCH, far inside u16.
        self.w(Loc::Mem {
            off: off as u16,
            len: len as u16,
        })
    }
    /// Marks a unit with explicit compressed forms.
    fn rvc(&mut self) -> &mut Self {
        self.allow_norvc = false;
        self
    }
}

/// The end of a program that deliberately traps (see the module docs).
#[derive(Clone, Debug)]
pub struct TrapTail {
    /// The invalid rounding mode written to frm (5..=7).
    pub frm: u8,
    /// An FP operation with a static rounding mode, which must not trap.
    pub static_op: String,
    /// An FP operation with `dyn` rounding, which must trap.
    pub dyn_op: String,
}

/// The rounding mode an FP instruction line names: a mnemonic suffix, or the funct3 of a
/// `.insn r 0x53` line (7 is `dyn`).
fn rm_of(line: &str) -> Option<&str> {
    if let Some(rest) = line.strip_prefix(".insn r 0x53, ") {
        return rest
            .split(',')
            .next()
            .map(|f| if f == "7" { "dyn" } else { "static" });
    }
    let last = line.rsplit(", ").next()?;
    RMS.contains(&last).then_some(last)
}

/// A generated program.
#[derive(Clone, Debug)]
pub struct Program {
    /// The seed it was generated from.
    pub seed: u64,
    /// Initial x registers (x0, x2, x8 unused).
    pub init_x: [u64; 32],
    /// Initial f registers, raw.
    pub init_f: [u64; 32],
    /// Initial frm (0..=4) and the raw value written to fflags.
    pub init_frm: u64,
    /// Raw value written to fflags.
    pub init_fflags: u64,
    /// Initial scratch buffer.
    pub buf: Vec<u8>,
    /// Fresh values for `reload` units.
    pub pool: Vec<u64>,
    /// The random instructions.
    pub units: Vec<Unit>,
    /// The deliberate trap at the end, if any.
    pub trap: Option<TrapTail>,
}

/// Integer registers a unit may write: all but x2 (sp) and x8 (the base).
const WRITABLE_X: [u8; 29] = [
    1, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
    28, 29, 30, 31,
];
/// Static rounding modes plus `dyn`.
const RMS: [&str; 6] = ["rne", "rtz", "rdn", "rup", "rmm", "dyn"];
/// FP register formats: mnemonic suffix and load/store width.
const FMT: [(&str, usize); 2] = [("s", 4), ("d", 8)];

type ClassFn = fn(&mut Gen, usize) -> Unit;

/// The instruction classes with their relative weights.
pub const CLASSES: &[(&str, u32, ClassFn)] = &[
    ("alu-reg", 8, Gen::alu_reg),
    ("alu-imm", 6, Gen::alu_imm),
    ("mul-div", 5, Gen::mul_div),
    ("lui-auipc", 2, Gen::lui_auipc),
    ("load", 5, Gen::load),
    ("store", 5, Gen::store),
    ("amo", 4, Gen::amo),
    ("lr-sc", 2, Gen::lr_sc),
    ("fp-arith", 10, Gen::fp_arith),
    ("fp-fma", 4, Gen::fp_fma),
    ("fp-misc", 5, Gen::fp_misc),
    ("fp-cvt", 8, Gen::fp_cvt),
    ("fp-mv", 3, Gen::fp_mv),
    ("fp-mem", 4, Gen::fp_mem),
    ("fcsr", 4, Gen::fcsr),
    ("branch", 4, Gen::branch),
    ("jump", 2, Gen::jump),
    ("compressed", 8, Gen::compressed),
    ("fence", 1, Gen::fence),
    ("reload", 4, Gen::reload),
];

/// Generator state for one program.
pub struct Gen {
    rng: Pcg64,
    len: usize,
    /// Bytes of the fflags log in use.
    log_used: usize,
    /// Registers written by the last few units, most recent last: sources are often drawn
    /// from them, so that results feed into later instructions.
    recent: Vec<Loc>,
}

/// How many recently written registers [`Gen::recent`] remembers.
const RECENT: usize = 6;

impl Gen {
    fn rd(&mut self) -> u8 {
        if self.rng.gen_ratio(1, 24) {
            0
        } else {
            *WRITABLE_X.choose(&mut self.rng).unwrap_or(&1)
        }
    }
    /// A written register that is never x0 (an address or link register).
    fn rd_nz(&mut self) -> u8 {
        *WRITABLE_X.choose(&mut self.rng).unwrap_or(&1)
    }
    /// A recently written register of the kind `pick` selects, if any.
    fn recent(&mut self, pick: fn(Loc) -> Option<u8>) -> Option<u8> {
        let regs: Vec<u8> = self.recent.iter().filter_map(|&l| pick(l)).collect();
        regs.choose(&mut self.rng).copied()
    }
    fn rs(&mut self) -> u8 {
        let recent = |l| if let Loc::X(r) = l { Some(r) } else { None };
        match self
            .rng
            .gen_ratio(1, 3)
            .then(|| self.recent(recent))
            .flatten()
        {
            Some(r) => r,
            None => self.rng.gen_range(0..32),
        }
    }
    /// A source register that is `rd` a third of the time (compressible `op rd, rd, ...`).
    fn rs_or(&mut self, rd: u8) -> u8 {
        if self.rng.gen_ratio(1, 3) {
            rd
        } else {
            self.rs()
        }
    }
    fn fr(&mut self) -> u8 {
        self.rng.gen_range(0..32)
    }
    /// An FP register for format `f`: mostly from that format's half of the register file
    /// (f0..f15 hold singles, f16..f31 doubles), so that results are not mostly the NaNs
    /// of reading one format as the other; sometimes any register, so that they are too.
    fn frf(&mut self, f: &str) -> u8 {
        let recent = |l| if let Loc::F(r) = l { Some(r) } else { None };
        if let Some(r) = self
            .rng
            .gen_ratio(1, 4)
            .then(|| self.recent(recent))
            .flatten()
        {
            r
        } else if self.rng.gen_ratio(1, 4) {
            self.fr()
        } else if f == "s" {
            self.rng.gen_range(0..16)
        } else {
            self.rng.gen_range(16..32)
        }
    }
    /// A compressed-form register x8..x15 that may be written (not x8).
    fn rdc(&mut self) -> u8 {
        self.rng.gen_range(9..16)
    }
    fn rsc(&mut self) -> u8 {
        self.rng.gen_range(8..16)
    }
    fn rm(&mut self) -> &'static str {
        RMS.choose(&mut self.rng).unwrap_or(&"dyn")
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        // Every table passed here is a non-empty constant.
        xs[self.rng.gen_range(0..xs.len())]
    }
    fn fmt(&mut self) -> (&'static str, usize) {
        self.pick(&FMT)
    }
    /// The label of a unit 1..=3 units ahead (or of the epilogue).
    fn target(&mut self, idx: usize) -> String {
        let t = (idx + 1 + self.rng.gen_range(1..=3)).min(self.len);
        format!("L{t}")
    }
    /// A byte offset for a `width`-byte access inside the buffer, naturally aligned unless
    /// `misaligned` (qemu-user performs misaligned integer and FP loads/stores).
    fn offset(&mut self, width: usize, misaligned: bool) -> usize {
        let off = self.rng.gen_range(0..=SCRATCH - width);
        if misaligned {
            off
        } else {
            off & !(width - 1)
        }
    }
    fn mem_offset(&mut self, width: usize) -> usize {
        let mis = self.rng.gen_ratio(1, 4);
        self.offset(width, mis)
    }
    /// Base register for a memory access: x8 or sp (both point at the buffer).
    fn base(&mut self) -> u8 {
        if self.rng.gen_ratio(1, 4) {
            2
        } else {
            8
        }
    }

    fn alu_reg(&mut self, _: usize) -> Unit {
        const OPS: &[&str] = &[
            "add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and", "addw", "subw",
            "sllw", "srlw", "sraw",
        ];
        let (op, rd, b) = (self.pick(OPS), self.rd(), self.rs());
        let a = self.rs_or(rd);
        let mut u = Unit::new("alu-reg");
        u.line(format!("{op} x{rd}, x{a}, x{b}")).wx(rd);
        u
    }

    fn alu_imm(&mut self, _: usize) -> Unit {
        const OPS: &[(&str, i64, i64)] = &[
            ("addi", -2048, 2047),
            ("slti", -2048, 2047),
            ("sltiu", -2048, 2047),
            ("xori", -2048, 2047),
            ("ori", -2048, 2047),
            ("andi", -2048, 2047),
            ("slli", 0, 63),
            ("srli", 0, 63),
            ("srai", 0, 63),
            ("addiw", -2048, 2047),
            ("slliw", 0, 31),
            ("srliw", 0, 31),
            ("sraiw", 0, 31),
        ];
        let (op, lo, hi) = self.pick(OPS);
        let imm = if self.rng.gen_ratio(1, 4) {
            self.pick(&[lo, hi, 0, -1, 1]).clamp(lo, hi)
        } else {
            self.rng.gen_range(lo..=hi)
        };
        let rd = self.rd();
        let a = self.rs_or(rd);
        let mut u = Unit::new("alu-imm");
        u.line(format!("{op} x{rd}, x{a}, {imm}")).wx(rd);
        u
    }

    fn mul_div(&mut self, _: usize) -> Unit {
        const OPS: &[&str] = &[
            "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu", "mulw", "divw",
            "divuw", "remw", "remuw",
        ];
        let (op, rd, a, b) = (self.pick(OPS), self.rd(), self.rs(), self.rs());
        let mut u = Unit::new("mul-div");
        u.line(format!("{op} x{rd}, x{a}, x{b}")).wx(rd);
        u
    }

    fn lui_auipc(&mut self, _: usize) -> Unit {
        let op = self.pick(&["lui", "auipc"]);
        let imm: u32 = if self.rng.gen() {
            self.rng.gen_range(0..1 << 20)
        } else {
            self.pick(&[0, 1, 0x7ffff, 0x80000, 0xfffff])
        };
        let rd = self.rd();
        let mut u = Unit::new("lui-auipc");
        u.line(format!("{op} x{rd}, {imm:#x}")).wx(rd);
        u
    }

    fn load(&mut self, _: usize) -> Unit {
        const OPS: &[(&str, usize)] = &[
            ("lb", 1),
            ("lbu", 1),
            ("lh", 2),
            ("lhu", 2),
            ("lw", 4),
            ("lwu", 4),
            ("ld", 8),
        ];
        let (op, width) = self.pick(OPS);
        let (rd, off, base) = (self.rd(), self.mem_offset(width), self.base());
        let mut u = Unit::new("load");
        u.line(format!("{op} x{rd}, {off}(x{base})")).wx(rd);
        u
    }

    fn store(&mut self, _: usize) -> Unit {
        const OPS: &[(&str, usize)] = &[("sb", 1), ("sh", 2), ("sw", 4), ("sd", 8)];
        let (op, width) = self.pick(OPS);
        let (rs, off, base) = (self.rs(), self.mem_offset(width), self.base());
        let mut u = Unit::new("store");
        u.line(format!("{op} x{rs}, {off}(x{base})"))
            .wmem(off, width);
        u
    }

    /// `.w` or `.d` with its width, and a random ordering suffix.
    fn amo_width(&mut self) -> (&'static str, usize, &'static str) {
        let (w, width) = self.pick(&[("w", 4), ("d", 8)]);
        let ord = self.pick(&["", ".aq", ".rl", ".aqrl"]);
        (w, width, ord)
    }

    fn amo(&mut self, _: usize) -> Unit {
        const OPS: &[&str] = &[
            "amoswap", "amoadd", "amoxor", "amoand", "amoor", "amomin", "amomax", "amominu",
            "amomaxu",
        ];
        let op = self.pick(OPS);
        let (w, width, ord) = self.amo_width();
        let (addr, off, rd, rs) = (
            self.rd_nz(),
            self.offset(width, false),
            self.rd(),
            self.rs(),
        );
        let mut u = Unit::new("amo");
        u.line(format!("addi x{addr}, x8, {off}")).wx(addr);
        u.line(format!("{op}.{w}{ord} x{rd}, x{rs}, (x{addr})"))
            .wx(rd)
            .wmem(off, width);
        u
    }

    /// `lr` then `sc`: to the reserved address (succeeds), to another address (fails),
    /// or a lone `sc` with no reservation (fails), optionally with an ALU op between.
    fn lr_sc(&mut self, _: usize) -> Unit {
        let (w, width, ord) = self.amo_width();
        let (_, _, ord2) = self.amo_width();
        let addr = self.rd_nz();
        let off = self.offset(width, false);
        let mut u = Unit::new("lr-sc");
        u.line(format!("addi x{addr}, x8, {off}")).wx(addr);
        let kind = self.rng.gen_range(0..4);
        let mut sc_addr = addr;
        let mut sc_off = off;
        if kind == 1 {
            // A second address register, distinct from the first.
            sc_addr = loop {
                let r = self.rd_nz();
                if r != addr {
                    break r;
                }
            };
            sc_off = self.offset(width, false);
            u.line(format!("addi x{sc_addr}, x8, {sc_off}")).wx(sc_addr);
        }
        if kind != 3 {
            let rd = loop {
                let r = self.rd();
                if r != addr && r != sc_addr {
                    break r;
                }
            };
            u.line(format!("lr.{w}{ord} x{rd}, (x{addr})")).wx(rd);
            if self.rng.gen_ratio(1, 3) {
                let mid = loop {
                    let r = self.rd();
                    if r != addr && r != sc_addr {
                        break r;
                    }
                };
                let (a, b) = (self.rs(), self.rs());
                u.line(format!("xor x{mid}, x{a}, x{b}")).wx(mid);
            }
        }
        let (rd, rs) = (self.rd(), self.rs());
        u.line(format!("sc.{w}{ord2} x{rd}, x{rs}, (x{sc_addr})"))
            .wx(rd)
            .wmem(sc_off, width);
        u
    }

    fn fp_arith(&mut self, _: usize) -> Unit {
        const OPS: &[&str] = &["fadd", "fsub", "fmul", "fdiv", "fsqrt"];
        let op = self.pick(OPS);
        let ((f, _), rm) = (self.fmt(), self.rm());
        let (d, a, b) = (self.frf(f), self.frf(f), self.frf(f));
        let srcs = if op == "fsqrt" {
            format!("f{a}")
        } else {
            format!("f{a}, f{b}")
        };
        let mut u = Unit::new("fp-arith");
        u.line(format!("{op}.{f} f{d}, {srcs}, {rm}"))
            .wf(d)
            .w(Loc::Fcsr);
        u
    }

    fn fp_fma(&mut self, _: usize) -> Unit {
        let op = self.pick(&["fmadd", "fmsub", "fnmsub", "fnmadd"]);
        let ((f, _), rm) = (self.fmt(), self.rm());
        let (d, a, b, c) = (self.frf(f), self.frf(f), self.frf(f), self.frf(f));
        let mut u = Unit::new("fp-fma");
        u.line(format!("{op}.{f} f{d}, f{a}, f{b}, f{c}, {rm}"))
            .wf(d)
            .w(Loc::Fcsr);
        u
    }

    /// Sign injection, min/max, comparisons and fclass.
    fn fp_misc(&mut self, _: usize) -> Unit {
        let (f, _) = self.fmt();
        let (a, b) = (self.frf(f), self.frf(f));
        let mut u = Unit::new("fp-misc");
        match self.rng.gen_range(0..4) {
            0 => {
                let op = self.pick(&["fsgnj", "fsgnjn", "fsgnjx"]);
                let d = self.frf(f);
                u.line(format!("{op}.{f} f{d}, f{a}, f{b}")).wf(d);
            }
            1 => {
                let op = self.pick(&["fmin", "fmax"]);
                let d = self.frf(f);
                u.line(format!("{op}.{f} f{d}, f{a}, f{b}"))
                    .wf(d)
                    .w(Loc::Fcsr);
            }
            2 => {
                let op = self.pick(&["feq", "flt", "fle"]);
                let rd = self.rd();
                u.line(format!("{op}.{f} x{rd}, f{a}, f{b}"))
                    .wx(rd)
                    .w(Loc::Fcsr);
            }
            _ => {
                let rd = self.rd();
                u.line(format!("fclass.{f} x{rd}, f{a}")).wx(rd);
            }
        }
        u
    }

    /// fcvt in every direction. Conversions that are exact (`fcvt.d.w`, `fcvt.d.wu`,
    /// `fcvt.d.s`) are written as `.insn` half the time, with a random valid rm field,
    /// which the assembler cannot express but the decoder must accept.
    fn fp_cvt(&mut self, _: usize) -> Unit {
        const INT: &[(&str, u8)] = &[("w", 0), ("wu", 1), ("l", 2), ("lu", 3)];
        let (i, rs2) = self.pick(INT);
        let (f, _) = self.fmt();
        let rm = self.rm();
        let mut u = Unit::new("fp-cvt");
        u.w(Loc::Fcsr);
        match self.rng.gen_range(0..3) {
            0 => {
                let (rd, a) = (self.rd(), self.frf(f));
                u.line(format!("fcvt.{i}.{f} x{rd}, f{a}, {rm}")).wx(rd);
            }
            1 => {
                let (d, a) = (self.frf(f), self.rs());
                let exact = f == "d" && rs2 < 2;
                if exact && self.rng.gen() {
                    let rmf = self.pick(&[0, 1, 2, 3, 4, 7]);
                    u.line(format!(".insn r 0x53, {rmf}, 0x69, f{d}, x{a}, x{rs2}"));
                } else if exact {
                    u.line(format!("fcvt.d.{i} f{d}, x{a}"));
                } else {
                    u.line(format!("fcvt.{f}.{i} f{d}, x{a}, {rm}"));
                }
                u.wf(d);
            }
            _ => {
                let narrow = self.rng.gen();
                let (to, from) = if narrow { ("s", "d") } else { ("d", "s") };
                let (d, a) = (self.frf(to), self.frf(from));
                if narrow {
                    u.line(format!("fcvt.s.d f{d}, f{a}, {rm}"));
                } else if self.rng.gen() {
                    u.line(format!("fcvt.d.s f{d}, f{a}"));
                } else {
                    let rmf = self.pick(&[0, 1, 2, 3, 4, 7]);
                    u.line(format!(".insn r 0x53, {rmf}, 0x21, f{d}, f{a}, x0"));
                }
                u.wf(d);
            }
        }
        u
    }

    fn fp_mv(&mut self, _: usize) -> Unit {
        let (f, _) = self.fmt();
        let x = if f == "s" { "w" } else { "d" };
        let mut u = Unit::new("fp-mv");
        if self.rng.gen() {
            let (rd, a) = (self.rd(), self.frf(f));
            u.line(format!("fmv.x.{x} x{rd}, f{a}")).wx(rd);
        } else {
            let (d, a) = (self.frf(f), self.rs());
            u.line(format!("fmv.{x}.x f{d}, x{a}")).wf(d);
        }
        u
    }

    fn fp_mem(&mut self, _: usize) -> Unit {
        let (f, width) = self.fmt();
        let w = if f == "s" { "w" } else { "d" };
        let (r, off, base) = (self.frf(f), self.mem_offset(width), self.base());
        let mut u = Unit::new("fp-mem");
        if self.rng.gen() {
            u.line(format!("fl{w} f{r}, {off}(x{base})")).wf(r);
        } else {
            u.line(format!("fs{w} f{r}, {off}(x{base})"))
                .wmem(off, width);
        }
        u
    }

    /// CSR instructions on fcsr, frm and fflags (register and immediate forms, and the
    /// `frcsr`/`fsrm`/... aliases). A write that may leave `frm` invalid (5..=7) is
    /// followed by a read of `frm` (observing the invalid value) and a repair.
    fn fcsr(&mut self, _: usize) -> Unit {
        let csr = self.pick(&["fcsr", "frm", "fflags"]);
        let op = self.pick(&["csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci"]);
        let rd = self.rd();
        let src = if op.ends_with('i') {
            let v: u32 = self.rng.gen_range(0..32);
            v.to_string()
        } else {
            format!("x{}", self.rs())
        };
        let mut u = Unit::new("fcsr");
        let alias = match (op, csr, rd) {
            ("csrrs", _, _) if src == "x0" => Some(format!(
                "{} x{rd}",
                ["frcsr", "frrm", "frflags"][csr_index(csr)]
            )),
            ("csrrw", _, _) => Some(format!(
                "{} x{rd}, {src}",
                ["fscsr", "fsrm", "fsflags"][csr_index(csr)]
            )),
            _ => None,
        };
        let text = match alias {
            Some(a) if self.rng.gen() => a,
            _ => format!("{op} x{rd}, {csr}, {src}"),
        };
        u.line(text).wx(rd).w(Loc::Fcsr);
        if csr != "fflags" && !op.starts_with("csrrc") {
            let (r, frm) = (self.rd(), self.rng.gen_range(0..5));
            u.line(format!("frrm x{r}")).wx(r);
            u.line(format!("fsrmi {frm}"));
        }
        u
    }

    fn branch(&mut self, idx: usize) -> Unit {
        let t = self.target(idx);
        let mut u = Unit::new("branch");
        if self.rng.gen_ratio(1, 4) {
            let op = self.pick(&["c.beqz", "c.bnez"]);
            let a = self.rsc();
            u.line(format!("{op} x{a}, {t}")).rvc();
        } else {
            let op = self.pick(&["beq", "bne", "blt", "bge", "bltu", "bgeu"]);
            // Equal operands half the time, so that beq/bge/bgeu are often taken.
            let a = self.rs();
            let b = if self.rng.gen() { a } else { self.rs() };
            u.line(format!("{op} x{a}, x{b}, {t}"));
        }
        u
    }

    /// Forward jumps: jal, c.j, and jalr / c.jr / c.jalr through a register loaded with
    /// `la`, sometimes with bit 0 set (which jalr must clear).
    fn jump(&mut self, idx: usize) -> Unit {
        let t = self.target(idx);
        let mut u = Unit::new("jump");
        match self.rng.gen_range(0..5) {
            0 => {
                let rd = self.rd();
                u.line(format!("jal x{rd}, {t}")).wx(rd);
            }
            1 => {
                u.line(format!("c.j {t}")).rvc();
            }
            2 => {
                let (a, rd) = (self.rd_nz(), self.rd());
                u.line(format!("1: auipc x{a}, %pcrel_hi({t})")).wx(a);
                u.line(format!("jalr x{rd}, %pcrel_lo(1b)(x{a})")).wx(rd);
            }
            _ => {
                let a = self.rd_nz();
                u.line(format!("la x{a}, {t}")).wx(a);
                if self.rng.gen() {
                    u.line(format!("addi x{a}, x{a}, 1"));
                }
                match self.rng.gen_range(0..3) {
                    0 => {
                        let rd = self.rd();
                        u.line(format!("jalr x{rd}, 0(x{a})")).wx(rd);
                    }
                    1 => {
                        u.line(format!("c.jr x{a}")).rvc();
                    }
                    _ => {
                        u.line(format!("c.jalr x{a}")).wx(1).rvc();
                    }
                }
            }
        }
        u
    }

    /// Explicit compressed forms, with their operand constraints.
    fn compressed(&mut self, _: usize) -> Unit {
        let mut u = Unit::new("compressed");
        u.rvc();
        let imm6 = |g: &mut Gen| g.rng.gen_range(-32i64..32);
        let nz6 = |g: &mut Gen| loop {
            let v = g.rng.gen_range(-32i64..32);
            if v != 0 {
                break v;
            }
        };
        match self.rng.gen_range(0..22) {
            0 => {
                let (rd, v) = (self.rd_nz(), nz6(self));
                u.line(format!("c.addi x{rd}, {v}")).wx(rd);
            }
            1 => {
                let (rd, v) = (self.rd_nz(), imm6(self));
                u.line(format!("c.addiw x{rd}, {v}")).wx(rd);
            }
            2 => {
                let (rd, v) = (self.rd_nz(), imm6(self));
                u.line(format!("c.li x{rd}, {v}")).wx(rd);
            }
            3 => {
                let rd = self.rd_nz();
                let v = self.rng.gen_range(1..64);
                let v = if v < 32 { v } else { 0xfffe0 + (v - 32) };
                u.line(format!("c.lui x{rd}, {v:#x}")).wx(rd);
            }
            4 => {
                let (rd, v) = (self.rdc(), self.rng.gen_range(1..256) * 4);
                u.line(format!("c.addi4spn x{rd}, sp, {v}")).wx(rd);
            }
            5 => {
                let (rd, v) = (self.rd_nz(), self.rng.gen_range(1..64));
                u.line(format!("c.slli x{rd}, {v}")).wx(rd);
            }
            6 => {
                let op = self.pick(&["c.srli", "c.srai"]);
                let (rd, v) = (self.rdc(), self.rng.gen_range(1..64));
                u.line(format!("{op} x{rd}, {v}")).wx(rd);
            }
            7 => {
                let (rd, v) = (self.rdc(), imm6(self));
                u.line(format!("c.andi x{rd}, {v}")).wx(rd);
            }
            8 => {
                let op = self.pick(&["c.mv", "c.add"]);
                let (rd, rs) = (self.rd_nz(), self.rng.gen_range(1..32));
                u.line(format!("{op} x{rd}, x{rs}")).wx(rd);
            }
            9 => {
                let op = self.pick(&["c.sub", "c.xor", "c.or", "c.and", "c.subw", "c.addw"]);
                let (rd, rs) = (self.rdc(), self.rsc());
                u.line(format!("{op} x{rd}, x{rs}")).wx(rd);
            }
            10 | 11 => {
                // c.lw / c.ld / c.flw is RV32 only; c.fld is RV64.
                let (op, width, max) =
                    self.pick(&[("c.lw", 4, 32), ("c.ld", 8, 32), ("c.fld", 8, 32)]);
                let off = self.rng.gen_range(0..max) * width;
                if op == "c.fld" {
                    let d = self.rng.gen_range(8..16);
                    u.line(format!("{op} f{d}, {off}(x8)")).wf(d);
                } else {
                    let rd = self.rdc();
                    u.line(format!("{op} x{rd}, {off}(x8)")).wx(rd);
                }
            }
            12 | 13 => {
                let (op, width, max) =
                    self.pick(&[("c.sw", 4, 32), ("c.sd", 8, 32), ("c.fsd", 8, 32)]);
                let off = self.rng.gen_range(0..max) * width;
                let reg = if op == "c.fsd" { "f" } else { "x" };
                let rs = self.rsc();
                u.line(format!("{op} {reg}{rs}, {off}(x8)"))
                    .wmem(off, width);
            }
            14 | 15 => {
                let (op, width, max) = self.pick(&[
                    ("c.lwsp", 4usize, 64usize),
                    ("c.ldsp", 8, 64),
                    ("c.fldsp", 8, 64),
                ]);
                let off = self.rng.gen_range(0..max) * width;
                if op == "c.fldsp" {
                    let d = self.fr();
                    u.line(format!("{op} f{d}, {off}(sp)")).wf(d);
                } else {
                    let rd = self.rd_nz();
                    u.line(format!("{op} x{rd}, {off}(sp)")).wx(rd);
                }
            }
            16 | 17 => {
                let (op, width, max) = self.pick(&[
                    ("c.swsp", 4usize, 64usize),
                    ("c.sdsp", 8, 64),
                    ("c.fsdsp", 8, 64),
                ]);
                let off = self.rng.gen_range(0..max) * width;
                let reg = if op == "c.fsdsp" { "f" } else { "x" };
                let rs = self.rs();
                u.line(format!("{op} {reg}{rs}, {off}(sp)"))
                    .wmem(off, width);
            }
            18 => {
                // Move sp, use it, move it back: sp is the same after the unit.
                let k = self.rng.gen_range(1..16) * 16;
                let (rd, off) = (self.rd_nz(), self.rng.gen_range(0..16) * 8);
                u.line(format!("c.addi16sp sp, {k}"));
                u.line(format!("c.ldsp x{rd}, {off}(sp)")).wx(rd);
                u.line(format!("c.addi16sp sp, -{k}"));
            }
            _ => {
                u.line("c.nop".to_string());
            }
        }
        u
    }

    /// Loads a fresh value from the read-only pool into an x or f register.
    fn reload(&mut self, _: usize) -> Unit {
        let off = 8 * self.rng.gen_range(0..POOL_LEN);
        let a = self.rd_nz();
        let mut u = Unit::new("reload");
        u.line(format!("la x{a}, pool+{off}")).wx(a);
        match self.rng.gen_range(0..4) {
            0 => {
                u.line(format!("ld x{a}, 0(x{a})"));
            }
            1 => {
                let d = self.frf("s");
                u.line(format!("flw f{d}, 0(x{a})")).wf(d);
            }
            _ => {
                let d = self.frf("d");
                u.line(format!("fld f{d}, 0(x{a})")).wf(d);
            }
        }
        u
    }

    /// Appends to an FP unit the reading and clearing of fflags and the storing of the
    /// flags into the next free byte of the fflags log.
    fn log_flags(&mut self, u: &mut Unit) {
        let Some(slot) = u16::try_from(self.log_used)
            .ok()
            .filter(|_| self.log_used < LOG_LEN)
        else {
            return;
        };
        self.log_used += 1;
        let t = self.rd_nz();
        let read = self.pick(&[
            "csrrw x{t}, fflags, x0",
            "csrrci x{t}, fflags, 31",
            "fsflags x{t}, x0",
        ]);
        u.line(read.replace("{t}", &t.to_string())).wx(t);
        u.line(format!("sb x{t}, {}(x8)", LOG + usize::from(slot)))
            .w(Loc::Log(slot));
    }

    /// An FP arithmetic, fused or conversion instruction whose rounding mode is `dyn`
    /// (when `dynamic`) or static.
    fn fp_with_rm(&mut self, dynamic: bool) -> String {
        loop {
            let u = match self.rng.gen_range(0..3) {
                0 => self.fp_arith(0),
                1 => self.fp_fma(0),
                _ => self.fp_cvt(0),
            };
            if let Some(line) = u.lines.first() {
                if rm_of(line).is_some_and(|rm| (rm == "dyn") == dynamic) {
                    return line.clone();
                }
            }
        }
    }

    fn fence(&mut self, _: usize) -> Unit {
        let mut u = Unit::new("fence");
        let text = self.pick(&["fence", "fence.i", "fence rw, rw", "fence r, w", "nop"]);
        u.line(text.to_string());
        u
    }
}

/// Appends the code that fills the register record (tag, x1..x31, f0..f31, fcsr) and
/// writes it to stdout: a checkpoint, which then restores the registers the system call
/// used, or the final dump, which writes the whole area (scratch, record, fflags log).
fn write_record(s: &mut String, tag: usize, checkpoint: bool) {
    let x = |i: usize| RECORD + 8 * i;
    let f = |i: usize| RECORD + 8 * (32 + i);
    for i in 1..32 {
        let _ = writeln!(s, "    sd x{i}, {}(x8)", x(i));
    }
    for i in 0..32 {
        let _ = writeln!(s, "    fsd f{i}, {}(x8)", f(i));
    }
    let _ = writeln!(s, "    frcsr x1\n    sd x1, {}(x8)", f(32));
    let _ = writeln!(s, "    li x1, {tag}\n    sd x1, {RECORD}(x8)");
    let (from, len) = if checkpoint {
        (RECORD, RECORD_LEN)
    } else {
        (0, AREA)
    };
    let _ = writeln!(
        s,
        "    li a0, 1\n    addi a1, x8, {from}\n    li a2, {len}\n    li a7, 64\n    ecall"
    );
    if checkpoint {
        for i in [1, 10, 11, 12, 17] {
            let _ = writeln!(s, "    ld x{i}, {}(x8)", x(i));
        }
    }
}

/// Index of an FP CSR in the alias tables.
fn csr_index(csr: &str) -> usize {
    match csr {
        "fcsr" => 0,
        "frm" => 1,
        _ => 2,
    }
}

/// Generates the program for `seed` with `len` random units. The same seed and length
/// always give the same program.
pub fn generate(seed: u64, len: usize) -> Program {
    let mut g = Gen {
        rng: Pcg64::seed_from_u64(seed),
        len,
        recent: Vec::new(),
        log_used: 0,
    };
    let mut init_x = [0u64; 32];
    for (i, x) in init_x.iter_mut().enumerate() {
        if !matches!(i, 0 | 2 | 8) {
            *x = int_value(&mut g.rng);
        }
    }
    let mut init_f = [0u64; 32];
    for (i, f) in init_f.iter_mut().enumerate() {
        let single = (i < 16) != g.rng.gen_ratio(1, 8);
        *f = fp_value(&mut g.rng, single);
    }
    let init_frm = g.rng.gen_range(0..5);
    let init_fflags = int_value(&mut g.rng);
    let mut buf = vec![0u8; SCRATCH];
    for chunk in buf.chunks_mut(8) {
        let v = if g.rng.gen() {
            let single = g.rng.gen();
            fp_value(&mut g.rng, single)
        } else {
            int_value(&mut g.rng)
        };
        chunk.copy_from_slice(&v.to_le_bytes()[..chunk.len()]);
    }
    let pool = (0..POOL_LEN)
        .map(|_| {
            if g.rng.gen_ratio(3, 4) {
                let single = g.rng.gen();
                fp_value(&mut g.rng, single)
            } else {
                int_value(&mut g.rng)
            }
        })
        .collect();
    let total: u32 = CLASSES.iter().map(|c| c.1).sum();
    let mut units = Vec::with_capacity(len);
    for idx in 0..len {
        let mut pick = g.rng.gen_range(0..total);
        let mut class = CLASSES[0].2;
        for &(_, w, f) in CLASSES {
            if pick < w {
                class = f;
                break;
            }
            pick -= w;
        }
        let mut u = class(&mut g, idx);
        u.norvc = u.allow_norvc && g.rng.gen_ratio(1, 4);
        if u.class.starts_with("fp-") && u.writes.contains(&Loc::Fcsr) && g.rng.gen() {
            g.log_flags(&mut u);
        }
        for &w in &u.writes {
            if matches!(w, Loc::X(_) | Loc::F(_)) {
                g.recent.retain(|&r| r != w);
                g.recent.push(w);
            }
        }
        let excess = g.recent.len().saturating_sub(RECENT);
        g.recent.drain(..excess);
        units.push(u);
    }
    let trap = g.rng.gen_ratio(1, 8).then(|| TrapTail {
        frm: g.rng.gen_range(5..8),
        static_op: g.fp_with_rm(false),
        dyn_op: g.fp_with_rm(true),
    });
    Program {
        seed,
        trap,
        init_x,
        init_f,
        init_frm,
        init_fflags,
        buf,
        pool,
        units,
    }
}

impl Program {
    /// The exit status qemu must report: 0, or 128 + SIGILL for a trapping program.
    pub fn expected_status(&self) -> i32 {
        if self.trap.is_some() {
            128 + 4
        } else {
            0
        }
    }

    /// The assembly source, with only the units whose `keep` flag is set (all when
    /// `keep` is `None`). Labels of dropped units stay, so every branch target exists.
    pub fn render(&self, keep: Option<&[bool]>) -> String {
        let mut s = String::with_capacity(64 * self.units.len() + 8192);
        let _ = writeln!(
            s,
            "# randtest seed {} ({} units)\n.option norelax\n.globl _start\n.text\n_start:",
            self.seed,
            self.units.len()
        );
        s.push_str("    la x8, buf\n    addi x2, x8, 0\n    la x1, table\n");
        for i in 0..32 {
            let _ = writeln!(s, "    fld f{i}, {}(x1)", 8 * (32 + i));
        }
        let _ = writeln!(s, "    ld x3, {}(x1)\n    csrw frm, x3", 8 * 64);
        let _ = writeln!(s, "    ld x3, {}(x1)\n    csrw fflags, x3", 8 * 65);
        // x1 holds the table address, so it is loaded last.
        for i in (3..32).chain([1]).filter(|i| *i != 8) {
            let _ = writeln!(s, "    ld x{i}, {}(x1)", 8 * i);
        }
        for (i, u) in self.units.iter().enumerate() {
            let _ = writeln!(s, "L{i}:");
            if i > 0 && i % CHECKPOINT_EVERY == 0 {
                write_record(&mut s, i, true);
            }
            if keep.is_some_and(|k| !k.get(i).copied().unwrap_or(true)) {
                continue;
            }
            if u.norvc {
                s.push_str("    .option push\n    .option norvc\n");
            }
            for l in &u.lines {
                let _ = writeln!(s, "    {l}");
            }
            if u.norvc {
                s.push_str("    .option pop\n");
            }
        }
        let _ = writeln!(s, "L{}:", self.units.len());
        if let Some(t) = &self.trap {
            let _ = writeln!(s, "    fsrmi {}\n    {}", t.frm, t.static_op);
        }
        write_record(&mut s, self.units.len(), false);
        if let Some(t) = &self.trap {
            let _ = writeln!(s, "    {}", t.dyn_op);
        }
        s.push_str("    li a0, 0\n    li a7, 93\n    ecall\n");
        s.push_str(".data\n.balign 8\nbuf:\n");
        for chunk in self.buf.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            let _ = writeln!(s, "    .quad {:#018x}", u64::from_le_bytes(w));
        }
        let _ = writeln!(s, "    .zero {}\ntable:", AREA - SCRATCH);
        for v in self.init_x.iter().chain(&self.init_f) {
            let _ = writeln!(s, "    .quad {v:#018x}");
        }
        let _ = writeln!(
            s,
            "    .quad {:#x}\n    .quad {:#018x}\npool:",
            self.init_frm, self.init_fflags
        );
        for v in &self.pool {
            let _ = writeln!(s, "    .quad {v:#018x}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_program() {
        let a = generate(42, 300).render(None);
        assert_eq!(a, generate(42, 300).render(None));
        assert_ne!(a, generate(43, 300).render(None));
    }

    #[test]
    fn every_class_appears_and_no_unit_writes_base_or_sp() {
        let p = generate(1, 4000);
        for (name, _, _) in CLASSES {
            assert!(p.units.iter().any(|u| u.class == *name), "{name}");
        }
        for u in &p.units {
            assert!(
                !u.writes.contains(&Loc::X(2)) && !u.writes.contains(&Loc::X(8)),
                "{:?}",
                u.lines
            );
        }
    }

    #[test]
    fn rounding_modes_are_read_from_lines() {
        assert_eq!(rm_of("fadd.d f1, f2, f3, rtz"), Some("rtz"));
        assert_eq!(rm_of("fcvt.w.s x1, f2, dyn"), Some("dyn"));
        assert_eq!(rm_of(".insn r 0x53, 7, 0x69, f2, x5, x1"), Some("dyn"));
        assert_eq!(rm_of(".insn r 0x53, 3, 0x21, f2, f5, x0"), Some("static"));
        assert_eq!(rm_of("fsgnj.d f1, f2, f3"), None);
        let p = (0..64)
            .find_map(|s| generate(s, 10).trap)
            .map(|t| (t.static_op, t.dyn_op));
        let (st, dy) = p.unwrap_or_default();
        assert!(
            rm_of(&st).is_some_and(|r| r != "dyn") && rm_of(&dy) == Some("dyn"),
            "{st} {dy}"
        );
    }

    #[test]
    fn memory_writes_stay_in_the_buffer() {
        let p = generate(3, 4000);
        for u in &p.units {
            for w in &u.writes {
                if let Loc::Mem { off, len } = w {
                    assert!(usize::from(off + len) <= SCRATCH, "{:?}", u.lines);
                }
            }
        }
    }
}

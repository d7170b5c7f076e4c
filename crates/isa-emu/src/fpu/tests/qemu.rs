//! Oracle 3: qemu-riscv64, whose RISC-V FPU (Berkeley-SoftFloat-derived, with the RISC-V
//! specialisation) is the reference the emulator as a whole is measured against. A small
//! generated guest program executes each instruction with the rounding mode set in `frm`
//! and returns the raw destination register (64 bits, so NaN-boxing is visible) and
//! `fflags`. Every F/D computational op is covered, in all five rounding modes.
//!
//! Needs `riscv64-linux-gnu-gcc` and `qemu-riscv64`, hence `#[ignore]`:
//! `cargo test -p isa-emu fpu_matches_qemu -- --ignored --nocapture`
//! (`FPU_QEMU_CASES` sets the cases per op per rounding mode, default 20000).

use super::gen::{self, Rng};
use crate::fpu::{execute, reads_xreg, uses_rm, writes_xreg};
use crate::insn::Op::{self, *};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every op with its assembler mnemonic.
const OPS: &[(Op, &str)] = &[
    (FaddS, "fadd.s"),
    (FsubS, "fsub.s"),
    (FmulS, "fmul.s"),
    (FdivS, "fdiv.s"),
    (FsqrtS, "fsqrt.s"),
    (FmaddS, "fmadd.s"),
    (FmsubS, "fmsub.s"),
    (FnmsubS, "fnmsub.s"),
    (FnmaddS, "fnmadd.s"),
    (FsgnjS, "fsgnj.s"),
    (FsgnjnS, "fsgnjn.s"),
    (FsgnjxS, "fsgnjx.s"),
    (FminS, "fmin.s"),
    (FmaxS, "fmax.s"),
    (FcvtWS, "fcvt.w.s"),
    (FcvtWuS, "fcvt.wu.s"),
    (FcvtLS, "fcvt.l.s"),
    (FcvtLuS, "fcvt.lu.s"),
    (FmvXW, "fmv.x.w"),
    (FeqS, "feq.s"),
    (FltS, "flt.s"),
    (FleS, "fle.s"),
    (FclassS, "fclass.s"),
    (FcvtSW, "fcvt.s.w"),
    (FcvtSWu, "fcvt.s.wu"),
    (FcvtSL, "fcvt.s.l"),
    (FcvtSLu, "fcvt.s.lu"),
    (FmvWX, "fmv.w.x"),
    (FaddD, "fadd.d"),
    (FsubD, "fsub.d"),
    (FmulD, "fmul.d"),
    (FdivD, "fdiv.d"),
    (FsqrtD, "fsqrt.d"),
    (FmaddD, "fmadd.d"),
    (FmsubD, "fmsub.d"),
    (FnmsubD, "fnmsub.d"),
    (FnmaddD, "fnmadd.d"),
    (FsgnjD, "fsgnj.d"),
    (FsgnjnD, "fsgnjn.d"),
    (FsgnjxD, "fsgnjx.d"),
    (FminD, "fmin.d"),
    (FmaxD, "fmax.d"),
    (FcvtSD, "fcvt.s.d"),
    (FcvtDS, "fcvt.d.s"),
    (FcvtWD, "fcvt.w.d"),
    (FcvtWuD, "fcvt.wu.d"),
    (FcvtLD, "fcvt.l.d"),
    (FcvtLuD, "fcvt.lu.d"),
    (FmvXD, "fmv.x.d"),
    (FeqD, "feq.d"),
    (FltD, "flt.d"),
    (FleD, "fle.d"),
    (FclassD, "fclass.d"),
    (FcvtDW, "fcvt.d.w"),
    (FcvtDWu, "fcvt.d.wu"),
    (FcvtDL, "fcvt.d.l"),
    (FcvtDLu, "fcvt.d.lu"),
    (FmvDX, "fmv.d.x"),
];

/// Number of f-register sources of an op with an f-register rs1.
fn f_sources(op: Op) -> usize {
    match op {
        FmaddS | FmsubS | FnmsubS | FnmaddS | FmaddD | FmsubD | FnmsubD | FnmaddD => 3,
        FsqrtS | FsqrtD | FcvtSD | FcvtDS | FclassS | FclassD | FmvXW | FmvXD => 1,
        _ if writes_xreg(op) && !matches!(op, FeqS | FltS | FleS | FeqD | FltD | FleD) => 1,
        _ => 2,
    }
}

/// The guest's inline-assembly statement for `op`: sources a, b, c are `%1..%3`, the raw
/// result `%0`; f sources are moved in with `fmv.d.x` (keeping any bad NaN-boxing), f
/// results out with `fmv.x.d` (showing the boxing).
fn asm_case(i: usize, op: Op, mnemonic: &str) -> String {
    // Explicit dynamic rounding, except where the assembler has no rm operand.
    let rm = if uses_rm(op) && !matches!(op, FcvtDS | FcvtDW | FcvtDWu) {
        ",dyn"
    } else {
        ""
    };
    let body = if reads_xreg(op) {
        format!("{mnemonic} ft3, %1{rm}\\n fmv.x.d %0, ft3")
    } else {
        let n = f_sources(op);
        let moves: String = (0..n)
            .map(|k| format!("fmv.d.x ft{k}, %{}\\n ", k + 1))
            .collect();
        let srcs: Vec<String> = (0..n).map(|k| format!("ft{k}")).collect();
        if writes_xreg(op) {
            format!("{moves}{mnemonic} %0, {}{rm}", srcs.join(", "))
        } else {
            format!(
                "{moves}{mnemonic} ft3, {}{rm}\\n fmv.x.d %0, ft3",
                srcs.join(", ")
            )
        }
    };
    format!(
        "    case {i}: asm volatile(\"{body}\" : \"=r\"(r) : \"r\"(a), \"r\"(b), \"r\"(c) : \"ft0\", \"ft1\", \"ft2\", \"ft3\"); break;\n"
    )
}

/// The guest program: reads (op, rm, a, b, c) records, writes (result, fflags) records.
fn guest_source() -> String {
    let cases: String = OPS
        .iter()
        .enumerate()
        .map(|(i, &(op, m))| asm_case(i, op, m))
        .collect();
    format!(
        r#"#include <stdint.h>
#include <stdio.h>
struct in {{ uint64_t op, rm, a, b, c; }};
struct out {{ uint64_t r, flags; }};
static struct in ib[4096];
static struct out ob[4096];
int main(void) {{
  size_t n;
  while ((n = fread(ib, sizeof ib[0], 4096, stdin)) > 0) {{
    for (size_t i = 0; i < n; i++) {{
      uint64_t a = ib[i].a, b = ib[i].b, c = ib[i].c, r = 0, fl;
      asm volatile("csrw frm, %0\n csrw fflags, zero" :: "r"(ib[i].rm));
      switch (ib[i].op) {{
{cases}      }}
      asm volatile("csrr %0, fflags" : "=r"(fl));
      ob[i].r = r;
      ob[i].flags = fl;
    }}
    fwrite(ob, sizeof ob[0], n, stdout);
  }}
  return 0;
}}
"#
    )
}

fn build_guest(dir: &Path) -> PathBuf {
    let src = dir.join("fpu_oracle.c");
    let exe = dir.join("fpu_oracle");
    std::fs::write(&src, guest_source()).expect("write guest source");
    let st = Command::new("riscv64-linux-gnu-gcc")
        .args(["-O2", "-static", "-march=rv64gc", "-mabi=lp64d", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("riscv64-linux-gnu-gcc not found");
    assert!(st.success(), "guest build failed");
    exe
}

/// Runs the records through the guest under qemu; returns (result, fflags) per record.
fn run_qemu(exe: &Path, records: &[[u64; 5]]) -> Vec<(u64, u8)> {
    let mut child = Command::new("qemu-riscv64")
        .arg(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("qemu-riscv64 not found");
    let input: Vec<u8> = records
        .iter()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut out)
        .expect("read qemu output");
    writer
        .join()
        .expect("writer thread")
        .expect("write to qemu");
    assert!(
        child.wait().expect("wait for qemu").success(),
        "guest failed"
    );
    assert_eq!(out.len(), records.len() * 16, "short guest output");
    out.chunks_exact(16)
        .map(|c| {
            let w = |k: usize| u64::from_le_bytes(c[k..k + 8].try_into().expect("8 bytes"));
            (w(0), w(8) as u8)
        })
        .collect()
}

#[test]
#[ignore = "needs riscv64-linux-gnu-gcc and qemu-riscv64"]
fn fpu_matches_qemu() {
    let n: usize = std::env::var("FPU_QEMU_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let dir = std::env::temp_dir().join(format!("profkit-fpu-qemu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = build_guest(&dir);
    let mut total = 0;
    let mut failures = Vec::new();
    for (i, &(op, mnemonic)) in OPS.iter().enumerate() {
        // The source format is the last suffix (fcvt.s.d reads a double, fcvt.d.s a single).
        let src_double = mnemonic.ends_with(".d");
        let f = gen::fmt(src_double);
        let mut r = Rng::new(0x9e40 + i as u64);
        let records: Vec<[u64; 5]> = (0..n * 5)
            .map(|k| {
                let rm = (k % 5) as u64;
                if reads_xreg(op) {
                    return [i as u64, rm, gen::int(&mut r), 0, 0];
                }
                let a = gen::float(&mut r, f);
                let b = gen::partner(&mut r, f, a);
                let c = if r.chance(3) {
                    gen::partner(&mut r, f, a)
                } else {
                    gen::float(&mut r, f)
                };
                let reg = |r: &mut Rng, x: u64| if src_double { x } else { gen::boxed(r, x) };
                [i as u64, rm, reg(&mut r, a), reg(&mut r, b), reg(&mut r, c)]
            })
            .collect();
        let want = run_qemu(&exe, &records);
        let mut bad = 0;
        for (rec, &(wr, wf)) in records.iter().zip(&want) {
            let mut fl = 0;
            let got = execute(op, rec[2], rec[3], rec[4], rec[1] as u8, &mut fl);
            if (got, fl) != (wr, wf) {
                bad += 1;
                if failures.len() < 30 {
                    failures.push(format!(
                        "{mnemonic} rm={} in=[{:#x}, {:#x}, {:#x}] got=({got:#x}, {fl:#x}) qemu=({wr:#x}, {wf:#x})",
                        rec[1], rec[2], rec[3], rec[4]
                    ));
                }
            }
        }
        total += records.len();
        println!("{mnemonic}: {} cases, {bad} mismatches", records.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("qemu oracle: {total} cases compared");
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

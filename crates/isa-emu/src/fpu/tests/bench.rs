//! A small throughput benchmark of `execute` on typical (normal, in-range) operands.
//! Run optimized: `cargo test --release -p isa-emu fpu_bench -- --ignored --nocapture`.

use super::gen::Rng;
use crate::fpu::execute;
use crate::insn::Op::{self, *};
use std::hint::black_box;
use std::time::Instant;

#[test]
#[ignore = "benchmark; prints ns/op"]
fn fpu_bench() {
    let mut r = Rng::new(0xbe4c);
    // Normal doubles in about [1, 2^20): what FP-heavy guests mostly compute with.
    let vals: Vec<u64> = (0..1024)
        .map(|_| ((1023 + r.below(20)) << 52) | (r.next() >> 12))
        .collect();
    let ops: [Op; 5] = [FaddD, FmulD, FdivD, FmaddD, FcvtWD];
    for op in ops {
        for (rm, name) in [(0u8, "RNE"), (1, "RTZ")] {
            let iters = 4_000_000usize;
            let mut fl = 0u8;
            let mut acc = 0u64;
            let t = Instant::now();
            for i in 0..iters {
                let a = vals[i & 1023];
                let b = vals[(i + 1) & 1023];
                let c = vals[(i + 7) & 1023];
                acc ^= execute(black_box(op), a, b, c, black_box(rm), &mut fl);
            }
            let ns = t.elapsed().as_nanos() as f64 / iters as f64;
            black_box((acc, fl));
            println!("{op:?} {name}: {ns:.1} ns/op");
        }
    }
}

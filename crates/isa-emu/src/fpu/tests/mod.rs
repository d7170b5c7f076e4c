//! FPU verification: spec corner cases, simple-soft-float oracle, host-float oracle, bench.

mod gen;
mod ssf;

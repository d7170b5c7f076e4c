//! FPU verification: spec corner cases, simple-soft-float oracle, host-float oracle, bench.

mod bench;
mod gen;
mod host;
mod qemu;
mod spec_rules;
mod ssf;

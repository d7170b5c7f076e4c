//! The `profkit` command-line profiler.
fn main() {}

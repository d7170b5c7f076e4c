//! # strata: whole-program paths, repeated paths, strata and stratum layers
//!
//! The complete dynamic control flow of a run, in a compact and queryable form: its loops,
//! their repetitions, their nesting, and the program's phases. This crate implements the
//! whole-program profile of the profiling spec (`specs/000_0af7b22f78c6228c.txt`, first
//! two thirds) over the [`bounded_hashtable`] crate (the spec's last third).
//!
//! ## The model
//!
//! - A **path** is a sequence of unique blocks: the next block that repeats one already in
//!   the path closes it and starts the next path. Each closed path is compared with the
//!   previous one: equal paths add a trip to it; a different path passes the previous one
//!   up as a **repeated path** `(path id, trip count)` ([`Rep`]) and takes its place.
//! - Level 1 does the same over repeated paths: a **stratum** is a sequence of unique
//!   repeated paths, consecutive equal strata form a **repeated stratum**. Level 2 forms
//!   **stratum layers** over repeated strata, and [`Config::upper_levels`] adds more.
//! - Per level, a [`BoundedHashTable`](bounded_hashtable::BoundedHashTable) keyed by the
//!   interned sequence holds its [`SeqStats`]: unique id, global trip count, occurrences
//!   (repeated units), instructions and heat of one trip (the sum of its members' weights;
//!   a block's weight is its instruction count by default, or any per-block weight via
//!   [`StrataSink::with_weight`]), hotness (heat x trips) and the first and last
//!   instruction number. The tables have a fixed bucket count, so hot chains get sorted and
//!   the sort passes' reorder signal reports phase changes.
//! - The hierarchy is lossless: [`Detector::expand`] rebuilds the exact input stream from
//!   the top level down (layers -> strata -> repeated paths -> paths -> blocks).
//! - [`Sequitur`] builds an online SEQUITUR grammar of the repeated-path stream (digram
//!   uniqueness and rule utility), expands it, gives its size, and answers hot-subsequence
//!   queries ([`Sequitur::hot_rules`]) from the grammar without expanding it.
//!   [`Sequitur::encode`] writes it as a compact, checksummed file ([`grammar_file`]:
//!   SEQUITUR's implicit code through an adaptive range coder) that
//!   [`grammar_file::decode`] reads back and expands.
//! - [`PhaseDetector`] reports phase changes from the conditional-branch count per fixed
//!   instruction interval and the change of the block working set between intervals;
//!   [`StrataSink::phases`] merges them with the tables' reorder signal.
//! - [`isam`] writes and reads the ISAM file of strata records ([`StratumRecord`], one per
//!   repeated stratum), indexed by ending instruction, path and stratum number, with point
//!   lookups ([`isam::IsamFile::locate`]: which stratum, path and block were active at
//!   instruction N), range scans, a version, CRC-32 per frame, and a readable prefix plus a
//!   reported error for a damaged or truncated file. [`isam::IsamWriter`] writes the file
//!   while the run goes on ([`StrataSink::stream_to`]: full batches at every sampling
//!   interrupt), so a run killed on the way leaves its records so far readable.
//!
//! Use [`Detector`] directly for any symbol stream (it is generic over the symbol type and
//! takes symbols from any iterator), or [`StrataSink`] to profile a program run by the
//! emulator (symbols are block start addresses). `profkit strata FILE --out DIR` is the
//! command-line front end.
//!
//! ## Readings of the scanned spec
//!
//! The spec text was extracted from a scan (subscripts and Table 1's body are lost); this
//! crate reads it as follows.
//!
//! - "A B C A B C B": the second A closes path ABC; the second ABC, closed by the third B,
//!   matches it, so the previous path ABC has trip count 2 and the new path is B. "A B C A
//!   B D A": ABD (closed by the third A) differs from ABC, so ABC is passed up with trip
//!   count 1 and ABD becomes the previous path. The previous path is passed up only when a
//!   different path replaces it, or at the end of the stream ([`Detector::finish`]).
//! - A repeated path's identity at the next level is the pair (path id, trip count): the
//!   spec writes a path repeated 3 times as its own symbol ("P4" with a lost superscript),
//!   and keeping the trip count is what makes the hierarchy lossless. Loops with a fixed
//!   trip count therefore form repeating strata; loops whose trip count varies form
//!   distinct strata (visible in their members' `id^trips`).
//! - Table 1's rows are lost; what survives ("the initial three Bbs A B C are Path 0, the
//!   fourth, the second B, is Path 1") is the test `table_1_segmentation`.
//! - The strata examples lost their subscripts; they are read as "P1 P2 P3 P1 P2 P3 P2"
//!   (the stratum P1P2P3 gets trip count 2, the new stratum is P2), "P1 P2 P3 P1 P2 P4 P1"
//!   (P1P2P3 passed up, P1P2P4 becomes previous, the new stratum is P1) and "P1 P2 P3 P1"
//!   (S0 = P1P2P3, S1 = P1).
//! - "Only fully track a stratum whose length has 4 or less repeated paths" is
//!   [`Config::stratum_max_len`] = `Some(4)`: a stratum (or layer) that reaches the bound is
//!   closed as if the next unit repeated, so tables stay small and expansion stays exact.
//!   It is off by default (the spec applies it only "if the methods become computationally
//!   bound"). [`Config::path_max_len`] bounds paths the same way.
//! - Global trip counts are added when a repeated unit is passed up ("incremented by the
//!   current trip count of the repeated path"); [`Detector::stats`] adds the open unit's
//!   trips so it is current at any time. Each emitted unit counts its trips as accesses of
//!   its table entry (bounded-hashtable's `record`), and the sort clock runs in
//!   instructions ([`Config::sort_every`]).
//! - Instruction numbers count the instructions of the blocks entered (the sink uses the
//!   block's instruction count, so it equals the emulator's retired count for runs that
//!   end at a block boundary, as `exit` does).
//! - "Each record ... accessed by an ending instruction number, ending path number, ending
//!   strata number": a record is one repeated stratum; its ending path (stratum) number is
//!   the count of paths (strata) closed up to its end. Records are delta-encoded (the spec
//!   stores them "compressed").
//! - Phase signals: branch counts of consecutive intervals differing by more than a
//!   threshold (spec); the working set as the set of blocks executed in an interval,
//!   compared by Jaccard distance (the spec gives no measure); the reorder signal is
//!   bounded-hashtable's `phase_change`. The call-stack signal of the spec is not
//!   implemented.
//!
//! ## Example
//!
//! ```
//! use strata::{Config, Detector, Rep};
//!
//! // A loop whose body a b c runs 3 times and then leaves through d; all of it twice.
//! let stream: Vec<&str> = "a b c a b c a b c d  a b c a b c a b c d".split_whitespace().collect();
//! let mut d = Detector::new(&Config { grammar: true, ..Config::default() });
//! d.extend(stream.iter().copied());
//! d.finish();
//!
//! // Paths close where a block repeats: abc | abc | abcd | abc | abc | abcd.
//! assert_eq!(d.path(0), Some(&["a", "b", "c"][..]));
//! assert_eq!(d.path(1), Some(&["a", "b", "c", "d"][..]));
//! // Repeated paths: abc^2 abcd^1 abc^2 abcd^1; the stratum (abc^2 abcd^1) repeats twice.
//! assert_eq!(d.sequence(1, 0).unwrap(), [Rep { id: 0, trips: 2 }, Rep { id: 1, trips: 1 }]);
//! assert_eq!(d.stats(1, 0).map(|s| s.trips), Some(2));
//! // The top level (stratum layers) holds one layer, made of that repeated stratum.
//! assert_eq!(d.sequence(2, 0).unwrap(), [Rep { id: 0, trips: 2 }]);
//! assert_eq!(d.top(), [Rep { id: 0, trips: 1 }]);
//! // Lossless.
//! assert_eq!(d.expand().unwrap(), stream);
//! // The grammar of the repeated-path stream expands to it.
//! assert_eq!(d.grammar().unwrap().expand().len() as u64, d.emitted(0));
//! ```
//!
//! Profiling a program in the emulator (not run here):
//!
//! ```no_run
//! # use prof_events::Sink;
//! # fn run(sink: &mut dyn Sink) {}
//! use strata::{isam, Config, PhaseConfig, StrataSink};
//!
//! let mut sink = StrataSink::new(&Config::default(), PhaseConfig::default());
//! run(&mut sink); // e.g. isa_emu::Machine::run(&mut sink)
//! sink.finish();
//! let image = isam::write(sink.detector(), sink.blocks());
//! let (file, damage) = isam::IsamFile::parse(image);
//! assert!(damage.is_none());
//! let at = file.locate(1_000_000); // which stratum, path and block ran instruction 1e6
//! ```
//!
//! ## Cost
//!
//! Per block (the sink): one array read for the block's interned symbol index, the
//! membership test of the open path (an epoch stamp per symbol), one step in the trie of
//! paths (a comparison with the node's last or second-to-last successor; a hash lookup
//! only for a new successor), and the phase detector's interval bookkeeping. Per closed
//! path: one integer comparison with the previous path (trie nodes are sequences). Per
//! repeated path: one table access (a new path: an insert), the next levels' work (a
//! buffered stratum, looked up once per closed stratum) and the grammar's (SEQUITUR, whose
//! digram-index misses dominate). `examples/strata_cost.rs` measures the slowdown against
//! the emulator with no sink, and the grammar's size; `cargo xtask bench` (or
//! `bench-strata` alone) prints it as a table for ten guests. `examples/strata_replay.rs`
//! records a guest's block events once and replays them into fresh sinks: the sink's own
//! time per block and per path, and a run to profile without the emulator in it.
//!
//! | guest | mean trips | strata / no sink | block counter / no sink | run counter / no sink | 1.3x budget, ns per block | grammar ns per RP | raw RP stream / grammar file | raw / xz -9 |
//! |---|---|---|---|---|---|---|---|---|
//! | nbody | 1667 | 1.74 | 1.05 | 1.09 | 38.0 | 236 | 3395x | 1556x |
//! | phases | 109 | 1.79 | 1.12 | 1.04 | 3.65 | 71 | 708x | 472x |
//! | recursion | 1.67 | 6.39 | 1.35 | 1.15 | 2.22 | 148 | 121x | 109x |
//! | coremark | 4.73 | 10.8 | 1.83 | 1.65 | 1.26 | 105 | 70.3x | 57.7x |
//! | hash | 1.70 | 10.9 | 1.89 | 1.61 | 0.79 | 126 | 96.0x | 51.4x |
//! | strings | 3.65 | 11.7 | 2.12 | 1.81 | 0.59 | 129 | 84.0x | 54.2x |
//! | chase | 1.99 | 15.9 | 1.85 | 1.67 | 1.48 | 151 | 38.8x | 28.3x |
//! | crc | 2.71 | 18.2 | 1.70 | 1.56 | 1.07 | 93 | 64.5x | 42.1x |
//! | sort | 1.75 | 25.0 | 2.26 | 2.05 | 0.73 | 108 | 53.0x | 39.8x |
//! | primes | 3.00 | 26.5 | 2.96 | 2.25 | 0.27 | 85 | 240x | 110x |
//!
//! (`cargo xtask bench-strata --runs 3`, which runs `cargo run --release -p strata --example
//! strata_cost --features bench-examples -- guests/bin/GUEST.elf 3` per guest at its
//! default size: CPU time, median of 3 paired alternating runs on a shared 2-core machine
//! (this table: main at 25f565a with the run counter added), where repeated measurements
//! vary by 10-20%. "Mean trips" is the highest mean trip count of a level, cycles closed
//! per repeated unit; "block counter" is a sink that only counts the blocks, one call per
//! block; "run counter" counts them too but takes the emulator's traces, one call per run
//! of a trace, the floor of any sink that sees every block (a detector that memoized its
//! steps per trace could not go below it); the budget is what a ratio of 1.3 leaves a sink
//! per block, 0.3 times the no-sink time over the blocks executed; "grammar ns per RP" is
//! SEQUITUR alone, the stream re-fed to a fresh grammar. Sizes in bytes: the raw stream is
//! 12 bytes per repeated path; the grammar file is range-coded, read back and checked.)
//!
//! **The goal of 1.3x is out of reach on this emulator, whatever strata does.** With
//! compiled code the emulator runs a block of seven of the ten guests in 0.9 ns (primes) to
//! 4.9 ns (chase), so a ratio of 1.3 leaves 0.27-1.5 ns per block there: about one to four
//! cycles.
//! Running those guests with every block observed at all, even by a sink that does one
//! addition per run of blocks, already costs 1.56-2.25x: the blocks run as logged event
//! superblocks, not as the unobserved superblocks of a run with no sink. On top of that
//! floor, strata does per block the steps above, and per repeated path (sort has one every
//! 30 instructions, primes every 45) table work that the budget could not pay for even if
//! the blocks were free: primes' whole budget is 3.2 ns per repeated path. Only nbody,
//! phases and recursion have a floor under 1.3x; nbody and phases, whose floating-point
//! blocks the emulator interpreted then (floating point is compiled since a88f499), run at
//! 1.7-1.8x.
//!
//! Where the cost goes (the same example with `STRATA_GRAMMAR=0` and `STRATA_LEVELS=0` or
//! `2`, 3 paired runs each, at 2a4fb7e): paths alone cost 6.3x on sort, 4.9x on crc and
//! 11.3x on primes; the two upper levels bring that to 11.6x, 8.3x and 14.6x, and the
//! grammar to 22.1x, 14.3x and 24.9x. SEQUITUR's cost per repeated path is memory latency:
//! each symbol looks up and rewrites digrams and nodes spread over a grammar of 10^5
//! symbols. (A flat open-addressing digram index, and one keyed by first symbol with its
//! successors inline, measured no faster than the hash map used here.)
//!
//! Where the size goes: the range-coded grammar file is at least 64x smaller than the raw
//! repeated-path stream on every loop guest (a level's mean trip count of 2 or more), and
//! smaller than `xz -9` of the stream on every guest (0.46-0.90 of it). The start rule,
//! the part of the stream that no rule repeats, holds 54-76% of the grammar's symbols on
//! every guest: the streams of guests whose loops branch on data (crc's bitwise CRC-16,
//! sorts, pointer chasing, coremark's state machine) have real entropy, and on sort and
//! chase, which are not loop guests, both the file (53.0x, 38.8x) and xz (39.8x, 28.3x)
//! stay under 64x. The trip counts are not what breaks repetition: a grammar of the path
//! ids alone (trip counts dropped, so not lossless; the example prints it) has only 1.04x
//! (primes), 1.45x (coremark), 1.73x (crc) and 2.33x (sort) fewer symbols. The grammar is
//! off by default ([`Config::grammar`]).
//!
//! ## Features
//!
//! - `proptest`: the `strategies` module (looped and random symbol streams, detector
//!   configurations) for property tests.
#![forbid(unsafe_code)]

mod cycle;
mod detector;
pub mod grammar_file;
pub mod isam;
mod level;
pub mod phase;
mod rangecoder;
mod recency;
pub mod sequitur;
mod sink;

pub use detector::{Config, Detector, StratumRecord};
pub use level::{Rep, SeqStats};
pub use phase::{Phase, PhaseConfig, PhaseDetector, Signal};
pub use sequitur::{GSym, GrammarStats, HotRule, Sequitur};
pub use sink::{BlockMeta, StrataSink, WeightFn};
#[cfg(feature = "proptest")]
pub mod strategies;

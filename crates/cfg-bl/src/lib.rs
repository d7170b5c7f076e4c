//! # cfg-bl: Ball-Larus and hierarchical path profiling
//!
//! Control-flow graph recovery, Ball-Larus path numbering, and the hierarchical path
//! profiling of the "Hierarchical software path profiling" specification (region-based and
//! global-based), with a runtime [`PathSink`] that profiles real programs run by the profkit
//! emulator.
//!
//! Use it to get path profiles (flat or hierarchical) of RISC-V binaries (`profkit paths`
//! wraps it), or to number paths of your own control-flow graphs: build a [`Cfg`], choose
//! regions ([`RegionTree`]), and instrument it ([`Instrumented`]).
//!
//! ## Pipeline
//!
//! | step | module | what |
//! |---|---|---|
//! | CFG | [`cfg`](mod@cfg), [`recover`] | one CFG per function: blocks, edges (a `switch`'s jump table's targets where the code view resolves it), virtual entry and exit, call sites; recovered from a [`prof_events::CodeView`] |
//! | structure | [`structure`], [`hammock`] | backedges (DFS retreating edges), dominators, natural loops, SESE hammocks, the region tree (or regions given by the user) |
//! | hierarchy | [`hier`] | how every edge crosses regions; each region's hierarchical graph (inner regions as single nodes); representative paths |
//! | numbering | [`numbering`] | NumPaths and edge values on a DAG, regeneration of a path from its number, increments on the chords of a maximum spanning tree |
//! | plan | [`plan`], [`known_saves`] | the augmented CFGs (region-based: one per region with `Re`, `Rx`; global-based: one per function) and the per-edge operations of RB_PProf / GPProf; saved sums known when instrumenting folded away |
//! | runtime | [`runtime`], [`sink`] | counters, activations with their stack of saved outer sums, the emulator sink (with a per-block cache of composed steps) |
//! | checks | [`check`] | path profile against edge profile, per region |
//!
//! Flat Ball-Larus profiling is region-based profiling with the root region only
//! ([`RegionTree::flat`]): backedges end paths and start new ones.
//!
//! ## Example: number and profile a hand-built CFG
//!
//! CFG 200 of the spec: region `R1 = {C, D, E, F}` (entries C and E, backedge F->C) inside
//! a function entered at A or B and left at G or H.
//!
//! ```
//! use cfg_bl::{Cfg, Counters, Hierarchy, Instrumented, Mode, RegionTree, Weights};
//!
//! let (cfg, n) = Cfg::from_names(
//!     &["A", "B", "C", "D", "E", "F", "G", "H"],
//!     &["A", "B"],
//!     &[("A", "C"), ("B", "E"), ("C", "D"), ("C", "E"), ("D", "H"), ("D", "F"),
//!       ("E", "F"), ("F", "G"), ("F", "C")],
//!     &["H", "G"],
//! )?;
//! let regions = RegionTree::from_user(&cfg, &[vec![n[2], n[3], n[4], n[5]]])?;
//! let inst = Instrumented::new(Hierarchy::new(cfg, regions)?, Mode::RegionBased, &Weights::Estimate)?;
//! // Region 1 has the four paths CD, CDF, CEF, EF; the function the four A/B R1 H/G.
//! assert_eq!(inst.table_sizes(), vec![4, 4]);
//! assert_eq!(inst.render(&inst.decode(1, 2).unwrap()), "C E F");
//!
//! // Run the plan along A C E F C D H (one activation) and read the counters back.
//! let walk = [Cfg::entry(), n[0], n[2], n[4], n[5], n[2], n[3], n[7], Cfg::exit()];
//! let mut counters = Counters::new(&inst);
//! inst.walk(&walk, &mut counters)?;
//! let mut paths: Vec<String> = counters
//!     .paths(&inst)?
//!     .iter()
//!     .map(|(p, count)| format!("R{}: {} x{count}", p.region, inst.render(p)))
//!     .collect();
//! paths.sort();
//! assert_eq!(paths, ["R0: A R1 H x1", "R1: C D x1", "R1: C E F x1"]);
//! # Ok::<(), cfg_bl::Error>(())
//! ```
//!
//! Profiling a guest: `Program::recover(&machine, &[entry])`, then
//! `machine.run(&mut PathSink::new(program, mode, RegionChoice::Loops))`, then
//! [`PathSink::paths`]. [`LazyProgram`] (over the file's own code view,
//! `machine.image().clone()`) and [`PathSink::lazy`] give the same profile but recover each
//! function on its first call: a static binary's C library is mostly never called, and
//! recovering all of it (~830 functions, ~12 ms for each guest here) can cost more than a
//! short run.
//!
//! ## Readings of the specification
//!
//! The spec was extracted from a scan; where it is ambiguous this crate chooses:
//!
//! - **Virtual nodes.** Every CFG has a virtual entry and exit (node 0 and 1); the root
//!   region's paths run from the entry to the exit, so function entry/exit edges are ordinary
//!   edges and a function with several entry or exit blocks needs nothing special.
//! - **Representative entry/exit.** A region's representative path starts at its first entry
//!   child (first in CFG edge order) and follows first successors to an exit child. Region
//!   based profiling uses its first node as `Er(r)`; global-based profiling its whole path.
//! - **Multi-level exits (GPProf).** For level `i > 1` the count adds `val(Xr(R_{i-1})->fx)`
//!   (the spec prints `val(v->fx)`, the same when `v` is that representative exit, as in
//!   Fig. 9). Entries that cross several levels at once are handled level by level too.
//! - **Region entry hubs.** The global augmented graph has one virtual node `E_R` per region
//!   (`fe->E_R->Er(c)`), so paths of different regions can never share a plain path, even
//!   when a region's path is just an inner region.
//! - **Shrinking.** "Removing the edges from prolog nodes to non-representative entry nodes
//!   and from non-representative entry nodes to epilog nodes" is read as *exit* nodes for the
//!   second half; [`Mode::GlobalBased`]`{ shrink: true }` keeps only the representative edges.
//! - **Edge-value reassignment.** The plan of a CFG edge `v->w` crossing regions uses the
//!   value of the representative edge `Xr(a)->Er(b)`; values of original edges are unused.
//! - **Dead ends.** A child with no predecessor (successor) in its region's hierarchical graph
//!   is made an entry (exit), so every node lies on a path.
//! - **Overflow.** Path counts are exact `u128`; a graph with 2^128 or more paths is an
//!   [`Error::Overflow`] (the runtime then leaves that function unprofiled and counts it in
//!   [`sink::Stats::failed_functions`]); regions are not split automatically. A graph with
//!   more than 2^63 - 1 paths is numbered with each node's out-edges ordered by their
//!   targets' path counts, fewest first, and its increments are the edge values (see
//!   [`numbering`]): its paths that leave early are numbered low, and a path's running sum
//!   never passes its number, so those numbered below 2^63 run in compiled probes, which
//!   hold 64-bit sums. Paths numbered above run on the sink's 128-bit sums; where every
//!   way on from the node such a path stands at adds less than 2^63 - 1 before it counts
//!   (and its function saves no sum), the sink keeps the true sum and lends compiled
//!   probes a negative sum in its place, which no counter holds, so that they run the
//!   path on until it ends (the sink then counts the true sum plus what they added).
//! - **Known saved sums.** Where every entry of a region saves one constant outer sum (a
//!   loop at a function's start, after a straight prologue, or after a loop whose exit
//!   restores a constant), [`Instrumented::fold_known_saves`] drops the region's pushes and
//!   makes its pops assign the constant (see [`known_saves`]); the [`PathSink`] folds every
//!   plan it builds. The spec's plan ([`Instrumented::new`]) is left as RB_PProf and GPProf
//!   give it; both count the same paths (a property test walks both).
//! - **Counters.** A table per region. Global-based, GPProf's one table of the
//!   function's sums is cut in one slice per region: every path of a region starts with
//!   `fe->E_R`, so its sums are consecutive ([`Instrumented::table_sums`]), and a small
//!   region's slice is dense where the whole function's table would be sparse. (A function
//!   of more than 2^63 - 1 paths keeps one table.) A table is dense (a vector indexed by
//!   path sum, less the table's first) when it holds at most [`runtime::DENSE_LIMIT`]
//!   (65536, 512 KiB), else sparse through `bounded-hashtable` (only paths that occur
//!   take memory); [`PathSink::dense_limit`] moves the threshold, and both kinds give
//!   identical profiles (tested on the guests). So that a large program's memory stays
//!   bounded, once the sink's dense counters number [`PathSink::dense_budget`] (2^22,
//!   32 MiB) only tables of at most 4096 sums are made dense.
//! - **Regions.** Natural loops ([`RegionTree::loops`]), loops plus single-entry
//!   single-exit hammocks ([`RegionTree::loops_and_hammocks`], see [`hammock`]), or user
//!   regions ([`RegionTree::from_user`]; for a program run, per function by block start
//!   addresses through [`PathSink::set_regions`], other functions keeping the sink's
//!   [`RegionChoice`]). User regions may have several entries (as R1 of CFG 200); they must
//!   nest, and leaving and re-entering a region without a backedge is rejected
//!   ([`Error::Cyclic`]).
//! - **Region labels.** Region ids, and the `R<id>` labels of [`Instrumented::render`], are
//!   the tree's order: the root is 0, then regions by size, larger first (a parent before
//!   its children). The spec numbers inner regions innermost first, so in CFG 700 our R1 is
//!   its R2 (B..G) and our R2 its R1 (C..F): its path `B R1 G` renders as `B R2 G` and
//!   `A R2 H I` as `A R1 H I` (same paths, labels swapped; see `tests/spec_examples.rs`).
//! - **Weights.** Increments go on the chords of a maximum spanning tree of a static
//!   estimate ([`Weights::Estimate`]) or of a measured edge profile ([`Weights::Measured`];
//!   for a program run, [`PathSink::set_edge_profile`] with [`PathSink::edge_profile`] of
//!   an earlier run that recorded edges). An augmented edge weighs what the CFG edges
//!   whose additions use it weigh: an increment that lands in a path end's count or a
//!   start's assignment costs nothing, so those edges become chords first, and a hot
//!   branch whose paths end apart adds nothing. Every path of a table starts on edges
//!   no other path takes (a region's source's out-edges; global-based, `fe->E_R`), with
//!   an assignment or a push: what the table's heaviest count adds (and global-based,
//!   the slice's first sum) is taken off there, so that count adds nothing. Path numbers
//!   and counts do not depend on the weights, only which edges carry additions (tested on
//!   the guests). A graph with more than 2^63 - 1 paths ignores the weights (see
//!   **Overflow**).
//! - **Program end.** The program may end in any block that calls, makes a system call, or
//!   cannot reach a return (an endless loop such as a bare-metal `_exit`'s `j .` after its
//!   store to `tohost`): recovery gives those blocks exit edges, so every activation's paths
//!   end at the run's end (see [`recover`]). A bare-metal guest stops after the emulator
//!   block holding that store, having taken `j .` once: its last path ends in a block that
//!   the edge profile counts once but that did not run again.
//! - **Traversal.** RB_PProf and GPProf visit every edge once from the entries and insert code
//!   that depends only on the edge's class; [`plan`] builds the same code edge by edge.
//! - **Indirect jumps.** A `switch`'s jump table whose targets the code view resolves
//!   ([`CodeView::jump_tables`](prof_events::CodeView::jump_tables): isa-emu follows the
//!   values registers may hold) gives flow edges from the jump to each target, so paths run
//!   through the `switch`. An unresolved indirect jump ends the activation's paths at the
//!   jump and restarts them at the target (see [`recover`] and [`sink`]). The targets it
//!   may restart at are the code pointers the program holds inside the function where the
//!   view knows them ([`CodeView::code_pointers`](prof_events::CodeView::code_pointers):
//!   glibc's `vfprintf` jumps through tables of label addresses) and the return sites, or
//!   else every instruction of the function, each then a block of its own.
//!
//! ## Overhead
//!
//! The runtime composes the plan's operations per emulator block once (see [`sink`]), so a
//! flow edge is a key compare, an address compare and an addition, a path end one counter
//! increment (an indexed add in a dense table, an add in a sparse table's front cache). On
//! an emulator that compiles blocks, those additions and path ends run in the blocks' code
//! as probes ([`prof_events::probe`]), and so do calls (indirect ones per target), tail
//! calls and returns where the callee starts with an assignment of its sum, the caller
//! resumes with an addition (or ends a path first) and the callee's end is a single count:
//! compiled code makes the call and the return, the sink taking over a call whose return
//! it did not take. So do the unresolved indirect jumps (a `switch`, per target) where the
//! activation's end is a single count and its restart an assignment. The hierarchical
//! modes' steps that enter or leave a region (`push; set`, `push; set; count; set`, each
//! also entering a second region nested in the first, `count; pop`, `count; pop; add`,
//! `push; set; count; pop`, `count; pop; push; set`, and `count; pop; count; set` or
//! `count; pop; count; pop`, which leave a region at the outer one's path end or leave
//! two) are probes too, on the probe state's
//! stack of saved sums. Other region steps, transfers out of a function and the
//! probes that miss reach the sink; it takes the emulator's traces through the other
//! calls: a run through one is a single step, composed once per trace and entry key.
//! Measured with `cargo xtask bench-paths --runs 5` (part of `cargo xtask bench`) at
//! ee5cc5b: thread CPU time, median of 5 alternating runs, ratio to the same emulator
//! with no sink (set-up, recovery of the functions called and instrumentation included),
//! on a shared 2-core machine (4 ms ticks; repeated runs move a guest's ratio by up to
//! 10-15%: one more run of ee5cc5b with `--runs 3` gave geomean flat 1.47x, one of the
//! build before it 1.45x, and one of 4cbafaa, whose calls run between a superblock's
//! parts, flat 1.46x, region-based 1.50x, global-based 1.52x and no-op 1.18x; one of
//! deff4f4 with `--runs 5`, flat 1.44x, region-based 1.50x, global-based 1.55x and no-op
//! 1.17x):
//!
//! | guest (size) | no sink | edges only | no-op probes | flat BL | region-based | global-based |
//! |---|---|---|---|---|---|---|
//! | coremark 3000 | 0.216 s | 2.09x | 1.20x | 1.72x | 1.61x | 1.80x |
//! | sort 300000 | 0.272 s | 2.01x | 1.49x | 1.66x | 1.81x | 1.79x |
//! | chase 250000 | 0.276 s | 1.48x | 1.10x | 1.22x | 1.30x | 1.25x |
//! | nbody 50000 | 0.296 s | 1.05x | 1.08x | 1.19x | 1.23x | 1.23x |
//! | strings 500000 | 0.312 s | 1.77x | 1.22x | 1.56x | 1.64x | 1.64x |
//! | primes 400000 | 0.184 s | 2.00x | 1.28x | 1.59x | 1.74x | 1.70x |
//! | crc 1048576 | 0.080 s | 1.75x | 1.00x | 1.20x | 1.30x | 1.30x |
//! | geomean | | 1.70x | 1.19x | 1.43x | 1.50x | 1.51x |
//!
//! What 1.2x asks of each path: the flat profile's path executions (`profkit paths --mode
//! flat`, its header line) per nanosecond of the run with no sink. On five of the seven
//! guests a path ends every 2.6-5.0 ns of the emulator's own time (coremark 81.8M paths in
//! 0.216 s: 2.6 ns; primes 59.7M: 3.1 ns; sort 71.5M: 3.8 ns; crc 21.0M: 3.8 ns; strings
//! 61.9M: 5.0 ns), so 1.2x leaves 0.5-1.0 ns, 1.4-2.6 cycles at the 2.6 GHz the machine
//! reports, per path for all of its work: its additions, its path end, and the calls and
//! returns among the paths (sort makes 21.0M calls, one per 13 ns; `profkit run --format
//! callgrind`, its `calls=` lines). The table's flat runs spend 1.8 (primes), 1.9
//! (coremark), 2.5 (sort) and 2.8 (strings) ns per path, and crc 0.76 ns, which is its
//! 1.2x. Chase (23 ns per path) and nbody (219 ns) leave more room, and both are at or
//! near 1.2x flat. A path end alone is at least a counter's address and an increment in
//! memory; the calls and returns of call-heavy code keep frames in memory too.
//!
//! For scale, the same guests compiled natively for the host (`gcc -O2 -o G
//! guests/src/G.c -lm`; `perf stat -r 7 -e task-clock`, 2026-11-29) run coremark 3000 in
//! 89 ms, sort 300000 in 162 ms, primes 400000 in 38 ms, strings 500000 in 88 ms and crc
//! 1048576 in 29 ms: the emulator with no sink (the table's runs) is only 1.7x (sort) to
//! 4.7x (primes) slower, so the fifth of its time that 1.2x allows is 0.3-0.9x of the
//! native run's time. GCC's own edge profiling,
//! counters on a spanning tree's chords in native, register-allocated code (`-O2
//! -fprofile-arcs -fprofile-update=single`), costs 1.15x (coremark), 1.00x (sort), 1.06x
//! (primes), 1.32x (strings) and 1.79x (crc) there: 14 ms, 0, 2 ms, 28 ms and 23 ms.
//!
//! Where it goes: `cargo xtask bench-paths` also runs the example's `no-op` sink, whose
//! probes have a flat profile's shape (an addition of 0 on every fixed exit, calls and
//! returns that keep their frames, restarts on indirect jumps) but no additions or path
//! ends of their own. Run alone (`overhead --runs 5 --only no-op`, twice each) it cost
//! 1.13x-1.17x on coremark 3000, 1.40x-1.41x on sort 300000 and 1.27x-1.29x on primes
//! 400000, and 0.96x-1.20x on the others in two bench-paths runs (geomean 1.18x-1.19x). So
//! running with probes at all (blocks chained through probed stubs instead of the
//! superblocks of a run with no sink) already costs more than 1.2x on sort and primes, and
//! the flat profile's additions and path ends multiply that by 1.23x-1.24x (geomean of the
//! same two runs; 1.33x-1.37x on sort and primes). These no-op figures overstate sort's:
//! the no-op sink then kept the open frames where an event reached it, so past sort's merge
//! sort deeper than [`FRAMES`](prof_events::FRAMES) every call, and the code below it, went
//! through the run loop; since 82f153d it takes them over, as the path sink does (sort
//! 300000 no-op: 0.408/0.408/0.436 s -> 0.392 s in three alternating rounds of
//! `overhead --runs 3 --only no-op`, 0.272 s with no sink).
//!
//! What each kind of code costs, from `profkit --perf-map`, which names the emulator's
//! compiled code by guest block and by what it does (`perf record -F 4000 -e cpu-clock
//! target/release/profkit paths --mode flat --perf-map guests/bin/sort.elf 300000`, and
//! `run --no-profile` for the run without a sink; milliseconds of samples, two runs each;
//! "glue" is the compiled code's exits, logs, guards and indirect jumps, "host" the rest
//! of the process: loading, recovery and instrumentation, the sink and the report):
//!
//! | guest (size) | sink | total | guest code | glue | calls and returns | path ends | additions | host |
//! |---|---|---|---|---|---|---|---|---|
//! | coremark 3000 | none | 247-248 | 190-191 | 31-33 | | | | 24-26 |
//! | coremark 3000 | flat | 427-428 | 173-183 | 65-68 | 30-31 | 70-83 | 27-28 | 52-53 |
//! | sort 300000 | none | 306-307 | 222-224 | 53-56 | | | | 28-29 |
//! | sort 300000 | flat | 557-584 | 180-190 | 74-81 | 130 | 35-39 | 19-24 | 104-126 |
//! | primes 400000 | none | 207-209 | 175-177 | 14 | | | | 17-19 |
//! | primes 400000 | flat | 346-349 | 220-223 | 19-22 | 27-29 | 23-24 | 4-6 | 48 |
//! | strings 500000 | none | 348-372 | 273-295 | 47-52 | | | | 27 |
//! | strings 500000 | flat | 530-534 | 239-252 | 64-65 | 76 | 32-38 | 53-59 | 55-59 |
//!
//! No one part is the overhead: on sort the probes of calls and returns take the most,
//! on coremark the path ends
//! of `main`'s matrix loops (one per iteration of eight instructions, in a sparse table's
//! windows), on strings the additions as much as the calls, and on primes the guest's own
//! code runs slower in the probed blocks than in the superblocks of a run without a sink.
//! Coremark costs less region-based than flat (1.55x/1.58x against 1.71x/1.74x in two
//! bench-paths runs of 4b97afd): `perf record -F 8000 -e cpu-clock target/release/profkit
//! paths --mode MODE --perf-map guests/bin/coremark.elf 3000`, one run each at 4b97afd,
//! put 11.7% of flat's samples in sparse path ends (`path end`: a window search
//! in the state's ends, even where the code knows the sum) and 7.6% in additions, against
//! 7.0% in region-based mode's path ends of dense tables (`count`: immediates, and one
//! known counter where the code knows the sum) and 1.7% in additions, for 81.8M and 89.9M
//! paths (before the pinned windows below). The flat paths that start at a loop head L have
//! the contiguous numbers `[Val(ENTRY->L), Val(ENTRY->L) + NumPaths(L))`, but a back edge's
//! path end cannot tell that range: with increments on chords its assignment is not
//! `Val(ENTRY->L)`, so a fixed window over it was not built.
//! A call under a known key takes the key and sum left pending, which it sets anyway, and
//! stores its frame's fields as immediates (35 instructions down to 24 at sort's insertion
//! loop; `overhead --runs 3 --only flat`, three alternating rounds, medians before ->
//! after: sort 300000 0.456 -> 0.444 s, coremark 3000 0.376 -> 0.372 s, chase 250000
//! 0.340 s both). A call that only opens the callee's frame runs between the parts of a
//! probed superblock (4cbafaa), which then goes on into the callee: strings 500000 flat
//! 0.504 -> 0.476 s, primes 400000 0.304 -> 0.292 s, sort and coremark unchanged (same
//! command). Region entries between parts too measured no different beyond the noise, and
//! calls that end the caller's path first, between parts too (in rax, rcx and rdx),
//! measured slower in the region-based mode (sort 300000 0.496 -> 0.520 s, strings 500000
//! 0.508 -> 0.520 s, medians of three rounds), so neither was kept. A path end's increment itself costs little: coremark 3000 flat with the
//! compiled increments replaced by compares (a timing experiment, not kept) ran
//! 0.368-0.376 s against 0.372 s. A path end's ways in `ends` are checked against the
//! table once and then read at fixed displacements from it (6176b0b; same command, before
//! -> after): coremark 3000 flat 0.376 -> 0.368 s, primes 400000 0.292 -> 0.284 s,
//! strings 500000 0.496 -> 0.460 s, region-based sort 300000 0.500 -> 0.488 s and strings
//! 0.520 -> 0.508 s, global-based unchanged. A sparse path end's probe
//! ([`ProbeOp::End`](prof_events::ProbeOp)) carries the sum after it, so that the code after
//! it knows the sum (alone within the noise: coremark 3000 flat 0.368-0.376 s before,
//! 0.368 s after; primes 400000 0.284-0.288 s before, 0.284-0.292 s after), and the window that counted most when the probe is asked for,
//! pinned (it never moves while the arena lasts) and tried first: with the sum known, one
//! known counter instead of the search of six ways. The emulator asks for a block's probes
//! when it first translates the block, before any window exists, so it asks again for the
//! path ends when an event superblock forms, but only for the parts that run in the
//! activation the superblock starts in (up to its first call): the sink answers for the
//! activation on top, and asking for every part, which a first try of pinning did, made
//! every guest slower (coremark 0.38 -> 0.54-0.64 s, sort 300000 0.45 -> 2.9 s), likely
//! because a callee's parts got the answers for its caller (not checked). Same command, three alternating rounds,
//! medians before -> after: coremark 3000 flat 0.368 -> 0.344 s and global-based 0.380 ->
//! 0.364 s (region-based, with dense tables, 0.344 s both in five rounds); primes 400000
//! flat 0.284 s both; sort 300000 and strings 500000 flat 0.424 ->
//! 0.428 s and 0.468 -> 0.472 s (within the noise: 0.424-0.428 and 0.460-0.480 s before).
//! A probed event superblock may end in a return with a probe, which its exit runs, instead
//! of leaving for the return's block (primes' `__umodti3`, strings' and sort's leaf
//! functions): `--runs 5`, four alternating rounds, medians: strings 500000 flat 0.465 ->
//! 0.454 s, sort 300000 flat 0.426 -> 0.428 s; primes 400000 flat 0.284-0.288 s either way
//! (`--runs 3`, three rounds). A pop whose sum the code knows, counting a known counter
//! (measured as a bound by counting every such pop at counter 0, not kept), ran coremark
//! 3000 region-based 0.348 -> 0.344 s and global-based 0.360 -> 0.356 s: too little to
//! give pops a pinned window too (294 of the 579 pops compiled in each mode knew their
//! sum). Returns whose sum the code knows (a superblock that made the call, at its end)
//! are too rare for that: 0 of 104 returns compiled on sort 300000 flat, 2 of 141 on
//! strings 500000, 0 of 82 on primes 400000.
//! Tried and measured no faster, so not kept: immediates for the returns' and path ends'
//! bounds checks (a few instructions a probe), and trying a sparse path end's windows
//! newest first, replacing the one that counted least (coremark 3000, flat: 0.376-0.380 s
//! either way).
//!
//! Where compiled code leaves for the sink, the run loop delivers the event: about 60-80
//! ns each (on primes 400000, flat, 196 000 fewer entries took a run from 0.312-0.316 s
//! to 0.300 s), and a run of the sink's slow path takes over the open frames, so the
//! returns after it reach the sink too. Counting the run loop's entries per run (a
//! temporary counter, not kept) found these, now probes or compiled (before -> after):
//! a `switch` in glibc's `_wordcopy_fwd_aligned` whose hot targets its indirect jump's
//! site lost to rare ones (sort 300000 flat, 494 557 -> 105 220 entries); `amoswap.w` in
//! `_int_free`, which made its event superblock bail out (chase 250000 flat, 485 776 ->
//! 264 577); steps that enter two nested regions at once, or leave one and add (strings
//! 500000 global, 464 177 -> 132 460; coremark 3000 region, 280 401 -> 33 023); a call
//! whose block enters a loop first (chase region, 484 748 -> 279 199); a sparse path end
//! with six hot sums in four windows (primes 400000 flat, 200 019 -> 3 718); the same
//! `switch` again, with 7 targets for a site's 4 ways, whose restarts each took over the
//! open frames of sort's recursive merge sorts, so that their returns reached the sink
//! too (sites hold 8 targets since 6080717: sort 300000 flat, about 250 000 edges and
//! 61 000 traces delivered -> 2 700 and 300). Each
//! measured 2-20% faster on the guest and mode concerned in alternating runs, but the
//! geomeans of `cargo xtask bench-paths` did not move clearly beyond the machine's noise
//! (three runs of bac7668, `--runs 3` then `--runs 5` twice: flat 1.51x/1.54x/1.42x,
//! region-based 1.55x/1.56x/1.43x, global-based 1.60x/1.60x/1.56x, while coremark's run
//! with no sink took 0.228 s in the first two and 0.332 s in the third). The sites'
//! 8 ways measured 0.444 -> 0.432 s on sort 300000 flat and 0.516 -> 0.484 s
//! region-based (`overhead --runs 3 --only MODE`, medians of three alternating rounds).
//! Leaving a region at the outer one's path end, or two regions at once, became a probe
//! ([`ProbeOp::PopEnd`](prof_events::ProbeOp), 4b97afd): strings 500000 delivered about
//! 250 000 events region-based (strstr's nested loops), then about 380, and ran 0.510 ->
//! 0.496 s region-based and 0.516 -> 0.498 s global-based (same command, medians of four
//! rounds). Two runs of `cargo xtask bench-paths --runs 5` at 4b97afd gave geomean flat
//! 1.43x/1.46x, region-based 1.48x/1.50x, global-based 1.48x/1.52x and no-op 1.17x/1.18x:
//! within the noise of the table's runs. Two runs at 014a817 (pinned windows, returns
//! ending probed superblocks) gave geomean flat 1.39x/1.41x, region-based 1.49x/1.48x,
//! global-based 1.47x/1.50x and no-op 1.16x/1.18x; coremark 3000 flat 1.55x/1.58x and
//! global-based 1.60x/1.63x (1.71x/1.74x and 1.75x/1.79x at 4b97afd), but chase's run with
//! no sink took 0.320 s and 0.372 s instead of about 0.25 s, which lowers its ratios (flat
//! 1.28x/1.27x) and the geomeans with them.
//! Additions to a sum the code does not know are deferred between a probed superblock's
//! parts (one check that the state's sum lies within ±2^62, then a delta known when
//! compiled, which the path end adds to the sum it reads): coremark 3000 flat 0.344 ->
//! 0.328 s, region-based 0.348 -> 0.344 s, global-based 0.352 s both (medians of three
//! alternating rounds of `overhead --runs 3 --only MODE`); sort 300000, strings 500000,
//! primes 400000 and crc 1048576 flat within the noise (two rounds each). A return's probe
//! carries a dense table's path end as its way to try first, as a path end's does, so its
//! code counts without reading the way from the ends: sort 300000 flat 0.436 -> 0.422 s
//! (medians of six alternating rounds of `--runs 3`), strings 500000, primes 400000 and
//! coremark 3000 within the noise (0.464 s both; 0.284 -> 0.288 s over seven rounds;
//! 0.324 -> 0.328 s). Three runs of
//! `cargo xtask bench-paths --runs 5` at 57923a3 gave geomean flat 1.41x/1.42x/1.42x,
//! region-based 1.50x/1.53x/1.51x, global-based 1.51x/1.52x/1.52x and no-op
//! 1.16x/1.19x/1.18x; coremark 3000 flat 1.56x/1.54x/1.54x, with its run with no sink
//! taking 0.208-0.210 s (0.215-0.220 s at 014a817), so its ratio hides the shorter time.
//! The sink's own set-up, the lazy recovery and instrumentation of the functions a run
//! reaches, took 3.0% of the samples of coremark 3000 flat (`perf record --call-graph
//! dwarf`): about 5% of the run with no sink. Three fixes since: a region's children are
//! found through an index, not a search (57923a3); a hierarchy's maps hash with foldhash
//! (6cc9ef1); and a level dedups its edges in a set, where searching the virtual entry's
//! out-edges, to nearly every child, was quadratic (7c81af0). `profkit paths --mode flat`
//! on coremark 10, 20 runs a round, three rounds alternating builds from before and after
//! the three: 31.6-36.6 ms -> 27.0-27.9 ms a run.
//! A `switch` compiled to a jump table was an unresolved indirect jump: coremark's
//! `next_token` was swept (every instruction a block, a NumPaths past the dense tables),
//! its paths ended at the jump and restarted at the target. Its table's targets are now
//! flow edges ([`recover`]), whose probes at the jump's site are additions (a034896); and
//! a call under the known guard leaves the callee's sum pending, so that the callee's path
//! ends in the same superblock count known counters (f82bacf). Both, against 2f4babf
//! (`overhead --runs 3 --only MODE`, alternating rounds, medians; runs with no sink moved
//! between 0.21 and 0.38 s on the shared machine): coremark 3000 flat 0.332 -> 0.320 s
//! (five rounds), region-based 0.350 -> 0.338 s and global-based 0.370 -> 0.364 s (four),
//! strings 500000 flat 0.460 -> 0.452 s (five), sort 300000 flat 0.436 s both (five).
//! Three runs of `cargo xtask bench-paths --runs 5` of this code (f82bacf, b5368a1) gave
//! geomean flat 1.36x/1.35x/1.38x, region-based 1.43x/1.46x/1.47x, global-based
//! 1.45x/1.50x/1.44x and no-op 1.13x/1.14x/1.14x, with coremark's run with no sink taking
//! 0.296, 0.248 and 0.216 s (0.208-0.210 s at 57923a3) and chase's 0.364, 0.352 and
//! 0.344 s (0.170-0.224 s), which moves their ratios: within the noise of the runs at
//! 57923a3 and 1cbd783 above.
//! Since (dcbe3cb -> 3aba428): a path end of a known sum counts its counter at a known
//! displacement, 4 instructions instead of 7 (4c3189f); a sink that saves no sums says so
//! ([`prof_events::Sink::saves_sums`]: the flat mode and the benchmark's no-op sink), and
//! compiled calls and returns then leave the floor alone, 8 instructions and 7 memory
//! accesses fewer per call and return (a7b4f7d); a region exit's probe carries a dense
//! table's path end as its way to try first, as a return's does (a80ae97); and returns
//! and every region probe take the key and sum pending instead of having them stored and
//! read back (b3ef3ae, 6cb90af, 32009c0, 3aba428). Each moved its guests by 0-5% in
//! alternating A/B rounds (`overhead --runs 3 --only MODE`, medians in the commits; e.g.
//! a7b4f7d, flat sort 300000 0.428 -> 0.406 s and primes 400000 0.272 -> 0.268 s). Three
//! runs of `cargo xtask bench-paths --runs 5` at 3aba428 gave geomean flat
//! 1.37x/1.35x/1.35x, region-based 1.44x/1.43x/1.41x, global-based 1.44x/1.42x/1.42x and
//! no-op 1.15x/1.14x/1.14x, against flat 1.36x/1.35x/1.38x, region-based
//! 1.43x/1.46x/1.47x and global-based 1.45x/1.50x/1.44x at f82bacf: the flat mode within
//! the noise, the hierarchical modes a few percent lower. Coremark's run with no sink took
//! 0.220-0.232 s (0.208 s on a quiet machine). What is left is spread thin: one
//! `perf record -e cpu-clock -F 10000` run each of coremark 3000 with no sink and flat
//! (with `Config::perf_map`, at dcbe3cb) put the flat run's extra samples in `main`'s
//! matrix loops (+31%), `list_sort` (+48%: path ends and its indirect call's probes) and
//! `next_token` (+108%: exits, path ends, its return and its jump table's site), none
//! in one probe; coremark 3000 flat ends 79.2M paths, so its 0.07 s beyond the no-op
//! sink is under 1 ns a path. In primes 400000 (the same runs), the body sections of
//! `__umodti3`'s compiled code, the same instructions with and without probes, took 2158
//! samples against 1659 without a sink: a third of the flat run's 1627 extra samples lie
//! in code the probes do not change, which sampling on this machine (no hardware
//! counters) cannot explain.
//! Tried and not kept: lending the frames the sink took over back to the probe state
//! when it next lends it (the inverse of taking them over, up to four a lease): chase
//! 250000 flat delivered about 470 000 events instead of 760 000 and strings 500000
//! region-based 29 000 fewer returns, but chase's median ratio over five alternating
//! rounds of `--runs 5` stayed the same (flat 1.37x -> 1.38x, global-based 1.33x ->
//! 1.37x); and 64 frames instead of 16, which changed neither the events delivered
//! (chase, sort) nor the times (chase 250000, recursion 12) beyond the noise.
//! Since (5fe6cfd -> 00446a3), fewer events. A logged block returns to the run loop after
//! its first record while a state is lent (59bad9f): going on, every probe missed until
//! the record was delivered, the calls logged meanwhile became the sink's, and their
//! returns missed in turn, which fed itself (the no-op sink got 1.9M edge events on sort
//! 300000, then 554; the path sink on chase 250000 flat 568762, then 322297, and on
//! coremark 3000 region-based 34342, then 13398). And a return into the innermost open
//! frame, or a tail call within it, whose probe missed (a sparse table's windows without
//! its sum) no longer takes over the open frames: the sink counts the path as the probe
//! would have and closes or keeps the frame (00446a3; chase 250000 flat 322294 -> 269390
//! events). Event counts are from a temporary counter in `PathSink::edge`; the A/B
//! timings of both commits moved within the noise of a machine running 2-3x slower than
//! the day before (in the commit messages). Two runs of `cargo xtask bench-paths --runs
//! 5` at 00446a3 gave geomean flat 1.22x/1.28x, region-based 1.37x/1.39x, global-based
//! 1.42x/1.40x and no-op 1.11x/1.14x, but with no sink coremark 3000 took 0.403/0.358 s
//! and strings 500000 0.614/0.776 s (0.220-0.232 s and 0.312-0.324 s the day before), so
//! these ratios are not comparable with the ones above. Tried and not kept: taking over only the
//! outer half of the frames when a call finds them full, so that deep recursion keeps its
//! inner calls in compiled code. Recursion 25 (Ackermann and other deep call trees) then
//! delivered 10985910 edge events in the flat mode instead of 10411239, and `profkit paths
//! --mode flat` took 9.31 s of user time against 8.37 s at 00446a3 and 9.16 s at 5fe6cfd
//! (one run each, `/usr/bin/time`; the guest runs 5.6 s with no sink):
//! a stack that deep costs an event per frame beyond the state's either way.
//!
//! Since (77c4305 -> 7576d1f), shorter path ends. A sum known when compiled that the way
//! given first (`first`) holds is counted there only, with no search of the other ways
//! after it (09b5247); where the sum is not known, that search goes after the block's
//! exits, so the first way's count falls through instead of jumping over ~400 bytes of
//! rarely run code (50cb763); additions of 0 and the overflow and carry checks that cannot
//! fail are not emitted (09b5247, 7576d1f). With the machine as noisy as the day before
//! (coremark 3000 with no sink 0.28-0.50 s from run to run), these were measured by
//! instruction counts, which do not move with the machine's load: `valgrind
//! --tool=cachegrind --cache-sim=no --smc-check=all` of `profkit run --no-profile` and of
//! `profkit paths --clear-env --mode M` at the bench's sizes (set-up and output included).
//! The instructions a profile adds fell by 2.1-10.4% (flat: coremark 3000 -8.3%, sort
//! 300000 -6.5%, chase 250000 -2.1%, strings 500000 -6.2%, primes 400000 -4.3%, crc -8.0%),
//! and the profiles are byte-identical. As ratios of instructions, geomean over those six:
//! flat 1.404x -> 1.382x, region-based 1.501x -> 1.468x, global-based 1.546x -> 1.515x.
//! `cargo xtask bench-paths --instructions` now counts this way, one configuration per
//! process of the `overhead` example (3970ff7): geomean no-op 1.111x, flat 1.321x,
//! region-based 1.397x, global-based 1.410x over the seven guests. Counts compare code as
//! built: nbody's run with no sink went from 4.10G to 5.04G instructions between two
//! builds with no change to the code it runs (the compiler stopped inlining
//! `fpu::execute`), while its time moved within the noise (0.32-0.55 s against 0.37-0.39
//! s, three runs each). `cargo xtask bench-paths --runs 5` at
//! 50cb763 gave geomean flat 1.37x, region-based 1.50x, global-based 1.52x, in a run whose
//! times with no sink were up to 1.8x those of the run before it (flat 1.35x,
//! region-based 1.39x, global-based 1.42x at 77c4305 the same afternoon); neither settles
//! the 1.2x goal.
//!
//! Since (b74ae6b -> e69c44c), fewer instructions per probe. A counter known when compiled
//! to lie below the counters of the latest lease is counted with no check of the counters'
//! length, and the JIT lends no lease with fewer counters than its code counts in
//! unchecked (a59263f); a counter in a register counts in one scaled-index add (e88790f);
//! a key holds its node in 20 bits, so that the first 2^11 functions' keys are 32-bit
//! immediates, which guards compare and probes store in one instruction (e69c44c).
//! Counted as before (cachegrind, `profkit run --no-profile` against `profkit paths
//! --clear-env --mode M`), the instructions a profile adds fell 10-22%: coremark 3000
//! flat 1310M -> 1125M (ratio 1.337x -> 1.290x), region-based 1420M -> 1205M, global-based
//! 1575M -> 1381M; sort 300000 flat 2016M -> 1781M (1.458x -> 1.404x), region-based 2802M
//! -> 2521M; crc flat 247M -> 193M (1.277x -> 1.217x), all with byte-identical profiles.
//! `cargo xtask bench-paths --instructions` at e69c44c: geomean no-op 1.102x, flat 1.284x,
//! region-based 1.354x, global-based 1.368x (1.111x, 1.321x, 1.397x, 1.410x at 2941b35).
//! Two runs of `cargo xtask bench-paths --runs 5` on a quieter machine (coremark 3000 with
//! no sink 0.284 s and 0.276 s), at e88790f and e69c44c, gave geomean flat 1.25x and 1.28x,
//! region-based 1.32x and 1.31x, global-based 1.31x and 1.33x: single guests moved by up
//! to 0.3x between them (chase flat 1.24x, then 1.54x), so the change between the two
//! builds is below what the machine resolves. What is left is mostly calls and returns:
//! the no-op sink, whose probes only open and close frames, costs sort 1.265x in
//! instructions, against its flat profile's 1.405x (its flat profile counts 27.8M paths of
//! `strcmp` from its entry alone). In sort 30000, region-based (`valgrind --tool=callgrind
//! --dump-instr=yes` with `--perf-map`), a run of the hottest indirect call's probe (qsort
//! calling its comparator) is 35 instructions, with 7 more to find the target's probe, of
//! the hottest return's 31, and of a block's guard 6.
//! Since (8ac3bae -> 7eae704), chase's wide function. gcc inlines chase's recursive
//! `tree_height` into itself several levels deep, which gives it 6.3e21 paths. Compiled
//! probes hold 64-bit sums, and the run loop lends the probe state only while its sum fits
//! 64 bits, so an activation whose running sum passes 2^63 runs with every probe missing
//! until its path ends, and each of its calls leaves compiled code for the sink. On chase
//! 250000 flat (callgrind, at 8ac3bae), compiled code was entered 263 827 times (4120 with
//! no sink), and the run loop's own instructions were 126M (0.8M with no sink). A graph
//! with more than 2^63 - 1 paths is now numbered fewest paths first, with its edge values
//! as increments (see [`numbering`]): `tree_height`'s hottest path, a null pointer's return
//! (39 055 of 77 367), was numbered NumPaths - 1 and is now 0, and 73 792 of its path
//! counts are numbered below 2^63 (1 before). The events the sink gets (temporary counters)
//! fell from 269 382 edges and 132 461 traces to 236 436 and 124 956 (flat; region-based
//! and global-based 283 984 -> 251 038 edges); most paths first instead gave 467 437 edges
//! and 351 539 traces. The rest come from the activations that descend deep and call on,
//! numbered beyond 2^63 in either order: their probes would need 128-bit sums in compiled
//! code (not done). `cargo xtask bench-paths --instructions` at 7eae704: chase flat 1.488x
//! -> 1.463x, region-based 1.549x -> 1.524x, global-based 1.558x -> 1.533x; nbody
//! (`__printf_fp_l` is wide too) flat 1.161x -> 1.157x; the other guests' ratios unchanged;
//! geomean no-op 1.102x, flat 1.280x, region-based 1.351x, global-based 1.364x.
//!
//! Since (7eae704 -> 0e1a2b7), less set-up. Numbering keeps every node's out-edges, and the
//! spanning tree's adjacency, in one array instead of a vector per node (34704bd), and the
//! ELF image reads an instruction's halfwords at once (d5ee599): `PathSink::ensure`
//! (callgrind `--toggle-collect`) ran 57.35M -> 50.55M instructions on crc 1048576 flat,
//! and 67.68M -> 61.86M on chase 250000 (34704bd alone). `cargo xtask bench-paths
//! --instructions` at d5ee599: geomean no-op 1.106x, flat 1.281x, region-based 1.355x,
//! global-based 1.368x; crc flat 1.223x -> 1.214x, chase 1.463x -> 1.453x, the other
//! guests' ratios 0.002x-0.003x lower. nbody's run with no sink fell from 5042.6M to
//! 4096.7M instructions: the interpreter's floating-point handlers got `fpu::execute`
//! inlined at d5ee599, by chance of code generation (0e1a2b7 makes it certain), so its
//! ratios rose (flat 1.157x -> 1.190x) while the instructions its flat profile adds fell
//! (about 792M -> 778M, from the rounded ratios).
//!
//! Since (0e1a2b7 -> f36445c), a block whose guard (the check of the key and epoch its
//! probes share) failed 8 times goes on in its code compiled again with no probes, logged,
//! instead of bailing out to the interpreter; that code returns to the run loop after any
//! exit whose probe would do more than add to the sum. On chase 250000 flat, the
//! activations of `tree_height` whose sum is too wide to lend had made 154,034 guard
//! checks fail; 3,004 now do (the rest run the unprobed code), and the sink gets 238,563
//! edges and 124,956 traces (236,436 and 124,956 before). `cargo xtask bench-paths
//! --instructions` at f36445c: chase flat 1.453x -> 1.426x, region-based 1.515x -> 1.487x,
//! global-based 1.523x -> 1.496x, the other guests within 0.002x; geomean no-op 1.106x,
//! flat 1.278x, region-based 1.351x, global-based 1.364x. Chase's wide activations still
//! deliver their edges to the sink: compiled probes would need 128-bit sums to take them.
//!
//! Since (47f9615 -> 04bdde9), less set-up again. Instrumenting a function on its first call
//! hashed and allocated per node and per edge: the hierarchy's levels now find their
//! children through an array of positions, the plan's symbolic operations keep their
//! augmented edges in one arena, out-edges and a level's out-items are grouped per node in
//! one array, and natural loops read dominance from immediate dominators on dense indices
//! (petgraph's kept them in hash maps). `PathSink::ensure` (callgrind `--toggle-collect`):
//! crc 1048576 flat 50.18M -> 33.05M instructions, region-based 62.08M -> 38.39M,
//! global-based 60.55M -> 37.51M; sort 100000 flat 62.90M -> 41.08M. `cargo xtask
//! bench-paths --instructions` at df1c06f, against e860fa3: crc flat 1.212x -> 1.193x,
//! region-based 1.296x -> 1.269x, global-based 1.315x -> 1.288x; chase 1.425x -> 1.401x,
//! 1.486x -> 1.454x, 1.495x -> 1.464x; the other guests 0.001x-0.007x lower; geomean no-op
//! 1.105x, flat 1.266x, region-based 1.335x, global-based 1.350x. Then the compiler stopped
//! allocating per exit and keeps its vectors from one block to the next (03aa309, d02df67,
//! ff6441b): chase 250000 flat through the CLI 1540.46M -> 1513.10M instructions. That is
//! compilation, which the run with no sink does too, and it gained about as much: at
//! ff6441b chase with no sink runs 974.0M instructions (1003.5M at df1c06f), so the ratios
//! rose a little (chase flat 1.415x: about 1378M instructions against 1406M before, from
//! the rounded ratios); geomean no-op 1.107x, flat 1.269x, region-based 1.339x,
//! global-based 1.353x.
//!
//! Since (c8da03e -> a88f499), floating point runs compiled. Blocks with F or D
//! instructions were compiled only up to the first one, where they bailed out to the
//! interpreter; nbody's event superblocks pass through them, so with the path sink 1.1M
//! superblock runs bailed out, and each bail-out costs the run loop's delivery of the rest
//! (the run with no sink, whose superblocks stop before such blocks, left compiled code
//! 450 000 times instead). F and D loads and stores now run in host code, and computations
//! and accesses of fflags, frm and fcsr (GCC's quiet comparisons read and restore fflags)
//! call the interpreter's own code for the op (isa-emu's `jit::exec_op`). Cachegrind of
//! nbody 50000: no sink 4103.4M -> 3509.2M instructions, flat 4862.7M -> 3564.8M. `cargo
//! xtask bench-paths --instructions` at a88f499 (13m22s): nbody no-op 0.999x, flat 1.017x,
//! region-based 1.024x, global-based 1.024x (1.128x, 1.186x, 1.225x and 1.225x at
//! ff6441b); the other guests within 0.002x of ff6441b's; geomean no-op 1.088x, flat
//! 1.241x, region-based 1.305x, global-based 1.319x.
//!
//! Where the instructions go: `cargo xtask bench-paths --sections coremark sort primes
//! strings` at fcea6c2 (callgrind with the emulator's perf map; each kind of compiled code
//! apart) put nearly all of the flat profiles' added instructions in compiled probes.
//! Coremark 3000 (3895.7M with no sink, 4987.5M flat): path ends 379.1M, returns 103.1M,
//! indirect calls 99.9M and their sites 48.8M, counts 92.7M, guards 51.7M, exits 117.4M
//! more, native code (sink, set-up) 60.3M more. Sort 300000 (4421.4M, 6121.9M): returns
//! 478.2M, counts 263.2M, calls 186.3M, indirect calls 179.4M and sites 41.3M, additions
//! 145.9M, guards 133.8M, exits 105.9M more. Primes 400000 (3871.9M, 4831.3M): returns
//! 242.3M, path ends 220.7M, counts 144.4M, calls 138.6M, additions 99.6M. The no-op
//! probes (frames only) already cost sort 1165.0M and primes 381.7M. A sparse table's
//! path end whose code gives no window first searches its ways in memory (coremark:
//! 10.3M such counts at 18 instructions; primes: 5.9M at 33 at one path end, its two
//! hot sums in the third and sixth ways); since 821ce53 a window given first is one
//! comparison (coremark flat 4954.8M -> 4943.1M, strings 6653.6M -> 6644.7M). Tried and
//! not kept: ordering the ways by their counts at each miss (misses stop once the hot
//! sums hold ways, so the order stays that of an earlier phase: primes 4808.9M ->
//! 4817.4M); pinning, when a block is compiled, a window on the sum the path end would
//! count then, event superblocks formed later pinning the window that counted most as a
//! second one (coremark 4889.0M, but primes 4852.2M: its first sums are not its hot
//! ones); compiling such blocks only after 16 runs, with the hottest window pinned
//! (coremark 4940.3M, primes 4843.2M).
//!
//! Since (22b9148 -> b894588), fewer instructions in calls, returns and counts: a return
//! counts its call pair through the counters its path end's count left in a register; a
//! call adds its two additions as one (a call probe's resumed sum must fit 64 bits, not
//! each addition on the way), so an indirect call reads one from its site; where no sum is
//! ever saved a call leaves the frame's floor at 0 instead of storing it (a state is lent
//! only if every frame's floor is 0); frames are addressed as the state plus the frame's
//! offset (x86's base + index form) instead of adding the two first; a way given in a probe
//! whose counters are all lent counts at `counters + 8 * (sum + add) + 8 * base`; and a
//! stub stores the sum its probe left pending through the state pointer that probe loaded.
//! Cachegrind of the `overhead` example alone, flat: sort 300000 6085.0M -> 5929.4M,
//! coremark 3000 4941.8M -> 4876.3M, primes 400000 4808.0M -> 4742.8M. `cargo xtask bench-paths --instructions` at b894588: geomean no-op 1.080x,
//! flat 1.224x, region-based 1.287x, global-based 1.301x (1.086x, 1.240x, 1.304x and
//! 1.318x at 1680bcd); flat per guest coremark 1.260x, sort 1.350x, chase 1.407x, nbody
//! 1.017x, strings 1.169x, primes 1.231x, crc 1.177x. On a machine just booted, `cargo
//! xtask bench-paths --runs 11` (thread CPU time) gave geomean flat 1.24x, region-based
//! 1.31x and global-based 1.31x at both 22b9148 and b894588, as the instruction ratios
//! say; the 1-2% this round saved is below what time resolves.
//!
//! Since (b894588 -> 172cc21), the state pointer stays in rcx. Every probe began by
//! loading the state's address from the context, though the guard at the block's entry had
//! just loaded it and most bodies never write rcx. The assembler now tracks an era of rcx
//! (it changes at every instruction that may write rcx and wherever a jump lands), and the
//! compiler loads the state again only in another era: code past a guard's check starts
//! with it (every stub chained there loads it first if need be), and a branch's exit notes
//! whether rcx held it. Executed loads of the state pointer (callgrind with the perf map,
//! flat): coremark 3000 113.9M -> 32.6M, sort 300000 156.9M -> 39.0M, crc 1048576 17.1M
//! -> 0.6M, nearly all of those left in guards. `cargo xtask bench-paths --instructions`
//! at 172cc21: geomean no-op 1.077x, flat 1.209x, region-based 1.271x, global-based
//! 1.283x; flat per guest coremark 1.239x, sort 1.323x, chase 1.388x, nbody 1.017x,
//! strings 1.153x, primes 1.223x, crc 1.158x. `cargo xtask bench-paths --runs 11` (load
//! average 0.5): geomean flat 1.22x, region-based 1.26x, global-based 1.26x (1.24x, 1.31x
//! and 1.31x at b894588).
//!
//! Since (172cc21 -> f31637e), guards check the key alone. Every guard (and every probe's
//! own check) compared the state's epoch too, though this sink moves it only when it clears
//! its cache. The emulator now lends compiled code no state of another epoch than the
//! states it was lent since its code was cleared (it flushes the code first), so the code
//! checks only a probe's key: 2 instructions fewer per guard run (coremark 3000 10.3M guard
//! runs, sort 300000 26.8M). `cargo xtask bench-paths --instructions` at f31637e: geomean
//! no-op 1.073x, flat 1.205x, region-based 1.267x, global-based 1.279x; flat per guest
//! coremark 1.233x, sort 1.311x, chase 1.387x, nbody 1.017x, strings 1.148x, primes
//! 1.217x, crc 1.158x. `cargo xtask bench-paths --runs 11` (load average 1.0): geomean flat
//! 1.22x, region-based 1.26x, global-based 1.27x.
//!
//! Since (f31637e -> 81eb60c), counts keep the counters' address in rdx, as probes keep
//! the state's in rcx (within a block's code and into its exits' stubs; no convention
//! across blocks). Cachegrind, flat: crc 1048576 1019.1M -> 1008.1M, coremark 3000 4775.0M
//! -> 4727.9M, sort 300000 5758.3M -> 5752.2M. `cargo xtask bench-paths --instructions` at
//! 81eb60c: geomean no-op 1.072x, flat 1.199x, region-based 1.260x, global-based 1.272x;
//! flat per guest coremark 1.222x, sort 1.311x, chase 1.378x, nbody 1.017x, strings
//! 1.144x, primes 1.209x, crc 1.148x (the runs with no sink moved too, from the rebuilt
//! emulator's own code: nbody 3380.3M -> 3347.3M, chase 977.9M -> 970.5M). `cargo xtask
//! bench-paths --runs 11` (load average 1.0): geomean flat 1.22x, region-based 1.28x,
//! global-based 1.28x.
//!
//! Since (81eb60c -> 1ed7bc1), region entries in superblocks. A probed event superblock
//! ended at a region's entry, and at a call into a function that starts in a region
//! (`strcmp`, whose loop heads its entry), since their probes saved the sum through cache
//! registers; they now save it with rax and rdx (a known sum as an immediate), so the
//! superblock goes on into the region: sort's 13.5M calls of `strcmp` run its loop inside
//! the caller's superblock, as in flat profiles, and primes' calls of `__umodti3` go on into
//! its loop. Saved sums are addressed as the state plus 8 times their index (one SIB
//! operand, x86's scale 8) instead of shifting and adding first. A region exit whose
//! saved sum the same code saved pops it without reading it (it checks the floor only) and
//! knows the sum after. A region entry at a path end (`PushEnd`) carries a way given first,
//! as region exits and path ends do (a dense table's path end, or a sparse table's pinned
//! window), so it counts its known sum at a known counter instead of searching the ways.
//! Pinned windows rarely help pops and entries: the loop exits of coremark's matrix code
//! first run after their superblocks formed, before any window was pinned. Cachegrind,
//! region-based: sort 300000 6444.0M -> 6134.2M, primes 400000 4928.3M -> 4693.5M (the
//! first three changes), crc 1048576 1051.3M -> 1036.7M and coremark 3000 4772.6M ->
//! 4735.8M (the way given first); global-based: coremark 3000 4948.1M -> 4944.6M, strings
//! 500000 6728.1M -> 6720.3M (the pinned windows of pops). `cargo xtask bench-paths
//! --instructions` at 1ed7bc1: geomean no-op 1.072x, flat 1.199x (unchanged),
//! region-based 1.260x -> 1.228x, global-based 1.272x -> 1.238x; region-based per guest
//! coremark 1.224x, sort 1.397x, chase 1.419x, nbody 1.021x, strings 1.182x, primes
//! 1.219x, crc 1.180x (1.233x and 1.242x at 5c136c8). `cargo xtask bench-paths --runs 11`:
//! geomean flat 1.22x, region-based 1.25x, global-based 1.24x (load average 1.1; 1.21x,
//! 1.23x and 1.24x at 5c136c8, load average 0.5; chase's times vary the most: flat 1.22x
//! and 1.26x in these two runs, 1.44x at 81eb60c).
//!
//! Since (89839a9 -> 1b080a8), saved sums known when instrumenting. A region whose every
//! entry saves one constant outer sum (`strcmp`'s loop, which heads its entry; a loop
//! after a straight prologue; a loop entered from another's exit) needs no push, and its
//! pops can assign the constant: the sink folds every plan it builds
//! ([`Instrumented::fold_known_saves`], [`known_saves`]), so the region's entries become
//! additions and its exits plain path ends. Cachegrind at b2bec5d, folding off (a temporary
//! switch in the same build) and on: region-based sort 300000 6132.0M -> 5991.7M, primes 400000
//! 4694.0M -> 4578.7M, coremark 3000 4736.5M -> 4674.1M, strings 500000 6621.5M ->
//! 6554.4M, nbody 50000 3420.9M -> 3427.2M; global-based sort 6138.4M -> 5997.6M, coremark
//! 4916.7M -> 4846.8M. Flat plans have nothing to fold and skip the dataflow (it first cost
//! chase 250000 flat 6.0M instructions of set-up). `cargo xtask bench-paths
//! --instructions` at 1b080a8: geomean no-op 1.072x, flat 1.199x, region-based 1.228x ->
//! 1.210x, global-based 1.238x -> 1.220x; region-based per guest coremark 1.207x, sort
//! 1.364x, chase 1.401x, nbody 1.023x, strings 1.170x, primes 1.188x, crc 1.158x. `cargo
//! xtask bench-paths --runs 11` (load average 1.0): geomean flat 1.21x, region-based
//! 1.23x, global-based 1.23x. What region-based profiles (1b080a8) still add to flat ones
//! (89839a9, the same code for flat) on sort 300000, by callgrind with the perf map, is
//! mostly the floors: returns +103.2M (checking
//! and restoring the caller's floor) and calls +61.6M (saving it), most at `strcmp`'s
//! 13.5M calls, whose activations now save nothing.
//! A function whose plan saves no sum ([`Instrumented::saves_none`]) now returns without
//! checking its floor (`ProbeOp::Return`'s `saves_none`; 844f8c4): cachegrind, region-based,
//! sort 300000 5988.5M -> 5928.8M, strings 500000 6551.3M -> 6536.8M. `cargo xtask
//! bench-paths --instructions` at 844f8c4: geomean no-op 1.072x, flat 1.199x, region-based
//! 1.206x, global-based 1.216x; region-based per guest coremark 1.204x, sort 1.351x, chase
//! 1.400x, nbody 1.023x, strings 1.167x, primes 1.181x, crc 1.159x.
//!
//! Since (86ab62b -> 3e56615), wide sums lent as offsets. On chase 250000 every trace and
//! 153 585 of 238 571 edges the sink got (flat; a temporary counter, not committed) came
//! while the top activation's sum did not fit 64 bits, in `tree_height`. Where at most
//! 2^62 paths go on from its node, the sink now keeps that sum and lends compiled probes
//! -2^62 in its place (see the Overflow choice above): 54 669 of 118 110 edges and 36 396
//! traces then came with a wide sum. Cachegrind: chase 250000 flat 1341.5M -> 1285.4M,
//! region-based 1360.4M -> 1304.7M, global-based 1364.2M -> 1308.6M; nbody 50000 flat
//! 3433.3M -> 3434.4M. `cargo xtask bench-paths --instructions` at 3e56615: geomean no-op
//! 1.072x, flat 1.193x, region-based 1.199x, global-based 1.208x; chase 1.322x, 1.343x and
//! 1.346x; the other guests' ratios as at 844f8c4 (within 0.001x). Lending `-(m + 1)`,
//! `m` the most a way on adds before it counts (below 2^63 - 1), instead of -2^62
//! (f6b233b) gives room where twice as many paths go on, and keeps compiled code's
//! deferred additions, which check that the sum lies within ±2^62: 49 612 of 111 587
//! edges and 31 595 traces with a wide sum; cachegrind chase 250000 flat 1281.0M,
//! region-based 1300.8M, global-based 1304.3M. `cargo xtask bench-paths --instructions`
//! at f6b233b: geomean flat 1.192x, region-based 1.199x, global-based 1.208x; chase
//! 1.318x, 1.338x and 1.342x.
//!
//! Since (eaa4d1b -> 1e4fc30), increments where they cost nothing, and a global-based
//! function's table cut per region. An augmented edge weighed what every CFG edge using
//! it weighs; it now weighs what those whose additions use it weigh, so an edge whose
//! increment lands only in counts, assignments and pushes weighs 0 and becomes a chord
//! first (the **Weights** choice above): `crc16_ccitt`'s inner loop, whose two branches
//! each end its paths, added on one branch region-based and on both global-based, and now
//! on neither (cada03b; with 09a7f35, whose composition drops additions that cancel).
//! `cargo xtask bench-paths --instructions` at cada03b: geomean flat 1.189x, region-based
//! 1.194x, global-based 1.203x (coremark 1.221x, 1.202x, 1.246x; sort 1.308x, 1.338x,
//! 1.338x; chase 1.316x, 1.333x, 1.335x; crc 1.145x, 1.150x, 1.165x). A global-based
//! function's sums are then counted in one table per region, each a slice of consecutive
//! sums (the **Counters** choice), dense where small (1e4fc30): global-based coremark
//! 1.246x -> 1.238x, geomean 1.202x, the other guests within 0.001x. The rest of coremark's
//! global-based cost over region-based is its sparse path ends (callgrind with the perf
//! map: 252.9M in sparse path ends, none region-based), in `main`, into which gcc inlines
//! the benchmark: 42 of its 59 regions' slices hold more than the 4096 sums of a dense
//! table, up to 1.5e8 (`shrink` on, as the benchmark runs it; the global numbering counts
//! every way through the inner regions, most of them no hierarchical path's), where its
//! region-based tables hold at most 356.
//!
//! Since (05ce787 -> df66926), tables of up to 65536 sums dense (4096 before), within a
//! budget of dense counters. Flat primes' `main` and several of global-based coremark's
//! slices hold 4096-65536 sums. Cachegrind (the `overhead` example, `--dense-limit 4096`
//! against `65536`, whole process): primes 400000 flat 4653.1M -> 4468.4M, coremark 3000
//! global-based 4789.7M -> 4737.3M, chase and strings region-based and global-based about
//! -0.1%, the rest within +0.11% (crc global-based 1023.4M -> 1024.5M, presumably from
//! zeroing the larger tables; not measured apart); geomean flat -0.57%, region-based -0.02%, global-based -0.16%. A limit of
//! 131072 gave global-based coremark 4705.5M but crc flat +0.28% and 29 MB of memory
//! against 22 MB (17 MB at 4096). `cargo xtask bench-paths --instructions` at df66926:
//! geomean flat 1.183x, region-based 1.194x, global-based 1.200x (coremark 1.221x,
//! 1.202x, 1.224x; primes 1.160x, 1.185x, 1.185x).
//!
//! Since (df66926 -> d1be049), counts that add nothing. Global-based, every count added minus
//! its slice's first sum (`crc16_ccitt`'s latches `Count { add: -10 }` and `-11`, one
//! instruction more than region-based's in compiled code); each table's paths now start
//! from that sum less what its heaviest count adds (the **Weights** choice), in every
//! mode: the latches add 1 and 0. Cachegrind (`--dense-limit 65536`), against taking off
//! the first sum alone: geomean flat -0.08%, region-based -0.15%, global-based -0.28%
//! (sort region-based 5872.1M -> 5851.9M, primes global-based 4564.3M -> 4538.2M; crc
//! region-based +0.08%, sort flat +0.09%); taking off the first sum alone had given
//! global-based -0.09% (crc 1024.5M -> 1020.2M). `cargo xtask bench-paths
//! --instructions` at d1be049: geomean flat 1.182x, region-based 1.192x, global-based
//! 1.196x.
//!
//! Since (550b5c2 -> 5e645e7), a finer clock, and sites that know their target. The
//! `overhead` example read the thread's CPU time from `/proc/thread-self/schedstat`, which
//! for a thread making no system calls advances only at the scheduler's 4 ms tick: every
//! time above was a multiple of 4 ms (2% of a 0.2 s run). It now reads
//! `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` (9f9dcb1); `cargo xtask bench-paths --runs 11`
//! then gave geomean flat 1.21x, region-based 1.23x and global-based 1.23x. Part of that
//! is fixed: runs of coremark 1 (21 alternating runs each, medians) took 4.0 ms with no
//! sink and 10.9, 12.2 and 13.0 ms flat, region-based and global-based, so set-up
//! (recovery, instrumentation and compilation of the functions a run reaches) costs
//! 7-9 ms a run, 3-4% of the bench's 0.2 s runs; `perf record -e cpu-clock -F 20000` of
//! one region-based run each put 15% (sort, strings), 21% (coremark, primes) and 82%
//! (crc) of the samples it adds over the run with no sink in host code (the sink,
//! set-up, allocation and the kernel's page faults). The JIT's code buffer is now mapped
//! a 256 KiB chunk ahead of the code (3a4c894; coremark 1 then 3.5 ms with no sink, 9.9,
//! 11.1 and 12.3 ms). An indirect call's or a jump table's block is compiled again once
//! its site holds a probe, and its code runs that probe for its target with the fields
//! known before searching the site (b802753, 5e645e7). Cachegrind against 3a4c894:
//! sort 300000 flat 5746.1M -> 5662.5M, coremark 3000 flat 4718.7M -> 4680.4M (its list
//! sort's comparator, then `next_token`'s `switch`), the same in the other modes, the
//! other guests within 0.06%; geomean about -0.3% each mode. `cargo xtask bench-paths
//! --instructions` at 0b436e4: geomean no-op 1.069x, flat 1.178x, region-based 1.189x,
//! global-based 1.192x (per guest, flat: coremark 1.210x, sort 1.290x, chase 1.316x,
//! nbody 1.017x, strings 1.141x, primes 1.156x, crc 1.141x); `--runs 11` at a3c06cf
//! (load average 1.0-1.8): flat 1.20x, region-based 1.22x, global-based 1.23x.
//! `Asm::rm_disp` inlined (f847169) took 4-15M instructions of compilation off every run
//! (chase 250000 region-based 1307.0M -> 1291.5M): `--instructions` then gave geomean
//! flat 1.177x, region-based 1.188x, global-based 1.192x.
//!
//! Where chase's overhead goes (f847169, measured, not acted on): compiled code handed
//! the sink 111358 edge events in a region-based run of chase 250000 (111369 flat;
//! counted with a print in `PathSink::edge` that was not kept), against at most 4396 for
//! the other bench guests. `tree_height` (6.3e21 paths) gave 33154 returns, 23998 taken
//! and 16892 untaken branches, 12084 calls and 3388 jumps: at 26534 of the 45207 leases
//! where its sum was wide, it stood at a node from which a way on adds 2^63 or more, so
//! no offset could be lent (`src/offsets.rs`), and its probes miss until the path ends.
//! `tree_free`'s tail call to `free` gave 20483: its path end counts in a sparse table of
//! 8053 paths, whose windows rarely hold the sum. Callgrind of that run put 22.8M
//! instructions in `frame_tail`, 24.8M in `fast_return` and 34.0M in `count_in`
//! (inclusive, overlapping), against 50.1M in the set-up's `PathSink::ensure`. Compiled
//! code holding 128-bit sums would remove `tree_height`'s events; that is not started.
//!
//! Where the set-up goes (0c8469b, measured, not yet acted on): a region-based run of
//! coremark 1 instruments 93 functions of 4156 blocks, and glibc's `__vfprintf_internal` is
//! 1740 of those blocks and about 30% of the set-up's time (recovery 1.0 ms and
//! instrumentation 1.7 ms of 3.4 ms and 6.0 ms in all, timed with a print in
//! `PathSink::ensure` that was not kept). Its format parser dispatches by computed goto
//! (`jr a4` at 16 sites) that the jump-table analysis does not resolve, so its symbol is
//! swept and each of its 1738 instructions starts a block. The byte that indexes its class
//! table is bounded by a branch on a copy of it (`addiw a4, a6, -32; zext.b a0, a4; bltu
//! a1, a0, default`), and on one path it is kept on the stack across a call (`read_int`)
//! and reloaded. Following bounds through such copies (values derived by
//! `andi`/`addi`/`addiw` narrowed with the branch, a byte loaded from memory as one of 256
//! values, the `PT_GNU_RELRO` tables of label addresses read as read-only data, and
//! widening only where a backward transfer arrives) was tried and not kept: the stack slot
//! still loses the bound, and on none of the 12 Linux guests did fewer functions restart
//! paths at unresolved jumps (`profkit paths`, its header line). Stack slots whose address
//! does not escape would have to be followed too; that is not started. Sharing a register's
//! set of values between the states the analysis keeps (0c8469b) took `jump_table::resolve`
//! on coremark 1 from 4.98M to 3.08M instructions, and a join that keeps the set holding
//! the other (the review of `git diff 17ce61c`) to 2.84M-2.85M (callgrind; its hash maps'
//! random keys move it by a few thousand).
//! `vfprintf` is no longer swept: its 16 jumps each go to a doubleword they load (`ld a4,
//! 248(a4); jr a4`) from tables of label addresses in `.data.rel.ro`, and its code forms no
//! address inside itself, so an indirect jump there lands on one of the 30 words of the
//! file's data that point inside it, or on a return site
//! ([`CodeView::code_pointers`](prof_events::CodeView::code_pointers), isa-emu's
//! `code_pointers`; its test checks every such jump of the 16 guests' runs). Its blocks
//! become those of the code followed from the entry, the labels and the return sites; a
//! switch whose table holds offsets (`lw; add; jr`, as in `sysconf`) is still swept.
//! Callgrind coremark 1 (the whole process): flat 75.82M -> 69.84M instructions,
//! region-based 86.14M -> 78.39M, global-based 92.43M -> 84.76M (30.58M with no sink), the
//! data scan included (1.25M, once per image). `profkit paths --clear-env --json` changed
//! only in the functions with such jumps (`vfprintf` and `__register_frame_info` on every
//! Linux guest, glibc's stdio functions on wordfreq and csvstats), their paths now over
//! longer blocks, each function's path executions the same, and the stdout, exit codes and
//! statistics (desynchronised transfers: 0) byte for byte the same.
//! The pool of dense counters is one zeroed allocation of 2^22 counters or more, which the
//! system maps page by page as it is written: placing a table writes nothing, and copying
//! out at the end writes only counts that are not 0 (5f0f9e9). Global-based coremark 1:
//! 4230 -> 3728 page faults and peak RSS 20.4 -> 16.1 MB (`/usr/bin/time`), 84.76M ->
//! 81.13M instructions. The set-up of each bench guest on a tiny input (callgrind, whole
//! process, less the run with no sink; coremark 1, sort 10, chase 10, nbody 1, strings 10,
//! primes 10, crc 64), db9e3f7 -> 5f0f9e9: flat 37.7M-45.4M -> 31.0M-38.7M instructions,
//! region-based 46.5M-56.4M -> 38.4M-48.3M, global-based 46.8M-61.8M -> 38.2M-50.6M, 14%
//! to 18% less on each guest and mode.
//!
//! The goal of 1.2x is reached in instructions by flat profiles (1.178x at 0b436e4),
//! region-based ones (1.189x) and global-based ones (1.192x; per guest coremark 1.211x,
//! sort 1.314x, chase 1.332x, nbody 1.023x, strings 1.158x, primes 1.179x, crc 1.158x),
//! but in time only by flat profiles, barely: `cargo xtask bench-paths --runs 11` put
//! flat, region-based and global-based profiles at 1.24x, 1.25x and 1.24x at 5fb2e84,
//! 1.21x, 1.22x and 1.23x at 0358d6a, 1.21x, 1.22x and 1.22x, then 1.22x, 1.21x and 1.22x
//! at 1e4fc30, 1.21x, 1.23x and 1.23x at d1be049 (those on the 4 ms clock), and 1.20x,
//! 1.22x and 1.23x at a3c06cf. Probes pay off in loops (crc's
//! profiles cost less than delivering its edges) and in call-heavy code. The same command built from 2a4fb7e
//! (before additions and path ends in compiled code left their key, and the sum where known,
//! pending instead of storing them) and run right before this build's second run gave
//! geomean flat 1.58x, region-based 1.65x and global-based 1.67x, against 1.49x, 1.57x and
//! 1.57x. Nearly all of the time left is
//! compiled code, not the sink (over 87% of `perf record -e cpu-clock` samples of
//! coremark, primes, sort, strings and chase): hot loops run as probed event superblocks
//! (the probes between their parts inline, their keys known), but each superblock still
//! stores the guest registers it changed where it leaves, a region exit or a call that
//! does more than open the callee's frame and enter its first region (a path end or a
//! region entry of the caller with it) ends it, and every probe whose sum the code does not know runs its own instructions (an
//! increment outside a superblock's parts is added to the sum in memory, a path end checks
//! its bounds and adds to a counter).
//! With hammocks as regions, many region steps have no probe.
//!
//! The set-up, timed (fc318b8): [`PathSink::set_up_time`] is the time a run spends
//! recovering and instrumenting the functions it calls, which `cargo xtask bench-paths`
//! prints per mode (before, its set-up column held only the listing of the functions, under
//! a millisecond) and leaves out in a second row of geomeans. `--runs 5` at fc318b8: set-up
//! 6-9 ms a run in every mode; geomean flat 1.20x, region-based 1.24x, global-based 1.24x,
//! and 1.17x, 1.21x and 1.21x without set-up. (The same command at 9530f44, on the quiet
//! machine right after it booted: 1.19x, 1.21x and 1.22x; later that morning the runs with no
//! sink took up to twice as long from one run to the next.) On coremark 1, flat, set-up was
//! 10-11 ms in single runs (7 ms, the median of 9 in one process), of which
//! `__vfprintf_internal` 1.7 ms (its recovery 1.1 ms: sweeping its symbol for its end
//! 0.32 ms, its jump tables 0.24 ms, its code pointers 0.21 ms) and `next_token`'s jump
//! tables 0.32 ms (timed with prints, not kept).
//!
//! Why primes costs more region-based than flat in time (`overhead --runs 5 --only MODE`,
//! twice each: 1.25x against 1.14x-1.15x) though only 2% more in instructions (callgrind:
//! 4552.2M against 4463.5M; calls 39M more, returns 20M, pushes and pops 19M): `perf
//! record -F 20000` samples mapped to the compiled instructions (the code dumped with gdb
//! when the emulator unmapped it, address randomization off; scripts not kept) put the
//! difference in
//! `__umodti3`, called 10.1M times. Its byte loop, unrolled in an event superblock, counts
//! the same counter four times at fixed displacements (`add [rdx+0x2cb70], 1`) after one
//! count through the sum (`add [rdx+rax*8+0x2cb68], 1`): region-based, the loop's first
//! path and its iterations are one path. Counting through a compare per sum instead (a
//! trial, not kept) emptied those spots, but the samples moved to the divisions after the
//! loop and the time stayed (0.341-0.349 s against 0.346-0.366 s): the program waits on
//! its chain of 128-bit divisions, and the added probe instructions delay it where the
//! window cannot hide them. Leaving the pair counter's increment out of compiled returns
//! (a trial) did not move sort 300000 flat either (0.454-0.463 s against 0.458-0.467 s).
//! Region-based and global-based profiles add 84M instructions to sort's calls and 44M to
//! its returns (`--sections sort`). The floor that their compiled code keeps, and flat
//! profiles skip (no sum is ever saved), is 4 instructions a call and 2 a return (read
//! from the compiler's `call_open` and return probe, not measured apart): 84M and 42M at
//! sort's 21.0M calls, so nearly all of it. Avoiding it would need a floor that compiled
//! code and the sink read without storing it at each call (not started).
//!
//! Memory touched at set-up (2026-12-02). A path run touches more fresh memory than the
//! run with no sink, and each first touch of a page is a fault: `perf stat -e page-faults`
//! of `overhead --runs 1 --only M --alone guests/bin/crc.elf 1048576` counted 1186 with no
//! sink and 2453 region-based, and a C loop touching 1280 fresh pages took 4.2-4.6 ms on
//! this machine (3.4 us a fault), so some 4 ms of crc's run. A heap census near the run's
//! end (`valgrind --tool=massif`, crc 1024, region-based) put 1.06 MB of it in the sink's
//! [`Function`](sink::Function)s, one per function symbol (crc has 1070, `readelf -s`),
//! 1104 bytes each whether called or not. A function's plan and runtime tables are now boxed and made only
//! when it is instrumented: 272 bytes a function, 124-152 faults fewer a flat run on each
//! bench guest (the same command per guest, against the build before), and `profkit paths
//! --clear-env --mode M --json` identical on the 16 guests in the 3 modes. The set-up
//! time of crc moved within its noise (8.5-11.2 ms both ways, `overhead --runs 7`). The
//! rest of the census: the sink's per-block slots (0.9 MB, one 64-byte slot per emulator
//! block), the emulator's translations with their probes (1.2 MB) and the plans (the
//! largest, hierarchy edge classes and augmented graphs, 0.4 and 0.3 MB). Times that day
//! could not tell changes of a few percent apart: with no sink, coremark 3000 took
//! 0.444-0.471 s, and single region-based runs of primes 400000 0.37-0.60 s.
//!
//! Deferred counts (5ef3250). Between a probed superblock's parts, a path end whose
//! counter the code knows leaves its count pending, as additions leave their sum: the
//! code adds it once where it leaves the superblock or counts another counter. An
//! unrolled loop whose iterations each end a path (`__umodti3`'s byte loop in primes,
//! `crc32_bitwise`'s bit loop) then adds its iterations' counts once, at its exit, instead
//! of each to the value the one before had just stored, a chain of read-modify-writes of
//! one address. Three alternating rounds of `overhead --runs 5` on coremark 3000, sort
//! 300000, strings 500000, primes 400000 and crc 1048576 (2026-12-03, medians of the
//! ratios, 026c70f -> 5ef3250): primes flat 1.141x -> 1.106x, region-based 1.226x ->
//! 1.174x, global-based 1.229x -> 1.167x; coremark, sort and strings within the noise
//! (flat 1.319x/1.277x, 1.284x/1.266x, 1.238x/1.228x); geomean of the five flat 1.232x ->
//! 1.216x, region-based 1.252x -> 1.238x, global-based 1.259x -> 1.247x. Crc flat went the
//! other way, 1.184x -> 1.208x, and 1.183x -> 1.201x in five more rounds of `--runs 7`,
//! though it runs fewer instructions (callgrind of `overhead --only flat --alone` with the
//! perf map: 1011.3M -> 1002.0M; `crc32_bitwise`'s superblock counts 11.5M -> 6.3M, its
//! exits 8.4M -> 9.4M; primes region-based 4552.2M -> 4528.7M, `__umodti3`'s superblock
//! counts 92.4M -> 60.6M and exits 90.9M -> 101.0M). Why crc is slower is not known; the
//! placement of the compiled code is a guess, not checked. The profiles are byte-identical (`profkit paths --json`, the 16 guests in
//! the 3 modes).

//! ## Features
//!
//! - `proptest`: the `strategies` module, proptest strategies for reducible CFGs with nested loops,
//!   random walks, and the brute-force oracle that cuts walks into hierarchical paths.
#![forbid(unsafe_code)]

mod adjacency;
mod blockcache;
pub mod cfg;
pub mod check;
pub mod hammock;
pub mod hier;
pub mod known_saves;
pub mod numbering;
mod offsets;
pub mod plan;
mod pool;
pub mod recover;
pub mod runtime;
pub mod sink;
pub mod structure;
mod traces;

#[cfg(any(test, feature = "proptest"))]
pub mod strategies;

#[cfg(test)]
mod proptests;

pub use cfg::{Block, CallSite, Cfg, EdgeKind, NodeKind, Succs};
pub use hier::{EdgeClass, Hierarchy, Level};
pub use numbering::{Dag, Numbering};
pub use plan::{HierPath, Instrumented, Mode, Op, Weights};
pub use recover::{LazyProgram, Program};
pub use runtime::{Activation, Counters, Tally};
pub use sink::{PathSink, RegionChoice, Stats};
pub use structure::{Child, Region, RegionId, RegionKind, RegionTree};

/// Errors of analysis and numbering.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is malformed.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A graph that must be acyclic has a cycle.
    #[error("cycle: {0}")]
    Cyclic(String),
    /// A path count does not fit in 128 bits.
    #[error("more than 2^128 - 1 paths")]
    Overflow,
}

impl Error {
    /// The same error, its message prefixed with the function `name` it is about (an
    /// [`Error::Overflow`] becomes an [`Error::Invalid`] that says so).
    pub fn in_function(self, name: &str) -> Error {
        match self {
            Error::Invalid(m) => Error::Invalid(format!("{name}: {m}")),
            Error::Cyclic(m) => Error::Cyclic(format!("{name}: {m}")),
            Error::Overflow => Error::Invalid(format!("{name}: more than 2^128 - 1 paths")),
        }
    }
}

//! The machine: a hart, its memory, an environment, the block cache, and the run loop.

use std::collections::BTreeMap;
use std::fmt;

use prof_events::{
    replay, BlockId, CodeView, Control, Exit, ExitReason, FlowClass, InsnInfo, Interest, Sample,
    Sink, Syscall,
};

use crate::bare::{Bare, BareConfig, HtifRequest};
use crate::block::{
    decode_fetched, fetch_decode, Block, BlockCache, EventSuper, Part, NONE, SIDE_EXIT,
};
use crate::cpu::{Cpu, Mode};
use crate::elf::ElfImage;
use crate::error::Error;
use crate::exec::{exec, MemHook, Trap, Trapped, FALLS_THROUGH};
use crate::jit::{self, Probes};
use crate::linux::{Linux, LinuxConfig, SyscallOutcome};
use crate::memory::{AccessKind, Memory};
use crate::threaded::{self, Lean};
use crate::xlat::{translate, Here, Tinsn};

/// Settings that apply to every environment.
#[derive(Clone, Debug)]
pub struct Config {
    /// Stop after this many instructions (the fuel); `None` runs to completion.
    pub fuel: Option<u64>,
    /// Re-decode every instruction each time it executes, one at a time. Slow; it exists to
    /// check that the block cache changes nothing: both modes give identical event streams.
    pub single_step: bool,
    /// Deliver a [`Sample`] to sinks that want [`Interest::SAMPLE`] at the first block
    /// boundary after every this many instructions.
    pub sample_interval: Option<u64>,
    /// The longest block, in instructions (at most
    /// [`MAX_BLOCK_INSNS`](crate::block::MAX_BLOCK_INSNS); larger values count
    /// as that).
    pub max_block_insns: u32,
    /// Guest memory in bytes (the memory cap): the span that holds the program, its heap,
    /// its mappings and its stack.
    pub memory: u64,
    /// Compile translated blocks to host code (x86-64 Linux hosts; elsewhere this changes
    /// nothing; blocks with memory events stay interpreted). The results and events are
    /// those of the interpreter; `false` interprets everything, for comparison.
    pub jit: bool,
    /// Append a perf map of the compiled code to this file (created if missing): a line
    /// `START SIZE NAME` for each stretch of each compiled block, naming the guest pc it
    /// was compiled for and what it does (`isa-emu 0x10a3c block body`, `... probe call`),
    /// which `perf report` reads from `/tmp/perf-PID.map` (PID: this process's). The code
    /// buffer is then a private mapping, since perf reads maps only for anonymous memory,
    /// which costs two `mprotect` calls per compiled block and per link patched between
    /// blocks. After a flush of the block cache, code at a reused address may carry the
    /// name of the block compiled there before.
    pub perf_map: Option<std::path::PathBuf>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            fuel: None,
            single_step: false,
            sample_interval: None,
            max_block_insns: 64,
            memory: 1 << 31,
            jit: true,
            perf_map: None,
        }
    }
}

/// Why a guest stopped with a fault, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    /// Address of the faulting instruction.
    pub pc: u64,
    /// What happened.
    pub trap: Trap,
}

impl Fault {
    /// The Linux signal the fault would raise (SIGILL, SIGSEGV, SIGBUS, SIGTRAP).
    pub fn signal(&self) -> i32 {
        match self.trap {
            Trap::IllegalInstruction { .. } | Trap::MachineReturn | Trap::WaitForInterrupt => 4,
            Trap::AccessFault(_) => 11,
            Trap::Misaligned { .. } => 7,
            Trap::Breakpoint | Trap::EnvironmentCall | Trap::FenceI => 5,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pc = self.pc;
        match self.trap {
            Trap::IllegalInstruction { bits } => {
                write!(f, "illegal instruction {bits:#010x} at pc {pc:#x}")
            }
            Trap::AccessFault(m) => write!(f, "{m} at pc {pc:#x}"),
            Trap::Misaligned { addr, kind } => {
                let what = if kind == AccessKind::Load {
                    "load"
                } else {
                    "store"
                };
                write!(
                    f,
                    "misaligned atomic {what} at address {addr:#x} at pc {pc:#x}"
                )
            }
            Trap::Breakpoint => write!(f, "breakpoint (ebreak) at pc {pc:#x}"),
            other => write!(f, "unexpected trap {other:?} at pc {pc:#x}"),
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The guest exited with this status.
    Exited(i32),
    /// The guest faulted.
    Fault(Fault),
    /// The instruction limit was reached.
    FuelExhausted,
    /// A sink asked to stop.
    Stopped,
    /// A bare-metal program made an HTIF request the emulator does not implement.
    UnsupportedHtif(u64),
}

impl Outcome {
    /// The exit status a shell would see: the guest's status, 128 + signal for a fault
    /// (as under qemu), 124 for fuel exhaustion or a stop, 125 for unsupported HTIF.
    pub fn exit_code(&self) -> i32 {
        match *self {
            Outcome::Exited(c) => c,
            Outcome::Fault(f) => 128 + f.signal(),
            Outcome::FuelExhausted | Outcome::Stopped => 124,
            Outcome::UnsupportedHtif(_) => 125,
        }
    }
}

/// What a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunSummary {
    /// How it ended.
    pub outcome: Outcome,
    /// The pc at the end: of the faulting instruction, or of the next one to execute.
    pub pc: u64,
    /// Instructions retired.
    pub instret: u64,
    /// Blocks translated (every flush included).
    pub blocks_translated: u64,
    /// Event superblocks formed, each announced as a trace (every flush included; only for
    /// a sink that watches blocks and never stops, see [`Sink::may_stop`]).
    pub event_superblocks: u64,
    /// Times translated code was discarded (`fence.i`, stores into code, a sink's state of
    /// another epoch than the one its compiled probes were lent).
    pub cache_flushes: u64,
    /// Bytes held by the block cache at the end.
    pub cache_bytes: usize,
    /// Compiled blocks with probes whose guard (the check of the key and epoch their
    /// probes apply under) failed often enough that they were also compiled with no
    /// probes, and a failed check now goes on in that code instead of running the block
    /// interpreted (every flush included; see [`Sink::probe_state`]).
    pub guards_diverted: u64,
    /// Blocks ending in an indirect call or jump compiled again once its site held the
    /// sink's probe of a call or an addition for a target, which their code then applies
    /// for that target with the probe's fields known, before searching the site (every
    /// flush included).
    pub sites_known: u64,
}

/// The environment around the hart.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Env {
    Linux(Linux),
    Bare(Bare),
}

/// An emulated RV64GC machine with a loaded program.
pub struct Machine {
    cpu: Cpu,
    mem: Memory,
    env: Env,
    cache: BlockCache,
    image: ElfImage,
    config: Config,
    instret: u64,
    /// The trap of the last block that ended in one (kept out of the per-block results so
    /// they stay in registers).
    trap: Trap,
}

impl fmt::Debug for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Machine")
            .field("pc", &format_args!("{:#x}", self.cpu.pc))
            .field("instret", &self.instret)
            .field("mem", &self.mem)
            .finish_non_exhaustive()
    }
}

/// Why [`Machine::run_chained`] handed control back to the run loop.
enum Leave {
    /// The block in this slot, at `cpu.pc`, runs next but on its own: the fuel limit or a
    /// sample falls inside it or at its end.
    Slow(u32),
    /// Control reached `cpu.pc`, where no block is translated yet, by exit `exit` of the
    /// block in `from`.
    Untranslated { from: u32, exit: usize },
    /// The block in `from` ended by exit `exit` (at `cpu.pc`), and code was written or a sink
    /// asked to stop.
    Boundary {
        from: u32,
        exit: usize,
        control: Control,
    },
    /// An instruction of the block in `slot` trapped at `cpu.pc` (the trap in
    /// `Machine::trap`), after the sinks answered `control`.
    Trapped { slot: u32, control: Control },
}

/// Rounds down to a 4 KiB page.
fn page_down(a: u64) -> u64 {
    a & !0xfff
}

impl Machine {
    fn with_image(image: ElfImage, mode: Mode, config: Config, env: Env) -> Result<Machine, Error> {
        let base = page_down(image.lowest_addr());
        let needed = image.highest_addr() - base;
        if needed > config.memory {
            return Err(Error::MemoryTooSmall {
                needed,
                limit: config.memory,
            });
        }
        let mut mem = Memory::try_new(base, config.memory)?;
        image.load_into(&mut mem)?;
        let (lo, hi) = image
            .exec_ranges()
            .fold((u64::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
        mem.set_code_range(lo, hi);
        let perf_map = match &config.perf_map {
            Some(path) => Some(jit::PerfMap::open(path).map_err(|e| Error::PerfMap {
                path: path.clone(),
                reason: e.to_string(),
            })?),
            None => None,
        };
        let cache = BlockCache::new(
            lo,
            hi,
            config.max_block_insns,
            !config.single_step,
            config.jit,
            perf_map,
        );
        let cpu = Cpu::new(mode, image.entry);
        Ok(Machine {
            cpu,
            mem,
            env,
            cache,
            image,
            config,
            instret: 0,
            trap: Trap::Breakpoint,
        })
    }

    /// Loads a statically linked Linux ELF and prepares its stack, ready to run.
    pub fn linux(elf: &[u8], linux: LinuxConfig, config: Config) -> Result<Machine, Error> {
        let image = ElfImage::parse(elf)?;
        let env = Env::Linux(Linux::new(linux));
        let mut m = Machine::with_image(image, Mode::User, config, env)?;
        let Env::Linux(linux) = &mut m.env else {
            unreachable!("constructed as Linux above")
        };
        m.cpu.x[2] = linux.setup(&mut m.mem, &m.image)?;
        Ok(m)
    }

    /// Loads a bare-metal ELF (machine mode, HTIF `tohost` for output and exit).
    pub fn bare_metal(elf: &[u8], bare: BareConfig, config: Config) -> Result<Machine, Error> {
        let image = ElfImage::parse(elf)?;
        let tohost = image.tohost.ok_or(Error::NoTohost)?;
        let env = Env::Bare(Bare::new(bare, tohost));
        Machine::with_image(image, Mode::Machine, config, env)
    }

    /// The hart's state.
    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    /// Guest memory.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    /// The loaded program.
    pub fn image(&self) -> &ElfImage {
        &self.image
    }

    /// The Linux environment, if this machine runs one.
    pub fn linux_env(&self) -> Option<&Linux> {
        match &self.env {
            Env::Linux(l) => Some(l),
            Env::Bare(_) => None,
        }
    }

    /// The bare-metal environment, if this machine runs one.
    pub fn bare_env(&self) -> Option<&Bare> {
        match &self.env {
            Env::Bare(b) => Some(b),
            Env::Linux(_) => None,
        }
    }

    /// Instructions retired so far.
    pub fn instret(&self) -> u64 {
        self.instret
    }

    /// Sets the fuel ([`Config::fuel`]: the instruction count at which runs stop) for the
    /// next runs, to run a program in slices, each with its own sink.
    pub fn set_fuel(&mut self, fuel: Option<u64>) {
        self.config.fuel = fuel;
    }

    /// Runs until the guest exits, faults, runs out of fuel or a sink stops it, pushing the
    /// events `sink` asks for. Guest behaviour never makes this panic or hang (given fuel).
    pub fn run<S: Sink + ?Sized>(&mut self, sink: &mut S) -> RunSummary {
        let run_interest = sink.wants();
        // Superblocks only where blocks chain, no sink watches blocks, and no sample is
        // due at a block boundary that a superblock would move (see `BlockCache`).
        let watches_blocks = sink.watches_blocks();
        let may_stop = sink.may_stop();
        let chaining = !self.config.single_step && matches!(self.env, Env::Linux(_));
        self.cache.set_superblocks(
            chaining && !watches_blocks && self.sample_interval(run_interest).is_none(),
        );
        // Event superblocks keep fuel and samples exact, but deliver block and edge events
        // late, which only a sink that never stops cannot tell. A sink with probes has them
        // run by compiled code (see `BlockCache::set_probing`).
        let quiet = chaining && watches_blocks && !may_stop;
        let probing = quiet && sink.probe_state().is_some();
        self.cache.set_event_superblocks(quiet);
        self.cache
            .set_probing(probing, !probing || sink.saves_sums());
        let outcome = if self.config.single_step {
            self.run_loop::<true, S>(sink, run_interest)
        } else {
            self.run_loop::<false, S>(sink, run_interest)
        };
        let summary = RunSummary {
            outcome,
            pc: self.cpu.pc,
            instret: self.instret,
            blocks_translated: self.cache.translated,
            event_superblocks: self.cache.supers_formed,
            cache_flushes: self.cache.flushes,
            cache_bytes: self.cache.footprint(),
            guards_diverted: self.cache.diverted,
            sites_known: self.cache.sites_known,
        };
        let reason = match outcome {
            Outcome::Exited(c) => ExitReason::Exited(c),
            Outcome::Fault(_) | Outcome::UnsupportedHtif(_) => ExitReason::Fault,
            Outcome::FuelExhausted => ExitReason::FuelExhausted,
            Outcome::Stopped => ExitReason::Stopped,
        };
        sink.exit(&Exit {
            reason,
            pc: self.cpu.pc,
            instret: self.instret,
        });
        summary
    }

    /// The interval between samples in a run whose sinks want `run_interest`; `None` if
    /// the run takes none.
    fn sample_interval(&self, run_interest: Interest) -> Option<u64> {
        let sampling = run_interest.contains(Interest::SAMPLE);
        self.config.sample_interval.filter(|&i| i > 0 && sampling)
    }

    /// The run loop; `STEP` is [`Config::single_step`] (a constant, so the cached loop does
    /// not test it per block).
    fn run_loop<const STEP: bool, S: Sink + ?Sized>(
        &mut self,
        sink: &mut S,
        run_interest: Interest,
    ) -> Outcome {
        let fuel = self.config.fuel.unwrap_or(u64::MAX);
        let interval = self.sample_interval(run_interest);
        let mut next_sample = interval.map_or(u64::MAX, |i| self.instret.saturating_add(i));
        // The one threshold checked per block for both fuel and sampling.
        let mut next_event = fuel.min(next_sample);
        // Chained blocks run back to back in `run_chained` unless single-stepping or on bare
        // metal (whose HTIF is polled after every block).
        let chaining = !STEP && matches!(self.env, Env::Linux(_));
        let mut prev: Option<(u32, usize)> = None;
        loop {
            let pc = self.cpu.pc;
            // Find the block: the chain of the previous block, the index, or translation.
            let slot = match prev.and_then(|(from, exit)| self.cache.chained(from, exit, pc)) {
                Some(s) => s,
                None => {
                    let s = match self.cache.lookup(pc) {
                        Some(s) => s,
                        None => match self.cache.translate(&self.mem, pc, sink) {
                            Ok(s) => s,
                            Err(fault) => {
                                let trap = Trap::AccessFault(fault);
                                match self.raise(trap, pc) {
                                    Some(o) => return o,
                                    None => {
                                        prev = None;
                                        continue;
                                    }
                                }
                            }
                        },
                    };
                    if let Some((from, exit)) = prev {
                        self.cache.set_chain(from, exit, s);
                    }
                    s
                }
            };
            prev = None;
            let leave = if chaining && run_interest.is_empty() {
                self.run_chained::<false, S>(slot, next_event, sink)
            } else if chaining {
                self.run_chained::<true, S>(slot, next_event, sink)
            } else {
                Leave::Slow(slot)
            };
            let mut control = Control::Continue;
            match leave {
                Leave::Slow(slot) => {
                    match self.run_slow::<STEP, S>(slot, fuel, sink, run_interest, &mut control) {
                        Ok(p) => prev = p,
                        Err(o) => return o,
                    }
                }
                Leave::Untranslated { from, exit } => {
                    prev = Some((from, exit));
                    continue;
                }
                Leave::Boundary {
                    from,
                    exit,
                    control: c,
                } => {
                    prev = Some((from, exit));
                    control = c;
                }
                Leave::Trapped { slot, control: c } => {
                    control = c;
                    if let Some(o) = self.trapped(slot, sink, run_interest, &mut control) {
                        return o;
                    }
                }
            }
            if self.mem.take_code_written() || self.cache.stale {
                self.cache.flush();
                prev = None;
            }
            if let Env::Bare(bare) = &mut self.env {
                match bare.poll(&mut self.mem) {
                    None => {}
                    Some(HtifRequest::Exit(code)) => return Outcome::Exited(code),
                    Some(HtifRequest::Unsupported(v)) => return Outcome::UnsupportedHtif(v),
                }
            }
            if self.instret >= next_event {
                if self.instret >= next_sample {
                    let s = Sample {
                        pc: self.cpu.pc,
                        instret: self.instret,
                    };
                    control = control.or(sink.sample(&s));
                    next_sample = self.instret.saturating_add(interval.unwrap_or(u64::MAX));
                    next_event = fuel.min(next_sample);
                }
                if self.instret >= fuel {
                    // A stop asked for by the same block wins, as before.
                    if control == Control::Stop {
                        return Outcome::Stopped;
                    }
                    return Outcome::FuelExhausted;
                }
            }
            if control == Control::Stop {
                return Outcome::Stopped;
            }
        }
    }

    /// Runs the block in `slot` (at `cpu.pc`) on its own, at most up to the fuel, with its
    /// events. Returns the exit it left by, to chain its successor to, or how the run ended.
    #[inline(always)]
    fn run_slow<const STEP: bool, S: Sink + ?Sized>(
        &mut self,
        slot: u32,
        fuel: u64,
        sink: &mut S,
        run_interest: Interest,
        control: &mut Control,
    ) -> Result<Option<(u32, usize)>, Outcome> {
        let pc = self.cpu.pc;
        let block = &self.cache.blocks[slot as usize];
        let (count, end, interest) = (block.count, block.end, block.interest);
        let id = BlockId(self.cache.id_base + slot);
        if interest.contains(Interest::BLOCK) {
            *control = sink.block(id, pc);
        }
        let limit = (fuel - self.instret).min(u64::from(count)) as u32;
        let (done, result, mem_control) = self.run_block::<STEP, S>(slot, id, limit, sink);
        *control = control.or(mem_control);
        self.instret += u64::from(done);
        match result {
            Ok(next) if done == limit && done < count => {
                // Out of fuel inside the block.
                self.cpu.pc = next;
                Err(Outcome::FuelExhausted)
            }
            Ok(next) if done < count => {
                // A superblock left early by a transfer inside it (it has no events).
                self.cpu.pc = next;
                Ok(None)
            }
            Ok(next) => {
                self.cpu.pc = next;
                if interest.contains(Interest::EDGE) {
                    let edge = self.cache.blocks[slot as usize].edge(id, next);
                    *control = control.or(sink.edge(&edge));
                }
                Ok(Some((slot, usize::from(next != end))))
            }
            Err(at) => {
                self.cpu.pc = at;
                match self.trapped(slot, sink, run_interest, control) {
                    Some(o) => Err(o),
                    None => Ok(None),
                }
            }
        }
    }

    /// Runs blocks back to back from the one in `slot` (at `cpu.pc`), following their chains
    /// and the index, while nothing but their own events is due: each block runs whole
    /// (`instret + count < bound`, the next fuel or sample threshold, so neither can fall
    /// inside or at its end), and leaves on a translation, a trap, a store into code or a
    /// sink's stop. Per block that is an add, a compare and the successor's chain link; the
    /// state it touches lives in locals of this small function.
    #[inline(never)]
    fn run_chained<const EVENTS: bool, S: Sink + ?Sized>(
        &mut self,
        mut slot: u32,
        bound: u64,
        sink: &mut S,
    ) -> Leave {
        let Machine {
            cpu,
            mem: machine_mem,
            cache,
            instret,
            trap,
            ..
        } = self;
        // The memory moves into a local for the loop: its span's base, length and address
        // then stay in registers or one stack slot, where through `self` every access first
        // reloads a pointer to them.
        let mut local_mem = machine_mem.take();
        let mem = &mut local_mem;
        let mut retired = *instret;
        // Blocks with events run chained, their runs logged (a constant of the run).
        let logging = EVENTS && cache.logging();
        let leave = loop {
            // The event superblock starting here, if any, runs instead of the block when
            // the fuel or sample threshold is not inside it (so its first block fits too);
            // it ends in one of its parts, which the rest of the loop then treats as the
            // block that ran.
            let sup = if EVENTS {
                cache.event_super(slot, mem, sink).filter(|&i| {
                    let sup = cache.supers.get(i as usize);
                    sup.is_some_and(|s| retired + u64::from(s.count) < bound)
                })
            } else {
                None
            };
            let Some(block) = cache.blocks.get(slot as usize) else {
                break Leave::Slow(slot);
            };
            let count = u64::from(block.count);
            if retired + count >= bound {
                cpu.pc = block.start;
                break Leave::Slow(slot);
            }
            // Event superblocks, compiled blocks without events, and while logging those
            // with block and edge events, run their code (interpreted if it has none),
            // which may run on through the code it chains to (`block` and `slot` then
            // become the block it left, or the part of the superblock it left in, whose
            // exit may be linked in compiled code); the events of the logged ones follow
            // from the log. Other blocks no sink watches take the lean path: no events, no
            // control to merge; the others run in their own function, which keeps this
            // loop small.
            let mut code_link = None;
            let (block, count, result, control) = if sup.is_some()
                || (block.compiled != NONE && (block.interest.is_empty() || logging))
            {
                let entry = sup.map_or(Entry::Block(slot), Entry::Super);
                // What probes run on, lent for the code's run (re-asked after every event)
                // where the code can run probes on it (see `BlockCache::lends`).
                let mut lease = if logging { sink.probe_state() } else { None };
                let mut lease = lease.as_mut().filter(|l| cache.lends(l));
                if lease.is_none() && cache.stale {
                    // (The state's epoch is not the code's: the cache is flushed first.)
                    cpu.pc = cache.blocks[slot as usize].start;
                    break Leave::Slow(slot);
                }
                let probes = lease.as_deref_mut().map_or(Probes::NONE, Probes::of);
                let c = run_compiled(cpu, mem, cache, entry, &mut retired, bound, trap, probes);
                let epoch = lease.map(|l| {
                    l.state.sum = l.state.sum as u64 as i64 as i128 as u128;
                    l.state.epoch
                });
                (slot, code_link) = (c.slot, c.link);
                let mut control = Control::Continue;
                if EVENTS {
                    // The code that bailed out logged nothing: its events follow, after
                    // the interpreter ran its rest (and before its trap, if any, is
                    // handled).
                    control = deliver_logged(cache, c.logged, epoch, sink)
                        .or(c.pending.deliver(cache, sink));
                }
                let block = &cache.blocks[slot as usize];
                (block, u64::from(c.count), c.result, control)
            } else if block.interest.is_empty() {
                let here = cache.here(block, retired);
                let r = run_threaded(cpu, mem, cache.insns(block), &here, block.end, trap);
                (block, count, r, Control::Continue)
            } else if EVENTS {
                let id = BlockId(cache.id_base + slot);
                let (r, control) = run_with_events(cpu, mem, cache, block, id, retired, sink, trap);
                (block, count, r, control)
            } else {
                // A block with events in a run whose sinks want none overall: the run loop
                // runs it on its own.
                cpu.pc = block.start;
                break Leave::Slow(slot);
            };
            // The arena index of a side exit's branch, whose chain is in its `Meta`.
            let mut side = usize::MAX;
            let (next, exit, link) = match result {
                Ok(next) => {
                    retired += count;
                    // A host branch, not a select: the host predicts it as it would the
                    // guest's branch, so the successor's loads need not wait for the branch
                    // condition (`black_box` keeps LLVM from turning it into a conditional
                    // move).
                    let exit = if next == block.end {
                        0
                    } else {
                        std::hint::black_box(1usize)
                    };
                    (next, exit, block.link(exit))
                }
                Err(Early::SideExit { done, to, at }) => {
                    retired += u64::from(done);
                    side = at;
                    (to, SIDE_EXIT, cache.side_link(at))
                }
                Err(Early::Trap { done, at }) => {
                    retired += u64::from(done);
                    cpu.pc = at;
                    break Leave::Trapped { slot, control };
                }
            };
            match follow(cache, cpu, mem, slot, (next, exit, link, side), control) {
                Ok(s) => {
                    if let Some(l) = code_link {
                        cache.link_compiled(l, s);
                    }
                    slot = s;
                }
                Err(leave) => break leave,
            }
        };
        *machine_mem = local_mem;
        *instret = retired;
        leave
    }

    /// Handles the trap (in `self.trap`) of the instruction at `cpu.pc` in the block in
    /// `slot`. Returns the outcome if the run ends.
    fn trapped<S: Sink + ?Sized>(
        &mut self,
        slot: u32,
        sink: &mut S,
        run_interest: Interest,
        control: &mut Control,
    ) -> Option<Outcome> {
        let (trap, at) = (self.trap, self.cpu.pc);
        let block = self.cache.blocks[slot as usize];
        let id = BlockId(self.cache.id_base + slot);
        self.handle_trap(trap, at, &block, id, sink, run_interest, control)
    }

    /// Runs up to `limit` instructions of the block in `slot`. Returns how many completed,
    /// the next pc or the pc of a trapping instruction (its trap in `self.trap`), and the
    /// sinks' control.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn run_block<const STEP: bool, S: Sink + ?Sized>(
        &mut self,
        slot: u32,
        id: BlockId,
        limit: u32,
        sink: &mut S,
    ) -> (u32, Result<u64, u64>, Control) {
        let interest = self.cache.blocks[slot as usize].interest;
        let mut hook = MemHook::new(sink, id, interest);
        let (done, r) = if interest.contains(Interest::MEM) {
            self.exec_insns::<true, STEP, S>(slot, limit, &mut hook)
        } else {
            self.exec_insns::<false, STEP, S>(slot, limit, &mut hook)
        };
        (done, r, hook.control)
    }

    /// Runs the first `limit` instructions of the block in `slot`: the translated block when
    /// it runs whole in cached mode, else one instruction at a time, decoded afresh.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn exec_insns<const MEM: bool, const STEP: bool, S: Sink + ?Sized>(
        &mut self,
        slot: u32,
        limit: u32,
        hook: &mut MemHook<'_, S>,
    ) -> (u32, Result<u64, u64>) {
        let block = &self.cache.blocks[slot as usize];
        let (start, end) = (block.start, block.end);
        let cpu = &mut self.cpu;
        let mem = &mut self.mem;
        let base = self.instret;
        if STEP || limit < block.count {
            let mut pc = start;
            for i in 0..limit {
                let insn = match fetch_decode(mem, pc) {
                    Ok(insn) => insn,
                    Err(f) => {
                        self.trap = Trap::AccessFault(f);
                        return (i, Err(pc));
                    }
                };
                let t = translate(&insn, pc);
                let next = pc.wrapping_add(u64::from(insn.len));
                let here = Here {
                    start: pc,
                    base: base + u64::from(i),
                    meta: &[],
                    arena: &t as *const Tinsn as usize,
                };
                let transfer = matches!(
                    insn.flow(pc),
                    FlowClass::Branch { .. } | FlowClass::Jump { .. } | FlowClass::Call { .. }
                );
                match exec::<MEM, S>(t.op, cpu, mem, &t, next, &here, hook) {
                    // A direct transfer inside a superblock ends it, whichever way it went:
                    // a side exit, a followed jump, or a branch followed at its target that
                    // fell through; the run loop then finds the next pc as a block of its own.
                    // (Stepping on would run code outside the superblock as part of it.)
                    Ok(n) if transfer && i + 1 < block.count => return (i + 1, Ok(n)),
                    Ok(n) => pc = n,
                    Err(Trapped) => {
                        self.trap = hook.trap;
                        return (i, Err(pc));
                    }
                }
            }
            return (limit, Ok(pc));
        }
        let insns = self.cache.insns(block);
        let here = self.cache.here(block, base);
        // Blocks run here rarely (at the fuel limit or a sample, or on bare metal): one
        // instantiation that handles superblocks serves them all.
        match run_translated::<MEM, true, S>(cpu, mem, insns, &here, end, hook) {
            Ok(next) => (limit, Ok(next)),
            Err(Early::SideExit { done, to, .. }) => (done, Ok(to)),
            Err(Early::Trap { done, at }) => {
                self.trap = hook.trap;
                (done, Err(at))
            }
        }
    }

    /// Handles a trap of the instruction at `pc`, the last one of `block` when it is an
    /// environment call or similar. Returns the outcome if the run ends.
    #[allow(clippy::too_many_arguments)]
    fn handle_trap<S: Sink + ?Sized>(
        &mut self,
        trap: Trap,
        pc: u64,
        block: &Block,
        id: BlockId,
        sink: &mut S,
        run_interest: Interest,
        control: &mut Control,
    ) -> Option<Outcome> {
        // Only a trap that ends the block (at its last instruction) resumes after it; a
        // superblock may hold instructions past its end address (a followed backward
        // branch), whose traps do not use `next`.
        let len = if block.end.wrapping_sub(pc) == 2 {
            2
        } else {
            4
        };
        let next = pc + len;
        // Instructions that complete by trapping into the environment count as retired.
        let resumes_at = match (trap, &mut self.env) {
            (Trap::EnvironmentCall, Env::Linux(linux)) => {
                self.instret += 1;
                let regs: &mut [u64; 32] = (&mut self.cpu.x[..32]).try_into().ok()?;
                let args = [regs[10], regs[11], regs[12], regs[13], regs[14], regs[15]];
                let number = regs[17];
                match linux.syscall(regs, &mut self.mem, self.instret) {
                    SyscallOutcome::Exit(code) => return Some(Outcome::Exited(code)),
                    SyscallOutcome::Continue => {}
                }
                if run_interest.contains(Interest::SYSCALL) {
                    let ret = self.cpu.x[10] as i64;
                    let call = Syscall {
                        pc,
                        number,
                        args,
                        ret,
                    };
                    *control = control.or(sink.syscall(&call));
                }
                next
            }
            (Trap::FenceI, _) => {
                self.instret += 1;
                self.cache.flush();
                next
            }
            (Trap::WaitForInterrupt, _) => {
                self.instret += 1;
                next
            }
            (Trap::MachineReturn, Env::Bare(_)) => {
                self.instret += 1;
                Bare::mret(&mut self.cpu)
            }
            (trap, Env::Bare(_)) => {
                // Exceptions enter the guest's trap handler; no edge event for them.
                if matches!(trap, Trap::EnvironmentCall | Trap::Breakpoint) {
                    self.instret += 1;
                }
                self.cpu.pc = Bare::trap(&mut self.cpu, trap, pc);
                return None;
            }
            (trap, Env::Linux(_)) => return Some(Outcome::Fault(Fault { pc, trap })),
        };
        self.cpu.pc = resumes_at;
        if block.interest.contains(Interest::EDGE) {
            *control = control.or(sink.edge(&block.edge(id, resumes_at)));
        }
        None
    }

    /// Raises `trap` for an instruction that could not even be fetched.
    fn raise(&mut self, trap: Trap, pc: u64) -> Option<Outcome> {
        match self.env {
            Env::Linux(_) => Some(Outcome::Fault(Fault { pc, trap })),
            Env::Bare(_) => {
                self.cpu.pc = Bare::trap(&mut self.cpu, trap, pc);
                None
            }
        }
    }
}

/// The block [`Machine::run_chained`] runs next after the block in `slot` left by `exit`
/// for `next`, through `link` (the exit's chain, if any) or the index, recording the chain
/// (in the `Meta` of the side exit's branch at arena index `side` for [`SIDE_EXIT`]). Or
/// how the loop leaves: at a sink's stop, a store into code, or code not yet translated.
#[inline(always)]
fn follow(
    cache: &mut BlockCache,
    cpu: &mut Cpu,
    mem: &Memory,
    slot: u32,
    (next, exit, link, side): (u64, usize, Option<u32>, usize),
    control: Control,
) -> Result<u32, Leave> {
    if control == Control::Stop || mem.code_written() {
        cpu.pc = next;
        return Err(Leave::Boundary {
            from: slot,
            exit,
            control,
        });
    }
    if let Some(s) = link {
        return Ok(s);
    }
    match cache.lookup(next) {
        Some(s) => {
            if exit == SIDE_EXIT {
                cache.set_side_chain(side, s);
            } else {
                cache.set_chain(slot, exit, s);
            }
            Ok(s)
        }
        None => {
            cpu.pc = next;
            Err(Leave::Untranslated { from: slot, exit })
        }
    }
}

/// Runs `block` (as block `id`, after `retired` instructions) whole for [`Machine::run_chained`]
/// with the events its sinks asked for: block entry, memory accesses, and the edge it leaves
/// by. Returns the next pc, or the instructions retired and the pc of the one that trapped
/// (its trap in `trap`), and the sinks' control.
#[inline(always)]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn run_with_events<S: Sink + ?Sized>(
    cpu: &mut Cpu,
    mem: &mut Memory,
    cache: &BlockCache,
    block: &Block,
    id: BlockId,
    retired: u64,
    sink: &mut S,
    trap: &mut Trap,
) -> (Result<u64, Early>, Control) {
    let interest = block.interest;
    let mut control = Control::Continue;
    if interest.contains(Interest::BLOCK) {
        control = sink.block(id, block.start);
    }
    let insns = cache.insns(block);
    let here = cache.here(block, retired);
    let mut hook = MemHook::new(&mut *sink, id, interest);
    // A block with events is never a superblock (see `BlockCache`): no side-exit tests.
    let result = if interest.contains(Interest::MEM) {
        run_translated::<true, false, S>(cpu, mem, insns, &here, block.end, &mut hook)
    } else {
        let code = Code::of(cache, block);
        run_unchained(cpu, mem, cache, &code, &here, &mut hook.trap)
    };
    control = control.or(hook.control);
    match result {
        Ok(next) => {
            if interest.contains(Interest::EDGE) {
                control = control.or(sink.edge(&block.edge(id, next)));
            }
        }
        Err(Early::Trap { .. }) => *trap = hook.trap,
        // Only superblocks have side exits, and they have no events.
        Err(Early::SideExit { .. }) => {}
    }
    (result, control)
}

/// Runs the translated code of a whole block at `here` whose end is `end` on the threaded
/// interpreter (no memory events). Returns the next pc, or how it ended early: by a
/// superblock's side exit, or by a trap (stored in `trap`).
#[inline(always)]
pub(crate) fn run_threaded(
    cpu: &mut Cpu,
    mem: &mut Memory,
    insns: &[Tinsn],
    here: &Here<'_>,
    end: u64,
    trap: &mut Trap,
) -> Result<u64, Early> {
    let mut nothing = ();
    let mut lean = Lean {
        mem,
        here,
        hook: MemHook::new(&mut nothing, BlockId(0), Interest::NONE),
        end,
        at: usize::MAX,
        trapped: false,
    };
    let next = threaded::run(cpu, &mut lean, insns);
    if lean.at == usize::MAX {
        return Ok(next);
    }
    let m = here.meta(lean.at);
    Err(if lean.trapped {
        *trap = lean.hook.trap;
        Early::Trap {
            done: m.idx,
            at: m.pc(here.start),
        }
    } else {
        Early::SideExit {
            done: m.idx + 1,
            to: next,
            at: lean.at,
        }
    })
}

/// How a run of compiled code ended: as [`run_threaded`] returns, for the block in `slot`
/// (the last of those that ran chained, or the part an event superblock left in), and how
/// its exit may be linked to the next block (see [`jit`]).
pub(crate) struct Compiled {
    pub result: Result<u64, Early>,
    pub slot: u32,
    /// Instructions retired by the code that left, if it went on to the next pc (a
    /// superblock's up to its exit).
    pub count: u32,
    pub link: Option<jit::Link>,
    /// Records the logged code that ran wrote (see [`BlockCache::logged`]).
    pub logged: usize,
    /// The events of the code that left, if it bailed out (so logged nothing) and has
    /// events.
    pub pending: Pending,
}

/// Where compiled code is entered: a block's, or an event superblock's (by index).
#[derive(Clone, Copy)]
pub(crate) enum Entry {
    Block(u32),
    Super(u32),
}

/// The events of a block or event superblock that ran but logged nothing.
#[derive(Clone, Copy)]
pub(crate) enum Pending {
    None,
    /// The block in this slot, and the next pc if it did not trap.
    Block(u32, Option<u64>),
    /// The event superblock with this index, from part `from` (the probes of those before
    /// it ran) to part `k`, where it ended, and the next pc if it did not trap.
    Super(u32, usize, usize, Option<u64>),
}

impl Pending {
    fn deliver<S: Sink + ?Sized>(self, cache: &BlockCache, sink: &mut S) -> Control {
        match self {
            Pending::None => Control::Continue,
            Pending::Block(slot, next) => block_events(cache, slot, next, sink),
            Pending::Super(index, from, k, next) => match cache.supers.get(index as usize) {
                Some(sup) => super_events(cache, sup, from..k + 1, next, sink),
                None => Control::Continue,
            },
        }
    }
}

/// Runs the compiled code at `entry` and the code it chains to while `retired` (updated
/// to count the code before the last) stays below `bound`, and the threaded interpreter on
/// the rest of the last code if it bailed out (or could not run at all).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_compiled(
    cpu: &mut Cpu,
    mem: &mut Memory,
    cache: &BlockCache,
    entry: Entry,
    retired: &mut u64,
    bound: u64,
    trap: &mut Trap,
    probes: Probes,
) -> Compiled {
    let (handle, slot, first) = match entry {
        Entry::Block(slot) => {
            let b = &cache.blocks[slot as usize];
            (b.compiled, slot, b.first)
        }
        Entry::Super(index) => {
            let sup = &cache.supers[index as usize];
            (sup.compiled, index | jit::SUPER, sup.first)
        }
    };
    let budget = bound - *retired;
    // Code that cannot run is code that bails out before its first instruction.
    let left = cache
        .run_compiled(handle, cpu, mem, budget, probes)
        .unwrap_or(jit::Left {
            pc: 0,
            kind: jit::kind::BAIL,
            budget,
            slot,
            at: first,
            link: None,
            logged: 0,
            unprobed: false,
        });
    *retired = bound - left.budget;
    let bailed = left.kind == jit::kind::BAIL;
    // The compiled code names only slots and superblocks it was compiled for.
    if left.slot & jit::SUPER != 0 {
        let index = left.slot & !jit::SUPER;
        let sup = &cache.supers[index as usize];
        let (insns, here) = cache.super_code(sup, *retired);
        let code = Code::of_super(sup, insns);
        let (parts, _) = cache.parts(sup);
        let (k, count, result) = if left.kind == jit::kind::PART {
            // A probed superblock's part whose probe to the next did not apply.
            let k = (left.at as usize).min(parts.len().saturating_sub(1));
            (k, parts[k].done, Ok(left.pc))
        } else {
            let r = compiled_result(cpu, mem, &left, &code, &here, trap);
            super_end(sup, parts, r)
        };
        let next = result.as_ref().ok().copied();
        // A probed superblock that bailed out ran the probes of the parts before the one it
        // bailed out in (but in its unprobed code).
        let from = match sup.probed && bailed && !left.unprobed {
            true => part_of(parts, here.meta(left.at as usize).idx).min(k),
            false => 0,
        };
        return Compiled {
            result,
            slot: parts[k].slot,
            count,
            link: left.link,
            logged: left.logged,
            pending: if bailed {
                Pending::Super(index, from, k, next)
            } else {
                Pending::None
            },
        };
    }
    let block = &cache.blocks[left.slot as usize];
    let here = cache.here(block, *retired);
    let code = Code::of(cache, block);
    let result = compiled_result(cpu, mem, &left, &code, &here, trap);
    let next = result.as_ref().ok().copied();
    Compiled {
        result,
        slot: left.slot,
        count: block.count,
        link: left.link,
        logged: left.logged,
        pending: if bailed && !block.interest.is_empty() {
            Pending::Block(left.slot, next)
        } else {
            Pending::None
        },
    }
}

/// How event superblock `sup` (its `parts`) that ran as `r` ended: in which part, after
/// how many instructions, and as that part would have on its own (the next pc, or a trap;
/// never a side exit).
fn super_end(
    sup: &EventSuper,
    parts: &[Part],
    r: Result<u64, Early>,
) -> (usize, u32, Result<u64, Early>) {
    match r {
        Ok(next) => (parts.len().saturating_sub(1), sup.count, Ok(next)),
        // A side exit is the exit of the part whose branch it is.
        Err(Early::SideExit { done, to, .. }) => (part_of(parts, done - 1), done, Ok(to)),
        Err(Early::Trap { done, at }) => {
            (part_of(parts, done), done, Err(Early::Trap { done, at }))
        }
    }
}

/// The part of an event superblock (`parts`) that holds its instruction `i`.
fn part_of(parts: &[Part], i: u32) -> usize {
    parts
        .iter()
        .position(|p| i < p.done)
        .unwrap_or(parts.len().saturating_sub(1))
}

/// The events of the parts `ran` of event superblock `sup` (up to part `k`, where it
/// ended): one trace event (if they start at its first), or the parts' block and edge
/// events, then part `k`'s edge to `next` if it did not trap.
#[inline(always)]
fn super_events<S: Sink + ?Sized>(
    cache: &BlockCache,
    sup: &EventSuper,
    ran: std::ops::Range<usize>,
    next: Option<u64>,
    sink: &mut S,
) -> Control {
    let (parts, events) = cache.parts(sup);
    let k = ran.end.saturating_sub(1);
    let mut control = match (sup.batched, ran.start) {
        (true, 0) => sink.trace(sup.trace, ran.end as u32),
        _ => replay(sink, events.get(ran.clone()).unwrap_or(&[]), ran.len()),
    };
    if let (Some(next), Some(part), Some(last)) = (next, parts.get(k), events.get(k)) {
        if last.interest.contains(Interest::EDGE) {
            let edge = cache.blocks[part.slot as usize].edge(last.block, next);
            control = control.or(sink.edge(&edge));
        }
    }
    control
}

/// Delivers the block and edge events of the blocks logged by the last compiled run
/// (`n` records: [`Compiled::logged`]), in the order they ran; an indirect call's or jump's site
/// may ask the sink for a probe first ([`BlockCache::ask_site`], `epoch` being the probe
/// state's, if lent).
#[inline(always)]
fn deliver_logged<S: Sink + ?Sized>(
    cache: &mut BlockCache,
    n: usize,
    epoch: Option<u64>,
    sink: &mut S,
) -> Control {
    let mut control = Control::Continue;
    if epoch.is_none() {
        // No probes: the sites have nothing to ask (and the loop stays lean).
        for rec in cache.logged(n) {
            control = control.or(logged_events(cache, rec.get(), sink));
        }
        return control;
    }
    for i in 0..n {
        let Some(rec) = cache.logged(n).get(i).map(std::cell::Cell::get) else {
            break;
        };
        if rec.slot & jit::SUPER == 0 {
            cache.ask_site(rec.slot, rec.pc, epoch, sink);
        }
        control = control.or(logged_events(cache, rec, sink));
    }
    control
}

/// The events of one logged record.
#[inline(always)]
fn logged_events<S: Sink + ?Sized>(cache: &BlockCache, rec: jit::Rec, sink: &mut S) -> Control {
    if rec.slot & jit::SUPER == 0 {
        block_events(cache, rec.slot, Some(rec.pc), sink)
    } else if let Some(sup) = cache.supers.get((rec.slot & !jit::SUPER) as usize) {
        let (parts, _) = cache.parts(sup);
        let k = if rec.at & jit::PART_REC != 0 {
            ((rec.at & !jit::PART_REC) as usize).min(parts.len() - 1)
        } else if rec.at & jit::SIDE == 0 {
            parts.len() - 1
        } else {
            let (_, here) = cache.super_code(sup, 0);
            part_of(parts, here.meta((rec.at & !jit::SIDE) as usize).idx)
        };
        super_events(cache, sup, 0..k + 1, Some(rec.pc), sink)
    } else {
        Control::Continue
    }
}

/// The block event (if wanted) of the block in `slot` and, if it left for `next`, its
/// edge event (if wanted).
#[inline(always)]
fn block_events<S: Sink + ?Sized>(
    cache: &BlockCache,
    slot: u32,
    next: Option<u64>,
    sink: &mut S,
) -> Control {
    let Some(block) = cache.blocks.get(slot as usize) else {
        return Control::Continue;
    };
    let id = BlockId(cache.id_base + slot);
    let mut control = Control::Continue;
    if block.interest.contains(Interest::BLOCK) {
        control = sink.block(id, block.start);
    }
    if let (Some(next), true) = (next, block.interest.contains(Interest::EDGE)) {
        control = control.or(sink.edge(&block.edge(id, next)));
    }
    control
}

/// The code of a block or event superblock: its compiled code's handle (or `NONE`), its
/// guest instruction count, its translated instructions from arena index `first`, and its
/// fall-through `end`.
struct Code<'a> {
    handle: u32,
    count: u32,
    insns: &'a [Tinsn],
    first: u32,
    end: u64,
}

impl Code<'_> {
    /// The code of event superblock `sup`, whose translated instructions are `insns`.
    #[inline(always)]
    fn of_super<'a>(sup: &EventSuper, insns: &'a [Tinsn]) -> Code<'a> {
        Code {
            handle: sup.compiled,
            count: sup.count,
            insns,
            first: sup.first,
            end: sup.end,
        }
    }

    /// The code of `block`.
    #[inline(always)]
    fn of<'a>(cache: &'a BlockCache, block: &Block) -> Code<'a> {
        Code {
            handle: block.compiled,
            count: block.count,
            insns: cache.insns(block),
            first: block.first,
            end: block.end,
        }
    }
}

/// Runs `code` at `here` as [`run_threaded`] does, on its compiled code if it has some,
/// given its own count as the budget: the compiled code then never goes on into another
/// block's, so the run loop sees its exit and delivers its events (a block with events, an
/// event superblock).
#[inline(always)]
fn run_unchained(
    cpu: &mut Cpu,
    mem: &mut Memory,
    cache: &BlockCache,
    code: &Code<'_>,
    here: &Here<'_>,
    trap: &mut Trap,
) -> Result<u64, Early> {
    let budget = u64::from(code.count);
    match cache.run_compiled(code.handle, cpu, mem, budget, Probes::NONE) {
        Some(left) => compiled_result(cpu, mem, &left, code, here, trap),
        None => run_threaded(cpu, mem, code.insns, here, code.end, trap),
    }
}

/// How the compiled code of a block or event superblock that left as `left` ended, as
/// [`run_threaded`] returns: after a bail-out, the threaded interpreter runs the rest of
/// `code` (the code that left) at `here`.
#[inline(always)]
fn compiled_result(
    cpu: &mut Cpu,
    mem: &mut Memory,
    left: &jit::Left,
    code: &Code<'_>,
    here: &Here<'_>,
    trap: &mut Trap,
) -> Result<u64, Early> {
    let at = left.at as usize;
    match left.kind {
        jit::kind::END => Ok(left.pc),
        jit::kind::SIDE_EXIT => Err(Early::SideExit {
            done: here.meta(at).idx + 1,
            to: left.pc,
            at,
        }),
        // Bailed out before arena index `at`.
        _ => {
            let rest = code.insns.get(at.wrapping_sub(code.first as usize)..);
            run_threaded(cpu, mem, rest.unwrap_or(code.insns), here, code.end, trap)
        }
    }
}

/// How running a translated block ended before its last instruction.
#[derive(Debug)]
pub(crate) enum Early {
    /// A conditional branch inside a superblock was taken, as instruction `done - 1` (the
    /// translated instruction `at` in the arena); control goes to `to`.
    SideExit { done: u32, to: u64, at: usize },
    /// After `done` instructions retired, the one at `at` trapped (its trap in the hook).
    Trap { done: u32, at: u64 },
}

/// Runs the translated code of a whole block at `here` whose end is `end` through [`exec`]'s
/// `match` (blocks with memory events, and the rare whole-superblock runs of `run_slow`; the
/// others run on [`run_threaded`]). Returns the next pc, or how it ended early: by a
/// superblock's side exit, or by a trap (in `hook.trap`).
/// `SUPER` must be set if `insns` may be a superblock's: without it, the body is not tested
/// for side exits (a plain block's body never transfers control). Each caller names one
/// value, so the interpreter loop is compiled no more often than without the parameter.
#[inline(always)]
fn run_translated<const MEM: bool, const SUPER: bool, S: Sink + ?Sized>(
    cpu: &mut Cpu,
    mem: &mut Memory,
    insns: &[Tinsn],
    here: &Here<'_>,
    end: u64,
    hook: &mut MemHook<'_, S>,
) -> Result<u64, Early> {
    // Evaluates to the next pc that `$insn` computes given `$next`.
    macro_rules! step {
        ($insn:expr, $next:expr) => {
            match exec::<MEM, S>($insn.op, cpu, mem, $insn, $next, here, hook) {
                Ok(n) => n,
                Err(Trapped) => {
                    let m = here.meta(here.index($insn));
                    return Err(Early::Trap {
                        done: m.idx,
                        at: m.pc(here.start),
                    });
                }
            }
        };
    }
    // An instruction of the body: only a superblock's conditional branch may transfer
    // control, leaving the block by a side exit.
    macro_rules! body {
        ($insn:expr) => {
            let to = step!($insn, FALLS_THROUGH);
            if SUPER && to != FALLS_THROUGH {
                let at = here.index($insn);
                return Err(Early::SideExit {
                    done: here.meta(at).idx + 1,
                    to,
                    at,
                });
            }
        };
    }
    let Some((last, body)) = insns.split_last() else {
        return Ok(end);
    };
    // The body unrolled by two, and the last instruction (usually the branch) on its own:
    // each copy has its own dispatch branch, so the host's branch predictor sees three sites
    // with their own histories instead of one.
    let mut pairs = body.chunks_exact(2);
    for pair in &mut pairs {
        if let [a, b] = pair {
            body!(a);
            body!(b);
        }
    }
    if let [one] = pairs.remainder() {
        body!(one);
    }
    Ok(step!(last, end))
}

/// What [`CodeView::insn`] tells of `insn` at `addr`.
fn insn_info(insn: &crate::insn::Insn, addr: u64) -> InsnInfo {
    InsnInfo {
        len: insn.len,
        flow: insn.flow(addr),
        accesses_memory: insn.mem_access().is_some(),
    }
}

/// [`CodeView::text`] of `insn` at `addr`.
fn insn_text(mut insn: crate::insn::Insn, addr: u64) -> String {
    if insn.rd == 32 {
        insn.rd = 0;
    }
    crate::disasm::disasm(&insn, addr)
}

/// The code in the machine's memory.
impl CodeView for Machine {
    fn insn(&self, addr: u64) -> Option<InsnInfo> {
        let insn = fetch_decode(&self.mem, addr).ok()?;
        Some(insn_info(&insn, addr))
    }

    fn text(&self, addr: u64) -> Option<String> {
        Some(insn_text(fetch_decode(&self.mem, addr).ok()?, addr))
    }

    fn symbol(&self, addr: u64) -> Option<(&str, u64)> {
        self.image.symbolize(addr)
    }

    fn functions(&self) -> Vec<u64> {
        self.image.functions()
    }

    /// The file's tables: read-only data is as loaded.
    fn jump_tables(
        &self,
        entry: u64,
        leaves: &dyn Fn(u64) -> bool,
    ) -> Option<BTreeMap<u64, Vec<u64>>> {
        self.image.jump_tables(entry, leaves)
    }

    /// The file's code pointers: data as loaded.
    fn code_pointers(&self, start: u64, end: u64) -> Option<Vec<u64>> {
        self.image.code_pointers_inside(start, end)
    }
}

/// The code of the file as loaded, before it runs: what a [`Machine`]'s view shows of a
/// program that does not write its code, without borrowing the machine (an analysis can
/// own it while the machine runs).
impl CodeView for ElfImage {
    fn insn(&self, addr: u64) -> Option<InsnInfo> {
        let insn = decode_fetched(|a| self.fetch_u16(a), addr).ok()?;
        Some(insn_info(&insn, addr))
    }

    fn text(&self, addr: u64) -> Option<String> {
        Some(insn_text(
            decode_fetched(|a| self.fetch_u16(a), addr).ok()?,
            addr,
        ))
    }

    fn symbol(&self, addr: u64) -> Option<(&str, u64)> {
        self.symbolize(addr)
    }

    fn functions(&self) -> Vec<u64> {
        ElfImage::functions(self)
    }

    fn jump_tables(
        &self,
        entry: u64,
        leaves: &dyn Fn(u64) -> bool,
    ) -> Option<BTreeMap<u64, Vec<u64>>> {
        crate::jump_table::resolve(self, entry, leaves)
    }

    fn code_pointers(&self, start: u64, end: u64) -> Option<Vec<u64>> {
        self.code_pointers_inside(start, end)
    }
}

//! The prof-events sink: feeds every executed block to a [`Detector`] keyed by block
//! address and to a [`PhaseDetector`].

use std::io::{self, Write};

use prof_events::{BlockEnd, BlockId, BlockInfo, CodeView, Control, Exit, Interest, Sample, Sink};

use crate::detector::{Config, Detector};
use crate::isam::IsamWriter;
use crate::phase::{merge_phases, Phase, PhaseConfig, PhaseDetector};

/// What the sink knows about a translated block: the spec's block characterization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockMeta {
    /// Address of the first instruction (the block's symbol in the paths).
    pub start: u64,
    /// Address past the last instruction.
    pub end: u64,
    /// Instructions.
    pub insns: u32,
    /// Weight (the instruction count unless a weight function says otherwise).
    pub weight: u64,
    /// Ends in a conditional branch.
    pub cond_branch: bool,
}

/// What a block's entry feeds the detectors, by block id: a compact copy of the
/// [`BlockMeta`] fields the hot path reads, plus the interned symbol, so an entry reads one
/// record. (Reading `BlockMeta` and a separate symbol vector instead measured 1.69-1.79x
/// against 1.55-1.74x with this record, paths only on crc:
/// `STRATA_GRAMMAR=0 STRATA_LEVELS=0 strata_cost guests/bin/crc.elf 5`, three paired runs.)
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    sym: u32,
    insns: u32,
    cond_branch: bool,
    weight: u64,
}

/// A block's weight, computed once when the block is translated.
pub type WeightFn = Box<dyn FnMut(&BlockInfo) -> u64>;

/// The strata sink: asks for every block's entry and nothing else.
pub struct StrataSink {
    detector: Detector<u64>,
    phases: PhaseDetector,
    blocks: Vec<BlockMeta>,
    /// Per block id, what each entry needs: the detector's index of its start address,
    /// instructions, weight, and whether it ends in a conditional branch.
    hot: Vec<Hot>,
    weight: Option<WeightFn>,
    stream: Option<Stream>,
}

/// The ISAM file being written during the run, or the first write error (after which
/// nothing more is written).
type Stream = Result<IsamWriter<Box<dyn Write>>, io::Error>;

impl StrataSink {
    /// A sink with the detector and phase configurations; block weight = instructions.
    pub fn new(config: &Config, phases: PhaseConfig) -> Self {
        StrataSink {
            detector: Detector::new(config),
            phases: PhaseDetector::new(phases),
            blocks: Vec::new(),
            hot: Vec::new(),
            weight: None,
            stream: None,
        }
    }

    /// Writes the ISAM file to `out` while the run goes on: the records in full batches at
    /// every sampling interrupt (so the machine needs a sample interval), the rest with the
    /// tables at [`finish_file`](Self::finish_file). A run killed on the way leaves a file
    /// whose batches written so far are readable. Fails if the header cannot be written.
    pub fn stream_to(mut self, out: impl Write + 'static) -> io::Result<Self> {
        self.stream = Some(Ok(IsamWriter::new(Box::new(out) as Box<dyn Write>)?));
        Ok(self)
    }

    /// Ends the streams ([`finish`](Self::finish)) and completes the file given to
    /// [`stream_to`](Self::stream_to): its length in bytes, `None` without one, or the
    /// first write error of the run.
    pub fn finish_file(&mut self) -> Option<io::Result<u64>> {
        self.finish();
        let stream = self.stream.take()?;
        Some(stream.and_then(|w| w.finish(&self.detector, &self.blocks).map(|(_, len)| len)))
    }

    /// Uses `weight` for each block's weight instead of its instruction count.
    pub fn with_weight(mut self, weight: impl FnMut(&BlockInfo) -> u64 + 'static) -> Self {
        self.weight = Some(Box::new(weight));
        self
    }

    /// Ends the streams (also done by [`Sink::exit`]).
    pub fn finish(&mut self) {
        self.detector.finish();
    }

    /// The detector (symbols are block start addresses).
    pub fn detector(&self) -> &Detector<u64> {
        &self.detector
    }

    /// Every block translated, by dense block id.
    pub fn blocks(&self) -> &[BlockMeta] {
        &self.blocks
    }

    /// The block starting at `addr` (the first translation of it).
    pub fn block_at(&self, addr: u64) -> Option<&BlockMeta> {
        self.blocks.iter().find(|b| b.start == addr)
    }

    /// The block at `addr` disassembled through `code`, one line per instruction.
    pub fn disassemble(&self, code: &dyn CodeView, addr: u64) -> Vec<String> {
        let Some(b) = self.block_at(addr) else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        let mut pc = b.start;
        while pc < b.end {
            let Some(info) = code.insn(pc) else { break };
            let text = code.text(pc).unwrap_or_else(|| "?".into());
            lines.push(format!("{pc:#x}: {text}"));
            pc += u64::from(info.len.max(1));
        }
        lines
    }

    /// All phase changes: interval signals and table reorders, in instruction order.
    pub fn phases(&self) -> Vec<Phase> {
        merge_phases(self.phases.phases(), &self.detector.reorders())
    }

    /// The phase detector's configuration.
    pub fn phase_config(&self) -> &PhaseConfig {
        self.phases.config()
    }
}

impl Sink for StrataSink {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn wants(&mut self) -> Interest {
        if self.stream.is_some() {
            Interest::EXIT | Interest::SAMPLE
        } else {
            Interest::EXIT
        }
    }

    fn sample(&mut self, _sample: &Sample) -> Control {
        if let Some(Ok(w)) = &mut self.stream {
            if let Err(e) = w.append(self.detector.records()) {
                self.stream = Some(Err(e));
            }
        }
        Control::Continue
    }

    fn interest(&mut self, block: &BlockInfo) -> Interest {
        let i = block.id.index();
        if self.blocks.len() <= i {
            let empty = BlockMeta {
                start: 0,
                end: 0,
                insns: 0,
                weight: 0,
                cond_branch: false,
            };
            self.blocks.resize(i + 1, empty);
            self.hot.resize(i + 1, Hot::default());
        }
        let weight = match &mut self.weight {
            Some(f) => f(block),
            None => u64::from(block.insns),
        };
        self.blocks[i] = BlockMeta {
            start: block.start,
            end: block.end,
            insns: block.insns,
            weight,
            cond_branch: matches!(block.ends_with, BlockEnd::Branch { .. }),
        };
        self.hot[i] = Hot {
            sym: self.detector.intern(block.start),
            insns: block.insns,
            cond_branch: self.blocks[i].cond_branch,
            weight,
        };
        Interest::BLOCK
    }

    #[inline]
    fn block(&mut self, id: BlockId, _pc: u64) -> Control {
        if let Some(&b) = self.hot.get(id.index()) {
            let insns = u64::from(b.insns);
            self.detector.push_index(b.sym, insns, b.weight);
            self.phases.observe(id.0, insns, b.cond_branch);
        }
        Control::Continue
    }

    fn exit(&mut self, _exit: &Exit) {
        self.finish();
    }
}

//! The ISAM file of strata records: records written sequentially in checksummed batches,
//! then the level tables, the block table, an index of the batches by ending instruction,
//! path and stratum number, and an end frame.
//!
//! ## Layout (all integers little-endian)
//!
//! ```text
//! header  "STRATAFL" (8 bytes), version u32 (= 1), reserved u32 (= 0)
//! frame*  tag u8, length u32, payload (length bytes), crc32 u32 of tag, length and payload
//! ```
//!
//! Frames, in file order: `RECORDS` (a batch of [`BATCH`] records, fewer in the last:
//! count u32, the previous record's ending instruction, path and stratum numbers as u64,
//! then each record as LEB128 deltas: stratum, trips, gap, length, paths, strata), `LEVEL` (a chunk of one level's
//! table: level u8, count u32, then per sequence its stats and members), `BLOCKS` (start
//! u64, end u64, insns u32, weight u64, conditional-branch flag u8 per block), `INDEX` (per batch: offset, first record
//! number, record count, and the batch's last end instruction, path and stratum), `END`
//! (record count, index offset). Records come first because a run produces them first: a
//! writer interrupted at any byte leaves a prefix whose intact frames are still readable.
//!
//! Opening verifies every frame's checksum in one sequential pass and builds the batch
//! index from the intact frames; a stored index must agree with it. Damage (a short
//! frame, a bad checksum, a missing end frame, an index that disagrees) is returned as an
//! [`IsamError`] next to the readable prefix, never a panic.

use std::fmt;
use std::io::{self, Write};

use crate::detector::{Detector, StratumRecord};
use crate::level::{Rep, SeqStats};
use crate::sink::BlockMeta;

const MAGIC: &[u8; 8] = b"STRATAFL";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 1;
/// Records per `RECORDS` frame (the granularity of the index).
pub const BATCH: usize = 256;
const HEADER: usize = 16;
const TAG_RECORDS: u8 = 1;
const TAG_LEVEL: u8 = 2;
const TAG_BLOCKS: u8 = 3;
const TAG_INDEX: u8 = 4;
const TAG_END: u8 = 5;
/// Sequences per `LEVEL` frame.
const LEVEL_CHUNK: usize = 4096;

/// What is wrong with a file. The readable prefix is returned alongside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IsamError {
    /// Not a strata file.
    BadMagic,
    /// A version this crate does not read.
    Version(u32),
    /// The file ends inside the header or a frame at this offset.
    Truncated(u64),
    /// The frame at this offset fails its checksum.
    Checksum(u64),
    /// The frame at this offset is malformed (unknown tag, bad payload).
    Malformed(u64, &'static str),
    /// The file has no end frame: the writer was interrupted.
    NoEnd,
    /// The stored index disagrees with the records.
    IndexMismatch,
}

impl fmt::Display for IsamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsamError::BadMagic => write!(f, "not a strata ISAM file (bad magic)"),
            IsamError::Version(v) => {
                write!(f, "unsupported version {v} (this reader reads {VERSION})")
            }
            IsamError::Truncated(o) => write!(f, "truncated at byte {o}"),
            IsamError::Checksum(o) => write!(f, "checksum mismatch in the frame at byte {o}"),
            IsamError::Malformed(o, what) => write!(f, "malformed frame at byte {o}: {what}"),
            IsamError::NoEnd => write!(f, "no end frame (interrupted write)"),
            IsamError::IndexMismatch => write!(f, "the stored index disagrees with the records"),
        }
    }
}

impl std::error::Error for IsamError {}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320).
pub fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    !data.iter().fold(!0u32, |c, &b| {
        TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
    })
}

/// Little-endian encoder.
#[derive(Default)]
struct Enc(Vec<u8>);

impl Enc {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// LEB128.
    fn var(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
}

/// Little-endian decoder over a payload; running short is an error, not a panic.
struct Dec<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Dec<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.buf.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|s| s[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8)?.try_into().ok().map(u64::from_le_bytes)
    }
    fn var(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7F).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    fn done(&self) -> bool {
        self.pos == self.buf.len()
    }
}

fn frame(out: &mut Vec<u8>, tag: u8, payload: &[u8]) {
    let start = out.len();
    out.push(tag);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

fn put_stats(e: &mut Enc, s: &SeqStats) {
    e.u32(s.id);
    for v in [
        s.trips,
        s.occurrences,
        s.insns,
        s.heat,
        s.first_insn,
        s.last_insn,
    ] {
        e.u64(v);
    }
}

fn get_stats(d: &mut Dec<'_>) -> Option<SeqStats> {
    Some(SeqStats {
        id: d.u32()?,
        trips: d.u64()?,
        occurrences: d.u64()?,
        insns: d.u64()?,
        heat: d.u64()?,
        first_insn: d.u64()?,
        last_insn: d.u64()?,
    })
}

/// One batch of records as the index knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    /// File offset of the batch's frame.
    pub offset: u64,
    /// Number of the batch's first record.
    pub first: u64,
    /// Records in the batch.
    pub count: u32,
    /// The last record's ending instruction number.
    pub end_insn: u64,
    /// The last record's ending path number.
    pub end_path: u64,
    /// The last record's ending stratum number.
    pub end_stratum: u64,
}

/// The key a lookup or scan goes by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Ending instruction number.
    Insn,
    /// Ending path number.
    Path,
    /// Ending stratum number.
    Stratum,
}

impl Key {
    fn of_record(self, r: &StratumRecord) -> u64 {
        match self {
            Key::Insn => r.end_insn,
            Key::Path => r.end_path,
            Key::Stratum => r.end_stratum,
        }
    }
    fn of_entry(self, e: &IndexEntry) -> u64 {
        match self {
            Key::Insn => e.end_insn,
            Key::Path => e.end_path,
            Key::Stratum => e.end_stratum,
        }
    }
}

/// One sequence of an upper level as stored: its stats and members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSeq<M> {
    /// Its statistics.
    pub stats: SeqStats,
    /// Its members (block addresses for paths, repeated units above).
    pub members: Vec<M>,
}

/// Writes the detector's records, tables and blocks as an ISAM file image.
pub fn write(detector: &Detector<u64>, blocks: &[BlockMeta]) -> Vec<u8> {
    write_batched(detector, blocks, BATCH)
}

/// [`write`](fn@write) with `batch` records per indexed frame (at least 1).
pub fn write_batched(detector: &Detector<u64>, blocks: &[BlockMeta], batch: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + detector.records().len() * 8);
    let done = IsamWriter::with_batch(&mut out, batch)
        .and_then(|mut w| {
            w.append(detector.records())?;
            w.finish(detector, blocks)
        })
        .map(|_| ());
    // Writing into a `Vec` cannot fail.
    debug_assert!(done.is_ok());
    out
}

/// Writes an ISAM file while the run produces it: the header at once, each batch of records
/// as soon as it is full ([`append`](Self::append)), and at the end the last batch, the
/// tables, the block table, the index and the end frame ([`finish`](Self::finish)). A run
/// that is killed leaves a file whose full batches are readable (opening it reports the
/// missing end). The bytes are those of [`write_batched`] for the same records.
pub struct IsamWriter<W: Write> {
    out: W,
    batch: usize,
    /// Bytes written so far (the next frame's offset).
    offset: u64,
    /// Records written so far.
    written: usize,
    /// The last record written (the base of the next batch's deltas).
    prev: StratumRecord,
    index: Vec<IndexEntry>,
    /// The frame being built.
    buf: Vec<u8>,
}

impl<W: Write> IsamWriter<W> {
    /// A writer of [`BATCH`] records per frame; writes the header.
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_batch(out, BATCH)
    }

    /// A writer of `batch` records per frame (at least 1); writes the header.
    pub fn with_batch(mut out: W, batch: usize) -> io::Result<Self> {
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        out.write_all(&header)?;
        Ok(IsamWriter {
            out,
            batch: batch.max(1),
            offset: HEADER as u64,
            written: 0,
            prev: StratumRecord::default(),
            index: Vec::new(),
            buf: Vec::new(),
        })
    }

    /// Writes every full batch of `records` beyond those already written, and flushes.
    /// `records` is the whole record list so far (the detector's [`Detector::records`]):
    /// it only grows between calls.
    pub fn append(&mut self, records: &[StratumRecord]) -> io::Result<()> {
        let before = self.written;
        while let Some(batch) = records.get(self.written..self.written + self.batch) {
            self.put_batch(batch)?;
        }
        if self.written != before {
            self.out.flush()?;
        }
        Ok(())
    }

    /// The output.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Records written so far.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Writes the records not yet written, the level tables, `blocks`, the index and the
    /// end frame, flushes, and returns the output and the file's length in bytes.
    pub fn finish(
        mut self,
        detector: &Detector<u64>,
        blocks: &[BlockMeta],
    ) -> io::Result<(W, u64)> {
        let rest = detector.records().get(self.written..).unwrap_or_default();
        for batch in rest.chunks(self.batch) {
            self.put_batch(batch)?;
        }
        for level in 0..detector.levels() {
            let stats = detector.all_stats(level);
            for chunk in stats.chunks(LEVEL_CHUNK) {
                let mut e = Enc::default();
                e.u8(level as u8);
                e.u32(chunk.len() as u32);
                for s in chunk {
                    put_stats(&mut e, s);
                    if level == 0 {
                        let p = detector.path(s.id).unwrap_or_default();
                        e.u32(p.len() as u32);
                        p.iter().for_each(|&a| e.u64(a));
                    } else {
                        let m = detector.sequence(level, s.id).unwrap_or_default();
                        e.u32(m.len() as u32);
                        for r in m {
                            e.u32(r.id);
                            e.u64(r.trips);
                        }
                    }
                }
                self.put_frame(TAG_LEVEL, &e.0)?;
            }
        }
        let mut e = Enc::default();
        e.u32(blocks.len() as u32);
        for b in blocks {
            e.u64(b.start);
            e.u64(b.end);
            e.u32(b.insns);
            e.u64(b.weight);
            e.u8(u8::from(b.cond_branch));
        }
        self.put_frame(TAG_BLOCKS, &e.0)?;
        let index_offset = self.offset;
        let mut e = Enc::default();
        e.u32(self.index.len() as u32);
        for i in &self.index {
            e.u64(i.offset);
            e.u64(i.first);
            e.u32(i.count);
            e.u64(i.end_insn);
            e.u64(i.end_path);
            e.u64(i.end_stratum);
        }
        self.put_frame(TAG_INDEX, &e.0)?;
        let mut e = Enc::default();
        e.u64(self.written as u64);
        e.u64(index_offset);
        self.put_frame(TAG_END, &e.0)?;
        self.out.flush()?;
        Ok((self.out, self.offset))
    }

    /// Writes one `RECORDS` frame and indexes it.
    fn put_batch(&mut self, batch: &[StratumRecord]) -> io::Result<()> {
        let mut e = Enc::default();
        e.u32(batch.len() as u32);
        for v in [
            self.prev.end_insn,
            self.prev.end_path,
            self.prev.end_stratum,
        ] {
            e.u64(v);
        }
        for r in batch {
            encode_record(&mut e, &self.prev, r);
            self.prev = *r;
        }
        self.index.push(IndexEntry {
            offset: self.offset,
            first: self.written as u64,
            count: batch.len() as u32,
            end_insn: self.prev.end_insn,
            end_path: self.prev.end_path,
            end_stratum: self.prev.end_stratum,
        });
        self.written += batch.len();
        self.put_frame(TAG_RECORDS, &e.0)
    }

    fn put_frame(&mut self, tag: u8, payload: &[u8]) -> io::Result<()> {
        self.buf.clear();
        frame(&mut self.buf, tag, payload);
        self.out.write_all(&self.buf)?;
        self.offset += self.buf.len() as u64;
        Ok(())
    }
}

/// Where an instruction number falls in the hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The record (repeated stratum) active at the instruction, and its number.
    pub record: StratumRecord,
    /// Its number in the file.
    pub record_no: u64,
    /// Where in the stratum, if the level tables are readable.
    pub within: Option<Within>,
}

/// Where an instruction falls inside a repeated stratum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Within {
    /// Which trip of the stratum (0-based).
    pub stratum_trip: u64,
    /// The path active at the instruction.
    pub path: u32,
    /// Which trip of that path within its repeated path (0-based).
    pub path_trip: u64,
    /// The path's blocks (start addresses).
    pub path_blocks: Vec<u64>,
    /// The block active at the instruction, if the block table is intact.
    pub block: Option<u64>,
}

/// An opened ISAM file: the intact prefix, its index, and the tables.
#[derive(Clone, Debug)]
pub struct IsamFile {
    bytes: Vec<u8>,
    index: Vec<IndexEntry>,
    /// Level tables: `paths` (level 0) and the upper levels.
    pub paths: Vec<StoredSeq<u64>>,
    /// Upper levels: `upper[0]` strata, `upper[1]` layers, ...
    pub upper: Vec<Vec<StoredSeq<Rep>>>,
    /// The block table.
    pub blocks: Vec<BlockMeta>,
    complete: bool,
}

impl IsamFile {
    /// Parses a file image. Returns the readable part and the first damage found, if any.
    pub fn parse(bytes: Vec<u8>) -> (IsamFile, Option<IsamError>) {
        let mut f = IsamFile {
            bytes: Vec::new(),
            index: Vec::new(),
            paths: Vec::new(),
            upper: Vec::new(),
            blocks: Vec::new(),
            complete: false,
        };
        let err = f.load(&bytes).err();
        f.bytes = bytes;
        (f, err)
    }

    /// Reads and parses the file at `path`.
    pub fn open(path: &std::path::Path) -> io::Result<(IsamFile, Option<IsamError>)> {
        Ok(Self::parse(std::fs::read(path)?))
    }

    fn load(&mut self, bytes: &[u8]) -> Result<(), IsamError> {
        let header = bytes
            .get(..HEADER)
            .ok_or(IsamError::Truncated(bytes.len() as u64))?;
        if &header[..8] != MAGIC {
            return Err(IsamError::BadMagic);
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if version != VERSION {
            return Err(IsamError::Version(version));
        }
        if header[12..16] != [0; 4] {
            return Err(IsamError::Malformed(12, "reserved header bytes"));
        }
        let mut pos = HEADER;
        let mut stored_index = None;
        let mut records = 0u64;
        while pos < bytes.len() {
            let at = pos as u64;
            let head = bytes.get(pos..pos + 5).ok_or(IsamError::Truncated(at))?;
            let tag = head[0];
            let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
            let body_end = (pos + 5).checked_add(len).ok_or(IsamError::Truncated(at))?;
            let crc_bytes = bytes
                .get(body_end..body_end + 4)
                .ok_or(IsamError::Truncated(at))?;
            let crc = u32::from_le_bytes([crc_bytes[0], crc_bytes[1], crc_bytes[2], crc_bytes[3]]);
            if crc32(&bytes[pos..body_end]) != crc {
                return Err(IsamError::Checksum(at));
            }
            let mut d = Dec {
                buf: &bytes[pos + 5..body_end],
                pos: 0,
            };
            let bad = |what| IsamError::Malformed(at, what);
            match tag {
                TAG_RECORDS => {
                    let batch = decode_batch(&mut d).ok_or(bad("record batch"))?;
                    let last = batch.last().ok_or(bad("empty record batch"))?;
                    self.index.push(IndexEntry {
                        offset: at,
                        first: records,
                        count: batch.len() as u32,
                        end_insn: last.end_insn,
                        end_path: last.end_path,
                        end_stratum: last.end_stratum,
                    });
                    records += batch.len() as u64;
                }
                TAG_LEVEL => self.load_level(&mut d).ok_or(bad("level table"))?,
                TAG_BLOCKS => {
                    let n = d.u32().ok_or(bad("block count"))?;
                    for _ in 0..n {
                        let b = (|| {
                            Some(BlockMeta {
                                start: d.u64()?,
                                end: d.u64()?,
                                insns: d.u32()?,
                                weight: d.u64()?,
                                cond_branch: d.u8()? != 0,
                            })
                        })()
                        .ok_or(bad("block"))?;
                        self.blocks.push(b);
                    }
                }
                TAG_INDEX => {
                    let n = d.u32().ok_or(bad("index count"))?;
                    let mut v = Vec::new();
                    for _ in 0..n {
                        let e = (|| {
                            Some(IndexEntry {
                                offset: d.u64()?,
                                first: d.u64()?,
                                count: d.u32()?,
                                end_insn: d.u64()?,
                                end_path: d.u64()?,
                                end_stratum: d.u64()?,
                            })
                        })()
                        .ok_or(bad("index entry"))?;
                        v.push(e);
                    }
                    stored_index = Some(v);
                }
                TAG_END => {
                    let (n, _) = d.u64().zip(d.u64()).ok_or(bad("end frame"))?;
                    if n != records {
                        return Err(bad("record count"));
                    }
                    if stored_index.as_ref() != Some(&self.index) {
                        return Err(IsamError::IndexMismatch);
                    }
                    self.complete = true;
                    return match body_end + 4 == bytes.len() {
                        true => Ok(()),
                        false => Err(bad("data after the end frame")),
                    };
                }
                _ => return Err(bad("unknown tag")),
            }
            if !d.done() {
                return Err(bad("trailing bytes in frame"));
            }
            pos = body_end + 4;
        }
        Err(IsamError::NoEnd)
    }

    fn load_level(&mut self, d: &mut Dec<'_>) -> Option<()> {
        let level = d.u8()? as usize;
        let n = d.u32()?;
        for _ in 0..n {
            let stats = get_stats(d)?;
            let len = d.u32()?;
            if level == 0 {
                let members = (0..len).map(|_| d.u64()).collect::<Option<Vec<_>>>()?;
                self.paths.push(StoredSeq { stats, members });
            } else {
                let members = (0..len)
                    .map(|_| {
                        Some(Rep {
                            id: d.u32()?,
                            trips: d.u64()?,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                while self.upper.len() < level {
                    self.upper.push(Vec::new());
                }
                self.upper[level - 1].push(StoredSeq { stats, members });
            }
        }
        Some(())
    }

    /// True if the file was read to its end frame with nothing wrong.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The batch index (built from the intact frames, equal to the stored one).
    pub fn index(&self) -> &[IndexEntry] {
        &self.index
    }

    /// Readable records.
    pub fn len(&self) -> u64 {
        self.index
            .last()
            .map_or(0, |e| e.first + u64::from(e.count))
    }

    /// True if no record is readable.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn batch(&self, e: &IndexEntry) -> Vec<StratumRecord> {
        // Frames were verified when the file was opened; the length is re-read from it.
        let start = e.offset as usize;
        let Some(head) = self.bytes.get(start..start + 5) else {
            return Vec::new();
        };
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let Some(buf) = self.bytes.get(start + 5..start + 5 + len) else {
            return Vec::new();
        };
        decode_batch(&mut Dec { buf, pos: 0 }).unwrap_or_default()
    }

    /// Record number `n`.
    pub fn record(&self, n: u64) -> Option<StratumRecord> {
        let b = self
            .index
            .partition_point(|e| e.first + u64::from(e.count) <= n);
        let e = self.index.get(b)?;
        self.batch(e).get((n - e.first) as usize).copied()
    }

    /// The first record whose ending `key` exceeds `n`, with its number: the repeated
    /// stratum active at instruction `n` (or containing path / stratum number `n`,
    /// counting from 0). Reads one batch.
    pub fn lookup(&self, key: Key, n: u64) -> Option<(u64, StratumRecord)> {
        let b = self.index.partition_point(|e| key.of_entry(e) <= n);
        let e = self.index.get(b)?;
        let batch = self.batch(e);
        let i = batch.partition_point(|r| key.of_record(r) <= n);
        batch.get(i).map(|r| (e.first + i as u64, *r))
    }

    /// Records whose ending `key` lies in `lo..hi`, in order.
    pub fn range(&self, key: Key, lo: u64, hi: u64) -> Vec<StratumRecord> {
        let first = self.index.partition_point(|e| key.of_entry(e) < lo);
        let mut out = Vec::new();
        for e in self.index.get(first..).unwrap_or_default() {
            for r in self.batch(e) {
                let k = key.of_record(&r);
                if k >= hi {
                    return out;
                }
                if k >= lo {
                    out.push(r);
                }
            }
        }
        out
    }

    /// Which stratum, path and block were active at instruction `n`. The path and block
    /// need the level tables (and the block table); a damaged file may answer only with
    /// the record.
    pub fn locate(&self, n: u64) -> Option<Location> {
        let (record_no, record) = self.lookup(Key::Insn, n)?;
        if n < record.start_insn {
            return None;
        }
        let within = self.within(&record, n);
        Some(Location {
            record,
            record_no,
            within,
        })
    }

    fn within(&self, record: &StratumRecord, n: u64) -> Option<Within> {
        let stratum = self.upper.first()?.get(record.stratum as usize)?;
        let per_trip = stratum.stats.insns.max(1);
        let off = n - record.start_insn;
        let (stratum_trip, mut off) = (off / per_trip, off % per_trip);
        for rp in &stratum.members {
            let path = self.paths.get(rp.id as usize)?;
            let span = path.stats.insns.saturating_mul(rp.trips);
            if off < span {
                let p_insns = path.stats.insns.max(1);
                let (path_trip, mut in_path) = (off / p_insns, off % p_insns);
                let mut block = None;
                for &a in &path.members {
                    let Some(b) = self.blocks.iter().find(|b| b.start == a) else {
                        break;
                    };
                    let insns = u64::from(b.insns);
                    if in_path < insns {
                        block = Some(a);
                        break;
                    }
                    in_path -= insns;
                }
                return Some(Within {
                    stratum_trip,
                    path: rp.id,
                    path_trip,
                    path_blocks: path.members.clone(),
                    block,
                });
            }
            off -= span;
        }
        None
    }
}

/// A record as deltas from the one before: stratum, trips, gap before its start (0 in a
/// detector's output), length, paths and strata it ends.
fn encode_record(e: &mut Enc, prev: &StratumRecord, r: &StratumRecord) {
    e.var(u64::from(r.stratum));
    e.var(r.trips);
    e.var(r.start_insn.wrapping_sub(prev.end_insn));
    e.var(r.end_insn.wrapping_sub(r.start_insn));
    e.var(r.end_path.wrapping_sub(prev.end_path));
    e.var(r.end_stratum.wrapping_sub(prev.end_stratum));
}

/// A `RECORDS` payload: count u32, the previous record's end instruction, path and stratum
/// numbers (u64 each), then `count` delta-encoded records.
fn decode_batch(d: &mut Dec<'_>) -> Option<Vec<StratumRecord>> {
    let count = d.u32()?;
    let mut prev = StratumRecord {
        end_insn: d.u64()?,
        end_path: d.u64()?,
        end_stratum: d.u64()?,
        ..StratumRecord::default()
    };
    // Every record takes at least 6 bytes: a count beyond that is damage.
    if count == 0 || count as usize > d.buf.len() / 6 {
        return None;
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let stratum = u32::try_from(d.var()?).ok()?;
        let trips = d.var()?;
        let start_insn = prev.end_insn.wrapping_add(d.var()?);
        let end_insn = start_insn.wrapping_add(d.var()?);
        let r = StratumRecord {
            stratum,
            trips,
            start_insn,
            end_insn,
            end_path: prev.end_path.wrapping_add(d.var()?),
            end_stratum: prev.end_stratum.wrapping_add(d.var()?),
        };
        out.push(r);
        prev = r;
    }
    Some(out)
}

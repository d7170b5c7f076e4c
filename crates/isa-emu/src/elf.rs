//! ELF loading: turns a statically linked RV64 executable into segments, symbols and the
//! facts the environments need (entry, program-header address for `AT_PHDR`, HTIF symbols).
//!
//! Parsing goes through the `object` crate's ELF reader; this module only validates what
//! it reads and explains, in the error, what the user should do about a file it cannot run.
//! Accepted: little-endian ELF64 `ET_EXEC` files for `EM_RISCV` without an interpreter.
//! Static-PIE (`ET_DYN` without `PT_INTERP`) is rejected: the cross toolchain available to
//! this project cannot build one (`rcrt1.o` is missing), so glibc's self-relocation could
//! not be verified.

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, Sym};
use object::{Endianness, FileKind};

use crate::memory::Memory;

type Header = elf::FileHeader64<Endianness>;

/// A loadable (`PT_LOAD`) segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First guest address.
    pub vaddr: u64,
    /// Bytes occupied in memory; the part past `data` is zero (bss).
    pub mem_size: u64,
    /// The bytes stored in the file (`p_filesz` of them).
    pub data: Vec<u8>,
    /// `PF_R`.
    pub read: bool,
    /// `PF_W`.
    pub write: bool,
    /// `PF_X`.
    pub exec: bool,
}

impl Segment {
    /// One past the last guest address.
    pub fn end(&self) -> u64 {
        self.vaddr + self.mem_size
    }
}

/// A symbol from the static symbol table (`.symtab`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Value (address).
    pub addr: u64,
    /// `st_size`; 0 if the producer did not record one.
    pub size: u64,
    /// Name, lossily decoded as UTF-8.
    pub name: String,
    /// `STT_FUNC`, or an untyped label inside an executable segment (assembly code).
    pub is_function: bool,
}

/// A parsed, validated executable.
#[derive(Clone, Debug)]
pub struct ElfImage {
    /// Entry point.
    pub entry: u64,
    /// Loadable segments, sorted by address, pairwise disjoint.
    pub segments: Vec<Segment>,
    /// Defined symbols, sorted by address (then functions first, then name).
    pub symbols: Vec<Symbol>,
    /// Guest address of the program headers (for `AT_PHDR`): `PT_PHDR` if present, otherwise
    /// the loaded segment that contains them in the file, otherwise the classic
    /// `first vaddr - first offset + e_phoff` that older kernels use.
    pub phdr_addr: u64,
    /// Size of one program header (`e_phentsize`).
    pub phent: u16,
    /// Number of program headers.
    pub phnum: u16,
    /// Address of the symbol `tohost` (HTIF, bare metal), if any.
    pub tohost: Option<u64>,
    /// Address of the symbol `fromhost` (HTIF, bare metal), if any.
    pub fromhost: Option<u64>,
    /// The words of its data that point into its code, found when first asked for
    /// ([`ElfImage::code_pointers_inside`]).
    pub(crate) pointers: std::sync::OnceLock<crate::code_pointers::CodePointers>,
}

/// Why an ELF file cannot be run.
#[non_exhaustive]
#[derive(thiserror::Error, Debug)]
pub enum ElfError {
    /// The file does not start with the ELF magic.
    #[error("not an ELF file ({found}); isa-emu runs statically linked RV64 ELF executables")]
    NotElf {
        /// What the file looks like instead.
        found: String,
    },
    /// The file is cut short or a header points outside it.
    #[error("truncated or corrupt ELF file: {context}: {detail}")]
    Corrupt {
        /// What was being read.
        context: &'static str,
        /// The reader's explanation.
        detail: String,
    },
    /// ELFCLASS32.
    #[error("32-bit ELF file: isa-emu runs RV64 programs only (build with riscv64-linux-gnu-gcc, or -march=rv64gc -mabi=lp64d)")]
    Elf32,
    /// ELFDATA2MSB.
    #[error("big-endian ELF file: RISC-V programs are little-endian")]
    BigEndian,
    /// `e_machine` is not `EM_RISCV`.
    #[error("ELF file is for {machine} (e_machine {code}), not RISC-V: build it with a riscv64 cross compiler")]
    NotRiscv {
        /// Name of the machine found.
        machine: &'static str,
        /// The raw `e_machine`.
        code: u16,
    },
    /// Has a `PT_INTERP`.
    #[error("dynamically linked executable (interpreter {interpreter:?}): link it with -static")]
    Dynamic {
        /// The requested program interpreter.
        interpreter: String,
    },
    /// `ET_DYN` without an interpreter.
    #[error("static-PIE executable (ET_DYN without interpreter) is not supported: link it with -static -no-pie")]
    StaticPie,
    /// `ET_REL`, `ET_CORE` or an unknown type.
    #[error("not an executable but {kind}: link it into a static executable")]
    NotExecutable {
        /// What the file is.
        kind: String,
    },
    /// No `PT_LOAD` header with a non-empty memory image.
    #[error("no loadable (PT_LOAD) segment: nothing to run")]
    NoLoadableSegment,
    /// Two `PT_LOAD` segments share addresses.
    #[error("loadable segments overlap: [{first_lo:#x}, {first_hi:#x}) and [{second_lo:#x}, {second_hi:#x})")]
    OverlappingSegments {
        /// Start of the lower segment.
        first_lo: u64,
        /// End of the lower segment.
        first_hi: u64,
        /// Start of the higher segment.
        second_lo: u64,
        /// End of the higher segment.
        second_hi: u64,
    },
    /// `p_vaddr + p_memsz` does not fit in 64 bits.
    #[error("segment at {vaddr:#x} of {mem_size:#x} bytes extends past the end of the 64-bit address space")]
    SegmentOutOfRange {
        /// `p_vaddr`.
        vaddr: u64,
        /// `p_memsz`.
        mem_size: u64,
    },
    /// `p_filesz > p_memsz`.
    #[error("segment at {vaddr:#x} has file size {file_size:#x} larger than its memory size {mem_size:#x}")]
    FileSizeExceedsMemSize {
        /// `p_vaddr`.
        vaddr: u64,
        /// `p_filesz`.
        file_size: u64,
        /// `p_memsz`.
        mem_size: u64,
    },
    /// The entry point is not in an executable segment.
    #[error("entry point {entry:#x} is not inside an executable segment")]
    EntryNotExecutable {
        /// `e_entry`.
        entry: u64,
    },
    /// [`ElfImage::load_into`]: a segment lies outside guest memory.
    #[error("segment [{lo:#x}, {hi:#x}) does not fit in guest memory [{mem_lo:#x}, {mem_hi:#x}): raise the memory size")]
    DoesNotFit {
        /// Segment start.
        lo: u64,
        /// Segment end.
        hi: u64,
        /// Memory start.
        mem_lo: u64,
        /// Memory end.
        mem_hi: u64,
    },
}

fn corrupt(context: &'static str) -> impl FnOnce(object::Error) -> ElfError {
    move |e| ElfError::Corrupt {
        context,
        detail: e.to_string(),
    }
}

fn machine_name(code: u16) -> &'static str {
    match code {
        elf::EM_386 => "x86 (i386)",
        elf::EM_X86_64 => "x86-64",
        elf::EM_ARM => "32-bit ARM",
        elf::EM_AARCH64 => "AArch64",
        elf::EM_PPC => "PowerPC",
        elf::EM_PPC64 => "PowerPC64",
        elf::EM_MIPS => "MIPS",
        elf::EM_S390 => "s390",
        elf::EM_SPARCV9 => "SPARC V9",
        elf::EM_LOONGARCH => "LoongArch",
        elf::EM_NONE => "no machine (EM_NONE)",
        _ => "another machine",
    }
}

impl ElfImage {
    /// Parses and validates an executable.
    pub fn parse(bytes: &[u8]) -> Result<ElfImage, ElfError> {
        let header = check_header(bytes)?;
        let endian = Endianness::Little;
        let phdrs = header
            .program_headers(endian, bytes)
            .map_err(corrupt("reading the program headers"))?;
        let mut segments = Vec::new();
        for ph in phdrs {
            if let Some(interp) = ph
                .interpreter(endian, bytes)
                .map_err(corrupt("reading the PT_INTERP segment"))?
            {
                return Err(ElfError::Dynamic {
                    interpreter: String::from_utf8_lossy(interp).into_owned(),
                });
            }
            if ph.p_type(endian) == elf::PT_LOAD {
                segments.push(load_segment(ph, bytes)?);
            }
        }
        if header.e_type(endian) == elf::ET_DYN {
            return Err(ElfError::StaticPie);
        }
        segments.retain(|s| s.mem_size > 0);
        if segments.is_empty() {
            return Err(ElfError::NoLoadableSegment);
        }
        segments.sort_by_key(|s| s.vaddr);
        for pair in segments.windows(2) {
            if let [a, b] = pair {
                if a.end() > b.vaddr {
                    return Err(ElfError::OverlappingSegments {
                        first_lo: a.vaddr,
                        first_hi: a.end(),
                        second_lo: b.vaddr,
                        second_hi: b.end(),
                    });
                }
            }
        }
        let entry = header.e_entry(endian);
        if !segments
            .iter()
            .any(|s| s.exec && (s.vaddr..s.end()).contains(&entry))
        {
            return Err(ElfError::EntryNotExecutable { entry });
        }
        let phdr_addr = program_header_address(header, phdrs);
        let phnum = u16::try_from(phdrs.len()).unwrap_or(u16::MAX);
        let symbols = read_symbols(header, bytes, &segments)?;
        let find = |name: &str| symbols.iter().find(|s| s.name == name).map(|s| s.addr);
        Ok(ElfImage {
            entry,
            phdr_addr,
            phent: header.e_phentsize(endian),
            phnum,
            tohost: find("tohost"),
            fromhost: find("fromhost"),
            segments,
            symbols,
            pointers: Default::default(),
        })
    }

    /// Copies every segment into `mem` and zeroes the rest of its memory image (bss), and
    /// widens `mem`'s code range over the executable segments.
    pub fn load_into(&self, mem: &mut Memory) -> Result<(), ElfError> {
        for s in &self.segments {
            let fits = mem.contains(s.vaddr, s.mem_size);
            let dst = match mem.slice_mut(s.vaddr, s.mem_size) {
                Ok(dst) if fits => dst,
                _ => {
                    return Err(ElfError::DoesNotFit {
                        lo: s.vaddr,
                        hi: s.end(),
                        mem_lo: mem.base(),
                        mem_hi: mem.end(),
                    })
                }
            };
            let (file, bss) = dst.split_at_mut(s.data.len());
            file.copy_from_slice(&s.data);
            bss.fill(0);
        }
        for (lo, hi) in self.exec_ranges() {
            mem.add_code_range(lo, hi);
        }
        Ok(())
    }

    /// Lowest address of any segment.
    pub fn lowest_addr(&self) -> u64 {
        self.segments.iter().map(|s| s.vaddr).min().unwrap_or(0)
    }

    /// One past the highest address of any segment (the end of bss).
    pub fn highest_addr(&self) -> u64 {
        self.segments.iter().map(Segment::end).max().unwrap_or(0)
    }

    /// The function containing `addr` and the offset into it. A function symbol without a
    /// size (hand-written assembly) is taken to extend to the next function symbol.
    pub fn symbolize(&self, addr: u64) -> Option<(&str, u64)> {
        let upto = self.symbols.partition_point(|s| s.addr <= addr);
        let f = self.symbols[..upto].iter().rev().find(|s| s.is_function)?;
        let off = addr - f.addr;
        (f.size == 0 || off < f.size).then_some((f.name.as_str(), off))
    }

    /// Entries of the function symbols, ascending, each once.
    pub fn functions(&self) -> Vec<u64> {
        let mut f: Vec<u64> = self
            .symbols
            .iter()
            .filter(|s| s.is_function)
            .map(|s| s.addr)
            .collect();
        f.dedup();
        f
    }

    /// The halfword at `addr` as the loader lays the image out: the segments' file bytes,
    /// zero past them (bss) and between them; an error outside
    /// `[lowest_addr, highest_addr)`.
    pub(crate) fn fetch_u16(&self, addr: u64) -> Result<u16, ()> {
        // Both bytes in one segment's file bytes (nearly every fetch: code) are read at
        // once, as byte by byte (segments are disjoint, and their file bytes lie within
        // their memory); recovering a function's CFG fetches each of its instructions.
        let bytes = self.segment_of(addr).and_then(|seg| {
            let at = usize::try_from(addr - seg.vaddr).ok()?;
            seg.data.get(at..at.checked_add(2)?)
        });
        match bytes {
            Some(&[a, b]) => Ok(u16::from_le_bytes([a, b])),
            _ => self.fetch_u16_bytes(addr),
        }
    }

    /// [`fetch_u16`](Self::fetch_u16) a byte at a time: zero past a segment's file bytes,
    /// an error outside the program's span.
    fn fetch_u16_bytes(&self, addr: u64) -> Result<u16, ()> {
        let byte = |a: u64| -> Result<u8, ()> {
            if a < self.lowest_addr() || a >= self.highest_addr() {
                return Err(());
            }
            let byte = self
                .segment_of(a)
                .and_then(|s| s.data.get(usize::try_from(a - s.vaddr).ok()?))
                .copied();
            Ok(byte.unwrap_or(0))
        };
        Ok(u16::from_le_bytes([
            byte(addr)?,
            byte(addr.wrapping_add(1))?,
        ]))
    }

    /// The last segment starting at or below `addr` (the one holding it, if any does).
    fn segment_of(&self, addr: u64) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.vaddr <= addr);
        self.segments.get(i.checked_sub(1)?)
    }

    /// The `len` bytes (at most 8) at `addr`, little-endian, if they lie in one segment the
    /// program cannot write (zero past its file bytes).
    pub(crate) fn read_only(&self, addr: u64, len: u8) -> Option<u64> {
        let s = self.segment_of(addr)?;
        let end = addr.checked_add(u64::from(len))?;
        if s.write || end > s.end() || len > 8 {
            return None;
        }
        let at = usize::try_from(addr - s.vaddr).ok()?;
        let mut bytes = [0u8; 8];
        for (k, b) in bytes.iter_mut().take(usize::from(len)).enumerate() {
            *b = s.data.get(at + k).copied().unwrap_or(0);
        }
        Some(u64::from_le_bytes(bytes))
    }

    /// The code pointers inside the function at `[start, end)`: the addresses of its
    /// instructions that the file's data holds, when they are all it may jump to (see
    /// [`CodeView::code_pointers`](prof_events::CodeView::code_pointers); the data is
    /// scanned when first asked for); `None` if not, or if its code does not lie in one
    /// executable segment.
    pub fn code_pointers_inside(&self, start: u64, end: u64) -> Option<Vec<u64>> {
        let code = self.exec_bytes(start, end)?;
        let pointers = self
            .pointers
            .get_or_init(|| crate::code_pointers::CodePointers::of(self));
        pointers.inside(start, code)
    }

    /// The file bytes of `[start, end)`, if they lie in one executable segment.
    pub(crate) fn exec_bytes(&self, start: u64, end: u64) -> Option<&[u8]> {
        let s = self.segment_of(start).filter(|s| s.exec)?;
        let from = usize::try_from(start - s.vaddr).ok()?;
        let to = usize::try_from(end.checked_sub(s.vaddr)?).ok()?;
        s.data.get(from..to)
    }

    /// An image of `segments` and `symbols` entered at 0x1000, with no program headers and
    /// no HTIF (for tests).
    #[cfg(test)]
    pub(crate) fn of_parts(segments: Vec<Segment>, symbols: Vec<Symbol>) -> ElfImage {
        ElfImage {
            entry: 0x1000,
            segments,
            symbols,
            phdr_addr: 0,
            phent: 0,
            phnum: 0,
            tohost: None,
            fromhost: None,
            pointers: Default::default(),
        }
    }

    /// `[start, end)` of every executable segment.
    pub fn exec_ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.segments
            .iter()
            .filter(|s| s.exec)
            .map(|s| (s.vaddr, s.end()))
    }
}

/// Checks identity, class, byte order, machine and type, in that order, so that the error
/// names the first thing that is wrong.
fn check_header(bytes: &[u8]) -> Result<&Header, ElfError> {
    let has_magic = bytes.starts_with(&elf::ELFMAG);
    match FileKind::parse(bytes) {
        Ok(FileKind::Elf64) => {}
        Ok(FileKind::Elf32) => return Err(ElfError::Elf32),
        Ok(other) => {
            return Err(ElfError::NotElf {
                found: format!("it is a {other:?} file"),
            })
        }
        Err(e) if has_magic => {
            return Err(corrupt("reading the ELF identification")(e));
        }
        Err(_) => {
            let head: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
            return Err(ElfError::NotElf {
                found: format!("it starts with bytes [{}]", head.join(" ")),
            });
        }
    }
    let header = Header::parse(bytes).map_err(corrupt("reading the ELF header"))?;
    let endian = header
        .endian()
        .map_err(corrupt("reading the ELF byte order"))?;
    if endian == Endianness::Big {
        return Err(ElfError::BigEndian);
    }
    let code = header.e_machine(endian);
    if code != elf::EM_RISCV {
        return Err(ElfError::NotRiscv {
            machine: machine_name(code),
            code,
        });
    }
    let kind = match header.e_type(endian) {
        elf::ET_EXEC | elf::ET_DYN => return Ok(header),
        elf::ET_REL => "a relocatable object file (.o)".to_string(),
        elf::ET_CORE => "a core dump".to_string(),
        other => format!("an ELF file of unknown type {other}"),
    };
    Err(ElfError::NotExecutable { kind })
}

fn load_segment(ph: &elf::ProgramHeader64<Endianness>, bytes: &[u8]) -> Result<Segment, ElfError> {
    let endian = Endianness::Little;
    let vaddr = ph.p_vaddr(endian);
    let mem_size = ph.p_memsz(endian);
    let file_size = ph.p_filesz(endian);
    if vaddr.checked_add(mem_size).is_none() {
        return Err(ElfError::SegmentOutOfRange { vaddr, mem_size });
    }
    if file_size > mem_size {
        return Err(ElfError::FileSizeExceedsMemSize {
            vaddr,
            file_size,
            mem_size,
        });
    }
    let data = ph.data(endian, bytes).map_err(|()| ElfError::Corrupt {
        context: "reading a PT_LOAD segment",
        detail: format!(
            "file range at offset {:#x} of {file_size:#x} bytes lies outside the {}-byte file",
            ph.p_offset(endian),
            bytes.len()
        ),
    })?;
    let flags = ph.p_flags(endian);
    Ok(Segment {
        vaddr,
        mem_size,
        data: data.to_vec(),
        read: flags & elf::PF_R != 0,
        write: flags & elf::PF_W != 0,
        exec: flags & elf::PF_X != 0,
    })
}

fn program_header_address(header: &Header, phdrs: &[elf::ProgramHeader64<Endianness>]) -> u64 {
    let endian = Endianness::Little;
    if let Some(ph) = phdrs.iter().find(|p| p.p_type(endian) == elf::PT_PHDR) {
        return ph.p_vaddr(endian);
    }
    let phoff = header.e_phoff(endian);
    let loads = || phdrs.iter().filter(|p| p.p_type(endian) == elf::PT_LOAD);
    let containing = loads().find(|p| {
        let off = p.p_offset(endian);
        phoff >= off && phoff - off < p.p_filesz(endian)
    });
    match containing.or_else(|| loads().next()) {
        Some(p) => p
            .p_vaddr(endian)
            .wrapping_sub(p.p_offset(endian))
            .wrapping_add(phoff),
        None => 0,
    }
}

fn read_symbols(
    header: &Header,
    bytes: &[u8],
    segments: &[Segment],
) -> Result<Vec<Symbol>, ElfError> {
    let endian = Endianness::Little;
    let sections = header
        .sections(endian, bytes)
        .map_err(corrupt("reading the section headers"))?;
    let table = sections
        .symbols(endian, bytes, elf::SHT_SYMTAB)
        .map_err(corrupt("reading the symbol table"))?;
    let in_exec = |a: u64| {
        segments
            .iter()
            .any(|s| s.exec && (s.vaddr..s.end()).contains(&a))
    };
    let mut symbols = Vec::new();
    for sym in table.iter() {
        let kind = sym.st_type();
        let typed = matches!(kind, elf::STT_FUNC | elf::STT_OBJECT | elf::STT_NOTYPE);
        if !typed || sym.is_undefined(endian) || sym.st_shndx(endian) == elf::SHN_ABS {
            continue;
        }
        let name = table
            .symbol_name(endian, sym)
            .map_err(corrupt("reading a symbol name"))?;
        // `$x`/`$d` are mapping symbols, not names a user would recognise.
        if name.is_empty() || name.starts_with(b"$") {
            continue;
        }
        let addr = sym.st_value(endian);
        symbols.push(Symbol {
            addr,
            size: sym.st_size(endian),
            name: String::from_utf8_lossy(name).into_owned(),
            is_function: kind == elf::STT_FUNC || (kind == elf::STT_NOTYPE && in_exec(addr)),
        });
    }
    symbols
        .sort_by(|a, b| (a.addr, !a.is_function, &a.name).cmp(&(b.addr, !b.is_function, &b.name)));
    Ok(symbols)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Up to four disjoint segments in a small span, each with file bytes no longer than
    /// its memory, some back to back.
    fn image() -> impl Strategy<Value = ElfImage> {
        prop::collection::vec(
            (0u64..6, 0u64..10, prop::collection::vec(any::<u8>(), 0..10)),
            1..5,
        )
        .prop_map(|parts| {
            let mut vaddr = 0x1000;
            let segments = parts
                .into_iter()
                .map(|(gap, extra, data)| {
                    vaddr += gap;
                    let mem_size = data.len() as u64 + extra;
                    let seg = Segment {
                        vaddr,
                        mem_size,
                        data,
                        read: true,
                        write: false,
                        exec: true,
                    };
                    vaddr += mem_size;
                    seg
                })
                .collect();
            ElfImage::of_parts(segments, Vec::new())
        })
    }

    proptest! {
        /// Reading a halfword at once gives what reading its bytes one by one gives, at
        /// every address around the segments.
        #[test]
        fn a_halfword_is_its_two_bytes(image in image()) {
            for addr in 0xff0..image.highest_addr() + 4 {
                prop_assert_eq!(image.fetch_u16(addr), image.fetch_u16_bytes(addr), "at {:#x}", addr);
            }
        }
    }
}

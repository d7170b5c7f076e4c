//! The ISAM file: the index finds every record by each key, range scans match a filter of
//! the records, `locate` agrees with the input stream, and a file truncated at any byte
//! or with any byte flipped reports the damage and keeps a readable prefix.

use proptest::prelude::*;
use strata::isam::{self, IsamFile, Key};
use strata::strategies::looped_stream;
use strata::{BlockMeta, Config, Detector, StratumRecord};

/// Symbol `s` is the block at 0x1000 + 16 s with s % 3 + 1 instructions.
fn addr(s: u8) -> u64 {
    0x1000 + 16 * u64::from(s)
}

fn insns(s: u8) -> u32 {
    u32::from(s % 3) + 1
}

fn build(stream: &[u8], upper_levels: usize) -> (Detector<u64>, Vec<BlockMeta>) {
    let mut d = Detector::new(&Config {
        upper_levels,
        ..Config::default()
    });
    for &s in stream {
        d.push(addr(s), u64::from(insns(s)), 1);
    }
    d.finish();
    let blocks = (0..=u8::MAX)
        .filter(|s| stream.contains(s))
        .map(|s| BlockMeta {
            start: addr(s),
            end: addr(s) + 4 * u64::from(insns(s)),
            insns: insns(s),
            weight: u64::from(insns(s)),
            cond_branch: s % 2 == 0,
        })
        .collect();
    (d, blocks)
}

fn check_index(f: &IsamFile, records: &[StratumRecord]) -> Result<(), TestCaseError> {
    prop_assert_eq!(f.len(), records.len() as u64);
    let mut prev = StratumRecord::default();
    for (i, r) in records.iter().enumerate() {
        let i = i as u64;
        prop_assert_eq!(f.record(i), Some(*r));
        for n in [r.start_insn, r.end_insn - 1] {
            prop_assert_eq!(f.lookup(Key::Insn, n), Some((i, *r)));
        }
        for n in [prev.end_path, r.end_path - 1] {
            prop_assert_eq!(f.lookup(Key::Path, n), Some((i, *r)));
        }
        for n in [prev.end_stratum, r.end_stratum - 1] {
            prop_assert_eq!(f.lookup(Key::Stratum, n), Some((i, *r)));
        }
        prev = *r;
    }
    prop_assert_eq!(f.lookup(Key::Insn, prev.end_insn), None);
    let (lo, hi) = (prev.end_insn / 3, prev.end_insn / 3 * 2 + 1);
    let want: Vec<StratumRecord> = records
        .iter()
        .filter(|r| (lo..hi).contains(&r.end_insn))
        .copied()
        .collect();
    prop_assert_eq!(f.range(Key::Insn, lo, hi), want);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn index_finds_every_record_and_locate_matches_the_stream(
        stream in looped_stream(6, 4), batch in 1usize..5,
    ) {
        let (d, blocks) = build(&stream, 2);
        let (f, err) = IsamFile::parse(isam::write_batched(&d, &blocks, batch));
        prop_assert_eq!(err, None);
        prop_assert!(f.is_complete());
        check_index(&f, d.records())?;
        // Every instruction lands in the block the input had there.
        let mut n = 0;
        for &s in &stream {
            for _ in 0..insns(s) {
                let loc = f.locate(n).unwrap().within.unwrap();
                prop_assert_eq!(loc.block, Some(addr(s)));
                prop_assert!(loc.path_blocks.contains(&addr(s)));
                n += 1;
            }
        }
        prop_assert_eq!(f.locate(n), None);
    }

    #[test]
    fn a_file_streamed_during_the_run_is_the_one_written_after_it(
        stream in looped_stream(6, 4), batch in 1usize..5, every in 1usize..8,
    ) {
        let (whole, blocks) = build(&stream, 2);
        let mut d = Detector::new(&Config { upper_levels: 2, ..Config::default() });
        let mut w = isam::IsamWriter::with_batch(Vec::new(), batch).unwrap();
        for (i, &s) in stream.iter().enumerate() {
            d.push(addr(s), u64::from(insns(s)), 1);
            if i % every == 0 {
                w.append(d.records()).unwrap();
                // What a run killed now leaves: its full batches, and the damage reported.
                prop_assert_eq!(w.written() % batch, 0);
                let (f, err) = IsamFile::parse(w_bytes(&w));
                prop_assert!(err.is_some());
                prop_assert_eq!(f.len(), w.written() as u64);
                for (n, r) in d.records()[..w.written()].iter().enumerate() {
                    prop_assert_eq!(f.record(n as u64), Some(*r));
                }
            }
        }
        d.finish();
        let (bytes, len) = w.finish(&d, &blocks).unwrap();
        prop_assert_eq!(len, bytes.len() as u64);
        prop_assert_eq!(bytes, isam::write_batched(&whole, &blocks, batch));
    }

    #[test]
    fn every_truncation_keeps_a_readable_prefix(stream in looped_stream(5, 3), batch in 1usize..4) {
        let (d, blocks) = build(&stream, 1);
        let bytes = isam::write_batched(&d, &blocks, batch);
        let records = d.records();
        let mut last_len = 0;
        for cut in 0..bytes.len() {
            let (f, err) = IsamFile::parse(bytes[..cut].to_vec());
            prop_assert!(err.is_some(), "cut {} of {} reported nothing", cut, bytes.len());
            prop_assert!(!f.is_complete());
            // The readable records are a prefix of the written ones, growing with the cut.
            let n = f.len();
            prop_assert!(n >= last_len && n <= records.len() as u64);
            last_len = n;
            for i in 0..n {
                prop_assert_eq!(f.record(i), Some(records[i as usize]));
            }
            // Lookups on the prefix never panic and find only readable records.
            if let Some(r) = records.first() {
                let found = f.locate(r.start_insn);
                prop_assert_eq!(found.is_some(), n > 0);
            }
        }
        prop_assert_eq!(last_len, records.len() as u64);
    }
}

/// The bytes an [`isam::IsamWriter`] into a `Vec` has written so far.
fn w_bytes(w: &isam::IsamWriter<Vec<u8>>) -> Vec<u8> {
    w.get_ref().clone()
}

#[test]
fn a_failing_output_is_an_error_not_a_panic() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    assert!(isam::IsamWriter::new(Full).is_err());
}

#[test]
fn every_flipped_byte_is_reported() {
    let stream: Vec<u8> = (0..40u8)
        .map(|i| [1, 2, 3, 1, 2, 4][usize::from(i % 6)])
        .collect();
    let (d, blocks) = build(&stream, 2);
    let bytes = isam::write_batched(&d, &blocks, 2);
    assert!(IsamFile::parse(bytes.clone()).1.is_none());
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x40;
        assert!(
            IsamFile::parse(b).1.is_some(),
            "flip at byte {i} of {}",
            bytes.len()
        );
    }
}

#[test]
fn crc32_matches_the_standard_check_value() {
    // The CRC-32 check value of "123456789" (IEEE 802.3).
    assert_eq!(isam::crc32(b"123456789"), 0xCBF4_3926);
}

//! The key segments' tests: entries round-trip against brute force, every damage is named, older formats read.

use super::*;
use proptest::prelude::*;

fn write(path: &Path, entries: &[(u64, u64)]) -> (u64, u64) {
    let mut w = KeySegmentWriter::create(path).unwrap();
    for &(k, p) in entries {
        w.push(k, p).unwrap();
    }
    w.finish().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    #[test]
    fn lookups_equal_brute_force(
        raw in proptest::collection::vec((0u64..300, 0u64..50), 0..5000),
        probes in proptest::collection::vec(0u64..320, 1..40),
    ) {
        let mut entries = raw.clone();
        entries.sort_unstable();
        entries.dedup();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.keys");
        let (n, bytes) = write(&path, &entries);
        prop_assert_eq!(n, entries.len() as u64);
        prop_assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
        let r = KeySegmentReader::open(&path).unwrap();
        prop_assert_eq!(r.check(|_| true).unwrap(), n);
        let want = |key: u64| -> Vec<u64> {
            entries.iter().filter(|e| e.0 == key).map(|e| e.1).collect()
        };
        let in_memory = r.clone().into_memory().unwrap();
        for &key in &probes {
            let mut got = Vec::new();
            r.lookup(key, &mut Vec::new(), &mut got).unwrap();
            prop_assert_eq!(&got, &want(key));
            got.clear();
            in_memory.lookup(key, &mut Vec::new(), &mut got).unwrap();
            prop_assert_eq!(got, want(key));
        }
        // A seeker answers the same: keys in increasing order (repeats among them), and in
        // the order drawn (backwards, again).
        let mut sorted = probes.clone();
        sorted.sort_unstable();
        for keys in [&sorted, &probes] {
            let mut seeker = r.seeker();
            for &key in keys {
                let mut got = Vec::new();
                seeker.lookup(key, &mut got).unwrap();
                prop_assert_eq!(got, want(key), "key {}", key);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    /// A segment keeping the top `bits` of each key answers a lookup with the pages of
    /// every key sharing them, reads its entries back with the other bits zero, and takes
    /// entries in the order of the bits kept.
    #[test]
    fn kept_key_bits_answer_every_key_sharing_them(
        raw in proptest::collection::vec((any::<u64>(), 0u64..50), 0..3000),
        bits in 1u32..=64,
        probes in proptest::collection::vec(any::<u64>(), 1..20),
    ) {
        let kept = !0u64 << (64 - bits);
        // Some probes share their top bits with an entry, others are random.
        let probes: Vec<u64> = probes
            .iter()
            .enumerate()
            .map(|(i, &q)| match raw.get(i * 7) {
                Some(&(k, _)) if i % 2 == 0 => (k & kept) | (q & !kept),
                _ => q,
            })
            .collect();
        let mut entries: Vec<(u64, u64)> = raw.iter().map(|&(k, p)| (k & kept, p)).collect();
        entries.sort_unstable();
        entries.dedup();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.keys");
        let mut w = KeySegmentWriter::keeping(&path, bits).unwrap();
        for &(k, p) in &entries {
            w.push(k, p).unwrap();
        }
        prop_assert_eq!(w.finish().unwrap().0, entries.len() as u64);
        let r = KeySegmentReader::open(&path).unwrap();
        prop_assert_eq!(r.key_bits(), bits);
        prop_assert_eq!(r.check(|_| true).unwrap(), entries.len() as u64);
        let back: Vec<(u64, u64)> = r.entries().map(|e| e.unwrap()).collect();
        prop_assert_eq!(&back, &entries);
        let mut sorted = probes.clone();
        sorted.sort_unstable();
        let mut seeker = r.seeker();
        let in_memory = r.clone().into_memory().unwrap();
        for q in sorted {
            let (mut got, mut sought, mut held) = (Vec::new(), Vec::new(), Vec::new());
            r.lookup(q, &mut Vec::new(), &mut got).unwrap();
            seeker.lookup(q, &mut sought).unwrap();
            in_memory.lookup(q, &mut Vec::new(), &mut held).unwrap();
            let want: Vec<u64> =
                entries.iter().filter(|e| e.0 == q & kept).map(|e| e.1).collect();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&held, &want);
            prop_assert_eq!(sought, want);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// A segment read into memory answers every key as its blocks do: keys whose runs it
    /// keeps decoded (long runs of one key, some past its budget), keys its filter rules
    /// out, keys between and around them.
    #[test]
    fn segments_in_memory_answer_as_their_blocks(
        raw in proptest::collection::vec((0u64..40, 0u64..400), 0..8000),
        spread in 0u32..24,
    ) {
        let mut entries: Vec<(u64, u64)> =
            raw.iter().map(|&(k, p)| (k << (40 - spread), p)).collect();
        entries.sort_unstable();
        entries.dedup();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.keys");
        write(&path, &entries);
        let r = KeySegmentReader::open(&path).unwrap();
        let m = r.clone().into_memory().unwrap();
        for k in 0..=40u64 {
            for key in [(k << (40 - spread)).wrapping_sub(1), k << (40 - spread), (k << (40 - spread)) + 1] {
                let want: Vec<u64> = entries.iter().filter(|e| e.0 == key).map(|e| e.1).collect();
                let mut got = Vec::new();
                m.lookup(key, &mut Vec::new(), &mut got).unwrap();
                prop_assert_eq!(&got, &want, "key {}", key);
                got.clear();
                r.lookup(key, &mut Vec::new(), &mut got).unwrap();
                prop_assert_eq!(got, want);
            }
        }
    }
}

#[test]
fn long_runs_are_kept_within_their_budget_and_answer_as_blocks() {
    // 30 keys of 300 pages each: every run is long, the budget (half the file's bytes) holds
    // only some of them decoded.
    let entries: Vec<(u64, u64)> = (0..30u64)
        .flat_map(|k| (0..300u64).map(move |p| (k * 1_000_003, p * 7 + k)))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.keys");
    write(&path, &entries);
    let m = KeySegmentReader::open(&path)
        .unwrap()
        .into_memory()
        .unwrap();
    let kept = m.aids.long.len();
    assert!(kept > 0 && kept < 30, "{kept} runs kept");
    assert!(m.aids.pages.len() as u64 * 8 <= m.size() / 2);
    for k in 0..30u64 {
        let mut got = Vec::new();
        m.lookup(k * 1_000_003, &mut Vec::new(), &mut got).unwrap();
        assert_eq!(got, (0..300u64).map(|p| p * 7 + k).collect::<Vec<_>>());
        got.clear();
        m.lookup(k * 1_000_003 + 1, &mut Vec::new(), &mut got)
            .unwrap();
        assert!(got.is_empty());
    }
    // Keys held by no entry are mostly told by the filter alone.
    let ruled_out = (0..10_000u64)
        .filter(|i| !m.aids.may_hold(i * 7_777_777 + 5))
        .count();
    assert!(
        ruled_out > 9_000,
        "{ruled_out} of 10,000 absent keys ruled out"
    );
}

#[test]
fn kept_key_bits_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.keys");
    for bits in [0, 65] {
        assert!(KeySegmentWriter::keeping(&path, bits).is_err());
    }
    // Keys unsorted in their bits kept are refused, not stored out of order.
    let mut w = KeySegmentWriter::keeping(&path, 8).unwrap();
    w.push(0x0100_0000_0000_0000, 5).unwrap();
    assert!(w.push(0x01ff_0000_0000_0000, 3).is_err());
    let mut w = KeySegmentWriter::keeping(&path, 8).unwrap();
    w.push(7 << 56, 1).unwrap();
    w.finish().unwrap();
    let mut b = std::fs::read(&path).unwrap();
    b[14] = 0;
    std::fs::write(&path, &b).unwrap();
    let e = KeySegmentReader::open(&path).unwrap_err().to_string();
    assert!(e.contains("bits of each key"), "{e}");
}

/// A version 5 segment (16-byte entries, a 16-byte directory entry per block), as the
/// builds before packing wrote it.
fn write_fixed(path: &Path, entries: &[(u64, u64)], per_block: usize) {
    let mut h = header(entries.len() as u64, 0, 64, 5);
    h[8..12].copy_from_slice(&5u32.to_le_bytes());
    h[12..16].copy_from_slice(&(per_block as u32).to_le_bytes());
    let (mut body, mut footer) = (h.to_vec(), Vec::new());
    for block in entries.chunks(per_block) {
        let bytes: Vec<u8> = block
            .iter()
            .flat_map(|&(k, p)| k.to_le_bytes().into_iter().chain(p.to_le_bytes()))
            .collect();
        footer.extend_from_slice(&block[0].0.to_le_bytes());
        footer.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&bytes).to_le_bytes());
        body.extend_from_slice(&bytes);
    }
    body.extend_from_slice(&footer);
    body.extend_from_slice(&fsutil::trailer_sum(&h, &footer).to_le_bytes());
    body.extend_from_slice(END);
    std::fs::write(path, body).unwrap();
}

#[test]
fn version_5_segments_read_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let entries: Vec<(u64, u64)> = (0..2500u64).map(|i| (i / 3 * 7, i)).collect();
    let (old, new) = (dir.path().join("old.keys"), dir.path().join("new.keys"));
    write_fixed(&old, &entries, 100);
    write(&new, &entries);
    let (old, new) = (
        KeySegmentReader::open(&old).unwrap(),
        KeySegmentReader::open(&new).unwrap(),
    );
    assert!(
        new.size() * 2 < old.size(),
        "{} vs {}",
        new.size(),
        old.size()
    );
    for r in [&old, &new, &old.clone().into_memory().unwrap()] {
        assert_eq!(r.check(|_| true).unwrap(), 2500);
        let all: Vec<(u64, u64)> = r.entries().map(Result::unwrap).collect();
        assert_eq!(all, entries);
        for key in [0, 6, 7, 700, 1000 * 7, 833 * 7, 834 * 7] {
            let mut got = Vec::new();
            r.lookup(key, &mut Vec::new(), &mut got).unwrap();
            let want: Vec<u64> = entries.iter().filter(|e| e.0 == key).map(|e| e.1).collect();
            assert_eq!(got, want, "{key}");
        }
    }
}

#[test]
fn version_9_segments_read_as_before() {
    // Keys repeated 1 to 5 times (runs of one key), and a stretch of distinct keys.
    let mut entries: Vec<(u64, u64)> = (0..4000u64)
        .flat_map(|i| (0..=i % 5).map(move |p| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i + p)))
        .collect();
    entries.sort_unstable();
    entries.dedup();
    let dir = tempfile::tempdir().unwrap();
    let mut readers = Vec::new();
    for version in [9, INDEX_VERSION] {
        let path = dir.path().join(format!("v{version}.keys"));
        let mut w = KeySegmentWriter::keeping(&path, 40)
            .unwrap()
            .writing_version(version);
        for &(k, p) in &entries {
            w.push(k, p).unwrap();
        }
        w.finish().unwrap();
        readers.push(KeySegmentReader::open(&path).unwrap());
    }
    let (old, new) = (&readers[0], &readers[1]);
    // About two entries in three repeat their key: each saves ~20 bits.
    assert!(
        new.size() * 4 < old.size() * 3,
        "{} vs {}",
        new.size(),
        old.size()
    );
    for r in [old, new, &new.clone().into_memory().unwrap()] {
        assert_eq!(r.check(|_| true).unwrap(), entries.len() as u64);
        let all: Vec<(u64, u64)> = r.entries().map(Result::unwrap).collect();
        let kept: Vec<(u64, u64)> = entries.iter().map(|&(k, p)| (k >> 24 << 24, p)).collect();
        assert_eq!(all, kept);
        for &(key, _) in entries.iter().step_by(97) {
            let mut got = Vec::new();
            r.lookup(key, &mut Vec::new(), &mut got).unwrap();
            let want: Vec<u64> = entries
                .iter()
                .filter(|e| e.0 >> 24 == key >> 24)
                .map(|e| e.1)
                .collect();
            assert_eq!(got, want, "{key}");
        }
    }
}

#[test]
fn one_long_gap_among_repeats_packs_and_reads() {
    // Rice's parameter follows the mean gap, so one gap thousands of times longer is
    // thousands of unary bits, still read back exactly.
    let mut entries: Vec<(u64, u64)> = (0..3000u64).map(|i| (5, i)).collect();
    entries.extend((0..3000u64).map(|i| (u64::MAX - 1, i)));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.keys");
    write(&path, &entries);
    let r = KeySegmentReader::open(&path).unwrap();
    assert_eq!(r.entries().map(Result::unwrap).collect::<Vec<_>>(), entries);
    let mut got = Vec::new();
    r.lookup(u64::MAX - 1, &mut Vec::new(), &mut got).unwrap();
    assert_eq!(got, (0..3000).collect::<Vec<u64>>());
}

#[test]
fn huge_counts_in_a_header_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("h.keys");
    for (per_block, entries) in [(1u32, u64::MAX), (1, u64::MAX / 16), (1024, u64::MAX)] {
        let mut b = header(entries, 0, 64, INDEX_VERSION).to_vec();
        b[12..14].copy_from_slice(&(per_block as u16).to_le_bytes());
        b.extend_from_slice(&[0; 64]);
        std::fs::write(&d, &b).unwrap();
        let e = KeySegmentReader::open(&d).unwrap_err().to_string();
        assert!(e.contains("truncated or damaged"), "{e}");
    }
}

#[test]
fn out_of_order_is_refused_and_an_unfinished_writer_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.keys");
    let mut w = KeySegmentWriter::create(&path).unwrap();
    w.push(5, 1).unwrap();
    w.push(5, 1).unwrap();
    assert!(w.push(4, 9).is_err());
    drop(w);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn damage_is_named_never_wrong_matches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.keys");
    let entries: Vec<(u64, u64)> = (0..3000u64).map(|i| (i / 3, i)).collect();
    write(&path, &entries);
    let bytes = std::fs::read(&path).unwrap();
    let damaged = dir.path().join("d.keys");
    for i in (0..bytes.len()).step_by(29).chain([bytes.len() - 1]) {
        let mut b = bytes.clone();
        b[i] ^= 0x10;
        std::fs::write(&damaged, &b).unwrap();
        // `check` reads every block; every lookup reads whole blocks through the same
        // checked path, so it fails or answers right, never wrongly.
        let Ok(r) = KeySegmentReader::open(&damaged) else {
            continue;
        };
        let e = r.check(|_| true).unwrap_err().to_string();
        assert!(e.contains("d.keys"), "{e}");
        let mut seeker = r.seeker();
        for key in (0..1001u64).step_by(3) {
            let want: Vec<u64> = (key * 3..(key * 3 + 3).min(3000)).collect();
            let mut got = Vec::new();
            if r.lookup(key, &mut Vec::new(), &mut got).is_ok() {
                assert_eq!(got, want, "byte {i} flipped, key {key}");
            }
            got.clear();
            if seeker.lookup(key, &mut got).is_ok() {
                assert_eq!(got, want, "byte {i} flipped, key {key} (seeker)");
            }
        }
    }
    for cut in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&damaged, &bytes[..cut]).unwrap();
        let e = KeySegmentReader::open(&damaged).unwrap_err().to_string();
        assert!(
            e.contains("truncated") || e.contains("bad magic"),
            "{cut}: {e}"
        );
    }
}

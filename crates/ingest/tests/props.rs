//! Property tests: the readers never panic and always terminate on arbitrary or damaged bytes,
//! and every record they cannot read is accounted for.

use neardup_ingest::{open_bytes, Format, Page, ReadOptions};
use proptest::prelude::*;
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name)).unwrap()
}

/// Reads everything; returns (pages, problems). Panics only if the reader does.
fn drain(bytes: Vec<u8>, format: Format) -> (usize, u64) {
    let opts = ReadOptions { max_record_bytes: 1 << 20, ..Default::default() };
    let mut src = open_bytes(bytes, format, "prop", &opts).unwrap();
    let mut page = Page::default();
    let mut n = 0;
    while src.next_page(&mut page).unwrap() {
        n += 1;
        assert!(n < 1_000_000, "reader does not terminate");
    }
    (n, src.stats().problem_count())
}

/// Applies byte flips, deletions, insertions and a truncation to `base`.
fn damage(mut base: Vec<u8>, edits: &[(usize, u8, u8)], cut: Option<usize>) -> Vec<u8> {
    for &(pos, op, byte) in edits {
        if base.is_empty() {
            break;
        }
        let i = pos % base.len();
        match op % 3 {
            0 => base[i] ^= byte | 1,
            1 => {
                base.remove(i);
            }
            _ => base.insert(i, byte),
        }
    }
    if let Some(c) = cut {
        let c = c % (base.len() + 1);
        base.truncate(c);
    }
    base
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn warc_never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4000)) {
        drain(bytes, Format::Warc);
    }

    #[test]
    fn arc_and_jsonl_never_panic_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4000)) {
        drain(bytes.clone(), Format::Arc);
        drain(bytes, Format::Jsonl);
    }

    #[test]
    fn damaged_warc_loses_only_what_it_reports(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        cut in proptest::option::of(any::<usize>()),
        gz in any::<bool>(),
    ) {
        let base = fixture(if gz { "basic.warc.gz" } else { "basic.warc" });
        let damaged = damage(base, &edits, cut);
        let (pages, problems) = drain(damaged, Format::Warc);
        prop_assert!(pages <= 7 + edits.len());
        if edits.is_empty() && cut.is_none() {
            prop_assert_eq!((pages, problems), (7, 0));
        }
    }

    #[test]
    fn damaged_arc_never_panics(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        cut in proptest::option::of(any::<usize>()),
    ) {
        drain(damage(fixture("basic.arc.gz"), &edits, cut), Format::Arc);
        drain(damage(fixture("basic.arc"), &edits, cut), Format::Arc);
    }

    #[test]
    fn damaged_jsonl_never_panics(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        cut in proptest::option::of(any::<usize>()),
    ) {
        drain(damage(fixture("pages.jsonl.gz"), &edits, cut), Format::Jsonl);
    }
}

#[test]
fn every_single_byte_truncation_of_a_warc_is_accounted() {
    // Cutting the file anywhere loses at most the record that was cut, and says so.
    let base = fixture("basic.warc");
    for cut in (0..base.len()).step_by(7) {
        let (pages, problems) = drain(base[..cut].to_vec(), Format::Warc);
        let lost = 7 - pages;
        prop_assert_le(lost as u64, 7);
        if cut > 0 && lost > 0 && problems == 0 {
            // A cut exactly between records loses nothing; anything else must be reported.
            let tail = &base[cut..];
            assert!(
                tail.starts_with(b"WARC/") || tail.starts_with(b"\r\nWARC/") || tail.starts_with(b"\r\n\r\nWARC/") || tail.starts_with(b"\nWARC/"),
                "cut at {cut}: {lost} pages lost silently"
            );
        }
    }
}

fn prop_assert_le(a: u64, b: u64) {
    assert!(a <= b);
}

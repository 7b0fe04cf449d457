//! Property tests: the readers never panic and always terminate on arbitrary or damaged bytes,
//! and every record they cannot read is accounted for.

use neardup_ingest::{open_bytes, Format, Page, ReadOptions};
use proptest::prelude::*;
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(name),
    )
    .unwrap()
}

/// Reads everything; returns (pages, problems). Panics only if the reader does.
fn drain(bytes: Vec<u8>, format: Format) -> (usize, u64) {
    let opts = ReadOptions {
        max_record_bytes: 1 << 20,
        ..Default::default()
    };
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
fn every_truncation_of_a_warc_is_accounted() {
    // Cutting the file anywhere yields exactly the pages whose blocks are complete, and a cut
    // inside a record is reported.
    let base = fixture("basic.warc");
    let starts: Vec<usize> = base
        .windows(10)
        .enumerate()
        .filter(|(_, w)| w == b"WARC/1.1\r\n")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(starts.len(), 11);
    let block_end = |r: usize| {
        if r + 1 < starts.len() {
            starts[r + 1] - 4
        } else {
            base.len() - 4
        }
    };
    let page_records = [2, 3, 4, 5, 6, 7, 10];
    for cut in 0..=base.len() {
        let (pages, problems) = drain(base[..cut].to_vec(), Format::Warc);
        let want = page_records
            .iter()
            .filter(|&&r| block_end(r) <= cut)
            .count();
        assert_eq!(pages, want, "cut at {cut}");
        let inside = (0..starts.len()).any(|r| starts[r] < cut && cut < block_end(r));
        assert_eq!(problems > 0, inside, "cut at {cut}: {problems} problems");
    }
}

//! The Parquet reader on files written by pyarrow (tests/fixtures/make_fixtures.py,
//! make_hardening.py): row groups, custom fields, damaged groups, typed ids, row groups read
//! ahead on threads, and the fuzz targets' findings read alone.

use crate::readers::{fixture, kinds, read, read_with, urls, Got, FUZZ_FINDINGS};
use neardup_ingest::{open_source, BodyKind, Format, Page, ProblemKind, ReadOptions, SourceStats};

#[test]
fn parquet_by_row_group_with_custom_fields() {
    let mut opts = ReadOptions::default();
    opts.fields.url = "link".into();
    opts.fields.text = "content".into();
    opts.fields.id = "doc_id".into();
    let (pages, stats) = read_with("pages.parquet", None, &opts);
    assert_eq!(
        urls(&pages),
        [
            "https://pq.example/1",
            "https://pq.example/2",
            "https://pq.example/4"
        ]
    );
    assert_eq!(pages[2].page.record_id, "p4");
    assert_eq!(pages[2].page.id.ordinal, 3);
    assert_eq!(pages[0].body, "first parquet text");
    assert_eq!(kinds(&stats), [ProblemKind::BadParquet]);
}

/// A damaged page header costs its row group only: reading goes on at the next row group
/// (tests/fixtures/make_hardening.py damages the middle one of three).
#[test]
fn parquet_damaged_row_group_is_skipped_and_reading_goes_on() {
    let (pages, stats) = read("damaged-group.parquet");
    assert_eq!(
        urls(&pages),
        [
            "http://pq.example/0",
            "http://pq.example/1",
            "http://pq.example/4",
            "http://pq.example/5"
        ]
    );
    assert_eq!(pages[2].page.id.ordinal, 4);
    assert_eq!(kinds(&stats), [ProblemKind::BadParquet]);
    assert_eq!(stats.problems[0].offset, 2);
    assert!(
        stats.problems[0]
            .detail
            .contains("row group 1 (2 rows) is skipped"),
        "{}",
        stats.problems[0].detail
    );
    let strict = ReadOptions {
        strict: true,
        ..Default::default()
    };
    let mut src = open_source(&fixture("damaged-group.parquet"), None, 0, &strict).unwrap();
    let mut page = Page::default();
    assert!(src.next_page(&mut page).unwrap());
    assert!(src.next_page(&mut page).unwrap());
    assert!(
        src.next_page(&mut page).is_err(),
        "strict: the damaged row is an error"
    );
}

/// A Parquet file's row groups read ahead on one to three threads (as a run reads one large
/// file) give the pages and problems that the reading thread alone gives, damaged groups
/// included.
#[test]
fn parquet_row_groups_read_on_threads_read_as_on_one() {
    let custom = neardup_ingest::FieldMap {
        url: "link".into(),
        text: "content".into(),
        id: "doc_id".into(),
        ..Default::default()
    };
    for (name, fields) in [
        ("groups.parquet", Default::default()),
        ("damaged-group.parquet", Default::default()),
        ("typed-int64.parquet", Default::default()),
        ("pages.parquet", custom),
    ] {
        let one = ReadOptions {
            fields,
            ..Default::default()
        };
        let (pages, stats) = read_with(name, None, &one);
        let seen = |pages: &[Got]| -> Vec<(u32, u64, String, String, String)> {
            pages
                .iter()
                .map(|g| {
                    let p = &g.page;
                    (
                        p.id.ordinal,
                        p.offset,
                        p.url.clone(),
                        p.record_id.clone(),
                        g.body.clone(),
                    )
                })
                .collect()
        };
        assert!(!pages.is_empty(), "{name}");
        for threads in [2, 3, 8, 12] {
            let many = ReadOptions {
                file_threads: threads,
                ..one.clone()
            };
            let (pages_many, stats_many) = read_with(name, None, &many);
            assert_eq!(
                seen(&pages_many),
                seen(&pages),
                "{name} on {threads} threads"
            );
            assert_eq!(stats_many.pages, stats.pages);
            let problems = |s: &SourceStats| -> Vec<(u64, String)> {
                s.problems
                    .iter()
                    .map(|p| (p.offset, p.detail.clone()))
                    .collect()
            };
            assert_eq!(problems(&stats_many), problems(&stats), "{name}");
        }
    }
    // 61 rows, every seventh without text.
    let (pages, stats) = read("groups.parquet");
    assert_eq!(pages.len(), 52);
    assert_eq!(stats.problems.len(), 9);
    assert_eq!(pages.last().map(|g| g.page.id.ordinal), Some(60));
}

/// A Parquet id column is text when it holds strings, bytes or 32/64-bit integers, not dates,
/// decimals or small integers, whether the row is read in order or alone
/// (make_fixtures.py's typed_parquet); an HTML column of bytes wins over the text column.
#[test]
fn parquet_ids_are_text_for_strings_bytes_and_wide_integers() {
    let opts = ReadOptions::default();
    for (t, first_id) in [
        ("int8", ""),
        ("uint32", "4000000000"),
        ("int64", "-1000000000000"),
        ("date32", ""),
        ("fixed", "id00"),
        ("decimal", ""),
    ] {
        let path = fixture(&format!("typed-{t}.parquet"));
        let (pages, _) = read_with(&format!("typed-{t}.parquet"), None, &opts);
        // Row 4 has neither HTML nor text.
        assert_eq!(pages.len(), 6, "{t}");
        assert_eq!(pages[0].page.record_id, first_id, "{t}");
        assert_eq!(pages[0].page.kind, BodyKind::Html, "{t}");
        assert_eq!(pages[1].page.kind, BodyKind::Text, "{t}");
        assert_eq!(pages[2].page.url, "", "{t}");
        let alone =
            neardup_ingest::read_records_at(&path, None, &[0, 5, 6], 0, &opts).expect("read");
        let got: Vec<(u64, &str)> = alone
            .iter()
            .map(|(r, p)| (*r, p.record_id.as_str()))
            .collect();
        assert_eq!(got.len(), 3, "{t}");
        assert_eq!(got[0], (0, first_id), "{t}");
    }
}

/// Parquet files the fuzz targets found, rows read alone (`read_records_at`, column by column):
/// each read ends promptly without a panic, and a row the whole read gives is read alone as
/// the same page. `parquet-peek-831793e8.parquet` made the parquet crate panic on a version-2
/// data page header without its body when rows were skipped with its `skip_records`.
#[test]
fn parquet_fuzz_findings_read_alone_end_promptly() {
    let mut names: Vec<&str> = FUZZ_FINDINGS.iter().map(|f| f.0).collect();
    names.push("fuzz/parquet-peek-831793e8.parquet");
    for name in names {
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fixture(name);
        std::thread::spawn(move || {
            let opts = ReadOptions::default();
            let mut whole = Vec::new();
            if let Ok(mut src) = open_source(&path, Some(Format::Parquet), 0, &opts) {
                let mut page = Page::default();
                while let Ok(true) = src.next_page(&mut page) {
                    whole.push(std::mem::take(&mut page));
                }
            }
            let mut rows: Vec<u64> = (0..8).collect();
            rows.extend(whole.iter().filter_map(|p| p.raw_offset));
            let alone =
                neardup_ingest::read_records_at(&path, Some(Format::Parquet), &rows, 0, &opts);
            let same = alone.as_ref().map_or(true, |alone| {
                whole.iter().all(|p| {
                    alone.iter().all(|(r, q)| {
                        Some(*r) != p.raw_offset
                            || (&q.url, &q.record_id, &q.body) == (&p.url, &p.record_id, &p.body)
                    })
                })
            });
            let _ = tx.send(same);
        });
        let same = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{name}: still reading after 60 s (or it panicked)"));
        assert!(same, "{name}: a row read alone differs");
    }
}

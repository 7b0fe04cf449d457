//! The readers on files written by third-party tools (tests/fixtures/make_fixtures.py: warcio,
//! pyarrow, gzip, zstandard, brotli), well-formed and damaged.

use neardup_ingest::{open_source, BodyKind, Format, Page, ProblemKind, ReadOptions, SourceStats};
use std::path::PathBuf;

pub(crate) fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

#[derive(Debug)]
pub(crate) struct Got {
    pub(crate) url: String,
    status: Option<u16>,
    kind: BodyKind,
    pub(crate) body: String,
    pub(crate) page: Page,
}

pub(crate) fn read_with(
    name: &str,
    format: Option<Format>,
    opts: &ReadOptions,
) -> (Vec<Got>, SourceStats) {
    let mut src = open_source(&fixture(name), format, 0, opts).expect("open");
    let mut page = Page::default();
    let mut out = Vec::new();
    while src.next_page(&mut page).expect("read") {
        out.push(Got {
            url: page.url.clone(),
            status: page.status,
            kind: page.kind,
            body: String::from_utf8_lossy(&page.body).into_owned(),
            page: page.clone(),
        });
    }
    (out, src.stats().clone())
}

pub(crate) fn read(name: &str) -> (Vec<Got>, SourceStats) {
    read_with(name, None, &ReadOptions::default())
}

pub(crate) fn urls(g: &[Got]) -> Vec<&str> {
    g.iter().map(|g| g.url.as_str()).collect()
}

pub(crate) fn kinds(s: &SourceStats) -> Vec<ProblemKind> {
    s.problems.iter().map(|p| p.kind).collect()
}

const ALL: [&str; 7] = [
    "http://example.com/",
    "http://example.com/chunked",
    "http://example.com/gz",
    "http://www.example.org/br",
    "http://example.com/missing",
    "http://example.com/logo.png",
    "http://example.com/file.html",
];

#[test]
fn well_formed_warc_in_every_compression() {
    for name in [
        "basic.warc",
        "basic.warc.gz",
        "wholefile.warc.gz",
        "basic.warc.zst",
    ] {
        let (pages, stats) = read(name);
        assert_eq!(urls(&pages), ALL, "{name}");
        assert_eq!(stats.problem_count(), 0, "{name}: {:?}", stats.problems);
        assert_eq!(stats.records, 11, "{name}");
        for t in ["warcinfo", "request", "metadata", "revisit", "resource"] {
            assert_eq!(stats.by_record_type.get(t), Some(&1), "{name} {t}");
        }
        assert_eq!(stats.by_record_type.get("response"), Some(&6));
        assert_eq!(stats.revisits.len(), 1);
        assert_eq!(stats.revisits[0].refers_to, "http://example.com/");
        // Decoding: chunked, gzip, brotli, deflate all give the same kind of HTML.
        for g in &pages[..5] {
            assert!(
                g.body.starts_with("<!DOCTYPE html>"),
                "{name} {}: {:?}",
                g.url,
                &g.body[..20.min(g.body.len())]
            );
            assert_eq!(g.kind, BodyKind::Html);
        }
        assert!(pages[1].body.contains("chunked body text here"));
        assert!(pages[2].body.contains("gzip encoded words"));
        assert_eq!(pages[4].status, Some(404));
        assert_eq!(pages[5].kind, BodyKind::Other);
        assert_eq!(pages[6].status, None, "resource records carry no HTTP");
        assert_eq!(pages[6].kind, BodyKind::Html);
        let p = &pages[0].page;
        assert_eq!(p.date, "2024-03-01T12:00:00Z");
        assert_eq!(p.ip, "93.184.216.34");
        assert!(p.record_id.starts_with("<urn:uuid:"), "{}", p.record_id);
        assert!(
            p.payload_digest.starts_with("sha1:"),
            "{}",
            p.payload_digest
        );
        assert_eq!(
            p.header("content-type"),
            Some(&b"text/html; charset=utf-8"[..])
        );
        assert_eq!(pages[3].page.content_type, "text/html; charset=ISO-8859-1");
        assert_eq!(pages[3].page.ip, "10.0.0.2");
        // Ids: record ordinals (warcinfo is 0, request 1, first response 2).
        assert_eq!(pages[0].page.id.ordinal, 2);
    }
}

#[test]
fn header_line_ends_and_folds_read_as_warcio_reads_them() {
    // tests/fixtures/make_line_endings.py: one crawl with its header lines ended CR CR LF, LF
    // alone, with trailing white space, folded, and all of these by turns; warcio reads the
    // same three pages from each (line-endings.json), and so must neardup, with no problem.
    let want: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("line-endings.json")).unwrap()).unwrap();
    let want = want["pages"].as_array().unwrap();
    assert_eq!(want.len(), 3);
    for name in [
        "line-endings-crcrlf.warc",
        "line-endings-crcrlf.warc.gz",
        "line-endings-lf.warc",
        "line-endings-spaces.warc",
        "line-endings-folded.warc",
        "line-endings-mixed.warc",
    ] {
        let (got, stats) = read(name);
        assert_eq!(kinds(&stats), vec![], "{name}: {:?}", stats.problems);
        assert_eq!(got.len(), want.len(), "{name}: {:?}", urls(&got));
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.url, w["url"].as_str().unwrap(), "{name}");
            assert_eq!(g.status.map(u64::from), w["status"].as_u64(), "{name}");
            assert_eq!(g.body, w["payload"].as_str().unwrap(), "{name}: {}", g.url);
        }
        // Header values as the server sent them, folded lines joined.
        assert_eq!(
            got[1].page.header("server"),
            Some(&b"Apache/2.2 (Unix) mod_ssl/2.2"[..]),
            "{name}"
        );
        assert_eq!(got[0].page.mime, "text/html", "{name}");
        assert_eq!(got[2].page.mime, "text/plain", "{name}");
        assert_eq!(got[0].page.date, "2024-05-01T10:00:00Z", "{name}");
    }
}

#[test]
fn arc_v1_plain_and_gzip() {
    for name in ["basic.arc", "basic.arc.gz"] {
        let (pages, stats) = read(name);
        assert_eq!(
            urls(&pages),
            [
                "http://old.example.com/",
                "http://old.example.com/zwei.html",
                "http://old.example.com/a.gif"
            ]
        );
        assert_eq!(stats.problem_count(), 0, "{:?}", stats.problems);
        assert_eq!(stats.by_record_type.get("filedesc"), Some(&1));
        assert_eq!(pages[0].page.date, "2004-01-01T12:00:00Z");
        assert_eq!(pages[0].page.ip, "192.0.2.1");
        assert_eq!(pages[0].kind, BodyKind::Html);
        assert_eq!(pages[2].kind, BodyKind::Other);
        assert!(pages[0].body.contains("an old ARC page"));
    }
}

#[test]
fn truncated_gzip_reports_and_keeps_the_rest() {
    let (pages, stats) = read("truncated.warc.gz");
    assert_eq!(urls(&pages), ALL[..6]);
    assert_eq!(kinds(&stats), [ProblemKind::TruncatedCompression]);
}

#[test]
fn corrupt_member_is_skipped_and_reading_resumes() {
    let (pages, stats) = read("corrupt-member.warc.gz");
    let mut want = ALL.to_vec();
    want.remove(1);
    assert_eq!(urls(&pages), want);
    assert_eq!(kinds(&stats), [ProblemKind::CorruptGzip]);
    assert!(
        stats.problems[0].detail.contains("compressed offset"),
        "{}",
        stats.problems[0].detail
    );
}

#[test]
fn lying_content_length_both_ways() {
    let (pages, stats) = read("bad-length.warc");
    // Too short on the first page (skipped), too long on the third (skipped, and the fourth is
    // recovered from the bytes it swallowed).
    let want = [ALL[1], ALL[3], ALL[4], ALL[5], ALL[6]];
    assert_eq!(urls(&pages), want);
    assert_eq!(
        kinds(&stats),
        [ProblemKind::LengthMismatch, ProblemKind::LengthMismatch]
    );
}

#[test]
fn lying_lengths_of_any_record_type_lose_no_other_record() {
    // tests/fixtures/make_hardening.py: 101 exchanges by warcio, four Content-Lengths changed.
    let (pages, stats) = read("lying-lengths.warc");
    let want: Vec<String> = (0..101)
        .filter(|i| *i != 10 && *i != 90)
        .map(|i| format!("http://lies.example/page{i}.html"))
        .collect();
    assert_eq!(urls(&pages), want, "{:?}", stats.problems);
    // The 100 MB claim over the limit, the request running into the next exchange, the 60 MB
    // claim under the limit: each counted once, with its offset.
    assert_eq!(
        kinds(&stats),
        [
            ProblemKind::RecordTooLarge,
            ProblemKind::LengthMismatch,
            ProblemKind::LengthMismatch
        ]
    );
    assert!(stats.problems.iter().all(|p| p.offset > 0));
    // Two bytes short: kept whole, as warcio keeps it, and noted.
    let p70 = pages
        .iter()
        .find(|g| g.url.ends_with("/page70.html"))
        .unwrap();
    assert!(p70.body.ends_with("</body></html>"), "{}", p70.body);
    assert_eq!(stats.notes["content-length-a-few-bytes-short-kept"], 1);
    // A smaller record limit cuts the 60 MB claim the same way.
    let small = ReadOptions {
        max_record_bytes: 1 << 20,
        ..ReadOptions::default()
    };
    let (pages, _) = read_with("lying-lengths.warc", None, &small);
    assert_eq!(pages.len(), 99);
}

#[test]
fn arc_urls_with_spaces_are_read_whole() {
    // tests/fixtures/make_hardening.py, read back by warcio with the same URLs.
    let (pages, stats) = read("space-in-url.arc");
    assert_eq!(
        urls(&pages),
        [
            "http://spaces.example/",
            "http://spaces.example/index.cfm?Title=Martinez Targets Castor Backer&IsPopUp=True",
            "http://spaces.example/after",
        ]
    );
    assert_eq!(stats.problem_count(), 0, "{:?}", stats.problems);
}

#[test]
fn arc_length_over_the_limit_is_cut_at_the_next_record() {
    // tests/fixtures/make_hardening.py: ten pages, the fourth claiming 100,000,000 bytes;
    // warcio reads four responses and loses the rest.
    let (pages, stats) = read("lying-lengths.arc");
    let want: Vec<String> = (0..10)
        .filter(|i| *i != 3)
        .map(|i| format!("http://lies.example/{i}"))
        .collect();
    assert_eq!(urls(&pages), want, "{:?}", stats.problems);
    assert_eq!(kinds(&stats), [ProblemKind::RecordTooLarge]);
    assert_eq!(stats.notes["oversized-length-cut-at-next-record"], 1);
}

#[test]
fn missing_length_and_junk_between_records() {
    let (pages, stats) = read("junk.warc");
    let want = [ALL[0], ALL[2], ALL[3], ALL[4], ALL[5], ALL[6]];
    assert_eq!(urls(&pages), want, "{:?}", stats.problems);
    assert_eq!(
        kinds(&stats),
        [ProblemKind::MissingHeader, ProblemKind::BadRecordStart]
    );
    assert!(stats.problems[1]
        .detail
        .contains("expected a `WARC/1.x` version line"));
}

#[test]
fn binary_junk_bad_utf8_bombs_and_huge_lengths() {
    let (pages, stats) = read("odd.warc.gz");
    assert_eq!(
        urls(&pages),
        [
            "http://example.com/binary",
            "http://example.com/badutf8",
            "http://example.com/ok"
        ]
    );
    assert_eq!(
        kinds(&stats),
        [ProblemKind::DecodedTooLarge, ProblemKind::RecordTooLarge]
    );
    // A smaller limit turns the large pages into counted skips too.
    let opts = ReadOptions {
        max_record_bytes: 1000,
        ..Default::default()
    };
    let (pages, stats) = read_with("odd.warc.gz", None, &opts);
    assert_eq!(
        urls(&pages),
        ["http://example.com/badutf8", "http://example.com/ok"]
    );
    assert_eq!(stats.problem_count(), 3);
}

#[test]
fn strict_mode_stops_at_the_first_problem() {
    let opts = ReadOptions {
        strict: true,
        ..Default::default()
    };
    let mut src = open_source(&fixture("bad-length.warc"), None, 0, &opts).unwrap();
    let mut page = Page::default();
    let err = loop {
        match src.next_page(&mut page) {
            Ok(true) => continue,
            Ok(false) => panic!("no error in strict mode"),
            Err(e) => break e,
        }
    };
    let msg = err.to_string();
    assert!(
        msg.contains("length-mismatch") && msg.contains("bad-length.warc"),
        "{msg}"
    );
}

#[test]
fn jsonl_with_custom_fields() {
    let mut opts = ReadOptions::default();
    opts.fields.url = "link".into();
    opts.fields.text = "content".into();
    opts.fields.html = "body_html".into();
    opts.fields.id = "doc_id".into();
    for name in ["pages.jsonl", "pages.jsonl.gz"] {
        let (pages, stats) = read_with(name, None, &opts);
        assert_eq!(
            urls(&pages),
            [
                "https://j.example/1",
                "https://j.example/2",
                "https://j.example/4"
            ],
            "{name}"
        );
        let ids: Vec<&str> = pages.iter().map(|g| g.page.record_id.as_str()).collect();
        assert_eq!(ids, ["a1", "42", "a4"]);
        assert_eq!(pages[0].kind, BodyKind::Text);
        assert!(pages[0].body.contains("Jumps over\nthe lazy"));
        assert_eq!(pages[1].body, "Café \"quoted\" text 東京");
        assert_eq!(pages[2].kind, BodyKind::Html, "html field wins over text");
        assert_eq!(kinds(&stats), [ProblemKind::BadJson, ProblemKind::BadJson]);
        let raw = std::fs::read(fixture("pages.jsonl")).unwrap();
        let bad_at = raw.windows(8).position(|w| w == b"not json").unwrap() as u64;
        assert_eq!(stats.problems[0].offset, bad_at);
        assert_eq!(pages[2].page.id.ordinal, 4);
    }
}

#[test]
fn html_folder_maps_to_url_prefix() {
    let opts = ReadOptions {
        base_url: Some("https://site.example/root".into()),
        ..Default::default()
    };
    let (pages, stats) = read_with("site", Some(Format::HtmlDir), &opts);
    assert_eq!(
        urls(&pages),
        [
            "https://site.example/root/docs/a.html",
            "https://site.example/root/index.html",
            "https://site.example/root/style.css"
        ]
    );
    assert_eq!(pages[0].kind, BodyKind::Html);
    assert_eq!(pages[2].kind, BodyKind::Other);
    assert_eq!(stats.problem_count(), 0);
}

#[test]
fn format_detection() {
    use neardup_ingest::detect_format;
    assert_eq!(
        detect_format(&fixture("basic.warc.zst")).unwrap(),
        Format::Warc
    );
    assert_eq!(
        detect_format(&fixture("basic.arc.gz")).unwrap(),
        Format::Arc
    );
    assert_eq!(
        detect_format(&fixture("pages.jsonl.gz")).unwrap(),
        Format::Jsonl
    );
    assert_eq!(
        detect_format(&fixture("pages.parquet")).unwrap(),
        Format::Parquet
    );
    assert_eq!(detect_format(&fixture("site")).unwrap(), Format::HtmlDir);
    assert!(detect_format(&fixture("make_fixtures.py")).is_err());
}

/// Inputs the fuzz targets found (tests/fixtures/fuzz/, named by target, finding and digest):
/// each must end promptly, with its counted problems (the last number) and no panic.
pub(crate) const FUZZ_FINDINGS: &[(&str, Format, u64)] = &[
    // With parquet 55 the row reader looped for ever on this file's page headers; parquet 60
    // refuses its metadata.
    ("fuzz/parquet-hang-7634f18d.parquet", Format::Parquet, 1),
    // Both row groups have damaged page headers in the projected column; the parquet crate's
    // row reader gives the same error for ever, so each row group is one problem.
    ("fuzz/parquet-timeout-27397fe0.parquet", Format::Parquet, 2),
    // A dictionary-encoded data page without a dictionary page: parquet 60's column reader
    // panics on it; the page check makes it an error.
    ("fuzz/parquet-panic-fd56b03e.parquet", Format::Parquet, 2),
    // A column chunk with a negative offset: parquet 60 asserts on it; the group check makes
    // it an error.
    ("fuzz/parquet-panic-5b6d77ec.parquet", Format::Parquet, 3),
    // A byte-array dictionary page shorter than its values: parquet 60 reads past its end.
    ("fuzz/parquet-panic-5859ec82.parquet", Format::Parquet, 2),
    // A plain byte-array data page whose values end in 1 to 3 stray bytes: parquet 60 reads a
    // 4-byte length from them. The page check makes it an error of its row group.
    ("fuzz/parquet-panic-cdbf93b1.parquet", Format::Parquet, 3),
    // The same short dictionary page, labelled RLE_DICTIONARY (decoded plainly all the same).
    ("fuzz/parquet-panic-ad2a7b8c.parquet", Format::Parquet, 2),
    // A page header whose skipped fields are read at the end of the file for ever.
    ("fuzz/parquet-timeout-5a368d4b.parquet", Format::Parquet, 3),
    // A 2 KB file claiming a million rows without a page column: refused once, not row by row.
    ("fuzz/parquet-timeout-b3cf2454.parquet", Format::Parquet, 1),
];

#[test]
fn fuzz_findings_end_promptly_with_a_problem() {
    for &(name, format, expected_problems) in FUZZ_FINDINGS {
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fixture(name);
        std::thread::spawn(move || {
            let mut src = open_source(&path, Some(format), 0, &ReadOptions::default()).unwrap();
            let mut page = Page::default();
            let mut pages = 0;
            while let Ok(true) = src.next_page(&mut page) {
                pages += 1;
            }
            let _ = tx.send((pages, src.stats().problem_count()));
        });
        let (pages, problems) = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{name}: still reading after 60 s"));
        assert_eq!((pages, problems), (0, expected_problems), "{name}");
    }
}

/// Every page of a file read in order can be read again alone, at its `raw_offset`: the same
/// URL, record id, status and body (WARC gzip of one member per record, uncompressed WARC and
/// JSONL, Parquet rows of several row groups, one of them damaged). Pages of a zstd WARC or a
/// gzip JSONL of one member, which cannot be entered in the middle, have none.
#[test]
fn a_page_is_read_again_alone_at_its_raw_offset() {
    let sample =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample/rustdocs-stable.warc.gz");
    let mut custom = ReadOptions::default();
    custom.fields.url = "link".into();
    custom.fields.text = "content".into();
    custom.fields.id = "doc_id".into();
    for (path, opts) in [
        (fixture("basic.warc.gz"), ReadOptions::default()),
        (fixture("basic.warc"), ReadOptions::default()),
        (sample, ReadOptions::default()),
        (fixture("pages.jsonl"), custom.clone()),
        (fixture("pages.parquet"), custom.clone()),
        (fixture("damaged-group.parquet"), ReadOptions::default()),
    ]
    .into_iter()
    .chain(
        // One type of id column each (some are text to the row reader, some not), HTML as
        // bytes, nulls (make_fixtures.py's typed_parquet).
        ["int8", "uint32", "int64", "date32", "fixed", "decimal"].map(|t| {
            (
                fixture(&format!("typed-{t}.parquet")),
                ReadOptions::default(),
            )
        }),
    ) {
        let mut src = open_source(&path, None, 0, &opts).expect("open");
        let mut page = Page::default();
        let mut again = Page::default();
        let mut n = 0;
        while src.next_page(&mut page).expect("read") {
            let at = page
                .raw_offset
                .unwrap_or_else(|| panic!("{}: page {n} has no raw offset", path.display()));
            assert!(neardup_ingest::read_record_at(&path, None, at, 0, &opts, &mut again).unwrap());
            assert_eq!(
                (&again.url, &again.record_id, again.status, &again.body),
                (&page.url, &page.record_id, page.status, &page.body),
                "{} at {at}",
                path.display()
            );
            assert_eq!((again.kind, &again.mime), (page.kind, &page.mime));
            n += 1;
        }
        assert!(n > 1, "{}", path.display());
        // Past the end there is nothing to read.
        let end = std::fs::metadata(&path).unwrap().len() + 1_000_000;
        assert!(
            !neardup_ingest::read_record_at(&path, None, end, 0, &opts, &mut again)
                .unwrap_or(false)
        );
    }
    let (pages, _) = read_with("pages.jsonl.gz", None, &custom);
    assert!(pages.len() > 1);
    assert!(pages.iter().skip(1).all(|g| g.page.raw_offset.is_none()));
    let (pages, _) = read("basic.warc.zst");
    assert!(pages.iter().all(|g| g.page.raw_offset.is_none()));
}

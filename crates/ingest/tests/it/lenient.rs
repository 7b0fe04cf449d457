//! Readers as lenient as warcio where the data is whole, and exact about what they skip
//! (issue 58): a record whose length counts its end marker, an ARC record cut at the file's end
//! with its response whole, a Parquet text column of numbers as a JSONL number, and the file's
//! own line numbers in JSONL problems.

use crate::readers::{kinds, read_with};
use neardup_ingest::{Format, ProblemKind, ReadOptions};

/// Issue 58: a problem's line number is the file's, blank lines counted (it was the record's
/// ordinal plus one, off after a blank line).
#[test]
fn jsonl_problems_name_the_files_line() {
    let text = "{\"text\": \"one\"}\n\n\n{bad\n{\"text\": 5}\n";
    let mut src = neardup_ingest::open_bytes(
        text.as_bytes().to_vec(),
        Format::Jsonl,
        "lines.jsonl",
        &ReadOptions::default(),
    )
    .unwrap();
    let mut page = neardup_ingest::Page::default();
    let mut n = 0;
    while src.next_page(&mut page).unwrap() {
        n += 1;
    }
    assert_eq!(n, 1);
    let details: Vec<&str> = src
        .stats()
        .problems
        .iter()
        .map(|p| p.detail.as_str())
        .collect();
    assert!(details[0].starts_with("line 4: "), "{details:?}");
    assert!(details[1].starts_with("line 5: "), "{details:?}");
}

/// Issue 58: a record whose Content-Length counts its end marker (the block ends in a blank
/// line and the next record follows at once) is whole, as warcio reads it; it was reported as a
/// length mismatch and cut 4 bytes short.
#[test]
fn a_record_whose_length_counts_its_end_marker_is_whole() {
    let record = |kind: &str, uri: &str, block: &str| {
        format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n{block}",
            block.len()
        )
    };
    let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>inside its length</p>\r\n\r\n";
    let mut warc = record("warcinfo", "x:info", "software: a writer\r\n\r\n");
    warc.push_str(&record("response", "https://a.example/1", http));
    warc.push_str(&record("response", "https://a.example/2", http));
    warc.push_str("\r\n\r\n");
    let mut src = neardup_ingest::open_bytes(
        warc.into_bytes(),
        Format::Warc,
        "marker.warc",
        &ReadOptions::default(),
    )
    .unwrap();
    let mut page = neardup_ingest::Page::default();
    let mut urls = Vec::new();
    while src.next_page(&mut page).unwrap() {
        urls.push(page.url.clone());
        assert!(String::from_utf8_lossy(&page.body).contains("inside its length"));
    }
    assert_eq!(urls, ["https://a.example/1", "https://a.example/2"]);
    assert_eq!(src.stats().problem_count(), 0, "{:?}", src.stats().problems);
    assert_eq!(src.stats().notes["record-end-marker-inside-its-length"], 2);
}

/// Issue 58: an ARC file whose last record's length runs 12 bytes past the file's end, its
/// HTTP response whole (warcio reads it): kept and noted; one whose response is cut is still a
/// truncated record.
#[test]
fn an_arc_record_short_at_the_end_with_its_response_whole_is_kept() {
    let head = "filedesc://short.arc 0.0.0.0 20040101000000 text/plain 76\n1 0 neardup-fixture\nURL IP-address Archive-date Content-type Archive-length\n\n";
    let body = "<html><body><p>an old page, whole</p></body></html>";
    let http = format!(
        "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let arc = |cut: usize| {
        let record = format!(
            "http://old.example.com/ 192.0.2.1 20040101120000 text/html {}\n{}",
            http.len() + 12,
            &http[..http.len() - cut]
        );
        format!("{head}{record}").into_bytes()
    };
    for (cut, pages, problems) in [(0, 1, 0), (5, 0, 1)] {
        let mut src =
            neardup_ingest::open_bytes(arc(cut), Format::Arc, "short.arc", &ReadOptions::default())
                .unwrap();
        let mut page = neardup_ingest::Page::default();
        let mut n = 0;
        while src.next_page(&mut page).unwrap() {
            n += 1;
            assert_eq!(page.body, body.as_bytes());
        }
        assert_eq!(
            (n, src.stats().problem_count()),
            (pages, problems),
            "cut {cut}"
        );
    }
}

/// Issue 58: a Parquet text column of numbers was read as text pages ("0", "1") while a JSONL
/// number is a counted skip; now both skip and count it.
#[test]
fn a_text_column_of_numbers_gives_no_page_in_parquet_as_in_jsonl() {
    let (pages, stats) = read_with("number-text.parquet", None, &ReadOptions::default());
    assert!(pages.is_empty());
    assert_eq!(kinds(&stats), [ProblemKind::BadParquet; 3]);
    let jsonl = b"{\"url\": \"https://n.example/0\", \"text\": 0}\n".to_vec();
    let mut src =
        neardup_ingest::open_bytes(jsonl, Format::Jsonl, "n.jsonl", &ReadOptions::default())
            .unwrap();
    let mut page = neardup_ingest::Page::default();
    assert!(!src.next_page(&mut page).unwrap());
    assert_eq!(src.stats().problem_count(), 1);
}

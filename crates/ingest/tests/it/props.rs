//! Property tests: the readers never panic and always terminate on arbitrary or damaged bytes,
//! and every record they cannot read is accounted for.

use neardup_ingest::{open_bytes, Format, Page, ReadOptions};
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    crate::fixture_bytes(name)
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

/// The pages (id, offset, url, record id, kind, body) and problems (offset, kind, detail) of a
/// JSONL file, its lines decoded as they are read or left undecoded and decoded afterwards.
#[allow(clippy::type_complexity)]
fn decoded_later(
    bytes: Vec<u8>,
    later: bool,
) -> (
    Vec<(u32, u64, String, String, String, Vec<u8>)>,
    Vec<(u64, String, String)>,
) {
    let opts = ReadOptions {
        max_record_bytes: 1 << 20,
        defer_decoding: later,
        ..Default::default()
    };
    let mut src = open_bytes(bytes, Format::Jsonl, "prop", &opts).unwrap();
    let mut page = Page::default();
    let mut scratch = Vec::new();
    let mut pages = Vec::new();
    let mut problems = Vec::new();
    while src.next_page(&mut page).unwrap() {
        assert_eq!(page.undecoded.is_some(), later);
        match neardup_ingest::decode(&mut page, &opts.fields, &mut scratch) {
            Ok(()) => pages.push((
                page.id.ordinal,
                page.offset,
                page.url.clone(),
                page.record_id.clone(),
                format!("{:?} {}", page.kind, page.mime),
                page.body.clone(),
            )),
            Err(no) => problems.push((page.offset, format!("{:?}", no.kind), no.detail)),
        }
    }
    let stats = src.stats();
    for p in &stats.problems {
        problems.push((p.offset, format!("{:?}", p.kind), p.detail.clone()));
    }
    problems.sort();
    (pages, problems)
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

    /// A JSONL read with its lines left undecoded and decoded afterwards
    /// (`ReadOptions::defer_decoding`, what a run's workers do) gives the pages and problems
    /// of reading it decoded, damaged or not.
    #[test]
    fn jsonl_decoded_later_reads_as_jsonl_decoded_at_once(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        cut in proptest::option::of(any::<usize>()),
        gz in any::<bool>(),
    ) {
        let name = if gz { "pages.jsonl.gz" } else { "pages.jsonl" };
        let damaged = damage(fixture(name), &edits, cut);
        prop_assert_eq!(decoded_later(damaged.clone(), true), decoded_later(damaged, false));
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

/// A well-formed CRLF WARC (as warcio writes one) split into records: header lines (the version
/// line first) and block. At most `max` records.
fn warc_records(data: &[u8], max: usize) -> Vec<(Vec<&[u8]>, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() && out.len() < max {
        let end = i + data[i..].windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let lines: Vec<&[u8]> = data[i..end].split(|&b| b == b'\n').map(trim_cr).collect();
        let length: usize = lines
            .iter()
            .find_map(|l| {
                let l = std::str::from_utf8(l).ok()?;
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().unwrap())
            })
            .unwrap();
        let block = &data[end + 4..end + 4 + length];
        assert_eq!(&data[end + 4 + length..end + 8 + length], b"\r\n\r\n");
        out.push((lines, block));
        i = end + 8 + length;
    }
    out
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// One header line ended (or folded) the way `how` says, as files in the wild do: CRLF, LF
/// alone, CR CR LF, white space before CRLF, folded after the colon, folded at a space inside
/// the value. A status or version line (`folds` false) is never folded.
fn encode_line(out: &mut Vec<u8>, line: &[u8], how: u8, folds: bool) {
    let colon = line.iter().position(|&b| b == b':');
    let how = if folds { how % 6 } else { how % 4 };
    match (how, colon) {
        (1, _) => out.extend_from_slice(&[line, b"\n"].concat()),
        (2, _) => out.extend_from_slice(&[line, b"\r\r\n"].concat()),
        (3, _) => out.extend_from_slice(&[line, b" \t \r\n"].concat()),
        (4, Some(c)) if !line[c + 1..].trim_ascii().is_empty() => {
            out.extend_from_slice(&line[..=c]);
            out.extend_from_slice(b"\r\n\t");
            out.extend_from_slice(&line[c + 1..]);
            out.extend_from_slice(b"\r\n");
        }
        (5, Some(c)) => {
            // At the first space inside the value: the space begins the continuation line.
            let value = c + 1 + line[c + 1..].iter().take_while(|&&b| b == b' ').count();
            match line[value..].iter().position(|&b| b == b' ') {
                Some(s) => {
                    out.extend_from_slice(&line[..value + s]);
                    out.extend_from_slice(b"\r\n");
                    out.extend_from_slice(&line[value + s..]);
                    out.extend_from_slice(b"\r\n");
                }
                None => out.extend_from_slice(&[line, b"\r\n"].concat()),
            }
        }
        _ => out.extend_from_slice(&[line, b"\r\n"].concat()),
    }
}

fn blank_line(out: &mut Vec<u8>, how: u8) {
    out.extend_from_slice([&b"\r\n"[..], b"\n", b"\r\r\n", b" \r\n"][how as usize % 4]);
}

/// Re-encodes every record's WARC header lines, HTTP head lines and blank lines with the
/// ways in `hows` (taken in turn), recomputing each Content-Length.
fn reencode(records: &[(Vec<&[u8]>, &[u8])], hows: &[u8], gz: bool) -> Vec<u8> {
    let mut k = 0;
    let mut how = || {
        k += 1;
        hows[k % hows.len()]
    };
    let mut file = Vec::new();
    for (lines, block) in records {
        let mut new_block = Vec::new();
        let http_head = block
            .starts_with(b"HTTP/")
            .then(|| block.windows(4).position(|w| w == b"\r\n\r\n"))
            .flatten();
        match http_head {
            Some(end) => {
                for (i, line) in block[..end].split(|&b| b == b'\n').enumerate() {
                    encode_line(&mut new_block, trim_cr(line), how(), i > 0);
                }
                blank_line(&mut new_block, how());
                new_block.extend_from_slice(&block[end + 4..]);
            }
            None => new_block.extend_from_slice(block),
        }
        let mut rec = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let is_length = line
                .get(..15)
                .is_some_and(|n| n.eq_ignore_ascii_case(b"content-length:"));
            let line = if is_length {
                format!("Content-Length: {}", new_block.len()).into_bytes()
            } else {
                line.to_vec()
            };
            encode_line(&mut rec, &line, how(), i > 0);
        }
        blank_line(&mut rec, how());
        rec.extend_from_slice(&new_block);
        blank_line(&mut rec, how());
        blank_line(&mut rec, how());
        if gz {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&rec).unwrap();
            file.extend_from_slice(&e.finish().unwrap());
        } else {
            file.extend_from_slice(&rec);
        }
    }
    file
}

/// Every page read, as the fields a reader gives it, and the problems' kinds.
fn pages_of(bytes: Vec<u8>) -> (Vec<String>, Vec<neardup_ingest::ProblemKind>) {
    let mut src = open_bytes(bytes, Format::Warc, "prop", &ReadOptions::default()).unwrap();
    let mut page = Page::default();
    let mut out = Vec::new();
    while src.next_page(&mut page).unwrap() {
        out.push(format!(
            "{} {:?} {} {} {} {} {} {:?} {:?} {:?}",
            page.url,
            page.status,
            page.mime,
            page.content_type,
            page.date,
            page.record_id,
            page.payload_digest,
            page.header("content-type"),
            page.header("location"),
            page.body,
        ));
    }
    let kinds = src.stats().problems.iter().map(|p| p.kind).collect();
    (out, kinds)
}

fn uncompressed(name: &str) -> Vec<u8> {
    let raw = fixture(name);
    if !name.ends_with(".gz") {
        return raw;
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&raw[..]), &mut out).unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Header lines ended or folded any of the ways files in the wild have them give the same
    /// pages as the CRLF original, with no problem (tests/fixtures/make_line_endings.py checks
    /// the same ways against warcio's reading).
    #[test]
    fn header_line_ends_and_folds_give_the_same_pages(
        which in 0usize..3,
        hows in proptest::collection::vec(0u8..6, 1..40),
        gz in any::<bool>(),
    ) {
        static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
        let files = FILES.get_or_init(|| {
            ["basic.warc", "mirrors.warc.gz", "replicas.warc.gz"].map(uncompressed).to_vec()
        });
        let records = warc_records(&files[which], 30);
        let original: Vec<u8> = records
            .iter()
            .flat_map(|(lines, block)| {
                let mut r = Vec::new();
                for l in lines {
                    r.extend_from_slice(&[l, &b"\r\n"[..]].concat());
                }
                r.extend_from_slice(b"\r\n");
                r.extend_from_slice(block);
                r.extend_from_slice(b"\r\n\r\n");
                r
            })
            .collect();
        let (want, problems) = pages_of(original);
        prop_assert_eq!(&problems, &vec![]);
        prop_assert!(!want.is_empty());
        let (got, problems) = pages_of(reencode(&records, &hows, gz));
        prop_assert_eq!(problems, vec![]);
        prop_assert_eq!(got, want);
    }
}

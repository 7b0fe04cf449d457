//! ARC file reader (Internet Archive ARC v1 and v2). Each record is a header line
//! `URL IP DATE CONTENT-TYPE [v2 fields...] LENGTH` followed by LENGTH bytes (for HTTP fetches:
//! the status line, headers and body). The first record (`filedesc://`) describes the file.
//!
//! Resynchronization is line by line: after a malformed header the reader skips lines until one
//! parses as a record header (and counts the skipped stretch as one problem).

use crate::page::Page;
use crate::problem::ProblemKind;
use crate::record::{classify_io, fill_http, skip_block, Fill, Skipped};
use crate::source::{Ctx, IngestError, PageSource};
use crate::stream::{Compression, Input, Line, Opened};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const MAX_ARC_HEADER_LINE: usize = 16 * 1024;

/// Reads pages from an ARC file.
pub struct ArcReader {
    input: Input,
    compression: Compression,
    raw_pos: Arc<AtomicU64>,
    ctx: Ctx,
    line: Vec<u8>,
    scratch: Vec<u8>,
    ordinal: u32,
    done: bool,
    /// Start of a stretch of unparseable lines being skipped.
    junk_since: Option<u64>,
}

/// A parsed ARC header line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ArcHeader<'a> {
    pub url: &'a str,
    pub ip: &'a str,
    pub date: &'a str,
    pub content_type: &'a str,
    pub length: u64,
}

/// Parses an ARC v1 (5 fields) or v2 (10 fields) header line.
pub(crate) fn parse_header(line: &[u8]) -> Option<ArcHeader<'_>> {
    let line = std::str::from_utf8(line)
        .ok()?
        .trim_end_matches(['\r', '\n'])
        .trim_end_matches(' ');
    let is_date = |d: &str| d.len() >= 8 && d.bytes().all(|b| b.is_ascii_digit());
    // Fields are read from the right, so that a URL holding spaces (as real ARC files have; the
    // spec's fields never do) keeps them: version 1 has 4 fields after the URL, version 2 has 9.
    let is_ip = |ip: &str| ip == "-" || ip.contains('.') || ip.contains(':');
    // Version 2 first: its offset field would pass for a version-1 date.
    for after_url in [9usize, 4] {
        let fields: Vec<&str> = line.rsplitn(after_url + 1, ' ').collect();
        if fields.len() != after_url + 1 {
            continue;
        }
        // rsplitn yields from the right: length first, URL last.
        let url = fields[after_url].trim();
        let (ip, date, content_type) = (
            fields[after_url - 1],
            fields[after_url - 2],
            fields[after_url - 3],
        );
        let Ok(length) = fields[0].parse::<u64>() else {
            continue;
        };
        if !url.contains(':') || !is_date(date) || !is_ip(ip) || content_type.is_empty() {
            continue;
        }
        if after_url == 4 && fields[1..4].iter().any(|f| f.is_empty()) {
            continue;
        }
        return Some(ArcHeader {
            url,
            ip,
            date,
            content_type,
            length,
        });
    }
    None
}

/// `YYYYMMDDhhmmss` (or a prefix) to ISO 8601 `YYYY-MM-DDThh:mm:ssZ`.
pub(crate) fn arc_date_to_iso(d: &str, out: &mut String) {
    out.clear();
    let b = d.as_bytes();
    let part = |i: usize, n: usize| {
        d.get(i..i + n)
            .filter(|_| b.len() >= i + n)
            .unwrap_or(if n == 4 { "0000" } else { "00" })
    };
    use std::fmt::Write;
    let _ = write!(
        out,
        "{}-{}-{}T{}:{}:{}Z",
        part(0, 4),
        part(4, 2),
        part(6, 2),
        part(8, 2),
        part(10, 2),
        part(12, 2)
    );
}

/// What begins the header line of the next ARC record after a block: its closing line break
/// and a URL scheme ARC writers store.
const ARC_RECORD_STARTS: &[&[u8]] = &[
    b"\nhttp://",
    b"\nhttps://",
    b"\nfiledesc://",
    b"\ndns:",
    b"\nftp://",
];

enum Step {
    Page,
    Skipped,
    End,
}

impl ArcReader {
    pub(crate) fn new(opened: Opened, ctx: Ctx) -> ArcReader {
        ArcReader {
            input: Input::new(opened.reader),
            compression: opened.compression,
            raw_pos: opened.raw_pos,
            ctx,
            line: Vec::new(),
            scratch: Vec::new(),
            ordinal: 0,
            done: false,
            junk_since: None,
        }
    }

    fn end_junk(&mut self, upto: u64) -> Result<(), IngestError> {
        if let Some(since) = self.junk_since.take() {
            self.ctx.problem(
                since,
                ProblemKind::BadRecordStart,
                format!("{} bytes that are not ARC records skipped", upto - since),
            )?;
        }
        Ok(())
    }

    fn skip_block(&mut self, start: u64, length: u64, reported: bool) -> Result<Step, IngestError> {
        let r = skip_block(
            &mut self.input,
            &mut self.ctx,
            self.compression,
            start,
            length,
            reported,
            &[],
        )?;
        Ok(if r == Skipped::End {
            Step::End
        } else {
            Step::Skipped
        })
    }

    fn record(&mut self, page: &mut Page) -> Result<Result<Step, io::Error>, IngestError> {
        macro_rules! io {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => return Ok(Err(e)),
                }
            };
        }
        loop {
            if !io!(self.input.fill()) {
                let pos = self.input.pos();
                self.end_junk(pos)?;
                return Ok(Ok(Step::End));
            }
            let buf = self.input.buffered();
            let n = buf
                .iter()
                .take_while(|&&b| b == b'\r' || b == b'\n')
                .count();
            if n == 0 {
                break;
            }
            self.input.consume(n);
        }
        let start = self.input.pos();
        self.line.clear();
        let kind = io!(self.input.read_line(&mut self.line, MAX_ARC_HEADER_LINE));
        let parsed = if kind == Line::TooLong {
            None
        } else {
            parse_header(&self.line)
        };
        let Some(h) = parsed else {
            if kind == Line::TooLong {
                // Drop the rest of the overlong line.
                loop {
                    self.line.clear();
                    if io!(self.input.read_line(&mut self.line, MAX_ARC_HEADER_LINE))
                        != Line::TooLong
                    {
                        break;
                    }
                }
            }
            self.junk_since.get_or_insert(start);
            return Ok(Ok(Step::Skipped));
        };
        let (url, ip, date, ct, length) = (
            h.url.to_string(),
            h.ip.to_string(),
            h.date.to_string(),
            h.content_type.to_string(),
            h.length,
        );
        self.end_junk(start)?;
        let ordinal = self.ordinal;
        self.ordinal = self.ordinal.saturating_add(1);
        if url.starts_with("filedesc://") {
            self.ctx.stats.record_type("filedesc");
            return Ok(Ok(self.skip_block(start, length, false)?));
        }
        self.ctx.stats.record_type("response");
        let limit = self.ctx.opts.max_record_bytes;
        if length > limit {
            self.ctx.problem(
                start,
                ProblemKind::RecordTooLarge,
                format!("length {length} exceeds the record limit of {limit} bytes"),
            )?;
            // The length may lie: the block is cut where the next record starts (a line
            // break, then a URL; a false start is skipped as junk up to the next header).
            let r = skip_block(
                &mut self.input,
                &mut self.ctx,
                self.compression,
                start,
                length,
                true,
                ARC_RECORD_STARTS,
            )?;
            return Ok(Ok(if r == Skipped::End {
                Step::End
            } else {
                Step::Skipped
            }));
        }
        page.offset = start;
        page.id = crate::PageId {
            source: self.ctx.source,
            ordinal,
        };
        page.url.push_str(&url);
        if ip != "0.0.0.0" && ip != "-" {
            page.ip.push_str(&ip);
        }
        arc_date_to_iso(&date, &mut page.date);
        let got = io!(self.input.read_up_to(&mut page.body, length));
        if got < length && crate::record::http_whole(&page.body) {
            // The file ends a few bytes short of the record's length, but the HTTP response in
            // it is whole: kept, as warcio keeps it, and noted.
            self.ctx
                .stats
                .note("arc-record-short-at-end-http-whole-kept");
        } else if got < length {
            self.ctx.problem(
                start,
                ProblemKind::TruncatedRecord,
                format!("length {length} but the file ends after {got} bytes"),
            )?;
            return Ok(Ok(Step::End));
        }
        if page.body.starts_with(b"HTTP/") {
            if let Fill::Skipped = fill_http(page, &mut self.scratch, &mut self.ctx)? {
                return Ok(Ok(Step::Skipped));
            }
        } else if url.starts_with("http") {
            // Some ARC writers store the bare document.
            page.set_content_type(&ct);
        } else {
            self.ctx.stats.note("arc-non-http-record-skipped");
            return Ok(Ok(Step::Skipped));
        }
        self.ctx.stats.pages += 1;
        Ok(Ok(Step::Page))
    }
}

impl PageSource for ArcReader {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError> {
        loop {
            if self.done {
                return Ok(false);
            }
            page.clear();
            let offset = self.input.pos();
            match self.record(page)? {
                Ok(Step::Page) => return Ok(true),
                Ok(Step::Skipped) => {}
                Ok(Step::End) => self.done = true,
                Err(e) => {
                    let (kind, go_on) = classify_io(&e, self.compression);
                    self.ctx.problem(offset, kind, e.to_string())?;
                    self.done = !go_on;
                }
            }
        }
    }

    fn stats(&self) -> &crate::SourceStats {
        &self.ctx.stats
    }

    fn raw_position(&self) -> u64 {
        self.raw_pos.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines() {
        let h = parse_header(b"http://a.com/x 1.2.3.4 20040101120000 text/html 123\n").unwrap();
        assert_eq!((h.url, h.ip, h.length), ("http://a.com/x", "1.2.3.4", 123));
        let v2 = b"http://a.com/ 1.2.3.4 20040101120000 text/html 200 abc - 100 f.arc 55";
        assert_eq!(parse_header(v2).unwrap().length, 55);
        assert!(parse_header(b"junk line").is_none());
        assert!(parse_header(b"a b c d e").is_none());
        // A URL with spaces keeps them (warcio's space-in-url.arc case), versions 1 and 2.
        let h = parse_header(
            b"http://a.com/x?t=Martinez Targets Castor&y=1 65.36.164.67 20040925001013 text/html 149\n",
        )
        .unwrap();
        assert_eq!(h.url, "http://a.com/x?t=Martinez Targets Castor&y=1");
        assert_eq!((h.ip, h.length), ("65.36.164.67", 149));
        let v2 =
            b"http://a.com/a b 1.2.3.4 20040101120000 text/html 200 X - 123456789012 f.arc.gz 55";
        let h = parse_header(v2).unwrap();
        assert_eq!(
            (h.url, h.length, h.date),
            ("http://a.com/a b", 55, "20040101120000")
        );
        let mut s = String::new();
        arc_date_to_iso("20040101120000", &mut s);
        assert_eq!(s, "2004-01-01T12:00:00Z");
        arc_date_to_iso("2004", &mut s);
        assert_eq!(s, "2004-00-00T00:00:00Z");
    }
}

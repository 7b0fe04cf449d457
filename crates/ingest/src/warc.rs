//! WARC 1.0/1.1 reader (ISO 28500). `response` records carrying HTTP and `resource` records
//! become pages; `request`, `metadata`, `warcinfo`, `conversion`, `continuation` and `revisit`
//! are counted and skipped (revisits are listed).
//!
//! Resynchronization: after a malformed record the reader skips to the next `WARC/1.`; a Content-Length that runs into the next record is detected by its missing end
//! marker and the next record is recovered from the bytes already read.

use crate::http::preview;
use crate::page::{classify, Page};
use crate::problem::{ProblemKind, Revisit};
use crate::record::{classify_io, fill_http, skip_block, Fill, Skipped};
use crate::source::{Ctx, IngestError, PageSource};
use crate::stream::{Compression, Input, Line, Opened};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What resynchronization looks for after a malformed record.
const RESYNC: &[u8] = b"WARC/1.";

/// What ends a record block and starts the next record (CRLF or bare LF files); found inside a
/// block, it means the block's Content-Length lied.
const NEXT_RECORD: &[&[u8]] = &[b"\r\n\r\nWARC/1.", b"\n\nWARC/1.", b"\n\r\r\nWARC/1."];

/// A Content-Length at most this many bytes short of the real block is tolerated (kept, noted).
const MAX_SHORT: usize = 8;

/// Longest WARC header block accepted.
pub const MAX_WARC_HEADER: usize = 64 * 1024;

/// Reads pages from a WARC file.
pub struct WarcReader {
    input: Input,
    compression: Compression,
    raw_pos: Arc<AtomicU64>,
    member: Option<Arc<crate::gzip::MemberStart>>,
    ctx: Ctx,
    header: Vec<u8>,
    scratch: Vec<u8>,
    ordinal: u32,
    done: bool,
}

enum Step {
    Page,
    Skipped,
    End,
}

impl WarcReader {
    pub(crate) fn new(opened: Opened, ctx: Ctx) -> WarcReader {
        WarcReader {
            input: Input::new(opened.reader),
            compression: opened.compression,
            raw_pos: opened.raw_pos,
            member: opened.member,
            ctx,
            header: Vec::new(),
            scratch: Vec::new(),
            ordinal: 0,
            done: false,
        }
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
        // Blank lines between records (white space only, as warcio skips them).
        loop {
            if !io!(self.input.fill()) {
                return Ok(Ok(Step::End));
            }
            let buf = self.input.buffered();
            let n = crate::http::leading_space(buf);
            if n == 0 {
                break;
            }
            self.input.consume(n);
        }
        let start = self.input.pos();
        page.offset = start;
        page.raw_offset = Opened::seekable(self.compression, self.member.as_deref(), start);
        self.header.clear();
        let line = io!(self.input.read_line(&mut self.header, 32));
        if line != Line::Complete || !self.header.starts_with(b"WARC/") {
            let found = preview(&self.header);
            self.ctx.problem(
                start,
                ProblemKind::BadRecordStart,
                format!("expected a `WARC/1.x` version line, found {found:?}"),
            )?;
            io!(self.input.seek(RESYNC));
            return Ok(Ok(Step::Skipped));
        }
        let ordinal = self.ordinal;
        self.ordinal = self.ordinal.saturating_add(1);
        // Header lines up to the blank line.
        self.header.clear();
        loop {
            let before = self.header.len();
            let room = MAX_WARC_HEADER.saturating_sub(before).max(1);
            match io!(self.input.read_line(&mut self.header, room)) {
                Line::Complete => {}
                Line::Eof => {
                    self.ctx.stats.record_type("(truncated)");
                    self.ctx.problem(
                        start,
                        ProblemKind::TruncatedRecord,
                        "file ends inside the WARC header block",
                    )?;
                    return Ok(Ok(Step::End));
                }
                Line::TooLong => {
                    self.ctx.stats.record_type("(malformed)");
                    self.ctx.problem(
                        start,
                        ProblemKind::BadHeader,
                        format!("WARC header block longer than {MAX_WARC_HEADER} bytes"),
                    )?;
                    io!(self.input.seek(RESYNC));
                    return Ok(Ok(Step::Skipped));
                }
            }
            // A blank line ends the block: CRLF, LF, or only white space (CR CR LF, as some
            // older tools wrote; warcio strips every header line's trailing white space).
            if crate::http::is_blank(&self.header[before..]) {
                self.header.truncate(before);
                break;
            }
        }
        crate::http::unfold(&mut self.header);
        // Control bytes (NUL, a gzip header's) have no place in a header block: the record is
        // damaged. Its block is skipped when its length can be read; the next record is kept.
        let damaged = self
            .header
            .iter()
            .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\r' | b'\n') || b == 0x7f);
        let h = &self.header;
        let get = |name: &str| crate::http::header_value(h, name.as_bytes());
        let length = get("content-length")
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.parse::<u64>().ok());
        let Some(length) = length else {
            self.ctx.stats.record_type("(malformed)");
            let found = get("content-length").map(preview);
            self.ctx.problem(
                start,
                ProblemKind::MissingHeader,
                format!("Content-Length missing or not a number: {found:?}"),
            )?;
            io!(self.input.seek(RESYNC));
            return Ok(Ok(Step::Skipped));
        };
        // The next record where this one's block should be: the block was lost (the needles of
        // `skip_block` want a blank line before the next record, which the header's end took).
        let mut peek = std::mem::take(&mut self.scratch);
        self.input.peek(16, &mut peek);
        let lead = crate::http::leading_space(&peek);
        let block_lost = length > 0 && peek[lead..].starts_with(RESYNC);
        self.scratch = peek;
        if block_lost {
            self.ctx.stats.record_type("(malformed)");
            self.ctx.problem(
                start,
                ProblemKind::LengthMismatch,
                format!(
                    "Content-Length {length}, but the next record begins where the block should"
                ),
            )?;
            return Ok(Ok(Step::Skipped));
        }
        if damaged {
            self.ctx.stats.record_type("(malformed)");
            self.ctx.problem(
                start,
                ProblemKind::BadHeader,
                "WARC header block holds control bytes (damaged)",
            )?;
            return Ok(Ok(self.skip_block(start, length, true)?));
        }
        let rtype = get("warc-type").map(|t| String::from_utf8_lossy(t).to_ascii_lowercase());
        let Some(rtype) = rtype else {
            self.ctx.stats.record_type("(malformed)");
            self.ctx
                .problem(start, ProblemKind::MissingHeader, "WARC-Type missing")?;
            return Ok(Ok(self.skip_block(start, length, true)?));
        };
        const TYPES: &[&str] = &[
            "warcinfo",
            "response",
            "resource",
            "request",
            "metadata",
            "revisit",
            "conversion",
            "continuation",
        ];
        if !TYPES.contains(&rtype.as_str()) {
            // No type WARC 1.1 names: a damaged header, or a writer's own; skipped, and said.
            self.ctx.stats.record_type("(unknown)");
            self.ctx.problem(
                start,
                ProblemKind::BadHeader,
                format!(
                    "WARC-Type {:?} is none WARC 1.1 defines",
                    preview(rtype.as_bytes())
                ),
            )?;
            return Ok(Ok(self.skip_block(start, length, true)?));
        }
        self.ctx.stats.record_type(&rtype);
        let is_page_type = rtype == "response" || rtype == "resource";
        if rtype == "revisit"
            && (self.ctx.opts.every_revisit
                || self.ctx.stats.revisits.len() < crate::problem::MAX_EXAMPLES)
        {
            let s = |v: Option<&[u8]>| {
                v.map(|v| String::from_utf8_lossy(v).trim().to_string())
                    .unwrap_or_default()
            };
            let uri = |v: Option<&[u8]>| {
                let v = s(v);
                match v.strip_prefix('<').and_then(|v| v.strip_suffix('>')) {
                    Some(inner) => inner.to_string(),
                    None => v,
                }
            };
            let r = Revisit {
                url: uri(get("warc-target-uri")),
                date: s(get("warc-date")),
                refers_to: s(get("warc-refers-to-target-uri").or_else(|| get("warc-refers-to"))),
                offset: start,
                record_id: s(get("warc-record-id")),
                refers_to_record: s(get("warc-refers-to")),
                refers_to_target_uri: uri(get("warc-refers-to-target-uri")),
                refers_to_date: s(get("warc-refers-to-date")),
                payload_digest: s(get("warc-payload-digest")),
                profile: s(get("warc-profile")),
                refers_to_container: uri(get("warc-refers-to-container")),
            };
            self.ctx.stats.revisits.push(r);
        }
        if !is_page_type {
            return Ok(Ok(self.skip_block(start, length, false)?));
        }
        if get("warc-target-uri").is_none() {
            // Mandatory in a response or resource record (WARC 1.1, 5.8): damaged, or no capture.
            self.ctx.problem(
                start,
                ProblemKind::MissingHeader,
                format!("WARC-Target-URI missing in a {rtype} record"),
            )?;
            return Ok(Ok(self.skip_block(start, length, true)?));
        }
        let limit = self.ctx.opts.max_record_bytes;
        if length > limit {
            self.ctx.problem(
                start,
                ProblemKind::RecordTooLarge,
                format!("Content-Length {length} exceeds the record limit of {limit} bytes"),
            )?;
            return Ok(Ok(self.skip_block(start, length, true)?));
        }
        // Page fields from the WARC header.
        page.id = crate::PageId {
            source: self.ctx.source,
            ordinal,
        };
        let set = |dst: &mut String, v: Option<&[u8]>| {
            dst.clear();
            if let Some(v) = v {
                dst.push_str(&String::from_utf8_lossy(v));
            }
        };
        let uri = get("warc-target-uri").map(|u| {
            u.strip_prefix(b"<")
                .and_then(|u| u.strip_suffix(b">"))
                .unwrap_or(u)
        });
        set(&mut page.url, uri);
        set(&mut page.date, get("warc-date"));
        set(&mut page.ip, get("warc-ip-address"));
        set(&mut page.payload_digest, get("warc-payload-digest"));
        set(&mut page.record_id, get("warc-record-id"));
        let warc_ct = get("content-type")
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .unwrap_or_default();

        page.body.clear();
        let got = io!(self.input.read_up_to(&mut page.body, length));
        // The block holds the next records: cut short by the end of the file, or (not
        // compressed) a chain of them running past its end.
        let ran_over = if got < length {
            if !self.recover_from_body(page) {
                self.ctx.problem(
                    start,
                    ProblemKind::TruncatedRecord,
                    format!("Content-Length {length} but the file ends after {got} bytes"),
                )?;
                return Ok(Ok(Step::End));
            }
            true
        } else {
            if !self.trailer(start, Some(page))? {
                return Ok(Ok(Step::Skipped));
            }
            self.compression == Compression::None && self.overran(page)
        };
        if ran_over {
            self.ctx.problem(
                start,
                ProblemKind::LengthMismatch,
                format!("Content-Length {length} runs into the next record"),
            )?;
            return Ok(Ok(Step::Skipped));
        }
        if rtype == "response" {
            if !page.body.starts_with(b"HTTP/") {
                if warc_ct.to_ascii_lowercase().starts_with("application/http") {
                    let found = preview(&page.body);
                    self.ctx.problem(
                        start,
                        ProblemKind::BadHttp,
                        format!("expected an HTTP status line, found {found:?}"),
                    )?;
                } else {
                    self.ctx.stats.note("response-without-http-skipped");
                }
                return Ok(Ok(Step::Skipped));
            }
            if let Fill::Skipped = fill_http(page, &mut self.scratch, &mut self.ctx)? {
                return Ok(Ok(Step::Skipped));
            }
        } else {
            page.set_content_type(&warc_ct);
            if warc_ct.is_empty() {
                page.kind = classify("", &page.body);
            }
        }
        self.ctx.stats.pages += 1;
        Ok(Ok(Step::Page))
    }

    /// Skips a record block that will not become a page, checking that it is all there.
    /// Skips a record block that will not become a page, checking that it is all there.
    fn skip_block(&mut self, start: u64, length: u64, reported: bool) -> Result<Step, IngestError> {
        match skip_block(
            &mut self.input,
            &mut self.ctx,
            self.compression,
            start,
            length,
            reported,
            NEXT_RECORD,
        )? {
            Skipped::Whole => {
                self.trailer(start, None)?;
                Ok(Step::Skipped)
            }
            Skipped::Resume => Ok(Step::Skipped),
            Skipped::End => Ok(Step::End),
        }
    }

    /// Checks the CRLF CRLF after a record block. Returns `true` when it is there; otherwise
    /// counts the problem, resynchronizes and returns `false`.
    fn trailer(&mut self, start: u64, page: Option<&mut Page>) -> Result<bool, IngestError> {
        let mut peek = std::mem::take(&mut self.scratch);
        let want = MAX_SHORT + 24;
        self.input.peek(want, &mut peek);
        let at_eof = peek.len() < want;
        // The end marker (junk after it is the next record's problem), or any run of blank
        // lines (LF alone, CR CR LF, trailing spaces: what warcio skips) before the next record
        // or the end of the file.
        let ok = peek.is_empty() || peek.starts_with(b"\r\n\r\n") || ends_record(&peek, true);
        if ok {
            self.scratch = peek;
            return Ok(true);
        }
        // The next record right after the block, whose last bytes are the blank line (a writer
        // that counted the end marker in Content-Length): warcio reads it so; kept, noted.
        let inside = page
            .as_deref()
            .is_some_and(|p| p.body.ends_with(b"\n\n") || p.body.ends_with(b"\r\n\r\n"));
        if inside && peek.starts_with(b"WARC/") {
            self.scratch = peek;
            self.ctx.stats.note("record-end-marker-inside-its-length");
            return Ok(true);
        }
        // A Content-Length a few bytes short (warcio's example-trunc.warc: a gzip body 2 bytes
        // longer than announced): the end marker follows within a few bytes. Kept, as warcio
        // keeps it, and counted.
        let short = (1..=MAX_SHORT.min(peek.len())).find(|&k| ends_record(&peek[k..], at_eof));
        self.scratch = peek;
        if let Some(k) = short {
            let mut extra = Vec::new();
            if self.input.read_up_to(&mut extra, k as u64).is_ok() {
                if let Some(p) = page {
                    p.body.extend_from_slice(&extra);
                }
                self.ctx.stats.note("content-length-a-few-bytes-short-kept");
                return Ok(true);
            }
        }
        let recovered = match page {
            Some(p) => self.recover_from_body(p),
            None => false,
        };
        self.ctx.problem(
            start,
            ProblemKind::LengthMismatch,
            "record block not followed by CRLF CRLF: Content-Length is wrong",
        )?;
        if !recovered {
            let _ = self.input.seek(RESYNC);
        }
        Ok(false)
    }

    /// When a Content-Length was too long, the next record's start is inside the body: push it
    /// back so that it is read again.
    /// Whether the block just read holds the start of the next records, the last of which runs
    /// past the block's end: the record lost bytes and its Content-Length ran over the records
    /// after it, the last one's header or a blank line in it passing for this one's end. The
    /// records are given back to the input. (A block that holds a WARC file as its content
    /// holds records that end inside it.) Only for files that are not compressed: a gzip
    /// member's checksum finds such damage.
    fn overran(&mut self, page: &Page) -> bool {
        let body = &page.body;
        let Some(first) = memchr::memmem::find(body, b"\r\n\r\nWARC/1.").map(|p| p + 4) else {
            return false;
        };
        let mut at = first;
        loop {
            let rest = &body[at..];
            let Some(end) = memchr::memmem::find(rest, b"\r\n\r\n") else {
                // A header block cut by the end of this block: the next record runs past it.
                break;
            };
            let header = &rest[..end];
            let length = crate::http::header_value(header, b"content-length")
                .and_then(|v| std::str::from_utf8(v).ok())
                .and_then(|v| v.trim().parse::<usize>().ok());
            let (Some(length), true) = (
                length,
                crate::http::header_value(header, b"warc-type").is_some(),
            ) else {
                return false;
            };
            let next = at + end + 4 + length;
            if next >= body.len() {
                break;
            }
            let after = &body[next..];
            let lead = crate::http::leading_space(after);
            if lead == after.len() {
                // Its trailer, cut by the end of this block: what follows begins after it.
                break;
            }
            if !after[lead..].starts_with(RESYNC) {
                return false;
            }
            at = next + lead;
        }
        self.input.unread(&body[first..]);
        true
    }

    fn recover_from_body(&mut self, page: &Page) -> bool {
        let next_record = |b: &[u8]| {
            memchr::memmem::find(b, b"\r\n\r\nWARC/")
                .map(|p| p + 4)
                .or_else(|| memchr::memmem::find(b, b"\n\nWARC/").map(|p| p + 2))
        };
        let body = &page.body;
        if let Some(p) = next_record(body) {
            self.input.unread(&body[p..]);
            return true;
        }
        // The next record's start may straddle the block's end (`...\r\n\r\nWARC` | `/1.0`).
        let tail = body.len().saturating_sub(16);
        let mut joined = std::mem::take(&mut self.scratch);
        self.input.peek(16, &mut joined);
        joined.splice(0..0, body[tail..].iter().copied());
        let at = next_record(&joined).filter(|&p| tail + p < body.len());
        self.scratch = joined;
        match at {
            Some(p) => {
                self.input.unread(&body[tail + p..]);
                true
            }
            None => false,
        }
    }
}

/// Whether `rest` (bytes looked at after a record block) is blank lines (at least one line
/// end, only white space) followed by the next record's `WARC/`, all or the part of it
/// looked at. White space to the end of `rest` counts only when `blank_to_end` is set (the
/// end of the file, or where any number of blank lines is fine).
fn ends_record(rest: &[u8], blank_to_end: bool) -> bool {
    let n = crate::http::leading_space(rest);
    let after = &rest[n..];
    if after.is_empty() {
        return blank_to_end && n > 0;
    }
    rest[..n].contains(&b'\n') && (after.starts_with(b"WARC/") || b"WARC/".starts_with(after))
}

impl PageSource for WarcReader {
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
                    if go_on {
                        // The decompressor resumed at the next member: find the next record.
                        match self.input.seek(RESYNC) {
                            Ok(true) => {}
                            Ok(false) => self.done = true,
                            Err(e) => {
                                let (kind, go_on) = classify_io(&e, self.compression);
                                self.ctx.problem(self.input.pos(), kind, e.to_string())?;
                                self.done = !go_on;
                            }
                        }
                    } else {
                        self.done = true;
                    }
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

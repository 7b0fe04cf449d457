//! JSON lines: one object per line; the configured url, html/text and id fields are read, every
//! other field is skipped without being materialized.

use crate::page::{BodyKind, Page, Undecoded};
use crate::problem::ProblemKind;
use crate::source::{Ctx, IngestError, PageSource};
use crate::stream::{Compression, Input, Line, Opened};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod fast;

/// Reads pages from a JSONL file.
pub struct JsonlReader {
    lines: Lines,
    member: Option<Arc<crate::gzip::MemberStart>>,
    raw_pos: Arc<AtomicU64>,
    ctx: Ctx,
    line: Vec<u8>,
}

impl JsonlReader {
    pub(crate) fn new(opened: Opened, ctx: Ctx) -> JsonlReader {
        JsonlReader {
            lines: Lines::new(opened.reader, opened.compression),
            member: opened.member,
            raw_pos: opened.raw_pos,
            ctx,
            line: Vec::new(),
        }
    }
}

/// What [`Lines::next`] found.
enum Next {
    /// A record's line (trimmed of nothing: terminator included) is in the buffer.
    Record {
        ordinal: u32,
        start: u64,
        /// Its line number in the file (1-based; blank lines count).
        line: u64,
    },
    /// A record's line over the limit, skipped (its ordinal taken).
    TooLong {
        start: u64,
    },
    /// The stream failed at `start`; `go_on` when reading can resume (a damaged gzip member).
    Failed {
        start: u64,
        error: std::io::Error,
        kind: ProblemKind,
        go_on: bool,
    },
    End,
}

/// The one way JSONL is cut into records: a line holding anything but ASCII whitespace is a
/// record and gets the next ordinal (a blank line gets none); a line over the limit is a record
/// skipped whole. The page reader and [`JsonlRecords`] (which writes kept records out) both
/// cut here, so their ordinals agree.
struct Lines {
    input: Input,
    compression: Compression,
    ordinal: u32,
    /// Lines read (blank ones too): the number of the last.
    lines_read: u64,
    done: bool,
}

impl Lines {
    fn new(reader: Box<dyn std::io::Read + Send>, compression: Compression) -> Lines {
        Lines {
            input: Input::new(reader),
            compression,
            ordinal: 0,
            lines_read: 0,
            done: false,
        }
    }

    /// The next record's line into `line` (cleared first), at most `limit` bytes.
    fn next(&mut self, line: &mut Vec<u8>, limit: usize) -> Next {
        loop {
            if self.done {
                return Next::End;
            }
            let start = self.input.pos();
            line.clear();
            let read = match self.input.read_line(line, limit.saturating_add(2)) {
                Ok(l) => l,
                Err(error) => {
                    let (kind, go_on) = crate::record::classify_io(&error, self.compression);
                    self.done = !go_on;
                    return Next::Failed {
                        start,
                        error,
                        kind,
                        go_on,
                    };
                }
            };
            if read == Line::Eof && line.is_empty() {
                self.done = true;
                continue;
            }
            self.lines_read += 1;
            if read == Line::TooLong {
                self.next_ordinal();
                // Skip the rest of the line.
                loop {
                    line.clear();
                    match self.input.read_line(line, 1 << 20) {
                        Ok(Line::TooLong) => continue,
                        _ => break,
                    }
                }
                line.clear();
                return Next::TooLong { start };
            }
            if line.trim_ascii().is_empty() {
                continue;
            }
            return Next::Record {
                ordinal: self.next_ordinal(),
                start,
                line: self.lines_read,
            };
        }
    }

    fn next_ordinal(&mut self) -> u32 {
        let o = self.ordinal;
        self.ordinal = self.ordinal.saturating_add(1);
        o
    }
}

/// The raw lines of a JSONL file's records with the ordinals its pages get
/// ([`crate::PageId::ordinal`]), for writing chosen records out byte for byte. Lines over the
/// record limit are passed over (the page reader skips them too); a damaged gzip member is
/// passed over and counted, as the reader does.
pub struct JsonlRecords {
    lines: Lines,
    limit: usize,
    /// Damaged stretches passed over.
    pub damaged: u64,
}

impl JsonlRecords {
    /// Opens `path` (plain, gzip or zstd, detected from its bytes); lines over `limit` bytes
    /// are passed over (`usize::MAX`: none is, each line is held whole).
    pub fn open(path: &std::path::Path, limit: usize) -> std::io::Result<JsonlRecords> {
        let opened = crate::stream::open(path)?;
        Ok(JsonlRecords {
            lines: Lines::new(opened.reader, opened.compression),
            limit,
            damaged: 0,
        })
    }

    /// How the file is compressed (what a copy of it should be written with).
    pub fn compression(&self) -> Compression {
        self.lines.compression
    }

    /// The next record's ordinal, its line (terminator included) in `line`; `None` at the end.
    pub fn next_record(&mut self, line: &mut Vec<u8>) -> std::io::Result<Option<u32>> {
        loop {
            match self.lines.next(line, self.limit) {
                Next::Record { ordinal, .. } => return Ok(Some(ordinal)),
                Next::TooLong { .. } => continue,
                Next::Failed { go_on: true, .. } => self.damaged += 1,
                Next::Failed { error, .. } => return Err(error),
                Next::End => return Ok(None),
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Url,
    Html,
    Text,
    Id,
    Other,
}

struct KeySeed<'f>(&'f crate::FieldMap);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Which;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Which, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Which;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E>(self, k: &str) -> Result<Which, E> {
        Ok(Which::of(k.as_bytes(), self.0))
    }
}

impl Which {
    /// What a record's key names: the first of url, html, text and id it equals.
    fn of(key: &[u8], f: &crate::FieldMap) -> Which {
        if key == f.url.as_bytes() {
            Which::Url
        } else if key == f.html.as_bytes() {
            Which::Html
        } else if key == f.text.as_bytes() {
            Which::Text
        } else if key == f.id.as_bytes() {
            Which::Id
        } else {
            Which::Other
        }
    }
}

/// Appends a string (or, for ids, a number) to a buffer without an intermediate allocation.
struct Into<'b> {
    out: &'b mut String,
    numbers: bool,
}

impl<'de> DeserializeSeed<'de> for Into<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Into<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(if self.numbers {
            "a string or a number"
        } else {
            "a string"
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        self.out.clear();
        self.out.push_str(v);
        Ok(true)
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<bool, E> {
        if !self.numbers {
            return Err(E::custom("expected a string, found a number"));
        }
        self.out.clear();
        self.out.push_str(&v.to_string());
        Ok(true)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<bool, E> {
        if !self.numbers {
            return Err(E::custom("expected a string, found a number"));
        }
        self.out.clear();
        self.out.push_str(&v.to_string());
        Ok(true)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

struct Record<'p, 'f> {
    page: &'p mut Page,
    fields: &'f crate::FieldMap,
    text: &'p mut String,
}

/// The body fields a record held: `html` when its html field was a string, else `text` when
/// its text field was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Seen {
    html: bool,
    text: bool,
}

impl<'de> Visitor<'de> for Record<'_, '_> {
    type Value = Seen;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
        let mut seen = Seen::default();
        while let Some(which) = map.next_key_seed(KeySeed(self.fields))? {
            match which {
                Which::Url => {
                    map.next_value_seed(Into {
                        out: &mut self.page.url,
                        numbers: false,
                    })?;
                }
                Which::Id => {
                    map.next_value_seed(Into {
                        out: &mut self.page.record_id,
                        numbers: true,
                    })?;
                }
                Which::Html if !seen.html => {
                    seen.html = map.next_value_seed(Into {
                        out: &mut *self.text,
                        numbers: false,
                    })?;
                    seen.text = false;
                }
                Which::Text if !seen.html => {
                    seen.text = map.next_value_seed(Into {
                        out: &mut *self.text,
                        numbers: false,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(seen)
    }
}

/// Why a record read is no page: the problem its reader counts ([`crate::SourceStats`]), at
/// the page's offset.
#[derive(Debug, thiserror::Error)]
#[error("{kind:?}: {detail}")]
pub struct NoPage {
    /// The problem's kind.
    pub kind: ProblemKind,
    /// What was wrong (for JSONL: the line's number, then what).
    pub detail: String,
}

/// A record read by serde_json (every record [`fast::record`] is unsure of).
fn serde_record(
    line: &[u8],
    page: &mut Page,
    fields: &crate::FieldMap,
    text: &mut String,
) -> Result<Seen, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(line);
    de.deserialize_map(Record { page, fields, text })
        .and_then(|seen| de.end().map(|_| seen))
}

/// Reads one record's `line` (line `line_no` of its file) into `page`: its url, id and html or
/// text; why not when it is no JSON object or holds neither body field. The one way a JSONL
/// line becomes a page, on the reading thread or, deferred, on a worker. `page` has no url or
/// record id yet (cleared, or left undecoded by its reader).
fn parse(
    line: &[u8],
    line_no: u64,
    page: &mut Page,
    fields: &crate::FieldMap,
) -> Result<(), NoPage> {
    let bad = |detail| NoPage {
        kind: ProblemKind::BadJson,
        detail,
    };
    page.body.clear();
    let fast = fast::record(
        line,
        fields,
        &mut page.url,
        &mut page.record_id,
        &mut page.body,
    );
    let res = match fast {
        Some(seen) => Ok(seen),
        None => {
            // What the fast reader left is no part of the answer. The body buffer is reused as
            // the text buffer.
            page.url.clear();
            page.record_id.clear();
            page.body.clear();
            let mut text = String::from_utf8(std::mem::take(&mut page.body)).unwrap_or_default();
            let res = serde_record(line, page, fields, &mut text);
            page.body = text.into_bytes();
            res
        }
    };
    let seen = res.map_err(|e| bad(format!("line {line_no}: {e}")))?;
    if seen.html {
        page.kind = BodyKind::Html;
        page.mime.push_str("text/html");
    } else if seen.text {
        page.kind = BodyKind::Text;
        page.mime.push_str("text/plain");
    } else {
        return Err(bad(format!(
            "line {line_no}: neither {:?} nor {:?} is a string field",
            fields.html, fields.text
        )));
    }
    Ok(())
}

/// Decodes a page a reader left undecoded ([`crate::ReadOptions::defer_decoding`]) as the
/// reader would have, `scratch` holding its record meanwhile; a page already decoded is left
/// as it is. On `Err` (the problem as the reader would have counted it, at the page's
/// `offset`) the page is no page.
pub fn decode(
    page: &mut Page,
    fields: &crate::FieldMap,
    scratch: &mut Vec<u8>,
) -> Result<(), NoPage> {
    let Some(Undecoded::JsonLine { line }) = page.undecoded.take() else {
        return Ok(());
    };
    std::mem::swap(&mut page.body, scratch);
    parse(scratch, line, page, fields).inspect_err(|_| page.kind = BodyKind::Other)
}

impl PageSource for JsonlReader {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError> {
        let limit = self.ctx.opts.max_record_bytes as usize;
        loop {
            page.clear();
            let (ordinal, start, line_no) = match self.lines.next(&mut self.line, limit) {
                Next::Record {
                    ordinal,
                    start,
                    line,
                } => (ordinal, start, line),
                Next::TooLong { start } => {
                    self.ctx.stats.record_type("(too-large)");
                    self.ctx.problem(
                        start,
                        ProblemKind::RecordTooLarge,
                        format!("line longer than the record limit of {limit} bytes"),
                    )?;
                    continue;
                }
                Next::Failed {
                    start, error, kind, ..
                } => {
                    self.ctx.problem(start, kind, error.to_string())?;
                    continue;
                }
                Next::End => return Ok(false),
            };
            self.ctx.stats.record_type("line");
            page.id = crate::PageId {
                source: self.ctx.source,
                ordinal,
            };
            page.offset = start;
            page.raw_offset =
                Opened::seekable(self.lines.compression, self.member.as_deref(), start);
            if self.ctx.opts.defer_decoding && !self.ctx.opts.strict {
                // Counted as a page now; a line that does not decode is taken off then. The
                // line's buffer becomes the body (trimmed where it lies) and the body's empty
                // one holds the next line: no copy of the record.
                let start = self.line.len() - self.line.trim_ascii_start().len();
                let len = self.line.trim_ascii().len();
                std::mem::swap(&mut self.line, &mut page.body);
                page.body.truncate(start + len);
                page.body.drain(..start);
                page.undecoded = Some(Undecoded::JsonLine { line: line_no });
                self.ctx.stats.pages += 1;
                return Ok(true);
            }
            if let Err(no) = parse(self.line.trim_ascii(), line_no, page, &self.ctx.opts.fields) {
                self.ctx.problem(start, no.kind, no.detail)?;
                continue;
            }
            self.ctx.stats.pages += 1;
            return Ok(true);
        }
    }

    fn stats(&self) -> &crate::SourceStats {
        &self.ctx.stats
    }

    fn raw_position(&self) -> u64 {
        self.raw_pos.load(Ordering::Relaxed)
    }
}

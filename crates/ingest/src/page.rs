//! The one page model every source produces.

use serde::Serialize;

/// Identifies a page by where it came from: the input's index in the run and the ordinal of the
/// record inside that input (every record counts, skipped ones too, so ids do not move when a
/// setting changes which records become pages). Stable across runs and thread counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PageId {
    /// Index of the input in the order the inputs were given.
    pub source: u32,
    /// Ordinal of the record in its input (0-based).
    pub ordinal: u32,
}

/// What the body holds, which decides how it is tokenized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyKind {
    /// HTML (or XHTML): tokenized with Henzinger's rules.
    Html,
    /// Plain text (a JSONL/Parquet text field): tokenized as text.
    Text,
    /// Anything else: counted, never tokenized.
    #[default]
    Other,
}

/// One fetched page. Sources fill a `Page` in place so that its buffers are reused from record
/// to record.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// Stable id.
    pub id: PageId,
    /// The URL as recorded (WARC-Target-URI, ARC URL, JSONL url field, folder URL).
    pub url: String,
    /// The record's own id (WARC-Record-ID) or the user's id field; empty if none.
    pub record_id: String,
    /// Fetch date as recorded (WARC-Date is ISO 8601; ARC dates are converted to ISO 8601).
    pub date: String,
    /// Server IP address where known (WARC-IP-Address, ARC IP field).
    pub ip: String,
    /// HTTP status code, when the record carries an HTTP response.
    pub status: Option<u16>,
    /// Raw HTTP header block (without the status line); empty when there is none.
    pub headers: Vec<u8>,
    /// Media type, lowercased, without parameters (`text/html`); empty if unknown.
    pub mime: String,
    /// The full `Content-Type` value (with its charset parameter), empty if unknown.
    pub content_type: String,
    /// WARC-Payload-Digest where present.
    pub payload_digest: String,
    /// The payload, with transfer and content encodings removed.
    pub body: Vec<u8>,
    /// How to read `body`.
    pub kind: BodyKind,
    /// Byte offset of the record in its (decompressed) input.
    pub offset: u64,
    /// Where in its file the record can be read alone ([`crate::read_record_at`]): its byte
    /// offset in an uncompressed WARC or JSONL file, the start of its gzip member in a
    /// `.warc.gz` of one member per record, its row number in a Parquet file (as `offset`);
    /// `None` for other inputs (zstd, a gzip member holding several records, folders).
    pub raw_offset: Option<u64>,
    /// Set when the reader left the page undecoded ([`crate::ReadOptions::defer_decoding`]):
    /// `body` then holds the record as read, and only `id`, `offset` and `raw_offset` are set
    /// until [`crate::decode`] fills the rest.
    pub undecoded: Option<Undecoded>,
}

/// What an undecoded page's body holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undecoded {
    /// A JSONL record's line, trimmed, and its line number in the file (1-based; blank
    /// lines count).
    JsonLine {
        /// The line number, for the record's problem.
        line: u64,
    },
}

impl Page {
    /// Resets every field, keeping buffer capacity.
    pub fn clear(&mut self) {
        self.id = PageId::default();
        self.url.clear();
        self.record_id.clear();
        self.date.clear();
        self.ip.clear();
        self.status = None;
        self.headers.clear();
        self.mime.clear();
        self.content_type.clear();
        self.payload_digest.clear();
        self.body.clear();
        self.kind = BodyKind::Other;
        self.offset = 0;
        self.raw_offset = None;
        self.undecoded = None;
    }

    /// Releases buffer capacity above `max` bytes, so that a page slot that once held a huge
    /// record does not keep that memory for the rest of the run.
    pub fn trim(&mut self, max: usize) {
        if self.body.capacity() > max {
            self.body = Vec::new();
        }
        if self.headers.capacity() > max {
            self.headers = Vec::new();
        }
    }

    /// The host of the page URL, lowercased (see `neardup_text::host_of`); empty if none.
    pub fn host(&self) -> &str {
        host_slice(&self.url)
    }

    /// Value of an HTTP response header (case-insensitive name), first occurrence.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        crate::http::header_value(&self.headers, name.as_bytes())
    }

    /// Sets `mime` and `content_type` from a Content-Type value and classifies the body.
    pub fn set_content_type(&mut self, value: &str) {
        self.content_type.clear();
        self.content_type.push_str(value.trim());
        self.mime.clear();
        let main = value.split(';').next().unwrap_or("").trim();
        for c in main.chars() {
            self.mime.push(c.to_ascii_lowercase());
        }
        self.kind = classify(&self.mime, &self.body);
    }
}

/// Decides whether a media type (or, when it is missing, the start of the body) is HTML.
pub fn classify(mime: &str, body: &[u8]) -> BodyKind {
    match mime {
        "text/html" | "application/xhtml+xml" | "application/xhtml" => BodyKind::Html,
        "" | "application/octet-stream" | "unk" | "no-type" => {
            if looks_like_html(body) {
                BodyKind::Html
            } else {
                BodyKind::Other
            }
        }
        _ => BodyKind::Other,
    }
}

/// True when the first non-blank bytes are `<!doctype html`, `<html`, `<head` or `<body`.
pub fn looks_like_html(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let head = &body[start..body.len().min(start + 16)];
    [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
    ]
    .iter()
    .any(|p| head.len() >= p.len() && head[..p.len()].eq_ignore_ascii_case(p))
}

/// Lowercase-insensitive host slice of a URL without allocation (port/userinfo removed).
fn host_slice(url: &str) -> &str {
    let Some(sep) = url.find("://") else {
        return "";
    };
    let rest = &url[sep + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let auth = &rest[..end];
    let auth = &auth[auth.rfind('@').map_or(0, |i| i + 1)..];
    if auth.starts_with('[') {
        return &auth[..auth.find(']').map_or(auth.len(), |i| i + 1)];
    }
    &auth[..auth.find(':').unwrap_or(auth.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_kinds() {
        let mut p = Page {
            url: "https://u@Doc.Rust-Lang.org:443/std/".into(),
            ..Default::default()
        };
        assert_eq!(p.host(), "Doc.Rust-Lang.org");
        p.body = b"  <!DOCTYPE HTML><p>x".to_vec();
        p.set_content_type("Text/HTML; charset=UTF-8");
        assert_eq!((p.mime.as_str(), p.kind), ("text/html", BodyKind::Html));
        p.set_content_type("");
        assert_eq!(p.kind, BodyKind::Html);
        p.set_content_type("image/png");
        assert_eq!(p.kind, BodyKind::Other);
    }
}

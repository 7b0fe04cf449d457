//! Bad input accounting: every skipped record is counted with its file, byte offset and reason.

use serde::Serialize;
use std::collections::BTreeMap;

/// Why a record (or the rest of a file) was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// The file could not be opened or read.
    Io,
    /// A gzip member is corrupt; reading resumed at the next member.
    CorruptGzip,
    /// The compressed stream ends in the middle of a member/frame.
    TruncatedCompression,
    /// A zstd stream is corrupt; the rest of the file is unreadable.
    CorruptZstd,
    /// Expected a `WARC/` version line (or an ARC header line) and found something else.
    BadRecordStart,
    /// The header block is malformed or larger than the header limit.
    BadHeader,
    /// A required header (Content-Length, WARC-Type, ...) is missing or invalid.
    MissingHeader,
    /// The file ends before the record's declared length.
    TruncatedRecord,
    /// The record is not followed by its end marker: its Content-Length is wrong.
    LengthMismatch,
    /// The record is larger than `--max-record-bytes`.
    RecordTooLarge,
    /// The HTTP status line or headers in the record are malformed.
    BadHttp,
    /// Chunked transfer-encoding or a Content-Encoding could not be decoded.
    BadEncoding,
    /// Decoding the body would exceed `--max-record-bytes` (a decompression bomb).
    DecodedTooLarge,
    /// A JSONL line is not a JSON object or lacks the configured fields.
    BadJson,
    /// A Parquet file or row group could not be read, or a row lacks the configured fields.
    BadParquet,
}

impl ProblemKind {
    /// Stable name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::Io => "io",
            ProblemKind::CorruptGzip => "corrupt-gzip",
            ProblemKind::TruncatedCompression => "truncated-compression",
            ProblemKind::CorruptZstd => "corrupt-zstd",
            ProblemKind::BadRecordStart => "bad-record-start",
            ProblemKind::BadHeader => "bad-header",
            ProblemKind::MissingHeader => "missing-header",
            ProblemKind::TruncatedRecord => "truncated-record",
            ProblemKind::LengthMismatch => "length-mismatch",
            ProblemKind::RecordTooLarge => "record-too-large",
            ProblemKind::BadHttp => "bad-http",
            ProblemKind::BadEncoding => "bad-encoding",
            ProblemKind::DecodedTooLarge => "decoded-too-large",
            ProblemKind::BadJson => "bad-json",
            ProblemKind::BadParquet => "bad-parquet",
        }
    }
}

impl std::fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One skipped record or unreadable stretch of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The input file.
    pub file: String,
    /// Byte offset in the decompressed stream (compressed offset for gzip member problems).
    pub offset: u64,
    /// Why.
    pub kind: ProblemKind,
    /// What was expected and what arrived.
    pub detail: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: offset {}: {}: {}",
            self.file, self.offset, self.kind, self.detail
        )
    }
}

/// A revisit record (WARC `revisit`): listed in the summary, never a page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Revisit {
    /// WARC-Target-URI.
    pub url: String,
    /// WARC-Date.
    pub date: String,
    /// WARC-Refers-To-Target-URI or WARC-Refers-To, when present.
    pub refers_to: String,
    /// Byte offset of the record in its (decompressed) input.
    pub offset: u64,
    /// WARC-Record-ID.
    pub record_id: String,
    /// WARC-Refers-To (the original's record id), when present.
    pub refers_to_record: String,
    /// WARC-Refers-To-Target-URI, when present.
    pub refers_to_target_uri: String,
    /// WARC-Refers-To-Date, when present.
    pub refers_to_date: String,
    /// WARC-Payload-Digest, when present.
    pub payload_digest: String,
    /// WARC-Profile.
    pub profile: String,
    /// WARC-Refers-To-Container (the package holding the original, as browsertrix-crawler
    /// writes it: `file://NAME.wacz`), when present.
    pub refers_to_container: String,
}

/// How many problems and revisits are kept as examples per input (all are counted; every
/// revisit with [`crate::ReadOptions::every_revisit`]).
pub const MAX_EXAMPLES: usize = 1000;

/// What a source saw, besides the pages it produced.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SourceStats {
    /// Records read (pages, skipped record types and malformed records).
    pub records: u64,
    /// Records by type (`response`, `request`, `warcinfo`, `metadata`, `revisit`, ...).
    pub by_record_type: BTreeMap<String, u64>,
    /// Records that became pages.
    pub pages: u64,
    /// Skipped records by reason.
    pub problems_by_kind: BTreeMap<ProblemKind, u64>,
    /// The first [`MAX_EXAMPLES`] problems.
    pub problems: Vec<Problem>,
    /// Revisit records, the first [`MAX_EXAMPLES`].
    pub revisits: Vec<Revisit>,
    /// Lenient decisions that kept or passed over a record without calling it malformed (e.g. a body
    /// marked chunked that was not, a response that is not HTTP).
    pub notes: BTreeMap<String, u64>,
}

impl SourceStats {
    /// Total problems counted.
    pub fn problem_count(&self) -> u64 {
        self.problems_by_kind.values().sum()
    }

    /// Counts a problem and keeps it as an example if there is room.
    pub fn problem(&mut self, p: Problem) {
        *self.problems_by_kind.entry(p.kind).or_default() += 1;
        if self.problems.len() < MAX_EXAMPLES {
            self.problems.push(p);
        }
    }

    /// Counts one record of a type.
    pub fn record_type(&mut self, t: &str) {
        self.records += 1;
        match self.by_record_type.get_mut(t) {
            Some(n) => *n += 1,
            None => {
                self.by_record_type.insert(t.to_string(), 1);
            }
        }
    }

    /// Counts a lenient decision.
    pub fn note(&mut self, what: &str) {
        *self.notes.entry(what.to_string()).or_default() += 1;
    }

    /// Adds another source's counts into this one.
    pub fn merge(&mut self, other: &SourceStats) {
        self.records += other.records;
        self.pages += other.pages;
        for (k, v) in &other.by_record_type {
            *self.by_record_type.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.problems_by_kind {
            *self.problems_by_kind.entry(*k).or_default() += v;
        }
        for (k, v) in &other.notes {
            *self.notes.entry(k.clone()).or_default() += v;
        }
        let room = MAX_EXAMPLES.saturating_sub(self.problems.len());
        self.problems
            .extend(other.problems.iter().take(room).cloned());
        let room = MAX_EXAMPLES.saturating_sub(self.revisits.len());
        self.revisits
            .extend(other.revisits.iter().take(room).cloned());
    }
}

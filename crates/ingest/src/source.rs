//! Sources of pages: the reader trait, options, errors and the per-input bookkeeping every
//! reader shares. A leaf: it knows no reader ([`crate::open`] does).

use crate::page::Page;
use crate::problem::{Problem, ProblemKind, SourceStats};
use std::path::{Path, PathBuf};

/// Field names to read from JSONL and Parquet records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldMap {
    /// The URL field (optional in the data: pages without it have no host).
    pub url: String,
    /// A field holding HTML (tokenized as HTML).
    pub html: String,
    /// A field holding plain text (used when the HTML field is absent).
    pub text: String,
    /// The user's id, carried through to every output.
    pub id: String,
}

impl FieldMap {
    /// Whether a column or key named `name` is one of the four fields read.
    pub fn reads(&self, name: &str) -> bool {
        [&self.url, &self.html, &self.text, &self.id]
            .iter()
            .any(|n| n.as_str() == name)
    }
}

impl Default for FieldMap {
    fn default() -> Self {
        FieldMap {
            url: "url".into(),
            html: "html".into(),
            text: "text".into(),
            id: "id".into(),
        }
    }
}

/// How inputs are read, shared by every reader of a run.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Records (or decoded bodies) larger than this are skipped and counted.
    pub max_record_bytes: u64,
    /// Turn the first malformed record into an error.
    pub strict: bool,
    /// Field names for JSONL/Parquet.
    pub fields: FieldMap,
    /// URL prefix for a folder of HTML files (`--base-url`).
    pub base_url: Option<String>,
    /// Keep every revisit record's headers, not only the first examples (an audit of a
    /// collection reads them all).
    pub every_revisit: bool,
    /// Threads that read one file's independent parts side by side: a gzip file's members (a
    /// `.warc.gz`), a Parquet file's row groups; 1 reads it on the reading thread alone. Runs
    /// set it from their thread count when they have fewer inputs than threads.
    pub file_threads: usize,
    /// Leave what can be decoded away from the reading thread undecoded: a JSONL record's line
    /// is handed out as it is ([`crate::Undecoded`]), for the thread that takes the page to
    /// decode with [`crate::decode`] (so a reader only finds records, and one large JSONL file
    /// is parsed on every core). Not with `strict`, whose first malformed record must stop the
    /// read in file order.
    pub defer_decoding: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_record_bytes: 64 * 1024 * 1024,
            strict: false,
            fields: FieldMap::default(),
            base_url: None,
            every_revisit: false,
            file_threads: 1,
            defer_decoding: false,
        }
    }
}

/// An input format. Detected from the path and the first bytes; can be forced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// WARC 1.0/1.1 (plain, gzip, zstd).
    Warc,
    /// ARC v1/v2 (plain, gzip).
    Arc,
    /// A folder of HTML files mapped to a URL prefix.
    HtmlDir,
    /// JSON lines (plain, gzip, zstd).
    Jsonl,
    /// Apache Parquet.
    Parquet,
}

impl Format {
    /// Stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Warc => "warc",
            Format::Arc => "arc",
            Format::HtmlDir => "html-dir",
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
        }
    }
}

/// Errors that stop reading an input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    /// Strict mode and a malformed record.
    #[error("malformed input (strict): {0}")]
    Malformed(Problem),
    /// The input cannot be opened.
    #[error("{path}: {source}")]
    Open {
        /// The input.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A host-to-IP file line that is not `host,ip`.
    #[error("{path}: line {line}: expected host,ip, got {got:?}")]
    HostsFile {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// What the line held.
        got: String,
    },
    /// The format could not be recognized.
    #[error("{path}: cannot tell the input format ({detail}); name the format")]
    UnknownFormat {
        /// The input.
        path: PathBuf,
        /// What was seen.
        detail: String,
    },
}

/// A stream of pages from one input.
pub trait PageSource: Send {
    /// Reads the next page into `page` (cleared first). `Ok(false)` at the end of the input.
    /// Malformed records are skipped and counted in [`PageSource::stats`], unless strict.
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError>;

    /// What was read so far besides pages.
    fn stats(&self) -> &SourceStats;

    /// Raw bytes of the input consumed so far (for progress).
    fn raw_position(&self) -> u64;
}

/// Per-input bookkeeping shared by the readers.
pub(crate) struct Ctx {
    pub file: String,
    pub source: u32,
    pub opts: ReadOptions,
    pub stats: SourceStats,
}

impl Ctx {
    pub fn new(path: &Path, source: u32, opts: &ReadOptions) -> Ctx {
        Ctx {
            file: path.display().to_string(),
            source,
            opts: opts.clone(),
            stats: SourceStats::default(),
        }
    }

    /// Counts a problem; an error in strict mode.
    pub fn problem(
        &mut self,
        offset: u64,
        kind: ProblemKind,
        detail: impl Into<String>,
    ) -> Result<(), IngestError> {
        let p = Problem {
            file: self.file.clone(),
            offset,
            kind,
            detail: detail.into(),
        };
        if self.opts.strict {
            self.stats.problem(p.clone());
            return Err(IngestError::Malformed(p));
        }
        self.stats.problem(p);
        Ok(())
    }
}

//! Sources of pages: the reader trait, options, errors and format detection.

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
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_record_bytes: 64 * 1024 * 1024,
            strict: false,
            fields: FieldMap::default(),
            base_url: None,
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

/// The format a file name says (`x.warc.gz`, `x.arc`, `x.jsonl.zst`, `x.parquet`), if any.
pub fn format_from_name(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let stem = [".gz", ".zst", ".zstd"]
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(&name);
    let (_, ext) = stem.rsplit_once('.')?;
    match ext {
        "warc" => Some(Format::Warc),
        "arc" => Some(Format::Arc),
        "jsonl" | "ndjson" | "json" => Some(Format::Jsonl),
        "parquet" | "pq" => Some(Format::Parquet),
        _ => None,
    }
}

/// Guesses the format of `path` from its name, then from its first bytes.
pub fn detect_format(path: &Path) -> Result<Format, IngestError> {
    if path.is_dir() {
        return Ok(Format::HtmlDir);
    }
    if let Some(f) = format_from_name(path) {
        return Ok(f);
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Sniff the content.
    let open_err = |source| IngestError::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut raw = [0u8; 4];
    {
        use std::io::Read;
        let mut f = std::fs::File::open(path).map_err(open_err)?;
        let n = f.read(&mut raw).map_err(open_err)?;
        if &raw[..n] == b"PAR1" {
            return Ok(Format::Parquet);
        }
    }
    let mut opened = crate::stream::open(path).map_err(open_err)?;
    let mut head = [0u8; 16];
    let mut n = 0;
    while n < head.len() {
        match opened.reader.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    let head = &head[..n];
    let trimmed = &head[head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len())..];
    if trimmed.starts_with(b"WARC/") {
        Ok(Format::Warc)
    } else if trimmed.starts_with(b"filedesc://") {
        Ok(Format::Arc)
    } else if trimmed.starts_with(b"{") {
        Ok(Format::Jsonl)
    } else {
        Err(IngestError::UnknownFormat {
            path: path.to_path_buf(),
            detail: format!(
                "name {name:?}, first bytes {:?}",
                crate::http::preview(head)
            ),
        })
    }
}

use std::io::Read as _;

/// Opens `path` as a page source of `format` (detected when `None`). `source` is the input's
/// index in the run, which becomes [`crate::PageId::source`].
pub fn open_source(
    path: &Path,
    format: Option<Format>,
    source: u32,
    opts: &ReadOptions,
) -> Result<Box<dyn PageSource>, IngestError> {
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let ctx = Ctx::new(path, source, opts);
    let open_err = |source| IngestError::Open {
        path: path.to_path_buf(),
        source,
    };
    Ok(match format {
        Format::Warc => Box::new(crate::warc::WarcReader::new(
            crate::stream::open(path).map_err(open_err)?,
            ctx,
        )),
        Format::Arc => Box::new(crate::arc::ArcReader::new(
            crate::stream::open(path).map_err(open_err)?,
            ctx,
        )),
        Format::Jsonl => Box::new(crate::jsonl::JsonlReader::new(
            crate::stream::open(path).map_err(open_err)?,
            ctx,
        )),
        Format::Parquet => Box::new(crate::parquet::ParquetReader::new(path, ctx)),
        Format::HtmlDir => {
            Box::new(crate::htmldir::HtmlDirReader::new(path, ctx).map_err(open_err)?)
        }
    })
}

/// Reads pages from bytes in memory (WARC, ARC or JSONL, compressed or not), e.g. for tests and
/// fuzzing. `name` is used in problem reports.
pub fn open_bytes(
    bytes: Vec<u8>,
    format: Format,
    name: &str,
    opts: &ReadOptions,
) -> Result<Box<dyn PageSource>, IngestError> {
    let ctx = Ctx::new(Path::new(name), 0, opts);
    let opened = crate::stream::open_read(std::io::Cursor::new(bytes)).map_err(|source| {
        IngestError::Open {
            path: PathBuf::from(name),
            source,
        }
    })?;
    Ok(match format {
        Format::Arc => Box::new(crate::arc::ArcReader::new(opened, ctx)),
        Format::Jsonl => Box::new(crate::jsonl::JsonlReader::new(opened, ctx)),
        _ => Box::new(crate::warc::WarcReader::new(opened, ctx)),
    })
}

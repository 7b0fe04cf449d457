//! The one error type of the engine: what stopped a job, with the values that explain it (file,
//! offset, expected, got). Front ends map it to their words (flag names, HTTP statuses).

use neardup_ingest::IngestError;
use neardup_report::ReportError;
use neardup_sketch::SketchParams;
use neardup_store::SigFileError;
use std::path::PathBuf;

/// Why a job stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input could not be read (or, in strict mode, held a malformed record).
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// A signature file could not be read or written.
    #[error(transparent)]
    SignatureFile(#[from] SigFileError),
    /// The persistent index could not be read or written.
    #[error(transparent)]
    Index(#[from] neardup_store::IndexError),
    /// A signature file was made with other parameters than the run's.
    #[error("{}: made with parameters {} but this run uses {}", path.display(), json(file), json(run))]
    ParamsMismatch {
        /// The signature file.
        path: PathBuf,
        /// Its parameters.
        file: Box<SketchParams>,
        /// The run's.
        run: Box<SketchParams>,
    },
    /// Exact verification asked for, but an input is a signature file (no shingle sets).
    #[error("{}: exact verification needs the crawl itself: signature files hold no shingle sets", path.display())]
    SignaturesCannotVerify {
        /// The signature file.
        path: PathBuf,
    },
    /// A setting out of range, or settings that do not go together.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// Signature parameters out of range.
    #[error(transparent)]
    Params(#[from] neardup_sketch::ParamsError),
    /// A dedup configuration that does not fit the signature parameters.
    #[error(transparent)]
    Config(#[from] neardup_dedup::ConfigError),
    /// A chunking that is not one.
    #[error(transparent)]
    Chunking(#[from] neardup_overlap::ChunkingError),
    /// An output could not be written, or a table could not be read.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A table given as input lacks what the job needs.
    #[error("{}: {what}", path.display())]
    BadTable {
        /// The file.
        path: PathBuf,
        /// What is missing or wrong.
        what: String,
    },
    /// Worker or reader threads could not be started.
    #[error("cannot start {wanted} threads: {source}")]
    Threads {
        /// Threads asked for (workers and readers).
        wanted: usize,
        /// What the system said.
        source: std::io::Error,
    },
    /// No page was read: every input was empty, or every record was skipped.
    #[error(
        "no page read from {inputs} input(s): {records} record(s), {skipped} skipped{reasons}"
    )]
    NothingRead {
        /// Inputs.
        inputs: usize,
        /// Records seen.
        records: u64,
        /// Records skipped.
        skipped: u64,
        /// The top reasons, `; reason (count), ...`, empty when none.
        reasons: String,
    },
    /// The caller asked the job to stop ([`crate::Progress::cancelled`]).
    #[error("cancelled")]
    Cancelled,
    /// A page asked for by URL is not among the run's pages.
    #[error(
        "no page with URL {url} among the {pages} pages sketched (redirect stubs, error pages, \
         pages without terms and other content types are not sketched; see summary.json's \
         not_pages)"
    )]
    PageNotFound {
        /// The URL asked for.
        url: String,
        /// Pages the run sketched.
        pages: u64,
    },
    /// Scratch files (external sorting) could not be written or read.
    #[error("{}: {source}", path.display())]
    Scratch {
        /// The scratch folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl Error {
    /// True for settings that cannot run (out of range, or not together): the caller's mistake,
    /// found before any input is read.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Settings(_) | Error::Params(_) | Error::Config(_) | Error::Chunking(_)
        )
    }

    /// True when the job stopped at a malformed record because strict mode was asked for.
    pub fn is_strict_stop(&self) -> bool {
        matches!(self, Error::Ingest(IngestError::Malformed(_)))
    }
}

fn json(p: &SketchParams) -> String {
    serde_json::to_string(p).unwrap_or_else(|_| format!("{p:?}"))
}

/// A setting that cannot be: `setting` (a field of the job's options, `snake_case`) had `value`
/// where `expected` holds.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{setting} {value}: expected {expected}")]
pub struct SettingsError {
    /// The option's name.
    pub setting: &'static str,
    /// What it was.
    pub value: String,
    /// What it must be.
    pub expected: String,
}

impl SettingsError {
    /// A setting error.
    pub fn new(
        setting: &'static str,
        value: impl std::fmt::Display,
        expected: impl Into<String>,
    ) -> SettingsError {
        SettingsError {
            setting,
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}

//! The persistent index (work in progress, issue 18): a folder holding immutable, sorted,
//! checksummed segment files and a manifest naming the live ones.
//!
//! ```text
//! DIR/LOCK                 held (flock) by the one writer; readers never take it
//! DIR/MANIFEST             the live segments and the index's parameters, replaced atomically
//! DIR/seg-<gen>.keys       candidate keys -> page ids, sorted ([`segment`])
//! DIR/seg-<gen>.pages      page id -> facts, minvalues, small shingle sets ([`catalog`])
//! DIR/seg-<gen>.titles     per host: pages, and pages per title segment ([`titles`])
//! DIR/seg-<gen>.links      accepted pairs recorded by dedup runs ([`segment`]'s format)
//! ```
//!
//! A change is: write new segment files (fsynced), then write `MANIFEST.tmp`, fsync it, rename
//! it over `MANIFEST` and fsync the folder. A crash before the rename leaves the old manifest
//! and some unreferenced segment files (removed by the next writer); after it, the new state.
//! Readers load the manifest once and keep reading the segments it names (immutable; an
//! unlinked file stays readable while open), so they see one consistent snapshot.

/// Version of the index format (2: key segments also hold every page's URL key; 3: catalog
/// records hold the title's segments, `.titles` segments count them per host, the matching
/// holds the title rule).
pub const INDEX_VERSION: u32 = 3;

pub mod catalog;
pub mod lock;
pub mod manifest;
pub mod segment;
pub mod titles;

mod fsutil;

pub use crate::catalog::{CatalogPage, CatalogReader, CatalogWriter};
pub use crate::lock::WriterLock;
pub use crate::manifest::{Manifest, Matching, SegmentEntry, SegmentKind};
pub use crate::segment::{Entries, KeySegmentReader, KeySegmentWriter};
pub use crate::titles::{title_count_key, TitleCounter, TitleCounts};

/// Why an index operation failed: what, where (file and byte offset), and what was expected.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// An I/O error on a file of the index.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file of the index is damaged or not what it claims to be.
    #[error("{}: at byte {offset}: {what}", path.display())]
    Damaged {
        /// The file.
        path: std::path::PathBuf,
        /// Where the problem was found.
        offset: u64,
        /// What was found instead of what was expected.
        what: String,
    },
    /// `create` was asked for a folder that already holds an index.
    #[error("{}: an index already exists here; add to it, or create the new one in another folder", path.display())]
    Exists {
        /// The existing manifest.
        path: std::path::PathBuf,
    },
    /// Another process holds the writer lock.
    #[error("{}: another process is writing to this index (its lock is held); wait for it to finish", path.display())]
    Locked {
        /// The lock file.
        path: std::path::PathBuf,
    },
    /// The index was made with other parameters than the run's.
    #[error("the index was made with {index} but this run uses {run}; use the index's parameters or another index")]
    ParamsMismatch {
        /// The index's parameters (JSON).
        index: String,
        /// The run's parameters (JSON).
        run: String,
    },
}

impl IndexError {
    /// [`IndexError::Damaged`] for `path` at byte `offset`.
    pub fn damaged(path: &std::path::Path, offset: u64, what: impl Into<String>) -> IndexError {
        IndexError::Damaged {
            path: path.to_path_buf(),
            offset,
            what: what.into(),
        }
    }

    /// [`IndexError::Io`] for `path`.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> IndexError {
        IndexError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

pub(crate) fn io_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> IndexError + '_ {
    move |source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    }
}

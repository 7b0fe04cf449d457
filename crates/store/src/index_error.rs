//! The error of the persistent index's files (`neardup-index`), here so that the pipeline's
//! error, which the index's operations return, can carry it without depending on the index.

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
    /// `create` was asked for a folder that holds other files: an index needs a folder of its
    /// own (its writers clean up their own temporary files in it).
    #[error("{}: the folder holds {count} file(s) that are no index (such as {first:?}); create the index in a new or empty folder", path.display())]
    NotEmpty {
        /// The folder.
        path: std::path::PathBuf,
        /// How many entries it holds.
        count: usize,
        /// The first of them, by name.
        first: String,
    },
    /// The folder holds no index (no manifest).
    #[error("{}: no index here (no MANIFEST); create one first (`neardup index create`)", path.display())]
    Missing {
        /// The folder.
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
    /// An add was given a file the index records as added before (same size and XXH3-128).
    #[error("{input}: already added to this index (as {earlier}, under the label {label:?}, generation {generation}); nothing was added")]
    AlreadyAdded {
        /// The input as given.
        input: String,
        /// The name it was added under before.
        earlier: String,
        /// The crawl label it was added under.
        label: String,
        /// The generation that made it live.
        generation: u64,
    },
    /// A set of shards that cannot be read as one index, or an operation a shard set does
    /// not run.
    #[error("{}: {what}", path.display())]
    Shards {
        /// The shard set's folder (or the shard concerned).
        path: std::path::PathBuf,
        /// What is wrong.
        what: String,
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

//! The page pipeline under every job: reader threads decode inputs (crawl files and folders,
//! signature files, or [`Input::pages`] already in memory) into batches, worker threads
//! tokenize each page and hand it to a [`Visitor`] ([`stream`]); the sketching visitor turns
//! pages into signatures ([`sketching`], [`load`]), with the boilerplate filter ([`boilerplate`])
//! and the rule for what is not a page ([`pages`]). Errors are [`Error`], carrying the values
//! (file, offset, setting, expected, got) for a front end to word.
//!
//! The jobs (`neardup-engine`) and the persistent index (`neardup-index`) are built on it.

pub mod boilerplate;
pub mod inputs;
pub mod load;
pub mod pages;
pub mod sketching;
pub mod stream;

mod decode;
mod error;

pub use crate::error::{Error, SettingsError};

/// Runs `job` with `threads` threads for its parallel steps (candidates, scoring, clustering,
/// rows, lookups): a job given one thread uses one core after reading too, so `-j` bounds the
/// whole run and its scaling can be measured. Where no pool can be made (threads cannot be
/// spawned), the job runs on the shared pool.
pub fn on_threads<R: Send>(threads: usize, job: impl FnOnce() -> R + Send) -> R {
    match thread_pool(threads) {
        Some(pool) => pool.install(job),
        None => job(),
    }
}

/// The pool [`on_threads`] runs a job on, for a caller that runs many jobs on it (`None`
/// where threads cannot be spawned: run on the shared pool).
pub fn thread_pool(threads: usize) -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("neardup-step-{i}"))
        .build()
        .ok()
}
pub use crate::inputs::{expand, Expanded};
pub use crate::stream::{run, Input, PipelineConfig, RunOutput, Skipped, SourceReport, Visitor};

/// Receives progress from a job: each pass over the inputs begins, moves (raw input bytes
/// consumed so far, over all inputs) and ends.
pub trait Progress: Sync {
    /// A pass over inputs of `total_bytes` raw bytes begins.
    fn begin(&self, _total_bytes: u64) {}
    /// Called by the reading thread after each batch.
    fn position(&self, raw_bytes: u64);
    /// The pass ended.
    fn end(&self) {}
    /// Something the user should know that does not stop the job (an input given twice).
    fn warning(&self, _message: &str) {}
    /// Whether the caller asked the job to stop (a Ctrl-C in Python): readers look after each
    /// batch and the job ends with [`Error::Cancelled`], having made nothing visible.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn position(&self, _raw_bytes: u64) {}
}

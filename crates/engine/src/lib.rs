//! The library API that runs neardup's stages over crawls: a parallel page pipeline with
//! bounded memory ([`pipeline::run`]) and the stages built on it: [`scan`], sketching a crawl
//! into a [`neardup_store::Corpus`], and [`dedup`].
//!
//! No command-line parsing and no output formatting live here: front ends build the configs,
//! pass a [`Progress`], and render the results.

pub mod boilerplate;
pub mod clusters;
pub mod overlap;
pub mod pipeline;
pub mod scan;
pub mod sketch;
pub mod sketching;

pub mod dedup;
pub mod eval;
pub mod evolve;
pub mod mirrors;
pub mod replicas;

mod error;
pub mod load;

pub use crate::error::{Error, SettingsError};
pub use crate::pipeline::{run, Input, PipelineConfig, RunOutput, SourceReport, Visitor};

/// Receives progress from a job: each pass over the inputs begins, moves (raw input bytes
/// consumed so far, over all inputs) and ends.
pub trait Progress: Sync {
    /// A pass over inputs of `total_bytes` raw bytes begins.
    fn begin(&self, _total_bytes: u64) {}
    /// Called from reader threads after each batch.
    fn position(&self, raw_bytes: u64);
    /// The pass ended.
    fn end(&self) {}
}

/// A [`Progress`] that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn position(&self, _raw_bytes: u64) {}
}

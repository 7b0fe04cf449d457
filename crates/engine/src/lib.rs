//! The library API that runs neardup's stages over crawls: a parallel page pipeline with
//! bounded memory ([`pipeline::run`]) and the stages built on it: [`scan`], sketching a crawl
//! into a [`neardup_store::Corpus`], and [`dedup`].
//!
//! No command-line parsing and no output formatting live here: front ends build the configs,
//! pass a [`Progress`], and render the results.

pub mod boilerplate;
pub mod overlap;
pub mod pipeline;
pub mod scan;
pub mod sketching;

pub mod dedup;
pub mod evolve;
pub mod mirrors;
pub mod replicas;

pub use crate::pipeline::{
    run, EngineError, Input, PipelineConfig, RunOutput, SourceReport, Visitor,
};

/// Receives progress from a run (raw input bytes consumed so far, over all inputs).
pub trait Progress: Sync {
    /// Called from reader threads after each batch.
    fn position(&self, raw_bytes: u64);
}

/// A [`Progress`] that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn position(&self, _raw_bytes: u64) {}
}

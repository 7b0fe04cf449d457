//! neardup's library API: the one engine under every front end (the CLI today; the index,
//! the HTTP service, the Python package and the Spark job next). Every job has the same shape:
//! options built once and validated into settings, inputs (crawl files and folders, signature
//! files, or [`Input::pages`] already in memory), a [`Progress`], and a typed, serializable
//! report holding every table and summary statistic:
//!
//! | job | settings | report |
//! |---|---|---|
//! | [`scan::run`] | [`PipelineConfig`] | [`scan::ScanReport`] |
//! | [`sketch::run`] | [`PipelineConfig`], [`neardup_sketch::SketchParams`] | a signature file, [`sketch::SketchReport`] |
//! | [`dedup::run`] | [`dedup::DedupSettings`] | [`dedup::DedupReport`] |
//! | [`overlap::run`] | [`overlap::OverlapSettings`] | [`overlap::OverlapReport`] |
//! | [`mirrors::run`] | [`mirrors::MirrorsSettings`] | [`mirrors::MirrorsReport`] |
//! | [`replicas::run`] | [`replicas::ReplicasSettings`] | [`replicas::ReplicasReport`] |
//! | [`evolve::run`] | [`evolve::EvolveSettings`] | [`evolve::EvolveJobReport`] |
//! | [`eval::pairs::run`], [`eval::sites::run`] | [`eval::pairs::PairEvalOptions`], paths | [`eval::pairs::PairEval`], [`eval::sites::SiteEval`] |
//!
//! Every row type implements [`neardup_report::Table`], so a front end writes any of them with
//! [`neardup_report::TableWriter`] and reads them back with [`neardup_report::read_rows`]. No
//! command-line parsing and no rendering live here; errors are [`Error`], carrying the values
//! (file, offset, setting, expected, got) for the front end to word.
//!
//! Deduplicating a few pages in memory, without touching the file system:
//! ```
//! use neardup_engine::dedup::{self, DedupOptions, DedupSettings};
//! use neardup_engine::{Input, NoProgress};
//! use neardup_ingest::Page;
//!
//! // A page of 400 words, a copy with one word changed, and an unrelated page.
//! let words: Vec<String> = (0..400).map(|i| format!("w{}", i * 7919 % 1000)).collect();
//! let page = words.join(" ");
//! let copy = page.replacen("w919", "changed", 1);
//! let pages = vec![
//!     Page::text("https://a.example/story", page).with_id("a"),
//!     Page::text("https://b.example/story", copy).with_id("b"),
//!     Page::text("https://c.example/other", "an entirely different page about rust").with_id("c"),
//! ];
//! let settings = DedupSettings::new(DedupOptions::default()).unwrap();
//! let report = dedup::run(&[Input::pages("mem", pages)], &settings, &NoProgress).unwrap();
//! assert_eq!(report.summary.counts.clusters, 1);
//! let removed = &report.tables.remove[0];
//! assert_eq!((removed.id.as_str(), removed.kept_id.as_str()), ("b", "a"));
//! assert!(removed.estimated_jaccard > 0.5); // the evidence travels with the row
//! ```

pub mod boilerplate;
pub mod clusters;
pub mod overlap;
pub mod pages;
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
pub mod index;
pub mod load;

pub use crate::error::{Error, SettingsError};
pub use crate::pipeline::{run, Input, PipelineConfig, RunOutput, Skipped, SourceReport, Visitor};

/// Receives progress from a job: each pass over the inputs begins, moves (raw input bytes
/// consumed so far, over all inputs) and ends.
pub trait Progress: Sync {
    /// A pass over inputs of `total_bytes` raw bytes begins.
    fn begin(&self, _total_bytes: u64) {}
    /// Called from reader threads after each batch.
    fn position(&self, raw_bytes: u64);
    /// The pass ended.
    fn end(&self) {}
    /// Something the user should know that does not stop the job (an input given twice).
    fn warning(&self, _message: &str) {}
}

/// A [`Progress`] that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn position(&self, _raw_bytes: u64) {}
}

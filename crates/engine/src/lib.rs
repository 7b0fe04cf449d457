//! neardup's jobs, under every front end (the CLI, the Python package, the Spark job); the
//! page pipeline they run on is `neardup-pipeline` (re-exported here) and the persistent index
//! is `neardup-index` (`neardup_index::Index`). Every job has the same shape:
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

pub mod audit;
pub mod changes;
pub mod clusters;
pub mod overlap;
pub mod scan;
pub mod sketch;

pub mod dedup;
pub mod eval;
pub mod evolve;
pub mod mirrors;
pub mod packages;
pub mod replicas;

pub use neardup_pipeline::{
    boilerplate, load, on_threads, pages, sketching, stream as pipeline, Error, NoProgress,
    Progress, SettingsError,
};
pub use neardup_pipeline::{
    expand, run, Expanded, Input, PipelineConfig, RunOutput, Skipped, SourceReport, Visitor,
};

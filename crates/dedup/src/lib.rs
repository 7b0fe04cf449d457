//! Near-duplicate matching over a [`neardup_store::Corpus`]: identity sets, candidate pairs
//! from one of the methods (supershingle combinations, LSH bands, permuted simhash tables, the
//! combined and split algorithms, a k-d tree over random projections and hyperlink maps), the
//! evidence of every pair, and clusters.
//!
//! Each method is a module under `method/` behind a private trait; [`Matching`] names them.

mod config;
mod evidence;
mod method;
pub mod rphm;
mod run;

pub use crate::config::{ClusterMode, ConfigError, DedupConfig, Matching, SiteRule};
pub use crate::evidence::{accepts, score, Evidence, Rule};
pub use crate::run::{dedup, Cluster, DedupCounts, DedupResult, Pair};

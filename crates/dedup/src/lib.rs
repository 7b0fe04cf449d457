//! Near-duplicate matching over a [`neardup_store::Corpus`]: identity sets, candidate pairs
//! (supershingle combinations, LSH bands, permuted simhash tables, a k-d tree over random
//! projections and hyperlink maps), the evidence of every pair, and clusters.

mod dedup;
pub mod rphm;

pub use crate::dedup::*;

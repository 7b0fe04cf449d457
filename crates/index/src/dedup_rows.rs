//! What `dedup --index` takes and gives: its options, its summary and its rows.

use neardup_dedup::Rule;
use neardup_pipeline::PipelineConfig;
use neardup_report::Table;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What a dedup against an index does.
#[derive(Clone, Debug)]
pub struct IndexDedupOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Add the new pages (and the pairs found) under this crawl label; `None`: only report.
    pub add: Option<String>,
    /// Bytes of pages, keys and pairs held in memory at most (about; the read batches and
    /// 20 bytes per page id of the union-find, cluster counts and identity sets come on top).
    pub mem_limit: usize,
    /// Where a run that adds nothing writes its pages' segments and sort runs (a private
    /// subfolder, removed when done); a run that adds writes them in the index folder.
    pub tmp_dir: PathBuf,
    /// When adding, read files the index records as added before (otherwise refused).
    pub again: bool,
    /// When adding, the segments merged once the add has committed, as `index add` does
    /// ([`crate::MergePolicy::ADD`] unless changed).
    pub merge: crate::MergePolicy,
}

impl IndexDedupOptions {
    /// Reads with `pipeline`, adds under `add` when given, within
    /// [`crate::DEFAULT_MEM_LIMIT`], temporary files in the system's temporary folder.
    pub fn new(pipeline: PipelineConfig, add: Option<String>) -> IndexDedupOptions {
        IndexDedupOptions {
            pipeline,
            add,
            mem_limit: crate::DEFAULT_MEM_LIMIT,
            tmp_dir: std::env::temp_dir(),
            again: false,
            merge: crate::MergePolicy::ADD,
        }
    }
}

/// The summary of a dedup against an index.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IndexDedupSummary {
    /// Pages of the inputs (sketched), less those held when adding.
    pub pages: u64,
    /// Pages the index held before the run.
    pub index_pages: u64,
    /// New pages matching at least one indexed page.
    pub duplicates_of_index: u64,
    /// New pages in a cluster (with indexed pages or other new pages).
    pub pages_in_clusters: u64,
    /// New pages to drop: in a cluster whose first page is another one.
    pub pages_to_remove: u64,
    /// Clusters holding at least one new page.
    pub clusters: u64,
    /// Candidate pairs scored (distinct).
    pub candidate_pairs: u64,
    /// Accepted pairs of a new page and an indexed page.
    pub pairs_with_index: u64,
    /// Accepted pairs of two new pages (each with the first and the previous new page under
    /// a shared key).
    pub pairs_within_run: u64,
    /// Runs of pages spilled to disk to keep them in input order (0: they fitted).
    pub page_runs: usize,
    /// Records the readers skipped (file, offset, reason).
    pub skipped: neardup_pipeline::Skipped,
    /// The matching, in words.
    pub matching: String,
    /// What the add did, when asked.
    pub added: Option<AddedSummary>,
    /// The inputs are files the index records as added under the run's `add` label: the run
    /// that added them committed (its outputs landed before it did), so nothing was done; the
    /// generation that added the last of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub already_added: Option<u64>,
    /// Seconds: read and sketch (with writing the pages' segments), candidates, verify,
    /// cluster, rows, add.
    pub seconds: Vec<(String, f64)>,
}

/// What the add of a dedup run did.
#[derive(Clone, Debug, Serialize)]
pub struct AddedSummary {
    /// Pages added.
    pub pages: u64,
    /// Pages of the inputs the index (or the run) already held as the same record: not
    /// added, and not deduplicated again.
    pub held: u64,
    /// Pages whose repeats within the run were not looked for (past its memory).
    pub untracked: u64,
    /// Their ids start here.
    pub first_id: u64,
    /// The manifest generation now live.
    pub generation: u64,
    /// The crawl label.
    pub label: String,
    /// The merge run after the add committed ([`IndexDedupOptions::merge`]), when one was
    /// due: its own commit, after the outputs landed (so not in them).
    #[serde(skip)]
    pub merged: Option<crate::MaintainReport>,
    /// Why that merge failed, if it did: the add stays committed, its segments as written.
    #[serde(skip)]
    pub merge_error: Option<String>,
}

/// A row of `clusters` for a dedup against an index: a page of a cluster holding a new page,
/// indexed or new, with the cluster's first page and (for a new page) its best match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexDedupRow {
    /// The page's index id (a new page's is the id it gets when added).
    pub page: u64,
    /// URL.
    pub url: String,
    /// The caller's id or WARC-Record-ID.
    pub id: String,
    /// Fetch date.
    pub date: String,
    /// Its crawl label (a new page: the add's label, empty when not added).
    pub label: String,
    /// A page of this run.
    pub new: bool,
    /// The cluster: its first page's index id.
    pub cluster: u64,
    /// Pages in the cluster (indexed and new).
    pub cluster_size: u64,
    /// This page is the cluster's first (kept) page.
    pub canonical: bool,
    /// The first page's URL.
    pub canonical_url: String,
    /// Its id.
    pub canonical_id: String,
    /// Its crawl label.
    pub canonical_label: String,
    /// A new page's best match (highest Jaccard; an indexed page before one of this run).
    pub match_page: Option<u64>,
    /// Its URL.
    pub match_url: Option<String>,
    /// Its crawl label (this run's for a page of the run).
    pub match_label: Option<String>,
    /// Which rule matched.
    pub rule: Option<Rule>,
    /// Share of agreeing minvalues.
    pub estimated_jaccard: Option<f64>,
    /// Exact Jaccard when both pages kept their shingle sets.
    pub exact_jaccard: Option<f64>,
    /// Estimated share of the smaller page found in the larger.
    pub containment: Option<f64>,
}

impl Table for IndexDedupRow {
    const NAME: &'static str = "clusters";
}

//! [`Index`]: one handle on an index folder, opened once, through which every front end (the
//! CLI, the service, the Python package and the Spark job) reaches the index, in the manner of
//! tantivy's `Index`: it makes the [`Writer`], [`Snapshot`]s and [`Lookup`]s, and runs the
//! index's jobs (add, query, digests, out-of-core dedup, stats, check, remove, compact).

use crate::dedup_rows::{IndexDedupOptions, IndexDedupRow, IndexDedupSummary};
use crate::parts::PartsAdd;
use crate::{
    AddOptions, AddReport, CheckReport, DigestRow, MaintainReport, QueryOptions, QueryRow,
    QuerySummary, StatsReport,
};
use crate::{IndexError, Lookup, Manifest, Snapshot, Writer};
use neardup_dedup::DedupRequest;
use neardup_pipeline::{Error, Input, PipelineConfig, Progress};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An index folder: checked to hold an index when opened; every operation reads the manifest
/// live at the time, so a handle stays valid while other processes add to the index.
#[derive(Clone, Debug)]
pub struct Index {
    dir: PathBuf,
    cache: u64,
}

impl Index {
    /// Creates an empty index in `dir` (made if missing; refused if it holds an index) with
    /// the request's settings, resolved by [`DedupRequest::resolve`]; settings an index cannot
    /// run (other matchings, keep rules, verification) are refused by name; its pages kept
    /// as `storage` says ([`crate::Storage::new`]).
    pub fn create(
        dir: &Path,
        request: &DedupRequest,
        storage: crate::Storage,
    ) -> Result<Index, Error> {
        crate::ops::create(dir, request, storage)?;
        Ok(Index::at(dir))
    }

    /// Opens the index in `dir`: refused, saying so, when the folder holds none or its manifest
    /// is damaged or of another version.
    pub fn open(dir: &Path) -> Result<Index, Error> {
        if !Manifest::path(dir).exists() {
            return Err(IndexError::Missing {
                path: dir.to_path_buf(),
            }
            .into());
        }
        Manifest::open(dir)?;
        Ok(Index::at(dir))
    }

    fn at(dir: &Path) -> Index {
        Index {
            dir: dir.to_path_buf(),
            cache: 0,
        }
    }

    /// Snapshots (and the writer's) read segments whole into memory while their sizes add up
    /// to `bytes` at most ([`Snapshot::open_cached`]): for a service whose index fits.
    pub fn with_cache(mut self, bytes: u64) -> Index {
        self.cache = bytes;
        self
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest live now.
    pub fn manifest(&self) -> Result<Manifest, Error> {
        Ok(Manifest::open(&self.dir)?)
    }

    /// A consistent view of everything committed now; it stays valid (and unchanged) while
    /// the index changes.
    pub fn snapshot(&self) -> Result<Snapshot, Error> {
        Ok(match self.cache {
            0 => Snapshot::open(&self.dir)?,
            c => Snapshot::open_cached(&self.dir, c)?,
        })
    }

    /// The one writer (takes the folder's lock; refused while another process holds it).
    pub fn writer(&self) -> Result<Writer, Error> {
        Writer::open_cached(&self.dir, self.cache)
    }

    /// A lookup (sketch one page, find its matches) on a snapshot taken now.
    pub fn lookup(&self, pipeline: &PipelineConfig) -> Result<Lookup, Error> {
        Ok(Lookup::new(Arc::new(self.snapshot()?), pipeline))
    }

    /// Adds the pages of `inputs` under a crawl label, all or nothing.
    pub fn add(
        &self,
        inputs: &[Input],
        opts: &AddOptions,
        progress: &dyn Progress,
    ) -> Result<AddReport, Error> {
        crate::add::add(&self.dir, inputs, opts, progress)
    }

    /// An add whose pages are sketched elsewhere (Spark executors) and committed here.
    pub fn parts_add(&self) -> Result<PartsAdd, Error> {
        PartsAdd::begin(&self.dir)
    }

    /// Each page of `inputs` against everything added: `on_row` gets each match of a page,
    /// with the page's record (its input and ordinal, for the caller's own row), in input
    /// order.
    pub fn query(
        &self,
        inputs: &[Input],
        opts: &QueryOptions,
        progress: &dyn Progress,
        on_row: impl FnMut(neardup_ingest::PageId, QueryRow) -> Result<(), Error>,
    ) -> Result<QuerySummary, Error> {
        crate::ops::query(&self.dir, inputs, opts, progress, on_row)
    }

    /// The held captures of each payload digest.
    pub fn digests(&self, digests: &[String]) -> Result<Vec<DigestRow>, Error> {
        crate::ops::lookup_digests(&self.dir, digests)
    }

    /// Deduplicates `inputs` against the index out of core, one row per new page
    /// (the steps are `crates/index/src/dedup.rs`). `land` gets the summary once every row
    /// is given and before an add (`opts.add`) is committed: a front end writes its outputs
    /// there, so that they land before the index holds the add. A run whose inputs are files
    /// the index records as added under `opts.add` (a rerun after its add committed) does
    /// nothing and calls neither (`already_added`).
    pub fn dedup(
        &self,
        inputs: &[Input],
        opts: &IndexDedupOptions,
        progress: &dyn Progress,
        on_row: impl FnMut(IndexDedupRow) -> Result<(), Error>,
        land: impl FnOnce(&IndexDedupSummary) -> Result<(), Error>,
    ) -> Result<IndexDedupSummary, Error> {
        crate::dedup::dedup(&self.dir, inputs, opts, progress, on_row, land)
    }

    /// Pages, keys and bytes, per crawl.
    pub fn stats(&self) -> Result<StatsReport, Error> {
        crate::maintain::stats(&self.dir)
    }

    /// Reads every segment whole and checks its checksum and counts against the manifest.
    pub fn check(&self) -> Result<CheckReport, Error> {
        crate::maintain::check(&self.dir)
    }

    /// Removes the crawl added under `label`.
    pub fn remove(&self, label: &str) -> Result<MaintainReport, Error> {
        crate::maintain::remove(&self.dir, label)
    }

    /// Merges every segment of a kind into one, dropping what removed crawls left.
    pub fn compact(&self) -> Result<MaintainReport, Error> {
        crate::maintain::compact(&self.dir)
    }
}

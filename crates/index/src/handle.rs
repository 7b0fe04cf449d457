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
/// live at the time, so a handle stays valid while other processes add to the index. The
/// folder may hold a set of shards ([`crate::shards`]): snapshots, lookups, queries, digests
/// and adds read and write it as one index.
#[derive(Clone, Debug)]
pub struct Index {
    dir: PathBuf,
    cache: u64,
    /// The shards' folders, when the folder holds a set of shards.
    shards: Option<Vec<PathBuf>>,
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

    /// Creates a set of shards in `dir` ([`crate::shards`]): an empty index with the request's
    /// settings in each of `shards` (folders relative to `dir`, or absolute; new or empty),
    /// then the set's file naming them.
    pub fn create_sharded(
        dir: &Path,
        shards: &[PathBuf],
        request: &DedupRequest,
        storage: crate::Storage,
    ) -> Result<Index, Error> {
        crate::shards::create(dir, shards, |shard| {
            crate::ops::create(shard, request, storage).map(drop)
        })?;
        Index::open(dir)
    }

    /// Opens the index (or set of shards) in `dir`: refused, saying so, when the folder holds
    /// none or its manifest is damaged or of another version.
    pub fn open(dir: &Path) -> Result<Index, Error> {
        if crate::shards::is_set(dir) {
            let shards = crate::shards::open(dir)?;
            crate::shards::manifest(dir, &shards)?;
            return Ok(Index {
                shards: Some(shards),
                ..Index::at(dir)
            });
        }
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
            shards: None,
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

    /// The shards' folders, when the folder holds a set of shards.
    pub fn shards(&self) -> Option<&[PathBuf]> {
        self.shards.as_deref()
    }

    /// The manifest live now (a set's: [`crate::shards`]).
    pub fn manifest(&self) -> Result<Manifest, Error> {
        Ok(match &self.shards {
            Some(shards) => crate::shards::manifest(&self.dir, shards)?,
            None => Manifest::open(&self.dir)?,
        })
    }

    /// A consistent view of everything committed now; it stays valid (and unchanged) while
    /// the index changes.
    pub fn snapshot(&self) -> Result<Snapshot, Error> {
        self.snapshot_cached(self.cache)
    }

    /// [`Index::snapshot`] holding up to `cache` bytes of segments in memory.
    fn snapshot_cached(&self, cache: u64) -> Result<Snapshot, Error> {
        Ok(match (&self.shards, cache) {
            (Some(shards), c) => crate::shards::snapshot(&self.dir, shards, c)?,
            (None, 0) => Snapshot::open(&self.dir)?,
            (None, c) => Snapshot::open_cached(&self.dir, c)?,
        })
    }

    /// The snapshot of `manifest` (newer than `now`'s, read from [`Index::manifest`]),
    /// sharing `now`'s open segments that both name (a set of shards is opened again).
    pub fn refreshed(&self, now: &Snapshot, manifest: Manifest) -> Result<Snapshot, Error> {
        match &self.shards {
            Some(_) => self.snapshot(),
            None => Ok(now.refreshed(&self.dir, manifest)?),
        }
    }

    /// Refuses, by name, what a set of shards does not run yet.
    fn one_index(&self, what: &str) -> Result<(), Error> {
        match self.shards {
            Some(_) => Err(crate::shards::not_for_sets(&self.dir, what)),
            None => Ok(()),
        }
    }

    /// The one writer (takes the folder's lock; refused while another process holds it).
    pub fn writer(&self) -> Result<Writer, Error> {
        self.one_index("a long-lived writer (adds page by page)")?;
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
        match &self.shards {
            Some(shards) => crate::shards::add(&self.dir, shards, inputs, opts, progress),
            None => crate::add::add(&self.dir, inputs, opts, progress),
        }
    }

    /// An add whose pages are sketched elsewhere (Spark executors) and committed here.
    pub fn parts_add(&self) -> Result<PartsAdd, Error> {
        self.one_index("an add in parts")?;
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
        let snap = self.snapshot_cached(opts.mem_limit as u64 / 2)?;
        crate::ops::query(&snap, inputs, opts, progress, on_row)
    }

    /// The held captures of each payload digest.
    pub fn digests(&self, digests: &[String]) -> Result<Vec<DigestRow>, Error> {
        crate::ops::digest_rows(&self.snapshot_cached(0)?, digests)
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
        self.one_index("dedup against an index")?;
        crate::dedup::dedup(&self.dir, inputs, opts, progress, on_row, land)
    }

    /// Pages, keys and bytes, per crawl.
    pub fn stats(&self) -> Result<StatsReport, Error> {
        crate::maintain::stats(&self.manifest()?)
    }

    /// Reads every segment whole and checks its checksum and counts against the manifest.
    pub fn check(&self) -> Result<CheckReport, Error> {
        match &self.shards {
            Some(shards) => crate::shards::check(&self.dir, shards),
            None => crate::maintain::check(&self.dir),
        }
    }

    /// Removes the crawl added under `label`.
    pub fn remove(&self, label: &str) -> Result<MaintainReport, Error> {
        match &self.shards {
            Some(shards) => crate::shards::remove(&self.dir, shards, label),
            None => crate::maintain::remove(&self.dir, label),
        }
    }

    /// Merges every segment of a kind into one, dropping what removed crawls left.
    pub fn compact(&self) -> Result<MaintainReport, Error> {
        match &self.shards {
            Some(shards) => crate::shards::compact(&self.dir, shards),
            None => crate::maintain::compact(&self.dir),
        }
    }
}

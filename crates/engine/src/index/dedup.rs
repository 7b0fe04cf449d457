//! `dedup --index`: new pages against an index and among themselves, clustered with every
//! pair earlier dedup runs recorded, then (optionally) added with the pairs they brought.
//!
//! Every accepted pair is examined once, when its later page arrives: against the index by
//! band lookups, within the run by `dedup`'s own candidates. The clusters are the connected
//! components of all pairs ever recorded plus the run's, over page ids in the order pages
//! were added, and each cluster keeps its first page; so adding crawls one run at a time gives
//! the clusters of one `dedup` over all of them with the index's matching.

use super::stage::fill;
use super::{dedup_config, load_pages, remove_orphans, write_add, AddOptions, AddReport, Snapshot};
use super::Staged;
use super::{Match, Scratch};
use crate::{Error, Input, PipelineConfig, Progress};
use neardup_cluster::UnionFind;
use neardup_dedup::{Evidence, Rule, SideScorer};
use neardup_index::{CatalogPage, IndexError, Manifest, WriterLock};
use neardup_report::Table;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// What a dedup against an index does.
#[derive(Clone, Debug)]
pub struct IndexDedupOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Add the new pages (and the pairs found) under this crawl label; `None`: only report.
    pub add: Option<String>,
    /// Bytes of keys sorted in memory when adding (about).
    pub mem_limit: usize,
}

impl IndexDedupOptions {
    /// Reads with `pipeline`, adds under `add` when given, within
    /// [`super::DEFAULT_MEM_LIMIT`].
    pub fn new(pipeline: PipelineConfig, add: Option<String>) -> IndexDedupOptions {
        IndexDedupOptions {
            pipeline,
            add,
            mem_limit: super::DEFAULT_MEM_LIMIT,
        }
    }
}

/// The summary of a dedup against an index.
#[derive(Clone, Debug, Serialize)]
pub struct IndexDedupSummary {
    /// Pages of the inputs (sketched).
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
    /// Accepted pairs: new page against indexed page, and within the run.
    pub pairs_with_index: u64,
    /// Accepted pairs within the run (each member against its run cluster's first page).
    pub pairs_within_run: u64,
    /// The matching, in words.
    pub matching: String,
    /// What the add did, when asked.
    pub added: Option<AddedSummary>,
    /// Seconds: read and sketch, match, cluster, add.
    pub seconds: Vec<(String, f64)>,
}

/// What the add of a dedup run did.
#[derive(Clone, Debug, Serialize)]
pub struct AddedSummary {
    /// Pages added.
    pub pages: u64,
    /// Their ids start here.
    pub first_id: u64,
    /// The manifest generation now live.
    pub generation: u64,
    /// The crawl label.
    pub label: String,
}

/// What a dedup against an index found.
#[derive(Clone, Debug, Serialize)]
pub struct IndexDedupReport {
    /// Counts and timings.
    pub summary: IndexDedupSummary,
    /// One row per page of every cluster holding a new page.
    pub rows: Vec<IndexDedupRow>,
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

/// A new page's best match: the other page's id and the evidence.
type Best = Option<(u64, Evidence)>;

/// What a row says of a page.
struct Described {
    url: String,
    id: String,
    date: String,
    label: String,
}

/// Deduplicates the pages of `inputs` against the index in `dir` and among themselves; with
/// `opts.add`, adds them (with the pairs found) in one commit.
pub fn dedup(
    dir: &Path,
    inputs: &[Input],
    opts: &IndexDedupOptions,
    progress: &dyn Progress,
) -> Result<IndexDedupReport, Error> {
    let mut seconds = Vec::new();
    let mut t = Instant::now();
    let mut lap = |name: &str, seconds: &mut Vec<(String, f64)>| {
        seconds.push((name.to_string(), t.elapsed().as_secs_f64()));
        t = Instant::now();
    };
    let lock = opts
        .add
        .as_ref()
        .map(|_| WriterLock::acquire(dir))
        .transpose()?;
    let snap = match &lock {
        Some(_) => {
            let m = Manifest::open(dir)?;
            remove_orphans(dir, &m)?;
            Snapshot::of(dir, m)?
        }
        None => Snapshot::open(dir)?,
    };
    let first = snap.manifest().next_page;
    let loaded = load_pages(inputs, &opts.pipeline, &snap.manifest().params, progress)?;
    let corpus = &loaded;
    let n = corpus.len();
    lap("read-and-sketch", &mut seconds);

    // Pairs with the index, page by page on every thread; within the run, dedup's own.
    let cfg = dedup_config(&snap.manifest().matching);
    let scorer = SideScorer::new(&cfg);
    let cross: Vec<Vec<Match>> = (0..n)
        .into_par_iter()
        .map_init(
            || (Scratch::default(), CatalogPage::default()),
            |(s, page), p| {
                fill(corpus, p, page);
                snap.matches(&scorer, corpus.family(), page, s)
            },
        )
        .collect::<Result<_, IndexError>>()?;
    let run = neardup_dedup::dedup(corpus, &cfg)?;
    lap("match", &mut seconds);

    let total = first + n as u64;
    let total32 = u32::try_from(total).map_err(|_| {
        crate::SettingsError::new(
            "index pages",
            total,
            "at most 4294967295 pages in the index and the run together",
        )
    })?;
    let mut links: Vec<(u64, u64)> = Vec::new();
    let mut best: Vec<Best> = vec![None; n as usize];
    for (p, ms) in cross.iter().enumerate() {
        let id = first + p as u64;
        for m in ms {
            links.push((id, m.page));
        }
        best[p] = ms.first().map(|m| (m.page, m.evidence));
    }
    let pairs_with_index = links.len() as u64;
    for c in &run.clusters {
        for (&m, e) in c.members.iter().zip(&c.evidence) {
            if m != c.canonical {
                links.push((first + m as u64, first + c.canonical as u64));
                if best[m as usize].is_none() {
                    best[m as usize] = Some((first + c.canonical as u64, *e));
                }
            }
        }
    }
    let pairs_within_run = links.len() as u64 - pairs_with_index;

    // Clusters: every recorded pair between held pages, and the run's.
    let mut uf = UnionFind::new(total32);
    for seg in snap.links() {
        for e in seg.entries() {
            let (a, b) = e?;
            if snap.holds(a) && snap.holds(b) {
                uf.union(a as u32, b as u32);
            }
        }
    }
    for &(a, b) in &links {
        uf.union(a as u32, b as u32);
    }
    let mut members: HashMap<u32, Vec<u64>> = HashMap::new();
    for p in 0..n {
        members.entry(uf.find(total32 - n + p)).or_default();
    }
    // Members in increasing id order: indexed pages first, then the run's.
    for id in 0..total32 {
        if let Some(v) = members.get_mut(&uf.find(id)) {
            v.push(id as u64);
        }
    }
    let mut clusters: Vec<Vec<u64>> = members.into_values().filter(|v| v.len() > 1).collect();
    clusters.sort_unstable_by_key(|v| v[0]);
    lap("cluster", &mut seconds);

    // Rows: each member described once (an indexed one from its catalog record); the first
    // page and a new page's best match are members of the same cluster.
    let label = opts.add.clone().unwrap_or_default();
    let mut rows = Vec::new();
    let mut facts = CatalogPage::default();
    let mut described: Vec<Described> = Vec::new();
    let (mut in_clusters, mut to_remove, mut of_index) = (0, 0, 0);
    for c in &clusters {
        described.clear();
        for &id in c {
            described.push(if id >= first {
                let p = corpus.page((id - first) as u32);
                Described {
                    url: p.url.to_string(),
                    id: p.user_id.to_string(),
                    date: p.date.to_string(),
                    label: label.clone(),
                }
            } else {
                let l = snap.page(id, &mut facts)?.unwrap_or_default().to_string();
                Described {
                    url: std::mem::take(&mut facts.url),
                    id: std::mem::take(&mut facts.user_id),
                    date: std::mem::take(&mut facts.date),
                    label: l,
                }
            });
        }
        let canonical = c[0];
        let first_page = &described[0];
        for (&id, d) in c.iter().zip(&described) {
            let new = id >= first;
            let b = if new {
                best[(id - first) as usize]
            } else {
                None
            };
            if new {
                in_clusters += 1;
                to_remove += u64::from(id != canonical);
                of_index += u64::from(!cross[(id - first) as usize].is_empty());
            }
            let matched = b.map(|(m, _)| &described[c.binary_search(&m).expect("in the cluster")]);
            rows.push(IndexDedupRow {
                page: id,
                url: d.url.clone(),
                id: d.id.clone(),
                date: d.date.clone(),
                label: d.label.clone(),
                new,
                cluster: canonical,
                cluster_size: c.len() as u64,
                canonical: id == canonical,
                canonical_url: first_page.url.clone(),
                canonical_id: first_page.id.clone(),
                canonical_label: first_page.label.clone(),
                match_page: b.map(|(m, _)| m),
                match_url: matched.map(|m| m.url.clone()),
                match_label: matched.map(|m| m.label.clone()),
                rule: b.map(|(_, e)| e.rule),
                estimated_jaccard: b.map(|(_, e)| e.estimated_jaccard),
                exact_jaccard: b.and_then(|(_, e)| e.exact_jaccard),
                containment: b.map(|(_, e)| e.containment),
            });
        }
    }

    let index_pages = snap
        .catalogs()
        .iter()
        .map(|(c, _)| c.ids().end - c.ids().start)
        .sum();
    let matching = format!(
        "{}; {}",
        cfg.matching
            .describe(corpus.family().params(), cfg.threshold, 0),
        cfg.describe_acceptance()
    );
    let added = match (&opts.add, lock) {
        (Some(label), Some(_lock)) => {
            let mut manifest = snap.manifest().clone();
            drop(snap);
            let add = AddOptions {
                pipeline: opts.pipeline.clone(),
                label: label.clone(),
                mem_limit: opts.mem_limit,
            };
            let AddReport {
                pages,
                first_id,
                generation,
                ..
            } = write_add(
                dir,
                &mut manifest,
                &Staged::of_corpus(loaded),
                &add,
                &links,
            )?;
            lap("add", &mut seconds);
            Some(AddedSummary {
                pages,
                first_id,
                generation,
                label: label.clone(),
            })
        }
        _ => None,
    };
    let summary = IndexDedupSummary {
        pages: n as u64,
        index_pages,
        duplicates_of_index: of_index,
        pages_in_clusters: in_clusters,
        pages_to_remove: to_remove,
        clusters: clusters.len() as u64,
        pairs_with_index,
        pairs_within_run,
        matching,
        added,
        seconds,
    };
    Ok(IndexDedupReport { summary, rows })
}

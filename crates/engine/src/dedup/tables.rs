//! The dedup job's tables: `clusters` (every member with its evidence against its canonical
//! page), `remove`, `pairs`, `boilerplate` and `byte-identical`, made from a run's result on
//! every thread.

use super::{samples, DedupConfig, DedupResult};
use neardup_report::Table;
use neardup_store::Corpus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

neardup_evidence::evidence_row! {
    /// A row of `clusters`: one per page in a cluster, with its evidence against the canonical page.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct ClusterRow {
        /// The page.
        pub url: String,
        /// The caller's id (JSONL/Parquet id field) or the WARC-Record-ID.
        pub id: String,
        /// Its capture date (WARC-Date; empty when the input has none).
        pub date: String,
        /// Its language (ISO 639-3; `und` when its text says too little).
        pub language: String,
        /// The input it was read from.
        pub file: String,
        /// Where its record starts in that input (bytes; for a .warc.gz, its gzip member), when
        /// known: with `file`, the capture itself.
        pub offset: Option<u64>,
        /// Cluster number (clusters ordered by their first page).
        pub cluster: u64,
        /// Pages in the cluster.
        pub cluster_size: u64,
        /// The page kept for the cluster.
        pub canonical_url: String,
        /// This page is the canonical one.
        pub canonical: bool,
        /// The least estimated Jaccard between the canonical page and a member (chaining).
        pub cluster_min_estimated_jaccard: f64,
    }
}

impl Table for ClusterRow {
    const NAME: &'static str = "clusters";
}

neardup_evidence::evidence_row! {
    /// A row of `remove`: a page to drop, the page kept instead, and the evidence.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct RemoveRow {
        /// The page to drop.
        pub url: String,
        /// Its id.
        pub id: String,
        /// Its language (ISO 639-3).
        pub language: String,
        /// Its cluster.
        pub cluster: u64,
        /// The page kept instead.
        pub kept_url: String,
        /// Its id.
        pub kept_id: String,
    }
}

impl Table for RemoveRow {
    const NAME: &'static str = "remove";
}

neardup_evidence::evidence_row! {
    /// A row of `pairs`: a matched pair inside one cluster, with its evidence.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct PairRow {
        /// First page.
        pub url_a: String,
        /// Its id.
        pub id_a: String,
        /// Second page.
        pub url_b: String,
        /// Its id.
        pub id_b: String,
        /// The cluster holding both.
        pub cluster: u64,
        /// Both on one host.
        pub same_host: bool,
        /// Both on one site, under the run's site rule.
        pub same_site: bool,
    }
}

impl Table for PairRow {
    const NAME: &'static str = "pairs";
}

/// A row of `boilerplate`: a page kept out of clustering because it is mostly host boilerplate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoilerplateRow {
    /// The page.
    pub url: String,
    /// Its id.
    pub id: String,
    /// Its host.
    pub host: String,
    /// Share of its shingles that were host boilerplate.
    pub boilerplate_fraction: f64,
}

impl Table for BoilerplateRow {
    const NAME: &'static str = "boilerplate";
}

/// A row of `byte-identical`: a page whose body is byte-identical to the others of its group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ByteIdenticalRow {
    /// Group number.
    pub group: u64,
    /// The page.
    pub url: String,
    /// Its id.
    pub id: String,
}

impl Table for ByteIdenticalRow {
    const NAME: &'static str = "byte-identical";
}

/// Every table of a dedup run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DedupTables {
    /// One row per clustered page.
    pub clusters: Vec<ClusterRow>,
    /// One row per page to drop.
    pub remove: Vec<RemoveRow>,
    /// Matched pairs (when asked for), at most `max_pairs_per_cluster` per cluster.
    pub pairs: Option<Vec<PairRow>>,
    /// Pages kept out as host boilerplate (when boilerplate detection ran).
    pub boilerplate: Option<Vec<BoilerplateRow>>,
    /// Byte-identical bodies.
    pub byte_identical: Vec<ByteIdenticalRow>,
    /// The largest clusters' kept page beside a member (when asked for:
    /// [`super::DedupOptions::samples`]).
    pub samples: Option<Vec<samples::SampleRow>>,
    /// Every clustered page as the engine holds it, row for row with `clusters`: the typed
    /// answer a front end maps back to its own rows (by record ordinal, never by an id read
    /// back from text).
    #[serde(skip)]
    pub placed: Vec<Placed>,
}

/// A clustered page, typed: which record of which input it is and its canonical page's;
/// [`DedupTables::placed`] holds one per row of `clusters` (whose row has its cluster and size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The page's record: its input and ordinal there.
    pub page: neardup_ingest::PageId,
    /// The cluster's canonical page's record.
    pub canonical: neardup_ingest::PageId,
    /// The page's row of `remove` (none for the canonical page).
    pub remove_row: Option<u32>,
}

/// Which tables to build besides clusters, remove and byte-identical.
#[derive(Clone, Copy, Debug)]
pub struct TableOptions {
    /// Build `pairs`, with at most this many pairs per cluster.
    pub pairs_per_cluster: Option<usize>,
    /// Build `boilerplate`.
    pub boilerplate: bool,
}

use neardup_evidence::with_evidence;

/// The tables of a run.
pub fn tables(
    corpus: &Corpus,
    cfg: &DedupConfig,
    r: &DedupResult,
    opts: TableOptions,
) -> DedupTables {
    let page = |p: u32| corpus.page(p);
    let mut t = DedupTables::default();
    // Rows are made on every thread straight into their table, in cluster order: each row's
    // place (cluster, member) is listed first, so the rows' collect is indexed (a collect of
    // clusters' rows flattened gathers per-thread pieces and appends them on one thread: a
    // third of the step's wall time on a million pages at -j2).
    let places = |with_canonical: bool| -> Vec<(u32, u32)> {
        r.clusters
            .par_iter()
            .enumerate()
            .flat_map_iter(|(ci, c)| {
                c.members
                    .iter()
                    .enumerate()
                    .filter(move |&(_, &m)| with_canonical || m != c.canonical)
                    .map(move |(k, _)| (ci as u32, k as u32))
            })
            .collect()
    };
    // Every clustered page's place, for its clusters row and its typed placement.
    let everyone = places(true);
    let cluster_rows = || -> Vec<ClusterRow> {
        let min_j: Vec<f64> = r
            .clusters
            .par_iter()
            .map(|c| c.min_estimated_jaccard())
            .collect();
        everyone
            .par_iter()
            .copied()
            .map(|(ci, k)| {
                let c = &r.clusters[ci as usize];
                let (m, e) = (c.members[k as usize], &c.evidence[k as usize]);
                let pm = page(m);
                with_evidence!(
                    ClusterRow {
                        url: pm.url.to_string(),
                        id: pm.user_id.to_string(),
                        date: pm.date.to_string(),
                        language: pm.language.to_string(),
                        file: (corpus.inputs())
                            .get(pm.id.source as usize)
                            .cloned()
                            .unwrap_or_default(),
                        offset: pm.raw_offset,
                        cluster: u64::from(ci),
                        cluster_size: c.members.len() as u64,
                        canonical_url: page(c.canonical).url.to_string(),
                        canonical: m == c.canonical,
                        cluster_min_estimated_jaccard: min_j[ci as usize],
                    },
                    e
                )
            })
            .collect()
    };
    let remove_rows = || -> Vec<RemoveRow> {
        places(false)
            .into_par_iter()
            .map(|(ci, k)| {
                let c = &r.clusters[ci as usize];
                let (m, e) = (c.members[k as usize], &c.evidence[k as usize]);
                let (pm, canon) = (page(m), page(c.canonical));
                with_evidence!(
                    RemoveRow {
                        url: pm.url.to_string(),
                        id: pm.user_id.to_string(),
                        language: pm.language.to_string(),
                        cluster: u64::from(ci),
                        kept_url: canon.url.to_string(),
                        kept_id: canon.user_id.to_string(),
                    },
                    e
                )
            })
            .collect()
    };
    let byte_identical_rows = || -> Vec<ByteIdenticalRow> {
        r.byte_identical
            .par_iter()
            .enumerate()
            .flat_map_iter(|(g, set)| {
                set.iter().map(move |&m| ByteIdenticalRow {
                    group: g as u64,
                    url: page(m).url.to_string(),
                    id: page(m).user_id.to_string(),
                })
            })
            .collect()
    };
    let placed_rows = || -> Vec<Placed> {
        // `remove` holds the same places less the canonical pages, in the same order.
        let mut removed = 0u32;
        everyone
            .iter()
            .map(|&(ci, k)| {
                let c = &r.clusters[ci as usize];
                let m = c.members[k as usize];
                let remove_row = (m != c.canonical).then(|| {
                    removed += 1;
                    removed - 1
                });
                Placed {
                    page: page(m).id,
                    canonical: page(c.canonical).id,
                    remove_row,
                }
            })
            .collect()
    };
    let ((clusters, placed), (remove, byte_identical)) = rayon::join(
        || rayon::join(cluster_rows, placed_rows),
        || rayon::join(remove_rows, byte_identical_rows),
    );
    (t.clusters, t.placed, t.remove, t.byte_identical) = (clusters, placed, remove, byte_identical);
    if let Some(cap) = opts.pairs_per_cluster {
        let mut rows = Vec::new();
        let mut per_cluster = vec![0usize; r.clusters.len()];
        for p in &r.pairs {
            let Some(ci) = r.cluster_of[p.a as usize] else {
                continue;
            };
            if r.cluster_of[p.b as usize] != Some(ci) {
                continue; // split apart by star clustering
            }
            if per_cluster[ci as usize] >= cap {
                continue;
            }
            per_cluster[ci as usize] += 1;
            let (a, b) = (page(p.a), page(p.b));
            let e = &p.evidence;
            rows.push(with_evidence!(
                PairRow {
                    url_a: a.url.to_string(),
                    id_a: a.user_id.to_string(),
                    url_b: b.url.to_string(),
                    id_b: b.user_id.to_string(),
                    cluster: ci as u64,
                    same_host: a.host == b.host,
                    same_site: cfg.site.site(a.host) == cfg.site.site(b.host),
                },
                e
            ));
        }
        t.pairs = Some(rows);
    }
    if opts.boilerplate {
        t.boilerplate = Some(
            r.boilerplate_pages
                .iter()
                .map(|&p| page(p))
                .chain(
                    corpus
                        .boilerplate_only()
                        .iter()
                        .map(neardup_store::PageMeta::as_ref),
                )
                .map(|m| BoilerplateRow {
                    url: m.url.to_string(),
                    id: m.user_id.to_string(),
                    host: m.host.to_string(),
                    boilerplate_fraction: m.boilerplate as f64,
                })
                .collect(),
        );
    }
    t
}

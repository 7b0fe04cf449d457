//! The dedup job: inputs in, near-duplicate clusters out, every row with the evidence for its
//! match, and the summary `neardup dedup` prints and writes (paper 004 Table 1, the chaining
//! count, cluster statistics).

pub mod explain;
pub mod samples;

use crate::boilerplate::BoilerplateConfig;
use crate::{Error, Input, PipelineConfig, Progress};
use neardup_cluster::{stats, ClusterStats};
pub use neardup_dedup::*;
use neardup_report::Table;
use neardup_sketch::SketchParams;
use neardup_store::Corpus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::Instant;

/// What a dedup job does; every field defaults to `neardup dedup`'s default.
#[derive(Clone, Debug)]
pub struct DedupOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Signature parameters.
    pub params: SketchParams,
    /// Matching, threshold, verification, clustering, canonical page, site rule.
    pub config: DedupConfig,
    /// Host boilerplate detection (a first pass), `None` for none.
    pub boilerplate: Option<BoilerplateConfig>,
    /// Build the `pairs` table, with at most this many pairs per cluster.
    pub pairs_per_cluster: Option<usize>,
    /// How many of the largest clusters the summary lists.
    pub top: usize,
    /// Build the `samples` table (the report's side-by-side views) for this many of the
    /// largest clusters; 0 for none.
    pub samples: usize,
    /// Inputs (indices into the run's inputs) that are references: an earlier dump the others
    /// are deduplicated against. A cluster holding a reference page keeps it, so every copy of
    /// it in the other inputs is removed (with its evidence against the reference page); by
    /// default (none) a cluster keeps one page by the keep rule.
    pub references: Vec<usize>,
}

impl Default for DedupOptions {
    fn default() -> Self {
        DedupOptions {
            pipeline: PipelineConfig::default(),
            params: SketchParams::default(),
            config: DedupConfig::accurate(SketchParams::default().m),
            boilerplate: None,
            pairs_per_cluster: None,
            top: 10,
            samples: 0,
            references: Vec::new(),
        }
    }
}

/// Validated [`DedupOptions`]: the only way to a dedup job, so a job never starts with settings
/// that cannot run.
#[derive(Clone, Debug)]
pub struct DedupSettings(DedupOptions);

impl DedupSettings {
    /// Checks the options: signature parameters, the matching method against them, the
    /// threshold, the boilerplate shares. The boilerplate page share becomes the config's.
    pub fn new(mut opts: DedupOptions) -> Result<DedupSettings, Error> {
        opts.params.validate()?;
        if let Some(b) = &opts.boilerplate {
            b.validate()?;
            opts.config.boilerplate_mostly = Some(b.mostly);
        }
        opts.config.validate(&opts.params)?;
        Ok(DedupSettings(opts))
    }

    /// The options.
    pub fn options(&self) -> &DedupOptions {
        &self.0
    }
}

/// What a dedup job found: the summary and every table.
#[derive(Clone, Debug, Serialize)]
pub struct DedupReport {
    /// Counts, percentages, the largest clusters, statistics, settings and timings.
    pub summary: DedupSummary,
    /// Every output table.
    pub tables: DedupTables,
    /// Which records of which input were removed, and the clusters of those kept: what
    /// [`neardup_clean::write_kept`] writes the kept corpus from.
    #[serde(skip)]
    pub kept: neardup_clean::KeptPlan,
}

/// The summary of a dedup job (`summary.json`).
#[derive(Clone, Debug, Serialize)]
pub struct DedupSummary {
    /// Inputs, in order.
    pub inputs: Vec<String>,
    /// Pages read (sketched, without terms, and not HTML or text).
    pub pages_read: u64,
    /// Pages with signatures.
    pub pages_sketched: u64,
    /// HTML and text pages without a single term.
    pub pages_without_terms: u64,
    /// Pages of other content types.
    pub pages_not_html_or_text: u64,
    /// Responses that are not pages, by why: a status other than 200, `meta-refresh` (a
    /// redirect served as a page) or `soft-404` (an error page served as a 200 response).
    /// Counted, never clustered (unless `PipelineConfig::every_status`).
    pub not_pages: std::collections::BTreeMap<String, u64>,
    /// Malformed records skipped (each counted with file, offset and reason in the sources).
    pub records_skipped: u64,
    /// Skipped records by reason, with the first examples.
    pub skipped: crate::Skipped,
    /// Share of sketched pages in clusters, in percent.
    pub percent_near_duplicate: f64,
    /// Share of sketched pages in clusters at the virtually-identical level, in percent (runs
    /// that use supershingles).
    pub percent_virtually_identical: Option<f64>,
    /// Identity sets, candidates, accepted pairs, clusters, timings per stage.
    pub counts: DedupCounts,
    /// Clusters with a member whose estimated Jaccard with the canonical page is below
    /// [`CHAIN_WARNING`].
    pub chained_clusters: usize,
    /// Pages kept out as host boilerplate.
    pub boilerplate_pages_reported: usize,
    /// Mean share of a page's shingles dropped as host boilerplate.
    pub boilerplate_mean_fraction: f64,
    /// The largest clusters (paper 004 Table 1).
    pub largest_clusters: Vec<Largest>,
    /// Cluster-size distribution, fitted power law, replicas per page.
    pub cluster_stats: ClusterStats,
    /// Sketched pages by language, most pages first.
    pub languages: Vec<LanguageCount>,
    /// The detector that told the languages of the pages read now
    /// (`neardup_text::language::DETECTOR`; a signature file read told by another is named in
    /// a warning).
    pub language_detector: String,
    /// Signature parameters.
    pub params: SketchParams,
    /// The dedup configuration.
    pub config: DedupConfig,
    /// Reading and sketching (including a boilerplate pass).
    pub seconds_read_and_sketch: f64,
    /// The whole job.
    pub seconds_total: f64,
    /// Wall and CPU seconds per stage: reading and sketching, the dedup steps, the rows.
    pub stages: Vec<neardup_dedup::clock::StageTime>,
    /// Worker threads.
    pub threads: usize,
}

/// A language's pages in a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageCount {
    /// ISO 639-3 code (`und`: too little text to tell).
    pub language: String,
    /// Sketched pages in it.
    pub pages: u64,
    /// Of those, pages in a cluster.
    pub pages_in_clusters: u64,
    /// Of those, pages to remove (in a cluster, not its canonical page).
    pub pages_removed: u64,
}

/// Sketched pages by language (most pages first, then by code), with the pages of each in
/// clusters and to remove.
pub fn language_counts(corpus: &Corpus, result: &DedupResult) -> Vec<LanguageCount> {
    type Counts = std::collections::BTreeMap<neardup_text::language::Language, [u64; 3]>;
    let mut by: Counts = (0..corpus.len())
        .into_par_iter()
        .fold(Counts::new, |mut by, p| {
            by.entry(corpus.page(p).language).or_default()[0] += 1;
            by
        })
        .reduce(Counts::new, |mut a, b| {
            for (l, n) in b {
                a.entry(l).or_default()[0] += n[0];
            }
            a
        });
    for c in &result.clusters {
        for &m in &c.members {
            let n = by.entry(corpus.page(m).language).or_default();
            n[1] += 1;
            n[2] += u64::from(m != c.canonical);
        }
    }
    neardup_text::language::ranked(by)
        .into_iter()
        .map(
            |(l, [pages, pages_in_clusters, pages_removed])| LanguageCount {
                language: l.to_string(),
                pages,
                pages_in_clusters,
                pages_removed,
            },
        )
        .collect()
}

/// Reads and sketches a job's inputs under its options (every shingle set kept to verify).
fn load(
    inputs: &[Input],
    o: &DedupOptions,
    progress: &dyn Progress,
) -> Result<crate::load::Loaded, Error> {
    crate::load::load(
        inputs,
        &o.pipeline,
        &o.params,
        o.config.verify,
        o.boilerplate,
        progress,
    )
}

/// What [`in_parts`] read.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PartsCounts {
    /// Pages with signatures (each visited).
    pub pages_sketched: u64,
    /// HTML and text pages without a single term.
    pub pages_without_terms: u64,
    /// Pages of other content types.
    pub pages_not_html_or_text: u64,
    /// Responses that are not pages, by why.
    pub not_pages: std::collections::BTreeMap<String, u64>,
    /// Malformed records skipped.
    pub records_skipped: u64,
}

/// Reads and sketches `inputs` as [`run`] does, then visits every sketched page, in input
/// order, with its parts ([`neardup_dedup::parts`]): the first half of a run spread over many
/// machines, for one share of the pages. Refuses settings that cannot run in parts.
pub fn in_parts(
    inputs: &[Input],
    settings: &DedupSettings,
    progress: &dyn Progress,
    visit: impl FnMut(neardup_store::PageRef<'_>, &parts::PageParts) + Send,
) -> Result<PartsCounts, Error> {
    let threads = settings.options().pipeline.threads;
    crate::on_threads(threads, || in_parts_here(inputs, settings, progress, visit))
}

fn in_parts_here(
    inputs: &[Input],
    settings: &DedupSettings,
    progress: &dyn Progress,
    mut visit: impl FnMut(neardup_store::PageRef<'_>, &parts::PageParts),
) -> Result<PartsCounts, Error> {
    let o = settings.options();
    let mut parts = parts::Parts::new(&o.config, &o.params)?;
    let loaded = load(inputs, o, progress)?;
    let corpus = &loaded.corpus;
    let mut out = parts::PageParts::default();
    for p in 0..corpus.len() {
        parts.page(corpus, p, &mut out);
        visit(corpus.page(p), &out);
    }
    Ok(PartsCounts {
        pages_sketched: corpus.len() as u64,
        pages_without_terms: corpus.empty_pages(),
        pages_not_html_or_text: corpus.other_pages(),
        not_pages: corpus.not_pages().clone(),
        records_skipped: loaded.records_skipped(),
    })
}

/// Runs a dedup job over `inputs` (crawls, signature files, pages in memory).
pub fn run(
    inputs: &[Input],
    settings: &DedupSettings,
    progress: &dyn Progress,
) -> Result<DedupReport, Error> {
    let threads = settings.options().pipeline.threads;
    crate::on_threads(threads, || run_here(inputs, settings, progress))
}

fn run_here(
    inputs: &[Input],
    settings: &DedupSettings,
    progress: &dyn Progress,
) -> Result<DedupReport, Error> {
    let start = Instant::now();
    let mut clock = neardup_dedup::clock::Clock::start();
    let o = settings.options();
    let mut loaded = load(inputs, o, progress)?;
    let mut stages = vec![clock.lap("read+sketch")];
    loaded.corpus.set_references(&o.references);
    let result = dedup(&loaded.corpus, &o.config)?;
    stages.extend(result.counts.stages.iter().cloned());
    clock = neardup_dedup::clock::Clock::start();
    // The outputs need only the pages' facts: the signatures are freed beside the rows' making
    // (freeing a million pages' takes one thread tens of milliseconds).
    let signatures = loaded.corpus.take_signatures();
    let corpus = &loaded.corpus;
    // The tables, the kept plan and the summary's counts are made side by side.
    // The freeing goes first: with one thread (-j1) the branches run in order, and the
    // signatures must be gone before the tables take their memory.
    let (boilerplate_mean_fraction, ((mut tables, kept), (languages, largest))) = rayon::join(
        || {
            drop(signatures);
            // Summed in page order on one thread: the same bits at every thread count.
            if corpus.is_empty() {
                0.0
            } else {
                corpus.pages().map(|p| p.boilerplate as f64).sum::<f64>() / corpus.len() as f64
            }
        },
        || {
            rayon::join(
                || {
                    rayon::join(
                        || {
                            tables(
                                corpus,
                                &o.config,
                                &result,
                                TableOptions {
                                    pairs_per_cluster: o.pairs_per_cluster,
                                    boilerplate: o.boilerplate.is_some(),
                                },
                            )
                        },
                        || kept_plan(corpus, &result),
                    )
                },
                || {
                    rayon::join(
                        || language_counts(corpus, &result),
                        || largest_clusters(corpus, &result, o.top),
                    )
                },
            )
        },
    );
    if o.samples > 0 {
        tables.samples = Some(samples::samples(
            inputs,
            &o.pipeline,
            o.params.content.scope(),
            &tables.clusters,
            o.samples,
            Some(corpus),
        )?);
    }
    let sizes: Vec<u64> = result
        .clusters
        .iter()
        .map(|c| c.members.len() as u64)
        .collect();
    let sketched = corpus.len() as u64;
    let pct = |x: u64| {
        if sketched == 0 {
            0.0
        } else {
            100.0 * x as f64 / sketched as f64
        }
    };
    let mut summary = DedupSummary {
        inputs: corpus.inputs().to_vec(),
        pages_read: sketched
            + corpus.empty_pages()
            + corpus.other_pages()
            + corpus.not_pages().values().sum::<u64>(),
        not_pages: corpus.not_pages().clone(),
        pages_sketched: sketched,
        pages_without_terms: corpus.empty_pages(),
        pages_not_html_or_text: corpus.other_pages(),
        records_skipped: loaded.records_skipped(),
        skipped: loaded.skipped(o.pipeline.skipped_examples),
        percent_near_duplicate: pct(result.counts.pages_in_clusters),
        percent_virtually_identical: result.counts.virtually_identical_pages.map(pct),
        chained_clusters: chained_clusters(&result),
        boilerplate_pages_reported: result.boilerplate_pages.len()
            + corpus.boilerplate_only().len(),
        boilerplate_mean_fraction,
        largest_clusters: largest,
        cluster_stats: stats(&sizes),
        languages,
        language_detector: neardup_text::language::DETECTOR.to_string(),
        counts: result.counts,
        params: o.params.clone(),
        config: o.config.clone(),
        seconds_read_and_sketch: loaded.read_time.as_secs_f64(),
        seconds_total: 0.0,
        stages,
        threads: loaded.threads,
    };
    summary.stages.push(clock.lap("rows"));
    summary.seconds_total = start.elapsed().as_secs_f64();
    Ok(DedupReport {
        summary,
        tables,
        kept,
    })
}

/// The run's decisions by record: every non-canonical cluster member removed, every canonical
/// page kept for its cluster's size.
pub fn kept_plan(corpus: &Corpus, result: &DedupResult) -> neardup_clean::KeptPlan {
    let mut plan = neardup_clean::KeptPlan::new(corpus.inputs().len());
    for p in corpus.pages() {
        plan.language(p.id.source, p.id.ordinal, p.language);
    }
    for c in &result.clusters {
        let size = c.members.len() as u32;
        for &m in &c.members {
            let id = corpus.page(m).id;
            if m == c.canonical {
                plan.kept_in_cluster(id.source, id.ordinal, size);
            } else {
                plan.removed(id.source, id.ordinal);
            }
        }
    }
    plan.sort();
    plan
}

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
    /// [`DedupOptions::samples`]).
    pub samples: Option<Vec<samples::SampleRow>>,
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
    let places = |canonical: bool| -> Vec<(u32, u32)> {
        r.clusters
            .par_iter()
            .enumerate()
            .flat_map_iter(|(ci, c)| {
                c.members
                    .iter()
                    .enumerate()
                    .filter(move |&(_, &m)| canonical || m != c.canonical)
                    .map(move |(k, _)| (ci as u32, k as u32))
            })
            .collect()
    };
    let cluster_rows = || -> Vec<ClusterRow> {
        let min_j: Vec<f64> = r
            .clusters
            .par_iter()
            .map(|c| c.min_estimated_jaccard())
            .collect();
        places(true)
            .into_par_iter()
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
    let (clusters, (remove, byte_identical)) = rayon::join(cluster_rows, || {
        rayon::join(remove_rows, byte_identical_rows)
    });
    (t.clusters, t.remove, t.byte_identical) = (clusters, remove, byte_identical);
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

/// One of the largest clusters (paper 004 Table 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Largest {
    /// Pages.
    pub size: usize,
    /// Distinct hosts.
    pub hosts: usize,
    /// Distinct server IPs.
    pub ips: usize,
    /// The canonical page.
    pub canonical_url: String,
    /// The canonical page's id (the user's id field, or its WARC-Record-ID).
    #[serde(default)]
    pub canonical_id: String,
    /// The least estimated Jaccard between the canonical page and a member.
    pub min_estimated_jaccard: f64,
}

/// The `top` largest clusters (ties: the one whose first page comes first), paper 004 Table 1.
pub fn largest_clusters(corpus: &Corpus, r: &DedupResult, top: usize) -> Vec<Largest> {
    let mut order: Vec<usize> = (0..r.clusters.len()).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(r.clusters[i].members.len()),
            r.clusters[i].members[0],
        )
    });
    order
        .iter()
        .take(top)
        .map(|&i| {
            let c = &r.clusters[i];
            let pages = c.members.iter().map(|&m| corpus.page(m));
            let hosts: BTreeSet<&str> = pages.clone().map(|p| p.host).collect();
            let ips: BTreeSet<&str> = pages.map(|p| p.ip).filter(|s| !s.is_empty()).collect();
            Largest {
                size: c.members.len(),
                hosts: hosts.len(),
                ips: ips.len(),
                canonical_url: corpus.page(c.canonical).url.to_string(),
                canonical_id: corpus.page(c.canonical).user_id.to_string(),
                min_estimated_jaccard: c.min_estimated_jaccard(),
            }
        })
        .collect()
}

/// Clusters whose canonical page is less similar than this to some member are counted as
/// chained.
pub const CHAIN_WARNING: f64 = 0.5;

/// Clusters holding a member whose estimated Jaccard with the canonical page is below
/// [`CHAIN_WARNING`]: chaining through shared templates shows here.
pub fn chained_clusters(r: &DedupResult) -> usize {
    r.clusters
        .iter()
        .filter(|c| c.min_estimated_jaccard() < CHAIN_WARNING)
        .count()
}

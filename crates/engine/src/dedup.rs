//! The dedup job: inputs in, near-duplicate clusters out, every row with the evidence for its
//! match, and the summary `neardup dedup` prints and writes (paper 004 Table 1, the chaining
//! count, cluster statistics).

pub mod explain;
pub mod samples;
mod tables;

pub use tables::{
    tables, BoilerplateRow, ByteIdenticalRow, ClusterRow, DedupTables, PairRow, Placed, RemoveRow,
    TableOptions,
};

use crate::boilerplate::BoilerplateConfig;
use crate::{Error, Input, PipelineConfig, Progress};
use neardup_cluster::{stats, ClusterStats};
pub use neardup_dedup::*;
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
    let rows = || {
        let options = TableOptions {
            pairs_per_cluster: o.pairs_per_cluster,
            boilerplate: o.boilerplate.is_some(),
        };
        rayon::join(
            || tables(corpus, &o.config, &result, options),
            || kept_plan(corpus, &result),
        )
    };
    let counts = || {
        rayon::join(
            || language_counts(corpus, &result),
            || largest_clusters(corpus, &result, o.top),
        )
    };
    let free_and_mean = || {
        drop(signatures);
        // Summed in page order on one thread: the same bits at every thread count.
        if corpus.is_empty() {
            0.0
        } else {
            corpus.pages().map(|p| p.boilerplate as f64).sum::<f64>() / corpus.len() as f64
        }
    };
    // The freeing goes first: with one thread (-j1) the branches run in order, and the
    // signatures must be gone before the tables take their memory.
    let (boilerplate_mean_fraction, ((mut tables, kept), (languages, largest))) =
        rayon::join(free_and_mean, || rayon::join(rows, counts));
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

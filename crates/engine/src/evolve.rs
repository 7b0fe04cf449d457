//! The evolve job (paper 004 section 3): crawls of one URL space read and clustered one at a
//! time, URLs followed from crawl to crawl; its tables (coefficients, change, change buckets,
//! hosts, events, recrawl advice, each crawl's clusters, with crawl labels and URLs in place of
//! ids), its summary and figures 4-10.
//!
//! ```
//! use neardup_engine::evolve::{self, Action, Crawl, EvolveOptions, EvolveSettings};
//! use neardup_engine::{Input, NoProgress};
//! use neardup_ingest::Page;
//!
//! // The same URLs crawled twice, in memory; one page changes completely, one is new.
//! let text = |s: u64| (0..200).map(|w| format!("t{}", (w * 31 + s * 977) % 4000)).collect::<Vec<_>>().join(" ");
//! let week = |changed: bool| {
//!     let mut pages: Vec<Page> = (0..5)
//!         .map(|i| Page::text(format!("https://s.example/{i}"), text(if changed && i == 0 { 99 } else { i })))
//!         .collect();
//!     if changed {
//!         pages.push(Page::text("https://s.example/new", text(50)));
//!     }
//!     pages
//! };
//! let crawls = [
//!     Crawl { label: "week1".into(), inputs: vec![Input::pages("week1", week(false))] },
//!     Crawl { label: "week2".into(), inputs: vec![Input::pages("week2", week(true))] },
//! ];
//! let settings = EvolveSettings::new(EvolveOptions::default()).unwrap();
//! let r = evolve::run(&crawls, &settings, &NoProgress, &mut |_, _, _| {}).unwrap();
//! let advice = |url: &str| r.tables.recrawl.iter().find(|a| a.url == url).unwrap();
//! assert_eq!(advice("https://s.example/new").action, Action::Prioritize);
//! assert_eq!(advice("https://s.example/1").shared_with_previous, Some(85)); // byte-identical
//! ```

use crate::{Error, Input, PipelineConfig, Progress, SettingsError};
use neardup_dedup::{dedup, DedupConfig, Matching};
pub use neardup_evolve::*;
use neardup_report::Table;
use neardup_sketch::SketchParams;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

macro_rules! table {
    ($row:ident, $name:literal) => {
        impl Table for $row {
            const NAME: &'static str = $name;
        }
    };
}

/// A row of `coefficients`: how crawl `crawl_index`'s clusters compare with the first crawl's,
/// for the URLs whose first-crawl cluster has a size in `range` (Figures 4, 5, 7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoefficientRow {
    /// Crawl label.
    pub crawl: String,
    /// Crawl number, 1-based.
    pub crawl_index: u64,
    /// First-crawl cluster-size range.
    pub range: String,
    /// URLs of the first crawl in that range.
    pub urls: u64,
    /// Of those, missing from this crawl.
    pub missing: u64,
    /// Mean |C1 ∩ Cn| / |C1|.
    pub containment: Option<f64>,
    /// Mean |C1 ∩ Cn| / |C1 ∪ Cn|.
    pub similarity: Option<f64>,
    /// Mean |C1 ∩ Cn| / |Cn|.
    pub reverse_containment: Option<f64>,
    /// Containment over URLs present in both.
    pub containment_present: Option<f64>,
    /// Similarity over URLs present in both.
    pub similarity_present: Option<f64>,
    /// Reverse containment over URLs present in both.
    pub reverse_containment_present: Option<f64>,
}
table!(CoefficientRow, "coefficients");

/// A row of `change`: URLs sharing `shared_minvalues` minvalues between two consecutive crawls
/// (`m + 1` = byte-identical body).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeRow {
    /// Earlier crawl.
    pub from: String,
    /// Later crawl.
    pub to: String,
    /// First-crawl cluster-size range.
    pub range: String,
    /// Minvalues shared.
    pub shared_minvalues: u64,
    /// Change bucket of that amount.
    pub bucket: String,
    /// URLs.
    pub urls: u64,
}
table!(ChangeRow, "change");

/// A row of `change_buckets`: URLs per change bucket, per transition (and `all`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeBucketRow {
    /// Earlier crawl (`all` for every transition).
    pub from: String,
    /// Later crawl.
    pub to: String,
    /// First-crawl cluster-size range.
    pub range: String,
    /// Change bucket.
    pub bucket: String,
    /// URLs.
    pub urls: u64,
    /// Share of the range's URLs.
    pub share: Option<f64>,
}
table!(ChangeBucketRow, "change_buckets");

/// A row of `hosts`: distinct clusters of a host in the first and the last crawl (Figure 6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostRow {
    /// Host.
    pub host: String,
    /// Pages in the first crawl.
    pub pages_first: u64,
    /// Pages in the last crawl.
    pub pages_last: u64,
    /// Distinct clusters in the first crawl.
    pub clusters_first: u64,
    /// Distinct clusters in the last crawl.
    pub clusters_last: u64,
    /// `clusters_last - clusters_first`.
    pub change: i64,
    /// Multi-page clusters in the first crawl.
    pub multi_page_clusters_first: u64,
    /// Multi-page clusters in the last crawl.
    pub multi_page_clusters_last: u64,
}
table!(HostRow, "hosts");

/// A row of `events`: what happened to a cluster between two consecutive crawls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventRow {
    /// Earlier crawl.
    pub from: String,
    /// Later crawl.
    pub to: String,
    /// The event.
    pub event: EventKind,
    /// Its variety (`gone`, `dissolved`, `new-urls`, `formed`, ...).
    pub detail: String,
    /// The earlier cluster's representative URL (empty for a birth).
    pub cluster_before: String,
    /// Its size.
    pub size_before: u64,
    /// The later cluster's representative URL (empty for a death).
    pub cluster_after: String,
    /// Its size.
    pub size_after: u64,
    /// Pieces of a split or merge.
    pub pieces: u64,
    /// URLs the two clusters share.
    pub shared_urls: u64,
}
table!(EventRow, "events");

/// A row of `recrawl`: what to do with a URL of the last crawl, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecrawlRow {
    /// The URL.
    pub url: String,
    /// Skip, fetch or prioritize.
    pub action: Action,
    /// The reason code.
    pub reason: Reason,
    /// The reason in words.
    pub explanation: String,
    /// Its cluster's size in the last crawl.
    pub cluster_size: u64,
    /// The cluster's representative URL.
    pub representative: String,
    /// The cluster's least mean similarity with an earlier crawl.
    pub stability: Option<f64>,
    /// The crawl it was least stable against.
    pub least_stable_against: String,
    /// Share of the cluster's URLs that changed more than a little.
    pub fast_change_share: Option<f64>,
    /// Minvalues shared with the previous crawl (`m + 1` = byte-identical).
    pub shared_with_previous: Option<u32>,
    /// The change bucket of that amount.
    pub change: String,
}
table!(RecrawlRow, "recrawl");

/// A row of `clusters`: a URL in a multi-page cluster of one crawl.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrawlClusterRow {
    /// Crawl label.
    pub crawl: String,
    /// The URL.
    pub url: String,
    /// The cluster, named by its representative URL.
    pub cluster: String,
    /// Pages in the cluster.
    pub cluster_size: u64,
    /// This URL represents the cluster.
    pub canonical: bool,
}
table!(CrawlClusterRow, "clusters");

/// Every table of an evolve run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EvolveTables {
    /// Coefficients per crawl and size range.
    pub coefficients: Vec<CoefficientRow>,
    /// Change amounts per transition.
    pub change: Vec<ChangeRow>,
    /// Change buckets per transition.
    pub change_buckets: Vec<ChangeBucketRow>,
    /// Clusters per host, first vs last crawl.
    pub hosts: Vec<HostRow>,
    /// Cluster events.
    pub events: Vec<EventRow>,
    /// Recrawl advice for the last crawl.
    pub recrawl: Vec<RecrawlRow>,
    /// Each crawl's multi-page clusters.
    pub clusters: Vec<CrawlClusterRow>,
}

/// The tables of an evolution.
pub fn tables(
    e: &Evolution,
    r: &EvolveReport,
    labels: &[&str],
    rcfg: &RecrawlConfig,
) -> EvolveTables {
    let mut t = EvolveTables::default();
    for c in &r.coefficients {
        t.coefficients.push(CoefficientRow {
            crawl: labels[c.crawl].to_string(),
            crawl_index: c.crawl as u64 + 1,
            range: RANGES[c.range].to_string(),
            urls: c.urls,
            missing: c.missing,
            containment: c.containment,
            similarity: c.similarity,
            reverse_containment: c.reverse_containment,
            containment_present: c.containment_present,
            similarity_present: c.similarity_present,
            reverse_containment_present: c.reverse_containment_present,
        });
    }
    for h in &r.change {
        for (range, row) in h.counts.iter().enumerate() {
            for (shared, &n) in row.iter().enumerate().filter(|(_, &n)| n > 0) {
                t.change.push(ChangeRow {
                    from: labels[h.from].to_string(),
                    to: labels[h.to].to_string(),
                    range: RANGES[range].to_string(),
                    shared_minvalues: shared as u64,
                    bucket: BUCKETS[change_bucket(shared as u32, r.m)].to_string(),
                    urls: n,
                });
            }
        }
    }
    let mut buckets: Vec<(&str, &str, Vec<[u64; 6]>)> = r
        .change
        .iter()
        .map(|h| (labels[h.from], labels[h.to], h.buckets(r.m)))
        .collect();
    if let (true, Some(all)) = (buckets.len() > 1, r.change_all()) {
        buckets.push(("all", "all", all.buckets(r.m)));
    }
    for (from, to, b) in &buckets {
        for (range, row) in b.iter().enumerate() {
            let total: u64 = row.iter().sum();
            if total == 0 {
                continue;
            }
            for (k, &n) in row.iter().enumerate() {
                t.change_buckets.push(ChangeBucketRow {
                    from: from.to_string(),
                    to: to.to_string(),
                    range: RANGES[range].to_string(),
                    bucket: BUCKETS[k].to_string(),
                    urls: n,
                    share: Some(n as f64 / total as f64),
                });
            }
        }
    }
    for h in &r.hosts {
        t.hosts.push(HostRow {
            host: h.host.clone(),
            pages_first: h.pages_first,
            pages_last: h.pages_last,
            clusters_first: h.clusters_first,
            clusters_last: h.clusters_last,
            change: h.clusters_last as i64 - h.clusters_first as i64,
            multi_page_clusters_first: h.multi_first,
            multi_page_clusters_last: h.multi_last,
        });
    }
    for ev in &r.events {
        t.events.push(EventRow {
            from: labels[ev.from].to_string(),
            to: labels[ev.to].to_string(),
            event: ev.kind,
            detail: ev.detail.to_string(),
            cluster_before: ev.before.map_or("", |u| e.url(u)).to_string(),
            size_before: ev.size_before,
            cluster_after: ev.after.map_or("", |u| e.url(u)).to_string(),
            size_after: ev.size_after,
            pieces: ev.pieces,
            shared_urls: ev.shared_urls,
        });
    }
    for a in &r.recrawl {
        t.recrawl.push(RecrawlRow {
            url: e.url(a.url).to_string(),
            action: a.action,
            reason: a.reason,
            explanation: explain(a, e, labels, r.m, rcfg),
            cluster_size: a.cluster_size,
            representative: a.representative.map_or("", |u| e.url(u)).to_string(),
            stability: a.stability,
            least_stable_against: a.least_stable_against.map_or("", |n| labels[n]).to_string(),
            fast_change_share: a.fast_change_share,
            shared_with_previous: a.shared_with_previous,
            change: a
                .shared_with_previous
                .map_or("", |x| BUCKETS[change_bucket(x, r.m)])
                .to_string(),
        });
    }
    for (n, label) in labels.iter().enumerate() {
        for (rep, members) in e.clusters(n) {
            for &u in &members {
                t.clusters.push(CrawlClusterRow {
                    crawl: label.to_string(),
                    url: e.url(u).to_string(),
                    cluster: e.url(rep).to_string(),
                    cluster_size: members.len() as u64,
                    canonical: u == rep,
                });
            }
        }
    }
    t
}

/// The advice in words.
pub fn explain(a: &Advice, e: &Evolution, labels: &[&str], m: u32, cfg: &RecrawlConfig) -> String {
    let rep = a.representative.map_or("", |r| e.url(r));
    let against = a.least_stable_against.map_or("", |n| labels[n]);
    let stab = a.stability.unwrap_or(0.0);
    let change = match a.shared_with_previous {
        Some(s) if s > m => "byte-identical to the previous crawl".to_string(),
        Some(s) => format!("{s} of {m} minvalues shared with the previous crawl"),
        None => "not in the previous crawl".to_string(),
    };
    match a.reason {
        Reason::StableClusterMember => format!(
            "near-duplicate of {rep} in a cluster of {} stable over {} crawls (mean similarity >= {stab:.3}, least against {against}); fetch the representative instead",
            a.cluster_size,
            labels.len()
        ),
        Reason::StableClusterRepresentative => format!(
            "represents a stable cluster of {} (mean similarity >= {stab:.3}); {change}",
            a.cluster_size
        ),
        Reason::FastChangingClusterRepresentative => format!(
            "represents a stable cluster of {} whose pages change fast: {:.0}% changed more than a little since the previous crawl (> {:.0}%)",
            a.cluster_size,
            100.0 * a.fast_change_share.unwrap_or(0.0),
            100.0 * cfg.fast_change_share
        ),
        Reason::UnstableCluster => format!(
            "its cluster of {} is unstable: mean similarity {stab:.3} with crawl {against} (< {})",
            a.cluster_size, cfg.stable_similarity
        ),
        Reason::NewUrl => "new: in no earlier crawl".to_string(),
        Reason::LeftCluster => format!("left its cluster since the previous crawl; {change}"),
        Reason::ChangedALot => format!("no near-duplicates and changed a lot: {change}"),
        Reason::Unique => format!("no near-duplicates; {change}"),
        Reason::NoHistory => "only one crawl: no history to judge by".to_string(),
    }
}

/// One crawl of an evolution: its name and its inputs (crawl files, folders, signature files or
/// pages in memory).
#[derive(Clone, Debug)]
pub struct Crawl {
    /// The crawl's name in every table and figure.
    pub label: String,
    /// Its inputs.
    pub inputs: Vec<Input>,
}

/// Extensions dropped from a file name to make a crawl label.
const EXTENSIONS: [&str; 9] = [
    ".gz", ".zst", ".warc", ".arc", ".jsonl", ".parquet", ".ndsig", ".sig", ".json",
];

/// A crawl's default label: the folder's name when the crawl was given as one folder (`week3/`),
/// else its first input's file name without crawl extensions, `+N` for N more inputs.
pub fn default_label(given: &[std::path::PathBuf], inputs: &[Input]) -> String {
    if let [folder] = given {
        if folder.is_dir() {
            if let Some(n) = folder.file_name() {
                return n.to_string_lossy().into_owned();
            }
        }
    }
    let name = |i: &Input| match i.as_path() {
        Some(p) => {
            let mut n = p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            while let Some(e) = EXTENSIONS
                .iter()
                .find(|e| n.ends_with(*e) && n.len() > e.len())
            {
                n.truncate(n.len() - e.len());
            }
            n
        }
        None => i.name(),
    };
    match inputs {
        [] => String::new(),
        [p] => name(p),
        [p, rest @ ..] => format!("{}+{}", name(p), rest.len()),
    }
}

/// What an evolve job does; defaults as `neardup evolve`.
#[derive(Clone, Debug)]
pub struct EvolveOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Signature parameters.
    pub params: SketchParams,
    /// B-similarity of each crawl's clusters.
    pub min_agree: u32,
    /// Recrawl advice thresholds.
    pub recrawl: RecrawlConfig,
}

impl Default for EvolveOptions {
    fn default() -> Self {
        EvolveOptions {
            pipeline: PipelineConfig::default(),
            // Clusters by supershingles (paper 004): its independent Rabin functions.
            params: SketchParams {
                minhash: neardup_sketch::MinHashFamily::Rabin,
                ..SketchParams::default()
            },
            min_agree: 2,
            recrawl: RecrawlConfig {
                stable_similarity: 0.8,
                fast_change_share: 0.5,
            },
        }
    }
}

/// Validated [`EvolveOptions`].
#[derive(Clone, Debug)]
pub struct EvolveSettings(EvolveOptions);

impl EvolveSettings {
    /// Checks the options.
    pub fn new(opts: EvolveOptions) -> Result<EvolveSettings, Error> {
        opts.params.validate()?;
        DedupConfig::new(Matching::Supershingles {
            min_agree: opts.min_agree,
        })
        .validate(&opts.params)?;
        if opts.params.m > 1000 {
            return Err(SettingsError::new(
                "m",
                opts.params.m,
                "at most 1000 min-hash functions (shared minvalues are counted in 16 bits)",
            )
            .into());
        }
        for (name, v) in [
            ("stable_similarity", opts.recrawl.stable_similarity),
            ("fast_change_share", opts.recrawl.fast_change_share),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(SettingsError::new(name, v, "a value between 0 and 1").into());
            }
        }
        Ok(EvolveSettings(opts))
    }

    /// The options.
    pub fn options(&self) -> &EvolveOptions {
        &self.0
    }
}

/// One crawl's part of the summary.
#[derive(Clone, Debug, Serialize)]
pub struct CrawlSummary {
    /// Pages, URLs, clusters, new and missing URLs.
    pub counts: CrawlCounts,
    /// Its inputs.
    pub inputs: Vec<String>,
    /// Malformed records skipped.
    pub records_skipped: u64,
    /// By reason, with the first examples (file, offset, detail).
    pub skipped: crate::Skipped,
    /// HTML and text pages without terms.
    pub pages_without_terms: u64,
    /// Pages of other content types.
    pub pages_not_html_or_text: u64,
    /// Responses that are not pages, by why (a status other than 200, `meta-refresh`,
    /// `soft-404`): counted, never clustered.
    pub not_pages: std::collections::BTreeMap<String, u64>,
    /// Reading and sketching.
    pub seconds_read_and_sketch: f64,
    /// Clustering.
    pub seconds_cluster: f64,
    /// Folding into the evolution.
    pub seconds_fold_into_evolution: f64,
    /// The whole crawl.
    pub seconds: f64,
}

/// The last crawl's coefficients for one size range.
#[derive(Clone, Debug, Serialize)]
pub struct LastCoefficients {
    /// First-crawl cluster-size range.
    pub range: &'static str,
    /// URLs in it.
    pub urls: u64,
    /// Missing from the last crawl.
    pub missing: u64,
    /// Mean containment.
    pub containment: Option<f64>,
    /// Mean similarity.
    pub similarity: Option<f64>,
    /// Mean reverse containment.
    pub reverse_containment: Option<f64>,
}

/// Hosts in the first and last crawl (Figure 6 in numbers).
#[derive(Clone, Debug, Serialize)]
pub struct HostsSummary {
    /// Hosts with pages in both.
    pub in_first_and_last: usize,
    /// Of those, with as many distinct clusters in both.
    pub same_number_of_clusters: usize,
    /// Their share.
    pub share_same: Option<f64>,
}

/// The summary of an evolve job (`summary.json`).
#[derive(Clone, Debug, Serialize)]
pub struct EvolveSummary {
    /// Per crawl.
    pub crawls: Vec<CrawlSummary>,
    /// Signature parameters.
    pub params: SketchParams,
    /// B-similarity of each crawl's clusters.
    pub level_b_similarity: u32,
    /// Recrawl thresholds.
    pub recrawl_config: RecrawlConfig,
    /// The size ranges.
    pub ranges: [&'static str; RANGES.len()],
    /// The last crawl's coefficients per size range.
    pub last_crawl_coefficients: Vec<LastCoefficients>,
    /// URLs per change bucket over every transition.
    pub change_buckets_all_transitions: BTreeMap<String, u64>,
    /// Hosts in the first and the last crawl.
    pub hosts: HostsSummary,
    /// Event counts per transition.
    pub events: Vec<EventCounts>,
    /// Recrawl advice counts.
    pub recrawl: RecrawlCounts,
    /// The advice made for the second-to-last crawl, checked on the last.
    pub recrawl_validation: Option<RecrawlValidation>,
    /// The evolution stage (after every crawl was folded in).
    pub seconds_evolve: f64,
    /// The whole job.
    pub seconds_total: f64,
}

/// What an evolve job found.
#[derive(Debug)]
pub struct EvolveJobReport {
    /// The crawls' labels, in order.
    pub labels: Vec<String>,
    /// The summary.
    pub summary: EvolveSummary,
    /// Coefficients, change, hosts, events, recrawl advice, per URL.
    pub evolution: EvolveReport,
    /// Every table.
    pub tables: EvolveTables,
}

/// Runs an evolve job over crawls in time order; `on_crawl` hears about each crawl once it is
/// folded in (its number, 0-based, and its summary).
pub fn run(
    crawls: &[Crawl],
    settings: &EvolveSettings,
    progress: &dyn Progress,
    on_crawl: &mut dyn FnMut(usize, &str, &CrawlSummary),
) -> Result<EvolveJobReport, Error> {
    let start = Instant::now();
    let o = settings.options();
    if crawls.is_empty() {
        return Err(SettingsError::new("crawls", 0, "at least one crawl").into());
    }
    let cfg = DedupConfig::new(Matching::Supershingles {
        min_agree: o.min_agree,
    });
    let mut evolution = Evolution::new(o.params.m);
    let mut per_crawl = Vec::new();
    for (n, crawl) in crawls.iter().enumerate() {
        let t = Instant::now();
        let loaded =
            crate::load::load(&crawl.inputs, &o.pipeline, &o.params, false, None, progress)?;
        let result = dedup(&loaded.corpus, &cfg)?;
        let fold = Instant::now();
        let counts = evolution
            .add_crawl(
                &crawl.label,
                &loaded.corpus,
                result
                    .clusters
                    .iter()
                    .map(|c| (c.canonical, c.members.as_slice())),
            )
            .clone();
        let seconds_fold = fold.elapsed().as_secs_f64();
        let summary = CrawlSummary {
            counts,
            inputs: loaded.corpus.inputs().to_vec(),
            records_skipped: loaded.records_skipped(),
            skipped: loaded.skipped(o.pipeline.skipped_examples),
            pages_without_terms: loaded.corpus.empty_pages(),
            pages_not_html_or_text: loaded.corpus.other_pages(),
            not_pages: loaded.corpus.not_pages().clone(),
            seconds_read_and_sketch: loaded.read_time.as_secs_f64(),
            seconds_cluster: result.counts.seconds.iter().map(|s| s.1).sum::<f64>(),
            seconds_fold_into_evolution: seconds_fold,
            seconds: t.elapsed().as_secs_f64(),
        };
        on_crawl(n, &crawl.label, &summary);
        per_crawl.push(summary);
    }
    let t = Instant::now();
    let report = evolution.finish(&o.recrawl);
    let seconds_evolve = t.elapsed().as_secs_f64();
    let labels = evolution.labels();
    let hosts_both: Vec<_> = report
        .hosts
        .iter()
        .filter(|h| h.pages_first > 0 && h.pages_last > 0)
        .collect();
    let same = hosts_both
        .iter()
        .filter(|h| h.clusters_first == h.clusters_last)
        .count();
    let mut bucket_totals = [0u64; 6];
    for row in report
        .change_all()
        .map_or(Vec::new(), |h| h.buckets(report.m))
    {
        for (t, v) in bucket_totals.iter_mut().zip(row) {
            *t += v;
        }
    }
    let summary = EvolveSummary {
        crawls: per_crawl,
        params: o.params.clone(),
        level_b_similarity: o.min_agree,
        recrawl_config: o.recrawl,
        ranges: RANGES,
        last_crawl_coefficients: report
            .coefficients
            .iter()
            .filter(|c| c.crawl + 1 == labels.len())
            .map(|c| LastCoefficients {
                range: RANGES[c.range],
                urls: c.urls,
                missing: c.missing,
                containment: c.containment,
                similarity: c.similarity,
                reverse_containment: c.reverse_containment,
            })
            .collect(),
        change_buckets_all_transitions: BUCKETS
            .iter()
            .zip(bucket_totals)
            .map(|(b, n)| (b.to_string(), n))
            .collect(),
        hosts: HostsSummary {
            in_first_and_last: hosts_both.len(),
            same_number_of_clusters: same,
            share_same: (!hosts_both.is_empty()).then(|| same as f64 / hosts_both.len() as f64),
        },
        events: report.event_counts.clone(),
        recrawl: report.recrawl_counts.clone(),
        recrawl_validation: report.validation.clone(),
        seconds_evolve,
        seconds_total: start.elapsed().as_secs_f64(),
    };
    let tables = tables(&evolution, &report, &labels, &o.recrawl);
    let labels = labels.iter().map(|l| l.to_string()).collect();
    Ok(EvolveJobReport {
        labels,
        summary,
        evolution: report,
        tables,
    })
}

//! The mirrors job (paper 004 section 4): host pairs, and subtrees of hosts, whose pages fall
//! into the same near-duplicate clusters, verified by shared URL suffixes; one row per pair with
//! its evidence.
//!
//! ```
//! use neardup_engine::mirrors::{self, MirrorKind, MirrorsOptions, MirrorsSettings};
//! use neardup_engine::{Input, NoProgress};
//! use neardup_ingest::Page;
//!
//! // Two hosts serving the same twelve pages, in memory.
//! let page = |i: u64| (0..200).map(|w| format!("t{}", (w * 31 + i * 977) % 4000)).collect::<Vec<_>>().join(" ");
//! let mut pages = Vec::new();
//! for host in ["docs.example.org", "mirror.example.net"] {
//!     for i in 0..12 {
//!         pages.push(Page::text(format!("https://{host}/guide/{i}.html"), page(i)));
//!     }
//! }
//! let settings = MirrorsSettings::new(MirrorsOptions::default()).unwrap();
//! let r = mirrors::run(&[Input::pages("mem", pages)], &settings, &NoProgress).unwrap();
//! assert_eq!(r.rows.len(), 1);
//! assert_eq!(r.rows[0].kind, MirrorKind::Mirror);
//! assert_eq!((r.rows[0].pages_shared_a, r.rows[0].suffix_match_last_arc), (12, Some(1.0)));
//! ```

use crate::clusters::{clusters, ClusterSource};
use crate::{Error, Input, PipelineConfig, Progress, SettingsError};
use neardup_report::Table;
pub use neardup_sites::mirrors::*;
use neardup_sketch::SketchParams;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::Instant;

/// What a mirrors job does; defaults as `neardup mirrors`.
#[derive(Clone, Debug)]
pub struct MirrorsOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Signature parameters.
    pub params: SketchParams,
    /// Where the near-duplicate clusters come from.
    pub clusters: ClusterSource,
    /// Host-to-IP addresses besides the records' own.
    pub hosts_ips: HashMap<String, Vec<String>>,
    /// Thresholds of the mirror rules.
    pub config: MirrorConfig,
}

impl Default for MirrorsOptions {
    fn default() -> Self {
        MirrorsOptions {
            pipeline: PipelineConfig::default(),
            params: SketchParams::default(),
            clusters: ClusterSource::Dedup,
            hosts_ips: HashMap::new(),
            config: MirrorConfig::default(),
        }
    }
}

/// Validated [`MirrorsOptions`].
#[derive(Clone, Debug)]
pub struct MirrorsSettings(MirrorsOptions);

impl MirrorsSettings {
    /// Checks the options.
    pub fn new(opts: MirrorsOptions) -> Result<MirrorsSettings, Error> {
        opts.params.validate()?;
        if let ClusterSource::Supershingles { min_agree } = opts.clusters {
            neardup_dedup::DedupConfig::new(neardup_dedup::Matching::Supershingles { min_agree })
                .validate(&opts.params)?;
        }
        let c = &opts.config;
        if !(c.bloom_fp > 0.0 && c.bloom_fp < 1.0) {
            return Err(
                SettingsError::new("bloom_fp", c.bloom_fp, "a rate between 0 and 1").into(),
            );
        }
        if !(0.0..=1.0).contains(&c.full_share) {
            return Err(
                SettingsError::new("full_share", c.full_share, "a share between 0 and 1").into(),
            );
        }
        Ok(MirrorsSettings(opts))
    }

    /// The options.
    pub fn options(&self) -> &MirrorsOptions {
        &self.0
    }
}

/// What a mirrors job found.
#[derive(Clone, Debug, Serialize)]
pub struct MirrorsReport {
    /// Counts, distribution, settings, timings.
    pub summary: MirrorsSummary,
    /// One row per host pair: mirrors and partial mirrors by decreasing size, then aliases.
    pub rows: Vec<MirrorRow>,
}

/// The summary of a mirrors job (`summary.json`).
#[derive(Clone, Debug, Serialize)]
pub struct MirrorsSummary {
    /// Inputs, in order.
    pub inputs: Vec<String>,
    /// Skipped records by reason, with the first examples.
    pub skipped: crate::Skipped,
    /// Pages sketched.
    pub pages: u32,
    /// Responses that are not pages, by why (a status other than 200, `meta-refresh`,
    /// `soft-404`): counted, never clustered.
    pub not_pages: std::collections::BTreeMap<String, u64>,
    /// Near-duplicate clusters the pairs come from.
    pub clusters: usize,
    /// The B-similarity of the clusters, when clustered here.
    pub level_b_similarity: Option<u32>,
    /// Rows of a clusters file whose URL is not among the inputs (skipped).
    pub clustered_urls_not_in_inputs: u64,
    /// Thresholds.
    pub config: MirrorConfig,
    /// Candidate hosts, pairs found, mirrors, partial mirrors, aliases, auto-mirrors.
    pub counts: MirrorCounts,
    /// Mirror sizes (pages shared) and how many pairs have each (paper 004 Figure 12).
    pub size_distribution: Vec<(u64, u64)>,
    /// Groups of hosts joined by the pairs: id, kind, every member.
    pub groups: Vec<MirrorGroup>,
    /// Why nothing was found, when nothing was.
    pub explanation: Option<String>,
    /// Reading and sketching.
    pub seconds_read_and_sketch: f64,
    /// Mirror detection.
    pub seconds_mirrors: f64,
    /// The whole job.
    pub seconds_total: f64,
}

/// Runs a mirrors job.
pub fn run(
    inputs: &[Input],
    settings: &MirrorsSettings,
    progress: &dyn Progress,
) -> Result<MirrorsReport, Error> {
    crate::on_threads(settings.options().pipeline.threads, || {
        run_here(inputs, settings, progress)
    })
}

fn run_here(
    inputs: &[Input],
    settings: &MirrorsSettings,
    progress: &dyn Progress,
) -> Result<MirrorsReport, Error> {
    let start = Instant::now();
    let o = settings.options();
    let loaded = crate::load::load(inputs, &o.pipeline, &o.params, false, None, progress)?;
    let corpus = &loaded.corpus;
    let found = clusters(corpus, &o.clusters)?;
    let t = Instant::now();
    let report = mirrors(corpus, &found.clusters, &o.hosts_ips, &o.config);
    let seconds_mirrors = t.elapsed().as_secs_f64();
    Ok(MirrorsReport {
        rows: rows(&report),
        summary: MirrorsSummary {
            inputs: corpus.inputs().to_vec(),
            skipped: loaded.skipped(o.pipeline.skipped_examples),
            pages: corpus.len(),
            not_pages: corpus.not_pages().clone(),
            clusters: found.clusters.len(),
            level_b_similarity: match o.clusters {
                ClusterSource::Supershingles { min_agree } => Some(min_agree),
                _ => None,
            },
            clustered_urls_not_in_inputs: found.missing_urls,
            config: o.config.clone(),
            counts: report.counts,
            size_distribution: report.size_distribution,
            groups: report.groups,
            explanation: report.explanation,
            seconds_read_and_sketch: loaded.read_time.as_secs_f64(),
            seconds_mirrors,
            seconds_total: start.elapsed().as_secs_f64(),
        },
    })
}

/// A row of `mirrors`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MirrorRow {
    /// The group of hosts the pair belongs to (the summary's `groups`).
    pub group: u32,
    /// First host.
    pub host_a: String,
    /// Second host.
    pub host_b: String,
    /// The subtree of `host_a` (`/` for the whole host).
    pub prefix_a: String,
    /// The subtree of `host_b`.
    pub prefix_b: String,
    /// Mirror, partial mirror, subtree mirror (within a host), parked or alias.
    pub kind: MirrorKind,
    /// Why an alias is one (empty otherwise).
    pub alias_reason: String,
    /// Pages of `a` in clusters shared with `b`.
    pub pages_shared_a: u64,
    /// Pages of `b` in clusters shared with `a`.
    pub pages_shared_b: u64,
    /// Pages of `a` (under `prefix_a` for a subtree mirror).
    pub pages_a: u64,
    /// Pages of `b` (under `prefix_b` for a subtree mirror).
    pub pages_b: u64,
    /// Share of shared pages whose last URL arc is also on the other host.
    pub suffix_match_last_arc: Option<f64>,
    /// The same for the last four arcs.
    pub suffix_match_four_arcs: Option<f64>,
    /// Distinct IPs of `a`.
    pub ips_a: u64,
    /// Distinct IPs of `b`.
    pub ips_b: u64,
    /// Example URL pairs, `url_a url_b` joined by `; `.
    pub examples: String,
}

impl Table for MirrorRow {
    const NAME: &'static str = "mirrors";
}

/// The rows of a report.
pub fn rows(report: &MirrorReport) -> Vec<MirrorRow> {
    let opt = |f: f64| (!f.is_nan()).then_some(f);
    report
        .pairs
        .iter()
        .map(|p| MirrorRow {
            group: p.group,
            host_a: p.host_a.clone(),
            host_b: p.host_b.clone(),
            prefix_a: p.prefix_a.clone(),
            prefix_b: p.prefix_b.clone(),
            kind: p.kind,
            alias_reason: p.alias_reason.unwrap_or("").to_string(),
            pages_shared_a: p.shared_a,
            pages_shared_b: p.shared_b,
            pages_a: p.pages_a,
            pages_b: p.pages_b,
            suffix_match_last_arc: opt(p.suffix_match_last_arc),
            suffix_match_four_arcs: opt(p.suffix_match_four_arcs),
            ips_a: p.ips_a,
            ips_b: p.ips_b,
            examples: p
                .examples
                .iter()
                .map(|(a, b)| format!("{a} {b}"))
                .collect::<Vec<_>>()
                .join("; "),
        })
        .collect()
}

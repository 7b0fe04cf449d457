//! The replicas job (paper 001): candidate site pairs from shared dup-clusters, ranked by two
//! classifiers learned without labels; the predicted-label rule and the rows of `replicas`,
//! `site_clusters` and `sites`.

use crate::clusters::{clusters, ClusterSource};
use crate::{Error, Input, PipelineConfig, Progress, SettingsError};
use neardup_replicas::features::Obvious;
use neardup_replicas::mdl::Discretizer;
use neardup_replicas::FEATURE_NAMES;
use neardup_report::Table;
pub use neardup_sites::replicas::*;
use neardup_sketch::SketchParams;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::Instant;

/// What a replicas job does; defaults as `neardup replicas`.
#[derive(Clone, Debug)]
pub struct ReplicasOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Signature parameters.
    pub params: SketchParams,
    /// Where the dup-clusters come from.
    pub clusters: ClusterSource,
    /// Host-to-IP addresses besides the records' own.
    pub hosts_ips: HashMap<String, Vec<String>>,
    /// Sampling, EM and feature settings.
    pub config: ReplicaConfig,
    /// Which candidates are predicted replicas.
    pub prediction: Prediction,
}

impl Default for ReplicasOptions {
    fn default() -> Self {
        ReplicasOptions {
            pipeline: PipelineConfig::default(),
            params: SketchParams::default(),
            clusters: ClusterSource::Supershingles { min_agree: 2 },
            hosts_ips: HashMap::new(),
            config: ReplicaConfig::default(),
            prediction: Prediction::BothClassifiers,
        }
    }
}

/// The feature mask of feature names (`ndist`, `nmatch`, `ip4`, `ip3`, `fullpath`); none means
/// all.
pub fn feature_mask<S: AsRef<str>>(names: &[S]) -> Result<u8, SettingsError> {
    let mut mask = 0u8;
    for f in names {
        match FEATURE_NAMES.iter().position(|n| *n == f.as_ref()) {
            Some(i) => mask |= 1 << i,
            None => {
                return Err(SettingsError::new(
                    "features",
                    f.as_ref(),
                    format!("some of {}", FEATURE_NAMES.join(",")),
                ))
            }
        }
    }
    Ok(if mask == 0 {
        neardup_replicas::lac::MASKS
    } else {
        mask
    })
}

/// Validated [`ReplicasOptions`].
#[derive(Clone, Debug)]
pub struct ReplicasSettings(ReplicasOptions);

impl ReplicasSettings {
    /// Checks the options.
    pub fn new(opts: ReplicasOptions) -> Result<ReplicasSettings, Error> {
        opts.params.validate()?;
        if let ClusterSource::Supershingles { min_agree } = opts.clusters {
            neardup_dedup::DedupConfig::new(neardup_dedup::Matching::Supershingles { min_agree })
                .validate(&opts.params)?;
        }
        if let Prediction::MinScore(s) = opts.prediction {
            if !(0.0..=1.0).contains(&s) {
                return Err(SettingsError::new("min_score", s, "a value between 0 and 1").into());
            }
        }
        let f = opts.config.features;
        if f == 0 || f & !neardup_replicas::lac::MASKS != 0 {
            return Err(SettingsError::new(
                "features",
                format!("{f:#b}"),
                "a non-empty set of the five features",
            )
            .into());
        }
        Ok(ReplicasSettings(opts))
    }

    /// The options.
    pub fn options(&self) -> &ReplicasOptions {
        &self.0
    }
}

/// The cut points each classifier learned.
#[derive(Clone, Debug, Serialize)]
pub struct Discretization {
    /// Feature names, in cut-point order.
    pub features: [&'static str; 5],
    /// From the PU training labels.
    pub pu: Discretizer,
    /// From the NU training labels.
    pub nu: Discretizer,
}

/// The summary of a replicas job (`summary.json`).
#[derive(Clone, Debug, Serialize)]
pub struct ReplicasSummary {
    /// Inputs, in order.
    pub inputs: Vec<String>,
    /// Skipped records by reason, with the first examples.
    pub skipped: crate::Skipped,
    /// Pages sketched.
    pub pages: u32,
    /// Responses that are not pages, by why (a status other than 200, `meta-refresh`,
    /// `soft-404`): counted, never clustered.
    pub not_pages: std::collections::BTreeMap<String, u64>,
    /// The B-similarity of the dup-clusters, when clustered here by supershingles.
    pub level_b_similarity: Option<u32>,
    /// `near-duplicate`, `exact` or `file`.
    pub dup_clusters: &'static str,
    /// Rows of a clusters file whose URL is not among the inputs (skipped).
    pub clustered_urls_not_in_inputs: u64,
    /// Sampling, EM and feature settings.
    pub config: ReplicaConfig,
    /// Sites, clusters, candidates, obvious pairs.
    pub counts: ReplicaCounts,
    /// Candidates predicted replicas.
    pub predicted_replicas: u64,
    /// The prediction rule, in words.
    pub prediction_rule: String,
    /// The features the classifiers use.
    pub features_used: Vec<&'static str>,
    /// The cut points.
    pub discretization: Discretization,
    /// EM passes, transitions and per-candidate times (paper 001 Table 5).
    pub times: ReplicaTimes,
    /// Reading and sketching.
    pub seconds_read_and_sketch: f64,
    /// Clustering (or reading the clusters).
    pub seconds_clusters: f64,
    /// The replica stage.
    pub seconds_replicas: f64,
    /// The whole job.
    pub seconds_total: f64,
}

/// What a replicas job found.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicasReport {
    /// Counts, settings, timings.
    pub summary: ReplicasSummary,
    /// Every table.
    pub tables: ReplicaTables,
}

/// Runs a replicas job.
pub fn run(
    inputs: &[Input],
    settings: &ReplicasSettings,
    progress: &dyn Progress,
) -> Result<ReplicasReport, Error> {
    crate::on_threads(settings.options().pipeline.threads, || {
        run_here(inputs, settings, progress)
    })
}

fn run_here(
    inputs: &[Input],
    settings: &ReplicasSettings,
    progress: &dyn Progress,
) -> Result<ReplicasReport, Error> {
    let start = Instant::now();
    let o = settings.options();
    let loaded = crate::load::load(inputs, &o.pipeline, &o.params, false, None, progress)?;
    let corpus = &loaded.corpus;
    let t = Instant::now();
    let found = clusters(corpus, &o.clusters)?;
    let seconds_clusters = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let report = replicas(corpus, &found.clusters, &o.hosts_ips, &o.config);
    let seconds_replicas = t.elapsed().as_secs_f64();
    let tables = tables(&report, o.prediction);
    let features = o.config.features;
    let summary = ReplicasSummary {
        inputs: corpus.inputs().to_vec(),
        skipped: loaded.skipped(o.pipeline.skipped_examples),
        pages: corpus.len(),
        not_pages: corpus.not_pages().clone(),
        level_b_similarity: match o.clusters {
            ClusterSource::Supershingles { min_agree } => Some(min_agree),
            _ => None,
        },
        dup_clusters: match o.clusters {
            ClusterSource::Supershingles { .. } | ClusterSource::Dedup => "near-duplicate",
            ClusterSource::Exact => "exact",
            ClusterSource::File(_) => "file",
        },
        clustered_urls_not_in_inputs: found.missing_urls,
        config: o.config.clone(),
        counts: report.counts.clone(),
        predicted_replicas: tables.replicas.iter().filter(|r| r.predicted).count() as u64,
        prediction_rule: o.prediction.describe(),
        features_used: FEATURE_NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| features & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect(),
        discretization: Discretization {
            features: FEATURE_NAMES,
            pu: report.discretizer_pu.clone(),
            nu: report.discretizer_nu.clone(),
        },
        times: report.times.clone(),
        seconds_read_and_sketch: loaded.read_time.as_secs_f64(),
        seconds_clusters,
        seconds_replicas,
        seconds_total: start.elapsed().as_secs_f64(),
    };
    Ok(ReplicasReport { summary, tables })
}

/// Which candidates are predicted replicas.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prediction {
    /// The `n` best-ranked candidates (Algorithm 4's n).
    Top(usize),
    /// Candidates whose aggregated score (share of candidates they dominate) is at least this.
    MinScore(f64),
    /// Candidates both classifiers give a replica likelihood above 0.5.
    BothClassifiers,
}

impl Prediction {
    /// The rule in words.
    pub fn describe(self) -> String {
        match self {
            Prediction::Top(n) => format!("top {n}"),
            Prediction::MinScore(s) => format!("score >= {s}"),
            Prediction::BothClassifiers => "alpha_pu > 0.5 and alpha_nu > 0.5".to_string(),
        }
    }

    /// The predicted label of a candidate.
    pub fn predicts(self, c: &Candidate) -> bool {
        match self {
            Prediction::Top(n) => c.rank <= n as u64,
            Prediction::MinScore(s) => c.score >= s,
            Prediction::BothClassifiers => c.alpha_pu > 0.5 && c.alpha_nu > 0.5,
        }
    }
}

/// A row of `replicas`: a candidate site pair, ranked, with its features and both classifiers'
/// likelihoods.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicaRow {
    /// Rank by aggregated score, 1-based.
    pub rank: u64,
    /// First site.
    pub host_a: String,
    /// Second site.
    pub host_b: String,
    /// Predicted a replica pair.
    pub predicted: bool,
    /// `www` or `tld` for an obvious replica pair, else empty.
    pub obvious: String,
    /// Share of candidates this one dominates (Pareto).
    pub score: f64,
    /// Candidates it dominates.
    pub dominance: u64,
    /// On the Pareto frontier.
    pub frontier: bool,
    /// Replica likelihood from the PU classifier.
    pub alpha_pu: f64,
    /// Replica likelihood from the NU classifier.
    pub alpha_nu: f64,
    /// NormPaths (the baseline).
    pub normpaths: f64,
    /// Jaccard of the two sites' cluster sets.
    pub jaccard: f64,
    /// Clusters shared.
    pub shared_clusters: u64,
    /// Normalized edit distance of the host names.
    pub ndist: f64,
    /// Host-segment cosine.
    pub nmatch: f64,
    /// IP match by four octets.
    pub ip4: f64,
    /// IP match by three octets.
    pub ip3: f64,
    /// Path cosine.
    pub fullpath: f64,
    /// Pages of `a`.
    pub pages_a: u64,
    /// Pages of `b`.
    pub pages_b: u64,
    /// Pages of `a` in shared clusters.
    pub dup_pages_a: u64,
    /// Pages of `b` in shared clusters.
    pub dup_pages_b: u64,
    /// The final EM label of the PU run.
    pub em_label_pu: bool,
    /// The final EM label of the NU run.
    pub em_label_nu: bool,
}

impl Table for ReplicaRow {
    const NAME: &'static str = "replicas";
}

/// A row of `site_clusters`: pages of a site in a dup-cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteClusterRow {
    /// Site.
    pub host: String,
    /// Cluster number.
    pub cluster: u64,
    /// Pages of the site in it.
    pub pages: u64,
}

impl Table for SiteClusterRow {
    const NAME: &'static str = "site_clusters";
}

/// A row of `sites`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteRow {
    /// Site.
    pub host: String,
    /// Pages.
    pub pages: u64,
    /// Pages in dup-clusters.
    pub duplicate_pages: u64,
    /// Server IPs, space-separated.
    pub ips: String,
}

impl Table for SiteRow {
    const NAME: &'static str = "sites";
}

/// Every table of a replicas run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReplicaTables {
    /// Candidates, ranked.
    pub replicas: Vec<ReplicaRow>,
    /// Site-cluster incidence.
    pub site_clusters: Vec<SiteClusterRow>,
    /// Sites.
    pub sites: Vec<SiteRow>,
}

/// The tables of a report.
pub fn tables(report: &ReplicaReport, prediction: Prediction) -> ReplicaTables {
    let host = |s: u32| report.sites[s as usize].host.clone();
    let replicas = report
        .candidates
        .iter()
        .map(|c| {
            let f = c.features;
            ReplicaRow {
                rank: c.rank,
                host_a: host(c.a),
                host_b: host(c.b),
                predicted: prediction.predicts(c),
                obvious: match c.obvious {
                    Some(Obvious::Www) => "www",
                    Some(Obvious::Tld) => "tld",
                    None => "",
                }
                .to_string(),
                score: c.score,
                dominance: c.dominance,
                frontier: c.frontier,
                alpha_pu: c.alpha_pu,
                alpha_nu: c.alpha_nu,
                normpaths: c.normpaths,
                jaccard: c.jaccard,
                shared_clusters: c.shared_clusters as u64,
                ndist: f[0],
                nmatch: f[1],
                ip4: f[2],
                ip3: f[3],
                fullpath: f[4],
                pages_a: report.sites[c.a as usize].pages,
                pages_b: report.sites[c.b as usize].pages,
                dup_pages_a: c.dup_pages_a,
                dup_pages_b: c.dup_pages_b,
                em_label_pu: c.em_label_pu,
                em_label_nu: c.em_label_nu,
            }
        })
        .collect();
    let site_clusters = report
        .site_clusters
        .iter()
        .map(|&(s, c, n)| SiteClusterRow {
            host: host(s),
            cluster: c as u64,
            pages: n as u64,
        })
        .collect();
    let sites = report
        .sites
        .iter()
        .map(|s| SiteRow {
            host: s.host.clone(),
            pages: s.pages,
            duplicate_pages: s.duplicate_pages,
            ips: s.ips.join(" "),
        })
        .collect();
    ReplicaTables {
        replicas,
        site_clusters,
        sites,
    }
}

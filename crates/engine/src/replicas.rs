//! The replicas job's tables and rules: the predicted label of a candidate, clusters of
//! identical content (`--exact`), and the rows of `replicas`, `site_clusters` and `sites`.

use neardup_replicas::features::Obvious;
use neardup_report::Table;
pub use neardup_sites::replicas::*;
use neardup_store::Corpus;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

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
    /// The predicted label of a candidate.
    pub fn predicts(self, c: &Candidate) -> bool {
        match self {
            Prediction::Top(n) => c.rank <= n as u64,
            Prediction::MinScore(s) => c.score >= s,
            Prediction::BothClassifiers => c.alpha_pu > 0.5 && c.alpha_nu > 0.5,
        }
    }
}

/// Dup-clusters of pages with identical content fingerprints (the same token sequence), as
/// paper 001 uses them; each increasing, in order of their first page.
pub fn exact_clusters(corpus: &Corpus) -> Vec<Vec<u32>> {
    let mut by_hash: HashMap<u64, Vec<u32>> = HashMap::new();
    for (p, m) in corpus.pages.iter().enumerate() {
        by_hash.entry(m.token_hash).or_default().push(p as u32);
    }
    let mut v: Vec<Vec<u32>> = by_hash.into_values().filter(|c| c.len() >= 2).collect();
    v.sort_unstable();
    v
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

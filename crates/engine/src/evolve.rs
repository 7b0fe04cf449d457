//! The evolve job's tables: coefficients, change, change buckets, hosts, events, recrawl advice
//! and each crawl's clusters, with crawl labels and URLs in place of ids.

pub use neardup_evolve::*;
use neardup_report::Table;
use serde::{Deserialize, Serialize};

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

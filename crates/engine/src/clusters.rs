//! Where the site jobs (mirrors, replicas) get their near-duplicate clusters from: clustered
//! here, identical content, or the `clusters` table of an earlier dedup run.

use crate::Error;
use neardup_dedup::{dedup, DedupConfig, Matching};
use neardup_report::{read_rows, Record};
use neardup_store::Corpus;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// Where clusters come from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterSource {
    /// Clustered here by supershingles at this B-similarity (paper 004's clusters).
    Supershingles {
        /// B-similarity threshold.
        min_agree: u32,
    },
    /// Pages with identical content fingerprints (the same token sequence), as paper 001.
    Exact,
    /// Clustered here as `neardup dedup` does by default ([`DedupConfig::accurate`]).
    Dedup,
    /// The `clusters` table of an earlier `neardup dedup` run (any format, any algorithm).
    File(PathBuf),
}

/// Clusters as page numbers of the corpus, each increasing, and the clustered URLs of a file
/// that are not in the corpus (skipped).
#[derive(Clone, Debug, Default)]
pub struct Clusters {
    /// Page numbers of each cluster.
    pub clusters: Vec<Vec<u32>>,
    /// Rows of a clusters file whose URL is not among the inputs.
    pub missing_urls: u64,
}

/// The clusters of `corpus` from `source`.
pub fn clusters(corpus: &Corpus, source: &ClusterSource) -> Result<Clusters, Error> {
    Ok(match source {
        ClusterSource::Supershingles { min_agree } => Clusters {
            clusters: dedup(
                corpus,
                &DedupConfig::new(Matching::Supershingles {
                    min_agree: *min_agree,
                }),
            )?
            .clusters
            .into_iter()
            .map(|c| c.members)
            .collect(),
            missing_urls: 0,
        },
        ClusterSource::Exact => Clusters {
            clusters: exact_clusters(corpus),
            missing_urls: 0,
        },
        ClusterSource::Dedup => Clusters {
            clusters: dedup(corpus, &DedupConfig::accurate(corpus.family().params().m))?
                .clusters
                .into_iter()
                .map(|c| c.members)
                .collect(),
            missing_urls: 0,
        },
        ClusterSource::File(path) => from_file(path, corpus)?,
    })
}

/// Dup-clusters of pages with identical content fingerprints (the same token sequence), as
/// paper 001 uses them; each increasing, in order of their first page.
pub fn exact_clusters(corpus: &Corpus) -> Vec<Vec<u32>> {
    let mut by_hash: HashMap<u64, Vec<u32>> = HashMap::new();
    for (p, m) in corpus.pages().enumerate() {
        by_hash.entry(m.token_hash).or_default().push(p as u32);
    }
    let mut v: Vec<Vec<u32>> = by_hash.into_values().filter(|c| c.len() >= 2).collect();
    v.sort_unstable();
    v
}

/// Clusters of a dedup `clusters` table (url and cluster columns), as page numbers of the
/// corpus.
fn from_file(path: &std::path::Path, corpus: &Corpus) -> Result<Clusters, Error> {
    let by_url = corpus.url_index();
    let mut by_cluster: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    let mut missing = 0u64;
    for row in read_rows::<Record>(path)? {
        let url = row.get("url").and_then(|v| v.as_str());
        let cluster = row.get("cluster").and_then(|v| match v {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) => s.parse().ok(),
            _ => None,
        });
        let (Some(url), Some(cluster)) = (url, cluster) else {
            return Err(Error::BadTable {
                path: path.to_path_buf(),
                what: "rows need url and cluster columns".into(),
            });
        };
        match by_url.get(url) {
            Some(&p) => by_cluster.entry(cluster).or_default().push(p),
            None => missing += 1,
        }
    }
    Ok(Clusters {
        clusters: by_cluster
            .into_values()
            .map(|mut v| {
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect(),
        missing_urls: missing,
    })
}

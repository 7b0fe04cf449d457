//! Labelled site pairs against a `neardup replicas` run, as paper 001 section 4 scores its four
//! rankings (PU, NU, PU+NU, NormPaths): ROC and AUC, TPR, precision and reduction ratio of
//! duplicate URLs at fixed false-positive rates (Table 3), replica detection rate among k + 1
//! candidates (Table 4). Candidates not in the labels count as non-replicas.

use super::{bad_row, label, records, text};
use crate::replicas::{ReplicaRow, SiteClusterRow, SiteRow};
use crate::Error;
use neardup_eval::sites::{
    at_fpr, auc, reduction, replica_detection_rate, roc_curve, RocPoint, RocRow,
};
use neardup_report::{read_rows, Table};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The rankings compared: name and the column of the replicas table that scores it.
pub const METHODS: [(&str, &str); 4] = [
    ("pu", "alpha_pu"),
    ("nu", "alpha_nu"),
    ("pu+nu", "score"),
    ("normpaths", "normpaths"),
];

/// False-positive rates of Table 3 (and a few more).
pub const FPRS: [f64; 5] = [0.0, 0.001, 0.005, 0.01, 0.05];

/// Candidates per detection-rate list (Table 4: k + 1).
pub const KS: [usize; 4] = [10, 100, 1000, 10_000];

/// An operating point of a ranking (Table 3).
#[derive(Clone, Debug, Serialize)]
pub struct Operating {
    /// The false-positive rate allowed.
    pub max_fpr: f64,
    /// The score threshold there.
    pub threshold: f64,
    /// True-positive rate.
    pub tpr: f64,
    /// False-positive rate.
    pub fpr: f64,
    /// Precision.
    pub precision: f64,
    /// Pairs predicted.
    pub predicted: usize,
    /// Share of duplicate pages removed.
    pub reduction_ratio: f64,
    /// Duplicate pages removed.
    pub duplicate_pages_removed: u64,
}

/// One ranking's scores.
#[derive(Clone, Debug, Serialize)]
pub struct MethodReport {
    /// pu, nu, pu+nu or normpaths.
    pub method: &'static str,
    /// The replicas table column it ranks by.
    pub column: &'static str,
    /// Area under the ROC curve.
    pub auc: f64,
    /// Operating points at [`FPRS`].
    pub at_fpr: Vec<Operating>,
    /// Replica detection rate among k + 1 candidates, for k in [`KS`].
    pub replica_detection_rate: Vec<(usize, Option<f64>)>,
    /// The ROC curve.
    #[serde(skip)]
    pub roc: Vec<RocPoint>,
}

/// What a site-pair eval found (`site-eval.json`).
#[derive(Clone, Debug, Serialize)]
pub struct SiteEval {
    /// The truth table.
    pub truth: String,
    /// The replicas table read.
    pub replicas: String,
    /// Labelled pairs.
    pub labelled_pairs: usize,
    /// Pairs scored (candidates plus labelled pairs that are not candidates).
    pub pairs_scored: usize,
    /// Replica pairs among them.
    pub replicas_labelled: usize,
    /// Labelled replicas the run did not make candidates.
    pub replicas_not_among_candidates: u64,
    /// Candidates missing from the labels, counted as non-replicas.
    pub candidates_not_in_labels_counted_as_non_replicas: u64,
    /// Per ranking.
    pub methods: Vec<MethodReport>,
}

impl SiteEval {
    /// The rows of `roc.csv`.
    pub fn roc_rows(&self) -> Vec<RocRow> {
        self.methods
            .iter()
            .flat_map(|m| {
                m.roc.iter().map(move |p| RocRow {
                    method: m.method.to_string(),
                    threshold: p.threshold,
                    tpr: p.tpr,
                    fpr: p.fpr,
                    precision: p.precision,
                    predicted: p.predicted as u64,
                })
            })
            .collect()
    }
}

/// A table of a replicas run folder: `NAME.jsonl`, `.csv` or `.parquet`, the first that exists.
fn table_in<T: Table>(dir: &Path) -> Result<PathBuf, Error> {
    ["jsonl", "csv", "parquet"]
        .iter()
        .map(|e| dir.join(format!("{}.{e}", T::NAME)))
        .find(|p| p.is_file())
        .ok_or_else(|| Error::BadTable {
            path: dir.to_path_buf(),
            what: format!("no {0}.jsonl, {0}.csv or {0}.parquet", T::NAME),
        })
}

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// The replicas table of `pred`: a run's folder, or its replicas table (any format).
pub fn replicas_table(pred: &Path) -> Result<PathBuf, Error> {
    if pred.is_dir() {
        table_in::<ReplicaRow>(pred)
    } else {
        Ok(pred.to_path_buf())
    }
}

/// Scores a replicas run (`pred`: its folder or its replicas table, in any format) against
/// labelled site pairs.
pub fn run(truth: &Path, pred: &Path) -> Result<SiteEval, Error> {
    let mut labels: HashMap<(String, String), bool> = HashMap::new();
    for (i, r) in records(truth)?.iter().enumerate() {
        let (Some(a), Some(b)) = (text(r.get("host_a")), text(r.get("host_b"))) else {
            return Err(bad_row(truth, i, "host_a and host_b are required".into()));
        };
        let positive = label(r.get("replica").or(r.get("label"))).map_err(|got| {
            bad_row(
                truth,
                i,
                format!(
                    "replica must be 1 or 0, found {}",
                    got.map_or("nothing".to_string(), |g| format!("{g:?}"))
                ),
            )
        })?;
        labels.insert(key(&a, &b), positive);
    }
    let table = replicas_table(pred)?;
    let dir = table
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let rows: Vec<ReplicaRow> = read_rows(&table).map_err(|e| Error::BadTable {
        path: table.clone(),
        what: format!("not a `neardup replicas` table: {e}"),
    })?;
    let mut site_id: HashMap<String, u32> = HashMap::new();
    let mut site_pages: Vec<u64> = Vec::new();
    for r in read_rows::<SiteRow>(&table_in::<SiteRow>(&dir)?)? {
        site_id.insert(r.host, site_pages.len() as u32);
        site_pages.push(r.pages);
    }
    let site_clusters: Vec<(u32, u32, u64)> =
        read_rows::<SiteClusterRow>(&table_in::<SiteClusterRow>(&dir)?)?
            .into_iter()
            .filter_map(|r| Some((*site_id.get(&r.host)?, r.cluster as u32, r.pages)))
            .collect();
    // Every candidate (unlisted = not a replica) plus every labelled pair that is not one.
    struct Pair {
        sites: Option<(u32, u32)>,
        replica: bool,
        scores: [Option<f64>; 4],
    }
    let mut pairs: Vec<Pair> = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut unlisted = 0u64;
    for r in &rows {
        let k = key(&r.host_a, &r.host_b);
        let replica = match labels.get(&k) {
            Some(&l) => l,
            None => {
                unlisted += 1;
                false
            }
        };
        seen.insert(k);
        let sites = site_id
            .get(&r.host_a)
            .copied()
            .zip(site_id.get(&r.host_b).copied());
        pairs.push(Pair {
            sites,
            replica,
            scores: [
                Some(r.alpha_pu),
                Some(r.alpha_nu),
                Some(r.score),
                Some(r.normpaths),
            ],
        });
    }
    let mut missed = 0u64;
    for (k, &l) in &labels {
        if !seen.contains(k) {
            missed += l as u64;
            pairs.push(Pair {
                sites: None,
                replica: l,
                scores: [None; 4],
            });
        }
    }
    let positives = pairs.iter().filter(|p| p.replica).count();
    let mut methods = Vec::new();
    for (m, &(method, column)) in METHODS.iter().enumerate() {
        let scored: Vec<(bool, Option<f64>)> =
            pairs.iter().map(|p| (p.replica, p.scores[m])).collect();
        let curve = roc_curve(&scored);
        // Pairs in decreasing score: the first `predicted` are removed at an operating point.
        let mut order: Vec<usize> = (0..pairs.len())
            .filter(|&i| pairs[i].scores[m].is_some())
            .collect();
        order.sort_by(|&x, &y| {
            pairs[y].scores[m]
                .unwrap_or(f64::NEG_INFINITY)
                .total_cmp(&pairs[x].scores[m].unwrap_or(f64::NEG_INFINITY))
        });
        let at: Vec<Operating> = FPRS
            .iter()
            .map(|&f| {
                let p = at_fpr(&curve, f);
                let removed: Vec<(u32, u32)> = order
                    .iter()
                    .take(p.predicted)
                    .filter_map(|&i| pairs[i].sites)
                    .collect();
                let (gone, total) = reduction(&removed, &site_pages, &site_clusters);
                Operating {
                    max_fpr: f,
                    threshold: p.threshold,
                    tpr: p.tpr,
                    fpr: p.fpr,
                    precision: p.precision,
                    predicted: p.predicted,
                    reduction_ratio: if total > 0 {
                        gone as f64 / total as f64
                    } else {
                        0.0
                    },
                    duplicate_pages_removed: gone,
                }
            })
            .collect();
        let rdr = KS
            .iter()
            .map(|&k| (k, replica_detection_rate(&scored, k, 1000, 1)))
            .collect();
        methods.push(MethodReport {
            method,
            column,
            auc: auc(&curve),
            at_fpr: at,
            replica_detection_rate: rdr,
            roc: curve,
        });
    }
    Ok(SiteEval {
        truth: truth.display().to_string(),
        replicas: table.display().to_string(),
        labelled_pairs: labels.len(),
        pairs_scored: pairs.len(),
        replicas_labelled: positives,
        replicas_not_among_candidates: missed,
        candidates_not_in_labels_counted_as_non_replicas: unlisted,
        methods,
    })
}

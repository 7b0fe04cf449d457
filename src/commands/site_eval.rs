//! `neardup eval` with site-pair labels: scores a `neardup replicas` run as paper 001 section 4
//! does, for its four rankings (PU, NU, PU+NU, NormPaths).

use super::eval::{number, read_table, text};
use crate::flags::EvalArgs;
use anyhow::{bail, Context, Result};
use neardup_eval::sites::RocRow;
use neardup_eval::sites::{at_fpr, auc, reduction, replica_detection_rate, roc_curve, RocPoint};
use neardup_report::plot::{line_chart, Axis, Series};
use neardup_report::Format;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The rankings compared: name and the column of the replicas table that scores it.
const METHODS: [(&str, &str); 4] = [
    ("pu", "alpha_pu"),
    ("nu", "alpha_nu"),
    ("pu+nu", "score"),
    ("normpaths", "normpaths"),
];

/// False-positive rates of Table 3 (and a few more).
const FPRS: [f64; 5] = [0.0, 0.001, 0.005, 0.01, 0.05];

/// Candidates per detection-rate list (Table 4: k + 1).
const KS: [usize; 4] = [10, 100, 1000, 10_000];

#[derive(Serialize)]
struct Operating {
    max_fpr: f64,
    threshold: f64,
    tpr: f64,
    fpr: f64,
    precision: f64,
    predicted: usize,
    reduction_ratio: f64,
    duplicate_pages_removed: u64,
}

#[derive(Serialize)]
struct MethodReport {
    method: &'static str,
    column: &'static str,
    auc: f64,
    at_fpr: Vec<Operating>,
    replica_detection_rate: Vec<(usize, Option<f64>)>,
}

/// Whether a truth table holds site-pair labels.
pub fn is_site_labels(path: &Path) -> Result<bool> {
    let rows = read_table(path)?;
    Ok(rows.first().is_some_and(|r| r.contains_key("host_a")))
}

/// `name.jsonl`, `.csv` or `.parquet`... in `dir`: the first that exists.
fn table_in(dir: &Path, name: &str) -> Result<PathBuf> {
    ["jsonl", "csv"]
        .iter()
        .map(|e| dir.join(format!("{name}.{e}")))
        .find(|p| p.is_file())
        .with_context(|| format!("{}: no {name}.jsonl or {name}.csv", dir.display()))
}

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

pub fn run(args: &EvalArgs, quiet: bool) -> Result<()> {
    // Labels.
    let mut labels: HashMap<(String, String), (bool, String)> = HashMap::new();
    for (i, r) in read_table(&args.truth)?.iter().enumerate() {
        let (Some(a), Some(b)) = (text(r.get("host_a")), text(r.get("host_b"))) else {
            bail!(
                "{}: row {}: host_a and host_b are required",
                args.truth.display(),
                i + 1
            );
        };
        let positive = match text(r.get("replica").or(r.get("label"))).as_deref() {
            Some("1") | Some("true") => true,
            Some("0") | Some("false") => false,
            other => bail!(
                "{}: row {}: replica must be 1 or 0, found {other:?}",
                args.truth.display(),
                i + 1
            ),
        };
        labels.insert(
            key(&a, &b),
            (positive, text(r.get("kind")).unwrap_or_default()),
        );
    }
    // The replicas run: a folder or its replicas table.
    let (dir, table) = if args.pred.is_dir() {
        (args.pred.clone(), table_in(&args.pred, "replicas")?)
    } else {
        (
            args.pred
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            args.pred.clone(),
        )
    };
    let rows = read_table(&table)?;
    if rows.first().is_some_and(|r| !r.contains_key("alpha_pu")) {
        bail!("{}: not a `neardup replicas` table", table.display());
    }
    let mut site_id: HashMap<String, u32> = HashMap::new();
    let mut site_pages: Vec<u64> = Vec::new();
    for r in read_table(&table_in(&dir, "sites")?)? {
        let h = text(r.get("host")).unwrap_or_default();
        site_id.insert(h, site_pages.len() as u32);
        site_pages.push(number(r.get("pages")).unwrap_or(0.0) as u64);
    }
    let site_clusters: Vec<(u32, u32, u64)> = read_table(&table_in(&dir, "site_clusters")?)?
        .iter()
        .filter_map(|r| {
            let s = *site_id.get(&text(r.get("host"))?)?;
            Some((
                s,
                number(r.get("cluster"))? as u32,
                number(r.get("pages"))? as u64,
            ))
        })
        .collect();
    // Every candidate (unlisted = not a replica) plus every labelled pair that is not one.
    struct Pair {
        a: u32,
        b: u32,
        replica: bool,
        scores: [Option<f64>; 4],
    }
    let mut pairs: Vec<Pair> = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut unlisted = 0u64;
    for r in &rows {
        let (Some(a), Some(b)) = (text(r.get("host_a")), text(r.get("host_b"))) else {
            continue;
        };
        let k = key(&a, &b);
        let replica = match labels.get(&k) {
            Some(l) => l.0,
            None => {
                unlisted += 1;
                false
            }
        };
        seen.insert(k);
        let id = |h: &str| site_id.get(h).copied().unwrap_or(u32::MAX);
        pairs.push(Pair {
            a: id(&a),
            b: id(&b),
            replica,
            scores: std::array::from_fn(|m| number(r.get(METHODS[m].1))),
        });
    }
    let mut missed = 0u64;
    for (k, l) in &labels {
        if !seen.contains(k) {
            missed += l.0 as u64;
            pairs.push(Pair {
                a: u32::MAX,
                b: u32::MAX,
                replica: l.0,
                scores: [None; 4],
            });
        }
    }
    let positives = pairs.iter().filter(|p| p.replica).count();
    let mut reports = Vec::new();
    let mut curves: Vec<(&str, Vec<RocPoint>)> = Vec::new();
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
                    .map(|&i| (pairs[i].a, pairs[i].b))
                    .filter(|&(a, b)| a != u32::MAX && b != u32::MAX)
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
        reports.push(MethodReport {
            method,
            column,
            auc: auc(&curve),
            at_fpr: at,
            replica_detection_rate: rdr,
        });
        curves.push((method, curve));
    }
    let out = &args.out;
    crate::output::create_out_dir(out, [args.truth.as_path(), table.as_path()])?;
    let rows: Vec<RocRow> = curves
        .iter()
        .flat_map(|(m, c)| {
            c.iter().map(move |p| RocRow {
                method: m.to_string(),
                threshold: p.threshold,
                tpr: p.tpr,
                fpr: p.fpr,
                precision: p.precision,
                predicted: p.predicted as u64,
            })
        })
        .collect();
    let roc_csv = crate::output::write_table(out, Format::Csv, &rows)?;
    let series = |f: fn(&RocPoint) -> (f64, f64)| -> Vec<Series> {
        curves
            .iter()
            .zip(&reports)
            .map(|((m, c), r)| Series {
                name: format!("{m} (AUC {:.4})", r.auc),
                points: c.iter().map(f).collect(),
            })
            .collect()
    };
    let unit = |l: &str| Axis::linear(l, 0.0, 1.0);
    let roc_svg = line_chart(
        "Website replicas: ROC (paper 001 Fig. 5 left)",
        &unit("false-positive rate"),
        &unit("true-positive rate"),
        &series(|p| (p.fpr, p.tpr)),
        false,
    );
    let pr_svg = line_chart(
        "Website replicas: precision / recall (Fig. 5 middle)",
        &unit("recall"),
        &unit("precision"),
        &series(|p| (p.tpr, p.precision)),
        false,
    );
    let inputs = [];
    crate::output::write_atomic(&out.join("roc.svg"), &inputs, roc_svg.as_bytes())?;
    crate::output::write_atomic(&out.join("site-pr.svg"), &inputs, pr_svg.as_bytes())?;
    let summary = serde_json::json!({
        "truth": args.truth.display().to_string(),
        "replicas": table.display().to_string(),
        "labelled_pairs": labels.len(),
        "pairs_scored": pairs.len(),
        "replicas_labelled": positives,
        "replicas_not_among_candidates": missed,
        "candidates_not_in_labels_counted_as_non_replicas": unlisted,
        "methods": reports,
    });
    let mut json = serde_json::to_vec_pretty(&summary)?;
    json.push(b'\n');
    let path = out.join("site-eval.json");
    crate::output::write_atomic(&path, &inputs, &json)?;
    if !quiet {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} pairs ({positives} replicas, {missed} of them not among the candidates; {unlisted} candidates not in the labels counted as non-replicas)",
            pairs.len()
        );
        let _ = writeln!(
            o,
            "  {:<10} {:>7}  {:>22}  {:>22}  {:>8} {:>8} {:>8} {:>8}",
            "method",
            "AUC",
            "FPR 0: TPR / RR",
            "FPR .005: TPR / RR",
            "RDR 10",
            "100",
            "1000",
            "10000"
        );
        for r in &reports {
            let op = |f: f64| {
                r.at_fpr
                    .iter()
                    .find(|a| a.max_fpr == f)
                    .map_or(String::new(), |a| {
                        format!("{:.3} / {:.3}", a.tpr, a.reduction_ratio)
                    })
            };
            let rdr: Vec<String> = r
                .replica_detection_rate
                .iter()
                .map(|(_, v)| v.map_or("-".to_string(), |v| format!("{v:.4}")))
                .collect();
            let _ = writeln!(
                o,
                "  {:<10} {:>7.4}  {:>22}  {:>22}  {:>8} {:>8} {:>8} {:>8}",
                r.method,
                r.auc,
                op(0.0),
                op(0.005),
                rdr[0],
                rdr[1],
                rdr[2],
                rdr[3]
            );
        }
        let _ = writeln!(
            o,
            "files:\n  {}\n  {}\n  {}\n  {}",
            path.display(),
            roc_csv,
            out.join("roc.svg").display(),
            out.join("site-pr.svg").display()
        );
        print!("{o}");
    }
    Ok(())
}

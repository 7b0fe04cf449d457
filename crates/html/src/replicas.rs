//! The report of a `replicas` folder (the ranking of site pairs with their features) and of an
//! `eval` folder that scored one against site-pair labels (ROC, PR, AUC, reduction ratio).

use crate::common::{reading, records, seconds};
use crate::folder::{f, u, Folder};
use crate::page::{cols, int, Cell, Page};
use crate::{HtmlError, Limits};

pub(crate) fn build(dir: &Folder, limits: &Limits) -> Result<Page, HtmlError> {
    let s = dir.json("summary.json")?.unwrap_or_default();
    let rows: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("replicas")?.unwrap_or_default();
    let mut page = Page::new("neardup replicas report");
    page.section("summary", "Summary");
    page.p(&format!(
        "{} pages on {} sites; {} duplicate clusters spanning sites gave {} candidate site pairs, ranked without labels (EM over positive-unlabelled and negative-unlabelled samples, then Pareto dominance). {} pairs are predicted replicas.",
        int(u(&s, &["pages"])),
        int(u(&s, &["counts", "sites"])),
        int(u(&s, &["counts", "inter_site_clusters"])),
        int(u(&s, &["counts", "candidates"])),
        int(u(&s, &["predicted_replicas"])),
    ));
    if let Some(rule) = s.get("prediction_rule").and_then(|v| v.as_str()) {
        page.p(&format!("Prediction rule: {rule}."));
    }
    reading(&mut page, &s);
    let stages: Vec<(String, f64)> = [
        ("reading and sketching", "seconds_read_and_sketch"),
        ("clusters", "seconds_clusters"),
        ("replicas", "seconds_replicas"),
        ("total", "seconds_total"),
    ]
    .iter()
    .filter_map(|(n, k)| Some((n.to_string(), f(&s, &[k])?)))
    .collect();
    seconds(&mut page, &stages);

    page.section("ranking", "Ranking");
    let scores: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.get("score").and_then(|v| v.as_f64()))
        .collect();
    if !scores.is_empty() {
        let svg = neardup_report::plot::histogram(
            "Scores of the candidate site pairs",
            "score",
            "site pairs",
            &scores,
            0.0,
            1.0,
            limits.histogram_bins,
        );
        page.figures(&[(
            svg,
            format!(
                "The classifier's score over {} candidate pairs.",
                int(scores.len() as u64)
            ),
        )]);
    }
    page.p("Site pairs best first, with the features the classifier saw: shared duplicate clusters, Jaccard of their clusters, path similarity (NormPaths, ndist, nmatch, fullpath), shared IP prefixes, and both EM runs' scores.");
    records(
        &mut page,
        "Site pairs by rank",
        &rows,
        &[
            ("rank", "rank"),
            ("host_a", "site A"),
            ("host_b", "site B"),
            ("predicted", "predicted"),
            ("obvious", "obvious"),
            ("score", "score"),
            ("dominance", "dominance"),
            ("frontier", "frontier"),
            ("alpha_pu", "alpha PU"),
            ("alpha_nu", "alpha NU"),
            ("normpaths", "NormPaths"),
            ("jaccard", "Jaccard"),
            ("shared_clusters", "shared clusters"),
            ("ndist", "ndist"),
            ("nmatch", "nmatch"),
            ("ip4", "IP /32"),
            ("ip3", "IP /24"),
            ("fullpath", "fullpath"),
            ("pages_a", "pages A"),
            ("pages_b", "pages B"),
        ],
        limits.rows,
    );
    let sites: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("sites")?.unwrap_or_default();
    records(
        &mut page,
        "Sites",
        &sites,
        &[
            ("host", "site"),
            ("pages", "pages"),
            ("duplicate_pages", "duplicate pages"),
            ("ips", "IP addresses"),
        ],
        limits.rows,
    );
    page.note("ROC and precision-recall curves need labels: `neardup eval --truth LABELS --pred THIS_FOLDER --out DIR` writes them, with their own report.");
    Ok(page)
}

pub(crate) fn build_eval(dir: &Folder) -> Result<Page, HtmlError> {
    let s = dir.json("site-eval.json")?.unwrap_or_default();
    let mut page = Page::new("neardup replica evaluation report");
    page.section("summary", "Summary");
    page.p(&format!(
        "{} labelled site pairs, {} of them replicas; {} candidate pairs scored; {} replicas were not among the candidates.",
        int(u(&s, &["labelled_pairs"])),
        int(u(&s, &["replicas_labelled"])),
        int(u(&s, &["pairs_scored"])),
        int(u(&s, &["replicas_not_among_candidates"])),
    ));
    let methods = s
        .get("methods")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let rows: Vec<Vec<Cell>> = methods
        .iter()
        .map(|m| {
            vec![
                Cell::json(m.get("method")),
                Cell::json(m.get("column")),
                Cell::json(m.get("auc")),
            ]
        })
        .collect();
    let n = rows.len();
    page.table(
        "Area under the ROC curve",
        &cols(&[("method", false), ("score column", false), ("AUC", true)]),
        &rows,
        n,
    );
    page.section("curves", "ROC and precision-recall");
    let mut figs = Vec::new();
    for (file, caption) in [
        (
            "roc.svg",
            "ROC: true against false positive rate, per method.",
        ),
        ("site-pr.svg", "Precision against recall, per method."),
    ] {
        if let Some(svg) = dir.svg(file)? {
            figs.push((svg, caption.to_string()));
        }
    }
    page.figures(&figs);
    page.section("fixed-fpr", "At fixed false-positive rates");
    let mut at_rows = Vec::new();
    for m in &methods {
        for a in m
            .get("at_fpr")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let g = |k: &str| Cell::json(a.get(k));
            at_rows.push(vec![
                Cell::json(m.get("method")),
                g("max_fpr"),
                g("threshold"),
                g("tpr"),
                g("fpr"),
                g("precision"),
                g("predicted"),
                g("reduction_ratio"),
                g("duplicate_pages_removed"),
            ]);
        }
    }
    let n = at_rows.len();
    page.table(
        "Reduction ratio at a false-positive rate at most",
        &cols(&[
            ("method", false),
            ("max FPR", true),
            ("threshold", true),
            ("TPR", true),
            ("FPR", true),
            ("precision", true),
            ("predicted", true),
            ("reduction ratio", true),
            ("duplicate pages removed", true),
        ]),
        &at_rows,
        n,
    );
    let mut rdr = Vec::new();
    for m in &methods {
        for p in m
            .get("replica_detection_rate")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            rdr.push(vec![
                Cell::json(m.get("method")),
                Cell::json(p.get(0)),
                Cell::json(p.get(1)),
            ]);
        }
    }
    let n = rdr.len();
    page.table(
        "Replica detection rate at the top N",
        &cols(&[("method", false), ("N", true), ("rate", true)]),
        &rdr,
        n,
    );
    Ok(page)
}

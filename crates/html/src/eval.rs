//! The report of a page-pair `eval` folder: precision and recall overall, by kind and for
//! same-site and different-site pairs, the PR curves with their break-even points, and the
//! predicted pairs' term differences.

use crate::common::metrics;
use crate::folder::{at, f, u, Folder};
use crate::page::{cols, int, num, Cell, Page};
use crate::HtmlError;

pub(crate) fn build(dir: &Folder) -> Result<Page, HtmlError> {
    let s = dir.json("eval.json")?.unwrap_or_default();
    let r = s.get("report").cloned().unwrap_or_default();
    let mut page = Page::new("neardup evaluation report");
    page.section("summary", "Summary");
    page.p(&format!(
        "{} labelled pairs; precision {}, recall {}, F1 {} overall. {} predicted pairs were not labelled (neither right nor wrong).",
        int(u(&r, &["labelled"])),
        f(&r, &["overall", "precision"]).map_or("—".into(), |x| num(x, 4)),
        f(&r, &["overall", "recall"]).map_or("—".into(), |x| num(x, 4)),
        f(&r, &["overall", "f1"]).map_or("—".into(), |x| num(x, 4)),
        int(u(&r, &["unlabelled_predictions"])),
    ));
    let mut rows: Vec<(String, &serde_json::Value)> = Vec::new();
    for k in ["overall", "same_site", "different_site"] {
        if let Some(m) = r.get(k) {
            rows.push((k.replace('_', " "), m));
        }
    }
    metrics(
        &mut page,
        "Overall, and by whether the pages share a site",
        "pairs",
        &rows,
    );
    let kinds: Vec<(String, &serde_json::Value)> = r
        .get("by_kind")
        .and_then(|v| v.as_object())
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            (
                if k.is_empty() {
                    "(no kind)".into()
                } else {
                    k.clone()
                },
                v,
            )
        })
        .collect();
    page.section("kinds", "By kind");
    metrics(
        &mut page,
        "Precision and recall by kind of labelled pair",
        "kind",
        &kinds,
    );

    page.section("curves", "Precision-recall curves");
    let mut figs = Vec::new();
    for (file, caption) in [
        (
            "pr.svg",
            "Precision against recall over the predicted pairs' score.",
        ),
        ("curves.svg", "Every score's curve over all labelled pairs."),
    ] {
        if let Some(svg) = dir.svg(file)? {
            figs.push((svg, caption.to_string()));
        }
    }
    if figs.is_empty() {
        page.p("No curves: they need predicted pairs with a score, or --curves with the crawl.");
    }
    page.figures(&figs);
    let mut be: Vec<Vec<Cell>> = Vec::new();
    if let Some(b) = s.get("break_even").filter(|b| !b.is_null()) {
        be.push(vec![
            Cell::Text(
                s.get("score")
                    .and_then(|v| v.as_str())
                    .unwrap_or("score")
                    .to_string(),
            ),
            Cell::json(b.get("threshold")),
            Cell::json(b.get("precision")),
            Cell::json(b.get("recall")),
        ]);
    }
    for c in at(&s, &["curves", "scores"])
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .chain(
            at(&s, &["curves", "rp_hm", "curves"])
                .and_then(|v| v.as_array())
                .into_iter()
                .flatten(),
        )
    {
        let b = c.get("break_even");
        be.push(vec![
            Cell::json(c.get("name")),
            Cell::json(b.and_then(|b| b.get("threshold"))),
            Cell::json(b.and_then(|b| b.get("precision"))),
            Cell::json(b.and_then(|b| b.get("recall"))),
        ]);
    }
    let n = be.len();
    page.table(
        "Break-even points (where precision meets recall)",
        &cols(&[
            ("score", false),
            ("threshold", true),
            ("precision", true),
            ("recall", true),
        ]),
        &be,
        n,
    );
    if let Some(t) = s.get("term_differences").filter(|t| !t.is_null()) {
        page.section("terms", "Term differences");
        page.p(&format!(
            "Over {} predicted pairs found in the crawl, the Myers diff of their token sequences has {} inserted plus deleted terms on average (median {}, 90th percentile {}).",
            int(u(t, &["pairs"])),
            f(t, &["mean"]).map_or("—".into(), |x| num(x, 1)),
            int(u(t, &["median"])),
            int(u(t, &["p90"])),
        ));
    }
    Ok(page)
}

//! The report of an `evolve` folder: the crawls, paper 004's figures 4-10 on one page, cluster
//! events between crawls, and the recrawl advice.

use crate::common::{records, seconds};
use crate::folder::{at, f, u, Folder};
use crate::page::{cols, int, pct, Cell, Page};
use crate::{HtmlError, Limits};

/// Paper 004's figures, as `evolve` names their files, with what each shows.
const FIGURES: [(&str, &str); 7] = [
    (
        "fig4-containment.svg",
        "Figure 4: containment of each crawl's clusters in the first crawl's, by cluster size",
    ),
    (
        "fig5-similarity.svg",
        "Figure 5: similarity of clusters across crawls, by cluster size",
    ),
    (
        "fig6-host-clusters.svg",
        "Figure 6: clusters per host, first crawl against last",
    ),
    (
        "fig7-reverse-containment.svg",
        "Figure 7: reverse containment, by cluster size",
    ),
    (
        "fig8-change-by-size.svg",
        "Figure 8: change between crawls by cluster size",
    ),
    (
        "fig9-relative-change.svg",
        "Figure 9: relative change between crawls",
    ),
    (
        "fig10-change-buckets.svg",
        "Figure 10: pages by amount of change",
    ),
];

pub(crate) fn build(dir: &Folder, limits: &Limits) -> Result<Page, HtmlError> {
    let s = dir.json("summary.json")?.unwrap_or_default();
    let mut page = Page::new("neardup evolve report");
    page.section("summary", "Summary");
    let crawls = at(&s, &["crawls"])
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    page.p(&format!(
        "{} crawls of one URL space were clustered one at a time and followed from crawl to crawl by URL.",
        crawls.len()
    ));
    let crawl_rows: Vec<Vec<Cell>> = crawls
        .iter()
        .map(|c| {
            let k = |n: &str| Cell::json(c.get("counts").and_then(|x| x.get(n)));
            vec![
                k("label"),
                k("pages"),
                k("urls"),
                k("new_urls"),
                k("also_in_previous"),
                k("clusters"),
                k("clustered_urls"),
                k("largest_cluster"),
                Cell::json(c.get("records_skipped")),
            ]
        })
        .collect();
    let n = crawl_rows.len();
    page.table(
        "Crawls, in time order",
        &cols(&[
            ("crawl", false),
            ("pages", true),
            ("URLs", true),
            ("new URLs", true),
            ("also in previous", true),
            ("clusters", true),
            ("clustered URLs", true),
            ("largest cluster", true),
            ("records skipped", true),
        ]),
        &crawl_rows,
        n,
    );
    let stages: Vec<(String, f64)> = [("evolution", "seconds_evolve"), ("total", "seconds_total")]
        .iter()
        .filter_map(|(n, k)| Some((n.to_string(), f(&s, &[k])?)))
        .collect();
    seconds(&mut page, &stages);

    page.section("figures", "Figures 4-10");
    let mut figs = Vec::new();
    for (file, caption) in FIGURES {
        if let Some(svg) = dir.svg(file)? {
            figs.push((svg, caption.to_string()));
        }
    }
    if figs.is_empty() {
        page.p("No figures (they need at least two crawls).");
    } else {
        if figs.len() < FIGURES.len() {
            page.note("Only the figures these crawls allow are drawn (figures 8-10 need change amounts between consecutive crawls).");
        }
        page.figures(&figs);
    }
    let coeff: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("coefficients")?.unwrap_or_default();
    records(
        &mut page,
        "Coefficients by crawl and cluster-size range",
        &coeff,
        &[
            ("crawl", "crawl"),
            ("range", "size range"),
            ("urls", "URLs"),
            ("missing", "missing"),
            ("containment", "containment"),
            ("similarity", "similarity"),
            ("reverse_containment", "reverse containment"),
        ],
        limits.rows,
    );

    page.section("events", "Cluster events");
    let ev = at(&s, &["events"])
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let label = |i: Option<u64>| {
        i.and_then(|i| crawls.get(i as usize))
            .and_then(|c| at(c, &["counts", "label"]))
            .and_then(|l| l.as_str())
            .map_or_else(|| "?".to_string(), str::to_string)
    };
    let ev_rows: Vec<Vec<Cell>> = ev
        .iter()
        .map(|e| {
            let g = |k: &str| Cell::json(e.get(k));
            vec![
                Cell::Text(label(e.get("from").and_then(|v| v.as_u64()))),
                Cell::Text(label(e.get("to").and_then(|v| v.as_u64()))),
                g("clusters_before"),
                g("clusters_after"),
                g("unchanged"),
                g("changed"),
                g("births"),
                g("deaths"),
                g("merges"),
                g("splits"),
            ]
        })
        .collect();
    let n = ev_rows.len();
    page.table(
        "Events per pair of consecutive crawls",
        &cols(&[
            ("from", false),
            ("to", false),
            ("clusters before", true),
            ("clusters after", true),
            ("unchanged", true),
            ("changed", true),
            ("births", true),
            ("deaths", true),
            ("merges", true),
            ("splits", true),
        ]),
        &ev_rows,
        n,
    );
    let events: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("events")?.unwrap_or_default();
    let interesting: Vec<_> = events
        .iter()
        .filter(|e| e.get("event").and_then(|v| v.as_str()) != Some("unchanged"))
        .cloned()
        .collect();
    page.p(&format!(
        "{} cluster events in all, {} of them other than unchanged (listed below).",
        int(events.len() as u64),
        int(interesting.len() as u64)
    ));
    records(
        &mut page,
        "Cluster events other than unchanged",
        &interesting,
        &[
            ("from", "from"),
            ("to", "to"),
            ("event", "event"),
            ("detail", "detail"),
            ("size_before", "size before"),
            ("size_after", "size after"),
            ("pieces", "pieces"),
            ("shared_urls", "shared URLs"),
            ("cluster_before", "cluster before"),
            ("cluster_after", "cluster after"),
        ],
        limits.rows,
    );

    page.section("recrawl", "Recrawl advice");
    if let Some(r) = s.get("recrawl").filter(|r| !r.is_null()) {
        let urls = u(r, &["urls"]);
        page.p(&format!(
            "For the next crawl of {} URLs: fetch {} ({}), prioritize {} ({}), skip {} ({}, pages whose cluster has a stable representative). Fetches saved: {}.",
            int(urls),
            int(u(r, &["fetch"])),
            pct(u(r, &["fetch"]) as f64, urls as f64),
            int(u(r, &["prioritize"])),
            pct(u(r, &["prioritize"]) as f64, urls as f64),
            int(u(r, &["skip"])),
            pct(u(r, &["skip"]) as f64, urls as f64),
            f(r, &["fetch_savings"]).map_or("—".into(), |x| format!("{:.1}%", 100.0 * x)),
        ));
    }
    if let Some(v) = s.get("recrawl_validation").filter(|r| !r.is_null()) {
        page.p(&format!(
            "Checked against the last crawl (advice from the crawls before it): {} skipped pages stayed in their cluster, {} left it, {} went missing; skip precision {}.",
            int(u(v, &["skipped_stayed"])),
            int(u(v, &["skipped_left"])),
            int(u(v, &["skipped_missing"])),
            f(v, &["skip_precision"]).map_or("—".into(), |x| format!("{x:.3}"))
        ));
    }
    let advice: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("recrawl")?.unwrap_or_default();
    records(
        &mut page,
        "Advice per URL",
        &advice,
        &[
            ("url", "URL"),
            ("action", "action"),
            ("reason", "reason"),
            ("cluster_size", "cluster size"),
            ("shared_with_previous", "minvalues shared with previous"),
            ("change", "change"),
            ("explanation", "explanation"),
        ],
        limits.rows,
    );
    Ok(page)
}

//! The report of a `mirrors` folder: host pairs with their kind and the URL-suffix evidence,
//! and the distribution of mirror sizes.

use crate::common::{pairs, reading, records, seconds, size_figure};
use crate::folder::{f, u, Folder};
use crate::page::{cols, int, Cell, Page};
use crate::{HtmlError, Limits};
use std::collections::BTreeMap;

pub(crate) fn build(dir: &Folder, limits: &Limits) -> Result<Page, HtmlError> {
    let s = dir.json("summary.json")?.unwrap_or_default();
    let rows: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("mirrors")?.unwrap_or_default();
    let mut page = Page::new("neardup mirrors report");
    page.section("summary", "Summary");
    page.p(&format!(
        "{} pages in {} near-duplicate clusters were read. Host pairs (and subtrees of one host) whose pages fall in the same clusters were checked by the URL suffixes they share: {} host pairs reported.",
        int(u(&s, &["pages"])),
        int(u(&s, &["clusters"])),
        int(rows.len() as u64)
    ));
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rows {
        let k = r.get("kind").and_then(|v| v.as_str()).unwrap_or("?");
        *kinds.entry(k.to_string()).or_default() += 1;
    }
    let kind_rows: Vec<Vec<Cell>> = kinds
        .iter()
        .map(|(k, n)| vec![Cell::Text(k.clone()), Cell::Num(*n as f64, 0)])
        .collect();
    let n = kind_rows.len();
    page.table(
        "Host pairs by kind",
        &cols(&[("kind", false), ("host pairs", true)]),
        &kind_rows,
        n,
    );
    if let Some(c) = s.get("counts").and_then(|c| c.as_object()) {
        let facts: Vec<(String, String)> = c
            .iter()
            .filter_map(|(k, v)| Some((k.replace('_', " "), int(v.as_u64()?))))
            .collect();
        page.facts(&facts);
    }
    reading(&mut page, &s);
    let stages: Vec<(String, f64)> = [
        ("reading and sketching", "seconds_read_and_sketch"),
        ("mirror detection", "seconds_mirrors"),
        ("total", "seconds_total"),
    ]
    .iter()
    .filter_map(|(n, k)| Some((n.to_string(), f(&s, &[k])?)))
    .collect();
    seconds(&mut page, &stages);

    page.section("pairs", "Host pairs");
    page.p("Each pair with its kind (mirror, partial mirror, subtree mirror within a host, alias, parked), the pages of each side in shared clusters, and the evidence: the share of shared URLs whose last path arc, and last four arcs, match (Bharat and Broder's suffix test).");
    records(
        &mut page,
        "Host pairs, as the mirrors table orders them",
        &rows,
        &[
            ("host_a", "host A"),
            ("prefix_a", "prefix A"),
            ("host_b", "host B"),
            ("prefix_b", "prefix B"),
            ("kind", "kind"),
            ("alias_reason", "alias reason"),
            ("pages_shared_a", "shared pages A"),
            ("pages_shared_b", "shared pages B"),
            ("pages_a", "pages A"),
            ("pages_b", "pages B"),
            ("suffix_match_last_arc", "suffix match, last arc"),
            ("suffix_match_four_arcs", "suffix match, four arcs"),
            ("ips_a", "IPs A"),
            ("ips_b", "IPs B"),
            ("examples", "example URL pairs"),
        ],
        limits.rows,
    );

    page.section("sizes", "Mirror sizes");
    let dist = pairs(s.get("size_distribution"));
    if dist.is_empty() {
        page.p("No mirrors.");
    } else {
        let svg = size_figure(
            "Mirror size distribution",
            "pages shared by a mirror group",
            "mirror groups",
            &dist,
        );
        page.figures(&[(svg, "Pages shared per mirror group, log-log.".to_string())]);
        let rows: Vec<Vec<Cell>> = dist
            .iter()
            .map(|&(a, b)| vec![Cell::Num(a, 0), Cell::Num(b, 0)])
            .collect();
        let n = rows.len();
        page.table(
            "Mirror groups by size",
            &cols(&[("pages", true), ("groups", true)]),
            &rows,
            n,
        );
    }
    Ok(page)
}

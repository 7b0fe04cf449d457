//! The report of a `mirrors` folder: host pairs with their kind and the URL-suffix evidence,
//! and the distribution of mirror sizes.

use crate::common::{pairs, reading, seconds, size_figure};
use crate::folder::{f, u, Folder};
use crate::page::{cols, esc, int, Cell, Page};
use crate::{HtmlError, Limits};
use std::collections::BTreeMap;

pub(crate) fn build(dir: &Folder, limits: &Limits) -> Result<Page, HtmlError> {
    let s = dir.json("summary.json")?.unwrap_or_default();
    let rows: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("mirrors")?.unwrap_or_default();
    let mut page = Page::new("neardup mirrors report");
    page.section("summary", "Summary");
    let groups: Vec<serde_json::Value> = s
        .get("groups")
        .and_then(|g| g.as_array())
        .cloned()
        .unwrap_or_default();
    page.p(&format!(
        "{} pages in {} near-duplicate clusters were read. Host pairs (and subtrees of one host) whose pages fall in the same clusters were checked by the URL suffixes they share: {} pairs reported, in {} groups.",
        int(u(&s, &["pages"])),
        int(u(&s, &["clusters"])),
        int(rows.len() as u64),
        int(groups.len() as u64)
    ));
    if let Some(why) = s.get("explanation").and_then(|v| v.as_str()) {
        page.p(&format!("Nothing was found: {why}."));
    }
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

    page.section("groups", "Groups");
    page.p("Hosts joined by reported pairs, each group with its id (the pairs table's group column), its kind (the strongest of its pairs': mirror, partial mirror, subtree mirror, parked, alias) and every member (for subtree mirrors within a host, its subtrees).");
    let group_rows: Vec<Vec<Cell>> = groups
        .iter()
        .take(limits.rows)
        .map(|g| {
            let members: Vec<&str> = g
                .get("members")
                .and_then(|m| m.as_array())
                .map(|m| m.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            let listed = members
                .iter()
                .map(|m| esc(m))
                .collect::<Vec<_>>()
                .join(", ");
            vec![
                Cell::json(g.get("id")),
                Cell::json(g.get("kind")),
                Cell::Num(members.len() as f64, 0),
                Cell::json(g.get("pairs")),
                Cell::json(g.get("ips")),
                Cell::Html(listed, members.join(" ")),
            ]
        })
        .collect();
    page.table(
        "Groups of hosts",
        &cols(&[
            ("group", true),
            ("kind", false),
            ("members", true),
            ("pairs", true),
            ("IPs", true),
            ("every member", false),
        ]),
        &group_rows,
        groups.len(),
    );

    page.section("pairs", "Host pairs");
    page.p("Each pair with its group and kind, the pages of each side in shared clusters (of the side's pages: the host's, or the subtree's), and the evidence: the share of shared URLs whose last path arc, and last four arcs, match (Bharat and Broder's suffix test), and example URL pairs, one pair to a line.");
    let side = |r: &serde_json::Map<String, serde_json::Value>, h: &str, p: &str| {
        let host = r.get(h).and_then(|v| v.as_str()).unwrap_or("");
        let prefix = r.get(p).and_then(|v| v.as_str()).unwrap_or("/");
        Cell::Text(format!("{host}{prefix}"))
    };
    let of = |r: &serde_json::Map<String, serde_json::Value>, shared: &str, all: &str| {
        let n = |k: &str| r.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        let (a, b) = (n(shared), n(all));
        Cell::Html(format!("{} of {}", int(a), int(b)), format!("{a:020}"))
    };
    let pair_rows: Vec<Vec<Cell>> = rows
        .iter()
        .take(limits.rows)
        .map(|r| {
            let examples = r.get("examples").and_then(|v| v.as_str()).unwrap_or("");
            let shown: String = examples
                .split("; ")
                .filter(|e| !e.is_empty())
                .map(|e| {
                    let (a, b) = e.split_once(' ').unwrap_or((e, ""));
                    format!(
                        "<div class=\"pair\">{} &#8644; {}</div>",
                        path_link(a),
                        path_link(b)
                    )
                })
                .collect();
            let kind = r.get("kind").and_then(|v| v.as_str()).unwrap_or("");
            let reason = r.get("alias_reason").and_then(|v| v.as_str()).unwrap_or("");
            let kind = if reason.is_empty() {
                kind.to_string()
            } else {
                format!("{kind} ({reason})")
            };
            vec![
                Cell::json(r.get("group")),
                Cell::Text(kind),
                side(r, "host_a", "prefix_a"),
                side(r, "host_b", "prefix_b"),
                of(r, "pages_shared_a", "pages_a"),
                of(r, "pages_shared_b", "pages_b"),
                Cell::json(r.get("suffix_match_last_arc")),
                Cell::json(r.get("suffix_match_four_arcs")),
                Cell::Html(shown, examples.to_string()),
            ]
        })
        .collect();
    page.table(
        "Host pairs, as the mirrors table orders them",
        &cols(&[
            ("group", true),
            ("kind", false),
            ("A", false),
            ("B", false),
            ("shared pages of A", true),
            ("shared pages of B", true),
            ("suffix match, last arc", true),
            ("suffix match, four arcs", true),
            ("example URL pairs", false),
        ]),
        &pair_rows,
        rows.len(),
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

/// A link to `url` shown as its path (the host is in the row's A and B columns), the whole URL
/// in its title.
fn path_link(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    if url.starts_with("http://") || url.starts_with("https://") {
        format!(
            "<a href=\"{0}\" title=\"{0}\" rel=\"noreferrer noopener\">{1}</a>",
            esc(url),
            esc(path)
        )
    } else {
        esc(url)
    }
}

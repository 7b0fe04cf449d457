//! The report of a `dedup` folder: the run in words, the cluster-size distribution and its
//! power law, each score's histogram over the accepted pairs, the largest clusters (paper 004
//! Table 1), the top clusters' members, and canonical pages beside a member with the terms that
//! differ and the chrome that was left out.

mod side_by_side;

use crate::common::{language_detector, reading, seconds};
use crate::folder::{at, f, u, Folder};
use crate::page::{cols, int, num, pct, Cell, Page};
use crate::{HtmlError, Limits};
use neardup_report::plot::{dots_and_lines, histogram, Axis, Series};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// The columns of `clusters` the report reads: a row as read from the table, or as given by
/// the run that writes it ([`crate::build_dedup`]), which must give what reading would.
#[derive(Clone, Debug, Deserialize)]
pub struct Member {
    pub url: String,
    /// Capture date, input file and record offset (tables of older runs lack them).
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub offset: Option<u64>,
    pub cluster: u64,
    pub cluster_size: u64,
    pub canonical: bool,
    pub rule: Option<String>,
    pub estimated_jaccard: Option<f64>,
    pub exact_jaccard: Option<f64>,
    pub containment: Option<f64>,
    pub titles: Option<String>,
    pub boilerplate_b: Option<f64>,
    /// Distinct shingles shared with the canonical page (tables of older runs lack it).
    #[serde(default)]
    pub shared_shingles: Option<f64>,
    #[serde(default)]
    pub b_similarity: Option<f64>,
    #[serde(default)]
    pub c_similarity: Option<f64>,
    #[serde(default)]
    pub rp_distance: Option<f64>,
    #[serde(default)]
    pub hm_distance: Option<f64>,
}

impl Member {
    /// The member's scores against its canonical page.
    fn scores(&self) -> Scores {
        Scores {
            estimated_jaccard: self.estimated_jaccard,
            exact_jaccard: self.exact_jaccard,
            containment: self.containment,
            b_similarity: self.b_similarity,
            c_similarity: self.c_similarity,
            rp_distance: self.rp_distance,
            hm_distance: self.hm_distance,
        }
    }
}

/// The scores a pair row may carry (a `pairs` row, or a `clusters` member against its canonical
/// page), read typed: the tables are the report's largest input.
#[derive(Deserialize)]
struct Scores {
    #[serde(default)]
    estimated_jaccard: Option<f64>,
    #[serde(default)]
    exact_jaccard: Option<f64>,
    #[serde(default)]
    containment: Option<f64>,
    #[serde(default)]
    b_similarity: Option<f64>,
    #[serde(default)]
    c_similarity: Option<f64>,
    #[serde(default)]
    rp_distance: Option<f64>,
    #[serde(default)]
    hm_distance: Option<f64>,
}

impl Scores {
    /// The score named `name` (one of [`SCORES`]).
    fn get(&self, name: &str) -> Option<f64> {
        match name {
            "estimated_jaccard" => self.estimated_jaccard,
            "exact_jaccard" => self.exact_jaccard,
            "containment" => self.containment,
            "b_similarity" => self.b_similarity,
            "c_similarity" => self.c_similarity,
            "rp_distance" => self.rp_distance,
            "hm_distance" => self.hm_distance,
            _ => None,
        }
    }
}

/// Every score a pair row may carry, with the range its histogram spans (`None`: 0 to the
/// largest value).
const SCORES: [(&str, Option<f64>); 7] = [
    ("estimated_jaccard", Some(1.0)),
    ("exact_jaccard", Some(1.0)),
    ("containment", Some(1.0)),
    ("b_similarity", None),
    ("c_similarity", None),
    ("rp_distance", None),
    ("hm_distance", None),
];

pub(crate) fn build(
    dir: &Folder,
    limits: &Limits,
    members: Option<Vec<Member>>,
) -> Result<Page, HtmlError> {
    let summary = dir.json("summary.json")?.unwrap_or_default();
    let mut members: Vec<Member> = match members {
        Some(m) => m,
        None => dir.rows("clusters")?.unwrap_or_default(),
    };
    // `dedup --index` lists every page of the run, clusters of one page too.
    members.retain(|m| m.cluster_size >= 2);
    let mut page = Page::new("neardup dedup report");
    page.section("summary", "Summary");
    words(&mut page, &summary, &members);
    reading(&mut page, &summary);
    stages(&mut page, &summary);

    page.section("sizes", "Cluster sizes");
    sizes(&mut page, &members);

    page.section("scores", "Scores of the accepted pairs");
    scores(dir, &mut page, &members, limits)?;

    page.section("largest", "Largest clusters");
    largest(&mut page, &summary, &members, limits);

    if let Some(l) = at(&summary, &["languages"]).and_then(|v| v.as_array()) {
        page.section("languages", "Languages");
        languages(&mut page, l, &summary);
    }

    page.section("members", "Members of the top clusters");
    page.p("Title rule: whether a removed page's title and the kept page's name the same item once the segments every page of the site shares (its name) are set aside: same, different (then the pages needed a higher score), or unknown (either title says nothing beyond the site's name, or there is none). The side-by-side section below shows the titles as read.");
    let replay = limits
        .replay_url
        .as_deref()
        .or_else(|| at(&summary, &["replay_url"]).and_then(|v| v.as_str()));
    top_members(&mut page, &members, limits, replay);

    page.section("side-by-side", "Canonical page beside a member");
    side_by_side::samples(dir, &mut page)?;
    Ok(page)
}

fn words(page: &mut Page, s: &serde_json::Value, members: &[Member]) {
    let sketched = u(s, &["pages_sketched"]);
    let in_clusters = u(s, &["counts", "pages_in_clusters"]);
    let clusters = u(s, &["counts", "clusters"]);
    let remove = u(s, &["counts", "pages_to_remove"]);
    let inputs = at(s, &["inputs"])
        .and_then(|v| v.as_array())
        .map_or(0, Vec::len);
    let mut text = format!(
        "{} pages were read from {} input{}; {} were compared (HTML or text with at least one term). ",
        int(u(s, &["pages_read"])),
        inputs,
        if inputs == 1 { "" } else { "s" },
        int(sketched)
    );
    if sketched > 0 {
        text += &format!(
            "{} of them ({}) are near-duplicates of another page, in {} clusters; keeping one page per cluster removes {} pages ({}).",
            int(in_clusters),
            pct(in_clusters as f64, sketched as f64),
            int(clusters),
            int(remove),
            pct(remove as f64, sketched as f64),
        );
    }
    page.p(&text);
    if let Some(m) = at(s, &["config", "matching"]) {
        let kind = m.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
        let detail: Vec<String> = m
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k != "kind")
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let mut how = format!("Matching: {kind}");
        if !detail.is_empty() {
            how += &format!(" ({})", detail.join(", "));
        }
        if let Some(t) = f(s, &["config", "threshold"]) {
            how += &format!("; accepted at estimated Jaccard {}", num(t, 3));
        }
        if let Some(c) = f(s, &["config", "containment"]) {
            how += &format!(" or containment {}", num(c, 3));
        }
        if let Some(c) = at(s, &["config", "cluster"]).and_then(|v| v.as_str()) {
            how += &format!("; clusters by {c}");
        }
        if let Some(c) = at(s, &["params", "content"]).and_then(|v| v.as_str()) {
            how += &format!(
                "; signatures over the {} content",
                if c == "main" { "main" } else { "whole page's" }
            );
        }
        page.p(&(how + "."));
    }
    let chained = u(s, &["chained_clusters"]);
    if chained > 0 {
        page.note(&format!(
            "{} clusters hold a pair of pages that were not accepted directly (joined through other members).",
            int(chained)
        ));
    }
    if members.is_empty() && clusters > 0 {
        page.note("The folder has no clusters table: the sections below that need it are empty.");
    }
}

fn stages(page: &mut Page, s: &serde_json::Value) {
    let mut rows = Vec::new();
    if let Some(t) = f(s, &["seconds_read_and_sketch"]) {
        rows.push(("reading and sketching".to_string(), t));
    }
    for st in at(s, &["counts", "seconds"])
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        if let (Some(name), Some(t)) = (
            st.get(0).and_then(|v| v.as_str()),
            st.get(1).and_then(|v| v.as_f64()),
        ) {
            rows.push((name.to_string(), t));
        }
    }
    if let Some(t) = f(s, &["seconds_total"]) {
        rows.push(("total".to_string(), t));
    }
    seconds(page, &rows);
}

fn sizes(page: &mut Page, members: &[Member]) {
    let mut size_of: BTreeMap<u64, u64> = BTreeMap::new();
    for m in members {
        size_of.insert(m.cluster, m.cluster_size);
    }
    let sizes: Vec<u64> = size_of.values().copied().collect();
    if sizes.is_empty() {
        page.p("No clusters.");
        return;
    }
    let st = neardup_cluster::stats(&sizes);
    let max_size = st.size_distribution.last().map_or(2, |d| d.0) as f64;
    let max_count = st.size_distribution.iter().map(|d| d.1).max().unwrap_or(1) as f64;
    let dots = Series {
        name: "clusters of this size".into(),
        points: st
            .size_distribution
            .iter()
            .map(|&(s, c)| (s as f64, c as f64))
            .collect(),
    };
    let mut lines = Vec::new();
    let mut caption = "Cluster sizes on log-log axes.".to_string();
    if let Some(alpha) = st.power_law_alpha {
        // The discrete power law from size 2 to the largest, scaled to the clusters counted.
        // (The terms past a million add nothing visible to any alpha the fit gives.)
        let norm: f64 = (2..=(max_size as u64).min(1_000_000))
            .map(|s| (s as f64).powf(-alpha))
            .sum();
        let n = sizes.len() as f64;
        let mut xs: Vec<f64> = Vec::new();
        let steps = 60;
        for k in 0..=steps {
            let x = 2f64 * (max_size / 2.0).powf(k as f64 / steps as f64);
            if xs.last().is_none_or(|&l| x > l) {
                xs.push(x);
            }
        }
        lines.push(Series {
            name: format!("power law, alpha {}", num(alpha, 2)),
            points: xs
                .into_iter()
                .map(|x| (x, n * x.powf(-alpha) / norm))
                .collect(),
        });
        caption += &format!(
            " The dashed line is the fitted power law: clusters of size s ∝ s^-{} (maximum likelihood, sizes ≥ 2).",
            num(alpha, 2)
        );
    } else {
        caption += " No power law is fitted: too few clusters or distinct sizes to carry one.";
    }
    let x = Axis::log("cluster size (pages)", 2.0, max_size.max(20.0));
    let y = Axis::log("clusters", 0.5, max_count.max(10.0) * 2.0);
    // The fitted line ends where it leaves the axes (below half a cluster).
    for l in &mut lines {
        l.points.retain(|p| p.1 >= y.min);
    }
    let svg = dots_and_lines("Cluster size distribution", &x, &y, &[dots], &lines);
    page.figures(&[(svg, caption)]);
    let rows: Vec<Vec<Cell>> = st
        .size_distribution
        .iter()
        .map(|&(s, c)| {
            vec![
                Cell::Num(s as f64, 0),
                Cell::Num(c as f64, 0),
                Cell::Num((s * c) as f64, 0),
            ]
        })
        .collect();
    let total = rows.len();
    page.table(
        "Clusters by size",
        &cols(&[
            ("pages per cluster", true),
            ("clusters", true),
            ("pages", true),
        ]),
        &rows,
        total,
    );
}

fn scores(
    dir: &Folder,
    page: &mut Page,
    members: &[Member],
    limits: &Limits,
) -> Result<(), HtmlError> {
    // Every accepted pair when the run wrote them, else each member against its canonical page.
    let (rows, what): (Vec<Scores>, &str) = match dir.rows("pairs")? {
        Some(r) => (r, "every accepted pair (pairs table)"),
        None => (
            members.iter().filter(|m| !m.canonical).map(Member::scores).collect(),
            "each member against its cluster's canonical page (clusters table; run with --pairs for every accepted pair)",
        ),
    };
    if rows.is_empty() {
        page.p("No accepted pairs.");
        return Ok(());
    }
    page.p(&format!(
        "Scores of {} pairs: {what}.",
        int(rows.len() as u64)
    ));
    let mut figs = Vec::new();
    for (name, top) in SCORES {
        let values: Vec<f64> = rows.iter().filter_map(|r| r.get(name)).collect();
        if values.is_empty() {
            continue;
        }
        let max = top.unwrap_or_else(|| values.iter().copied().fold(0.0, f64::max).max(1.0));
        // Small counts (B-similarity, simhash bits) get one bar per value.
        let counts = top.is_none()
            && values.iter().all(|v| v.fract() == 0.0)
            && max + 1.0 <= limits.histogram_bins as f64;
        let (bins, hi) = if counts {
            (max as usize + 1, max + 1.0)
        } else {
            (limits.histogram_bins, max)
        };
        figs.push((
            histogram(name, name, "pairs", &values, 0.0, hi, bins),
            format!(
                "{name}: {} pairs, from {} to {}.",
                int(values.len() as u64),
                num(values.iter().copied().fold(f64::INFINITY, f64::min), 3),
                num(values.iter().copied().fold(f64::NEG_INFINITY, f64::max), 3)
            ),
        ));
    }
    page.figures(&figs);
    Ok(())
}

/// The summary's pages by language, with the share of each language's pages in clusters.
fn languages(page: &mut Page, l: &[serde_json::Value], s: &serde_json::Value) {
    let per_language = at(s, &["config", "per_language"]).and_then(|v| v.as_bool()) == Some(true);
    let detector = language_detector(s);
    page.p(&format!(
        "Each page's language, told from its text (ISO 639-3 codes; und: too little text to tell{detector}). {}",
        if per_language {
            "Pages were matched only within their language."
        } else {
            "Pages of any languages were matched together."
        }
    ));
    let rows: Vec<Vec<Cell>> = l
        .iter()
        .map(|c| {
            let n = c.get("pages").and_then(|v| v.as_u64()).unwrap_or(0);
            let inc = c
                .get("pages_in_clusters")
                .and_then(|v| v.as_u64())
                .unwrap_or(0);
            vec![
                Cell::json(c.get("language")),
                Cell::json(c.get("pages")),
                Cell::json(c.get("pages_in_clusters")),
                Cell::json(c.get("pages_removed")),
                Cell::Num(100.0 * inc as f64 / n.max(1) as f64, 1),
            ]
        })
        .collect();
    let total = rows.len();
    page.table(
        "Pages by language",
        &cols(&[
            ("language", false),
            ("pages", true),
            ("in clusters", true),
            ("to remove", true),
            ("near-duplicate %", true),
        ]),
        &rows,
        total,
    );
}

fn host(url: &str) -> String {
    neardup_text::host_of(url).unwrap_or_default()
}

/// The members of the clusters table by cluster (by cluster number, each cluster's members in
/// table order): a stable sort, no map.
fn by_cluster(members: &[Member]) -> Vec<(u64, Vec<&Member>)> {
    let mut sorted: Vec<&Member> = members.iter().collect();
    sorted.sort_by_key(|m| m.cluster);
    sorted
        .chunk_by(|a, b| a.cluster == b.cluster)
        .map(|ms| (ms[0].cluster, ms.to_vec()))
        .collect()
}

fn largest(page: &mut Page, s: &serde_json::Value, members: &[Member], limits: &Limits) {
    if let Some(l) = at(s, &["largest_clusters"]).and_then(|v| v.as_array()) {
        let rows: Vec<Vec<Cell>> = l
            .iter()
            .map(|c| {
                vec![
                    Cell::json(c.get("size")),
                    Cell::json(c.get("hosts")),
                    Cell::json(c.get("ips")),
                    Cell::json(c.get("min_estimated_jaccard")),
                    Cell::json(c.get("canonical_url")),
                ]
            })
            .collect();
        let total = rows.len();
        page.p("As paper 004's Table 1: the largest clusters with the hosts and IP addresses their pages came from.");
        page.table(
            "Largest clusters (paper 004 Table 1)",
            &cols(&[
                ("pages", true),
                ("hosts", true),
                ("IP addresses", true),
                ("lowest estimated Jaccard", true),
                ("representative URL", false),
            ]),
            &rows,
            total,
        );
    }
    // Every cluster, largest first, from the clusters table; only the shown ones aggregated
    // (their hosts parsed from URLs: on a large run most clusters are not shown).
    let mut groups = by_cluster(members);
    groups.sort_by(|a, b| {
        b.1[0]
            .cluster_size
            .cmp(&a.1[0].cluster_size)
            .then(a.0.cmp(&b.0))
    });
    let total = groups.len();
    let rows: Vec<Vec<Cell>> = groups
        .iter()
        .take(limits.clusters)
        .map(|(id, ms)| {
            let (mut hosts, mut rules) = (BTreeSet::new(), BTreeSet::new());
            let (mut min_j, mut canonical) = (f64::INFINITY, "");
            for m in ms {
                hosts.insert(host(&m.url));
                if m.canonical {
                    canonical = &m.url;
                } else {
                    if let Some(j) = m.estimated_jaccard {
                        min_j = min_j.min(j);
                    }
                    if let Some(r) = &m.rule {
                        rules.insert(r.as_str());
                    }
                }
            }
            vec![
                Cell::Num(*id as f64, 0),
                Cell::Num(ms[0].cluster_size as f64, 0),
                Cell::Num(hosts.len() as f64, 0),
                if min_j.is_finite() {
                    Cell::Num(min_j, 3)
                } else {
                    Cell::Empty
                },
                Cell::Text(rules.into_iter().collect::<Vec<_>>().join(", ")),
                Cell::Url(canonical.to_string()),
            ]
        })
        .collect();
    page.table(
        "Clusters, largest first",
        &cols(&[
            ("cluster", true),
            ("pages", true),
            ("hosts", true),
            ("lowest estimated Jaccard", true),
            ("rules", false),
            ("canonical URL", false),
        ]),
        &rows,
        total,
    );
}

/// A capture's URL as a cell: a link to its replay when a template was given
/// (`{timestamp}`: the capture date's 14 digits, `{url}`: the URL), else to the URL.
fn capture(m: &Member, replay: Option<&str>) -> Cell {
    let ts: String = (m.date.as_deref().unwrap_or(""))
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect();
    match replay {
        Some(t) if ts.len() >= 8 && crate::page::looks_like_url(&t.replace("{url}", &m.url)) => {
            // Only an http(s) link: a page's own URL may be `javascript:` (the template `{url}`).
            let href = t.replace("{timestamp}", &ts).replace("{url}", &m.url);
            Cell::Html(
                format!(
                    "<a href=\"{}\" rel=\"noreferrer noopener\">{}</a>",
                    crate::page::esc(&href),
                    crate::page::esc(&m.url)
                ),
                m.url.clone(),
            )
        }
        _ => Cell::Url(m.url.clone()),
    }
}

/// Where a capture's record is: its input and byte offset.
fn record(m: &Member) -> Cell {
    match (&m.file, m.offset) {
        (Some(f), Some(o)) => Cell::Text(format!("{f} @ {o}")),
        (Some(f), None) => Cell::Text(f.clone()),
        _ => Cell::Empty,
    }
}

fn top_members(page: &mut Page, members: &[Member], limits: &Limits, replay: Option<&str>) {
    if let Some(t) = replay {
        page.p(&format!(
            "Links open each capture in its replay ({t}), not on the live web."
        ));
    }
    let mut all = by_cluster(members);
    all.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    if all.is_empty() {
        page.p("No clusters.");
        return;
    }
    if all.len() > limits.top_clusters {
        page.note(&format!(
            "The {} largest of {} clusters.",
            limits.top_clusters,
            int(all.len() as u64)
        ));
    }
    for (id, ms) in all.iter().take(limits.top_clusters) {
        let rows: Vec<Vec<Cell>> = ms
            .iter()
            .take(limits.members)
            .map(|m| {
                vec![
                    capture(m, replay),
                    Cell::Text(m.date.clone().unwrap_or_default()),
                    record(m),
                    Cell::Text(if m.canonical { "kept" } else { "remove" }.into()),
                    Cell::Text(if m.canonical {
                        String::new()
                    } else {
                        m.rule.clone().unwrap_or_default()
                    }),
                    opt(m.estimated_jaccard.filter(|_| !m.canonical)),
                    opt(m.exact_jaccard.filter(|_| !m.canonical)),
                    opt(m.containment.filter(|_| !m.canonical)),
                    m.shared_shingles
                        .filter(|_| !m.canonical)
                        .map_or(Cell::Empty, |v| Cell::Num(v, 0)),
                    Cell::Text(if m.canonical {
                        String::new()
                    } else {
                        m.titles.clone().unwrap_or_default()
                    }),
                    opt(m.boilerplate_b),
                ]
            })
            .collect();
        page.table(
            &format!("Cluster {id}: {} pages", ms.len()),
            &cols(&[
                ("URL", false),
                ("captured", false),
                ("record (file @ byte)", false),
                ("verdict", false),
                ("rule", false),
                ("estimated Jaccard", true),
                ("exact Jaccard", true),
                ("containment", true),
                ("shared shingles", true),
                ("title rule", false),
                ("chrome share", true),
            ]),
            &rows,
            ms.len(),
        );
    }
}

fn opt(v: Option<f64>) -> Cell {
    v.map_or(Cell::Empty, |v| Cell::Num(v, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(cluster: u64, size: u64, url: &str, canonical: bool, j: f64) -> Member {
        serde_json::from_value(serde_json::json!({
            "url": url, "cluster": cluster, "cluster_size": size, "canonical": canonical,
            "rule": if canonical { None } else { Some("jaccard") },
            "estimated_jaccard": if canonical { None } else { Some(j) },
            "exact_jaccard": null, "containment": null, "titles": null, "boilerplate_b": null,
        }))
        .expect("a member row")
    }

    /// Clusters come largest first (ties by cluster number), however their members are laid
    /// out; only the shown ones are aggregated, and the count says how many there are.
    #[test]
    fn the_clusters_table_is_largest_first_and_counts_them_all() {
        let members = vec![
            member(7, 2, "http://a.example/1", true, 0.0),
            member(3, 3, "http://b.example/1", false, 0.91),
            member(7, 2, "http://c.example/1", false, 0.85),
            member(3, 3, "http://b.example/2", true, 0.0),
            member(5, 3, "http://d.example/1", true, 0.0),
            member(3, 3, "http://e.example/1", false, 0.95),
            member(5, 3, "http://d.example/2", false, 0.99),
            member(5, 3, "http://d.example/3", false, 0.97),
        ];
        let limits = Limits {
            clusters: 2,
            ..Limits::default()
        };
        let mut page = Page::new("t");
        largest(&mut page, &serde_json::json!({}), &members, &limits);
        let html = page.finish();
        let (three, five, seven) = (
            html.find("http://b.example/2"),
            html.find("http://d.example/1"),
            html.find("http://a.example/1"),
        );
        assert!(three.is_some() && five.is_some() && three < five, "{html}");
        assert_eq!(seven, None, "cluster 7 is not shown: {html}");
        // Lowest estimated Jaccard of each shown cluster, and the hosts of cluster 3 (two).
        assert!(html.contains(r#"data-v="0.91""#), "{html}");
        assert!(html.contains(r#"data-v="0.97""#), "{html}");
        assert!(html.contains(r#"data-v="2">2"#), "{html}");
    }
}

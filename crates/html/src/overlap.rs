//! The report of an `overlap` folder: paper 002's replication histogram, the most replicated
//! pages, the overlapping pairs and the server overlap.

use crate::common::{reading, records, seconds};
use crate::folder::{at, f, u, Folder};
use crate::page::{int, Page};
use crate::{HtmlError, Limits};
use neardup_report::plot::stacked_bars;

pub(crate) fn build(dir: &Folder, limits: &Limits) -> Result<Page, HtmlError> {
    let s = dir.json("summary.json")?.unwrap_or_default();
    let mut page = Page::new("neardup overlap report");
    page.section("summary", "Summary");
    let chunking = at(&s, &["chunking"]).map_or(String::new(), |c| {
        format!(
            "{} of {}",
            c.get("kind").and_then(|v| v.as_str()).unwrap_or("?"),
            c.get("n").map_or("?".into(), |v| v.to_string())
        )
    });
    page.p(&format!(
        "{} pages were chunked ({chunking}); {} exact copies were set aside first ({} sets); {} pairs of pages share at least {} chunks.",
        int(u(&s, &["counts", "pages"])),
        int(u(&s, &["counts", "copies"])),
        int(u(&s, &["counts", "copy_sets"])),
        int(u(&s, &["counts", "overlap_pairs"])),
        u(&s, &["min_shared"]),
    ));
    let save =
        |k: &str| f(&s, &["replication", k]).map_or("—".into(), |x| format!("{:.1}%", 100.0 * x));
    page.p(&format!(
        "Storage saved by keeping one copy of exact copies: {} of pages, {} of bytes; by sharing chunks: {} of pages, {} of bytes.",
        save("savings_exact_pages"),
        save("savings_exact_bytes"),
        save("savings_sharing_pages"),
        save("savings_sharing_bytes")
    ));
    reading(&mut page, &s);
    let stages: Vec<(String, f64)> = [
        ("reading and chunking", "seconds_read_and_chunk"),
        ("overlap", "seconds_overlap"),
    ]
    .iter()
    .filter_map(|(n, k)| Some((n.to_string(), f(&s, &[k])?)))
    .collect();
    seconds(&mut page, &stages);

    page.section("replication", "Replication");
    let buckets: Vec<String> = at(&s, &["replication", "buckets"])
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|b| b.as_str().map(str::to_string))
        .collect();
    let series = |k: &str| -> Vec<f64> {
        at(&s, &["replication", k])
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .map(|x| x.as_f64().unwrap_or(0.0))
            .collect()
    };
    if !buckets.is_empty() {
        let exact = stacked_bars(
            "Pages by number of exact copies",
            "other copies of the page",
            "share of pages",
            &buckets,
            &[("exact copies".to_string(), series("exact_copies"))],
        );
        let sharing = stacked_bars(
            "Pages by number of pages sharing chunks with them",
            "pages sharing chunks",
            "share of pages",
            &buckets,
            &[("sharing chunks".to_string(), series("sharing_chunks"))],
        );
        page.figures(&[
            (exact, "Paper 002's replication histogram: the share of pages with that many exact copies.".into()),
            (sharing, "The share of pages overlapping (by the minimum shared chunks) with that many other pages.".into()),
        ]);
    }
    let most: Vec<serde_json::Map<String, serde_json::Value>> =
        at(&s, &["replication", "most_replicated"])
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_object().cloned())
            .collect();
    records(
        &mut page,
        "Most replicated pages",
        &most,
        &[
            ("pages", "pages"),
            ("hosts", "hosts"),
            ("representative_url", "representative URL"),
        ],
        limits.rows,
    );

    page.section("pairs", "Overlapping pairs");
    let mut pairs: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("overlap")?.unwrap_or_default();
    let shared = |r: &serde_json::Map<String, serde_json::Value>| {
        r.get("shared").and_then(|v| v.as_u64()).unwrap_or(0)
    };
    // Most shared chunks first; the table's order among equals.
    pairs.sort_by_key(|r| std::cmp::Reverse(shared(r)));
    records(
        &mut page,
        "Pairs by shared chunks, most first",
        &pairs,
        &[
            ("url_a", "URL A"),
            ("url_b", "URL B"),
            ("shared", "shared chunks"),
            ("chunks_a", "chunks A"),
            ("chunks_b", "chunks B"),
        ],
        limits.rows,
    );

    page.section("servers", "Server overlap");
    let servers: Vec<serde_json::Map<String, serde_json::Value>> =
        dir.rows("server-overlap")?.unwrap_or_default();
    if servers.is_empty() {
        page.p("No two hosts share overlapping pages.");
    } else {
        let keys: Vec<String> = servers[0].keys().cloned().collect();
        let columns: Vec<(&str, &str)> = keys.iter().map(|k| (k.as_str(), k.as_str())).collect();
        records(
            &mut page,
            "Host pairs by overlapping pages",
            &servers,
            &columns,
            limits.rows,
        );
    }
    Ok(page)
}

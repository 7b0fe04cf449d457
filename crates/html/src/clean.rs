//! The reports of the clean jobs: `paragraphs` (what was cut, the most repeated paragraphs,
//! by language and input) and `decontaminate` (contamination by evaluation set, the spans).

use crate::common::{language_detector, reading, seconds};
use crate::folder::{at, f, u, Folder};
use crate::page::{cols, int, pct, Cell, Page};
use crate::{HtmlError, Limits};

/// The array at `path` of a summary (empty when missing).
fn array<'a>(s: &'a serde_json::Value, path: &[&str]) -> &'a [serde_json::Value] {
    at(s, path)
        .and_then(|v| v.as_array())
        .map_or(&[], Vec::as_slice)
}

pub(crate) fn paragraphs(dir: &Folder, limits: &Limits) -> Result<Page, HtmlError> {
    let s = dir.json("summary.json")?.unwrap_or_default();
    let mut page = Page::new("neardup paragraphs report");
    page.section("summary", "Summary");
    let unit = at(&s, &["unit"]).and_then(|v| v.as_str()).unwrap_or("unit");
    let policy = match at(&s, &["policy"]).and_then(|v| v.as_str()) {
        Some("boilerplate") => format!(
            "policy boilerplate: every copy of a {unit} found in more than {} documents",
            u(&s, &["max_docs"])
        ),
        Some(p) => format!("policy {p}: every copy but the first"),
        None => String::new(),
    };
    let changed: u64 = array(&s, &["inputs"])
        .iter()
        .map(|f| {
            f.get("records_changed")
                .and_then(|v| v.as_u64())
                .unwrap_or(0)
        })
        .sum();
    let documents = u(&s, &["documents"]);
    page.p(&format!(
        "{} plain-text documents read ({} HTML documents left as they were): {} {unit}s of {} characters or more, {} distinct {unit}s repeated. Cut ({policy}): {} {unit}s, {} characters, from {} documents ({}).",
        int(documents),
        int(u(&s, &["html_documents"])),
        int(u(&s, &["units"])),
        u(&s, &["min_chars"]),
        int(u(&s, &["repeated_units"])),
        int(u(&s, &["units_cut"])),
        int(u(&s, &["chars_cut"])),
        int(changed),
        pct(changed as f64, documents as f64),
    ));
    page.p("Every cut is a row of spans.jsonl: the document, the unit's character offsets, how many documents hold it and the first of them (the evidence for the cut).");
    reading(&mut page, &s);
    let spilled = u(&s, &["spilled_bytes"]);
    if spilled > 0 {
        page.p(&format!(
            "The counts were sorted on disk: {} MB spilled within the memory limit.",
            int(spilled >> 20)
        ));
    }
    let stages: Vec<(String, f64)> = [("counting", "seconds_count"), ("cutting", "seconds_apply")]
        .iter()
        .filter_map(|(n, k)| Some((n.to_string(), f(&s, &[k])?)))
        .collect();
    seconds(&mut page, &stages);

    page.section("repeated", "Most repeated");
    let rows: Vec<Vec<Cell>> = array(&s, &["most_repeated"])
        .iter()
        .take(limits.top_clusters.max(20))
        .map(|r| {
            vec![
                Cell::json(r.get("docs")),
                Cell::json(r.get("text")),
                Cell::json(r.get("first_file")),
                Cell::json(r.get("first_record")),
            ]
        })
        .collect();
    let total = array(&s, &["most_repeated"]).len();
    page.table(
        &format!(
            "The most repeated {unit}s (their text where first found, at most 300 characters)"
        ),
        &cols(&[
            ("documents", true),
            ("text", false),
            ("first file", false),
            ("first record", true),
        ]),
        &rows,
        total,
    );

    page.section("languages", "By language");
    let rows: Vec<Vec<Cell>> = array(&s, &["languages"])
        .iter()
        .map(|r| {
            vec![
                Cell::json(r.get("language")),
                Cell::json(r.get("documents_changed")),
                Cell::json(r.get("units_cut")),
                Cell::json(r.get("chars_cut")),
            ]
        })
        .collect();
    let total = rows.len();
    page.p(&format!(
        "The documents cut from, by their language (ISO 639-3, told from the text before any cut; und: too little text{}).",
        language_detector(&s)
    ));
    page.table(
        "Cuts by language",
        &cols(&[
            ("language", false),
            ("documents", true),
            ("units cut", true),
            ("characters cut", true),
        ]),
        &rows,
        total,
    );

    page.section("files", "By input");
    let rows: Vec<Vec<Cell>> = array(&s, &["inputs"])
        .iter()
        .map(|r| {
            vec![
                Cell::json(r.get("input")),
                Cell::json(r.get("output")),
                Cell::json(r.get("records")),
                Cell::json(r.get("records_changed")),
                Cell::json(r.get("units_cut")),
                Cell::json(r.get("chars_cut")),
            ]
        })
        .collect();
    let total = rows.len();
    page.table(
        "Inputs",
        &cols(&[
            ("input", false),
            ("cleaned file", false),
            ("records", true),
            ("records changed", true),
            ("units cut", true),
            ("characters cut", true),
        ]),
        &rows,
        total,
    );
    Ok(page)
}

pub(crate) fn contamination(dir: &Folder, limits: &Limits) -> Result<Page, HtmlError> {
    let s = dir.json("summary.json")?.unwrap_or_default();
    let mut page = Page::new("neardup decontaminate report");
    page.section("summary", "Summary");
    let action = at(&s, &["action"])
        .and_then(|v| v.as_str())
        .unwrap_or("report");
    let documents = u(&s, &["documents"]);
    let contaminated = u(&s, &["documents_contaminated"]);
    page.p(&format!(
        "{} training documents read; {} ({}) hold at least one {}-word n-gram of an evaluation item, in {} spans. {} distinct n-grams were indexed from the evaluation sets ({} items too short to check).",
        int(documents),
        int(contaminated),
        pct(contaminated as f64, documents as f64),
        u(&s, &["ngram"]),
        int(u(&s, &["spans"])),
        int(u(&s, &["eval_ngrams"])),
        int(u(&s, &["eval_items_too_short"])),
    ));
    let written = !array(&s, &["outputs"]).is_empty();
    page.p(&match action {
        _ if !written => format!(
            "The corpus was not written (no --write-clean); action {action} would apply to it."
        ),
        "cut" => format!(
            "Action cut: each span and {} characters on each side were removed from {} documents ({} characters).",
            u(&s, &["margin"]),
            int(u(&s, &["documents_changed"])),
            int(u(&s, &["chars_cut"]))
        ),
        "drop" => format!(
            "Action drop: {} documents were left out of the written corpus.",
            int(u(&s, &["documents_changed"]))
        ),
        _ => "Action report: the corpus was not written.".to_string(),
    });
    reading(&mut page, &s);

    page.section("sets", "By evaluation set");
    let found: std::collections::HashMap<&str, u64> = array(&s, &["items_found"])
        .iter()
        .filter_map(|p| Some((p.get(0)?.as_str()?, p.get(1)?.as_u64()?)))
        .collect();
    let rows: Vec<Vec<Cell>> = array(&s, &["eval_items"])
        .iter()
        .filter_map(|p| {
            let (name, items) = (p.get(0)?.as_str()?, p.get(1)?.as_u64()?);
            let hit = found.get(name).copied().unwrap_or(0);
            Some(vec![
                Cell::Text(name.to_string()),
                Cell::Num(items as f64, 0),
                Cell::Num(hit as f64, 0),
                Cell::Num(100.0 * hit as f64 / items.max(1) as f64, 1),
            ])
        })
        .collect();
    let total = rows.len();
    page.table(
        "Contamination by evaluation set: items whose n-grams were found in the training data",
        &cols(&[
            ("evaluation set", false),
            ("items", true),
            ("items found", true),
            ("found %", true),
        ]),
        &rows,
        total,
    );
    page.p(&format!(
        "Each contaminated document's language (ISO 639-3; und: too little text{}).",
        language_detector(&s)
    ));
    let rows: Vec<Vec<Cell>> = array(&s, &["languages"])
        .iter()
        .filter_map(|p| {
            Some(vec![
                Cell::Text(p.get(0)?.as_str()?.to_string()),
                Cell::Num(p.get(1)?.as_u64()? as f64, 0),
            ])
        })
        .collect();
    let total = rows.len();
    page.table(
        "Contaminated documents by language",
        &cols(&[("language", false), ("documents", true)]),
        &rows,
        total,
    );

    page.section("spans", "Spans");
    let spans: Vec<serde_json::Value> = dir.rows("contamination")?.unwrap_or_default();
    let cap = limits.top_clusters.max(200);
    let rows: Vec<Vec<Cell>> = spans
        .iter()
        .take(cap)
        .map(|r| {
            [
                "file",
                "record",
                "id",
                "language",
                "eval_file",
                "item_id",
                "start",
                "end",
                "ngrams",
            ]
            .iter()
            .map(|k| Cell::json(r.get(*k)))
            .collect()
        })
        .collect();
    page.p("Each span: the training document, the evaluation item, the matched text's character offsets and how many of the item's n-grams it holds (the evidence).");
    page.table(
        "Contaminated spans (the first in input order)",
        &cols(&[
            ("file", false),
            ("record", true),
            ("id", false),
            ("language", false),
            ("evaluation set", false),
            ("item", false),
            ("start", true),
            ("end", true),
            ("n-grams", true),
        ]),
        &rows,
        spans.len(),
    );
    Ok(page)
}

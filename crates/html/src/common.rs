//! Sections every report shares: what was read and skipped, and the time each stage took.

use crate::folder::{at, u};
use crate::page::{cols, int, Cell, Page};

/// Records skipped (by reason, with the first few: file, offset, reason) and responses that are
/// not pages, from a summary's `skipped` and `not_pages`.
pub(crate) fn reading(page: &mut Page, s: &serde_json::Value) {
    let skipped = u(s, &["skipped", "records"]);
    let reasons: Vec<String> = at(s, &["skipped", "by_reason"])
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let r = r.as_array()?;
            Some(format!(
                "{} {}",
                int(r.get(1)?.as_u64()?),
                r.first()?.as_str()?
            ))
        })
        .collect();
    let not_pages: Vec<String> = at(s, &["not_pages"])
        .and_then(|v| v.as_object())
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some(format!("{} {k}", int(v.as_u64()?))))
        .collect();
    let mut text = if skipped == 0 {
        "No record was skipped as malformed.".to_string()
    } else {
        format!(
            "{} malformed records were skipped ({}).",
            int(skipped),
            reasons.join(", ")
        )
    };
    if !not_pages.is_empty() {
        text += &format!(
            " Responses that are not pages, left out: {}.",
            not_pages.join(", ")
        );
    }
    let other = u(s, &["pages_not_html_or_text"]);
    if other > 0 {
        text += &format!(" {} responses were neither HTML nor text.", int(other));
    }
    let empty = u(s, &["pages_without_terms"]);
    if empty > 0 {
        text += &format!(" {} pages had no terms.", int(empty));
    }
    page.p(&text);
    let examples: Vec<Vec<Cell>> = at(s, &["skipped", "examples"])
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .map(|e| {
            vec![
                Cell::json(e.get("file")),
                Cell::json(e.get("offset")),
                Cell::json(e.get("kind")),
                Cell::json(e.get("detail")),
            ]
        })
        .collect();
    if !examples.is_empty() {
        let n = examples.len();
        page.table(
            "Skipped records (the first of each run)",
            &cols(&[
                ("file", false),
                ("byte offset", true),
                ("reason", false),
                ("detail", false),
            ]),
            &examples,
            n,
        );
    }
}

/// The time of each stage, in seconds (these vary from run to run; nothing else does).
pub(crate) fn seconds(page: &mut Page, stages: &[(String, f64)]) {
    if stages.is_empty() {
        return;
    }
    let rows: Vec<Vec<Cell>> = stages
        .iter()
        .map(|(name, t)| vec![Cell::Text(name.clone()), Cell::Text(format!("{t:.3} s"))])
        .collect();
    let n = rows.len();
    page.table(
        "Time per stage",
        &cols(&[("stage", false), ("time", false)]),
        &rows,
        n,
    );
}

/// A table of some columns of `records`, `(key, heading)` each: numbers where the column's
/// first value is a number, links for URLs; the first `limit` rows.
pub(crate) fn records(
    page: &mut Page,
    caption: &str,
    rows: &[serde_json::Map<String, serde_json::Value>],
    columns: &[(&str, &str)],
    limit: usize,
) {
    let numeric: Vec<bool> = columns
        .iter()
        .map(|(k, _)| {
            rows.iter()
                .filter_map(|r| r.get(*k))
                .find(|v| !v.is_null())
                .is_some_and(|v| v.is_number())
        })
        .collect();
    let spec: Vec<(&str, bool)> = columns
        .iter()
        .zip(&numeric)
        .map(|((_, h), n)| (*h, *n))
        .collect();
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .take(limit)
        .map(|r| columns.iter().map(|(k, _)| Cell::json(r.get(*k))).collect())
        .collect();
    page.table(caption, &cols(&spec), &cells, rows.len());
}

/// Precision, recall and F1 rows from metric objects (`{precision, recall, f1, true_positives,
/// ...}`), one per `(name, object)`.
pub(crate) fn metrics(
    page: &mut Page,
    caption: &str,
    first: &str,
    rows: &[(String, &serde_json::Value)],
) {
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|(name, m)| {
            let mut r = vec![Cell::Text(name.clone())];
            for k in [
                "precision",
                "recall",
                "f1",
                "true_positives",
                "false_positives",
                "false_negatives",
                "true_negatives",
            ] {
                r.push(Cell::json(m.get(k)));
            }
            r
        })
        .collect();
    let n = cells.len();
    page.table(
        caption,
        &cols(&[
            (first, false),
            ("precision", true),
            ("recall", true),
            ("F1", true),
            ("true positives", true),
            ("false positives", true),
            ("false negatives", true),
            ("true negatives", true),
        ]),
        &cells,
        n,
    );
}

/// A JSON array of `[a, b]` pairs as numbers.
pub(crate) fn pairs(v: Option<&serde_json::Value>) -> Vec<(f64, f64)> {
    v.and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
        .collect()
}

/// A log-log figure of a size distribution (`(size, count)`), as dots.
pub(crate) fn size_figure(
    title: &str,
    x_label: &str,
    y_label: &str,
    dist: &[(f64, f64)],
) -> String {
    use neardup_report::plot::{dots_and_lines, Axis, Series};
    let max_x = dist.iter().map(|d| d.0).fold(1.0, f64::max);
    let max_y = dist.iter().map(|d| d.1).fold(1.0, f64::max);
    let min_x = dist.iter().map(|d| d.0).fold(f64::INFINITY, f64::min);
    let x = Axis::log(x_label, (min_x / 2.0).max(0.5), max_x * 2.0);
    let y = Axis::log(y_label, 0.5, max_y * 2.0);
    let dots = Series {
        name: y_label.to_string(),
        points: dist.to_vec(),
    };
    dots_and_lines(title, &x, &y, &[dots], &[])
}

/// "; detector: NAME" for a summary that names its language detector (`language_detector`),
/// to close a sentence on its languages; empty for one that does not (an older run's).
pub(crate) fn language_detector(s: &serde_json::Value) -> String {
    at(s, &["language_detector"])
        .and_then(|v| v.as_str())
        .map_or(String::new(), |d| format!("; detector: {d}"))
}

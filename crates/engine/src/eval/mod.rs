//! The eval job: predictions scored against labels. Labelled page pairs score a dedup run's
//! `pairs` or `clusters` table ([`pairs`]: precision, recall, F1 by kind and site, PR curves,
//! break-even, term differences, paper 000's Figure 1); labelled site pairs score a replicas run
//! ([`sites`]: paper 001's ROC, AUC, reduction ratio, replica detection rate).

pub mod pairs;
pub mod sites;

use crate::Error;
use neardup_report::{read_rows, Record};
use std::path::Path;

/// What a truth table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelKind {
    /// Labelled page pairs (`url_a`, `url_b`, `label`, `kind`).
    PagePairs,
    /// Labelled site pairs (`host_a`, `host_b`, `replica`, `kind`).
    SitePairs,
}

/// Reads a table of any shape (JSONL, CSV, Parquet) as records.
pub(crate) fn records(path: &Path) -> Result<Vec<Record>, Error> {
    Ok(read_rows::<Record>(path)?)
}

/// Tells page-pair labels from site-pair labels by the first row's columns.
pub fn label_kind(truth: &Path) -> Result<LabelKind, Error> {
    let rows = records(truth)?;
    Ok(if rows.first().is_some_and(|r| r.contains_key("host_a")) {
        LabelKind::SitePairs
    } else {
        LabelKind::PagePairs
    })
}

/// A cell as text (numbers and booleans as written; null as none).
pub(crate) fn text(v: Option<&serde_json::Value>) -> Option<String> {
    match v? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// A cell as a number (numbers, or text that parses).
pub(crate) fn number(v: Option<&serde_json::Value>) -> Option<f64> {
    match v? {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// A 1/0 (or true/false) label cell; the error says what was found.
pub(crate) fn label(v: Option<&serde_json::Value>) -> Result<bool, Option<String>> {
    match v {
        Some(serde_json::Value::Bool(b)) => Ok(*b),
        other => match text(other).as_deref() {
            Some("1") | Some("true") => Ok(true),
            Some("0") | Some("false") => Ok(false),
            got => Err(got.map(str::to_string)),
        },
    }
}

/// The error for a truth table row.
pub(crate) fn bad_row(path: &Path, row: usize, what: String) -> Error {
    Error::BadTable {
        path: path.to_path_buf(),
        what: format!("row {}: {what}", row + 1),
    }
}

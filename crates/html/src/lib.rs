//! neardup's HTML report: one self-contained page per output folder, built from the folder's
//! own tables and summaries, so `neardup report DIR` rebuilds exactly what the run wrote.
//!
//! The page inlines its CSS and SVG figures and a few lines of plain JavaScript (sortable,
//! filterable tables; the page reads the same without it); it fetches nothing. It is a pure
//! function of the folder's files: the same files give the same bytes. Large runs stay small:
//! every list is capped ([`Limits`]) and the page says where it was.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(
//!     dir.path().join("mirrors.jsonl"),
//!     "{\"host_a\":\"a.org\",\"host_b\":\"b.org\",\"kind\":\"mirror\"}\n",
//! )
//! .unwrap();
//! let report = neardup_html::build(dir.path(), &neardup_html::Limits::default()).unwrap();
//! assert_eq!(report.kind, neardup_html::Kind::Mirrors);
//! assert!(report.html.contains("<td class=\"w\">a.org/</td>"));
//! ```

mod clean;
mod common;
mod dedup;
mod eval;
mod evolve;
pub mod figures;
mod folder;
mod mirrors;
mod overlap;
pub mod page;
mod replicas;

pub use dedup::Member as ClusterMember;
use folder::Folder;
use std::path::{Path, PathBuf};

/// The report's file name in an output folder.
pub const FILE: &str = "report.html";

/// What a report shows at most, and where it links captures.
#[derive(Clone, Debug)]
pub struct Limits {
    /// A replay link template (`{timestamp}`, `{url}`) that replaces the one the run kept in
    /// its summary (`dedup --replay-url`); captures link to the live web when neither is set.
    pub replay_url: Option<String>,
    /// Rows of any one table.
    pub rows: usize,
    /// Clusters in the clusters table.
    pub clusters: usize,
    /// Clusters whose members are listed.
    pub top_clusters: usize,
    /// Members listed per cluster.
    pub members: usize,
    /// Bins of a score histogram.
    pub histogram_bins: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            replay_url: None,
            rows: 500,
            clusters: 500,
            top_clusters: 10,
            members: 50,
            histogram_bins: 20,
        }
    }
}

/// The command whose folder it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// `dedup` (and `dedup --index`).
    Dedup,
    /// `mirrors`.
    Mirrors,
    /// `evolve`.
    Evolve,
    /// `replicas`.
    Replicas,
    /// `eval` of page pairs.
    Eval,
    /// `eval` of a `replicas` run against site-pair labels.
    SiteEval,
    /// `overlap`.
    Overlap,
    /// `paragraphs`.
    Paragraphs,
    /// `decontaminate`.
    Contamination,
}

/// A built report.
#[derive(Clone, Debug)]
pub struct Report {
    /// Whose folder.
    pub kind: Kind,
    /// The page.
    pub html: String,
}

/// Why a report could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HtmlError {
    /// A table could not be read.
    #[error(transparent)]
    Table(#[from] neardup_report::ReportError),
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A JSON summary is not JSON.
    #[error("{path} is not valid JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// Nothing in the folder says which command wrote it.
    #[error("{dir} holds no neardup output a report can be built from (clusters, mirrors, coefficients, replicas, overlap tables, spans, contamination, eval.json or site-eval.json)")]
    Unknown {
        /// The folder.
        dir: PathBuf,
    },
}

/// Which command wrote the folder at `dir`, by the files it holds.
pub fn detect(dir: &Path) -> Option<Kind> {
    let d = Folder::new(dir);
    if dir.join("site-eval.json").is_file() {
        Some(Kind::SiteEval)
    } else if dir.join("eval.json").is_file() {
        Some(Kind::Eval)
    } else if d.has("coefficients") || d.has("recrawl") {
        Some(Kind::Evolve)
    } else if d.has("replicas") {
        Some(Kind::Replicas)
    } else if d.has("mirrors") {
        Some(Kind::Mirrors)
    } else if d.has("overlap") {
        Some(Kind::Overlap)
    } else if d.has("clusters") {
        Some(Kind::Dedup)
    } else if d.has("spans") {
        Some(Kind::Paragraphs)
    } else if d.has("contamination") {
        Some(Kind::Contamination)
    } else {
        None
    }
}

/// The dedup report of `dir` with its clusters table's rows given (by the run that has just
/// written them: reading 30 MB of table back was most of the report's cost): the page
/// [`build`] makes of the same folder.
pub fn build_dedup(
    dir: &Path,
    limits: &Limits,
    clusters: Vec<ClusterMember>,
) -> Result<Report, HtmlError> {
    let page = dedup::build(&Folder::new(dir), limits, Some(clusters))?;
    Ok(Report {
        kind: Kind::Dedup,
        html: page.finish(),
    })
}

/// Builds the report of the folder at `dir` from its files.
pub fn build(dir: &Path, limits: &Limits) -> Result<Report, HtmlError> {
    let kind = detect(dir).ok_or_else(|| HtmlError::Unknown {
        dir: dir.to_path_buf(),
    })?;
    let d = Folder::new(dir);
    let page = match kind {
        Kind::Dedup => dedup::build(&d, limits, None)?,
        Kind::Mirrors => mirrors::build(&d, limits)?,
        Kind::Evolve => evolve::build(&d, limits)?,
        Kind::Replicas => replicas::build(&d, limits)?,
        Kind::Eval => eval::build(&d)?,
        Kind::SiteEval => replicas::build_eval(&d)?,
        Kind::Overlap => overlap::build(&d, limits)?,
        Kind::Paragraphs => clean::paragraphs(&d, limits)?,
        Kind::Contamination => clean::contamination(&d, limits)?,
    };
    Ok(Report {
        kind,
        html: page.finish(),
    })
}

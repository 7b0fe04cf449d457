//! The mirrors job's table: one row per host pair (or subtree pair) with its evidence.

use neardup_report::Table;
pub use neardup_sites::mirrors::*;
use serde::{Deserialize, Serialize};

/// A row of `mirrors`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MirrorRow {
    /// First host.
    pub host_a: String,
    /// Second host.
    pub host_b: String,
    /// The subtree of `host_a` (`/` for the whole host).
    pub prefix_a: String,
    /// The subtree of `host_b`.
    pub prefix_b: String,
    /// Mirror, partial mirror or alias.
    pub kind: MirrorKind,
    /// Why an alias is one (empty otherwise).
    pub alias_reason: String,
    /// Pages of `a` in clusters shared with `b`.
    pub pages_shared_a: u64,
    /// Pages of `b` in clusters shared with `a`.
    pub pages_shared_b: u64,
    /// Pages of `a`.
    pub pages_a: u64,
    /// Pages of `b`.
    pub pages_b: u64,
    /// Share of shared pages whose last URL arc is also on the other host.
    pub suffix_match_last_arc: Option<f64>,
    /// The same for the last four arcs.
    pub suffix_match_four_arcs: Option<f64>,
    /// Distinct IPs of `a`.
    pub ips_a: u64,
    /// Distinct IPs of `b`.
    pub ips_b: u64,
    /// Example URL pairs, `url_a url_b` joined by `; `.
    pub examples: String,
}

impl Table for MirrorRow {
    const NAME: &'static str = "mirrors";
}

/// The rows of a report.
pub fn rows(report: &MirrorReport) -> Vec<MirrorRow> {
    let opt = |f: f64| (!f.is_nan()).then_some(f);
    report
        .pairs
        .iter()
        .map(|p| MirrorRow {
            host_a: p.host_a.clone(),
            host_b: p.host_b.clone(),
            prefix_a: p.prefix_a.clone(),
            prefix_b: p.prefix_b.clone(),
            kind: p.kind,
            alias_reason: p.alias_reason.unwrap_or("").to_string(),
            pages_shared_a: p.shared_a,
            pages_shared_b: p.shared_b,
            pages_a: p.pages_a,
            pages_b: p.pages_b,
            suffix_match_last_arc: opt(p.suffix_match_last_arc),
            suffix_match_four_arcs: opt(p.suffix_match_four_arcs),
            ips_a: p.ips_a,
            ips_b: p.ips_b,
            examples: p
                .examples
                .iter()
                .map(|(a, b)| format!("{a} {b}"))
                .collect::<Vec<_>>()
                .join("; "),
        })
        .collect()
}

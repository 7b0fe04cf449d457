//! One module per subcommand.

pub mod audit;
pub mod changes;
pub mod decontaminate;
pub mod dedup;
pub mod demo;
pub mod eval;
pub mod evolve;
pub mod index;
pub mod mirrors;
pub mod overlap;
pub mod paragraphs;
pub mod replicas;
pub mod report;
pub mod scan;
pub mod serve;
pub mod sketch;

use neardup_engine::clusters::ClusterSource;
use std::collections::HashMap;
use std::path::PathBuf;

/// Where a site command's clusters come from: `--clusters FILE`, `--exact`, `--level` (paper
/// 004's supershingle clusters), or by default as `neardup dedup` clusters.
pub(crate) fn cluster_source(
    file: &Option<PathBuf>,
    exact: bool,
    level: Option<&str>,
    params: &neardup_sketch::SketchParams,
) -> anyhow::Result<ClusterSource> {
    Ok(match (file, level) {
        (Some(p), _) => ClusterSource::File(p.clone()),
        _ if exact => ClusterSource::Exact,
        (None, Some(level)) => ClusterSource::Supershingles {
            min_agree: dedup::level(level, params.supershingles)?,
        },
        (None, None) => ClusterSource::Dedup,
    })
}

/// `--hosts-ips FILE`, read.
pub(crate) fn hosts_ips(file: &Option<PathBuf>) -> anyhow::Result<HashMap<String, Vec<String>>> {
    Ok(match file {
        Some(p) => neardup_ingest::read_hosts_ips(p)?,
        None => HashMap::new(),
    })
}

/// Responses that are not pages in words: `, 14 not pages (301: 7, 404: 7)`, or nothing.
pub(crate) fn not_pages_text(n: &std::collections::BTreeMap<String, u64>) -> String {
    let total: u64 = n.values().sum();
    if total == 0 {
        return String::new();
    }
    let by: Vec<String> = n.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!(
        ", {total} responses that are not pages, counted and left out ({})",
        by.join(", ")
    )
}

/// Skipped records in words (nothing when none were skipped): the count, the reasons, and the
/// kept examples with file, byte offset and detail.
/// The end of an add's line for records the index already held ("" for none).
pub(crate) fn held_text(held: u64) -> String {
    if held == 0 {
        String::new()
    } else {
        format!("; {held} pages already held (the same records) were not added again")
    }
}

/// The line an add prints when the key segments it piled up were merged after it ("" for
/// none).
pub(crate) fn merged_text(merged: Option<&neardup_index::MaintainReport>) -> String {
    merged.map_or(String::new(), |m| {
        format!(
            "merged {} segments into {} (a lookup reads fewer)\n",
            m.segments_dropped, m.segments_written
        )
    })
}

/// A warning for an add too large to look for repeats within itself ("" for none).
pub(crate) fn untracked_text(untracked: u64) -> String {
    if untracked == 0 {
        String::new()
    } else {
        format!(
            "warning: {untracked} pages came after the memory kept for recognizing repeated records within this add was full: their repeats within the add were not looked for (those the index held before were); raise --mem-limit or add in smaller parts\n"
        )
    }
}

pub(crate) fn skipped_text(s: &neardup_engine::Skipped) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    if s.records == 0 {
        return o;
    }
    let reasons: Vec<String> = s
        .by_reason
        .iter()
        .map(|(r, n)| format!("{r} ({n})"))
        .collect();
    let _ = writeln!(
        o,
        "skipped {} record(s), counted and left out: {}",
        s.records,
        reasons.join(", ")
    );
    for p in &s.examples {
        let _ = writeln!(
            o,
            "  {}: byte {}: {}: {}",
            p.file,
            p.offset,
            p.kind.as_str(),
            p.detail
        );
    }
    if (s.examples.len() as u64) < s.records {
        let _ = writeln!(
            o,
            "  (-v lists every kept example; summary.json has them too)"
        );
    }
    o
}

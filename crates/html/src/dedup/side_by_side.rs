//! The dedup report's side-by-side section: for each of the largest clusters, the page kept
//! beside its least similar member, the terms that differ marked and the chrome left out.

use crate::folder::Folder;
use crate::page::{esc, int, link, num, Page};
use crate::HtmlError;
use serde::Deserialize;

/// The columns of `samples` the report reads (the engine's `SampleRow`).
#[derive(Deserialize)]
struct Sample {
    cluster: u64,
    cluster_size: u64,
    canonical_url: String,
    member_url: String,
    /// Titles as read (folders written before they were kept have none).
    #[serde(default)]
    canonical_title: String,
    #[serde(default)]
    member_title: String,
    estimated_jaccard: f64,
    rule: String,
    canonical_terms: u64,
    member_terms: u64,
    deleted: u64,
    inserted: u64,
    diff_truncated: bool,
    diff: String,
    canonical_removed: String,
    canonical_removed_terms: u64,
    member_removed: String,
    member_removed_terms: u64,
}

/// A page's title as read, for the side-by-side header.
fn title(t: &str) -> String {
    match t {
        "" => " <span class=\"note\">(no title)</span>".to_string(),
        t => format!(" <q>{}</q>", esc(t)),
    }
}

pub(super) fn samples(dir: &Folder, page: &mut Page) -> Result<(), HtmlError> {
    let Some(rows) = dir.rows::<Sample>("samples")? else {
        page.p("The folder has no samples table (it is written with the report, from the crawl files; signature files and pages in memory hold no text).");
        return Ok(());
    };
    if rows.is_empty() {
        page.p("No cluster could be sampled (no clusters, or no page text in the inputs).");
        return Ok(());
    }
    page.p("For each of the largest clusters: the page kept (left) beside the member least similar to it (right), over the terms the signatures were taken of. Terms only on the left are struck through; terms only on the right are underlined. Below each, the chrome (navigation, headers, footers) left out before comparing.");
    for s in &rows {
        page.h3(&format!(
            "Cluster {}: {} pages; estimated Jaccard {} ({}); {} terms only in the kept page, {} only in the member",
            s.cluster,
            s.cluster_size,
            num(s.estimated_jaccard, 3),
            s.rule,
            s.deleted,
            s.inserted
        ));
        if s.diff_truncated {
            page.note(&format!(
                "The first terms of each page are compared ({} and {} in all).",
                int(s.canonical_terms),
                int(s.member_terms)
            ));
        }
        let (mut left, mut right) = (String::new(), String::new());
        for step in s.diff.split(' ').filter(|t| !t.is_empty()) {
            let mut chars = step.chars();
            let op = chars.next();
            let term = esc(chars.as_str());
            match op {
                Some('=') => {
                    left += &term;
                    left.push(' ');
                    right += &term;
                    right.push(' ');
                }
                Some('-') => {
                    left += &format!("<del>{term}</del> ");
                }
                Some('+') => {
                    right += &format!("<ins>{term}</ins> ");
                }
                _ => {}
            }
        }
        let removed = |text: &str, n: u64| {
            if n == 0 {
                "<p class=\"removed\">Nothing left out.</p>".to_string()
            } else {
                let shown = text.split(' ').filter(|t| !t.is_empty()).count() as u64;
                format!(
                    "<details><summary>Chrome left out: {} terms{}</summary><p class=\"removed\">{}</p></details>",
                    int(n),
                    if shown < n { format!(" (the first {shown})") } else { String::new() },
                    esc(text)
                )
            }
        };
        page.raw(&format!(
            "<div class=\"side\"><div><p><strong>Kept</strong> ({} terms): {}{}</p><p>{}</p>{}</div><div><p><strong>Member</strong> ({} terms): {}{}</p><p>{}</p>{}</div></div>",
            int(s.canonical_terms),
            link(&s.canonical_url),
            title(&s.canonical_title),
            left.trim_end(),
            removed(&s.canonical_removed, s.canonical_removed_terms),
            int(s.member_terms),
            link(&s.member_url),
            title(&s.member_title),
            right.trim_end(),
            removed(&s.member_removed, s.member_removed_terms),
        ));
    }
    Ok(())
}

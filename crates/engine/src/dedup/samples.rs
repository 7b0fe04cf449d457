//! Side-by-side samples of a dedup run's largest clusters, for the HTML report: for each of the
//! largest clusters, its canonical page and its least similar member, their terms as a term diff
//! ([`neardup_eval::term_diff`], the steps behind the eval's Myers term differences) over what
//! the signatures were taken of, and the chrome each page had left out.
//!
//! The pages are read again from the run's crawl files or pages in memory (signature files and
//! streams hold no text to read again; their pages are not sampled). A page is read alone where its record is
//! (`Page::raw_offset`, kept in the corpus: a WARC record's gzip member or offset, an
//! uncompressed JSONL line's offset, a Parquet row); only pages without one (ARC, zstd,
//! compressed JSONL, a gzip member of several records) cost a second pass over their inputs,
//! which reads and decompresses them again. Only the sampled pages are tokenized.

use crate::dedup::ClusterRow;
use crate::pipeline::{run, Input, PipelineConfig, Visitor};
use crate::{Error, NoProgress};
use neardup_eval::{term_diff, Edit};
use neardup_ingest::Page;
use neardup_report::Table;
use neardup_store::Corpus;
use neardup_text::{Document, Scope};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// At most this many terms of each page enter a diff (the diff costs their product).
pub const MAX_DIFF_TERMS: usize = 600;
/// At most this many removed (chrome) terms of each page are kept.
pub const MAX_REMOVED_TERMS: usize = 200;

/// One row of `samples`: a cluster's canonical page beside one member.
///
/// `diff` is the term diff as text: the terms in diff order, separated by one space, each
/// prefixed by `=` (in both pages), `-` (the canonical page only) or `+` (the member only).
/// Whitespace inside a term (never made by the tokenizer) is written as `_`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleRow {
    /// The cluster (as in `clusters`).
    pub cluster: u64,
    /// Its pages.
    pub cluster_size: u64,
    /// The page kept.
    pub canonical_url: String,
    /// The member shown beside it: the cluster's least similar to the canonical page.
    pub member_url: String,
    /// The canonical page's title as read (HTML `<title>`, whitespace collapsed; empty when it
    /// has none).
    pub canonical_title: String,
    /// The member's title as read.
    pub member_title: String,
    /// The member's estimated Jaccard against the canonical page.
    pub estimated_jaccard: f64,
    /// The rule that accepted the member.
    pub rule: neardup_dedup::Rule,
    /// Terms the signatures were taken of, canonical page.
    pub canonical_terms: u64,
    /// Terms the signatures were taken of, member.
    pub member_terms: u64,
    /// Terms in the diff's `-` steps (the canonical page only), over the diffed terms.
    pub deleted: u64,
    /// Terms in the diff's `+` steps (the member only), over the diffed terms.
    pub inserted: u64,
    /// True when a page had more than [`MAX_DIFF_TERMS`] terms and only its first were diffed.
    pub diff_truncated: bool,
    /// The term diff (see the type's documentation).
    pub diff: String,
    /// Terms of the canonical page left out of its signatures (navigation, headers, footers),
    /// the first [`MAX_REMOVED_TERMS`], space-separated.
    pub canonical_removed: String,
    /// How many there were in all.
    pub canonical_removed_terms: u64,
    /// The member's left-out terms, as `canonical_removed`.
    pub member_removed: String,
    /// How many there were in all.
    pub member_removed_terms: u64,
}

impl Table for SampleRow {
    const NAME: &'static str = "samples";
}

/// A page's terms as the sample shows them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Terms {
    /// The title as read, whitespace collapsed.
    pub title: String,
    /// The first [`MAX_DIFF_TERMS`] terms the signatures were taken of.
    pub kept: Vec<String>,
    /// The first [`MAX_REMOVED_TERMS`] terms left out (chrome).
    pub removed: Vec<String>,
    /// Terms left out in all.
    pub removed_count: u64,
    /// Terms the signatures were taken of in all.
    pub kept_count: u64,
}

/// The term diff of two pages' kept terms, as [`SampleRow::diff`] writes it.
pub(crate) struct Diff {
    /// The steps as text.
    pub text: String,
    /// Terms of the first page only.
    pub deleted: u64,
    /// Terms of the second page only.
    pub inserted: u64,
    /// A page had more terms than were diffed.
    pub truncated: bool,
}

impl Diff {
    /// The diff of `a`'s kept terms into `b`'s.
    pub fn of(a: &Terms, b: &Terms) -> Diff {
        let steps = term_diff(&a.kept, &b.kept);
        let (mut i, mut j) = (0, 0);
        let mut text = String::new();
        let (mut deleted, mut inserted) = (0, 0);
        for s in steps {
            if !text.is_empty() {
                text.push(' ');
            }
            match s {
                Edit::Same => {
                    text.push('=');
                    text.push_str(&a.kept[i]);
                    i += 1;
                    j += 1;
                }
                Edit::Deleted => {
                    text.push('-');
                    text.push_str(&a.kept[i]);
                    deleted += 1;
                    i += 1;
                }
                Edit::Inserted => {
                    text.push('+');
                    text.push_str(&b.kept[j]);
                    inserted += 1;
                    j += 1;
                }
            }
        }
        Diff {
            text,
            deleted,
            inserted,
            truncated: a.kept_count > a.kept.len() as u64 || b.kept_count > b.kept.len() as u64,
        }
    }
}

struct Collect {
    wanted: Arc<HashMap<String, HashSet<String>>>,
    scope: Scope,
    got: Vec<((String, String), Terms)>,
}

fn term_text(t: &str) -> String {
    if t == neardup_text::NAME_TERM {
        // Signatures take every domain name as one term; the diff says so in words, joined by
        // no-break spaces (the diff's text separates terms by spaces).
        return "‹a\u{a0}domain\u{a0}name›".to_string();
    }
    t.chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

impl Visitor for Collect {
    type Output = Vec<((String, String), Terms)>;

    fn wants(&mut self, page: &Page) -> bool {
        self.wanted
            .get(page.url.as_str())
            .is_some_and(|ids| ids.contains(page.record_id.as_str()))
    }

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        let Some(doc) = doc else { return };
        let mut t = Terms {
            title: doc.title().split_whitespace().collect::<Vec<_>>().join(" "),
            ..Terms::default()
        };
        for term in doc.signature_terms(self.scope) {
            t.kept_count += 1;
            if t.kept.len() < MAX_DIFF_TERMS {
                t.kept.push(term_text(term));
            }
        }
        if doc.uses_main(self.scope) {
            for i in (0..doc.len()).filter(|&i| !doc.is_main(i)) {
                t.removed_count += 1;
                if t.removed.len() < MAX_REMOVED_TERMS {
                    t.removed.push(term_text(doc.term(i)));
                }
            }
        }
        self.got
            .push(((page.url.clone(), page.record_id.clone()), t));
    }

    fn finish(self) -> Self::Output {
        self.got
    }
}

/// The wanted pages that can be read alone, read at their records' offsets (the first page of
/// each URL and id in the corpus's order, which is input order; each file's records in one
/// [`neardup_ingest::read_records_at`]); they leave `wanted`. A page that cannot be read
/// there, or is not the page the corpus names (a file changed since), stays wanted.
fn read_alone(
    corpus: &Corpus,
    crawls: &[Input],
    config: &PipelineConfig,
    wanted: &mut HashMap<String, HashSet<String>>,
) -> Vec<Page> {
    // Per input: the offsets to read, and the corpus page each names.
    let mut by_input: BTreeMap<u32, BTreeMap<u64, neardup_ingest::PageId>> = BTreeMap::new();
    let mut named: HashMap<neardup_ingest::PageId, (&str, &str)> = HashMap::new();
    for p in corpus.pages() {
        let Some(at) = p.raw_offset else { continue };
        if !wanted.get(p.url).is_some_and(|ids| ids.contains(p.user_id)) {
            continue;
        }
        by_input
            .entry(p.id.source)
            .or_default()
            .entry(at)
            .or_insert(p.id);
        named.insert(p.id, (p.url, p.user_id));
    }
    let mut pages = Vec::new();
    for (source, offsets) in by_input {
        let name = &corpus.inputs()[source as usize];
        let Some((path, format)) = crawls
            .iter()
            .find(|i| &i.name() == name)
            .and_then(|i| Some((i.as_path()?, i.format())))
        else {
            continue;
        };
        let at: Vec<u64> = offsets.keys().copied().collect();
        let Ok(read) = neardup_ingest::read_records_at(path, format, &at, source, &config.read)
        else {
            continue;
        };
        for (raw, mut page) in read {
            let Some(&id) = offsets.get(&raw) else {
                continue;
            };
            let Some(&(url, user_id)) = named.get(&id) else {
                continue;
            };
            if page.url != url || page.record_id != user_id {
                continue;
            }
            let Some(ids) = wanted.get_mut(url) else {
                continue;
            };
            if !ids.remove(user_id) {
                continue;
            }
            if ids.is_empty() {
                wanted.remove(url);
            }
            page.id = id;
            pages.push(page);
        }
    }
    pages
}

/// The (canonical, member) rows of up to `clusters` of the largest clusters (ties by cluster
/// number): the canonical page and the member with the lowest estimated Jaccard (the first
/// such in the table).
fn pick(rows: &[ClusterRow], clusters: usize) -> Vec<(&ClusterRow, &ClusterRow)> {
    let mut by: BTreeMap<u64, (Option<&ClusterRow>, Option<&ClusterRow>)> = BTreeMap::new();
    for r in rows {
        let e = by.entry(r.cluster).or_default();
        if r.canonical {
            e.0 = e.0.or(Some(r));
        } else if e
            .1
            .is_none_or(|m| r.estimated_jaccard < m.estimated_jaccard)
        {
            e.1 = Some(r);
        }
    }
    let mut pairs: Vec<(&ClusterRow, &ClusterRow)> = by
        .into_values()
        .filter_map(|(c, m)| Some((c?, m?)))
        .collect();
    pairs.sort_by(|a, b| {
        b.0.cluster_size
            .cmp(&a.0.cluster_size)
            .then(a.0.cluster.cmp(&b.0.cluster))
    });
    pairs.truncate(clusters);
    pairs
}

/// The terms of the `wanted` pages (URL, then record ids) of a run over `inputs`, read again
/// with the run's pipeline settings and signature `scope`: the first copy of each in input
/// order. With the run's `corpus`, a page whose record can be read alone is read there; the
/// others are found by reading the crawl files again. Pages that cannot be read again
/// (signature files, a stream, a file that changed) are missing from the answer.
pub(crate) fn page_terms(
    inputs: &[Input],
    pipeline: &PipelineConfig,
    scope: Scope,
    mut wanted: HashMap<String, HashSet<String>>,
    corpus: Option<&Corpus>,
) -> Result<HashMap<(String, String), Terms>, Error> {
    // Crawl files, and pages in memory (read again as they are); not signature files or
    // streams, which cannot be.
    let crawls: Vec<Input> = inputs
        .iter()
        .filter(|i| match i {
            Input::Path { .. } => !crate::load::is_signature_input(i),
            Input::Pages { .. } => true,
            Input::Stream { .. } | Input::Stdin { .. } => false,
        })
        .cloned()
        .collect();
    if crawls.is_empty() || wanted.is_empty() {
        return Ok(HashMap::new());
    }
    let mut config = pipeline.clone();
    config.allow_empty = true;
    let mut pages = Vec::new();
    if let Some(corpus) = corpus {
        pages = read_alone(corpus, &crawls, &config, &mut wanted);
    }
    // Collects the terms of the `wanted` pages among those `inputs` give.
    let collect = |inputs: &[Input], wanted: HashMap<String, HashSet<String>>| {
        let wanted = Arc::new(wanted);
        run(
            inputs,
            &config,
            || Collect {
                wanted: wanted.clone(),
                scope,
                got: Vec::new(),
            },
            &NoProgress,
        )
        .map(|out| out.outputs)
    };
    let mut outputs = Vec::new();
    if !pages.is_empty() {
        let mut read: HashMap<String, HashSet<String>> = HashMap::new();
        for p in &pages {
            read.entry(p.url.clone())
                .or_default()
                .insert(p.record_id.clone());
        }
        outputs.extend(collect(&[Input::pages("samples", pages)], read)?);
    }
    if !wanted.is_empty() {
        outputs.extend(collect(&crawls, wanted)?);
    }
    // The first copy of a page in input order, whatever thread read it.
    let mut found: HashMap<(String, String), Terms> = HashMap::new();
    for (key, t) in outputs.into_iter().flatten() {
        found.entry(key).or_insert(t);
    }
    Ok(found)
}

/// Samples of up to `clusters` of the largest clusters of a dedup run over `inputs`, whose
/// `clusters` table is `rows`, read with the run's pipeline settings and signature `content`.
///
/// With the run's `corpus`, a page whose record can be read alone (its
/// [`neardup_ingest::Page::raw_offset`]) is read there; the others are found by reading the
/// crawl files again. Pages that cannot be read again (signature files, a stream, a file that
/// changed) are left out, with their clusters.
pub fn samples(
    inputs: &[Input],
    pipeline: &PipelineConfig,
    scope: Scope,
    rows: &[ClusterRow],
    clusters: usize,
    corpus: Option<&Corpus>,
) -> Result<Vec<SampleRow>, Error> {
    let picked = pick(rows, clusters);
    let mut wanted: HashMap<String, HashSet<String>> = HashMap::new();
    for (c, m) in &picked {
        for r in [c, m] {
            wanted
                .entry(r.url.clone())
                .or_default()
                .insert(r.id.clone());
        }
    }
    if picked.is_empty() {
        return Ok(Vec::new());
    }
    let found = page_terms(inputs, pipeline, scope, wanted, corpus)?;
    let mut rows_out = Vec::new();
    for (c, m) in picked {
        let (Some(a), Some(b)) = (
            found.get(&(c.url.clone(), c.id.clone())),
            found.get(&(m.url.clone(), m.id.clone())),
        ) else {
            continue;
        };
        let d = Diff::of(a, b);
        rows_out.push(SampleRow {
            cluster: c.cluster,
            cluster_size: c.cluster_size,
            canonical_url: c.url.clone(),
            member_url: m.url.clone(),
            canonical_title: a.title.clone(),
            member_title: b.title.clone(),
            estimated_jaccard: m.estimated_jaccard,
            rule: m.rule,
            canonical_terms: a.kept_count,
            member_terms: b.kept_count,
            deleted: d.deleted,
            inserted: d.inserted,
            diff_truncated: d.truncated,
            diff: d.text,
            canonical_removed: a.removed.join(" "),
            canonical_removed_terms: a.removed_count,
            member_removed: b.removed.join(" "),
            member_removed_terms: b.removed_count,
        });
    }
    Ok(rows_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cluster: u64, size: u64, url: &str, canonical: bool, j: f64) -> ClusterRow {
        ClusterRow {
            url: url.into(),
            id: format!("id-{url}"),
            date: String::new(),
            language: "eng".into(),
            file: String::new(),
            offset: None,
            cluster,
            cluster_size: size,
            canonical_url: String::new(),
            canonical,
            cluster_min_estimated_jaccard: 0.0,
            rule: neardup_dedup::Rule::IdenticalTokens,
            b_similarity: 0,
            estimated_jaccard: j,
            exact_jaccard: None,
            c_similarity: None,
            rp_distance: None,
            hm_distance: None,
            containment: 0.0,
            titles: neardup_dedup::TitleMatch::Same,
            boilerplate_a: 0.0,
            boilerplate_b: 0.0,
            shared_shingles: 0,
        }
    }

    #[test]
    fn every_term_is_one_step_of_the_diff_text() {
        let name = term_text(neardup_text::NAME_TERM);
        assert!(!name.contains(' ') && name.contains("domain"), "{name}");
        assert_eq!(term_text("a b\tc"), "a_b_c");
    }

    #[test]
    fn the_largest_clusters_are_picked_with_their_least_similar_member() {
        let rows = [
            row(0, 2, "a", true, 1.0),
            row(0, 2, "b", false, 0.9),
            row(1, 3, "c", true, 1.0),
            row(1, 3, "d", false, 0.9),
            row(1, 3, "e", false, 0.85),
            row(2, 3, "f", true, 1.0),
            row(2, 3, "g", false, 0.95),
        ];
        let got: Vec<(&str, &str)> = pick(&rows, 2)
            .into_iter()
            .map(|(c, m)| (c.url.as_str(), m.url.as_str()))
            .collect();
        assert_eq!(got, [("c", "e"), ("f", "g")]);
    }
}

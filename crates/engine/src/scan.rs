//! `scan`: what a crawl holds. The first stage every later command reuses.

use crate::pipeline::{RunOutput, SourceReport, Visitor};
use neardup_ingest::{BodyKind, Page, ProblemKind};
use neardup_text::Document;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Per-worker tallies (merged after the run).
#[derive(Default, Debug)]
pub struct ScanTally {
    pages_by_source: Vec<u64>,
    by_mime: HashMap<String, u64>,
    by_status: BTreeMap<u16, u64>,
    by_host: HashMap<String, u64>,
    by_charset: HashMap<(&'static str, &'static str), u64>,
    html_pages: u64,
    text_pages: u64,
    other_pages: u64,
    empty_docs: u64,
    body_bytes: u64,
    analyzed_bytes: u64,
    tokens: u64,
    links: u64,
    img_terms: u64,
    with_title: u64,
    lines: u64,
    sentences: u64,
    paragraphs: u64,
}

/// The scan visitor.
#[derive(Default)]
pub struct ScanVisitor {
    tally: ScanTally,
}

fn bump<K: std::hash::Hash + Eq + Clone>(map: &mut HashMap<K, u64>, key: &K) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.clone(), 1);
        }
    }
}

impl Visitor for ScanVisitor {
    type Output = ScanTally;

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        let t = &mut self.tally;
        let src = page.id.source as usize;
        if t.pages_by_source.len() <= src {
            t.pages_by_source.resize(src + 1, 0);
        }
        t.pages_by_source[src] += 1;
        let mime = if page.mime.is_empty() {
            "(none)"
        } else {
            page.mime.as_str()
        };
        match t.by_mime.get_mut(mime) {
            Some(n) => *n += 1,
            None => {
                t.by_mime.insert(mime.to_string(), 1);
            }
        }
        if let Some(s) = page.status {
            *t.by_status.entry(s).or_default() += 1;
        }
        let host = page.host();
        let host = if host.is_empty() { "(none)" } else { host };
        if host.bytes().any(|b| b.is_ascii_uppercase()) {
            bump(&mut t.by_host, &host.to_ascii_lowercase());
        } else {
            match t.by_host.get_mut(host) {
                Some(n) => *n += 1,
                None => {
                    t.by_host.insert(host.to_string(), 1);
                }
            }
        }
        t.body_bytes += page.body.len() as u64;
        match page.kind {
            BodyKind::Html => t.html_pages += 1,
            BodyKind::Text => t.text_pages += 1,
            BodyKind::Other => t.other_pages += 1,
        }
        if let Some(doc) = doc {
            t.analyzed_bytes += page.body.len() as u64;
            t.tokens += doc.len() as u64;
            t.links += doc.raw_link_count() as u64;
            t.img_terms += doc.img_term_count() as u64;
            t.lines += doc.lines().len() as u64;
            t.sentences += doc.sentences().len() as u64;
            t.paragraphs += doc.paragraphs().len() as u64;
            t.empty_docs += doc.is_empty() as u64;
            t.with_title += !doc.title().is_empty() as u64;
            if let Some((enc, src)) = doc.charset() {
                *t.by_charset.entry((enc, src.name())).or_default() += 1;
            }
        }
    }

    fn finish(self) -> ScanTally {
        self.tally
    }
}

/// Counts with a name, sorted by count (descending) then name.
#[derive(Clone, Debug, Serialize)]
pub struct Count {
    /// What was counted.
    pub name: String,
    /// How often.
    pub count: u64,
}

/// The `scan` report (also written as JSON).
#[derive(Clone, Debug, Serialize)]
pub struct ScanReport {
    /// Who wrote the report (`neardup scan`): lets a later run replace its own file.
    pub written_by: &'static str,
    /// Input files.
    pub inputs: usize,
    /// Pages (records that carried a document).
    pub pages: u64,
    /// Pages tokenized as HTML.
    pub html_pages: u64,
    /// Pages tokenized as text.
    pub text_pages: u64,
    /// Pages of other content types (counted, not tokenized).
    pub other_pages: u64,
    /// HTML/text pages without a single term.
    pub empty_documents: u64,
    /// HTML/text pages with a non-empty `<title>`.
    pub pages_with_title: u64,
    /// Raw input bytes read (compressed size).
    pub raw_bytes: u64,
    /// Payload bytes of all pages (decoded).
    pub body_bytes: u64,
    /// Payload bytes of HTML and text pages.
    pub analyzed_bytes: u64,
    /// Terms (tokens) over all pages.
    pub tokens: u64,
    /// Lines, sentences, paragraphs found.
    pub lines: u64,
    /// Sentences found.
    pub sentences: u64,
    /// Paragraphs found.
    pub paragraphs: u64,
    /// Link elements seen.
    pub links: u64,
    /// IMG terms added.
    pub img_terms: u64,
    /// Pages per input.
    pub by_source: Vec<SourceSummary>,
    /// Pages by media type.
    pub by_content_type: Vec<Count>,
    /// Pages by HTTP status.
    pub by_status: Vec<Count>,
    /// Distinct hosts.
    pub hosts: usize,
    /// The largest hosts (at most `top`).
    pub top_hosts: Vec<Count>,
    /// Encodings and where they came from (`utf-8 (http)`).
    pub by_charset: Vec<Count>,
    /// Records by type, over all inputs.
    pub by_record_type: Vec<Count>,
    /// Skipped records by reason.
    pub skipped_by_reason: Vec<Count>,
    /// Skipped records in all.
    pub skipped: u64,
    /// Examples of skipped records (file, offset, reason, detail).
    pub skipped_examples: Vec<neardup_ingest::Problem>,
    /// Lenient decisions (records kept or passed over without calling them malformed).
    pub notes: Vec<Count>,
    /// Revisit records (counted and listed, never pages).
    pub revisits: u64,
    /// Revisit examples.
    pub revisit_examples: Vec<neardup_ingest::Revisit>,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Pages per second.
    pub pages_per_second: f64,
    /// Decoded payload MB (10^6 bytes) per second.
    pub body_mb_per_second: f64,
    /// Raw input MB per second.
    pub raw_mb_per_second: f64,
    /// Worker threads.
    pub threads: usize,
}

/// One input in the report.
#[derive(Clone, Debug, Serialize)]
pub struct SourceSummary {
    /// Path.
    pub path: String,
    /// Format name.
    pub format: String,
    /// Pages.
    pub pages: u64,
    /// Records.
    pub records: u64,
    /// Skipped records.
    pub skipped: u64,
    /// Raw bytes.
    pub raw_bytes: u64,
}

fn sorted<K: ToString>(it: impl IntoIterator<Item = (K, u64)>) -> Vec<Count> {
    let mut v: Vec<Count> = it
        .into_iter()
        .map(|(k, count)| Count {
            name: k.to_string(),
            count,
        })
        .collect();
    v.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    v
}

/// Reads `inputs` and reports what they hold (`top` entries per list, `examples` kept examples
/// of skipped records and revisits).
pub fn run(
    inputs: &[crate::Input],
    pipeline: &crate::PipelineConfig,
    top: usize,
    examples: usize,
    progress: &dyn crate::Progress,
) -> Result<ScanReport, crate::Error> {
    let (report, empty) = run_reporting_empty(inputs, pipeline, top, examples, progress)?;
    match empty {
        Some(e) => Err(e),
        None => Ok(report),
    }
}

/// [`run`], whose report is made even when no page was read: with the error the run gives
/// then ([`crate::Error::NothingRead`], unless the pipeline allows empty runs), so that a
/// front end can show the report that says why and still fail.
pub fn run_reporting_empty(
    inputs: &[crate::Input],
    pipeline: &crate::PipelineConfig,
    top: usize,
    examples: usize,
    progress: &dyn crate::Progress,
) -> Result<(ScanReport, Option<crate::Error>), crate::Error> {
    let lenient = crate::PipelineConfig {
        allow_empty: true,
        ..pipeline.clone()
    };
    let run = crate::run(inputs, &lenient, ScanVisitor::default, progress)?;
    let empty = neardup_pipeline::stream::nothing_read_unless_allowed(pipeline, &run.sources);
    Ok((report(run, pipeline.threads, top, examples), empty))
}

/// The report of a finished scan run: the workers' tallies and the sources' stats merged.
pub fn report(
    run: RunOutput<ScanTally>,
    threads: usize,
    top: usize,
    examples: usize,
) -> ScanReport {
    let mut t = ScanTally::default();
    for w in run.outputs {
        if t.pages_by_source.len() < w.pages_by_source.len() {
            t.pages_by_source.resize(w.pages_by_source.len(), 0);
        }
        for (i, n) in w.pages_by_source.iter().enumerate() {
            t.pages_by_source[i] += n;
        }
        for (k, v) in w.by_mime {
            *t.by_mime.entry(k).or_default() += v;
        }
        for (k, v) in w.by_status {
            *t.by_status.entry(k).or_default() += v;
        }
        for (k, v) in w.by_host {
            *t.by_host.entry(k).or_default() += v;
        }
        for (k, v) in w.by_charset {
            *t.by_charset.entry(k).or_default() += v;
        }
        t.html_pages += w.html_pages;
        t.text_pages += w.text_pages;
        t.other_pages += w.other_pages;
        t.empty_docs += w.empty_docs;
        t.body_bytes += w.body_bytes;
        t.analyzed_bytes += w.analyzed_bytes;
        t.tokens += w.tokens;
        t.links += w.links;
        t.img_terms += w.img_terms;
        t.with_title += w.with_title;
        t.lines += w.lines;
        t.sentences += w.sentences;
        t.paragraphs += w.paragraphs;
    }
    let mut all = neardup_ingest::SourceStats::default();
    for s in &run.sources {
        all.merge(&s.stats);
    }
    let by_source = run
        .sources
        .iter()
        .enumerate()
        .map(|(i, s): (usize, &SourceReport)| SourceSummary {
            path: s.path.clone(),
            format: s.format.map_or("?", |f| f.as_str()).to_string(),
            pages: t.pages_by_source.get(i).copied().unwrap_or(0),
            records: s.stats.records,
            skipped: s.stats.problem_count(),
            raw_bytes: s.raw_bytes,
        })
        .collect();
    let raw_bytes: u64 = run.sources.iter().map(|s| s.raw_bytes).sum();
    let pages = t.html_pages + t.text_pages + t.other_pages;
    let secs = run.elapsed.as_secs_f64().max(1e-9);
    let hosts = t.by_host.len();
    let mut top_hosts = sorted(t.by_host);
    top_hosts.truncate(top);
    let mut examples_v = all.problems.clone();
    examples_v.truncate(examples);
    ScanReport {
        written_by: "neardup scan",
        inputs: run.sources.len(),
        pages,
        html_pages: t.html_pages,
        text_pages: t.text_pages,
        other_pages: t.other_pages,
        empty_documents: t.empty_docs,
        pages_with_title: t.with_title,
        raw_bytes,
        body_bytes: t.body_bytes,
        analyzed_bytes: t.analyzed_bytes,
        tokens: t.tokens,
        lines: t.lines,
        sentences: t.sentences,
        paragraphs: t.paragraphs,
        links: t.links,
        img_terms: t.img_terms,
        by_source,
        by_content_type: sorted(t.by_mime),
        by_status: sorted(t.by_status),
        hosts,
        top_hosts,
        by_charset: sorted(
            t.by_charset
                .into_iter()
                .map(|((e, s), n)| (format!("{e} ({s})"), n)),
        ),
        by_record_type: sorted(all.by_record_type.clone()),
        skipped_by_reason: sorted(
            all.problems_by_kind
                .iter()
                .map(|(k, v): (&ProblemKind, &u64)| (k.as_str(), *v)),
        ),
        skipped: all.problem_count(),
        skipped_examples: examples_v,
        notes: sorted(all.notes.clone()),
        revisits: all.by_record_type.get("revisit").copied().unwrap_or(0),
        revisit_examples: all.revisits.iter().take(examples).cloned().collect(),
        seconds: secs,
        pages_per_second: pages as f64 / secs,
        body_mb_per_second: t.body_bytes as f64 / 1e6 / secs,
        raw_mb_per_second: raw_bytes as f64 / 1e6 / secs,
        threads,
    }
}

//! Repeated paragraphs (sub-document dedup): paragraphs or lines counted over the whole corpus in
//! bounded memory, exactly, then removed by a stated policy, with the evidence of every cut.
//!
//! 1. **Units.** A plain-text document is cut into units ([`units`]): paragraphs (maximal runs
//!    of non-blank lines) or lines. A unit is keyed by its terms as neardup's tokenizer reads
//!    them (every signature's normalization: lowercased letters and digits of any script, CJK
//!    one character a term; punctuation, case and spacing do not count), hashed with seeded
//!    128-bit XXH3. Units shorter than `min_chars` characters, or without a term, are never cut.
//! 2. **Counting** (pass 1, every worker thread): each unit's (key, document, unit number) goes
//!    to an external sorter (`neardup_store::ExternalSorter`, under `mem_limit`); sorted by key,
//!    each key's occurrences are read as one group: how many documents hold it, and the first
//!    (in input order, then unit order). Counts are exact: nothing is sampled or approximate.
//!    Two different units count as one only if their 128-bit keys collide (about 10^-19 over
//!    10^10 units).
//! 3. **Policy.** [`Policy::FirstCopy`]: every occurrence but the first is cut (a repeat inside
//!    one document too). [`Policy::Boilerplate`]: every occurrence of a unit held by more than
//!    `max_docs` documents is cut, the first too (menus, cookie banners). The cuts are sorted by
//!    document under the same memory limit.
//! 4. **Applying** (pass 2, inputs in order): each document's cuts are applied to its text: a
//!    unit goes with the separator after it (the one before it for the last), so no two words
//!    are ever joined and every cut lands between lines, never inside a character. Each cut is a
//!    row of `spans` (its document, unit, character offsets, count, first holder, rule); with a
//!    folder to write to, the cleaned corpus is written in the inputs' own format (JSONL: the
//!    text field's value replaced, every other byte of the line as it was; Parquet: the text
//!    column replaced, schema and metadata kept).
//!
//! Documents read as HTML (an HTML field) are counted and left as they are: their units are the
//! rendered page's, which has no text of its own to cut.

use crate::kept::output_paths;
use crate::CleanError;
use neardup_ingest::Page;
use neardup_pipeline::{Input, PipelineConfig, Progress, Skipped, Visitor};
use neardup_report::{OutputGuard, Table};
use neardup_store::extsort::{ExternalSorter, Record};
use neardup_text::language::Language;
use neardup_text::{Document, Tokenizer};
use serde::{Deserialize, Serialize};
use std::collections::BinaryHeap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The seed of unit keys (fixed: keys are part of no file, but runs must agree).
const KEY_SEED: u64 = 0x6e65_6172_6475_7031;

/// What a unit is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// A maximal run of non-blank lines.
    #[default]
    Paragraph,
    /// One line.
    Line,
}

impl Unit {
    /// `paragraph` or `line`.
    pub fn parse(s: &str) -> Option<Unit> {
        match s {
            "paragraph" | "paragraphs" => Some(Unit::Paragraph),
            "line" | "lines" => Some(Unit::Line),
            _ => None,
        }
    }
}

/// Which occurrences of a repeated unit are cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "policy")]
pub enum Policy {
    /// Keep the first occurrence in input order, cut every later one.
    FirstCopy,
    /// Cut every occurrence of a unit found in more than `max_docs` documents.
    Boilerplate {
        /// Documents a unit may be in before it is boilerplate.
        max_docs: u32,
    },
}

impl Policy {
    /// Whether an occurrence of a unit held by `docs` documents is cut; `is_first`: it is the
    /// unit's first occurrence in document order (then unit order).
    pub fn cuts(self, docs: u64, is_first: bool) -> bool {
        match self {
            Policy::FirstCopy => !is_first,
            Policy::Boilerplate { max_docs } => docs > u64::from(max_docs),
        }
    }

    /// The rule's name in spans (`first-copy`, `boilerplate`).
    pub fn rule(self) -> &'static str {
        match self {
            Policy::FirstCopy => "first-copy",
            Policy::Boilerplate { .. } => "boilerplate",
        }
    }
}

/// How repeated units are found and cut.
#[derive(Clone, Debug)]
pub struct ParagraphOptions {
    /// Paragraphs or lines.
    pub unit: Unit,
    /// Which occurrences are cut.
    pub policy: Policy,
    /// Units shorter than this (in characters, the unit's own text) are never cut.
    pub min_chars: usize,
    /// Memory for the sorters' buffers (bytes), shared by the worker threads.
    pub mem_limit: usize,
    /// Where the sorters spill.
    pub tmp_dir: PathBuf,
    /// The most repeated units kept for the summary (with their text).
    pub top: usize,
}

impl Default for ParagraphOptions {
    fn default() -> Self {
        ParagraphOptions {
            unit: Unit::Paragraph,
            policy: Policy::FirstCopy,
            min_chars: DEFAULT_MIN_CHARS,
            mem_limit: 1 << 30,
            tmp_dir: std::env::temp_dir(),
            top: 20,
        }
    }
}

/// Units shorter than this many characters are never cut by default ("Thanks!", "Home").
pub const DEFAULT_MIN_CHARS: usize = 30;

/// With the boilerplate policy and no count given: a unit in more than this many documents is
/// boilerplate.
pub const DEFAULT_MAX_DOCS: u32 = 10;

/// A paragraph setting that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParagraphSettingError(pub String);

impl ParagraphOptions {
    /// The options from settings given by name, each left out taking its default: the one
    /// place every door (CLI, Python) resolves them.
    pub fn resolve(
        unit: Option<&str>,
        policy: Option<&str>,
        max_docs: Option<u32>,
        min_chars: Option<usize>,
    ) -> Result<ParagraphOptions, ParagraphSettingError> {
        let bad = |s: String| Err(ParagraphSettingError(s));
        let unit = match unit {
            None => Unit::default(),
            Some(u) => match Unit::parse(u) {
                Some(u) => u,
                None => return bad(format!("unit {u:?}: expected paragraph or line")),
            },
        };
        let policy = match (policy, max_docs) {
            (None | Some("first-copy"), None) => Policy::FirstCopy,
            (None | Some("first-copy"), Some(_)) => {
                return bad("max_docs applies to the boilerplate policy only".into())
            }
            (Some("boilerplate"), k) => {
                let max_docs = k.unwrap_or(DEFAULT_MAX_DOCS);
                if max_docs == 0 {
                    return bad(
                        "max_docs 0: a unit is boilerplate in more than K >= 1 documents".into(),
                    );
                }
                Policy::Boilerplate { max_docs }
            }
            (Some(p), _) => {
                return bad(format!("policy {p:?}: expected first-copy or boilerplate"))
            }
        };
        Ok(ParagraphOptions {
            unit,
            policy,
            min_chars: min_chars.unwrap_or(DEFAULT_MIN_CHARS),
            ..ParagraphOptions::default()
        })
    }
}

/// The byte spans of `text`'s units, in order: a paragraph runs from its first non-blank line's
/// start to its last non-blank line's end (without the line break); a line is one line without
/// its break (`\n`, or `\r\n`). Blank lines (only white space) are no unit.
pub fn units(text: &str, unit: Unit) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    units_into(text, unit, &mut out);
    out
}

fn units_into(text: &str, unit: Unit, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let bytes = text.as_bytes();
    let mut open: Option<(usize, usize)> = None;
    let mut at = 0;
    while at < bytes.len() {
        let end = memchr_nl(&bytes[at..]).map_or(bytes.len(), |i| at + i);
        let mut line_end = end;
        // A `\r` is part of the break only before a `\n` (a last line keeps it).
        if end < bytes.len() && line_end > at && bytes[line_end - 1] == b'\r' {
            line_end -= 1;
        }
        let blank = text[at..line_end].trim().is_empty();
        match (unit, blank) {
            (_, true) => {
                if let Some(p) = open.take() {
                    out.push(p);
                }
            }
            (Unit::Line, false) => out.push((at, line_end)),
            (Unit::Paragraph, false) => {
                open = Some((open.map_or(at, |p| p.0), line_end));
            }
        }
        at = end + 1;
    }
    if let Some(p) = open {
        out.push(p);
    }
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// `text` without the units whose numbers `cut` lists (sorted): each cut unit goes with the
/// separator after it; a last kept unit keeps its own line break (and, when it was the text's
/// last unit, everything after it).
pub fn without_units(text: &str, spans: &[(usize, usize)], cut: &[u32]) -> String {
    if cut.is_empty() || spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..spans[0].0]);
    let mut c = 0;
    let mut previous_kept: Option<usize> = None;
    for (i, &(s, e)) in spans.iter().enumerate() {
        if c < cut.len() && cut[c] as usize == i {
            c += 1;
            continue;
        }
        if let Some(p) = previous_kept {
            // The separator that followed the previous kept unit.
            out.push_str(&text[spans[p].1..spans[p + 1].0]);
        }
        out.push_str(&text[s..e]);
        previous_kept = Some(i);
    }
    let last = spans.len() - 1;
    match previous_kept {
        // The last kept unit was followed only by cut ones: it keeps its own line break (its
        // `\r\n` stays one), then nothing of what followed.
        Some(p) if p != last => {
            let after = &text[spans[p].1..];
            out.push_str(if after.starts_with("\r\n") {
                "\r\n"
            } else if after.starts_with('\n') {
                "\n"
            } else {
                ""
            });
        }
        _ => out.push_str(&text[spans[last].1..]),
    }
    out
}

/// One occurrence of a unit: its key, document (input << 32 | record ordinal) and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Occurrence {
    key: u128,
    doc: u64,
    unit: u32,
}

impl Record for Occurrence {
    const SIZE: usize = 28;
    fn encode(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.key.to_le_bytes());
        out[16..24].copy_from_slice(&self.doc.to_le_bytes());
        out[24..].copy_from_slice(&self.unit.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        Occurrence {
            key: u128::from_le_bytes(b[..16].try_into().expect("16 bytes")),
            doc: u64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
            unit: u32::from_le_bytes(b[24..].try_into().expect("4 bytes")),
        }
    }
}

/// One cut: which unit of which document, how many documents hold it, and its first holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Cut {
    doc: u64,
    unit: u32,
    docs: u32,
    first_doc: u64,
    first_unit: u32,
}

impl Record for Cut {
    const SIZE: usize = 28;
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.doc.to_le_bytes());
        out[8..12].copy_from_slice(&self.unit.to_le_bytes());
        out[12..16].copy_from_slice(&self.docs.to_le_bytes());
        out[16..24].copy_from_slice(&self.first_doc.to_le_bytes());
        out[24..].copy_from_slice(&self.first_unit.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        Cut {
            doc: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            unit: u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            docs: u32::from_le_bytes(b[12..16].try_into().expect("4 bytes")),
            first_doc: u64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
            first_unit: u32::from_le_bytes(b[24..].try_into().expect("4 bytes")),
        }
    }
}

fn doc_key(source: u32, ordinal: u32) -> u64 {
    (u64::from(source) << 32) | u64::from(ordinal)
}

/// The character offsets of the units `cut` (increasing unit numbers) of `text`, split into
/// `spans` ([`units`]), counted once through the text: `each(k, start, end)` for the `k`-th of
/// `cut`, in characters (Unicode scalar values, as Python indexes a `str`); a unit number past
/// the last span is passed over.
pub fn char_offsets(
    text: &str,
    spans: &[(usize, usize)],
    cut: impl IntoIterator<Item = u32>,
    mut each: impl FnMut(usize, u64, u64),
) {
    let mut chars_before = 0u64;
    let mut at = 0usize;
    for (k, unit) in cut.into_iter().enumerate() {
        let Some(&(s, e)) = spans.get(unit as usize) else {
            continue;
        };
        chars_before += text[at..s].chars().count() as u64;
        let len = text[s..e].chars().count() as u64;
        at = e;
        each(k, chars_before, chars_before + len);
        chars_before += len;
    }
}

/// One document with some of its units cut, as a run in parts applies the cuts (the Spark
/// job): its text without them and each cut's `(unit, start, end)` in characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentCut {
    /// The text left.
    pub text: String,
    /// Per unit cut: its number and character offsets in the original text.
    pub spans: Vec<(u32, u64, u64)>,
}

/// `text` without its units `cut` (increasing unit numbers; the same cut as the CLI's
/// `--write-clean` makes); `None` when none of them is a unit of the text.
pub fn cut_document(text: &str, unit: Unit, cut: &[u32]) -> Option<DocumentCut> {
    let spans = units(text, unit);
    let mut out = Vec::with_capacity(cut.len());
    char_offsets(text, &spans, cut.iter().copied(), |k, s, e| {
        out.push((cut[k], s, e))
    });
    if out.is_empty() {
        return None;
    }
    let kept: Vec<u32> = out.iter().map(|c| c.0).collect();
    Some(DocumentCut {
        text: without_units(text, &spans, &kept),
        spans: out,
    })
}

/// The keys of a document's units for a run in parts (the Spark job): the same keys, units
/// and length rule as `paragraphs`' counting pass.
pub struct UnitKeys(Keyer);

impl UnitKeys {
    /// Keys under `options`' unit and minimum length.
    pub fn new(options: &ParagraphOptions) -> UnitKeys {
        UnitKeys(Keyer::new(options.unit, options.min_chars))
    }

    /// Calls `each(unit number, key)` for every unit of `text` that may be cut.
    pub fn keys(&mut self, text: &str, each: impl FnMut(u32, u128)) {
        self.0.keys(text, each)
    }
}

/// Keys a document's units (pass 1's work, and what tests check against).
struct Keyer {
    tokenizer: Tokenizer,
    doc: Document,
    spans: Vec<(usize, usize)>,
    unit: Unit,
    min_chars: usize,
}

impl Keyer {
    fn new(unit: Unit, min_chars: usize) -> Keyer {
        Keyer {
            tokenizer: Tokenizer::default(),
            doc: Document::default(),
            spans: Vec::new(),
            unit,
            min_chars,
        }
    }

    /// Calls `each(unit number, key)` for every unit of `text` that may be cut.
    fn keys(&mut self, text: &str, mut each: impl FnMut(u32, u128)) {
        units_into(text, self.unit, &mut self.spans);
        for (i, &(s, e)) in self.spans.iter().enumerate() {
            let t = &text[s..e];
            if t.len() < self.min_chars || t.chars().count() < self.min_chars {
                continue;
            }
            self.tokenizer.text(t, &mut self.doc);
            if self.doc.is_empty() {
                continue;
            }
            let mut h = xxhash_rust::xxh3::Xxh3::with_seed(KEY_SEED);
            for term in self.doc.terms() {
                h.update(term.as_bytes());
                h.update(&[0xff]);
            }
            each(i as u32, h.digest128());
        }
    }
}

/// Pass 1's visitor: every unit of every plain-text page into this worker's sorter.
struct Counter {
    keyer: Keyer,
    sorter: ExternalSorter<Occurrence>,
    error: Option<std::io::Error>,
    units: u64,
    docs: u64,
    html_docs: u64,
}

impl Visitor for Counter {
    type Output = (ExternalSorter<Occurrence>, Option<std::io::Error>, [u64; 3]);

    fn wants(&mut self, page: &Page) -> bool {
        if page.kind != neardup_ingest::BodyKind::Text {
            self.html_docs += 1;
            return false;
        }
        true
    }

    fn plain_text(&mut self, page: &Page, text: &str) -> bool {
        self.docs += 1;
        let doc = doc_key(page.id.source, page.id.ordinal);
        let (sorter, error, units) = (&mut self.sorter, &mut self.error, &mut self.units);
        self.keyer.keys(text, |unit, key| {
            *units += 1;
            if error.is_none() {
                if let Err(e) = sorter.push(Occurrence { key, doc, unit }) {
                    *error = Some(e);
                }
            }
        });
        true
    }

    fn visit(&mut self, _page: &Page, _doc: Option<&Document>) {}

    fn finish(self) -> Self::Output {
        (
            self.sorter,
            self.error,
            [self.docs, self.units, self.html_docs],
        )
    }
}

/// A stream of results read as a stream of values: the first error is kept in `error` (shared,
/// so that it can be looked at after the stream was handed on) and ends the stream.
struct Checked<I> {
    inner: I,
    error: Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

impl<T, I: Iterator<Item = std::io::Result<T>>> Iterator for Checked<I> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        match self.inner.next()? {
            Ok(x) => Some(x),
            Err(e) => {
                let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert(e);
                None
            }
        }
    }
}

/// The error a [`Checked`] stream ended with, if any.
fn checked_error(error: &Arc<std::sync::Mutex<Option<std::io::Error>>>) -> Option<std::io::Error> {
    error.lock().unwrap_or_else(|p| p.into_inner()).take()
}

/// Merges sorted streams into one (k ways).
struct Merge<I: Iterator> {
    heads: BinaryHeap<std::cmp::Reverse<(I::Item, usize)>>,
    streams: Vec<I>,
}

impl<T: Ord, I: Iterator<Item = T>> Merge<I> {
    fn new(mut streams: Vec<I>) -> Merge<I> {
        let mut heads = BinaryHeap::new();
        for (i, s) in streams.iter_mut().enumerate() {
            if let Some(x) = s.next() {
                heads.push(std::cmp::Reverse((x, i)));
            }
        }
        Merge { heads, streams }
    }
}

impl<T: Ord, I: Iterator<Item = T>> Iterator for Merge<I> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        let std::cmp::Reverse((x, i)) = self.heads.pop()?;
        if let Some(n) = self.streams[i].next() {
            self.heads.push(std::cmp::Reverse((n, i)));
        }
        Some(x)
    }
}

/// A row of `spans`: one unit cut from one document, with why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpanRow {
    /// The input holding the document.
    pub file: String,
    /// The document's record number in it (0-based; a JSONL line or a Parquet row, blank lines
    /// not counted).
    pub record: u64,
    /// The document's id (the id field), when it has one.
    pub id: String,
    /// The document's language (ISO 639-3, `neardup_text::language`, from its text before
    /// any cut).
    pub language: String,
    /// The unit's number in the document (0-based).
    pub unit: u32,
    /// Where the unit's text starts in the document's text, in characters (Unicode scalar
    /// values, as Python indexes a `str`).
    pub start: u64,
    /// Where it ends (exclusive), in characters.
    pub end: u64,
    /// Documents holding the unit.
    pub docs: u64,
    /// The input of the first document holding it (input order).
    pub first_file: String,
    /// That document's record number.
    pub first_record: u64,
    /// The unit's number there.
    pub first_unit: u32,
    /// `first-copy` or `boilerplate`.
    pub rule: String,
}

impl Table for SpanRow {
    const NAME: &'static str = "spans";
}

/// A most-repeated unit, for the summary and the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepeatedUnit {
    /// Documents holding it.
    pub docs: u64,
    /// Its text where first found (at most 300 characters).
    pub text: String,
    /// Where it was first found.
    pub first_file: String,
    /// That document's record number.
    pub first_record: u64,
}

/// One input's part of a paragraph run.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct ParagraphFile {
    /// The input.
    pub input: String,
    /// Where its cleaned records went (with a folder to write to).
    pub output: Option<String>,
    /// Records read again.
    pub records: u64,
    /// Records that lost at least one unit.
    pub records_changed: u64,
    /// Units cut.
    pub units_cut: u64,
    /// Characters cut (the units' own text).
    pub chars_cut: u64,
}

/// What a paragraph run found and did.
#[derive(Clone, Debug, Serialize)]
pub struct ParagraphSummary {
    /// The unit, policy and minimum length used.
    pub unit: Unit,
    /// The policy.
    #[serde(flatten)]
    pub policy: Policy,
    /// Units shorter than this were never cut.
    pub min_chars: usize,
    /// Plain-text documents read.
    pub documents: u64,
    /// Documents read as HTML, left as they were.
    pub html_documents: u64,
    /// Units long enough to be keyed.
    pub units: u64,
    /// Distinct keys among them that are in more than one place.
    pub repeated_units: u64,
    /// Units cut.
    pub units_cut: u64,
    /// Characters cut.
    pub chars_cut: u64,
    /// Records skipped by the readers (malformed), by reason, with examples.
    pub skipped: Skipped,
    /// The most repeated units.
    pub most_repeated: Vec<RepeatedUnit>,
    /// The documents cut from, by language (most documents first).
    pub languages: Vec<LanguageCuts>,
    /// The detector that told the languages, with its version
    /// (`neardup_text::language::DETECTOR`).
    pub language_detector: String,
    /// Per input.
    pub inputs: Vec<ParagraphFile>,
    /// Bytes the sorters spilled to disk.
    pub spilled_bytes: u64,
    /// Seconds for counting, and for applying.
    pub seconds_count: f64,
    /// Seconds for pass 2.
    pub seconds_apply: f64,
}

/// What was cut from the documents of one language.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct LanguageCuts {
    /// ISO 639-3 code.
    pub language: String,
    /// Documents with a cut.
    pub documents_changed: u64,
    /// Units cut from them.
    pub units_cut: u64,
    /// Characters cut from them.
    pub chars_cut: u64,
}

/// (documents holding a unit, its first holder reversed): the order the most repeated are kept.
type TopEntry = (u64, std::cmp::Reverse<(u64, u32)>);

/// A paragraph run's answer: the summary, and every cut as a row (handed to `each_span` as
/// they are made, in input order; one row value is reused, so a caller keeping rows clones
/// them).
pub fn paragraphs(
    inputs: &[Input],
    pipeline: &PipelineConfig,
    options: &ParagraphOptions,
    write_clean: Option<(&Path, &OutputGuard)>,
    progress: &dyn Progress,
    mut each_span: impl FnMut(&SpanRow) -> Result<(), CleanError>,
) -> Result<ParagraphSummary, CleanError> {
    let paths = crate::kept::file_inputs(inputs, "paragraph dedup")?;
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CleanError::Read {
            path: path.clone(),
            source,
        }
    };
    let started = std::time::Instant::now();
    // Pass 1: count.
    let threads = pipeline.threads.max(1);
    let per_worker = (options.mem_limit / 2 / threads).max(1 << 16);
    let tmp = options.tmp_dir.clone();
    let run = crate::kept::run_pipeline(
        inputs,
        pipeline,
        || Counter {
            keyer: Keyer::new(options.unit, options.min_chars),
            sorter: ExternalSorter::new(per_worker, &tmp),
            error: None,
            units: 0,
            docs: 0,
            html_docs: 0,
        },
        progress,
    )?;
    let skipped = Skipped::of(&run.sources, pipeline.skipped_examples);
    let (mut documents, mut units, mut html_documents) = (0, 0, 0);
    let mut streams = Vec::new();
    let mut spilled = 0;
    let read_error = Arc::new(std::sync::Mutex::new(None));
    for (sorter, error, counts) in run.outputs {
        if let Some(e) = error {
            return Err(io_err(&tmp)(e));
        }
        documents += counts[0];
        units += counts[1];
        html_documents += counts[2];
        spilled += sorter.spilled_bytes();
        streams.push(Checked {
            inner: sorter.finish().map_err(io_err(&tmp))?,
            error: read_error.clone(),
        });
    }
    // The groups: one key's occurrences, in (document, unit) order.
    let mut cuts: ExternalSorter<Cut> =
        ExternalSorter::new((options.mem_limit / 2).max(1 << 16), &tmp);
    let mut group = Group::new(&tmp, options.mem_limit / 4);
    let mut repeated_units = 0u64;
    // The most repeated, the least of them on top (ties: the later first holder goes first).
    let mut top: BinaryHeap<std::cmp::Reverse<TopEntry>> = BinaryHeap::new();
    let mut merged = Merge::new(streams).peekable();
    while let Some(first) = merged.next() {
        group.start(first).map_err(io_err(&tmp))?;
        while let Some(o) = merged.next_if(|o| o.key == first.key) {
            group.push(o).map_err(io_err(&tmp))?;
        }
        if group.len < 2 {
            continue;
        }
        repeated_units += 1;
        let docs = group.docs;
        // Whether anything of the group is cut (its later copies, or every copy).
        if options.policy.cuts(docs, false) {
            let d = docs.min(u64::from(u32::MAX)) as u32;
            group
                .replay(|o, is_first| {
                    if !options.policy.cuts(docs, is_first) {
                        return Ok(());
                    }
                    cuts.push(Cut {
                        doc: o.doc,
                        unit: o.unit,
                        docs: d,
                        first_doc: first.doc,
                        first_unit: first.unit,
                    })
                })
                .map_err(io_err(&tmp))?;
        }
        if options.top > 0 && docs > 1 {
            top.push(std::cmp::Reverse((
                docs,
                std::cmp::Reverse((first.doc, first.unit)),
            )));
            if top.len() > options.top {
                top.pop();
            }
        }
    }
    if let Some(e) = checked_error(&read_error) {
        return Err(io_err(&tmp)(e));
    }
    spilled += cuts.spilled_bytes();
    let cuts = Checked {
        inner: cuts.finish().map_err(io_err(&tmp))?,
        error: read_error.clone(),
    };
    let seconds_count = started.elapsed().as_secs_f64();
    // Pass 2: apply, inputs in order.
    let started = std::time::Instant::now();
    let mut wanted_text: Vec<(u64, u32, u64)> = top
        .into_iter()
        .map(|std::cmp::Reverse((docs, std::cmp::Reverse((d, u))))| (d, u, docs))
        .collect();
    wanted_text.sort_unstable();
    let outputs = write_clean.map(|(dir, _)| output_paths(&paths, dir));
    if let (Some(outs), Some((dir, guard))) = (&outputs, write_clean) {
        guard.create_dir(dir)?;
        for out in outs {
            if let Some(parent) = out.parent() {
                guard.create_dir(parent)?;
            }
            guard.claim(out)?;
        }
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let mut apply = Apply {
        cuts: cuts.peekable(),
        unit: options.unit,
        names: &names,
        wanted_text,
        most_repeated: Vec::new(),
        spans: Vec::new(),
        cut_units: Vec::new(),
        languages: Default::default(),
        row: SpanRow {
            file: String::new(),
            record: 0,
            id: String::new(),
            language: String::new(),
            unit: 0,
            start: 0,
            end: 0,
            docs: 0,
            first_file: String::new(),
            first_record: 0,
            first_unit: 0,
            rule: options.policy.rule().to_string(),
        },
        unit_numbers: Vec::new(),
    };
    let mut files = Vec::new();
    for (source, path) in paths.iter().enumerate() {
        let out = outputs.as_ref().map(|o| o[source].as_path());
        let mut file = ParagraphFile {
            input: path.display().to_string(),
            output: out.map(|o| o.display().to_string()),
            ..ParagraphFile::default()
        };
        /// Pass 2 for one input: the cuts applied to each document that has any.
        struct Cutting<'x, 'y, I: Iterator<Item = Cut>, F> {
            apply: &'x mut Apply<'y, I>,
            file: &'x mut ParagraphFile,
            each_span: &'x mut F,
        }
        impl<I: Iterator<Item = Cut>, F: FnMut(&SpanRow) -> Result<(), CleanError>>
            crate::rewrite::Rewriter for Cutting<'_, '_, I, F>
        {
            fn wants(&mut self, key: u64) -> bool {
                self.apply.has_work(key)
            }
            fn each(&mut self, doc: crate::rewrite::Doc<'_>) -> Result<Option<String>, CleanError> {
                match doc.text {
                    Some(text) => {
                        self.apply
                            .clean(doc.key, text, doc.id, self.file, self.each_span)
                    }
                    None => {
                        self.apply.take_cuts(doc.key);
                        Ok(None)
                    }
                }
            }
        }
        file.records = crate::rewrite::rewrite(
            source as u32,
            path,
            out,
            &pipeline.read.fields,
            &mut Cutting {
                apply: &mut apply,
                file: &mut file,
                each_span: &mut each_span,
            },
        )?;
        files.push(file);
    }
    if let Some(e) = checked_error(&read_error) {
        return Err(io_err(&tmp)(e));
    }
    let languages: Vec<LanguageCuts> = neardup_text::language::ranked(apply.languages)
        .into_iter()
        .map(
            |(l, [documents_changed, units_cut, chars_cut])| LanguageCuts {
                language: l.to_string(),
                documents_changed,
                units_cut,
                chars_cut,
            },
        )
        .collect();
    let mut most_repeated = apply.most_repeated;
    most_repeated.sort_by(|a, b| {
        b.docs
            .cmp(&a.docs)
            .then(a.first_record.cmp(&b.first_record))
    });
    Ok(ParagraphSummary {
        unit: options.unit,
        policy: options.policy,
        min_chars: options.min_chars,
        documents,
        html_documents,
        units,
        repeated_units,
        units_cut: files.iter().map(|f| f.units_cut).sum(),
        chars_cut: files.iter().map(|f| f.chars_cut).sum(),
        skipped,
        most_repeated,
        languages,
        language_detector: neardup_text::language::DETECTOR.to_string(),
        inputs: files,
        spilled_bytes: spilled,
        seconds_count,
        seconds_apply: started.elapsed().as_secs_f64(),
    })
}

/// One key's occurrences, held in memory up to a limit and spilled beyond it, read twice: once
/// to count the documents, once to make the cuts.
struct Group {
    held: Vec<Occurrence>,
    cap: usize,
    spill: Option<(tempfile::NamedTempFile, std::io::BufWriter<std::fs::File>)>,
    tmp: PathBuf,
    len: u64,
    docs: u64,
    last_doc: u64,
}

impl Group {
    fn new(tmp: &Path, bytes: usize) -> Group {
        Group {
            held: Vec::new(),
            cap: (bytes / Occurrence::SIZE).max(1024),
            spill: None,
            tmp: tmp.to_path_buf(),
            len: 0,
            docs: 0,
            last_doc: 0,
        }
    }

    fn start(&mut self, o: Occurrence) -> std::io::Result<()> {
        self.held.clear();
        self.spill = None;
        self.len = 0;
        self.docs = 0;
        self.push(o)
    }

    fn push(&mut self, o: Occurrence) -> std::io::Result<()> {
        if self.len == 0 || o.doc != self.last_doc {
            self.docs += 1;
        }
        self.last_doc = o.doc;
        self.len += 1;
        if self.held.len() < self.cap {
            self.held.push(o);
            return Ok(());
        }
        if self.spill.is_none() {
            let f = tempfile::NamedTempFile::new_in(&self.tmp)?;
            let w = std::io::BufWriter::new(f.reopen()?);
            self.spill = Some((f, w));
        }
        let (_, w) = self.spill.as_mut().expect("just set");
        let mut b = [0u8; Occurrence::SIZE];
        o.encode(&mut b);
        w.write_all(&b)
    }

    /// Every occurrence in order; `is_first` for the first.
    fn replay(
        &mut self,
        mut each: impl FnMut(Occurrence, bool) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        for (i, &o) in self.held.iter().enumerate() {
            each(o, i == 0)?;
        }
        if let Some((f, w)) = self.spill.as_mut() {
            w.flush()?;
            let mut r = std::io::BufReader::new(f.reopen()?);
            let mut b = [0u8; Occurrence::SIZE];
            loop {
                match std::io::Read::read_exact(&mut r, &mut b) {
                    Ok(()) => each(Occurrence::decode(&b), false)?,
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }
}

/// Pass 2's state: the cuts in document order, consumed as the inputs are read in order.
struct Apply<'a, I: Iterator<Item = Cut>> {
    cuts: std::iter::Peekable<I>,
    unit: Unit,
    /// The inputs' names as the rows give them (made once, cloned per row).
    names: &'a [String],
    /// (first doc, first unit, docs) of the most repeated units, sorted.
    wanted_text: Vec<(u64, u32, u64)>,
    most_repeated: Vec<RepeatedUnit>,
    spans: Vec<(usize, usize)>,
    cut_units: Vec<Cut>,
    /// Per language of the documents cut from: documents, units, characters.
    languages: std::collections::BTreeMap<Language, [u64; 3]>,
    /// The row handed out for every cut, its strings reused.
    row: SpanRow,
    /// The unit numbers cut from the current document.
    unit_numbers: Vec<u32>,
}

/// `to` made equal to `from`, reusing its buffer.
fn set(to: &mut String, from: &str) {
    if to != from {
        to.clear();
        to.push_str(from);
    }
}

impl<I: Iterator<Item = Cut>> Apply<'_, I> {
    /// Whether document `doc` has cuts or a most repeated unit's text (else it need not be
    /// parsed). Cuts of documents before it (not read as text) are passed over.
    fn has_work(&mut self, doc: u64) -> bool {
        while self.cuts.next_if(|c| c.doc < doc).is_some() {}
        self.cuts.peek().is_some_and(|c| c.doc == doc)
            || self
                .wanted_text
                .get(self.first_wanted(doc))
                .is_some_and(|w| w.0 == doc)
    }

    /// Where the most repeated units first held by document `doc` (if any) start in
    /// `wanted_text`.
    fn first_wanted(&self, doc: u64) -> usize {
        self.wanted_text.partition_point(|w| w.0 < doc)
    }

    /// The cuts of document `doc` into `cut_units` (sorted by unit).
    fn take_cuts(&mut self, doc: u64) {
        self.cut_units.clear();
        while let Some(c) = self.cuts.next_if(|c| c.doc <= doc) {
            if c.doc == doc {
                self.cut_units.push(c);
            }
        }
    }

    /// The cleaned text of one document and its rows; `None` when nothing is cut.
    fn clean(
        &mut self,
        doc: u64,
        text: &str,
        id: &str,
        file: &mut ParagraphFile,
        each_span: &mut impl FnMut(&SpanRow) -> Result<(), CleanError>,
    ) -> Result<Option<String>, CleanError> {
        self.take_cuts(doc);
        let wants_text = self.first_wanted(doc);
        let has_wanted = self.wanted_text.get(wants_text).is_some_and(|w| w.0 == doc);
        if self.cut_units.is_empty() && !has_wanted {
            return Ok(None);
        }
        units_into(text, self.unit, &mut self.spans);
        for w in self.wanted_text[wants_text..]
            .iter()
            .take_while(|w| w.0 == doc)
        {
            if let Some(&(s, e)) = self.spans.get(w.1 as usize) {
                self.most_repeated.push(RepeatedUnit {
                    docs: w.2,
                    text: text[s..e].chars().take(300).collect(),
                    first_file: self.names[(doc >> 32) as usize].clone(),
                    first_record: doc & 0xffff_ffff,
                });
            }
        }
        if self.cut_units.is_empty() {
            return Ok(None);
        }
        let detected = neardup_text::language::detect(text);
        let (units_before, chars_before_cut) = (file.units_cut, file.chars_cut);
        let row = &mut self.row;
        set(&mut row.file, &self.names[(doc >> 32) as usize]);
        set(&mut row.id, id);
        set(&mut row.language, detected.code());
        row.record = doc & 0xffff_ffff;
        let (cut_units, names) = (&self.cut_units, self.names);
        let mut failed = None;
        char_offsets(
            text,
            &self.spans,
            cut_units.iter().map(|c| c.unit),
            |k, start, end| {
                if failed.is_some() {
                    return;
                }
                let c = &cut_units[k];
                file.units_cut += 1;
                file.chars_cut += end - start;
                row.unit = c.unit;
                row.start = start;
                row.end = end;
                row.docs = u64::from(c.docs);
                set(&mut row.first_file, &names[(c.first_doc >> 32) as usize]);
                row.first_record = c.first_doc & 0xffff_ffff;
                row.first_unit = c.first_unit;
                if let Err(e) = each_span(row) {
                    failed = Some(e);
                }
            },
        );
        if let Some(e) = failed {
            return Err(e);
        }
        if file.units_cut == units_before {
            return Ok(None);
        }
        // The units cut: those of `cut_units` that are units of the text (a number past the
        // last is passed over).
        self.unit_numbers.clear();
        self.unit_numbers.extend(
            cut_units
                .iter()
                .map(|c| c.unit)
                .filter(|&u| (u as usize) < self.spans.len()),
        );
        let n = self.languages.entry(detected).or_default();
        n[0] += 1;
        n[1] += file.units_cut - units_before;
        n[2] += file.chars_cut - chars_before_cut;
        file.records_changed += 1;
        Ok(Some(without_units(text, &self.spans, &self.unit_numbers)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_paragraphs_or_lines_without_their_breaks() {
        let t = "\n  \nA one\nA two\r\n\r\nB\n\n\nC\n";
        let p: Vec<&str> = units(t, Unit::Paragraph)
            .iter()
            .map(|&(s, e)| &t[s..e])
            .collect();
        assert_eq!(p, ["A one\nA two", "B", "C"]);
        let l: Vec<&str> = units(t, Unit::Line)
            .iter()
            .map(|&(s, e)| &t[s..e])
            .collect();
        assert_eq!(l, ["A one", "A two", "B", "C"]);
        assert!(units("", Unit::Line).is_empty());
        assert_eq!(units("no break", Unit::Paragraph), [(0, 8)]);
        // A carriage return ends a line only before a line feed (fuzz finding: cutting the
        // unit after "A\r\r" left "A\r", which re-split as "A").
        assert_eq!(units("A\r", Unit::Line), [(0, 2)]);
        let t = "A\r\r\nB\0";
        let s = units(t, Unit::Line);
        assert_eq!(s, [(0, 2), (4, 6)]);
        let left = without_units(t, &s, &[1]);
        assert_eq!(
            units(&left, Unit::Line)
                .iter()
                .map(|&(a, b)| &left[a..b])
                .collect::<Vec<_>>(),
            ["A\r"]
        );
        // A kept unit whose followers are cut keeps its own CRLF (second fuzz finding).
        let t = "H0\r\r\r\n\nX\n";
        let s = units(t, Unit::Line);
        let left = without_units(t, &s, &[1]);
        assert_eq!(left, "H0\r\r\r\n");
        assert_eq!(units(&left, Unit::Line), [(0, 4)]);
    }

    #[test]
    fn cutting_units_keeps_separators_and_never_joins_words() {
        let t = "A\n\nB\n\nC\n";
        let s = units(t, Unit::Paragraph);
        assert_eq!(without_units(t, &s, &[1]), "A\n\nC\n");
        assert_eq!(without_units(t, &s, &[2]), "A\n\nB\n");
        assert_eq!(without_units(t, &s, &[0]), "B\n\nC\n");
        assert_eq!(without_units(t, &s, &[0, 1, 2]), "\n");
        assert_eq!(without_units(t, &s, &[]), t);
        let t = "x\ny\nz";
        let s = units(t, Unit::Line);
        assert_eq!(without_units(t, &s, &[1]), "x\nz");
        assert_eq!(without_units(t, &s, &[2]), "x\ny\n");
    }
}

//! Benchmark contamination: every training document holding any word n-gram of an evaluation
//! item (n = 13 words by default, as the GPT-3 paper counts), the matched spans with their
//! character offsets, and optionally the spans cut (with a margin) or the documents dropped.
//!
//! 1. **Words.** A word is a maximal run of letters and digits (any script), lowercased; a
//!    Han, Hiragana or Katakana character is a word of its own (as neardup's tokenizer splits
//!    them). Each word keeps its byte span in the text; its key is a seeded 64-bit XXH3.
//! 2. **The evaluation side, indexed once**: every n-gram of every item's words, keyed by a
//!    rolling polynomial over the word keys (finalized by a 64-bit mixer), in a hash map to the
//!    first item holding it. Items with fewer than n words cannot be checked at this n; they are
//!    counted as such.
//! 3. **The corpus streams past it** (every worker thread): each document's n-grams looked up;
//!    the matches of one item that overlap or touch make one span, from its first word's start
//!    to its last word's end, with the number of n-grams in it. Keys are 64-bit: two different
//!    n-grams share one with probability about 2^-64 per pair looked up.
//! 4. **Actions**: `report` (the spans only), `cut` (each span widened by `margin` characters on
//!    each side, then out to whole words, removed; what was on either side is joined by a line
//!    break when the cut held one, else by a space, so no two words are ever glued), `drop`
//!    (every document with a span is left out of the written corpus).

use crate::kept::output_paths;
use crate::CleanError;
use neardup_ingest::{Page, ReadOptions};
use neardup_pipeline::{Input, PipelineConfig, Progress, Skipped, Visitor};
use neardup_report::{OutputGuard, Table};
use neardup_text::Document;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Words per n-gram by default (GPT-3's 13-gram overlap).
pub const DEFAULT_NGRAM: usize = 13;
/// Characters cut on each side of a span by default (as the GPT-3 paper's filtering did).
pub const DEFAULT_MARGIN: usize = 200;

const WORD_SEED: u64 = 0x636f_6e74_616d_696e;
const BASE: u64 = 0x9e37_79b9_7f4a_7c15;

/// What is done with a contaminated document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Report the spans only.
    #[default]
    Report,
    /// Cut each span and its margin out of the text.
    Cut,
    /// Leave the document out.
    Drop,
}

impl Action {
    /// `report`, `cut` or `drop`.
    pub fn parse(s: &str) -> Option<Action> {
        match s {
            "report" => Some(Action::Report),
            "cut" => Some(Action::Cut),
            "drop" => Some(Action::Drop),
            _ => None,
        }
    }
}

/// How contamination is looked for and handled.
#[derive(Clone, Debug)]
pub struct ContaminationOptions {
    /// Words per n-gram.
    pub ngram: usize,
    /// What to do with contaminated documents (with a folder to write to).
    pub action: Action,
    /// Characters cut on each side of a span with [`Action::Cut`].
    pub margin: usize,
    /// How the evaluation files are read (their text and id fields).
    pub eval_read: ReadOptions,
}

impl Default for ContaminationOptions {
    fn default() -> Self {
        ContaminationOptions {
            ngram: DEFAULT_NGRAM,
            action: Action::Report,
            margin: DEFAULT_MARGIN,
            eval_read: ReadOptions::default(),
        }
    }
}

/// A word: its byte span and key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// First byte.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Its lowercased text's key.
    pub key: u64,
}

/// The words of `text` into `out` (cleared first).
pub fn words(text: &str, out: &mut Vec<Word>) {
    out.clear();
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(WORD_SEED);
    let mut start: Option<usize> = None;
    let mut buf = [0u8; 4];
    let close = |start: &mut Option<usize>,
                 end: usize,
                 h: &mut xxhash_rust::xxh3::Xxh3,
                 out: &mut Vec<Word>| {
        if let Some(s) = start.take() {
            out.push(Word {
                start: s,
                end,
                key: h.digest(),
            });
            h.reset();
        }
    };
    for (i, c) in text.char_indices() {
        if neardup_text::is_unsegmented_cjk(c) {
            close(&mut start, i, &mut h, out);
            h.update(c.encode_utf8(&mut buf).as_bytes());
            start = Some(i);
            close(&mut start, i + c.len_utf8(), &mut h, out);
        } else if c.is_alphanumeric() {
            start.get_or_insert(i);
            for l in c.to_lowercase() {
                h.update(l.encode_utf8(&mut buf).as_bytes());
            }
        } else {
            close(&mut start, i, &mut h, out);
        }
    }
    close(&mut start, text.len(), &mut h, out);
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Calls `each(i, key)` for the n-gram of words `i..i + n`, for every `i`.
fn ngrams(words: &[Word], n: usize, mut each: impl FnMut(usize, u64)) {
    if n == 0 || words.len() < n {
        return;
    }
    let top = (1..n).fold(1u64, |p, _| p.wrapping_mul(BASE));
    let mut h = 0u64;
    for w in &words[..n] {
        h = h.wrapping_mul(BASE).wrapping_add(w.key);
    }
    each(0, mix(h));
    for i in 1..=words.len() - n {
        h = h
            .wrapping_sub(words[i - 1].key.wrapping_mul(top))
            .wrapping_mul(BASE)
            .wrapping_add(words[i + n - 1].key);
        each(i, mix(h));
    }
}

/// An evaluation item.
#[derive(Clone, Debug)]
struct Item {
    file: u32,
    id: String,
}

/// The evaluation side: n-gram keys to the first item holding them.
pub struct EvalIndex {
    ngram: usize,
    ngrams: HashMap<u64, u32>,
    items: Vec<Item>,
    files: Vec<String>,
    too_short: u64,
    per_file_items: Vec<u64>,
    ws: Vec<Word>,
}

/// One span of a document matching an evaluation item ([`EvalIndex::find`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The item (its number in [`EvalIndex::item`]).
    pub item: u32,
    /// Byte offsets in the text.
    pub start_byte: usize,
    /// End (exclusive).
    pub end_byte: usize,
    /// Character offsets in the text.
    pub start: u64,
    /// End (exclusive).
    pub end: u64,
    /// The item's n-grams in the span.
    pub ngrams: u64,
}

impl EvalIndex {
    /// An empty index of `ngram`-word n-grams over evaluation sets named `files`.
    pub fn new(ngram: usize, files: Vec<String>) -> EvalIndex {
        EvalIndex {
            ngram: ngram.max(1),
            ngrams: HashMap::new(),
            items: Vec::new(),
            per_file_items: vec![0; files.len()],
            files,
            too_short: 0,
            ws: Vec::new(),
        }
    }

    /// Adds an item of set `file` (an index into the names given); a text of fewer than
    /// `ngram` words is counted as too short.
    pub fn add(&mut self, file: u32, id: String, text: &str) {
        if let Some(n) = self.per_file_items.get_mut(file as usize) {
            *n += 1;
        }
        let item = self.items.len() as u32;
        self.items.push(Item { file, id });
        let mut ws = std::mem::take(&mut self.ws);
        words(text, &mut ws);
        if ws.len() < self.ngram {
            self.too_short += 1;
        } else {
            ngrams(&ws, self.ngram, |_, k| {
                self.ngrams.entry(k).or_insert(item);
            });
        }
        self.ws = ws;
    }

    /// Item `i`'s set name and id.
    pub fn item(&self, i: u32) -> (&str, &str) {
        let it = &self.items[i as usize];
        (&self.files[it.file as usize], &it.id)
    }

    /// The spans of `text` matching an item: the matches of one item that overlap or touch
    /// make one span; in (item, start) order. `ws` and `hits` are reused buffers.
    pub fn find(
        &self,
        text: &str,
        ws: &mut Vec<Word>,
        hits: &mut Vec<(u32, usize)>,
        mut each: impl FnMut(Span),
    ) {
        let n = self.ngram;
        words(text, ws);
        hits.clear();
        ngrams(ws, n, |i, k| {
            if let Some(&item) = self.ngrams.get(&k) {
                hits.push((item, i));
            }
        });
        hits.sort_unstable();
        let mut i = 0;
        while i < hits.len() {
            let (item, first) = hits[i];
            let (mut last, mut count) = (first, 1);
            i += 1;
            while i < hits.len() && hits[i].0 == item && hits[i].1 <= last + n {
                last = hits[i].1;
                count += 1;
                i += 1;
            }
            let (s, e) = (ws[first].start, ws[last + n - 1].end);
            let start = text[..s].chars().count() as u64;
            each(Span {
                item,
                start_byte: s,
                end_byte: e,
                start,
                end: start + text[s..e].chars().count() as u64,
                ngrams: count,
            });
        }
    }
}

/// The evaluation files indexed under `options` (their n-gram length and fields).
pub fn index_eval(
    eval: &[PathBuf],
    options: &ContaminationOptions,
) -> Result<EvalIndex, CleanError> {
    let mut idx = EvalIndex::new(
        options.ngram,
        eval.iter().map(|p| p.display().to_string()).collect(),
    );
    read_eval(eval, options, |f, id, text| idx.add(f, id, text))?;
    Ok(idx)
}

/// Every item of the evaluation files as `each(file number, id, text)`: the id field, else
/// the record number.
pub fn read_eval(
    eval: &[PathBuf],
    options: &ContaminationOptions,
    mut each: impl FnMut(u32, String, &str),
) -> Result<(), CleanError> {
    let mut page = Page::default();
    for (f, path) in eval.iter().enumerate() {
        let mut src = neardup_ingest::open_source(path, None, f as u32, &options.eval_read)
            .map_err(|e| CleanError::Read {
                path: path.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
        while src.next_page(&mut page).map_err(|e| CleanError::Read {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        })? {
            let text = String::from_utf8_lossy(&page.body);
            let id = if page.record_id.is_empty() {
                page.id.ordinal.to_string()
            } else {
                page.record_id.clone()
            };
            each(f as u32, id, &text);
        }
    }
    Ok(())
}

/// A row of `contamination`: one span of one document matching one evaluation item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContaminationRow {
    /// The training input.
    pub file: String,
    /// The document's record number in it.
    pub record: u64,
    /// The document's id, when it has one.
    pub id: String,
    /// The document's language (ISO 639-3, `neardup_text::language`).
    pub language: String,
    /// The evaluation file holding the item.
    pub eval_file: String,
    /// The item's id (its id field, else its record number).
    pub item_id: String,
    /// Where the span starts in the document's text, in characters.
    pub start: u64,
    /// Where it ends (exclusive), in characters.
    pub end: u64,
    /// The item's n-grams in the span.
    pub ngrams: u64,
}

impl Table for ContaminationRow {
    const NAME: &'static str = "contamination";
}

/// A match found by a worker, before its offsets are counted in characters.
#[derive(Clone, Debug)]
struct Found {
    doc: u64,
    id: String,
    language: neardup_text::language::Language,
    item: u32,
    start_byte: usize,
    end_byte: usize,
    start: u64,
    end: u64,
    ngrams: u64,
}

struct Finder {
    index: Arc<EvalIndex>,
    ws: Vec<Word>,
    hits: Vec<(u32, usize)>,
    found: Vec<Found>,
    docs: u64,
}

impl Visitor for Finder {
    type Output = (Vec<Found>, u64);

    fn wants(&mut self, page: &Page) -> bool {
        page.kind == neardup_ingest::BodyKind::Text
    }

    fn plain_text(&mut self, page: &Page, text: &str) -> bool {
        self.docs += 1;
        let doc = (u64::from(page.id.source) << 32) | u64::from(page.id.ordinal);
        let before = self.found.len();
        let found = &mut self.found;
        self.index.find(text, &mut self.ws, &mut self.hits, |s| {
            found.push(Found {
                doc,
                id: page.record_id.clone(),
                language: neardup_text::language::Language::UNKNOWN,
                item: s.item,
                start_byte: s.start_byte,
                end_byte: s.end_byte,
                start: s.start,
                end: s.end,
                ngrams: s.ngrams,
            })
        });
        if self.found.len() > before {
            let language = neardup_text::language::detect(text);
            for f in &mut self.found[before..] {
                f.language = language;
            }
        }
        true
    }

    fn visit(&mut self, _page: &Page, _doc: Option<&Document>) {}

    fn finish(self) -> Self::Output {
        (self.found, self.docs)
    }
}

/// What a contamination run found and did.
#[derive(Clone, Debug, Serialize)]
pub struct ContaminationSummary {
    /// Words per n-gram.
    pub ngram: usize,
    /// What was done.
    pub action: Action,
    /// Characters cut on each side (with `cut`).
    pub margin: usize,
    /// Evaluation items read, per evaluation file.
    pub eval_items: Vec<(String, u64)>,
    /// Items with fewer words than `ngram` (not checked).
    pub eval_items_too_short: u64,
    /// Distinct n-grams indexed.
    pub eval_ngrams: u64,
    /// Plain-text training documents read.
    pub documents: u64,
    /// Documents with at least one span.
    pub documents_contaminated: u64,
    /// Spans found.
    pub spans: u64,
    /// Per evaluation file: its items found in the corpus.
    pub items_found: Vec<(String, u64)>,
    /// Contaminated documents by language (most first).
    pub languages: Vec<(String, u64)>,
    /// The detector that told the languages, with its version
    /// (`neardup_text::language::DETECTOR`).
    pub language_detector: String,
    /// Documents left out (`drop`) or cut (`cut`) in the written corpus.
    pub documents_changed: u64,
    /// Characters cut (`cut`).
    pub chars_cut: u64,
    /// Training records the readers skipped.
    pub skipped: Skipped,
    /// Where the written corpus went.
    pub outputs: Vec<String>,
}

/// Looks for the items of `eval` in `inputs`; every span goes to `each_row` in input order.
/// With `write_clean`, the corpus is written again with `options.action` applied.
pub fn contamination(
    inputs: &[Input],
    eval: &[PathBuf],
    pipeline: &PipelineConfig,
    options: &ContaminationOptions,
    write_clean: Option<(&Path, &OutputGuard)>,
    progress: &dyn Progress,
    mut each_row: impl FnMut(ContaminationRow) -> Result<(), CleanError>,
) -> Result<ContaminationSummary, CleanError> {
    let paths = crate::kept::file_inputs(inputs, "contamination")?;
    crate::check_inputs(eval)?;
    if options.ngram == 0 {
        return Err(CleanError::Read {
            path: PathBuf::from("-"),
            source: std::io::Error::other("n-grams of 0 words"),
        });
    }
    let index = Arc::new(index_eval(eval, options)?);
    let run = crate::kept::run_pipeline(
        inputs,
        pipeline,
        || Finder {
            index: index.clone(),
            ws: Vec::new(),
            hits: Vec::new(),
            found: Vec::new(),
            docs: 0,
        },
        progress,
    )?;
    let skipped = Skipped::of(&run.sources, pipeline.skipped_examples);
    let mut found = Vec::new();
    let mut documents = 0;
    for (f, d) in run.outputs {
        found.extend(f);
        documents += d;
    }
    found.sort_by_key(|a| (a.doc, a.start, a.item));
    let mut items_found = vec![std::collections::HashSet::new(); index.files.len()];
    let mut contaminated = std::collections::BTreeSet::new();
    let mut by_language = std::collections::BTreeMap::<_, [u64; 1]>::new();
    for f in &found {
        let item = &index.items[f.item as usize];
        items_found[item.file as usize].insert(f.item);
        if contaminated.insert(f.doc) {
            by_language.entry(f.language).or_default()[0] += 1;
        }
        each_row(ContaminationRow {
            file: paths[(f.doc >> 32) as usize].display().to_string(),
            record: f.doc & 0xffff_ffff,
            id: f.id.clone(),
            language: f.language.to_string(),
            eval_file: index.files[item.file as usize].clone(),
            item_id: item.id.clone(),
            start: f.start,
            end: f.end,
            ngrams: f.ngrams,
        })?;
    }
    let mut summary = ContaminationSummary {
        ngram: options.ngram,
        action: options.action,
        margin: options.margin,
        eval_items: index
            .files
            .iter()
            .cloned()
            .zip(index.per_file_items.iter().copied())
            .collect(),
        eval_items_too_short: index.too_short,
        eval_ngrams: index.ngrams.len() as u64,
        documents,
        documents_contaminated: contaminated.len() as u64,
        spans: found.len() as u64,
        items_found: index
            .files
            .iter()
            .cloned()
            .zip(items_found.iter().map(|s| s.len() as u64))
            .collect(),
        languages: neardup_text::language::ranked(by_language)
            .into_iter()
            .map(|(l, [n])| (l.to_string(), n))
            .collect(),
        language_detector: neardup_text::language::DETECTOR.to_string(),
        documents_changed: 0,
        chars_cut: 0,
        skipped,
        outputs: Vec::new(),
    };
    let Some((dir, guard)) = write_clean else {
        return Ok(summary);
    };
    match options.action {
        Action::Report => {}
        Action::Drop => {
            let mut plan = crate::KeptPlan::new(paths.len());
            for d in &contaminated {
                plan.removed((d >> 32) as u32, (d & 0xffff_ffff) as u32);
            }
            let kept = crate::write_kept(&paths, &plan, dir, guard, &Default::default())?;
            summary.documents_changed = kept.files.iter().map(|f| f.records_removed).sum();
            summary.outputs = kept.files.into_iter().map(|f| f.output).collect();
        }
        Action::Cut => {
            let outs = output_paths(&paths, dir);
            guard.create_dir(dir)?;
            for out in &outs {
                if let Some(parent) = out.parent() {
                    guard.create_dir(parent)?;
                }
                guard.claim(out)?;
            }
            /// The spans of each document cut out of its text.
            struct Cutting<'x> {
                found: &'x [Found],
                at: usize,
                margin: usize,
                changed: u64,
                chars_cut: u64,
            }
            impl crate::rewrite::Rewriter for Cutting<'_> {
                fn wants(&mut self, key: u64) -> bool {
                    while self.found.get(self.at).is_some_and(|f| f.doc < key) {
                        self.at += 1;
                    }
                    self.found.get(self.at).is_some_and(|f| f.doc == key)
                }
                fn each(
                    &mut self,
                    doc: crate::rewrite::Doc<'_>,
                ) -> Result<Option<String>, CleanError> {
                    let first = self.at;
                    while self.found.get(self.at).is_some_and(|f| f.doc == doc.key) {
                        self.at += 1;
                    }
                    let Some(text) = doc.text else {
                        return Ok(None);
                    };
                    let spans: Vec<(usize, usize)> = self.found[first..self.at]
                        .iter()
                        .map(|f| (f.start_byte, f.end_byte))
                        .collect();
                    let (cleaned, cut) = cut_spans(text, &spans, self.margin);
                    self.changed += 1;
                    self.chars_cut += cut;
                    Ok(Some(cleaned))
                }
            }
            let mut cutting = Cutting {
                found: &found,
                at: 0,
                margin: options.margin,
                changed: 0,
                chars_cut: 0,
            };
            for (source, path) in paths.iter().enumerate() {
                crate::rewrite::rewrite(
                    source as u32,
                    path,
                    Some(&outs[source]),
                    &pipeline.read.fields,
                    &mut cutting,
                )?;
                summary.outputs.push(outs[source].display().to_string());
            }
            summary.documents_changed = cutting.changed;
            summary.chars_cut = cutting.chars_cut;
        }
    }
    Ok(summary)
}

/// `text` without its `spans` (byte ranges), each widened by `margin` characters on each side
/// and then out to whole words; what is left on either side of a cut is joined by one line break
/// when the cut (or the white space around it) held one, else by one space (nothing at the
/// text's ends). Returns the text and the
/// characters cut.
pub fn cut_spans(text: &str, spans: &[(usize, usize)], margin: usize) -> (String, u64) {
    let widen_left = |mut s: usize| {
        for _ in 0..margin {
            match text[..s].chars().next_back() {
                Some(c) => s -= c.len_utf8(),
                None => break,
            }
        }
        // Out to the start of the word it landed in.
        while let Some(c) = text[..s].chars().next_back() {
            if !c.is_alphanumeric() {
                break;
            }
            s -= c.len_utf8();
        }
        s
    };
    let widen_right = |mut e: usize| {
        for _ in 0..margin {
            match text[e..].chars().next() {
                Some(c) => e += c.len_utf8(),
                None => break,
            }
        }
        while let Some(c) = text[e..].chars().next() {
            if !c.is_alphanumeric() {
                break;
            }
            e += c.len_utf8();
        }
        e
    };
    let mut regions: Vec<(usize, usize)> = spans
        .iter()
        .map(|&(s, e)| (widen_left(s), widen_right(e)))
        .collect();
    regions.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for r in regions {
        match merged.last_mut() {
            Some(last) if r.0 <= last.1 => last.1 = last.1.max(r.1),
            _ => merged.push(r),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut cut = 0u64;
    for (s, e) in merged {
        out.push_str(&text[at..s]);
        cut += text[s..e].chars().count() as u64;
        at = e;
        let right = &text[e..];
        // At either end of the text nothing is joined.
        if text[..s].trim_end().is_empty() || right.trim_start().is_empty() {
            continue;
        }
        // In the middle: the white space on both sides becomes one joint, a line break when
        // the cut or that white space held one.
        let kept = out.trim_end().len();
        let lead = right.len() - right.trim_start().len();
        let line =
            text[s..e].contains('\n') || out[kept..].contains('\n') || right[..lead].contains('\n');
        out.truncate(kept);
        out.push(if line { '\n' } else { ' ' });
        at = e + lead;
    }
    out.push_str(&text[at..]);
    (out, cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texts_of(t: &str) -> Vec<&str> {
        let mut ws = Vec::new();
        words(t, &mut ws);
        ws.iter().map(|w| &t[w.start..w.end]).collect()
    }

    #[test]
    fn words_are_letters_and_digits_cjk_one_character_each() {
        assert_eq!(
            texts_of("Hello, wörld! 42x 東京タワ é"),
            ["Hello", "wörld", "42x", "東", "京", "タ", "ワ", "é"]
        );
        let mut a = Vec::new();
        let mut b = Vec::new();
        words("The QUICK fox", &mut a);
        words("the quick FOX", &mut b);
        assert_eq!(
            a.iter().map(|w| w.key).collect::<Vec<_>>(),
            b.iter().map(|w| w.key).collect::<Vec<_>>()
        );
    }

    #[test]
    fn cuts_widen_to_words_and_never_glue_them() {
        let t = "Alice wanted to go to the store today.";
        let s = t.find("go to").unwrap();
        // No margin: the span alone goes, a space joins what is left.
        assert_eq!(
            cut_spans(t, &[(s, s + 5)], 0).0,
            "Alice wanted to the store today."
        );
        // A margin that lands inside words takes them whole.
        assert_eq!(
            cut_spans(t, &[(s, s + 5)], 3).0,
            "Alice wanted store today."
        );
        // Everything: nothing left.
        assert_eq!(cut_spans(t, &[(0, t.len())], 0).0, "");
        // A cut holding a line break joins with one.
        let t = "first line\nsecret words here\nlast line";
        let s = t.find("secret").unwrap();
        assert_eq!(
            cut_spans(t, &[(s - 5, s + 12)], 0).0,
            "first\nhere\nlast line"
        );
    }

    proptest! {
        /// Rolling n-gram keys equal keys made from scratch.
        #[test]
        fn rolling_keys_equal_direct_keys(keys in proptest::collection::vec(any::<u64>(), 0..40), n in 1usize..8) {
            let ws: Vec<Word> = keys.iter().map(|&key| Word { start: 0, end: 0, key }).collect();
            let mut got = Vec::new();
            ngrams(&ws, n, |i, k| got.push((i, k)));
            let want: Vec<(usize, u64)> = (0..=ws.len().saturating_sub(n)).filter(|_| ws.len() >= n).map(|i| {
                let h = ws[i..i + n].iter().fold(0u64, |h, w| h.wrapping_mul(BASE).wrapping_add(w.key));
                (i, mix(h))
            }).collect();
            prop_assert_eq!(got, want);
        }

        /// A cut never splits a character or a word, and never joins two words.
        #[test]
        fn cuts_keep_words_whole_and_apart(
            words_in in proptest::collection::vec("[a-zé東]{1,6}", 1..30),
            seps in proptest::collection::vec(prop_oneof![Just(" "), Just("\n"), Just(", "), Just(" — ")], 30),
            a in 0usize..30, len in 1usize..10, margin in 0usize..12,
        ) {
            let mut text = String::new();
            for (i, w) in words_in.iter().enumerate() {
                if i > 0 { text.push_str(seps[i]); }
                text.push_str(w);
            }
            let mut ws = Vec::new();
            words(&text, &mut ws);
            let a = a % ws.len();
            let b = (a + len).min(ws.len()) - 1;
            let (out, _) = cut_spans(&text, &[(ws[a].start, ws[b].end)], margin);
            // Every word left is a whole word of the original, in order.
            let mut left = Vec::new();
            words(&out, &mut left);
            let left: Vec<&str> = left.iter().map(|w| &out[w.start..w.end]).collect();
            let orig: Vec<&str> = ws.iter().map(|w| &text[w.start..w.end]).collect();
            let mut j = 0;
            for w in &left {
                while j < orig.len() && orig[j] != *w { j += 1; }
                prop_assert!(j < orig.len(), "{:?} is not a word of {:?} (got {:?})", w, text, out);
                j += 1;
            }
            // The matched words are gone.
            prop_assert!(left.len() <= orig.len() - (b - a + 1));
        }
    }
}

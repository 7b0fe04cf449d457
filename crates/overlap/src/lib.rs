//! All-pairs document overlap (paper 002, Shivakumar and Garcia-Molina 1998): every document is
//! cut into chunks, each chunk hashed to a fingerprint; the Overlap table holds, for every pair
//! of documents sharing at least `T` distinct chunks, how many they share.
//!
//! * [`Chunking`]: words, sequences of `n` words, lines (1, 2 or 4 lines of the page as rendered,
//!   from the tokenizer's line boundaries), sentences, paragraphs, the whole document.
//! * [`chunk_fingerprints`]: a document's distinct chunk fingerprints. A chunk's fingerprint is
//!   XXH3-64 (seed 0) of its terms' UTF-8 bytes, each term followed by one 0x20 byte; with
//!   [`FingerprintWidth::Bits32`] (the paper's choice) its low 32 bits.
//! * [`overlap_sorted`]: the sort-based algorithm: sort FPrint-DocID by fingerprint, emit the pairs
//!   of documents sharing each fingerprint, sort the pairs and count. Fingerprints held by more
//!   than `max_df` documents are skipped and reported (a copyright line would otherwise make the
//!   cross-product explode).
//! * [`overlap_brute_force`]: the oracle.

pub mod extsort;

use neardup_text::Document;
use rayon::prelude::*;
use serde::Serialize;

/// How a document is cut into chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "n")]
pub enum Chunking {
    /// Every word.
    Words,
    /// Non-overlapping sequences of `n` words.
    WordSeq(u32),
    /// Non-overlapping groups of `n` lines as rendered (the paper uses 1, 2 and 4).
    Lines(u32),
    /// Sentences.
    Sentences,
    /// Paragraphs.
    Paragraphs,
    /// The whole document.
    Document,
}

impl Chunking {
    /// Parses `words`, `words:N`, `lines`, `lines:N`, `sentences`, `paragraphs`, `document`.
    pub fn parse(s: &str) -> Result<Chunking, String> {
        let (name, n) = match s.split_once(':') {
            Some((a, b)) => (
                a,
                Some(
                    b.parse::<u32>()
                        .map_err(|_| format!("{s:?}: {b:?} is not a count"))?,
                ),
            ),
            None => (s, None),
        };
        let c = match (name, n) {
            ("words", None) => Chunking::Words,
            ("words", Some(n)) if n >= 1 => Chunking::WordSeq(n),
            ("lines", None) => Chunking::Lines(1),
            ("lines", Some(n)) if n >= 1 => Chunking::Lines(n),
            ("sentences", None) => Chunking::Sentences,
            ("paragraphs", None) => Chunking::Paragraphs,
            ("document", None) => Chunking::Document,
            _ => {
                return Err(format!(
                "{s:?}: expected words, words:N, lines, lines:N, sentences, paragraphs or document"
            ))
            }
        };
        Ok(c)
    }
}

/// Fingerprint width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FingerprintWidth {
    /// 32 bits, as in the paper.
    Bits32,
    /// 64 bits.
    Bits64,
}

fn fingerprint(doc: &Document, from: usize, to: usize, width: FingerprintWidth) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for i in from..to {
        h.update(doc.term(i).as_bytes());
        h.update(b" ");
    }
    let v = h.digest();
    match width {
        FingerprintWidth::Bits32 => v & 0xFFFF_FFFF,
        FingerprintWidth::Bits64 => v,
    }
}

/// Appends a document's distinct chunk fingerprints, sorted, to `out` (cleared first).
pub fn chunk_fingerprints(
    doc: &Document,
    chunking: Chunking,
    width: FingerprintWidth,
    out: &mut Vec<u64>,
) {
    out.clear();
    let n = doc.len();
    if n == 0 {
        return;
    }
    let mut spans = |starts: &mut dyn Iterator<Item = usize>| {
        let starts: Vec<usize> = starts.collect();
        for (k, &s) in starts.iter().enumerate() {
            let e = starts.get(k + 1).copied().unwrap_or(n);
            if e > s {
                out.push(fingerprint(doc, s, e, width));
            }
        }
    };
    match chunking {
        Chunking::Words => spans(&mut (0..n)),
        Chunking::WordSeq(k) => spans(&mut (0..n).step_by(k as usize)),
        Chunking::Lines(k) => {
            spans(&mut doc.lines().iter().step_by(k as usize).map(|&i| i as usize))
        }
        Chunking::Sentences => spans(&mut doc.sentences().iter().map(|&i| i as usize)),
        Chunking::Paragraphs => spans(&mut doc.paragraphs().iter().map(|&i| i as usize)),
        Chunking::Document => spans(&mut std::iter::once(0)),
    }
    out.sort_unstable();
    out.dedup();
}

/// One row of the Overlap table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct OverlapRow {
    /// First document (smaller id).
    pub a: u32,
    /// Second document.
    pub b: u32,
    /// Distinct chunks they share.
    pub shared: u32,
}

/// The Overlap table and what was left out.
#[derive(Clone, Debug, Default, Serialize)]
pub struct OverlapTable {
    /// Pairs sharing at least `min_shared` chunks, ordered by `(a, b)`.
    pub rows: Vec<OverlapRow>,
    /// Fingerprints skipped because more than `max_df` documents hold them.
    pub skipped_fingerprints: u64,
    /// Document pairs those skipped fingerprints would have produced (a lower bound when pairs
    /// repeat across fingerprints).
    pub skipped_pair_emissions: u64,
    /// Pair emissions counted (the cross-product size).
    pub pair_emissions: u64,
}

/// The sort-based algorithm over an FPrint-DocID table (any order; sorted here).
pub fn overlap_sorted(mut table: Vec<(u64, u32)>, min_shared: u32, max_df: usize) -> OverlapTable {
    table.par_sort_unstable();
    table.dedup();
    let mut out = OverlapTable::default();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut i = 0;
    while i < table.len() {
        let mut j = i + 1;
        while j < table.len() && table[j].0 == table[i].0 {
            j += 1;
        }
        let g = (j - i) as u64;
        if g >= 2 {
            if (j - i) > max_df {
                out.skipped_fingerprints += 1;
                out.skipped_pair_emissions += g * (g - 1) / 2;
            } else {
                for x in i..j {
                    for y in x + 1..j {
                        pairs.push((table[x].1, table[y].1));
                    }
                }
            }
        }
        i = j;
    }
    out.pair_emissions = pairs.len() as u64;
    pairs.par_sort_unstable();
    let mut k = 0;
    while k < pairs.len() {
        let mut l = k + 1;
        while l < pairs.len() && pairs[l] == pairs[k] {
            l += 1;
        }
        let shared = (l - k) as u32;
        if shared >= min_shared {
            out.rows.push(OverlapRow {
                a: pairs[k].0,
                b: pairs[k].1,
                shared,
            });
        }
        k = l;
    }
    out
}

/// The sort-based algorithm with both sorts external: at most `mem_limit` bytes of records in
/// memory (half for the FPrint-DocID table, half for the pairs), the rest in spill files under
/// `tmp`, removed when done or on error. Gives exactly [`overlap_sorted`]'s table.
pub fn overlap_external(
    table: impl IntoIterator<Item = (u64, u32)>,
    min_shared: u32,
    max_df: usize,
    mem_limit: usize,
    tmp: &std::path::Path,
) -> std::io::Result<(OverlapTable, ExternalStats)> {
    use extsort::ExternalSorter;
    let half = (mem_limit / 2).max(64);
    let mut entries = ExternalSorter::<(u64, u32)>::new(half, tmp);
    for e in table {
        entries.push(e)?;
    }
    let mut stats = ExternalStats {
        table_runs: entries.runs(),
        ..Default::default()
    };
    let mut pairs = ExternalSorter::<u64>::new(half, tmp);
    let mut out = OverlapTable::default();
    let mut group: Vec<u32> = Vec::new();
    let mut group_fp = None;
    let mut group_len = 0u64;
    let flush = |fp: Option<u64>,
                 group: &mut Vec<u32>,
                 len: u64,
                 pairs: &mut ExternalSorter<u64>,
                 out: &mut OverlapTable|
     -> std::io::Result<()> {
        if fp.is_some() && len >= 2 {
            if len as usize > max_df {
                out.skipped_fingerprints += 1;
                out.skipped_pair_emissions += len * (len - 1) / 2;
            } else {
                for x in 0..group.len() {
                    for y in x + 1..group.len() {
                        pairs.push((group[x] as u64) << 32 | group[y] as u64)?;
                        out.pair_emissions += 1;
                    }
                }
            }
        }
        group.clear();
        Ok(())
    };
    let sorted = entries.finish()?;
    let mut last: Option<(u64, u32)> = None;
    for e in sorted {
        let e = e?;
        if last == Some(e) {
            continue; // duplicate entry
        }
        last = Some(e);
        if group_fp != Some(e.0) {
            flush(group_fp, &mut group, group_len, &mut pairs, &mut out)?;
            group_fp = Some(e.0);
            group_len = 0;
        }
        group_len += 1;
        if group.len() <= max_df {
            group.push(e.1);
        }
    }
    flush(group_fp, &mut group, group_len, &mut pairs, &mut out)?;
    stats.pair_runs = pairs.runs();
    stats.spilled_bytes = pairs.spilled_bytes();
    let mut current: Option<u64> = None;
    let mut count = 0u32;
    for p in pairs.finish()? {
        let p = p?;
        if current == Some(p) {
            count += 1;
            continue;
        }
        if let Some(c) = current {
            if count >= min_shared {
                out.rows.push(OverlapRow {
                    a: (c >> 32) as u32,
                    b: c as u32,
                    shared: count,
                });
            }
        }
        current = Some(p);
        count = 1;
    }
    if let Some(c) = current {
        if count >= min_shared {
            out.rows.push(OverlapRow {
                a: (c >> 32) as u32,
                b: c as u32,
                shared: count,
            });
        }
    }
    Ok((out, stats))
}

/// What the external sorts did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExternalStats {
    /// Runs spilled while sorting the FPrint-DocID table.
    pub table_runs: usize,
    /// Runs spilled while sorting the pairs.
    pub pair_runs: usize,
    /// Bytes of pair records spilled.
    pub spilled_bytes: u64,
}

/// The oracle: for every pair of documents, the distinct chunks they share, counting only
/// fingerprints held by at most `max_df` documents.
pub fn overlap_brute_force(docs: &[Vec<u64>], min_shared: u32, max_df: usize) -> Vec<OverlapRow> {
    let mut df = std::collections::HashMap::new();
    for d in docs {
        let distinct: std::collections::BTreeSet<u64> = d.iter().copied().collect();
        for f in distinct {
            *df.entry(f).or_insert(0usize) += 1;
        }
    }
    let sets: Vec<std::collections::BTreeSet<u64>> = docs
        .iter()
        .map(|d| d.iter().copied().filter(|f| df[f] <= max_df).collect())
        .collect();
    let mut rows = Vec::new();
    for a in 0..docs.len() {
        for b in a + 1..docs.len() {
            let shared = sets[a].intersection(&sets[b]).count() as u32;
            if shared >= min_shared && shared > 0 {
                rows.push(OverlapRow {
                    a: a as u32,
                    b: b as u32,
                    shared,
                });
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_text::Tokenizer;
    use proptest::prelude::*;

    #[test]
    fn chunkings_follow_the_boundaries() {
        let mut doc = Document::new();
        Tokenizer::default().html(
            b"<p>One two. Three four!</p><p>five six<br>seven eight<br>nine</p>",
            None,
            "",
            &mut doc,
        );
        let mut out = Vec::new();
        let count = |c: Chunking, out: &mut Vec<u64>| {
            chunk_fingerprints(&doc, c, FingerprintWidth::Bits64, out);
            out.len()
        };
        assert_eq!(count(Chunking::Words, &mut out), 9);
        assert_eq!(count(Chunking::WordSeq(4), &mut out), 3);
        assert_eq!(count(Chunking::Lines(1), &mut out), 4);
        assert_eq!(count(Chunking::Lines(2), &mut out), 2);
        assert_eq!(count(Chunking::Sentences, &mut out), 3);
        assert_eq!(count(Chunking::Paragraphs, &mut out), 2);
        assert_eq!(count(Chunking::Document, &mut out), 1);
        chunk_fingerprints(&doc, Chunking::Words, FingerprintWidth::Bits32, &mut out);
        assert!(out.iter().all(|&f| f <= u32::MAX as u64));
        assert_eq!(Chunking::parse("lines:4"), Ok(Chunking::Lines(4)));
        assert!(Chunking::parse("lines:0").is_err());
        assert!(Chunking::parse("bogus").is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// The sort-based Overlap table equals the brute-force count, with and without the cap.
        #[test]
        fn sorted_equals_brute_force(
            docs in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..30), 0..25),
            min_shared in 1u32..4,
            max_df in 2usize..30,
        ) {
            let table: Vec<(u64, u32)> = docs.iter().enumerate().flat_map(|(i, d)| d.iter().map(move |&f| (f, i as u32))).collect();
            let got = overlap_sorted(table.clone(), min_shared, max_df);
            prop_assert_eq!(&got.rows, &overlap_brute_force(&docs, min_shared, max_df));
            // The external sort, with a tiny memory limit (many spill runs), agrees exactly.
            let tmp = tempfile::tempdir().unwrap();
            let (ext, _) = overlap_external(table, min_shared, max_df, 96, tmp.path()).unwrap();
            prop_assert_eq!(&ext.rows, &got.rows);
            prop_assert_eq!((ext.pair_emissions, ext.skipped_fingerprints), (got.pair_emissions, got.skipped_fingerprints));
            prop_assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        }
    }
}

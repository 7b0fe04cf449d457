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
//!
//! ```
//! use neardup_overlap::{overlap_brute_force, overlap_sorted};
//!
//! // Chunk fingerprints of three documents: 0 and 1 share three chunks, 2 shares one.
//! let docs = [vec![1u64, 2, 3, 4], vec![2, 3, 4, 5], vec![4, 9]];
//! let table: Vec<(u64, u32)> = docs
//!     .iter()
//!     .enumerate()
//!     .flat_map(|(d, fps)| fps.iter().map(move |&f| (f, d as u32)))
//!     .collect();
//! let t = overlap_sorted(table, 2, 1000);
//! assert_eq!(t.rows.len(), 1);
//! assert_eq!((t.rows[0].a, t.rows[0].b, t.rows[0].shared), (0, 1, 3));
//! assert_eq!(t.rows, overlap_brute_force(&docs, 2, 1000));
//! ```

pub use neardup_store::extsort::ExternalSorter;
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

/// A chunking name that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{got:?}: expected words, words:N, lines, lines:N, sentences, paragraphs or document (N >= 1)"
)]
pub struct ChunkingError {
    /// What was given.
    pub got: String,
}

impl Chunking {
    /// Parses `words`, `words:N`, `lines`, `lines:N`, `sentences`, `paragraphs`, `document`.
    pub fn parse(s: &str) -> Result<Chunking, ChunkingError> {
        let err = || ChunkingError { got: s.to_string() };
        let (name, n) = match s.split_once(':') {
            Some((a, b)) => (a, Some(b.parse::<u32>().map_err(|_| err())?)),
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
            _ => return Err(err()),
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
    use neardup_store::extsort::ExternalSorter;
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

/// Settings of coarse counting.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CoarseConfig {
    /// Counters per hash function (`m`).
    pub counters: usize,
    /// Hash functions (independent counter arrays); a pair is a candidate only when all its
    /// buckets are heavy.
    pub hashes: u32,
    /// Share of fingerprint groups sampled in the pilot pass (0 = no pilot).
    pub pilot: f64,
}

impl Default for CoarseConfig {
    fn default() -> Self {
        CoarseConfig {
            counters: 1 << 24,
            hashes: 2,
            pilot: 0.01,
        }
    }
}

/// What coarse counting did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CoarseStats {
    /// Pairs found heavy in the pilot sample and counted exactly apart.
    pub pilot_pairs: u64,
    /// Heavy buckets per hash function.
    pub heavy_buckets: Vec<u64>,
    /// Candidate pairs counted exactly in the second pass.
    pub candidates: u64,
    /// Candidates that turned out below the threshold (false positives of the counters).
    pub false_candidates: u64,
    /// Bytes of counters.
    pub counter_bytes: u64,
}

/// A hasher for the u64 pair keys of coarse counting's maps (SplitMix64's finalizer; keys are
/// not attacker-chosen in a way that matters here, and SipHash dominated the run time).
#[derive(Default)]
struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        pair_hash(self.0, 7)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type PairMap = std::collections::HashMap<u64, u32, std::hash::BuildHasherDefault<PairHasher>>;

fn pair_hash(pair: u64, i: u32) -> u64 {
    let mut z = pair ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Calls `emit(pair)` for every pair of documents sharing a fingerprint of a sorted, deduplicated
/// FPrint-DocID table (groups above `max_df` skipped), `pair = a << 32 | b`, `a < b`. Only groups
/// `g` with `select(group index)` are visited.
fn for_each_pair(
    table: &[(u64, u32)],
    max_df: usize,
    select: impl Fn(u64) -> bool,
    mut emit: impl FnMut(u64),
) {
    let mut i = 0;
    let mut g = 0u64;
    while i < table.len() {
        let mut j = i + 1;
        while j < table.len() && table[j].0 == table[i].0 {
            j += 1;
        }
        if j - i >= 2 && j - i <= max_df && select(g) {
            for x in i..j {
                for y in x + 1..j {
                    emit((table[x].1 as u64) << 32 | table[y].1 as u64);
                }
            }
        }
        g += 1;
        i = j;
    }
}

/// Coarse (probabilistic) counting, paper 002's answer to "all pairs above T with little memory"
/// (an iceberg query): pair emissions are hashed into `hashes` arrays of `counters` counters; a
/// bucket is heavy when its counter reaches `min_shared`; a second scan counts exactly only the
/// pairs whose buckets are all heavy. Counters only overestimate, so no pair above the threshold
/// is lost: the result equals [`overlap_sorted`]'s. A pilot pass over a sample of the fingerprint
/// groups finds pairs that are heavy anyway; they are counted exactly apart and kept out of the
/// counters, so that they do not make other pairs' buckets heavy. Memory: the counters, then a
/// bitmap, the pilot pairs and the candidates; never the cross-product.
pub fn overlap_coarse(
    mut table: Vec<(u64, u32)>,
    min_shared: u32,
    max_df: usize,
    cfg: &CoarseConfig,
) -> (OverlapTable, CoarseStats) {
    table.par_sort_unstable();
    table.dedup();
    let m = cfg.counters.max(1);
    let k = cfg.hashes.max(1);
    let mut out = OverlapTable::default();
    let mut stats = CoarseStats {
        counter_bytes: (m * k as usize * 4) as u64,
        ..Default::default()
    };
    // Skipped groups are reported like the sort-based method does.
    {
        let mut i = 0;
        while i < table.len() {
            let mut j = i + 1;
            while j < table.len() && table[j].0 == table[i].0 {
                j += 1;
            }
            let g = (j - i) as u64;
            if g >= 2 && j - i > max_df {
                out.skipped_fingerprints += 1;
                out.skipped_pair_emissions += g * (g - 1) / 2;
            }
            i = j;
        }
    }
    // Pilot: pairs seen at least twice in a sample of the groups are counted exactly apart.
    let mut exact = PairMap::default();
    if cfg.pilot > 0.0 {
        let step = (1.0 / cfg.pilot.min(1.0)).round().max(1.0) as u64;
        let mut sample = PairMap::default();
        for_each_pair(
            &table,
            max_df,
            |g| pair_hash(g, 99).is_multiple_of(step),
            |p| *sample.entry(p).or_default() += 1,
        );
        exact.extend(
            sample
                .into_iter()
                .filter(|&(_, c)| c >= 2)
                .map(|(p, _)| (p, 0)),
        );
        stats.pilot_pairs = exact.len() as u64;
    }
    // Pass 1: counters.
    let mut counters = vec![0u32; m * k as usize];
    for_each_pair(
        &table,
        max_df,
        |_| true,
        |p| {
            out.pair_emissions += 1;
            if let Some(c) = exact.get_mut(&p) {
                *c += 1;
                return;
            }
            for i in 0..k {
                let c = &mut counters[i as usize * m + (pair_hash(p, i) % m as u64) as usize];
                *c = c.saturating_add(1);
            }
        },
    );
    // Heavy buckets as a bitmap; the counters are freed.
    let heavy: Vec<bool> = counters.iter().map(|&c| c >= min_shared).collect();
    stats.heavy_buckets = (0..k as usize)
        .map(|i| heavy[i * m..(i + 1) * m].iter().filter(|&&h| h).count() as u64)
        .collect();
    drop(counters);
    // Pass 2: exact counts of the candidates.
    let mut candidates = PairMap::default();
    for_each_pair(
        &table,
        max_df,
        |_| true,
        |p| {
            if exact.contains_key(&p) {
                return;
            }
            if (0..k).all(|i| heavy[i as usize * m + (pair_hash(p, i) % m as u64) as usize]) {
                *candidates.entry(p).or_default() += 1;
            }
        },
    );
    stats.candidates = candidates.len() as u64;
    stats.false_candidates = candidates.values().filter(|&&c| c < min_shared).count() as u64;
    let mut rows: Vec<OverlapRow> = exact
        .into_iter()
        .chain(candidates)
        .filter(|&(_, c)| c >= min_shared && c > 0)
        .map(|(p, c)| OverlapRow {
            a: (p >> 32) as u32,
            b: p as u32,
            shared: c,
        })
        .collect();
    rows.sort_unstable();
    out.rows = rows;
    (out, stats)
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
            let (ext, _) = overlap_external(table.clone(), min_shared, max_df, 96, tmp.path()).unwrap();
            prop_assert_eq!(&ext.rows, &got.rows);
            prop_assert_eq!((ext.pair_emissions, ext.skipped_fingerprints), (got.pair_emissions, got.skipped_fingerprints));
            // The spill folder is empty again (the test may look at files; the crate may not).
            #[allow(clippy::disallowed_methods)]
            let left = std::fs::read_dir(tmp.path()).unwrap().count();
            prop_assert_eq!(left, 0);
            // Coarse counting with very few counters (many collisions) is still exact.
            for (counters, hashes, pilot) in [(7usize, 1u32, 0.0), (13, 2, 0.5), (1, 1, 1.0), (4096, 3, 0.01)] {
                let (coarse, _) = overlap_coarse(table.clone(), min_shared, max_df, &CoarseConfig { counters, hashes, pilot });
                prop_assert_eq!(&coarse.rows, &got.rows, "counters {} hashes {} pilot {}", counters, hashes, pilot);
                prop_assert_eq!(coarse.skipped_fingerprints, got.skipped_fingerprints);
            }
        }
    }
}

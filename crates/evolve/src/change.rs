//! What changed between two captures of a URL, in plain categories: unchanged, markup only,
//! dates/times/counters only, a few words, a large edit, main content replaced, gone, moved.
//!
//! Each capture keeps a [`CapturePrint`] (a few hundred bytes, fixed size): its HTTP status,
//! a hash of its bytes, a hash of its term sequence, the same with every run of *volatile*
//! terms masked as one (a term holding a digit, a month or a weekday name: dates, times,
//! counters, however many terms the tokenizer made of them), and its masked
//! terms cut into content-defined chunks (a chunk ends after a term whose hash has its low
//! [`CHUNK_BITS`] bits zero: about eight terms, and an edit moves no boundary but its own),
//! kept twice: as an invertible Bloom lookup table of [`CELLS`] cells, from which the chunks
//! two captures do not share are *listed* when they are few (a one-word edit on a page of
//! thousands of words is one or two chunks: minvalues cannot see it, this does), and as the
//! [`BOTTOM`] least chunk hashes, for a Jaccard estimate when they are many.
//!
//! [`classify`] applies the rules in this order and names the one that decided
//! ([`Verdict::rule`]):
//!
//! 1. the new capture's status is 404 or 410: gone; a redirect (301, 302, 303, 307, 308): moved;
//! 2. the same bytes: unchanged;
//! 3. the same terms: markup only;
//! 4. the same terms once volatile ones are masked: dates/times/counters only;
//! 5. the chunks not shared listed, at most [`FEW_CHUNKS`] of them and on each side at most
//!    15% of the page's chunks: a few words;
//! 6. otherwise the chunk Jaccard (exact when the difference was listed, else the bottom-k
//!    estimate): at least [`REPLACED_BELOW`], a large edit; below, main content replaced.
//!
//! Everything is computed with fixed seeds and in term order: the same on every run, thread
//! count and platform.

use serde::Serialize;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Invertible Bloom lookup table cells per print (they list a difference of up to about 20
/// chunks).
pub const CELLS: usize = 30;
/// Cells each chunk is added to.
const HASHES: usize = 3;
/// Least chunk hashes kept for the Jaccard estimate (its standard error at Jaccard 0.25 is
/// about 0.06).
pub const BOTTOM: usize = 48;
/// A chunk ends after a term whose hash has these low bits zero (8 terms on average).
pub const CHUNK_BITS: u32 = 3;
/// At most this many chunks not shared (both sides together) make "a few words" (an edited
/// word changes its chunk, and the next one when it was or becomes a boundary: up to four).
pub const FEW_CHUNKS: u32 = 12;
/// Below this chunk Jaccard, the main content was replaced rather than edited (a page whose
/// template stays and whose article is new shares little more than its template's chunks; an
/// edit of 60% of a text leaves a Jaccard of 0.25).
pub const REPLACED_BELOW: f64 = 0.15;

const SEED_TERM: u64 = 0x6e65_6172_6475_7031;
const SEED_BODY: u64 = 0x6e65_6172_6475_7032;
const SEED_CELL: u64 = 0x6e65_6172_6475_7033;
const MASK: &str = "\u{0}#";

/// How a capture differs from the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// Byte for byte the same.
    Unchanged,
    /// The same text, other markup.
    MarkupOnly,
    /// Only dates, times or counters differ.
    DatesOnly,
    /// A few words differ.
    FewWords,
    /// Much of the text was edited; much is still shared.
    LargeEdit,
    /// The main content was replaced (little is shared).
    ContentReplaced,
    /// The URL answers 404 or 410.
    Gone,
    /// The URL answers with a redirect.
    Moved,
}

impl Change {
    /// Every category, in order.
    pub const ALL: [Change; 8] = [
        Change::Unchanged,
        Change::MarkupOnly,
        Change::DatesOnly,
        Change::FewWords,
        Change::LargeEdit,
        Change::ContentReplaced,
        Change::Gone,
        Change::Moved,
    ];

    /// The category's name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Unchanged => "unchanged",
            Change::MarkupOnly => "markup-only",
            Change::DatesOnly => "dates-only",
            Change::FewWords => "few-words",
            Change::LargeEdit => "large-edit",
            Change::ContentReplaced => "content-replaced",
            Change::Gone => "gone",
            Change::Moved => "moved",
        }
    }

    /// Whether the page's text changed (what a recrawl is for).
    pub fn text_changed(self) -> bool {
        matches!(
            self,
            Change::FewWords | Change::LargeEdit | Change::ContentReplaced
        )
    }
}

/// One IBLT cell (8 bytes): how many chunks were added, and the wrapping sums of their hashes
/// and of their 16-bit check hashes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// Chunks added (negative after subtracting another table; wrapping).
    pub count: i16,
    /// Wrapping sum of the chunk hashes.
    pub key_sum: u32,
    /// Wrapping sum of the chunks' check hashes.
    pub check_sum: u16,
}

/// What is kept of one capture to tell later how it changed (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CapturePrint {
    /// HTTP status, when the capture had one.
    pub status: Option<u16>,
    /// Hash of the payload's bytes.
    pub body_hash: u64,
    /// Hash of the term sequence.
    pub text_hash: u64,
    /// Hash of the term sequence with volatile terms masked.
    pub masked_hash: u64,
    /// A 64-bit simhash of the masked terms' chunks (Charikar): near pages lie a few bits
    /// apart (what wayback-discover-diff's clients compare).
    pub simhash: u64,
    /// Terms.
    pub terms: u32,
    /// Chunks of masked terms.
    pub chunks: u32,
    /// The chunks as an invertible Bloom lookup table.
    pub cells: [Cell; CELLS],
    /// The least distinct chunk hashes, increasing (fewer when the page has fewer chunks).
    pub bottom: Vec<u32>,
}

/// Whether a term is volatile: it holds a digit, or names a month or a weekday (English, in
/// full or abbreviated).
pub fn is_volatile(term: &str) -> bool {
    const NAMES: [&str; 38] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
    ];
    term.bytes().any(|b| b.is_ascii_digit())
        || (term.len() <= 9 && NAMES.iter().any(|n| n.eq_ignore_ascii_case(term)))
}

fn check(key: u32) -> u16 {
    xxh3_64_with_seed(&key.to_le_bytes(), SEED_CELL) as u16
}

fn cells_of(key: u32) -> [usize; HASHES] {
    // Three distinct cells, one in each third of the table.
    let h = xxh3_64_with_seed(&key.to_le_bytes(), SEED_CELL ^ 1);
    let third = CELLS / HASHES;
    [0, 1, 2].map(|i| i * third + ((h >> (i * 20)) as usize % third))
}

fn add(cells: &mut [Cell; CELLS], key: u32, sign: i16) {
    let c = check(key);
    for i in cells_of(key) {
        let cell = &mut cells[i];
        cell.count = cell.count.wrapping_add(sign);
        cell.key_sum = cell.key_sum.wrapping_add((sign as u32).wrapping_mul(key));
        cell.check_sum = cell.check_sum.wrapping_add((sign as u16).wrapping_mul(c));
    }
}

/// Version of [`CapturePrint::encode`]'s bytes.
pub const PRINT_VERSION: u8 = 1;

/// Why bytes are not a [`CapturePrint`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrintError {
    /// Another version.
    #[error("a capture print of version {0}, this build reads version {PRINT_VERSION}")]
    Version(u8),
    /// Too few or too many bytes.
    #[error("a capture print of {0} bytes: {1}")]
    Length(usize, &'static str),
}

impl CapturePrint {
    /// Bytes of an encoded print with `bottom` least chunk hashes.
    fn encoded_len(bottom: usize) -> usize {
        1 + 2 + 4 * 8 + 2 * 4 + CELLS * 8 + 1 + 4 * bottom
    }

    /// The print as bytes (little-endian): u8 [`PRINT_VERSION`], u16 status (0: none), u64
    /// body hash, u64 text hash, u64 masked hash, u64 simhash, u32 terms, u32 chunks,
    /// [`CELLS`] cells of
    /// (i16 count, u32 key sum, u16 check sum), u8 count and that many u32 least chunk hashes.
    /// Appended to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.reserve(Self::encoded_len(self.bottom.len()));
        out.push(PRINT_VERSION);
        out.extend_from_slice(&self.status.unwrap_or(0).to_le_bytes());
        for h in [
            self.body_hash,
            self.text_hash,
            self.masked_hash,
            self.simhash,
        ] {
            out.extend_from_slice(&h.to_le_bytes());
        }
        out.extend_from_slice(&self.terms.to_le_bytes());
        out.extend_from_slice(&self.chunks.to_le_bytes());
        for c in &self.cells {
            out.extend_from_slice(&c.count.to_le_bytes());
            out.extend_from_slice(&c.key_sum.to_le_bytes());
            out.extend_from_slice(&c.check_sum.to_le_bytes());
        }
        let n = self.bottom.len().min(BOTTOM);
        out.push(n as u8);
        for v in &self.bottom[..n] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// A print from [`CapturePrint::encode`]'s bytes (all of them).
    pub fn decode(b: &[u8]) -> Result<CapturePrint, PrintError> {
        let fixed = Self::encoded_len(0);
        match b.first() {
            None => return Err(PrintError::Length(0, "empty")),
            Some(&v) if v != PRINT_VERSION => return Err(PrintError::Version(v)),
            _ => {}
        }
        if b.len() < fixed {
            return Err(PrintError::Length(b.len(), "shorter than its fixed part"));
        }
        let n = b[fixed - 1] as usize;
        if n > BOTTOM || b.len() != Self::encoded_len(n) {
            return Err(PrintError::Length(
                b.len(),
                "its least chunk hashes do not fit its length",
            ));
        }
        let mut at = 1;
        let mut take = |k: usize| {
            let s = &b[at..at + k];
            at += k;
            s
        };
        let u16_ = |s: &[u8]| u16::from_le_bytes([s[0], s[1]]);
        let u32_ = |s: &[u8]| u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        let u64_ = |s: &[u8]| {
            let mut a = [0u8; 8];
            a.copy_from_slice(s);
            u64::from_le_bytes(a)
        };
        let status = u16_(take(2));
        let (body_hash, text_hash, masked_hash) = (u64_(take(8)), u64_(take(8)), u64_(take(8)));
        let simhash = u64_(take(8));
        let (terms, chunks) = (u32_(take(4)), u32_(take(4)));
        let mut cells = [Cell::default(); CELLS];
        for c in &mut cells {
            let s = take(8);
            *c = Cell {
                count: i16::from_le_bytes([s[0], s[1]]),
                key_sum: u32_(&s[2..6]),
                check_sum: u16_(&s[6..8]),
            };
        }
        take(1);
        let bottom = (0..n).map(|_| u32_(take(4))).collect();
        Ok(CapturePrint {
            status: (status != 0).then_some(status),
            body_hash,
            text_hash,
            masked_hash,
            simhash,
            terms,
            chunks,
            cells,
            bottom,
        })
    }

    /// The print of a capture: its status, its payload bytes and its terms in order.
    pub fn new<'a>(
        status: Option<u16>,
        body: &[u8],
        terms: impl IntoIterator<Item = &'a str>,
    ) -> CapturePrint {
        let mut p = CapturePrint {
            status,
            body_hash: xxh3_64_with_seed(body, SEED_BODY),
            text_hash: SEED_TERM,
            masked_hash: SEED_TERM,
            simhash: 0,
            terms: 0,
            chunks: 0,
            cells: [Cell::default(); CELLS],
            bottom: Vec::with_capacity(BOTTOM + 1),
        };
        let mut chunk = SEED_TERM;
        let mut open = false;
        let mut in_mask = false;
        let mut weights = [0i32; 64];
        for term in terms {
            let h = xxh3_64_with_seed(term.as_bytes(), SEED_TERM);
            p.terms += 1;
            p.text_hash = mix(p.text_hash, h);
            // A run of volatile terms is one mask ("874" and "3,037", "June 16, 2026 02:26"
            // and "June 9, 2026 12:05" alike).
            let m = if is_volatile(term) {
                if in_mask {
                    continue;
                }
                in_mask = true;
                xxh3_64_with_seed(MASK.as_bytes(), SEED_TERM)
            } else {
                in_mask = false;
                h
            };
            p.masked_hash = mix(p.masked_hash, m);
            chunk = mix(chunk, m);
            open = true;
            if m.trailing_zeros() >= CHUNK_BITS {
                p.end_chunk(chunk, &mut weights);
                chunk = SEED_TERM;
                open = false;
            }
        }
        if open {
            p.end_chunk(chunk, &mut weights);
        }
        p.simhash = weights
            .iter()
            .enumerate()
            .fold(0, |h, (bit, &w)| h | (u64::from(w > 0) << bit));
        p
    }

    fn end_chunk(&mut self, chunk: u64, weights: &mut [i32; 64]) {
        let spread = xxh3_64_with_seed(&chunk.to_le_bytes(), SEED_TERM);
        for (bit, w) in weights.iter_mut().enumerate() {
            *w += if spread >> bit & 1 == 1 { 1 } else { -1 };
        }
        let key = (chunk ^ (chunk >> 32)) as u32;
        self.chunks += 1;
        add(&mut self.cells, key, 1);
        if let Err(at) = self.bottom.binary_search(&key) {
            if at < BOTTOM {
                self.bottom.insert(at, key);
                self.bottom.truncate(BOTTOM);
            }
        }
    }
}

fn mix(h: u64, v: u64) -> u64 {
    let z = (h ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^ (z >> 29)
}

/// The chunks in `a` but not in `b` and in `b` but not in `a`, when the tables list them
/// (`None` when the difference is too large to list).
pub fn chunk_difference(a: &CapturePrint, b: &CapturePrint) -> Option<(u32, u32)> {
    let mut d = a.cells;
    for (x, y) in d.iter_mut().zip(&b.cells) {
        x.count = x.count.wrapping_sub(y.count);
        x.key_sum = x.key_sum.wrapping_sub(y.key_sum);
        x.check_sum = x.check_sum.wrapping_sub(y.check_sum);
    }
    let (mut only_a, mut only_b) = (0u32, 0u32);
    // Peel pure cells (one chunk, of either side) until none is left.
    loop {
        let pure = d.iter().position(|c| {
            (c.count == 1 && check(c.key_sum) == c.check_sum)
                || (c.count == -1 && check(c.key_sum.wrapping_neg()) == c.check_sum.wrapping_neg())
        });
        let Some(i) = pure else { break };
        let cell = d[i];
        if cell.count == 1 {
            only_a += 1;
            add(&mut d, cell.key_sum, -1);
        } else {
            only_b += 1;
            add(&mut d, cell.key_sum.wrapping_neg(), 1);
        }
        if only_a + only_b > 4 * CELLS as u32 {
            return None;
        }
    }
    d.iter()
        .all(|c| *c == Cell::default())
        .then_some((only_a, only_b))
}

/// The chunk Jaccard estimated from the two bottom sketches.
pub fn bottom_jaccard(a: &CapturePrint, b: &CapturePrint) -> f64 {
    let mut union: Vec<u32> = a.bottom.iter().chain(&b.bottom).copied().collect();
    union.sort_unstable();
    union.dedup();
    union.truncate(BOTTOM);
    if union.is_empty() {
        return 1.0;
    }
    let both = union
        .iter()
        .filter(|k| a.bottom.binary_search(k).is_ok() && b.bottom.binary_search(k).is_ok())
        .count();
    both as f64 / union.len() as f64
}

/// A change category and what decided it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The category.
    pub change: Change,
    /// The rule that decided (`status 404`, `same bytes`, `same terms`, `same masked terms`,
    /// `chunks listed`, `chunk jaccard`).
    pub rule: String,
    /// Chunks only the earlier and only the later capture hold, when listed.
    pub chunks_differing: Option<(u32, u32)>,
    /// Chunks of the earlier and the later capture.
    pub chunks: (u32, u32),
    /// Chunk Jaccard of the two captures (exact when the difference was listed; 1 when the
    /// masked terms are the same).
    pub jaccard: f64,
    /// Bits their simhashes differ in (0 to 64; about 32 for unrelated pages).
    pub simhash_distance: u32,
}

/// How capture `b` differs from the earlier capture `a` (see the module documentation).
pub fn classify(a: &CapturePrint, b: &CapturePrint) -> Verdict {
    let verdict = |change, rule: &str, diff, jaccard| Verdict {
        change,
        rule: rule.to_string(),
        chunks_differing: diff,
        chunks: (a.chunks, b.chunks),
        jaccard,
        simhash_distance: (a.simhash ^ b.simhash).count_ones(),
    };
    match b.status {
        Some(s @ (404 | 410)) => return verdict(Change::Gone, &format!("status {s}"), None, 0.0),
        Some(s @ (301 | 302 | 303 | 307 | 308)) => {
            return verdict(Change::Moved, &format!("status {s}"), None, 0.0)
        }
        _ => {}
    }
    if a.body_hash == b.body_hash {
        return verdict(Change::Unchanged, "same bytes", Some((0, 0)), 1.0);
    }
    if a.text_hash == b.text_hash {
        return verdict(Change::MarkupOnly, "same terms", Some((0, 0)), 1.0);
    }
    if a.masked_hash == b.masked_hash {
        return verdict(Change::DatesOnly, "same masked terms", Some((0, 0)), 1.0);
    }
    match chunk_difference(a, b) {
        Some((x, y)) => {
            // In u64: the counts come from stored prints, which may be damaged (found by
            // fuzzing: `20 * x` overflowed a u32).
            let listed = (x, y);
            let shared = u64::from(a.chunks.saturating_sub(x));
            let (x, y) = (u64::from(x), u64::from(y));
            let union = shared + x + y;
            let j = if union == 0 {
                1.0
            } else {
                shared as f64 / union as f64
            };
            let most = u64::from(a.chunks.max(b.chunks).max(1));
            let change = if x + y <= u64::from(FEW_CHUNKS) && 20 * x.max(y) <= 3 * most {
                Change::FewWords
            } else if j >= REPLACED_BELOW {
                Change::LargeEdit
            } else {
                Change::ContentReplaced
            };
            verdict(change, "chunks listed", Some(listed), j)
        }
        None => {
            let j = bottom_jaccard(a, b);
            let change = if j >= REPLACED_BELOW {
                Change::LargeEdit
            } else {
                Change::ContentReplaced
            };
            verdict(change, "chunk jaccard", None, j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize, seed: u64) -> Vec<String> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Letters only: a term with a digit is volatile.
                let mut n = (s >> 33) % 5000;
                let mut w = String::from("w");
                while n > 0 {
                    w.push((b'a' + (n % 26) as u8) as char);
                    n /= 26;
                }
                w
            })
            .collect()
    }

    fn print(status: u16, body: &str, terms: &[String]) -> CapturePrint {
        CapturePrint::new(
            Some(status),
            body.as_bytes(),
            terms.iter().map(String::as_str),
        )
    }

    #[test]
    fn simhashes_of_near_pages_are_near() {
        let base = words(3000, 5);
        let mut few = base.clone();
        few[1200] = "altered".into();
        let other = words(3000, 6);
        let p = |w: &[String]| CapturePrint::new(Some(200), b"", w.iter().map(String::as_str));
        let (a, b, c) = (p(&base), p(&few), p(&other));
        assert!((a.simhash ^ b.simhash).count_ones() <= 4);
        assert!((a.simhash ^ c.simhash).count_ones() >= 16);
        assert_eq!(
            classify(&a, &b).simhash_distance,
            (a.simhash ^ b.simhash).count_ones()
        );
    }

    #[test]
    fn prints_round_trip_through_their_bytes() {
        for (status, n) in [(Some(200), 0), (Some(404), 30), (None, 5_000)] {
            let w = words(n, n as u64 + 1);
            let p = CapturePrint::new(status, b"body", w.iter().map(String::as_str));
            let mut b = Vec::new();
            p.encode(&mut b);
            assert_eq!(CapturePrint::decode(&b).unwrap(), p);
            // Every shorter prefix and a longer buffer are refused, never misread.
            for k in 0..b.len() {
                assert!(CapturePrint::decode(&b[..k]).is_err(), "{k} of {}", b.len());
            }
            b.push(0);
            assert!(CapturePrint::decode(&b).is_err());
            b[0] = 9;
            assert_eq!(CapturePrint::decode(&b), Err(PrintError::Version(9)));
        }
        // The bytes are specified: a fixed print encodes to fixed bytes.
        let p = CapturePrint::new(Some(200), b"x", ["a", "b", "c"]);
        let mut b = Vec::new();
        p.encode(&mut b);
        assert_eq!(&b[..3], &[PRINT_VERSION, 200, 0]);
        assert_eq!(b.len(), 1 + 2 + 32 + 8 + CELLS * 8 + 1 + 4 * p.bottom.len());
    }

    #[test]
    fn each_category_by_its_rule() {
        let base = words(3000, 1);
        let a = print(200, "<p>x", &base);
        let same = |v: &CapturePrint| classify(&a, v).change;
        assert_eq!(same(&print(200, "<p>x", &base)), Change::Unchanged);
        assert_eq!(same(&print(200, "<p class=y>x", &base)), Change::MarkupOnly);
        let mut dated = base.clone();
        dated[10] = "2026".into();
        dated[11] = "november".into();
        let a_dated = {
            let mut t = base.clone();
            t[10] = "2025".into();
            t[11] = "october".into();
            print(200, "<p>d1", &t)
        };
        assert_eq!(
            classify(&a_dated, &print(200, "<p>d2", &dated)).change,
            Change::DatesOnly
        );
        // A counter the tokenizer cuts in two ("3,037") against one term ("874").
        let mut counter = base.clone();
        counter[10] = "3".into();
        counter.insert(11, "037".into());
        let mut counter_a = base.clone();
        counter_a[10] = "874".into();
        assert_eq!(
            classify(&print(200, "c1", &counter_a), &print(200, "c2", &counter)).change,
            Change::DatesOnly
        );
        let mut one = base.clone();
        one[1500] = "changed".into();
        let v = classify(&a, &print(200, "<p>1", &one));
        assert_eq!(v.change, Change::FewWords, "{v:?}");
        assert!(v.chunks_differing.is_some_and(|(x, y)| x + y <= 4));
        let mut half = base.clone();
        for t in half.iter_mut().skip(1000).take(1200) {
            t.push('z');
        }
        assert_eq!(same(&print(200, "<p>h", &half)), Change::LargeEdit);
        let mut replaced = base[..300].to_vec();
        replaced.extend(words(2700, 99).into_iter().map(|w| w + "r"));
        assert_eq!(
            same(&print(200, "<p>r", &replaced)),
            Change::ContentReplaced
        );
        assert_eq!(same(&print(404, "", &[])), Change::Gone);
        assert_eq!(same(&print(301, "", &[])), Change::Moved);
        // On a short page, one word in four chunks is no longer "a few words".
        let short = words(20, 5);
        let mut short2 = short.clone();
        for t in short2.iter_mut().take(12) {
            t.push('q');
        }
        let v = classify(&print(200, "s", &short), &print(200, "t", &short2));
        assert_ne!(v.change, Change::FewWords, "{v:?}");
    }

    #[test]
    fn differences_are_listed_exactly_when_few() {
        let base = words(5000, 3);
        let a = print(200, "a", &base);
        for edits in [1usize, 2, 3, 5] {
            let mut t = base.clone();
            for e in 0..edits {
                t[100 + e * 900] = format!("new{}", ["a", "b", "c", "d", "e"][e]);
            }
            let (x, y) = chunk_difference(&a, &print(200, "b", &t)).expect("listed");
            assert!(
                x >= 1 && y >= 1 && x <= 2 * edits as u32 && y <= 2 * edits as u32,
                "{edits}: {x} {y}"
            );
        }
        assert_eq!(chunk_difference(&a, &a), Some((0, 0)));
        let other = print(
            200,
            "c",
            &words(5000, 4)
                .into_iter()
                .map(|w| w + "o")
                .collect::<Vec<_>>(),
        );
        assert_eq!(chunk_difference(&a, &other), None);
        assert!(bottom_jaccard(&a, &other) < 0.1);
        assert_eq!(bottom_jaccard(&a, &a), 1.0);
    }

    #[test]
    fn volatile_terms() {
        for t in ["2026", "10:32", "1,234", "3rd", "November", "sep", "Mon"] {
            assert!(is_volatile(t), "{t}");
        }
        for t in ["rust", "may-be", "monday's", "record"] {
            assert!(!is_volatile(t), "{t}");
        }
    }

    /// Found by fuzzing `capture_print`: a stored print whose chunk count is damaged (here the
    /// largest a u32 holds) made `3 * most` overflow; it is classified like any other.
    #[test]
    fn prints_with_damaged_chunk_counts_are_classified_without_overflow() {
        let base = words(400, 11);
        let mut few = base.clone();
        few[200] = "altered".into();
        for (x, y) in [(&base, &base), (&base, &few)] {
            let (mut a, mut b) = (print(200, "a", x), print(200, "b", y));
            for (ca, cb) in [(u32::MAX, u32::MAX), (u32::MAX, 0), (0, u32::MAX), (0, 0)] {
                a.chunks = ca;
                b.chunks = cb;
                for v in [classify(&a, &b), classify(&b, &a)] {
                    assert!(
                        v.jaccard.is_finite() && (0.0..=1.0).contains(&v.jaccard),
                        "{v:?}"
                    );
                }
            }
        }
    }
}

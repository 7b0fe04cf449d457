//! Candidate generation: which pages to compare.
//!
//! * [`groups`] with [`combinations`] of supershingle positions: paper 004's megashingles,
//!   generalized. For a B-similarity threshold
//!   `b`, every combination of `b` of the `m'` supershingle positions gets its own table (15
//!   tables for `b = 2` of 6, one for `b = 6`), so unrelated combinations never collide (004 note
//!   a). Two pages land in one bucket of a table exactly when they agree on all supershingles of
//!   that combination, i.e. at least `b` supershingles agree iff they share a bucket somewhere.
//! * [`groups`] over bands: banded LSH over the minvalues (`b` bands of `r` rows), with
//!   [`optimal_bands`] choosing `b` and `r` from a Jaccard threshold.
//! * [`kdtree::pairs_within`]: L-infinity box search over real-valued signatures (paper 000's
//!   `(C, D)`-tolerance collisions).
//! * [`brute_force_pairs`]: the oracle every generator is tested against.
//!
//! A table is a vector of `(key, page)` sorted by key; a group is a run of equal keys. Pages are
//! dense `u32` ids. Nothing here allocates per comparison.
//!
//! ```
//! use neardup_candidates::{brute_force_pairs, combinations, estimated_jaccard, groups};
//! use std::sync::Mutex;
//!
//! // Three pages with two supershingles each; pages 0 and 2 agree on the second one.
//! let supershingles = [[1u64, 2], [3, 4], [5, 2]];
//! let combos = combinations(2, 1); // B-similarity >= 1 of 2: one table per position
//! let found = Mutex::new(Vec::new());
//! groups(3, combos.len(), |p, t| Some(supershingles[p as usize][combos[t][0]]), |_, members| {
//!     found.lock().unwrap().push(members.to_vec())
//! });
//! assert_eq!(found.into_inner().unwrap(), vec![vec![0, 2]]);
//! // The oracle every generator is tested against.
//! let agree = |a: u32, b: u32| supershingles[a as usize].iter().zip(&supershingles[b as usize]).any(|(x, y)| x == y);
//! assert_eq!(brute_force_pairs(3, agree), vec![(0, 2)]);
//! assert_eq!(estimated_jaccard(&[1, 2, 3, 4], &[1, 2, 3, 9]), 0.75);
//! ```

use rayon::prelude::*;

pub mod kdtree;
pub mod lsh;

/// A bucket key with the page that produced it.
pub type Entry = (u64, u32);

/// All `choose`-subsets of `0..n`, in lexicographic order.
pub fn combinations(n: usize, choose: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if choose == 0 || choose > n {
        return out;
    }
    let mut c: Vec<usize> = (0..choose).collect();
    loop {
        out.push(c.clone());
        let mut i = choose;
        while i > 0 && c[i - 1] == n - choose + i - 1 {
            i -= 1;
        }
        if i == 0 {
            return out;
        }
        c[i - 1] += 1;
        for j in i..choose {
            c[j] = c[j - 1] + 1;
        }
    }
}

/// Buckets of pages with an equal key in some table. `key(page, table)` computes the key of a
/// page in a table (`None` to leave the page out). `visit(table, members)` is called for every
/// bucket of two or more pages, members in increasing page order; tables are processed in
/// parallel, buckets of one table in key order.
pub fn groups<K, V>(pages: u32, tables: usize, key: K, visit: V)
where
    K: Fn(u32, usize) -> Option<u64> + Sync,
    V: Fn(usize, &[u32]) + Sync,
{
    (0..tables)
        .into_par_iter()
        .for_each(|t| table_groups(pages, t, &key, |members| visit(t, members)));
}

/// The buckets of one table, as [`groups`] visits them.
pub fn table_groups<K, V>(pages: u32, t: usize, key: K, mut visit: V)
where
    K: Fn(u32, usize) -> Option<u64>,
    V: FnMut(&[u32]),
{
    let entries: Vec<Entry> = (0..pages)
        .filter_map(|p| key(p, t).map(|k| (k, p)))
        .collect();
    let entries = sort_entries(entries);
    let mut members = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let mut j = i + 1;
        while j < entries.len() && entries[j].0 == entries[i].0 {
            j += 1;
        }
        if j - i >= 2 {
            members.clear();
            members.extend(entries[i..j].iter().map(|e| e.1));
            visit(&members);
        }
        i = j;
    }
}

/// `entries` sorted by key, then page, as `sort_unstable` sorts them.
///
/// Keys are hashes, spread evenly over 64 bits, so one pass distributes the entries by the
/// keys' top bits into about `len / 2` buckets, in order, and each bucket (two entries on
/// average) is sorted alone: linear time where comparison sorting takes `log len` passes over
/// the table. Keys that are not evenly spread are only slower: a bucket of more than 16
/// entries is sorted by `sort_unstable`.
pub fn sort_entries(mut entries: Vec<Entry>) -> Vec<Entry> {
    let n = entries.len();
    if n < 256 || n > u32::MAX as usize {
        entries.sort_unstable();
        return entries;
    }
    let bits = (n / 2).next_power_of_two().trailing_zeros();
    let shift = 64 - bits;
    let buckets = 1usize << bits;
    // bounds[b + 1] counts bucket b; summed, bounds[b] is where bucket b starts.
    let mut bounds = vec![0u32; buckets + 1];
    for e in &entries {
        bounds[(e.0 >> shift) as usize + 1] += 1;
    }
    for b in 1..=buckets {
        bounds[b] += bounds[b - 1];
    }
    let mut out = vec![(0u64, 0u32); n];
    for &e in &entries {
        let at = &mut bounds[(e.0 >> shift) as usize];
        out[*at as usize] = e;
        *at += 1;
    }
    // Now bounds[b] is where bucket b ends.
    let mut start = 0;
    for &end in &bounds[..buckets] {
        let bucket = &mut out[start..end as usize];
        start = end as usize;
        if bucket.len() > 16 {
            bucket.sort_unstable();
        } else {
            for i in 1..bucket.len() {
                let e = bucket[i];
                let mut j = i;
                while j > 0 && bucket[j - 1] > e {
                    bucket[j] = bucket[j - 1];
                    j -= 1;
                }
                bucket[j] = e;
            }
        }
    }
    out
}

/// Number of equal positions of two equally long vectors.
#[inline]
pub fn agreement<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

/// Jaccard similarity estimated from two minvalue vectors: the share of equal positions.
#[inline]
pub fn estimated_jaccard<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    agreement(a, b) as f64 / a.len() as f64
}

/// The low `bits` bits of a minvalue (all 32 at 32 or more).
#[inline]
pub fn low_bits(v: u32, bits: u32) -> u32 {
    if bits >= 32 {
        v
    } else {
        v & ((1u32 << bits) - 1)
    }
}

/// Jaccard estimated from minvalues of which only the low `bits` are compared (Li and König,
/// "b-Bit Minwise Hashing", 2010): the share `P` of positions whose low bits agree, corrected
/// for the chance `C = 2^-bits` that two different minvalues agree in them, `(P - C) / (1 - C)`
/// at 0 or more (the case of large sets, `r1, r2 -> 0`, of the paper's Theorem 1): unbiased,
/// with the variance of the plain estimator's `P (1 - P) / k` over `(1 - C)^2`. At 32 bits and
/// more, [`estimated_jaccard`] of the values as they are.
pub fn b_bit_jaccard_unbiased(a: &[u32], b: &[u32], bits: u32) -> f64 {
    if bits >= 32 {
        return estimated_jaccard(a, b);
    }
    if a.is_empty() {
        return 0.0;
    }
    let agree = a
        .iter()
        .zip(b)
        .filter(|&(&x, &y)| low_bits(x ^ y, bits) == 0)
        .count();
    let p = agree as f64 / a.len() as f64;
    let c = (-(bits as f64)).exp2();
    ((p - c) / (1.0 - c)).max(0.0)
}

/// The score of a pair from b-bit minvalues: [`b_bit_jaccard_unbiased`] rounded to the nearest
/// multiple of `1 / k` (`k` minvalues), the most likely share of truly agreeing minvalues, so
/// that scores keep the resolution of full ones. While the chance agreements expected are
/// under half a minvalue (`k 2^-bits < 1/2`: 16 bits and `k` below 32,768) it is the plain
/// share of agreeing low bits, and a pair scores as with full minvalues unless two of its
/// differing minvalues agree in their low bits by chance (`(1 - J) k 2^-bits` a pair): the
/// correction alone never moves a pair lying on a threshold.
pub fn b_bit_jaccard(a: &[u32], b: &[u32], bits: u32) -> f64 {
    let unbiased = b_bit_jaccard_unbiased(a, b, bits);
    if bits >= 32 || a.is_empty() {
        return unbiased;
    }
    let k = a.len() as f64;
    (unbiased * k).round() / k
}

/// Exact Jaccard of two sorted, deduplicated sets. Two empty sets have similarity 0 (nothing to
/// compare), never NaN.
pub fn exact_jaccard<T: Ord>(a: &[T], b: &[T]) -> f64 {
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    // Branch-free merge: both sides step past the smaller value (both on a tie), so the
    // loop runs without mispredicted branches on random data (lookups score thousands).
    while i < a.len() && j < b.len() {
        let (x, y) = (&a[i], &b[j]);
        inter += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// `set`'s members cut to their low `bits` bits (a b-bit shingle set, as an index keeps
/// small pages' sets: [`exact_jaccard_at`]), sorted and deduplicated, into `out` (replacing its
/// values; no allocation once it has room).
pub fn narrow_set(set: &[u32], bits: u32, out: &mut Vec<u32>) {
    out.clear();
    out.extend(set.iter().map(|&v| low_bits(v, bits)));
    if bits < 32 {
        out.sort_unstable();
        out.dedup();
    }
}

/// [`exact_jaccard`] of a set whose members keep their low `a_bits` bits and one whose keep
/// `b_bits` (each sorted, deduplicated): compared on the bits both keep. At `w` bits two
/// members of one set may agree and count once (about `n^2 / 2^(w+1)` such merges in a set
/// of `n`): a merge of two shared members takes one from the intersection and the union
/// (the Jaccard falls by `(1 - J) / (|A ∪ B| - 1)`); and different shingles of the two sets
/// may agree by chance (about `(|A| - I)(|B| - I) / 2^w`, `I` the true intersection), adding
/// one to the intersection. Two 84-shingle sets at Jaccard 0.8 kept at 22 bits move in about
/// one pair of 1,500, by about 0.002. Sides of one width cost one merge of the two lists;
/// otherwise the wider is narrowed first (an allocation: callers scoring many pairs narrow
/// once, [`narrow_set`]).
pub fn exact_jaccard_at(a: &[u32], a_bits: u32, b: &[u32], b_bits: u32) -> f64 {
    let (a_bits, b_bits) = (a_bits.min(32), b_bits.min(32));
    let mut narrow = Vec::new();
    if a_bits > b_bits {
        narrow_set(a, b_bits, &mut narrow);
        exact_jaccard(&narrow, b)
    } else if b_bits > a_bits {
        narrow_set(b, a_bits, &mut narrow);
        exact_jaccard(a, &narrow)
    } else {
        exact_jaccard(a, b)
    }
}

/// The chosen banding.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Banding {
    /// Bands.
    pub bands: u32,
    /// Rows per band.
    pub rows: u32,
    /// Probability mass of false positives (integral of the S-curve below the threshold).
    pub false_positive: f64,
    /// Probability mass of false negatives (integral of 1 - S-curve above the threshold).
    pub false_negative: f64,
}

fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    // Composite Simpson's rule; the S-curves are smooth.
    let n = 1000;
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let x = a + i as f64 * h;
        s += f(x) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// Chooses `bands x rows <= m` minimizing `fp_weight * FP + fn_weight * FN`, where FP is the
/// integral over Jaccard `s` in `[0, threshold]` of the probability `1 - (1 - s^r)^b` that a pair
/// becomes a candidate and FN the integral over `[threshold, 1]` of its complement (the rule of
/// datasketch and text-dedup; with 0.5/0.5 weights and m = 128, threshold 0.8 gives 9 x 13).
pub fn optimal_bands(m: u32, threshold: f64, fp_weight: f64, fn_weight: f64) -> Banding {
    let mut best: Option<(f64, Banding)> = None;
    for b in 1..=m {
        for r in 1..=m / b {
            let p = |s: f64| 1.0 - (1.0 - s.powi(r as i32)).powi(b as i32);
            let fp = integrate(p, 0.0, threshold);
            let fneg = integrate(|s| 1.0 - p(s), threshold, 1.0);
            let err = fp_weight * fp + fn_weight * fneg;
            if best.as_ref().is_none_or(|(e, _)| err < *e) {
                best = Some((
                    err,
                    Banding {
                        bands: b,
                        rows: r,
                        false_positive: fp,
                        false_negative: fneg,
                    },
                ));
            }
        }
    }
    best.expect("m >= 1").1
}

/// Every pair `(i, j)`, `i < j`, for which `similar(i, j)`: the O(n^2) oracle.
pub fn brute_force_pairs(pages: u32, similar: impl Fn(u32, u32) -> bool) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..pages {
        for j in i + 1..pages {
            if similar(i, j) {
                out.push((i, j));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Li and König's estimator against their theory: over many pairs of `k` minvalues that
    /// agree at a share `r` of positions (the others independent), the b-bit estimate is
    /// unbiased and its variance is `P (1 - P) / k / (1 - C)^2`, `P = C + (1 - C) r`,
    /// `C = 2^-b`; at 32 bits it is the plain share. The score rounds it to a multiple of
    /// `1 / k`.
    #[test]
    fn b_bit_estimates_match_their_theory() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let (k, trials) = (84usize, 20_000);
        for bits in [8u32, 16] {
            for r in [0.3f64, 0.8] {
                let (mut sum, mut sq) = (0.0, 0.0);
                for _ in 0..trials {
                    let a: Vec<u32> = (0..k).map(|_| next() as u32).collect();
                    let b: Vec<u32> = a
                        .iter()
                        .map(|&v| {
                            if ((next() >> 11) as f64 / (1u64 << 53) as f64) < r {
                                v
                            } else {
                                next() as u32
                            }
                        })
                        .collect();
                    let e = b_bit_jaccard_unbiased(&a, &b, bits);
                    // The score keeps the estimate's resolution, within half a step of it.
                    let scored = b_bit_jaccard(&a, &b, bits);
                    assert!((scored - e).abs() <= 0.5 / k as f64 + 1e-12);
                    let steps = scored * k as f64;
                    assert!((steps - steps.round()).abs() < 1e-9);
                    sum += e;
                    sq += e * e;
                }
                let mean = sum / trials as f64;
                let var = sq / trials as f64 - mean * mean;
                let c = (-(bits as f64)).exp2();
                let p = c + (1.0 - c) * r;
                let theory = p * (1.0 - p) / k as f64 / (1.0 - c).powi(2);
                // The mean within 4 standard errors; the variance within 10%.
                assert!(
                    (mean - r).abs() < 4.0 * (theory / trials as f64).sqrt(),
                    "{bits} bits, r {r}: mean {mean}"
                );
                assert!(
                    (var / theory - 1.0).abs() < 0.1,
                    "{bits} bits, r {r}: variance {var} against {theory}"
                );
            }
        }
        let a = [1u32, 2, 3, 0x1_0004];
        let b = [1u32, 9, 3, 4];
        assert_eq!(b_bit_jaccard(&a, &b, 32), 0.5);
        // 0x1_0004 and 4 agree in their low 16 bits: 3 of 4, corrected, and scored as 3 of 4.
        let c = 1.0 / 65536.0;
        assert_eq!(b_bit_jaccard_unbiased(&a, &b, 16), (0.75 - c) / (1.0 - c));
        assert_eq!(b_bit_jaccard(&a, &b, 16), 0.75);
        assert_eq!(b_bit_jaccard(&[], &[], 16), 0.0);
    }
    use proptest::prelude::*;
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    #[test]
    fn combination_counts() {
        assert_eq!(combinations(6, 2).len(), 15);
        assert_eq!(combinations(6, 6), vec![vec![0, 1, 2, 3, 4, 5]]);
        assert_eq!(combinations(6, 1).len(), 6);
        assert_eq!(combinations(6, 3).len(), 20);
        assert_eq!(
            combinations(4, 2),
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        assert!(combinations(3, 4).is_empty());
    }

    proptest! {
        /// Bucket sorting gives what `sort_unstable` gives: on even hashes, on keys all in one
        /// bucket (few distinct, or only low bits set) and on keys bunched in a few top-bit
        /// buckets, with repeated keys and pages in any order.
        #[test]
        fn sort_entries_is_sort_unstable(even in proptest::collection::vec(any::<(u64, u32)>(), 0..3000),
                                         low in proptest::collection::vec((0u64..1_000_000, 0u32..50), 0..3000),
                                         bunched in proptest::collection::vec((0u64..4, 0u64..50, any::<u32>()), 0..3000)) {
            let bunched: Vec<Entry> = bunched.into_iter().map(|(hi, lo, p)| (hi << 62 | lo, p)).collect();
            for v in [even, low, bunched] {
                let mut want = v.clone();
                want.sort_unstable();
                prop_assert_eq!(sort_entries(v), want);
            }
        }
    }

    proptest! {
        /// Sets of two widths are compared as the brute force does: both cut to the narrower
        /// width's low bits (sorted, deduplicated), whatever side is the wider.
        #[test]
        fn exact_jaccard_at_two_widths_is_both_narrowed(
            a in proptest::collection::btree_set(any::<u32>(), 0..90),
            b in proptest::collection::btree_set(any::<u32>(), 0..90),
            shared in proptest::collection::btree_set(any::<u32>(), 0..60),
            wa in 8u32..=32, wb in 8u32..=32,
        ) {
            let a: Vec<u32> = a.union(&shared).copied().collect();
            let b: Vec<u32> = b.union(&shared).copied().collect();
            let (mut na, mut nb) = (Vec::new(), Vec::new());
            narrow_set(&a, wa, &mut na);
            narrow_set(&b, wb, &mut nb);
            prop_assert!(na.windows(2).all(|w| w[0] < w[1]));
            let w = wa.min(wb);
            let cut = |s: &[u32]| s.iter().map(|&v| low_bits(v, w)).collect::<BTreeSet<u32>>();
            let (ca, cb) = (cut(&a), cut(&b));
            let inter = ca.intersection(&cb).count();
            let union = ca.union(&cb).count();
            let want = if union == 0 { 0.0 } else { inter as f64 / union as f64 };
            prop_assert_eq!(exact_jaccard_at(&na, wa, &nb, wb), want);
            prop_assert_eq!(exact_jaccard_at(&nb, wb, &na, wa), want);
        }
    }

    #[test]
    fn banding_matches_datasketch() {
        let b = optimal_bands(128, 0.8, 0.5, 0.5);
        assert_eq!((b.bands, b.rows), (9, 13));
        let b = optimal_bands(84, 0.8, 0.5, 0.5);
        assert!(b.bands * b.rows <= 84);
    }

    #[test]
    fn jaccard_edge_cases() {
        assert_eq!(exact_jaccard::<u64>(&[], &[]), 0.0);
        assert_eq!(exact_jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(estimated_jaccard::<u64>(&[], &[]), 0.0);
        assert_eq!(estimated_jaccard(&[1, 2, 3, 4], &[1, 0, 3, 0]), 0.5);
    }

    /// Pairs found through supershingle tables, as a set.
    fn pairs_via_tables(supers: &[Vec<u64>], b: usize) -> BTreeSet<(u32, u32)> {
        let combos = combinations(supers[0].len(), b);
        let found = Mutex::new(BTreeSet::new());
        groups(
            supers.len() as u32,
            combos.len(),
            |p, t| {
                let mut k = 0xcbf2_9ce4_8422_2325u64 ^ t as u64;
                for &i in &combos[t] {
                    k = (k ^ supers[p as usize][i]).wrapping_mul(0x100_0000_01b3);
                }
                Some(k)
            },
            |_, members| {
                let mut f = found.lock().unwrap();
                for (x, &i) in members.iter().enumerate() {
                    for &j in &members[x + 1..] {
                        f.insert((i, j));
                    }
                }
            },
        );
        found.into_inner().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// The tables find exactly the pairs with at least `b` equal supershingles (up to the
        /// key hash colliding, which this test's small values make visible if it happens).
        #[test]
        fn tables_equal_brute_force(
            raw in proptest::collection::vec(proptest::collection::vec(0u64..4, 6), 2..40),
            b in 1usize..=6,
        ) {
            let got = pairs_via_tables(&raw, b);
            let want: BTreeSet<(u32, u32)> = brute_force_pairs(raw.len() as u32, |i, j| {
                agreement(&raw[i as usize], &raw[j as usize]) >= b
            }).into_iter().collect();
            prop_assert_eq!(got, want);
        }
    }
}

/// Bits `start .. start + len` (`len <= 64`) of a bit string stored as 64-bit words (bit `j` is
/// bit `j % 64` of word `j / 64`).
#[inline]
pub fn bit_range(words: &[u64], start: u32, len: u32) -> u64 {
    debug_assert!(len > 0 && len <= 64);
    let (w, off) = ((start / 64) as usize, start % 64);
    let mut v = words[w] >> off;
    if off + len > 64 {
        v |= words[w + 1] << (64 - off);
    }
    if len == 64 {
        v
    } else {
        v & ((1u64 << len) - 1)
    }
}

/// Hamming distance of two bit strings.
#[inline]
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// The permuted-table scheme for simhashes (Manku, Jain, Das Sarma 2007; Henzinger's 12 pieces
/// of 32 bits for distance 11 is the case `blocks = 12, key_blocks = 1`): the `bits` are cut into
/// Why simhash tables cannot be built: `blocks` blocks where `expected` holds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{blocks} simhash blocks: expected {expected}")]
pub struct TablesError {
    /// The blocks asked for.
    pub blocks: u32,
    /// What would work.
    pub expected: String,
}

/// `blocks` contiguous blocks and every combination of `key_blocks = blocks - max_distance`
/// blocks is one table. Two bit strings within Hamming distance `max_distance` differ in at most
/// `max_distance` blocks, so at least `key_blocks` blocks are equal: they share a key in some
/// table. Complete by construction (tested against brute force).
#[derive(Clone, Debug)]
pub struct SimhashTables {
    /// `(first bit, length)` of each block.
    pub blocks: Vec<(u32, u32)>,
    /// The blocks of each table.
    pub tables: Vec<Vec<usize>>,
}

impl SimhashTables {
    /// Tables finding every pair within `max_distance` of `bits`-bit strings, cut into `blocks`
    /// blocks (`None` = `max_distance + 1`, one block per key, the fewest tables). Fails when
    /// `blocks <= max_distance` or a key would be longer than 64 bits is impossible to cut.
    pub fn new(
        bits: u32,
        max_distance: u32,
        blocks: Option<u32>,
    ) -> Result<SimhashTables, TablesError> {
        let p = blocks.unwrap_or(max_distance + 1);
        if p <= max_distance {
            return Err(TablesError {
                blocks: p,
                expected: format!(
                    "at least {} blocks to guarantee Hamming distance {max_distance}",
                    max_distance + 1
                ),
            });
        }
        if p > bits {
            return Err(TablesError {
                blocks: p,
                expected: format!("at most one block per bit of the {bits}-bit simhash"),
            });
        }
        let k = (p - max_distance) as usize;
        let mut out = Vec::with_capacity(p as usize);
        let (base, extra) = (bits / p, bits % p);
        let mut at = 0;
        for i in 0..p {
            let len = base + u32::from(i < extra);
            out.push((at, len));
            at += len;
        }
        let tables = combinations(p as usize, k);
        if tables.len() > 10_000 {
            return Err(TablesError {
                blocks: p,
                expected: format!(
                    "fewer blocks: {} tables for distance {max_distance} (at most 10000)",
                    tables.len()
                ),
            });
        }
        Ok(SimhashTables {
            blocks: out,
            tables,
        })
    }

    /// The key of a bit string in table `t`: a fingerprint of its key blocks (exact when the
    /// key has at most 64 bits).
    pub fn key(&self, words: &[u64], t: usize) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for &b in &self.tables[t] {
            let (start, len) = self.blocks[b];
            let mut left = len;
            let mut s = start;
            while left > 0 {
                let n = left.min(64);
                h = (h ^ bit_range(words, s, n))
                    .wrapping_mul(0x100_0000_01b3)
                    .rotate_left(29);
                s += n;
                left -= n;
            }
        }
        h
    }
}

#[cfg(test)]
mod simhash_tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    #[test]
    fn bit_ranges() {
        let w = [0xFFFF_0000_0000_00F0u64, 0x0000_0000_0000_000F];
        assert_eq!(bit_range(&w, 4, 4), 0xF);
        assert_eq!(bit_range(&w, 60, 8), 0xFF);
        assert_eq!(bit_range(&w, 0, 64), w[0]);
        assert_eq!(hamming(&w, &[0, 0]), 24);
        let t = SimhashTables::new(384, 11, None).unwrap();
        assert_eq!((t.blocks.len(), t.tables.len()), (12, 12));
        assert!(t.blocks.iter().all(|b| b.1 == 32));
        assert!(SimhashTables::new(384, 11, Some(11)).is_err());
        assert_eq!(
            SimhashTables::new(384, 12, Some(16)).unwrap().tables.len(),
            1820
        );
    }

    fn found(t: &SimhashTables, sigs: &[Vec<u64>], d: u32) -> BTreeSet<(u32, u32)> {
        let out = Mutex::new(BTreeSet::new());
        groups(
            sigs.len() as u32,
            t.tables.len(),
            |p, i| Some(t.key(&sigs[p as usize], i)),
            |_, m| {
                let mut o = out.lock().unwrap();
                for (x, &a) in m.iter().enumerate() {
                    for &b in &m[x + 1..] {
                        if hamming(&sigs[a as usize], &sigs[b as usize]) <= d {
                            o.insert((a, b));
                        }
                    }
                }
            },
        );
        out.into_inner().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        /// Random 384-bit strings with planted neighbours at every distance up to d + 3: the
        /// tables find exactly the pairs a brute-force scan finds within distance d.
        #[test]
        fn tables_are_complete(
            seeds in proptest::collection::vec(any::<[u64; 6]>(), 2..12),
            flips in proptest::collection::vec(proptest::collection::vec(0u32..384, 0..16), 2..12),
            d in 1u32..14,
            extra_blocks in 0u32..3,
        ) {
            let mut sigs: Vec<Vec<u64>> = Vec::new();
            for (s, f) in seeds.iter().zip(&flips) {
                sigs.push(s.to_vec());
                let mut near = s.to_vec();
                for &bit in f {
                    near[(bit / 64) as usize] ^= 1 << (bit % 64);
                }
                sigs.push(near);
            }
            let t = SimhashTables::new(384, d, Some(d + 1 + extra_blocks)).unwrap();
            let want: BTreeSet<(u32, u32)> =
                brute_force_pairs(sigs.len() as u32, |a, b| hamming(&sigs[a as usize], &sigs[b as usize]) <= d).into_iter().collect();
            prop_assert_eq!(found(&t, &sigs, d), want);
        }
    }
}

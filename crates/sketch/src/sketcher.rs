//! From a token sequence to a signature: term fingerprints, shingle pre-images, `m` min-hash
//! values, supershingles.
//!
//! Rabin family (paper 004; all Rabin fingerprints are those of [`crate::rabin`]):
//! * term fingerprint = Rabin(P0) of the term's UTF-8 bytes;
//! * shingle pre-image = Rabin(P0) of the `k` term fingerprints of the window, each as 8
//!   little-endian bytes (rolled in `O(1)` per shingle);
//! * minvalue `i` = the pre-image `x` with the smallest image `x · t^64 mod P(2+i)` (one-to-one);
//! * supershingle `j` = Rabin(P1) of minvalues `j·l .. (j+1)·l - 1`, and so are the keys of
//!   megashingles and LSH bands ([`Family::key_fingerprint`]).
//!
//! One-permutation family (signature version 5), with `s1, s2, s3` the first three outputs of
//! SplitMix64 seeded with `seed ^ FAST_DOMAIN`:
//! * term fingerprint = XXH3-64 of the term's UTF-8 bytes with seed `s1`;
//! * shingle pre-image = `Σ_(i<k) f_(j+i) · B^(k-1-i) mod 2^64` over the window's term
//!   fingerprints `f`, with `B = s2 | 1` (a polynomial hash, rolled with two multiplications);
//! * minvalues as [`crate::oph`] defines them;
//! * supershingles and keys = XXH3-64 with seed `s3` of the values as little-endian bytes.
//!
//! In both, the token-sequence hash = XXH3-64 (seed 0) of the term fingerprints as
//! little-endian bytes (identity sets), and a page of `n < k` words without wrap-around has one
//! shingle of all its words. P0, P1, P2, ... are the irreducible polynomials drawn from the
//! seed, in that order (the one-permutation family draws only P0 and P1).

use crate::oph::Oph;
use crate::params::{MinHashFamily, SketchParams};
use crate::rabin::{irreducible_polys, Linear64, Rabin};
use std::sync::Arc;

/// The fingerprinting functions of one parameter set, built once and shared by every thread.
pub struct Family {
    params: SketchParams,
    /// P0: terms and shingles.
    pub(crate) shingle: Rabin,
    /// P1: supershingles, megashingles, band keys.
    pub(crate) keys: Rabin,
    /// P2..: the one-to-one min-hash functions (Rabin family; empty otherwise).
    pub(crate) funcs: Vec<Rabin>,
    /// The one-permutation family and its hashing (when the parameters choose it).
    oph: Option<Oph>,
    fast: FastHashing,
    /// `(p, μ')` of each min-hash function, for the carry-less multiplication path.
    clmul_consts: Vec<(u64, u64)>,
    /// `x ↦ x · t^(64 (k+1)) mod P0`, to drop the oldest term of a rolling window.
    drop_oldest: Linear64,
    /// `START · t^(64 (k+1)) mod P0`.
    start_term: u64,
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Family")
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl Family {
    /// Draws the polynomials for `params` (validated by the caller).
    pub fn new(params: &SketchParams) -> Arc<Family> {
        let funcs = match params.minhash {
            MinHashFamily::Rabin => params.m as usize,
            MinHashFamily::Oph => 0,
        };
        let polys = irreducible_polys(params.seed, 2 + funcs);
        let p0 = polys[0];
        let tk1 = crate::rabin::pow_mod(2, 64 * (params.k as u64 + 1), p0);
        Arc::new(Family {
            params: params.clone(),
            shingle: Rabin::new(p0),
            keys: Rabin::new(polys[1]),
            funcs: polys[2..].iter().map(|&p| Rabin::new(p)).collect(),
            clmul_consts: polys[2..]
                .iter()
                .map(|&p| (p, crate::clmul::barrett_mu(p)))
                .collect(),
            oph: (params.minhash == MinHashFamily::Oph).then(|| Oph::new(params.m, params.seed)),
            fast: FastHashing::new(params.seed, params.k),
            drop_oldest: Linear64::mul_const(tk1, p0),
            start_term: crate::rabin::mul_mod(Rabin::START, tk1, p0),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &SketchParams {
        &self.params
    }

    /// The key of an LSH band of stored minvalues (each minvalue's low 32 bits, as a corpus and
    /// a signature file keep them): XXH3-64 of the values as little-endian bytes, seeded with
    /// `s3` of the one-permutation family's keys (in both families).
    pub fn band_key(&self, xs: &[u32]) -> u64 {
        xxh3_le(xs, self.fast.key_seed, u32::to_le_bytes)
    }

    /// The fingerprint of supershingles and megashingles: Rabin(P1) in the Rabin family,
    /// seeded XXH3-64 in the one-permutation family.
    pub fn key_fingerprint(&self, xs: &[u64]) -> u64 {
        if self.oph.is_some() {
            self.fast.key(xs)
        } else {
            self.keys.fingerprint_u64s(xs)
        }
    }

    /// The fingerprint of one term.
    #[inline]
    pub fn term_fingerprint(&self, term: &str) -> u64 {
        if self.oph.is_some() {
            xxhash_rust::xxh3::xxh3_64_with_seed(term.as_bytes(), self.fast.term_seed)
        } else {
            self.shingle.fingerprint(term.as_bytes())
        }
    }
}

/// Mixed into the seed for the one-permutation family's term, shingle and key hashing.
const FAST_DOMAIN: u64 = 0x6661_7374_5f68_6173; // "fast_has"

/// The one-permutation family's term, shingle and key hashing.
#[derive(Clone, Copy, Debug)]
struct FastHashing {
    term_seed: u64,
    /// The base `B` of the shingle polynomial (odd).
    base: u64,
    /// `B^(k-1)`, to drop the oldest term of a window.
    top: u64,
    key_seed: u64,
}

impl FastHashing {
    fn new(seed: u64, k: u32) -> FastHashing {
        let mut rng = crate::rabin::SplitMix64(seed ^ FAST_DOMAIN);
        let term_seed = rng.next_u64();
        let base = rng.next_u64() | 1;
        let key_seed = rng.next_u64();
        let mut top = 1u64;
        for _ in 1..k.max(1) {
            top = top.wrapping_mul(base);
        }
        FastHashing {
            term_seed,
            base,
            top,
            key_seed,
        }
    }

    fn key(&self, xs: &[u64]) -> u64 {
        xxh3_u64s(xs, self.key_seed)
    }

    /// Horner's rule over `xs`.
    fn poly(&self, xs: impl Iterator<Item = u64>) -> u64 {
        xs.fold(0u64, |h, x| h.wrapping_mul(self.base).wrapping_add(x))
    }
}

/// One page's signature, borrowed from the [`Sketcher`]'s buffers.
#[derive(Debug)]
pub struct Sketch<'a> {
    /// The number of terms the signature was taken over.
    pub tokens: usize,
    /// The share of the page's shingles left out as boilerplate (0 without a filter).
    pub boilerplate: f64,
    /// The minvalues (pre-images), `m` of them.
    pub minvalues: &'a [u64],
    /// The supershingles, `m'` of them.
    pub supershingles: &'a [u64],
    /// The distinct shingle pre-images, each once, in the order of their first occurrence (not
    /// sorted), when the page has at most [`Sketcher::keep_sets_upto`] of them (every page's
    /// by default); empty otherwise.
    pub shingles: &'a [u64],
    /// Number of distinct shingles.
    pub distinct: usize,
    /// Hash of the whole token sequence.
    pub token_hash: u64,
    /// The Alg. C simhash (`simhash_bits / 64` words; empty when not computed).
    pub simhash: &'a [u64],
    /// The raw Random Projection of the bag of words (`rp_dims` values, `π · 2^31` summed;
    /// empty when not computed).
    pub rp: &'a [i64],
}

/// Computes signatures, reusing its buffers from page to page (one per worker thread).
pub struct Sketcher {
    family: Arc<Family>,
    terms: Vec<u64>,
    shingles: Vec<u64>,
    minvalues: Vec<u64>,
    supers: Vec<u64>,
    simhasher: Option<crate::simhash::SimHasher>,
    simhash: Vec<u64>,
    projection: Option<crate::projection::RandomProjection>,
    rp: Vec<i64>,
    kept_tokens: Vec<bool>,
    filtered_terms: Vec<u64>,
    boilerplate: f64,
    /// Pages with more distinct shingles than this have them counted, not kept.
    sets_upto: usize,
    /// Open-addressing table counting distinct shingles (reused).
    table: Vec<u64>,
    /// Scratch for terms rewritten by [`Sketcher::sketch_text`].
    term_scratch: neardup_text::TermScratch,
}

impl Sketcher {
    /// A sketcher for a family.
    pub fn new(family: Arc<Family>) -> Sketcher {
        let m = family.params.m as usize;
        let s = family.params.supershingles as usize;
        let p = &family.params;
        let simhasher =
            (p.simhash_bits > 0).then(|| crate::simhash::SimHasher::new(p.simhash_bits, p.seed));
        let simhash = vec![0; p.simhash_words()];
        let projection =
            (p.rp_dims > 0).then(|| crate::projection::RandomProjection::new(p.rp_dims, p.seed));
        Sketcher {
            projection,
            rp: vec![0; p.rp_dims as usize],
            family,
            terms: Vec::new(),
            shingles: Vec::new(),
            minvalues: vec![0; m],
            supers: vec![0; s],
            simhasher,
            simhash,
            kept_tokens: Vec::new(),
            filtered_terms: Vec::new(),
            boilerplate: 0.0,
            sets_upto: usize::MAX,
            table: Vec::new(),
            term_scratch: neardup_text::TermScratch::default(),
        }
    }

    /// Only pages with at most `n` distinct shingles need their set ([`Sketch::shingles`]);
    /// larger pages' sets are counted and not handed out. Minvalues are the same either way.
    pub fn keep_sets_upto(&mut self, n: usize) {
        self.sets_upto = n;
    }

    /// The family.
    pub fn family(&self) -> &Arc<Family> {
        &self.family
    }

    /// Sketches a token sequence. `None` for a page without terms (it has no shingles and is
    /// never anybody's near-duplicate).
    pub fn sketch<'t>(&mut self, terms: impl Iterator<Item = &'t str>) -> Option<Sketch<'_>> {
        self.sketch_filtered(terms, None)
    }

    /// Like [`Sketcher::sketch`], but shingles for which `boilerplate(pre_image)` is true do not
    /// enter the signature, and a token enters the simhash only when some shingle covering it
    /// is kept. `None` when no shingle is left; [`Sketcher::boilerplate_fraction`] then tells
    /// whether the page was all boilerplate (1.0) or had no terms (0.0).
    pub fn sketch_filtered<'t>(
        &mut self,
        terms: impl Iterator<Item = &'t str>,
        boilerplate: Option<&dyn Fn(u64) -> bool>,
    ) -> Option<Sketch<'_>> {
        let f = &*self.family;
        self.terms.clear();
        self.terms.extend(terms.map(|t| f.term_fingerprint(t)));
        self.signature(boilerplate)
    }

    /// Sketches plain text over every term, as [`Sketcher::sketch`] of its tokenized terms
    /// would ([`Content::Page`](crate::Content::Page): `Tokenizer::text` then
    /// `signature_terms(Scope::Page)`), bit for bit, without tokenizing it into a document
    /// first: the terms of [`neardup_text::text_terms`] are fingerprinted as they are found.
    pub fn sketch_text(&mut self, text: &str) -> Option<Sketch<'_>> {
        let f = &*self.family;
        self.terms.clear();
        let terms = &mut self.terms;
        neardup_text::text_terms(text, &mut self.term_scratch, |t| {
            terms.push(f.term_fingerprint(t))
        });
        self.signature(None)
    }

    /// The signature of the term fingerprints in `self.terms`.
    fn signature(&mut self, boilerplate: Option<&dyn Fn(u64) -> bool>) -> Option<Sketch<'_>> {
        let f = &*self.family;
        self.boilerplate = 0.0;
        if self.terms.is_empty() {
            return None;
        }
        let token_hash = token_sequence_hash(&self.terms);
        shingles(f, &self.terms, &mut self.shingles);
        if let Some(is_bp) = boilerplate {
            // Shingle j covers tokens j .. j + k - 1 (mod n with wrap-around).
            let n = self.terms.len();
            let k = (f.params.k as usize).min(n);
            self.kept_tokens.clear();
            self.kept_tokens.resize(n, false);
            let total = self.shingles.len();
            let mut kept = 0;
            for j in 0..total {
                let s = self.shingles[j];
                if !is_bp(s) {
                    self.shingles[kept] = s;
                    kept += 1;
                    for i in 0..k {
                        self.kept_tokens[(j + i) % n] = true;
                    }
                }
            }
            self.shingles.truncate(kept);
            self.boilerplate = 1.0 - kept as f64 / total as f64;
            if kept == 0 {
                return None;
            }
            self.filtered_terms.clear();
            self.filtered_terms.extend(
                self.terms
                    .iter()
                    .zip(&self.kept_tokens)
                    .filter(|(_, k)| **k)
                    .map(|(t, _)| *t),
            );
        }
        // The shingles are made distinct with a hash table (the min-hash rounds then see each
        // once), not sorted: the one consumer of the set, the corpus, keeps 32 bits of each
        // and sorts those.
        let distinct = distinct_in_place(&mut self.shingles, &mut self.table);
        let kept = distinct <= self.sets_upto;
        minhash(f, &self.shingles, &mut self.minvalues);
        let l = f.params.l as usize;
        for (j, s) in self.supers.iter_mut().enumerate() {
            *s = f.key_fingerprint(&self.minvalues[j * l..(j + 1) * l]);
        }
        let tokens = if boilerplate.is_some() {
            &self.filtered_terms
        } else {
            &self.terms
        };
        if let Some(h) = &mut self.simhasher {
            h.hash(tokens, &mut self.simhash);
        }
        if let Some(rp) = &self.projection {
            rp.project(tokens, &mut self.rp);
        }
        Some(Sketch {
            tokens: self.terms.len(),
            boilerplate: self.boilerplate,
            minvalues: &self.minvalues,
            supershingles: &self.supers,
            shingles: if kept { &self.shingles } else { &[] },
            distinct,
            token_hash,
            simhash: &self.simhash,
            rp: &self.rp,
        })
    }

    /// Share of the last page's shingles that were boilerplate (0 without a filter).
    pub fn boilerplate_fraction(&self) -> f64 {
        self.boilerplate
    }

    /// The distinct shingle pre-images of a token sequence, sorted, into `out` (the first pass
    /// of boilerplate detection).
    pub fn distinct_shingles<'t>(
        &mut self,
        terms: impl Iterator<Item = &'t str>,
        out: &mut Vec<u64>,
    ) {
        let f = &*self.family;
        self.terms.clear();
        self.terms.extend(terms.map(|t| f.term_fingerprint(t)));
        shingles(f, &self.terms, out);
        out.sort_unstable();
        out.dedup();
    }
}

/// Keeps one of each value of `xs` (the first, in order) and returns how many there are, with
/// `table` (reused) as an open-addressing set: a power of two at least twice `xs.len()` slots,
/// 0 marking an empty slot (0 itself is tracked apart).
fn distinct_in_place(xs: &mut Vec<u64>, table: &mut Vec<u64>) -> usize {
    let slots = (xs.len() * 2).next_power_of_two().max(16);
    table.clear();
    table.resize(slots, 0);
    let mask = slots - 1;
    let shift = 64 - slots.trailing_zeros();
    let (mut kept, mut zero) = (0usize, false);
    for j in 0..xs.len() {
        let x = xs[j];
        let new = if x == 0 {
            !std::mem::replace(&mut zero, true)
        } else {
            // Fibonacci hashing: the pre-images are hashes already, this spreads their high
            // bits.
            let mut i = (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize;
            loop {
                let slot = &mut table[i];
                if *slot == x {
                    break false;
                }
                if *slot == 0 {
                    *slot = x;
                    break true;
                }
                i = (i + 1) & mask;
            }
        };
        if new {
            xs[kept] = x;
            kept += 1;
        }
    }
    xs.truncate(kept);
    kept
}

/// XXH3-64 of term fingerprints as little-endian bytes, without copying on little-endian CPUs.
fn token_sequence_hash(terms: &[u64]) -> u64 {
    xxh3_u64s(terms, 0)
}

/// XXH3-64 with `seed` of `xs` as little-endian bytes.
fn xxh3_u64s(xs: &[u64], seed: u64) -> u64 {
    xxh3_le(xs, seed, u64::to_le_bytes)
}

/// XXH3-64 with `seed` of `xs`, each as its `W` bytes `le(x)`. On little-endian CPUs those
/// are the slice's own bytes, hashed where they are (a copy cost a `memcpy` call per band key).
fn xxh3_le<T, const W: usize>(xs: &[T], seed: u64, le: impl Fn(T) -> [u8; W]) -> u64
where
    T: Copy + zerocopy::IntoBytes + zerocopy::Immutable,
{
    if cfg!(target_endian = "little") {
        xxhash_rust::xxh3::xxh3_64_with_seed(zerocopy::IntoBytes::as_bytes(xs), seed)
    } else {
        xxh3_le_copied(xs, seed, le)
    }
}

/// [`xxh3_le`] through a stack buffer of `le(x)` bytes (one call for up to 512 bytes, streamed
/// beyond; the same digest either way): any CPU.
fn xxh3_le_copied<T: Copy, const W: usize>(xs: &[T], seed: u64, le: impl Fn(T) -> [u8; W]) -> u64 {
    let per = 512 / W;
    let mut buf = [0u8; 512];
    let fill = |buf: &mut [u8; 512], chunk: &[T]| {
        for (dst, &x) in buf.chunks_exact_mut(W).zip(chunk) {
            dst.copy_from_slice(&le(x));
        }
        chunk.len() * W
    };
    if xs.len() <= per {
        let n = fill(&mut buf, xs);
        return xxhash_rust::xxh3::xxh3_64_with_seed(&buf[..n], seed);
    }
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(seed);
    for chunk in xs.chunks(per) {
        let n = fill(&mut buf, chunk);
        h.update(&buf[..n]);
    }
    h.digest()
}

/// Shingle pre-images of a sequence of term fingerprints (not deduplicated).
pub fn shingles(f: &Family, terms: &[u64], out: &mut Vec<u64>) {
    out.clear();
    let n = terms.len();
    let k = f.params.k as usize;
    if n == 0 {
        return;
    }
    let count = if f.params.wrap {
        n
    } else {
        n.saturating_sub(k) + 1
    };
    let at = |i: usize| terms[i % n];
    if f.oph.is_some() {
        let fast = &f.fast;
        if !f.params.wrap && n <= k {
            out.push(fast.poly(terms.iter().copied()));
            return;
        }
        let mut h = fast.poly((0..k).map(at));
        out.reserve(count);
        out.push(h);
        let roll = |h: u64, old: u64, new: u64| {
            h.wrapping_sub(old.wrapping_mul(fast.top))
                .wrapping_mul(fast.base)
                .wrapping_add(new)
        };
        // Windows inside the sequence (no index wraps), then those wrapping around.
        for (&old, &new) in terms.iter().zip(&terms[k.min(n)..]) {
            h = roll(h, old, new);
            out.push(h);
        }
        for j in n.saturating_sub(k)..count - 1 {
            h = roll(h, at(j), at(j + k));
            out.push(h);
        }
        return;
    }
    if !f.params.wrap && n <= k {
        // At most one full window: one shingle of all the words.
        out.push(f.shingle.fingerprint_u64s(terms));
        return;
    }
    // The first window directly.
    let mut s = Rabin::START;
    for i in 0..k {
        s = f.shingle.push_u64(s, at(i));
    }
    let mut h = f.shingle.finish(s);
    out.push(h);
    // Then roll. With x' the byte-swapped term value (push_u64 reads 8 little-endian bytes most
    // significant bit first) and c = START t^64(k+1):
    //   H(j)   = c + sum_(i<k) x'_(j+i) t^64(k-i)
    //   H(j+1) = H(j) t^64 + c t^64 + c + x'_j t^64(k+1) + x'_(j+k) t^64      (mod P0, + is xor)
    let constant = f.shingle.shift64(f.start_term) ^ f.start_term;
    for j in 0..count - 1 {
        let old = at(j).swap_bytes();
        let new = at(j + k).swap_bytes();
        h = f.shingle.shift64(h) ^ constant ^ f.drop_oldest.apply(old) ^ f.shingle.shift64(new);
        out.push(h);
    }
}

/// The minvalues of a non-empty set of shingle pre-images (`m` of them) into `out`. Rabin
/// family: for each function, the pre-image with the smallest image, found with carry-less
/// multiplication where the CPU has it and with the tables otherwise (bit-identical), then
/// recovered with the inverse map. One-permutation family: the pre-images of its minvalues
/// ([`Oph::pre_images`], from signature version 9). Either way each minvalue is one of the
/// shingles, so a page's kept set holds its minvalues (a catalog record tells them by place).
pub fn minhash(f: &Family, shingles: &[u64], out: &mut [u64]) {
    if let Some(oph) = &f.oph {
        oph.pre_images(shingles, out);
        return;
    }
    if !crate::clmul::min_images(&f.clmul_consts, shingles, out) {
        for (g, slot) in f.funcs.iter().zip(out.iter_mut()) {
            let mut min = u64::MAX;
            for &x in shingles {
                min = min.min(g.shift64(x));
            }
            *slot = min;
        }
    }
    for (g, slot) in f.funcs.iter().zip(out.iter_mut()) {
        *slot = g.unshift64(*slot);
    }
}

#[cfg(test)]
mod tests;

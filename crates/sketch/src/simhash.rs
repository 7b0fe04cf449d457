//! Alg. C of paper 003 (Charikar's random projection, as communicated to Henzinger): every token
//! is projected to `b` dimensions of +1/-1, the page vector is the sum over its token sequence
//! (so term frequency counts), and bit `j` of the page's simhash is 1 where the sum is positive.
//! C-similarity = number of agreeing bits.
//!
//! Projection (specified, seeded): for a term with Rabin fingerprint `f`, the words
//! `w_0, w_1, ...` of a SplitMix64 stream seeded with `f ^ simhash_seed` give the signs: bit `j`
//! of the projection is bit `j % 64` of `w_(j / 64)`, `+1` when set, `-1` otherwise.

use crate::rabin::SplitMix64;

/// Computes simhashes, reusing its buffers (one per worker thread).
#[derive(Debug)]
pub struct SimHasher {
    bits: usize,
    seed: u64,
    sorted: Vec<u64>,
    sums: Vec<i32>,
}

/// For every byte value, 8 lane masks: -1 (all ones) where the bit is set, 0 where it is not.
/// `sum += (mask & 2c) - c` adds `+c` or `-c` without a branch, 8 lanes at a time.
static MASKS: [[i32; 8]; 256] = {
    let mut t = [[0i32; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut k = 0;
        while k < 8 {
            t[v][k] = if (v >> k) & 1 == 1 { -1 } else { 0 };
            k += 1;
        }
        v += 1;
    }
    t
};

/// Seed mixed into every term fingerprint before projection ("simhash" in ASCII).
pub const SIMHASH_SEED: u64 = 0x7369_6d68_6173_6800;

impl SimHasher {
    /// A hasher of `bits` bits (a multiple of 64), seeded from the signature seed.
    pub fn new(bits: u32, seed: u64) -> SimHasher {
        assert!(
            bits > 0 && bits.is_multiple_of(64),
            "simhash bits must be a positive multiple of 64"
        );
        SimHasher {
            bits: bits as usize,
            seed: seed ^ SIMHASH_SEED,
            sorted: Vec::new(),
            sums: vec![0; bits as usize],
        }
    }

    /// The simhash of a token sequence given as term fingerprints, into `out` (`bits / 64` words,
    /// bit `j` = bit `j % 64` of word `j / 64`).
    pub fn hash(&mut self, terms: &[u64], out: &mut [u64]) {
        debug_assert_eq!(out.len() * 64, self.bits);
        // Equal terms project equally: add each distinct term once, weighted by its count.
        self.sorted.clear();
        self.sorted.extend_from_slice(terms);
        self.sorted.sort_unstable();
        self.sums.iter_mut().for_each(|s| *s = 0);
        let mut i = 0;
        while i < self.sorted.len() {
            let f = self.sorted[i];
            let mut j = i + 1;
            while j < self.sorted.len() && self.sorted[j] == f {
                j += 1;
            }
            // Counts fit: a page has far fewer than 2^31 tokens (records are capped in size).
            let count = (j - i).min(i32::MAX as usize / 2) as i32;
            let twice = 2 * count;
            let mut rng = SplitMix64(f ^ self.seed);
            for chunk in self.sums.chunks_exact_mut(64) {
                let w = rng.next_u64();
                for (byte, lanes) in chunk.chunks_exact_mut(8).enumerate() {
                    let masks = &MASKS[((w >> (8 * byte)) & 0xff) as usize];
                    for (s, &m) in lanes.iter_mut().zip(masks) {
                        // +count where the projection bit is set, -count where it is not.
                        *s = s.saturating_add((m & twice) - count);
                    }
                }
            }
            i = j;
        }
        for (k, word) in out.iter_mut().enumerate() {
            let mut v = 0u64;
            for bit in 0..64 {
                v |= ((self.sums[k * 64 + bit] > 0) as u64) << bit;
            }
            *word = v;
        }
    }
}

/// Number of agreeing bits of two simhashes.
pub fn c_similarity(a: &[u64], b: &[u64]) -> u32 {
    let differing: u32 = a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum();
    (a.len() as u32 * 64) - differing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fps(words: &str) -> Vec<u64> {
        let r = crate::rabin::Rabin::new(crate::rabin::irreducible_polys(1, 1)[0]);
        words
            .split(' ')
            .map(|w| r.fingerprint(w.as_bytes()))
            .collect()
    }

    /// The definition, term by term in sequence order, with 64-bit sums.
    fn reference(terms: &[u64], bits: usize, seed: u64) -> Vec<u64> {
        let mut sums = vec![0i64; bits];
        for &f in terms {
            let mut rng = SplitMix64(f ^ seed ^ SIMHASH_SEED);
            for w in 0..bits / 64 {
                let x = rng.next_u64();
                for b in 0..64 {
                    sums[w * 64 + b] += if (x >> b) & 1 == 1 { 1 } else { -1 };
                }
            }
        }
        (0..bits / 64)
            .map(|w| (0..64).fold(0u64, |v, b| v | ((sums[w * 64 + b] > 0) as u64) << b))
            .collect()
    }

    #[test]
    fn equals_the_definition() {
        let mut rng = SplitMix64(77);
        let mut h = SimHasher::new(256, 5);
        for n in [0usize, 1, 2, 7, 100, 1000] {
            // Few distinct terms, so counts above 1 occur.
            let terms: Vec<u64> = (0..n).map(|_| rng.next_u64() % 50).collect();
            let mut got = [0u64; 4];
            h.hash(&terms, &mut got);
            assert_eq!(got.to_vec(), reference(&terms, 256, 5), "n={n}");
        }
    }

    #[test]
    fn order_free_frequency_sensitive() {
        let mut h = SimHasher::new(384, 9);
        let mut a = [0u64; 6];
        let mut b = [0u64; 6];
        h.hash(&fps("a b c d e f"), &mut a);
        h.hash(&fps("f e d c b a"), &mut b);
        assert_eq!(a, b, "Alg. C ignores order");
        h.hash(&fps("a a a a a a a a a b c d e f"), &mut b);
        assert_ne!(a, b, "term frequency counts");
        assert_eq!(c_similarity(&a, &a), 384);
    }

    #[test]
    fn similar_texts_similar_bits() {
        let mut h = SimHasher::new(384, 9);
        let base: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
        let text = base.join(" ");
        let mut changed = base.clone();
        changed[10] = "other".into();
        changed[200] = "thing".into();
        let (mut a, mut b, mut c) = ([0u64; 6], [0u64; 6], [0u64; 6]);
        h.hash(&fps(&text), &mut a);
        h.hash(&fps(&changed.join(" ")), &mut b);
        let unrelated: Vec<String> = (0..300).map(|i| format!("z{i}")).collect();
        h.hash(&fps(&unrelated.join(" ")), &mut c);
        assert!(c_similarity(&a, &b) > 360, "{}", c_similarity(&a, &b));
        let u = c_similarity(&a, &c);
        assert!(
            (150..=234).contains(&u),
            "unrelated pages agree on about half the bits: {u}"
        );
    }
}

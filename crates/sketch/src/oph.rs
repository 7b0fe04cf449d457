//! One-permutation hashing (Li, Owen and Zhang 2012) densified by re-hashing rounds, the
//! construction of "fast similarity sketching" (Dahlgaard, Knudsen and Thorup 2017): `m`
//! minvalues from one hash evaluation per shingle for pages that fill every bin, and
//! `O(m log m)` evaluations at most for small pages, where the Rabin family ([`crate::rabin`],
//! paper 004) evaluates `m` functions per shingle.
//!
//! Definition (version 5 signatures, [`crate::MinHashFamily::Oph`]), for a page's set of
//! shingle pre-images `S` (the family's shingle fingerprints, see [`crate::Sketcher`]), with
//! `fmix` SplitMix64's output function (`z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
//! z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31`), a bijection of 64-bit values:
//! * keys: `k1, k2` = the first two outputs of SplitMix64 seeded with `seed ^ OPH_DOMAIN`;
//! * round `r` (`r = 0, 1, ..., ROUNDS - 1`) maps `x` to the image `h_r(x) = fmix(x ^ fmix(k2 + r))`
//!   and throws it into bin `b(h) = ⌊(h >> 32) · m / 2^32⌋`;
//! * bin `i`'s value is the smallest image thrown into it in the first round that throws any
//!   (round 0 alone is plain one-permutation hashing);
//! * a bin still empty after `ROUNDS` rounds takes the smallest `fmix(x ^ fmix(k1 + i))` over
//!   `S` (its own independent min-hash);
//! * minvalue `i` = bin `i`'s value, an image ([`Oph::minvalues`], the streaming signature's
//!   digest); a page's signature keeps its pre-image instead, the shingle whose image it is
//!   ([`Oph::pre_images`], version 9 on), as the Rabin family does: equality, all any estimate
//!   uses, is the same either way, and each minvalue is then one of the page's shingles.
//!
//! Why: in every bin the value of `A` equals that of `B` exactly when the smallest image of
//! the first round throwing some element of `A ∪ B` into the bin comes from `A ∩ B`, so each
//! minvalue agrees with probability exactly the Jaccard similarity `J`; the rounds are
//! independent draws, so unlike densification by copying a filled bin (Shrivastava 2017),
//! small pages get no more variance than `m` independent min-hashes (bins of one round are
//! negatively correlated: less). `crates/sketch/tests/estimator.rs` measures both on random
//! and real pages.
//!
//! Cost: a page of `f` distinct shingles fills all bins after about `(m / f) ln m` rounds
//! when `f < m ln m`, so `f` evaluations for large pages and about `m ln m` for small ones;
//! the pre-images are kept in a buffer between rounds.

use crate::rabin::{fmix, fmix_inverse, SplitMix64};
use crate::simd::bin;

/// Mixed into the seed so that the keys differ from the Rabin polynomials' draws.
const OPH_DOMAIN: u64 = 0x4f50_485f_6465_6e73; // "OPH_dens"

/// Random rounds before the remaining empty bins take their own min-hash.
pub const ROUNDS: u64 = 16;

/// The one-permutation family of one parameter set.
#[derive(Clone)]
pub struct Oph {
    m: usize,
    /// `fmix(k2 + r)`: the key of round `r`.
    round_keys: [u64; ROUNDS as usize],
    /// `fmix(k1 + i)`: the key of bin `i`'s own min-hash after the rounds.
    bin_keys: Vec<u64>,
    /// The rounds run eight images at a time (`simd::round`).
    vector: bool,
}

impl std::fmt::Debug for Oph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oph")
            .field("m", &self.m)
            .finish_non_exhaustive()
    }
}

impl Oph {
    /// The family for `m` minvalues (1..=1024) and `seed`.
    pub fn new(m: u32, seed: u64) -> Oph {
        let mut rng = SplitMix64(seed ^ OPH_DOMAIN);
        let k1 = rng.next_u64();
        let k2 = rng.next_u64();
        let mut round_keys = [0; ROUNDS as usize];
        for (r, key) in round_keys.iter_mut().enumerate() {
            *key = fmix(k2.wrapping_add(r as u64));
        }
        let bin_keys = (0..m as u64).map(|i| fmix(k1.wrapping_add(i))).collect();
        Oph {
            m: m as usize,
            round_keys,
            bin_keys,
            vector: crate::simd::has_avx512(),
        }
    }

    /// The number of minvalues.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Whether `other` is the same family (the same `m` and seed).
    pub fn same(&self, other: &Oph) -> bool {
        self.m == other.m && self.round_keys == other.round_keys && self.bin_keys == other.bin_keys
    }

    /// The bin round 0 throws `x` into, and its image there.
    #[inline(always)]
    pub fn round0(&self, x: u64) -> (usize, u64) {
        let h = fmix(x ^ self.round_keys[0]);
        (bin(h, self.m as u64), h)
    }

    /// The image of `x` in round `r`.
    #[inline(always)]
    pub fn image(&self, r: usize, x: u64) -> u64 {
        fmix(x ^ self.round_keys[r])
    }

    /// The minvalues of the shingle pre-images `xs` (any order, repeats allowed) into `out`
    /// (`m` slots). `xs` must not be empty.
    ///
    /// Each bin remembers the round that first threw an image into it; an image of a later
    /// round is masked there (or-ed with all ones, which cannot lower the value), so whether
    /// a bin is open is never a branch, and no pass over the bins is needed between rounds
    /// (the rounds count the bins they fill). The rounds' loop is `simd::round`.
    pub fn minvalues(&self, xs: &[u64], out: &mut [u64]) {
        let mut filled_in = [crate::simd::OPEN; 1024];
        self.fill(xs, out, &mut filled_in[..self.m]);
    }

    /// The pre-images of [`Oph::minvalues`] (version 9 signatures, [`crate::Sketch::minvalues`]):
    /// bin `i` holds the element of `xs` whose image is bin `i`'s value, `fmix^-1(value) ^ key`
    /// with the key of the round that filled the bin (or the bin's own key). Equal exactly when
    /// the minvalues are equal (the images are a bijection of the elements in each bin), and a
    /// page's minvalues are then members of its shingle set. `xs` must not be empty.
    pub fn pre_images(&self, xs: &[u64], out: &mut [u64]) {
        let mut filled_in = [crate::simd::OPEN; 1024];
        let filled_in = &mut filled_in[..self.m];
        self.fill(xs, out, filled_in);
        if xs.is_empty() {
            return;
        }
        for ((v, &r), &own) in out.iter_mut().zip(filled_in.iter()).zip(&self.bin_keys) {
            let key = match self.round_keys.get(usize::from(r)) {
                Some(&key) => key,
                None => own,
            };
            *v = fmix_inverse(*v) ^ key;
        }
    }

    /// [`Oph::minvalues`], each bin's round left in `filled_in` (`m` slots, [`crate::simd::OPEN`]
    /// for a bin of its own min-hash).
    fn fill(&self, xs: &[u64], out: &mut [u64], filled_in: &mut [u8]) {
        debug_assert_eq!(out.len(), self.m);
        out.fill(u64::MAX);
        if xs.is_empty() {
            return;
        }
        let mut count = 0;
        for (r, key) in self.round_keys.iter().enumerate() {
            count += crate::simd::round(self.vector, xs, *key, r as u8, out, filled_in);
            if count == self.m {
                return;
            }
        }
        for (i, v) in out.iter_mut().enumerate() {
            if filled_in[i] == crate::simd::OPEN {
                let key = self.bin_keys[i];
                *v = xs.iter().map(|&x| fmix(x ^ key)).min().unwrap_or(u64::MAX);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, bin by bin.
    fn by_definition(oph: &Oph, xs: &[u64]) -> Vec<u64> {
        let m = oph.m as u64;
        (0..oph.m)
            .map(|i| {
                for r in 0..ROUNDS as usize {
                    let thrown = xs
                        .iter()
                        .map(|&x| oph.image(r, x))
                        .filter(|&h| bin(h, m) == i);
                    if let Some(v) = thrown.min() {
                        return v;
                    }
                }
                xs.iter().map(|&x| fmix(x ^ oph.bin_keys[i])).min().unwrap()
            })
            .collect()
    }

    #[test]
    fn minvalues_follow_the_definition() {
        let mut rng = SplitMix64(11);
        for m in [1u32, 4, 84, 128, 256] {
            let oph = Oph::new(m, rng.next_u64());
            for f in [1usize, 2, 3, 5, 8, 20, 50, 100, 300, 1000, 3000] {
                let xs: Vec<u64> = (0..f).map(|_| rng.next_u64()).collect();
                let mut out = vec![0; m as usize];
                oph.minvalues(&xs, &mut out);
                assert_eq!(out, by_definition(&oph, &xs), "m={m} f={f}");
                // Each bin's pre-image is the element whose image is the bin's value.
                let mut pre = vec![0; m as usize];
                oph.pre_images(&xs, &mut pre);
                for (i, (&x, &v)) in pre.iter().zip(&out).enumerate() {
                    assert!(xs.contains(&x), "m={m} f={f} bin {i}");
                    let own = fmix(x ^ oph.bin_keys[i]);
                    assert!((0..ROUNDS as usize).any(|r| oph.image(r, x) == v) || own == v);
                }
                // Equal where the minvalues of another set (sharing half) are equal.
                let ys: Vec<u64> = xs[..f / 2]
                    .iter()
                    .copied()
                    .chain((0..f / 2).map(|_| rng.next_u64()))
                    .collect();
                if !ys.is_empty() {
                    let (mut b, mut pre_b) = (vec![0; m as usize], vec![0; m as usize]);
                    oph.minvalues(&ys, &mut b);
                    oph.pre_images(&ys, &mut pre_b);
                    for i in 0..m as usize {
                        assert_eq!(out[i] == b[i], pre[i] == pre_b[i], "m={m} f={f} bin {i}");
                    }
                }
                // Order and repeats do not matter.
                let mut ys = xs.clone();
                ys.reverse();
                ys.extend_from_slice(&xs);
                let mut again = vec![0; m as usize];
                oph.minvalues(&ys, &mut again);
                assert_eq!(out, again, "m={m} f={f}");
            }
        }
    }

    #[test]
    fn the_maximal_image_is_a_value_too() {
        // u64::MAX also marks empty bins while the first round runs.
        let oph = Oph::new(1, 3);
        let x = fmix_inverse(u64::MAX) ^ oph.round_keys[0];
        let mut out = vec![0; 1];
        oph.minvalues(&[x], &mut out);
        assert_eq!(out, [u64::MAX]);
        assert_eq!(out, by_definition(&oph, &[x]));
    }

    #[test]
    fn fmix_inverse_inverts() {
        let mut rng = SplitMix64(7);
        for x in (0..1000)
            .map(|_| rng.next_u64())
            .chain([0, 1, u64::MAX, 1 << 63])
        {
            assert_eq!(fmix_inverse(fmix(x)), x);
        }
    }

    #[test]
    fn golden_keys_never_change() {
        // Checked against an independent transcription of the module's definition (Python,
        // arbitrary-precision integers, bench/spec/fast_family.py) when the family was defined.
        let oph = Oph::new(84, crate::DEFAULT_SEED);
        let mut out = vec![0; 84];
        oph.minvalues(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], &mut out);
        assert_eq!(
            format!("{:x} {:x} {:?}", oph.round_keys[0], oph.bin_keys[0], &out[..12]),
            "f9c6295c0dc5a63f 8aac89fd8888b44d [125873901365373180, 255737025981032777, 571009380714798774, 774918692498705896, 1060508786746332624, 1250015836658189142, 1392883298120395585, 1607856097901244235, 1835954408319207108, 1991628198337826588, 2336742556838836399, 2500208118754953047]"
        );
    }
}

//! One-permutation hashing with optimal densification (Li, Owen and Zhang 2012; Shrivastava
//! 2017, "Optimal densification for fast and accurate minwise hashing"): `m` minvalues from one
//! hash evaluation per shingle plus `O(m)` work per page, where the Rabin family
//! ([`crate::rabin`], paper 004) evaluates `m` functions per shingle.
//!
//! Definition (version 4 signatures, [`crate::MinHashFamily::Oph`]), for a page's set of
//! shingle pre-images `S` (the Rabin(P0) shingle fingerprints of [`crate::sketcher`]):
//! * keys: `k1, k2` = the first two outputs of SplitMix64 seeded with `seed ^ OPH_DOMAIN`;
//! * the permutation `π(x) = fmix(x ^ k1)`, where `fmix` is SplitMix64's output function
//!   (`z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
//!   z ^= z >> 31`), a bijection of 64-bit values;
//! * the bin of `x` is `b(x) = ⌊(π(x) >> 32) · m / 2^32⌋`; bin `i`'s value is the smallest
//!   `π(x)` over the `x` in `S` with `b(x) = i`;
//! * an empty bin `i` takes the value of the first non-empty bin `j` of its probe sequence
//!   `j_a = ⌊(fmix(k2 ^ (i << 32 | a)) >> 32) · m / 2^32⌋`, `a = 1, 2, ...` (optimal
//!   densification; after `64 m` probes, the next non-empty bin after `i`, cyclically);
//! * minvalue `i` = `π⁻¹` of bin `i`'s value: the shingle pre-image, as in the Rabin family.
//!
//! Two pages agree on minvalue `i` with probability exactly their Jaccard similarity `J`
//! (Shrivastava 2017, Theorem 1); the variance of the share of agreeing minvalues is at most
//! that of `m` independent min-hashes plus a term that vanishes as the sets outgrow `m`
//! (Theorem 2). `crates/sketch/tests/estimator.rs` measures both on random and real pages.

use crate::rabin::SplitMix64;

/// Mixed into the seed so that the keys differ from the Rabin polynomials' draws.
const OPH_DOMAIN: u64 = 0x4f50_485f_6465_6e73; // "OPH_dens"

const M1: u64 = 0xBF58_476D_1CE4_E5B9;
const M2: u64 = 0x94D0_49BB_1331_11EB;

/// SplitMix64's output function: a bijection of 64-bit values.
#[inline(always)]
pub fn fmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(M1);
    z = (z ^ (z >> 27)).wrapping_mul(M2);
    z ^ (z >> 31)
}

/// The inverse of [`fmix`].
pub fn fmix_inverse(mut z: u64) -> u64 {
    z = unxorshift(z, 31).wrapping_mul(inverse(M2));
    z = unxorshift(z, 27).wrapping_mul(inverse(M1));
    unxorshift(z, 30)
}

/// The `x` with `x ^ (x >> s) = y`.
fn unxorshift(y: u64, s: u32) -> u64 {
    let mut x = y;
    let mut shift = s;
    while shift < 64 {
        x = y ^ (x >> s);
        shift += s;
    }
    x
}

/// The inverse of an odd number modulo 2^64 (Newton's iteration).
const fn inverse(c: u64) -> u64 {
    let mut x = c; // correct to 3 bits
    let mut i = 0;
    while i < 5 {
        x = x.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(x)));
        i += 1;
    }
    x
}

/// `⌊(h >> 32) · m / 2^32⌋`: a bin in `0..m`.
#[inline(always)]
fn bin(h: u64, m: u64) -> usize {
    (((h >> 32) * m) >> 32) as usize
}

/// The one-permutation family of one parameter set.
#[derive(Clone, Debug)]
pub struct Oph {
    m: usize,
    k1: u64,
    k2: u64,
}

impl Oph {
    /// The family for `m` minvalues (1..=1024) and `seed`.
    pub fn new(m: u32, seed: u64) -> Oph {
        let mut rng = SplitMix64(seed ^ OPH_DOMAIN);
        let k1 = rng.next_u64();
        let k2 = rng.next_u64();
        Oph {
            m: m as usize,
            k1,
            k2,
        }
    }

    /// `π(x)`.
    #[inline(always)]
    pub fn permute(&self, x: u64) -> u64 {
        fmix(x ^ self.k1)
    }

    /// `π⁻¹(h)`.
    pub fn unpermute(&self, h: u64) -> u64 {
        fmix_inverse(h) ^ self.k1
    }

    /// The minvalues of the shingle pre-images `xs` (any order, repeats allowed) into `out`
    /// (`m` slots). `xs` must not be empty.
    pub fn minvalues(&self, xs: &[u64], out: &mut [u64]) {
        debug_assert_eq!(out.len(), self.m);
        let m = self.m as u64;
        // Bin values are permuted values; u64::MAX stands for "empty" until the loop is done.
        out.fill(u64::MAX);
        for &x in xs {
            let h = self.permute(x);
            let v = &mut out[bin(h, m)];
            *v = (*v).min(h);
        }
        if out.contains(&u64::MAX) && !xs.is_empty() {
            // Some bin is empty, or holds the one x whose image is u64::MAX (bin m - 1).
            let mut filled = [0u64; 16]; // bit i: bin i has a value (m <= 1024)
            for (b, &v) in out.iter().enumerate() {
                if v != u64::MAX {
                    filled[b >> 6] |= 1 << (b & 63);
                }
            }
            if xs.contains(&self.unpermute(u64::MAX)) {
                let b = self.m - 1;
                filled[b >> 6] |= 1 << (b & 63);
            }
            let is_filled = |b: usize| filled[b >> 6] >> (b & 63) & 1 != 0;
            for i in 0..self.m {
                if is_filled(i) {
                    continue;
                }
                out[i] = out[self.donor(i, &is_filled)];
            }
        }
        for v in out.iter_mut() {
            *v = self.unpermute(*v);
        }
    }

    /// The non-empty bin that empty bin `i` copies (optimal densification).
    fn donor(&self, i: usize, is_filled: &impl Fn(usize) -> bool) -> usize {
        let m = self.m as u64;
        for a in 1..=64 * m {
            let j = bin(fmix(self.k2 ^ ((i as u64) << 32 | a)), m);
            if is_filled(j) {
                return j;
            }
        }
        (1..self.m)
            .map(|d| (i + d) % self.m)
            .find(|&j| is_filled(j))
            .unwrap_or(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmix_inverts() {
        let mut rng = SplitMix64(7);
        for _ in 0..10_000 {
            let x = rng.next_u64();
            assert_eq!(fmix_inverse(fmix(x)), x);
        }
        for x in [0, 1, u64::MAX, 1 << 63] {
            assert_eq!(fmix_inverse(fmix(x)), x);
        }
        assert_eq!(inverse(M1).wrapping_mul(M1), 1);
    }

    #[test]
    fn minvalues_are_members_and_bin_minima() {
        let oph = Oph::new(64, 42);
        let xs: Vec<u64> = (1..5000u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let mut out = vec![0; 64];
        oph.minvalues(&xs, &mut out);
        for (i, &v) in out.iter().enumerate() {
            assert!(xs.contains(&v));
            let want = xs
                .iter()
                .map(|&x| oph.permute(x))
                .filter(|&h| bin(h, 64) == i)
                .min()
                .unwrap();
            assert_eq!(oph.permute(v), want, "bin {i}");
        }
    }

    #[test]
    fn small_sets_are_densified_from_their_own_members() {
        let oph = Oph::new(128, 1);
        for n in 1..20u64 {
            let xs: Vec<u64> = (0..n).map(|i| i * 1_000_003 + 17).collect();
            let mut out = vec![0; 128];
            oph.minvalues(&xs, &mut out);
            assert!(out.iter().all(|v| xs.contains(v)), "n={n}");
            // Order and repeats do not matter.
            let mut ys = xs.clone();
            ys.reverse();
            ys.extend_from_slice(&xs);
            let mut again = vec![0; 128];
            oph.minvalues(&ys, &mut again);
            assert_eq!(out, again);
        }
        // One shingle: every minvalue is that shingle.
        let mut out = vec![0; 128];
        oph.minvalues(&[5], &mut out);
        assert!(out.iter().all(|&v| v == 5));
    }

    #[test]
    fn the_maximal_image_is_a_value_too() {
        let oph = Oph::new(8, 3);
        let x = oph.unpermute(u64::MAX);
        let mut out = vec![0; 8];
        oph.minvalues(&[x], &mut out);
        assert!(out.iter().all(|&v| v == x));
    }

    #[test]
    fn golden_keys_never_change() {
        // Checked against an independent transcription of the module's definition (Python,
        // arbitrary-precision integers) when the family was introduced.
        let oph = Oph::new(84, crate::DEFAULT_SEED);
        let mut out = vec![0; 84];
        oph.minvalues(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], &mut out);
        assert_eq!(
            format!("{:x} {:x} {:?}", oph.k1, oph.k2, &out[..12]),
            "ee3579ae871bb1b6 990380b7db26ee90 [4, 9, 7, 8, 6, 10, 9, 8, 1, 6, 2, 9]"
        );
    }
}

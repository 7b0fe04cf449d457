//! One-permutation hashing with optimal densification (Li, Owen and Zhang 2012; Shrivastava
//! 2017, "Optimal densification for fast and accurate minwise hashing"): `m` minvalues from one
//! hash evaluation per shingle plus `O(m)` work per page, where the Rabin family
//! ([`crate::rabin`], paper 004) evaluates `m` functions per shingle.
//!
//! Definition (version 4 signatures, [`crate::MinHashFamily::Oph`]), for a page's set of
//! shingle pre-images `S` (the family's shingle fingerprints, see [`crate::Sketcher`]):
//! * keys: `k1, k2` = the first two outputs of SplitMix64 seeded with `seed ^ OPH_DOMAIN`;
//! * the permutation `π(x) = fmix(x ^ k1)`, where `fmix` is SplitMix64's output function
//!   (`z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
//!   z ^= z >> 31`), a bijection of 64-bit values;
//! * the bin of `x` is `b(x) = ⌊(π(x) >> 32) · m / 2^32⌋`; bin `i`'s value is the smallest
//!   `π(x)` over the `x` in `S` with `b(x) = i`;
//! * an empty bin `i` takes the value of the first non-empty bin `j` of its probe sequence
//!   `j_a = ⌊(fmix(k2 ^ (i << 32 | a)) >> 32) · m / 2^32⌋`, `a = 1, 2, ...` (optimal
//!   densification; after `16 m` probes, the next non-empty bin after `i`, cyclically);
//! * minvalue `i` = bin `i`'s value (an image under `π`, where the Rabin family keeps the
//!   pre-image: equality, all any estimate uses, is the same either way).
//!
//! Densification is computed two ways with the same result: by probing (expected `m / f`
//! probes per empty bin when `f` bins are filled), or, for pages filling fewer than `√m` bins,
//! as the filled bin that comes first in the empty bin's probe sequence, from a table of each
//! sequence's first visit to every bin (`O(f)` per empty bin instead of `O(m / f)`).
//!
//! Two pages agree on minvalue `i` with probability exactly their Jaccard similarity `J`
//! (Shrivastava 2017, Theorem 1); the variance of the share of agreeing minvalues is at most
//! that of `m` independent min-hashes plus a term that vanishes as the sets outgrow `m`
//! (Theorem 2). `crates/sketch/tests/estimator.rs` measures both on random and real pages.

use crate::rabin::{fmix, SplitMix64, FMIX_M1 as M1, FMIX_M2 as M2};

/// Mixed into the seed so that the keys differ from the Rabin polynomials' draws.
const OPH_DOMAIN: u64 = 0x4f50_485f_6465_6e73; // "OPH_dens"

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

/// Attempt `a` of bin `i`'s probe sequence.
#[inline(always)]
fn probe(k2: u64, i: usize, a: u64, m: u64) -> usize {
    bin(fmix(k2 ^ ((i as u64) << 32 | a)), m)
}

/// `⌊(h >> 32) · m / 2^32⌋`: a bin in `0..m`.
#[inline(always)]
fn bin(h: u64, m: u64) -> usize {
    (((h >> 32) * m) >> 32) as usize
}

/// The one-permutation family of one parameter set.
#[derive(Clone)]
pub struct Oph {
    m: usize,
    k1: u64,
    k2: u64,
    /// `first[i * m + j]`: the attempt at which bin `i`'s probe sequence first visits bin `j`
    /// (`u16::MAX` when not within `16 m` attempts).
    first: Vec<u16>,
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
        let mu = m as usize;
        let mut first = vec![u16::MAX; mu * mu];
        for i in 0..mu {
            let row = &mut first[i * mu..(i + 1) * mu];
            let mut seen = 0;
            // 16 m <= 16384 attempts: u16 holds them.
            for a in 1..=16 * m as u64 {
                let j = probe(k2, i, a, m as u64);
                if row[j] == u16::MAX {
                    row[j] = a as u16;
                    seen += 1;
                    if seen == mu {
                        break;
                    }
                }
            }
        }
        Oph {
            m: mu,
            k1,
            k2,
            first,
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
            let count: usize = filled.iter().map(|w| w.count_ones() as usize).sum();
            if count * count < self.m {
                // Few filled bins: the one each empty bin's sequence visits first.
                let mut full = [0u16; 32]; // count < √m <= 32
                let mut n = 0;
                for b in (0..self.m).filter(|&b| is_filled(b)) {
                    full[n] = b as u16;
                    n += 1;
                }
                for i in 0..self.m {
                    if !is_filled(i) {
                        out[i] = out[self.first_visited(i, &full[..n])];
                    }
                }
            } else {
                for i in 0..self.m {
                    if !is_filled(i) {
                        out[i] = out[self.donor(i, &is_filled)];
                    }
                }
            }
        }
    }

    /// The non-empty bin that empty bin `i` copies (optimal densification), by probing.
    fn donor(&self, i: usize, is_filled: &impl Fn(usize) -> bool) -> usize {
        let m = self.m as u64;
        for a in 1..=16 * m {
            let j = probe(self.k2, i, a, m);
            if is_filled(j) {
                return j;
            }
        }
        self.cyclic(i, is_filled)
    }

    /// The same bin from the table of first visits, given the filled bins.
    fn first_visited(&self, i: usize, full: &[u16]) -> usize {
        let row = &self.first[i * self.m..(i + 1) * self.m];
        let best = full.iter().map(|&j| j as usize).min_by_key(|&j| row[j]);
        match best {
            Some(j) if row[j] != u16::MAX => j,
            _ => self.cyclic(i, &|b| full.contains(&(b as u16))),
        }
    }

    /// After `16 m` probes: the next filled bin after `i`, cyclically.
    fn cyclic(&self, i: usize, is_filled: &dyn Fn(usize) -> bool) -> usize {
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
            let want = xs
                .iter()
                .map(|&x| oph.permute(x))
                .filter(|&h| bin(h, 64) == i)
                .min()
                .unwrap();
            assert_eq!(v, want, "bin {i}");
        }
    }

    #[test]
    fn small_sets_are_densified_from_their_own_members() {
        let oph = Oph::new(128, 1);
        for n in 1..20u64 {
            let xs: Vec<u64> = (0..n).map(|i| i * 1_000_003 + 17).collect();
            let mut out = vec![0; 128];
            oph.minvalues(&xs, &mut out);
            let images: Vec<u64> = xs.iter().map(|&x| oph.permute(x)).collect();
            assert!(out.iter().all(|v| images.contains(v)), "n={n}");
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
        assert!(out.iter().all(|&v| v == oph.permute(5)));
    }

    #[test]
    fn the_maximal_image_is_a_value_too() {
        let oph = Oph::new(8, 3);
        let x = oph.unpermute(u64::MAX);
        let mut out = vec![0; 8];
        oph.minvalues(&[x], &mut out);
        assert!(out.iter().all(|&v| v == u64::MAX));
    }

    #[test]
    fn the_table_densifies_like_probing() {
        for m in [4u32, 16, 84, 128, 256] {
            let oph = Oph::new(m, 99);
            let mut rng = SplitMix64(m as u64);
            for f in 1..=(m as usize).min(40) {
                let filled: Vec<usize> = {
                    let mut v: Vec<usize> = (0..m as usize).collect();
                    for i in 0..f {
                        let j = i + (rng.next_u64() % (m as u64 - i as u64)) as usize;
                        v.swap(i, j);
                    }
                    v.truncate(f);
                    v
                };
                let full: Vec<u16> = filled.iter().map(|&b| b as u16).collect();
                let is = |b: usize| filled.contains(&b);
                for i in (0..m as usize).filter(|&i| !is(i)) {
                    assert_eq!(
                        oph.donor(i, &is),
                        oph.first_visited(i, &full),
                        "m={m} f={f} i={i}"
                    );
                }
            }
        }
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
            "ee3579ae871bb1b6 990380b7db26ee90 [11891183611211546928, 11786342656408450410, 6114553440191065537, 6379669493555827720, 11488839057934334386, 12237160742270342613, 11786342656408450410, 6379669493555827720, 4839529807715276426, 11488839057934334386, 10854422122169164018, 11786342656408450410]"
        );
    }
}

//! datasketch's MinHash, value for value: what `neardup.datasketch.MinHash` computes, so that a
//! signature made by datasketch and one made by neardup from the same elements are equal
//! (pickles, `LeanMinHash` bytes and LSH indexes mix freely), only faster.
//!
//! datasketch 2 has three permutation [`Scheme`]s. An element is hashed to an integer `x` (by
//! default [`sha1_hash32`], the first four bytes of its SHA-1 read little-endian; for
//! `affine64` [`sha1_hash64`], the first eight), then each of the `k` permutations
//! `(a_i, b_i)` maps it to
//!
//! ```text
//! legacy:    h_i(x) = ((a_i * x + b_i) mod 2^64) mod (2^61 - 1)  &  (2^32 - 1)
//! affine32:  h_i(x) = (a_i * fmix32(x) + b_i) mod 2^32
//! affine64:  h_i(x) = (a_i * fmix64(x) + b_i) mod 2^64
//! ```
//!
//! (legacy's products wrap at 64 bits, as numpy's `uint64` arithmetic does; `fmix` is
//! MurmurHash3's finalizer, a bijection, applied once per element; the affine `a_i` are odd, so
//! each permutation is a bijection too). The signature keeps the least `h_i` per permutation;
//! an empty signature holds [`Scheme::empty`] everywhere. The permutations themselves are drawn
//! by numpy's `RandomState(seed)`, which the Python side does; here they are two slices.
//!
//! This is `k` multiplications per element, where neardup's own signatures
//! ([`crate::oph`]) need one hash per element: the price of datasketch's exact values. The
//! loops over permutations have no branch, so they vectorize.

/// The Mersenne prime 2^61 - 1 (datasketch's `_mersenne_prime`).
pub const MERSENNE_61: u64 = (1 << 61) - 1;

/// The largest hash value, and every value of an empty signature (datasketch's `_max_hash`).
pub const MAX_HASH: u64 = (1 << 32) - 1;

/// datasketch's default element hash: the first 4 bytes of the SHA-1 of `data`, read as a
/// little-endian unsigned integer.
pub fn sha1_hash32(data: &[u8]) -> u32 {
    use sha1::Digest;
    let d = sha1::Sha1::digest(data);
    u32::from_le_bytes([d[0], d[1], d[2], d[3]])
}

/// `x mod (2^61 - 1)` for any 64-bit `x`, without a division.
#[inline(always)]
fn mod_mersenne(x: u64) -> u64 {
    // x = hi * 2^61 + lo, and 2^61 = 1 (mod p): x = hi + lo (mod p), with hi + lo < 2p.
    let y = (x & MERSENNE_61) + (x >> 61);
    if y >= MERSENNE_61 {
        y - MERSENNE_61
    } else {
        y
    }
}

/// datasketch 2's permutation schemes (its `MinHash(scheme=...)`); values of one scheme are
/// never compared with another's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// The only scheme before datasketch 2.0: modulo the Mersenne prime, cut to 32 bits.
    Legacy,
    /// datasketch 2's default: 32-bit affine maps after a 32-bit premix.
    Affine32,
    /// 64-bit affine maps after a 64-bit premix, for sets of hundreds of millions.
    Affine64,
}

impl Scheme {
    /// The scheme of datasketch's name (`"legacy"`, `"affine32"`, `"affine64"`).
    pub fn from_name(name: &str) -> Option<Scheme> {
        match name {
            "legacy" => Some(Scheme::Legacy),
            "affine32" => Some(Scheme::Affine32),
            "affine64" => Some(Scheme::Affine64),
            _ => None,
        }
    }

    /// The largest value, and every value of an empty signature.
    pub fn empty(self) -> u64 {
        match self {
            Scheme::Legacy | Scheme::Affine32 => MAX_HASH,
            Scheme::Affine64 => u64::MAX,
        }
    }

    /// The largest element hash the scheme takes (`None`: any 64-bit one, legacy's products
    /// wrapping as numpy's do).
    pub fn max_input(self) -> Option<u64> {
        match self {
            Scheme::Affine32 => Some(MAX_HASH),
            Scheme::Legacy | Scheme::Affine64 => None,
        }
    }

    /// The default element hash of the scheme, of `data`.
    pub fn hash_bytes(self, data: &[u8]) -> u64 {
        match self {
            Scheme::Affine64 => sha1_hash64(data),
            Scheme::Legacy | Scheme::Affine32 => sha1_hash32(data).into(),
        }
    }

    /// Lowers `values` to the permuted hashes of every `x` in `xs` where those are less (one
    /// entry per permutation in each slice; the shortest decides). An affine32 `x` is taken
    /// mod 2^32 (callers refuse larger ones, as datasketch does).
    pub fn update_many(self, values: &mut [u64], a: &[u64], b: &[u64], xs: &[u64]) {
        let (mask, premix): (u64, fn(u64) -> u64) = match self {
            Scheme::Legacy => return update_many(values, a, b, xs),
            Scheme::Affine32 => (MAX_HASH, |x| u64::from(fmix32(x as u32))),
            Scheme::Affine64 => (u64::MAX, fmix64),
        };
        // The hashes premixed a block at a time (on the stack), then every permutation takes
        // the block: eight at a time with AVX-512, the rest by the scalar loop.
        let vector = crate::simd::has_avx512_dq();
        let mut ms = [0u64; 256];
        for block in xs.chunks(ms.len()) {
            let ms = &mut ms[..block.len()];
            for (m, &x) in ms.iter_mut().zip(block) {
                *m = premix(x);
            }
            let done = crate::simd::permute_min(vector, values, a, b, ms, None, mask);
            let (values, a, b) = (&mut values[done..], &a[done..], &b[done..]);
            for ((v, &a), &b) in values.iter_mut().zip(a).zip(b) {
                let least = ms
                    .iter()
                    .map(|&m| a.wrapping_mul(m).wrapping_add(b) & mask)
                    .min();
                *v = least.map_or(*v, |l| (*v).min(l));
            }
        }
    }
}

/// MurmurHash3's 32-bit finalizer (datasketch 2's premix for affine32): a bijection.
#[inline(always)]
pub fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3's 64-bit finalizer (datasketch 2's premix for affine64): a bijection.
#[inline(always)]
pub fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// datasketch's `sha1_hash64` (affine64's default element hash): the first 8 bytes of the
/// SHA-1 of `data`, little-endian.
pub fn sha1_hash64(data: &[u8]) -> u64 {
    use sha1::Digest;
    let d = sha1::Sha1::digest(data);
    u64::from_le_bytes(d[..8].try_into().expect("a SHA-1 has 20 bytes"))
}

/// One legacy permutation applied to hash `x` (the formula above).
#[inline(always)]
pub fn permuted(a: u64, b: u64, x: u64) -> u64 {
    mod_mersenne(a.wrapping_mul(x).wrapping_add(b)) & MAX_HASH
}

/// Lowers `values` to the permuted hashes of `x` where those are less. The three slices have
/// one entry per permutation (the shortest decides).
pub fn update(values: &mut [u64], a: &[u64], b: &[u64], x: u64) {
    for ((v, &a), &b) in values.iter_mut().zip(a).zip(b) {
        *v = (*v).min(permuted(a, b, x));
    }
}

/// [`update`] for several hashes: the permutations eight at a time with AVX-512 where the
/// CPU has it (`simd::permute_min`, the same values), the rest by [`update`].
pub fn update_many(values: &mut [u64], a: &[u64], b: &[u64], xs: &[u64]) {
    let done = crate::simd::permute_min(
        crate::simd::has_avx512_dq(),
        values,
        a,
        b,
        xs,
        Some(MERSENNE_61),
        MAX_HASH,
    );
    let (values, a, b) = (&mut values[done..], &a[done..], &b[done..]);
    for &x in xs {
        update(values, a, b, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector permutations give the scalar loop's values on every length around the
    /// vector width, with multipliers and hashes at the edges of their ranges.
    #[test]
    fn vector_permutations_are_the_scalar_ones() {
        use crate::simd::{has_avx512_dq, permute_min};
        if !has_avx512_dq() {
            return;
        }
        let mut rng = crate::rabin::SplitMix64(9);
        for k in [0usize, 1, 7, 8, 9, 16, 128, 130] {
            let a: Vec<u64> = (0..k)
                .map(|i| [1, MERSENNE_61 - 1, rng.next_u64() % MERSENNE_61][i % 3])
                .collect();
            let b: Vec<u64> = (0..k)
                .map(|i| [0, MERSENNE_61 - 1, rng.next_u64() % MERSENNE_61][i % 3])
                .collect();
            let xs: Vec<u64> = (0..50)
                .map(|i| [0, u64::from(u32::MAX), rng.next_u64() >> 32, u64::MAX][i % 4])
                .collect();
            let mut v = vec![MAX_HASH; k];
            let done = permute_min(true, &mut v, &a, &b, &xs, Some(MERSENNE_61), MAX_HASH);
            assert_eq!(done, k / 8 * 8);
            for i in 0..done {
                let want = xs.iter().map(|&x| permuted(a[i], b[i], x)).min().unwrap();
                assert_eq!(v[i], want.min(MAX_HASH), "k={k} i={i}");
            }
        }
    }

    /// Both paths give the same values, rounds and counts, on every length around the vector
    /// width, with bins open, filled in this round and filled earlier.
    #[test]
    fn mersenne_reduction_equals_the_remainder() {
        for x in [
            0,
            1,
            MERSENNE_61 - 1,
            MERSENNE_61,
            MERSENNE_61 + 1,
            2 * MERSENNE_61,
            2 * MERSENNE_61 + 5,
            u64::MAX,
            u64::MAX - 7,
            0x1234_5678_9abc_def0,
        ] {
            assert_eq!(mod_mersenne(x), x % MERSENNE_61, "{x}");
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            assert_eq!(mod_mersenne(s), s % MERSENNE_61);
        }
    }

    #[test]
    fn sha1_hash32_is_datasketchs() {
        // struct.unpack('<I', hashlib.sha1(b"Hello").digest()[:4])[0]
        assert_eq!(sha1_hash32(b"Hello"), 0x8b9e_fff7);
        assert_eq!(
            sha1_hash32(b""),
            u32::from_le_bytes([0xda, 0x39, 0xa3, 0xee])
        );
    }

    #[test]
    fn update_keeps_the_least_value_per_permutation() {
        let (a, b) = ([3u64, 1 << 60, u64::MAX >> 3], [7u64, 0, MERSENNE_61 - 1]);
        let mut v = [MAX_HASH; 3];
        update_many(&mut v, &a, &b, &[5, 1 << 31, 12]);
        for i in 0..3 {
            let want = [5u64, 1 << 31, 12]
                .iter()
                .map(|&x| (u128::from(a[i]) * u128::from(x) + u128::from(b[i])) as u64)
                .map(|y| (y % MERSENNE_61) & MAX_HASH)
                .min()
                .unwrap();
            assert_eq!(v[i], want);
        }
    }

    /// MurmurHash3's finalizers and sha1_hash64 give datasketch 2.0's `_fmix` and
    /// `sha1_hash64` values (printed by datasketch 2.0.0 itself).
    #[test]
    fn premix_and_sha1_hash64_are_datasketchs() {
        let got: Vec<u32> = [0, 1, 0xdead_beef, u32::MAX].map(fmix32).to_vec();
        assert_eq!(got, [0, 1364076727, 233162409, 2180083513]);
        let got: Vec<u64> = [0, 1, 0xdead_beef_cafe_babe, u64::MAX].map(fmix64).to_vec();
        assert_eq!(
            got,
            [
                0,
                12994781566227106604,
                8107210848246744204,
                7256831767414464289
            ]
        );
        assert_eq!(sha1_hash64(b"Hello"), 11232173714355191799);
    }

    /// `MinHash(4, 1, scheme=...)` updated with b"Hello" in datasketch 2.0.0: its permutations
    /// and values.
    #[test]
    fn affine_values_are_datasketchs() {
        let (a, b) = (
            [3582191691u64, 4270784983, 1892572953, 3715639441],
            [491263u64, 550290313, 1298508491, 4290846341],
        );
        let mut v = [Scheme::Affine32.empty(); 4];
        let x = Scheme::Affine32.hash_bytes(b"Hello");
        Scheme::Affine32.update_many(&mut v, &a, &b, &[x]);
        assert_eq!(v, [3231258861, 1388533999, 831950533, 1845606703]);
        let (a, b) = (
            [
                15385396165118722519u64,
                8128538942144784529,
                4219918138050323,
                11154103013428313355,
            ],
            [
                2707168392203228096u64,
                1703346441743126657,
                3435894450290564679,
                6374470260350024188,
            ],
        );
        let mut v = [Scheme::Affine64.empty(); 4];
        let x = Scheme::Affine64.hash_bytes(b"Hello");
        Scheme::Affine64.update_many(&mut v, &a, &b, &[x]);
        assert_eq!(
            v,
            [
                17263807126536662982,
                6203611050164820875,
                4141308390362884389,
                4915270424612038026
            ]
        );
        // More elements only lower values, each to the least of the single-element ones.
        let xs = [1u64, 2, 3, x];
        let mut all = [Scheme::Affine64.empty(); 4];
        Scheme::Affine64.update_many(&mut all, &a, &b, &xs);
        for (i, &got) in all.iter().enumerate() {
            let least = xs
                .iter()
                .map(|&x| a[i].wrapping_mul(fmix64(x)).wrapping_add(b[i]))
                .min()
                .unwrap();
            assert_eq!(got, least);
        }
    }

    /// The affine vector path gives the scalar loop's values on every length around the
    /// vector width, with hashes and multipliers at the edges of their ranges.
    #[test]
    fn affine_vector_path_is_the_scalar_one() {
        use crate::simd::{has_avx512_dq, permute_min};
        if !has_avx512_dq() {
            return;
        }
        let mut rng = crate::rabin::SplitMix64(3);
        for k in [1usize, 7, 8, 9, 16, 130] {
            let a: Vec<u64> = (0..k)
                .map(|i| [1, u64::MAX, rng.next_u64() | 1][i % 3])
                .collect();
            let b: Vec<u64> = (0..k)
                .map(|i| [0, u64::MAX, rng.next_u64()][i % 3])
                .collect();
            let ms: Vec<u64> = (0..40)
                .map(|i| [0, u64::MAX, rng.next_u64()][i % 3])
                .collect();
            for mask in [MAX_HASH, u64::MAX] {
                let mut v = vec![u64::MAX; k];
                let done = permute_min(true, &mut v, &a, &b, &ms, None, mask);
                assert_eq!(done, k / 8 * 8);
                for i in 0..done {
                    let want = ms
                        .iter()
                        .map(|&m| a[i].wrapping_mul(m).wrapping_add(b[i]) & mask)
                        .min()
                        .unwrap();
                    assert_eq!(v[i], want, "k={k} i={i}");
                }
            }
        }
    }
}

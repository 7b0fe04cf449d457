//! datasketch's MinHash, value for value: what `neardup.datasketch.MinHash` computes, so that a
//! signature made by datasketch and one made by neardup from the same elements are equal
//! (pickles, `LeanMinHash` bytes and LSH indexes mix freely), only faster.
//!
//! An element is hashed to an integer `x` (by default [`sha1_hash32`], datasketch's
//! `sha1_hash32`: the first four bytes of its SHA-1, little-endian), then each of the `k`
//! permutations `(a_i, b_i)` maps it to
//!
//! ```text
//! h_i(x) = ((a_i * x + b_i) mod 2^64) mod (2^61 - 1)  &  (2^32 - 1)
//! ```
//!
//! (the products wrap at 64 bits, as numpy's `uint64` arithmetic does), and the signature keeps
//! the least `h_i` per permutation; an empty signature holds [`MAX_HASH`] everywhere. The
//! permutations themselves are drawn by numpy's `RandomState(seed)`, which the Python side
//! does; here they are two slices.
//!
//! This is `k` multiplications per element, where neardup's own signatures
//! ([`crate::oph`]) need one hash per element: the price of datasketch's exact values. The
//! loop over permutations has no branch, so it vectorizes.

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

/// One permutation applied to hash `x` (the formula above).
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
        MERSENNE_61,
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
            let done = permute_min(true, &mut v, &a, &b, &xs, MERSENNE_61, MAX_HASH);
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
}

//! Vector kernels of the one-permutation family ([`crate::oph`]): one round's images and bins
//! eight shingles at a time with AVX-512 (64-bit multiplies and byte compares: `avx512f`,
//! `avx512dq`, `avx512bw`), detected
//! at run time. The scalar loop in `oph` is the specification; the kernel computes the same
//! images, bins and minimums (tested bit-identical on every length and both paths).
//!
//! With `clmul`, the only module of the libraries with `unsafe`: the intrinsics, called after
//! runtime detection.

/// Whether this CPU runs [`round`]'s vector path.
pub fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx512_dq() && std::arch::is_x86_feature_detected!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU runs [`permute_min`]'s vector path (`avx512f` and `avx512dq`).
pub fn has_avx512_dq() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `⌊(h >> 32) · m / 2^32⌋`: a bin in `0..m`.
#[inline(always)]
pub(crate) fn bin(h: u64, m: u64) -> usize {
    (((h >> 32) * m) >> 32) as usize
}

/// A bin no round has thrown an image into yet.
pub const OPEN: u8 = u8::MAX;

/// Round `r` of [`crate::oph::Oph::minvalues`] over `xs`: each image `h = fmix(x ^ key)` lowers
/// the value of its bin `⌊(h >> 32) · m / 2^32⌋` unless `filled_in` says an earlier round threw
/// an image there, and the bin's round becomes `r` if it was [`OPEN`]. Returns the number of
/// bins this round filled. With `vector` (only when [`has_avx512`] said so), eight images at
/// a time; the scalar loop otherwise and for the tail.
#[inline]
pub fn round(
    vector: bool,
    xs: &[u64],
    key: u64,
    r: u8,
    out: &mut [u64],
    filled_in: &mut [u8],
) -> usize {
    let mut rest = xs;
    let mut count = 0;
    #[cfg(target_arch = "x86_64")]
    if vector {
        let whole = xs.len() / 8 * 8;
        // SAFETY: `vector` is true only when `has_avx512` detected the features.
        #[allow(unsafe_code)]
        {
            count = unsafe { x86::round_avx512(&xs[..whole], key, r, out, filled_in) };
        }
        rest = &xs[whole..];
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = vector;
    count + scalar(rest, key, r, out, filled_in)
}

/// One image `h` of round `r` into its bin `b`; 1 when it fills the bin.
#[inline(always)]
fn throw(h: u64, b: usize, r: u8, out: &mut [u64], filled_in: &mut [u8]) -> usize {
    let f = filled_in[b];
    let earlier = u64::from(f < r).wrapping_neg();
    let v = &mut out[b];
    *v = (*v).min(h | earlier);
    filled_in[b] = f.min(r);
    usize::from(f == OPEN)
}

/// The round, one image at a time (images 32 at a time first, independent multiplications the
/// CPU overlaps, then their bins).
fn scalar(xs: &[u64], key: u64, r: u8, out: &mut [u64], filled_in: &mut [u8]) -> usize {
    let m = out.len() as u64;
    let mut hs = [0u64; 32];
    let mut count = 0;
    for chunk in xs.chunks(32) {
        for (h, &x) in hs.iter_mut().zip(chunk) {
            *h = crate::rabin::fmix(x ^ key);
        }
        for &h in &hs[..chunk.len()] {
            count += throw(h, bin(h, m), r, out, filled_in);
        }
    }
    count
}

/// datasketch's permutations eight at a time with AVX-512 (`avx512f`, `avx512dq`: 64-bit
/// multiplies and unsigned minimums) when [`has_avx512_dq`] said so (`vector`): returns how
/// many leading permutations (a multiple of 8) it updated; the caller does the rest with the
/// scalar loop, which is the specification.
///
/// Each value becomes `min(v, (y(a x + b)) & mask)` over the hashes `x`, the products wrapping
/// at 64 bits: with `prime` (legacy, `permutation::update_many`) `y` is the remainder by it, a
/// Mersenne prime `2^61 - 1` (the reduction relies on it); without (the affine schemes,
/// `permutation::Scheme::update_many`, `x` premixed) `y` is the identity.
#[inline]
pub fn permute_min(
    vector: bool,
    values: &mut [u64],
    a: &[u64],
    b: &[u64],
    xs: &[u64],
    prime: Option<u64>,
    mask: u64,
) -> usize {
    let whole = values.len().min(a.len()).min(b.len()) / 8 * 8;
    #[cfg(target_arch = "x86_64")]
    if vector && whole > 0 {
        let (v, a, b) = (&mut values[..whole], &a[..whole], &b[..whole]);
        // SAFETY: `vector` is true only when `has_avx512_dq` detected the features.
        #[allow(unsafe_code)]
        unsafe {
            match prime {
                Some(p) => x86::min_of_maps::<true>(v, a, b, xs, p, mask),
                None => x86::min_of_maps::<false>(v, a, b, xs, 0, mask),
            }
        }
        return whole;
    }
    let _ = (vector, values, a, b, xs, whole, prime, mask);
    0
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use crate::rabin::{FMIX_M1, FMIX_M2};
    use std::arch::x86_64::*;

    /// [`super::permute_min`], with a prime (`MERSENNE`) or without: for each vector of eight
    /// permutations, every hash `x` in turn (the permutations and values stay in registers),
    /// `t = a x + b` with the products wrapping at 64 bits, then with `MERSENNE`
    /// `y = t mod 2^61 - 1` (`y = (t & p) + (t >> 61)` is below `2p`, and `min(y, y - p)`,
    /// unsigned and wrapping, is `y mod p`), else `y = t`; `v = min(v, y & mask)`.
    ///
    /// # Safety
    /// The CPU must have `avx512f` and `avx512dq`; the three slices have the same length, a
    /// multiple of 8.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub unsafe fn min_of_maps<const MERSENNE: bool>(
        values: &mut [u64],
        a: &[u64],
        b: &[u64],
        xs: &[u64],
        prime: u64,
        mask: u64,
    ) {
        let p = _mm512_set1_epi64(prime as i64);
        let low = _mm512_set1_epi64(mask as i64);
        for ((v, a), b) in values
            .chunks_exact_mut(8)
            .zip(a.chunks_exact(8))
            .zip(b.chunks_exact(8))
        {
            // SAFETY: each chunk is 8 u64s (unaligned loads and store).
            let (va, vb, mut acc) = unsafe {
                (
                    _mm512_loadu_si512(a.as_ptr().cast()),
                    _mm512_loadu_si512(b.as_ptr().cast()),
                    _mm512_loadu_si512(v.as_ptr().cast()),
                )
            };
            for &x in xs {
                let t = _mm512_add_epi64(_mm512_mullo_epi64(va, _mm512_set1_epi64(x as i64)), vb);
                let y = if MERSENNE {
                    let y = _mm512_add_epi64(_mm512_and_si512(t, p), _mm512_srli_epi64::<61>(t));
                    _mm512_min_epu64(y, _mm512_sub_epi64(y, p))
                } else {
                    t
                };
                acc = _mm512_min_epu64(acc, _mm512_and_si512(y, low));
            }
            unsafe { _mm512_storeu_si512(v.as_mut_ptr().cast(), acc) };
        }
    }

    /// [`super::round`] eight images at a time; `xs.len()` is a multiple of 8 and `out` has at
    /// most 1024 bins.
    ///
    /// Whether a bin is open in round `r` (`filled_in >= r`) cannot change during the round
    /// (a bin only goes from [`super::OPEN`] to `r`), so the open bins are one bit set taken at
    /// the start (16 words, two vectors), each lane's bit is looked up with a permute, and only
    /// the lanes whose bin is open go to the scalar update: after the first rounds most bins
    /// are filled and most images need no memory access at all.
    ///
    /// # Safety
    /// The CPU must have `avx512f`, `avx512dq` and `avx512bw`.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw")]
    pub unsafe fn round_avx512(
        xs: &[u64],
        key: u64,
        r: u8,
        out: &mut [u64],
        filled_in: &mut [u8],
    ) -> usize {
        let mut open = [0u64; 16];
        let rv = _mm512_set1_epi8(r as i8);
        for (w, chunk) in open.iter_mut().zip(filled_in.chunks(64)) {
            let valid = u64::MAX >> (64 - chunk.len());
            // SAFETY: the masked load reads only the chunk's `chunk.len()` bytes.
            let f = unsafe { _mm512_maskz_loadu_epi8(valid, chunk.as_ptr().cast()) };
            *w = _mm512_cmpge_epu8_mask(f, rv) & valid;
        }
        // SAFETY: `open` is 16 readable u64s.
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_si512(open.as_ptr().cast()),
                _mm512_loadu_si512(open.as_ptr().add(8).cast()),
            )
        };
        let k = _mm512_set1_epi64(key as i64);
        let c1 = _mm512_set1_epi64(FMIX_M1 as i64);
        let c2 = _mm512_set1_epi64(FMIX_M2 as i64);
        let m = _mm512_set1_epi64(out.len() as i64);
        let one = _mm512_set1_epi64(1);
        let low6 = _mm512_set1_epi64(63);
        let mut hs = [0u64; 8];
        let mut bs = [0u64; 8];
        let mut count = 0;
        for chunk in xs.chunks_exact(8) {
            // SAFETY: `chunk` is 8 readable u64s; `hs` and `bs` 8 writable ones (unaligned
            // loads and stores).
            let x = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
            let z = _mm512_xor_si512(x, k);
            let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<30>(z)), c1);
            let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<27>(z)), c2);
            let h = _mm512_xor_si512(z, _mm512_srli_epi64::<31>(z));
            // ⌊(h >> 32) · m / 2^32⌋: a 32 x 32 -> 64-bit product per lane.
            let b = _mm512_srli_epi64::<32>(_mm512_mul_epu32(_mm512_srli_epi64::<32>(h), m));
            // Bit `b & 63` of word `b >> 6` of the open set.
            let word = _mm512_permutex2var_epi64(lo, _mm512_srli_epi64::<6>(b), hi);
            let bit = _mm512_srlv_epi64(word, _mm512_and_si512(b, low6));
            let mut lanes = _mm512_test_epi64_mask(bit, one);
            if lanes == 0 {
                continue;
            }
            unsafe {
                _mm512_storeu_si512(hs.as_mut_ptr().cast(), h);
                _mm512_storeu_si512(bs.as_mut_ptr().cast(), b);
            }
            while lanes != 0 {
                let i = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let b = bs[i] as usize;
                let f = filled_in[b];
                let v = &mut out[b];
                *v = (*v).min(hs[i]);
                filled_in[b] = r;
                count += usize::from(f == super::OPEN);
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_round_is_the_scalar_round() {
        if !has_avx512() {
            return;
        }
        let mut rng = crate::rabin::SplitMix64(5);
        for m in [1usize, 7, 128, 200, 1024] {
            for n in (0..40).chain([63, 64, 65, 1000, 4099]) {
                let xs: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
                let filled: Vec<u8> = (0..m).map(|i| [OPEN, 0, 2, 3][i % 4]).collect();
                let key = rng.next_u64();
                let (mut a, mut b) = (vec![u64::MAX; m], vec![u64::MAX; m]);
                let (mut fa, mut fb) = (filled.clone(), filled);
                let ca = round(true, &xs, key, 2, &mut a, &mut fa);
                let cb = round(false, &xs, key, 2, &mut b, &mut fb);
                assert_eq!(a, b, "m={m} n={n}");
                assert_eq!(fa, fb, "m={m} n={n}");
                assert_eq!(ca, cb, "m={m} n={n}");
            }
        }
    }
}

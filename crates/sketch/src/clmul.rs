//! The one-to-one Rabin maps `x ↦ x · t^64 mod P` by carry-less multiplication (Barrett
//! reduction), the hot loop of min-hashing. The table-driven [`crate::rabin::Rabin::shift64`] is
//! the specification; this module computes the same bits faster where the CPU has PCLMULQDQ.
//!
//! With `P = t^64 + p` and `μ' = ⌊t^64 · p / P⌋` (so that `⌊t^128 / P⌋ = t^64 + μ'`), the quotient of
//! `x · t^64` by `P` is `q = x ⊕ hi64(x ⊗ μ')` and the remainder is `lo64(q ⊗ p)`, where `⊗` is
//! the carry-less product (Barrett reduction over GF(2), as in CRC folding; Intel white paper
//! "Fast CRC computation for generic polynomials using PCLMULQDQ", 2009).
//!
//! This is the only module with `unsafe`: the intrinsics, called after runtime detection.

/// Carry-less product of two 64-bit polynomials (portable; used to derive constants and to
/// test the intrinsic path).
pub fn clmul(a: u64, b: u64) -> u128 {
    let mut r = 0u128;
    for i in 0..64 {
        if (b >> i) & 1 != 0 {
            r ^= (a as u128) << i;
        }
    }
    r
}

/// `μ' = ⌊t^64 · p / (t^64 + p)⌋` (degree < 64).
pub fn barrett_mu(p: u64) -> u64 {
    let modulus: u128 = (1u128 << 64) | p as u128;
    let mut rem: u128 = (p as u128) << 64;
    let mut quo: u128 = 0;
    for bit in (64..128).rev() {
        if (rem >> bit) & 1 != 0 {
            let shift = bit - 64;
            rem ^= modulus << shift;
            quo |= 1u128 << shift;
        }
    }
    quo as u64
}

/// `x · t^64 mod (t^64 + p)` by Barrett reduction, portable.
pub fn shift64_barrett(x: u64, p: u64, mu: u64) -> u64 {
    let q = x ^ (clmul(x, mu) >> 64) as u64;
    clmul(q, p) as u64
}

/// For each function `(p, μ')`, the smallest image over `xs` (`u64::MAX` when `xs` is empty).
/// Returns `false` (and does nothing) when the CPU lacks carry-less multiplication.
pub fn min_images(consts: &[(u64, u64)], xs: &[u64], out: &mut [u64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("vpclmulqdq")
            && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: the features the function is compiled for were detected just above.
            #[allow(unsafe_code)]
            unsafe {
                x86::min_images_avx2(consts, xs, out)
            };
            return true;
        }
        if std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("sse4.1")
        {
            // SAFETY: the features the function is compiled for were detected just above.
            #[allow(unsafe_code)]
            unsafe {
                x86::min_images(consts, xs, out)
            };
            return true;
        }
    }
    let _ = (consts, xs, out);
    false
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::*;

    /// Four pre-images per step in 256-bit registers (VPCLMULQDQ multiplies one 64-bit half of
    /// each 128-bit lane).
    #[target_feature(enable = "vpclmulqdq,pclmulqdq,avx2,sse4.1")]
    pub(super) unsafe fn min_images_avx2(consts: &[(u64, u64)], xs: &[u64], out: &mut [u64]) {
        let sign = _mm256_set1_epi64x(i64::MIN);
        let quads = xs.len() / 4;
        let rest = &xs[quads * 4..];
        for (&(p, mu), slot) in consts.iter().zip(out.iter_mut()) {
            let pv = _mm256_set1_epi64x(p as i64);
            let muv = _mm256_set1_epi64x(mu as i64);
            // Running minimum, biased by the sign bit so that signed compares order unsigned values.
            let mut m = _mm256_set1_epi64x(i64::MAX);
            for i in 0..quads {
                // SAFETY: i * 4 + 3 < xs.len(); unaligned load.
                let xv = _mm256_loadu_si256(xs.as_ptr().add(i * 4) as *const __m256i);
                let t0 = _mm256_clmulepi64_epi128(xv, muv, 0x00); // x0·μ', x2·μ'
                let t1 = _mm256_clmulepi64_epi128(xv, muv, 0x01); // x1·μ', x3·μ'
                let q = _mm256_xor_si256(xv, _mm256_unpackhi_epi64(t0, t1));
                let r0 = _mm256_clmulepi64_epi128(q, pv, 0x00);
                let r1 = _mm256_clmulepi64_epi128(q, pv, 0x01);
                let y = _mm256_xor_si256(_mm256_unpacklo_epi64(r0, r1), sign);
                let smaller = _mm256_cmpgt_epi64(m, y);
                m = _mm256_blendv_epi8(m, y, smaller);
            }
            let mut lanes = [0u64; 4];
            _mm256_storeu_si256(
                lanes.as_mut_ptr() as *mut __m256i,
                _mm256_xor_si256(m, sign),
            );
            let mut min = lanes.iter().copied().min().unwrap_or(u64::MAX);
            let pv1 = _mm_cvtsi64_si128(p as i64);
            let muv1 = _mm_cvtsi64_si128(mu as i64);
            for &x in rest {
                let t = _mm_clmulepi64_si128(_mm_cvtsi64_si128(x as i64), muv1, 0x00);
                let q = x ^ (_mm_extract_epi64(t, 1) as u64);
                let r = _mm_clmulepi64_si128(_mm_cvtsi64_si128(q as i64), pv1, 0x00);
                min = min.min(_mm_cvtsi128_si64(r) as u64);
            }
            *slot = min;
        }
    }

    #[target_feature(enable = "pclmulqdq,sse2,sse4.1")]
    pub(super) unsafe fn min_images(consts: &[(u64, u64)], xs: &[u64], out: &mut [u64]) {
        for (&(p, mu), slot) in consts.iter().zip(out.iter_mut()) {
            let pv = _mm_cvtsi64_si128(p as i64);
            let muv = _mm_cvtsi64_si128(mu as i64);
            let (mut m0, mut m1) = (u64::MAX, u64::MAX);
            let mut chunks = xs.chunks_exact(2);
            for pair in &mut chunks {
                // Two pre-images in one register: products of the low and the high half.
                let xv = _mm_set_epi64x(pair[1] as i64, pair[0] as i64);
                let t0 = _mm_clmulepi64_si128(xv, muv, 0x00);
                let t1 = _mm_clmulepi64_si128(xv, muv, 0x01);
                let hi = _mm_unpackhi_epi64(t0, t1); // [hi64(x0·μ'), hi64(x1·μ')]
                let q = _mm_xor_si128(xv, hi);
                let r0 = _mm_clmulepi64_si128(q, pv, 0x00);
                let r1 = _mm_clmulepi64_si128(q, pv, 0x01);
                m0 = m0.min(_mm_cvtsi128_si64(r0) as u64);
                m1 = m1.min(_mm_cvtsi128_si64(r1) as u64);
            }
            for &x in chunks.remainder() {
                let xv = _mm_cvtsi64_si128(x as i64);
                let t = _mm_clmulepi64_si128(xv, muv, 0x00);
                let q = x ^ (_mm_extract_epi64(t, 1) as u64);
                let r = _mm_clmulepi64_si128(_mm_cvtsi64_si128(q as i64), pv, 0x00);
                m0 = m0.min(_mm_cvtsi128_si64(r) as u64);
            }
            *slot = m0.min(m1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rabin::{irreducible_polys, Rabin, SplitMix64};

    #[test]
    fn barrett_equals_tables() {
        let polys = irreducible_polys(99, 8);
        let mut rng = SplitMix64(5);
        for &p in &polys {
            let r = Rabin::new(p);
            let mu = barrett_mu(p);
            for _ in 0..2000 {
                let x = rng.next_u64();
                assert_eq!(shift64_barrett(x, p, mu), r.shift64(x));
            }
            assert_eq!(shift64_barrett(0, p, mu), 0);
            assert_eq!(shift64_barrett(u64::MAX, p, mu), r.shift64(u64::MAX));
        }
    }

    /// Every code path the CPU supports gives the tables' bits.
    #[test]
    fn intrinsics_equal_tables() {
        let polys = irreducible_polys(7, 16);
        let consts: Vec<(u64, u64)> = polys.iter().map(|&p| (p, barrett_mu(p))).collect();
        let mut rng = SplitMix64(11);
        for n in [0usize, 1, 2, 3, 4, 5, 17, 500] {
            let xs: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
            let want: Vec<u64> = polys
                .iter()
                .map(|&p| {
                    let r = Rabin::new(p);
                    xs.iter().map(|&x| r.shift64(x)).min().unwrap_or(u64::MAX)
                })
                .collect();
            let mut got = vec![0u64; consts.len()];
            if min_images(&consts, &xs, &mut got) {
                assert_eq!(got, want, "dispatched path, n={n}");
            }
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            {
                if std::arch::is_x86_feature_detected!("pclmulqdq")
                    && std::arch::is_x86_feature_detected!("sse4.1")
                {
                    let mut sse = vec![0u64; consts.len()];
                    // SAFETY: features detected just above.
                    unsafe { super::x86::min_images(&consts, &xs, &mut sse) };
                    assert_eq!(sse, want, "SSE path, n={n}");
                }
            }
        }
    }
}

//! The Random Projection (RP) of a page's bag of words (paper 000 section 2.1): a `K x N`
//! matrix `Π` with entries uniform in `[-1, +1)` times the page's term-frequency vector.
//!
//! The matrix is never materialized: entry `(term, j)` is derived from the term's Rabin
//! fingerprint `f` as the high 32 bits of word `j` of a SplitMix64 stream seeded with
//! `f ^ seed ^ RP_SEED`, read as a signed integer, i.e. `π_(term, j) · 2^31`. The projection is
//! summed in `i64`, so it is exact and independent of token order and platform; the raw sums are
//! what signature files store. Normalization (subtract the collection's componentwise minimum,
//! scale to `[0, 1]`) needs the whole collection and happens when pages are compared.

use crate::rabin::SplitMix64;

/// Seed mixed into every term fingerprint before projection ("rproject" in ASCII).
pub const RP_SEED: u64 = 0x7270_726f_6a65_6374;

/// Most dimensions of a projection.
pub const MAX_RP_DIMS: u32 = 64;

/// Scale of the raw integer projections: entry values are `π · 2^31`.
pub const RP_SCALE: f64 = 2147483648.0;

/// Projects term-fingerprint sequences to `dims` dimensions.
#[derive(Clone, Debug)]
pub struct RandomProjection {
    dims: usize,
    seed: u64,
}

impl RandomProjection {
    /// A projection to `dims` dimensions (at most [`MAX_RP_DIMS`]), seeded from the signature
    /// seed.
    pub fn new(dims: u32, seed: u64) -> RandomProjection {
        assert!(dims <= MAX_RP_DIMS, "at most {MAX_RP_DIMS} dimensions");
        RandomProjection {
            dims: dims as usize,
            seed: seed ^ RP_SEED,
        }
    }

    /// Dimensions.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Entry `(term, j)` of the matrix times `2^31`, for `j < dims`, into `out`.
    pub fn column(&self, term: u64, out: &mut [i64]) {
        let mut rng = SplitMix64(term ^ self.seed);
        for o in out.iter_mut().take(self.dims) {
            *o = ((rng.next_u64() >> 32) as u32 as i32) as i64;
        }
    }

    /// `Π · TF` of a token sequence given as term fingerprints (every occurrence counts), times
    /// `2^31`, into `out` (`dims` values).
    pub fn project(&self, terms: &[u64], out: &mut [i64]) {
        debug_assert_eq!(out.len(), self.dims);
        out.iter_mut().for_each(|o| *o = 0);
        let mut col = [0i64; MAX_RP_DIMS as usize];
        for &t in terms {
            self.column(t, &mut col);
            for (o, c) in out.iter_mut().zip(&col) {
                *o += c;
            }
        }
    }
}

/// Normalizes raw projections of a collection (`dims` values per page, page after page) as
/// the paper's `(R̂^p - R̂^m)` scaled into `[0, 1]`: page `p`'s values are first divided by
/// `divisor(p)` (1 for raw term counts, the page's term count for relative term frequencies),
/// then each component has the collection's minimum of that component subtracted and is
/// divided by its range (0 where all pages agree).
pub fn normalize(raw: &[i64], dims: usize, divisor: impl Fn(usize) -> f64) -> Vec<f64> {
    if dims == 0 || raw.is_empty() {
        return vec![0.0; raw.len()];
    }
    let mut out: Vec<f64> = raw
        .iter()
        .enumerate()
        .map(|(i, &v)| v as f64 / RP_SCALE / divisor(i / dims))
        .collect();
    for j in 0..dims {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in out.iter().skip(j).step_by(dims) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        let range = hi - lo;
        for v in out.iter_mut().skip(j).step_by(dims) {
            *v = if range > 0.0 {
                ((*v - lo) / range).clamp(0.0, 1.0)
            } else {
                0.0
            };
        }
    }
    out
}

/// Maps projections of relative term frequencies to `[0, 1]` by their fixed bounds: page `p`'s
/// values are divided by `divisor(p)` (its term count), which puts them in `[-1, 1]` (entries
/// are in `[-1, 1)` and the weights sum to 1), then `v -> (v + 1) / 2`. No other page matters.
pub fn to_unit(raw: &[i64], dims: usize, divisor: impl Fn(usize) -> f64) -> Vec<f64> {
    if dims == 0 {
        return vec![0.0; raw.len()];
    }
    raw.iter()
        .enumerate()
        .map(|(i, &v)| ((v as f64 / RP_SCALE / divisor(i / dims) + 1.0) / 2.0).clamp(0.0, 1.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_uniform_in_minus_one_one() {
        let rp = RandomProjection::new(8, 42);
        let mut col = [0i64; 8];
        let (mut sum, mut n, mut lo, mut hi) = (0.0, 0.0, 0.0f64, 0.0f64);
        let mut below_half = 0;
        for t in 0..20_000u64 {
            rp.column(t.wrapping_mul(0x9E37_79B9_7F4A_7C15), &mut col);
            for &c in &col {
                let v = c as f64 / RP_SCALE;
                assert!((-1.0..1.0).contains(&v));
                sum += v;
                n += 1.0;
                lo = lo.min(v);
                hi = hi.max(v);
                below_half += usize::from(v.abs() < 0.5);
            }
        }
        assert!((sum / n).abs() < 0.01, "mean {}", sum / n);
        assert!(lo < -0.999 && hi > 0.999);
        // Half the mass within (-0.5, 0.5).
        let share = below_half as f64 / n;
        assert!((share - 0.5).abs() < 0.01, "{share}");
    }

    #[test]
    fn projection_is_linear_in_term_frequency_and_order_free() {
        let rp = RandomProjection::new(5, 7);
        let (a, b) = (11u64, 99u64);
        let mut x = [0i64; 5];
        let mut y = [0i64; 5];
        rp.project(&[a, b, a], &mut x);
        rp.project(&[b, a, a], &mut y);
        assert_eq!(x, y);
        let mut ca = [0i64; 5];
        let mut cb = [0i64; 5];
        rp.column(a, &mut ca);
        rp.column(b, &mut cb);
        for j in 0..5 {
            assert_eq!(x[j], 2 * ca[j] + cb[j]);
        }
        // Another seed, another matrix.
        let mut z = [0i64; 5];
        RandomProjection::new(5, 8).project(&[a, b, a], &mut z);
        assert_ne!(x, z);
    }

    #[test]
    fn pinned_values() {
        // Any change to these values changes every signature: bump SIGNATURE_VERSION.
        let rp = RandomProjection::new(3, crate::DEFAULT_SEED);
        let mut col = [0i64; 3];
        rp.column(0x0123_4567_89ab_cdef, &mut col);
        assert_eq!(col, PINNED);
    }
    const PINNED: [i64; 3] = [-2063944209, -1018880024, 1977165776];

    #[test]
    fn normalization_maps_each_component_onto_zero_one() {
        let raw = [5i64, -3, 7, -3, 1, -3];
        let r = normalize(&raw, 2, |_| 1.0);
        assert_eq!(r, vec![4.0 / 6.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
        assert!(normalize(&[], 3, |_| 1.0).is_empty());
        let ext = normalize(&[i64::MIN, i64::MAX], 1, |_| 1.0);
        assert_eq!(ext, vec![0.0, 1.0]);
        // Relative term frequencies: page 1 has twice the terms, so half the weight per term.
        let rel = normalize(&[4, 4, 0], 1, |p| [1.0, 2.0, 1.0][p]);
        assert_eq!(rel, vec![1.0, 0.5, 0.0]);
    }
}

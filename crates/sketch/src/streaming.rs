//! A min-hash signature built one element at a time, with the operations of datasketch's
//! `MinHash` (`update`, `merge`, `jaccard`, `digest`), in the one-permutation family
//! ([`crate::oph`]): its digest is exactly [`Oph::minvalues`] of the set of elements given, in
//! any order, with any repeats, split over any number of merged signatures.
//!
//! Round 0 of the family is kept bin by bin as elements arrive. The later rounds (which fill
//! the bins round 0 left empty) need the whole set, so the distinct elements are kept too, but
//! only while some bin is empty: once round 0 has filled every bin, later rounds cannot change
//! the signature and the elements are dropped. A set of `f` distinct elements fills `m` bins
//! once `f` is about `m ln m` (620 for `m = 128`), so memory stays near that many elements
//! whatever the set's size.
//!
//! Bytes become elements through XXH3-64 with the fixed seed [`ELEMENT_SEED`], so the same
//! bytes give the same signature on every platform and release.

use crate::oph::Oph;
use std::collections::HashSet;
use std::sync::Arc;

/// The XXH3 seed that turns bytes into elements ([`MinHash::update_bytes`]).
pub const ELEMENT_SEED: u64 = 0x6e65_6172_6475_7031; // "nearduP1"

/// A streaming min-hash signature of one family.
#[derive(Clone, Debug)]
pub struct MinHash {
    oph: Arc<Oph>,
    /// Round 0's smallest image per bin (meaningful where `filled`).
    round0: Vec<u64>,
    filled: Vec<bool>,
    empty_bins: usize,
    /// The distinct elements, while some bin is empty.
    elements: Option<HashSet<u64>>,
}

/// Why [`MinHash::from_state`] refused its bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Not a state written by [`MinHash::state`] (or cut short, or of another version).
    #[error("not a neardup MinHash state: {0}")]
    Malformed(&'static str),
    /// A state of another number of minvalues.
    #[error("a MinHash state of m {found}, for a family of m {expected}")]
    OtherFamily {
        /// The family's m.
        expected: u32,
        /// The state's.
        found: u32,
    },
}

/// Magic and version of [`MinHash::state`].
const STATE_MAGIC: &[u8; 4] = b"NDMH";
const STATE_VERSION: u8 = 1;

/// Two signatures of different families cannot be compared or merged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the signatures are of different families (m {0} vs {1}, or another seed)")]
pub struct FamilyMismatch(pub u32, pub u32);

impl MinHash {
    /// An empty signature of `oph`'s family.
    pub fn new(oph: Arc<Oph>) -> MinHash {
        let m = oph.m();
        MinHash {
            oph,
            round0: vec![u64::MAX; m],
            filled: vec![false; m],
            empty_bins: m,
            elements: Some(HashSet::new()),
        }
    }

    /// The family.
    pub fn family(&self) -> &Arc<Oph> {
        &self.oph
    }

    /// The signature as bytes, to be restored by [`MinHash::from_state`] with the same family
    /// (pickling): `NDMH`, version 1, then either the distinct elements, sorted (while a bin
    /// is empty: they determine everything), or round 0's minvalue of every bin (once all are
    /// filled). Little-endian; the same set gives the same bytes.
    pub fn state(&self) -> Vec<u8> {
        let (kind, values): (u8, Vec<u64>) = match &self.elements {
            Some(e) => {
                let mut xs: Vec<u64> = e.iter().copied().collect();
                xs.sort_unstable();
                (0, xs)
            }
            None => (1, self.round0.clone()),
        };
        let mut out = Vec::with_capacity(14 + 8 * values.len());
        out.extend_from_slice(STATE_MAGIC);
        out.push(STATE_VERSION);
        out.push(kind);
        out.extend_from_slice(&(self.round0.len() as u32).to_le_bytes());
        out.extend_from_slice(&(values.len() as u32).to_le_bytes());
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// A signature of `oph`'s family from [`MinHash::state`]'s bytes.
    pub fn from_state(oph: Arc<Oph>, bytes: &[u8]) -> Result<MinHash, StateError> {
        let bad = StateError::Malformed;
        let rest = bytes
            .strip_prefix(STATE_MAGIC)
            .ok_or(bad("no NDMH magic"))?;
        let (&version, rest) = rest.split_first().ok_or(bad("cut short"))?;
        if version != STATE_VERSION {
            return Err(bad("another version"));
        }
        let (&kind, rest) = rest.split_first().ok_or(bad("cut short"))?;
        let u32_at = |b: &[u8], i: usize| -> Result<u32, StateError> {
            let w = b.get(i..i + 4).ok_or(bad("cut short"))?;
            Ok(u32::from_le_bytes(
                w.try_into().map_err(|_| bad("cut short"))?,
            ))
        };
        let m = u32_at(rest, 0)?;
        let n = u32_at(rest, 4)? as usize;
        if m as usize != oph.m() {
            return Err(StateError::OtherFamily {
                expected: oph.m() as u32,
                found: m,
            });
        }
        let body = &rest[8..];
        if body.len() != n.checked_mul(8).ok_or(bad("too long"))? {
            return Err(bad("length does not match the count"));
        }
        let values = body
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
        let mut out = MinHash::new(oph);
        match kind {
            0 => values.for_each(|x| out.update(x)),
            1 => {
                if n != m as usize {
                    return Err(bad("a full state holds m minvalues"));
                }
                out.round0 = values.collect();
                out.filled.fill(true);
                out.empty_bins = 0;
                out.elements = None;
            }
            _ => return Err(bad("unknown kind")),
        }
        Ok(out)
    }

    /// Adds element `x` (a 64-bit pre-image).
    pub fn update(&mut self, x: u64) {
        let (b, h) = self.oph.round0(x);
        if !self.filled[b] {
            self.filled[b] = true;
            self.empty_bins -= 1;
            self.round0[b] = h;
        } else if h < self.round0[b] {
            self.round0[b] = h;
        }
        if let Some(e) = &mut self.elements {
            e.insert(x);
            if self.empty_bins == 0 {
                self.elements = None;
            }
        }
    }

    /// Adds the element `bytes` stand for (XXH3-64 with [`ELEMENT_SEED`]).
    pub fn update_bytes(&mut self, bytes: &[u8]) {
        self.update(xxhash_rust::xxh3::xxh3_64_with_seed(bytes, ELEMENT_SEED));
    }

    /// Whether no element was added.
    pub fn is_empty(&self) -> bool {
        self.empty_bins == self.round0.len()
    }

    /// Makes this the signature of the union of both sets.
    pub fn merge(&mut self, other: &MinHash) -> Result<(), FamilyMismatch> {
        self.same_family(other)?;
        for b in 0..self.round0.len() {
            if other.filled[b] {
                if !self.filled[b] {
                    self.filled[b] = true;
                    self.empty_bins -= 1;
                    self.round0[b] = other.round0[b];
                } else {
                    self.round0[b] = self.round0[b].min(other.round0[b]);
                }
            }
        }
        if self.empty_bins == 0 {
            self.elements = None;
        } else if let (Some(mine), Some(theirs)) = (&mut self.elements, &other.elements) {
            mine.extend(theirs.iter().copied());
        }
        Ok(())
    }

    /// The minvalues: [`Oph::minvalues`] of the set; all `u64::MAX` for an empty set.
    pub fn digest(&self) -> Vec<u64> {
        match &self.elements {
            None => self.round0.clone(),
            Some(e) if e.is_empty() => vec![u64::MAX; self.round0.len()],
            Some(e) => {
                let mut xs: Vec<u64> = e.iter().copied().collect();
                xs.sort_unstable();
                let mut out = vec![0; self.round0.len()];
                self.oph.minvalues(&xs, &mut out);
                out
            }
        }
    }

    /// The estimated Jaccard similarity of the two sets: the share of equal minvalues (0 when
    /// either set is empty).
    pub fn jaccard(&self, other: &MinHash) -> Result<f64, FamilyMismatch> {
        self.same_family(other)?;
        if self.is_empty() || other.is_empty() {
            return Ok(0.0);
        }
        let (a, b) = (self.digest(), other.digest());
        let equal = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        Ok(equal as f64 / a.len() as f64)
    }

    fn same_family(&self, other: &MinHash) -> Result<(), FamilyMismatch> {
        if Arc::ptr_eq(&self.oph, &other.oph) || self.oph.same(&other.oph) {
            Ok(())
        } else {
            Err(FamilyMismatch(self.oph.m() as u32, other.oph.m() as u32))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_streamed_and_merged_signature_is_the_sets_minvalues(
            xs in proptest::collection::vec(0u64..5000, 1..1500),
            split in 0usize..1500,
            m in prop_oneof![Just(1u32), Just(16), Just(128)],
            seed in 0u64..4,
        ) {
            let oph = Arc::new(Oph::new(m, seed));
            let split = split.min(xs.len());
            let (mut a, mut b) = (MinHash::new(oph.clone()), MinHash::new(oph.clone()));
            xs[..split].iter().for_each(|&x| a.update(x));
            xs[split..].iter().rev().for_each(|&x| b.update(x));
            a.merge(&b).unwrap();
            let mut want = vec![0; m as usize];
            oph.minvalues(&xs, &mut want);
            prop_assert_eq!(a.digest(), want);
        }

        /// A restored signature is the signature: the same digest, the same bytes, and it
        /// goes on as the original does.
        #[test]
        fn a_state_restores_the_signature(
            xs in proptest::collection::vec(0u64..5000, 0..1500),
            more in proptest::collection::vec(0u64..5000, 0..200),
            m in prop_oneof![Just(1u32), Just(16), Just(128)],
        ) {
            let oph = Arc::new(Oph::new(m, 3));
            let mut a = MinHash::new(oph.clone());
            xs.iter().for_each(|&x| a.update(x));
            let bytes = a.state();
            let mut b = MinHash::from_state(oph.clone(), &bytes).unwrap();
            prop_assert_eq!(b.digest(), a.digest());
            prop_assert_eq!(b.state(), bytes.clone());
            more.iter().for_each(|&x| { a.update(x); b.update(x); });
            prop_assert_eq!(b.digest(), a.digest());
            // Every cut and every flipped byte is refused or restores some signature: never a panic.
            for cut in 0..bytes.len() {
                prop_assert!(MinHash::from_state(oph.clone(), &bytes[..cut]).is_err());
            }
            let mut flipped = bytes.clone();
            let i = more.len() % flipped.len();
            flipped[i] ^= 0x55;
            let _ = MinHash::from_state(oph, &flipped);
        }
    }

    #[test]
    fn states_of_other_families_and_garbage_are_refused() {
        let a = MinHash::new(Arc::new(Oph::new(16, 1)));
        let other = Arc::new(Oph::new(32, 1));
        assert_eq!(
            MinHash::from_state(other.clone(), &a.state()).unwrap_err(),
            StateError::OtherFamily {
                expected: 32,
                found: 16
            }
        );
        assert!(MinHash::from_state(other, b"pickle").is_err());
    }

    #[test]
    fn jaccard_estimates_the_sets_similarity() {
        let oph = Arc::new(Oph::new(256, 7));
        let (mut a, mut b) = (MinHash::new(oph.clone()), MinHash::new(oph.clone()));
        // |A & B| = 3000, |A | B| = 5000: J = 0.6.
        for i in 0..4000u64 {
            a.update(i);
        }
        for i in 1000..5000u64 {
            b.update(i);
        }
        let j = a.jaccard(&b).unwrap();
        // 4 standard errors of a 256-minvalue estimate at J = 0.6.
        assert!((j - 0.6).abs() < 4.0 * (0.6f64 * 0.4 / 256.0).sqrt(), "{j}");
        assert_eq!(a.jaccard(&a).unwrap(), 1.0);
        assert!(
            a.elements.is_none(),
            "every bin filled: the elements are dropped"
        );
        let empty = MinHash::new(oph.clone());
        assert_eq!(empty.jaccard(&a).unwrap(), 0.0);
        let other = MinHash::new(Arc::new(Oph::new(256, 8)));
        assert!(a.jaccard(&other).is_err());
        let mut c = MinHash::new(oph);
        c.update_bytes(b"word");
        assert!(!c.is_empty());
    }
}

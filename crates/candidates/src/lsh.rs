//! An in-memory LSH index of min-hash signatures with the operations of datasketch's
//! `MinHashLSH` (`insert`, `query`, `remove`, `in`): `b` bands of `r` rows chosen by
//! [`crate::optimal_bands`] for a Jaccard threshold (datasketch's rule), one hash table per
//! band; a query returns every key whose signature equals the query's on all rows of some
//! band, each once, in the order they were first found (band by band, then insertion order),
//! so the answer is the same on every run.

use crate::{optimal_bands, Banding};
use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// Why an LSH operation was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LshError {
    /// A signature of another length than the index's.
    #[error("a signature of {got} minvalues; this index takes {want}")]
    Length {
        /// The index's length.
        want: usize,
        /// The signature's.
        got: usize,
    },
    /// Band hashes of another number of bands than the index's.
    #[error("{got} band hashes; this index has {want} bands")]
    Bands {
        /// The index's bands.
        want: usize,
        /// The hashes given.
        got: usize,
    },
    /// The key is in the index already.
    #[error("the key is in the index already (remove it first)")]
    Duplicate,
    /// The key is not in the index.
    #[error("the key is not in the index")]
    Missing,
    /// Settings that cannot make an index.
    #[error("{0}")]
    Settings(String),
}

/// An LSH index of keys `K` by their min-hash signatures.
///
/// Entries live in slots numbered in insertion order (slot arrays, no allocation per entry):
/// each band's table maps a band hash to the first and last slot of its bucket, and each slot
/// links to the next slot of the same bucket, band by band. A removed slot is unlinked and left
/// empty; when more than half the slots are empty the live ones are renumbered in order.
#[derive(Clone, Debug)]
pub struct MinHashLsh<K: Eq + Hash + Clone> {
    banding: Banding,
    m: usize,
    /// Per band: band hash -> (first, last) slot of the bucket.
    tables: Vec<HashMap<u64, (u32, u32), BandHashes>>,
    /// Per slot: its key, `None` once removed.
    slot_keys: Vec<Option<K>>,
    /// Per slot and band (`slot * bands + band`): the band hash, and the bucket's next slot.
    slot_hashes: Vec<u64>,
    slot_next: Vec<u32>,
    /// Each key's slot.
    keys: HashMap<K, u32>,
}

/// Band hashes are mixed already: a table uses them as they are.
#[derive(Clone, Copy, Debug, Default)]
struct BandHashes;

impl std::hash::BuildHasher for BandHashes {
    type Hasher = PassThrough;
    fn build_hasher(&self) -> PassThrough {
        PassThrough(0)
    }
}

/// The hasher of [`BandHashes`]: the `u64` written.
#[derive(Clone, Copy, Debug, Default)]
struct PassThrough(u64);

impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

const END: u32 = u32::MAX;

/// The version of the band hash (XXH3 of the rows, seeded by the band): kept with saved band
/// hashes, so that hashes of another version are refused rather than silently never matched.
pub const BAND_HASH_VERSION: u32 = 2;

/// The hash of one band's rows (band `t`): XXH3-64 of the rows as little-endian bytes, seeded
/// with the band's number, fixed across platforms (version [`BAND_HASH_VERSION`]).
fn band_hash(t: usize, rows: &[u64]) -> u64 {
    let mut buf = [0u8; 8 * 64];
    let seed = 0x6c73_6862_616e_6400 ^ t as u64;
    if rows.len() <= 64 {
        for (b, v) in buf.chunks_exact_mut(8).zip(rows) {
            b.copy_from_slice(&v.to_le_bytes());
        }
        return xxhash_rust::xxh3::xxh3_64_with_seed(&buf[..rows.len() * 8], seed);
    }
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(seed);
    for v in rows {
        h.update(&v.to_le_bytes());
    }
    h.digest()
}

impl<K: Eq + Hash + Clone> MinHashLsh<K> {
    /// An index for signatures of `m` minvalues whose bands are chosen for Jaccard
    /// `threshold` with the weights of false positives and false negatives (datasketch's
    /// defaults are 0.5 and 0.5).
    pub fn new(
        m: usize,
        threshold: f64,
        fp_weight: f64,
        fn_weight: f64,
    ) -> Result<MinHashLsh<K>, LshError> {
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(LshError::Settings(format!(
                "threshold {threshold}: expected a Jaccard in (0, 1]"
            )));
        }
        if !(fp_weight >= 0.0 && fn_weight >= 0.0 && fp_weight + fn_weight > 0.0) {
            return Err(LshError::Settings(format!(
                "weights {fp_weight}, {fn_weight}: expected two non-negative numbers, not both 0"
            )));
        }
        let m32 = u32::try_from(m)
            .ok()
            .filter(|&m| m >= 1)
            .ok_or_else(|| LshError::Settings(format!("{m} minvalues: expected 1 or more")))?;
        let b = optimal_bands(m32, threshold, fp_weight, fn_weight);
        MinHashLsh::with_bands(m, b.bands as usize, b.rows as usize).map(|mut l| {
            l.banding = b;
            l
        })
    }

    /// An index of `bands` bands of `rows` rows (`bands * rows <= m`).
    pub fn with_bands(m: usize, bands: usize, rows: usize) -> Result<MinHashLsh<K>, LshError> {
        if bands == 0 || rows == 0 || bands.saturating_mul(rows) > m {
            return Err(LshError::Settings(format!(
                "{bands} bands of {rows} rows: expected at least 1 x 1 and at most {m} minvalues"
            )));
        }
        Ok(MinHashLsh {
            banding: Banding {
                bands: bands as u32,
                rows: rows as u32,
                false_positive: f64::NAN,
                false_negative: f64::NAN,
            },
            m,
            tables: vec![HashMap::with_hasher(BandHashes); bands],
            slot_keys: Vec::new(),
            slot_hashes: Vec::new(),
            slot_next: Vec::new(),
            keys: HashMap::new(),
        })
    }

    /// An empty index of `m` minvalues with `banding` (as [`MinHashLsh::banding`] gave it):
    /// with [`MinHashLsh::entries`] and [`MinHashLsh::insert_hashes`], an index restored.
    pub fn with_banding(m: usize, banding: Banding) -> Result<MinHashLsh<K>, LshError> {
        let mut l = MinHashLsh::with_bands(m, banding.bands as usize, banding.rows as usize)?;
        l.banding = banding;
        Ok(l)
    }

    /// Minvalues per signature.
    pub fn m(&self) -> usize {
        self.m
    }

    fn bands(&self) -> usize {
        self.tables.len()
    }

    /// Every key held with its band hashes, in insertion order: inserted again in this order
    /// ([`MinHashLsh::insert_hashes`]) into an index of the same banding, they give the same
    /// answers in the same order.
    pub fn entries(&self) -> Vec<(&K, &[u64])> {
        let b = self.bands();
        self.slot_keys
            .iter()
            .enumerate()
            .filter_map(|(s, k)| Some((k.as_ref()?, &self.slot_hashes[s * b..(s + 1) * b])))
            .collect()
    }

    /// Adds `key` with band hashes from [`MinHashLsh::entries`] (one per band).
    pub fn insert_hashes(&mut self, key: K, hashes: Vec<u64>) -> Result<(), LshError> {
        self.insert_band_hashes(key, &hashes)
    }

    /// [`MinHashLsh::insert_hashes`] from a slice.
    pub fn insert_band_hashes(&mut self, key: K, hashes: &[u64]) -> Result<(), LshError> {
        if hashes.len() != self.bands() {
            return Err(LshError::Bands {
                want: self.bands(),
                got: hashes.len(),
            });
        }
        if self.keys.contains_key(&key) {
            return Err(LshError::Duplicate);
        }
        let slot = u32::try_from(self.slot_keys.len())
            .ok()
            .filter(|&s| s != END)
            .ok_or_else(|| LshError::Settings("more than 2^32 - 1 entries".into()))?;
        for (t, &h) in hashes.iter().enumerate() {
            self.slot_hashes.push(h);
            self.slot_next.push(END);
            match self.tables[t].entry(h) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    let (_, last) = *e.get();
                    self.slot_next[last as usize * hashes.len() + t] = slot;
                    e.get_mut().1 = slot;
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert((slot, slot));
                }
            }
        }
        self.slot_keys.push(Some(key.clone()));
        self.keys.insert(key, slot);
        Ok(())
    }

    /// The bands and rows (and, when chosen for a threshold, their error masses).
    pub fn banding(&self) -> Banding {
        self.banding
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether `key` is held.
    pub fn contains(&self, key: &K) -> bool {
        self.keys.contains_key(key)
    }

    /// The band hashes of `digest` (one per band): what [`MinHashLsh::insert_hashes`] takes
    /// and [`MinHashLsh::query_hashes`] looks up.
    pub fn band_hashes(&self, digest: &[u64]) -> Result<Vec<u64>, LshError> {
        let mut out = Vec::with_capacity(self.bands());
        self.band_hashes_into(digest, &mut out)?;
        Ok(out)
    }

    /// [`MinHashLsh::band_hashes`] into `out` (cleared first).
    pub fn band_hashes_into(&self, digest: &[u64], out: &mut Vec<u64>) -> Result<(), LshError> {
        if digest.len() != self.m {
            return Err(LshError::Length {
                want: self.m,
                got: digest.len(),
            });
        }
        let r = self.banding.rows as usize;
        out.clear();
        out.extend((0..self.bands()).map(|t| band_hash(t, &digest[t * r..(t + 1) * r])));
        Ok(())
    }

    /// Adds `key` with its signature.
    pub fn insert(&mut self, key: K, digest: &[u64]) -> Result<(), LshError> {
        if self.keys.contains_key(&key) {
            return Err(LshError::Duplicate);
        }
        let hashes = self.band_hashes(digest)?;
        self.insert_hashes(key, hashes)
    }

    /// Every key sharing a band with `digest`, each once (band by band, insertion order).
    pub fn query(&self, digest: &[u64]) -> Result<Vec<K>, LshError> {
        let hashes = self.band_hashes(digest)?;
        self.query_hashes(&hashes)
    }

    /// [`MinHashLsh::query`] by band hashes (from [`MinHashLsh::band_hashes`]).
    pub fn query_hashes(&self, hashes: &[u64]) -> Result<Vec<K>, LshError> {
        let mut out = Vec::new();
        self.query_into(hashes, &mut out, &mut Vec::new())?;
        Ok(out)
    }

    /// [`MinHashLsh::query_hashes`] appending to `out`, with `slots` a scratch buffer (both
    /// cleared first): no allocation once the buffers have grown.
    pub fn query_into(
        &self,
        hashes: &[u64],
        out: &mut Vec<K>,
        slots: &mut Vec<u32>,
    ) -> Result<(), LshError> {
        let b = self.bands();
        if hashes.len() != b {
            return Err(LshError::Bands {
                want: b,
                got: hashes.len(),
            });
        }
        out.clear();
        slots.clear();
        let mut seen: Option<HashSet<u32>> = None;
        for (t, h) in hashes.iter().enumerate() {
            let Some(&(first, _)) = self.tables[t].get(h) else {
                continue;
            };
            let mut s = first;
            while s != END {
                let new = match &mut seen {
                    Some(set) => set.insert(s),
                    None => !slots.contains(&s),
                };
                if new {
                    slots.push(s);
                    if seen.is_none() && slots.len() > 32 {
                        seen = Some(slots.iter().copied().collect());
                    }
                }
                s = self.slot_next[s as usize * b + t];
            }
        }
        // Band by band, then insertion order within a bucket: the order slots were found.
        out.extend(
            slots
                .iter()
                .filter_map(|&s| self.slot_keys[s as usize].clone()),
        );
        Ok(())
    }

    /// The band hashes `key` was inserted with.
    pub fn hashes_of(&self, key: &K) -> Option<&[u64]> {
        let b = self.bands();
        self.keys
            .get(key)
            .map(|&s| &self.slot_hashes[s as usize * b..(s as usize + 1) * b])
    }

    /// The keys in band `band`'s bucket `hash`, in insertion order (none for a band out of
    /// range).
    pub fn bucket(&self, band: usize, hash: u64) -> Vec<&K> {
        let b = self.bands();
        let mut out = Vec::new();
        if let Some(&(first, _)) = self.tables.get(band).and_then(|t| t.get(&hash)) {
            let mut s = first;
            while s != END {
                out.extend(self.slot_keys[s as usize].as_ref());
                s = self.slot_next[s as usize * b + band];
            }
        }
        out
    }

    /// Band `band`'s buckets (hash and number of keys), ordered by hash so that listings are
    /// the same on every run.
    pub fn buckets(&self, band: usize) -> Vec<(u64, usize)> {
        let b = self.bands();
        let mut out: Vec<(u64, usize)> = self
            .tables
            .get(band)
            .into_iter()
            .flatten()
            .map(|(&h, &(first, _))| {
                let (mut n, mut s) = (0, first);
                while s != END {
                    n += 1;
                    s = self.slot_next[s as usize * b + band];
                }
                (h, n)
            })
            .collect();
        out.sort_unstable_by_key(|b| b.0);
        out
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &K) -> Result<(), LshError> {
        let slot = self.keys.remove(key).ok_or(LshError::Missing)?;
        let b = self.bands();
        for t in 0..b {
            let h = self.slot_hashes[slot as usize * b + t];
            let next = self.slot_next[slot as usize * b + t];
            let Some(&(first, last)) = self.tables[t].get(&h) else {
                continue;
            };
            if first == slot {
                if next == END {
                    self.tables[t].remove(&h);
                } else {
                    self.tables[t].insert(h, (next, last));
                }
                continue;
            }
            // Find the slot before this one in the bucket.
            let mut s = first;
            while self.slot_next[s as usize * b + t] != slot {
                s = self.slot_next[s as usize * b + t];
            }
            self.slot_next[s as usize * b + t] = next;
            if last == slot {
                self.tables[t].insert(h, (first, s));
            }
        }
        self.slot_keys[slot as usize] = None;
        if self.slot_keys.len() > 1024 && self.keys.len() * 2 < self.slot_keys.len() {
            self.renumber();
        }
        Ok(())
    }

    /// Rebuilds the slots of the live entries, in their order.
    fn renumber(&mut self) {
        let mut fresh = MinHashLsh::with_banding(self.m, self.banding).expect("same banding");
        let b = self.bands();
        for (s, k) in self.slot_keys.iter().enumerate() {
            if let Some(k) = k {
                fresh
                    .insert_band_hashes(k.clone(), &self.slot_hashes[s * b..(s + 1) * b])
                    .expect("distinct keys, right band count");
            }
        }
        *self = fresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An index of 4 bands x 3 rows holding `sigs` under their positions, less those `removed`.
    fn built(sigs: &[Vec<u64>], removed: &[bool]) -> MinHashLsh<usize> {
        let mut lsh = MinHashLsh::with_bands(12, 4, 3).unwrap();
        for (i, s) in sigs.iter().enumerate() {
            lsh.insert(i, s).unwrap();
        }
        for (i, _) in sigs.iter().enumerate().filter(|(i, _)| removed[*i]) {
            lsh.remove(&i).unwrap();
        }
        lsh
    }

    proptest! {
        /// An index rebuilt from its entries answers every query the same, in the same order.
        #[test]
        fn entries_rebuild_the_index(
            sigs in proptest::collection::vec(proptest::collection::vec(0u64..3, 12), 1..60),
            probes in proptest::collection::vec(proptest::collection::vec(0u64..3, 12), 1..10),
            removed in proptest::collection::vec(any::<bool>(), 60),
        ) {
            let mut lsh = built(&sigs, &removed);
            lsh.insert(1000, &sigs[0]).unwrap();
            let mut back = MinHashLsh::with_banding(lsh.m(), lsh.banding()).unwrap();
            for (k, h) in lsh.entries() {
                back.insert_hashes(*k, h.to_vec()).unwrap();
            }
            prop_assert_eq!(back.len(), lsh.len());
            for p in &probes {
                prop_assert_eq!(back.query(p).unwrap(), lsh.query(p).unwrap());
            }
            prop_assert!(back.insert_hashes(5000, vec![1, 2]).is_err());
        }

        /// A query finds exactly the held keys that agree with it on every row of some band.
        #[test]
        fn queries_equal_brute_force(
            sigs in proptest::collection::vec(proptest::collection::vec(0u64..3, 12), 1..60),
            probe in proptest::collection::vec(0u64..3, 12),
            removed in proptest::collection::vec(any::<bool>(), 60),
        ) {
            let lsh = built(&sigs, &removed);
            let mut got = lsh.query(&probe).unwrap();
            got.sort_unstable();
            let want: Vec<usize> = (0..sigs.len())
                .filter(|&i| !removed[i])
                .filter(|&i| (0..4).any(|t| sigs[i][t * 3..t * 3 + 3] == probe[t * 3..t * 3 + 3]))
                .collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(lsh.len(), sigs.len() - removed[..sigs.len()].iter().filter(|r| **r).count());
        }
    }

    /// Many removals from large buckets (renumbering the slots on the way) leave the answers of
    /// brute force, in insertion order.
    #[test]
    fn removals_from_large_buckets_keep_answers_and_order() {
        let mut lsh = MinHashLsh::with_bands(4, 2, 2).unwrap();
        let sig = |i: u64| [i % 3, 0, i % 5, i % 2];
        for i in 0..3000u64 {
            lsh.insert(i, &sig(i)).unwrap();
        }
        let mut removed = std::collections::HashSet::new();
        let mut x = 7u64;
        for _ in 0..2500 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = (x >> 33) % 3000;
            assert_eq!(lsh.remove(&k).is_ok(), removed.insert(k));
        }
        for p in 0..30u64 {
            let probe = sig(p);
            let got = lsh.query(&probe).unwrap();
            let mut want: Vec<u64> = (0..3000)
                .filter(|i| !removed.contains(i))
                .filter(|&i| sig(i)[..2] == probe[..2])
                .collect();
            want.extend(
                (0..3000)
                    .filter(|i| !removed.contains(i))
                    .filter(|&i| sig(i)[..2] != probe[..2] && sig(i)[2..] == probe[2..]),
            );
            assert_eq!(got, want, "probe {p}");
        }
        assert_eq!(lsh.len(), 3000 - removed.len());
        assert_eq!(lsh.entries().len(), lsh.len());
    }

    #[test]
    fn bands_follow_datasketch_and_mistakes_are_errors() {
        let lsh = MinHashLsh::<String>::new(128, 0.8, 0.5, 0.5).unwrap();
        let b = lsh.banding();
        assert_eq!((b.bands, b.rows), (9, 13));
        let mut lsh = MinHashLsh::with_bands(4, 2, 2).unwrap();
        lsh.insert("a", &[1, 2, 3, 4]).unwrap();
        assert_eq!(lsh.insert("a", &[1, 2, 3, 4]), Err(LshError::Duplicate));
        assert!(matches!(
            lsh.insert("b", &[1]),
            Err(LshError::Length { want: 4, got: 1 })
        ));
        assert_eq!(lsh.remove(&"z"), Err(LshError::Missing));
        assert!(MinHashLsh::<u8>::new(128, 0.0, 0.5, 0.5).is_err());
        assert!(MinHashLsh::<u8>::with_bands(4, 3, 2).is_err());
        assert_eq!(lsh.query(&[1, 2, 9, 9]).unwrap(), vec!["a"]);
        let hashes = lsh.band_hashes(&[1, 2, 3, 4]).unwrap();
        assert_eq!(lsh.hashes_of(&"a"), Some(hashes.as_slice()));
        assert_eq!(lsh.bucket(1, hashes[1]), [&"a"]);
        assert_eq!(lsh.buckets(0), vec![(hashes[0], 1)]);
        assert!(lsh.bucket(7, hashes[0]).is_empty() && lsh.buckets(7).is_empty());
        assert!(lsh.query_hashes(&hashes[..1]).is_err());
        lsh.remove(&"a").unwrap();
        assert!(lsh.query(&[1, 2, 3, 4]).unwrap().is_empty() && lsh.is_empty());
    }
}

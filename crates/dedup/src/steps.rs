//! The steps of a dedup run, each written once and called by every execution: the in-memory
//! run ([`crate::dedup`]), the parts of a distributed run ([`crate::parts`], which the Spark
//! job's windows follow step by step) and the out-of-core run against a persistent index
//! (`neardup-index`'s `dedup`). A rule change here changes all of them.
//!
//! 0. **Partitions** ([`partition`]): with `per_language`, a page is matched only within its
//!    language; its partition enters its identity key and every candidate key, so pages of
//!    two languages never share a set or a bucket (a run per language).
//! 1. **Identity sets** ([`identity_key`], [`IdentitySets`]): pages with one token sequence;
//!    the first in page order represents the set, every other member is joined to it.
//! 2. **Bucket edges** ([`bucket_edges`]): under one candidate key, the representatives in page
//!    order: every pair of a bucket of at most [`ALL_PAIRS_BUCKET`], else each paired with the
//!    first and with its predecessor.
//! 3. **Scoring** ([`crate::SideScorer`], [`crate::score`]): a pair's evidence and whether the
//!    configuration accepts it.
//! 4. **Components**: union-find over accepted pairs and identity edges
//!    ([`neardup_cluster::UnionFind`]).
//! 5. **Canonical page** ([`canonical`]): the member first by the keep rule's sort key
//!    ([`neardup_cluster::Keep::sort_key`]), then by page order.
//! 6. **Evidence**: every member scored against its canonical page (step 3 again).

/// Step 0: the partition a page is matched within: 0 for every page, or with `per_language`
/// a 64-bit hash of its language (never 0).
pub fn partition(language: neardup_text::language::Language, per_language: bool) -> u64 {
    if per_language {
        xxhash_rust::xxh3::xxh3_64_with_seed(&language.to_bytes(), PARTITION_SEED) | 1
    } else {
        0
    }
}

/// The seed of [`partition`]'s hash.
const PARTITION_SEED: u64 = 0x6e64_6c61_6e67;

/// A candidate key within a partition: the key itself in partition 0; keys of different
/// partitions never meet (but with probability 2^-64 per pair of keys).
pub fn partitioned(key: u64, partition: u64) -> u64 {
    key ^ partition
}

/// Step 1's key: pages with one token sequence (Henzinger's identity sets) in one partition
/// share it.
pub fn identity_key(token_hash: u64, tokens: u32, partition: u64) -> u64 {
    partitioned(token_hash ^ u64::from(tokens).rotate_left(32), partition)
}

/// Step 1 over pages sorted by `(identity key, page)`: each page is either the first of its
/// set (its representative) or joined to the set's first page.
#[derive(Clone, Debug, Default)]
pub struct IdentitySets<P> {
    open: Option<(u64, P)>,
}

impl<P: Copy> IdentitySets<P> {
    /// A pass over no page yet.
    pub fn new() -> IdentitySets<P> {
        IdentitySets { open: None }
    }

    /// The next page in `(key, page)` order: `None` when it represents a new set, else the
    /// representative it is joined to.
    pub fn push(&mut self, key: u64, page: P) -> Option<P> {
        match self.open {
            Some((k, rep)) if k == key => Some(rep),
            _ => {
                self.open = Some((key, page));
                None
            }
        }
    }
}

/// Buckets of at most this many representatives are expanded into all their pairs: a pair that
/// shares a band key is then always scored, wherever its pages are held (in one run, or one in
/// an index and one added later, which is scored against every indexed page under the key).
pub const ALL_PAIRS_BUCKET: usize = 16;

/// Step 2 for one bucket: `members` are the representatives under one key in page order;
/// `edge(earlier, later)` gets every pair of a bucket of at most [`ALL_PAIRS_BUCKET`] members;
/// in a larger bucket, every member paired with the first and with its predecessor (the
/// second member has one edge, every later member two), so that a bucket of a thousand
/// template pages costs two thousand pairs, not half a million.
pub fn bucket_edges<P: Copy>(members: &[P], mut edge: impl FnMut(P, P)) {
    if members.len() <= ALL_PAIRS_BUCKET {
        for i in 1..members.len() {
            for j in 0..i {
                edge(members[j], members[i]);
            }
        }
        return;
    }
    for i in 1..members.len() {
        edge(members[0], members[i]);
        if i >= 2 {
            edge(members[i - 1], members[i]);
        }
    }
}

/// Step 5: the canonical page of a component, the member with the smallest
/// `(keep_key(page), page)`; `None` for no member.
pub fn canonical<'k, P: Copy + Ord>(
    members: impl IntoIterator<Item = P>,
    keep_key: impl Fn(P) -> &'k [u8],
) -> Option<P> {
    members
        .into_iter()
        .min_by(|&x, &y| (keep_key(x), x).cmp(&(keep_key(y), y)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Bucket edges connect every member, give at most two edges per member after the
        /// first, and always point from an earlier page to a later one.
        #[test]
        fn bucket_edges_connect_the_bucket_with_few_edges(n in 0usize..40) {
            let members: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
            let mut edges = Vec::new();
            bucket_edges(&members, |a, b| edges.push((a, b)));
            let want = if n <= ALL_PAIRS_BUCKET {
                n * n.saturating_sub(1) / 2
            } else {
                n.saturating_sub(1) + n.saturating_sub(2)
            };
            prop_assert_eq!(edges.len(), want);
            let distinct: std::collections::BTreeSet<_> = edges.iter().collect();
            prop_assert_eq!(distinct.len(), edges.len());
            prop_assert!(edges.iter().all(|(a, b)| a < b));
            let mut uf = neardup_cluster::UnionFind::new(3 * n as u32 + 2);
            for &(a, b) in &edges {
                uf.union(a, b);
            }
            prop_assert!(members.iter().all(|&m| uf.find(m) == uf.find(members[0])));
        }

        /// Identity sets over sorted keys equal grouping by key, first page representing.
        #[test]
        fn identity_sets_equal_grouping(keys in proptest::collection::vec(0u64..6, 0..50)) {
            let mut sorted: Vec<(u64, u32)> = keys.iter().enumerate().map(|(p, &k)| (k, p as u32)).collect();
            sorted.sort_unstable();
            let mut sets = IdentitySets::new();
            for &(k, p) in &sorted {
                let first = (0..keys.len() as u32).find(|&q| keys[q as usize] == k).unwrap();
                let want = (first != p).then_some(first);
                prop_assert_eq!(sets.push(k, p), want);
            }
        }
    }

    #[test]
    fn the_canonical_page_is_first_by_key_then_page() {
        let keys: [&[u8]; 4] = [b"b", b"a", b"a", b""];
        assert_eq!(canonical([0u32, 1, 2], |p| keys[p as usize]), Some(1));
        assert_eq!(canonical([0u32, 1, 2, 3], |p| keys[p as usize]), Some(3));
        assert_eq!(canonical(Vec::<u32>::new(), |p| keys[p as usize]), None);
    }
}

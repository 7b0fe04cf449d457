//! The steps of a distributed run that need every row of one key together (identity sets,
//! bucket edges, canonical pages), as functions of one partition's rows: an engine shuffles the
//! rows so that every row of a key lands in one partition (any partitioning, any order within
//! it) and hands each partition's rows here whole. The order within a key, the rule that picks
//! its first page and the edges of a bucket are decided here and in [`crate::steps`], never by
//! the engine, so Spark, Ray and the in-memory run cannot disagree on them.
//!
//! Pages are numbered by any numbering that increases in page order (`i64`, as engines hold
//! them).

use crate::steps;

/// Step 2 (identity sets, [`crate::parts`]' numbering) over one partition's rows `(identity key, page)`: each row's
/// representative, the first page of its key in page order (the page itself for the first).
/// Each row carries a value of the caller's (`T`: where the row came from, say); `rows` is
/// sorted by `(key, page, value)` on return, and `rep[i]` answers `rows[i]`. A page listed twice
/// under one key is its own representative the first time and joined to itself the second.
pub fn identity_representatives<T: Ord>(rows: &mut [(u64, i64, T)]) -> Vec<i64> {
    rows.sort_unstable();
    let mut sets = steps::IdentitySets::new();
    rows.iter()
        .map(|&(key, page, _)| sets.push(key, page).unwrap_or(page))
        .collect()
}

/// Step 3 (candidates) over one partition's rows `(table, key, page)` of identity-set
/// representatives: the edges of every bucket (the representatives under one key of one table,
/// in page order), as [`steps::bucket_edges`] pairs them, each `(earlier, later)`. `rows` is
/// sorted on return. A pair that shares keys in several tables is given once per table: the
/// engine keeps one of each.
pub fn bucket_edges(rows: &mut [(u32, u64, i64)], mut edge: impl FnMut(i64, i64)) {
    rows.sort_unstable();
    let mut members: Vec<i64> = Vec::new();
    for run in rows.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
        members.clear();
        members.extend(run.iter().map(|r| r.2));
        // A page listed twice under one key is one member.
        members.dedup();
        steps::bucket_edges(&members, &mut edge);
    }
}

/// A page's component, its canonical page and the component's size, as
/// [`canonical_pages`] gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The page.
    pub page: i64,
    /// Its component's label.
    pub component: i64,
    /// The component's canonical page ([`steps::canonical`]).
    pub canonical: i64,
    /// Pages in the component.
    pub size: u64,
}

/// Step 6's canonical page over one partition's rows `(component, page, keep key)`: each
/// page with its component's canonical page, the member with the smallest `(keep key, page)`
/// ([`steps::canonical`]), and the component's size; in `(component, page)` order. A page
/// listed twice counts once (its first keep key).
pub fn canonical_pages<K: AsRef<[u8]>>(rows: &mut [(i64, i64, K)]) -> Vec<Canonical> {
    rows.sort_by_key(|r| (r.0, r.1));
    let mut out = Vec::with_capacity(rows.len());
    for run in rows.chunk_by(|x, y| x.0 == y.0) {
        let mut last = None;
        let members: Vec<&(i64, i64, K)> = run
            .iter()
            .filter(|r| last.replace(r.1) != Some(r.1))
            .collect();
        let canonical = steps::canonical(members.iter().map(|r| r.1), |p| {
            let row: &(i64, i64, K) = members[members.partition_point(|r| r.1 < p)];
            row.2.as_ref()
        })
        .expect("a component has a member");
        let size = members.len() as u64;
        out.extend(members.iter().map(|r| Canonical {
            page: r.1,
            component: r.0,
            canonical,
            size,
        }));
    }
    out
}

/// A distributed run's default: graphs of at most this many accepted pairs are clustered in
/// one place (the driver), larger ones by the rounds of [`large_star`] and [`small_star`].
pub const LOCAL_EDGES: u64 = 10_000_000;

/// A distributed run's default: the components' rounds at most, past which it fails.
pub const MAX_ROUNDS: u32 = 100;

/// Connected components spread over partitions, one large-star step (Kiveris et al.,
/// "Connected Components in MapReduce and Beyond", SoCC 2014) over one partition's rows
/// `(node, neighbour)`: both directions of every edge, every row of a node in one partition.
/// Each node's larger neighbours are linked to the smallest node of its neighbourhood, itself
/// included; edges `(smaller, larger)`, a pair possibly given by several nodes. `rows` is
/// sorted on return.
pub fn large_star(rows: &mut [(i64, i64)], mut edge: impl FnMut(i64, i64)) {
    rows.sort_unstable();
    for run in rows.chunk_by(|x, y| x.0 == y.0) {
        let node = run[0].0;
        let least = run[0].1.min(node);
        let mut last = None;
        for &(_, v) in run {
            if v > node && last.replace(v) != Some(v) {
                edge(least, v);
            }
        }
    }
}

/// The small-star step after [`large_star`], over one partition's rows `(node, smaller
/// neighbour)` (each edge once, from its larger end; every row of a node in one partition):
/// each node and its other smaller neighbours are linked to the smallest of them; edges
/// `(smaller, larger)`. `rows` is sorted on return.
pub fn small_star(rows: &mut [(i64, i64)], mut edge: impl FnMut(i64, i64)) {
    rows.sort_unstable();
    for run in rows.chunk_by(|x, y| x.0 == y.0) {
        let (node, least) = run[0];
        edge(least, node);
        let mut last = least;
        for &(_, v) in &run[1..] {
            if v != last {
                edge(least, v);
                last = v;
            }
        }
    }
}

/// The rounds' end test over one partition's rows `(node, other end, node is the larger
/// end)` (both ends of every edge, every row of a node in one partition): the nodes that keep
/// the edges from being stars around each component's smallest node, a larger end with two
/// smaller ends or a node that is both. None left: every edge links a component's smallest
/// node (its label) to a member.
pub fn star_breaks(rows: &mut [(i64, i64, bool)]) -> u64 {
    rows.sort_unstable();
    let mut breaks = 0;
    for run in rows.chunk_by(|x, y| x.0 == y.0) {
        let centre = run.iter().any(|r| !r.2);
        let mut smaller = run.iter().filter(|r| r.2).map(|r| r.1);
        let leaf = smaller.next();
        let two = smaller.any(|o| Some(o) != leaf);
        if two || (centre && leaf.is_some()) {
            breaks += 1;
        }
    }
    breaks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// A partitioning of `rows`: row `i` to partition `part[i] % parts`.
    fn spread<T: Clone>(rows: &[T], part: impl Fn(&T) -> u64, parts: u64) -> Vec<Vec<T>> {
        let mut out = vec![Vec::new(); parts as usize];
        for r in rows {
            out[(part(r) % parts) as usize].push(r.clone());
        }
        out
    }

    proptest! {
        /// However the rows of a key are spread and ordered, a page's representative is the
        /// smallest page of its key.
        #[test]
        fn representatives_are_the_first_page_of_each_key(
            keys in proptest::collection::vec(0u64..8, 0..60),
            parts in 1u64..5,
            salt in any::<u64>(),
        ) {
            let rows: Vec<(u64, i64, ())> = keys.iter().enumerate().map(|(p, &k)| (k, p as i64 * 7 - 3, ())).collect();
            let mut first: BTreeMap<u64, i64> = BTreeMap::new();
            for &(k, p, _) in &rows {
                first.entry(k).and_modify(|f| *f = (*f).min(p)).or_insert(p);
            }
            for mut part in spread(&rows, |r| r.0.wrapping_mul(salt | 1) >> 7, parts) {
                part.reverse();
                let reps = identity_representatives(&mut part);
                for (i, &(k, _, _)) in part.iter().enumerate() {
                    prop_assert_eq!(reps[i], first[&k]);
                }
            }
        }

        /// The edges of every partition together are the edges of each bucket, as the
        /// single-machine step pairs it, whatever the partitioning.
        #[test]
        fn bucket_edges_are_each_buckets_edges(
            rows in proptest::collection::vec((0u32..3, 0u64..5, 0i64..80), 0..120),
            parts in 1u64..5,
        ) {
            let mut buckets: BTreeMap<(u32, u64), BTreeSet<i64>> = BTreeMap::new();
            for &(t, k, p) in &rows {
                buckets.entry((t, k)).or_default().insert(p);
            }
            let mut want = Vec::new();
            for members in buckets.values() {
                let m: Vec<i64> = members.iter().copied().collect();
                steps::bucket_edges(&m, |a, b| want.push((a, b)));
            }
            let mut got = Vec::new();
            for mut part in spread(&rows, |r| u64::from(r.0) * 31 + r.1, parts) {
                bucket_edges(&mut part, |a, b| got.push((a, b)));
            }
            want.sort_unstable();
            got.sort_unstable();
            prop_assert_eq!(got, want);
        }

        /// Large-star and small-star rounds over any partitioning end in stars around each
        /// component's smallest node: the components union-find gives.
        #[test]
        fn star_rounds_give_every_node_its_components_smallest_node(
            edges in proptest::collection::vec((0i64..40, 0i64..40), 0..60),
            parts in 1u64..4,
        ) {
            let mut want: BTreeMap<i64, i64> = BTreeMap::new();
            let mut uf = neardup_cluster::UnionFind::new(40);
            for &(a, b) in &edges {
                uf.union(a as u32, b as u32);
            }
            let mut e: BTreeSet<(i64, i64)> = edges.iter().filter(|(a, b)| a != b)
                .map(|&(a, b)| (a.min(b), a.max(b))).collect();
            for &(a, b) in &e {
                for n in [a, b] {
                    let label = (0..40).find(|&m| uf.find(m as u32) == uf.find(n as u32)).unwrap();
                    want.insert(n, label);
                }
            }
            let by_node = |r: &(i64, i64)| r.0 as u64;
            for round in 0.. {
                prop_assert!(round < 40, "no convergence");
                let both: Vec<(i64, i64)> = e.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
                let mut large = BTreeSet::new();
                for mut part in spread(&both, by_node, parts) {
                    large_star(&mut part, |a, b| { large.insert((a, b)); });
                }
                let up: Vec<(i64, i64)> = large.iter().map(|&(a, b)| (b, a)).collect();
                let mut small = BTreeSet::new();
                for mut part in spread(&up, by_node, parts) {
                    small_star(&mut part, |a, b| { small.insert((a, b)); });
                }
                e = small;
                let ends: Vec<(i64, i64, bool)> = e.iter().flat_map(|&(a, b)| [(a, b, false), (b, a, true)]).collect();
                let breaks: u64 = spread(&ends, |r| r.0 as u64, parts).into_iter()
                    .map(|mut p| star_breaks(&mut p)).sum();
                if breaks == 0 {
                    break;
                }
            }
            let mut got = BTreeMap::new();
            for &(a, b) in &e {
                got.insert(a, a);
                got.insert(b, a);
            }
            prop_assert_eq!(got, want);
        }

        /// Every page gets its component's member with the smallest (keep key, page) and the
        /// component's size.
        #[test]
        fn canonical_pages_are_the_smallest_by_key_then_page(
            members in proptest::collection::vec((0i64..6, 0i64..40, 0u8..4), 0..80),
            parts in 1u64..4,
        ) {
            // One keep key per page.
            let key = |p: i64| vec![(p % 4) as u8, (p % 3) as u8];
            let rows: Vec<(i64, i64, Vec<u8>)> = members.iter().map(|&(c, p, _)| (c, p, key(p))).collect();
            let mut comps: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
            for r in &rows {
                comps.entry(r.0).or_default().insert(r.1);
            }
            let mut got = Vec::new();
            for mut part in spread(&rows, |r| r.0 as u64, parts) {
                got.extend(canonical_pages(&mut part));
            }
            got.sort_by_key(|c| (c.component, c.page));
            let mut want = Vec::new();
            for (&c, pages) in &comps {
                let canon = *pages.iter().min_by_key(|&&p| (key(p), p)).unwrap();
                want.extend(pages.iter().map(|&p| Canonical { page: p, component: c, canonical: canon, size: pages.len() as u64 }));
            }
            prop_assert_eq!(got, want);
        }
    }
}

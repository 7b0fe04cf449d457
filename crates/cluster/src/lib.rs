//! Clusters of near-duplicate pages.
//!
//! * [`UnionFind`]: union by size with path halving over dense `u32` page ids (paper 004's
//!   clustering, near-linear time).
//! * [`Keep`]: the documented rule that picks a cluster's canonical page.
//! * [`star_split`]: the guard against transitive chaining: a component is split so that every
//!   member is a near-duplicate of its cluster's canonical page.
//! * [`stats`]: size distribution, fitted power-law exponent, replicas-per-page histogram.
//!
//! ```
//! use neardup_cluster::{stats, UnionFind};
//!
//! let mut uf = UnionFind::new(5);
//! uf.union(0, 1);
//! uf.union(1, 2);
//! uf.union(3, 4);
//! let components = uf.components();
//! assert_eq!(components, vec![vec![0, 1, 2], vec![3, 4]]);
//! let sizes: Vec<u64> = components.iter().map(|c| c.len() as u64).collect();
//! let s = stats(&sizes);
//! assert_eq!((s.clusters, s.pages_in_clusters), (2, 5));
//! ```

use serde::Serialize;

/// Disjoint sets over `0..n`.
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn new(n: u32) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n as usize],
        }
    }

    /// The representative of `x`'s set.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    /// Merges the sets of `a` and `b`; true if they were apart.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize]
            || (self.size[a as usize] == self.size[b as usize] && a > b)
        {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }

    /// The sets with two or more members, each sorted, ordered by their smallest member.
    pub fn components(&mut self) -> Vec<Vec<u32>> {
        let n = self.parent.len() as u32;
        // Members are met in increasing order, so a set's number is given at its smallest
        // member and the sets come out in the order asked, with no map and no sort.
        let mut number = vec![u32::MAX; self.parent.len()];
        let mut out: Vec<Vec<u32>> = Vec::new();
        for x in 0..n {
            let r = self.find(x);
            let size = self.size[r as usize];
            if size < 2 {
                continue;
            }
            let i = &mut number[r as usize];
            if *i == u32::MAX {
                *i = out.len() as u32;
                out.push(Vec::with_capacity(size as usize));
            }
            out[*i as usize].push(x);
        }
        out
    }
}

/// How the canonical (kept) page of a cluster is chosen. Ties always go to the smaller page id,
/// i.e. the earlier page in input order, so the choice is deterministic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Keep {
    /// The first page in input order.
    First,
    /// The page with the shortest URL.
    ShortestUrl,
    /// The page with the most terms.
    LongestText,
    /// The page with the latest fetch date (ISO 8601 strings compare in time order).
    Newest,
}

/// What [`Keep`] looks at.
pub trait PageFacts {
    /// URL length in bytes.
    fn url_len(&self, page: u32) -> usize;
    /// Number of terms.
    fn tokens(&self, page: u32) -> u32;
    /// Fetch date (ISO 8601), empty if unknown.
    fn date(&self, page: u32) -> &str;
    /// The page is from a reference input (an earlier dump a new one is deduplicated against):
    /// a cluster holding one keeps it, whatever the rule, so every copy of it elsewhere goes.
    fn reference(&self, _page: u32) -> bool {
        false
    }
}

impl Keep {
    /// The canonical page among `members` (non-empty).
    pub fn choose(self, members: &[u32], facts: &impl PageFacts) -> u32 {
        let mut best = members[0];
        for &m in &members[1..] {
            if self.order(m, best, facts).is_lt() {
                best = m;
            }
        }
        best
    }

    /// Orders pages best first (a total order: ties go to the smaller page id); `choose` returns
    /// the first page of this order.
    pub fn order(self, a: u32, b: u32, facts: &impl PageFacts) -> std::cmp::Ordering {
        use std::cmp::Reverse;
        let first = (!facts.reference(a)).cmp(&!facts.reference(b));
        first.then_with(|| match self {
            Keep::First => a.cmp(&b),
            Keep::ShortestUrl => (facts.url_len(a), a).cmp(&(facts.url_len(b), b)),
            Keep::LongestText => (Reverse(facts.tokens(a)), a).cmp(&(Reverse(facts.tokens(b)), b)),
            Keep::Newest => (Reverse(facts.date(a)), a).cmp(&(Reverse(facts.date(b)), b)),
        })
    }

    /// Page `p`'s key under this rule as bytes: ordering pages by `(key, page)`, the keys
    /// compared as unsigned bytes, is [`Keep::order`]. For engines that can sort bytes but not
    /// call back (a distributed run picks each cluster's canonical page by its smallest key).
    /// `out` is cleared first.
    ///
    /// First a byte, 0 for a reference page and 1 for any other; then for first: nothing;
    /// shortest URL: the length, big-endian; longest text: the complement of the terms,
    /// big-endian; newest: each byte of the date as `0xFE, !byte`, then `0xFF` (a date that is
    /// a prefix of another sorts after it, as in descending order).
    pub fn sort_key(self, p: u32, facts: &impl PageFacts, out: &mut Vec<u8>) {
        out.clear();
        out.push(u8::from(!facts.reference(p)));
        match self {
            Keep::First => {}
            Keep::ShortestUrl => out.extend_from_slice(&(facts.url_len(p) as u64).to_be_bytes()),
            Keep::LongestText => out.extend_from_slice(&(!facts.tokens(p)).to_be_bytes()),
            Keep::Newest => {
                for &b in facts.date(p).as_bytes() {
                    out.extend_from_slice(&[0xFE, !b]);
                }
                out.push(0xFF);
            }
        }
    }
}

/// Splits a component into star clusters: pick the canonical page of the remaining members,
/// keep every member `near(canonical, member)` says is a near-duplicate, repeat with the rest.
/// Returns `(canonical, members)` pairs; singletons are left out. At most `O(size^2)` calls in
/// the worst case, `O(size)` when the component is one true cluster.
pub fn star_split(
    component: &[u32],
    keep: Keep,
    facts: &impl PageFacts,
    mut near: impl FnMut(u32, u32) -> bool,
) -> Vec<(u32, Vec<u32>)> {
    let mut rest: Vec<u32> = component.to_vec();
    let mut out = Vec::new();
    while rest.len() >= 2 {
        let c = keep.choose(&rest, facts);
        let mut members = vec![c];
        let mut left = Vec::new();
        for &m in &rest {
            if m == c {
                continue;
            }
            if near(c, m) {
                members.push(m);
            } else {
                left.push(m);
            }
        }
        if members.len() >= 2 {
            members.sort_unstable();
            out.push((c, members));
        }
        rest = left;
    }
    out
}

/// [`star_split`] over a match graph: the best remaining page (by `keep`) becomes a canonical
/// page and takes every remaining page that `neighbors(canonical, out)` appends to `out`. With
/// `neighbors` listing every near-duplicate of a page (an exact range search), the result
/// equals [`star_split`]; with fewer, every member still matches its canonical page.
/// `O(size log size + edges)`.
pub fn star_split_graph(
    component: &[u32],
    keep: Keep,
    facts: &impl PageFacts,
    mut neighbors: impl FnMut(u32, &mut Vec<u32>),
) -> Vec<(u32, Vec<u32>)> {
    let mut order = component.to_vec();
    order.sort_unstable_by(|&a, &b| keep.order(a, b, facts));
    // Membership by binary search in the sorted component: no per-page map.
    let mut sorted = component.to_vec();
    sorted.sort_unstable();
    let mut taken = vec![false; sorted.len()];
    let slot = |p: u32| sorted.binary_search(&p).ok();
    let mut out = Vec::new();
    let mut near = Vec::new();
    for &c in &order {
        let ci = slot(c).expect("a component member");
        if taken[ci] {
            continue;
        }
        taken[ci] = true;
        let mut members = vec![c];
        near.clear();
        neighbors(c, &mut near);
        for &m in &near {
            if let Some(mi) = slot(m) {
                if !taken[mi] {
                    taken[mi] = true;
                    members.push(m);
                }
            }
        }
        if members.len() >= 2 {
            members.sort_unstable();
            out.push((c, members));
        }
    }
    out
}

/// Statistics over clusters.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClusterStats {
    /// Number of clusters (two or more pages).
    pub clusters: usize,
    /// Pages in clusters.
    pub pages_in_clusters: u64,
    /// `(size, number of clusters of that size)`, by size.
    pub size_distribution: Vec<(u64, u64)>,
    /// Maximum-likelihood power-law exponent `alpha` of the cluster sizes (sizes >= 2), with the
    /// discrete approximation `1 + n / sum(ln(s / (s_min - 1/2)))` (Clauset, Shalizi, Newman);
    /// `None` for fewer than [`MIN_FIT_CLUSTERS`] clusters or [`MIN_FIT_SIZES`] distinct sizes.
    pub power_law_alpha: Option<f64>,
    /// `(replicas, pages)`: how many pages have that many other copies (paper 002 Figure 1).
    pub replicas_per_page: Vec<(u64, u64)>,
}

/// Clusters a power-law fit needs at least.
pub const MIN_FIT_CLUSTERS: usize = 20;
/// Distinct cluster sizes a power-law fit needs at least.
pub const MIN_FIT_SIZES: usize = 4;

/// Computes [`ClusterStats`] from cluster sizes.
pub fn stats(sizes: &[u64]) -> ClusterStats {
    let mut dist = std::collections::BTreeMap::new();
    for &s in sizes {
        *dist.entry(s).or_insert(0u64) += 1;
    }
    let n = sizes.len();
    // A fit needs data that can carry it: enough clusters over enough distinct sizes.
    let alpha = if n >= MIN_FIT_CLUSTERS && dist.len() >= MIN_FIT_SIZES {
        let smin = 2.0f64;
        let sum: f64 = sizes.iter().map(|&s| (s as f64 / (smin - 0.5)).ln()).sum();
        (sum > 0.0).then(|| 1.0 + n as f64 / sum)
    } else {
        None
    };
    let replicas = dist.iter().map(|(&s, &c)| (s - 1, s * c)).collect();
    ClusterStats {
        clusters: n,
        pages_in_clusters: sizes.iter().sum(),
        size_distribution: dist.into_iter().collect(),
        power_law_alpha: alpha,
        replicas_per_page: replicas,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Facts(Vec<(usize, u32, &'static str)>);
    impl PageFacts for Facts {
        fn url_len(&self, p: u32) -> usize {
            self.0[p as usize].0
        }
        fn tokens(&self, p: u32) -> u32 {
            self.0[p as usize].1
        }
        fn date(&self, p: u32) -> &str {
            self.0[p as usize].2
        }
    }

    #[test]
    fn union_find_components() {
        let mut uf = UnionFind::new(8);
        uf.union(1, 2);
        uf.union(3, 2);
        uf.union(6, 7);
        uf.union(7, 6);
        assert_eq!(uf.components(), vec![vec![1, 2, 3], vec![6, 7]]);
    }

    #[test]
    fn keep_rules_and_ties() {
        let f = Facts(vec![
            (10, 5, "2024-01"),
            (5, 9, "2023-01"),
            (5, 9, "2025-01"),
            (20, 1, "2025-01"),
        ]);
        let all = [0, 1, 2, 3];
        assert_eq!(Keep::First.choose(&all, &f), 0);
        assert_eq!(Keep::ShortestUrl.choose(&all, &f), 1);
        assert_eq!(Keep::LongestText.choose(&all, &f), 1);
        assert_eq!(Keep::Newest.choose(&all, &f), 2);
    }

    #[test]
    fn star_split_breaks_chains() {
        // A chain 0 - 1 - 2 - 3 where only neighbours are near-duplicates.
        let f = Facts(vec![(1, 1, ""); 4]);
        let near = |a: u32, b: u32| a.abs_diff(b) == 1;
        let got = star_split(&[0, 1, 2, 3], Keep::First, &f, near);
        assert_eq!(got, vec![(0, vec![0, 1]), (2, vec![2, 3])]);
    }

    proptest::proptest! {
        /// Components are those of a brute-force search (each page's set by repeated
        /// relabelling), sets of two or more, sorted, in the order of their smallest member.
        #[test]
        fn components_match_brute_force(
            n in 1u32..80,
            edges in proptest::collection::vec((0u32..80, 0u32..80), 0..120),
        ) {
            let edges: Vec<(u32, u32)> = edges.into_iter().map(|(a, b)| (a % n, b % n)).collect();
            let mut uf = UnionFind::new(n);
            let mut label: Vec<u32> = (0..n).collect();
            for &(a, b) in &edges {
                uf.union(a, b);
            }
            loop {
                let mut changed = false;
                for &(a, b) in &edges {
                    let m = label[a as usize].min(label[b as usize]);
                    for x in [a, b] {
                        if label[x as usize] != m {
                            label[x as usize] = m;
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            let mut want: Vec<Vec<u32>> = Vec::new();
            for l in 0..n {
                let set: Vec<u32> = (0..n).filter(|&x| label[x as usize] == l).collect();
                if set.len() >= 2 {
                    want.push(set);
                }
            }
            want.sort();
            proptest::prop_assert_eq!(uf.components(), want);
        }

        /// With exact neighbour lists, the graph version equals the exhaustive star split, for
        /// every keep rule.
        #[test]
        fn star_split_graph_equals_star_split(
            n in 1u32..60,
            edges in proptest::collection::vec((0u32..60, 0u32..60), 0..200),
            facts in proptest::collection::vec((1usize..6, 1u32..6, 0usize..3), 60),
            skip in 0u32..4,
        ) {
            let dates = ["2023", "2024", "2025"];
            let f = Facts(facts.iter().map(|&(u, t, d)| (u, t, dates[d])).collect());
            let mut adj = vec![Vec::new(); 60];
            for &(a, b) in &edges {
                if a != b && a < n && b < n {
                    adj[a as usize].push(b);
                    adj[b as usize].push(a);
                }
            }
            for l in &mut adj {
                l.sort_unstable();
                l.dedup();
            }
            let component: Vec<u32> = (0..n).filter(|p| skip == 0 || p % 4 != skip).collect();
            for keep in [Keep::First, Keep::ShortestUrl, Keep::LongestText, Keep::Newest] {
                let want = star_split(&component, keep, &f, |a, b| adj[a as usize].binary_search(&b).is_ok());
                let got = star_split_graph(&component, keep, &f, |c, out| out.extend(&adj[c as usize]));
                proptest::prop_assert_eq!(got, want);
            }
        }
    }

    /// Facts with some pages from a reference input.
    struct WithReferences<'a>(&'a Facts, Vec<bool>);
    impl PageFacts for WithReferences<'_> {
        fn url_len(&self, p: u32) -> usize {
            self.0.url_len(p)
        }
        fn tokens(&self, p: u32) -> u32 {
            self.0.tokens(p)
        }
        fn date(&self, p: u32) -> &str {
            self.0.date(p)
        }
        fn reference(&self, p: u32) -> bool {
            self.1[p as usize]
        }
    }

    proptest::proptest! {
        /// A reference page comes first under every rule, and sort keys still order pages as
        /// the rule does.
        #[test]
        fn reference_pages_come_first(
            facts in proptest::collection::vec((0usize..4, 0u32..5), 2..12),
            refs in proptest::collection::vec(proptest::bool::ANY, 12),
        ) {
            let f = Facts(facts.iter().map(|&(u, t)| (u, t, "2020")).collect());
            let n = f.0.len() as u32;
            let w = WithReferences(&f, refs[..n as usize].to_vec());
            let all: Vec<u32> = (0..n).collect();
            for keep in [Keep::First, Keep::ShortestUrl, Keep::LongestText, Keep::Newest] {
                let c = keep.choose(&all, &w);
                proptest::prop_assert!(w.1[c as usize] || !w.1.contains(&true));
                let key = |p: u32| {
                    let mut k = Vec::new();
                    keep.sort_key(p, &w, &mut k);
                    (k, p)
                };
                for a in 0..n {
                    for b in 0..n {
                        proptest::prop_assert_eq!(key(a).cmp(&key(b)), keep.order(a, b, &w));
                    }
                }
            }
        }

        /// Sorting by `(sort_key, page)` is the rule's order, dates with any bytes included.
        #[test]
        fn sort_keys_order_pages_as_the_rule(
            facts in proptest::collection::vec((0usize..4, 0u32..5, "[\\x00-\\xff]{0,4}"), 2..12),
        ) {
            let dates: Vec<&'static str> = facts.iter().map(|f| &*f.2.clone().leak()).collect();
            let f = Facts(facts.iter().zip(&dates).map(|(&(u, t, _), &d)| (u, t, d)).collect());
            let n = f.0.len() as u32;
            for keep in [Keep::First, Keep::ShortestUrl, Keep::LongestText, Keep::Newest] {
                let key = |p: u32| {
                    let mut k = vec![1u8; 3];
                    keep.sort_key(p, &f, &mut k);
                    (k, p)
                };
                for a in 0..n {
                    for b in 0..n {
                        proptest::prop_assert_eq!(key(a).cmp(&key(b)), keep.order(a, b, &f));
                    }
                }
            }
        }
    }

    #[test]
    fn stats_and_power_law() {
        let s = stats(&[2, 2, 2, 3, 10]);
        assert_eq!(s.clusters, 5);
        assert_eq!(s.pages_in_clusters, 19);
        assert_eq!(s.size_distribution, vec![(2, 3), (3, 1), (10, 1)]);
        assert_eq!(s.replicas_per_page, vec![(1, 6), (2, 3), (9, 10)]);
        // Five clusters over three sizes carry no fit.
        assert_eq!(s.power_law_alpha, None);
        assert_eq!(stats(&[]).power_law_alpha, None);
        let many: Vec<u64> = (0..40u64).map(|i| 2 + (i * i) % 7).collect();
        assert!(stats(&many).power_law_alpha.unwrap() > 1.0);
    }
}

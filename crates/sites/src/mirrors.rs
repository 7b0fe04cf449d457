//! Mirrored sites from near-duplicate clusters (paper 004 sections 2 and 4), verified by shared
//! URL suffixes (Bharat and Broder).
//!
//! 1. Candidate hosts: hosts with at least `min_pages` pages in non-singleton clusters.
//! 2. In every cluster, a preferred host name per IP address (the smallest name among the
//!    cluster's hosts on that IP): pages of other names on the same IP are alias evidence, not
//!    mirror evidence, so virtually hosted sites on one IP can still mirror each other.
//! 3. Host pairs: for each pair of candidate hosts in a cluster, the pages of each host in it are
//!    counted; a pair is found when both counts reach `min_pages`. A host "mirroring itself"
//!    (auto-mirror) is excluded, but within one host, clusters whose pages sit under different
//!    path prefixes with a common suffix (e.g. `/1.63.0/std/..` and `/stable/std/..`) are
//!    reported as subtree mirrors.
//! 4. Aliases: names equal after removing a leading `www.`, or sharing an IP address.
//! 5. Verification: the last 1..4 slash-separated arcs of every URL path of one host (query
//!    dropped) go into a Bloom filter sized for a 1% false-positive rate; the fraction of the
//!    other host's shared pages whose last arc, and whose last four arcs, pass is reported.
//! 6. Prefixes: every shared page is paired with the page of the other host in its cluster with
//!    the longest common path suffix; the prefixes left once that suffix is removed are voted
//!    on, the winner is the pair's `(prefix_a, prefix_b)`.
//! 7. Decision: a pair that is not an alias is a mirror only when at least `min_suffix_match`
//!    of its shared pages have their last path arc on the other host: sites that share a
//!    template (shops on one theme) but no URLs are not mirrors. Two hosts of at most
//!    `parked_max_pages` pages each, most of whose shared clusters span at least three host
//!    names and most of whose shared pages sit at the top of the host (a path of at most one
//!    arc), are parked domains: one template served under many names (`parked`, their own
//!    kind), on one parking IP or not. Deep shared paths make a mirror (a proxy of a news
//!    site), whatever the hosts' sizes.
//! 8. Groups: hosts joined by reported pairs form groups (connected components), each with an
//!    id, every member and its kind (the strongest of its pairs'): 30 parked domains are one
//!    group, however their pairs were found. A subtree mirror within a host is a group of its
//!    own. An empty result says why ([`MirrorReport::explanation`]).

use neardup_store::Corpus;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Settings of mirror detection.
#[derive(Clone, Debug, Serialize)]
pub struct MirrorConfig {
    /// Pages a host needs in non-singleton clusters, and a pair in common (paper 004: 10, for
    /// a crawl of millions of hosts; neardup: 2, and the shared paths decide).
    pub min_pages: u64,
    /// Share of the shared pages whose last path arc is on the other host that a non-alias
    /// pair needs to be reported.
    pub min_suffix_match: f64,
    /// Parked domains have at most this many pages.
    pub parked_max_pages: u64,
    /// Bloom filter false-positive rate.
    pub bloom_fp: f64,
    /// Share of both hosts' pages a root-to-root pair must share to be a full mirror.
    pub full_share: f64,
    /// Example URL pairs kept per host pair.
    pub examples: usize,
}

impl Default for MirrorConfig {
    fn default() -> Self {
        MirrorConfig {
            min_pages: 2,
            min_suffix_match: 0.5,
            parked_max_pages: 5,
            bloom_fp: 0.01,
            full_share: 0.8,
            examples: 3,
        }
    }
}

/// What a host pair is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorKind {
    /// Both hosts share most of their pages, under the same paths.
    Mirror,
    /// A part of the hosts, or a detached subtree (different path prefixes).
    PartialMirror,
    /// The same site under two names (`www.` or one IP address).
    Alias,
    /// Parked domains: small hosts serving one template under their own names (a group of at
    /// least three hosts; every pair of the group is reported).
    Parked,
    /// Two subtrees of one host holding the same pages under different path prefixes.
    SubtreeMirror,
}

impl MirrorKind {
    /// Its name, as the tables write it.
    pub fn as_str(self) -> &'static str {
        match self {
            MirrorKind::Mirror => "mirror",
            MirrorKind::PartialMirror => "partial-mirror",
            MirrorKind::Alias => "alias",
            MirrorKind::Parked => "parked",
            MirrorKind::SubtreeMirror => "subtree-mirror",
        }
    }

    /// How strongly it names a group of hosts (a group with a mirror pair is a mirror group).
    fn strength(self) -> u8 {
        match self {
            MirrorKind::Mirror => 4,
            MirrorKind::PartialMirror => 3,
            MirrorKind::SubtreeMirror => 2,
            MirrorKind::Parked => 1,
            MirrorKind::Alias => 0,
        }
    }
}

/// One reported host pair.
#[derive(Clone, Debug, Serialize)]
pub struct HostPair {
    /// First host (the smaller name; equal to `host_b` for a subtree mirror within a host).
    pub host_a: String,
    /// Second host.
    pub host_b: String,
    /// Path prefix of the shared pages on `host_a` (`/` = the whole host).
    pub prefix_a: String,
    /// Path prefix on `host_b`.
    pub prefix_b: String,
    /// Kind.
    pub kind: MirrorKind,
    /// Why an alias: `www` or `same-ip`.
    pub alias_reason: Option<&'static str>,
    /// Pages of `host_a` sharing a cluster with a page of `host_b` (under the prefixes for a
    /// subtree mirror within a host).
    pub shared_a: u64,
    /// Pages of `host_b` sharing a cluster with a page of `host_a`.
    pub shared_b: u64,
    /// Pages of `host_a` in the corpus (under `prefix_a` for a subtree mirror within a host).
    pub pages_a: u64,
    /// Pages of `host_b` in the corpus (under `prefix_b` for a subtree mirror within a host).
    pub pages_b: u64,
    /// The group of hosts the pair belongs to ([`MirrorGroup::id`]).
    pub group: u32,
    /// Share of `host_b`'s shared pages whose last path arc is among `host_a`'s (Bloom filter).
    pub suffix_match_last_arc: f64,
    /// Share whose last four arcs (all, when fewer) are among `host_a`'s.
    pub suffix_match_four_arcs: f64,
    /// Distinct IP addresses of `host_a`.
    pub ips_a: u64,
    /// Distinct IP addresses of `host_b`.
    pub ips_b: u64,
    /// A few URL pairs from shared clusters.
    pub examples: Vec<(String, String)>,
}

/// Counts as in paper 004 section 4.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MirrorCounts {
    /// Hosts with at least `min_pages` pages in non-singleton clusters.
    pub candidate_hosts: u64,
    /// Host pairs (two names) sharing at least `min_pages` pages each way, before filtering.
    pub host_pairs_found: u64,
    /// Hosts with at least `min_pages` pages in clusters with their own other pages.
    pub auto_mirrors: u64,
    /// Pairs that are aliases (`www.` or one IP).
    pub aliases: u64,
    /// Found pairs with a host without a known IP address.
    pub unresolvable: u64,
    /// Full mirrors.
    pub mirrors: u64,
    /// Partial and subtree mirrors between two hosts.
    pub partial_mirrors: u64,
    /// Subtree mirrors within one host.
    pub subtree_mirrors_within_host: u64,
    /// Pairs of parked domains.
    pub parked: u64,
    /// Pairs sharing pages but too few URL paths to be mirrors (template-sharing sites).
    pub rejected_without_common_paths: u64,
    /// Groups of hosts joined by reported pairs.
    pub groups: u64,
}

/// Hosts joined by reported pairs.
#[derive(Clone, Debug, Serialize)]
pub struct MirrorGroup {
    /// Its id (1, 2, ...: the group of the first reported pair is 1).
    pub id: u32,
    /// The strongest kind among its pairs (mirror, partial mirror, subtree mirror, parked,
    /// alias).
    pub kind: MirrorKind,
    /// Every host of the group, by name.
    pub hosts: Vec<String>,
    /// Every member: its hosts, or for subtree mirrors within a host its subtrees
    /// (`host/prefix/`).
    pub members: Vec<String>,
    /// Its reported pairs.
    pub pairs: u64,
    /// Its pairs by kind.
    pub pairs_by_kind: BTreeMap<&'static str, u64>,
    /// Pages of its hosts in the corpus.
    pub pages: u64,
    /// Distinct IP addresses of its hosts.
    pub ips: u64,
}

/// Everything mirror detection finds.
#[derive(Clone, Debug, Serialize)]
pub struct MirrorReport {
    /// Reported pairs: mirrors and partial mirrors by decreasing size, then aliases.
    pub pairs: Vec<HostPair>,
    /// Counts.
    pub counts: MirrorCounts,
    /// `(mirror size, pairs)`: size = shared pages of both hosts (paper 004 Figure 12).
    pub size_distribution: Vec<(u64, u64)>,
    /// Groups of hosts, in the order of their first pair.
    pub groups: Vec<MirrorGroup>,
    /// Why nothing was found, when nothing was.
    pub explanation: Option<String>,
}

/// A Bloom filter over 64-bit hashes (double hashing, `k` probes).
#[derive(Debug)]
pub struct Bloom {
    bits: Vec<u64>,
    k: u32,
}

impl Bloom {
    /// Sized for `n` items at false-positive rate `p`: `m = -n ln p / ln² 2` bits, `k = m/n ln 2`.
    pub fn new(n: usize, p: f64) -> Bloom {
        let n = n.max(1) as f64;
        let p = p.clamp(1e-9, 0.5);
        let m = (-n * p.ln() / (2f64.ln() * 2f64.ln())).ceil().max(64.0) as usize;
        let k = ((m as f64 / n) * 2f64.ln()).round().clamp(1.0, 30.0) as u32;
        Bloom {
            bits: vec![0; m.div_ceil(64)],
            k,
        }
    }

    fn probe(&self, h: u64, i: u64) -> usize {
        let m = self.bits.len() as u64 * 64;
        (h.wrapping_add(i.wrapping_mul(h.rotate_left(32) | 1)) % m) as usize
    }

    /// Adds a hash.
    pub fn insert(&mut self, h: u64) {
        for i in 0..self.k as u64 {
            let b = self.probe(h, i);
            self.bits[b / 64] |= 1 << (b % 64);
        }
    }

    /// True when `h` may have been added (false positives at the configured rate).
    pub fn contains(&self, h: u64) -> bool {
        (0..self.k as u64).all(|i| {
            let b = self.probe(h, i);
            self.bits[b / 64] & (1 << (b % 64)) != 0
        })
    }
}

/// A Bloom filter of the 1..4-arc path suffixes of every URL of a host.
fn host_bloom(urls: &[&str], fp: f64) -> Bloom {
    let mut b = Bloom::new(4 * urls.len(), fp);
    for u in urls {
        let a = arcs(u);
        for k in 1..=4 {
            b.insert(suffix_hash(&a, k));
        }
    }
    b
}

/// The path of a URL without scheme, host, query and fragment, split into arcs.
fn arcs(url: &str) -> Vec<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    let path = path.split(['?', '#']).next().unwrap_or("");
    path.split('/').filter(|a| !a.is_empty()).collect()
}

/// Hash of the last `n` arcs (all when fewer), tagged with `n`.
fn suffix_hash(arcs: &[&str], n: usize) -> u64 {
    let take = n.min(arcs.len());
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(n as u64);
    for a in &arcs[arcs.len() - take..] {
        h.update(a.as_bytes());
        h.update(b"/");
    }
    h.digest()
}

/// Arcs two paths share at their ends.
fn common_suffix(a: &[&str], b: &[&str]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

fn prefix(arcs: &[&str], keep: usize) -> String {
    let head = &arcs[..arcs.len() - keep];
    if head.is_empty() {
        "/".to_string()
    } else {
        format!("/{}/", head.join("/"))
    }
}

fn strip_www(h: &str) -> &str {
    h.strip_prefix("www.").unwrap_or(h)
}

#[derive(Default)]
struct PairAcc {
    pages_a: BTreeSet<u32>,
    pages_b: BTreeSet<u32>,
    votes: BTreeMap<(String, String), u64>,
    examples: Vec<(u32, u32)>,
    /// Clusters shared, and of them those spanning three host names or more.
    clusters: u64,
    wide: u64,
}

/// Pages of one cluster per host are paired at most this many ways for prefix votes.
const VOTE_CAP: usize = 16;

/// Finds mirrored hosts from a corpus and its near-duplicate clusters (lists of page ids).
/// `extra_ips` adds host -> IP addresses (e.g. from a hosts file) to the crawl's own.
pub fn mirrors(
    corpus: &Corpus,
    clusters: &[Vec<u32>],
    extra_ips: &HashMap<String, Vec<String>>,
    cfg: &MirrorConfig,
) -> MirrorReport {
    let page = |p: u32| corpus.page(p);
    let mut host_pages: BTreeMap<&str, u64> = BTreeMap::new();
    let mut host_ips: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for m in corpus.pages() {
        *host_pages.entry(m.host).or_default() += 1;
        let ips = host_ips.entry(m.host).or_default();
        if !m.ip.is_empty() {
            ips.insert(m.ip);
        }
    }
    for (h, ips) in extra_ips {
        if let Some(set) = host_ips.get_mut(h.as_str()) {
            set.extend(ips.iter().map(String::as_str));
        }
    }
    let ip_of = |p: u32| -> Option<&str> {
        let m = page(p);
        if !m.ip.is_empty() {
            return Some(m.ip);
        }
        host_ips.get(m.host).and_then(|s| s.iter().next().copied())
    };

    // 1. Candidate hosts.
    let mut in_clusters: BTreeMap<&str, u64> = BTreeMap::new();
    for c in clusters.iter().filter(|c| c.len() >= 2) {
        for &p in c {
            *in_clusters.entry(page(p).host).or_default() += 1;
        }
    }
    let candidate: BTreeSet<&str> = in_clusters
        .iter()
        .filter(|(_, &n)| n >= cfg.min_pages)
        .map(|(h, _)| *h)
        .collect();

    // 2.-3. Per cluster: preferred names, host pairs, prefix votes.
    let mut pairs: BTreeMap<(&str, &str), PairAcc> = BTreeMap::new();
    let mut aliases_by_ip: BTreeMap<(&str, &str), PairAcc> = BTreeMap::new();
    let mut auto: BTreeMap<&str, u64> = BTreeMap::new();
    let mut within: BTreeMap<(&str, String, String), PairAcc> = BTreeMap::new();
    for c in clusters.iter().filter(|c| c.len() >= 2) {
        // Spanning three host names or more (parked domains share such clusters).
        let wide = {
            let names: BTreeSet<&str> = c.iter().map(|&p| strip_www(page(p).host)).collect();
            u64::from(names.len() >= 3)
        };
        let mut preferred: BTreeMap<&str, &str> = BTreeMap::new();
        for &p in c {
            if let Some(ip) = ip_of(p) {
                let h = page(p).host;
                let e = preferred.entry(ip).or_insert(h);
                if h < *e {
                    *e = h;
                }
            }
        }
        let mut by_host: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        let mut alias_pages: Vec<(&str, &str, u32)> = Vec::new();
        for &p in c {
            let h = page(p).host;
            if !candidate.contains(h) {
                continue;
            }
            match ip_of(p).and_then(|ip| preferred.get(ip)) {
                Some(&pref) if pref != h => alias_pages.push((pref, h, p)),
                _ => by_host.entry(h).or_default().push(p),
            }
        }
        // Names kept apart on one IP: both sides' pages of this cluster count for the alias.
        let mut seen: BTreeSet<(&str, &str)> = BTreeSet::new();
        for &(pref, h, p) in &alias_pages {
            let key = (pref.min(h), pref.max(h));
            let acc = aliases_by_ip.entry(key).or_default();
            if seen.insert(key) {
                acc.clusters += 1;
                acc.wide += wide;
            }
            let (mine, theirs) = if pref < h {
                (&mut acc.pages_b, &mut acc.pages_a)
            } else {
                (&mut acc.pages_a, &mut acc.pages_b)
            };
            mine.insert(p);
            theirs.extend(by_host.get(pref).into_iter().flatten());
            if acc.examples.len() < cfg.examples {
                if let Some(&q) = by_host.get(pref).and_then(|v| v.first()) {
                    acc.examples.push(if pref < h { (q, p) } else { (p, q) });
                }
            }
        }
        let hosts: Vec<(&str, Vec<u32>)> = by_host.into_iter().collect();
        for (i, (ha, pa)) in hosts.iter().enumerate() {
            if pa.len() >= 2 {
                *auto.entry(ha).or_default() += pa.len() as u64;
                // Subtree mirrors within the host: pages with a common suffix under different
                // prefixes.
                for (x, &p) in pa.iter().enumerate().take(VOTE_CAP) {
                    let ap = arcs(page(p).url);
                    for &q in pa.iter().skip(x + 1).take(VOTE_CAP) {
                        let aq = arcs(page(q).url);
                        let s = common_suffix(&ap, &aq);
                        if s == 0 || s == ap.len() || s == aq.len() {
                            continue;
                        }
                        let (pp, pq) = (prefix(&ap, s), prefix(&aq, s));
                        let (key, first, second) = if pp <= pq {
                            ((*ha, pp, pq), p, q)
                        } else {
                            ((*ha, pq, pp), q, p)
                        };
                        let e = within.entry(key).or_default();
                        e.pages_a.insert(first);
                        e.pages_b.insert(second);
                        if e.examples.len() < cfg.examples {
                            e.examples.push((first, second));
                        }
                    }
                }
            }
            for (hb, pb) in &hosts[i + 1..] {
                let acc = pairs.entry((ha, hb)).or_default();
                acc.clusters += 1;
                acc.wide += wide;
                acc.pages_a.extend(pa);
                acc.pages_b.extend(pb);
                for &q in pb.iter().take(VOTE_CAP) {
                    let aq = arcs(page(q).url);
                    let best = pa
                        .iter()
                        .take(VOTE_CAP)
                        .map(|&p| {
                            let ap = arcs(page(p).url);
                            (common_suffix(&ap, &aq), p)
                        })
                        .max_by_key(|&(s, p)| (s, std::cmp::Reverse(p)));
                    if let Some((s, p)) = best {
                        if s > 0 {
                            let ap = arcs(page(p).url);
                            *acc.votes
                                .entry((prefix(&ap, s), prefix(&aq, s)))
                                .or_default() += 1;
                        }
                        if acc.examples.len() < cfg.examples {
                            acc.examples.push((p, q));
                        }
                    }
                }
            }
        }
    }

    // 4.-6. Classify, verify, report.
    let mut counts = MirrorCounts {
        candidate_hosts: candidate.len() as u64,
        auto_mirrors: auto.values().filter(|&&n| n >= cfg.min_pages).count() as u64,
        ..Default::default()
    };
    let n = cfg.min_pages;
    let ips = |h: &str| host_ips.get(h).map_or(0, |s| s.len() as u64);
    let urls = |v: &[(u32, u32)]| -> Vec<(String, String)> {
        v.iter()
            .map(|&(a, b)| (page(a).url.to_string(), page(b).url.to_string()))
            .collect()
    };
    // Suffix hashes of every page of a host, built once per host that needs them.
    let mut blooms: HashMap<&str, Bloom> = HashMap::new();
    let mut host_urls: HashMap<&str, Vec<&str>> = HashMap::new();
    for m in corpus.pages() {
        host_urls.entry(m.host).or_default().push(m.url);
    }
    // Shares of pages whose last arc / last four arcs pass the filter.
    let verify = |bloom: &Bloom, pages: &BTreeSet<u32>| {
        let (mut last, mut four) = (0u64, 0u64);
        for &q in pages {
            let a = arcs(page(q).url);
            last += u64::from(bloom.contains(suffix_hash(&a, 1)));
            four += u64::from(bloom.contains(suffix_hash(&a, 4)));
        }
        let n = pages.len().max(1) as f64;
        (last as f64 / n, four as f64 / n)
    };
    let row = |ha: &str,
               hb: &str,
               acc: &PairAcc,
               (prefix_a, prefix_b): (String, String),
               kind: MirrorKind,
               alias_reason: Option<&'static str>,
               (last, four): (f64, f64)| HostPair {
        host_a: ha.to_string(),
        host_b: hb.to_string(),
        prefix_a,
        prefix_b,
        kind,
        alias_reason,
        shared_a: acc.pages_a.len() as u64,
        shared_b: acc.pages_b.len() as u64,
        pages_a: host_pages[ha],
        pages_b: host_pages[hb],
        group: 0,
        suffix_match_last_arc: last,
        suffix_match_four_arcs: four,
        ips_a: ips(ha),
        ips_b: ips(hb),
        examples: urls(&acc.examples),
    };
    let mut out = Vec::new();
    // Pairs sharing enough pages each way; then names kept apart by the preferred-host rule
    // (one IP, so classified as aliases below) that are not such a pair already.
    let enough = |acc: &PairAcc| acc.pages_a.len() as u64 >= n && acc.pages_b.len() as u64 >= n;
    let found = pairs.iter().filter(|(_, acc)| enough(acc));
    let kept_apart = aliases_by_ip
        .iter()
        .filter(|(k, acc)| enough(acc) && !pairs.get(*k).is_some_and(enough));
    for ((ha, hb), acc) in found.chain(kept_apart) {
        let (sa, sb) = (acc.pages_a.len() as u64, acc.pages_b.len() as u64);
        counts.host_pairs_found += 1;
        let www = strip_www(ha) == strip_www(hb);
        let same_ip = host_ips
            .get(ha)
            .zip(host_ips.get(hb))
            .is_some_and(|(x, y)| !x.is_disjoint(y));
        if ips(ha) == 0 || ips(hb) == 0 {
            counts.unresolvable += 1;
        }
        let bloom = blooms
            .entry(ha)
            .or_insert_with(|| host_bloom(&host_urls[ha], cfg.bloom_fp));
        let (last, four) = verify(bloom, &acc.pages_b);
        let ((pa, pb), _) = acc
            .votes
            .iter()
            .max_by_key(|(k, &v)| (v, std::cmp::Reverse((*k).clone())))
            .map(|(k, v)| (k.clone(), *v))
            .unwrap_or((("/".into(), "/".into()), 0));
        // Parked: small hosts, in clusters of three names or more, at the top of their hosts
        // (whatever their IPs: parking services put thousands of names on one address).
        let small = |h: &str| host_pages[h] <= cfg.parked_max_pages;
        let shallow = acc
            .pages_a
            .iter()
            .chain(&acc.pages_b)
            .filter(|&&p| arcs(page(p).url).len() <= 1)
            .count();
        let parked = small(ha)
            && small(hb)
            && 2 * acc.wide > acc.clusters
            && 2 * shallow > acc.pages_a.len() + acc.pages_b.len();
        let (kind, alias_reason) = if www {
            (MirrorKind::Alias, Some("www"))
        } else if parked {
            (MirrorKind::Parked, None)
        } else if same_ip {
            (MirrorKind::Alias, Some("same-ip"))
        } else if last < cfg.min_suffix_match {
            counts.rejected_without_common_paths += 1;
            continue;
        } else if pa == "/"
            && pb == "/"
            && sa as f64 >= cfg.full_share * host_pages[ha] as f64
            && sb as f64 >= cfg.full_share * host_pages[hb] as f64
        {
            (MirrorKind::Mirror, None)
        } else {
            (MirrorKind::PartialMirror, None)
        };
        out.push(row(ha, hb, acc, (pa, pb), kind, alias_reason, (last, four)));
    }
    for ((h, pa, pb), acc) in &within {
        if (acc.pages_a.len() as u64) < n || (acc.pages_b.len() as u64) < n {
            continue;
        }
        counts.subtree_mirrors_within_host += 1;
        // The suffixes of the pages under the first prefix (exact set, it is small).
        let on_a: BTreeSet<u64> = acc
            .pages_a
            .iter()
            .flat_map(|&p| {
                let ar = arcs(page(p).url);
                [suffix_hash(&ar, 1), suffix_hash(&ar, 4)]
            })
            .collect();
        let share = |k: usize| {
            let hits = acc
                .pages_b
                .iter()
                .filter(|&&q| on_a.contains(&suffix_hash(&arcs(page(q).url), k)))
                .count();
            hits as f64 / acc.pages_b.len() as f64
        };
        let fractions = (share(1), share(4));
        let mut r = row(
            h,
            h,
            acc,
            (pa.clone(), pb.clone()),
            MirrorKind::SubtreeMirror,
            None,
            fractions,
        );
        // The subtrees' own pages, not the whole host's.
        let under = |prefix: &str| {
            let want: Vec<&str> = prefix.split('/').filter(|a| !a.is_empty()).collect();
            host_urls[h]
                .iter()
                .filter(|u| arcs(u).starts_with(&want))
                .count() as u64
        };
        (r.pages_a, r.pages_b) = (under(pa), under(pb));
        out.push(r);
    }
    for p in &out {
        match p.kind {
            MirrorKind::Alias => counts.aliases += 1,
            MirrorKind::Mirror => counts.mirrors += 1,
            MirrorKind::PartialMirror => counts.partial_mirrors += 1,
            MirrorKind::SubtreeMirror => {}
            MirrorKind::Parked => counts.parked += 1,
        }
    }
    out.sort_by(|x, y| {
        (x.kind == MirrorKind::Alias)
            .cmp(&(y.kind == MirrorKind::Alias))
            .then((y.shared_a + y.shared_b).cmp(&(x.shared_a + x.shared_b)))
            .then(x.host_a.cmp(&y.host_a))
            .then(x.host_b.cmp(&y.host_b))
            .then(x.prefix_a.cmp(&y.prefix_a))
    });
    let mut sizes: BTreeMap<u64, u64> = BTreeMap::new();
    for p in out.iter().filter(|p| p.kind != MirrorKind::Alias) {
        *sizes.entry(p.shared_a + p.shared_b).or_default() += 1;
    }
    let groups = groups(&mut out, &host_pages, &host_ips);
    counts.groups = groups.len() as u64;
    let explanation = out
        .is_empty()
        .then(|| explain(clusters, &in_clusters, &candidate, &counts, cfg));
    MirrorReport {
        pairs: out,
        counts,
        size_distribution: sizes.into_iter().collect(),
        groups,
        explanation,
    }
}

/// Groups of hosts joined by `pairs` (connected components, numbered in the order of the
/// pairs); sets each pair's group.
fn groups(
    pairs: &mut [HostPair],
    host_pages: &BTreeMap<&str, u64>,
    host_ips: &BTreeMap<&str, BTreeSet<&str>>,
) -> Vec<MirrorGroup> {
    // Union-find over host names; the members of subtree mirrors within a host are its
    // subtrees (`host/prefix/`).
    let key = |p: &HostPair, b: bool| -> String {
        match (p.kind == MirrorKind::SubtreeMirror, b) {
            (true, false) => format!("{}{}", p.host_a, p.prefix_a),
            (true, true) => format!("{}{}", p.host_b, p.prefix_b),
            (false, false) => p.host_a.clone(),
            (false, true) => p.host_b.clone(),
        }
    };
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut parent: Vec<usize> = Vec::new();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for p in pairs.iter() {
        let mut node = |k: String| {
            let n = ids.len();
            *ids.entry(k).or_insert_with(|| {
                parent.push(n);
                n
            })
        };
        let (a, b) = (node(key(p, false)), node(key(p, true)));
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut number: HashMap<usize, u32> = HashMap::new();
    let mut out: Vec<MirrorGroup> = Vec::new();
    for p in pairs.iter_mut() {
        let root = find(&mut parent, ids[&key(p, false)]);
        let next = number.len() as u32 + 1;
        let id = *number.entry(root).or_insert(next);
        if id as usize > out.len() {
            out.push(MirrorGroup {
                id,
                kind: p.kind,
                hosts: Vec::new(),
                members: Vec::new(),
                pairs: 0,
                pairs_by_kind: BTreeMap::new(),
                pages: 0,
                ips: 0,
            });
        }
        p.group = id;
        let g = &mut out[id as usize - 1];
        g.pairs += 1;
        *g.pairs_by_kind.entry(p.kind.as_str()).or_default() += 1;
        if p.kind.strength() > g.kind.strength() {
            g.kind = p.kind;
        }
        g.hosts.push(p.host_a.clone());
        g.hosts.push(p.host_b.clone());
        g.members.push(key(p, false));
        g.members.push(key(p, true));
    }
    for g in &mut out {
        for v in [&mut g.hosts, &mut g.members] {
            v.sort_unstable();
            v.dedup();
        }
        g.pages = g.hosts.iter().map(|h| host_pages[h.as_str()]).sum();
        let ips: BTreeSet<&str> = g
            .hosts
            .iter()
            .filter_map(|h| host_ips.get(h.as_str()))
            .flatten()
            .copied()
            .collect();
        g.ips = ips.len() as u64;
    }
    out
}

/// Why no pair was reported, in words.
fn explain(
    clusters: &[Vec<u32>],
    in_clusters: &BTreeMap<&str, u64>,
    candidate: &BTreeSet<&str>,
    counts: &MirrorCounts,
    cfg: &MirrorConfig,
) -> String {
    let multi = clusters.iter().filter(|c| c.len() >= 2).count();
    if multi == 0 {
        return "no two pages are near-duplicates, so no host shares pages with another"
            .to_string();
    }
    if counts.rejected_without_common_paths > 0 {
        return format!(
            "{} host pair(s) share near-duplicate pages but fewer than {:.0}% of their URL \
             paths (sites on one template, not mirrors; --min-suffix-match)",
            counts.rejected_without_common_paths,
            100.0 * cfg.min_suffix_match
        );
    }
    let names: Vec<&str> = in_clusters.keys().take(3).copied().collect();
    let more = in_clusters.len().saturating_sub(3);
    let listed = if more > 0 {
        format!("{} and {more} more", names.join(", "))
    } else {
        names.join(", ")
    };
    if candidate.len() < 2 {
        format!(
            "{multi} near-duplicate cluster(s), but their pages are on {} host(s) ({listed}) \
             and no two subtrees of a host share {} pages under different prefixes: a mirror \
             needs two hosts, or two subtrees, sharing at least --min-pages ({}) pages",
            in_clusters.len(),
            cfg.min_pages,
            cfg.min_pages
        )
    } else {
        format!(
            "{} hosts ({listed}) have pages in near-duplicate clusters, but no two of them share \
             --min-pages ({}) pages each way",
            candidate.len(),
            cfg.min_pages
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_suffixes_and_prefixes() {
        let a = arcs("https://h.org/pub/docs/15/x.html?q=1#f");
        assert_eq!(a, ["pub", "docs", "15", "x.html"]);
        let b = arcs("http://g.org/docs/15/x.html");
        assert_eq!(common_suffix(&a, &b), 3);
        assert_eq!(prefix(&a, 3), "/pub/");
        assert_eq!(prefix(&b, 3), "/");
        assert_eq!(
            suffix_hash(&a, 4),
            suffix_hash(&["a", "pub", "docs", "15", "x.html"], 4)
        );
        assert_ne!(suffix_hash(&a, 4), suffix_hash(&b, 4));
        assert_eq!(suffix_hash(&a, 1), suffix_hash(&b, 1));
        assert!(arcs("https://h.org").is_empty());
        assert_eq!(strip_www("www.a.org"), "a.org");
    }

    fn corpus(urls: &[String]) -> Corpus {
        let with_ips: Vec<(String, String)> =
            urls.iter().map(|u| (u.clone(), String::new())).collect();
        corpus_on(&with_ips)
    }

    /// A corpus of `(url, ip)` pages, their signatures all alike (the clusters are given).
    fn corpus_on(urls: &[(String, String)]) -> Corpus {
        use neardup_sketch::{Family, SketchParams};
        use neardup_store::{PageMeta, Signatures};
        let params = SketchParams::default();
        let mut b = Corpus::builder(Family::new(&params), vec!["mem".into()]);
        let (minvalues, supers) = (vec![0u32; 84], vec![0u64; 6]);
        for (u, ip) in urls {
            let meta = PageMeta {
                url: u.clone(),
                host: neardup_text::host_of(u).unwrap_or_default(),
                ip: ip.clone(),
                ..PageMeta::default()
            };
            let sigs = Signatures {
                minvalues: &minvalues,
                supershingles: &supers,
                ..Signatures::default()
            };
            b.push(meta, sigs).unwrap();
        }
        b.build()
    }

    #[test]
    fn shared_paths_decide_mirrors_and_small_groups_are_parked() {
        // Two shops on one template: every page of one clusters with a page of the other, but
        // no URL path is shared.
        let mut urls: Vec<String> = (0..4)
            .map(|i| format!("https://red-shop.example/products/lamp-{i}"))
            .collect();
        urls.extend((0..4).map(|i| format!("https://blue-shop.example/item?id={i}")));
        // A mirror of three pages, same paths.
        urls.extend((0..3).map(|i| format!("https://site.example/doc/{i}.html")));
        urls.extend((0..3).map(|i| format!("https://copy.example/doc/{i}.html")));
        // Three parked names, two pages each, one cluster.
        for h in ["a-cars.example", "b-loans.example", "c-yoga.example"] {
            urls.push(format!("https://{h}/"));
            urls.push(format!("https://{h}/index.html"));
        }
        let c = corpus(&urls);
        let mut clusters: Vec<Vec<u32>> = (0..4).map(|i| vec![i, i + 4]).collect();
        clusters.extend((0..3).map(|i| vec![8 + i, 11 + i]));
        clusters.push(vec![14, 16, 18]);
        clusters.push(vec![15, 17, 19]);
        let r = mirrors(&c, &clusters, &HashMap::new(), &MirrorConfig::default());
        let kinds: Vec<(&str, &str, MirrorKind)> = r
            .pairs
            .iter()
            .map(|p| (p.host_a.as_str(), p.host_b.as_str(), p.kind))
            .collect();
        assert!(kinds.contains(&("copy.example", "site.example", MirrorKind::Mirror)));
        assert!(kinds.contains(&("a-cars.example", "b-loans.example", MirrorKind::Parked)));
        assert!(
            !kinds.iter().any(|k| k.0.contains("shop")),
            "template-sharing shops: {kinds:?}"
        );
        assert_eq!(r.counts.rejected_without_common_paths, 1);
        assert_eq!(r.counts.parked, 3);
    }

    #[test]
    fn parked_names_on_one_ip_are_one_parked_group_and_a_proxy_is_a_mirror() {
        let mut urls: Vec<(String, String)> = Vec::new();
        // Thirty parked names on one parking IP, two pages each: one template.
        for i in 0..30 {
            for path in ["/", "/index.html"] {
                urls.push((
                    format!("https://name-{i:02}.example{path}"),
                    "198.51.100.7".into(),
                ));
            }
        }
        // A small news site and its proxy (another IP), deep article paths; a third copy makes
        // every cluster span three names.
        for (h, ip) in [
            ("news.example", "192.0.2.10"),
            ("news-proxy.example", "192.0.2.11"),
            ("news-cache.example", "192.0.2.12"),
        ] {
            for k in 0..4 {
                urls.push((format!("https://{h}/2026/11/story-{k}.html"), ip.into()));
            }
        }
        let c = corpus_on(&urls);
        let mut clusters: Vec<Vec<u32>> = vec![
            (0..30).map(|i| 2 * i).collect(),
            (0..30).map(|i| 2 * i + 1).collect(),
        ];
        clusters.extend((0..4).map(|k| vec![60 + k, 64 + k, 68 + k]));
        let r = mirrors(&c, &clusters, &HashMap::new(), &MirrorConfig::default());
        let parked: Vec<&MirrorGroup> = r
            .groups
            .iter()
            .filter(|g| g.kind == MirrorKind::Parked)
            .collect();
        assert_eq!(parked.len(), 1, "{:?}", r.groups);
        assert_eq!(parked[0].hosts.len(), 30);
        assert_eq!(parked[0].ips, 1);
        assert!(
            r.pairs.iter().all(|p| p.kind != MirrorKind::Alias),
            "{:?}",
            r.pairs
        );
        let news: Vec<&MirrorGroup> = r
            .groups
            .iter()
            .filter(|g| g.hosts.contains(&"news.example".to_string()))
            .collect();
        assert_eq!(news.len(), 1);
        assert_eq!(news[0].kind, MirrorKind::Mirror);
        assert_eq!(news[0].hosts.len(), 3);
        for p in r.pairs.iter().filter(|p| p.host_a.contains("news")) {
            assert_eq!(p.kind, MirrorKind::Mirror, "{p:?}");
            assert_eq!(p.group, news[0].id);
        }
        assert_eq!(r.counts.groups, 2);
        assert!(r.explanation.is_none());
    }

    #[test]
    fn an_empty_result_says_why() {
        let urls: Vec<String> = (0..4)
            .map(|i| format!("https://one.example/p{i}"))
            .collect();
        let c = corpus(&urls);
        let none = mirrors(&c, &[], &HashMap::new(), &MirrorConfig::default());
        assert!(none
            .explanation
            .unwrap()
            .contains("no two pages are near-duplicates"));
        let one = mirrors(&c, &[vec![0, 1]], &HashMap::new(), &MirrorConfig::default());
        let why = one.explanation.unwrap();
        assert!(why.contains("1 host(s) (one.example)"), "{why}");
    }

    #[test]
    fn bloom_filter_has_no_false_negatives_and_few_false_positives() {
        let mut b = Bloom::new(10_000, 0.01);
        for i in 0..10_000u64 {
            b.insert(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        assert!((0..10_000u64).all(|i| b.contains(i.wrapping_mul(0x9E37_79B9_7F4A_7C15))));
        let fp = (10_000..110_000u64)
            .filter(|i| b.contains(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
            .count();
        assert!(fp < 2_000, "{fp} false positives of 100,000 at 1%");
    }
}

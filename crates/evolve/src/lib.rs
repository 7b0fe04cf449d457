//! Clusters of near-duplicates across crawls (paper 004 section 3).
//!
//! Crawls are added in time order, each with its clusters; a URL is the same page in every crawl
//! (normalized with [`neardup_text::normalize_url`]). For every crawl, each URL present belongs
//! to exactly one cluster: a multi-page cluster of the crawl's dedup run, or its own singleton.
//! URLs of crawl 1 missing from crawl n form one more cluster of crawl n, "could not download"
//! (paper: "move in week 3 into the 'could not download' cluster").
//!
//! * Coefficients, for every URL u of crawl 1 and every crawl n, averaged per range of
//!   `|C_1(u)|` ([`RANGES`]): containment `|C_1(u) ∩ C_n(u)| / |C_1(u)|` (the paper's
//!   `Φ_1^n`, Figure 4), similarity `|C_1(u) ∩ C_n(u)| / |C_1(u) ∪ C_n(u)|` (`Ψ`, Figure 5),
//!   reverse containment `|C_1(u) ∩ C_n(u)| / |C_n(u)|` (`Φ_n^1`, Figure 7); the same means
//!   over the URLs present in both crawls only.
//! * Change amount of a URL between consecutive crawls: the number of its `m` minvalues the two
//!   versions share, `m + 1` when the bodies are byte-identical (Figure 8); [`BUCKETS`] per
//!   cluster-size range (Figure 10; with `m = 84`: 0, 1-28, 29-56, 57-83, 84, 85).
//! * Per host: the number of distinct clusters (singletons included) its URLs fall into in the
//!   first and the last crawl (Figure 6).
//! * Events between consecutive crawls, over multi-page clusters linked by shared URLs: every
//!   cluster of the earlier crawl continues (unchanged or changed, one-to-one), splits, is merged
//!   into a larger one, or dies; every cluster of the later crawl continues, comes from a merge,
//!   is a piece of a split, or is born.
//! * Recrawl advice for the last crawl ([`RecrawlConfig`]).
//!
//! Every mean is summed in URL-id order (first-seen order), so results do not depend on threads.
//!
//! ```
//! use neardup_evolve::{Evolution, RecrawlConfig};
//! use neardup_sketch::{Family, SketchParams};
//! use neardup_store::{Corpus, PageMeta, Signatures};
//!
//! // One URL space crawled twice; two pages form a cluster both times.
//! let family = Family::new(&SketchParams::default());
//! let crawl = |seed: u64| {
//!     let mut b = Corpus::builder(family.clone(), vec![format!("crawl{seed}")]);
//!     for url in ["https://a.example/x", "https://a.example/y", "https://a.example/z"] {
//!         let minvalues: Vec<u32> = (0..84).map(|i| i + seed as u32 * url.len() as u32).collect();
//!         let meta = PageMeta { url: url.into(), host: "a.example".into(), ..PageMeta::default() };
//!         let sigs = Signatures { minvalues: &minvalues, supershingles: &[0; 6], ..Signatures::default() };
//!         b.push(meta, sigs).unwrap();
//!     }
//!     b.build()
//! };
//! let mut e = Evolution::new(84);
//! for (n, label) in ["week1", "week2"].iter().enumerate() {
//!     let c = crawl(n as u64);
//!     e.add_crawl(label, &c, [(0u32, &[0u32, 1][..])].into_iter());
//! }
//! let report = e.finish(&RecrawlConfig { stable_similarity: 0.8, fast_change_share: 0.5 });
//! let week2 = report.coefficients.iter().find(|c| c.crawl == 1 && c.urls == 2).unwrap();
//! assert_eq!(week2.similarity, Some(1.0)); // the cluster held
//! assert_eq!(report.recrawl.len(), 3);
//! ```

pub mod change;
pub mod schedule;

use neardup_store::Corpus;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Cluster-size ranges of the paper's figures (week-1 sizes).
pub const RANGES: [&str; 7] = [
    "1",
    "2-10",
    "11-100",
    "101-1000",
    "1001-10000",
    "10001-100000",
    ">100000",
];

/// The range of a cluster size: 1, 2-10, 11-100, ... (0 counts as 1).
pub fn size_range(size: u64) -> usize {
    let mut digits = 0;
    let mut v = size.saturating_sub(1);
    while v > 0 {
        digits += 1;
        v /= 10;
    }
    digits.min(RANGES.len() - 1)
}

/// Change buckets of Figure 10, from most to least change.
pub const BUCKETS: [&str; 6] = [
    "complete",
    "large",
    "medium",
    "small",
    "no-text-change",
    "no-change",
];

/// The bucket of a change amount (`shared` minvalues of `m`, `m + 1` = byte-identical): 0
/// shared is complete change, up to m/3 large, up to 2m/3 medium, below m small, m no text
/// change, m + 1 no change.
pub fn change_bucket(shared: u32, m: u32) -> usize {
    if shared > m {
        5
    } else if shared == m {
        4
    } else if shared == 0 {
        0
    } else if shared <= m / 3 {
        1
    } else if shared <= 2 * m / 3 {
        2
    } else {
        3
    }
}

const ABSENT: u32 = u32::MAX;
const UNKNOWN: u16 = u16::MAX;
/// Present in the crawl, cluster not yet known (while adding a crawl).
const PENDING: u32 = u32::MAX - 1;

/// One crawl as evolution keeps it: a cluster id per URL id.
#[derive(Debug)]
struct Crawl {
    label: String,
    /// Cluster per URL id (`ABSENT`; ids past the end are absent too). Ids below `multi` are
    /// multi-page clusters.
    cluster: Vec<u32>,
    sizes: Vec<u32>,
    /// URL id of each cluster's representative.
    canonical: Vec<u32>,
    multi: u32,
    /// URL ids below this were seen in an earlier crawl.
    known_before: u32,
    /// Change amount against the previous crawl per URL id (`UNKNOWN` when not in both).
    shared: Vec<u16>,
}

impl Crawl {
    fn cluster_of(&self, u: u32) -> u32 {
        self.cluster.get(u as usize).copied().unwrap_or(ABSENT)
    }

    fn shared_of(&self, u: u32) -> Option<u32> {
        match self.shared.get(u as usize) {
            Some(&s) if s != UNKNOWN => Some(s as u32),
            _ => None,
        }
    }

    fn present(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.cluster
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != ABSENT)
            .map(|(u, &c)| (u as u32, c))
    }
}

/// What was seen of one crawl.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CrawlCounts {
    /// The crawl's name.
    pub label: String,
    /// Pages with a signature.
    pub pages: u64,
    /// Distinct URLs among them.
    pub urls: u64,
    /// Pages whose URL appeared earlier in the same crawl (ignored: the first fetch counts).
    pub repeated_urls: u64,
    /// Multi-page clusters.
    pub clusters: u64,
    /// URLs in them.
    pub clustered_urls: u64,
    /// Largest cluster.
    pub largest_cluster: u64,
    /// URLs seen in no earlier crawl.
    pub new_urls: u64,
    /// URLs of crawl 1 missing here: the size of the "could not download" cluster.
    pub missing_from_first: u64,
    /// URLs also in the previous crawl (their change amount is measured).
    pub also_in_previous: u64,
}

/// Mean coefficients of one crawl against crawl 1 for one week-1 size range.
#[derive(Clone, Debug, Serialize)]
pub struct Coefficients {
    /// Crawl index (0 = the first crawl).
    pub crawl: usize,
    /// Size range index into [`RANGES`].
    pub range: usize,
    /// URLs of crawl 1 in the range.
    pub urls: u64,
    /// Of those, missing from this crawl ("could not download").
    pub missing: u64,
    /// Mean `|C_1 ∩ C_n| / |C_1|` (Figure 4).
    pub containment: Option<f64>,
    /// Mean `|C_1 ∩ C_n| / |C_1 ∪ C_n|` (Figure 5).
    pub similarity: Option<f64>,
    /// Mean `|C_1 ∩ C_n| / |C_n|` (Figure 7).
    pub reverse_containment: Option<f64>,
    /// The three means over the URLs present in both crawls.
    pub containment_present: Option<f64>,
    /// See `containment_present`.
    pub similarity_present: Option<f64>,
    /// See `containment_present`.
    pub reverse_containment_present: Option<f64>,
}

/// Change amounts between two consecutive crawls: `counts[range][shared]`, the range of the
/// URL's cluster size in the earlier crawl, `shared` in `0..=m + 1`.
#[derive(Clone, Debug, Serialize)]
pub struct ChangeHistogram {
    /// Earlier crawl index.
    pub from: usize,
    /// Later crawl index.
    pub to: usize,
    /// URLs per range and change amount.
    pub counts: Vec<Vec<u64>>,
}

impl ChangeHistogram {
    /// URLs per range and [`BUCKETS`] entry.
    pub fn buckets(&self, m: u32) -> Vec<[u64; 6]> {
        self.counts
            .iter()
            .map(|row| {
                let mut b = [0u64; 6];
                for (s, &c) in row.iter().enumerate() {
                    b[change_bucket(s as u32, m)] += c;
                }
                b
            })
            .collect()
    }
}

impl EvolveReport {
    /// Change amounts summed over every consecutive pair of crawls (`from` the first, `to` the
    /// last); `None` with a single crawl.
    pub fn change_all(&self) -> Option<ChangeHistogram> {
        let first = self.change.first()?;
        let mut counts = first.counts.clone();
        for h in &self.change[1..] {
            for (a, row) in counts.iter_mut().zip(&h.counts) {
                for (x, y) in a.iter_mut().zip(row) {
                    *x += y;
                }
            }
        }
        Some(ChangeHistogram {
            from: first.from,
            to: self.change.last().map_or(first.to, |h| h.to),
            counts,
        })
    }
}

/// Distinct clusters of one host in the first and last crawl (Figure 6).
#[derive(Clone, Debug, Serialize)]
pub struct HostClusters {
    /// Host name.
    pub host: String,
    /// Its URLs in the first crawl.
    pub pages_first: u64,
    /// Its URLs in the last crawl.
    pub pages_last: u64,
    /// Distinct clusters (singletons included) in the first crawl.
    pub clusters_first: u64,
    /// Distinct clusters in the last crawl.
    pub clusters_last: u64,
    /// Distinct multi-page clusters in the first crawl.
    pub multi_first: u64,
    /// Distinct multi-page clusters in the last crawl.
    pub multi_last: u64,
}

/// What happened to a cluster between two consecutive crawls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// One-to-one with the same URLs.
    Unchanged,
    /// One-to-one with different URLs (some joined or left).
    Changed,
    /// URLs went to several clusters of the later crawl (one row per earlier cluster).
    Split,
    /// URLs came from several clusters of the earlier crawl (one row per later cluster).
    Merge,
    /// No URL came from a multi-page cluster of the earlier crawl.
    Birth,
    /// No URL went to a multi-page cluster of the later crawl.
    Death,
}

/// One event.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    /// Earlier crawl index.
    pub from: usize,
    /// Later crawl index.
    pub to: usize,
    /// What happened.
    pub kind: EventKind,
    /// Births: `new-urls` when every URL is new, else `formed`; deaths: `gone` when no URL
    /// is left, else `dissolved`; otherwise empty.
    pub detail: &'static str,
    /// Representative URL id of the earlier cluster (for a merge: of its largest contributor).
    pub before: Option<u32>,
    /// Size of the earlier cluster.
    pub size_before: u64,
    /// Representative URL id of the later cluster (for a split: of its largest piece).
    pub after: Option<u32>,
    /// Size of the later cluster.
    pub size_after: u64,
    /// Clusters on the other side (pieces of a split, contributors of a merge).
    pub pieces: u64,
    /// URLs shared by `before` and `after`.
    pub shared_urls: u64,
}

/// Event counts between two consecutive crawls. Each earlier cluster has one fate (unchanged,
/// changed, split, merged, died) and each later cluster one origin (unchanged, changed, merge,
/// split piece, born).
#[derive(Clone, Debug, Default, Serialize)]
pub struct EventCounts {
    /// Earlier crawl index.
    pub from: usize,
    /// Later crawl index.
    pub to: usize,
    /// Multi-page clusters in the earlier crawl.
    pub clusters_before: u64,
    /// Multi-page clusters in the later crawl.
    pub clusters_after: u64,
    /// One-to-one, same URLs.
    pub unchanged: u64,
    /// One-to-one, URLs changed.
    pub changed: u64,
    /// Earlier clusters that split.
    pub splits: u64,
    /// Later clusters that are pieces of a split.
    pub split_pieces: u64,
    /// Later clusters formed by a merge.
    pub merges: u64,
    /// Earlier clusters merged into a later one.
    pub merged: u64,
    /// Later clusters born.
    pub births: u64,
    /// Of those, made only of new URLs.
    pub births_new_urls: u64,
    /// Earlier clusters that died.
    pub deaths: u64,
    /// Of those, whose URLs are all gone.
    pub deaths_gone: u64,
}

/// Recrawl advice settings.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RecrawlConfig {
    /// A cluster of the last crawl is stable when, for every earlier crawl, the mean similarity
    /// coefficient `Ψ` of its URLs is at least this.
    pub stable_similarity: f64,
    /// A cluster changes fast when more than this share of its URLs changed by more than a
    /// small amount (medium, large or complete) since the previous crawl.
    pub fast_change_share: f64,
}

impl Default for RecrawlConfig {
    fn default() -> RecrawlConfig {
        RecrawlConfig {
            stable_similarity: 0.8,
            fast_change_share: 0.5,
        }
    }
}

/// What a crawler should do with a URL next time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Its stable cluster's representative stands for it.
    Skip,
    /// Fetch on the normal schedule.
    Fetch,
    /// Fetch first: its cluster is unstable or changes fast, it is new, or it changed a lot.
    Prioritize,
}

/// Why.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Member of a stable cluster; the representative is fetched.
    StableClusterMember,
    /// Representative of a stable cluster.
    StableClusterRepresentative,
    /// Representative of a stable cluster whose pages change fast.
    FastChangingClusterRepresentative,
    /// Member of a cluster whose URLs moved between crawls.
    UnstableCluster,
    /// Seen in no earlier crawl.
    NewUrl,
    /// Was in a multi-page cluster in the previous crawl, is alone now.
    LeftCluster,
    /// No near-duplicates and changed by more than a small amount since the previous crawl.
    ChangedALot,
    /// No near-duplicates, little or no change.
    Unique,
    /// Only one crawl: no history to judge by.
    NoHistory,
}

/// Advice for one URL of the last crawl.
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    /// URL id.
    pub url: u32,
    /// What to do.
    pub action: Action,
    /// Why.
    pub reason: Reason,
    /// Size of its cluster in the last crawl (1 alone).
    pub cluster_size: u64,
    /// The representative URL id of its multi-page cluster.
    pub representative: Option<u32>,
    /// The cluster's stability: the smallest mean `Ψ` against an earlier crawl.
    pub stability: Option<f64>,
    /// The earlier crawl where the stability was smallest.
    pub least_stable_against: Option<usize>,
    /// Share of the cluster's URLs that changed more than a small amount since the previous crawl.
    pub fast_change_share: Option<f64>,
    /// Change amount against the previous crawl.
    pub shared_with_previous: Option<u32>,
}

/// Counts of the advice.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RecrawlCounts {
    /// URLs of the last crawl.
    pub urls: u64,
    /// Advised to skip.
    pub skip: u64,
    /// Advised to fetch normally.
    pub fetch: u64,
    /// Advised to fetch first.
    pub prioritize: u64,
    /// Share of fetches saved: `skip / urls`.
    pub fetch_savings: f64,
}

/// The advice made from all crawls but the last, checked on the last one.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RecrawlValidation {
    /// Crawl the advice was made for.
    pub advised_on: usize,
    /// Counts of that advice.
    pub counts: RecrawlCounts,
    /// Skipped URLs still in their representative's multi-page cluster in the next crawl.
    pub skipped_stayed: u64,
    /// Skipped URLs present in the next crawl but no longer with their representative.
    pub skipped_left: u64,
    /// Skipped URLs whose representative is missing from the next crawl.
    pub representative_missing: u64,
    /// Skipped URLs missing from the next crawl (skipping cost nothing).
    pub skipped_missing: u64,
    /// `stayed / (stayed + left + representative_missing)`.
    pub skip_precision: Option<f64>,
}

/// Everything [`Evolution::finish`] computes.
#[derive(Debug)]
pub struct EvolveReport {
    /// Minvalues per signature.
    pub m: u32,
    /// Per crawl.
    pub crawls: Vec<CrawlCounts>,
    /// Per crawl (from the first) and size range.
    pub coefficients: Vec<Coefficients>,
    /// Per consecutive pair of crawls.
    pub change: Vec<ChangeHistogram>,
    /// Per host seen in the first or last crawl, by name.
    pub hosts: Vec<HostClusters>,
    /// Per consecutive pair of crawls, in order.
    pub events: Vec<Event>,
    /// Per consecutive pair of crawls.
    pub event_counts: Vec<EventCounts>,
    /// Advice for every URL of the last crawl, in URL-id order.
    pub recrawl: Vec<Advice>,
    /// Its counts.
    pub recrawl_counts: RecrawlCounts,
    /// With three crawls or more: the advice for the second-to-last crawl checked on the last.
    pub validation: Option<RecrawlValidation>,
}

/// Signatures of the previous crawl, for change amounts.
#[derive(Debug, Default)]
struct Previous {
    /// Page per URL id (`ABSENT`).
    page_of: Vec<u32>,
    minvalues: Vec<u32>,
    body_hash: Vec<u64>,
}

/// Crawls added in time order.
#[derive(Debug)]
pub struct Evolution {
    m: u32,
    url_ids: HashMap<String, u32>,
    urls: Vec<String>,
    url_host: Vec<u32>,
    host_ids: HashMap<String, u32>,
    hosts: Vec<String>,
    crawls: Vec<Crawl>,
    counts: Vec<CrawlCounts>,
    previous: Previous,
}

impl Evolution {
    /// No crawls yet; signatures have `m` minvalues.
    pub fn new(m: u32) -> Evolution {
        Evolution {
            m,
            url_ids: HashMap::new(),
            urls: Vec::new(),
            url_host: Vec::new(),
            host_ids: HashMap::new(),
            hosts: Vec::new(),
            crawls: Vec::new(),
            counts: Vec::new(),
            previous: Previous::default(),
        }
    }

    /// URL text of an id.
    pub fn url(&self, u: u32) -> &str {
        &self.urls[u as usize]
    }

    /// Crawl labels, in order.
    pub fn labels(&self) -> Vec<&str> {
        self.crawls.iter().map(|c| c.label.as_str()).collect()
    }

    /// Multi-page clusters of crawl `n`: (representative URL id, member URL ids increasing).
    pub fn clusters(&self, n: usize) -> Vec<(u32, Vec<u32>)> {
        let c = &self.crawls[n];
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); c.multi as usize];
        for (u, k) in c.present() {
            if k < c.multi {
                members[k as usize].push(u);
            }
        }
        c.canonical.iter().copied().zip(members).collect()
    }

    /// Adds the next crawl: its corpus and its multi-page clusters as (canonical page, member
    /// pages) of that corpus. A URL fetched twice counts once (its first page); a cluster left
    /// with one URL is a singleton.
    pub fn add_crawl<'a>(
        &mut self,
        label: &str,
        corpus: &Corpus,
        clusters: impl IntoIterator<Item = (u32, &'a [u32])>,
    ) -> &CrawlCounts {
        let m = self.m as usize;
        assert_eq!(
            corpus.family().params().m as usize,
            m,
            "every crawl is sketched with the same parameters"
        );
        let known_before = self.urls.len() as u32;
        let mut counts = CrawlCounts {
            label: label.to_string(),
            pages: corpus.len() as u64,
            ..Default::default()
        };
        // URL id per page (ABSENT for a repeated URL).
        let mut url_of_page = Vec::with_capacity(corpus.len() as usize);
        let mut cluster: Vec<u32> = Vec::new();
        for page in corpus.pages() {
            let key = neardup_text::normalize_url(page.url).unwrap_or_else(|| page.url.to_string());
            let u = match self.url_ids.get(&key) {
                Some(&u) => u,
                None => {
                    let u = self.urls.len() as u32;
                    let h = match self.host_ids.get(page.host) {
                        Some(&h) => h,
                        None => {
                            let h = self.hosts.len() as u32;
                            self.hosts.push(page.host.to_string());
                            self.host_ids.insert(page.host.to_string(), h);
                            h
                        }
                    };
                    self.url_ids.insert(key, u);
                    self.urls.push(page.url.to_string());
                    self.url_host.push(h);
                    u
                }
            };
            if cluster.len() <= u as usize {
                cluster.resize(u as usize + 1, ABSENT);
            }
            if cluster[u as usize] != ABSENT {
                counts.repeated_urls += 1;
                url_of_page.push(ABSENT);
                continue;
            }
            cluster[u as usize] = PENDING;
            url_of_page.push(u);
        }
        cluster.resize(self.urls.len(), ABSENT);
        let (mut sizes, mut canonical) = (Vec::new(), Vec::new());
        for (canon, members) in clusters {
            let urls: Vec<u32> = members
                .iter()
                .map(|&p| url_of_page[p as usize])
                .filter(|&u| u != ABSENT && cluster[u as usize] == PENDING)
                .collect();
            if urls.len() < 2 {
                continue;
            }
            let id = sizes.len() as u32;
            for &u in &urls {
                cluster[u as usize] = id;
            }
            let rep = url_of_page[canon as usize];
            canonical.push(if rep != ABSENT && cluster[rep as usize] == id {
                rep
            } else {
                urls[0]
            });
            sizes.push(urls.len() as u32);
        }
        let multi = sizes.len() as u32;
        for (u, c) in cluster.iter_mut().enumerate() {
            if *c == PENDING {
                *c = sizes.len() as u32;
                sizes.push(1);
                canonical.push(u as u32);
            }
        }
        counts.urls = sizes.iter().map(|&s| s as u64).sum();
        counts.clusters = multi as u64;
        counts.clustered_urls = sizes[..multi as usize].iter().map(|&s| s as u64).sum();
        counts.largest_cluster = sizes.iter().copied().max().unwrap_or(0) as u64;
        counts.new_urls = self.urls.len() as u64 - known_before as u64;
        if let Some(first) = self.crawls.first() {
            counts.missing_from_first = first
                .present()
                .filter(|&(u, _)| cluster[u as usize] == ABSENT)
                .count() as u64;
        }
        // Change amounts against the previous crawl.
        let mut shared = Vec::new();
        if !self.crawls.is_empty() {
            shared = vec![UNKNOWN; cluster.len()];
            let prev = &self.previous;
            for (p, &u) in url_of_page.iter().enumerate() {
                let q = prev.page_of.get(u as usize).copied().unwrap_or(ABSENT);
                if u == ABSENT || q == ABSENT {
                    continue;
                }
                let a = &prev.minvalues[q as usize * m..(q as usize + 1) * m];
                let b = corpus.minvalues(p as u32);
                let s = if prev.body_hash[q as usize] == corpus.page(p as u32).body_hash {
                    m + 1
                } else {
                    a.iter().zip(b).filter(|(x, y)| x == y).count()
                };
                shared[u as usize] = s.min(UNKNOWN as usize - 1) as u16;
                counts.also_in_previous += 1;
            }
        }
        // Keep this crawl's signatures for the next one.
        let mut page_of = vec![ABSENT; cluster.len()];
        for (p, &u) in url_of_page.iter().enumerate() {
            if u != ABSENT {
                page_of[u as usize] = p as u32;
            }
        }
        self.previous = Previous {
            page_of,
            minvalues: corpus.all_minvalues().to_vec(),
            body_hash: corpus.pages().map(|p| p.body_hash).collect(),
        };
        self.crawls.push(Crawl {
            label: label.to_string(),
            cluster,
            sizes,
            canonical,
            multi,
            known_before,
            shared,
        });
        self.counts.push(counts);
        self.counts.last().expect("just pushed")
    }

    /// Computes every table.
    pub fn finish(&self, cfg: &RecrawlConfig) -> EvolveReport {
        let mut report = EvolveReport {
            m: self.m,
            crawls: self.counts.clone(),
            coefficients: Vec::new(),
            change: Vec::new(),
            hosts: Vec::new(),
            events: Vec::new(),
            event_counts: Vec::new(),
            recrawl: Vec::new(),
            recrawl_counts: RecrawlCounts::default(),
            validation: None,
        };
        let Some(first) = self.crawls.first() else {
            return report;
        };
        for (n, c) in self.crawls.iter().enumerate() {
            report.coefficients.extend(coefficients(first, c, n));
        }
        for n in 1..self.crawls.len() {
            let (a, b) = (&self.crawls[n - 1], &self.crawls[n]);
            report.change.push(self.change(n));
            let (events, counts) = events(a, b, n);
            report.events.extend(events);
            report.event_counts.push(counts);
        }
        report.hosts = self.hosts_first_last();
        let (advice, counts) = advise(&self.crawls, self.m, cfg);
        report.recrawl = advice;
        report.recrawl_counts = counts;
        let last = self.crawls.len() - 1;
        if last >= 2 {
            let (advice, counts) = advise(&self.crawls[..last], self.m, cfg);
            report.validation = Some(validate(&advice, counts, &self.crawls[last], last - 1));
        }
        report
    }

    fn change(&self, n: usize) -> ChangeHistogram {
        let (a, b) = (&self.crawls[n - 1], &self.crawls[n]);
        let mut counts = vec![vec![0u64; self.m as usize + 2]; RANGES.len()];
        for (u, k) in a.present() {
            if let Some(s) = b.shared_of(u) {
                counts[size_range(a.sizes[k as usize] as u64)][s as usize] += 1;
            }
        }
        ChangeHistogram {
            from: n - 1,
            to: n,
            counts,
        }
    }

    fn hosts_first_last(&self) -> Vec<HostClusters> {
        let (first, last) = match (self.crawls.first(), self.crawls.last()) {
            (Some(f), Some(l)) => (f, l),
            _ => return Vec::new(),
        };
        let mut rows: BTreeMap<&str, HostClusters> = BTreeMap::new();
        for (which, crawl) in [(0, first), (1, last)] {
            let mut pairs: Vec<(u32, u32)> = crawl
                .present()
                .map(|(u, k)| (self.url_host[u as usize], k))
                .collect();
            let pages = {
                let mut p: HashMap<u32, u64> = HashMap::new();
                for &(h, _) in &pairs {
                    *p.entry(h).or_default() += 1;
                }
                p
            };
            pairs.sort_unstable();
            pairs.dedup();
            for (h, k) in pairs {
                let host = self.hosts[h as usize].as_str();
                let row = rows.entry(host).or_insert_with(|| HostClusters {
                    host: host.to_string(),
                    pages_first: 0,
                    pages_last: 0,
                    clusters_first: 0,
                    clusters_last: 0,
                    multi_first: 0,
                    multi_last: 0,
                });
                let multi = (k < crawl.multi) as u64;
                if which == 0 {
                    row.pages_first = pages[&h];
                    row.clusters_first += 1;
                    row.multi_first += multi;
                } else {
                    row.pages_last = pages[&h];
                    row.clusters_last += 1;
                    row.multi_last += multi;
                }
            }
        }
        rows.into_values().collect()
    }
}

/// Coefficients of crawl `nth` (index `n`) against `first`, one entry per size range.
fn coefficients(first: &Crawl, nth: &Crawl, n: usize) -> Vec<Coefficients> {
    let mut pair: HashMap<(u32, u32), u32> = HashMap::new();
    let mut missing = 0u32;
    for (u, c1) in first.present() {
        let cn = nth.cluster_of(u);
        *pair.entry((c1, cn)).or_default() += 1;
        missing += (cn == ABSENT) as u32;
    }
    #[derive(Default, Clone, Copy)]
    struct Acc {
        urls: u64,
        missing: u64,
        sums: [f64; 3],
        present: u64,
        sums_present: [f64; 3],
    }
    let mut acc = [Acc::default(); RANGES.len()];
    for (u, c1) in first.present() {
        let cn = nth.cluster_of(u);
        let s1 = first.sizes[c1 as usize] as f64;
        let sn = if cn == ABSENT {
            missing as f64
        } else {
            nth.sizes[cn as usize] as f64
        };
        let i = pair[&(c1, cn)] as f64;
        let v = [i / s1, i / (s1 + sn - i), i / sn];
        let a = &mut acc[size_range(s1 as u64)];
        a.urls += 1;
        for (s, x) in a.sums.iter_mut().zip(v) {
            *s += x;
        }
        if cn == ABSENT {
            a.missing += 1;
        } else {
            a.present += 1;
            for (s, x) in a.sums_present.iter_mut().zip(v) {
                *s += x;
            }
        }
    }
    let mean = |s: f64, n: u64| (n > 0).then(|| s / n as f64);
    acc.iter()
        .enumerate()
        .filter(|(_, a)| a.urls > 0)
        .map(|(r, a)| Coefficients {
            crawl: n,
            range: r,
            urls: a.urls,
            missing: a.missing,
            containment: mean(a.sums[0], a.urls),
            similarity: mean(a.sums[1], a.urls),
            reverse_containment: mean(a.sums[2], a.urls),
            containment_present: mean(a.sums_present[0], a.present),
            similarity_present: mean(a.sums_present[1], a.present),
            reverse_containment_present: mean(a.sums_present[2], a.present),
        })
        .collect()
}

/// Events between consecutive crawls `a` and `b` (index `n` of `b`).
fn events(a: &Crawl, b: &Crawl, n: usize) -> (Vec<Event>, EventCounts) {
    let (ma, mb) = (a.multi as usize, b.multi as usize);
    let mut edges: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    // URLs of each side present on the other side at all.
    let mut a_present = vec![0u32; ma];
    let mut b_known = vec![0u32; mb];
    for (u, ka) in a.present() {
        let kb = b.cluster_of(u);
        if (ka as usize) < ma && kb != ABSENT {
            a_present[ka as usize] += 1;
        }
        if (ka as usize) < ma && (kb as usize) < mb {
            *edges.entry((ka, kb)).or_default() += 1;
        }
    }
    for (u, kb) in b.present() {
        if (kb as usize) < mb && a.cluster_of(u) != ABSENT {
            b_known[kb as usize] += 1;
        }
    }
    // Per cluster: number of linked clusters on the other side and the heaviest link.
    let mut succ = vec![(0u32, 0u32, ABSENT); ma];
    let mut pred = vec![(0u32, 0u32, ABSENT); mb];
    for (&(ka, kb), &w) in &edges {
        let s = &mut succ[ka as usize];
        s.0 += 1;
        if w > s.1 {
            (s.1, s.2) = (w, kb);
        }
        let p = &mut pred[kb as usize];
        p.0 += 1;
        if w > p.1 {
            (p.1, p.2) = (w, ka);
        }
    }
    let mut counts = EventCounts {
        from: n - 1,
        to: n,
        clusters_before: ma as u64,
        clusters_after: mb as u64,
        ..Default::default()
    };
    let mut out = Vec::new();
    let event = |kind, detail, ka: Option<u32>, kb: Option<u32>, pieces: u32, shared: u32| Event {
        from: n - 1,
        to: n,
        kind,
        detail,
        before: ka.map(|k| a.canonical[k as usize]),
        size_before: ka.map_or(0, |k| a.sizes[k as usize] as u64),
        after: kb.map(|k| b.canonical[k as usize]),
        size_after: kb.map_or(0, |k| b.sizes[k as usize] as u64),
        pieces: pieces as u64,
        shared_urls: shared as u64,
    };
    for ka in 0..ma {
        let (deg, w, kb) = succ[ka];
        let k = Some(ka as u32);
        match deg {
            0 => {
                counts.deaths += 1;
                let gone = a_present[ka] == 0;
                counts.deaths_gone += gone as u64;
                let detail = if gone { "gone" } else { "dissolved" };
                out.push(event(EventKind::Death, detail, k, None, 0, 0));
            }
            1 if pred[kb as usize].0 == 1 => {
                let same = w == a.sizes[ka] && w == b.sizes[kb as usize];
                let kind = if same {
                    counts.unchanged += 1;
                    EventKind::Unchanged
                } else {
                    counts.changed += 1;
                    EventKind::Changed
                };
                out.push(event(kind, "", k, Some(kb), 1, w));
            }
            1 => counts.merged += 1,
            _ => {
                counts.splits += 1;
                out.push(event(EventKind::Split, "", k, Some(kb), deg, w));
            }
        }
    }
    for kb in 0..mb {
        let (deg, w, ka) = pred[kb];
        let k = Some(kb as u32);
        match deg {
            0 => {
                counts.births += 1;
                let new = b_known[kb] == 0;
                counts.births_new_urls += new as u64;
                let detail = if new { "new-urls" } else { "formed" };
                out.push(event(EventKind::Birth, detail, None, k, 0, 0));
            }
            1 if succ[ka as usize].0 == 1 => {}
            1 => counts.split_pieces += 1,
            _ => {
                counts.merges += 1;
                out.push(event(EventKind::Merge, "", Some(ka), k, deg, w));
            }
        }
    }
    (out, counts)
}

/// Advice for every URL of the last of `crawls`.
fn advise(crawls: &[Crawl], m: u32, cfg: &RecrawlConfig) -> (Vec<Advice>, RecrawlCounts) {
    let last = crawls.last().expect("at least one crawl");
    let multi = last.multi as usize;
    // Stability: the smallest, over earlier crawls, of the mean Ψ of the cluster's URLs.
    let mut stability: Vec<Option<(f64, usize)>> = vec![None; multi];
    for (n, c) in crawls[..crawls.len() - 1].iter().enumerate() {
        let mut pair: HashMap<(u32, u32), u32> = HashMap::new();
        for (u, k) in last.present() {
            let cn = c.cluster_of(u);
            if (k as usize) < multi && cn != ABSENT {
                *pair.entry((cn, k)).or_default() += 1;
            }
        }
        let mut sums = vec![0.0f64; multi];
        for (u, k) in last.present() {
            let cn = c.cluster_of(u);
            if (k as usize) >= multi || cn == ABSENT {
                continue;
            }
            let i = pair[&(cn, k)] as f64;
            let (sa, sb) = (c.sizes[cn as usize] as f64, last.sizes[k as usize] as f64);
            sums[k as usize] += i / (sa + sb - i);
        }
        for (k, s) in sums.into_iter().enumerate() {
            let mean = s / last.sizes[k] as f64;
            if stability[k].is_none_or(|(v, _)| mean < v) {
                stability[k] = Some((mean, n));
            }
        }
    }
    // Fast change: share of a cluster's URLs that changed more than a small amount.
    let mut fast = vec![(0u64, 0u64); multi];
    for (u, k) in last.present() {
        if let (true, Some(s)) = ((k as usize) < multi, last.shared_of(u)) {
            let f = &mut fast[k as usize];
            f.1 += 1;
            f.0 += (change_bucket(s, m) <= 2) as u64;
        }
    }
    let previous = crawls.len().checked_sub(2).map(|i| &crawls[i]);
    let mut counts = RecrawlCounts::default();
    let mut out = Vec::new();
    for (u, k) in last.present() {
        let size = last.sizes[k as usize] as u64;
        let shared = last.shared_of(u);
        let mut a = Advice {
            url: u,
            action: Action::Fetch,
            reason: Reason::Unique,
            cluster_size: size,
            representative: None,
            stability: None,
            least_stable_against: None,
            fast_change_share: None,
            shared_with_previous: shared,
        };
        if (k as usize) < multi {
            let rep = last.canonical[k as usize];
            a.representative = Some(rep);
            let (changed, known) = fast[k as usize];
            a.fast_change_share = (known > 0).then(|| changed as f64 / known as f64);
            match stability[k as usize] {
                None => a.reason = Reason::NoHistory,
                Some((s, n)) => {
                    a.stability = Some(s);
                    a.least_stable_against = Some(n);
                    if s < cfg.stable_similarity {
                        (a.action, a.reason) = (Action::Prioritize, Reason::UnstableCluster);
                    } else if u != rep {
                        (a.action, a.reason) = (Action::Skip, Reason::StableClusterMember);
                    } else if a
                        .fast_change_share
                        .is_some_and(|f| f > cfg.fast_change_share)
                    {
                        a.action = Action::Prioritize;
                        a.reason = Reason::FastChangingClusterRepresentative;
                    } else {
                        a.reason = Reason::StableClusterRepresentative;
                    }
                }
            }
        } else if previous.is_none() {
            a.reason = Reason::NoHistory;
        } else if u >= last.known_before {
            (a.action, a.reason) = (Action::Prioritize, Reason::NewUrl);
        } else if previous.is_some_and(|p| p.cluster_of(u) < p.multi) {
            (a.action, a.reason) = (Action::Prioritize, Reason::LeftCluster);
        } else if shared.is_some_and(|s| change_bucket(s, m) <= 2) {
            (a.action, a.reason) = (Action::Prioritize, Reason::ChangedALot);
        }
        counts.urls += 1;
        match a.action {
            Action::Skip => counts.skip += 1,
            Action::Fetch => counts.fetch += 1,
            Action::Prioritize => counts.prioritize += 1,
        }
        out.push(a);
    }
    if counts.urls > 0 {
        counts.fetch_savings = counts.skip as f64 / counts.urls as f64;
    }
    (out, counts)
}

/// Checks advice made for crawl `advised_on` against the crawl after it.
fn validate(
    advice: &[Advice],
    counts: RecrawlCounts,
    next: &Crawl,
    advised_on: usize,
) -> RecrawlValidation {
    let mut v = RecrawlValidation {
        advised_on,
        counts,
        ..Default::default()
    };
    for a in advice.iter().filter(|a| a.action == Action::Skip) {
        let rep = a
            .representative
            .expect("skipped URLs have a representative");
        let (ku, kr) = (next.cluster_of(a.url), next.cluster_of(rep));
        if ku == ABSENT {
            v.skipped_missing += 1;
        } else if kr == ABSENT {
            v.representative_missing += 1;
        } else if ku == kr && ku < next.multi {
            v.skipped_stayed += 1;
        } else {
            v.skipped_left += 1;
        }
    }
    let judged = v.skipped_stayed + v.skipped_left + v.representative_missing;
    v.skip_precision = (judged > 0).then(|| v.skipped_stayed as f64 / judged as f64);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_ranges_follow_the_figures() {
        let r: Vec<usize> = [
            0,
            1,
            2,
            10,
            11,
            100,
            101,
            1000,
            1001,
            100_000,
            100_001,
            u64::MAX,
        ]
        .iter()
        .map(|&s| size_range(s))
        .collect();
        assert_eq!(r, [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6]);
    }

    #[test]
    fn change_buckets_follow_figure_10() {
        let b: Vec<usize> = [0, 1, 28, 29, 56, 57, 83, 84, 85]
            .iter()
            .map(|&s| change_bucket(s, 84))
            .collect();
        assert_eq!(b, [0, 1, 1, 2, 2, 3, 3, 4, 5]);
    }
}

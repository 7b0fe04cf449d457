//! Dedup in parts: what a run spread over many machines computes per page and per pair (the
//! [`crate::steps`], each a function of its inputs alone), so that the parts put together give [`crate::dedup`]'s answer
//! exactly (the Spark job of the Python package is such a run). With pages numbered in one
//! order (`0..n` below; any increasing numbering works):
//!
//! 1. Every page: [`Parts::page`] gives its identity key, its key in every candidate table,
//!    its title segments and host key, its canonical-page sort key and its [`ScoringPage`],
//!    encoded.
//! 2. Identity sets: pages with one [`PageParts::identity`]; the first in page order represents
//!    the set, every other member is joined to it (an identity edge).
//! 3. Candidates: for every table and key, the representatives with that key in page order,
//!    paired by [`crate::steps::bucket_edges`] (all pairs of a small bucket, else each with the
//!    first of them and with its predecessor), as `bucket_pairs` pairs them.
//! 4. Site names: per host, how many pages carry each title segment;
//!    [`crate::is_site_segment`] says which segments name the site.
//! 5. Scoring: [`Parts::score`] on both pages' records and their hosts' site segments; pairs
//!    [`Parts::accepts`] accepts are edges.
//! 6. Clusters: the connected components of the accepted pairs and identity edges; a
//!    component's canonical page is the member with the smallest `(keep_key, page)`.
//! 7. Evidence: [`Parts::score`] of every member against its canonical page.
//!
//! Steps 2, 3 and 6's canonical page need every row of one key together: an engine shuffles
//! rows by key and hands each partition's rows to [`identity_representatives`],
//! [`bucket_edges`] and [`canonical_pages`], which order them and apply the rule themselves.
//!
//! Only configurations whose steps are these run in parts: table methods (LSH bands,
//! supershingles), union-find clusters, no host boilerplate filter ([`Parts::new`] refuses
//! the others).

use crate::config::{ClusterMode, ConfigError, DedupConfig};
use crate::evidence::Evidence;
use crate::method::Method;
use crate::score::{accepts_with, side_evidence, Side};
use crate::titles::{host_key, own_segments, own_segments_agree};
use neardup_sketch::SketchParams;
use neardup_store::Corpus;
use neardup_text::language::Language;

/// The version of [`ScoringPage`]'s encoding, its first byte.
pub const SCORING_PAGE_VERSION: u8 = 2;

pub use crate::steps::identity_key;

mod grouped;
pub use grouped::{
    bucket_edges, canonical_pages, identity_representatives, large_star, small_star, star_breaks,
    Canonical, LOCAL_EDGES, MAX_ROUNDS,
};

/// What scoring needs of one page, owned, with a specified encoding
/// ([`ScoringPage::encode`]): the same bytes for the same page on every platform and run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoringPage {
    /// Host, lowercased.
    pub host: String,
    /// Token-sequence hash.
    pub token_hash: u64,
    /// Number of terms.
    pub tokens: u32,
    /// Distinct shingles.
    pub shingles: u32,
    /// Share of terms left out as chrome.
    pub chrome: f32,
    /// Share of shingles that were host boilerplate.
    pub boilerplate: f32,
    /// The title's segment hashes, zeros for none.
    pub title: [u32; 4],
    /// Minvalues (their low 32 bits).
    pub minvalues: Vec<u32>,
    /// Supershingles.
    pub supershingles: Vec<u64>,
    /// The simhash words.
    pub simhash: Vec<u64>,
    /// The shingle set when kept.
    pub shingle_set: Option<Vec<u32>>,
    /// The page's language.
    pub language: Language,
}

/// A [`ScoringPage`] encoding that cannot be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("scoring page record: {0}")]
pub struct RecordError(pub &'static str);

impl ScoringPage {
    /// Page `p` of a corpus (buffers reused).
    pub fn fill(&mut self, corpus: &Corpus, p: u32) {
        let m = corpus.page(p);
        self.host.clear();
        self.host.push_str(m.host);
        self.token_hash = m.token_hash;
        self.tokens = m.tokens;
        self.shingles = m.shingles;
        self.chrome = m.chrome;
        self.boilerplate = m.boilerplate;
        self.title = m.title;
        self.language = m.language;
        self.minvalues.clear();
        self.minvalues.extend_from_slice(corpus.minvalues(p));
        self.supershingles.clear();
        self.supershingles
            .extend_from_slice(corpus.supershingles(p));
        self.simhash.clear();
        self.simhash.extend_from_slice(corpus.simhash(p));
        match (corpus.shingles(p), &mut self.shingle_set) {
            (Some(s), Some(mine)) => {
                mine.clear();
                mine.extend_from_slice(s);
            }
            (Some(s), mine) => *mine = Some(s.to_vec()),
            (None, mine) => *mine = None,
        }
    }

    /// The page as scoring reads it.
    pub fn side(&self) -> Side<'_> {
        Side {
            host: &self.host,
            token_hash: self.token_hash,
            tokens: self.tokens,
            shingles: self.shingles,
            chrome: self.chrome,
            boilerplate: self.boilerplate,
            minvalues: &self.minvalues,
            minvalue_bits: 32,
            shingle_set: self.shingle_set.as_deref(),
            set_bits: 32,
            supershingles: &self.supershingles,
            simhash: &self.simhash,
            language: self.language,
        }
    }

    /// Appends the encoding to `out`, every number little-endian: the version byte
    /// ([`SCORING_PAGE_VERSION`]); `token_hash` u64; `tokens`, `shingles` u32; `chrome`,
    /// `boilerplate` as f32 bits; the four title segments u32; the language's three bytes
    /// (ISO 639-3); the host as a u32 length and
    /// UTF-8 bytes; minvalues (u32 each), supershingles and simhash (u64 each), each after
    /// its u32 count; the shingle set's u32 count (`u32::MAX` when not kept) and values
    /// (u32); last, XXH3-64 (seed 0) of everything before it, u64.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.push(SCORING_PAGE_VERSION);
        out.extend_from_slice(&self.token_hash.to_le_bytes());
        for v in [
            self.tokens,
            self.shingles,
            self.chrome.to_bits(),
            self.boilerplate.to_bits(),
        ]
        .iter()
        .chain(&self.title)
        {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.language.to_bytes());
        out.extend_from_slice(&(self.host.len() as u32).to_le_bytes());
        out.extend_from_slice(self.host.as_bytes());
        out.extend_from_slice(&(self.minvalues.len() as u32).to_le_bytes());
        for v in &self.minvalues {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for words in [&self.supershingles, &self.simhash] {
            out.extend_from_slice(&(words.len() as u32).to_le_bytes());
            for v in words {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        match &self.shingle_set {
            Some(s) => {
                out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                for v in s {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
            None => out.extend_from_slice(&u32::MAX.to_le_bytes()),
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&out[start..]);
        out.extend_from_slice(&sum.to_le_bytes());
    }

    /// Reads an encoding ([`ScoringPage::encode`]) into this page (buffers reused); refuses
    /// another version, a wrong checksum, a short or long record.
    pub fn decode(&mut self, bytes: &[u8]) -> Result<(), RecordError> {
        let Some((body, sum)) = bytes.split_last_chunk::<8>() else {
            return Err(RecordError("shorter than its checksum"));
        };
        if xxhash_rust::xxh3::xxh3_64(body) != u64::from_le_bytes(*sum) {
            return Err(RecordError("checksum mismatch"));
        }
        let mut r = Reader(body);
        let version = r.take(1)?[0];
        if version != SCORING_PAGE_VERSION {
            return Err(RecordError("unknown version"));
        }
        self.token_hash = r.u64()?;
        self.tokens = r.u32()?;
        self.shingles = r.u32()?;
        self.chrome = f32::from_bits(r.u32()?);
        self.boilerplate = f32::from_bits(r.u32()?);
        for t in &mut self.title {
            *t = r.u32()?;
        }
        self.language = Language::from_bytes(r.take(3)?.try_into().expect("3 bytes"));
        let len = r.u32()? as usize;
        let host = std::str::from_utf8(r.take(len)?).map_err(|_| RecordError("host not UTF-8"))?;
        self.host.clear();
        self.host.push_str(host);
        r.u32s(&mut self.minvalues)?;
        r.u64s(&mut self.supershingles)?;
        r.u64s(&mut self.simhash)?;
        if r.peek_u32()? == u32::MAX {
            r.u32()?;
            self.shingle_set = None;
        } else {
            r.u32s(self.shingle_set.get_or_insert_with(Vec::new))?;
        }
        if !r.0.is_empty() {
            return Err(RecordError("bytes after the record"));
        }
        Ok(())
    }
}

/// Little-endian reads from a byte slice.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], RecordError> {
        if self.0.len() < n {
            return Err(RecordError("truncated"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn peek_u32(&self) -> Result<u32, RecordError> {
        let b = self.0.first_chunk::<4>().ok_or(RecordError("truncated"))?;
        Ok(u32::from_le_bytes(*b))
    }
    fn u32(&mut self) -> Result<u32, RecordError> {
        let v = self.peek_u32()?;
        self.0 = &self.0[4..];
        Ok(v)
    }
    fn u64(&mut self) -> Result<u64, RecordError> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
    fn u32s(&mut self, out: &mut Vec<u32>) -> Result<(), RecordError> {
        let n = self.u32()? as usize;
        let b = self.take(n.checked_mul(4).ok_or(RecordError("truncated"))?)?;
        out.clear();
        out.extend(
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))),
        );
        Ok(())
    }
    fn u64s(&mut self, out: &mut Vec<u64>) -> Result<(), RecordError> {
        let n = self.u32()? as usize;
        let b = self.take(n.checked_mul(8).ok_or(RecordError("truncated"))?)?;
        out.clear();
        out.extend(
            b.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
        );
        Ok(())
    }
}

/// One page's parts (buffers reused from page to page).
#[derive(Clone, Debug, Default)]
pub struct PageParts {
    /// [`identity_key`] of the page.
    pub identity: u64,
    /// [`crate::host_key`] of the host.
    pub host_key: u64,
    /// The title's segments, zeros for none.
    pub title: [u32; 4],
    /// The page's key in every candidate table, in table order.
    pub keys: Vec<u64>,
    /// [`neardup_cluster::Keep::sort_key`] under the configuration's rule.
    pub keep_key: Vec<u8>,
    /// The [`ScoringPage`], encoded.
    pub record: Vec<u8>,
}

/// A configuration's parts: pages' parts, pairs' scores.
pub struct Parts {
    cfg: DedupConfig,
    method: Box<dyn Method>,
    page: ScoringPage,
}

impl Parts {
    /// The parts of `cfg` over signatures made with `params`; refuses a configuration that
    /// does not fit them ([`DedupConfig::validate`]) or cannot run in parts (a method without
    /// candidate tables, star clusters, the host boilerplate filter).
    pub fn new(cfg: &DedupConfig, params: &SketchParams) -> Result<Parts, ConfigError> {
        cfg.validate(params)?;
        let method = cfg.matching.method();
        let in_parts = "LSH bands or supershingles, union-find clusters, no host boilerplate filter (a run in parts)";
        if !method.has_tables() {
            return Err(ConfigError::setting(
                "matching",
                cfg.matching.describe(params, cfg.threshold, 0),
                in_parts,
            ));
        }
        if cfg.cluster != ClusterMode::UnionFind {
            return Err(ConfigError::setting("cluster", "star", in_parts));
        }
        if let Some(b) = cfg.boilerplate_mostly {
            return Err(ConfigError::setting("boilerplate_page", b, in_parts));
        }
        Ok(Parts {
            cfg: cfg.clone(),
            method,
            page: ScoringPage::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &DedupConfig {
        &self.cfg
    }

    /// Page `p`'s parts, into `out`.
    pub fn page(&mut self, corpus: &Corpus, p: u32, out: &mut PageParts) {
        let m = corpus.page(p);
        let partition = crate::steps::partition(m.language, self.cfg.per_language);
        out.identity = identity_key(m.token_hash, m.tokens, partition);
        out.host_key = host_key(m.host);
        out.title = m.title;
        out.keys.clear();
        self.method.table_keys(corpus, p, &mut out.keys);
        if partition != 0 {
            for k in &mut out.keys {
                *k = crate::steps::partitioned(*k, partition);
            }
        }
        self.cfg.keep.sort_key(p, corpus, &mut out.keep_key);
        self.page.fill(corpus, p);
        out.record.clear();
        self.page.encode(&mut out.record);
    }

    /// The evidence of a pair: both pages and whether each of their hosts' site names
    /// ([`crate::is_site_segment`]) includes a segment.
    pub fn score(
        &self,
        a: &ScoringPage,
        a_site: impl Fn(u32) -> bool,
        b: &ScoringPage,
        b_site: impl Fn(u32) -> bool,
    ) -> Evidence {
        let titles = own_segments_agree(
            &own_segments(&a.title, a_site),
            &own_segments(&b.title, b_site),
        );
        side_evidence(&self.cfg, &*self.method, &a.side(), &b.side(), titles, None)
    }

    /// Whether the evidence is a match under the configuration.
    pub fn accepts(&self, e: &Evidence) -> bool {
        accepts_with(&self.cfg, &*self.method, e)
    }
}

/// A page's place in the clusters of [`clusters`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// The page.
    pub page: i64,
    /// Its cluster's number: clusters are numbered from 0 in the order of their smallest page.
    pub cluster: u64,
    /// Pages in the cluster.
    pub size: u64,
    /// The cluster's canonical page.
    pub canonical: i64,
}

/// Step 6 on one machine, for a run whose graph fits in memory: the connected components of
/// `edges` (pages by any numbering that increases in page order), numbered in the order of their
/// smallest page; a component's canonical page is the member with the smallest
/// `(keep_key(page), page)`. Every page of an edge once, in page order.
pub fn clusters<'k>(edges: &[(i64, i64)], keep_key: impl Fn(i64) -> &'k [u8]) -> Vec<Member> {
    let mut pages: Vec<i64> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    pages.sort_unstable();
    pages.dedup();
    let at = |p: i64| pages.binary_search(&p).expect("every endpoint is listed") as u32;
    let mut uf = neardup_cluster::UnionFind::new(pages.len() as u32);
    for &(a, b) in edges {
        uf.union(at(a), at(b));
    }
    let mut out: Vec<Member> = Vec::with_capacity(pages.len());
    for (cluster, members) in uf.components().into_iter().enumerate() {
        let canonical =
            crate::steps::canonical(members.iter().map(|&m| pages[m as usize]), &keep_key)
                .expect("a component has members");
        out.extend(members.iter().map(|&m| Member {
            page: pages[m as usize],
            cluster: cluster as u64,
            size: members.len() as u64,
            canonical,
        }));
    }
    out.sort_unstable_by_key(|m| m.page);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dedup, Matching};
    use neardup_cluster::Keep;
    use neardup_sketch::Family;
    use neardup_store::{PageMeta, Signatures};
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    /// One generated page: which base it copies, how many minvalues it changes, its host,
    /// title, whether it shares its base's token sequence, whether it keeps a shingle set.
    type Gen = (u8, u8, u8, u8, bool, bool);

    fn corpus(pages: &[Gen]) -> Corpus {
        let params = SketchParams::default();
        let mut b = Corpus::builder(Family::new(&params), vec!["mem".into()]);
        let base = |k: u8| -> Vec<u32> { (0..84).map(|i| 1000 * k as u32 + i).collect() };
        for (p, &(k, flips, host, title, same_tokens, set)) in pages.iter().enumerate() {
            let mut mv = base(k);
            let mut x = (p as u32).wrapping_mul(2_654_435_761) | 1;
            for _ in 0..flips % 40 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                mv[(x >> 8) as usize % 84] = 1_000_000 + p as u32 * 100 + (x & 63);
            }
            let supers: Vec<u64> = (0..6).map(|i| u64::from(mv[i * 14] / 7)).collect();
            // A shingle set from the minvalues: the exact Jaccard follows the estimate.
            let mut shingles: Vec<u32> = mv.iter().map(|v| v / 3).collect();
            shingles.sort_unstable();
            shingles.dedup();
            let meta = PageMeta {
                url: format!("https://h{host}.example/{}", "p".repeat(p % 5)),
                host: format!("h{host}.example"),
                date: format!("2024-0{}", p % 3),
                token_hash: if same_tokens {
                    u64::from(k)
                } else {
                    100 + p as u64
                },
                tokens: if same_tokens { 50 } else { 50 + p as u32 % 7 },
                shingles: 60 + flips as u32,
                chrome: (p % 4) as f32 / 8.0,
                title: neardup_text::TitleKey::of(&format!("Item {title} | Site {host}")).0,
                ..PageMeta::default()
            };
            let sigs = Signatures {
                minvalues: &mv,
                supershingles: &supers,
                shingles: if set { &shingles } else { &[] },
                ..Signatures::default()
            };
            b.push(meta, sigs).unwrap();
        }
        b.build()
    }

    /// The run in parts, step by step as the module says, over plain maps.
    fn in_parts(corpus: &Corpus, cfg: &DedupConfig) -> Vec<(u32, Vec<u32>, Vec<Evidence>)> {
        let mut parts = Parts::new(cfg, corpus.family().params()).unwrap();
        let n = corpus.len();
        let pp: Vec<PageParts> = (0..n)
            .map(|p| {
                let mut o = PageParts::default();
                parts.page(corpus, p, &mut o);
                o
            })
            .collect();
        let recs: Vec<ScoringPage> = pp
            .iter()
            .map(|x| {
                let mut s = ScoringPage::default();
                s.decode(&x.record).unwrap();
                s
            })
            .collect();
        // 2. Identity sets.
        let mut first: HashMap<u64, u32> = HashMap::new();
        let rep: Vec<u32> = (0..n)
            .map(|p| *first.entry(pp[p as usize].identity).or_insert(p))
            .collect();
        // 3. Candidates among representatives: every pair of a small bucket, else the first
        //    and the predecessor of each member.
        let mut buckets: BTreeMap<(usize, u64), Vec<u32>> = BTreeMap::new();
        for p in (0..n).filter(|&p| rep[p as usize] == p) {
            for (t, &k) in pp[p as usize].keys.iter().enumerate() {
                buckets.entry((t, k)).or_default().push(p);
            }
        }
        let mut edges = BTreeSet::new();
        for members in buckets.values() {
            for i in 1..members.len() {
                if members.len() <= crate::steps::ALL_PAIRS_BUCKET {
                    edges.extend(members[..i].iter().map(|&m| (m, members[i])));
                } else {
                    edges.insert((members[0], members[i]));
                    edges.insert((members[i - 1], members[i]));
                }
            }
        }
        // 4. Site names.
        let mut host_pages: HashMap<u64, u32> = HashMap::new();
        let mut counts: HashMap<(u64, u32), u32> = HashMap::new();
        for x in &pp {
            *host_pages.entry(x.host_key).or_default() += 1;
            for &s in x.title.iter().filter(|&&s| s != 0) {
                *counts.entry((x.host_key, s)).or_default() += 1;
            }
        }
        let (counts, host_pages) = (&counts, &host_pages);
        let site = |p: u32| {
            let h = pp[p as usize].host_key;
            move |s: u32| {
                crate::is_site_segment(
                    counts.get(&(h, s)).copied().unwrap_or(0).into(),
                    host_pages[&h].into(),
                )
            }
        };
        let score =
            |a: u32, b: u32| parts.score(&recs[a as usize], site(a), &recs[b as usize], site(b));
        // 5, 6. Accepted pairs and identity edges, their components, canonical pages.
        let mut graph: Vec<(i64, i64)> = edges
            .iter()
            .filter(|&&(a, b)| parts.accepts(&score(a, b)))
            .map(|&(a, b)| (i64::from(a), i64::from(b)))
            .collect();
        graph.extend(
            (0..n)
                .filter(|&p| rep[p as usize] != p)
                .map(|p| (i64::from(rep[p as usize]), i64::from(p))),
        );
        let members = clusters(&graph, |p| &pp[p as usize].keep_key);
        let mut by_cluster: BTreeMap<u64, (u32, Vec<u32>)> = BTreeMap::new();
        for m in &members {
            let c = by_cluster
                .entry(m.cluster)
                .or_insert((m.canonical as u32, Vec::new()));
            c.1.push(m.page as u32);
        }
        by_cluster
            .into_values()
            .map(|(c, members)| {
                // 7. Evidence against the canonical page.
                let evidence = members.iter().map(|&m| score(c, m)).collect();
                (c, members, evidence)
            })
            .collect()
    }

    fn configs() -> Vec<DedupConfig> {
        let mut verify = DedupConfig::new(Matching::bands_for(84, 0.8));
        verify.verify = true;
        verify.keep = Keep::Newest;
        let mut accurate = DedupConfig::accurate(84);
        accurate.keep = Keep::ShortestUrl;
        let mut supers = DedupConfig::new(Matching::Supershingles { min_agree: 2 });
        supers.keep = Keep::LongestText;
        vec![DedupConfig::accurate(84), accurate, verify, supers]
    }

    proptest::proptest! {
        /// The parts put together, as a distributed run puts them together, are dedup's
        /// clusters, canonical pages and evidence.
        #[test]
        fn parts_put_together_are_the_dedup_run(
            pages in proptest::collection::vec((0u8..4, 0u8..60, 0u8..3, 0u8..4, proptest::bool::weighted(0.2), proptest::bool::ANY), 1..60),
        ) {
            let c = corpus(&pages);
            for cfg in configs() {
                let want: Vec<(u32, Vec<u32>, Vec<Evidence>)> = dedup(&c, &cfg)
                    .unwrap()
                    .clusters
                    .into_iter()
                    .map(|k| (k.canonical, k.members, k.evidence))
                    .collect();
                proptest::prop_assert_eq!(in_parts(&c, &cfg), want);
            }
        }
    }

    #[test]
    fn a_corpus_that_takes_every_step() {
        // Four bases, copies with 0 to 39 changed minvalues, identity sets, three hosts, titles
        // that name the site (on every page of a host) and items (four of them).
        let pages: Vec<Gen> = (0..80u8)
            .map(|i| {
                (
                    i % 4,
                    i.wrapping_mul(37) % 60,
                    i % 3,
                    i % 5 % 4,
                    i % 9 == 0,
                    i % 2 == 0,
                )
            })
            .collect();
        let c = corpus(&pages);
        let mut rejected = 0;
        for cfg in configs() {
            let r = dedup(&c, &cfg).unwrap();
            let n = &r.counts;
            assert!(n.identity_duplicates > 0 && n.clusters >= 4, "{n:?}");
            rejected += n.candidate_pairs - n.accepted_pairs;
            let want: Vec<_> = r
                .clusters
                .into_iter()
                .map(|k| (k.canonical, k.members, k.evidence))
                .collect();
            assert_eq!(in_parts(&c, &cfg), want);
        }
        assert!(rejected > 0);
    }

    #[test]
    fn records_round_trip_and_damage_is_refused() {
        let c = corpus(&[(0, 3, 0, 0, false, true), (1, 0, 1, 1, true, false)]);
        let params = c.family().params().clone();
        let mut parts = Parts::new(&DedupConfig::accurate(84), &params).unwrap();
        for p in 0..c.len() {
            let mut o = PageParts::default();
            parts.page(&c, p, &mut o);
            let mut want = ScoringPage::default();
            want.fill(&c, p);
            let mut got = ScoringPage::default();
            got.decode(&o.record).unwrap();
            assert_eq!(got, want);
            // Every truncation and every flipped byte is an error, never a panic.
            for cut in 0..o.record.len() {
                assert!(got.decode(&o.record[..cut]).is_err());
            }
            for i in 0..o.record.len() {
                let mut bad = o.record.clone();
                bad[i] ^= 0x20;
                assert!(got.decode(&bad).is_err(), "byte {i}");
            }
        }
        // The encoding is specified: version, then the token hash, little-endian.
        let mut o = PageParts::default();
        parts.page(&c, 1, &mut o);
        assert_eq!(o.record[0], SCORING_PAGE_VERSION);
        assert_eq!(o.record[1..9], 1u64.to_le_bytes());
    }

    #[test]
    fn configurations_that_cannot_run_in_parts_are_refused() {
        let params = SketchParams::default();
        let mut star = DedupConfig::accurate(84);
        star.cluster = ClusterMode::Star;
        let mut boiler = DedupConfig::accurate(84);
        boiler.boilerplate_mostly = Some(0.5);
        let simhash = DedupConfig::new(Matching::Simhash {
            min_c: 3,
            blocks: None,
        });
        for cfg in [star, boiler, simhash] {
            assert!(Parts::new(&cfg, &params).is_err());
        }
    }
}

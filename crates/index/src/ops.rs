//! The persistent index as a job: create an index with fixed parameters, the keys every add
//! writes and every lookup asks, and querying pages and payload digests against everything added
//! before. Adding is [`crate::add`]'s, looking after the index [`crate::maintain`]'s, dedup
//! against it [`crate::dedup`]'s.
//!
//! Keys: for each of the index's `b` bands, `band_key(minvalues of the band) ^ fmix(t + 1)`
//! over the minvalues' bits the index keeps ([`band_entry_key`]: a held page's keys are told
//! again from its record), and for a page with a known payload SHA-1 its first 8 bytes
//! (little-endian) `^ fmix(u64::MAX)` ([`digest_key`]), and for every page its URL's key
//! ([`url_key`]), and for a page with an id (WARC-Record-ID or the user's) its id key
//! ([`crate::records::id_key`]), all in one sorted key segment per add. A page the index
//! already holds (the same record, [`crate::records`]) is not added again.
//! A candidate is accepted by the index's matching, the rule of `dedup --lsh bands` with its
//! threshold and containment (titles are not compared: their site names are learned over one
//! corpus).

use crate::{
    stage, CatalogPage, IndexError, Manifest, Match, Matching, Scratch, Snapshot, WriterLock,
};
use neardup_dedup::{Choice, DedupConfig, DedupRequest};
use neardup_ingest::digest::PayloadDigest;
use neardup_ingest::PageId;
use neardup_pipeline::{Error, Input, PipelineConfig, Progress};
use neardup_sketch::Family;
use std::path::{Path, PathBuf};

/// The key of band `t` of a page's minvalues in a key segment of the index `m`: over the low
/// `m.storage.minvalue_bits` of each (what its catalog keeps), so that a held page's keys are
/// the same told from its record as from its sketch. Two rows of 16 bits make 32-bit band
/// keys: about `pages / 2^32` chance candidates a band, scored and refused.
pub fn band_entry_key(family: &Family, m: &Manifest, minvalues: &[u32], t: usize) -> u64 {
    let rows = m.matching.rows as usize;
    let band = &minvalues[t * rows..(t + 1) * rows];
    let bits = m.storage.minvalue_bits;
    let key = if bits >= 32 {
        family.band_key(band)
    } else {
        let mut low = [0u32; 16];
        if rows <= low.len() {
            for (l, &v) in low.iter_mut().zip(band) {
                *l = neardup_candidates::low_bits(v, bits);
            }
            family.band_key(&low[..rows])
        } else {
            let low: Vec<u32> = band
                .iter()
                .map(|&v| neardup_candidates::low_bits(v, bits))
                .collect();
            family.band_key(&low)
        }
    };
    key ^ neardup_sketch::rabin::fmix(t as u64 + 1)
}

/// The key of a page's URL in a key segment: XXH3-64 (seed 0) of the URL normalized as
/// `neardup_text::normalize_url` does (as given when it does not parse) `^ fmix(u64::MAX
/// - 1)`, so that CDX-style lookups by URL find a page's captures.
pub fn url_key(url: &str) -> u64 {
    let n = neardup_text::normalize_url(url);
    xxhash_rust::xxh3::xxh3_64(n.as_deref().unwrap_or(url).as_bytes())
        ^ neardup_sketch::rabin::fmix(u64::MAX - 1)
}

/// The key of a payload SHA-1 in a key segment.
pub fn digest_key(d: &[u8; 20]) -> u64 {
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes")) ^ neardup_sketch::rabin::fmix(u64::MAX)
}

/// The key of a payload SHA-256 in a key segment (index format 5).
pub fn sha256_key(d: &[u8; 32]) -> u64 {
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
        ^ neardup_sketch::rabin::fmix(u64::MAX - 2)
}

/// The index's acceptance as a dedup configuration: LSH bands, the threshold, the containment
/// rule, the title rule (site names from the index's `.titles` segments).
pub fn dedup_config(m: &Matching) -> DedupConfig {
    let mut c = DedupConfig::new(neardup_dedup::Matching::Bands {
        bands: m.bands,
        rows: m.rows,
    });
    c.threshold = m.threshold;
    c.containment = m.containment;
    c.different_titles_need = m.different_titles_need;
    c
}

/// The scorer of pairs against the index under its settings (B-similarity from the held
/// minvalues: the index keeps no supershingles).
pub fn scorer(m: &crate::manifest::Manifest) -> neardup_dedup::SideScorer {
    neardup_dedup::SideScorer::new(&dedup_config(&m.matching))
        .with_groups(m.params.supershingles, m.params.l)
}

/// Creates an empty index in `dir` with the settings of `request` resolved as `dedup`
/// resolves them ([`DedupRequest::resolve`]): its signature parameters, and its matching,
/// which must be one an index runs: LSH bands (`dedup`'s default bands unless given),
/// union-find clusters keeping the first page, the threshold, the containment and the title
/// rules, Henzinger's site rule, no verification; its pages kept as `storage` says.
pub(crate) fn create(
    dir: &Path,
    request: &DedupRequest,
    storage: crate::Storage,
) -> Result<Manifest, Error> {
    let neardup_dedup::Resolved { params, config } = request.resolve()?;
    let matching = index_matching(&config)?;
    let _lock = WriterLock::acquire_creating(dir)?;
    Ok(Manifest::create(dir, &params, matching, storage)?)
}

/// The index's matching for a resolved configuration; an error naming the first setting an
/// index cannot run.
pub fn index_matching(c: &DedupConfig) -> Result<Matching, Error> {
    let refuse = |setting: &'static str, value: &str| -> Error {
        neardup_pipeline::SettingsError::new(
            setting,
            value,
            "what an index runs: LSH bands, union-find clusters keeping the first page, \
             Henzinger's site rule, no verification, every language together",
        )
        .into()
    };
    let neardup_dedup::Matching::Bands { bands, rows } = c.matching else {
        return Err(refuse("matching", "not LSH bands"));
    };
    if c.verify {
        return Err(refuse("verify", "true"));
    }
    if c.cluster != neardup_dedup::ClusterMode::UnionFind {
        return Err(refuse("cluster", c.cluster.name()));
    }
    if c.keep != neardup_cluster::Keep::First {
        return Err(refuse("keep", c.keep.name()));
    }
    if c.site != neardup_dedup::SiteRule::Henzinger {
        return Err(refuse("site", c.site.name()));
    }
    if c.per_language {
        return Err(refuse("per_language", "true"));
    }
    Ok(Matching {
        bands,
        rows,
        threshold: c.threshold,
        containment: c.containment,
        different_titles_need: c.different_titles_need,
    })
}

/// Bytes an index operation holds by default (pages waiting to be written in input order,
/// keys being sorted): 2 GiB.
pub const DEFAULT_MEM_LIMIT: usize = 2 << 30;

neardup_evidence::evidence_row! {
    /// One match of a queried page: the indexed page, its crawl label, the evidence.
    #[derive(Clone, Debug, PartialEq, serde::Serialize)]
    pub struct QueryRow {
        /// The queried page.
        pub url: String,
        /// Its id (user id or WARC-Record-ID).
        pub id: String,
        /// The indexed page it matches.
        pub match_url: String,
        /// That page's id.
        pub match_id: String,
        /// Its fetch date.
        pub match_date: String,
        /// The label of the crawl it was added with.
        pub match_label: String,
        /// The index's page id.
        pub match_page: u64,
        /// The same body bytes.
        pub identical_body: bool,
        /// The same payload SHA-1 (an exact duplicate, as web archives' revisit records mean).
        pub identical_payload: bool,
    }
}

/// How a query reads its inputs and bounds its memory.
#[derive(Clone, Debug)]
pub struct QueryOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Bytes of memory at most (about): half for queried pages (more wait in sorted runs in
    /// `tmp_dir` so that matches come out in input order), half for the index's segments
    /// while they fit.
    pub mem_limit: usize,
    /// Where those runs go (never the index folder: a reader writes nothing there).
    pub tmp_dir: PathBuf,
    /// Matches reported per page at most, the likeliest first ([`Snapshot::matches_upto`]);
    /// whether a page matches stays exact. `None`: every match.
    pub max_matches: Option<usize>,
}

impl QueryOptions {
    /// Defaults: [`DEFAULT_MEM_LIMIT`], the system's temporary folder.
    pub fn new(pipeline: PipelineConfig) -> QueryOptions {
        QueryOptions {
            pipeline,
            mem_limit: DEFAULT_MEM_LIMIT,
            tmp_dir: std::env::temp_dir(),
            max_matches: None,
        }
    }
}

/// What a query did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct QuerySummary {
    /// Pages queried.
    pub pages: u64,
    /// Pages with at least one match.
    pub pages_matched: u64,
    /// Matches (rows).
    pub matches: u64,
    /// Pages whose matches were cut at `max_matches` (more were left unscored).
    pub pages_cut: u64,
    /// Records the readers skipped (file, offset, reason).
    pub skipped: neardup_pipeline::Skipped,
}

/// Queried pages looked up together, on the run's threads, before their rows are given in
/// input order.
const QUERY_BATCH: usize = 2048;

/// Queries every page of `inputs` against `snap` (the index as it was when the query began,
/// holding half of `opts.mem_limit` of its segments in memory while they fit: read from disk by
/// block otherwise); `on_row` gets every match, page by page in input order, best first. Pages
/// are looked up on `opts.pipeline.threads` threads. Memory stays within `opts.mem_limit`
/// whatever the number of pages: the other half holds queried pages.
pub(crate) fn query(
    snap: &Snapshot,
    inputs: &[Input],
    opts: &QueryOptions,
    progress: &dyn Progress,
    mut on_row: impl FnMut(PageId, QueryRow) -> Result<(), Error>,
) -> Result<QuerySummary, Error> {
    let params = &snap.manifest().params;
    let staged = stage(
        inputs,
        &opts.pipeline,
        params,
        false,
        opts.mem_limit / 2,
        &opts.tmp_dir,
        progress,
    )?;
    let family = staged.family();
    let scorer = scorer(snap.manifest());
    let limit = opts.max_matches.unwrap_or(usize::MAX);
    let mut summary = QuerySummary::default();
    let mut batch: Vec<(PageId, CatalogPage)> = Vec::with_capacity(QUERY_BATCH);
    // One pool for the run; each batch's lookups run on it, each thread with its buffers.
    let pool = neardup_pipeline::thread_pool(opts.pipeline.threads);
    let mut answer = |batch: &mut Vec<(PageId, CatalogPage)>| -> Result<(), Error> {
        let lookups = || {
            use rayon::prelude::*;
            batch
                .par_iter()
                .map_init(Scratch::default, |scratch, (_, page)| {
                    snap.matches_upto(&scorer, family, page, scratch, limit)
                })
                .collect::<Vec<Result<(Vec<Match>, bool), IndexError>>>()
        };
        let found = match &pool {
            Some(pool) => pool.install(lookups),
            None => lookups(),
        };
        for ((record, page), found) in batch.drain(..).zip(found) {
            let (matches, more) = found?;
            summary.pages_cut += u64::from(more);
            summary.pages += 1;
            summary.pages_matched += u64::from(!matches.is_empty());
            summary.matches += matches.len() as u64;
            for m in matches {
                on_row(
                    record,
                    neardup_evidence::with_evidence!(
                        QueryRow {
                            url: page.url.clone(),
                            id: page.user_id.clone(),
                            match_url: m.facts.url,
                            match_id: m.facts.user_id,
                            match_date: m.facts.date,
                            match_label: m.label,
                            match_page: m.page,
                            identical_body: m.facts.body_hash == page.body_hash,
                            identical_payload: m.facts.payload_sha1 == page.payload_sha1
                                && page.payload_sha1 != [0; 20],
                        },
                        m.evidence
                    ),
                )?;
            }
        }
        Ok(())
    };
    staged.for_each(|record, page| {
        batch.push((record, page.clone()));
        if batch.len() == QUERY_BATCH {
            answer(&mut batch)?;
        }
        Ok(())
    })?;
    answer(&mut batch)?;
    summary.skipped = staged.skipped(opts.pipeline.skipped_examples);
    Ok(summary)
}

/// An indexed page with a payload digest asked for.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DigestRow {
    /// The digest asked for, normalized ([`PayloadDigest::canonical`]: `sha1:BASE32` or
    /// `sha256:` and hex).
    pub digest: String,
    /// The page's payload SHA-1 as `sha1:BASE32`.
    pub sha1: String,
    /// The indexed page's URL.
    pub url: String,
    /// Its id.
    pub id: String,
    /// Its fetch date.
    pub date: String,
    /// The label of the crawl it was added with.
    pub label: String,
    /// The index's page id.
    pub page: u64,
}

/// The indexed pages holding each payload digest (any form [`PayloadDigest::parse`] reads:
/// SHA-1 or SHA-256, base32 or hex, prefixed or not), oldest first; a digest that is none of
/// these is a settings error naming it: [`Index::digests`](crate::Index::digests) against a
/// snapshot (what the service asks).
pub fn digest_rows(snap: &Snapshot, digests: &[String]) -> Result<Vec<DigestRow>, Error> {
    let mut out = Vec::new();
    for d in digests {
        let parsed = PayloadDigest::parse(d).ok_or_else(|| {
            neardup_pipeline::SettingsError::new(
                "digest",
                d,
                "a SHA-1 or SHA-256 payload digest: sha1:/sha256: prefix optional, then base32 \
                 or hex",
            )
        })?;
        let digest = parsed.canonical();
        for (page, f, label) in snap.by_payload(&parsed)? {
            out.push(DigestRow {
                digest: digest.clone(),
                sha1: format!("sha1:{}", neardup_ingest::digest::base32(&f.payload_sha1)),
                url: f.url,
                id: f.user_id,
                date: f.date,
                label,
                page,
            });
        }
    }
    Ok(out)
}

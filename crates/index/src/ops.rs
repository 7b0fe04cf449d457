//! The persistent index as a job: create an index with fixed parameters, add crawls to it (a
//! catalog, a key and, for dedup runs, a link segment per add, then the manifest), query pages
//! and payload digests against everything added before, deduplicate new crawls against it
//! ([`dedup`]), and look after it (`check`, `stats`, `remove` a crawl, `compact`). Storage is
//! [`neardup_index`]'s; this module sketches, keys and scores.
//!
//! Keys: for each of the index's `b` bands, `band_key(minvalues of the band) ^ fmix(t + 1)`
//! ([`band_entry_key`]), and for a page with a known payload SHA-1 its first 8 bytes
//! (little-endian) `^ fmix(u64::MAX)` ([`digest_key`]), and for every page its URL's key
//! ([`url_key`]), and for a page with an id (WARC-Record-ID or the user's) its id key
//! ([`crate::records::id_key`]), all in one sorted key segment per add. A page the index
//! already holds (the same record, [`crate::records`]) is not added again.
//! A candidate is accepted by the index's matching, the rule of `dedup --lsh bands` with its
//! threshold and containment (titles are not compared: their site names are learned over one
//! corpus).

use crate::records::{check_inputs, id_key, record_inputs, Holds};
use crate::{
    stage, CatalogPage, CatalogWriter, IndexError, KeySegmentReader, KeySegmentWriter, Manifest,
    Matching, Scratch, SegmentEntry, SegmentKind, Snapshot, Staged, TitleCounter, WriterLock,
};
use neardup_dedup::{Choice, DedupConfig, DedupRequest, SideScorer};
use neardup_ingest::digest::PayloadDigest;
use neardup_pipeline::{Error, Input, PipelineConfig, Progress};
use neardup_sketch::{Family, SketchParams};
use neardup_store::extsort::ExternalSorter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The key of band `t` of a page's stored minvalues in a key segment.
pub fn band_entry_key(family: &Family, minvalues: &[u32], t: usize, rows: usize) -> u64 {
    family.band_key(&minvalues[t * rows..(t + 1) * rows])
        ^ neardup_sketch::rabin::fmix(t as u64 + 1)
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

/// Creates an empty index in `dir` with the settings of `request` resolved as `dedup`
/// resolves them ([`DedupRequest::resolve`]): its signature parameters, and its matching,
/// which must be one an index runs: LSH bands (`dedup`'s default bands unless given),
/// union-find clusters keeping the first page, the threshold, the containment and the title
/// rules, Henzinger's site rule, no verification.
pub(crate) fn create(dir: &Path, request: &DedupRequest) -> Result<Manifest, Error> {
    let neardup_dedup::Resolved { params, config } = request.resolve()?;
    let matching = index_matching(&config)?;
    let _lock = WriterLock::acquire_creating(dir)?;
    Ok(Manifest::create(dir, &params, matching)?)
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

/// How an add reads its inputs and bounds its memory.
#[derive(Clone, Debug)]
pub struct AddOptions {
    /// How inputs are read and tokenized (payload digests are always computed).
    pub pipeline: PipelineConfig,
    /// The crawl label the pages are added under.
    pub label: String,
    /// Bytes of pages and keys held in memory at most (about; the reader and worker batches
    /// come on top); more go to sorted runs in a folder inside the index folder.
    pub mem_limit: usize,
    /// Read files the index records as added before (their records already held are still
    /// not stored again); otherwise such an add is refused ([`IndexError::AlreadyAdded`]).
    pub again: bool,
}

impl AddOptions {
    /// Defaults: [`DEFAULT_MEM_LIMIT`].
    pub fn new(pipeline: PipelineConfig, label: &str) -> AddOptions {
        AddOptions {
            pipeline,
            label: label.to_string(),
            mem_limit: DEFAULT_MEM_LIMIT,
            again: false,
        }
    }
}

/// What an add did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddReport {
    /// Pages added (sketched pages of the inputs not already held).
    pub pages: u64,
    /// Pages not added because the index, or the add itself, already held the same record
    /// ([`crate::records::same_record`]).
    pub held: u64,
    /// Pages past the memory kept for recognizing repeats within the add, whose repeats
    /// within it were not looked for (0 unless the add is very large).
    pub untracked: u64,
    /// Their ids: `first..first + pages`.
    pub first_id: u64,
    /// The manifest generation now live.
    pub generation: u64,
    /// Runs of pages written to disk before they could be added in input order (0: they all
    /// fitted in memory).
    pub page_runs: usize,
    /// Records the readers skipped (file, offset, reason); the add holds every other page.
    pub skipped: neardup_pipeline::Skipped,
}

/// Adds the pages of `inputs` to the index in `dir` under a crawl label: one catalog segment
/// and one key segment, then the manifest (the add is all there or not at all). Memory stays
/// within `opts.mem_limit` whatever the number of pages: half of it holds sketched pages
/// (runs spill to disk and are merged in input order), the rest sorts keys.
pub(crate) fn add(
    dir: &Path,
    inputs: &[Input],
    opts: &AddOptions,
    progress: &dyn Progress,
) -> Result<AddReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let mut manifest = Manifest::open(dir)?;
    remove_orphans(dir, &manifest)?;
    let files = check_inputs(&manifest, inputs, &opts.label, opts.again)?;
    let staged = stage(
        inputs,
        &opts.pipeline,
        &manifest.params,
        opts.mem_limit / 2,
        dir,
        progress,
    )?;
    let snap = Snapshot::of(dir, manifest.clone())?;
    let mut holds = Holds::new(Some(&snap), opts.mem_limit / 8);
    let written = write_pages(
        dir,
        &manifest,
        &staged,
        &opts.label,
        opts.mem_limit / 4,
        Some(&mut holds),
        &mut |id, _| match id % 4096 == 0 && progress.cancelled() {
            true => Err(Error::Cancelled),
            false => Ok(()),
        },
    )?;
    if progress.cancelled() {
        return Err(Error::Cancelled);
    }
    record_inputs(&mut manifest, files);
    let mut r = commit_add(dir, &mut manifest, written, staged.runs())?;
    r.held = holds.held;
    r.untracked = holds.untracked();
    r.skipped = staged.skipped(opts.pipeline.skipped_examples);
    Ok(r)
}

/// The segments of an add, written but not yet live.
pub(crate) struct Written {
    pub(crate) segments: Vec<SegmentEntry>,
    pub(crate) pages: u64,
}

/// Writes the staged pages, numbered from the manifest's next page id, as the catalog and key
/// segments of the manifest's next generation in `dir` (named by no manifest until
/// [`commit_add`]); keys are sorted with `sort_memory` bytes in memory. A page `holds` says
/// is held is left out. `each` sees every page with its id as it is written.
pub(crate) fn write_pages(
    dir: &Path,
    manifest: &Manifest,
    staged: &dyn Feed,
    label: &str,
    sort_memory: usize,
    mut holds: Option<&mut Holds>,
    each: &mut dyn FnMut(u64, &CatalogPage) -> Result<(), Error>,
) -> Result<Written, Error> {
    let names = [SegmentKind::Catalog, SegmentKind::Keys, SegmentKind::Titles]
        .map(|k| segment_name(manifest, k));
    let mut w = SegmentsWriter::create(
        dir,
        manifest,
        manifest.next_page,
        names,
        staged.family().clone(),
        sort_memory,
    )?;
    staged.each(&mut |page| {
        if let Some(h) = holds.as_deref_mut() {
            if h.held(page)? {
                return Ok(());
            }
        }
        let id = w.push(page)?;
        each(id, page)
    })?;
    w.finish(label)
}

/// A catalog, a key and a titles segment being written, page by page in id order: the catalog
/// as the pages come, the keys (every band's, the payload digest's, the URL's) sorted at the
/// end, the title segments counted per host.
pub(crate) struct SegmentsWriter {
    dir: PathBuf,
    names: [String; 3],
    catalog: CatalogWriter,
    sorter: ExternalSorter<(u64, u64)>,
    titles: TitleCounter,
    family: Arc<Family>,
    bands: usize,
    rows: usize,
}

impl SegmentsWriter {
    /// Writers of the files `names` (catalog, keys, titles) in `dir` for pages numbered from
    /// `first`, with the parameters and matching of `manifest`'s index.
    pub(crate) fn create(
        dir: &Path,
        manifest: &Manifest,
        first: u64,
        names: [String; 3],
        family: Arc<Family>,
        sort_memory: usize,
    ) -> Result<SegmentsWriter, Error> {
        let catalog = CatalogWriter::create(&dir.join(&names[0]), manifest.params.m, first)?;
        Ok(SegmentsWriter {
            dir: dir.to_path_buf(),
            names,
            catalog,
            sorter: ExternalSorter::new(sort_memory, dir),
            titles: TitleCounter::new(sort_memory / 8, dir),
            family,
            bands: manifest.matching.bands as usize,
            rows: manifest.matching.rows as usize,
        })
    }

    /// Appends the next page; its id.
    pub(crate) fn push(&mut self, page: &CatalogPage) -> Result<u64, Error> {
        let io = |e| IndexError::io(&self.dir, e);
        let id = self.catalog.push(page)?;
        self.titles
            .push(neardup_dedup::host_key(&page.host), &page.title)?;
        for t in 0..self.bands {
            let key = band_entry_key(&self.family, &page.minvalues, t, self.rows);
            self.sorter.push((key, id)).map_err(io)?;
        }
        if page.payload_sha1 != [0; 20] {
            self.sorter
                .push((digest_key(&page.payload_sha1), id))
                .map_err(io)?;
        }
        if page.payload_sha256 != [0; 32] {
            self.sorter
                .push((sha256_key(&page.payload_sha256), id))
                .map_err(io)?;
        }
        self.sorter.push((url_key(&page.url), id)).map_err(io)?;
        if !page.user_id.is_empty() {
            self.sorter.push((id_key(&page.user_id), id)).map_err(io)?;
        }
        Ok(id)
    }

    /// Finishes both files (synced, in place, named by no manifest yet).
    pub(crate) fn finish(self, label: &str) -> Result<Written, Error> {
        let dir = self.dir;
        let io = |e| IndexError::io(&dir, e);
        let (pages, pages_bytes) = self.catalog.finish()?;
        let [catalog_name, keys_name, titles_name] = self.names;
        let keys = write_keys(
            &dir.join(&keys_name),
            self.sorter.finish().map_err(io)?.map(|r| r.map_err(io)),
        )?;
        let titles = self.titles.finish(&dir.join(&titles_name))?;
        let entry = |name, (entries, bytes)| SegmentEntry {
            name,
            entries,
            bytes,
            label: label.to_string(),
        };
        Ok(Written {
            segments: vec![
                entry(catalog_name, (pages, pages_bytes)),
                entry(keys_name, keys),
                entry(titles_name, titles),
            ],
            pages,
        })
    }
}

/// Pages to write as segments, in the order their ids are given, sketched with `family`.
pub(crate) trait Feed {
    fn family(&self) -> &Arc<Family>;
    fn each(&self, f: &mut dyn FnMut(&CatalogPage) -> Result<(), Error>) -> Result<(), Error>;
}

impl Feed for Staged {
    fn family(&self) -> &Arc<Family> {
        Staged::family(self)
    }

    fn each(&self, f: &mut dyn FnMut(&CatalogPage) -> Result<(), Error>) -> Result<(), Error> {
        self.for_each(f)
    }
}

/// The name of the next generation's segment of `kind`.
pub(crate) fn segment_name(manifest: &Manifest, kind: SegmentKind) -> String {
    format!("seg-{}.{}", manifest.generation + 1, kind.extension())
}

/// Makes written segments live: one manifest commit.
pub(crate) fn commit_add(
    dir: &Path,
    manifest: &mut Manifest,
    written: Written,
    page_runs: usize,
) -> Result<AddReport, Error> {
    let first = manifest.next_page;
    if written.pages == 0 {
        // Nothing to hold: no empty segments (the inputs recorded, if any, still commit).
        for s in &written.segments {
            let path = dir.join(&s.name);
            std::fs::remove_file(&path).map_err(|e| IndexError::io(&path, e))?;
        }
    } else {
        manifest.segments.extend(written.segments);
    }
    manifest.next_page = first + written.pages;
    manifest.commit(dir)?;
    Ok(AddReport {
        pages: written.pages,
        held: 0,
        untracked: 0,
        first_id: first,
        generation: manifest.generation,
        page_runs,
        skipped: Default::default(),
    })
}

/// Writes sorted entries as a key segment: (entries, bytes).
pub(crate) fn write_keys(
    path: &Path,
    entries: impl Iterator<Item = Result<(u64, u64), IndexError>>,
) -> Result<(u64, u64), Error> {
    let mut w = KeySegmentWriter::create(path)?;
    for e in entries {
        let (k, v) = e?;
        w.push(k, v)?;
    }
    Ok(w.finish()?)
}

/// Removes what a writer that crashed left behind (with the lock held): unfinished files and
/// segments no manifest names. The manifest is the truth; nothing it names is touched.
pub(crate) fn remove_orphans(dir: &Path, m: &Manifest) -> Result<(), Error> {
    let live: std::collections::HashSet<&str> =
        m.segments.iter().map(|s| s.name.as_str()).collect();
    let entries = std::fs::read_dir(dir).map_err(|e| IndexError::io(dir, e))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("neardup-sort-") && e.path().is_dir() {
            std::fs::remove_dir_all(e.path()).map_err(|err| IndexError::io(&e.path(), err))?;
            continue;
        }
        let orphan = name.ends_with(".partial")
            || name == "MANIFEST.tmp"
            || (name.starts_with("seg-")
                && SegmentKind::of_name(&name).is_some()
                && !live.contains(name.as_str()));
        if orphan {
            std::fs::remove_file(e.path()).map_err(|err| IndexError::io(&e.path(), err))?;
        }
    }
    Ok(())
}

/// What `index check` found: every segment read whole and checked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CheckReport {
    /// Manifest generation checked.
    pub generation: u64,
    /// Segments checked.
    pub segments: usize,
    /// Pages in the catalog segments.
    pub pages: u64,
    /// Entries in the key segments.
    pub keys: u64,
    /// Bytes of the live segments.
    pub bytes: u64,
}

/// Reads every live segment of the index in `dir` whole, checking every checksum, the order
/// of keys, that every page id is held once and below the next id, and that every key and
/// link names a page id the index gave out; the first problem is the error (file, byte offset,
/// what).
pub(crate) fn check(dir: &Path) -> Result<CheckReport, Error> {
    let m = Manifest::open(dir)?;
    let mut r = CheckReport {
        generation: m.generation,
        segments: m.segments.len(),
        pages: 0,
        keys: 0,
        bytes: 0,
    };
    let mut ranges = Vec::new();
    for s in m.segments.iter().filter(|s| s.is_catalog()) {
        let path = checked_size(dir, s, &mut r.bytes)?;
        let c = crate::CatalogReader::open(&path)?;
        r.pages += counted(&path, "pages", c.check()?, s.entries)?;
        ranges.push(c.ids());
    }
    ranges.sort_by_key(|r| r.start);
    let damaged =
        |what: String| -> Error { IndexError::damaged(&Manifest::path(dir), 0, what).into() };
    if let Some(w) = ranges.windows(2).find(|w| w[0].end > w[1].start) {
        return Err(damaged(format!(
            "two catalog segments both hold page ids {:?} and {:?}",
            w[0], w[1]
        )));
    }
    if let Some(last) = ranges.last().filter(|r| r.end > m.next_page) {
        return Err(damaged(format!(
            "a catalog segment holds page ids {last:?}, beyond the next page id {}",
            m.next_page
        )));
    }
    let given = |id: u64| id < m.next_page;
    for s in m.segments.iter().filter(|s| !s.is_catalog()) {
        let path = checked_size(dir, s, &mut r.bytes)?;
        let seg = KeySegmentReader::open(&path)?;
        // A `.titles` segment holds counts, not page ids: at most the index's pages each.
        let titles = s.kind() == Some(SegmentKind::Titles);
        let n = match titles {
            true => seg.check(|n| (1..=m.next_page).contains(&n))?,
            false => seg.check(given)?,
        };
        let n = counted(&path, "entries", n, s.entries)?;
        r.keys += if titles { 0 } else { n };
    }
    Ok(r)
}

/// The path of segment `s`, its size checked against the manifest and added to `bytes`.
pub(crate) fn checked_size(
    dir: &Path,
    s: &SegmentEntry,
    bytes: &mut u64,
) -> Result<PathBuf, Error> {
    let path = dir.join(&s.name);
    let size = std::fs::metadata(&path)
        .map_err(|e| IndexError::io(&path, e))?
        .len();
    if size != s.bytes {
        let what = format!("{size} bytes where the manifest says {}", s.bytes);
        return Err(IndexError::damaged(&path, 0, what).into());
    }
    *bytes += size;
    Ok(path)
}

/// `n` when it is the count the manifest says.
pub(crate) fn counted(path: &Path, what: &str, n: u64, manifest: u64) -> Result<u64, Error> {
    if n != manifest {
        let what = format!("{n} {what} where the manifest says {manifest}");
        return Err(IndexError::damaged(path, 0, what).into());
    }
    Ok(n)
}

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
    /// Bytes of queried pages held in memory at most (about); more wait in sorted runs in
    /// `tmp_dir` so that matches come out in input order.
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

/// Queries every page of `inputs` against the index in `dir` (a snapshot: the manifest as it
/// was when the query began); `on_row` gets every match, page by page in input order, best
/// first. Memory stays within `opts.mem_limit` whatever the number of pages.
pub(crate) fn query(
    dir: &Path,
    inputs: &[Input],
    opts: &QueryOptions,
    progress: &dyn Progress,
    mut on_row: impl FnMut(QueryRow) -> Result<(), Error>,
) -> Result<QuerySummary, Error> {
    let snap = Snapshot::open(dir)?;
    let params = &snap.manifest().params;
    let staged = stage(
        inputs,
        &opts.pipeline,
        params,
        opts.mem_limit,
        &opts.tmp_dir,
        progress,
    )?;
    let family = staged.family();
    let cfg = dedup_config(&snap.manifest().matching);
    let scorer = SideScorer::new(&cfg);
    let mut scratch = Scratch::default();
    let mut summary = QuerySummary::default();
    staged.for_each(|page| {
        let limit = opts.max_matches.unwrap_or(usize::MAX);
        let (matches, more) = snap.matches_upto(&scorer, family, page, &mut scratch, limit)?;
        summary.pages_cut += u64::from(more);
        summary.pages += 1;
        summary.pages_matched += u64::from(!matches.is_empty());
        summary.matches += matches.len() as u64;
        for m in matches {
            on_row(neardup_evidence::with_evidence!(
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
            ))?;
        }
        Ok(())
    })?;
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
/// these is a settings error naming it.
pub(crate) fn lookup_digests(dir: &Path, digests: &[String]) -> Result<Vec<DigestRow>, Error> {
    digest_rows(&Snapshot::open(dir)?, digests)
}

/// [`Index::digests`](crate::Index::digests) against a snapshot (what the service asks).
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

/// What an index holds (`index stats`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StatsReport {
    /// The manifest generation.
    pub generation: u64,
    /// Signature parameters.
    pub params: SketchParams,
    /// Matching.
    pub matching: Matching,
    /// Pages held.
    pub pages: u64,
    /// The id the next added page gets.
    pub next_page: u64,
    /// Key entries (band and digest keys; removed crawls' entries until a compaction).
    pub keys: u64,
    /// Accepted pairs recorded by dedup runs.
    pub links: u64,
    /// Live segments.
    pub segments: usize,
    /// Bytes of the live segments.
    pub bytes: u64,
    /// Bytes per page held.
    pub bytes_per_page: f64,
    /// Per crawl label, in the order first added.
    pub crawls: Vec<CrawlStats>,
    /// Segments merged from several crawls (by the service's writer or a compaction): their
    /// entries belong to the crawls above, so they are counted here and not as a crawl.
    pub merged_segments: usize,
    /// Their bytes.
    pub merged_bytes: u64,
}

/// One crawl of an index.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CrawlStats {
    /// Its label.
    pub label: String,
    /// Pages.
    pub pages: u64,
    /// Segments under this label.
    pub segments: usize,
    /// Their bytes.
    pub bytes: u64,
}

/// What the manifest of the index in `dir` says (no segment is read).
pub(crate) fn stats(dir: &Path) -> Result<StatsReport, Error> {
    let m = Manifest::open(dir)?;
    let mut crawls: Vec<CrawlStats> = Vec::new();
    let (mut pages, mut keys, mut links, mut bytes) = (0, 0, 0, 0);
    let (mut merged_segments, mut merged_bytes) = (0, 0);
    for s in &m.segments {
        bytes += s.bytes;
        match s.kind() {
            Some(SegmentKind::Catalog) => pages += s.entries,
            Some(SegmentKind::Keys) => keys += s.entries,
            Some(SegmentKind::Links) => links += s.entries,
            Some(SegmentKind::Titles) | None => {}
        }
        if s.label.is_empty() {
            merged_segments += 1;
            merged_bytes += s.bytes;
            continue;
        }
        let i = match crawls.iter().position(|c| c.label == s.label) {
            Some(i) => i,
            None => {
                crawls.push(CrawlStats {
                    label: s.label.clone(),
                    pages: 0,
                    segments: 0,
                    bytes: 0,
                });
                crawls.len() - 1
            }
        };
        let c = &mut crawls[i];
        c.segments += 1;
        c.bytes += s.bytes;
        if s.is_catalog() {
            c.pages += s.entries;
        }
    }
    Ok(StatsReport {
        generation: m.generation,
        params: m.params.clone(),
        matching: m.matching,
        pages,
        next_page: m.next_page,
        keys,
        links,
        segments: m.segments.len(),
        bytes,
        bytes_per_page: if pages > 0 {
            bytes as f64 / pages as f64
        } else {
            0.0
        },
        crawls,
        merged_segments,
        merged_bytes,
    })
}

/// What a remove or a compaction did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MaintainReport {
    /// Pages removed (a remove) or 0.
    pub pages_removed: u64,
    /// Segments no longer live (their files deleted).
    pub segments_dropped: usize,
    /// Segments written.
    pub segments_written: usize,
    /// Entries dropped because they named removed pages (a compaction).
    pub entries_dropped: u64,
    /// The manifest generation now live.
    pub generation: u64,
}

/// Removes the crawl `label` from the index in `dir`: its segments leave the manifest in one
/// commit, then their files are deleted. Keys and links of other segments that name its pages
/// are skipped by every reader and dropped by the next compaction. Its page ids are never
/// given out again.
pub(crate) fn remove(dir: &Path, label: &str) -> Result<MaintainReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let mut m = Manifest::open(dir)?;
    remove_orphans(dir, &m)?;
    let (gone, kept): (Vec<SegmentEntry>, Vec<SegmentEntry>) =
        m.segments.drain(..).partition(|s| s.label == label);
    // A label whose adds held every record has files recorded and no segments: removing it
    // forgets the files.
    let files = m.inputs.iter().any(|i| i.label == label);
    if !gone.iter().any(|s| s.is_catalog()) && !files {
        let labels: std::collections::BTreeSet<&str> =
            kept.iter().map(|s| s.label.as_str()).collect();
        return Err(neardup_pipeline::SettingsError::new(
            "label",
            label,
            format!("the label of a crawl in the index: {labels:?}"),
        )
        .into());
    }
    m.segments = kept;
    // Its files may be added again.
    m.inputs.retain(|i| i.label != label);
    m.commit(dir)?;
    for s in &gone {
        let path = dir.join(&s.name);
        std::fs::remove_file(&path).map_err(|e| IndexError::io(&path, e))?;
    }
    Ok(MaintainReport {
        pages_removed: gone
            .iter()
            .filter(|s| s.is_catalog())
            .map(|s| s.entries)
            .sum(),
        segments_dropped: gone.len(),
        segments_written: 0,
        entries_dropped: 0,
        generation: m.generation,
    })
}

/// Merges every key segment into one and every link segment into one (a k-way merge of the
/// sorted files, dropping entries that name removed pages), then commits; catalogs stay.
/// Only the writer lock is held: readers keep their snapshots and are never blocked.
pub(crate) fn compact(dir: &Path) -> Result<MaintainReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let mut m = Manifest::open(dir)?;
    remove_orphans(dir, &m)?;
    let snap = Snapshot::of(dir, m.clone())?;
    let held = |id: u64| snap.holds(id);
    let generation = m.generation + 1;
    let mut report = MaintainReport::default();
    let mut segments: Vec<SegmentEntry> = m
        .segments
        .iter()
        .filter(|s| s.is_catalog_or_titles())
        .cloned()
        .collect();
    for kind in [SegmentKind::Keys, SegmentKind::Links] {
        let old: Vec<&SegmentEntry> = m
            .segments
            .iter()
            .filter(|s| s.kind() == Some(kind))
            .collect();
        if old.is_empty() {
            continue;
        }
        let readers = old
            .iter()
            .map(|s| KeySegmentReader::open(&dir.join(&s.name)))
            .collect::<Result<Vec<_>, _>>()?;
        let name = format!("seg-{generation}.{}", kind.extension());
        let mut w = KeySegmentWriter::create(&dir.join(&name))?;
        let mut dropped = 0;
        merge(&readers, |k, v| {
            let keep = held(v) && (kind == SegmentKind::Keys || held(k));
            if keep {
                w.push(k, v)
            } else {
                dropped += 1;
                Ok(())
            }
        })?;
        let (entries, bytes) = w.finish()?;
        report.entries_dropped += dropped;
        report.segments_dropped += old.len();
        report.segments_written += 1;
        segments.push(SegmentEntry {
            name,
            entries,
            bytes,
            label: String::new(),
        });
    }
    let before: Vec<SegmentEntry> = std::mem::replace(&mut m.segments, segments);
    m.commit(dir)?;
    drop(snap);
    for s in before.iter().filter(|s| !s.is_catalog_or_titles()) {
        let path = dir.join(&s.name);
        std::fs::remove_file(&path).map_err(|e| IndexError::io(&path, e))?;
    }
    report.generation = m.generation;
    Ok(report)
}

/// A k-way merge of sorted key segments: `f` gets every entry in `(key, page)` order, each
/// once.
pub(crate) fn merge(
    readers: &[KeySegmentReader],
    mut f: impl FnMut(u64, u64) -> Result<(), IndexError>,
) -> Result<(), IndexError> {
    let mut m = MergedEntries::new(readers)?;
    while let Some((k, v)) = m.next()? {
        f(k, v)?;
    }
    Ok(())
}

/// The entries of sorted key segments in `(key, page)` order, each once (a k-way merge).
pub(crate) struct MergedEntries<'a> {
    iters: Vec<crate::Entries<'a>>,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<((u64, u64), usize)>>,
    last: Option<(u64, u64)>,
}

impl<'a> MergedEntries<'a> {
    pub(crate) fn new(readers: &'a [KeySegmentReader]) -> Result<MergedEntries<'a>, IndexError> {
        let mut m = MergedEntries {
            iters: readers.iter().map(|r| r.entries()).collect(),
            heap: Default::default(),
            last: None,
        };
        for i in 0..m.iters.len() {
            if let Some(e) = m.iters[i].next() {
                m.heap.push(std::cmp::Reverse((e?, i)));
            }
        }
        Ok(m)
    }

    /// The next entry without taking it.
    pub(crate) fn peek(&mut self) -> Result<Option<(u64, u64)>, IndexError> {
        while let Some(&std::cmp::Reverse((e, i))) = self.heap.peek() {
            if self.last != Some(e) {
                return Ok(Some(e));
            }
            self.heap.pop();
            if let Some(n) = self.iters[i].next() {
                self.heap.push(std::cmp::Reverse((n?, i)));
            }
        }
        Ok(None)
    }

    /// Takes the next entry.
    #[allow(clippy::should_implement_trait)]
    pub(crate) fn next(&mut self) -> Result<Option<(u64, u64)>, IndexError> {
        let Some(e) = self.peek()? else {
            return Ok(None);
        };
        let std::cmp::Reverse((_, i)) = self.heap.pop().expect("peeked");
        self.last = Some(e);
        if let Some(n) = self.iters[i].next() {
            self.heap.push(std::cmp::Reverse((n?, i)));
        }
        Ok(Some(e))
    }
}

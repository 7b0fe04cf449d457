//! `dedup --index`: new pages against an index and among themselves, clustered with every
//! pair earlier dedup runs recorded, then (optionally) added with the pairs they brought;
//! within `--mem-limit` whatever the number of pages.
//!
//! 1. The new pages are staged in input order ([`crate::stage`]) and written as the next
//!    generation's catalog and key segments (in the index folder when they are to be added,
//!    named by no manifest until the commit; else in a private folder in `tmp_dir`).
//! 2. Candidates: identity sets first (new pages with the same token sequence, as `dedup`
//!    forms them: sorted externally by token hash and count, each member paired with the
//!    set's first page, its representative); then the new key segment is walked key by key
//!    beside the index's key segments (merged in key order, or looked up key by key when the
//!    index is much larger than the run): under each key, every new page is paired with every
//!    indexed page (what a query checks), and each representative with the first and the
//!    previous representative under it (what `dedup`'s bucket pairs are). The pairs are
//!    sorted externally and made distinct.
//! 3. Each pair is scored from the two catalog records (the index's acceptance); an accepted
//!    pair joins a `u32` union-find over every page id, becomes a link of the run, and a
//!    candidate for the best match of its new pages (sorted externally too: per page, highest
//!    Jaccard first, an indexed page before one of the run).
//! 4. Clusters: the components of every recorded link between held pages and the run's;
//!    those holding a new page are written row by row in the order of their first page
//!    (members sorted externally by cluster), every fact read from the catalogs.
//!
//! Every accepted pair is examined once, when its later page arrives, and each cluster keeps
//! its first page; so adding crawls one run at a time gives the clusters of one `dedup` over
//! all of them with the index's matching.

use crate::site_names::SiteNames;
use crate::snapshot::side;
use crate::{
    commit_add, dedup_config, remove_orphans, segment_name, stage, write_pages, MergedEntries,
    Snapshot,
};
use crate::{
    CatalogPage, CatalogReader, IndexError, KeySegmentReader, KeySegmentWriter, Manifest,
    SegmentEntry, SegmentKind, WriterLock,
};
use neardup_cluster::UnionFind;
use neardup_dedup::{Rule, SideScorer};
use neardup_pipeline::{Error, Input, PipelineConfig, Progress};
use neardup_report::Table;
use neardup_store::extsort::{ExternalSorter, Record};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a dedup against an index does.
#[derive(Clone, Debug)]
pub struct IndexDedupOptions {
    /// How inputs are read and tokenized.
    pub pipeline: PipelineConfig,
    /// Add the new pages (and the pairs found) under this crawl label; `None`: only report.
    pub add: Option<String>,
    /// Bytes of pages, keys and pairs held in memory at most (about; the read batches and
    /// 20 bytes per page id of the union-find, cluster counts and identity sets come on top).
    pub mem_limit: usize,
    /// Where a run that adds nothing writes its pages' segments and sort runs (a private
    /// subfolder, removed when done); a run that adds writes them in the index folder.
    pub tmp_dir: PathBuf,
}

impl IndexDedupOptions {
    /// Reads with `pipeline`, adds under `add` when given, within
    /// [`crate::DEFAULT_MEM_LIMIT`], temporary files in the system's temporary folder.
    pub fn new(pipeline: PipelineConfig, add: Option<String>) -> IndexDedupOptions {
        IndexDedupOptions {
            pipeline,
            add,
            mem_limit: crate::DEFAULT_MEM_LIMIT,
            tmp_dir: std::env::temp_dir(),
        }
    }
}

/// The summary of a dedup against an index.
#[derive(Clone, Debug, Serialize)]
pub struct IndexDedupSummary {
    /// Pages of the inputs (sketched).
    pub pages: u64,
    /// Pages the index held before the run.
    pub index_pages: u64,
    /// New pages matching at least one indexed page.
    pub duplicates_of_index: u64,
    /// New pages in a cluster (with indexed pages or other new pages).
    pub pages_in_clusters: u64,
    /// New pages to drop: in a cluster whose first page is another one.
    pub pages_to_remove: u64,
    /// Clusters holding at least one new page.
    pub clusters: u64,
    /// Candidate pairs scored (distinct).
    pub candidate_pairs: u64,
    /// Accepted pairs of a new page and an indexed page.
    pub pairs_with_index: u64,
    /// Accepted pairs of two new pages (each with the first and the previous new page under
    /// a shared key).
    pub pairs_within_run: u64,
    /// Runs of pages spilled to disk to keep them in input order (0: they fitted).
    pub page_runs: usize,
    /// Records the readers skipped (file, offset, reason).
    pub skipped: neardup_pipeline::Skipped,
    /// The matching, in words.
    pub matching: String,
    /// What the add did, when asked.
    pub added: Option<AddedSummary>,
    /// Seconds: read and sketch (with writing the pages' segments), candidates, verify,
    /// cluster, rows, add.
    pub seconds: Vec<(String, f64)>,
}

/// What the add of a dedup run did.
#[derive(Clone, Debug, Serialize)]
pub struct AddedSummary {
    /// Pages added.
    pub pages: u64,
    /// Their ids start here.
    pub first_id: u64,
    /// The manifest generation now live.
    pub generation: u64,
    /// The crawl label.
    pub label: String,
}

/// A row of `clusters` for a dedup against an index: a page of a cluster holding a new page,
/// indexed or new, with the cluster's first page and (for a new page) its best match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexDedupRow {
    /// The page's index id (a new page's is the id it gets when added).
    pub page: u64,
    /// URL.
    pub url: String,
    /// The caller's id or WARC-Record-ID.
    pub id: String,
    /// Fetch date.
    pub date: String,
    /// Its crawl label (a new page: the add's label, empty when not added).
    pub label: String,
    /// A page of this run.
    pub new: bool,
    /// The cluster: its first page's index id.
    pub cluster: u64,
    /// Pages in the cluster (indexed and new).
    pub cluster_size: u64,
    /// This page is the cluster's first (kept) page.
    pub canonical: bool,
    /// The first page's URL.
    pub canonical_url: String,
    /// Its id.
    pub canonical_id: String,
    /// Its crawl label.
    pub canonical_label: String,
    /// A new page's best match (highest Jaccard; an indexed page before one of this run).
    pub match_page: Option<u64>,
    /// Its URL.
    pub match_url: Option<String>,
    /// Its crawl label (this run's for a page of the run).
    pub match_label: Option<String>,
    /// Which rule matched.
    pub rule: Option<Rule>,
    /// Share of agreeing minvalues.
    pub estimated_jaccard: Option<f64>,
    /// Exact Jaccard when both pages kept their shingle sets.
    pub exact_jaccard: Option<f64>,
    /// Estimated share of the smaller page found in the larger.
    pub containment: Option<f64>,
}

impl Table for IndexDedupRow {
    const NAME: &'static str = "clusters";
}

/// Every rule, by the number an [`Accepted`] record stores.
const RULES: [Rule; 6] = [
    Rule::IdenticalTokens,
    Rule::Supershingles,
    Rule::LshBands,
    Rule::Simhash,
    Rule::Combined,
    Rule::RpHm,
];

/// "None" in the `f64` bits of an [`Accepted`] record.
const NONE: u64 = u64::MAX;

/// An accepted pair as a candidate for `page`'s best match, ordered so that the best comes
/// first: highest Jaccard (`rank` = `u64::MAX` minus its bits), then the smaller other page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Accepted {
    page: u64,
    rank: u64,
    other: u64,
    estimated: u64,
    exact: u64,
    containment: u64,
    rule: u8,
}

impl Record for Accepted {
    const SIZE: usize = 49;
    fn encode(&self, out: &mut [u8]) {
        let words = [
            self.page,
            self.rank,
            self.other,
            self.estimated,
            self.exact,
            self.containment,
        ];
        for (i, w) in words.iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
        out[48] = self.rule;
    }
    fn decode(b: &[u8]) -> Self {
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8"));
        Accepted {
            page: w(0),
            rank: w(1),
            other: w(2),
            estimated: w(3),
            exact: w(4),
            containment: w(5),
            rule: b[48],
        }
    }
}

/// Where the run's pages are written: the index folder (an add) or a private folder.
enum Work {
    Index(PathBuf),
    Temp(tempfile::TempDir),
}

impl Work {
    fn path(&self) -> &Path {
        match self {
            Work::Index(p) => p,
            Work::Temp(t) => t.path(),
        }
    }
}

/// Pages by id: the run's (ids from `first`, in its own catalog, under its label) and the
/// index's.
struct Pages<'a> {
    first: u64,
    run: &'a CatalogReader,
    label: &'a str,
    snap: &'a Snapshot,
}

impl<'a> Pages<'a> {
    /// Page `id` into `out` and its crawl label; `None` for a removed crawl's page.
    fn get(
        &self,
        id: u64,
        out: &mut CatalogPage,
        buf: &mut Vec<u8>,
    ) -> Result<Option<&'a str>, IndexError> {
        if id >= self.first {
            self.run.get_with(id, out, buf)?;
            Ok(Some(self.label))
        } else {
            self.snap.page_with(id, out, buf)
        }
    }
}

/// Deduplicates the pages of `inputs` against the index in `dir` and among themselves; with
/// `opts.add`, adds them (with the pairs found) in one commit. `on_row` gets every page of
/// every cluster holding a new page, cluster by cluster in the order of their first pages.
pub(crate) fn dedup(
    dir: &Path,
    inputs: &[Input],
    opts: &IndexDedupOptions,
    progress: &dyn Progress,
    mut on_row: impl FnMut(IndexDedupRow) -> Result<(), Error>,
) -> Result<IndexDedupSummary, Error> {
    let mut seconds = Vec::new();
    let mut t = Instant::now();
    let mut lap = |name: &str, seconds: &mut Vec<(String, f64)>| {
        seconds.push((name.to_string(), t.elapsed().as_secs_f64()));
        t = Instant::now();
    };
    let lock = opts
        .add
        .as_ref()
        .map(|_| WriterLock::acquire(dir))
        .transpose()?;
    let snap = match &lock {
        Some(_) => {
            let m = Manifest::open(dir)?;
            remove_orphans(dir, &m)?;
            Snapshot::of(dir, m)?
        }
        None => Snapshot::open(dir)?,
    };
    let manifest = snap.manifest().clone();
    let first = manifest.next_page;
    let work = match &lock {
        Some(_) => Work::Index(dir.to_path_buf()),
        None => Work::Temp(
            tempfile::Builder::new()
                .prefix("neardup-dedup-")
                .tempdir_in(&opts.tmp_dir)
                .map_err(|e| IndexError::io(&opts.tmp_dir, e))?,
        ),
    };
    let wdir = work.path();
    let label = opts.add.clone().unwrap_or_default();
    let quarter = (opts.mem_limit / 4).max(1 << 16);
    let io = |e| Error::from(IndexError::io(wdir, e));
    // (token hash ^ terms rotated, page): `dedup`'s identity key.
    let mut identity = ExternalSorter::<(u64, u64)>::new(quarter, wdir);
    let (written, page_runs, skipped) = {
        let staged = stage(
            inputs,
            &opts.pipeline,
            &manifest.params,
            opts.mem_limit / 2,
            wdir,
            progress,
        )?;
        let written = write_pages(wdir, &manifest, &staged, &label, quarter, &mut |id, p| {
            let key = p.token_hash ^ u64::from(p.tokens).rotate_left(32);
            identity.push((key, id)).map_err(io)
        })?;
        let skipped = staged.skipped(opts.pipeline.skipped_examples);
        (written, staged.runs(), skipped)
    };
    let n = written.pages;
    let total = first + n;
    let total32 = u32::try_from(total).map_err(|_| {
        neardup_pipeline::SettingsError::new(
            "index pages",
            total,
            "at most 4294967295 pages in the index and the run together",
        )
    })?;
    let catalog = CatalogReader::open(&wdir.join(segment_name(&manifest, SegmentKind::Catalog)))?;
    let new_keys = KeySegmentReader::open(&wdir.join(segment_name(&manifest, SegmentKind::Keys)))?;
    // Site names from the index's title counts and the run's, as one `dedup` over both.
    let mut title_segments = snap.titles().to_vec();
    title_segments.push(KeySegmentReader::open(
        &wdir.join(segment_name(&manifest, SegmentKind::Titles)),
    )?);
    let mut names = SiteNames::new(&title_segments, None);
    lap("read-sketch-write", &mut seconds);

    // 2. Candidate pairs (new page, earlier page), distinct: identity sets, then keys.
    let mut candidates = ExternalSorter::<(u64, u64)>::new(quarter, wdir);
    // Each new page's representative, as an offset from `first`.
    let mut rep: Vec<u32> = (0..n as u32).collect();
    let mut set = (NONE, NONE);
    for e in identity.finish().map_err(io)? {
        let (key, id) = e.map_err(io)?;
        if key == set.0 {
            rep[(id - first) as usize] = (set.1 - first) as u32;
            candidates.push((id, set.1)).map_err(io)?;
        } else {
            set = (key, id);
        }
    }
    let is_rep = |p: u64| rep[(p - first) as usize] as u64 == p - first;
    let old_entries: u64 = snap.keys().iter().map(KeySegmentReader::len).sum();
    let scan = old_entries <= 16 * new_keys.len().max(1);
    let mut old = MergedEntries::new(if scan { snap.keys() } else { &[] })?;
    let (mut group, mut olds, mut block) = (Vec::new(), Vec::new(), Vec::new());
    let mut entries = new_keys.entries().peekable();
    while let Some(e) = entries.next() {
        let (key, page) = e?;
        group.clear();
        group.push(page);
        while let Some(Ok((k, p))) = entries.peek() {
            if *k != key {
                break;
            }
            group.push(*p);
            entries.next();
        }
        olds.clear();
        if scan {
            while let Some((k, p)) = old.peek()? {
                if k > key {
                    break;
                }
                if k == key {
                    olds.push(p);
                }
                old.next()?;
            }
        } else {
            for seg in snap.keys() {
                seg.lookup(key, &mut block, &mut olds)?;
            }
        }
        olds.retain(|&p| snap.holds(p));
        for &a in &group {
            for &b in &olds {
                candidates.push((a, b)).map_err(io)?;
            }
        }
        if group.len() > 1 {
            group.retain(|&p| is_rep(p));
        }
        for i in 1..group.len() {
            candidates.push((group[i], group[0])).map_err(io)?;
            if i >= 2 {
                candidates.push((group[i], group[i - 1])).map_err(io)?;
            }
        }
    }
    drop(old);
    drop(rep);
    let pairs = candidates.finish().map_err(io)?;
    lap("candidates", &mut seconds);

    // 3. Scores; accepted pairs join the union-find, the links, the best-match candidates.
    let cfg = dedup_config(&manifest.matching);
    let scorer = SideScorer::new(&cfg);
    let mut uf = UnionFind::new(total32);
    let mut links = match &lock {
        Some(_) => Some(KeySegmentWriter::create(
            &wdir.join(segment_name(&manifest, SegmentKind::Links)),
        )?),
        None => None,
    };
    let pages = Pages {
        first,
        run: &catalog,
        label: &label,
        snap: &snap,
    };
    let mut best = ExternalSorter::<Accepted>::new(quarter, wdir);
    let (mut pa, mut pb, mut record) = (CatalogPage::default(), CatalogPage::default(), Vec::new());
    let (mut scored, mut with_index, mut within, mut of_index) = (0u64, 0u64, 0u64, 0u64);
    let mut last: Option<(u64, u64)> = None;
    let mut current = u64::MAX;
    let mut current_of_index = false;
    for pair in pairs {
        let (a, b) = pair.map_err(io)?;
        if last == Some((a, b)) {
            continue;
        }
        last = Some((a, b));
        if a != current {
            of_index += u64::from(current_of_index);
            current_of_index = false;
            pages.get(a, &mut pa, &mut record)?;
            current = a;
        }
        if pages.get(b, &mut pb, &mut record)?.is_none() {
            continue;
        }
        scored += 1;
        let (e, accepted) = scorer.judge(&side(&pa), &side(&pb), || {
            names.agree((&pa.host, &pa.title), (&pb.host, &pb.title))
        })?;
        if !accepted {
            continue;
        }
        uf.union(a as u32, b as u32);
        if let Some(w) = links.as_mut() {
            w.push(a, b)?;
        }
        let rec = |page, other| Accepted {
            page,
            rank: u64::MAX - e.jaccard().to_bits(),
            other,
            estimated: e.estimated_jaccard.to_bits(),
            exact: e.exact_jaccard.map_or(NONE, f64::to_bits),
            containment: e.containment.to_bits(),
            rule: RULES.iter().position(|r| *r == e.rule).unwrap_or(0) as u8,
        };
        best.push(rec(a, b)).map_err(io)?;
        if b >= first {
            within += 1;
            best.push(rec(b, a)).map_err(io)?;
        } else {
            with_index += 1;
            current_of_index = true;
        }
    }
    of_index += u64::from(current_of_index);
    // Each new page's best match, one fixed-size record per page (`other` NONE: none).
    let scratch = tempfile::Builder::new()
        .prefix("neardup-sort-")
        .tempdir_in(wdir)
        .map_err(|e| IndexError::io(wdir, e))?;
    let best_path = scratch.path().join("best");
    {
        let mut out = BufWriter::with_capacity(
            1 << 16,
            File::create(&best_path).map_err(|e| IndexError::io(&best_path, e))?,
        );
        let mut buf = [0u8; Accepted::SIZE];
        let mut next = first;
        let mut write = |r: &Accepted, out: &mut BufWriter<File>| {
            r.encode(&mut buf);
            out.write_all(&buf)
                .map_err(|e| Error::from(IndexError::io(&best_path, e)))
        };
        let none = |page| Accepted {
            page,
            rank: NONE,
            other: NONE,
            estimated: NONE,
            exact: NONE,
            containment: NONE,
            rule: 0,
        };
        for r in best.finish().map_err(io)? {
            let r = r.map_err(io)?;
            if r.page < next {
                continue;
            }
            while next < r.page {
                write(&none(next), &mut out)?;
                next += 1;
            }
            write(&r, &mut out)?;
            next += 1;
        }
        while next < total {
            write(&none(next), &mut out)?;
            next += 1;
        }
        out.flush().map_err(|e| IndexError::io(&best_path, e))?;
    }
    let best_file = File::open(&best_path).map_err(|e| IndexError::io(&best_path, e))?;
    lap("verify", &mut seconds);

    // 4. Clusters: every recorded link between held pages, and the run's.
    for seg in snap.links() {
        for e in seg.entries() {
            let (a, b) = e?;
            if snap.holds(a) && snap.holds(b) {
                uf.union(a as u32, b as u32);
            }
        }
    }
    // Per root: holds a new page (bit), size, first (smallest) page.
    let mut flagged = vec![0u64; (total as usize).div_ceil(64)];
    for a in first..total {
        let r = uf.find(a as u32) as usize;
        flagged[r / 64] |= 1 << (r % 64);
    }
    let is_flagged = |r: u32| flagged[r as usize / 64] & (1 << (r % 64)) != 0;
    let mut size = vec![0u32; total as usize];
    let mut head = vec![u32::MAX; total as usize];
    for id in 0..total32 {
        let r = uf.find(id);
        if is_flagged(r) {
            size[r as usize] += 1;
            if head[r as usize] == u32::MAX {
                head[r as usize] = id;
            }
        }
    }
    let mut members = ExternalSorter::<(u64, u64)>::new(quarter, wdir);
    let (mut clusters, mut in_clusters, mut to_remove) = (0u64, 0u64, 0u64);
    for id in 0..total32 {
        let r = uf.find(id);
        if is_flagged(r) && size[r as usize] > 1 {
            let h = head[r as usize];
            members.push((h as u64, id as u64)).map_err(io)?;
            clusters += u64::from(h == id);
            if u64::from(id) >= first {
                in_clusters += 1;
                to_remove += u64::from(h != id);
            }
        }
    }
    lap("cluster", &mut seconds);

    // Rows, cluster by cluster, every fact read from the catalogs.
    let describe = |id: u64, out: &mut CatalogPage, buf: &mut Vec<u8>| -> Result<String, Error> {
        Ok(pages.get(id, out, buf)?.unwrap_or_default().to_string())
    };
    let (mut canon, mut canon_label, mut canon_id) = (CatalogPage::default(), String::new(), NONE);
    let (mut page, mut matched) = (CatalogPage::default(), CatalogPage::default());
    let mut cluster_size = |h: u64| size[uf.find(h as u32) as usize] as u64;
    let mut best_buf = [0u8; Accepted::SIZE];
    for m in members.finish().map_err(io)? {
        let (h, id) = m.map_err(io)?;
        if h != canon_id {
            canon_label = describe(h, &mut canon, &mut record)?;
            canon_id = h;
        }
        let page_label = describe(id, &mut page, &mut record)?;
        let new = id >= first;
        let b = if new {
            best_file
                .read_exact_at(&mut best_buf, (id - first) * Accepted::SIZE as u64)
                .map_err(|e| IndexError::io(&best_path, e))?;
            Some(Accepted::decode(&best_buf)).filter(|r| r.other != NONE)
        } else {
            None
        };
        let match_label = match b {
            Some(r) => Some(describe(r.other, &mut matched, &mut record)?),
            None => None,
        };
        on_row(IndexDedupRow {
            page: id,
            url: page.url.clone(),
            id: page.user_id.clone(),
            date: page.date.clone(),
            label: page_label,
            new,
            cluster: h,
            cluster_size: cluster_size(h),
            canonical: id == h,
            canonical_url: canon.url.clone(),
            canonical_id: canon.user_id.clone(),
            canonical_label: canon_label.clone(),
            match_page: b.map(|r| r.other),
            match_url: b.map(|_| matched.url.clone()),
            match_label,
            rule: b.map(|r| RULES[(r.rule as usize).min(RULES.len() - 1)]),
            estimated_jaccard: b.map(|r| f64::from_bits(r.estimated)),
            exact_jaccard: b.and_then(|r| (r.exact != NONE).then(|| f64::from_bits(r.exact))),
            containment: b.map(|r| f64::from_bits(r.containment)),
        })?;
    }
    lap("rows", &mut seconds);

    let index_pages = snap
        .catalogs()
        .iter()
        .map(|(c, _)| c.ids().end - c.ids().start)
        .sum();
    let matching = format!(
        "{}; {}",
        cfg.matching.describe(&manifest.params, cfg.threshold, 0),
        cfg.describe_acceptance()
    );
    drop(catalog);
    drop(new_keys);
    let added = match (&opts.add, lock, links) {
        (Some(label), Some(_lock), Some(links)) => {
            let mut manifest = manifest;
            drop(snap);
            let mut written = written;
            let (entries, bytes) = links.finish()?;
            let links_name = segment_name(&manifest, SegmentKind::Links);
            if entries > 0 {
                written.segments.push(SegmentEntry {
                    name: links_name,
                    entries,
                    bytes,
                    label: label.clone(),
                });
            } else {
                let path = dir.join(&links_name);
                std::fs::remove_file(&path).map_err(|e| IndexError::io(&path, e))?;
            }
            let r = commit_add(dir, &mut manifest, written, page_runs)?;
            lap("add", &mut seconds);
            Some(AddedSummary {
                pages: r.pages,
                first_id: r.first_id,
                generation: r.generation,
                label: label.clone(),
            })
        }
        _ => None,
    };
    drop(scratch);
    drop(work);
    Ok(IndexDedupSummary {
        pages: n,
        index_pages,
        duplicates_of_index: of_index,
        pages_in_clusters: in_clusters,
        pages_to_remove: to_remove,
        clusters,
        candidate_pairs: scored,
        pairs_with_index: with_index,
        pairs_within_run: within,
        page_runs,
        skipped,
        matching,
        added,
        seconds,
    })
}

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

use crate::dedup_rows::{AddedSummary, IndexDedupOptions, IndexDedupRow, IndexDedupSummary};
use crate::records::{check, record_inputs, Holds, InputEntry, InputsCheck};
use crate::site_names::SiteNames;
use crate::snapshot::side;
use crate::{
    commit_add, dedup_config, remove_orphans, stage, write_pages, MergedEntries, Snapshot, Written,
};
use crate::{
    CatalogPage, CatalogReader, IndexError, KeySegmentReader, KeySegmentWriter, Manifest,
    SegmentEntry, SegmentKind, WriterLock,
};
use neardup_cluster::UnionFind;
use neardup_dedup::{steps, Rule};
use neardup_pipeline::{Error, Input, Progress};
use neardup_store::extsort::{ExternalSorter, Record, Sorted};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
/// Each step is a function below; the rules they apply are [`neardup_dedup::steps`].
pub(crate) fn dedup(
    dir: &Path,
    inputs: &[Input],
    opts: &IndexDedupOptions,
    progress: &dyn Progress,
    mut on_row: impl FnMut(IndexDedupRow) -> Result<(), Error>,
    land: impl FnOnce(&IndexDedupSummary) -> Result<(), Error>,
) -> Result<IndexDedupSummary, Error> {
    let mut laps = Laps::default();
    let run = Run::begin(dir, opts)?;
    let files = match &opts.add {
        Some(label) => match check(&run.manifest, inputs, label, opts.again, true)? {
            InputsCheck::Add(files) => files,
            InputsCheck::Done(generation) => {
                return Ok(IndexDedupSummary {
                    already_added: Some(generation),
                    matching: String::new(),
                    ..Default::default()
                })
            }
        },
        None => Vec::new(),
    };
    let (new, identity) = stage_pages(&run, inputs, progress)?;
    // Site names from the index's title counts and the run's, as one `dedup` over both.
    let mut title_segments = run.snap.titles().to_vec();
    title_segments.push(KeySegmentReader::open(&run.segment(SegmentKind::Titles))?);
    let mut names = SiteNames::new(&title_segments, None);
    laps.lap("read-sketch-write");

    let pairs = candidates(&run, &new, identity)?;
    laps.lap("candidates");

    let pages = Pages {
        first: run.first,
        run: &new.catalog,
        label: &run.label,
        snap: &run.snap,
    };
    let mut scored = score_pairs(&run, &pages, &mut names, pairs, new.total32)?;
    let best = BestMatches::write(&run, scored.best, new.total())?;
    laps.lap("verify");

    let clusters = cluster(&run, &mut scored.uf, new.total())?;
    laps.lap("cluster");

    write_rows(
        &pages,
        clusters.members,
        &mut scored.uf,
        &clusters.size,
        &best,
        &mut on_row,
    )?;
    drop(best);
    laps.lap("rows");

    let index_pages = (run.snap.catalogs().iter())
        .map(|(c, _)| c.ids().end - c.ids().start)
        .sum();
    let cfg = dedup_config(&run.manifest.matching);
    let matching = format!(
        "{}; {}",
        cfg.matching
            .describe(&run.manifest.params, cfg.threshold, 0),
        cfg.describe_acceptance()
    );
    let NewPages {
        written,
        page_runs,
        skipped,
        n,
        catalog,
        keys,
        held: new_held,
        untracked: new_untracked,
        ..
    } = new;
    drop((catalog, keys));
    let held = (new_held, new_untracked);
    // What the add will be, for the outputs, which land before it is committed: a kill
    // after the commit leaves them whole, and the rerun has nothing to do.
    let will_add = opts.add.as_ref().map(|label| AddedSummary {
        pages: written.pages,
        held: held.0,
        untracked: held.1,
        first_id: run.first,
        generation: run.manifest.generation + 1,
        label: label.clone(),
        merged: None,
        merge_error: None,
    });
    let mut summary = IndexDedupSummary {
        pages: n,
        index_pages,
        duplicates_of_index: scored.of_index,
        pages_in_clusters: clusters.in_clusters,
        pages_to_remove: clusters.to_remove,
        clusters: clusters.clusters,
        candidate_pairs: scored.scored,
        pairs_with_index: scored.with_index,
        pairs_within_run: scored.within,
        page_runs,
        skipped,
        matching,
        added: will_add,
        already_added: None,
        seconds: laps.seconds.clone(),
    };
    land(&summary)?;
    let added = commit(run, written, scored.links, page_runs, files, held)?;
    if let Some(a) = &added {
        laps.lap("add");
        if let Some(e) = &a.merge_error {
            progress.warning(&format!("{}: {e}", dir.display()));
        }
        let will = summary.added.as_ref();
        debug_assert!(will.is_some_and(
            |w| (w.pages, w.first_id, w.generation) == (a.pages, a.first_id, a.generation)
        ));
    }
    summary.added = added;
    summary.seconds = laps.seconds;
    Ok(summary)
}

/// Seconds per step.
struct Laps {
    seconds: Vec<(String, f64)>,
    t: Instant,
}

impl Default for Laps {
    fn default() -> Laps {
        Laps {
            seconds: Vec::new(),
            t: Instant::now(),
        }
    }
}

impl Laps {
    fn lap(&mut self, name: &str) {
        (self.seconds).push((name.to_string(), self.t.elapsed().as_secs_f64()));
        self.t = Instant::now();
    }
}

/// The index side of a run: its lock (when adding), its snapshot, where its files go.
struct Run<'o> {
    dir: &'o Path,
    opts: &'o IndexDedupOptions,
    lock: Option<WriterLock>,
    snap: Snapshot,
    manifest: Manifest,
    /// The run's first page id.
    first: u64,
    work: Work,
    label: String,
    /// Memory of each external sort.
    quarter: usize,
}

impl<'o> Run<'o> {
    /// Takes the writer lock when adding (and removes what a crashed writer left), opens the
    /// snapshot and the folder the run writes to.
    fn begin(dir: &'o Path, opts: &'o IndexDedupOptions) -> Result<Run<'o>, Error> {
        let lock = (opts.add.as_ref())
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
        let work = match &lock {
            Some(_) => Work::Index(dir.to_path_buf()),
            None => Work::Temp(
                tempfile::Builder::new()
                    .prefix("neardup-dedup-")
                    .tempdir_in(&opts.tmp_dir)
                    .map_err(|e| IndexError::io(&opts.tmp_dir, e))?,
            ),
        };
        let manifest = snap.manifest().clone();
        Ok(Run {
            dir,
            opts,
            lock,
            first: manifest.next_page,
            manifest,
            snap,
            work,
            label: opts.add.clone().unwrap_or_default(),
            quarter: (opts.mem_limit / 4).max(1 << 16),
        })
    }

    /// Where the run's segments and sort runs go.
    fn wdir(&self) -> &Path {
        self.work.path()
    }

    /// An I/O error in the run's folder.
    fn io(&self) -> impl Fn(std::io::Error) -> Error + '_ {
        |e| Error::from(IndexError::io(self.wdir(), e))
    }

    /// The path of the run's segment of `kind`.
    fn segment(&self, kind: SegmentKind) -> PathBuf {
        self.wdir().join(self.manifest.next_segment_name(kind))
    }

    /// An external sorter in the run's folder.
    fn sorter<T: Record>(&self) -> ExternalSorter<T> {
        ExternalSorter::new(self.quarter, self.wdir())
    }
}

/// The run's pages, written as the next generation's segments.
struct NewPages {
    written: Written,
    page_runs: usize,
    skipped: neardup_pipeline::Skipped,
    /// Pages of the run.
    n: u64,
    /// Pages of the index and the run.
    total32: u32,
    catalog: CatalogReader,
    keys: KeySegmentReader,
    /// Pages held already (when adding): not in the run.
    held: u64,
    /// Pages whose repeats within the run were not looked for.
    untracked: u64,
}

impl NewPages {
    fn total(&self) -> u64 {
        u64::from(self.total32)
    }
}

/// Step 1: the new pages staged in input order and written as the next generation's catalog,
/// key and title segments, with every page's `(identity key, id)` to sort.
fn stage_pages(
    run: &Run,
    inputs: &[Input],
    progress: &dyn Progress,
) -> Result<(NewPages, ExternalSorter<(u64, u64)>), Error> {
    let opts = run.opts;
    let mut identity = run.sorter::<(u64, u64)>();
    let staged = stage(
        inputs,
        &opts.pipeline,
        &run.manifest.params,
        run.manifest.storage.capture_prints,
        opts.mem_limit / 2,
        run.wdir(),
        progress,
    )?;
    let (manifest, label) = (&run.manifest, &run.label);
    // Only an add leaves out what the index holds: a dedup alone answers for every page.
    let mut holds = Holds::new(Some(&run.snap), run.quarter / 2);
    let written = write_pages(
        run.wdir(),
        manifest,
        &staged,
        label,
        run.quarter,
        run.opts.add.is_some().then_some(&mut holds),
        &mut |id, p| {
            let key = steps::identity_key(p.token_hash, p.tokens, 0);
            identity.push((key, id)).map_err(run.io())
        },
    )?;
    let n = written.pages;
    let total = run.first + n;
    let total32 = u32::try_from(total).map_err(|_| {
        neardup_pipeline::SettingsError::new(
            "index pages",
            total,
            "at most 4294967295 pages in the index and the run together",
        )
    })?;
    let new = NewPages {
        page_runs: staged.runs(),
        skipped: staged.skipped(opts.pipeline.skipped_examples),
        written,
        n,
        total32,
        catalog: CatalogReader::open(&run.segment(SegmentKind::Catalog))?,
        keys: KeySegmentReader::open(&run.segment(SegmentKind::Keys))?,
        held: holds.held,
        untracked: holds.untracked(),
    };
    Ok((new, identity))
}

/// Step 2: candidate pairs (new page, earlier page), sorted, with repeats: identity edges
/// (each member with its set's representative), then, key by key, every new page with every
/// indexed page under the key and the new representatives' bucket edges.
fn candidates(
    run: &Run,
    new: &NewPages,
    identity: ExternalSorter<(u64, u64)>,
) -> Result<Sorted<(u64, u64)>, Error> {
    let (io, first, snap) = (run.io(), run.first, &run.snap);
    let mut candidates = run.sorter::<(u64, u64)>();
    // Each new page's representative, as an offset from `first`.
    let mut rep: Vec<u32> = (0..new.n as u32).collect();
    let mut sets = steps::IdentitySets::new();
    for e in identity.finish().map_err(&io)? {
        let (key, id) = e.map_err(&io)?;
        if let Some(r) = sets.push(key, id) {
            rep[(id - first) as usize] = (r - first) as u32;
            candidates.push((id, r)).map_err(&io)?;
        }
    }
    let is_rep = |p: u64| rep[(p - first) as usize] as u64 == p - first;
    let old_entries: u64 = snap.keys().iter().map(KeySegmentReader::len).sum();
    let scan = old_entries <= 16 * new.keys.len().max(1);
    #[cfg(test)]
    let scan = tests::SCAN.with(|s| s.get()).unwrap_or(scan);
    let mut old = MergedEntries::new(if scan { snap.keys() } else { &[] })?;
    // Otherwise each segment is asked the keys in order: a block read once for all of them.
    let mut seekers: Vec<_> = match scan {
        true => Vec::new(),
        false => snap.keys().iter().map(KeySegmentReader::seeker).collect(),
    };
    let (mut group, mut olds) = (Vec::new(), Vec::new());
    let mut entries = new.keys.entries().peekable();
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
            for seg in &mut seekers {
                seg.lookup(key, &mut olds)?;
            }
        }
        olds.retain(|&p| snap.holds(p));
        for &a in &group {
            for &b in &olds {
                candidates.push((a, b)).map_err(&io)?;
            }
        }
        if group.len() > 1 {
            group.retain(|&p| is_rep(p));
        }
        let mut pushed = Ok(());
        steps::bucket_edges(&group, |earlier, later| {
            if pushed.is_ok() {
                pushed = candidates.push((later, earlier));
            }
        });
        pushed.map_err(&io)?;
    }
    candidates.finish().map_err(&io)
}

/// What step 3 leaves: the union-find over accepted pairs, the run's links, every accepted
/// pair as a best-match candidate of its new pages, and counts.
struct Scored {
    uf: UnionFind,
    links: Option<KeySegmentWriter>,
    best: ExternalSorter<Accepted>,
    scored: u64,
    with_index: u64,
    within: u64,
    of_index: u64,
}

/// Step 3: each distinct pair scored from the two catalog records (the index's acceptance);
/// an accepted pair joins the union-find, the links and the best-match candidates.
fn score_pairs(
    run: &Run,
    pages: &Pages,
    names: &mut SiteNames,
    pairs: Sorted<(u64, u64)>,
    total32: u32,
) -> Result<Scored, Error> {
    let io = run.io();
    let scorer = crate::ops::scorer(&run.manifest);
    let links = match &run.lock {
        Some(_) => Some(KeySegmentWriter::create(&run.segment(SegmentKind::Links))?),
        None => None,
    };
    let mut s = Scored {
        uf: UnionFind::new(total32),
        links,
        best: run.sorter(),
        scored: 0,
        with_index: 0,
        within: 0,
        of_index: 0,
    };
    let (mut pa, mut pb, mut record) = (CatalogPage::default(), CatalogPage::default(), Vec::new());
    let mut last: Option<(u64, u64)> = None;
    let (mut current, mut current_of_index) = (u64::MAX, false);
    for pair in pairs {
        let (a, b) = pair.map_err(&io)?;
        if last == Some((a, b)) {
            continue;
        }
        last = Some((a, b));
        if a != current {
            s.of_index += u64::from(current_of_index);
            current_of_index = false;
            pages.get(a, &mut pa, &mut record)?;
            current = a;
        }
        if pages.get(b, &mut pb, &mut record)?.is_none() {
            continue;
        }
        s.scored += 1;
        let (e, accepted) = scorer.judge(&side(&pa), &side(&pb), || {
            names.agree((&pa.host, &pa.title), (&pb.host, &pb.title))
        })?;
        if !accepted {
            continue;
        }
        s.uf.union(a as u32, b as u32);
        if let Some(w) = s.links.as_mut() {
            w.push(a, b)?;
        }
        s.best.push(Accepted::of(a, b, &e)).map_err(&io)?;
        if b >= run.first {
            s.within += 1;
            s.best.push(Accepted::of(b, a, &e)).map_err(&io)?;
        } else {
            s.with_index += 1;
            current_of_index = true;
        }
    }
    s.of_index += u64::from(current_of_index);
    Ok(s)
}

impl Accepted {
    /// `page`'s candidate best match `other`, with the pair's evidence.
    fn of(page: u64, other: u64, e: &neardup_dedup::Evidence) -> Accepted {
        Accepted {
            page,
            rank: u64::MAX - e.jaccard().to_bits(),
            other,
            estimated: e.estimated_jaccard.to_bits(),
            exact: e.exact_jaccard.map_or(NONE, f64::to_bits),
            containment: e.containment.to_bits(),
            rule: RULES.iter().position(|r| *r == e.rule).unwrap_or(0) as u8,
        }
    }

    /// No match for `page`.
    fn none(page: u64) -> Accepted {
        Accepted {
            page,
            rank: NONE,
            other: NONE,
            estimated: NONE,
            exact: NONE,
            containment: NONE,
            rule: 0,
        }
    }
}

/// Each new page's best match, one fixed-size record per page in a scratch file
/// (`other` [`NONE`]: none).
struct BestMatches {
    _scratch: tempfile::TempDir,
    path: PathBuf,
    file: File,
    first: u64,
}

impl BestMatches {
    /// Writes the first (best) candidate of each new page, [`Accepted::none`] for the others.
    fn write(run: &Run, best: ExternalSorter<Accepted>, total: u64) -> Result<BestMatches, Error> {
        let io = run.io();
        let scratch = tempfile::Builder::new()
            .prefix("neardup-sort-")
            .tempdir_in(run.wdir())
            .map_err(&io)?;
        let path = scratch.path().join("best");
        let file_io = |e| Error::from(IndexError::io(&path, e));
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&path).map_err(file_io)?);
        let mut buf = [0u8; Accepted::SIZE];
        let mut write = |r: &Accepted, out: &mut BufWriter<File>| {
            r.encode(&mut buf);
            out.write_all(&buf).map_err(file_io)
        };
        let mut next = run.first;
        for r in best.finish().map_err(&io)? {
            let r = r.map_err(&io)?;
            if r.page < next {
                continue;
            }
            for p in next..r.page {
                write(&Accepted::none(p), &mut out)?;
            }
            write(&r, &mut out)?;
            next = r.page + 1;
        }
        for p in next..total {
            write(&Accepted::none(p), &mut out)?;
        }
        out.flush().map_err(file_io)?;
        drop(out);
        let file = File::open(&path).map_err(file_io)?;
        Ok(BestMatches {
            _scratch: scratch,
            path,
            file,
            first: run.first,
        })
    }

    /// New page `id`'s best match, if it has one.
    fn of(&self, id: u64) -> Result<Option<Accepted>, Error> {
        let mut buf = [0u8; Accepted::SIZE];
        (self.file)
            .read_exact_at(&mut buf, (id - self.first) * Accepted::SIZE as u64)
            .map_err(|e| IndexError::io(&self.path, e))?;
        Ok(Some(Accepted::decode(&buf)).filter(|r| r.other != NONE))
    }
}

/// What step 4 leaves: `(first page, member)` of every cluster holding a new page, to sort;
/// cluster sizes by root; counts.
struct Clusters {
    members: ExternalSorter<(u64, u64)>,
    size: Vec<u32>,
    clusters: u64,
    in_clusters: u64,
    to_remove: u64,
}

/// Step 4: the components of every recorded link between held pages and the run's accepted
/// pairs; each cluster holding a new page keeps its first page.
fn cluster(run: &Run, uf: &mut UnionFind, total: u64) -> Result<Clusters, Error> {
    let snap = &run.snap;
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
    for a in run.first..total {
        let r = uf.find(a as u32) as usize;
        flagged[r / 64] |= 1 << (r % 64);
    }
    let is_flagged = |r: u32| flagged[r as usize / 64] & (1 << (r % 64)) != 0;
    let mut size = vec![0u32; total as usize];
    let mut head = vec![u32::MAX; total as usize];
    for id in 0..total as u32 {
        let r = uf.find(id);
        if is_flagged(r) {
            size[r as usize] += 1;
            if head[r as usize] == u32::MAX {
                head[r as usize] = id;
            }
        }
    }
    let mut c = Clusters {
        members: run.sorter(),
        size: Vec::new(),
        clusters: 0,
        in_clusters: 0,
        to_remove: 0,
    };
    for id in 0..total as u32 {
        let r = uf.find(id);
        if is_flagged(r) && size[r as usize] > 1 {
            let h = head[r as usize];
            c.members.push((h as u64, id as u64)).map_err(run.io())?;
            c.clusters += u64::from(h == id);
            if u64::from(id) >= run.first {
                c.in_clusters += 1;
                c.to_remove += u64::from(h != id);
            }
        }
    }
    c.size = size;
    Ok(c)
}

/// The rows, cluster by cluster, every fact read from the catalogs.
fn write_rows(
    pages: &Pages,
    members: ExternalSorter<(u64, u64)>,
    uf: &mut UnionFind,
    size: &[u32],
    best: &BestMatches,
    on_row: &mut impl FnMut(IndexDedupRow) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut record = Vec::new();
    let mut describe = |id: u64, out: &mut CatalogPage| -> Result<String, Error> {
        Ok(pages
            .get(id, out, &mut record)?
            .unwrap_or_default()
            .to_string())
    };
    let (mut canon, mut canon_label, mut canon_id) = (CatalogPage::default(), String::new(), NONE);
    let (mut page, mut matched) = (CatalogPage::default(), CatalogPage::default());
    let sorted = members
        .finish()
        .map_err(|e| IndexError::io(&best.path, e))?;
    for m in sorted {
        let (h, id) = m.map_err(|e| IndexError::io(&best.path, e))?;
        if h != canon_id {
            canon_label = describe(h, &mut canon)?;
            canon_id = h;
        }
        let page_label = describe(id, &mut page)?;
        let new = id >= pages.first;
        let b = if new { best.of(id)? } else { None };
        let match_label = match b {
            Some(r) => Some(describe(r.other, &mut matched)?),
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
            cluster_size: size[uf.find(h as u32) as usize] as u64,
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
    Ok(())
}

/// The add, when asked: the run's segments and links (when any) made live in one commit.
fn commit(
    run: Run,
    mut written: Written,
    links: Option<KeySegmentWriter>,
    page_runs: usize,
    files: Vec<InputEntry>,
    (held, untracked): (u64, u64),
) -> Result<Option<AddedSummary>, Error> {
    let Run {
        dir,
        opts,
        lock,
        snap,
        mut manifest,
        work,
        ..
    } = run;
    let (Some(label), Some(_lock), Some(links)) = (&opts.add, lock, links) else {
        return Ok(None);
    };
    drop(snap);
    let (entries, bytes) = links.finish()?;
    let links_name = manifest.next_segment_name(SegmentKind::Links);
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
    record_inputs(&mut manifest, files);
    let mut r = commit_add(dir, &mut manifest, written, page_runs)?;
    drop(work);
    let generation = r.generation;
    // As `index add` does, with the lock still held: a merge in a commit of its own.
    crate::merges::merge_after_add(dir, &manifest, &opts.merge, &mut r);
    Ok(Some(AddedSummary {
        pages: r.pages,
        held,
        untracked,
        first_id: r.first_id,
        generation,
        label: label.clone(),
        merged: r.merged,
        merge_error: r.merge_error,
    }))
}

#[cfg(test)]
mod tests;

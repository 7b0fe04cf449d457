//! Adding pages: the catalog, key and titles segments of one add written page by page in id
//! order ([`SegmentsWriter`]; every add path writes through it: `index add`, `dedup --add-as`,
//! the service's writer, Spark's parts), then made live by one manifest commit ([`commit_add`]).

use crate::records::{check, id_key, record_inputs, Holds, InputsCheck};
use crate::stage::{stage_keeping, Keep};
use crate::{
    band_entry_key, digest_key, remove_orphans, sha256_key, url_key, CatalogPage, CatalogWriter,
    IndexError, KeySegmentWriter, Manifest, SegmentEntry, SegmentKind, Snapshot, Staged,
    TitleCounter, WriterLock, DEFAULT_MEM_LIMIT,
};
use neardup_pipeline::{Error, Input, PipelineConfig, Progress};
use neardup_sketch::Family;
use neardup_store::extsort::ExternalSorter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// The segments merged once the add has committed ([`crate::MergePolicy::ADD`] unless
    /// changed). A merge that fails leaves the add as committed, and says why as a warning.
    pub merge: crate::MergePolicy,
}

impl AddOptions {
    /// Defaults: [`DEFAULT_MEM_LIMIT`].
    pub fn new(pipeline: PipelineConfig, label: &str) -> AddOptions {
        AddOptions {
            pipeline,
            label: label.to_string(),
            mem_limit: DEFAULT_MEM_LIMIT,
            again: false,
            merge: crate::MergePolicy::ADD,
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
    /// Every input was a file the index records as added under the same label (a rerun of an
    /// add that committed): nothing was read or added, and `generation` is the one that made
    /// the last of them live. The same files under another label are refused
    /// ([`IndexError::AlreadyAdded`]).
    pub already_added: bool,
    /// The merge run after the add committed ([`AddOptions::merge`]), when one was due: its
    /// own commit (`generation` is then the merge's).
    pub merged: Option<crate::MaintainReport>,
    /// Why that merge failed, if it did: the add stays committed, its segments as written (the
    /// next add or `index compact` merges them).
    pub merge_error: Option<String>,
    /// The shard that took the add, when the index is a set of shards ([`crate::shards`]).
    pub shard: Option<usize>,
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
    add_as_shard(dir, inputs, opts, progress, None)
}

/// [`add`] to one shard of a set: files the set records as added, and records it holds, are
/// `set`'s (a snapshot of every shard, taken under the set's lock), and the pages are numbered
/// from the set's next id.
pub(crate) fn add_as_shard(
    dir: &Path,
    inputs: &[Input],
    opts: &AddOptions,
    progress: &dyn Progress,
    set: Option<&Snapshot>,
) -> Result<AddReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let r = add_locked(dir, inputs, opts, progress, set);
    if r.is_err() {
        // What a failed add wrote (a full disk, a cancel, a bad input under strict) goes now,
        // with the lock still held, not at the next writer's start.
        if let Ok(m) = Manifest::open(dir) {
            let _ = remove_orphans(dir, &m);
        }
    }
    r
}

fn add_locked(
    dir: &Path,
    inputs: &[Input],
    opts: &AddOptions,
    progress: &dyn Progress,
    set: Option<&Snapshot>,
) -> Result<AddReport, Error> {
    let mut manifest = Manifest::open(dir)?;
    remove_orphans(dir, &manifest)?;
    let added = set.map_or(&manifest, Snapshot::manifest);
    let files = match check(added, inputs, &opts.label, opts.again, true)? {
        InputsCheck::Add(files) => files,
        // A rerun of an add that committed (killed before it could say so): nothing to do.
        InputsCheck::Done(generation) => {
            return Ok(AddReport {
                pages: 0,
                held: 0,
                untracked: 0,
                first_id: added.next_page,
                generation,
                page_runs: 0,
                skipped: Default::default(),
                already_added: true,
                merged: None,
                merge_error: None,
                shard: None,
            })
        }
    };
    for other in crate::records::other_language_detectors(&manifest) {
        progress.warning(&format!(
            "{}: pages it holds had their languages told by {other}; this build tells them by \
             {}: languages of its pages and of the pages added now may disagree",
            dir.display(),
            neardup_text::language::DETECTOR
        ));
    }
    let keep = Keep {
        prints: manifest.storage.capture_prints,
        identity_keys: true,
    };
    let mut staged = stage_keeping(
        inputs,
        &opts.pipeline,
        &manifest.params,
        keep,
        opts.mem_limit / 2,
        dir,
        progress,
    )?;
    let own = match set {
        Some(set) => {
            // The set's ids go on from the largest of its shards'.
            manifest.next_page = manifest.next_page.max(set.manifest().next_page);
            None
        }
        None => Some(Snapshot::of(dir, manifest.clone())?),
    };
    let mut holds = Holds::new(set.or(own.as_ref()), opts.mem_limit / 8);
    if let Some(keys) = staged.take_identity_keys() {
        let io = |e| IndexError::io(dir, e);
        holds.asked_before(keys?.map(|k| k.map_err(io)), opts.mem_limit / 16)?;
    }
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
    drop(holds);
    drop(own);
    crate::merges::merge_after_add(dir, &manifest, &opts.merge, &mut r);
    if let Some(e) = &r.merge_error {
        progress.warning(&format!("{}: {e}", dir.display()));
    }
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
        .map(|k| manifest.next_segment_name(k));
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
    manifest: Manifest,
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
        let catalog = CatalogWriter::create(
            &dir.join(&names[0]),
            manifest.params.m,
            manifest.storage,
            first,
        )?;
        Ok(SegmentsWriter {
            dir: dir.to_path_buf(),
            names,
            catalog,
            sorter: ExternalSorter::new(sort_memory, dir),
            titles: TitleCounter::new(sort_memory / 8, dir),
            family,
            manifest: manifest.clone(),
        })
    }

    /// Appends the next page; its id.
    pub(crate) fn push(&mut self, page: &CatalogPage) -> Result<u64, Error> {
        let io = |e| IndexError::io(&self.dir, e);
        let id = self.catalog.push(page)?;
        self.titles
            .push(neardup_dedup::host_key(&page.host), &page.title)?;
        // Sorted by the bits the key segment keeps, as it takes them.
        let kept = !0u64 << (64 - self.manifest.storage.key_bits);
        let mut key = |k: u64| self.sorter.push((k & kept, id)).map_err(io);
        for t in 0..self.manifest.matching.bands as usize {
            key(band_entry_key(
                &self.family,
                &self.manifest,
                &page.minvalues,
                t,
            ))?;
        }
        if page.payload_sha1 != [0; 20] {
            key(digest_key(&page.payload_sha1))?;
        }
        if page.payload_sha256 != [0; 32] {
            key(sha256_key(&page.payload_sha256))?;
        }
        key(url_key(&page.url))?;
        if !page.user_id.is_empty() {
            key(id_key(&page.user_id))?;
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
            self.manifest.storage.key_bits,
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
        self.for_each(|_, page| f(page))
    }
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
        already_added: false,
        merged: None,
        merge_error: None,
        shard: None,
    })
}

/// Writes sorted entries as a key segment keeping `key_bits` of each key: (entries, bytes).
pub(crate) fn write_keys(
    path: &Path,
    key_bits: u32,
    entries: impl Iterator<Item = Result<(u64, u64), IndexError>>,
) -> Result<(u64, u64), Error> {
    let mut w = KeySegmentWriter::keeping(path, key_bits)?;
    for e in entries {
        let (k, v) = e?;
        w.push(k, v)?;
    }
    Ok(w.finish()?)
}

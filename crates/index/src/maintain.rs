//! Looking after an index: `check` (every segment read whole), `stats` (what the manifest
//! says), `remove` a crawl, `compact` (key and link segments merged), and what a crashed
//! writer left behind (`remove_orphans`).

use crate::{
    IndexError, KeySegmentReader, KeySegmentWriter, Manifest, Matching, SegmentEntry, SegmentKind,
    Snapshot, WriterLock,
};
use neardup_pipeline::Error;
use neardup_sketch::SketchParams;
use std::path::{Path, PathBuf};

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
        // Only names the index's writers give their files (`seg-<g>.partial`), never a file
        // someone else put here.
        let orphan = (name.starts_with("seg-") && name.ends_with(".partial"))
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
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
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

/// Checks of several shards, summed (the set's generation grows with every shard's).
impl std::ops::AddAssign for CheckReport {
    fn add_assign(&mut self, c: CheckReport) {
        self.generation += c.generation;
        self.segments += c.segments;
        self.pages += c.pages;
        self.keys += c.keys;
        self.bytes += c.bytes;
    }
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

/// What an index holds (`index stats`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StatsReport {
    /// The manifest generation.
    pub generation: u64,
    /// Signature parameters.
    pub params: SketchParams,
    /// Matching.
    pub matching: Matching,
    /// What each page's record keeps.
    pub storage: crate::Storage,
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
    /// The language detectors that told the languages of the files added, each once, in the
    /// order first added ([`crate::records::language_detectors`]).
    pub language_detectors: Vec<String>,
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
pub(crate) fn stats(m: &Manifest) -> Result<StatsReport, Error> {
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
        storage: m.storage,
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
        language_detectors: crate::records::language_detectors(m)
            .into_iter()
            .map(String::from)
            .collect(),
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

/// Whether the index of `m` holds a crawl `label` to remove: its pages, or (a label whose adds
/// held every record) only its files recorded, which a remove forgets.
pub(crate) fn holds_crawl(m: &Manifest, label: &str) -> bool {
    (m.segments.iter()).any(|s| s.label == label && s.is_catalog())
        || m.inputs.iter().any(|i| i.label == label)
}

/// The error for a remove of a crawl the indexes of `manifests` do not hold, naming theirs.
pub(crate) fn unknown_label<'a>(
    label: &str,
    manifests: impl IntoIterator<Item = &'a Manifest>,
) -> Error {
    let labels: std::collections::BTreeSet<&str> = (manifests.into_iter())
        .flat_map(|m| m.segments.iter().map(|s| s.label.as_str()))
        .filter(|l| *l != label && !l.is_empty())
        .collect();
    neardup_pipeline::SettingsError::new(
        "label",
        label,
        format!("the label of a crawl in the index: {labels:?}"),
    )
    .into()
}

/// Reports of several shards' removes or compactions, summed (the set's generation grows with
/// every shard's).
impl std::ops::AddAssign for MaintainReport {
    fn add_assign(&mut self, c: MaintainReport) {
        self.pages_removed += c.pages_removed;
        self.segments_dropped += c.segments_dropped;
        self.segments_written += c.segments_written;
        self.entries_dropped += c.entries_dropped;
        self.generation += c.generation;
    }
}

/// Removes the crawl `label` from the index in `dir`: its segments leave the manifest in one
/// commit, then their files are deleted. Keys and links of other segments that name its pages
/// are skipped by every reader and dropped by the next compaction. Its page ids are never
/// given out again.
pub(crate) fn remove(dir: &Path, label: &str) -> Result<MaintainReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let mut m = Manifest::open(dir)?;
    remove_orphans(dir, &m)?;
    if !holds_crawl(&m, label) {
        return Err(unknown_label(label, [&m]));
    }
    let (gone, kept): (Vec<SegmentEntry>, Vec<SegmentEntry>) =
        m.segments.drain(..).partition(|s| s.label == label);
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
/// sorted files, dropping entries that name removed pages), then commits; catalogs stay. A
/// merged segment is labelled with its crawl when every entry it keeps names a page of that
/// crawl.
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
        let key_bits = match kind {
            SegmentKind::Keys => m.storage.key_bits,
            _ => 64,
        };
        let mut w = KeySegmentWriter::keeping(&dir.join(&name), key_bits)?;
        let mut dropped = 0;
        // The crawl every kept entry's pages belong to, while there is one.
        let mut crawl: Option<Option<&str>> = None;
        merge(&readers, |k, v| {
            let keep = held(v) && (kind == SegmentKind::Keys || held(k));
            if keep {
                let pages: &[u64] = if kind == SegmentKind::Keys {
                    &[v]
                } else {
                    &[k, v]
                };
                for &p in pages {
                    let of = snap.catalog_of(p).map(|c| c.1.as_str());
                    crawl = match crawl {
                        None => Some(of),
                        Some(c) if c == of => Some(c),
                        Some(_) => Some(None),
                    };
                }
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
        // Entries of one crawl make a segment of that crawl (removing the crawl removes it);
        // entries of several an unlabelled one.
        let label = crawl.flatten().unwrap_or_default().to_string();
        segments.push(SegmentEntry {
            name,
            entries,
            bytes,
            label,
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

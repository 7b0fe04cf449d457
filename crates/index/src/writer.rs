//! The index's one writer in a long-running process (`neardup serve`): pages sketched one at a
//! time ([`crate::Lookup::sketch`]) are added in groups, one catalog segment, one key segment
//! and one manifest commit per group, so one round of fsyncs makes every page of the group
//! durable. Within a group, pages are taken in order:
//!
//! - a page the index or the group already holds (the same record,
//!   [`crate::records::same_record`]: a retried request) is not added again ([`Added::Held`],
//!   its id);
//! - an `if_new` page that matches a held page or an earlier page of the group is not added
//!   ([`Added::Duplicate`], the matches with their evidence): check and add are one step, so
//!   the first page seen wins whatever the concurrency of the callers;
//! - every other page is added ([`Added::Added`], its id).
//!
//! Groups leave small segments behind; [`Writer::maintain`] merges the newest ones in tiers
//! (key segments, and catalogs of one crawl with consecutive ids) so that lookups probe few
//! segments and the manifest stays short, never merging more than `max_merge_bytes` at once.
//! Merging drops key entries of removed pages, as `index compact` does.

use crate::records::{identity_keys, same_record};
use crate::snapshot::{side, Match, Scratch, Snapshot};
use crate::{
    band_entry_key, commit_add, remove_orphans, write_pages, Feed, MaintainReport, MergedEntries,
};
use crate::{
    CatalogPage, CatalogReader, CatalogWriter, IndexError, KeySegmentReader, KeySegmentWriter,
    Manifest, SegmentEntry, SegmentKind, TitleCounter, WriterLock,
};
use neardup_dedup::SideScorer;
use neardup_pipeline::Error;
use neardup_sketch::Family;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A sketched page to add.
#[derive(Clone, Debug)]
pub struct NewPage {
    /// The page as the index holds it ([`crate::Lookup::sketch`]).
    pub page: CatalogPage,
    /// Add it only if it matches no held page and no earlier page of its group.
    pub if_new: bool,
}

/// What became of a page given to [`Writer::add`].
#[derive(Clone, Debug)]
pub enum Added {
    /// Added with this id.
    Added(u64),
    /// Already held as the same record ([`crate::records::same_record`]): nothing added;
    /// its id.
    Held(u64),
    /// An `if_new` page that matches these pages (best first): not added.
    Duplicate(Vec<Match>),
}

/// The one writer of an index, holding its lock for as long as it lives.
pub struct Writer {
    dir: PathBuf,
    _lock: WriterLock,
    manifest: Manifest,
    snap: Arc<Snapshot>,
    family: Arc<Family>,
    scorer: SideScorer,
    scratch: Scratch,
    /// Tiers are merged once there are more than this many key segments (or catalogs in the
    /// newest crawl's run).
    pub max_segments: usize,
    /// Segments are merged this many bytes at most at once; larger ones stay as they are.
    pub max_merge_bytes: u64,
}

/// The held pages an `if_new` duplicate reports at most (the likeliest first): whether it is
/// one is exact whatever the limit.
const IF_NEW_MATCHES: usize = 10;

/// Bytes of keys sorted in memory per group (groups are small; more spills).
const GROUP_SORT_MEMORY: usize = 64 << 20;

impl Writer {
    /// Takes the writer lock of the index in `dir` (refused while another writer holds it),
    /// removes what a crashed writer left, and opens a snapshot.
    pub fn open(dir: &Path) -> Result<Writer, Error> {
        Writer::open_cached(dir, 0)
    }

    /// [`Writer::open`] with snapshots that hold up to `cache` bytes of segments in memory
    /// ([`Snapshot::open_cached`]).
    pub fn open_cached(dir: &Path, cache: u64) -> Result<Writer, Error> {
        let lock = WriterLock::acquire(dir)?;
        let manifest = Manifest::open(dir)?;
        remove_orphans(dir, &manifest)?;
        let snap = Arc::new(Snapshot::of_cached(dir, manifest.clone(), cache)?);
        Ok(Writer {
            dir: dir.to_path_buf(),
            _lock: lock,
            family: Family::new(&manifest.params),
            scorer: crate::ops::scorer(&manifest),
            manifest,
            snap,
            scratch: Scratch::default(),
            max_segments: 8,
            max_merge_bytes: 256 << 20,
        })
    }

    /// The snapshot of everything committed so far.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snap
    }

    /// Adds `pages` under the crawl `label` as one group (see the module's rules), durable
    /// when this returns `Ok`; on an error nothing of the group is live.
    pub fn add(&mut self, label: &str, pages: &[NewPage]) -> Result<Vec<Added>, Error> {
        let bands = self.manifest.matching.bands as usize;
        let first = self.manifest.next_page;
        let mut out = Vec::with_capacity(pages.len());
        // The group's pages so far: indices into `pages`, and their band keys and identities.
        let mut taken: Vec<usize> = Vec::new();
        let mut by_band: HashMap<u64, Vec<u32>> = HashMap::new();
        let mut by_identity: HashMap<u64, Vec<u32>> = HashMap::new();
        let mut candidates: Vec<u32> = Vec::new();
        for (i, new) in pages.iter().enumerate() {
            let p = &new.page;
            let identities = identity_keys(p);
            let in_group = identities
                .iter()
                .flatten()
                .filter_map(|k| by_identity.get(k))
                .flatten()
                .find(|&&j| same_record(&pages[taken[j as usize]].page, p));
            if let Some(&j) = in_group {
                out.push(Added::Held(first + u64::from(j)));
                continue;
            }
            if let Some(id) = self.snap.held_record(p)? {
                out.push(Added::Held(id));
                continue;
            }
            let keys: Vec<u64> = (0..bands)
                .map(|t| band_entry_key(&self.family, &self.manifest, &p.minvalues, t))
                .collect();
            if new.if_new {
                let (mut matches, _) = self.snap.matches_upto(
                    &self.scorer,
                    &self.family,
                    p,
                    &mut self.scratch,
                    IF_NEW_MATCHES,
                )?;
                candidates.clear();
                for k in &keys {
                    candidates.extend(by_band.get(k).into_iter().flatten());
                }
                candidates.sort_unstable();
                candidates.dedup();
                let mut names = self.snap.site_names(Some(p));
                for &j in &candidates {
                    let q = &pages[taken[j as usize]].page;
                    let (e, accepted) = self.scorer.judge(&side(p), &side(q), || {
                        names.agree((&p.host, &p.title), (&q.host, &q.title))
                    })?;
                    if accepted {
                        matches.push(Match {
                            page: first + u64::from(j),
                            facts: CatalogPage {
                                minvalues: Vec::new(),
                                shingle_set: Vec::new(),
                                print: Vec::new(),
                                ..q.clone()
                            },
                            label: label.to_string(),
                            evidence: e,
                        });
                    }
                }
                if !matches.is_empty() {
                    matches.sort_by(|a, b| {
                        b.evidence
                            .jaccard()
                            .total_cmp(&a.evidence.jaccard())
                            .then(a.page.cmp(&b.page))
                    });
                    out.push(Added::Duplicate(matches));
                    continue;
                }
            }
            let j = taken.len() as u32;
            taken.push(i);
            for k in keys {
                by_band.entry(k).or_default().push(j);
            }
            for k in identities.into_iter().flatten() {
                by_identity.entry(k).or_default().push(j);
            }
            out.push(Added::Added(first + u64::from(j)));
        }
        if taken.is_empty() {
            return Ok(out);
        }
        let group = Group {
            family: &self.family,
            pages: taken.iter().map(|&i| &pages[i].page).collect(),
        };
        let mut manifest = self.manifest.clone();
        let written = write_pages(
            &self.dir,
            &manifest,
            &group,
            label,
            GROUP_SORT_MEMORY,
            None,
            &mut |_, _| Ok(()),
        )
        .and_then(|w| commit_add(&self.dir, &mut manifest, w, 0));
        if let Err(e) = written {
            // What the failed group wrote is named by no manifest: removed now (or by the
            // next writer).
            let _ = remove_orphans(&self.dir, &self.manifest);
            return Err(e);
        }
        self.publish(manifest)?;
        Ok(out)
    }

    /// Makes `manifest` (committed) the writer's and opens its snapshot.
    fn publish(&mut self, manifest: Manifest) -> Result<(), Error> {
        self.snap = Arc::new(self.snap.refreshed(&self.dir, manifest.clone())?);
        self.manifest = manifest;
        Ok(())
    }

    /// Merges the newest small key segments, and the newest crawl's small consecutive
    /// catalogs, into one each when there are more than `max_segments` (one commit); `None`
    /// when there was nothing to merge.
    pub fn maintain(&mut self) -> Result<Option<MaintainReport>, Error> {
        let segs = &self.manifest.segments;
        let keys: Vec<&SegmentEntry> = segs
            .iter()
            .filter(|s| s.kind() == Some(SegmentKind::Keys))
            .collect();
        let key_tail: Vec<String> = tier_start(
            &keys.iter().map(|s| s.bytes).collect::<Vec<_>>(),
            self.max_segments,
            self.max_merge_bytes,
        )
        .map(|start| keys[start..].iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
        // Catalogs: the newest run of one label with consecutive ids.
        let mut cats: Vec<(&SegmentEntry, std::ops::Range<u64>)> = Vec::new();
        for s in segs.iter().filter(|s| s.is_catalog()) {
            if let Some(c) = self.snap.catalog_named(&s.name) {
                cats.push((s, c.ids()));
            }
        }
        cats.sort_by_key(|(_, ids)| ids.start);
        let mut run = cats.len();
        while run > 1 {
            let (a, b) = (&cats[run - 2], &cats[run - 1]);
            if a.0.label != b.0.label || a.1.end != b.1.start {
                break;
            }
            run -= 1;
        }
        let cat_tail: Vec<String> = tier_start(
            &cats[run..].iter().map(|c| c.0.bytes).collect::<Vec<_>>(),
            self.max_segments,
            self.max_merge_bytes,
        )
        .map(|start| {
            cats[run + start..]
                .iter()
                .map(|c| c.0.name.clone())
                .collect()
        })
        .unwrap_or_default();
        if key_tail.is_empty() && cat_tail.is_empty() {
            return Ok(None);
        }
        let mut manifest = self.manifest.clone();
        let generation = manifest.generation + 1;
        let mut report = MaintainReport::default();
        let mut written = Vec::new();
        if !key_tail.is_empty() {
            let readers: Vec<KeySegmentReader> = key_tail
                .iter()
                .map(|n| KeySegmentReader::open(&self.dir.join(n)))
                .collect::<Result<_, _>>()?;
            let name = format!("seg-{generation}.{}", SegmentKind::Keys.extension());
            let mut w =
                KeySegmentWriter::keeping(&self.dir.join(&name), manifest.storage.key_bits)?;
            let mut merged = MergedEntries::new(&readers)?;
            while let Some((k, v)) = merged.next()? {
                if self.snap.holds(v) {
                    w.push(k, v)?;
                } else {
                    report.entries_dropped += 1;
                }
            }
            let (entries, bytes) = w.finish()?;
            written.push(SegmentEntry {
                name,
                entries,
                bytes,
                label: String::new(),
            });
        }
        if !cat_tail.is_empty() {
            let readers: Vec<CatalogReader> = cat_tail
                .iter()
                .map(|n| CatalogReader::open(&self.dir.join(n)))
                .collect::<Result<_, _>>()?;
            let name = format!("seg-{generation}.{}", SegmentKind::Catalog.extension());
            let titles_name = format!("seg-{generation}.{}", SegmentKind::Titles.extension());
            let first = readers[0].ids().start;
            let mut w = CatalogWriter::create(
                &self.dir.join(&name),
                manifest.params.m,
                manifest.storage,
                first,
            )?;
            let mut titles = TitleCounter::new(GROUP_SORT_MEMORY / 8, &self.dir);
            let (mut page, mut buf) = (CatalogPage::default(), Vec::new());
            for r in &readers {
                for id in r.ids() {
                    r.get_with(id, &mut page, &mut buf)?;
                    w.push(&page)?;
                    titles.push(neardup_dedup::host_key(&page.host), &page.title)?;
                }
            }
            let label = cats[run].0.label.clone();
            for (name, (entries, bytes)) in [
                (name, w.finish()?),
                (
                    titles_name.clone(),
                    titles.finish(&self.dir.join(&titles_name))?,
                ),
            ] {
                written.push(SegmentEntry {
                    name,
                    entries,
                    bytes,
                    label: label.clone(),
                });
            }
        }
        // The merged catalogs' counts are in the new `.titles` segment.
        let cat_tail: Vec<String> = cat_tail
            .iter()
            .flat_map(|c| [c.clone(), titles_of(c)])
            .filter(|n| segs.iter().any(|s| &s.name == n))
            .collect();
        let gone: Vec<String> = key_tail.into_iter().chain(cat_tail).collect();
        manifest.segments.retain(|s| !gone.contains(&s.name));
        report.segments_dropped = gone.len();
        report.segments_written = written.len();
        manifest.segments.extend(written);
        manifest.commit(&self.dir)?;
        report.generation = manifest.generation;
        self.publish(manifest)?;
        for name in &gone {
            let path = self.dir.join(name);
            std::fs::remove_file(&path).map_err(|e| IndexError::io(&path, e))?;
        }
        Ok(Some(report))
    }
}

/// The name of the `.titles` segment written with the catalog segment `catalog`.
fn titles_of(catalog: &str) -> String {
    let stem = catalog.rsplit_once('.').map_or(catalog, |(stem, _)| stem);
    format!("{stem}.{}", SegmentKind::Titles.extension())
}

/// Where the tail of segments (oldest first, by size) to merge starts, when there are more
/// than `max_count`: the newest segments, taken while the next older one is at most twice
/// what is taken so far and the total stays within `max_bytes` (tiers: a segment is merged
/// again only once the newer ones add up to half its size). `None`: fewer than 2 to merge.
fn tier_start(sizes: &[u64], max_count: usize, max_bytes: u64) -> Option<usize> {
    if sizes.len() <= max_count {
        return None;
    }
    let (mut start, mut total) = (sizes.len(), 0u64);
    while start > 0 {
        let s = sizes[start - 1];
        if total + s > max_bytes || (sizes.len() - start >= 2 && s > 2 * total) {
            break;
        }
        start -= 1;
        total += s;
    }
    (sizes.len() - start >= 2).then_some(start)
}

/// A group's pages to write.
struct Group<'a> {
    family: &'a Arc<Family>,
    pages: Vec<&'a CatalogPage>,
}

impl Feed for Group<'_> {
    fn family(&self) -> &Arc<Family> {
        self.family
    }

    fn each(&self, f: &mut dyn FnMut(&CatalogPage) -> Result<(), Error>) -> Result<(), Error> {
        self.pages.iter().try_for_each(|p| f(p))
    }
}

#[cfg(test)]
mod tests {
    use super::tier_start;

    #[test]
    fn tiers_merge_the_newest_small_segments_only() {
        assert_eq!(tier_start(&[5; 8], 8, 100), None);
        assert_eq!(tier_start(&[100, 1, 1, 1, 1, 1, 1, 1, 1], 8, 1000), Some(1));
        assert_eq!(tier_start(&[100, 8, 1, 1, 1, 1, 1, 1, 1], 8, 1000), Some(1));
        // Never more than max_bytes at once.
        assert_eq!(tier_start(&[1; 9], 8, 4), Some(5));
        // Too big to merge at all.
        assert_eq!(tier_start(&[10; 9], 8, 15), None);
    }
}

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
//! segments and the manifest stays short ([`crate::merges`], never more than
//! [`MergePolicy::SERVICE`]'s bytes at once).

use crate::merges::merge_due;
use crate::records::{identity_keys, same_record};
use crate::snapshot::{side_at, Match, Scratch, Snapshot};
use crate::{band_entry_key, commit_add, remove_orphans, write_pages, Feed, MaintainReport};
use crate::{CatalogPage, Manifest, MergePolicy, WriterLock};
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
    /// When [`Writer::maintain`] merges segments ([`MergePolicy::SERVICE`] unless changed).
    pub merge: MergePolicy,
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
            merge: MergePolicy::SERVICE,
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
        let (mut cut_p, mut cut_q) = (Vec::new(), Vec::new());
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
                // Pairs of the group compared as the index will compare them once added.
                let bits = self.manifest.storage.set_bits;
                let this = side_at(p, bits, &mut cut_p);
                for &j in &candidates {
                    let q = &pages[taken[j as usize]].page;
                    let (e, accepted) =
                        self.scorer
                            .judge(&this, &side_at(q, bits, &mut cut_q), || {
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
    /// catalogs, as [`MergePolicy`] `merge` says (one commit); `None` when there was nothing
    /// to merge.
    pub fn maintain(&mut self) -> Result<Option<MaintainReport>, Error> {
        let Some((manifest, report)) =
            merge_due(&self.dir, &self.manifest, &self.snap, &self.merge)?
        else {
            return Ok(None);
        };
        self.publish(manifest)?;
        Ok(Some(report))
    }
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

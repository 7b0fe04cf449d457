//! Merging segments in tiers, the one policy for every writer: the service's [`crate::Writer`]
//! after its groups, and `index add` (and the distributed add's commit) after each add. Adds
//! leave a key segment each (and a catalog); a lookup probes every key segment once per band,
//! so the newest small key segments are merged into one (a k-way merge of sorted files,
//! dropping entries of removed pages, as `index compact` does) once there are more than
//! [`MergePolicy::max_segments`], in tiers: a segment is merged again only once the newer ones
//! add up to half its size, so each entry is rewritten O(log(pages)) times and a lookup's reads
//! stay O(bands x tiers). The newest crawl's consecutive catalogs are merged the same way (they
//! keep the manifest short; a lookup reads one catalog per candidate whatever their number).
//!
//! A merge is a commit like any other: new files written and synced, then the manifest; the
//! merged files are deleted after it (readers holding them keep reading). Only the writer lock
//! is held: readers are never blocked.

use crate::snapshot::Snapshot;
use crate::{
    CatalogPage, CatalogReader, CatalogWriter, IndexError, KeySegmentReader, KeySegmentWriter,
    MaintainReport, Manifest, MergedEntries, SegmentEntry, SegmentKind, TitleCounter,
};
use neardup_pipeline::Error;
use std::path::Path;

/// When segments are merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergePolicy {
    /// Tiers are merged once there are more than this many key segments (or catalogs in the
    /// newest crawl's run).
    pub max_segments: usize,
    /// Segments are merged this many bytes at most at once; larger ones stay as they are.
    pub max_merge_bytes: u64,
}

impl MergePolicy {
    /// The service's writer, after its groups of pages: small merges only (256 MiB at most
    /// at once), so an add waits little behind one.
    pub const SERVICE: MergePolicy = MergePolicy {
        max_segments: 8,
        max_merge_bytes: 256 << 20,
    };

    /// After an `index add` has committed: the same tiers whatever the sizes, so that a crawl
    /// added in many batches (100 million pages in batches of 10 million) keeps few key
    /// segments.
    pub const ADD: MergePolicy = MergePolicy {
        max_segments: 8,
        max_merge_bytes: u64::MAX,
    };

    /// No merges (`index add --no-merge`; `index compact` merges everything when asked).
    pub const NEVER: MergePolicy = MergePolicy {
        max_segments: usize::MAX,
        max_merge_bytes: 0,
    };
}

/// Merges what `policy` says is due in the index in `dir`, whose live manifest is `manifest`
/// and `snap` a snapshot of it, with the writer lock held by the caller: one commit, then the
/// merged files deleted. The manifest committed and what was done; `None` when nothing was due.
pub(crate) fn merge_due(
    dir: &Path,
    manifest: &Manifest,
    snap: &Snapshot,
    policy: &MergePolicy,
) -> Result<Option<(Manifest, MaintainReport)>, Error> {
    let segs = &manifest.segments;
    let keys: Vec<&SegmentEntry> = segs
        .iter()
        .filter(|s| s.kind() == Some(SegmentKind::Keys))
        .collect();
    let key_tail: Vec<String> = tier_start(
        &keys.iter().map(|s| s.bytes).collect::<Vec<_>>(),
        policy.max_segments,
        policy.max_merge_bytes,
    )
    .map(|start| keys[start..].iter().map(|s| s.name.clone()).collect())
    .unwrap_or_default();
    // Catalogs: the newest run of one label with consecutive ids.
    let mut cats: Vec<(&SegmentEntry, std::ops::Range<u64>)> = Vec::new();
    for s in segs.iter().filter(|s| s.is_catalog()) {
        if let Some(c) = snap.catalog_named(&s.name) {
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
        policy.max_segments,
        policy.max_merge_bytes,
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
    let mut manifest = manifest.clone();
    let mut report = MaintainReport::default();
    let mut written = Vec::new();
    if !key_tail.is_empty() {
        let readers: Vec<KeySegmentReader> = key_tail
            .iter()
            .map(|n| KeySegmentReader::open(&dir.join(n)))
            .collect::<Result<_, _>>()?;
        let name = manifest.next_segment_name(SegmentKind::Keys);
        let mut w = KeySegmentWriter::keeping(&dir.join(&name), manifest.storage.key_bits)?;
        let mut merged = MergedEntries::new(&readers)?;
        while let Some((k, v)) = merged.next()? {
            if snap.holds(v) {
                w.push(k, v)?;
            } else {
                report.entries_dropped += 1;
            }
        }
        let (entries, bytes) = w.finish()?;
        // Keys of one crawl stay that crawl's (removing it removes them); of several, none's.
        let labels: Vec<&str> = segs
            .iter()
            .filter(|s| key_tail.contains(&s.name))
            .map(|s| s.label.as_str())
            .collect();
        let label = match labels.split_first() {
            Some((first, rest)) if rest.iter().all(|l| l == first) => first.to_string(),
            _ => String::new(),
        };
        written.push(SegmentEntry {
            name,
            entries,
            bytes,
            label,
        });
    }
    if !cat_tail.is_empty() {
        let readers: Vec<CatalogReader> = cat_tail
            .iter()
            .map(|n| CatalogReader::open(&dir.join(n)))
            .collect::<Result<_, _>>()?;
        let name = manifest.next_segment_name(SegmentKind::Catalog);
        let titles_name = manifest.next_segment_name(SegmentKind::Titles);
        let first = readers[0].ids().start;
        let mut w =
            CatalogWriter::create(&dir.join(&name), manifest.params.m, manifest.storage, first)?;
        let mut titles = TitleCounter::new(TITLE_SORT_MEMORY, dir);
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
            (titles_name.clone(), titles.finish(&dir.join(&titles_name))?),
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
    manifest.commit(dir)?;
    report.generation = manifest.generation;
    for name in &gone {
        let path = dir.join(name);
        std::fs::remove_file(&path).map_err(|e| IndexError::io(&path, e))?;
    }
    Ok(Some((manifest, report)))
}

/// Merges what `policy` says is due once an add that wrote pages has committed `manifest`
/// (the add's [`crate::AddReport`] `r` says so); a merge that fails costs the merge only, and
/// `r` says why.
pub(crate) fn merge_after_add(
    dir: &Path,
    manifest: &Manifest,
    policy: &MergePolicy,
    r: &mut crate::AddReport,
) {
    if r.pages == 0 {
        return;
    }
    let merged = Snapshot::of(dir, manifest.clone())
        .map_err(Error::from)
        .and_then(|snap| merge_due(dir, manifest, &snap, policy));
    match merged {
        Ok(Some((m, report))) => {
            r.generation = m.generation;
            r.merged = Some(report);
        }
        Ok(None) => {}
        Err(e) => {
            r.merge_error = Some(format!(
                "the add is committed; merging its segments failed (the next add or `index \
                 compact` merges them): {e}"
            ))
        }
    }
}

/// Bytes of title counts sorted in memory while catalogs are merged (more spill).
const TITLE_SORT_MEMORY: usize = 8 << 20;

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
        if total.saturating_add(s) > max_bytes || (sizes.len() - start >= 2 && s > 2 * total) {
            break;
        }
        start -= 1;
        total += s;
    }
    (sizes.len() - start >= 2).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_merge_the_newest_small_segments_only() {
        assert_eq!(tier_start(&[5; 8], 8, 100), None);
        assert_eq!(tier_start(&[100, 1, 1, 1, 1, 1, 1, 1, 1], 8, 1000), Some(1));
        assert_eq!(tier_start(&[100, 8, 1, 1, 1, 1, 1, 1, 1], 8, 1000), Some(1));
        // Never more than max_bytes at once.
        assert_eq!(tier_start(&[1; 9], 8, 4), Some(5));
        // Too big to merge at all.
        assert_eq!(tier_start(&[10; 9], 8, 15), None);
        assert_eq!(
            tier_start(&[1; 100], MergePolicy::NEVER.max_segments, 0),
            None
        );
    }

    /// Equal batches added one after another under [`MergePolicy::ADD`]: the key segments stay
    /// few (O(log) tiers above the limit) and each entry is rewritten O(log) times.
    #[test]
    fn batches_keep_few_segments_and_rewrite_each_entry_few_times() {
        let p = MergePolicy::ADD;
        let mut sizes: Vec<u64> = Vec::new();
        let mut rewritten = 0u64;
        let batches = 1000u64;
        for _ in 0..batches {
            sizes.push(1);
            if let Some(start) = tier_start(&sizes, p.max_segments, p.max_merge_bytes) {
                let merged: u64 = sizes.drain(start..).sum();
                rewritten += merged;
                sizes.push(merged);
            }
            assert!(sizes.len() <= p.max_segments, "{sizes:?}");
        }
        assert_eq!(sizes.iter().sum::<u64>(), batches);
        // log2(1000) ~ 10 rewrites each would be 10,000.
        assert!(rewritten < 6 * batches, "{rewritten}");
    }
}

//! Title segments' counts: what the title rule learns about each host (how many pages it has,
//! how many of them carry each title segment), kept beside every catalog segment so that an
//! index judges titles as one `dedup` over every page it holds would.
//!
//! A `.titles` segment is a key segment ([`crate::segment`]'s format) of `(key, count)`
//! entries, one per key: [`title_count_key`]`(host, 0)` counts the host's pages in the catalog
//! of the same generation and label, [`title_count_key`]`(host, s)` the pages whose title has
//! segment `s` (`neardup_text::TitleKey`; a segment is never 0). Counts add up over segments:
//! the index's count of a key is the sum over its live `.titles` segments, so removing a crawl
//! (its segments) removes its counts, and merging catalogs sums theirs.

use crate::{IndexError, KeySegmentReader, KeySegmentWriter};
use neardup_store::extsort::ExternalSorter;
use std::path::Path;

/// The key of a host's count of title segment `segment` (0: the host's pages): both mixed by
/// the MurmurHash3 finalizer so that every `(host, segment)` gets its own key.
pub fn title_count_key(host_key: u64, segment: u32) -> u64 {
    neardup_sketch::rabin::fmix(host_key ^ neardup_sketch::rabin::fmix(u64::from(segment) + 1))
}

/// Counts the title segments of the pages of one catalog segment, in bounded memory (keys are
/// sorted externally, then counted).
pub struct TitleCounter {
    sorter: ExternalSorter<(u64, u64)>,
    scratch: std::path::PathBuf,
}

impl TitleCounter {
    /// A counter holding at most `mem_limit` bytes of keys in memory; more are sorted in runs
    /// in a folder inside `scratch`.
    pub fn new(mem_limit: usize, scratch: &Path) -> TitleCounter {
        TitleCounter {
            sorter: ExternalSorter::new(mem_limit.max(1 << 16), scratch),
            scratch: scratch.to_path_buf(),
        }
    }

    /// Counts one page of the host `host_key` whose title has the segments `title` (zeros:
    /// none).
    pub fn push(&mut self, host_key: u64, title: &[u32; 4]) -> Result<(), IndexError> {
        let io = |e| IndexError::io(&self.scratch, e);
        self.sorter
            .push((title_count_key(host_key, 0), 0))
            .map_err(io)?;
        // `neardup_text::TitleKey` never repeats a segment; each is counted as given.
        for &s in title {
            if s != 0 {
                self.sorter
                    .push((title_count_key(host_key, s), 0))
                    .map_err(io)?;
            }
        }
        Ok(())
    }

    /// Writes the counts as the `.titles` segment `path`: (entries, bytes).
    pub fn finish(self, path: &Path) -> Result<(u64, u64), IndexError> {
        let io = |e| IndexError::io(&self.scratch, e);
        let mut w = KeySegmentWriter::create(path)?;
        let mut run: Option<(u64, u64)> = None;
        for e in self.sorter.finish().map_err(io)? {
            let (key, _) = e.map_err(io)?;
            match &mut run {
                Some((k, n)) if *k == key => *n += 1,
                _ => {
                    if let Some((k, n)) = run {
                        w.push(k, n)?;
                    }
                    run = Some((key, 1));
                }
            }
        }
        if let Some((k, n)) = run {
            w.push(k, n)?;
        }
        w.finish()
    }
}

/// The summed counts of an index's `.titles` segments.
#[derive(Clone, Copy, Debug)]
pub struct TitleCounts<'a> {
    segments: &'a [KeySegmentReader],
}

impl<'a> TitleCounts<'a> {
    /// The counts of `segments` (every live `.titles` segment, and any of a run not yet live).
    pub fn new(segments: &'a [KeySegmentReader]) -> TitleCounts<'a> {
        TitleCounts { segments }
    }

    /// The count under `key` ([`title_count_key`]) summed over the segments (`scratch` and
    /// `out`: buffers reused from call to call).
    pub fn count(
        &self,
        key: u64,
        scratch: &mut Vec<u8>,
        out: &mut Vec<u64>,
    ) -> Result<u64, IndexError> {
        let mut n = 0u64;
        for seg in self.segments {
            out.clear();
            seg.lookup(key, scratch, out)?;
            n += out.iter().sum::<u64>();
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_over_segments() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (i, titles) in [
            vec![[7u32, 9, 0, 0], [7, 9, 0, 0]],
            vec![[7, 0, 0, 0], [0, 0, 0, 0], [11, 7, 0, 0]],
        ]
        .iter()
        .enumerate()
        {
            let mut c = TitleCounter::new(1 << 16, dir.path());
            for t in titles {
                c.push(42, t).unwrap();
            }
            c.push(43, &[7, 0, 0, 0]).unwrap();
            let p = dir.path().join(format!("s{i}.titles"));
            c.finish(&p).unwrap();
            paths.push(p);
        }
        let readers: Vec<KeySegmentReader> = paths
            .iter()
            .map(|p| KeySegmentReader::open(p).unwrap())
            .collect();
        let counts = TitleCounts::new(&readers);
        let (mut s, mut o) = (Vec::new(), Vec::new());
        let mut n = |h, seg| {
            counts
                .count(title_count_key(h, seg), &mut s, &mut o)
                .unwrap()
        };
        assert_eq!(n(42, 0), 5, "host pages");
        assert_eq!(n(42, 7), 4);
        assert_eq!(n(42, 9), 2);
        assert_eq!(n(42, 11), 1);
        assert_eq!(n(43, 0), 2);
        assert_eq!(n(43, 7), 2);
        assert_eq!(n(44, 0), 0);
    }
}

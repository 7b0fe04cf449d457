//! What a key segment read into memory keeps besides its bytes, so that lookups decode less
//! ([`Aids`]).

use super::KeySegmentReader;
use crate::IndexError;

/// Keys with at least this many entries are kept decoded by a segment read into memory.
const LONG_RUN: u64 = 64;

/// Bits of a segment's key filter per entry (at least 4 per distinct key; about half of a
/// crawl's entries repeat the key before, so about 8).
const FILTER_BITS_PER_ENTRY: u64 = 4;

/// What a segment read into memory ([`KeySegmentReader::into_memory`]) builds from one pass
/// over its entries, so that a lookup decodes less: a filter that tells most keys it has no
/// entries under without a block being decoded (about half of a lookup's keys in a segment),
/// and the pages of its longest runs of one key, decoded once: the keys a page's template
/// shares with thousands of pages, which each lookup would otherwise decode again (the
/// longest first, within a quarter of the segment's size in bytes). Answers are the
/// blocks' own. [`KeySegmentReader::memory`] bounds what they take.
#[derive(Debug, Default)]
pub(super) struct Aids {
    /// A blocked Bloom filter of the keys (their bits kept): four bits of one word a key.
    /// Empty: every key may be held.
    pub(super) filter: Vec<u64>,
    /// Per long run, increasing: its key and its pages' range in `pages`.
    pub(super) long: Vec<(u64, std::ops::Range<usize>)>,
    pub(super) pages: Vec<u64>,
}

impl Aids {
    /// The aids of `seg` (read into memory: its blocks checked), keeping at most `budget`
    /// pages of long runs.
    pub(super) fn of(seg: &KeySegmentReader, budget: usize) -> Result<Aids, IndexError> {
        let mut aids = Aids {
            filter: vec![0; usize::try_from(filter_words(seg.entries)).unwrap_or(usize::MAX)],
            ..Aids::default()
        };
        // The length of every long run, to keep the longest.
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut run: Option<(u64, u64)> = None;
        for e in seg.entries() {
            let key = e?.0 >> seg.shift;
            match &mut run {
                Some((k, n)) if *k == key => *n += 1,
                _ => {
                    runs.extend(run.filter(|r| r.1 >= LONG_RUN));
                    run = Some((key, 1));
                    let (w, bits) = aids.probe(key);
                    aids.filter[w] |= bits;
                }
            }
        }
        runs.extend(run.filter(|r| r.1 >= LONG_RUN));
        runs.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut total = 0;
        let kept = runs.iter().take_while(|r| {
            total += r.1 as usize;
            total <= budget
        });
        let mut keys: Vec<u64> = kept.map(|r| r.0).collect();
        keys.sort_unstable();
        let (mut block, mut pages) = (Vec::new(), Vec::new());
        for key in keys {
            pages.clear();
            seg.lookup(key << seg.shift, &mut block, &mut pages)?;
            let at = aids.pages.len();
            aids.long.push((key, at..at + pages.len()));
            aids.pages.extend_from_slice(&pages);
        }
        Ok(aids)
    }

    /// The filter's word for `key` and its four bits there.
    fn probe(&self, key: u64) -> (usize, u64) {
        let h = neardup_sketch::rabin::fmix(key);
        let w = (h as usize) & (self.filter.len() - 1);
        let bits = (0..4).fold(0u64, |b, i| b | 1 << ((h >> (40 + 6 * i)) & 63));
        (w, bits)
    }

    /// Whether the segment may have entries under `key`: false only when it has none.
    pub(super) fn may_hold(&self, key: u64) -> bool {
        if self.filter.is_empty() {
            return true;
        }
        let (w, bits) = self.probe(key);
        self.filter[w] & bits == bits
    }

    /// The pages under `key`, if it is one of the long runs kept.
    pub(super) fn long_run(&self, key: u64) -> Option<&[u64]> {
        let i = self.long.binary_search_by_key(&key, |k| k.0).ok()?;
        Some(&self.pages[self.long[i].1.clone()])
    }
}

/// Words of the key filter of a segment of `entries` entries (a power of two).
pub(super) fn filter_words(entries: u64) -> u64 {
    (entries * FILTER_BITS_PER_ENTRY / 64)
        .max(1)
        .next_power_of_two()
}

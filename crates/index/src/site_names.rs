//! The title rule over an index: which of a page's title segments name its site, learned
//! from the counts of the index's `.titles` segments as `neardup_dedup::Titles` learns them
//! over one corpus (a segment on more than half of its host's pages, on a host of at least
//! `neardup_dedup::MIN_HOST_PAGES` pages, names the site). A page not held by the index (a
//! lookup's) can be counted beside them, so that a lookup judges titles as one `dedup` over
//! the index and that page would.

use crate::{title_count_key, IndexError, KeySegmentReader, TitleCounts};
use neardup_dedup::{host_key, is_site_segment, own_segments};
use std::collections::HashMap;

/// Keys whose counts a [`SiteNames`] remembers at most before it forgets them all.
const CACHE: usize = 1 << 20;

/// A page's own title segments, from an index's counts.
pub struct SiteNames<'a> {
    counts: TitleCounts<'a>,
    /// A page counted beside the segments: its host's key and its title.
    extra: Option<(u64, [u32; 4])>,
    cache: HashMap<u64, u64>,
    scratch: Vec<u8>,
    out: Vec<u64>,
}

impl<'a> SiteNames<'a> {
    /// Site names from the `.titles` segments `segments`, with `extra` (a host and a title)
    /// counted as one more page.
    pub fn new(segments: &'a [KeySegmentReader], extra: Option<(&str, [u32; 4])>) -> Self {
        SiteNames {
            counts: TitleCounts::new(segments),
            extra: extra.map(|(h, t)| (host_key(h), t)),
            cache: HashMap::new(),
            scratch: Vec::new(),
            out: Vec::new(),
        }
    }

    fn count(&mut self, host: u64, segment: u32) -> Result<u64, IndexError> {
        let key = title_count_key(host, segment);
        let held = match self.cache.get(&key) {
            Some(&n) => n,
            None => {
                let n = self.counts.count(key, &mut self.scratch, &mut self.out)?;
                if self.cache.len() >= CACHE {
                    self.cache.clear();
                }
                self.cache.insert(key, n);
                n
            }
        };
        let extra = self
            .extra
            .is_some_and(|(h, t)| h == host && (segment == 0 || t.contains(&segment)));
        Ok(held + u64::from(extra))
    }

    /// The segments of `title` (a page of `host`) that do not name the site, in order, zeros
    /// after them.
    pub fn own(&mut self, host: &str, title: &[u32; 4]) -> Result<[u32; 4], IndexError> {
        if title[0] == 0 {
            return Ok([0; 4]);
        }
        let h = host_key(host);
        let pages = self.count(h, 0)?;
        let mut site = [false; 4];
        for (i, &s) in title.iter().enumerate() {
            if s != 0 {
                site[i] = is_site_segment(self.count(h, s)?, pages);
            }
        }
        Ok(own_segments(title, |s| {
            title.iter().position(|&t| t == s).is_some_and(|i| site[i])
        }))
    }

    /// What the titles of two pages say ([`neardup_dedup::own_segments_agree`] of their own
    /// segments).
    pub fn agree(
        &mut self,
        a: (&str, &[u32; 4]),
        b: (&str, &[u32; 4]),
    ) -> Result<Option<bool>, IndexError> {
        let (x, y) = (self.own(a.0, a.1)?, self.own(b.0, b.1)?);
        Ok(neardup_dedup::own_segments_agree(&x, &y))
    }
}

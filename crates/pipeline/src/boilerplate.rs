//! Host-frequency boilerplate detection (the fix Henzinger proposes in paper 003 section 3.2):
//! a shingle that appears on more than a fraction of the pages of its host is boilerplate and
//! does not enter the signatures of that host's pages.
//!
//! The first pass counts, for every (host, shingle), the pages of the host that contain the
//! shingle, in a count-min sketch (Cormode and Muthukrishnan 2005) of fixed size: memory is
//! `depth x width x 4` bytes whatever the number of hosts and shingles. A count-min sketch only
//! overestimates, by at most `e / width` of all insertions with probability `1 - e^-depth`; with
//! the default 4 x 2^22 counters (64 MiB) and 50 M insertions that is about 32 pages per (host,
//! shingle).

use crate::stream::Visitor;
use neardup_ingest::Page;
use neardup_sketch::{Family, Sketcher};
use neardup_text::Document;
use std::collections::HashMap;
use std::sync::Arc;

/// Boilerplate detection settings.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct BoilerplateConfig {
    /// A shingle on more than this share of its host's pages is boilerplate.
    pub fraction: f64,
    /// Hosts with fewer pages are left alone (too few pages to tell).
    pub min_host_pages: u32,
    /// A page whose shingles are at least this share boilerplate is reported, not clustered.
    pub mostly: f64,
    /// log2 of the count-min sketch width.
    pub width_log2: u32,
    /// Count-min sketch depth (rows).
    pub depth: u32,
}

impl BoilerplateConfig {
    /// Checks the shares.
    pub fn validate(&self) -> Result<(), crate::SettingsError> {
        for (name, v) in [
            ("boilerplate_fraction", self.fraction),
            ("boilerplate_page", self.mostly),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(crate::SettingsError::new(
                    name,
                    v,
                    "a share between 0 and 1",
                ));
            }
        }
        if self.width_log2 > 30 || self.depth == 0 || self.depth > 16 {
            return Err(crate::SettingsError::new(
                "boilerplate_sketch",
                format!("2^{} x {}", self.width_log2, self.depth),
                "a count-min sketch of at most 2^30 columns and 1..=16 rows",
            ));
        }
        Ok(())
    }
}

impl Default for BoilerplateConfig {
    fn default() -> Self {
        BoilerplateConfig {
            fraction: 0.5,
            min_host_pages: 20,
            mostly: 0.9,
            width_log2: 22,
            depth: 4,
        }
    }
}

/// A host's key: the one every step keys hosts by ([`neardup_dedup::host_key`]).
pub use neardup_dedup::host_key;

/// SplitMix64's finalizer: spreads a count-min cell's key over 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Page counts of (host, shingle) pairs in a count-min sketch, and page counts of hosts.
#[derive(Clone, Debug)]
pub struct HostShingleCounts {
    width_log2: u32,
    depth: u32,
    counts: Vec<u32>,
    host_pages: HashMap<u64, u32>,
}

impl HostShingleCounts {
    /// An empty sketch.
    pub fn new(cfg: &BoilerplateConfig) -> HostShingleCounts {
        HostShingleCounts {
            width_log2: cfg.width_log2,
            depth: cfg.depth,
            counts: vec![0; (cfg.depth as usize) << cfg.width_log2],
            host_pages: HashMap::new(),
        }
    }

    #[inline]
    fn cell(&self, row: u32, host: u64, shingle: u64) -> usize {
        let h =
            mix(host ^ shingle.rotate_left(17) ^ (row as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        ((row as usize) << self.width_log2) | (h >> (64 - self.width_log2)) as usize
    }

    /// Counts one page of `host` holding `distinct_shingles`.
    pub fn add_page(&mut self, host: u64, distinct_shingles: &[u64]) {
        *self.host_pages.entry(host).or_default() += 1;
        for &s in distinct_shingles {
            for row in 0..self.depth {
                let c = self.cell(row, host, s);
                self.counts[c] = self.counts[c].saturating_add(1);
            }
        }
    }

    /// Estimated number of pages of `host` holding `shingle` (never an underestimate).
    pub fn estimate(&self, host: u64, shingle: u64) -> u32 {
        (0..self.depth)
            .map(|row| self.counts[self.cell(row, host, shingle)])
            .min()
            .unwrap_or(0)
    }

    /// Pages of `host`.
    pub fn host_pages(&self, host: u64) -> u32 {
        self.host_pages.get(&host).copied().unwrap_or(0)
    }

    /// Adds another sketch of the same shape.
    pub fn merge(&mut self, other: &HostShingleCounts) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a = a.saturating_add(*b);
        }
        for (h, n) in &other.host_pages {
            *self.host_pages.entry(*h).or_default() += n;
        }
    }
}

/// Decides what is boilerplate.
#[derive(Debug)]
pub struct BoilerplateFilter {
    /// Settings.
    pub config: BoilerplateConfig,
    /// The first pass's counts.
    pub counts: HostShingleCounts,
}

impl BoilerplateFilter {
    /// True when `shingle` is boilerplate on `host`.
    pub fn is_boilerplate(&self, host: u64, shingle: u64) -> bool {
        let pages = self.counts.host_pages(host);
        pages >= self.config.min_host_pages
            && self.counts.estimate(host, shingle) as f64 > self.config.fraction * pages as f64
    }
}

/// The first pass: counts (host, shingle) page frequencies.
pub struct BoilerplateCounter {
    sketcher: Sketcher,
    every_status: bool,
    content: neardup_sketch::Content,
    shingles: Vec<u64>,
    counts: HostShingleCounts,
}

impl BoilerplateCounter {
    /// A counter for a family.
    pub fn new(family: Arc<Family>, cfg: &BoilerplateConfig) -> BoilerplateCounter {
        BoilerplateCounter {
            every_status: false,
            content: family.params().content,
            sketcher: Sketcher::new(family),
            shingles: Vec::new(),
            counts: HostShingleCounts::new(cfg),
        }
    }

    /// Counts every response, whatever its status (as the sketching pass does).
    pub fn every_status(mut self, yes: bool) -> BoilerplateCounter {
        self.every_status = yes;
        self
    }
}

impl Visitor for BoilerplateCounter {
    type Output = HostShingleCounts;

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        if !self.every_status && crate::pages::NotPage::of(page, doc).is_some() {
            return;
        }
        if let Some(doc) = doc {
            self.sketcher
                .distinct_shingles(self.content.terms(doc), &mut self.shingles);
            self.counts
                .add_page(host_key(&page.host().to_ascii_lowercase()), &self.shingles);
        }
    }

    fn finish(self) -> HostShingleCounts {
        self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_min_never_underestimates_and_flags_frequent_shingles() {
        let cfg = BoilerplateConfig {
            width_log2: 10,
            depth: 3,
            min_host_pages: 4,
            ..Default::default()
        };
        let mut c = HostShingleCounts::new(&cfg);
        let (a, b) = (host_key("a.example"), host_key("b.example"));
        for page in 0..10u64 {
            // Shingle 1 on every page of a; shingle 2 on 3 of them; page-specific shingles.
            let mut s = vec![1, 1000 + page];
            if page < 3 {
                s.push(2);
            }
            c.add_page(a, &s);
        }
        c.add_page(b, &[1]);
        assert!(c.estimate(a, 1) >= 10 && c.estimate(a, 2) >= 3 && c.estimate(a, 1005) >= 1);
        let mut other = HostShingleCounts::new(&cfg);
        other.add_page(b, &[1]);
        c.merge(&other);
        assert_eq!(c.host_pages(b), 2);
        let f = BoilerplateFilter {
            config: cfg,
            counts: c,
        };
        assert!(f.is_boilerplate(a, 1));
        assert!(!f.is_boilerplate(a, 2));
        assert!(!f.is_boilerplate(a, 1003));
        assert!(!f.is_boilerplate(b, 1), "host b has too few pages to tell");
    }
}

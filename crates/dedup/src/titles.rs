//! Whether two pages' titles name the same item: the rule that keeps pages of one template
//! apart when their main items differ (`Chars in std::str - Rust` and `RSplit in std::str -
//! Rust`, two articles under one newspaper template).
//!
//! A title is cut into segments (`neardup_text::TitleKey`). Segments on more than half the
//! pages of their host (with at least [`MIN_HOST_PAGES`] pages) name the site, not the page
//! (`Rust`, `The Daily Ferris`), and so do segments on [`SECTION_PAGES`] pages or more: they
//! name a part of the site (a book, a product line: `The Cargo Book`, `Rust By Example`), which
//! its pages share though their items differ. Both are set aside; two pages' titles agree when
//! the segments left share one. When either page has no segment left (no title, or a title that only names
//! its site, as on parked domains) the titles say nothing.

use neardup_store::Corpus;
use rayon::prelude::*;
use std::collections::HashSet;

/// Pages a host needs before a segment can be called its site name.
pub const MIN_HOST_PAGES: u32 = 3;

/// The site-naming segments of every host of a corpus.
#[derive(Debug, Default)]
pub struct Titles {
    site_segments: HashSet<(u64, u32)>,
}

/// A host's key: XXH3-64 (seed 0) of the lowercased host.
pub fn host_key(host: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(host.as_bytes())
}

/// Pages of one host a title segment is found on at least to name a part of the site (a book,
/// a section) rather than an item: more copies of one page than a host serves (versions,
/// print views, session ids), fewer pages than a section holds.
pub const SECTION_PAGES: u64 = 16;

/// Whether a title segment found on `count` of its host's `host_pages` pages names the site or
/// a part of it: on more than half of them, on a host of at least [`MIN_HOST_PAGES`] pages, or
/// on [`SECTION_PAGES`] pages or more.
pub fn is_site_segment(count: u64, host_pages: u64) -> bool {
    host_pages >= u64::from(MIN_HOST_PAGES)
        && (count.saturating_mul(2) > host_pages || count >= SECTION_PAGES)
}

/// A title's segments that do not name its site (`is_site` says which do), in order, zeros
/// after them.
pub fn own_segments(title: &[u32; 4], is_site: impl Fn(u32) -> bool) -> [u32; 4] {
    let mut out = [0u32; 4];
    let mut n = 0;
    for &s in title.iter().filter(|&&s| s != 0) {
        if !is_site(s) {
            out[n] = s;
            n += 1;
        }
    }
    out
}

/// Whether two titles' own segments ([`own_segments`]) name the same item: they share one;
/// `None` when either has none.
pub fn own_segments_agree(a: &[u32; 4], b: &[u32; 4]) -> Option<bool> {
    if a[0] == 0 || b[0] == 0 {
        return None;
    }
    Some(a.iter().any(|&s| s != 0 && b.contains(&s)))
}

impl Titles {
    /// Finds the site-naming segments of a corpus.
    pub fn new(corpus: &Corpus) -> Titles {
        // Counted by sorting on every thread: (host, page) keys give each host's pages, (host,
        // segment) keys each segment's pages on its host.
        let n = corpus.len();
        let hosts: Vec<u64> = (0..n)
            .into_par_iter()
            .map(|p| host_key(corpus.page(p).host))
            .collect();
        let mut segments: Vec<(u64, u32)> = (0..n)
            .into_par_iter()
            .flat_map_iter(|p| {
                let h = hosts[p as usize];
                let title = corpus.page(p).title;
                title.into_iter().filter(|&s| s != 0).map(move |s| (h, s))
            })
            .collect();
        let mut hosts = hosts;
        hosts.par_sort_unstable();
        segments.par_sort_unstable();
        let host_pages = |h: u64| {
            let from = hosts.partition_point(|&x| x < h);
            hosts[from..].partition_point(|&x| x == h) as u64
        };
        let site_segments = segments
            .chunk_by(|a, b| a == b)
            .filter(|run| is_site_segment(run.len() as u64, host_pages(run[0].0)))
            .map(|run| run[0])
            .collect();
        Titles { site_segments }
    }

    /// Whether the titles of pages `a` and `b` name the same item; `None` when either says
    /// nothing beyond its site.
    pub fn agree(&self, corpus: &Corpus, a: u32, b: u32) -> Option<bool> {
        let (pa, pb) = (corpus.page(a), corpus.page(b));
        own_segments_agree(&self.own(pa.host, &pa.title), &self.own(pb.host, &pb.title))
    }

    /// The segments of a title of a page of `host` that do not name the site.
    pub fn own(&self, host: &str, title: &[u32; 4]) -> [u32; 4] {
        let h = host_key(host);
        own_segments(title, |s| self.site_segments.contains(&(h, s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_sketch::{Family, SketchParams};
    use neardup_store::{PageMeta, Signatures};

    fn corpus(pages: &[(&str, &str)]) -> Corpus {
        let params = SketchParams::default();
        let mut b = Corpus::builder(Family::new(&params), vec!["mem".into()]);
        let minvalues = vec![0u32; 84];
        let supers = vec![0u64; 6];
        for (i, (host, title)) in pages.iter().enumerate() {
            let meta = PageMeta {
                url: format!("https://{host}/{i}"),
                host: host.to_string(),
                title: neardup_text::TitleKey::of(title).0,
                ..PageMeta::default()
            };
            let sigs = Signatures {
                minvalues: &minvalues,
                supershingles: &supers,
                ..Signatures::default()
            };
            b.push(meta, sigs).unwrap();
        }
        b.build()
    }

    #[test]
    fn site_names_are_set_aside_and_items_compared() {
        let c = corpus(&[
            ("paper.example", "Brexit | The Paper"),
            ("paper.example", "Budget | The Paper"),
            ("paper.example", "Weather | The Paper"),
            ("paper.example", "Budget (print)"),
            ("mirror.example", "Budget | The Paper"),
            ("parked-one.example", "parked-one.example - for sale"),
            ("parked-two.example", "parked-two.example - for sale"),
        ]);
        let t = Titles::new(&c);
        assert_eq!(t.agree(&c, 0, 1), Some(false), "two articles of one site");
        assert_eq!(
            t.agree(&c, 1, 3),
            Some(true),
            "an article and its print view"
        );
        assert_eq!(t.agree(&c, 1, 4), Some(true), "an article and its mirror");
        assert_eq!(
            t.agree(&c, 5, 6),
            Some(true),
            "one template, names as one word"
        );
    }

    #[test]
    fn a_section_name_is_no_item() {
        // A book of 20 chapters on a host of 60 pages: its name is on a third of them.
        let mut pages: Vec<(&str, String)> = (0..20)
            .map(|i| {
                (
                    "docs.example",
                    format!(
                        "Chapter {} - The Book - Docs",
                        "abcdefghijklmnopqrst".as_bytes()[i] as char
                    ),
                )
            })
            .collect();
        pages.extend((0..40).map(|i| ("docs.example", format!("Page {i}x - Docs"))));
        pages.push(("docs.example", "Chapter a (print) - The Book - Docs".into()));
        let refs: Vec<(&str, &str)> = pages.iter().map(|(h, t)| (*h, t.as_str())).collect();
        let c = corpus(&refs);
        let t = Titles::new(&c);
        assert_eq!(t.agree(&c, 0, 1), Some(false), "two chapters of one book");
        assert_eq!(
            t.agree(&c, 0, 60),
            Some(true),
            "a chapter and its print view"
        );
        assert!(is_site_segment(SECTION_PAGES, 1000));
        assert!(!is_site_segment(SECTION_PAGES - 1, 1000));
    }

    #[test]
    fn no_title_says_nothing() {
        let c = corpus(&[("a.example", ""), ("a.example", "Budget")]);
        assert_eq!(Titles::new(&c).agree(&c, 0, 1), None);
    }
}

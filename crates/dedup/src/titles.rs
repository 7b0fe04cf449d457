//! Whether two pages' titles name the same item: the rule that keeps pages of one template
//! apart when their main items differ (`Chars in std::str - Rust` and `RSplit in std::str -
//! Rust`, two articles under one newspaper template).
//!
//! A title is cut into segments (`neardup_text::TitleKey`). Segments on more than half the
//! pages of their host (with at least [`MIN_HOST_PAGES`] pages) name the site, not the page
//! (`Rust`, `The Daily Ferris`), and are set aside; two pages' titles agree when the segments
//! left share one. When either page has no segment left (no title, or a title that only names
//! its site, as on parked domains) the titles say nothing.

use neardup_store::Corpus;
use std::collections::{HashMap, HashSet};

/// Pages a host needs before a segment can be called its site name.
pub const MIN_HOST_PAGES: u32 = 3;

/// The site-naming segments of every host of a corpus.
#[derive(Debug, Default)]
pub struct Titles {
    site_segments: HashSet<(u64, u32)>,
}

fn host_key(host: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(host.as_bytes())
}

impl Titles {
    /// Finds the site-naming segments of a corpus.
    pub fn new(corpus: &Corpus) -> Titles {
        let mut host_pages: HashMap<u64, u32> = HashMap::new();
        let mut counts: HashMap<(u64, u32), u32> = HashMap::new();
        for p in corpus.pages() {
            let h = host_key(p.host);
            *host_pages.entry(h).or_default() += 1;
            for &s in p.title.iter().filter(|&&s| s != 0) {
                *counts.entry((h, s)).or_default() += 1;
            }
        }
        let site_segments = counts
            .into_iter()
            .filter(|&((h, _), n)| {
                let pages = host_pages.get(&h).copied().unwrap_or(0);
                pages >= MIN_HOST_PAGES && 2 * n > pages
            })
            .map(|(k, _)| k)
            .collect();
        Titles { site_segments }
    }

    /// Whether the titles of pages `a` and `b` name the same item; `None` when either says
    /// nothing beyond its site.
    pub fn agree(&self, corpus: &Corpus, a: u32, b: u32) -> Option<bool> {
        let (pa, pb) = (corpus.page(a), corpus.page(b));
        let (ha, hb) = (host_key(pa.host), host_key(pb.host));
        let own = |h: u64, t: &[u32; 4]| -> [u32; 4] {
            let mut out = [0u32; 4];
            let mut n = 0;
            for &s in t.iter().filter(|&&s| s != 0) {
                if !self.site_segments.contains(&(h, s)) {
                    out[n] = s;
                    n += 1;
                }
            }
            out
        };
        let (ta, tb) = (own(ha, &pa.title), own(hb, &pb.title));
        if ta[0] == 0 || tb[0] == 0 {
            return None;
        }
        Some(ta.iter().any(|&s| s != 0 && tb.contains(&s)))
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
    fn no_title_says_nothing() {
        let c = corpus(&[("a.example", ""), ("a.example", "Budget")]);
        assert_eq!(Titles::new(&c).agree(&c, 0, 1), None);
    }
}

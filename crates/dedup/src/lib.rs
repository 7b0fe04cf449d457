//! Near-duplicate matching over a [`neardup_store::Corpus`]: identity sets, candidate pairs
//! from one of the methods (supershingle combinations, LSH bands, permuted simhash tables, the
//! combined and split algorithms, a k-d tree over random projections and hyperlink maps), the
//! evidence of every pair, and clusters.
//!
//! Each method is a module under `method/` behind a private trait; [`Matching`] names them.
//!
//! ```
//! use neardup_dedup::{dedup, DedupConfig, Matching, Rule};
//! use neardup_sketch::{Family, SketchParams};
//! use neardup_store::{Corpus, PageMeta, Signatures};
//!
//! // Pages 0 and 1 share all but one minvalue (and so five of six supershingles); page 2 shares
//! // nothing with them.
//! let params = SketchParams::default();
//! let mut b = Corpus::builder(Family::new(&params), vec!["mem".into()]);
//! for (p, first) in [(0u64, 1u32), (1, 2), (2, 1000)] {
//!     let mut minvalues: Vec<u32> = (0..84).map(|i| 10 * i).collect();
//!     if p == 2 {
//!         minvalues.iter_mut().for_each(|v| *v += 1_000_000);
//!     }
//!     minvalues[0] = first;
//!     let supershingles: Vec<u64> = (0..6).map(|k| if p == 2 { 900 + k } else if k == 0 { first as u64 } else { k }).collect();
//!     let meta = PageMeta { url: format!("https://a.example/{p}"), token_hash: p, tokens: 100, ..PageMeta::default() };
//!     b.push(meta, Signatures { minvalues: &minvalues, supershingles: &supershingles, ..Signatures::default() }).unwrap();
//! }
//! let corpus = b.build();
//! let r = dedup(&corpus, &DedupConfig::new(Matching::Supershingles { min_agree: 2 })).unwrap();
//! assert_eq!(r.clusters.len(), 1);
//! assert_eq!(r.clusters[0].members, vec![0, 1]);
//! let e = &r.clusters[0].evidence[1];
//! assert_eq!((e.rule, e.b_similarity), (Rule::Supershingles, 5));
//! ```

pub mod clock;
mod config;
mod evidence;
mod method;
pub mod parts;
mod request;
pub mod rphm;
mod run;
mod score;
pub mod steps;
mod titles;

pub use crate::config::{
    defaults, ClusterMode, ConfigError, DedupConfig, Matching, SiteRule, CONTAINMENT_MIN_JACCARD,
    SAME_TITLES_CONTAINMENT, SAME_TITLES_CONTAINMENT_MIN_JACCARD, SAME_TITLES_JACCARD,
    SAME_TITLES_PASSAGE_CONTAINMENT, SAME_TITLES_PASSAGE_SHINGLES,
};
pub use crate::evidence::{Evidence, Rule, TitleMatch};
pub use crate::method::shared_tables;
pub use crate::request::{Algo, Choice, DedupRequest, Level, Lsh, Resolved, SketchRequest};
pub use crate::run::{dedup, Cluster, DedupCounts, DedupResult, Pair};
pub use crate::score::{accepts, checks, score, Check, Side, SideScorer};
pub use crate::titles::{
    host_key, is_site_segment, own_segments, own_segments_agree, Titles, MIN_HOST_PAGES,
    SECTION_PAGES,
};

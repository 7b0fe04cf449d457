//! Sites over near-duplicate clusters: mirrored hosts and subtrees ([`mirrors`], paper 004
//! section 4) and website replicas without labels ([`replicas`], paper 001).
//!
//! ```
//! use neardup_sites::mirrors::{mirrors, MirrorConfig, MirrorKind};
//! use neardup_sketch::{Family, SketchParams};
//! use neardup_store::{Corpus, PageMeta, Signatures};
//!
//! // Two hosts with the same twelve paths, each page clustered with its twin.
//! let mut b = Corpus::builder(Family::new(&SketchParams::default()), vec!["mem".into()]);
//! for host in ["a.example", "b.example"] {
//!     for i in 0..12 {
//!         let meta = PageMeta {
//!             url: format!("https://{host}/doc/{i}.html"),
//!             host: host.into(),
//!             ..PageMeta::default()
//!         };
//!         let sigs = Signatures { minvalues: &[0; 84], supershingles: &[0; 6], ..Signatures::default() };
//!         b.push(meta, sigs).unwrap();
//!     }
//! }
//! let corpus = b.build();
//! let clusters: Vec<Vec<u32>> = (0..12).map(|i| vec![i, i + 12]).collect();
//! let r = mirrors(&corpus, &clusters, &Default::default(), &MirrorConfig::default());
//! assert_eq!(r.pairs.len(), 1);
//! assert_eq!(r.pairs[0].kind, MirrorKind::Mirror);
//! ```

pub mod mirrors;
pub mod replicas;

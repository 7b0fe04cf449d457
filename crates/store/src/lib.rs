//! The page store: the signatures and facts of every page of a crawl, in memory
//! ([`Corpus`]), the versioned, checksummed signature file ([`SignatureWriter`],
//! [`SignatureReader`]) that keeps them between runs, and external sorting under a memory limit
//! ([`extsort`]). The only crate besides `ingest` and `report` that touches files.
//!
//! ```
//! use neardup_sketch::{Family, SketchParams};
//! use neardup_store::{Corpus, PageMeta, SignatureReader, SignatureWriter, Signatures};
//!
//! let params = SketchParams::default();
//! let mut b = Corpus::builder(Family::new(&params), vec!["mem".into()]);
//! let meta = PageMeta { url: "https://a.example/".into(), ..PageMeta::default() };
//! let minvalues: Vec<u32> = (0..84).collect();
//! let sigs = Signatures { minvalues: &minvalues, supershingles: &[1, 2, 3, 4, 5, 6], ..Signatures::default() };
//! b.push(meta, sigs).unwrap();
//! let corpus = b.build();
//!
//! // Written atomically, read back as a stream with its checksum checked.
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("crawl.ndsig");
//! let mut w = SignatureWriter::create(&path, &params, corpus.inputs(), 1).unwrap();
//! w.write(&corpus.record(0)).unwrap();
//! w.finish().unwrap();
//! let mut r = SignatureReader::open(&path).unwrap();
//! assert_eq!(r.params, params);
//! assert_eq!(r.read_all().unwrap()[0].url, "https://a.example/");
//! ```

mod corpus;
pub mod extsort;
mod held;
mod index_error;
mod shape;
mod sigfile;

pub use crate::corpus::{
    sort_dedup_tail, stored_minvalues, stored_shingles, Corpus, CorpusBuilder, PageInfo, PageMeta,
    PageRef, Signatures, TakenSignatures,
};
pub use crate::held::HeldCapture;
pub use crate::index_error::IndexError;
pub use crate::shape::ShapeError;
pub use crate::sigfile::{PageRecord, SigFileError, SignatureReader, SignatureWriter, MAGIC};

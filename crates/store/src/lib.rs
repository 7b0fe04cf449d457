//! The page store: the signatures and facts of every page of a crawl, in memory
//! ([`Corpus`]), the versioned, checksummed signature file ([`SignatureWriter`],
//! [`SignatureReader`]) that keeps them between runs, and external sorting under a memory limit
//! ([`extsort`]). The only crate besides `ingest` and `report` that touches files.

mod corpus;
pub mod extsort;
mod sigfile;

pub use crate::corpus::{Corpus, CorpusBuilder, PageMeta, ShapeError, Signatures};
pub use crate::sigfile::{PageRecord, SigFileError, SignatureReader, SignatureWriter, MAGIC};

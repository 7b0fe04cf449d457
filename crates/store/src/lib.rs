//! The page store: the signatures and facts of every page of a crawl, in memory
//! ([`Corpus`]), and the versioned, checksummed signature file ([`SignatureWriter`],
//! [`SignatureReader`]) that keeps them between runs.

mod corpus;
mod sigfile;

pub use crate::corpus::{Corpus, CorpusBuilder, PageMeta, ShapeError, Signatures};
pub use crate::sigfile::{PageRecord, SigFileError, SignatureReader, SignatureWriter, MAGIC};

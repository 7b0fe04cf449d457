//! The persistent index (work in progress, issue 18): a folder holding immutable, sorted,
//! checksummed segment files and a manifest naming the live ones.
//!
//! ```text
//! DIR/LOCK                 held (flock) by the one writer; readers never take it
//! DIR/MANIFEST             the live segments and the index's parameters, replaced atomically
//! DIR/seg-<gen>.keys       candidate keys -> page ids, sorted ([`segment`])
//! DIR/seg-<gen>.pages      page id -> facts, minvalues, small shingle sets ([`catalog`])
//! DIR/seg-<gen>.titles     per host: pages, and pages per title segment ([`titles`])
//! DIR/seg-<gen>.links      accepted pairs recorded by dedup runs ([`segment`]'s format)
//! ```
//!
//! A change is: write new segment files (fsynced), then write `MANIFEST.tmp`, fsync it, rename
//! it over `MANIFEST` and fsync the folder. A crash before the rename leaves the old manifest
//! and some unreferenced segment files (removed by the next writer); after it, the new state.
//! Readers load the manifest once and keep reading the segments it names (immutable; an
//! unlinked file stays readable while open), so they see one consistent snapshot.

/// Version of the index format (2: key segments also hold every page's URL key; 3: catalog
/// records hold the title's segments, `.titles` segments count them per host, the matching
/// holds the title rule; 4: catalog records end with the page's capture print; 5: the manifest
/// records the files added, key segments hold every page's id key, [`records`]; 6: key segments
/// pack their blocks, [`segment`]; 7: catalog records end with the page's language; 8: the
/// manifest names the language detector of each file added; 9: catalog records are
/// [`catalog::compact`]'s, the manifest says what they keep, [`Storage`]; 10: key segments tell
/// a key that repeats the one before in a bit, [`segment`]; 11: catalogs keep their URLs'
/// directories in a table, [`catalog`]; 12: catalog records Rice-code their shingle sets and
/// tell their minvalues by their places in them, [`catalog::compact::Layout`]; 13: a catalog's
/// offset entries take 9 bytes, a u40 offset and a u32 checksum, [`catalog`]; 14: catalog
/// records may keep the low bits of their shingle sets' members, the manifest says how many,
/// [`Storage::set_bits`]).
pub const INDEX_VERSION: u32 = 14;

/// The oldest index format this build reads: version 3 differs from 4 only in its catalog
/// records, which end before the capture print (read as none); 4 from 5 in its manifest, which
/// records no files (none are refused as added before), and its key segments, which hold no id
/// keys (its pages are recognized again by URL only).
pub const OLDEST_INDEX_VERSION: u32 = 3;

pub mod catalog;
pub mod lock;
pub mod manifest;
pub mod segment;
pub mod titles;

mod fsutil;
mod packed;

mod add;
mod dedup;
mod dedup_rows;
mod handle;
mod lookup;
mod maintain;
mod merges;
mod ops;
pub mod parts;
pub mod records;
pub mod shards;
mod site_names;
mod snapshot;
mod stage;
mod writer;

pub use crate::add::*;
pub use crate::dedup_rows::{IndexDedupOptions, IndexDedupRow, IndexDedupSummary};
pub use crate::handle::Index;
pub use crate::lookup::{
    match_rows, Ask, Cluster, ClusterAnswer, ClusterMembers, Looked, Lookup, MatchRow, NotIndexed,
};
pub use crate::maintain::*;
pub use crate::merges::MergePolicy;
pub use crate::ops::*;
pub use crate::site_names::SiteNames;
pub use crate::snapshot::{Match, Matched, Scratch, Snapshot};
pub use crate::stage::{stage, Staged};
pub use crate::writer::{Added, NewPage, Writer};

pub use crate::catalog::{CatalogPage, CatalogReader, CatalogWriter};
pub use crate::lock::WriterLock;
pub use crate::manifest::{Manifest, Matching, SegmentEntry, SegmentKind, Storage};
pub use crate::records::{language_detectors, other_language_detectors, InputEntry};
pub use crate::segment::{Entries, KeySegmentReader, KeySegmentWriter, Seeker};
pub use crate::titles::{title_count_key, TitleCounter, TitleCounts};
pub use neardup_store::IndexError;

pub(crate) fn io_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> IndexError + '_ {
    move |source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    }
}

//! Pages from web crawls, whatever the container: WARC (plain, gzip, zstd), ARC, folders of HTML
//! files, JSONL and Parquet. One [`Page`] model, one [`PageSource`] trait, and exact accounting of
//! everything that was skipped ([`SourceStats`], [`Problem`]).
//!
//! Bad input never panics and never allocates from a length field alone: record bodies grow
//! with the bytes that arrive and are capped by [`ReadOptions::max_record_bytes`]; decoded bodies
//! (chunked, gzip, deflate, brotli) are capped the same way. A malformed record is skipped and
//! counted with its file, byte offset and reason; reading resumes at the next record.
//!
//! ```no_run
//! use neardup_ingest::{open_source, Page, ReadOptions};
//! let mut src = open_source("crawl.warc.gz".as_ref(), None, 0, &ReadOptions::default()).unwrap();
//! let mut page = Page::default();
//! while src.next_page(&mut page).unwrap() {
//!     println!("{} {:?} {} bytes", page.url, page.status, page.body.len());
//! }
//! println!("{} problems", src.stats().problem_count());
//! ```

mod arc;
mod hosts;
mod htmldir;
mod http;
mod jsonl;
mod memory;
mod page;
mod parquet;
mod problem;
mod record;
mod source;
mod stream;
mod warc;

pub use crate::hosts::{parse_hosts_ips, read_hosts_ips};
pub use crate::memory::MemorySource;
pub use crate::page::{classify, looks_like_html, BodyKind, Page, PageId};
pub use crate::problem::{Problem, ProblemKind, Revisit, SourceStats, MAX_EXAMPLES};
pub use crate::source::{
    detect_format, format_from_name, open_bytes, open_source, FieldMap, Format, IngestError,
    PageSource, ReadOptions,
};
pub use crate::stream::Compression;
pub use crate::warc::MAX_WARC_HEADER;

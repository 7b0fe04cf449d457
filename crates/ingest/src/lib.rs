//! Pages from web crawls, whatever the container: WARC (plain, gzip, zstd), ARC, folders of HTML
//! files, JSONL and Parquet. One [`Page`] model, one [`PageSource`] trait, and exact accounting of
//! everything that was skipped ([`SourceStats`], [`Problem`]).
//!
//! Bad input never panics and never allocates from a length field alone: record bodies grow
//! with the bytes that arrive and are capped by [`ReadOptions::max_record_bytes`]; decoded bodies
//! (chunked, gzip, deflate, brotli) are capped the same way. A malformed record is skipped and
//! counted with its file, byte offset and reason; reading resumes at the next record.
//!
//! ```
//! use neardup_ingest::{open_bytes, Format, Page, ReadOptions};
//!
//! // One WARC response record, then garbage where the next record should be.
//! let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>";
//! let warc = format!(
//!     "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://a.example/\r\n\
//!      Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n\
//!      not a record",
//!     http.len()
//! );
//! let mut src = open_bytes(warc.into_bytes(), Format::Warc, "mem.warc", &ReadOptions::default()).unwrap();
//! let mut page = Page::default();
//! let mut urls = Vec::new();
//! while src.next_page(&mut page).unwrap() {
//!     urls.push((page.url.clone(), page.status, page.body.len()));
//! }
//! assert_eq!(urls, [("https://a.example/".to_string(), Some(200), 12)]);
//! // The garbage is skipped and counted with file, offset and reason.
//! assert_eq!(src.stats().problem_count(), 1);
//! println!("{:?}", src.stats().problems[0]);
//! ```

mod arc;
mod counted;
pub mod digest;
pub mod files;
mod gzip;
mod hosts;
mod htmldir;
mod http;
mod inflate;
mod jsonl;
mod memory;
mod open;
mod page;
mod parquet;
mod problem;
mod record;
mod source;
mod stream;
pub mod wacz;
mod walk;
mod warc;
mod whole;

pub use crate::hosts::{parse_hosts_ips, read_hosts_ips};
pub use crate::jsonl::{decode, JsonlRecords, NoPage};
pub use crate::memory::{MemorySource, PageRows};
pub use crate::open::{
    detect_format, format_from_name, http_response_page, open_bytes, open_reader, open_source,
    pages_and_problems_of_bytes, pages_of_bytes, read_record_at, read_records_at, STDIN_NAME,
};
pub use crate::page::{classify, looks_like_html, BodyKind, Page, PageId, Undecoded};
pub use crate::problem::{Problem, ProblemKind, Revisit, SourceStats, MAX_EXAMPLES};
pub use crate::source::{FieldMap, Format, IngestError, PageSource, ReadOptions};
pub use crate::stream::Compression;
pub use crate::walk::{is_crawl_file, walk_folder, PassedOver, PassedWhy, Walk};
pub use crate::warc::MAX_WARC_HEADER;

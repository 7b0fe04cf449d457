//! Pages that are already in memory (a Python caller's rows, an HTTP request, a Spark
//! partition) as a [`PageSource`], so they take the same path through the pipeline as pages
//! read from files.

use crate::page::{BodyKind, Page, PageId};
use crate::problem::SourceStats;
use crate::source::{IngestError, PageSource};
use std::sync::Arc;

impl Page {
    /// An HTML page: `url` and its HTML bytes (charset from a BOM or `<meta>`, else detected).
    pub fn html(url: impl Into<String>, html: impl Into<Vec<u8>>) -> Page {
        Page {
            url: url.into(),
            body: html.into(),
            mime: "text/html".into(),
            kind: BodyKind::Html,
            status: Some(200),
            ..Page::default()
        }
    }

    /// A plain-text page (tokenized as text, not HTML).
    pub fn text(url: impl Into<String>, text: impl Into<String>) -> Page {
        let mut p = Page {
            url: url.into(),
            body: text.into().into_bytes(),
            ..Page::default()
        };
        p.set_text_kind();
        p
    }

    /// Marks a page filled in place (its body HTML bytes) as [`Page::html`] makes it: HTML,
    /// status 200.
    pub fn set_html_kind(&mut self) {
        self.mime.clear();
        self.mime.push_str("text/html");
        self.kind = BodyKind::Html;
        self.status = Some(200);
    }

    /// Marks a page filled in place (its body UTF-8 text) as [`Page::text`] makes it: plain
    /// text, status 200.
    pub fn set_text_kind(&mut self) {
        self.mime.clear();
        self.mime.push_str("text/plain");
        self.kind = BodyKind::Text;
        self.status = Some(200);
    }

    /// Sets the caller's id, carried through to every output row.
    pub fn with_id(mut self, id: impl Into<String>) -> Page {
        self.record_id = id.into();
        self
    }

    /// Sets the fetch date (ISO 8601, as WARC-Date).
    pub fn with_date(mut self, date: impl Into<String>) -> Page {
        self.date = date.into();
        self
    }

    /// Sets the server IP address.
    pub fn with_ip(mut self, ip: impl Into<String>) -> Page {
        self.ip = ip.into();
        self
    }
}

/// Pages that live in memory in the caller's own form (a `Vec<Page>`, a Python caller's Arrow
/// table), read by position: [`PageRows::fill`] writes one row into a recycled [`Page`], so
/// only the pages in flight are ever copied, never the whole input at once.
pub trait PageRows: Send + Sync {
    /// Number of rows.
    fn len(&self) -> usize;

    /// Whether there are no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of page content in all rows (for progress).
    fn bytes(&self) -> u64;

    /// Writes row `i` (`< len()`) into `page`: every field a row sets is set, the others are
    /// left as [`Page::default`] has them. Ids and offsets are the reader's.
    fn fill(&self, i: usize, page: &mut Page);
}

impl PageRows for Vec<Page> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }

    fn bytes(&self) -> u64 {
        self.iter().map(|p| p.body.len() as u64).sum()
    }

    fn fill(&self, i: usize, page: &mut Page) {
        page.clone_from(&self[i]);
    }
}

/// Reads pages from shared [`PageRows`], in order; page ids are `(source, index)`.
pub struct MemorySource {
    rows: Arc<dyn PageRows>,
    at: usize,
    source: u32,
    stats: SourceStats,
    bytes: u64,
}

impl MemorySource {
    /// A source over `rows`, as input number `source` of a run.
    pub fn new(rows: Arc<dyn PageRows>, source: u32) -> MemorySource {
        MemorySource {
            rows,
            at: 0,
            source,
            stats: SourceStats::default(),
            bytes: 0,
        }
    }
}

impl PageSource for MemorySource {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError> {
        if self.at >= self.rows.len() {
            return Ok(false);
        }
        page.clear();
        self.rows.fill(self.at, page);
        page.id = PageId {
            source: self.source,
            ordinal: self.at as u32,
        };
        page.offset = self.at as u64;
        self.at += 1;
        self.bytes += page.body.len() as u64;
        self.stats.record_type("page");
        self.stats.pages += 1;
        Ok(true)
    }

    fn stats(&self) -> &SourceStats {
        &self.stats
    }

    fn raw_position(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_come_back_in_order_with_ids() {
        let pages = Arc::new(vec![
            Page::html("https://a.example/", "<p>one</p>").with_id("a"),
            Page::text("https://b.example/", "two").with_date("2026-01-01T00:00:00Z"),
        ]);
        let mut src = MemorySource::new(pages, 3);
        let mut p = Page::default();
        assert!(src.next_page(&mut p).unwrap());
        assert_eq!((p.id.source, p.id.ordinal), (3, 0));
        assert_eq!((p.kind, p.record_id.as_str()), (BodyKind::Html, "a"));
        assert!(src.next_page(&mut p).unwrap());
        assert_eq!((p.kind, p.id.ordinal), (BodyKind::Text, 1));
        assert!(!src.next_page(&mut p).unwrap());
        assert_eq!(src.stats().records, 2);
    }
}

//! Which responses are pages: only 200 responses (and records without a status) are
//! deduplicated; redirects, errors, meta-refresh stubs and soft 404s are counted by why.

use neardup_ingest::Page;
use neardup_text::Document;

/// Why a response is not a page to deduplicate. Only 200 responses are pages (and records
/// without a status: `resource` records, dataset rows, files); the others are counted by
/// these, never clustered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NotPage {
    /// An HTTP status other than 200 (redirects, client and server errors, ...).
    Status(u16),
    /// A 200 response that sends the reader on with `<meta http-equiv="refresh">` within 5 s.
    MetaRefresh,
    /// A 200 response whose title says the page was not found ("soft 404").
    Soft404,
}

impl NotPage {
    /// What a response is, when it is not a page; `None` for a page.
    pub fn of(page: &Page, doc: Option<&Document>) -> Option<NotPage> {
        match page.status {
            Some(200) | None => {}
            Some(s) => return Some(NotPage::Status(s)),
        }
        let doc = doc?;
        if doc.redirect_delay().is_some_and(|d| d <= 5) {
            return Some(NotPage::MetaRefresh);
        }
        doc.is_soft_404().then_some(NotPage::Soft404)
    }

    /// Its name in summaries: the status code, `meta-refresh` or `soft-404`.
    pub fn name(self) -> String {
        match self {
            NotPage::Status(s) => s.to_string(),
            NotPage::MetaRefresh => "meta-refresh".into(),
            NotPage::Soft404 => "soft-404".into(),
        }
    }
}

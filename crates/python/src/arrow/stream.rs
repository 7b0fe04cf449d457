//! A caller's Arrow stream read batch by batch as the engine's page source.

use super::{checked_col, checked_dates, column, PyErrLater, TextCol};
use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::ArrayRef;
use neardup_ingest::Page;
use pyo3::prelude::*;
use std::fmt::Write as _;

/// What a [`StreamSource`] saw, for the caller once the run is over: each batch's length and
/// id column, and the first bad row (the run stops there).
#[derive(Default)]
pub struct Streamed {
    pub lens: Vec<usize>,
    pub ids: Vec<ArrayRef>,
    pub error: Option<PyErrLater>,
}

/// A caller's Arrow stream as the engine's page source: batches are imported as the pipeline
/// asks for pages and dropped once read, so a stream larger than memory (a dataset scanner)
/// is deduplicated in the memory of its signatures. Only each batch's id column is kept.
pub struct StreamSource {
    reader: RecordBatchStreamReader,
    text: usize,
    url: Option<usize>,
    date: Option<usize>,
    id: Option<usize>,
    html: bool,
    /// The batch's text, URL and date columns and its rows.
    batch: Option<(TextCol, Option<TextCol>, Option<TextCol>, usize)>,
    at: usize,
    row: usize,
    stats: neardup_ingest::SourceStats,
    bytes: u64,
    shared: std::sync::Arc<std::sync::Mutex<Streamed>>,
}

impl StreamSource {
    /// A source over `reader`, checking the columns' names against its schema now (types,
    /// nulls and UTF-8 are checked batch by batch).
    pub fn new(
        reader: RecordBatchStreamReader,
        text: &str,
        url: Option<&str>,
        date: Option<&str>,
        id: Option<&str>,
        html: bool,
        shared: std::sync::Arc<std::sync::Mutex<Streamed>>,
    ) -> PyResult<StreamSource> {
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        let text = column(&schema, text, "text")?;
        let url = url.map(|u| column(&schema, u, "URL")).transpose()?;
        let date = date.map(|d| column(&schema, d, "date")).transpose()?;
        let id = id.and_then(|c| schema.index_of(c).ok());
        Ok(StreamSource {
            reader,
            text,
            url,
            date,
            id,
            html,
            batch: None,
            at: 0,
            row: 0,
            stats: Default::default(),
            bytes: 0,
            shared,
        })
    }

    /// The id column's index, when the stream has one.
    pub fn has_ids(&self) -> bool {
        self.id.is_some()
    }

    fn fail(&self, e: PyErrLater) -> neardup_ingest::IngestError {
        let detail = match &e {
            PyErrLater::Type(m) | PyErrLater::Value(m) => m.clone(),
        };
        self.shared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .error
            .get_or_insert(e);
        neardup_ingest::IngestError::Malformed(neardup_ingest::Problem {
            file: "data".into(),
            offset: self.row as u64,
            kind: neardup_ingest::ProblemKind::BadRecordStart,
            detail,
        })
    }

    /// The next batch's columns, checked; `Ok(false)` at the end of the stream.
    fn next_batch(&mut self) -> Result<bool, neardup_ingest::IngestError> {
        let b = match self.reader.next() {
            None => return Ok(false),
            Some(Err(e)) => {
                return Err(self.fail(PyErrLater::Value(format!("reading Arrow data: {e}"))))
            }
            Some(Ok(b)) => b,
        };
        let first = self.row;
        let check = |col: usize, name: &str, what: &str, utf8: bool| {
            checked_col(b.column(col), name, what, first, utf8)
        };
        let schema = b.schema();
        let name = |i: usize| schema.field(i).name().clone();
        let text =
            check(self.text, &name(self.text), "text", !self.html).map_err(|e| self.fail(e))?;
        let url = match self.url {
            Some(u) => Some(check(u, &name(u), "URL", true).map_err(|e| self.fail(e))?),
            None => None,
        };
        let date = match self.date {
            Some(d) => Some(checked_dates(b.column(d), &name(d), first).map_err(|e| self.fail(e))?),
            None => None,
        };
        let n = b.num_rows();
        {
            let mut sh = self.shared.lock().unwrap_or_else(|p| p.into_inner());
            sh.lens.push(n);
            if let Some(i) = self.id {
                // A copy: an imported column keeps its whole batch alive (the C interface
                // releases a batch's buffers together), and ids are small next to the text.
                let all = arrow_array::UInt32Array::from_iter_values(0..n as u32);
                let ids = arrow_select::take::take(b.column(i).as_ref(), &all, None);
                match ids {
                    Ok(a) => sh.ids.push(a),
                    Err(e) => {
                        drop(sh);
                        return Err(self.fail(PyErrLater::Value(format!("copying ids: {e}"))));
                    }
                }
            }
        }
        if self.row + n > u32::MAX as usize {
            return Err(self.fail(PyErrLater::Value(format!(
                "more than {} rows: split the input",
                u32::MAX
            ))));
        }
        self.batch = Some((text, url, date, n));
        self.at = 0;
        Ok(true)
    }
}

impl neardup_ingest::PageSource for StreamSource {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, neardup_ingest::IngestError> {
        loop {
            match &self.batch {
                Some((_, _, _, n)) if self.at < *n => break,
                _ => {
                    if !self.next_batch()? {
                        return Ok(false);
                    }
                }
            }
        }
        let (text, url, date, _) = self.batch.as_ref().expect("a batch with rows left");
        page.clear();
        page.body.extend_from_slice(text.get(self.at));
        if let Some(u) = url {
            page.url
                .push_str(std::str::from_utf8(u.get(self.at)).unwrap_or_default());
        }
        if let Some(d) = date {
            page.date.push_str(d.str_or_empty(self.at));
        }
        if self.html {
            page.set_html_kind();
        } else {
            page.set_text_kind();
        }
        let _ = write!(page.record_id, "{}", self.row);
        page.id = neardup_ingest::PageId {
            source: 0,
            ordinal: self.row as u32,
        };
        page.offset = self.row as u64;
        self.bytes += page.body.len() as u64;
        self.stats.record_type("page");
        self.stats.pages += 1;
        self.at += 1;
        self.row += 1;
        Ok(true)
    }

    fn stats(&self) -> &neardup_ingest::SourceStats {
        &self.stats
    }

    fn raw_position(&self) -> u64 {
        self.bytes
    }
}

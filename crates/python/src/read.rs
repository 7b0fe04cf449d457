//! `neardup.read`: crawl files as Arrow batches of pages, read by the engine's readers
//! (`neardup_ingest`), the body decoded to UTF-8 by its charset rules (`neardup_text`).

use crate::arrow::ArrowTable;
use arrow_array::builder::{StringBuilder, UInt16Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use neardup_ingest::{BodyKind, Page, PageSource, Problem, ReadOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

fn schema() -> SchemaRef {
    let s = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    Arc::new(Schema::new(vec![
        s("url", false),
        s("host", true),
        Field::new("status", DataType::UInt16, true),
        s("date", false),
        s("id", false),
        s("ip", false),
        s("mime", false),
        s("kind", false),
        s("payload_digest", false),
        s("charset", true),
        s("text", true),
        Field::new("body_bytes", DataType::UInt64, false),
        s("file", false),
        Field::new("offset", DataType::UInt64, false),
    ]))
}

/// The columns of one batch, reused from batch to batch.
struct Columns {
    url: StringBuilder,
    host: StringBuilder,
    status: UInt16Builder,
    date: StringBuilder,
    id: StringBuilder,
    ip: StringBuilder,
    mime: StringBuilder,
    kind: StringBuilder,
    digest: StringBuilder,
    charset: StringBuilder,
    text: StringBuilder,
    body_bytes: UInt64Builder,
    file: StringBuilder,
    offset: UInt64Builder,
    scratch: String,
}

impl Columns {
    fn new() -> Columns {
        Columns {
            url: StringBuilder::new(),
            host: StringBuilder::new(),
            status: UInt16Builder::new(),
            date: StringBuilder::new(),
            id: StringBuilder::new(),
            ip: StringBuilder::new(),
            mime: StringBuilder::new(),
            kind: StringBuilder::new(),
            digest: StringBuilder::new(),
            charset: StringBuilder::new(),
            text: StringBuilder::new(),
            body_bytes: UInt64Builder::new(),
            file: StringBuilder::new(),
            offset: UInt64Builder::new(),
            scratch: String::new(),
        }
    }

    fn push(&mut self, p: &Page, file: &str) {
        self.url.append_value(&p.url);
        self.host
            .append_option(neardup_text::host_of(&p.url).as_deref());
        self.status.append_option(p.status);
        self.date.append_value(&p.date);
        self.id.append_value(&p.record_id);
        self.ip.append_value(&p.ip);
        self.mime.append_value(&p.mime);
        self.kind.append_value(match p.kind {
            BodyKind::Html => "html",
            BodyKind::Text => "text",
            BodyKind::Other => "other",
        });
        self.digest.append_value(&p.payload_digest);
        match p.kind {
            BodyKind::Html | BodyKind::Text => {
                let ct = (!p.content_type.is_empty()).then_some(p.content_type.as_bytes());
                let (enc, _) = neardup_text::sniff(&p.body, ct);
                self.charset.append_value(enc.name());
                let text = neardup_text::decode(&p.body, enc, &mut self.scratch);
                self.text.append_value(text);
            }
            BodyKind::Other => {
                self.charset.append_null();
                self.text.append_null();
            }
        }
        self.body_bytes.append_value(p.body.len() as u64);
        self.file.append_value(file);
        self.offset.append_value(p.offset);
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.url.finish()),
            Arc::new(self.host.finish()),
            Arc::new(self.status.finish()),
            Arc::new(self.date.finish()),
            Arc::new(self.id.finish()),
            Arc::new(self.ip.finish()),
            Arc::new(self.mime.finish()),
            Arc::new(self.kind.finish()),
            Arc::new(self.digest.finish()),
            Arc::new(self.charset.finish()),
            Arc::new(self.text.finish()),
            Arc::new(self.body_bytes.finish()),
            Arc::new(self.file.finish()),
            Arc::new(self.offset.finish()),
        ]
    }
}

/// An iterator of Arrow batches over the pages of crawl files, in order.
#[pyclass(module = "neardup._neardup", name = "Reader")]
pub struct Reader {
    paths: Vec<PathBuf>,
    next_path: usize,
    current: Option<(Box<dyn PageSource>, String)>,
    opts: ReadOptions,
    batch_pages: usize,
    schema: SchemaRef,
    page: Page,
    problems: Vec<Problem>,
    skipped: u64,
    pages: u64,
}

impl Reader {
    /// Moves on to the next file; `Ok(false)` after the last. A source's problems are kept as
    /// it closes.
    fn open_next(&mut self) -> Result<bool, neardup_ingest::IngestError> {
        self.close_current();
        let Some(path) = self.paths.get(self.next_path) else {
            return Ok(false);
        };
        let i = self.next_path;
        self.next_path += 1;
        let src = neardup_ingest::open_source(path, None, i as u32, &self.opts)?;
        self.current = Some((src, path.display().to_string()));
        Ok(true)
    }

    fn close_current(&mut self) {
        if let Some((src, _)) = self.current.take() {
            let st = src.stats();
            self.skipped += st.problem_count();
            self.problems.extend(st.problems.iter().cloned());
        }
    }

    /// Up to `batch_pages` pages, or `None` at the end of the last file.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, neardup_ingest::IngestError> {
        let mut cols = Columns::new();
        let mut n = 0;
        while n < self.batch_pages {
            if self.current.is_none() && !self.open_next()? {
                break;
            }
            let (src, file) = self.current.as_mut().expect("a file is open");
            if src.next_page(&mut self.page)? {
                cols.push(&self.page, file);
                n += 1;
            } else {
                self.close_current();
            }
        }
        if n == 0 {
            return Ok(None);
        }
        self.pages += n as u64;
        let batch = RecordBatch::try_new(self.schema.clone(), cols.finish())
            .expect("columns built to the schema");
        Ok(Some(batch))
    }
}

#[pymethods]
impl Reader {
    #[new]
    #[pyo3(signature = (paths, *, batch_pages = 1024, strict = false, text_field = "text", html_field = "html", url_field = "url", id_field = "id", max_record_bytes = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        paths: Vec<PathBuf>,
        batch_pages: usize,
        strict: bool,
        text_field: &str,
        html_field: &str,
        url_field: &str,
        id_field: &str,
        max_record_bytes: Option<u64>,
    ) -> PyResult<Reader> {
        if paths.is_empty() {
            return Err(PyValueError::new_err("paths is empty"));
        }
        // Folders as every door reads them (the library's walk): their crawl files below, or
        // their HTML files; what is passed over and worth saying, as Python warnings.
        let expanded = neardup_engine::expand(&paths, None, false).map_err(crate::engine_err)?;
        let warnings = py.import_bound("warnings")?;
        for p in expanded.passed_over.iter().filter(|p| p.why.warns()) {
            let m = format!("{}: not read ({})", p.path.display(), p.reason());
            warnings.call_method1("warn", (m,))?;
        }
        let paths: Vec<PathBuf> = (expanded.inputs.iter())
            .filter_map(|i| i.as_path().map(std::path::Path::to_path_buf))
            .collect();
        if batch_pages == 0 {
            return Err(PyValueError::new_err("batch_pages 0: expected at least 1"));
        }
        let mut opts = ReadOptions {
            strict,
            ..ReadOptions::default()
        };
        opts.fields.text = text_field.into();
        opts.fields.html = html_field.into();
        opts.fields.url = url_field.into();
        opts.fields.id = id_field.into();
        if let Some(m) = max_record_bytes {
            opts.max_record_bytes = m;
        }
        Ok(Reader {
            paths,
            next_path: 0,
            current: None,
            opts,
            batch_pages,
            schema: schema(),
            page: Page::default(),
            problems: Vec::new(),
            skipped: 0,
            pages: 0,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<ArrowTable>> {
        let batch = py
            .allow_threads(|| self.next_batch())
            .map_err(|e| crate::engine_err(e.into()))?;
        Ok(batch.map(|b| ArrowTable::new(b.schema(), vec![b])))
    }

    /// Pages read so far.
    #[getter]
    fn pages(&self) -> u64 {
        self.pages
    }

    /// Records skipped so far (malformed), over the files finished.
    #[getter]
    fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The skipped records kept as examples: dicts of file, offset, kind, detail.
    #[getter]
    fn problems(&self, py: Python<'_>) -> PyResult<Vec<PyObject>> {
        self.problems
            .iter()
            .map(|p| {
                let d = pyo3::types::PyDict::new_bound(py);
                d.set_item("file", &p.file)?;
                d.set_item("offset", p.offset)?;
                d.set_item("kind", p.kind.to_string())?;
                d.set_item("detail", &p.detail)?;
                Ok(d.into_any().unbind())
            })
            .collect()
    }
}

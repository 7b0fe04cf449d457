//! `neardup.dedup`: the engine's dedup job over a caller's rows (Arrow or mappings) or crawl
//! files, with the CLI's settings under Python names; results as Arrow.

use crate::arrow::{column, import, is_arrow, ArrowRows, ArrowTable};
use crate::evidence::{EvidenceArrow, Target};
use crate::progress::PyProgress;
use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder, UInt64Builder};
use arrow_array::{Array, ArrayRef, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use neardup_engine::dedup::{self as job, DedupOptions, DedupSettings};
use neardup_engine::Input;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use std::sync::Arc;

/// The job's settings: the request the keyword arguments make, resolved by the library,
/// read with `threads` threads (all cores: `None`), `strict` about malformed records.
pub fn job_settings(
    kwargs: Option<&Bound<'_, PyDict>>,
    threads: Option<usize>,
    strict: bool,
) -> PyResult<DedupSettings> {
    let neardup_dedup::Resolved { params, config } = crate::settings::request(kwargs)?
        .resolve()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut opts = DedupOptions {
        params,
        config,
        ..DedupOptions::default()
    };
    if let Some(t) = threads {
        opts.pipeline.threads = t;
    }
    opts.pipeline.read.strict = strict;
    // An empty dataset has nothing to deduplicate: an empty table, not an error.
    opts.pipeline.allow_empty = true;
    DedupSettings::new(opts).map_err(crate::engine_err)
}

/// Runs the job with the GIL released.
fn run(
    py: Python<'_>,
    inputs: &[Input],
    settings: &DedupSettings,
    progress: &PyProgress,
) -> PyResult<job::DedupReport> {
    let report = progress.run(py, || job::run(inputs, settings, progress))?;
    progress.raise()?;
    report.map_err(crate::engine_err)
}

/// The per-row answer for `n` rows whose engine ids are their positions.
struct PerRow {
    cluster: Vec<Option<u64>>,
    size: Vec<u64>,
    canonical: Vec<usize>,
    evidence: Vec<Option<job::RemoveRow>>,
    /// Each row's language (the rows are the run's one input, a row's ordinal its position).
    language: Vec<neardup_text::language::Language>,
}

impl PerRow {
    /// The answer for each of the run's `n` rows, from the engine's typed placement of every
    /// clustered page (a row's record ordinal is its position; nothing is read back from ids).
    fn of(report: job::DedupReport, n: usize) -> PerRow {
        let mut r = PerRow {
            cluster: vec![None; n],
            size: vec![1; n],
            canonical: (0..n).collect(),
            evidence: (0..n).map(|_| None).collect(),
            language: (0..n)
                .map(|i| report.kept.language_of(0, i.min(u32::MAX as usize) as u32))
                .collect(),
        };
        let row = |id: neardup_ingest::PageId| {
            let p = id.ordinal as usize;
            (id.source == 0 && p < n).then_some(p)
        };
        let mut remove: Vec<Option<job::RemoveRow>> =
            report.tables.remove.into_iter().map(Some).collect();
        for (c, placed) in report.tables.clusters.iter().zip(&report.tables.placed) {
            let (Some(p), Some(k)) = (row(placed.page), row(placed.canonical)) else {
                continue;
            };
            r.cluster[p] = Some(c.cluster);
            r.size[p] = c.cluster_size;
            r.canonical[p] = k;
            r.evidence[p] = placed
                .remove_row
                .and_then(|i| remove.get_mut(i as usize).and_then(Option::take));
        }
        r
    }
}

/// The output table: one batch per input batch, the caller's ids as they were (shared), the
/// canonical row's id beside them.
fn per_row_table(ids: Option<&[ArrayRef]>, lens: &[usize], r: &PerRow) -> PyResult<ArrowTable> {
    let id_type = ids
        .and_then(|a| a.first())
        .map_or(DataType::UInt64, |a| a.data_type().clone());
    let schema: SchemaRef = Arc::new(Schema::new(
        [
            Field::new("id", id_type.clone(), true),
            Field::new("row", DataType::UInt64, false),
            Field::new("language", DataType::Utf8, false),
            Field::new("cluster", DataType::UInt64, true),
            Field::new("cluster_size", DataType::UInt64, false),
            Field::new("canonical", id_type, true),
            Field::new("canonical_row", DataType::UInt64, false),
            Field::new("keep", DataType::Boolean, false),
        ]
        .into_iter()
        .chain(EvidenceArrow::fields(Target::Python, true))
        .collect::<Vec<_>>(),
    ));
    let mut batches = Vec::with_capacity(lens.len());
    let mut start = 0usize;
    for (b, &len) in lens.iter().enumerate() {
        let rows = start..start + len;
        let row: ArrayRef = Arc::new(UInt64Array::from_iter_values(
            rows.clone().map(|i| i as u64),
        ));
        let (id, canonical): (ArrayRef, ArrayRef) = match ids {
            Some(ids) => {
                let canonical = ids_at(ids, rows.clone().map(|i| r.canonical[i]))?;
                (ids[b].clone(), canonical)
            }
            None => (
                row.clone(),
                Arc::new(UInt64Array::from_iter_values(
                    rows.clone().map(|i| r.canonical[i] as u64),
                )),
            ),
        };
        let mut cluster = UInt64Builder::with_capacity(len);
        let mut size = UInt64Builder::with_capacity(len);
        let mut canonical_row = UInt64Builder::with_capacity(len);
        let mut keep = BooleanBuilder::with_capacity(len);
        let mut evidence = EvidenceArrow::new(Target::Python, len);
        for i in rows {
            cluster.append_option(r.cluster[i]);
            size.append_value(r.size[i]);
            canonical_row.append_value(r.canonical[i] as u64);
            keep.append_value(r.canonical[i] == i);
            evidence.push(r.evidence[i].as_ref().map(|e| e.evidence_columns()));
        }
        let language: ArrayRef = Arc::new(arrow_array::StringArray::from_iter_values(
            r.language[start..start + len].iter().map(|l| l.code()),
        ));
        let mut cols: Vec<ArrayRef> = vec![
            id,
            row,
            language,
            Arc::new(cluster.finish()),
            Arc::new(size.finish()),
            canonical,
            Arc::new(canonical_row.finish()),
            Arc::new(keep.finish()),
        ];
        cols.extend(evidence.finish());
        batches.push(
            RecordBatch::try_new(schema.clone(), cols)
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
        );
        start += len;
    }
    Ok(ArrowTable::new(schema, batches))
}

/// The ids of `rows` (positions over all batches, in order) from each batch's id column.
pub fn ids_at(ids: &[ArrayRef], rows: impl Iterator<Item = usize>) -> PyResult<ArrayRef> {
    let mut starts = Vec::with_capacity(ids.len());
    let mut n = 0;
    for a in ids {
        starts.push(n);
        n += a.len();
    }
    let picks: Vec<(usize, usize)> = rows
        .map(|i| {
            let b = starts.partition_point(|&s| s <= i) - 1;
            (b, i - starts[b])
        })
        .collect();
    let refs: Vec<&dyn Array> = ids.iter().map(|a| a.as_ref()).collect();
    arrow_select::interleave::interleave(&refs, &picks)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The clusters table of a run over crawl files: one row per clustered page, as
/// `neardup dedup` writes `clusters`.
fn clusters_table(report: &job::DedupReport) -> PyResult<ArrowTable> {
    let rows = &report.tables.clusters;
    let schema: SchemaRef = Arc::new(Schema::new(
        [
            Field::new("url", DataType::Utf8, false),
            Field::new("id", DataType::Utf8, false),
            Field::new("date", DataType::Utf8, false),
            Field::new("language", DataType::Utf8, false),
            Field::new("file", DataType::Utf8, false),
            Field::new("offset", DataType::UInt64, true),
            Field::new("cluster", DataType::UInt64, false),
            Field::new("cluster_size", DataType::UInt64, false),
            Field::new("canonical_url", DataType::Utf8, false),
            Field::new("keep", DataType::Boolean, false),
            Field::new("cluster_min_estimated_jaccard", DataType::Float64, false),
        ]
        .into_iter()
        .chain(EvidenceArrow::fields(Target::Python, false))
        .collect::<Vec<_>>(),
    ));
    let strings = |f: fn(&job::ClusterRow) -> &str| -> ArrayRef {
        Arc::new(arrow_array::StringArray::from_iter_values(
            rows.iter().map(f),
        ))
    };
    let mut evidence = EvidenceArrow::new(Target::Python, rows.len());
    for r in rows {
        evidence.push(Some(r.evidence_columns()));
    }
    let mut cols: Vec<ArrayRef> = vec![
        strings(|r| &r.url),
        strings(|r| &r.id),
        strings(|r| &r.date),
        strings(|r| &r.language),
        strings(|r| &r.file),
        Arc::new(UInt64Array::from(
            rows.iter().map(|r| r.offset).collect::<Vec<_>>(),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.cluster),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.cluster_size),
        )),
        strings(|r| &r.canonical_url),
        Arc::new(arrow_array::BooleanArray::from(
            rows.iter().map(|r| r.canonical).collect::<Vec<_>>(),
        )),
        Arc::new(arrow_array::Float64Array::from_iter_values(
            rows.iter().map(|r| r.cluster_min_estimated_jaccard),
        )),
    ];
    cols.extend(evidence.finish());
    let batch = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(ArrowTable::new(schema, vec![batch]))
}

/// A value of a mapping's text column: `str`, or `bytes` of valid UTF-8.
fn text_of<'a>(
    v: &'a Bound<'_, PyAny>,
    i: usize,
    col: &str,
) -> PyResult<std::borrow::Cow<'a, str>> {
    if v.is_none() {
        return Err(PyValueError::new_err(format!(
            "row {i}: {col} is None (give every row a text, or drop the row)"
        )));
    }
    if let Ok(s) = v.downcast::<PyString>() {
        return s.to_cow();
    }
    if let Ok(b) = v.downcast::<PyBytes>() {
        return std::str::from_utf8(b.as_bytes())
            .map(std::borrow::Cow::Borrowed)
            .map_err(|e| PyValueError::new_err(format!("row {i}: {col} is not valid UTF-8: {e}")));
    }
    Err(PyTypeError::new_err(format!(
        "row {i}: {col} is {}, expected str or bytes",
        v.get_type().name()?
    )))
}

/// An iterable of mappings as one Arrow batch (text and URL copied once; ids as int64 when
/// every row's id is an int, as strings when every one is a str).
fn batch_of_mappings(
    records: &Bound<'_, PyAny>,
    text: &str,
    id: Option<&str>,
    url: Option<&str>,
    date: Option<&str>,
) -> PyResult<(SchemaRef, Vec<RecordBatch>, bool)> {
    let mut texts = StringBuilder::new();
    let mut urls = StringBuilder::new();
    let mut dates = StringBuilder::new();
    let mut int_ids = Int64Builder::new();
    let mut str_ids = StringBuilder::new();
    let (mut ints, mut strs, mut n) = (0usize, 0usize, 0usize);
    for (i, row) in records.iter()?.enumerate() {
        let row = row?;
        let get = |col: &str| {
            row.get_item(col).map_err(|_| {
                pyo3::exceptions::PyKeyError::new_err(format!("row {i} has no {col:?} column"))
            })
        };
        let t = get(text)?;
        texts.append_value(text_of(&t, i, text)?);
        if let Some(col) = url {
            let u = get(col)?;
            urls.append_value(text_of(&u, i, col)?);
        }
        if let Some(col) = date {
            match row.get_item(col) {
                Ok(v) if !v.is_none() => dates.append_value(text_of(&v, i, col)?),
                _ => dates.append_null(),
            }
        }
        if let Some(col) = id {
            match row.get_item(col) {
                Ok(v) if !v.is_none() => {
                    if let Ok(s) = v.downcast::<PyString>() {
                        str_ids.append_value(s.to_cow()?);
                        int_ids.append_null();
                        strs += 1;
                    } else if let Ok(x) = v.extract::<i64>() {
                        int_ids.append_value(x);
                        str_ids.append_null();
                        ints += 1;
                    } else {
                        return Err(PyTypeError::new_err(format!(
                            "row {i}: {col} is {}, expected int or str",
                            v.get_type().name()?
                        )));
                    }
                }
                _ => {
                    int_ids.append_null();
                    str_ids.append_null();
                }
            }
        }
        n += 1;
    }
    if ints > 0 && strs > 0 {
        return Err(PyTypeError::new_err(format!(
            "column {:?} mixes ints ({ints} rows) and strs ({strs} rows)",
            id.unwrap_or_default()
        )));
    }
    let mut fields = vec![Field::new("text", DataType::Utf8, false)];
    let mut cols: Vec<ArrayRef> = vec![Arc::new(texts.finish())];
    if url.is_some() {
        fields.push(Field::new("url", DataType::Utf8, false));
        cols.push(Arc::new(urls.finish()));
    }
    if date.is_some() {
        fields.push(Field::new("date", DataType::Utf8, true));
        cols.push(Arc::new(dates.finish()));
    }
    let has_ids = ints + strs > 0;
    if has_ids {
        if ints > 0 {
            fields.push(Field::new("id", DataType::Int64, true));
            cols.push(Arc::new(int_ids.finish()));
        } else {
            fields.push(Field::new("id", DataType::Utf8, true));
            cols.push(Arc::new(str_ids.finish()));
        }
    }
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    debug_assert_eq!(batch.num_rows(), n);
    Ok((schema, vec![batch], has_ids))
}

/// Near-duplicate clusters of a dataset or of crawl files, the `neardup dedup` job with the
/// same defaults and settings, run in Rust with the GIL released.
#[pyfunction]
#[pyo3(signature = (
    data = None, text = "text", id = Some("id"), url = None, *, date = None, html = false,
    paths = None, threads = None, strict = false, progress = None, write_kept = None,
    kept_counts = false, kept_language = false, reference = None, **settings
))]
#[allow(clippy::too_many_arguments)]
pub fn dedup(
    py: Python<'_>,
    data: Option<&Bound<'_, PyAny>>,
    text: &str,
    id: Option<&str>,
    url: Option<&str>,
    date: Option<&str>,
    html: bool,
    paths: Option<Vec<std::path::PathBuf>>,
    threads: Option<usize>,
    strict: bool,
    progress: Option<PyObject>,
    write_kept: Option<std::path::PathBuf>,
    kept_counts: bool,
    kept_language: bool,
    reference: Option<Vec<std::path::PathBuf>>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<ArrowTable> {
    let mut settings = job_settings(settings, threads, strict)?;
    let progress = PyProgress::new(progress);
    let source = Source::of(data, paths)?;
    if (kept_counts || kept_language) && write_kept.is_none() {
        return Err(PyValueError::new_err(
            "kept_counts=True and kept_language=True each needs write_kept=DIR",
        ));
    }
    match source {
        Source::Paths(paths) => {
            if write_kept.is_some() {
                neardup_clean::check_inputs(&paths).map_err(crate::clean_err)?;
            }
            let mut inputs: Vec<Input> = progress.inputs(&paths)?;
            // Reference inputs after the others (never written with write_kept).
            if let Some(refs) = &reference {
                let refs = progress.inputs(refs)?;
                let mut opts = settings.options().clone();
                opts.references = (inputs.len()..inputs.len() + refs.len()).collect();
                inputs.extend(refs);
                settings = DedupSettings::new(opts).map_err(crate::engine_err)?;
            }
            let report = run(py, &inputs, &settings, &progress)?;
            if let Some(dir) = &write_kept {
                let guard = neardup_report::OutputGuard::new(&paths);
                let options = neardup_clean::KeptOptions {
                    counts: kept_counts,
                    language: kept_language,
                };
                py.allow_threads(|| {
                    neardup_clean::write_kept(&paths, &report.kept, dir, &guard, &options)
                })
                .map_err(crate::clean_err)?;
            }
            clusters_table(&report)
        }
        Source::Rows(_) if reference.is_some() => Err(PyValueError::new_err(
            "reference= names files read with paths=; for data, put the reference rows first \
             with keep=\"first\"",
        )),
        Source::Rows(_) if write_kept.is_some() => Err(PyValueError::new_err(
            "write_kept= writes crawl files' records (paths=); for data, \
             data.filter(result[\"keep\"]) is the kept corpus",
        )),
        Source::Rows(data) => {
            // An Arrow stream is read as it comes: only signatures and ids stay in memory.
            if let Some(reader) = crate::arrow::import_stream(data)? {
                // For progress: the text column's Arrow bytes, when the data can tell (a
                // table's column has `nbytes`); a stream's size is not known before.
                let bytes = data
                    .get_item(text)
                    .and_then(|c| c.getattr("nbytes"))
                    .and_then(|n| n.extract::<u64>())
                    .unwrap_or(0);
                let cols = (text, id, url, date);
                return stream(py, reader, cols, html, bytes, &settings, &progress);
            }
            let d = Data::of(data, text, id, url, date, html)?;
            finish(py, &d, &settings, &progress)
        }
    }
}

/// Why two pages of a dedup run matched or did not, as `neardup dedup --explain URL_A URL_B
/// --json -` writes it: the run over crawl files (`paths`) or rows (`data`, as `dedup` takes
/// them; its URL column names the pages), then the pair judged rule by rule.
#[pyfunction]
#[pyo3(signature = (
    url_a, url_b, data = None, text = "text", id = Some("id"), url = None, *, html = false,
    paths = None, threads = None, strict = false, progress = None, **settings
))]
#[allow(clippy::too_many_arguments)]
pub fn explain(
    py: Python<'_>,
    url_a: &str,
    url_b: &str,
    data: Option<&Bound<'_, PyAny>>,
    text: &str,
    id: Option<&str>,
    url: Option<&str>,
    html: bool,
    paths: Option<Vec<std::path::PathBuf>>,
    threads: Option<usize>,
    strict: bool,
    progress: Option<PyObject>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyObject> {
    let settings = job_settings(settings, threads, strict)?;
    let progress = PyProgress::new(progress);
    let inputs = match Source::of(data, paths)? {
        Source::Paths(paths) => progress.inputs(&paths)?,
        Source::Rows(data) => {
            let d = Data::of(data, text, id, url, None, html)?;
            vec![Input::rows("data", Arc::new(d.rows()?))]
        }
    };
    let e = progress.run(py, || {
        job::explain::explain(&inputs, &settings, url_a, url_b, &progress)
    })?;
    progress.raise()?;
    let e = e.map_err(crate::engine_err)?;
    let json = serde_json::to_string(&e).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(py
        .import_bound("json")?
        .call_method1("loads", (json,))?
        .unbind())
}

/// What a job reads: the caller's rows (any object `Data::of` or a stream takes), or crawl
/// files; exactly one of the two.
pub enum Source<'a, 'py> {
    Rows(&'a Bound<'py, PyAny>),
    Paths(Vec<std::path::PathBuf>),
}

impl<'a, 'py> Source<'a, 'py> {
    pub fn of(
        data: Option<&'a Bound<'py, PyAny>>,
        paths: Option<Vec<std::path::PathBuf>>,
    ) -> PyResult<Source<'a, 'py>> {
        match (data, paths) {
            (Some(_), Some(_)) => Err(PyTypeError::new_err("give data or paths=, not both")),
            (None, None) => Err(PyTypeError::new_err(
                "give data (an Arrow table, a data frame or an iterable of mappings) or paths=",
            )),
            (None, Some(p)) if p.is_empty() => Err(PyValueError::new_err("paths= is empty")),
            (None, Some(p)) => Ok(Source::Paths(p)),
            (Some(d), None)
                if d.is_instance_of::<pyo3::types::PyString>()
                    || d.is_instance_of::<pyo3::types::PyBytes>() =>
            {
                Err(PyTypeError::new_err(
                    "data is a string: give rows (an Arrow table, a data frame or an iterable of \
                     mappings with a text column), or crawl files as paths=[...]",
                ))
            }
            (Some(d), None) => Ok(Source::Rows(d)),
        }
    }
}

/// A caller's rows as Arrow batches, with the names of their text, id and URL columns.
pub struct Data {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
    pub text: String,
    /// The id column, when there is one.
    pub id: Option<String>,
    pub url: Option<String>,
    /// The capture-date column, when there is one.
    pub date: Option<String>,
    /// The text column holds HTML.
    pub html: bool,
}

impl Data {
    /// An Arrow producer as it is (shared), or an iterable of mappings copied once into one
    /// batch. A missing id column means positions.
    pub fn of(
        data: &Bound<'_, PyAny>,
        text: &str,
        id: Option<&str>,
        url: Option<&str>,
        date: Option<&str>,
        html: bool,
    ) -> PyResult<Data> {
        if is_arrow(data) {
            let (schema, batches) = import(data)?;
            let id = id
                .filter(|c| schema.index_of(c).is_ok())
                .map(str::to_string);
            return Ok(Data {
                schema,
                batches,
                text: text.to_string(),
                id,
                url: url.map(str::to_string),
                date: date.map(str::to_string),
                html,
            });
        }
        let (schema, batches, has_ids) = batch_of_mappings(data, text, id, url, date)?;
        Ok(Data {
            schema,
            batches,
            text: "text".into(),
            id: has_ids.then(|| "id".into()),
            url: url.map(|_| "url".into()),
            date: date.map(|_| "date".into()),
            html,
        })
    }

    /// The rows as the engine's pages (ids: positions).
    pub fn rows(&self) -> PyResult<ArrowRows> {
        ArrowRows::new(
            &self.schema,
            &self.batches,
            &self.text,
            self.url.as_deref(),
            self.date.as_deref(),
            self.html,
        )
    }

    /// Each batch's id column, when there is one, checked ([`crate::arrow::check_ids`]).
    pub fn ids(&self) -> PyResult<Option<Vec<ArrayRef>>> {
        match &self.id {
            Some(c) => {
                let c = column(&self.schema, c, "ids")?;
                let ids: Vec<ArrayRef> = self.batches.iter().map(|b| b.column(c).clone()).collect();
                crate::arrow::check_ids(&ids)?;
                Ok(Some(ids))
            }
            None => Ok(None),
        }
    }

    /// Rows per batch.
    pub fn lens(&self) -> Vec<usize> {
        self.batches.iter().map(|b| b.num_rows()).collect()
    }
}

/// Runs the job over an Arrow stream, batch by batch, and answers one row per input row.
#[allow(clippy::too_many_arguments)]
fn stream(
    py: Python<'_>,
    reader: arrow_array::ffi_stream::RecordBatchStreamReader,
    (text, id, url, date): (&str, Option<&str>, Option<&str>, Option<&str>),
    html: bool,
    bytes: u64,
    settings: &DedupSettings,
    progress: &PyProgress,
) -> PyResult<ArrowTable> {
    let shared = Arc::new(std::sync::Mutex::new(crate::arrow::Streamed::default()));
    let src = crate::arrow::StreamSource::new(reader, text, url, date, id, html, shared.clone())?;
    let has_ids = src.has_ids();
    let input = Input::stream("data", Box::new(src), bytes);
    let report = progress.run(py, || job::run(&[input], settings, progress))?;
    let seen = std::mem::take(&mut *shared.lock().unwrap_or_else(|p| p.into_inner()));
    if let Some(e) = seen.error {
        return Err(e.into_pyerr());
    }
    progress.raise()?;
    let report = report.map_err(crate::engine_err)?;
    if has_ids {
        crate::arrow::check_ids(&seen.ids)?;
    }
    let n = seen.lens.iter().sum();
    let per_row = PerRow::of(report, n);
    per_row_table(has_ids.then_some(&seen.ids[..]), &seen.lens, &per_row)
}

/// Runs the job over a caller's rows and answers one row per input row.
fn finish(
    py: Python<'_>,
    d: &Data,
    settings: &DedupSettings,
    progress: &PyProgress,
) -> PyResult<ArrowTable> {
    let rows = d.rows()?;
    let n = neardup_ingest::PageRows::len(&rows);
    let ids = d.ids()?;
    let report = run(
        py,
        &[Input::rows("data", Arc::new(rows))],
        settings,
        progress,
    )?;
    let per_row = PerRow::of(report, n);
    per_row_table(ids.as_deref(), &d.lens(), &per_row)
}

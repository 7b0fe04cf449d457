//! `neardup.Index`: the persistent index (`neardup index`) from Python, for incremental dedup
//! across datasets: create or open a folder, add rows or crawl files under a label, query rows
//! or crawl files against everything added before. Every call is the engine's index job.

use crate::arrow::ArrowTable;
use crate::dedup::{ids_at, Data, Source};
use crate::engine_err;
use crate::evidence::{EvidenceArrow, Target};
use crate::progress::PyProgress;
use arrow_array::builder::{BooleanBuilder, StringBuilder, UInt64Builder};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use neardup_engine::{Input, PipelineConfig};
use neardup_index::{AddOptions, QueryOptions, QueryRow};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Arc;

/// A persistent, crash-safe near-duplicate index in a folder (the CLI's `neardup index`).
#[pyclass(module = "neardup._neardup", name = "Index")]
pub struct Index {
    index: neardup_index::Index,
    /// Adds through this object from several threads take turns (the folder's lock is one
    /// writer per process and refuses a second at once; a second thread waits instead).
    adding: std::sync::Mutex<()>,
}

/// A serializable report as Python values (through JSON: dicts, lists, numbers, strings).
fn to_py(py: Python<'_>, v: &impl serde::Serialize) -> PyResult<PyObject> {
    let text = serde_json::to_string(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(py
        .import_bound("json")?
        .call_method1("loads", (text,))?
        .unbind())
}

fn pipeline(threads: Option<usize>, strict: bool) -> PipelineConfig {
    let mut p = PipelineConfig::default();
    if let Some(t) = threads {
        p.threads = t;
    }
    p.read.strict = strict;
    p.allow_empty = true;
    p
}

#[pymethods]
impl Index {
    /// Creates an empty index in the folder `path` (made if missing; refused if it holds an
    /// index), with `dedup`'s settings (`threshold`, `containment`, `different_titles_need`,
    /// `shingle`, `wrap`, `num_perm`, `content`, ...; the library's defaults for the rest),
    /// keeping `minvalue_bits` of each minvalue, `set_bits` of each member of a kept shingle
    /// set and, with `timelines`, capture prints. With
    /// `shards` (folders relative to `path`, or absolute), a set of shards read and added to
    /// as one index.
    #[staticmethod]
    #[pyo3(signature = (path, *, minvalue_bits=None, set_bits=None, timelines=None, shards=None, **settings))]
    #[allow(clippy::too_many_arguments)]
    fn create(
        py: Python<'_>,
        path: PathBuf,
        minvalue_bits: Option<u32>,
        set_bits: Option<u32>,
        timelines: Option<bool>,
        shards: Option<Vec<PathBuf>>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Index> {
        let request = crate::settings::request(settings)?;
        let storage = neardup_index::Storage::new(minvalue_bits, set_bits, timelines)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let index = py
            .allow_threads(|| match &shards {
                Some(s) => neardup_index::Index::create_sharded(&path, s, &request, storage),
                None => neardup_index::Index::create(&path, &request, storage),
            })
            .map_err(engine_err)?;
        Ok(Index {
            index,
            adding: std::sync::Mutex::new(()),
        })
    }

    /// Opens the index in the folder `path` (its manifest is read and checked).
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Index> {
        let index = py
            .allow_threads(|| neardup_index::Index::open(&path))
            .map_err(engine_err)?;
        Ok(Index {
            index,
            adding: std::sync::Mutex::new(()),
        })
    }

    /// The folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.index.dir().to_path_buf()
    }

    /// Adds rows (their `id` column's values become the pages' ids) or crawl files under the
    /// crawl `label`, as one commit: all of it is there, or none. A record the index already
    /// holds (the same WARC-Record-ID, or the same URL, payload digest and date, and id for
    /// rows) is not added again, and a file added before is refused unless `again=True`.
    /// Returns what was added: `pages`, `held` (pages not added as already held),
    /// `first_id`, `generation`, `skipped` (records the readers skipped, with file, offset
    /// and reason).
    #[pyo3(signature = (data = None, text = "text", id = Some("id"), url = None, *, html = false, paths = None, label = "python", threads = None, strict = false, again = false, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn add(
        &self,
        py: Python<'_>,
        data: Option<&Bound<'_, PyAny>>,
        text: &str,
        id: Option<&str>,
        url: Option<&str>,
        html: bool,
        paths: Option<Vec<PathBuf>>,
        label: &str,
        threads: Option<usize>,
        strict: bool,
        again: bool,
        progress: Option<PyObject>,
    ) -> PyResult<PyObject> {
        let progress = PyProgress::new(progress);
        let input = match Source::of(data, paths)? {
            Source::Paths(p) => progress.inputs(&p)?,
            Source::Rows(d) => {
                let d = Data::of(d, text, id, url, None, html)?;
                let mut rows = d.rows()?;
                if let Some(c) = &d.id {
                    rows = rows.with_ids(&d.batches, crate::arrow::column(&d.schema, c, "ids")?)?;
                }
                vec![Input::rows("data", Arc::new(rows))]
            }
        };
        let mut opts = AddOptions::new(pipeline(threads, strict), label);
        opts.again = again;
        let r = progress.run(py, || {
            let _turn = self.adding.lock().unwrap_or_else(|p| p.into_inner());
            self.index.add(&input, &opts, &progress)
        })?;
        progress.raise()?;
        let r = r.map_err(engine_err)?;
        let out = pyo3::types::PyDict::new_bound(py);
        out.set_item("pages", r.pages)?;
        out.set_item("held", r.held)?;
        out.set_item("first_id", r.first_id)?;
        out.set_item("generation", r.generation)?;
        out.set_item("already_added", r.already_added)?;
        out.set_item("shard", r.shard)?;
        out.set_item(
            "merged_segments",
            r.merged.map_or(0, |m| m.segments_dropped),
        )?;
        out.set_item("skipped", to_py(py, &r.skipped)?)?;
        Ok(out.into_any().unbind())
    }

    /// Queries rows or crawl files against the index as it is when the query begins: one row
    /// per match, page by page in input order, best first, with the matched page's id, URL,
    /// date and crawl label and the evidence (`rule`, `estimated_jaccard`, `exact_jaccard`,
    /// `containment`, `identical_body`). For rows, `row` and `id` name the queried row; for
    /// files, `url` and `id`. `max_matches` keeps the likeliest matches of each page (whether
    /// a page matches stays exact).
    #[pyo3(signature = (data = None, text = "text", id = Some("id"), url = None, *, html = false, paths = None, max_matches = None, threads = None, strict = false, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn query(
        &self,
        py: Python<'_>,
        data: Option<&Bound<'_, PyAny>>,
        text: &str,
        id: Option<&str>,
        url: Option<&str>,
        html: bool,
        paths: Option<Vec<PathBuf>>,
        max_matches: Option<usize>,
        threads: Option<usize>,
        strict: bool,
        progress: Option<PyObject>,
    ) -> PyResult<ArrowTable> {
        let progress = PyProgress::new(progress);
        let (input, data) = match Source::of(data, paths)? {
            Source::Paths(p) => (progress.inputs(&p)?, None),
            Source::Rows(d) => {
                let d = Data::of(d, text, id, url, None, html)?;
                (vec![Input::rows("data", Arc::new(d.rows()?))], Some(d))
            }
        };
        let mut opts = QueryOptions::new(pipeline(threads, strict));
        opts.max_matches = max_matches;
        let mut rows: Vec<(u32, QueryRow)> = Vec::new();
        let r = progress.run(py, || {
            self.index.query(&input, &opts, &progress, |record, row| {
                rows.push((record.ordinal, row));
                Ok(())
            })
        })?;
        progress.raise()?;
        r.map_err(engine_err)?;
        query_table(&rows, data.as_ref())
    }

    /// What the index holds: parameters, matching, pages, segments, bytes, per crawl label.
    fn stats(&self, py: Python<'_>) -> PyResult<PyObject> {
        let s = py
            .allow_threads(|| self.index.stats())
            .map_err(engine_err)?;
        to_py(py, &s)
    }

    /// A cluster's members: the held page `id` and every held page it matches, in id order,
    /// `limit` from `offset` (`GET /v1/cluster/{id}`, `neardup index cluster`); `None` when
    /// the index holds no page `id`.
    #[pyo3(signature = (id, offset = 0, limit = 100))]
    fn cluster(&self, py: Python<'_>, id: u64, offset: usize, limit: usize) -> PyResult<PyObject> {
        let got = py
            .allow_threads(|| -> Result<_, neardup_engine::Error> {
                let mut l = self.index.lookup(&PipelineConfig::default())?;
                Ok(l.cluster(id, offset, limit)?
                    .map(neardup_index::ClusterAnswer::from))
            })
            .map_err(engine_err)?;
        match got {
            Some(c) => to_py(py, &c),
            None => Ok(py.None()),
        }
    }

    /// The held pages whose payload has each digest (`neardup index digest`, `GET
    /// /v1/digest`): SHA-1 or SHA-256, base32 or hex, prefixed or not.
    fn digests(&self, py: Python<'_>, digests: Vec<String>) -> PyResult<PyObject> {
        let rows = py
            .allow_threads(|| self.index.digests(&digests))
            .map_err(engine_err)?;
        to_py(py, &rows)
    }

    /// One URL's timeline from the index's captures (`neardup index changes --json`,
    /// `GET /v1/changes`).
    fn changes(&self, py: Python<'_>, url: String) -> PyResult<PyObject> {
        let t = py
            .allow_threads(|| -> Result<_, neardup_engine::Error> {
                let held = self.index.snapshot()?.held_captures(&url)?;
                neardup_engine::changes::url_timeline(&url, held, &Default::default())
            })
            .map_err(engine_err)?;
        to_py(py, &t)
    }

    fn __repr__(&self) -> String {
        format!(
            "neardup.Index({:?})",
            self.index.dir().display().to_string()
        )
    }
}

/// Query rows (each with its page's record ordinal: for a caller's rows, the row) as an Arrow
/// table; for a caller's rows, `row` and the caller's `id` (taken from the id column, or the
/// row's position) lead.
fn query_table(matches: &[(u32, QueryRow)], data: Option<&Data>) -> PyResult<ArrowTable> {
    let rows: &[&QueryRow] = &matches.iter().map(|(_, r)| r).collect::<Vec<_>>();
    let err = |e: arrow_schema::ArrowError| PyValueError::new_err(e.to_string());
    let mut fields = Vec::new();
    let mut cols: Vec<ArrayRef> = Vec::new();
    match data {
        Some(d) => {
            let row_of: Vec<usize> = matches.iter().map(|&(at, _)| at as usize).collect();
            let mut row = UInt64Builder::with_capacity(rows.len());
            row.extend(row_of.iter().map(|&i| Some(i as u64)));
            let row: ArrayRef = Arc::new(row.finish());
            let id = match d.ids()? {
                Some(ids) => ids_at(&ids, row_of.iter().copied())?,
                None => row.clone(),
            };
            fields.push(Field::new("row", DataType::UInt64, false));
            fields.push(Field::new("id", id.data_type().clone(), true));
            cols.push(row);
            cols.push(id);
        }
        None => {
            let mut url = StringBuilder::new();
            let mut id = StringBuilder::new();
            for r in rows {
                url.append_value(&r.url);
                id.append_value(&r.id);
            }
            fields.push(Field::new("url", DataType::Utf8, false));
            fields.push(Field::new("id", DataType::Utf8, false));
            cols.push(Arc::new(url.finish()));
            cols.push(Arc::new(id.finish()));
        }
    }
    let strings = |f: fn(&QueryRow) -> &str| -> ArrayRef {
        Arc::new(arrow_array::StringArray::from_iter_values(
            rows.iter().map(|r| f(r)),
        ))
    };
    let mut page = UInt64Builder::with_capacity(rows.len());
    let mut body = BooleanBuilder::with_capacity(rows.len());
    let mut payload = BooleanBuilder::with_capacity(rows.len());
    let mut evidence = EvidenceArrow::new(Target::Python, rows.len());
    for r in rows {
        page.append_value(r.match_page);
        body.append_value(r.identical_body);
        payload.append_value(r.identical_payload);
        evidence.push(Some(r.evidence_columns()));
    }
    for (name, col, nullable) in [
        ("match_id", strings(|r| &r.match_id), false),
        ("match_url", strings(|r| &r.match_url), false),
        ("match_date", strings(|r| &r.match_date), false),
        ("match_label", strings(|r| &r.match_label), false),
        ("match_page", Arc::new(page.finish()) as ArrayRef, false),
        ("identical_body", Arc::new(body.finish()), false),
        ("identical_payload", Arc::new(payload.finish()), false),
    ] {
        fields.push(Field::new(name, col.data_type().clone(), nullable));
        cols.push(col);
    }
    fields.extend(EvidenceArrow::fields(Target::Python, false));
    cols.extend(evidence.finish());
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), cols).map_err(err)?;
    Ok(ArrowTable::new(schema, vec![batch]))
}

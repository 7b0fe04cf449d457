//! `neardup.spark.add_to_index`'s native half: an add to the persistent index in parts
//! (`neardup_index::parts`). Executors sketch their batches into page records and
//! write their part's segments into the index folder; the driver holds the writer lock and
//! makes the parts live in one manifest commit.

use crate::arrow::{column, ArrowTable};
use crate::dedup::Data;
use crate::engine_err;
use arrow_array::builder::{BinaryBuilder, Int64Builder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use neardup_engine::{Input, PipelineConfig};
use neardup_index::parts::{self, PartWriter, PartsAdd, WrittenPart};
use neardup_index::{CatalogPage, SegmentEntry};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::sync::Arc;

/// The pages of one batch (columns `text`, `id` as strings, optional `url`) sketched as an add
/// to the index in `path` does: a table of `row` (the page's row in the batch) and `page` (its
/// record, `CatalogPage::encode_checked`; the row's id is the page's id), and
/// the number of rows that are not pages the index holds.
#[pyfunction]
#[pyo3(signature = (path, batch, text, id, url = None, html = false, strict = false))]
#[allow(clippy::too_many_arguments)]
pub fn index_sketch(
    py: Python<'_>,
    path: PathBuf,
    batch: &Bound<'_, PyAny>,
    text: &str,
    id: &str,
    url: Option<&str>,
    html: bool,
    strict: bool,
) -> PyResult<(ArrowTable, u64, u64)> {
    let data = Data::of(batch, text, None, url, None, html)?;
    // The index as it was before the add (the driver holds its writer lock): a row that is a
    // record it holds is left out, as every add leaves it out.
    let snap = neardup_index::Snapshot::open(&path).map_err(|e| engine_err(e.into()))?;
    let mut held = 0u64;
    let mut ids = Vec::with_capacity(data.batches.len());
    for b in &data.batches {
        let c = b.column(column(&data.schema, id, "ids")?);
        let Some(s) = c.as_string_opt::<i32>() else {
            return Err(PyTypeError::new_err(format!(
                "the id column is {}, expected strings",
                c.data_type()
            )));
        };
        ids.push(s.clone());
    }
    let starts: Vec<usize> = data
        .batches
        .iter()
        .scan(0, |at, b| {
            let s = *at;
            *at += b.num_rows();
            Some(s)
        })
        .collect();
    let rows = data.rows()?;
    let input = Input::rows("batch", Arc::new(rows));
    let mut pipeline = PipelineConfig {
        threads: 1,
        allow_empty: true,
        ..PipelineConfig::default()
    };
    pipeline.read.strict = strict;
    let mut row_col = Int64Builder::new();
    let mut page_col = BinaryBuilder::new();
    let (mut page, mut record, mut scratch) = (CatalogPage::default(), Vec::new(), Vec::new());
    let pages = py.allow_threads(|| {
        parts::sketch_pages(&path, &[input], &pipeline, |place, p| {
            let r = place.ordinal as usize;
            let b = starts.partition_point(|&s| s <= r) - 1;
            let ids = &ids[b];
            let at = r - starts[b];
            page.clone_from(p);
            page.user_id.clear();
            if ids.is_valid(at) {
                page.user_id.push_str(ids.value(at));
            } else {
                page.user_id.push_str(&p.user_id);
            }
            if snap.held_record(&page)?.is_some() {
                held += 1;
                return Ok(());
            }
            page.encode_checked(&mut record, &mut scratch);
            row_col.append_value(r as i64);
            page_col.append_value(&record);
            Ok(())
        })
    });
    pages.map_err(engine_err)?;
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("row", DataType::Int64, false),
        Field::new("page", DataType::Binary, false),
    ]));
    let cols: Vec<ArrayRef> = vec![Arc::new(row_col.finish()), Arc::new(page_col.finish())];
    let out = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let not_pages =
        data.batches.iter().map(|b| b.num_rows()).sum::<usize>() - out.num_rows() - held as usize;
    Ok((ArrowTable::new(schema, vec![out]), not_pages as u64, held))
}

/// Writes one part of an add in parts: `push` batches of `page` records in id order, then
/// `finish`.
#[pyclass(module = "neardup._neardup", name = "IndexPartWriter")]
pub struct IndexPartWriter {
    writer: Option<PartWriter>,
}

#[pymethods]
impl IndexPartWriter {
    /// The writer of part `part` of the add committing `generation` to the index in `path`,
    /// its pages numbered from `first_id`, its files named for `attempt` (unique among the
    /// attempts at this part: Spark's task attempt id).
    #[new]
    #[pyo3(signature = (path, generation, part, first_id, attempt = 0))]
    fn new(
        path: PathBuf,
        generation: u64,
        part: u32,
        first_id: u64,
        attempt: u64,
    ) -> PyResult<Self> {
        let writer =
            PartWriter::create(&path, generation, part, attempt, first_id).map_err(engine_err)?;
        Ok(IndexPartWriter {
            writer: Some(writer),
        })
    }

    /// Appends the pages of a batch's `page` column, in order.
    fn push(&mut self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        let w = self.writer.as_mut().ok_or_else(finished)?;
        let (schema, batches) = crate::arrow::import(batch)?;
        let c = column(&schema, "page", "pages")?;
        py.allow_threads(|| {
            for b in &batches {
                let pages = b.column(c).as_binary_opt::<i32>().ok_or_else(|| {
                    PyTypeError::new_err(format!(
                        "the page column is {}, expected binary",
                        b.column(c).data_type()
                    ))
                })?;
                for i in 0..pages.len() {
                    w.push_encoded(pages.value(i)).map_err(engine_err)?;
                }
            }
            Ok(())
        })
    }

    /// Finishes the part's files under the crawl `label`: a dict (`part`, `first_id`, `pages`,
    /// `attempt`, `segments`: a list of (name, entries, bytes, label)) for the commit.
    fn finish<'py>(&mut self, py: Python<'py>, label: &str) -> PyResult<Bound<'py, PyDict>> {
        let w = self.writer.take().ok_or_else(finished)?;
        let p = py.allow_threads(|| w.finish(label)).map_err(engine_err)?;
        let d = PyDict::new_bound(py);
        d.set_item("part", p.part)?;
        d.set_item("first_id", p.first_id)?;
        d.set_item("pages", p.pages)?;
        d.set_item("attempt", p.attempt)?;
        let segs = PyList::empty_bound(py);
        for s in &p.segments {
            segs.append((&s.name, s.entries, s.bytes, &s.label))?;
        }
        d.set_item("segments", segs)?;
        Ok(d)
    }
}

fn finished() -> PyErr {
    PyRuntimeError::new_err("this part was finished")
}

/// The driver's side of an add in parts: holds the index's writer lock until `commit`.
#[pyclass(module = "neardup._neardup", name = "IndexParts")]
pub struct IndexParts {
    add: Option<PartsAdd>,
}

#[pymethods]
impl IndexParts {
    /// Takes the writer lock of the index in `path` (removing what a crashed writer left).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let add = py
            .allow_threads(|| neardup_index::Index::open(&path)?.parts_add())
            .map_err(engine_err)?;
        Ok(IndexParts { add: Some(add) })
    }

    /// The generation the commit makes live.
    #[getter]
    fn generation(&self) -> PyResult<u64> {
        Ok(self.add.as_ref().ok_or_else(committed)?.generation())
    }

    /// The id of the add's first page.
    #[getter]
    fn first_id(&self) -> PyResult<u64> {
        Ok(self.add.as_ref().ok_or_else(committed)?.first_id())
    }

    /// Checks the parts (dicts of `IndexPartWriter.finish`) and makes them live in one
    /// manifest commit; returns `pages`, `first_id`, `generation`, `parts`. The lock is
    /// released either way.
    fn commit<'py>(
        &mut self,
        py: Python<'py>,
        parts: Vec<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let add = self.add.take().ok_or_else(committed)?;
        let n = parts.len();
        let mut written = Vec::with_capacity(n);
        for d in &parts {
            let get = |k: &str| {
                d.get_item(k)?
                    .ok_or_else(|| PyValueError::new_err(format!("a part without {k:?}")))
            };
            let segments: Vec<(String, u64, u64, String)> = get("segments")?.extract()?;
            written.push(WrittenPart {
                part: get("part")?.extract()?,
                first_id: get("first_id")?.extract()?,
                pages: get("pages")?.extract()?,
                attempt: match d.get_item("attempt")? {
                    Some(a) => a.extract()?,
                    None => 0,
                },
                segments: segments
                    .into_iter()
                    .map(|(name, entries, bytes, label)| SegmentEntry {
                        name,
                        entries,
                        bytes,
                        label,
                    })
                    .collect(),
            });
        }
        let r = py
            .allow_threads(|| add.commit(written))
            .map_err(engine_err)?;
        let d = PyDict::new_bound(py);
        d.set_item("pages", r.pages)?;
        d.set_item("first_id", r.first_id)?;
        d.set_item("generation", r.generation)?;
        d.set_item("parts", n)?;
        d.set_item(
            "merged_segments",
            r.merged.map_or(0, |m| m.segments_dropped),
        )?;
        d.set_item("merge_error", r.merge_error)?;
        Ok(d)
    }

    /// Gives up the add: the lock is released; the parts' files are removed by the next writer.
    fn abandon(&mut self) {
        self.add = None;
    }
}

fn committed() -> PyErr {
    PyRuntimeError::new_err("this add was committed or abandoned")
}

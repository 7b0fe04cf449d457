//! `neardup.spark`'s native half: the engine's dedup in parts (`neardup_dedup::parts`) over
//! Arrow record batches, one batch per call, as Spark's `mapInArrow` hands them to executors.
//! Every value a Spark column holds is signed: unsigned 64-bit keys and 32-bit title segments
//! travel as the signed integers with the same bits.

use crate::arrow::{column, import, ArrowTable};
use crate::dedup::{job_settings, Data};
use crate::evidence::{EvidenceArrow, Target};
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Int32Builder, Int64Builder, ListBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use neardup_engine::dedup::parts::{self, ScoringPage};
use neardup_engine::dedup::{self as job, DedupSettings};
use neardup_engine::Input;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// The parts of one dedup configuration, for the executors of a distributed run.
#[pyclass(module = "neardup._neardup", name = "Parts")]
pub struct Parts {
    settings: DedupSettings,
    scorer: parts::Parts,
}

fn arrow_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The one batch of a table or record batch, or all its batches concatenated.
fn one_batch(obj: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    let (schema, batches) = import(obj)?;
    arrow_select::concat::concat_batches(&schema, &batches).map_err(arrow_err)
}

/// A column of a batch as the type asked for.
fn typed<'a>(b: &'a RecordBatch, name: &str, want: &DataType) -> PyResult<&'a ArrayRef> {
    let c = b.column(column(&b.schema(), name, "parts")?);
    if c.data_type() != want {
        return Err(PyTypeError::new_err(format!(
            "column {name:?} is {}, expected {want}",
            c.data_type()
        )));
    }
    Ok(c)
}

/// A list-of-int32 column's values at row `i` as unsigned segments.
fn segments(list: &arrow_array::ListArray, i: usize, out: &mut Vec<u32>) {
    out.clear();
    if list.is_valid(i) {
        let v = list.value(i);
        out.extend(
            v.as_primitive::<Int32Type>()
                .values()
                .iter()
                .map(|&s| s as u32),
        );
    }
}

#[pymethods]
impl Parts {
    /// The parts of the configuration the keyword arguments name (`neardup.dedup`'s).
    #[new]
    #[pyo3(signature = (*, threads = Some(1), strict = false, **settings))]
    fn new(
        threads: Option<usize>,
        strict: bool,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Parts> {
        let settings = job_settings(settings, threads, strict)?;
        let o = settings.options();
        let scorer =
            parts::Parts::new(&o.config, &o.params).map_err(|e| crate::engine_err(e.into()))?;
        Ok(Parts { settings, scorer })
    }

    /// The configuration as the summary of `neardup dedup` states it (a dict).
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let o = self.settings.options();
        let text = serde_json::json!({ "params": o.params, "config": o.config }).to_string();
        let json = py.import_bound("json")?;
        json.call_method1("loads", (text,))?.extract()
    }

    /// The pages of one batch of rows, sketched: one row per sketched page with `row` (its
    /// position in the batch), `identity`, `host_key`, `title` (segments), `keys` (one per
    /// candidate table), `keep_key`, `record` (the encoded scoring page) and `language`; rows
    /// that are
    /// not pages or have no terms are left out and counted in the second value (a dict).
    /// `date` names a column of capture dates (the keep rule "newest" reads them).
    #[pyo3(signature = (batch, text, url = None, html = false, date = None))]
    fn sketch<'py>(
        &self,
        py: Python<'py>,
        batch: &Bound<'py, PyAny>,
        text: &str,
        url: Option<&str>,
        html: bool,
        date: Option<&str>,
    ) -> PyResult<(ArrowTable, Bound<'py, PyDict>)> {
        let data = Data::of(batch, text, None, url, date, html)?;
        let rows = data.rows()?;
        let input = Input::rows("batch", Arc::new(rows));
        let mut row = Int64Builder::new();
        let mut identity = Int64Builder::new();
        let mut host_key = Int64Builder::new();
        let mut title = ListBuilder::new(Int32Builder::new());
        let mut keys = ListBuilder::new(Int64Builder::new());
        let mut keep_key = BinaryBuilder::new();
        let mut record = BinaryBuilder::new();
        let mut language = arrow_array::builder::StringBuilder::new();
        let counts = py.allow_threads(|| {
            job::in_parts(
                &[input],
                &self.settings,
                &neardup_engine::NoProgress,
                |page, p| {
                    // The batch is the run's one input: a page's record ordinal is its row.
                    row.append_value(i64::from(page.id.ordinal));
                    identity.append_value(p.identity as i64);
                    host_key.append_value(p.host_key as i64);
                    let t = title.values();
                    for &s in p.title.iter().filter(|&&s| s != 0) {
                        t.append_value(s as i32);
                    }
                    title.append(true);
                    let k = keys.values();
                    for &x in &p.keys {
                        k.append_value(x as i64);
                    }
                    keys.append(true);
                    keep_key.append_value(&p.keep_key);
                    record.append_value(&p.record);
                    language.append_value(page.language.code());
                },
            )
        });
        let counts = counts.map_err(crate::engine_err)?;
        let list = |t: DataType| DataType::List(Arc::new(Field::new("item", t, true)));
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("row", DataType::Int64, false),
            Field::new("identity", DataType::Int64, false),
            Field::new("host_key", DataType::Int64, false),
            Field::new("title", list(DataType::Int32), false),
            Field::new("keys", list(DataType::Int64), false),
            Field::new("keep_key", DataType::Binary, false),
            Field::new("record", DataType::Binary, false),
            Field::new("language", DataType::Utf8, false),
        ]));
        let cols: Vec<ArrayRef> = vec![
            Arc::new(row.finish()),
            Arc::new(identity.finish()),
            Arc::new(host_key.finish()),
            Arc::new(title.finish()),
            Arc::new(keys.finish()),
            Arc::new(keep_key.finish()),
            Arc::new(record.finish()),
            Arc::new(language.finish()),
        ];
        let out = RecordBatch::try_new(schema.clone(), cols).map_err(arrow_err)?;
        let d = PyDict::new_bound(py);
        d.set_item("pages_sketched", counts.pages_sketched)?;
        d.set_item("pages_without_terms", counts.pages_without_terms)?;
        d.set_item("pages_not_html_or_text", counts.pages_not_html_or_text)?;
        d.set_item("records_skipped", counts.records_skipped)?;
        let not_pages = PyDict::new_bound(py);
        for (k, v) in &counts.not_pages {
            not_pages.set_item(k, v)?;
        }
        d.set_item("not_pages", not_pages)?;
        Ok((ArrowTable::new(schema, vec![out]), d))
    }

    /// The evidence of pairs: a batch with each side's `a_record`/`b_record` (binary) and its
    /// host's site-naming title segments `a_site`/`b_site` (lists of int32, null for none);
    /// one row back per pair: `accepted`, the evidence columns (`neardup_evidence::COLUMNS`,
    /// unsigned integers as `int32`), `same_site`.
    fn score(&self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
        let b = one_batch(batch)?;
        let list = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
        let records = |name| -> PyResult<arrow_array::BinaryArray> {
            Ok(typed(&b, name, &DataType::Binary)?
                .as_binary::<i32>()
                .clone())
        };
        let lists = |name| -> PyResult<arrow_array::ListArray> {
            let c = b.column(column(&b.schema(), name, "parts")?);
            match c.data_type() {
                DataType::List(f) if f.data_type() == &DataType::Int32 => {
                    Ok(c.as_list::<i32>().clone())
                }
                t => Err(PyTypeError::new_err(format!(
                    "column {name:?} is {t}, expected {list}"
                ))),
            }
        };
        let (ar, asite, br, bsite) = (
            records("a_record")?,
            lists("a_site")?,
            records("b_record")?,
            lists("b_site")?,
        );
        let n = b.num_rows();
        let scorer = &self.scorer;
        let result = py.allow_threads(|| -> PyResult<Vec<ArrayRef>> {
            let mut accepted = BooleanBuilder::with_capacity(n);
            let mut evidence = EvidenceArrow::new(Target::Spark, n);
            let mut same_site = BooleanBuilder::with_capacity(n);
            let (mut pa, mut pb) = (ScoringPage::default(), ScoringPage::default());
            let (mut sa, mut sb) = (Vec::new(), Vec::new());
            for i in 0..n {
                if ar.is_null(i) || br.is_null(i) {
                    return Err(PyValueError::new_err(format!("row {i}: a record is null")));
                }
                pa.decode(ar.value(i))
                    .map_err(|e| PyValueError::new_err(format!("row {i}: a_record: {e}")))?;
                pb.decode(br.value(i))
                    .map_err(|e| PyValueError::new_err(format!("row {i}: b_record: {e}")))?;
                segments(&asite, i, &mut sa);
                segments(&bsite, i, &mut sb);
                let e = scorer.score(&pa, |s| sa.contains(&s), &pb, |s| sb.contains(&s));
                accepted.append_value(scorer.accepts(&e));
                evidence.push(Some(neardup_evidence::Columns::from(&e)));
                same_site.append_value(e.same_site);
            }
            let mut cols: Vec<ArrayRef> = vec![Arc::new(accepted.finish())];
            cols.extend(evidence.finish());
            cols.push(Arc::new(same_site.finish()));
            Ok(cols)
        });
        let cols = result?;
        let mut fields = vec![Field::new("accepted", DataType::Boolean, false)];
        fields.extend(EvidenceArrow::fields(Target::Spark, false));
        fields.push(Field::new("same_site", DataType::Boolean, false));
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let out = RecordBatch::try_new(schema.clone(), cols).map_err(arrow_err)?;
        Ok(ArrowTable::new(schema, vec![out]))
    }

    /// Which title segments name their site: a batch of `count` (pages of the host with the
    /// segment) and `host_pages` (int64 each); one boolean per row back (`site`).
    fn site_segments(&self, batch: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
        let b = one_batch(batch)?;
        let count = typed(&b, "count", &DataType::Int64)?.as_primitive::<Int64Type>();
        let pages = typed(&b, "host_pages", &DataType::Int64)?.as_primitive::<Int64Type>();
        let clamp = |v: i64| v.max(0) as u64;
        let site: arrow_array::BooleanArray = count
            .values()
            .iter()
            .zip(pages.values())
            .map(|(&c, &p)| Some(job::is_site_segment(clamp(c), clamp(p))))
            .collect();
        let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new(
            "site",
            DataType::Boolean,
            false,
        )]));
        let out = RecordBatch::try_new(schema.clone(), vec![Arc::new(site)]).map_err(arrow_err)?;
        Ok(ArrowTable::new(schema, vec![out]))
    }
}

/// The clusters of a graph small enough for one machine (`neardup_dedup::parts::clusters`):
/// a batch of edges `a`, `b` (int64 pages) with each end's canonical-page sort key `a_key`,
/// `b_key` (binary); one row back per page: `node`, `cluster`, `cluster_size`, `canonical`.
#[pyfunction]
pub fn clusters(py: Python<'_>, edges: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let b = one_batch(edges)?;
    let (a, z) = (int64s(&b, "a")?, int64s(&b, "b")?);
    let (ak, bk) = (binaries(&b, "a_key")?, binaries(&b, "b_key")?);
    let members = py.allow_threads(|| {
        let mut keys: std::collections::HashMap<i64, &[u8]> =
            std::collections::HashMap::with_capacity(2 * a.len());
        let mut edges = Vec::with_capacity(a.len());
        for i in 0..a.len() {
            let (x, y) = (a.value(i), z.value(i));
            keys.insert(x, ak.value(i));
            keys.insert(y, bk.value(i));
            edges.push((x, y));
        }
        parts::clusters(&edges, |p| keys[&p])
    });
    let col = |f: fn(&parts::Member) -> i64| members.iter().map(f).collect();
    int64_table(vec![
        ("node", col(|m| m.page)),
        ("cluster", col(|m| m.cluster as i64)),
        ("cluster_size", col(|m| m.size as i64)),
        ("canonical", col(|m| m.canonical)),
    ])
}

/// A batch's column as int64 values, nulls refused.
fn int64s<'a>(b: &'a RecordBatch, name: &str) -> PyResult<&'a arrow_array::Int64Array> {
    let c = typed(b, name, &DataType::Int64)?.as_primitive::<Int64Type>();
    if c.null_count() > 0 {
        return Err(PyValueError::new_err(format!("column {name:?} has nulls")));
    }
    Ok(c)
}

/// A batch's column as binary values, nulls refused.
fn binaries<'a>(b: &'a RecordBatch, name: &str) -> PyResult<&'a arrow_array::BinaryArray> {
    let c = typed(b, name, &DataType::Binary)?.as_binary::<i32>();
    if c.null_count() > 0 {
        return Err(PyValueError::new_err(format!("column {name:?} has nulls")));
    }
    Ok(c)
}

/// One batch of int64 columns.
fn int64_table(columns: Vec<(&str, Vec<i64>)>) -> PyResult<ArrowTable> {
    let schema: SchemaRef = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, _)| Field::new(*n, DataType::Int64, false))
            .collect::<Vec<_>>(),
    ));
    let cols: Vec<ArrayRef> = columns
        .into_iter()
        .map(|(_, v)| Arc::new(arrow_array::Int64Array::from(v)) as ArrayRef)
        .collect();
    let out = RecordBatch::try_new(schema.clone(), cols).map_err(arrow_err)?;
    Ok(ArrowTable::new(schema, vec![out]))
}

/// Identity sets over one partition's rows (every row of an identity key in one partition;
/// `neardup_dedup::parts::identity_representatives`): the rows, every column as given, sorted
/// by `(identity, order)`, with `rep` added: the first `order` of their `identity` (int64s).
#[pyfunction]
pub fn identity_sets(py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let b = one_batch(rows)?;
    let key = int64s(&b, "identity")?;
    let order = int64s(&b, "order")?;
    let (taken, reps) = py.allow_threads(|| {
        let mut rows: Vec<(u64, i64, u32)> = (key.values().iter().zip(order.values()))
            .enumerate()
            .map(|(i, (&k, &o))| (k as u64, o, i as u32))
            .collect();
        let reps = parts::identity_representatives(&mut rows);
        let at = arrow_array::UInt32Array::from_iter_values(rows.iter().map(|r| r.2));
        (arrow_select::take::take_record_batch(&b, &at), reps)
    });
    let taken = taken.map_err(arrow_err)?;
    let mut fields: Vec<Field> = taken
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("rep", DataType::Int64, false));
    let mut cols = taken.columns().to_vec();
    cols.push(Arc::new(arrow_array::Int64Array::from(reps)));
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let out = RecordBatch::try_new(schema.clone(), cols).map_err(arrow_err)?;
    Ok(ArrowTable::new(schema, vec![out]))
}

/// Candidate edges over one partition's rows (every row of a table's key in one partition;
/// `neardup_dedup::parts::bucket_edges`): rows `t` (int32, the table), `key`, `order` (int64)
/// of identity-set representatives; one row back per edge, `a` < `b` (int64 orders). A pair
/// sharing keys in several tables comes once per table.
#[pyfunction]
pub fn bucket_edges(py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let b = one_batch(rows)?;
    let t = typed(&b, "t", &DataType::Int32)?.as_primitive::<Int32Type>();
    let key = int64s(&b, "key")?;
    let order = int64s(&b, "order")?;
    if t.null_count() > 0 {
        return Err(PyValueError::new_err("column \"t\" has nulls"));
    }
    let (a, z) = py.allow_threads(|| {
        let mut rows: Vec<(u32, u64, i64)> = (t.values().iter().zip(key.values()))
            .zip(order.values())
            .map(|((&t, &k), &o)| (t as u32, k as u64, o))
            .collect();
        let (mut a, mut z) = (Vec::new(), Vec::new());
        parts::bucket_edges(&mut rows, |x, y| {
            a.push(x);
            z.push(y);
        });
        (a, z)
    });
    int64_table(vec![("a", a), ("b", z)])
}

/// One step of connected components spread over partitions, over one partition's rows
/// `node`, `other` (int64; every row of a node in one partition): `large` (both directions of
/// every edge) links each node's larger neighbours to its neighbourhood's smallest node, else
/// (each edge once from its larger end, `other` the smaller) small-star links each node and
/// its other smaller neighbours to the smallest (`neardup_dedup::parts::large_star`,
/// `small_star`); edges `a` < `b` back, a pair possibly more than once.
#[pyfunction]
pub fn star_edges(py: Python<'_>, rows: &Bound<'_, PyAny>, large: bool) -> PyResult<ArrowTable> {
    let b = one_batch(rows)?;
    let node = int64s(&b, "node")?;
    let other = int64s(&b, "other")?;
    let (a, z) = py.allow_threads(|| {
        let mut rows: Vec<(i64, i64)> = node
            .values()
            .iter()
            .copied()
            .zip(other.values().iter().copied())
            .collect();
        let (mut a, mut z) = (Vec::new(), Vec::new());
        let edge = |x, y| {
            a.push(x);
            z.push(y);
        };
        if large {
            parts::large_star(&mut rows, edge);
        } else {
            parts::small_star(&mut rows, edge);
        }
        (a, z)
    });
    int64_table(vec![("a", a), ("b", z)])
}

/// The components' end test over one partition's rows `node`, `other` (int64) and `larger`
/// (bool: `node` is the edge's larger end), both ends of every edge, every row of a node in
/// one partition (`neardup_dedup::parts::star_breaks`): one row, `breaks`, the nodes that keep
/// the edges from being stars around each component's smallest node.
#[pyfunction]
pub fn star_breaks(py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let b = one_batch(rows)?;
    let node = int64s(&b, "node")?;
    let other = int64s(&b, "other")?;
    let larger = typed(&b, "larger", &DataType::Boolean)?.as_boolean();
    if larger.null_count() > 0 {
        return Err(PyValueError::new_err("column \"larger\" has nulls"));
    }
    let breaks = py.allow_threads(|| {
        let mut rows: Vec<(i64, i64, bool)> = (0..b.num_rows())
            .map(|i| (node.value(i), other.value(i), larger.value(i)))
            .collect();
        parts::star_breaks(&mut rows)
    });
    int64_table(vec![("breaks", vec![breaks as i64])])
}

/// Canonical pages over one partition's rows (every member of a component in one partition;
/// `neardup_dedup::parts::canonical_pages`): rows `component`, `node` (int64) and `keep_key`
/// (binary); one row back per page: `node`, `component`, `canonical`, `cluster_size`.
#[pyfunction]
pub fn canonical_pages(py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let b = one_batch(rows)?;
    let component = int64s(&b, "component")?;
    let node = int64s(&b, "node")?;
    let key = binaries(&b, "keep_key")?;
    let got = py.allow_threads(|| {
        let mut rows: Vec<(i64, i64, &[u8])> = (0..b.num_rows())
            .map(|i| (component.value(i), node.value(i), key.value(i)))
            .collect();
        parts::canonical_pages(&mut rows)
    });
    int64_table(vec![
        ("node", got.iter().map(|c| c.page).collect()),
        ("component", got.iter().map(|c| c.component).collect()),
        ("canonical", got.iter().map(|c| c.canonical).collect()),
        ("cluster_size", got.iter().map(|c| c.size as i64).collect()),
    ])
}

//! Clean datasets from Python: `neardup.paragraphs` (repeated paragraphs, through
//! [`neardup_clean::paragraphs`], the CLI's `neardup paragraphs`) and `neardup.contamination`
//! (through [`neardup_clean::contamination`], the CLI's `neardup decontaminate`), each the
//! cuts as an Arrow table and the summary as a dict.

use crate::arrow::ArrowTable;
use crate::progress::PyProgress;
use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use neardup_clean::{ParagraphOptions, SpanRow};
use neardup_engine::Input;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// The cuts of a paragraph run over `paths`, and its summary as a dict.
#[pyfunction]
#[pyo3(signature = (
    paths, *, unit = None, policy = None, max_docs = None, min_chars = None, write_clean = None,
    text = None, id = None, html = None, mem_limit = None, tmp_dir = None, threads = None,
    strict = false, progress = None
))]
#[allow(clippy::too_many_arguments)]
pub fn paragraphs(
    py: Python<'_>,
    paths: Vec<std::path::PathBuf>,
    unit: Option<&str>,
    policy: Option<&str>,
    max_docs: Option<u32>,
    min_chars: Option<usize>,
    write_clean: Option<std::path::PathBuf>,
    text: Option<String>,
    id: Option<String>,
    html: Option<String>,
    mem_limit: Option<usize>,
    tmp_dir: Option<std::path::PathBuf>,
    threads: Option<usize>,
    strict: bool,
    progress: Option<PyObject>,
) -> PyResult<(ArrowTable, PyObject)> {
    let mut options = ParagraphOptions::resolve(unit, policy, max_docs, min_chars)
        .map_err(|e| PyValueError::new_err(e.0))?;
    if let Some(m) = mem_limit {
        options.mem_limit = m;
    }
    if let Some(t) = tmp_dir {
        options.tmp_dir = t;
    }
    let mut pipeline = reading(threads, strict, text, id);
    if let Some(f) = html {
        pipeline.read.fields.html = f;
    }
    neardup_clean::check_inputs(&paths).map_err(crate::clean_err)?;
    let progress = PyProgress::new(progress);
    let inputs: Vec<Input> = progress.inputs(&paths)?;
    let guard = neardup_report::OutputGuard::new(&paths);
    let mut rows: Vec<SpanRow> = Vec::new();
    let summary = progress.run(py, || {
        neardup_clean::paragraphs(
            &inputs,
            &pipeline,
            &options,
            write_clean.as_deref().map(|d| (d, &guard)),
            &progress,
            |r| {
                rows.push(r.clone());
                Ok(())
            },
        )
    })?;
    progress.raise()?;
    let summary = summary.map_err(crate::clean_err)?;
    let json = serde_json::to_string(&summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let summary = py.import_bound("json")?.call_method1("loads", (json,))?;
    Ok((spans_table(&rows)?, summary.unbind()))
}

/// How the corpus is read: threads, strictness and the text and id fields, when given.
fn reading(
    threads: Option<usize>,
    strict: bool,
    text: Option<String>,
    id: Option<String>,
) -> neardup_engine::PipelineConfig {
    let mut pipeline = neardup_engine::PipelineConfig::default();
    if let Some(t) = threads {
        pipeline.threads = t;
    }
    pipeline.read.strict = strict;
    if let Some(f) = text {
        pipeline.read.fields.text = f;
    }
    if let Some(f) = id {
        pipeline.read.fields.id = f;
    }
    pipeline
}

/// The `spans` rows as Arrow, the columns of the CLI's spans table.
fn spans_table(rows: &[SpanRow]) -> PyResult<ArrowTable> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("record", DataType::UInt64, false),
        Field::new("id", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, false),
        Field::new("unit", DataType::UInt32, false),
        Field::new("start", DataType::UInt64, false),
        Field::new("end", DataType::UInt64, false),
        Field::new("docs", DataType::UInt64, false),
        Field::new("first_file", DataType::Utf8, false),
        Field::new("first_record", DataType::UInt64, false),
        Field::new("first_unit", DataType::UInt32, false),
        Field::new("rule", DataType::Utf8, false),
    ]));
    let text = |f: fn(&SpanRow) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let u64s = |f: fn(&SpanRow) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(f)))
    };
    let u32s = |f: fn(&SpanRow) -> u32| -> ArrayRef {
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(f)))
    };
    let cols = vec![
        text(|r| &r.file),
        u64s(|r| r.record),
        text(|r| &r.id),
        text(|r| &r.language),
        u32s(|r| r.unit),
        u64s(|r| r.start),
        u64s(|r| r.end),
        u64s(|r| r.docs),
        text(|r| &r.first_file),
        u64s(|r| r.first_record),
        u32s(|r| r.first_unit),
        text(|r| &r.rule),
    ];
    let batch = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(ArrowTable::new(schema, vec![batch]))
}

/// Benchmark contamination of text files, through [`neardup_clean::contamination`] (the CLI's
/// `neardup decontaminate`): the spans as an Arrow table, the summary as a dict.
#[pyfunction]
#[pyo3(signature = (
    paths, eval, *, ngram = None, action = None, margin = None, write_clean = None,
    text = None, id = None, eval_text = None, eval_id = None, threads = None, strict = false,
    progress = None
))]
#[allow(clippy::too_many_arguments)]
pub fn contamination(
    py: Python<'_>,
    paths: Vec<std::path::PathBuf>,
    eval: Vec<std::path::PathBuf>,
    ngram: Option<usize>,
    action: Option<&str>,
    margin: Option<usize>,
    write_clean: Option<std::path::PathBuf>,
    text: Option<String>,
    id: Option<String>,
    eval_text: Option<String>,
    eval_id: Option<String>,
    threads: Option<usize>,
    strict: bool,
    progress: Option<PyObject>,
) -> PyResult<(ArrowTable, PyObject)> {
    let options = contamination_options(ngram, action, margin, eval_text, eval_id)?;
    let pipeline = reading(threads, strict, text, id);
    contamination_run(py, paths, eval, options, pipeline, write_clean, progress)
}

/// Contamination settings from keyword arguments, the library's defaults for the rest.
fn contamination_options(
    ngram: Option<usize>,
    action: Option<&str>,
    margin: Option<usize>,
    eval_text: Option<String>,
    eval_id: Option<String>,
) -> PyResult<neardup_clean::ContaminationOptions> {
    let mut options = neardup_clean::ContaminationOptions::default();
    if let Some(n) = ngram {
        if n == 0 {
            return Err(PyValueError::new_err(
                "ngram=0: an n-gram has at least 1 word",
            ));
        }
        options.ngram = n;
    }
    if let Some(a) = action {
        options.action = neardup_clean::Action::parse(a).ok_or_else(|| {
            PyValueError::new_err(format!("action {a:?}: expected report, cut or drop"))
        })?;
    }
    if let Some(m) = margin {
        options.margin = m;
    }
    if let Some(f) = eval_text {
        options.eval_read.fields.text = f;
    }
    if let Some(f) = eval_id {
        options.eval_read.fields.id = f;
    }
    Ok(options)
}

fn contamination_run(
    py: Python<'_>,
    paths: Vec<std::path::PathBuf>,
    eval: Vec<std::path::PathBuf>,
    options: neardup_clean::ContaminationOptions,
    pipeline: neardup_engine::PipelineConfig,
    write_clean: Option<std::path::PathBuf>,
    progress: Option<PyObject>,
) -> PyResult<(ArrowTable, PyObject)> {
    neardup_clean::check_inputs(&paths).map_err(crate::clean_err)?;
    let progress = PyProgress::new(progress);
    let inputs: Vec<Input> = progress.inputs(&paths)?;
    let guard = neardup_report::OutputGuard::new(&paths);
    let mut rows: Vec<neardup_clean::ContaminationRow> = Vec::new();
    let summary = progress.run(py, || {
        neardup_clean::contamination(
            &inputs,
            &eval,
            &pipeline,
            &options,
            write_clean.as_deref().map(|d| (d, &guard)),
            &progress,
            |r| {
                rows.push(r.clone());
                Ok(())
            },
        )
    })?;
    progress.raise()?;
    let summary = summary.map_err(crate::clean_err)?;
    let json = serde_json::to_string(&summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let summary = py.import_bound("json")?.call_method1("loads", (json,))?;
    let schema = Arc::new(Schema::new(vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("record", DataType::UInt64, false),
        Field::new("id", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, false),
        Field::new("eval_file", DataType::Utf8, false),
        Field::new("item_id", DataType::Utf8, false),
        Field::new("start", DataType::UInt64, false),
        Field::new("end", DataType::UInt64, false),
        Field::new("ngrams", DataType::UInt64, false),
    ]));
    type Row = neardup_clean::ContaminationRow;
    let text_col = |f: fn(&Row) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let u64s = |f: fn(&Row) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(f)))
    };
    let cols = vec![
        text_col(|r| &r.file),
        u64s(|r| r.record),
        text_col(|r| &r.id),
        text_col(|r| &r.language),
        text_col(|r| &r.eval_file),
        text_col(|r| &r.item_id),
        u64s(|r| r.start),
        u64s(|r| r.end),
        u64s(|r| r.ngrams),
    ];
    let batch = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((ArrowTable::new(schema, vec![batch]), summary.unbind()))
}

/// The steps of a paragraph run in parts, for the Spark job (`neardup.spark.paragraphs`): the
/// units' keys, the policy's decision and the cuts, each the library's own
/// ([`neardup_clean::UnitKeys`], [`neardup_clean::Policy::cuts`],
/// [`neardup_clean::cut_document`]); the counting in between is Spark's.
#[pyclass(module = "neardup._neardup")]
pub struct ParagraphParts {
    options: ParagraphOptions,
}

#[pymethods]
impl ParagraphParts {
    #[new]
    #[pyo3(signature = (*, unit = None, policy = None, max_docs = None, min_chars = None))]
    fn new(
        unit: Option<&str>,
        policy: Option<&str>,
        max_docs: Option<u32>,
        min_chars: Option<usize>,
    ) -> PyResult<ParagraphParts> {
        let options = ParagraphOptions::resolve(unit, policy, max_docs, min_chars)
            .map_err(|e| PyValueError::new_err(e.0))?;
        Ok(ParagraphParts { options })
    }

    /// The rule named in spans (`first-copy` or `boilerplate`).
    fn rule(&self) -> &'static str {
        self.options.policy.rule()
    }

    /// Every unit of `texts` that may be cut: (row, unit, key high 64 bits, key low 64 bits),
    /// four lists of one length.
    #[allow(clippy::type_complexity)]
    fn keys(&self, py: Python<'_>, texts: Vec<String>) -> (Vec<u32>, Vec<u32>, Vec<i64>, Vec<i64>) {
        py.allow_threads(|| {
            let mut keyer = neardup_clean::UnitKeys::new(&self.options);
            let mut out = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (row, text) in texts.iter().enumerate() {
                keyer.keys(text, |unit, key| {
                    out.0.push(row as u32);
                    out.1.push(unit);
                    out.2.push((key >> 64) as u64 as i64);
                    out.3.push(key as u64 as i64);
                });
            }
            out
        })
    }

    /// Whether each occurrence is cut: a unit held by `docs[i]` documents, `first[i]` when it
    /// is the unit's first occurrence.
    fn cuts(&self, docs: Vec<u64>, first: Vec<bool>) -> PyResult<Vec<bool>> {
        if docs.len() != first.len() {
            return Err(PyValueError::new_err("docs and first differ in length"));
        }
        Ok(docs
            .iter()
            .zip(&first)
            .map(|(&d, &f)| self.options.policy.cuts(d, f))
            .collect())
    }

    /// Each text with its units `cut` (increasing unit numbers) removed: (the text left, or
    /// None when nothing was cut; the text's language; per cut (unit, start, end) in
    /// characters).
    #[allow(clippy::type_complexity)]
    fn cut(
        &self,
        py: Python<'_>,
        texts: Vec<String>,
        cut: Vec<Vec<u32>>,
    ) -> PyResult<Vec<(Option<String>, String, Vec<(u32, u64, u64)>)>> {
        if texts.len() != cut.len() {
            return Err(PyValueError::new_err("texts and cut differ in length"));
        }
        Ok(py.allow_threads(|| {
            texts
                .iter()
                .zip(&cut)
                .map(|(t, c)| {
                    let language = neardup_text::language::detect(t).to_string();
                    match neardup_clean::cut_document(t, self.options.unit, c) {
                        Some(d) => (Some(d.text), language, d.spans),
                        None => (None, language, Vec::new()),
                    }
                })
                .collect()
        }))
    }
}

/// The steps of a contamination run in parts, for the Spark job
/// (`neardup.spark.contamination`): the evaluation items (read once on the driver,
/// [`neardup_clean::read_eval`]) indexed in each executor ([`neardup_clean::EvalIndex`]), the
/// spans of each text found and cut as the CLI finds and cuts them.
#[pyclass(module = "neardup._neardup")]
pub struct ContaminationParts {
    index: neardup_clean::EvalIndex,
    options: neardup_clean::ContaminationOptions,
}

#[pymethods]
impl ContaminationParts {
    #[new]
    #[pyo3(signature = (files, items, *, ngram = None, action = None, margin = None))]
    fn new(
        files: Vec<String>,
        items: Vec<(u32, String, String)>,
        ngram: Option<usize>,
        action: Option<&str>,
        margin: Option<usize>,
    ) -> PyResult<ContaminationParts> {
        let options = contamination_options(ngram, action, margin, None, None)?;
        let mut index = neardup_clean::EvalIndex::new(options.ngram, files);
        for (f, id, text) in items {
            index.add(f, id, &text);
        }
        Ok(ContaminationParts { index, options })
    }

    /// The items of evaluation files as the CLI reads them: (file names, [(file number, id,
    /// text)]).
    #[staticmethod]
    #[pyo3(signature = (eval, *, eval_text = None, eval_id = None))]
    #[allow(clippy::type_complexity)]
    fn read_eval(
        eval: Vec<std::path::PathBuf>,
        eval_text: Option<String>,
        eval_id: Option<String>,
    ) -> PyResult<(Vec<String>, Vec<(u32, String, String)>)> {
        let options = contamination_options(None, None, None, eval_text, eval_id)?;
        let mut items = Vec::new();
        neardup_clean::read_eval(&eval, &options, |f, id, text| {
            items.push((f, id, text.to_string()))
        })
        .map_err(crate::clean_err)?;
        Ok((
            eval.iter().map(|p| p.display().to_string()).collect(),
            items,
        ))
    }

    /// `report`, `cut` or `drop`.
    fn action(&self) -> &'static str {
        match self.options.action {
            neardup_clean::Action::Report => "report",
            neardup_clean::Action::Cut => "cut",
            neardup_clean::Action::Drop => "drop",
        }
    }

    /// Every span of `texts`: (row, evaluation file, item id, start, end, n-grams, the text's
    /// language), in (row, start, item) order.
    #[allow(clippy::type_complexity)]
    fn find(
        &self,
        py: Python<'_>,
        texts: Vec<String>,
    ) -> Vec<(u32, String, String, u64, u64, u64, String)> {
        py.allow_threads(|| {
            let (mut ws, mut hits, mut spans) = (Vec::new(), Vec::new(), Vec::new());
            let mut out = Vec::new();
            for (row, t) in texts.iter().enumerate() {
                spans.clear();
                self.index.find(t, &mut ws, &mut hits, |s| spans.push(s));
                if spans.is_empty() {
                    continue;
                }
                spans.sort_by_key(|s| (s.start, s.item));
                let language = neardup_text::language::detect(t).to_string();
                for s in &spans {
                    let (file, id) = self.index.item(s.item);
                    out.push((
                        row as u32,
                        file.to_string(),
                        id.to_string(),
                        s.start,
                        s.end,
                        s.ngrams,
                        language.clone(),
                    ));
                }
            }
            out
        })
    }

    /// Each text with its spans cut under the action's margin (None when it has none), as
    /// `--action cut` writes it.
    fn cut(&self, py: Python<'_>, texts: Vec<String>) -> Vec<Option<String>> {
        py.allow_threads(|| {
            let (mut ws, mut hits, mut spans) = (Vec::new(), Vec::new(), Vec::new());
            texts
                .iter()
                .map(|t| {
                    spans.clear();
                    self.index.find(t, &mut ws, &mut hits, |s| spans.push(s));
                    if spans.is_empty() {
                        return None;
                    }
                    spans.sort_by_key(|s| (s.start, s.item));
                    let bytes: Vec<(usize, usize)> =
                        spans.iter().map(|s| (s.start_byte, s.end_byte)).collect();
                    Some(neardup_clean::cut_spans(t, &bytes, self.options.margin).0)
                })
                .collect()
        })
    }
}

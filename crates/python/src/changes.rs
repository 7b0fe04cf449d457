//! `neardup.changes`: every capture's timeline line as Arrow, the CLI's `--timeline` columns
//! (`neardup_engine::changes`, nothing computed here); `neardup.audit`: a WARC collection's
//! audit (`neardup_engine::audit`), as the CLI's `--json`.

use crate::arrow::ArrowTable;
use crate::progress::PyProgress;
use arrow_array::{
    ArrayRef, Float64Array, RecordBatch, StringArray, UInt16Array, UInt32Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use neardup_engine::changes::{TimelineEntry, UrlPlan};
use neardup_engine::Input;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// The timelines of the captures in `paths`, each URL's next visit, and the counts per
/// category with the schedule's hold-out check.
#[pyfunction]
#[pyo3(signature = (paths, *, change_probability = None, threads = None, strict = false, progress = None))]
pub fn changes(
    py: Python<'_>,
    paths: Vec<std::path::PathBuf>,
    change_probability: Option<f64>,
    threads: Option<usize>,
    strict: bool,
    progress: Option<PyObject>,
) -> PyResult<(ArrowTable, ArrowTable, PyObject)> {
    let mut pipeline = neardup_engine::PipelineConfig::default();
    if let Some(t) = threads {
        pipeline.threads = t;
    }
    pipeline.read.strict = strict;
    let progress = PyProgress::new(progress);
    let inputs: Vec<Input> = progress.inputs(&paths)?;
    let mut schedule = neardup_engine::changes::ScheduleConfig::default();
    if let Some(p) = change_probability {
        schedule.change_probability = p;
    }
    let report = progress.run(py, || {
        neardup_engine::changes::run(&inputs, &pipeline, &schedule, &progress)
    })?;
    progress.raise()?;
    let mut report = report.map_err(crate::engine_err)?;
    let rows = std::mem::take(&mut report.timeline);
    let plans = std::mem::take(&mut report.schedule);
    let json = serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let summary = py.import_bound("json")?.call_method1("loads", (json,))?;
    Ok((
        timeline_table(&rows)?,
        schedule_table(&plans)?,
        summary.unbind(),
    ))
}

/// The audit of the WARC files in `paths`, as `neardup audit --json` writes it.
#[pyfunction]
#[pyo3(signature = (paths, *, threads = None, strict = false, progress = None))]
pub fn audit(
    py: Python<'_>,
    paths: Vec<std::path::PathBuf>,
    threads: Option<usize>,
    strict: bool,
    progress: Option<PyObject>,
) -> PyResult<PyObject> {
    let mut opts = neardup_engine::audit::AuditOptions::default();
    if let Some(t) = threads {
        opts.pipeline.threads = t;
    }
    opts.pipeline.read.strict = strict;
    let progress = PyProgress::new(progress);
    let inputs: Vec<Input> = progress.inputs(&paths)?;
    let report = progress.run(py, || neardup_engine::audit::run(&inputs, &opts, &progress))?;
    progress.raise()?;
    let report = report.map_err(crate::engine_err)?;
    let json = serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(py
        .import_bound("json")?
        .call_method1("loads", (json,))?
        .unbind())
}

fn schedule_table(rows: &[UrlPlan]) -> PyResult<ArrowTable> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("last_capture", DataType::Utf8, false),
        Field::new("next_visit", DataType::Utf8, false),
        Field::new("next_in_days", DataType::Float64, false),
        Field::new("intervals", DataType::UInt32, false),
        Field::new("text_changes", DataType::UInt32, false),
        Field::new("group_change_share", DataType::Float64, false),
        Field::new("mean_interval_days", DataType::Float64, false),
        Field::new("rate_per_day", DataType::Float64, false),
        Field::new("reason", DataType::Utf8, false),
    ]));
    let text = |f: fn(&UrlPlan) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let float = |f: fn(&UrlPlan) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values(rows.iter().map(f)))
    };
    let count = |f: fn(&UrlPlan) -> u32| -> ArrayRef {
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(f)))
    };
    let cols = vec![
        text(|r| &r.url),
        text(|r| &r.last_capture),
        text(|r| &r.next_visit),
        float(|r| r.plan.next_in_days),
        count(|r| r.plan.intervals),
        count(|r| r.plan.text_changes),
        float(|r| r.plan.group_change_share),
        float(|r| r.plan.mean_interval_days),
        float(|r| r.plan.rate_per_day),
        text(|r| &r.plan.reason),
    ];
    let batch = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(ArrowTable::new(schema, vec![batch]))
}

fn timeline_table(rows: &[TimelineEntry]) -> PyResult<ArrowTable> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("date", DataType::Utf8, false),
        Field::new("file", DataType::Utf8, false),
        Field::new("offset", DataType::UInt64, true),
        Field::new("digest", DataType::Utf8, false),
        Field::new("status", DataType::UInt16, true),
        Field::new("simhash", DataType::Utf8, false),
        Field::new("change", DataType::Utf8, true),
        Field::new("rule", DataType::Utf8, true),
        Field::new("chunks_out", DataType::UInt32, true),
        Field::new("chunks_in", DataType::UInt32, true),
        Field::new("chunks_before", DataType::UInt32, true),
        Field::new("chunks_after", DataType::UInt32, true),
        Field::new("jaccard", DataType::Float64, true),
        Field::new("simhash_distance", DataType::UInt32, true),
        Field::new("compared_with", DataType::Utf8, true),
    ]));
    let text = |f: fn(&TimelineEntry) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let opt_text = |f: fn(&TimelineEntry) -> Option<&str>| -> ArrayRef {
        Arc::new(StringArray::from_iter(rows.iter().map(f)))
    };
    let opt_u32 = |f: fn(&TimelineEntry) -> Option<u32>| -> ArrayRef {
        Arc::new(UInt32Array::from_iter(rows.iter().map(f)))
    };
    let cols = vec![
        text(|r| &r.url),
        text(|r| &r.date),
        text(|r| &r.file),
        Arc::new(UInt64Array::from_iter(rows.iter().map(|r| r.offset))) as ArrayRef,
        text(|r| &r.digest),
        Arc::new(UInt16Array::from_iter(rows.iter().map(|r| r.status))),
        text(|r| &r.simhash),
        opt_text(|r| r.change.map(|c| c.as_str())),
        opt_text(|r| r.rule.as_deref()),
        opt_u32(|r| r.chunks_differing.map(|c| c.0)),
        opt_u32(|r| r.chunks_differing.map(|c| c.1)),
        opt_u32(|r| r.chunks.map(|c| c.0)),
        opt_u32(|r| r.chunks.map(|c| c.1)),
        Arc::new(Float64Array::from_iter(rows.iter().map(|r| r.jaccard))),
        opt_u32(|r| r.simhash_distance),
        opt_text(|r| r.compared_with.as_deref()),
    ];
    let batch = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(ArrowTable::new(schema, vec![batch]))
}

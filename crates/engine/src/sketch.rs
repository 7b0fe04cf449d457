//! The sketch job: read crawls once and keep their signatures in a signature file, for later
//! dedup, mirrors, replicas or evolve runs.

use crate::{Error, Input, PipelineConfig, Progress};
use neardup_report::OutputGuard;
use neardup_sketch::SketchParams;
use neardup_store::SignatureWriter;
use serde::Serialize;
use std::path::Path;

/// What a sketch job found and wrote.
#[derive(Clone, Debug, Serialize)]
pub struct SketchReport {
    /// Inputs, in order.
    pub inputs: Vec<String>,
    /// Pages with signatures (records in the file).
    pub pages: u32,
    /// HTML and text pages without terms.
    pub pages_without_terms: u64,
    /// Pages of other content types.
    pub pages_not_html_or_text: u64,
    /// Responses that are not pages, by why (see `DedupSummary::not_pages`).
    pub not_pages: std::collections::BTreeMap<String, u64>,
    /// Malformed records skipped.
    pub records_skipped: u64,
    /// Skipped records by reason, with the first examples.
    pub skipped: crate::Skipped,
    /// Reading and sketching.
    pub seconds_read_and_sketch: f64,
}

/// Reads and sketches `inputs` with `params` and writes the signatures to `output` (atomically,
/// never over an input; its parameters beside it as `output.params.json`).
pub fn run(
    inputs: &[Input],
    pipeline: &PipelineConfig,
    params: &SketchParams,
    output: &Path,
    progress: &dyn Progress,
) -> Result<SketchReport, Error> {
    params.validate()?;
    OutputGuard::new(inputs.iter().filter_map(Input::as_path)).check_file(output)?;
    let loaded = crate::load::load(inputs, pipeline, params, false, None, progress)?;
    let c = &loaded.corpus;
    let mut w = SignatureWriter::create(output, params, c.inputs(), c.len() as u64)?;
    for p in 0..c.len() {
        w.write(&c.record(p))?;
    }
    w.finish()?;
    Ok(SketchReport {
        inputs: c.inputs().to_vec(),
        pages: c.len(),
        pages_without_terms: c.empty_pages(),
        pages_not_html_or_text: c.other_pages(),
        not_pages: c.not_pages().clone(),
        records_skipped: loaded.records_skipped(),
        skipped: loaded.skipped(pipeline.skipped_examples),
        seconds_read_and_sketch: loaded.read_time.as_secs_f64(),
    })
}

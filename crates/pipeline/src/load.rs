//! From inputs to a [`Corpus`]: crawls are read and sketched (with a first pass counting host
//! boilerplate when asked), signature files are loaded (their parameters must equal the run's),
//! and everything lands in one corpus in input order.

use crate::boilerplate::{
    BoilerplateConfig, BoilerplateCounter, BoilerplateFilter, HostShingleCounts,
};
use crate::sketching::{assemble, CorpusSink, SketchVisitor};
use crate::{Error, Input, PipelineConfig, Progress, SourceReport};
use neardup_sketch::{Family, SketchParams};
use neardup_store::{Corpus, SignatureReader};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A corpus and how it was made.
#[derive(Debug)]
pub struct Loaded {
    /// Signatures and facts of every sketched page, in input order.
    pub corpus: Corpus,
    /// One report per crawl input (records, pages, skipped records with file, offset, reason).
    pub sources: Vec<SourceReport>,
    /// Wall time of reading and sketching.
    pub read_time: Duration,
    /// Worker threads used.
    pub threads: usize,
}

impl Loaded {
    /// Records skipped over all inputs.
    pub fn records_skipped(&self) -> u64 {
        self.sources.iter().map(|s| s.stats.problem_count()).sum()
    }

    /// The skipped records by reason, with `examples` examples.
    pub fn skipped(&self, examples: usize) -> crate::Skipped {
        crate::Skipped::of(&self.sources, examples)
    }
}

/// True for an input that is a signature file written by `neardup sketch`.
pub fn is_signature_input(i: &Input) -> bool {
    i.as_path()
        .is_some_and(|p| p.is_file() && SignatureReader::is_signature_file(p))
}

/// Reads and sketches `inputs` (signature files among them are loaded, not read as crawls).
/// `keep_shingles` keeps every page's shingle set (exact verification; crawls only).
pub fn load(
    inputs: &[Input],
    pipeline: &PipelineConfig,
    params: &SketchParams,
    keep_shingles: bool,
    boilerplate: Option<BoilerplateConfig>,
    progress: &dyn Progress,
) -> Result<Loaded, Error> {
    let (sig_inputs, crawl_inputs): (Vec<Input>, Vec<Input>) =
        inputs.iter().cloned().partition(is_signature_input);
    if keep_shingles {
        if let Some(s) = sig_inputs.first().and_then(Input::as_path) {
            return Err(Error::SignaturesCannotVerify {
                path: s.to_path_buf(),
            });
        }
    }
    let family = Family::new(params);
    let start = Instant::now();
    // Duplicates found (and told) once for both passes.
    let skip = crate::inputs::duplicate_inputs_warned(&crawl_inputs, progress);
    // Boilerplate: a first pass counts (host, shingle) page frequencies.
    let filter = match boilerplate {
        Some(bc) => {
            let fam = family.clone();
            let run = crate::stream::run_skipping(
                &crawl_inputs,
                &skip,
                pipeline,
                || BoilerplateCounter::new(fam.clone(), &bc).every_status(pipeline.every_status),
                progress,
            )?;
            let mut parts = run.outputs.into_iter();
            let mut counts = parts.next().unwrap_or_else(|| HostShingleCounts::new(&bc));
            for p in parts {
                counts.merge(&p);
            }
            Some(Arc::new(BoilerplateFilter { config: bc, counts }))
        }
        None => None,
    };
    let sink = CorpusSink::new(family.clone(), keep_shingles);
    let make = || {
        let v = SketchVisitor::new(&sink)
            .every_status(pipeline.every_status)
            .payload_digests(pipeline.payload_digests)
            .prints(pipeline.prints);
        match &filter {
            Some(f) => v.with_boilerplate(f.clone()),
            None => v,
        }
    };
    // The hyperlink map needs every page's outlinks.
    let mut sketch_cfg = pipeline.clone();
    sketch_cfg.tokenizer.links |= params.rp_dims > 0;
    let run = crate::stream::run_skipping(&crawl_inputs, &skip, &sketch_cfg, make, progress)?;
    let (corpus, sources) = assemble(sink, run);
    let mut corpus = corpus.into_builder();
    for s in sig_inputs.iter().filter_map(Input::as_path) {
        let file = SignatureReader::open(s)?;
        if &file.params != params {
            return Err(Error::ParamsMismatch {
                path: s.to_path_buf(),
                file: Box::new(file.params.clone()),
                run: Box::new(params.clone()),
            });
        }
        if let Some(other) = file.languages_differ() {
            progress.warning(&format!(
                "{}: its pages' languages were told by {other}; this build tells them by {}: \
                 languages of its pages and of pages read now may disagree",
                s.display(),
                neardup_text::language::DETECTOR
            ));
        }
        corpus.add_signature_file(file)?;
    }
    Ok(Loaded {
        corpus: corpus.build(),
        sources,
        read_time: start.elapsed(),
        threads: pipeline.threads,
    })
}

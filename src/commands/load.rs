//! Builds a corpus of signatures from INPUT arguments: crawls are read and sketched, signature
//! files are loaded (their parameters must equal the run's).

use crate::flags::Common;
use crate::{inputs, progress::Bar};
use anyhow::{bail, Result};
use neardup_engine::boilerplate::{
    BoilerplateConfig, BoilerplateCounter, BoilerplateFilter, HostShingleCounts,
};
use neardup_engine::sketching::{assemble, SketchVisitor};
use neardup_engine::{Input, SourceReport};
use neardup_sketch::{Family, SketchParams};
use neardup_store::Corpus;
use neardup_store::SignatureReader;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A corpus and how it was made.
pub struct Loaded {
    pub corpus: Corpus,
    pub sources: Vec<SourceReport>,
    pub inputs: Vec<Input>,
    pub read_time: Duration,
    pub threads: usize,
}

pub fn load(
    common: &Common,
    params: &SketchParams,
    keep_shingles: bool,
    boilerplate: Option<BoilerplateConfig>,
    quiet: bool,
) -> Result<Loaded> {
    let all = inputs::expand(
        &common.inputs,
        common.input_format.map(Into::into),
        common.base_url.is_some(),
    )?;
    let (sig_inputs, crawl_inputs): (Vec<Input>, Vec<Input>) = all
        .iter()
        .cloned()
        .partition(|i| i.path.is_file() && SignatureReader::is_signature_file(&i.path));
    let family = Family::new(params);
    let cfg = common.pipeline();
    let start = Instant::now();
    let total: u64 = crawl_inputs
        .iter()
        .map(|i| std::fs::metadata(&i.path).map_or(0, |m| m.len()))
        .sum();
    // Boilerplate: a first pass counts (host, shingle) page frequencies.
    let filter = match boilerplate {
        Some(bc) => {
            let bar = Bar::new(total, quiet);
            let fam = family.clone();
            let run = neardup_engine::run(
                &crawl_inputs,
                &cfg,
                || BoilerplateCounter::new(fam.clone(), &bc),
                &bar,
            );
            bar.finish();
            let mut parts = run?.outputs.into_iter();
            let mut counts = parts.next().unwrap_or_else(|| HostShingleCounts::new(&bc));
            for p in parts {
                counts.merge(&p);
            }
            Some(Arc::new(BoilerplateFilter { config: bc, counts }))
        }
        None => None,
    };
    let bar = Bar::new(total, quiet);
    let fam = family.clone();
    let make = || {
        let v = SketchVisitor::new(fam.clone(), keep_shingles);
        match &filter {
            Some(f) => v.with_boilerplate(f.clone()),
            None => v,
        }
    };
    // The hyperlink map needs every page's outlinks.
    let mut sketch_cfg = cfg.clone();
    sketch_cfg.tokenizer.links |= params.rp_dims > 0;
    let run = neardup_engine::run(&crawl_inputs, &sketch_cfg, make, &bar);
    bar.finish();
    let (mut corpus, sources) = assemble(family, run?, keep_shingles);
    for s in &sig_inputs {
        if keep_shingles {
            bail!(
                "{}: --verify needs the crawl itself: signature files hold no shingle sets",
                s.path.display()
            );
        }
        let file = SignatureReader::open(&s.path)?;
        if &file.params != params {
            bail!(
                "{}: made with parameters {} but this run uses {}; pass the same -k/--minhashes/--supershingle-size/--supershingles/--seed/--no-wrap",
                s.path.display(),
                serde_json::to_string(&file.params)?,
                serde_json::to_string(params)?
            );
        }
        corpus.add_signature_file(file);
    }
    Ok(Loaded {
        corpus,
        sources,
        inputs: all,
        read_time: start.elapsed(),
        threads: cfg.threads,
    })
}

//! `neardup sketch`: signatures written once, clustered later.

use crate::flags::SketchArgs;
use anyhow::{bail, Result};
use neardup_store::SignatureWriter;

pub fn run(args: &SketchArgs, quiet: bool) -> Result<()> {
    let params = args.sketch.params()?;
    let loaded = super::load::load(&args.common, &params, false, None, quiet)?;
    let out = &args.output;
    if loaded
        .inputs
        .iter()
        .any(|i| i.path.canonicalize().ok() == out.canonicalize().ok() && out.exists())
    {
        bail!(
            "{}: refusing to write the signature file over an input",
            out.display()
        );
    }
    let c = &loaded.corpus;
    let mut w = SignatureWriter::create(out, &params, &c.inputs, c.len() as u64)?;
    for p in 0..c.len() {
        w.write(&c.record(p))?;
    }
    w.finish()?;
    if !quiet {
        let skipped: u64 = loaded.sources.iter().map(|s| s.stats.problem_count()).sum();
        println!(
            "sketched {} pages ({} without terms, {} not HTML/text, {} records skipped) from {} input(s) in {:.2} s",
            c.len(),
            c.empty_pages,
            c.other_pages,
            skipped,
            c.inputs.len(),
            loaded.read_time.as_secs_f64()
        );
        println!("wrote {} and {}.params.json", out.display(), out.display());
    }
    Ok(())
}

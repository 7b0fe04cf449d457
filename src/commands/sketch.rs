//! `neardup sketch`: signatures written once, clustered later.

use crate::flags::SketchArgs;
use anyhow::Result;

pub fn run(args: &SketchArgs, quiet: bool) -> Result<()> {
    let params = args.sketch.params()?;
    let inputs = crate::inputs::expand_common(&args.common)?;
    let out = &args.output;
    crate::output::Outputs::new(&inputs, args.common.force).file(out, |p| {
        neardup_store::SignatureReader::is_signature_file(p)
    })?;
    let bar = crate::progress::Bar::new(quiet);
    let mut pipeline = args.common.pipeline();
    pipeline.prints = args.prints;
    let r = neardup_engine::sketch::run(&inputs, &pipeline, &params, out, &bar)?;
    if !quiet {
        println!(
            "sketched {} pages ({} without terms, {} not HTML/text{}, {} records skipped) from {} input(s) in {:.2} s",
            r.pages,
            r.pages_without_terms,
            r.pages_not_html_or_text,
            super::not_pages_text(&r.not_pages),
            r.records_skipped,
            r.inputs.len(),
            r.seconds_read_and_sketch
        );
        print!("{}", super::skipped_text(&r.skipped));
        println!("wrote {} and {}.params.json", out.display(), out.display());
    }
    Ok(())
}

//! `neardup sketch`: signatures written once, clustered later.

use crate::flags::SketchArgs;
use anyhow::Result;

pub fn run(args: &SketchArgs, quiet: bool) -> Result<()> {
    let params = args.sketch.params()?;
    let inputs = crate::inputs::expand_common(&args.common)?;
    let out = &args.output;
    let outs = crate::output::Outputs::new(&inputs, args.common.force);
    outs.file(out, |p| {
        neardup_store::SignatureReader::is_signature_file(p)
    })?;
    // Its parameters go beside it: a file of that name must be parameters neardup wrote.
    let mut side = out.as_os_str().to_owned();
    side.push(".params.json");
    outs.file(std::path::Path::new(&side), |p| {
        std::fs::read(p)
            .is_ok_and(|b| serde_json::from_slice::<neardup_sketch::SketchParams>(&b).is_ok())
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

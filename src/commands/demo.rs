//! `neardup demo DIR`: the example world ([`neardup_demo`]), and what to try first.

use crate::flags::DemoArgs;
use anyhow::Result;

pub fn run(args: &DemoArgs, quiet: bool) -> Result<()> {
    let world = neardup_demo::write(&args.dir)?;
    if quiet {
        return Ok(());
    }
    println!(
        "wrote {} ({} files, {:.1} MB):",
        world.dir.display(),
        world.files,
        world.bytes as f64 / 1e6
    );
    for e in &world.entries {
        println!("  {:<26} {}", e.path, e.about);
    }
    println!(
        "\nTry, in {}:\n  neardup dedup crawl/ --out out/            # near-duplicate clusters, out/report.html\n  neardup changes week1/ week2/ week3/       # how each URL changed, week to week\n  neardup paragraphs corpus.jsonl --out par/ # repeated paragraphs\nREADME.md's examples all run there.",
        world.dir.display()
    );
    Ok(())
}

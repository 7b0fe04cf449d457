//! `neardup report DIR`: the folder's HTML report, rebuilt from its files.

use crate::flags::ReportArgs;
use anyhow::Result;

pub fn run(args: &ReportArgs, quiet: bool) -> Result<()> {
    let outs = crate::output::Outputs::over_paths(std::iter::empty(), false);
    let path = outs.report(&args.dir)?;
    if !quiet {
        println!("wrote {path}");
    }
    Ok(())
}

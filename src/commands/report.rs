//! `neardup report DIR`: the folder's HTML report, rebuilt from its files.

use crate::flags::ReportArgs;
use anyhow::Result;

pub fn run(args: &ReportArgs, quiet: bool) -> Result<()> {
    if let Some(t) = args.replay_url.as_deref() {
        crate::commands::dedup::check_replay_url(t)?;
    }
    let outs = crate::output::Outputs::over_paths(std::iter::empty(), false);
    let limits = neardup_html::Limits {
        replay_url: args.replay_url.clone(),
        ..neardup_html::Limits::default()
    };
    let path = outs.report_with(&args.dir, &limits)?;
    if !quiet {
        println!("wrote {path}");
    }
    Ok(())
}

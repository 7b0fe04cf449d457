//! One module per subcommand.

pub mod dedup;
pub mod eval;
pub mod evolve;
pub mod mirrors;
pub mod overlap;
pub mod replicas;
pub mod scan;
pub mod sketch;

use neardup_engine::clusters::ClusterSource;
use std::collections::HashMap;
use std::path::PathBuf;

/// Where a site command's clusters come from: `--clusters FILE`, `--exact`, or `--level`.
pub(crate) fn cluster_source(
    file: &Option<PathBuf>,
    exact: bool,
    level: &str,
    params: &neardup_sketch::SketchParams,
) -> anyhow::Result<ClusterSource> {
    Ok(match file {
        Some(p) => ClusterSource::File(p.clone()),
        None if exact => ClusterSource::Exact,
        None => ClusterSource::Supershingles {
            min_agree: dedup::level(level, params.supershingles)?,
        },
    })
}

/// `--hosts-ips FILE`, read.
pub(crate) fn hosts_ips(file: &Option<PathBuf>) -> anyhow::Result<HashMap<String, Vec<String>>> {
    Ok(match file {
        Some(p) => neardup_ingest::read_hosts_ips(p)?,
        None => HashMap::new(),
    })
}

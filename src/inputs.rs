//! Turning INPUT arguments into the list of inputs a run reads.

use anyhow::{bail, Result};
use neardup_engine::Input;
use neardup_ingest::{Format, PassedOver};
use std::path::{Path, PathBuf};

/// `data/NAME` under the current directory (the committed samples, when run from a checkout).
/// An installed binary never reads the tree it was built from.
pub fn data_dir(name: &str) -> Result<PathBuf> {
    let here = Path::new("data").join(name);
    if here.is_dir() {
        return Ok(here);
    }
    bail!(
        "no INPUT given and no sample in ./data/{name} (run from a neardup checkout, or pass INPUT: crawl files or folders)"
    )
}

/// Expands the INPUT arguments ([`neardup_engine::expand`], the library's folder walk: a folder
/// stands for the crawl files anywhere below it, else for its HTML files). No argument means
/// the sample crawl. Files below a folder that are not read are named on stderr: those worth a
/// warning always (names that look like crawl files, dangling links, loops), every one with
/// `-v`, none with `-q`.
pub fn expand(args: &[PathBuf], format: Option<Format>, base_url: bool) -> Result<Vec<Input>> {
    let args: Vec<PathBuf> = if args.is_empty() {
        vec![data_dir("sample")?]
    } else {
        args.to_vec()
    };
    let expanded =
        neardup_engine::expand(&args, format, base_url).map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some(text) = passed_over(&expanded.passed_over) {
        eprint!("{text}");
    }
    Ok(expanded.inputs)
}

/// The words for the files below the folders that are not read; `None` when there is nothing
/// to say, or with `-q`.
fn passed_over(passed: &[PassedOver]) -> Option<String> {
    use std::sync::atomic::Ordering::Relaxed;
    let all = crate::flags::VERBOSE.load(Relaxed) > 0;
    let named: Vec<&PassedOver> = passed.iter().filter(|p| all || p.why.warns()).collect();
    if named.is_empty() || crate::flags::QUIET.load(Relaxed) {
        return None;
    }
    let mut t = if all {
        format!(
            "{} file(s) below the input folders passed over (read: .warc, .arc, .jsonl, .parquet, optionally .gz or .zst, and .wacz packages):\n",
            passed.len()
        )
    } else {
        format!(
            "warning: {} file(s) below the input folders and packages are not read or damaged ({} file(s) passed over; -v lists them all):\n",
            named.len(),
            passed.len()
        )
    };
    for p in named {
        t.push_str(&format!("  {}: {}\n", p.path.display(), p.reason()));
    }
    Some(t)
}

/// [`expand`] for a command's common flags.
pub fn expand_common(c: &crate::flags::Common) -> Result<Vec<Input>> {
    expand(
        &c.inputs,
        c.input_format.map(Into::into),
        c.base_url.is_some(),
    )
}

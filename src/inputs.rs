//! Turning INPUT arguments into the list of inputs a run reads.

use anyhow::{bail, Context, Result};
use neardup_engine::Input;
use neardup_ingest::Format;
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

fn is_crawl_file(p: &Path) -> bool {
    neardup_ingest::format_from_name(p)
        .is_some_and(|f| f != Format::Jsonl || !p.to_string_lossy().ends_with(".json"))
}

/// Expands the INPUT arguments. No argument means the sample crawl. A folder that holds crawl
/// files (and no `--base-url` was given) stands for those files, sorted; any other folder is a
/// folder of HTML files.
pub fn expand(args: &[PathBuf], format: Option<Format>, base_url: bool) -> Result<Vec<Input>> {
    let args: Vec<PathBuf> = if args.is_empty() {
        vec![data_dir("sample")?]
    } else {
        args.to_vec()
    };
    let mut out = Vec::new();
    for a in args {
        let meta =
            std::fs::metadata(&a).with_context(|| format!("{}: cannot read input", a.display()))?;
        if meta.is_dir() && !base_url && format.is_none_or(|f| f != Format::HtmlDir) {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&a)
                .with_context(|| format!("{}: cannot list folder", a.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_crawl_file(p))
                .collect();
            if !files.is_empty() {
                files.sort();
                out.extend(files.into_iter().map(|path| Input::file_as(path, format)));
                continue;
            }
        }
        out.push(Input::file_as(a, format));
    }
    Ok(out)
}

/// [`expand`] for a command's common flags.
pub fn expand_common(c: &crate::flags::Common) -> Result<Vec<Input>> {
    expand(
        &c.inputs,
        c.input_format.map(Into::into),
        c.base_url.is_some(),
    )
}

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
            let (mut files, mut passed): (Vec<PathBuf>, Vec<PathBuf>) = std::fs::read_dir(&a)
                .with_context(|| format!("{}: cannot list folder", a.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .partition(|p| is_crawl_file(p));
            if !files.is_empty() {
                files.sort();
                passed.sort();
                if let Some(text) = passed_over(&a, &passed) {
                    eprint!("{text}");
                }
                out.extend(files.into_iter().map(|path| Input::file_as(path, format)));
                continue;
            }
        }
        out.push(Input::file_as(a, format));
    }
    Ok(out)
}

/// The warning for the files of a crawl folder that are not read (their names are no crawl
/// format's): those whose names look like a crawl's (`.warc`, `.arc`, `.jsonl`, `.parquet`
/// inside, `example.warc.gz.bad`) always; with `-v`, every one (a manifest, notes). `None` when
/// there is nothing to say, or with `-q`.
fn passed_over(folder: &Path, passed: &[PathBuf]) -> Option<String> {
    use std::sync::atomic::Ordering::Relaxed;
    let all = crate::flags::VERBOSE.load(Relaxed) > 0;
    let looks_like_crawl = |p: &&PathBuf| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase());
        name.is_some_and(|n| {
            [".warc", ".arc", ".jsonl", ".parquet"]
                .iter()
                .any(|e| n.contains(e))
        })
    };
    let named: Vec<&PathBuf> = passed
        .iter()
        .filter(|p| all || looks_like_crawl(p))
        .collect();
    if named.is_empty() || crate::flags::QUIET.load(Relaxed) {
        return None;
    }
    let mut t = if all {
        format!(
            "{}: {} file(s) passed over, not crawl files by name (read: .warc, .arc, .jsonl, .parquet, optionally .gz or .zst):\n",
            folder.display(),
            passed.len()
        )
    } else {
        format!(
            "warning: {}: {} file(s) look like crawl files but are not read: their names end in no crawl format ({} file(s) passed over; -v lists them all):\n",
            folder.display(),
            named.len(),
            passed.len()
        )
    };
    for p in named {
        t.push_str(&format!("  {}\n", p.display()));
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

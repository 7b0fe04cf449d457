//! The inputs that paths named by a user stand for, the same in every door: a file is itself;
//! a WACZ package stands for its WARC files (each named as a path through the package,
//! [`neardup_ingest::wacz`]); a folder stands for the crawl files anywhere below it
//! ([`neardup_ingest::walk_folder`]), packages expanded the same way, or, when it holds none
//! (or HTML folders are asked for), for the HTML files in it. An input that is the same file as
//! an earlier one (by path, or by size and content digest) is read once. `-` is standard input
//! (a stream of WARC, ARC or JSONL, read once).

use std::path::{Path, PathBuf};

use neardup_ingest::wacz::{is_wacz_name, Package};
use neardup_ingest::{Format, IngestError, PassedOver, PassedWhy};

use crate::{Error, Input, Progress};

/// The inputs of a run, and the files below its folders that are not read.
#[derive(Debug, Default)]
pub struct Expanded {
    /// What is read, in the order named (a folder's crawl files in name order).
    pub inputs: Vec<Input>,
    /// Files below the folders that are not read, and why; a front end names those that
    /// [`neardup_ingest::PassedWhy::warns`], and every one when asked to say more.
    pub passed_over: Vec<PassedOver>,
}

/// Expands `paths`. `format` forces the format of every file; `html_folders` (a base URL
/// given for HTML files, or `format` [`Format::HtmlDir`]) reads every folder as HTML files.
pub fn expand(
    paths: &[PathBuf],
    format: Option<Format>,
    html_folders: bool,
) -> Result<Expanded, Error> {
    let mut out = Expanded::default();
    let html_folders = html_folders || format == Some(Format::HtmlDir);
    for path in paths {
        if path.as_os_str() == neardup_ingest::STDIN_NAME {
            if out.inputs.iter().any(|i| matches!(i, Input::Stdin { .. })) {
                return Err(crate::SettingsError::new(
                    "input",
                    neardup_ingest::STDIN_NAME,
                    "standard input named twice (it can be read once)",
                )
                .into());
            }
            out.inputs.push(Input::Stdin { format });
            continue;
        }
        let open = |source| IngestError::Open {
            path: path.clone(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(open)?;
        if meta.is_dir() && !html_folders {
            let walk = neardup_ingest::walk_folder(path).map_err(open)?;
            if !walk.crawl_files.is_empty() {
                for file in walk.crawl_files {
                    if is_wacz_name(&file) {
                        if let Err(e) = package(&file, format, &mut out) {
                            out.passed_over.push(PassedOver {
                                path: file,
                                why: PassedWhy::Unreadable,
                                detail: e.to_string(),
                            });
                        }
                    } else {
                        out.inputs.push(Input::file_as(file, format));
                    }
                }
                out.passed_over.extend(walk.passed_over);
                continue;
            }
        }
        if meta.is_file() && format != Some(Format::HtmlDir) && is_wacz_name(path) {
            package(path, format, &mut out).map_err(open)?;
            continue;
        }
        out.inputs.push(Input::file_as(path.clone(), format));
    }
    Ok(out)
}

/// A WACZ package's WARC files, as inputs (its damaged parts passed over, with why). A package
/// with none is passed over, named.
fn package(path: &Path, format: Option<Format>, out: &mut Expanded) -> std::io::Result<()> {
    let p = Package::open(path)?;
    let warcs = p.warcs();
    for m in &warcs {
        out.inputs.push(Input::file_as(path.join(&m.name), format));
    }
    for d in &p.damage {
        out.passed_over.push(PassedOver {
            path: if d.member.is_empty() {
                path.to_path_buf()
            } else {
                path.join(&d.member)
            },
            why: PassedWhy::DamagedMember,
            detail: format!("at byte {}: {}", d.offset, d.reason),
        });
    }
    if warcs.is_empty() {
        out.passed_over.push(PassedOver {
            path: path.to_path_buf(),
            why: PassedWhy::PackageWithoutWarcs,
            detail: String::new(),
        });
    }
    Ok(())
}

/// A file's XXH3-128 (seed 0) over its bytes, and its size: how an input is recognized as the
/// same file (here, and by the index's record of the files it added).
pub fn file_digest(path: &std::path::Path) -> std::io::Result<(u128, u64)> {
    let mut f = neardup_ingest::files::open(path)?;
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        match std::io::Read::read(&mut f, &mut buf) {
            Ok(0) => return Ok((h.digest128(), bytes)),
            Ok(n) => {
                h.update(&buf[..n]);
                bytes += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// For every input, the earlier input it is the same file as (by canonical path, or by size and
/// content digest), if any: read once.
pub fn duplicate_inputs(inputs: &[Input]) -> Vec<Option<usize>> {
    use std::collections::HashMap;
    let mut out = vec![None; inputs.len()];
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    let mut by_size: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut digests: HashMap<usize, Option<u128>> = HashMap::new();
    let digest =
        |i: usize| -> Option<u128> { file_digest(inputs[i].as_path()?).ok().map(|(d, _)| d) };
    for (i, input) in inputs.iter().enumerate() {
        let Some(path) = input.as_path() else {
            continue;
        };
        let Ok(canon) = neardup_ingest::files::canonicalize(path) else {
            continue;
        };
        if let Some(&first) = by_path.get(&canon) {
            out[i] = Some(first);
            continue;
        }
        by_path.insert(canon, i);
        if !neardup_ingest::files::is_file(path) {
            continue;
        }
        let Ok(size) = neardup_ingest::files::len(path) else {
            continue;
        };
        if size == 0 {
            continue;
        }
        let same_size = by_size.entry(size).or_default();
        for &j in same_size.iter() {
            let dj = *digests.entry(j).or_insert_with(|| digest(j));
            let di = *digests.entry(i).or_insert_with(|| digest(i));
            if dj.is_some() && dj == di {
                out[i] = Some(j);
                break;
            }
        }
        if out[i].is_none() {
            same_size.push(i);
        }
    }
    out
}

/// [`duplicate_inputs`], each duplicate told to `progress` as a warning.
pub fn duplicate_inputs_warned(inputs: &[Input], progress: &dyn Progress) -> Vec<Option<usize>> {
    let skip = duplicate_inputs(inputs);
    for (i, d) in skip.iter().enumerate() {
        if let Some(first) = d {
            progress.warning(&format!(
                "{}: the same file as {}; read once",
                inputs[i].name(),
                inputs[*first].name()
            ));
        }
    }
    skip
}

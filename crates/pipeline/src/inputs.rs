//! The inputs that paths named by a user stand for, the same in every door: a file is itself;
//! a WACZ package stands for its WARC files (each named as a path through the package,
//! [`neardup_ingest::wacz`]); a folder stands for the crawl files anywhere below it
//! ([`neardup_ingest::walk_folder`]), packages expanded the same way, or, when it holds none
//! (or HTML folders are asked for), for the HTML files in it.

use std::path::{Path, PathBuf};

use neardup_ingest::wacz::{is_wacz_name, Package};
use neardup_ingest::{Format, IngestError, PassedOver, PassedWhy};

use crate::{Error, Input};

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

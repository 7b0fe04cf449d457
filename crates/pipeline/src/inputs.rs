//! The inputs that paths named by a user stand for, the same in every door: a file is itself;
//! a folder stands for the crawl files anywhere below it ([`neardup_ingest::walk_folder`]), or,
//! when it holds none (or HTML folders are asked for), for the HTML files in it.

use std::path::PathBuf;

use neardup_ingest::{Format, IngestError, PassedOver};

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
                out.inputs.extend(
                    walk.crawl_files
                        .into_iter()
                        .map(|file| Input::file_as(file, format)),
                );
                out.passed_over.extend(walk.passed_over);
                continue;
            }
        }
        out.inputs.push(Input::file_as(path.clone(), format));
    }
    Ok(out)
}

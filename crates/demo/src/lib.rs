//! The example world: the files every example of README.md and python/README.md names, written
//! by `neardup demo DIR` (and `neardup.demo(DIR)`), so that a newcomer's first commands find
//! something and the docs test runs the examples on the same files.
//!
//! Everything is made from the sample crawl committed in `data/sample/` (real rustdoc pages,
//! built into the binary) and from fixed rules, so a world is the same bytes every time:
//!
//! | path | what |
//! |---|---|
//! | `crawl/` | the sample crawl: Rust's documentation in three versions (1,063 pages) |
//! | `week1/` .. `week3/` | three weekly crawls of one URL space made from the stable version: dated pages, a few words edited, a page gone, one moved, one rewritten, one replaced, a copy on a mirror host (`week3/` in two files, as two crawler processes write it) |
//! | `collection/` | weeks 1 and 2 as an archive stores them: week 2's unchanged pages as revisit records, one revisit whose original is missing |
//! | `packages/` | the same two weeks as WACZ packages, as a deduplicating crawler (Browsertrix) writes them: week 2's revisits name week 1's package as their container, and week 2's `datapackage.json` requires it and a package that is missing |
//! | `damaged.warc.gz` | week 1 with one record's gzip member damaged |
//! | `corpus.jsonl` | documents (the sample's prose) with near-duplicates, a repeated notice paragraph and a few pages in French, German and Spanish |
//! | `rows.parquet` | an earlier dump: the corpus's first 120 documents |
//! | `pages.jsonl.zst` | the corpus under other field names (`doc_id`, `content`), zstd |
//! | `eval.jsonl` | a benchmark of 12 items, 4 of them leaked into the corpus |
//! | `labels.csv` | labelled page pairs of `crawl/` for `neardup eval` |
//! | `sites.warc.gz`, `site-labels.csv` | the replica crawl of the tests and its site-pair labels |
//! | `site/` | a folder of HTML files |
//! | `response.http`, `lookup.json` | one page of `crawl/`, as an HTTP response and as a lookup body |
//! | `hosts.csv` | host to IP, for `neardup mirrors --hosts-ips` |

mod corpus;
mod labels;
mod sample;
mod site;
mod text;
pub mod wacz;
pub mod warc;
mod weeks;

use std::path::{Path, PathBuf};

/// Why a world could not be written.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The folder holds files already: nothing is overwritten.
    #[error("{0} is not empty: `neardup demo` writes a new folder (give another path, or remove this one)")]
    NotEmpty(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The built-in sample could not be read (a broken build).
    #[error("the built-in sample crawl: {0}")]
    Sample(String),
    #[error("writing {path}: {message}")]
    Format { path: PathBuf, message: String },
}

/// One file or folder of the world and what it is.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Relative to the world's folder.
    pub path: String,
    pub about: String,
}

/// What was written.
#[derive(Clone, Debug)]
pub struct World {
    pub dir: PathBuf,
    pub entries: Vec<Entry>,
    pub files: usize,
    pub bytes: u64,
}

/// Files collected in memory before the folder is written.
#[derive(Default)]
pub(crate) struct Files {
    files: Vec<(String, Vec<u8>)>,
    entries: Vec<Entry>,
}

impl Files {
    pub(crate) fn add(&mut self, path: &str, bytes: Vec<u8>) {
        self.files.push((path.to_string(), bytes));
    }

    pub(crate) fn about(&mut self, path: &str, about: &str) {
        self.entries.push(Entry {
            path: path.to_string(),
            about: about.to_string(),
        });
    }
}

/// Writes the world into `dir`, which must not exist or be empty. The files are written into a
/// hidden folder beside it and renamed into place at the end, so an interrupted run leaves no
/// half world under the name.
pub fn write(dir: &Path) -> Result<World, DemoError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DemoError::Io { path, source }
    };
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        if entries.next().is_some() {
            return Err(DemoError::NotEmpty(dir.to_path_buf()));
        }
    } else if dir.exists() {
        return Err(DemoError::NotEmpty(dir.to_path_buf()));
    }
    let files = build()?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "world".into());
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let tmp = parent.join(format!(".{name}.neardup-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let mut bytes = 0;
    for (rel, data) in &files.files {
        let path = tmp.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(io(p))?;
        }
        std::fs::write(&path, data).map_err(io(&path))?;
        bytes += data.len() as u64;
    }
    if dir.exists() {
        // Empty (checked above): replaced by the new folder.
        std::fs::remove_dir(dir).map_err(io(dir))?;
    }
    if let Err(e) = std::fs::rename(&tmp, dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(DemoError::Io {
            path: dir.to_path_buf(),
            source: e,
        });
    }
    Ok(World {
        dir: dir.to_path_buf(),
        entries: files.entries,
        files: files.files.len(),
        bytes,
    })
}

/// Every file of the world, in memory.
fn build() -> Result<Files, DemoError> {
    let sample = sample::Sample::read()?;
    let mut files = Files::default();
    sample::write_crawl(&mut files);
    weeks::write(&sample, &mut files)?;
    corpus::write(&sample, &mut files)?;
    labels::write(&sample, &mut files);
    site::write(&sample, &mut files);
    let mut readme =
        String::from("The example world of neardup's README (written by `neardup demo`).\n\n");
    for e in &files.entries {
        readme.push_str(&format!("{:<22} {}\n", e.path, e.about));
    }
    files.add("README.txt", readme.into_bytes());
    Ok(files)
}

#[cfg(test)]
mod tests;

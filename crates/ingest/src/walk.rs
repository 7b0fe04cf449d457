//! What a folder given as input stands for, decided once for every door (the CLI, Python's
//! `paths=`, the index's adds): the crawl files anywhere below it, walked recursively in name
//! order, or, when it holds none, a folder of HTML files. Every file below that is not read is
//! named with the reason ([`PassedOver`]), so that nothing is left out without a word.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

/// Why a file or link below a folder is not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PassedWhy {
    /// Its name ends in no crawl format (a manifest, notes).
    NoCrawlName,
    /// Its name looks like a crawl file's (`.warc` inside, `x.warc.gz.bad`) but ends in no
    /// crawl format: worth a warning.
    LooksLikeCrawl,
    /// A symbolic link to nothing.
    DanglingLink,
    /// A link to a folder already walked (a loop, or a second way to the same files).
    Loop,
    /// It could not be listed or examined.
    Unreadable,
    /// A damaged part of a WACZ package (the rest of the package is read; a member cut short
    /// is read up to the cut).
    DamagedMember,
    /// A WACZ package with no WARC file under `archive/`.
    PackageWithoutWarcs,
}

impl PassedWhy {
    /// Whether a user who did not ask for every detail should still hear of it.
    pub fn warns(self) -> bool {
        !matches!(self, PassedWhy::NoCrawlName)
    }

    /// The reason in words.
    pub fn words(self) -> &'static str {
        match self {
            PassedWhy::NoCrawlName => "not a crawl file by name",
            PassedWhy::LooksLikeCrawl => {
                "looks like a crawl file, but its name ends in no crawl format"
            }
            PassedWhy::DanglingLink => "a link to nothing",
            PassedWhy::Loop => "a link to a folder already walked",
            PassedWhy::Unreadable => "cannot be read",
            PassedWhy::DamagedMember => "a damaged part of a WACZ package",
            PassedWhy::PackageWithoutWarcs => "a WACZ package with no WARC file under archive/",
        }
    }
}

/// A file (or link) below a folder that is not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassedOver {
    /// Its path.
    pub path: PathBuf,
    /// Why.
    pub why: PassedWhy,
    /// What was found, when there is more to say than [`PassedWhy::words`] (empty otherwise).
    pub detail: String,
}

impl PassedOver {
    /// Why, in words, with the detail.
    pub fn reason(&self) -> String {
        if self.detail.is_empty() {
            self.why.words().to_string()
        } else {
            format!("{}: {}", self.why.words(), self.detail)
        }
    }
}

/// A folder walked: the crawl files below it, in name order (empty: a folder of HTML files),
/// and everything else below it that is not read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// Crawl files (by name: `.warc`, `.arc`, `.jsonl`, `.ndjson`, `.parquet`, optionally
    /// `.gz`, `.zst`), sorted by path.
    pub crawl_files: Vec<PathBuf>,
    /// Files below the folder that are not read, sorted by path. When there are no crawl
    /// files, the folder is read as HTML files and this is empty.
    pub passed_over: Vec<PassedOver>,
}

/// Whether a file is a crawl file by its name (a `.json` file is not: a manifest or a
/// configuration, more often than pages; a `.wacz` package is, standing for its WARC files).
pub fn is_crawl_file(path: &Path) -> bool {
    crate::wacz::is_wacz_name(path)
        || crate::format_from_name(path).is_some_and(|f| {
            f != crate::Format::Jsonl
                || !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().ends_with(".json"))
        })
}

fn looks_like_crawl(path: &Path) -> bool {
    path.file_name().is_some_and(|n| {
        let n = n.to_string_lossy().to_ascii_lowercase();
        [".warc", ".arc", ".jsonl", ".ndjson", ".parquet"]
            .iter()
            .any(|e| n.contains(e))
    })
}

/// Walks `dir` recursively, following links to files and folders (each folder once).
pub fn walk_folder(dir: &Path) -> io::Result<Walk> {
    let mut seen = HashSet::new();
    seen.insert(dir.canonicalize()?);
    let mut files = Vec::new();
    let mut passed = Vec::new();
    visit(dir, &mut seen, &mut files, &mut passed)?;
    if files.is_empty() {
        return Ok(Walk::default());
    }
    files.sort();
    passed.sort_by(|a: &PassedOver, b| a.path.cmp(&b.path));
    Ok(Walk {
        crawl_files: files,
        passed_over: passed,
    })
}

fn visit(
    dir: &Path,
    seen: &mut HashSet<PathBuf>,
    files: &mut Vec<PathBuf>,
    passed: &mut Vec<PassedOver>,
) -> io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    entries.sort();
    for path in entries {
        let pass = |why| PassedOver {
            path: path.clone(),
            why,
            detail: String::new(),
        };
        // `metadata` follows links; a link to nothing fails here.
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(_) if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink()) => {
                passed.push(pass(PassedWhy::DanglingLink));
                continue;
            }
            Err(_) => {
                passed.push(pass(PassedWhy::Unreadable));
                continue;
            }
        };
        if meta.is_dir() {
            let Ok(real) = path.canonicalize() else {
                passed.push(pass(PassedWhy::Unreadable));
                continue;
            };
            if !seen.insert(real) {
                passed.push(pass(PassedWhy::Loop));
                continue;
            }
            if visit(&path, seen, files, passed).is_err() {
                passed.push(pass(PassedWhy::Unreadable));
            }
        } else if is_crawl_file(&path) {
            files.push(path);
        } else if looks_like_crawl(&path) {
            passed.push(pass(PassedWhy::LooksLikeCrawl));
        } else {
            passed.push(pass(PassedWhy::NoCrawlName));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawl_files_anywhere_below_in_name_order_and_the_rest_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "2024-02/b.warc.gz",
            "2024-01/z.warc.gz",
            "2024-01/a.warc.gz",
            "2024-01/deep/c.jsonl",
            "top.arc",
            "manifest.json",
            "notes.txt",
            "2024-01/x.warc.gz.bad",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, b"x").unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("gone.warc.gz"), root.join("dangling.warc.gz"))
                .unwrap();
            std::os::unix::fs::symlink(root, root.join("2024-02/loop")).unwrap();
        }
        let w = walk_folder(root).unwrap();
        let rel = |p: &Path| p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let files: Vec<String> = w.crawl_files.iter().map(|p| rel(p)).collect();
        assert_eq!(
            files,
            [
                "2024-01/a.warc.gz",
                "2024-01/deep/c.jsonl",
                "2024-01/z.warc.gz",
                "2024-02/b.warc.gz",
                "top.arc"
            ]
        );
        let passed: Vec<(String, PassedWhy)> = w
            .passed_over
            .iter()
            .map(|p| (rel(&p.path), p.why))
            .collect();
        let mut want = vec![
            (
                "2024-01/x.warc.gz.bad".to_string(),
                PassedWhy::LooksLikeCrawl,
            ),
            ("manifest.json".to_string(), PassedWhy::NoCrawlName),
            ("notes.txt".to_string(), PassedWhy::NoCrawlName),
        ];
        #[cfg(unix)]
        {
            want.push(("2024-02/loop".to_string(), PassedWhy::Loop));
            want.push(("dangling.warc.gz".to_string(), PassedWhy::DanglingLink));
        }
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(passed, want);
    }

    #[test]
    fn a_folder_without_crawl_files_is_html() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/index.html"), b"<p>x</p>").unwrap();
        assert_eq!(walk_folder(dir.path()).unwrap(), Walk::default());
    }
}

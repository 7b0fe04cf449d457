//! The WACZ packages an audit reads and the ones its packages need (issue 59): a package's
//! `datapackage.json` lists the packages its revisits depend on (`relation.requires`, as
//! browsertrix-crawler writes it for a deduplicated crawl), and a revisit names the package
//! holding its original (`WARC-Refers-To-Container: file://NAME.wacz`). Each is looked for
//! beside the package that needs it; one found is read with the others (its WARC files become
//! inputs), one that is not is named.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use neardup_ingest::files;
use neardup_ingest::wacz::{self, Package};
use serde::Serialize;

use crate::{Error, Input};

/// A package the audit read or needed.
#[derive(Clone, Debug, Serialize)]
pub struct PackageRow {
    /// Its path when found, else the name it was asked for by.
    pub package: String,
    /// Whether it was found (and read).
    pub found: bool,
    /// Why it was read: `given`, `required` (a package's `relation.requires`), `referred`
    /// (a revisit's `WARC-Refers-To-Container`); the first reason.
    pub read_as: &'static str,
    /// The packages whose `relation.requires` name it.
    pub required_by: Vec<String>,
    /// The crawl id `relation.requires` gives for it, when one does.
    pub crawl_id: String,
    /// Revisits whose `WARC-Refers-To-Container` names it.
    pub referred_by_revisits: u64,
    /// What is wrong with it, when it was found but cannot be read, or its `datapackage.json`
    /// cannot be (empty otherwise).
    pub problem: String,
}

impl PackageRow {
    fn new(package: String, found: bool, read_as: &'static str) -> PackageRow {
        PackageRow {
            package,
            found,
            read_as,
            required_by: Vec::new(),
            crawl_id: String::new(),
            referred_by_revisits: 0,
            problem: String::new(),
        }
    }
}

/// The packages of one audit, by name (the file name: what `requires` and containers give).
#[derive(Default)]
pub(crate) struct Packages {
    rows: BTreeMap<String, PackageRow>,
    /// Packages read, with where they are (for `requires` not yet followed).
    read: Vec<(String, PathBuf)>,
    followed: usize,
}

/// The name a reference gives (`file://a.wacz`, `s3://bucket/x/a.wacz`, `a.wacz`): its file
/// name.
pub(crate) fn name_of(reference: &str) -> String {
    let r = reference.split(['?', '#']).next().unwrap_or(reference);
    r.rsplit(['/', '\\']).next().unwrap_or(r).to_string()
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

impl Packages {
    /// The packages `inputs` are in (given).
    pub(crate) fn of(inputs: &[Input]) -> Packages {
        let mut p = Packages::default();
        for i in inputs {
            if let Some(pkg) = i.as_path().and_then(files::package_of) {
                p.note_read(&pkg, "given");
            }
        }
        p
    }

    fn note_read(&mut self, pkg: &Path, why: &'static str) {
        let name = name_of(&pkg.to_string_lossy());
        if self.read.iter().any(|(n, _)| *n == name) {
            return;
        }
        self.read.push((name.clone(), pkg.to_path_buf()));
        let row = self
            .rows
            .entry(name)
            .or_insert_with(|| PackageRow::new(display(pkg), true, why));
        row.package = display(pkg);
        row.found = true;
    }

    /// A package asked for by `name` from beside `near` (a package or a file): its path when
    /// it is there, else recorded as missing.
    fn want(&mut self, name: &str, near: &Path, why: &'static str) -> Option<PathBuf> {
        let beside = near.parent().unwrap_or(Path::new(".")).join(name);
        let row = self
            .rows
            .entry(name.to_string())
            .or_insert_with(|| PackageRow::new(name.to_string(), false, why));
        if row.found || self.read.iter().any(|(n, _)| n == name) {
            return None;
        }
        if beside.is_file() {
            row.package = display(&beside);
            row.found = true;
            row.read_as = why;
            return Some(beside);
        }
        None
    }

    /// Reads the `relation.requires` of every package read and not yet followed, adding the
    /// WARC files of those found to `inputs` (and theirs in turn). Returns whether any was
    /// added.
    pub(crate) fn follow_requires(&mut self, inputs: &mut Vec<Input>) -> Result<bool, Error> {
        let mut added = false;
        while self.followed < self.read.len() {
            let (name, pkg) = self.read[self.followed].clone();
            self.followed += 1;
            let dp = match Package::open(&pkg)
                .and_then(|p| wacz::datapackage(&pkg, &p).map(|d| (p, d)))
            {
                Ok((_, Some(Ok(dp)))) => dp,
                Ok((_, None)) => continue,
                Ok((_, Some(Err(e)))) => {
                    self.problem(&name, e.to_string());
                    continue;
                }
                Err(e) => {
                    self.problem(&name, e.to_string());
                    continue;
                }
            };
            for r in &dp.requires {
                let want = name_of(&r.filename);
                let found = self.want(&want, &pkg, "required");
                let row = self.rows.get_mut(&want).expect("just noted");
                if !row.required_by.contains(&name) {
                    row.required_by.push(name.clone());
                }
                if row.crawl_id.is_empty() {
                    row.crawl_id = r.crawl_id.clone();
                }
                if let Some(path) = found {
                    added |= self.add(&path, "required", inputs)?;
                }
            }
        }
        Ok(added)
    }

    fn problem(&mut self, name: &str, e: String) {
        if let Some(row) = self.rows.get_mut(name) {
            row.problem = e;
        }
    }

    /// Adds a found package's WARC files to `inputs`.
    fn add(
        &mut self,
        pkg: &Path,
        why: &'static str,
        inputs: &mut Vec<Input>,
    ) -> Result<bool, Error> {
        match crate::expand(&[pkg.to_path_buf()], None, false) {
            Ok(e) => {
                inputs.extend(e.inputs);
                self.note_read(pkg, why);
                Ok(true)
            }
            Err(e) => {
                let name = name_of(&pkg.to_string_lossy());
                self.problem(&name, e.to_string());
                Ok(false)
            }
        }
    }

    /// Follows the containers of the revisits left unresolved: each package named, when found
    /// beside the file of a revisit naming it and not read yet, is added to `inputs`. Counts
    /// the revisits naming each. Returns whether any was added.
    pub(crate) fn follow_containers(
        &mut self,
        unresolved: &[(String, String)],
        inputs: &mut Vec<Input>,
    ) -> Result<bool, Error> {
        let mut added = false;
        for (file, container) in unresolved {
            if container.is_empty() {
                continue;
            }
            let name = name_of(container);
            let near = files::package_of(Path::new(file)).unwrap_or_else(|| PathBuf::from(file));
            if let Some(path) = self.want(&name, &near, "referred") {
                added |= self.add(&path, "referred", inputs)?;
            }
        }
        Ok(added)
    }

    /// Counts the revisits naming each package (every revisit's (file, container), after the
    /// last pass); the packages read and needed.
    pub(crate) fn finish(&mut self, all: &[(String, String)]) -> Vec<PackageRow> {
        for (_, container) in all {
            if container.is_empty() {
                continue;
            }
            let name = name_of(container);
            let row = self
                .rows
                .entry(name.clone())
                .or_insert_with(|| PackageRow::new(name.clone(), false, "referred"));
            row.referred_by_revisits += 1;
        }
        std::mem::take(&mut self.rows).into_values().collect()
    }
}

/// Where an unresolved revisit's original is, when its container is a package not found:
/// words to add to its reason.
pub(crate) fn missing_container(
    rows: &[PackageRow],
    file: &str,
    container: &str,
) -> Option<String> {
    if container.is_empty() {
        return None;
    }
    let name = name_of(container);
    rows.iter().any(|p| !p.found && p.package == name).then(|| {
        format!(
            "its original is in {name} (WARC-Refers-To-Container), which is not beside {}",
            files::package_of(Path::new(file))
                .map(|p| display(&p))
                .unwrap_or_else(|| file.to_string())
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_is_named_by_its_file_name() {
        assert_eq!(name_of("file://a.wacz"), "a.wacz");
        assert_eq!(name_of("s3://bucket/crawls/b.wacz?x=1"), "b.wacz");
        assert_eq!(name_of("c.wacz"), "c.wacz");
        assert_eq!(name_of("dir\\d.wacz"), "d.wacz");
    }
}

//! The files inputs name: a file on disk, or a member of a WACZ package named as a path
//! through it (`t.wacz/archive/data.warc.gz`, see [`crate::wacz`]). Every reader opens, sizes
//! and recognizes an input here, so that a package's WARC files are read, re-read at an
//! offset and recorded by the index as files on disk are.

use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};

use crate::wacz::{self, MemberReader, Package};

/// An opened input: readable and seekable.
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

/// The package and member a path names, when it is not a file on disk itself.
fn member(path: &Path) -> Option<(PathBuf, String)> {
    if std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    wacz::split_member_path(path)
}

fn not_found(pkg: &Path, name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{} holds no readable member {name}", pkg.display()),
    )
}

/// Opens `path` (a file, or a package member) at its start.
pub fn open(path: &Path) -> io::Result<Box<dyn ReadSeek>> {
    match File::open(path) {
        Ok(f) => Ok(Box::new(f)),
        Err(e) => {
            let Some((pkg, name)) = member(path) else {
                return Err(e);
            };
            let package = Package::open(&pkg)?;
            let m = package
                .member(&name)
                .ok_or_else(|| not_found(&pkg, &name))?;
            Ok(Box::new(MemberReader::open(&pkg, m)?))
        }
    }
}

/// The size of `path` in bytes (a member's once read).
pub fn len(path: &Path) -> io::Result<u64> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(m.len()),
        Err(e) => {
            let Some((pkg, name)) = member(path) else {
                return Err(e);
            };
            let package = Package::open(&pkg)?;
            Ok(package
                .member(&name)
                .ok_or_else(|| not_found(&pkg, &name))?
                .size)
        }
    }
}

/// Whether `path` is a file (on disk, or a package member that can be read).
pub fn is_file(path: &Path) -> bool {
    path.is_file()
        || member(path)
            .is_some_and(|(pkg, name)| Package::open(&pkg).is_ok_and(|p| p.member(&name).is_some()))
}

/// The canonical form of `path`: the package's canonical path joined with the member's name
/// for a member.
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    match path.canonicalize() {
        Ok(p) => Ok(p),
        Err(e) => {
            let Some((pkg, name)) = member(path) else {
                return Err(e);
            };
            Ok(pkg.canonicalize()?.join(name))
        }
    }
}

/// The package a member path is in (`None` for a file on disk).
pub fn package_of(path: &Path) -> Option<PathBuf> {
    member(path).map(|(pkg, _)| pkg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_itself_and_a_missing_path_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.warc");
        std::fs::write(&f, b"WARC/1.0\r\n").unwrap();
        assert_eq!(len(&f).unwrap(), 10);
        assert!(is_file(&f));
        let mut s = String::new();
        open(&f).unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "WARC/1.0\r\n");
        let gone = dir.path().join("b.warc");
        assert!(open(&gone).is_err() && len(&gone).is_err() && !is_file(&gone));
        assert!(package_of(&gone).is_none());
    }
}

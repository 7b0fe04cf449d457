//! `datapackage.json`, a WACZ package's manifest: the fields its writers write
//! (browsertrix-crawler's `src/util/wacz.ts`, py-wacz's `wacz/main.py`), `resources` and
//! `relation.requires`.

use std::io::{self, Read};
use std::path::Path;

use super::{MemberReader, Package};

/// What `datapackage.json` says of a package (the fields read; others are ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataPackage {
    /// `resources`: each member's `path`, `hash` (`sha256:HEX`, or another algorithm's) and
    /// `bytes`.
    pub resources: Vec<Resource>,
    /// `relation.requires`: the packages this one's revisits need.
    pub requires: Vec<Required>,
    /// `title`, when given.
    pub title: String,
    /// `software`, when given.
    pub software: String,
}

/// One `resources` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resource {
    /// The member's name.
    pub path: String,
    /// Its digest as written (`sha256:...`).
    pub hash: String,
    /// Its size, when given.
    pub bytes: Option<u64>,
}

/// One package a package requires.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Required {
    /// Its file name (as the crawler wrote it: a name, a path or a URL).
    pub filename: String,
    /// Its SHA-256 (hex, maybe `sha256:`-prefixed), when given.
    pub hash: String,
    /// Its size, when given.
    pub size: Option<u64>,
    /// The crawl that wrote it, when given.
    pub crawl_id: String,
}

impl Required {
    /// The file name alone (the last part of a path or URL).
    pub fn file_name(&self) -> &str {
        self.filename
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&self.filename)
    }
}

/// A `datapackage.json` that cannot be read, and why.
#[derive(Debug, thiserror::Error)]
#[error("datapackage.json: {0}")]
pub struct DataPackageError(String);

/// Reads `datapackage.json`'s text. A field of another type than its writers write is left
/// out (an error only when the text is no JSON object).
pub fn parse_datapackage(text: &[u8]) -> Result<DataPackage, DataPackageError> {
    let v: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| DataPackageError(e.to_string()))?;
    let obj = v
        .as_object()
        .ok_or_else(|| DataPackageError("not a JSON object".into()))?;
    let s = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).unwrap_or("").to_string();
    let resources = obj
        .get("resources")
        .and_then(|r| r.as_array())
        .map(|rs| {
            rs.iter()
                .filter_map(|r| r.as_object())
                .map(|r| Resource {
                    path: s(r.get("path")),
                    hash: s(r.get("hash")),
                    bytes: r.get("bytes").and_then(|b| b.as_u64()),
                })
                .collect()
        })
        .unwrap_or_default();
    let requires = obj
        .get("relation")
        .and_then(|r| r.get("requires"))
        .and_then(|r| r.as_array())
        .map(|rs| {
            rs.iter()
                .filter_map(|r| match r {
                    // A bare name, as an older or simpler writer may list it.
                    serde_json::Value::String(name) => Some(Required {
                        filename: name.clone(),
                        ..Required::default()
                    }),
                    serde_json::Value::Object(o) => Some(Required {
                        filename: s(o.get("filename")),
                        hash: s(o.get("hash")),
                        size: o.get("size").and_then(|b| b.as_u64()),
                        crawl_id: s(o.get("crawlId")),
                    }),
                    _ => None,
                })
                .filter(|r| !r.filename.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Ok(DataPackage {
        resources,
        requires,
        title: s(obj.get("title")),
        software: s(obj.get("software")),
    })
}

/// The package at `path`'s `datapackage.json`, when it has one (`Ok(None)`: none).
pub fn datapackage(
    path: &Path,
    package: &Package,
) -> io::Result<Option<Result<DataPackage, DataPackageError>>> {
    let Some(m) = package.member("datapackage.json") else {
        return Ok(None);
    };
    if m.size > 64 << 20 {
        return Ok(Some(Err(DataPackageError("larger than 64 MB".into()))));
    }
    let mut text = Vec::new();
    MemberReader::open(path, m)?.read_to_end(&mut text)?;
    Ok(Some(parse_datapackage(&text)))
}

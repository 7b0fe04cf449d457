//! Reading an output folder: its tables in whichever format they were written, its JSON
//! summaries and its SVG figures.

use crate::HtmlError;
use neardup_report::{read_rows, Format};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// An output folder.
pub struct Folder {
    dir: PathBuf,
}

impl Folder {
    /// The folder at `dir`.
    pub fn new(dir: &Path) -> Folder {
        Folder {
            dir: dir.to_path_buf(),
        }
    }

    /// The path of table `name` in the first format present (JSONL, CSV, Parquet).
    pub fn table_path(&self, name: &str) -> Option<PathBuf> {
        [Format::Jsonl, Format::Csv, Format::Parquet]
            .iter()
            .map(|f| self.dir.join(format!("{name}.{}", f.extension())))
            .find(|p| p.is_file())
    }

    /// True when table `name` is there.
    pub fn has(&self, name: &str) -> bool {
        self.table_path(name).is_some()
    }

    /// The rows of table `name` (columns the row type does not name are ignored); `None` when
    /// the folder has no such table.
    pub fn rows<T: DeserializeOwned>(&self, name: &str) -> Result<Option<Vec<T>>, HtmlError> {
        match self.table_path(name) {
            Some(p) => Ok(Some(read_rows(&p)?)),
            None => Ok(None),
        }
    }

    /// A JSON file of the folder (`summary.json`, `eval.json`...).
    pub fn json(&self, file: &str) -> Result<Option<serde_json::Value>, HtmlError> {
        let path = self.dir.join(file);
        if !path.is_file() {
            return Ok(None);
        }
        let bytes = std::fs::read(&path).map_err(|e| HtmlError::Io {
            path: path.clone(),
            source: e,
        })?;
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| HtmlError::Json { path, source: e })
    }

    /// An SVG figure of the folder, ready to inline (an XML declaration dropped); `None` when
    /// missing or not an SVG document.
    pub fn svg(&self, file: &str) -> Result<Option<String>, HtmlError> {
        let path = self.dir.join(file);
        if !path.is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| HtmlError::Io {
            path: path.clone(),
            source: e,
        })?;
        let body = match text.find("<svg") {
            Some(at) => &text[at..],
            None => return Ok(None),
        };
        if !inert_svg(body) {
            return Ok(None);
        }
        Ok(Some(body.to_string()))
    }
}

/// Whether an SVG figure read from a folder can be put in the page as it is: no script, no
/// embedded document, no `javascript:` link, no event-handler attribute (`onload=`, ...),
/// in any letter case. The page's Content-Security-Policy would stop them too; a figure that
/// holds one is left out instead.
fn inert_svg(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    let b = b.as_bytes();
    let banned = [
        "<script",
        "foreignobject",
        "javascript:",
        "<iframe",
        "<embed",
        "<object",
    ];
    if banned
        .iter()
        .any(|w| b.windows(w.len()).any(|x| x == w.as_bytes()))
    {
        return false;
    }
    // ` on<letters>=` (with white space or `/` before it): an event handler.
    (1..b.len()).all(|i| {
        if !(b[i - 1].is_ascii_whitespace() || b[i - 1] == b'/') || !b[i..].starts_with(b"on") {
            return true;
        }
        let rest = &b[i + 2..];
        let letters = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
        let after = rest[letters..].iter().find(|c| !c.is_ascii_whitespace());
        letters == 0 || after != Some(&b'=')
    })
}

/// A number at `path` (keys) in a JSON value.
pub fn at<'a>(v: &'a serde_json::Value, path: &[&str]) -> Option<&'a serde_json::Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

/// A number at `path`, or `None`.
pub fn f(v: &serde_json::Value, path: &[&str]) -> Option<f64> {
    at(v, path)?.as_f64()
}

/// A count at `path`, or 0.
pub fn u(v: &serde_json::Value, path: &[&str]) -> u64 {
    at(v, path).and_then(|x| x.as_u64()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::inert_svg;

    #[test]
    fn a_figure_that_could_run_anything_is_left_out() {
        assert!(inert_svg(
            "<svg width=\"10\"><text x=\"1\">only = text, on and on</text></svg>"
        ));
        for bad in [
            "<svg><SCRIPT>alert(1)</SCRIPT></svg>",
            "<svg onload=alert(1)></svg>",
            "<svg><rect\n\tONCLICK = \"x()\"/></svg>",
            "<svg><a href=\"JavaScript:x()\">a</a></svg>",
            "<svg><foreignObject><iframe/></foreignObject></svg>",
        ] {
            assert!(!inert_svg(bad), "{bad}");
        }
    }
}

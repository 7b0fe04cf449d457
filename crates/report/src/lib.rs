//! Everything neardup writes, and reads back: typed tables in JSONL, CSV or Parquet, atomic
//! files, and self-contained SVG figures.
//!
//! A table is a row struct that implements [`Table`]: its column names and types come from the
//! struct's serde names ([`columns`]), so they are written nowhere else. [`TableWriter`] writes
//! rows in any [`Format`]; [`read_rows`] reads any table neardup wrote, in any format, back into
//! the same struct (or into a map of cells, for files of unknown shape). Every file goes through
//! [`AtomicFile`]: a temporary sibling, synced, renamed into place; [`OutputGuard`] refuses to
//! write over, or into a folder holding, one of the run's inputs.
//!
//! ```
//! use neardup_report::{read_rows, Format, Table, TableWriter};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Hit {
//!     url: String,
//!     score: Option<f64>,
//! }
//! impl Table for Hit {
//!     const NAME: &'static str = "hits";
//! }
//!
//! let dir = tempfile::tempdir().unwrap();
//! let rows = [
//!     Hit { url: "a,\"b\"\nc".into(), score: Some(0.5) },
//!     Hit { url: "d".into(), score: None },
//! ];
//! for format in [Format::Jsonl, Format::Csv, Format::Parquet] {
//!     let mut w = TableWriter::<Hit>::create(dir.path(), format).unwrap();
//!     for r in &rows {
//!         w.write(r).unwrap();
//!     }
//!     let path = w.finish().unwrap();
//!     let back: Vec<Hit> = read_rows(&path).unwrap();
//!     assert_eq!(back, rows);
//! }
//! ```

mod atomic;
mod cells;
pub mod plot;
mod read;
mod schema;
mod sink;

pub use atomic::{
    is_neardup_json, rename_durably, replace_durably, sync_folder, write_atomic, AtomicFile,
    OutputGuard, MANIFEST, WRITTEN_BY,
};
pub use cells::Cell;
pub use read::{read_rows, Record};
pub use schema::{columns, Column, Kind};
pub use sink::TableWriter;

use std::path::{Path, PathBuf};

/// Output file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line.
    Jsonl,
    /// RFC 4180 CSV with a header line.
    Csv,
    /// Apache Parquet (snappy), one row group per 64k rows.
    Parquet,
}

impl Format {
    /// File extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Parquet => "parquet",
        }
    }

    /// The format a file name says (`.jsonl`/`.json`, `.csv`, `.parquet`).
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "jsonl" | "json" | "ndjson" => Some(Format::Jsonl),
            "csv" => Some(Format::Csv),
            "parquet" => Some(Format::Parquet),
            _ => None,
        }
    }
}

/// A row type of an output table: a flat struct (strings, numbers, booleans, unit-variant enums,
/// options of those) whose serde names are the column names.
pub trait Table: serde::Serialize + serde::de::DeserializeOwned {
    /// The file stem (`clusters` for `clusters.jsonl`).
    const NAME: &'static str;
}

/// Why writing or reading a file failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The file system refused.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// An output path has no file name.
    #[error("{}: not a file name", path.display())]
    NoFileName {
        /// The path.
        path: PathBuf,
    },
    /// An output would replace an input, or land inside an input folder.
    #[error("{}: refusing to write an output over (or inside) the input {}", path.display(), input.display())]
    OverInput {
        /// The output.
        path: PathBuf,
        /// The input it would hit.
        input: PathBuf,
    },
    /// An existing file neardup did not write would be replaced.
    #[error("{}: exists and was not written by neardup; refusing to replace it", path.display())]
    NotOurs {
        /// The file.
        path: PathBuf,
    },
    /// An output folder holds files neardup did not write.
    #[error("{}: holds {count} file(s) neardup did not write (such as {first:?}); write to a new or empty folder", dir.display())]
    FolderNotOurs {
        /// The folder.
        dir: PathBuf,
        /// How many such files.
        count: usize,
        /// The first, by name.
        first: String,
    },
    /// An output file's path is a folder.
    #[error("{}: is a folder, not a file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// An output folder's path is a file.
    #[error("{}: is a file, not a folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// An output folder holds an input.
    #[error("{}: refusing to write outputs into a folder that holds the input {}", dir.display(), input.display())]
    FolderHoldsInput {
        /// The output folder.
        dir: PathBuf,
        /// The input inside it.
        input: PathBuf,
    },
    /// A row of a file could not be read as the expected table.
    #[error("{}: {what} {at}: {detail}", path.display())]
    BadRow {
        /// The file.
        path: PathBuf,
        /// "line" or "row".
        what: &'static str,
        /// Line (JSONL, CSV; 1-based) or row (Parquet; 1-based).
        at: u64,
        /// What was wrong.
        detail: String,
    },
    /// A file's format could not be told from its name.
    #[error("{}: expected a .jsonl, .csv or .parquet table", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// A row did not fit its table's columns (a programming error in the row type).
    #[error("table {table}: {detail}")]
    Row {
        /// The table.
        table: &'static str,
        /// What did not fit.
        detail: String,
    },
    /// A CSV or Parquet file could not be encoded or decoded.
    #[error("{}: {detail}", path.display())]
    Encoding {
        /// The file.
        path: PathBuf,
        /// What the CSV or Parquet library said.
        detail: String,
    },
}

/// A float cell as a table in `format` gives it back when read: JSONL and CSV hold 6
/// significant digits ([`round`]), Parquet the value itself; a non-finite value is no number
/// (JSONL writes it as null).
pub fn stored_f64(format: Format, f: f64) -> Option<f64> {
    if !f.is_finite() {
        return None;
    }
    Some(match format {
        Format::Jsonl | Format::Csv => round(f),
        Format::Parquet => f,
    })
}

/// Floats are written with 6 significant digits, so outputs are stable and diffable (and
/// small values such as L-infinity distances keep their precision).
pub fn round(f: f64) -> f64 {
    if f == 0.0 || !f.is_finite() {
        return f;
    }
    let scale = 10f64.powi(5 - f.abs().log10().floor() as i32);
    if !scale.is_finite() || scale == 0.0 {
        return f;
    }
    (f * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_keep_six_significant_digits() {
        assert_eq!(round(0.797_619_047_619), 0.797619);
        assert_eq!(round(0.000_123_456_78), 0.000123457);
        assert_eq!(round(12_345_678.9), 12_345_700.0);
        assert_eq!(round(-0.5), -0.5);
        assert_eq!(round(0.0), 0.0);
        assert!(round(f64::NAN).is_nan());
    }
}

//! Reading tables back: one reader for every table neardup writes, in every format.

use crate::{Format, ReportError};
use serde::de::DeserializeOwned;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// A row of a file of unknown shape: column name to value (CSV cells are typed as the CSV
/// reader infers them: booleans, integers, floats, else text; an empty cell is null).
pub type Record = serde_json::Map<String, serde_json::Value>;

fn io_err(path: &Path, e: std::io::Error) -> ReportError {
    ReportError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// The format of a table file: from its name, else from its first bytes (`PAR1` is Parquet, a
/// `{` JSONL, anything else CSV).
fn format_of(path: &Path) -> Result<Format, ReportError> {
    if let Some(f) = Format::from_path(path) {
        return Ok(f);
    }
    let mut head = [0u8; 4];
    let mut f = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    let n = f.read(&mut head).map_err(|e| io_err(path, e))?;
    Ok(if &head[..n] == b"PAR1" {
        Format::Parquet
    } else if head[..n].trim_ascii_start().starts_with(b"{") {
        Format::Jsonl
    } else {
        Format::Csv
    })
}

/// Reads every row of a table file written by neardup (or shaped like one) into `T`: a row
/// struct of the table, or [`Record`] for any table.
pub fn read_rows<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, ReportError> {
    let bad = |what, at, detail: String| ReportError::BadRow {
        path: path.to_path_buf(),
        what,
        at,
        detail,
    };
    let mut rows = Vec::new();
    match format_of(path)? {
        Format::Jsonl => {
            let f = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
            let mut r = BufReader::with_capacity(1 << 20, f);
            // One line buffer for the whole table (tables are the report's largest input).
            let mut line = Vec::new();
            for i in 1u64.. {
                line.clear();
                if r.read_until(b'\n', &mut line)
                    .map_err(|e| io_err(path, e))?
                    == 0
                {
                    break;
                }
                if line.trim_ascii().is_empty() {
                    continue;
                }
                let row =
                    serde_json::from_slice(&line).map_err(|e| bad("line", i, e.to_string()))?;
                rows.push(row);
            }
        }
        Format::Csv => {
            let mut r = csv::ReaderBuilder::new()
                .flexible(false)
                .from_path(path)
                .map_err(|e| bad("line", 1, e.to_string()))?;
            let headers = r
                .headers()
                .map_err(|e| bad("line", 1, e.to_string()))?
                .clone();
            let mut rec = csv::StringRecord::new();
            loop {
                match r.read_record(&mut rec) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        let line = e.position().map_or(0, |p| p.line());
                        return Err(bad("line", line, e.to_string()));
                    }
                }
                if rec.iter().all(|f| f.trim().is_empty()) {
                    continue;
                }
                let line = rec.position().map_or(0, |p| p.line());
                let row = rec
                    .deserialize(Some(&headers))
                    .map_err(|e| bad("line", line, e.to_string()))?;
                rows.push(row);
            }
        }
        Format::Parquet => {
            use parquet::file::reader::{FileReader, SerializedFileReader};
            let enc = |e: parquet::errors::ParquetError| ReportError::Encoding {
                path: path.to_path_buf(),
                detail: e.to_string(),
            };
            let f = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
            let reader = SerializedFileReader::new(f).map_err(enc)?;
            for (i, row) in reader.get_row_iter(None).map_err(enc)?.enumerate() {
                let row = row.map_err(enc)?;
                let value = row
                    .get_column_iter()
                    .map(|(name, field)| (name.clone(), json_of(field)))
                    .collect::<Record>();
                let row = serde_json::from_value(serde_json::Value::Object(value))
                    .map_err(|e| bad("row", i as u64 + 1, e.to_string()))?;
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

/// A Parquet cell as JSON: the primitive types neardup writes (and the other integer types
/// a third-party writer may use); anything else as its text.
fn json_of(field: &parquet::record::Field) -> serde_json::Value {
    use parquet::record::Field;
    use serde_json::Value;
    match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => (*n).into(),
        Field::Short(n) => (*n).into(),
        Field::Int(n) => (*n).into(),
        Field::Long(n) => (*n).into(),
        Field::UByte(n) => (*n).into(),
        Field::UShort(n) => (*n).into(),
        Field::UInt(n) => (*n).into(),
        Field::ULong(n) => (*n).into(),
        Field::Float(f) => {
            serde_json::Number::from_f64(f64::from(*f)).map_or(Value::Null, Value::Number)
        }
        Field::Double(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Field::Str(s) => Value::String(s.clone()),
        other => Value::String(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Table, TableWriter};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Kind {
        Mirror,
        PartialMirror,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Row {
        url: String,
        n: u32,
        delta: i64,
        j: Option<f64>,
        c: Option<u32>,
        ok: bool,
        kind: Kind,
        note: Option<String>,
    }

    impl Table for Row {
        const NAME: &'static str = "rows";
    }

    #[test]
    fn every_format_reads_back_what_was_written() {
        let rows = vec![
            Row {
                url: "a,\"b\"\nsecond line".into(),
                n: 3,
                delta: -2,
                j: Some(0.5),
                c: Some(7),
                ok: true,
                kind: Kind::PartialMirror,
                note: Some("x".into()),
            },
            Row {
                url: String::new(),
                n: 4,
                delta: 9,
                j: None,
                c: None,
                ok: false,
                kind: Kind::Mirror,
                note: None,
            },
        ];
        let dir = tempfile::tempdir().unwrap();
        for f in [Format::Jsonl, Format::Csv, Format::Parquet] {
            let sub = dir.path().join(f.extension());
            std::fs::create_dir(&sub).unwrap();
            let mut w = TableWriter::<Row>::create(&sub, f).unwrap();
            for r in &rows {
                w.write(r).unwrap();
            }
            let path = w.finish().unwrap();
            let back: Vec<Row> = read_rows(&path).unwrap();
            assert_eq!(back, rows, "{f:?}");
            let any: Vec<Record> = read_rows(&path).unwrap();
            assert_eq!(any.len(), 2);
            assert_eq!(any[0]["n"], 3, "{f:?}");
        }
    }

    #[test]
    fn bad_rows_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("rows.csv");
        std::fs::write(&p, "url,n\nx,1\ny,not-a-number\n").unwrap();
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct R {
            url: String,
            n: u32,
        }
        let e = read_rows::<R>(&p).unwrap_err().to_string();
        assert!(e.contains("rows.csv: line 3"), "{e}");
        let p = dir.path().join("rows.jsonl");
        std::fs::write(&p, "{\"url\":\"x\",\"n\":1}\n{\"url\":3}\n").unwrap();
        let e = read_rows::<R>(&p).unwrap_err().to_string();
        assert!(e.contains("rows.jsonl: line 2"), "{e}");
    }
}

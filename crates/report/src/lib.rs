//! Output tables. The engine knows no output format: a front end opens a [`Sink`] for a table
//! (fixed columns) and pushes rows of [`Value`]s into it. Files are written to a temporary name
//! in the output folder and renamed into place by [`Sink::finish`]; a sink dropped without
//! `finish` removes its temporary file.

use parquet::basic::{Repetition, Type as PhysicalType};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
}

/// Column types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Str,
    /// Unsigned integer.
    U64,
    /// Signed integer.
    I64,
    /// Float.
    F64,
    /// Float or null.
    OptF64,
    /// Unsigned integer or null.
    OptU64,
    /// Boolean.
    Bool,
}

/// A column.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Name.
    pub name: &'static str,
    /// Type.
    pub kind: Kind,
}

impl Column {
    /// A column.
    pub const fn new(name: &'static str, kind: Kind) -> Column {
        Column { name, kind }
    }
}

/// A cell.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// Text.
    Str(&'a str),
    /// Integer.
    U64(u64),
    /// Signed integer.
    I64(i64),
    /// Float.
    F64(f64),
    /// Float or null.
    OptF64(Option<f64>),
    /// Integer or null.
    OptU64(Option<u64>),
    /// Boolean.
    Bool(bool),
}

/// Writes rows of one table to one file.
pub struct Sink {
    format: Format,
    columns: Vec<Column>,
    tmp: PathBuf,
    path: PathBuf,
    text: Option<BufWriter<File>>,
    parquet: Option<ParquetState>,
    rows: u64,
    done: bool,
}

struct ParquetState {
    writer: SerializedFileWriter<File>,
    buffers: Vec<ColumnBuffer>,
    pending: usize,
}

enum ColumnBuffer {
    Str(Vec<ByteArray>),
    U64(Vec<i64>),
    F64(Vec<f64>),
    OptF64(Vec<f64>, Vec<i16>),
    OptU64(Vec<i64>, Vec<i16>),
    Bool(Vec<bool>),
}

const ROW_GROUP: usize = 65_536;

impl Sink {
    /// Opens `dir/name.<ext>` for writing.
    pub fn create(dir: &Path, name: &str, format: Format, columns: &[Column]) -> io::Result<Sink> {
        let path = dir.join(format!("{name}.{}", format.extension()));
        let tmp = dir.join(format!(
            ".{name}.{}.tmp-{}",
            format.extension(),
            std::process::id()
        ));
        let file = File::create(&tmp)?;
        let mut sink = Sink {
            format,
            columns: columns.to_vec(),
            tmp,
            path,
            text: None,
            parquet: None,
            rows: 0,
            done: false,
        };
        match format {
            Format::Jsonl => sink.text = Some(BufWriter::with_capacity(1 << 20, file)),
            Format::Csv => {
                let mut w = BufWriter::with_capacity(1 << 20, file);
                let header: Vec<&str> = columns.iter().map(|c| c.name).collect();
                writeln!(w, "{}", header.join(","))?;
                sink.text = Some(w);
            }
            Format::Parquet => {
                let fields = columns
                    .iter()
                    .map(|c| {
                        let (t, rep) = match c.kind {
                            Kind::Str => (PhysicalType::BYTE_ARRAY, Repetition::REQUIRED),
                            Kind::U64 | Kind::I64 => (PhysicalType::INT64, Repetition::REQUIRED),
                            Kind::F64 => (PhysicalType::DOUBLE, Repetition::REQUIRED),
                            Kind::OptF64 => (PhysicalType::DOUBLE, Repetition::OPTIONAL),
                            Kind::OptU64 => (PhysicalType::INT64, Repetition::OPTIONAL),
                            Kind::Bool => (PhysicalType::BOOLEAN, Repetition::REQUIRED),
                        };
                        let mut b = Type::primitive_type_builder(c.name, t).with_repetition(rep);
                        if c.kind == Kind::Str {
                            b = b.with_converted_type(parquet::basic::ConvertedType::UTF8);
                        }
                        b.build().map(Arc::new)
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(io::Error::other)?;
                let schema = Type::group_type_builder("schema")
                    .with_fields(fields)
                    .build()
                    .map_err(io::Error::other)?;
                let props = WriterProperties::builder()
                    .set_compression(parquet::basic::Compression::SNAPPY)
                    .build();
                let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
                    .map_err(io::Error::other)?;
                let buffers = columns
                    .iter()
                    .map(|c| match c.kind {
                        Kind::Str => ColumnBuffer::Str(Vec::new()),
                        Kind::U64 | Kind::I64 => ColumnBuffer::U64(Vec::new()),
                        Kind::F64 => ColumnBuffer::F64(Vec::new()),
                        Kind::OptF64 => ColumnBuffer::OptF64(Vec::new(), Vec::new()),
                        Kind::OptU64 => ColumnBuffer::OptU64(Vec::new(), Vec::new()),
                        Kind::Bool => ColumnBuffer::Bool(Vec::new()),
                    })
                    .collect();
                sink.parquet = Some(ParquetState {
                    writer,
                    buffers,
                    pending: 0,
                });
            }
        }
        Ok(sink)
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends a row (one value per column, in column order).
    pub fn row(&mut self, values: &[Value]) -> io::Result<()> {
        assert_eq!(values.len(), self.columns.len(), "row width");
        self.rows += 1;
        match self.format {
            Format::Jsonl => {
                // Keys in column order.
                let w = self.text.as_mut().expect("text sink");
                w.write_all(b"{")?;
                for (i, (c, v)) in self.columns.iter().zip(values).enumerate() {
                    if i > 0 {
                        w.write_all(b",")?;
                    }
                    serde_json::to_writer(&mut *w, c.name)?;
                    w.write_all(b":")?;
                    serde_json::to_writer(&mut *w, &json_value(*v))?;
                }
                w.write_all(b"}\n")
            }
            Format::Csv => {
                let w = self.text.as_mut().expect("text sink");
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        w.write_all(b",")?;
                    }
                    match v {
                        Value::Str(s) => {
                            if s.contains([',', '"', '\n', '\r']) {
                                write!(w, "\"{}\"", s.replace('"', "\"\""))?;
                            } else {
                                w.write_all(s.as_bytes())?;
                            }
                        }
                        Value::U64(n) => write!(w, "{n}")?,
                        Value::I64(n) => write!(w, "{n}")?,
                        Value::F64(f) => write!(w, "{}", round(*f))?,
                        Value::OptF64(Some(f)) => write!(w, "{}", round(*f))?,
                        Value::OptF64(None) | Value::OptU64(None) => {}
                        Value::OptU64(Some(n)) => write!(w, "{n}")?,
                        Value::Bool(b) => write!(w, "{b}")?,
                    }
                }
                w.write_all(b"\n")
            }
            Format::Parquet => {
                let st = self.parquet.as_mut().expect("parquet sink");
                for (buf, v) in st.buffers.iter_mut().zip(values) {
                    match (buf, v) {
                        (ColumnBuffer::Str(b), Value::Str(s)) => {
                            b.push(ByteArray::from(s.as_bytes().to_vec()))
                        }
                        (ColumnBuffer::U64(b), Value::U64(n)) => b.push(*n as i64),
                        (ColumnBuffer::U64(b), Value::I64(n)) => b.push(*n),
                        (ColumnBuffer::F64(b), Value::F64(f)) => b.push(*f),
                        (ColumnBuffer::OptF64(b, d), Value::OptF64(f)) => match f {
                            Some(f) => {
                                b.push(*f);
                                d.push(1);
                            }
                            None => d.push(0),
                        },
                        (ColumnBuffer::OptU64(b, d), Value::OptU64(n)) => match n {
                            Some(n) => {
                                b.push(*n as i64);
                                d.push(1);
                            }
                            None => d.push(0),
                        },
                        (ColumnBuffer::Bool(b), Value::Bool(x)) => b.push(*x),
                        _ => return Err(io::Error::other("value does not match the column type")),
                    }
                }
                st.pending += 1;
                if st.pending >= ROW_GROUP {
                    flush_group(st)?;
                }
                Ok(())
            }
        }
    }

    /// Flushes and renames the file into place.
    pub fn finish(mut self) -> io::Result<PathBuf> {
        if let Some(mut w) = self.text.take() {
            w.flush()?;
            w.get_ref().sync_all()?;
        }
        if let Some(mut st) = self.parquet.take() {
            if st.pending > 0 {
                flush_group(&mut st)?;
            }
            let file = st.writer.into_inner().map_err(io::Error::other)?;
            file.sync_all()?;
        }
        std::fs::rename(&self.tmp, &self.path)?;
        self.done = true;
        Ok(self.path.clone())
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

fn flush_group(st: &mut ParquetState) -> io::Result<()> {
    let e = io::Error::other;
    let mut rg = st.writer.next_row_group().map_err(e)?;
    let mut i = 0;
    while let Some(mut col) = rg.next_column().map_err(e)? {
        match &mut st.buffers[i] {
            ColumnBuffer::Str(b) => {
                col.typed::<ByteArrayType>()
                    .write_batch(b, None, None)
                    .map_err(e)?;
                b.clear();
            }
            ColumnBuffer::U64(b) => {
                col.typed::<Int64Type>()
                    .write_batch(b, None, None)
                    .map_err(e)?;
                b.clear();
            }
            ColumnBuffer::F64(b) => {
                col.typed::<DoubleType>()
                    .write_batch(b, None, None)
                    .map_err(e)?;
                b.clear();
            }
            ColumnBuffer::OptF64(b, d) => {
                col.typed::<DoubleType>()
                    .write_batch(b, Some(d), None)
                    .map_err(e)?;
                b.clear();
                d.clear();
            }
            ColumnBuffer::OptU64(b, d) => {
                col.typed::<Int64Type>()
                    .write_batch(b, Some(d), None)
                    .map_err(e)?;
                b.clear();
                d.clear();
            }
            ColumnBuffer::Bool(b) => {
                col.typed::<BoolType>()
                    .write_batch(b, None, None)
                    .map_err(e)?;
                b.clear();
            }
        }
        col.close().map_err(e)?;
        i += 1;
    }
    rg.close().map_err(e)?;
    st.pending = 0;
    Ok(())
}

/// Floats are written with 6 significant digits, so outputs are stable and diffable (and
/// small values such as L-infinity distances keep their precision).
fn round(f: f64) -> f64 {
    if f == 0.0 || !f.is_finite() {
        return f;
    }
    let scale = 10f64.powi(5 - f.abs().log10().floor() as i32);
    if !scale.is_finite() || scale == 0.0 {
        return f;
    }
    (f * scale).round() / scale
}

fn json_value(v: Value) -> serde_json::Value {
    match v {
        Value::Str(s) => serde_json::Value::String(s.to_string()),
        Value::U64(n) => n.into(),
        Value::I64(n) => n.into(),
        Value::F64(f) => {
            serde_json::Number::from_f64(round(f)).map_or(serde_json::Value::Null, Into::into)
        }
        Value::OptF64(Some(f)) => {
            serde_json::Number::from_f64(round(f)).map_or(serde_json::Value::Null, Into::into)
        }
        Value::OptF64(None) | Value::OptU64(None) => serde_json::Value::Null,
        Value::OptU64(Some(n)) => n.into(),
        Value::Bool(b) => b.into(),
    }
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

    const COLS: [Column; 4] = [
        Column::new("url", Kind::Str),
        Column::new("n", Kind::U64),
        Column::new("j", Kind::OptF64),
        Column::new("ok", Kind::Bool),
    ];

    #[test]
    fn every_format() {
        let dir = tempfile::tempdir().unwrap();
        for f in [Format::Jsonl, Format::Csv, Format::Parquet] {
            let mut s = Sink::create(dir.path(), "t", f, &COLS).unwrap();
            s.row(&[
                Value::Str("a,\"b\""),
                Value::U64(3),
                Value::OptF64(Some(0.123_456_789)),
                Value::Bool(true),
            ])
            .unwrap();
            s.row(&[
                Value::Str("c"),
                Value::U64(4),
                Value::OptF64(None),
                Value::Bool(false),
            ])
            .unwrap();
            let path = s.finish().unwrap();
            let bytes = std::fs::read(&path).unwrap();
            match f {
                Format::Jsonl => assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    "{\"url\":\"a,\\\"b\\\"\",\"n\":3,\"j\":0.123457,\"ok\":true}\n{\"url\":\"c\",\"n\":4,\"j\":null,\"ok\":false}\n"
                ),
                Format::Csv => assert_eq!(String::from_utf8(bytes).unwrap(), "url,n,j,ok\n\"a,\"\"b\"\"\",3,0.123457,true\nc,4,,false\n"),
                Format::Parquet => {
                    use parquet::file::reader::{FileReader, SerializedFileReader};
                    let r = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
                    assert_eq!(r.metadata().file_metadata().num_rows(), 2);
                }
            }
        }
        // Only the final files remain.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }

    #[test]
    fn unfinished_sink_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut s = Sink::create(dir.path(), "t", Format::Jsonl, &COLS).unwrap();
            s.row(&[
                Value::Str("x"),
                Value::U64(1),
                Value::OptF64(None),
                Value::Bool(true),
            ])
            .unwrap();
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

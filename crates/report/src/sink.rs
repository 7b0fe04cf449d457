//! [`TableWriter`]: rows of one table into one file, in one of the three formats.

use crate::atomic::{AtomicFile, Writeback};
use crate::cells::{cells, Cell};
use crate::schema::{columns, Column, Kind};
use crate::{round, Format, ReportError, Table};
use parquet::basic::{Repetition, Type as PhysicalType};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use rayon::prelude::*;
use std::io::{BufWriter, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Writes rows of table `T` to `DIR/<T::NAME>.<ext>`, atomically: the file appears, complete,
/// on [`TableWriter::finish`]; a writer dropped before that leaves nothing.
pub struct TableWriter<T: Table> {
    file: AtomicFile,
    out: Out,
    columns: Vec<Column>,
    cells: Vec<Cell>,
    /// The strings of the last row's text cells, reused for the next.
    spare: Vec<String>,
    rows: u64,
    _row: PhantomData<fn(&T)>,
}

enum Out {
    Jsonl(BufWriter<Writeback>),
    Csv(Box<csv::Writer<Writeback>>),
    Parquet(Box<ParquetState>),
}

struct ParquetState {
    writer: SerializedFileWriter<Writeback>,
    buffers: Vec<ColumnBuffer>,
    pending: usize,
}

enum ColumnBuffer {
    Str(Strings, Option<Vec<i16>>),
    I64(Vec<i64>, Option<Vec<i16>>),
    F64(Vec<f64>, Option<Vec<i16>>),
    Bool(Vec<bool>),
}

const ROW_GROUP: usize = 65_536;

/// A window's rows encoded as JSONL: how many, and their bytes by chunk.
type Encoded = (usize, Vec<Result<Vec<u8>, ReportError>>);

/// A row group's strings of one column: their bytes end to end and where each ends, made into
/// `ByteArray`s (slices of one buffer) only when the group is written.
#[derive(Default)]
struct Strings {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Strings {
    fn push(&mut self, s: &str) {
        self.bytes.extend_from_slice(s.as_bytes());
        self.ends.push(self.bytes.len());
    }

    /// The strings as values, and the buffers emptied.
    fn take(&mut self) -> Vec<ByteArray> {
        let all = bytes::Bytes::from(std::mem::take(&mut self.bytes));
        let mut start = 0;
        let values = self
            .ends
            .iter()
            .map(|&end| {
                let v = ByteArray::from(all.slice(start..end));
                start = end;
                v
            })
            .collect();
        self.ends.clear();
        values
    }
}

fn parquet_err(path: &Path, e: impl std::fmt::Display) -> ReportError {
    ReportError::Encoding {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

fn io_err(path: &Path, e: std::io::Error) -> ReportError {
    ReportError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

impl<T: Table> TableWriter<T> {
    /// Opens `dir/<T::NAME>.<ext>` for writing (`dir` must exist).
    pub fn create(dir: &Path, format: Format) -> Result<TableWriter<T>, ReportError> {
        let path = dir.join(format!("{}.{}", T::NAME, format.extension()));
        let mut file = AtomicFile::create(&path)?;
        let raw = Writeback::new(file.take_file()?);
        let columns = columns::<T>();
        let out = match format {
            Format::Jsonl => Out::Jsonl(BufWriter::with_capacity(1 << 20, raw)),
            Format::Csv => {
                let mut w = csv::WriterBuilder::new()
                    .buffer_capacity(1 << 20)
                    .from_writer(raw);
                w.write_record(columns.iter().map(|c| c.name))
                    .map_err(|e| csv_err(&path, e))?;
                Out::Csv(Box::new(w))
            }
            Format::Parquet => Out::Parquet(Box::new(parquet_state(&path, raw, &columns)?)),
        };
        Ok(TableWriter {
            file,
            out,
            columns,
            cells: Vec::new(),
            spare: Vec::new(),
            rows: 0,
            _row: PhantomData,
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends a row.
    pub fn write(&mut self, row: &T) -> Result<(), ReportError> {
        cells(row, &mut self.cells, &mut self.spare).map_err(|e| ReportError::Row {
            table: T::NAME,
            detail: e.0,
        })?;
        if self.cells.len() != self.columns.len() {
            return Err(ReportError::Row {
                table: T::NAME,
                detail: format!(
                    "{} values for {} columns",
                    self.cells.len(),
                    self.columns.len()
                ),
            });
        }
        self.rows += 1;
        let path = self.file.path().to_path_buf();
        match &mut self.out {
            Out::Jsonl(w) => {
                write_json(w, &self.columns, &self.cells).map_err(|e| io_err(&path, e))
            }
            Out::Csv(w) => {
                for c in &self.cells {
                    let field = match c {
                        Cell::Str(s) => {
                            w.write_field(s).map_err(|e| csv_err(&path, e))?;
                            continue;
                        }
                        Cell::U64(n) => n.to_string(),
                        Cell::I64(n) => n.to_string(),
                        Cell::F64(f) => round(*f).to_string(),
                        Cell::Bool(b) => b.to_string(),
                        Cell::Null => String::new(),
                    };
                    w.write_field(field).map_err(|e| csv_err(&path, e))?;
                }
                w.write_record(None::<&[u8]>).map_err(|e| csv_err(&path, e))
            }
            Out::Parquet(st) => {
                for ((buf, c), col) in st.buffers.iter_mut().zip(&self.cells).zip(&self.columns) {
                    if !push(buf, c) {
                        return Err(ReportError::Row {
                            table: T::NAME,
                            detail: format!("column {}: {c:?} is not a {:?}", col.name, col.kind),
                        });
                    }
                }
                st.pending += 1;
                if st.pending >= ROW_GROUP {
                    flush_group(st).map_err(|e| parquet_err(&path, e))?;
                }
                Ok(())
            }
        }
    }

    /// Appends rows, as [`TableWriter::write`] one by one would. A JSONL table's rows are
    /// encoded on every thread of the current rayon pool, a window of chunks at a time (memory
    /// stays a few MB whatever the table's size), and written in order: the same bytes.
    pub fn write_all(&mut self, rows: &[T]) -> Result<(), ReportError>
    where
        T: Sync,
    {
        const CHUNK: usize = 1024;
        if !matches!(self.out, Out::Jsonl(_)) || rows.len() <= CHUNK {
            return rows.iter().try_for_each(|r| self.write(r));
        }
        let window = CHUNK * 4 * rayon::current_num_threads().max(1);
        let path = self.file.path().to_path_buf();
        let TableWriter {
            out: Out::Jsonl(w),
            columns,
            rows: written,
            ..
        } = self
        else {
            unreachable!("checked above")
        };
        let columns = &*columns;
        let encode = |part: &[T]| -> Encoded {
            let chunks = part
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let (mut row_cells, mut spare) = (Vec::new(), Vec::new());
                    let mut out = Vec::with_capacity(chunk.len() * 256);
                    for row in chunk {
                        encode_json(row, columns, &mut row_cells, &mut spare, &mut out)?;
                    }
                    Ok(out)
                })
                .collect();
            (part.len(), chunks)
        };
        let put = |w: &mut BufWriter<Writeback>, written: &mut u64, (n, chunks): Encoded| {
            for bytes in chunks {
                w.write_all(&bytes?).map_err(|e| io_err(&path, e))?;
            }
            *written += n as u64;
            Ok::<_, ReportError>(())
        };
        // Each window is written while the next is encoded.
        let mut behind = None;
        for part in rows.chunks(window) {
            let encoded = match behind.take() {
                None => encode(part),
                Some(done) => {
                    let (put, encoded) = rayon::join(|| put(w, written, done), || encode(part));
                    put?;
                    encoded
                }
            };
            behind = Some(encoded);
        }
        behind.map_or(Ok(()), |done| put(w, written, done))
    }

    /// Flushes, syncs and renames the file into place; returns its path.
    pub fn finish(self) -> Result<PathBuf, ReportError> {
        let path = self.file.path().to_path_buf();
        let file = match self.out {
            Out::Jsonl(w) => w.into_inner().map_err(|e| io_err(&path, e.into_error()))?,
            Out::Csv(w) => w.into_inner().map_err(|e| io_err(&path, e.into_error()))?,
            Out::Parquet(mut st) => {
                if st.pending > 0 {
                    flush_group(&mut st).map_err(|e| parquet_err(&path, e))?;
                }
                st.writer.into_inner().map_err(|e| parquet_err(&path, e))?
            }
        };
        let file = file.finish().map_err(|e| io_err(&path, e))?;
        self.file.commit_file(file)
    }
}

fn csv_err(path: &Path, e: csv::Error) -> ReportError {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => io_err(path, e),
        other => ReportError::Encoding {
            path: path.to_path_buf(),
            detail: format!("{other:?}"),
        },
    }
}

/// One row as a JSONL line appended to `out` (`row_cells` and `spare` reused between rows).
fn encode_json<T: Table>(
    row: &T,
    columns: &[Column],
    row_cells: &mut Vec<Cell>,
    spare: &mut Vec<String>,
    out: &mut Vec<u8>,
) -> Result<(), ReportError> {
    cells(row, row_cells, spare).map_err(|e| ReportError::Row {
        table: T::NAME,
        detail: e.0,
    })?;
    if row_cells.len() != columns.len() {
        return Err(ReportError::Row {
            table: T::NAME,
            detail: format!("{} values for {} columns", row_cells.len(), columns.len()),
        });
    }
    write_json(out, columns, row_cells).expect("writing to a Vec cannot fail");
    Ok(())
}

/// One JSON object, keys in column order, floats rounded (non-finite floats as null).
fn write_json(w: &mut impl Write, columns: &[Column], cells: &[Cell]) -> std::io::Result<()> {
    w.write_all(b"{")?;
    for (i, (c, v)) in columns.iter().zip(cells).enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, c.name)?;
        w.write_all(b":")?;
        match v {
            Cell::Str(s) => serde_json::to_writer(&mut *w, s)?,
            Cell::U64(n) => write!(w, "{n}")?,
            Cell::I64(n) => write!(w, "{n}")?,
            Cell::F64(f) => {
                match crate::stored_f64(Format::Jsonl, *f).and_then(serde_json::Number::from_f64) {
                    Some(n) => serde_json::to_writer(&mut *w, &n)?,
                    None => w.write_all(b"null")?,
                }
            }
            Cell::Bool(b) => write!(w, "{b}")?,
            Cell::Null => w.write_all(b"null")?,
        }
    }
    w.write_all(b"}\n")
}

fn parquet_state(
    path: &Path,
    file: Writeback,
    columns: &[Column],
) -> Result<ParquetState, ReportError> {
    let fields = columns
        .iter()
        .map(|c| {
            let (t, rep) = match c.kind {
                Kind::Str => (PhysicalType::BYTE_ARRAY, Repetition::REQUIRED),
                Kind::OptStr => (PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL),
                Kind::U64 | Kind::I64 => (PhysicalType::INT64, Repetition::REQUIRED),
                Kind::OptU64 => (PhysicalType::INT64, Repetition::OPTIONAL),
                Kind::F64 => (PhysicalType::DOUBLE, Repetition::REQUIRED),
                Kind::OptF64 => (PhysicalType::DOUBLE, Repetition::OPTIONAL),
                Kind::Bool => (PhysicalType::BOOLEAN, Repetition::REQUIRED),
            };
            let mut b = Type::primitive_type_builder(c.name, t).with_repetition(rep);
            if matches!(c.kind, Kind::Str | Kind::OptStr) {
                b = b.with_converted_type(parquet::basic::ConvertedType::UTF8);
            }
            b.build().map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| parquet_err(path, e))?;
    let schema = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
        .map_err(|e| parquet_err(path, e))?;
    let props = WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
        .map_err(|e| parquet_err(path, e))?;
    let buffers = columns
        .iter()
        .map(|c| match c.kind {
            Kind::Str => ColumnBuffer::Str(Strings::default(), None),
            Kind::OptStr => ColumnBuffer::Str(Strings::default(), Some(Vec::new())),
            Kind::U64 | Kind::I64 => ColumnBuffer::I64(Vec::new(), None),
            Kind::OptU64 => ColumnBuffer::I64(Vec::new(), Some(Vec::new())),
            Kind::F64 => ColumnBuffer::F64(Vec::new(), None),
            Kind::OptF64 => ColumnBuffer::F64(Vec::new(), Some(Vec::new())),
            Kind::Bool => ColumnBuffer::Bool(Vec::new()),
        })
        .collect();
    Ok(ParquetState {
        writer,
        buffers,
        pending: 0,
    })
}

/// Appends a cell to its column; false when it does not fit.
fn push(buf: &mut ColumnBuffer, c: &Cell) -> bool {
    fn level(d: &mut Option<Vec<i16>>, present: bool) -> bool {
        match d {
            Some(d) => {
                d.push(present.into());
                true
            }
            None => present,
        }
    }
    match (buf, c) {
        (ColumnBuffer::Str(b, d), Cell::Str(s)) => {
            b.push(s);
            level(d, true)
        }
        (ColumnBuffer::I64(b, d), Cell::U64(n)) => {
            b.push(*n as i64);
            level(d, true)
        }
        (ColumnBuffer::I64(b, d), Cell::I64(n)) => {
            b.push(*n);
            level(d, true)
        }
        (ColumnBuffer::F64(b, d), Cell::F64(f)) => {
            b.push(*f);
            level(d, true)
        }
        (ColumnBuffer::Bool(b), Cell::Bool(x)) => {
            b.push(*x);
            true
        }
        (
            ColumnBuffer::Str(_, d) | ColumnBuffer::I64(_, d) | ColumnBuffer::F64(_, d),
            Cell::Null,
        ) => level(d, false),
        _ => false,
    }
}

fn flush_group(st: &mut ParquetState) -> parquet::errors::Result<()> {
    let mut rg = st.writer.next_row_group()?;
    let mut i = 0;
    while let Some(mut col) = rg.next_column()? {
        match &mut st.buffers[i] {
            ColumnBuffer::Str(b, d) => {
                col.typed::<ByteArrayType>()
                    .write_batch(&b.take(), d.as_deref(), None)?;
                d.iter_mut().for_each(Vec::clear);
            }
            ColumnBuffer::I64(b, d) => {
                col.typed::<Int64Type>()
                    .write_batch(b, d.as_deref(), None)?;
                b.clear();
                d.iter_mut().for_each(Vec::clear);
            }
            ColumnBuffer::F64(b, d) => {
                col.typed::<DoubleType>()
                    .write_batch(b, d.as_deref(), None)?;
                b.clear();
                d.iter_mut().for_each(Vec::clear);
            }
            ColumnBuffer::Bool(b) => {
                col.typed::<BoolType>().write_batch(b, None, None)?;
                b.clear();
            }
        }
        col.close()?;
        i += 1;
    }
    rg.close()?;
    st.pending = 0;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Row {
        url: String,
        n: u64,
        j: Option<f64>,
        ok: bool,
    }

    impl Table for Row {
        const NAME: &'static str = "t";
    }

    fn rows() -> [Row; 2] {
        [
            Row {
                url: "a,\"b\"".into(),
                n: 3,
                j: Some(0.123_456_789),
                ok: true,
            },
            Row {
                url: "c".into(),
                n: 4,
                j: None,
                ok: false,
            },
        ]
    }

    /// Rows written all at once (encoded on several threads, in windows of chunks) make the
    /// same file as rows written one by one, in every format, at sizes around the chunk.
    #[test]
    fn rows_written_at_once_are_the_rows_written_one_by_one() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for n in [0usize, 1, 1024, 1025, 5000, 13_000, 40_000] {
            let many: Vec<Row> = (0..n)
                .map(|i| Row {
                    url: format!("https://h{}.example/\"{i}\"", i % 7),
                    n: i as u64,
                    j: (i % 3 != 0).then_some(i as f64 / 7.0),
                    ok: i % 2 == 0,
                })
                .collect();
            for f in [Format::Jsonl, Format::Csv, Format::Parquet] {
                let (one, all) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
                let mut w = TableWriter::<Row>::create(one.path(), f).unwrap();
                for r in &many {
                    w.write(r).unwrap();
                }
                let a = std::fs::read(w.finish().unwrap()).unwrap();
                let mut w = TableWriter::<Row>::create(all.path(), f).unwrap();
                pool.install(|| w.write_all(&many)).unwrap();
                assert_eq!(w.rows(), n as u64);
                let b = std::fs::read(w.finish().unwrap()).unwrap();
                assert!(a == b, "{f:?}, {n} rows");
            }
        }
    }

    #[test]
    fn every_format_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        for f in [Format::Jsonl, Format::Csv, Format::Parquet] {
            let mut s = TableWriter::<Row>::create(dir.path(), f).unwrap();
            for r in rows() {
                s.write(&r).unwrap();
            }
            let path = s.finish().unwrap();
            let bytes = std::fs::read(&path).unwrap();
            match f {
                Format::Jsonl => assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    "{\"url\":\"a,\\\"b\\\"\",\"n\":3,\"j\":0.123457,\"ok\":true}\n{\"url\":\"c\",\"n\":4,\"j\":null,\"ok\":false}\n"
                ),
                Format::Csv => assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    "url,n,j,ok\n\"a,\"\"b\"\"\",3,0.123457,true\nc,4,,false\n"
                ),
                Format::Parquet => {
                    use parquet::file::reader::{FileReader, SerializedFileReader};
                    let r = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
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
    fn unfinished_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for f in [Format::Jsonl, Format::Csv, Format::Parquet] {
            let mut s = TableWriter::<Row>::create(dir.path(), f).unwrap();
            s.write(&rows()[0]).unwrap();
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

//! Parquet files, streamed one row group at a time, reading only the configured columns. The
//! `offset` of a page (and of a problem) is its row number.

use crate::page::{BodyKind, Page};
use crate::problem::ProblemKind;
use crate::source::{Ctx, IngestError, PageSource};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::reader::RowIter;
use parquet::record::{Field, Row};
use parquet::schema::types::Type;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// A Parquet file handed to the parquet crate with a budget of reads: a malformed file can make
/// its page reader ask for the next page for ever (found by fuzzing); past the budget every
/// read fails, so the reader stops with an error that is counted as a problem. A real file
/// needs about one read per page, and a page takes at least a few bytes.
struct Fueled {
    file: File,
    len: u64,
    left: std::sync::atomic::AtomicU64,
}

impl Fueled {
    fn new(file: File) -> std::io::Result<Fueled> {
        let len = file.metadata()?.len();
        Ok(Fueled {
            file,
            len,
            left: std::sync::atomic::AtomicU64::new(len / 2 + 10_000),
        })
    }

    fn burn(&self) -> parquet::errors::Result<()> {
        use std::sync::atomic::Ordering::Relaxed;
        self.left
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(1))
            .map(|_| ())
            .map_err(|_| {
                parquet::errors::ParquetError::General(format!(
                    "more reads than a {}-byte file can need: its page headers loop",
                    self.len
                ))
            })
    }
}

impl parquet::file::reader::Length for Fueled {
    fn len(&self) -> u64 {
        self.len
    }
}

impl parquet::file::reader::ChunkReader for Fueled {
    type T = std::io::BufReader<File>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        self.burn()?;
        self.file.get_read(start)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        self.burn()?;
        if start.saturating_add(length as u64) > self.len {
            return Err(parquet::errors::ParquetError::EOF(format!(
                "{length} bytes at {start} asked of a {}-byte file",
                self.len
            )));
        }
        self.file.get_bytes(start, length)
    }
}

/// Reads pages from a Parquet file.
pub struct ParquetReader {
    rows: Option<RowIter<'static>>,
    row: u64,
    total_rows: u64,
    bytes_total: u64,
    ctx: Ctx,
}

impl ParquetReader {
    pub(crate) fn new(path: &Path, mut ctx: Ctx) -> ParquetReader {
        let bytes_total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let f = ctx.opts.fields.clone();
        let opened = File::open(path)
            .and_then(Fueled::new)
            .map_err(|e| e.to_string())
            .and_then(|file| SerializedFileReader::new(file).map_err(|e| e.to_string()))
            .and_then(|r| {
                let total = r.metadata().file_metadata().num_rows().max(0) as u64;
                // Run-length encoding lets a tiny file claim billions of empty rows (found by
                // fuzzing): more than a thousand rows per byte of file is refused.
                if total > bytes_total.saturating_mul(1000) {
                    return Err(format!(
                        "the file claims {total} rows in {bytes_total} bytes (more than 1000 rows per byte)"
                    ));
                }
                let groups: i64 = r
                    .metadata()
                    .row_groups()
                    .iter()
                    .map(|g| g.num_rows().max(0))
                    .fold(0i64, |a, b| a.saturating_add(b));
                if groups as u64 > bytes_total.saturating_mul(1000) {
                    return Err(format!(
                        "its row groups claim {groups} rows in {bytes_total} bytes (more than 1000 rows per byte)"
                    ));
                }
                let schema = r.metadata().file_metadata().schema();
                let wanted: Vec<Arc<Type>> = schema
                    .get_fields()
                    .iter()
                    .filter(|t| {
                        [&f.url, &f.html, &f.text, &f.id]
                            .iter()
                            .any(|n| n.as_str() == t.name())
                    })
                    // Only plain columns: a repeated (list) column can hold any number of values
                    // in one row, which a malformed file uses to never end one (fuzzing).
                    .filter(|t| {
                        t.is_primitive()
                            && t.get_basic_info().has_repetition()
                            && t.get_basic_info().repetition()
                                != parquet::basic::Repetition::REPEATED
                    })
                    .cloned()
                    .collect();
                let projection = Type::group_type_builder(schema.name())
                    .with_fields(wanted)
                    .build()
                    .map_err(|e| e.to_string())?;
                // Streams row group by row group, reading only the projected columns.
                let rows = RowIter::from_file_into(Box::new(r))
                    .project(Some(projection))
                    .map_err(|e| e.to_string())?;
                Ok((rows, total))
            });
        let (rows, total_rows) = match opened {
            Ok((rows, total)) => (Some(rows), total),
            Err(e) => {
                // Reported on the first read (the constructor cannot fail in strict mode).
                ctx.stats.record_type("(unreadable-file)");
                let _ = ctx.problem(
                    0,
                    ProblemKind::BadParquet,
                    format!("cannot open Parquet file: {e}"),
                );
                (None, 0)
            }
        };
        ParquetReader {
            rows,
            row: 0,
            total_rows,
            bytes_total,
            ctx,
        }
    }
}

fn fill(f: &crate::FieldMap, row: &Row, page: &mut Page) -> bool {
    let mut html = false;
    let mut text = false;
    for (name, value) in row.get_column_iter() {
        let s: Option<String> = match value {
            Field::Str(s) => Some(s.clone()),
            Field::Bytes(b) => Some(String::from_utf8_lossy(b.data()).into_owned()),
            Field::Int(i) => Some(i.to_string()),
            Field::Long(i) => Some(i.to_string()),
            Field::UInt(i) => Some(i.to_string()),
            Field::ULong(i) => Some(i.to_string()),
            _ => None,
        };
        let Some(s) = s else { continue };
        if *name == f.url {
            page.url = s;
        } else if *name == f.id {
            page.record_id = s;
        } else if *name == f.html {
            page.body = s.into_bytes();
            html = true;
        } else if *name == f.text && !html {
            page.body = s.into_bytes();
            text = true;
        }
    }
    if html {
        page.kind = BodyKind::Html;
        page.mime.push_str("text/html");
    } else if text {
        page.kind = BodyKind::Text;
        page.mime.push_str("text/plain");
    }
    html || text
}

impl PageSource for ParquetReader {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError> {
        let Some(rows) = self.rows.as_mut() else {
            if self.ctx.opts.strict {
                if let Some(p) = self.ctx.stats.problems.first() {
                    return Err(IngestError::Malformed(p.clone()));
                }
            }
            return Ok(false);
        };
        loop {
            let Some(row) = rows.next() else {
                return Ok(false);
            };
            let n = self.row;
            self.row += 1;
            page.clear();
            self.ctx.stats.record_type("row");
            let row = match row {
                Ok(r) => r,
                Err(e) => {
                    self.ctx
                        .problem(n, ProblemKind::BadParquet, format!("row {n}: {e}"))?;
                    continue;
                }
            };
            page.id = crate::PageId {
                source: self.ctx.source,
                ordinal: n as u32,
            };
            page.offset = n;
            if !fill(&self.ctx.opts.fields, &row, page) {
                let f = &self.ctx.opts.fields;
                let detail = format!(
                    "row {n}: neither {:?} nor {:?} is a string column",
                    f.html, f.text
                );
                self.ctx.problem(n, ProblemKind::BadParquet, detail)?;
                continue;
            }
            self.ctx.stats.pages += 1;
            return Ok(true);
        }
    }

    fn stats(&self) -> &crate::SourceStats {
        &self.ctx.stats
    }

    fn raw_position(&self) -> u64 {
        if self.total_rows == 0 {
            return self.bytes_total;
        }
        self.bytes_total * self.row.min(self.total_rows) / self.total_rows
    }
}

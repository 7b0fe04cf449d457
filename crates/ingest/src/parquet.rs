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
            .map_err(|e| e.to_string())
            .and_then(|file| SerializedFileReader::new(file).map_err(|e| e.to_string()))
            .and_then(|r| {
                let total = r.metadata().file_metadata().num_rows().max(0) as u64;
                let schema = r.metadata().file_metadata().schema();
                let wanted: Vec<Arc<Type>> = schema
                    .get_fields()
                    .iter()
                    .filter(|t| {
                        [&f.url, &f.html, &f.text, &f.id]
                            .iter()
                            .any(|n| n.as_str() == t.name())
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

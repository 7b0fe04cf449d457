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

mod alone;
mod checked;
pub(crate) use alone::read_rows_at;
use checked::{Checked, Fueled};

/// Reads pages from a Parquet file.
pub struct ParquetReader {
    path: std::path::PathBuf,
    rows: Option<RowIter<'static>>,
    /// The first row of each row group, and the number of rows of the file at the end.
    group_starts: Vec<u64>,
    row: u64,
    total_rows: u64,
    bytes_total: u64,
    ctx: Ctx,
}

/// Why a Parquet file cannot be opened for reading rows.
#[derive(Debug, thiserror::Error)]
enum OpenError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// No plain column holds pages.
    #[error("neither {html:?} nor {text:?} is a plain column of the file")]
    NoPageColumn { html: String, text: String },
    /// Run-length encoding lets a tiny file claim billions of empty rows.
    #[error("{what} {rows} rows in {bytes} bytes (more than 1000 rows per byte)")]
    TooManyRows {
        what: &'static str,
        rows: u64,
        bytes: u64,
    },
}

/// Opens `path` for reading rows from row group `from_group` on, reading only the columns
/// `fields` names (and only plain ones). Gives the rows and the first row of each row group.
fn open_rows(
    path: &Path,
    fields: &crate::FieldMap,
    from_group: usize,
) -> Result<(RowIter<'static>, Vec<u64>), OpenError> {
    use parquet::file::serialized_reader::ReadOptionsBuilder;
    let file = File::open(path).and_then(Fueled::new)?;
    let bytes_total = file.len;
    let options = ReadOptionsBuilder::new()
        .with_predicate(Box::new(move |_, i| i >= from_group))
        .build();
    let r = SerializedFileReader::new_with_options(file, options)?;
    let total = r.metadata().file_metadata().num_rows().max(0) as u64;
    // Run-length encoding lets a tiny file claim billions of empty rows (found by fuzzing):
    // more than a thousand rows per byte of file is refused.
    if total > bytes_total.saturating_mul(1000) {
        return Err(OpenError::TooManyRows {
            what: "the file claims",
            rows: total,
            bytes: bytes_total,
        });
    }
    // With a predicate the metadata holds only the row groups read; their first rows are
    // counted from the end of the file's rows, which the full metadata of the first open gave.
    let mut group_starts = vec![0u64];
    for g in r.metadata().row_groups() {
        let last = *group_starts.last().unwrap_or(&0);
        group_starts.push(last.saturating_add(g.num_rows().max(0) as u64));
    }
    let groups = *group_starts.last().unwrap_or(&0);
    if groups > bytes_total.saturating_mul(1000) {
        return Err(OpenError::TooManyRows {
            what: "its row groups claim",
            rows: groups,
            bytes: bytes_total,
        });
    }
    let schema = r.metadata().file_metadata().schema();
    let wanted: Vec<Arc<Type>> = schema
        .get_fields()
        .iter()
        .filter(|t| {
            [&fields.url, &fields.html, &fields.text, &fields.id]
                .iter()
                .any(|n| n.as_str() == t.name())
        })
        // Only plain columns: a repeated (list) column can hold any number of values in one
        // row, which a malformed file uses to never end one (fuzzing).
        .filter(|t| {
            t.is_primitive()
                && t.get_basic_info().has_repetition()
                && t.get_basic_info().repetition() != parquet::basic::Repetition::REPEATED
        })
        .cloned()
        .collect();
    // Without a page column every row would be skipped one by one (a tiny file can claim
    // millions of rows; fuzzing): the file is refused once.
    if !wanted
        .iter()
        .any(|t| t.name() == fields.html || t.name() == fields.text)
    {
        return Err(OpenError::NoPageColumn {
            html: fields.html.clone(),
            text: fields.text.clone(),
        });
    }
    let projection = Type::group_type_builder(schema.name())
        .with_fields(wanted)
        .build()?;
    // Streams row group by row group, reading only the projected columns.
    let rows = RowIter::from_file_into(Box::new(Checked(r))).project(Some(projection))?;
    Ok((rows, group_starts))
}

impl ParquetReader {
    pub(crate) fn new(path: &Path, mut ctx: Ctx) -> ParquetReader {
        let bytes_total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let (rows, group_starts) = match open_rows(path, &ctx.opts.fields, 0) {
            Ok((rows, starts)) => (Some(rows), starts),
            Err(e) => {
                // Reported on the first read (the constructor cannot fail in strict mode).
                ctx.stats.record_type("(unreadable-file)");
                let _ = ctx.problem(
                    0,
                    ProblemKind::BadParquet,
                    format!("cannot open Parquet file: {e}"),
                );
                (None, vec![0])
            }
        };
        ParquetReader {
            path: path.to_path_buf(),
            rows,
            total_rows: *group_starts.last().unwrap_or(&0),
            group_starts,
            row: 0,
            bytes_total,
            ctx,
        }
    }

    /// After a damaged row: the parquet crate's row reader does not move past an error (it
    /// gives the same error for ever, found by fuzzing), so the rest of the row group is
    /// skipped and reading goes on at the next row group, from a new reader.
    fn skip_to_next_group(&mut self, n: u64, error: String) -> Result<(), IngestError> {
        let group = self
            .group_starts
            .partition_point(|&start| start <= n)
            .max(1)
            - 1;
        let next = self
            .group_starts
            .get(group + 1)
            .copied()
            .unwrap_or(self.total_rows);
        self.ctx.problem(
            n,
            ProblemKind::BadParquet,
            format!(
                "row {n}: {error}; the rest of row group {group} ({} rows) is skipped",
                next.saturating_sub(n)
            ),
        )?;
        self.row = next;
        self.rows = None;
        if group + 1 < self.group_starts.len() - 1 {
            match open_rows(&self.path, &self.ctx.opts.fields, group + 1) {
                Ok((rows, _)) => self.rows = Some(rows),
                Err(e) => self.ctx.problem(
                    next,
                    ProblemKind::BadParquet,
                    format!(
                        "cannot reopen the Parquet file at row group {}: {e}",
                        group + 1
                    ),
                )?,
            }
        }
        Ok(())
    }
}

/// The configured columns' values of one row, as text.
#[derive(Default)]
struct Fields {
    url: Option<String>,
    id: Option<String>,
    html: Option<String>,
    text: Option<String>,
}

impl Fields {
    /// Keeps `value` when column `name` is one of the configured fields.
    fn set(&mut self, f: &crate::FieldMap, name: &str, value: String) {
        if name == f.url {
            self.url = Some(value);
        } else if name == f.id {
            self.id = Some(value);
        } else if name == f.html {
            self.html = Some(value);
        } else if name == f.text {
            self.text = Some(value);
        }
    }

    /// Fills `page` (the HTML column before the text one); false when the row has neither.
    fn fill(self, page: &mut Page) -> bool {
        if let Some(u) = self.url {
            page.url = u;
        }
        if let Some(i) = self.id {
            page.record_id = i;
        }
        let (body, kind, mime) = match (self.html, self.text) {
            (Some(h), _) => (h, BodyKind::Html, "text/html"),
            (None, Some(t)) => (t, BodyKind::Text, "text/plain"),
            (None, None) => return false,
        };
        page.body = body.into_bytes();
        page.kind = kind;
        page.mime.push_str(mime);
        true
    }
}

fn fill(f: &crate::FieldMap, row: &Row, page: &mut Page) -> bool {
    let mut fields = Fields::default();
    for (name, value) in row.get_column_iter() {
        // A page's HTML or text is a string (or bytes), as in JSONL; a number is none (a
        // column of numbers named `text` gives no page). URLs and ids may be integers.
        let content = *name == f.html || *name == f.text;
        let s: Option<String> = match value {
            Field::Str(s) => Some(s.clone()),
            Field::Bytes(b) => Some(String::from_utf8_lossy(b.data()).into_owned()),
            _ if content => None,
            Field::Int(i) => Some(i.to_string()),
            Field::Long(i) => Some(i.to_string()),
            Field::UInt(i) => Some(i.to_string()),
            Field::ULong(i) => Some(i.to_string()),
            _ => None,
        };
        if let Some(s) = s {
            fields.set(f, name, s);
        }
    }
    fields.fill(page)
}

impl PageSource for ParquetReader {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError> {
        if self.rows.is_none() && self.ctx.opts.strict {
            if let Some(p) = self.ctx.stats.problems.first() {
                return Err(IngestError::Malformed(p.clone()));
            }
        }
        loop {
            let Some(row) = self.rows.as_mut().and_then(|rows| rows.next()) else {
                return Ok(false);
            };
            let n = self.row;
            self.row += 1;
            page.clear();
            self.ctx.stats.record_type("row");
            let row = match row {
                Ok(r) => r,
                Err(e) => {
                    self.skip_to_next_group(n, e.to_string())?;
                    continue;
                }
            };
            page.id = crate::PageId {
                source: self.ctx.source,
                ordinal: n as u32,
            };
            page.offset = n;
            page.raw_offset = Some(n);
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

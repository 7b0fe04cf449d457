//! Parquet rows read alone, by row number ([`read_rows_at`]): column by column, through the
//! same checked file and page readers as [`super::ParquetReader`], each value typed as its row
//! reader types it.

use super::checked::{Checked, Fueled};
use super::Fields;
use crate::page::Page;
use crate::problem::ProblemKind;
use crate::source::{Ctx, IngestError};
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::fs::File;
use std::path::Path;

/// How a column's values become text, as the parquet crate's row reader types them and
/// [`fill`] takes them (a value of any other type is no text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AsText {
    /// A string (UTF-8 checked: the row reader fails on a bad one).
    Str,
    /// Bytes, read as lossy UTF-8.
    Bytes,
    /// A signed integer.
    Signed,
    /// An unsigned integer.
    Unsigned,
    /// Never text (dates, decimals, small integers, floats...).
    Never,
}

impl AsText {
    fn of(c: &parquet::schema::types::ColumnDescriptor) -> AsText {
        use parquet::basic::{ConvertedType as C, LogicalType, Type as P};
        match (c.physical_type(), c.converted_type()) {
            (P::BYTE_ARRAY, C::UTF8 | C::ENUM | C::JSON) => AsText::Str,
            (P::BYTE_ARRAY, C::BSON | C::NONE) => AsText::Bytes,
            (P::FIXED_LEN_BYTE_ARRAY, C::NONE)
                if c.logical_type_ref() != Some(&LogicalType::Float16) =>
            {
                AsText::Bytes
            }
            (P::INT32, C::INT_32 | C::NONE) | (P::INT64, C::INT_64 | C::NONE) => AsText::Signed,
            (P::INT32, C::UINT_32) | (P::INT64, C::UINT_64) => AsText::Unsigned,
            _ => AsText::Never,
        }
    }

    fn bytes(self, b: &[u8]) -> Option<String> {
        match self {
            AsText::Str => String::from_utf8(b.to_vec()).ok(),
            AsText::Bytes => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }

    fn int(self, signed: i64, unsigned: u64) -> Option<String> {
        match self {
            AsText::Signed => Some(signed.to_string()),
            AsText::Unsigned => Some(unsigned.to_string()),
            _ => None,
        }
    }
}

/// Skips `skip` records of a column, then reads the next one: `None` when the column ends
/// first, `Some(None)` for a null. Skipped records are read and dropped, through the same
/// checked page reads as every row (the column reader's own `skip_records` peeks at page
/// headers, and the parquet crate panics on a version-2 data page header without its body:
/// found by fuzzing).
fn next_value<T: parquet::data_type::DataType>(
    c: &mut parquet::column::reader::ColumnReaderImpl<T>,
    mut skip: usize,
    defs: &mut Vec<i16>,
    scratch: &mut Vec<T::T>,
) -> parquet::errors::Result<Option<Option<T::T>>> {
    while skip > 0 {
        scratch.clear();
        defs.clear();
        let (records, _, _) = c.read_records(skip.min(1024), Some(defs), None, scratch)?;
        if records == 0 {
            return Ok(None);
        }
        skip -= records;
    }
    scratch.clear();
    defs.clear();
    let (records, _, _) = c.read_records(1, Some(defs), None, scratch)?;
    if records == 0 {
        return Ok(None);
    }
    Ok(Some(scratch.pop()))
}

/// Reads rows `rows` (ascending row numbers of the whole file) of a Parquet file, column by
/// column: the rows between are skipped without their values being decoded, so a few rows cost
/// a small part of reading the file (reading all of a row group's rows up to the last one
/// wanted costs as much as reading the file). Each page read is given to `out` with its row.
/// A damaged column chunk is a problem (in `ctx`) and leaves its row group's rows unread.
pub(crate) fn read_rows_at(
    path: &Path,
    ctx: &mut Ctx,
    rows: &[u64],
    out: &mut dyn FnMut(u64, Page),
) -> Result<(), IngestError> {
    use parquet::column::reader::ColumnReader;
    let opened = File::open(path)
        .and_then(Fueled::new)
        .map_err(parquet::errors::ParquetError::from)
        .and_then(|f| SerializedFileReader::new(f).map(Checked));
    let file = match opened {
        Ok(f) => f,
        Err(e) => {
            return ctx.problem(
                rows.first().copied().unwrap_or(0),
                ProblemKind::BadParquet,
                format!("cannot open Parquet file: {e}"),
            )
        }
    };
    let fields = ctx.opts.fields.clone();
    let schema = file.metadata().file_metadata().schema_descr_ptr();
    // The configured top-level columns that hold one value per row, each with how its values
    // become text (as the row reader's `fill` takes them).
    let columns: Vec<(usize, String, AsText)> = (0..schema.num_columns())
        .map(|i| (i, schema.column(i)))
        .filter(|(_, c)| c.path().parts().len() == 1 && c.max_rep_level() == 0)
        .filter(|(_, c)| fields.reads(c.name()))
        .map(|(i, c)| (i, c.name().to_string(), AsText::of(&c)))
        .filter(|(_, _, t)| *t != AsText::Never)
        .collect();
    let mut start = 0u64;
    let mut at = 0usize;
    for g in 0..file.num_row_groups() {
        let n = file.metadata().row_group(g).num_rows().max(0) as u64;
        let end = start.saturating_add(n);
        let here: Vec<u64> = rows[at..]
            .iter()
            .copied()
            .take_while(|&r| r < end)
            .filter(|&r| r >= start)
            .collect();
        at += rows[at..].iter().take_while(|&&r| r < end).count();
        if here.is_empty() {
            start = end;
            continue;
        }
        let mut got: Vec<Fields> = here.iter().map(|_| Fields::default()).collect();
        let read = (|| -> parquet::errors::Result<()> {
            let group = file.get_row_group(g)?;
            for (i, name, as_text) in &columns {
                let mut reader = group.get_column_reader(*i)?;
                let mut next = start;
                let mut defs = Vec::new();
                for (k, &r) in here.iter().enumerate() {
                    let skip = (r - next) as usize;
                    let value = match &mut reader {
                        ColumnReader::ByteArrayColumnReader(c) => {
                            match next_value(c, skip, &mut defs, &mut Vec::new())? {
                                Some(v) => v.map(|b| as_text.bytes(b.data())),
                                None => break,
                            }
                        }
                        ColumnReader::FixedLenByteArrayColumnReader(c) => {
                            match next_value(c, skip, &mut defs, &mut Vec::new())? {
                                Some(v) => v.map(|b| as_text.bytes(b.data())),
                                None => break,
                            }
                        }
                        ColumnReader::Int32ColumnReader(c) => {
                            match next_value(c, skip, &mut defs, &mut Vec::new())? {
                                Some(v) => v.map(|x| as_text.int(x.into(), x as u32 as u64)),
                                None => break,
                            }
                        }
                        ColumnReader::Int64ColumnReader(c) => {
                            match next_value(c, skip, &mut defs, &mut Vec::new())? {
                                Some(v) => v.map(|x| as_text.int(x, x as u64)),
                                None => break,
                            }
                        }
                        _ => break,
                    };
                    defs.clear();
                    next = r + 1;
                    if let Some(Some(v)) = value {
                        got[k].set(&fields, name, v);
                    }
                }
            }
            Ok(())
        })();
        if let Err(e) = read {
            ctx.problem(
                here[0],
                ProblemKind::BadParquet,
                format!("row group {g}: {e}; its rows are not read again"),
            )?;
        } else {
            for (r, f) in here.into_iter().zip(got) {
                let mut page = Page {
                    id: crate::PageId {
                        source: ctx.source,
                        ordinal: r as u32,
                    },
                    offset: r,
                    raw_offset: Some(r),
                    ..Page::default()
                };
                if f.fill(&mut page) {
                    out(r, page);
                }
            }
        }
        start = end;
        if at >= rows.len() {
            break;
        }
    }
    Ok(())
}

//! One input read again record by record, each plain-text document's text offered to a
//! function that may replace it, and (with an output) the input written again in its format:
//! JSONL with the text value spliced in place (every other byte of the line as it was; the
//! input's compression), Parquet with the text column replaced (schema, metadata, compression
//! kept). Paragraph cuts and contamination cuts both go through here.

use crate::kept::{CompressedOut, ParquetCopy};
use crate::CleanError;
use neardup_ingest::{FieldMap, Format, JsonlRecords};
use std::path::Path;
use std::sync::Arc;

/// A document as the rewriting function sees it.
pub(crate) struct Doc<'a> {
    /// Input << 32 | record ordinal (the readers' numbering).
    pub(crate) key: u64,
    /// Its text, or `None` when it has none to rewrite (read as HTML, or no text field).
    pub(crate) text: Option<&'a str>,
    /// Its id (the id field), empty without one.
    pub(crate) id: &'a str,
}

/// What a rewriting pass asks of its caller, record by record in order.
pub(crate) trait Rewriter {
    /// Whether record `key` needs to be looked at; a record not wanted is copied as it is,
    /// never parsed.
    fn wants(&mut self, key: u64) -> bool;
    /// The new text of a wanted record, `None` to keep it.
    fn each(&mut self, doc: Doc<'_>) -> Result<Option<String>, CleanError>;
}

/// Reads input `source` at `path`, asks `r` about every record in order, and with `out` writes
/// the input again with the texts it replaced. Returns the records read.
pub(crate) fn rewrite(
    source: u32,
    path: &Path,
    out: Option<&Path>,
    fields: &FieldMap,
    r: &mut impl Rewriter,
) -> Result<u64, CleanError> {
    match neardup_ingest::detect_format(path) {
        Ok(Format::Parquet) => parquet(source, path, out, fields, r),
        _ => jsonl(source, path, out, fields, r),
    }
}

fn doc_key(source: u32, ordinal: u64) -> u64 {
    (u64::from(source) << 32) | ordinal.min(u64::from(u32::MAX))
}

fn jsonl(
    source: u32,
    path: &Path,
    out: Option<&Path>,
    fields: &FieldMap,
    r: &mut impl Rewriter,
) -> Result<u64, CleanError> {
    let read_err = |source| CleanError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut records = JsonlRecords::open(path, usize::MAX).map_err(read_err)?;
    let mut writer = match out {
        Some(o) => Some(CompressedOut::create(o, records.compression())?),
        None => None,
    };
    let mut line = Vec::new();
    let mut n = 0;
    while let Some(ordinal) = records.next_record(&mut line).map_err(read_err)? {
        n += 1;
        let key = doc_key(source, u64::from(ordinal));
        if !r.wants(key) {
            if let Some(w) = writer.as_mut() {
                w.write_all(&line)?;
            }
            continue;
        }
        let spliced = match crate::json::string_field(&line, &fields.text) {
            // A record with an HTML field was read as HTML: its text is not this one.
            Some(f) if crate::json::string_field(&line, &fields.html).is_none() => {
                let id = crate::json::scalar_field(&line, &fields.id).unwrap_or_default();
                r.each(Doc {
                    key,
                    text: Some(&f.value),
                    id: &id,
                })?
                .map(|new| f.replaced(&line, &new))
            }
            _ => {
                r.each(Doc {
                    key,
                    text: None,
                    id: "",
                })?;
                None
            }
        };
        if let Some(w) = writer.as_mut() {
            w.write_all(spliced.as_deref().unwrap_or(&line))?;
        }
    }
    if let Some(w) = writer {
        w.commit()?;
    }
    Ok(n)
}

fn parquet(
    source: u32,
    path: &Path,
    out: Option<&Path>,
    fields: &FieldMap,
    r: &mut impl Rewriter,
) -> Result<u64, CleanError> {
    use arrow_array::{Array, ArrayRef, StringArray};
    let mut copy = ParquetCopy::open(path, out, None)?;
    let schema = copy.schema();
    let text_col = schema.index_of(&fields.text).ok();
    let html_col = schema.index_of(&fields.html).ok();
    let id_col = schema.index_of(&fields.id).ok();
    let mut records = 0;
    copy.each_batch(|batch, at| {
        let n = batch.num_rows();
        records += n as u64;
        let texts = text_col
            .and_then(|c| arrow_array::cast::AsArray::as_string_opt::<i32>(batch.column(c)));
        let html = html_col
            .and_then(|c| arrow_array::cast::AsArray::as_string_opt::<i32>(batch.column(c)));
        let ids = id_col.map(|c| batch.column(c).clone());
        let mut new: Option<Vec<Option<String>>> = None;
        for row in 0..n {
            let key = doc_key(source, at + row as u64);
            if !r.wants(key) {
                continue;
            }
            let text = texts
                .filter(|t| t.is_valid(row) && !html.is_some_and(|h| h.is_valid(row)))
                .map(|t| t.value(row));
            let id = match (&ids, text) {
                (Some(c), Some(_)) => scalar_text(c.as_ref(), row),
                _ => String::new(),
            };
            let replaced = r.each(Doc { key, text, id: &id })?;
            if let (Some(r), Some(t)) = (replaced, texts) {
                let column = new.get_or_insert_with(|| {
                    (0..n)
                        .map(|i| t.is_valid(i).then(|| t.value(i).to_string()))
                        .collect()
                });
                column[row] = Some(r);
            }
        }
        let (Some(new), Some(tc)) = (new, text_col) else {
            return Ok(Some(batch));
        };
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        columns[tc] = Arc::new(StringArray::from(new));
        arrow_array::RecordBatch::try_new(batch.schema(), columns)
            .map(Some)
            .map_err(|e| CleanError::Parquet {
                path: path.to_path_buf(),
                source: e.into(),
            })
    })?;
    copy.commit()?;
    Ok(records)
}

/// A Parquet cell as text, for ids: strings as they are, integers in decimal.
fn scalar_text(a: &dyn arrow_array::Array, row: usize) -> String {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
    if a.is_null(row) {
        return String::new();
    }
    if let Some(s) = a.as_string_opt::<i32>() {
        return s.value(row).to_string();
    }
    if let Some(s) = a.as_string_opt::<i64>() {
        return s.value(row).to_string();
    }
    if let Some(v) = a.as_primitive_opt::<Int64Type>() {
        return v.value(row).to_string();
    }
    if let Some(v) = a.as_primitive_opt::<Int32Type>() {
        return v.value(row).to_string();
    }
    if let Some(v) = a.as_primitive_opt::<UInt64Type>() {
        return v.value(row).to_string();
    }
    if let Some(v) = a.as_primitive_opt::<UInt32Type>() {
        return v.value(row).to_string();
    }
    String::new()
}

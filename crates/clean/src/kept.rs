//! The kept corpus, written out: every record of every JSONL or Parquet input that the dedup
//! run did not remove, in input order, one output file per input file.
//!
//! What is written: a record is left out only when the run removed it (a non-canonical member
//! of a cluster, as `remove` lists). Everything else is copied as it is, records neardup could
//! not read included (they are counted under `skipped`; the run had no say about them): nothing
//! the user has is dropped without a reason. A JSONL line is copied byte for byte, terminator
//! included, and written with the input's compression (gzip, zstd or none, detected from the
//! bytes); a Parquet file's kept rows are written with its Arrow schema, its key-value metadata
//! and its first column's compression.
//!
//! Records are found again by their ordinals, the numbers the readers gave them
//! ([`neardup_ingest::PageId::ordinal`]): JSONL is cut into records by the reader's own line
//! splitter ([`neardup_ingest::JsonlRecords`]), Parquet rows are numbered across row groups.
//!
//! Output paths: one input is written as `DIR/<its file name>`; several keep their paths
//! below the folder all of them share, so `a/part-0.jsonl` and `b/part-0.jsonl` do not collide.

use arrow_array::{ArrayRef, BooleanArray, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use neardup_ingest::{Compression, Format, JsonlRecords};
use neardup_report::{AtomicFile, OutputGuard, ReportError};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The field (JSONL) or column (Parquet) a kept record gains with [`KeptOptions::counts`]: the
/// size of its cluster (1 for a page in none).
pub const CLUSTER_SIZE_FIELD: &str = "neardup_cluster_size";
/// The field or column a kept record gains with [`KeptOptions::counts`]: how many copies of it
/// were removed (its cluster's size less one), what FineWeb2 upsamples by.
pub const REMOVED_COPIES_FIELD: &str = "neardup_removed_copies";

/// Why the kept corpus could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CleanError {
    /// An input of a format the writer does not write.
    #[error(
        "{}: --write-kept writes JSONL and Parquet inputs, and this one is {format}; \
         for crawls, remove.jsonl lists what to drop",
        path.display()
    )]
    Format {
        /// The input.
        path: PathBuf,
        /// Its format's name.
        format: &'static str,
    },
    /// An input could not be read again.
    #[error("{}: {source}", path.display())]
    Read {
        /// The input.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// A Parquet input could not be read again, or its output written.
    #[error("{}: {source}", path.display())]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What the Parquet library said.
        source: parquet::errors::ParquetError,
    },
    /// An output could not be written.
    #[error(transparent)]
    Write(#[from] ReportError),
    /// A kept record would gain a field it already has.
    #[error(
        "{}: already has a column {name:?}; --kept-counts would add it again",
        path.display()
    )]
    FieldExists {
        /// The input.
        path: PathBuf,
        /// The field.
        name: &'static str,
    },
}

/// What the dedup run decided, per input: which records were removed, and for the records kept
/// in a cluster, its size. Ordinals are the readers' ([`neardup_ingest::PageId::ordinal`]).
#[derive(Clone, Debug, Default)]
pub struct KeptPlan {
    sources: Vec<SourcePlan>,
}

#[derive(Clone, Debug, Default)]
struct SourcePlan {
    /// Ordinals removed, sorted.
    removed: Vec<u32>,
    /// (ordinal, cluster size) of kept pages in clusters, sorted by ordinal.
    clusters: Vec<(u32, u32)>,
    sorted: bool,
}

impl KeptPlan {
    /// A plan over `sources` inputs, removing nothing.
    pub fn new(sources: usize) -> KeptPlan {
        KeptPlan {
            sources: vec![SourcePlan::default(); sources],
        }
    }

    fn source(&mut self, source: u32) -> &mut SourcePlan {
        let s = source as usize;
        if s >= self.sources.len() {
            self.sources.resize(s + 1, SourcePlan::default());
        }
        let p = &mut self.sources[s];
        p.sorted = false;
        p
    }

    /// Record `ordinal` of input `source` was removed.
    pub fn removed(&mut self, source: u32, ordinal: u32) {
        self.source(source).removed.push(ordinal);
    }

    /// Record `ordinal` of input `source` is kept for a cluster of `size` pages.
    pub fn kept_in_cluster(&mut self, source: u32, ordinal: u32, size: u32) {
        self.source(source).clusters.push((ordinal, size));
    }

    /// How many records the plan removes in all.
    pub fn removed_count(&self) -> u64 {
        self.sources.iter().map(|s| s.removed.len() as u64).sum()
    }

    fn sorted(&mut self) {
        for s in &mut self.sources {
            if !s.sorted {
                s.removed.sort_unstable();
                s.removed.dedup();
                s.clusters.sort_unstable();
                s.clusters.dedup_by_key(|c| c.0);
                s.sorted = true;
            }
        }
    }
}

/// Walks one input's plan in ordinal order (records come in that order).
struct Cursor<'a> {
    plan: Option<&'a SourcePlan>,
    removed: usize,
    clusters: usize,
}

impl<'a> Cursor<'a> {
    fn new(plan: Option<&'a SourcePlan>) -> Cursor<'a> {
        Cursor {
            plan,
            removed: 0,
            clusters: 0,
        }
    }

    /// `None` when record `ordinal` was removed, else its cluster's size. Ordinals must come in
    /// increasing order.
    fn kept(&mut self, ordinal: u32) -> Option<u32> {
        let Some(p) = self.plan else { return Some(1) };
        while p.removed.get(self.removed).is_some_and(|&r| r < ordinal) {
            self.removed += 1;
        }
        if p.removed.get(self.removed) == Some(&ordinal) {
            return None;
        }
        while p.clusters.get(self.clusters).is_some_and(|c| c.0 < ordinal) {
            self.clusters += 1;
        }
        Some(match p.clusters.get(self.clusters) {
            Some(&(o, size)) if o == ordinal => size,
            _ => 1,
        })
    }
}

/// How the kept corpus is written.
#[derive(Clone, Debug, Default)]
pub struct KeptOptions {
    /// Each kept record gains [`CLUSTER_SIZE_FIELD`] and [`REMOVED_COPIES_FIELD`] (a JSONL
    /// object gains them at its end; a Parquet file gains two UInt64 columns). Off: every kept
    /// record is written exactly as it was read.
    pub counts: bool,
}

/// One input's kept file.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct KeptFile {
    /// The input.
    pub input: String,
    /// Where its kept records went.
    pub output: String,
    /// Records read again from the input.
    pub records_read: u64,
    /// Records written.
    pub records_written: u64,
    /// Records left out because the run removed them.
    pub records_removed: u64,
    /// Stretches of the input that could not be read again (a damaged gzip member, a Parquet
    /// row group that does not decode): counted, not written, as the run skipped them too.
    pub damaged: u64,
}

/// What [`write_kept`] wrote.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct KeptSummary {
    /// The folder written.
    pub dir: String,
    /// One entry per input, in input order.
    pub files: Vec<KeptFile>,
}

/// Refuses inputs the writer cannot write (anything but JSONL and Parquet), before a run
/// reads them.
pub fn check_inputs(inputs: &[PathBuf]) -> Result<(), CleanError> {
    for path in inputs {
        let format = neardup_ingest::detect_format(path).map_err(|e| CleanError::Read {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        if !matches!(format, Format::Jsonl | Format::Parquet) {
            return Err(CleanError::Format {
                path: path.clone(),
                format: format.as_str(),
            });
        }
    }
    Ok(())
}

/// Where each input's kept records go below `dir`: the file name for one input, else the path
/// below the folder every input shares.
fn output_paths(inputs: &[PathBuf], dir: &Path) -> Vec<PathBuf> {
    let absolute: Vec<PathBuf> = inputs
        .iter()
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
        .collect();
    let common = match absolute.as_slice() {
        [one] => one.parent().map(Path::to_path_buf).unwrap_or_default(),
        [first, rest @ ..] => {
            let mut c = first.parent().map(Path::to_path_buf).unwrap_or_default();
            for p in rest {
                while !p.starts_with(&c) {
                    if !c.pop() {
                        break;
                    }
                }
            }
            c
        }
        [] => PathBuf::new(),
    };
    absolute
        .iter()
        .map(|p| match p.strip_prefix(&common) {
            Ok(rel) if !rel.as_os_str().is_empty() => dir.join(rel),
            _ => dir.join(p.file_name().unwrap_or_default()),
        })
        .collect()
}

/// Writes the records of `inputs` (JSONL or Parquet, in the run's input order: input `i` is
/// source `i` of the plan) that `plan` keeps to files below `dir`.
pub fn write_kept(
    inputs: &[PathBuf],
    plan: &KeptPlan,
    dir: &Path,
    guard: &OutputGuard,
    options: &KeptOptions,
) -> Result<KeptSummary, CleanError> {
    check_inputs(inputs)?;
    let mut plan = plan.clone();
    plan.sorted();
    let outputs = output_paths(inputs, dir);
    guard.create_dir(dir)?;
    for out in &outputs {
        if let Some(parent) = out.parent() {
            guard.create_dir(parent)?;
        }
        guard.claim(out)?;
    }
    let mut summary = KeptSummary {
        dir: dir.display().to_string(),
        files: Vec::new(),
    };
    for (i, (input, out)) in inputs.iter().zip(&outputs).enumerate() {
        let cursor = Cursor::new(plan.sources.get(i));
        let file = match neardup_ingest::detect_format(input) {
            Ok(Format::Parquet) => write_parquet(input, out, cursor, options)?,
            _ => write_jsonl(input, out, cursor, options)?,
        };
        summary.files.push(file);
    }
    Ok(summary)
}

fn write_jsonl(
    input: &Path,
    out: &Path,
    mut cursor: Cursor,
    options: &KeptOptions,
) -> Result<KeptFile, CleanError> {
    let read_err = |source| CleanError::Read {
        path: input.to_path_buf(),
        source,
    };
    let write_err = |source| {
        CleanError::Write(ReportError::Io {
            path: out.to_path_buf(),
            source,
        })
    };
    let mut records = JsonlRecords::open(input, usize::MAX).map_err(read_err)?;
    let mut file = AtomicFile::create(out)?;
    let mut w: Box<dyn Write + '_> = match records.compression() {
        Compression::None => Box::new(&mut file),
        Compression::Gzip => Box::new(flate2::write::GzEncoder::new(
            &mut file,
            flate2::Compression::default(),
        )),
        Compression::Zstd => Box::new(
            zstd::stream::write::Encoder::new(&mut file, 3)
                .map_err(write_err)?
                .auto_finish(),
        ),
    };
    let mut f = KeptFile {
        input: input.display().to_string(),
        output: out.display().to_string(),
        records_read: 0,
        records_written: 0,
        records_removed: 0,
        damaged: 0,
    };
    let mut line = Vec::new();
    let mut checked = !options.counts;
    while let Some(ordinal) = records.next_record(&mut line).map_err(read_err)? {
        f.records_read += 1;
        let Some(size) = cursor.kept(ordinal) else {
            f.records_removed += 1;
            continue;
        };
        f.records_written += 1;
        if !options.counts {
            w.write_all(&line).map_err(write_err)?;
            continue;
        }
        if !checked {
            checked = true;
            for name in [CLUSTER_SIZE_FIELD, REMOVED_COPIES_FIELD] {
                if memchr_str(&line, name) {
                    return Err(CleanError::FieldExists {
                        path: input.to_path_buf(),
                        name,
                    });
                }
            }
        }
        write_with_counts(&mut w, &line, size).map_err(write_err)?;
    }
    // Ends the compressed stream (a gzip trailer; zstd's encoder ends when dropped).
    w.flush().map_err(write_err)?;
    drop(w);
    f.damaged = records.damaged;
    file.commit()?;
    Ok(f)
}

fn memchr_str(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// A JSON object's line with the two count fields added before its closing brace; any other
/// line as it is.
fn write_with_counts(w: &mut dyn Write, line: &[u8], size: u32) -> std::io::Result<()> {
    let body_end = line.len() - (line.len() - line.trim_ascii_end().len());
    let body = &line[..body_end];
    let (Some(b'{'), Some(b'}')) = (body.trim_ascii_start().first(), body.last()) else {
        return w.write_all(line);
    };
    let inner = &body[..body.len() - 1];
    let empty = inner.trim_ascii() == b"{";
    w.write_all(inner)?;
    write!(
        w,
        "{}\"{CLUSTER_SIZE_FIELD}\":{size},\"{REMOVED_COPIES_FIELD}\":{}}}",
        if empty { "" } else { "," },
        size.saturating_sub(1)
    )?;
    w.write_all(&line[body_end..])?;
    if body_end == line.len() {
        // The last line had no terminator: the record still ends here.
        w.write_all(b"\n")?;
    }
    Ok(())
}

fn write_parquet(
    input: &Path,
    out: &Path,
    mut cursor: Cursor,
    options: &KeptOptions,
) -> Result<KeptFile, CleanError> {
    let pq_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CleanError::Parquet {
            path: path.clone(),
            source,
        }
    };
    let open = || {
        std::fs::File::open(input).map_err(|source| CleanError::Read {
            path: input.to_path_buf(),
            source,
        })
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(open()?).map_err(pq_err(input))?;
    let schema = builder.schema().clone();
    let meta = builder.metadata().clone();
    let mut out_schema = schema.clone();
    if options.counts {
        let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
        for name in [CLUSTER_SIZE_FIELD, REMOVED_COPIES_FIELD] {
            if schema.field_with_name(name).is_ok() {
                return Err(CleanError::FieldExists {
                    path: input.to_path_buf(),
                    name,
                });
            }
            fields.push(Arc::new(Field::new(name, DataType::UInt64, false)));
        }
        out_schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    }
    let mut props = WriterProperties::builder();
    if let Some(c) = (meta.num_row_groups() > 0 && meta.row_group(0).num_columns() > 0)
        .then(|| meta.row_group(0).column(0).compression())
    {
        props = props.set_compression(c);
    }
    // The file's own metadata, but for the Arrow schema the writer records itself.
    let kv: Vec<_> = (meta.file_metadata().key_value_metadata())
        .into_iter()
        .flatten()
        .filter(|kv| kv.key != "ARROW:schema")
        .cloned()
        .collect();
    if !kv.is_empty() {
        props = props.set_key_value_metadata(Some(kv));
    }
    let mut file = AtomicFile::create(out)?;
    let mut writer = ArrowWriter::try_new(&mut file, out_schema.clone(), Some(props.build()))
        .map_err(pq_err(out))?;
    let mut f = KeptFile {
        input: input.display().to_string(),
        output: out.display().to_string(),
        records_read: 0,
        records_written: 0,
        records_removed: 0,
        damaged: 0,
    };
    let mut base: u64 = 0;
    for g in 0..meta.num_row_groups() {
        let rows = meta.row_group(g).num_rows().max(0) as u64;
        let reader = ParquetRecordBatchReaderBuilder::try_new(open()?)
            .and_then(|b| b.with_row_groups(vec![g]).build());
        let batches: Result<Vec<RecordBatch>, _> = match reader {
            Ok(r) => r.collect(),
            Err(e) => Err(arrow_schema::ArrowError::ExternalError(Box::new(e))),
        };
        let Ok(batches) = batches else {
            // The run skipped this group's rows too.
            f.damaged += 1;
            base += rows;
            continue;
        };
        let mut at = base;
        for batch in batches {
            let n = batch.num_rows();
            let mut keep = Vec::with_capacity(n);
            let mut sizes = Vec::new();
            for o in at..at + n as u64 {
                let size = cursor.kept(o.min(u32::MAX as u64) as u32);
                keep.push(size.is_some());
                if let Some(s) = size {
                    sizes.push(s as u64);
                }
            }
            at += n as u64;
            f.records_read += n as u64;
            f.records_written += sizes.len() as u64;
            f.records_removed += (n - sizes.len()) as u64;
            let kept = arrow_select::filter::filter_record_batch(&batch, &BooleanArray::from(keep))
                .map_err(|e| CleanError::Parquet {
                    path: input.to_path_buf(),
                    source: e.into(),
                })?;
            let kept = if options.counts {
                let mut columns: Vec<ArrayRef> = kept.columns().to_vec();
                columns.push(Arc::new(UInt64Array::from(sizes.clone())));
                columns.push(Arc::new(UInt64Array::from_iter_values(
                    sizes.iter().map(|s| s - 1),
                )));
                RecordBatch::try_new(out_schema.clone(), columns).map_err(|e| {
                    CleanError::Parquet {
                        path: out.to_path_buf(),
                        source: e.into(),
                    }
                })?
            } else {
                kept
            };
            writer.write(&kept).map_err(pq_err(out))?;
        }
        base += rows;
    }
    writer.close().map_err(pq_err(out))?;
    file.commit()?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_go_inside_the_object_and_keep_its_terminator() {
        let mut out = Vec::new();
        write_with_counts(&mut out, b"{\"a\":1}\r\n", 3).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"a\":1,\"neardup_cluster_size\":3,\"neardup_removed_copies\":2}\r\n"
        );
        let mut out = Vec::new();
        write_with_counts(&mut out, b"{ }", 1).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{ \"neardup_cluster_size\":1,\"neardup_removed_copies\":0}\n"
        );
        // Not an object: as it is.
        let mut out = Vec::new();
        write_with_counts(&mut out, b"[1]\n", 2).unwrap();
        assert_eq!(out, b"[1]\n");
    }

    #[test]
    fn outputs_keep_their_paths_below_the_shared_folder() {
        let dir = Path::new("/out");
        let got = output_paths(
            &[
                PathBuf::from("/data/a/part-0.jsonl"),
                PathBuf::from("/data/b/part-0.jsonl"),
            ],
            dir,
        );
        assert_eq!(
            got,
            [
                PathBuf::from("/out/a/part-0.jsonl"),
                PathBuf::from("/out/b/part-0.jsonl")
            ]
        );
        let one = output_paths(&[PathBuf::from("/data/a/x.jsonl.gz")], dir);
        assert_eq!(one, [PathBuf::from("/out/x.jsonl.gz")]);
    }

    #[test]
    fn the_cursor_follows_the_plan_in_order() {
        let mut plan = KeptPlan::new(1);
        for o in [5, 1, 3] {
            plan.removed(0, o);
        }
        plan.kept_in_cluster(0, 0, 4);
        plan.sorted();
        let mut c = Cursor::new(plan.sources.first());
        let got: Vec<Option<u32>> = (0..7).map(|o| c.kept(o)).collect();
        assert_eq!(got, [Some(4), None, Some(1), None, Some(1), None, Some(1)]);
    }
}

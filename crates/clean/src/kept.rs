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
use neardup_text::language::Language;
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
/// The field or column a kept record gains with [`KeptOptions::language`]: its language
/// (ISO 639-3, `neardup_text::language`).
pub const LANGUAGE_FIELD: &str = "neardup_language";

/// Why the kept corpus could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CleanError {
    /// An input of a format the writer does not write.
    #[error(
        "{}: a cleaned copy is written of JSONL and Parquet inputs only, and this one is \
         {format}; for a crawl, the run's tables name what to drop",
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
        "{}: already has a column {name:?}; --kept-counts or --kept-language would add it again",
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
    /// (ordinal, language) of every sketched page, sorted by ordinal.
    languages: Vec<(u32, Language)>,
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

    /// Record `ordinal` of input `source` is in `language`.
    pub fn language(&mut self, source: u32, ordinal: u32, language: Language) {
        self.source(source).languages.push((ordinal, language));
    }

    /// The language of record `ordinal` of input `source` (unknown for a record without
    /// one); the plan must be sorted ([`KeptPlan::sort`]).
    pub fn language_of(&self, source: u32, ordinal: u32) -> Language {
        let Some(s) = self.sources.get(source as usize) else {
            return Language::UNKNOWN;
        };
        debug_assert!(s.sorted || s.languages.is_empty());
        match s.languages.binary_search_by_key(&ordinal, |l| l.0) {
            Ok(i) => s.languages[i].1,
            Err(_) => Language::UNKNOWN,
        }
    }

    /// How many records the plan removes in all.
    pub fn removed_count(&self) -> u64 {
        self.sources.iter().map(|s| s.removed.len() as u64).sum()
    }

    /// Sorts what was recorded (for [`KeptPlan::language_of`] and the writers).
    pub fn sort(&mut self) {
        for s in &mut self.sources {
            if !s.sorted {
                s.removed.sort_unstable();
                s.removed.dedup();
                s.clusters.sort_unstable();
                s.clusters.dedup_by_key(|c| c.0);
                s.languages.sort_unstable_by_key(|l| l.0);
                s.languages.dedup_by_key(|l| l.0);
                s.sorted = true;
            }
        }
    }

    fn is_sorted(&self) -> bool {
        self.sources.iter().all(|s| s.sorted)
    }
}

/// Walks one input's plan in ordinal order (records come in that order).
struct Cursor<'a> {
    plan: Option<&'a SourcePlan>,
    removed: usize,
    clusters: usize,
    languages: usize,
}

/// What the plan says of a kept record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kept {
    /// Its cluster's size (1: in none).
    size: u32,
    /// Its language.
    language: Language,
}

impl<'a> Cursor<'a> {
    fn new(plan: Option<&'a SourcePlan>) -> Cursor<'a> {
        Cursor {
            plan,
            removed: 0,
            clusters: 0,
            languages: 0,
        }
    }

    /// `None` when record `ordinal` was removed, else what is known of it. Ordinals must come
    /// in increasing order.
    fn kept(&mut self, ordinal: u32) -> Option<Kept> {
        let Some(p) = self.plan else {
            return Some(Kept {
                size: 1,
                language: Language::UNKNOWN,
            });
        };
        while p.removed.get(self.removed).is_some_and(|&r| r < ordinal) {
            self.removed += 1;
        }
        if p.removed.get(self.removed) == Some(&ordinal) {
            return None;
        }
        while p.clusters.get(self.clusters).is_some_and(|c| c.0 < ordinal) {
            self.clusters += 1;
        }
        let size = match p.clusters.get(self.clusters) {
            Some(&(o, size)) if o == ordinal => size,
            _ => 1,
        };
        while p
            .languages
            .get(self.languages)
            .is_some_and(|l| l.0 < ordinal)
        {
            self.languages += 1;
        }
        let language = match p.languages.get(self.languages) {
            Some(&(o, l)) if o == ordinal => l,
            _ => Language::UNKNOWN,
        };
        Some(Kept { size, language })
    }
}

/// How the kept corpus is written.
#[derive(Clone, Debug, Default)]
pub struct KeptOptions {
    /// Each kept record gains [`CLUSTER_SIZE_FIELD`] and [`REMOVED_COPIES_FIELD`] (a JSONL
    /// object gains them at its end; a Parquet file gains two UInt64 columns). Off: every kept
    /// record is written exactly as it was read.
    pub counts: bool,
    /// Each kept record gains [`LANGUAGE_FIELD`] (a Utf8 column in Parquet).
    pub language: bool,
}

impl KeptOptions {
    /// The fields a kept record gains, in order.
    fn fields(&self) -> Vec<&'static str> {
        let mut f = Vec::new();
        if self.counts {
            f.extend([CLUSTER_SIZE_FIELD, REMOVED_COPIES_FIELD]);
        }
        if self.language {
            f.push(LANGUAGE_FIELD);
        }
        f
    }

    /// The JSON members a kept record gains (`"name":value` joined by commas), into `out`.
    fn members(&self, k: Kept, out: &mut Vec<u8>) {
        out.clear();
        if self.counts {
            let _ = write!(
                out,
                "\"{CLUSTER_SIZE_FIELD}\":{},\"{REMOVED_COPIES_FIELD}\":{}",
                k.size,
                k.size.saturating_sub(1)
            );
        }
        if self.language {
            let sep = if out.is_empty() { "" } else { "," };
            let _ = write!(out, "{sep}\"{LANGUAGE_FIELD}\":\"{}\"", k.language);
        }
    }
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

impl KeptFile {
    /// Nothing read or written yet from `input` to `output`.
    fn new(input: &Path, output: &Path) -> KeptFile {
        KeptFile {
            input: input.display().to_string(),
            output: output.display().to_string(),
            records_read: 0,
            records_written: 0,
            records_removed: 0,
            damaged: 0,
        }
    }
}

/// What [`write_kept`] wrote.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct KeptSummary {
    /// The folder written.
    pub dir: String,
    /// One entry per input, in input order.
    pub files: Vec<KeptFile>,
    /// The detector that told the records' [`LANGUAGE_FIELD`], with its version
    /// (`neardup_text::language::DETECTOR`), when they gained it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language_detector: Option<String>,
}

/// The files of a run's inputs (JSONL or Parquet: checked), or why not (an input in memory, or
/// of another format). `what` names the job in the message.
pub(crate) fn file_inputs(
    inputs: &[neardup_pipeline::Input],
    what: &str,
) -> Result<Vec<PathBuf>, CleanError> {
    let paths: Vec<PathBuf> = inputs
        .iter()
        .map(|i| i.as_path().map(Path::to_path_buf))
        .collect::<Option<_>>()
        .ok_or_else(|| CleanError::Read {
            path: PathBuf::from("-"),
            source: std::io::Error::other(format!("{what} reads files; an input is not one")),
        })?;
    check_inputs(&paths)?;
    Ok(paths)
}

/// Runs the page pipeline over `inputs` (an empty input allowed), its error as a read error of
/// the first input.
pub(crate) fn run_pipeline<V, F>(
    inputs: &[neardup_pipeline::Input],
    pipeline: &neardup_pipeline::PipelineConfig,
    make: F,
    progress: &dyn neardup_pipeline::Progress,
) -> Result<neardup_pipeline::RunOutput<V::Output>, CleanError>
where
    V: neardup_pipeline::Visitor,
    F: Fn() -> V + Sync,
{
    let mut config = pipeline.clone();
    config.allow_empty = true;
    neardup_pipeline::run(inputs, &config, make, progress).map_err(|e| CleanError::Read {
        path: inputs
            .first()
            .and_then(|i| i.as_path())
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        source: std::io::Error::other(e.to_string()),
    })
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
pub(crate) fn output_paths(inputs: &[PathBuf], dir: &Path) -> Vec<PathBuf> {
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
    let sorted;
    let plan = if plan.is_sorted() {
        plan
    } else {
        let mut p = plan.clone();
        p.sort();
        sorted = p;
        &sorted
    };
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
        language_detector: options
            .language
            .then(|| neardup_text::language::DETECTOR.to_string()),
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

/// An output file written atomically in a compression (gzip, zstd or none).
pub(crate) struct CompressedOut {
    path: PathBuf,
    w: Encoder,
}

enum Encoder {
    Plain(AtomicFile),
    Gzip(ParallelGzip),
    Zstd(zstd::stream::write::Encoder<'static, AtomicFile>),
}

/// Gzip written as a series of members (a valid gzip file: readers concatenate members), each
/// block of [`GZIP_BLOCK`] bytes compressed on its own, the blocks of a batch in parallel: the
/// kept corpus of a .jsonl.gz input costs about what reading it costs, not one core's deflate.
/// Level 1: the output is a few percent larger than `gzip -6` would make it.
struct ParallelGzip {
    file: AtomicFile,
    blocks: Vec<Vec<u8>>,
    members: u64,
}

/// Bytes per gzip member.
const GZIP_BLOCK: usize = 1 << 20;

impl ParallelGzip {
    fn write_all(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        while !bytes.is_empty() {
            if self.blocks.last().is_none_or(|b| b.len() >= GZIP_BLOCK) {
                if self.blocks.len() >= 2 * rayon::current_num_threads().max(1) {
                    self.flush_blocks()?;
                }
                self.blocks.push(Vec::with_capacity(GZIP_BLOCK));
            }
            let block = self.blocks.last_mut().expect("just pushed");
            let n = (GZIP_BLOCK - block.len()).min(bytes.len());
            block.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
        }
        Ok(())
    }

    /// Compresses the buffered blocks in parallel and writes them in order.
    fn flush_blocks(&mut self) -> std::io::Result<()> {
        use rayon::prelude::*;
        let members: Vec<std::io::Result<Vec<u8>>> = self
            .blocks
            .par_iter()
            .filter(|b| !b.is_empty())
            .map(|b| {
                // libdeflate compresses a whole buffer at once, about twice zlib's speed at
                // level 1 (bench/results/write-kept-*.md).
                let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::fastest());
                let mut out = vec![0; c.gzip_compress_bound(b.len())];
                let n = c
                    .gzip_compress(b, &mut out)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                out.truncate(n);
                Ok(out)
            })
            .collect();
        for m in members {
            self.file.write_all(&m?)?;
            self.members += 1;
        }
        self.blocks.clear();
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<AtomicFile> {
        self.flush_blocks()?;
        if self.members == 0 {
            // Nothing kept: still a gzip file (one empty member).
            let e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            self.file.write_all(&e.finish()?)?;
        }
        Ok(self.file)
    }
}

impl CompressedOut {
    pub(crate) fn create(
        path: &Path,
        compression: Compression,
    ) -> Result<CompressedOut, CleanError> {
        let file = AtomicFile::create(path)?;
        let w = match compression {
            Compression::None => Encoder::Plain(file),
            Compression::Gzip => Encoder::Gzip(ParallelGzip {
                file,
                blocks: Vec::new(),
                members: 0,
            }),
            Compression::Zstd => Encoder::Zstd({
                // Level 1 on every core (zstd's own worker threads).
                let mut z =
                    zstd::stream::write::Encoder::new(file, 1).map_err(|e| write_error(path, e))?;
                z.multithread(rayon::current_num_threads().max(1) as u32)
                    .map_err(|e| write_error(path, e))?;
                z
            }),
        };
        Ok(CompressedOut {
            path: path.to_path_buf(),
            w,
        })
    }

    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<(), CleanError> {
        let r = match &mut self.w {
            Encoder::Plain(f) => f.write_all(bytes),
            Encoder::Gzip(g) => g.write_all(bytes),
            Encoder::Zstd(z) => z.write_all(bytes),
        };
        r.map_err(|e| write_error(&self.path, e))
    }

    /// Ends the compressed stream and puts the file in place.
    pub(crate) fn commit(self) -> Result<(), CleanError> {
        let file = match self.w {
            Encoder::Plain(f) => Ok(f),
            Encoder::Gzip(g) => g.finish(),
            Encoder::Zstd(z) => z.finish(),
        }
        .map_err(|e| write_error(&self.path, e))?;
        file.commit()?;
        Ok(())
    }
}

fn write_error(path: &Path, source: std::io::Error) -> CleanError {
    CleanError::Write(ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
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
    let mut records = JsonlRecords::open(input, usize::MAX).map_err(read_err)?;
    let mut w = CompressedOut::create(out, records.compression())?;
    let mut f = KeptFile::new(input, out);
    let mut line = Vec::new();
    let mut with_fields = Vec::new();
    let mut members = Vec::new();
    let fields = options.fields();
    let mut checked = fields.is_empty();
    while let Some(ordinal) = records.next_record(&mut line).map_err(read_err)? {
        f.records_read += 1;
        let Some(kept) = cursor.kept(ordinal) else {
            f.records_removed += 1;
            continue;
        };
        f.records_written += 1;
        if fields.is_empty() {
            w.write_all(&line)?;
            continue;
        }
        if !checked {
            checked = true;
            for &name in &fields {
                if memchr_str(&line, name) {
                    return Err(CleanError::FieldExists {
                        path: input.to_path_buf(),
                        name,
                    });
                }
            }
        }
        options.members(kept, &mut members);
        with_fields.clear();
        write_with_members(&mut with_fields, &line, &members).map_err(|e| write_error(out, e))?;
        w.write_all(&with_fields)?;
    }
    f.damaged = records.damaged;
    w.commit()?;
    Ok(f)
}

fn memchr_str(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// A JSON object's line with `members` (`"name":value,...`) added before its closing brace;
/// any other line as it is.
fn write_with_members(w: &mut dyn Write, line: &[u8], members: &[u8]) -> std::io::Result<()> {
    let body_end = line.len() - (line.len() - line.trim_ascii_end().len());
    let body = &line[..body_end];
    let (Some(b'{'), Some(b'}')) = (body.trim_ascii_start().first(), body.last()) else {
        return w.write_all(line);
    };
    let inner = &body[..body.len() - 1];
    let empty = inner.trim_ascii() == b"{";
    w.write_all(inner)?;
    if !empty {
        w.write_all(b",")?;
    }
    w.write_all(members)?;
    w.write_all(b"}")?;
    w.write_all(&line[body_end..])?;
    if body_end == line.len() {
        // The last line had no terminator: the record still ends here.
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// A Parquet file read row group by row group and, with an output, written again batch by
/// batch with its schema (plus any extra fields), key-value metadata and compression. A row
/// group that does not decode is counted and passed over (the run skipped its rows too).
pub(crate) struct ParquetCopy {
    input: PathBuf,
    out: Option<(PathBuf, ArrowWriter<AtomicFile>)>,
    schema: Arc<Schema>,
    meta: Arc<parquet::file::metadata::ParquetMetaData>,
    pub(crate) damaged: u64,
}

impl ParquetCopy {
    /// Opens `input`; with `out`, its copy, whose schema gains `extra` fields.
    pub(crate) fn open(
        input: &Path,
        out: Option<&Path>,
        extra: Option<&[Arc<Field>]>,
    ) -> Result<ParquetCopy, CleanError> {
        let builder = ParquetRecordBatchReaderBuilder::try_new(open_file(input)?)
            .map_err(parquet_error(input))?;
        let schema = builder.schema().clone();
        let meta = builder.metadata().clone();
        let out = match out {
            None => None,
            Some(out) => {
                let mut out_schema = schema.clone();
                if let Some(extra) = extra {
                    let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
                    fields.extend(extra.iter().cloned());
                    out_schema =
                        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
                }
                let mut props = WriterProperties::builder();
                if meta.num_row_groups() > 0 && meta.row_group(0).num_columns() > 0 {
                    props = props.set_compression(meta.row_group(0).column(0).compression());
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
                let file = AtomicFile::create(out)?;
                let writer = ArrowWriter::try_new(file, out_schema, Some(props.build()))
                    .map_err(parquet_error(out))?;
                Some((out.to_path_buf(), writer))
            }
        };
        Ok(ParquetCopy {
            input: input.to_path_buf(),
            out,
            schema,
            meta,
            damaged: 0,
        })
    }

    /// The input's Arrow schema.
    pub(crate) fn schema(&self) -> Arc<Schema> {
        self.schema.clone()
    }

    /// Every batch in row order through `each`, whose answer (if any) is written out; a row
    /// group that does not decode is passed over, its rows counted as a gap in the order.
    pub(crate) fn each_batch(
        &mut self,
        mut each: impl FnMut(RecordBatch, u64) -> Result<Option<RecordBatch>, CleanError>,
    ) -> Result<(), CleanError> {
        let mut base: u64 = 0;
        for g in 0..self.meta.num_row_groups() {
            let rows = self.meta.row_group(g).num_rows().max(0) as u64;
            let reader = ParquetRecordBatchReaderBuilder::try_new(open_file(&self.input)?)
                .and_then(|b| b.with_row_groups(vec![g]).build());
            let batches: Result<Vec<RecordBatch>, _> = match reader {
                Ok(r) => r.collect(),
                Err(e) => Err(arrow_schema::ArrowError::ExternalError(Box::new(e))),
            };
            let Ok(batches) = batches else {
                self.damaged += 1;
                base += rows;
                continue;
            };
            let mut at = base;
            for batch in batches {
                let n = batch.num_rows() as u64;
                let written = each(batch, at)?;
                at += n;
                if let (Some(b), Some((path, w))) = (written, self.out.as_mut()) {
                    w.write(&b).map_err(parquet_error(path))?;
                }
            }
            base += rows;
        }
        Ok(())
    }

    /// Ends the copy and puts it in place.
    pub(crate) fn commit(self) -> Result<(), CleanError> {
        if let Some((path, w)) = self.out {
            let file = w.into_inner().map_err(parquet_error(&path))?;
            file.commit()?;
        }
        Ok(())
    }
}

fn open_file(path: &Path) -> Result<std::fs::File, CleanError> {
    std::fs::File::open(path).map_err(|source| CleanError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn parquet_error(path: &Path) -> impl Fn(parquet::errors::ParquetError) -> CleanError {
    let path = path.to_path_buf();
    move |source| CleanError::Parquet {
        path: path.clone(),
        source,
    }
}

fn arrow_error(path: &Path) -> impl Fn(arrow_schema::ArrowError) -> CleanError {
    let path = path.to_path_buf();
    move |e| CleanError::Parquet {
        path: path.clone(),
        source: e.into(),
    }
}

fn write_parquet(
    input: &Path,
    out: &Path,
    mut cursor: Cursor,
    options: &KeptOptions,
) -> Result<KeptFile, CleanError> {
    let names = options.fields();
    let extra: Vec<Arc<Field>> = names
        .iter()
        .map(|&n| {
            let t = if n == LANGUAGE_FIELD {
                DataType::Utf8
            } else {
                DataType::UInt64
            };
            Arc::new(Field::new(n, t, false))
        })
        .collect();
    let mut copy = ParquetCopy::open(input, Some(out), (!extra.is_empty()).then_some(&extra[..]))?;
    if !extra.is_empty() {
        for &name in &names {
            if copy.schema().field_with_name(name).is_ok() {
                return Err(CleanError::FieldExists {
                    path: input.to_path_buf(),
                    name,
                });
            }
        }
    }
    let mut f = KeptFile::new(input, out);
    copy.each_batch(|batch, at| {
        let n = batch.num_rows();
        let mut keep = Vec::with_capacity(n);
        let mut kept_rows = Vec::new();
        for o in at..at + n as u64 {
            let k = cursor.kept(o.min(u32::MAX as u64) as u32);
            keep.push(k.is_some());
            kept_rows.extend(k);
        }
        let sizes: Vec<u64> = kept_rows.iter().map(|k| u64::from(k.size)).collect();
        f.records_read += n as u64;
        f.records_written += sizes.len() as u64;
        f.records_removed += (n - sizes.len()) as u64;
        let kept = arrow_select::filter::filter_record_batch(&batch, &BooleanArray::from(keep))
            .map_err(arrow_error(input))?;
        if extra.is_empty() {
            return Ok(Some(kept));
        }
        let mut columns: Vec<ArrayRef> = kept.columns().to_vec();
        if options.counts {
            columns.push(Arc::new(UInt64Array::from(sizes.clone())));
            columns.push(Arc::new(UInt64Array::from_iter_values(
                sizes.iter().map(|s| s - 1),
            )));
        }
        if options.language {
            columns.push(Arc::new(arrow_array::StringArray::from_iter_values(
                kept_rows.iter().map(|k| k.language.to_string()),
            )));
        }
        let mut fields: Vec<Arc<Field>> = kept.schema().fields().iter().cloned().collect();
        fields.extend(extra.iter().cloned());
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            kept.schema().metadata().clone(),
        ));
        RecordBatch::try_new(schema, columns)
            .map(Some)
            .map_err(arrow_error(out))
    })?;
    f.damaged = copy.damaged;
    copy.commit()?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_fields(options: &KeptOptions, line: &[u8], size: u32, language: &str) -> String {
        let mut members = Vec::new();
        let k = Kept {
            size,
            language: Language::from_code(language).unwrap(),
        };
        options.members(k, &mut members);
        let mut out = Vec::new();
        write_with_members(&mut out, line, &members).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn fields_go_inside_the_object_and_keep_its_terminator() {
        let counts = KeptOptions {
            counts: true,
            language: false,
        };
        assert_eq!(
            with_fields(&counts, b"{\"a\":1}\r\n", 3, "eng"),
            "{\"a\":1,\"neardup_cluster_size\":3,\"neardup_removed_copies\":2}\r\n"
        );
        assert_eq!(
            with_fields(&counts, b"{ }", 1, "eng"),
            "{ \"neardup_cluster_size\":1,\"neardup_removed_copies\":0}\n"
        );
        let both = KeptOptions {
            counts: true,
            language: true,
        };
        assert_eq!(
            with_fields(&both, b"{\"a\":1}\n", 1, "fra"),
            "{\"a\":1,\"neardup_cluster_size\":1,\"neardup_removed_copies\":0,\"neardup_language\":\"fra\"}\n"
        );
        let language = KeptOptions {
            counts: false,
            language: true,
        };
        assert_eq!(
            with_fields(&language, b"{}", 1, "und"),
            "{\"neardup_language\":\"und\"}\n"
        );
        // Not an object: as it is.
        assert_eq!(with_fields(&both, b"[1]\n", 2, "eng"), "[1]\n");
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
        let kor = Language::from_code("kor").unwrap();
        plan.language(0, 4, kor);
        plan.language(0, 1, kor);
        plan.sort();
        assert_eq!(plan.language_of(0, 4), kor);
        assert_eq!(plan.language_of(0, 2), Language::UNKNOWN);
        assert_eq!(plan.language_of(3, 0), Language::UNKNOWN);
        let mut c = Cursor::new(plan.sources.first());
        let got: Vec<Option<(u32, Language)>> = (0..7)
            .map(|o| c.kept(o).map(|k| (k.size, k.language)))
            .collect();
        let und = Language::UNKNOWN;
        assert_eq!(
            got,
            [
                Some((4, und)),
                None,
                Some((1, und)),
                None,
                Some((1, kor)),
                None,
                Some((1, und))
            ]
        );
    }
}

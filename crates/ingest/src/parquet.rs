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
use checked::{Checked, Fueled, OneGroup};

/// Reads pages from a Parquet file, one row group after another: on the reading thread alone,
/// or with [`crate::ReadOptions::file_threads`] above 1 on a quarter as many threads (at least
/// one, [`GROUP_THREADS_PER`]), each reading a whole row group ahead (in order of the file,
/// within [`GROUP_BYTES_AHEAD`]), so that one large file is decoded on every core. Either way
/// each row group is read the one way ([`Groups::reads`]), so the pages and the problems are
/// the same.
pub struct ParquetReader {
    groups: Option<Arc<Groups>>,
    /// The row group being handed out, and what is left of it.
    current: Option<GroupReads>,
    /// The next row group to hand out.
    next_group: usize,
    ahead: Option<Ahead>,
    row: u64,
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

/// A Parquet file's row groups, each read on its own: its own open file with its own budget
/// of reads ([`Fueled`]), so that a damaged row group costs that group only and any thread can
/// read any group.
struct Groups {
    path: std::path::PathBuf,
    meta: Arc<parquet::file::metadata::ParquetMetaData>,
    /// The configured plain columns.
    projection: Type,
    /// The first row of each row group, and the number of rows of the file at the end.
    starts: Vec<u64>,
    fields: crate::FieldMap,
}

impl Groups {
    /// Opens `path`, reading only the columns `fields` names (and only plain ones).
    fn open(path: &Path, fields: &crate::FieldMap) -> Result<Groups, OpenError> {
        let file = File::open(path).and_then(Fueled::new)?;
        let bytes_total = file.len;
        let r = SerializedFileReader::new(file)?;
        let total = r.metadata().file_metadata().num_rows().max(0) as u64;
        // Run-length encoding lets a tiny file claim billions of empty rows (found by
        // fuzzing): more than a thousand rows per byte of file is refused.
        if total > bytes_total.saturating_mul(1000) {
            return Err(OpenError::TooManyRows {
                what: "the file claims",
                rows: total,
                bytes: bytes_total,
            });
        }
        let mut starts = vec![0u64];
        for g in r.metadata().row_groups() {
            let last = *starts.last().unwrap_or(&0);
            starts.push(last.saturating_add(g.num_rows().max(0) as u64));
        }
        let groups = *starts.last().unwrap_or(&0);
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
            .filter(|t| fields.reads(t.name()))
            // Only plain columns: a repeated (list) column can hold any number of values in
            // one row, which a malformed file uses to never end one (fuzzing).
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
        Ok(Groups {
            path: path.to_path_buf(),
            meta: Arc::new(r.metadata().clone()),
            projection,
            starts,
            fields: fields.clone(),
        })
    }

    /// Row groups of the file.
    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Row group `g`'s rows (opened now: the file, a reader of that group alone).
    fn rows(&self, g: usize) -> Result<RowIter<'static>, OpenError> {
        let file = File::open(&self.path).and_then(Fueled::new)?;
        let meta = parquet::file::metadata::ParquetMetaData::new(
            self.meta.file_metadata().clone(),
            vec![self.meta.row_group(g).clone()],
        );
        let reader = Checked(OneGroup::new(file, meta));
        Ok(RowIter::from_file_into(Box::new(reader)).project(Some(self.projection.clone()))?)
    }

    /// Row group `g` read row by row: the one way a group becomes pages' fields, on the
    /// reading thread or ahead of it.
    fn reads(self: &Arc<Self>, g: usize) -> GroupReads {
        let left = self.starts[g + 1] - self.starts[g];
        GroupReads {
            groups: Arc::clone(self),
            group: g,
            // A group of no rows is not opened.
            rows: (left > 0).then(|| self.rows(g)),
            left,
            ahead: std::collections::VecDeque::new(),
        }
    }

    /// The uncompressed bytes row group `g`'s configured columns claim (0 when the file says
    /// nothing sensible).
    fn claimed_bytes(&self, g: usize) -> u64 {
        let group = self.meta.row_group(g);
        group
            .columns()
            .iter()
            .filter(|c| self.fields.reads(c.column_descr().name()))
            .map(|c| c.uncompressed_size().max(0) as u64)
            .sum()
    }
}

/// One row read: its configured fields, or why the rest of its row group cannot be read.
enum RowRead {
    Row(Fields),
    Failed(String),
}

/// A row group's rows, read as they are asked for, or read ahead on another thread.
struct GroupReads {
    groups: Arc<Groups>,
    group: usize,
    /// The group's rows still to read (`None` once they end or fail); `Err` when the group
    /// did not open.
    rows: Option<Result<RowIter<'static>, OpenError>>,
    /// Rows the group's metadata claims that are still to come: no more are read (the row
    /// numbers of the next group follow them).
    left: u64,
    /// Rows read ahead, handed out first.
    ahead: std::collections::VecDeque<RowRead>,
}

impl GroupReads {
    /// The next row, or `None` at the end of the group; after a `Failed` there is none.
    fn next(&mut self) -> Option<RowRead> {
        if let Some(read) = self.ahead.pop_front() {
            return Some(read);
        }
        if self.left == 0 {
            self.rows = None;
        }
        let read = match self.rows.as_mut()? {
            Err(_) => {
                let error = self.rows.take().and_then(Result::err)?;
                return Some(RowRead::Failed(error.to_string()));
            }
            Ok(rows) => match rows.next()? {
                Ok(row) => {
                    self.left -= 1;
                    return Some(RowRead::Row(Fields::of(&self.groups.fields, row)));
                }
                Err(e) => RowRead::Failed(e.to_string()),
            },
        };
        self.rows = None;
        Some(read)
    }

    /// Reads the whole group into [`GroupReads::ahead`] (on a thread that reads ahead).
    fn read_all(mut self) -> GroupReads {
        let mut ahead = std::collections::VecDeque::new();
        while let Some(read) = self.next() {
            ahead.push_back(read);
        }
        self.ahead = ahead;
        self
    }
}

/// Uncompressed bytes of row groups (as their metadata claims them) read ahead at most, beyond
/// one group: what reading a file on many threads may hold besides what a run holds anyway.
const GROUP_BYTES_AHEAD: u64 = 256 << 20;

/// File threads a row group thread is started for: decoding rows is a fifth to a tenth of a
/// run's work, so one thread reading groups ahead feeds about four others (each group ahead is
/// held whole: more threads would hold more memory, not read faster).
const GROUP_THREADS_PER: usize = 4;

/// Threads reading row groups ahead, and the groups asked of them, in file order.
struct Ahead {
    jobs: Option<crossbeam_channel::Sender<(GroupReads, crossbeam_channel::Sender<GroupReads>)>>,
    /// Each group asked for: its number, claimed bytes and where it comes back.
    pending: std::collections::VecDeque<(usize, u64, crossbeam_channel::Receiver<GroupReads>)>,
    /// The next group to ask for.
    next: usize,
    /// Claimed bytes of the groups asked for and not yet handed out.
    claimed: u64,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Ahead {
    fn start(threads: usize) -> std::io::Result<Ahead> {
        let (tx, rx) =
            crossbeam_channel::unbounded::<(GroupReads, crossbeam_channel::Sender<GroupReads>)>();
        let mut ahead = Ahead {
            jobs: Some(tx),
            pending: Default::default(),
            next: 0,
            claimed: 0,
            threads: Vec::new(),
        };
        for i in 0..threads {
            let rx = rx.clone();
            let t = std::thread::Builder::new()
                .name(format!("neardup-parquet-{i}"))
                .spawn(move || {
                    for (reads, reply) in rx {
                        // The reader may have stopped waiting (an error in strict mode).
                        let _ = reply.send(reads.read_all());
                    }
                })?;
            ahead.threads.push(t);
        }
        Ok(ahead)
    }

    /// Asks for groups in file order while fewer than its threads are out and
    /// their claimed bytes stay within [`GROUP_BYTES_AHEAD`] (one is always asked for).
    fn ask(&mut self, groups: &Arc<Groups>) {
        while self.next < groups.len()
            && self.pending.len() < self.threads.len()
            && (self.pending.is_empty() || self.claimed < GROUP_BYTES_AHEAD)
        {
            let Some(jobs) = &self.jobs else { return };
            let g = self.next;
            let claimed = groups.claimed_bytes(g);
            let (reply, back) = crossbeam_channel::bounded(1);
            if jobs.send((groups.reads(g), reply)).is_err() {
                return;
            }
            self.pending.push_back((g, claimed, back));
            self.claimed = self.claimed.saturating_add(claimed);
            self.next += 1;
        }
    }

    /// Group `g`, read ahead (asked for first when it was not).
    fn take(&mut self, groups: &Arc<Groups>, g: usize) -> GroupReads {
        self.ask(groups);
        let Some((got, claimed, back)) = self.pending.pop_front() else {
            return groups.reads(g);
        };
        self.claimed -= claimed;
        // The next group starts while this one is handed out.
        self.ask(groups);
        match back.recv() {
            Ok(reads) if got == g => reads,
            // A thread that died reading leaves the group to the reading thread.
            _ => groups.reads(g),
        }
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.jobs = None;
        self.pending.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl ParquetReader {
    pub(crate) fn new(path: &Path, mut ctx: Ctx) -> ParquetReader {
        let bytes_total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let groups = match Groups::open(path, &ctx.opts.fields) {
            Ok(groups) => Some(Arc::new(groups)),
            Err(e) => {
                // Reported on the first read (the constructor cannot fail in strict mode).
                ctx.stats.record_type("(unreadable-file)");
                let _ = ctx.problem(
                    0,
                    ProblemKind::BadParquet,
                    format!("cannot open Parquet file: {e}"),
                );
                None
            }
        };
        let threads = ctx.opts.file_threads;
        let ahead = groups
            .as_ref()
            .filter(|g| threads > 1 && g.len() > 1)
            .and_then(|_| Ahead::start((threads / GROUP_THREADS_PER).max(1)).ok());
        ParquetReader {
            groups,
            current: None,
            next_group: 0,
            ahead,
            row: 0,
            bytes_total,
            ctx,
        }
    }

    /// The next row of the file (moving on to the next row group at the end of one), with its
    /// row number and row group; `None` at the end of the file.
    fn next_read(&mut self) -> Option<(u64, usize, RowRead)> {
        let groups = self.groups.clone()?;
        loop {
            if let Some(current) = self.current.as_mut() {
                if let Some(read) = current.next() {
                    let n = self.row;
                    self.row += 1;
                    return Some((n, current.group, read));
                }
            }
            let g = self.next_group;
            if g >= groups.len() {
                self.current = None;
                return None;
            }
            self.next_group += 1;
            self.row = groups.starts[g];
            self.current = Some(match self.ahead.as_mut() {
                Some(ahead) => ahead.take(&groups, g),
                None => groups.reads(g),
            });
        }
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

impl Fields {
    /// A row's configured columns as text: its page's HTML or text a string (or bytes), as in
    /// JSONL (a number is none: a column of numbers named `text` gives no page); URLs and ids
    /// may be integers. Strings are moved out of the row, not copied.
    fn of(f: &crate::FieldMap, row: Row) -> Fields {
        let mut fields = Fields::default();
        for (name, value) in row.into_columns() {
            let content = name == f.html || name == f.text;
            let s: Option<String> = match value {
                Field::Str(s) => Some(s),
                Field::Bytes(b) => Some(String::from_utf8_lossy(b.data()).into_owned()),
                _ if content => None,
                Field::Int(i) => Some(i.to_string()),
                Field::Long(i) => Some(i.to_string()),
                Field::UInt(i) => Some(i.to_string()),
                Field::ULong(i) => Some(i.to_string()),
                _ => None,
            };
            if let Some(s) = s {
                fields.set(f, &name, s);
            }
        }
        fields
    }
}

impl PageSource for ParquetReader {
    fn next_page(&mut self, page: &mut Page) -> Result<bool, IngestError> {
        if self.groups.is_none() && self.ctx.opts.strict {
            if let Some(p) = self.ctx.stats.problems.first() {
                return Err(IngestError::Malformed(p.clone()));
            }
        }
        loop {
            let Some((n, group, read)) = self.next_read() else {
                return Ok(false);
            };
            page.clear();
            self.ctx.stats.record_type("row");
            let fields = match read {
                RowRead::Row(fields) => fields,
                RowRead::Failed(error) => {
                    let next = self.groups.as_ref().map_or(n, |g| g.starts[group + 1]);
                    self.ctx.problem(
                        n,
                        ProblemKind::BadParquet,
                        format!(
                            "row {n}: {error}; the rest of row group {group} ({} rows) is skipped",
                            next.saturating_sub(n)
                        ),
                    )?;
                    continue;
                }
            };
            page.id = crate::PageId {
                source: self.ctx.source,
                ordinal: n as u32,
            };
            page.offset = n;
            page.raw_offset = Some(n);
            if !fields.fill(page) {
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
        let rows = self
            .groups
            .as_ref()
            .map_or(0, |g| *g.starts.last().unwrap_or(&0));
        if rows == 0 {
            return self.bytes_total;
        }
        self.bytes_total * self.row.min(rows) / rows
    }
}

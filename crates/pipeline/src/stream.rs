//! The page pipeline: reader threads decode inputs into batches of pages, worker threads
//! tokenize them and hand each page to a [`Visitor`] (one thread does both when one is asked
//! for). Batches are recycled, so in steady state
//! no page buffer is allocated; memory is bounded by the number of batches in flight
//! (`2 * threads + readers`) times the batch size, whatever the size of the inputs.

use crate::decode::{cut, cut_note, Decoder};
use crate::{Error, Progress};
use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TrySendError};
use neardup_ingest::{open_source, BodyKind, Format, Page, ReadOptions, SourceStats, STDIN_NAME};
use neardup_ingest::{MemorySource, PageRows, PageSource};
use neardup_text::{Document, Tokenizer, TokenizerConfig};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One input of a run: a crawl file or folder, or pages already in memory.
#[derive(Clone)]
pub enum Input {
    /// A file or folder.
    Path {
        /// File or folder.
        path: PathBuf,
        /// Forced format; detected when `None`.
        format: Option<Format>,
    },
    /// Pages in memory (a Python caller's rows, an HTTP request, a Spark partition), read in
    /// order; `name` stands for a file name in reports.
    Pages {
        /// Shown where a file name would be.
        name: String,
        /// The pages, in the caller's form (`Vec<Page>`, an Arrow table), filled one at a time
        /// into the pipeline's recycled pages.
        pages: Arc<dyn PageRows>,
    },
    /// A source the caller opened (an Arrow stream from Python): read once, in order, as it
    /// comes, so nothing but the pages in flight is held. A second read of it is an error.
    Stream {
        /// Shown where a file name would be.
        name: String,
        /// The source, taken by the run that reads it.
        source: Arc<Mutex<Option<Box<dyn PageSource>>>>,
        /// Bytes it is expected to hold, for progress (0: not known).
        bytes: u64,
    },
    /// Standard input (named `-`): WARC, ARC or JSONL, plain or compressed, read once as it
    /// comes ([`neardup_ingest::open_reader`]); its format told by its first bytes unless
    /// forced.
    Stdin {
        /// Forced format; detected when `None`.
        format: Option<Format>,
    },
}

/// Whether this process has begun reading standard input (it can be read once).
static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);

/// The error of an input that can be read once, asked for again.
fn read_once(name: &str, what: &str) -> Error {
    crate::SettingsError::new("input", name, what).into()
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Path { path, format } => {
                write!(f, "Input::Path({}, {format:?})", path.display())
            }
            Input::Pages { name, pages } => {
                write!(f, "Input::Pages({name}, {} pages)", pages.len())
            }
            Input::Stream { name, .. } => write!(f, "Input::Stream({name})"),
            Input::Stdin { format } => write!(f, "Input::Stdin({format:?})"),
        }
    }
}

impl Input {
    /// A crawl file or folder, its format detected.
    pub fn file(path: impl Into<PathBuf>) -> Input {
        Input::Path {
            path: path.into(),
            format: None,
        }
    }

    /// A crawl file or folder read as `format`.
    pub fn file_as(path: impl Into<PathBuf>, format: Option<Format>) -> Input {
        Input::Path {
            path: path.into(),
            format,
        }
    }

    /// Pages in memory.
    pub fn pages(name: impl Into<String>, pages: Vec<Page>) -> Input {
        Input::Pages {
            name: name.into(),
            pages: Arc::new(pages),
        }
    }

    /// A source read once, as it comes (see [`Input::Stream`]). Its pages keep the ids it
    /// gives them: give it its position among the run's inputs as their source number.
    pub fn stream(name: impl Into<String>, source: Box<dyn PageSource>, bytes: u64) -> Input {
        Input::Stream {
            name: name.into(),
            source: Arc::new(Mutex::new(Some(source))),
            bytes,
        }
    }

    /// Pages in memory in the caller's own form, copied into the pipeline one at a time.
    pub fn rows(name: impl Into<String>, rows: Arc<dyn PageRows>) -> Input {
        Input::Pages {
            name: name.into(),
            pages: rows,
        }
    }

    /// The path, for a file or folder.
    pub fn as_path(&self) -> Option<&Path> {
        match self {
            Input::Path { path, .. } => Some(path),
            Input::Pages { .. } | Input::Stream { .. } | Input::Stdin { .. } => None,
        }
    }

    /// The name reports use: the path, or the in-memory input's name.
    pub fn name(&self) -> String {
        match self {
            Input::Path { path, .. } => path.display().to_string(),
            Input::Pages { name, .. } | Input::Stream { name, .. } => name.clone(),
            Input::Stdin { .. } => STDIN_NAME.to_string(),
        }
    }

    /// The forced format of a file input.
    pub fn format(&self) -> Option<Format> {
        match self {
            Input::Path { format, .. } | Input::Stdin { format } => *format,
            Input::Pages { .. } | Input::Stream { .. } => None,
        }
    }

    /// Bytes to read: a file's size (0 for folders and in-memory pages' metadata), for
    /// progress.
    pub fn size(&self) -> u64 {
        match self {
            Input::Path { path, .. } => neardup_ingest::files::len(path).unwrap_or(0),
            Input::Pages { pages, .. } => pages.bytes(),
            Input::Stream { bytes, .. } => *bytes,
            Input::Stdin { .. } => 0,
        }
    }
}

/// Settings of a pipeline run, built once.
#[derive(Clone, Debug)]
pub struct PipelineConfig {
    /// Worker threads (tokenization and visiting). Readers are extra threads, at most this many;
    /// with one, that thread reads each batch and then visits it (a `-j1` run is one core).
    pub threads: usize,
    /// How inputs are read.
    pub read: ReadOptions,
    /// How pages are tokenized.
    pub tokenizer: TokenizerConfig,
    /// Pages per batch at most.
    pub batch_pages: usize,
    /// Body bytes per batch at most (a batch always holds at least one page).
    pub batch_bytes: usize,
    /// Skipped records kept as examples in a job's summary.
    pub skipped_examples: usize,
    /// A page body longer than this is cut to it before tokenizing (and the cut counted in the
    /// input's notes), so that one huge page cannot take memory without bound: 16 MiB.
    pub max_page_bytes: usize,
    /// A run over inputs that yields no page at all is an error ([`Error::NothingRead`], with
    /// the top reasons records were skipped) unless this is set.
    pub allow_empty: bool,
    /// Records suffice: a run that read records but no page is no error (an audit, whose
    /// report counts revisits, repeated payloads and records by type, of a file of revisits).
    pub records_suffice: bool,
    /// Sketch every response, whatever its HTTP status. By default only 200 responses that
    /// are not redirects by meta refresh or soft 404s are pages (and records without a status);
    /// the others are counted by status ([`crate::pages::NotPage`]) and never clustered.
    pub every_status: bool,
    /// Compute the payload SHA-1 of every page whose record gives no `WARC-Payload-Digest`
    /// (index operations set it: exact-duplicate lookups answer by it).
    pub payload_digests: bool,
    /// Keep every sketched page's capture print (`neardup_evolve::change::CapturePrint`),
    /// for signature files that `neardup changes` reads (`neardup sketch --prints`).
    pub prints: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            read: ReadOptions::default(),
            tokenizer: TokenizerConfig::default(),
            batch_pages: 64,
            batch_bytes: 4 << 20,
            skipped_examples: 5,
            max_page_bytes: 16 << 20,
            allow_empty: false,
            records_suffice: false,
            every_status: false,
            payload_digests: false,
            prints: false,
        }
    }
}

/// Tokenizes `page` into `doc` as every run does: HTML by its markup, text as it is (invalid
/// UTF-8 repaired); false for other content (nothing tokenized).
pub fn analyze(tokenizer: &Tokenizer, page: &Page, doc: &mut Document) -> bool {
    match page.kind {
        BodyKind::Html => {
            let ct = (!page.content_type.is_empty()).then_some(page.content_type.as_bytes());
            tokenizer.html(&page.body, ct, &page.url, doc);
            true
        }
        BodyKind::Text => {
            // Valid UTF-8 as a rule (JSON strings): checked fast, repaired only when it is not.
            match simdutf8::basic::from_utf8(&page.body) {
                Ok(text) => tokenizer.text(text, doc),
                Err(_) => tokenizer.text(&String::from_utf8_lossy(&page.body), doc),
            }
            true
        }
        BodyKind::Other => false,
    }
}

/// Hands one page to a visitor: a text page whose body is valid UTF-8 is first offered
/// untokenized ([`Visitor::plain_text`]) and, when the visitor declines, tokenized from the text
/// already checked; any other page as [`analyze`] tokenizes it.
fn feed<V: Visitor>(tokenizer: &Tokenizer, page: &Page, doc: &mut Document, visitor: &mut V) {
    if !visitor.wants(page) {
        return;
    }
    if page.kind == BodyKind::Text {
        if let Ok(text) = simdutf8::basic::from_utf8(&page.body) {
            if !visitor.plain_text(page, text) {
                tokenizer.text(text, doc);
                visitor.visit(page, Some(doc));
            }
            return;
        }
    }
    let analyzed = analyze(tokenizer, page, doc);
    visitor.visit(page, analyzed.then_some(doc));
}

/// Receives every page of a run, on one worker thread. Each worker has its own visitor; their
/// outputs are returned together and merged by the caller.
pub trait Visitor: Send {
    /// What the visitor produces.
    type Output: Send;
    /// Asked first of every page: false passes it by untokenized and unvisited (the default
    /// wants every page).
    fn wants(&mut self, _page: &Page) -> bool {
        true
    }
    /// One page and, for HTML and text pages, its tokenized form.
    fn visit(&mut self, page: &Page, doc: Option<&Document>);
    /// A text page whose body is valid UTF-8, offered before it is tokenized: true when the
    /// visitor took it as it is (it is then not visited), false (the default) to have it
    /// tokenized and visited.
    fn plain_text(&mut self, _page: &Page, _text: &str) -> bool {
        false
    }
    /// After the pages of one batch (consecutive records of one input).
    fn end_batch(&mut self) {}
    /// Ends the run.
    fn finish(self) -> Self::Output;
}

/// What one input yielded besides pages.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SourceReport {
    /// The input path.
    pub path: String,
    /// Its format.
    pub format: Option<Format>,
    /// Raw bytes read.
    pub raw_bytes: u64,
    /// Records, pages, problems.
    pub stats: SourceStats,
}

/// The records a run skipped: how many, by reason, and the first few, each with file, byte
/// offset and what was wrong (every command reports them the way `scan` does).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// Records skipped over all inputs.
    pub records: u64,
    /// By reason, most frequent first.
    pub by_reason: Vec<(String, u64)>,
    /// The first skipped records (at most the number asked for).
    pub examples: Vec<neardup_ingest::Problem>,
}

impl Skipped {
    /// The skipped records of these sources, keeping `examples` examples.
    pub fn of(sources: &[SourceReport], examples: usize) -> Skipped {
        let mut by: std::collections::BTreeMap<&str, u64> = Default::default();
        for s in sources {
            for (k, n) in &s.stats.problems_by_kind {
                *by.entry(k.as_str()).or_default() += n;
            }
        }
        let mut by_reason: Vec<(String, u64)> =
            by.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
        by_reason.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Skipped {
            records: by_reason.iter().map(|r| r.1).sum(),
            by_reason,
            examples: sources
                .iter()
                .flat_map(|s| s.stats.problems.iter())
                .take(examples)
                .cloned()
                .collect(),
        }
    }
}

/// Everything a run returns.
#[derive(Debug)]
pub struct RunOutput<T> {
    /// One output per worker.
    pub outputs: Vec<T>,
    /// One report per input, in input order.
    pub sources: Vec<SourceReport>,
    /// Wall time.
    pub elapsed: Duration,
}

/// Page buffers larger than this are freed when their slot is reused (typical pages are
/// smaller; the larger ones are allocated afresh). Every slot of every batch in flight keeps
/// up to this much: at 256 KiB the slots of a 2-core run held about 96 MB.
const RETAINED_PAGE_BYTES: usize = 64 << 10;

struct Batch {
    pages: Vec<Page>,
    len: usize,
}

/// [`Error::NothingRead`] for a run over `sources` that read no page, unless the run allows
/// that (`allow_empty`, or `records_suffice` and records were read); `None` otherwise.
pub fn nothing_read_unless_allowed(
    config: &PipelineConfig,
    sources: &[SourceReport],
) -> Option<Error> {
    let read_enough = config.records_suffice && sources.iter().any(|s| s.stats.records > 0);
    let empty = !sources.is_empty() && sources.iter().all(|s| s.stats.pages == 0);
    (!config.allow_empty && !read_enough && empty).then(|| nothing_read(sources))
}

/// The error of a run that read no page: records seen and skipped, the top three reasons.
fn nothing_read(sources: &[SourceReport]) -> Error {
    let skipped = Skipped::of(sources, 1);
    let mut text: Vec<String> = skipped
        .by_reason
        .iter()
        .take(3)
        .map(|(k, n)| format!("{k} ({n})"))
        .collect();
    if let Some(p) = skipped.examples.first() {
        text.push(format!(
            "first: {} at byte {}: {}",
            p.file, p.offset, p.detail
        ));
    }
    Error::NothingRead {
        inputs: sources.len(),
        records: sources.iter().map(|s| s.stats.records).sum(),
        skipped: skipped.records,
        reasons: if text.is_empty() {
            String::new()
        } else {
            format!("; {}", text.join(", "))
        },
    }
}

/// Runs the pipeline over `inputs` (an input that is the same file as an earlier one is read
/// once, with a warning). `make_visitor` is called once per worker thread.
pub fn run<V, F>(
    inputs: &[Input],
    config: &PipelineConfig,
    make_visitor: F,
    progress: &dyn Progress,
) -> Result<RunOutput<V::Output>, Error>
where
    V: Visitor,
    F: Fn() -> V + Sync,
{
    let skip = crate::inputs::duplicate_inputs_warned(inputs, progress);
    run_skipping(inputs, &skip, config, make_visitor, progress)
}

/// [`run`] with the duplicates already found (`skip[i]`: the earlier input `i` repeats), for
/// jobs that read the same inputs in several passes.
pub fn run_skipping<V, F>(
    inputs: &[Input],
    skip: &[Option<usize>],
    config: &PipelineConfig,
    make_visitor: F,
    progress: &dyn Progress,
) -> Result<RunOutput<V::Output>, Error>
where
    V: Visitor,
    F: Fn() -> V + Sync,
{
    let start = Instant::now();
    progress.begin(
        inputs
            .iter()
            .zip(skip)
            .filter(|(_, d)| d.is_none())
            .map(|(i, _)| i.size())
            .sum(),
    );
    let workers = config.threads.max(1);
    let to_read = skip.iter().filter(|d| d.is_none()).count();
    let readers = workers.min(to_read).max(1);
    // Fewer files than threads: each reader inflates a large gzip file on its share of them.
    let mut read = config.read.clone();
    read.file_threads = if readers < workers {
        workers.div_ceil(readers)
    } else {
        1
    };
    // Readers only find records; the threads that visit pages decode them.
    read.defer_decoding = true;
    let (full_tx, full_rx) = bounded::<Batch>(2 * workers);
    let (empty_tx, empty_rx) = unbounded::<Batch>();
    let next_input = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let raw_done = AtomicU64::new(0);
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    let reports: Mutex<Vec<Option<SourceReport>>> = Mutex::new(vec![None; inputs.len()]);
    let tokenizer = Tokenizer::new(config.tokenizer.clone());

    let spawn_error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let ctx = ReaderCtx {
        inputs,
        config,
        read: &read,
        skip,
        next_input: &next_input,
        abort: &abort,
        raw_done: &raw_done,
        first_error: &first_error,
        reports: &reports,
        progress,
    };
    // A thread's work: with an input for every thread (`own`, its side of the queue), its own
    // inputs read and their batches visited by itself (a batch visited on another core than
    // the one that read it cost 5% more CPU on a million pages at -j2, its bytes fetched
    // again), a batch handed out only while a thread out of inputs has none queued, so the last
    // inputs are shared out; then, or from the start beside reader threads (fewer inputs than
    // threads), the batches handed out. (A reader that also visits whenever the queue is full
    // enough was 4% slower on one Parquet file.)
    let pulling = AtomicUsize::new(0);
    // Reader threads beside the workers.
    let beside = if readers < workers { readers } else { 0 };
    let work = |own: Option<Sender<Batch>>, full_rx: Receiver<Batch>, empty_tx: Sender<Batch>| {
        let mut visitor = make_visitor();
        let mut doc = Document::new();
        let mut decoder = Decoder::new(&config.read.fields, config.max_page_bytes);
        let mut visit = |batch: &mut Batch| {
            visit_batch(&mut decoder, &tokenizer, batch, &mut doc, &mut visitor)
        };
        if let Some(full_tx) = own {
            ctx.read_all(&mut |mut batch| {
                if full_tx.len() < pulling.load(Ordering::SeqCst) {
                    match full_tx.try_send(batch) {
                        Ok(()) => return Ok(empty_rx.try_recv().ok()),
                        Err(TrySendError::Full(b) | TrySendError::Disconnected(b)) => batch = b,
                    }
                }
                visit(&mut batch);
                Ok(Some(batch))
            });
        }
        pulling.fetch_add(1, Ordering::SeqCst);
        for mut batch in full_rx.iter() {
            visit(&mut batch);
            let _ = empty_tx.send(batch);
        }
        (visitor.finish(), decoder)
    };
    let outputs = if workers == 1 {
        // One thread: this one reads each batch and then visits it (`-j1` is one core).
        vec![work(Some(full_tx), full_rx, empty_tx)]
    } else {
        std::thread::scope(|s| {
            for r in 0..beside {
                let full_tx = full_tx.clone();
                let empty_rx = empty_rx.clone();
                let ctx = &ctx;
                let spawned = std::thread::Builder::new()
                    .name(format!("neardup-reader-{r}"))
                    .spawn_scoped(s, move || {
                        ctx.read_all(&mut |batch| {
                            full_tx.send(batch).map_err(drop)?;
                            Ok(empty_rx.try_recv().ok())
                        })
                    });
                if let Err(e) = spawned {
                    spawn_failed(&abort, &spawn_error, e);
                    break;
                }
            }
            let mut handles = Vec::with_capacity(workers);
            for w in 0..workers {
                let own = (beside == 0).then(|| full_tx.clone());
                let (full_rx, empty_tx) = (full_rx.clone(), empty_tx.clone());
                let work = &work;
                let spawned = std::thread::Builder::new()
                    .name(format!("neardup-worker-{w}"))
                    .spawn_scoped(s, move || work(own, full_rx, empty_tx));
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        spawn_failed(&abort, &spawn_error, e);
                        break;
                    }
                }
            }
            // Only the threads hold the queue's ends now: it ends when the last reading one
            // does, and with fewer threads than asked (a spawn failed) readers' sends fail
            // instead of waiting on a full queue.
            drop(full_tx);
            drop(full_rx);
            drop(empty_tx);
            handles
                .into_iter()
                .map(|h| h.join().expect("worker thread panicked"))
                .collect::<Vec<_>>()
        })
    };
    if let Some(source) = spawn_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        progress.end();
        return Err(Error::Threads {
            wanted: workers + beside,
            source,
        });
    }
    progress.end();
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut reports = reports.into_inner().unwrap_or_else(|p| p.into_inner());
    let (outputs, decoders): (Vec<_>, Vec<_>) = outputs.into_iter().unzip();
    for (source, found) in Decoder::merge(decoders) {
        if let Some(Some(r)) = reports.get_mut(source as usize) {
            found.count_into(&r.path, &mut r.stats, config.max_page_bytes);
        }
    }
    let sources: Vec<SourceReport> = reports
        .into_iter()
        .zip(inputs)
        .map(|(r, i)| {
            r.unwrap_or_else(|| SourceReport {
                path: i.name(),
                format: i.format(),
                raw_bytes: 0,
                stats: SourceStats::default(),
            })
        })
        .collect();
    if let Some(e) = nothing_read_unless_allowed(config, &sources) {
        return Err(e);
    }
    Ok(RunOutput {
        outputs,
        sources,
        elapsed: start.elapsed(),
    })
}

/// Stops a run whose thread could not be spawned, keeping the error for its caller.
fn spawn_failed(abort: &AtomicBool, error: &Mutex<Option<std::io::Error>>, e: std::io::Error) {
    abort.store(true, Ordering::SeqCst);
    *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
}

/// Every page of `batch` decoded ([`Decoder`]) and fed to `visitor`, then the batch's end told.
fn visit_batch<V: Visitor>(
    decoder: &mut Decoder,
    tokenizer: &Tokenizer,
    batch: &mut Batch,
    doc: &mut Document,
    visitor: &mut V,
) {
    decoder.each(&mut batch.pages[..batch.len], |page| {
        feed(tokenizer, page, doc, visitor)
    });
    visitor.end_batch();
}

/// Where a reader's batches go: a full batch in, an empty one to fill next out (when one is
/// free), or `Err` when nobody takes batches any more.
type BatchSink<'s> = dyn FnMut(Batch) -> Result<Option<Batch>, ()> + 's;

struct ReaderCtx<'a> {
    inputs: &'a [Input],
    config: &'a PipelineConfig,
    /// The config's read options, with this run's inflate threads.
    read: &'a ReadOptions,
    skip: &'a [Option<usize>],
    next_input: &'a AtomicUsize,
    abort: &'a AtomicBool,
    raw_done: &'a AtomicU64,
    first_error: &'a Mutex<Option<Error>>,
    reports: &'a Mutex<Vec<Option<SourceReport>>>,
    progress: &'a dyn Progress,
}

impl ReaderCtx<'_> {
    fn fail(&self, e: Error) {
        self.abort.store(true, Ordering::SeqCst);
        let mut slot = self.first_error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    /// Reads inputs until none is left, each batch handed to `send`.
    fn read_all(&self, send: &mut BatchSink<'_>) {
        let mut spare: Option<Batch> = None;
        loop {
            if self.abort.load(Ordering::SeqCst) {
                return;
            }
            let i = self.next_input.fetch_add(1, Ordering::SeqCst);
            let Some(input) = self.inputs.get(i) else {
                return;
            };
            if self.skip[i].is_some() {
                continue;
            }
            let (mut src, format): (Box<dyn PageSource>, Option<Format>) = match input {
                Input::Path { path, format } => {
                    let format = match format {
                        Some(f) => *f,
                        None => match neardup_ingest::detect_format(path) {
                            Ok(f) => f,
                            Err(e) => return self.fail(e.into()),
                        },
                    };
                    match open_source(path, Some(format), i as u32, self.read) {
                        Ok(s) => (s, Some(format)),
                        Err(e) => return self.fail(e.into()),
                    }
                }
                Input::Pages { pages, .. } => {
                    (Box::new(MemorySource::new(pages.clone(), i as u32)), None)
                }
                Input::Stdin { format } => {
                    // Taken once: a second read finds it at its end, so it is refused.
                    if STDIN_TAKEN.swap(true, Ordering::SeqCst) {
                        return self.fail(read_once(
                            STDIN_NAME,
                            "standard input, which can be read once (this job reads its inputs twice, or names - twice)",
                        ));
                    }
                    match neardup_ingest::open_reader(
                        Box::new(std::io::stdin()),
                        *format,
                        STDIN_NAME,
                        i as u32,
                        self.read,
                    ) {
                        Ok((s, format)) => (s, Some(format)),
                        Err(e) => return self.fail(e.into()),
                    }
                }
                Input::Stream { name, source, .. } => {
                    let taken = source.lock().unwrap_or_else(|p| p.into_inner()).take();
                    match taken {
                        Some(s) => (s, None),
                        None => return self.fail(read_once(
                            name,
                            "a stream, which can be read once (this job reads its inputs twice)",
                        )),
                    }
                }
            };
            let mut last_raw = 0u64;
            let mut truncated = 0u64;
            let mut result = Ok(());
            'file: loop {
                let mut batch = spare.take().unwrap_or_else(|| Batch {
                    pages: Vec::new(),
                    len: 0,
                });
                batch.len = 0;
                let mut bytes = 0usize;
                while batch.len < self.config.batch_pages && bytes < self.config.batch_bytes {
                    if batch.pages.len() == batch.len {
                        batch.pages.push(Page::default());
                    }
                    batch.pages[batch.len].trim(RETAINED_PAGE_BYTES);
                    match src.next_page(&mut batch.pages[batch.len]) {
                        Ok(true) => {
                            let page = &mut batch.pages[batch.len];
                            // Cut here, so a huge page holds no more memory in flight; a
                            // record left undecoded is cut once decoded.
                            if page.undecoded.is_none() && cut(page, self.config.max_page_bytes) {
                                truncated += 1;
                            }
                            bytes += page.body.len();
                            batch.len += 1;
                        }
                        Ok(false) => break,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                let raw = src.raw_position();
                let total = self
                    .raw_done
                    .fetch_add(raw - last_raw.min(raw), Ordering::Relaxed)
                    + raw
                    - last_raw.min(raw);
                last_raw = raw;
                self.progress.position(total);
                if self.progress.cancelled() {
                    self.fail(Error::Cancelled);
                    break 'file;
                }
                let done = batch.len < self.config.batch_pages && bytes < self.config.batch_bytes;
                if batch.len > 0 {
                    match send(batch) {
                        Ok(free) => spare = free,
                        Err(()) => break 'file,
                    }
                } else {
                    spare = Some(batch);
                }
                if done || result.is_err() || self.abort.load(Ordering::SeqCst) {
                    break 'file;
                }
            }
            let mut report = SourceReport {
                path: input.name(),
                format,
                raw_bytes: src.raw_position(),
                stats: src.stats().clone(),
            };
            if truncated > 0 {
                report
                    .stats
                    .notes
                    .insert(cut_note(self.config.max_page_bytes), truncated);
            }
            self.reports.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(report);
            if let Err(e) = result {
                return self.fail(e.into());
            }
        }
    }
}

#[cfg(test)]
mod tests;

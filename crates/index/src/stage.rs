//! Pages of a crawl for the index, in input order under a memory limit: the workers sketch
//! into a bounded [`CorpusSink`]; whenever it passes its budget, its pages are put in id order
//! and written as a run (catalog records, each after its page id and length) to a private
//! folder inside the index folder; at the end the runs and the pages still in memory are
//! merged by page id, so every consumer sees each page once, in input order, whatever the
//! thread count and however many runs there were. The folder (`neardup-sort-*`) is removed
//! when the stage is dropped, and by the next writer after a crash.

use crate::{CatalogPage, IndexError};
use neardup_pipeline::sketching::{assemble, CorpusSink, SketchVisitor, Spill};
use neardup_pipeline::{Error, Input, PipelineConfig, Progress, SourceReport};
use neardup_sketch::{Family, SketchParams};
use neardup_store::extsort::ExternalSorter;
use neardup_store::{Corpus, CorpusBuilder};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Pages read and sketched, waiting in runs on disk and in memory.
pub struct Staged {
    runs: Vec<(PathBuf, u64)>,
    /// The identity keys of every page staged ([`Staged::take_identity_keys`]).
    identity: Option<ExternalSorter<u64>>,
    rest: Corpus,
    m: u32,
    /// Owns the run files' folder (removed on drop).
    _dir: Option<tempfile::TempDir>,
    /// One report per input.
    pub sources: Vec<SourceReport>,
}

/// The runs written so far (file, pages), the identity keys of their pages, and the first
/// error writing one.
struct Runs {
    written: Vec<(PathBuf, u64)>,
    identity: Option<ExternalSorter<u64>>,
    error: Option<IndexError>,
}

/// Writes a bounded sink's pages as runs.
struct RunSpill {
    dir: PathBuf,
    next: std::sync::atomic::AtomicUsize,
    /// Whether the pages' identity keys are kept ([`Runs::identity`]).
    identity_keys: bool,
    runs: Mutex<Runs>,
}

impl Spill for RunSpill {
    fn spill(&self, mut pages: CorpusBuilder) {
        if self
            .runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .error
            .is_some()
        {
            return;
        }
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = self.dir.join(format!("pages-{n}"));
        pages.sort_by_id();
        let corpus = pages.build();
        let result = write_run(&path, &corpus);
        // The keys are made before the lock is taken: other workers spill meanwhile.
        let mut keys = Vec::new();
        if self.identity_keys {
            identity_keys(&corpus, &mut keys);
        }
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let result = result.and_then(|()| match &mut runs.identity {
            Some(sorter) => push_all(sorter, keys).map_err(|e| IndexError::io(&path, e)),
            None => Ok(()),
        });
        match result {
            Ok(()) => runs.written.push((path, corpus.len() as u64)),
            Err(e) => {
                runs.error.get_or_insert(e);
            }
        }
    }
}

/// The key a run orders its pages by: the input, then the record in it.
fn order(id: neardup_ingest::PageId) -> u64 {
    (u64::from(id.source) << 32) | u64::from(id.ordinal)
}

/// The record an order key names (`order`'s inverse).
fn record_of(key: u64) -> neardup_ingest::PageId {
    neardup_ingest::PageId {
        source: (key >> 32) as u32,
        ordinal: key as u32,
    }
}

/// The identity keys of `corpus`'s pages ([`crate::records::identity_keys`]) into `out`.
fn identity_keys(corpus: &Corpus, out: &mut Vec<u64>) {
    for p in 0..corpus.len() {
        let m = corpus.page(p);
        out.extend(
            crate::records::identity_keys_of(m.url, m.user_id)
                .into_iter()
                .flatten(),
        );
    }
}

fn push_all(sorter: &mut ExternalSorter<u64>, keys: Vec<u64>) -> std::io::Result<()> {
    keys.into_iter().try_for_each(|k| sorter.push(k))
}

fn write_run(path: &Path, corpus: &Corpus) -> Result<(), IndexError> {
    let io = |e| IndexError::io(path, e);
    let mut out = BufWriter::with_capacity(1 << 16, File::create(path).map_err(io)?);
    let (mut page, mut record) = (CatalogPage::default(), Vec::new());
    for p in 0..corpus.len() {
        fill(corpus, p, &mut page);
        page.encode(&mut record);
        out.write_all(&order(corpus.page(p).id).to_le_bytes())
            .and_then(|()| out.write_all(&(record.len() as u32).to_le_bytes()))
            .and_then(|()| out.write_all(&record))
            .map_err(io)?;
    }
    out.flush().map_err(io)
}

/// Reads and sketches `inputs` with `params` (payload digests computed: exact duplicates are
/// answered by digest; capture prints with `prints`, for an index that keeps them: each
/// capture's changes are told by its print), holding at most about `memory` bytes of pages
/// (runs spill to a folder inside `tmp`).
pub fn stage(
    inputs: &[Input],
    pipeline: &PipelineConfig,
    params: &SketchParams,
    prints: bool,
    memory: usize,
    tmp: &Path,
    progress: &dyn Progress,
) -> Result<Staged, Error> {
    let keep = Keep {
        prints,
        identity_keys: false,
    };
    stage_keeping(inputs, pipeline, params, keep, memory, tmp, progress)
}

/// What staging keeps besides the pages.
#[derive(Clone, Copy)]
pub(crate) struct Keep {
    /// Capture prints.
    pub(crate) prints: bool,
    /// The pages' identity keys, sorted ([`Staged::take_identity_keys`], in a sixteenth of
    /// the memory): an add's.
    pub(crate) identity_keys: bool,
}

/// [`stage`], keeping what `keep` says.
pub(crate) fn stage_keeping(
    inputs: &[Input],
    pipeline: &PipelineConfig,
    params: &SketchParams,
    keep: Keep,
    memory: usize,
    tmp: &Path,
    progress: &dyn Progress,
) -> Result<Staged, Error> {
    let prints = keep.prints;
    let pipeline = PipelineConfig {
        payload_digests: true,
        prints,
        ..pipeline.clone()
    };
    let family = Family::new(params);
    let dir = tempfile::Builder::new()
        .prefix("neardup-sort-")
        .tempdir_in(tmp)
        .map_err(|e| IndexError::io(tmp, e))?;
    // A sixteenth of the memory sorts the pages' identity keys when kept (16 bytes a page;
    // runs spill beside the pages'), the rest holds pages.
    let keys_memory = match keep.identity_keys {
        true => (memory / 16).max(64 << 10),
        false => 0,
    };
    let spill = Arc::new(RunSpill {
        dir: dir.path().to_path_buf(),
        next: Default::default(),
        identity_keys: keep.identity_keys,
        runs: Mutex::new(Runs {
            written: Vec::new(),
            identity: (keep.identity_keys).then(|| ExternalSorter::new(keys_memory, dir.path())),
            error: None,
        }),
    });
    // Two builders can be full at once: one being written, one filling.
    let pages_memory = memory.saturating_sub(keys_memory) / 2;
    let sink = CorpusSink::new(family, false).spilling(pages_memory.max(64 << 10), spill.clone());
    let make = || {
        SketchVisitor::new(&sink)
            .every_status(pipeline.every_status)
            .payload_digests(true)
            .prints(prints)
    };
    let run = neardup_pipeline::stream::run(inputs, &pipeline, make, progress)?;
    let (rest, sources) = assemble(sink, run);
    let Runs {
        written: runs,
        mut identity,
        error,
    } = match Arc::try_unwrap(spill) {
        Ok(s) => s.runs.into_inner().unwrap_or_else(|p| p.into_inner()),
        Err(_) => unreachable!("the sink and its visitors ended with the run"),
    };
    if let Some(e) = error {
        return Err(e.into());
    }
    if let Some(keys) = &mut identity {
        let mut rest_keys = Vec::new();
        identity_keys(&rest, &mut rest_keys);
        push_all(keys, rest_keys).map_err(|e| IndexError::io(dir.path(), e))?;
    }
    let spilled = !runs.is_empty() || identity.as_ref().is_some_and(|k| k.runs() > 0);
    Ok(Staged {
        m: params.m,
        _dir: spilled.then_some(dir),
        runs,
        identity,
        rest,
        sources,
    })
}

impl Staged {
    /// The signature family the pages were sketched with.
    pub fn family(&self) -> &Arc<Family> {
        self.rest.family()
    }

    /// Pages staged.
    pub fn len(&self) -> u64 {
        self.runs.iter().map(|r| r.1).sum::<u64>() + u64::from(self.rest.len())
    }

    /// Whether no page was staged.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The records the readers skipped, with `examples` examples (file, offset, reason).
    pub fn skipped(&self, examples: usize) -> neardup_pipeline::Skipped {
        neardup_pipeline::Skipped::of(&self.sources, examples)
    }

    /// Runs written to disk (0: every page fitted in memory).
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// The identity keys of every page staged (a page's URL key and id key,
    /// [`crate::records`]), sorted with repeats; the first call takes them.
    pub(crate) fn take_identity_keys(
        &mut self,
    ) -> Option<Result<neardup_store::extsort::Sorted<u64>, IndexError>> {
        let sorter = self.identity.take()?;
        let tmp = self._dir.as_ref().map(|d| d.path().to_path_buf());
        Some(
            sorter
                .finish()
                .map_err(|e| IndexError::io(tmp.as_deref().unwrap_or(Path::new("staged keys")), e)),
        )
    }

    /// Calls `f` with every page and its record (input and ordinal), in input order.
    pub fn for_each(
        &self,
        mut f: impl FnMut(neardup_ingest::PageId, &CatalogPage) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if self.runs.is_empty() {
            let mut page = CatalogPage::default();
            for p in 0..self.rest.len() {
                fill(&self.rest, p, &mut page);
                f(self.rest.page(p).id, &page)?;
            }
            return Ok(());
        }
        let mut cursors = self
            .runs
            .iter()
            .map(|(path, _)| RunCursor::open(path, self.m))
            .collect::<Result<Vec<_>, _>>()?;
        let mut rest = 0u32;
        let mut rest_page = CatalogPage::default();
        let mut heap = BinaryHeap::new();
        let from_rest = cursors.len();
        for (i, c) in cursors.iter_mut().enumerate() {
            if let Some(key) = c.advance()? {
                heap.push(Reverse((key, i)));
            }
        }
        if !self.rest.is_empty() {
            heap.push(Reverse((order(self.rest.page(0).id), from_rest)));
        }
        while let Some(Reverse((key, i))) = heap.pop() {
            if i == from_rest {
                fill(&self.rest, rest, &mut rest_page);
                f(record_of(key), &rest_page)?;
                rest += 1;
                if rest < self.rest.len() {
                    heap.push(Reverse((order(self.rest.page(rest).id), i)));
                }
            } else {
                f(record_of(key), &cursors[i].page)?;
                if let Some(key) = cursors[i].advance()? {
                    heap.push(Reverse((key, i)));
                }
            }
        }
        Ok(())
    }
}

/// A run read page by page.
struct RunCursor {
    path: PathBuf,
    input: BufReader<File>,
    m: u32,
    at: u64,
    record: Vec<u8>,
    page: CatalogPage,
}

impl RunCursor {
    fn open(path: &Path, m: u32) -> Result<RunCursor, IndexError> {
        Ok(RunCursor {
            path: path.to_path_buf(),
            input: BufReader::with_capacity(
                1 << 16,
                File::open(path).map_err(|e| IndexError::io(path, e))?,
            ),
            m,
            at: 0,
            record: Vec::new(),
            page: CatalogPage::default(),
        })
    }

    /// The next page into `self.page`, its order key; `None` at the end.
    fn advance(&mut self) -> Result<Option<u64>, IndexError> {
        let mut head = [0u8; 12];
        match self.input.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(IndexError::io(&self.path, e)),
        }
        let key = u64::from_le_bytes(head[..8].try_into().expect("8"));
        let len = u32::from_le_bytes(head[8..].try_into().expect("4")) as usize;
        self.record.resize(len, 0);
        self.input
            .read_exact(&mut self.record)
            .map_err(|e| IndexError::io(&self.path, e))?;
        self.page
            .decode(&self.record, self.m)
            .map_err(|what| IndexError::damaged(&self.path, self.at, what))?;
        self.at += 12 + len as u64;
        Ok(Some(key))
    }
}

/// Page `p` of `corpus` as a catalog page (reusing `out`'s buffers).
pub(super) fn fill(corpus: &Corpus, p: u32, out: &mut CatalogPage) {
    let m = corpus.page(p);
    out.url.clear();
    out.url.push_str(m.url);
    out.user_id.clear();
    out.user_id.push_str(m.user_id);
    out.date.clear();
    out.date.push_str(m.date);
    out.host.clear();
    out.host.push_str(m.host);
    out.token_hash = m.token_hash;
    out.body_hash = m.body_hash;
    out.payload_sha1 = m.payload_sha1;
    out.payload_sha256 = m.payload_sha256.unwrap_or([0; 32]);
    out.chrome = m.chrome;
    out.tokens = m.tokens;
    out.shingles = m.shingles;
    out.title = m.title;
    out.language = m.language;
    out.minvalues.clear();
    out.minvalues.extend_from_slice(corpus.minvalues(p));
    out.shingle_set.clear();
    out.shingle_set
        .extend_from_slice(corpus.shingles(p).unwrap_or_default());
    out.print.clear();
    out.print
        .extend_from_slice(corpus.print(p).unwrap_or_default());
}

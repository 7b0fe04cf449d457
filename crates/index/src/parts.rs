//! An add spread over many machines (a Spark job's executors), made live in one commit:
//!
//! 1. Every machine sketches its share of the pages as [`Index::add`](crate::Index::add) does
//!    ([`sketch_pages`]), each page as a checksummed record ([`CatalogPage::encode_checked`]).
//! 2. The caller puts the pages in their final order and splits them into parts: part `i`
//!    holds the pages ranked `first_i..first_i + n_i`, ids counted from the add's first id.
//! 3. Each part is written as its own catalog and key segment into the index folder (a folder
//!    every machine sees) by a [`PartWriter`]: files `seg-<gen>-p<part>-a<attempt>.pages` and
//!    `.keys`, named by no manifest yet. Every attempt at a part (a retry after a failure, or
//!    a speculative copy running beside the first) writes files of its own, so two attempts
//!    never write one file; only the files of the attempt whose report reaches the commit
//!    become live, the others are removed.
//! 4. The one process holding the writer lock ([`PartsAdd`], held from before the first part
//!    is written) checks every part against what it claims and makes them live in one
//!    manifest commit. A run that fails before the commit leaves files no manifest names;
//!    the next writer removes them, as after a crashed add.
//!
//! Page ids are the add's first id plus the page's rank in the caller's order, so the index
//! holds what one [`Index::add`](crate::Index::add) of the pages in that order makes, in more segments.

use crate::{remove_orphans, stage, SegmentsWriter, Written};
use crate::{
    CatalogPage, CatalogReader, IndexError, KeySegmentReader, Manifest, SegmentEntry, SegmentKind,
    WriterLock,
};
use neardup_pipeline::{Error, Input, PipelineConfig};
use neardup_sketch::Family;
use std::path::{Path, PathBuf};

/// Bytes of keys a part writer sorts in memory before it spills sorted runs (into the index
/// folder).
const PART_SORT_MEMORY: usize = 256 << 20;

/// Reads and sketches `inputs` as an add to the index in `dir` does (its parameters, payload
/// digests computed) and calls `visit` with every page and its record, in input order; the records the
/// readers skipped. Takes no lock and writes nothing in `dir` (sorted runs of large inputs go
/// to the system's temporary folder).
pub fn sketch_pages(
    dir: &Path,
    inputs: &[Input],
    pipeline: &PipelineConfig,
    mut visit: impl FnMut(neardup_ingest::PageId, &CatalogPage) -> Result<(), Error>,
) -> Result<neardup_pipeline::Skipped, Error> {
    let manifest = Manifest::open(dir)?;
    let staged = stage(
        inputs,
        pipeline,
        &manifest.params,
        manifest.storage.capture_prints,
        crate::DEFAULT_MEM_LIMIT / 2,
        &std::env::temp_dir(),
        &neardup_pipeline::NoProgress,
    )?;
    staged.for_each(&mut visit)?;
    Ok(staged.skipped(pipeline.skipped_examples))
}

/// A part's segments, written and not yet live: what its writer reports to the committer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenPart {
    /// The part's number.
    pub part: u32,
    /// The id of its first page.
    pub first_id: u64,
    /// Its pages (ids `first_id..first_id + pages`).
    pub pages: u64,
    /// The attempt that wrote it (any number unique among the attempts at this part: Spark's
    /// task attempt id).
    pub attempt: u64,
    /// Its catalog and key segments.
    pub segments: Vec<SegmentEntry>,
}

/// The file name of attempt `attempt` at part `part`'s segment of `kind` for the commit of
/// `generation`.
pub fn part_segment_name(generation: u64, part: u32, attempt: u64, kind: SegmentKind) -> String {
    format!(
        "seg-{generation}-p{part:05}-a{attempt}.{}",
        kind.extension()
    )
}

/// Writes one part of an add: pages in id order, from the first id the part was given.
pub struct PartWriter {
    writer: SegmentsWriter,
    m: u32,
    part: u32,
    attempt: u64,
    first_id: u64,
    next_id: u64,
    page: CatalogPage,
}

impl PartWriter {
    /// A writer of part `part` of the add that commits `generation` in `dir`, its pages
    /// numbered from `first_id`, its files named for `attempt` (unique among the attempts at
    /// this part); refuses an index whose manifest moved past that add (another writer
    /// committed in between).
    pub fn create(
        dir: &Path,
        generation: u64,
        part: u32,
        attempt: u64,
        first_id: u64,
    ) -> Result<PartWriter, Error> {
        let manifest = Manifest::open(dir)?;
        if manifest.generation + 1 != generation {
            return Err(IndexError::damaged(
                &Manifest::path(dir),
                0,
                format!(
                    "the add in parts commits generation {generation}, but the index is at \
                     generation {} (another writer changed it)",
                    manifest.generation
                ),
            )
            .into());
        }
        let names = [SegmentKind::Catalog, SegmentKind::Keys, SegmentKind::Titles]
            .map(|k| part_segment_name(generation, part, attempt, k));
        let family = Family::new(&manifest.params);
        Ok(PartWriter {
            writer: SegmentsWriter::create(
                dir,
                &manifest,
                first_id,
                names,
                family,
                PART_SORT_MEMORY,
            )?,
            m: manifest.params.m,
            part,
            attempt,
            first_id,
            next_id: first_id,
            page: CatalogPage::default(),
        })
    }

    /// Appends the next page, a record of [`CatalogPage::encode_checked`]; its id.
    pub fn push_encoded(&mut self, record: &[u8]) -> Result<u64, Error> {
        self.page.decode_checked(record, self.m).map_err(|what| {
            IndexError::damaged(
                Path::new(&format!("part {}", self.part)),
                self.next_id - self.first_id,
                what.to_string(),
            )
        })?;
        let id = self.writer.push(&self.page)?;
        self.next_id = id + 1;
        Ok(id)
    }

    /// Finishes the part's files (synced, in place) under the crawl label `label`.
    pub fn finish(self, label: &str) -> Result<WrittenPart, Error> {
        let Written { segments, pages } = self.writer.finish(label)?;
        Ok(WrittenPart {
            part: self.part,
            first_id: self.first_id,
            pages,
            attempt: self.attempt,
            segments,
        })
    }
}

/// The committing side of an add in parts: holds the index's writer lock from before the
/// parts are written until their one commit.
pub struct PartsAdd {
    dir: PathBuf,
    _lock: WriterLock,
    manifest: Manifest,
}

impl PartsAdd {
    /// Takes the writer lock of the index in `dir` and removes what a crashed writer left.
    pub fn begin(dir: &Path) -> Result<PartsAdd, Error> {
        let lock = WriterLock::acquire(dir)?;
        let manifest = Manifest::open(dir)?;
        remove_orphans(dir, &manifest)?;
        Ok(PartsAdd {
            dir: dir.to_path_buf(),
            _lock: lock,
            manifest,
        })
    }

    /// The generation the commit makes live (the parts' writers are given it).
    pub fn generation(&self) -> u64 {
        self.manifest.generation + 1
    }

    /// The id of the add's first page.
    pub fn first_id(&self) -> u64 {
        self.manifest.next_page
    }

    /// Makes the parts live in one manifest commit, after checking that they hold the ids
    /// `first_id..` without gap or overlap (so two attempts at one part cannot both land),
    /// carry this add's names and one label, and that every file is there with the size and
    /// count its writer reported. Parts without pages may be left out. Then removes what no
    /// manifest names: the files of the attempts whose reports did not come.
    pub fn commit(mut self, mut parts: Vec<WrittenPart>) -> Result<crate::AddReport, Error> {
        parts.sort_by_key(|p| (p.first_id, p.part));
        let first = self.first_id();
        let generation = self.generation();
        let mut next = first;
        let mut label: Option<&str> = None;
        let refuse = |what: String| -> Error {
            IndexError::damaged(&Manifest::path(&self.dir), 0, what).into()
        };
        for p in &parts {
            if p.first_id != next {
                return Err(refuse(format!(
                    "part {} starts at page id {}, expected {next} (parts must hold the add's \
                     ids without gap or overlap)",
                    p.part, p.first_id
                )));
            }
            next += p.pages;
            let kinds = p.segments.iter().map(|s| s.kind()).collect::<Vec<_>>();
            let expected = [SegmentKind::Catalog, SegmentKind::Keys, SegmentKind::Titles];
            if kinds != expected.map(Some) {
                return Err(refuse(format!(
                    "part {} has segments {:?}, expected a catalog, a key and a titles segment",
                    p.part,
                    p.segments.iter().map(|s| &s.name).collect::<Vec<_>>()
                )));
            }
            for s in &p.segments {
                let kind = s.kind().expect("checked above");
                if s.name != part_segment_name(generation, p.part, p.attempt, kind) {
                    return Err(refuse(format!(
                        "segment {} is not part {} of this add (generation {generation})",
                        s.name, p.part
                    )));
                }
                if *label.get_or_insert(&s.label) != s.label {
                    return Err(refuse(format!(
                        "segment {} has label {:?}, the add's first {:?}",
                        s.name,
                        s.label,
                        label.unwrap_or_default()
                    )));
                }
                self.check_file(s, kind, p)?;
            }
        }
        let written = Written {
            segments: parts.into_iter().flat_map(|p| p.segments).collect(),
            pages: next - first,
        };
        let mut report = crate::commit_add(&self.dir, &mut self.manifest, written, 0)?;
        remove_orphans(&self.dir, &self.manifest)?;
        // One key segment a part: merged now, so lookups read few.
        crate::merges::merge_after_add(
            &self.dir,
            &self.manifest,
            &crate::MergePolicy::ADD,
            &mut report,
        );
        Ok(report)
    }

    /// Whether segment `s` of part `p` is on disk as its writer reported it.
    fn check_file(
        &self,
        s: &SegmentEntry,
        kind: SegmentKind,
        p: &WrittenPart,
    ) -> Result<(), Error> {
        let path = self.dir.join(&s.name);
        let size = std::fs::metadata(&path)
            .map_err(|e| IndexError::io(&path, e))?
            .len();
        if size != s.bytes {
            return Err(IndexError::damaged(
                &path,
                size,
                format!("{size} bytes, its writer reported {}", s.bytes),
            )
            .into());
        }
        let (held, expected) = match kind {
            SegmentKind::Catalog => {
                let ids = CatalogReader::open(&path)?.ids();
                if ids != (p.first_id..p.first_id + p.pages) {
                    return Err(IndexError::damaged(
                        &path,
                        0,
                        format!(
                            "holds page ids {ids:?}, its part {}..{}",
                            p.first_id,
                            p.first_id + p.pages
                        ),
                    )
                    .into());
                }
                (ids.end - ids.start, s.entries)
            }
            _ => (KeySegmentReader::open(&path)?.len(), s.entries),
        };
        if held != expected {
            return Err(IndexError::damaged(
                &path,
                0,
                format!("{held} entries, its writer reported {expected}"),
            )
            .into());
        }
        Ok(())
    }
}

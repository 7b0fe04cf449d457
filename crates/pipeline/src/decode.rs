//! What the thread that visits pages does before it visits them: decodes the pages a reader
//! left undecoded (`neardup_ingest::decode`: a reader only finds records, so one large JSONL
//! file is parsed on every core), cuts their bodies over the page limit (the reader cuts those
//! it decoded itself, [`cut`]), and keeps what it found per
//! input; after the run [`Decoder::merge`] and [`Found::count_into`] count that into the
//! inputs' reports as their readers would have, whatever thread found what.

use neardup_ingest::{FieldMap, NoPage, Page, Problem, ProblemKind, SourceStats, MAX_EXAMPLES};
use std::collections::BTreeMap;

/// The note of an input's pages whose bodies were cut to `max_page_bytes` before tokenizing.
pub(crate) fn cut_note(max_page_bytes: usize) -> String {
    format!("page-cut-to-{max_page_bytes}-bytes-for-tokenizing")
}

/// Cuts a page's body to `max_page_bytes` (tokenizing is bounded per page: the rest is left
/// out, and noted by the caller); whether it was over.
pub(crate) fn cut(page: &mut Page, max_page_bytes: usize) -> bool {
    let over = page.body.len() > max_page_bytes;
    page.body.truncate(max_page_bytes);
    over
}

/// One visiting thread's decoding (see the module docs).
pub(crate) struct Decoder {
    fields: FieldMap,
    max_page_bytes: usize,
    scratch: Vec<u8>,
    /// By input (source number).
    found: BTreeMap<u32, Found>,
}

/// What the decoders found in one input's pages.
#[derive(Default)]
pub(crate) struct Found {
    /// Records that decoded to no page, by the kind of their problem.
    by_kind: BTreeMap<ProblemKind, u64>,
    /// Their problems, the first [`MAX_EXAMPLES`] by offset (at least).
    examples: Vec<(u64, ProblemKind, String)>,
    /// Bodies cut to the page limit.
    cut: u64,
}

impl Decoder {
    pub(crate) fn new(fields: &FieldMap, max_page_bytes: usize) -> Decoder {
        Decoder {
            fields: fields.clone(),
            max_page_bytes,
            scratch: Vec::new(),
            found: BTreeMap::new(),
        }
    }

    /// Every page of `pages` decoded, cut and handed to `visit`; a record that is no page is
    /// counted instead.
    pub(crate) fn each(&mut self, pages: &mut [Page], mut visit: impl FnMut(&Page)) {
        for page in pages {
            if let Err(NoPage { kind, detail }) =
                neardup_ingest::decode(page, &self.fields, &mut self.scratch)
            {
                let found = self.found.entry(page.id.source).or_default();
                *found.by_kind.entry(kind).or_default() += 1;
                found.examples.push((page.offset, kind, detail));
                if found.examples.len() >= 2 * MAX_EXAMPLES {
                    found.examples.sort_by_key(|p| p.0);
                    found.examples.truncate(MAX_EXAMPLES);
                }
                continue;
            }
            if cut(page, self.max_page_bytes) {
                self.found.entry(page.id.source).or_default().cut += 1;
            }
            visit(page);
        }
    }

    /// What the decoders found, by input (source number).
    pub(crate) fn merge(decoders: Vec<Decoder>) -> BTreeMap<u32, Found> {
        let mut all: BTreeMap<u32, Found> = BTreeMap::new();
        for d in decoders {
            for (source, f) in d.found {
                let a = all.entry(source).or_default();
                a.cut += f.cut;
                for (kind, n) in f.by_kind {
                    *a.by_kind.entry(kind).or_default() += n;
                }
                a.examples.extend(f.examples);
            }
        }
        all
    }
}

impl Found {
    /// Counted into the stats of its input (`file`): records that were no page taken off the
    /// pages, their problems counted, the examples kept in offset order (the first
    /// [`MAX_EXAMPLES`]), cut bodies noted.
    pub(crate) fn count_into(self, file: &str, stats: &mut SourceStats, max_page_bytes: usize) {
        for (kind, n) in self.by_kind {
            stats.pages = stats.pages.saturating_sub(n);
            *stats.problems_by_kind.entry(kind).or_default() += n;
        }
        stats.problems.extend(
            self.examples
                .into_iter()
                .map(|(offset, kind, detail)| Problem {
                    file: file.to_string(),
                    offset,
                    kind,
                    detail,
                }),
        );
        // A stable sort: the reader's own problems at one offset keep their order.
        stats.problems.sort_by_key(|p| p.offset);
        stats.problems.truncate(MAX_EXAMPLES);
        if self.cut > 0 {
            *stats.notes.entry(cut_note(max_page_bytes)).or_default() += self.cut;
        }
    }
}

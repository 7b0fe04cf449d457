//! Sketching a crawl into a [`Corpus`]: one [`SketchVisitor`] per worker fills a part; the parts
//! are merged in input order by [`assemble`].

pub use crate::pages::NotPage;
use crate::pipeline::{RunOutput, SourceReport, Visitor};
use neardup_ingest::Page;
use neardup_sketch::{Family, Sketcher};
use neardup_store::{Corpus, PageMeta, Signatures};
use neardup_text::Document;
use std::sync::Arc;

/// Per-worker part of a corpus: one chunk per batch of pages (a batch holds consecutive
/// records of one input, so chunks sorted by their first page are in page order), which
/// [`assemble`] moves into the corpus one at a time, so that the signatures are never held
/// twice.
pub struct SketchPart {
    chunks: Vec<Chunk>,
    current: Chunk,
    empty: u64,
    other: u64,
    not_pages: std::collections::BTreeMap<NotPage, u64>,
    boilerplate_only: Vec<PageMeta>,
}

/// The signatures of one batch's pages.
#[derive(Default)]
struct Chunk {
    pages: Vec<PageMeta>,
    minvalues: Vec<u64>,
    supershingles: Vec<u64>,
    simhash: Vec<u64>,
    rp: Vec<i64>,
    link_lens: Vec<usize>,
    links: Vec<u64>,
    shingle_lens: Vec<usize>,
    shingles: Vec<u64>,
}

/// Sketches every HTML/text page (one per worker).
pub struct SketchVisitor {
    sketcher: Sketcher,
    every_status: bool,
    content: neardup_sketch::Content,
    keep_shingles: bool,
    boilerplate: Option<Arc<crate::boilerplate::BoilerplateFilter>>,
    part: SketchPart,
}

impl SketchVisitor {
    /// A visitor for a family; `keep_shingles` keeps each page's shingle set (for `--verify`).
    pub fn new(family: Arc<Family>, keep_shingles: bool) -> SketchVisitor {
        SketchVisitor {
            every_status: false,
            content: family.params().content,
            sketcher: Sketcher::new(family),
            keep_shingles,
            part: SketchPart {
                chunks: Vec::new(),
                current: Chunk::default(),
                empty: 0,
                other: 0,
                not_pages: Default::default(),
                boilerplate_only: Vec::new(),
            },
            boilerplate: None,
        }
    }

    /// Sketches every response, whatever its status (by default only 200 responses that are
    /// not redirects or soft 404s; see [`NotPage`]).
    pub fn every_status(mut self, yes: bool) -> SketchVisitor {
        self.every_status = yes;
        self
    }

    /// Drops host boilerplate from the signatures (the second pass of boilerplate detection).
    pub fn with_boilerplate(
        mut self,
        filter: Arc<crate::boilerplate::BoilerplateFilter>,
    ) -> SketchVisitor {
        self.boilerplate = Some(filter);
        self
    }
}

/// What is kept of a page besides its signatures.
struct Facts {
    tokens: usize,
    token_hash: u64,
    boilerplate: f32,
    shingles: usize,
    chrome: f32,
    title: [u32; 4],
}

fn meta(page: &Page, f: Facts) -> PageMeta {
    let host = page.host();
    PageMeta {
        id: page.id,
        url: page.url.clone(),
        user_id: page.record_id.clone(),
        host: if host.bytes().any(|b| b.is_ascii_uppercase()) {
            host.to_ascii_lowercase()
        } else {
            host.to_string()
        },
        ip: page.ip.clone(),
        date: page.date.clone(),
        tokens: f.tokens.min(u32::MAX as usize) as u32,
        token_hash: f.token_hash,
        body_hash: xxhash_rust::xxh3::xxh3_64(&page.body),
        boilerplate: f.boilerplate,
        shingles: f.shingles.min(u32::MAX as usize) as u32,
        chrome: f.chrome,
        title: f.title,
    }
}

impl Visitor for SketchVisitor {
    type Output = SketchPart;

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        if !self.every_status {
            if let Some(why) = NotPage::of(page, doc) {
                *self.part.not_pages.entry(why).or_default() += 1;
                return;
            }
        }
        let Some(doc) = doc else {
            self.part.other += 1;
            return;
        };
        let filter = self.boilerplate.clone();
        let host = filter
            .as_ref()
            .map(|_| crate::boilerplate::host_key(&page.host().to_ascii_lowercase()));
        let is_bp = |sh: u64| {
            filter
                .as_ref()
                .is_some_and(|f| f.is_boilerplate(host.unwrap_or(0), sh))
        };
        let sketched = if filter.is_some() {
            self.sketcher
                .sketch_filtered(self.content.terms(doc), Some(&is_bp))
        } else {
            self.sketcher.sketch(self.content.terms(doc))
        };
        let main = doc.uses_main(self.content.scope());
        let chrome = if main {
            1.0 - doc.main_len() as f32 / doc.len().max(1) as f32
        } else {
            0.0
        };
        let title = doc.title_key().0;
        let Some(s) = sketched else {
            if self.sketcher.boilerplate_fraction() >= 1.0 {
                self.part.boilerplate_only.push(meta(
                    page,
                    Facts {
                        tokens: doc.len(),
                        token_hash: 0,
                        boilerplate: 1.0,
                        shingles: 0,
                        chrome,
                        title,
                    },
                ));
            } else {
                self.part.empty += 1;
            }
            return;
        };
        let p = &mut self.part.current;
        p.minvalues.extend_from_slice(s.minvalues);
        p.supershingles.extend_from_slice(s.supershingles);
        p.simhash.extend_from_slice(s.simhash);
        p.rp.extend_from_slice(s.rp);
        if !s.rp.is_empty() {
            // Outlinks for the hyperlink map: hashed, distinct, increasing.
            let start = p.links.len();
            p.links
                .extend(doc.links().map(neardup_dedup::rphm::url_hash));
            let kept = neardup_dedup::rphm::sort_dedup_tail(&mut p.links, start);
            p.link_lens.push(kept);
        }
        if self.keep_shingles {
            p.shingles.extend_from_slice(s.shingles);
            p.shingle_lens.push(s.shingles.len());
        }
        let token_hash = s.token_hash;
        let shingles = s.shingles.len();
        let fraction = self.sketcher.boilerplate_fraction() as f32;
        p.pages.push(meta(
            page,
            Facts {
                tokens: doc.len(),
                token_hash,
                boilerplate: fraction,
                shingles,
                chrome,
                title,
            },
        ));
    }

    fn end_batch(&mut self) {
        if !self.part.current.pages.is_empty() {
            let chunk = std::mem::take(&mut self.part.current);
            self.part.chunks.push(chunk);
        }
    }

    fn finish(mut self) -> SketchPart {
        self.end_batch();
        self.part
    }
}

/// Merges the workers' parts into a corpus in input order, moving one chunk at a time.
pub fn assemble(
    family: Arc<Family>,
    run: RunOutput<SketchPart>,
    keep_shingles: bool,
) -> (Corpus, Vec<SourceReport>) {
    let m = family.params().m as usize;
    let s = family.params().supershingles as usize;
    let sw = family.params().simhash_words();
    let k = family.params().rp_dims as usize;
    let inputs = run.sources.iter().map(|r| r.path.clone()).collect();
    let mut b = Corpus::builder(family, inputs, keep_shingles);
    let mut chunks = Vec::new();
    let (mut empty, mut other) = (0, 0);
    for part in run.outputs {
        empty += part.empty;
        other += part.other;
        for (why, n) in &part.not_pages {
            b.count_not_page(&why.name(), *n);
        }
        b.boilerplate_only(part.boilerplate_only);
        chunks.extend(part.chunks);
    }
    b.count_unsketched(empty, other);
    chunks.sort_unstable_by_key(|c| c.pages[0].id);
    b.reserve(chunks.iter().map(|c| c.pages.len()).sum());
    for chunk in chunks {
        let link_starts = prefix_sums(&chunk.link_lens);
        let shingle_starts = prefix_sums(&chunk.shingle_lens);
        for (i, page) in chunk.pages.into_iter().enumerate() {
            let links = if k > 0 {
                &chunk.links[link_starts[i]..link_starts[i + 1]]
            } else {
                &[]
            };
            let shingles = if keep_shingles {
                &chunk.shingles[shingle_starts[i]..shingle_starts[i + 1]]
            } else {
                &[]
            };
            b.push(
                page,
                Signatures {
                    minvalues: &chunk.minvalues[i * m..(i + 1) * m],
                    supershingles: &chunk.supershingles[i * s..(i + 1) * s],
                    simhash: &chunk.simhash[i * sw..(i + 1) * sw],
                    rp: &chunk.rp[i * k..(i + 1) * k],
                    links,
                    shingles,
                },
            )
            .expect("the sketcher makes signatures of its family's shape");
        }
    }
    (b.build(), run.sources)
}

/// `[0, l0, l0 + l1, ...]`.
fn prefix_sums(lens: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(lens.len() + 1);
    let mut at = 0;
    out.push(0);
    for &l in lens {
        at += l;
        out.push(at);
    }
    out
}

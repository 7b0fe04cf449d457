//! Sketching a crawl into a [`Corpus`]: one [`SketchVisitor`] per worker sketches a batch of
//! pages into a reused chunk and, when the batch ends, appends the chunk to the one
//! [`CorpusSink`] all workers share; [`assemble`] puts the pages in input order in place.
//! Nothing is held twice: the workers' buffers are reused batch after batch.

pub use crate::pages::NotPage;
use crate::stream::{RunOutput, SourceReport, Visitor};
use neardup_ingest::Page;
use neardup_sketch::{Family, Sketcher};
use neardup_store::{Corpus, CorpusBuilder, PageMeta, Signatures};
use neardup_text::language::Language;
use neardup_text::Document;
use std::sync::{Arc, Mutex};

/// Where a bounded [`CorpusSink`] sends its pages once they pass its budget: the builder
/// holding them (pages in arrival order), to be written out as one run. Called on a worker
/// thread, without the sink's lock: the other workers go on filling a new builder.
pub trait Spill: Send + Sync {
    /// Takes the pages (the sink starts a new builder).
    fn spill(&self, pages: CorpusBuilder);
}

/// The corpus the workers append to, in the order their batches end.
#[derive(Clone)]
pub struct CorpusSink {
    builder: Arc<Mutex<CorpusBuilder>>,
    family: Arc<Family>,
    keep_shingles: bool,
    /// Heap bytes of pages held at most, and where the pages go past them.
    spill: Option<(usize, Arc<dyn Spill>)>,
    /// Values per page: minvalues, supershingles, simhash words, projections.
    shape: (usize, usize, usize, usize),
    /// Languages of the samples the run's workers have seen.
    languages: Arc<neardup_text::language::Memo>,
}

impl CorpusSink {
    /// A sink for pages of `family`; `keep_shingles` keeps every page's shingle set (for
    /// `--verify`), else only those of pages with at most `exact_sets` shingles.
    pub fn new(family: Arc<Family>, keep_shingles: bool) -> CorpusSink {
        CorpusSink {
            builder: Arc::new(Mutex::new(Corpus::builder(family.clone(), Vec::new()))),
            shape: {
                let p = family.params();
                (
                    p.m as usize,
                    p.supershingles as usize,
                    p.simhash_words(),
                    p.rp_dims as usize,
                )
            },
            family,
            keep_shingles,
            spill: None,
            languages: Default::default(),
        }
    }

    /// The pages appended so far, the sink left empty (for a caller that feeds its visitor
    /// itself, one page at a time).
    pub fn take(&self) -> Corpus {
        let mut b = self
            .builder
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::replace(&mut *b, Corpus::builder(self.family.clone(), Vec::new())).build()
    }

    /// A sink holding at most about `budget` heap bytes of pages: when a batch brings it past
    /// them, its pages go to `to` and it starts again empty.
    pub fn spilling(mut self, budget: usize, to: Arc<dyn Spill>) -> CorpusSink {
        self.spill = Some((budget, to));
        self
    }
}

/// Per-worker counts (the pages themselves went to the sink).
pub struct SketchPart {
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
    minvalues: Vec<u32>,
    supershingles: Vec<u64>,
    simhash: Vec<u64>,
    rp: Vec<i64>,
    link_lens: Vec<usize>,
    links: Vec<u64>,
    shingle_lens: Vec<usize>,
    shingles: Vec<u32>,
    /// Each page's capture print's length in `prints` (none: every page's is empty).
    print_lens: Vec<usize>,
    prints: Vec<u8>,
}

impl Chunk {
    /// Appends the chunk's pages to `b` and empties the chunk, keeping its buffers.
    fn drain_into(&mut self, b: &mut CorpusBuilder, shape: (usize, usize, usize, usize)) {
        let (m, s, sw, k) = shape;
        let (mut link_at, mut shingle_at, mut print_at) = (0, 0, 0);
        for (i, page) in self.pages.drain(..).enumerate() {
            let links = match self.link_lens.get(i) {
                Some(&n) => {
                    link_at += n;
                    &self.links[link_at - n..link_at]
                }
                None => &[],
            };
            let shingles = match self.shingle_lens.get(i) {
                Some(&n) => {
                    shingle_at += n;
                    &self.shingles[shingle_at - n..shingle_at]
                }
                None => &[],
            };
            let print = match self.print_lens.get(i) {
                Some(&n) => {
                    print_at += n;
                    &self.prints[print_at - n..print_at]
                }
                None => &[],
            };
            b.push(
                page,
                Signatures {
                    minvalues: &self.minvalues[i * m..(i + 1) * m],
                    supershingles: &self.supershingles[i * s..(i + 1) * s],
                    simhash: &self.simhash[i * sw..(i + 1) * sw],
                    rp: &self.rp[i * k..(i + 1) * k],
                    links,
                    shingles,
                    print,
                },
            )
            .expect("the sketcher makes signatures of its family's shape");
        }
        self.minvalues.clear();
        self.supershingles.clear();
        self.simhash.clear();
        self.rp.clear();
        self.link_lens.clear();
        self.links.clear();
        self.shingle_lens.clear();
        self.shingles.clear();
        self.print_lens.clear();
        self.prints.clear();
    }
}

/// Sketches every HTML/text page (one per worker).
pub struct SketchVisitor {
    sketcher: Sketcher,
    every_status: bool,
    payload_digests: bool,
    content: neardup_sketch::Content,
    boilerplate: Option<Arc<crate::boilerplate::BoilerplateFilter>>,
    sink: CorpusSink,
    part: SketchPart,
    /// The language sample of the page at hand (reused).
    sample: String,
    /// Keep capture prints; the print of the page at hand (reused).
    prints: bool,
    print: Vec<u8>,
    /// The body digests of the page at hand when computed beforehand
    /// ([`SketchVisitor::visit_given`]); taken by the visit.
    given: Option<BodyDigests>,
}

impl SketchVisitor {
    /// A visitor appending to `sink` (whose family and shingle-set choice it takes).
    pub fn new(sink: &CorpusSink) -> SketchVisitor {
        let family = sink.family.clone();
        SketchVisitor {
            every_status: false,
            payload_digests: false,
            given: None,
            content: family.params().content,
            sketcher: {
                let mut sk = Sketcher::new(family.clone());
                if !sink.keep_shingles {
                    sk.keep_sets_upto(family.params().exact_sets as usize);
                }
                sk
            },
            sink: sink.clone(),
            part: SketchPart {
                current: Chunk::default(),
                empty: 0,
                other: 0,
                not_pages: Default::default(),
                boilerplate_only: Vec::new(),
            },
            boilerplate: None,
            sample: String::new(),
            prints: false,
            print: Vec::new(),
        }
    }

    /// Keeps every sketched page's capture print (`neardup_evolve::change::CapturePrint`,
    /// over all of its terms, as `neardup changes` makes it), for signature files.
    pub fn prints(mut self, yes: bool) -> SketchVisitor {
        self.prints = yes;
        self
    }

    /// Sketches every response, whatever its status (by default only 200 responses that are
    /// not redirects or soft 404s; see [`NotPage`]).
    pub fn every_status(mut self, yes: bool) -> SketchVisitor {
        self.every_status = yes;
        self
    }

    /// Computes the payload SHA-1 of pages whose record gives none (index operations).
    pub fn payload_digests(mut self, yes: bool) -> SketchVisitor {
        self.payload_digests = yes;
        self
    }

    /// What a visit of `page` computes of its body (digests, hash): for a caller computing it
    /// on another thread while the page is tokenized ([`SketchVisitor::visit_given`]).
    pub fn body_digests(&self, page: &Page) -> BodyDigests {
        BodyDigests::of(page, self.payload_digests)
    }

    /// [`Visitor::visit`] of a page whose [`SketchVisitor::body_digests`] were computed
    /// beforehand (by this visitor's settings, of this page): the same record, the body read
    /// once less.
    pub fn visit_given(&mut self, page: &Page, doc: Option<&Document>, digests: BodyDigests) {
        self.given = Some(digests);
        self.visit(page, doc);
        self.given = None;
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

/// The title key of a page without a title (every text page).
static NO_TITLE: std::sync::LazyLock<[u32; 4]> =
    std::sync::LazyLock::new(|| neardup_text::TitleKey::of("").0);

/// What is kept of a page besides its signatures.
struct Facts {
    tokens: usize,
    token_hash: u64,
    boilerplate: f32,
    shingles: usize,
    chrome: f32,
    title: [u32; 4],
    language: Language,
}

/// A page's language ([`neardup_text::language`]): a text page's from its own text, whichever
/// way it was read (so that every job gives a text page one language), any other page's from
/// its terms.
pub fn page_language(
    page: &Page,
    doc: Option<&Document>,
    memo: &neardup_text::language::Memo,
    sample: &mut String,
) -> Language {
    match (page.kind, doc) {
        (neardup_ingest::BodyKind::Text, _) => memo.detect_bytes(&page.body),
        (_, Some(doc)) => memo.detect_document(doc, sample),
        (_, None) => Language::UNKNOWN,
    }
}

/// The page's payload SHA-1: its record's `WARC-Payload-Digest` when that is one, else (with
/// `compute`) the SHA-1 of its body, else unknown (zeros).
fn payload_sha1(page: &Page, compute: bool) -> [u8; 20] {
    match neardup_ingest::digest::parse_sha1(&page.payload_digest) {
        Some(d) => d,
        None if compute => neardup_ingest::digest::sha1(&page.body),
        None => [0; 20],
    }
}

/// The page's payload SHA-256: its record's `WARC-Payload-Digest` when that is one, else the
/// SHA-256 of its body.
fn payload_sha256(page: &Page) -> [u8; 32] {
    use neardup_ingest::digest::PayloadDigest;
    match PayloadDigest::parse(&page.payload_digest) {
        Some(PayloadDigest::Sha256(d)) => d,
        _ => neardup_ingest::digest::sha256(&page.body),
    }
}

/// What a page's record keeps of its body's bytes: its payload digests and the XXH3-64 of
/// the body ([`SketchVisitor::body_digests`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyDigests {
    payload_sha1: [u8; 20],
    payload_sha256: Option<[u8; 32]>,
    body_hash: u64,
}

impl BodyDigests {
    /// Of `page`'s body: the SHA-1 its record names or (with `payload`) computes, the SHA-256
    /// with `payload`, the XXH3-64 always.
    fn of(page: &Page, payload: bool) -> BodyDigests {
        BodyDigests {
            payload_sha1: payload_sha1(page, payload),
            payload_sha256: payload.then(|| payload_sha256(page)),
            body_hash: xxhash_rust::xxh3::xxh3_64(&page.body),
        }
    }
}

/// How [`SketchVisitor::keep`] has a page's [`BodyDigests`]: given, or computed (with the
/// payload digests or not) once the page is kept.
#[derive(Clone, Copy)]
struct Digests {
    given: Option<BodyDigests>,
    payload: bool,
}

impl Digests {
    fn of(self, page: &Page) -> BodyDigests {
        self.given
            .unwrap_or_else(|| BodyDigests::of(page, self.payload))
    }
}

fn meta(page: &Page, f: Facts, digests: BodyDigests) -> PageMeta {
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
        body_hash: digests.body_hash,
        payload_sha1: digests.payload_sha1,
        payload_sha256: digests.payload_sha256,
        boilerplate: f.boilerplate,
        shingles: f.shingles.min(u32::MAX as usize) as u32,
        chrome: f.chrome,
        title: f.title,
        language: f.language,
        raw_offset: page.raw_offset,
    }
}

impl SketchVisitor {
    /// Keeps a sketched page (or counts one without a signature): its signatures and facts go
    /// to the current chunk.
    #[allow(clippy::too_many_arguments)]
    fn keep(
        part: &mut SketchPart,
        sink: &CorpusSink,
        digests: Digests,
        page: &Page,
        sketched: Option<neardup_sketch::Sketch<'_>>,
        boilerplate: f64,
        tokens: usize,
        chrome: f32,
        title: [u32; 4],
        language: Language,
        links: impl Iterator<Item = u64>,
        print: Option<&[u8]>,
    ) {
        let Some(s) = sketched else {
            if boilerplate >= 1.0 {
                part.boilerplate_only.push(meta(
                    page,
                    Facts {
                        tokens,
                        token_hash: 0,
                        boilerplate: 1.0,
                        shingles: 0,
                        chrome,
                        title,
                        language,
                    },
                    digests.of(page),
                ));
            } else {
                part.empty += 1;
            }
            return;
        };
        let p = &mut part.current;
        neardup_store::stored_minvalues(s.minvalues, &mut p.minvalues);
        p.supershingles.extend_from_slice(s.supershingles);
        p.simhash.extend_from_slice(s.simhash);
        p.rp.extend_from_slice(s.rp);
        if !s.rp.is_empty() {
            // Outlinks for the hyperlink map: hashed, distinct, increasing.
            let start = p.links.len();
            p.links.extend(links);
            let kept = neardup_store::sort_dedup_tail(&mut p.links, start);
            p.link_lens.push(kept);
        }
        let kept = if sink.keep_shingles || s.distinct <= sink.family.params().exact_sets as usize {
            neardup_store::stored_shingles(s.shingles, &mut p.shingles)
        } else {
            0
        };
        p.shingle_lens.push(kept);
        if let Some(print) = print {
            p.print_lens.push(print.len());
            p.prints.extend_from_slice(print);
        }
        p.pages.push(meta(
            page,
            Facts {
                tokens,
                token_hash: s.token_hash,
                boilerplate: boilerplate as f32,
                shingles: s.distinct,
                chrome,
                title,
                language,
            },
            digests.of(page),
        ));
    }
}

impl Visitor for SketchVisitor {
    type Output = SketchPart;

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
        let given = self.given.take();
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
        let (sketched, boilerplate) = match sketched {
            Some(s) => {
                let b = s.boilerplate;
                (Some(s), b)
            }
            None => (None, self.sketcher.boilerplate_fraction()),
        };
        if self.prints {
            self.print.clear();
            neardup_evolve::change::CapturePrint::new(page.status, &page.body, doc.terms())
                .encode(&mut self.print);
        }
        let digests = Digests {
            given,
            payload: self.payload_digests,
        };
        Self::keep(
            &mut self.part,
            &self.sink,
            digests,
            page,
            sketched,
            boilerplate,
            doc.len(),
            chrome,
            doc.title_key().0,
            page_language(page, Some(doc), &self.sink.languages, &mut self.sample),
            doc.links().map(neardup_dedup::rphm::url_hash),
            self.prints.then_some(&self.print[..]),
        );
    }

    /// Plain text signed over every term needs no document: the sketcher finds and
    /// fingerprints its terms in one pass ([`Sketcher::sketch_text`], the same signature
    /// bit for bit). A text page has no title, links, meta refresh or chrome, so its facts
    /// are those its document would give. Not with a boilerplate filter (it needs the
    /// shingles' host).
    fn plain_text(&mut self, page: &Page, text: &str) -> bool {
        if self.content != neardup_sketch::Content::Page
            || self.boilerplate.is_some()
            || self.prints
        {
            return false;
        }
        if !self.every_status {
            if let Some(why) = NotPage::of(page, None) {
                *self.part.not_pages.entry(why).or_default() += 1;
                return true;
            }
        }
        let sketched = self.sketcher.sketch_text(text);
        let tokens = sketched.as_ref().map_or(0, |s| s.tokens);
        let digests = Digests {
            given: self.given.take(),
            payload: self.payload_digests,
        };
        Self::keep(
            &mut self.part,
            &self.sink,
            digests,
            page,
            sketched,
            0.0,
            tokens,
            0.0,
            *NO_TITLE,
            self.sink.languages.detect(text),
            std::iter::empty(),
            None,
        );
        true
    }

    fn end_batch(&mut self) {
        if self.part.current.pages.is_empty() {
            return;
        }
        let full = {
            let mut b = self
                .sink
                .builder
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            self.part.current.drain_into(&mut b, self.sink.shape);
            match &self.sink.spill {
                Some((budget, _)) if b.heap_bytes() >= *budget => Some(std::mem::replace(
                    &mut *b,
                    Corpus::builder(self.sink.family.clone(), Vec::new()),
                )),
                _ => None,
            }
        };
        if let (Some(full), Some((_, to))) = (full, &self.sink.spill) {
            to.spill(full);
        }
    }

    fn finish(mut self) -> SketchPart {
        self.end_batch();
        self.part
    }
}

/// The corpus of a run: the sink's pages put in input order (in place), the workers' counts.
pub fn assemble(sink: CorpusSink, run: RunOutput<SketchPart>) -> (Corpus, Vec<SourceReport>) {
    let CorpusSink { builder, .. } = sink;
    let mut b = match Arc::try_unwrap(builder) {
        Ok(m) => m
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
        Err(_) => unreachable!("every visitor, and so every clone of the sink, ended with the run"),
    };
    b.set_inputs(run.sources.iter().map(|r| r.path.clone()).collect());
    let (mut empty, mut other) = (0, 0);
    for part in run.outputs {
        empty += part.empty;
        other += part.other;
        for (why, n) in &part.not_pages {
            b.count_not_page(&why.name(), *n);
        }
        b.boilerplate_only(part.boilerplate_only);
    }
    b.count_unsketched(empty, other);
    b.sort_by_id();
    (b.build(), run.sources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_sketch::{Content, SketchParams};

    /// The corpus of `pages` sketched by one visitor, offered each text page untokenized
    /// (`plain`) or always visited with its document.
    fn corpus(params: &SketchParams, pages: &[Page], plain: bool) -> Corpus {
        let sink = CorpusSink::new(Family::new(params), false);
        let mut v = SketchVisitor::new(&sink);
        let tok = neardup_text::Tokenizer::default();
        let mut doc = Document::new();
        for page in pages {
            let text = std::str::from_utf8(&page.body).ok();
            let taken = plain
                && page.kind == neardup_ingest::BodyKind::Text
                && text.is_some_and(|t| v.plain_text(page, t));
            if !taken {
                let analyzed = crate::stream::analyze(&tok, page, &mut doc);
                v.visit(page, analyzed.then_some(&doc));
            }
        }
        let part = v.finish();
        assert_eq!(part.empty + part.other, 0);
        sink.take()
    }

    /// Text pages sketched untokenized give the corpus their documents give, fact for fact and
    /// value for value, and only with signatures over every term.
    #[test]
    fn plain_text_pages_are_sketched_as_their_documents() {
        let texts = [
            "The quick brown fox jumps over the lazy dog. The quick brown fox jumps again!",
            "Über den Fluß: 東京タワー, v2.0 — ΣΑΣ İstanbul\ncafé\u{301} 😀emoji\r\n\r\nnext",
            "one",
            "a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9",
            "fn main() { println!(\"Hello, world!\"); } // Rust's SIGNATURE_VERSION 5",
        ];
        let mut pages: Vec<Page> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut p = Page::text(format!("http://example.com/{i}"), *t);
                p.id = neardup_ingest::PageId {
                    source: 0,
                    ordinal: i as u32,
                };
                p
            })
            .collect();
        let mut html = Page::html("http://example.com/h", "<title>T</title><p>Some html text");
        html.id = neardup_ingest::PageId {
            source: 0,
            ordinal: 9,
        };
        pages.push(html);
        let mut gone = Page::text("http://example.com/gone", "not found");
        gone.status = Some(404);
        pages.push(gone);
        for content in [Content::Page, Content::Main] {
            let mut params = SketchParams::default().with_minhashes(128);
            params.content = content;
            params.k = 3;
            params.wrap = false;
            let (a, b) = (
                corpus(&params, &pages, true),
                corpus(&params, &pages, false),
            );
            assert_eq!(a.len(), 6);
            assert_eq!(a.len(), b.len());
            for p in 0..a.len() {
                assert_eq!(format!("{:?}", a.page(p)), format!("{:?}", b.page(p)));
                assert_eq!(a.minvalues(p), b.minvalues(p));
                assert_eq!(a.supershingles(p), b.supershingles(p));
                assert_eq!(a.shingles(p), b.shingles(p));
            }
        }
    }
}

//! The signatures of a whole crawl in memory: page facts plus flat arrays of minvalues and
//! supershingles, indexed by dense page number (input order: input index, then record ordinal).

use crate::pipeline::{RunOutput, SourceReport, Visitor};
use neardup_ingest::{Page, PageId};
use neardup_sketch::{Family, PageRecord, SignatureReader, Sketcher};
use neardup_text::Document;
use std::sync::Arc;

/// What is kept of a page.
#[derive(Clone, Debug, Default)]
pub struct PageMeta {
    /// Stable id.
    pub id: PageId,
    /// URL.
    pub url: String,
    /// The user's id (JSONL/Parquet id field) or WARC-Record-ID.
    pub user_id: String,
    /// Host, lowercased.
    pub host: String,
    /// Server IP.
    pub ip: String,
    /// Fetch date.
    pub date: String,
    /// Number of terms.
    pub tokens: u32,
    /// Token-sequence hash (identity sets).
    pub token_hash: u64,
    /// XXH3-64 of the raw body (byte-identical pages).
    pub body_hash: u64,
    /// Share of the page's shingles that were host boilerplate (0 without detection).
    pub boilerplate: f32,
}

/// Signatures and facts of every sketched page.
#[derive(Debug)]
pub struct Corpus {
    /// The parameters of every signature.
    pub family: Arc<Family>,
    /// Input paths (a page's `id.source` indexes this).
    pub inputs: Vec<String>,
    /// Pages in input order.
    pub pages: Vec<PageMeta>,
    /// `m` minvalues per page.
    pub minvalues: Vec<u64>,
    /// `m'` supershingles per page.
    pub supershingles: Vec<u64>,
    /// Simhash words per page (`simhash_bits / 64`, possibly none).
    pub simhash: Vec<u64>,
    /// Raw random projections, `rp_dims` per page (possibly none).
    pub rp: Vec<i64>,
    /// Outlink hashes per page (kept when `rp_dims > 0`): offsets into `links`,
    /// `pages.len() + 1` of them, or empty.
    pub link_offsets: Vec<usize>,
    /// See `link_offsets`; each page's hashes are distinct and increasing.
    pub links: Vec<u64>,
    /// Sorted distinct shingle pre-images per page (kept only for `--verify`): offsets into
    /// `shingles`, `pages.len() + 1` of them.
    pub shingle_offsets: Vec<usize>,
    /// See `shingle_offsets`.
    pub shingles: Vec<u64>,
    /// HTML/text pages without a single term (no signature; never near-duplicates).
    pub empty_pages: u64,
    /// Pages of other content types (not sketched).
    pub other_pages: u64,
    /// Pages whose every shingle was host boilerplate (no signature; reported), in input order.
    pub boilerplate_only: Vec<PageMeta>,
}

impl Corpus {
    /// A corpus without pages (pages and their signatures are pushed onto the public vectors).
    pub fn new(family: Arc<Family>, inputs: Vec<String>) -> Corpus {
        Corpus {
            family,
            inputs,
            pages: Vec::new(),
            minvalues: Vec::new(),
            supershingles: Vec::new(),
            simhash: Vec::new(),
            rp: Vec::new(),
            link_offsets: Vec::new(),
            links: Vec::new(),
            shingle_offsets: Vec::new(),
            shingles: Vec::new(),
            empty_pages: 0,
            other_pages: 0,
            boilerplate_only: Vec::new(),
        }
    }

    /// Minvalues of page `p`.
    pub fn minvalues(&self, p: u32) -> &[u64] {
        let m = self.family.params().m as usize;
        &self.minvalues[p as usize * m..(p as usize + 1) * m]
    }

    /// Supershingles of page `p`.
    pub fn supershingles(&self, p: u32) -> &[u64] {
        let s = self.family.params().supershingles as usize;
        &self.supershingles[p as usize * s..(p as usize + 1) * s]
    }

    /// Simhash of page `p` (empty when not computed).
    pub fn simhash(&self, p: u32) -> &[u64] {
        let w = self.family.params().simhash_words();
        &self.simhash[p as usize * w..(p as usize + 1) * w]
    }

    /// Raw random projection of page `p` (empty when not computed).
    pub fn rp(&self, p: u32) -> &[i64] {
        let k = self.family.params().rp_dims as usize;
        &self.rp[p as usize * k..(p as usize + 1) * k]
    }

    /// Outlink hashes of page `p` (empty when not kept).
    pub fn links(&self, p: u32) -> &[u64] {
        if self.link_offsets.len() != self.pages.len() + 1 {
            return &[];
        }
        &self.links[self.link_offsets[p as usize]..self.link_offsets[p as usize + 1]]
    }

    /// Shingle set of page `p`, when kept.
    pub fn shingles(&self, p: u32) -> Option<&[u64]> {
        if self.shingle_offsets.len() != self.pages.len() + 1 {
            return None;
        }
        Some(&self.shingles[self.shingle_offsets[p as usize]..self.shingle_offsets[p as usize + 1]])
    }

    /// Number of pages.
    pub fn len(&self) -> u32 {
        self.pages.len() as u32
    }

    /// True without pages.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// A page as a signature-file record.
    pub fn record(&self, p: u32) -> PageRecord {
        let m = &self.pages[p as usize];
        PageRecord {
            source: m.id.source,
            ordinal: m.id.ordinal,
            tokens: m.tokens,
            token_hash: m.token_hash,
            body_hash: m.body_hash,
            minvalues: self.minvalues(p).to_vec(),
            supershingles: self.supershingles(p).to_vec(),
            simhash: self.simhash(p).to_vec(),
            rp: self.rp(p).to_vec(),
            links: self.links(p).to_vec(),
            url: m.url.clone(),
            user_id: m.user_id.clone(),
            ip: m.ip.clone(),
            date: m.date.clone(),
            host: m.host.clone(),
        }
    }

    /// Adds the pages of a signature file, its inputs appended to this corpus's inputs.
    pub fn add_signature_file(&mut self, file: SignatureReader) {
        let base = self.inputs.len() as u32;
        self.inputs.extend(file.inputs);
        let keep_links = self.family.params().rp_dims > 0;
        if keep_links && self.link_offsets.is_empty() {
            self.link_offsets.push(0);
        }
        for r in file.records {
            self.pages.push(PageMeta {
                id: PageId {
                    source: base + r.source,
                    ordinal: r.ordinal,
                },
                url: r.url,
                user_id: r.user_id,
                host: r.host,
                ip: r.ip,
                date: r.date,
                tokens: r.tokens,
                token_hash: r.token_hash,
                body_hash: r.body_hash,
                boilerplate: 0.0,
            });
            self.minvalues.extend(&r.minvalues);
            self.supershingles.extend(&r.supershingles);
            self.simhash.extend(&r.simhash);
            self.rp.extend(&r.rp);
            if keep_links {
                self.links.extend(&r.links);
                self.link_offsets.push(self.links.len());
            }
        }
        self.shingle_offsets.clear();
    }
}

/// What the [`neardup_cluster::Keep`] rules look at.
impl neardup_cluster::PageFacts for Corpus {
    fn url_len(&self, p: u32) -> usize {
        self.pages[p as usize].url.len()
    }
    fn tokens(&self, p: u32) -> u32 {
        self.pages[p as usize].tokens
    }
    fn date(&self, p: u32) -> &str {
        &self.pages[p as usize].date
    }
}

/// Per-worker part of a corpus.
pub struct SketchPart {
    pages: Vec<PageMeta>,
    minvalues: Vec<u64>,
    supershingles: Vec<u64>,
    simhash: Vec<u64>,
    rp: Vec<i64>,
    link_lens: Vec<usize>,
    links: Vec<u64>,
    shingle_lens: Vec<usize>,
    shingles: Vec<u64>,
    empty: u64,
    other: u64,
    boilerplate_only: Vec<PageMeta>,
}

/// Sketches every HTML/text page (one per worker).
pub struct SketchVisitor {
    sketcher: Sketcher,
    keep_shingles: bool,
    boilerplate: Option<Arc<crate::boilerplate::BoilerplateFilter>>,
    part: SketchPart,
}

impl SketchVisitor {
    /// A visitor for a family; `keep_shingles` keeps each page's shingle set (for `--verify`).
    pub fn new(family: Arc<Family>, keep_shingles: bool) -> SketchVisitor {
        SketchVisitor {
            sketcher: Sketcher::new(family),
            keep_shingles,
            part: SketchPart {
                pages: Vec::new(),
                minvalues: Vec::new(),
                supershingles: Vec::new(),
                simhash: Vec::new(),
                rp: Vec::new(),
                link_lens: Vec::new(),
                links: Vec::new(),
                shingle_lens: Vec::new(),
                shingles: Vec::new(),
                empty: 0,
                other: 0,
                boilerplate_only: Vec::new(),
            },
            boilerplate: None,
        }
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

fn meta(page: &Page, tokens: usize, token_hash: u64, boilerplate: f32) -> PageMeta {
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
        tokens: tokens.min(u32::MAX as usize) as u32,
        token_hash,
        body_hash: xxhash_rust::xxh3::xxh3_64(&page.body),
        boilerplate,
    }
}

impl Visitor for SketchVisitor {
    type Output = SketchPart;

    fn visit(&mut self, page: &Page, doc: Option<&Document>) {
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
            self.sketcher.sketch_filtered(doc.terms(), Some(&is_bp))
        } else {
            self.sketcher.sketch(doc.terms())
        };
        let Some(s) = sketched else {
            if self.sketcher.boilerplate_fraction() >= 1.0 {
                self.part
                    .boilerplate_only
                    .push(meta(page, doc.len(), 0, 1.0));
            } else {
                self.part.empty += 1;
            }
            return;
        };
        let p = &mut self.part;
        p.minvalues.extend_from_slice(s.minvalues);
        p.supershingles.extend_from_slice(s.supershingles);
        p.simhash.extend_from_slice(s.simhash);
        p.rp.extend_from_slice(s.rp);
        if !s.rp.is_empty() {
            // Outlinks for the hyperlink map: hashed, distinct, increasing.
            let start = p.links.len();
            p.links.extend(doc.links().map(crate::rphm::url_hash));
            let kept = crate::rphm::sort_dedup_tail(&mut p.links, start);
            p.link_lens.push(kept);
        }
        if self.keep_shingles {
            p.shingles.extend_from_slice(s.shingles);
            p.shingle_lens.push(s.shingles.len());
        }
        let token_hash = s.token_hash;
        let fraction = self.sketcher.boilerplate_fraction() as f32;
        p.pages.push(meta(page, doc.len(), token_hash, fraction));
    }

    fn finish(self) -> SketchPart {
        self.part
    }
}

/// Merges the workers' parts into a corpus in input order.
pub fn assemble(
    family: Arc<Family>,
    run: RunOutput<SketchPart>,
    keep_shingles: bool,
) -> (Corpus, Vec<SourceReport>) {
    let m = family.params().m as usize;
    let s = family.params().supershingles as usize;
    let sw = family.params().simhash_words();
    let k = family.params().rp_dims as usize;
    // (page id, part, index in part)
    let mut order: Vec<(PageId, usize, usize)> = Vec::new();
    let mut shingle_starts: Vec<Vec<usize>> = Vec::new();
    let mut link_starts: Vec<Vec<usize>> = Vec::new();
    for (w, part) in run.outputs.iter().enumerate() {
        order.extend(part.pages.iter().enumerate().map(|(i, p)| (p.id, w, i)));
        link_starts.push(prefix_sums(&part.link_lens));
        shingle_starts.push(prefix_sums(&part.shingle_lens));
    }
    order.sort_unstable();
    let n = order.len();
    let mut corpus = Corpus {
        family,
        inputs: run.sources.iter().map(|r| r.path.clone()).collect(),
        pages: Vec::with_capacity(n),
        minvalues: Vec::with_capacity(n * m),
        supershingles: Vec::with_capacity(n * s),
        simhash: Vec::with_capacity(n * sw),
        rp: Vec::with_capacity(n * k),
        link_offsets: Vec::new(),
        links: Vec::new(),
        shingle_offsets: Vec::new(),
        shingles: Vec::new(),
        empty_pages: run.outputs.iter().map(|p| p.empty).sum(),
        other_pages: run.outputs.iter().map(|p| p.other).sum(),
        boilerplate_only: {
            let mut v: Vec<PageMeta> = run
                .outputs
                .iter()
                .flat_map(|p| p.boilerplate_only.iter().cloned())
                .collect();
            v.sort_by_key(|m| m.id);
            v
        },
    };
    if keep_shingles {
        corpus.shingle_offsets.push(0);
    }
    if k > 0 {
        corpus.link_offsets.push(0);
    }
    for &(_, w, i) in &order {
        let part = &run.outputs[w];
        corpus.pages.push(part.pages[i].clone());
        corpus
            .minvalues
            .extend_from_slice(&part.minvalues[i * m..(i + 1) * m]);
        corpus
            .supershingles
            .extend_from_slice(&part.supershingles[i * s..(i + 1) * s]);
        corpus
            .simhash
            .extend_from_slice(&part.simhash[i * sw..(i + 1) * sw]);
        if k > 0 {
            corpus.rp.extend_from_slice(&part.rp[i * k..(i + 1) * k]);
            let st = &link_starts[w];
            corpus
                .links
                .extend_from_slice(&part.links[st[i]..st[i + 1]]);
            corpus.link_offsets.push(corpus.links.len());
        }
        if keep_shingles {
            let st = &shingle_starts[w];
            corpus
                .shingles
                .extend_from_slice(&part.shingles[st[i]..st[i + 1]]);
            corpus.shingle_offsets.push(corpus.shingles.len());
        }
    }
    (corpus, run.sources)
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

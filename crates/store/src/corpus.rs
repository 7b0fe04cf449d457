//! The signatures of a whole crawl in memory: page facts plus flat arrays of minvalues and
//! supershingles, indexed by dense page number (input order: input index, then record ordinal).

use crate::sigfile::{PageRecord, SignatureReader};
use neardup_ingest::PageId;
use neardup_sketch::Family;
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

//! The signatures of a whole crawl in memory: page facts plus flat arrays of minvalues,
//! supershingles, simhashes, random projections, outlinks and shingle sets, indexed by dense
//! page number (input order: input index, then record ordinal). Built by [`CorpusBuilder`],
//! which checks every page's signatures against the family's parameters; read through
//! accessors.
//!
//! Minvalues and shingle sets are kept as 32-bit values: the low 32 bits of each minvalue and of
//! each shingle pre-image. Equality, all an estimate or a set comparison uses, is the same but
//! with probability `2^-32` per comparison, and a page takes half the room.

mod permute;

use crate::shape::ShapeError;
use crate::sigfile::{PageRecord, SigFileError, SignatureReader};
use neardup_ingest::PageId;
use neardup_sketch::Family;
use neardup_text::language::Language;
use permute::{permute_ranges, permute_rows};
use rayon::slice::ParallelSliceMut;
use std::io::Read;
use std::sync::Arc;

/// What is kept of a page, its strings as `S`: owned in [`PageMeta`] (what is pushed onto a
/// corpus), borrowed from the corpus in [`PageRef`] (what it gives back).
#[derive(Clone, Copy, Debug, Default)]
pub struct PageInfo<S> {
    /// Stable id.
    pub id: PageId,
    /// URL.
    pub url: S,
    /// The user's id (JSONL/Parquet id field) or WARC-Record-ID.
    pub user_id: S,
    /// Host, lowercased.
    pub host: S,
    /// Server IP.
    pub ip: S,
    /// Fetch date.
    pub date: S,
    /// Number of terms.
    pub tokens: u32,
    /// Token-sequence hash (identity sets).
    pub token_hash: u64,
    /// XXH3-64 of the raw body (byte-identical pages).
    pub body_hash: u64,
    /// SHA-1 of the payload (the record's `WARC-Payload-Digest`, or computed when the run asks
    /// for it); zeros when unknown (and in signature files, which do not keep it).
    pub payload_sha1: [u8; 20],
    /// SHA-256 of the payload, when the run computes payload digests (the index's adds and
    /// lookups); `None` otherwise.
    pub payload_sha256: Option<[u8; 32]>,
    /// Share of the page's shingles that were host boilerplate (0 without detection).
    pub boilerplate: f32,
    /// Distinct shingles the signatures were taken over (for containment estimates).
    pub shingles: u32,
    /// Share of the page's terms left out as chrome (0 when the whole page was used).
    pub chrome: f32,
    /// The title's segment hashes (`neardup_text::TitleKey`), zeros for none.
    pub title: [u32; 4],
    /// The page's language (`neardup_text::language`; unknown in signature files of
    /// version 5, which do not keep it).
    pub language: Language,
    /// Where the page's record can be read alone in its input file
    /// (`neardup_ingest::Page::raw_offset`); `None` for other inputs, and in signature files,
    /// which do not keep it.
    pub raw_offset: Option<u64>,
}

/// A page with its strings owned.
pub type PageMeta = PageInfo<String>;

/// A page of a [`Corpus`], borrowing its strings.
pub type PageRef<'a> = PageInfo<&'a str>;

impl<S: AsRef<str>> PageInfo<S> {
    /// The page with its strings borrowed, as a corpus gives its pages.
    pub fn as_ref(&self) -> PageRef<'_> {
        PageInfo {
            id: self.id,
            url: self.url.as_ref(),
            user_id: self.user_id.as_ref(),
            host: self.host.as_ref(),
            ip: self.ip.as_ref(),
            date: self.date.as_ref(),
            tokens: self.tokens,
            token_hash: self.token_hash,
            body_hash: self.body_hash,
            payload_sha1: self.payload_sha1,
            payload_sha256: self.payload_sha256,
            boilerplate: self.boilerplate,
            shingles: self.shingles,
            chrome: self.chrome,
            title: self.title,
            language: self.language,
            raw_offset: self.raw_offset,
        }
    }
}

/// A page as a corpus keeps it: [`PageInfo`]'s facts, its URL, user id and date in the
/// corpus's text arena, its host and IP interned.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    id: PageId,
    /// Where the URL, then the user id, then the date start in `text`.
    text_at: u64,
    url_len: u32,
    user_id_len: u32,
    date_len: u32,
    /// The page's shingle set: `shingles[shingles_at..shingles_at + shingles_len]` (none kept
    /// when empty). Sorting pages moves only this row, never the set.
    shingles_at: u64,
    shingles_len: u32,
    /// The capture print's bytes: `prints[prints_at..prints_at + prints_len]` (none when
    /// empty).
    prints_at: u64,
    prints_len: u32,
    host: u32,
    ip: u32,
    tokens: u32,
    token_hash: u64,
    body_hash: u64,
    payload_sha1: [u8; 20],
    /// The payload's SHA-256 in `sha256s`, `u32::MAX` for none.
    sha256_at: u32,
    boilerplate: f32,
    shingles: u32,
    chrome: f32,
    title: [u32; 4],
    language: Language,
    /// `u64::MAX` for none.
    raw_offset: u64,
}

/// Strings that repeat (hosts, IPs), each held once.
#[derive(Debug, Default)]
struct Interner {
    strings: Vec<Box<str>>,
    index: std::collections::HashMap<Box<str>, u32>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.into());
        self.index.insert(s.into(), i);
        i
    }
}

/// Signatures and facts of every sketched page.
#[derive(Debug)]
pub struct Corpus {
    family: Arc<Family>,
    inputs: Vec<String>,
    pages: Vec<Row>,
    /// Every page's URL, user id and date, one after the other.
    text: String,
    /// Hosts and IPs.
    names: Interner,
    minvalues: Vec<u32>,
    supershingles: Vec<u64>,
    simhash: Vec<u64>,
    rp: Vec<i64>,
    /// `pages.len() + 1` offsets into `links` when outlinks are kept (`rp_dims > 0`), else empty.
    link_offsets: Vec<usize>,
    links: Vec<u64>,
    /// Every kept shingle set, where the pages' rows say.
    shingles: Vec<u32>,
    /// Every kept capture print (`neardup_evolve::change::CapturePrint::encode`'s bytes,
    /// opaque here), where the pages' rows say.
    prints: Vec<u8>,
    /// Payload SHA-256s, where the pages' rows say.
    sha256s: Vec<[u8; 32]>,
    empty_pages: u64,
    other_pages: u64,
    not_pages: std::collections::BTreeMap<String, u64>,
    boilerplate_only: Vec<PageMeta>,
    /// Inputs that are references (indexed by source; shorter means the rest are not).
    references: Vec<bool>,
}

/// One page's signatures, as pushed onto a [`CorpusBuilder`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Signatures<'a> {
    /// `m` minvalues (their low 32 bits: [`stored_minvalues`]).
    pub minvalues: &'a [u32],
    /// `m'` supershingles.
    pub supershingles: &'a [u64],
    /// `simhash_bits / 64` words (or none when the parameters make none).
    pub simhash: &'a [u64],
    /// `rp_dims` raw projections (or none).
    pub rp: &'a [i64],
    /// Distinct increasing outlink hashes (kept when `rp_dims > 0`).
    pub links: &'a [u64],
    /// The page's shingle set, when kept: the low 32 bits of its pre-images, sorted and
    /// distinct ([`stored_shingles`]); empty when not kept.
    pub shingles: &'a [u32],
    /// The page's capture print (opaque bytes, versioned by their writer), empty when not
    /// kept.
    pub print: &'a [u8],
}

/// The minvalues as a corpus keeps them: the low 32 bits of each, appended to `out`.
pub fn stored_minvalues(minvalues: &[u64], out: &mut Vec<u32>) {
    out.extend(minvalues.iter().map(|&v| v as u32));
}

/// A shingle set as a corpus keeps it: the low 32 bits of each pre-image, sorted and distinct,
/// appended to `out`; returns how many.
pub fn stored_shingles(pre_images: &[u64], out: &mut Vec<u32>) -> usize {
    let start = out.len();
    out.extend(pre_images.iter().map(|&v| v as u32));
    sort_dedup_tail(out, start)
}

/// Sorts `v[start..]` and removes repeats from it in place; returns its new length.
pub fn sort_dedup_tail<T: Ord + Copy>(v: &mut Vec<T>, start: usize) -> usize {
    v[start..].sort_unstable();
    let mut w = start;
    for i in start..v.len() {
        if w == start || v[i] != v[w - 1] {
            v[w] = v[i];
            w += 1;
        }
    }
    v.truncate(w);
    w - start
}

/// Builds a [`Corpus`] page by page.
#[derive(Debug)]
pub struct CorpusBuilder {
    c: Corpus,
}

impl CorpusBuilder {
    /// Reserves room for `pages` more pages.
    pub fn reserve(&mut self, pages: usize) {
        let p = self.c.family.params();
        self.c.pages.reserve(pages);
        self.c.minvalues.reserve(pages * p.m as usize);
        self.c
            .supershingles
            .reserve(pages * p.supershingles as usize);
        self.c.simhash.reserve(pages * p.simhash_words());
        self.c.rp.reserve(pages * p.rp_dims as usize);
    }

    /// Pages pushed so far.
    pub fn len(&self) -> usize {
        self.c.pages.len()
    }

    /// Whether no page was pushed.
    pub fn is_empty(&self) -> bool {
        self.c.pages.is_empty()
    }

    /// Bytes the builder's pages take on the heap (capacities of its arrays; interned names
    /// counted by their text), what a caller holding it under a memory limit compares.
    pub fn heap_bytes(&self) -> usize {
        fn cap<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        let c = &self.c;
        cap(&c.pages)
            + c.text.capacity()
            + c.names
                .strings
                .iter()
                .map(|s| 2 * s.len() + 48)
                .sum::<usize>()
            + cap(&c.minvalues)
            + cap(&c.supershingles)
            + cap(&c.simhash)
            + cap(&c.rp)
            + cap(&c.link_offsets)
            + cap(&c.links)
            + cap(&c.shingles)
            + cap(&c.prints)
            + cap(&c.sha256s)
    }

    /// Appends a page and its signatures.
    pub fn push(&mut self, meta: PageMeta, s: Signatures) -> Result<(), ShapeError> {
        let family = self.c.family.clone();
        let p = family.params();
        let check = |what, expected: usize, got: usize| {
            if expected == got {
                Ok(())
            } else {
                Err(ShapeError {
                    url: meta.url.clone(),
                    what,
                    expected,
                    got,
                })
            }
        };
        check("minvalues", p.m as usize, s.minvalues.len())?;
        check(
            "supershingles",
            p.supershingles as usize,
            s.supershingles.len(),
        )?;
        check("simhash", p.simhash_words(), s.simhash.len())?;
        check("random projection", p.rp_dims as usize, s.rp.len())?;
        let c = &mut self.c;
        c.minvalues.extend_from_slice(s.minvalues);
        c.supershingles.extend_from_slice(s.supershingles);
        c.simhash.extend_from_slice(s.simhash);
        c.rp.extend_from_slice(s.rp);
        if p.rp_dims > 0 {
            c.links.extend_from_slice(s.links);
            c.link_offsets.push(c.links.len());
        }
        let shingles_at = c.shingles.len() as u64;
        c.shingles.extend_from_slice(s.shingles);
        let prints_at = c.prints.len() as u64;
        c.prints.extend_from_slice(s.print);
        let sha256_at = match meta.payload_sha256 {
            Some(d) if c.sha256s.len() < u32::MAX as usize => {
                c.sha256s.push(d);
                (c.sha256s.len() - 1) as u32
            }
            _ => u32::MAX,
        };
        let text_at = c.text.len() as u64;
        for s in [&meta.url, &meta.user_id, &meta.date] {
            c.text.push_str(s);
        }
        let len = |s: &str| s.len().min(u32::MAX as usize) as u32;
        let len_of = |s: &[u32]| s.len().min(u32::MAX as usize) as u32;
        c.pages.push(Row {
            id: meta.id,
            text_at,
            url_len: len(&meta.url),
            user_id_len: len(&meta.user_id),
            date_len: len(&meta.date),
            shingles_at,
            shingles_len: len_of(s.shingles),
            prints_at,
            prints_len: s.print.len().min(u32::MAX as usize) as u32,
            host: c.names.intern(&meta.host),
            ip: c.names.intern(&meta.ip),
            tokens: meta.tokens,
            token_hash: meta.token_hash,
            body_hash: meta.body_hash,
            payload_sha1: meta.payload_sha1,
            sha256_at,
            boilerplate: meta.boilerplate,
            shingles: meta.shingles,
            chrome: meta.chrome,
            title: meta.title,
            language: meta.language,
            raw_offset: meta.raw_offset.unwrap_or(u64::MAX),
        });
        Ok(())
    }

    /// Counts HTML/text pages without a single term, and pages of other content types.
    pub fn count_unsketched(&mut self, without_terms: u64, other: u64) {
        self.c.empty_pages += without_terms;
        self.c.other_pages += other;
    }

    /// Counts `n` responses that are not pages (by status, `meta-refresh` or `soft-404`).
    pub fn count_not_page(&mut self, why: &str, n: u64) {
        match self.c.not_pages.get_mut(why) {
            Some(c) => *c += n,
            None => {
                self.c.not_pages.insert(why.to_string(), n);
            }
        }
    }

    /// Pages whose every shingle was host boilerplate (no signature; reported).
    pub fn boilerplate_only(&mut self, pages: impl IntoIterator<Item = PageMeta>) {
        self.c.boilerplate_only.extend(pages);
    }

    /// Appends the pages of a signature file, its inputs after this corpus's inputs; reads it
    /// record by record (never the whole file at once) and fails on the first damaged record
    /// or a checksum that does not match.
    pub fn add_signature_file<R: Read>(
        &mut self,
        mut file: SignatureReader<R>,
    ) -> Result<(), SigFileError> {
        let base = self.c.inputs.len() as u32;
        self.c.inputs.extend(file.inputs.iter().cloned());
        let mut r = PageRecord::default();
        while file.next_record(&mut r)? {
            let meta = PageMeta {
                id: PageId {
                    source: base + r.source,
                    ordinal: r.ordinal,
                },
                url: std::mem::take(&mut r.url),
                user_id: std::mem::take(&mut r.user_id),
                host: std::mem::take(&mut r.host),
                ip: std::mem::take(&mut r.ip),
                date: std::mem::take(&mut r.date),
                tokens: r.tokens,
                token_hash: r.token_hash,
                body_hash: r.body_hash,
                payload_sha1: [0; 20],
                payload_sha256: None,
                boilerplate: 0.0,
                shingles: r.shingles,
                chrome: r.chrome,
                title: r.title,
                language: r.language,
                raw_offset: None,
            };
            let sigs = Signatures {
                minvalues: &r.minvalues,
                supershingles: &r.supershingles,
                simhash: &r.simhash,
                rp: &r.rp,
                links: &r.links,
                shingles: &r.shingle_set,
                print: &r.print,
            };
            self.push(meta, sigs).map_err(|e| file.shape_error(e))?;
        }
        Ok(())
    }

    /// Sets the input paths (a page's `id.source` indexes them), for builders created before
    /// the inputs were known.
    pub fn set_inputs(&mut self, inputs: Vec<String>) {
        self.c.inputs = inputs;
    }

    /// Puts the pages pushed so far in id order, moving their signatures in place (fixed-size
    /// rows by following the permutation's cycles with one row of scratch; outlinks, of
    /// varying length, by one copy; strings and shingle sets stay where they are, the rows
    /// that point at them move). For builders fed in arrival order by
    /// several threads, so that nothing is held twice.
    pub fn sort_by_id(&mut self) {
        let c = &mut self.c;
        if c.pages.windows(2).all(|w| w[0].id <= w[1].id) {
            return;
        }
        // order[i] = the pushed position of the page that goes to position i (sorted on the
        // current rayon pool; positions break ties, so the order is one).
        let mut keyed: Vec<(PageId, u32)> = (c.pages.iter().enumerate())
            .map(|(i, p)| (p.id, i as u32))
            .collect();
        keyed.par_sort_unstable();
        let order: Vec<u32> = keyed.into_iter().map(|(_, i)| i).collect();
        let p = c.family.params().clone();
        // Each array in place on its own, side by side (every array was a serial tenth of a
        // second on a million pages, between the workers' end and candidates).
        let order = &order[..];
        rayon::join(
            || permute_rows(&mut c.minvalues, p.m as usize, order),
            || {
                rayon::join(
                    || permute_rows(&mut c.pages, 1, order),
                    || {
                        permute_rows(&mut c.supershingles, p.supershingles as usize, order);
                        permute_rows(&mut c.simhash, p.simhash_words(), order);
                        permute_rows(&mut c.rp, p.rp_dims as usize, order);
                        permute_ranges(&mut c.link_offsets, &mut c.links, order);
                    },
                )
            },
        );
    }

    /// The corpus. Pages are in the order pushed; boilerplate-only pages are sorted by id.
    pub fn build(mut self) -> Corpus {
        self.c.boilerplate_only.sort_by_key(|m| m.id);
        self.c
    }
}

/// A corpus's signatures taken out of it ([`Corpus::take_signatures`]): dropping it frees them.
#[must_use = "dropping it frees the signatures; take them to free them elsewhere"]
pub struct TakenSignatures {
    #[allow(dead_code, clippy::type_complexity)]
    _arrays: (
        Vec<u32>,
        Vec<u64>,
        Vec<u64>,
        Vec<i64>,
        Vec<usize>,
        Vec<u64>,
        Vec<u32>,
        Vec<u8>,
    ),
}

impl Corpus {
    /// A builder for pages of `family`'s signatures read from `inputs`.
    pub fn builder(family: Arc<Family>, inputs: Vec<String>) -> CorpusBuilder {
        let links = family.params().rp_dims > 0;
        CorpusBuilder {
            c: Corpus {
                family,
                inputs,
                pages: Vec::new(),
                text: String::new(),
                names: Interner::default(),
                minvalues: Vec::new(),
                supershingles: Vec::new(),
                simhash: Vec::new(),
                rp: Vec::new(),
                link_offsets: if links { vec![0] } else { Vec::new() },
                links: Vec::new(),
                shingles: Vec::new(),
                prints: Vec::new(),
                sha256s: Vec::new(),
                empty_pages: 0,
                other_pages: 0,
                not_pages: Default::default(),
                boilerplate_only: Vec::new(),
                references: Vec::new(),
            },
        }
    }

    /// Turns the corpus back into a builder, to append more pages.
    pub fn into_builder(self) -> CorpusBuilder {
        CorpusBuilder { c: self }
    }

    /// The parameters of every signature.
    pub fn family(&self) -> &Arc<Family> {
        &self.family
    }

    /// Input paths (a page's `id.source` indexes this).
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// Marks inputs (by their index, as given to the run) as references: a cluster holding a
    /// page of one keeps that page ([`neardup_cluster::PageFacts::reference`]).
    pub fn set_references(&mut self, sources: &[usize]) {
        self.references.clear();
        for &s in sources {
            if s >= self.references.len() {
                self.references.resize(s + 1, false);
            }
            self.references[s] = true;
        }
    }

    /// Whether input `source` is a reference.
    pub fn is_reference(&self, source: u32) -> bool {
        self.references
            .get(source as usize)
            .copied()
            .unwrap_or(false)
    }

    /// Pages in input order.
    pub fn pages(&self) -> impl ExactSizeIterator<Item = PageRef<'_>> + '_ {
        self.pages.iter().map(|r| self.view(r))
    }

    /// Page `p`.
    pub fn page(&self, p: u32) -> PageRef<'_> {
        self.view(&self.pages[p as usize])
    }

    fn view<'a>(&'a self, r: &Row) -> PageRef<'a> {
        let at = r.text_at as usize;
        let (u, i, d) = (
            r.url_len as usize,
            r.user_id_len as usize,
            r.date_len as usize,
        );
        PageInfo {
            id: r.id,
            url: &self.text[at..at + u],
            user_id: &self.text[at + u..at + u + i],
            date: &self.text[at + u + i..at + u + i + d],
            host: &self.names.strings[r.host as usize],
            ip: &self.names.strings[r.ip as usize],
            tokens: r.tokens,
            token_hash: r.token_hash,
            body_hash: r.body_hash,
            payload_sha1: r.payload_sha1,
            payload_sha256: self.sha256s.get(r.sha256_at as usize).copied(),
            boilerplate: r.boilerplate,
            shingles: r.shingles,
            chrome: r.chrome,
            title: r.title,
            language: r.language,
            raw_offset: (r.raw_offset != u64::MAX).then_some(r.raw_offset),
        }
    }

    /// Page numbers by URL (the last page of a URL held more than once: the latest input).
    pub fn url_index(&self) -> std::collections::HashMap<&str, u32> {
        self.pages()
            .enumerate()
            .map(|(i, p)| (p.url, i as u32))
            .collect()
    }

    /// HTML/text pages without a single term (no signature; never near-duplicates).
    pub fn empty_pages(&self) -> u64 {
        self.empty_pages
    }

    /// Pages of other content types (not sketched).
    pub fn other_pages(&self) -> u64 {
        self.other_pages
    }

    /// Responses that are not pages, by why (a status code, `meta-refresh`, `soft-404`); they
    /// were counted, not sketched.
    pub fn not_pages(&self) -> &std::collections::BTreeMap<String, u64> {
        &self.not_pages
    }

    /// Pages whose every shingle was host boilerplate (no signature; reported), by id.
    pub fn boilerplate_only(&self) -> &[PageMeta] {
        &self.boilerplate_only
    }

    /// Minvalues of page `p` (their low 32 bits).
    pub fn minvalues(&self, p: u32) -> &[u32] {
        let m = self.family.params().m as usize;
        self.minvalues
            .get(p as usize * m..(p as usize + 1) * m)
            .unwrap_or_default()
    }

    /// Every page's minvalues (low 32 bits), `m` per page, in page order.
    pub fn all_minvalues(&self) -> &[u32] {
        &self.minvalues
    }

    /// Supershingles of page `p`.
    pub fn supershingles(&self, p: u32) -> &[u64] {
        let s = self.family.params().supershingles as usize;
        self.supershingles
            .get(p as usize * s..(p as usize + 1) * s)
            .unwrap_or_default()
    }

    /// Simhash of page `p` (empty when not computed).
    pub fn simhash(&self, p: u32) -> &[u64] {
        let w = self.family.params().simhash_words();
        self.simhash
            .get(p as usize * w..(p as usize + 1) * w)
            .unwrap_or_default()
    }

    /// Raw random projection of page `p` (empty when not computed).
    pub fn rp(&self, p: u32) -> &[i64] {
        let k = self.family.params().rp_dims as usize;
        self.rp
            .get(p as usize * k..(p as usize + 1) * k)
            .unwrap_or_default()
    }

    /// Every page's raw random projection, `rp_dims` per page, in page order.
    pub fn all_rp(&self) -> &[i64] {
        &self.rp
    }

    /// Outlink hashes of page `p` (empty when not kept).
    pub fn links(&self, p: u32) -> &[u64] {
        if self.link_offsets.len() != self.pages.len() + 1 {
            return &[];
        }
        &self.links[self.link_offsets[p as usize]..self.link_offsets[p as usize + 1]]
    }

    /// Outlink hashes kept over all pages.
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// Shingle set of page `p` (low 32 bits of the pre-images, sorted, distinct), when kept.
    pub fn shingles(&self, p: u32) -> Option<&[u32]> {
        let r = &self.pages[p as usize];
        let a = r.shingles_at as usize;
        (r.shingles_len > 0).then(|| &self.shingles[a..a + r.shingles_len as usize])
    }

    /// Frees every signature (minvalues, supershingles, simhashes, projections, outlinks,
    /// shingle sets) and keeps the pages' facts, for a job whose matching is done and whose
    /// outputs need only facts; the signature accessors give empty slices afterwards.
    pub fn drop_signatures(&mut self) {
        drop(self.take_signatures());
    }

    /// [`Corpus::drop_signatures`], the arrays handed to the caller to free where it likes:
    /// freeing a million pages' signatures takes tens of milliseconds of one thread (their
    /// pages given back to the kernel), which a caller can spend beside other work.
    pub fn take_signatures(&mut self) -> TakenSignatures {
        for r in &mut self.pages {
            r.shingles_len = 0;
            r.prints_len = 0;
        }
        TakenSignatures {
            _arrays: (
                std::mem::take(&mut self.minvalues),
                std::mem::take(&mut self.supershingles),
                std::mem::take(&mut self.simhash),
                std::mem::take(&mut self.rp),
                std::mem::take(&mut self.link_offsets),
                std::mem::take(&mut self.links),
                std::mem::take(&mut self.shingles),
                std::mem::take(&mut self.prints),
            ),
        }
    }

    /// The page's capture print (opaque bytes), when kept.
    pub fn print(&self, p: u32) -> Option<&[u8]> {
        let r = &self.pages[p as usize];
        let a = r.prints_at as usize;
        (r.prints_len > 0).then(|| &self.prints[a..a + r.prints_len as usize])
    }

    /// Pages with a shingle set kept.
    pub fn shingle_sets(&self) -> usize {
        self.pages.iter().filter(|r| r.shingles_len > 0).count()
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
        let m = self.page(p);
        PageRecord {
            source: m.id.source,
            ordinal: m.id.ordinal,
            tokens: m.tokens,
            token_hash: m.token_hash,
            body_hash: m.body_hash,
            shingles: m.shingles,
            chrome: m.chrome,
            title: m.title,
            language: m.language,
            minvalues: self.minvalues(p).to_vec(),
            supershingles: self.supershingles(p).to_vec(),
            simhash: self.simhash(p).to_vec(),
            rp: self.rp(p).to_vec(),
            links: self.links(p).to_vec(),
            // Sets kept for --verify beyond the parameters' limit are not part of a signature.
            shingle_set: match self.shingles(p) {
                Some(s) if m.shingles <= self.family.params().exact_sets => s.to_vec(),
                _ => Vec::new(),
            },
            print: self.print(p).unwrap_or_default().to_vec(),
            url: m.url.to_string(),
            user_id: m.user_id.to_string(),
            ip: m.ip.to_string(),
            date: m.date.to_string(),
            host: m.host.to_string(),
        }
    }
}

/// What the [`neardup_cluster::Keep`] rules look at.
impl neardup_cluster::PageFacts for Corpus {
    fn url_len(&self, p: u32) -> usize {
        self.pages[p as usize].url_len as usize
    }
    fn tokens(&self, p: u32) -> u32 {
        self.pages[p as usize].tokens
    }
    fn date(&self, p: u32) -> &str {
        self.page(p).date
    }
    fn reference(&self, p: u32) -> bool {
        !self.references.is_empty() && self.is_reference(self.pages[p as usize].id.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_sketch::SketchParams;

    fn meta(url: &str) -> PageMeta {
        PageMeta {
            url: url.into(),
            ..PageMeta::default()
        }
    }

    /// Four minvalues, two supershingles, one random-projection dimension.
    fn small_params() -> SketchParams {
        SketchParams {
            m: 4,
            l: 2,
            supershingles: 2,
            rp_dims: 1,
            ..SketchParams::default()
        }
    }

    #[test]
    fn builder_checks_shapes_and_keeps_offsets() {
        let params = small_params();
        let mut b = Corpus::builder(Family::new(&params), vec!["in".into()]);
        let sig = Signatures {
            minvalues: &[1, 2, 3, 4],
            supershingles: &[5, 6],
            rp: &[-1],
            links: &[7, 8],
            shingles: &[9],
            ..Signatures::default()
        };
        b.push(meta("a"), sig).unwrap();
        b.push(meta("b"), Signatures { links: &[], ..sig }).unwrap();
        let bad = b.push(
            meta("c"),
            Signatures {
                minvalues: &[1],
                ..sig
            },
        );
        assert_eq!(bad.unwrap_err().what, "minvalues");
        b.count_unsketched(2, 3);
        let c = b.build();
        assert_eq!(c.len(), 2);
        assert_eq!(c.minvalues(1), [1, 2, 3, 4]);
        assert_eq!(c.links(0), [7, 8]);
        assert!(c.links(1).is_empty());
        assert_eq!(c.shingles(1), Some(&[9][..]));
        assert_eq!(c.shingle_sets(), 2);
        let mut c = c;
        c.drop_signatures();
        assert!(c.minvalues(1).is_empty() && c.links(0).is_empty() && c.shingles(1).is_none());
        assert_eq!((c.len(), c.page(1).url), (2, "b"));
        assert_eq!((c.empty_pages(), c.other_pages()), (2, 3));
    }

    /// Pages pushed in any order and sorted by id (their arrays permuted side by side on a
    /// pool) are the pages pushed in id order.
    #[test]
    fn pages_sorted_by_id_are_pages_pushed_in_order() {
        let params = small_params();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let page = |i: u32| {
            let id = PageId {
                source: i % 3,
                ordinal: i / 3,
            };
            let v = u64::from(i);
            let meta = PageMeta {
                id,
                ..meta(&format!("https://h/{i}"))
            };
            let sig = (
                [i, i + 1, i + 2, i + 3],
                [v, v << 8],
                [-i64::from(i)],
                (0..v % 4).collect::<Vec<u64>>(),
                vec![i; i as usize % 3],
            );
            (meta, sig)
        };
        let built = |order: &[u32]| {
            let mut b = Corpus::builder(Family::new(&params), vec!["in".into()]);
            for &i in order {
                let (meta, (mv, ss, rp, links, sh)) = page(i);
                let sig = Signatures {
                    minvalues: &mv,
                    supershingles: &ss,
                    rp: &rp,
                    links: &links,
                    shingles: &sh,
                    ..Signatures::default()
                };
                b.push(meta, sig).unwrap();
            }
            pool.install(|| b.sort_by_id());
            b.build()
        };
        let n = 500u32;
        let mut sorted: Vec<u32> = (0..n).collect();
        sorted.sort_by_key(|&i| (i % 3, i / 3));
        let want = built(&sorted);
        let mut shuffled: Vec<u32> = (0..n).collect();
        let mut x = 11u32;
        for i in (1..shuffled.len()).rev() {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            shuffled.swap(i, (x as usize >> 8) % (i + 1));
        }
        let got = built(&shuffled);
        assert_eq!(got.len(), n);
        for p in 0..n {
            assert_eq!(got.page(p).url, want.page(p).url);
            assert_eq!(got.page(p).id, want.page(p).id);
            assert_eq!(got.minvalues(p), want.minvalues(p));
            assert_eq!(got.links(p), want.links(p));
            assert_eq!(got.shingles(p), want.shingles(p));
            assert_eq!(got.supershingles(p), want.supershingles(p));
            assert_eq!(got.rp(p), want.rp(p));
        }
    }

    #[test]
    fn stored_values_are_low_halves_and_sets_stay_sets() {
        let mut mv = Vec::new();
        stored_minvalues(&[u64::MAX, 1 << 32 | 5], &mut mv);
        assert_eq!(mv, [u32::MAX, 5]);
        let mut sh = vec![42];
        // 3 and 1 << 32 | 3 share their low half: one stored value.
        let n = stored_shingles(&[9, 3, 1 << 32 | 3, 7, 9], &mut sh);
        assert_eq!((n, sh), (3, vec![42, 3, 7, 9]));
        assert_eq!(stored_shingles(&[], &mut Vec::new()), 0);
    }
}

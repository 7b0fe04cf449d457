//! One page at a time against a snapshot: what a crawler asks at fetch time, and what an HTTP
//! front end answers per request. The page is tokenized ([`neardup_pipeline::stream::analyze`]) and
//! sketched ([`SketchVisitor`]) exactly as `index add` and `index query` do it, so a lookup
//! finds what a query of the same page finds. One `Lookup` per thread; it reuses its buffers
//! from page to page.

use crate::snapshot::{Match, Scratch, Snapshot};
use crate::stage::fill;
use crate::CatalogPage;
use neardup_dedup::SideScorer;
use neardup_ingest::Page;
use neardup_pipeline::sketching::{CorpusSink, SketchVisitor};
use neardup_pipeline::{Error, PipelineConfig, Visitor};
use neardup_sketch::Family;
use neardup_text::{Document, Tokenizer};
use std::sync::Arc;

/// What a lookup asks besides "is this page a near-duplicate, and of what" ([`Ask::DEFAULT`]),
/// the same in every door (the service's `?matches=`, `?budget=`, `?cluster=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// Matches reported at most, the likeliest first (candidates are scored in order of the
    /// bands they share with the page, and scoring stops once this many are accepted):
    /// `usize::MAX` for every match. Whether the page is a duplicate is exact whatever it is.
    pub matches: usize,
    /// With `Some(n)`, the page is a duplicate only when its cluster already holds `n` pages
    /// or more (a crawler capping traps and template floods); scoring goes on to `n` matches
    /// whatever `matches`, so the decision is exact. `None` (or 1): any match makes it one.
    pub budget: Option<u64>,
    /// Name the cluster the page would join ([`Cluster`]): its oldest match, exact, which
    /// costs scoring every candidate older than it.
    pub cluster: bool,
}

impl Ask {
    /// The cheap answer a crawler needs at fetch time: a duplicate or not, and its likeliest
    /// match with the evidence.
    pub const DEFAULT: Ask = Ask {
        matches: 1,
        budget: None,
        cluster: false,
    };
}

/// What a lookup found.
#[derive(Clone, Debug)]
pub enum Looked {
    /// The page was sketched: its facts (its id in `user_id`, hashes, payload digest) and
    /// every indexed page it matches, best first.
    Page {
        /// The looked-up page as the index would hold it.
        page: Box<CatalogPage>,
        /// Its matches, best first.
        matches: Vec<Match>,
        /// Candidates were left unscored once the limit was reached
        /// ([`Lookup::page_upto`]): there may be more matches.
        more: bool,
        /// The cluster it would join, and how many pages it holds, when asked
        /// ([`Ask::cluster`]): the oldest match costs scoring every older candidate.
        cluster: Option<Cluster>,
        /// Whether it is a duplicate: it matches a held page or, under a budget, its cluster
        /// already holds that many pages ([`Ask::budget`]).
        duplicate: bool,
    },
    /// Not a page the index would hold, and why: a status other than 200, a redirect or soft
    /// 404 (`neardup_pipeline::pages::NotPage`'s names), no terms, or content that is not HTML or text.
    NotPage(String),
}

/// The cluster a looked-up page would join: the held pages it matches (its near-duplicates),
/// named by the oldest of them, a stable id (adds never change which page is oldest; a
/// removed crawl can). `GET /v1/cluster/{id}` lists the pages the cluster's page matches
/// ([`Lookup::cluster`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cluster {
    /// The oldest held page the page matches (smallest id); `None` when it matches none (it
    /// would start a cluster of its own).
    pub id: Option<u64>,
    /// How many held pages it matches: exact when `exact`, else at least this many (scoring
    /// stopped at the lookup's limit or budget).
    pub size: u64,
    /// Whether `size` is exact.
    pub exact: bool,
}

/// A cluster's page and the held pages it matches, one page of them ([`Lookup::cluster`]).
#[derive(Clone, Debug)]
pub struct ClusterMembers {
    /// The cluster's page.
    pub id: u64,
    /// Its pages: the cluster's page and every held page it matches.
    pub size: u64,
    /// The members skipped.
    pub offset: usize,
    /// The members from `offset` on, in id order, at most the limit asked for; each with the
    /// evidence of its match with the cluster's page.
    pub members: Vec<Match>,
    /// Members come after these.
    pub more: bool,
}

neardup_evidence::evidence_row! {
    /// One held page a page matches, with the evidence: what the service's answers (its
    /// `openapi.yaml` `Match`, checked against the evidence schema by a test), `neardup index
    /// cluster` and Python's `Index.cluster` give.
    #[derive(Clone, Debug, PartialEq, serde::Serialize)]
    pub struct MatchRow {
        /// The held page's id.
        pub page: u64,
        /// Its URL.
        pub url: String,
        /// Its id.
        pub id: String,
        /// Its fetch date.
        pub date: String,
        /// The crawl it was added with.
        pub label: String,
        /// The same payload SHA-1 as the page it is matched with.
        pub identical_payload: bool,
    }
}

/// Matches as rows, `sha1` being the payload SHA-1 of the page they match.
pub fn match_rows(sha1: &[u8; 20], matches: Vec<Match>) -> Vec<MatchRow> {
    matches
        .into_iter()
        .map(|m| {
            neardup_evidence::with_evidence!(
                MatchRow {
                    page: m.page,
                    identical_payload: &m.facts.payload_sha1 == sha1,
                    url: m.facts.url,
                    id: m.facts.user_id,
                    date: m.facts.date,
                    label: m.label,
                },
                m.evidence
            )
        })
        .collect()
}

/// One page of a cluster's members as every door answers it (`GET /v1/cluster/{id}`,
/// `neardup index cluster`, `Index.cluster`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClusterAnswer {
    /// The cluster's page.
    pub cluster: u64,
    /// Its pages: the cluster's page and every held page it matches.
    pub size: u64,
    /// The members skipped.
    pub offset: usize,
    /// The members' rows, in id order, each with the evidence of its match with the
    /// cluster's page.
    pub members: Vec<MatchRow>,
    /// More members follow.
    pub more: bool,
}

impl From<ClusterMembers> for ClusterAnswer {
    fn from(c: ClusterMembers) -> ClusterAnswer {
        let sha1 = (c.members.iter())
            .find(|m| m.page == c.id)
            .map_or([0; 20], |m| m.facts.payload_sha1);
        ClusterAnswer {
            cluster: c.id,
            size: c.size,
            offset: c.offset,
            members: match_rows(&sha1, c.members),
            more: c.more,
        }
    }
}

/// Why a page is not one the index would hold: the names of [`Looked::NotPage`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a page: {0}")]
pub struct NotIndexed(pub String);

/// Bodies of this many bytes or more have their digests computed beside the tokenizer
/// ([`Lookup::sketch`]): below it a thread costs more than it saves.
const DIGESTS_ALONGSIDE: usize = 128 << 10;

/// Looks pages up one at a time against a snapshot.
pub struct Lookup {
    snap: Arc<Snapshot>,
    tokenizer: Tokenizer,
    doc: Document,
    sink: CorpusSink,
    visitor: SketchVisitor,
    family: Arc<Family>,
    scorer: SideScorer,
    scratch: Scratch,
    every_status: bool,
    page: CatalogPage,
    digests_alongside: usize,
}

impl Lookup {
    /// A lookup against `snap`, tokenizing as `pipeline` says (the index's parameters sketch).
    pub fn new(snap: Arc<Snapshot>, pipeline: &PipelineConfig) -> Lookup {
        let family = Family::new(&snap.manifest().params);
        let sink = CorpusSink::new(family.clone(), false);
        // Prints too where the index keeps them: a page the service adds after looking it up
        // carries its print.
        let visitor = SketchVisitor::new(&sink)
            .every_status(pipeline.every_status)
            .payload_digests(true)
            .prints(snap.manifest().storage.capture_prints);
        let scorer = crate::ops::scorer(snap.manifest());
        Lookup {
            snap,
            tokenizer: Tokenizer::new(pipeline.tokenizer.clone()),
            doc: Document::new(),
            sink,
            visitor,
            scorer,
            family,
            scratch: Scratch::default(),
            every_status: pipeline.every_status,
            page: CatalogPage::default(),
            digests_alongside: DIGESTS_ALONGSIDE,
        }
    }

    /// The snapshot looked up in.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snap
    }

    /// Bodies of `bytes` or more have their digests computed beside the tokenizer
    /// ([`Lookup::sketch`]; by default 128 KiB; 0: every body, `usize::MAX`: none).
    pub fn set_digests_alongside(&mut self, bytes: usize) {
        self.digests_alongside = bytes;
    }

    /// Looks up in `snap` from now on (a newer snapshot of the same index).
    pub fn set_snapshot(&mut self, snap: Arc<Snapshot>) {
        self.snap = snap;
    }

    /// Tokenizes and sketches `page` as an add does: the page as the index would hold it, or
    /// why it is not a page (the names of [`Looked::NotPage`]).
    ///
    /// A body of [`Lookup::set_digests_alongside`] bytes or more has its digests computed on
    /// a thread of its own while it is tokenized: a large page's answer comes sooner (its
    /// SHA-1 and SHA-256 are a sixth of its time), the same record.
    pub fn sketch(&mut self, page: &Page) -> Result<&CatalogPage, NotIndexed> {
        let (tokenizer, doc, visitor) = (&self.tokenizer, &mut self.doc, &self.visitor);
        let (analyzed, digests) = if page.body.len() >= self.digests_alongside {
            std::thread::scope(|s| {
                // No thread to be had (the system's limit): the visit computes them.
                let digests = std::thread::Builder::new()
                    .name("neardup-digests".into())
                    .spawn_scoped(s, || visitor.body_digests(page))
                    .ok();
                let analyzed = neardup_pipeline::stream::analyze(tokenizer, page, doc);
                (analyzed, digests.and_then(|d| d.join().ok()))
            })
        } else {
            (
                neardup_pipeline::stream::analyze(tokenizer, page, doc),
                None,
            )
        };
        let doc = analyzed.then_some(&self.doc);
        if !self.every_status {
            if let Some(why) = neardup_pipeline::pages::NotPage::of(page, doc) {
                return Err(NotIndexed(why.name()));
            }
        }
        if doc.is_none() {
            return Err(NotIndexed("not-html-or-text".into()));
        }
        match digests {
            Some(d) => self.visitor.visit_given(page, doc, d),
            None => self.visitor.visit(page, doc),
        }
        self.visitor.end_batch();
        let corpus = self.sink.take();
        if corpus.is_empty() {
            return Err(NotIndexed("no-terms".into()));
        }
        fill(&corpus, 0, &mut self.page);
        Ok(&self.page)
    }

    /// Tokenizes, sketches and looks up `page`: every match.
    pub fn page(&mut self, page: &Page) -> Result<Looked, Error> {
        self.page_upto(page, usize::MAX)
    }

    /// [`Lookup::page`] stopping at `limit` matches, the likeliest scored first
    /// ([`Snapshot::matches_upto`]): what a crawler deciding at fetch time needs, at a
    /// fraction of the cost for pages with hundreds of copies.
    pub fn page_upto(&mut self, page: &Page, limit: usize) -> Result<Looked, Error> {
        self.page_asking(
            page,
            &Ask {
                matches: limit,
                ..Ask::DEFAULT
            },
        )
    }

    /// [`Lookup::page_upto`] as `ask` says: how many matches, under which budget, with or
    /// without the cluster the page would join ([`Ask`]).
    pub fn page_asking(&mut self, page: &Page, ask: &Ask) -> Result<Looked, Error> {
        if let Err(NotIndexed(why)) = self.sketch(page) {
            return Ok(Looked::NotPage(why));
        }
        let budget = ask.budget.unwrap_or(1).max(1);
        let upto = ask
            .matches
            .max(usize::try_from(budget).unwrap_or(usize::MAX));
        let m = self.snap.matched(
            &self.scorer,
            &self.family,
            &self.page,
            &mut self.scratch,
            upto,
            ask.cluster,
        )?;
        let size = m.matches.len() as u64;
        let cluster = ask.cluster.then_some(Cluster {
            id: m.cluster,
            size,
            exact: !m.more,
        });
        let mut matches = m.matches;
        let more = m.more || matches.len() > ask.matches;
        matches.truncate(ask.matches);
        Ok(Looked::Page {
            page: Box::new(self.page.clone()),
            matches,
            more,
            duplicate: size >= budget,
            cluster,
        })
    }

    /// The cluster of held page `id`: the page and every held page it matches, in id order,
    /// `limit` of them from `offset`; `None` when the index holds no page `id`.
    pub fn cluster(
        &mut self,
        id: u64,
        offset: usize,
        limit: usize,
    ) -> Result<Option<ClusterMembers>, Error> {
        let mut page = CatalogPage::default();
        if self.snap.page(id, &mut page)?.is_none() {
            return Ok(None);
        }
        let mut all = self
            .snap
            .matches(&self.scorer, &self.family, &page, &mut self.scratch)?;
        all.sort_by_key(|m| m.page);
        let size = all.len() as u64;
        let more = all.len() > offset.saturating_add(limit);
        let members = all.into_iter().skip(offset).take(limit).collect();
        Ok(Some(ClusterMembers {
            id,
            size,
            offset,
            members,
            more,
        }))
    }
}

//! A reader's view of an index: the segments one manifest names, opened together, and the
//! lookups every operation shares (candidates by band keys, pages by id, payload digests).

use crate::site_names::SiteNames;
use crate::{band_entry_key, digest_key};
use crate::{CatalogPage, CatalogReader, IndexError, KeySegmentReader, Manifest, SegmentKind};
use neardup_dedup::{Evidence, Side, SideScorer};
use neardup_sketch::Family;
use std::path::Path;

mod rank;
use rank::{count_entries, distinct_as_kept, order_prefix, sharing_every_key, Counts};

/// The segments of one manifest, open: a consistent snapshot that later commits never change
/// (an unlinked segment stays readable while open).
#[derive(Debug)]
pub struct Snapshot {
    manifest: Manifest,
    /// Catalog segments in id order, each with its crawl label.
    catalogs: Vec<(CatalogReader, String)>,
    keys: Vec<KeySegmentReader>,
    links: Vec<KeySegmentReader>,
    /// The `.titles` segments (per host, its pages and its pages per title segment).
    titles: Vec<KeySegmentReader>,
    /// Every open segment by name (clones share the open file), for the next snapshot.
    by_name: std::collections::HashMap<String, Opened>,
    /// Bytes of segments this snapshot and the next may hold in memory.
    cache: u64,
}

/// An open segment.
#[derive(Clone, Debug)]
enum Opened {
    Catalog(CatalogReader),
    Keys(KeySegmentReader),
    Links(KeySegmentReader),
    Titles(KeySegmentReader),
}

impl Opened {
    /// Opens a segment of `kind` (`None` for a kind this build does not read).
    fn open(kind: Option<SegmentKind>, path: &Path) -> Result<Option<Opened>, IndexError> {
        Ok(match kind {
            Some(SegmentKind::Catalog) => Some(Opened::Catalog(CatalogReader::open(path)?)),
            Some(SegmentKind::Keys) => Some(Opened::Keys(KeySegmentReader::open(path)?)),
            Some(SegmentKind::Links) => Some(Opened::Links(KeySegmentReader::open(path)?)),
            Some(SegmentKind::Titles) => Some(Opened::Titles(KeySegmentReader::open(path)?)),
            None => None,
        })
    }

    fn in_memory(&self) -> bool {
        match self {
            Opened::Catalog(c) => c.in_memory(),
            Opened::Keys(k) | Opened::Links(k) | Opened::Titles(k) => k.in_memory(),
        }
    }

    /// The most bytes it takes in memory: a key segment's filter and long runs besides its
    /// file ([`KeySegmentReader::memory`]).
    fn memory(&self) -> u64 {
        match self {
            Opened::Catalog(c) => c.size(),
            Opened::Keys(k) | Opened::Links(k) | Opened::Titles(k) => k.memory(),
        }
    }

    fn into_memory(self) -> Result<Opened, IndexError> {
        Ok(match self {
            Opened::Catalog(c) => Opened::Catalog(c.into_memory()?),
            Opened::Keys(k) => Opened::Keys(k.into_memory()?),
            Opened::Links(k) => Opened::Links(k.into_memory()?),
            Opened::Titles(k) => Opened::Titles(k.into_memory()?),
        })
    }
}

/// A match of a page against the index: the indexed page and the evidence.
#[derive(Clone, Debug)]
pub struct Match {
    /// The indexed page's id.
    pub page: u64,
    /// Its facts (URL, ids, date, host, hashes; its minvalues and shingle set are left
    /// empty).
    pub facts: CatalogPage,
    /// The crawl label it was added with.
    pub label: String,
    /// The evidence.
    pub evidence: Evidence,
}

/// What [`Snapshot::matched`] found.
#[derive(Clone, Debug)]
pub struct Matched {
    /// The matches, best first.
    pub matches: Vec<Match>,
    /// The limit was reached with candidates left unscored.
    pub more: bool,
    /// The oldest held page matched (smallest id), when asked for and any matched.
    pub cluster: Option<u64>,
}

impl Snapshot {
    /// Opens the index in `dir` as its manifest now names it. A compaction that commits
    /// between reading the manifest and opening its segments removes some of them; then the
    /// new manifest is read (a few times at most).
    pub fn open(dir: &Path) -> Result<Snapshot, IndexError> {
        let mut attempt = 0;
        loop {
            let manifest = Manifest::open(dir)?;
            match Snapshot::of(dir, manifest) {
                Err(IndexError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound && attempt < 3 =>
                {
                    attempt += 1;
                }
                r => return r,
            }
        }
    }

    /// Opens the segments `manifest` names.
    pub fn of(dir: &Path, manifest: Manifest) -> Result<Snapshot, IndexError> {
        Snapshot::reusing(dir, manifest, None, 0)
    }

    /// [`Snapshot::open`], reading segments whole into memory while what they take there
    /// ([`Snapshot::cached_bytes`]) adds up to `cache` bytes at most (in the manifest's order); later snapshots made by
    /// [`Snapshot::refreshed`] do the same for new segments. Lookups then make no system call
    /// for them: for a service whose index fits in the memory it is given.
    pub fn open_cached(dir: &Path, cache: u64) -> Result<Snapshot, IndexError> {
        let s = Snapshot::open(dir)?;
        Snapshot::reusing(dir, s.manifest.clone(), Some(&s), cache)
    }

    /// [`Snapshot::of`] for `manifest`, cached as [`Snapshot::open_cached`] does.
    pub fn of_cached(dir: &Path, manifest: Manifest, cache: u64) -> Result<Snapshot, IndexError> {
        Snapshot::reusing(dir, manifest, None, cache)
    }

    /// Bytes held in memory for the segments read there, at most: their files, and the key
    /// segments' filters and long runs ([`KeySegmentReader::memory`]).
    pub fn cached_bytes(&self) -> u64 {
        (self.by_name.values())
            .filter(|o| o.in_memory())
            .map(Opened::memory)
            .sum()
    }

    /// The segments `manifest` names, sharing this snapshot's open readers of the segments
    /// both name: a writer's next snapshot opens only what it wrote.
    pub fn refreshed(&self, dir: &Path, manifest: Manifest) -> Result<Snapshot, IndexError> {
        Snapshot::reusing(dir, manifest, Some(self), self.cache)
    }

    /// A snapshot of `manifest` with no segment open yet.
    fn empty(manifest: Manifest, cache: u64) -> Snapshot {
        Snapshot {
            manifest,
            catalogs: Vec::new(),
            keys: Vec::new(),
            links: Vec::new(),
            titles: Vec::new(),
            by_name: Default::default(),
            cache,
        }
    }

    fn reusing(
        dir: &Path,
        manifest: Manifest,
        prev: Option<&Snapshot>,
        cache: u64,
    ) -> Result<Snapshot, IndexError> {
        let mut s = Snapshot::empty(manifest, cache);
        let reused = |name: &str| prev.and_then(|p| p.by_name.get(name));
        let mut cached: u64 = (s.manifest.segments.iter())
            .filter_map(|seg| reused(&seg.name).filter(|o| o.in_memory()))
            .map(Opened::memory)
            .sum();
        for seg in &s.manifest.segments {
            let opened = match reused(&seg.name) {
                Some(o) => o.clone(),
                None => match Opened::open(seg.kind(), &dir.join(&seg.name))? {
                    Some(o) => o,
                    None => continue,
                },
            };
            let opened =
                match !opened.in_memory() && cached.saturating_add(opened.memory()) <= cache {
                    true => {
                        cached += opened.memory();
                        opened.into_memory()?
                    }
                    false => opened,
                };
            match &opened {
                Opened::Catalog(c) => s.catalogs.push((c.clone(), seg.label.clone())),
                Opened::Keys(k) => s.keys.push(k.clone()),
                Opened::Links(k) => s.links.push(k.clone()),
                Opened::Titles(k) => s.titles.push(k.clone()),
            }
            s.by_name.insert(seg.name.clone(), opened);
        }
        s.catalogs.sort_by_key(|(c, _)| c.ids().start);
        Ok(s)
    }

    /// One snapshot of the shards of a set ([`crate::shards`]): their segments side by side,
    /// read as one index's (a lookup asks every shard's key segments, and reads each
    /// candidate from the one catalog holding its id). `manifest` is the set's
    /// ([`crate::shards::union_manifest`], which names segment `n` of shard `i` `"i/n"`).
    /// Refused when two shards hold the same page id.
    pub(crate) fn union(
        dir: &Path,
        manifest: Manifest,
        shards: Vec<Snapshot>,
    ) -> Result<Snapshot, IndexError> {
        let mut s = Snapshot::empty(manifest, 0);
        for (i, shard) in shards.into_iter().enumerate() {
            s.catalogs.extend(shard.catalogs);
            s.keys.extend(shard.keys);
            s.links.extend(shard.links);
            s.titles.extend(shard.titles);
            s.cache += shard.cache;
            (s.by_name).extend((shard.by_name.into_iter()).map(|(n, o)| (format!("{i}/{n}"), o)));
        }
        s.catalogs.sort_by_key(|(c, _)| c.ids().start);
        for pair in s.catalogs.windows(2) {
            let (a, b) = (pair[0].0.ids(), pair[1].0.ids());
            if a.end > b.start {
                return Err(IndexError::Shards {
                    path: dir.to_path_buf(),
                    what: format!(
                        "two shards hold the same page ids ({}..{} and {}..{}): a shard was \
                         added to on its own, not through its set",
                        a.start, a.end, b.start, b.end
                    ),
                });
            }
        }
        Ok(s)
    }

    /// The manifest this snapshot is of.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The open catalog segments, in id order, with their labels.
    pub fn catalogs(&self) -> &[(CatalogReader, String)] {
        &self.catalogs
    }

    /// The open catalog segment named `name` (as the manifest names it).
    pub fn catalog_named(&self, name: &str) -> Option<&CatalogReader> {
        match self.by_name.get(name)? {
            Opened::Catalog(c) => Some(c),
            _ => None,
        }
    }

    /// The open key segments.
    pub fn keys(&self) -> &[KeySegmentReader] {
        &self.keys
    }

    /// The open link segments.
    pub fn links(&self) -> &[KeySegmentReader] {
        &self.links
    }

    /// The open `.titles` segments.
    pub fn titles(&self) -> &[KeySegmentReader] {
        &self.titles
    }

    /// The title rule's site names over this snapshot, with `extra` (a page it does not hold:
    /// host and title) counted as one more page.
    pub fn site_names(&self, extra: Option<&CatalogPage>) -> SiteNames<'_> {
        SiteNames::new(&self.titles, extra.map(|p| (p.host.as_str(), p.title)))
    }

    /// The catalog holding page `id` and its label, `None` when no live segment does (a
    /// removed crawl's page).
    pub fn catalog_of(&self, id: u64) -> Option<&(CatalogReader, String)> {
        let i = self.catalogs.partition_point(|(c, _)| c.ids().start <= id);
        let c = self.catalogs.get(i.checked_sub(1)?)?;
        c.0.ids().contains(&id).then_some(c)
    }

    /// Whether a live catalog holds page `id` (not a removed crawl's).
    pub fn holds(&self, id: u64) -> bool {
        self.catalog_of(id).is_some()
    }

    /// Page `id` into `out` with its label; `None` when it is not held.
    pub fn page(&self, id: u64, out: &mut CatalogPage) -> Result<Option<&str>, IndexError> {
        self.page_with(id, out, &mut Vec::new())
    }

    /// [`Snapshot::page`] reading the record into `buf` (reused from call to call).
    pub fn page_with(
        &self,
        id: u64,
        out: &mut CatalogPage,
        buf: &mut Vec<u8>,
    ) -> Result<Option<&str>, IndexError> {
        match self.catalog_of(id) {
            Some((c, label)) => {
                c.get_with(id, out, buf)?;
                Ok(Some(label))
            }
            None => Ok(None),
        }
    }

    /// Every held capture of `url` (normalized as [`crate::url_key`] does), oldest first: id,
    /// facts, label.
    pub fn by_url(&self, url: &str) -> Result<Vec<(u64, CatalogPage, String)>, IndexError> {
        let normal = |u: &str| neardup_text::normalize_url(u).unwrap_or_else(|| u.to_string());
        let want = normal(url);
        self.held_under(crate::url_key(url), |f| normal(&f.url) == want)
    }

    /// Every held capture of `url` as a timeline reads it (label, date, digest, print), oldest
    /// first.
    pub fn held_captures(&self, url: &str) -> Result<Vec<neardup_store::HeldCapture>, IndexError> {
        Ok(self
            .by_url(url)?
            .into_iter()
            .map(|(_, f, label)| neardup_store::HeldCapture {
                label,
                date: f.date,
                payload_sha1: f.payload_sha1,
                print: f.print,
            })
            .collect())
    }

    /// Every held page whose payload SHA-1 is `digest` (exact duplicates, as web archives'
    /// revisit records need them), oldest first: id, facts, label.
    pub fn by_digest(
        &self,
        digest: &[u8; 20],
    ) -> Result<Vec<(u64, CatalogPage, String)>, IndexError> {
        self.held_under(digest_key(digest), |f| &f.payload_sha1 == digest)
    }

    /// Every held page whose payload has `digest` (SHA-1 or SHA-256; a SHA-256 is known for
    /// pages added by format 5 and later), oldest first: id, facts, label.
    pub fn by_payload(
        &self,
        digest: &neardup_ingest::digest::PayloadDigest,
    ) -> Result<Vec<(u64, CatalogPage, String)>, IndexError> {
        use neardup_ingest::digest::PayloadDigest;
        match digest {
            PayloadDigest::Sha1(d) => self.by_digest(d),
            PayloadDigest::Sha256(d) => {
                self.held_under(crate::sha256_key(d), |f| &f.payload_sha256 == d)
            }
        }
    }

    /// The held pages under `key` in any key segment that `really` confirms (a key is a hash:
    /// its pages are checked against what it stands for), in id order.
    pub(crate) fn held_under(
        &self,
        key: u64,
        really: impl Fn(&CatalogPage) -> bool,
    ) -> Result<Vec<(u64, CatalogPage, String)>, IndexError> {
        let (mut ids, mut scratch) = (Vec::new(), Vec::new());
        for seg in &self.keys {
            seg.lookup(key, &mut scratch, &mut ids)?;
        }
        ids.sort_unstable();
        ids.dedup();
        let mut out = Vec::new();
        let mut facts = CatalogPage::default();
        for id in ids {
            if let Some(label) = self.page(id, &mut facts)? {
                if really(&facts) {
                    out.push((id, facts.clone(), label.to_string()));
                }
            }
        }
        Ok(out)
    }

    /// Every indexed page that `page` matches under `scorer` (the index's acceptance,
    /// [`crate::dedup_config`]), best first (Jaccard, then page id). `family` makes the band
    /// keys (the index's parameters); `scratch` holds buffers reused from page to page.
    pub fn matches(
        &self,
        scorer: &SideScorer,
        family: &Family,
        page: &CatalogPage,
        scratch: &mut Scratch,
    ) -> Result<Vec<Match>, IndexError> {
        Ok(self
            .matches_upto(scorer, family, page, scratch, usize::MAX)?
            .0)
    }

    /// Asks for the catalog records of `ids` (the candidates about to be scored), so that
    /// reads from disk overlap.
    fn prefetch_pages(&self, ids: impl Iterator<Item = u64>) {
        for id in ids {
            if let Some((c, _)) = self.catalog_of(id) {
                c.prefetch(id);
            }
        }
    }

    /// [`Snapshot::matches`], stopping at `limit` matches: candidates are scored in order of
    /// the bands they share with `page` (most first, then page id), the likeliest matches
    /// first, and scoring stops once `limit` are accepted. Also says whether it stopped early
    /// (more candidates were left unscored). Whether `page` matches anything is exact either
    /// way; which `limit` matches are returned depends only on the page and the snapshot.
    pub fn matches_upto(
        &self,
        scorer: &SideScorer,
        family: &Family,
        page: &CatalogPage,
        scratch: &mut Scratch,
        limit: usize,
    ) -> Result<(Vec<Match>, bool), IndexError> {
        let m = self.matched(scorer, family, page, scratch, limit, false)?;
        Ok((m.matches, m.more))
    }

    /// [`Snapshot::matches_upto`], and, when `oldest`, the oldest held page `page` matches
    /// (the smallest id; exact whatever `limit`: once the limit is reached, older candidates
    /// are scored in id order until one is accepted): the cluster it joins ([`Matched`]).
    pub fn matched(
        &self,
        scorer: &SideScorer,
        family: &Family,
        page: &CatalogPage,
        scratch: &mut Scratch,
        limit: usize,
        oldest: bool,
    ) -> Result<Matched, IndexError> {
        let bands = self.manifest.matching.bands as usize;
        let Scratch {
            ids,
            keys,
            runs,
            order,
            cursors,
            kept,
            every,
            block,
            facts,
            record,
            ranked,
            table,
            set,
        } = scratch;
        ids.clear();
        runs.clear();
        keys.clear();
        keys.extend((0..bands).map(|t| band_entry_key(family, &self.manifest, &page.minvalues, t)));
        // The blocks of every band key are asked for first, so that reads from disk overlap.
        for &key in keys.iter() {
            for seg in &self.keys {
                seg.prefetch(key);
            }
        }
        for &key in keys.iter() {
            for seg in &self.keys {
                let start = ids.len();
                seg.lookup(key, block, ids)?;
                runs.push(start..ids.len());
            }
        }
        // The page's kept set compared on the bits the index keeps, cut once here rather
        // than at each candidate.
        let this = side_at(page, self.manifest.storage.set_bits, set);
        let mut names = self.site_names(Some(page));
        let mut judge = |id: u64| -> Result<Option<Match>, IndexError> {
            let Some((catalog, label)) = self.catalog_of(id) else {
                return Ok(None);
            };
            catalog.get_for_scoring(id, facts, record)?;
            let (e, accepted) = scorer.judge(&this, &side(facts), || {
                names.agree((&page.host, &page.title), (&facts.host, &facts.title))
            })?;
            if !accepted {
                return Ok(None);
            }
            // What a match reports (its signatures stay behind), names read now.
            catalog.get_with(id, facts, record)?;
            let facts = CatalogPage {
                url: facts.url.clone(),
                user_id: facts.user_id.clone(),
                date: facts.date.clone(),
                host: facts.host.clone(),
                minvalues: Vec::new(),
                shingle_set: Vec::new(),
                print: Vec::new(),
                ..*facts
            };
            Ok(Some(Match {
                page: id,
                facts,
                label: label.clone(),
                evidence: e,
            }))
        };
        let mut out = Vec::new();
        let mut scored = 0;
        // The candidates sharing every band key come first, in id order: found by
        // intersecting the keys' sorted lists, without counting every entry. A lookup of a page
        // the index holds a copy of (a recrawl) is often answered by them alone.
        every.clear();
        if !oldest && limit > 0 {
            if distinct_as_kept(keys, &self.keys, kept) {
                sharing_every_key(ids, runs, self.keys.len(), (order, cursors), every);
            }
            self.prefetch_pages(every.iter().take(limit.saturating_mul(2)).copied());
            while scored < every.len() && out.len() < limit {
                let id = every[scored];
                scored += 1;
                out.extend(judge(id)?);
            }
            if out.len() == limit {
                // Each of them is in every key's list once: any entry beyond is another page.
                let more = ids.len() > scored * bands;
                return Ok(Matched {
                    matches: sorted_matches(out),
                    more,
                    cluster: None,
                });
            }
        }
        // Each candidate with the number of band keys it shares (its entries), most first.
        count_entries(ids, self.manifest.next_page, table, ranked);
        // Put in order lazily when not every candidate may be scored: only the prefix about to
        // be scored, a chunk at a time (a selection, then a sort of the chunk), so a lookup
        // that stops at its first match does not sort every candidate. The ones already scored
        // above are passed over.
        let judged = &every[..scored];
        scored = 0;
        let mut chunk = limit.saturating_mul(2).max(16);
        let mut in_order = if limit < ranked.len() {
            order_prefix(ranked, 0, chunk)
        } else {
            ranked.sort_unstable();
            ranked.len()
        };
        self.prefetch_pages(
            ranked
                .iter()
                .take(limit.saturating_mul(2))
                .map(|&(id, _)| id),
        );
        while scored < ranked.len() && out.len() < limit {
            if scored == in_order {
                chunk = chunk.saturating_mul(2);
                in_order = order_prefix(ranked, in_order, chunk);
            }
            let id = ranked[scored].0;
            scored += 1;
            if judged.binary_search(&id).is_err() {
                out.extend(judge(id)?);
            }
        }
        // Candidates left unscored, but for those scored first.
        let more = ranked[scored..]
            .iter()
            .any(|(id, _)| judged.binary_search(id).is_err());
        let mut cluster = out.iter().map(|m| m.page).min();
        if oldest && more {
            // Candidates left unscored that are older than the oldest match, oldest first:
            // the first accepted is the oldest match of all.
            let older = cluster.unwrap_or(u64::MAX);
            let mut left: Vec<u64> = ranked[scored..]
                .iter()
                .map(|&(id, _)| id)
                .filter(|&id| id < older)
                .collect();
            left.sort_unstable();
            for id in left {
                if judge(id)?.is_some() {
                    cluster = Some(id);
                    break;
                }
            }
        }
        Ok(Matched {
            matches: sorted_matches(out),
            more,
            cluster: if oldest { cluster } else { None },
        })
    }
}

/// The matches in the order answers give them: the highest Jaccard first, then page id.
fn sorted_matches(mut out: Vec<Match>) -> Vec<Match> {
    out.sort_by(|a, b| {
        b.evidence
            .jaccard()
            .total_cmp(&a.evidence.jaccard())
            .then(a.page.cmp(&b.page))
    });
    out
}

/// What scoring needs of a catalog page (the index keeps no boilerplate filter: 0).
pub fn side(p: &CatalogPage) -> Side<'_> {
    Side {
        host: &p.host,
        token_hash: p.token_hash,
        tokens: p.tokens,
        shingles: p.shingles,
        chrome: p.chrome,
        boilerplate: 0.0,
        minvalues: &p.minvalues,
        minvalue_bits: p.minvalue_bits,
        shingle_set: (!p.shingle_set.is_empty()).then_some(&p.shingle_set[..]),
        set_bits: p.set_bits,
        supershingles: &[],
        simhash: &[],
        language: p.language,
    }
}

/// [`side`] of `p` with its kept set cut to its low `bits` bits (in `buf`) when it holds
/// more: as an index keeping `bits` compares it with the pages it holds
/// ([`crate::Storage::set_bits`]).
pub fn side_at<'a>(p: &'a CatalogPage, bits: u32, buf: &'a mut Vec<u32>) -> Side<'a> {
    let mut s = side(p);
    if let Some(whole) = s.shingle_set.filter(|_| s.set_bits > bits) {
        neardup_candidates::narrow_set(whole, bits, buf);
        s.shingle_set = Some(buf);
        s.set_bits = bits;
    }
    s
}

/// Buffers a lookup reuses from page to page.
#[derive(Debug, Default)]
pub struct Scratch {
    ids: Vec<u64>,
    keys: Vec<u64>,
    /// Each key's lists in `ids`, one per key segment.
    runs: Vec<std::ops::Range<usize>>,
    order: Vec<(usize, usize)>,
    cursors: Vec<usize>,
    kept: Vec<u64>,
    /// The candidates sharing every key.
    every: Vec<u64>,
    block: Vec<u8>,
    facts: CatalogPage,
    record: Vec<u8>,
    ranked: Vec<(u64, u32)>,
    table: Counts,
    set: Vec<u32>,
}

//! A reader's view of an index: the segments one manifest names, opened together, and the
//! lookups every operation shares (candidates by band keys, pages by id, payload digests).

use crate::site_names::SiteNames;
use crate::{band_entry_key, digest_key};
use crate::{CatalogPage, CatalogReader, IndexError, KeySegmentReader, Manifest, SegmentKind};
use neardup_dedup::{Evidence, Side, SideScorer};
use neardup_sketch::Family;
use std::path::Path;

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
            for &id in every.iter().take(limit.saturating_mul(2)) {
                if let Some((c, _)) = self.catalog_of(id) {
                    c.prefetch(id);
                }
            }
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
        for &(id, _) in ranked.iter().take(limit.saturating_mul(2)) {
            if let Some((c, _)) = self.catalog_of(id) {
                c.prefetch(id);
            }
        }
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

/// The pages in every band key's list, in increasing order, into `every` (`runs`: each key's
/// lists, one per key segment in turn, `segments` of them, as ranges of `ids`, each in
/// increasing order; `order` and `cursors`: scratch): the candidates sharing every key a
/// lookup asked, which rank first. The shortest key's pages are kept while the next shortest
/// key's lists hold them, and so on, until none is left or every key was asked (a forward
/// search from a cursor per list, [`seek`]); nothing is counted.
fn sharing_every_key(
    ids: &[u64],
    runs: &[std::ops::Range<usize>],
    segments: usize,
    (order, cursors): (&mut Vec<(usize, usize)>, &mut Vec<usize>),
    every: &mut Vec<u64>,
) {
    every.clear();
    if segments == 0 || runs.is_empty() {
        return;
    }
    let lists = |k: usize| &runs[k * segments..(k + 1) * segments];
    order.clear();
    order.extend(
        runs.chunks(segments)
            .enumerate()
            .map(|(k, l)| (l.iter().map(|r| r.len()).sum::<usize>(), k)),
    );
    order.sort_unstable();
    every.extend(
        lists(order[0].1)
            .iter()
            .flat_map(|r| ids[r.clone()].iter().copied()),
    );
    every.sort_unstable();
    for &(_, k) in &order[1..] {
        if every.is_empty() {
            return;
        }
        cursors.clear();
        cursors.resize(segments, 0);
        let l = lists(k);
        every.retain(|&id| {
            l.iter()
                .zip(cursors.iter_mut())
                .any(|(r, at)| seek(&ids[r.clone()], at, id))
        });
    }
}

/// Whether `keys` are distinct on the bits each key segment keeps. When two are not, one
/// list is read twice and its pages counted twice, so a page may share more entries than there
/// are keys: only counting ranks the candidates then.
fn distinct_as_kept(keys: &[u64], segments: &[KeySegmentReader], kept: &mut Vec<u64>) -> bool {
    segments.iter().all(|seg| {
        let shift = 64 - seg.key_bits();
        kept.clear();
        kept.extend(keys.iter().map(|&k| k.checked_shr(shift).unwrap_or(0)));
        kept.sort_unstable();
        kept.windows(2).all(|w| w[0] != w[1])
    })
}

/// Whether `id` is in `list` (increasing) at or after `*at`, which moves to where it is or
/// would be: a search forward by doubling steps, then by halves, so that a run of increasing
/// ids costs about the log of each gap.
fn seek(list: &[u64], at: &mut usize, id: u64) -> bool {
    let rest = &list[(*at).min(list.len())..];
    let mut step = 1;
    while step <= rest.len() && rest[step - 1] < id {
        step *= 2;
    }
    let end = step.min(rest.len());
    let skip = (step / 2) + rest[step / 2..end].partition_point(|&x| x < id);
    *at += skip;
    rest.get(skip) == Some(&id)
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

/// Where a lookup counts its candidates' entries: by page id in an array, for an index of at
/// most [`DIRECT_COUNTS`] page ids, else in a hash table.
#[derive(Debug, Default)]
struct Counts {
    direct: Vec<u16>,
    table: Vec<(u64, u32)>,
}

/// Page ids up to which candidates are counted in an array indexed by id (two bytes a page
/// id in each lookup's scratch; a probe of a hash table costs several times an increment).
const DIRECT_COUNTS: u64 = 1 << 22;

/// Puts the `n` candidates of `ranked[from..]` that come first (most band keys shared, then
/// smallest id) in order at its start; the ones after them stay in no order. Where the ordered
/// prefix ends now.
fn order_prefix(ranked: &mut [(u64, u32)], from: usize, n: usize) -> usize {
    let rank = |a: &(u64, u32), b: &(u64, u32)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
    let rest = &mut ranked[from..];
    let n = n.min(rest.len());
    if n == 0 {
        return from;
    }
    if n < rest.len() {
        rest.select_nth_unstable_by(n - 1, rank);
    }
    rest[..n].sort_unstable_by(rank);
    from + n
}

/// Each distinct id of `ids` with how many times it occurs, into `out` (in no order), so a
/// lookup's tens of thousands of entries are counted without sorting them: in an array by
/// page id when the index has at most [`DIRECT_COUNTS`] (`pages`: its next id), else in a
/// hash table.
fn count_entries(ids: &[u64], pages: u64, counts: &mut Counts, out: &mut Vec<(u64, u32)>) {
    out.clear();
    if pages <= DIRECT_COUNTS && count_direct(ids, pages, &mut counts.direct, out) {
        return;
    }
    count_in_table(ids, &mut counts.table, out);
}

/// [`count_entries`] in `direct`, indexed by page id (`pages` of them; zeros between calls):
/// false, `direct` zeros again and `out` empty, when an id is not below `pages`.
fn count_direct(ids: &[u64], pages: u64, direct: &mut Vec<u16>, out: &mut Vec<(u64, u32)>) -> bool {
    direct.resize(pages as usize, 0);
    let mut fits = true;
    for &id in ids {
        let Some(c) = direct.get_mut(id as usize) else {
            fits = false;
            break;
        };
        if *c == 0 {
            out.push((id, 0));
        }
        // Each list holds a page once, so a count is at most the keys asked (the bands).
        *c = c.saturating_add(1);
    }
    for (id, n) in out.iter_mut() {
        *n = u32::from(std::mem::take(&mut direct[*id as usize]));
    }
    if !fits {
        out.clear();
    }
    fits
}

/// [`count_entries`] in an open-addressing table (`table`, reused) kept at most half full.
/// Near-copies share most band keys, so a lookup's entries name a few times fewer pages: the
/// table starts at a quarter of the entries and doubles when half full, and stays small
/// enough for the cache.
fn count_in_table(ids: &[u64], table: &mut Vec<(u64, u32)>, out: &mut Vec<(u64, u32)>) {
    const EMPTY: u64 = u64::MAX;
    out.clear();
    table.clear();
    table.resize((ids.len() / 2).next_power_of_two().max(256), (EMPTY, 0));
    let mut held = 0;
    for &id in ids {
        if held * 2 >= table.len() {
            // Twice as large, the pages counted so far moved in (`out` lends its buffer).
            out.extend(table.iter().copied().filter(|s| s.0 != EMPTY));
            let size = table.len() * 2;
            table.clear();
            table.resize(size, (EMPTY, 0));
            for &(id, n) in out.iter() {
                *slot(table, id) = (id, n);
            }
            out.clear();
        }
        let s = slot(table, id);
        if s.0 == EMPTY {
            *s = (id, 1);
            held += 1;
        } else {
            s.1 += 1;
        }
    }
    out.extend(table.iter().copied().filter(|s| s.0 != EMPTY));

    /// `id`'s slot in `table` (a power of two, never full): where it is, or the empty one
    /// where it goes.
    fn slot(table: &mut [(u64, u32)], id: u64) -> &mut (u64, u32) {
        let mask = table.len() - 1;
        // Fibonacci hashing: page ids are dense, their high product bits spread.
        let mut at = (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        while table[at].0 != id && table[at].0 != EMPTY {
            at = (at + 1) & mask;
        }
        &mut table[at]
    }
}

#[cfg(test)]
mod tests {
    use super::{count_entries, order_prefix, seek, sharing_every_key, Counts};
    use proptest::prelude::*;

    proptest! {
        /// The pages in every key's lists are the candidates counting ranks first: those
        /// counted once per key, in id order.
        #[test]
        fn the_pages_sharing_every_key_are_the_first_ranked(
            lists in proptest::collection::vec(
                proptest::collection::btree_set(0u64..60, 0..40), 1..24),
            segments in 1usize..4,
            shared in proptest::collection::btree_set(0u64..60, 0..6),
        ) {
            // Each key's pages (with `shared`, in some keys' lists or all) split over the
            // segments (a page in one of them), each list in increasing order, as a lookup
            // gathers them.
            let keys = lists.len().div_ceil(segments);
            let (mut ids, mut runs) = (Vec::new(), Vec::new());
            for k in 0..keys {
                let pages: Vec<u64> = lists[k * segments..]
                    .iter()
                    .take(segments)
                    .flatten()
                    .chain(shared.iter().filter(|&&p| p % 7 != 3 || k % 5 != 1))
                    .copied()
                    .collect::<std::collections::BTreeSet<u64>>()
                    .into_iter()
                    .collect();
                for s in 0..segments {
                    let start = ids.len();
                    ids.extend(pages.iter().filter(|&&p| p % segments as u64 == s as u64));
                    runs.push(start..ids.len());
                }
            }
            let (mut order, mut cursors, mut every) = (Vec::new(), Vec::new(), vec![7]);
            sharing_every_key(&ids, &runs, segments, (&mut order, &mut cursors), &mut every);
            let (mut counts, mut ranked) = (Counts::default(), Vec::new());
            count_entries(&ids, 60, &mut counts, &mut ranked);
            ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let first: Vec<u64> = ranked
                .iter()
                .take_while(|&&(_, n)| n as usize == keys)
                .map(|&(id, _)| id)
                .collect();
            prop_assert_eq!(&every, &first);
        }

        /// A forward search finds what a binary search of the rest finds, from any start.
        #[test]
        fn seek_finds_what_a_binary_search_finds(
            list in proptest::collection::btree_set(0u64..1000, 0..200),
            asked in proptest::collection::btree_set(0u64..1000, 0..50),
        ) {
            let list: Vec<u64> = list.into_iter().collect();
            let mut at = 0;
            for id in asked {
                let want = list.binary_search(&id).is_ok();
                prop_assert_eq!(seek(&list, &mut at, id), want);
                prop_assert_eq!(at, list.partition_point(|&x| x < id));
            }
        }

        /// Candidates counted in the table and put in order a chunk at a time come out as a
        /// count and a full sort would give them.
        #[test]
        fn candidates_counted_and_ordered_lazily_equal_brute_force(
            ids in proptest::collection::vec(0u64..300, 0..2000),
            first in 1usize..40,
        ) {
            let (mut counts, mut ranked) = (Counts::default(), Vec::new());
            // Counted in the array (ids below 300), past it (some ids not below `pages`: the
            // table after all), and in the table (an index of more ids than the array holds).
            let pages = [300, 200, super::DIRECT_COUNTS + 1][ids.len() % 3];
            count_entries(&ids, pages, &mut counts, &mut ranked);
            prop_assert!(counts.direct.iter().all(|&c| c == 0));
            let mut want: Vec<(u64, u32)> = Vec::new();
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            for id in sorted {
                match want.last_mut() {
                    Some((last, n)) if *last == id => *n += 1,
                    _ => want.push((id, 1)),
                }
            }
            want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let (mut at, mut chunk) = (0, first);
            while at < ranked.len() {
                let next = order_prefix(&mut ranked, at, chunk);
                prop_assert!(next > at);
                prop_assert_eq!(&ranked[..next], &want[..next]);
                at = next;
                chunk *= 2;
            }
            prop_assert_eq!(ranked, want);
        }
    }
}

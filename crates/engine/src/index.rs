//! The persistent index as a job (issue 18, first slice): create an index with fixed
//! parameters, add crawls to it (one key segment and one catalog segment per add, then the
//! manifest), and query pages against everything added before. Storage is
//! [`neardup_index`]'s; this module sketches, keys and scores.
//!
//! Keys: for each of the index's `b` bands, `band_key(minvalues of the band) ^ fmix(t + 1)`
//! ([`band_entry_key`]), so one sorted key segment serves every band. A candidate is accepted
//! at the index's Jaccard threshold: exact when both pages kept their shingle sets (small
//! pages), else estimated from the minvalues (the rule of `dedup --lsh bands`).

use crate::load::load;
use crate::{Error, Input, PipelineConfig, Progress};
use neardup_index::{
    CatalogPage, CatalogReader, CatalogWriter, IndexError, KeySegmentReader, KeySegmentWriter,
    Manifest, Matching, SegmentEntry, WriterLock,
};
use neardup_sketch::{Family, SketchParams};
use neardup_store::Corpus;
use std::path::{Path, PathBuf};

/// The key of band `t` of a page's stored minvalues in a key segment.
pub fn band_entry_key(family: &Family, minvalues: &[u32], t: usize, rows: usize) -> u64 {
    family.band_key(&minvalues[t * rows..(t + 1) * rows])
        ^ neardup_sketch::rabin::fmix(t as u64 + 1)
}

/// Creates an empty index in `dir` for signatures of `params`, accepting matches at Jaccard
/// `threshold` (bands chosen by the same rule as `dedup --lsh bands`).
pub fn create(dir: &Path, params: &SketchParams, threshold: f64) -> Result<Manifest, Error> {
    params.validate()?;
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(
            crate::SettingsError::new("threshold", threshold, "a Jaccard in (0, 1]").into(),
        );
    }
    let b = neardup_candidates::optimal_bands(params.m, threshold, 0.5, 0.5);
    let _lock = WriterLock::acquire_creating(dir)?;
    Ok(Manifest::create(
        dir,
        params,
        Matching {
            bands: b.bands,
            rows: b.rows,
            threshold,
        },
    )?)
}

/// What an add did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddReport {
    /// Pages added (sketched pages of the inputs).
    pub pages: u64,
    /// Their ids: `first..first + pages`.
    pub first_id: u64,
    /// The manifest generation now live.
    pub generation: u64,
}

/// Adds the pages of `inputs` to the index in `dir` under `label`: one catalog segment and one
/// key segment, then the manifest (the add is all there or not at all).
pub fn add(
    dir: &Path,
    inputs: &[Input],
    label: &str,
    pipeline: &PipelineConfig,
    progress: &dyn Progress,
) -> Result<AddReport, Error> {
    let _lock = WriterLock::acquire(dir)?;
    let mut manifest = Manifest::open(dir)?;
    remove_orphans(dir, &manifest)?;
    let loaded = load(inputs, pipeline, &manifest.params, false, None, progress)?;
    let corpus = &loaded.corpus;
    let first = next_id(&manifest);
    let generation = manifest.generation + 1;
    let pages_name = format!("seg-{generation}.pages");
    let keys_name = format!("seg-{generation}.keys");
    let mut catalog = CatalogWriter::create(&dir.join(&pages_name), manifest.params.m, first)?;
    let mut page = CatalogPage::default();
    for p in 0..corpus.len() {
        fill(corpus, p, &mut page);
        catalog.push(&page)?;
    }
    let (pages, pages_bytes) = catalog.finish()?;
    // Keys sorted in memory for now (issue 18: external sorting under --mem-limit is next).
    let (bands, rows) = (
        manifest.matching.bands as usize,
        manifest.matching.rows as usize,
    );
    let family = corpus.family();
    let mut entries: Vec<(u64, u64)> = Vec::with_capacity(corpus.len() as usize * bands);
    for p in 0..corpus.len() {
        let mv = corpus.minvalues(p);
        for t in 0..bands {
            entries.push((band_entry_key(family, mv, t, rows), first + p as u64));
        }
    }
    entries.sort_unstable();
    let mut keys = KeySegmentWriter::create(&dir.join(&keys_name))?;
    for &(k, id) in &entries {
        keys.push(k, id)?;
    }
    let (key_entries, keys_bytes) = keys.finish()?;
    manifest.segments.push(SegmentEntry {
        name: pages_name,
        entries: pages,
        bytes: pages_bytes,
        label: label.to_string(),
    });
    manifest.segments.push(SegmentEntry {
        name: keys_name,
        entries: key_entries,
        bytes: keys_bytes,
        label: label.to_string(),
    });
    manifest.commit(dir)?;
    Ok(AddReport {
        pages,
        first_id: first,
        generation: manifest.generation,
    })
}

/// Removes what a writer that crashed left behind (with the lock held): unfinished files and
/// segments no manifest names. The manifest is the truth; nothing it names is touched.
fn remove_orphans(dir: &Path, m: &Manifest) -> Result<(), Error> {
    let live: std::collections::HashSet<&str> =
        m.segments.iter().map(|s| s.name.as_str()).collect();
    let entries = std::fs::read_dir(dir).map_err(|e| IndexError::io(dir, e))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let orphan = name.ends_with(".partial")
            || name == "MANIFEST.tmp"
            || (name.starts_with("seg-")
                && (name.ends_with(".keys") || name.ends_with(".pages"))
                && !live.contains(name.as_str()));
        if orphan {
            std::fs::remove_file(e.path()).map_err(|err| IndexError::io(&e.path(), err))?;
        }
    }
    Ok(())
}

/// What `index check` found: every segment read whole and checked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CheckReport {
    /// Manifest generation checked.
    pub generation: u64,
    /// Segments checked.
    pub segments: usize,
    /// Pages in the catalog segments.
    pub pages: u64,
    /// Entries in the key segments.
    pub keys: u64,
    /// Bytes of the live segments.
    pub bytes: u64,
}

/// Reads every live segment of the index in `dir` whole, checking every checksum, the order
/// of keys, that every page id is held once and that every key names a held page; the first
/// problem is the error (file, byte offset, what).
pub fn check(dir: &Path) -> Result<CheckReport, Error> {
    let m = Manifest::open(dir)?;
    let mut r = CheckReport {
        generation: m.generation,
        segments: m.segments.len(),
        pages: 0,
        keys: 0,
        bytes: 0,
    };
    // Catalogs first: the keys are checked against the page ids they hold.
    let (catalogs, keys): (Vec<&SegmentEntry>, Vec<&SegmentEntry>) =
        m.segments.iter().partition(|s| s.is_catalog());
    let mut ranges = Vec::new();
    for s in catalogs {
        let path = checked_size(dir, s, &mut r.bytes)?;
        let c = CatalogReader::open(&path)?;
        r.pages += counted(&path, "pages", c.check()?, s.entries)?;
        ranges.push(c.ids());
    }
    ranges.sort_by_key(|r| r.start);
    if let Some(w) = ranges.windows(2).find(|w| w[0].end > w[1].start) {
        return Err(IndexError::damaged(
            &Manifest::path(dir),
            0,
            format!(
                "two catalog segments both hold page ids {:?} and {:?}",
                w[0], w[1]
            ),
        )
        .into());
    }
    let held = |id: u64| ranges.iter().any(|r| r.contains(&id));
    for s in keys {
        let path = checked_size(dir, s, &mut r.bytes)?;
        let n = KeySegmentReader::open(&path)?.check(held)?;
        r.keys += counted(&path, "keys", n, s.entries)?;
    }
    Ok(r)
}

/// The path of segment `s`, its size checked against the manifest and added to `bytes`.
fn checked_size(dir: &Path, s: &SegmentEntry, bytes: &mut u64) -> Result<PathBuf, Error> {
    let path = dir.join(&s.name);
    let size = std::fs::metadata(&path)
        .map_err(|e| IndexError::io(&path, e))?
        .len();
    if size != s.bytes {
        let what = format!("{size} bytes where the manifest says {}", s.bytes);
        return Err(IndexError::damaged(&path, 0, what).into());
    }
    *bytes += size;
    Ok(path)
}

/// `n` when it is the count the manifest says.
fn counted(path: &Path, what: &str, n: u64, manifest: u64) -> Result<u64, Error> {
    if n != manifest {
        let what = format!("{n} {what} where the manifest says {manifest}");
        return Err(IndexError::damaged(path, 0, what).into());
    }
    Ok(n)
}

/// The id the next added page gets: one past the pages of every catalog segment.
fn next_id(m: &Manifest) -> u64 {
    m.segments
        .iter()
        .filter(|s| s.is_catalog())
        .map(|s| s.entries)
        .sum()
}

fn fill(corpus: &Corpus, p: u32, out: &mut CatalogPage) {
    let m = corpus.page(p);
    out.url.clear();
    out.url.push_str(m.url);
    out.user_id.clear();
    out.user_id.push_str(m.user_id);
    out.date.clear();
    out.date.push_str(m.date);
    out.host.clear();
    out.host.push_str(m.host);
    out.token_hash = m.token_hash;
    out.body_hash = m.body_hash;
    out.tokens = m.tokens;
    out.shingles = m.shingles;
    out.minvalues.clear();
    out.minvalues.extend_from_slice(corpus.minvalues(p));
    out.shingle_set.clear();
    out.shingle_set
        .extend_from_slice(corpus.shingles(p).unwrap_or_default());
}

/// One match of a queried page: the indexed page, its crawl label, the evidence.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryRow {
    /// The queried page.
    pub url: String,
    /// Its id (user id or WARC-Record-ID).
    pub id: String,
    /// The indexed page it matches.
    pub match_url: String,
    /// That page's id.
    pub match_id: String,
    /// The label of the crawl it was added with.
    pub match_label: String,
    /// The index's page id.
    pub match_page: u64,
    /// Which rule matched: identical tokens, or an LSH band collision at the threshold.
    pub rule: neardup_dedup::Rule,
    /// The same token sequence.
    pub identical_tokens: bool,
    /// The same body bytes (a payload-digest duplicate).
    pub identical_body: bool,
    /// Share of agreeing minvalues.
    pub estimated_jaccard: f64,
    /// Exact Jaccard when both pages kept their shingle sets.
    pub exact_jaccard: Option<f64>,
}

/// Queries every page of `inputs` against the index in `dir` (a snapshot: the manifest as it
/// was when the query began); returns every match, page by page, best first.
pub fn query(
    dir: &Path,
    inputs: &[Input],
    pipeline: &PipelineConfig,
    progress: &dyn Progress,
) -> Result<Vec<QueryRow>, Error> {
    let manifest = Manifest::open(dir)?;
    let loaded = load(inputs, pipeline, &manifest.params, false, None, progress)?;
    let corpus = &loaded.corpus;
    let mut key_segments = Vec::new();
    let mut catalogs = Vec::new();
    for s in &manifest.segments {
        let path = dir.join(&s.name);
        if s.is_catalog() {
            catalogs.push((CatalogReader::open(&path)?, s.label.clone()));
        } else {
            key_segments.push(KeySegmentReader::open(&path)?);
        }
    }
    let (bands, rows) = (
        manifest.matching.bands as usize,
        manifest.matching.rows as usize,
    );
    let family = corpus.family();
    let mut out = Vec::new();
    let mut ids = Vec::new();
    let mut scratch = Vec::new();
    let mut hit = CatalogPage::default();
    for p in 0..corpus.len() {
        ids.clear();
        let mv = corpus.minvalues(p);
        for t in 0..bands {
            let key = band_entry_key(family, mv, t, rows);
            for seg in &key_segments {
                seg.lookup(key, &mut scratch, &mut ids)?;
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let page = corpus.page(p);
        let first_row = out.len();
        for &id in &ids {
            let Some((catalog, label)) = catalogs.iter().find(|(c, _)| c.ids().contains(&id))
            else {
                continue;
            };
            catalog.get(id, &mut hit)?;
            let identical_tokens = hit.token_hash == page.token_hash && hit.tokens == page.tokens;
            let est = neardup_candidates::estimated_jaccard(mv, &hit.minvalues);
            let exact = match corpus.shingles(p) {
                Some(a) if !hit.shingle_set.is_empty() => {
                    Some(neardup_candidates::exact_jaccard(a, &hit.shingle_set))
                }
                _ => None,
            };
            if identical_tokens || exact.unwrap_or(est) >= manifest.matching.threshold {
                out.push(QueryRow {
                    url: page.url.to_string(),
                    id: page.user_id.to_string(),
                    match_url: hit.url.clone(),
                    match_id: hit.user_id.clone(),
                    match_label: label.clone(),
                    match_page: id,
                    rule: if identical_tokens {
                        neardup_dedup::Rule::IdenticalTokens
                    } else {
                        neardup_dedup::Rule::LshBands
                    },
                    identical_tokens,
                    identical_body: hit.body_hash == page.body_hash,
                    estimated_jaccard: est,
                    exact_jaccard: exact,
                });
            }
        }
        out[first_row..].sort_by(|a, b| {
            let j = |r: &QueryRow| r.exact_jaccard.unwrap_or(r.estimated_jaccard);
            j(b).total_cmp(&j(a)).then(a.match_page.cmp(&b.match_page))
        });
    }
    Ok(out)
}

//! Adds happen once: which record a page is, whether the index (or the add so far) already
//! holds it, and which inputs were added before.
//!
//! Two pages are the same record ([`same_record`]) when they carry the same WARC-Record-ID and
//! URL (normalized; a writer that numbers its records afresh in every file repeats ids), or the
//! same URL, payload SHA-1 and date (and the same id, when the id is the user's and not a
//! WARC-Record-ID). A page with neither a URL nor an id (a text with only its
//! text) has no identity: it is never held. Every add path asks [`Snapshot::held_record`]
//! before storing a page and answers "held" with the held page's id instead: `index add`,
//! `dedup --add-as`, the service's adds ([`crate::Writer`]) and adds in parts (Spark).
//!
//! Inputs: the manifest records each added file's size and XXH3-128 ([`InputEntry`]); an add
//! of a file already recorded is refused before it is read ([`IndexError::AlreadyAdded`]),
//! unless asked to add it again (then its records are still held one by one).

use crate::snapshot::Snapshot;
use crate::{CatalogPage, IndexError, Manifest};
use neardup_pipeline::Input;
use std::collections::HashSet;

/// Whether `id` is a WARC-Record-ID (`<scheme:...>`), unique by the WARC standard, rather
/// than a user's id, which is unique only within its dataset.
pub fn is_warc_record_id(id: &str) -> bool {
    id.len() > 2 && id.starts_with('<') && id.ends_with('>') && id.contains(':')
}

/// The key under which a page's id is found in key segments (index format 5).
pub fn id_key(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(id.as_bytes(), ID_KEY_SEED)
}

const ID_KEY_SEED: u64 = 0x6964_6b65_7931;

/// Whether `a` and `b` are the same record (see the module's rule).
pub fn same_record(a: &CatalogPage, b: &CatalogPage) -> bool {
    let both_warc = is_warc_record_id(&a.user_id) && is_warc_record_id(&b.user_id);
    if both_warc && a.user_id == b.user_id && same_url(&a.url, &b.url) {
        return true;
    }
    has_identity(a)
        && a.payload_sha1 == b.payload_sha1
        && a.date == b.date
        && user_id(a) == user_id(b)
        && same_url(&a.url, &b.url)
}

/// The page's id when it is the user's (a WARC-Record-ID, or none, gives "": a capture
/// rewritten with new record ids is still the same record).
fn user_id(p: &CatalogPage) -> &str {
    if is_warc_record_id(&p.user_id) {
        ""
    } else {
        &p.user_id
    }
}

/// Whether the page can be recognized again: a URL or a user's id.
fn has_identity(p: &CatalogPage) -> bool {
    !p.url.is_empty() || !user_id(p).is_empty()
}

/// The keys under which the same record is found in key segments: its URL's and its id's.
pub(crate) fn identity_keys(p: &CatalogPage) -> [Option<u64>; 2] {
    identity_keys_of(&p.url, &p.user_id)
}

/// [`identity_keys`] of a page with this URL and id.
pub(crate) fn identity_keys_of(url: &str, user_id: &str) -> [Option<u64>; 2] {
    [
        (!url.is_empty()).then(|| crate::url_key(url)),
        (!user_id.is_empty()).then(|| id_key(user_id)),
    ]
}

/// Whether two URLs are the same capture's (normalized as [`crate::url_key`] normalizes them).
pub(crate) fn same_url(a: &str, b: &str) -> bool {
    a == b || {
        let n = |u: &str| neardup_text::normalize_url(u).unwrap_or_else(|| u.to_string());
        n(a) == n(b)
    }
}

/// 128-bit fingerprints of a page's identities (its WARC-Record-ID; its URL, digest, date and
/// user id): two pages with a fingerprint in common are the same record, but for a 2^-128
/// chance.
fn fingerprints(p: &CatalogPage) -> [Option<u128>; 2] {
    use xxhash_rust::xxh3::Xxh3;
    let warc = is_warc_record_id(&p.user_id);
    let url = neardup_text::normalize_url(&p.url);
    let url = url.as_deref().unwrap_or(&p.url);
    let by_id = warc.then(|| {
        let mut h = Xxh3::new();
        for s in [url, &p.user_id] {
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
        h.digest128()
    });
    let by_capture = has_identity(p).then(|| {
        let mut h = Xxh3::with_seed(ID_KEY_SEED);
        for s in [url, &p.date, user_id(p)] {
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
        h.update(&p.payload_sha1);
        h.digest128()
    });
    [by_id, by_capture]
}

/// The records of one add so far, held as fingerprints up to a memory cap: a page seen again
/// within the add is held like a page the index held before.
pub(crate) struct Seen {
    set: HashSet<u128>,
    cap: usize,
    /// Pages past the cap, whose repeats within the add were not looked for.
    pub(crate) untracked: u64,
}

/// Bytes a fingerprint takes in the set (with the table's slack).
const FINGERPRINT_BYTES: usize = 40;

/// Bytes a key found by [`Holds::asked_before`] takes in its set (with the table's slack).
const FOUND_KEY_BYTES: usize = 24;

impl Seen {
    /// A record of at most `bytes` of fingerprints.
    pub(crate) fn new(bytes: usize) -> Seen {
        Seen {
            set: HashSet::new(),
            cap: bytes / FINGERPRINT_BYTES,
            untracked: 0,
        }
    }

    /// Whether `p` was seen before in this add; remembers it.
    pub(crate) fn seen(&mut self, p: &CatalogPage) -> bool {
        let prints = fingerprints(p);
        if prints.iter().flatten().any(|f| self.set.contains(f)) {
            return true;
        }
        for f in prints.into_iter().flatten() {
            if self.set.len() >= self.cap {
                self.untracked += 1;
                break;
            }
            self.set.insert(f);
        }
        false
    }
}

/// What an add asks of each page before storing it: held by the index, or by the add so far.
pub(crate) struct Holds<'a> {
    snap: Option<&'a Snapshot>,
    /// The identity keys of the add's pages that the index has entries under, when asked
    /// before ([`Holds::asked_before`]): a page with none of them is not held by the index.
    present: Option<HashSet<u64>>,
    seen: Seen,
    /// Pages held (not stored).
    pub(crate) held: u64,
}

impl<'a> Holds<'a> {
    /// Checks against `snap` (the index before the add) and within the add, remembering at
    /// most `bytes` of fingerprints.
    pub(crate) fn new(snap: Option<&'a Snapshot>, bytes: usize) -> Holds<'a> {
        Holds {
            snap,
            present: None,
            seen: Seen::new(bytes),
            held: 0,
        }
    }

    /// Asks the index once for every identity key of the pages to come (`keys`, increasing,
    /// repeats allowed: [`crate::Staged::take_identity_keys`]), one pass over each key
    /// segment ([`crate::KeySegmentReader::seeker`]); then only a page with a key found
    /// there is looked for among the index's records. Without it, every page's keys are
    /// looked up one by one in every segment: a block read and decoded per key, which made
    /// an add's time grow with the index (bench/results/index-scale-40m-2026-11-30.md).
    /// Keys found past `bytes` of them (an add of records mostly held already) leave every
    /// page looked up one by one.
    pub(crate) fn asked_before(
        &mut self,
        keys: impl Iterator<Item = Result<u64, IndexError>>,
        bytes: usize,
    ) -> Result<(), IndexError> {
        if let Some(snap) = self.snap {
            self.present = snap.present_keys(keys, bytes / FOUND_KEY_BYTES)?;
        }
        Ok(())
    }

    /// Whether `p` is held (then counted and not to be stored).
    pub(crate) fn held(&mut self, p: &CatalogPage) -> Result<bool, IndexError> {
        let may = |present: &HashSet<u64>| {
            identity_keys(p)
                .into_iter()
                .flatten()
                .any(|k| present.contains(&k))
        };
        let before = match self.snap {
            Some(s) if self.present.as_ref().is_none_or(may) => s.held_record(p)?.is_some(),
            _ => false,
        };
        let held = self.seen.seen(p) || before;
        self.held += u64::from(held);
        Ok(held)
    }

    /// Pages whose repeats within the add were not looked for (past the memory cap).
    pub(crate) fn untracked(&self) -> u64 {
        self.seen.untracked
    }
}

impl Snapshot {
    /// Of `keys` (increasing, repeats allowed), those some key segment has entries under
    /// (under their bits kept): one pass over each segment, each block read at most once.
    /// `None` once more than `cap` are found.
    pub(crate) fn present_keys(
        &self,
        keys: impl Iterator<Item = Result<u64, IndexError>>,
        cap: usize,
    ) -> Result<Option<HashSet<u64>>, IndexError> {
        let mut seekers: Vec<_> = self.keys().iter().map(|s| s.seeker()).collect();
        let (mut found, mut pages, mut last) = (HashSet::new(), Vec::new(), None);
        for key in keys {
            let key = key?;
            if last == Some(key) {
                continue;
            }
            last = Some(key);
            for s in &mut seekers {
                pages.clear();
                s.lookup(key, &mut pages)?;
                if !pages.is_empty() {
                    if found.len() >= cap {
                        return Ok(None);
                    }
                    found.insert(key);
                    break;
                }
            }
        }
        Ok(Some(found))
    }

    /// The id of a held page that is the same record as `p` (the smallest), if any.
    pub fn held_record(&self, p: &CatalogPage) -> Result<Option<u64>, IndexError> {
        if !has_identity(p) {
            return Ok(None);
        }
        for key in identity_keys(p).into_iter().flatten() {
            // In id order: the first is the smallest.
            if let Some((id, _, _)) = self.held_under(key, |q| same_record(q, p))?.first() {
                return Ok(Some(*id));
            }
        }
        Ok(None)
    }
}

/// An input file an add read, as the manifest records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputEntry {
    /// The file's XXH3-128 (seed 0) over its bytes.
    pub digest: u128,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its name as the add was given it.
    pub name: String,
    /// The crawl label it was added under.
    pub label: String,
    /// The manifest generation that made it live.
    pub generation: u64,
    /// The language detector that told its pages' languages
    /// (`neardup_text::language::DETECTOR`); empty when not recorded (added by a build
    /// writing index version 7 or earlier).
    pub language_detector: String,
}

/// The language detectors that told the languages of the files added, each once, in the
/// order first added; a file added before detectors were recorded (index version 7 or
/// earlier) counts as "a detector not recorded".
pub fn language_detectors(manifest: &Manifest) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for e in &manifest.inputs {
        let d = match e.language_detector.as_str() {
            "" => "a detector not recorded (files added before index version 8)",
            d => d,
        };
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// [`language_detectors`] but this build's: what an add says before it mixes its pages'
/// languages with theirs.
pub fn other_language_detectors(manifest: &Manifest) -> Vec<&str> {
    let mut all = language_detectors(manifest);
    all.retain(|d| *d != neardup_text::language::DETECTOR);
    all
}

/// The size and XXH3-128 of each file input (`None` for standard input and folders).
pub(crate) fn input_digests(inputs: &[Input]) -> Result<Vec<Option<(u128, u64)>>, IndexError> {
    inputs
        .iter()
        .map(|i| {
            let Some(path) = i.as_path().filter(|p| neardup_ingest::files::is_file(p)) else {
                return Ok(None);
            };
            neardup_pipeline::inputs::file_digest(path)
                .map(Some)
                .map_err(|e| IndexError::io(path, e))
        })
        .collect()
}

/// What an add's inputs ask of the index.
pub(crate) enum InputsCheck {
    /// Read them; the entries to record for its files once it commits (generation filled in
    /// then).
    Add(Vec<InputEntry>),
    /// Every input is a file the index records as added under the same label (a rerun of an
    /// add that committed): nothing to do. The generation that made the last of them live.
    Done(u64),
}

/// Refuses an add of a file the manifest records as added (unless `again`), but, with
/// `done_ok`, an add all of whose inputs are files added under `label` is [`InputsCheck::Done`].
pub(crate) fn check(
    manifest: &Manifest,
    inputs: &[Input],
    label: &str,
    again: bool,
    done_ok: bool,
) -> Result<InputsCheck, IndexError> {
    let digests = input_digests(inputs)?;
    if done_ok && !again && !inputs.is_empty() {
        let recorded = |d: &Option<(u128, u64)>| {
            let (digest, bytes) = (*d)?;
            manifest
                .inputs
                .iter()
                .find(|e| e.digest == digest && e.bytes == bytes && e.label == label)
                .map(|e| e.generation)
        };
        let generations: Option<Vec<u64>> = digests.iter().map(recorded).collect();
        if let Some(g) = generations {
            return Ok(InputsCheck::Done(g.into_iter().max().unwrap_or(0)));
        }
    }
    let mut out = Vec::new();
    for (input, d) in inputs.iter().zip(digests) {
        let Some((digest, bytes)) = d else { continue };
        if let Some(e) = manifest
            .inputs
            .iter()
            .find(|e| e.digest == digest && e.bytes == bytes)
        {
            if !again {
                return Err(IndexError::AlreadyAdded {
                    input: input.name(),
                    earlier: e.name.clone(),
                    label: e.label.clone(),
                    generation: e.generation,
                });
            }
        }
        if out.iter().any(|e: &InputEntry| e.digest == digest) {
            continue;
        }
        out.push(InputEntry {
            digest,
            bytes,
            name: input.name(),
            label: label.to_string(),
            generation: 0,
            language_detector: neardup_text::language::DETECTOR.to_string(),
        });
    }
    Ok(InputsCheck::Add(out))
}

/// Records `entries` in `manifest` as made live by its next commit.
pub(crate) fn record_inputs(manifest: &mut Manifest, entries: Vec<InputEntry>) {
    let generation = manifest.generation + 1;
    for mut e in entries {
        if manifest
            .inputs
            .iter()
            .any(|h| h.digest == e.digest && h.bytes == e.bytes)
        {
            continue;
        }
        e.generation = generation;
        manifest.inputs.push(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, id: &str, date: &str, d: u8) -> CatalogPage {
        CatalogPage {
            url: url.into(),
            user_id: id.into(),
            date: date.into(),
            payload_sha1: [d; 20],
            ..CatalogPage::default()
        }
    }

    #[test]
    fn the_same_record_by_warc_id_or_by_capture() {
        let a = page("http://a.org/x", "<urn:uuid:1>", "2024-01-01", 1);
        // The same WARC-Record-ID and URL: the same record, whatever else.
        assert!(same_record(
            &a,
            &page("http://a.org/x", "<urn:uuid:1>", "", 2)
        ));
        // A writer numbering records afresh in each file: the same id, another URL.
        assert!(!same_record(
            &a,
            &page("http://b.org/", "<urn:uuid:1>", "", 2)
        ));
        // Rewritten with new record ids: same URL (normalized), digest and date.
        assert!(same_record(
            &a,
            &page("HTTP://A.ORG/x", "<urn:uuid:2>", "2024-01-01", 1)
        ));
        // Another date, digest or URL: another capture.
        assert!(!same_record(
            &a,
            &page("http://a.org/x", "<urn:uuid:3>", "2024-01-02", 1)
        ));
        assert!(!same_record(
            &a,
            &page("http://a.org/x", "<urn:uuid:3>", "2024-01-01", 2)
        ));
        assert!(!same_record(
            &a,
            &page("http://a.org/y", "<urn:uuid:3>", "2024-01-01", 1)
        ));
        // Users' ids: unique only in their dataset, so the id must agree as well.
        let j = page("", "7", "", 9);
        assert!(same_record(&j, &page("", "7", "", 9)));
        assert!(!same_record(&j, &page("", "8", "", 9)));
        assert!(!same_record(&j, &page("", "7", "", 8)));
        // Neither URL nor id: never recognized again.
        assert!(!same_record(&page("", "", "", 1), &page("", "", "", 1)));
    }

    #[test]
    fn fingerprints_agree_with_the_rule() {
        let cases = [
            page("http://a.org/x", "<urn:uuid:1>", "2024-01-01", 1),
            page("http://b.org/", "<urn:uuid:1>", "", 2),
            page("http://a.org/x", "<urn:uuid:1>", "", 2),
            page("HTTP://A.ORG/x", "<urn:uuid:2>", "2024-01-01", 1),
            page("http://a.org/x", "<urn:uuid:3>", "2024-01-02", 1),
            page("", "7", "", 9),
            page("", "8", "", 9),
            page("", "", "", 1),
            page("http://a.org/x", "7", "2024-01-01", 1),
            page("http://a.org/x", "", "2024-01-01", 1),
        ];
        for a in &cases {
            for b in &cases {
                let (fa, fb) = (fingerprints(a), fingerprints(b));
                let common = fa
                    .iter()
                    .flatten()
                    .any(|f| fb.iter().flatten().any(|g| f == g));
                assert_eq!(common, same_record(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn seen_holds_repeats_and_counts_past_its_cap() {
        let mut s = Seen::new(10 * FINGERPRINT_BYTES);
        let a = page("http://a.org/", "<urn:uuid:1>", "d", 1);
        assert!(!s.seen(&a));
        assert!(s.seen(&a));
        for i in 0..20 {
            s.seen(&page(&format!("http://a.org/{i}"), "", "d", 1));
        }
        assert!(s.untracked > 0);
    }
}

//! The manifest: the index's parameters and its live segments, one small file replaced
//! atomically and durably on every change.
//!
//! Layout (little-endian):
//!
//! ```text
//! magic      8 bytes "NDIDXMAN"
//! version    u32     INDEX_VERSION
//! generation u64     incremented by every change
//! next_page  u64     the id the next added page gets (ids are never reused)
//! params     u32 length + JSON of SketchParams (fixed when the index is created)
//! matching   u32 length + JSON of Matching (the candidate keys and the acceptance threshold)
//! storage    (version 9 on) u32 length + JSON of Storage (what each page's record keeps; read
//!            as Storage::EVERYTHING before)
//! segments   u32 count, then per segment: u32 length + file name, u64 entries, u64 bytes,
//!            u32 length + crawl label
//! inputs     (version 5) u32 count, then per file added: u128 XXH3-128 of its bytes, u64
//!            size, u64 generation that made it live, u32 length + name, u32 length + label,
//!            (version 8) u32 length + the language detector that told its pages' languages
//! checksum   u64     XXH3-64 (seed 0) of every byte before it
//! ```

use crate::{fsutil, io_err, IndexError, InputEntry};
use neardup_sketch::SketchParams;
use std::path::{Path, PathBuf};

/// The first bytes of a manifest.
pub const MAGIC: &[u8; 8] = b"NDIDXMAN";

pub use crate::INDEX_VERSION;

/// How the index finds and accepts matches: LSH bands over the minvalues, a pair accepted at
/// Jaccard `threshold` (exact when both pages kept their shingle sets, else estimated), or at
/// estimated containment `containment` (as `dedup`'s `DedupConfig`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Matching {
    /// Bands (one key per band per page).
    pub bands: u32,
    /// Minvalues per band.
    pub rows: u32,
    /// The Jaccard a match must reach.
    pub threshold: f64,
    /// The containment that also accepts a pair (with Jaccard at least 0.4), if any.
    pub containment: Option<f64>,
    /// The Jaccard a pair whose titles name different items needs (site names learned from
    /// the `.titles` segments set aside), if titles are compared.
    #[serde(default)]
    pub different_titles_need: Option<f64>,
}

/// What the index keeps of each page beyond what finding its matches needs, chosen when the
/// index is created and the same for every page: the low bits of its minvalues (Li and
/// König's b-bit minwise hashing; scores corrected for the collisions of so few bits) and its
/// capture print (what `index changes` compares across captures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    /// Bits of each minvalue kept: 16 or 32.
    pub minvalue_bits: u32,
    /// Whether each page's capture print is kept (timelines: `index changes`).
    pub capture_prints: bool,
    /// Bits of each key its key segments keep (the top ones; [`crate::segment`]): a lookup
    /// finds the pages of every key sharing them, and tells them apart by their facts.
    pub key_bits: u32,
    /// Bits of each member of a small page's kept shingle set (the low ones; an even width
    /// from 18 to 32, at least `minvalue_bits`): its Jaccard with another kept set is taken on
    /// them ([`neardup_candidates::exact_jaccard_at`]). 32 in indexes before version 14.
    #[serde(default = "Storage::whole_sets")]
    pub set_bits: u32,
}

impl Storage {
    /// A new index's: 16-bit minvalues (the decisions of full ones but for about one pair in
    /// 2^16 / (m (1 - J)) near the threshold), no capture prints (a third of a page's bytes;
    /// kept only where timelines are wanted), 40-bit keys (at 100 million pages, 46 keys a
    /// page, a lookup's 42 band keys meet about 0.2 chance entries in all), 22-bit shingle
    /// set members (10 bits a member less, 48 bytes a page on the development crawl, whose
    /// decisions, best matches and match lists they leave as they were: the Jaccard of two
    /// kept sets of 84 shingles at 0.8 moves in about one pair of 1,500, by about 0.002,
    /// [`neardup_candidates::exact_jaccard_at`]).
    pub const DEFAULT: Storage = Storage {
        minvalue_bits: 16,
        capture_prints: false,
        key_bits: 40,
        set_bits: 22,
    };

    /// What indexes of format 8 and before keep: every bit, every print.
    pub const EVERYTHING: Storage = Storage {
        minvalue_bits: 32,
        capture_prints: true,
        key_bits: 64,
        set_bits: 32,
    };

    /// What an index of a version before 14 keeps of its sets: every bit.
    fn whole_sets() -> u32 {
        32
    }

    /// What an index that keeps no capture prints says to one asking for a URL's changes:
    /// how to keep them; `None` when it keeps them.
    pub fn timelines_note(&self) -> Option<&'static str> {
        (!self.capture_prints).then_some(
            "this index keeps no capture prints: its captures are compared by payload digest \
             only (changed or not, no paragraphs); an index created with `neardup index create \
             --timelines` (Python: `Index.create(..., timelines=True)`) keeps them",
        )
    }

    /// In words, as `index stats` says it.
    pub fn describe(&self) -> String {
        format!(
            "{}-bit minvalues, {}-bit shingle sets, {}-bit keys, {}",
            self.minvalue_bits,
            self.set_bits,
            self.key_bits,
            if self.capture_prints {
                "capture prints kept (timelines)"
            } else {
                "no capture prints (index create --timelines keeps them)"
            }
        )
    }

    /// The storage asked for (`None`: the default's) after checking it; 32-bit minvalues keep
    /// whole sets unless `set_bits` says otherwise.
    pub fn new(
        minvalue_bits: Option<u32>,
        set_bits: Option<u32>,
        capture_prints: Option<bool>,
    ) -> Result<Storage, neardup_pipeline::SettingsError> {
        let minvalue_bits = minvalue_bits.unwrap_or(Storage::DEFAULT.minvalue_bits);
        Storage {
            minvalue_bits,
            capture_prints: capture_prints.unwrap_or(Storage::DEFAULT.capture_prints),
            key_bits: Storage::DEFAULT.key_bits,
            set_bits: set_bits.unwrap_or(Storage::DEFAULT.set_bits.max(minvalue_bits)),
        }
        .checked()
    }

    /// This storage if an index can keep it.
    pub fn checked(self) -> Result<Storage, neardup_pipeline::SettingsError> {
        let s = self;
        if !(1..=64).contains(&s.key_bits) {
            return Err(neardup_pipeline::SettingsError::new(
                "key_bits", s.key_bits, "1 to 64",
            ));
        }
        // 8 bits (which a record can hold) would make a band of two rows a 16-bit key: an
        // index's held pages tell their band keys from their records, and at 100 million
        // pages each lookup would score about 2^26 / 2^16 * bands chance candidates.
        if !matches!(s.minvalue_bits, 16 | 32) {
            return Err(neardup_pipeline::SettingsError::new(
                "minvalue_bits",
                s.minvalue_bits,
                "16 or 32 (8-bit band keys would make every lookup of a large index score \
                 thousands of chance candidates)",
            ));
        }
        if !crate::catalog::valid_set_width(s.set_bits) || s.set_bits < s.minvalue_bits {
            return Err(neardup_pipeline::SettingsError::new(
                "set_bits",
                s.set_bits,
                "an even number from 18 to 32, at least minvalue_bits (a minvalue is told by \
                 its place in the set)",
            ));
        }
        Ok(s)
    }
}

/// What a segment file holds, told by its name's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// `.pages`: page id -> facts ([`crate::catalog`]).
    Catalog,
    /// `.keys`: candidate and digest keys -> page ids ([`crate::segment`]).
    Keys,
    /// `.links`: accepted pairs (page id -> page id) recorded by dedup runs; the index's
    /// clusters are their connected components ([`crate::segment`]'s format).
    Links,
    /// `.titles`: per host, its pages and its pages per title segment, of the catalog of the
    /// same generation ([`crate::titles`]; [`crate::segment`]'s format, counts as values).
    Titles,
}

impl SegmentKind {
    /// The kind of the segment file `name`, told by its extension; `None` for another file.
    pub fn of_name(name: &str) -> Option<SegmentKind> {
        let ext = name.rsplit_once('.')?.1;
        [
            SegmentKind::Catalog,
            SegmentKind::Keys,
            SegmentKind::Links,
            SegmentKind::Titles,
        ]
        .into_iter()
        .find(|k| k.extension() == ext)
    }

    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            SegmentKind::Catalog => "pages",
            SegmentKind::Keys => "keys",
            SegmentKind::Links => "links",
            SegmentKind::Titles => "titles",
        }
    }
}

/// A live segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentEntry {
    /// File name inside the index folder.
    pub name: String,
    /// Entries it holds.
    pub entries: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// The crawl label it was added with.
    pub label: String,
}

impl SegmentEntry {
    /// What the segment holds, `None` for a name no kind has.
    pub fn kind(&self) -> Option<SegmentKind> {
        SegmentKind::of_name(&self.name)
    }

    /// A catalog segment (page facts; `.pages`).
    pub fn is_catalog(&self) -> bool {
        self.kind() == Some(SegmentKind::Catalog)
    }

    /// Whether it is a catalog or a catalog's `.titles` segment: what a compaction of keys
    /// and links keeps as it is.
    pub fn is_catalog_or_titles(&self) -> bool {
        matches!(
            self.kind(),
            Some(SegmentKind::Catalog) | Some(SegmentKind::Titles)
        )
    }
}

/// The state of an index.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// Incremented by every committed change.
    pub generation: u64,
    /// The id the next added page gets: ids are never reused, so a removed crawl's ids stay
    /// unheld.
    pub next_page: u64,
    /// The signature parameters every page of the index was sketched with.
    pub params: SketchParams,
    /// The candidate keys and the acceptance threshold.
    pub matching: Matching,
    /// What each page's record keeps.
    pub storage: Storage,
    /// Live segments, oldest first.
    pub segments: Vec<SegmentEntry>,
    /// The files added so far, oldest first (format 5; empty in older indexes).
    pub inputs: Vec<InputEntry>,
}

/// Refuses a folder holding anything but a writer lock: what an index is created in. A folder
/// not there yet is refused by no one.
pub(crate) fn refuse_others(dir: &Path) -> Result<(), IndexError> {
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        r => r.map_err(io_err(dir))?,
    };
    let mut others: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != crate::lock::LOCK_FILE)
        .collect();
    others.sort();
    match others.first() {
        Some(first) => Err(IndexError::NotEmpty {
            path: dir.to_path_buf(),
            count: others.len(),
            first: first.clone(),
        }),
        None => Ok(()),
    }
}

impl Manifest {
    /// The manifest's path in `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("MANIFEST")
    }

    /// The name of the next generation's segment of `kind` (what an add or a merge writes).
    pub(crate) fn next_segment_name(&self, kind: SegmentKind) -> String {
        format!("seg-{}.{}", self.generation + 1, kind.extension())
    }

    /// A new, empty index in `dir` (created if missing), with `params`; refuses a folder that
    /// already holds an index.
    pub fn create(
        dir: &Path,
        params: &SketchParams,
        matching: Matching,
        storage: Storage,
    ) -> Result<Manifest, IndexError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let path = Manifest::path(dir);
        if path.exists() {
            return Err(IndexError::Exists { path });
        }
        // A folder of its own: nothing but the writer lock this create holds.
        refuse_others(dir)?;
        let m = Manifest {
            generation: 0,
            next_page: 0,
            params: params.clone(),
            matching,
            storage,
            segments: Vec::new(),
            inputs: Vec::new(),
        };
        fsutil::replace(&path, &m.encode())?;
        Ok(m)
    }

    /// Reads the manifest of the index in `dir`, checking it.
    pub fn open(dir: &Path) -> Result<Manifest, IndexError> {
        let path = Manifest::path(dir);
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        Manifest::decode(&bytes).map_err(|(offset, what)| IndexError::Damaged {
            path,
            offset,
            what,
        })
    }

    /// Refuses a run whose parameters differ from the index's, naming both.
    pub fn check_params(&self, run: &SketchParams) -> Result<(), IndexError> {
        if &self.params == run {
            return Ok(());
        }
        let json = |p: &SketchParams| serde_json::to_string(p).unwrap_or_default();
        Err(IndexError::ParamsMismatch {
            index: json(&self.params),
            run: json(run),
        })
    }

    /// Writes this manifest as the next generation of the index in `dir`.
    pub fn commit(&mut self, dir: &Path) -> Result<(), IndexError> {
        self.generation += 1;
        fsutil::replace(&Manifest::path(dir), &self.encode())
    }

    fn encode(&self) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(MAGIC);
        v.extend_from_slice(&INDEX_VERSION.to_le_bytes());
        v.extend_from_slice(&self.generation.to_le_bytes());
        v.extend_from_slice(&self.next_page.to_le_bytes());
        let put = |v: &mut Vec<u8>, s: &[u8]| {
            v.extend_from_slice(&(s.len() as u32).to_le_bytes());
            v.extend_from_slice(s);
        };
        put(
            &mut v,
            serde_json::to_string(&self.params)
                .expect("parameters serialize")
                .as_bytes(),
        );
        put(
            &mut v,
            serde_json::to_string(&self.matching)
                .expect("matching serializes")
                .as_bytes(),
        );
        put(
            &mut v,
            serde_json::to_string(&self.storage)
                .expect("storage serializes")
                .as_bytes(),
        );
        v.extend_from_slice(&(self.segments.len() as u32).to_le_bytes());
        for s in &self.segments {
            put(&mut v, s.name.as_bytes());
            v.extend_from_slice(&s.entries.to_le_bytes());
            v.extend_from_slice(&s.bytes.to_le_bytes());
            put(&mut v, s.label.as_bytes());
        }
        v.extend_from_slice(&(self.inputs.len() as u32).to_le_bytes());
        for i in &self.inputs {
            v.extend_from_slice(&i.digest.to_le_bytes());
            v.extend_from_slice(&i.bytes.to_le_bytes());
            v.extend_from_slice(&i.generation.to_le_bytes());
            put(&mut v, i.name.as_bytes());
            put(&mut v, i.label.as_bytes());
            put(&mut v, i.language_detector.as_bytes());
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&v);
        v.extend_from_slice(&sum.to_le_bytes());
        v
    }

    fn decode(b: &[u8]) -> Result<Manifest, (u64, String)> {
        if b.len() < MAGIC.len() + 12 + 8 || &b[..8] != MAGIC {
            return Err((0, "not an index manifest (bad magic or too short)".into()));
        }
        let body = &b[..b.len() - 8];
        let want = u64::from_le_bytes(b[b.len() - 8..].try_into().expect("8 bytes"));
        let got = xxhash_rust::xxh3::xxh3_64(body);
        if want != got {
            return Err((
                body.len() as u64,
                format!("checksum mismatch: the file says {want:#018x}, its bytes give {got:#018x} (damaged or truncated)"),
            ));
        }
        let mut r = Cursor { b: body, at: 8 };
        let version = r.u32()?;
        if !(crate::OLDEST_INDEX_VERSION..=INDEX_VERSION).contains(&version) {
            return Err((
                8,
                format!(
                    "index format version {version}; this build reads versions {} to \
                     {INDEX_VERSION}",
                    crate::OLDEST_INDEX_VERSION
                ),
            ));
        }
        let generation = r.u64()?;
        let next_page = r.u64()?;
        let at = r.at as u64;
        let params: SketchParams =
            serde_json::from_str(&r.string()?).map_err(|e| (at, format!("parameters: {e}")))?;
        // Signatures of another definition never match this build's: refused, not answered
        // with nothing.
        params.validate().map_err(|e| {
            let hint = match params.version != neardup_sketch::SIGNATURE_VERSION {
                true => {
                    " (the index was made by another release: make it again with this one, \
                     `index create` then `index add` of its crawls)"
                }
                false => "",
            };
            (at, format!("parameters: {e}{hint}"))
        })?;
        let at = r.at as u64;
        let matching: Matching =
            serde_json::from_str(&r.string()?).map_err(|e| (at, format!("matching: {e}")))?;
        let at = r.at as u64;
        let storage = if version >= 9 {
            let s: Storage =
                serde_json::from_str(&r.string()?).map_err(|e| (at, format!("storage: {e}")))?;
            s.checked().map_err(|e| (at, format!("storage: {e}")))?
        } else {
            Storage::EVERYTHING
        };
        let n = r.u32()?;
        let mut segments = Vec::new();
        for _ in 0..n {
            let at = r.at as u64;
            let s = SegmentEntry {
                name: r.string()?,
                entries: r.u64()?,
                bytes: r.u64()?,
                label: r.string()?,
            };
            if s.kind().is_none() || s.name.contains(['/', '\\']) || s.name.starts_with('.') {
                return Err((
                    at,
                    format!("segment name {:?} is not a segment file's", s.name),
                ));
            }
            segments.push(s);
        }
        let mut inputs = Vec::new();
        if version >= 5 {
            let n = r.u32()?;
            for _ in 0..n {
                let digest = u128::from_le_bytes(r.take(16)?.try_into().expect("16"));
                inputs.push(InputEntry {
                    digest,
                    bytes: r.u64()?,
                    generation: r.u64()?,
                    name: r.string()?,
                    label: r.string()?,
                    language_detector: if version >= 8 {
                        r.string()?
                    } else {
                        String::new()
                    },
                });
            }
        }
        if r.at != body.len() {
            return Err((
                r.at as u64,
                "unexpected bytes after the segment list".into(),
            ));
        }
        Ok(Manifest {
            generation,
            next_page,
            params,
            matching,
            storage,
            segments,
            inputs,
        })
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], (u64, String)> {
        if self.b.len() - self.at < n {
            return Err((self.at as u64, "ends early".into()));
        }
        self.at += n;
        Ok(&self.b[self.at - n..self.at])
    }
    fn u32(&mut self) -> Result<u32, (u64, String)> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Result<u64, (u64, String)> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    fn string(&mut self) -> Result<String, (u64, String)> {
        let n = self.u32()? as usize;
        let at = self.at as u64;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| (at, "invalid UTF-8".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATCHING: Matching = Matching {
        bands: 9,
        rows: 13,
        threshold: 0.8,
        containment: Some(0.8),
        different_titles_need: Some(0.95),
    };

    #[test]
    fn create_commit_open_and_refuse() {
        let dir = tempfile::tempdir().unwrap();
        let params = SketchParams::default();
        let mut m = Manifest::create(dir.path(), &params, MATCHING, Storage::DEFAULT).unwrap();
        assert!(Manifest::create(dir.path(), &params, MATCHING, Storage::DEFAULT).is_err());
        m.segments.push(SegmentEntry {
            name: "seg-1.keys".into(),
            entries: 10,
            bytes: 400,
            label: "crawl é".into(),
        });
        m.commit(dir.path()).unwrap();
        let back = Manifest::open(dir.path()).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.generation, 1);
        assert!(!dir.path().join("MANIFEST.tmp").exists());
        let other = SketchParams {
            m: 128,
            ..params.clone()
        };
        let e = back.check_params(&other).unwrap_err().to_string();
        assert!(e.contains("\"m\":84") && e.contains("\"m\":128"), "{e}");
        back.check_params(&params).unwrap();
    }

    #[test]
    fn an_index_of_another_signature_definition_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let older = SketchParams {
            version: neardup_sketch::SIGNATURE_VERSION - 1,
            ..SketchParams::default()
        };
        Manifest::create(dir.path(), &older, MATCHING, Storage::DEFAULT).unwrap();
        let e = Manifest::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("version") && e.contains("make it again"), "{e}");
    }

    /// A new index's manifest in `dir`, with the default parameters and storage.
    fn fresh(dir: &Path) -> Manifest {
        Manifest::create(dir, &SketchParams::default(), MATCHING, Storage::DEFAULT).unwrap()
    }

    #[test]
    fn every_flipped_bit_and_every_truncation_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = fresh(dir.path());
        m.segments.push(SegmentEntry {
            name: "s.links".into(),
            entries: 1,
            bytes: 2,
            label: String::new(),
        });
        let bytes = m.encode();
        for i in 0..bytes.len() {
            for bit in [0, 3, 7] {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(Manifest::decode(&b).is_err(), "byte {i} bit {bit}");
            }
        }
        for cut in 0..bytes.len() {
            assert!(Manifest::decode(&bytes[..cut]).is_err(), "cut {cut}");
        }
        assert_eq!(Manifest::decode(&bytes).unwrap(), m);
    }

    /// Each file added names the language detector of its pages; a manifest of version 7
    /// (none named) reads with the detector not recorded, which an add then names.
    #[test]
    fn files_added_carry_their_language_detector_and_older_manifests_read_without() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = fresh(dir.path());
        let entry = |name: &str, detector: &str| InputEntry {
            digest: 7,
            bytes: 100,
            name: name.into(),
            label: "w1".into(),
            generation: 1,
            language_detector: detector.into(),
        };
        m.inputs
            .push(entry("a.warc.gz", neardup_text::language::DETECTOR));
        let bytes = m.encode();
        let back = Manifest::decode(&bytes).unwrap();
        assert_eq!(back, m);
        assert!(crate::other_language_detectors(&back).is_empty());
        m.inputs.push(entry("b.warc.gz", "another/1"));
        assert_eq!(crate::other_language_detectors(&m), ["another/1"]);
        // As version 7 wrote it: no detector after each file's label.
        m.inputs.truncate(1);
        let v9 = m.encode();
        // Version 8: no storage after the matching (read as Storage::EVERYTHING).
        let storage = serde_json::to_vec(&m.storage).unwrap();
        let mut field = (storage.len() as u32).to_le_bytes().to_vec();
        field.extend_from_slice(&storage);
        let at = v9.windows(field.len()).position(|w| w == field).unwrap();
        let v8 = [&v9[..at], &v9[at + field.len()..]].concat();
        let detector = 4 + neardup_text::language::DETECTOR.len();
        let end = v8.len() - 8;
        let mut v7 = v8[..end - detector].to_vec();
        v7[8..12].copy_from_slice(&7u32.to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&v7);
        v7.extend_from_slice(&sum.to_le_bytes());
        let old = Manifest::decode(&v7).unwrap();
        assert_eq!(old.storage, Storage::EVERYTHING);
        assert_eq!(old.inputs[0].language_detector, "");
        assert_eq!(old.inputs[0].name, "a.warc.gz");
        let others = crate::other_language_detectors(&old);
        assert!(
            others.len() == 1 && others[0].contains("not recorded"),
            "{others:?}"
        );
    }

    /// A manifest before version 14 names no set width: its sets are whole. A width is an
    /// even number from 18 to 32, never under the minvalues' (a minvalue is told by its place
    /// in the set); 32-bit minvalues keep whole sets unless asked.
    #[test]
    fn set_bits_default_check_and_read_as_whole_before_version_14() {
        let old: Storage =
            serde_json::from_str(r#"{"minvalue_bits":16,"capture_prints":false,"key_bits":40}"#)
                .unwrap();
        assert_eq!(old.set_bits, 32);
        assert_eq!(Storage::new(None, None, None).unwrap(), Storage::DEFAULT);
        assert_eq!(Storage::new(Some(32), None, None).unwrap().set_bits, 32);
        assert_eq!(Storage::new(None, Some(24), None).unwrap().set_bits, 24);
        for bad in [
            (None, Some(21)),
            (None, Some(16)),
            (None, Some(34)),
            (Some(32), Some(24)),
        ] {
            let e = Storage::new(bad.0, bad.1, None).unwrap_err().to_string();
            assert!(e.contains("set_bits"), "{e}");
        }
        let back: Storage =
            serde_json::from_str(&serde_json::to_string(&Storage::DEFAULT).unwrap()).unwrap();
        assert_eq!(back, Storage::DEFAULT);
    }
}

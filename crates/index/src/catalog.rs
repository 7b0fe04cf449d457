//! Catalog segments: the facts of the pages one add brought, by page id, read from disk one
//! record at a time (what a match reports and what verifying it needs).
//!
//! Layout (little-endian):
//!
//! ```text
//! header   32 bytes: magic "NDIDXPAG", u32 version, u32 m, u64 first page id, u64 pages
//! records  per page, version 9 on: [`compact`]'s record (version 11 on: its URL's directory
//!          may be a prefix of the table below; version 12 on: its shingle set Rice-coded and
//!          its minvalues told by their places in it); before: url, user id, date, host (each u32 length + UTF-8), u64 token hash,
//!          u64 body hash, 20 bytes payload SHA-1 (zeros: unknown), u32 chrome (f32 bits),
//!          u32 terms, u32 shingles, 4 x u32 title segments (zeros: none), m x u32 minvalues,
//!          u32 count + count x u32 shingle set (increasing; empty when not kept),
//!          u32 length + that many bytes of capture print (`neardup_evolve::change::
//!          CapturePrint`'s own versioned bytes; at most MAX_PRINT_BYTES; 0: none; absent
//!          in version 3 segments, read as none), 32 bytes payload SHA-256 (zeros: unknown;
//!          absent before version 5, read as unknown), 3 bytes language (ISO 639-3; absent
//!          before version 7, read as `und`)
//! prefixes (version 11 on) the table of URL prefixes: v count, then each as v length +
//!          UTF-8 (distinct, in the order records first named them; at most
//!          [`MAX_PREFIX_BYTES`] of them), then u64 XXH3-64 (seed 0) of the table's bytes and
//!          u64 their length
//! offsets  per page: u64 offset of its record, u64 XXH3-64 (seed 0) of the record's bytes;
//!          version 13 on, 9 bytes: u40 offset, u32 low half of that XXH3-64 (a segment's
//!          records end before 1 TiB)
//! trailer  u64 XXH3-64 (seed 0) of the header and everything from the prefixes on, then
//!          "NDIDXEND"
//! ```
//!
//! The prefix table holds the directories ([`compact::directory`]) of the segment's URLs:
//! pages of one site share theirs, so a record keeps the rest of its URL and an index into
//! the table (the development crawl: 74 bytes of URL a page become 26). A reader holds the
//! table in memory.
//!
//! A record is read with its offset entry and checked against its checksum, so a damaged
//! record or offset is reported, never returned; [`CatalogReader::check`] reads everything.

pub mod compact;
mod sets;
pub use sets::valid_width as valid_set_width;
mod v8;

use crate::fsutil::{self, PartialFile, HEADER};
use crate::{io_err, IndexError, INDEX_VERSION};
use neardup_text::language::Language;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The first bytes of a catalog segment.
pub const MAGIC: &[u8; 8] = b"NDIDXPAG";

/// Version of the records of [`CatalogPage::encode_checked`] (3: [`compact`]'s record; 4: its
/// set and minvalues of [`compact::Layout::Packed`]; 5: the number of minvalues before it).
pub const PAGE_RECORD_VERSION: u8 = 5;

/// What is wrong with a record of [`CatalogPage::encode_checked`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Fewer bytes than a version byte and a checksum.
    #[error("a page record of {0} bytes is too short")]
    Short(usize),
    /// The checksum does not match.
    #[error("a page record's checksum does not match its bytes")]
    Checksum,
    /// Another version.
    #[error("a page record of version {0}, expected {PAGE_RECORD_VERSION}")]
    Version(u8),
    /// A page of another number of minvalues (another index's parameters).
    #[error("a page record of {0} minvalues for an index of m = {1}")]
    OtherM(u64, u32),
    /// The catalog record inside does not parse.
    #[error("a page record: {0}")]
    Field(&'static str),
}

/// One page of the catalog.
#[derive(Clone, Debug, PartialEq)]
pub struct CatalogPage {
    /// URL.
    pub url: String,
    /// The user's id or WARC-Record-ID.
    pub user_id: String,
    /// Fetch date.
    pub date: String,
    /// Host, lowercased.
    pub host: String,
    /// Token-sequence hash (identical pages).
    pub token_hash: u64,
    /// XXH3-64 of the raw body (byte-identical pages).
    pub body_hash: u64,
    /// SHA-1 of the payload (exact-duplicate lookups); zeros when unknown.
    pub payload_sha1: [u8; 20],
    /// Share of the page's terms left out as chrome.
    pub chrome: f32,
    /// Number of terms.
    pub tokens: u32,
    /// Distinct shingles.
    pub shingles: u32,
    /// The title's segments (`neardup_text::TitleKey`), zeros for none.
    pub title: [u32; 4],
    /// The minvalues, `m` of them: their low `minvalue_bits` bits.
    pub minvalues: Vec<u32>,
    /// How many low bits of each minvalue the page holds: 32 as sketched; 16 or 8 as read
    /// from an index that keeps b-bit minvalues ([`crate::Storage`]).
    pub minvalue_bits: u32,
    /// The shingle set when kept (small pages), else empty: its members' low `set_bits` bits,
    /// sorted.
    pub shingle_set: Vec<u32>,
    /// How many low bits of each member of the shingle set the page holds: 32 as sketched;
    /// fewer (18 to 30) as read from an index that keeps b-bit sets ([`crate::Storage`]).
    pub set_bits: u32,
    /// The capture print (opaque bytes), empty when none was kept.
    pub print: Vec<u8>,
    /// SHA-256 of the payload; zeros when unknown.
    pub payload_sha256: [u8; 32],
    /// The page's language (`und` when unknown, as in records before version 6).
    pub language: Language,
}

impl Default for CatalogPage {
    fn default() -> CatalogPage {
        CatalogPage {
            url: String::new(),
            user_id: String::new(),
            date: String::new(),
            host: String::new(),
            token_hash: 0,
            body_hash: 0,
            payload_sha1: [0; 20],
            chrome: 0.0,
            tokens: 0,
            shingles: 0,
            title: [0; 4],
            minvalues: Vec::new(),
            minvalue_bits: 32,
            shingle_set: Vec::new(),
            set_bits: 32,
            print: Vec::new(),
            payload_sha256: [0; 32],
            language: Language::UNKNOWN,
        }
    }
}

/// The longest capture print a record may hold.
pub const MAX_PRINT_BYTES: usize = 4096;

/// The most bytes of URL prefixes a segment's table holds (URLs of other directories are
/// kept whole): what a reader holds in memory per catalog segment at most.
pub const MAX_PREFIX_BYTES: usize = 4 << 20;

/// The first version whose catalogs hold a prefix table.
const PREFIXES_SINCE: u32 = 11;

/// The first version whose offset entries take 9 bytes.
const SHORT_ENTRIES_SINCE: u32 = 13;

/// The first version whose records may keep their sets' members cut (`catalog/sets.rs`).
#[cfg(test)]
const SET_BITS_SINCE: u32 = 14;

/// A catalog's offset entry for a page: its record's offset and the low bytes of its
/// record's XXH3-64, both little-endian: 8 and 8 bytes before version 13, 5 and 4 from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    /// Bytes of the offset.
    offset: usize,
    /// Bytes of the checksum.
    sum: usize,
}

impl Entry {
    fn of(version: u32) -> Entry {
        match version >= SHORT_ENTRIES_SINCE {
            true => Entry { offset: 5, sum: 4 },
            false => Entry { offset: 8, sum: 8 },
        }
    }

    /// Bytes an entry takes.
    fn bytes(self) -> u64 {
        (self.offset + self.sum) as u64
    }

    /// The first offset an entry cannot hold.
    fn offset_limit(self) -> u64 {
        1u64.checked_shl(8 * self.offset as u32).unwrap_or(u64::MAX)
    }

    /// Appends the entry of a record at `at` (below [`Entry::offset_limit`]) of bytes `record`.
    fn put(self, at: u64, record: &[u8], out: &mut Vec<u8>) {
        let sum = xxhash_rust::xxh3::xxh3_64(record);
        out.extend_from_slice(&at.to_le_bytes()[..self.offset]);
        out.extend_from_slice(&sum.to_le_bytes()[..self.sum]);
    }

    /// The offset and checksum in `e` (at least [`Entry::bytes`] long).
    fn get(self, e: &[u8]) -> (u64, u64) {
        let le = |b: &[u8]| {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(w)
        };
        let (at, sum) = e[..self.offset + self.sum].split_at(self.offset);
        (le(at), le(sum))
    }

    /// Whether `record`'s checksum is `sum` (as [`Entry::get`] read it).
    fn matches(self, record: &[u8], sum: u64) -> bool {
        let got = xxhash_rust::xxh3::xxh3_64(record);
        got & (u64::MAX >> (64 - 8 * self.sum)) == sum
    }
}

impl CatalogPage {
    /// The page as a record of [`compact`] keeping every bit it has and its print, replacing
    /// `out`'s bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let every_bit = crate::Storage {
            minvalue_bits: self.minvalue_bits,
            ..crate::Storage::EVERYTHING
        };
        let every_bit = crate::Storage {
            set_bits: self.set_bits,
            ..every_bit
        };
        compact::encode(
            self,
            &every_bit,
            None,
            compact::Layout::Packed,
            &mut Vec::new(),
            out,
        );
    }

    /// Reads a record of [`CatalogPage::encode`] of a page with `m` minvalues into `self`,
    /// reusing its buffers; what is wrong with a record that does not parse.
    pub fn decode(&mut self, b: &[u8], m: u32) -> Result<(), &'static str> {
        compact::decode(b, m, self, true, &[], compact::Layout::Packed)
    }

    /// The page as a record that travels alone (between the machines of an add in parts):
    /// [`PAGE_RECORD_VERSION`], its number of minvalues (a LEB128 varint: a record's set
    /// may tell its minvalues by place, which says nothing of how many), the catalog record
    /// ([`CatalogPage::encode`]), and the XXH3-64 (seed 0, little-endian) of all three;
    /// replaces `out`'s bytes (`scratch` is reused).
    pub fn encode_checked(&self, out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
        self.encode(scratch);
        out.clear();
        out.push(PAGE_RECORD_VERSION);
        compact::put_v(out, self.minvalues.len() as u64);
        out.extend_from_slice(scratch);
        let sum = xxhash_rust::xxh3::xxh3_64(out);
        out.extend_from_slice(&sum.to_le_bytes());
    }

    /// Reads a record of [`CatalogPage::encode_checked`] for `m` minvalues into `self`; what is
    /// wrong with a record that is damaged, of another version or another `m`.
    pub fn decode_checked(&mut self, b: &[u8], m: u32) -> Result<(), RecordError> {
        let Some(body) = b.len().checked_sub(8).map(|n| &b[..n]) else {
            return Err(RecordError::Short(b.len()));
        };
        let sum = u64::from_le_bytes(b[body.len()..].try_into().expect("8 bytes"));
        if xxhash_rust::xxh3::xxh3_64(body) != sum {
            return Err(RecordError::Checksum);
        }
        match body.first() {
            Some(&PAGE_RECORD_VERSION) => {
                let (mins, used) = compact::get_v(&body[1..]).map_err(RecordError::Field)?;
                if mins != u64::from(m) {
                    return Err(RecordError::OtherM(mins, m));
                }
                self.decode(&body[1 + used..], m)
                    .map_err(RecordError::Field)
            }
            Some(&v) => Err(RecordError::Version(v)),
            None => Err(RecordError::Short(b.len())),
        }
    }
}

/// Writes a catalog segment page by page; the file appears only when finished.
pub struct CatalogWriter {
    file: PartialFile,
    m: u32,
    storage: crate::Storage,
    first: u64,
    offsets: Vec<u8>,
    record: Vec<u8>,
    /// The URL prefixes so far, by index, and their table's bytes.
    prefixes: std::collections::HashMap<Box<str>, u64>,
    table: Vec<u8>,
    /// A page's kept set cut to the storage's width.
    narrow: Vec<u32>,
    /// The version written: [`INDEX_VERSION`] (tests write older ones).
    version: u32,
}

impl CatalogWriter {
    /// A writer of `path` for pages with `m` minvalues, numbered from `first`, keeping what
    /// `storage` says of each (the low bits of its minvalues; its capture print or not).
    pub fn create(
        path: &Path,
        m: u32,
        storage: crate::Storage,
        first: u64,
    ) -> Result<CatalogWriter, IndexError> {
        if !compact::valid_width(storage.minvalue_bits) {
            return Err(IndexError::damaged(
                path,
                0,
                format!(
                    "{} minvalue bits (8, 16 or 32 are kept)",
                    storage.minvalue_bits
                ),
            ));
        }
        if !sets::valid_width(storage.set_bits) {
            return Err(IndexError::damaged(
                path,
                0,
                format!(
                    "{} bits of each shingle set member (an even width from 18 to 32 is kept)",
                    storage.set_bits
                ),
            ));
        }
        Ok(CatalogWriter {
            file: PartialFile::create(path)?,
            m,
            storage,
            first,
            offsets: Vec::new(),
            record: Vec::new(),
            prefixes: Default::default(),
            table: Vec::new(),
            narrow: Vec::new(),
            version: INDEX_VERSION,
        })
    }

    /// This writer writing version `version` (9 to [`INDEX_VERSION`]), as older builds did
    /// (whole sets before version 14).
    #[cfg(test)]
    fn writing_version(mut self, version: u32) -> CatalogWriter {
        assert!((9..=INDEX_VERSION).contains(&version));
        if version < SET_BITS_SINCE {
            self.storage.set_bits = 32;
        }
        CatalogWriter { version, ..self }
    }

    /// The index in the table of `url`'s directory, added if new and the table has room.
    fn prefix(&mut self, url: &str) -> Option<u64> {
        let dir = compact::directory(url).filter(|_| self.version >= PREFIXES_SINCE)?;
        if let Some(&i) = self.prefixes.get(dir) {
            return Some(i);
        }
        if self.table.len() + dir.len() + 10 > MAX_PREFIX_BYTES {
            return None;
        }
        let i = self.prefixes.len() as u64;
        compact::put_str(&mut self.table, dir);
        self.prefixes.insert(dir.into(), i);
        Some(i)
    }

    /// Appends the next page (id `first + pages so far`).
    pub fn push(&mut self, p: &CatalogPage) -> Result<u64, IndexError> {
        if p.minvalues.len() != self.m as usize {
            return Err(IndexError::damaged(
                &self.file.tmp,
                self.file.at,
                format!(
                    "{} minvalues for an index of m = {}",
                    p.minvalues.len(),
                    self.m
                ),
            ));
        }
        if p.minvalue_bits < self.storage.minvalue_bits {
            return Err(IndexError::damaged(
                &self.file.tmp,
                self.file.at,
                format!(
                    "a page of {}-bit minvalues for a catalog of {}-bit ones",
                    p.minvalue_bits, self.storage.minvalue_bits
                ),
            ));
        }
        if p.set_bits < self.storage.set_bits && !p.shingle_set.is_empty() {
            return Err(IndexError::damaged(
                &self.file.tmp,
                self.file.at,
                format!(
                    "a page of a {}-bit shingle set for a catalog of {}-bit ones",
                    p.set_bits, self.storage.set_bits
                ),
            ));
        }
        let prefix = self.prefix(&p.url);
        let r = &mut self.record;
        compact::encode(
            p,
            &self.storage,
            prefix,
            compact::Layout::of(self.version),
            &mut self.narrow,
            r,
        );
        let entry = Entry::of(self.version);
        if self.file.at + r.len() as u64 > entry.offset_limit() {
            return Err(IndexError::damaged(
                &self.file.tmp,
                self.file.at,
                "a catalog segment's records past 1 TiB (add fewer pages at once)",
            ));
        }
        entry.put(self.file.at, r, &mut self.offsets);
        self.file.write(r)?;
        Ok(self.first + self.offsets.len() as u64 / entry.bytes() - 1)
    }

    /// Writes the offsets and trailer, syncs, moves the file into place; returns the pages
    /// and the file's size.
    pub fn finish(self) -> Result<(u64, u64), IndexError> {
        let pages = self.offsets.len() as u64 / Entry::of(self.version).bytes();
        let mut header = [0u8; HEADER as usize];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&self.version.to_le_bytes());
        header[12..16].copy_from_slice(&self.m.to_le_bytes());
        header[16..24].copy_from_slice(&self.first.to_le_bytes());
        header[24..32].copy_from_slice(&pages.to_le_bytes());
        let mut footer = Vec::with_capacity(self.table.len() + 32 + self.offsets.len());
        if self.version >= PREFIXES_SINCE {
            compact::put_v(&mut footer, self.prefixes.len() as u64);
            footer.extend_from_slice(&self.table);
            let table = footer.len() as u64;
            footer.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&footer).to_le_bytes());
            footer.extend_from_slice(&table.to_le_bytes());
        }
        footer.extend_from_slice(&self.offsets);
        let bytes = self.file.finish(&header, &footer)?;
        Ok((pages, bytes))
    }
}

/// Reads a catalog segment record by record. A clone shares the open file.
#[derive(Clone, Debug)]
pub struct CatalogReader {
    path: PathBuf,
    file: fsutil::Src,
    /// The file's size.
    size: u64,
    header: [u8; HEADER as usize],
    m: u32,
    first: u64,
    pages: u64,
    offsets_at: u64,
    /// Where the records end: the prefix table (version 11 on) or the offsets.
    records_end: u64,
    /// The URL prefixes records name (none before version 11).
    prefixes: std::sync::Arc<[compact::Prefix]>,
    /// Its offset entries.
    entry: Entry,
}

impl CatalogReader {
    /// The format version of its records (9 on: [`compact`]).
    fn version(&self) -> u32 {
        u32::from_le_bytes(self.header[8..12].try_into().expect("4"))
    }

    fn decode(&self, b: &[u8], out: &mut CatalogPage, names: bool) -> Result<(), &'static str> {
        if self.version() >= 9 {
            compact::decode(
                b,
                self.m,
                out,
                names,
                &self.prefixes,
                compact::Layout::of(self.version()),
            )
        } else {
            v8::decode(b, self.m, out, names)
        }
    }

    /// Opens a catalog segment, checking its header, size and end marker (the offsets and
    /// records are checked as they are read, and all of them by [`CatalogReader::check`]).
    pub fn open(path: &Path) -> Result<CatalogReader, IndexError> {
        let fsutil::Opened {
            file,
            size,
            header: h,
        } = fsutil::open(path, MAGIC, "catalog segment")?;
        let damaged = |offset, what: String| IndexError::damaged(path, offset, what);
        let m = u32::from_le_bytes(h[12..16].try_into().expect("4"));
        let first = u64::from_le_bytes(h[16..24].try_into().expect("8"));
        let pages = u64::from_le_bytes(h[24..32].try_into().expect("8"));
        let version = u32::from_le_bytes(h[8..12].try_into().expect("4"));
        let entry = Entry::of(version);
        let offsets_at = pages
            .checked_mul(entry.bytes())
            .and_then(|o| o.checked_add(16))
            .and_then(|o| size.checked_sub(o))
            .filter(|&at| at >= HEADER && first.checked_add(pages).is_some())
            .ok_or_else(|| {
                damaged(size, format!("the header says {pages} pages, too many for {size} bytes (truncated or damaged)"))
            })?;
        let mut end = [0u8; 8];
        file.read_exact_at(&mut end, size - 8)
            .map_err(io_err(path))?;
        if &end != fsutil::END {
            return Err(damaged(
                size - 8,
                "no end marker (truncated or damaged)".into(),
            ));
        }
        let (records_end, prefixes) = if version >= PREFIXES_SINCE {
            read_prefixes(&file, path, offsets_at)?
        } else {
            (offsets_at, Vec::new())
        };
        Ok(CatalogReader {
            path: path.to_path_buf(),
            file: fsutil::Src::File(std::sync::Arc::new(file)),
            size,
            header: h,
            m,
            first,
            pages,
            offsets_at,
            records_end,
            prefixes: prefixes.into(),
            entry,
        })
    }

    /// This reader with the whole file read into memory now: later reads make no system
    /// call (and are still checked against their checksums). Clones made before keep reading
    /// the file.
    /// Every record is checked against its checksum as it is loaded ([`CatalogReader::check`]),
    /// and not again.
    pub fn into_memory(self) -> Result<CatalogReader, IndexError> {
        // Read once, then checked from memory (not read twice).
        let file = self.file.clone().into_memory(&self.path, self.size)?;
        let r = CatalogReader { file, ..self };
        r.check()?;
        Ok(r)
    }

    /// Whether it reads from memory ([`CatalogReader::into_memory`]).
    pub fn in_memory(&self) -> bool {
        self.file.in_memory()
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The page ids this segment holds.
    pub fn ids(&self) -> std::ops::Range<u64> {
        self.first..self.first + self.pages
    }

    fn damaged(&self, offset: u64, what: impl Into<String>) -> IndexError {
        IndexError::damaged(&self.path, offset, what)
    }

    /// Hints that page `id`'s offset entry will be read soon (as
    /// [`crate::KeySegmentReader::prefetch`]); nothing when `id` is not held here.
    pub fn prefetch(&self, id: u64) {
        if self.ids().contains(&id) {
            self.file.will_need(
                self.offsets_at + (id - self.first) * self.entry.bytes(),
                2 * self.entry.bytes(),
            );
        }
    }

    /// Page `id` (one of [`CatalogReader::ids`]) into `out`, checked against its checksum.
    pub fn get(&self, id: u64, out: &mut CatalogPage) -> Result<(), IndexError> {
        self.get_with(id, out, &mut Vec::new())
    }

    /// [`CatalogReader::get`] reading the record into `buf` (reused from call to call).
    pub fn get_with(
        &self,
        id: u64,
        out: &mut CatalogPage,
        buf: &mut Vec<u8>,
    ) -> Result<(), IndexError> {
        self.read(id, out, buf, true)
    }

    /// [`CatalogReader::get_with`] leaving the URL, user id, date and capture print empty: what
    /// scoring a candidate needs (host, hashes, sizes, signatures), without the rest.
    pub fn get_for_scoring(
        &self,
        id: u64,
        out: &mut CatalogPage,
        buf: &mut Vec<u8>,
    ) -> Result<(), IndexError> {
        self.read(id, out, buf, false)
    }

    fn read(
        &self,
        id: u64,
        out: &mut CatalogPage,
        buf: &mut Vec<u8>,
        names: bool,
    ) -> Result<(), IndexError> {
        if !self.ids().contains(&id) {
            return Err(self.damaged(
                0,
                format!("page {id} is not in this segment ({:?})", self.ids()),
            ));
        }
        let i = id - self.first;
        let mut e = [0u8; 32];
        let size = self.entry.bytes() as usize;
        let entry_at = self.offsets_at + i * self.entry.bytes();
        let n = if i + 1 < self.pages { 2 * size } else { size };
        self.file
            .read_exact_at(&mut e[..n], entry_at)
            .map_err(io_err(&self.path))?;
        let (at, sum) = self.entry.get(&e);
        let next = if n > size {
            self.entry.get(&e[size..]).0
        } else {
            self.records_end
        };
        if at < HEADER || next < at || next > self.records_end || next - at > 1 << 30 {
            return Err(self.damaged(entry_at, format!("page {id}: its offset entry is damaged")));
        }
        if let Some(record) = self.file.slice(at, next - at) {
            return self
                .decode(record, out, names)
                .map_err(|what| self.damaged(at, format!("page {id}: {what}")));
        }
        buf.clear();
        buf.resize((next - at) as usize, 0);
        self.file
            .read_exact_at(buf, at)
            .map_err(io_err(&self.path))?;
        if !self.entry.matches(buf, sum) {
            return Err(self.damaged(
                at,
                format!("page {id}: the record does not match its checksum (damaged)"),
            ));
        }
        self.decode(buf, out, names)
            .map_err(|what| self.damaged(at, format!("page {id}: {what}")))
    }

    /// Reads every record and the offsets' checksum (`index check`); returns the pages.
    pub fn check(&self) -> Result<u64, IndexError> {
        // The prefix table (checked when opened) and the offsets.
        let offsets = self.pages * self.entry.bytes();
        let mut footer = vec![0u8; (self.offsets_at - self.records_end + offsets) as usize];
        self.file
            .read_exact_at(&mut footer, self.records_end)
            .map_err(io_err(&self.path))?;
        let mut sum = [0u8; 8];
        self.file
            .read_exact_at(&mut sum, self.offsets_at + offsets)
            .map_err(io_err(&self.path))?;
        if fsutil::trailer_sum(&self.header, &footer) != u64::from_le_bytes(sum) {
            return Err(self.damaged(
                self.offsets_at,
                "the header or offsets do not match their checksum (damaged)",
            ));
        }
        let (mut p, mut buf) = (CatalogPage::default(), Vec::new());
        for id in self.ids() {
            self.get_with(id, &mut p, &mut buf)?;
        }
        Ok(self.pages)
    }
}

/// The prefix table of the catalog `path` (open as `file`) whose offsets begin at
/// `offsets_at`: where it begins (the records end there) and its prefixes, checked against its
/// checksum.
fn read_prefixes(
    file: &std::fs::File,
    path: &Path,
    offsets_at: u64,
) -> Result<(u64, Vec<compact::Prefix>), IndexError> {
    let damaged = |what: String| IndexError::damaged(path, offsets_at, what);
    let mut tail = [0u8; 16];
    let tail_at = offsets_at
        .checked_sub(16)
        .filter(|&at| at >= HEADER)
        .ok_or_else(|| damaged("no room for the prefix table (damaged)".into()))?;
    file.read_exact_at(&mut tail, tail_at)
        .map_err(io_err(path))?;
    let sum = u64::from_le_bytes(tail[..8].try_into().expect("8"));
    let len = u64::from_le_bytes(tail[8..].try_into().expect("8"));
    let at = tail_at
        .checked_sub(len)
        .filter(|&at| at >= HEADER && len <= MAX_PREFIX_BYTES as u64 + 10)
        .ok_or_else(|| damaged(format!("a prefix table of {len} bytes (damaged)")))?;
    let mut bytes = vec![0u8; len as usize];
    file.read_exact_at(&mut bytes, at).map_err(io_err(path))?;
    if xxhash_rust::xxh3::xxh3_64(&bytes) != sum {
        return Err(damaged(
            "the prefix table does not match its checksum (damaged)".into(),
        ));
    }
    let prefixes =
        compact::prefixes(&bytes).map_err(|what| damaged(format!("the prefix table: {what}")))?;
    Ok((at, prefixes))
}

#[cfg(test)]
mod tests;

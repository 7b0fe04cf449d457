//! Key segments: immutable files of `(key, page)` entries sorted by key then page, read by
//! block so that a lookup touches one or two blocks on disk and keeps only a small directory
//! in memory.
//!
//! Layout (little-endian), version 6 on:
//!
//! ```text
//! header   32 bytes: magic "NDIDXKEY", u32 version, u32 entries per block (B) (version 9 on:
//!          u16 B, u8 bits of each key kept (K, 1..=64), u8 0), u64 entries, u64 bytes of the
//!          blocks
//! blocks   B entries each (the last fewer), packed ([`crate::packed`]: 25 to 60 bits an entry)
//! footer   per block: u64 first key, u64 offset of the block in the file, u64 XXH3-64
//!          (seed 0) of the block's bytes (a block ends where the next begins)
//! trailer  u64 XXH3-64 (seed 0) of the header and the footer, then "NDIDXEND"
//! ```
//!
//! A segment keeping `K < 64` bits of each key holds `key >> (64 - K)` (in its blocks, skips
//! and directory alike): keys that agree in their top `K` bits are one key to it, so a lookup
//! returns the pages of every key sharing its top bits, and the caller tells them apart (band
//! keys by scoring, digests, URLs and ids by the catalog's facts). Entries are pushed in the
//! order of `(key >> (64 - K), page)`. Before version 9, `K` is 64.
//!
//! Versions 3 to 5 (still read): the header's last u64 is 0, every entry takes 16 bytes
//! (u64 key, u64 page) and the footer holds per block only its first key and checksum.
//!
//! Every block is checked against its checksum when read, so a damaged block is reported,
//! never turned into wrong matches; the header and directory are checked when the file is
//! opened, and the file's size must be the one they imply (truncation is named).

use crate::fsutil::{self, PartialFile, END, HEADER};
use crate::packed;
use crate::{io_err, IndexError, INDEX_VERSION};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The first bytes of a key segment.
pub const MAGIC: &[u8; 8] = b"NDIDXKEY";

/// Bytes of an entry in segments of versions 3 to 5.
const FIXED_ENTRY: u64 = 16;

/// The first version whose blocks are packed.
const PACKED_SINCE: u32 = 6;

/// The first version whose header says how many bits of each key are kept.
const KEY_BITS_SINCE: u32 = 9;

/// The first version whose packed blocks tell a key repeating the one before in a bit
/// ([`crate::packed`]'s runs).
const RUNS_SINCE: u32 = 10;

/// Entries per block: 1024 (about 7.5 KiB packed).
pub const BLOCK_ENTRIES: u32 = 1024;

/// Writes a key segment from entries given in order; the file appears (fsynced, renamed, the
/// folder fsynced) only when [`KeySegmentWriter::finish`] succeeds.
pub struct KeySegmentWriter {
    file: PartialFile,
    entries: u64,
    last: Option<(u64, u64)>,
    /// The entries of the block being filled.
    pending: Vec<(u64, u64)>,
    /// Its packed bytes (reused).
    packed: Vec<u8>,
    /// Per block: first key, offset, checksum.
    directory: Vec<[u64; 3]>,
    /// Bits of each key kept (the top ones).
    key_bits: u32,
    /// The version written: [`INDEX_VERSION`] (tests write older ones).
    version: u32,
}

impl KeySegmentWriter {
    /// A writer of the segment `path` keeping every bit of each key.
    pub fn create(path: &Path) -> Result<KeySegmentWriter, IndexError> {
        KeySegmentWriter::keeping(path, 64)
    }

    /// A writer of the segment `path` keeping the top `key_bits` bits of each key (1 to 64).
    pub fn keeping(path: &Path, key_bits: u32) -> Result<KeySegmentWriter, IndexError> {
        if !(1..=64).contains(&key_bits) {
            return Err(IndexError::damaged(
                path,
                0,
                format!("{key_bits} bits of each key (1 to 64 are kept)"),
            ));
        }
        Ok(KeySegmentWriter {
            key_bits,
            file: PartialFile::create(path)?,
            entries: 0,
            last: None,
            pending: Vec::with_capacity(BLOCK_ENTRIES as usize),
            packed: Vec::new(),
            directory: Vec::new(),
            version: INDEX_VERSION,
        })
    }

    /// This writer writing packed version `version` (6 to [`INDEX_VERSION`]), as older builds
    /// did.
    #[cfg(test)]
    fn writing_version(self, version: u32) -> KeySegmentWriter {
        assert!((KEY_BITS_SINCE..=INDEX_VERSION).contains(&version));
        KeySegmentWriter { version, ..self }
    }

    /// Appends an entry; entries must come in increasing `(key, page)` order of the bits kept
    /// (a repeat is dropped).
    pub fn push(&mut self, key: u64, page: u64) -> Result<(), IndexError> {
        let key = key >> (64 - self.key_bits);
        if let Some(last) = self.last {
            if (key, page) < last {
                return Err(IndexError::damaged(
                    &self.file.tmp,
                    self.file.at,
                    format!(
                        "entries out of order: ({key:#x}, {page}) after ({:#x}, {})",
                        last.0, last.1
                    ),
                ));
            }
            if (key, page) == last {
                return Ok(());
            }
        }
        self.last = Some((key, page));
        self.pending.push((key, page));
        self.entries += 1;
        if self.pending.len() == BLOCK_ENTRIES as usize {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> Result<(), IndexError> {
        let Some(&(first, _)) = self.pending.first() else {
            return Ok(());
        };
        self.packed.clear();
        packed::encode(&self.pending, self.version >= RUNS_SINCE, &mut self.packed);
        let sum = xxhash_rust::xxh3::xxh3_64(&self.packed);
        self.directory.push([first, self.file.at, sum]);
        self.file.write(&self.packed)?;
        self.pending.clear();
        Ok(())
    }

    /// Writes the directory and trailer, syncs, and moves the file into place; returns the
    /// number of entries and the file's size.
    pub fn finish(mut self) -> Result<(u64, u64), IndexError> {
        self.flush_block()?;
        let data = self.file.at - HEADER;
        let mut footer = Vec::with_capacity(self.directory.len() * 24);
        for d in &self.directory {
            for v in d {
                footer.extend_from_slice(&v.to_le_bytes());
            }
        }
        let bytes = self.file.finish(
            &header(self.entries, data, self.key_bits, self.version),
            &footer,
        )?;
        Ok((self.entries, bytes))
    }
}

fn header(entries: u64, data: u64, key_bits: u32, version: u32) -> [u8; HEADER as usize] {
    let mut h = [0u8; HEADER as usize];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&version.to_le_bytes());
    h[12..14].copy_from_slice(&(BLOCK_ENTRIES as u16).to_le_bytes());
    h[14] = key_bits as u8;
    h[16..24].copy_from_slice(&entries.to_le_bytes());
    h[24..32].copy_from_slice(&data.to_le_bytes());
    h
}

/// A block in a reader's directory.
#[derive(Clone, Copy, Debug)]
struct Block {
    first: u64,
    /// Offset in the file; the block ends where the next begins.
    at: u64,
    sum: u64,
}

/// Reads a key segment: the directory in memory (24 bytes per block), blocks from disk. A
/// clone shares the open file and the directory (snapshots of one index share readers).
#[derive(Clone, Debug)]
pub struct KeySegmentReader {
    path: PathBuf,
    file: fsutil::Src,
    /// The file's size.
    size: u64,
    entries: u64,
    block_entries: u64,
    /// Packed blocks (version 6 on), or 16-byte entries.
    packed: bool,
    /// Packed blocks tell repeated keys in a bit (version 10 on).
    runs: bool,
    /// Where the blocks end.
    data_end: u64,
    directory: std::sync::Arc<[Block]>,
    /// Low bits of each key dropped (64 - the bits kept).
    shift: u32,
    /// In memory: a key filter and the pages of the longest runs.
    aids: std::sync::Arc<aids::Aids>,
}

impl KeySegmentReader {
    /// Opens and checks the header, the directory and the file's size.
    pub fn open(path: &Path) -> Result<KeySegmentReader, IndexError> {
        let fsutil::Opened {
            file,
            size,
            header: h,
        } = fsutil::open(path, MAGIC, "key segment")?;
        let damaged = |offset, what: String| IndexError::damaged(path, offset, what);
        let word = |at: usize| u64::from_le_bytes(h[at..at + 8].try_into().expect("8"));
        let version = u32::from_le_bytes(h[8..12].try_into().expect("4"));
        let packed = version >= PACKED_SINCE;
        let (block_entries, key_bits) = if version >= KEY_BITS_SINCE {
            let b = u64::from(u16::from_le_bytes([h[12], h[13]]));
            if !(1..=64).contains(&h[14]) || h[15] != 0 {
                return Err(damaged(14, format!("{} bits of each key kept", h[14])));
            }
            (b, u32::from(h[14]))
        } else {
            (
                u64::from(u32::from_le_bytes(h[12..16].try_into().expect("4"))),
                64,
            )
        };
        let entries = word(16);
        if block_entries == 0 {
            return Err(damaged(12, "0 entries per block".into()));
        }
        let blocks = entries.div_ceil(block_entries);
        let (data, per_block) = match packed {
            true => (Some(word(24)), 24),
            false => (entries.checked_mul(FIXED_ENTRY), 16),
        };
        let want = data
            .zip(blocks.checked_mul(per_block))
            .and_then(|(e, d)| e.checked_add(d)?.checked_add(HEADER + 16));
        let (Some(_), Some(data)) = (want.filter(|&w| w == size), data) else {
            return Err(damaged(
                size,
                format!(
                    "the header says {entries} entries ({} bytes), the file has {size} bytes (truncated or damaged)",
                    want.map_or("too many".into(), |w| w.to_string())
                ),
            ));
        };
        let data_end = HEADER + data;
        let mut footer = vec![0u8; (size - data_end) as usize];
        file.read_exact_at(&mut footer, data_end)
            .map_err(io_err(path))?;
        let (dir_bytes, trailer) = footer.split_at(footer.len() - 16);
        let want_sum = u64::from_le_bytes(trailer[..8].try_into().expect("8"));
        if fsutil::trailer_sum(&h, dir_bytes) != want_sum || &trailer[8..] != END {
            return Err(damaged(
                data_end,
                "the header or block directory does not match its checksum (damaged)".into(),
            ));
        }
        let le = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("8"));
        let directory: std::sync::Arc<[Block]> = dir_bytes
            .chunks_exact(per_block as usize)
            .enumerate()
            .map(|(b, c)| match packed {
                true => Block {
                    first: le(&c[..8]),
                    at: le(&c[8..16]),
                    sum: le(&c[16..]),
                },
                false => Block {
                    first: le(&c[..8]),
                    at: HEADER + b as u64 * block_entries * FIXED_ENTRY,
                    sum: le(&c[8..]),
                },
            })
            .collect();
        let mut from = HEADER;
        for (b, d) in directory.iter().enumerate() {
            if d.at < from || d.at >= data_end || (b == 0 && d.at != HEADER) {
                return Err(damaged(
                    data_end,
                    format!("block {b}'s offset {} is out of order (damaged)", d.at),
                ));
            }
            from = d.at + 1;
        }
        Ok(KeySegmentReader {
            path: path.to_path_buf(),
            file: fsutil::Src::File(std::sync::Arc::new(file)),
            size,
            entries,
            block_entries,
            packed,
            runs: version >= RUNS_SINCE,
            data_end,
            directory,
            shift: 64 - key_bits,
            aids: Default::default(),
        })
    }

    /// Bits of each key kept (the top ones; 64 before version 9).
    pub fn key_bits(&self) -> u32 {
        64 - self.shift
    }

    /// This reader with the whole file read into memory now: later reads make no system
    /// call (and are still checked against their checksums). Clones made before keep reading
    /// the file.
    /// Every block is checked against its checksum as it is loaded, and not again. Its keys
    /// are put in a filter that rules out most keys it has no entries under, and the pages
    /// of its longest runs of one key (64 entries or more, within a quarter of the file's
    /// size) are decoded now, so that lookups decode neither again ([`KeySegmentReader::memory`]
    /// bounds what this takes).
    pub fn into_memory(self) -> Result<KeySegmentReader, IndexError> {
        // Read once, then checked from memory (not read twice).
        let file = self.file.clone().into_memory(&self.path, self.size)?;
        let mut r = KeySegmentReader { file, ..self };
        let mut buf = Vec::new();
        for b in 0..r.directory.len() {
            r.block(b, &mut buf)?;
        }
        let budget = usize::try_from(r.size / 4 / 8).unwrap_or(usize::MAX);
        r.aids = std::sync::Arc::new(aids::Aids::of(&r, budget)?);
        Ok(r)
    }

    /// The most bytes of memory it takes read into memory ([`KeySegmentReader::into_memory`]):
    /// the file, its filter and its long runs.
    pub fn memory(&self) -> u64 {
        self.size + self.size / 4 + aids::filter_words(self.entries) * 8
    }

    /// Whether it reads from memory ([`KeySegmentReader::into_memory`]).
    pub fn in_memory(&self) -> bool {
        self.file.in_memory()
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Entries in the segment.
    pub fn len(&self) -> u64 {
        self.entries
    }

    /// True without entries.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Block `b`'s offset and length in the file.
    fn span(&self, b: usize) -> (u64, u64) {
        let at = self.directory[b].at;
        let end = self.directory.get(b + 1).map_or(self.data_end, |d| d.at);
        (at, end - at)
    }

    /// Block `b`'s entries.
    fn count(&self, b: usize) -> u64 {
        self.block_entries
            .min(self.entries - b as u64 * self.block_entries)
    }

    /// Block `b`: borrowed from memory (checked when it was loaded), or read into `buf` and
    /// checked now.
    fn block_bytes<'a>(&'a self, b: usize, buf: &'a mut Vec<u8>) -> Result<&'a [u8], IndexError> {
        let (at, len) = self.span(b);
        if let Some(bytes) = self.file.slice(at, len) {
            return Ok(bytes);
        }
        self.block(b, buf)?;
        Ok(buf)
    }

    fn block(&self, b: usize, buf: &mut Vec<u8>) -> Result<(), IndexError> {
        let (at, len) = self.span(b);
        buf.resize(len as usize, 0);
        self.file
            .read_exact_at(buf, at)
            .map_err(io_err(&self.path))?;
        if xxhash_rust::xxh3::xxh3_64(buf) != self.directory[b].sum {
            return Err(IndexError::damaged(
                &self.path,
                at,
                format!("block {b} does not match its checksum (damaged)"),
            ));
        }
        if !self.packed && len != self.count(b) * FIXED_ENTRY {
            return Err(IndexError::damaged(
                &self.path,
                at,
                format!("block {b} has {len} bytes (damaged)"),
            ));
        }
        Ok(())
    }

    /// The entries of block `b` (its checked `bytes`) from the first whose key is at least
    /// `from`.
    fn cursor<'a>(&self, b: usize, bytes: &'a [u8], from: u64) -> Result<Cursor<'a>, IndexError> {
        let n = self.count(b) as usize;
        if self.packed {
            let mut c = packed::Cursor::new(bytes, self.directory[b].first, n, self.runs)
                .map_err(|what| self.damaged(b, what))?;
            c.seek(from).map_err(|what| self.damaged(b, what))?;
            return Ok(Cursor::Packed(c));
        }
        // Fixed entries are sorted: the first with `from` is found by binary search.
        let key_at = |i: usize| {
            let at = i * FIXED_ENTRY as usize;
            u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"))
        };
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if key_at(mid) < from {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(Cursor::Fixed(
            bytes[lo * FIXED_ENTRY as usize..].chunks_exact(FIXED_ENTRY as usize),
        ))
    }

    fn damaged(&self, b: usize, what: packed::Damage) -> IndexError {
        IndexError::damaged(
            &self.path,
            self.directory[b].at,
            format!("block {b}: {what}"),
        )
    }

    /// The block `key` would be looked up in first.
    fn first_block(&self, key: u64) -> usize {
        // The last block whose first key is below `key` may hold its first entries.
        self.directory
            .partition_point(|d| d.first < key)
            .saturating_sub(1)
    }

    /// Asks the kernel to start reading the block `key` would be looked up in (one
    /// `posix_fadvise(WILLNEED)`, which returns at once): a caller about to look up several
    /// keys announces them all first, so that their reads from disk overlap instead of
    /// following one another. Only a hint: nothing is read or checked here.
    pub fn prefetch(&self, key: u64) {
        let b = self.first_block(key >> self.shift);
        if b < self.directory.len() {
            let (at, len) = self.span(b);
            self.file.will_need(at, len);
        }
    }

    /// The pages under `key` (under every key sharing its bits kept), appended to `out` in
    /// increasing order (`scratch`: a block's bytes, reused from call to call).
    pub fn lookup(
        &self,
        key: u64,
        scratch: &mut Vec<u8>,
        out: &mut Vec<u64>,
    ) -> Result<(), IndexError> {
        let key = key >> self.shift;
        if !self.aids.may_hold(key) {
            return Ok(());
        }
        if let Some(pages) = self.aids.long_run(key) {
            out.extend_from_slice(pages);
            return Ok(());
        }
        for b in self.first_block(key)..self.directory.len() {
            if self.directory[b].first > key {
                break;
            }
            let block = self.block_bytes(b, scratch)?;
            let mut entries = self.cursor(b, block, key)?;
            while let Some((k, p)) = entries.next_entry().map_err(|w| self.damaged(b, w))? {
                if k == key {
                    out.push(p);
                } else if k > key {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Every entry in order, block by block (each block checked as it is read): for merges,
    /// link loading and checks; each key with its bits not kept zero.
    pub fn entries(&self) -> Entries<'_> {
        Entries {
            seg: self,
            block: 0,
            bytes: Vec::new(),
            decoded: Vec::new(),
            at: 0,
        }
    }

    /// Lookups of many keys asked in increasing order, as one pass over the segment
    /// ([`Seeker`]).
    pub fn seeker(&self) -> Seeker<'_> {
        Seeker {
            entries: self.entries(),
            last: None,
        }
    }

    /// Reads every block, checking each, the order of the entries and that `held(page)` for
    /// every page named (`index check`); returns the entries seen.
    pub fn check(&self, held: impl Fn(u64) -> bool) -> Result<u64, IndexError> {
        let mut last = None;
        let mut n = 0;
        for e in self.entries() {
            let (k, p) = e?;
            let at = self.directory[(n / self.block_entries) as usize].at;
            if last.is_some_and(|l| (k, p) <= l) {
                return Err(IndexError::damaged(
                    &self.path,
                    at,
                    format!("entry {n} is out of order"),
                ));
            }
            if !held(p) {
                return Err(IndexError::damaged(
                    &self.path,
                    at,
                    format!("entry {n} names page {p}, which the index never held"),
                ));
            }
            last = Some((k, p));
            n += 1;
        }
        Ok(n)
    }
}

/// A block's entries from some point on, packed or fixed.
enum Cursor<'a> {
    Packed(packed::Cursor<'a>),
    Fixed(std::slice::ChunksExact<'a, u8>),
}

impl Cursor<'_> {
    #[inline]
    fn next_entry(&mut self) -> Result<Option<(u64, u64)>, packed::Damage> {
        match self {
            Cursor::Packed(c) => c.next_entry(),
            Cursor::Fixed(c) => Ok(c.next().map(|e| {
                (
                    u64::from_le_bytes(e[..8].try_into().expect("8")),
                    u64::from_le_bytes(e[8..].try_into().expect("8")),
                )
            })),
        }
    }
}

/// Lookups of keys asked in increasing order ([`KeySegmentReader::seeker`]): what
/// [`KeySegmentReader::lookup`] answers, but each block is read, checked and decoded once
/// however many of the keys it answers, and a block none of them falls in is not read. An add
/// asking a million keys of a segment of a hundred million entries decodes each block once
/// instead of once a key. A key asked out of order (or again) is still answered, from its
/// first block.
pub struct Seeker<'a> {
    entries: Entries<'a>,
    /// The last key asked (its bits kept).
    last: Option<u64>,
}

impl Seeker<'_> {
    /// The pages under `key` (under every key sharing its bits kept), appended to `out` in
    /// increasing order.
    pub fn lookup(&mut self, key: u64, out: &mut Vec<u64>) -> Result<(), IndexError> {
        let seg = self.entries.seg;
        let key = key >> seg.shift;
        // `entries.block` is the block after the one decoded: the block `key` starts in is
        // loaded unless it is the one decoded or one before it (whose keys are all below it).
        let start = seg.first_block(key);
        if start >= self.entries.block || self.last.is_some_and(|l| key <= l) {
            if start >= seg.directory.len() {
                return Ok(());
            }
            self.entries.block = start;
            self.load()?;
        }
        self.last = Some(key);
        loop {
            let e = &mut self.entries;
            e.at += e.decoded[e.at..].partition_point(|x| x.0 < key);
            for &(k, p) in &e.decoded[e.at..] {
                if k != key {
                    return Ok(());
                }
                out.push(p);
            }
            // The block ended under `key`: the next may go on with it.
            if e.block >= seg.directory.len() || seg.directory[e.block].first > key {
                return Ok(());
            }
            self.load()?;
        }
    }

    /// Loads block `self.entries.block`; a block that fails leaves nothing loaded, so the next
    /// key asked for in it reads it again (and fails again).
    fn load(&mut self) -> Result<(), IndexError> {
        let r = self.entries.load();
        if r.is_err() {
            self.entries.block = 0;
            self.entries.decoded.clear();
            self.entries.at = 0;
            self.last = None;
        }
        r
    }
}

/// The entries of a key segment in order ([`KeySegmentReader::entries`]); a damaged block is
/// an error item, after which the iteration ends.
pub struct Entries<'a> {
    seg: &'a KeySegmentReader,
    block: usize,
    bytes: Vec<u8>,
    decoded: Vec<(u64, u64)>,
    at: usize,
}

impl Entries<'_> {
    /// Reads and decodes the next block into `decoded`.
    fn load(&mut self) -> Result<(), IndexError> {
        let (seg, b) = (self.seg, self.block);
        self.block += 1;
        seg.block(b, &mut self.bytes)?;
        self.decoded.clear();
        let mut c = seg.cursor(b, &self.bytes, 0)?;
        while let Some(e) = c.next_entry().map_err(|w| seg.damaged(b, w))? {
            self.decoded.push(e);
        }
        if self.decoded.len() as u64 != seg.count(b) {
            return Err(seg.damaged(b, "fewer entries than the header says"));
        }
        self.at = 0;
        Ok(())
    }
}

impl Iterator for Entries<'_> {
    type Item = Result<(u64, u64), IndexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at == self.decoded.len() {
            if self.block >= self.seg.directory.len() {
                return None;
            }
            if let Err(e) = self.load() {
                self.block = self.seg.directory.len();
                self.decoded.clear();
                self.at = 0;
                return Some(Err(e));
            }
        }
        let (k, p) = self.decoded[self.at];
        self.at += 1;
        Some(Ok((k << self.seg.shift, p)))
    }
}

mod aids;

#[cfg(test)]
mod tests;

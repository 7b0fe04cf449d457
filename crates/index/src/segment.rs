//! Key segments: immutable files of `(key, page)` entries sorted by key then page, read by
//! block so that a lookup touches one or two blocks on disk and keeps only a small directory
//! in memory.
//!
//! Layout (little-endian):
//!
//! ```text
//! header   32 bytes: magic "NDIDXKEY", u32 version, u32 entries per block (B), u64 entries,
//!          u64 0 (reserved)
//! blocks   the entries, 16 bytes each (u64 key, u64 page), B per block (the last shorter)
//! footer   per block: u64 first key, u64 XXH3-64 (seed 0) of the block's bytes
//! trailer  u64 XXH3-64 (seed 0) of the header and the footer, then "NDIDXEND"
//! ```
//!
//! Every block is checked against its checksum when read, so a damaged block is reported,
//! never turned into wrong matches; the header and directory are checked when the file is
//! opened, and the file's size must be the one they imply (truncation is named).

use crate::fsutil::{self, PartialFile, END, HEADER};
use crate::{io_err, IndexError, INDEX_VERSION};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The first bytes of a key segment.
pub const MAGIC: &[u8; 8] = b"NDIDXKEY";
const ENTRY: u64 = 16;

/// Entries per block: 1024 (16 KiB).
pub const BLOCK_ENTRIES: u32 = 1024;

/// Writes a key segment from entries given in order; the file appears (fsynced, renamed, the
/// folder fsynced) only when [`KeySegmentWriter::finish`] succeeds.
pub struct KeySegmentWriter {
    file: PartialFile,
    entries: u64,
    last: Option<(u64, u64)>,
    block: Vec<u8>,
    directory: Vec<(u64, u64)>,
}

impl KeySegmentWriter {
    /// A writer of the segment `path`.
    pub fn create(path: &Path) -> Result<KeySegmentWriter, IndexError> {
        Ok(KeySegmentWriter {
            file: PartialFile::create(path)?,
            entries: 0,
            last: None,
            block: Vec::with_capacity((BLOCK_ENTRIES as u64 * ENTRY) as usize),
            directory: Vec::new(),
        })
    }

    /// Appends an entry; entries must come in increasing `(key, page)` order (a repeat is
    /// dropped).
    pub fn push(&mut self, key: u64, page: u64) -> Result<(), IndexError> {
        if let Some(last) = self.last {
            if (key, page) < last {
                return Err(IndexError::damaged(
                    &self.file.tmp,
                    HEADER + self.entries * ENTRY,
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
        if self.block.is_empty() {
            self.directory.push((key, 0));
        }
        self.block.extend_from_slice(&key.to_le_bytes());
        self.block.extend_from_slice(&page.to_le_bytes());
        self.entries += 1;
        if self.block.len() == (BLOCK_ENTRIES as u64 * ENTRY) as usize {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> Result<(), IndexError> {
        if self.block.is_empty() {
            return Ok(());
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&self.block);
        self.directory
            .last_mut()
            .expect("a block has a first key")
            .1 = sum;
        self.file.write(&self.block)?;
        self.block.clear();
        Ok(())
    }

    /// Writes the directory and trailer, syncs, and moves the file into place; returns the
    /// number of entries and the file's size.
    pub fn finish(mut self) -> Result<(u64, u64), IndexError> {
        self.flush_block()?;
        let mut footer = Vec::with_capacity(self.directory.len() * 16);
        for &(k, s) in &self.directory {
            footer.extend_from_slice(&k.to_le_bytes());
            footer.extend_from_slice(&s.to_le_bytes());
        }
        let bytes = self.file.finish(&header(self.entries), &footer)?;
        Ok((self.entries, bytes))
    }
}

fn header(entries: u64) -> [u8; HEADER as usize] {
    let mut h = [0u8; HEADER as usize];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&INDEX_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&BLOCK_ENTRIES.to_le_bytes());
    h[16..24].copy_from_slice(&entries.to_le_bytes());
    h
}

/// Reads a key segment: the directory in memory (16 bytes per block), blocks from disk. A
/// clone shares the open file and the directory (snapshots of one index share readers).
#[derive(Clone, Debug)]
pub struct KeySegmentReader {
    path: PathBuf,
    file: fsutil::Src,
    /// The file's size.
    size: u64,
    entries: u64,
    block_entries: u64,
    directory: std::sync::Arc<[(u64, u64)]>,
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
        let block_entries = u32::from_le_bytes(h[12..16].try_into().expect("4")) as u64;
        let entries = u64::from_le_bytes(h[16..24].try_into().expect("8"));
        if block_entries == 0 {
            return Err(damaged(12, "0 entries per block".into()));
        }
        let blocks = entries.div_ceil(block_entries);
        let want = entries
            .checked_mul(ENTRY)
            .zip(blocks.checked_mul(16))
            .and_then(|(e, d)| e.checked_add(d)?.checked_add(HEADER + 16));
        if want != Some(size) {
            return Err(damaged(
                size,
                format!(
                    "the header says {entries} entries ({} bytes), the file has {size} bytes (truncated or damaged)",
                    want.map_or("too many".into(), |w| w.to_string())
                ),
            ));
        }
        let footer_at = HEADER + entries * ENTRY;
        let mut footer = vec![0u8; (blocks * 16 + 16) as usize];
        file.read_exact_at(&mut footer, footer_at)
            .map_err(io_err(path))?;
        let (dir_bytes, trailer) = footer.split_at(blocks as usize * 16);
        let want_sum = u64::from_le_bytes(trailer[..8].try_into().expect("8"));
        if fsutil::trailer_sum(&h, dir_bytes) != want_sum || &trailer[8..] != END {
            return Err(damaged(
                footer_at,
                "the header or block directory does not match its checksum (damaged)".into(),
            ));
        }
        let directory: std::sync::Arc<[(u64, u64)]> = dir_bytes
            .chunks_exact(16)
            .map(|c| {
                (
                    u64::from_le_bytes(c[..8].try_into().expect("8")),
                    u64::from_le_bytes(c[8..].try_into().expect("8")),
                )
            })
            .collect();
        Ok(KeySegmentReader {
            path: path.to_path_buf(),
            file: fsutil::Src::File(std::sync::Arc::new(file)),
            size,
            entries,
            block_entries,
            directory,
        })
    }

    /// This reader with the whole file read into memory now: later reads make no system
    /// call (and are still checked against their checksums). Clones made before keep reading
    /// the file.
    /// Every block is checked against its checksum as it is loaded, and not again.
    pub fn into_memory(self) -> Result<KeySegmentReader, IndexError> {
        // Read once, then checked from memory (not read twice).
        let file = self.file.clone().into_memory(&self.path, self.size)?;
        let r = KeySegmentReader { file, ..self };
        let mut buf = Vec::new();
        for b in 0..r.directory.len() {
            r.block(b, &mut buf)?;
        }
        Ok(r)
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

    /// Block `b`'s entries into `buf`, checked against its checksum.
    /// Block `b`: borrowed from memory (checked when it was loaded), or read into `buf` and
    /// checked now.
    fn block_bytes<'a>(&'a self, b: usize, buf: &'a mut Vec<u8>) -> Result<&'a [u8], IndexError> {
        let first = b as u64 * self.block_entries;
        let n = self.block_entries.min(self.entries - first);
        if let Some(bytes) = self.file.slice(HEADER + first * ENTRY, n * ENTRY) {
            return Ok(bytes);
        }
        self.block(b, buf)?;
        Ok(buf)
    }

    fn block(&self, b: usize, buf: &mut Vec<u8>) -> Result<(), IndexError> {
        let first = b as u64 * self.block_entries;
        let n = self.block_entries.min(self.entries - first);
        let at = HEADER + first * ENTRY;
        buf.resize((n * ENTRY) as usize, 0);
        self.file
            .read_exact_at(buf, at)
            .map_err(io_err(&self.path))?;
        if xxhash_rust::xxh3::xxh3_64(buf) != self.directory[b].1 {
            return Err(IndexError::damaged(
                &self.path,
                at,
                format!("block {b} does not match its checksum (damaged)"),
            ));
        }
        Ok(())
    }

    /// Asks the kernel to start reading the block `key` would be looked up in (one
    /// `posix_fadvise(WILLNEED)`, which returns at once): a caller about to look up several
    /// keys announces them all first, so that their reads from disk overlap instead of
    /// following one another. Only a hint: nothing is read or checked here.
    pub fn prefetch(&self, key: u64) {
        let b = self
            .directory
            .partition_point(|&(k, _)| k < key)
            .saturating_sub(1);
        if b < self.directory.len() {
            let first = b as u64 * self.block_entries;
            let n = self.block_entries.min(self.entries - first);
            self.file.will_need(HEADER + first * ENTRY, n * ENTRY);
        }
    }

    /// The pages under `key`, appended to `out` in increasing order (`scratch`: a block's
    /// bytes, reused from call to call).
    pub fn lookup(
        &self,
        key: u64,
        scratch: &mut Vec<u8>,
        out: &mut Vec<u64>,
    ) -> Result<(), IndexError> {
        // The last block whose first key is below `key` may hold its first entries.
        let start = self
            .directory
            .partition_point(|&(k, _)| k < key)
            .saturating_sub(1);
        for b in start..self.directory.len() {
            if self.directory[b].0 > key {
                break;
            }
            let block = self.block_bytes(b, scratch)?;
            // Entries are sorted: the first with `key` is found by binary search.
            let key_at = |i: usize| {
                let at = i * ENTRY as usize;
                u64::from_le_bytes(block[at..at + 8].try_into().expect("8"))
            };
            let n = block.len() / ENTRY as usize;
            let (mut lo, mut hi) = (0, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if key_at(mid) < key {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            for e in block[lo * ENTRY as usize..].chunks_exact(ENTRY as usize) {
                let k = u64::from_le_bytes(e[..8].try_into().expect("8"));
                if k == key {
                    out.push(u64::from_le_bytes(e[8..].try_into().expect("8")));
                } else if k > key {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Every entry in order, block by block (each block checked as it is read): for merges,
    /// link loading and checks.
    pub fn entries(&self) -> Entries<'_> {
        Entries {
            seg: self,
            block: 0,
            buf: Vec::new(),
            at: 0,
            n: 0,
        }
    }

    /// Reads every block, checking each, the order of the entries and that `held(page)` for
    /// every page named (`index check`); returns the entries seen.
    pub fn check(&self, held: impl Fn(u64) -> bool) -> Result<u64, IndexError> {
        let mut last = None;
        let mut n = 0;
        for e in self.entries() {
            let (k, p) = e?;
            let at = HEADER + n * ENTRY;
            if last.is_some_and(|l| (k, p) <= l) {
                return Err(IndexError::damaged(&self.path, at, "entries out of order"));
            }
            if !held(p) {
                return Err(IndexError::damaged(
                    &self.path,
                    at,
                    format!("an entry names page {p}, which the index never held"),
                ));
            }
            last = Some((k, p));
            n += 1;
        }
        Ok(n)
    }
}

/// The entries of a key segment in order ([`KeySegmentReader::entries`]); a damaged block is
/// an error item, after which the iteration ends.
pub struct Entries<'a> {
    seg: &'a KeySegmentReader,
    block: usize,
    buf: Vec<u8>,
    at: usize,
    n: usize,
}

impl Iterator for Entries<'_> {
    type Item = Result<(u64, u64), IndexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at == self.n {
            if self.block >= self.seg.directory.len() {
                return None;
            }
            if let Err(e) = self.seg.block(self.block, &mut self.buf) {
                self.block = self.seg.directory.len();
                return Some(Err(e));
            }
            self.block += 1;
            self.at = 0;
            self.n = self.buf.len() / ENTRY as usize;
        }
        let e = &self.buf[self.at * ENTRY as usize..(self.at + 1) * ENTRY as usize];
        self.at += 1;
        Some(Ok((
            u64::from_le_bytes(e[..8].try_into().expect("8")),
            u64::from_le_bytes(e[8..].try_into().expect("8")),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn write(path: &Path, entries: &[(u64, u64)]) -> (u64, u64) {
        let mut w = KeySegmentWriter::create(path).unwrap();
        for &(k, p) in entries {
            w.push(k, p).unwrap();
        }
        w.finish().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
        #[test]
        fn lookups_equal_brute_force(
            raw in proptest::collection::vec((0u64..300, 0u64..50), 0..5000),
            probes in proptest::collection::vec(0u64..320, 1..40),
        ) {
            let mut entries = raw.clone();
            entries.sort_unstable();
            entries.dedup();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.keys");
            let (n, bytes) = write(&path, &entries);
            prop_assert_eq!(n, entries.len() as u64);
            prop_assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
            let r = KeySegmentReader::open(&path).unwrap();
            prop_assert_eq!(r.check(|_| true).unwrap(), n);
            for key in probes {
                let mut got = Vec::new();
                r.lookup(key, &mut Vec::new(), &mut got).unwrap();
                let want: Vec<u64> = entries.iter().filter(|e| e.0 == key).map(|e| e.1).collect();
                prop_assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn huge_counts_in_a_header_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("h.keys");
        for (per_block, entries) in [(1u32, u64::MAX), (1, u64::MAX / 16), (1024, u64::MAX)] {
            let mut b = header(entries).to_vec();
            b[12..16].copy_from_slice(&per_block.to_le_bytes());
            b.extend_from_slice(&[0; 64]);
            std::fs::write(&d, &b).unwrap();
            let e = KeySegmentReader::open(&d).unwrap_err().to_string();
            assert!(e.contains("truncated or damaged"), "{e}");
        }
    }

    #[test]
    fn out_of_order_is_refused_and_an_unfinished_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.keys");
        let mut w = KeySegmentWriter::create(&path).unwrap();
        w.push(5, 1).unwrap();
        w.push(5, 1).unwrap();
        assert!(w.push(4, 9).is_err());
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn damage_is_named_never_wrong_matches() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.keys");
        let entries: Vec<(u64, u64)> = (0..3000u64).map(|i| (i / 3, i)).collect();
        write(&path, &entries);
        let bytes = std::fs::read(&path).unwrap();
        let damaged = dir.path().join("d.keys");
        for i in (0..bytes.len()).step_by(37).chain([bytes.len() - 1]) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            std::fs::write(&damaged, &b).unwrap();
            // Every lookup reads whole blocks through the same checked path as `check`; a
            // lookup in the block holding the flipped byte must fail too.
            let result = KeySegmentReader::open(&damaged).and_then(|r| {
                let mut all = Vec::new();
                let key = (i.saturating_sub(32) / 16 / 3) as u64;
                r.lookup(key.min(999), &mut Vec::new(), &mut all)?;
                r.check(|_| true)?;
                Ok(all)
            });
            match result {
                Err(e) => assert!(e.to_string().contains("d.keys"), "{e}"),
                Ok(all) => panic!("byte {i} flipped, {} matches returned", all.len()),
            }
        }
        for cut in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&damaged, &bytes[..cut]).unwrap();
            let e = KeySegmentReader::open(&damaged).unwrap_err().to_string();
            assert!(
                e.contains("truncated") || e.contains("bad magic"),
                "{cut}: {e}"
            );
        }
    }
}

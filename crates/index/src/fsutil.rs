//! Durable files: replacement (write a temporary file, fsync it, rename it into place, fsync
//! the folder, so the rename itself survives a crash), and what every segment file shares (the
//! header's magic and version, the trailer, the unfinished file that appears only when done).

use crate::{io_err, IndexError, INDEX_VERSION, OLDEST_INDEX_VERSION};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` durably and atomically through `PATH.tmp`: readers see the old
/// file or the new one ([`neardup_report::replace_durably`]).
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    neardup_report::replace_durably(&path.with_extension("tmp"), path, bytes).map_err(from_report)
}

/// The index's error for a failure of the shared durable-replacement path.
fn from_report(e: neardup_report::ReportError) -> IndexError {
    match e {
        neardup_report::ReportError::Io { path, source } => IndexError::Io { path, source },
        other => IndexError::Io {
            path: PathBuf::new(),
            source: std::io::Error::other(other.to_string()),
        },
    }
}

/// Bytes of every segment file's header: magic (8), version (u32), then the format's own.
pub(crate) const HEADER: u64 = 32;

/// The end marker after every segment file's trailer checksum.
pub(crate) const END: &[u8; 8] = b"NDIDXEND";

/// A segment file being written: under `NAME.partial` (removed if dropped unfinished), a
/// placeholder header first; [`PartialFile::finish`] writes the footer and the trailer (XXH3-64
/// of header and footer, then [`END`]), the real header, syncs, renames into place and syncs
/// the folder.
pub(crate) struct PartialFile {
    pub(crate) path: PathBuf,
    pub(crate) tmp: PathBuf,
    out: BufWriter<File>,
    /// Bytes written so far (the placeholder header included).
    pub(crate) at: u64,
    committed: bool,
}

impl PartialFile {
    pub(crate) fn create(path: &Path) -> Result<PartialFile, IndexError> {
        let tmp = path.with_extension("partial");
        let file = File::create(&tmp).map_err(io_err(&tmp))?;
        let mut f = PartialFile {
            path: path.to_path_buf(),
            tmp,
            out: BufWriter::with_capacity(1 << 16, file),
            at: 0,
            committed: false,
        };
        f.write(&[0u8; HEADER as usize])?;
        Ok(f)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<(), IndexError> {
        self.out.write_all(bytes).map_err(io_err(&self.tmp))?;
        self.at += bytes.len() as u64;
        Ok(())
    }

    /// Completes the file; returns its size.
    pub(crate) fn finish(
        mut self,
        header: &[u8; HEADER as usize],
        footer: &[u8],
    ) -> Result<u64, IndexError> {
        self.write(footer)?;
        self.write(&trailer_sum(header, footer).to_le_bytes())?;
        self.write(END)?;
        self.out.flush().map_err(io_err(&self.tmp))?;
        let file = self.out.get_ref();
        file.write_all_at(header, 0).map_err(io_err(&self.tmp))?;
        file.sync_all().map_err(io_err(&self.tmp))?;
        neardup_report::rename_durably(&self.tmp, &self.path).map_err(from_report)?;
        self.committed = true;
        Ok(self.at)
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The trailer checksum: XXH3-64 (seed 0) of the header, then the footer.
pub(crate) fn trailer_sum(header: &[u8], footer: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(header);
    h.update(footer);
    h.digest()
}

/// A segment file opened for reading, its size checked to hold a header and a trailer, its
/// magic and version checked.
pub(crate) struct Opened {
    pub(crate) file: File,
    pub(crate) size: u64,
    pub(crate) header: [u8; HEADER as usize],
}

pub(crate) fn open(path: &Path, magic: &[u8; 8], kind: &str) -> Result<Opened, IndexError> {
    let file = File::open(path).map_err(io_err(path))?;
    let size = file.metadata().map_err(io_err(path))?.len();
    if size < HEADER + 16 {
        return Err(IndexError::damaged(
            path,
            size,
            "truncated: shorter than a header and trailer",
        ));
    }
    let mut header = [0u8; HEADER as usize];
    file.read_exact_at(&mut header, 0).map_err(io_err(path))?;
    if &header[..8] != magic {
        return Err(IndexError::damaged(
            path,
            0,
            format!("not a {kind} (bad magic)"),
        ));
    }
    let version = u32::from_le_bytes(header[8..12].try_into().expect("4"));
    if !(OLDEST_INDEX_VERSION..=INDEX_VERSION).contains(&version) {
        return Err(IndexError::damaged(
            path,
            8,
            format!(
                "version {version}; this build reads versions {OLDEST_INDEX_VERSION} to \
                 {INDEX_VERSION}"
            ),
        ));
    }
    Ok(Opened { file, size, header })
}

/// Hints that `len` bytes at `offset` of `file` will be read soon (the kernel starts reading
/// them in the background). A hint only: an error is ignored, as the read that follows will
/// report any real problem.
pub(crate) fn will_need(file: &File, offset: u64, len: u64) {
    if let Some(len) = std::num::NonZeroU64::new(len) {
        let _ = rustix::fs::fadvise(file, offset, Some(len), rustix::fs::Advice::WillNeed);
    }
}

/// Where a segment reader's bytes come from: the open file (`pread`), or the whole file read
/// into memory once (no system call per read). Clones share either.
#[derive(Clone, Debug)]
pub(crate) enum Src {
    File(std::sync::Arc<File>),
    Memory(std::sync::Arc<[u8]>),
}

impl Src {
    /// Fills `buf` from offset `at`; reading past the end is an `UnexpectedEof` error.
    pub(crate) fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        match self {
            Src::File(f) => f.read_exact_at(buf, at),
            Src::Memory(m) => {
                let bytes = usize::try_from(at)
                    .ok()
                    .and_then(|a| m.get(a..a.checked_add(buf.len())?))
                    .ok_or_else(|| {
                        std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "past the end")
                    })?;
                buf.copy_from_slice(bytes);
                Ok(())
            }
        }
    }

    /// A read hint ([`will_need`]) for a file; nothing in memory.
    pub(crate) fn will_need(&self, offset: u64, len: u64) {
        if let Src::File(f) = self {
            will_need(f, offset, len);
        }
    }

    /// The whole file in memory (as read now).
    pub(crate) fn into_memory(self, path: &Path, size: u64) -> Result<Src, IndexError> {
        match self {
            Src::File(f) => {
                let mut bytes = vec![0u8; usize::try_from(size).unwrap_or(usize::MAX)];
                f.read_exact_at(&mut bytes, 0).map_err(io_err(path))?;
                Ok(Src::Memory(bytes.into()))
            }
            m => Ok(m),
        }
    }

    /// `len` bytes at `at` borrowed from memory; `None` for a file (or out of range).
    pub(crate) fn slice(&self, at: u64, len: u64) -> Option<&[u8]> {
        match self {
            Src::Memory(m) => {
                let a = usize::try_from(at).ok()?;
                m.get(a..a.checked_add(usize::try_from(len).ok()?)?)
            }
            Src::File(_) => None,
        }
    }

    pub(crate) fn in_memory(&self) -> bool {
        matches!(self, Src::Memory(_))
    }
}

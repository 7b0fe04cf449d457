//! Byte streams: compression detection, gzip members ([`crate::gzip`]), zstd, and a buffered
//! reader with bounded line reads, push-back and position tracking.

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::counted::Counted;
use crate::gzip::{GzMembers, MemberStart, GZIP_MAGIC};

/// Compression of an input, detected from its first bytes (never trusted from the name alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip: one member per record, or the whole file, or anything between.
    Gzip,
    /// Zstandard, one or more frames.
    Zstd,
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// An opened input: the decompressed byte stream plus shared progress.
pub struct Opened {
    /// Decompressed bytes.
    pub reader: Box<dyn Read + Send>,
    /// Detected compression.
    pub compression: Compression,
    /// Raw (compressed) bytes consumed so far, updated while reading.
    pub raw_pos: Arc<AtomicU64>,
    /// For gzip, where the member that last returned bytes begins.
    pub member: Option<Arc<MemberStart>>,
}

impl Opened {
    /// The compressed offset at which a record beginning at decompressed offset `at` can be
    /// read alone: `at` itself when the input is not compressed, the start of its gzip member
    /// when the record begins one, else (zstd, or a record inside a member) `None`.
    pub fn seekable(
        compression: Compression,
        member: Option<&MemberStart>,
        at: u64,
    ) -> Option<u64> {
        match compression {
            Compression::None => Some(at),
            Compression::Gzip => member.and_then(|m| m.raw_offset_of(at)),
            Compression::Zstd => None,
        }
    }
}

/// Opens a file (or a package member, [`crate::files`]) and stacks the right decompressor on
/// it.
pub fn open(path: &Path) -> io::Result<Opened> {
    let file = crate::files::open(path)?;
    open_read(BufReader::with_capacity(256 * 1024, file))
}

/// [`open`], a gzip file on disk of more than two [`crate::inflate::BLOCK`]s inflated on
/// `threads` threads ([`crate::inflate`]: the same bytes, member starts and reports).
pub fn open_threads(path: &Path, threads: usize) -> io::Result<Opened> {
    use std::os::unix::fs::FileExt;
    let Ok(file) = std::fs::File::open(path) else {
        // Not a file on disk: a package member, opened by `open`.
        return open(path);
    };
    let meta = file.metadata()?;
    let mut head = [0u8; GZIP_MAGIC.len()];
    let parallel = threads > 1
        && meta.is_file()
        && meta.len() > 2 * crate::inflate::BLOCK
        && file.read_exact_at(&mut head, 0).is_ok()
        && head == GZIP_MAGIC;
    if parallel {
        let raw_pos = Arc::new(AtomicU64::new(0));
        let mark = Arc::new(MemberStart::new());
        let members = crate::inflate::ParallelMembers::new(
            file.try_clone()?,
            meta.len(),
            crate::inflate::BLOCK,
            threads,
            mark.clone(),
            raw_pos.clone(),
        );
        if let Some(members) = members {
            return Ok(Opened {
                reader: Box::new(members),
                compression: Compression::Gzip,
                raw_pos,
                member: Some(mark),
            });
        }
    }
    // The file already open, read from its start (a positioned read moved nothing).
    open_read(BufReader::with_capacity(256 * 1024, file))
}

/// The compression of an input from its first bytes: a gzip or zstd magic at the start, or a
/// gzip file whose first member is damaged: bytes that are no text at the start, no record of
/// a text format in the first buffer (`WARC/1.`, `filedesc://`, a JSON object first), and a
/// gzip magic further on. The bytes before that member are then reported as damage by the
/// member reader.
fn detect(head: &[u8]) -> Compression {
    if head.starts_with(&GZIP_MAGIC) {
        return Compression::Gzip;
    }
    if head.starts_with(&ZSTD_MAGIC) {
        return Compression::Zstd;
    }
    let start = &head[..head.len().min(16)];
    let text = std::str::from_utf8(start).is_ok_and(|t| {
        t.chars()
            .all(|c| !c.is_control() || matches!(c, '\t' | '\r' | '\n'))
    });
    let find = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
    let json = head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{');
    if !text && !json && !find(b"WARC/1.") && !find(b"filedesc://") && find(&GZIP_MAGIC) {
        return Compression::Gzip;
    }
    Compression::None
}

/// Stacks the right decompressor on any buffered byte source (detected from its first bytes).
pub fn open_read<R: BufRead + Send + 'static>(mut br: R) -> io::Result<Opened> {
    let compression = detect(br.fill_buf()?);
    let raw_pos = Arc::new(AtomicU64::new(0));
    let counted = Counted::sharing(br, raw_pos.clone());
    let mut member = None;
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(counted),
        Compression::Gzip => {
            let mark = Arc::new(MemberStart::new());
            member = Some(mark.clone());
            Box::new(GzMembers::new(counted, mark))
        }
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(counted)?),
    };
    Ok(Opened {
        reader,
        compression,
        raw_pos,
        member,
    })
}

/// Result of a bounded line read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A full line (terminator included) was appended.
    Complete,
    /// The stream ended; the partial line (possibly empty) was appended.
    Eof,
    /// The line is longer than the limit; `limit` bytes were appended, the rest is unread.
    TooLong,
}

/// How [`Input::skip_until`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SkipEnd {
    /// All `n` bytes were skipped.
    Full(u64),
    /// A needle starts this many bytes in; the input is in front of it.
    Found(u64),
    /// The stream ended after this many bytes.
    Eof(u64),
}

/// Buffered reader over a decompressed stream, with push-back and a position in it.
pub(crate) struct Input {
    inner: Box<dyn Read + Send>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Decompressed offset of `buf[start]`.
    pos: u64,
    eof: bool,
    /// An error met while peeking, returned by the next read so that it is never lost.
    deferred: Option<io::Error>,
}

const BUF: usize = 256 * 1024;

impl Input {
    pub fn new(inner: Box<dyn Read + Send>) -> Input {
        Input {
            inner,
            buf: vec![0; BUF],
            start: 0,
            end: 0,
            pos: 0,
            eof: false,
            deferred: None,
        }
    }

    /// Offset of the next unread byte in the decompressed stream.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// Ensures buffered bytes are available. Returns `Ok(false)` at end of stream.
    pub fn fill(&mut self) -> io::Result<bool> {
        if self.start < self.end {
            return Ok(true);
        }
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        if self.eof {
            return Ok(false);
        }
        self.start = 0;
        self.end = 0;
        loop {
            match self.inner.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    pub fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.end - self.start);
        self.start += n;
        self.pos += n as u64;
    }

    /// Puts bytes back in front of the stream (they will be read again).
    pub fn unread(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let held = self.end - self.start;
        if self.start >= bytes.len() {
            self.start -= bytes.len();
            self.buf[self.start..self.start + bytes.len()].copy_from_slice(bytes);
        } else if bytes.len() + held <= self.buf.len() {
            // Room in the buffer: the held bytes move up behind the pushed-back ones (a peek
            // across two fills, once per record at a member's end; no allocation).
            self.buf.copy_within(self.start..self.end, bytes.len());
            self.buf[..bytes.len()].copy_from_slice(bytes);
            self.start = 0;
            self.end = bytes.len() + held;
        } else {
            let mut v = Vec::with_capacity(bytes.len() + self.end - self.start);
            v.extend_from_slice(bytes);
            v.extend_from_slice(&self.buf[self.start..self.end]);
            let cap = v.len().max(BUF);
            v.resize(cap, 0);
            self.end = bytes.len() + self.end - self.start;
            self.start = 0;
            self.buf = v;
        }
        self.pos -= bytes.len() as u64;
    }

    /// Appends one line (up to and including `\n`) to `out`, at most `limit` bytes.
    pub fn read_line(&mut self, out: &mut Vec<u8>, limit: usize) -> io::Result<Line> {
        let mut taken = 0usize;
        loop {
            if !self.fill()? {
                return Ok(Line::Eof);
            }
            let avail = self.buffered();
            let room = limit - taken;
            let window = &avail[..avail.len().min(room)];
            if let Some(p) = memchr::memchr(b'\n', window) {
                out.extend_from_slice(&window[..=p]);
                self.consume(p + 1);
                return Ok(Line::Complete);
            }
            let n = window.len();
            out.extend_from_slice(window);
            self.consume(n);
            taken += n;
            if taken >= limit {
                return Ok(Line::TooLong);
            }
        }
    }

    /// Appends up to `n` bytes to `out`; returns how many were read (less only at end of stream).
    /// Memory grows with the bytes that actually arrive, never with `n` alone beyond 1 MiB
    /// (that much is reserved up front, so a body of at most 1 MiB takes exactly its room, not
    /// up to twice that by doubling).
    pub fn read_up_to(&mut self, out: &mut Vec<u8>, n: u64) -> io::Result<u64> {
        out.reserve_exact(n.min(1 << 20) as usize);
        let mut got = 0u64;
        while got < n {
            if !self.fill()? {
                break;
            }
            let avail = self.buffered();
            let k = (avail.len() as u64).min(n - got) as usize;
            out.extend_from_slice(&avail[..k]);
            self.consume(k);
            got += k as u64;
        }
        Ok(got)
    }

    /// Skips up to `n` bytes, but stops in front of the first occurrence of any of `needles`
    /// that starts inside those `n` bytes (a length field that lies: the next record begins
    /// sooner). Searches across buffer boundaries; memory does not grow with `n`.
    pub fn skip_until(&mut self, n: u64, needles: &[&[u8]]) -> io::Result<SkipEnd> {
        let finders: Vec<memchr::memmem::Finder> =
            needles.iter().map(memchr::memmem::Finder::new).collect();
        let longest = needles.iter().map(|x| x.len()).max().unwrap_or(1).max(1);
        let mut got = 0u64;
        loop {
            if got >= n {
                return Ok(SkipEnd::Full(got));
            }
            if !self.fill()? {
                return Ok(SkipEnd::Eof(got));
            }
            while self.end - self.start < longest && !self.eof {
                // Too little buffered to see a needle across the boundary: pull more in.
                let keep = self.buffered().to_vec();
                self.consume(keep.len());
                let more = self.fill();
                self.unread(&keep);
                if !more? {
                    break;
                }
            }
            let avail = self.buffered();
            let remaining = n - got;
            let window = avail
                .len()
                .min(remaining.saturating_add(longest as u64) as usize);
            let found = finders
                .iter()
                .filter_map(|f| f.find(&avail[..window]))
                .min();
            if let Some(p) = found.filter(|&p| (p as u64) < remaining) {
                self.consume(p);
                return Ok(SkipEnd::Found(got + p as u64));
            }
            let safe = if avail.len() >= longest && !self.eof {
                avail.len() - (longest - 1)
            } else {
                avail.len()
            };
            let k = (safe as u64).min(remaining) as usize;
            self.consume(k);
            got += k as u64;
        }
    }

    /// Peeks at the next `n` bytes (fewer at the end of the stream or before a read error,
    /// which the next read then returns) into `out`.
    pub fn peek(&mut self, n: usize, out: &mut Vec<u8>) {
        out.clear();
        while out.len() < n {
            match self.fill() {
                Ok(true) => {
                    let avail = self.buffered();
                    let k = avail.len().min(n - out.len());
                    out.extend_from_slice(&avail[..k]);
                    self.consume(k);
                }
                Ok(false) => break,
                Err(e) => {
                    self.deferred = Some(e);
                    break;
                }
            }
        }
        self.unread(out);
    }

    /// Skips to the next occurrence of `needle` (anywhere: junk before a record need not end
    /// with a newline). Returns `Ok(false)` (stream consumed) when there is none.
    pub fn seek(&mut self, needle: &[u8]) -> io::Result<bool> {
        let finder = memchr::memmem::Finder::new(needle);
        loop {
            if !self.fill()? {
                return Ok(false);
            }
            let avail = self.buffered();
            if let Some(p) = finder.find(avail) {
                self.consume(p);
                return Ok(true);
            }
            if avail.len() < needle.len() {
                // Too little buffered to decide: pull more in behind it.
                let keep = avail.to_vec();
                self.consume(keep.len());
                if !self.fill()? {
                    return Ok(false);
                }
                self.unread(&keep);
                if self.end - self.start <= keep.len() {
                    self.consume(keep.len());
                    return Ok(false);
                }
                continue;
            }
            let n = avail.len() - (needle.len() - 1);
            self.consume(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader handing out `chunk` bytes at a time, to put needles across buffer boundaries.
    struct Chunks(Vec<u8>, usize, usize);

    impl Read for Chunks {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.2.min(out.len()).min(self.0.len() - self.1);
            out[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }

    #[test]
    fn skip_until_stops_at_the_first_needle_inside_the_block() {
        let needles: [&[u8]; 2] = [b"\r\n\r\nWARC/1.", b"\n\nWARC/1."];
        let mut data = vec![b'x'; 100];
        data.extend_from_slice(b"\r\n\r\nWARC/1.0\r\nrest");
        for chunk in [1, 2, 3, 7, 11, 64, 1000] {
            // A block claiming 1,000 bytes ends at 100: stop there.
            let mut i = Input::new(Box::new(Chunks(data.clone(), 0, chunk)));
            assert_eq!(
                i.skip_until(1000, &needles).unwrap(),
                SkipEnd::Found(100),
                "{chunk}"
            );
            let mut rest = Vec::new();
            i.read_up_to(&mut rest, 4).unwrap();
            assert_eq!(rest, b"\r\n\r\n");
            // A block of exactly 100 bytes: the needle right after it is the trailer.
            let mut i = Input::new(Box::new(Chunks(data.clone(), 0, chunk)));
            assert_eq!(
                i.skip_until(100, &needles).unwrap(),
                SkipEnd::Full(100),
                "{chunk}"
            );
            assert_eq!(i.pos(), 100);
            // Shorter than claimed and no needle: the end.
            let mut i = Input::new(Box::new(Chunks(vec![b'y'; 50], 0, chunk)));
            assert_eq!(
                i.skip_until(80, &needles).unwrap(),
                SkipEnd::Eof(50),
                "{chunk}"
            );
        }
    }

    #[test]
    fn input_lines_pushback_and_seek() {
        let data = b"abc\ndefgh\nWARC/1.1 tail".to_vec();
        let mut inp = Input::new(Box::new(std::io::Cursor::new(data)));
        let mut line = Vec::new();
        assert_eq!(inp.read_line(&mut line, 100).unwrap(), Line::Complete);
        assert_eq!(line, b"abc\n");
        line.clear();
        assert_eq!(inp.read_line(&mut line, 3).unwrap(), Line::TooLong);
        assert_eq!(line, b"def");
        inp.unread(b"XY");
        assert_eq!(inp.pos(), 5);
        assert!(inp.seek(b"WARC/").unwrap());
        assert_eq!(inp.pos(), 10);
        let mut v = Vec::new();
        inp.peek(4, &mut v);
        assert_eq!(v, b"WARC");
        assert_eq!(inp.skip_until(100, &[]).unwrap(), SkipEnd::Eof(13));
        assert!(!inp.seek(b"WARC/").unwrap());
    }
}

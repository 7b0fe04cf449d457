//! The signature file: a crawl's signatures written once (`neardup sketch`) and clustered later,
//! or compared with a new crawl.
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! magic    8 bytes  "NDSIG\r\n\x1a"
//! version  u32      SIGFILE_VERSION (8; versions 5, without the language, 6, without
//!                   capture prints, and 7, without the detector, are read too)
//! params   u32 length + JSON of SketchParams
//! detector u32 length + UTF-8 name and version of the language detector that told the
//!          records' languages (`neardup_text::language::DETECTOR`; version 8)
//! inputs   u32 count, then per input: u32 length + UTF-8 path
//! records  u64 count, then per record:
//!            u32 source, u32 ordinal, u32 tokens, u64 token_hash, u64 body_hash,
//!            u32 shingles, u32 chrome (f32 bits), 4 x u32 title segment hashes,
//!            3 bytes language (ISO 639-3 code in ASCII, `und` for unknown; version 6),
//!            m x u32 minvalues (the low 32 bits of each),
//!            m' x u64 supershingles, simhash_bits/64 x u64 simhash,
//!            rp_dims x i64 raw random projection,
//!            5 strings (url, user id, ip, date, host), each u32 length + UTF-8,
//!            when rp_dims > 0: u32 count + count x u64 outlink hashes,
//!            u32 count + count x u32 shingle set (increasing; the low 32 bits of the
//!              pre-images; kept for pages of at most `exact_sets` shingles, else count 0),
//!            u32 length + that many bytes of capture print (version 7; at most
//!              MAX_PRINT_BYTES; 0 when not kept: `neardup_evolve::change::CapturePrint`'s
//!              own versioned encoding, opaque here)
//! checksum u64      XXH3-64 (seed 0) of every byte before it
//! ```
//!
//! Files are written through [`neardup_report::AtomicFile`] (a temporary name, synced, renamed
//! into place). The reader streams: it reads the header, then one record at a time, hashing
//! every byte, and checks the checksum after the last record; it never allocates from a length
//! field alone, and says at which byte it found what instead of what it expected.

use neardup_report::AtomicFile;
use neardup_sketch::SketchParams;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// The version of the file layout this build writes. Version 5 (the signature definition's
/// version, which earlier builds wrote here) is read too: its pages' language is unknown; so is
/// version 6, whose pages have no capture print. A file's signatures are used only when its
/// parameters' version is this build's [`neardup_sketch::SIGNATURE_VERSION`] (`SketchParams::validate`).
pub const SIGFILE_VERSION: u32 = 8;

/// The oldest file layout this build reads.
pub const OLDEST_SIGFILE_VERSION: u32 = 5;

/// The longest capture print a record may hold.
pub const MAX_PRINT_BYTES: usize = 4096;

/// The first 8 bytes of a signature file.
pub const MAGIC: &[u8; 8] = b"NDSIG\r\n\x1a";

/// One page in a signature file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PageRecord {
    /// Input index (into the file's input list) and record ordinal.
    pub source: u32,
    /// Record ordinal in its input.
    pub ordinal: u32,
    /// Number of terms.
    pub tokens: u32,
    /// Hash of the token sequence (identity sets).
    pub token_hash: u64,
    /// XXH3-64 of the raw body (byte-identical pages).
    pub body_hash: u64,
    /// Distinct shingles the signatures were taken over.
    pub shingles: u32,
    /// Share of the page's terms left out as chrome (navigation, sidebars, ...).
    pub chrome: f32,
    /// The title's segment hashes (`neardup_text::TitleKey`).
    pub title: [u32; 4],
    /// The page's language (unknown in version 5 files).
    pub language: neardup_text::language::Language,
    /// `m` minvalues (their low 32 bits).
    pub minvalues: Vec<u32>,
    /// `m'` supershingles.
    pub supershingles: Vec<u64>,
    /// The simhash (`simhash_bits / 64` words, possibly none).
    pub simhash: Vec<u64>,
    /// The raw random projection (`rp_dims` values, possibly none).
    pub rp: Vec<i64>,
    /// Hashes of the page's distinct outlinks (kept when `rp_dims > 0`), increasing: XXH3-64
    /// (seed 0) of each normalized outlink URL.
    pub links: Vec<u64>,
    /// The page's shingle set when kept (increasing low 32 bits of its pre-images), else
    /// empty.
    pub shingle_set: Vec<u32>,
    /// The page's capture print (opaque bytes; empty when not kept, and in files before
    /// version 7).
    pub print: Vec<u8>,
    /// Page URL.
    pub url: String,
    /// The user's id (JSONL/Parquet id field) or the WARC-Record-ID.
    pub user_id: String,
    /// Server IP.
    pub ip: String,
    /// Fetch date.
    pub date: String,
    /// Host, lowercased.
    pub host: String,
}

/// Errors reading or writing a signature file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SigFileError {
    /// I/O.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Not a signature file, or a damaged one.
    #[error("{}: byte {offset}: {what}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// Where the problem was found.
        offset: u64,
        /// Expected vs found.
        what: String,
    },
    /// A record that does not fit the parameters (writing, or a page pushed from a file).
    #[error("{}: {source}", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// What did not fit.
        source: crate::shape::ShapeError,
    },
    /// The output could not be written.
    #[error(transparent)]
    Output(#[from] neardup_report::ReportError),
}

struct Hashing<W> {
    inner: W,
    hash: Xxh3,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a signature file atomically: nothing appears at the path until
/// [`SignatureWriter::finish`]; dropped before, it leaves nothing.
pub struct SignatureWriter {
    out: Hashing<AtomicFile>,
    path: PathBuf,
    params: SketchParams,
    count: u64,
    written: u64,
}

fn put_str(w: &mut impl Write, s: &str) -> io::Result<()> {
    w.write_all(&(s.len() as u32).to_le_bytes())?;
    w.write_all(s.as_bytes())
}

impl SignatureWriter {
    /// Starts `path` for `count` records of `params`' signatures read from `inputs`.
    pub fn create(
        path: &Path,
        params: &SketchParams,
        inputs: &[String],
        count: u64,
    ) -> Result<SignatureWriter, SigFileError> {
        let io_err = |source| SigFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut out = Hashing {
            inner: AtomicFile::create(path)?,
            hash: Xxh3::new(),
        };
        let json = serde_json::to_string(params).map_err(|e| io_err(io::Error::other(e)))?;
        (|| -> io::Result<()> {
            out.write_all(MAGIC)?;
            out.write_all(&SIGFILE_VERSION.to_le_bytes())?;
            put_str(&mut out, &json)?;
            put_str(&mut out, neardup_text::language::DETECTOR)?;
            out.write_all(&(inputs.len() as u32).to_le_bytes())?;
            for i in inputs {
                put_str(&mut out, i)?;
            }
            out.write_all(&count.to_le_bytes())
        })()
        .map_err(io_err)?;
        Ok(SignatureWriter {
            out,
            path: path.to_path_buf(),
            params: params.clone(),
            count,
            written: 0,
        })
    }

    /// Appends one record; refuses one whose signatures do not fit the parameters.
    pub fn write(&mut self, r: &PageRecord) -> Result<(), SigFileError> {
        let p = &self.params;
        for (what, expected, got) in [
            ("minvalues", p.m as usize, r.minvalues.len()),
            (
                "supershingles",
                p.supershingles as usize,
                r.supershingles.len(),
            ),
            ("simhash", p.simhash_words(), r.simhash.len()),
            ("random projection", p.rp_dims as usize, r.rp.len()),
        ] {
            if expected != got {
                return Err(SigFileError::Shape {
                    path: self.path.clone(),
                    source: crate::shape::ShapeError {
                        url: r.url.clone(),
                        what,
                        expected,
                        got,
                    },
                });
            }
        }
        let rp_dims = p.rp_dims;
        let w = &mut self.out;
        (|| -> io::Result<()> {
            w.write_all(&r.source.to_le_bytes())?;
            w.write_all(&r.ordinal.to_le_bytes())?;
            w.write_all(&r.tokens.to_le_bytes())?;
            w.write_all(&r.token_hash.to_le_bytes())?;
            w.write_all(&r.body_hash.to_le_bytes())?;
            w.write_all(&r.shingles.to_le_bytes())?;
            w.write_all(&r.chrome.to_bits().to_le_bytes())?;
            for t in r.title {
                w.write_all(&t.to_le_bytes())?;
            }
            w.write_all(&r.language.to_bytes())?;
            for v in &r.minvalues {
                w.write_all(&v.to_le_bytes())?;
            }
            for v in r.supershingles.iter().chain(&r.simhash) {
                w.write_all(&v.to_le_bytes())?;
            }
            for v in &r.rp {
                w.write_all(&v.to_le_bytes())?;
            }
            for s in [&r.url, &r.user_id, &r.ip, &r.date, &r.host] {
                put_str(w, s)?;
            }
            if rp_dims > 0 {
                w.write_all(&(r.links.len() as u32).to_le_bytes())?;
                for v in &r.links {
                    w.write_all(&v.to_le_bytes())?;
                }
            }
            w.write_all(&(r.shingle_set.len() as u32).to_le_bytes())?;
            for v in &r.shingle_set {
                w.write_all(&v.to_le_bytes())?;
            }
            w.write_all(&(r.print.len() as u32).to_le_bytes())?;
            w.write_all(&r.print)?;
            Ok(())
        })()
        .map_err(|source| SigFileError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.written += 1;
        Ok(())
    }

    /// Writes the checksum, syncs and renames the file into place; then its parameters beside
    /// it as `FILE.params.json`, for people and other tools.
    pub fn finish(self) -> Result<(), SigFileError> {
        if self.written != self.count {
            return Err(SigFileError::Format {
                path: self.path,
                offset: 0,
                what: format!("{} records announced, {} written", self.count, self.written),
            });
        }
        let sum = self.out.hash.digest();
        let mut file = self.out.inner;
        file.write_all(&sum.to_le_bytes())
            .map_err(|source| SigFileError::Io {
                path: self.path.clone(),
                source,
            })?;
        file.commit()?;
        let side = self.path.with_file_name(format!(
            "{}.params.json",
            self.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        let json = serde_json::to_vec_pretty(&self.params).map_err(|e| SigFileError::Io {
            path: side.clone(),
            source: io::Error::other(e),
        })?;
        neardup_report::write_atomic(&side, &json)?;
        Ok(())
    }
}

/// Reads a signature file as a stream: the header on opening, then one record per
/// [`SignatureReader::next_record`]; the checksum is checked after the last record.
pub struct SignatureReader<R = BufReader<std::fs::File>> {
    /// Its parameters.
    pub params: SketchParams,
    /// The inputs it was made from.
    pub inputs: Vec<String>,
    /// Records the file announces.
    pub count: u64,
    /// The language detector that told its records' languages (version 8 on; `None` before:
    /// not recorded, or, in version 5, no languages).
    pub language_detector: Option<String>,
    src: R,
    hash: Xxh3,
    at: u64,
    read: u64,
    done: bool,
    path: PathBuf,
    /// The file's layout version.
    version: u32,
}

impl SignatureReader {
    /// True when `path` starts with the signature file magic.
    pub fn is_signature_file(path: &Path) -> bool {
        let mut head = [0u8; 8];
        std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
            && &head == MAGIC
    }

    /// Opens a file and reads its header.
    pub fn open(path: &Path) -> Result<SignatureReader, SigFileError> {
        let f = std::fs::File::open(path).map_err(|source| SigFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        SignatureReader::from_reader(BufReader::with_capacity(1 << 20, f), path)
    }
}

impl<R: Read> SignatureReader<R> {
    /// Reads the header of a signature file from `src`; `name` is used in errors.
    pub fn from_reader(src: R, name: &Path) -> Result<SignatureReader<R>, SigFileError> {
        let mut r = SignatureReader {
            params: SketchParams::default(),
            inputs: Vec::new(),
            count: 0,
            language_detector: None,
            src,
            hash: Xxh3::new(),
            at: 0,
            read: 0,
            done: false,
            path: name.to_path_buf(),
            version: 0,
        };
        let mut magic = [0u8; 8];
        r.fill(&mut magic)?;
        if &magic != MAGIC {
            return Err(r.format(0, "not a neardup signature file (bad magic)".into()));
        }
        let version = r.u32()?;
        if !(OLDEST_SIGFILE_VERSION..=SIGFILE_VERSION).contains(&version) {
            return Err(r.format(
                8,
                format!(
                    "signature file version {version}; this build reads versions {OLDEST_SIGFILE_VERSION} to {SIGFILE_VERSION}"
                ),
            ));
        }
        r.version = version;
        let at = r.at;
        let json = r.string()?;
        r.params =
            serde_json::from_str(&json).map_err(|e| r.format(at, format!("parameters: {e}")))?;
        r.params
            .validate()
            .map_err(|e| r.format(at, e.to_string()))?;
        if version >= 8 {
            r.language_detector = Some(r.string()?);
        }
        let n_inputs = r.u32()?;
        for _ in 0..n_inputs {
            let s = r.string()?;
            r.inputs.push(s);
        }
        r.count = r.u64()?;
        Ok(r)
    }

    /// Whether its records' languages were told by another detector than this build's (or by
    /// one not recorded): what a run mixing them with pages read now should say.
    pub fn languages_differ(&self) -> Option<&str> {
        match &self.language_detector {
            Some(d) if d == neardup_text::language::DETECTOR => None,
            Some(d) => Some(d),
            None if self.version >= 6 => Some("a detector not recorded (a file of version 6 or 7)"),
            None => None,
        }
    }

    fn format(&self, offset: u64, what: String) -> SigFileError {
        SigFileError::Format {
            path: self.path.clone(),
            offset,
            what,
        }
    }

    pub(crate) fn shape_error(&self, source: crate::shape::ShapeError) -> SigFileError {
        SigFileError::Shape {
            path: self.path.clone(),
            source,
        }
    }

    /// Fills `buf` from the file, hashing it.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), SigFileError> {
        let mut got = 0;
        while got < buf.len() {
            match self.src.read(&mut buf[got..]) {
                Ok(0) => {
                    return Err(self.format(
                        self.at + got as u64,
                        format!(
                            "the file ends while {} more bytes were expected (truncated)",
                            buf.len() - got
                        ),
                    ))
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(SigFileError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
            }
        }
        self.hash.update(buf);
        self.at += buf.len() as u64;
        Ok(())
    }

    fn u32(&mut self) -> Result<u32, SigFileError> {
        let mut b = [0u8; 4];
        self.fill(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, SigFileError> {
        let mut b = [0u8; 8];
        self.fill(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// `n` u64 values into `out` (cleared), in chunks: a damaged length cannot allocate more
    /// than the bytes that arrive.
    fn u64s(&mut self, n: usize, out: &mut Vec<u64>) -> Result<(), SigFileError> {
        self.values(n, out, u64::from_le_bytes)
    }

    /// `n` u32 values into `out` (cleared), as [`Self::u64s`].
    fn u32s(&mut self, n: usize, out: &mut Vec<u32>) -> Result<(), SigFileError> {
        self.values(n, out, u32::from_le_bytes)
    }

    fn values<T, const W: usize>(
        &mut self,
        n: usize,
        out: &mut Vec<T>,
        from: impl Fn([u8; W]) -> T,
    ) -> Result<(), SigFileError> {
        out.clear();
        let mut chunk = [0u8; 512];
        let per = 512 / W;
        let mut left = n;
        while left > 0 {
            let k = left.min(per);
            self.fill(&mut chunk[..W * k])?;
            out.extend(
                chunk[..W * k]
                    .chunks_exact(W)
                    .map(|c| from(c.try_into().expect("W bytes"))),
            );
            left -= k;
        }
        Ok(())
    }

    fn string_into(&mut self, out: &mut String) -> Result<(), SigFileError> {
        let n = self.u32()? as usize;
        let at = self.at;
        let mut bytes = std::mem::take(out).into_bytes();
        bytes.clear();
        let mut chunk = [0u8; 4096];
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len());
            self.fill(&mut chunk[..k])?;
            bytes.extend_from_slice(&chunk[..k]);
            left -= k;
        }
        *out = String::from_utf8(bytes)
            .map_err(|_| self.format(at, "invalid UTF-8 in a string".into()))?;
        Ok(())
    }

    fn string(&mut self) -> Result<String, SigFileError> {
        let mut s = String::new();
        self.string_into(&mut s)?;
        Ok(s)
    }

    /// Reads the next record into `r` (its buffers reused); `false` after the last one, once
    /// the checksum has been checked and nothing follows it.
    pub fn next_record(&mut self, r: &mut PageRecord) -> Result<bool, SigFileError> {
        if self.done {
            return Ok(false);
        }
        if self.read == self.count {
            self.done = true;
            let want_at = self.at;
            let got = self.hash.digest();
            let mut sum = [0u8; 8];
            self.fill(&mut sum)?;
            let want = u64::from_le_bytes(sum);
            if want != got {
                return Err(self.format(want_at, format!("checksum mismatch: the file says {want:#018x}, its bytes give {got:#018x} (damaged or truncated)")));
            }
            let mut extra = [0u8; 1];
            match self.src.read(&mut extra) {
                Ok(0) => return Ok(false),
                Ok(_) => {
                    return Err(self.format(self.at, "unexpected bytes after the checksum".into()))
                }
                Err(source) => {
                    return Err(SigFileError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
            }
        }
        let p = &self.params;
        let (m, s, w, k) = (
            p.m as usize,
            p.supershingles as usize,
            p.simhash_words(),
            p.rp_dims as usize,
        );
        r.source = self.u32()?;
        r.ordinal = self.u32()?;
        r.tokens = self.u32()?;
        r.token_hash = self.u64()?;
        r.body_hash = self.u64()?;
        r.shingles = self.u32()?;
        r.chrome = f32::from_bits(self.u32()?);
        for t in &mut r.title {
            *t = self.u32()?;
        }
        r.language = if self.version >= 6 {
            let mut code = [0u8; 3];
            self.fill(&mut code)?;
            neardup_text::language::Language::from_bytes(code)
        } else {
            neardup_text::language::Language::UNKNOWN
        };
        self.u32s(m, &mut r.minvalues)?;
        self.u64s(s, &mut r.supershingles)?;
        self.u64s(w, &mut r.simhash)?;
        let mut rp = std::mem::take(&mut r.links);
        self.u64s(k, &mut rp)?;
        r.rp.clear();
        r.rp.extend(rp.iter().map(|&v| v as i64));
        r.links = rp;
        self.string_into(&mut r.url)?;
        self.string_into(&mut r.user_id)?;
        self.string_into(&mut r.ip)?;
        self.string_into(&mut r.date)?;
        self.string_into(&mut r.host)?;
        r.links.clear();
        if k > 0 {
            let n = self.u32()? as usize;
            let mut links = std::mem::take(&mut r.links);
            self.u64s(n, &mut links)?;
            r.links = links;
        }
        let at = self.at;
        let n = self.u32()? as usize;
        self.u32s(n, &mut r.shingle_set)?;
        if n as u64 > u64::from(r.shingles.min(self.params.exact_sets)) {
            return Err(self.format(
                at,
                format!(
                    "a shingle set of {n} values for a page of {} shingles (sets are kept up to {})",
                    r.shingles, self.params.exact_sets
                ),
            ));
        }
        if r.shingle_set.windows(2).any(|w| w[0] >= w[1]) {
            return Err(self.format(at, "a shingle set that is not increasing".into()));
        }
        r.print.clear();
        if self.version >= 7 {
            let at = self.at;
            let n = self.u32()? as usize;
            if n > MAX_PRINT_BYTES {
                return Err(self.format(
                    at,
                    format!("a capture print of {n} bytes (at most {MAX_PRINT_BYTES})"),
                ));
            }
            r.print.resize(n, 0);
            let mut print = std::mem::take(&mut r.print);
            self.fill(&mut print)?;
            r.print = print;
        }
        self.read += 1;
        Ok(true)
    }

    /// Every remaining record (tests, small files).
    pub fn read_all(&mut self) -> Result<Vec<PageRecord>, SigFileError> {
        let mut out = Vec::new();
        let mut r = PageRecord::default();
        while self.next_record(&mut r)? {
            out.push(r.clone());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> Result<Vec<PageRecord>, SigFileError> {
        SignatureReader::from_reader(bytes, Path::new("mem"))?.read_all()
    }

    #[test]
    fn round_trip_and_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ndsig");
        let params = SketchParams {
            simhash_bits: 128,
            rp_dims: 2,
            ..SketchParams::default()
        };
        let rec = PageRecord {
            source: 1,
            ordinal: 7,
            tokens: 3,
            token_hash: 9,
            body_hash: 10,
            shingles: 11,
            chrome: 0.25,
            title: [12, 13, 0, 0],
            language: neardup_text::language::Language::from_code("fra").unwrap(),
            minvalues: (0..84).collect(),
            supershingles: (0..6).collect(),
            simhash: vec![u64::MAX, 5],
            rp: vec![-5, i64::MAX],
            links: vec![1, 2, u64::MAX],
            shingle_set: vec![3, 9, u32::MAX],
            print: vec![1, 0, 255],
            url: "http://a/é".into(),
            user_id: "id1".into(),
            ip: "1.2.3.4".into(),
            date: "2024".into(),
            host: "a".into(),
        };
        let mut w = SignatureWriter::create(&path, &params, &["x.warc".into(), "y.warc".into()], 2)
            .unwrap();
        w.write(&rec).unwrap();
        // A record that does not fit the parameters is refused, not a panic.
        assert!(matches!(
            w.write(&PageRecord {
                minvalues: vec![1],
                ..rec.clone()
            }),
            Err(SigFileError::Shape { .. })
        ));
        w.write(&PageRecord {
            ordinal: 8,
            links: Vec::new(),
            ..rec.clone()
        })
        .unwrap();
        w.finish().unwrap();
        assert!(SignatureReader::is_signature_file(&path));
        let mut r = SignatureReader::open(&path).unwrap();
        assert_eq!(r.params, params);
        assert_eq!(r.inputs, ["x.warc", "y.warc"]);
        let all = r.read_all().unwrap();
        assert_eq!(all[0], rec);
        assert_eq!((all[1].ordinal, all[1].links.len()), (8, 0));
        assert!(dir.path().join("a.ndsig.params.json").exists());
        let bytes = std::fs::read(&path).unwrap();
        let mut damaged = bytes.clone();
        damaged[100] ^= 1;
        let e = parse(&damaged).unwrap_err().to_string();
        assert!(e.contains("checksum") || e.contains("byte"), "{e}");
        for cut in [10, 60, bytes.len() / 2, bytes.len() - 4] {
            let e = parse(&bytes[..cut]).unwrap_err().to_string();
            assert!(e.contains("truncated") || e.contains("byte"), "{cut}: {e}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(parse(&longer)
            .unwrap_err()
            .to_string()
            .contains("after the checksum"));
        assert!(parse(b"garbage garbage garbage")
            .unwrap_err()
            .to_string()
            .contains("magic"));
        // An unfinished writer leaves nothing.
        {
            let mut w =
                SignatureWriter::create(&dir.path().join("b.ndsig"), &params, &[], 1).unwrap();
            w.write(&rec).unwrap();
        }
        assert!(!dir.path().join("b.ndsig").exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    /// The header of `bytes` (a signature file).
    fn header(bytes: &[u8]) -> SignatureReader<&[u8]> {
        SignatureReader::from_reader(bytes, Path::new("mem")).unwrap()
    }

    #[test]
    fn files_of_versions_5_to_7_are_read_without_languages_prints_or_detector() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v8.ndsig");
        let params = SketchParams::default();
        let rec = PageRecord {
            tokens: 3,
            language: neardup_text::language::Language::from_code("deu").unwrap(),
            minvalues: (0..84).collect(),
            supershingles: (0..6).collect(),
            url: "http://a/".into(),
            ..PageRecord::default()
        };
        let mut w = SignatureWriter::create(&path, &params, &[], 1).unwrap();
        w.write(&rec).unwrap();
        w.finish().unwrap();
        let v8 = std::fs::read(&path).unwrap();
        assert_eq!(v8[8..12], SIGFILE_VERSION.to_le_bytes());
        let h = header(&v8);
        assert_eq!(
            h.language_detector.as_deref(),
            Some(neardup_text::language::DETECTOR)
        );
        assert_eq!(h.languages_differ(), None);
        let resum = |mut v: Vec<u8>, version: u32| {
            v[8..12].copy_from_slice(&version.to_le_bytes());
            let sum = xxhash_rust::xxh3::xxh3_64(&v);
            v.extend_from_slice(&sum.to_le_bytes());
            v
        };
        // As version 7 wrote it: no detector after the parameters.
        let json = serde_json::to_string(&params).unwrap();
        let after_params = 8 + 4 + 4 + json.len();
        let detector = 4 + neardup_text::language::DETECTOR.len();
        let v7 = resum(
            [
                &v8[..after_params],
                &v8[after_params + detector..v8.len() - 8],
            ]
            .concat(),
            7,
        );
        assert_eq!(parse(&v7).unwrap(), std::slice::from_ref(&rec));
        let h = header(&v7);
        assert_eq!(h.language_detector, None);
        assert!(h.languages_differ().unwrap().contains("not recorded"));
        // As version 6: no print length (the record's last 4 bytes).
        let v7 = &v7[..v7.len() - 8];
        let v6 = resum(v7[..v7.len() - 4].to_vec(), 6);
        assert_eq!(parse(&v6).unwrap(), std::slice::from_ref(&rec));
        // And as version 5: no language bytes either, and so no detector to tell.
        let at = after_params + 4 + 8 + 52;
        assert_eq!(&v7[at..at + 3], b"deu");
        let v5 = resum(
            [&v7[..at], &v7[at + 3..v7.len() - 4]].concat(),
            OLDEST_SIGFILE_VERSION,
        );
        let got = parse(&v5).unwrap();
        assert_eq!(
            got,
            [PageRecord {
                language: neardup_text::language::Language::UNKNOWN,
                ..rec.clone()
            }]
        );
        assert_eq!(header(&v5).languages_differ(), None);
        assert_eq!(parse(&v8).unwrap(), [rec]);
        // Another detector's name is told.
        let other = "another-detector/1";
        let v8b = resum(
            [
                &v8[..after_params],
                &(other.len() as u32).to_le_bytes()[..],
                other.as_bytes(),
                &v8[after_params + detector..v8.len() - 8],
            ]
            .concat(),
            8,
        );
        assert_eq!(header(&v8b).languages_differ(), Some(other));
        let v9 = resum(v8[..v8.len() - 8].to_vec(), 9);
        assert!(parse(&v9)
            .unwrap_err()
            .to_string()
            .contains("versions 5 to 8"));
    }

    #[test]
    fn prints_are_carried_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.ndsig");
        let params = SketchParams::default();
        let rec = PageRecord {
            minvalues: (0..84).collect(),
            supershingles: (0..6).collect(),
            print: vec![1, 2, 3, 250],
            url: "http://a/".into(),
            ..PageRecord::default()
        };
        let mut w = SignatureWriter::create(&path, &params, &[], 2).unwrap();
        w.write(&rec).unwrap();
        w.write(&PageRecord {
            print: Vec::new(),
            ..rec.clone()
        })
        .unwrap();
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let got = parse(&bytes).unwrap();
        assert_eq!(got[0].print, [1, 2, 3, 250]);
        assert!(got[1].print.is_empty());
        // A print length past the bound is refused where it stands.
        let mut big = bytes[..bytes.len() - 8].to_vec();
        let n = big.len();
        big[n - 4..].copy_from_slice(&(MAX_PRINT_BYTES as u32 + 1).to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&big);
        big.extend_from_slice(&sum.to_le_bytes());
        assert!(parse(&big)
            .unwrap_err()
            .to_string()
            .contains("a capture print of 4097 bytes"));
    }

    #[test]
    fn a_huge_length_field_allocates_nothing() {
        // A valid header announcing a record whose URL is 4 GiB long: the reader fails at the
        // end of the bytes, it does not allocate 4 GiB.
        let params = SketchParams::default();
        let mut v = Vec::new();
        v.extend_from_slice(MAGIC);
        v.extend_from_slice(&SIGFILE_VERSION.to_le_bytes());
        let json = serde_json::to_string(&params).unwrap();
        v.extend_from_slice(&(json.len() as u32).to_le_bytes());
        v.extend_from_slice(json.as_bytes());
        v.extend_from_slice(&0u32.to_le_bytes()); // detector
        v.extend_from_slice(&0u32.to_le_bytes()); // inputs
        v.extend_from_slice(&1u64.to_le_bytes());
        v.extend_from_slice(&[0u8; 12 + 16 + 8 * 90]);
        v.extend_from_slice(&u32::MAX.to_le_bytes());
        let e = parse(&v).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
    }
}

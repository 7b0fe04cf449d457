//! The signature file: a crawl's signatures written once (`neardup sketch`) and clustered later,
//! or compared with a new crawl.
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! magic    8 bytes  "NDSIG\r\n\x1a"
//! version  u32      SIGNATURE_VERSION
//! params   u32 length + JSON of SketchParams
//! inputs   u32 count, then per input: u32 length + UTF-8 path
//! records  u64 count, then per record:
//!            u32 source, u32 ordinal, u32 tokens, u64 token_hash, u64 body_hash,
//!            m x u64 minvalues, m' x u64 supershingles, simhash_bits/64 x u64 simhash,
//!            rp_dims x i64 raw random projection,
//!            5 strings (url, user id, ip, date, host), each u32 length + UTF-8,
//!            when rp_dims > 0: u32 count + count x u64 outlink hashes
//! checksum u64      XXH3-64 (seed 0) of every byte before it
//! ```
//!
//! Files are written to a temporary name and renamed into place; the reader checks the magic,
//! version, parameters and checksum and says what it expected and what it found.

use neardup_sketch::{SketchParams, SIGNATURE_VERSION};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// The first 8 bytes of a signature file.
pub const MAGIC: &[u8; 8] = b"NDSIG\r\n\x1a";

/// One page in a signature file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
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
    /// `m` minvalues.
    pub minvalues: Vec<u64>,
    /// `m'` supershingles.
    pub supershingles: Vec<u64>,
    /// The simhash (`simhash_bits / 64` words, possibly none).
    pub simhash: Vec<u64>,
    /// The raw random projection (`rp_dims` values, possibly none).
    pub rp: Vec<i64>,
    /// Hashes of the page's distinct outlinks (kept when `rp_dims > 0`), increasing: XXH3-64
    /// (seed 0) of each normalized outlink URL.
    pub links: Vec<u64>,
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
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Not a signature file, or a damaged one.
    #[error("{path}: {what}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Expected vs found.
        what: String,
    },
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

/// Writes a signature file atomically.
pub struct SignatureWriter {
    out: Hashing<BufWriter<std::fs::File>>,
    tmp: PathBuf,
    path: PathBuf,
    params: SketchParams,
    count_at: u64,
    count: u64,
    written: u64,
}

fn put_str(w: &mut impl Write, s: &str) -> io::Result<()> {
    w.write_all(&(s.len() as u32).to_le_bytes())?;
    w.write_all(s.as_bytes())
}

impl SignatureWriter {
    /// Starts `path` (written as a temporary file until [`SignatureWriter::finish`]).
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
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let file = std::fs::File::create(&tmp).map_err(io_err)?;
        let mut out = Hashing {
            inner: BufWriter::with_capacity(1 << 20, file),
            hash: Xxh3::new(),
        };
        let json = serde_json::to_string(params).expect("params serialize");
        let head = (|| -> io::Result<()> {
            out.write_all(MAGIC)?;
            out.write_all(&SIGNATURE_VERSION.to_le_bytes())?;
            put_str(&mut out, &json)?;
            out.write_all(&(inputs.len() as u32).to_le_bytes())?;
            for i in inputs {
                put_str(&mut out, i)?;
            }
            out.write_all(&count.to_le_bytes())
        })();
        if let Err(e) = head {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_err(e));
        }
        Ok(SignatureWriter {
            out,
            tmp,
            path: path.to_path_buf(),
            params: params.clone(),
            count_at: 0,
            count,
            written: 0,
        })
    }

    /// Appends one record.
    pub fn write(&mut self, r: &PageRecord) -> Result<(), SigFileError> {
        assert_eq!(r.minvalues.len(), self.params.m as usize);
        assert_eq!(r.supershingles.len(), self.params.supershingles as usize);
        assert_eq!(r.simhash.len(), self.params.simhash_words());
        assert_eq!(r.rp.len(), self.params.rp_dims as usize);
        let res = (|| -> io::Result<()> {
            let w = &mut self.out;
            w.write_all(&r.source.to_le_bytes())?;
            w.write_all(&r.ordinal.to_le_bytes())?;
            w.write_all(&r.tokens.to_le_bytes())?;
            w.write_all(&r.token_hash.to_le_bytes())?;
            w.write_all(&r.body_hash.to_le_bytes())?;
            for v in r.minvalues.iter().chain(&r.supershingles).chain(&r.simhash) {
                w.write_all(&v.to_le_bytes())?;
            }
            for v in &r.rp {
                w.write_all(&v.to_le_bytes())?;
            }
            for s in [&r.url, &r.user_id, &r.ip, &r.date, &r.host] {
                put_str(w, s)?;
            }
            if self.params.rp_dims > 0 {
                w.write_all(&(r.links.len() as u32).to_le_bytes())?;
                for v in &r.links {
                    w.write_all(&v.to_le_bytes())?;
                }
            }
            Ok(())
        })();
        self.written += 1;
        let _ = self.count_at;
        res.map_err(|source| SigFileError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// Writes the checksum and renames the file into place.
    pub fn finish(mut self) -> Result<(), SigFileError> {
        let path = self.path.clone();
        let io_err = |source| SigFileError::Io {
            path: path.clone(),
            source,
        };
        if self.written != self.count {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(SigFileError::Format {
                path,
                what: format!("{} records announced, {} written", self.count, self.written),
            });
        }
        let sum = self.out.hash.digest();
        let res = (|| -> io::Result<()> {
            self.out.inner.write_all(&sum.to_le_bytes())?;
            self.out.inner.flush()?;
            self.out.inner.get_ref().sync_all()?;
            std::fs::rename(&self.tmp, &self.path)
        })();
        if let Err(e) = res {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(io_err(e));
        }
        // Parameters next to the file, for people and other tools.
        let side = self.path.with_file_name(format!(
            "{}.params.json",
            self.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        let json = serde_json::to_vec_pretty(&self.params).expect("params serialize");
        std::fs::write(&side, json).map_err(io_err)?;
        Ok(())
    }
}

/// A signature file read whole into memory.
#[derive(Debug)]
pub struct SignatureReader {
    /// Its parameters.
    pub params: SketchParams,
    /// The inputs it was made from.
    pub inputs: Vec<String>,
    /// Its pages.
    pub records: Vec<PageRecord>,
}

struct Cur<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.b.len() - self.at < n {
            return Err(format!(
                "file ends at byte {} while {} more bytes were expected",
                self.b.len(),
                n
            ));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn string(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        let at = self.at;
        String::from_utf8(self.take(n)?.to_vec())
            .map_err(|_| format!("invalid UTF-8 in a string at byte {at}"))
    }
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

    /// Reads and checks a whole file.
    pub fn open(path: &Path) -> Result<SignatureReader, SigFileError> {
        let bytes = std::fs::read(path).map_err(|source| SigFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&bytes).map_err(|what| SigFileError::Format {
            path: path.to_path_buf(),
            what,
        })
    }

    /// Parses the bytes of a signature file.
    pub fn parse(bytes: &[u8]) -> Result<SignatureReader, String> {
        if bytes.len() < 8 + 4 + 8 || &bytes[..8] != MAGIC {
            return Err("not a neardup signature file (bad magic)".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let want = u64::from_le_bytes(sum.try_into().expect("8 bytes"));
        let got = xxhash_rust::xxh3::xxh3_64(body);
        if want != got {
            return Err(format!("checksum mismatch: the file says {want:#018x}, its bytes give {got:#018x} (damaged or truncated)"));
        }
        let mut c = Cur { b: body, at: 8 };
        let version = c.u32()?;
        if version != SIGNATURE_VERSION {
            return Err(format!(
                "signature version {version}; this build reads version {SIGNATURE_VERSION}"
            ));
        }
        let json = c.string()?;
        let params: SketchParams =
            serde_json::from_str(&json).map_err(|e| format!("parameters: {e}"))?;
        params.validate().map_err(|e| e.to_string())?;
        let n_inputs = c.u32()? as usize;
        let mut inputs = Vec::with_capacity(n_inputs.min(1 << 16));
        for _ in 0..n_inputs {
            inputs.push(c.string()?);
        }
        let count = c.u64()?;
        let m = params.m as usize;
        let s = params.supershingles as usize;
        let w = params.simhash_words();
        let k = params.rp_dims as usize;
        let min_record = 4 * 3 + 8 * 2 + 8 * (m + s + w + k) + 4 * 5 + 4 * usize::from(k > 0);
        if count > (body.len() / min_record) as u64 {
            return Err(format!(
                "{count} records announced, the file can hold at most {}",
                body.len() / min_record
            ));
        }
        let mut records = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let mut r = PageRecord {
                source: c.u32()?,
                ordinal: c.u32()?,
                tokens: c.u32()?,
                ..Default::default()
            };
            r.token_hash = c.u64()?;
            r.body_hash = c.u64()?;
            r.minvalues = (0..m).map(|_| c.u64()).collect::<Result<_, _>>()?;
            r.supershingles = (0..s).map(|_| c.u64()).collect::<Result<_, _>>()?;
            r.simhash = (0..w).map(|_| c.u64()).collect::<Result<_, _>>()?;
            r.rp = (0..k)
                .map(|_| c.u64().map(|v| v as i64))
                .collect::<Result<_, _>>()?;
            r.url = c.string()?;
            r.user_id = c.string()?;
            r.ip = c.string()?;
            r.date = c.string()?;
            r.host = c.string()?;
            if k > 0 {
                let n = c.u32()? as usize;
                if n > (body.len() - c.at) / 8 {
                    return Err(format!("{n} outlinks announced, more than the file holds"));
                }
                r.links = (0..n).map(|_| c.u64()).collect::<Result<_, _>>()?;
            }
            records.push(r);
        }
        if c.at != body.len() {
            return Err(format!(
                "{} unexpected bytes after the last record",
                body.len() - c.at
            ));
        }
        Ok(SignatureReader {
            params,
            inputs,
            records,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let dir = std::env::temp_dir().join(format!("neardup-sig-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.ndsig");
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
            minvalues: (0..84).collect(),
            supershingles: (0..6).collect(),
            simhash: vec![u64::MAX, 5],
            rp: vec![-5, i64::MAX],
            links: vec![1, 2, u64::MAX],
            url: "http://a/é".into(),
            user_id: "id1".into(),
            ip: "1.2.3.4".into(),
            date: "2024".into(),
            host: "a".into(),
        };
        let mut w = SignatureWriter::create(&path, &params, &["x.warc".into(), "y.warc".into()], 2)
            .unwrap();
        w.write(&rec).unwrap();
        w.write(&PageRecord {
            ordinal: 8,
            ..rec.clone()
        })
        .unwrap();
        w.finish().unwrap();
        assert!(SignatureReader::is_signature_file(&path));
        let r = SignatureReader::open(&path).unwrap();
        assert_eq!(r.params, params);
        assert_eq!(r.inputs, ["x.warc", "y.warc"]);
        assert_eq!(r.records[0], rec);
        assert_eq!(r.records[1].ordinal, 8);
        assert!(dir.join("a.ndsig.params.json").exists());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 1;
        assert!(SignatureReader::parse(&bytes)
            .unwrap_err()
            .contains("checksum"));
        assert!(SignatureReader::parse(&bytes[..bytes.len() - 10]).is_err());
        assert!(SignatureReader::parse(b"garbage garbage garbage")
            .unwrap_err()
            .contains("magic"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

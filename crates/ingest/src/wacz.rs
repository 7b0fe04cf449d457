//! WACZ packages (Web Archive Collection Zipped, as Browsertrix, ArchiveWeb.page and py-wacz
//! write them): a zip of `archive/*.warc.gz`, `indexes/`, `pages/pages.jsonl` and
//! `datapackage.json`. An input names a package (`t.wacz`), and stands for its WARC files;
//! each is then named as a path through the package, `t.wacz/archive/data.warc.gz`, which
//! [`crate::files`] opens like a file (so offsets, evidence and re-reads work on it as on a
//! file on disk).
//!
//! The zip is read from its central directory (ZIP64 included); members stored or deflated.
//! When the directory is lost (a package cut short), the members are found by their local
//! headers from the start, a streamed member's end by its data descriptor, so that a damaged
//! part costs that part only. What is read of `datapackage.json` is what its writers write
//! (browsertrix-crawler's `src/util/wacz.ts`, py-wacz's `wacz/main.py`): `resources` (each
//! `path`, `hash`, `bytes`) and `relation.requires` (the packages a deduplicated crawl's
//! revisits refer to: each a `filename`, with `hash`, `size` and `crawlId` when known).

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const END64_LOCATOR: u32 = 0x0706_4b50;
const DESCRIPTOR: u32 = 0x0807_4b50;

mod datapackage;
pub use datapackage::{
    datapackage, parse_datapackage, DataPackage, DataPackageError, Required, Resource,
};

/// The largest central directory read (a package of a million members needs ~100 MB).
const MAX_DIRECTORY: u64 = 1 << 30;

/// Whether a path names a WACZ package by its name (`.wacz`, any case).
pub fn is_wacz_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("wacz"))
}

/// How a member's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// As they are.
    Stored,
    /// Deflate-compressed.
    Deflated,
    /// Another method (by its zip number): not read.
    Other(u16),
}

/// One member (file) of a package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its name in the package (`archive/data.warc.gz`).
    pub name: String,
    /// How its bytes are stored.
    pub method: Method,
    /// Where its bytes start in the package file.
    pub data_start: u64,
    /// Its bytes in the package.
    pub compressed: u64,
    /// Its bytes once read.
    pub size: u64,
    /// When the package is cut short inside it: the bytes it should have (`size` is what is
    /// there).
    pub cut: Option<u64>,
}

/// A part of a package that cannot be read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// The member's name, when known.
    pub member: String,
    /// Byte offset in the package.
    pub offset: u64,
    /// Why.
    pub reason: String,
}

/// A package's members, in the order the zip lists them.
#[derive(Clone, Debug, Default)]
pub struct Package {
    /// The members that can be read.
    pub members: Vec<Member>,
    /// The parts that cannot be.
    pub damage: Vec<Damage>,
    /// Whether the central directory was lost and the members found by a scan.
    pub salvaged: bool,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// What a package is read from: its file, or bytes in memory (the fuzz target).
pub trait Source: Read + Seek {}
impl<T: Read + Seek> Source for T {}

fn read_at<R: Source>(file: &mut R, at: u64, len: usize) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut buf = Vec::with_capacity(len);
    file.by_ref().take(len as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

impl Package {
    /// Keeps a member (a cut one noted as damage too: it is read up to the cut).
    fn push(&mut self, m: Member) {
        if let Some(whole) = m.cut {
            self.damage.push(Damage {
                member: m.name.clone(),
                offset: m.data_start + m.size,
                reason: format!(
                    "cut short: {} of its {whole} bytes are there, and read",
                    m.size
                ),
            });
        }
        self.members.push(m);
    }

    /// Reads the package at `path`: its central directory, or, when that is lost, a scan of
    /// its local headers. An error only when the file cannot be read at all or holds no zip.
    pub fn open(path: &Path) -> io::Result<Package> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        Package::read(&mut file, len)
    }

    /// [`Package::open`] of any seekable bytes, `len` of them.
    pub fn read<R: Source>(file: &mut R, len: u64) -> io::Result<Package> {
        match directory(file, len) {
            Ok(Some(mut p)) => {
                if p.damage.iter().any(|d| d.member.is_empty()) {
                    // A damaged directory: the members it lost, found by their local headers.
                    if let Ok(found) = scan(file, len) {
                        for m in found.members {
                            if p.member(&m.name).is_none() {
                                p.push(m);
                            }
                        }
                    }
                }
                Ok(p)
            }
            Ok(None) | Err(_) => {
                let mut p = scan(file, len)?;
                p.salvaged = true;
                p.damage.insert(
                    0,
                    Damage {
                        member: String::new(),
                        offset: len,
                        reason: "no readable central directory (the package is cut short or \
                                 damaged): members found by their local headers"
                            .into(),
                    },
                );
                if p.members.is_empty() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "not a zip file: no central directory and no member found",
                    ));
                }
                Ok(p)
            }
        }
    }

    /// The member named `name`.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// The WARC (and ARC) files it holds, by name order: `archive/` members whose names are
    /// crawl files'.
    pub fn warcs(&self) -> Vec<&Member> {
        let mut out: Vec<&Member> = self
            .members
            .iter()
            .filter(|m| {
                m.name.starts_with("archive/")
                    && crate::format_from_name(Path::new(&m.name))
                        .is_some_and(|f| matches!(f, crate::Format::Warc | crate::Format::Arc))
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }
}

/// The central directory's members; `None` when there is no end record.
fn directory<R: Source>(file: &mut R, len: u64) -> io::Result<Option<Package>> {
    let tail_len = len.min(22 + 65_535 + 20);
    let tail = read_at(file, len - tail_len, tail_len as usize)?;
    // The end record: the last signature whose comment length reaches the end of the file.
    let Some(end) = (0..tail.len().saturating_sub(21)).rev().find(|&i| {
        u32_at(&tail, i) == Some(END)
            && u16_at(&tail, i + 20).is_some_and(|c| i + 22 + c as usize == tail.len())
    }) else {
        return Ok(None);
    };
    let end_at = len - tail_len + end as u64;
    let mut entries = u64::from(u16_at(&tail, end + 10).unwrap_or(0));
    let mut size = u64::from(u32_at(&tail, end + 12).unwrap_or(0));
    let mut offset = u64::from(u32_at(&tail, end + 16).unwrap_or(0));
    let zip64 = entries == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF;
    if zip64 && end >= 20 && u32_at(&tail, end - 20) == Some(END64_LOCATOR) {
        let at = u64_at(&tail, end - 12).unwrap_or(u64::MAX);
        if at < len {
            let rec = read_at(file, at, 56)?;
            if u32_at(&rec, 0) == Some(END64) {
                entries = u64_at(&rec, 32).unwrap_or(0);
                size = u64_at(&rec, 40).unwrap_or(0);
                offset = u64_at(&rec, 48).unwrap_or(0);
            }
        }
    }
    if offset.checked_add(size).is_none_or(|e| e > end_at) || size > MAX_DIRECTORY {
        return Ok(None);
    }
    let dir = read_at(file, offset, size as usize)?;
    let mut p = Package::default();
    let mut at = 0usize;
    let mut seen = 0u64;
    while seen < entries && u32_at(&dir, at) == Some(CENTRAL) {
        seen += 1;
        let field = |o: usize| u16_at(&dir, at + o).unwrap_or(0) as usize;
        let (name_len, extra_len, comment_len) = (field(28), field(30), field(32));
        let Some(name) = dir.get(at + 46..at + 46 + name_len) else {
            break;
        };
        let name = String::from_utf8_lossy(name).into_owned();
        let extra = dir
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .unwrap_or(&[]);
        let method = u16_at(&dir, at + 10).unwrap_or(0);
        let mut compressed = u64::from(u32_at(&dir, at + 20).unwrap_or(0));
        let mut usize_ = u64::from(u32_at(&dir, at + 24).unwrap_or(0));
        let mut local = u64::from(u32_at(&dir, at + 42).unwrap_or(0));
        zip64_sizes(extra, &mut usize_, &mut compressed, &mut local);
        at += 46 + name_len + extra_len + comment_len;
        if name.ends_with('/') {
            continue; // a folder entry
        }
        match member_at(file, len, local, name.clone(), method, compressed, usize_) {
            Ok(m) => p.push(m),
            Err(Reason(reason)) => p.damage.push(Damage {
                member: name,
                offset: local,
                reason,
            }),
        }
    }
    if seen < entries {
        p.damage.push(Damage {
            member: String::new(),
            offset: offset + at as u64,
            reason: format!("the central directory lists {entries} members; {seen} could be read"),
        });
    }
    Ok(Some(p))
}

/// The ZIP64 extra field's values for those the fixed fields mark as too large.
fn zip64_sizes(extra: &[u8], size: &mut u64, compressed: &mut u64, local: &mut u64) {
    let mut at = 0;
    while at + 4 <= extra.len() {
        let id = u16_at(extra, at).unwrap_or(0);
        let len = u16_at(extra, at + 2).unwrap_or(0) as usize;
        let body = extra.get(at + 4..at + 4 + len).unwrap_or(&[]);
        if id == 1 {
            let mut o = 0;
            for field in [size, compressed, local] {
                if *field == 0xFFFF_FFFF {
                    if let Some(v) = u64_at(body, o) {
                        *field = v;
                        o += 8;
                    }
                }
            }
            return;
        }
        at += 4 + len;
    }
}

/// Why a member cannot be read.
struct Reason(String);

/// A member whose local header is at `local`, checked against the file.
fn member_at<R: Source>(
    file: &mut R,
    len: u64,
    local: u64,
    name: String,
    method: u16,
    compressed: u64,
    size: u64,
) -> Result<Member, Reason> {
    let head = read_at(file, local, 30).map_err(|e| Reason(e.to_string()))?;
    if u32_at(&head, 0) != Some(LOCAL) {
        return Err(Reason("no local header where the directory says".into()));
    }
    let data_start = local
        + 30
        + u64::from(u16_at(&head, 26).unwrap_or(0))
        + u64::from(u16_at(&head, 28).unwrap_or(0));
    let method = match method {
        0 => Method::Stored,
        8 => Method::Deflated,
        m => {
            return Err(Reason(format!(
                "compressed with zip method {m} (read: stored, deflate)"
            )))
        }
    };
    if method == Method::Stored && compressed != size {
        return Err(Reason("a stored member whose sizes differ".into()));
    }
    let mut m = Member {
        name,
        method,
        data_start,
        compressed,
        size,
        cut: None,
    };
    if data_start.checked_add(compressed).is_none_or(|e| e > len) {
        // Cut short: what is there is read (a stored member's records up to the cut).
        if method != Method::Stored || data_start >= len {
            return Err(Reason(format!(
                "its {compressed} bytes run past the end of the package"
            )));
        }
        m.cut = Some(compressed);
        m.compressed = len - data_start;
        m.size = m.compressed;
    }
    Ok(m)
}

/// The members found by their local headers, from the start of the file.
fn scan<R: Source>(file: &mut R, len: u64) -> io::Result<Package> {
    let mut p = Package::default();
    let mut at = 0u64;
    while at + 30 <= len {
        let local = at;
        let head = read_at(file, at, 30)?;
        if u32_at(&head, 0) != Some(LOCAL) {
            break;
        }
        let flags = u16_at(&head, 6).unwrap_or(0);
        let method = u16_at(&head, 8).unwrap_or(0);
        let mut compressed = u64::from(u32_at(&head, 18).unwrap_or(0));
        let mut size = u64::from(u32_at(&head, 22).unwrap_or(0));
        let (name_len, extra_len) = (
            u64::from(u16_at(&head, 26).unwrap_or(0)),
            u64::from(u16_at(&head, 28).unwrap_or(0)),
        );
        let name = read_at(file, at + 30, name_len as usize)?;
        let extra = read_at(file, at + 30 + name_len, extra_len as usize)?;
        let mut unused = 0;
        zip64_sizes(&extra, &mut size, &mut compressed, &mut unused);
        let name = String::from_utf8_lossy(&name).into_owned();
        let data_start = at + 30 + name_len + extra_len;
        let streamed = flags & 8 != 0 && compressed == 0;
        if streamed {
            // The member's end: a data descriptor whose sizes say it ends there.
            match find_descriptor(file, data_start, len)? {
                Some((c, s, next)) => {
                    compressed = c;
                    size = s;
                    at = next;
                }
                None => {
                    p.damage.push(Damage {
                        member: name,
                        offset: data_start,
                        reason: "a streamed member without its end (cut short)".into(),
                    });
                    break;
                }
            }
        } else {
            at = data_start + compressed;
        }
        if name.ends_with('/') {
            continue;
        }
        match member_at(file, len, local, name.clone(), method, compressed, size) {
            Ok(m) => p.push(m),
            Err(Reason(reason)) => {
                p.damage.push(Damage {
                    member: name,
                    offset: data_start,
                    reason,
                });
                if !streamed && data_start + compressed > len {
                    break;
                }
            }
        }
    }
    Ok(p)
}

/// After a streamed member's data at `start`: the first data descriptor (with or without its
/// signature, 32- or 64-bit sizes) whose compressed size is its distance from `start`, as
/// (compressed, size, where the next header begins).
fn find_descriptor<R: Source>(
    r: &mut R,
    start: u64,
    len: u64,
) -> io::Result<Option<(u64, u64, u64)>> {
    let mut window = Vec::new();
    let mut base = start;
    r.seek(SeekFrom::Start(start))?;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = r.read(&mut chunk)?;
        if n == 0 {
            return Ok(None);
        }
        window.extend_from_slice(&chunk[..n]);
        let mut i = 0;
        while let Some(k) = memchr::memmem::find(&window[i..], &DESCRIPTOR.to_le_bytes()) {
            let pos = i + k;
            let here = base + pos as u64;
            let c32 = u64::from(u32_at(&window, pos + 8).unwrap_or(u32::MAX));
            let s32 = u64::from(u32_at(&window, pos + 12).unwrap_or(0));
            if c32 == here - start && here + 16 <= len {
                return Ok(Some((c32, s32, here + 16)));
            }
            if let (Some(c64), Some(s64)) = (u64_at(&window, pos + 8), u64_at(&window, pos + 16)) {
                if c64 == here - start && here + 24 <= len {
                    return Ok(Some((c64, s64, here + 24)));
                }
            }
            i = pos + 1;
        }
        // Keep the last bytes, where a descriptor may begin.
        let keep = window.len().min(24);
        base += (window.len() - keep) as u64;
        window.drain(..window.len() - keep);
    }
}

/// A member's bytes, readable and seekable: a stored member is a window of the package file;
/// a deflated one is inflated from its start (a seek backwards starts again).
pub struct MemberReader<F: Source = File> {
    member: Member,
    pos: u64,
    state: Option<State<F>>,
}

enum State<F: Source> {
    Stored(F),
    Deflated(Box<flate2::read::DeflateDecoder<BufReader<io::Take<F>>>>),
}

impl MemberReader<File> {
    /// Opens `member` of the package at `path`.
    pub fn open(path: &Path, member: &Member) -> io::Result<MemberReader<File>> {
        MemberReader::new(File::open(path)?, member)
    }
}

impl<F: Source> MemberReader<F> {
    /// `member` of the package read by `file`.
    pub fn new(file: F, member: &Member) -> io::Result<MemberReader<F>> {
        let mut r = MemberReader {
            member: member.clone(),
            pos: 0,
            state: Some(State::Stored(file)),
        };
        r.restart()?;
        Ok(r)
    }

    fn restart(&mut self) -> io::Result<()> {
        let mut file = match self.state.take() {
            Some(State::Stored(f)) => f,
            Some(State::Deflated(d)) => d.into_inner().into_inner().into_inner(),
            None => return Err(io::Error::other("a member reader that failed before")),
        };
        self.pos = 0;
        file.seek(SeekFrom::Start(self.member.data_start))?;
        self.state = Some(match self.member.method {
            Method::Deflated => {
                let raw = BufReader::new(file.take(self.member.compressed));
                State::Deflated(Box::new(flate2::read::DeflateDecoder::new(raw)))
            }
            _ => State::Stored(file),
        });
        Ok(())
    }
}

impl<F: Source> Read for MemberReader<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match &mut self.state {
            Some(State::Deflated(d)) => d.read(buf)?,
            Some(State::Stored(f)) => {
                let left = self.member.size.saturating_sub(self.pos);
                let want = (buf.len() as u64).min(left) as usize;
                f.read(&mut buf[..want])?
            }
            None => return Err(io::Error::other("a member reader that failed before")),
        };
        self.pos += n as u64;
        Ok(n)
    }
}

impl<F: Source> Seek for MemberReader<F> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(t) => Some(t),
            SeekFrom::End(d) => self.member.size.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        }
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        if let Some(State::Stored(f)) = &mut self.state {
            f.seek(SeekFrom::Start(self.member.data_start + target))?;
            self.pos = target;
            return Ok(target);
        }
        if target < self.pos {
            self.restart()?;
        }
        let skip = target - self.pos;
        let got = io::copy(&mut self.by_ref().take(skip), &mut io::sink())?;
        if got < skip {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "seek past the end of a member",
            ));
        }
        Ok(self.pos)
    }
}

/// A member path (`t.wacz/archive/x.warc.gz`) split into the package and the member name,
/// when some folder of `path` is a package file on disk.
pub fn split_member_path(path: &Path) -> Option<(PathBuf, String)> {
    let mut pkg = path;
    while let Some(parent) = pkg.parent() {
        if is_wacz_name(pkg) && pkg.is_file() {
            let rest = path.strip_prefix(pkg).ok()?;
            let name: Vec<String> = rest
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if name.is_empty() {
                return None;
            }
            return Some((pkg.to_path_buf(), name.join("/")));
        }
        pkg = parent;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/wacz")
            .join(name)
    }

    fn bytes_of(path: &Path, m: &Member) -> Vec<u8> {
        let mut out = Vec::new();
        MemberReader::open(path, m)
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    /// Every layout gives the same member bytes: those of the WARC files packed.
    #[test]
    fn every_layout_gives_the_warc_files_packed() {
        let a1 = std::fs::read(fixture("a1.warc.gz")).unwrap();
        for name in [
            "a.wacz",
            "a-deflated.wacz",
            "a-zip64.wacz",
            "a-streamed.wacz",
            "a-streamed-cut.wacz",
        ] {
            let path = fixture(name);
            let p = Package::open(&path).unwrap();
            let warcs: Vec<&str> = p.warcs().iter().map(|m| m.name.as_str()).collect();
            assert_eq!(
                warcs,
                ["archive/a1.warc.gz", "archive/a2.warc.gz"],
                "{name}"
            );
            assert_eq!(bytes_of(&path, p.warcs()[0]), a1, "{name}");
            assert_eq!(p.salvaged, name.ends_with("-cut.wacz"), "{name}");
        }
    }

    /// A seek lands where a read from the start would be, forwards and back, stored or
    /// deflated.
    #[test]
    fn seeks_land_where_reads_from_the_start_would() {
        let a1 = std::fs::read(fixture("a1.warc.gz")).unwrap();
        for name in ["a.wacz", "a-deflated.wacz"] {
            let path = fixture(name);
            let p = Package::open(&path).unwrap();
            let m = p.member("archive/a1.warc.gz").unwrap();
            let mut r = MemberReader::open(&path, m).unwrap();
            for at in [3000u64, 10, 6000, 0, a1.len() as u64 - 5] {
                assert_eq!(r.seek(SeekFrom::Start(at)).unwrap(), at);
                let mut buf = [0u8; 5];
                r.read_exact(&mut buf).unwrap();
                assert_eq!(&buf[..], &a1[at as usize..at as usize + 5], "{name} {at}");
            }
            assert!(r.seek(SeekFrom::Start(a1.len() as u64 + 10)).is_err() || name == "a.wacz");
        }
    }

    #[test]
    fn a_package_cut_short_keeps_what_is_there() {
        let path = fixture("a-cut.wacz");
        let p = Package::open(&path).unwrap();
        assert!(p.salvaged);
        let a2 = p.member("archive/a2.warc.gz").unwrap();
        assert!(a2.cut.is_some_and(|whole| whole > a2.size));
        assert!(p.damage.iter().any(|d| d.reason.contains("cut short")));
        let whole = std::fs::read(fixture("a2.warc.gz")).unwrap();
        assert_eq!(bytes_of(&path, a2), whole[..a2.size as usize]);
    }

    #[test]
    fn no_zip_is_an_error_and_garbage_after_a_member_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.wacz");
        std::fs::write(&junk, b"PK\x05\x06 this is not a zip").unwrap();
        assert!(Package::open(&junk).is_err());
        // The first member of a.wacz, then garbage: the member is read, nothing panics.
        let mut bytes = std::fs::read(fixture("a-cut.wacz")).unwrap();
        bytes.extend_from_slice(&[0xAB; 300]);
        std::fs::write(&junk, &bytes).unwrap();
        let p = Package::open(&junk).unwrap();
        assert!(p.member("archive/a1.warc.gz").is_some());
    }

    #[test]
    fn datapackage_fields_as_the_writers_write_them() {
        let path = fixture("b.wacz");
        let p = Package::open(&path).unwrap();
        let dp = datapackage(&path, &p).unwrap().unwrap().unwrap();
        assert!(dp.software.starts_with("py-wacz"));
        assert!(dp
            .resources
            .iter()
            .any(|r| r.path == "archive/b.warc.gz" && r.hash.starts_with("sha256:")));
        let names: Vec<&str> = dp.requires.iter().map(Required::file_name).collect();
        assert_eq!(names, ["a.wacz", "c.wacz"]);
        assert_eq!(dp.requires[1].crawl_id, "crawl-c");
        // Bare names, URLs, and fields of other types.
        let dp = parse_datapackage(
            br#"{"relation": {"requires": ["x.wacz", {"filename": "s3://b/y.wacz", "size": 5},
                 {"filename": 3}, 7]}, "resources": "no"}"#,
        )
        .unwrap();
        let names: Vec<&str> = dp.requires.iter().map(Required::file_name).collect();
        assert_eq!(names, ["x.wacz", "y.wacz"]);
        assert_eq!(dp.requires[1].size, Some(5));
        assert!(parse_datapackage(b"[1]").is_err());
    }

    #[test]
    fn a_member_path_splits_at_the_package() {
        let pkg = fixture("a.wacz");
        let (p, name) = split_member_path(&pkg.join("archive/a1.warc.gz")).unwrap();
        assert_eq!((p, name.as_str()), (pkg.clone(), "archive/a1.warc.gz"));
        assert!(split_member_path(&pkg).is_none());
        assert!(split_member_path(&fixture("a1.warc.gz")).is_none());
    }
}

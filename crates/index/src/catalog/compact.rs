//! The catalog record of format 9: what a page's record of format 8 holds, without the bytes
//! that can be told again (the host when it is the URL's, a WARC-Record-ID's UUID as 16
//! bytes, a WARC date as seconds, unknown digests, empty title segments), and its minvalues
//! cut to their low 8 or 16 bits when the index keeps them so (Li and König's b-bit minwise
//! hashing; [`neardup_candidates::b_bit_jaccard`] scores them), and from version 14 its kept
//! shingle set's members cut to their low 18 to 30 bits likewise
//! ([`neardup_candidates::exact_jaccard_at`]).
//!
//! Layout (little-endian; `v` is an unsigned LEB128 varint):
//!
//! ```text
//! flags      u8: bits 0-1 minvalue width (0: 32 bits, 1: 16, 2: 8); 2 the host is the URL's
//!            (`neardup_text::host_of`), not stored; 3 the user id is `<urn:uuid:…>` in lower
//!            case, stored as its 16 bytes; 4 the date is `YYYY-MM-DDTHH:MM:SSZ`, stored as
//!            v seconds since 1970; 5 SHA-1 known; 6 SHA-256 known; 7 the URL begins with a
//!            prefix of its segment's table (a catalog's records from format 11 on)
//! url        v length + UTF-8, or (flag 7) v index of the prefix in the table, then v
//!            length + UTF-8 of the rest: the prefix is the URL's directory ([`directory`])
//! user id    16 bytes, or v length + UTF-8
//! date       v seconds, or v length + UTF-8
//! host       (absent), or v length + UTF-8
//! hashes     u64 token hash, u64 body hash
//! SHA-1      20 bytes when known
//! sizes      u32 chrome (f32 bits), v terms, v shingles
//! title      u8 mask of the nonzero segments, then each of them as u32
//! minvalues  versions 9 to 11 ([`Layout::Whole`]): m values of the width above, then
//! shingles   v count + count x u32 (increasing); from version 12 ([`Layout::Packed`]) the
//!            set Rice-coded (with its members' width), then the minvalues, or their places
//!            in the set (`catalog/sets.rs`, the layout of both)
//! print      v length + that many bytes (0: none; at most MAX_PRINT_BYTES)
//! SHA-256    32 bytes when known
//! language   3 bytes (ISO 639-3)
//! ```
//!
//! Every record is exactly what [`encode`] writes of a page: [`decode`] refuses any other
//! bytes (a flag that says what the bytes contradict, a varint longer than it must be), so a
//! record has one encoding and re-encoding what was read gives the same bytes.

use super::{CatalogPage, MAX_PRINT_BYTES};
use neardup_text::language::Language;

/// How a record keeps its shingle set and minvalues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Versions 9 to 11: the minvalues, then the set as a varint count and 4 bytes a value.
    Whole,
    /// Version 12 on: the set Rice-coded, then the minvalues, or their places in the set
    /// (`catalog/sets.rs`).
    Packed,
}

impl Layout {
    /// The layout of a catalog segment of format `version`.
    pub fn of(version: u32) -> Layout {
        match version {
            ..12 => Layout::Whole,
            _ => Layout::Packed,
        }
    }
}

/// The minvalue widths a record may keep, as its flags' low two bits name them.
const WIDTHS: [u32; 3] = [32, 16, 8];

const HOST_OF_URL: u8 = 1 << 2;
const UUID_ID: u8 = 1 << 3;
const SECONDS_DATE: u8 = 1 << 4;
const HAS_SHA1: u8 = 1 << 5;
const HAS_SHA256: u8 = 1 << 6;
const URL_PREFIX: u8 = 1 << 7;

/// The shortest URL prefix a table keeps: a shorter one saves no more than its index costs.
pub const MIN_PREFIX: usize = 12;

/// The part of `url` a segment's prefix table may hold: up to and with the last `/` before
/// its query or fragment; `None` when shorter than [`MIN_PREFIX`].
pub fn directory(url: &str) -> Option<&str> {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let slash = url[..end].rfind('/')?;
    (slash + 1 >= MIN_PREFIX).then(|| &url[..=slash])
}

/// Whether `bits` is a width a record can keep.
pub fn valid_width(bits: u32) -> bool {
    WIDTHS.contains(&bits)
}

/// Writes `p` as a record keeping what `keep` says (the low bits of each minvalue, one of 8,
/// 16, 32: the caller checked it; the low bits of its kept set's members, at most the page's
/// own, `narrow` holding the cut set; the capture print or none) into `out`, replacing its
/// bytes; `prefix`: the index in its segment's table of the URL's [`directory`], if it has
/// one.
pub fn encode(
    p: &CatalogPage,
    keep: &crate::Storage,
    prefix: Option<u64>,
    layout: Layout,
    narrow: &mut Vec<u32>,
    out: &mut Vec<u8>,
) {
    let bits = keep.minvalue_bits;
    out.clear();
    let width = WIDTHS.iter().position(|&w| w == bits).unwrap_or(0) as u8;
    out.push(0);
    let mut flags = width;
    match prefix.zip(directory(&p.url)) {
        Some((i, dir)) => {
            flags |= URL_PREFIX;
            put_v(out, i);
            put_str(out, &p.url[dir.len()..]);
        }
        None => put_str(out, &p.url),
    }
    match uuid_bytes(&p.user_id) {
        Some(u) => {
            flags |= UUID_ID;
            out.extend_from_slice(&u);
        }
        None => put_str(out, &p.user_id),
    }
    match warc_seconds(&p.date) {
        Some(s) => {
            flags |= SECONDS_DATE;
            put_v(out, s);
        }
        None => put_str(out, &p.date),
    }
    if host_is_urls(&p.url, &p.host) {
        flags |= HOST_OF_URL;
    } else {
        put_str(out, &p.host);
    }
    out.extend_from_slice(&p.token_hash.to_le_bytes());
    out.extend_from_slice(&p.body_hash.to_le_bytes());
    if p.payload_sha1 != [0; 20] {
        flags |= HAS_SHA1;
        out.extend_from_slice(&p.payload_sha1);
    }
    out.extend_from_slice(&p.chrome.to_bits().to_le_bytes());
    put_v(out, u64::from(p.tokens));
    put_v(out, u64::from(p.shingles));
    let mask = p
        .title
        .iter()
        .enumerate()
        .fold(0u8, |m, (i, &t)| m | (u8::from(t != 0) << i));
    out.push(mask);
    for &t in p.title.iter().filter(|&&t| t != 0) {
        out.extend_from_slice(&t.to_le_bytes());
    }
    let put_minvalues = |out: &mut Vec<u8>| {
        for &v in &p.minvalues {
            match bits {
                8 => out.push(v as u8),
                16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
                _ => out.extend_from_slice(&v.to_le_bytes()),
            }
        }
    };
    match layout {
        Layout::Packed => {
            let width = keep.set_bits.min(p.set_bits);
            let set = if width < p.set_bits {
                neardup_candidates::narrow_set(&p.shingle_set, width, narrow);
                &narrow[..]
            } else {
                &p.shingle_set[..]
            };
            let head = super::sets::head(set, &p.minvalues, bits);
            put_v(out, head);
            if !super::sets::encode(set, width, &p.minvalues, bits, head, out) {
                put_minvalues(out);
            }
        }
        Layout::Whole => {
            put_minvalues(out);
            put_v(out, p.shingle_set.len() as u64);
            for v in &p.shingle_set {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    let print: &[u8] = if keep.capture_prints { &p.print } else { &[] };
    put_v(out, print.len() as u64);
    out.extend_from_slice(print);
    if p.payload_sha256 != [0; 32] {
        flags |= HAS_SHA256;
        out.extend_from_slice(&p.payload_sha256);
    }
    out.extend_from_slice(&p.language.to_bytes());
    out[0] = flags;
}

/// Reads a record of a page with `m` minvalues into `p` (reusing its buffers), its URL's
/// prefix from `prefixes` (its segment's table; none for a record that travels alone);
/// without `names` its URL, user id, date and capture print are checked but left empty (the
/// host is kept: scoring reads it). What is wrong with bytes [`encode`] did not write.
pub fn decode(
    b: &[u8],
    m: u32,
    p: &mut CatalogPage,
    names: bool,
    prefixes: &[Prefix],
    layout: Layout,
) -> Result<(), &'static str> {
    let mut r = Reader { b, at: 0 };
    let flags = r.take(1)?[0];
    let width = *WIDTHS
        .get(usize::from(flags & 3))
        .ok_or("an unknown minvalue width")?;
    p.url.clear();
    p.user_id.clear();
    p.date.clear();
    // The URL: whole, or a prefix of the segment's table and the rest.
    let (prefix, rest) = if flags & URL_PREFIX != 0 {
        let i = usize::try_from(r.v()?).map_err(|_| "a huge prefix index")?;
        let prefix = prefixes
            .get(i)
            .ok_or("a URL prefix its segment does not hold")?;
        let rest = r.str()?;
        // The prefix is its own directory (checked when the table was read), so it is the
        // URL's when the rest has no `/` before its query or fragment.
        if (rest.bytes())
            .take_while(|&b| b != b'?' && b != b'#')
            .any(|b| b == b'/')
        {
            return Err("a URL prefix other than the URL's directory");
        }
        (Some(prefix), rest)
    } else {
        (None, r.str()?)
    };
    // Scoring reads the host, not the URL: a prefix holding the host tells it.
    let told = prefix
        .and_then(|x| x.host.as_deref())
        .filter(|_| flags & HOST_OF_URL != 0);
    let mut whole = std::mem::take(&mut p.url);
    let url: &str = match prefix {
        None => rest,
        Some(_) if !names && told.is_some() => "",
        Some(x) => {
            whole.push_str(&x.dir);
            whole.push_str(rest);
            &whole
        }
    };
    if flags & UUID_ID != 0 {
        let u: [u8; 16] = r.take(16)?.try_into().expect("16");
        if names {
            push_uuid(&mut p.user_id, &u);
        }
    } else {
        let id = r.str()?;
        if uuid_bytes(id).is_some() {
            return Err("a UUID user id not kept as its bytes");
        }
        if names {
            p.user_id.push_str(id);
        }
    }
    if flags & SECONDS_DATE != 0 {
        let s = r.v()?;
        if s > MAX_SECONDS {
            return Err("a date past year 9999");
        }
        if names {
            push_date(&mut p.date, s);
        }
    } else {
        let d = r.str()?;
        if warc_seconds(d).is_some() {
            return Err("a WARC date not kept as seconds");
        }
        if names {
            p.date.push_str(d);
        }
    }
    p.host.clear();
    if let Some(h) = told {
        p.host.push_str(h);
    } else if flags & HOST_OF_URL != 0 {
        p.host.push_str(url_host(url).ok_or("no host in the URL")?);
        p.host.make_ascii_lowercase();
    } else {
        let h = r.str()?;
        if host_is_urls(url, h) {
            return Err("the URL's host stored again");
        }
        p.host.push_str(h);
    }
    // Scoring reads no URL: the buffer is kept for the next record.
    if names && prefix.is_none() {
        whole.push_str(rest);
    } else if !names {
        whole.clear();
    }
    p.url = whole;
    p.token_hash = r.u64()?;
    p.body_hash = r.u64()?;
    p.payload_sha1 = [0; 20];
    if flags & HAS_SHA1 != 0 {
        p.payload_sha1 = r.take(20)?.try_into().expect("20");
        if p.payload_sha1 == [0; 20] {
            return Err("a known SHA-1 of zeros");
        }
    }
    p.chrome = f32::from_bits(r.u32()?);
    p.tokens = r.v32()?;
    p.shingles = r.v32()?;
    let mask = r.take(1)?[0];
    if mask > 0b1111 {
        return Err("a title mask of more than four segments");
    }
    for (i, t) in p.title.iter_mut().enumerate() {
        *t = 0;
        if mask & (1 << i) != 0 {
            *t = r.u32()?;
            if *t == 0 {
                return Err("a zero title segment marked as present");
            }
        }
    }
    p.minvalue_bits = width;
    let whole_minvalues = |r: &mut Reader, p: &mut CatalogPage| -> Result<(), &'static str> {
        p.minvalues.clear();
        let bytes = (width / 8) as usize;
        let mins = r.take(bytes.checked_mul(m as usize).ok_or("a huge m")?)?;
        p.minvalues
            .extend(mins.chunks_exact(bytes).map(|c| match c {
                [a] => u32::from(*a),
                [a, b] => u32::from(u16::from_le_bytes([*a, *b])),
                _ => u32::from_le_bytes(c.try_into().expect("4")),
            }));
        Ok(())
    };
    match layout {
        Layout::Packed => {
            let head = r.v()?;
            let (used, told, set_bits) = super::sets::decode(
                &r.b[r.at..],
                head,
                m as usize,
                width,
                &mut p.shingle_set,
                &mut p.minvalues,
                names,
            )?;
            r.at += used;
            p.set_bits = set_bits;
            if !told {
                whole_minvalues(&mut r, p)?;
                super::sets::check_untold(&p.shingle_set, &p.minvalues, width)?;
            }
        }
        Layout::Whole => {
            p.set_bits = 32;
            whole_minvalues(&mut r, p)?;
            let n = r.v()?;
            let set = r.take(
                usize::try_from(n)
                    .ok()
                    .and_then(|n| n.checked_mul(4))
                    .ok_or("a huge set")?,
            )?;
            p.shingle_set.clear();
            p.shingle_set.extend(
                set.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4"))),
            );
            if p.shingle_set.windows(2).any(|w| w[0] >= w[1]) {
                return Err("a shingle set out of order");
            }
        }
    }
    let n = r.v()?;
    if n > MAX_PRINT_BYTES as u64 {
        return Err("a capture print longer than 4096 bytes");
    }
    let print = r.take(n as usize)?;
    p.print.clear();
    if names {
        p.print.extend_from_slice(print);
    }
    p.payload_sha256 = [0; 32];
    if flags & HAS_SHA256 != 0 {
        p.payload_sha256 = r.take(32)?.try_into().expect("32");
        if p.payload_sha256 == [0; 32] {
            return Err("a known SHA-256 of zeros");
        }
    }
    p.language = Language::from_bytes(r.take(3)?.try_into().expect("3"));
    if r.at != b.len() {
        return Err("unexpected bytes after the record");
    }
    Ok(())
}

/// A URL prefix of a catalog's table, with the host of every URL it begins (lowercased, as a
/// record's host is told from its URL) when it holds it whole: scoring reads a record's host
/// without its URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prefix {
    dir: Box<str>,
    host: Option<Box<str>>,
}

impl Prefix {
    /// The prefix `dir` (its own [`directory`]: the caller checked it).
    pub(crate) fn new(dir: &str) -> Prefix {
        // The authority ends inside the prefix (it ends with `/` after it), so every URL the
        // prefix begins has this host.
        let host = url_host(dir).map(|h| h.to_ascii_lowercase().into());
        Prefix {
            dir: dir.into(),
            host,
        }
    }
}

/// The prefixes of a catalog's table (v count, then each as v length + UTF-8): each must be
/// its own [`directory`].
pub(crate) fn prefixes(b: &[u8]) -> Result<Vec<Prefix>, &'static str> {
    let mut r = Reader { b, at: 0 };
    let n = r.v()?;
    if n > b.len() as u64 {
        return Err("more prefixes than bytes");
    }
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let p = r.str()?;
        if directory(p) != Some(p) {
            return Err("a prefix that is not a URL's directory");
        }
        out.push(Prefix::new(p));
    }
    if r.at != b.len() {
        return Err("unexpected bytes after the prefixes");
    }
    Ok(out)
}

/// Seconds from 1970 to the end of year 9999 (the last a `YYYY` date names).
const MAX_SECONDS: u64 = 253_402_300_799;

pub(crate) fn put_v(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint (in its shortest form) at the start of `b` and the bytes it takes.
pub(crate) fn get_v(b: &[u8]) -> Result<(u64, usize), &'static str> {
    let mut r = Reader { b, at: 0 };
    let v = r.v()?;
    Ok((v, r.at))
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_v(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        if self.b.len() - self.at < n {
            return Err("the record ends early");
        }
        self.at += n;
        Ok(&self.b[self.at - n..self.at])
    }

    fn u32(&mut self) -> Result<u32, &'static str> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }

    fn u64(&mut self) -> Result<u64, &'static str> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }

    /// A varint in its shortest form (one encoding per value).
    fn v(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.take(1)?[0];
            let low = u64::from(b & 0x7f);
            if i == 9 && low > 1 {
                return Err("a varint past 64 bits");
            }
            v |= low << (7 * i);
            if b & 0x80 == 0 {
                if i > 0 && b == 0 {
                    return Err("a varint longer than it must be");
                }
                return Ok(v);
            }
        }
        Err("a varint past 64 bits")
    }

    fn v32(&mut self) -> Result<u32, &'static str> {
        u32::try_from(self.v()?).map_err(|_| "a count past 32 bits")
    }

    fn str(&mut self) -> Result<&'a str, &'static str> {
        let n = usize::try_from(self.v()?).map_err(|_| "a huge length")?;
        std::str::from_utf8(self.take(n)?).map_err(|_| "invalid UTF-8")
    }
}

/// The host of `url` as [`neardup_text::host_of`] tells it, not yet lowercased (borrowed: no
/// allocation per record).
fn url_host(url: &str) -> Option<&str> {
    let (from, to) = neardup_text::host_span(url)?;
    let h = &url[from..to];
    Some(h.strip_suffix('.').unwrap_or(h))
}

/// Whether `host` is what [`neardup_text::host_of`] tells of `url`.
fn host_is_urls(url: &str, host: &str) -> bool {
    url_host(url).is_some_and(|h| {
        h.eq_ignore_ascii_case(host) && !host.bytes().any(|b| b.is_ascii_uppercase())
    })
}

const UUID_PREFIX: &str = "<urn:uuid:";

/// The 16 bytes of `<urn:uuid:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx>` in lower-case hex.
fn uuid_bytes(id: &str) -> Option<[u8; 16]> {
    let hex = id.strip_prefix(UUID_PREFIX)?.strip_suffix('>')?.as_bytes();
    if hex.len() != 36 {
        return None;
    }
    let mut out = [0u8; 16];
    let mut nibbles = 0;
    for (i, &c) in hex.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return None;
            }
            continue;
        }
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        out[nibbles / 2] |= d << (4 * (1 - nibbles % 2));
        nibbles += 1;
    }
    Some(out)
}

fn push_uuid(out: &mut String, u: &[u8; 16]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str(UUID_PREFIX);
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out.push('>');
}

/// Seconds since 1970 of a date written exactly `YYYY-MM-DDTHH:MM:SSZ` (year 1970 on), a
/// real day and time; `None` for any other text.
fn warc_seconds(d: &str) -> Option<u64> {
    let b = d.as_bytes();
    if b.len() != 20 {
        return None;
    }
    for (i, &c) in b.iter().enumerate() {
        let ok = match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        };
        if !ok {
            return None;
        }
    }
    let num = |r: std::ops::Range<usize>| -> u64 {
        b[r].iter().fold(0, |n, &c| n * 10 + u64::from(c - b'0'))
    };
    let (y, mo, d) = (num(0..4), num(5..7), num(8..10));
    let (h, mi, s) = (num(11..13), num(14..16), num(17..19));
    if y < 1970 || !(1..=12).contains(&mo) || d == 0 || d > days_in_month(y, mo) {
        return None;
    }
    if h > 23 || mi > 59 || s > 59 {
        return None;
    }
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s)
}

fn push_date(out: &mut String, secs: u64) {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, mo, d) = civil_from_days(days);
    use std::fmt::Write;
    let _ = write!(
        out,
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    );
}

fn leap(y: u64) -> bool {
    y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400))
}

fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of year 1970 on (the proleptic Gregorian calendar).
fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let before: u64 = (1970..y).map(|y| if leap(y) { 366 } else { 365 }).sum();
    let months: u64 = (1..m).map(|m| days_in_month(y, m)).sum();
    before + months + d - 1
}

fn civil_from_days(mut days: u64) -> (u64, u64, u64) {
    let mut y = 1970;
    loop {
        let n = if leap(y) { 366 } else { 365 };
        if days < n {
            break;
        }
        days -= n;
        y += 1;
    }
    let mut m = 1;
    while days >= days_in_month(y, m) {
        days -= days_in_month(y, m);
        m += 1;
    }
    (y, m, days + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_ids_and_hosts_are_kept_short_only_where_they_read_back_the_same() {
        for d in [
            "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z",
            "2026-11-29T19:38:46Z",
            "9999-12-31T23:59:59Z",
        ] {
            let s = warc_seconds(d).unwrap();
            let mut back = String::new();
            push_date(&mut back, s);
            assert_eq!(back, d);
        }
        assert_eq!(warc_seconds("1970-01-02T00:00:01Z"), Some(86_401));
        assert_eq!(warc_seconds("9999-12-31T23:59:59Z"), Some(MAX_SECONDS));
        for d in [
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "1969-12-31T23:59:59Z",
            "2024-01-01T00:00:00.5Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00+00:00",
            "",
        ] {
            assert_eq!(warc_seconds(d), None, "{d}");
        }
        let id = "<urn:uuid:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0>";
        let mut back = String::new();
        push_uuid(&mut back, &uuid_bytes(id).unwrap());
        assert_eq!(back, id);
        for id in [
            "<urn:uuid:0F1E2D3C-4b5a-6978-8796-a5b4c3d2e1f0>",
            "<urn:uuid:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f>",
            "urn:uuid:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
            "page-7",
        ] {
            assert_eq!(uuid_bytes(id), None, "{id}");
        }
        assert!(host_is_urls("HTTP://u@Ex.COM.:80/a", "ex.com"));
        assert!(!host_is_urls("http://ex.com/a", "Ex.com"));
        assert!(!host_is_urls("/relative", ""));
        assert!(!host_is_urls("http://ex.com/a", "other.org"));
    }
}

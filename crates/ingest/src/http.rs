//! HTTP responses inside archive records: status line, headers, chunked transfer-encoding and
//! Content-Encoding (gzip, deflate, br), each bounded by the record size limit.

use std::io::Read;

/// Longest HTTP header block accepted.
pub const MAX_HTTP_HEADER: usize = 256 * 1024;

/// A parsed HTTP response head.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub status: u16,
    /// Byte range of the header lines (after the status line, before the blank line).
    pub headers: (usize, usize),
    /// Offset of the body.
    pub body_at: usize,
}

/// Why an HTTP payload was rejected.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum HttpError {
    Malformed(String),
    Encoding(String),
    TooLarge(u64),
}

/// Parses `HTTP/x.y NNN reason` + headers at the start of `block`.
pub(crate) fn parse_head(block: &[u8]) -> Result<Head, HttpError> {
    let window = &block[..block.len().min(MAX_HTTP_HEADER)];
    let line_end = memchr::memchr(b'\n', window)
        .ok_or_else(|| HttpError::Malformed("no status line terminator".into()))?;
    let status_line = trim_cr(&window[..line_end]);
    if !status_line.starts_with(b"HTTP/") {
        return Err(HttpError::Malformed(format!(
            "expected an `HTTP/` status line, found {:?}",
            preview(status_line)
        )));
    }
    let mut parts = status_line.split(|&b| b == b' ').filter(|p| !p.is_empty());
    parts.next();
    let code = parts
        .next()
        .and_then(|c| std::str::from_utf8(c).ok())
        .and_then(|c| c.parse::<u16>().ok())
        .filter(|c| (100..1000).contains(c))
        .ok_or_else(|| {
            HttpError::Malformed(format!("bad status code in {:?}", preview(status_line)))
        })?;
    let hstart = line_end + 1;
    // The head ends at the first blank line: CRLF, LF alone, or any line of only white space
    // (CR CR LF, trailing spaces), as warcio ends it.
    let mut i = hstart;
    loop {
        if i >= window.len() {
            if block.len() > MAX_HTTP_HEADER {
                return Err(HttpError::Malformed(format!(
                    "header block longer than {MAX_HTTP_HEADER} bytes"
                )));
            }
            // Headers without a body separator: treat everything as headers, empty body.
            return Ok(Head {
                status: code,
                headers: (hstart, block.len()),
                body_at: block.len(),
            });
        }
        match memchr::memchr(b'\n', &window[i..]) {
            Some(p) if is_blank(&window[i..i + p]) => {
                return Ok(Head {
                    status: code,
                    headers: (hstart, i),
                    body_at: i + p + 1,
                });
            }
            Some(p) => i += p + 1,
            None => i = window.len(),
        }
    }
}

/// White space a header line may end with (what Python's `bytes.rstrip()` takes, which warcio
/// applies to every header line): a line of only these is blank.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// How many white-space bytes (`is_space`) `bytes` starts with.
pub(crate) fn leading_space(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| is_space(b)).count()
}

/// Whether a header line (with or without its line end) is blank: it ends a header block.
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_space(b))
}

/// Joins folded header lines (a line starting with a space or tab continues the one before)
/// in place, as warcio joins them: the earlier line loses its trailing white space and line
/// end, the continuation keeps its leading white space. Every line of the result ends in LF.
/// A block without continuation lines is left as it is (no copy).
pub(crate) fn unfold(block: &mut Vec<u8>) {
    let folded =
        memchr::memchr_iter(b'\n', block).any(|p| matches!(block.get(p + 1), Some(b' ' | b'\t')));
    if !folded {
        return;
    }
    let n = block.len();
    // Bytes are only ever removed, so the write cursor `w` stays at or behind the read
    // cursor `r`.
    let (mut r, mut w) = (0, 0);
    while r < n {
        let end = memchr::memchr(b'\n', &block[r..]).map_or(n, |p| r + p);
        let mut stop = end;
        while stop > r && is_space(block[stop - 1]) {
            stop -= 1;
        }
        let continues = r > 0 && stop > r && matches!(block[r], b' ' | b'\t');
        if r > 0 && !continues {
            block[w] = b'\n';
            w += 1;
        }
        block.copy_within(r..stop, w);
        w += stop - r;
        r = end + 1;
    }
    block.truncate(w);
    block.push(b'\n');
}

/// First value of header `name` (case-insensitive) in a raw header block.
pub(crate) fn header_value<'a>(headers: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    for line in headers.split(|&b| b == b'\n') {
        let line = trim_cr(line);
        let Some(colon) = memchr::memchr(b':', line) else {
            continue;
        };
        if line[..colon].trim_ascii().eq_ignore_ascii_case(name) {
            return Some(line[colon + 1..].trim_ascii());
        }
    }
    None
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

pub(crate) fn preview(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(&b[..b.len().min(40)]).into_owned();
    if b.len() > 40 {
        s + "…"
    } else {
        s
    }
}

/// Decodes a chunked body from `src` into `out`. Bounded by `limit` decoded bytes.
pub(crate) fn dechunk(src: &[u8], out: &mut Vec<u8>, limit: u64) -> Result<(), HttpError> {
    out.clear();
    let mut i = 0usize;
    loop {
        let Some(p) = memchr::memchr(b'\n', &src[i..]) else {
            return Err(HttpError::Encoding("chunk size line missing".into()));
        };
        let line = trim_cr(&src[i..i + p]);
        let hex = line
            .split(|&b| b == b';')
            .next()
            .unwrap_or(b"")
            .trim_ascii();
        let size = std::str::from_utf8(hex)
            .ok()
            .filter(|h| !h.is_empty() && h.len() <= 15)
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| HttpError::Encoding(format!("bad chunk size {:?}", preview(line))))?;
        i += p + 1;
        if size == 0 {
            return Ok(());
        }
        if out.len() as u64 + size > limit {
            return Err(HttpError::TooLarge(out.len() as u64 + size));
        }
        let end = i
            .checked_add(size as usize)
            .filter(|&e| e <= src.len())
            .ok_or_else(|| {
                HttpError::Encoding(format!("chunk of {size} bytes runs past the body"))
            })?;
        out.extend_from_slice(&src[i..end]);
        i = end;
        // CRLF after the chunk data.
        if src[i..].starts_with(b"\r\n") {
            i += 2;
        } else if src[i..].starts_with(b"\n") {
            i += 1;
        } else if i >= src.len() {
            return Ok(());
        } else {
            return Err(HttpError::Encoding("chunk not followed by CRLF".into()));
        }
    }
}

/// Content codings neardup decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
    Unknown,
}

pub(crate) fn coding(value: &[u8]) -> Coding {
    let v = value.trim_ascii();
    if v.is_empty() || v.eq_ignore_ascii_case(b"identity") {
        Coding::Identity
    } else if v.eq_ignore_ascii_case(b"gzip") || v.eq_ignore_ascii_case(b"x-gzip") {
        Coding::Gzip
    } else if v.eq_ignore_ascii_case(b"deflate") {
        Coding::Deflate
    } else if v.eq_ignore_ascii_case(b"br") {
        Coding::Brotli
    } else {
        Coding::Unknown
    }
}

/// Decodes `src` with `coding` into `out`, failing past `limit` decoded bytes (a bomb).
pub(crate) fn decode(
    coding: Coding,
    src: &[u8],
    out: &mut Vec<u8>,
    limit: u64,
) -> Result<(), HttpError> {
    out.clear();
    match coding {
        Coding::Identity => {
            out.extend_from_slice(src);
            Ok(())
        }
        Coding::Unknown => Err(HttpError::Encoding("unknown content-encoding".into())),
        Coding::Gzip => bounded(flate2::read::MultiGzDecoder::new(src), out, limit),
        Coding::Deflate => {
            // "deflate" is zlib-wrapped per the RFC, raw deflate in practice: try both.
            let r = bounded(flate2::read::ZlibDecoder::new(src), out, limit);
            if matches!(r, Err(HttpError::Encoding(_))) {
                out.clear();
                bounded(flate2::read::DeflateDecoder::new(src), out, limit)
            } else {
                r
            }
        }
        Coding::Brotli => bounded(
            brotli_decompressor::Decompressor::new(src, 64 * 1024),
            out,
            limit,
        ),
    }
}

fn bounded(r: impl Read, out: &mut Vec<u8>, limit: u64) -> Result<(), HttpError> {
    let mut take = r.take(limit + 1);
    take.read_to_end(out)
        .map_err(|e| HttpError::Encoding(e.to_string()))?;
    if out.len() as u64 > limit {
        return Err(HttpError::TooLarge(out.len() as u64));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn head() {
        let b = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nX: y\r\n\r\nbody";
        let h = parse_head(b).unwrap();
        assert_eq!(h.status, 404);
        assert_eq!(&b[h.body_at..], b"body");
        assert_eq!(
            header_value(&b[h.headers.0..h.headers.1], b"content-type"),
            Some(&b"text/html"[..])
        );
        let lf = b"HTTP/1.0 200\nA: b\n\nx";
        assert_eq!(&lf[parse_head(lf).unwrap().body_at..], b"x");
        assert!(parse_head(b"<html>").is_err());
        assert!(parse_head(b"HTTP/1.1 abc OK\r\n\r\n").is_err());
    }

    #[test]
    fn blank_lines_and_line_ends_as_warcio_reads_them() {
        for (head, body) in [
            (
                &b"HTTP/1.1 302 Found\r\r\nLocation: /x\r\r\n\r\r\nbody"[..],
                &b"body"[..],
            ),
            (b"HTTP/1.1 200 OK  \r\nA: b \t\r\n \t\r\nrest", b"rest"),
            (b"HTTP/1.1 200 OK\nA: b\n\r\n\nrest", b"\nrest"),
        ] {
            let h = parse_head(head).unwrap();
            assert_eq!(&head[h.body_at..], body);
        }
        let b = b"HTTP/1.1 302 Found\r\r\nLocation: /x \r\r\n\r\r\n";
        let h = parse_head(b).unwrap();
        assert_eq!(h.status, 302);
        assert_eq!(
            header_value(&b[h.headers.0..h.headers.1], b"location"),
            Some(&b"/x"[..])
        );
    }

    #[test]
    fn folded_lines_are_joined_as_warcio_joins_them() {
        let mut b = b"A: one\r\n two  \r\n\tthree\r\nB:\r\n  x\r\nC: c\r\n".to_vec();
        unfold(&mut b);
        assert_eq!(b, b"A: one two\tthree\nB:  x\nC: c\n");
        assert_eq!(header_value(&b, b"a"), Some(&b"one two\tthree"[..]));
        assert_eq!(header_value(&b, b"b"), Some(&b"x"[..]));
        // Nothing folded: nothing changes.
        let mut plain = b"A: 1\r\nB: 2\r\n".to_vec();
        unfold(&mut plain);
        assert_eq!(plain, b"A: 1\r\nB: 2\r\n");
        // A blank continuation is no continuation; a block without a last line end gets one.
        let mut edge = b"A: 1\n \nB: 2".to_vec();
        edge.extend_from_slice(b"\n c");
        unfold(&mut edge);
        assert_eq!(edge, b"A: 1\n\nB: 2 c\n");
    }

    #[test]
    fn chunked() {
        let mut out = Vec::new();
        dechunk(b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n", &mut out, 100).unwrap();
        assert_eq!(out, b"Wikipedia");
        assert!(dechunk(b"zz\r\nxx", &mut out, 100).is_err());
        assert!(dechunk(b"ffffffffff\r\nxx", &mut out, 100).is_err());
        assert_eq!(
            dechunk(b"5\r\nhello\r\n0\r\n", &mut out, 3),
            Err(HttpError::TooLarge(5))
        );
    }

    #[test]
    fn encodings_and_bombs() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&vec![b'a'; 1_000_000]).unwrap();
        let bomb = e.finish().unwrap();
        let mut out = Vec::new();
        assert!(matches!(
            decode(Coding::Gzip, &bomb, &mut out, 10_000),
            Err(HttpError::TooLarge(_))
        ));
        decode(Coding::Gzip, &bomb, &mut out, 2_000_000).unwrap();
        assert_eq!(out.len(), 1_000_000);
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b"raw deflate").unwrap();
        decode(Coding::Deflate, &z.finish().unwrap(), &mut out, 100).unwrap();
        assert_eq!(out, b"raw deflate");
        assert!(decode(Coding::Gzip, b"not gzip", &mut out, 100).is_err());
        assert_eq!(coding(b" X-GZIP "), Coding::Gzip);
    }
}

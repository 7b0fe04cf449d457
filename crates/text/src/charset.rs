//! Charset detection and decoding, in the order a browser uses: byte-order mark, the HTTP
//! `Content-Type` charset, `<meta charset>` / `http-equiv` in the first 1024 bytes, then (for bytes
//! that are not valid UTF-8) detection with chardetng. Decoding never fails: malformed sequences
//! become U+FFFD.

use encoding_rs::{Encoding, UTF_8};
use std::borrow::Cow;

/// Where the encoding of a document came from (reported in statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CharsetSource {
    /// A byte-order mark.
    Bom,
    /// The `charset` parameter of the HTTP `Content-Type` header.
    Http,
    /// A `<meta charset>` or `<meta http-equiv="Content-Type">` element.
    Meta,
    /// The bytes are valid UTF-8 and nothing else was declared.
    Utf8Valid,
    /// Guessed by chardetng.
    Detected,
}

impl CharsetSource {
    /// Stable lowercase name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            CharsetSource::Bom => "bom",
            CharsetSource::Http => "http",
            CharsetSource::Meta => "meta",
            CharsetSource::Utf8Valid => "utf8-valid",
            CharsetSource::Detected => "detected",
        }
    }
}

/// Finds the charset label in a `Content-Type` value such as `text/html; charset="ISO-8859-1"`.
pub fn charset_param(content_type: &[u8]) -> Option<&'static Encoding> {
    let lower_pos = find_ci(content_type, b"charset")?;
    let mut rest = &content_type[lower_pos + 7..];
    rest = trim_start(rest);
    rest = rest.strip_prefix(b"=")?;
    rest = trim_start(rest);
    let rest = rest
        .strip_prefix(b"\"")
        .or_else(|| rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    let end = rest
        .iter()
        .position(|&b| b == b'"' || b == b'\'' || b == b';' || b == b' ' || b == b'>' || b == b'/')
        .unwrap_or(rest.len());
    Encoding::for_label(&rest[..end])
}

/// Prescans the first 1024 bytes for `<meta charset=...>` or a `http-equiv` content type.
pub fn meta_charset(body: &[u8]) -> Option<&'static Encoding> {
    let head = &body[..body.len().min(1024)];
    let mut from = 0;
    while let Some(p) = find_ci(&head[from..], b"<meta") {
        let start = from + p + 5;
        let end = head[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(head.len(), |e| start + e);
        let tag = &head[start..end];
        if let Some(enc) = charset_param(tag) {
            // A meta declaring UTF-16 means UTF-8 (HTML standard): the bytes we can read are ASCII.
            return Some(
                if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
                    UTF_8
                } else {
                    enc
                },
            );
        }
        from = end;
    }
    None
}

/// Decides the encoding of `body`. `http_content_type` is the HTTP header value if known.
pub fn sniff(body: &[u8], http_content_type: Option<&[u8]>) -> (&'static Encoding, CharsetSource) {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return (enc, CharsetSource::Bom);
    }
    if let Some(enc) = http_content_type.and_then(charset_param) {
        return (enc, CharsetSource::Http);
    }
    if let Some(enc) = meta_charset(body) {
        return (enc, CharsetSource::Meta);
    }
    if std::str::from_utf8(body).is_ok() {
        return (UTF_8, CharsetSource::Utf8Valid);
    }
    let mut det = chardetng::EncodingDetector::new();
    det.feed(body, true);
    (det.guess(None, true), CharsetSource::Detected)
}

/// Decodes `body` to UTF-8. Valid UTF-8 without a BOM is borrowed; anything else is decoded into
/// `scratch` (reused between calls) with replacement characters for malformed input.
pub fn decode<'a>(body: &'a [u8], enc: &'static Encoding, scratch: &'a mut String) -> Cow<'a, str> {
    if enc == UTF_8 {
        let b = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
        // simdutf8's check is std's answer, a few times faster on large pages.
        if let Ok(s) = simdutf8::basic::from_utf8(b) {
            return Cow::Borrowed(s);
        }
    }
    scratch.clear();
    let mut decoder = enc.new_decoder_with_bom_removal();
    let need = decoder
        .max_utf8_buffer_length(body.len())
        .unwrap_or(body.len().saturating_mul(3));
    scratch.reserve(need);
    let _ = decoder.decode_to_string(body, scratch, true);
    Cow::Borrowed(scratch.as_str())
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

/// Case-insensitive search of an ASCII needle.
pub(crate) fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    let first = needle[0].to_ascii_lowercase();
    let up = first.to_ascii_uppercase();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let p = memchr::memchr2(first, up, &hay[i..=hay.len() - needle.len()])?;
        let s = i + p;
        if hay[s..s + needle.len()].eq_ignore_ascii_case(needle) {
            return Some(s);
        }
        i = s + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_of_precedence() {
        let latin = b"<meta charset=\"iso-8859-1\"><p>caf\xe9";
        assert_eq!(sniff(latin, None).1, CharsetSource::Meta);
        assert_eq!(sniff(latin, None).0, encoding_rs::WINDOWS_1252);
        let (e, s) = sniff(latin, Some(b"text/html; charset=utf-8"));
        assert_eq!((e, s), (UTF_8, CharsetSource::Http));
        assert_eq!(
            sniff(b"\xEF\xBB\xBFhi", Some(b"text/html; charset=latin1")).1,
            CharsetSource::Bom
        );
        assert_eq!(
            sniff("plain \u{e9}".as_bytes(), None),
            (UTF_8, CharsetSource::Utf8Valid)
        );
        let http_equiv =
            b"<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=Shift_JIS\">";
        assert_eq!(sniff(http_equiv, None).0, encoding_rs::SHIFT_JIS);
    }

    #[test]
    fn detection_and_decoding_never_fail() {
        let mut s = String::new();
        let bytes = b"Gr\xfc\xdfe aus M\xfcnchen, sch\xf6ne Stra\xdfe und Gr\xfc\xdfe";
        let (enc, src) = sniff(bytes, None);
        assert_eq!(src, CharsetSource::Detected);
        let text = decode(bytes, enc, &mut s);
        assert!(text.contains("München"), "{text}");
        let mut s2 = String::new();
        let bad = decode(b"ok \xff\xfe bad", UTF_8, &mut s2);
        assert_eq!(bad, "ok \u{fffd}\u{fffd} bad");
    }
}

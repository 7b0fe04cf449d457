//! A JSONL record's wanted fields read in one pass over its bytes, without serde_json: for the
//! records nearly every file holds. It answers only where it is sure to answer as the serde
//! reader ([`super::parse`]'s visitor) would; `None` hands the record to that reader, which reads
//! it, and words any error, the one way. So a record with anything unusual in it (a key with an
//! escape, a surrogate escape in a wanted string, a negative or fractional id, a malformed line)
//! costs a second read and changes nothing.
//!
//! What it saves (the peers' corpus, 110,432 records of 2 KB of text): serde_json gathered each
//! escaped string in a scratch buffer made afresh for every record and copied it once more into
//! the page; here a wanted string is unescaped straight into the page's reused buffer, and
//! ignored values are only stepped over. Decoding 20,000 of those records took 40 ms through
//! serde, 23 ms here (`NEARDUP_BENCH_JSONL=... cargo bench -p neardup-ingest --bench read --
//! jsonl`, less the 39 ms of cutting lines that both share).

use super::{Seen, Which};
use crate::FieldMap;

/// Ignored values nested deeper than this are left to serde_json (one bit a level).
const MAX_DEPTH: u32 = 64;

/// Reads `line`'s url, id and body fields into `url`, `id` and `body` (each empty on entry; the
/// body valid UTF-8 when it is read), or `None` when the serde reader must read it; on `None`
/// the three buffers hold no meaning.
pub(super) fn record(
    line: &[u8],
    fields: &FieldMap,
    url: &mut String,
    id: &mut String,
    body: &mut Vec<u8>,
) -> Option<Seen> {
    let mut seen = Seen::default();
    let mut at = space(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    at = space(line, at + 1);
    if line.get(at) == Some(&b'}') {
        at += 1;
    } else {
        loop {
            if line.get(at) != Some(&b'"') {
                return None;
            }
            let end = plain_run(line, at + 1);
            if line.get(end) != Some(&b'"') {
                return None; // an escape or a control character in a key
            }
            let key = &line[at + 1..end];
            if !key.is_ascii() && std::str::from_utf8(key).is_err() {
                return None;
            }
            at = space(line, end + 1);
            if line.get(at) != Some(&b':') {
                return None;
            }
            at = space(line, at + 1);
            // Named as the serde reader names it (a name given to two fields is the first's).
            let which = Which::of(key, fields);
            at = match which {
                Which::Url => wanted_string(line, at, url, false)?.0,
                Which::Id => wanted_string(line, at, id, true)?.0,
                Which::Html if !seen.html => {
                    let (next, string) = wanted(line, at, body, false)?;
                    seen = Seen {
                        html: string,
                        text: false,
                    };
                    next
                }
                Which::Text if !seen.html => {
                    let (next, string) = wanted(line, at, body, false)?;
                    seen.text = string;
                    next
                }
                _ => skip_value(line, at)?,
            };
            at = space(line, at);
            match line.get(at) {
                Some(b',') => at = space(line, at + 1),
                Some(b'}') => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (space(line, at) == line.len()).then_some(seen)
}

/// The first byte at or after `at` that is not JSON white space.
fn space(b: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = b.get(at) {
        at += 1;
    }
    at
}

/// The quotes, backslashes and control characters of eight bytes (little-endian), each as its
/// byte's high bit: each test is a byte's borrow, so the lowest set bit is exact (those above
/// it may not be).
fn specials(x: u64) -> u64 {
    const ONES: u64 = u64::MAX / 255;
    let control = x.wrapping_sub(ONES * 0x20) & !x;
    let q = x ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let s = x ^ (ONES * u64::from(b'\\'));
    let backslash = s.wrapping_sub(ONES) & !s;
    (control | quote | backslash) & (ONES << 7)
}

/// Whether `c` ends a run of plain string bytes.
fn is_special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// Where the run of plain string bytes from `at` ends: at the first quote, backslash or control
/// character (or the end), found eight bytes at a time.
fn plain_run(b: &[u8], mut at: usize) -> usize {
    while let Some(word) = b.get(at..at + 8) {
        let found = specials(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        if found != 0 {
            return at + found.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    at + b[at.min(b.len())..]
        .iter()
        .take_while(|&&c| !is_special(c))
        .count()
}

/// A wanted field's value at `at` into `out` (cleared first) and where it ends: a string,
/// valid UTF-8 (`true`), `null` (`false`, `out` untouched), or with `numbers` a non-negative
/// integer that the serde reader reads as a `u64` (written as its digits). Anything else is
/// `None`.
fn wanted(b: &[u8], at: usize, out: &mut Vec<u8>, numbers: bool) -> Option<(usize, bool)> {
    match *b.get(at)? {
        b'"' => {
            out.clear();
            let end = unescape(b, at + 1, out)?;
            // Escapes add whole characters: the string is UTF-8 when its raw runs are.
            simdutf8::basic::from_utf8(out).ok()?;
            Some((end, true))
        }
        b'n' => (b.get(at..at + 4)? == b"null").then_some((at + 4, false)),
        b'0'..=b'9' if numbers => {
            let end = at + b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
            let digits = &b[at..end];
            // A leading zero, a fraction or exponent, or more than a u64 holds: serde's call.
            let plain = (digits == b"0" || digits[0] != b'0') && digits.len() <= 19;
            if !plain || matches!(b.get(end), Some(b'.' | b'e' | b'E')) {
                return None;
            }
            out.clear();
            out.extend_from_slice(digits);
            Some((end, true))
        }
        _ => None,
    }
}

/// [`wanted`] into a string.
fn wanted_string(b: &[u8], at: usize, out: &mut String, numbers: bool) -> Option<(usize, bool)> {
    let mut bytes = std::mem::take(out).into_bytes();
    let read = wanted(b, at, &mut bytes, numbers);
    *out = String::from_utf8(bytes).unwrap_or_default();
    read
}

/// A string's contents from `at` (just past its opening quote), escapes decoded, appended to
/// `out`; where the string ends (past its closing quote). Each run of plain bytes is found
/// eight bytes at a time ([`plain_run`]) and copied whole.
fn unescape(b: &[u8], mut at: usize, out: &mut Vec<u8>) -> Option<usize> {
    loop {
        let end = plain_run(b, at);
        out.extend_from_slice(&b[at..end]);
        at = end;
        // Text is mostly lines: the one escape most strings hold, decoded first.
        if b.get(at..at + 2) == Some(b"\\n") {
            out.push(b'\n');
            at += 2;
            continue;
        }
        match *b.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => {
                let (byte, next) = escape(b, at + 1)?;
                match byte {
                    Escape::Byte(c) => out.push(c),
                    // A surrogate (half of a pair, or alone) is the serde reader's to judge.
                    Escape::Unit(u) => {
                        let c = char::from_u32(u32::from(u))?;
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                }
                at = next;
            }
            _ => return None, // a control character
        }
    }
}

/// What an escape stands for.
enum Escape {
    Byte(u8),
    Unit(u16),
}

/// The escape after the backslash at `at - 1`, and where it ends.
#[inline]
fn escape(b: &[u8], at: usize) -> Option<(Escape, usize)> {
    let byte = match *b.get(at)? {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => {
            let hex = b.get(at + 1..at + 5)?;
            let mut unit = 0u16;
            for &h in hex {
                unit = unit << 4 | char::from(h).to_digit(16)? as u16;
            }
            return Some((Escape::Unit(unit), at + 5));
        }
        _ => return None,
    };
    Some((Escape::Byte(byte), at + 1))
}

/// Where the JSON value at `at` ends, stepped over as the serde reader ignores a value (strings
/// checked for control characters and malformed escapes, not for UTF-8; numbers by their
/// grammar); `None` where it is malformed or nested over [`MAX_DEPTH`].
fn skip_value(b: &[u8], mut at: usize) -> Option<usize> {
    // Open arrays and objects, one bit each (set: an object), innermost lowest.
    let (mut open, mut depth) = (0u64, 0u32);
    loop {
        // A value.
        at = space(b, at);
        match *b.get(at)? {
            b'"' => at = skip_string(b, at + 1)?,
            b'n' => at = literal(b, at, b"null")?,
            b't' => at = literal(b, at, b"true")?,
            b'f' => at = literal(b, at, b"false")?,
            b'-' | b'0'..=b'9' => at = skip_number(b, at)?,
            c @ (b'[' | b'{') => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
                open = open << 1 | u64::from(c == b'{');
                at = space(b, at + 1);
                let close = if c == b'{' { b'}' } else { b']' };
                if b.get(at) != Some(&close) {
                    if c == b'{' {
                        at = skip_key(b, at)?;
                    }
                    continue;
                }
                // Empty: closed below like any other.
                depth -= 1;
                open >>= 1;
                at += 1;
            }
            _ => return None,
        }
        // After a value: a comma and the next, or the close of what holds it.
        loop {
            if depth == 0 {
                return Some(at);
            }
            let object = open & 1 == 1;
            at = space(b, at);
            match *b.get(at)? {
                b',' => {
                    at += 1;
                    if object {
                        at = skip_key(b, space(b, at))?;
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            depth -= 1;
            open >>= 1;
            at += 1;
        }
    }
}

/// An ignored object's key at `at` and its colon; where its value starts.
fn skip_key(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let at = space(b, skip_string(b, at + 1)?);
    (b.get(at) == Some(&b':')).then_some(at + 1)
}

/// Where the string from `at` (just past its opening quote) ends.
fn skip_string(b: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let end = plain_run(b, at);
        match *b.get(end)? {
            b'"' => return Some(end + 1),
            b'\\' => at = escape(b, end + 1)?.1,
            _ => return None,
        }
    }
}

/// Where `word` (a literal at `at`) ends.
fn literal(b: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    (b.get(at..at + word.len())? == word).then_some(at + word.len())
}

/// Where the number at `at` ends: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn skip_number(b: &[u8], mut at: usize) -> Option<usize> {
    let digits = |at: usize| {
        b[at.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    if b.get(at) == Some(&b'-') {
        at += 1;
    }
    match *b.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at += digits(at),
        _ => return None,
    }
    if b.get(at) == Some(&b'.') {
        let n = digits(at + 1);
        if n == 0 {
            return None;
        }
        at += 1 + n;
    }
    if let Some(b'e' | b'E') = b.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = b.get(at) {
            at += 1;
        }
        let n = digits(at);
        if n == 0 {
            return None;
        }
        at += n;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(line: &str) -> Option<(String, String, String, Seen)> {
        by_fast(line.as_bytes())
    }

    #[test]
    fn plain_runs_end_at_the_first_special_byte() {
        for n in 0..40 {
            for special in [b'"', b'\\', 0x00, 0x1F] {
                let mut b = vec![b'a'; 40];
                b.extend_from_slice("é~\x7f".as_bytes());
                b[n] = special;
                assert_eq!(plain_run(&b, 0), n);
                assert_eq!(plain_run(&b, n + 1), b.len());
            }
        }
    }

    #[test]
    fn records_are_read_field_by_field() {
        let r = read(
            r#" {"id": 17, "url":"http:\/\/a.example\/", "x": [1, {"y": [-0.5e+3, null]}], "text":"a\n\"b\"\u00e9\t"} "#,
        );
        assert_eq!(
            r,
            Some((
                "http://a.example/".into(),
                "17".into(),
                "a\n\"b\"é\t".into(),
                Seen {
                    html: false,
                    text: true
                }
            ))
        );
        let r = read(r#"{"text":"t","html":"<p>h","html":"second","text":"late"}"#).unwrap();
        assert_eq!((r.2.as_str(), r.3.html, r.3.text), ("<p>h", true, false));
        assert_eq!(read("{}").unwrap().3, Seen::default());
        assert_eq!(
            read(r#"{"text":null,"id":null}"#).unwrap().3,
            Seen::default()
        );
    }

    #[test]
    fn anything_unusual_is_left_to_serde() {
        for line in [
            r#"{"id":-1,"text":"a"}"#,
            r#"{"id":01,"text":"a"}"#,
            r#"{"id":1.5,"text":"a"}"#,
            r#"{"id":12345678901234567890,"text":"a"}"#,
            r#"{"te\u0078t":"a"}"#,
            r#"{"text":"\ud83d\ude00"}"#,
            r#"{"text":"a" "url":"b"}"#,
            r#"{"text":"a",}"#,
            r#"{"text":"a"} x"#,
            "{\"text\":\"a\tb\"}",
            r#"{"text":true}"#,
            r#"{"x":[1,]}"#,
            r#"{"x":01}"#,
            r#"{"x":"\q"}"#,
            r#"["text"]"#,
        ] {
            assert_eq!(read(line), None, "{line}");
        }
        let deep = format!(r#"{{"x":{}{}}}"#, "[".repeat(65), "]".repeat(65));
        assert_eq!(read(&deep), None);
        let ok = format!(r#"{{"x":{}{}}}"#, "[".repeat(64), "]".repeat(64));
        assert!(read(&ok).is_some());
    }

    /// Pieces of JSON strings: plain, escaped, and what only serde_json may judge.
    const PIECES: &[&str] = &[
        "a", "b c", "é", "日本", " ", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\u0000", "\\b",
    ];
    const ODD_PIECES: &[&str] = &["\\ud83d\\ude00", "\\ud800", "\\q", "\t", "\\u12", "\\uZZZZ"];
    const NUMBERS: &[&str] = &["0", "17", "-1", "1.5", "1e5", "-0", "1E+2", "0.25e-3"];
    const ODD_NUMBERS: &[&str] = &["01", "2.", "1e", "-", "12345678901234567890", "nul", "tru"];

    /// One of `plain`, or now and then (with `odd`) one of `odd`.
    fn one_of(
        plain: &'static [&'static str],
        odd: &'static [&'static str],
        with_odd: bool,
    ) -> BoxedStrategy<&'static str> {
        if with_odd {
            prop_oneof![6 => prop::sample::select(plain), 1 => prop::sample::select(odd)].boxed()
        } else {
            prop::sample::select(plain).boxed()
        }
    }

    fn string(odd: bool) -> impl Strategy<Value = String> {
        prop::collection::vec(one_of(PIECES, ODD_PIECES, odd), 0..10)
            .prop_map(|p| format!("\"{}\"", p.concat()))
    }

    /// Any JSON value (`odd`: now and then what serde_json rejects or only it reads).
    fn value(odd: bool) -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            string(odd),
            one_of(NUMBERS, ODD_NUMBERS, odd).prop_map(String::from),
        ];
        leaf.prop_recursive(3, 24, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(" , "))),
                prop::collection::vec((string(odd), inner), 0..4).prop_map(|v| {
                    let v: Vec<String> = v.into_iter().map(|(k, v)| format!("{k}:\n{v}")).collect();
                    format!("{{{}}}", v.join(","))
                }),
            ]
        })
    }

    const KEYS: &[&str] = &[
        "\"url\"", "\"id\"", "\"text\"", "\"html\"", "\"x\"", "\"é\"",
    ];

    /// A record's field: a wanted one's value a string or null (an id also a plain integer),
    /// any other's any value; with `odd`, now and then any value for any key.
    fn field(odd: bool) -> impl Strategy<Value = String> {
        (
            one_of(KEYS, &["\"te\\u0078t\""], odd),
            value(odd),
            string(odd),
            any::<u8>(),
            one_of(
                if odd { NUMBERS } else { &["0", "17", "98765"] },
                ODD_NUMBERS,
                odd,
            ),
        )
            .prop_map(move |(k, v, s, pick, number)| {
                let v = match k {
                    _ if odd && pick % 8 == 0 => v,
                    "\"x\"" | "\"é\"" => v,
                    "\"id\"" if pick % 3 == 0 => number.to_string(),
                    _ if pick % 4 == 1 => "null".to_string(),
                    _ => s,
                };
                format!("{k} : {v}")
            })
    }

    fn line(odd: bool) -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(field(odd), 0..6)
            .prop_map(|f| format!(" {{ {} }}\t", f.join(",")).into_bytes())
    }

    /// What the serde reader makes of `line`.
    fn by_serde(line: &[u8]) -> Option<(String, String, String, Seen)> {
        let mut page = crate::Page::default();
        let mut text = String::new();
        let seen =
            super::super::serde_record(line, &mut page, &FieldMap::default(), &mut text).ok()?;
        Some((page.url, page.record_id, text, seen))
    }

    fn by_fast(line: &[u8]) -> Option<(String, String, String, Seen)> {
        let (mut url, mut id, mut body) = Default::default();
        let seen = record(line, &FieldMap::default(), &mut url, &mut id, &mut body)?;
        Some((url, id, String::from_utf8(body).ok()?, seen))
    }

    /// Where the fast reader answers (on records with now and then something odd, a byte
    /// inserted or taken out), serde_json answers the same; and it answers on most.
    #[test]
    fn answers_as_serde_does() {
        use proptest::test_runner::{Config, TestRunner};
        let edits = prop::sample::select(vec![
            None,
            Some(b'"'),
            Some(b','),
            Some(b'}'),
            Some(0xFF),
            Some(b'\\'),
            Some(b'1'),
        ]);
        let cases = (
            line(true),
            prop::option::of((any::<prop::sample::Index>(), edits)),
        );
        let (answered, serde_ok) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        let mut runner = TestRunner::new(Config {
            cases: 4000,
            ..Config::default()
        });
        runner
            .run(&cases, |(mut line, edit)| {
                if let Some((at, byte)) = edit {
                    let at = at.index(line.len());
                    match byte {
                        None => drop(line.remove(at)),
                        Some(b) => line.insert(at, b),
                    }
                }
                let serde = by_serde(&line);
                serde_ok.set(serde_ok.get() + usize::from(serde.is_some()));
                if let Some(fast) = by_fast(&line) {
                    answered.set(answered.get() + 1);
                    prop_assert_eq!(Some(fast), serde, "{}", String::from_utf8_lossy(&line));
                }
                Ok(())
            })
            .unwrap();
        // Most records serde_json reads, the fast reader reads too.
        assert!(
            answered.get() * 10 >= serde_ok.get() * 7,
            "{} of {}",
            answered.get(),
            serde_ok.get()
        );
        assert!(
            serde_ok.get() * 10 < 4000 * 9,
            "the cases hold errors: {}",
            serde_ok.get()
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The records files hold (strings and integers, nothing serde_json alone may judge)
        /// are all read by the fast reader.
        #[test]
        fn plain_records_are_read_fast(line in line(false)) {
            let fast = by_fast(&line);
            prop_assert!(fast.is_some(), "{}", String::from_utf8_lossy(&line));
            prop_assert_eq!(fast, by_serde(&line));
        }
    }
}

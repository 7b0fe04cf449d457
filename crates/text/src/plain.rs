//! The terms of plain text without building a [`crate::Document`]: what a signature over every
//! term of a text page needs, and nothing else (no boundaries, flags or zones).
//!
//! [`text_terms`] yields exactly the terms [`crate::Tokenizer::text`] puts in its document, in
//! the same order (property-tested against it): maximal runs of alphanumeric characters
//! (ASCII letters and digits, and every Unicode `char::is_alphanumeric`), lowercased, with each
//! unsegmented CJK character a term of its own. It differs only in cost: runs of ASCII
//! letters and digits are found with one table lookup per byte, and a term that is already
//! lowercase ASCII is handed over as a slice of the text, not copied.

use crate::tokenize::{is_unsegmented_cjk, push_lower};

/// Byte classes: a separator (ASCII that is not a letter or digit), a lowercase ASCII letter or
/// a digit, an uppercase ASCII letter, a byte of a multi-byte character.
const SEP: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const HIGH: u8 = 3;

static CLASS: [u8; 256] = {
    let mut t = [SEP; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c >= 0x80 {
            HIGH
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            LOWER
        } else if c.is_ascii_uppercase() {
            UPPER
        } else {
            SEP
        };
        b += 1;
    }
    t
};

/// Reusable buffers of [`text_terms`].
#[derive(Debug, Default)]
pub struct TermScratch {
    /// The text with its ASCII letters lowercased (the terms of ASCII text are slices of it).
    low: String,
    /// A term being put together character by character.
    term: String,
}

/// Buffers larger than this are let go after use, so that one huge page does not pin its
/// memory for the rest of a run.
const KEEP: usize = 4 << 20;

/// Calls `each` with every term of the plain text `text`, in order, and returns how many there
/// were. `scratch` holds buffers reused from call to call.
///
/// How: the text is copied with its ASCII letters lowercased; 64 bytes at a time, bit masks
/// of its ASCII letters and digits and of its non-ASCII bytes are computed eight bytes at a
/// time, and the runs of the first mask are the terms (no branch per byte, one per term at
/// most). A block with a non-ASCII byte, and a term longer than a block, go character by
/// character instead.
///
/// ```
/// let mut terms = Vec::new();
/// let mut scratch = neardup_text::TermScratch::default();
/// let n = neardup_text::text_terms("Über den Fluß: 東京, v2.0!", &mut scratch,
///                                  |t| terms.push(t.to_string()));
/// assert_eq!(terms, ["über", "den", "fluß", "東", "京", "v2", "0"]);
/// assert_eq!(n, 7);
/// ```
pub fn text_terms(text: &str, scratch: &mut TermScratch, mut each: impl FnMut(&str)) -> usize {
    let TermScratch { low, term } = scratch;
    low.clear();
    low.push_str(text);
    low.make_ascii_lowercase();
    let low: &str = low;
    let bytes = low.as_bytes();
    let n = bytes.len();
    let mut count = 0;
    // No term is in progress at `pos` (which may fall inside a character that is not a letter
    // or digit: a block only ends inside a character it found to be one).
    let mut pos = 0;
    // Characters that are not ASCII found to be no letter or digit ('\0': none yet).
    let mut seen = ['\0'; 64];
    while pos < n {
        let end = (pos + 64).min(n);
        let (mut words, high, leads) = masks(&bytes[pos..end]);
        if high != 0 && !separators_only(low, pos, leads, &mut seen) {
            // A letter or digit that is not ASCII: character by character, from the
            // character this block starts in.
            while !low.is_char_boundary(pos) {
                pos -= 1;
            }
            pos = scalar(low, pos, end, term, &mut count, &mut each);
            continue;
        }
        let mut next = end;
        while words != 0 {
            let start = words.trailing_zeros();
            let len = (!(words >> start)).trailing_zeros();
            if start + len == 64 && end < n {
                // The run reaches the end of the block and may go on past it.
                if start == 0 {
                    // A term of 64 bytes or more.
                    next = scalar(low, pos, end, term, &mut count, &mut each);
                } else {
                    next = pos + start as usize;
                }
                break;
            }
            let at = pos + start as usize;
            count += 1;
            each(&low[at..at + len as usize]);
            // `start + len < 64`, or the run ends the block: clear its bits.
            words &= u64::MAX.checked_shl(start + len).unwrap_or(0);
        }
        pos = next;
    }
    if scratch.low.capacity() > KEEP {
        scratch.low = String::new();
    }
    if scratch.term.capacity() > KEEP {
        scratch.term = String::new();
    }
    count
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bit `i` set when byte `i` of `block` (at most 64 bytes) is an ASCII lowercase letter or a
/// digit (the text is lowercased); when it is not ASCII; when it starts a character that is not
/// ASCII.
#[inline]
fn masks(block: &[u8]) -> (u64, u64, u64) {
    let (mut words, mut high, mut leads) = (0u64, 0u64, 0u64);
    let mut chunks = block.chunks_exact(8);
    let mut shift = 0;
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let (w, h, l) = masks8(x);
        words |= w << shift;
        high |= h << shift;
        leads |= l << shift;
        shift += 8;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [b' '; 8];
        b[..rest.len()].copy_from_slice(rest);
        let (w, h, l) = masks8(u64::from_le_bytes(b));
        words |= w << shift;
        high |= h << shift;
        leads |= l << shift;
    }
    (words, high, leads)
}

/// [`masks`] of eight bytes (byte `i` is bits `8i..8i+8` of `x`): SWAR range checks on the
/// low seven bits of each byte (no carry crosses a byte), then the eight flags gathered into
/// the low byte. A lead byte is a non-ASCII byte whose second bit is set (`0b11xxxxxx`).
#[inline(always)]
fn masks8(x: u64) -> (u64, u64, u64) {
    let high = x & HIGHS;
    let v = x & !HIGHS;
    // High bit of each byte set when its low seven bits are >= lo, resp. > hi.
    let ge = |lo: u8| v + (0x80 - lo as u64) * ONES;
    let gt = |hi: u8| v + (0x7f - hi as u64) * ONES;
    let digit = ge(b'0') & !gt(b'9');
    let lower = ge(b'a') & !gt(b'z');
    let word = (digit | lower) & !high & HIGHS;
    let lead = high & (x << 1);
    (gather(word), gather(high), gather(lead))
}

/// True when the characters starting at the `leads` bits (from `pos`) are none of them a
/// letter or digit (punctuation, symbols, spaces), so that the block's terms are the runs of
/// its ASCII letters and digits. `seen` remembers such characters (they repeat: bullets,
/// quotes, no-break spaces), one per slot of the character's low bits.
#[inline]
fn separators_only(text: &str, pos: usize, mut leads: u64, seen: &mut [char; 64]) -> bool {
    while leads != 0 {
        let at = pos + leads.trailing_zeros() as usize;
        leads &= leads - 1;
        let c = text.get(at..).and_then(|t| t.chars().next()).unwrap_or('a');
        let slot = &mut seen[c as usize & 63];
        if c != *slot {
            if crate::chars::is_alphanumeric(c) {
                return false;
            }
            *slot = c;
        }
    }
    true
}

/// The high bits of the eight bytes of `x` (nothing else set) as the low eight bits.
#[inline(always)]
fn gather(x: u64) -> u64 {
    ((x >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Terms character by character from `i` (no term in progress there) until a term ends at
/// or past `until` (or the text ends); returns where no term is in progress.
fn scalar(
    text: &str,
    mut i: usize,
    until: usize,
    term: &mut String,
    count: &mut usize,
    each: &mut impl FnMut(&str),
) -> usize {
    let bytes = text.as_bytes();
    let n = bytes.len();
    while i < n && i < until {
        let c = CLASS[bytes[i] as usize];
        if c == SEP {
            i += 1;
            continue;
        }
        // A term starts (the text is lowercased: no UPPER).
        let start = i;
        while i < n && CLASS[bytes[i] as usize] == LOWER {
            i += 1;
        }
        if i == n || CLASS[bytes[i] as usize] == SEP {
            *count += 1;
            each(&text[start..i]);
            continue;
        }
        term.clear();
        term.push_str(&text[start..i]);
        i = slow_term(text, i, term, count, each);
    }
    i
}

/// Goes on with the term in `buf` (possibly empty) from byte `i` of `text`, which starts a
/// multi-byte character, character by character as the tokenizer does, until the term ends;
/// returns where the fast loop resumes (a separator, the end, or the start of the next term).
#[cold]
fn slow_term(
    text: &str,
    mut i: usize,
    buf: &mut String,
    count: &mut usize,
    each: &mut impl FnMut(&str),
) -> usize {
    let mut flush = |buf: &mut String, count: &mut usize| {
        if !buf.is_empty() {
            *count += 1;
            each(buf);
            buf.clear();
        }
    };
    for c in text[i..].chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                buf.push(c.to_ascii_lowercase());
                i += 1;
                continue;
            }
            // A separator: the fast loop takes it from here.
            flush(buf, count);
            return i;
        }
        if crate::chars::is_alphanumeric(c) {
            if is_unsegmented_cjk(c) {
                flush(buf, count);
                push_lower(buf, c);
                flush(buf, count);
            } else {
                push_lower(buf, c);
            }
        } else {
            flush(buf, count);
        }
        i += c.len_utf8();
    }
    flush(buf, count);
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Document, Tokenizer};

    fn both(s: &str) -> (Vec<String>, Vec<String>) {
        let mut doc = Document::new();
        Tokenizer::default().text(s, &mut doc);
        let want: Vec<String> = doc.terms().map(str::to_string).collect();
        let mut got = Vec::new();
        let mut scratch = TermScratch::default();
        let n = text_terms(s, &mut scratch, |t| got.push(t.to_string()));
        assert_eq!(n, got.len());
        (got, want)
    }

    #[test]
    fn the_tokenizers_terms_on_examples() {
        for s in [
            "",
            " ",
            "a",
            "A",
            "Hello, World! It's 2024.",
            "fn main() { println!(\"hi\"); }",
            "ÀÉÎ õü ß İstanbul ΣΑΣ",
            "abc中def 東京タワー",
            "x\u{a0}y\u{2014}z",
            "e\u{301}t\u{e9} caf\u{e9}s",
            "emoji 😀 inside😀word",
            "tab\tnew\nline\r\nend",
            "٣٤٥ arabic-indic ١٢",
            "trailing multibyte é",
            "Ⅻ roman numerals Ⅷ",
        ] {
            let (got, want) = both(s);
            assert_eq!(got, want, "{s:?}");
        }
    }

    proptest::proptest! {
        /// Exactly the tokenizer's terms, on text mixing ASCII classes, accented and
        /// uppercase non-ASCII letters (some lowercasing to two characters), CJK, combining
        /// marks, symbols and emoji.
        #[test]
        fn the_tokenizers_terms(chars in proptest::collection::vec(proptest::sample::select(vec![
            'a', 'z', 'Q', '0', '9', ' ', '\n', '\r', '\t', '.', '-', '/', ':', '!', '?', '_', '&',
            'é', 'É', 'ß', 'İ', 'Σ', 'ς', 'ǅ', '\u{301}', '中', 'タ', 'ㄱ', '한', '٣', 'Ⅻ',
            '\u{a0}', '\u{2014}', '😀', '。', 'ก', '\u{200b}', '\u{feff}',
        ]), 0..400)) {
            let s: String = chars.into_iter().collect();
            let (got, want) = both(&s);
            proptest::prop_assert_eq!(got, want);
        }

        /// On mostly ASCII text with long words (terms across 64-byte blocks, terms longer than
        /// a block), now and then a non-ASCII character.
        #[test]
        fn the_tokenizers_terms_across_blocks(parts in proptest::collection::vec(
            (0usize..90, proptest::sample::select(vec![' ', '.', '\n', 'é', '—', 'X', '中'])), 0..30)) {
            let mut s = String::new();
            for (i, (len, sep)) in parts.iter().enumerate() {
                s.extend((0..*len).map(|j| if (i + j) % 7 == 3 { 'K' } else { (b'a' + (j % 26) as u8) as char }));
                s.push(*sep);
            }
            let (got, want) = both(&s);
            proptest::prop_assert_eq!(got, want);
        }

        /// And on any string at all.
        #[test]
        fn the_tokenizers_terms_on_any_string(s in ".{0,300}") {
            let (got, want) = both(&s);
            proptest::prop_assert_eq!(got, want);
        }
    }
}

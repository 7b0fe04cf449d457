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

/// Calls `each` with every term of the plain text `text`, in order, and returns how many there
/// were. `buf` is scratch space for terms that must be rewritten (uppercase letters, non-ASCII
/// characters), reused from call to call.
///
/// ```
/// let mut terms = Vec::new();
/// let mut buf = String::new();
/// let n = neardup_text::text_terms("Über den Fluß: 東京, v2.0!", &mut buf, |t| terms.push(t.to_string()));
/// assert_eq!(terms, ["über", "den", "fluß", "東", "京", "v2", "0"]);
/// assert_eq!(n, 7);
/// ```
pub fn text_terms(text: &str, buf: &mut String, mut each: impl FnMut(&str)) -> usize {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut count = 0;
    let mut i = 0;
    while i < n {
        // Separators.
        let mut c = CLASS[bytes[i] as usize];
        while c == SEP {
            i += 1;
            match bytes.get(i) {
                Some(&b) => c = CLASS[b as usize],
                None => return count,
            }
        }
        // A run of ASCII letters and digits (possibly empty, when a multi-byte character
        // comes first).
        let start = i;
        let mut upper = 0;
        while c == LOWER || c == UPPER {
            upper |= c;
            i += 1;
            match bytes.get(i) {
                Some(&b) => c = CLASS[b as usize],
                None => {
                    c = SEP;
                    break;
                }
            }
        }
        if c == SEP {
            // `i > start`: the run ended at a separator or the end, so it is a whole term.
            count += 1;
            if upper & UPPER == 0 {
                each(&text[start..i]);
            } else {
                buf.clear();
                buf.push_str(&text[start..i]);
                buf.make_ascii_lowercase();
                each(buf);
            }
            continue;
        }
        // A multi-byte character: the rest of this term goes character by character.
        buf.clear();
        buf.push_str(&text[start..i]);
        buf.make_ascii_lowercase();
        i = slow_term(text, i, buf, &mut count, &mut each);
    }
    count
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
        if c.is_alphanumeric() {
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
        let mut buf = String::new();
        let n = text_terms(s, &mut buf, |t| got.push(t.to_string()));
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
        ]), 0..80)) {
            let s: String = chars.into_iter().collect();
            let (got, want) = both(&s);
            proptest::prop_assert_eq!(got, want);
        }

        /// And on any string at all.
        #[test]
        fn the_tokenizers_terms_on_any_string(s in ".{0,60}") {
            let (got, want) = both(&s);
            proptest::prop_assert_eq!(got, want);
        }
    }
}

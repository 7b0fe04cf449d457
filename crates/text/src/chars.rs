//! Character classes the tokenizers ask of every character beyond ASCII, answered from two
//! bitmaps of the Basic Multilingual Plane made from the standard library's own answers on
//! first use (so they are its answers, for every character, by construction): a table lookup
//! instead of a binary search of Unicode's ranges for each dash, quote or accented letter
//! (`char::is_alphanumeric` and the lowercase test were 2-3% of a run on the peers' corpus).
//! Characters past the BMP are asked of the standard library.

use std::sync::LazyLock;

/// One bit per BMP code point.
type Bits = [u64; 1 << 10];

/// Which BMP characters are alphanumeric, and which are letters not lowercase (those a term
/// lowercases).
struct Tables {
    alphanumeric: Box<Bits>,
    lowered: Box<Bits>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut t = Tables {
        alphanumeric: Box::new([0; 1 << 10]),
        lowered: Box::new([0; 1 << 10]),
    };
    for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
        let (word, bit) = (c as usize >> 6, 1u64 << (c as u32 & 63));
        if c.is_alphanumeric() {
            t.alphanumeric[word] |= bit;
        }
        if c.is_alphabetic() && !c.is_lowercase() {
            t.lowered[word] |= bit;
        }
    }
    t
});

#[inline(always)]
fn bit(bits: &Bits, c: char) -> bool {
    bits[c as usize >> 6] >> (c as u32 & 63) & 1 == 1
}

/// [`char::is_alphanumeric`].
#[inline]
pub(crate) fn is_alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else if (c as u32) <= 0xFFFF {
        bit(&TABLES.alphanumeric, c)
    } else {
        c.is_alphanumeric()
    }
}

/// Whether a term changes `c` when it lowercases it: a letter that is not lowercase
/// (`c.is_alphabetic() && !c.is_lowercase()`).
#[inline]
pub(crate) fn is_lowered(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_uppercase()
    } else if (c as u32) <= 0xFFFF {
        bit(&TABLES.lowered, c)
    } else {
        c.is_alphabetic() && !c.is_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character, the BMP's from the tables and the rest from the standard library,
    /// gets the standard library's answer.
    #[test]
    fn every_character_is_classed_as_the_standard_library_classes_it() {
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            assert_eq!(
                is_alphanumeric(c),
                c.is_alphanumeric(),
                "U+{:04X}",
                c as u32
            );
            assert_eq!(
                is_lowered(c),
                c.is_alphabetic() && !c.is_lowercase(),
                "U+{:04X}",
                c as u32
            );
        }
    }
}

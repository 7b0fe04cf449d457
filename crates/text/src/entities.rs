//! Named character references: the 252 entities of HTML 4 (Latin-1, symbols and Greek, special)
//! plus `&apos;`. Unknown names are left as text, as browsers do for names they do not know.
//! Numeric references (`&#233;`, `&#xE9;`) are decoded in full.

/// Latin-1 entities for U+00A0..=U+00FF, in code point order.
const LATIN1: [&str; 96] = [
    "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
    "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
    "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute",
    "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
    "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute",
    "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
    "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
    "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
    "uuml", "yacute", "thorn", "yuml",
];

/// Greek capital letters U+0391..=U+03A9 (U+03A2 is unassigned).
const GREEK_UPPER: [&str; 25] = [
    "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
    "Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "", "Sigma", "Tau", "Upsilon", "Phi",
    "Chi", "Psi", "Omega",
];
/// Greek small letters U+03B1..=U+03C9.
const GREEK_LOWER: [&str; 25] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigmaf", "sigma", "tau", "upsilon", "phi",
    "chi", "psi", "omega",
];

const OTHER: &[(&str, u32)] = &[
    ("quot", 34),
    ("amp", 38),
    ("apos", 39),
    ("lt", 60),
    ("gt", 62),
    ("OElig", 338),
    ("oelig", 339),
    ("Scaron", 352),
    ("scaron", 353),
    ("Yuml", 376),
    ("fnof", 402),
    ("circ", 710),
    ("tilde", 732),
    ("thetasym", 977),
    ("upsih", 978),
    ("piv", 982),
    ("ensp", 8194),
    ("emsp", 8195),
    ("thinsp", 8201),
    ("zwnj", 8204),
    ("zwj", 8205),
    ("lrm", 8206),
    ("rlm", 8207),
    ("ndash", 8211),
    ("mdash", 8212),
    ("lsquo", 8216),
    ("rsquo", 8217),
    ("sbquo", 8218),
    ("ldquo", 8220),
    ("rdquo", 8221),
    ("bdquo", 8222),
    ("dagger", 8224),
    ("Dagger", 8225),
    ("bull", 8226),
    ("hellip", 8230),
    ("permil", 8240),
    ("prime", 8242),
    ("Prime", 8243),
    ("lsaquo", 8249),
    ("rsaquo", 8250),
    ("oline", 8254),
    ("frasl", 8260),
    ("euro", 8364),
    ("image", 8465),
    ("weierp", 8472),
    ("real", 8476),
    ("trade", 8482),
    ("alefsym", 8501),
    ("larr", 8592),
    ("uarr", 8593),
    ("rarr", 8594),
    ("darr", 8595),
    ("harr", 8596),
    ("crarr", 8629),
    ("lArr", 8656),
    ("uArr", 8657),
    ("rArr", 8658),
    ("dArr", 8659),
    ("hArr", 8660),
    ("forall", 8704),
    ("part", 8706),
    ("exist", 8707),
    ("empty", 8709),
    ("nabla", 8711),
    ("isin", 8712),
    ("notin", 8713),
    ("ni", 8715),
    ("prod", 8719),
    ("sum", 8721),
    ("minus", 8722),
    ("lowast", 8727),
    ("radic", 8730),
    ("prop", 8733),
    ("infin", 8734),
    ("ang", 8736),
    ("and", 8743),
    ("or", 8744),
    ("cap", 8745),
    ("cup", 8746),
    ("int", 8747),
    ("there4", 8756),
    ("sim", 8764),
    ("cong", 8773),
    ("asymp", 8776),
    ("ne", 8800),
    ("equiv", 8801),
    ("le", 8804),
    ("ge", 8805),
    ("sub", 8834),
    ("sup", 8835),
    ("nsub", 8836),
    ("sube", 8838),
    ("supe", 8839),
    ("oplus", 8853),
    ("otimes", 8855),
    ("perp", 8869),
    ("sdot", 8901),
    ("lceil", 8968),
    ("rceil", 8969),
    ("lfloor", 8970),
    ("rfloor", 8971),
    ("lang", 9001),
    ("rang", 9002),
    ("loz", 9674),
    ("spades", 9824),
    ("clubs", 9827),
    ("hearts", 9829),
    ("diams", 9830),
];

/// The character a named reference stands for (case-sensitive, without `&` and `;`).
pub fn named(name: &str) -> Option<char> {
    // Markup's own escapes first: most references on real pages are these.
    match name {
        "amp" => return Some('&'),
        "lt" => return Some('<'),
        "gt" => return Some('>'),
        "quot" => return Some('"'),
        "nbsp" => return Some('\u{a0}'),
        _ => {}
    }
    let all = &*BY_NAME;
    all.binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|i| all[i].1)
}

/// Every named reference with its character, sorted by name (for [`named`]).
static BY_NAME: std::sync::LazyLock<Vec<(&'static str, char)>> = std::sync::LazyLock::new(|| {
    let at = |base: u32, i: usize| char::from_u32(base + i as u32);
    let mut all: Vec<(&'static str, char)> = (LATIN1.iter().enumerate())
        .filter_map(|(i, &n)| Some((n, at(0xA0, i)?)))
        .chain((GREEK_LOWER.iter().enumerate()).filter_map(|(i, &n)| Some((n, at(0x3B1, i)?))))
        .chain(
            (GREEK_UPPER.iter().enumerate())
                .filter(|(_, n)| !n.is_empty())
                .filter_map(|(i, &n)| Some((n, at(0x391, i)?))),
        )
        .chain(
            OTHER
                .iter()
                .filter_map(|&(n, c)| Some((n, char::from_u32(c)?))),
        )
        .collect();
    all.sort_by_key(|&(n, _)| n);
    all
});

/// Decodes the character reference at the start of `s` (which begins with `&`). Returns the
/// character and the number of bytes consumed, or `None` when `s` does not start a reference.
pub fn decode_at(s: &[u8]) -> Option<(char, usize)> {
    debug_assert_eq!(s.first(), Some(&b'&'));
    let rest = &s[1..];
    if rest.first() == Some(&b'#') {
        let (hex, digits_at) = match rest.get(1) {
            Some(b'x') | Some(b'X') => (true, 2),
            _ => (false, 1),
        };
        let mut v: u32 = 0;
        let mut n = 0;
        for &b in rest[digits_at..].iter().take(8) {
            let d = if hex {
                (b as char).to_digit(16)
            } else {
                (b as char).to_digit(10)
            };
            match d {
                Some(d) => {
                    v = v
                        .saturating_mul(if hex { 16 } else { 10 })
                        .saturating_add(d);
                    n += 1;
                }
                None => break,
            }
        }
        if n == 0 {
            return None;
        }
        let mut used = 1 + digits_at + n;
        if s.get(used) == Some(&b';') {
            used += 1;
        }
        // The HTML standard maps NUL, surrogates and out-of-range values to U+FFFD.
        let c = match v {
            0 => '\u{FFFD}',
            _ => char::from_u32(v).unwrap_or('\u{FFFD}'),
        };
        return Some((c, used));
    }
    let n = rest
        .iter()
        .take(10)
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    if n == 0 {
        return None;
    }
    let name = std::str::from_utf8(&rest[..n]).ok()?;
    let c = named(name)?;
    let mut used = 1 + n;
    if s.get(used) == Some(&b';') {
        used += 1;
    }
    Some((c, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables read in order, first match wins (what [`named`] answered before its index).
    fn named_in_order(name: &str) -> Option<char> {
        if let Some(i) = LATIN1.iter().position(|&n| n == name) {
            return char::from_u32(0xA0 + i as u32);
        }
        if let Some(i) = GREEK_LOWER.iter().position(|&n| n == name) {
            return char::from_u32(0x3B1 + i as u32);
        }
        if let Some(i) = GREEK_UPPER.iter().position(|&n| !n.is_empty() && n == name) {
            return char::from_u32(0x391 + i as u32);
        }
        OTHER
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|&(_, c)| char::from_u32(c))
    }

    #[test]
    fn every_name_and_its_case_variants_read_as_the_tables_say() {
        let names = (LATIN1
            .iter()
            .chain(&GREEK_LOWER)
            .chain(&GREEK_UPPER)
            .copied())
        .chain(OTHER.iter().map(|&(n, _)| n));
        let mut checked = 0;
        for n in names {
            let upper = n.to_ascii_uppercase();
            let lower = n.to_ascii_lowercase();
            for v in [
                n,
                &upper,
                &lower,
                &n[..n.len().saturating_sub(1)],
                &format!("{n}x"),
            ] {
                assert_eq!(named(v), named_in_order(v), "{v:?}");
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
        assert_eq!(named(""), None);
    }

    #[test]
    fn tables() {
        assert_eq!(named("nbsp"), Some('\u{a0}'));
        assert_eq!(named("eacute"), Some('é'));
        assert_eq!(named("yuml"), Some('ÿ'));
        assert_eq!(named("Omega"), Some('Ω'));
        assert_eq!(named("sigmaf"), Some('ς'));
        assert_eq!(named("omega"), Some('ω'));
        assert_eq!(named("amp"), Some('&'));
        assert_eq!(named("nope"), None);
    }

    #[test]
    fn numeric() {
        assert_eq!(decode_at(b"&#233;x"), Some(('é', 6)));
        assert_eq!(decode_at(b"&#xE9x"), Some(('é', 5)));
        assert_eq!(decode_at(b"&#0;"), Some(('\u{FFFD}', 4)));
        assert_eq!(decode_at(b"&#xD800;"), Some(('\u{FFFD}', 8)));
        assert_eq!(decode_at(b"&#99999999999;").map(|x| x.0), Some('\u{FFFD}'));
        assert_eq!(decode_at(b"&#;"), None);
        assert_eq!(decode_at(b"& b"), None);
        assert_eq!(decode_at(b"&eacute"), Some(('é', 7)));
    }
}

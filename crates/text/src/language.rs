//! Each page's language, cheap enough to run on every page: a bounded sample of its text
//! (at most [`SAMPLE_BYTES`]), its script first, then a language model for the scripts that
//! several languages share.
//!
//! - Fewer than [`MIN_LETTERS`] letters in the sample: unknown (`und`).
//! - Fewer than [`MIN_WORDS`] distinct words where the model would decide: unknown too (a
//!   sample repeating a few words says too little: "a page about ducks" twenty times is no
//!   more French than English).
//! - A script written by one language holding most letters (Greek, Hebrew, Thai, Georgian,
//!   Armenian, the Indic scripts but Devanagari, Khmer, Lao, Myanmar, Sinhala, Ethiopic):
//!   that language.
//! - At least `MIN_CJK` (10) CJK characters, weighing at least the other letters (each as
//!   `CJK_LETTERS` (16) letters): Korean
//!   when Hangul holds most of them, Japanese with kana among them, else Mandarin.
//! - Otherwise quickwit's `whichlang` (a linear model over byte n-grams and code-point
//!   classes, no allocation, about 16 ns a byte), reading at most [`MODEL_BYTES`] of the
//!   sample's prose lines: Arabic, Mandarin, Dutch, English,
//!   French, German, Hindi, Italian, Japanese, Korean, Portuguese, Russian, Spanish, Swedish,
//!   Turkish, Vietnamese. A text in another language of those scripts gets the nearest of
//!   these (the model has no "none of them"): a known limit.
//!
//! Codes are ISO 639-3. The answer depends only on the sample's bytes (no state, no floating
//! point order that varies), so it is the same on every run, thread count and platform.
//!
//! ```
//! use neardup_text::language;
//! assert_eq!(language::detect("Le chat est assis sur le tapis et regarde la fenêtre.").code(), "fra");
//! assert_eq!(language::detect("Η γάτα κάθεται στο χαλί και κοιτάζει έξω από το παράθυρο.").code(), "ell");
//! assert_eq!(language::detect("1 2 3 4").code(), "und");
//! ```

use crate::Document;

mod memo;
pub use memo::{Memo, MEMO_TEXTS};

/// The detector, named with its version: recorded beside the languages it tells (signature
/// files), so that languages told by another detector are seen, not silently mixed. A change
/// of its rules, sample or model (another whichlang) gives it a new version.
pub const DETECTOR: &str =
    "neardup-language/3 (whichlang 0.1.1; 2048-byte sample, 256 bytes of prose lines to the model)";

/// Bytes of a page's text the detector reads at most (cut on a character boundary): its
/// scripts are counted over all of them.
pub const SAMPLE_BYTES: usize = 2048;

/// Bytes of the sample the language model reads at most: its prose lines
/// ([`MIN_LINE_LETTERS`]), or its start when it has none. The model costs about 16 ns a byte
/// (a fifth of a run's cycles on short pages with a 2 KB sample). On translated manual pages
/// (twelve languages) 256 bytes of prose lines agree with the page's language more often than
/// the whole 2 KB sample, 160 bytes 1.5 points less often, 128 bytes 16 points less
/// (bench/results/language-2026-11-29.md).
pub const MODEL_BYTES: usize = 256;

/// Letters a line of a sample needs to be read by the model as prose: shorter lines are menus,
/// headings and key hints ("Press ? to show this help").
pub const MIN_LINE_LETTERS: usize = 40;

/// Percent of a prose line's visible characters (all but white space) that are letters: lines
/// with fewer are command synopses (`[--verbose] [--debug]`), code and tables, whose words are
/// no language's. On translated manual pages the model's answer agrees with the page's language
/// on 87.5% of the pages with this rule, 82.3% without it (bench/results/language-2026-11-29.md).
pub const MIN_LINE_LETTER_PERCENT: usize = 85;

/// Letters of an alphabet one CJK character weighs as, in telling a page's language: a CJK
/// character carries about a word, and the letters beside it on a page are often code, menus
/// and identifiers rather than prose (Rust by Example's Chinese pages: 36 Han characters of
/// prose beside 562 letters of English menus and code).
const CJK_LETTERS: usize = 16;

/// CJK characters a sample needs before they can decide its language.
const MIN_CJK: usize = 10;

/// Letters a sample needs for an answer other than unknown.
pub const MIN_LETTERS: usize = 20;

/// Distinct words (runs of letters) a sample needs before the model guesses its language.
pub const MIN_WORDS: usize = 5;

/// Whether `sample` has at least [`MIN_WORDS`] distinct words, counted by their 64-bit hashes
/// (no allocation; it stops at the fifth).
fn enough_words(sample: &str) -> bool {
    let mut seen = [0u64; MIN_WORDS];
    let mut n = 0;
    for word in sample.split(|c: char| !c.is_alphabetic()) {
        if word.is_empty() {
            continue;
        }
        let h = xxhash_rust::xxh3::xxh3_64(word.as_bytes());
        if !seen[..n].contains(&h) {
            seen[n] = h;
            n += 1;
            if n == MIN_WORDS {
                return true;
            }
        }
    }
    false
}

/// The model's language of `sample`: what `tell` says of the text it reads ([`window`]).
fn model(sample: &str, tell: &mut dyn FnMut(&str) -> Language) -> Language {
    let mut buf = [0u8; MODEL_BYTES];
    tell(window(sample, &mut buf))
}

/// The model's language of the text it reads, or unknown when that has too few distinct words.
fn tell(text: &str) -> Language {
    if !enough_words(text) {
        return Language::UNKNOWN;
    }
    let code = whichlang::detect_language(text).three_letter_code();
    Language::from_code(code).unwrap_or(Language::UNKNOWN)
}

/// What the model reads of a sample: its prose lines ([`is_prose`] of their first
/// [`MODEL_BYTES`]), trimmed, in order, joined by spaces, up to [`MODEL_BYTES`] (a first line longer than that is cut after
/// a word, [`prefix_words`]); the sample's first [`MODEL_BYTES`] when no line has that many
/// letters.
/// `buf` holds the joined lines (no allocation).
fn window<'a>(sample: &'a str, buf: &'a mut [u8; MODEL_BYTES]) -> &'a str {
    let mut len = 0;
    let mut from = 0;
    while from < sample.len() {
        let end =
            memchr::memchr(b'\n', &sample.as_bytes()[from..]).map_or(sample.len(), |i| from + i);
        let raw = &sample[from..end];
        from = end + 1;
        // Most lines of a page's start are menus: too short before they are trimmed.
        if raw.len() < MIN_LINE_LETTERS {
            continue;
        }
        let line = raw.trim();
        // A line is judged by what the model could read of it (a long paragraph is not
        // counted whole).
        if line.len() < MIN_LINE_LETTERS || !is_prose(prefix(line, MODEL_BYTES)) {
            continue;
        }
        let sep = usize::from(len > 0);
        if len + sep + line.len() > MODEL_BYTES {
            if len == 0 {
                let cut = prefix_words(line, MODEL_BYTES);
                buf[..cut.len()].copy_from_slice(cut.as_bytes());
                len = cut.len();
            }
            break;
        }
        if sep == 1 {
            buf[len] = b' ';
        }
        buf[len + sep..len + sep + line.len()].copy_from_slice(line.as_bytes());
        len += sep + line.len();
    }
    if len == 0 {
        return prefix_words(sample, MODEL_BYTES);
    }
    // Whole lines of a str, cut on character boundaries, joined by ASCII spaces: UTF-8.
    std::str::from_utf8(&buf[..len]).unwrap_or("")
}

/// A language as an ISO 639-3 code; [`Language::UNKNOWN`] (`und`) when the text says too
/// little.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Language([u8; 3]);

impl Default for Language {
    fn default() -> Language {
        Language::UNKNOWN
    }
}

impl Language {
    /// Too few letters to tell (ISO 639-3 `und`).
    pub const UNKNOWN: Language = Language(*b"und");

    /// The three-letter code.
    pub fn code(&self) -> &str {
        // Built only from ASCII codes (`from_code` checks).
        std::str::from_utf8(&self.0).unwrap_or("und")
    }

    /// The language of a three-letter lowercase ASCII code; `None` for anything else.
    pub fn from_code(code: &str) -> Option<Language> {
        let b: [u8; 3] = code.as_bytes().try_into().ok()?;
        b.iter().all(u8::is_ascii_lowercase).then_some(Language(b))
    }

    /// The code's bytes (how files store it).
    pub fn to_bytes(self) -> [u8; 3] {
        self.0
    }

    /// A language from stored bytes; unknown for bytes that are not a code.
    pub fn from_bytes(b: [u8; 3]) -> Language {
        if b.iter().all(u8::is_ascii_lowercase) {
            Language(b)
        } else {
            Language::UNKNOWN
        }
    }

    /// The writing system of the language (ISO 15924, lowercased; `None` when unknown).
    /// Japanese, Korean and Chinese are apart (kana and hangul tell them apart).
    pub fn writing_system(&self) -> Option<&'static str> {
        Some(match self.code() {
            "und" => return None,
            "jpn" => "jpan",
            "kor" => "kore",
            "cmn" | "zho" | "yue" => "hani",
            "rus" | "ukr" | "bel" | "bul" | "mkd" | "srp" | "kaz" | "kir" | "mon" | "tgk" => "cyrl",
            "ell" => "grek",
            "ara" | "fas" | "urd" | "pus" | "uig" => "arab",
            "heb" | "yid" => "hebr",
            "hin" | "mar" | "nep" | "san" => "deva",
            "ben" | "asm" => "beng",
            "tha" => "thai",
            "kat" => "geor",
            "hye" => "armn",
            "amh" | "tir" => "ethi",
            "tam" => "taml",
            "tel" => "telu",
            "kan" => "knda",
            "mal" => "mlym",
            "guj" => "gujr",
            "pan" => "guru",
            "khm" => "khmr",
            "lao" => "laoo",
            "mya" => "mymr",
            "sin" => "sinh",
            _ => "latn",
        })
    }

    /// Whether the text said too little.
    pub fn is_unknown(&self) -> bool {
        *self == Language::UNKNOWN
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// Scripts written by one language, by code point range: (first, last, language).
const ONE_LANGUAGE_SCRIPTS: &[(u32, u32, &[u8; 3])] = &[
    (0x0370, 0x03FF, b"ell"), // Greek
    (0x1F00, 0x1FFF, b"ell"), // Greek extended
    (0x0530, 0x058F, b"hye"), // Armenian
    (0x0590, 0x05FF, b"heb"), // Hebrew
    (0x0980, 0x09FF, b"ben"), // Bengali
    (0x0A00, 0x0A7F, b"pan"), // Gurmukhi
    (0x0A80, 0x0AFF, b"guj"), // Gujarati
    (0x0B00, 0x0B7F, b"ori"), // Oriya
    (0x0B80, 0x0BFF, b"tam"), // Tamil
    (0x0C00, 0x0C7F, b"tel"), // Telugu
    (0x0C80, 0x0CFF, b"kan"), // Kannada
    (0x0D00, 0x0D7F, b"mal"), // Malayalam
    (0x0D80, 0x0DFF, b"sin"), // Sinhala
    (0x0E00, 0x0E7F, b"tha"), // Thai
    (0x0E80, 0x0EFF, b"lao"), // Lao
    (0x1000, 0x109F, b"mya"), // Myanmar
    (0x10A0, 0x10FF, b"kat"), // Georgian
    (0x1200, 0x139F, b"amh"), // Ethiopic
    (0x1780, 0x17FF, b"khm"), // Khmer
];

/// Counts per language, most first by their first count, then by code: how every summary
/// lists its languages.
pub fn ranked<const N: usize>(
    counts: std::collections::BTreeMap<Language, [u64; N]>,
) -> Vec<(Language, [u64; N])> {
    let mut out: Vec<(Language, [u64; N])> = counts.into_iter().collect();
    // A stable sort on a list in code order: ties stay in code order.
    out.sort_by(|a, b| b.1[0].cmp(&a.1[0]));
    out
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Whether `line` reads as prose: at least [`MIN_LINE_LETTERS`] letters, making at least
/// [`MIN_LINE_LETTER_PERCENT`] of its visible characters. ASCII runs are counted as bytes
/// ([`ascii_letters`]); only the other characters are decoded.
fn is_prose(line: &str) -> bool {
    let bytes = line.as_bytes();
    let (mut letters, mut visible) = (0, 0);
    let mut at = 0;
    loop {
        let ascii = first_non_ascii(&bytes[at..]).unwrap_or(bytes.len() - at);
        let run = &bytes[at..at + ascii];
        letters += ascii_letters(run);
        visible += ascii - ascii_spaces(run);
        at += ascii;
        match line.get(at..).and_then(|rest| rest.chars().next()) {
            Some(c) => {
                letters += usize::from(is_letter(c));
                visible += usize::from(!c.is_whitespace());
                at += c.len_utf8();
            }
            None => break,
        }
    }
    letters >= MIN_LINE_LETTERS && letters * 100 >= visible * MIN_LINE_LETTER_PERCENT
}

/// [`prefix`], ending after a whole word when `text` is longer than `max` and the prefix has a
/// space: a cut word would be one more distinct word ([`MIN_WORDS`]) and a false n-gram.
fn prefix_words(text: &str, max: usize) -> &str {
    let cut = prefix(text, max);
    if cut.len() == text.len() {
        return cut;
    }
    match cut.rfind(char::is_whitespace) {
        Some(at) if at > 0 => &cut[..at],
        _ => cut,
    }
}

/// Where the first byte of `bytes` that is not ASCII is, looked for eight bytes at a time.
fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for w in words.by_ref() {
        let high = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) & HIGH;
        if high != 0 {
            return Some(at + high.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|b| !b.is_ascii())
        .map(|i| at + i)
}

/// The bytes of `bytes` that `is` picks, counted in runs of 255 bytes with one-byte sums (which
/// the compiler turns into sixteen bytes an instruction; counted into a `usize` a byte at a time,
/// letters were a sixth of the detector's time on short pages and white space a third of
/// choosing a page's prose).
#[inline(always)]
fn count_bytes(bytes: &[u8], is: impl Fn(u8) -> bool) -> usize {
    bytes
        .chunks(255)
        .map(|run| usize::from(run.iter().map(|&b| u8::from(is(b))).sum::<u8>()))
        .sum()
}

/// The ASCII letters of `bytes`.
fn ascii_letters(bytes: &[u8]) -> usize {
    count_bytes(bytes, |b| (b | 0x20).wrapping_sub(b'a') < 26)
}

/// The ASCII white space of `bytes` ([`u8::is_ascii_whitespace`]).
fn ascii_spaces(bytes: &[u8]) -> usize {
    count_bytes(bytes, |b| {
        b == b' ' || (b.wrapping_sub(b'\t') < 5 && b != 0x0B)
    })
}

/// [`char::is_alphabetic`], answered without its table for the blocks pages are mostly
/// written in beyond ASCII: CJK ideographs, kana and Hangul syllables are letters, general
/// punctuation, arrows, box drawing and the like are not.
fn is_letter(c: char) -> bool {
    match c as u32 {
        0x3041..=0x3096 | 0x30A1..=0x30FA | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 => true,
        0x2000..=0x206F | 0x2190..=0x23FF | 0x2500..=0x27BF | 0x3000..=0x3003 => false,
        0xFF01..=0xFF0F => false,
        _ => c.is_alphabetic(),
    }
}

/// The letters of a sample: all of them, per script of [`ONE_LANGUAGE_SCRIPTS`], and the CJK
/// ones by kind.
#[derive(Debug, Default, PartialEq, Eq)]
struct Letters {
    letters: usize,
    script: [u16; ONE_LANGUAGE_SCRIPTS.len()],
    han: usize,
    kana: usize,
    hangul: usize,
}

impl Letters {
    /// Counts one letter, `c`.
    fn add(&mut self, c: char) {
        self.letters += 1;
        let u = c as u32;
        if u >= 0x1100 {
            match u {
                0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => self.kana += 1,
                0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => self.hangul += 1,
                0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => {
                    self.han += 1
                }
                _ => {}
            }
        }
        // Every range of the table lies in these two spans.
        if (0x0370..0x1800).contains(&u) || (0x1F00..0x2000).contains(&u) {
            if let Some(i) = ONE_LANGUAGE_SCRIPTS
                .iter()
                .position(|&(lo, hi, _)| (lo..=hi).contains(&u))
            {
                self.script[i] += 1;
            }
        }
    }

    /// The letters of `sample`: its ASCII bytes counted as bytes, only its other characters
    /// decoded (a page with one dash or arrow was otherwise decoded and looked up character
    /// by character, a sixth of the detector's time).
    fn of(sample: &str) -> Letters {
        let bytes = sample.as_bytes();
        // Every ASCII letter in one pass (no byte of another character is one); then only the
        // other characters decoded, found eight bytes at a time.
        let mut n = Letters {
            letters: ascii_letters(bytes),
            ..Letters::default()
        };
        let mut at = 0;
        while let Some(skip) = first_non_ascii(&bytes[at..]) {
            at += skip;
            let Some(c) = sample.get(at..).and_then(|rest| rest.chars().next()) else {
                break;
            };
            at += c.len_utf8();
            if is_letter(c) {
                n.add(c);
            }
        }
        n
    }
}

/// The language of `text` (its first [`SAMPLE_BYTES`]).
pub fn detect(text: &str) -> Language {
    detect_sample(prefix(text, SAMPLE_BYTES), &mut tell)
}

/// The language of a sample, `tell` answering for the text the model reads ([`tell`], or a
/// [`Memo`] of its answers).
fn detect_sample(sample: &str, tell: &mut dyn FnMut(&str) -> Language) -> Language {
    if sample.is_ascii() {
        // No script of the table, no CJK: only whether it has enough letters.
        let letters = sample
            .bytes()
            .filter(u8::is_ascii_alphabetic)
            .take(MIN_LETTERS)
            .count();
        if letters < MIN_LETTERS {
            return Language::UNKNOWN;
        }
        return model(sample, tell);
    }
    let Letters {
        letters,
        script,
        han,
        kana,
        hangul,
    } = Letters::of(sample);
    if letters < MIN_LETTERS {
        return Language::UNKNOWN;
    }
    // A page whose CJK characters weigh at least its other letters is in that language,
    // however much English its menus and code hold.
    let cjk = han + kana + hangul;
    if cjk >= MIN_CJK && cjk * CJK_LETTERS >= letters - cjk {
        return Language(if hangul * 2 > cjk {
            *b"kor"
        } else if kana * 20 >= cjk {
            *b"jpn" // Japanese mixes kana into its kanji; Chinese has none
        } else {
            *b"cmn"
        });
    }
    if let Some((i, &n)) = script
        .iter()
        .enumerate()
        .max_by_key(|&(i, &n)| (n, usize::MAX - i))
    {
        if n as usize * 2 > letters {
            return Language(*ONE_LANGUAGE_SCRIPTS[i].2);
        }
    }
    model(sample, tell)
}

/// The language of a tokenized page: its terms in order, joined by spaces, as the sample
/// (`buf` is reused from page to page).
pub fn detect_document(doc: &Document, buf: &mut String) -> Language {
    document_sample(doc, buf);
    detect(buf)
}

/// Bytes of main-content terms a page's sample needs to be taken from its main content alone.
const MIN_MAIN_SAMPLE_BYTES: usize = 256;

/// A tokenized page's sample into `buf`: its main content's terms in order, joined by spaces,
/// when they make at least [`MIN_MAIN_SAMPLE_BYTES`] (a page's language is its text's, not its
/// navigation's: a Japanese article in an English template); else all its terms (a few words of
/// main content say too little).
fn document_sample(doc: &Document, buf: &mut String) {
    if doc.uses_main(crate::Scope::Main) {
        sample_terms(doc, buf, true);
        if buf.len() >= MIN_MAIN_SAMPLE_BYTES {
            return;
        }
    }
    sample_terms(doc, buf, false);
}

/// The first [`SAMPLE_BYTES`] of a page's terms (its main content's, with `main`) into `buf`.
fn sample_terms(doc: &Document, buf: &mut String, main: bool) {
    buf.clear();
    for (i, term) in doc.terms().enumerate() {
        if main && !doc.is_main(i) {
            continue;
        }
        if buf.len() + term.len() + 1 > SAMPLE_BYTES {
            // Part of a long term still helps a page of one long unsegmented run.
            if buf.is_empty() {
                buf.push_str(prefix(term, SAMPLE_BYTES));
            }
            break;
        }
        if !buf.is_empty() {
            buf.push(' ');
        }
        buf.push_str(term);
    }
}

/// The language of a text page from its raw bytes: the longest valid UTF-8 prefix of its
/// first [`SAMPLE_BYTES`] (what a plain-text page is read as wherever it comes from).
pub fn detect_bytes(body: &[u8]) -> Language {
    detect(bytes_sample(body))
}

/// The sample of a text page's raw bytes.
fn bytes_sample(body: &[u8]) -> &str {
    let head = &body[..body.len().min(SAMPLE_BYTES)];
    match std::str::from_utf8(head) {
        Ok(t) => t,
        // Cut inside a character, or not UTF-8 past some point: the valid part.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writing_systems_tell_scripts_not_languages() {
        let l = |c: &[u8; 3]| Language::from_bytes(*c).writing_system();
        assert_eq!(l(b"ces"), l(b"vie"), "two Latin languages");
        assert_ne!(l(b"eng"), l(b"jpn"));
        assert_ne!(l(b"jpn"), l(b"cmn"));
        assert_eq!(l(b"rus"), l(b"ukr"));
        assert_eq!(Language::UNKNOWN.writing_system(), None);
    }

    /// A sample repeating a few words is not guessed (python/README's "a page about ducks"
    /// twenty times came out French); five distinct words are enough, in any script the model
    /// reads; a script that decides alone needs no words.
    #[test]
    fn a_few_words_repeated_say_too_little() {
        assert_eq!(detect(&"a page about ducks ".repeat(20)).code(), "und");
        assert_eq!(detect(&"ein Haus am See ".repeat(20)).code(), "und");
        assert_eq!(detect("the ducks swam to the far bank").code(), "eng");
        assert_eq!(detect(&"Η γάτα κάθεται ".repeat(10)).code(), "ell");
        assert!(!enough_words("a b a b a b c d"));
        assert!(enough_words("a b c d e"));
        assert!(enough_words("один два три четыре пять"));
    }

    /// The model reads a sample's prose lines, not its menus; a sample of one long line (a
    /// page's terms) is read from its start; a sample without prose lines, from its start.
    #[test]
    fn the_model_reads_prose_lines() {
        let mut buf = [0u8; MODEL_BYTES];
        let menu = "Keyboard shortcuts\nPress S or / to search\nRust By Example\n";
        let prose = "Attributes are metadata applied to some module, crate or item here.";
        let sample = format!("{menu}  {prose}  \nShort line\n{prose}");
        assert_eq!(window(&sample, &mut buf), format!("{prose} {prose}"));
        let long = "word ".repeat(100);
        assert_eq!(window(&long, &mut buf), "word ".repeat(51).trim_end());
        assert_eq!(window(menu, &mut buf), menu);
        let wide = "é".repeat(300);
        let got = window(&wide, &mut buf).to_string();
        assert!(
            got.len() <= MODEL_BYTES && got.chars().all(|c| c == 'é'),
            "{got}"
        );
        // The menus of a Spanish page do not make it English.
        let es = "El lenguaje de programación Rust es rápido y seguro para todos los sistemas.";
        let page = format!(
            "{}{es}\n{es}\n",
            "Keyboard shortcuts\nPress ? to show this help\n".repeat(8)
        );
        assert_eq!(detect(&page).code(), "spa");
    }

    /// Lines of many letters that are no prose (a command's synopsis) are not what the model
    /// reads: a Spanish manual page is not read as its option names.
    #[test]
    fn synopses_are_not_prose() {
        let mut buf = [0u8; MODEL_BYTES];
        let synopsis =
            "run-parts [--test] [--verbose] [--debug] [--report] [--lsbsysinit] [--umask=umask]";
        let prose =
            "run-parts ejecuta todos los programas ejecutables que se encuentran en el directorio.";
        assert!(!is_prose(synopsis) && is_prose(prose));
        let sample = format!("{synopsis}\n{synopsis}\n{prose}\n");
        assert_eq!(window(&sample, &mut buf), prose);
        assert_eq!(detect(&sample).code(), "spa");
    }

    proptest::proptest! {
        /// Counting ASCII as bytes and decoding the rest counts what decoding every
        /// character counts (all letters, and up to a bound).
        #[test]
        fn letters_counted_by_bytes_are_letters_counted_by_characters(
            s in "(\\PC|[a-z ,.]{1,8}){0,300}",
        ) {
            let mut want = Letters::default();
            for c in s.chars().filter(|c| c.is_alphabetic()) {
                want.add(c);
            }
            proptest::prop_assert_eq!(Letters::of(&s), want);
            let letters = s.chars().filter(|c| c.is_alphabetic()).count();
            let visible = s.chars().filter(|c| !c.is_whitespace()).count();
            proptest::prop_assert_eq!(
                is_prose(&s),
                letters >= MIN_LINE_LETTERS && letters * 100 >= visible * MIN_LINE_LETTER_PERCENT
            );
            for from in 0..s.len().min(9) {
                let b = &s.as_bytes()[from..];
                proptest::prop_assert_eq!(first_non_ascii(b), b.iter().position(|b| !b.is_ascii()));
            }
        }
    }

    #[test]
    fn letters_are_letters_for_every_character() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_letter(c), c.is_alphabetic(), "{c:?} U+{:04X}", c as u32);
        }
        for len in [0, 1, 254, 255, 256, 600] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 256) as u8).collect();
            let slow = bytes.iter().filter(|b| b.is_ascii_alphabetic()).count();
            assert_eq!(ascii_letters(&bytes), slow);
            let spaces = bytes.iter().filter(|b| b.is_ascii_whitespace()).count();
            assert_eq!(ascii_spaces(&bytes), spaces);
        }
    }

    #[test]
    fn common_languages_are_told_apart() {
        let cases = [
            ("eng", "The quick brown fox jumps over the lazy dog while the children watch from the garden."),
            ("deu", "Der schnelle braune Fuchs springt über den faulen Hund, während die Kinder im Garten zusehen."),
            ("spa", "El rápido zorro marrón salta sobre el perro perezoso mientras los niños miran desde el jardín."),
            ("rus", "Быстрая коричневая лиса прыгает через ленивую собаку, пока дети смотрят из сада."),
            ("jpn", "素早い茶色の狐が怠け者の犬を飛び越え、子供たちは庭からそれを見ています。"),
            ("kor", "빠른 갈색 여우가 게으른 개를 뛰어넘고 아이들은 정원에서 그것을 지켜봅니다."),
            ("cmn", "敏捷的棕色狐狸跳过了懒惰的狗，孩子们在花园里看着这一切发生，非常开心。"),
            ("ara", "يقفز الثعلب البني السريع فوق الكلب الكسول بينما يشاهد الأطفال من الحديقة."),
            ("heb", "השועל החום המהיר קופץ מעל הכלב העצלן בזמן שהילדים צופים מהגן."),
            ("tha", "สุนัขจิ้งจอกสีน้ำตาลกระโดดข้ามสุนัขขี้เกียจขณะที่เด็ก ๆ ดูจากสวน"),
            ("ell", "Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο ενώ τα παιδιά κοιτάζουν."),
        ];
        for (want, text) in cases {
            assert_eq!(detect(text).code(), want, "{text}");
        }
    }

    #[test]
    fn cjk_text_wins_over_english_menus() {
        let menu = "Keyboard shortcuts Press left or right to navigate between chapters Press S to search in the book ";
        assert_eq!(
            detect(&format!(
                "{menu}はじめに Hello World コメント フォーマットしてプリント デバッグ 表示"
            ))
            .code(),
            "jpn"
        );
        assert_eq!(
            detect(&format!(
                "{menu}介绍 你好世界 注释 格式化输出 调试 显示 测试实例"
            ))
            .code(),
            "cmn"
        );
        assert_eq!(
            detect(&format!(
                "{menu}소개 안녕하세요 세계 주석 형식화된 출력 디버그 표시 테스트 케이스 목록"
            ))
            .code(),
            "kor"
        );
        // A few CJK characters in an English page do not make it CJK.
        assert_eq!(
            detect(&format!("{menu}{menu}The word 東京 means eastern capital.")).code(),
            "eng"
        );
        let prose = "The city has grown along the river for centuries and its people speak of it with pride. ".repeat(12);
        assert_eq!(
            detect(&format!(
                "{prose}The sign read 东京是日本的首都也是最大的城市之一。"
            ))
            .code(),
            "eng"
        );
    }

    #[test]
    fn too_few_letters_are_unknown() {
        assert!(detect("").is_unknown());
        assert!(detect("12:30 — 4,5 € → 9").is_unknown());
        assert!(detect("fn main()").is_unknown());
        assert!(detect_bytes(&[0xff, 0xfe, 0x00]).is_unknown());
    }

    #[test]
    fn a_sample_is_cut_on_a_character_boundary() {
        // 3-byte characters past the sample's end: the valid prefix is read, never split.
        let text = "日本語のテキスト".repeat(200);
        assert_eq!(detect(&text).code(), "jpn");
        assert_eq!(detect_bytes(text.as_bytes()).code(), "jpn");
        assert_eq!(prefix(&text, 4), "日");
    }

    #[test]
    fn codes_round_trip_and_bad_bytes_are_unknown() {
        let l = Language::from_code("fra").unwrap();
        assert_eq!(Language::from_bytes(l.to_bytes()), l);
        assert_eq!(Language::from_code("FR"), None);
        assert_eq!(Language::from_bytes([0, 1, 2]), Language::UNKNOWN);
        assert_eq!(l.to_string(), "fra");
    }
}

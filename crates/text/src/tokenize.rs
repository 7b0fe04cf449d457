//! Henzinger's tokenization (paper 003, section 2).
//!
//! * HTML markup becomes white space; formatting tags (`b`, `i`, `span`, `a`, ...) are ignored, so
//!   `mis<b>spell</b>ed` is one term. `script`, `style`, `noscript` and comments are dropped.
//!   Character references are decoded.
//! * Every maximal alphanumeric sequence (Unicode letters and numbers, any script) is a term,
//!   lowercased. A URL in the text is therefore broken at slashes and dots into terms.
//! * CJK: Han ideographs, Hiragana and Katakana are written without spaces, so each such character
//!   is a term of its own (a unigram split). Hangul is split at spaces like Latin text. Thai, Lao,
//!   Khmer and Myanmar runs without spaces stay one term each (no dictionary segmentation).
//! * The URL of an `IMG` tag is a term: the whole URL if it points to another host, only the file
//!   name if it points to the page's own host (or is relative).
//! * Also extracted: the title, the outlinks (`a`/`area` href, `frame`/`iframe` src, resolved
//!   against the page URL and `<base href>`, in canonical form: [`crate::canonical_link`]), and line, sentence and paragraph boundaries.

use crate::charset::{self, find_ci};
use crate::document::{Document, Pending};
use crate::entities;
use crate::zones::{self, Flags};

mod urls;

/// Tokenizer settings, built once and shared across threads.
#[derive(Clone, Debug)]
pub struct TokenizerConfig {
    /// Resolve and keep outlinks (costs a URL parse per link).
    pub links: bool,
    /// Add the IMG terms of Henzinger's exception (2).
    pub img_terms: bool,
}

impl Default for TokenizerConfig {
    fn default() -> Self {
        TokenizerConfig {
            links: false,
            img_terms: true,
        }
    }
}

/// Turns HTML or plain text into a [`Document`]. Stateless apart from its configuration.
#[derive(Clone, Debug, Default)]
pub struct Tokenizer {
    config: TokenizerConfig,
}

/// What a tag does to the text flow.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flow {
    /// Formatting: does not separate words.
    Inline,
    /// Separates words.
    Space,
    /// Starts a new line.
    Line,
    /// Starts a new paragraph.
    Paragraph,
}

impl Tokenizer {
    /// A tokenizer with the given settings.
    pub fn new(config: TokenizerConfig) -> Tokenizer {
        Tokenizer { config }
    }

    /// The settings.
    pub fn config(&self) -> &TokenizerConfig {
        &self.config
    }

    /// Tokenizes an HTML page given as raw bytes. `content_type` is the HTTP `Content-Type` if
    /// known (for its charset); `page_url` is used for IMG terms and link resolution.
    pub fn html(
        &self,
        body: &[u8],
        content_type: Option<&[u8]>,
        page_url: &str,
        doc: &mut Document,
    ) {
        doc.clear();
        let (enc, source) = charset::sniff(body, content_type);
        doc.charset = Some((enc.name(), source));
        let mut scratch = std::mem::take(&mut doc.decode_scratch);
        {
            let text = charset::decode(body, enc, &mut scratch);
            self.html_str(&text, page_url, doc);
        }
        doc.decode_scratch = scratch;
    }

    /// Tokenizes HTML that is already decoded.
    pub fn html_str(&self, html: &str, page_url: &str, doc: &mut Document) {
        let mut run = Run::new(self, doc, page_url);
        run.html(html);
    }

    /// Tokenizes plain text: newlines are line boundaries, blank lines paragraph boundaries.
    pub fn text(&self, text: &str, doc: &mut Document) {
        doc.clear();
        let mut run = Run::new(self, doc, "");
        run.pre = true;
        run.text(text);
        run.finish();
    }
}

struct Run<'t, 'd> {
    tok: &'t Tokenizer,
    doc: &'d mut Document,
    page_url: &'t str,
    page_host: Option<(usize, usize)>,
    base: Option<url::Url>,
    base_failed: bool,
    in_term: bool,
    pending: Pending,
    /// A `.`, `!` or `?` was seen; a sentence ends if white space follows.
    maybe_sentence: bool,
    /// Newlines are line breaks (`<pre>`, `<textarea>`, plain text).
    pre: bool,
    /// Two newlines in a row in preformatted text make a paragraph break.
    newline_run: u8,
    in_title: bool,
    /// Flags of the term being read (taken at its first character).
    term_flags: u16,
    /// `Flags::DOT`, `Flags::HYPHEN` or `Flags::URL` when the characters since the last term
    /// join it to the next.
    joiner: u16,
    in_anchor: bool,
    /// First term of the current block, and its terms inside links (link density).
    block_start: usize,
    block_links: usize,
}

impl<'t, 'd> Run<'t, 'd> {
    fn new(tok: &'t Tokenizer, doc: &'d mut Document, page_url: &'t str) -> Self {
        Run {
            tok,
            doc,
            page_url,
            page_host: crate::url::host_span(page_url),
            base: None,
            base_failed: false,
            in_term: false,
            pending: Pending::default(),
            maybe_sentence: false,
            pre: false,
            newline_run: 0,
            in_title: false,
            term_flags: 0,
            joiner: 0,
            in_anchor: false,
            block_start: 0,
            block_links: 0,
        }
    }

    fn finish(&mut self) {
        self.end_term();
        self.close_block();
        let headline = self.doc.headline.terms(self.doc.flags.len());
        self.doc.main_len = zones::decide(&mut self.doc.flags, headline);
        self.doc.title_key = crate::TitleKey::of_page(self.doc.title(), self.page_url);
        if !self.page_url.is_empty() {
            zones::mask_names(
                &self.doc.terms,
                &self.doc.ends,
                &mut self.doc.flags,
                self.page_url,
                &mut self.doc.name_scratch,
            );
        }
    }

    /// What joins the last term to the next after punctuation byte `b`: one `.` or `-` right
    /// after a term, or URL punctuation (see `Flags::URL`).
    #[inline]
    fn join(&self, b: u8) -> u16 {
        let url_char = matches!(
            b,
            b'/' | b':' | b'?' | b'=' | b'&' | b'#' | b'%' | b'~' | b'+' | b'_'
        );
        if self.in_term {
            match b {
                b'.' => Flags::DOT,
                b'-' => Flags::HYPHEN,
                _ if url_char => Flags::URL,
                _ => 0,
            }
        } else if self.joiner != 0 && (url_char || b == b'.' || b == b'-') {
            // A run of punctuation between two terms: only URL punctuation keeps them joined.
            Flags::URL
        } else {
            0
        }
    }

    /// Ends a block: when more than half its terms are link text, they are chrome.
    fn close_block(&mut self) {
        let n = self.doc.ends.len();
        if n > self.block_start && self.block_links * 2 > n - self.block_start {
            for f in &mut self.doc.flags[self.block_start..n] {
                *f |= Flags::CHROME;
            }
        }
        self.block_start = n;
        self.block_links = 0;
    }

    #[inline]
    fn end_term(&mut self) {
        if self.in_term {
            self.doc.end_term(self.term_flags);
            self.in_term = false;
        }
    }

    #[inline]
    fn begin_term(&mut self) {
        if !self.in_term {
            self.doc.start_term(&mut self.pending);
            self.in_term = true;
            let mut f = self.joiner;
            if self.doc.chrome_zones.is_open() {
                f |= Flags::CHROME;
            }
            if self.doc.landmark_zones.is_open() {
                f |= Flags::LANDMARK;
            }
            if self.in_anchor {
                f |= Flags::ANCHOR;
                self.block_links += 1;
            }
            self.term_flags = f;
            self.joiner = 0;
        }
    }

    fn flow(&mut self, f: Flow) {
        match f {
            Flow::Inline => {}
            Flow::Space => {
                self.end_term();
                self.confirm_sentence();
            }
            Flow::Line => {
                self.end_term();
                self.confirm_sentence();
                self.pending.line = true;
                self.close_block();
            }
            Flow::Paragraph => {
                self.end_term();
                self.maybe_sentence = false;
                self.pending.paragraph = true;
                self.close_block();
            }
        }
        self.joiner = 0;
        if f != Flow::Inline && self.in_title {
            push_title_space(&mut self.doc.title);
        }
    }

    #[inline]
    fn confirm_sentence(&mut self) {
        if self.maybe_sentence {
            self.pending.sentence = true;
            self.maybe_sentence = false;
        }
    }

    /// Feeds one ASCII byte of text.
    #[inline]
    fn ascii(&mut self, b: u8) {
        match CLASS[b as usize] {
            C_LOWER => {
                self.begin_term();
                self.doc.terms.push(b as char);
                self.maybe_sentence = false;
            }
            C_UPPER => {
                self.begin_term();
                self.doc.terms.push(b.to_ascii_lowercase() as char);
                self.maybe_sentence = false;
            }
            C_SPACE => {
                self.end_term();
                self.joiner = 0;
                self.confirm_sentence();
                if b == b'\n' && self.pre {
                    self.newline_run += 1;
                    if self.newline_run >= 2 {
                        self.pending.paragraph = true;
                    } else {
                        self.pending.line = true;
                    }
                }
                return self.title_char(b' ');
            }
            C_STOP => {
                self.joiner = self.join(b);
                self.end_term();
                self.maybe_sentence = true;
            }
            _ => {
                self.joiner = self.join(b);
                self.end_term();
                self.maybe_sentence = false;
            }
        }
        self.newline_run = 0;
        self.title_char(b);
    }

    /// A run of ASCII letters and digits starting at `start` (whose byte is one): its
    /// characters go to the term at once, as [`Run::ascii`] would add them one by one. Returns
    /// the end of the run.
    #[inline]
    fn letters(&mut self, s: &str, start: usize) -> usize {
        let bytes = s.as_bytes();
        let mut end = start + 1;
        while end < bytes.len() && WORD[bytes[end] as usize] {
            end += 1;
        }
        // ASCII bytes: both ends are character boundaries.
        let run = &s[start..end];
        self.begin_term();
        let from = self.doc.terms.len();
        self.doc.terms.push_str(run);
        self.doc.terms.as_mut_str()[from..].make_ascii_lowercase();
        self.maybe_sentence = false;
        self.newline_run = 0;
        if self.in_title {
            self.doc.title.push_str(run);
        }
        end
    }

    #[inline]
    fn title_char(&mut self, b: u8) {
        if self.in_title {
            if b == b' ' {
                push_title_space(&mut self.doc.title);
            } else {
                self.doc.title.push(b as char);
            }
        }
    }

    /// Feeds one non-ASCII character (or a decoded character reference).
    fn char(&mut self, c: char) {
        if c.is_ascii() {
            return self.ascii(c as u8);
        }
        self.newline_run = 0;
        if self.in_title {
            if c.is_whitespace() {
                push_title_space(&mut self.doc.title);
            } else {
                self.doc.title.push(c);
            }
        }
        if crate::chars::is_alphanumeric(c) {
            self.maybe_sentence = false;
            if is_unsegmented_cjk(c) {
                self.end_term();
                self.begin_term();
                push_lower(&mut self.doc.terms, c);
                self.end_term();
            } else {
                self.begin_term();
                push_lower(&mut self.doc.terms, c);
            }
        } else {
            self.end_term();
            self.joiner = 0;
            if c.is_whitespace() {
                self.confirm_sentence();
            } else {
                // Full-width and other sentence terminators.
                self.maybe_sentence = matches!(c, '。' | '！' | '？' | '…' | '।');
                if self.maybe_sentence && matches!(c, '。' | '！' | '？') {
                    self.confirm_sentence();
                }
            }
        }
    }

    /// Plain text (no markup, no references).
    fn text(&mut self, s: &str) {
        self.doc.text_bytes += s.len() as u64;
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if WORD[b as usize] {
                i = self.letters(s, i);
            } else if b < 0x80 {
                self.ascii(b);
                i += 1;
            } else {
                let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
                self.char(c);
                i += c.len_utf8();
            }
        }
    }

    /// Adds one whole term (an IMG URL).
    fn whole_term(&mut self, t: &str) {
        if t.is_empty() {
            return;
        }
        self.end_term();
        self.begin_term();
        for c in t.chars() {
            push_lower(&mut self.doc.terms, c);
        }
        self.end_term();
        self.doc.img_terms += 1;
    }

    fn html(&mut self, html: &str) {
        self.doc.text_bytes += html.len() as u64;
        let bytes = html.as_bytes();
        let n = bytes.len();
        let mut i = 0;
        while i < n {
            let b = bytes[i];
            if b == b'<' {
                i = self.markup(html, i);
            } else if b == b'&' {
                match entities::decode_at(&bytes[i..]) {
                    Some((c, used)) => {
                        self.char(c);
                        i += used;
                    }
                    None => {
                        self.ascii(b'&');
                        i += 1;
                    }
                }
            } else if WORD[b as usize] {
                i = self.letters(html, i);
            } else if b < 0x80 {
                self.ascii(b);
                i += 1;
                // Outside preformatted text, white space after white space changes nothing.
                if CLASS[b as usize] == C_SPACE && !self.pre {
                    while i < n && bytes[i] < 0x80 && CLASS[bytes[i] as usize] == C_SPACE {
                        i += 1;
                    }
                }
            } else {
                let c = html[i..].chars().next().unwrap_or('\u{FFFD}');
                self.char(c);
                i += c.len_utf8();
            }
        }
        self.finish();
    }

    /// Handles markup starting at `bytes[i] == b'<'`; returns the index after it.
    fn markup(&mut self, html: &str, i: usize) -> usize {
        let bytes = html.as_bytes();
        let n = bytes.len();
        let next = bytes.get(i + 1).copied().unwrap_or(0);
        if next == b'!' {
            if bytes[i..].starts_with(b"<!--") {
                self.flow(Flow::Space);
                return match memchr::memmem::find(&bytes[i + 4..], b"-->") {
                    Some(p) => i + 4 + p + 3,
                    None => n,
                };
            }
            self.flow(Flow::Space);
            return skip_to_gt(bytes, i + 2);
        }
        if next == b'?' {
            self.flow(Flow::Space);
            return skip_to_gt(bytes, i + 2);
        }
        let (closing, name_at) = if next == b'/' {
            (true, i + 2)
        } else {
            (false, i + 1)
        };
        if !bytes.get(name_at).is_some_and(|b| b.is_ascii_alphabetic()) {
            if closing {
                // `</ ...>` and `</>` are bogus comments in HTML.
                self.flow(Flow::Space);
                return skip_to_gt(bytes, name_at);
            }
            self.ascii(b'<');
            return i + 1;
        }
        let mut name = [0u8; 12];
        let mut len = 0;
        let mut j = name_at;
        while j < n
            && !matches!(
                bytes[j],
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>'
            )
        {
            if len < name.len() {
                name[len] = bytes[j].to_ascii_lowercase();
            }
            len += 1;
            j += 1;
        }
        let name: &[u8] = if len <= name.len() { &name[..len] } else { b"" };
        let tag = TagInfo::of(name);
        let (end, hint) = self.attributes(html, j, if closing { None } else { Some(name) });
        if closing {
            self.flow(tag.flow);
            match name {
                b"pre" | b"textarea" | b"listing" | b"plaintext" => self.pre = false,
                b"title" => self.in_title = false,
                b"a" => self.in_anchor = false,
                _ => {}
            }
            if !name.is_empty() {
                self.doc.chrome_zones.saw_close(name);
                self.doc.landmark_zones.saw_close(name);
                self.doc.headline.saw_close(name, self.doc.ends.len());
            }
            return end;
        }
        self.flow(tag.flow);
        if !name.is_empty() {
            self.doc.chrome_zones.saw_open(name);
            self.doc.landmark_zones.saw_open(name);
            self.doc.headline.saw_open(name, self.doc.ends.len());
            let t = zones::tag_hint(name, self.doc.landmark_zones.is_open());
            if t.chrome || hint.chrome {
                self.doc.chrome_zones.push(name);
            } else if t.landmark || hint.landmark {
                self.doc.landmark_zones.push(name);
            }
            if name == b"a" {
                self.in_anchor = true;
            }
            if name == b"meta" && hint.refresh {
                if let Some(d) = hint.refresh_delay {
                    self.doc.refresh_delay = Some(self.doc.refresh_delay.map_or(d, |e| e.min(d)));
                }
            }
        }
        match name {
            b"script" | b"style" | b"noscript" | b"template" | b"xmp" | b"iframe" | b"noembed"
            | b"noframes" => {
                // Raw text elements: skip to the matching end tag.
                let close: &[u8] = match name {
                    b"script" => b"</script",
                    b"style" => b"</style",
                    b"noscript" => b"</noscript",
                    b"template" => b"</template",
                    b"xmp" => b"</xmp",
                    b"iframe" => b"</iframe",
                    b"noembed" => b"</noembed",
                    _ => b"</noframes",
                };
                match find_ci(&bytes[end..], close) {
                    Some(p) => skip_to_gt(bytes, end + p + close.len()),
                    None => n,
                }
            }
            b"pre" | b"textarea" | b"listing" | b"plaintext" => {
                self.pre = true;
                self.newline_run = 0;
                // A newline right after <pre> is not rendered.
                if bytes.get(end) == Some(&b'\n') {
                    end + 1
                } else {
                    end
                }
            }
            b"title" => {
                self.in_title = self.doc.title.is_empty();
                end
            }
            _ => end,
        }
    }

    /// Parses attributes from `j` to the closing `>`; acts on the ones that matter for `tag`.
    /// Returns the index after `>` and what `class`, `id` and `role` say (for containers).
    fn attributes(&mut self, html: &str, mut j: usize, tag: Option<&[u8]>) -> (usize, zones::Hint) {
        let bytes = html.as_bytes();
        let n = bytes.len();
        let hints = tag.is_some_and(zones::reads_hints);
        let mut hint = zones::Hint::default();
        let wanted: Option<&[u8]> = match tag {
            Some(b"a") | Some(b"area") | Some(b"base") | Some(b"link") => Some(b"href"),
            Some(b"img") | Some(b"frame") | Some(b"iframe") => Some(b"src"),
            _ => None,
        };
        loop {
            while j < n && matches!(bytes[j], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/') {
                j += 1;
            }
            if j >= n {
                return (n, hint);
            }
            if bytes[j] == b'>' {
                return (j + 1, hint);
            }
            let name_start = j;
            while j < n
                && !matches!(
                    bytes[j],
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>' | b'='
                )
            {
                j += 1;
            }
            let attr = &bytes[name_start..j];
            while j < n && matches!(bytes[j], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
                j += 1;
            }
            if j >= n || bytes[j] != b'=' {
                continue;
            }
            j += 1;
            while j < n && matches!(bytes[j], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
                j += 1;
            }
            if j >= n {
                return (n, hint);
            }
            let (vs, ve) = match bytes[j] {
                q @ (b'"' | b'\'') => match memchr::memchr(q, &bytes[j + 1..]) {
                    Some(p) => {
                        let r = (j + 1, j + 1 + p);
                        j = j + 2 + p;
                        r
                    }
                    None => return (n, hint),
                },
                _ => {
                    let s = j;
                    while j < n
                        && !matches!(bytes[j], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>')
                    {
                        j += 1;
                    }
                    (s, j)
                }
            };
            if let (Some(w), Some(tag)) = (wanted, tag) {
                if attr.eq_ignore_ascii_case(w) {
                    self.url_attribute(tag, &html[vs..ve]);
                }
            }
            if hints {
                let h = zones::attribute_hint(attr, &html[vs..ve]);
                hint.chrome |= h.chrome;
                hint.landmark |= h.landmark;
            } else if tag == Some(b"meta") {
                let v = html[vs..ve].trim();
                if attr.eq_ignore_ascii_case(b"http-equiv") && v.eq_ignore_ascii_case("refresh") {
                    hint.refresh = true;
                } else if attr.eq_ignore_ascii_case(b"content") {
                    hint.refresh_delay = zones::refresh_delay(v);
                }
            }
        }
    }
}

fn push_title_space(title: &mut String) {
    if !title.is_empty() && !title.ends_with(' ') {
        title.push(' ');
    }
}

#[inline]
fn skip_to_gt(bytes: &[u8], from: usize) -> usize {
    if from >= bytes.len() {
        return bytes.len();
    }
    match memchr::memchr(b'>', &bytes[from..]) {
        Some(p) => from + p + 1,
        None => bytes.len(),
    }
}

#[inline]
pub(crate) fn push_lower(out: &mut String, c: char) {
    if !crate::chars::is_lowered(c) {
        out.push(c);
    } else {
        out.extend(c.to_lowercase());
    }
}

/// Scripts written without spaces between words, split one character per term.
#[inline]
pub fn is_unsegmented_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3FFFF) // CJK extensions B..
}

struct TagInfo {
    flow: Flow,
}

impl TagInfo {
    fn of(name: &[u8]) -> TagInfo {
        let flow = match name {
            b"a" | b"abbr" | b"acronym" | b"b" | b"bdi" | b"bdo" | b"big" | b"blink" | b"cite"
            | b"code" | b"data" | b"del" | b"dfn" | b"em" | b"font" | b"i" | b"ins" | b"kbd"
            | b"mark" | b"nobr" | b"q" | b"s" | b"samp" | b"small" | b"span" | b"strike"
            | b"strong" | b"sub" | b"sup" | b"time" | b"tt" | b"u" | b"var" | b"wbr" => {
                Flow::Inline
            }
            b"p" | b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6" | b"blockquote" | b"pre"
            | b"table" | b"ul" | b"ol" | b"dl" | b"hr" | b"section" | b"article" | b"header"
            | b"footer" | b"nav" | b"aside" | b"main" | b"details" | b"figure" | b"form"
            | b"title" | b"head" | b"body" | b"html" | b"fieldset" | b"address" | b"listing"
            | b"plaintext" | b"xmp" | b"center" | b"menu" => Flow::Paragraph,
            b"br" | b"div" | b"li" | b"dt" | b"dd" | b"tr" | b"caption" | b"summary"
            | b"figcaption" | b"option" | b"legend" | b"textarea" | b"thead" | b"tbody"
            | b"tfoot" | b"dir" | b"frameset" | b"select" => Flow::Line,
            _ => Flow::Space,
        };
        TagInfo { flow }
    }
}

const C_OTHER: u8 = 0;
const C_LOWER: u8 = 1;
const C_UPPER: u8 = 2;
const C_SPACE: u8 = 3;
const C_STOP: u8 = 4;

/// ASCII letters and digits: the bytes [`Run::letters`] takes in a run (`C_LOWER` or
/// `C_UPPER` in [`CLASS`]; no byte from 0x80 on), one load a byte.
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = matches!(CLASS[b], C_LOWER | C_UPPER);
        b += 1;
    }
    t
};

static CLASS: [u8; 128] = {
    let mut t = [C_OTHER; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            C_LOWER
        } else if c.is_ascii_uppercase() {
            C_UPPER
        } else if c == b' ' || c == b'\t' || c == b'\n' || c == b'\r' || c == 0x0c {
            C_SPACE
        } else if c == b'.' || c == b'!' || c == b'?' {
            C_STOP
        } else {
            C_OTHER
        };
        b += 1;
    }
    t
};

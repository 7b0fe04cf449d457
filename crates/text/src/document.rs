//! The reusable output buffer of the tokenizer: terms, boundaries, title and links.

use crate::charset::CharsetSource;

/// A tokenized page. All vectors are reused between pages (see [`Document::clear`]); nothing in
/// it is allocated per token.
///
/// Terms are stored back to back in one `String`; `ends[i]` is the end offset of term `i`.
/// Boundaries are token indices: `lines[j]` is the index of the first term of line `j`, and
/// likewise for sentences and paragraphs. A boundary list is empty when the page has no terms;
/// otherwise it starts with 0.
#[derive(Debug, Default, Clone)]
pub struct Document {
    pub(crate) terms: String,
    pub(crate) ends: Vec<u32>,
    pub(crate) lines: Vec<u32>,
    pub(crate) sentences: Vec<u32>,
    pub(crate) paragraphs: Vec<u32>,
    pub(crate) title: String,
    pub(crate) links: String,
    pub(crate) link_ends: Vec<u32>,
    pub(crate) raw_links: u32,
    pub(crate) img_terms: u32,
    pub(crate) charset: Option<(&'static str, CharsetSource)>,
    pub(crate) text_bytes: u64,
    pub(crate) decode_scratch: String,
    /// Per term: [`crate::zones::Flags`].
    pub(crate) flags: Vec<u16>,
    /// Terms chosen as main content.
    pub(crate) main_len: usize,
    pub(crate) name_scratch: Vec<(u32, u32)>,
    pub(crate) refresh_delay: Option<u32>,
    pub(crate) chrome_zones: crate::zones::ZoneStack,
    pub(crate) landmark_zones: crate::zones::ZoneStack,
    pub(crate) headline: crate::zones::Headline,
    pub(crate) title_key: crate::TitleKey,
}

/// Which terms of a page its signatures are taken over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scope {
    /// The main content (see the `zones` rules), or the whole page when its main content has
    /// fewer than [`crate::MIN_MAIN_TERMS`] terms.
    #[default]
    Main,
    /// Every term (Henzinger's and Broder's whole-page token sequence).
    Page,
}

impl Document {
    /// An empty document.
    pub fn new() -> Document {
        Document::default()
    }

    /// Forgets the previous page, keeping the buffers' capacity (up to a few MB, so that one huge
    /// page does not pin its memory for the rest of the run).
    pub fn clear(&mut self) {
        const KEEP: usize = 4 << 20;
        if self.terms.capacity() > KEEP
            || self.ends.capacity() > KEEP / 4
            || self.decode_scratch.capacity() > KEEP
        {
            *self = Document::default();
            return;
        }
        self.terms.clear();
        self.ends.clear();
        self.lines.clear();
        self.sentences.clear();
        self.paragraphs.clear();
        self.title.clear();
        self.links.clear();
        self.link_ends.clear();
        self.raw_links = 0;
        self.img_terms = 0;
        self.charset = None;
        self.text_bytes = 0;
        self.flags.clear();
        self.main_len = 0;
        self.refresh_delay = None;
        self.chrome_zones.clear();
        self.landmark_zones.clear();
        self.headline.clear();
        self.title_key = crate::TitleKey::default();
    }

    /// Number of terms (the length of the token sequence).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when the page produced no terms.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Term `i`. Panics if `i >= self.len()`.
    pub fn term(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.terms[start..self.ends[i] as usize]
    }

    /// The terms in order.
    pub fn terms(&self) -> Terms<'_> {
        Terms {
            text: &self.terms,
            ends: &self.ends,
            at: 0,
            start: 0,
        }
    }

    /// The delay of a `<meta http-equiv="refresh">` that sends the reader to another URL (a
    /// redirect served as a page), the smallest when there are several.
    pub fn redirect_delay(&self) -> Option<u32> {
        self.refresh_delay
    }

    /// True when the page is an error page served as a 200 response (a "soft 404"): its title
    /// says the page was not found (404, "not found", "does not exist", "no longer available")
    /// and it has at most 150 terms of main content.
    pub fn is_soft_404(&self) -> bool {
        crate::zones::is_soft_404(&self.title, self.main_len)
    }

    /// What the title says the page is about ([`crate::TitleKey::of_page`]: versions and the
    /// URL path's first folder set aside).
    pub fn title_key(&self) -> crate::TitleKey {
        self.title_key
    }

    /// Terms of the main content (navigation, headers, footers, sidebars and link lists left
    /// out; see the `zones` rules). As many as [`Document::len`] for plain text.
    pub fn main_len(&self) -> usize {
        self.main_len
    }

    /// True when signatures of `scope` are taken over the main content only (the page has one
    /// of at least [`crate::MIN_MAIN_TERMS`] terms, and chrome to leave out).
    pub fn uses_main(&self, scope: Scope) -> bool {
        scope == Scope::Main && self.main_len >= crate::MIN_MAIN_TERMS && self.main_len < self.len()
    }

    /// True when term `i` is main content.
    pub fn is_main(&self, i: usize) -> bool {
        self.flags
            .get(i)
            .is_none_or(|f| f & crate::zones::Flags::MAIN != 0)
    }

    /// The terms signatures are taken over. [`Scope::Main`]: the main content (see
    /// [`Document::uses_main`]) with each name (a domain name in the text, the page's own host,
    /// label or path) as the one term [`crate::NAME_TERM`]. [`Scope::Page`]: every term, as
    /// [`Document::terms`].
    pub fn signature_terms(&self, scope: Scope) -> SignatureTerms<'_> {
        SignatureTerms {
            terms: self.terms(),
            flags: &self.flags,
            at: 0,
            main_only: self.uses_main(scope),
            names: scope == Scope::Main,
        }
    }

    /// First-term indices of the lines of the page as rendered (block elements, `<br>`, newlines
    /// in `<pre>` and in plain text).
    pub fn lines(&self) -> &[u32] {
        &self.lines
    }

    /// First-term indices of sentences (`.`, `!`, `?` followed by white space, and every
    /// paragraph start).
    pub fn sentences(&self) -> &[u32] {
        &self.sentences
    }

    /// First-term indices of paragraphs (`<p>`, headings, lists, tables, `<pre>`, blank lines in
    /// plain text, ...).
    pub fn paragraphs(&self) -> &[u32] {
        &self.paragraphs
    }

    /// The `<title>` text with white space collapsed.
    pub fn title(&self) -> &str {
        self.title.trim_end()
    }

    /// Outlinks (resolved, in canonical form: [`crate::canonical_link`]), when link extraction
    /// was on.
    pub fn links(&self) -> impl Iterator<Item = &str> + '_ {
        let mut start = 0usize;
        self.link_ends.iter().map(move |&e| {
            let s = &self.links[start..e as usize];
            start = e as usize;
            s
        })
    }

    /// Number of link elements seen (`a`/`area` href, `frame`/`iframe` src), resolved or not.
    pub fn raw_link_count(&self) -> u32 {
        self.raw_links
    }

    /// Number of IMG terms added (Henzinger's exception 2).
    pub fn img_term_count(&self) -> u32 {
        self.img_terms
    }

    /// The encoding used to decode the page and where it came from (`None` for text input).
    pub fn charset(&self) -> Option<(&'static str, CharsetSource)> {
        self.charset
    }

    /// Bytes of decoded text scanned (HTML source or plain text, in UTF-8).
    pub fn text_bytes(&self) -> u64 {
        self.text_bytes
    }

    // ---- building ------------------------------------------------------------------------

    #[inline]
    pub(crate) fn start_term(&mut self, pending: &mut Pending) {
        let idx = self.ends.len() as u32;
        if pending.paragraph || idx == 0 {
            push_boundary(&mut self.paragraphs, idx);
            push_boundary(&mut self.lines, idx);
            push_boundary(&mut self.sentences, idx);
        } else {
            if pending.line {
                push_boundary(&mut self.lines, idx);
            }
            if pending.sentence {
                push_boundary(&mut self.sentences, idx);
            }
        }
        *pending = Pending::default();
    }

    #[inline]
    pub(crate) fn end_term(&mut self, flags: u16) {
        let end = self.terms.len() as u32;
        if self.ends.last().copied().unwrap_or(0) != end {
            self.ends.push(end);
            self.flags.push(flags);
        }
    }

    pub(crate) fn push_link(&mut self, link: &str) {
        self.links.push_str(link);
        self.link_ends.push(self.links.len() as u32);
    }
}

#[inline]
fn push_boundary(v: &mut Vec<u32>, idx: u32) {
    if v.last() != Some(&idx) || v.is_empty() {
        v.push(idx);
    }
}

/// Boundaries seen since the last term; they take effect at the next term.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pending {
    pub line: bool,
    pub sentence: bool,
    pub paragraph: bool,
}

/// Iterator over the terms of a [`Document`].
pub struct Terms<'a> {
    text: &'a str,
    ends: &'a [u32],
    at: usize,
    start: usize,
}

impl<'a> Iterator for Terms<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let end = *self.ends.get(self.at)? as usize;
        let s = &self.text[self.start..end];
        self.at += 1;
        self.start = end;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.ends.len() - self.at;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Terms<'_> {}

/// Iterator over the signature terms of a [`Document`] (see [`Document::signature_terms`]).
pub struct SignatureTerms<'a> {
    terms: Terms<'a>,
    flags: &'a [u16],
    at: usize,
    main_only: bool,
    names: bool,
}

impl<'a> Iterator for SignatureTerms<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        use crate::zones::Flags;
        loop {
            let t = self.terms.next()?;
            let f = self.flags.get(self.at).copied().unwrap_or(Flags::MAIN);
            self.at += 1;
            if self.main_only && f & Flags::MAIN == 0 {
                continue;
            }
            if self.names && f & Flags::NAME != 0 {
                // A name is one term, at its start (or at its first main term).
                let prev_main_name = self.at >= 2 && {
                    let p = self.flags[self.at - 2];
                    p & Flags::NAME != 0
                        && f & Flags::NAME_START == 0
                        && (!self.main_only || p & Flags::MAIN != 0)
                };
                if prev_main_name {
                    continue;
                }
                return Some(crate::zones::NAME_TERM);
            }
            return Some(t);
        }
    }
}

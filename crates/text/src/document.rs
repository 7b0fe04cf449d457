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

    /// Outlinks (resolved and normalized), when link extraction was on.
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
    pub(crate) fn end_term(&mut self) {
        let end = self.terms.len() as u32;
        if self.ends.last().copied().unwrap_or(0) != end {
            self.ends.push(end);
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

//! Where each term of a page stands: in the page's main content or in its chrome (navigation,
//! header, footer, sidebars, banners, link lists), and which terms spell the page's own host or
//! URL, or any domain name.
//!
//! The tokenizer tags every term with a byte of flags ([`Flags`]) as it goes; at the end of the
//! page [`decide`] picks the main content and [`mask_names`] marks names, so that signatures can
//! be taken over what the page is about (see [`crate::Document::signature_terms`]).
//!
//! Main content, by three cues that need no other page (the rules behind readability, jusText
//! and boilerpipe, cut to what a streaming tokenizer can see):
//! 1. Structure: `<nav>`, `<aside>`, `<menu>`, `<select>`, `<button>`, and `<header>`/`<footer>`
//!    outside an `<article>` or `<main>`, are chrome; so is any container whose `class`, `id`
//!    or `role` names a chrome part (`navbar`, `sidebar`, `footer`, `cookie-banner`,
//!    `role="navigation"`, ...; [`chrome_word`]).
//! 2. Link density: a block (text between line or paragraph breaks) whose terms are more than
//!    half inside links is chrome (menus, "most read" lists, tag clouds, link bars).
//! 3. Landmarks: when `<main>`, `<article>` or `role="main"` hold at least
//!    [`MIN_LANDMARK_TERMS`] terms, terms outside them are chrome.
//!
//! 4. Headline: on a page without such landmarks, the innermost container (`<div>`,
//!    `<section>`, `<table>`, ...) of the page's only `<h1>` is one when it holds at least
//!    [`MIN_LANDMARK_TERMS`] terms that are not chrome (the article's own block, as news
//!    extractors find it from its title; it sets apart footers of prose in pages with no telling
//!    markup). A page with several `<h1>` has no headline.
//!
//! A page whose main content has fewer than [`MIN_MAIN_TERMS`] terms is represented by all its
//! terms: there is not enough main content to stand for it (link-only index pages, tiny pages).

/// Per-term flags.
pub(crate) struct Flags;

impl Flags {
    /// Inside a chrome element, or in a link-dense block.
    pub const CHROME: u16 = 1;
    /// Inside `<main>`, `<article>` or `role="main"`.
    pub const LANDMARK: u16 = 2;
    /// Inside a link.
    pub const ANCHOR: u16 = 4;
    /// Chosen as main content (set by [`decide`]).
    pub const MAIN: u16 = 8;
    /// Joined to the previous term by one `.` (`example.com`).
    pub const DOT: u16 = 16;
    /// Joined to the previous term by one `-` (`rust-lang`).
    pub const HYPHEN: u16 = 32;
    /// Part of a name: the page's own host or URL, or a domain name ([`mask_names`]).
    pub const NAME: u16 = 64;
    /// The first term of a name.
    pub const NAME_START: u16 = 128;
    /// Joined to the previous term by URL punctuation only (`/`, `://`, `?`, `=`, `&`, `#`,
    /// `%`, `~`, `+`, `_`, and `.` or `-` after one of these).
    pub const URL: u16 = 256;
}

/// Terms a landmark must hold for the terms outside it to count as chrome.
pub const MIN_LANDMARK_TERMS: usize = 20;

/// Main-content terms a page needs for its main content to stand for it.
pub const MIN_MAIN_TERMS: usize = 10;

/// The term that stands for a name in signature terms: a host, a URL or a domain name. Not a
/// term any text can produce (terms are alphanumeric).
pub const NAME_TERM: &str = "\u{1}name";

/// What an element's tag and attributes say about its part of the page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hint {
    pub chrome: bool,
    pub landmark: bool,
    /// `<meta http-equiv="refresh">`.
    pub refresh: bool,
    /// The delay of a `<meta content="N; url=...">` that names a URL.
    pub refresh_delay: Option<u32>,
}

/// The delay in seconds of a meta refresh `content` that sends to a URL (`0; url=/new`);
/// `None` for a refresh of the page itself (`300`).
pub(crate) fn refresh_delay(content: &str) -> Option<u32> {
    let (delay, rest) = content.split_once([';', ','])?;
    if rest.trim().is_empty() {
        return None;
    }
    let d = delay.trim();
    let whole = d.split('.').next().unwrap_or(d);
    whole.parse::<u32>().ok()
}

/// True for an error page served as a 200 response (a "soft 404"): its title says the page
/// was not found, does not exist or is gone, and it has little main content.
pub(crate) fn is_soft_404(title: &str, main_len: usize) -> bool {
    if main_len > 150 {
        return false;
    }
    let mut words = [""; 32];
    let mut n = 0;
    for w in title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if n == words.len() {
            break;
        }
        words[n] = w;
        n += 1;
    }
    let words = &words[..n];
    let has = |seq: &[&str]| {
        words
            .windows(seq.len())
            .any(|w| w.iter().zip(seq).all(|(a, b)| a.eq_ignore_ascii_case(b)))
    };
    has(&["404"])
        || has(&["410"])
        || has(&["not", "found"])
        || has(&["does", "not", "exist"])
        || has(&["doesn", "t", "exist"])
        || has(&["no", "longer", "available"])
        || has(&["page", "unavailable"])
        || has(&["page", "missing"])
}

/// Tags whose `class`, `id` and `role` are read for hints (containers; inline and void
/// elements are left alone, so a `<span class="menu-label">` inside text does not hide it).
pub(crate) fn reads_hints(tag: &[u8]) -> bool {
    // Only elements whose end tag is required: a zone opened at an `<li>` or `<p>` whose end
    // tag is left out (as HTML allows) would never end.
    matches!(
        tag,
        b"div"
            | b"section"
            | b"nav"
            | b"header"
            | b"footer"
            | b"aside"
            | b"ul"
            | b"ol"
            | b"dl"
            | b"table"
            | b"main"
            | b"article"
            | b"menu"
            | b"form"
    )
}

/// Hint from the tag alone; `in_landmark` tells whether an article or main is open.
pub(crate) fn tag_hint(tag: &[u8], in_landmark: bool) -> Hint {
    match tag {
        b"nav" | b"aside" | b"menu" | b"select" | b"button" => Hint {
            chrome: true,
            ..Hint::default()
        },
        b"header" | b"footer" => Hint {
            chrome: !in_landmark,
            ..Hint::default()
        },
        b"main" | b"article" => Hint {
            landmark: true,
            ..Hint::default()
        },
        _ => Hint::default(),
    }
}

/// Hint from one attribute value (`class`, `id` or `role`).
pub(crate) fn attribute_hint(attr: &[u8], value: &str) -> Hint {
    let mut h = Hint::default();
    if attr.eq_ignore_ascii_case(b"role") {
        let v = value.trim();
        let is = |w: &str| v.eq_ignore_ascii_case(w);
        h.chrome = is("navigation")
            || is("banner")
            || is("contentinfo")
            || is("complementary")
            || is("search")
            || is("menu")
            || is("menubar");
        h.landmark = is("main") || is("article");
        return h;
    }
    if !(attr.eq_ignore_ascii_case(b"class") || attr.eq_ignore_ascii_case(b"id")) {
        return h;
    }
    let mut header_like = false;
    let mut content_like = false;
    for word in value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut buf = [0u8; 24];
        let n = word.len().min(buf.len());
        buf[..n].copy_from_slice(&word.as_bytes()[..n]);
        buf[..n].make_ascii_lowercase();
        let w = std::str::from_utf8(&buf[..n]).unwrap_or("");
        if matches!(
            w,
            "content" | "article" | "post" | "entry" | "story" | "main" | "title" | "headline"
        ) {
            content_like = true;
        }
        if w.starts_with("header") || w == "hd" {
            header_like = true;
        } else if chrome_word(w) {
            h.chrome = true;
        }
    }
    // `entry-header`, `article-header`: the header of the article itself, not of the site.
    if header_like && !content_like {
        h.chrome = true;
    }
    h
}

/// A word of a `class` or `id` that names a chrome part of a page.
pub(crate) fn chrome_word(w: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "nav",
        "menu",
        "sidebar",
        "footer",
        "breadcrumb",
        "cookie",
        "consent",
        "banner",
        "widget",
        "social",
        "share",
        "sharing",
        "related",
        "comment",
        "advert",
        "promo",
        "newsletter",
        "subscribe",
        "masthead",
        "copyright",
        "pagination",
        "pager",
        "toolbar",
        "topbar",
        "sponsor",
        "popup",
        "modal",
        "skiplink",
        "notice",
        "disclaimer",
    ];
    const WORDS: &[&str] = &[
        "ad", "ads", "side", "aside", "rail", "bottom", "foot", "tags", "tagcloud", "login",
        "signup", "search", "topnav", "subnav", "legal",
    ];
    if w.starts_with("shared") {
        return false;
    }
    WORDS.contains(&w) || PREFIXES.iter().any(|p| w.starts_with(p))
}

/// An element name, as the tokenizer reads it (at most 12 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Name {
    bytes: [u8; 12],
    len: u8,
}

impl Name {
    pub fn new(name: &[u8]) -> Name {
        let mut bytes = [0u8; 12];
        let len = name.len().min(12);
        bytes[..len].copy_from_slice(&name[..len]);
        Name {
            bytes,
            len: len as u8,
        }
    }

    fn is(&self, name: &[u8]) -> bool {
        &self.bytes[..self.len as usize] == name
    }
}

/// Open elements of one kind (chrome or landmark). Each remembers how many elements of its own
/// name are open inside it, so that it ends at its own end tag however the page nests divs;
/// an end tag that closes an outer one closes the inner ones too (mis-nested HTML).
#[derive(Clone, Debug, Default)]
pub(crate) struct ZoneStack {
    open: Vec<(Name, u32)>,
}

impl ZoneStack {
    const MAX: usize = 64;

    pub fn clear(&mut self) {
        self.open.clear();
    }

    pub fn is_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// An element `name` opens: counted by the open zones of that name.
    pub fn saw_open(&mut self, name: &[u8]) {
        for (n, depth) in &mut self.open {
            if n.is(name) {
                *depth += 1;
            }
        }
    }

    /// A zone starts at an element `name` (after [`ZoneStack::saw_open`] for it).
    pub fn push(&mut self, name: &[u8]) {
        if self.open.len() < Self::MAX {
            self.open.push((Name::new(name), 1));
        }
    }

    /// An end tag `name`.
    pub fn saw_close(&mut self, name: &[u8]) {
        let mut cut = None;
        for (i, (n, depth)) in self.open.iter_mut().enumerate() {
            if n.is(name) {
                *depth -= 1;
                if *depth == 0 && cut.is_none() {
                    cut = Some(i);
                }
            }
        }
        if let Some(i) = cut {
            self.open.truncate(i);
        }
    }
}

/// The open containers of a page, to find the one around its headline (its only `<h1>`): the
/// terms from where that container opens to where it closes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Headline {
    /// Open containers: name and the term where it opened.
    open: Vec<(Name, u32)>,
    /// Containers not pushed because the stack was full: the headline is then unknown.
    overflow: bool,
    h1s: u32,
    /// Depth (index in `open`) and first term of the headline's container.
    container: Option<(usize, u32)>,
    /// Its terms, once it closed.
    range: Option<(u32, u32)>,
}

impl Headline {
    const MAX: usize = 256;

    pub fn clear(&mut self) {
        self.open.clear();
        self.overflow = false;
        self.h1s = 0;
        self.container = None;
        self.range = None;
    }

    /// A start tag `name`, with `terms` terms before it.
    pub fn saw_open(&mut self, name: &[u8], terms: usize) {
        if name == b"h1" {
            self.h1s += 1;
            if self.h1s == 1 {
                if let Some(&(_, start)) = self.open.last() {
                    self.container = Some((self.open.len() - 1, start));
                }
            }
        } else if reads_hints(name) {
            if self.open.len() < Self::MAX {
                self.open.push((Name::new(name), terms as u32));
            } else {
                self.overflow = true;
            }
        }
    }

    /// An end tag `name`, with `terms` terms before it: closes the innermost open container of
    /// that name and those inside it (mis-nested HTML).
    pub fn saw_close(&mut self, name: &[u8], terms: usize) {
        if !reads_hints(name) {
            return;
        }
        let Some(i) = self.open.iter().rposition(|(n, _)| n.is(name)) else {
            return;
        };
        self.open.truncate(i);
        if let Some((depth, start)) = self.container {
            if depth >= i && self.range.is_none() {
                self.range = Some((start, terms as u32));
            }
        }
    }

    /// The terms of the headline's container, when the page has one `<h1>` inside a container.
    pub fn terms(&self, n: usize) -> Option<std::ops::Range<usize>> {
        if self.h1s != 1 || self.overflow {
            return None;
        }
        let (_, start) = self.container?;
        let end = self.range.map_or(n, |(_, e)| e as usize);
        Some(start as usize..end.min(n))
    }
}

/// Marks the main content (sets [`Flags::MAIN`]) by the landmark and headline rules; returns
/// its length. `headline` is the terms of the headline's container, if any.
pub(crate) fn decide(flags: &mut [u16], headline: Option<std::ops::Range<usize>>) -> usize {
    let mut landmark = flags.iter().filter(|f| **f & Flags::LANDMARK != 0).count();
    if landmark < MIN_LANDMARK_TERMS {
        if let Some(r) = headline.filter(|r| r.start < r.end) {
            let inside = flags[r.clone()]
                .iter()
                .filter(|f| **f & Flags::CHROME == 0)
                .count();
            if inside >= MIN_LANDMARK_TERMS {
                for f in &mut flags[r] {
                    *f |= Flags::LANDMARK;
                }
                landmark = inside;
            }
        }
    }
    let need = if landmark >= MIN_LANDMARK_TERMS {
        Flags::LANDMARK
    } else {
        0
    };
    let mut main = 0;
    for f in flags.iter_mut() {
        if *f & Flags::CHROME == 0 && *f & need == need {
            *f |= Flags::MAIN;
            main += 1;
        } else {
            *f &= !Flags::MAIN;
        }
    }
    main
}

/// Marks names ([`Flags::NAME`], [`Flags::NAME_START`]) in the terms of a page: every domain
/// name written in the text (labels joined by dots, ending in a public suffix: at least two
/// dots, or a suffix of three or more letters, so that `main.rs` and `self.is` stay text); the
/// page's own host and registered-domain label written as words (`bestcars online` on
/// `bestcars-online.example`, at least five letters); and the page's own path (three terms or
/// more). A name counts as one term, [`NAME_TERM`], in signature terms, so that parked domains
/// and mirrors naming themselves do not differ by their names.
pub(crate) fn mask_names(
    terms: &str,
    ends: &[u32],
    flags: &mut [u16],
    page_url: &str,
    scratch: &mut Vec<(u32, u32)>,
) {
    let n = ends.len();
    let term = |i: usize| -> &str {
        let s = if i == 0 { 0 } else { ends[i - 1] as usize };
        &terms[s..ends[i] as usize]
    };
    // Domain names in the text.
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        let mut dots = 0;
        while j < n && flags[j] & (Flags::DOT | Flags::HYPHEN) != 0 {
            dots += usize::from(flags[j] & Flags::DOT != 0);
            j += 1;
        }
        if dots > 0 && flags[j - 1] & Flags::DOT != 0 {
            let last = term(j - 1);
            let suffix_ok = last.bytes().all(|b| b.is_ascii_alphabetic())
                && (dots >= 2 || last.len() >= 3)
                && is_suffix(last);
            if suffix_ok {
                // A URL is one name: its scheme before the domain, its path after it.
                let mut from = i;
                if from > 0
                    && flags[from] & Flags::URL != 0
                    && matches!(term(from - 1), "http" | "https" | "ftp")
                {
                    from -= 1;
                }
                while j < n && flags[j] & (Flags::URL | Flags::DOT | Flags::HYPHEN) != 0 {
                    j += 1;
                }
                mark(flags, from, j);
            }
        }
        i = j;
    }
    // The page's own host, registered-domain label and path, written as words.
    let Some((hs, he)) = crate::url::host_span(page_url) else {
        return;
    };
    let host = &page_url[hs..he];
    let registered = crate::url::registered_domain(host);
    let label_part = registered
        .split_once('.')
        .map_or(registered, |(label, _)| label);
    let long_label = label_part.chars().filter(|c| c.is_alphanumeric()).count() >= 5;
    let patterns: [(&str, usize); 3] = [
        (crate::url::path_of(page_url), 3),
        (host.strip_prefix("www.").unwrap_or(host), 2),
        (label_part, if long_label { 1 } else { usize::MAX }),
    ];
    for (text, min_terms) in patterns {
        scratch.clear();
        words(text, scratch);
        let m = scratch.len();
        if m < min_terms || m == 0 {
            continue;
        }
        let word = |k: usize| &text.as_bytes()[scratch[k].0 as usize..scratch[k].1 as usize];
        // Terms are compared as bytes, and only once their lengths agree: most terms of a
        // page differ from the first word in length, told by `ends` alone.
        let first = scratch[0].1 - scratch[0].0;
        let start = |i: usize| if i == 0 { 0 } else { ends[i - 1] };
        let term_bytes = |i: usize| &terms.as_bytes()[start(i) as usize..ends[i] as usize];
        let mut i = 0;
        while i + m <= n {
            if ends[i] - start(i) == first
                && flags[i] & Flags::NAME == 0
                && (0..m).all(|k| eq_lower(term_bytes(i + k), word(k)))
            {
                mark(flags, i, i + m);
                i += m;
            } else {
                i += 1;
            }
        }
    }
}

fn mark(flags: &mut [u16], from: usize, to: usize) {
    // A name next to another becomes part of it (`www.x.com/path`: host and path are one).
    let joins = from > 0 && flags[from - 1] & Flags::NAME != 0;
    for (k, f) in flags[from..to].iter_mut().enumerate() {
        *f |= Flags::NAME;
        if k == 0 && !joins {
            *f |= Flags::NAME_START;
        } else {
            *f &= !Flags::NAME_START;
        }
    }
}

fn is_suffix(label: &str) -> bool {
    let mut buf = [0u8; 32];
    if label.len() > buf.len() {
        return false;
    }
    buf[..label.len()].copy_from_slice(label.as_bytes());
    matches!(label, "example" | "test" | "localhost" | "invalid")
        || psl::suffix(&buf[..label.len()]).is_some_and(|s| s.is_known())
}

/// The terms of `text` as the tokenizer would cut them (ASCII alphanumeric runs, lowercased
/// compare), as byte spans.
fn words(text: &str, out: &mut Vec<(u32, u32)>) {
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (crate::chars::is_alphanumeric(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s as u32, i as u32));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s as u32, text.len() as u32));
    }
}

fn eq_lower(term: &[u8], word: &[u8]) -> bool {
    term.len() == word.len()
        && term
            .iter()
            .zip(word)
            .all(|(a, b)| *a == b.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrome_words_and_their_exceptions() {
        for w in [
            "navbar", "nav", "sidebar", "footer", "cookie", "menu", "ads", "bottom",
        ] {
            assert!(chrome_word(w), "{w}");
        }
        for w in [
            "content", "article", "text", "left", "shared", "header", "title", "ad2x",
        ] {
            assert!(!chrome_word(w), "{w}");
        }
        let class = |v| attribute_hint(b"class", v);
        assert!(class("site-header").chrome);
        assert!(!class("entry-header").chrome, "the article's own header");
        assert!(class("widget-area sidebar").chrome);
        assert!(!class("text-left float-right").chrome, "utility classes");
        assert!(attribute_hint(b"role", "navigation").chrome);
        assert!(attribute_hint(b"role", "main").landmark);
        assert!(!attribute_hint(b"href", "nav.html").chrome);
    }

    #[test]
    fn zones_end_at_their_own_end_tag() {
        let mut z = ZoneStack::default();
        z.saw_open(b"div");
        z.push(b"div");
        for _ in 0..3 {
            z.saw_open(b"div");
        }
        for _ in 0..3 {
            z.saw_close(b"div");
            assert!(z.is_open());
        }
        z.saw_close(b"p");
        assert!(z.is_open());
        z.saw_close(b"div");
        assert!(!z.is_open());
        // An outer end tag closes inner zones (mis-nested HTML).
        z.push(b"section");
        z.saw_open(b"div");
        z.push(b"div");
        z.saw_close(b"section");
        assert!(!z.is_open());
    }

    #[test]
    fn landmarks_count_only_when_they_hold_enough() {
        let mut f = vec![Flags::LANDMARK; MIN_LANDMARK_TERMS];
        f.extend([0, Flags::CHROME, Flags::CHROME | Flags::LANDMARK]);
        assert_eq!(decide(&mut f, None), MIN_LANDMARK_TERMS);
        assert_eq!(
            f[MIN_LANDMARK_TERMS] & Flags::MAIN,
            0,
            "outside the landmark"
        );
        let mut g = vec![Flags::LANDMARK, 0, Flags::CHROME];
        assert_eq!(decide(&mut g, None), 2, "a small landmark is not a cue");
    }

    #[test]
    fn refreshes_and_soft_404_titles() {
        assert_eq!(refresh_delay("0; url=/new.html"), Some(0));
        assert_eq!(refresh_delay("0;URL='https://x/'"), Some(0));
        assert_eq!(refresh_delay("5, /x"), Some(5));
        assert_eq!(refresh_delay("300"), None, "a page that reloads itself");
        assert!(is_soft_404("Page not found | The Daily Ferris", 20));
        assert!(is_soft_404("404 - Oops", 20));
        assert!(is_soft_404("This page doesn't exist", 20));
        assert!(!is_soft_404("Page not found", 400), "a long page is a page");
        assert!(!is_soft_404("Found: the lost city", 20));
        assert!(!is_soft_404("HashMap in std::collections - Rust", 20));
    }

    #[test]
    fn words_cut_like_the_tokenizer() {
        let mut v = Vec::new();
        let s = "bestcars-online.example/a_b";
        words(s, &mut v);
        let w: Vec<&str> = v.iter().map(|&(a, b)| &s[a as usize..b as usize]).collect();
        assert_eq!(w, ["bestcars", "online", "example", "a", "b"]);
    }
}

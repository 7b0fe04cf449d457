//! Tokenizer rules, one test per rule of paper 003 section 2 and per extra the issue asks for.

use crate::{Document, Tokenizer, TokenizerConfig};

fn terms(html: &str) -> Vec<String> {
    terms_at(html, "http://www.example.com/dir/page.html")
}

fn terms_at(html: &str, url: &str) -> Vec<String> {
    let mut doc = Document::new();
    Tokenizer::default().html(html.as_bytes(), None, url, &mut doc);
    doc.terms().map(String::from).collect()
}

#[test]
fn markup_is_white_space_formatting_is_ignored() {
    assert_eq!(
        terms("one<br>two<p>three</p>four"),
        ["one", "two", "three", "four"]
    );
    assert_eq!(terms("mis<b>spell</b>ed <i>it</i>"), ["misspelled", "it"]);
    assert_eq!(terms("a<span class=x>b</span>c<div>d</div>"), ["abc", "d"]);
    assert_eq!(terms("<td>cell</td><td>next</td>"), ["cell", "next"]);
}

#[test]
fn maximal_alphanumeric_sequences_lowercased() {
    assert_eq!(
        terms("Hello, World! It's 2006-08-06."),
        ["hello", "world", "it", "s", "2006", "08", "06"]
    );
    assert_eq!(terms("ÉCOLE Straße naïve"), ["école", "straße", "naïve"]);
    assert_eq!(terms("Привет мир ΑΒΓ"), ["привет", "мир", "αβγ"]);
    assert_eq!(terms("x_y x-y x+y"), ["x", "y", "x", "y", "x", "y"]);
}

#[test]
fn urls_in_text_break_at_slashes_and_dots() {
    assert_eq!(
        terms("see http://www.cs.berkeley.edu/index.html now"),
        ["see", "http", "www", "cs", "berkeley", "edu", "index", "html", "now"]
    );
}

#[test]
fn img_url_is_a_term() {
    // Same host (relative or absolute): only the file name.
    assert_eq!(
        terms("a <img src=\"/images/Logo.GIF\"> b"),
        ["a", "logo.gif", "b"]
    );
    assert_eq!(
        terms("<IMG SRC='http://www.example.com/x/y.png?v=2'>"),
        ["y.png"]
    );
    assert_eq!(terms("<img src=pic.jpg>"), ["pic.jpg"]);
    // Another host: the whole URL.
    assert_eq!(
        terms("<img src=\"http://cdn.other.net/a/b.png\">"),
        ["http://cdn.other.net/a/b.png"]
    );
    assert_eq!(
        terms("<img src=\"//cdn.other.net/b.png\">"),
        ["//cdn.other.net/b.png"]
    );
    // Mirrored page with its images: identical tokens.
    let a = terms_at(
        "<p>t <img src=\"http://a.org/i/x.png\">",
        "http://a.org/p.html",
    );
    let b = terms_at(
        "<p>t <img src=\"http://b.org/i/x.png\">",
        "http://b.org/p.html",
    );
    assert_eq!(a, b);
    assert_eq!(terms("<img src=\"data:image/png;base64,AAA\">x"), ["x"]);
}

#[test]
fn scripts_styles_comments_dropped() {
    let html = "a<script>var x = '</b>'; y<z</script>b<style>p{color:red}</style>c\
                <!-- hidden words -->d<noscript>no js</noscript>e<SCRIPT type=x>q</Script >f";
    assert_eq!(terms(html), ["a", "b", "c", "d", "e", "f"]);
    assert_eq!(terms("x<!-- unterminated"), ["x"]);
    assert_eq!(terms("x<script>never closed"), ["x"]);
    assert_eq!(terms("<!DOCTYPE html><?xml x?>y"), ["y"]);
}

#[test]
fn entities_decoded() {
    assert_eq!(
        terms("caf&eacute; &amp; cr&#232;me &#x42;ig"),
        ["café", "crème", "big"]
    );
    assert_eq!(terms("a&nbsp;b&lt;c&gt;d"), ["a", "b", "c", "d"]);
    assert_eq!(terms("AT&T &unknown; &"), ["at", "t", "unknown"]);
}

#[test]
fn attributes_with_gt_inside_quotes() {
    assert_eq!(
        terms("<a title=\"x > y\" href=\"/z\">link</a> text"),
        ["link", "text"]
    );
    assert_eq!(terms("<p class=a>ok</p><unclosed"), ["ok"]);
    assert_eq!(terms("1 < 2 and 3 <4"), ["1", "2", "and", "3", "4"]);
}

#[test]
fn cjk_characters_are_terms() {
    assert_eq!(
        terms("東京タワー is tall"),
        ["東", "京", "タ", "ワ", "ー", "is", "tall"]
    );
    assert_eq!(terms("한국어 텍스트"), ["한국어", "텍스트"]);
}

#[test]
fn title_links_and_base() {
    let mut doc = Document::new();
    let tok = Tokenizer::new(TokenizerConfig {
        links: true,
        ..Default::default()
    });
    let html = "<html><head><title> The   &amp; Title </title><base href=\"/base/\"></head>\
                <a href=\"x.html#frag\">x</a><a href='http://Other.ORG:80/'>o</a>\
                <a href=\"mailto:a@b.c\">m</a><a href=\"#top\">t</a><area href=\"../up.html\">\
                <a href=\"?q=1&amp;r=2\">q</a>";
    tok.html(html.as_bytes(), None, "http://h.com/dir/p.html", &mut doc);
    assert_eq!(doc.title(), "The & Title");
    let links: Vec<&str> = doc.links().collect();
    assert_eq!(
        links,
        [
            "http://h.com/base/x.html",
            "http://other.org/",
            "http://h.com/up.html",
            "http://h.com/base/?q=1&r=2"
        ]
    );
    assert_eq!(doc.raw_link_count(), 6);
}

#[test]
fn line_sentence_paragraph_boundaries() {
    let mut doc = Document::new();
    let tok = Tokenizer::default();
    tok.html(
        b"<p>First sentence. Second one! www.x.com stays</p><p>New para<br>new line</p>",
        None,
        "",
        &mut doc,
    );
    let t: Vec<&str> = doc.terms().collect();
    assert_eq!(
        t,
        [
            "first", "sentence", "second", "one", "www", "x", "com", "stays", "new", "para", "new",
            "line"
        ]
    );
    assert_eq!(doc.paragraphs(), [0, 8]);
    assert_eq!(doc.lines(), [0, 8, 10]);
    assert_eq!(doc.sentences(), [0, 2, 4, 8]);

    tok.text("line one\nline two\n\npara two. Next", &mut doc);
    assert_eq!(doc.lines(), [0, 2, 4]);
    assert_eq!(doc.paragraphs(), [0, 4]);
    assert_eq!(doc.sentences(), [0, 4, 6]);

    tok.html(b"<pre>\na\nb\n\nc</pre>d", None, "", &mut doc);
    assert_eq!(doc.lines(), [0, 1, 2, 3]);
    assert_eq!(doc.paragraphs(), [0, 2, 3]);
}

#[test]
fn charset_from_meta_and_detection() {
    let mut doc = Document::new();
    let tok = Tokenizer::default();
    tok.html(
        b"<meta charset=windows-1252><p>caf\xe9 na\xefve",
        None,
        "",
        &mut doc,
    );
    assert_eq!(doc.terms().collect::<Vec<_>>(), ["café", "naïve"]);
    tok.html(
        b"<p>bad \xff\xfe bytes",
        Some(b"text/html; charset=utf-8"),
        "",
        &mut doc,
    );
    assert_eq!(doc.terms().collect::<Vec<_>>(), ["bad", "bytes"]);
}

#[test]
fn buffers_are_reused() {
    let mut doc = Document::new();
    let tok = Tokenizer::default();
    tok.html(b"<p>one two three", None, "", &mut doc);
    let cap = doc.terms.capacity();
    tok.html(b"<p>four", None, "", &mut doc);
    assert_eq!(doc.terms().collect::<Vec<_>>(), ["four"]);
    assert_eq!(doc.terms.capacity(), cap);
    assert_eq!(doc.lines(), [0]);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let mut doc = Document::new();
            let tok = Tokenizer::new(TokenizerConfig { links: true, img_terms: true });
            tok.html(&bytes, None, "http://a.b/c", &mut doc);
            // Invariants: every term non-empty; boundaries sorted, within range.
            for t in doc.terms() { prop_assert!(!t.is_empty()); }
            for b in [doc.lines(), doc.sentences(), doc.paragraphs()] {
                prop_assert!(b.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(b.iter().all(|&i| (i as usize) < doc.len()));
                prop_assert_eq!(b.is_empty(), doc.is_empty());
            }
        }

        #[test]
        fn never_panics_on_tag_soup(s in "(<[a-z/!?]{0,3}[ a-z=\"'>&#;0-9]{0,8}|[a-zA-Z .é東]{0,5})*") {
            let mut doc = Document::new();
            Tokenizer::default().html(s.as_bytes(), None, "", &mut doc);
            for t in doc.terms() {
                prop_assert!(t.chars().all(|c| c.is_alphanumeric() || c == '.'), "{t:?}");
            }
        }

        #[test]
        fn plain_text_terms_are_alnum_runs(s in "\\PC{0,200}") {
            let mut doc = Document::new();
            Tokenizer::default().text(&s, &mut doc);
            let expect: Vec<String> = s
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .flat_map(|w| {
                    // CJK splits into single characters.
                    let mut out = Vec::new();
                    let mut cur = String::new();
                    for c in w.chars() {
                        if crate::is_unsegmented_cjk(c) {
                            if !cur.is_empty() { out.push(std::mem::take(&mut cur)); }
                            out.push(c.to_lowercase().collect());
                        } else {
                            cur.extend(c.to_lowercase());
                        }
                    }
                    if !cur.is_empty() { out.push(cur); }
                    out
                })
                .collect();
            let got: Vec<String> = doc.terms().map(String::from).collect();
            prop_assert_eq!(got, expect);
        }
    }
}

// ---- main content and names (issue 16) ---------------------------------------------------

fn signature(html: &str, url: &str) -> (Vec<String>, Document) {
    let mut doc = Document::new();
    Tokenizer::default().html(html.as_bytes(), None, url, &mut doc);
    let t = doc
        .signature_terms(crate::Scope::Main)
        .map(|t| {
            if t == crate::NAME_TERM {
                "<name>".to_string()
            } else {
                t.to_string()
            }
        })
        .collect();
    (t, doc)
}

const ARTICLE: &str = "The committee met on Tuesday to discuss the budget for the new library, \
    and after a long debate it agreed to fund the reading room and the archive.";

#[test]
fn landmarks_and_chrome_elements_are_left_out() {
    let html = format!(
        "<header><a href=/>Home</a> Site name</header><nav><a href=/a>World</a> <a href=/b>Sport</a></nav>\
         <main><h1>Budget agreed</h1><p>{ARTICLE}</p></main><aside>Most read today</aside>\
         <footer>Copyright the paper</footer>"
    );
    let (t, doc) = signature(&html, "https://paper.example/news/1");
    assert_eq!(t.first().map(String::as_str), Some("budget"));
    assert_eq!(t.last().map(String::as_str), Some("archive"));
    assert!(doc.uses_main(crate::Scope::Main));
    assert!(doc.main_len() < doc.len());
    // Scope::Page is every term, as before.
    let all: Vec<&str> = doc.signature_terms(crate::Scope::Page).collect();
    assert_eq!(all, doc.terms().collect::<Vec<_>>());
}

#[test]
fn class_and_id_names_mark_chrome_but_not_the_articles_own_header() {
    let html = format!(
        "<div class=\"site-header\">The Paper</div><div id=\"sidebar\">Weather sunny</div>\
         <div class=\"entry-header\"><h1>Budget agreed</h1></div><div class=\"content\"><p>{ARTICLE}</p></div>\
         <div class=\"cookie-banner\">We use cookies</div>"
    );
    let (t, _) = signature(&html, "https://paper.example/news/1");
    assert_eq!(t[..2], ["budget", "agreed"]);
    for w in ["paper", "weather", "cookies"] {
        assert!(!t.iter().any(|x| x == w), "{w} in {t:?}");
    }
}

#[test]
fn link_dense_blocks_are_chrome_and_text_with_a_link_is_not() {
    let html = format!(
        "<div><a href=/1>Ferris wins</a><br><a href=/2>Crabs return</a> |</div>\
         <p>{ARTICLE} See <a href=/r>the report</a>.</p>"
    );
    let (t, _) = signature(&html, "https://paper.example/news/1");
    assert_eq!(t[0], "the");
    assert!(t.ends_with(&["see".into(), "the".into(), "report".into()]));
    assert!(!t.iter().any(|x| x == "ferris" || x == "crabs"));
}

#[test]
fn small_main_content_stands_for_nothing_the_page_is_used() {
    let (t, doc) = signature(
        "<nav><a href=/a>Alpha</a> <a href=/b>Beta</a> <a href=/c>Gamma</a></nav><p>Hi there</p>",
        "https://x.example/",
    );
    assert!(!doc.uses_main(crate::Scope::Main));
    assert_eq!(t, ["alpha", "beta", "gamma", "hi", "there"]);
}

#[test]
fn unclosed_list_items_do_not_open_zones_that_never_end() {
    let html = format!("<ul><li class=menu-item>A<li class=menu-item>B</ul><p>{ARTICLE}</p>");
    let (t, _) = signature(&html, "https://x.example/");
    assert!(t.iter().any(|x| x == "archive"), "{t:?}");
}

#[test]
fn names_are_one_term_domains_own_host_label_and_path() {
    // A domain name in the text; the page's own registered label as words.
    let (t, _) = signature(
        "<p>Welcome to bestcars-online.example, the home of Bestcars Online deals. \
         Visit www.other-site.com or docs.rust-lang.org today, but main.rs and self.is stay.</p>",
        "https://www.bestcars-online.example/",
    );
    assert_eq!(
        t.join(" "),
        "welcome to <name> the home of <name> deals visit <name> or <name> today but main rs and self is stay"
    );
    // A URL in the text is one name: scheme, domain and path.
    let (t, _) = signature(
        "<p>Read online: https://www.paper.example/news/2026/budget-agreed?ref=print today.</p>",
        "https://x.example/print/1",
    );
    assert_eq!(t.join(" "), "read online <name> today");
    // The own path, three terms or more.
    let (t, _) = signature(
        "<p>This page lives at news 2026 budget agreed and nowhere else.</p>",
        "https://x.example/news/2026/budget-agreed",
    );
    assert_eq!(t.join(" "), "this page lives at <name> and nowhere else");
    // Parked domains: one template, each host's name in it, the same signature terms.
    let parked = |host: &str| {
        signature(
            &format!("<title>{host} is for sale</title><h1>{host}</h1><p>The domain {host} may be for sale.</p>"),
            &format!("https://{host}/"),
        )
        .0
    };
    assert_eq!(
        parked("cheapflights-online.example"),
        parked("yogastudio-hub.example")
    );
}

#[test]
fn redirect_stubs_and_soft_404s_are_recognised() {
    let mut doc = Document::new();
    let tok = Tokenizer::default();
    tok.html(
        b"<html><head><meta http-equiv=\"refresh\" content=\"0;URL=../new.html\"></head><body>Redirecting to <a href=../new.html>new</a></body></html>",
        None,
        "https://x.example/old.html",
        &mut doc,
    );
    assert_eq!(doc.redirect_delay(), Some(0));
    tok.html(
        b"<meta http-equiv=refresh content=300><p>Live scores</p>",
        None,
        "https://x.example/",
        &mut doc,
    );
    assert_eq!(doc.redirect_delay(), None, "a page that reloads itself");
    tok.html(
        b"<title>Page not found | Paper</title><p>Sorry.</p>",
        None,
        "https://x.example/",
        &mut doc,
    );
    assert!(doc.is_soft_404());
    tok.html(
        b"<title>Found: a lost city</title><p>Sorry.</p>",
        None,
        "https://x.example/",
        &mut doc,
    );
    assert!(!doc.is_soft_404());
}

const FOOTER: &str = "The Paper is an independent newsroom funded by its readers. We report on \
    the people and places of our region, and we correct our mistakes in public.";

#[test]
fn the_container_of_the_only_headline_is_the_main_content_of_pages_without_telling_markup() {
    let html = format!(
        "<div><div><h1>Budget agreed</h1><p>{ARTICLE}</p></div></div>\
         <div><p>{FOOTER}</p><p>Copyright the paper</p></div>"
    );
    let (t, doc) = signature(&html, "https://paper.example/news/1");
    assert_eq!(t.first().map(String::as_str), Some("budget"));
    assert_eq!(t.last().map(String::as_str), Some("archive"));
    assert!(doc.uses_main(crate::Scope::Main));

    // Two headlines: no headline, the whole page.
    let two = format!("<div><h1>A</h1><p>{ARTICLE}</p></div><div><h1>B</h1><p>{FOOTER}</p></div>");
    let (t, _) = signature(&two, "https://paper.example/news/1");
    assert!(t.iter().any(|x| x == "newsroom"), "{t:?}");

    // A headline in a small box (the site's name): too few terms to stand for the page.
    let small = format!("<div><h1>The Paper</h1></div><div><p>{ARTICLE}</p><p>{FOOTER}</p></div>");
    let (t, _) = signature(&small, "https://paper.example/news/1");
    assert!(t.iter().any(|x| x == "archive") && t.iter().any(|x| x == "newsroom"));

    // A landmark wins over the headline; an unclosed container runs to the end of the page.
    let open = format!("<div><h1>Budget agreed</h1><p>{ARTICLE}<div><p>{FOOTER}");
    let (t, _) = signature(&open, "https://paper.example/news/1");
    assert!(t.iter().any(|x| x == "newsroom"));
    let landmark =
        format!("<main><p>{FOOTER}</p></main><div><h1>Budget agreed</h1><p>{ARTICLE}</p></div>");
    let (t, _) = signature(&landmark, "https://paper.example/news/1");
    assert_eq!(t.first().map(String::as_str), Some("the"));
    assert!(!t.iter().any(|x| x == "budget"), "{t:?}");
}

proptest::proptest! {
    /// Outside preformatted text a run of white space reads as its first character: markup
    /// with every space doubled tokenizes as it was (terms, flags, boundaries, title).
    #[test]
    fn white_space_after_white_space_changes_nothing(
        parts in proptest::collection::vec(proptest::sample::select(vec![
            "word", "Two", " ", "\n", "\t", ".", "! ", "<b>", "</b>", "<p>", "<div class=\"nav\">",
            "</div>", "<title>", "</title>", "<a href=\"/x\">", "</a>", "&amp;", "é", "3.5",
        ]), 0..40),
    ) {
        let html: String = parts.concat();
        let doubled = html.replace(' ', "  ").replace('\n', "\n\t");
        let tok = Tokenizer::default();
        let (mut a, mut b) = (Document::new(), Document::new());
        tok.html_str(&html, "https://a.example/p", &mut a);
        tok.html_str(&doubled, "https://a.example/p", &mut b);
        proptest::prop_assert_eq!(
            (&a.terms, &a.ends, &a.flags, &a.lines, &a.sentences, &a.paragraphs, &a.title, a.main_len),
            (&b.terms, &b.ends, &b.flags, &b.lines, &b.sentences, &b.paragraphs, &b.title, b.main_len)
        );
    }
}

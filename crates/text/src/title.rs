//! What a page's title says it is about ([`TitleKey`]): the segments that tell two pages of
//! one template apart, with versions and release names set aside.

/// What a page's title says it is about, for telling two pages of one template apart: the
/// 32-bit hashes of up to four segments of the title, longest first. Segments are the parts
/// between separators (` - `, ` | `, ` — `, ` – `, ` · `, ` :: `, ` » `, ` : `, `(`), each
/// lowercased to its words, with domain names as one word; empty segments are dropped. All
/// zeros when the page has no title.
///
/// Words that name a version or a release rather than an item are left out, so that one item
/// in two releases keeps its key: numbers (`1.0.228` is three), a `v` with a number (`v2`),
/// and, with [`TitleKey::of_page`], the name of the first folder of the page's URL path (of two
/// letters or more), where
/// sites put a release, an edition or a language (`borealis` in `/borealis/serde`, `std` in
/// `/std/str/struct.Chars.html`, whose item `core` re-exports); deeper folders name parts of
/// the site, which tell items apart (`option` and `result` in `/std/option/struct.Iter.html`
/// and `/std/result/struct.Iter.html`). A version's build metadata goes with it
/// (`1.1.2+spec-1.1.0`); any other `+` belongs to its word: `libfoo++` and `libfoo` are two
/// items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TitleKey(pub [u32; 4]);

impl TitleKey {
    /// The key of a title.
    pub fn of(title: &str) -> TitleKey {
        TitleKey::of_page(title, "")
    }

    /// The key of the title of the page at `page_url`: its path's first folder is no item.
    pub fn of_page(title: &str, page_url: &str) -> TitleKey {
        // The first folder of the path (`/borealis/serde`), when the path has a folder.
        let path = crate::url::path_of(page_url);
        let inner = path.strip_prefix('/').unwrap_or(path);
        let folder = inner.split_once('/').map_or("", |(first, _)| first);
        // Words of one letter are no release name: `/t/` holds a forum's topics, `/r/` a
        // board, and `-t` or `T` in a title is the item's own.
        let is_folder_word = |w: &str| {
            folder.split(|c: char| !c.is_alphanumeric()).any(|f| {
                f.chars().nth(1).is_some() && f.len() == w.len() && w.eq_ignore_ascii_case(f)
            })
        };
        const SEPARATORS: &[&str] = &[" - ", " | ", " — ", " – ", " · ", " :: ", " » ", ": ", "("];
        let mut segs: [(u32, usize); 8] = [(0, 0); 8];
        let mut n = 0;
        let mut rest = title;
        while !rest.is_empty() && n < segs.len() {
            let cut = SEPARATORS
                .iter()
                .filter_map(|s| rest.find(s).map(|i| (i, s.len())))
                .min();
            let (seg, next) = match cut {
                Some((i, len)) => (&rest[..i], &rest[i + len..]),
                None => (rest, ""),
            };
            let (h, words) = segment_hash(seg, &is_folder_word);
            if words > 0 && !segs[..n].iter().any(|s| s.0 == h) {
                segs[n] = (h, words);
                n += 1;
            }
            rest = next;
        }
        // Longest first (by words), earlier first among equals.
        let mut order: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
        order[..n].sort_by_key(|&i| (std::cmp::Reverse(segs[i].1), i));
        let mut key = [0u32; 4];
        for (k, &i) in order[..n.min(4)].iter().enumerate() {
            key[k] = segs[i].0;
        }
        TitleKey(key)
    }

    /// True when the page had a title.
    pub fn is_some(&self) -> bool {
        self.0[0] != 0
    }

    /// The segment hashes (at most four, longest first).
    pub fn segments(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied().take_while(|&h| h != 0)
    }
}

/// FNV-1a over the words of a title segment (lowercased, joined by one space; a word with dots
/// inside, `bestcars-online.example`, counts as a name), and the number of words. Versions
/// and the words `skip` names are left out ([`TitleKey`]).
fn segment_hash(seg: &str, skip: &dyn Fn(&str) -> bool) -> (u32, usize) {
    let mut h: u32 = 0x811c_9dc5;
    let mut words = 0;
    for raw in seg.split_whitespace() {
        let is_name = raw
            .trim_matches(|c: char| !c.is_alphanumeric())
            .contains('.')
            && raw.rsplit('.').next().is_some_and(|tld| {
                let t = tld.trim_matches(|c: char| !c.is_alphanumeric());
                t.len() >= 2 && t.bytes().all(|b| b.is_ascii_alphabetic())
            });
        let mut feed = |b: u8| {
            h ^= b as u32;
            h = h.wrapping_mul(0x0100_0193);
        };
        if is_name {
            if words > 0 {
                feed(b' ');
            }
            for b in crate::NAME_TERM.bytes() {
                feed(b);
            }
            words += 1;
            continue;
        }
        let (head, tail) = without_build_metadata(raw);
        for w in head
            .split(|c: char| !c.is_alphanumeric() && c != '+')
            .chain(tail.split(|c: char| !c.is_alphanumeric() && c != '+'))
            .filter(|w| w.chars().any(char::is_alphanumeric) && !is_version_word(w) && !skip(w))
        {
            if words > 0 {
                feed(b' ');
            }
            for c in w.chars().flat_map(char::to_lowercase) {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    feed(b);
                }
            }
            words += 1;
        }
    }
    (if words == 0 { 0 } else { h.max(1) }, words)
}

/// A title word split around the build metadata of a version it holds, which is left out:
/// semantic versioning's `+` after a dotted version and the dot-separated identifiers after it
/// (`wasi-0.11.1+wasi-snapshot-preview1`, `toml 1.1.2+spec-1.1.0`, `zstd-sys 2.1.3+zstd.1.5.7`).
/// A `+` after anything else belongs to its word (`libfoo++`, `c++17`).
fn without_build_metadata(raw: &str) -> (&str, &str) {
    let bytes = raw.as_bytes();
    for (i, _) in raw.match_indices('+') {
        // A dotted version ends here: digits, a dot, digits.
        let before = &bytes[..i];
        let last = before
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let rest = &before[..before.len() - last];
        let dotted = last > 0
            && rest.last() == Some(&b'.')
            && rest[..rest.len() - 1]
                .last()
                .is_some_and(|b| b.is_ascii_digit());
        let meta = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'.' || **b == b'-')
            .count();
        if dotted && meta > 0 {
            return (&raw[..i], &raw[i + 1 + meta..]);
        }
    }
    (raw, "")
}

/// A title word that names a version, not an item: digits (`2024`, each part of `1.0.3`), or
/// `v` and digits (`v2`).
fn is_version_word(w: &str) -> bool {
    let digits = w.strip_prefix(['v', 'V']).unwrap_or(w);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_keys_know_versions_from_items() {
        let key = TitleKey::of;
        assert_eq!(key("serde 1.0.228 - Crates"), key("serde 1.0.219 - Crates"));
        assert_eq!(key("serde v1.0 | Crates"), key("serde v2 | Crates"));
        assert_ne!(key("libfoo-dev - Packages"), key("libfoo++-dev - Packages"));
        assert_eq!(
            key("wasi-0.11.1+wasi-snapshot-preview1 · Lib Shelf"),
            key("wasi-0.11.0 · Lib Shelf"),
            "semantic versioning's build metadata is part of the version"
        );
        assert_eq!(
            key("toml 1.1.2+spec-1.1.0 - Crates"),
            key("toml 1.1.1 - Crates")
        );
        assert_eq!(
            key("Hub :: wasip2 v1.0.4+wasi-0.2.12"),
            key("Hub :: wasip2 v1.0.2")
        );
        assert_ne!(
            key("c++17 - Docs"),
            key("c17 - Docs"),
            "a + after no version"
        );
        assert_ne!(key("gtk+ 3 - Docs"), key("gtk 3 - Docs"));
        assert_ne!(key("libfoo-dev - Packages"), key("libfoo-doc - Packages"));
        assert_ne!(
            key("gtk2 - Packages"),
            key("gtk3 - Packages"),
            "a number in a name"
        );
        assert!(!key("2024").is_some(), "a title of numbers names nothing");
        let page = TitleKey::of_page;
        assert_eq!(
            page(
                "serde-1.0.228 [borealis]",
                "https://p.example/borealis/serde"
            ),
            page("serde-1.0.219 [aurora]", "https://p.example/aurora/serde"),
            "a release the path varies by"
        );
        assert_eq!(
            page(
                "-t, --target-directory=KATALOG - The Guide",
                "https://g.example/core/pl/help-52"
            )
            .0[0],
            page(
                "-t, --target-directory=KATALOG - Dev Forum",
                "https://forum.example/t/help-52-pl/3386"
            )
            .0[0],
            "a folder of one letter names no release"
        );
        assert_ne!(
            page("serde [borealis]", "https://p.example/pkg/serde?r=borealis"),
            page("serde [aurora]", "https://p.example/pkg/serde?r=aurora"),
            "only folders of the path"
        );
        assert_eq!(
            page(
                "Chars in std::str - Rust",
                "https://d.example/std/str/struct.Chars.html"
            ),
            page(
                "Chars in core::str - Rust",
                "https://d.example/core/str/struct.Chars.html"
            ),
        );
        assert_ne!(
            page(
                "Iter in std::option - Rust",
                "https://d.example/std/option/struct.Iter.html"
            ),
            page(
                "Iter in std::result - Rust",
                "https://d.example/std/result/struct.Iter.html"
            ),
            "deeper folders tell items apart"
        );
        assert_ne!(
            page(
                "Chars in std::str - Rust",
                "https://d.example/std/str/struct.Chars.html"
            ),
            page(
                "RSplit in std::str - Rust",
                "https://d.example/std/str/struct.RSplit.html"
            ),
        );
    }

    #[test]
    fn title_segments_longest_first_names_as_one_word() {
        let k = TitleKey::of;
        let seg = |t: &str| k(t).segments().collect::<Vec<_>>();
        assert_eq!(
            seg("Budget agreed | The Paper")[0],
            seg("Budget  AGREED (print)")[0]
        );
        assert_eq!(
            seg("Chars in std::str - Rust").len(),
            2,
            "a path is one segment"
        );
        assert_ne!(
            seg("Chars in std - Rust")[0],
            seg("RSplit in std - Rust")[0]
        );
        assert_eq!(
            seg("bestcars-online.example - This domain may be for sale"),
            seg("yoga-hub.example - This domain may be for sale")
        );
        assert!(!k(" | - ").is_some());
        assert_eq!(k("a - a - b").segments().count(), 2, "each segment once");
    }
}

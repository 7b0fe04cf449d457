//! URLs in attributes: outlinks (`a`/`area` href, `frame`/`iframe` src, resolved against the
//! page URL and `<base href>`), the base itself, and the IMG terms of Henzinger's exception (2).

use super::Run;
use crate::entities;

impl Run<'_, '_> {
    /// A URL attribute (`href`, `src`) of `tag`: a link, an IMG term or the page's base.
    pub(super) fn url_attribute(&mut self, tag: &[u8], raw: &str) {
        let decoded;
        let value = if raw.contains('&') {
            decoded = decode_attr(raw);
            decoded.as_str()
        } else {
            raw
        };
        let value = value.trim();
        match tag {
            b"img" => {
                if self.tok.config.img_terms {
                    self.img_term(value);
                }
            }
            b"base" => {
                if self.base.is_none() && !self.base_failed {
                    let page = url::Url::parse(self.page_url).ok();
                    self.base = match page {
                        Some(p) => p.join(value).ok(),
                        None => url::Url::parse(value).ok(),
                    };
                    self.base_failed = self.base.is_none();
                }
            }
            b"link" => {}
            _ => {
                self.doc.raw_links += 1;
                if self.tok.config.links {
                    self.link(value);
                }
            }
        }
    }

    fn link(&mut self, href: &str) {
        if self.base.is_none() && !self.base_failed {
            self.base = url::Url::parse(self.page_url).ok();
            self.base_failed = self.base.is_none();
        }
        let resolved = match &self.base {
            Some(base) => crate::url::resolve_link(base, href),
            None => url::Url::parse(href)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .map(|mut u| {
                    u.set_fragment(None);
                    u
                }),
        };
        if let Some(mut u) = resolved {
            crate::url::canonicalize(&mut u);
            self.doc.push_link(u.as_str());
        }
    }

    /// Henzinger's exception (2): the whole URL if it is on another host, else the file name.
    fn img_term(&mut self, src: &str) {
        if src.is_empty() || src.starts_with("data:") {
            return;
        }
        let other_host = if let Some(rest) = src.strip_prefix("//") {
            let host_end = rest.find(['/', '?', '#', ':']).unwrap_or(rest.len());
            Some(&rest[..host_end])
        } else {
            crate::url::host_span(src).map(|(s, e)| &src[s..e])
        };
        let same = match (other_host, self.page_host) {
            (None, _) => true,
            (Some(h), Some((s, e))) => h.eq_ignore_ascii_case(&self.page_url[s..e]),
            (Some(_), None) => false,
        };
        if same {
            let path_end = src.find(['?', '#']).unwrap_or(src.len());
            let path = &src[..path_end];
            let file = path.rsplit('/').next().unwrap_or("");
            self.whole_term(file);
        } else {
            self.whole_term(src);
        }
    }
}

/// An attribute value with its character references decoded.
fn decode_attr(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'&' {
            if let Some((c, used)) = entities::decode_at(&bytes[i..]) {
                out.push(c);
                i += used;
                continue;
            }
        }
        let c = raw[i..].chars().next().unwrap_or('\u{FFFD}');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

//! URL and site rules: host extraction, Henzinger's site, the registered domain, and link
//! resolution/normalization.
//!
//! Host extraction is a small hand-written parser so that it costs nothing per page; resolving
//! relative links uses the `url` crate (WHATWG URL standard) and is only done when links are asked
//! for.

/// The host of an absolute URL, lowercased, without userinfo, port or trailing dot.
///
/// Returns `None` when `url` has no `scheme://authority` part.
///
/// ```
/// assert_eq!(neardup_text::host_of("HTTP://User@WWW.Example.com:8080/a?b"), Some("www.example.com".to_string()));
/// assert_eq!(neardup_text::host_of("/relative/path"), None);
/// ```
pub fn host_of(url: &str) -> Option<String> {
    let (start, end) = host_span(url)?;
    let mut host = url[start..end].to_ascii_lowercase();
    if host.ends_with('.') {
        host.pop();
    }
    Some(host)
}

/// Byte span of the host in `url` (no allocation); see [`host_of`].
pub fn host_span(url: &str) -> Option<(usize, usize)> {
    let sep = url.find("://")?;
    let scheme = &url[..sep];
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
    {
        return None;
    }
    let rest_start = sep + 3;
    let rest = &url[rest_start..];
    let auth_end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let auth = &rest[..auth_end];
    let host_start = auth.rfind('@').map_or(0, |i| i + 1);
    let hostport = &auth[host_start..];
    let host_len = if hostport.starts_with('[') {
        hostport.find(']').map_or(hostport.len(), |i| i + 1)
    } else {
        hostport.find(':').unwrap_or(hostport.len())
    };
    if host_len == 0 {
        return None;
    }
    let s = rest_start + host_start;
    Some((s, s + host_len))
}

/// True when `host` is an IPv4 or bracketed IPv6 literal.
pub fn is_ip_literal(host: &str) -> bool {
    host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok()
}

/// Henzinger's site of a host (paper 003, section 2): the host itself when it has at most one
/// dot; otherwise the host minus everything up to and including the first dot. IP literals are
/// their own site (the rule is about domain names).
///
/// ```
/// assert_eq!(neardup_text::henzinger_site("www.cs.berkeley.edu"), "cs.berkeley.edu");
/// assert_eq!(neardup_text::henzinger_site("example.com"), "example.com");
/// ```
pub fn henzinger_site(host: &str) -> &str {
    if is_ip_literal(host) {
        return host;
    }
    let dots = host.bytes().filter(|&b| b == b'.').count();
    if dots <= 1 {
        host
    } else {
        &host[host.find('.').map_or(0, |i| i + 1)..]
    }
}

/// The registered domain of a host (public suffix list + one label), e.g. `bbc.co.uk` for
/// `news.bbc.co.uk`. Hosts that are a public suffix themselves, IP literals and hosts the list does
/// not know return the host unchanged.
///
/// ```
/// assert_eq!(neardup_text::registered_domain("news.bbc.co.uk"), "bbc.co.uk");
/// assert_eq!(neardup_text::registered_domain("doc.rust-lang.org"), "rust-lang.org");
/// ```
pub fn registered_domain(host: &str) -> &str {
    if is_ip_literal(host) {
        return host;
    }
    match psl::domain(host.as_bytes()) {
        Some(d) => {
            let n = d.as_bytes().len();
            &host[host.len() - n..]
        }
        None => host,
    }
}

/// The path of an absolute URL as written: from the `/` after the host to the query or
/// fragment (empty when there is no path, or no host).
pub(crate) fn path_of(url: &str) -> &str {
    let Some((_, he)) = host_span(url) else {
        return "";
    };
    let rest = &url[he..];
    let rest = &rest[rest.find('/').unwrap_or(rest.len())..];
    &rest[..rest.find(['?', '#']).unwrap_or(rest.len())]
}

/// Resolves `href` against `base` and normalizes it: WHATWG parsing (lowercased scheme and host,
/// default port dropped, dot segments removed, percent-encoding normalized), fragment removed.
/// Only `http` and `https` links are returned.
pub fn resolve_link(base: &url::Url, href: &str) -> Option<url::Url> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let mut u = base.join(href).ok()?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    u.set_fragment(None);
    Some(u)
}

/// Normalizes an absolute URL the same way [`resolve_link`] normalizes links, so that page URLs
/// and link targets compare equal. Returns `None` for URLs that do not parse.
pub fn normalize_url(u: &str) -> Option<String> {
    let mut u = url::Url::parse(u.trim()).ok()?;
    u.set_fragment(None);
    Some(u.into())
}

/// A link as it names a page, for comparing links (paper 000's hyperlink maps): the URL
/// normalized as [`normalize_url`] does, then without what names a visit rather than a page:
/// session ids (`;jsessionid=...` path parameters; `sid`, `sessionid`, `session_id`,
/// `jsessionid`, `phpsessid`, `aspsessionid...`, `cfid`, `cftoken` query parameters), tracking
/// parameters (`utm_...`, `gclid`, `dclid`, `fbclid`, `msclkid`, `yclid`, `mc_cid`, `mc_eid`,
/// `_ga`, `_gl`), a leading `www.` of the host and the order of the remaining query
/// parameters. `None` for URLs that do not parse.
pub fn canonical_link(u: &str) -> Option<String> {
    let mut u = url::Url::parse(u.trim()).ok()?;
    canonicalize(&mut u);
    Some(u.into())
}

/// [`canonical_link`] on a parsed URL, in place (the tokenizer's resolved links).
pub(crate) fn canonicalize(u: &mut url::Url) {
    u.set_fragment(None);
    if let Some(bare) = u.host_str().and_then(|h| h.strip_prefix("www.")) {
        if bare.contains('.') {
            let bare = bare.to_string();
            // A host that parsed with `www.` parses without it; on the off chance it does not,
            // the link keeps its host.
            let _ = u.set_host(Some(&bare));
        }
    }
    // `;jsessionid=...` and other `;name=value` session parameters inside path segments.
    if u.path().contains(';') {
        let path: Vec<String> = u
            .path()
            .split('/')
            .map(|seg| match seg.split_once(';') {
                Some((keep, params)) if params.split(';').any(is_session_param) => keep.into(),
                _ => seg.into(),
            })
            .collect();
        u.set_path(&path.join("/"));
    }
    if u.query().is_some() {
        let mut kept: Vec<(String, String)> = u
            .query_pairs()
            .filter(|(k, _)| !is_visit_param(k))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            u.set_query(None);
        } else {
            kept.sort();
            u.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
}

/// A query parameter that names a visit (a session, a campaign, a click), not a page.
fn is_visit_param(name: &str) -> bool {
    let starts = |p: &str| {
        name.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    };
    starts("utm_")
        || starts("aspsessionid")
        || [
            "sid",
            "sessionid",
            "session_id",
            "jsessionid",
            "phpsessid",
            "cfid",
            "cftoken",
            "gclid",
            "dclid",
            "fbclid",
            "msclkid",
            "yclid",
            "mc_cid",
            "mc_eid",
            "_ga",
            "_gl",
        ]
        .iter()
        .any(|v| name.eq_ignore_ascii_case(v))
}

/// A `name=value` path parameter that holds a session (`jsessionid=...`).
fn is_session_param(param: &str) -> bool {
    let name = param.split_once('=').map_or(param, |(k, _)| k);
    is_visit_param(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_links_name_the_page_not_the_visit() {
        let c = |u| canonical_link(u).unwrap();
        let page = c("https://example.com/a/b.html");
        for visit in [
            "https://www.example.com/a/b.html",
            "https://example.com/a/b.html?sid=f5e416f69bd47f53",
            "https://example.com/a/b.html;jsessionid=0A1B2C?",
            "https://EXAMPLE.com:443/a/b.html?utm_source=feed&utm_medium=rss#top",
            "https://example.com/a/b.html?PHPSESSID=x&fbclid=y&gclid=z",
        ] {
            assert_eq!(c(visit), page, "{visit}");
        }
        // What names another page stays.
        assert_eq!(
            c("https://example.com/a?b=2&a=1"),
            c("https://example.com/a?a=1&b=2")
        );
        assert_ne!(
            c("https://example.com/a?id=1"),
            c("https://example.com/a?id=2")
        );
        assert_ne!(
            c("https://example.com/a?ref=main"),
            c("https://example.com/a")
        );
        assert_eq!(
            c("https://www.com/x"),
            "https://www.com/x",
            "a host that is only www."
        );
        assert_eq!(canonical_link("not a url"), None);
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://a.b.c/x").as_deref(), Some("a.b.c"));
        assert_eq!(host_of("https://a.b.c").as_deref(), Some("a.b.c"));
        assert_eq!(host_of("https://a.b.c.:80?x").as_deref(), Some("a.b.c"));
        assert_eq!(host_of("http://[::1]:80/").as_deref(), Some("[::1]"));
        assert_eq!(host_of("mailto:x@y"), None);
        assert_eq!(host_of("http:///x"), None);
        assert_eq!(host_of("://x"), None);
        assert_eq!(path_of("https://a.b:8080/x/y?q#f"), "/x/y");
        assert_eq!(path_of("not a url"), "");
    }

    #[test]
    fn sites() {
        assert_eq!(henzinger_site("www.cs.berkeley.edu"), "cs.berkeley.edu");
        assert_eq!(henzinger_site("berkeley.edu"), "berkeley.edu");
        assert_eq!(henzinger_site("localhost"), "localhost");
        assert_eq!(henzinger_site("a.b.c.d"), "b.c.d");
        assert_eq!(henzinger_site("10.1.2.3"), "10.1.2.3");
        assert_eq!(registered_domain("www.example.co.uk"), "example.co.uk");
        assert_eq!(registered_domain("co.uk"), "co.uk");
        assert_eq!(registered_domain("10.1.2.3"), "10.1.2.3");
    }

    #[test]
    fn links() {
        let base = url::Url::parse("https://Example.com:443/a/b/c.html").unwrap();
        let r = |h| resolve_link(&base, h).map(String::from);
        assert_eq!(
            r("../d.html#frag").as_deref(),
            Some("https://example.com/a/d.html")
        );
        assert_eq!(r("//other.org/x").as_deref(), Some("https://other.org/x"));
        assert_eq!(r("mailto:a@b"), None);
        assert_eq!(r("javascript:void(0)"), None);
        assert_eq!(r("#top"), None);
        assert_eq!(
            normalize_url("HTTP://EXAMPLE.com:80/x#y").as_deref(),
            Some("http://example.com/x")
        );
    }
}

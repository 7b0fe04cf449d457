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

#[cfg(test)]
mod tests {
    use super::*;

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

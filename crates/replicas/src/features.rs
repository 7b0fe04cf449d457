//! The features of a site pair (paper 001 section 3.1). None reads page content: host names,
//! IP addresses and URL paths are known at crawl time.

use std::collections::HashMap;

/// Edit distance (insertions, deletions, substitutions) between two host names, over bytes.
pub fn ndist(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + (ca != cb) as usize).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

/// Host-name segments (split on `.` and `-`), the terms of `nmatch`.
pub fn segments(host: &str) -> impl Iterator<Item = &str> {
    host.split(['.', '-']).filter(|s| !s.is_empty())
}

/// Document frequencies of host-name segments over a set of hosts, for `nmatch`.
#[derive(Clone, Debug, Default)]
pub struct HostTerms {
    df: HashMap<String, u32>,
}

impl HostTerms {
    /// Counts each segment once per host.
    pub fn new<'a>(hosts: impl IntoIterator<Item = &'a str>) -> HostTerms {
        let mut df: HashMap<String, u32> = HashMap::new();
        for h in hosts {
            let mut seen: Vec<&str> = segments(h).collect();
            seen.sort_unstable();
            seen.dedup();
            for s in seen {
                *df.entry(s.to_string()).or_default() += 1;
            }
        }
        HostTerms { df }
    }

    /// Weight of a segment, equation 1: `log(len(t)) / (1 + log(df(t)))` (natural logarithms;
    /// an unseen segment has df 1).
    pub fn weight(&self, t: &str) -> f64 {
        let df = self.df.get(t).copied().unwrap_or(1).max(1) as f64;
        (t.len() as f64).ln() / (1.0 + df.ln())
    }

    /// `nmatch`: cosine of the two hosts' segment vectors (a segment repeated in a name counts
    /// once). 0 when either vector is zero.
    pub fn nmatch(&self, a: &str, b: &str) -> f64 {
        let vec = |h: &str| -> Vec<(String, f64)> {
            let mut v: Vec<&str> = segments(h).collect();
            v.sort_unstable();
            v.dedup();
            v.into_iter()
                .map(|t| (t.to_string(), self.weight(t)))
                .collect()
        };
        let (va, vb) = (vec(a), vec(b));
        let norm = |v: &[(String, f64)]| v.iter().map(|x| x.1 * x.1).sum::<f64>().sqrt();
        let (na, nb) = (norm(&va), norm(&vb));
        if na == 0.0 || nb == 0.0 {
            return 0.0;
        }
        // fold from +0.0: an empty f64 sum is -0.0.
        let dot = va
            .iter()
            .filter_map(|(t, w)| vb.iter().find(|x| &x.0 == t).map(|x| w * x.1))
            .fold(0.0, |s, x| s + x);
        dot / (na * nb)
    }
}

/// Hosts grouped by IP address: by all four octets (`ip4`) or the first three (`ip3`).
#[derive(Clone, Debug, Default)]
pub struct IpGroups {
    /// Group key per host (empty = no address known).
    keys: HashMap<String, Vec<String>>,
    sizes: HashMap<String, u32>,
}

impl IpGroups {
    /// Groups `hosts` (each with its addresses) by `octets` leading octets of an IPv4 address
    /// (an IPv6 address is used whole). A host with several addresses joins each group.
    pub fn new<'a>(
        hosts: impl IntoIterator<Item = (&'a str, &'a [String])>,
        octets: usize,
    ) -> IpGroups {
        let mut keys: HashMap<String, Vec<String>> = HashMap::new();
        let mut sizes: HashMap<String, u32> = HashMap::new();
        for (h, ips) in hosts {
            let mut ks: Vec<String> = ips.iter().filter_map(|ip| group_key(ip, octets)).collect();
            ks.sort();
            ks.dedup();
            for k in &ks {
                *sizes.entry(k.clone()).or_default() += 1;
            }
            keys.insert(h.to_string(), ks);
        }
        IpGroups { keys, sizes }
    }

    /// Equation 2: `1 / (|G| - 1)` when `a` and `b` share the group `G` (the smallest shared
    /// group when they share several), else 0.
    pub fn feature(&self, a: &str, b: &str) -> f64 {
        let (Some(ka), Some(kb)) = (self.keys.get(a), self.keys.get(b)) else {
            return 0.0;
        };
        ka.iter()
            .filter(|k| kb.contains(k))
            .filter_map(|k| self.sizes.get(k))
            .map(|&g| if g > 1 { 1.0 / (g - 1) as f64 } else { 0.0 })
            .fold(0.0, f64::max)
    }
}

fn group_key(ip: &str, octets: usize) -> Option<String> {
    let ip = ip.trim();
    if ip.is_empty() {
        return None;
    }
    let parts: Vec<&str> = ip.split('.').collect();
    if parts.len() == 4 && parts.iter().all(|p| p.parse::<u8>().is_ok()) {
        Some(parts[..octets.min(4)].join("."))
    } else {
        Some(ip.to_ascii_lowercase())
    }
}

/// URL paths of every site as weighted term vectors, for `fullpath`.
#[derive(Clone, Debug, Default)]
pub struct PathVectors {
    /// Per site: (path id, weight) sorted by path id, and the vector's norm.
    sites: Vec<(Vec<(u32, f64)>, f64)>,
}

impl PathVectors {
    /// `paths[s]` are site `s`'s distinct path ids. Weight of a path, equation 3:
    /// `1 + log(maxdf / df(t))`, df = number of sites holding the path.
    pub fn new(paths: &[Vec<u32>]) -> PathVectors {
        let mut df: HashMap<u32, u32> = HashMap::new();
        for p in paths {
            for &t in p {
                *df.entry(t).or_default() += 1;
            }
        }
        let maxdf = df.values().copied().max().unwrap_or(1) as f64;
        let sites = paths
            .iter()
            .map(|p| {
                let mut v: Vec<(u32, f64)> = p
                    .iter()
                    .map(|&t| (t, 1.0 + (maxdf / df[&t] as f64).ln()))
                    .collect();
                v.sort_unstable_by_key(|x| x.0);
                v.dedup_by_key(|x| x.0);
                let norm = v.iter().map(|x| x.1 * x.1).sum::<f64>().sqrt();
                (v, norm)
            })
            .collect();
        PathVectors { sites }
    }

    /// Cosine of the path vectors of sites `a` and `b`.
    pub fn fullpath(&self, a: usize, b: usize) -> f64 {
        let ((va, na), (vb, nb)) = (&self.sites[a], &self.sites[b]);
        if *na == 0.0 || *nb == 0.0 {
            return 0.0;
        }
        let (mut i, mut j, mut dot) = (0, 0, 0.0);
        while i < va.len() && j < vb.len() {
            match va[i].0.cmp(&vb[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += va[i].1 * vb[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        dot / (na * nb)
    }
}

/// Why a pair is an obvious replica (distant supervision, section 3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Obvious {
    /// The names are equal once a leading `www.` is removed.
    Www,
    /// The names differ in exactly one label, a top-level-domain-like one (com, net, org, ...,
    /// or a two-letter country code).
    Tld,
}

const TLD_LIKE: [&str; 12] = [
    "com", "net", "org", "gov", "edu", "info", "biz", "co", "ac", "mil", "int", "name",
];

fn tld_like(s: &str) -> bool {
    TLD_LIKE.contains(&s) || (s.len() == 2 && s.bytes().all(|b| b.is_ascii_lowercase()))
}

/// Whether two host names are obvious replicas of each other.
pub fn obvious_replica(a: &str, b: &str) -> Option<Obvious> {
    let strip = |h: &str| h.strip_prefix("www.").unwrap_or(h).to_string();
    let (sa, sb) = (strip(a), strip(b));
    if a == b {
        return None;
    }
    if sa == sb {
        return Some(Obvious::Www);
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (sa.split('.').collect(), sb.split('.').collect());
    if la.len() != lb.len() || la.len() < 2 {
        return None;
    }
    let diff: Vec<usize> = (0..la.len()).filter(|&i| la[i] != lb[i]).collect();
    match diff.as_slice() {
        [i] if *i > 0 && tld_like(la[*i]) && tld_like(lb[*i]) => Some(Obvious::Tld),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(ndist("", ""), 0);
        assert_eq!(ndist("abc", ""), 3);
        assert_eq!(ndist("kitten", "sitting"), 3);
        assert_eq!(ndist("www.a.com", "a.com"), 4);
        assert_eq!(ndist("a.com", "a.net"), 3);
    }

    #[test]
    fn nmatch_weights_long_rare_segments() {
        let hosts = [
            "www.rustdocs.org",
            "rustdocs.org",
            "www.kernel.org",
            "mirror.kernel.org",
        ];
        let t = HostTerms::new(hosts.iter().copied());
        // "www" (len 3, df 2): ln 3 / (1 + ln 2); "rustdocs" (len 8, df 2); "org" in all four.
        assert!((t.weight("www") - 3f64.ln() / (1.0 + 2f64.ln())).abs() < 1e-12);
        assert!((t.weight("org") - 3f64.ln() / (1.0 + 4f64.ln())).abs() < 1e-12);
        // Single-letter segments weigh nothing (ln 1 = 0).
        assert_eq!(t.weight("a"), 0.0);
        let w = |s: &str| t.weight(s);
        // www.rustdocs.org vs rustdocs.org: shared rustdocs and org.
        let dot = w("rustdocs").powi(2) + w("org").powi(2);
        let na = (w("www").powi(2) + dot).sqrt();
        let nb = dot.sqrt();
        assert!((t.nmatch("www.rustdocs.org", "rustdocs.org") - dot / (na * nb)).abs() < 1e-12);
        assert!((t.nmatch("a.org", "a.org") - 1.0).abs() < 1e-12);
        assert_eq!(t.nmatch("xx.yy", "zz.ww").to_bits(), 0f64.to_bits());
    }

    #[test]
    fn ip_groups_by_four_and_three_octets() {
        let ips = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        let hosts = [
            ("a", ips(&["10.0.0.1"])),
            ("b", ips(&["10.0.0.1"])),
            ("c", ips(&["10.0.0.2"])),
            ("d", ips(&["10.0.1.1"])),
            ("e", ips(&[])),
        ];
        let g4 = IpGroups::new(hosts.iter().map(|(h, v)| (*h, v.as_slice())), 4);
        let g3 = IpGroups::new(hosts.iter().map(|(h, v)| (*h, v.as_slice())), 3);
        assert_eq!(g4.feature("a", "b"), 1.0); // group of 2: 1/(2-1)
        assert_eq!(g4.feature("a", "c"), 0.0);
        assert_eq!(g3.feature("a", "c"), 0.5); // 10.0.0.x holds a, b, c: 1/(3-1)
        assert_eq!(g3.feature("a", "d"), 0.0);
        assert_eq!(g3.feature("a", "e"), 0.0);
        assert_eq!(g3.feature("a", "zzz"), 0.0);
    }

    #[test]
    fn fullpath_cosine_with_idf_weights() {
        // Paths 0 and 1 in both sites, path 2 only in site 0; site 2 holds path 0 only.
        let v = PathVectors::new(&[vec![0, 1, 2], vec![0, 1], vec![0]]);
        // df: 0 -> 3, 1 -> 2, 2 -> 1; maxdf 3.
        let w = |df: f64| 1.0 + (3.0 / df).ln();
        let dot = w(3.0).powi(2) + w(2.0).powi(2);
        let na = (dot + w(1.0).powi(2)).sqrt();
        assert!((v.fullpath(0, 1) - dot / (na * dot.sqrt())).abs() < 1e-12);
        assert!((v.fullpath(1, 1) - 1.0).abs() < 1e-12);
        assert!(v.fullpath(2, 0) > 0.0);
    }

    #[test]
    fn obvious_replicas() {
        assert_eq!(obvious_replica("www.a.com", "a.com"), Some(Obvious::Www));
        assert_eq!(obvious_replica("a.com", "a.net"), Some(Obvious::Tld));
        assert_eq!(obvious_replica("www.a.com", "a.org"), Some(Obvious::Tld));
        assert_eq!(obvious_replica("a.com.br", "a.net.br"), Some(Obvious::Tld));
        assert_eq!(obvious_replica("a.co.uk", "a.com"), None);
        assert_eq!(obvious_replica("a.com", "b.com"), None);
        assert_eq!(obvious_replica("docs.a.com", "blog.a.com"), None);
        assert_eq!(obvious_replica("a.com", "a.com"), None);
    }
}

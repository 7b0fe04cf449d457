//! Website replicas without labels (paper 001): site pairs sharing a dup-cluster are replica
//! candidates; obvious replicas (www., TLD variants) and obvious non-replicas (pairs sharing no
//! dup-cluster) seed EM over PU and NU data; both classifiers score every candidate, and the
//! scores are aggregated by Pareto dominance. NormPaths is computed alongside as the baseline.
//!
//! A site is a host name. Dup-clusters are the multi-page clusters the caller passes (shingle
//! clusters of `dedup`, or any other clustering).

use neardup_replicas::em::{em, Data, EmStats, Example, Updates};
use neardup_replicas::features::{
    ndist, obvious_replica, HostTerms, IpGroups, Obvious, PathVectors,
};
use neardup_replicas::lac::RuleTable;
use neardup_replicas::mdl::Discretizer;
use neardup_replicas::normpaths::normpaths;
use neardup_replicas::pareto;
use neardup_replicas::FEATURES;
use neardup_store::Corpus;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

/// Settings.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicaConfig {
    /// Clusters spanning more sites are skipped for candidate pairs (counted): their pairs grow
    /// quadratically and say little (the paper's "Untitled document" clusters).
    pub max_cluster_sites: usize,
    /// Obvious non-replicas sampled per obvious replica (paper: 800,000 / 50,000 = 16).
    pub negatives_per_positive: usize,
    /// At least this many obvious non-replicas when enough site pairs exist.
    pub min_negatives: usize,
    /// At most this many.
    pub max_negatives: usize,
    /// Seed of the negative sample.
    pub seed: u64,
    /// EM passes at most.
    pub max_passes: usize,
    /// Also run EM rebuilding the rules after every transition (to time it and check it
    /// equals the incremental run).
    pub em_from_scratch: bool,
    /// NormPaths lists longer than this are skipped.
    pub normpaths_max_list: usize,
    /// Features the classifiers use (bit f = `FEATURE_NAMES[f]`; all by default), for the
    /// paper's Table 2 ablations.
    pub features: u8,
}

impl Default for ReplicaConfig {
    fn default() -> ReplicaConfig {
        ReplicaConfig {
            max_cluster_sites: 1000,
            negatives_per_positive: 16,
            min_negatives: 1000,
            max_negatives: 800_000,
            seed: 1,
            max_passes: 100,
            em_from_scratch: false,
            normpaths_max_list: 1000,
            features: neardup_replicas::lac::MASKS,
        }
    }
}

/// A site.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    /// Host name.
    pub host: String,
    /// Its pages.
    pub pages: u64,
    /// Its pages in dup-clusters.
    pub duplicate_pages: u64,
    /// Its IP addresses.
    pub ips: Vec<String>,
}

/// A replica candidate and everything said about it.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    /// Site ids, `a < b`.
    pub a: u32,
    /// See `a`.
    pub b: u32,
    /// Dup-clusters holding both.
    pub shared_clusters: u32,
    /// Jaccard of the two sites' dup-cluster sets.
    pub jaccard: f64,
    /// `ndist`, `nmatch`, `ip4`, `ip3`, `fullpath`.
    pub features: [f64; FEATURES],
    /// Obvious replica, and why.
    pub obvious: Option<Obvious>,
    /// `α(x, +)` of the classifier learned from PU data.
    pub alpha_pu: f64,
    /// `α(x, +)` of the classifier learned from NU data.
    pub alpha_nu: f64,
    /// Candidates this one dominates in the (PU, NU) plane.
    pub dominance: u64,
    /// `dominance / (candidates - 1)`: the aggregated score.
    pub score: f64,
    /// On the Pareto frontier.
    pub frontier: bool,
    /// Position in the aggregated ranking (1 = most dominant).
    pub rank: u64,
    /// NormPaths similarity (equation 8).
    pub normpaths: f64,
    /// Pages of `a` in dup-clusters shared with `b`.
    pub dup_pages_a: u64,
    /// Pages of `b` in dup-clusters shared with `a`.
    pub dup_pages_b: u64,
    /// Final EM label in the PU training set.
    pub em_label_pu: bool,
    /// Final EM label in the NU training set.
    pub em_label_nu: bool,
}

/// Counts of the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReplicaCounts {
    /// Sites (hosts).
    pub sites: u64,
    /// Sites in at least one dup-cluster with another site.
    pub candidate_sites: u64,
    /// Dup-clusters (multi-page).
    pub dup_clusters: u64,
    /// Of those spanning two sites or more.
    pub inter_site_clusters: u64,
    /// Skipped for spanning more than `max_cluster_sites` sites.
    pub clusters_skipped: u64,
    /// Site pairs sharing a dup-cluster.
    pub candidates: u64,
    /// Obvious replicas: `www.` variants.
    pub obvious_www: u64,
    /// Obvious replicas: TLD variants.
    pub obvious_tld: u64,
    /// Obvious non-replicas sampled (pairs sharing no dup-cluster).
    pub obvious_negatives: u64,
    /// Pages in dup-clusters (the duplicate URLs of the reduction ratio).
    pub duplicate_pages: u64,
    /// NormPaths lists skipped for their length.
    pub normpaths_lists_skipped: u64,
}

/// Times of paper 001 Table 5.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReplicaTimes {
    /// Candidates, features, negatives.
    pub seconds_candidates_and_features: f64,
    /// MDL discretization of both training sets.
    pub seconds_discretize: f64,
    /// EM over PU data, incremental.
    pub em_pu: EmStats,
    /// EM over NU data, incremental.
    pub em_nu: EmStats,
    /// EM over PU data rebuilding the rules after every transition.
    pub em_pu_from_scratch: Option<EmStats>,
    /// EM over NU data rebuilding the rules after every transition.
    pub em_nu_from_scratch: Option<EmStats>,
    /// Whether the from-scratch runs ended with the same labels and rules.
    pub from_scratch_equal: Option<bool>,
    /// Rule extraction per candidate (both classifiers), microseconds.
    pub us_rule_extraction_per_candidate: f64,
    /// Prediction (`α` from the rules, both classifiers) per candidate, microseconds.
    pub us_prediction_per_candidate: f64,
    /// Pareto aggregation per candidate, microseconds.
    pub us_aggregation_per_candidate: f64,
    /// NormPaths, whole run.
    pub seconds_normpaths: f64,
}

/// Everything [`replicas`] finds.
#[derive(Debug)]
pub struct ReplicaReport {
    /// Sites by id.
    pub sites: Vec<Site>,
    /// Candidates in ranking order.
    pub candidates: Vec<Candidate>,
    /// Pages per (site, dup-cluster): what the reduction ratio is computed from.
    pub site_clusters: Vec<(u32, u32, u32)>,
    /// Counts.
    pub counts: ReplicaCounts,
    /// Discretization learned from the PU training labels.
    pub discretizer_pu: Discretizer,
    /// Discretization learned from the NU training labels.
    pub discretizer_nu: Discretizer,
    /// Timings.
    pub times: ReplicaTimes,
}

/// The path (and query) of a URL, without scheme, host and fragment.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |x| x.1);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    path.split('#').next().unwrap_or(path)
}

/// Finds website replicas. `clusters` are dup-clusters (lists of page ids; singletons are
/// ignored); `extra_ips` adds host -> addresses to the crawl's WARC-IP-Address values.
pub fn replicas(
    corpus: &Corpus,
    clusters: &[Vec<u32>],
    extra_ips: &HashMap<String, Vec<String>>,
    cfg: &ReplicaConfig,
) -> ReplicaReport {
    let t0 = Instant::now();
    let mut counts = ReplicaCounts::default();
    // Sites.
    let mut site_of_host: HashMap<&str, u32> = HashMap::new();
    let mut sites: Vec<Site> = Vec::new();
    let mut site_of_page = Vec::with_capacity(corpus.len() as usize);
    let mut ips: Vec<Vec<String>> = Vec::new();
    for p in corpus.pages() {
        let s = *site_of_host.entry(p.host).or_insert_with(|| {
            sites.push(Site {
                host: p.host.to_string(),
                pages: 0,
                duplicate_pages: 0,
                ips: Vec::new(),
            });
            ips.push(Vec::new());
            sites.len() as u32 - 1
        });
        sites[s as usize].pages += 1;
        if !p.ip.is_empty() && !ips[s as usize].iter().any(|i| i == p.ip) {
            ips[s as usize].push(p.ip.to_string());
        }
        site_of_page.push(s);
    }
    for (h, extra) in extra_ips {
        if let Some(&s) = site_of_host.get(h.as_str()) {
            for ip in extra {
                if !ips[s as usize].contains(ip) {
                    ips[s as usize].push(ip.clone());
                }
            }
        }
    }
    for (s, v) in sites.iter_mut().zip(&ips) {
        s.ips = v.clone();
        s.ips.sort();
    }
    counts.sites = sites.len() as u64;

    // Site-cluster incidence and candidate pairs.
    let mut site_clusters: Vec<(u32, u32, u32)> = Vec::new();
    let mut clusters_of_site = vec![0u32; sites.len()];
    #[derive(Default)]
    struct Acc {
        shared: u32,
        pages_a: u64,
        pages_b: u64,
    }
    let mut pairs: HashMap<(u32, u32), Acc> = HashMap::new();
    for (ci, c) in clusters.iter().filter(|c| c.len() >= 2).enumerate() {
        counts.dup_clusters += 1;
        counts.duplicate_pages += c.len() as u64;
        let mut per_site: BTreeMap<u32, u32> = BTreeMap::new();
        for &p in c {
            *per_site.entry(site_of_page[p as usize]).or_default() += 1;
        }
        for (&s, &n) in &per_site {
            site_clusters.push((s, ci as u32, n));
            clusters_of_site[s as usize] += 1;
            sites[s as usize].duplicate_pages += n as u64;
        }
        if per_site.len() < 2 {
            continue;
        }
        counts.inter_site_clusters += 1;
        if per_site.len() > cfg.max_cluster_sites {
            counts.clusters_skipped += 1;
            continue;
        }
        let v: Vec<(u32, u32)> = per_site.into_iter().collect();
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                let acc = pairs.entry((v[i].0, v[j].0)).or_default();
                acc.shared += 1;
                acc.pages_a += v[i].1 as u64;
                acc.pages_b += v[j].1 as u64;
            }
        }
    }
    let mut keys: Vec<(u32, u32)> = pairs.keys().copied().collect();
    keys.sort_unstable();
    counts.candidates = keys.len() as u64;
    counts.candidate_sites = {
        let s: HashSet<u32> = keys.iter().flat_map(|&(a, b)| [a, b]).collect();
        s.len() as u64
    };

    // Features.
    let hosts: Vec<&str> = sites.iter().map(|s| s.host.as_str()).collect();
    let terms = HostTerms::new(hosts.iter().copied());
    let ip4 = IpGroups::new(hosts.iter().copied().zip(ips.iter().map(Vec::as_slice)), 4);
    let ip3 = IpGroups::new(hosts.iter().copied().zip(ips.iter().map(Vec::as_slice)), 3);
    let paths = {
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let mut per_site: Vec<Vec<u32>> = vec![Vec::new(); sites.len()];
        for (p, m) in corpus.pages().enumerate() {
            let n = ids.len() as u32;
            let id = *ids.entry(path_of(m.url)).or_insert(n);
            per_site[site_of_page[p] as usize].push(id);
        }
        for v in &mut per_site {
            v.sort_unstable();
            v.dedup();
        }
        PathVectors::new(&per_site)
    };
    let features = |a: u32, b: u32| -> [f64; FEATURES] {
        let (ha, hb) = (hosts[a as usize], hosts[b as usize]);
        [
            ndist(ha, hb) as f64,
            terms.nmatch(ha, hb),
            ip4.feature(ha, hb),
            ip3.feature(ha, hb),
            paths.fullpath(a as usize, b as usize),
        ]
    };
    let cand_features: Vec<[f64; FEATURES]> = keys.iter().map(|&(a, b)| features(a, b)).collect();
    let obvious: Vec<Option<Obvious>> = keys
        .iter()
        .map(|&(a, b)| obvious_replica(hosts[a as usize], hosts[b as usize]))
        .collect();
    counts.obvious_www = obvious.iter().filter(|o| **o == Some(Obvious::Www)).count() as u64;
    counts.obvious_tld = obvious.iter().filter(|o| **o == Some(Obvious::Tld)).count() as u64;
    let positives = (counts.obvious_www + counts.obvious_tld) as usize;

    // Obvious non-replicas: site pairs sharing no dup-cluster, sampled with a fixed seed.
    let n = sites.len() as u64;
    let all_pairs = n * n.saturating_sub(1) / 2;
    let free = all_pairs - keys.len() as u64;
    let want = (cfg.negatives_per_positive * positives)
        .max(cfg.min_negatives)
        .min(cfg.max_negatives) as u64;
    let mut negatives: Vec<(u32, u32)> = Vec::new();
    if free <= want {
        for a in 0..n as u32 {
            for b in a + 1..n as u32 {
                if !pairs.contains_key(&(a, b)) {
                    negatives.push((a, b));
                }
            }
        }
    } else {
        let mut seen: HashSet<(u32, u32)> = HashSet::new();
        let mut rng = neardup_sketch::rabin::SplitMix64(cfg.seed);
        let mut tries = 0u64;
        while (negatives.len() as u64) < want && tries < want * 50 {
            tries += 1;
            let a = (rng.next_u64() % n) as u32;
            let b = (rng.next_u64() % n) as u32;
            let key = (a.min(b), a.max(b));
            if a != b && !pairs.contains_key(&key) && seen.insert(key) {
                negatives.push(key);
            }
        }
    }
    counts.obvious_negatives = negatives.len() as u64;
    let neg_features: Vec<[f64; FEATURES]> =
        negatives.iter().map(|&(a, b)| features(a, b)).collect();
    let seconds_candidates_and_features = t0.elapsed().as_secs_f64();

    // PU: obvious replicas (+, fixed) and the other candidates (unlabeled, -).
    // NU: obvious non-replicas (-, fixed) and every candidate (unlabeled, +).
    let t = Instant::now();
    let pu_labels: Vec<bool> = obvious.iter().map(Option::is_some).collect();
    let discretizer_pu = Discretizer::fit(&cand_features, &pu_labels);
    let nu_x: Vec<[f64; FEATURES]> = cand_features.iter().chain(&neg_features).copied().collect();
    let nu_labels: Vec<bool> = (0..nu_x.len()).map(|i| i < keys.len()).collect();
    let discretizer_nu = Discretizer::fit(&nu_x, &nu_labels);
    let seconds_discretize = t.elapsed().as_secs_f64();
    let pu_start: Vec<Example> = cand_features
        .iter()
        .zip(&pu_labels)
        .map(|(x, &l)| Example {
            items: discretizer_pu.items(x),
            label: l,
            fixed: l,
        })
        .collect();
    let nu_start: Vec<Example> = nu_x
        .iter()
        .zip(&nu_labels)
        .map(|(x, &l)| Example {
            items: discretizer_nu.items(x),
            label: l,
            fixed: !l,
        })
        .collect();
    let mut pu = pu_start.clone();
    let (table_pu, em_pu) = em(
        &mut pu,
        Data::Pu,
        Updates::Incremental,
        cfg.max_passes,
        cfg.features,
    );
    let mut nu = nu_start.clone();
    let (table_nu, em_nu) = em(
        &mut nu,
        Data::Nu,
        Updates::Incremental,
        cfg.max_passes,
        cfg.features,
    );
    let mut times = ReplicaTimes {
        seconds_candidates_and_features,
        seconds_discretize,
        em_pu,
        em_nu,
        ..Default::default()
    };
    if cfg.em_from_scratch {
        let mut a = pu_start.clone();
        let (ta, sa) = em(
            &mut a,
            Data::Pu,
            Updates::FromScratch,
            cfg.max_passes,
            cfg.features,
        );
        let mut b = nu_start.clone();
        let (tb, sb) = em(
            &mut b,
            Data::Nu,
            Updates::FromScratch,
            cfg.max_passes,
            cfg.features,
        );
        times.from_scratch_equal = Some(a == pu && b == nu && ta == table_pu && tb == table_nu);
        times.em_pu_from_scratch = Some(sa);
        times.em_nu_from_scratch = Some(sb);
    }

    // Rule extraction and prediction for every candidate, timed apart.
    let m = keys.len().max(1) as f64;
    let t = Instant::now();
    let mut rules = 0usize;
    for (p, q) in pu.iter().zip(&nu) {
        rules += table_pu.rules(&p.items).len() + table_nu.rules(&q.items).len();
    }
    std::hint::black_box(rules);
    times.us_rule_extraction_per_candidate = t.elapsed().as_secs_f64() * 1e6 / m;
    let t = Instant::now();
    let score = |table: &RuleTable, items| table.score(items).alpha_positive();
    let alphas: Vec<(f64, f64)> = pu
        .iter()
        .zip(&nu)
        .map(|(p, q)| (score(&table_pu, &p.items), score(&table_nu, &q.items)))
        .collect();
    times.us_prediction_per_candidate = t.elapsed().as_secs_f64() * 1e6 / m;
    let t = Instant::now();
    let dominance = pareto::dominance_counts(&alphas);
    let frontier = pareto::frontier(&alphas);
    let order = pareto::rank(&alphas);
    times.us_aggregation_per_candidate = t.elapsed().as_secs_f64() * 1e6 / m;

    // NormPaths over <path, content signature> tuples.
    let t = Instant::now();
    let tuples: Vec<(u64, u32)> = corpus
        .pages()
        .enumerate()
        .map(|(p, meta)| {
            let mut h = xxhash_rust::xxh3::xxh3_64(path_of(meta.url).as_bytes());
            h ^= meta.token_hash.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (h, site_of_page[p])
        })
        .collect();
    let (np, skipped) = normpaths(tuples, cfg.normpaths_max_list);
    counts.normpaths_lists_skipped = skipped;
    times.seconds_normpaths = t.elapsed().as_secs_f64();

    let denom = (keys.len().saturating_sub(1)).max(1) as f64;
    let candidates: Vec<Candidate> = order
        .iter()
        .enumerate()
        .map(|(r, &i)| {
            let (a, b) = keys[i];
            let acc = &pairs[&(a, b)];
            let union = clusters_of_site[a as usize] + clusters_of_site[b as usize] - acc.shared;
            Candidate {
                a,
                b,
                shared_clusters: acc.shared,
                jaccard: acc.shared as f64 / union.max(1) as f64,
                features: cand_features[i],
                obvious: obvious[i],
                alpha_pu: alphas[i].0,
                alpha_nu: alphas[i].1,
                dominance: dominance[i],
                score: dominance[i] as f64 / denom,
                frontier: frontier[i],
                rank: r as u64 + 1,
                normpaths: np.get(&(a, b)).copied().unwrap_or(0.0),
                dup_pages_a: acc.pages_a,
                dup_pages_b: acc.pages_b,
                em_label_pu: pu[i].label,
                em_label_nu: nu[i].label,
            }
        })
        .collect();
    ReplicaReport {
        sites,
        candidates,
        site_clusters,
        counts,
        discretizer_pu,
        discretizer_nu,
        times,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_drop_scheme_host_and_fragment() {
        assert_eq!(path_of("https://a.example/x/y.html#top"), "/x/y.html");
        assert_eq!(path_of("http://a.example"), "/");
        assert_eq!(path_of("http://a.example/q?x=1"), "/q?x=1");
    }
}

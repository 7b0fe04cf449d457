//! Statistical properties of the signatures (paper 004 section 2), for both min-hash families:
//! * the share of equal minvalues estimates the Jaccard similarity without bias and within the
//!   binomial error bound (each minvalue agrees with probability J);
//! * its variance is the theory's: binomial `J(1-J)/m` for the Rabin family's independent
//!   functions; for one-permutation hashing over sets that fill every bin, the
//!   sampling-without-replacement variance `J(1-J)/m - (m-1)/m · J · (J - (a-1)/(f-1))`
//!   (Li, Owen and Zhang 2012; `a = |A ∩ B|`, `f = |A ∪ B|`), never above binomial; for small
//!   sets, densified by re-hashing rounds, at most binomial too (measured: about half of it);
//! * the same holds on the shingle sets of real pages (the committed sample crawl);
//! * a supershingle of l = 14 minvalues agrees with probability J^14, so two pages that are 95%
//!   similar agree on at least 2 of 6 supershingles about 90% of the time.

// Reads the committed sample crawl; the crate itself does no file I/O.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use neardup_sketch::rabin::SplitMix64;
use neardup_sketch::{minhash, Family, MinHashFamily, SketchParams};
use proptest::prelude::*;
use std::sync::Arc;

fn family_of(minhash: MinHashFamily, m: u32, seed: u64) -> Arc<Family> {
    Family::new(&SketchParams {
        minhash,
        m,
        l: 1,
        supershingles: 0,
        seed,
        ..SketchParams::default()
    })
}

/// Two random sets with |A ∩ B| = common, |A \ B| = only_a, |B \ A| = only_b.
fn sets(rng: &mut SplitMix64, common: usize, only_a: usize, only_b: usize) -> (Vec<u64>, Vec<u64>) {
    let c: Vec<u64> = (0..common).map(|_| rng.next_u64()).collect();
    let mut a = c.clone();
    a.extend((0..only_a).map(|_| rng.next_u64()));
    let mut b = c;
    b.extend((0..only_b).map(|_| rng.next_u64()));
    (a, b)
}

fn agreeing(x: &[u64], y: &[u64]) -> usize {
    x.iter().zip(y).filter(|(a, b)| a == b).count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn estimated_jaccard_is_unbiased_within_binomial_bounds(
        common in 1usize..300,
        only_a in 0usize..200,
        only_b in 0usize..200,
        seed in any::<u64>(),
        rabin in any::<bool>(),
    ) {
        let which = if rabin { MinHashFamily::Rabin } else { MinHashFamily::Oph };
        let family = family_of(which, 84, neardup_sketch::DEFAULT_SEED);
        let m = 84usize;
        let j = common as f64 / (common + only_a + only_b) as f64;
        let trials = 60;
        let mut rng = SplitMix64(seed);
        let (mut ma, mut mb) = (vec![0u64; m], vec![0u64; m]);
        let mut sum = 0.0;
        let mut outside = 0;
        let sigma = (j * (1.0 - j) / m as f64).sqrt();
        for _ in 0..trials {
            let (a, b) = sets(&mut rng, common, only_a, only_b);
            minhash(&family, &a, &mut ma);
            minhash(&family, &b, &mut mb);
            let est = agreeing(&ma, &mb) as f64 / m as f64;
            sum += est;
            if (est - j).abs() > 3.5 * sigma + 1e-9 {
                outside += 1;
            }
        }
        let mean = sum / trials as f64;
        // Unbiased: the mean of 60 estimates is within 4 standard errors of J.
        prop_assert!((mean - j).abs() <= 4.0 * sigma / (trials as f64).sqrt() + 1e-9, "J={j} mean={mean}");
        // Within the binomial bound: a 3.5-sigma miss happens with probability < 0.1% per trial.
        prop_assert!(outside <= 2, "J={j}: {outside} of {trials} estimates outside 3.5 sigma");
    }
}

#[test]
fn supershingle_agreement_follows_p_to_the_14() {
    let params = SketchParams {
        minhash: MinHashFamily::Rabin,
        ..SketchParams::default()
    };
    let family = Family::new(&params);
    let mut rng = SplitMix64(2004);
    let (mut ma, mut mb) = (vec![0u64; 84], vec![0u64; 84]);
    for &(common, diff, label) in &[(190usize, 5usize, "95%"), (160, 20, "80%")] {
        let j = common as f64 / (common + 2 * diff) as f64;
        let q = j.powi(14);
        let trials = 400;
        let (mut agree, mut at_least_two) = (0usize, 0usize);
        for _ in 0..trials {
            let (a, b) = sets(&mut rng, common, diff, diff);
            minhash(&family, &a, &mut ma);
            minhash(&family, &b, &mut mb);
            let supers = |m: &[u64]| -> Vec<u64> {
                (0..6)
                    .map(|s| family.key_fingerprint(&m[s * 14..(s + 1) * 14]))
                    .collect()
            };
            let n = agreeing(&supers(&ma), &supers(&mb));
            agree += n;
            at_least_two += (n >= 2) as usize;
        }
        // Per supershingle: binomial with 6 x trials draws of probability q.
        let draws = 6.0 * trials as f64;
        let rate = agree as f64 / draws;
        let se = (q * (1.0 - q) / draws).sqrt();
        assert!(
            (rate - q).abs() <= 4.0 * se,
            "{label}: supershingle agreement {rate:.3}, J^14 = {q:.3}"
        );
        // At least 2 of 6.
        let p2 = 1.0 - (1.0 - q).powi(6) - 6.0 * q * (1.0 - q).powi(5);
        let r2 = at_least_two as f64 / trials as f64;
        let se2 = (p2 * (1.0 - p2) / trials as f64).sqrt();
        assert!(
            (r2 - p2).abs() <= 4.0 * se2 + 1e-9,
            "{label}: >=2 of 6 agree {r2:.3}, expected {p2:.3}"
        );
        if label == "95%" {
            // Paper 004: "a probability of almost 90%".
            assert!((0.84..=0.93).contains(&r2), "{r2}");
        }
    }
}

/// Mean and variance of the estimate over `trials` random set pairs.
fn estimates(
    family: &Family,
    m: usize,
    (common, only_a, only_b): (usize, usize, usize),
    trials: usize,
    rng: &mut SplitMix64,
) -> (f64, f64) {
    let (mut ma, mut mb) = (vec![0u64; m], vec![0u64; m]);
    let (mut sum, mut sq) = (0.0, 0.0);
    for _ in 0..trials {
        let (a, b) = sets(rng, common, only_a, only_b);
        minhash(family, &a, &mut ma);
        minhash(family, &b, &mut mb);
        let est = agreeing(&ma, &mb) as f64 / m as f64;
        sum += est;
        sq += est * est;
    }
    let mean = sum / trials as f64;
    (mean, sq / trials as f64 - mean * mean)
}

/// The variance of one-permutation hashing when every bin is filled (Li, Owen, Zhang 2012).
fn without_replacement(j: f64, m: f64, a: f64, f: f64) -> f64 {
    j * (1.0 - j) / m - (m - 1.0) / m * j * (j - (a - 1.0) / (f - 1.0))
}

#[test]
fn variance_is_the_theorys() {
    let m = 64usize;
    let trials = 3000;
    let mut rng = SplitMix64(17);
    let oph = family_of(MinHashFamily::Oph, m as u32, 5);
    let rabin = family_of(MinHashFamily::Rabin, m as u32, 5);
    // (common, only in A, only in B): J from 0.5 to 0.95, union from 8 to 4000 shingles.
    let configs = [
        (3800usize, 100usize, 100usize),
        (1600, 200, 200),
        (450, 25, 25),
        (320, 40, 40),
        (100, 50, 50),
        (57, 2, 1),
        (40, 5, 5),
        (16, 2, 2),
        (6, 1, 1),
    ];
    for &(a, oa, ob) in &configs {
        let f = a + oa + ob;
        let j = a as f64 / f as f64;
        let binomial = j * (1.0 - j) / m as f64;
        for (name, family, trials) in [("oph", &oph, trials), ("rabin", &rabin, trials / 6)] {
            if name == "rabin" && f > 500 {
                continue; // m evaluations per shingle: slow in debug builds, same law
            }
            let (mean, var) = estimates(family, m, (a, oa, ob), trials, &mut rng);
            let t = trials as f64;
            // Unbiased: within 4.5 standard errors.
            assert!(
                (mean - j).abs() <= 4.5 * (binomial.max(var) / t).sqrt() + 1e-9,
                "{name} f={f} J={j:.3}: mean {mean:.4}"
            );
            // The variance of a variance estimate from t draws: about 2 var^2 / t.
            let tolerance = 5.0 * (2.0 / t).sqrt();
            let ratio = var / binomial;
            eprintln!("{name} f={f:5} J={j:.3}: variance / binomial = {ratio:.3}");
            if name == "rabin" {
                assert!(
                    (ratio - 1.0).abs() <= tolerance,
                    "{name} f={f} J={j:.3}: {ratio:.3}"
                );
            } else if f >= 4 * m {
                // Every bin filled (but with probability < 1e-5): the exact law.
                let theory = without_replacement(j, m as f64, a as f64, f as f64);
                let r = var / theory;
                assert!(
                    (r - 1.0).abs() <= tolerance,
                    "oph f={f} J={j:.3}: {r:.3} of theory"
                );
            } else {
                // Densified by rounds: each bin still agrees with probability J, and bins
                // thrown in one round are negatively correlated: at most binomial.
                assert!(
                    ratio <= 1.0 + tolerance,
                    "oph f={f} J={j:.3}: {ratio:.3} of binomial"
                );
            }
        }
    }
}

/// The shingle sets of the committed sample crawl's HTML pages.
fn sample_shingle_sets() -> Vec<(String, Vec<u64>)> {
    use neardup_ingest::{open_source, BodyKind, Page, ReadOptions};
    use neardup_text::{Document, Tokenizer};
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    paths.sort();
    let family = Family::new(&SketchParams::default());
    let tok = Tokenizer::default();
    let mut doc = Document::new();
    let mut terms = Vec::new();
    let mut out = Vec::new();
    for p in paths {
        let mut src = open_source(&p, None, 0, &ReadOptions::default()).unwrap();
        let mut page = Page::default();
        while src.next_page(&mut page).unwrap() {
            if page.kind != BodyKind::Html {
                continue;
            }
            tok.html(&page.body, None, &page.url, &mut doc);
            terms.clear();
            terms.extend(doc.terms().map(|t| family.term_fingerprint(t)));
            let mut sh = Vec::new();
            neardup_sketch::shingles(&family, &terms, &mut sh);
            sh.sort_unstable();
            sh.dedup();
            if sh.len() >= 20 {
                out.push((page.url.clone(), sh));
            }
        }
    }
    out
}

#[test]
fn real_pages_estimates_have_the_binomial_error() {
    // Pairs of real pages (the same path in two rustdoc versions, and neighbours in crawl
    // order) with 0.3 <= J < 1; each estimated under many seeds. The standardized errors
    // (estimate - J) / sqrt(J(1-J)/m) must have mean ~0 and variance <= ~1.
    let pages = sample_shingle_sets();
    let by_path: std::collections::HashMap<&str, usize> = pages
        .iter()
        .enumerate()
        .map(|(i, (u, _))| (u.rsplit_once("/html/").map_or(u.as_str(), |x| x.1), i))
        .collect();
    let mut pairs = Vec::new();
    for (i, (u, a)) in pages.iter().enumerate() {
        let path = u.rsplit_once("/html/").map_or(u.as_str(), |x| x.1);
        let candidates = [by_path.get(path).copied(), Some(i + 1)];
        for j in candidates.into_iter().flatten() {
            if j != i && j < pages.len() {
                let jac = neardup_candidates::exact_jaccard(a, &pages[j].1);
                if (0.3..1.0).contains(&jac) {
                    pairs.push((i, j, jac));
                }
            }
        }
    }
    pairs.truncate(40);
    assert!(pairs.len() >= 20, "only {} pairs", pairs.len());
    let m = 84usize;
    for (which, seeds) in [(MinHashFamily::Oph, 100u64), (MinHashFamily::Rabin, 6)] {
        let (mut n, mut sum, mut sq) = (0.0, 0.0, 0.0);
        for seed in 0..seeds {
            let family = family_of(which, m as u32, 1000 + seed);
            let (mut ma, mut mb) = (vec![0u64; m], vec![0u64; m]);
            for &(i, j, jac) in &pairs {
                minhash(&family, &pages[i].1, &mut ma);
                minhash(&family, &pages[j].1, &mut mb);
                let est = agreeing(&ma, &mb) as f64 / m as f64;
                let z = (est - jac) / (jac * (1.0 - jac) / m as f64).sqrt();
                n += 1.0;
                sum += z;
                sq += z * z;
            }
        }
        let mean = sum / n;
        let var = sq / n - mean * mean;
        eprintln!("{which:?}: {n} estimates, standardized error mean {mean:.3}, variance {var:.3}");
        assert!(
            mean.abs() <= 4.5 / n.sqrt() * var.sqrt().max(1.0),
            "{which:?}: mean {mean}"
        );
        assert!(
            var <= 1.0 + 5.0 * (2.0 / n).sqrt(),
            "{which:?}: variance {var}"
        );
    }
}

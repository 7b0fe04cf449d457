//! Statistical properties of the signatures (paper 004 section 2):
//! * the share of equal minvalues estimates the Jaccard similarity without bias and within the
//!   binomial error bound (each minvalue agrees with probability J);
//! * a supershingle of l = 14 minvalues agrees with probability J^14, so two pages that are 95%
//!   similar agree on at least 2 of 6 supershingles about 90% of the time.

use neardup_sketch::rabin::SplitMix64;
use neardup_sketch::{minhash, Family, SketchParams};
use proptest::prelude::*;

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
    ) {
        let family = Family::new(&SketchParams::default());
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
    let params = SketchParams::default();
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

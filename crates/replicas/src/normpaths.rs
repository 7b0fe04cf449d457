//! The NormPaths baseline (paper 001 section 4.1.3, equation 8; Carvalho et al. 2007): every
//! URL becomes a tuple `<path, content signature>`; each tuple's inverted list `L` holds the
//! sites that have it, and `sim(A, B) = Σ 1 / |L|` over the lists holding both `A` and `B`.

use std::collections::HashMap;

/// Similarities of every site pair sharing a tuple. `tuples` are `(tuple key, site)`; lists
/// longer than `max_list` sites are skipped (their pairs would dominate the cost and say
/// little: `1 / |L|` is tiny) and counted in the second value.
pub fn normpaths(mut tuples: Vec<(u64, u32)>, max_list: usize) -> (HashMap<(u32, u32), f64>, u64) {
    tuples.sort_unstable();
    tuples.dedup();
    let mut sim: HashMap<(u32, u32), f64> = HashMap::new();
    let mut skipped = 0;
    let mut i = 0;
    while i < tuples.len() {
        let mut j = i;
        while j < tuples.len() && tuples[j].0 == tuples[i].0 {
            j += 1;
        }
        let list = &tuples[i..j];
        if list.len() > max_list {
            skipped += 1;
        } else if list.len() >= 2 {
            let w = 1.0 / list.len() as f64;
            for a in 0..list.len() {
                for b in a + 1..list.len() {
                    *sim.entry((list[a].1, list[b].1)).or_default() += w;
                }
            }
        }
        i = j;
    }
    (sim, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equation_8_by_hand() {
        // Tuple 1 in sites 0, 1, 2; tuple 2 in sites 0, 1; tuple 3 in site 2 only.
        let t = vec![(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (3, 2), (2, 1)];
        let (s, skipped) = normpaths(t, 10);
        assert!((s[&(0, 1)] - (1.0 / 3.0 + 0.5)).abs() < 1e-12);
        assert!((s[&(0, 2)] - 1.0 / 3.0).abs() < 1e-12);
        assert!((s[&(1, 2)] - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(skipped, 0);
        let (s, skipped) = normpaths(vec![(1, 0), (1, 1), (1, 2)], 2);
        assert!(s.is_empty());
        assert_eq!(skipped, 1);
    }
}

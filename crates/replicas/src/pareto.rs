//! Pareto-efficient aggregation of two classifiers (paper 001 section 3.5).
//!
//! Each candidate is a point `(α^P(x, +), α^N(x, +))`. `a` dominates `b` when it is at least as
//! high on both and higher on one. The frontier is the set of candidates no one dominates;
//! candidates are ranked by how many others they dominate (Definition 3.6), most first.

/// `dom(x)` for every point: how many points it dominates. `O(n log n)`: points in increasing
/// first coordinate, a Fenwick tree over the ranks of the second counts those at or below.
pub fn dominance_counts(points: &[(f64, f64)]) -> Vec<u64> {
    let n = points.len();
    let mut ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    ys.sort_by(f64::total_cmp);
    ys.dedup();
    let rank = |y: f64| ys.partition_point(|&v| v.total_cmp(&y).is_lt());
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| points[a].0.total_cmp(&points[b].0));
    let mut tree = vec![0u64; ys.len() + 1];
    let mut out = vec![0u64; n];
    let mut i = 0;
    while i < n {
        // All points with this x enter the tree before any of them is counted.
        let mut j = i;
        while j < n && points[order[j]].0 == points[order[i]].0 {
            let mut k = rank(points[order[j]].1) + 1;
            while k < tree.len() {
                tree[k] += 1;
                k += k & k.wrapping_neg();
            }
            j += 1;
        }
        for &p in &order[i..j] {
            // Points with x' <= x and y' <= y, minus the equal ones (itself included).
            let mut k = rank(points[p].1) + 1;
            let mut below = 0;
            while k > 0 {
                below += tree[k];
                k -= k & k.wrapping_neg();
            }
            out[p] = below;
        }
        i = j;
    }
    // Subtract exact duplicates (they do not dominate each other).
    let mut sorted: Vec<usize> = (0..n).collect();
    sorted.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[a].1.total_cmp(&points[b].1))
    });
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j < n && points[sorted[j]] == points[sorted[i]] {
            j += 1;
        }
        for &p in &sorted[i..j] {
            out[p] -= (j - i) as u64;
        }
        i = j;
    }
    out
}

/// Whether each point is on the Pareto frontier (dominated by no other point).
pub fn frontier(points: &[(f64, f64)]) -> Vec<bool> {
    // A point is dominated iff some point has x' >= x, y' >= y and one strictly greater: sweep
    // by decreasing x keeping the best y of strictly greater x, and handle equal x apart.
    let n = points.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| points[b].0.total_cmp(&points[a].0));
    let mut out = vec![true; n];
    let mut best_y_greater_x = f64::NEG_INFINITY;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j < n && points[order[j]].0 == points[order[i]].0 {
            j += 1;
        }
        let max_y_here = order[i..j]
            .iter()
            .map(|&p| points[p].1)
            .fold(f64::NEG_INFINITY, f64::max);
        for &p in &order[i..j] {
            let y = points[p].1;
            if best_y_greater_x >= y || max_y_here > y {
                out[p] = false;
            }
        }
        best_y_greater_x = best_y_greater_x.max(max_y_here);
        i = j;
    }
    out
}

/// Candidate indices ranked by dominance count, most dominant first; ties by the sum of both
/// coordinates, then by index (deterministic).
pub fn rank(points: &[(f64, f64)]) -> Vec<usize> {
    let dom = dominance_counts(points);
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        dom[b]
            .cmp(&dom[a])
            .then((points[b].0 + points[b].1).total_cmp(&(points[a].0 + points[a].1)))
            .then(a.cmp(&b))
    });
    order
}

/// `a` dominates `b` (Definition 3.4).
pub fn dominates(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 >= b.0 && a.1 >= b.1 && (a.0 > b.0 || a.1 > b.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn figure_1_by_hand() {
        // a dominates b; b and c do not dominate each other; a and c are on the frontier.
        let p = [(0.9, 0.8), (0.5, 0.6), (0.2, 0.95), (0.1, 0.1)];
        assert_eq!(dominance_counts(&p), vec![2, 1, 1, 0]);
        assert_eq!(frontier(&p), vec![true, false, true, false]);
        assert_eq!(rank(&p), vec![0, 2, 1, 3]);
        assert!(dominates(p[0], p[1]) && !dominates(p[1], p[2]) && !dominates(p[2], p[1]));
        assert!(!dominates(p[0], p[0]));
    }

    proptest! {
        #[test]
        fn equal_brute_force(pts in proptest::collection::vec((0u8..5, 0u8..5), 0..40)) {
            let p: Vec<(f64, f64)> = pts.iter().map(|&(a, b)| (a as f64 / 4.0, b as f64 / 4.0)).collect();
            let dom: Vec<u64> = p.iter().map(|&a| p.iter().filter(|&&b| dominates(a, b)).count() as u64).collect();
            prop_assert_eq!(dominance_counts(&p), dom);
            let front: Vec<bool> = p.iter().map(|&b| !p.iter().any(|&a| dominates(a, b))).collect();
            prop_assert_eq!(frontier(&p), front);
        }
    }
}

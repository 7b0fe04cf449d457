//! Box (L-infinity) range search over real-valued signatures: every pair of points that
//! differ by less than `tol[j]` in every dimension `j` (paper 000's `(C, D)`-tolerance
//! collisions), found with a static k-d tree instead of comparing all pairs.
//!
//! The tree splits at the median of the dimension with the largest spread (measured in units
//! of that dimension's tolerance), so its depth is `log2(n / LEAF)` whatever the data. Pruning
//! is conservative (a small slack on every bound) and the leaf test is the exact predicate
//! [`within`], so the result equals the brute-force result bit for bit.

use rayon::prelude::*;

/// Points per leaf.
const LEAF: usize = 16;

/// True when `a` and `b` differ by less than `tol[j]` in every dimension.
pub fn within(a: &[f64], b: &[f64], tol: &[f64]) -> bool {
    a.iter()
        .zip(b)
        .zip(tol)
        .all(|((x, y), t)| (x - y).abs() < *t)
}

#[derive(Clone, Copy, Debug)]
enum Node {
    Leaf {
        start: u32,
        end: u32,
    },
    Split {
        dim: u32,
        at: f64,
        left: u32,
        right: u32,
    },
}

/// A k-d tree over `n` points of `dims` coordinates each (point after point).
#[derive(Debug)]
pub struct KdTree<'a> {
    points: &'a [f64],
    dims: usize,
    order: Vec<u32>,
    nodes: Vec<Node>,
}

impl<'a> KdTree<'a> {
    /// Builds the tree over the points `p` for which `include(p)`; `tol` weighs the dimensions
    /// when choosing where to split. Coordinates must be finite.
    pub fn new(
        points: &'a [f64],
        dims: usize,
        tol: &[f64],
        include: impl Fn(u32) -> bool,
    ) -> KdTree<'a> {
        assert!(dims > 0 && points.len().is_multiple_of(dims) && tol.len() == dims);
        let n = points.len() / dims;
        let mut order: Vec<u32> = (0..n as u32).filter(|&p| include(p)).collect();
        let mut nodes = Vec::with_capacity(2 * order.len() / LEAF + 1);
        let len = order.len();
        build(points, dims, tol, &mut order, 0, len, &mut nodes);
        KdTree {
            points,
            dims,
            order,
            nodes,
        }
    }

    fn point(&self, p: u32) -> &[f64] {
        &self.points[p as usize * self.dims..(p as usize + 1) * self.dims]
    }

    /// Calls `found(q)` for every indexed point `q` within `tol` of `query`.
    pub fn search(&self, query: &[f64], tol: &[f64], mut found: impl FnMut(u32)) {
        if self.order.is_empty() {
            return;
        }
        // Conservative bounds: pruning never drops a point the exact test would accept.
        let mut lo = [0.0f64; 128];
        let mut hi = [0.0f64; 128];
        let (lo, hi) = if self.dims <= 128 {
            (&mut lo[..self.dims], &mut hi[..self.dims])
        } else {
            return self.scan_all(query, tol, found);
        };
        for j in 0..self.dims {
            let slack = (query[j].abs() + tol[j]) * 1e-12 + f64::MIN_POSITIVE;
            lo[j] = query[j] - tol[j] - slack;
            hi[j] = query[j] + tol[j] + slack;
        }
        let mut stack = Vec::with_capacity(64);
        stack.push(0u32);
        while let Some(i) = stack.pop() {
            match self.nodes[i as usize] {
                Node::Leaf { start, end } => {
                    for &q in &self.order[start as usize..end as usize] {
                        if within(query, self.point(q), tol) {
                            found(q);
                        }
                    }
                }
                Node::Split {
                    dim,
                    at,
                    left,
                    right,
                } => {
                    if at >= lo[dim as usize] {
                        stack.push(left);
                    }
                    if at <= hi[dim as usize] {
                        stack.push(right);
                    }
                }
            }
        }
    }

    fn scan_all(&self, query: &[f64], tol: &[f64], mut found: impl FnMut(u32)) {
        for &q in &self.order {
            if within(query, self.point(q), tol) {
                found(q);
            }
        }
    }
}

fn build(
    points: &[f64],
    dims: usize,
    tol: &[f64],
    order: &mut [u32],
    start: usize,
    end: usize,
    nodes: &mut Vec<Node>,
) -> u32 {
    let me = nodes.len() as u32;
    if end - start <= LEAF {
        nodes.push(Node::Leaf {
            start: start as u32,
            end: end as u32,
        });
        return me;
    }
    let c = |p: u32, j: usize| points[p as usize * dims + j];
    // The dimension with the largest spread in units of its tolerance.
    let mut best = (0usize, -1.0f64);
    for (j, &t) in tol.iter().enumerate() {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &p in &order[start..end] {
            lo = lo.min(c(p, j));
            hi = hi.max(c(p, j));
        }
        let spread = (hi - lo) / if t > 0.0 { t } else { f64::MIN_POSITIVE };
        if spread > best.1 {
            best = (j, spread);
        }
    }
    let dim = best.0;
    let mid = start + (end - start) / 2;
    order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
        c(a, dim).total_cmp(&c(b, dim)).then(a.cmp(&b))
    });
    let at = c(order[mid], dim);
    nodes.push(Node::Leaf { start: 0, end: 0 }); // placeholder
    let left = build(points, dims, tol, order, start, mid, nodes);
    let right = build(points, dims, tol, order, mid, end, nodes);
    nodes[me as usize] = Node::Split {
        dim: dim as u32,
        at,
        left,
        right,
    };
    me
}

/// Every pair `(a, b)`, `a < b`, of points where `include` holds that lie within `tol` of
/// each other in every dimension; sorted. Queries run in parallel.
pub fn pairs_within(
    points: &[f64],
    dims: usize,
    tol: &[f64],
    include: impl Fn(u32) -> bool + Sync,
) -> Vec<(u32, u32)> {
    let tree = KdTree::new(points, dims, tol, &include);
    let mut out: Vec<(u32, u32)> = tree
        .order
        .par_chunks(1024)
        .flat_map_iter(|chunk| {
            let mut local = Vec::new();
            for &p in chunk {
                tree.search(tree.point(p), tol, |q| {
                    if q > p {
                        local.push((p, q));
                    }
                });
            }
            local
        })
        .collect();
    out.par_sort_unstable();
    out
}

/// The same pairs by comparing every pair (the oracle for tests).
pub fn pairs_within_brute_force(
    points: &[f64],
    dims: usize,
    tol: &[f64],
    include: impl Fn(u32) -> bool,
) -> Vec<(u32, u32)> {
    let n = (points.len() / dims) as u32;
    let pt = |p: u32| &points[p as usize * dims..(p as usize + 1) * dims];
    let mut out = Vec::new();
    for a in (0..n).filter(|&a| include(a)) {
        for b in (a + 1..n).filter(|&b| include(b)) {
            if within(pt(a), pt(b), tol) {
                out.push((a, b));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases() {
        // 1-D: 0.0, 0.05, 0.1, 0.5 with tolerance 0.06: (0,1), (1,2) but not (0,2) (0.1 apart).
        let pts = [0.0, 0.05, 0.1, 0.5];
        assert_eq!(
            pairs_within(&pts, 1, &[0.06], |_| true),
            vec![(0, 1), (1, 2)]
        );
        // Strict: a difference equal to the tolerance is not within.
        assert_eq!(pairs_within(&[0.0, 0.5], 1, &[0.5], |_| true), vec![]);
        // Excluded points take no part.
        assert_eq!(pairs_within(&pts, 1, &[0.06], |p| p != 1), vec![]);
        assert!(pairs_within(&[], 2, &[0.1, 0.1], |_| true).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, ..Default::default() })]
        /// The tree finds exactly the brute-force pairs: clustered points on a coarse lattice
        /// (so that ties and differences equal to the tolerance happen), 1 to 10 dimensions.
        #[test]
        fn tree_equals_brute_force(
            dims in 1usize..=10,
            n in 0usize..300,
            seed in proptest::prelude::any::<u64>(),
            lattice in proptest::prop_oneof![proptest::strategy::Just(8u32), proptest::strategy::Just(100), proptest::strategy::Just(1 << 20)],
            tol_steps in proptest::collection::vec(1u32..6, 10),
            skip in 0u32..5,
        ) {
            let mut state = seed;
            let mut next = || {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            };
            // A few cluster centres; points scattered a little around them.
            let centres: Vec<f64> = (0..4 * dims).map(|_| (next() % lattice as u64) as f64 / lattice as f64).collect();
            let mut pts = Vec::with_capacity(n * dims);
            for _ in 0..n {
                let c = (next() % 4) as usize;
                for j in 0..dims {
                    let jitter = (next() % 5) as f64 / lattice as f64;
                    pts.push(centres[c * dims + j] + jitter);
                }
            }
            let tol: Vec<f64> = tol_steps[..dims].iter().map(|&s| s as f64 / lattice as f64).collect();
            let include = |p: u32| skip == 0 || !p.is_multiple_of(skip + 1);
            let got = pairs_within(&pts, dims, &tol, include);
            let want = pairs_within_brute_force(&pts, dims, &tol, include);
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn many_identical_points() {
        let pts = vec![0.25; 3 * 200];
        let got = pairs_within(&pts, 3, &[0.01; 3], |_| true);
        assert_eq!(got.len(), 200 * 199 / 2);
    }
}

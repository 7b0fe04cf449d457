//! Website replica detection with distant supervision (paper 001: Carvalho, de Moura, Veloso,
//! Ziviani 2017), as pure algorithms over site pairs; the engine turns a crawl into them.
//!
//! * [`features`]: the five crawl-time features of a site pair (section 3.1): `ndist`, `nmatch`,
//!   `ip4`, `ip3`, `fullpath`.
//! * [`mdl`]: Fayyad and Irani's supervised MDL discretization of each feature into intervals.
//! * [`lac`]: the lazy (demand-driven) associative classifier: rules `X -> label` over the
//!   intervals of a candidate, their support and confidence, scores `s(x, l)` and `α(x, -)`
//!   (equations 4 and 5), kept up to date incrementally.
//! * [`em`]: EM over PU and NU data with uni-directional label transitions and the best entropy
//!   cut (equations 6 and 7) as each example's threshold (Algorithm 2).
//! * [`pareto`]: Pareto-efficient aggregation of two classifiers by dominance counts
//!   (Definitions 3.4-3.6, Algorithm 4).
//! * [`normpaths`]: the NormPaths baseline (equation 8).
//!
//! ```
//! use neardup_replicas::pareto::{dominance_counts, frontier};
//!
//! // Two classifiers' replica likelihoods for three site pairs: the first dominates both others.
//! let points = [(0.9, 0.8), (0.5, 0.7), (0.4, 0.1)];
//! assert_eq!(dominance_counts(&points), vec![2, 1, 0]);
//! assert_eq!(frontier(&points), vec![true, false, false]);
//! ```

pub mod em;
pub mod features;
pub mod lac;
pub mod mdl;
pub mod normpaths;
pub mod pareto;

/// Number of features of a site pair.
pub const FEATURES: usize = 5;

/// Feature names, in vector order.
pub const FEATURE_NAMES: [&str; FEATURES] = ["ndist", "nmatch", "ip4", "ip3", "fullpath"];

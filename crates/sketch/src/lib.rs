//! Signatures of pages: Rabin fingerprints over GF(2), shingles (k-word windows, optional
//! wrap-around), `m` min-hash pre-images under one-to-one Rabin functions, supershingles
//! (paper 004 section 2, paper 003 Alg. B), and a versioned little-endian signature file.
//!
//! ```
//! use neardup_sketch::{Family, Sketcher, SketchParams};
//! let family = Family::new(&SketchParams::default());
//! let mut sk = Sketcher::new(family);
//! let s = sk.sketch("a rose is a rose is a rose".split(' ')).unwrap();
//! assert_eq!((s.minvalues.len(), s.supershingles.len()), (84, 6));
//! ```

pub mod clmul;
pub mod oph;
mod params;
pub mod permutation;
pub mod projection;
pub mod rabin;
mod simd;
mod simhash;
mod sketcher;
pub mod streaming;

pub use crate::params::{
    Content, MinHashFamily, ParamsError, SketchParams, DEFAULT_SEED, SIGNATURE_VERSION,
};
pub use crate::projection::{RandomProjection, MAX_RP_DIMS};
pub use crate::simhash::{c_similarity, SimHasher, SIMHASH_SEED};
pub use crate::sketcher::{minhash, shingles, Family, Sketch, Sketcher};

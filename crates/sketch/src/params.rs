//! The parameters that shape a signature. They are serialized into every signature file and
//! next to it; the same parameters give bit-identical signatures on every platform and release.

use serde::{Deserialize, Serialize};

/// Version of the signature definition. Bumped on any change that alters signature bits or the
/// page facts beside them (6: title keys set versions and release names aside and keep the `+`
/// of `libfoo++`; 7: outlinks are hashed in canonical form, session ids and tracking
/// parameters set aside, and a first folder of one letter, `/t/`, names no release in a title
/// key; 8: a version's build metadata, `1.1.2+spec-1.1.0`, is part of the version in a title
/// key; 9: the one-permutation family's minvalues are the pre-images of its bins' values, as
/// the Rabin family's are, so they are members of the page's shingle set).
pub const SIGNATURE_VERSION: u32 = 9;

/// Default seed: the ASCII bytes "nearduP" followed by 0x01.
pub const DEFAULT_SEED: u64 = 0x6e65_6172_6475_7001;

/// Shingling and min-hash parameters (papers 004 section 2 and 003 Alg. B).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SketchParams {
    /// Signature definition version ([`SIGNATURE_VERSION`]).
    pub version: u32,
    /// Words per shingle (`k`): 5 in paper 004, 8 in paper 003.
    pub k: u32,
    /// Wrap the shingle window around the end so that every word starts a shingle (004). Without
    /// it a page of `n >= k` words has `n - k + 1` shingles (003) and a shorter page one shingle
    /// of all its words.
    pub wrap: bool,
    /// Number of one-to-one functions, i.e. minvalues kept per page (`m`, 84).
    pub m: u32,
    /// Minvalues per supershingle (`l`, 14).
    pub l: u32,
    /// Number of supershingles (`m'`, 6); `l * m'` must not exceed `m`.
    pub supershingles: u32,
    /// Seed from which every polynomial is drawn.
    pub seed: u64,
    /// Bits of the Alg. C simhash (paper 003: 384), 0 = not computed. A multiple of 64.
    #[serde(default)]
    pub simhash_bits: u32,
    /// Dimensions of the Random Projection of the bag of words (paper 000: 5), 0 = not
    /// computed. Signature files made with `rp_dims > 0` also hold each page's outlinks.
    #[serde(default)]
    pub rp_dims: u32,
    /// Which terms of a page the signatures are taken over (version 3).
    #[serde(default)]
    pub content: Content,
    /// How the `m` minvalues are drawn (since version 4; required, no default when read).
    pub minhash: MinHashFamily,
    /// Pages with at most this many distinct shingles keep their shingle set (32-bit
    /// fingerprints: no more room than their minvalues when it equals `m`), and two such pages
    /// are compared by their exact Jaccard instead of the estimate; 0 keeps none (version 5;
    /// required when read).
    pub exact_sets: u32,
}

/// How a page's `m` minvalues are drawn from its shingles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MinHashFamily {
    /// `m` independent one-to-one Rabin functions, `m` evaluations per shingle (paper 004);
    /// the default of the paper's supershingle matching.
    Rabin,
    /// One-permutation hashing densified by re-hashing rounds ([`crate::oph`]): one evaluation
    /// per shingle for pages that fill every bin, about `m ln m` for small pages; the same
    /// agreement probability `J` per minvalue.
    #[default]
    Oph,
}

impl MinHashFamily {
    /// The name used in parameter files and flags.
    pub fn name(self) -> &'static str {
        match self {
            MinHashFamily::Rabin => "rabin",
            MinHashFamily::Oph => "oph",
        }
    }
}

/// Which terms of a page its signatures are taken over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Content {
    /// The main content (navigation, headers, footers, sidebars and link lists left out), or
    /// the whole page when its main content is too small to stand for it; every domain name
    /// and the page's own host, label and path count as one term
    /// (`neardup_text::Document::signature_terms`).
    #[default]
    Main,
    /// Every term of the page, as the papers take them.
    Page,
}

impl Content {
    /// The tokenizer's scope for this choice.
    pub fn scope(self) -> neardup_text::Scope {
        match self {
            Content::Main => neardup_text::Scope::Main,
            Content::Page => neardup_text::Scope::Page,
        }
    }

    /// The terms of `doc` the signatures are taken over.
    pub fn terms(self, doc: &neardup_text::Document) -> neardup_text::SignatureTerms<'_> {
        match self {
            Content::Main => doc.signature_terms(neardup_text::Scope::Main),
            Content::Page => doc.signature_terms(neardup_text::Scope::Page),
        }
    }
}

impl Default for SketchParams {
    fn default() -> Self {
        SketchParams {
            version: SIGNATURE_VERSION,
            k: 5,
            wrap: true,
            m: 84,
            l: 14,
            supershingles: 6,
            seed: DEFAULT_SEED,
            simhash_bits: 0,
            rp_dims: 0,
            content: Content::Main,
            minhash: MinHashFamily::Oph,
            exact_sets: 84,
        }
    }
}

impl SketchParams {
    /// `m` minvalues per page, with the exact-set cut following it (pages with at most `m`
    /// distinct shingles keep their sets, no more room than their minvalues): the default
    /// every front end applies when only the number of min-hashes is given.
    pub fn with_minhashes(mut self, m: u32) -> SketchParams {
        self.m = m;
        self.exact_sets = m;
        self
    }
}

/// Why parameters were rejected: `setting` (a field of [`SketchParams`]) had `value` where
/// `expected` holds.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid sketch parameters: {setting} = {value} (expected {expected})")]
pub struct ParamsError {
    /// The field.
    pub setting: &'static str,
    /// What it was.
    pub value: String,
    /// What it must be.
    pub expected: String,
}

impl SketchParams {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), ParamsError> {
        let e = |setting, value: u64, expected: String| {
            Err(ParamsError {
                setting,
                value: value.to_string(),
                expected,
            })
        };
        if self.version != SIGNATURE_VERSION {
            return e(
                "version",
                self.version.into(),
                format!("version {SIGNATURE_VERSION}, the one this build makes"),
            );
        }
        if self.k == 0 || self.k > 64 {
            return e("k", self.k.into(), "1..=64 words per shingle".into());
        }
        if self.m == 0 || self.m > 1024 {
            return e("m", self.m.into(), "1..=1024 min-hash functions".into());
        }
        if self.supershingles > 16 {
            return e(
                "supershingles",
                self.supershingles.into(),
                "at most 16".into(),
            );
        }
        if self.supershingles > 0
            && (self.l == 0 || self.l as u64 * self.supershingles as u64 > self.m as u64)
        {
            return e(
                "l",
                self.l.into(),
                format!(
                    "l x {} supershingles to need at most m = {} minvalues, and l > 0",
                    self.supershingles, self.m
                ),
            );
        }
        if !self.simhash_bits.is_multiple_of(64) || self.simhash_bits > 4096 {
            return e(
                "simhash_bits",
                self.simhash_bits.into(),
                "a multiple of 64, at most 4096".into(),
            );
        }
        if self.rp_dims > crate::projection::MAX_RP_DIMS {
            return e(
                "rp_dims",
                self.rp_dims.into(),
                format!("at most {}", crate::projection::MAX_RP_DIMS),
            );
        }
        Ok(())
    }

    /// 64-bit words of the simhash.
    pub fn simhash_words(&self) -> usize {
        self.simhash_bits as usize / 64
    }
}

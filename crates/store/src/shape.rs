//! The error of a page whose signatures do not fit the parameters (corpus and signature file).

/// A page whose signatures do not fit the corpus's parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("page {url}: {what} has {got} values, the parameters say {expected}")]
pub struct ShapeError {
    /// The page.
    pub url: String,
    /// Which signature.
    pub what: &'static str,
    /// What the parameters say.
    pub expected: usize,
    /// What came.
    pub got: usize,
}

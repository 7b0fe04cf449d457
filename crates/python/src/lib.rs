//! `neardup` for Python: the engine's objects under the names and methods datasketch users
//! know, so a datasketch script ports by changing an import. This crate only translates
//! between Python and the library crates (`neardup_sketch::streaming::MinHash`,
//! `neardup_candidates::lsh::MinHashLsh`); no algorithm is written here.

// pyo3 0.22's #[pymethods] expansion converts each PyResult's PyErr into PyErr.
#![allow(clippy::useless_conversion)]

mod arrow;
mod changes;
mod datasketch;
mod datasketch_lsh;
mod dedup;

mod evidence;
mod index;
mod paragraphs;
mod progress;
mod read;
mod settings;
mod spark;
mod spark_index;

use neardup_candidates::lsh::{LshError, MinHashLsh as Lsh};
use neardup_sketch::oph::Oph;
use neardup_sketch::streaming::MinHash as Streaming;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::sync::Arc;

/// Adds one element to `m`: `bytes` as they are, `str` as UTF-8.
fn add_element(m: &mut Streaming, x: &Bound<'_, PyAny>) -> PyResult<()> {
    if let Ok(b) = x.downcast::<PyBytes>() {
        m.update_bytes(b.as_bytes());
        return Ok(());
    }
    if let Ok(s) = x.downcast::<PyString>() {
        m.update_bytes(s.to_cow()?.as_bytes());
        return Ok(());
    }
    Err(PyTypeError::new_err(format!(
        "an element is bytes or str, not {}",
        x.get_type().name()?
    )))
}

/// A min-hash signature built one element at a time (datasketch's `MinHash`): one-permutation
/// hashing densified by re-hashing rounds, so its digest does not depend on the order or
/// repeats of the elements, nor on how they were split over merged signatures.
///
/// >>> from neardup import MinHash
/// >>> a, b = MinHash(num_perm=128), MinHash(num_perm=128)
/// >>> a.update_batch(w.encode() for w in "the quick brown fox".split())
/// >>> b.update_batch(w.encode() for w in "the quick brown dog".split())
/// >>> round(a.jaccard(b), 1) <= 1.0
/// True
#[pyclass(module = "neardup._neardup")]
#[derive(Clone)]
struct MinHash {
    inner: Streaming,
    seed: u64,
}

#[pymethods]
impl MinHash {
    /// `num_perm` minvalues (1 to 1024) of the family drawn from `seed`.
    #[new]
    #[pyo3(signature = (num_perm = 128, seed = 1))]
    fn new(num_perm: i64, seed: u64) -> PyResult<MinHash> {
        if !(1..=1024).contains(&num_perm) {
            return Err(PyValueError::new_err(format!(
                "num_perm {num_perm}: expected 1 to 1024"
            )));
        }
        let num_perm = num_perm as u32;
        Ok(MinHash {
            inner: Streaming::new(Arc::new(Oph::new(num_perm, seed))),
            seed,
        })
    }

    /// Adds one element (bytes, or str as UTF-8).
    fn update(&mut self, b: &Bound<'_, PyAny>) -> PyResult<()> {
        add_element(&mut self.inner, b)
    }

    /// Adds every element of an iterable.
    fn update_batch(&mut self, bs: &Bound<'_, PyAny>) -> PyResult<()> {
        for b in bs.iter()? {
            add_element(&mut self.inner, &b?)?;
        }
        Ok(())
    }

    /// The estimated Jaccard similarity with `other` (0.0 when either is empty).
    fn jaccard(&self, other: &MinHash) -> PyResult<f64> {
        self.inner
            .jaccard(&other.inner)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Makes this the signature of the union of both sets.
    fn merge(&mut self, other: &MinHash) -> PyResult<()> {
        self.inner
            .merge(&other.inner)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The minvalues, as ints (64-bit).
    fn digest(&self) -> Vec<u64> {
        self.inner.digest()
    }

    /// Whether no element was added.
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// A copy.
    fn copy(&self) -> MinHash {
        self.clone()
    }

    /// The seed of the family.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    fn __len__(&self) -> usize {
        self.inner.family().m()
    }

    fn __eq__(&self, other: &MinHash) -> bool {
        self.seed == other.seed
            && self.inner.family().m() == other.inner.family().m()
            && self.inner.digest() == other.inner.digest()
    }

    /// Pickling: the arguments of a fresh signature of the same family ...
    fn __getnewargs__(&self) -> (usize, u64) {
        (self.inner.family().m(), self.seed)
    }

    /// ... and its state (`neardup_sketch::streaming::MinHash::state`: versioned bytes).
    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new_bound(py, &self.inner.state())
    }

    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        self.inner = Streaming::from_state(self.inner.family().clone(), state)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "MinHash(num_perm={}, seed={})",
            self.inner.family().m(),
            self.seed
        )
    }
}

/// A key of an LSH index: str, bytes or int.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Str(String),
    Bytes(Vec<u8>),
    Int(i64),
}

impl<'py> FromPyObject<'py> for Key {
    fn extract_bound(x: &Bound<'py, PyAny>) -> PyResult<Key> {
        if let Ok(s) = x.downcast::<PyString>() {
            return Ok(Key::Str(s.to_cow()?.into_owned()));
        }
        if let Ok(b) = x.downcast::<PyBytes>() {
            return Ok(Key::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(i) = x.extract::<i64>() {
            return Ok(Key::Int(i));
        }
        Err(PyTypeError::new_err(format!(
            "an LSH key is str, bytes or int, not {}",
            x.get_type().name()?
        )))
    }
}

impl IntoPy<PyObject> for Key {
    fn into_py(self, py: Python<'_>) -> PyObject {
        match self {
            Key::Str(s) => s.into_py(py),
            Key::Bytes(b) => PyBytes::new_bound(py, &b).into_py(py),
            Key::Int(i) => i.into_py(py),
        }
    }
}

fn lsh_error(e: LshError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An in-memory LSH index of `MinHash` signatures (datasketch's `MinHashLSH`): bands and rows
/// chosen for `threshold` as datasketch chooses them; `query` returns the keys sharing a band
/// with the signature, in a fixed order.
#[pyclass(module = "neardup._neardup")]
struct MinHashLSH {
    inner: Lsh<Key>,
    seed: Option<u64>,
}

#[pymethods]
impl MinHashLSH {
    /// An index for signatures of `num_perm` minvalues, tuned for Jaccard `threshold` with
    /// `weights` = (false-positive weight, false-negative weight); or `params` = (bands, rows).
    #[new]
    #[pyo3(signature = (threshold = 0.9, num_perm = 128, weights = (0.5, 0.5), params = None))]
    fn new(
        threshold: f64,
        num_perm: i64,
        weights: (f64, f64),
        params: Option<(usize, usize)>,
    ) -> PyResult<MinHashLSH> {
        let num_perm = usize::try_from(num_perm)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                PyValueError::new_err(format!("num_perm {num_perm}: expected a positive number"))
            })?;
        let inner = match params {
            Some((b, r)) => Lsh::with_bands(num_perm, b, r),
            None => Lsh::new(num_perm, threshold, weights.0, weights.1),
        }
        .map_err(lsh_error)?;
        Ok(MinHashLSH { inner, seed: None })
    }

    /// Bands.
    #[getter]
    fn b(&self) -> u32 {
        self.inner.banding().bands
    }

    /// Rows per band.
    #[getter]
    fn r(&self) -> u32 {
        self.inner.banding().rows
    }

    /// Adds `key` with its signature (an error if the key is held already).
    #[pyo3(signature = (key, minhash, check_duplication = true))]
    fn insert(&mut self, key: Key, minhash: &MinHash, check_duplication: bool) -> PyResult<()> {
        let _ = check_duplication; // duplicates are always refused: one signature per key
        self.check_seed(minhash)?;
        self.inner
            .insert(key, &minhash.inner.digest())
            .map_err(lsh_error)
    }

    /// The keys whose signatures share a band with `minhash`.
    fn query(&self, minhash: &MinHash) -> PyResult<Vec<Key>> {
        if self.seed.is_some_and(|s| s != minhash.seed) {
            return Err(PyValueError::new_err(
                "the signature's seed differs from the index's signatures'",
            ));
        }
        self.inner.query(&minhash.inner.digest()).map_err(lsh_error)
    }

    /// Removes `key` (an error if it is not held).
    fn remove(&mut self, key: Key) -> PyResult<()> {
        self.inner.remove(&key).map_err(lsh_error)
    }

    /// Whether no key is held.
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    fn __contains__(&self, key: Key) -> bool {
        self.inner.contains(&key)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Pickling: a fresh index of the same bands and rows ...
    fn __getnewargs__(&self) -> (f64, usize, (f64, f64), (u32, u32)) {
        let b = self.inner.banding();
        (0.9, self.inner.m(), (0.5, 0.5), (b.bands, b.rows))
    }

    /// ... then its state: the bands' error masses, the signatures' seed, every key with its
    /// band hashes in insertion order (so answers come back in the same order), and the
    /// version of the band hashes.
    #[allow(clippy::type_complexity)]
    fn __getstate__(&self) -> (f64, f64, Option<u64>, Vec<(Key, Vec<u64>)>, u32) {
        let b = self.inner.banding();
        let entries = self
            .inner
            .entries()
            .into_iter()
            .map(|(k, h)| (k.clone(), h.to_vec()))
            .collect();
        (
            b.false_positive,
            b.false_negative,
            self.seed,
            entries,
            neardup_candidates::lsh::BAND_HASH_VERSION,
        )
    }

    fn __setstate__(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        type State = (f64, f64, Option<u64>, Vec<(Key, Vec<u64>)>, u32);
        let (fp, fneg, seed, entries, version): State = state.extract().map_err(|_| {
            PyValueError::new_err(
                "this MinHashLSH was pickled by an older neardup whose band hashes this one \
                 does not compute: rebuild the index from its signatures",
            )
        })?;
        if version != neardup_candidates::lsh::BAND_HASH_VERSION {
            return Err(PyValueError::new_err(format!(
                "this MinHashLSH holds band hashes of version {version}; this neardup computes \
                 version {}: rebuild the index from its signatures",
                neardup_candidates::lsh::BAND_HASH_VERSION
            )));
        }
        let mut banding = self.inner.banding();
        banding.false_positive = fp;
        banding.false_negative = fneg;
        let mut inner = Lsh::with_banding(self.inner.m(), banding).map_err(lsh_error)?;
        for (k, h) in entries {
            inner.insert_hashes(k, h).map_err(lsh_error)?;
        }
        self.inner = inner;
        self.seed = seed;
        Ok(())
    }
}

impl MinHashLSH {
    /// Every signature of one index must come from one family.
    fn check_seed(&mut self, m: &MinHash) -> PyResult<()> {
        match self.seed {
            Some(s) if s != m.seed => Err(PyValueError::new_err(format!(
                "a signature of seed {}; this index holds signatures of seed {s}",
                m.seed
            ))),
            _ => {
                self.seed = Some(m.seed);
                Ok(())
            }
        }
    }
}

pyo3::create_exception!(
    neardup,
    NeardupError,
    pyo3::exceptions::PyException,
    "An error the engine reported (an input it could not read, an index it could not open, a \
     strict run stopped at a malformed record); `kind` names which, `str(e)` says it in words."
);

/// The engine's error as a Python exception carrying its message and `kind`: `ValueError` for
/// settings that cannot run, [`NeardupError`] for everything else.
pub(crate) fn engine_err(e: neardup_engine::Error) -> PyErr {
    use neardup_engine::Error as E;
    let kind = match &e {
        E::Ingest(neardup_ingest::IngestError::Malformed(_)) => "malformed-input",
        E::Ingest(_) => "input",
        E::SignatureFile(_) => "signature-file",
        E::Index(neardup_index::IndexError::AlreadyAdded { .. }) => "already-added",
        E::Index(_) => "index",
        E::ParamsMismatch { .. } => "params-mismatch",
        E::SignaturesCannotVerify { .. } => "signatures-cannot-verify",
        E::Settings(_) | E::Params(_) | E::Config(_) | E::Chunking(_) => "settings",
        E::Report(_) => "output",
        E::BadTable { .. } => "bad-table",
        E::Threads { .. } => "threads",
        E::NothingRead { .. } => "nothing-read",
        E::Scratch { .. } => "scratch",
        E::Cancelled => "cancelled",
        #[allow(unreachable_patterns)]
        _ => "other",
    };
    let mut message = e.to_string();
    if kind == "already-added" {
        message.push_str("; pass again=True to read it again (records the index holds are still not added twice)");
    }
    let err = if e.is_usage() {
        PyValueError::new_err(message)
    } else {
        NeardupError::new_err(message)
    };
    Python::with_gil(|py| {
        let _ = err.value_bound(py).setattr("kind", kind);
    });
    err
}

/// The kept corpus's errors: an input it cannot write is a `ValueError`; reading and writing
/// failures a [`NeardupError`] of kind `input` or `output`.
pub(crate) fn clean_err(e: neardup_clean::CleanError) -> PyErr {
    use neardup_clean::CleanError as E;
    let kind = match &e {
        E::Format { .. } | E::FieldExists { .. } => {
            return PyValueError::new_err(e.to_string());
        }
        E::Read { .. } => "input",
        _ => "output",
    };
    let err = NeardupError::new_err(e.to_string());
    Python::with_gil(|py| {
        let _ = err.value_bound(py).setattr("kind", kind);
    });
    err
}

/// `neardup.demo(path)`: the example world README's examples run in ([`neardup_demo`]); a
/// dict of each file or folder written and what it is.
#[pyfunction]
fn demo<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let world = py
        .allow_threads(|| neardup_demo::write(&path))
        .map_err(|e| {
            let kind = match e {
                neardup_demo::DemoError::NotEmpty(_) => "not-empty",
                _ => "output",
            };
            let err = NeardupError::new_err(e.to_string());
            let _ = err.value_bound(py).setattr("kind", kind);
            err
        })?;
    let d = pyo3::types::PyDict::new_bound(py);
    for e in &world.entries {
        d.set_item(&e.path, &e.about)?;
    }
    Ok(d)
}

/// The native module.
#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(demo, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::dedup, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::explain, m)?)?;
    m.add_function(wrap_pyfunction!(paragraphs::paragraphs, m)?)?;
    m.add_function(wrap_pyfunction!(paragraphs::contamination, m)?)?;
    m.add_function(wrap_pyfunction!(changes::changes, m)?)?;
    m.add_function(wrap_pyfunction!(changes::audit, m)?)?;
    m.add_function(wrap_pyfunction!(settings::defaults, m)?)?;
    m.add_function(wrap_pyfunction!(evidence::evidence_columns, m)?)?;
    m.add_function(wrap_pyfunction!(evidence::evidence_ddl, m)?)?;
    // The bucket size up to which candidates are every pair (the Spark job's windows follow it).
    m.add("ALL_PAIRS_BUCKET", neardup_dedup::steps::ALL_PAIRS_BUCKET)?;
    m.add("LOCAL_EDGES", neardup_dedup::parts::LOCAL_EDGES)?;
    m.add("MAX_ROUNDS", neardup_dedup::parts::MAX_ROUNDS)?;
    m.add_class::<arrow::ArrowTable>()?;
    m.add_class::<index::Index>()?;
    m.add_class::<read::Reader>()?;
    m.add_class::<spark::Parts>()?;
    m.add_class::<paragraphs::ParagraphParts>()?;
    m.add_class::<paragraphs::ContaminationParts>()?;
    m.add_function(wrap_pyfunction!(spark::clusters, m)?)?;
    m.add_function(wrap_pyfunction!(spark::identity_sets, m)?)?;
    m.add_function(wrap_pyfunction!(spark::bucket_edges, m)?)?;
    m.add_function(wrap_pyfunction!(spark::canonical_pages, m)?)?;
    m.add_function(wrap_pyfunction!(spark::star_edges, m)?)?;
    m.add_function(wrap_pyfunction!(spark::star_breaks, m)?)?;
    m.add_function(wrap_pyfunction!(spark_index::index_sketch, m)?)?;
    m.add_class::<spark_index::IndexParts>()?;
    m.add_class::<spark_index::IndexPartWriter>()?;
    m.add("NeardupError", m.py().get_type_bound::<NeardupError>())?;
    m.add_class::<MinHash>()?;
    m.add_class::<MinHashLSH>()?;
    m.add_class::<datasketch::Permutations>()?;
    m.add_class::<datasketch::Signature>()?;
    m.add_function(wrap_pyfunction!(datasketch::sha1_hash32, m)?)?;
    m.add_function(wrap_pyfunction!(datasketch::sha1_hash64, m)?)?;
    m.add_function(wrap_pyfunction!(datasketch::bulk_values, m)?)?;
    m.add_function(wrap_pyfunction!(datasketch_lsh::optimal_param, m)?)?;
    m.add("MERSENNE_61", neardup_sketch::permutation::MERSENNE_61)?;
    m.add("MAX_HASH", neardup_sketch::permutation::MAX_HASH)?;
    m.add(
        "BAND_HASH_VERSION",
        neardup_candidates::lsh::BAND_HASH_VERSION,
    )?;
    m.add_class::<datasketch_lsh::LshTables>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

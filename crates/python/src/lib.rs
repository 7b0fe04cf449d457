//! `neardup` for Python: the engine's objects under the names and methods datasketch users
//! know, so a datasketch script ports by changing an import. This crate only translates
//! between Python and the library crates (`neardup_sketch::streaming::MinHash`,
//! `neardup_candidates::lsh::MinHashLsh`); no algorithm is written here.

// pyo3 0.22's #[pymethods] expansion converts each PyResult's PyErr into PyErr.
#![allow(clippy::useless_conversion)]

use neardup_candidates::lsh::{LshError, MinHashLsh as Lsh};
use neardup_sketch::oph::Oph;
use neardup_sketch::streaming::MinHash as Streaming;
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
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
    fn new(num_perm: u32, seed: u64) -> PyResult<MinHash> {
        if !(1..=1024).contains(&num_perm) {
            return Err(PyValueError::new_err(format!(
                "num_perm {num_perm}: expected 1 to 1024"
            )));
        }
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
        num_perm: usize,
        weights: (f64, f64),
        params: Option<(usize, usize)>,
    ) -> PyResult<MinHashLSH> {
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

/// The text of row `i`'s column `col`: a `str`, or `bytes` of valid UTF-8.
fn text_of(row: &Bound<'_, PyAny>, i: usize, col: &str) -> PyResult<String> {
    let v = row
        .get_item(col)
        .map_err(|_| PyKeyError::new_err(format!("row {i} has no {col:?} column")))?;
    if v.is_none() {
        return Err(PyValueError::new_err(format!(
            "row {i}: {col} is None (give every row a text, or drop the row)"
        )));
    }
    if let Ok(s) = v.downcast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if let Ok(b) = v.downcast::<PyBytes>() {
        return String::from_utf8(b.as_bytes().to_vec())
            .map_err(|e| PyValueError::new_err(format!("row {i}: {col} is not valid UTF-8: {e}")));
    }
    Err(PyTypeError::new_err(format!(
        "row {i}: {col} is {}, expected str or bytes",
        v.get_type().name()?
    )))
}

/// Near-duplicate clusters of `records` (an iterable of mappings), the `neardup dedup` job
/// with the same defaults and settings, run in Rust with the GIL released.
///
/// Returns the columns of one row per record, in order, as a dict of lists (give it to
/// `pyarrow.table` or `pandas.DataFrame`): `row` (position), `id` (the record's `id` column,
/// or its position), `cluster` (None when the record has no near-duplicate), `cluster_size`,
/// `canonical` (the id of the record kept for its cluster), `canonical_row`, `keep`, and the
/// evidence against the kept record: `rule`, `estimated_jaccard`, `exact_jaccard`,
/// `containment` (None for kept records).
///
/// Settings: `threshold` (Jaccard, default 0.8), `containment` (share, default 0.8; None
/// turns the containment rule off), `threads` (default: every core).
#[pyfunction]
#[pyo3(signature = (records, text = "text", id = Some("id"), url = None, *, threshold = 0.8, containment = Some(0.8), threads = None))]
#[allow(clippy::too_many_arguments)]
fn dedup<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    text: &str,
    id: Option<&str>,
    url: Option<&str>,
    threshold: f64,
    containment: Option<f64>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    use neardup_engine::dedup::{self as job, DedupOptions, DedupSettings};
    let mut pages = Vec::new();
    let mut ids: Vec<PyObject> = Vec::new();
    for (i, row) in records.iter()?.enumerate() {
        let row = row?;
        let body = text_of(&row, i, text)?;
        let page_url = match url {
            Some(col) => text_of(&row, i, col)?,
            None => String::new(),
        };
        let caller_id = match id {
            Some(col) => match row.get_item(col) {
                Ok(v) if !v.is_none() => v.unbind(),
                _ => i.into_py(py),
            },
            None => i.into_py(py),
        };
        ids.push(caller_id);
        pages.push(neardup_ingest::Page::text(page_url, body).with_id(i.to_string()));
    }
    let mut opts = DedupOptions::default();
    opts.config.threshold = threshold;
    opts.config.containment = containment;
    if let Some(t) = threads {
        opts.pipeline.threads = t;
    }
    // An empty dataset has nothing to deduplicate: an empty table, not an error.
    opts.pipeline.allow_empty = true;
    let settings = DedupSettings::new(opts).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let n = pages.len();
    let report = py
        .allow_threads(|| {
            job::run(
                &[neardup_engine::Input::pages("records", pages)],
                &settings,
                &neardup_engine::NoProgress,
            )
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    // Rows by position (the engine's page ids are the positions).
    let pos = |s: &str| s.parse::<usize>().ok().filter(|&p| p < n);
    let mut cluster: Vec<Option<u64>> = vec![None; n];
    let mut size: Vec<u64> = vec![1; n];
    let mut canonical: Vec<usize> = (0..n).collect();
    let mut evidence: Vec<Option<Evidence>> = vec![None; n];
    for c in &report.tables.clusters {
        if let Some(p) = pos(&c.id) {
            cluster[p] = Some(c.cluster);
            size[p] = c.cluster_size;
        }
    }
    for r in &report.tables.remove {
        if let (Some(p), Some(k)) = (pos(&r.id), pos(&r.kept_id)) {
            canonical[p] = k;
            let rule = serde_json_rule(r.rule);
            evidence[p] = Some(Evidence {
                rule,
                estimated: r.estimated_jaccard,
                exact: r.exact_jaccard,
                containment: r.containment,
            });
        }
    }
    let out = PyDict::new_bound(py);
    out.set_item("row", (0..n).collect::<Vec<_>>())?;
    out.set_item(
        "id",
        ids.iter().map(|o| o.clone_ref(py)).collect::<Vec<_>>(),
    )?;
    out.set_item("cluster", cluster)?;
    out.set_item("cluster_size", size)?;
    out.set_item(
        "canonical",
        canonical
            .iter()
            .map(|&k| ids[k].clone_ref(py))
            .collect::<Vec<_>>(),
    )?;
    out.set_item("canonical_row", canonical.clone())?;
    out.set_item(
        "keep",
        canonical
            .iter()
            .enumerate()
            .map(|(i, &k)| i == k)
            .collect::<Vec<_>>(),
    )?;
    let column = |f: fn(&Evidence) -> Option<f64>| -> Vec<Option<f64>> {
        evidence.iter().map(|e| e.as_ref().and_then(f)).collect()
    };
    out.set_item(
        "rule",
        evidence
            .iter()
            .map(|e| e.as_ref().map(|e| e.rule.clone()))
            .collect::<Vec<_>>(),
    )?;
    out.set_item("estimated_jaccard", column(|e| Some(e.estimated)))?;
    out.set_item("exact_jaccard", column(|e| e.exact))?;
    out.set_item("containment", column(|e| Some(e.containment)))?;
    Ok(out)
}

/// The evidence a removed record carries against the record kept.
#[derive(Clone)]
struct Evidence {
    rule: String,
    estimated: f64,
    exact: Option<f64>,
    containment: f64,
}

/// A rule's name as every table writes it (`lsh-bands`, `identical-tokens`, ...).
fn serde_json_rule(r: neardup_engine::dedup::Rule) -> String {
    match serde_json::to_value(r) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{r:?}"),
    }
}

/// The native module.
#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dedup, m)?)?;
    m.add_class::<MinHash>()?;
    m.add_class::<MinHashLSH>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

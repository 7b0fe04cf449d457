//! `neardup.datasketch.MinHashLSH`'s native half: the band tables
//! (`neardup_candidates::lsh::MinHashLsh`, written once for every door) holding entry numbers,
//! and the Python key of each entry, so that an insert or a query, one or a million, makes no
//! Python call per band or per row. The Python class maps keys to entries, checks arguments
//! with datasketch's messages and shows the tables as datasketch's `hashtables` and `keys`.

use crate::datasketch::{u64s, Signature};
use arrow_array::Array as _;
use neardup_candidates::lsh::{LshError, MinHashLsh};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

fn lsh_err(e: LshError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Band tables of entries: each entry is one signature inserted under one key (a key inserted
/// twice without the duplicate check holds two entries).
#[pyclass(module = "neardup._neardup")]
pub struct LshTables {
    lsh: MinHashLsh<u64>,
    /// Entry number -> its key (`None` once removed).
    keys: Vec<Option<PyObject>>,
    /// Minvalues per signature the tables read (bands x rows); a signature may be longer.
    used: usize,
    /// Scratch: band hashes, answer entries, found slots (reused call after call).
    hashes: Vec<u64>,
    found: Vec<u64>,
    slots: Vec<u32>,
}

impl LshTables {
    /// Inserts `key` under the band hashes of `values` (its first `used` values).
    fn add(&mut self, key: PyObject, values: &[u64]) -> PyResult<u64> {
        self.band(values)?;
        let id = self.keys.len() as u64;
        self.lsh
            .insert_band_hashes(id, &self.hashes)
            .map_err(lsh_err)?;
        self.keys.push(Some(key));
        Ok(id)
    }

    /// The band hashes of `values` into the scratch buffer.
    fn band(&mut self, values: &[u64]) -> PyResult<()> {
        let v = values.get(..self.used).ok_or_else(|| {
            PyValueError::new_err(format!(
                "a signature of {} values; the bands read {}",
                values.len(),
                self.used
            ))
        })?;
        self.lsh
            .band_hashes_into(v, &mut self.hashes)
            .map_err(lsh_err)
    }

    /// The entries sharing a band with `values`, into the scratch buffer.
    fn find(&mut self, values: &[u64]) -> PyResult<()> {
        self.band(values)?;
        self.lsh
            .query_into(&self.hashes, &mut self.found, &mut self.slots)
            .map_err(lsh_err)
    }

    fn keys_of(&self, py: Python<'_>, ids: &[u64]) -> Vec<PyObject> {
        ids.iter()
            .filter_map(|&i| self.keys[i as usize].as_ref().map(|k| k.clone_ref(py)))
            .collect()
    }

    /// Checks a matrix of `values` uint64s as rows of `k`.
    fn check_rows(&self, values: usize, k: usize) -> PyResult<usize> {
        if k < self.used || k == 0 || !values.is_multiple_of(k) {
            return Err(PyValueError::new_err(format!(
                "{values} values: not rows of {k} uint64 values, at least {} each",
                self.used
            )));
        }
        Ok(values / k)
    }
}

/// A signature matrix, row after row: a pyarrow UInt64 array without nulls (a numpy matrix's
/// memory, shared) or little-endian uint64 bytes.
enum Matrix {
    Arrow(arrow_array::UInt64Array),
    Bytes(Vec<u64>),
}

impl Matrix {
    fn of(obj: &Bound<'_, PyAny>) -> PyResult<Matrix> {
        if let Ok(b) = obj.downcast::<pyo3::types::PyBytes>() {
            let b = b.as_bytes();
            if !b.len().is_multiple_of(8) {
                return Err(PyValueError::new_err(
                    "signature bytes: not whole uint64 values",
                ));
            }
            return Ok(Matrix::Bytes(u64s(b)));
        }
        let a = crate::arrow::import_array(obj)?;
        let a = a
            .as_any()
            .downcast_ref::<arrow_array::UInt64Array>()
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "signatures: expected uint64 values, got {}",
                    a.data_type()
                ))
            })?;
        if arrow_array::Array::null_count(a) > 0 {
            return Err(PyValueError::new_err("signatures: a null value"));
        }
        Ok(Matrix::Arrow(a.clone()))
    }

    fn values(&self) -> &[u64] {
        match self {
            Matrix::Arrow(a) => a.values(),
            Matrix::Bytes(v) => v,
        }
    }
}

#[pymethods]
impl LshTables {
    /// Empty tables of `bands` bands of `rows` rows (they read the first `bands * rows` values
    /// of a signature).
    #[new]
    fn new(bands: usize, rows: usize) -> PyResult<LshTables> {
        let used = bands.saturating_mul(rows);
        Ok(LshTables {
            lsh: MinHashLsh::with_bands(used, bands, rows).map_err(lsh_err)?,
            keys: Vec::new(),
            used,
            hashes: Vec::new(),
            found: Vec::new(),
            slots: Vec::new(),
        })
    }

    /// Inserts `key` with a signature's values; returns the entry's number.
    fn insert_signature(&mut self, key: PyObject, signature: &Signature) -> PyResult<u64> {
        self.add(key, &signature.values)
    }

    /// Inserts `key` with values as little-endian uint64 bytes.
    fn insert_values(&mut self, key: PyObject, values: &[u8]) -> PyResult<u64> {
        self.add(key, &u64s(values))
    }

    /// Inserts `keys[i]` with row `i` of a `len(keys) x k` matrix ([`Matrix`]); returns the
    /// first entry's number (the others follow it).
    fn insert_many(
        &mut self,
        keys: &Bound<'_, PyList>,
        matrix: &Bound<'_, PyAny>,
        k: usize,
    ) -> PyResult<u64> {
        let matrix = Matrix::of(matrix)?;
        let rows = self.check_rows(matrix.values().len(), k)?;
        if rows != keys.len() {
            return Err(PyValueError::new_err(format!(
                "{} keys and {rows} signatures",
                keys.len()
            )));
        }
        let first = self.keys.len() as u64;
        for (key, row) in keys.iter().zip(matrix.values().chunks_exact(k)) {
            self.add(key.unbind(), row)?;
        }
        Ok(first)
    }

    /// Inserts `key` with band hashes from [`LshTables::band_hashes`] (a pickle, a merge).
    fn insert_hashes(&mut self, key: PyObject, hashes: Vec<u64>) -> PyResult<u64> {
        let id = self.keys.len() as u64;
        self.lsh.insert_band_hashes(id, &hashes).map_err(lsh_err)?;
        self.keys.push(Some(key));
        Ok(id)
    }

    /// The keys of every entry sharing a band with a signature (each entry once; a key held
    /// in two entries may come twice).
    fn query_signature(
        &mut self,
        py: Python<'_>,
        signature: &Signature,
    ) -> PyResult<Vec<PyObject>> {
        self.find(&signature.values)?;
        Ok(self.keys_of(py, &self.found))
    }

    /// [`LshTables::query_signature`] of values as little-endian uint64 bytes.
    fn query_values(&mut self, py: Python<'_>, values: &[u8]) -> PyResult<Vec<PyObject>> {
        self.find(&u64s(values))?;
        Ok(self.keys_of(py, &self.found))
    }

    /// One answer per row of a `rows x k` matrix ([`Matrix`]).
    fn query_many<'py>(
        &mut self,
        py: Python<'py>,
        matrix: &Bound<'py, PyAny>,
        k: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let matrix = Matrix::of(matrix)?;
        self.check_rows(matrix.values().len(), k)?;
        let out = PyList::empty_bound(py);
        for row in matrix.values().chunks_exact(k) {
            self.find(row)?;
            // Every entry found is held (a removed one leaves the tables).
            let keys = self.found.iter().map(|&i| {
                self.keys[i as usize]
                    .as_ref()
                    .map_or_else(|| py.None(), |k| k.clone_ref(py))
            });
            out.append(PyList::new_bound(py, keys))?;
        }
        Ok(out)
    }

    /// Removes entry `id`.
    fn remove(&mut self, id: u64) -> PyResult<()> {
        self.lsh.remove(&id).map_err(lsh_err)?;
        if let Some(k) = self.keys.get_mut(id as usize) {
            *k = None;
        }
        Ok(())
    }

    /// Entry `id`'s band hashes.
    fn band_hashes(&self, id: u64) -> PyResult<Vec<u64>> {
        self.lsh
            .hashes_of(&id)
            .map(<[u64]>::to_vec)
            .ok_or_else(|| lsh_err(LshError::Missing))
    }

    /// Band `band`'s buckets: (hash, number of entries), by hash.
    fn buckets(&self, band: usize) -> Vec<(u64, usize)> {
        self.lsh.buckets(band)
    }

    /// The keys in band `band`'s bucket `hash`.
    fn bucket(&self, py: Python<'_>, band: usize, hash: u64) -> Vec<PyObject> {
        let ids: Vec<u64> = self.lsh.bucket(band, hash).into_iter().copied().collect();
        self.keys_of(py, &ids)
    }

    /// Every entry's key and band hashes, in insertion order (for pickles and merges).
    fn entries(&self, py: Python<'_>) -> Vec<(PyObject, Vec<u64>)> {
        self.lsh
            .entries()
            .into_iter()
            .filter_map(|(id, h)| {
                let key = self.keys[*id as usize].as_ref()?;
                Some((key.clone_ref(py), h.to_vec()))
            })
            .collect()
    }

    /// Entries held.
    fn __len__(&self) -> usize {
        self.lsh.len()
    }
}

/// datasketch's `_optimal_param`: the bands and rows of at most `num_perm` values that
/// minimize the weighted false-positive and false-negative masses at `threshold`
/// (`neardup_candidates::optimal_bands`, the rule every neardup index uses).
#[pyfunction]
pub fn optimal_param(
    threshold: f64,
    num_perm: u32,
    false_positive_weight: f64,
    false_negative_weight: f64,
) -> (u32, u32) {
    let b = neardup_candidates::optimal_bands(
        num_perm,
        threshold,
        false_positive_weight,
        false_negative_weight,
    );
    (b.bands, b.rows)
}

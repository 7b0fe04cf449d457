//! `neardup.datasketch.MinHashLSH`'s native half: the band tables
//! (`neardup_candidates::lsh::MinHashLsh`, written once for every door) holding entry numbers,
//! and the Python key of each entry, so that an insert or a query, one or a million, makes no
//! Python call per band or per row. The Python class maps keys to entries, checks arguments
//! with datasketch's messages and shows the tables as datasketch's `hashtables` and `keys`.

use crate::datasketch::{u64s, Signature};
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
}

impl LshTables {
    fn add(&mut self, key: PyObject, hashes: Vec<u64>) -> PyResult<u64> {
        let id = self.keys.len() as u64;
        self.lsh.insert_hashes(id, hashes).map_err(lsh_err)?;
        self.keys.push(Some(key));
        Ok(id)
    }

    fn hashes(&self, values: &[u64]) -> PyResult<Vec<u64>> {
        let v = values.get(..self.used).ok_or_else(|| {
            PyValueError::new_err(format!(
                "a signature of {} values; the bands read {}",
                values.len(),
                self.used
            ))
        })?;
        self.lsh.band_hashes(v).map_err(lsh_err)
    }

    fn keys_of(&self, py: Python<'_>, ids: &[u64]) -> Vec<PyObject> {
        ids.iter()
            .filter_map(|&i| self.keys[i as usize].as_ref().map(|k| k.clone_ref(py)))
            .collect()
    }

    /// The rows of a `rows x k` matrix of little-endian uint64 bytes.
    fn rows<'a>(&self, matrix: &'a [u8], k: usize) -> PyResult<std::slice::ChunksExact<'a, u8>> {
        if k < self.used || !matrix.len().is_multiple_of(k * 8) {
            return Err(PyValueError::new_err(format!(
                "{} bytes: not rows of {k} uint64 values, at least {} each",
                matrix.len(),
                self.used
            )));
        }
        Ok(matrix.chunks_exact(k * 8))
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
        })
    }

    /// Inserts `key` with a signature's values; returns the entry's number.
    fn insert_signature(&mut self, key: PyObject, signature: &Signature) -> PyResult<u64> {
        let hashes = self.hashes(&signature.values)?;
        self.add(key, hashes)
    }

    /// Inserts `key` with values as little-endian uint64 bytes.
    fn insert_values(&mut self, key: PyObject, values: &[u8]) -> PyResult<u64> {
        let hashes = self.hashes(&u64s(values))?;
        self.add(key, hashes)
    }

    /// Inserts `keys[i]` with row `i` of a `len(keys) x k` matrix of little-endian uint64
    /// bytes; returns the first entry's number (the others follow it).
    fn insert_many(&mut self, keys: &Bound<'_, PyList>, matrix: &[u8], k: usize) -> PyResult<u64> {
        let rows = self.rows(matrix, k)?;
        if rows.len() != keys.len() {
            return Err(PyValueError::new_err(format!(
                "{} keys and {} signatures",
                keys.len(),
                rows.len()
            )));
        }
        let first = self.keys.len() as u64;
        let mut values = vec![0u64; k];
        for (key, row) in keys.iter().zip(rows) {
            for (v, b) in values.iter_mut().zip(row.chunks_exact(8)) {
                *v = u64::from_le_bytes(b.try_into().expect("8 bytes"));
            }
            let hashes = self.hashes(&values)?;
            self.add(key.unbind(), hashes)?;
        }
        Ok(first)
    }

    /// Inserts `key` with band hashes from [`LshTables::band_hashes`] (a pickle, a merge).
    fn insert_hashes(&mut self, key: PyObject, hashes: Vec<u64>) -> PyResult<u64> {
        self.add(key, hashes)
    }

    /// The keys of every entry sharing a band with a signature (each entry once; a key held
    /// in two entries may come twice).
    fn query_signature(&self, py: Python<'_>, signature: &Signature) -> PyResult<Vec<PyObject>> {
        let hashes = self.hashes(&signature.values)?;
        Ok(self.keys_of(py, &self.lsh.query_hashes(&hashes).map_err(lsh_err)?))
    }

    /// [`LshTables::query_signature`] of values as little-endian uint64 bytes.
    fn query_values(&self, py: Python<'_>, values: &[u8]) -> PyResult<Vec<PyObject>> {
        let hashes = self.hashes(&u64s(values))?;
        Ok(self.keys_of(py, &self.lsh.query_hashes(&hashes).map_err(lsh_err)?))
    }

    /// One answer per row of a `rows x k` matrix of little-endian uint64 bytes.
    fn query_many<'py>(
        &self,
        py: Python<'py>,
        matrix: &[u8],
        k: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let rows = self.rows(matrix, k)?;
        let out = PyList::empty_bound(py);
        let mut values = vec![0u64; k];
        for row in rows {
            for (v, b) in values.iter_mut().zip(row.chunks_exact(8)) {
                *v = u64::from_le_bytes(b.try_into().expect("8 bytes"));
            }
            let hashes = self.hashes(&values)?;
            let ids = self.lsh.query_hashes(&hashes).map_err(lsh_err)?;
            out.append(self.keys_of(py, &ids))?;
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
        self.lsh
            .buckets(band)
            .into_iter()
            .map(|(h, ids)| (h, ids.len()))
            .collect()
    }

    /// The keys in band `band`'s bucket `hash`.
    fn bucket(&self, py: Python<'_>, band: usize, hash: u64) -> Vec<PyObject> {
        self.keys_of(py, self.lsh.bucket(band, hash))
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

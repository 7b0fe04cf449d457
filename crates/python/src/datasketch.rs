//! `neardup.datasketch`'s native half: datasketch's MinHash values
//! (`neardup_sketch::permutation`) kept in a Rust vector per signature, so that an update is one
//! call that reads no Python object but its element. The Python class keeps datasketch's
//! attributes (`hashvalues` is a numpy array made from this state when read); this only
//! computes.

use neardup_sketch::permutation;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};
use std::sync::Arc;

/// One family of `k` permutations `(a, b)` (datasketch's `permutations` array, drawn by
/// numpy's `RandomState(seed)` on the Python side), held as Rust vectors so that an update
/// reads no Python object but the signature's own array.
#[pyclass(module = "neardup._neardup", frozen)]
pub struct Permutations {
    ab: Arc<(Vec<u64>, Vec<u64>)>,
}

#[pymethods]
impl Permutations {
    /// The family from its two rows (`permutations[0]`, `permutations[1]`) as little-endian
    /// uint64 bytes.
    #[new]
    fn new(a: &[u8], b: &[u8]) -> PyResult<Permutations> {
        if a.len() != b.len() || !a.len().is_multiple_of(8) {
            return Err(PyValueError::new_err(format!(
                "permutations: {} bytes of a and {} of b",
                a.len(),
                b.len()
            )));
        }
        Ok(Permutations {
            ab: Arc::new((u64s(a), u64s(b))),
        })
    }

    fn __len__(&self) -> usize {
        self.ab.0.len()
    }
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// One signature's values and its permutations.
#[pyclass(module = "neardup._neardup")]
pub struct Signature {
    ab: Arc<(Vec<u64>, Vec<u64>)>,
    values: Vec<u64>,
}

#[pymethods]
impl Signature {
    /// An empty signature (every value 2^32 - 1) of the family.
    #[new]
    fn new(permutations: &Permutations) -> Signature {
        Signature {
            values: vec![permutation::MAX_HASH; permutations.ab.0.len()],
            ab: permutations.ab.clone(),
        }
    }

    /// The values as little-endian uint64 bytes (a bytearray, so numpy's view is writable).
    fn values<'py>(&self, py: Python<'py>) -> Bound<'py, PyByteArray> {
        let mut out = Vec::with_capacity(self.values.len() * 8);
        for v in &self.values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        PyByteArray::new_bound(py, &out)
    }

    /// Replaces the values (little-endian uint64 bytes, one per permutation).
    fn set_values(&mut self, bytes: &[u8]) -> PyResult<()> {
        if bytes.len() != self.values.len() * 8 {
            return Err(PyValueError::new_err(format!(
                "Numbers of hash values and permutations mismatch ({} and {})",
                bytes.len() / 8,
                self.values.len()
            )));
        }
        self.values = u64s(bytes);
        Ok(())
    }

    /// Adds one element hashed by sha1_hash32.
    fn update_bytes(&mut self, element: &Bound<'_, PyAny>) -> PyResult<()> {
        let x = hash_element(element)?;
        permutation::update(&mut self.values, &self.ab.0, &self.ab.1, x);
        Ok(())
    }

    /// Adds every element of an iterable, each hashed by sha1_hash32.
    fn update_bytes_batch(&mut self, elements: &Bound<'_, PyAny>) -> PyResult<()> {
        for e in elements.iter()? {
            let x = hash_element(&e?)?;
            permutation::update(&mut self.values, &self.ab.0, &self.ab.1, x);
        }
        Ok(())
    }

    /// Adds one hash already made (a user's hashfunc): an unsigned 64-bit integer, as numpy's
    /// uint64 arithmetic takes it.
    fn update_hash(&mut self, hash: u64) {
        permutation::update(&mut self.values, &self.ab.0, &self.ab.1, hash);
    }

    /// Adds hashes already made.
    fn update_hashes(&mut self, hashes: Vec<u64>) {
        permutation::update_many(&mut self.values, &self.ab.0, &self.ab.1, &hashes);
    }
}

/// The bytes of one element as datasketch's `sha1_hash32` takes them: bytes, bytearray,
/// memoryview or any other buffer of bytes; never a str (hashlib refuses it too).
fn hash_element(x: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(b) = x.downcast::<PyBytes>() {
        return Ok(permutation::sha1_hash32(b.as_bytes()).into());
    }
    if let Ok(b) = x.downcast::<PyByteArray>() {
        return Ok(permutation::sha1_hash32(&b.to_vec()).into());
    }
    if x.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "Strings must be encoded before hashing (the default hashfunc, sha1_hash32, takes bytes)",
        ));
    }
    if x.is_instance_of::<PyMemoryView>() {
        let b = x.py().get_type_bound::<PyBytes>().call1((x,))?;
        return hash_element(&b);
    }
    Err(PyTypeError::new_err(format!(
        "object supporting the buffer API required, not {}",
        x.get_type().name()?
    )))
}

/// datasketch's `sha1_hash32`.
#[pyfunction]
pub fn sha1_hash32(data: &Bound<'_, PyAny>) -> PyResult<u64> {
    hash_element(data)
}

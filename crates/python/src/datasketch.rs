//! `neardup.datasketch`'s native half: datasketch's MinHash values
//! (`neardup_sketch::permutation`) kept in a Rust vector per signature, so that an update is one
//! call that reads no Python object but its element. The Python class keeps datasketch's
//! attributes (`hashvalues` is a numpy array made from this state when read); this only
//! computes.

use neardup_sketch::permutation::Scheme;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};
use std::sync::Arc;

/// One family of `k` permutations `(a, b)` of one scheme (datasketch's `permutations` array,
/// drawn by numpy's `RandomState(seed)` on the Python side), held as Rust vectors so that an
/// update reads no Python object but the signature's own array.
#[pyclass(module = "neardup._neardup", frozen)]
pub struct Permutations {
    ab: Arc<(Vec<u64>, Vec<u64>)>,
    scheme: Scheme,
}

#[pymethods]
impl Permutations {
    /// The family from its two rows (`permutations[0]`, `permutations[1]`) as little-endian
    /// uint64 bytes, and datasketch's name of its scheme.
    #[new]
    #[pyo3(signature = (a, b, scheme = "legacy"))]
    fn new(a: &[u8], b: &[u8], scheme: &str) -> PyResult<Permutations> {
        if a.len() != b.len() || !a.len().is_multiple_of(8) {
            return Err(PyValueError::new_err(format!(
                "permutations: {} bytes of a and {} of b",
                a.len(),
                b.len()
            )));
        }
        let scheme = Scheme::from_name(scheme).ok_or_else(|| {
            PyValueError::new_err(format!(
                "scheme must be one of affine32, affine64, legacy, got {scheme:?}"
            ))
        })?;
        Ok(Permutations {
            ab: Arc::new((u64s(a), u64s(b))),
            scheme,
        })
    }

    fn __len__(&self) -> usize {
        self.ab.0.len()
    }
}

pub(crate) fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// One signature's values and its permutations.
#[pyclass(module = "neardup._neardup")]
pub struct Signature {
    ab: Arc<(Vec<u64>, Vec<u64>)>,
    scheme: Scheme,
    pub(crate) values: Vec<u64>,
}

impl Signature {
    fn add(&mut self, xs: &[u64]) {
        self.scheme
            .update_many(&mut self.values, &self.ab.0, &self.ab.1, xs);
    }

    /// Refuses a hash the scheme cannot take, in datasketch's words.
    fn check(&self, hash: u64) -> PyResult<u64> {
        match self.scheme.max_input() {
            Some(max) if hash > max => Err(out_of_range(hash)),
            _ => Ok(hash),
        }
    }
}

fn out_of_range(hash: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!(
        "hashfunc returned a value out of range for scheme 'affine32': {hash}. Use a hash \
         function matching the scheme width, or scheme='affine64' for 64-bit hash values."
    ))
}

#[pymethods]
impl Signature {
    /// An empty signature (every value the scheme's largest) of the family.
    #[new]
    fn new(permutations: &Permutations) -> Signature {
        Signature {
            values: vec![permutations.scheme.empty(); permutations.ab.0.len()],
            ab: permutations.ab.clone(),
            scheme: permutations.scheme,
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

    /// Adds one element hashed by the scheme's default hash (sha1_hash32; sha1_hash64 for
    /// affine64).
    fn update_bytes(&mut self, element: &Bound<'_, PyAny>) -> PyResult<()> {
        let x = hash_element(element, self.scheme)?;
        self.add(&[x]);
        Ok(())
    }

    /// Adds every element of an iterable, each hashed by the scheme's default hash.
    fn update_bytes_batch(&mut self, elements: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut xs = Vec::with_capacity(elements.len().unwrap_or(0));
        for e in elements.iter()? {
            xs.push(hash_element(&e?, self.scheme)?);
        }
        self.add(&xs);
        Ok(())
    }

    /// Adds one hash already made (a user's hashfunc): an unsigned 64-bit integer, as numpy's
    /// uint64 arithmetic takes it (below 2^32 for affine32, as datasketch requires).
    fn update_hash(&mut self, hash: &Bound<'_, PyAny>) -> PyResult<()> {
        let x = self.hash_of(hash)?;
        self.add(&[x]);
        Ok(())
    }

    /// Adds hashes already made.
    fn update_hashes(&mut self, hashes: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let xs = hashes
            .iter()
            .map(|h| self.hash_of(h))
            .collect::<PyResult<Vec<u64>>>()?;
        self.add(&xs);
        Ok(())
    }
}

impl Signature {
    /// A user's hash as an unsigned 64-bit integer the scheme takes.
    fn hash_of(&self, hash: &Bound<'_, PyAny>) -> PyResult<u64> {
        match hash.extract::<u64>() {
            Ok(x) => self.check(x),
            Err(e) if self.scheme == Scheme::Legacy => Err(e),
            Err(_) => Err(out_of_range(hash)),
        }
    }
}

/// The scheme's default hash of one element, taking it as datasketch's `sha1_hash32` does:
/// bytes, bytearray, memoryview or any other buffer of bytes; never a str (hashlib refuses it
/// too).
fn hash_element(x: &Bound<'_, PyAny>, scheme: Scheme) -> PyResult<u64> {
    if let Ok(b) = x.downcast::<PyBytes>() {
        return Ok(scheme.hash_bytes(b.as_bytes()));
    }
    if let Ok(b) = x.downcast::<PyByteArray>() {
        return Ok(scheme.hash_bytes(&b.to_vec()));
    }
    if x.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "Strings must be encoded before hashing (the default hashfunc, sha1_hash32, takes bytes)",
        ));
    }
    if x.is_instance_of::<PyMemoryView>() {
        let b = x.py().get_type_bound::<PyBytes>().call1((x,))?;
        return hash_element(&b, scheme);
    }
    Err(PyTypeError::new_err(format!(
        "object supporting the buffer API required, not {}",
        x.get_type().name()?
    )))
}

/// datasketch's `sha1_hash32`.
#[pyfunction]
pub fn sha1_hash32(data: &Bound<'_, PyAny>) -> PyResult<u64> {
    hash_element(data, Scheme::Legacy)
}

/// datasketch's `sha1_hash64`.
#[pyfunction]
pub fn sha1_hash64(data: &Bound<'_, PyAny>) -> PyResult<u64> {
    hash_element(data, Scheme::Affine64)
}

/// Signatures of every row of an Arrow list array, as datasketch's `MinHash.bulk` makes them
/// but without a Python call per row: each row is one set, its elements binary or UTF-8 strings
/// (hashed by sha1_hash32; a string as its UTF-8 bytes, what `.encode()` gives) or integers
/// (taken as hashes already made, as a `hashfunc` returning them would). A null row is an empty
/// set. Returns the values, `rows x k` little-endian uint64 bytes, computed on `threads`
/// threads (the answer does not depend on how many).
#[pyfunction]
#[pyo3(signature = (permutations, array, threads = None))]
pub fn bulk_values<'py>(
    py: Python<'py>,
    permutations: &Permutations,
    array: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let array = crate::arrow::import_array(array)?;
    let rows = ListRows::of(array.as_ref())?;
    let k = permutations.ab.0.len();
    let n = rows.len();
    let threads = threads
        .or_else(|| std::thread::available_parallelism().ok().map(|t| t.get()))
        .unwrap_or(1)
        .clamp(1, 64);
    let ab = permutations.ab.clone();
    let scheme = permutations.scheme;
    let out = py.allow_threads(|| -> PyResult<Vec<u64>> {
        let mut out = vec![scheme.empty(); n * k];
        if k == 0 {
            return Ok(out);
        }
        let per = n.div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let jobs: Vec<_> = out
                .chunks_mut(per * k)
                .enumerate()
                .map(|(c, chunk)| {
                    let (rows, ab) = (&rows, &ab);
                    scope.spawn(move || -> PyResult<()> {
                        let mut xs = Vec::new();
                        for (i, values) in chunk.chunks_mut(k).enumerate() {
                            rows.hashes(c * per + i, scheme, &mut xs)?;
                            scheme.update_many(values, &ab.0, &ab.1, &xs);
                        }
                        Ok(())
                    })
                })
                .collect();
            jobs.into_iter().try_for_each(|j| {
                j.join()
                    .unwrap_or_else(|_| Err(PyValueError::new_err("a worker failed")))
            })
        })?;
        Ok(out)
    });
    let out = out?;
    let mut bytes = Vec::with_capacity(out.len() * 8);
    for v in out {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    Ok(PyBytes::new_bound(py, &bytes))
}

/// A list array's rows as sets of elements for [`bulk_values`].
enum ListRows<'a> {
    Bytes(GenericListRows<'a, i32>),
    LargeBytes(GenericListRows<'a, i64>),
}

/// The offsets and values of a (large) list array.
struct GenericListRows<'a, O: arrow_array::OffsetSizeTrait> {
    list: &'a arrow_array::GenericListArray<O>,
    elements: Elements<'a>,
}

/// A list's element column.
enum Elements<'a> {
    Binary(&'a arrow_array::BinaryArray),
    LargeBinary(&'a arrow_array::LargeBinaryArray),
    Utf8(&'a arrow_array::StringArray),
    LargeUtf8(&'a arrow_array::LargeStringArray),
    BinaryView(&'a arrow_array::BinaryViewArray),
    Utf8View(&'a arrow_array::StringViewArray),
    Hashes(Vec<u64>),
}

impl<'a> Elements<'a> {
    fn of(a: &'a dyn arrow_array::Array) -> PyResult<Elements<'a>> {
        use arrow_array::cast::AsArray;
        use arrow_array::types::*;
        use arrow_schema::DataType as T;
        let ints = |v: Vec<u64>| Ok(Elements::Hashes(v));
        if a.data_type().is_integer() && a.null_count() > 0 {
            return Err(PyValueError::new_err(
                "a null element among the integers (a set holds values)",
            ));
        }
        match a.data_type() {
            T::Binary => Ok(Elements::Binary(a.as_binary::<i32>())),
            T::LargeBinary => Ok(Elements::LargeBinary(a.as_binary::<i64>())),
            T::Utf8 => Ok(Elements::Utf8(a.as_string::<i32>())),
            T::LargeUtf8 => Ok(Elements::LargeUtf8(a.as_string::<i64>())),
            T::BinaryView => Ok(Elements::BinaryView(a.as_binary_view())),
            T::Utf8View => Ok(Elements::Utf8View(a.as_string_view())),
            // Integers as numpy's uint64 takes them (negative ones wrap).
            T::UInt64 => ints(a.as_primitive::<UInt64Type>().values().to_vec()),
            T::Int64 => ints(
                a.as_primitive::<Int64Type>()
                    .values()
                    .iter()
                    .map(|&v| v as u64)
                    .collect(),
            ),
            T::UInt32 => ints(
                a.as_primitive::<UInt32Type>()
                    .values()
                    .iter()
                    .map(|&v| v.into())
                    .collect(),
            ),
            T::Int32 => ints(
                a.as_primitive::<Int32Type>()
                    .values()
                    .iter()
                    .map(|&v| v as i64 as u64)
                    .collect(),
            ),
            t => Err(PyTypeError::new_err(format!(
                "a set's elements are binary, strings or integers, not {t}"
            ))),
        }
    }

    /// The hash of element `j` (`None` when it is null).
    fn hash(&self, j: usize, scheme: Scheme) -> Option<u64> {
        use arrow_array::Array;
        let b: &[u8] = match self {
            Elements::Hashes(v) => return Some(v[j]),
            Elements::Binary(a) => (!a.is_null(j)).then(|| a.value(j))?,
            Elements::LargeBinary(a) => (!a.is_null(j)).then(|| a.value(j))?,
            Elements::Utf8(a) => (!a.is_null(j)).then(|| a.value(j).as_bytes())?,
            Elements::LargeUtf8(a) => (!a.is_null(j)).then(|| a.value(j).as_bytes())?,
            Elements::BinaryView(a) => (!a.is_null(j)).then(|| a.value(j))?,
            Elements::Utf8View(a) => (!a.is_null(j)).then(|| a.value(j).as_bytes())?,
        };
        Some(scheme.hash_bytes(b))
    }
}

impl<O: arrow_array::OffsetSizeTrait> GenericListRows<'_, O> {
    /// Row `row`'s element hashes into `xs` (cleared first; none for a null row).
    fn hashes(&self, row: usize, scheme: Scheme, xs: &mut Vec<u64>) -> PyResult<()> {
        use arrow_array::Array;
        xs.clear();
        if self.list.is_null(row) {
            return Ok(());
        }
        let offsets = self.list.value_offsets();
        let (start, end) = (offsets[row].as_usize(), offsets[row + 1].as_usize());
        for j in start..end {
            let x = self.elements.hash(j, scheme).ok_or_else(|| {
                PyValueError::new_err(format!("row {row}: a null element (a set holds values)"))
            })?;
            if scheme.max_input().is_some_and(|max| x > max) {
                return Err(out_of_range(x));
            }
            xs.push(x);
        }
        Ok(())
    }
}

impl<'a> ListRows<'a> {
    fn of(a: &'a dyn arrow_array::Array) -> PyResult<ListRows<'a>> {
        use arrow_array::cast::AsArray;
        use arrow_schema::DataType as T;
        match a.data_type() {
            T::List(_) => {
                let list = a.as_list::<i32>();
                Ok(ListRows::Bytes(GenericListRows {
                    elements: Elements::of(list.values().as_ref())?,
                    list,
                }))
            }
            T::LargeList(_) => {
                let list = a.as_list::<i64>();
                Ok(ListRows::LargeBytes(GenericListRows {
                    elements: Elements::of(list.values().as_ref())?,
                    list,
                }))
            }
            t => Err(PyTypeError::new_err(format!(
                "expected a list array (one set per row), not {t}"
            ))),
        }
    }

    fn len(&self) -> usize {
        use arrow_array::Array;
        match self {
            ListRows::Bytes(r) => r.list.len(),
            ListRows::LargeBytes(r) => r.list.len(),
        }
    }

    fn hashes(&self, row: usize, scheme: Scheme, xs: &mut Vec<u64>) -> PyResult<()> {
        match self {
            ListRows::Bytes(r) => r.hashes(row, scheme, xs),
            ListRows::LargeBytes(r) => r.hashes(row, scheme, xs),
        }
    }
}

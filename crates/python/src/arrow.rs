//! Arrow in and out through the Arrow PyCapsule interface (`__arrow_c_stream__`,
//! `__arrow_c_array__`), so pyarrow, pandas, polars and any other Arrow producer hand their
//! buffers over without a copy and without neardup depending on any of them.
//!
//! [`ArrowRows`] lets the engine read a caller's text column in place: the pipeline copies one
//! page at a time into its recycled page buffers, never the whole column; [`StreamSource`]
//! reads a caller's stream batch by batch (`stream.rs`).

mod stream;

pub use stream::{StreamSource, Streamed};

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray, LargeStringArray, RecordBatch,
    RecordBatchIterator, StringArray, StringViewArray, StructArray,
};
use arrow_schema::{ArrowError, DataType, SchemaRef};
use neardup_ingest::{Page, PageRows};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use std::ffi::CString;
use std::fmt::Write as _;

/// The capsule names the interface fixes.
const STREAM: &str = "arrow_array_stream";
const SCHEMA: &str = "arrow_schema";
const ARRAY: &str = "arrow_array";

fn arrow_err(e: ArrowError) -> PyErr {
    PyValueError::new_err(format!("reading Arrow data: {e}"))
}

/// A capsule's pointer after checking its name (the interface requires the exact name).
fn capsule_pointer(c: &Bound<'_, PyAny>, name: &str) -> PyResult<*mut std::ffi::c_void> {
    let c = c
        .downcast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err(format!("expected a PyCapsule named {name:?}")))?;
    let got = c.name()?.map(|n| n.to_string_lossy().into_owned());
    if got.as_deref() != Some(name) {
        return Err(PyTypeError::new_err(format!(
            "expected a PyCapsule named {name:?}, got {got:?}"
        )));
    }
    Ok(c.pointer())
}

/// Whether `obj` speaks the Arrow PyCapsule interface.
pub fn is_arrow(obj: &Bound<'_, PyAny>) -> bool {
    obj.hasattr("__arrow_c_stream__").unwrap_or(false)
        || obj.hasattr("__arrow_c_array__").unwrap_or(false)
}

/// Every record batch of an Arrow producer (a table, a record batch reader, a data frame, a
/// record batch), its buffers shared, not copied.
pub fn import(obj: &Bound<'_, PyAny>) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    if let Some(reader) = import_stream(obj)? {
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        let batches = reader.collect::<Result<Vec<_>, _>>().map_err(arrow_err)?;
        return Ok((schema, batches));
    }
    if obj.hasattr("__arrow_c_array__")? {
        let data = import_data(obj)?;
        if !matches!(data.data_type(), DataType::Struct(_)) {
            return Err(PyTypeError::new_err(format!(
                "expected a record batch (a struct array), got an array of {}",
                data.data_type()
            )));
        }
        let batch = RecordBatch::from(StructArray::from(data));
        return Ok((batch.schema(), vec![batch]));
    }
    Err(PyTypeError::new_err(format!(
        "{} is not an Arrow table or data frame (no __arrow_c_stream__)",
        obj.get_type().name()?
    )))
}

/// One Arrow array of any type from a producer of `__arrow_c_array__` (a pyarrow `Array`, a
/// polars `Series` chunk), its buffers shared, not copied.
pub fn import_array(obj: &Bound<'_, PyAny>) -> PyResult<arrow_array::ArrayRef> {
    if !obj.hasattr("__arrow_c_array__")? {
        return Err(PyTypeError::new_err(format!(
            "{} is not an Arrow array (no __arrow_c_array__)",
            obj.get_type().name()?
        )));
    }
    Ok(arrow_array::make_array(import_data(obj)?))
}

/// The array behind `obj.__arrow_c_array__()`.
fn import_data(obj: &Bound<'_, PyAny>) -> PyResult<arrow_data::ArrayData> {
    let pair = obj.call_method0("__arrow_c_array__")?;
    let pair = pair.downcast::<PyTuple>()?;
    if pair.len() != 2 {
        return Err(PyTypeError::new_err(
            "__arrow_c_array__ returned a tuple not of (schema, array)",
        ));
    }
    let schema_ptr = capsule_pointer(&pair.get_item(0)?, SCHEMA)? as *mut FFI_ArrowSchema;
    let array_ptr = capsule_pointer(&pair.get_item(1)?, ARRAY)? as *mut FFI_ArrowArray;
    // SAFETY: capsules of these names hold a valid FFI_ArrowSchema and FFI_ArrowArray. The
    // array is moved out (its capsule's copy left released); the schema is only borrowed, its
    // capsule keeps it until it is collected.
    #[allow(unsafe_code)]
    let data = unsafe {
        let array = FFI_ArrowArray::from_raw(array_ptr);
        from_ffi(array, &*schema_ptr)
    }
    .map_err(arrow_err)?;
    Ok(data)
}

/// Batches as a PyCapsule stream, for `pyarrow.table(...)`, `polars.DataFrame(...)` and other
/// Arrow consumers.
#[pyclass(module = "neardup._neardup", name = "ArrowTable")]
pub struct ArrowTable {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl ArrowTable {
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> ArrowTable {
        ArrowTable { schema, batches }
    }
}

#[pymethods]
impl ArrowTable {
    /// The Arrow PyCapsule stream interface (a fresh stream each call; the buffers are
    /// shared).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // A requested schema is a hint the producer may ignore (the interface says so).
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            self.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let name = CString::new(STREAM).expect("no NUL in the name");
        PyCapsule::new_bound(py, stream, Some(name))
    }

    /// Number of rows.
    fn __len__(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    /// Column names.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "neardup.ArrowTable({} rows: {})",
            self.__len__(),
            self.column_names().join(", ")
        )
    }
}

/// One batch's text column, of any Arrow string or binary type.
enum TextCol {
    Str(StringArray),
    LargeStr(LargeStringArray),
    StrView(StringViewArray),
    Bin(BinaryArray),
    LargeBin(LargeBinaryArray),
    BinView(BinaryViewArray),
}

impl TextCol {
    fn of(a: &ArrayRef) -> Option<TextCol> {
        let any = a.as_any();
        Some(match a.data_type() {
            DataType::Utf8 => TextCol::Str(any.downcast_ref::<StringArray>()?.clone()),
            DataType::LargeUtf8 => {
                TextCol::LargeStr(any.downcast_ref::<LargeStringArray>()?.clone())
            }
            DataType::Utf8View => TextCol::StrView(any.downcast_ref::<StringViewArray>()?.clone()),
            DataType::Binary => TextCol::Bin(any.downcast_ref::<BinaryArray>()?.clone()),
            DataType::LargeBinary => {
                TextCol::LargeBin(any.downcast_ref::<LargeBinaryArray>()?.clone())
            }
            DataType::BinaryView => {
                TextCol::BinView(any.downcast_ref::<BinaryViewArray>()?.clone())
            }
            _ => return None,
        })
    }

    fn get(&self, i: usize) -> &[u8] {
        match self {
            TextCol::Str(a) => a.value(i).as_bytes(),
            TextCol::LargeStr(a) => a.value(i).as_bytes(),
            TextCol::StrView(a) => a.value(i).as_bytes(),
            TextCol::Bin(a) => a.value(i),
            TextCol::LargeBin(a) => a.value(i),
            TextCol::BinView(a) => a.value(i),
        }
    }

    /// Row `i` as text, empty when it is null (a date column's undated row) or not UTF-8.
    fn str_or_empty(&self, i: usize) -> &str {
        let null = match self {
            TextCol::Str(a) => a.is_null(i),
            TextCol::LargeStr(a) => a.is_null(i),
            TextCol::StrView(a) => a.is_null(i),
            TextCol::Bin(a) => a.is_null(i),
            TextCol::LargeBin(a) => a.is_null(i),
            TextCol::BinView(a) => a.is_null(i),
        };
        if null {
            return "";
        }
        std::str::from_utf8(self.get(i)).unwrap_or_default()
    }

    fn is_binary(&self) -> bool {
        matches!(
            self,
            TextCol::Bin(_) | TextCol::LargeBin(_) | TextCol::BinView(_)
        )
    }

    fn bytes(&self) -> u64 {
        match self {
            TextCol::Str(a) => a.value_data().len() as u64,
            TextCol::LargeStr(a) => a.value_data().len() as u64,
            TextCol::Bin(a) => a.value_data().len() as u64,
            TextCol::LargeBin(a) => a.value_data().len() as u64,
            TextCol::StrView(a) => (0..a.len()).map(|i| a.value(i).len() as u64).sum(),
            TextCol::BinView(a) => (0..a.len()).map(|i| a.value(i).len() as u64).sum(),
        }
    }
}

/// One batch's text or URL column, checked: string or binary, no nulls, valid UTF-8 when
/// `utf8`; rows are numbered from `first`, the batch's first row.
fn checked_col(
    a: &ArrayRef,
    name: &str,
    what: &str,
    first: usize,
    utf8: bool,
) -> Result<TextCol, PyErrLater> {
    checked(a, name, what, first, utf8, false)
}

/// A batch's capture-date column, checked as [`checked_col`] checks a URL column but for nulls,
/// which are undated rows.
fn checked_dates(a: &ArrayRef, name: &str, first: usize) -> Result<TextCol, PyErrLater> {
    checked(a, name, "date", first, true, true)
}

fn checked(
    a: &ArrayRef,
    name: &str,
    what: &str,
    first: usize,
    utf8: bool,
    nulls: bool,
) -> Result<TextCol, PyErrLater> {
    let col = TextCol::of(a).ok_or_else(|| {
        PyErrLater::Type(format!(
            "column {name:?} is {}, expected strings (utf8, large_utf8, utf8_view) or bytes \
             (binary, large_binary, binary_view)",
            a.data_type()
        ))
    })?;
    if !nulls && a.null_count() > 0 {
        let i = (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0);
        return Err(PyErrLater::Value(format!(
            "row {}: {name} is null (give every row a {what}, or drop the row)",
            first + i
        )));
    }
    if utf8 && col.is_binary() {
        for i in (0..a.len()).filter(|&i| a.is_valid(i)) {
            if let Err(e) = std::str::from_utf8(col.get(i)) {
                return Err(PyErrLater::Value(format!(
                    "row {}: {name} is not valid UTF-8: {e}",
                    first + i
                )));
            }
        }
    }
    Ok(col)
}

/// Where a column is: its index in the schema, after checking its name and type.
pub fn column(schema: &SchemaRef, name: &str, what: &str) -> PyResult<usize> {
    schema.index_of(name).map_err(|_| {
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        PyKeyError::new_err(format!(
            "no {name:?} column for the {what} (columns: {})",
            names.join(", ")
        ))
    })
}

/// The rows of a caller's Arrow table as pages: the text column (and the URL column, when
/// named) read in place; row `i` becomes a plain-text page whose id is `i`, or the caller's id
/// in words when [`ArrowRows::with_ids`] gave an id column.
pub struct ArrowRows {
    text: Vec<TextCol>,
    url: Option<Vec<TextCol>>,
    /// Capture dates (as WARC-Date writes them; null or empty: undated).
    date: Option<Vec<TextCol>>,
    ids: Option<Vec<ArrayRef>>,
    /// The text column holds HTML.
    html: bool,
    /// First row of each batch, and the total at the end.
    starts: Vec<usize>,
    bytes: u64,
}

impl ArrowRows {
    /// Checks the columns: present, string or binary, no nulls, valid UTF-8 (but for HTML,
    /// read as the CLI reads an `html` field: charset, markup, main content). The first bad
    /// row is named in the error.
    pub fn new(
        schema: &SchemaRef,
        batches: &[RecordBatch],
        text: &str,
        url: Option<&str>,
        date: Option<&str>,
        html: bool,
    ) -> PyResult<ArrowRows> {
        let cols = |name: &str, what: &str, utf8: bool| -> PyResult<Vec<TextCol>> {
            let c = column(schema, name, what)?;
            let mut out = Vec::with_capacity(batches.len());
            let mut first = 0usize;
            for b in batches {
                let a = b.column(c);
                out.push(
                    checked(a, name, what, first, utf8, what == "date")
                        .map_err(PyErrLater::into_pyerr)?,
                );
                first += a.len();
            }
            Ok(out)
        };
        // HTML bytes may be in any charset (found as the CLI finds it); text must be UTF-8.
        let text_cols = cols(text, "text", !html)?;
        let url_cols = url.map(|u| cols(u, "URL", true)).transpose()?;
        let date_cols = date.map(|d| cols(d, "date", true)).transpose()?;
        let mut starts = Vec::with_capacity(batches.len() + 1);
        let mut n = 0;
        for b in batches {
            starts.push(n);
            n += b.num_rows();
        }
        starts.push(n);
        if n > u32::MAX as usize {
            // Page ids number the rows of an input in 32 bits.
            return Err(PyValueError::new_err(format!(
                "{n} rows: at most {} rows per call (split the table)",
                u32::MAX
            )));
        }
        let bytes = text_cols.iter().map(TextCol::bytes).sum();
        Ok(ArrowRows {
            text: text_cols,
            url: url_cols,
            date: date_cols,
            ids: None,
            html,
            starts,
            bytes,
        })
    }

    /// Pages carry the id column's values (as text: a number in decimal, a string as it is)
    /// instead of their positions; the column is checked first ([`check_ids`]).
    pub fn with_ids(mut self, batches: &[RecordBatch], column: usize) -> PyResult<ArrowRows> {
        let ids: Vec<ArrayRef> = batches.iter().map(|b| b.column(column).clone()).collect();
        check_ids(&ids)?;
        self.ids = Some(ids);
        Ok(self)
    }

    /// Batch and row within it of row `i`.
    fn locate(&self, i: usize) -> (usize, usize) {
        let b = self.starts.partition_point(|&s| s <= i) - 1;
        (b, i - self.starts[b])
    }
}

impl PageRows for ArrowRows {
    fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn fill(&self, i: usize, page: &mut Page) {
        let (b, r) = self.locate(i);
        page.body.extend_from_slice(self.text[b].get(r));
        if let Some(url) = &self.url {
            // Checked as UTF-8 when the rows were made.
            page.url
                .push_str(std::str::from_utf8(url[b].get(r)).unwrap_or_default());
        }
        if let Some(date) = &self.date {
            page.date.push_str(date[b].str_or_empty(r));
        }
        if self.html {
            page.set_html_kind();
        } else {
            page.set_text_kind();
        }
        match &self.ids {
            Some(ids) if ids[b].is_valid(r) => write_id(&ids[b], r, &mut page.record_id),
            _ => {
                let _ = write!(page.record_id, "{i}");
            }
        }
    }
}

/// Checks an id column over all its batches: integers or strings, no null, no id twice;
/// else a `TypeError` or `ValueError` naming the rows.
pub fn check_ids(ids: &[ArrayRef]) -> PyResult<()> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut at = 0usize;
    let mut text = String::new();
    for a in ids {
        let ok = a.data_type().is_integer()
            || matches!(
                a.data_type(),
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            );
        if !ok {
            return Err(PyTypeError::new_err(format!(
                "the id column is {}, expected integers or strings (or id=None for row positions)",
                a.data_type()
            )));
        }
        for r in 0..a.len() {
            if a.is_null(r) {
                return Err(PyValueError::new_err(format!(
                    "the id of row {} is null; every row needs an id (or id=None for row positions)",
                    at + r
                )));
            }
            text.clear();
            write_id(a, r, &mut text);
            if let Some(first) = seen.insert(text.clone(), at + r) {
                return Err(PyValueError::new_err(format!(
                    "rows {first} and {} have the same id {text:?}; ids must be unique (or id=None for row positions)",
                    at + r
                )));
            }
        }
        at += a.len();
    }
    Ok(())
}

/// Writes value `r` of an integer or string array (checked by [`ArrowRows::with_ids`]) as text.
fn write_id(a: &ArrayRef, r: usize, out: &mut String) {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    macro_rules! int {
        ($t:ty) => {{
            let _ = write!(out, "{}", a.as_primitive::<$t>().value(r));
        }};
    }
    match a.data_type() {
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        DataType::Utf8 => out.push_str(a.as_string::<i32>().value(r)),
        DataType::LargeUtf8 => out.push_str(a.as_string::<i64>().value(r)),
        DataType::Utf8View => out.push_str(a.as_string_view().value(r)),
        _ => {}
    }
}

/// A Python exception to raise once the GIL is held again.
pub enum PyErrLater {
    Type(String),
    Value(String),
}

impl PyErrLater {
    pub fn into_pyerr(self) -> PyErr {
        match self {
            PyErrLater::Type(m) => PyTypeError::new_err(m),
            PyErrLater::Value(m) => PyValueError::new_err(m),
        }
    }
}

/// An Arrow producer's stream, unread, with its schema.
pub fn import_stream(obj: &Bound<'_, PyAny>) -> PyResult<Option<RecordBatchStreamReader>> {
    if !obj.hasattr("__arrow_c_stream__")? {
        return Ok(None);
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let ptr = capsule_pointer(&capsule, STREAM)? as *mut FFI_ArrowArrayStream;
    // SAFETY: the capsule is named "arrow_array_stream", so by the interface it holds a
    // valid, initialized FFI_ArrowArrayStream; `from_raw` moves it out and leaves the
    // capsule's copy released (release = NULL), as the interface's move semantics ask.
    #[allow(unsafe_code)]
    let reader = unsafe { RecordBatchStreamReader::from_raw(ptr) }.map_err(arrow_err)?;
    Ok(Some(reader))
}

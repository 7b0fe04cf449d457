//! Python's keyword arguments of a dedup run to the library's [`DedupRequest`]: only what the
//! caller gave, under the CLI's flag names in snake_case (`num_perm` for `--minhashes`,
//! `shingle` for `-k`, `matching` for `--lsh`); [`DedupRequest::resolve`] decides every
//! default. `containment=None` (or `different_titles_need=None`) turns that rule off; leaving
//! it out keeps the default.

use neardup_cluster::Keep;
use neardup_dedup::{Algo, Choice, ClusterMode, DedupRequest, Level, Lsh, SiteRule};
use neardup_sketch::{Content, MinHashFamily};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Every setting a request takes, in the order the docs list them.
pub const SETTINGS: &[&str] = &[
    "threshold",
    "containment",
    "different_titles_need",
    "matching",
    "algo",
    "level",
    "bands",
    "rows",
    "shingle",
    "wrap",
    "num_perm",
    "content",
    "minhash",
    "verify",
    "keep",
    "cluster",
    "site",
    "per_language",
];

fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A choice by its library name.
fn choice<T: Choice>(v: &Bound<'_, PyAny>) -> PyResult<T> {
    let s: String = v.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{}: expected a string, one of {}",
            T::SETTING,
            T::expected()
        ))
    })?;
    T::parse(&s).map_err(value_err)
}

/// A number, with the setting named when it is not one (or out of its type's range).
fn number<'py, T: FromPyObject<'py>>(name: &str, v: &Bound<'py, PyAny>, what: &str) -> PyResult<T> {
    v.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "{name}={}: expected {what}",
            v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })
}

/// The request the keyword arguments `kwargs` make; an unknown name is a `TypeError` naming
/// it and every known one.
pub fn request(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<DedupRequest> {
    let mut r = DedupRequest::default();
    let Some(kwargs) = kwargs else {
        return Ok(r);
    };
    for (k, v) in kwargs.iter() {
        let name: String = k.extract()?;
        let share = |v: &Bound<'_, PyAny>| -> PyResult<Option<f64>> {
            if v.is_none() {
                return Ok(None);
            }
            number(&name, v, "a number in (0, 1], or None for off").map(Some)
        };
        let count = |v: &Bound<'_, PyAny>| -> PyResult<Option<u32>> {
            if v.is_none() {
                return Ok(None);
            }
            number(&name, v, "a whole number from 0 to 4294967295, or None").map(Some)
        };
        match name.as_str() {
            "threshold" => r.threshold = Some(number(&name, &v, "a Jaccard in (0, 1]")?),
            "containment" => r.containment = Some(share(&v)?),
            "different_titles_need" => r.different_titles_need = Some(share(&v)?),
            "matching" => r.lsh = Some(choice::<Lsh>(&v)?),
            "algo" => r.algo = Some(choice::<Algo>(&v)?),
            "level" => {
                r.level = Some(match v.extract::<u32>() {
                    Ok(n) => Level::Agree(n),
                    Err(_) => Level::parse(&v.extract::<String>().map_err(|_| {
                        PyValueError::new_err(
                            "level: expected a number, \"very-similar\" or \"virtually-identical\"",
                        )
                    })?)
                    .map_err(value_err)?,
                })
            }
            "bands" => r.bands = count(&v)?,
            "rows" => r.rows = count(&v)?,
            "shingle" => r.sketch.shingle_words = count(&v)?,
            "wrap" => {
                r.sketch.wrap = if v.is_none() {
                    None
                } else {
                    Some(number(&name, &v, "True or False")?)
                }
            }
            "num_perm" => r.sketch.minhashes = count(&v)?,
            "content" => r.sketch.content = opt(&v, choice::<Content>)?,
            "minhash" => r.sketch.minhash = opt(&v, choice::<MinHashFamily>)?,
            "verify" => r.verify = Some(number(&name, &v, "True or False")?),
            "keep" => r.keep = Some(choice::<Keep>(&v)?),
            "cluster" => r.cluster = Some(choice::<ClusterMode>(&v)?),
            "site" => r.site = Some(choice::<SiteRule>(&v)?),
            "per_language" => r.per_language = Some(number(&name, &v, "True or False")?),
            other => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected setting {other:?}; the settings are {}",
                    SETTINGS.join(", ")
                )))
            }
        }
    }
    Ok(r)
}

/// `None` for None, else `f` of the value.
fn opt<'py, T>(
    v: &Bound<'py, PyAny>,
    f: impl Fn(&Bound<'py, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if v.is_none() {
        Ok(None)
    } else {
        f(v).map(Some)
    }
}

/// The settings of an empty request, resolved, under the keyword arguments' names: what every
/// setting left out means.
#[pyfunction]
pub fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let r = DedupRequest::default().resolve().map_err(value_err)?;
    let (p, c) = (&r.params, &r.config);
    let d = PyDict::new_bound(py);
    d.set_item("threshold", c.threshold)?;
    d.set_item("containment", c.containment)?;
    d.set_item("different_titles_need", c.different_titles_need)?;
    let (matching, bands, rows) = match c.matching {
        neardup_dedup::Matching::Bands { bands, rows } => ("bands", Some(bands), Some(rows)),
        neardup_dedup::Matching::Supershingles { .. } => ("supershingles", None, None),
        _ => ("other", None, None),
    };
    d.set_item("matching", matching)?;
    d.set_item("algo", Algo::Shingles.name())?;
    d.set_item(
        "level",
        Level::VerySimilar
            .min_agree(p.supershingles)
            .map_err(value_err)?,
    )?;
    d.set_item("bands", bands)?;
    d.set_item("rows", rows)?;
    d.set_item("shingle", p.k)?;
    d.set_item("wrap", p.wrap)?;
    d.set_item("num_perm", p.m)?;
    d.set_item("content", p.content.name())?;
    d.set_item("minhash", p.minhash.name())?;
    d.set_item("verify", c.verify)?;
    d.set_item("keep", c.keep.name())?;
    d.set_item("cluster", c.cluster.name())?;
    d.set_item("site", c.site.name())?;
    d.set_item("per_language", c.per_language)?;
    Ok(d)
}

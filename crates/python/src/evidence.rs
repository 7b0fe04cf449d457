//! The evidence columns as Arrow: the one path from `neardup_evidence::COLUMNS` to every
//! Python table (per-row results, clusters of crawl files, index queries) and to the Spark
//! job's scored pairs. Column names, order, types and nullability come from the schema.

use arrow_array::builder::{Float64Builder, Int32Builder, StringBuilder, UInt32Builder};
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field};
use neardup_evidence::{Columns, Kind, Value, COLUMNS};
use pyo3::prelude::*;
use std::sync::Arc;

/// Where the columns go: Arrow for Python (unsigned integers as `uint32`), or Spark (which has
/// no unsigned types: `int32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Python,
    Spark,
}

/// The evidence columns of a table, filled row by row.
pub struct EvidenceArrow {
    target: Target,
    rows: Vec<Option<Columns>>,
}

impl EvidenceArrow {
    pub fn new(target: Target, capacity: usize) -> EvidenceArrow {
        EvidenceArrow {
            target,
            rows: Vec::with_capacity(capacity),
        }
    }

    /// One row's evidence (`None`: a row without, every column null).
    pub fn push(&mut self, c: Option<Columns>) {
        self.rows.push(c);
    }

    /// The fields, in the schema's order; `optional` makes every column nullable (tables
    /// where some rows have no evidence).
    pub fn fields(target: Target, optional: bool) -> Vec<Field> {
        COLUMNS
            .iter()
            .map(|c| Field::new(c.name, data_type(target, c.kind), c.nullable || optional))
            .collect()
    }

    /// The arrays, in the schema's order.
    pub fn finish(self) -> Vec<ArrayRef> {
        let n = self.rows.len();
        (0..COLUMNS.len())
            .map(|i| -> ArrayRef {
                let cells = self.rows.iter().map(|r| r.map(|c| c.get(i)));
                match (COLUMNS[i].kind, self.target) {
                    (Kind::Text, _) => {
                        let mut b = StringBuilder::with_capacity(n, n * 8);
                        for v in cells {
                            match v {
                                Some(Value::Text(t)) => b.append_value(t),
                                _ => b.append_null(),
                            }
                        }
                        Arc::new(b.finish())
                    }
                    (Kind::UInt, Target::Python) => {
                        let mut b = UInt32Builder::with_capacity(n);
                        for v in cells {
                            b.append_option(match v {
                                Some(Value::UInt(x)) => x,
                                _ => None,
                            });
                        }
                        Arc::new(b.finish())
                    }
                    (Kind::UInt, Target::Spark) => {
                        let mut b = Int32Builder::with_capacity(n);
                        for v in cells {
                            b.append_option(match v {
                                Some(Value::UInt(x)) => x.map(|x| x as i32),
                                _ => None,
                            });
                        }
                        Arc::new(b.finish())
                    }
                    (Kind::Float, _) => {
                        let mut b = Float64Builder::with_capacity(n);
                        for v in cells {
                            b.append_option(match v {
                                Some(Value::Float(x)) => x,
                                _ => None,
                            });
                        }
                        Arc::new(b.finish())
                    }
                }
            })
            .collect()
    }
}

fn data_type(target: Target, kind: Kind) -> DataType {
    match (kind, target) {
        (Kind::Text, _) => DataType::Utf8,
        (Kind::UInt, Target::Python) => DataType::UInt32,
        (Kind::UInt, Target::Spark) => DataType::Int32,
        (Kind::Float, _) => DataType::Float64,
    }
}

/// The evidence columns as Spark DDL (`rule string, b_similarity int, ...`), for the Spark
/// job's schemas.
#[pyfunction]
pub fn evidence_ddl() -> String {
    let ty = |k| match k {
        Kind::Text => "string",
        Kind::UInt => "int",
        Kind::Float => "double",
    };
    let cols: Vec<String> = COLUMNS
        .iter()
        .map(|c| format!("{} {}", c.name, ty(c.kind)))
        .collect();
    cols.join(", ")
}

/// The evidence columns: `(name, kind, nullable)` each, kind `text`, `uint` or `float`, in the
/// order every table carries them.
#[pyfunction]
pub fn evidence_columns() -> Vec<(&'static str, &'static str, bool)> {
    COLUMNS
        .iter()
        .map(|c| {
            let kind = match c.kind {
                Kind::Text => "text",
                Kind::UInt => "uint",
                Kind::Float => "float",
            };
            (c.name, kind, c.nullable)
        })
        .collect()
}

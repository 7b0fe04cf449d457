//! Columns of a row struct, read off its `Deserialize` implementation: a tracing deserializer
//! walks the struct's fields (names in declaration order) and records which primitive each one
//! asks for. So the names in a file are the struct's serde names, written nowhere else.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::Deserialize;

/// Column types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Str,
    /// Text or null.
    OptStr,
    /// Unsigned integer.
    U64,
    /// Unsigned integer or null.
    OptU64,
    /// Signed integer.
    I64,
    /// Float.
    F64,
    /// Float or null.
    OptF64,
    /// Boolean.
    Bool,
}

impl Kind {
    fn optional(self) -> Option<Kind> {
        match self {
            Kind::Str => Some(Kind::OptStr),
            Kind::U64 => Some(Kind::OptU64),
            Kind::F64 => Some(Kind::OptF64),
            _ => None,
        }
    }
}

/// A column: its name and type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Name (the field's serde name).
    pub name: &'static str,
    /// Type.
    pub kind: Kind,
}

/// Why a type cannot be a table row.
#[derive(Debug)]
pub(crate) struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl de::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

/// The columns of row type `T`: a struct of strings, integers, floats, booleans, unit-variant
/// enums (written as their names) and `Option`s of those.
///
/// # Panics
/// When `T` is not such a struct: a programming error caught by every test that writes a table.
pub fn columns<T: for<'de> Deserialize<'de>>() -> Vec<Column> {
    let mut cols = Vec::new();
    match T::deserialize(Tracer {
        out: &mut cols,
        depth: 0,
    }) {
        Ok(_) => cols,
        Err(e) => panic!("{} cannot be a table row: {e}", std::any::type_name::<T>()),
    }
}

struct Tracer<'a> {
    out: &'a mut Vec<Column>,
    depth: u8,
}

/// Traces one field: records its kind in `kind`.
struct FieldTracer<'a> {
    kind: &'a mut Option<Kind>,
    optional: bool,
}

impl FieldTracer<'_> {
    fn set(self, k: Kind) -> Result<(), Unsupported> {
        let k = if self.optional {
            k.optional()
                .ok_or_else(|| Unsupported(format!("Option of {k:?} is not a column type")))?
        } else {
            k
        };
        *self.kind = Some(k);
        Ok(())
    }
}

macro_rules! field_kind {
    ($($method:ident => $kind:expr, $visit:ident($v:expr);)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unsupported> {
            self.set($kind)?;
            visitor.$visit($v)
        })*
    };
}

impl<'de> de::Deserializer<'de> for FieldTracer<'_> {
    type Error = Unsupported;

    field_kind! {
        deserialize_bool => Kind::Bool, visit_bool(false);
        deserialize_u8 => Kind::U64, visit_u8(0);
        deserialize_u16 => Kind::U64, visit_u16(0);
        deserialize_u32 => Kind::U64, visit_u32(0);
        deserialize_u64 => Kind::U64, visit_u64(0);
        deserialize_i8 => Kind::I64, visit_i8(0);
        deserialize_i16 => Kind::I64, visit_i16(0);
        deserialize_i32 => Kind::I64, visit_i32(0);
        deserialize_i64 => Kind::I64, visit_i64(0);
        deserialize_f32 => Kind::F64, visit_f32(0.0);
        deserialize_f64 => Kind::F64, visit_f64(0.0);
        deserialize_str => Kind::Str, visit_str("");
        deserialize_string => Kind::Str, visit_string(String::new());
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unsupported> {
        if self.optional {
            return Err(Unsupported("nested Option".into()));
        }
        visitor.visit_some(FieldTracer {
            kind: self.kind,
            optional: true,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Unsupported> {
        let first = variants
            .first()
            .ok_or_else(|| Unsupported(format!("enum {name} has no variants")))?;
        self.set(Kind::Str)?;
        visitor.visit_enum((*first).into_deserializer())
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Unsupported> {
        Err(Unsupported(
            "a field whose type is only known from the data".into(),
        ))
    }

    serde::forward_to_deserialize_any! {
        char bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct
        identifier ignored_any i128 u128
    }
}

struct Fields<'a, 'b> {
    names: &'static [&'static str],
    at: usize,
    out: &'b mut Vec<Column>,
    _t: std::marker::PhantomData<&'a ()>,
}

impl<'de> MapAccess<'de> for Fields<'_, '_> {
    type Error = Unsupported;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Unsupported> {
        match self.names.get(self.at) {
            Some(&name) => seed.deserialize(name.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Unsupported> {
        let name = self.names[self.at];
        self.at += 1;
        let mut kind = None;
        let v = seed.deserialize(FieldTracer {
            kind: &mut kind,
            optional: false,
        })?;
        let kind = kind.ok_or_else(|| Unsupported(format!("field {name}: no column type")))?;
        self.out.push(Column { name, kind });
        Ok(v)
    }
}

impl<'de> de::Deserializer<'de> for Tracer<'_> {
    type Error = Unsupported;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Unsupported> {
        if self.depth > 0 {
            return Err(Unsupported("nested struct".into()));
        }
        visitor.visit_map(Fields {
            names: fields,
            at: 0,
            out: self.out,
            _t: std::marker::PhantomData,
        })
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Unsupported> {
        Err(Unsupported(
            "not a struct with named fields (serde flatten is not supported)".into(),
        ))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    #[serde(rename_all = "kebab-case")]
    #[allow(dead_code)]
    enum Rule {
        First,
        SecondOne,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Row {
        url: String,
        n: u32,
        #[serde(rename = "j_est")]
        j: Option<f64>,
        ok: bool,
        rule: Rule,
        label: Option<String>,
        delta: i64,
        c: Option<u32>,
    }

    #[test]
    fn columns_come_from_the_struct() {
        let cols = columns::<Row>();
        let got: Vec<(&str, Kind)> = cols.iter().map(|c| (c.name, c.kind)).collect();
        assert_eq!(
            got,
            [
                ("url", Kind::Str),
                ("n", Kind::U64),
                ("j_est", Kind::OptF64),
                ("ok", Kind::Bool),
                ("rule", Kind::Str),
                ("label", Kind::OptStr),
                ("delta", Kind::I64),
                ("c", Kind::OptU64),
            ]
        );
    }

    #[test]
    #[should_panic(expected = "cannot be a table row")]
    fn nested_data_is_refused() {
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct Bad {
            v: Vec<u32>,
        }
        columns::<Bad>();
    }
}

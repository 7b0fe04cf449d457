//! A row struct's values, in field order, through its `Serialize` implementation.

use crate::schema::Unsupported;
use serde::ser::{self, Impossible, Serialize};

/// One value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Text.
    Str(String),
    /// Unsigned integer.
    U64(u64),
    /// Signed integer.
    I64(i64),
    /// Float.
    F64(f64),
    /// Boolean.
    Bool(bool),
    /// Null (an `Option` that is `None`).
    Null,
}

impl ser::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

/// Serializes `row` into `out` (cleared first), one cell per field. The text cells' strings of
/// the previous row are kept in `spare` and reused, so a writer allocates nothing per row once
/// its strings have grown.
pub(crate) fn cells<T: Serialize>(
    row: &T,
    out: &mut Vec<Cell>,
    spare: &mut Vec<String>,
) -> Result<(), Unsupported> {
    for c in out.drain(..) {
        if let Cell::Str(s) = c {
            spare.push(s);
        }
    }
    row.serialize(RowSer { out, spare })
}

struct RowSer<'a> {
    out: &'a mut Vec<Cell>,
    spare: &'a mut Vec<String>,
}

impl<'a> ser::SerializeStruct for RowSer<'a> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        let c = value.serialize(CellSer {
            spare: &mut *self.spare,
        })?;
        self.out.push(c);
        Ok(())
    }

    fn end(self) -> Result<(), Unsupported> {
        Ok(())
    }
}

fn unsupported<T>(what: &str) -> Result<T, Unsupported> {
    Err(Unsupported(format!("{what} is not a table row")))
}

impl<'a> ser::Serializer for RowSer<'a> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Impossible<(), Unsupported>;
    type SerializeTuple = Impossible<(), Unsupported>;
    type SerializeTupleStruct = Impossible<(), Unsupported>;
    type SerializeTupleVariant = Impossible<(), Unsupported>;
    type SerializeMap = Impossible<(), Unsupported>;
    type SerializeStruct = RowSer<'a>;
    type SerializeStructVariant = Impossible<(), Unsupported>;

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<RowSer<'a>, Unsupported> {
        Ok(self)
    }

    fn serialize_bool(self, _: bool) -> Result<(), Unsupported> {
        unsupported("a bool")
    }
    fn serialize_i8(self, _: i8) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_i16(self, _: i16) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_i32(self, _: i32) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_i64(self, _: i64) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_u8(self, _: u8) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_u16(self, _: u16) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_u32(self, _: u32) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_u64(self, _: u64) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_f32(self, _: f32) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_f64(self, _: f64) -> Result<(), Unsupported> {
        unsupported("a number")
    }
    fn serialize_char(self, _: char) -> Result<(), Unsupported> {
        unsupported("a char")
    }
    fn serialize_str(self, _: &str) -> Result<(), Unsupported> {
        unsupported("a string")
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Unsupported> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        unsupported("None")
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Unsupported> {
        unsupported("an Option")
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        unsupported("()")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        unsupported("a unit struct")
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), Unsupported> {
        unsupported("an enum")
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unsupported> {
        unsupported("a newtype")
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unsupported> {
        unsupported("an enum")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        unsupported("a sequence")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        unsupported("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        unsupported("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        unsupported("an enum")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        unsupported("a map (serde flatten)")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        unsupported("an enum")
    }
}

/// Serializes one field value into a cell (text into a spare string when there is one).
struct CellSer<'a> {
    spare: &'a mut Vec<String>,
}

impl CellSer<'_> {
    fn text(self, v: &str) -> Cell {
        let mut s = self.spare.pop().unwrap_or_default();
        s.clear();
        s.push_str(v);
        Cell::Str(s)
    }
}

fn nested<T>(what: &str) -> Result<T, Unsupported> {
    Err(Unsupported(format!("{what} cannot be a column value")))
}

impl ser::Serializer for CellSer<'_> {
    type Ok = Cell;
    type Error = Unsupported;
    type SerializeSeq = Impossible<Cell, Unsupported>;
    type SerializeTuple = Impossible<Cell, Unsupported>;
    type SerializeTupleStruct = Impossible<Cell, Unsupported>;
    type SerializeTupleVariant = Impossible<Cell, Unsupported>;
    type SerializeMap = Impossible<Cell, Unsupported>;
    type SerializeStruct = Impossible<Cell, Unsupported>;
    type SerializeStructVariant = Impossible<Cell, Unsupported>;

    fn serialize_bool(self, v: bool) -> Result<Cell, Unsupported> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, Unsupported> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, Unsupported> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, Unsupported> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, Unsupported> {
        Ok(Cell::I64(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, Unsupported> {
        Ok(Cell::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, Unsupported> {
        Ok(Cell::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, Unsupported> {
        Ok(Cell::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, Unsupported> {
        Ok(Cell::U64(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, Unsupported> {
        Ok(Cell::F64(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, Unsupported> {
        Ok(Cell::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, Unsupported> {
        Ok(self.text(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, Unsupported> {
        Ok(self.text(v))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Cell, Unsupported> {
        nested("bytes")
    }
    fn serialize_none(self) -> Result<Cell, Unsupported> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Cell, Unsupported> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, Unsupported> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, Unsupported> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, Unsupported> {
        Ok(self.text(variant))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Cell, Unsupported> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, Unsupported> {
        nested("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        nested("a sequence")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        nested("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        nested("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        nested("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        nested("a map")
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        nested("a struct")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        nested("an enum with data")
    }
}

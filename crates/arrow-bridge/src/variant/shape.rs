//! The shape of a shredded Variant column: what its `typed_value` holds, level by level
//! ([`ShreddedType`]), how that maps to Arrow types, and a short text syntax for it.
//!
//! | Variant type | `typed_value` Arrow type | text |
//! | --- | --- | --- |
//! | boolean | `Boolean` | `boolean` |
//! | int8 / int16 / int32 / int64 | `Int8` .. `Int64` | `int8` .. `int64` |
//! | float / double | `Float32` / `Float64` | `float` / `double` |
//! | decimal4 / decimal8 / decimal16 | `Decimal128(p, s)`, the width by precision (up to 9, 18, 38 digits, as `INT32`, `INT64`, `FIXED_LEN_BYTE_ARRAY` store them); `Decimal32` / `Decimal64` accepted as decimal4 / decimal8 | `decimal(p,s)` (or `decimal4(p,s)` ..) |
//! | date | `Date32` | `date` |
//! | time_ntz (micros) | `Time64(us)` | `time_ntz` (or `time`) |
//! | timestamp (micros, UTC) / timestamp_ntz | `Timestamp(us, "+00:00")` / `Timestamp(us)` | `timestamp` / `timestamp_ntz` |
//! | timestamp_nanos / timestamp_ntz_nanos | `Timestamp(ns, "+00:00")` / `Timestamp(ns)` | `timestamp_nanos` / `timestamp_ntz_nanos` |
//! | binary / string | `Binary` / `Utf8` (large and view forms accepted) | `binary` / `string` |
//! | uuid | `FixedSizeBinary(16)` with the `arrow.uuid` extension | `uuid` |
//! | object | `Struct` of one non-null `{value, typed_value}` struct per shredded field | `{a:int64,b:string}` |
//! | array | `List` of non-null `{value, typed_value}` elements | `[string]` |
//! | (not shredded) | no `typed_value` | `variant` |
//!
//! Anything else in a `typed_value` (unsigned integers, `FixedSizeBinary(4)`, ...) is
//! not a shredded Variant type and is rejected with "unsupported shredded value type".
//!
//! ```
//! use herringbone_arrow_bridge::variant::ShreddedType;
//! let shape = ShreddedType::parse("a:int64,b:{c:[string]},d:decimal(9,2)").unwrap();
//! assert_eq!(shape.to_string(), "{a:int64,b:{c:[string]},d:decimal4(9,2)}");
//! ```

use std::fmt;
use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Fields, TimeUnit};

use crate::error::{Error, Result};
use crate::schema::{DEFAULT_UTC_TIME_ZONE, EXTENSION_NAME_KEY};

use super::extension::{METADATA, TYPED_VALUE, VALUE};

/// Deepest nesting of objects and arrays a shape may have (bounds every walk over one).
pub const MAX_SHAPE_DEPTH: usize = 64;

/// A Variant primitive type a `typed_value` column can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrimitiveType {
    /// boolean.
    Boolean,
    /// int8.
    Int8,
    /// int16.
    Int16,
    /// int32.
    Int32,
    /// int64.
    Int64,
    /// float.
    Float,
    /// double.
    Double,
    /// decimal4 (precision 1..=9).
    Decimal4 {
        /// Digits in all.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// decimal8 (precision 1..=18).
    Decimal8 {
        /// Digits in all.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// decimal16 (precision 1..=38).
    Decimal16 {
        /// Digits in all.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// date.
    Date,
    /// time_ntz in microseconds.
    Time,
    /// timestamp in microseconds, UTC.
    Timestamp,
    /// timestamp_ntz in microseconds.
    TimestampNtz,
    /// timestamp in nanoseconds, UTC.
    TimestampNanos,
    /// timestamp_ntz in nanoseconds.
    TimestampNtzNanos,
    /// binary.
    Binary,
    /// string.
    String,
    /// uuid.
    Uuid,
}

/// What the `typed_value` of one level of a Variant column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShreddedType {
    /// Nothing: values stay Variant-encoded in `value` (no `typed_value` column).
    Variant,
    /// A primitive type.
    Primitive(PrimitiveType),
    /// An object whose named fields are shredded, each with its own shape; the fields
    /// not named stay in `value` (a partially shredded object).
    Object(Vec<(String, ShreddedType)>),
    /// An array whose elements have this shape.
    Array(Box<ShreddedType>),
}

impl PrimitiveType {
    /// The Variant decimal of `precision` digits: decimal4 up to 9, decimal8 up to 18,
    /// else decimal16 (the widths `INT32`, `INT64` and `FIXED_LEN_BYTE_ARRAY` columns
    /// of that precision store).
    pub fn decimal(precision: u8, scale: u8) -> PrimitiveType {
        if precision <= 9 {
            PrimitiveType::Decimal4 { precision, scale }
        } else if precision <= 18 {
            PrimitiveType::Decimal8 { precision, scale }
        } else {
            PrimitiveType::Decimal16 { precision, scale }
        }
    }

    /// The Arrow type of a `typed_value` of this type.
    pub fn arrow_type(&self) -> DataType {
        let utc = || Some(Arc::<str>::from(DEFAULT_UTC_TIME_ZONE));
        match *self {
            PrimitiveType::Boolean => DataType::Boolean,
            PrimitiveType::Int8 => DataType::Int8,
            PrimitiveType::Int16 => DataType::Int16,
            PrimitiveType::Int32 => DataType::Int32,
            PrimitiveType::Int64 => DataType::Int64,
            PrimitiveType::Float => DataType::Float32,
            PrimitiveType::Double => DataType::Float64,
            // One Arrow type for every width (what pyarrow and arrow-rs read): the
            // precision gives the Parquet physical type, and so the width back.
            PrimitiveType::Decimal4 { precision, scale }
            | PrimitiveType::Decimal8 { precision, scale }
            | PrimitiveType::Decimal16 { precision, scale } => {
                DataType::Decimal128(precision, scale as i8)
            }
            PrimitiveType::Date => DataType::Date32,
            PrimitiveType::Time => DataType::Time64(TimeUnit::Microsecond),
            PrimitiveType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, utc()),
            PrimitiveType::TimestampNtz => DataType::Timestamp(TimeUnit::Microsecond, None),
            PrimitiveType::TimestampNanos => DataType::Timestamp(TimeUnit::Nanosecond, utc()),
            PrimitiveType::TimestampNtzNanos => DataType::Timestamp(TimeUnit::Nanosecond, None),
            PrimitiveType::Binary => DataType::Binary,
            PrimitiveType::String => DataType::Utf8,
            PrimitiveType::Uuid => DataType::FixedSizeBinary(16),
        }
    }

    /// The Variant primitive type an Arrow `typed_value` field holds, or the
    /// "unsupported shredded value type" error naming `path`.
    pub fn from_field(field: &Field, path: &str) -> Result<PrimitiveType> {
        let unsupported = || {
            Error::unsupported(format!(
                "unsupported shredded value type: {} at {path}",
                field.data_type()
            ))
        };
        let decimal = |precision: u8, scale: i8, max: u8| -> Result<(u8, u8)> {
            match u8::try_from(scale) {
                Ok(scale) if precision >= 1 && precision <= max && scale <= precision => {
                    Ok((precision, scale))
                }
                _ => Err(unsupported()),
            }
        };
        Ok(match field.data_type() {
            DataType::Boolean => PrimitiveType::Boolean,
            DataType::Int8 => PrimitiveType::Int8,
            DataType::Int16 => PrimitiveType::Int16,
            DataType::Int32 => PrimitiveType::Int32,
            DataType::Int64 => PrimitiveType::Int64,
            DataType::Float32 => PrimitiveType::Float,
            DataType::Float64 => PrimitiveType::Double,
            DataType::Decimal32(p, s) => {
                let (precision, scale) = decimal(*p, *s, 9)?;
                PrimitiveType::Decimal4 { precision, scale }
            }
            DataType::Decimal64(p, s) => {
                let (precision, scale) = decimal(*p, *s, 18)?;
                PrimitiveType::Decimal8 { precision, scale }
            }
            DataType::Decimal128(p, s) => {
                let (precision, scale) = decimal(*p, *s, 38)?;
                PrimitiveType::decimal(precision, scale)
            }
            DataType::Date32 => PrimitiveType::Date,
            DataType::Time64(TimeUnit::Microsecond) => PrimitiveType::Time,
            DataType::Timestamp(TimeUnit::Microsecond, zone) => match zone {
                Some(_) => PrimitiveType::Timestamp,
                None => PrimitiveType::TimestampNtz,
            },
            DataType::Timestamp(TimeUnit::Nanosecond, zone) => match zone {
                Some(_) => PrimitiveType::TimestampNanos,
                None => PrimitiveType::TimestampNtzNanos,
            },
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
                PrimitiveType::Binary
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => PrimitiveType::String,
            DataType::FixedSizeBinary(16)
                if field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str)
                    == Some("arrow.uuid") =>
            {
                PrimitiveType::Uuid
            }
            _ => return Err(unsupported()),
        })
    }

    /// The name in the text syntax (the Variant specification's type name).
    pub fn name(&self) -> String {
        match *self {
            PrimitiveType::Boolean => "boolean".into(),
            PrimitiveType::Int8 => "int8".into(),
            PrimitiveType::Int16 => "int16".into(),
            PrimitiveType::Int32 => "int32".into(),
            PrimitiveType::Int64 => "int64".into(),
            PrimitiveType::Float => "float".into(),
            PrimitiveType::Double => "double".into(),
            PrimitiveType::Decimal4 { precision, scale } => {
                format!("decimal4({precision},{scale})")
            }
            PrimitiveType::Decimal8 { precision, scale } => {
                format!("decimal8({precision},{scale})")
            }
            PrimitiveType::Decimal16 { precision, scale } => {
                format!("decimal16({precision},{scale})")
            }
            PrimitiveType::Date => "date".into(),
            PrimitiveType::Time => "time_ntz".into(),
            PrimitiveType::Timestamp => "timestamp".into(),
            PrimitiveType::TimestampNtz => "timestamp_ntz".into(),
            PrimitiveType::TimestampNanos => "timestamp_nanos".into(),
            PrimitiveType::TimestampNtzNanos => "timestamp_ntz_nanos".into(),
            PrimitiveType::Binary => "binary".into(),
            PrimitiveType::String => "string".into(),
            PrimitiveType::Uuid => "uuid".into(),
        }
    }
}

/// The `{value, typed_value}` fields of one level of the given shape.
pub(crate) fn level_fields(shape: &ShreddedType) -> Fields {
    let value = Field::new(VALUE, DataType::Binary, true);
    match shape.typed_value_field() {
        Some(typed) => Fields::from(vec![Arc::new(value), typed]),
        None => Fields::from(vec![value]),
    }
}

impl ShreddedType {
    /// The `typed_value` field of a level of this shape (`None` for
    /// [`ShreddedType::Variant`]).
    pub fn typed_value_field(&self) -> Option<FieldRef> {
        let data_type = match self {
            ShreddedType::Variant => return None,
            ShreddedType::Primitive(primitive) => {
                let field = Field::new(TYPED_VALUE, primitive.arrow_type(), true);
                let field = if *primitive == PrimitiveType::Uuid {
                    field.with_metadata(
                        [(EXTENSION_NAME_KEY.to_string(), "arrow.uuid".to_string())].into(),
                    )
                } else {
                    field
                };
                return Some(Arc::new(field));
            }
            ShreddedType::Object(fields) => DataType::Struct(
                fields
                    .iter()
                    .map(|(name, shape)| {
                        Field::new(name, DataType::Struct(level_fields(shape)), false)
                    })
                    .collect(),
            ),
            ShreddedType::Array(element) => DataType::List(Arc::new(Field::new(
                "element",
                DataType::Struct(level_fields(element)),
                false,
            ))),
        };
        Some(Arc::new(Field::new(TYPED_VALUE, data_type, true)))
    }

    /// The storage type of a Variant column of this shape: `{metadata: Binary, value:
    /// Binary, typed_value}` (no `typed_value` for [`ShreddedType::Variant`]).
    pub fn storage_type(&self) -> DataType {
        let mut fields = vec![Arc::new(Field::new(METADATA, DataType::Binary, false))];
        fields.extend(level_fields(self).iter().cloned());
        DataType::Struct(Fields::from(fields))
    }

    /// The shape of a Variant storage struct's fields (`metadata`, `value`,
    /// `typed_value`): [`ShreddedType::Variant`] when there is no `typed_value`.
    ///
    /// Errors name the first `typed_value` that is not a shredded Variant type and the
    /// path to it.
    pub fn from_storage_fields(fields: &Fields) -> Result<ShreddedType> {
        match fields.iter().find(|f| f.name() == TYPED_VALUE) {
            None => Ok(ShreddedType::Variant),
            Some(typed) => Self::from_typed_field(typed, TYPED_VALUE, 0),
        }
    }

    fn from_typed_field(field: &Field, path: &str, depth: usize) -> Result<ShreddedType> {
        if depth > MAX_SHAPE_DEPTH {
            return Err(Error::unsupported(format!(
                "shredded variant nested deeper than {MAX_SHAPE_DEPTH} levels at {path}"
            )));
        }
        match field.data_type() {
            DataType::Struct(children) => {
                if children.is_empty() {
                    return Err(Error::unsupported(format!(
                        "unsupported shredded value type: an object without fields at {path}"
                    )));
                }
                let mut fields = Vec::with_capacity(children.len());
                for child in children {
                    let child_path = format!("{path}.{}", child.name());
                    fields.push((
                        child.name().clone(),
                        Self::from_level(child, &child_path, depth + 1)?,
                    ));
                }
                Ok(ShreddedType::Object(fields))
            }
            DataType::List(element) | DataType::LargeList(element) => {
                let element_path = format!("{path}.element");
                Ok(ShreddedType::Array(Box::new(Self::from_level(
                    element,
                    &element_path,
                    depth + 1,
                )?)))
            }
            _ => Ok(ShreddedType::Primitive(PrimitiveType::from_field(
                field, path,
            )?)),
        }
    }

    /// The shape of a `{value, typed_value}` group (an object field or array element).
    fn from_level(field: &Field, path: &str, depth: usize) -> Result<ShreddedType> {
        let DataType::Struct(children) = field.data_type() else {
            return Err(Error::unsupported(format!(
                "shredded variant field {path} must be a struct of `value` and `typed_value`, \
                 it is {}",
                field.data_type()
            )));
        };
        let mut shape = None;
        let mut has_value = false;
        for child in children {
            match child.name().as_str() {
                VALUE => {
                    if !matches!(
                        child.data_type(),
                        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
                    ) {
                        return Err(Error::unsupported(format!(
                            "shredded variant {path}.value must be binary, it is {}",
                            child.data_type()
                        )));
                    }
                    has_value = true;
                }
                TYPED_VALUE => {
                    shape = Some(Self::from_typed_field(
                        child,
                        &format!("{path}.typed_value"),
                        depth,
                    )?);
                }
                other => {
                    return Err(Error::unsupported(format!(
                        "shredded variant field {path} has a field `{other}`; only `value` and \
                         `typed_value` are allowed"
                    )));
                }
            }
        }
        if shape.is_none() && !has_value {
            return Err(Error::unsupported(format!(
                "shredded variant field {path} has neither `value` nor `typed_value`"
            )));
        }
        Ok(shape.unwrap_or(ShreddedType::Variant))
    }

    /// Parses the text syntax: a type (`int64`, `{a:int64}`, `[string]`, `variant`), or
    /// the fields of an object without braces (`a:int64,b:string`). A field name with
    /// characters other than letters, digits, `_`, `-`, `.`, `$` is written in double
    /// quotes (`"a b":int64`, `\"` and `\\` inside).
    ///
    /// Errors (kind `InvalidArgument`) say where the text stops making sense.
    pub fn parse(text: &str) -> Result<ShreddedType> {
        let mut parser = Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        };
        parser.skip_space();
        let shape = if parser.starts_field_list() {
            ShreddedType::Object(parser.fields(None, 0)?)
        } else {
            parser.shape(0)?
        };
        parser.skip_space();
        if parser.pos != parser.bytes.len() {
            return Err(parser.error("unexpected text after the type"));
        }
        Ok(shape)
    }
}

impl fmt::Display for ShreddedType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShreddedType::Variant => f.write_str("variant"),
            ShreddedType::Primitive(primitive) => f.write_str(&primitive.name()),
            ShreddedType::Object(fields) => {
                f.write_str("{")?;
                for (i, (name, shape)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_name(f, name)?;
                    write!(f, ":{shape}")?;
                }
                f.write_str("}")
            }
            ShreddedType::Array(element) => write!(f, "[{element}]"),
        }
    }
}

fn is_plain_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'$')
}

fn write_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    if !name.is_empty() && name.bytes().all(is_plain_name_byte) {
        return f.write_str(name);
    }
    f.write_str("\"")?;
    for c in name.chars() {
        if c == '"' || c == '\\' {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> Error {
        Error::invalid_argument(format!(
            "shredding type {:?} at byte {}: {message}",
            self.text, self.pos
        ))
    }

    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        if self.bytes.get(self.pos) == Some(&byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Whether the text starts with `name:` (an object's fields without braces).
    fn starts_field_list(&self) -> bool {
        let mut probe = Parser {
            text: self.text,
            bytes: self.bytes,
            pos: self.pos,
        };
        probe.name().is_ok() && probe.eat(b':')
    }

    fn name(&mut self) -> Result<String> {
        self.skip_space();
        if self.bytes.get(self.pos) == Some(&b'"') {
            self.pos += 1;
            let mut name = String::new();
            let mut chars = self.text[self.pos..].char_indices();
            while let Some((offset, c)) = chars.next() {
                match c {
                    '"' => {
                        self.pos += offset + 1;
                        return Ok(name);
                    }
                    '\\' => match chars.next() {
                        Some((_, escaped @ ('"' | '\\'))) => name.push(escaped),
                        _ => {
                            self.pos += offset;
                            return Err(self.error("only \\\" and \\\\ escapes are allowed"));
                        }
                    },
                    c => name.push(c),
                }
            }
            self.pos = self.bytes.len();
            return Err(self.error("unterminated quoted name"));
        }
        let start = self.pos;
        while self
            .bytes
            .get(self.pos)
            .copied()
            .is_some_and(is_plain_name_byte)
        {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error("expected a name"));
        }
        Ok(self.text[start..self.pos].to_string())
    }

    /// `name:shape` pairs up to `close` (or the end of the text when `None`).
    fn fields(&mut self, close: Option<u8>, depth: usize) -> Result<Vec<(String, ShreddedType)>> {
        let mut fields: Vec<(String, ShreddedType)> = Vec::new();
        loop {
            let name = self.name()?;
            if fields.iter().any(|(n, _)| *n == name) {
                return Err(self.error(&format!("field {name:?} is named twice")));
            }
            if !self.eat(b':') {
                return Err(self.error("expected `:` after the field name"));
            }
            fields.push((name, self.shape(depth + 1)?));
            if self.eat(b',') {
                continue;
            }
            match close {
                Some(close) if self.eat(close) => return Ok(fields),
                Some(close) => {
                    return Err(self.error(&format!("expected `,` or `{}`", close as char)));
                }
                None => return Ok(fields),
            }
        }
    }

    fn shape(&mut self, depth: usize) -> Result<ShreddedType> {
        if depth > MAX_SHAPE_DEPTH {
            return Err(self.error(&format!("nested deeper than {MAX_SHAPE_DEPTH} levels")));
        }
        if self.eat(b'{') {
            return Ok(ShreddedType::Object(self.fields(Some(b'}'), depth)?));
        }
        if self.eat(b'[') {
            let element = self.shape(depth + 1)?;
            if !self.eat(b']') {
                return Err(self.error("expected `]`"));
            }
            return Ok(ShreddedType::Array(Box::new(element)));
        }
        let name = self.name()?.to_ascii_lowercase();
        let primitive = match name.as_str() {
            "variant" => return Ok(ShreddedType::Variant),
            "boolean" | "bool" => PrimitiveType::Boolean,
            "int8" => PrimitiveType::Int8,
            "int16" => PrimitiveType::Int16,
            "int32" => PrimitiveType::Int32,
            "int64" => PrimitiveType::Int64,
            "float" => PrimitiveType::Float,
            "double" => PrimitiveType::Double,
            "date" => PrimitiveType::Date,
            "time" | "time_ntz" => PrimitiveType::Time,
            "timestamp" => PrimitiveType::Timestamp,
            "timestamp_ntz" => PrimitiveType::TimestampNtz,
            "timestamp_nanos" => PrimitiveType::TimestampNanos,
            "timestamp_ntz_nanos" => PrimitiveType::TimestampNtzNanos,
            "binary" => PrimitiveType::Binary,
            "string" => PrimitiveType::String,
            "uuid" => PrimitiveType::Uuid,
            "decimal" | "decimal4" | "decimal8" | "decimal16" => self.decimal(&name)?,
            other => return Err(self.error(&format!("unknown type `{other}`"))),
        };
        Ok(ShreddedType::Primitive(primitive))
    }

    fn number(&mut self) -> Result<u8> {
        self.skip_space();
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.text[start..self.pos]
            .parse()
            .map_err(|_| self.error("expected a number up to 255"))
    }

    fn decimal(&mut self, name: &str) -> Result<PrimitiveType> {
        if !self.eat(b'(') {
            return Err(self.error("expected `(precision,scale)`"));
        }
        let precision = self.number()?;
        if !self.eat(b',') {
            return Err(self.error("expected `,` between precision and scale"));
        }
        let scale = self.number()?;
        if !self.eat(b')') {
            return Err(self.error("expected `)`"));
        }
        let width = match name {
            "decimal4" => 9,
            "decimal8" => 18,
            "decimal16" => 38,
            _ if precision <= 9 => 9,
            _ if precision <= 18 => 18,
            _ => 38,
        };
        if precision == 0 || precision > width || scale > precision {
            return Err(self.error(&format!(
                "{name}({precision},{scale}) needs 1 <= precision <= {width} and scale <= precision"
            )));
        }
        Ok(match width {
            9 => PrimitiveType::Decimal4 { precision, scale },
            18 => PrimitiveType::Decimal8 { precision, scale },
            _ => PrimitiveType::Decimal16 { precision, scale },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        for text in [
            "int64",
            "variant",
            "[string]",
            "{a:int64,b:{c:[decimal16(38,9)]},d:uuid,\"x y\":timestamp_ntz_nanos}",
            "[[{k:variant}]]",
            "{\"q\\\"\":date}",
        ] {
            let shape = ShreddedType::parse(text).unwrap();
            assert_eq!(shape.to_string(), text);
            assert_eq!(ShreddedType::parse(&shape.to_string()).unwrap(), shape);
        }
        assert_eq!(
            ShreddedType::parse(" a : int64 , b:string ").unwrap(),
            ShreddedType::Object(vec![
                ("a".into(), ShreddedType::Primitive(PrimitiveType::Int64)),
                ("b".into(), ShreddedType::Primitive(PrimitiveType::String)),
            ])
        );
        // A field called like a type is still a field when a colon follows.
        assert_eq!(
            ShreddedType::parse("date:date").unwrap().to_string(),
            "{date:date}"
        );
    }

    #[test]
    fn bad_text_says_where() {
        for (text, message) in [
            ("a:int65", "unknown type `int65`"),
            ("a:int64,a:string", "named twice"),
            ("{a:int64", "expected `,` or `}`"),
            ("decimal4(10,2)", "needs 1 <= precision <= 9"),
            ("[int64", "expected `]`"),
            ("int64 x", "unexpected text"),
            ("\"abc:int64", "unterminated"),
        ] {
            let err = ShreddedType::parse(text).unwrap_err();
            assert!(err.to_string().contains(message), "{text}: {err}");
        }
        let deep = "[".repeat(100) + "int8" + &"]".repeat(100);
        assert!(ShreddedType::parse(&deep).is_err());
    }

    #[test]
    fn arrow_types_round_trip() {
        let shape = ShreddedType::parse(
            "a:boolean,b:int8,c:int16,d:int32,e:int64,f:float,g:double,h:decimal4(9,2),\
             i:decimal8(18,3),j:decimal16(38,4),k:date,l:time_ntz,m:timestamp,n:timestamp_ntz,\
             o:timestamp_nanos,p:timestamp_ntz_nanos,q:binary,r:string,s:uuid,t:[{u:variant}]",
        )
        .unwrap();
        let DataType::Struct(fields) = shape.storage_type() else {
            panic!("not a struct");
        };
        assert_eq!(ShreddedType::from_storage_fields(&fields).unwrap(), shape);
    }

    #[test]
    fn unsupported_types_are_named() {
        let fields = Fields::from(vec![
            Field::new(METADATA, DataType::Binary, false),
            Field::new(VALUE, DataType::Binary, true),
            Field::new(TYPED_VALUE, DataType::UInt32, true),
        ]);
        let err = ShreddedType::from_storage_fields(&fields).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unsupported shredded value type: UInt32 at typed_value"
        );
        let fields = Fields::from(vec![
            Field::new(METADATA, DataType::Binary, false),
            Field::new(TYPED_VALUE, DataType::FixedSizeBinary(16), true),
        ]);
        let err = ShreddedType::from_storage_fields(&fields).unwrap_err();
        assert!(err.to_string().contains("FixedSizeBinary(16)"), "{err}");
    }
}

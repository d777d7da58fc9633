//! The borrowed read view of a Variant value.

use std::cmp::Ordering;
use std::fmt;

use crate::error::{Error, Result};

use super::metadata::VariantMetadata;
use super::{MAX_DEPTH, read_le_uint};

/// Basic type ids (the low two bits of the value header byte).
pub(crate) mod basic {
    pub const PRIMITIVE: u8 = 0;
    pub const SHORT_STRING: u8 = 1;
    pub const OBJECT: u8 = 2;
    pub const ARRAY: u8 = 3;
}

/// Primitive type ids of the spec's table.
pub(crate) mod primitive {
    pub const NULL: u8 = 0;
    pub const TRUE: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const INT8: u8 = 3;
    pub const INT16: u8 = 4;
    pub const INT32: u8 = 5;
    pub const INT64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const DECIMAL4: u8 = 8;
    pub const DECIMAL8: u8 = 9;
    pub const DECIMAL16: u8 = 10;
    pub const DATE: u8 = 11;
    pub const TIMESTAMP_MICROS: u8 = 12;
    pub const TIMESTAMP_NTZ_MICROS: u8 = 13;
    pub const FLOAT: u8 = 14;
    pub const BINARY: u8 = 15;
    pub const STRING: u8 = 16;
    pub const TIME_NTZ_MICROS: u8 = 17;
    pub const TIMESTAMP_NANOS: u8 = 18;
    pub const TIMESTAMP_NTZ_NANOS: u8 = 19;
    pub const UUID: u8 = 20;
}

/// Largest decimal scale (and precision) the spec allows.
pub const MAX_DECIMAL_SCALE: u8 = 38;

/// Checks that a decimal of `width` bytes (4, 8 or 16) has at most the digits the spec's
/// decimal table gives that width (9, 18, 38).
pub(crate) fn check_decimal_digits(unscaled: i128, width: u8) -> std::result::Result<(), String> {
    let max_digits = match width {
        4 => 9,
        8 => 18,
        _ => 38,
    };
    if unscaled.unsigned_abs() >= 10u128.pow(max_digits) {
        return Err(format!(
            "decimal{width} {unscaled} has more than {max_digits} digits"
        ));
    }
    Ok(())
}

/// A decoded Variant value that borrows the metadata (`'m`) and value (`'v`) buffers.
///
/// Strings, binaries and nested objects/arrays are not copied: an object or array is a
/// view whose fields and elements are decoded (and checked) only when asked for, so a
/// lookup such as [`Variant::get_path`] touches only the bytes on its way.
///
/// ```
/// use herringbone_codec::variant::{Variant, VariantMetadata, VariantValue};
///
/// let encoded = VariantValue::from_json(r#"{"a": {"b": [10, 20, 30]}}"#).unwrap().encode().unwrap();
/// let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
/// let variant = Variant::try_new(metadata, &encoded.value).unwrap();
/// assert_eq!(variant.get_path("$.a.b[2]").unwrap(), Some(Variant::Int8(30)));
/// assert_eq!(variant.to_json().unwrap(), r#"{"a":{"b":[10,20,30]}}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Variant<'m, 'v> {
    /// Primitive type 0.
    Null,
    /// Primitive types 1 (true) and 2 (false).
    Boolean(bool),
    /// Primitive type 3.
    Int8(i8),
    /// Primitive type 4.
    Int16(i16),
    /// Primitive type 5.
    Int32(i32),
    /// Primitive type 6.
    Int64(i64),
    /// Primitive type 7.
    Double(f64),
    /// Primitive type 8: `unscaled * 10^-scale`, at most 9 digits.
    Decimal4 {
        /// The unscaled value.
        unscaled: i32,
        /// Digits after the decimal point (0..=38).
        scale: u8,
    },
    /// Primitive type 9: `unscaled * 10^-scale`, at most 18 digits.
    Decimal8 {
        /// The unscaled value.
        unscaled: i64,
        /// Digits after the decimal point (0..=38).
        scale: u8,
    },
    /// Primitive type 10: `unscaled * 10^-scale`, at most 38 digits.
    Decimal16 {
        /// The unscaled value.
        unscaled: i128,
        /// Digits after the decimal point (0..=38).
        scale: u8,
    },
    /// Primitive type 11: days since 1970-01-01.
    Date(i32),
    /// Primitive type 12: microseconds since the Unix epoch, UTC.
    TimestampMicros(i64),
    /// Primitive type 13: microseconds since 1970-01-01T00:00:00, no time zone.
    TimestampNtzMicros(i64),
    /// Primitive type 14.
    Float(f32),
    /// Primitive type 15.
    Binary(&'v [u8]),
    /// Primitive type 16 or the short-string basic type (semantically the same).
    String(&'v str),
    /// Primitive type 17: microseconds since midnight, no time zone.
    TimeNtzMicros(i64),
    /// Primitive type 18: nanoseconds since the Unix epoch, UTC.
    TimestampNanos(i64),
    /// Primitive type 19: nanoseconds since 1970-01-01T00:00:00, no time zone.
    TimestampNtzNanos(i64),
    /// Primitive type 20: the 16 bytes in big-endian (RFC 4122) order.
    Uuid([u8; 16]),
    /// Basic type 2.
    Object(VariantObject<'m, 'v>),
    /// Basic type 3.
    Array(VariantArray<'m, 'v>),
}

fn corrupt_at(position: usize, message: impl fmt::Display) -> Error {
    Error::corrupt(format!("variant value at byte {position}: {message}"))
}

fn fixed<const N: usize>(bytes: &[u8], pos: usize, what: &str, base: usize) -> Result<[u8; N]> {
    bytes
        .get(pos..)
        .and_then(|rest| rest.get(..N))
        .and_then(|slice| <[u8; N]>::try_from(slice).ok())
        .ok_or_else(|| {
            corrupt_at(
                base,
                format!(
                    "truncated {what}: needs {N} bytes, {} available",
                    bytes.len().saturating_sub(pos)
                ),
            )
        })
}

/// Number of bytes a primitive of this type id occupies after the header byte, for the
/// fixed-size types.
fn fixed_primitive_size(type_id: u8) -> Option<usize> {
    use primitive::*;
    Some(match type_id {
        NULL | TRUE | FALSE => 0,
        INT8 => 1,
        INT16 => 2,
        INT32 | DATE | FLOAT => 4,
        INT64 | DOUBLE | TIMESTAMP_MICROS | TIMESTAMP_NTZ_MICROS | TIME_NTZ_MICROS
        | TIMESTAMP_NANOS | TIMESTAMP_NTZ_NANOS => 8,
        DECIMAL4 => 5,
        DECIMAL8 => 9,
        DECIMAL16 => 17,
        UUID => 16,
        _ => return None,
    })
}

impl<'m, 'v> Variant<'m, 'v> {
    /// Decodes the value in `value` (which must hold exactly one encoded value) against
    /// `metadata`.
    ///
    /// This checks the header and, for objects and arrays, that their id and offset
    /// tables fit in the buffer; nested values are checked when they are reached. Use
    /// [`validate`](Self::validate) to check everything up front.
    pub fn try_new(metadata: VariantMetadata<'m>, value: &'v [u8]) -> Result<Self> {
        let (variant, used) = Self::decode_prefix(metadata, value, 0)?;
        if used != value.len() {
            return Err(corrupt_at(
                used,
                format!(
                    "{} trailing bytes after the {used}-byte value",
                    value.len() - used
                ),
            ));
        }
        Ok(variant)
    }

    /// Decodes the value at the start of `bytes` and returns it with its encoded length.
    /// `base` is where `bytes` starts in the top-level value (for error messages).
    pub(crate) fn decode_prefix(
        metadata: VariantMetadata<'m>,
        bytes: &'v [u8],
        base: usize,
    ) -> Result<(Self, usize)> {
        let header = *bytes
            .first()
            .ok_or_else(|| corrupt_at(base, "empty value, expected a header byte"))?;
        let value_header = header >> 2;
        match header & 0x03 {
            basic::PRIMITIVE => Self::decode_primitive(value_header, bytes, base),
            basic::SHORT_STRING => {
                let len = usize::from(value_header);
                let raw = bytes.get(1..1 + len).ok_or_else(|| {
                    corrupt_at(
                        base,
                        format!(
                            "short string of {len} bytes truncated ({} available)",
                            bytes.len() - 1
                        ),
                    )
                })?;
                let text = std::str::from_utf8(raw)
                    .map_err(|e| corrupt_at(base + 1, format!("short string is not UTF-8: {e}")))?;
                Ok((Variant::String(text), 1 + len))
            }
            basic::OBJECT => {
                let object = VariantObject::try_new(metadata, bytes, base)?;
                let len = object.bytes.len();
                Ok((Variant::Object(object), len))
            }
            _ => {
                let array = VariantArray::try_new(metadata, bytes, base)?;
                let len = array.bytes.len();
                Ok((Variant::Array(array), len))
            }
        }
    }

    fn decode_primitive(type_id: u8, bytes: &'v [u8], base: usize) -> Result<(Self, usize)> {
        use primitive::*;
        if let Some(size) = fixed_primitive_size(type_id) {
            let variant = match type_id {
                NULL => Variant::Null,
                TRUE => Variant::Boolean(true),
                FALSE => Variant::Boolean(false),
                INT8 => Variant::Int8(i8::from_le_bytes(fixed(bytes, 1, "int8", base)?)),
                INT16 => Variant::Int16(i16::from_le_bytes(fixed(bytes, 1, "int16", base)?)),
                INT32 => Variant::Int32(i32::from_le_bytes(fixed(bytes, 1, "int32", base)?)),
                INT64 => Variant::Int64(i64::from_le_bytes(fixed(bytes, 1, "int64", base)?)),
                DOUBLE => Variant::Double(f64::from_le_bytes(fixed(bytes, 1, "double", base)?)),
                FLOAT => Variant::Float(f32::from_le_bytes(fixed(bytes, 1, "float", base)?)),
                DATE => Variant::Date(i32::from_le_bytes(fixed(bytes, 1, "date", base)?)),
                TIMESTAMP_MICROS => Variant::TimestampMicros(i64::from_le_bytes(fixed(
                    bytes,
                    1,
                    "timestamp",
                    base,
                )?)),
                TIMESTAMP_NTZ_MICROS => Variant::TimestampNtzMicros(i64::from_le_bytes(fixed(
                    bytes,
                    1,
                    "timestamp_ntz",
                    base,
                )?)),
                TIME_NTZ_MICROS => {
                    Variant::TimeNtzMicros(i64::from_le_bytes(fixed(bytes, 1, "time_ntz", base)?))
                }
                TIMESTAMP_NANOS => Variant::TimestampNanos(i64::from_le_bytes(fixed(
                    bytes,
                    1,
                    "timestamp_nanos",
                    base,
                )?)),
                TIMESTAMP_NTZ_NANOS => Variant::TimestampNtzNanos(i64::from_le_bytes(fixed(
                    bytes,
                    1,
                    "timestamp_ntz_nanos",
                    base,
                )?)),
                UUID => Variant::Uuid(fixed(bytes, 1, "uuid", base)?),
                DECIMAL4 | DECIMAL8 | DECIMAL16 => {
                    let [scale] = fixed::<1>(bytes, 1, "decimal scale", base)?;
                    if scale > MAX_DECIMAL_SCALE {
                        return Err(corrupt_at(
                            base + 1,
                            format!("decimal scale {scale} exceeds {MAX_DECIMAL_SCALE}"),
                        ));
                    }
                    let (unscaled, width) = match type_id {
                        DECIMAL4 => (
                            i128::from(i32::from_le_bytes(fixed(bytes, 2, "decimal4", base)?)),
                            4,
                        ),
                        DECIMAL8 => (
                            i128::from(i64::from_le_bytes(fixed(bytes, 2, "decimal8", base)?)),
                            8,
                        ),
                        _ => (i128::from_le_bytes(fixed(bytes, 2, "decimal16", base)?), 16),
                    };
                    check_decimal_digits(unscaled, width)
                        .map_err(|message| corrupt_at(base + 2, message))?;
                    // The checks above bound each value to its width.
                    match width {
                        4 => Variant::Decimal4 {
                            unscaled: unscaled as i32,
                            scale,
                        },
                        8 => Variant::Decimal8 {
                            unscaled: unscaled as i64,
                            scale,
                        },
                        _ => Variant::Decimal16 { unscaled, scale },
                    }
                }
                _ => Variant::Null,
            };
            return Ok((variant, 1 + size));
        }
        match type_id {
            BINARY | STRING => {
                let what = if type_id == BINARY {
                    "binary"
                } else {
                    "string"
                };
                let len = u32::from_le_bytes(fixed(bytes, 1, what, base)?) as usize;
                let raw = bytes
                    .get(5..)
                    .and_then(|rest| rest.get(..len))
                    .ok_or_else(|| {
                        corrupt_at(
                            base,
                            format!(
                                "{what} of {len} bytes truncated ({} available)",
                                bytes.len().saturating_sub(5)
                            ),
                        )
                    })?;
                let variant =
                    if type_id == BINARY {
                        Variant::Binary(raw)
                    } else {
                        Variant::String(std::str::from_utf8(raw).map_err(|e| {
                            corrupt_at(base + 5, format!("string is not UTF-8: {e}"))
                        })?)
                    };
                Ok((variant, 5 + len))
            }
            _ => Err(Error::unsupported(format!(
                "variant value at byte {base}: unknown primitive type id {type_id}"
            ))),
        }
    }

    /// The spec's name of this value's type (`"int8"`, `"object"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Variant::Null => "null",
            Variant::Boolean(_) => "boolean",
            Variant::Int8(_) => "int8",
            Variant::Int16(_) => "int16",
            Variant::Int32(_) => "int32",
            Variant::Int64(_) => "int64",
            Variant::Double(_) => "double",
            Variant::Decimal4 { .. } => "decimal4",
            Variant::Decimal8 { .. } => "decimal8",
            Variant::Decimal16 { .. } => "decimal16",
            Variant::Date(_) => "date",
            Variant::TimestampMicros(_) => "timestamp",
            Variant::TimestampNtzMicros(_) => "timestamp_ntz",
            Variant::Float(_) => "float",
            Variant::Binary(_) => "binary",
            Variant::String(_) => "string",
            Variant::TimeNtzMicros(_) => "time_ntz",
            Variant::TimestampNanos(_) => "timestamp_nanos",
            Variant::TimestampNtzNanos(_) => "timestamp_ntz_nanos",
            Variant::Uuid(_) => "uuid",
            Variant::Object(_) => "object",
            Variant::Array(_) => "array",
        }
    }

    /// The object view, if this is an object.
    pub fn as_object(&self) -> Option<&VariantObject<'m, 'v>> {
        match self {
            Variant::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The array view, if this is an array.
    pub fn as_array(&self) -> Option<&VariantArray<'m, 'v>> {
        match self {
            Variant::Array(array) => Some(array),
            _ => None,
        }
    }

    /// The string, if this is a string (short or long).
    pub fn as_str(&self) -> Option<&'v str> {
        match self {
            Variant::String(text) => Some(text),
            _ => None,
        }
    }

    /// The value as an `i64`, if it is one of the integer types.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Variant::Int8(v) => Some(v.into()),
            Variant::Int16(v) => Some(v.into()),
            Variant::Int32(v) => Some(v.into()),
            Variant::Int64(v) => Some(v),
            _ => None,
        }
    }

    /// Checks the whole value: every nested offset, field id, string and type id, and that
    /// object fields are sorted by name without duplicates. Nesting deeper than
    /// [`MAX_DEPTH`] is an error.
    pub fn validate(&self) -> Result<()> {
        self.validate_at_depth(0)
    }

    fn validate_at_depth(&self, depth: usize) -> Result<()> {
        // Recursion is bounded by check_depth before each nested level.
        match self {
            Variant::Object(object) => {
                check_depth(depth, object.base)?;
                for field in object.iter_checked() {
                    let (_, value) = field?;
                    value.validate_at_depth(depth + 1)?;
                }
                Ok(())
            }
            Variant::Array(array) => {
                check_depth(depth, array.base)?;
                for element in array.iter() {
                    element?.validate_at_depth(depth + 1)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

pub(crate) fn check_depth(depth: usize, position: usize) -> Result<()> {
    if depth >= MAX_DEPTH {
        return Err(Error::corrupt(format!(
            "variant value at byte {position}: nesting deeper than {MAX_DEPTH} levels"
        )));
    }
    Ok(())
}

/// Reads `num_elements` (1 or 4 bytes) and the widths from a container header.
fn container_count(
    bytes: &[u8],
    is_large: bool,
    base: usize,
    what: &str,
) -> Result<(usize, usize)> {
    let count_size: u8 = if is_large { 4 } else { 1 };
    let count = read_le_uint(bytes, 1, count_size).ok_or_else(|| {
        corrupt_at(
            base,
            format!("truncated {what}: its {count_size}-byte element count is missing"),
        )
    })? as usize;
    Ok((count, 1 + usize::from(count_size)))
}

/// Computes `start + count * width`, failing with a message when it passes `limit`.
fn table_end(
    start: usize,
    count: usize,
    width: u8,
    limit: usize,
    base: usize,
    what: &str,
) -> Result<usize> {
    count
        .checked_mul(usize::from(width))
        .and_then(|len| len.checked_add(start))
        .filter(|&end| end <= limit)
        .ok_or_else(|| {
            corrupt_at(
                base,
                format!(
                    "{what} ({count} entries of {width} bytes at byte {}) exceeds the {} bytes available",
                    base + start,
                    limit
                ),
            )
        })
}

/// A borrowed Variant object: fields sorted by name, looked up by binary search.
#[derive(Clone, Copy, PartialEq)]
pub struct VariantObject<'m, 'v> {
    metadata: VariantMetadata<'m>,
    /// The whole encoded object, from its header byte to the end of its last field.
    bytes: &'v [u8],
    base: usize,
    len: usize,
    id_size: u8,
    offset_size: u8,
    ids_start: usize,
    offsets_start: usize,
    fields_start: usize,
}

// Debug shows the JSON text: its walk is depth-bounded, where a derived or
// field-by-field Debug would recurse as deep as hostile input nests.
impl fmt::Debug for VariantObject<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_as_json(Variant::Object(*self), f)
    }
}

fn debug_as_json(variant: Variant<'_, '_>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match variant.to_json() {
        Ok(json) => f.write_str(&json),
        Err(e) => write!(f, "<invalid: {e}>"),
    }
}

impl<'m, 'v> VariantObject<'m, 'v> {
    fn try_new(metadata: VariantMetadata<'m>, bytes: &'v [u8], base: usize) -> Result<Self> {
        let header = bytes[0] >> 2;
        let is_large = header & 0x10 != 0;
        let id_size = ((header >> 2) & 0x03) + 1;
        let offset_size = (header & 0x03) + 1;
        let (len, ids_start) = container_count(bytes, is_large, base, "object")?;
        let offsets_start = table_end(
            ids_start,
            len,
            id_size,
            bytes.len(),
            base,
            "object field ids",
        )?;
        let fields_start = table_end(
            offsets_start,
            len.saturating_add(1),
            offset_size,
            bytes.len(),
            base,
            "object field offsets",
        )?;
        let object = VariantObject {
            metadata,
            bytes,
            base,
            len,
            id_size,
            offset_size,
            ids_start,
            offsets_start,
            fields_start,
        };
        let fields_len = object.offset(len);
        let end = fields_start
            .checked_add(fields_len)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                corrupt_at(
                    base,
                    format!(
                        "object fields end at offset {fields_len} past byte {}, beyond the {} bytes available",
                        base + fields_start,
                        bytes.len()
                    ),
                )
            })?;
        Ok(VariantObject {
            bytes: &bytes[..end],
            ..object
        })
    }

    fn offset(&self, index: usize) -> usize {
        let pos = self.offsets_start + index * usize::from(self.offset_size);
        read_le_uint(self.bytes, pos, self.offset_size).unwrap_or(0) as usize
    }

    fn field_id(&self, index: usize) -> usize {
        let pos = self.ids_start + index * usize::from(self.id_size);
        read_le_uint(self.bytes, pos, self.id_size).unwrap_or(0) as usize
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the object has no fields.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The metadata this object's field ids refer to.
    pub fn metadata(&self) -> VariantMetadata<'m> {
        self.metadata
    }

    /// The encoded bytes of this object.
    pub fn as_bytes(&self) -> &'v [u8] {
        self.bytes
    }

    /// The name of field `index` (in field-name order).
    pub fn field_name(&self, index: usize) -> Result<&'m str> {
        if index >= self.len {
            return Err(Error::invalid_argument(format!(
                "variant object field {index} out of range ({} fields)",
                self.len
            )));
        }
        self.metadata.get(self.field_id(index)).map_err(|e| {
            e.context(format_args!(
                "variant object at byte {}, field {index}",
                self.base
            ))
        })
    }

    /// The value of field `index` (in field-name order).
    pub fn field_value(&self, index: usize) -> Result<Variant<'m, 'v>> {
        self.field_value_and_bytes(index).map(|(value, _)| value)
    }

    /// The encoded bytes of field `index`'s value (valid against this object's
    /// metadata), for copying a field without decoding it.
    pub fn field_bytes(&self, index: usize) -> Result<&'v [u8]> {
        self.field_value_and_bytes(index).map(|(_, bytes)| bytes)
    }

    fn field_value_and_bytes(&self, index: usize) -> Result<(Variant<'m, 'v>, &'v [u8])> {
        if index >= self.len {
            return Err(Error::invalid_argument(format!(
                "variant object field {index} out of range ({} fields)",
                self.len
            )));
        }
        let fields_len = self.bytes.len() - self.fields_start;
        let start = self.offset(index);
        if start >= fields_len {
            return Err(corrupt_at(
                self.base,
                format!(
                    "object field {index} starts at offset {start}, outside the {fields_len} bytes of field values"
                ),
            ));
        }
        let value_start = self.fields_start + start;
        let rest = &self.bytes[value_start..];
        let (value, used) = Variant::decode_prefix(self.metadata, rest, self.base + value_start)?;
        Ok((value, &rest[..used]))
    }

    /// Field `index` as (name, value).
    pub fn field(&self, index: usize) -> Result<(&'m str, Variant<'m, 'v>)> {
        Ok((self.field_name(index)?, self.field_value(index)?))
    }

    /// The value of the field called `name`, by binary search over the sorted field
    /// names (O(log n) fields touched).
    pub fn get(&self, name: &str) -> Result<Option<Variant<'m, 'v>>> {
        let (mut low, mut high) = (0, self.len);
        while low < high {
            let mid = low + (high - low) / 2;
            let id = self.field_id(mid);
            let candidate = self.metadata.name_bytes(id).ok_or_else(|| {
                corrupt_at(
                    self.base,
                    format!(
                        "object field {mid} has field id {id}, out of range for a dictionary of {} strings",
                        self.metadata.len()
                    ),
                )
            })?;
            match candidate.cmp(name.as_bytes()) {
                Ordering::Less => low = mid + 1,
                Ordering::Greater => high = mid,
                Ordering::Equal => return self.field_value(mid).map(Some),
            }
        }
        // Writers must sort fields by name, but some do not (DuckDB 2.0's unshredded
        // objects keep their struct order): a miss is confirmed by a scan.
        for index in 0..self.len {
            if self.metadata.name_bytes(self.field_id(index)) == Some(name.as_bytes()) {
                return self.field_value(index).map(Some);
            }
        }
        Ok(None)
    }

    /// The field indices in name order: `None` when the fields are stored sorted (as the
    /// specification requires), else the order that sorts them (for objects from writers
    /// that do not sort). Duplicate names are an error.
    pub fn name_order(&self) -> Result<Option<Vec<usize>>> {
        let name = |index: usize| {
            let id = self.field_id(index);
            self.metadata.name_bytes(id).ok_or_else(|| {
                corrupt_at(
                    self.base,
                    format!(
                        "object field {index} has field id {id}, out of range for a dictionary of {} strings",
                        self.metadata.len()
                    ),
                )
            })
        };
        let mut sorted = true;
        for index in 1..self.len {
            if name(index - 1)? >= name(index)? {
                sorted = false;
                break;
            }
        }
        if sorted {
            return Ok(None);
        }
        let mut names = Vec::with_capacity(self.len);
        for index in 0..self.len {
            names.push((name(index)?, index));
        }
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(corrupt_at(
                self.base,
                format!(
                    "object has the field {:?} twice",
                    String::from_utf8_lossy(pair[0].0)
                ),
            ));
        }
        Ok(Some(names.into_iter().map(|(_, index)| index).collect()))
    }

    /// The fields in stored (name) order.
    pub fn iter(&self) -> impl Iterator<Item = Result<(&'m str, Variant<'m, 'v>)>> + '_ {
        (0..self.len).map(|index| self.field(index))
    }

    /// The fields in stored order, failing when a name does not sort strictly after the
    /// previous one (unsorted or duplicate keys).
    pub fn iter_checked(&self) -> impl Iterator<Item = Result<(&'m str, Variant<'m, 'v>)>> + '_ {
        let mut previous: Option<&'m str> = None;
        (0..self.len).map(move |index| {
            let name = self.field_name(index)?;
            if let Some(prev) = previous
                && prev.as_bytes() >= name.as_bytes() {
                    return Err(corrupt_at(
                        self.base,
                        format!(
                            "object field {index} {name:?} does not sort after field {} {prev:?} (fields must be unique and sorted by name)",
                            index - 1
                        ),
                    ));
                }
            previous = Some(name);
            Ok((name, self.field_value(index)?))
        })
    }
}

/// A borrowed Variant array with O(1) access by index.
#[derive(Clone, Copy, PartialEq)]
pub struct VariantArray<'m, 'v> {
    metadata: VariantMetadata<'m>,
    /// The whole encoded array, from its header byte to the end of its last element.
    bytes: &'v [u8],
    base: usize,
    len: usize,
    offset_size: u8,
    offsets_start: usize,
    elements_start: usize,
}

impl fmt::Debug for VariantArray<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_as_json(Variant::Array(*self), f)
    }
}

impl<'m, 'v> VariantArray<'m, 'v> {
    fn try_new(metadata: VariantMetadata<'m>, bytes: &'v [u8], base: usize) -> Result<Self> {
        let header = bytes[0] >> 2;
        let is_large = header & 0x04 != 0;
        let offset_size = (header & 0x03) + 1;
        let (len, offsets_start) = container_count(bytes, is_large, base, "array")?;
        let elements_start = table_end(
            offsets_start,
            len.saturating_add(1),
            offset_size,
            bytes.len(),
            base,
            "array element offsets",
        )?;
        let array = VariantArray {
            metadata,
            bytes,
            base,
            len,
            offset_size,
            offsets_start,
            elements_start,
        };
        let first = array.offset(0);
        if first != 0 {
            return Err(corrupt_at(
                base,
                format!("array's first element offset is {first}, must be 0"),
            ));
        }
        let elements_len = array.offset(len);
        let end = elements_start
            .checked_add(elements_len)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                corrupt_at(
                    base,
                    format!(
                        "array elements end at offset {elements_len} past byte {}, beyond the {} bytes available",
                        base + elements_start,
                        bytes.len()
                    ),
                )
            })?;
        Ok(VariantArray {
            bytes: &bytes[..end],
            ..array
        })
    }

    fn offset(&self, index: usize) -> usize {
        let pos = self.offsets_start + index * usize::from(self.offset_size);
        read_le_uint(self.bytes, pos, self.offset_size).unwrap_or(0) as usize
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The encoded bytes of this array.
    pub fn as_bytes(&self) -> &'v [u8] {
        self.bytes
    }

    /// Element `index`, found in O(1) through the offset list.
    pub fn get(&self, index: usize) -> Result<Variant<'m, 'v>> {
        self.element_and_bytes(index).map(|(value, _)| value)
    }

    /// The encoded bytes of element `index`, for copying it without decoding it.
    pub fn element_bytes(&self, index: usize) -> Result<&'v [u8]> {
        self.element_and_bytes(index).map(|(_, bytes)| bytes)
    }

    fn element_and_bytes(&self, index: usize) -> Result<(Variant<'m, 'v>, &'v [u8])> {
        if index >= self.len {
            return Err(Error::invalid_argument(format!(
                "variant array index {index} out of range ({} elements)",
                self.len
            )));
        }
        let start = self.offset(index);
        let end = self.offset(index + 1);
        let elements_len = self.bytes.len() - self.elements_start;
        if start >= end || end > elements_len {
            return Err(corrupt_at(
                self.base,
                format!(
                    "array element {index} spans offsets {start}..{end}, not a non-empty range within the {elements_len} bytes of elements"
                ),
            ));
        }
        let element_start = self.elements_start + start;
        let element = &self.bytes[element_start..self.elements_start + end];
        let (value, used) =
            Variant::decode_prefix(self.metadata, element, self.base + element_start)?;
        if used != end - start {
            return Err(corrupt_at(
                self.base + element_start,
                format!(
                    "array element {index} is {used} bytes but its offsets give {}",
                    end - start
                ),
            ));
        }
        Ok((value, element))
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = Result<Variant<'m, 'v>>> + '_ {
        (0..self.len).map(|index| self.get(index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY_METADATA: [u8; 3] = [0x01, 0, 0];

    #[test]
    fn debug_of_hostile_nesting_is_bounded() {
        // 100,000 nested one-element arrays ([[[...null...]]]), each level 10 bytes:
        // header, 1-byte count, two 4-byte offsets.
        let levels = 100_000usize;
        let mut value = Vec::with_capacity(levels * 10 + 1);
        for level in 0..levels {
            let child_len = (levels - level - 1) * 10 + 1;
            value.extend_from_slice(&[0x0f, 1]);
            value.extend_from_slice(&0u32.to_le_bytes());
            value.extend_from_slice(&(child_len as u32).to_le_bytes());
        }
        value.push(0x00); // the innermost value: null

        let metadata = VariantMetadata::try_new(&EMPTY_METADATA).unwrap();
        let variant = Variant::try_new(metadata, &value).unwrap();
        let debug = format!("{variant:?}");
        assert!(
            debug.contains("nesting deeper"),
            "{}",
            &debug[..200.min(debug.len())]
        );
        assert!(variant.validate().is_err());
        assert!(variant.to_owned_value().is_err());
        // Path access walks only what it is asked for, so it works at any depth.
        let path = "$".to_owned() + &"[0]".repeat(levels);
        assert_eq!(variant.get_path(&path).unwrap(), Some(Variant::Null));
    }

    #[test]
    fn unsorted_objects_still_read_by_name() {
        // DuckDB 2.0 writes objects in its struct order: fields b, c, a here.
        let mut builder = crate::variant::MetadataBuilder::new();
        for name in ["a", "b", "c"] {
            builder.add(name);
        }
        let metadata_bytes = builder.finish_sorted();
        let metadata = VariantMetadata::try_new(&metadata_bytes).unwrap();
        let value = [
            0x02, 3, 1, 2, 0, 0, 2, 4, 6, // header, count, ids b c a, offsets
            0x0c, 5, 0x0c, 6, 0x0c, 7, // b: 5, c: 6, a: 7
        ];
        let variant = Variant::try_new(metadata, &value).unwrap();
        let object = variant.as_object().unwrap();
        assert_eq!(object.get("a").unwrap(), Some(Variant::Int8(7)));
        assert_eq!(object.get("b").unwrap(), Some(Variant::Int8(5)));
        assert_eq!(object.get("c").unwrap(), Some(Variant::Int8(6)));
        assert_eq!(object.get("d").unwrap(), None);
        assert_eq!(object.name_order().unwrap(), Some(vec![2, 0, 1]));
        assert_eq!(variant.to_json().unwrap(), r#"{"a":7,"b":5,"c":6}"#);
        // validate() still holds writers to the specification.
        assert!(variant.validate().is_err());
        let duplicate = [0x02, 2, 1, 1, 0, 2, 4, 0x0c, 5, 0x0c, 6];
        let variant = Variant::try_new(metadata, &duplicate).unwrap();
        let err = variant.to_json().unwrap_err();
        assert!(err.to_string().contains("the field \"b\" twice"), "{err}");
    }

    #[test]
    fn string_boundaries() {
        let metadata = VariantMetadata::try_new(&EMPTY_METADATA).unwrap();
        assert_eq!(
            Variant::try_new(metadata, &[0x01]).unwrap(),
            Variant::String("")
        );
        let err = Variant::try_new(metadata, &[0x05, 0xc3]).unwrap_err();
        assert!(err.to_string().contains("not UTF-8"), "{err}");
        let err = Variant::try_new(metadata, &[0x09, b'a']).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
    }
}

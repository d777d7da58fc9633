//! An owned Variant tree and the encoder that writes it as metadata + value bytes.

use crate::error::{Error, Result};

use super::metadata::{MetadataBuilder, VariantMetadata, byte_width};
use super::push_le_uint;
use super::value::{Variant, basic, check_decimal_digits, check_depth, primitive};

/// An owned Variant value: what the encoder writes and what a decoded value converts to
/// ([`Variant::to_owned_value`]).
///
/// Object fields are (name, value) pairs; the encoder sorts them by name and rejects
/// duplicate names. Equality compares floats by their bits (so `NaN == NaN` and
/// `0.0 != -0.0`), which is what "decodes to the same value" means.
///
/// ```
/// use herringbone_codec::variant::{Variant, VariantMetadata, VariantValue};
///
/// let value = VariantValue::Object(vec![
///     ("b".into(), VariantValue::Int32(7)),
///     ("a".into(), VariantValue::String("x".into())),
/// ]);
/// let encoded = value.encode().unwrap();
/// let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
/// let decoded = Variant::try_new(metadata, &encoded.value).unwrap();
/// assert_eq!(decoded.to_owned_value().unwrap(), value.sorted());
/// ```
#[derive(Debug, Clone)]
pub enum VariantValue {
    /// Null.
    Null,
    /// A boolean.
    Boolean(bool),
    /// int8.
    Int8(i8),
    /// int16.
    Int16(i16),
    /// int32.
    Int32(i32),
    /// int64.
    Int64(i64),
    /// double.
    Double(f64),
    /// decimal4: `unscaled * 10^-scale`, at most 9 digits.
    Decimal4 {
        /// The unscaled value.
        unscaled: i32,
        /// Digits after the point (0..=38).
        scale: u8,
    },
    /// decimal8: `unscaled * 10^-scale`, at most 18 digits.
    Decimal8 {
        /// The unscaled value.
        unscaled: i64,
        /// Digits after the point (0..=38).
        scale: u8,
    },
    /// decimal16: `unscaled * 10^-scale`, at most 38 digits.
    Decimal16 {
        /// The unscaled value.
        unscaled: i128,
        /// Digits after the point (0..=38).
        scale: u8,
    },
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since the Unix epoch, UTC.
    TimestampMicros(i64),
    /// Microseconds since 1970-01-01T00:00:00, no time zone.
    TimestampNtzMicros(i64),
    /// float.
    Float(f32),
    /// Bytes.
    Binary(Vec<u8>),
    /// A string (written as a short string when under 64 bytes).
    String(String),
    /// Microseconds since midnight.
    TimeNtzMicros(i64),
    /// Nanoseconds since the Unix epoch, UTC.
    TimestampNanos(i64),
    /// Nanoseconds since 1970-01-01T00:00:00, no time zone.
    TimestampNtzNanos(i64),
    /// A UUID, big-endian bytes.
    Uuid([u8; 16]),
    /// An object's (name, value) pairs.
    Object(Vec<(String, VariantValue)>),
    /// An array's elements.
    Array(Vec<VariantValue>),
}

impl PartialEq for VariantValue {
    fn eq(&self, other: &Self) -> bool {
        use VariantValue as V;
        match (self, other) {
            (V::Null, V::Null) => true,
            (V::Boolean(a), V::Boolean(b)) => a == b,
            (V::Int8(a), V::Int8(b)) => a == b,
            (V::Int16(a), V::Int16(b)) => a == b,
            (V::Int32(a), V::Int32(b)) => a == b,
            (V::Int64(a), V::Int64(b)) => a == b,
            (V::Double(a), V::Double(b)) => a.to_bits() == b.to_bits(),
            (V::Float(a), V::Float(b)) => a.to_bits() == b.to_bits(),
            (
                V::Decimal4 {
                    unscaled: a,
                    scale: s,
                },
                V::Decimal4 {
                    unscaled: b,
                    scale: t,
                },
            ) => a == b && s == t,
            (
                V::Decimal8 {
                    unscaled: a,
                    scale: s,
                },
                V::Decimal8 {
                    unscaled: b,
                    scale: t,
                },
            ) => a == b && s == t,
            (
                V::Decimal16 {
                    unscaled: a,
                    scale: s,
                },
                V::Decimal16 {
                    unscaled: b,
                    scale: t,
                },
            ) => a == b && s == t,
            (V::Date(a), V::Date(b)) => a == b,
            (V::TimestampMicros(a), V::TimestampMicros(b)) => a == b,
            (V::TimestampNtzMicros(a), V::TimestampNtzMicros(b)) => a == b,
            (V::TimeNtzMicros(a), V::TimeNtzMicros(b)) => a == b,
            (V::TimestampNanos(a), V::TimestampNanos(b)) => a == b,
            (V::TimestampNtzNanos(a), V::TimestampNtzNanos(b)) => a == b,
            (V::Binary(a), V::Binary(b)) => a == b,
            (V::String(a), V::String(b)) => a == b,
            (V::Uuid(a), V::Uuid(b)) => a == b,
            (V::Object(a), V::Object(b)) => a == b,
            (V::Array(a), V::Array(b)) => a == b,
            _ => false,
        }
    }
}

/// The two blobs of an encoded Variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedVariant {
    /// The metadata (dictionary of field names).
    pub metadata: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
}

impl VariantValue {
    /// The same value with every object's fields sorted by name (the order a decoded
    /// object has).
    pub fn sorted(&self) -> VariantValue {
        match self {
            VariantValue::Object(fields) => {
                let mut fields: Vec<(String, VariantValue)> = fields
                    .iter()
                    .map(|(name, value)| (name.clone(), value.sorted()))
                    .collect();
                fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                VariantValue::Object(fields)
            }
            VariantValue::Array(elements) => {
                VariantValue::Array(elements.iter().map(VariantValue::sorted).collect())
            }
            other => other.clone(),
        }
    }

    /// Adds every object field name in this value to `builder`.
    pub fn collect_field_names(&self, builder: &mut MetadataBuilder) {
        // An explicit stack: the tree may be deeper than is comfortable to recurse.
        let mut pending = vec![self];
        while let Some(value) = pending.pop() {
            match value {
                VariantValue::Object(fields) => {
                    for (name, field) in fields {
                        builder.add(name);
                        pending.push(field);
                    }
                }
                VariantValue::Array(elements) => pending.extend(elements),
                _ => {}
            }
        }
    }

    /// Encodes this value with a sorted dictionary of exactly its field names.
    ///
    /// Errors: duplicate names in an object, a decimal with more digits than its width
    /// allows (9, 18, 38), nesting deeper than [`MAX_DEPTH`](super::MAX_DEPTH), a
    /// decimal scale above 38, or a string, binary or container too large for the
    /// format's 32-bit sizes.
    pub fn encode(&self) -> Result<EncodedVariant> {
        let mut builder = MetadataBuilder::new();
        self.collect_field_names(&mut builder);
        let metadata = builder.finish_sorted();
        let mut value = Vec::new();
        {
            let dictionary = VariantMetadata::try_new(&metadata)?;
            self.encode_value(&dictionary, &mut value)?;
        }
        Ok(EncodedVariant { metadata, value })
    }

    /// Appends this value's encoding to `out`, taking field ids from `metadata` (which
    /// must hold every field name; a shared dictionary for many values is built with
    /// [`collect_field_names`](Self::collect_field_names) and
    /// [`MetadataBuilder::finish_sorted`]).
    pub fn encode_value(&self, metadata: &VariantMetadata<'_>, out: &mut Vec<u8>) -> Result<()> {
        let mut encoder = Encoder {
            metadata,
            scratch: Vec::new(),
        };
        encoder.write(self, out, 0)
    }
}

struct Encoder<'a, 'm> {
    metadata: &'a VariantMetadata<'m>,
    /// Reused per object to sort its field indices.
    scratch: Vec<usize>,
}

fn primitive_header(type_id: u8) -> u8 {
    (type_id << 2) | basic::PRIMITIVE
}

fn length_u32(len: usize, what: &str) -> Result<u32> {
    u32::try_from(len).map_err(|_| {
        Error::invalid_argument(format!(
            "variant {what} of {len} bytes exceeds the format's 4 GiB limit"
        ))
    })
}

fn check_decimal(unscaled: i128, scale: u8, width: u8) -> Result<()> {
    if scale > super::MAX_DECIMAL_SCALE {
        return Err(Error::invalid_argument(format!(
            "variant decimal scale {scale} exceeds {}",
            super::MAX_DECIMAL_SCALE
        )));
    }
    check_decimal_digits(unscaled, width)
        .map_err(|message| Error::invalid_argument(format!("variant {message}")))
}

impl Encoder<'_, '_> {
    fn write(&mut self, value: &VariantValue, out: &mut Vec<u8>, depth: usize) -> Result<()> {
        use VariantValue as V;
        match value {
            V::Null => out.push(primitive_header(primitive::NULL)),
            V::Boolean(true) => out.push(primitive_header(primitive::TRUE)),
            V::Boolean(false) => out.push(primitive_header(primitive::FALSE)),
            V::Int8(v) => {
                out.push(primitive_header(primitive::INT8));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::Int16(v) => {
                out.push(primitive_header(primitive::INT16));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::Int32(v) => {
                out.push(primitive_header(primitive::INT32));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::Int64(v) => {
                out.push(primitive_header(primitive::INT64));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::Double(v) => {
                out.push(primitive_header(primitive::DOUBLE));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::Float(v) => {
                out.push(primitive_header(primitive::FLOAT));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::Decimal4 { unscaled, scale } => {
                check_decimal(i128::from(*unscaled), *scale, 4)?;
                out.push(primitive_header(primitive::DECIMAL4));
                out.push(*scale);
                out.extend_from_slice(&unscaled.to_le_bytes());
            }
            V::Decimal8 { unscaled, scale } => {
                check_decimal(i128::from(*unscaled), *scale, 8)?;
                out.push(primitive_header(primitive::DECIMAL8));
                out.push(*scale);
                out.extend_from_slice(&unscaled.to_le_bytes());
            }
            V::Decimal16 { unscaled, scale } => {
                check_decimal(*unscaled, *scale, 16)?;
                out.push(primitive_header(primitive::DECIMAL16));
                out.push(*scale);
                out.extend_from_slice(&unscaled.to_le_bytes());
            }
            V::Date(v) => {
                out.push(primitive_header(primitive::DATE));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::TimestampMicros(v) => {
                out.push(primitive_header(primitive::TIMESTAMP_MICROS));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::TimestampNtzMicros(v) => {
                out.push(primitive_header(primitive::TIMESTAMP_NTZ_MICROS));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::TimeNtzMicros(v) => {
                out.push(primitive_header(primitive::TIME_NTZ_MICROS));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::TimestampNanos(v) => {
                out.push(primitive_header(primitive::TIMESTAMP_NANOS));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::TimestampNtzNanos(v) => {
                out.push(primitive_header(primitive::TIMESTAMP_NTZ_NANOS));
                out.extend_from_slice(&v.to_le_bytes());
            }
            V::Uuid(bytes) => {
                out.push(primitive_header(primitive::UUID));
                out.extend_from_slice(bytes);
            }
            V::Binary(bytes) => {
                let len = length_u32(bytes.len(), "binary")?;
                out.push(primitive_header(primitive::BINARY));
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(bytes);
            }
            V::String(text) => write_string(text, out)?,
            V::Object(fields) => {
                check_depth(depth, out.len())?;
                self.write_object(fields, out, depth)?;
            }
            V::Array(elements) => {
                check_depth(depth, out.len())?;
                self.write_array(elements, out, depth)?;
            }
        }
        Ok(())
    }

    fn write_object(
        &mut self,
        fields: &[(String, VariantValue)],
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<()> {
        let mut order = std::mem::take(&mut self.scratch);
        let ids = sorted_field_ids(self.metadata, fields.len(), |i| &fields[i].0, &mut order)?;
        let mut values = Vec::new();
        let mut offsets = Vec::with_capacity(fields.len() + 1);
        for &index in &order {
            offsets.push(values.len());
            self.write(&fields[index].1, &mut values, depth + 1)?;
        }
        offsets.push(values.len());
        self.scratch = order;
        finish_object(&ids, &offsets, &values, out)
    }

    fn write_array(
        &mut self,
        elements: &[VariantValue],
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<()> {
        let mut values = Vec::new();
        let mut offsets = Vec::with_capacity(elements.len() + 1);
        for element in elements {
            offsets.push(values.len());
            self.write(element, &mut values, depth + 1)?;
        }
        offsets.push(values.len());
        finish_array(&offsets, &values, out)
    }
}

/// Sorts field indices `0..count` by name into `order` and returns the field ids in
/// that order; duplicate names and names missing from `metadata` are errors.
fn sorted_field_ids<'n>(
    metadata: &VariantMetadata<'_>,
    count: usize,
    name: impl Fn(usize) -> &'n str,
    order: &mut Vec<usize>,
) -> Result<Vec<usize>> {
    order.clear();
    order.extend(0..count);
    order.sort_unstable_by(|&a, &b| name(a).as_bytes().cmp(name(b).as_bytes()));
    let mut ids = Vec::with_capacity(count);
    for (position, &index) in order.iter().enumerate() {
        let field = name(index);
        if position > 0 && name(order[position - 1]) == field {
            return Err(Error::invalid_argument(format!(
                "variant object has duplicate field {field:?}"
            )));
        }
        let id = metadata.find(field).ok_or_else(|| {
            Error::invalid_argument(format!(
                "variant field name {field:?} is not in the metadata dictionary"
            ))
        })?;
        ids.push(id);
    }
    Ok(ids)
}

/// Writes an object header, ids and offsets (smallest widths), then the values.
fn finish_object(ids: &[usize], offsets: &[usize], values: &[u8], out: &mut Vec<u8>) -> Result<()> {
    length_u32(values.len(), "object")?;
    length_u32(ids.len(), "object field count")?;
    let is_large = ids.len() > 0xff;
    let id_size = byte_width(ids.iter().copied().max().unwrap_or(0));
    let offset_size = byte_width(values.len());
    out.push(
        ((u8::from(is_large) << 4 | (id_size - 1) << 2 | (offset_size - 1)) << 2) | basic::OBJECT,
    );
    push_le_uint(out, ids.len() as u32, if is_large { 4 } else { 1 });
    for &id in ids {
        push_le_uint(out, id as u32, id_size);
    }
    for &offset in offsets {
        push_le_uint(out, offset as u32, offset_size);
    }
    out.extend_from_slice(values);
    Ok(())
}

/// Writes an array header and offsets (smallest widths), then the values.
fn finish_array(offsets: &[usize], values: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let count = offsets.len().saturating_sub(1);
    length_u32(values.len(), "array")?;
    length_u32(count, "array element count")?;
    let is_large = count > 0xff;
    let offset_size = byte_width(values.len());
    out.push(((u8::from(is_large) << 2 | (offset_size - 1)) << 2) | basic::ARRAY);
    push_le_uint(out, count as u32, if is_large { 4 } else { 1 });
    for &offset in offsets {
        push_le_uint(out, offset as u32, offset_size);
    }
    out.extend_from_slice(values);
    Ok(())
}

/// Writes an object from field values that are already encoded against `metadata`
/// (for instance [`VariantObject::field_bytes`](super::VariantObject::field_bytes) of
/// another object with the same metadata), copying their bytes. Fields are sorted by
/// name; duplicate names, names missing from `metadata` and values that are not one
/// well-formed encoded value are errors.
///
/// This is how part of an object is kept without decoding it, e.g. the fields left in
/// `value` when others are shredded into typed columns.
///
/// ```
/// use herringbone_codec::variant::{encode_object_from_fields, Variant, VariantMetadata, VariantValue};
///
/// let encoded = VariantValue::from_json(r#"{"a": [1, 2], "b": "x", "c": null}"#)?.encode()?;
/// let metadata = VariantMetadata::try_new(&encoded.metadata)?;
/// let object = *Variant::try_new(metadata, &encoded.value)?.as_object().unwrap();
/// let kept = [("c", object.field_bytes(2)?), ("a", object.field_bytes(0)?)];
/// let mut value = Vec::new();
/// encode_object_from_fields(&metadata, &kept, &mut value)?;
/// assert_eq!(Variant::try_new(metadata, &value)?.to_json()?, r#"{"a":[1,2],"c":null}"#);
/// # Ok::<(), herringbone_codec::Error>(())
/// ```
pub fn encode_object_from_fields(
    metadata: &VariantMetadata<'_>,
    fields: &[(&str, &[u8])],
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut order = Vec::new();
    let ids = sorted_field_ids(metadata, fields.len(), |i| fields[i].0, &mut order)?;
    let mut values = Vec::with_capacity(fields.iter().map(|(_, v)| v.len()).sum());
    let mut offsets = Vec::with_capacity(fields.len() + 1);
    for &index in &order {
        let (name, bytes) = fields[index];
        Variant::try_new(*metadata, bytes)
            .map_err(|e| e.context(format_args!("field {name:?}")))?;
        offsets.push(values.len());
        values.extend_from_slice(bytes);
    }
    offsets.push(values.len());
    finish_object(&ids, &offsets, &values, out)
}

/// Writes an array from element values that are already encoded (against the metadata
/// the array will be read with), copying their bytes. Each element must be one
/// well-formed encoded value (checked shallowly, against `metadata`).
pub fn encode_array_from_elements(
    metadata: &VariantMetadata<'_>,
    elements: &[&[u8]],
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut values = Vec::with_capacity(elements.iter().map(|v| v.len()).sum());
    let mut offsets = Vec::with_capacity(elements.len() + 1);
    for (index, bytes) in elements.iter().enumerate() {
        Variant::try_new(*metadata, bytes)
            .map_err(|e| e.context(format_args!("element {index}")))?;
        offsets.push(values.len());
        values.extend_from_slice(bytes);
    }
    offsets.push(values.len());
    finish_array(&offsets, &values, out)
}

fn write_string(text: &str, out: &mut Vec<u8>) -> Result<()> {
    if text.len() < 64 {
        out.push(((text.len() as u8) << 2) | basic::SHORT_STRING);
    } else {
        let len = length_u32(text.len(), "string")?;
        out.push(primitive_header(primitive::STRING));
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(text.as_bytes());
    Ok(())
}

impl Variant<'_, '_> {
    /// Appends this value's encoding to `out`: a primitive is encoded as
    /// [`VariantValue::encode_value`] would encode it (short strings below 64 bytes), an
    /// object or array is copied as it is stored (its field ids refer to the metadata it
    /// was decoded with).
    ///
    /// ```
    /// use herringbone_codec::variant::Variant;
    ///
    /// let mut out = Vec::new();
    /// Variant::Int16(1234).write_to(&mut out)?;
    /// Variant::String("ab").write_to(&mut out)?;
    /// assert_eq!(out, [0x10, 0xd2, 0x04, 0x09, b'a', b'b']);
    /// # Ok::<(), herringbone_codec::Error>(())
    /// ```
    ///
    /// Errors: a decimal with more digits than its width allows or a scale above 38, a
    /// string or binary over the format's 4 GiB limit.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        let fixed = |out: &mut Vec<u8>, type_id: u8, bytes: &[u8]| {
            out.push(primitive_header(type_id));
            out.extend_from_slice(bytes);
        };
        match *self {
            Variant::Null => out.push(primitive_header(primitive::NULL)),
            Variant::Boolean(true) => out.push(primitive_header(primitive::TRUE)),
            Variant::Boolean(false) => out.push(primitive_header(primitive::FALSE)),
            Variant::Int8(v) => fixed(out, primitive::INT8, &v.to_le_bytes()),
            Variant::Int16(v) => fixed(out, primitive::INT16, &v.to_le_bytes()),
            Variant::Int32(v) => fixed(out, primitive::INT32, &v.to_le_bytes()),
            Variant::Int64(v) => fixed(out, primitive::INT64, &v.to_le_bytes()),
            Variant::Double(v) => fixed(out, primitive::DOUBLE, &v.to_le_bytes()),
            Variant::Float(v) => fixed(out, primitive::FLOAT, &v.to_le_bytes()),
            Variant::Decimal4 { unscaled, scale } => {
                check_decimal(i128::from(unscaled), scale, 4)?;
                fixed(out, primitive::DECIMAL4, &[scale]);
                out.extend_from_slice(&unscaled.to_le_bytes());
            }
            Variant::Decimal8 { unscaled, scale } => {
                check_decimal(i128::from(unscaled), scale, 8)?;
                fixed(out, primitive::DECIMAL8, &[scale]);
                out.extend_from_slice(&unscaled.to_le_bytes());
            }
            Variant::Decimal16 { unscaled, scale } => {
                check_decimal(unscaled, scale, 16)?;
                fixed(out, primitive::DECIMAL16, &[scale]);
                out.extend_from_slice(&unscaled.to_le_bytes());
            }
            Variant::Date(v) => fixed(out, primitive::DATE, &v.to_le_bytes()),
            Variant::TimestampMicros(v) => {
                fixed(out, primitive::TIMESTAMP_MICROS, &v.to_le_bytes())
            }
            Variant::TimestampNtzMicros(v) => {
                fixed(out, primitive::TIMESTAMP_NTZ_MICROS, &v.to_le_bytes())
            }
            Variant::TimeNtzMicros(v) => fixed(out, primitive::TIME_NTZ_MICROS, &v.to_le_bytes()),
            Variant::TimestampNanos(v) => fixed(out, primitive::TIMESTAMP_NANOS, &v.to_le_bytes()),
            Variant::TimestampNtzNanos(v) => {
                fixed(out, primitive::TIMESTAMP_NTZ_NANOS, &v.to_le_bytes())
            }
            Variant::Uuid(bytes) => fixed(out, primitive::UUID, &bytes),
            Variant::Binary(bytes) => {
                let len = length_u32(bytes.len(), "binary")?;
                fixed(out, primitive::BINARY, &len.to_le_bytes());
                out.extend_from_slice(bytes);
            }
            Variant::String(text) => write_string(text, out)?,
            Variant::Object(object) => out.extend_from_slice(object.as_bytes()),
            Variant::Array(array) => out.extend_from_slice(array.as_bytes()),
        }
        Ok(())
    }
}

impl Variant<'_, '_> {
    /// Converts the whole value to an owned tree, checking every nested value on the way
    /// (like [`validate`](Self::validate)).
    pub fn to_owned_value(&self) -> Result<VariantValue> {
        self.owned_at_depth(0)
    }

    fn owned_at_depth(&self, depth: usize) -> Result<VariantValue> {
        Ok(match *self {
            Variant::Null => VariantValue::Null,
            Variant::Boolean(v) => VariantValue::Boolean(v),
            Variant::Int8(v) => VariantValue::Int8(v),
            Variant::Int16(v) => VariantValue::Int16(v),
            Variant::Int32(v) => VariantValue::Int32(v),
            Variant::Int64(v) => VariantValue::Int64(v),
            Variant::Double(v) => VariantValue::Double(v),
            Variant::Decimal4 { unscaled, scale } => VariantValue::Decimal4 { unscaled, scale },
            Variant::Decimal8 { unscaled, scale } => VariantValue::Decimal8 { unscaled, scale },
            Variant::Decimal16 { unscaled, scale } => VariantValue::Decimal16 { unscaled, scale },
            Variant::Date(v) => VariantValue::Date(v),
            Variant::TimestampMicros(v) => VariantValue::TimestampMicros(v),
            Variant::TimestampNtzMicros(v) => VariantValue::TimestampNtzMicros(v),
            Variant::Float(v) => VariantValue::Float(v),
            Variant::Binary(v) => VariantValue::Binary(v.to_vec()),
            Variant::String(v) => VariantValue::String(v.to_owned()),
            Variant::TimeNtzMicros(v) => VariantValue::TimeNtzMicros(v),
            Variant::TimestampNanos(v) => VariantValue::TimestampNanos(v),
            Variant::TimestampNtzNanos(v) => VariantValue::TimestampNtzNanos(v),
            Variant::Uuid(v) => VariantValue::Uuid(v),
            Variant::Object(object) => {
                check_depth(depth, 0)?;
                let mut fields = Vec::with_capacity(object.len().min(4096));
                for field in object.iter_checked() {
                    let (name, value) = field?;
                    fields.push((name.to_owned(), value.owned_at_depth(depth + 1)?));
                }
                VariantValue::Object(fields)
            }
            Variant::Array(array) => {
                check_depth(depth, 0)?;
                let mut elements = Vec::with_capacity(array.len().min(4096));
                for element in array.iter() {
                    elements.push(element?.owned_at_depth(depth + 1)?);
                }
                VariantValue::Array(elements)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(value: &VariantValue) -> VariantValue {
        let encoded = value.encode().unwrap();
        let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
        let variant = Variant::try_new(metadata, &encoded.value).unwrap();
        variant.validate().unwrap();
        variant.to_owned_value().unwrap()
    }

    #[test]
    fn primitives_have_spec_bytes() {
        let cases: Vec<(VariantValue, Vec<u8>)> = vec![
            (VariantValue::Null, vec![0x00]),
            (VariantValue::Boolean(true), vec![0x04]),
            (VariantValue::Boolean(false), vec![0x08]),
            (VariantValue::Int8(42), vec![0x0c, 0x2a]),
            (VariantValue::Int16(1234), vec![0x10, 0xd2, 0x04]),
            (
                VariantValue::Decimal4 {
                    unscaled: 1234,
                    scale: 2,
                },
                vec![0x20, 0x02, 0xd2, 0x04, 0, 0],
            ),
            (VariantValue::Date(20194), vec![0x2c, 0xe2, 0x4e, 0, 0]),
            (VariantValue::String("ab".into()), vec![0x09, b'a', b'b']),
            (
                VariantValue::Binary(vec![1, 2]),
                vec![0x3c, 2, 0, 0, 0, 1, 2],
            ),
        ];
        for (value, bytes) in cases {
            let encoded = value.encode().unwrap();
            assert_eq!(encoded.metadata, [0x11, 0, 0]);
            assert_eq!(encoded.value, bytes, "{value:?}");
            assert_eq!(round_trip(&value), value);
        }
        let long = "x".repeat(64);
        let encoded = VariantValue::String(long.clone()).encode().unwrap();
        assert_eq!(encoded.value[..5], [0x40, 64, 0, 0, 0]);
        assert_eq!(
            round_trip(&VariantValue::String(long.clone())),
            VariantValue::String(long)
        );
    }

    #[test]
    fn borrowed_values_write_the_bytes_the_encoder_writes() {
        let value = VariantValue::Object(vec![
            ("s".into(), VariantValue::String("x".repeat(70))),
            ("t".into(), VariantValue::String("short".into())),
            ("b".into(), VariantValue::Binary(vec![1, 2, 3])),
            (
                "d".into(),
                VariantValue::Decimal16 {
                    unscaled: -12345678901234567890,
                    scale: 9,
                },
            ),
            (
                "e".into(),
                VariantValue::Decimal8 {
                    unscaled: 42,
                    scale: 1,
                },
            ),
            (
                "f".into(),
                VariantValue::Decimal4 {
                    unscaled: -7,
                    scale: 0,
                },
            ),
            ("g".into(), VariantValue::Uuid([7; 16])),
            ("h".into(), VariantValue::TimestampNtzNanos(-5)),
            ("i".into(), VariantValue::TimestampNanos(5)),
            ("j".into(), VariantValue::TimeNtzMicros(1)),
            ("k".into(), VariantValue::TimestampMicros(2)),
            ("l".into(), VariantValue::TimestampNtzMicros(3)),
            ("m".into(), VariantValue::Date(-1)),
            ("n".into(), VariantValue::Float(1.5)),
            ("o".into(), VariantValue::Double(-2.5)),
            ("p".into(), VariantValue::Int64(i64::MIN)),
            ("q".into(), VariantValue::Int32(-1)),
            ("r".into(), VariantValue::Int16(300)),
            ("u".into(), VariantValue::Int8(-3)),
            ("v".into(), VariantValue::Boolean(false)),
            ("w".into(), VariantValue::Boolean(true)),
            ("x".into(), VariantValue::Null),
            ("y".into(), VariantValue::Array(vec![VariantValue::Int8(1)])),
        ]);
        let encoded = value.encode().unwrap();
        let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
        let variant = Variant::try_new(metadata, &encoded.value).unwrap();
        let mut whole = Vec::new();
        variant.write_to(&mut whole).unwrap();
        assert_eq!(whole, encoded.value);
        let object = variant.as_object().unwrap();
        for index in 0..object.len() {
            let mut out = Vec::new();
            object
                .field_value(index)
                .unwrap()
                .write_to(&mut out)
                .unwrap();
            assert_eq!(out, object.field_bytes(index).unwrap(), "field {index}");
        }
        let err = Variant::Decimal4 {
            unscaled: 1_000_000_000,
            scale: 0,
        }
        .write_to(&mut Vec::new())
        .unwrap_err();
        assert!(err.to_string().contains("more than 9 digits"), "{err}");
    }

    #[test]
    fn objects_are_sorted_and_duplicates_rejected() {
        let value = VariantValue::Object(vec![
            ("c".into(), VariantValue::Int8(3)),
            ("b".into(), VariantValue::Int8(2)),
            (
                "a".into(),
                VariantValue::Array(vec![VariantValue::Null, VariantValue::Int8(1)]),
            ),
        ]);
        let encoded = value.encode().unwrap();
        assert_eq!(
            encoded.value,
            [
                0x02, 3, 0, 1, 2, 0, 8, 10, 12, // header, count, ids a b c, offsets
                0x03, 2, 0, 1, 3, 0x00, 0x0c, 1, // a: [null, 1]
                0x0c, 2, 0x0c, 3,
            ]
        );
        assert_eq!(round_trip(&value), value.sorted());
        let duplicate = VariantValue::Object(vec![
            ("k".into(), VariantValue::Null),
            ("k".into(), VariantValue::Null),
        ]);
        let err = duplicate.encode().unwrap_err();
        assert!(err.to_string().contains("duplicate field \"k\""), "{err}");
    }

    #[test]
    fn wide_objects_use_large_headers() {
        let fields: Vec<(String, VariantValue)> = (0..70_000)
            .map(|i| (format!("f{i:05}"), VariantValue::Int32(i)))
            .collect();
        let value = VariantValue::Object(fields);
        let encoded = value.encode().unwrap();
        let header = encoded.value[0] >> 2;
        assert_eq!(header >> 4, 1, "is_large");
        assert_eq!((header >> 2) & 3, 2, "3-byte field ids");
        assert_eq!(header & 3, 2, "3-byte offsets");
        let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
        let variant = Variant::try_new(metadata, &encoded.value).unwrap();
        let object = variant.as_object().unwrap();
        assert_eq!(object.len(), 70_000);
        assert_eq!(object.get("f69999").unwrap(), Some(Variant::Int32(69_999)));
        assert_eq!(object.get("f12345").unwrap(), Some(Variant::Int32(12_345)));
        assert_eq!(object.get("g").unwrap(), None);
        assert_eq!(variant.to_owned_value().unwrap(), value);
    }

    #[test]
    fn too_deep_values_are_rejected_not_overflowed() {
        let mut value = VariantValue::Null;
        for _ in 0..crate::variant::MAX_DEPTH + 1 {
            value = VariantValue::Array(vec![value]);
        }
        let err = value.encode().unwrap_err();
        assert!(err.to_string().contains("nesting deeper"), "{err}");
    }
}

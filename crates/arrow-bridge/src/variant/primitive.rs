//! Shredded primitives: reading a `typed_value` row as a Variant value
//! ([`TypedColumn`]) and appending a Variant value to a `typed_value` column when it
//! fits the column's type ([`TypedBuilder`]).
//!
//! What fits: a value of the column's own Variant type; an integer of any width whose
//! value the column's integer width holds; a decimal of any width with the column's
//! scale whose digits the column's precision holds. Everything else stays in `value`.
//! Integers and decimals are one "exact numeric" class in the Variant specification,
//! so a reconstructed value equals the original by meaning (an int8 shredded into an
//! int64 column reads back as int64).

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, FixedSizeBinaryBuilder,
    Float32Builder, Float64Builder, Int8Builder, Int16Builder, Int32Builder, Int64Builder,
    StringBuilder, Time64MicrosecondBuilder, TimestampMicrosecondBuilder,
    TimestampNanosecondBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal32Type, Decimal64Type, Decimal128Type, Float32Type, Float64Type, Int8Type,
    Int16Type, Int32Type, Int64Type, Time64MicrosecondType, TimestampMicrosecondType,
    TimestampNanosecondType,
};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, FixedSizeBinaryArray,
    LargeBinaryArray, LargeStringArray, PrimitiveArray, StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field};
use herringbone_codec::variant::Variant;

use crate::error::{Error, Result};

use super::shape::PrimitiveType;

/// A `typed_value` column of a primitive type, read row by row as Variant values.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TypedColumn<'a> {
    Boolean(&'a BooleanArray),
    Int8(&'a PrimitiveArray<Int8Type>),
    Int16(&'a PrimitiveArray<Int16Type>),
    Int32(&'a PrimitiveArray<Int32Type>),
    Int64(&'a PrimitiveArray<Int64Type>),
    Float(&'a PrimitiveArray<Float32Type>),
    Double(&'a PrimitiveArray<Float64Type>),
    Decimal4(&'a PrimitiveArray<Decimal32Type>, u8),
    Decimal8(&'a PrimitiveArray<Decimal64Type>, u8),
    /// `Decimal128` of any width: the Variant decimal is the kind's (by precision).
    Decimal128(&'a PrimitiveArray<Decimal128Type>, u8, PrimitiveType),
    Date(&'a PrimitiveArray<Date32Type>),
    Time(&'a PrimitiveArray<Time64MicrosecondType>),
    /// Microsecond timestamps; `true` when UTC.
    Micros(&'a PrimitiveArray<TimestampMicrosecondType>, bool),
    /// Nanosecond timestamps; `true` when UTC.
    Nanos(&'a PrimitiveArray<TimestampNanosecondType>, bool),
    Binary(&'a BinaryArray),
    LargeBinary(&'a LargeBinaryArray),
    BinaryView(&'a BinaryViewArray),
    Utf8(&'a StringArray),
    LargeUtf8(&'a LargeStringArray),
    Utf8View(&'a StringViewArray),
    Uuid(&'a FixedSizeBinaryArray),
}

impl<'a> TypedColumn<'a> {
    /// Views `array`, whose field is `field`; errors for a type that is not a shredded
    /// Variant primitive (see [`PrimitiveType::from_field`]).
    pub fn try_new(field: &Field, array: &'a dyn Array, path: &str) -> Result<Self> {
        let kind = PrimitiveType::from_field(field, path)?;
        if array.data_type() != field.data_type() {
            return Err(Error::invalid_argument(format!(
                "variant {path}: the array is {}, its field says {}",
                array.data_type(),
                field.data_type()
            )));
        }
        Ok(match kind {
            PrimitiveType::Boolean => TypedColumn::Boolean(array.as_boolean()),
            PrimitiveType::Int8 => TypedColumn::Int8(array.as_primitive()),
            PrimitiveType::Int16 => TypedColumn::Int16(array.as_primitive()),
            PrimitiveType::Int32 => TypedColumn::Int32(array.as_primitive()),
            PrimitiveType::Int64 => TypedColumn::Int64(array.as_primitive()),
            PrimitiveType::Float => TypedColumn::Float(array.as_primitive()),
            PrimitiveType::Double => TypedColumn::Double(array.as_primitive()),
            PrimitiveType::Decimal4 { scale, .. }
            | PrimitiveType::Decimal8 { scale, .. }
            | PrimitiveType::Decimal16 { scale, .. } => match array.data_type() {
                DataType::Decimal32(..) => TypedColumn::Decimal4(array.as_primitive(), scale),
                DataType::Decimal64(..) => TypedColumn::Decimal8(array.as_primitive(), scale),
                _ => TypedColumn::Decimal128(array.as_primitive(), scale, kind),
            },
            PrimitiveType::Date => TypedColumn::Date(array.as_primitive()),
            PrimitiveType::Time => TypedColumn::Time(array.as_primitive()),
            PrimitiveType::Timestamp => TypedColumn::Micros(array.as_primitive(), true),
            PrimitiveType::TimestampNtz => TypedColumn::Micros(array.as_primitive(), false),
            PrimitiveType::TimestampNanos => TypedColumn::Nanos(array.as_primitive(), true),
            PrimitiveType::TimestampNtzNanos => TypedColumn::Nanos(array.as_primitive(), false),
            PrimitiveType::Binary => match array.data_type() {
                DataType::LargeBinary => TypedColumn::LargeBinary(array.as_binary()),
                DataType::BinaryView => TypedColumn::BinaryView(array.as_binary_view()),
                _ => TypedColumn::Binary(array.as_binary()),
            },
            PrimitiveType::String => match array.data_type() {
                DataType::LargeUtf8 => TypedColumn::LargeUtf8(array.as_string()),
                DataType::Utf8View => TypedColumn::Utf8View(array.as_string_view()),
                _ => TypedColumn::Utf8(array.as_string()),
            },
            PrimitiveType::Uuid => TypedColumn::Uuid(array.as_fixed_size_binary()),
        })
    }

    fn array(&self) -> &'a dyn Array {
        match *self {
            TypedColumn::Boolean(a) => a,
            TypedColumn::Int8(a) => a,
            TypedColumn::Int16(a) => a,
            TypedColumn::Int32(a) => a,
            TypedColumn::Int64(a) => a,
            TypedColumn::Float(a) => a,
            TypedColumn::Double(a) => a,
            TypedColumn::Decimal4(a, _) => a,
            TypedColumn::Decimal8(a, _) => a,
            TypedColumn::Decimal128(a, ..) => a,
            TypedColumn::Date(a) => a,
            TypedColumn::Time(a) => a,
            TypedColumn::Micros(a, _) => a,
            TypedColumn::Nanos(a, _) => a,
            TypedColumn::Binary(a) => a,
            TypedColumn::LargeBinary(a) => a,
            TypedColumn::BinaryView(a) => a,
            TypedColumn::Utf8(a) => a,
            TypedColumn::LargeUtf8(a) => a,
            TypedColumn::Utf8View(a) => a,
            TypedColumn::Uuid(a) => a,
        }
    }

    /// Whether row `index` holds a value.
    #[inline]
    pub fn is_valid(&self, index: usize) -> bool {
        self.array().is_valid(index)
    }

    /// Row `index` (which must be valid) as a Variant value.
    pub fn get(&self, index: usize) -> Variant<'static, 'a> {
        match *self {
            TypedColumn::Boolean(a) => Variant::Boolean(a.value(index)),
            TypedColumn::Int8(a) => Variant::Int8(a.value(index)),
            TypedColumn::Int16(a) => Variant::Int16(a.value(index)),
            TypedColumn::Int32(a) => Variant::Int32(a.value(index)),
            TypedColumn::Int64(a) => Variant::Int64(a.value(index)),
            TypedColumn::Float(a) => Variant::Float(a.value(index)),
            TypedColumn::Double(a) => Variant::Double(a.value(index)),
            TypedColumn::Decimal4(a, scale) => Variant::Decimal4 {
                unscaled: a.value(index),
                scale,
            },
            TypedColumn::Decimal8(a, scale) => Variant::Decimal8 {
                unscaled: a.value(index),
                scale,
            },
            // The precision gives the width; a value beyond it (not a valid value of the
            // column) stays a decimal16, and encoding checks its digits.
            TypedColumn::Decimal128(a, scale, kind) => {
                let unscaled = a.value(index);
                match kind {
                    PrimitiveType::Decimal4 { .. } if i32::try_from(unscaled).is_ok() => {
                        Variant::Decimal4 {
                            unscaled: unscaled as i32,
                            scale,
                        }
                    }
                    PrimitiveType::Decimal8 { .. } if i64::try_from(unscaled).is_ok() => {
                        Variant::Decimal8 {
                            unscaled: unscaled as i64,
                            scale,
                        }
                    }
                    _ => Variant::Decimal16 { unscaled, scale },
                }
            }
            TypedColumn::Date(a) => Variant::Date(a.value(index)),
            TypedColumn::Time(a) => Variant::TimeNtzMicros(a.value(index)),
            TypedColumn::Micros(a, true) => Variant::TimestampMicros(a.value(index)),
            TypedColumn::Micros(a, false) => Variant::TimestampNtzMicros(a.value(index)),
            TypedColumn::Nanos(a, true) => Variant::TimestampNanos(a.value(index)),
            TypedColumn::Nanos(a, false) => Variant::TimestampNtzNanos(a.value(index)),
            TypedColumn::Binary(a) => Variant::Binary(a.value(index)),
            TypedColumn::LargeBinary(a) => Variant::Binary(a.value(index)),
            TypedColumn::BinaryView(a) => Variant::Binary(a.value(index)),
            TypedColumn::Utf8(a) => Variant::String(a.value(index)),
            TypedColumn::LargeUtf8(a) => Variant::String(a.value(index)),
            TypedColumn::Utf8View(a) => Variant::String(a.value(index)),
            TypedColumn::Uuid(a) => {
                let mut bytes = [0u8; 16];
                bytes.copy_from_slice(a.value(index));
                Variant::Uuid(bytes)
            }
        }
    }
}

/// The value of an integer Variant of any width.
fn integer(value: &Variant<'_, '_>) -> Option<i64> {
    value.as_i64()
}

/// The unscaled value and scale of a decimal Variant of any width.
fn decimal(value: &Variant<'_, '_>) -> Option<(i128, u8)> {
    match *value {
        Variant::Decimal4 { unscaled, scale } => Some((i128::from(unscaled), scale)),
        Variant::Decimal8 { unscaled, scale } => Some((i128::from(unscaled), scale)),
        Variant::Decimal16 { unscaled, scale } => Some((unscaled, scale)),
        _ => None,
    }
}

/// Whether `unscaled` has at most `precision` digits.
fn fits_precision(unscaled: i128, precision: u8) -> bool {
    precision >= 38 || unscaled.unsigned_abs() < 10u128.pow(u32::from(precision))
}

/// Builds one primitive `typed_value` column from Variant values.
#[derive(Debug)]
pub(crate) enum TypedBuilder {
    Boolean(BooleanBuilder),
    Int8(Int8Builder),
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    Float(Float32Builder),
    Double(Float64Builder),
    /// Any decimal width, with its precision and scale.
    Decimal(Decimal128Builder, u8, u8),
    Date(Date32Builder),
    Time(Time64MicrosecondBuilder),
    Micros(TimestampMicrosecondBuilder, bool),
    Nanos(TimestampNanosecondBuilder, bool),
    Binary(BinaryBuilder),
    String(StringBuilder),
    Uuid(FixedSizeBinaryBuilder),
}

impl TypedBuilder {
    /// An empty builder for `kind` with room for `capacity` rows.
    pub fn new(kind: PrimitiveType, capacity: usize) -> Self {
        let zone = |utc: bool| -> Option<Arc<str>> {
            utc.then(|| Arc::from(crate::schema::DEFAULT_UTC_TIME_ZONE))
        };
        match kind {
            PrimitiveType::Boolean => {
                TypedBuilder::Boolean(BooleanBuilder::with_capacity(capacity))
            }
            PrimitiveType::Int8 => TypedBuilder::Int8(Int8Builder::with_capacity(capacity)),
            PrimitiveType::Int16 => TypedBuilder::Int16(Int16Builder::with_capacity(capacity)),
            PrimitiveType::Int32 => TypedBuilder::Int32(Int32Builder::with_capacity(capacity)),
            PrimitiveType::Int64 => TypedBuilder::Int64(Int64Builder::with_capacity(capacity)),
            PrimitiveType::Float => TypedBuilder::Float(Float32Builder::with_capacity(capacity)),
            PrimitiveType::Double => TypedBuilder::Double(Float64Builder::with_capacity(capacity)),
            PrimitiveType::Decimal4 { precision, scale }
            | PrimitiveType::Decimal8 { precision, scale }
            | PrimitiveType::Decimal16 { precision, scale } => TypedBuilder::Decimal(
                Decimal128Builder::with_capacity(capacity)
                    .with_data_type(DataType::Decimal128(precision, scale as i8)),
                precision,
                scale,
            ),
            PrimitiveType::Date => TypedBuilder::Date(Date32Builder::with_capacity(capacity)),
            PrimitiveType::Time => {
                TypedBuilder::Time(Time64MicrosecondBuilder::with_capacity(capacity))
            }
            PrimitiveType::Timestamp | PrimitiveType::TimestampNtz => {
                let utc = kind == PrimitiveType::Timestamp;
                TypedBuilder::Micros(
                    TimestampMicrosecondBuilder::with_capacity(capacity)
                        .with_timezone_opt(zone(utc)),
                    utc,
                )
            }
            PrimitiveType::TimestampNanos | PrimitiveType::TimestampNtzNanos => {
                let utc = kind == PrimitiveType::TimestampNanos;
                TypedBuilder::Nanos(
                    TimestampNanosecondBuilder::with_capacity(capacity)
                        .with_timezone_opt(zone(utc)),
                    utc,
                )
            }
            PrimitiveType::Binary => {
                TypedBuilder::Binary(BinaryBuilder::with_capacity(capacity, 0))
            }
            PrimitiveType::String => {
                TypedBuilder::String(StringBuilder::with_capacity(capacity, 0))
            }
            PrimitiveType::Uuid => {
                TypedBuilder::Uuid(FixedSizeBinaryBuilder::with_capacity(capacity, 16))
            }
        }
    }

    /// Appends `value` when it fits this column (see the module documentation) and says
    /// whether it did; nothing is appended when it does not.
    pub fn try_append(&mut self, value: &Variant<'_, '_>) -> bool {
        match self {
            TypedBuilder::Boolean(b) => match value {
                Variant::Boolean(v) => b.append_value(*v),
                _ => return false,
            },
            TypedBuilder::Int8(b) => match integer(value).and_then(|v| i8::try_from(v).ok()) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            TypedBuilder::Int16(b) => match integer(value).and_then(|v| i16::try_from(v).ok()) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            TypedBuilder::Int32(b) => match integer(value).and_then(|v| i32::try_from(v).ok()) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            TypedBuilder::Int64(b) => match integer(value) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            TypedBuilder::Float(b) => match value {
                Variant::Float(v) => b.append_value(*v),
                _ => return false,
            },
            TypedBuilder::Double(b) => match value {
                Variant::Double(v) => b.append_value(*v),
                _ => return false,
            },
            TypedBuilder::Decimal(b, precision, scale) => match decimal(value) {
                Some((v, s)) if s == *scale && fits_precision(v, *precision) => b.append_value(v),
                _ => return false,
            },
            TypedBuilder::Date(b) => match value {
                Variant::Date(v) => b.append_value(*v),
                _ => return false,
            },
            TypedBuilder::Time(b) => match value {
                Variant::TimeNtzMicros(v) => b.append_value(*v),
                _ => return false,
            },
            TypedBuilder::Micros(b, utc) => match (value, *utc) {
                (Variant::TimestampMicros(v), true) | (Variant::TimestampNtzMicros(v), false) => {
                    b.append_value(*v)
                }
                _ => return false,
            },
            TypedBuilder::Nanos(b, utc) => match (value, *utc) {
                (Variant::TimestampNanos(v), true) | (Variant::TimestampNtzNanos(v), false) => {
                    b.append_value(*v)
                }
                _ => return false,
            },
            TypedBuilder::Binary(b) => match value {
                Variant::Binary(v) => b.append_value(v),
                _ => return false,
            },
            TypedBuilder::String(b) => match value {
                Variant::String(v) => b.append_value(v),
                _ => return false,
            },
            TypedBuilder::Uuid(b) => match value {
                // A 16-byte value always fits a 16-byte column.
                Variant::Uuid(v) => return b.append_value(v).is_ok(),
                _ => return false,
            },
        }
        true
    }

    /// Appends a null.
    pub fn append_null(&mut self) {
        match self {
            TypedBuilder::Boolean(b) => b.append_null(),
            TypedBuilder::Int8(b) => b.append_null(),
            TypedBuilder::Int16(b) => b.append_null(),
            TypedBuilder::Int32(b) => b.append_null(),
            TypedBuilder::Int64(b) => b.append_null(),
            TypedBuilder::Float(b) => b.append_null(),
            TypedBuilder::Double(b) => b.append_null(),
            TypedBuilder::Decimal(b, ..) => b.append_null(),
            TypedBuilder::Date(b) => b.append_null(),
            TypedBuilder::Time(b) => b.append_null(),
            TypedBuilder::Micros(b, _) => b.append_null(),
            TypedBuilder::Nanos(b, _) => b.append_null(),
            TypedBuilder::Binary(b) => b.append_null(),
            TypedBuilder::String(b) => b.append_null(),
            TypedBuilder::Uuid(b) => b.append_null(),
        }
    }

    /// The column built so far.
    pub fn finish(&mut self) -> ArrayRef {
        match self {
            TypedBuilder::Boolean(b) => Arc::new(b.finish()),
            TypedBuilder::Int8(b) => Arc::new(b.finish()),
            TypedBuilder::Int16(b) => Arc::new(b.finish()),
            TypedBuilder::Int32(b) => Arc::new(b.finish()),
            TypedBuilder::Int64(b) => Arc::new(b.finish()),
            TypedBuilder::Float(b) => Arc::new(b.finish()),
            TypedBuilder::Double(b) => Arc::new(b.finish()),
            TypedBuilder::Decimal(b, ..) => Arc::new(b.finish()),
            TypedBuilder::Date(b) => Arc::new(b.finish()),
            TypedBuilder::Time(b) => Arc::new(b.finish()),
            TypedBuilder::Micros(b, _) => Arc::new(b.finish()),
            TypedBuilder::Nanos(b, _) => Arc::new(b.finish()),
            TypedBuilder::Binary(b) => Arc::new(b.finish()),
            TypedBuilder::String(b) => Arc::new(b.finish()),
            TypedBuilder::Uuid(b) => Arc::new(b.finish()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_fit_by_value_and_decimals_by_scale_and_digits() {
        let mut b = TypedBuilder::new(PrimitiveType::Int16, 4);
        assert!(b.try_append(&Variant::Int8(-3)));
        assert!(b.try_append(&Variant::Int64(30_000)));
        assert!(!b.try_append(&Variant::Int32(40_000)));
        assert!(!b.try_append(&Variant::Double(1.0)));
        assert!(!b.try_append(&Variant::Decimal4 {
            unscaled: 1,
            scale: 0
        }));
        let array = b.finish();
        assert_eq!(array.len(), 2);

        let mut b = TypedBuilder::new(
            PrimitiveType::Decimal8 {
                precision: 5,
                scale: 2,
            },
            4,
        );
        assert!(b.try_append(&Variant::Decimal16 {
            unscaled: 99_999,
            scale: 2
        }));
        assert!(!b.try_append(&Variant::Decimal4 {
            unscaled: 100_000,
            scale: 2
        }));
        assert!(!b.try_append(&Variant::Decimal4 {
            unscaled: 1,
            scale: 1
        }));
        assert_eq!(b.finish().data_type(), &DataType::Decimal128(5, 2));
    }

    #[test]
    fn typed_rows_read_as_their_variant_type() {
        let field = Field::new(
            "typed_value",
            DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, None),
            true,
        );
        let array = arrow_array::TimestampNanosecondArray::from(vec![Some(5), None]);
        let column = TypedColumn::try_new(&field, &array, "typed_value").unwrap();
        assert!(column.is_valid(0));
        assert!(!column.is_valid(1));
        assert_eq!(column.get(0), Variant::TimestampNtzNanos(5));
    }
}

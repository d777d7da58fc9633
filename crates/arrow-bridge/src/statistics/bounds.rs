//! Which statistics bytes of a leaf column may be used, and how they become Arrow values.
//!
//! A column's bounds are read in three steps:
//!
//! ```text
//! Statistics / ColumnIndex bytes ──(BoundsRule: which fields, sort order)──> &[u8]
//!     ──(Storage: physical + logical type)──> "natural" Arrow array
//!     ──(arrow-cast)──> the column's Arrow type (as the reader produces it)
//! ```
//!
//! The rules follow `parquet.thrift`: `min_value` / `max_value` (and the column index)
//! are ordered by the column's sort order and are used unless the file declares a
//! column order this version does not know; the deprecated `min` / `max` were compared as
//! signed values, so they are used only where that is the column's order (signed
//! integers, floats, booleans). Columns without a defined order (INT96 without the
//! INT96 timestamp order, INTERVAL, GEOMETRY, GEOGRAPHY, VARIANT) have no bounds.
//! Float bounds that are NaN are ignored, a zero minimum is widened to -0.0 and a zero
//! maximum to +0.0 (both zeros may be present, whatever the writer wrote).

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, FixedSizeBinaryBuilder};
use arrow_array::types::{
    Decimal128Type, Decimal256Type, Float16Type, Float32Type, Float64Type, Int32Type, Int64Type,
    TimestampNanosecondType, UInt32Type, UInt64Type,
};
use arrow_array::{ArrayRef, BooleanArray, PrimitiveArray};
use arrow_buffer::i256;
use arrow_schema::DataType;
use half::f16;
use herringbone_format::metadata::{ColumnOrder, ConvertedType, LogicalType, Type};
use herringbone_format::schema::ColumnDescriptor;

/// How a leaf column's values compare (the specification's sort orders).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortOrder {
    /// Signed comparison: numbers, decimals, dates, times, timestamps, booleans.
    Signed,
    /// Unsigned comparison: unsigned integers, byte arrays compared byte by byte.
    Unsigned,
    /// No order: statistics bounds are meaningless.
    Undefined,
}

/// How the statistics bytes of a column are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    Boolean,
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float32,
    Float64,
    /// FLOAT16: 2 bytes, little-endian.
    Float16,
    /// INT96 timestamps (nanoseconds of the day, then the Julian day).
    Int96,
    /// Byte arrays (strings, JSON, BSON, enums, plain binary).
    Bytes,
    /// Fixed-length byte arrays of this width.
    Fixed(usize),
    /// A decimal of this precision and scale, stored as the physical type.
    Decimal {
        physical: Type,
        precision: u8,
        scale: i8,
    },
    /// Nothing can be read from the bounds.
    Undefined,
}

/// The sort order, the storage and which statistics fields a column's bounds come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BoundsRule {
    pub storage: Storage,
    /// Whether `min_value` / `max_value` and the column index bounds may be used.
    pub use_values: bool,
    /// Whether the deprecated `min` / `max` may be used (when `min_value` / `max_value`
    /// are absent).
    pub use_deprecated: bool,
    /// Whether bounds of this storage can be truncated (byte arrays): without an
    /// explicit `is_*_exact` they are taken as inexact.
    pub truncatable: bool,
    /// Whether the values are floats (NaN rules apply).
    pub float: bool,
}

impl BoundsRule {
    /// The rule for a leaf column under the file's declared column order (`None` when
    /// the file declares none).
    pub fn of(descr: &ColumnDescriptor, column_order: Option<&ColumnOrder>) -> BoundsRule {
        let physical = descr.physical_type();
        let logical = descr.logical_type();
        let converted = descr.converted_type();
        let order = sort_order(physical, logical, converted);
        let mut storage = storage(descr);
        let known_order = match column_order {
            None | Some(ColumnOrder::TypeDefinedOrder) => order != SortOrder::Undefined,
            Some(ColumnOrder::Ieee754TotalOrder) => {
                matches!(
                    storage,
                    Storage::Float32 | Storage::Float64 | Storage::Float16
                )
            }
            // INT96 timestamps ordered chronologically: their bounds are usable.
            Some(ColumnOrder::Int96TimestampOrder) => storage == Storage::Int96,
            Some(_) => false,
        };
        if storage == Storage::Int96
            && !matches!(column_order, Some(ColumnOrder::Int96TimestampOrder))
        {
            storage = Storage::Undefined;
        }
        let use_values = known_order && storage != Storage::Undefined;
        let use_deprecated = order == SortOrder::Signed
            && matches!(
                storage,
                Storage::Boolean
                    | Storage::Int32
                    | Storage::Int64
                    | Storage::Float32
                    | Storage::Float64
            )
            && !matches!(column_order, Some(ColumnOrder::Unrecognized { .. }));
        BoundsRule {
            storage,
            use_values,
            use_deprecated,
            truncatable: matches!(storage, Storage::Bytes | Storage::Fixed(_))
                || matches!(
                    storage,
                    Storage::Decimal {
                        physical: Type::BYTE_ARRAY,
                        ..
                    }
                ),
            float: matches!(
                storage,
                Storage::Float32 | Storage::Float64 | Storage::Float16
            ),
        }
    }
}

/// The specification's sort order of a column.
pub(crate) fn sort_order(
    physical: Type,
    logical: Option<&LogicalType>,
    converted: Option<ConvertedType>,
) -> SortOrder {
    if let Some(logical) = logical {
        match logical {
            LogicalType::Integer {
                is_signed: false, ..
            } => return SortOrder::Unsigned,
            LogicalType::Integer { .. }
            | LogicalType::Decimal { .. }
            | LogicalType::Date
            | LogicalType::Time { .. }
            | LogicalType::Timestamp { .. }
            | LogicalType::Float16 => return SortOrder::Signed,
            LogicalType::String
            | LogicalType::Enum
            | LogicalType::Json
            | LogicalType::Bson
            | LogicalType::Uuid => return SortOrder::Unsigned,
            LogicalType::Map
            | LogicalType::List
            | LogicalType::Variant { .. }
            | LogicalType::Geometry { .. }
            | LogicalType::Geography { .. } => return SortOrder::Undefined,
            LogicalType::Unknown | LogicalType::Unrecognized { .. } => {}
        }
    }
    match converted {
        Some(
            ConvertedType::UINT_8
            | ConvertedType::UINT_16
            | ConvertedType::UINT_32
            | ConvertedType::UINT_64,
        ) => return SortOrder::Unsigned,
        Some(ConvertedType::INTERVAL) => return SortOrder::Undefined,
        Some(
            ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON | ConvertedType::BSON,
        ) => {
            return SortOrder::Unsigned;
        }
        Some(ConvertedType::DECIMAL) => return SortOrder::Signed,
        _ => {}
    }
    match physical {
        Type::BOOLEAN | Type::INT32 | Type::INT64 | Type::FLOAT | Type::DOUBLE => SortOrder::Signed,
        Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => SortOrder::Unsigned,
        _ => SortOrder::Undefined,
    }
}

fn storage(descr: &ColumnDescriptor) -> Storage {
    let physical = descr.physical_type();
    let logical = descr.logical_type();
    let converted = descr.converted_type();
    if matches!(logical, Some(LogicalType::Unknown)) {
        return Storage::Undefined;
    }
    if sort_order(physical, logical, converted) == SortOrder::Undefined && physical != Type::INT96 {
        return Storage::Undefined;
    }
    let is_decimal = matches!(logical, Some(LogicalType::Decimal { .. }))
        || (logical.is_none() && converted == Some(ConvertedType::DECIMAL));
    if is_decimal {
        let precision = descr.precision().unwrap_or(0);
        let scale = descr.scale().unwrap_or(0);
        let valid = (1..=76).contains(&precision) && (0..=precision).contains(&scale);
        return if valid && physical != Type::BOOLEAN {
            Storage::Decimal {
                physical,
                precision: precision as u8,
                scale: scale as i8,
            }
        } else {
            Storage::Undefined
        };
    }
    match physical {
        Type::BOOLEAN => Storage::Boolean,
        Type::INT32 => match sort_order(physical, logical, converted) {
            SortOrder::Unsigned => Storage::UInt32,
            _ => Storage::Int32,
        },
        Type::INT64 => match sort_order(physical, logical, converted) {
            SortOrder::Unsigned => Storage::UInt64,
            _ => Storage::Int64,
        },
        Type::INT96 => Storage::Int96,
        Type::FLOAT => Storage::Float32,
        Type::DOUBLE => Storage::Float64,
        Type::BYTE_ARRAY => Storage::Bytes,
        Type::FIXED_LEN_BYTE_ARRAY => {
            let width = descr.type_length().unwrap_or(-1);
            if matches!(logical, Some(LogicalType::Float16)) {
                if width == 2 {
                    Storage::Float16
                } else {
                    Storage::Undefined
                }
            } else if width >= 0 {
                Storage::Fixed(width as usize)
            } else {
                Storage::Undefined
            }
        }
        _ => Storage::Undefined,
    }
}

/// Whether `value` is a NaN of this storage (NaN bounds are ignored).
fn is_nan(storage: Storage, value: &[u8]) -> bool {
    match storage {
        Storage::Float32 => value
            .try_into()
            .map(|b| f32::from_le_bytes(b).is_nan())
            .unwrap_or(false),
        Storage::Float64 => value
            .try_into()
            .map(|b| f64::from_le_bytes(b).is_nan())
            .unwrap_or(false),
        Storage::Float16 => value
            .try_into()
            .map(|b| f16::from_le_bytes(b).is_nan())
            .unwrap_or(false),
        _ => false,
    }
}

/// Drops float bound pairs where either side is NaN (the pair is unusable).
pub(crate) fn drop_nan_pairs<'a>(
    storage: Storage,
    mins: &mut [Option<&'a [u8]>],
    maxes: &mut [Option<&'a [u8]>],
) {
    for (min, max) in mins.iter_mut().zip(maxes.iter_mut()) {
        if min.is_some_and(|v| is_nan(storage, v)) || max.is_some_and(|v| is_nan(storage, v)) {
            *min = None;
            *max = None;
        }
    }
}

/// Which side of an interval a bound is: zeros are widened outwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Min,
    Max,
}

/// The natural Arrow array of bound bytes: the physical value read as the type its
/// annotation says (`UInt32` for unsigned INT32, `Decimal128`/`Decimal256` for
/// decimals, `Binary` for byte arrays, ...). Bytes of the wrong size are null (an
/// unusable bound), never an error: a bound only ever narrows what is read.
pub(crate) fn natural_array(storage: Storage, side: Side, values: &[Option<&[u8]>]) -> ArrayRef {
    fn fixed<const N: usize>(v: &Option<&[u8]>) -> Option<[u8; N]> {
        v.and_then(|b| b.try_into().ok())
    }
    match storage {
        Storage::Boolean => Arc::new(
            values
                .iter()
                .map(|v| fixed::<1>(v).and_then(|b| (b[0] <= 1).then_some(b[0] == 1)))
                .collect::<BooleanArray>(),
        ),
        Storage::Int32 => Arc::new(
            values
                .iter()
                .map(|v| fixed::<4>(v).map(i32::from_le_bytes))
                .collect::<PrimitiveArray<Int32Type>>(),
        ),
        Storage::UInt32 => Arc::new(
            values
                .iter()
                .map(|v| fixed::<4>(v).map(u32::from_le_bytes))
                .collect::<PrimitiveArray<UInt32Type>>(),
        ),
        Storage::Int64 => Arc::new(
            values
                .iter()
                .map(|v| fixed::<8>(v).map(i64::from_le_bytes))
                .collect::<PrimitiveArray<Int64Type>>(),
        ),
        Storage::UInt64 => Arc::new(
            values
                .iter()
                .map(|v| fixed::<8>(v).map(u64::from_le_bytes))
                .collect::<PrimitiveArray<UInt64Type>>(),
        ),
        Storage::Float32 => Arc::new(
            values
                .iter()
                .map(|v| fixed::<4>(v).map(|b| widen_zero_f32(f32::from_le_bytes(b), side)))
                .collect::<PrimitiveArray<Float32Type>>(),
        ),
        Storage::Float64 => Arc::new(
            values
                .iter()
                .map(|v| fixed::<8>(v).map(|b| widen_zero_f64(f64::from_le_bytes(b), side)))
                .collect::<PrimitiveArray<Float64Type>>(),
        ),
        Storage::Float16 => Arc::new(
            values
                .iter()
                .map(|v| {
                    fixed::<2>(v).map(|b| {
                        let x = f16::from_le_bytes(b);
                        f16::from_f32(widen_zero_f32(x.to_f32(), side))
                    })
                })
                .collect::<PrimitiveArray<Float16Type>>(),
        ),
        Storage::Int96 => Arc::new(
            values
                .iter()
                .map(|v| fixed::<12>(v).and_then(int96_nanos))
                .collect::<PrimitiveArray<TimestampNanosecondType>>(),
        ),
        Storage::Bytes => {
            let mut builder = BinaryBuilder::with_capacity(values.len(), 0);
            for v in values {
                builder.append_option(*v);
            }
            Arc::new(builder.finish())
        }
        Storage::Fixed(width) => {
            let mut builder = FixedSizeBinaryBuilder::with_capacity(values.len(), width as i32);
            for v in values {
                match v {
                    Some(b) if b.len() == width => {
                        // The width matches the builder's: appending cannot fail.
                        let _ = builder.append_value(b);
                    }
                    _ => builder.append_null(),
                }
            }
            Arc::new(builder.finish())
        }
        Storage::Decimal {
            physical,
            precision,
            scale,
        } => decimal_array(physical, precision, scale, values),
        Storage::Undefined => arrow_array::new_null_array(&DataType::Null, values.len()),
    }
}

fn widen_zero_f32(x: f32, side: Side) -> f32 {
    match side {
        Side::Min if x == 0.0 => -0.0,
        Side::Max if x == 0.0 => 0.0,
        _ => x,
    }
}

fn widen_zero_f64(x: f64, side: Side) -> f64 {
    match side {
        Side::Min if x == 0.0 => -0.0,
        Side::Max if x == 0.0 => 0.0,
        _ => x,
    }
}

/// Nanoseconds since the Unix epoch of an INT96 timestamp.
fn int96_nanos(b: [u8; 12]) -> Option<i64> {
    const JULIAN_UNIX_EPOCH: i64 = 2_440_588;
    const NANOS_PER_DAY: i64 = 86_400_000_000_000;
    let of_day = i64::from_le_bytes(b[..8].try_into().ok()?);
    let day = i64::from(i32::from_le_bytes(b[8..].try_into().ok()?));
    (day - JULIAN_UNIX_EPOCH)
        .checked_mul(NANOS_PER_DAY)?
        .checked_add(of_day)
}

fn decimal_array(physical: Type, precision: u8, scale: i8, values: &[Option<&[u8]>]) -> ArrayRef {
    let unscaled = |v: &Option<&[u8]>| -> Option<i256> {
        let b = (*v)?;
        match physical {
            Type::INT32 => b.try_into().ok().map(|b| i256::from(i32::from_le_bytes(b))),
            Type::INT64 => b.try_into().ok().map(|b| i256::from(i64::from_le_bytes(b))),
            _ => big_endian_i256(b),
        }
    };
    if precision <= 38 {
        let array: PrimitiveArray<Decimal128Type> = values
            .iter()
            .map(|v| unscaled(v).and_then(|x| x.to_i128()))
            .collect();
        Arc::new(
            array
                .with_precision_and_scale(precision, scale)
                .expect("precision 1..=38 and scale 0..=precision are valid"),
        )
    } else {
        let array: PrimitiveArray<Decimal256Type> = values.iter().map(unscaled).collect();
        Arc::new(
            array
                .with_precision_and_scale(precision, scale)
                .expect("precision 39..=76 and scale 0..=precision are valid"),
        )
    }
}

/// A big-endian two's complement integer of 1 to 32 bytes (longer inputs are accepted
/// when their extra leading bytes are only sign extension).
fn big_endian_i256(bytes: &[u8]) -> Option<i256> {
    let first = *bytes.first()?;
    let fill = if first & 0x80 != 0 { 0xFF } else { 0x00 };
    let bytes = if bytes.len() > 32 {
        let (extra, rest) = bytes.split_at(bytes.len() - 32);
        if extra.iter().any(|&b| b != fill) || (rest[0] & 0x80 != 0) != (fill == 0xFF) {
            return None;
        }
        rest
    } else {
        bytes
    };
    let mut buffer = [fill; 32];
    buffer[32 - bytes.len()..].copy_from_slice(bytes);
    Some(i256::from_be_bytes(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;

    #[test]
    fn big_endian_decimals_sign_extend() {
        assert_eq!(big_endian_i256(&[0x01, 0x00]), Some(i256::from(256)));
        assert_eq!(big_endian_i256(&[0xFF, 0x38]), Some(i256::from(-200)));
        assert_eq!(big_endian_i256(&[0x80]), Some(i256::from(-128)));
        assert_eq!(big_endian_i256(&[]), None);
        let mut long = vec![0xFF; 33];
        long[32] = 0x9C;
        assert_eq!(big_endian_i256(&long), Some(i256::from(-100)));
        long[0] = 0x00;
        assert_eq!(big_endian_i256(&long), None);
    }

    #[test]
    fn zeros_widen_and_wrong_sizes_are_null() {
        let zero = 0.0f64.to_le_bytes();
        let neg_zero = (-0.0f64).to_le_bytes();
        let mins = natural_array(Storage::Float64, Side::Min, &[Some(&zero), Some(&[1, 2])]);
        let maxes = natural_array(Storage::Float64, Side::Max, &[Some(&neg_zero), None]);
        let mins = mins.as_primitive::<Float64Type>();
        let maxes = maxes.as_primitive::<Float64Type>();
        assert!(mins.value(0).is_sign_negative() && mins.value(0) == 0.0);
        assert!(mins.is_null(1));
        assert!(maxes.value(0).is_sign_positive() && maxes.value(0) == 0.0);
        assert!(maxes.is_null(1));
    }

    #[test]
    fn int96_bounds_are_nanoseconds() {
        let mut b = [0u8; 12];
        b[..8].copy_from_slice(&1_000i64.to_le_bytes());
        b[8..].copy_from_slice(&2_440_589i32.to_le_bytes());
        let array = natural_array(Storage::Int96, Side::Min, &[Some(&b)]);
        assert_eq!(
            array.as_primitive::<TimestampNanosecondType>().value(0),
            86_400_000_000_000 + 1_000
        );
    }
}

//! Variant values to a requested Arrow type, row by row (what `variant_get` does when it
//! cannot take a shredded column as it is).
//!
//! Each target type family has one rule, and a value it does not cover becomes a null:
//!
//! | target | from |
//! | --- | --- |
//! | `Boolean` | boolean |
//! | `Int8`..`Int64`, `UInt8`..`UInt64` | integers, and decimals without a fraction, in range |
//! | `Float16`/`Float32`/`Float64` | float, double, integers, decimals (nearest) |
//! | `Decimal32`..`Decimal128(p, s)` | integers and decimals whose value is exact at scale `s` in `p` digits |
//! | `Utf8`, `LargeUtf8`, `Utf8View` | string |
//! | `Binary`, `LargeBinary`, `BinaryView` | binary |
//! | `Date32` | date |
//! | `Time64(us\|ns)` | time_ntz |
//! | `Timestamp(unit, zone)` | timestamp / timestamp_nanos when a zone is given, timestamp_ntz / timestamp_ntz_nanos without one, in `unit` (a finer unit multiplies, overflow is null; a coarser one truncates toward zero) |
//! | `FixedSizeBinary(16)` | uuid |
//!
//! Objects and arrays convert to none of these.

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, FixedSizeBinaryBuilder,
    Float64Builder, Int64Builder, StringBuilder, Time64MicrosecondBuilder,
};
use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{ArrayRef, PrimitiveArray};
use arrow_cast::CastOptions;
use arrow_schema::{DataType, TimeUnit};
use herringbone_codec::variant::Variant;

use crate::error::{Error, Result};

/// The values collected for a target type, in the family's canonical Arrow type, cast
/// to the exact target at the end.
#[derive(Debug)]
enum Collected {
    Boolean(BooleanBuilder),
    Integer(Int64Builder),
    Float(Float64Builder),
    Decimal(Decimal128Builder, u8),
    String(StringBuilder),
    Binary(BinaryBuilder),
    Date(Date32Builder),
    Time(Time64MicrosecondBuilder),
    Timestamp(Vec<Option<i64>>, TimeUnit, bool),
    Uuid(FixedSizeBinaryBuilder),
}

/// Builds an array of a target type from Variant values.
#[derive(Debug)]
pub(crate) struct TargetBuilder {
    target: DataType,
    collected: Collected,
}

/// Whether `target` is a type [`TargetBuilder`] builds.
pub(crate) fn check_target(target: &DataType) -> Result<()> {
    TargetBuilder::new(target, 0).map(|_| ())
}

fn pow10(exponent: u32) -> Option<i128> {
    10i128.checked_pow(exponent)
}

/// `unscaled * 10^-scale` at `target_scale`, when exact and in range.
fn rescale(unscaled: i128, scale: u8, target_scale: u8) -> Option<i128> {
    if target_scale >= scale {
        unscaled.checked_mul(pow10(u32::from(target_scale - scale))?)
    } else {
        let divisor = pow10(u32::from(scale - target_scale))?;
        (unscaled % divisor == 0).then(|| unscaled / divisor)
    }
}

fn decimal_parts(value: &Variant<'_, '_>) -> Option<(i128, u8)> {
    match *value {
        Variant::Int8(v) => Some((v.into(), 0)),
        Variant::Int16(v) => Some((v.into(), 0)),
        Variant::Int32(v) => Some((v.into(), 0)),
        Variant::Int64(v) => Some((v.into(), 0)),
        Variant::Decimal4 { unscaled, scale } => Some((unscaled.into(), scale)),
        Variant::Decimal8 { unscaled, scale } => Some((unscaled.into(), scale)),
        Variant::Decimal16 { unscaled, scale } => Some((unscaled, scale)),
        _ => None,
    }
}

/// A timestamp value in `unit`: a finer unit multiplies (overflow is `None`), a coarser
/// one divides, truncating toward zero.
fn timestamp_in(value: i64, nanos: bool, unit: TimeUnit) -> Option<i64> {
    let per_second: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let source_per_second: i64 = if nanos { 1_000_000_000 } else { 1_000_000 };
    if per_second >= source_per_second {
        value.checked_mul(per_second / source_per_second)
    } else {
        Some(value / (source_per_second / per_second))
    }
}

impl TargetBuilder {
    /// A builder of `target` with room for `capacity` rows; errors for a type it does
    /// not build.
    pub fn new(target: &DataType, capacity: usize) -> Result<Self> {
        let collected = match target {
            DataType::Boolean => Collected::Boolean(BooleanBuilder::with_capacity(capacity)),
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64 => Collected::Integer(Int64Builder::with_capacity(capacity)),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => {
                Collected::Float(Float64Builder::with_capacity(capacity))
            }
            DataType::Decimal32(_, s) | DataType::Decimal64(_, s) | DataType::Decimal128(_, s)
                if *s >= 0 =>
            {
                Collected::Decimal(
                    Decimal128Builder::with_capacity(capacity)
                        .with_data_type(DataType::Decimal128(38, *s)),
                    *s as u8,
                )
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                Collected::String(StringBuilder::with_capacity(capacity, 0))
            }
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
                Collected::Binary(BinaryBuilder::with_capacity(capacity, 0))
            }
            DataType::Date32 => Collected::Date(Date32Builder::with_capacity(capacity)),
            DataType::Time64(_) => {
                Collected::Time(Time64MicrosecondBuilder::with_capacity(capacity))
            }
            DataType::Timestamp(unit, zone) => {
                Collected::Timestamp(Vec::with_capacity(capacity), *unit, zone.is_some())
            }
            DataType::FixedSizeBinary(16) => {
                Collected::Uuid(FixedSizeBinaryBuilder::with_capacity(capacity, 16))
            }
            other => {
                return Err(Error::invalid_argument(format!(
                    "variant_get cannot return {other}: the target must be a boolean, number, \
                     decimal (up to 128 bits), string, binary, date, time, timestamp or \
                     FixedSizeBinary(16) (uuid) type, or none for a Variant"
                )));
            }
        };
        Ok(Self {
            target: target.clone(),
            collected,
        })
    }

    /// Appends `value` converted (a null when the target's rule does not cover it).
    pub fn append(&mut self, value: Option<&Variant<'_, '_>>) {
        let Some(value) = value else {
            self.append_null();
            return;
        };
        match &mut self.collected {
            Collected::Boolean(b) => match value {
                Variant::Boolean(v) => b.append_value(*v),
                _ => b.append_null(),
            },
            Collected::Integer(b) => {
                let integer = decimal_parts(value)
                    .and_then(|(unscaled, scale)| rescale(unscaled, scale, 0))
                    .and_then(|v| i64::try_from(v).ok());
                b.append_option(integer);
            }
            Collected::Float(b) => {
                let float = match *value {
                    Variant::Float(v) => Some(f64::from(v)),
                    Variant::Double(v) => Some(v),
                    _ => decimal_parts(value)
                        .map(|(unscaled, scale)| unscaled as f64 / 10f64.powi(i32::from(scale))),
                };
                b.append_option(float);
            }
            Collected::Decimal(b, target_scale) => {
                let decimal = decimal_parts(value)
                    .and_then(|(unscaled, scale)| rescale(unscaled, scale, *target_scale))
                    .filter(|v| v.unsigned_abs() < 10u128.pow(38));
                b.append_option(decimal);
            }
            Collected::String(b) => match value {
                Variant::String(v) => b.append_value(v),
                _ => b.append_null(),
            },
            Collected::Binary(b) => match value {
                Variant::Binary(v) => b.append_value(v),
                _ => b.append_null(),
            },
            Collected::Date(b) => match value {
                Variant::Date(v) => b.append_value(*v),
                _ => b.append_null(),
            },
            Collected::Time(b) => match value {
                Variant::TimeNtzMicros(v) => b.append_value(*v),
                _ => b.append_null(),
            },
            Collected::Timestamp(values, unit, utc) => {
                let stamp = match (*value, *utc) {
                    (Variant::TimestampMicros(v), true)
                    | (Variant::TimestampNtzMicros(v), false) => timestamp_in(v, false, *unit),
                    (Variant::TimestampNanos(v), true) | (Variant::TimestampNtzNanos(v), false) => {
                        timestamp_in(v, true, *unit)
                    }
                    _ => None,
                };
                values.push(stamp);
            }
            Collected::Uuid(b) => match value {
                Variant::Uuid(v) => {
                    // Always 16 bytes: the builder's width.
                    let _ = b.append_value(v);
                }
                _ => b.append_null(),
            },
        }
    }

    /// Appends a null.
    pub fn append_null(&mut self) {
        match &mut self.collected {
            Collected::Boolean(b) => b.append_null(),
            Collected::Integer(b) => b.append_null(),
            Collected::Float(b) => b.append_null(),
            Collected::Decimal(b, _) => b.append_null(),
            Collected::String(b) => b.append_null(),
            Collected::Binary(b) => b.append_null(),
            Collected::Date(b) => b.append_null(),
            Collected::Time(b) => b.append_null(),
            Collected::Timestamp(values, ..) => values.push(None),
            Collected::Uuid(b) => b.append_null(),
        }
    }

    /// The array of the target type (values that do not fit it, e.g. an integer beyond
    /// an `Int8`, are null).
    pub fn finish(self) -> Result<ArrayRef> {
        let collected: ArrayRef = match self.collected {
            Collected::Boolean(mut b) => Arc::new(b.finish()),
            Collected::Integer(mut b) => Arc::new(b.finish()),
            Collected::Float(mut b) => Arc::new(b.finish()),
            Collected::Decimal(mut b, _) => Arc::new(b.finish()),
            Collected::String(mut b) => Arc::new(b.finish()),
            Collected::Binary(mut b) => Arc::new(b.finish()),
            Collected::Date(mut b) => Arc::new(b.finish()),
            Collected::Time(mut b) => Arc::new(b.finish()),
            Collected::Timestamp(values, unit, _) => {
                let DataType::Timestamp(_, zone) = &self.target else {
                    return Err(Error::invalid_argument("timestamp builder of another type"));
                };
                match unit {
                    TimeUnit::Second => Arc::new(
                        PrimitiveArray::<TimestampSecondType>::from(values)
                            .with_timezone_opt(zone.clone()),
                    ),
                    TimeUnit::Millisecond => Arc::new(
                        PrimitiveArray::<TimestampMillisecondType>::from(values)
                            .with_timezone_opt(zone.clone()),
                    ),
                    TimeUnit::Microsecond => Arc::new(
                        PrimitiveArray::<TimestampMicrosecondType>::from(values)
                            .with_timezone_opt(zone.clone()),
                    ),
                    TimeUnit::Nanosecond => Arc::new(
                        PrimitiveArray::<TimestampNanosecondType>::from(values)
                            .with_timezone_opt(zone.clone()),
                    ),
                }
            }
            Collected::Uuid(mut b) => Arc::new(b.finish()),
        };
        cast_safe(&collected, &self.target)
    }
}

/// `array` cast to `target`, values that do not fit becoming null.
pub(crate) fn cast_safe(array: &ArrayRef, target: &DataType) -> Result<ArrayRef> {
    if array.data_type() == target {
        return Ok(array.clone());
    }
    let options = CastOptions {
        safe: true,
        ..CastOptions::default()
    };
    Ok(arrow_cast::cast_with_options(array, target, &options)?)
}

/// Whether casting a shredded column of type `from` to `to` gives what converting its
/// values one by one would: the same type, another layout of strings or binaries, an
/// integer or float width, a decimal of the same scale, a timestamp of the same unit and
/// zone-ness.
pub(crate) fn cast_matches_rules(from: &DataType, to: &DataType) -> bool {
    use DataType as D;
    let is_int = |t: &DataType| t.is_integer();
    let is_float = |t: &DataType| matches!(t, D::Float16 | D::Float32 | D::Float64);
    let is_string = |t: &DataType| matches!(t, D::Utf8 | D::LargeUtf8 | D::Utf8View);
    let is_binary = |t: &DataType| matches!(t, D::Binary | D::LargeBinary | D::BinaryView);
    let decimal_scale = |t: &DataType| match t {
        D::Decimal32(_, s) | D::Decimal64(_, s) | D::Decimal128(_, s) => Some(*s),
        _ => None,
    };
    from == to
        || (is_int(from) && is_int(to) && from.is_signed_integer())
        || (is_float(from) && is_float(to))
        || (is_string(from) && is_string(to))
        || (is_binary(from) && is_binary(to))
        || decimal_scale(from).is_some_and(|s| decimal_scale(to) == Some(s))
        || matches!(
            (from, to),
            (D::Timestamp(from_unit, a), D::Timestamp(to_unit, b))
                if from_unit == to_unit && a.is_some() == b.is_some()
        )
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal32Type, Int8Type, TimestampMillisecondType};

    use super::*;

    #[test]
    fn numbers_follow_the_family_rules() {
        let mut b = TargetBuilder::new(&DataType::Int8, 4).unwrap();
        b.append(Some(&Variant::Int64(100)));
        b.append(Some(&Variant::Int64(1000)));
        b.append(Some(&Variant::Decimal4 {
            unscaled: 1200,
            scale: 2,
        }));
        b.append(Some(&Variant::Decimal4 {
            unscaled: 1250,
            scale: 2,
        }));
        b.append(Some(&Variant::String("3")));
        let a = b.finish().unwrap();
        let a = a.as_primitive::<Int8Type>();
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [Some(100), None, Some(12), None, None]
        );

        let mut b = TargetBuilder::new(&DataType::Decimal32(4, 1), 4).unwrap();
        b.append(Some(&Variant::Int8(7)));
        b.append(Some(&Variant::Decimal8 {
            unscaled: 125,
            scale: 2,
        }));
        b.append(Some(&Variant::Decimal8 {
            unscaled: 120,
            scale: 2,
        }));
        b.append(Some(&Variant::Int32(12345)));
        let a = b.finish().unwrap();
        let a = a.as_primitive::<Decimal32Type>();
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [Some(70), None, Some(12), None]
        );
    }

    #[test]
    fn timestamps_keep_zone_ness_and_convert_units() {
        let zone = Some(Arc::<str>::from("UTC"));
        let mut b =
            TargetBuilder::new(&DataType::Timestamp(TimeUnit::Millisecond, zone), 3).unwrap();
        b.append(Some(&Variant::TimestampMicros(-1_500)));
        b.append(Some(&Variant::TimestampNtzMicros(5_000)));
        b.append(Some(&Variant::TimestampNanos(7_000_000)));
        let a = b.finish().unwrap();
        let a = a.as_primitive::<TimestampMillisecondType>();
        assert_eq!(a.iter().collect::<Vec<_>>(), [Some(-1), None, Some(7)]);
        assert!(TargetBuilder::new(&DataType::Duration(TimeUnit::Second), 0).is_err());
        assert!(a.is_valid(0));
    }
}

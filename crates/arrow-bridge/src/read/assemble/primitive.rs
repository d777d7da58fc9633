//! Booleans, INT32, INT64, FLOAT, DOUBLE and INT96 values as Arrow arrays: nulls
//! spread in place (the values buffer is the array's buffer), integers converted where
//! the mapped type is narrower, wider or scaled (dates, times, timestamps, durations,
//! decimals), INT96 timestamps converted to the requested unit.

use std::sync::Arc;

use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type,
    Decimal256Type, DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType,
    DurationSecondType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{ArrayRef, BooleanArray, PrimitiveArray};
use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer, i256};
use arrow_schema::{DataType, TimeUnit};

use super::{IntoArray, cannot};
use crate::error::{Error, Result};

/// Julian day number of 1970-01-01, the epoch of INT96 timestamps' day field.
const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;

impl IntoArray for Vec<bool> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        if target != &DataType::Boolean {
            return Err(cannot("BOOLEAN", target));
        }
        let values = spread(self, nulls.as_ref(), len)?;
        Ok(Arc::new(BooleanArray::new(
            BooleanBuffer::from(values),
            nulls,
        )))
    }
}

impl IntoArray for Vec<i32> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        int32_array(self, nulls, len, target)?.ok_or_else(|| cannot("INT32", target))
    }
}

impl IntoArray for Vec<i64> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        int64_array(self, nulls, len, target)?.ok_or_else(|| cannot("INT64", target))
    }
}

/// Decimals decoded at 128 bits (`decode::Decimals`).
impl IntoArray for Vec<i128> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        match target {
            DataType::Decimal128(_, _) => primitive::<Decimal128Type>(self, nulls, len, target),
            _ => Err(cannot("a 128-bit decimal", target)),
        }
    }
}

impl IntoArray for Vec<f32> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        match target {
            DataType::Float32 => primitive::<Float32Type>(self, nulls, len, target),
            _ => Err(cannot("FLOAT", target)),
        }
    }
}

impl IntoArray for Vec<f64> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        match target {
            DataType::Float64 => primitive::<Float64Type>(self, nulls, len, target),
            _ => Err(cannot("DOUBLE", target)),
        }
    }
}

impl IntoArray for Vec<[u8; 12]> {
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        let DataType::Timestamp(unit, _) = target else {
            return Err(cannot("INT96", target));
        };
        let mut converted = Vec::with_capacity(len);
        for value in &self {
            converted.push(int96_to_timestamp(value, *unit).ok_or_else(|| {
                Error::corrupt(format!(
                    "INT96 timestamp {} does not fit Timestamp({unit:?}); read it with a \
                     coarser unit (SchemaOptions::with_int96_unit)",
                    int96_text(value)
                ))
            })?);
        }
        timestamp_array(converted, nulls, len, target, *unit)
    }
}

/// Dense values spread to `len` slots: valid slots take the values in order, null slots
/// a default (see [`herringbone_codec::spread`], which does it in place). The values
/// must number the valid slots (checked by the callers: a mismatch is an error there).
pub(crate) fn spread<T: Copy + Default + 'static>(
    mut values: Vec<T>,
    nulls: Option<&NullBuffer>,
    len: usize,
) -> Result<Vec<T>> {
    let Some(nulls) = nulls else {
        return Ok(values);
    };
    let bits = nulls.inner();
    herringbone_codec::spread::spread(&mut values, bits.values(), bits.offset(), len)?;
    Ok(values)
}

pub(crate) fn primitive<T: ArrowPrimitiveType>(
    dense: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    len: usize,
    data_type: &DataType,
) -> Result<ArrayRef> {
    let values = spread(dense, nulls.as_ref(), len)?;
    Ok(Arc::new(
        PrimitiveArray::<T>::new(ScalarBuffer::from(values), nulls)
            .with_data_type(data_type.clone()),
    ))
}

fn int32_array(
    v: Vec<i32>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<Option<ArrayRef>> {
    use DataType as D;
    Ok(Some(match target {
        D::Int32 => primitive::<Int32Type>(v, nulls, len, target)?,
        D::Date32 => primitive::<Date32Type>(v, nulls, len, target)?,
        D::Time32(TimeUnit::Second) => primitive::<Time32SecondType>(v, nulls, len, target)?,
        D::Time32(TimeUnit::Millisecond) => {
            primitive::<Time32MillisecondType>(v, nulls, len, target)?
        }
        D::Decimal32(_, _) => primitive::<Decimal32Type>(v, nulls, len, target)?,
        // Narrow integer annotations keep the low bits, as the reference readers do.
        D::Int8 => primitive::<Int8Type>(v.iter().map(|&x| x as i8).collect(), nulls, len, target)?,
        D::Int16 => {
            primitive::<Int16Type>(v.iter().map(|&x| x as i16).collect(), nulls, len, target)?
        }
        D::UInt8 => {
            primitive::<UInt8Type>(v.iter().map(|&x| x as u8).collect(), nulls, len, target)?
        }
        D::UInt16 => {
            primitive::<UInt16Type>(v.iter().map(|&x| x as u16).collect(), nulls, len, target)?
        }
        D::UInt32 => {
            primitive::<UInt32Type>(v.iter().map(|&x| x as u32).collect(), nulls, len, target)?
        }
        D::Int64 => primitive::<Int64Type>(
            v.iter().map(|&x| i64::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Date64 => primitive::<Date64Type>(
            v.iter().map(|&x| i64::from(x) * 86_400_000).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal64(_, _) => primitive::<Decimal64Type>(
            v.iter().map(|&x| i64::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal128(_, _) => primitive::<Decimal128Type>(
            v.iter().map(|&x| i128::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal256(_, _) => primitive::<Decimal256Type>(
            v.iter().map(|&x| i256::from_i128(i128::from(x))).collect(),
            nulls,
            len,
            target,
        )?,
        _ => return Ok(None),
    }))
}

fn int64_array(
    v: Vec<i64>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<Option<ArrayRef>> {
    use DataType as D;
    Ok(Some(match target {
        D::Int64 => primitive::<Int64Type>(v, nulls, len, target)?,
        D::UInt64 => {
            primitive::<UInt64Type>(v.iter().map(|&x| x as u64).collect(), nulls, len, target)?
        }
        D::Timestamp(unit, _) => timestamp_array(v, nulls, len, target, *unit)?,
        D::Time64(TimeUnit::Microsecond) => {
            primitive::<Time64MicrosecondType>(v, nulls, len, target)?
        }
        D::Time64(TimeUnit::Nanosecond) => {
            primitive::<Time64NanosecondType>(v, nulls, len, target)?
        }
        D::Duration(TimeUnit::Second) => primitive::<DurationSecondType>(v, nulls, len, target)?,
        D::Duration(TimeUnit::Millisecond) => {
            primitive::<DurationMillisecondType>(v, nulls, len, target)?
        }
        D::Duration(TimeUnit::Microsecond) => {
            primitive::<DurationMicrosecondType>(v, nulls, len, target)?
        }
        D::Duration(TimeUnit::Nanosecond) => {
            primitive::<DurationNanosecondType>(v, nulls, len, target)?
        }
        D::Date64 => primitive::<Date64Type>(v, nulls, len, target)?,
        D::Decimal64(_, _) => primitive::<Decimal64Type>(v, nulls, len, target)?,
        D::Decimal128(_, _) => primitive::<Decimal128Type>(
            v.iter().map(|&x| i128::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal256(_, _) => primitive::<Decimal256Type>(
            v.iter().map(|&x| i256::from_i128(i128::from(x))).collect(),
            nulls,
            len,
            target,
        )?,
        _ => return Ok(None),
    }))
}

fn timestamp_array(
    v: Vec<i64>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
    unit: TimeUnit,
) -> Result<ArrayRef> {
    Ok(match unit {
        TimeUnit::Second => primitive::<TimestampSecondType>(v, nulls, len, target)?,
        TimeUnit::Millisecond => primitive::<TimestampMillisecondType>(v, nulls, len, target)?,
        TimeUnit::Microsecond => primitive::<TimestampMicrosecondType>(v, nulls, len, target)?,
        TimeUnit::Nanosecond => primitive::<TimestampNanosecondType>(v, nulls, len, target)?,
    })
}

/// An INT96 timestamp (nanoseconds of the day, then the Julian day, little-endian) in
/// `unit` since the epoch; `None` when it does not fit an `i64` of that unit.
///
/// A value whose count since the Julian epoch fits the unit but whose count since 1970
/// does not is what Spark writes for instants beyond the `i64` range of the unit: Spark
/// shifts by the epoch with wrapping arithmetic on write and on read, so the same
/// wrapping shift returns exactly the count Spark wrote. Any other value that does not fit
/// is refused rather than wrapped.
fn int96_to_timestamp(value: &[u8; 12], unit: TimeUnit) -> Option<i64> {
    let (nanos, day) = int96_parts(value);
    let (per_day, per_unit) = match unit {
        TimeUnit::Second => (86_400_i64, 1_000_000_000_i64),
        TimeUnit::Millisecond => (86_400_000, 1_000_000),
        TimeUnit::Microsecond => (86_400_000_000, 1_000),
        TimeUnit::Nanosecond => (86_400_000_000_000, 1),
    };
    let within_day = nanos / per_unit;
    let since_epoch =
        i128::from(day - JULIAN_DAY_OF_EPOCH) * i128::from(per_day) + i128::from(within_day);
    if let Ok(value) = i64::try_from(since_epoch) {
        return Some(value);
    }
    let since_julian_epoch = day.checked_mul(per_day)?.checked_add(within_day)?;
    Some(since_julian_epoch.wrapping_sub(JULIAN_DAY_OF_EPOCH.wrapping_mul(per_day)))
}

fn int96_parts(value: &[u8; 12]) -> (i64, i64) {
    let mut nanos = [0u8; 8];
    nanos.copy_from_slice(&value[..8]);
    let mut day = [0u8; 4];
    day.copy_from_slice(&value[8..]);
    (
        i64::from_le_bytes(nanos),
        i64::from(i32::from_le_bytes(day)),
    )
}

fn int96_text(value: &[u8; 12]) -> String {
    let (nanos, day) = int96_parts(value);
    format!("(Julian day {day}, {nanos} ns)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int96(day: i32, nanos: i64) -> [u8; 12] {
        let mut out = [0u8; 12];
        out[..8].copy_from_slice(&nanos.to_le_bytes());
        out[8..].copy_from_slice(&day.to_le_bytes());
        out
    }

    #[test]
    fn int96_converts_to_every_unit() {
        // 2024-01-01T20:34:56.123456789 is Julian day 2460311.
        let value = int96(2_460_311, 74_096_123_456_789);
        let seconds = 1_704_141_296_i64;
        assert_eq!(int96_to_timestamp(&value, TimeUnit::Second), Some(seconds));
        assert_eq!(
            int96_to_timestamp(&value, TimeUnit::Millisecond),
            Some(seconds * 1000 + 123)
        );
        assert_eq!(
            int96_to_timestamp(&value, TimeUnit::Microsecond),
            Some(seconds * 1_000_000 + 123_456)
        );
        assert_eq!(
            int96_to_timestamp(&value, TimeUnit::Nanosecond),
            Some(seconds * 1_000_000_000 + 123_456_789)
        );
        // Before the epoch.
        assert_eq!(
            int96_to_timestamp(&int96(2_440_587, 0), TimeUnit::Nanosecond),
            Some(-86_400_000_000_000)
        );
        // Year 9999 does not fit nanoseconds but does fit microseconds.
        let far = int96(5_373_484, 0);
        assert_eq!(int96_to_timestamp(&far, TimeUnit::Nanosecond), None);
        assert_eq!(
            int96_to_timestamp(&far, TimeUnit::Microsecond),
            Some((5_373_484 - 2_440_588) * 86_400_000_000)
        );
    }

    #[test]
    fn int96_out_of_range_is_an_error_naming_the_option() {
        let values = vec![int96(5_373_484, 0)];
        let target = DataType::Timestamp(TimeUnit::Nanosecond, None);
        let error = values.into_array(&target, None, 1).unwrap_err().to_string();
        assert!(error.contains("with_int96_unit"), "{error}");
    }

    #[test]
    fn nulls_spread_in_runs() {
        let nulls = NullBuffer::from(vec![false, true, true, false, false, true]);
        assert_eq!(
            spread(vec![1, 2, 3], Some(&nulls), 6).unwrap(),
            vec![0, 1, 2, 0, 0, 3]
        );
    }

    #[test]
    fn spreading_matches_the_slot_by_slot_definition_over_whole_and_mixed_words() {
        // Words of all-valid, all-null and mixed slots, a ragged last word, and a
        // sliced validity buffer (bit offset 3).
        let pattern: Vec<bool> = (0..300)
            .map(|i| match i {
                0..64 => true,
                64..128 => false,
                _ => (i * 7919) % 5 < 3,
            })
            .collect();
        for offset in [0, 3] {
            let bits = NullBuffer::from(pattern.clone()).slice(offset, pattern.len() - offset);
            let len = bits.len();
            let dense: Vec<i64> = (0..(len - bits.null_count()) as i64)
                .map(|v| v + 1)
                .collect();
            let mut next = dense.iter();
            let expected: Vec<i64> = (0..len)
                .map(|i| {
                    if bits.is_valid(i) {
                        *next.next().unwrap()
                    } else {
                        0
                    }
                })
                .collect();
            assert_eq!(
                spread(dense, Some(&bits), len).unwrap(),
                expected,
                "offset {offset}"
            );
        }
    }

    #[test]
    fn a_type_the_values_cannot_hold_is_unsupported() {
        let error = vec![1i32].into_array(&DataType::Utf8, None, 1).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Unsupported);
        assert!(
            error.to_string().contains("INT32 values as Utf8"),
            "{error}"
        );
    }
}

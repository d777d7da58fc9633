//! Arrow values to their physical type, value by value: the types whose Parquet form is
//! not their Arrow memory (small and unsigned integers widened, seconds scaled to
//! milliseconds, dates of milliseconds as days, decimals, INT96 timestamps, intervals,
//! FLOAT16, booleans, views, fixed-size binaries). Types stored as they lie in memory
//! are copied in bulk by `source` instead.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use herringbone_format::metadata::Type;

use super::rows::Rows;
use super::schema::LeafKind;
use super::values::Values;
use crate::error::{Error, Result};

/// How one leaf's values are converted: the leaf's conversion and physical type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    /// The conversion the schema mapping chose.
    pub kind: LeafKind,
    /// The physical type.
    pub physical: Type,
    /// Bytes per FIXED_LEN_BYTE_ARRAY value.
    pub width: usize,
}

/// `values` converted with `f` at the slots of `rows`, appended to `out`.
#[inline]
fn extend<T: Copy, U>(out: &mut Vec<U>, values: &[T], rows: Rows<'_>, f: impl Fn(T) -> U) {
    match rows {
        Rows::Range(start, end) => out.extend(values[start..end].iter().map(|&x| f(x))),
        _ => {
            out.reserve(rows.len());
            rows.for_each(|i| out.push(f(values[i])));
        }
    }
}

fn mismatch(data_type: &DataType) -> Error {
    Error::invalid_argument(format!(
        "Arrow {data_type} values do not match the column's physical type"
    ))
}

/// Appends the values of `array` at `rows`, converted to the physical type, to `out`
/// (a [`Values`] of that type).
pub(crate) fn append(
    array: &ArrayRef,
    rows: Rows<'_>,
    target: Target,
    out: &mut Values,
) -> Result<()> {
    macro_rules! prim {
        ($t:ty, $variant:ident, $f:expr) => {{
            let Values::$variant(o) = out else {
                return Err(mismatch(array.data_type()));
            };
            extend(o, array.as_primitive::<$t>().values(), rows, $f)
        }};
    }
    if rows.len() == 0 {
        // Nothing to convert (a `Null` array has no values at all).
        return Ok(());
    }
    let scale_s = target.kind == LeafKind::SecondsToMillis;
    let (physical, width) = (target.physical, target.width);
    match array.data_type() {
        DataType::Boolean => {
            let Values::Bool(o) = out else {
                return Err(mismatch(array.data_type()));
            };
            let a = array.as_boolean();
            o.reserve(rows.len());
            rows.for_each(|i| o.push(a.value(i)));
        }
        DataType::Int8 => prim!(Int8Type, I32, i32::from),
        DataType::Int16 => prim!(Int16Type, I32, i32::from),
        DataType::Int32 => prim!(Int32Type, I32, |x| x),
        DataType::UInt8 => prim!(UInt8Type, I32, i32::from),
        DataType::UInt16 => prim!(UInt16Type, I32, i32::from),
        DataType::UInt32 => prim!(UInt32Type, I32, |x: u32| x as i32),
        DataType::Int64 => prim!(Int64Type, I64, |x| x),
        DataType::UInt64 => prim!(UInt64Type, I64, |x: u64| x as i64),
        DataType::Float32 => prim!(Float32Type, F32, |x| x),
        DataType::Float64 => prim!(Float64Type, F64, |x| x),
        DataType::Float16 => {
            let v = array.as_primitive::<Float16Type>().values();
            fixed(out, array, 2, rows, |i, o| {
                o.extend_from_slice(&v[i].to_le_bytes())
            })?;
        }
        DataType::Date32 => prim!(Date32Type, I32, |x| x),
        DataType::Date64 => prim!(Date64Type, I32, |x: i64| x.div_euclid(86_400_000) as i32),
        DataType::Time32(TimeUnit::Second) => {
            prim!(Time32SecondType, I32, |x: i32| x.wrapping_mul(1000))
        }
        DataType::Time32(_) => prim!(Time32MillisecondType, I32, |x| x),
        DataType::Time64(TimeUnit::Microsecond) => prim!(Time64MicrosecondType, I64, |x| x),
        DataType::Time64(_) => prim!(Time64NanosecondType, I64, |x| x),
        DataType::Timestamp(unit, _) => {
            let (v, per_second) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().values(), 1),
                TimeUnit::Millisecond => (
                    array.as_primitive::<TimestampMillisecondType>().values(),
                    1_000,
                ),
                TimeUnit::Microsecond => (
                    array.as_primitive::<TimestampMicrosecondType>().values(),
                    1_000_000,
                ),
                TimeUnit::Nanosecond => (
                    array.as_primitive::<TimestampNanosecondType>().values(),
                    1_000_000_000,
                ),
            };
            match out {
                Values::I96(o) if target.kind == LeafKind::Int96 => {
                    let nanos_per_unit: i64 = 1_000_000_000 / per_second;
                    extend(o, v, rows, |x| {
                        int96(i128::from(x) * i128::from(nanos_per_unit))
                    });
                }
                Values::I64(o) if scale_s => extend(o, v, rows, |x: i64| x.wrapping_mul(1000)),
                Values::I64(o) => extend(o, v, rows, |x| x),
                _ => return Err(mismatch(array.data_type())),
            }
        }
        DataType::Duration(unit) => {
            let v = match unit {
                TimeUnit::Second => array.as_primitive::<DurationSecondType>().values(),
                TimeUnit::Millisecond => array.as_primitive::<DurationMillisecondType>().values(),
                TimeUnit::Microsecond => array.as_primitive::<DurationMicrosecondType>().values(),
                TimeUnit::Nanosecond => array.as_primitive::<DurationNanosecondType>().values(),
            };
            let Values::I64(o) = out else {
                return Err(mismatch(array.data_type()));
            };
            extend(o, v, rows, |x| x);
        }
        DataType::Decimal32(_, _) => {
            let v = array.as_primitive::<Decimal32Type>().values();
            decimal(out, array, physical, width, rows, |i| i128::from(v[i]))?;
        }
        DataType::Decimal64(_, _) => {
            let v = array.as_primitive::<Decimal64Type>().values();
            decimal(out, array, physical, width, rows, |i| i128::from(v[i]))?;
        }
        DataType::Decimal128(_, _) => {
            let v = array.as_primitive::<Decimal128Type>().values();
            decimal(out, array, physical, width, rows, |i| v[i])?;
        }
        DataType::Decimal256(_, _) => {
            let v = array.as_primitive::<Decimal256Type>().values();
            match physical {
                Type::INT32 | Type::INT64 => {
                    decimal(out, array, physical, width, rows, |i| v[i].as_i128())?
                }
                _ => fixed(out, array, width, rows, |i, o| {
                    let be = v[i].to_be_bytes();
                    o.extend_from_slice(&be[32 - width.min(32)..]);
                })?,
            }
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            let v = array.as_primitive::<IntervalYearMonthType>().values();
            fixed(out, array, 12, rows, |i, o| {
                o.extend_from_slice(&(v[i] as u32).to_le_bytes());
                o.extend_from_slice(&[0; 8]);
            })?;
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            let v = array.as_primitive::<IntervalDayTimeType>().values();
            fixed(out, array, 12, rows, |i, o| {
                o.extend_from_slice(&[0; 4]);
                o.extend_from_slice(&(v[i].days as u32).to_le_bytes());
                o.extend_from_slice(&(v[i].milliseconds as u32).to_le_bytes());
            })?;
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            interval_month_day_nano(array, rows, out)?;
        }
        DataType::Utf8 => bytes(out, array, rows, |i| {
            array.as_string::<i32>().value(i).as_bytes()
        })?,
        DataType::LargeUtf8 => bytes(out, array, rows, |i| {
            array.as_string::<i64>().value(i).as_bytes()
        })?,
        DataType::Utf8View => bytes(out, array, rows, |i| {
            array.as_string_view().value(i).as_bytes()
        })?,
        DataType::Binary => bytes(out, array, rows, |i| array.as_binary::<i32>().value(i))?,
        DataType::LargeBinary => bytes(out, array, rows, |i| array.as_binary::<i64>().value(i))?,
        DataType::BinaryView => bytes(out, array, rows, |i| array.as_binary_view().value(i))?,
        DataType::FixedSizeBinary(n) => {
            let a = array.as_fixed_size_binary();
            fixed(out, array, *n as usize, rows, |i, o| {
                o.extend_from_slice(a.value(i))
            })?;
        }
        other => {
            return Err(Error::unsupported(format!(
                "writing Arrow {other} values is not supported"
            )));
        }
    }
    Ok(())
}

/// Appends FIXED_LEN_BYTE_ARRAY values of `width` bytes, each written by `put`.
fn fixed(
    out: &mut Values,
    array: &ArrayRef,
    width: usize,
    rows: Rows<'_>,
    mut put: impl FnMut(usize, &mut Vec<u8>),
) -> Result<()> {
    let Values::Fixed { width: w, data } = out else {
        return Err(mismatch(array.data_type()));
    };
    if *w != width {
        return Err(Error::invalid_argument(format!(
            "Arrow {} values are {width} bytes wide, the column's {w}",
            array.data_type()
        )));
    }
    data.reserve(rows.len() * width);
    rows.for_each(|i| put(i, data));
    Ok(())
}

/// Appends BYTE_ARRAY values, each given by `value`.
fn bytes<'a>(
    out: &mut Values,
    array: &ArrayRef,
    rows: Rows<'_>,
    value: impl Fn(usize) -> &'a [u8],
) -> Result<()> {
    let Values::Bytes { offsets, data } = out else {
        return Err(mismatch(array.data_type()));
    };
    offsets.reserve(rows.len());
    rows.for_each(|i| {
        data.extend_from_slice(value(i));
        offsets.push(data.len());
    });
    Ok(())
}

/// Appends decimals (as `i128`) on INT32, INT64 or big-endian FIXED_LEN_BYTE_ARRAY.
fn decimal(
    out: &mut Values,
    array: &ArrayRef,
    physical: Type,
    width: usize,
    rows: Rows<'_>,
    value: impl Fn(usize) -> i128,
) -> Result<()> {
    match (physical, out) {
        (Type::INT32, Values::I32(o)) => {
            o.reserve(rows.len());
            rows.for_each(|i| o.push(value(i) as i32));
        }
        (Type::INT64, Values::I64(o)) => {
            o.reserve(rows.len());
            rows.for_each(|i| o.push(value(i) as i64));
        }
        (_, out @ Values::Fixed { .. }) => fixed(out, array, width, rows, |i, data| {
            let v = value(i);
            let be = v.to_be_bytes();
            if width <= 16 {
                data.extend_from_slice(&be[16 - width..]);
            } else {
                // Sign-extend to the wider width.
                let fill = if v < 0 { 0xff } else { 0 };
                data.extend(std::iter::repeat_n(fill, width - 16));
                data.extend_from_slice(&be);
            }
        })?,
        _ => return Err(mismatch(array.data_type())),
    }
    Ok(())
}

/// INT96 of a nanosecond timestamp: nanoseconds of the day, then the Julian day.
fn int96(nanos: i128) -> [u8; 12] {
    const NANOS_PER_DAY: i128 = 86_400_000_000_000;
    const JULIAN_UNIX_EPOCH: i128 = 2_440_588;
    let day = nanos.div_euclid(NANOS_PER_DAY) + JULIAN_UNIX_EPOCH;
    let of_day = nanos.rem_euclid(NANOS_PER_DAY);
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&(of_day as i64).to_le_bytes());
    out[8..].copy_from_slice(&(day as i32).to_le_bytes());
    out
}

/// `Interval(MonthDayNano)` values as Parquet INTERVAL (months, days, milliseconds as u32
/// LE): the format has no sub-millisecond part, so nanoseconds that are not whole
/// milliseconds, or negative values anywhere, are refused rather than silently changed.
fn interval_month_day_nano(array: &ArrayRef, rows: Rows<'_>, out: &mut Values) -> Result<()> {
    let v = array.as_primitive::<IntervalMonthDayNanoType>().values();
    let mut refused = None;
    fixed(out, array, 12, rows, |i, data| {
        if refused.is_some() {
            return;
        }
        let x = v[i];
        let millis = if x.nanoseconds % 1_000_000 == 0 {
            u32::try_from(x.nanoseconds / 1_000_000).ok()
        } else {
            None
        };
        let (Ok(months), Ok(days), Some(millis)) =
            (u32::try_from(x.months), u32::try_from(x.days), millis)
        else {
            refused = Some(x);
            return;
        };
        data.extend_from_slice(&months.to_le_bytes());
        data.extend_from_slice(&days.to_le_bytes());
        data.extend_from_slice(&millis.to_le_bytes());
    })?;
    match refused {
        None => Ok(()),
        Some(x) => Err(Error::invalid_argument(format!(
            "interval (months {}, days {}, nanoseconds {}) has no Parquet INTERVAL form \
             (non-negative months and days, whole milliseconds that fit a u32)",
            x.months, x.days, x.nanoseconds
        ))),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Decimal128Array, Int8Array, TimestampSecondArray};
    use arrow_buffer::NullBuffer;

    use super::*;

    fn target(kind: LeafKind, physical: Type, width: usize) -> Target {
        Target {
            kind,
            physical,
            width,
        }
    }

    #[test]
    fn conversions_at_the_selected_slots() {
        let a: ArrayRef = Arc::new(Int8Array::from(vec![-1, 2, -3, 4]));
        let mut out = Values::I32(vec![9]);
        let nulls = NullBuffer::from(vec![true, false, true, true]);
        append(
            &a,
            Rows::Valid(&nulls, 0, 3),
            target(LeafKind::Plain, Type::INT32, 0),
            &mut out,
        )
        .unwrap();
        assert_eq!(out, Values::I32(vec![9, -1, -3]));

        let a: ArrayRef = Arc::new(TimestampSecondArray::from(vec![1, -2]));
        let mut out = Values::I64(Vec::new());
        let t = target(LeafKind::SecondsToMillis, Type::INT64, 0);
        append(&a, Rows::Indices(&[1, 0]), t, &mut out).unwrap();
        assert_eq!(out, Values::I64(vec![-2000, 1000]));

        let mut out = Values::I96(Vec::new());
        let t = target(LeafKind::Int96, Type::INT96, 0);
        append(&a, Rows::Range(0, 1), t, &mut out).unwrap();
        // 1 s after the epoch: 1e9 ns into Julian day 2,440,588.
        let mut expected = [0u8; 12];
        expected[..8].copy_from_slice(&1_000_000_000i64.to_le_bytes());
        expected[8..].copy_from_slice(&2_440_588i32.to_le_bytes());
        assert_eq!(out, Values::I96(vec![expected]));
    }

    #[test]
    fn decimals_sign_extend_into_wide_fixed_bytes() {
        let a: ArrayRef = Arc::new(
            Decimal128Array::from(vec![-2i128, 258])
                .with_precision_and_scale(38, 0)
                .unwrap(),
        );
        let mut out = Values::empty(Type::FIXED_LEN_BYTE_ARRAY, 18);
        let t = target(LeafKind::DecimalBytes, Type::FIXED_LEN_BYTE_ARRAY, 18);
        append(&a, Rows::Range(0, 2), t, &mut out).unwrap();
        let Values::Fixed { data, .. } = &out else {
            panic!("fixed")
        };
        let mut negative = [0xffu8; 18];
        negative[17] = 0xfe;
        let mut positive = [0u8; 18];
        positive[16..].copy_from_slice(&[1, 2]);
        assert_eq!(data[..18], negative[..]);
        assert_eq!(data[18..], positive[..]);
        // A narrower column than the values: refused, not cut.
        let mut out = Values::empty(Type::FIXED_LEN_BYTE_ARRAY, 4);
        let err = append(
            &a,
            Rows::Range(0, 2),
            target(LeafKind::DecimalBytes, Type::FIXED_LEN_BYTE_ARRAY, 18),
            &mut out,
        )
        .unwrap_err();
        assert!(err.to_string().contains("18 bytes wide"), "{err}");
    }

    #[test]
    fn a_mismatched_container_is_an_error() {
        let a: ArrayRef = Arc::new(Int8Array::from(vec![1]));
        let mut out = Values::I64(Vec::new());
        let err = append(
            &a,
            Rows::Range(0, 1),
            target(LeafKind::Plain, Type::INT32, 0),
            &mut out,
        )
        .unwrap_err();
        assert!(err.to_string().contains("Int8"), "{err}");
    }
}

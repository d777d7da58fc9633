//! Literals coerced to a column's type, as SQL does.
//!
//! | literal | column | result |
//! | --- | --- | --- |
//! | any type | the same type | the literal |
//! | `NULL` | any | null |
//! | string | strings, binaries, dates, times, timestamps, booleans, intervals | Arrow's cast (an error when the text is not a value) |
//! | string | numbers, decimals | the text read as a number, then as below |
//! | string | `FixedSizeBinary(16)` | a UUID's text, or 16 bytes |
//! | number | integers, decimals | the exact value, or the column values just below and above it |
//! | number | floats | the nearest float |
//!
//! A number that the column cannot hold exactly (`2.5` for an integer column, `1.005`
//! for `Decimal(10, 2)`, `300` for `Int8`) is [`Coerced::Between`] its neighbours in the
//! column's type, so `x < 2.5` binds as `x <= 2` and `x = 2.5` as never true.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal256Type, Float64Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, Decimal128Array, Float64Array};
use arrow_array::{FixedSizeBinaryArray, Int64Array, PrimitiveArray, UInt64Array};
use arrow_buffer::i256;
use arrow_cast::{CastOptions, cast_with_options};
use arrow_schema::DataType;

use super::Literal;
use crate::error::{Error, Result};

/// A literal in a column's type.
#[derive(Debug, Clone)]
pub(crate) enum Coerced {
    /// The value, a one-element array of the column's type.
    Exact(ArrayRef),
    /// The literal is null.
    Null,
    /// No value of the column's type equals the literal: the largest one below it and
    /// the smallest one above it (`None` when the literal is past the type's range).
    Between {
        below: Option<ArrayRef>,
        above: Option<ArrayRef>,
    },
}

/// An exact number: `unscaled / 10^scale`, or a float.
#[derive(Debug, Clone, Copy)]
enum Number {
    Exact { unscaled: i256, scale: i8 },
    Float(f64),
}

/// Coerces `literal` to `target` (a value type: not a dictionary). `column` names the
/// column in errors.
pub(crate) fn coerce(literal: &Literal, target: &DataType, column: &str) -> Result<Coerced> {
    if literal.is_null() {
        return Ok(Coerced::Null);
    }
    let value = literal.value();
    if value.data_type() == target {
        return Ok(Coerced::Exact(value.clone()));
    }
    let mismatch = || {
        Error::invalid_argument(format!(
            "filter: literal {literal} ({}) cannot be compared with column {column} ({target})",
            value.data_type()
        ))
    };
    let target_is_number = target.is_integer() || is_decimal(target) || target.is_floating();
    let text = match value.data_type() {
        DataType::Utf8 => Some(value.as_string::<i32>().value(0).to_string()),
        DataType::LargeUtf8 => Some(value.as_string::<i64>().value(0).to_string()),
        DataType::Utf8View => Some(value.as_string_view().value(0).to_string()),
        _ => None,
    };
    if target_is_number {
        let number = match &text {
            Some(text) => parse_number(text.trim()).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "filter: '{text}' is not a number (column {column} is {target})"
                ))
            })?,
            None => number_of(value).ok_or_else(mismatch)?,
        };
        return number_to(number, target).ok_or_else(mismatch);
    }
    if let (Some(text), DataType::FixedSizeBinary(width)) = (&text, target) {
        return fixed_binary(text, *width)
            .map(Coerced::Exact)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "filter: '{text}' is not a value of column {column} ({target}: a UUID or {width} bytes)"
                ))
            });
    }
    let cast_ok = text.is_some()
        || matches!(
            (value.data_type(), target),
            (
                DataType::Date32 | DataType::Date64 | DataType::Timestamp(_, _),
                DataType::Date32 | DataType::Date64 | DataType::Timestamp(_, _)
            )
        )
        || (value.data_type().is_integer() && target.is_integer())
        || (matches!(
            value.data_type(),
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView
        ) && matches!(
            target,
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView
        ))
        || (matches!(
            value.data_type(),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        ) && matches!(
            target,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        ));
    if !cast_ok {
        return Err(mismatch());
    }
    if let DataType::Timestamp(unit, tz) = target {
        return timestamp(value, *unit, tz.clone(), target, literal, column);
    }
    let strict = CastOptions {
        safe: false,
        ..Default::default()
    };
    cast_with_options(value, target, &strict)
        .map(Coerced::Exact)
        .map_err(|e| {
            Error::invalid_argument(format!(
                "filter: literal {literal} is not a value of column {column} ({target}): {e}"
            ))
        })
}

fn is_decimal(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Decimal32(_, _)
            | DataType::Decimal64(_, _)
            | DataType::Decimal128(_, _)
            | DataType::Decimal256(_, _)
    )
}

/// A timestamp literal in the column's unit: through nanoseconds, so that a literal
/// finer than the unit becomes `Between` its neighbours instead of being truncated.
fn timestamp(
    value: &ArrayRef,
    unit: arrow_schema::TimeUnit,
    tz: Option<Arc<str>>,
    target: &DataType,
    literal: &Literal,
    column: &str,
) -> Result<Coerced> {
    use arrow_schema::TimeUnit;
    let strict = CastOptions {
        safe: false,
        ..Default::default()
    };
    // Named zones need arrow's chrono-tz feature; the UTC names are the offset +00:00.
    let tz = match tz.as_deref() {
        Some("UTC" | "utc" | "Etc/UTC" | "GMT" | "Z" | "Etc/GMT") => Some("+00:00".into()),
        _ => tz,
    };
    let fine = DataType::Timestamp(TimeUnit::Nanosecond, tz);
    let err = |e: arrow_schema::ArrowError| {
        Error::invalid_argument(format!(
            "filter: literal {literal} is not a value of column {column} ({target}): {e}"
        ))
    };
    let nanos = match cast_with_options(value, &fine, &strict) {
        Ok(nanos) => nanos,
        // Past the nanosecond range: cast straight to the unit.
        Err(_) => {
            return cast_with_options(value, target, &strict)
                .map(Coerced::Exact)
                .map_err(err);
        }
    };
    let n = nanos
        .as_primitive::<arrow_array::types::TimestampNanosecondType>()
        .value(0);
    let per_unit: i64 = match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    };
    let whole = n.div_euclid(per_unit);
    let make = |v: i64| -> Result<ArrayRef> {
        cast_with_options(
            &(Arc::new(Int64Array::from(vec![v])) as ArrayRef),
            target,
            &strict,
        )
        .map_err(err)
    };
    if n.rem_euclid(per_unit) == 0 {
        Ok(Coerced::Exact(make(whole)?))
    } else {
        Ok(Coerced::Between {
            below: Some(make(whole)?),
            above: Some(make(whole + 1)?),
        })
    }
}

/// A UUID's text (with or without dashes) or raw text of the right width.
fn fixed_binary(text: &str, width: i32) -> Option<ArrayRef> {
    let width = usize::try_from(width).ok()?;
    let hex: String = text.chars().filter(|&c| c != '-').collect();
    let bytes = if width == 16 && hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        (0..16)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?
    } else if text.len() == width {
        text.as_bytes().to_vec()
    } else {
        return None;
    };
    FixedSizeBinaryArray::try_from_iter(std::iter::once(bytes))
        .ok()
        .map(|a| Arc::new(a) as ArrayRef)
}

/// The text of a number: an integer, a decimal fraction or a float with an exponent.
fn parse_number(text: &str) -> Option<Number> {
    if text.contains(['e', 'E'])
        || text.eq_ignore_ascii_case("nan")
        || text.to_ascii_lowercase().contains("inf")
    {
        return text.parse::<f64>().ok().map(Number::Float);
    }
    let negative = text.starts_with('-');
    let body = text.trim_start_matches(['-', '+']);
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || fraction.len() > 76 {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    if digits.len() > 76 {
        return text.parse::<f64>().ok().map(Number::Float);
    }
    let mut unscaled = i256::ZERO;
    for b in digits.bytes() {
        unscaled = unscaled
            .checked_mul(i256::from(10))?
            .checked_add(i256::from(i32::from(b - b'0')))?;
    }
    Some(Number::Exact {
        unscaled: if negative {
            unscaled.wrapping_neg()
        } else {
            unscaled
        },
        scale: fraction.len() as i8,
    })
}

/// The number held by a numeric one-element array.
fn number_of(value: &ArrayRef) -> Option<Number> {
    let t = value.data_type();
    if t.is_floating() {
        let v = cast_with_options(value, &DataType::Float64, &CastOptions::default()).ok()?;
        return Some(Number::Float(v.as_primitive::<Float64Type>().value(0)));
    }
    if t.is_integer() {
        if matches!(t, DataType::UInt64) {
            let v = value.as_primitive::<UInt64Type>().value(0);
            return Some(Number::Exact {
                unscaled: i256::from_i128(i128::from(v)),
                scale: 0,
            });
        }
        let v = cast_with_options(value, &DataType::Int64, &CastOptions::default()).ok()?;
        return Some(Number::Exact {
            unscaled: i256::from(v.as_primitive::<Int64Type>().value(0)),
            scale: 0,
        });
    }
    if is_decimal(t) {
        let v = cast_with_options(
            value,
            &DataType::Decimal256(76, decimal_scale(t)),
            &CastOptions::default(),
        )
        .ok()?;
        return Some(Number::Exact {
            unscaled: v.as_primitive::<Decimal256Type>().value(0),
            scale: decimal_scale(t),
        });
    }
    None
}

fn decimal_scale(t: &DataType) -> i8 {
    match t {
        DataType::Decimal32(_, s)
        | DataType::Decimal64(_, s)
        | DataType::Decimal128(_, s)
        | DataType::Decimal256(_, s) => *s,
        _ => 0,
    }
}

fn pow10(n: u32) -> Option<i256> {
    let mut v = i256::ONE;
    for _ in 0..n {
        v = v.checked_mul(i256::from(10))?;
    }
    Some(v)
}

/// `number` in the numeric type `target`, or its neighbours there.
fn number_to(number: Number, target: &DataType) -> Option<Coerced> {
    if target.is_floating() {
        let f = match number {
            Number::Float(f) => f,
            Number::Exact { unscaled, scale } => {
                let text = decimal_text(unscaled, scale);
                text.parse::<f64>().ok()?
            }
        };
        let array: ArrayRef = Arc::new(Float64Array::from(vec![f]));
        return cast_with_options(&array, target, &CastOptions::default())
            .ok()
            .map(Coerced::Exact);
    }
    let target_scale = decimal_scale(target);
    // The literal at the target's scale: floor, and whether that is exact.
    let (floor, exact) = match number {
        Number::Float(f) => {
            if !f.is_finite() {
                return Some(if f.is_nan() || f > 0.0 {
                    Coerced::Between {
                        below: max_of(target),
                        above: None,
                    }
                } else {
                    Coerced::Between {
                        below: None,
                        above: min_of(target),
                    }
                });
            }
            let scaled = f * 10f64.powi(i32::from(target_scale));
            let fl = scaled.floor();
            if fl.abs() >= 1e76 {
                return Some(if f > 0.0 {
                    Coerced::Between {
                        below: max_of(target),
                        above: None,
                    }
                } else {
                    Coerced::Between {
                        below: None,
                        above: min_of(target),
                    }
                });
            }
            (i256::from_f64(fl)?, fl == scaled)
        }
        Number::Exact { unscaled, scale } => {
            if scale <= target_scale {
                let factor = pow10((target_scale - scale) as u32)?;
                match unscaled.checked_mul(factor) {
                    Some(v) => (v, true),
                    // Far past any target value.
                    None => {
                        return Some(if unscaled.is_negative() {
                            Coerced::Between {
                                below: None,
                                above: min_of(target),
                            }
                        } else {
                            Coerced::Between {
                                below: max_of(target),
                                above: None,
                            }
                        });
                    }
                }
            } else {
                let factor = pow10((scale - target_scale) as u32)?;
                let q = unscaled.checked_div(factor)?;
                let r = unscaled.checked_rem(factor)?;
                // Floor division: the quotient rounds toward zero.
                let floor = if r != i256::ZERO && unscaled.is_negative() {
                    q - i256::ONE
                } else {
                    q
                };
                (floor, r == i256::ZERO)
            }
        }
    };
    let (lo, hi) = range_of(target)?;
    let make = |v: i256| make_value(v, target);
    if exact && floor >= lo && floor <= hi {
        return make(floor).map(Coerced::Exact);
    }
    // Not a value of the type: its neighbours (floor is below the literal, floor + 1
    // above it when inexact; an exact literal out of range has only one neighbour).
    let below = if exact { floor - i256::ONE } else { floor };
    let above = floor + i256::ONE;
    let below = if below < lo {
        None
    } else {
        Some(below.min(hi))
    };
    let above = if above > hi {
        None
    } else {
        Some(above.max(lo))
    };
    Some(Coerced::Between {
        below: match below {
            Some(v) => Some(make(v)?),
            None => None,
        },
        above: match above {
            Some(v) => Some(make(v)?),
            None => None,
        },
    })
}

fn max_of(target: &DataType) -> Option<ArrayRef> {
    range_of(target).and_then(|(_, hi)| make_value(hi, target))
}

fn min_of(target: &DataType) -> Option<ArrayRef> {
    range_of(target).and_then(|(lo, _)| make_value(lo, target))
}

/// The smallest and largest unscaled values of an integer or decimal type.
fn range_of(target: &DataType) -> Option<(i256, i256)> {
    let ints = |lo: i128, hi: i128| Some((i256::from_i128(lo), i256::from_i128(hi)));
    match target {
        DataType::Int8 => ints(i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => ints(i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => ints(i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => ints(i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => ints(0, u8::MAX.into()),
        DataType::UInt16 => ints(0, u16::MAX.into()),
        DataType::UInt32 => ints(0, u32::MAX.into()),
        DataType::UInt64 => ints(0, u64::MAX.into()),
        DataType::Decimal32(p, _)
        | DataType::Decimal64(p, _)
        | DataType::Decimal128(p, _)
        | DataType::Decimal256(p, _) => {
            let max = pow10(u32::from(*p))? - i256::ONE;
            Some((max.wrapping_neg(), max))
        }
        _ => None,
    }
}

/// A one-element array of `target` holding the unscaled value `v` (in range).
fn make_value(v: i256, target: &DataType) -> Option<ArrayRef> {
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    let array: ArrayRef = match target {
        DataType::UInt64 => Arc::new(UInt64Array::from(vec![u64::try_from(v.as_i128()).ok()?])),
        t if t.is_integer() => Arc::new(Int64Array::from(vec![i64::try_from(v.as_i128()).ok()?])),
        DataType::Decimal256(p, s) => Arc::new(
            PrimitiveArray::<Decimal256Type>::from(vec![v])
                .with_precision_and_scale(*p, *s)
                .ok()?,
        ),
        DataType::Decimal32(_, s) | DataType::Decimal64(_, s) | DataType::Decimal128(_, s) => {
            Arc::new(
                Decimal128Array::from(vec![v.to_i128()?])
                    .with_precision_and_scale(38, *s)
                    .ok()?,
            )
        }
        _ => return None,
    };
    if array.data_type() == target {
        return Some(array);
    }
    cast_with_options(&array, target, &options).ok()
}

fn decimal_text(unscaled: i256, scale: i8) -> String {
    let negative = unscaled.is_negative();
    let digits = unscaled.wrapping_abs().to_string();
    let scale = scale.max(0) as usize;
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = digits.split_at(digits.len() - scale);
    format!("{}{whole}.{fraction}0", if negative { "-" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::types::{Date32Type, Decimal128Type, Int8Type, Int32Type};
    use arrow_schema::TimeUnit;

    fn exact(c: Coerced) -> ArrayRef {
        match c {
            Coerced::Exact(a) => a,
            other => panic!("not exact: {other:?}"),
        }
    }

    #[test]
    fn strings_to_dates_timestamps_and_decimals() {
        let d = exact(coerce(&Literal::from("1998-09-01"), &DataType::Date32, "d").unwrap());
        assert_eq!(d.as_primitive::<Date32Type>().value(0), 10_470);
        let t = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        let ts = exact(coerce(&Literal::from("2023-11-15 00:00:00"), &t, "t").unwrap());
        assert_eq!(ts.data_type(), &t);
        let dec = DataType::Decimal128(15, 2);
        let v = exact(coerce(&Literal::from("12.50"), &dec, "p").unwrap());
        assert_eq!(v.as_primitive::<Decimal128Type>().value(0), 1250);
        let e = coerce(&Literal::from("x"), &DataType::Date32, "d").unwrap_err();
        assert!(
            e.to_string().contains("not a value of column d (Date32)"),
            "{e}"
        );
    }

    #[test]
    fn inexact_numbers_have_neighbours() {
        let two_and_half = parse_number("2.5").unwrap();
        match number_to(two_and_half, &DataType::Int32).unwrap() {
            Coerced::Between {
                below: Some(b),
                above: Some(a),
            } => {
                assert_eq!(b.as_primitive::<Int32Type>().value(0), 2);
                assert_eq!(a.as_primitive::<Int32Type>().value(0), 3);
            }
            other => panic!("{other:?}"),
        }
        match number_to(parse_number("-2.5").unwrap(), &DataType::Int32).unwrap() {
            Coerced::Between {
                below: Some(b),
                above: Some(a),
            } => {
                assert_eq!(b.as_primitive::<Int32Type>().value(0), -3);
                assert_eq!(a.as_primitive::<Int32Type>().value(0), -2);
            }
            other => panic!("{other:?}"),
        }
        match number_to(parse_number("300").unwrap(), &DataType::Int8).unwrap() {
            Coerced::Between {
                below: Some(b),
                above: None,
            } => {
                assert_eq!(b.as_primitive::<Int8Type>().value(0), 127);
            }
            other => panic!("{other:?}"),
        }
        let dec = DataType::Decimal128(10, 2);
        match number_to(parse_number("1.005").unwrap(), &dec).unwrap() {
            Coerced::Between {
                below: Some(b),
                above: Some(a),
            } => {
                assert_eq!(b.as_primitive::<Decimal128Type>().value(0), 100);
                assert_eq!(a.as_primitive::<Decimal128Type>().value(0), 101);
            }
            other => panic!("{other:?}"),
        }
        let v = exact(number_to(parse_number("7").unwrap(), &dec).unwrap());
        assert_eq!(v.as_primitive::<Decimal128Type>().value(0), 700);
        let v = exact(number_to(Number::Float(2.0), &DataType::Int64).unwrap());
        assert_eq!(v.as_primitive::<Int64Type>().value(0), 2);
    }

    #[test]
    fn timestamps_finer_than_the_unit_have_neighbours() {
        let t = DataType::Timestamp(TimeUnit::Second, None);
        match coerce(&Literal::from("1970-01-01 00:00:01.5"), &t, "t").unwrap() {
            Coerced::Between {
                below: Some(b),
                above: Some(a),
            } => {
                assert_eq!(
                    b.as_primitive::<arrow_array::types::TimestampSecondType>()
                        .value(0),
                    1
                );
                assert_eq!(
                    a.as_primitive::<arrow_array::types::TimestampSecondType>()
                        .value(0),
                    2
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

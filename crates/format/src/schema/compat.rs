//! The two compatibility tables of the Parquet logical-types specification
//! (`LogicalTypes.md`): how a legacy `ConvertedType` reads as a `LogicalType`
//! (backward compatibility) and which `ConvertedType` a writer stores beside a
//! `LogicalType` (forward compatibility).

use crate::metadata::{ConvertedType, LogicalType, TimeUnit};

/// The `LogicalType` a legacy `ConvertedType` stands for (the spec's backward
/// compatibility tables).
///
/// `precision` and `scale` are the `SchemaElement` fields of the same element; they only
/// matter for `DECIMAL` (a missing scale is 0, a missing precision gives `None`).
/// `INTERVAL` has no logical type yet, and an unknown converted type value has none
/// either: both give `None`.
///
/// ```
/// use herringbone_format::metadata::{ConvertedType, LogicalType, TimeUnit};
/// use herringbone_format::schema::logical_type_from_converted;
///
/// assert_eq!(
///     logical_type_from_converted(ConvertedType::TIMESTAMP_MILLIS, None, None),
///     Some(LogicalType::Timestamp { is_adjusted_to_utc: true, unit: TimeUnit::Millis })
/// );
/// assert_eq!(
///     logical_type_from_converted(ConvertedType::DECIMAL, Some(9), Some(2)),
///     Some(LogicalType::Decimal { scale: 2, precision: 9 })
/// );
/// assert_eq!(logical_type_from_converted(ConvertedType::INTERVAL, None, None), None);
/// ```
pub fn logical_type_from_converted(
    converted: ConvertedType,
    precision: Option<i32>,
    scale: Option<i32>,
) -> Option<LogicalType> {
    let integer = |bit_width: i8, is_signed: bool| LogicalType::Integer {
        bit_width,
        is_signed,
    };
    Some(match converted {
        ConvertedType::UTF8 => LogicalType::String,
        ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE => LogicalType::Map,
        ConvertedType::LIST => LogicalType::List,
        ConvertedType::ENUM => LogicalType::Enum,
        ConvertedType::DECIMAL => LogicalType::Decimal {
            scale: scale.unwrap_or(0),
            precision: precision?,
        },
        ConvertedType::DATE => LogicalType::Date,
        ConvertedType::TIME_MILLIS => LogicalType::Time {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Millis,
        },
        ConvertedType::TIME_MICROS => LogicalType::Time {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Micros,
        },
        ConvertedType::TIMESTAMP_MILLIS => LogicalType::Timestamp {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Millis,
        },
        ConvertedType::TIMESTAMP_MICROS => LogicalType::Timestamp {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Micros,
        },
        ConvertedType::UINT_8 => integer(8, false),
        ConvertedType::UINT_16 => integer(16, false),
        ConvertedType::UINT_32 => integer(32, false),
        ConvertedType::UINT_64 => integer(64, false),
        ConvertedType::INT_8 => integer(8, true),
        ConvertedType::INT_16 => integer(16, true),
        ConvertedType::INT_32 => integer(32, true),
        ConvertedType::INT_64 => integer(64, true),
        ConvertedType::JSON => LogicalType::Json,
        ConvertedType::BSON => LogicalType::Bson,
        // INTERVAL has no LogicalType counterpart; unknown values carry no meaning.
        _ => return None,
    })
}

/// The `ConvertedType` a writer stores beside a `LogicalType` (the spec's forward
/// compatibility tables), `None` where the spec has none.
///
/// Local (`is_adjusted_to_utc = false`) times and timestamps get the legacy annotation
/// too, as the current spec requires; `NANOS` has no legacy counterpart. `UUID`,
/// `FLOAT16`, `UNKNOWN`, `VARIANT`, `GEOMETRY`, `GEOGRAPHY`, an `INTEGER` with a bit
/// width other than 8/16/32/64 and an unrecognized union member have none.
///
/// ```
/// use herringbone_format::metadata::{ConvertedType, LogicalType, TimeUnit};
/// use herringbone_format::schema::converted_type_from_logical;
///
/// let local_micros = LogicalType::Timestamp { is_adjusted_to_utc: false, unit: TimeUnit::Micros };
/// assert_eq!(converted_type_from_logical(&local_micros), Some(ConvertedType::TIMESTAMP_MICROS));
/// let nanos = LogicalType::Timestamp { is_adjusted_to_utc: true, unit: TimeUnit::Nanos };
/// assert_eq!(converted_type_from_logical(&nanos), None);
/// ```
pub fn converted_type_from_logical(logical: &LogicalType) -> Option<ConvertedType> {
    Some(match logical {
        LogicalType::String => ConvertedType::UTF8,
        LogicalType::Map => ConvertedType::MAP,
        LogicalType::List => ConvertedType::LIST,
        LogicalType::Enum => ConvertedType::ENUM,
        LogicalType::Decimal { .. } => ConvertedType::DECIMAL,
        LogicalType::Date => ConvertedType::DATE,
        LogicalType::Time { unit, .. } => match unit {
            TimeUnit::Millis => ConvertedType::TIME_MILLIS,
            TimeUnit::Micros => ConvertedType::TIME_MICROS,
            TimeUnit::Nanos => return None,
        },
        LogicalType::Timestamp { unit, .. } => match unit {
            TimeUnit::Millis => ConvertedType::TIMESTAMP_MILLIS,
            TimeUnit::Micros => ConvertedType::TIMESTAMP_MICROS,
            TimeUnit::Nanos => return None,
        },
        LogicalType::Integer {
            bit_width,
            is_signed,
        } => match (bit_width, is_signed) {
            (8, true) => ConvertedType::INT_8,
            (16, true) => ConvertedType::INT_16,
            (32, true) => ConvertedType::INT_32,
            (64, true) => ConvertedType::INT_64,
            (8, false) => ConvertedType::UINT_8,
            (16, false) => ConvertedType::UINT_16,
            (32, false) => ConvertedType::UINT_32,
            (64, false) => ConvertedType::UINT_64,
            _ => return None,
        },
        LogicalType::Json => ConvertedType::JSON,
        LogicalType::Bson => ConvertedType::BSON,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn integer(bit_width: i8, is_signed: bool) -> LogicalType {
        LogicalType::Integer {
            bit_width,
            is_signed,
        }
    }

    #[test]
    fn backward_table_every_row() {
        let utc = |unit| LogicalType::Time {
            is_adjusted_to_utc: true,
            unit,
        };
        let ts = |unit| LogicalType::Timestamp {
            is_adjusted_to_utc: true,
            unit,
        };
        let rows: Vec<(ConvertedType, Option<LogicalType>)> = vec![
            (ConvertedType::UTF8, Some(LogicalType::String)),
            (ConvertedType::MAP, Some(LogicalType::Map)),
            (ConvertedType::MAP_KEY_VALUE, Some(LogicalType::Map)),
            (ConvertedType::LIST, Some(LogicalType::List)),
            (ConvertedType::ENUM, Some(LogicalType::Enum)),
            (ConvertedType::DATE, Some(LogicalType::Date)),
            (ConvertedType::TIME_MILLIS, Some(utc(TimeUnit::Millis))),
            (ConvertedType::TIME_MICROS, Some(utc(TimeUnit::Micros))),
            (ConvertedType::TIMESTAMP_MILLIS, Some(ts(TimeUnit::Millis))),
            (ConvertedType::TIMESTAMP_MICROS, Some(ts(TimeUnit::Micros))),
            (ConvertedType::UINT_8, Some(integer(8, false))),
            (ConvertedType::UINT_16, Some(integer(16, false))),
            (ConvertedType::UINT_32, Some(integer(32, false))),
            (ConvertedType::UINT_64, Some(integer(64, false))),
            (ConvertedType::INT_8, Some(integer(8, true))),
            (ConvertedType::INT_16, Some(integer(16, true))),
            (ConvertedType::INT_32, Some(integer(32, true))),
            (ConvertedType::INT_64, Some(integer(64, true))),
            (ConvertedType::JSON, Some(LogicalType::Json)),
            (ConvertedType::BSON, Some(LogicalType::Bson)),
            (ConvertedType::INTERVAL, None),
            (ConvertedType(99), None),
            (ConvertedType(-1), None),
        ];
        for (converted, expected) in rows {
            assert_eq!(
                logical_type_from_converted(converted, None, None),
                expected,
                "{converted:?}"
            );
        }
    }

    #[test]
    fn backward_decimal_takes_element_precision_and_scale() {
        assert_eq!(
            logical_type_from_converted(ConvertedType::DECIMAL, Some(25), Some(2)),
            Some(LogicalType::Decimal {
                scale: 2,
                precision: 25
            })
        );
        // Scale defaults to 0; precision is required.
        assert_eq!(
            logical_type_from_converted(ConvertedType::DECIMAL, Some(5), None),
            Some(LogicalType::Decimal {
                scale: 0,
                precision: 5
            })
        );
        assert_eq!(
            logical_type_from_converted(ConvertedType::DECIMAL, None, Some(2)),
            None
        );
    }

    #[test]
    fn forward_table_every_row() {
        let time = |is_adjusted_to_utc, unit| LogicalType::Time {
            is_adjusted_to_utc,
            unit,
        };
        let ts = |is_adjusted_to_utc, unit| LogicalType::Timestamp {
            is_adjusted_to_utc,
            unit,
        };
        let rows: Vec<(LogicalType, Option<ConvertedType>)> = vec![
            (LogicalType::String, Some(ConvertedType::UTF8)),
            (LogicalType::Map, Some(ConvertedType::MAP)),
            (LogicalType::List, Some(ConvertedType::LIST)),
            (LogicalType::Enum, Some(ConvertedType::ENUM)),
            (
                LogicalType::Decimal {
                    scale: 2,
                    precision: 9,
                },
                Some(ConvertedType::DECIMAL),
            ),
            (LogicalType::Date, Some(ConvertedType::DATE)),
            (
                time(true, TimeUnit::Millis),
                Some(ConvertedType::TIME_MILLIS),
            ),
            (
                time(true, TimeUnit::Micros),
                Some(ConvertedType::TIME_MICROS),
            ),
            (time(true, TimeUnit::Nanos), None),
            (
                time(false, TimeUnit::Millis),
                Some(ConvertedType::TIME_MILLIS),
            ),
            (
                time(false, TimeUnit::Micros),
                Some(ConvertedType::TIME_MICROS),
            ),
            (time(false, TimeUnit::Nanos), None),
            (
                ts(true, TimeUnit::Millis),
                Some(ConvertedType::TIMESTAMP_MILLIS),
            ),
            (
                ts(true, TimeUnit::Micros),
                Some(ConvertedType::TIMESTAMP_MICROS),
            ),
            (ts(true, TimeUnit::Nanos), None),
            (
                ts(false, TimeUnit::Millis),
                Some(ConvertedType::TIMESTAMP_MILLIS),
            ),
            (
                ts(false, TimeUnit::Micros),
                Some(ConvertedType::TIMESTAMP_MICROS),
            ),
            (ts(false, TimeUnit::Nanos), None),
            (integer(8, true), Some(ConvertedType::INT_8)),
            (integer(16, true), Some(ConvertedType::INT_16)),
            (integer(32, true), Some(ConvertedType::INT_32)),
            (integer(64, true), Some(ConvertedType::INT_64)),
            (integer(8, false), Some(ConvertedType::UINT_8)),
            (integer(16, false), Some(ConvertedType::UINT_16)),
            (integer(32, false), Some(ConvertedType::UINT_32)),
            (integer(64, false), Some(ConvertedType::UINT_64)),
            (integer(7, true), None),
            (LogicalType::Json, Some(ConvertedType::JSON)),
            (LogicalType::Bson, Some(ConvertedType::BSON)),
            (LogicalType::Unknown, None),
            (LogicalType::Uuid, None),
            (LogicalType::Float16, None),
            (
                LogicalType::Variant {
                    specification_version: Some(1),
                },
                None,
            ),
            (LogicalType::Geometry { crs: None }, None),
            (
                LogicalType::Geography {
                    crs: None,
                    algorithm: None,
                },
                None,
            ),
            (
                LogicalType::Unrecognized {
                    field_id: 99,
                    raw: bytes::Bytes::new(),
                },
                None,
            ),
        ];
        for (logical, expected) in rows {
            assert_eq!(
                converted_type_from_logical(&logical),
                expected,
                "{logical:?}"
            );
        }
    }

    #[test]
    fn tables_agree_where_both_directions_exist() {
        // Every converted type with a logical counterpart maps back to itself, except
        // MAP_KEY_VALUE, which the spec folds into MAP.
        for value in 0..=21 {
            let converted = ConvertedType(value);
            if let Some(logical) = logical_type_from_converted(converted, Some(10), Some(2)) {
                let back = converted_type_from_logical(&logical);
                if converted == ConvertedType::MAP_KEY_VALUE {
                    assert_eq!(back, Some(ConvertedType::MAP));
                } else {
                    assert_eq!(back, Some(converted), "{converted:?}");
                }
            }
        }
    }
}

//! The canonical JSON form of Arrow values used by the pyarrow oracles
//! (`parquet-testing-expected/FORMAT.md`), and the comparison of decoded batches with an
//! oracle.
//!
//! The rules depend only on the Arrow type *family*: a reader that returns `Utf8View`
//! instead of `Utf8`, `LargeList` instead of `List` or a dictionary instead of plain values
//! renders the same JSON, so a conformance test compares values, not type choices (those
//! are compared separately, through [`pyarrow_type_string`]).
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int64Array};
//! use herringbone_testkit::canonical::{canonical_json, column_checksum};
//!
//! let column: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(i64::MAX)]));
//! assert_eq!(canonical_json(column.as_ref(), 0), "1");
//! assert_eq!(canonical_json(column.as_ref(), 1), "null");
//! assert_eq!(canonical_json(column.as_ref(), 2), "\"9223372036854775807\"");
//! assert_eq!(column_checksum(&[column]).len(), 64);
//! ```

use std::fmt::Write as _;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type,
    Decimal256Type, DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType,
    DurationSecondType, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, IntervalDayTimeType, IntervalMonthDayNanoType, IntervalYearMonthType,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, OffsetSizeTrait, RecordBatch};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{DataType, Field, IntervalUnit, Schema, TimeUnit};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Largest magnitude an integer may have to be written as a JSON number (2^53); beyond
/// it a JSON reader using doubles would lose digits, so the value is written as a string.
const MAX_EXACT_JSON_INTEGER: i128 = 1 << 53;

/// Field metadata key naming an Arrow extension type.
const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";

/// The canonical JSON value of row `row` of `array` (FORMAT.md, "Canonical value
/// encoding"). A null slot at any level is `null`.
///
/// # Panics
/// When `row` is out of bounds, or for an Arrow type the canonical form does not define
/// (none of the types a Parquet reader produces).
pub fn canonical_value(array: &dyn Array, row: usize) -> Value {
    assert!(
        row < array.len(),
        "row {row} out of bounds for an array of length {}",
        array.len()
    );
    if array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => integer(primitive::<Int8Type>(array, row)),
        DataType::Int16 => integer(primitive::<Int16Type>(array, row)),
        DataType::Int32 => integer(primitive::<Int32Type>(array, row)),
        DataType::Int64 => integer(primitive::<Int64Type>(array, row)),
        DataType::UInt8 => integer(primitive::<UInt8Type>(array, row)),
        DataType::UInt16 => integer(primitive::<UInt16Type>(array, row)),
        DataType::UInt32 => integer(primitive::<UInt32Type>(array, row)),
        DataType::UInt64 => integer(primitive::<UInt64Type>(array, row)),
        DataType::Float16 => Value::String(canonical_float(
            primitive::<Float16Type>(array, row).to_f64(),
        )),
        DataType::Float32 => Value::String(canonical_float(f64::from(primitive::<Float32Type>(
            array, row,
        )))),
        DataType::Float64 => Value::String(canonical_float(primitive::<Float64Type>(array, row))),
        DataType::Decimal32(_, scale) => Value::String(decimal_text(
            &primitive::<Decimal32Type>(array, row).to_string(),
            *scale,
        )),
        DataType::Decimal64(_, scale) => Value::String(decimal_text(
            &primitive::<Decimal64Type>(array, row).to_string(),
            *scale,
        )),
        DataType::Decimal128(_, scale) => Value::String(decimal_text(
            &primitive::<Decimal128Type>(array, row).to_string(),
            *scale,
        )),
        DataType::Decimal256(_, scale) => Value::String(decimal_text(
            &primitive::<Decimal256Type>(array, row).to_string(),
            *scale,
        )),
        DataType::Utf8 => string_value(offset_bytes(array.as_string::<i32>(), row)),
        DataType::LargeUtf8 => string_value(offset_bytes(array.as_string::<i64>(), row)),
        DataType::Utf8View => {
            let view = array.as_string_view();
            string_value(&view_bytes(view.views(), view.data_buffers(), row))
        }
        DataType::Binary => hex_value(offset_bytes(array.as_binary::<i32>(), row)),
        DataType::LargeBinary => hex_value(offset_bytes(array.as_binary::<i64>(), row)),
        DataType::BinaryView => {
            let view = array.as_binary_view();
            hex_value(&view_bytes(view.views(), view.data_buffers(), row))
        }
        DataType::FixedSizeBinary(_) => hex_value(array.as_fixed_size_binary().value(row)),
        DataType::Date32 => temporal(primitive::<Date32Type>(array, row), "day"),
        DataType::Date64 => temporal(primitive::<Date64Type>(array, row), "ms"),
        DataType::Time32(TimeUnit::Second) => {
            temporal(primitive::<Time32SecondType>(array, row), "s")
        }
        DataType::Time32(TimeUnit::Millisecond) => {
            temporal(primitive::<Time32MillisecondType>(array, row), "ms")
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            temporal(primitive::<Time64MicrosecondType>(array, row), "us")
        }
        DataType::Time64(TimeUnit::Nanosecond) => {
            temporal(primitive::<Time64NanosecondType>(array, row), "ns")
        }
        DataType::Timestamp(unit, _) => {
            let v = match unit {
                TimeUnit::Second => primitive::<TimestampSecondType>(array, row),
                TimeUnit::Millisecond => primitive::<TimestampMillisecondType>(array, row),
                TimeUnit::Microsecond => primitive::<TimestampMicrosecondType>(array, row),
                TimeUnit::Nanosecond => primitive::<TimestampNanosecondType>(array, row),
            };
            temporal(v, unit_name(unit))
        }
        DataType::Duration(unit) => {
            let v = match unit {
                TimeUnit::Second => primitive::<DurationSecondType>(array, row),
                TimeUnit::Millisecond => primitive::<DurationMillisecondType>(array, row),
                TimeUnit::Microsecond => primitive::<DurationMicrosecondType>(array, row),
                TimeUnit::Nanosecond => primitive::<DurationNanosecondType>(array, row),
            };
            temporal(v, unit_name(unit))
        }
        // FORMAT.md defines month-day-nano; the two narrower interval types are written in
        // the same shape so that every interval family renders alike.
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            let v = primitive::<IntervalMonthDayNanoType>(array, row);
            interval(v.months.into(), v.days.into(), v.nanoseconds.into())
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            interval(primitive::<IntervalYearMonthType>(array, row).into(), 0, 0)
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            let v = primitive::<IntervalDayTimeType>(array, row);
            interval(0, v.days.into(), i128::from(v.milliseconds) * 1_000_000)
        }
        DataType::List(_) => list_value(array.as_list::<i32>(), row),
        DataType::LargeList(_) => list_value(array.as_list::<i64>(), row),
        DataType::ListView(_) => list_view_value(array.as_list_view::<i32>(), row),
        DataType::LargeListView(_) => list_view_value(array.as_list_view::<i64>(), row),
        DataType::FixedSizeList(_, _) => {
            let list = array.as_fixed_size_list();
            let start = list.value_offset(row) as usize;
            let len = list.value_length() as usize;
            elements(list.values().as_ref(), start, start + len)
        }
        DataType::Struct(fields) => {
            let structs = array.as_struct();
            let mut object = Map::with_capacity(fields.len());
            for (field, column) in fields.iter().zip(structs.columns()) {
                object.insert(field.name().clone(), canonical_value(column.as_ref(), row));
            }
            Value::Object(object)
        }
        DataType::Map(_, _) => {
            let map = array.as_map();
            let offsets = map.value_offsets();
            let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
            let (keys, values) = (map.keys(), map.values());
            Value::Array(
                (start..end)
                    .map(|i| {
                        Value::Array(vec![
                            canonical_value(keys.as_ref(), i),
                            canonical_value(values.as_ref(), i),
                        ])
                    })
                    .collect(),
            )
        }
        DataType::Dictionary(_, _) => {
            let dictionary = array.as_any_dictionary();
            let key = integer_at(dictionary.keys(), row);
            let index = usize::try_from(key).unwrap_or_else(|_| {
                panic!("dictionary key {key} at row {row} is not a valid index")
            });
            canonical_value(dictionary.values().as_ref(), index)
        }
        DataType::RunEndEncoded(run_ends, _) => {
            let (index, values) = match run_ends.data_type() {
                DataType::Int16 => {
                    let runs = array.as_run::<Int16Type>();
                    (runs.get_physical_index(row), runs.values())
                }
                DataType::Int32 => {
                    let runs = array.as_run::<Int32Type>();
                    (runs.get_physical_index(row), runs.values())
                }
                DataType::Int64 => {
                    let runs = array.as_run::<Int64Type>();
                    (runs.get_physical_index(row), runs.values())
                }
                other => panic!("run-end type {other} is not defined by Arrow"),
            };
            canonical_value(values.as_ref(), index)
        }
        DataType::Union(_, _) => {
            // A union value is the value of the child it selects (what pyarrow's
            // `to_pylist` gives).
            let union = array.as_union();
            let child = union.child(union.type_id(row));
            canonical_value(child.as_ref(), union.value_offset(row))
        }
        other => panic!("no canonical JSON form for Arrow type {other}"),
    }
}

/// The compact canonical JSON text of one value (what the column checksum hashes).
pub fn canonical_json(array: &dyn Array, row: usize) -> String {
    to_compact_json(&canonical_value(array, row))
}

/// Compact JSON text exactly as FORMAT.md specifies ("Column checksum"): no whitespace,
/// object keys in insertion order, `\"`, `\\`, `\b \t \n \f \r`, other control characters
/// as `\u00xx` with lowercase hex digits, everything else as raw UTF-8.
pub fn to_compact_json(value: &Value) -> String {
    let mut out = String::new();
    write_compact_json(value, &mut out);
    out
}

fn write_compact_json(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact_json(item, out);
            }
            out.push(']');
        }
        Value::Object(object) => {
            out.push('{');
            for (i, (key, item)) in object.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                write_compact_json(item, out);
            }
            out.push('}');
        }
    }
}

fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Canonical text of a float widened to f64: Python's `repr(float)` (shortest digits that
/// round-trip, ties to the even digit), `"NaN"`, `"inf"`, `"-inf"`.
///
/// ```
/// use herringbone_testkit::canonical::canonical_float;
/// assert_eq!(canonical_float(1e16), "1e+16");
/// assert_eq!(canonical_float(0.0001), "0.0001");
/// assert_eq!(canonical_float(f64::from(1.1f32)), "1.100000023841858");
/// ```
pub fn canonical_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // ryu gives the shortest round-tripping digits with ties broken to even, like
    // Python; only the layout differs, so take its digits and exponent apart.
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(x);
    let (sign, unsigned) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().expect("ryu writes a decimal exponent")),
        None => (unsigned, 0),
    };
    let (integer_digits, fraction_digits) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // value = 0.DIGITS * 10^point_position
    let mut point_position = exponent + integer_digits.len() as i32;
    let all_digits: Vec<u8> = integer_digits
        .bytes()
        .chain(fraction_digits.bytes())
        .collect();
    let leading_zeros = all_digits.iter().take_while(|&&d| d == b'0').count();
    point_position -= leading_zeros as i32;
    let significant = &all_digits[leading_zeros..];
    let trailing_zeros = significant.iter().rev().take_while(|&&d| d == b'0').count();
    let digits = std::str::from_utf8(&significant[..significant.len() - trailing_zeros])
        .expect("ryu writes ASCII digits");
    if digits.is_empty() {
        return format!("{sign}0.0");
    }
    // value = d1.d2d3... * 10^scientific_exponent
    let scientific_exponent = point_position - 1;
    let mut out = String::from(sign);
    if (-4..16).contains(&scientific_exponent) {
        if point_position <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point_position) as usize));
            out.push_str(digits);
        } else {
            let integer_len = point_position as usize;
            if digits.len() > integer_len {
                out.push_str(&digits[..integer_len]);
                out.push('.');
                out.push_str(&digits[integer_len..]);
            } else {
                out.push_str(digits);
                out.extend(std::iter::repeat_n('0', integer_len - digits.len()));
                out.push_str(".0");
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let exponent_sign = if scientific_exponent < 0 { '-' } else { '+' };
        let _ = write!(
            out,
            "e{exponent_sign}{:02}",
            scientific_exponent.unsigned_abs()
        );
    }
    out
}

/// The exact decimal text of `unscaled * 10^-scale`, given the unscaled integer's decimal
/// digits (with an optional leading `-`): exactly `scale` digits after the point, integer
/// digits only when `scale <= 0`.
///
/// ```
/// use herringbone_testkit::canonical::decimal_text;
/// assert_eq!(decimal_text("100", 2), "1.00");
/// assert_eq!(decimal_text("-5", 2), "-0.05");
/// assert_eq!(decimal_text("12", -3), "12000");
/// ```
pub fn decimal_text(unscaled: &str, scale: i8) -> String {
    let (sign, digits) = match unscaled.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", unscaled),
    };
    if scale <= 0 {
        if digits.bytes().all(|d| d == b'0') {
            return "0".to_string();
        }
        let zeros = usize::from(scale.unsigned_abs());
        return format!("{sign}{digits}{}", "0".repeat(zeros));
    }
    let scale = usize::from(scale.unsigned_abs());
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
    } else {
        digits.to_string()
    };
    let (integer_part, fraction_part) = padded.split_at(padded.len() - scale);
    format!("{sign}{integer_part}.{fraction_part}")
}

fn primitive<T: ArrowPrimitiveType>(array: &dyn Array, row: usize) -> T::Native {
    array.as_primitive::<T>().value(row)
}

fn integer(v: impl Into<i128>) -> Value {
    let v: i128 = v.into();
    if (-MAX_EXACT_JSON_INTEGER..=MAX_EXACT_JSON_INTEGER).contains(&v) {
        // In range, so it fits i64 exactly.
        Value::from(v as i64)
    } else {
        Value::String(v.to_string())
    }
}

fn temporal(v: impl Into<i128>, unit: &str) -> Value {
    let mut object = Map::with_capacity(2);
    object.insert("v".to_string(), integer(v));
    object.insert("unit".to_string(), Value::String(unit.to_string()));
    Value::Object(object)
}

fn interval(months: i128, days: i128, nanos: i128) -> Value {
    let mut object = Map::with_capacity(3);
    object.insert("months".to_string(), integer(months));
    object.insert("days".to_string(), integer(days));
    object.insert("nanos".to_string(), integer(nanos));
    Value::Object(object)
}

fn unit_name(unit: &TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

fn hex_value(bytes: &[u8]) -> Value {
    let mut object = Map::with_capacity(1);
    object.insert("hex".to_string(), Value::String(lower_hex(bytes)));
    Value::Object(object)
}

fn lower_hex(bytes: &[u8]) -> String {
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// Strings are read as bytes and validated here so that a reader that produced invalid
/// UTF-8 (through an unchecked constructor) is reported rather than trusted.
fn string_value(bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(s) => Value::String(s.to_string()),
        Err(_) => {
            let mut object = Map::with_capacity(1);
            object.insert(
                "invalid_utf8_hex".to_string(),
                Value::String(lower_hex(bytes)),
            );
            Value::Object(object)
        }
    }
}

fn offset_bytes<T: arrow_array::types::ByteArrayType>(
    array: &arrow_array::GenericByteArray<T>,
    row: usize,
) -> &[u8] {
    let offsets = array.value_offsets();
    let start = offsets[row].as_usize();
    let end = offsets[row + 1].as_usize();
    &array.value_data()[start..end]
}

/// Bytes of the view at `row` (Arrow columnar format, "Variable-size Binary View
/// Layout"): the length is the low 32 bits; up to 12 bytes are stored inline after it,
/// longer values give a buffer index and an offset.
fn view_bytes<'a>(
    views: &'a arrow_buffer::ScalarBuffer<u128>,
    buffers: &'a [arrow_buffer::Buffer],
    row: usize,
) -> std::borrow::Cow<'a, [u8]> {
    let view = views[row];
    let len = view as u32 as usize;
    if len <= 12 {
        return std::borrow::Cow::Owned(view.to_le_bytes()[4..4 + len].to_vec());
    }
    let buffer_index = (view >> 64) as u32 as usize;
    let offset = (view >> 96) as u32 as usize;
    std::borrow::Cow::Borrowed(&buffers[buffer_index][offset..offset + len])
}

fn list_value<O: OffsetSizeTrait>(list: &arrow_array::GenericListArray<O>, row: usize) -> Value {
    let offsets = list.value_offsets();
    elements(
        list.values().as_ref(),
        offsets[row].as_usize(),
        offsets[row + 1].as_usize(),
    )
}

fn list_view_value<O: OffsetSizeTrait>(
    list: &arrow_array::GenericListViewArray<O>,
    row: usize,
) -> Value {
    let start = list.value_offsets()[row].as_usize();
    let size = list.value_sizes()[row].as_usize();
    elements(list.values().as_ref(), start, start + size)
}

fn elements(values: &dyn Array, start: usize, end: usize) -> Value {
    Value::Array((start..end).map(|i| canonical_value(values, i)).collect())
}

/// The integer at `row` of an integer array (dictionary keys).
fn integer_at(array: &dyn Array, row: usize) -> i128 {
    match array.data_type() {
        DataType::Int8 => primitive::<Int8Type>(array, row).into(),
        DataType::Int16 => primitive::<Int16Type>(array, row).into(),
        DataType::Int32 => primitive::<Int32Type>(array, row).into(),
        DataType::Int64 => primitive::<Int64Type>(array, row).into(),
        DataType::UInt8 => primitive::<UInt8Type>(array, row).into(),
        DataType::UInt16 => primitive::<UInt16Type>(array, row).into(),
        DataType::UInt32 => primitive::<UInt32Type>(array, row).into(),
        DataType::UInt64 => primitive::<UInt64Type>(array, row).into(),
        other => panic!("dictionary keys of type {other} are not integers"),
    }
}

/// SHA-256 (64 lowercase hex digits) over `compact_json + "\n"` of every row of one
/// top-level column, given as its chunks in file order (one per batch).
pub fn column_checksum(chunks: &[ArrayRef]) -> String {
    let mut hasher = Sha256::new();
    let mut line = String::new();
    for chunk in chunks {
        for row in 0..chunk.len() {
            line.clear();
            write_compact_json(&canonical_value(chunk.as_ref(), row), &mut line);
            line.push('\n');
            hasher.update(line.as_bytes());
        }
    }
    lower_hex(&hasher.finalize())
}

/// The checksum of every top-level column of `batches` (which must share one schema),
/// in schema order.
pub fn batch_checksums(batches: &[RecordBatch]) -> Vec<String> {
    let Some(first) = batches.first() else {
        return Vec::new();
    };
    (0..first.num_columns())
        .map(|i| column_checksum(&column_chunks(batches, i)))
        .collect()
}

fn column_chunks(batches: &[RecordBatch], index: usize) -> Vec<ArrayRef> {
    batches.iter().map(|b| b.column(index).clone()).collect()
}

/// Every row of `batches` as a JSON object `{column name: canonical value}` in schema
/// order.
pub fn rows_json(batches: &[RecordBatch]) -> Vec<Value> {
    let mut rows = Vec::new();
    for batch in batches {
        let schema = batch.schema();
        for row in 0..batch.num_rows() {
            let mut object = Map::with_capacity(batch.num_columns());
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                object.insert(field.name().clone(), canonical_value(column.as_ref(), row));
            }
            rows.push(Value::Object(object));
        }
    }
    rows
}

/// Nulls at the top level of a column as pyarrow counts them (`Array.null_count`): every
/// slot of a Null-typed column, otherwise the validity bitmap's nulls.
pub fn top_level_null_count(array: &dyn Array) -> usize {
    if array.data_type() == &DataType::Null {
        array.len()
    } else {
        array.null_count()
    }
}

/// What [`compare_with_oracle`] found beyond the values (which matched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleMatch {
    /// Rows compared through the checksums.
    pub rows: usize,
    /// Top-level columns whose pyarrow type string differs from ours:
    /// `(column, ours, pyarrow's)`. The values matched anyway (FORMAT.md renders a type
    /// family alike), so these are type-mapping choices to review, not failures.
    pub type_differences: Vec<(String, String, String)>,
}

/// Compares decoded batches with the pyarrow oracle of corpus file `relative` (path
/// relative to the corpus root, e.g. `data/alltypes_plain.parquet`): top-level field
/// names, row count, top-level null counts, every column checksum, and the stored rows.
///
/// `schema` is the schema the reader reports (its field names and types are checked even
/// when there are no batches). On a mismatch the error names the first mismatching row and
/// column with both values, and lists the column types side by side.
pub fn compare_with_oracle(
    relative: impl AsRef<Path>,
    schema: &Schema,
    batches: &[RecordBatch],
) -> Result<OracleMatch, String> {
    let relative = relative.as_ref();
    let oracle =
        crate::oracle(relative).ok_or_else(|| format!("no oracle for {}", relative.display()))?;
    if oracle["readable_by_pyarrow"] != Value::Bool(true) {
        return Err(format!(
            "{}: pyarrow could not read this file ({}), there is nothing to compare with",
            relative.display(),
            oracle["error"]
        ));
    }
    let expected_rows = oracle["rows_total_decoded"].as_u64();
    compare_with_reference(relative, "pyarrow", &oracle, expected_rows, schema, batches)
}

/// Like [`compare_with_oracle`], against the oracle's DuckDB second opinion
/// (`duckdb_fallback`), recorded for the files pyarrow cannot read (e.g.
/// `data/incorrect_map_schema.parquet`, whose map keys are wrongly optional).
pub fn compare_with_duckdb_fallback(
    relative: impl AsRef<Path>,
    schema: &Schema,
    batches: &[RecordBatch],
) -> Result<OracleMatch, String> {
    let relative = relative.as_ref();
    let oracle =
        crate::oracle(relative).ok_or_else(|| format!("no oracle for {}", relative.display()))?;
    let duckdb = &oracle["duckdb_fallback"];
    if duckdb["readable_by_duckdb"] != Value::Bool(true) {
        return Err(format!(
            "{}: no DuckDB reading recorded for this file",
            relative.display()
        ));
    }
    let expected_rows = duckdb["num_rows"].as_u64();
    compare_with_reference(relative, "duckdb", duckdb, expected_rows, schema, batches)
}

/// Compares with one recorded reading (`columns`, `rows`) made by `reference`.
fn compare_with_reference(
    relative: &Path,
    reference: &str,
    oracle: &Value,
    expected_rows: Option<u64>,
    schema: &Schema,
    batches: &[RecordBatch],
) -> Result<OracleMatch, String> {
    let expected_columns = oracle["columns"]
        .as_array()
        .ok_or("oracle has no `columns` array")?;
    for (i, batch) in batches.iter().enumerate() {
        if batch.num_columns() != schema.fields().len() {
            return Err(format!(
                "batch {i} has {} columns, the schema {}",
                batch.num_columns(),
                schema.fields().len()
            ));
        }
    }

    let types = side_by_side_types(schema, expected_columns);
    let fail = |what: String| {
        Err(format!(
            "{}: {what}\ncolumn types (ours | {reference}):\n{types}",
            relative.display()
        ))
    };

    let ours: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let theirs: Vec<&str> = expected_columns
        .iter()
        .map(|c| c["name"].as_str().unwrap_or("?"))
        .collect();
    if ours != theirs {
        return fail(format!(
            "top-level fields differ: ours {ours:?}, {reference} {theirs:?}"
        ));
    }

    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let expected_rows = expected_rows.unwrap_or(u64::MAX);
    if rows as u64 != expected_rows {
        return fail(format!(
            "{rows} rows decoded, {reference} decoded {expected_rows}"
        ));
    }

    // Stored rows first: a mismatch there gives the most readable report.
    let stored = oracle["rows"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    if let Some(diff) = first_row_difference(reference, schema, batches, stored) {
        return fail(diff);
    }

    let mut problems = Vec::new();
    for (index, expected) in expected_columns.iter().enumerate() {
        let name = ours[index];
        let chunks = column_chunks(batches, index);
        let nulls: usize = chunks
            .iter()
            .map(|c| top_level_null_count(c.as_ref()))
            .sum();
        if Some(nulls as u64) != expected["null_count"].as_u64() {
            problems.push(format!(
                "column {name}: {nulls} top-level nulls, {reference} {}",
                expected["null_count"]
            ));
        }
        let checksum = column_checksum(&chunks);
        if Some(checksum.as_str()) != expected["checksum"].as_str() {
            problems.push(format!(
                "column {name}: checksum {checksum}, {reference} {} (the stored rows agree: \
                 the difference is beyond row {})",
                expected["checksum"],
                stored.len()
            ));
        }
    }
    if !problems.is_empty() {
        return fail(problems.join("\n"));
    }

    let type_differences = schema
        .fields()
        .iter()
        .zip(expected_columns)
        .filter_map(|(field, expected)| {
            let ours = pyarrow_field_type_string(field);
            let theirs = expected["arrow_type"].as_str().unwrap_or("?");
            (ours != theirs).then(|| (field.name().clone(), ours, theirs.to_string()))
        })
        .collect();
    Ok(OracleMatch {
        rows,
        type_differences,
    })
}

fn side_by_side_types(schema: &Schema, expected_columns: &[Value]) -> String {
    let mut text = String::new();
    let count = schema.fields().len().max(expected_columns.len());
    for i in 0..count {
        let (name, ours) = schema
            .fields()
            .get(i)
            .map(|f| (f.name().as_str(), pyarrow_field_type_string(f)))
            .unwrap_or(("-", "-".to_string()));
        let theirs = expected_columns
            .get(i)
            .and_then(|c| c["arrow_type"].as_str())
            .unwrap_or("-");
        let mark = if ours == theirs { " " } else { "≠" };
        let _ = writeln!(text, "  {mark} {name}: {ours} | {theirs}");
    }
    text
}

fn first_row_difference(
    reference: &str,
    schema: &Schema,
    batches: &[RecordBatch],
    stored: &[Value],
) -> Option<String> {
    let mut row = 0;
    for batch in batches {
        for batch_row in 0..batch.num_rows() {
            let expected = stored.get(row)?;
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                let ours = canonical_value(column.as_ref(), batch_row);
                let theirs = expected.get(field.name()).unwrap_or(&Value::Null);
                if &ours != theirs {
                    return Some(format!(
                        "row {row}, column {}:\n  ours:    {}\n  {reference}: {}",
                        field.name(),
                        to_compact_json(&ours),
                        to_compact_json(theirs)
                    ));
                }
            }
            row += 1;
        }
    }
    None
}

/// The string pyarrow prints for the type of `field` (`str(field.type)`), with the
/// canonical extension types pyarrow knows shown as `extension<name>`.
pub fn pyarrow_field_type_string(field: &Field) -> String {
    match field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str) {
        Some(
            name @ ("arrow.uuid"
            | "arrow.json"
            | "arrow.bool8"
            | "arrow.opaque"
            | "arrow.fixed_shape_tensor"
            | "arrow.variable_shape_tensor"),
        ) => format!("extension<{name}>"),
        _ => pyarrow_type_string(field.data_type()),
    }
}

/// The string pyarrow prints for an Arrow type (`str(pa.DataType)`): `int32`, `string`,
/// `timestamp[ms, tz=UTC]`, `list<element: int64 not null>`, `map<string, int32>`,
/// `decimal128(25, 2)`, `dictionary<values=string, indices=int32, ordered=0>`, ...
///
/// ```
/// use arrow_schema::{DataType, Field, TimeUnit};
/// use herringbone_testkit::canonical::pyarrow_type_string;
/// let list = DataType::List(Field::new("element", DataType::Int64, false).into());
/// assert_eq!(pyarrow_type_string(&list), "list<element: int64 not null>");
/// let ts = DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
/// assert_eq!(pyarrow_type_string(&ts), "timestamp[ms, tz=UTC]");
/// ```
pub fn pyarrow_type_string(data_type: &DataType) -> String {
    let child = |field: &Field| {
        let mut text = format!("{}: {}", field.name(), pyarrow_field_type_string(field));
        if !field.is_nullable() {
            text.push_str(" not null");
        }
        text
    };
    match data_type {
        DataType::Null => "null".into(),
        DataType::Boolean => "bool".into(),
        DataType::Int8 => "int8".into(),
        DataType::Int16 => "int16".into(),
        DataType::Int32 => "int32".into(),
        DataType::Int64 => "int64".into(),
        DataType::UInt8 => "uint8".into(),
        DataType::UInt16 => "uint16".into(),
        DataType::UInt32 => "uint32".into(),
        DataType::UInt64 => "uint64".into(),
        DataType::Float16 => "halffloat".into(),
        DataType::Float32 => "float".into(),
        DataType::Float64 => "double".into(),
        DataType::Utf8 => "string".into(),
        DataType::LargeUtf8 => "large_string".into(),
        DataType::Utf8View => "string_view".into(),
        DataType::Binary => "binary".into(),
        DataType::LargeBinary => "large_binary".into(),
        DataType::BinaryView => "binary_view".into(),
        DataType::FixedSizeBinary(n) => format!("fixed_size_binary[{n}]"),
        DataType::Decimal32(p, s) => format!("decimal32({p}, {s})"),
        DataType::Decimal64(p, s) => format!("decimal64({p}, {s})"),
        DataType::Decimal128(p, s) => format!("decimal128({p}, {s})"),
        DataType::Decimal256(p, s) => format!("decimal256({p}, {s})"),
        DataType::Date32 => "date32[day]".into(),
        DataType::Date64 => "date64[ms]".into(),
        DataType::Time32(unit) => format!("time32[{}]", unit_name(unit)),
        DataType::Time64(unit) => format!("time64[{}]", unit_name(unit)),
        DataType::Timestamp(unit, None) => format!("timestamp[{}]", unit_name(unit)),
        DataType::Timestamp(unit, Some(tz)) => {
            format!("timestamp[{}, tz={tz}]", unit_name(unit))
        }
        DataType::Duration(unit) => format!("duration[{}]", unit_name(unit)),
        DataType::Interval(IntervalUnit::MonthDayNano) => "month_day_nano_interval".into(),
        DataType::Interval(IntervalUnit::YearMonth) => "month_interval".into(),
        DataType::Interval(IntervalUnit::DayTime) => "day_time_interval".into(),
        DataType::List(f) => format!("list<{}>", child(f)),
        DataType::LargeList(f) => format!("large_list<{}>", child(f)),
        DataType::ListView(f) => format!("list_view<{}>", child(f)),
        DataType::LargeListView(f) => format!("large_list_view<{}>", child(f)),
        DataType::FixedSizeList(f, n) => format!("fixed_size_list<{}>[{n}]", child(f)),
        DataType::Struct(fields) => {
            let children: Vec<String> = fields.iter().map(|f| child(f)).collect();
            format!("struct<{}>", children.join(", "))
        }
        DataType::Map(entries, sorted) => {
            // Arrow C++ prints a map's key and item types, and a field name only where it
            // is not the standard one (`key`, `value`, `entries`).
            let named = |field: &Field, standard: &str| {
                let mut text = pyarrow_field_type_string(field);
                if field.name() != standard {
                    let _ = write!(text, " ('{}')", field.name());
                }
                text
            };
            let (key, item) = match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => {
                    (named(&kv[0], "key"), named(&kv[1], "value"))
                }
                other => (pyarrow_type_string(other), String::new()),
            };
            let mut text = format!("map<{key}, {item}");
            if *sorted {
                text.push_str(", keys_sorted");
            }
            if entries.name() != "entries" {
                let _ = write!(text, " ('{}')", entries.name());
            }
            text.push('>');
            text
        }
        DataType::Dictionary(key, value) => format!(
            "dictionary<values={}, indices={}, ordered=0>",
            pyarrow_type_string(value),
            pyarrow_type_string(key)
        ),
        DataType::RunEndEncoded(run_ends, values) => format!(
            "run_end_encoded<run_ends: {}, values: {}>",
            pyarrow_type_string(run_ends.data_type()),
            pyarrow_type_string(values.data_type())
        ),
        other => format!("{other}"),
    }
}

//! How `hb` prints values, for every Arrow type the reader returns: as JSON (`hb cat
//! --format jsonl`, and nested values everywhere) and as text (table cells, CSV fields).
//!
//! | Arrow type | JSON | text |
//! | --- | --- | --- |
//! | integers, booleans | number, `true` / `false` | the same |
//! | floats | number; NaN and infinities as `"NaN"`, `"Infinity"`, `"-Infinity"` | `NaN`, `inf`, `-inf` |
//! | decimals | exact number (`12.30`) | the same |
//! | strings | string | the string |
//! | binaries | lowercase hex string | the bytes as text when they are valid UTF-8 without control characters (tab aside), else hex |
//! | dates, times, timestamps, durations, intervals | string in Arrow's display form (`2024-01-01T00:00:00+09:00`, `PT1S`, `1 mons 2 days`) | the same, unquoted |
//! | lists (all kinds), structs | array, object | their JSON |
//! | maps | object, keys as text (`{"1":true}`), in stored order | its JSON |
//! | dictionaries | the value | the value |
//! | Variant (unshredded `metadata` + `value`) | the Variant's JSON | the same |
//! | strings marked `arrow.json` | embedded as JSON | the text |
//!
//! Shredded Variant columns (and Variants nested in structs, lists and maps) are first
//! turned into their JSON text by [`variants_as_json`] (the library's Variant kernel),
//! then print as `arrow.json` strings; an unshredded one left as it is prints through
//! the codec's Variant JSON rendering, to the same text.
//!
//! A timestamp outside the calendar Arrow can print (an INT96 year 9999 read as
//! microseconds lands near year 290,000) prints as its raw count of units since the epoch.

use std::fmt::Write as _;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int64Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{
    Array, BinaryArray, BinaryViewArray, BooleanArray, FixedSizeBinaryArray, LargeBinaryArray,
    RecordBatch,
};
use arrow_buffer::NullBuffer;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, Field, TimeUnit};
use herringbone::schema::EXTENSION_NAME_KEY;
use herringbone::variant::{
    JSON_EXTENSION_NAME as JSON_EXTENSION, VARIANT_EXTENSION_NAME as VARIANT_EXTENSION, Variant,
    VariantMetadata,
};

/// `batch` with every Variant column (shredded or not, at any depth) replaced by its
/// JSON text, a string column marked `arrow.json`: what every text output prints.
/// Unchanged without a Variant column.
pub fn variants_as_json(batch: &RecordBatch) -> Result<RecordBatch, String> {
    herringbone::variant::variants_as_json(batch).map_err(|e| e.to_string())
}

/// The columns of one batch, ready to print row by row.
pub struct Row<'a> {
    names: Vec<String>,
    columns: Vec<Column<'a>>,
}

impl<'a> Row<'a> {
    /// Prepares every column of `batch`; `variants` names the top-level columns that are
    /// Variant groups in the Parquet schema.
    pub fn new(batch: &'a RecordBatch, variants: &[String]) -> Result<Self, String> {
        let schema = batch.schema_ref();
        let mut columns = Vec::with_capacity(batch.num_columns());
        for (field, array) in schema.fields().iter().zip(batch.columns()) {
            let variant = variants.iter().any(|v| v == field.name());
            columns.push(Column::new(field, array.as_ref(), variant)?);
        }
        Ok(Self {
            names: schema.fields().iter().map(|f| f.name().clone()).collect(),
            columns,
        })
    }

    /// Appends row `row` as one JSON object (keys in column order, nulls explicit).
    pub fn json(&self, row: usize, out: &mut String) -> Result<(), String> {
        out.push('{');
        for (i, (name, column)) in self.names.iter().zip(&self.columns).enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(name, out);
            out.push(':');
            column.json(row, out)?;
        }
        out.push('}');
        Ok(())
    }

    /// The text of every cell of row `row`; `None` for a null.
    pub fn cells(&self, row: usize) -> Result<Vec<Option<String>>, String> {
        self.columns
            .iter()
            .map(|column| {
                let mut text = String::new();
                Ok(column.text(row, &mut text)?.then_some(text))
            })
            .collect()
    }
}

/// One array and how to print its values.
struct Column<'a> {
    nulls: Option<&'a NullBuffer>,
    kind: Kind<'a>,
}

enum Kind<'a> {
    Null,
    Bool(&'a BooleanArray),
    /// Integers and decimals: the formatter's text is a JSON number.
    Number(ArrayFormatter<'a>),
    Float(Floats<'a>, ArrayFormatter<'a>),
    Text(&'a dyn Array),
    JsonText(&'a dyn Array),
    Binary(Binaries<'a>),
    /// Dates, times, timestamps, durations, intervals: quoted in JSON.
    Temporal(&'a dyn Array, ArrayFormatter<'a>),
    List(Ranges<'a>, Box<Column<'a>>),
    Struct(Vec<String>, Vec<Column<'a>>),
    Map(&'a [i32], Box<Column<'a>>, Box<Column<'a>>),
    Dictionary(Vec<usize>, Box<Column<'a>>),
    Variant(Binaries<'a>, Binaries<'a>),
    /// Anything else Arrow can display: its text, quoted in JSON.
    Other(ArrayFormatter<'a>),
}

impl<'a> Column<'a> {
    fn new(field: &Field, array: &'a dyn Array, variant: bool) -> Result<Self, String> {
        let options = FormatOptions::default().with_display_error(true);
        let formatter = || {
            ArrayFormatter::try_new(array, &options).map_err(|e| format!("{}: {e}", field.name()))
        };
        let extension = field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str);
        let kind = match array.data_type() {
            DataType::Null => Kind::Null,
            DataType::Boolean => Kind::Bool(array.as_boolean()),
            t if t.is_integer() => Kind::Number(formatter()?),
            DataType::Decimal32(..)
            | DataType::Decimal64(..)
            | DataType::Decimal128(..)
            | DataType::Decimal256(..) => Kind::Number(formatter()?),
            DataType::Float16 => Kind::Float(Floats::F16(array), formatter()?),
            DataType::Float32 => Kind::Float(Floats::F32(array), formatter()?),
            DataType::Float64 => Kind::Float(Floats::F64(array), formatter()?),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                if extension == Some(JSON_EXTENSION) {
                    Kind::JsonText(array)
                } else {
                    Kind::Text(array)
                }
            }
            DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_) => Kind::Binary(Binaries::new(array)?),
            DataType::Date32
            | DataType::Date64
            | DataType::Time32(_)
            | DataType::Time64(_)
            | DataType::Timestamp(..)
            | DataType::Duration(_)
            | DataType::Interval(_) => Kind::Temporal(array, formatter()?),
            DataType::List(child) => {
                let list = array.as_list::<i32>();
                let values = Column::new(child, list.values().as_ref(), false)?;
                Kind::List(Ranges::I32(list.value_offsets()), Box::new(values))
            }
            DataType::LargeList(child) => {
                let list = array.as_list::<i64>();
                let values = Column::new(child, list.values().as_ref(), false)?;
                Kind::List(Ranges::I64(list.value_offsets()), Box::new(values))
            }
            DataType::ListView(child) => {
                let list = array.as_list_view::<i32>();
                let values = Column::new(child, list.values().as_ref(), false)?;
                let ranges = Ranges::View32(list.value_offsets(), list.value_sizes());
                Kind::List(ranges, Box::new(values))
            }
            DataType::LargeListView(child) => {
                let list = array.as_list_view::<i64>();
                let values = Column::new(child, list.values().as_ref(), false)?;
                let ranges = Ranges::View64(list.value_offsets(), list.value_sizes());
                Kind::List(ranges, Box::new(values))
            }
            DataType::FixedSizeList(child, size) => {
                let list = array.as_fixed_size_list();
                let values = Column::new(child, list.values().as_ref(), false)?;
                let size = usize::try_from(*size).unwrap_or(0);
                Kind::List(Ranges::Fixed(size), Box::new(values))
            }
            DataType::Struct(fields) => {
                let structs = array.as_struct();
                if (variant || extension == Some(VARIANT_EXTENSION))
                    && let Some(kind) = unshredded_variant(structs)?
                {
                    return Ok(Self {
                        nulls: array.nulls(),
                        kind,
                    });
                }
                let children = fields
                    .iter()
                    .zip(structs.columns())
                    .map(|(f, c)| Column::new(f, c.as_ref(), false))
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::Struct(fields.iter().map(|f| f.name().clone()).collect(), children)
            }
            DataType::Map(entries, _) => {
                let map = array.as_map();
                let DataType::Struct(pair) = entries.data_type() else {
                    return Err(format!("{}: map entries are not a struct", field.name()));
                };
                let (Some(key_field), Some(value_field)) = (pair.first(), pair.get(1)) else {
                    return Err(format!(
                        "{}: map entries without a key and a value",
                        field.name()
                    ));
                };
                let keys = Column::new(key_field, map.keys().as_ref(), false)?;
                let values = Column::new(value_field, map.values().as_ref(), false)?;
                Kind::Map(map.value_offsets(), Box::new(keys), Box::new(values))
            }
            DataType::Dictionary(_, value_type) => {
                let dictionary = array.as_any_dictionary();
                let value_field = Field::new(field.name(), value_type.as_ref().clone(), true)
                    .with_metadata(field.metadata().clone());
                // The values array lives as long as the dictionary array.
                let values = Column::new(&value_field, dictionary.values().as_ref(), variant)?;
                Kind::Dictionary(dictionary.normalized_keys(), Box::new(values))
            }
            _ => Kind::Other(formatter()?),
        };
        Ok(Self {
            nulls: array.nulls(),
            kind,
        })
    }

    fn is_null(&self, row: usize) -> bool {
        self.nulls.is_some_and(|n| n.is_null(row))
    }

    /// Appends the JSON of `row`.
    fn json(&self, row: usize, out: &mut String) -> Result<(), String> {
        if self.is_null(row) {
            out.push_str("null");
            return Ok(());
        }
        match &self.kind {
            Kind::Null => out.push_str("null"),
            Kind::Bool(values) => out.push_str(if values.value(row) { "true" } else { "false" }),
            Kind::Number(formatter) => write_formatted(formatter, row, out)?,
            Kind::Float(floats, formatter) => {
                let value = floats.value(row);
                if value.is_nan() {
                    out.push_str("\"NaN\"");
                } else if value.is_infinite() {
                    out.push_str(if value > 0.0 {
                        "\"Infinity\""
                    } else {
                        "\"-Infinity\""
                    });
                } else {
                    write_formatted(formatter, row, out)?;
                }
            }
            Kind::Text(array) => json_string(string_value(*array, row), out),
            Kind::JsonText(array) => out.push_str(string_value(*array, row)),
            Kind::Binary(values) => {
                out.push('"');
                hex(values.value(row), out);
                out.push('"');
            }
            Kind::Temporal(array, formatter) => {
                let mut text = String::new();
                write_temporal(*array, formatter, row, &mut text)?;
                json_string(&text, out);
            }
            Kind::List(ranges, values) => {
                out.push('[');
                for (n, i) in ranges.range(row).enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    values.json(i, out)?;
                }
                out.push(']');
            }
            Kind::Struct(names, children) => {
                out.push('{');
                for (n, (name, child)) in names.iter().zip(children).enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    json_string(name, out);
                    out.push(':');
                    child.json(row, out)?;
                }
                out.push('}');
            }
            Kind::Map(offsets, keys, values) => {
                out.push('{');
                let (start, end) = (offsets[row], offsets[row + 1]);
                for (n, i) in (start..end).enumerate() {
                    let i = i as usize;
                    if n > 0 {
                        out.push(',');
                    }
                    // JSON object keys are strings: the key's text form.
                    let mut key = String::new();
                    if !keys.text(i, &mut key)? {
                        key.push_str("null");
                    }
                    json_string(&key, out);
                    out.push(':');
                    values.json(i, out)?;
                }
                out.push('}');
            }
            Kind::Dictionary(keys, values) => values.json(keys[row], out)?,
            Kind::Variant(metadata, value) => {
                let json = variant_json(metadata.value(row), value.value(row))?;
                out.push_str(&json);
            }
            Kind::Other(formatter) => {
                let mut text = String::new();
                write_formatted(formatter, row, &mut text)?;
                json_string(&text, out);
            }
        }
        Ok(())
    }

    /// Appends the text of `row`; `false` (and nothing appended) for a null.
    fn text(&self, row: usize, out: &mut String) -> Result<bool, String> {
        if self.is_null(row) {
            return Ok(false);
        }
        match &self.kind {
            Kind::Null => return Ok(false),
            Kind::Bool(_) | Kind::List(..) | Kind::Struct(..) | Kind::Map(..) => {
                self.json(row, out)?
            }
            Kind::Variant(..) => self.json(row, out)?,
            Kind::Number(formatter) | Kind::Float(_, formatter) | Kind::Other(formatter) => {
                write_formatted(formatter, row, out)?
            }
            Kind::Text(array) | Kind::JsonText(array) => out.push_str(string_value(*array, row)),
            Kind::Binary(values) => {
                let bytes = values.value(row);
                match std::str::from_utf8(bytes) {
                    Ok(text) if !text.chars().any(|c| c.is_control() && c != '\t') => {
                        out.push_str(text)
                    }
                    _ => hex(bytes, out),
                }
            }
            Kind::Temporal(array, formatter) => write_temporal(*array, formatter, row, out)?,
            Kind::Dictionary(keys, values) => return values.text(keys[row], out),
        }
        Ok(true)
    }
}

/// The Variant columns of `structs` when it is an unshredded Variant (binary `metadata`
/// and `value`, no `typed_value`); `None` otherwise (printed as a struct).
fn unshredded_variant<'a>(
    structs: &'a arrow_array::StructArray,
) -> Result<Option<Kind<'a>>, String> {
    let (Some(metadata), Some(value)) = (
        structs.column_by_name("metadata"),
        structs.column_by_name("value"),
    ) else {
        return Ok(None);
    };
    // A null `value` is only allowed where the whole Variant is null.
    let value_missing = value
        .nulls()
        .is_some_and(|values| (0..structs.len()).any(|i| values.is_null(i) && !structs.is_null(i)));
    if structs.num_columns() != 2 || value_missing {
        return Ok(None);
    }
    let binary = |t: &DataType| {
        matches!(
            t,
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView
        )
    };
    if !binary(metadata.data_type()) || !binary(value.data_type()) {
        return Ok(None);
    }
    Ok(Some(Kind::Variant(
        Binaries::new(metadata.as_ref())?,
        Binaries::new(value.as_ref())?,
    )))
}

fn variant_json(metadata: &[u8], value: &[u8]) -> Result<String, String> {
    let metadata =
        VariantMetadata::try_new(metadata).map_err(|e| format!("Variant metadata: {e}"))?;
    let variant = Variant::try_new(metadata, value).map_err(|e| format!("Variant value: {e}"))?;
    variant.to_json().map_err(|e| format!("Variant value: {e}"))
}

/// The byte values of a binary array, whatever its offsets.
#[derive(Clone, Copy)]
enum Binaries<'a> {
    Small(&'a BinaryArray),
    Large(&'a LargeBinaryArray),
    View(&'a BinaryViewArray),
    Fixed(&'a FixedSizeBinaryArray),
}

impl<'a> Binaries<'a> {
    fn new(array: &'a dyn Array) -> Result<Self, String> {
        Ok(match array.data_type() {
            DataType::Binary => Binaries::Small(array.as_binary::<i32>()),
            DataType::LargeBinary => Binaries::Large(array.as_binary::<i64>()),
            DataType::BinaryView => Binaries::View(array.as_binary_view()),
            DataType::FixedSizeBinary(_) => Binaries::Fixed(array.as_fixed_size_binary()),
            other => return Err(format!("{other} is not a binary type")),
        })
    }

    fn value(&self, row: usize) -> &'a [u8] {
        match self {
            Binaries::Small(a) => a.value(row),
            Binaries::Large(a) => a.value(row),
            Binaries::View(a) => a.value(row),
            Binaries::Fixed(a) => a.value(row),
        }
    }
}

/// Floating-point values widened to `f64` (to tell NaN and infinities).
enum Floats<'a> {
    F16(&'a dyn Array),
    F32(&'a dyn Array),
    F64(&'a dyn Array),
}

impl Floats<'_> {
    fn value(&self, row: usize) -> f64 {
        match self {
            Floats::F16(a) => a.as_primitive::<Float16Type>().value(row).to_f64(),
            Floats::F32(a) => f64::from(a.as_primitive::<Float32Type>().value(row)),
            Floats::F64(a) => a.as_primitive::<Float64Type>().value(row),
        }
    }
}

/// Where each list's elements are in its child array.
enum Ranges<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    View32(&'a [i32], &'a [i32]),
    View64(&'a [i64], &'a [i64]),
    Fixed(usize),
}

impl Ranges<'_> {
    fn range(&self, row: usize) -> std::ops::Range<usize> {
        // Offsets of a valid array are non-negative and in bounds (arrays are validated
        // when the reader builds them).
        let at = |v: i64| usize::try_from(v).unwrap_or(0);
        match self {
            Ranges::I32(o) => at(o[row].into())..at(o[row + 1].into()),
            Ranges::I64(o) => at(o[row])..at(o[row + 1]),
            Ranges::View32(o, s) => at(o[row].into())..at(i64::from(o[row]) + i64::from(s[row])),
            Ranges::View64(o, s) => at(o[row])..at(o[row] + s[row]),
            Ranges::Fixed(size) => row * size..(row + 1) * size,
        }
    }
}

fn string_value(array: &dyn Array, row: usize) -> &str {
    match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(row),
        DataType::LargeUtf8 => array.as_string::<i64>().value(row),
        _ => array.as_string_view().value(row),
    }
}

fn write_formatted(
    formatter: &ArrayFormatter<'_>,
    row: usize,
    out: &mut String,
) -> Result<(), String> {
    formatter
        .value(row)
        .write(out)
        .map_err(|e| format!("formatting a value: {e}"))
}

/// A date, time or timestamp in Arrow's display form; one outside the printable
/// calendar as its raw count of units since the epoch.
fn write_temporal(
    array: &dyn Array,
    formatter: &ArrayFormatter<'_>,
    row: usize,
    out: &mut String,
) -> Result<(), String> {
    if let DataType::Timestamp(unit, _) = array.data_type() {
        let (raw, fits, suffix) = match unit {
            TimeUnit::Second => {
                let v = array.as_primitive::<TimestampSecondType>().value(row);
                (
                    v,
                    arrow_array::temporal_conversions::as_datetime::<TimestampSecondType>(v)
                        .is_some(),
                    "s",
                )
            }
            TimeUnit::Millisecond => {
                let v = array.as_primitive::<TimestampMillisecondType>().value(row);
                (
                    v,
                    arrow_array::temporal_conversions::as_datetime::<TimestampMillisecondType>(v)
                        .is_some(),
                    "ms",
                )
            }
            TimeUnit::Microsecond => {
                let v = array.as_primitive::<TimestampMicrosecondType>().value(row);
                (
                    v,
                    arrow_array::temporal_conversions::as_datetime::<TimestampMicrosecondType>(v)
                        .is_some(),
                    "us",
                )
            }
            TimeUnit::Nanosecond => {
                let v = array.as_primitive::<TimestampNanosecondType>().value(row);
                (
                    v,
                    arrow_array::temporal_conversions::as_datetime::<TimestampNanosecondType>(v)
                        .is_some(),
                    "ns",
                )
            }
        };
        if !fits {
            let _ = write!(
                out,
                "{raw} {suffix} since 1970-01-01 (beyond the printable calendar)"
            );
            return Ok(());
        }
    }
    let start = out.len();
    if write_formatted(formatter, row, out).is_err() {
        // A value the formatter cannot show (a date beyond its calendar): the raw number.
        out.truncate(start);
        let raw = arrow_cast::cast(&array.slice(row, 1), &DataType::Int64)
            .ok()
            .and_then(|raw| raw.as_primitive_opt::<Int64Type>().map(|r| r.value(0)));
        match raw {
            Some(raw) => {
                let _ = write!(
                    out,
                    "{raw} ({} beyond the printable calendar)",
                    array.data_type()
                );
            }
            None => out.push_str("(a value beyond the printable calendar)"),
        }
    }
    Ok(())
}

/// Appends `text` as a JSON string (RFC 8259 escapes).
pub fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn hex(bytes: &[u8], out: &mut String) {
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{BinaryBuilder, Int32Builder, MapBuilder, StringBuilder};
    use arrow_array::types::Int32Type;
    use arrow_array::types::IntervalMonthDayNano;
    use arrow_array::{
        ArrayRef, Decimal128Array, IntervalMonthDayNanoArray, ListArray, StructArray,
    };
    use arrow_schema::Fields;
    use herringbone::variant::VariantValue;

    use super::*;

    fn rows(batch: &RecordBatch, variants: &[String]) -> (Vec<String>, Vec<Vec<Option<String>>>) {
        let row = Row::new(batch, variants).unwrap();
        let mut json = Vec::new();
        let mut cells = Vec::new();
        for i in 0..batch.num_rows() {
            let mut line = String::new();
            row.json(i, &mut line).unwrap();
            serde_json::from_str::<serde_json::Value>(&line).unwrap();
            json.push(line);
            cells.push(row.cells(i).unwrap());
        }
        (json, cells)
    }

    #[test]
    fn maps_with_integer_keys_are_objects_keyed_by_text() {
        let mut map = MapBuilder::new(None, Int32Builder::new(), StringBuilder::new());
        map.keys().append_value(1);
        map.values().append_value("one");
        map.keys().append_value(-2);
        map.values().append_null();
        map.append(true).unwrap();
        map.append(false).unwrap();
        map.append(true).unwrap();
        let map: ArrayRef = Arc::new(map.finish());
        let batch = RecordBatch::try_from_iter([("m", map)]).unwrap();
        let (json, cells) = rows(&batch, &[]);
        assert_eq!(
            json,
            [
                r#"{"m":{"1":"one","-2":null}}"#,
                r#"{"m":null}"#,
                r#"{"m":{}}"#
            ]
        );
        assert_eq!(
            cells,
            [
                vec![Some(r#"{"1":"one","-2":null}"#.to_string())],
                vec![None],
                vec![Some("{}".to_string())]
            ]
        );
    }

    #[test]
    fn nested_lists_and_structs_are_json() {
        let list: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>([
            Some(vec![Some(1), None]),
            None,
        ]));
        let inner = StructArray::from(vec![(
            Arc::new(Field::new("l", list.data_type().clone(), true)),
            list.clone(),
        )]);
        let outer: ArrayRef = Arc::new(inner);
        let batch = RecordBatch::try_from_iter([("s", outer)]).unwrap();
        let (json, _) = rows(&batch, &[]);
        assert_eq!(json, [r#"{"s":{"l":[1,null]}}"#, r#"{"s":{"l":null}}"#]);
    }

    #[test]
    fn decimals_intervals_and_binaries() {
        let decimal: ArrayRef = Arc::new(
            Decimal128Array::from(vec![Some(1230), Some(-5), None])
                .with_precision_and_scale(6, 2)
                .unwrap(),
        );
        let interval: ArrayRef = Arc::new(IntervalMonthDayNanoArray::from(vec![
            Some(IntervalMonthDayNano::new(1, 2, 3_000_000_000)),
            None,
            Some(IntervalMonthDayNano::new(0, 0, 0)),
        ]));
        let mut binary = BinaryBuilder::new();
        binary.append_value(b"text");
        binary.append_value([0xff, 0x00, 0x10]);
        binary.append_value(b"line\nbreak");
        let binary: ArrayRef = Arc::new(binary.finish());
        let batch =
            RecordBatch::try_from_iter([("d", decimal), ("i", interval), ("b", binary)]).unwrap();
        let (json, cells) = rows(&batch, &[]);
        assert_eq!(
            json[0],
            r#"{"d":12.30,"i":"1 mons 2 days 3.000000000 secs","b":"74657874"}"#
        );
        assert_eq!(json[1], r#"{"d":-0.05,"i":null,"b":"ff0010"}"#);
        // Table / CSV text: binaries as text when valid UTF-8 without control
        // characters, else hex.
        assert_eq!(cells[0][2].as_deref(), Some("text"));
        assert_eq!(cells[1][2].as_deref(), Some("ff0010"));
        assert_eq!(cells[2][2].as_deref(), Some("6c696e650a627265616b"));
        assert_eq!(cells[0][0].as_deref(), Some("12.30"));
        assert_eq!(cells[2][1].as_deref(), Some("0 secs"));
    }

    #[test]
    fn unshredded_variant_is_its_json_and_a_null_variant_is_null() {
        let encoded = VariantValue::from_json(r#"{"a":[1,"x"],"b":null}"#)
            .unwrap()
            .encode()
            .unwrap();
        let mut metadata = BinaryBuilder::new();
        let mut value = BinaryBuilder::new();
        metadata.append_value(&encoded.metadata);
        value.append_value(&encoded.value);
        metadata.append_value(&encoded.metadata);
        value.append_null();
        let fields = Fields::from(vec![
            Field::new("metadata", DataType::Binary, false),
            Field::new("value", DataType::Binary, true),
        ]);
        let variant: ArrayRef = Arc::new(StructArray::new(
            fields,
            vec![Arc::new(metadata.finish()), Arc::new(value.finish())],
            Some(NullBuffer::from(vec![true, false])),
        ));
        let batch = RecordBatch::try_from_iter([("v", variant)]).unwrap();
        let (json, cells) = rows(&batch, &["v".to_string()]);
        assert_eq!(json, [r#"{"v":{"a":[1,"x"],"b":null}}"#, r#"{"v":null}"#]);
        assert_eq!(cells[0][0].as_deref(), Some(r#"{"a":[1,"x"],"b":null}"#));
    }
}

//! The `ARROW:schema` hint: decoding the writer's Arrow schema and laying it over the
//! Parquet mapping where it is a faithful reading of the data.
//!
//! The IPC flatbuffer is read through the generated accessors of `arrow-ipc` (which
//! verify the buffer) and converted here, field by field, so that a malformed or
//! unsupported hint is an error to ignore rather than a panic.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_ipc::r#gen::Schema as fb;
use arrow_schema::{DataType, Field, FieldRef, Fields, IntervalUnit, TimeUnit};
use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use herringbone_format::metadata::Type;

use super::{
    Converter, EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY, ParquetField, ParquetFieldKind,
    SchemaOptions, map_type, with_list_element,
};
use crate::error::{Error, Result};

/// Padding is optional in the wild (writers differ), so accept both.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Nesting deeper than this in a hint is not followed (the flatbuffer verifier bounds it
/// too; this keeps the recursion here explicit).
const MAX_HINT_DEPTH: usize = 64;

/// A decoded `ARROW:schema` hint: each top-level field on its own, so that one field
/// this version cannot decode (polars' `Int128`, a type from a newer Arrow) costs that
/// field its hint and nothing else.
#[derive(Debug)]
pub(super) struct ArrowSchemaHint {
    /// The top-level fields in order, or why one cannot be used.
    pub fields: Vec<Result<Field>>,
    /// The schema's custom metadata.
    pub metadata: HashMap<String, String>,
}

/// Decodes the base64 `ARROW:schema` value: an IPC `Schema` message, optionally behind
/// the `0xFFFFFFFF` continuation marker, after its 4-byte little-endian length. Errors
/// only when the message itself is unreadable; a field that cannot be converted is an
/// `Err` in its slot.
pub(super) fn decode_arrow_schema(text: &str) -> Result<ArrowSchemaHint> {
    let bytes = BASE64
        .decode(text.trim())
        .map_err(|e| Error::schema("ARROW:schema is not valid base64").with_source(e))?;
    let mut rest = bytes.as_slice();
    if rest.starts_with(&[0xff; 4]) {
        rest = &rest[4..];
    }
    let Some((length, payload)) = rest.split_first_chunk::<4>() else {
        return Err(Error::schema(format!(
            "ARROW:schema: {} bytes, too short for an IPC message length",
            bytes.len()
        )));
    };
    let length = i32::from_le_bytes(*length);
    let message = usize::try_from(length)
        .ok()
        .and_then(|len| payload.get(..len))
        .ok_or_else(|| {
            Error::schema(format!(
                "ARROW:schema: IPC message length {length} but {} bytes follow",
                payload.len()
            ))
        })?;
    let message = arrow_ipc::root_as_message(message)
        .map_err(|e| Error::schema(format!("ARROW:schema: invalid IPC message: {e}")))?;
    let schema = message
        .header_as_schema()
        .ok_or_else(|| Error::schema("ARROW:schema: the IPC message is not a Schema"))?;
    let fields = schema
        .fields()
        .map(|list| list.iter().map(|field| convert_field(field, 0)).collect())
        .unwrap_or_default();
    let metadata = key_values(schema.custom_metadata().into_iter().flatten());
    Ok(ArrowSchemaHint { fields, metadata })
}

fn key_values<'a>(pairs: impl IntoIterator<Item = fb::KeyValue<'a>>) -> HashMap<String, String> {
    pairs
        .into_iter()
        .filter_map(|kv| Some((kv.key()?.to_string(), kv.value()?.to_string())))
        .collect()
}

fn unsupported(what: impl std::fmt::Display) -> Error {
    Error::schema(format!("ARROW:schema: {what}"))
}

fn convert_field(field: fb::Field<'_>, depth: usize) -> Result<Field> {
    if depth > MAX_HINT_DEPTH {
        return Err(unsupported(format!("nesting deeper than {MAX_HINT_DEPTH}")));
    }
    let name = field.name().unwrap_or_default();
    let mut children = Vec::new();
    if let Some(list) = field.children() {
        for i in 0..list.len() {
            children.push(Arc::new(convert_field(list.get(i), depth + 1)?));
        }
    }
    let only_child = |kind: &str| -> Result<FieldRef> {
        match children.as_slice() {
            [child] => Ok(child.clone()),
            other => Err(unsupported(format!(
                "field `{name}`: a {kind} needs one child, it has {}",
                other.len()
            ))),
        }
    };
    let time_unit = |unit: fb::TimeUnit| -> Result<TimeUnit> {
        match unit {
            fb::TimeUnit::SECOND => Ok(TimeUnit::Second),
            fb::TimeUnit::MILLISECOND => Ok(TimeUnit::Millisecond),
            fb::TimeUnit::MICROSECOND => Ok(TimeUnit::Microsecond),
            fb::TimeUnit::NANOSECOND => Ok(TimeUnit::Nanosecond),
            other => Err(unsupported(format!(
                "field `{name}`: time unit {}",
                other.0
            ))),
        }
    };
    let bad = |what: &str| unsupported(format!("field `{name}`: {what}"));

    let data_type = match field.type_type() {
        fb::Type::Null => DataType::Null,
        fb::Type::Bool => DataType::Boolean,
        fb::Type::Int => {
            let int = field
                .type_as_int()
                .ok_or_else(|| bad("Int without parameters"))?;
            int_type(int.bitWidth(), int.is_signed()).ok_or_else(|| {
                bad(&format!(
                    "{} integers of {} bits have no Arrow type",
                    if int.is_signed() {
                        "signed"
                    } else {
                        "unsigned"
                    },
                    int.bitWidth()
                ))
            })?
        }
        fb::Type::FloatingPoint => {
            let float = field
                .type_as_floating_point()
                .ok_or_else(|| bad("FloatingPoint without parameters"))?;
            match float.precision() {
                fb::Precision::HALF => DataType::Float16,
                fb::Precision::SINGLE => DataType::Float32,
                fb::Precision::DOUBLE => DataType::Float64,
                _ => return Err(bad("float precision")),
            }
        }
        fb::Type::Binary => DataType::Binary,
        fb::Type::LargeBinary => DataType::LargeBinary,
        fb::Type::BinaryView => DataType::BinaryView,
        fb::Type::Utf8 => DataType::Utf8,
        fb::Type::LargeUtf8 => DataType::LargeUtf8,
        fb::Type::Utf8View => DataType::Utf8View,
        fb::Type::FixedSizeBinary => {
            let fixed = field
                .type_as_fixed_size_binary()
                .ok_or_else(|| bad("FixedSizeBinary without parameters"))?;
            DataType::FixedSizeBinary(fixed.byteWidth())
        }
        fb::Type::Decimal => {
            let decimal = field
                .type_as_decimal()
                .ok_or_else(|| bad("Decimal without parameters"))?;
            let precision =
                u8::try_from(decimal.precision()).map_err(|_| bad("decimal precision"))?;
            let scale = i8::try_from(decimal.scale()).map_err(|_| bad("decimal scale"))?;
            match decimal.bitWidth() {
                32 => DataType::Decimal32(precision, scale),
                64 => DataType::Decimal64(precision, scale),
                128 => DataType::Decimal128(precision, scale),
                256 => DataType::Decimal256(precision, scale),
                _ => return Err(bad("decimal width")),
            }
        }
        fb::Type::Date => {
            let date = field
                .type_as_date()
                .ok_or_else(|| bad("Date without parameters"))?;
            match date.unit() {
                fb::DateUnit::DAY => DataType::Date32,
                fb::DateUnit::MILLISECOND => DataType::Date64,
                _ => return Err(bad("date unit")),
            }
        }
        fb::Type::Time => {
            let time = field
                .type_as_time()
                .ok_or_else(|| bad("Time without parameters"))?;
            let unit = time_unit(time.unit())?;
            match (time.bitWidth(), unit) {
                (32, TimeUnit::Second | TimeUnit::Millisecond) => DataType::Time32(unit),
                (64, TimeUnit::Microsecond | TimeUnit::Nanosecond) => DataType::Time64(unit),
                _ => return Err(bad("time width and unit")),
            }
        }
        fb::Type::Timestamp => {
            let timestamp = field
                .type_as_timestamp()
                .ok_or_else(|| bad("Timestamp without parameters"))?;
            DataType::Timestamp(
                time_unit(timestamp.unit())?,
                timestamp.timezone().map(Into::into),
            )
        }
        fb::Type::Duration => {
            let duration = field
                .type_as_duration()
                .ok_or_else(|| bad("Duration without parameters"))?;
            DataType::Duration(time_unit(duration.unit())?)
        }
        fb::Type::Interval => {
            let interval = field
                .type_as_interval()
                .ok_or_else(|| bad("Interval without parameters"))?;
            match interval.unit() {
                fb::IntervalUnit::YEAR_MONTH => DataType::Interval(IntervalUnit::YearMonth),
                fb::IntervalUnit::DAY_TIME => DataType::Interval(IntervalUnit::DayTime),
                fb::IntervalUnit::MONTH_DAY_NANO => DataType::Interval(IntervalUnit::MonthDayNano),
                _ => return Err(bad("interval unit")),
            }
        }
        fb::Type::List => DataType::List(only_child("list")?),
        fb::Type::LargeList => DataType::LargeList(only_child("list")?),
        fb::Type::ListView => DataType::ListView(only_child("list view")?),
        fb::Type::LargeListView => DataType::LargeListView(only_child("list view")?),
        fb::Type::FixedSizeList => {
            let fixed = field
                .type_as_fixed_size_list()
                .ok_or_else(|| bad("FixedSizeList without parameters"))?;
            DataType::FixedSizeList(only_child("fixed-size list")?, fixed.listSize())
        }
        fb::Type::Struct_ => DataType::Struct(Fields::from(children.clone())),
        fb::Type::Map => {
            let map = field
                .type_as_map()
                .ok_or_else(|| bad("Map without parameters"))?;
            DataType::Map(only_child("map")?, map.keysSorted())
        }
        other => return Err(bad(&format!("unsupported type {other:?}"))),
    };
    let data_type = match field.dictionary() {
        Some(dictionary) => {
            let key = dictionary
                .indexType()
                .and_then(|int| int_type(int.bitWidth(), int.is_signed()))
                .unwrap_or(DataType::Int32);
            DataType::Dictionary(Box::new(key), Box::new(data_type))
        }
        None => data_type,
    };
    Ok(Field::new(name, data_type, field.nullable())
        .with_metadata(key_values(field.custom_metadata().into_iter().flatten())))
}

fn int_type(bit_width: i32, signed: bool) -> Option<DataType> {
    Some(match (bit_width, signed) {
        (8, true) => DataType::Int8,
        (16, true) => DataType::Int16,
        (32, true) => DataType::Int32,
        (64, true) => DataType::Int64,
        (8, false) => DataType::UInt8,
        (16, false) => DataType::UInt16,
        (32, false) => DataType::UInt32,
        (64, false) => DataType::UInt64,
        _ => return None,
    })
}

/// Largest precision of each Arrow decimal width.
fn decimal_capacity(data_type: &DataType) -> Option<(u8, i8)> {
    match data_type {
        DataType::Decimal32(p, s)
        | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s)
        | DataType::Decimal256(p, s) => Some((*p, *s)),
        _ => None,
    }
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

impl Converter<'_> {
    /// `field` with the hint applied where compatible.
    pub(super) fn merge_hint(&self, field: ParquetField, hint: &Field) -> ParquetField {
        let merged_field = |ours: &FieldRef, data_type: DataType| -> FieldRef {
            // The hint's metadata under ours (field ids, our extension types). An
            // extension type describes its storage type, so the hint's is kept only where
            // the hint's type was adopted and we have none of our own.
            let mut metadata = hint.metadata().clone();
            if &data_type != hint.data_type() || ours.metadata().contains_key(EXTENSION_NAME_KEY) {
                metadata.remove(EXTENSION_NAME_KEY);
                metadata.remove(EXTENSION_METADATA_KEY);
            }
            metadata.extend(ours.metadata().iter().map(|(k, v)| (k.clone(), v.clone())));
            Arc::new(
                ours.as_ref()
                    .clone()
                    .with_data_type(data_type)
                    .with_metadata(metadata),
            )
        };
        match field.kind {
            ParquetFieldKind::Primitive { physical_type, .. } => {
                let data_type = hinted_leaf_type(
                    self.options,
                    field.field.data_type(),
                    physical_type,
                    hint.data_type(),
                );
                ParquetField {
                    field: merged_field(&field.field, data_type),
                    ..field
                }
            }
            ParquetFieldKind::Struct { children } => {
                let DataType::Struct(hint_children) = hint.data_type() else {
                    return ParquetField {
                        kind: ParquetFieldKind::Struct { children },
                        ..field
                    };
                };
                let same_shape = hint_children.len() == children.len()
                    && hint_children
                        .iter()
                        .zip(&children)
                        .all(|(h, c)| h.name() == c.field.name());
                if !same_shape {
                    return ParquetField {
                        kind: ParquetFieldKind::Struct { children },
                        ..field
                    };
                }
                let children: Vec<ParquetField> = children
                    .into_iter()
                    .zip(hint_children.iter())
                    .map(|(child, h)| self.merge_hint(child, h))
                    .collect();
                let data_type =
                    DataType::Struct(children.iter().map(|c| c.field.clone()).collect());
                ParquetField {
                    field: merged_field(&field.field, data_type),
                    kind: ParquetFieldKind::Struct { children },
                    ..field
                }
            }
            ParquetFieldKind::List {
                element,
                entry_def_level,
                entry_rep_level,
            } => {
                let hint_element = match hint.data_type() {
                    DataType::List(e)
                    | DataType::LargeList(e)
                    | DataType::ListView(e)
                    | DataType::LargeListView(e)
                    | DataType::FixedSizeList(e, _) => e,
                    _ => {
                        return ParquetField {
                            kind: ParquetFieldKind::List {
                                element,
                                entry_def_level,
                                entry_rep_level,
                            },
                            ..field
                        };
                    }
                };
                let element = self.merge_hint(*element, hint_element);
                let data_type = with_list_element(hint.data_type(), element.field.clone());
                ParquetField {
                    field: merged_field(&field.field, data_type),
                    kind: ParquetFieldKind::List {
                        element: Box::new(element),
                        entry_def_level,
                        entry_rep_level,
                    },
                    ..field
                }
            }
            ParquetFieldKind::Map {
                key,
                value,
                entry_def_level,
                entry_rep_level,
            } => {
                let (DataType::Map(hint_entries, sorted), DataType::Map(entries, _)) =
                    (hint.data_type(), field.field.data_type())
                else {
                    return ParquetField {
                        kind: ParquetFieldKind::Map {
                            key,
                            value,
                            entry_def_level,
                            entry_rep_level,
                        },
                        ..field
                    };
                };
                let DataType::Struct(hint_kv) = hint_entries.data_type() else {
                    return ParquetField {
                        kind: ParquetFieldKind::Map {
                            key,
                            value,
                            entry_def_level,
                            entry_rep_level,
                        },
                        ..field
                    };
                };
                let (key, value) = match hint_kv.iter().as_slice() {
                    [hint_key, hint_value] => (
                        self.merge_hint(*key, hint_key),
                        self.merge_hint(*value, hint_value),
                    ),
                    _ => (*key, *value),
                };
                let data_type = map_type(
                    entries.name(),
                    key.field.clone(),
                    value.field.clone(),
                    *sorted,
                );
                ParquetField {
                    field: merged_field(&field.field, data_type),
                    kind: ParquetFieldKind::Map {
                        key: Box::new(key),
                        value: Box::new(value),
                        entry_def_level,
                        entry_rep_level,
                    },
                    ..field
                }
            }
        }
    }
}

/// The type of a leaf given the hint: the hint where it reads the same stored values
/// faithfully, ours otherwise.
pub(super) fn hinted_leaf_type(
    options: &SchemaOptions,
    ours: &DataType,
    physical: Type,
    hint: &DataType,
) -> DataType {
    if let DataType::Dictionary(key, value) = hint {
        if !key.is_dictionary_key_type() {
            return ours.clone();
        }
        let inner = hinted_leaf_type(options, ours, physical, value);
        return if &inner == value.as_ref() {
            hint.clone()
        } else {
            inner
        };
    }
    if ours == hint {
        return ours.clone();
    }
    let strings_free = options.strings.is_none();
    let binaries_free = options.binaries.is_none();
    let accept = match (ours, hint) {
        // Offset width, views, and text-vs-bytes are the reader's choice.
        (o, h) if is_string(o) && is_string(h) => strings_free,
        (o, h) if is_binary(o) && is_binary(h) => binaries_free,
        (o, h) if is_binary(o) && is_string(h) => {
            binaries_free && strings_free && physical == Type::BYTE_ARRAY
        }
        // A time zone the annotation cannot carry (same unit).
        (DataType::Timestamp(unit, _), DataType::Timestamp(hint_unit, _))
            if unit == hint_unit && physical == Type::INT64 =>
        {
            true
        }
        // INT96 holds nanoseconds of a day: any unit is a faithful conversion.
        (DataType::Timestamp(_, _), DataType::Timestamp(_, _)) if physical == Type::INT96 => {
            options.int96_unit.is_none()
        }
        // Types Parquet has no annotation for, stored as plain integers.
        (
            DataType::Int64,
            DataType::Timestamp(_, _)
            | DataType::Duration(_)
            | DataType::Date64
            | DataType::Time64(_),
        ) => true,
        (DataType::Int32, DataType::Time32(_) | DataType::Date32) => true,
        (DataType::Date32, DataType::Date64) => true,
        (DataType::Interval(_), DataType::Interval(_)) => true,
        (DataType::Decimal128(p, s), h) => match decimal_capacity(h) {
            Some((hp, hs)) => {
                let max = match h {
                    DataType::Decimal32(_, _) => arrow_schema::DECIMAL32_MAX_PRECISION,
                    DataType::Decimal64(_, _) => arrow_schema::DECIMAL64_MAX_PRECISION,
                    DataType::Decimal128(_, _) => arrow_schema::DECIMAL128_MAX_PRECISION,
                    _ => arrow_schema::DECIMAL256_MAX_PRECISION,
                };
                hs == *s && hp >= *p && hp <= max
            }
            None => false,
        },
        _ => false,
    };
    if accept { hint.clone() } else { ours.clone() }
}

/// `field` read as `target` (a caller-supplied Arrow field): the target's name,
/// nullability, metadata and type, provided every leaf type is a faithful reading of the
/// stored values (the rules of the hint) and the nesting matches.
pub(super) fn coerce(field: &ParquetField, target: &FieldRef, path: &str) -> Result<ParquetField> {
    let path = if path.is_empty() {
        target.name().to_string()
    } else {
        format!("{path}.{}", target.name())
    };
    let mismatch = |why: &str| {
        Error::invalid_argument(format!(
            "supplied schema: field `{path}` cannot be read as {}: {why} (the file has {})",
            target.data_type(),
            field.field.data_type()
        ))
    };
    if field.field.is_nullable() && !target.is_nullable() {
        return Err(mismatch("the file's column is nullable"));
    }
    let kind = match (&field.kind, target.data_type()) {
        (ParquetFieldKind::Primitive { physical_type, .. }, wanted) => {
            let read_as = hinted_leaf_type(
                &SchemaOptions::default(),
                field.field.data_type(),
                *physical_type,
                wanted,
            );
            if &read_as != wanted {
                return Err(mismatch("not a faithful reading of the stored values"));
            }
            field.kind.clone()
        }
        (ParquetFieldKind::Struct { children }, DataType::Struct(wanted)) => {
            if children.len() != wanted.len() {
                return Err(mismatch("a different number of struct fields"));
            }
            let mut coerced = Vec::with_capacity(children.len());
            for (child, wanted) in children.iter().zip(wanted.iter()) {
                if child.field.name() != wanted.name() {
                    return Err(mismatch(&format!(
                        "struct field `{}` where the file has `{}`",
                        wanted.name(),
                        child.field.name()
                    )));
                }
                coerced.push(coerce(child, wanted, &path)?);
            }
            ParquetFieldKind::Struct { children: coerced }
        }
        (
            ParquetFieldKind::List {
                element,
                entry_def_level,
                entry_rep_level,
            },
            DataType::List(wanted)
            | DataType::LargeList(wanted)
            | DataType::ListView(wanted)
            | DataType::LargeListView(wanted)
            | DataType::FixedSizeList(wanted, _),
        ) => ParquetFieldKind::List {
            element: Box::new(coerce(element, wanted, &path)?),
            entry_def_level: *entry_def_level,
            entry_rep_level: *entry_rep_level,
        },
        (
            ParquetFieldKind::Map {
                key,
                value,
                entry_def_level,
                entry_rep_level,
            },
            DataType::Map(entries, _),
        ) => {
            let DataType::Struct(pair) = entries.data_type() else {
                return Err(mismatch("map entries that are not a struct"));
            };
            let [wanted_key, wanted_value] = pair.iter().as_slice() else {
                return Err(mismatch("map entries without exactly a key and a value"));
            };
            ParquetFieldKind::Map {
                key: Box::new(coerce(key, wanted_key, &path)?),
                value: Box::new(coerce(value, wanted_value, &path)?),
                entry_def_level: *entry_def_level,
                entry_rep_level: *entry_rep_level,
            }
        }
        _ => return Err(mismatch("the nesting differs")),
    };
    Ok(ParquetField {
        field: target.clone(),
        node: field.node,
        def_level: field.def_level,
        rep_level: field.rep_level,
        kind,
    })
}

//! Arrow -> Parquet schema mapping for the writer.
//!
//! [`arrow_to_parquet`] turns an Arrow [`Schema`] into the footer's flat list of
//! [`SchemaElement`]s (both the `LogicalType` and the matching `ConvertedType`) and, beside
//! it, a `WriteField` tree the level builder walks: for every Arrow field whether it is
//! nullable, how it nests, and for leaves which column they are.
//!
//! | Arrow | Parquet |
//! | --- | --- |
//! | `Null` | optional `INT32` `UNKNOWN` |
//! | `Boolean` | `BOOLEAN` |
//! | `Int8/16`, `UInt8/16/32` | `INT32` `INTEGER(n, signed)` |
//! | `Int32` / `Int64` | `INT32` / `INT64` |
//! | `UInt64` | `INT64` `INTEGER(64, false)` |
//! | `Float16` / `Float32` / `Float64` | `FIXED_LEN_BYTE_ARRAY(2)` `FLOAT16` / `FLOAT` / `DOUBLE` |
//! | `Decimal32/64/128/256(p, s)` | `DECIMAL(p, s)` on `INT32` (p <= 9), `INT64` (p <= 18), else `FIXED_LEN_BYTE_ARRAY` |
//! | `Date32`, `Date64` | `INT32` `DATE` (Date64 in whole days) |
//! | `Time32(s\|ms)` / `Time64(us\|ns)` | `INT32` `TIME(MILLIS)` / `INT64` `TIME(MICROS\|NANOS)` |
//! | `Timestamp(unit, tz)` | `INT64` `TIMESTAMP(unit, isAdjustedToUTC = tz is set)`, seconds as millis; `INT96` on request |
//! | `Duration` | `INT64` (the unit is in `ARROW:schema`) |
//! | `Interval(YearMonth\|DayTime\|MonthDayNano)` | `FIXED_LEN_BYTE_ARRAY(12)` `INTERVAL` (MonthDayNano: nanoseconds must be whole milliseconds that fit a u32) |
//! | `Utf8`, `LargeUtf8`, `Utf8View` | `BYTE_ARRAY` `STRING` |
//! | `Binary`, `LargeBinary`, `BinaryView` | `BYTE_ARRAY` |
//! | the same with extension `geoarrow.wkb` | `BYTE_ARRAY` `GEOMETRY`, or `GEOGRAPHY` when `edges` is not `planar` |
//! | `FixedSizeBinary(n)` | `FIXED_LEN_BYTE_ARRAY(n)`, `UUID` for `arrow.uuid` |
//! | `Dictionary(_, V)` | as `V` |
//! | `Struct` | group |
//! | `Struct` with extension `arrow.parquet.variant` | group `VARIANT(1)` (`TIME` inside it without UTC adjustment, as shredding wants; see [`crate::variant`] for how the writer shapes it) |
//! | `List`, `LargeList`, `FixedSizeList`, `ListView`, `LargeListView` | 3-level `LIST` |
//! | `Map` | `MAP` with a repeated group named like the Arrow entries |
//!
//! Names of list elements and map entries are the Arrow names, so that readers of the
//! Arrow family give back the same field names.

use arrow_schema::{DataType, Field, IntervalUnit, Schema, TimeUnit};
use base64::Engine as _;
use herringbone_format::metadata::{
    EdgeInterpolationAlgorithm, FieldRepetitionType, LogicalType, SchemaElement,
    TimeUnit as ParquetTimeUnit, Type,
};
use herringbone_format::schema::{SchemaDescriptor, converted_type_from_logical};
use herringbone_format::thrift::Text;

use crate::error::{Error, Result};
use crate::schema::{
    EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY, PARQUET_FIELD_ID_META_KEY, VARIANT_EXTENSION_NAME,
};

/// Deepest Arrow nesting the writer follows (bounds the recursion).
const MAX_DEPTH: usize = 64;

/// How the values of one leaf column are converted to its physical type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeafKind {
    /// Values stored as they are (after a cast to the physical width).
    Plain,
    /// `Timestamp(Second)` / `Time32(Second)`: multiplied by 1000 (stored as millis).
    SecondsToMillis,
    /// `Date64` (ms since epoch) stored as days.
    MillisToDays,
    /// `Interval(YearMonth)` as 12 bytes.
    IntervalYearMonth,
    /// `Interval(DayTime)` as 12 bytes.
    IntervalDayTime,
    /// `Interval(MonthDayNano)` as 12 bytes (nanoseconds must be whole milliseconds).
    IntervalMonthDayNano,
    /// Decimal stored as `FIXED_LEN_BYTE_ARRAY`, big-endian two's complement.
    DecimalBytes,
    /// `Timestamp` stored as INT96 (nanoseconds of the Julian day).
    Int96,
}

/// One Arrow field as the level builder sees it.
#[derive(Debug, Clone)]
pub(crate) struct WriteField {
    /// Whether the field is optional in Parquet (a null adds no definition level).
    pub nullable: bool,
    /// How the field nests.
    pub kind: WriteKind,
}

/// The nesting of a [`WriteField`].
#[derive(Debug, Clone)]
pub(crate) enum WriteKind {
    /// A leaf column: its index among the leaves.
    Leaf(usize),
    /// A group of children.
    Struct(Vec<WriteField>),
    /// A repeated field (`LIST`, or `MAP` whose element is the non-null entries struct).
    List(Box<WriteField>),
}

impl WriteField {
    /// Leaf column indices under this field, in order.
    pub fn leaves(&self, out: &mut Vec<usize>) {
        match &self.kind {
            WriteKind::Leaf(i) => out.push(*i),
            WriteKind::Struct(children) => children.iter().for_each(|c| c.leaves(out)),
            WriteKind::List(child) => child.leaves(out),
        }
    }
}

/// Everything about one leaf the column writer needs beyond the descriptor.
#[derive(Debug, Clone)]
pub(crate) struct LeafInfo {
    /// How values convert to the physical type.
    pub kind: LeafKind,
}

/// The Parquet schema of an Arrow schema.
#[derive(Debug, Clone)]
pub struct ParquetSchema {
    pub(crate) elements: Vec<SchemaElement>,
    pub(crate) descriptor: SchemaDescriptor,
    pub(crate) fields: Vec<WriteField>,
    pub(crate) leaves: Vec<LeafInfo>,
}

impl ParquetSchema {
    /// The footer's schema elements (root first, depth-first).
    pub fn elements(&self) -> &[SchemaElement] {
        &self.elements
    }

    /// The validated schema tree (leaf columns with their levels and paths).
    pub fn descriptor(&self) -> &SchemaDescriptor {
        &self.descriptor
    }
}

/// Options of the Arrow -> Parquet mapping.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArrowToParquetOptions {
    /// Write timestamps as the legacy `INT96` (for Spark-era readers).
    pub int96_timestamps: bool,
}

/// Maps an Arrow schema to a Parquet schema (root named `arrow_schema`, as arrow-rs and
/// pyarrow name it).
pub fn arrow_to_parquet(schema: &Schema, options: ArrowToParquetOptions) -> Result<ParquetSchema> {
    let mut builder = Builder {
        elements: vec![SchemaElement {
            name: Text::from("arrow_schema"),
            num_children: Some(to_i32(schema.fields().len(), "field count")?),
            ..SchemaElement::default()
        }],
        leaves: Vec::new(),
        options,
    };
    let mut fields = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        fields.push(builder.field(field, field.name(), field.is_nullable(), 0)?);
    }
    let descriptor = SchemaDescriptor::new(&builder.elements).map_err(|e| {
        Error::schema("the Parquet schema built from the Arrow schema is invalid").with_source(e)
    })?;
    Ok(ParquetSchema {
        elements: builder.elements,
        descriptor,
        fields,
        leaves: builder.leaves,
    })
}

/// The `ARROW:schema` value: the IPC-encoded schema (continuation marker, length,
/// flatbuffer message) in base64, as arrow-rs and pyarrow store it.
pub fn encode_arrow_schema(schema: &Schema) -> String {
    let generator = arrow_ipc::writer::IpcDataGenerator::default();
    let mut tracker = arrow_ipc::writer::DictionaryTracker::new(true);
    let encoded = generator.schema_to_bytes_with_dictionary_tracker(
        schema,
        &mut tracker,
        &arrow_ipc::writer::IpcWriteOptions::default(),
    );
    let message = encoded.ipc_message;
    let mut bytes = Vec::with_capacity(message.len() + 8);
    bytes.extend_from_slice(&[0xff; 4]);
    bytes.extend_from_slice(&(message.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&message);
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn to_i32(value: usize, what: &str) -> Result<i32> {
    i32::try_from(value).map_err(|_| Error::schema(format!("{what} {value} exceeds i32")))
}

fn repetition(nullable: bool) -> FieldRepetitionType {
    if nullable {
        FieldRepetitionType::OPTIONAL
    } else {
        FieldRepetitionType::REQUIRED
    }
}

fn field_id(field: &Field) -> Result<Option<i32>> {
    match field.metadata().get(PARQUET_FIELD_ID_META_KEY) {
        None => Ok(None),
        Some(text) => text.trim().parse::<i32>().map(Some).map_err(|_| {
            Error::schema(format!(
                "field {}: {PARQUET_FIELD_ID_META_KEY} {text:?} is not an i32",
                field.name()
            ))
        }),
    }
}

/// Bytes of a `FIXED_LEN_BYTE_ARRAY` that holds every unscaled value of `precision`
/// digits (two's complement).
pub(crate) fn decimal_length(precision: u8) -> usize {
    // Smallest n with 2^(8n - 1) > 10^precision.
    let bits = f64::from(precision) * std::f64::consts::LOG2_10;
    ((bits + 1.0) / 8.0).ceil() as usize
}

/// The `GEOMETRY` / `GEOGRAPHY` logical type of a binary field with the `geoarrow.wkb`
/// extension (`None` for any other binary field).
///
/// The GeoArrow metadata maps as the reader maps it back: no `crs` or `OGC:CRS84` is
/// Parquet's default CRS (absent); `crs_type: "srid"` becomes `srid:<n>`; any other string
/// is kept as is; a PROJJSON object is stored as its JSON text (a valid Parquet CRS
/// string, though readers see a string rather than an object). `edges` absent or
/// `planar` is `GEOMETRY`; `spherical`, `vincenty`, `thomas`, `andoyer`, `karney` are
/// `GEOGRAPHY` with that algorithm; an `algorithm` key (older GeoArrow drafts) is read
/// the same way.
fn geo_logical_type(field: &Field, name: &str) -> Result<Option<LogicalType>> {
    if field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str) != Some("geoarrow.wkb") {
        return Ok(None);
    }
    let bad = |why: String| Error::schema(format!("field {name}: geoarrow.wkb metadata {why}"));
    let metadata = match field.metadata().get(EXTENSION_METADATA_KEY) {
        None => serde_json::Map::new(),
        Some(text) if text.trim().is_empty() => serde_json::Map::new(),
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) => return Err(bad("is not a JSON object".into())),
            Err(e) => return Err(bad(format!("is not JSON: {e}"))),
        },
    };
    let crs_type = metadata.get("crs_type").and_then(|v| v.as_str());
    let crs = match metadata.get("crs") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) if s == "OGC:CRS84" || s.is_empty() => None,
        Some(serde_json::Value::String(s)) if crs_type == Some("srid") => {
            Some(Text::from(format!("srid:{s}").as_str()))
        }
        Some(serde_json::Value::Number(n)) if crs_type == Some("srid") => {
            Some(Text::from(format!("srid:{n}").as_str()))
        }
        Some(serde_json::Value::String(s)) => Some(Text::from(s.as_str())),
        Some(other) => Some(Text::from(other.to_string().as_str())),
    };
    let edges = metadata
        .get("edges")
        .or_else(|| metadata.get("algorithm"))
        .map(|v| {
            v.as_str()
                .ok_or_else(|| bad(format!("edges {v} is not a string")))
        })
        .transpose()?;
    let algorithm = match edges {
        None | Some("planar") => return Ok(Some(LogicalType::Geometry { crs })),
        Some("spherical") => EdgeInterpolationAlgorithm::SPHERICAL,
        Some("vincenty") => EdgeInterpolationAlgorithm::VINCENTY,
        Some("thomas") => EdgeInterpolationAlgorithm::THOMAS,
        Some("andoyer") => EdgeInterpolationAlgorithm::ANDOYER,
        Some("karney") => EdgeInterpolationAlgorithm::KARNEY,
        Some(other) => return Err(bad(format!("edges {other:?} is not a known algorithm"))),
    };
    Ok(Some(LogicalType::Geography {
        crs,
        algorithm: Some(algorithm),
    }))
}

struct Builder {
    elements: Vec<SchemaElement>,
    leaves: Vec<LeafInfo>,
    options: ArrowToParquetOptions,
}

impl Builder {
    fn field(
        &mut self,
        field: &Field,
        name: &str,
        nullable: bool,
        depth: usize,
    ) -> Result<WriteField> {
        if depth > MAX_DEPTH {
            return Err(Error::schema(format!(
                "field {name}: nesting deeper than {MAX_DEPTH}"
            )));
        }
        let field_id = field_id(field)?;
        let data_type = match field.data_type() {
            DataType::Dictionary(_, value) => value.as_ref(),
            other => other,
        };
        match data_type {
            DataType::Struct(children) => {
                if children.is_empty() {
                    return Err(Error::schema(format!(
                        "field {name}: a struct without fields has no Parquet representation"
                    )));
                }
                let is_variant = field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str)
                    == Some(VARIANT_EXTENSION_NAME);
                let start = self.elements.len();
                self.elements.push(SchemaElement {
                    name: Text::from(name),
                    repetition_type: Some(repetition(nullable)),
                    num_children: Some(to_i32(children.len(), "field count")?),
                    field_id,
                    logical_type: is_variant.then_some(LogicalType::Variant {
                        specification_version: Some(1),
                    }),
                    ..SchemaElement::default()
                });
                let mut out = Vec::with_capacity(children.len());
                for child in children {
                    out.push(self.field(child, child.name(), child.is_nullable(), depth + 1)?);
                }
                if is_variant {
                    // A shredded Variant time is TIME(false, MICROS) (no time zone).
                    for element in &mut self.elements[start + 1..] {
                        if let Some(LogicalType::Time { unit, .. }) = element.logical_type {
                            let time = LogicalType::Time {
                                is_adjusted_to_utc: false,
                                unit,
                            };
                            element.converted_type = converted_type_from_logical(&time);
                            element.logical_type = Some(time);
                        }
                    }
                }
                Ok(WriteField {
                    nullable,
                    kind: WriteKind::Struct(out),
                })
            }
            DataType::List(element)
            | DataType::LargeList(element)
            | DataType::FixedSizeList(element, _)
            | DataType::ListView(element)
            | DataType::LargeListView(element) => {
                self.elements.push(SchemaElement {
                    name: Text::from(name),
                    repetition_type: Some(repetition(nullable)),
                    num_children: Some(1),
                    converted_type: converted_type_from_logical(&LogicalType::List),
                    logical_type: Some(LogicalType::List),
                    field_id,
                    ..SchemaElement::default()
                });
                self.elements.push(SchemaElement {
                    name: Text::from("list"),
                    repetition_type: Some(FieldRepetitionType::REPEATED),
                    num_children: Some(1),
                    ..SchemaElement::default()
                });
                // The element keeps its Arrow name (`item` usually, `element` from
                // Parquet): readers accept any name, and arrow-rs keeps it on read.
                let child =
                    self.field(element, element.name(), element.is_nullable(), depth + 1)?;
                Ok(WriteField {
                    nullable,
                    kind: WriteKind::List(Box::new(child)),
                })
            }
            DataType::Map(entries, _) => {
                let DataType::Struct(kv) = entries.data_type() else {
                    return Err(Error::schema(format!(
                        "field {name}: map entries are not a struct"
                    )));
                };
                if kv.len() != 2 {
                    return Err(Error::schema(format!(
                        "field {name}: map entries have {} fields, not 2",
                        kv.len()
                    )));
                }
                self.elements.push(SchemaElement {
                    name: Text::from(name),
                    repetition_type: Some(repetition(nullable)),
                    num_children: Some(1),
                    converted_type: converted_type_from_logical(&LogicalType::Map),
                    logical_type: Some(LogicalType::Map),
                    field_id,
                    ..SchemaElement::default()
                });
                self.elements.push(SchemaElement {
                    name: Text::from(entries.name().as_str()),
                    repetition_type: Some(FieldRepetitionType::REPEATED),
                    num_children: Some(2),
                    ..SchemaElement::default()
                });
                // Keys are required in Parquet whatever Arrow says (Arrow forbids null keys).
                let key = self.field(&kv[0], kv[0].name(), false, depth + 1)?;
                let value = self.field(&kv[1], kv[1].name(), kv[1].is_nullable(), depth + 1)?;
                Ok(WriteField {
                    nullable,
                    kind: WriteKind::List(Box::new(WriteField {
                        nullable: false,
                        kind: WriteKind::Struct(vec![key, value]),
                    })),
                })
            }
            other => {
                let (mut element, kind) = self.primitive(field, name, other)?;
                if matches!(other, DataType::Null) {
                    // Every value is null: the column must be optional.
                    element.repetition_type = Some(FieldRepetitionType::OPTIONAL);
                } else {
                    element.repetition_type = Some(repetition(nullable));
                }
                element.field_id = field_id;
                if element.converted_type.is_none() {
                    element.converted_type = element
                        .logical_type
                        .as_ref()
                        .and_then(converted_type_from_logical);
                }
                self.elements.push(element);
                let index = self.leaves.len();
                self.leaves.push(LeafInfo { kind });
                Ok(WriteField {
                    nullable: nullable || matches!(other, DataType::Null),
                    kind: WriteKind::Leaf(index),
                })
            }
        }
    }

    fn primitive(
        &self,
        field: &Field,
        name: &str,
        data_type: &DataType,
    ) -> Result<(SchemaElement, LeafKind)> {
        let mut e = SchemaElement {
            name: Text::from(name),
            ..SchemaElement::default()
        };
        let integer = |bit_width: i8, is_signed: bool| LogicalType::Integer {
            bit_width,
            is_signed,
        };
        let mut kind = LeafKind::Plain;
        let (physical, logical) = match data_type {
            DataType::Null => (Type::INT32, Some(LogicalType::Unknown)),
            DataType::Boolean => (Type::BOOLEAN, None),
            DataType::Int8 => (Type::INT32, Some(integer(8, true))),
            DataType::Int16 => (Type::INT32, Some(integer(16, true))),
            DataType::Int32 => (Type::INT32, None),
            DataType::Int64 => (Type::INT64, None),
            DataType::UInt8 => (Type::INT32, Some(integer(8, false))),
            DataType::UInt16 => (Type::INT32, Some(integer(16, false))),
            DataType::UInt32 => (Type::INT32, Some(integer(32, false))),
            DataType::UInt64 => (Type::INT64, Some(integer(64, false))),
            DataType::Float16 => {
                e.type_length = Some(2);
                (Type::FIXED_LEN_BYTE_ARRAY, Some(LogicalType::Float16))
            }
            DataType::Float32 => (Type::FLOAT, None),
            DataType::Float64 => (Type::DOUBLE, None),
            DataType::Decimal32(p, s)
            | DataType::Decimal64(p, s)
            | DataType::Decimal128(p, s)
            | DataType::Decimal256(p, s) => {
                if *s < 0 || i16::from(*s) > i16::from(*p) || *p == 0 {
                    return Err(Error::schema(format!(
                        "field {name}: decimal({p}, {s}) has no Parquet representation \
                         (0 <= scale <= precision, precision >= 1)"
                    )));
                }
                e.precision = Some(i32::from(*p));
                e.scale = Some(i32::from(*s));
                let physical = if *p <= 9 {
                    Type::INT32
                } else if *p <= 18 {
                    Type::INT64
                } else {
                    kind = LeafKind::DecimalBytes;
                    e.type_length = Some(to_i32(decimal_length(*p), "decimal length")?);
                    Type::FIXED_LEN_BYTE_ARRAY
                };
                (
                    physical,
                    Some(LogicalType::Decimal {
                        scale: i32::from(*s),
                        precision: i32::from(*p),
                    }),
                )
            }
            DataType::Date32 => (Type::INT32, Some(LogicalType::Date)),
            DataType::Date64 => {
                kind = LeafKind::MillisToDays;
                (Type::INT32, Some(LogicalType::Date))
            }
            DataType::Time32(unit) => {
                if *unit == TimeUnit::Second {
                    kind = LeafKind::SecondsToMillis;
                }
                (
                    Type::INT32,
                    Some(LogicalType::Time {
                        is_adjusted_to_utc: true,
                        unit: ParquetTimeUnit::Millis,
                    }),
                )
            }
            DataType::Time64(unit) => (
                Type::INT64,
                Some(LogicalType::Time {
                    is_adjusted_to_utc: true,
                    unit: if *unit == TimeUnit::Nanosecond {
                        ParquetTimeUnit::Nanos
                    } else {
                        ParquetTimeUnit::Micros
                    },
                }),
            ),
            DataType::Timestamp(unit, tz) => {
                if self.options.int96_timestamps {
                    kind = LeafKind::Int96;
                    (Type::INT96, None)
                } else {
                    let unit = match unit {
                        TimeUnit::Second => {
                            kind = LeafKind::SecondsToMillis;
                            ParquetTimeUnit::Millis
                        }
                        TimeUnit::Millisecond => ParquetTimeUnit::Millis,
                        TimeUnit::Microsecond => ParquetTimeUnit::Micros,
                        TimeUnit::Nanosecond => ParquetTimeUnit::Nanos,
                    };
                    (
                        Type::INT64,
                        Some(LogicalType::Timestamp {
                            is_adjusted_to_utc: tz.is_some(),
                            unit,
                        }),
                    )
                }
            }
            DataType::Duration(_) => (Type::INT64, None),
            DataType::Interval(IntervalUnit::YearMonth) => {
                kind = LeafKind::IntervalYearMonth;
                e.type_length = Some(12);
                e.converted_type = Some(herringbone_format::metadata::ConvertedType::INTERVAL);
                (Type::FIXED_LEN_BYTE_ARRAY, None)
            }
            DataType::Interval(IntervalUnit::DayTime) => {
                kind = LeafKind::IntervalDayTime;
                e.type_length = Some(12);
                e.converted_type = Some(herringbone_format::metadata::ConvertedType::INTERVAL);
                (Type::FIXED_LEN_BYTE_ARRAY, None)
            }
            DataType::Interval(IntervalUnit::MonthDayNano) => {
                kind = LeafKind::IntervalMonthDayNano;
                e.type_length = Some(12);
                e.converted_type = Some(herringbone_format::metadata::ConvertedType::INTERVAL);
                (Type::FIXED_LEN_BYTE_ARRAY, None)
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                (Type::BYTE_ARRAY, Some(LogicalType::String))
            }
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
                (Type::BYTE_ARRAY, geo_logical_type(field, name)?)
            }
            DataType::FixedSizeBinary(n) => {
                if *n <= 0 {
                    return Err(Error::schema(format!(
                        "field {name}: FixedSizeBinary({n}) has no Parquet representation"
                    )));
                }
                e.type_length = Some(*n);
                let is_uuid = field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str)
                    == Some("arrow.uuid");
                (
                    Type::FIXED_LEN_BYTE_ARRAY,
                    (is_uuid && *n == 16).then_some(LogicalType::Uuid),
                )
            }
            other => {
                return Err(Error::unsupported(format!(
                    "field {name}: Arrow type {other} has no Parquet mapping in this writer"
                )));
            }
        };
        e.type_ = Some(physical);
        e.logical_type = logical;
        Ok((e, kind))
    }
}

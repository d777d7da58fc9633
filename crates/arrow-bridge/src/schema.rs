//! Parquet -> Arrow schema mapping.
//!
//! [`parquet_to_arrow`] turns a [`SchemaDescriptor`] (plus the file's key-value metadata,
//! for the `ARROW:schema` hint) into an Arrow [`Schema`] and, beside it, a
//! [`ParquetField`] tree: for every Arrow field, which Parquet node it comes from, its
//! definition/repetition levels and, for primitives, the leaf column index. The record
//! reader walks that tree; [`ArrowSchemaMapping::project`] prunes it.
//!
//! # Type mapping
//!
//! | Parquet | Arrow |
//! | --- | --- |
//! | `BOOLEAN` | `Boolean` |
//! | `INT32` / `INT64`, `INTEGER(bits, signed)` | `Int8`..`Int64`, `UInt8`..`UInt64` |
//! | `DECIMAL(p, s)` on any physical type | `Decimal128(p, s)` for `p <= 38`, else `Decimal256` |
//! | `DATE` | `Date32` |
//! | `TIME(MILLIS)` / `TIME(MICROS\|NANOS)` | `Time32(ms)` / `Time64(us\|ns)` |
//! | `TIMESTAMP(unit, isAdjustedToUTC)` | `Timestamp(unit, "+00:00")` when adjusted ([`SchemaOptions::with_utc_time_zone`]), else no zone |
//! | `INT96` | `Timestamp(ns)` ([`SchemaOptions::with_int96_unit`] for another unit) |
//! | `FLOAT` / `DOUBLE` / `FLOAT16` | `Float32` / `Float64` / `Float16` |
//! | `STRING`, `ENUM`, `JSON` | `Utf8` ([`SchemaOptions::with_strings`]: `LargeUtf8`, `Utf8View`) |
//! | `BSON`, plain `BYTE_ARRAY` | `Binary` ([`SchemaOptions::with_binaries`]: `LargeBinary`, `BinaryView`) |
//! | `GEOMETRY`, `GEOGRAPHY` | `Binary` with the `geoarrow.wkb` extension metadata |
//! | `UUID` | `FixedSizeBinary(16)` with the `arrow.uuid` extension name |
//! | `INTERVAL` | `Interval(MonthDayNano)` ([`IntervalRepresentation::FixedSizeBinary`]: the raw 12 bytes) |
//! | `FIXED_LEN_BYTE_ARRAY(n)` | `FixedSizeBinary(n)` |
//! | `UNKNOWN` | `Null` |
//! | `LIST` / `MAP` groups | `List` / `Map`, with every backward-compatibility rule of `LogicalTypes.md` |
//! | `VARIANT` group | `Struct` of `metadata`, `value`, `typed_value` with the `arrow.parquet.variant` extension (see [`crate::variant`]) |
//! | other groups | `Struct` |
//! | unannotated `repeated` field | `List` of required elements, named like the field |
//!
//! A `LogicalType` this version does not know, or an unknown `ConvertedType`, reads as the
//! physical type. Field ids go into the field metadata under `PARQUET:field_id`.
//!
//! # The `ARROW:schema` hint
//!
//! Writers from the Arrow family store the original Arrow schema (base64 of an IPC
//! `Schema` message) under the `ARROW:schema` key. Where the hint's type is a faithful
//! reading of the Parquet data it replaces the default: `LargeUtf8`, `LargeBinary`,
//! views, `Dictionary`, time zones, `Duration`, `Date64`, timestamp units of `INT64`
//! and `INT96`, interval units, `Decimal32/64/256`, `LargeList`, `ListView`,
//! `FixedSizeList`, and the hint's field metadata (extension names). Everything else
//! keeps the Parquet mapping. An explicit option ([`SchemaOptions::with_strings`], ...)
//! wins over the hint. The hint is applied field by field: a top-level field it cannot
//! describe (a type this version of Arrow lacks, such as the `Int128` polars writes)
//! keeps the Parquet mapping for that field alone, and every other field still takes its
//! hinted type. A hint that cannot be decoded at all is ignored. Either way the reason
//! is kept in [`ArrowSchemaMapping::arrow_schema_hint_error`]: the hint is an optional
//! refinement, never a reason not to read the data.
//!
//! polars stores an `Int128` column as an unannotated `FIXED_LEN_BYTE_ARRAY(16)` holding
//! the little-endian two's-complement value, with `Int(128)` in its hint. Arrow has no
//! 128-bit integer type, and `Decimal128(38, 0)` cannot hold the values of more than 38
//! digits an `i128` can, so the column reads as its bytes: `FixedSizeBinary(16)`. A
//! `Dictionary` type (from the hint or a
//! supplied schema) keeps dictionary-encoded chunks as `DictionaryArray`s without
//! re-hashing their values (see [`crate::read`]).
//!
//! ```
//! use std::sync::Arc;
//! use arrow_schema::{DataType, Field};
//! use herringbone_arrow_bridge::schema::{parquet_to_arrow, SchemaOptions};
//! use herringbone_format::schema::parse_schema;
//!
//! let parquet = parse_schema(
//!     "message m {
//!        required int64 id;
//!        optional group tags (LIST) { repeated group list { optional binary element (STRING); } }
//!      }",
//! )
//! .unwrap();
//! let mapping = parquet_to_arrow(&parquet, None, &SchemaOptions::default()).unwrap();
//! let element = Arc::new(Field::new("element", DataType::Utf8, true));
//! assert_eq!(mapping.schema().field(1).data_type(), &DataType::List(element));
//! assert_eq!(mapping.leaf_columns(), vec![0, 1]);
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Fields, IntervalUnit, Schema, SchemaRef, TimeUnit};
use herringbone_format::metadata::{
    ConvertedType, EdgeInterpolationAlgorithm, FieldRepetitionType, KeyValue, LogicalType,
    TimeUnit as ParquetTimeUnit, Type,
};
use herringbone_format::schema::{Node, NodeId, NodeKind, SchemaDescriptor};

use crate::error::{Error, Result};

mod hint;

/// Key of the file metadata entry holding the writer's Arrow schema.
pub const ARROW_SCHEMA_META_KEY: &str = "ARROW:schema";
/// The time zone given to `isAdjustedToUTC` timestamps unless
/// [`SchemaOptions::with_utc_time_zone`] says otherwise.
pub const DEFAULT_UTC_TIME_ZONE: &str = "+00:00";
/// Field metadata key carrying a Parquet field id.
pub const PARQUET_FIELD_ID_META_KEY: &str = "PARQUET:field_id";
/// Field metadata key naming an Arrow extension type.
pub const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";
/// Field metadata key holding an Arrow extension type's parameters.
pub const EXTENSION_METADATA_KEY: &str = "ARROW:extension:metadata";
/// The canonical Arrow extension name of a Parquet Variant (as arrow-rs and Arrow C++
/// name it); its extension metadata is the empty string.
pub const VARIANT_EXTENSION_NAME: &str = "arrow.parquet.variant";

/// How text columns (`STRING`, `ENUM`, `JSON`) are returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StringRepresentation {
    /// `Utf8` (32-bit offsets).
    #[default]
    Utf8,
    /// `LargeUtf8` (64-bit offsets).
    LargeUtf8,
    /// `Utf8View` (views into the page or dictionary bytes).
    Utf8View,
}

/// How binary columns (`BSON`, unannotated `BYTE_ARRAY`, geospatial) are returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BinaryRepresentation {
    /// `Binary` (32-bit offsets).
    #[default]
    Binary,
    /// `LargeBinary` (64-bit offsets).
    LargeBinary,
    /// `BinaryView`.
    BinaryView,
}

/// How `INTERVAL` columns (12 bytes: months, days, milliseconds, little-endian `u32`s)
/// are returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IntervalRepresentation {
    /// `Interval(MonthDayNano)`: months and days as stored, milliseconds times 10^6.
    #[default]
    MonthDayNano,
    /// `FixedSizeBinary(12)`: the stored bytes unchanged.
    FixedSizeBinary,
}

/// Options of the Parquet -> Arrow type mapping. The defaults are what arrow-rs and
/// pyarrow return.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaOptions {
    int96_unit: Option<TimeUnit>,
    strings: Option<StringRepresentation>,
    binaries: Option<BinaryRepresentation>,
    interval: IntervalRepresentation,
    ignore_arrow_schema_hint: bool,
    utc_time_zone: Option<Arc<str>>,
}

impl SchemaOptions {
    /// Default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// The unit of `INT96` timestamps (default nanoseconds, whose range is 1677..2262;
    /// older dates need a coarser unit). Wins over the `ARROW:schema` hint.
    pub fn with_int96_unit(mut self, unit: TimeUnit) -> Self {
        self.int96_unit = Some(unit);
        self
    }

    /// The Arrow type of text columns. Wins over the `ARROW:schema` hint.
    pub fn with_strings(mut self, representation: StringRepresentation) -> Self {
        self.strings = Some(representation);
        self
    }

    /// The Arrow type of binary columns. Wins over the `ARROW:schema` hint.
    pub fn with_binaries(mut self, representation: BinaryRepresentation) -> Self {
        self.binaries = Some(representation);
        self
    }

    /// The Arrow type of `INTERVAL` columns.
    pub fn with_interval(mut self, representation: IntervalRepresentation) -> Self {
        self.interval = representation;
        self
    }

    /// The time zone of `isAdjustedToUTC` timestamps (default
    /// [`DEFAULT_UTC_TIME_ZONE`], `"+00:00"`; arrow-rs and pyarrow write `"UTC"`, the
    /// same instant).
    pub fn with_utc_time_zone(mut self, time_zone: impl Into<Arc<str>>) -> Self {
        self.utc_time_zone = Some(time_zone.into());
        self
    }

    /// Whether to apply the `ARROW:schema` hint (default `true`).
    pub fn with_arrow_schema_hint(mut self, apply: bool) -> Self {
        self.ignore_arrow_schema_hint = !apply;
        self
    }

    /// The `INT96` unit requested explicitly, if any.
    pub fn int96_unit(&self) -> Option<TimeUnit> {
        self.int96_unit
    }

    /// The text representation requested explicitly, if any.
    pub fn strings(&self) -> Option<StringRepresentation> {
        self.strings
    }

    /// The binary representation requested explicitly, if any.
    pub fn binaries(&self) -> Option<BinaryRepresentation> {
        self.binaries
    }

    /// The `INTERVAL` representation.
    pub fn interval(&self) -> IntervalRepresentation {
        self.interval
    }
}

/// One Arrow field and where its values come from in the Parquet file.
///
/// Levels follow the Dremel encoding: `def_level` is the definition level at which this
/// field's value is present (not null) — equal to the parent's for a required field;
/// `rep_level` is the repetition level of the innermost list this value belongs to (0
/// outside any list).
#[derive(Debug, Clone, PartialEq)]
pub struct ParquetField {
    /// The Arrow field (name, type, nullability, metadata).
    pub field: FieldRef,
    /// The Parquet node this field was built from (for a list made from an unannotated
    /// `repeated` field, the list and its element share the node).
    pub node: NodeId,
    /// Definition level at which the value is present.
    pub def_level: i16,
    /// Repetition level of the innermost enclosing list (0 at the top level).
    pub rep_level: i16,
    /// What the field is.
    pub kind: ParquetFieldKind,
}

/// The shape of a [`ParquetField`].
#[derive(Debug, Clone, PartialEq)]
pub enum ParquetFieldKind {
    /// A leaf column.
    Primitive {
        /// Index of the leaf column in the file schema.
        column: usize,
        /// Its physical type.
        physical_type: Type,
    },
    /// A struct; children in schema order.
    Struct {
        /// The struct's fields.
        children: Vec<ParquetField>,
    },
    /// A list (`List`, `LargeList`, `ListView`, `LargeListView` or `FixedSizeList`).
    List {
        /// The element.
        element: Box<ParquetField>,
        /// Definition level of the repeated node: a definition level at or above it
        /// means the list has at least one element; between the list's `def_level` and
        /// it, the list is empty.
        entry_def_level: i16,
        /// Repetition level of the repeated node: a value with this repetition level
        /// continues the current list, a lower one starts a new list.
        entry_rep_level: i16,
    },
    /// A map; the key and value are the two children of the repeated `key_value` group.
    Map {
        /// The key. Arrow map keys are never null; a key that is optional in the file
        /// keeps its own `def_level` (above `entry_def_level`) so the reader can reject
        /// an actual null.
        key: Box<ParquetField>,
        /// The value.
        value: Box<ParquetField>,
        /// Definition level of the repeated `key_value` group (see `List`).
        entry_def_level: i16,
        /// Repetition level of the repeated `key_value` group.
        entry_rep_level: i16,
    },
}

impl ParquetField {
    /// The leaf column indices under this field, in schema order.
    pub fn leaf_columns(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.push_leaves(&mut out);
        out
    }

    fn push_leaves(&self, out: &mut Vec<usize>) {
        match &self.kind {
            ParquetFieldKind::Primitive { column, .. } => out.push(*column),
            ParquetFieldKind::Struct { children } => {
                children.iter().for_each(|c| c.push_leaves(out));
            }
            ParquetFieldKind::List { element, .. } => element.push_leaves(out),
            ParquetFieldKind::Map { key, value, .. } => {
                key.push_leaves(out);
                value.push_leaves(out);
            }
        }
    }
}

/// Which part of a file to read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Projection {
    /// Every field.
    #[default]
    All,
    /// These top-level fields (indices into the full Arrow schema), returned in file order.
    Roots(Vec<usize>),
    /// The fields holding these leaf columns (indices into the Parquet schema's columns);
    /// structs keep the selected children only, maps always keep their whole key.
    Leaves(Vec<usize>),
}

impl Projection {
    /// The leaf columns named by dotted Parquet paths: a path selects the column it
    /// names and every column below it (`"a"` selects `a.b` and `a.c.d`; a list's
    /// elements sit below `list.element` or the legacy names, so `"tags"` is the usual way
    /// to select a list). Each column is selected once, whatever the order of `paths`.
    ///
    /// Errors (kind `InvalidArgument`) name a path that matches no column.
    ///
    /// ```
    /// use herringbone_arrow_bridge::schema::Projection;
    /// use herringbone_format::schema::parse_schema;
    /// let schema = parse_schema("message m { required int32 a; optional group s { optional int32 x; optional int32 y; } }").unwrap();
    /// assert_eq!(Projection::from_paths(&schema, &["s.y", "a"]).unwrap(), Projection::Leaves(vec![0, 2]));
    /// assert_eq!(Projection::from_paths(&schema, &["s"]).unwrap(), Projection::Leaves(vec![1, 2]));
    /// assert!(Projection::from_paths(&schema, &["b"]).is_err());
    /// ```
    pub fn from_paths(descriptor: &SchemaDescriptor, paths: &[&str]) -> Result<Projection> {
        let mut selected = vec![false; descriptor.num_columns()];
        for path in paths {
            let wanted: Vec<&str> = path.split('.').collect();
            let mut found = false;
            for (index, column) in descriptor.columns().iter().enumerate() {
                let parts = column.path().parts();
                if parts.len() >= wanted.len()
                    && parts.iter().zip(&wanted).all(|(have, want)| have == want)
                {
                    selected[index] = true;
                    found = true;
                }
            }
            if !found {
                return Err(Error::invalid_argument(format!(
                    "projection: no column at path `{path}`"
                )));
            }
        }
        Ok(Projection::Leaves(
            selected
                .iter()
                .enumerate()
                .filter_map(|(i, keep)| keep.then_some(i))
                .collect(),
        ))
    }
}

/// The Arrow schema of a Parquet file and how each Arrow field is read.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrowSchemaMapping {
    schema: SchemaRef,
    fields: Vec<ParquetField>,
    num_leaves: usize,
    hint_error: Option<String>,
}

impl ArrowSchemaMapping {
    /// The Arrow schema (file key-value metadata as schema metadata, without
    /// `ARROW:schema`).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// One [`ParquetField`] per top-level Arrow field.
    pub fn fields(&self) -> &[ParquetField] {
        &self.fields
    }

    /// Every leaf column this mapping reads, in schema order.
    pub fn leaf_columns(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.fields.iter().for_each(|f| f.push_leaves(&mut out));
        out
    }

    /// Why the file's `ARROW:schema` hint was ignored, when it could not be decoded.
    pub fn arrow_schema_hint_error(&self) -> Option<&str> {
        self.hint_error.as_deref()
    }

    /// The mapping with the caller's Arrow schema imposed (a reader's "supplied schema"
    /// option): same top-level field names in the same order (after any projection),
    /// the same nesting, and leaf types that read the stored values faithfully (the
    /// rules of the `ARROW:schema` hint: e.g. `INT96` as any timestamp unit, strings as
    /// `LargeUtf8` or views, a dictionary, a time zone). The result's schema is exactly
    /// `schema`.
    ///
    /// Errors (kind `InvalidArgument`) name the first field that cannot be read so.
    pub fn with_supplied_schema(&self, schema: &Schema) -> Result<ArrowSchemaMapping> {
        if schema.fields().len() != self.fields.len() {
            return Err(Error::invalid_argument(format!(
                "supplied schema has {} fields, the file (after projection) {}",
                schema.fields().len(),
                self.fields.len()
            )));
        }
        let mut fields = Vec::with_capacity(self.fields.len());
        for (field, wanted) in self.fields.iter().zip(schema.fields()) {
            if field.field.name() != wanted.name() {
                return Err(Error::invalid_argument(format!(
                    "supplied schema: field `{}` where the file has `{}`",
                    wanted.name(),
                    field.field.name()
                )));
            }
            fields.push(hint::coerce(field, wanted, "")?);
        }
        Ok(ArrowSchemaMapping {
            schema: Arc::new(schema.clone()),
            fields,
            num_leaves: self.num_leaves,
            hint_error: self.hint_error.clone(),
        })
    }

    /// The mapping restricted to a projection. Leaf column indices stay those of the
    /// file.
    ///
    /// Errors when an index is out of range.
    pub fn project(&self, projection: &Projection) -> Result<ArrowSchemaMapping> {
        let fields: Vec<ParquetField> = match projection {
            Projection::All => self.fields.clone(),
            Projection::Roots(roots) => {
                let mut keep = vec![false; self.fields.len()];
                for &root in roots {
                    *keep.get_mut(root).ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "projection: root field {root} out of range (the schema has {} fields)",
                            self.fields.len()
                        ))
                    })? = true;
                }
                self.fields
                    .iter()
                    .zip(keep)
                    .filter(|(_, keep)| *keep)
                    .map(|(f, _)| f.clone())
                    .collect()
            }
            Projection::Leaves(leaves) => {
                let mut keep = vec![false; self.num_leaves];
                for &leaf in leaves {
                    *keep.get_mut(leaf).ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "projection: leaf column {leaf} out of range (the schema has {} columns)",
                            self.num_leaves
                        ))
                    })? = true;
                }
                self.fields.iter().filter_map(|f| prune(f, &keep)).collect()
            }
        };
        let schema = Schema::new(fields.iter().map(|f| f.field.clone()).collect::<Fields>())
            .with_metadata(self.schema.metadata().clone());
        Ok(ArrowSchemaMapping {
            schema: Arc::new(schema),
            fields,
            num_leaves: self.num_leaves,
            hint_error: self.hint_error.clone(),
        })
    }
}

/// The Arrow schema and field tree of a Parquet schema.
///
/// `key_value_metadata` is the file's (`FileMetaData.key_value_metadata`): it becomes the
/// schema metadata, and its `ARROW:schema` entry is applied as a hint unless disabled.
///
/// Errors name the Parquet path of a group that breaks the nested-types rules (a `LIST`
/// or `MAP` group without exactly one repeated child, a `key_value` group with more than
/// two fields) or a type Arrow cannot hold (a decimal of more than 76 digits).
pub fn parquet_to_arrow(
    descriptor: &SchemaDescriptor,
    key_value_metadata: Option<&[KeyValue]>,
    options: &SchemaOptions,
) -> Result<ArrowSchemaMapping> {
    let mut metadata = HashMap::new();
    let mut hint_text = None;
    for kv in key_value_metadata.unwrap_or(&[]) {
        if kv.key.as_str() == ARROW_SCHEMA_META_KEY {
            hint_text = kv.value.as_ref().map(|v| v.as_str());
        } else if let Some(value) = &kv.value {
            metadata.insert(kv.key.to_string(), value.to_string());
        }
    }
    let converter = Converter {
        descriptor,
        options,
        key_value_metadata: key_value_metadata.unwrap_or(&[]),
    };
    let root = descriptor.root();
    let top = Levels { def: 0, rep: 0 };
    let mut fields = Vec::with_capacity(root.children().len());
    for &child in root.children() {
        fields.push(converter.convert_field(converter.node(child)?, top, false)?);
    }

    let mut hint_errors = Vec::new();
    if let Some(text) = hint_text.filter(|_| !options.ignore_arrow_schema_hint) {
        match hint::decode_arrow_schema(text) {
            Ok(hint_schema) => {
                for (key, value) in hint_schema.metadata {
                    metadata.entry(key).or_insert(value);
                }
                if hint_schema.fields.len() == fields.len() {
                    // Field by field: one the hint cannot describe keeps the Parquet type.
                    fields = fields
                        .into_iter()
                        .zip(hint_schema.fields)
                        .map(|(field, hint_field)| match hint_field {
                            Ok(hint_field) if field.field.name() == hint_field.name() => {
                                converter.merge_hint(field, &hint_field)
                            }
                            Ok(_) => field,
                            Err(e) => {
                                hint_errors.push(format!("{e} (read with its Parquet type)"));
                                field
                            }
                        })
                        .collect();
                } else {
                    hint_errors.push(format!(
                        "ARROW:schema has {} fields, the Parquet schema {}",
                        hint_schema.fields.len(),
                        fields.len()
                    ));
                }
            }
            Err(e) => hint_errors.push(e.to_string()),
        }
    }
    let hint_error = (!hint_errors.is_empty()).then(|| hint_errors.join("; "));

    let schema = Schema::new(fields.iter().map(|f| f.field.clone()).collect::<Fields>())
        .with_metadata(metadata);
    Ok(ArrowSchemaMapping {
        schema: Arc::new(schema),
        fields,
        num_leaves: descriptor.num_columns(),
        hint_error,
    })
}

/// The Arrow schema of a Parquet schema (see [`parquet_to_arrow`]).
pub fn parquet_to_arrow_schema(
    descriptor: &SchemaDescriptor,
    key_value_metadata: Option<&[KeyValue]>,
    options: &SchemaOptions,
) -> Result<SchemaRef> {
    Ok(parquet_to_arrow(descriptor, key_value_metadata, options)?
        .schema
        .clone())
}

#[derive(Debug, Clone, Copy)]
struct Levels {
    def: i16,
    rep: i16,
}

impl Levels {
    fn optional(self) -> Result<Levels> {
        Ok(Levels {
            def: self.def.checked_add(1).ok_or_else(levels_overflow)?,
            rep: self.rep,
        })
    }

    fn repeated(self) -> Result<Levels> {
        Ok(Levels {
            def: self.def.checked_add(1).ok_or_else(levels_overflow)?,
            rep: self.rep.checked_add(1).ok_or_else(levels_overflow)?,
        })
    }
}

fn levels_overflow() -> Error {
    Error::schema("schema nesting exceeds the 16-bit definition/repetition level range")
}

struct Converter<'a> {
    descriptor: &'a SchemaDescriptor,
    options: &'a SchemaOptions,
    key_value_metadata: &'a [KeyValue],
}

impl Converter<'_> {
    fn node(&self, id: NodeId) -> Result<&Node> {
        self.descriptor
            .node(id)
            .ok_or_else(|| Error::schema(format!("schema node {id} does not exist")))
    }

    /// Dotted path of a node, for error messages.
    fn path(&self, node: &Node) -> String {
        let mut parts = vec![node.name().to_string()];
        let mut parent = node.parent();
        while let Some(id) = parent {
            match self.descriptor.node(id) {
                Some(p) if p.parent().is_some() => {
                    parts.push(p.name().to_string());
                    parent = p.parent();
                }
                _ => break,
            }
        }
        parts.reverse();
        parts.join(".")
    }

    /// Converts `node` below a parent at `parent` levels. `as_required` treats the node
    /// as `REQUIRED` whatever its repetition (the element of a two-level list, or the
    /// element made from an unannotated repeated field).
    fn convert_field(
        &self,
        node: &Node,
        parent: Levels,
        as_required: bool,
    ) -> Result<ParquetField> {
        let repetition = if as_required {
            FieldRepetitionType::REQUIRED
        } else {
            node.repetition().unwrap_or(FieldRepetitionType::REQUIRED)
        };
        if repetition == FieldRepetitionType::REPEATED {
            // An unannotated repeated field (or group) is a list of required elements.
            let entry = parent.repeated()?;
            let element = self.convert_field(node, entry, true)?;
            let field = Field::new(node.name(), DataType::List(element.field.clone()), false)
                .with_metadata(self.field_metadata(node, HashMap::new()));
            return Ok(ParquetField {
                field: Arc::new(field),
                node: node.id(),
                def_level: parent.def,
                rep_level: parent.rep,
                kind: ParquetFieldKind::List {
                    element: Box::new(element),
                    entry_def_level: entry.def,
                    entry_rep_level: entry.rep,
                },
            });
        }
        let nullable = repetition == FieldRepetitionType::OPTIONAL;
        let levels = if nullable { parent.optional()? } else { parent };
        match node.kind() {
            NodeKind::Primitive {
                physical_type,
                column,
                ..
            } => {
                let (data_type, extension) = self.primitive_type(node, *physical_type)?;
                let field = Field::new(node.name(), data_type, nullable)
                    .with_metadata(self.field_metadata(node, extension));
                Ok(ParquetField {
                    field: Arc::new(field),
                    node: node.id(),
                    def_level: levels.def,
                    rep_level: levels.rep,
                    kind: ParquetFieldKind::Primitive {
                        column: *column,
                        physical_type: *physical_type,
                    },
                })
            }
            NodeKind::Group { children } => {
                if is_list(node) {
                    self.convert_list(node, levels, nullable)
                } else if is_map(node) {
                    self.convert_map(node, levels, nullable)
                } else {
                    let mut fields = Vec::with_capacity(children.len());
                    for &child in children {
                        fields.push(self.convert_field(self.node(child)?, levels, false)?);
                    }
                    let data_type =
                        DataType::Struct(fields.iter().map(|f| f.field.clone()).collect());
                    let field = Field::new(node.name(), data_type, nullable)
                        .with_metadata(self.field_metadata(node, HashMap::new()));
                    let field = ParquetField {
                        field: Arc::new(field),
                        node: node.id(),
                        def_level: levels.def,
                        rep_level: levels.rep,
                        kind: ParquetFieldKind::Struct { children: fields },
                    };
                    if matches!(node.logical_type(), Some(LogicalType::Variant { .. })) {
                        return Ok(variant_struct(field));
                    }
                    Ok(field)
                }
            }
        }
    }

    /// A `LIST`-annotated group (LogicalTypes.md, "Lists", including the
    /// backward-compatibility rules for two-level lists).
    fn convert_list(&self, node: &Node, levels: Levels, nullable: bool) -> Result<ParquetField> {
        let repeated = match node.children() {
            [only] => self.node(*only)?,
            other => {
                return Err(Error::schema(format!(
                    "LIST-annotated group `{}` must have exactly one child, it has {}",
                    self.path(node),
                    other.len()
                )));
            }
        };
        if repeated.repetition() != Some(FieldRepetitionType::REPEATED) {
            return Err(Error::schema(format!(
                "LIST-annotated group `{}`: its child `{}` must be repeated",
                self.path(node),
                repeated.name()
            )));
        }
        let entry = levels.repeated()?;
        // The repeated field is itself the element (two-level list, required elements)
        // when it is a primitive, a group of several fields, a group whose only field
        // is repeated, or a group named `array` or `<list name>_tuple`; otherwise its
        // only child is the element (the standard three-level list).
        let two_level = match repeated.children() {
            _ if repeated.is_primitive() => true,
            [only] => {
                repeated.name() == "array"
                    || repeated.name() == format!("{}_tuple", node.name())
                    || self.node(*only)?.repetition() == Some(FieldRepetitionType::REPEATED)
            }
            _ => true,
        };
        let element = if two_level {
            self.convert_field(repeated, entry, true)?
        } else {
            self.convert_field(self.node(repeated.children()[0])?, entry, false)?
        };
        let field = Field::new(node.name(), DataType::List(element.field.clone()), nullable)
            .with_metadata(self.field_metadata(node, HashMap::new()));
        Ok(ParquetField {
            field: Arc::new(field),
            node: node.id(),
            def_level: levels.def,
            rep_level: levels.rep,
            kind: ParquetFieldKind::List {
                element: Box::new(element),
                entry_def_level: entry.def,
                entry_rep_level: entry.rep,
            },
        })
    }

    /// A `MAP` (or legacy `MAP_KEY_VALUE`) group (LogicalTypes.md, "Maps").
    fn convert_map(&self, node: &Node, levels: Levels, nullable: bool) -> Result<ParquetField> {
        let key_value = match node.children() {
            [only] => self.node(*only)?,
            other => {
                return Err(Error::schema(format!(
                    "MAP-annotated group `{}` must have exactly one child, it has {}",
                    self.path(node),
                    other.len()
                )));
            }
        };
        if key_value.repetition() != Some(FieldRepetitionType::REPEATED) || key_value.is_primitive()
        {
            return Err(Error::schema(format!(
                "MAP-annotated group `{}`: its child `{}` must be a repeated group",
                self.path(node),
                key_value.name()
            )));
        }
        let entry = levels.repeated()?;
        let (key, value) = match key_value.children() {
            [key] => {
                // A map without values reads as the list of its keys (as pyarrow and
                // arrow-rs read it).
                let element = self.convert_field(self.node(*key)?, entry, false)?;
                let field =
                    Field::new(node.name(), DataType::List(element.field.clone()), nullable)
                        .with_metadata(self.field_metadata(node, HashMap::new()));
                return Ok(ParquetField {
                    field: Arc::new(field),
                    node: node.id(),
                    def_level: levels.def,
                    rep_level: levels.rep,
                    kind: ParquetFieldKind::List {
                        element: Box::new(element),
                        entry_def_level: entry.def,
                        entry_rep_level: entry.rep,
                    },
                });
            }
            [key, value] => (*key, *value),
            other => {
                return Err(Error::schema(format!(
                    "MAP-annotated group `{}`: the repeated group `{}` must hold a key and a \
                     value, it has {} fields",
                    self.path(node),
                    key_value.name(),
                    other.len()
                )));
            }
        };
        let mut key = self.convert_field(self.node(key)?, entry, false)?;
        if key.field.is_nullable() {
            // Arrow map keys are non-null; some writers still mark them optional
            // (DuckDB reads such files). The key keeps its definition level.
            key.field = Arc::new(key.field.as_ref().clone().with_nullable(false));
        }
        let value = self.convert_field(self.node(value)?, entry, false)?;
        let data_type = map_type(
            key_value.name(),
            key.field.clone(),
            value.field.clone(),
            false,
        );
        let field = Field::new(node.name(), data_type, nullable)
            .with_metadata(self.field_metadata(node, HashMap::new()));
        Ok(ParquetField {
            field: Arc::new(field),
            node: node.id(),
            def_level: levels.def,
            rep_level: levels.rep,
            kind: ParquetFieldKind::Map {
                key: Box::new(key),
                value: Box::new(value),
                entry_def_level: entry.def,
                entry_rep_level: entry.rep,
            },
        })
    }

    fn field_metadata(
        &self,
        node: &Node,
        mut metadata: HashMap<String, String>,
    ) -> HashMap<String, String> {
        if let Some(id) = node.field_id() {
            metadata.insert(PARQUET_FIELD_ID_META_KEY.to_string(), id.to_string());
        }
        metadata
    }

    /// The Arrow type of a leaf and any extension-type metadata it carries.
    fn primitive_type(
        &self,
        node: &Node,
        physical: Type,
    ) -> Result<(DataType, HashMap<String, String>)> {
        let logical = node.resolved_logical_type();
        let mut extension = HashMap::new();
        let data_type = match (physical, &logical) {
            (_, Some(LogicalType::Unknown)) => DataType::Null,
            (Type::BOOLEAN, _) => DataType::Boolean,
            (
                Type::INT32 | Type::INT64,
                Some(LogicalType::Integer {
                    bit_width,
                    is_signed,
                }),
            ) => match (bit_width, is_signed) {
                (8, true) => DataType::Int8,
                (16, true) => DataType::Int16,
                (32, true) => DataType::Int32,
                (64, true) => DataType::Int64,
                (8, false) => DataType::UInt8,
                (16, false) => DataType::UInt16,
                (32, false) => DataType::UInt32,
                (64, false) => DataType::UInt64,
                _ => {
                    return Err(Error::schema(format!(
                        "column `{}`: INTEGER({bit_width}, {is_signed}) is not a valid \
                             integer annotation",
                        self.path(node)
                    )));
                }
            },
            (
                Type::INT32 | Type::INT64 | Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY,
                Some(LogicalType::Decimal { precision, scale }),
            ) => self.decimal_type(node, *precision, *scale)?,
            (Type::INT32, Some(LogicalType::Date)) => DataType::Date32,
            (
                Type::INT32,
                Some(LogicalType::Time {
                    unit: ParquetTimeUnit::Millis,
                    ..
                }),
            ) => DataType::Time32(TimeUnit::Millisecond),
            (Type::INT32, _) => DataType::Int32,
            (
                Type::INT64,
                Some(LogicalType::Time {
                    unit: ParquetTimeUnit::Micros,
                    ..
                }),
            ) => DataType::Time64(TimeUnit::Microsecond),
            (
                Type::INT64,
                Some(LogicalType::Time {
                    unit: ParquetTimeUnit::Nanos,
                    ..
                }),
            ) => DataType::Time64(TimeUnit::Nanosecond),
            (
                Type::INT64,
                Some(LogicalType::Timestamp {
                    is_adjusted_to_utc,
                    unit,
                }),
            ) => DataType::Timestamp(
                arrow_unit(*unit),
                is_adjusted_to_utc.then(|| {
                    self.options
                        .utc_time_zone
                        .clone()
                        .unwrap_or_else(|| DEFAULT_UTC_TIME_ZONE.into())
                }),
            ),
            (Type::INT64, _) => DataType::Int64,
            (Type::INT96, _) => DataType::Timestamp(
                self.options.int96_unit.unwrap_or(TimeUnit::Nanosecond),
                None,
            ),
            (Type::FLOAT, _) => DataType::Float32,
            (Type::DOUBLE, _) => DataType::Float64,
            (
                Type::BYTE_ARRAY,
                Some(LogicalType::String | LogicalType::Enum | LogicalType::Json),
            ) => self.string_type(),
            (Type::BYTE_ARRAY, Some(LogicalType::Geometry { crs })) => {
                self.geoarrow_metadata(&mut extension, crs.as_deref(), None);
                self.binary_type()
            }
            (Type::BYTE_ARRAY, Some(LogicalType::Geography { crs, algorithm })) => {
                let edges = algorithm.map_or("spherical", edges_name);
                self.geoarrow_metadata(&mut extension, crs.as_deref(), Some(edges));
                self.binary_type()
            }
            (Type::BYTE_ARRAY, _) => self.binary_type(),
            (Type::FIXED_LEN_BYTE_ARRAY, _) => {
                let length = node.type_length().unwrap_or(0);
                match &logical {
                    Some(LogicalType::Uuid) => {
                        extension.insert(EXTENSION_NAME_KEY.to_string(), "arrow.uuid".to_string());
                        DataType::FixedSizeBinary(16)
                    }
                    Some(LogicalType::Float16) => DataType::Float16,
                    _ if node.converted_type() == Some(ConvertedType::INTERVAL) => {
                        match self.options.interval {
                            IntervalRepresentation::MonthDayNano => {
                                DataType::Interval(IntervalUnit::MonthDayNano)
                            }
                            IntervalRepresentation::FixedSizeBinary => {
                                DataType::FixedSizeBinary(12)
                            }
                        }
                    }
                    _ if length > 0 => DataType::FixedSizeBinary(length),
                    _ => {
                        return Err(Error::schema(format!(
                            "column `{}`: FIXED_LEN_BYTE_ARRAY needs a positive type_length, \
                             it has {length}",
                            self.path(node)
                        )));
                    }
                }
            }
            (other, _) => {
                return Err(Error::schema(format!(
                    "column `{}`: unknown physical type {other:?}",
                    self.path(node)
                )));
            }
        };
        Ok((data_type, extension))
    }

    fn decimal_type(&self, node: &Node, precision: i32, scale: i32) -> Result<DataType> {
        let invalid = || {
            Error::schema(format!(
                "column `{}`: DECIMAL({precision}, {scale}) cannot be held by an Arrow decimal \
                 (precision 1..=76, scale 0..=precision)",
                self.path(node)
            ))
        };
        let p = u8::try_from(precision).map_err(|_| invalid())?;
        let s = i8::try_from(scale).map_err(|_| invalid())?;
        if p == 0 || s < 0 || i32::from(s) > precision {
            return Err(invalid());
        }
        if p <= arrow_schema::DECIMAL128_MAX_PRECISION {
            Ok(DataType::Decimal128(p, s))
        } else if p <= arrow_schema::DECIMAL256_MAX_PRECISION {
            Ok(DataType::Decimal256(p, s))
        } else {
            Err(invalid())
        }
    }

    fn string_type(&self) -> DataType {
        match self.options.strings.unwrap_or_default() {
            StringRepresentation::Utf8 => DataType::Utf8,
            StringRepresentation::LargeUtf8 => DataType::LargeUtf8,
            StringRepresentation::Utf8View => DataType::Utf8View,
        }
    }

    fn binary_type(&self) -> DataType {
        match self.options.binaries.unwrap_or_default() {
            BinaryRepresentation::Binary => DataType::Binary,
            BinaryRepresentation::LargeBinary => DataType::LargeBinary,
            BinaryRepresentation::BinaryView => DataType::BinaryView,
        }
    }

    /// The `geoarrow.wkb` extension (GeoArrow metadata: `crs`, `crs_type`, `edges`) for
    /// a `GEOMETRY`/`GEOGRAPHY` column. Parquet's CRS forms: none means `OGC:CRS84`;
    /// `srid:<n>` is an SRID; `projjson:<key>` names the file metadata entry that holds
    /// the PROJJSON; anything else is passed on as a string.
    fn geoarrow_metadata(
        &self,
        extension: &mut HashMap<String, String>,
        crs: Option<&str>,
        edges: Option<&str>,
    ) {
        let mut json = String::from("{");
        match crs {
            None => json.push_str("\"crs\":\"OGC:CRS84\""),
            Some(crs) => {
                if let Some(srid) = crs.strip_prefix("srid:") {
                    json.push_str("\"crs\":");
                    push_json_string(&mut json, srid);
                    json.push_str(",\"crs_type\":\"srid\"");
                } else if let Some(projjson) = crs.strip_prefix("projjson:").and_then(|key| {
                    self.key_value_metadata
                        .iter()
                        .find(|kv| kv.key.as_str() == key)
                        .and_then(|kv| kv.value.as_ref())
                }) {
                    json.push_str("\"crs\":");
                    json.push_str(projjson.as_str().trim());
                    json.push_str(",\"crs_type\":\"projjson\"");
                } else {
                    json.push_str("\"crs\":");
                    push_json_string(&mut json, crs);
                }
            }
        }
        if let Some(edges) = edges {
            json.push_str(",\"edges\":");
            push_json_string(&mut json, edges);
        }
        json.push('}');
        extension.insert(EXTENSION_NAME_KEY.to_string(), "geoarrow.wkb".to_string());
        extension.insert(EXTENSION_METADATA_KEY.to_string(), json);
    }
}

fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn edges_name(algorithm: EdgeInterpolationAlgorithm) -> &'static str {
    match algorithm {
        EdgeInterpolationAlgorithm::VINCENTY => "vincenty",
        EdgeInterpolationAlgorithm::THOMAS => "thomas",
        EdgeInterpolationAlgorithm::ANDOYER => "andoyer",
        EdgeInterpolationAlgorithm::KARNEY => "karney",
        _ => "spherical",
    }
}

fn arrow_unit(unit: ParquetTimeUnit) -> TimeUnit {
    match unit {
        ParquetTimeUnit::Millis => TimeUnit::Millisecond,
        ParquetTimeUnit::Micros => TimeUnit::Microsecond,
        ParquetTimeUnit::Nanos => TimeUnit::Nanosecond,
    }
}

fn is_list(node: &Node) -> bool {
    match node.logical_type() {
        Some(LogicalType::List) => true,
        Some(LogicalType::Unrecognized { .. }) | None => {
            node.converted_type() == Some(ConvertedType::LIST)
        }
        Some(_) => false,
    }
}

fn is_map(node: &Node) -> bool {
    match node.logical_type() {
        Some(LogicalType::Map) => true,
        Some(LogicalType::Unrecognized { .. }) | None => match node.converted_type() {
            Some(ConvertedType::MAP) => true,
            // MAP_KEY_VALUE belongs on the repeated key_value group; some old writers
            // put it on the map group itself, which then reads as a map.
            Some(ConvertedType::MAP_KEY_VALUE) => {
                node.repetition() != Some(FieldRepetitionType::REPEATED)
            }
            _ => false,
        },
        Some(_) => false,
    }
}

fn map_type(entries_name: &str, key: FieldRef, value: FieldRef, sorted: bool) -> DataType {
    let entries = Field::new(
        entries_name,
        DataType::Struct(Fields::from(vec![key, value])),
        false,
    );
    DataType::Map(Arc::new(entries), sorted)
}

/// `data_type` (a list type) with a new element field, keeping the list flavour.
fn with_list_element(data_type: &DataType, element: FieldRef) -> DataType {
    match data_type {
        DataType::LargeList(_) => DataType::LargeList(element),
        DataType::ListView(_) => DataType::ListView(element),
        DataType::LargeListView(_) => DataType::LargeListView(element),
        DataType::FixedSizeList(_, n) => DataType::FixedSizeList(element, *n),
        _ => DataType::List(element),
    }
}

fn with_type(field: &FieldRef, data_type: DataType) -> FieldRef {
    Arc::new(field.as_ref().clone().with_data_type(data_type))
}

/// A `VARIANT` group's struct, marked with the Variant extension (see [`crate::variant`]
/// for what its children hold).
fn variant_struct(field: ParquetField) -> ParquetField {
    let mut metadata = field.field.metadata().clone();
    metadata.insert(
        EXTENSION_NAME_KEY.to_string(),
        VARIANT_EXTENSION_NAME.to_string(),
    );
    metadata.insert(EXTENSION_METADATA_KEY.to_string(), String::new());
    ParquetField {
        field: Arc::new(field.field.as_ref().clone().with_metadata(metadata)),
        ..field
    }
}

/// `field` restricted to the selected leaves; `None` when none of its leaves is selected.
fn prune(field: &ParquetField, keep: &[bool]) -> Option<ParquetField> {
    match &field.kind {
        ParquetFieldKind::Primitive { column, .. } => keep
            .get(*column)
            .copied()
            .unwrap_or(false)
            .then(|| field.clone()),
        ParquetFieldKind::Struct { children } => {
            let kept: Vec<ParquetField> = children.iter().filter_map(|c| prune(c, keep)).collect();
            if kept.is_empty() {
                return None;
            }
            let data_type = DataType::Struct(kept.iter().map(|c| c.field.clone()).collect());
            Some(ParquetField {
                field: with_type(&field.field, data_type),
                kind: ParquetFieldKind::Struct { children: kept },
                ..field.clone()
            })
        }
        ParquetFieldKind::List {
            element,
            entry_def_level,
            entry_rep_level,
        } => {
            let element = prune(element, keep)?;
            let data_type = with_list_element(field.field.data_type(), element.field.clone());
            Some(ParquetField {
                field: with_type(&field.field, data_type),
                kind: ParquetFieldKind::List {
                    element: Box::new(element),
                    entry_def_level: *entry_def_level,
                    entry_rep_level: *entry_rep_level,
                },
                ..field.clone()
            })
        }
        ParquetFieldKind::Map {
            key,
            value,
            entry_def_level,
            entry_rep_level,
        } => {
            // A map cannot lose its key; a value none of whose leaves is selected is
            // kept whole, since an Arrow map needs one.
            let pruned_value = prune(value, keep);
            let key_selected = key
                .leaf_columns()
                .iter()
                .any(|&c| keep.get(c) == Some(&true));
            if pruned_value.is_none() && !key_selected {
                return None;
            }
            let value = pruned_value.unwrap_or_else(|| value.as_ref().clone());
            let DataType::Map(entries, sorted) = field.field.data_type() else {
                return Some(field.clone());
            };
            let data_type = map_type(
                entries.name(),
                key.field.clone(),
                value.field.clone(),
                *sorted,
            );
            Some(ParquetField {
                field: with_type(&field.field, data_type),
                kind: ParquetFieldKind::Map {
                    key: key.clone(),
                    value: Box::new(value),
                    entry_def_level: *entry_def_level,
                    entry_rep_level: *entry_rep_level,
                },
                ..field.clone()
            })
        }
    }
}

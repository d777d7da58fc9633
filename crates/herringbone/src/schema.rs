//! Schemas: the Parquet schema tree, its text form, and the Parquet <-> Arrow mapping.
//!
//! A Parquet file's schema is a tree ([`SchemaDescriptor`]) whose leaves are the
//! columns ([`ColumnDescriptor`]: path, physical and logical type, maximum definition
//! and repetition levels). The reader maps it to an Arrow schema by the rules of
//! [`parquet_to_arrow_schema`] — the table below — refined by the writer's
//! `ARROW:schema` hint where the file has one, and by [`SchemaOptions`].
//!
//! | Parquet | Arrow |
//! | --- | --- |
//! | `BOOLEAN` | `Boolean` |
//! | `INT32` / `INT64`, `INTEGER(bits, signed)` | `Int8`..`Int64`, `UInt8`..`UInt64` |
//! | `DECIMAL(p, s)` | `Decimal128(p, s)` for `p <= 38`, else `Decimal256` |
//! | `DATE`, `TIME`, `TIMESTAMP` | `Date32`, `Time32` / `Time64`, `Timestamp` (zone `+00:00` when adjusted to UTC) |
//! | `INT96` | `Timestamp(ns)` ([`SchemaOptions::with_int96_unit`]) |
//! | `FLOAT` / `DOUBLE` / `FLOAT16` | `Float32` / `Float64` / `Float16` |
//! | `STRING`, `ENUM`, `JSON` | `Utf8` ([`SchemaOptions::with_strings`]: `LargeUtf8`, `Utf8View`) |
//! | `BSON`, plain `BYTE_ARRAY` | `Binary` ([`SchemaOptions::with_binaries`]) |
//! | `UUID`, `FIXED_LEN_BYTE_ARRAY(n)` | `FixedSizeBinary(16)` (`arrow.uuid`), `FixedSizeBinary(n)` |
//! | `INTERVAL` | `Interval(MonthDayNano)` |
//! | `LIST` / `MAP` / other groups | `List` / `Map` / `Struct` |
//!
//! ```
//! # fn main() -> Result<(), herringbone::Error> {
//! use arrow_schema::DataType;
//! use herringbone::schema::{parquet_to_arrow_schema, parse_schema, SchemaOptions, StringRepresentation};
//!
//! let parquet = parse_schema(
//!     "message m { required int64 id; optional binary name (STRING); }",
//! )?;
//! assert_eq!(parquet.column(1).unwrap().path().to_string(), "name");
//! let options = SchemaOptions::new().with_strings(StringRepresentation::Utf8View);
//! let arrow = parquet_to_arrow_schema(&parquet, None, &options)?;
//! assert_eq!(arrow.field(1).data_type(), &DataType::Utf8View);
//! # Ok(())
//! # }
//! ```

pub use herringbone_arrow_bridge::schema::{
    ARROW_SCHEMA_META_KEY, ArrowSchemaMapping, BinaryRepresentation, DEFAULT_UTC_TIME_ZONE,
    EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY, IntervalRepresentation, PARQUET_FIELD_ID_META_KEY,
    ParquetField, ParquetFieldKind, SchemaOptions, StringRepresentation, parquet_to_arrow,
    parquet_to_arrow_schema,
};
pub use herringbone_arrow_bridge::write::{ArrowToParquetOptions, ParquetSchema, arrow_to_parquet};
pub use herringbone_format::schema::{
    ColumnDescriptor, ColumnPath, MAX_SCHEMA_DEPTH, Node, NodeId, NodeKind, SchemaDescriptor,
    parse_message_type, parse_schema,
};

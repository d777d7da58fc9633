//! The schema tree built from the footer's flat `SchemaElement` list.
//!
//! [`SchemaDescriptor::new`] rebuilds the tree (iteratively, nesting bounded by
//! [`MAX_SCHEMA_DEPTH`]) and validates it; each leaf gets a [`ColumnDescriptor`] with
//! its path, resolved logical type and maximum definition/repetition levels.
//! [`logical_type_from_converted`] and [`converted_type_from_logical`] are the two
//! compatibility tables of the logical-types specification. [`SchemaDescriptor::to_text`]
//! prints the textual `message schema { ... }` form and [`parse_message_type`] reads it.
//!
//! # Validation
//!
//! Errors: a root that is not a group; a child count that is negative, larger than
//! the elements that follow, or not matched by the list (elements left over or
//! missing); a leaf without physical type, or with an unknown one; a group with a
//! physical type; a `FIXED_LEN_BYTE_ARRAY` without positive `type_length`; an unknown
//! repetition value; nesting deeper than [`MAX_SCHEMA_DEPTH`]; an annotation that does
//! not fit its type (`DECIMAL` precision 1..=9 on `INT32`, 1..=18 on `INT64`, bounded by
//! the byte width on `FIXED_LEN_BYTE_ARRAY`, any on `BYTE_ARRAY`, scale 0..=precision;
//! `INTEGER` widths 8/16/32 on `INT32` and 64 on `INT64`; `DATE` and `TIME(MILLIS)` on
//! `INT32`; `TIME(MICROS|NANOS)` and `TIMESTAMP` on `INT64`; `STRING`, `ENUM`, `JSON`,
//! `BSON`, `GEOMETRY`, `GEOGRAPHY` on `BYTE_ARRAY`; `UUID` on `FIXED_LEN_BYTE_ARRAY(16)`,
//! `FLOAT16` on `(2)`, `INTERVAL` on `(12)`; `LIST`, `MAP`, `MAP_KEY_VALUE`, `VARIANT`
//! on groups only). These are the rules pyarrow (parquet-cpp) and arrow-rs apply; every
//! schema of the parquet-testing corpus that pyarrow opens passes them.
//!
//! Tolerated: a missing repetition below the root (read as `REQUIRED`, as parquet-cpp
//! does), `num_children = 0` on a leaf (parquet-cpp writes it), a `LogicalType` union
//! member this version does not know and an unknown `ConvertedType` value (carried; the
//! column reads as its physical type), and a `ConvertedType` that disagrees with the
//! `LogicalType` (the `LogicalType` wins, as the specification says). Fields that mean
//! nothing for a node (a leaf's `num_children`, a group's `scale`) are kept, so
//! [`SchemaDescriptor::to_elements`] gives back exactly the list it was built from.

mod compat;
mod text;
mod tree;

pub use compat::{converted_type_from_logical, logical_type_from_converted};
pub use text::{parse_message_type, parse_schema};
pub use tree::{
    ColumnDescriptor, ColumnPath, MAX_SCHEMA_DEPTH, MAX_TOTAL_PATH_NAMES, Node, NodeId, NodeKind,
    SchemaDescriptor,
};

use std::borrow::Cow;

use crate::Error;

fn invalid(message: impl Into<Cow<'static, str>>) -> Error {
    Error::invalid(message.into())
}

fn limit_exceeded(message: impl Into<Cow<'static, str>>) -> Error {
    Error::limit_exceeded(message.into())
}

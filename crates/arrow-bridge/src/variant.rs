//! Variant columns in Arrow: reading, shredding, reconstructing, path access, JSON.
//!
//! A Parquet `VARIANT` group reads as an Arrow struct `{metadata, value, typed_value?}`
//! whose field carries the canonical extension type [`VARIANT_EXTENSION_NAME`]
//! (`arrow.parquet.variant`). A shredded `typed_value` stays what the file stores:
//! Arrow structs (objects, one `{value, typed_value}` struct per shredded field), lists
//! (arrays of `{value, typed_value}` elements) and primitives, decoded by the reader
//! like any other column, never re-encoded per row. The kernels here work on such
//! arrays:
//!
//! ```text
//!   JSON text ──json_to_variant──▶ {metadata, value} ──shred(shape)──▶ {metadata, value, typed_value}
//!        ▲                              ▲     │                                   │
//!        └────────variant_to_json───────┘     └──────────unshred◀─────────────────┘
//!                                       variant_get(path, type): shredded columns where it can, else decoded values
//! ```
//!
//! - [`ShreddedType`]: the shape of a shredded column (a text syntax such as
//!   `a:int64,b:[string]` and the Arrow types of each Variant type);
//! - [`unshred`] / [`shred`] / [`infer_shredding`]: between plain and shredded columns,
//!   by the rules of the specification (`VariantShredding.md`);
//! - [`variant_get`]: one path of every row, as an Arrow type or a Variant;
//! - [`variant_to_json`] / [`json_to_variant`], [`variants_as_json`] (a whole batch,
//!   for display);
//! - [`variant_path_columns`]: the leaf columns reading one path needs (a projection);
//! - [`VariantShredding`]: how the writer stores a Variant column (a
//!   `WriterProperties` setting); the reader can also return every Variant column
//!   unshredded (`ParquetRecordBatchReaderBuilder::with_unshredded_variants`).
//!
//! Variant columns nested in structs, lists and maps are found and handled too.

mod binary;
mod convert;
mod display;
mod extension;
mod get;
mod infer;
mod json;
mod levels;
mod nested;
mod primitive;
mod projection;
mod shape;
mod shred;
mod unshred;
mod writing;

use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

use crate::error::{Error, Result};

pub use binary::BinaryColumn;
pub use display::{
    JSON_EXTENSION_NAME, describe_variant_columns, variants_as_json, variants_as_json_schema,
};
pub use extension::{
    METADATA, TYPED_VALUE, VALUE, VARIANT_EXTENSION_NAME, VariantParts, is_variant_field,
    unshredded_type, variant_extension_metadata, variant_field, with_variant_extension,
};
pub use get::variant_get;
pub use infer::{DEFAULT_INFERENCE_ROWS, infer_shredding};
pub use json::{json_to_variant, variant_to_json};
pub use projection::variant_path_columns;
pub use shape::{MAX_SHAPE_DEPTH, PrimitiveType, ShreddedType};
pub use shred::shred;
pub use unshred::unshred;
pub use writing::VariantShredding;

pub(crate) use writing::VariantWritePlan;

/// `array` as a struct, or an error saying a Variant column must be one.
fn as_variant_struct(array: &dyn Array) -> Result<&StructArray> {
    array.as_any().downcast_ref::<StructArray>().ok_or_else(|| {
        Error::invalid_argument(format!(
            "a variant column is a struct of metadata, value and typed_value, not {}",
            array.data_type()
        ))
    })
}

/// `schema` with every Variant field (at any depth) unshredded: `{metadata, value:
/// Binary}`, the metadata's type kept.
pub fn unshredded_schema(schema: &Schema) -> Result<SchemaRef> {
    nested::map_schema(schema, &mut |_, field| {
        let metadata = match field.data_type() {
            DataType::Struct(children) => children
                .iter()
                .find(|c| c.name() == METADATA)
                .map(|c| c.data_type().clone())
                .unwrap_or(DataType::Binary),
            _ => DataType::Binary,
        };
        Ok(field
            .clone()
            .with_data_type(DataType::Struct(Fields::from(vec![
                Field::new(METADATA, metadata, false),
                Field::new(VALUE, DataType::Binary, true),
            ]))))
    })
}

/// `batch` with every Variant column (at any depth) reconstructed by [`unshred`], as
/// [`unshredded_schema`] says.
pub fn unshred_batch(batch: &RecordBatch) -> Result<RecordBatch> {
    nested::map_batch(batch, &mut |path, field, array| {
        let plain = unshred(array).map_err(|e| e.context(format!("variant column {path}")))?;
        let plain = cast_value_to_binary(plain)?;
        Ok((
            field.clone().with_data_type(plain.data_type().clone()),
            std::sync::Arc::new(plain) as arrow_array::ArrayRef,
        ))
    })
}

/// An unshredded struct whose `value` is `Binary` (an unshredded column may come with
/// another binary layout).
fn cast_value_to_binary(plain: StructArray) -> Result<StructArray> {
    if plain.column(1).data_type() == &DataType::Binary {
        return Ok(plain);
    }
    let value = arrow_cast::cast(plain.column(1), &DataType::Binary)?;
    extension::unshredded_struct(plain.column(0).clone(), value, plain.nulls().cloned())
}

//! The Variant binary encoding (Parquet `VariantEncoding.md`): a metadata dictionary of
//! field names plus a self-describing value, decoded without copying, encoded, rendered
//! to and built from JSON, and addressed by path (`$.a.b[2]`); and the Arrow kernels
//! over Variant columns (an Arrow struct `{metadata, value, typed_value?}` with the
//! extension type [`VARIANT_EXTENSION_NAME`]): [`shred`] / [`unshred`] /
//! [`infer_shredding`] by a [`ShreddedType`], [`variant_get`] one path of every row,
//! [`variant_to_json`] / [`json_to_variant`], [`variants_as_json`] for display, and
//! [`VariantShredding`], how the writer stores a Variant column.
//!
//! Reading a Variant column returns its `metadata` and `value` binaries; these types
//! decode them. Errors are the codec's (`herringbone_codec::Error`) and convert into
//! [`crate::Error`] with `?`.
//!
//! ```
//! # fn main() -> Result<(), herringbone::Error> {
//! use herringbone::variant::{Variant, VariantMetadata, VariantValue};
//!
//! let encoded = VariantValue::from_json(r#"{"name": "hb", "tags": [1, 2.5]}"#)?.encode()?;
//! let metadata = VariantMetadata::try_new(&encoded.metadata)?;
//! let variant = Variant::try_new(metadata, &encoded.value)?;
//! assert_eq!(variant.get_path("$.name")?, Some(Variant::String("hb")));
//! assert_eq!(variant.to_json()?, r#"{"name":"hb","tags":[1,2.5]}"#);
//! # Ok(())
//! # }
//! ```

pub use herringbone_arrow_bridge::variant::{
    BinaryColumn, DEFAULT_INFERENCE_ROWS, JSON_EXTENSION_NAME, MAX_SHAPE_DEPTH, PrimitiveType,
    ShreddedType, VARIANT_EXTENSION_NAME, VariantParts, VariantShredding, describe_variant_columns,
    infer_shredding, is_variant_field, json_to_variant, shred, unshred, unshred_batch,
    unshredded_schema, unshredded_type, variant_extension_metadata, variant_field, variant_get,
    variant_path_columns, variant_to_json, variants_as_json, variants_as_json_schema,
    with_variant_extension,
};
pub use herringbone_codec::variant::{
    EncodedVariant, JsonValue, MAX_DEPTH, MetadataBuilder, PathElement, Variant, VariantArray,
    VariantMetadata, VariantObject, VariantPath, VariantValue,
};

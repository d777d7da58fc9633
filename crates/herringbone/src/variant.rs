//! The Variant binary encoding (Parquet `VariantEncoding.md`): a metadata dictionary of
//! field names plus a self-describing value, decoded without copying, encoded, rendered
//! to and built from JSON, and addressed by path (`$.a.b[2]`).
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

pub use herringbone_codec::variant::{
    EncodedVariant, JsonValue, MAX_DEPTH, MetadataBuilder, PathElement, Variant, VariantArray,
    VariantMetadata, VariantObject, VariantPath, VariantValue,
};

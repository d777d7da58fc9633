//! The Variant binary encoding (Parquet `VariantEncoding.md`): a metadata dictionary of
//! strings plus a self-describing value.
//!
//! (module documentation is completed below)

mod json;
mod metadata;
mod owned;
mod path;
mod text;
mod value;

pub use json::JsonValue;
pub use metadata::{METADATA_VERSION, MetadataBuilder, VariantMetadata};
pub use owned::{EncodedVariant, VariantValue};
pub use path::{PathElement, VariantPath};
pub use value::{MAX_DECIMAL_SCALE, Variant, VariantArray, VariantObject};

/// Deepest nesting of objects and arrays accepted when walking a whole value (decode
/// checks, JSON rendering and parsing, conversion to [`VariantValue`]).
pub const MAX_DEPTH: usize = 256;

/// Reads an unsigned little-endian integer of `size` (1 to 4) bytes at `pos`.
pub(crate) fn read_le_uint(bytes: &[u8], pos: usize, size: u8) -> Option<u32> {
    let raw = bytes.get(pos..)?.get(..usize::from(size))?;
    let mut buf = [0u8; 4];
    buf[..raw.len()].copy_from_slice(raw);
    Some(u32::from_le_bytes(buf))
}

/// Appends the low `size` (1 to 4) bytes of `value`, little-endian.
pub(crate) fn push_le_uint(out: &mut Vec<u8>, value: u32, size: u8) {
    out.extend_from_slice(&value.to_le_bytes()[..usize::from(size)]);
}

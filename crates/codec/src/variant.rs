//! The Variant binary encoding (Parquet `VariantEncoding.md`): a metadata dictionary of
//! strings plus a self-describing value, decoded without copying, encoded, rendered to
//! and built from JSON, and addressed by path.
//!
//! # Pieces
//!
//! - [`VariantMetadata`]: a validated view of the metadata (version 1 header,
//!   `sorted_strings`, 1-4 byte offsets); strings by id, ids by name (binary search when
//!   sorted). [`MetadataBuilder`] deduplicates names and writes sorted or insertion-order
//!   dictionaries.
//! - [`Variant`]: a borrowed view of a value. Objects ([`VariantObject`]) find a field by
//!   binary search over their name-sorted field ids; arrays ([`VariantArray`]) index in
//!   O(1). Nested values are decoded when reached, and every offset, size, field id and
//!   string is checked against the buffer on the way; [`Variant::validate`] checks a
//!   whole value (including that object fields are sorted and unique). Errors say what
//!   was wrong and at which byte of the value.
//! - [`VariantValue`]: an owned tree; [`VariantValue::encode`] writes metadata + value
//!   with sorted field names, duplicate names rejected, the smallest field-id and offset
//!   widths, `is_large` only above 255 elements, and short strings below 64 bytes.
//! - [`encode_object_from_fields`] / [`encode_array_from_elements`] assemble containers
//!   from values that are already encoded (e.g. [`VariantObject::field_bytes`]) without
//!   decoding them: how a subset of an object is kept when others are shredded.
//! - [`VariantPath`] / [`Variant::get_path`]: `$.a.b[2]`, `$['odd.key'][0]` lookups that
//!   touch only the containers on the path.
//!
//! Walks over a whole value (validation, JSON, conversion, encoding, JSON parsing) stop
//! at [`MAX_DEPTH`] levels of nesting, so hostile input cannot exhaust the stack.
//!
//! # JSON
//!
//! Rendering ([`Variant::to_json`]) writes compact JSON:
//!
//! | Variant type | JSON |
//! |---|---|
//! | null, boolean, int8-int64 | `null`, `true`/`false`, the integer |
//! | double, float | the shortest decimal that reads back as the same double/float (`0.1`, `1234568000.0`); NaN and infinities as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
//! | decimal4/8/16 | the exact number with all `scale` digits (`12.30` for unscaled 1230, scale 2) |
//! | date | `"YYYY-MM-DD"` (years outside 0-9999 as `+YYYYY`/`-YYYY`) |
//! | timestamp (micros, UTC) | `"YYYY-MM-DDTHH:MM:SS.ffffff+00:00"` |
//! | timestamp_ntz (micros) | `"YYYY-MM-DDTHH:MM:SS.ffffff"` |
//! | timestamp / timestamp_ntz (nanos) | the same with 9 fraction digits |
//! | time_ntz (micros) | `"HH:MM:SS.ffffff"` (a value outside one day is an error) |
//! | string | the string, escaped per RFC 8259 (non-ASCII written as UTF-8) |
//! | binary | standard base64 with padding, as a string |
//! | uuid | `"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"`, lowercase |
//! | object, array | `{...}` with fields in name order, `[...]` |
//!
//! Building ([`VariantValue::from_json`]) reads strict RFC 8259 JSON (no duplicate keys in
//! an object, since a Variant object cannot hold them):
//!
//! - integers (no `.` or exponent) become the smallest of int8/16/32/64 that holds them;
//!   larger ones become decimal16 with scale 0 when they have at most 38 digits;
//! - other numbers become a decimal when their exact value fits in 38 digits with a
//!   scale of at most 38 (decimal4 up to precision 9, decimal8 up to 18, else
//!   decimal16, where the precision is the larger of the digit count and the scale;
//!   the scale is the number of fraction digits written, so `1.50` keeps scale 2 and
//!   `1.5e3` is 1500 with scale 0), and a double otherwise (`1e40`, `0.1e-40`); a number
//!   beyond the double range is an error. Decimals keep JSON numbers exact, which a
//!   double would not (`0.1`);
//! - strings stay strings (no date or timestamp detection).
//!
//! ```
//! use herringbone_codec::variant::{Variant, VariantMetadata, VariantValue};
//!
//! let encoded = VariantValue::from_json(r#"{"name": "hb", "tags": [1, 2.5]}"#)?.encode()?;
//! let metadata = VariantMetadata::try_new(&encoded.metadata)?;
//! let variant = Variant::try_new(metadata, &encoded.value)?;
//! assert_eq!(variant.get_path("$.tags[1]")?, Some(Variant::Decimal4 { unscaled: 25, scale: 1 }));
//! assert_eq!(variant.to_json()?, r#"{"name":"hb","tags":[1,2.5]}"#);
//! # Ok::<(), herringbone_codec::Error>(())
//! ```

mod json;
mod metadata;
mod owned;
mod path;
pub mod text;
mod value;

pub use json::JsonValue;
pub use metadata::{METADATA_VERSION, MetadataBuilder, VariantMetadata};
pub use owned::{
    EncodedVariant, VariantValue, encode_array_from_elements, encode_object_from_fields,
};
pub use path::{PathElement, VariantPath};
pub use value::{MAX_DECIMAL_SCALE, Variant, VariantArray, VariantObject};

/// Deepest nesting of objects and arrays accepted when walking a whole value (decode
/// checks, JSON rendering and parsing, conversion to [`VariantValue`]).
pub const MAX_DEPTH: usize = 256;

/// Reads an unsigned little-endian integer of `size` (1 to 4) bytes at `pos`.
#[inline]
pub(crate) fn read_le_uint(bytes: &[u8], pos: usize, size: u8) -> Option<u32> {
    let raw = bytes.get(pos..)?;
    // One arm per width: these reads sit in every offset and field-id lookup.
    Some(match (size, raw) {
        (1, [b0, ..]) => u32::from(*b0),
        (2, [b0, b1, ..]) => u32::from(u16::from_le_bytes([*b0, *b1])),
        (3, [b0, b1, b2, ..]) => u32::from_le_bytes([*b0, *b1, *b2, 0]),
        (4, [b0, b1, b2, b3, ..]) => u32::from_le_bytes([*b0, *b1, *b2, *b3]),
        _ => return None,
    })
}

/// Appends the low `size` (1 to 4) bytes of `value`, little-endian.
pub(crate) fn push_le_uint(out: &mut Vec<u8>, value: u32, size: u8) {
    out.extend_from_slice(&value.to_le_bytes()[..usize::from(size)]);
}

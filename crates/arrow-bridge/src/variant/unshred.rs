//! Reconstructing plain Variants from a shredded column (the specification's
//! "Reconstructing a Shredded Variant").
//!
//! Per level, `value` and `typed_value` combine as the specification's table says:
//!
//! | `value` | `typed_value` | result |
//! | --- | --- | --- |
//! | null | null | missing: an absent object field; a Variant null at the top and in arrays |
//! | set | null | `value` |
//! | null | set | `typed_value` (a primitive, an array of element levels, an object of field levels) |
//! | set | set | a partially shredded object: the shredded fields plus the fields of `value` |
//!
//! Errors (kind `Corrupt` unless said otherwise): both set when `typed_value` is not an
//! object ("conflicting value and typed_value"); a shredded object with a `value` that is
//! not an object ("non-object value with shredded fields"); a field both shredded and
//! present in `value`; a shredded field name missing from the row's metadata; a
//! `typed_value` of a type the specification does not allow (kind `Unsupported`:
//! "unsupported shredded value type", checked on the column's type before any row).
//! Each names the row and the path (`row 3, typed_value.a.typed_value`).

use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::{Array, ArrayRef, StructArray};
use herringbone_codec::variant::{
    Variant, VariantMetadata, encode_array_from_elements, encode_object_from_fields,
};

use crate::error::{Error, Result};

use super::binary::BinaryColumn;
use super::extension::{VariantParts, unshredded_struct};
use super::levels::{Level, Typed};

/// The one-byte encoding of a Variant null.
pub(crate) const VARIANT_NULL: u8 = 0x00;

/// Reconstructs every row of a Variant column (a storage struct, shredded or not) as
/// `{metadata, value}`: the same metadata column, a `Binary` value per row, the same
/// row validity. An unshredded column comes back as it is (a missing `value` column
/// becomes Variant nulls).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Array, ArrayRef, BinaryArray, Int64Array, StructArray};
/// use arrow_array::cast::AsArray;
/// use arrow_schema::{DataType, Field, Fields};
/// use herringbone_arrow_bridge::variant::unshred;
///
/// // Two rows shredded as int64: 34 (typed), and "n/a" (did not fit, in `value`).
/// let metadata: ArrayRef = Arc::new(BinaryArray::from(vec![&[1u8, 0, 0][..]; 2]));
/// let value: ArrayRef = Arc::new(BinaryArray::from(vec![None, Some(&[0x0d, b'n', b'/', b'a'][..])]));
/// let typed: ArrayRef = Arc::new(Int64Array::from(vec![Some(34), None]));
/// let fields = Fields::from(vec![
///     Field::new("metadata", DataType::Binary, false),
///     Field::new("value", DataType::Binary, true),
///     Field::new("typed_value", DataType::Int64, true),
/// ]);
/// let column = StructArray::new(fields, vec![metadata, value, typed], None);
/// let plain = unshred(&column).unwrap();
/// let values = plain.column(1).as_binary::<i32>();
/// assert_eq!(values.value(0), [0x18, 34, 0, 0, 0, 0, 0, 0, 0]); // int64 34
/// assert_eq!(values.value(1), [0x0d, b'n', b'/', b'a']);
/// ```
pub fn unshred(array: &dyn Array) -> Result<StructArray> {
    let array = super::as_variant_struct(array)?;
    let parts = VariantParts::try_new(array)?;
    let metadata = column_named(array, super::extension::METADATA);
    if !parts.is_shredded()
        && let Some(value) = column_named_opt(array, super::extension::VALUE)
    {
        return unshredded_struct(metadata, value, array.nulls().cloned());
    }
    let top = Level::top(&parts)?;
    let mut out = BinaryBuilder::with_capacity(array.len(), 0);
    let mut scratch = Vec::new();
    let mut cache = MetadataCache::default();
    for row in 0..array.len() {
        if array.is_null(row) {
            out.append_null();
            continue;
        }
        let metadata_bytes = parts.metadata.get(row).ok_or_else(|| {
            Error::corrupt(format!(
                "variant row {row}: metadata is null in a non-null row"
            ))
        })?;
        let metadata = cache.get(metadata_bytes, row)?;
        scratch.clear();
        let present = write_level(&top, row, &metadata, &mut scratch)
            .map_err(|e| e.context(format!("variant row {row}")))?;
        if !present {
            scratch.push(VARIANT_NULL);
        }
        out.append_value(&scratch);
    }
    unshredded_struct(metadata, Arc::new(out.finish()), array.nulls().cloned())
}

fn column_named(array: &StructArray, name: &str) -> ArrayRef {
    column_named_opt(array, name).unwrap_or_else(|| array.column(0).clone())
}

fn column_named_opt(array: &StructArray, name: &str) -> Option<ArrayRef> {
    array.column_by_name(name).cloned()
}

/// The metadata of the previous row, reused when the next row's bytes are the same (a
/// column usually repeats one dictionary), so each distinct dictionary is validated
/// once per run.
#[derive(Debug, Default)]
pub(crate) struct MetadataCache<'a> {
    last: Option<VariantMetadata<'a>>,
}

impl<'a> MetadataCache<'a> {
    /// The validated metadata of `bytes` (row `row`, for messages).
    pub fn get(&mut self, bytes: &'a [u8], row: usize) -> Result<VariantMetadata<'a>> {
        if let Some(last) = self.last
            && last.as_bytes() == bytes
        {
            return Ok(last);
        }
        let metadata = VariantMetadata::try_new(bytes)
            .map_err(|e| Error::from(e).context(format!("variant row {row}: invalid metadata")))?;
        self.last = Some(metadata);
        Ok(metadata)
    }
}

fn conflict(level: &Level<'_>, what: &str) -> Error {
    Error::corrupt(format!("{}: invalid variant, {what}", level.location()))
}

fn codec_error(level: &Level<'_>, e: herringbone_codec::Error) -> Error {
    Error::new(
        crate::error::ErrorKind::Corrupt,
        format!("{}: {e}", level.location()),
    )
}

/// A copy of a Variant-encoded `value`, checked to be one value against `metadata`.
fn copy_value(
    level: &Level<'_>,
    metadata: &VariantMetadata<'_>,
    bytes: &[u8],
    out: &mut Vec<u8>,
) -> Result<()> {
    Variant::try_new(*metadata, bytes).map_err(|e| codec_error(level, e))?;
    out.extend_from_slice(bytes);
    Ok(())
}

/// Appends the value of `level` at `row` to `out`; `false` when it is missing (nothing
/// appended).
pub(crate) fn write_level(
    level: &Level<'_>,
    row: usize,
    metadata: &VariantMetadata<'_>,
    out: &mut Vec<u8>,
) -> Result<bool> {
    let value = level.value.as_ref().and_then(|v| v.get(row));
    let typed = level.typed.as_ref().filter(|t| t.is_valid(row));
    let Some(typed) = typed else {
        return match value {
            Some(bytes) => copy_value(level, metadata, bytes, out).map(|()| true),
            None => Ok(false),
        };
    };
    match typed {
        Typed::Primitive(column) => {
            if value.is_some() {
                return Err(conflict(level, "conflicting value and typed_value"));
            }
            column
                .get(row)
                .write_to(out)
                .map_err(|e| codec_error(level, e))?;
        }
        Typed::Array {
            list,
            element_nulls,
            element,
        } => {
            if value.is_some() {
                return Err(conflict(level, "conflicting value and typed_value"));
            }
            let (start, end) = list.range(row);
            let mut bytes = Vec::new();
            let mut bounds = Vec::with_capacity(end - start + 1);
            bounds.push(0);
            for index in start..end {
                let present = element_nulls.is_none_or(|n| n.is_valid(index))
                    && write_level(element, index, metadata, &mut bytes)?;
                if !present {
                    // Arrays cannot have missing elements: a missing one is a null.
                    bytes.push(VARIANT_NULL);
                }
                bounds.push(bytes.len());
            }
            let elements: Vec<&[u8]> = bounds.windows(2).map(|w| &bytes[w[0]..w[1]]).collect();
            encode_array_from_elements(metadata, &elements, out)
                .map_err(|e| codec_error(level, e))?;
        }
        Typed::Object { fields, .. } => {
            let mut bytes = Vec::new();
            let mut spans: Vec<(&str, usize, usize)> = Vec::with_capacity(fields.len());
            for field in fields {
                let start = bytes.len();
                let present = field.nulls.is_none_or(|n| n.is_valid(row))
                    && write_level(&field.level, row, metadata, &mut bytes)?;
                if present {
                    spans.push((field.name, start, bytes.len()));
                }
            }
            let mut members: Vec<(&str, &[u8])> = spans
                .iter()
                .map(|&(name, s, e)| (name, &bytes[s..e]))
                .collect();
            if let Some(remainder) = value {
                let variant =
                    Variant::try_new(*metadata, remainder).map_err(|e| codec_error(level, e))?;
                let Variant::Object(object) = variant else {
                    return Err(conflict(level, "non-object value with shredded fields"));
                };
                for index in 0..object.len() {
                    let name = object
                        .field_name(index)
                        .map_err(|e| codec_error(level, e))?;
                    if fields.iter().any(|f| f.name == name) {
                        return Err(conflict(
                            level,
                            &format!(
                                "field {name:?} is both shredded in typed_value and present in value"
                            ),
                        ));
                    }
                    let field_bytes = object
                        .field_bytes(index)
                        .map_err(|e| codec_error(level, e))?;
                    members.push((name, field_bytes));
                }
            }
            encode_object_from_fields(metadata, &members, out)
                .map_err(|e| codec_error(level, e))?;
        }
    }
    Ok(true)
}

/// The metadata and reconstructed value bytes of every row of a Variant column, for
/// kernels that walk rows (`None` for a null row).
pub(crate) fn for_each_row(
    array: &StructArray,
    mut visit: impl FnMut(usize, Option<(VariantMetadata<'_>, &[u8])>) -> Result<()>,
) -> Result<()> {
    let plain = unshred(array)?;
    let metadata = BinaryColumn::try_new(plain.column(0), super::extension::METADATA)?;
    let value = BinaryColumn::try_new(plain.column(1), super::extension::VALUE)?;
    let mut cache = MetadataCache::default();
    for row in 0..plain.len() {
        if plain.is_null(row) {
            visit(row, None)?;
            continue;
        }
        let (Some(m), Some(v)) = (metadata.get(row), value.get(row)) else {
            return Err(Error::corrupt(format!(
                "variant row {row}: metadata or value is null in a non-null row"
            )));
        };
        let m = cache.get(m, row)?;
        visit(row, Some((m, v)))?;
    }
    Ok(())
}

//! Variant columns to JSON text and back, a row at a time (the codec renders and parses
//! one value; see `herringbone_codec::variant` for the JSON forms of every type).

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, StringArray, StructArray};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::DataType;
use herringbone_codec::variant::{Variant, VariantValue};

use crate::error::{Error, Result};

use super::extension::unshredded_struct;
use super::unshred::for_each_row;

/// The JSON text of every row of a Variant column (shredded or not); a null row is null.
///
/// Errors name the row whose value cannot be decoded or rendered.
///
/// ```
/// use arrow_array::{Array, StringArray};
/// use herringbone_arrow_bridge::variant::{json_to_variant, variant_to_json};
///
/// let json = StringArray::from(vec![Some(r#"{"b": [1, 2.50], "a": null}"#), None, Some("\"x\"")]);
/// let variants = json_to_variant(&json).unwrap();
/// let text = variant_to_json(&variants).unwrap();
/// assert_eq!(text.value(0), r#"{"a":null,"b":[1,2.50]}"#);
/// assert!(text.is_null(1));
/// assert_eq!(text.value(2), "\"x\"");
/// ```
pub fn variant_to_json(array: &dyn Array) -> Result<StringArray> {
    let array = super::as_variant_struct(array)?;
    let mut out = StringBuilder::with_capacity(array.len(), 0);
    let mut text = String::new();
    for_each_row(array, |row, entry| {
        let Some((metadata, value)) = entry else {
            out.append_null();
            return Ok(());
        };
        text.clear();
        Variant::try_new(metadata, value)
            .and_then(|variant| variant.write_json(&mut text))
            .map_err(|e| Error::from(e).context(format!("variant row {row}")))?;
        out.append_value(&text);
        Ok(())
    })?;
    Ok(out.finish())
}

/// An unshredded Variant column built from JSON text (`Utf8`, `LargeUtf8` or
/// `Utf8View`): each row's whole JSON value, with a sorted dictionary of exactly its
/// field names (numbers kept exact as integers or decimals, see
/// `VariantValue::from_json`); a null string is a null row.
///
/// Errors name the row whose text is not JSON.
pub fn json_to_variant(array: &dyn Array) -> Result<StructArray> {
    let mut metadata = BinaryBuilder::with_capacity(array.len(), 0);
    let mut value = BinaryBuilder::with_capacity(array.len(), 0);
    let mut nulls = NullBufferBuilder::new(array.len());
    let mut append = |row: usize, text: Option<&str>| -> Result<()> {
        let Some(text) = text else {
            metadata.append_value([0x01, 0x00, 0x00]);
            value.append_null();
            nulls.append_null();
            return Ok(());
        };
        let encoded = VariantValue::from_json(text)
            .and_then(|v| v.encode())
            .map_err(|e| {
                Error::invalid_argument(format!("row {row}: not a JSON value for a variant"))
                    .with_source(e)
            })?;
        metadata.append_value(&encoded.metadata);
        value.append_value(&encoded.value);
        nulls.append_non_null();
        Ok(())
    };
    match array.data_type() {
        DataType::Utf8 => {
            for (row, text) in array.as_string::<i32>().iter().enumerate() {
                append(row, text)?;
            }
        }
        DataType::LargeUtf8 => {
            for (row, text) in array.as_string::<i64>().iter().enumerate() {
                append(row, text)?;
            }
        }
        DataType::Utf8View => {
            for (row, text) in array.as_string_view().iter().enumerate() {
                append(row, text)?;
            }
        }
        other => {
            return Err(Error::invalid_argument(format!(
                "json_to_variant takes a string column, not {other}"
            )));
        }
    }
    unshredded_struct(
        Arc::new(metadata.finish()),
        Arc::new(value.finish()),
        nulls.finish(),
    )
}

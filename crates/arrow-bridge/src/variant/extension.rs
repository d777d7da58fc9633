//! The Arrow form of a Variant column: a struct `{metadata, value, typed_value?}` whose
//! field carries the canonical extension type `arrow.parquet.variant`, and the view of
//! such a struct by its children's names.

use arrow_array::{ArrayRef, StructArray};
use arrow_schema::{DataType, Field, FieldRef, Fields};
use std::collections::HashMap;

use crate::error::{Error, Result};
pub use crate::schema::VARIANT_EXTENSION_NAME;
use crate::schema::{EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY};

use super::binary::BinaryColumn;

/// Name of the child holding each row's metadata dictionary.
pub const METADATA: &str = "metadata";
/// Name of the child holding a Variant-encoded value (unshredded, or what did not fit
/// `typed_value`).
pub const VALUE: &str = "value";
/// Name of the child holding the shredded value.
pub const TYPED_VALUE: &str = "typed_value";

/// Whether `field` is marked as a Variant (`ARROW:extension:name` is
/// [`VARIANT_EXTENSION_NAME`]) over a struct.
pub fn is_variant_field(field: &Field) -> bool {
    matches!(field.data_type(), DataType::Struct(_))
        && field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str)
            == Some(VARIANT_EXTENSION_NAME)
}

/// The extension metadata entries that mark a field as a Variant.
pub fn variant_extension_metadata() -> HashMap<String, String> {
    HashMap::from([
        (
            EXTENSION_NAME_KEY.to_string(),
            VARIANT_EXTENSION_NAME.to_string(),
        ),
        (EXTENSION_METADATA_KEY.to_string(), String::new()),
    ])
}

/// `field` with the Variant extension added to its metadata (other entries kept).
pub fn with_variant_extension(field: Field) -> Field {
    let mut metadata = field.metadata().clone();
    metadata.extend(variant_extension_metadata());
    field.with_metadata(metadata)
}

/// The storage type of an unshredded Variant: `{metadata: Binary not null, value: Binary}`.
pub fn unshredded_type() -> DataType {
    DataType::Struct(Fields::from(vec![
        Field::new(METADATA, DataType::Binary, false),
        Field::new(VALUE, DataType::Binary, true),
    ]))
}

/// A nullable unshredded Variant field called `name`.
///
/// ```
/// use herringbone_arrow_bridge::variant::{is_variant_field, variant_field};
/// let field = variant_field("v");
/// assert!(is_variant_field(&field));
/// assert!(field.is_nullable());
/// ```
pub fn variant_field(name: &str) -> Field {
    with_variant_extension(Field::new(name, unshredded_type(), true))
}

/// A Variant struct array seen through its children by name. `value` and `typed_value`
/// may be absent (the specification lets writers omit either where it is never used).
#[derive(Debug, Clone)]
pub struct VariantParts<'a> {
    /// The struct itself (its validity is the rows' validity).
    pub array: &'a StructArray,
    /// Each row's metadata dictionary.
    pub metadata: BinaryColumn<'a>,
    /// The Variant-encoded values, when the column exists.
    pub value: Option<BinaryColumn<'a>>,
    /// The `value` column itself.
    pub value_array: Option<&'a ArrayRef>,
    /// The shredded values and their field, when the column exists.
    pub typed_value: Option<(&'a FieldRef, &'a ArrayRef)>,
}

impl<'a> VariantParts<'a> {
    /// Splits `array` (a Variant storage struct) into its parts.
    ///
    /// Errors name what is wrong: a missing `metadata`, a `metadata` or `value` that is
    /// not binary, or a child with another name.
    pub fn try_new(array: &'a StructArray) -> Result<Self> {
        let mut metadata = None;
        let mut value = None;
        let mut value_array = None;
        let mut typed_value = None;
        for (field, column) in array.fields().iter().zip(array.columns()) {
            match field.name().as_str() {
                METADATA => metadata = Some(BinaryColumn::try_new(column, METADATA)?),
                VALUE => {
                    value = Some(BinaryColumn::try_new(column, VALUE)?);
                    value_array = Some(column);
                }
                TYPED_VALUE => typed_value = Some((field, column)),
                other => {
                    return Err(Error::invalid_argument(format!(
                        "variant struct has a field `{other}`; only `metadata`, `value` and \
                         `typed_value` are allowed"
                    )));
                }
            }
        }
        let metadata = metadata.ok_or_else(|| {
            Error::invalid_argument("variant struct has no `metadata` field".to_string())
        })?;
        Ok(Self {
            array,
            metadata,
            value,
            value_array,
            typed_value,
        })
    }

    /// Whether the column has a `typed_value` child.
    pub fn is_shredded(&self) -> bool {
        self.typed_value.is_some()
    }
}

/// A Variant struct of `metadata` and `value` columns, with `nulls` as its validity.
pub(crate) fn unshredded_struct(
    metadata: ArrayRef,
    value: ArrayRef,
    nulls: Option<arrow_buffer::NullBuffer>,
) -> Result<StructArray> {
    let fields = Fields::from(vec![
        Field::new(METADATA, metadata.data_type().clone(), false),
        Field::new(VALUE, value.data_type().clone(), true),
    ]);
    Ok(StructArray::try_new(fields, vec![metadata, value], nulls)?)
}

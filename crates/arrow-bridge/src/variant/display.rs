//! Variant columns for people: every Variant column of a batch as JSON text, and a
//! one-line description of each Variant column's shredding.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::error::Result;
use crate::schema::EXTENSION_NAME_KEY;

use super::json::variant_to_json;
use super::nested::{map_batch, map_schema};
use super::shape::ShreddedType;

/// The canonical Arrow extension name of a string column holding JSON text.
pub const JSON_EXTENSION_NAME: &str = "arrow.json";

/// `batch` with every Variant column, at any depth, replaced by its JSON text
/// ([`variant_to_json`]): a `Utf8` field of the same name and nullability marked with
/// the `arrow.json` extension, so a JSON writer can embed the text as a value rather
/// than quote it.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
/// use arrow_array::cast::AsArray;
/// use arrow_schema::{Field, Schema};
/// use herringbone_arrow_bridge::variant::{json_to_variant, variant_field, variants_as_json};
///
/// let v: ArrayRef = Arc::new(json_to_variant(&StringArray::from(vec![r#"{"a":[1,null]}"#])).unwrap());
/// let schema = Arc::new(Schema::new(vec![variant_field("v")]));
/// let batch = RecordBatch::try_new(schema, vec![v]).unwrap();
/// let shown = variants_as_json(&batch).unwrap();
/// assert_eq!(shown.column(0).as_string::<i32>().value(0), r#"{"a":[1,null]}"#);
/// assert_eq!(shown.schema().field(0).metadata()["ARROW:extension:name"], "arrow.json");
/// ```
pub fn variants_as_json(batch: &RecordBatch) -> Result<RecordBatch> {
    map_batch(batch, &mut |_, field, array| {
        let text: ArrayRef = Arc::new(variant_to_json(array)?);
        Ok((json_field(field), text))
    })
}

fn json_field(field: &Field) -> Field {
    Field::new(field.name(), DataType::Utf8, field.is_nullable()).with_metadata(HashMap::from([(
        EXTENSION_NAME_KEY.to_string(),
        JSON_EXTENSION_NAME.to_string(),
    )]))
}

/// `schema` as [`variants_as_json`] turns it.
pub fn variants_as_json_schema(schema: &Schema) -> Result<Arc<Schema>> {
    map_schema(schema, &mut |_, field| Ok(json_field(field)))
}

/// Every Variant column of `schema` (dotted Arrow path) with its shredding: `unshredded`,
/// or `shredded as <shape>` in the text syntax of [`ShreddedType`]; a column whose
/// `typed_value` is not a valid shredded type says why.
///
/// ```
/// use arrow_schema::Schema;
/// use herringbone_arrow_bridge::variant::{ShreddedType, describe_variant_columns, variant_field};
///
/// let shape = ShreddedType::parse("a:int64").unwrap();
/// let shredded = variant_field("s").with_data_type(shape.storage_type());
/// let schema = Schema::new(vec![variant_field("v"), shredded]);
/// assert_eq!(describe_variant_columns(&schema), vec![
///     ("v".to_string(), "unshredded".to_string()),
///     ("s".to_string(), "shredded as {a:int64}".to_string()),
/// ]);
/// ```
pub fn describe_variant_columns(schema: &Schema) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let _ = map_schema(schema, &mut |path, field| {
        let text = match field.data_type() {
            DataType::Struct(children) => match ShreddedType::from_storage_fields(children) {
                Ok(ShreddedType::Variant) => "unshredded".to_string(),
                Ok(shape) => format!("shredded as {shape}"),
                Err(e) => format!("invalid shredding: {e}"),
            },
            other => format!("invalid: {other} is not a struct"),
        };
        out.push((path.to_string(), text));
        Ok(field.clone())
    });
    out
}

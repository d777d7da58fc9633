//! Shredding: plain Variants -> the `{metadata, value, typed_value}` struct of a given
//! [`ShreddedType`].
//!
//! Each value goes where the specification puts it: a value that fits the level's
//! `typed_value` (see [`super::primitive`] for primitives) is stored there with `value`
//! null; an object against an object shape stores its shredded fields in the field
//! levels (a field the value lacks has both null: missing) and its other fields, if any,
//! as an object in `value` (partially shredded); an array against an array shape stores
//! each element in the element level; anything else is stored whole in `value` with
//! `typed_value` null. The metadata column is kept as it is: every field name a shredded
//! value needs is already in its row's dictionary.

use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::{Array, ArrayRef, ListArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields};
use herringbone_codec::variant::{Variant, VariantMetadata, encode_object_from_fields};

use crate::error::{Error, Result};

use super::extension::{METADATA, VALUE};
use super::primitive::TypedBuilder;
use super::shape::{ShreddedType, level_fields};
use super::unshred::{MetadataCache, unshred};

/// Shreds a Variant column (a storage struct; a shredded one is reconstructed first) to
/// `shape`. The result has the same metadata column and row validity, a `Binary`
/// `value` and, unless `shape` is [`ShreddedType::Variant`], a `typed_value` of the
/// shape's Arrow type ([`ShreddedType::storage_type`]).
///
/// ```
/// use arrow_array::{Array, StringArray};
/// use arrow_array::cast::AsArray;
/// use arrow_array::types::Int64Type;
/// use herringbone_arrow_bridge::variant::{ShreddedType, json_to_variant, shred, variant_to_json};
///
/// let json = StringArray::from(vec![r#"{"a": 1, "b": "x"}"#, r#"{"a": "one"}"#, "7"]);
/// let plain = json_to_variant(&json).unwrap();
/// let shredded = shred(&plain, &ShreddedType::parse("a:int64").unwrap()).unwrap();
/// let typed = shredded.column_by_name("typed_value").unwrap().as_struct();
/// let a = typed.column_by_name("a").unwrap().as_struct();
/// let a_typed = a.column_by_name("typed_value").unwrap().as_primitive::<Int64Type>();
/// assert_eq!(a_typed.value(0), 1);
/// assert!(a_typed.is_null(1)); // "one" is not an int64: it is in a.value
/// assert!(typed.is_null(2)); // 7 is not an object: it is in value
/// // Reconstructed, the rows are the originals.
/// let back = variant_to_json(&shredded).unwrap();
/// assert_eq!(back.value(0), r#"{"a":1,"b":"x"}"#);
/// assert_eq!(back.value(1), r#"{"a":"one"}"#);
/// assert_eq!(back.value(2), "7");
/// ```
pub fn shred(array: &dyn Array, shape: &ShreddedType) -> Result<StructArray> {
    let input = super::as_variant_struct(array)?;
    let plain = unshred(input)?;
    let metadata = plain.column(0).clone();
    let metadata_column = super::binary::BinaryColumn::try_new(&metadata, METADATA)?;
    let values = super::binary::BinaryColumn::try_new(plain.column(1), VALUE)?;
    let mut top = LevelBuilder::new(shape, plain.len());
    let mut cache = MetadataCache::default();
    for row in 0..plain.len() {
        if plain.is_null(row) {
            top.append_missing();
            continue;
        }
        let (Some(m), Some(v)) = (metadata_column.get(row), values.get(row)) else {
            return Err(Error::corrupt(format!(
                "variant row {row}: metadata or value is null in a non-null row"
            )));
        };
        let m = cache.get(m, row)?;
        let variant = Variant::try_new(m, v)
            .map_err(|e| Error::from(e).context(format!("variant row {row}")))?;
        top.append(&m, variant, v)
            .map_err(|e| e.context(format!("variant row {row}")))?;
    }
    let (value, typed) = top.finish()?;
    let mut fields = vec![Arc::new(Field::new(
        METADATA,
        metadata.data_type().clone(),
        false,
    ))];
    fields.extend(level_fields(shape).iter().cloned());
    let mut columns = vec![metadata, value];
    columns.extend(typed);
    Ok(StructArray::try_new(
        Fields::from(fields),
        columns,
        plain.nulls().cloned(),
    )?)
}

/// Builds one `{value, typed_value}` level.
#[derive(Debug)]
struct LevelBuilder {
    value: BinaryBuilder,
    typed: Option<TypedLevel>,
    /// Reused to encode a value's bytes.
    scratch: Vec<u8>,
}

#[derive(Debug)]
enum TypedLevel {
    Primitive(TypedBuilder),
    Object {
        validity: NullBufferBuilder,
        /// Shredded fields in schema order.
        fields: Vec<(String, LevelBuilder)>,
        /// Field indices by name, for the lookups of a value's fields.
        sorted: Vec<usize>,
        shape: ShreddedType,
    },
    Array {
        validity: NullBufferBuilder,
        offsets: Vec<i32>,
        element: Box<LevelBuilder>,
        shape: ShreddedType,
    },
}

impl LevelBuilder {
    fn new(shape: &ShreddedType, capacity: usize) -> Self {
        let typed = match shape {
            ShreddedType::Variant => None,
            ShreddedType::Primitive(kind) => {
                Some(TypedLevel::Primitive(TypedBuilder::new(*kind, capacity)))
            }
            ShreddedType::Object(fields) => {
                let mut sorted: Vec<usize> = (0..fields.len()).collect();
                sorted.sort_by(|&a, &b| fields[a].0.as_bytes().cmp(fields[b].0.as_bytes()));
                Some(TypedLevel::Object {
                    validity: NullBufferBuilder::new(capacity),
                    fields: fields
                        .iter()
                        .map(|(name, s)| (name.clone(), LevelBuilder::new(s, capacity)))
                        .collect(),
                    sorted,
                    shape: shape.clone(),
                })
            }
            ShreddedType::Array(element) => Some(TypedLevel::Array {
                validity: NullBufferBuilder::new(capacity),
                offsets: vec![0],
                element: Box::new(LevelBuilder::new(element, capacity)),
                shape: shape.clone(),
            }),
        };
        LevelBuilder {
            value: BinaryBuilder::with_capacity(capacity, 0),
            typed,
            scratch: Vec::new(),
        }
    }

    /// A row where this level is missing (or the row is null): both columns null.
    fn append_missing(&mut self) {
        self.value.append_null();
        match &mut self.typed {
            None => {}
            Some(TypedLevel::Primitive(b)) => b.append_null(),
            Some(TypedLevel::Object {
                validity, fields, ..
            }) => {
                validity.append_null();
                for (_, field) in fields {
                    field.append_missing();
                }
            }
            Some(TypedLevel::Array {
                validity, offsets, ..
            }) => {
                validity.append_null();
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
            }
        }
    }

    /// Stores `variant` whole in `value` (`bytes` is its encoding when known).
    fn append_untyped(&mut self, variant: &Variant<'_, '_>, bytes: Option<&[u8]>) -> Result<()> {
        match bytes {
            Some(bytes) => self.value.append_value(bytes),
            None => {
                self.scratch.clear();
                variant.write_to(&mut self.scratch)?;
                self.value.append_value(&self.scratch);
            }
        }
        Ok(())
    }

    /// Appends `variant` (encoded as `bytes` when known, to copy instead of re-encode).
    fn append(
        &mut self,
        metadata: &VariantMetadata<'_>,
        variant: Variant<'_, '_>,
        bytes: &[u8],
    ) -> Result<()> {
        self.append_with(metadata, variant, Some(bytes))
    }

    fn append_with(
        &mut self,
        metadata: &VariantMetadata<'_>,
        variant: Variant<'_, '_>,
        bytes: Option<&[u8]>,
    ) -> Result<()> {
        let Some(typed) = &mut self.typed else {
            return self.append_untyped(&variant, bytes);
        };
        match typed {
            TypedLevel::Primitive(builder) => {
                if builder.try_append(&variant) {
                    self.value.append_null();
                    return Ok(());
                }
                builder.append_null();
            }
            TypedLevel::Object {
                validity,
                fields,
                sorted,
                ..
            } => {
                if let Variant::Object(object) = variant {
                    validity.append_non_null();
                    let mut seen = vec![false; fields.len()];
                    let mut rest: Vec<(&str, &[u8])> = Vec::new();
                    for index in 0..object.len() {
                        let name = object.field_name(index)?;
                        let found = sorted
                            .binary_search_by(|&i| fields[i].0.as_bytes().cmp(name.as_bytes()))
                            .ok()
                            .map(|position| sorted[position]);
                        match found {
                            Some(i) => {
                                seen[i] = true;
                                let value = object.field_value(index)?;
                                let value_bytes = object.field_bytes(index)?;
                                fields[i]
                                    .1
                                    .append_with(metadata, value, Some(value_bytes))?;
                            }
                            None => rest.push((name, object.field_bytes(index)?)),
                        }
                    }
                    for (i, (_, field)) in fields.iter_mut().enumerate() {
                        if !seen[i] {
                            field.append_missing();
                        }
                    }
                    if rest.is_empty() {
                        self.value.append_null();
                    } else {
                        self.scratch.clear();
                        encode_object_from_fields(metadata, &rest, &mut self.scratch)?;
                        self.value.append_value(&self.scratch);
                    }
                    return Ok(());
                }
                validity.append_null();
                for (_, field) in fields {
                    field.append_missing();
                }
            }
            TypedLevel::Array {
                validity,
                offsets,
                element,
                ..
            } => {
                if let Variant::Array(array) = variant {
                    for index in 0..array.len() {
                        let value = array.get(index)?;
                        let value_bytes = array.element_bytes(index)?;
                        element.append_with(metadata, value, Some(value_bytes))?;
                    }
                    let last = offsets.last().copied().unwrap_or(0);
                    let next = i32::try_from(array.len())
                        .ok()
                        .and_then(|n| last.checked_add(n))
                        .ok_or_else(|| {
                            Error::invalid_argument(
                                "shredded array elements exceed the 2^31 offsets of a List",
                            )
                        })?;
                    offsets.push(next);
                    validity.append_non_null();
                    self.value.append_null();
                    return Ok(());
                }
                validity.append_null();
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
            }
        }
        self.append_untyped(&variant, bytes)
    }

    /// The `value` column and the `typed_value` column (if any).
    fn finish(&mut self) -> Result<(ArrayRef, Option<ArrayRef>)> {
        let value: ArrayRef = Arc::new(self.value.finish());
        let typed = match &mut self.typed {
            None => None,
            Some(TypedLevel::Primitive(builder)) => Some(builder.finish()),
            Some(TypedLevel::Object {
                validity,
                fields,
                shape,
                ..
            }) => {
                let ShreddedType::Object(shapes) = shape else {
                    return Err(Error::invalid_argument(
                        "object builder without object shape",
                    ));
                };
                let mut arrow_fields = Vec::with_capacity(fields.len());
                let mut columns = Vec::with_capacity(fields.len());
                for ((name, field), (_, field_shape)) in fields.iter_mut().zip(shapes.iter()) {
                    let (v, t) = field.finish()?;
                    let mut children = vec![v];
                    children.extend(t);
                    let group = StructArray::try_new(level_fields(field_shape), children, None)?;
                    arrow_fields.push(Field::new(name.as_str(), group.data_type().clone(), false));
                    columns.push(Arc::new(group) as ArrayRef);
                }
                Some(Arc::new(StructArray::try_new(
                    Fields::from(arrow_fields),
                    columns,
                    validity.finish(),
                )?) as ArrayRef)
            }
            Some(TypedLevel::Array {
                validity,
                offsets,
                element,
                shape,
            }) => {
                let ShreddedType::Array(element_shape) = shape else {
                    return Err(Error::invalid_argument("array builder without array shape"));
                };
                let (v, t) = element.finish()?;
                let mut children = vec![v];
                children.extend(t);
                let elements = StructArray::try_new(level_fields(element_shape), children, None)?;
                let field = Arc::new(Field::new(
                    "element",
                    DataType::Struct(level_fields(element_shape)),
                    false,
                ));
                let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
                Some(Arc::new(ListArray::try_new(
                    field,
                    offsets,
                    Arc::new(elements),
                    validity.finish(),
                )?) as ArrayRef)
            }
        };
        Ok((value, typed))
    }
}

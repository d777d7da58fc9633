//! A shredded Variant column seen level by level: each level is a `value` column and an
//! optional `typed_value` (a primitive, an object of field levels, or a list of element
//! levels), checked against the shredding rules once, before any row is read.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, FieldRef};

use crate::error::{Error, Result};

use super::binary::BinaryColumn;
use super::extension::{TYPED_VALUE, VALUE, VariantParts};
use super::primitive::TypedColumn;
use super::shape::MAX_SHAPE_DEPTH;

/// One `{value, typed_value}` level.
#[derive(Debug)]
pub(crate) struct Level<'a> {
    /// The Variant-encoded values, when the column exists.
    pub value: Option<BinaryColumn<'a>>,
    /// The shredded values, when the column exists.
    pub typed: Option<Typed<'a>>,
    /// The `value` array itself.
    pub value_array: Option<&'a ArrayRef>,
    /// The `typed_value` field and array themselves.
    pub typed_array: Option<(&'a FieldRef, &'a ArrayRef)>,
    /// Where this level is (`typed_value.a.typed_value`), for messages.
    pub path: String,
}

/// The `typed_value` of a level.
#[derive(Debug)]
pub(crate) enum Typed<'a> {
    /// A shredded primitive.
    Primitive(TypedColumn<'a>),
    /// A shredded object: its validity and its shredded fields in schema order.
    Object {
        nulls: Option<&'a NullBuffer>,
        fields: Vec<ObjectField<'a>>,
    },
    /// A shredded array.
    Array {
        list: Offsets<'a>,
        /// The validity of the element groups (required by the specification; a null
        /// element is read as a Variant null).
        element_nulls: Option<&'a NullBuffer>,
        element: Box<Level<'a>>,
    },
}

/// One shredded field of an object.
#[derive(Debug)]
pub(crate) struct ObjectField<'a> {
    /// The field name.
    pub name: &'a str,
    /// The validity of the field's group (the specification makes it required; a
    /// nullable group's null is read as a missing field).
    pub nulls: Option<&'a NullBuffer>,
    /// The field's own level.
    pub level: Level<'a>,
}

/// The offsets and validity of a `List` or `LargeList`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Offsets<'a> {
    Small(&'a [i32], Option<&'a NullBuffer>),
    Large(&'a [i64], Option<&'a NullBuffer>),
}

impl Offsets<'_> {
    /// Whether list `index` is non-null.
    #[inline]
    pub fn is_valid(&self, index: usize) -> bool {
        let nulls = match self {
            Offsets::Small(_, n) | Offsets::Large(_, n) => n,
        };
        nulls.is_none_or(|n| n.is_valid(index))
    }

    /// The element range of list `index`.
    #[inline]
    pub fn range(&self, index: usize) -> (usize, usize) {
        match self {
            Offsets::Small(o, _) => (o[index] as usize, o[index + 1] as usize),
            Offsets::Large(o, _) => (o[index] as usize, o[index + 1] as usize),
        }
    }
}

impl Typed<'_> {
    /// Whether row `index` holds a shredded value.
    #[inline]
    pub fn is_valid(&self, index: usize) -> bool {
        match self {
            Typed::Primitive(column) => column.is_valid(index),
            Typed::Object { nulls, .. } => nulls.is_none_or(|n| n.is_valid(index)),
            Typed::Array { list, .. } => list.is_valid(index),
        }
    }
}

impl<'a> Level<'a> {
    /// The top level of a Variant column.
    pub fn top(parts: &VariantParts<'a>) -> Result<Self> {
        let typed = match parts.typed_value {
            Some((field, array)) => Some(Typed::new(field, array, TYPED_VALUE, 0)?),
            None => None,
        };
        Ok(Level {
            value: parts.value,
            typed,
            value_array: parts.value_array,
            typed_array: parts.typed_value,
            path: String::new(),
        })
    }

    /// The level of a `{value, typed_value}` group (an object field or array element).
    fn group(array: &'a ArrayRef, path: String, depth: usize) -> Result<Self> {
        let group = array.as_struct_opt().ok_or_else(|| {
            Error::unsupported(format!(
                "shredded variant field {path} must be a struct of `value` and `typed_value`, \
                 it is {}",
                array.data_type()
            ))
        })?;
        Self::from_struct(group, path, depth)
    }

    fn from_struct(group: &'a StructArray, path: String, depth: usize) -> Result<Self> {
        let mut value = None;
        let mut typed = None;
        let mut value_array = None;
        let mut typed_array = None;
        for (field, column) in group.fields().iter().zip(group.columns()) {
            match field.name().as_str() {
                VALUE => {
                    value = Some(BinaryColumn::try_new(column, &format!("{path}.value"))?);
                    value_array = Some(column);
                }
                TYPED_VALUE => {
                    typed_array = Some((field, column));
                    typed = Some(Typed::new(
                        field,
                        column,
                        &format!("{path}.typed_value"),
                        depth,
                    )?)
                }
                other => {
                    return Err(Error::unsupported(format!(
                        "shredded variant field {path} has a field `{other}`; only `value` \
                         and `typed_value` are allowed"
                    )));
                }
            }
        }
        if value.is_none() && typed.is_none() {
            return Err(Error::unsupported(format!(
                "shredded variant field {path} has neither `value` nor `typed_value`"
            )));
        }
        Ok(Level {
            value,
            typed,
            value_array,
            typed_array,
            path,
        })
    }

    /// The position of this level, for messages (`$` at the top).
    pub fn location(&self) -> &str {
        if self.path.is_empty() {
            "$"
        } else {
            &self.path
        }
    }
}

impl<'a> Typed<'a> {
    fn new(field: &Field, array: &'a ArrayRef, path: &str, depth: usize) -> Result<Self> {
        if depth > MAX_SHAPE_DEPTH {
            return Err(Error::unsupported(format!(
                "shredded variant nested deeper than {MAX_SHAPE_DEPTH} levels at {path}"
            )));
        }
        match array.data_type() {
            DataType::Struct(children) => {
                if children.is_empty() {
                    return Err(Error::unsupported(format!(
                        "unsupported shredded value type: an object without fields at {path}"
                    )));
                }
                let object = array.as_struct();
                let mut fields = Vec::with_capacity(children.len());
                for (child, column) in children.iter().zip(object.columns()) {
                    let level =
                        Level::group(column, format!("{path}.{}", child.name()), depth + 1)?;
                    fields.push(ObjectField {
                        name: child.name(),
                        nulls: column.nulls(),
                        level,
                    });
                }
                Ok(Typed::Object {
                    nulls: object.nulls(),
                    fields,
                })
            }
            DataType::List(_) => {
                let list = array.as_list::<i32>();
                let element = Level::group(list.values(), format!("{path}.element"), depth + 1)?;
                Ok(Typed::Array {
                    list: Offsets::Small(list.value_offsets(), list.nulls()),
                    element_nulls: list.values().nulls(),
                    element: Box::new(element),
                })
            }
            DataType::LargeList(_) => {
                let list = array.as_list::<i64>();
                let element = Level::group(list.values(), format!("{path}.element"), depth + 1)?;
                Ok(Typed::Array {
                    list: Offsets::Large(list.value_offsets(), list.nulls()),
                    element_nulls: list.values().nulls(),
                    element: Box::new(element),
                })
            }
            _ => Ok(Typed::Primitive(TypedColumn::try_new(
                field,
                array.as_ref(),
                path,
            )?)),
        }
    }
}

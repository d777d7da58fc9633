//! `variant_get`: the value at a path of every row, as an Arrow type or as a Variant.
//!
//! The path is followed through the shredded columns first: an object field that is
//! shredded is a child struct, an array index into a shredded array is an offset into
//! its elements. When the whole path is shredded and its `typed_value` has a type that
//! casts to the target as the conversion rules would convert each value
//! ([`super::convert`]), and no row had to put its value in `value` instead, the result
//! is that column (cast, with the rows' validity): nothing is decoded. Otherwise each
//! row takes the shredded value or decodes its `value`, and where the path leaves the
//! shredded part, the rest of the path is looked up in the decoded `value` of the level
//! it left from.
//!
//! Readers may assume shredded data follows the specification (a level whose
//! `typed_value` object is null holds no object in `value`, and a shredded field is not
//! also in `value`), as the specification allows; `variant_get` does, so a path through
//! shredded fields never decodes the levels above its end.

use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::{Array, ArrayRef, StructArray, UInt64Array, new_null_array};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields};
use herringbone_codec::variant::{PathElement, Variant, VariantPath};

use crate::error::{Error, Result};

use super::binary::BinaryColumn;
use super::convert::{TargetBuilder, cast_matches_rules, cast_safe, check_target};
use super::extension::{METADATA, TYPED_VALUE, VALUE, VariantParts, unshredded_struct};
use super::levels::{Level, Typed};
use super::unshred::{MetadataCache, write_level};

/// Which row of the current level each output row reads.
#[derive(Debug, Clone)]
enum Rows {
    /// Output row `i` reads row `i`; rows where this is not null are the ones the path
    /// still reaches.
    Identity(Option<NullBuffer>),
    /// Output row `i` reads row `map[i]` (`None`: the path reaches nothing).
    Mapped(Vec<Option<usize>>),
}

impl Rows {
    fn index(&self, row: usize) -> Option<usize> {
        match self {
            Rows::Identity(valid) => valid
                .as_ref()
                .is_none_or(|v| v.is_valid(row))
                .then_some(row),
            Rows::Mapped(map) => map[row],
        }
    }

    /// Keeps only the rows where `nulls` (of the current level) is valid.
    fn restrict(&mut self, nulls: Option<&NullBuffer>) {
        let Some(nulls) = nulls else {
            return;
        };
        match self {
            Rows::Identity(valid) => *valid = NullBuffer::union(valid.as_ref(), Some(nulls)),
            Rows::Mapped(map) => {
                for slot in map.iter_mut() {
                    if slot.is_some_and(|i| nulls.is_null(i)) {
                        *slot = None;
                    }
                }
            }
        }
    }

    fn mapped(&self, len: usize) -> Vec<Option<usize>> {
        match self {
            Rows::Mapped(map) => map.clone(),
            Rows::Identity(_) => (0..len).map(|r| self.index(r)).collect(),
        }
    }
}

/// The value at `path` (`$.a.b[2]`, see [`VariantPath`]) of every row of a Variant
/// column, shredded or not: converted to `target` (the variant module's conversion says how each
/// Variant type converts; a value that does not convert, or a path that leads nowhere,
/// is null), or, with `target` `None`, as a Variant column (the shredded sub-columns at
/// the path when there are any, so nothing is decoded).
///
/// Errors for a target type that has no conversion rule, and for rows whose data breaks
/// the shredding rules on the way (naming the row).
///
/// ```
/// use arrow_array::{Array, StringArray};
/// use arrow_array::cast::AsArray;
/// use arrow_array::types::Int64Type;
/// use arrow_schema::DataType;
/// use herringbone_arrow_bridge::variant::{ShreddedType, json_to_variant, shred, variant_get};
/// use herringbone_codec::variant::VariantPath;
///
/// let json = StringArray::from(vec![r#"{"n": 1, "tags": ["x"]}"#, r#"{"n": "two"}"#, "3"]);
/// let plain = json_to_variant(&json).unwrap();
/// let shredded = shred(&plain, &ShreddedType::parse("n:int64").unwrap()).unwrap();
/// let path = VariantPath::parse("$.n").unwrap();
/// for column in [&plain, &shredded] {
///     let n = variant_get(column, &path, Some(&DataType::Int64)).unwrap();
///     let n = n.as_primitive::<Int64Type>();
///     assert_eq!(n.iter().collect::<Vec<_>>(), [Some(1), None, None]);
/// }
/// let tag = variant_get(&shredded, &VariantPath::parse("$.tags[0]").unwrap(), Some(&DataType::Utf8)).unwrap();
/// assert_eq!(tag.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("x"), None, None]);
/// ```
pub fn variant_get(
    array: &dyn Array,
    path: &VariantPath,
    target: Option<&DataType>,
) -> Result<ArrayRef> {
    if let Some(target) = target {
        check_target(target)?;
    }
    let array = super::as_variant_struct(array)?;
    let parts = VariantParts::try_new(array)?;
    let top = Level::top(&parts)?;
    if path.elements().is_empty() && target.is_none() {
        return Ok(Arc::new(array.clone()));
    }
    let len = array.len();
    let mut rows = Rows::Identity(array.nulls().cloned());
    let mut level = &top;
    let elements = path.elements();
    let mut step = 0;
    while let Some(element) = elements.get(step) {
        match (element, level.typed.as_ref()) {
            (PathElement::Field(name), Some(Typed::Object { nulls, fields })) => {
                let Some(field) = fields.iter().find(|f| f.name == name) else {
                    break;
                };
                rows.restrict(*nulls);
                rows.restrict(field.nulls);
                level = &field.level;
            }
            (
                PathElement::Index(position),
                Some(Typed::Array {
                    list,
                    element_nulls,
                    element,
                }),
            ) => {
                let map = (0..len)
                    .map(|row| {
                        let index = rows.index(row)?;
                        if !list.is_valid(index) {
                            return None;
                        }
                        let (start, end) = list.range(index);
                        (*position < end - start).then_some(start + position)
                    })
                    .collect();
                rows = Rows::Mapped(map);
                rows.restrict(*element_nulls);
                level = element;
            }
            _ => break,
        }
        step += 1;
    }
    let rest = VariantPath::new(elements[step..].to_vec());
    let metadata = &parts.metadata;
    if rest.elements().is_empty()
        && let Some(result) = shredded_as_is(array, level, &rows, target)?
    {
        return Ok(result);
    }
    decode_rows(array, metadata, level, &rows, &rest, target)
}

/// The result taken from the level's columns without decoding, when possible.
fn shredded_as_is(
    array: &StructArray,
    level: &Level<'_>,
    rows: &Rows,
    target: Option<&DataType>,
) -> Result<Option<ArrayRef>> {
    let len = array.len();
    let metadata = array
        .column_by_name(METADATA)
        .ok_or_else(|| Error::invalid_argument("variant struct has no `metadata` field"))?;
    let take = |column: &ArrayRef| -> Result<ArrayRef> {
        match rows {
            Rows::Identity(_) => Ok(column.clone()),
            Rows::Mapped(map) => {
                let indices: UInt64Array = map.iter().map(|i| i.map(|i| i as u64)).collect();
                Ok(arrow_select::take::take(column.as_ref(), &indices, None)?)
            }
        }
    };
    let reached = match rows {
        Rows::Identity(valid) => valid.clone(),
        Rows::Mapped(map) => Some(NullBuffer::from(
            map.iter().map(Option::is_some).collect::<Vec<bool>>(),
        )),
    };
    let Some(target) = target else {
        // A Variant: the level's own columns, with the top-level metadata.
        let value = match level.value_array {
            Some(value) => take(value)?,
            None => new_null_array(&DataType::Binary, len),
        };
        let mut fields = vec![
            Field::new(METADATA, metadata.data_type().clone(), false),
            Field::new(VALUE, value.data_type().clone(), true),
        ];
        let mut columns = vec![metadata.clone(), value.clone()];
        let mut present = value.logical_nulls();
        if let Some((field, typed)) = level.typed_array {
            let typed = take(typed)?;
            present = match (present, typed.logical_nulls()) {
                (Some(a), Some(b)) => Some(NullBuffer::new(a.inner() | b.inner())),
                _ => None,
            };
            fields.push(field.as_ref().clone().with_name(TYPED_VALUE));
            columns.push(typed);
        }
        let nulls = NullBuffer::union(reached.as_ref(), present.as_ref());
        return Ok(Some(Arc::new(StructArray::try_new(
            Fields::from(fields),
            columns,
            nulls,
        )?)));
    };
    let Some((_, typed)) = level.typed_array else {
        return Ok(None);
    };
    if !matches!(level.typed, Some(Typed::Primitive(_)))
        || !cast_matches_rules(typed.data_type(), target)
    {
        return Ok(None);
    }
    // Rows the path reaches whose value did not fit typed_value need decoding.
    let misfits = match (level.value.as_ref(), rows) {
        (None, _) => false,
        (Some(value), _) if value.null_count() == value.len() => false,
        (Some(value), rows) => (0..len).any(|r| rows.index(r).is_some_and(|i| value.is_valid(i))),
    };
    if misfits {
        return Ok(None);
    }
    let typed = cast_safe(&take(typed)?, target)?;
    let nulls = NullBuffer::union(reached.as_ref(), typed.logical_nulls().as_ref());
    let data = typed.to_data().into_builder().nulls(nulls).build()?;
    Ok(Some(arrow_array::make_array(data)))
}

/// The result row by row: the shredded value where there is one, else the decoded
/// `value`, with the rest of the path looked up in it.
fn decode_rows(
    array: &StructArray,
    metadata: &BinaryColumn<'_>,
    level: &Level<'_>,
    rows: &Rows,
    rest: &VariantPath,
    target: Option<&DataType>,
) -> Result<ArrayRef> {
    let len = array.len();
    let map = rows.mapped(len);
    let mut cache = MetadataCache::default();
    let mut scratch = Vec::new();
    let mut sink = match target {
        Some(target) => Sink::Target(TargetBuilder::new(target, len)?),
        None => Sink::Variant(BinaryBuilder::with_capacity(len, 0)),
    };
    for (row, index) in map.into_iter().enumerate() {
        let Some(index) = index else {
            sink.append(None)?;
            continue;
        };
        let metadata_bytes = metadata.get(row).ok_or_else(|| {
            Error::corrupt(format!(
                "variant row {row}: metadata is null in a non-null row"
            ))
        })?;
        let metadata = cache.get(metadata_bytes, row)?;
        let typed_valid = level.typed.as_ref().is_some_and(|t| t.is_valid(index));
        scratch.clear();
        let bytes: Option<&[u8]> = if rest.elements().is_empty() {
            // The level itself: shredded or not, reconstructed.
            let present = write_level(level, index, &metadata, &mut scratch)
                .map_err(|e| e.context(format!("variant row {row}")))?;
            present.then_some(&scratch[..])
        } else if typed_valid && !matches!(level.typed, Some(Typed::Object { .. })) {
            // A shredded primitive or array: the rest of the path cannot be in `value`.
            None
        } else {
            level.value.as_ref().and_then(|v| v.get(index))
        };
        let Some(bytes) = bytes else {
            sink.append(None)?;
            continue;
        };
        let variant = Variant::try_new(metadata, bytes)
            .map_err(|e| Error::from(e).context(format!("variant row {row}")))?;
        let found = variant
            .get_by_path(rest)
            .map_err(|e| Error::from(e).context(format!("variant row {row}")))?;
        sink.append(found.as_ref())?;
    }
    match sink {
        Sink::Target(builder) => builder.finish(),
        Sink::Variant(mut values) => {
            let values = values.finish();
            let nulls = values.logical_nulls();
            let metadata = array
                .column_by_name(METADATA)
                .ok_or_else(|| Error::invalid_argument("variant struct has no `metadata` field"))?
                .clone();
            Ok(Arc::new(unshredded_struct(
                metadata,
                Arc::new(values),
                nulls,
            )?))
        }
    }
}

/// Where `decode_rows` puts each row's value.
enum Sink {
    Target(TargetBuilder),
    Variant(BinaryBuilder),
}

impl Sink {
    fn append(&mut self, value: Option<&Variant<'_, '_>>) -> Result<()> {
        match self {
            Sink::Target(builder) => builder.append(value),
            Sink::Variant(values) => match value {
                Some(value) => {
                    let mut bytes = Vec::new();
                    value.write_to(&mut bytes)?;
                    values.append_value(&bytes);
                }
                None => values.append_null(),
            },
        }
        Ok(())
    }
}

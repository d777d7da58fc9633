//! Inferring a shredding shape from the data: what the first rows of a Variant column
//! have in common.
//!
//! At each level the values seen are counted by kind. When more than half of the
//! non-null values are objects, the level is an object shape whose fields are those
//! present in more than half of the objects with a shape of their own (the other fields
//! stay in `value`); when more than half are arrays, an array shape of the elements'
//! shape; when more than half are primitives of one type, that type: integers of every
//! width as `int64`, decimals of the most common scale at the widest width seen (full
//! precision), every other type as itself. Anything less uniform stays unshredded.
//! Variant nulls count for nothing (they are stored in `value` whatever the shape).

use std::collections::HashMap;

use arrow_array::Array;
use herringbone_codec::variant::Variant;

use crate::error::Result;

use super::shape::{PrimitiveType, ShreddedType};
use super::unshred::for_each_row;

/// Default number of rows [`infer_shredding`] looks at.
pub const DEFAULT_INFERENCE_ROWS: usize = 1024;
/// Most fields an inferred object shape shreds (the most frequent ones).
pub const MAX_INFERRED_FIELDS: usize = 256;
/// Deepest level an inferred shape reaches.
pub const MAX_INFERRED_DEPTH: usize = 8;

/// What was seen at one level.
#[derive(Debug, Default)]
struct Seen {
    /// Non-null values.
    count: usize,
    /// Primitive values by their class.
    primitives: HashMap<Class, usize>,
    /// The widest decimal width per scale (4, 8, 16).
    decimal_widths: HashMap<u8, u8>,
    objects: usize,
    /// Per field name: how many objects had it, and its values.
    fields: HashMap<String, Seen>,
    arrays: usize,
    elements: Option<Box<Seen>>,
}

/// A primitive type family for counting (integers of any width are one class, decimals
/// are one class per scale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Class {
    Integer,
    Decimal(u8),
    Other(PrimitiveType),
}

fn class(value: &Variant<'_, '_>) -> Option<(Class, Option<u8>)> {
    Some(match *value {
        Variant::Int8(_) | Variant::Int16(_) | Variant::Int32(_) | Variant::Int64(_) => {
            (Class::Integer, None)
        }
        Variant::Decimal4 { scale, .. } => (Class::Decimal(scale), Some(4)),
        Variant::Decimal8 { scale, .. } => (Class::Decimal(scale), Some(8)),
        Variant::Decimal16 { scale, .. } => (Class::Decimal(scale), Some(16)),
        Variant::Boolean(_) => (Class::Other(PrimitiveType::Boolean), None),
        Variant::Float(_) => (Class::Other(PrimitiveType::Float), None),
        Variant::Double(_) => (Class::Other(PrimitiveType::Double), None),
        Variant::Date(_) => (Class::Other(PrimitiveType::Date), None),
        Variant::TimeNtzMicros(_) => (Class::Other(PrimitiveType::Time), None),
        Variant::TimestampMicros(_) => (Class::Other(PrimitiveType::Timestamp), None),
        Variant::TimestampNtzMicros(_) => (Class::Other(PrimitiveType::TimestampNtz), None),
        Variant::TimestampNanos(_) => (Class::Other(PrimitiveType::TimestampNanos), None),
        Variant::TimestampNtzNanos(_) => (Class::Other(PrimitiveType::TimestampNtzNanos), None),
        Variant::Binary(_) => (Class::Other(PrimitiveType::Binary), None),
        Variant::String(_) => (Class::Other(PrimitiveType::String), None),
        Variant::Uuid(_) => (Class::Other(PrimitiveType::Uuid), None),
        Variant::Null | Variant::Object(_) | Variant::Array(_) => return None,
    })
}

impl Seen {
    fn record(&mut self, value: &Variant<'_, '_>, depth: usize) -> Result<()> {
        if matches!(value, Variant::Null) {
            return Ok(());
        }
        self.count += 1;
        match value {
            Variant::Object(object) => {
                self.objects += 1;
                if depth >= MAX_INFERRED_DEPTH {
                    return Ok(());
                }
                for index in 0..object.len() {
                    let (name, field) = object.field(index)?;
                    if !self.fields.contains_key(name)
                        && self.fields.len() >= MAX_INFERRED_FIELDS * 4
                    {
                        // Bound the bookkeeping on objects with ever new keys.
                        continue;
                    }
                    self.fields
                        .entry(name.to_string())
                        .or_default()
                        .record(&field, depth + 1)?;
                }
            }
            Variant::Array(array) => {
                self.arrays += 1;
                if depth >= MAX_INFERRED_DEPTH {
                    return Ok(());
                }
                let elements = self.elements.get_or_insert_with(Box::default);
                for element in array.iter() {
                    elements.record(&element?, depth + 1)?;
                }
            }
            primitive => {
                if let Some((class, width)) = class(primitive) {
                    *self.primitives.entry(class).or_default() += 1;
                    if let (Class::Decimal(scale), Some(width)) = (class, width) {
                        let widest = self.decimal_widths.entry(scale).or_default();
                        *widest = (*widest).max(width);
                    }
                }
            }
        }
        Ok(())
    }

    fn shape(&self) -> ShreddedType {
        let majority = |n: usize| self.count > 0 && n * 2 > self.count;
        if majority(self.objects) {
            let mut fields: Vec<(&String, &Seen)> = self
                .fields
                .iter()
                .filter(|(_, seen)| seen.count * 2 > self.objects)
                .collect();
            fields.sort_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(b.0)));
            fields.truncate(MAX_INFERRED_FIELDS);
            let mut shaped: Vec<(String, ShreddedType)> = fields
                .into_iter()
                .map(|(name, seen)| (name.clone(), seen.shape()))
                .filter(|(_, shape)| *shape != ShreddedType::Variant)
                .collect();
            shaped.sort_by(|a, b| a.0.cmp(&b.0));
            return if shaped.is_empty() {
                ShreddedType::Variant
            } else {
                ShreddedType::Object(shaped)
            };
        }
        if majority(self.arrays) {
            return match self.elements.as_ref().map(|e| e.shape()) {
                Some(element) if element != ShreddedType::Variant => {
                    ShreddedType::Array(Box::new(element))
                }
                _ => ShreddedType::Variant,
            };
        }
        let Some((&class, &n)) = self.primitives.iter().max_by(|a, b| {
            a.1.cmp(b.1)
                .then_with(|| format!("{:?}", b.0).cmp(&format!("{:?}", a.0)))
        }) else {
            return ShreddedType::Variant;
        };
        if !majority(n) {
            return ShreddedType::Variant;
        }
        ShreddedType::Primitive(match class {
            Class::Integer => PrimitiveType::Int64,
            Class::Decimal(scale) => match self.decimal_widths.get(&scale).copied() {
                Some(4) if scale <= 9 => PrimitiveType::Decimal4 {
                    precision: 9,
                    scale,
                },
                Some(4 | 8) if scale <= 18 => PrimitiveType::Decimal8 {
                    precision: 18,
                    scale,
                },
                _ => PrimitiveType::Decimal16 {
                    precision: 38,
                    scale,
                },
            },
            Class::Other(primitive) => primitive,
        })
    }
}

/// A shredding shape for a Variant column (shredded or not), inferred from its first
/// `max_rows` rows (see the module documentation); [`ShreddedType::Variant`] when
/// nothing is common enough.
///
/// ```
/// use arrow_array::StringArray;
/// use herringbone_arrow_bridge::variant::{infer_shredding, json_to_variant};
///
/// let json = StringArray::from(vec![
///     r#"{"id": 1, "name": "a", "tags": ["x"], "extra": true}"#,
///     r#"{"id": 300, "name": "b", "tags": []}"#,
///     r#"{"id": 2, "name": 3, "tags": ["y", "z"]}"#,
/// ]);
/// let shape = infer_shredding(&json_to_variant(&json).unwrap(), 100).unwrap();
/// assert_eq!(shape.to_string(), "{id:int64,name:string,tags:[string]}");
/// ```
pub fn infer_shredding(array: &dyn Array, max_rows: usize) -> Result<ShreddedType> {
    let array = super::as_variant_struct(array)?;
    let rows = array.len().min(max_rows);
    let sample = array.slice(0, rows);
    let mut seen = Seen::default();
    for_each_row(&sample, |_, row| {
        if let Some((metadata, value)) = row {
            let variant = Variant::try_new(metadata, value)?;
            seen.record(&variant, 0)?;
        }
        Ok(())
    })?;
    Ok(seen.shape())
}

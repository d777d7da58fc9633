//! Structs, lists and maps from their leaves' levels: a struct's validity from the
//! definition levels of its first leaf, a list's offsets and validity from its first
//! leaf's repetition and definition levels, and each leaf's own validity from its
//! definition levels (inside a list, the entries of empty or null lists above are not
//! its slots).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, LargeListArray, ListArray, MapArray, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;
use herringbone_format::schema::SchemaDescriptor;

use super::bits::{bits_at_or_above, slot_bits};
use super::shape::{self, ListLevels, ShapeError};
use super::{LeafOutput, leaf_array};
use crate::error::{Error, Result};
use crate::read::values::shrink_vec;
use crate::schema::{ParquetField, ParquetFieldKind};

/// Builds the Arrow array of `field` for `len` rows from the decoded leaves (keyed by
/// leaf column index; the leaves under `field` are taken out of the map).
pub(crate) fn assemble(
    field: &ParquetField,
    leaves: &mut HashMap<usize, LeafOutput>,
    descriptor: &SchemaDescriptor,
    len: usize,
) -> Result<ArrayRef> {
    assemble_at(field, leaves, descriptor, len, 0)
}

/// The array of the leaf field `field` (leaf column `column`) for `len` rows from its
/// decoded `batch`: a top-level field of one leaf needs nothing else, so a leaf's own
/// decode task can build it ([`super::super::pool`]).
pub(crate) fn primitive(
    field: &ParquetField,
    column: usize,
    batch: LeafOutput,
    descriptor: &SchemaDescriptor,
    len: usize,
) -> Result<ArrayRef> {
    primitive_at(field, column, batch, descriptor, len, 0)
}

fn primitive_at(
    field: &ParquetField,
    column: usize,
    batch: LeafOutput,
    descriptor: &SchemaDescriptor,
    len: usize,
    slot_def: u16,
) -> Result<ArrayRef> {
    let descr = descriptor
        .column(column)
        .ok_or_else(|| Error::corrupt(format!("leaf column {column} is not in the schema")))?;
    // Formatted only into an error: a batch of a wide table assembles thousands.
    let path = descr.path();
    if field.def_level != descr.max_def_level() {
        return Err(Error::corrupt(format!(
            "column {path}: field definition level {} differs from the column's {}",
            field.def_level,
            descr.max_def_level()
        )));
    }
    if let Some(bits) = batch.def_bits {
        if bits.len() != len {
            return Err(Error::corrupt(format!(
                "column {path}: {} definition levels for {len} rows",
                bits.len()
            )));
        }
        let nulls = (batch.def_nulls > 0).then(|| NullBuffer::new(bits));
        return leaf_array(field.field.data_type(), path, batch.values, nulls, len);
    }
    let nulls = match batch.def_levels.as_deref() {
        // Inside a list, the entries of empty or null lists above are not
        // slots of this leaf: one pass skips them and makes the bitmap.
        Some(levels) if slot_def > 0 && field.def_level > 0 => {
            let (bits, slots) = slot_bits(levels, slot_def, field.def_level as u16);
            check_len(path, slots, len)?;
            let nulls = NullBuffer::new(bits);
            (nulls.null_count() > 0).then_some(nulls)
        }
        levels => validity(levels, field.def_level, len, path)?,
    };
    leaf_array(field.field.data_type(), path, batch.values, nulls, len)
}

/// Builds the array of `field`, whose slots exist wherever a leaf's definition level
/// reaches `slot_def` (the entry level of the innermost enclosing list or map, 0 at the
/// top). A level entry is an instance of `field` when it reaches `slot_def` and its
/// repetition level does not go below `field` (at most `field.rep_level`); deeper
/// entries belong to lists inside it.
fn assemble_at(
    field: &ParquetField,
    leaves: &mut HashMap<usize, LeafOutput>,
    descriptor: &SchemaDescriptor,
    len: usize,
    slot_def: u16,
) -> Result<ArrayRef> {
    let name = field.field.name();
    match &field.kind {
        ParquetFieldKind::Primitive { column, .. } => {
            let batch = leaves.remove(column).ok_or_else(|| {
                let path = descriptor
                    .column(*column)
                    .map_or_else(|| format!("#{column}"), |d| d.path().dotted());
                Error::corrupt(format!("column {path} was not decoded"))
            })?;
            primitive_at(field, *column, batch, descriptor, len, slot_def)
        }
        ParquetFieldKind::Struct { children } => {
            let nulls = if i32::from(field.def_level) > i32::from(slot_def) {
                let first = representative(field, leaves)?;
                if let Some(bits) = first.def_bits.clone() {
                    // The first leaf is a required field of this (top-level, optional)
                    // struct: present exactly where the struct is.
                    check_len(name, bits.len(), len)?;
                    (first.def_nulls > 0).then(|| NullBuffer::new(bits))
                } else {
                    let levels = instance_levels(field, leaves, slot_def)?;
                    validity(Some(levels.as_ref()), field.def_level, len, name)?
                }
            } else {
                None
            };
            let mut arrays = Vec::with_capacity(children.len());
            for child in children {
                arrays.push(assemble_at(child, leaves, descriptor, len, slot_def)?);
            }
            let DataType::Struct(fields) = field.field.data_type() else {
                return Err(Error::corrupt(format!(
                    "field {name} is a Parquet group but its Arrow type is {}",
                    field.field.data_type()
                )));
            };
            let array = StructArray::try_new_with_length(fields.clone(), arrays, nulls, len)
                .map_err(|e| Error::from(e).context(format!("struct {name}")))?;
            Ok(Arc::new(array))
        }
        ParquetFieldKind::List {
            element,
            entry_def_level,
            entry_rep_level,
        } => {
            let shape = list_shape(field, leaves, slot_def, *entry_def_level, *entry_rep_level)?;
            check_len(name, shape.offsets.len() - 1, len)?;
            let entry_def = level_u16(*entry_def_level, name)?;
            let elements = shape.elements();
            let values = assemble_at(element, leaves, descriptor, elements, entry_def)?;
            list_array(field, shape, values)
        }
        ParquetFieldKind::Map {
            key,
            value,
            entry_def_level,
            entry_rep_level,
        } => {
            let shape = list_shape(field, leaves, slot_def, *entry_def_level, *entry_rep_level)?;
            check_len(name, shape.offsets.len() - 1, len)?;
            let entry_def = level_u16(*entry_def_level, name)?;
            let entries = shape.elements();
            let keys = assemble_at(key, leaves, descriptor, entries, entry_def)?;
            if keys.null_count() > 0 {
                return Err(Error::corrupt(format!(
                    "map {name}: {} null keys (map keys must not be null)",
                    keys.null_count()
                )));
            }
            let values = assemble_at(value, leaves, descriptor, entries, entry_def)?;
            let DataType::Map(entries_field, ordered) = field.field.data_type() else {
                return Err(Error::corrupt(format!(
                    "field {name} is a Parquet map but its Arrow type is {}",
                    field.field.data_type()
                )));
            };
            let DataType::Struct(entry_fields) = entries_field.data_type() else {
                return Err(Error::corrupt(format!(
                    "map {name}: entries of type {}",
                    entries_field.data_type()
                )));
            };
            let entries_array = StructArray::try_new_with_length(
                entry_fields.clone(),
                vec![keys, values],
                None,
                entries,
            )
            .map_err(|e| Error::from(e).context(format!("map {name}")))?;
            let offsets = shape.offsets_i32(name)?;
            let array = MapArray::try_new(
                entries_field.clone(),
                offsets,
                entries_array,
                shape.nulls,
                *ordered,
            )
            .map_err(|e| Error::from(e).context(format!("map {name}")))?;
            Ok(Arc::new(array))
        }
    }
}

fn check_len(name: impl std::fmt::Display, got: usize, expected: usize) -> Result<()> {
    if got == expected {
        Ok(())
    } else {
        Err(Error::corrupt(format!(
            "field {name}: its columns hold {got} values where {expected} are expected"
        )))
    }
}

fn level_u16(level: i16, name: &str) -> Result<u16> {
    u16::try_from(level).map_err(|_| Error::corrupt(format!("field {name}: negative level")))
}

/// The first leaf under `field`, whose levels describe `field`'s instances.
fn representative<'a>(
    field: &ParquetField,
    leaves: &'a HashMap<usize, LeafOutput>,
) -> Result<&'a LeafOutput> {
    let first =
        field.leaf_columns().first().copied().ok_or_else(|| {
            Error::corrupt(format!("field {} has no columns", field.field.name()))
        })?;
    leaves.get(&first).ok_or_else(|| {
        Error::corrupt(format!(
            "field {}: column {first} was not decoded",
            field.field.name()
        ))
    })
}

/// The definition levels of `field`'s instances (see [`assemble_at`]).
fn instance_levels<'a>(
    field: &ParquetField,
    leaves: &'a HashMap<usize, LeafOutput>,
    slot_def: u16,
) -> Result<std::borrow::Cow<'a, [u16]>> {
    let batch = representative(field, leaves)?;
    let defs = batch.def_levels.as_deref().ok_or_else(|| {
        Error::corrupt(format!(
            "field {}: optional field without definition levels",
            field.field.name()
        ))
    })?;
    let rep = level_u16(field.rep_level, field.field.name())?;
    Ok(match batch.rep_levels.as_deref() {
        Some(reps) => std::borrow::Cow::Owned(
            defs.iter()
                .zip(reps)
                .filter(|&(&d, &r)| r <= rep && d >= slot_def)
                .map(|(&d, _)| d)
                .collect(),
        ),
        None if slot_def > 0 => {
            std::borrow::Cow::Owned(defs.iter().copied().filter(|&d| d >= slot_def).collect())
        }
        None => std::borrow::Cow::Borrowed(defs),
    })
}

/// Offsets and validity of a list (or map) array.
struct ListShape {
    offsets: Vec<i64>,
    nulls: Option<NullBuffer>,
}

impl ListShape {
    /// Number of elements of all lists together.
    fn elements(&self) -> usize {
        self.offsets.last().map_or(0, |&o| o as usize)
    }

    fn offsets_i32(&self, name: &str) -> Result<OffsetBuffer<i32>> {
        // The offsets never decrease from 0: when the last fits, they all do, and the
        // conversion is a loop without a check per offset.
        if i32::try_from(self.elements()).is_err() {
            return Err(Error::new(
                crate::ErrorKind::Unsupported,
                format!(
                    "list {name}: more than 2^31 elements in one batch do not fit 32-bit \
                     offsets; read it as LargeList or use a smaller batch size"
                ),
            ));
        }
        let out: Vec<i32> = self.offsets.iter().map(|&o| o as i32).collect();
        Ok(OffsetBuffer::new(ScalarBuffer::from(out)))
    }
}

/// The shape of `field`'s list from the levels of its first leaf ([`shape::list_shape`]
/// places the entries), with errors that name the list.
fn list_shape(
    field: &ParquetField,
    leaves: &HashMap<usize, LeafOutput>,
    slot_def: u16,
    entry_def: i16,
    entry_rep: i16,
) -> Result<ListShape> {
    let name = field.field.name();
    let batch = representative(field, leaves)?;
    let (Some(defs), Some(reps)) = (batch.def_levels.as_deref(), batch.rep_levels.as_deref())
    else {
        return Err(Error::corrupt(format!(
            "list {name}: its column has no repetition levels"
        )));
    };
    let levels = ListLevels {
        list_rep: level_u16(field.rep_level, name)?,
        list_def: level_u16(field.def_level, name)?,
        slot_def,
        entry_def: level_u16(entry_def, name)?,
        entry_rep: level_u16(entry_rep, name)?,
    };
    let (offsets, valid) = shape::list_shape(defs, reps, levels).map_err(|e| {
        Error::corrupt(match e {
            ShapeError::Orphan => {
                format!("list {name}: an element continues a list that never started")
            }
            ShapeError::BelowElement => format!(
                "list {name}: a continued list holds an entry with a definition level below \
                 the element level {}",
                levels.entry_def
            ),
        })
    })?;
    let nulls = NullBuffer::new(valid.finish());
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    Ok(ListShape { offsets, nulls })
}

/// 64-bit offsets as an array keeps them: the room reserved for them by a guess from
/// the levels is given back first.
fn kept_offsets(mut offsets: Vec<i64>) -> OffsetBuffer<i64> {
    shrink_vec(&mut offsets);
    OffsetBuffer::new(ScalarBuffer::from(offsets))
}

/// The list array of `field`'s Arrow type from its shape and element values.
fn list_array(field: &ParquetField, shape: ListShape, values: ArrayRef) -> Result<ArrayRef> {
    let name = field.field.name();
    let wrap = |e: arrow_schema::ArrowError| Error::from(e).context(format!("list {name}"));
    let target = field.field.data_type();
    Ok(match target {
        DataType::List(element) => Arc::new(
            ListArray::try_new(
                element.clone(),
                shape.offsets_i32(name)?,
                values,
                shape.nulls,
            )
            .map_err(wrap)?,
        ),
        DataType::LargeList(element) => Arc::new(
            LargeListArray::try_new(
                element.clone(),
                kept_offsets(shape.offsets),
                values,
                shape.nulls,
            )
            .map_err(wrap)?,
        ),
        DataType::FixedSizeList(element, _)
        | DataType::ListView(element)
        | DataType::LargeListView(element) => {
            // Built as a list, then cast: the cast checks fixed sizes and pads null
            // lists.
            let list = LargeListArray::try_new(
                element.clone(),
                OffsetBuffer::new(ScalarBuffer::from(shape.offsets)),
                values,
                shape.nulls,
            )
            .map_err(wrap)?;
            arrow_cast::cast(&list, target).map_err(wrap)?
        }
        other => {
            return Err(Error::corrupt(format!(
                "field {name} is a Parquet list but its Arrow type is {other}"
            )));
        }
    })
}

/// Validity of a field present at definition level `level`: valid where the leaf's
/// definition level reaches it. `None` when nothing is null.
fn validity(
    levels: Option<&[u16]>,
    level: i16,
    len: usize,
    what: impl std::fmt::Display,
) -> Result<Option<NullBuffer>> {
    if level <= 0 {
        return Ok(None);
    }
    let levels = levels.ok_or_else(|| {
        Error::corrupt(format!("{what}: optional field without definition levels"))
    })?;
    if levels.len() != len {
        return Err(Error::corrupt(format!(
            "{what}: {} definition levels for {len} rows",
            levels.len()
        )));
    }
    let nulls = NullBuffer::new(bits_at_or_above(levels, level as u16));
    Ok((nulls.null_count() > 0).then_some(nulls))
}

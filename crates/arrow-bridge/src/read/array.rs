//! Decoded leaves -> Arrow arrays: validity from definition levels, nulls spread into
//! the value buffers run by run, physical values converted to the mapped Arrow type, and
//! structs assembled from their children.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type,
    Decimal256Type, DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType,
    DurationSecondType, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, IntervalDayTimeType, IntervalMonthDayNanoType, IntervalYearMonthType,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, BinaryViewArray, BooleanArray, FixedSizeBinaryArray, GenericBinaryArray,
    GenericStringArray, LargeListArray, ListArray, MapArray, NullArray, OffsetSizeTrait,
    PrimitiveArray, StringViewArray, StructArray,
};
use arrow_buffer::{
    BooleanBuffer, Buffer, IntervalDayTime, IntervalMonthDayNano, NullBuffer, OffsetBuffer,
    ScalarBuffer, i256,
};
use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use herringbone_format::schema::SchemaDescriptor;

use super::column::{LeafBatch, Values, bytes_to_views};
use crate::error::{Error, Result};
use crate::schema::{ParquetField, ParquetFieldKind};

/// Julian day number of 1970-01-01, the epoch of INT96 timestamps' day field.
const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;

/// Builds the Arrow array of `field` for `len` rows from the decoded leaves (keyed by
/// leaf column index; the leaves under `field` are taken out of the map).
pub(crate) fn assemble(
    field: &ParquetField,
    leaves: &mut HashMap<usize, LeafBatch>,
    descriptor: &SchemaDescriptor,
    len: usize,
) -> Result<ArrayRef> {
    assemble_at(field, leaves, descriptor, len, 0)
}

/// Builds the array of `field`, whose slots exist wherever a leaf's definition level
/// reaches `slot_def` (the entry level of the innermost enclosing list or map, 0 at the
/// top). A level entry is an instance of `field` when it reaches `slot_def` and its
/// repetition level does not go below `field` (at most `field.rep_level`); deeper
/// entries belong to lists inside it.
fn assemble_at(
    field: &ParquetField,
    leaves: &mut HashMap<usize, LeafBatch>,
    descriptor: &SchemaDescriptor,
    len: usize,
    slot_def: u16,
) -> Result<ArrayRef> {
    let name = field.field.name();
    match &field.kind {
        ParquetFieldKind::Primitive { column, .. } => {
            let descr = descriptor.column(*column).ok_or_else(|| {
                Error::corrupt(format!("leaf column {column} is not in the schema"))
            })?;
            let path = descr.path().dotted();
            let batch = leaves
                .remove(column)
                .ok_or_else(|| Error::corrupt(format!("column {path} was not decoded")))?;
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
                return leaf_array(field.field.data_type(), &path, batch.values, nulls, len);
            }
            let nulls = match batch.def_levels.as_deref() {
                // Inside a list, the entries of empty or null lists above are not
                // slots of this leaf: one pass skips them and makes the bitmap.
                Some(levels) if slot_def > 0 && field.def_level > 0 => {
                    let (bits, slots) = slot_bits(levels, slot_def, field.def_level as u16);
                    check_len(&path, slots, len)?;
                    let nulls = NullBuffer::new(bits);
                    (nulls.null_count() > 0).then_some(nulls)
                }
                levels => validity(levels, field.def_level, len, &path)?,
            };
            leaf_array(field.field.data_type(), &path, batch.values, nulls, len)
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

fn check_len(name: &str, got: usize, expected: usize) -> Result<()> {
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
    leaves: &'a HashMap<usize, LeafBatch>,
) -> Result<&'a LeafBatch> {
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
    leaves: &'a HashMap<usize, LeafBatch>,
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
        let mut out = Vec::with_capacity(self.offsets.len());
        for &o in &self.offsets {
            out.push(i32::try_from(o).map_err(|_| {
                Error::new(
                    crate::ErrorKind::Unsupported,
                    format!(
                        "list {name}: more than 2^31 elements in one batch do not fit 32-bit \
                         offsets; read it as LargeList or use a smaller batch size"
                    ),
                )
            })?);
        }
        Ok(OffsetBuffer::new(ScalarBuffer::from(out)))
    }
}

/// Walks the levels of `field`'s first leaf: every instance of the list starts a list
/// (null below the list's own definition level, empty below `entry_def`), and every
/// entry at or above `entry_def` whose repetition level is at most `entry_rep` is an
/// element of the current list.
fn list_shape(
    field: &ParquetField,
    leaves: &HashMap<usize, LeafBatch>,
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
    let list_rep = level_u16(field.rep_level, name)?;
    let list_def = level_u16(field.def_level, name)?;
    let entry_def = level_u16(entry_def, name)?;
    let entry_rep = level_u16(entry_rep, name)?;
    let mut offsets = Vec::with_capacity(defs.len() / 2 + 1);
    let mut valid = BitWriter::with_capacity(defs.len() / 2);
    let mut elements: i64 = 0;
    // Whether a continued list held an entry below the element level (checked once at
    // the end, keeping the loop free of early exits).
    let mut bad = false;
    let mut orphan = false;
    // Branch-free over each entry (list lengths vary, so branches on the levels would
    // mispredict): every entry writes an offset and a validity bit into staging blocks,
    // whose end advances only where a list starts; the blocks are then appended. The
    // loop keeps its state in registers (the bitmap is built after it).
    const BLOCK: usize = 1024;
    let mut staged = [0i64; BLOCK];
    let mut staged_valid = [false; BLOCK];
    for (defs, reps) in defs.chunks(BLOCK).zip(reps.chunks(BLOCK)) {
        let none_yet = offsets.is_empty();
        let mut started = 0;
        for (&d, &r) in defs.iter().zip(reps) {
            let new_list = r <= list_rep;
            // A list starts at the elements so far (unless it belongs to an empty or
            // null list further up, below `slot_def`).
            let counted = new_list & (d >= slot_def);
            let continued = !new_list & (r <= entry_rep);
            // `started` is at most the entry's index in the block, below BLOCK.
            staged[started % BLOCK] = elements;
            staged_valid[started % BLOCK] = d >= list_def;
            started += usize::from(counted);
            elements += i64::from((counted & (d >= entry_def)) | continued);
            bad |= continued & (d < entry_def);
            orphan |= continued & none_yet & (started == 0);
        }
        offsets.extend_from_slice(&staged[..started]);
        for &bit in &staged_valid[..started] {
            valid.push(bit);
        }
    }
    if orphan {
        return Err(Error::corrupt(format!(
            "list {name}: an element continues a list that never started"
        )));
    }
    if bad {
        return Err(Error::corrupt(format!(
            "list {name}: a continued list holds an entry with a definition level below the \
             element level {entry_def}"
        )));
    }
    offsets.push(elements);
    let nulls = NullBuffer::new(valid.finish());
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    Ok(ListShape { offsets, nulls })
}

/// A bitmap written one bit at a time into whole words.
struct BitWriter {
    words: Vec<u64>,
    word: u64,
    bits: usize,
    len: usize,
}

impl BitWriter {
    fn with_capacity(bits: usize) -> Self {
        Self {
            words: Vec::with_capacity(bits.div_ceil(64)),
            word: 0,
            bits: 0,
            len: 0,
        }
    }

    /// Appends `bit` when `take` (without a branch on either).
    #[inline(always)]
    fn push_if(&mut self, take: bool, bit: bool) {
        self.word |= u64::from(bit & take) << self.bits;
        self.bits += usize::from(take);
        if self.bits == 64 {
            self.words.push(self.word);
            self.word = 0;
            self.bits = 0;
            self.len += 64;
        }
    }

    #[inline(always)]
    fn push(&mut self, bit: bool) {
        self.push_if(true, bit);
    }

    fn finish(mut self) -> BooleanBuffer {
        let len = self.len + self.bits;
        if self.bits > 0 {
            self.words.push(self.word);
        }
        BooleanBuffer::new(Buffer::from_vec(self.words), 0, len)
    }
}

/// The validity of a leaf inside a list from its definition levels: the entries at or
/// above `slot_def` are its slots (the others belong to empty or null lists above), set
/// where the level reaches `level`. Returns the bitmap and the number of slots.
fn slot_bits(levels: &[u16], slot_def: u16, level: u16) -> (BooleanBuffer, usize) {
    let mut bits = BitWriter::with_capacity(levels.len());
    for &l in levels {
        bits.push_if(l >= slot_def, l >= level);
    }
    let bits = bits.finish();
    let slots = bits.len();
    (bits, slots)
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
                OffsetBuffer::new(ScalarBuffer::from(shape.offsets)),
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
    what: &str,
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

/// A bitmap of which `levels` are at least `level`, 64 levels per word (a loop the
/// compiler vectorises).
pub(crate) fn bits_at_or_above(levels: &[u16], level: u16) -> BooleanBuffer {
    let mut words = Vec::with_capacity(levels.len().div_ceil(64));
    let chunks = levels.chunks_exact(64);
    let rest = chunks.remainder();
    for chunk in chunks {
        let mut word = 0u64;
        for (j, &l) in chunk.iter().enumerate() {
            word |= u64::from(l >= level) << j;
        }
        words.push(word);
    }
    if !rest.is_empty() {
        let mut word = 0u64;
        for (j, &l) in rest.iter().enumerate() {
            word |= u64::from(l >= level) << j;
        }
        words.push(word);
    }
    BooleanBuffer::new(Buffer::from_vec(words), 0, levels.len())
}

/// Dense values spread to `len` slots: valid slots take the values in order, null slots
/// a default (see [`herringbone_codec::spread`], which does it in place). The values
/// must number the valid slots (checked by the callers: a mismatch is an error there).
pub(crate) fn spread<T: Copy + Default + 'static>(
    mut values: Vec<T>,
    nulls: Option<&NullBuffer>,
    len: usize,
) -> Result<Vec<T>> {
    let Some(nulls) = nulls else {
        return Ok(values);
    };
    let bits = nulls.inner();
    herringbone_codec::spread::spread(&mut values, bits.values(), bits.offset(), len)?;
    Ok(values)
}

fn primitive<T: ArrowPrimitiveType>(
    dense: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    len: usize,
    data_type: &DataType,
) -> Result<ArrayRef> {
    let values = spread(dense, nulls.as_ref(), len)?;
    Ok(Arc::new(
        PrimitiveArray::<T>::new(ScalarBuffer::from(values), nulls)
            .with_data_type(data_type.clone()),
    ))
}

fn cannot(path: &str, values: &Values, target: &DataType) -> Error {
    let physical = match values {
        Values::Bool(_) => "BOOLEAN",
        Values::I32(_) => "INT32",
        Values::I64(_) => "INT64",
        Values::I96(_) => "INT96",
        Values::F32(_) => "FLOAT",
        Values::F64(_) => "DOUBLE",
        Values::Bytes { .. } | Values::Bytes32 { .. } | Values::Views { .. } => "BYTE_ARRAY",
        Values::Fixed { .. } => "FIXED_LEN_BYTE_ARRAY",
        Values::Dict(_) => "dictionary-encoded",
    };
    Error::unsupported(format!(
        "column {path}: reading {physical} values as {target} is not supported"
    ))
}

/// The Arrow array of type `target` holding a leaf's values.
pub(crate) fn leaf_array(
    target: &DataType,
    path: &str,
    values: Values,
    nulls: Option<NullBuffer>,
    len: usize,
) -> Result<ArrayRef> {
    if values.len() != len - nulls.as_ref().map_or(0, |n| n.null_count()) {
        return Err(Error::corrupt(format!(
            "column {path}: {} values for {} non-null rows",
            values.len(),
            len - nulls.as_ref().map_or(0, |n| n.null_count())
        )));
    }
    use DataType as D;
    Ok(match (values, target) {
        (_, D::Null) => Arc::new(NullArray::new(len)),
        // Keys of the chunk's dictionary, kept as such (no value is hashed).
        (Values::Dict(keys), D::Dictionary(key, value)) => {
            super::dictionary::dictionary_array(keys, key, value, nulls, len, path)?
        }
        (Values::Dict(keys), _) => leaf_array(target, path, keys.materialise()?, nulls, len)?,
        // Plain values (a chunk that is not dictionary-encoded, a batch that reaches
        // into a page of another encoding, a dictionary not kept): the batch's values
        // are hashed into a new dictionary.
        (values, D::Dictionary(_, value_type)) => {
            let plain = leaf_array(value_type, path, values, nulls, len)?;
            arrow_cast::cast(&plain, target)
                .map_err(|e| Error::from(e).context(format!("column {path}, read as {target}")))?
        }
        (Values::Bool(v), D::Boolean) => {
            let values = spread(v, nulls.as_ref(), len)?;
            Arc::new(BooleanArray::new(BooleanBuffer::from(values), nulls))
        }
        (Values::I32(v), t) => int32_array(v, nulls, len, t)?
            .ok_or_else(|| cannot(path, &Values::I32(Vec::new()), target))?,
        (Values::I64(v), t) => int64_array(v, nulls, len, t)?
            .ok_or_else(|| cannot(path, &Values::I64(Vec::new()), target))?,
        (Values::I96(v), D::Timestamp(unit, _)) => {
            let mut converted = Vec::with_capacity(v.len());
            for value in &v {
                converted.push(int96_to_timestamp(value, *unit).ok_or_else(|| {
                    Error::new(
                        crate::ErrorKind::Corrupt,
                        format!(
                            "column {path}: INT96 timestamp {} does not fit Timestamp({unit:?}); read it with a coarser unit (SchemaOptions::with_int96_unit)",
                            int96_text(value)
                        ),
                    )
                })?);
            }
            timestamp_array(converted, nulls, len, target, *unit)?
        }
        (Values::F32(v), D::Float32) => primitive::<Float32Type>(v, nulls, len, target)?,
        (Values::F64(v), D::Float64) => primitive::<Float64Type>(v, nulls, len, target)?,
        (Values::Bytes { offsets, data }, t) => bytes_array(offsets, data, nulls, len, t, path)?,
        (Values::Bytes32 { offsets, data }, t) => {
            bytes32_array(offsets, data, nulls, len, t, path)?
        }
        (Values::Views { views, buffers }, D::Utf8View) => {
            let views = ScalarBuffer::from(spread(views, nulls.as_ref(), len)?);
            // SAFETY: every view was made by `views::checked_views` from a value lying
            // in one of `buffers` (buffer index, offset and length within it, prefix
            // copied from it, short values inline and zero-padded), null slots are zero
            // views, and for a `Utf8View` column `checked_views` found every value to
            // be UTF-8. That is everything `StringViewArray::try_new` checks, which
            // would repeat the UTF-8 check value by value.
            Arc::new(unsafe { StringViewArray::new_unchecked(views, buffers, nulls) })
        }
        (Values::Views { views, buffers }, D::BinaryView) => {
            let views = ScalarBuffer::from(spread(views, nulls.as_ref(), len)?);
            Arc::new(BinaryViewArray::try_new(views, buffers, nulls)?)
        }
        (Values::Fixed { width, data }, t) => fixed_array(width, data, nulls, len, t, path)?,
        (values, _) => return Err(cannot(path, &values, target)),
    })
}

fn int32_array(
    v: Vec<i32>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<Option<ArrayRef>> {
    use DataType as D;
    Ok(Some(match target {
        D::Int32 => primitive::<Int32Type>(v, nulls, len, target)?,
        D::Date32 => primitive::<Date32Type>(v, nulls, len, target)?,
        D::Time32(TimeUnit::Second) => primitive::<Time32SecondType>(v, nulls, len, target)?,
        D::Time32(TimeUnit::Millisecond) => {
            primitive::<Time32MillisecondType>(v, nulls, len, target)?
        }
        D::Decimal32(_, _) => primitive::<Decimal32Type>(v, nulls, len, target)?,
        // Narrow integer annotations keep the low bits, as the reference readers do.
        D::Int8 => primitive::<Int8Type>(v.iter().map(|&x| x as i8).collect(), nulls, len, target)?,
        D::Int16 => {
            primitive::<Int16Type>(v.iter().map(|&x| x as i16).collect(), nulls, len, target)?
        }
        D::UInt8 => {
            primitive::<UInt8Type>(v.iter().map(|&x| x as u8).collect(), nulls, len, target)?
        }
        D::UInt16 => {
            primitive::<UInt16Type>(v.iter().map(|&x| x as u16).collect(), nulls, len, target)?
        }
        D::UInt32 => {
            primitive::<UInt32Type>(v.iter().map(|&x| x as u32).collect(), nulls, len, target)?
        }
        D::Int64 => primitive::<Int64Type>(
            v.iter().map(|&x| i64::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Date64 => primitive::<Date64Type>(
            v.iter().map(|&x| i64::from(x) * 86_400_000).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal64(_, _) => primitive::<Decimal64Type>(
            v.iter().map(|&x| i64::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal128(_, _) => primitive::<Decimal128Type>(
            v.iter().map(|&x| i128::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal256(_, _) => primitive::<Decimal256Type>(
            v.iter().map(|&x| i256::from_i128(i128::from(x))).collect(),
            nulls,
            len,
            target,
        )?,
        _ => return Ok(None),
    }))
}

fn int64_array(
    v: Vec<i64>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
) -> Result<Option<ArrayRef>> {
    use DataType as D;
    Ok(Some(match target {
        D::Int64 => primitive::<Int64Type>(v, nulls, len, target)?,
        D::UInt64 => {
            primitive::<UInt64Type>(v.iter().map(|&x| x as u64).collect(), nulls, len, target)?
        }
        D::Timestamp(unit, _) => timestamp_array(v, nulls, len, target, *unit)?,
        D::Time64(TimeUnit::Microsecond) => {
            primitive::<Time64MicrosecondType>(v, nulls, len, target)?
        }
        D::Time64(TimeUnit::Nanosecond) => {
            primitive::<Time64NanosecondType>(v, nulls, len, target)?
        }
        D::Duration(TimeUnit::Second) => primitive::<DurationSecondType>(v, nulls, len, target)?,
        D::Duration(TimeUnit::Millisecond) => {
            primitive::<DurationMillisecondType>(v, nulls, len, target)?
        }
        D::Duration(TimeUnit::Microsecond) => {
            primitive::<DurationMicrosecondType>(v, nulls, len, target)?
        }
        D::Duration(TimeUnit::Nanosecond) => {
            primitive::<DurationNanosecondType>(v, nulls, len, target)?
        }
        D::Date64 => primitive::<Date64Type>(v, nulls, len, target)?,
        D::Decimal64(_, _) => primitive::<Decimal64Type>(v, nulls, len, target)?,
        D::Decimal128(_, _) => primitive::<Decimal128Type>(
            v.iter().map(|&x| i128::from(x)).collect(),
            nulls,
            len,
            target,
        )?,
        D::Decimal256(_, _) => primitive::<Decimal256Type>(
            v.iter().map(|&x| i256::from_i128(i128::from(x))).collect(),
            nulls,
            len,
            target,
        )?,
        _ => return Ok(None),
    }))
}

fn timestamp_array(
    v: Vec<i64>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
    unit: TimeUnit,
) -> Result<ArrayRef> {
    Ok(match unit {
        TimeUnit::Second => primitive::<TimestampSecondType>(v, nulls, len, target)?,
        TimeUnit::Millisecond => primitive::<TimestampMillisecondType>(v, nulls, len, target)?,
        TimeUnit::Microsecond => primitive::<TimestampMicrosecondType>(v, nulls, len, target)?,
        TimeUnit::Nanosecond => primitive::<TimestampNanosecondType>(v, nulls, len, target)?,
    })
}

/// An INT96 timestamp (nanoseconds of the day, then the Julian day, little-endian) in
/// `unit` since the epoch; `None` when it does not fit an `i64` of that unit.
///
/// A value whose count since the Julian epoch fits the unit but whose count since 1970
/// does not is what Spark writes for instants beyond the `i64` range of the unit: Spark
/// shifts by the epoch with wrapping arithmetic on write and on read, so the same
/// wrapping shift returns exactly the count Spark wrote. Any other value that does not fit
/// is refused rather than wrapped.
fn int96_to_timestamp(value: &[u8; 12], unit: TimeUnit) -> Option<i64> {
    let (nanos, day) = int96_parts(value);
    let (per_day, per_unit) = match unit {
        TimeUnit::Second => (86_400_i64, 1_000_000_000_i64),
        TimeUnit::Millisecond => (86_400_000, 1_000_000),
        TimeUnit::Microsecond => (86_400_000_000, 1_000),
        TimeUnit::Nanosecond => (86_400_000_000_000, 1),
    };
    let within_day = nanos / per_unit;
    let since_epoch =
        i128::from(day - JULIAN_DAY_OF_EPOCH) * i128::from(per_day) + i128::from(within_day);
    if let Ok(value) = i64::try_from(since_epoch) {
        return Some(value);
    }
    let since_julian_epoch = day.checked_mul(per_day)?.checked_add(within_day)?;
    Some(since_julian_epoch.wrapping_sub(JULIAN_DAY_OF_EPOCH.wrapping_mul(per_day)))
}

fn int96_parts(value: &[u8; 12]) -> (i64, i64) {
    let mut nanos = [0u8; 8];
    nanos.copy_from_slice(&value[..8]);
    let mut day = [0u8; 4];
    day.copy_from_slice(&value[8..]);
    (
        i64::from_le_bytes(nanos),
        i64::from(i32::from_le_bytes(day)),
    )
}

fn int96_text(value: &[u8; 12]) -> String {
    let (nanos, day) = int96_parts(value);
    format!("(Julian day {day}, {nanos} ns)")
}

/// Full-length offsets (null slots repeat the previous offset) from dense ones.
fn spread_offsets<O: OffsetSizeTrait>(
    dense: &[i64],
    nulls: Option<&NullBuffer>,
    len: usize,
    path: &str,
) -> Result<OffsetBuffer<O>> {
    let last = *dense.last().unwrap_or(&0);
    if O::from_usize(last as usize).is_none() {
        return Err(Error::unsupported(format!(
            "column {path}: {last} bytes of values in one batch do not fit 32-bit offsets; use a smaller batch size or a Large type"
        )));
    }
    let convert = |o: i64| O::usize_as(o as usize);
    let offsets: Vec<O> = match nulls {
        None => dense.iter().map(|&o| convert(o)).collect(),
        Some(nulls) => {
            let mut out = Vec::with_capacity(len + 1);
            out.push(convert(dense[0]));
            let mut next = 0;
            for valid in nulls.iter() {
                if valid {
                    next += 1;
                }
                out.push(convert(dense[next]));
            }
            out
        }
    };
    Ok(OffsetBuffer::new(ScalarBuffer::from(offsets)))
}

/// Full-length 32-bit offsets (null slots repeat the previous offset) from dense ones.
fn spread_offsets32(dense: Vec<i32>, nulls: Option<&NullBuffer>, len: usize) -> Vec<i32> {
    let Some(nulls) = nulls else {
        return dense;
    };
    let mut out = Vec::with_capacity(len + 1);
    let mut next = 0;
    out.push(dense[0]);
    for valid in nulls.iter() {
        next += usize::from(valid);
        out.push(dense[next]);
    }
    out
}

/// The `Utf8` / `Binary` array of values read with 32-bit offsets (any other target
/// goes through [`bytes_array`]).
fn bytes32_array(
    offsets: Vec<i32>,
    data: Vec<u8>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
    path: &str,
) -> Result<ArrayRef> {
    use DataType as D;
    if !matches!(target, D::Utf8 | D::Binary) {
        let wide = offsets.iter().map(|&o| i64::from(o)).collect();
        return bytes_array(wide, data, nulls, len, target, path);
    }
    let corrupt =
        |e: arrow_schema::ArrowError| Error::corrupt(format!("column {path}: {e}")).with_source(e);
    let offsets = spread_offsets32(offsets, nulls.as_ref(), len);
    // The offsets are checked here, in one branch-free pass that vectorises, so that a
    // bad one is an error (`OffsetBuffer::new` would panic) and is not checked twice.
    let ordered = offsets.first().is_some_and(|&o| o >= 0)
        && offsets.windows(2).fold(true, |ok, w| ok & (w[0] <= w[1]));
    let fits = ordered
        && offsets.last().is_some_and(|&o| o as usize <= data.len())
        && nulls.as_ref().is_none_or(|n| n.len() == offsets.len() - 1);
    if !fits {
        return Err(Error::corrupt(format!(
            "column {path}: string offsets do not match the values"
        )));
    }
    // SAFETY: the offsets are not empty, start at or above 0 and never decrease
    // (checked just above): what `OffsetBuffer::new` asserts.
    let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
    let data = Buffer::from_vec(data);
    Ok(if matches!(target, D::Utf8) {
        let bytes = data.as_slice();
        // ASCII bytes are UTF-8 and every offset into them is a character boundary;
        // otherwise one check of all the bytes, and one of each offset being where a
        // character starts (a tighter loop than `try_new`'s boundary check).
        let valid = bytes.is_ascii()
            || (std::str::from_utf8(bytes).is_ok()
                && offsets.iter().fold(true, |ok, &o| {
                    ok & super::views::starts_char(bytes, o as usize)
                }));
        if !valid {
            return Err(Error::corrupt(format!(
                "column {path}: invalid UTF-8 in a string column"
            )));
        }
        // SAFETY: the offsets start at or above 0, never decrease, end within `data`,
        // and `nulls` has a slot per value (all checked above); `data` is UTF-8 and
        // every offset is at a character boundary (checked just above). That is
        // everything `try_new` checks.
        Arc::new(unsafe { GenericStringArray::<i32>::new_unchecked(offsets, data, nulls) })
    } else {
        Arc::new(GenericBinaryArray::<i32>::try_new(offsets, data, nulls).map_err(corrupt)?)
    })
}

fn bytes_array(
    offsets: Vec<i64>,
    data: Vec<u8>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
    path: &str,
) -> Result<ArrayRef> {
    use DataType as D;
    let utf8_error = |e: arrow_schema::ArrowError| {
        Error::corrupt(format!("column {path}: invalid UTF-8 in a string column")).with_source(e)
    };
    Ok(match target {
        D::Utf8 => {
            let offsets = spread_offsets::<i32>(&offsets, nulls.as_ref(), len, path)?;
            Arc::new(
                GenericStringArray::<i32>::try_new(offsets, Buffer::from_vec(data), nulls)
                    .map_err(utf8_error)?,
            )
        }
        D::LargeUtf8 => {
            let offsets = spread_offsets::<i64>(&offsets, nulls.as_ref(), len, path)?;
            Arc::new(
                GenericStringArray::<i64>::try_new(offsets, Buffer::from_vec(data), nulls)
                    .map_err(utf8_error)?,
            )
        }
        D::Binary => {
            let offsets = spread_offsets::<i32>(&offsets, nulls.as_ref(), len, path)?;
            Arc::new(GenericBinaryArray::<i32>::try_new(
                offsets,
                Buffer::from_vec(data),
                nulls,
            )?)
        }
        D::LargeBinary => {
            let offsets = spread_offsets::<i64>(&offsets, nulls.as_ref(), len, path)?;
            Arc::new(GenericBinaryArray::<i64>::try_new(
                offsets,
                Buffer::from_vec(data),
                nulls,
            )?)
        }
        D::Utf8View | D::BinaryView => {
            // The same views the column reader makes, over this one buffer.
            let views = bytes_to_views(&offsets, data, matches!(target, D::Utf8View))
                .map_err(|e| e.context(format!("column {path}")))?;
            leaf_array(target, path, views, nulls, len)?
        }
        D::Decimal32(_, _) | D::Decimal64(_, _) | D::Decimal128(_, _) | D::Decimal256(_, _) => {
            let values = offsets
                .windows(2)
                .map(|w| &data[w[0] as usize..w[1] as usize]);
            decimal_array(values, nulls, len, target, path)?
        }
        _ => {
            return Err(cannot(
                path,
                &Values::Bytes {
                    offsets: vec![0],
                    data: Vec::new(),
                },
                target,
            ));
        }
    })
}

/// Sign-extends a big-endian two's-complement integer of at most `N` bytes.
fn be_sign_extend<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    if bytes.len() > N {
        return None;
    }
    let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        0xff
    } else {
        0
    };
    let mut out = [fill; N];
    out[N - bytes.len()..].copy_from_slice(bytes);
    Some(out)
}

fn decimal_array<'a>(
    values: impl Iterator<Item = &'a [u8]>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
    path: &str,
) -> Result<ArrayRef> {
    let too_wide = |bytes: &[u8]| {
        Error::corrupt(format!(
            "column {path}: a decimal of {} bytes does not fit {target}",
            bytes.len()
        ))
    };
    Ok(match target {
        DataType::Decimal256(_, _) => {
            let mut dense = Vec::new();
            for bytes in values {
                let b = be_sign_extend::<32>(bytes).ok_or_else(|| too_wide(bytes))?;
                dense.push(i256::from_be_bytes(b));
            }
            primitive::<Decimal256Type>(dense, nulls, len, target)?
        }
        _ => {
            let mut dense = Vec::new();
            for bytes in values {
                let b = be_sign_extend::<16>(bytes).ok_or_else(|| too_wide(bytes))?;
                dense.push(i128::from_be_bytes(b));
            }
            match target {
                DataType::Decimal32(_, _) => {
                    let narrowed: Option<Vec<i32>> =
                        dense.iter().map(|&x| i32::try_from(x).ok()).collect();
                    let narrowed = narrowed.ok_or_else(|| too_wide(&[0; 17]))?;
                    primitive::<Decimal32Type>(narrowed, nulls, len, target)?
                }
                DataType::Decimal64(_, _) => {
                    let narrowed: Option<Vec<i64>> =
                        dense.iter().map(|&x| i64::try_from(x).ok()).collect();
                    let narrowed = narrowed.ok_or_else(|| too_wide(&[0; 17]))?;
                    primitive::<Decimal64Type>(narrowed, nulls, len, target)?
                }
                _ => primitive::<Decimal128Type>(dense, nulls, len, target)?,
            }
        }
    })
}

fn fixed_array(
    width: usize,
    data: Vec<u8>,
    nulls: Option<NullBuffer>,
    len: usize,
    target: &DataType,
    path: &str,
) -> Result<ArrayRef> {
    use DataType as D;
    let le_u32 = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    Ok(match target {
        D::FixedSizeBinary(w) if usize::try_from(*w).ok() == Some(width) => {
            let values = spread_fixed(&data, width, nulls.as_ref(), len);
            Arc::new(FixedSizeBinaryArray::try_new(
                *w,
                Buffer::from_vec(values),
                nulls,
            )?)
        }
        D::Decimal32(_, _) | D::Decimal64(_, _) | D::Decimal128(_, _) | D::Decimal256(_, _) => {
            decimal_array(data.chunks_exact(width), nulls, len, target, path)?
        }
        D::Float16 if width == 2 => primitive::<Float16Type>(
            data.chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]))
                .collect(),
            nulls,
            len,
            target,
        )?,
        D::Interval(unit) if width == 12 => {
            let parts = data.chunks_exact(12).map(|b| {
                (
                    le_u32(&b[..4]) as i32,
                    le_u32(&b[4..8]) as i32,
                    le_u32(&b[8..]),
                )
            });
            match unit {
                IntervalUnit::MonthDayNano => primitive::<IntervalMonthDayNanoType>(
                    parts
                        .map(|(m, d, ms)| {
                            IntervalMonthDayNano::new(m, d, i64::from(ms) * 1_000_000)
                        })
                        .collect(),
                    nulls,
                    len,
                    target,
                )?,
                IntervalUnit::YearMonth => primitive::<IntervalYearMonthType>(
                    parts.map(|(m, _, _)| m).collect(),
                    nulls,
                    len,
                    target,
                )?,
                IntervalUnit::DayTime => primitive::<IntervalDayTimeType>(
                    parts
                        .map(|(_, d, ms)| IntervalDayTime::new(d, ms as i32))
                        .collect(),
                    nulls,
                    len,
                    target,
                )?,
            }
        }
        _ => {
            return Err(cannot(
                path,
                &Values::Fixed {
                    width,
                    data: Vec::new(),
                },
                target,
            ));
        }
    })
}

/// Fixed-width values spread to `len` slots (null slots zeroed).
fn spread_fixed(dense: &[u8], width: usize, nulls: Option<&NullBuffer>, len: usize) -> Vec<u8> {
    let Some(nulls) = nulls else {
        return dense.to_vec();
    };
    let mut out = vec![0u8; len * width];
    let mut next = 0;
    for (start, end) in nulls.inner().set_slices() {
        let n = (end - start) * width;
        out[start * width..end * width].copy_from_slice(&dense[next..next + n]);
        next += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;

    fn int96(day: i32, nanos: i64) -> [u8; 12] {
        let mut out = [0u8; 12];
        out[..8].copy_from_slice(&nanos.to_le_bytes());
        out[8..].copy_from_slice(&day.to_le_bytes());
        out
    }

    #[test]
    fn int96_converts_to_every_unit() {
        // 2024-01-01T20:34:56.123456789 is Julian day 2460311.
        let value = int96(2_460_311, 74_096_123_456_789);
        let seconds = 1_704_141_296_i64;
        assert_eq!(int96_to_timestamp(&value, TimeUnit::Second), Some(seconds));
        assert_eq!(
            int96_to_timestamp(&value, TimeUnit::Millisecond),
            Some(seconds * 1000 + 123)
        );
        assert_eq!(
            int96_to_timestamp(&value, TimeUnit::Microsecond),
            Some(seconds * 1_000_000 + 123_456)
        );
        assert_eq!(
            int96_to_timestamp(&value, TimeUnit::Nanosecond),
            Some(seconds * 1_000_000_000 + 123_456_789)
        );
        // Before the epoch.
        assert_eq!(
            int96_to_timestamp(&int96(2_440_587, 0), TimeUnit::Nanosecond),
            Some(-86_400_000_000_000)
        );
        // Year 9999 does not fit nanoseconds but does fit microseconds.
        let far = int96(5_373_484, 0);
        assert_eq!(int96_to_timestamp(&far, TimeUnit::Nanosecond), None);
        assert_eq!(
            int96_to_timestamp(&far, TimeUnit::Microsecond),
            Some((5_373_484 - 2_440_588) * 86_400_000_000)
        );
    }

    #[test]
    fn int96_out_of_range_is_an_error_naming_the_option() {
        let values = Values::I96(vec![int96(5_373_484, 0)]);
        let target = DataType::Timestamp(TimeUnit::Nanosecond, None);
        let error = leaf_array(&target, "t", values, None, 1)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("with_int96_unit") && error.contains("column t"),
            "{error}"
        );
    }

    #[test]
    fn big_endian_decimals_sign_extend() {
        assert_eq!(
            be_sign_extend::<16>(&[0xff, 0x38]).map(i128::from_be_bytes),
            Some(-200)
        );
        assert_eq!(
            be_sign_extend::<16>(&[0x00, 0xc8]).map(i128::from_be_bytes),
            Some(200)
        );
        assert_eq!(be_sign_extend::<16>(&[]).map(i128::from_be_bytes), Some(0));
        assert_eq!(be_sign_extend::<16>(&[0; 17]), None);
        let values = Values::Bytes {
            offsets: vec![0, 2, 3],
            data: vec![0xff, 0x38, 0x05],
        };
        let nulls = NullBuffer::from(vec![true, false, true]);
        let target = DataType::Decimal128(5, 2);
        let array = leaf_array(&target, "d", values, Some(nulls), 3).unwrap();
        let array = array.as_primitive::<Decimal128Type>();
        assert_eq!(
            array.iter().collect::<Vec<_>>(),
            vec![Some(-200), None, Some(5)]
        );
        assert_eq!(array.data_type(), &target);
    }

    #[test]
    fn intervals_read_as_month_day_nano_or_bytes() {
        let mut raw = Vec::new();
        for part in [14_u32, 3, 1500] {
            raw.extend_from_slice(&part.to_le_bytes());
        }
        let values = Values::Fixed {
            width: 12,
            data: raw.clone(),
        };
        let target = DataType::Interval(IntervalUnit::MonthDayNano);
        let array = leaf_array(&target, "i", values, None, 1).unwrap();
        assert_eq!(
            array.as_primitive::<IntervalMonthDayNanoType>().value(0),
            IntervalMonthDayNano::new(14, 3, 1_500_000_000)
        );
        let values = Values::Fixed {
            width: 12,
            data: raw.clone(),
        };
        let array = leaf_array(&DataType::FixedSizeBinary(12), "i", values, None, 1).unwrap();
        assert_eq!(array.as_fixed_size_binary().value(0), &raw[..]);
    }

    #[test]
    fn nulls_spread_in_runs() {
        let nulls = NullBuffer::from(vec![false, true, true, false, false, true]);
        assert_eq!(
            spread(vec![1, 2, 3], Some(&nulls), 6).unwrap(),
            vec![0, 1, 2, 0, 0, 3]
        );
        let offsets = spread_offsets::<i32>(&[0, 2, 5, 6], Some(&nulls), 6, "c").unwrap();
        assert_eq!(&offsets[..], &[0, 0, 2, 5, 5, 5, 6]);
    }

    #[test]
    fn spreading_matches_the_slot_by_slot_definition_over_whole_and_mixed_words() {
        // Words of all-valid, all-null and mixed slots, a ragged last word, and a
        // sliced validity buffer (bit offset 3).
        let pattern: Vec<bool> = (0..300)
            .map(|i| match i {
                0..64 => true,
                64..128 => false,
                _ => (i * 7919) % 5 < 3,
            })
            .collect();
        for offset in [0, 3] {
            let bits = NullBuffer::from(pattern.clone()).slice(offset, pattern.len() - offset);
            let len = bits.len();
            let dense: Vec<i64> = (0..(len - bits.null_count()) as i64)
                .map(|v| v + 1)
                .collect();
            let mut next = dense.iter();
            let expected: Vec<i64> = (0..len)
                .map(|i| {
                    if bits.is_valid(i) {
                        *next.next().unwrap()
                    } else {
                        0
                    }
                })
                .collect();
            assert_eq!(
                spread(dense, Some(&bits), len).unwrap(),
                expected,
                "offset {offset}"
            );
        }
    }

    #[test]
    fn a_type_the_values_cannot_hold_is_unsupported() {
        let error = leaf_array(&DataType::Utf8, "x", Values::I32(vec![1]), None, 1).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Unsupported);
        assert!(error.to_string().contains("column x"), "{error}");
    }
}

//! Finding Variant columns wherever they nest (struct fields, list elements, map values)
//! and rebuilding the containers around a changed Variant column: the one mechanism
//! behind shredding on write, reconstruction on read and rendering as JSON.
//!
//! Paths are the Arrow field names joined by dots (`a.b` for field `b` of struct `a`,
//! `tags.item` for the elements of list `tags`).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, FixedSizeListArray, MapArray, RecordBatch, StructArray};
use arrow_array::{GenericListArray, OffsetSizeTrait};
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, SchemaRef};

use crate::error::{Error, Result};

use super::extension::is_variant_field;

/// Deepest Arrow nesting followed.
const MAX_DEPTH: usize = 128;

/// What to do with each Variant column found: given its path, field and array, the new
/// field (same name) and array.
pub(crate) type VariantFn<'a> =
    dyn FnMut(&str, &Field, &StructArray) -> Result<(Field, ArrayRef)> + 'a;

/// What a Variant field becomes, given its path (for schemas computed ahead of data).
pub(crate) type VariantFieldFn<'a> = dyn FnMut(&str, &Field) -> Result<Field> + 'a;

/// Whether `data_type` has a Variant field anywhere inside it (or `field` is one).
pub(crate) fn contains_variant(field: &Field) -> bool {
    fn walk(field: &Field, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if is_variant_field(field) {
            return true;
        }
        match field.data_type() {
            DataType::Struct(children) => children.iter().any(|c| walk(c, depth + 1)),
            DataType::List(e) | DataType::LargeList(e) | DataType::FixedSizeList(e, _) => {
                walk(e, depth + 1)
            }
            DataType::Map(entries, _) => walk(entries, depth + 1),
            _ => false,
        }
    }
    walk(field, 0)
}

fn child_path(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn too_deep(path: &str) -> Error {
    Error::invalid_argument(format!(
        "field {path}: nesting deeper than {MAX_DEPTH} levels"
    ))
}

/// `field` with every Variant field inside it replaced by `f`'s answer.
pub(crate) fn map_variant_fields(field: &Field, f: &mut VariantFieldFn<'_>) -> Result<Field> {
    map_field(field, field.name(), f, 0)
}

fn map_field(field: &Field, path: &str, f: &mut VariantFieldFn<'_>, depth: usize) -> Result<Field> {
    if depth > MAX_DEPTH {
        return Err(too_deep(path));
    }
    if !contains_variant(field) {
        return Ok(field.clone());
    }
    if is_variant_field(field) {
        return f(path, field);
    }
    let data_type = match field.data_type() {
        DataType::Struct(children) => DataType::Struct(
            children
                .iter()
                .map(|c| map_field(c, &child_path(path, c.name()), f, depth + 1).map(Arc::new))
                .collect::<Result<Fields>>()?,
        ),
        DataType::List(e) => DataType::List(Arc::new(map_field(
            e,
            &child_path(path, e.name()),
            f,
            depth + 1,
        )?)),
        DataType::LargeList(e) => DataType::LargeList(Arc::new(map_field(
            e,
            &child_path(path, e.name()),
            f,
            depth + 1,
        )?)),
        DataType::FixedSizeList(e, n) => DataType::FixedSizeList(
            Arc::new(map_field(e, &child_path(path, e.name()), f, depth + 1)?),
            *n,
        ),
        DataType::Map(entries, sorted) => DataType::Map(
            Arc::new(map_field(
                entries,
                &child_path(path, entries.name()),
                f,
                depth + 1,
            )?),
            *sorted,
        ),
        other => other.clone(),
    };
    Ok(field.clone().with_data_type(data_type))
}

/// `schema` with every Variant field replaced by `f`'s answer.
pub(crate) fn map_schema(schema: &Schema, f: &mut VariantFieldFn<'_>) -> Result<SchemaRef> {
    let fields = schema
        .fields()
        .iter()
        .map(|field| map_variant_fields(field, f).map(Arc::new))
        .collect::<Result<Fields>>()?;
    Ok(Arc::new(
        Schema::new(fields).with_metadata(schema.metadata().clone()),
    ))
}

/// `batch` with every Variant column (at any depth) replaced by `f`'s answer.
pub(crate) fn map_batch(batch: &RecordBatch, f: &mut VariantFn<'_>) -> Result<RecordBatch> {
    let schema = batch.schema();
    if !schema.fields().iter().any(|field| contains_variant(field)) {
        return Ok(batch.clone());
    }
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let (field, column) = map_array(field, column, field.name(), f, 0)?;
        fields.push(Arc::new(field));
        columns.push(column);
    }
    let schema = Schema::new(fields).with_metadata(schema.metadata().clone());
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        Arc::new(schema),
        columns,
        &options,
    )?)
}

fn map_array(
    field: &Field,
    array: &ArrayRef,
    path: &str,
    f: &mut VariantFn<'_>,
    depth: usize,
) -> Result<(Field, ArrayRef)> {
    if depth > MAX_DEPTH {
        return Err(too_deep(path));
    }
    if !contains_variant(field) {
        return Ok((field.clone(), array.clone()));
    }
    if is_variant_field(field) {
        let structs = array.as_struct_opt().ok_or_else(|| {
            Error::invalid_argument(format!(
                "variant column {path} is {}, not a struct",
                array.data_type()
            ))
        })?;
        return f(path, field, structs);
    }
    let (data_type, array): (DataType, ArrayRef) = match array.data_type() {
        DataType::Struct(children) => {
            let structs = array.as_struct();
            let mut fields = Vec::with_capacity(children.len());
            let mut columns = Vec::with_capacity(children.len());
            for (child, column) in children.iter().zip(structs.columns()) {
                let (child, column) =
                    map_array(child, column, &child_path(path, child.name()), f, depth + 1)?;
                fields.push(Arc::new(child));
                columns.push(column);
            }
            let fields = Fields::from(fields);
            let rebuilt = StructArray::try_new(fields.clone(), columns, structs.nulls().cloned())?;
            (DataType::Struct(fields), Arc::new(rebuilt))
        }
        DataType::List(_) => map_list(array.as_list::<i32>(), path, f, depth, DataType::List)?,
        DataType::LargeList(_) => {
            map_list(array.as_list::<i64>(), path, f, depth, DataType::LargeList)?
        }
        DataType::FixedSizeList(element, size) => {
            let list = array.as_fixed_size_list();
            let (element, values) = map_array(
                element,
                list.values(),
                &child_path(path, element.name()),
                f,
                depth + 1,
            )?;
            let element = Arc::new(element);
            let rebuilt =
                FixedSizeListArray::try_new(element.clone(), *size, values, list.nulls().cloned())?;
            (DataType::FixedSizeList(element, *size), Arc::new(rebuilt))
        }
        DataType::Map(entries, sorted) => {
            let map = array.as_map();
            let entries_array: ArrayRef = Arc::new(map.entries().clone());
            let (entries, values) = map_array(
                entries,
                &entries_array,
                &child_path(path, entries.name()),
                f,
                depth + 1,
            )?;
            let entries = Arc::new(entries);
            let rebuilt = MapArray::try_new(
                entries.clone(),
                map.offsets().clone(),
                values.as_struct().clone(),
                map.nulls().cloned(),
                *sorted,
            )?;
            (DataType::Map(entries, *sorted), Arc::new(rebuilt))
        }
        _ => return Ok((field.clone(), array.clone())),
    };
    Ok((field.clone().with_data_type(data_type), array))
}

fn map_list<O: OffsetSizeTrait>(
    list: &GenericListArray<O>,
    path: &str,
    f: &mut VariantFn<'_>,
    depth: usize,
    make_type: fn(FieldRef) -> DataType,
) -> Result<(DataType, ArrayRef)> {
    let (DataType::List(element) | DataType::LargeList(element)) = list.data_type() else {
        return Err(Error::invalid_argument(format!("{path} is not a list")));
    };
    let (element, values) = map_array(
        element,
        list.values(),
        &child_path(path, element.name()),
        f,
        depth + 1,
    )?;
    let element = Arc::new(element);
    let rebuilt = GenericListArray::<O>::try_new(
        element.clone(),
        list.offsets().clone(),
        values,
        list.nulls().cloned(),
    )?;
    Ok((make_type(element), Arc::new(rebuilt)))
}

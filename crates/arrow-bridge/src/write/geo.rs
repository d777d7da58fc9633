//! Geospatial statistics of GEOMETRY / GEOGRAPHY column chunks on write: the column
//! writer hands every present WKB value to a [`GeoStatisticsAccumulator`] (codec's
//! `geo` module) and puts the result in `ColumnMetaData::geospatial_statistics`.
//!
//! The column writer (`chunk.rs`) calls in three places: when it is made
//! ([`accumulator_for`]), when a batch's leaf arrives ([`add_array`] for a top-level
//! leaf, [`add_slots`] for a leaf under structs or lists), and when the chunk closes
//! ([`finish`], then the accumulator is reset for the next row group). The schema mapping calls [`refer_to_projjson`].

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use herringbone_codec::geo::{Edges, GeoStatisticsAccumulator};
use herringbone_format::metadata::{GeospatialStatistics, KeyValue, LogicalType};
use herringbone_format::schema::{ColumnDescriptor, SchemaDescriptor};
use herringbone_format::thrift::Text;

use super::properties::StatisticsLevel;
use super::schema::ParquetSchema;
use crate::error::{Error, Result};

/// An accumulator for a GEOMETRY / GEOGRAPHY column whose statistics are on; `None`
/// for any other column.
pub(crate) fn accumulator_for(
    column: &ColumnDescriptor,
    level: StatisticsLevel,
) -> Option<GeoStatisticsAccumulator> {
    if level == StatisticsLevel::None {
        return None;
    }
    let edges = match column.logical_type()? {
        LogicalType::Geometry { .. } => Edges::Planar,
        LogicalType::Geography { algorithm, .. } => Edges::of_geography(*algorithm),
        _ => return None,
    };
    Some(GeoStatisticsAccumulator::new(edges))
}

/// Adds the non-null values of a flat binary array (`nulls` its logical validity).
pub(crate) fn add_array(
    acc: &mut GeoStatisticsAccumulator,
    array: &ArrayRef,
    nulls: Option<&NullBuffer>,
) {
    let valid = |i: usize| nulls.is_none_or(|n| n.is_valid(i));
    match array.data_type() {
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            (0..a.len())
                .filter(|&i| valid(i))
                .for_each(|i| acc.add(a.value(i)));
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            (0..a.len())
                .filter(|&i| valid(i))
                .for_each(|i| acc.add(a.value(i)));
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            (0..a.len())
                .filter(|&i| valid(i))
                .for_each(|i| acc.add(a.value(i)));
        }
        // The writer only writes binary arrays flat into a geo column; anything else
        // took the gathered path and came through `add_values`.
        _ => {}
    }
}

/// Adds the values at `slots` of a binary array (a leaf under structs or lists).
pub(crate) fn add_slots(acc: &mut GeoStatisticsAccumulator, array: &ArrayRef, slots: &[usize]) {
    let in_range = |i: &&usize| **i < array.len();
    match array.data_type() {
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            slots
                .iter()
                .filter(in_range)
                .for_each(|&i| acc.add(a.value(i)));
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            slots
                .iter()
                .filter(in_range)
                .for_each(|&i| acc.add(a.value(i)));
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            slots
                .iter()
                .filter(in_range)
                .for_each(|&i| acc.add(a.value(i)));
        }
        _ => {}
    }
}

/// The chunk's statistics (`None` when a value was not valid WKB).
pub(crate) fn finish(acc: Option<&GeoStatisticsAccumulator>) -> Option<Box<GeospatialStatistics>> {
    acc.and_then(GeoStatisticsAccumulator::finish).map(Box::new)
}

/// A GEOMETRY / GEOGRAPHY CRS given as a PROJJSON object (as the reader resolves
/// `projjson:KEY`) written back as `projjson:KEY` when the file's key-value metadata
/// holds the same PROJJSON under `KEY`: a file read and rewritten with its key-value
/// metadata keeps its CRS byte for byte. Without such an entry the PROJJSON stays inline
/// in the schema, as pyarrow writes it.
pub(crate) fn refer_to_projjson(
    mut parquet: ParquetSchema,
    key_values: &[KeyValue],
) -> Result<ParquetSchema> {
    if key_values.is_empty() {
        return Ok(parquet);
    }
    let mut changed = false;
    for element in &mut parquet.elements {
        let crs = match &mut element.logical_type {
            Some(LogicalType::Geometry { crs } | LogicalType::Geography { crs, .. }) => crs,
            _ => continue,
        };
        let Some(text) = crs.as_deref().filter(|t| t.trim_start().starts_with('{')) else {
            continue;
        };
        let Ok(object) = serde_json::from_str::<serde_json::Value>(text) else {
            continue;
        };
        let key = key_values.iter().find(|kv| {
            kv.value.as_deref().is_some_and(|v| {
                serde_json::from_str::<serde_json::Value>(v).is_ok_and(|v| v == object)
            })
        });
        if let Some(kv) = key {
            *crs = Some(Text::from(format!("projjson:{}", kv.key.as_str()).as_str()));
            changed = true;
        }
    }
    if changed {
        parquet.descriptor = SchemaDescriptor::new(&parquet.elements).map_err(|e| {
            Error::schema("the Parquet schema with PROJJSON references is invalid").with_source(e)
        })?;
    }
    Ok(parquet)
}

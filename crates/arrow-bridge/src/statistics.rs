//! Row-group and page statistics as Arrow arrays, for engines that prune.
//!
//! A [`StatisticsConverter`] is made for one leaf column of a file. It turns the column
//! chunk statistics of any set of row groups, or the page index of one column chunk,
//! into [`StatisticsArrays`]: minimums and maximums as arrays of the column's Arrow type
//! (the type the reader produces for it: `Date32` for dates, `Timestamp` in the stored
//! unit, `Decimal128(p, s)` for decimals of every storage, `Float16`, strings, ...;
//! the value type for a column read as a dictionary), with null counts, distinct counts,
//! NaN counts and row counts beside them. An entry is null where the file says nothing
//! usable: no statistics, a bound in a column order this version does not know, a
//! column without a defined order (INT96, INTERVAL, geometry), a NaN bound, or a page
//! holding only nulls.
//!
//! Bounds are conservative: every non-null value of the row group (or page) lies in
//! `min..=max` in the Arrow type's order (`-0.0` and `+0.0` both covered; NaNs are not
//! covered, see [`StatisticsArrays::nan_count`]). Byte-array bounds may be truncated by
//! the writer and are then still bounds but not values of the data:
//! [`StatisticsArrays::min_exact`] and [`StatisticsArrays::max_exact`] say which are the
//! actual smallest and largest values.
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch, cast::AsArray, types::Int32Type};
//! # use bytes::Bytes;
//! use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
//! use herringbone_arrow_bridge::schema::{SchemaOptions, parquet_to_arrow};
//! use herringbone_arrow_bridge::statistics::StatisticsConverter;
//! use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
//! # let column: ArrayRef = Arc::new(Int32Array::from(vec![Some(5), None, Some(3), Some(9)]));
//! # let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
//! # let props = WriterProperties::builder().set_max_row_group_rows(2).build();
//! # let mut file = Vec::new();
//! # let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
//! # writer.write(&batch).unwrap();
//! # writer.close().unwrap();
//! // `file`: column `x` = [5, null | 3, 9] in two row groups.
//! let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file)).unwrap();
//! let (metadata, descriptor) = (builder.metadata(), builder.parquet_schema());
//! let mapping = parquet_to_arrow(descriptor, None, &SchemaOptions::default()).unwrap();
//! let converter = StatisticsConverter::try_new("x", metadata, descriptor, &mapping).unwrap();
//! let stats = converter.row_groups(metadata, &[0, 1]).unwrap();
//! assert_eq!(stats.min.as_primitive::<Int32Type>().values(), &[5, 3]);
//! assert_eq!(stats.max.as_primitive::<Int32Type>().values(), &[5, 9]);
//! assert_eq!(stats.null_count.values(), &[1, 0]);
//! assert_eq!(stats.row_count.values(), &[2, 2]);
//! ```

mod bounds;
mod geo;

pub use geo::{GeoStatisticsArrays, geo_statistics};

use arrow_array::{Array, ArrayRef, BooleanArray, UInt64Array, new_null_array};
use arrow_cast::{CastOptions, cast_with_options};
use arrow_schema::{DataType, FieldRef};
use herringbone_format::metadata::{ColumnIndex, FileMetaData, OffsetIndex, Statistics};
use herringbone_format::schema::{ColumnDescriptor, SchemaDescriptor};

use crate::error::{Error, Result};
use crate::schema::{ArrowSchemaMapping, ParquetField, ParquetFieldKind};
use bounds::{BoundsRule, Side, Storage};

/// Statistics of one leaf column over a list of row groups or pages, one entry each.
#[derive(Debug, Clone)]
pub struct StatisticsArrays {
    /// Lower bounds, in the column's Arrow type; null where unknown.
    pub min: ArrayRef,
    /// Upper bounds, in the column's Arrow type; null where unknown.
    pub max: ArrayRef,
    /// Whether `min` is the actual smallest value (not a truncated bound); null where
    /// `min` is null.
    pub min_exact: BooleanArray,
    /// Whether `max` is the actual largest value (not a truncated bound); null where
    /// `max` is null.
    pub max_exact: BooleanArray,
    /// Null values (leaf level); null where unknown.
    pub null_count: UInt64Array,
    /// Distinct values as the writer counted them; null where unknown.
    pub distinct_count: UInt64Array,
    /// NaN values of a float column; null where unknown (NaNs may then be present
    /// outside `min..=max`), and for other types.
    pub nan_count: UInt64Array,
    /// Rows.
    pub row_count: UInt64Array,
}

impl StatisticsArrays {
    /// Number of entries (row groups or pages).
    pub fn len(&self) -> usize {
        self.row_count.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Converts the statistics of one leaf column to Arrow arrays (see the
/// [module documentation](self)).
#[derive(Debug, Clone)]
pub struct StatisticsConverter {
    leaf: usize,
    path: String,
    arrow_type: DataType,
    rule: BoundsRule,
    max_rep_level: i16,
}

impl StatisticsConverter {
    /// The converter of the leaf column at the dotted Parquet path `path` (`a.b` for
    /// field `b` of struct `a`), whose Arrow type is the one `mapping` reads it as.
    ///
    /// Errors (kind `InvalidArgument`) when no leaf column has that path.
    pub fn try_new(
        path: &str,
        metadata: &FileMetaData,
        descriptor: &SchemaDescriptor,
        mapping: &ArrowSchemaMapping,
    ) -> Result<Self> {
        let leaf = descriptor
            .column_index_by_dotted_path(path)
            .ok_or_else(|| {
                Error::invalid_argument(format!("statistics: no leaf column at path `{path}`"))
            })?;
        Self::for_leaf(leaf, metadata, descriptor, mapping)
    }

    /// The converter of leaf column `leaf` (index in the Parquet schema).
    ///
    /// Errors (kind `InvalidArgument`) when the index is out of range.
    pub fn for_leaf(
        leaf: usize,
        metadata: &FileMetaData,
        descriptor: &SchemaDescriptor,
        mapping: &ArrowSchemaMapping,
    ) -> Result<Self> {
        let descr = descriptor.column(leaf).ok_or_else(|| {
            Error::invalid_argument(format!(
                "statistics: leaf column {leaf} out of range (the schema has {} columns)",
                descriptor.num_columns()
            ))
        })?;
        let arrow_type = match leaf_arrow_field(mapping, leaf) {
            Some(field) => value_type(field.data_type()).clone(),
            None => natural_type(descr),
        };
        let column_order = metadata
            .column_orders
            .as_ref()
            .and_then(|orders| orders.get(leaf));
        Ok(Self {
            leaf,
            path: descr.path().dotted(),
            arrow_type,
            rule: BoundsRule::of(descr, column_order),
            max_rep_level: descr.max_rep_level(),
        })
    }

    /// The leaf column index.
    pub fn leaf(&self) -> usize {
        self.leaf
    }

    /// The Arrow type of the bounds.
    pub fn arrow_type(&self) -> &DataType {
        &self.arrow_type
    }

    /// Whether the column's values are floats (see [`StatisticsArrays::nan_count`]).
    pub fn is_float(&self) -> bool {
        self.rule.float
    }

    /// Whether the column is inside a list or map (its null counts count values, not
    /// rows).
    pub fn is_repeated(&self) -> bool {
        self.max_rep_level > 0
    }

    /// Chunk statistics of the column in `row_groups` (indices into
    /// `metadata.row_groups`, which must hold every leaf column: not a selective
    /// decode), one entry per row group in that order.
    ///
    /// Errors (kind `InvalidArgument`) for a row group out of range.
    pub fn row_groups(
        &self,
        metadata: &FileMetaData,
        row_groups: &[usize],
    ) -> Result<StatisticsArrays> {
        let mut stats: Vec<Option<&Statistics>> = Vec::with_capacity(row_groups.len());
        let mut rows = Vec::with_capacity(row_groups.len());
        for &g in row_groups {
            let group = metadata.row_groups.get(g).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "statistics: row group {g} out of range (the file has {})",
                    metadata.row_groups.len()
                ))
            })?;
            let chunk = group.columns.get(self.leaf).ok_or_else(|| {
                Error::corrupt(format!(
                    "row group {g} has {} column chunks, column {} is leaf {}",
                    group.columns.len(),
                    self.path,
                    self.leaf
                ))
            })?;
            stats.push(chunk.meta_data.as_ref().and_then(|m| m.statistics.as_ref()));
            rows.push(u64::try_from(group.num_rows).ok());
        }
        let mut mins = Vec::with_capacity(stats.len());
        let mut maxes = Vec::with_capacity(stats.len());
        let mut min_exact = Vec::with_capacity(stats.len());
        let mut max_exact = Vec::with_capacity(stats.len());
        for s in &stats {
            let (min, max, lo_exact, hi_exact) = match s {
                Some(s) => self.chunk_bounds(s),
                None => (None, None, None, None),
            };
            mins.push(min);
            maxes.push(max);
            min_exact.push(lo_exact);
            max_exact.push(hi_exact);
        }
        let count = |f: fn(&Statistics) -> Option<i64>| -> UInt64Array {
            stats
                .iter()
                .map(|s| s.and_then(f).and_then(|n| u64::try_from(n).ok()))
                .collect()
        };
        let nan_count = if self.rule.float {
            count(|s| s.nan_count)
        } else {
            UInt64Array::new_null(stats.len())
        };
        Ok(self.finish(
            mins,
            maxes,
            min_exact,
            max_exact,
            count(|s| s.null_count),
            count(|s| s.distinct_count),
            nan_count,
            rows.into_iter().collect(),
        ))
    }

    /// `(min, max, min exact, max exact)` bytes of one chunk's statistics.
    fn chunk_bounds<'s>(&self, s: &'s Statistics) -> ChunkBounds<'s> {
        let rule = self.rule;
        if rule.use_values && (s.min_value.is_some() || s.max_value.is_some()) {
            let exact = |flag: Option<bool>, present: bool| {
                present.then(|| flag.unwrap_or(!rule.truncatable))
            };
            return (
                s.min_value.as_deref(),
                s.max_value.as_deref(),
                exact(s.is_min_value_exact, s.min_value.is_some()),
                exact(s.is_max_value_exact, s.max_value.is_some()),
            );
        }
        if rule.use_deprecated && (s.min.is_some() || s.max.is_some()) {
            return (
                s.min.as_deref(),
                s.max.as_deref(),
                s.min.is_some().then_some(true),
                s.max.is_some().then_some(true),
            );
        }
        (None, None, None, None)
    }

    /// Page statistics of one column chunk from its page index: one entry per page of
    /// `offset_index`, whose `first_row_index`es give the row counts (`row_group_rows`
    /// is the row group's `num_rows`). Without a column index only the row counts are
    /// known.
    ///
    /// Errors (kind `Corrupt`) when the two indexes disagree on the number of pages or
    /// the page row ranges are not increasing within the row group.
    pub fn pages(
        &self,
        column_index: Option<&ColumnIndex>,
        offset_index: &OffsetIndex,
        row_group_rows: u64,
    ) -> Result<StatisticsArrays> {
        let row_count = page_row_counts(offset_index, row_group_rows)
            .map_err(|e| e.context(format!("column {}", self.path)))?;
        let pages = row_count.len();
        let Some(index) = column_index else {
            return Ok(self.finish(
                vec![None; pages],
                vec![None; pages],
                vec![None; pages],
                vec![None; pages],
                UInt64Array::new_null(pages),
                UInt64Array::new_null(pages),
                UInt64Array::new_null(pages),
                row_count.into_iter().map(Some).collect(),
            ));
        };
        let lists = [
            ("null_pages", index.null_pages.len()),
            ("min_values", index.min_values.len()),
            ("max_values", index.max_values.len()),
        ];
        for (name, len) in lists {
            if len != pages {
                return Err(Error::corrupt(format!(
                    "column {}: column index has {len} {name} for {pages} pages in the offset index",
                    self.path
                )));
            }
        }
        for (name, list) in [
            ("null_counts", &index.null_counts),
            ("nan_counts", &index.nan_counts),
        ] {
            if let Some(list) = list
                && list.len() != pages
            {
                return Err(Error::corrupt(format!(
                    "column {}: column index has {} {name} for {pages} pages",
                    self.path,
                    list.len()
                )));
            }
        }
        let usable = |i: usize, v: &[u8]| -> Option<Vec<u8>> {
            (self.rule.use_values && !index.null_pages[i]).then(|| v.to_vec())
        };
        let mins: Vec<Option<Vec<u8>>> = (0..pages)
            .map(|i| usable(i, &index.min_values[i]))
            .collect();
        let maxes: Vec<Option<Vec<u8>>> = (0..pages)
            .map(|i| usable(i, &index.max_values[i]))
            .collect();
        let exact = |v: &Option<Vec<u8>>| v.as_ref().map(|_| !self.rule.truncatable);
        let min_exact = mins.iter().map(exact).collect();
        let max_exact = maxes.iter().map(exact).collect();
        let counts = |list: &Option<Vec<i64>>| -> UInt64Array {
            match list {
                Some(list) => list.iter().map(|&n| u64::try_from(n).ok()).collect(),
                None => UInt64Array::new_null(pages),
            }
        };
        let nan_count = if self.rule.float {
            counts(&index.nan_counts)
        } else {
            UInt64Array::new_null(pages)
        };
        Ok(self.finish(
            mins.iter().map(|v| v.as_deref()).collect(),
            maxes.iter().map(|v| v.as_deref()).collect(),
            min_exact,
            max_exact,
            counts(&index.null_counts),
            UInt64Array::new_null(pages),
            nan_count,
            row_count.into_iter().map(Some).collect(),
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn finish<'b>(
        &self,
        mut mins: Vec<Option<&'b [u8]>>,
        mut maxes: Vec<Option<&'b [u8]>>,
        mut min_exact: Vec<Option<bool>>,
        mut max_exact: Vec<Option<bool>>,
        null_count: UInt64Array,
        distinct_count: UInt64Array,
        nan_count: UInt64Array,
        row_count: UInt64Array,
    ) -> StatisticsArrays {
        if self.rule.float {
            bounds::drop_nan_pairs(self.rule.storage, &mut mins, &mut maxes);
        }
        let min = self.to_arrow(Side::Min, &mins);
        let max = self.to_arrow(Side::Max, &maxes);
        // Exactness is meaningless where the bound did not survive the conversion.
        for (flag, i) in min_exact.iter_mut().zip(0..) {
            if min.is_null(i) {
                *flag = None;
            }
        }
        for (flag, i) in max_exact.iter_mut().zip(0..) {
            if max.is_null(i) {
                *flag = None;
            }
        }
        StatisticsArrays {
            min,
            max,
            min_exact: min_exact.into_iter().collect(),
            max_exact: max_exact.into_iter().collect(),
            null_count,
            distinct_count,
            nan_count,
            row_count,
        }
    }

    /// Bound bytes as an array of the column's Arrow type (null where they do not
    /// convert: a bound that cannot be read is no bound).
    fn to_arrow(&self, side: Side, values: &[Option<&[u8]>]) -> ArrayRef {
        if self.rule.storage == Storage::Undefined || values.iter().all(Option::is_none) {
            return new_null_array(&self.arrow_type, values.len());
        }
        let natural = bounds::natural_array(self.rule.storage, side, values);
        if natural.data_type() == &self.arrow_type {
            return natural;
        }
        let options = CastOptions {
            safe: true,
            ..Default::default()
        };
        // Byte arrays read as strings go through `Utf8` (invalid UTF-8, e.g. a
        // truncated bound, becomes null).
        // Dates read as Date64 are days converted to milliseconds, as the reader does.
        let via = match (natural.data_type(), &self.arrow_type) {
            (DataType::Binary, DataType::Utf8View | DataType::LargeUtf8) => Some(DataType::Utf8),
            (DataType::Int32, DataType::Date64) => Some(DataType::Date32),
            _ => None,
        };
        let natural = match via {
            Some(via) => match cast_with_options(&natural, &via, &options) {
                Ok(step) => step,
                Err(_) => return new_null_array(&self.arrow_type, values.len()),
            },
            None => natural,
        };
        cast_with_options(&natural, &self.arrow_type, &options)
            .unwrap_or_else(|_| new_null_array(&self.arrow_type, values.len()))
    }
}

/// `(min, max, min exact, max exact)` of one column chunk.
type ChunkBounds<'s> = (
    Option<&'s [u8]>,
    Option<&'s [u8]>,
    Option<bool>,
    Option<bool>,
);

/// Rows of each page from the offset index's first row indices.
fn page_row_counts(offset_index: &OffsetIndex, row_group_rows: u64) -> Result<Vec<u64>> {
    let locations = &offset_index.page_locations;
    let mut counts = Vec::with_capacity(locations.len());
    for (i, page) in locations.iter().enumerate() {
        let first = u64::try_from(page.first_row_index).ok();
        let next = match locations.get(i + 1) {
            Some(next) => u64::try_from(next.first_row_index).ok(),
            None => Some(row_group_rows),
        };
        match (first, next) {
            (Some(first), Some(next)) if first <= next && next <= row_group_rows => {
                counts.push(next - first)
            }
            _ => {
                return Err(Error::corrupt(format!(
                    "offset index: page {i} starts at row {} and the next at {}, outside 0..={row_group_rows} or decreasing",
                    page.first_row_index,
                    locations
                        .get(i + 1)
                        .map_or(row_group_rows as i64, |p| p.first_row_index)
                )));
            }
        }
    }
    if locations
        .first()
        .is_some_and(|first| first.first_row_index != 0)
    {
        return Err(Error::corrupt(format!(
            "offset index: the first page starts at row {}, not 0",
            locations[0].first_row_index
        )));
    }
    Ok(counts)
}

/// The Arrow field a mapping reads leaf column `leaf` into, if the mapping holds it.
pub(crate) fn leaf_arrow_field(mapping: &ArrowSchemaMapping, leaf: usize) -> Option<&FieldRef> {
    fn find(field: &ParquetField, leaf: usize) -> Option<&FieldRef> {
        match &field.kind {
            ParquetFieldKind::Primitive { column, .. } => (*column == leaf).then_some(&field.field),
            ParquetFieldKind::Struct { children } => children.iter().find_map(|c| find(c, leaf)),
            ParquetFieldKind::List { element, .. } => find(element, leaf),
            ParquetFieldKind::Map { key, value, .. } => {
                find(key, leaf).or_else(|| find(value, leaf))
            }
        }
    }
    mapping.fields().iter().find_map(|f| find(f, leaf))
}

/// The type of the values: a dictionary's value type, else the type itself.
pub(crate) fn value_type(data_type: &DataType) -> &DataType {
    match data_type {
        DataType::Dictionary(_, value) => value,
        other => other,
    }
}

/// The Arrow type of a leaf's bounds when no mapping reads the column.
fn natural_type(descr: &ColumnDescriptor) -> DataType {
    let rule = BoundsRule::of(descr, None);
    bounds::natural_array(rule.storage, Side::Min, &[])
        .data_type()
        .clone()
}

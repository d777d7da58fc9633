//! The file metadata: what the footer of a Parquet file says.
//!
//! [`FileMetaData`] holds the schema (as the flat `SchemaElement` list; the tree is
//! [`SchemaDescriptor`](crate::schema::SchemaDescriptor)), the row groups and, per row
//! group, one [`ColumnChunk`] per leaf column with its [`ColumnMetaData`]: codec,
//! encodings, sizes, offsets and [`Statistics`]. The page indexes ([`ColumnIndex`],
//! [`OffsetIndex`]) sit outside the footer; [`read_column_index`] and
//! [`read_offset_index`] read them from a file in memory.
//!
//! The structures are those of `parquet.thrift`, field for field (`type` is `type_`);
//! Thrift enums are `i32` newtypes with one constant per member ([`Type::INT32`]), so a
//! value from a newer writer is carried rather than rejected. Statistics bounds are the
//! raw PLAIN-encoded bytes, to be read in the column's physical and logical type.
//!
//! Statistics as typed Arrow arrays (one row per row group or page, for pruning) are
//! [`crate::statistics`]; the page headers ([`PageHeader`]) are what
//! [`crate::layout`] walks.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! # let ids: ArrayRef = Arc::new(Int32Array::from(vec![3, 1, 2]));
//! # let batch = RecordBatch::try_from_iter([("id", ids)])?;
//! # let mut bytes = Vec::new();
//! # let mut writer = herringbone::ArrowWriter::try_new(&mut bytes, batch.schema(), None)?;
//! # writer.write(&batch)?;
//! # writer.close()?;
//! # let file = bytes::Bytes::from(bytes);
//! use herringbone::metadata::Type;
//! use herringbone::read::read_metadata;
//!
//! // `file` holds one INT32 column `id` with the values 3, 1, 2.
//! let metadata = read_metadata(&file)?;
//! assert_eq!(metadata.num_rows, 3);
//! let chunk = metadata.row_groups[0].columns[0].meta_data.as_ref().unwrap();
//! assert_eq!(chunk.type_, Type::INT32);
//! let statistics = chunk.statistics.as_ref().unwrap();
//! let min = i32::from_le_bytes(statistics.min_value.as_deref().unwrap().try_into()?);
//! assert_eq!(min, 1);
//! # Ok(())
//! # }
//! ```

pub use herringbone_format::footer::{
    decode_column_index, decode_offset_index, read_column_index, read_offset_index,
};
pub use herringbone_format::metadata::{
    BloomFilterHeader, BoundaryOrder, ColumnChunk, ColumnIndex, ColumnMetaData, ColumnOrder,
    CompressionCodec, ConvertedType, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader,
    EdgeInterpolationAlgorithm, Encoding, FieldRepetitionType, FileMetaData, GeospatialStatistics,
    KeyValue, LogicalType, OffsetIndex, PageEncodingStats, PageHeader, PageLocation, PageType,
    RowGroup, SchemaElement, SizeStatistics, SortingColumn, Statistics, TimeUnit, Type,
};

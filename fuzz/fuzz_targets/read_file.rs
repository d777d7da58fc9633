//! A whole file through the Arrow reader: footer, schema mapping, pages, levels and
//! values of every column, with reading options taken from the first input byte. It
//! must return batches or an error, never panic, and every batch it returns must be
//! valid Arrow data (offsets in bounds, UTF-8 where the type says so, children as long
//! as their parents need), since engines index into it without checking.
#![no_main]

use std::sync::Arc;

use arrow_array::{Array, RecordBatchReader};
use bytes::Bytes;
use herringbone::schema::{SchemaOptions, StringRepresentation};
use herringbone::{ParquetRecordBatchReaderBuilder, Projection, RowSelection};
use libfuzzer_sys::fuzz_target;

/// Batches read per input at most: a file may legitimately expand a few bytes of RLE
/// into billions of rows, which is slow, not wrong.
const MAX_BATCHES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let Ok(mut builder) = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
    else {
        return;
    };
    let metadata = Arc::clone(builder.metadata());
    let batch_size = [1, 7, 64, 1024][usize::from(control & 3)];
    builder = builder
        .with_batch_size(batch_size)
        .with_verify_crc(control & 4 != 0);
    if control & 8 != 0 {
        // The first leaf column alone (its field, as the projection builds it).
        builder = builder.with_projection(Projection::Leaves(vec![0]));
    }
    if control & 16 != 0 {
        let groups: Vec<usize> = (0..metadata.row_groups.len()).rev().collect();
        builder = builder.with_row_groups(groups);
    }
    if control & 32 != 0 {
        // Every other run of three rows.
        let total = usize::try_from(metadata.num_rows).unwrap_or(0).min(1 << 20);
        let ranges = (0..total).step_by(6).map(|start| start..start + 3);
        builder = builder.with_row_selection(RowSelection::from_consecutive_ranges(ranges, total));
    }
    if control & 64 != 0 {
        builder = builder.with_schema_options(
            SchemaOptions::new()
                .with_strings(StringRepresentation::Utf8View)
                .with_arrow_schema_hint(false),
        );
    }
    if control & 128 != 0 {
        builder = builder.with_offset(5).with_limit(100);
    }
    let Ok(reader) = builder.build() else {
        return;
    };
    let schema = reader.schema();
    for batch in reader.take(MAX_BATCHES) {
        let Ok(batch) = batch else {
            return;
        };
        assert_eq!(
            batch.schema(),
            schema,
            "every batch has the reader's schema"
        );
        assert!(batch.num_rows() <= batch_size, "batch larger than asked");
        for column in batch.columns() {
            if let Err(e) = column.to_data().validate_full() {
                panic!("invalid {} array from the reader: {e}", column.data_type());
            }
        }
    }
});

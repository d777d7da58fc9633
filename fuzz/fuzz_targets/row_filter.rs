//! A whole file through the reader with a row filter on its first top-level fields:
//! keys and runs of keys (`with_key_runs`) assembled from hostile pages, dropped
//! fields, late decoding of the rest. Every array the filter is handed and every batch
//! returned must be valid Arrow data, the batches as the reader's schema says, never a
//! panic.
#![no_main]

use std::sync::Arc;

use arrow_array::{Array, BooleanArray, RecordBatchReader};
use bytes::Bytes;
use herringbone::ParquetRecordBatchReaderBuilder;
use herringbone::read::RowFilter;
use libfuzzer_sys::fuzz_target;

/// Batches read per input at most (a few bytes of RLE may claim billions of rows).
const MAX_BATCHES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file)) else {
        return;
    };
    let Ok(schema) = builder.schema() else {
        return;
    };
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    if names.is_empty() {
        return;
    }
    // The filter reads the first field, or the first two; the first may be dropped.
    let fields: Vec<String> = names
        .iter()
        .take(1 + usize::from(control & 1))
        .cloned()
        .collect();
    let dropped = if control & 2 != 0 {
        vec![fields[0].clone()]
    } else {
        Vec::new()
    };
    let keep_every = [1usize, 2, 7, usize::MAX][usize::from((control >> 2) & 3)];
    let filter = RowFilter::new(fields, move |batch| {
        let mut valid = true;
        for column in batch.columns() {
            if let Err(e) = column.to_data().validate_full() {
                panic!(
                    "invalid {} array handed to the filter: {e}",
                    column.data_type()
                );
            }
            valid &= column.len() == batch.num_rows();
        }
        assert!(valid, "a filter column of another length than the batch");
        // Rows kept by position and by the first column's nulls (runs cut at nulls).
        let nulls = batch.column(0).logical_nulls();
        let keep: Vec<bool> = (0..batch.num_rows())
            .map(|i| i % keep_every == 0 || nulls.as_ref().is_some_and(|n| n.is_null(i)))
            .collect();
        Ok(BooleanArray::from(keep))
    })
    .with_key_runs(control & 16 != 0)
    .with_fields_dropped(dropped)
    .with_min_rows_per_run(if control & 32 != 0 { 0 } else { 32 });
    let batch_size = if control & 64 != 0 { 7 } else { 1024 };
    let Ok(reader) = builder
        .with_batch_size(batch_size)
        .with_row_filter(filter)
        .build()
    else {
        return;
    };
    let schema: Arc<_> = reader.schema();
    for batch in reader.take(MAX_BATCHES) {
        let Ok(batch) = batch else {
            return;
        };
        assert_eq!(
            batch.schema(),
            schema,
            "every batch has the reader's schema"
        );
        for column in batch.columns() {
            if let Err(e) = column.to_data().validate_full() {
                panic!("invalid {} array from the reader: {e}", column.data_type());
            }
        }
    }
});

//! A whole file through the salvage reader (`with_salvage(true)`): whatever the damage,
//! it must not panic, every batch it returns must be valid Arrow data, and once it has
//! read to the end the rows it returned plus the rows it reports dropped must be every
//! row of the file (no row returned twice, none lost unreported).
#![no_main]

use arrow_array::{Array, RecordBatchReader};
use bytes::Bytes;
use herringbone::ParquetRecordBatchReaderBuilder;
use libfuzzer_sys::fuzz_target;

/// Batches read per input at most (see `read_file`).
const MAX_BATCHES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file)) else {
        return;
    };
    let total: usize = builder
        .metadata()
        .row_groups
        .iter()
        .map(|g| usize::try_from(g.num_rows).unwrap_or(0))
        .sum();
    let batch_size = [1, 7, 64, 1024][usize::from(control & 3)];
    let Ok(mut reader) = builder
        .with_batch_size(batch_size)
        .with_salvage(true)
        .build()
    else {
        return;
    };
    let schema = reader.schema();
    let mut rows = 0usize;
    let mut finished = false;
    for _ in 0..MAX_BATCHES {
        match reader.next() {
            None => {
                finished = true;
                break;
            }
            Some(Err(_)) => return,
            Some(Ok(batch)) => {
                assert_eq!(
                    batch.schema(),
                    schema,
                    "every batch has the reader's schema"
                );
                assert!(batch.num_rows() <= batch_size, "batch larger than asked");
                for column in batch.columns() {
                    if let Err(e) = column.to_data().validate_full() {
                        panic!(
                            "invalid {} array from the salvage reader: {e}",
                            column.data_type()
                        );
                    }
                }
                rows += batch.num_rows();
            }
        }
    }
    if finished {
        let report = reader
            .salvage_report()
            .expect("a salvage reader has a report");
        assert_eq!(
            rows + report.rows_dropped(),
            total,
            "rows returned plus rows dropped are the file's rows: {report:?}"
        );
    }
});

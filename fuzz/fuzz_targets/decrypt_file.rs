//! The decryption path of a whole encrypted file, with fixed keys (the corpus' AES-128
//! footer and column keys, and its AAD prefix when the option byte asks): the footer
//! (`PARE` decrypted, or a plaintext footer's signature verified), the column metadata
//! under column keys, every page header and page, and each chunk's column index, offset
//! index and Bloom filter; and (option bit 4) filtered scans, whose pruner decrypts the
//! page indexes and Bloom filters of the predicate's columns. It must return data or an
//! error, never panic, and data only from modules that authenticated: batches must be
//! valid Arrow data.
#![no_main]

use arrow_array::{Array, RecordBatchReader};
use bytes::Bytes;
use herringbone::ParquetRecordBatchReaderBuilder;
use herringbone::predicate::Predicate;
use herringbone::scan::ScanBuilder;
use herringbone::schema::SchemaDescriptor;
use herringbone_codec::crypto::{
    FileDecryptionProperties, decrypt_bloom_filter, decrypt_column_index, decrypt_offset_index,
};
use herringbone_format::footer::{column_index_range, offset_index_range};
use libfuzzer_sys::fuzz_target;

const MAX_BATCHES: usize = 64;

/// Predicates on the corpus files' columns: `=` / `IN` ask the Bloom filters, ranges the
/// page index.
const PREDICATES: [&str; 3] = [
    "double_field = 1.5 OR float_field IN (2, 3)",
    "int32_field >= 10 AND int32_field < 20",
    "ba_field = 'parquet' OR int64_field > 5",
];

fn keys(aad_prefix: bool) -> FileDecryptionProperties {
    let mut builder = FileDecryptionProperties::builder()
        .with_footer_key(b"0123456789012345".to_vec())
        .with_column_key("double_field", b"1234567890123450".to_vec())
        .with_column_key("float_field", b"1234567890123451".to_vec())
        .with_allow_plaintext_files(true);
    if aad_prefix {
        builder = builder.with_aad_prefix(b"tester".to_vec());
    }
    builder.build().expect("fixed keys are valid")
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let file = Bytes::copy_from_slice(file);
    let keys = keys(control & 1 != 0);
    let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new_with_decryption(file.clone(), &keys)
    else {
        return;
    };
    if let (Some(decryptor), Ok(schema)) = (
        builder.decryptor().cloned(),
        SchemaDescriptor::new(&builder.metadata().schema),
    ) {
        let metadata = builder.metadata().clone();
        for (g, group) in metadata.row_groups.iter().enumerate() {
            for (c, chunk) in group.columns.iter().enumerate() {
                let Some(path) = schema.column(c).map(|d| d.path().dotted()) else {
                    continue;
                };
                let Ok(Some(column)) =
                    decryptor.column(&path, chunk.crypto_metadata.as_deref(), g, c)
                else {
                    continue;
                };
                if let Ok(Some(range)) = column_index_range(chunk, file.len()) {
                    let _ = decrypt_column_index(&file[range], &column);
                }
                if let Ok(Some(range)) = offset_index_range(chunk, file.len()) {
                    let _ = decrypt_offset_index(&file[range], &column);
                }
                if let Some(offset) = chunk.meta_data.as_ref().and_then(|m| m.bloom_filter_offset)
                    && let Ok(start) = usize::try_from(offset)
                    && start < file.len()
                {
                    let _ = decrypt_bloom_filter(&file[start..], &column, 1 << 20);
                }
            }
        }
    }
    if control & 4 != 0 {
        for text in PREDICATES {
            let Ok(predicate) = Predicate::parse(text) else {
                continue;
            };
            let Ok(scan) = ScanBuilder::try_new_with_decryption(file.clone(), &keys) else {
                return;
            };
            let Ok(scan) = scan
                .with_predicate(predicate)
                .with_page_counts(true)
                .with_batch_size(64)
                .build()
            else {
                continue;
            };
            for batch in scan.take(MAX_BATCHES) {
                let Ok(batch) = batch else {
                    break;
                };
                for column in batch.columns() {
                    if let Err(e) = column.to_data().validate_full() {
                        panic!("invalid {} array from a scan: {e}", column.data_type());
                    }
                }
            }
        }
    }
    let Ok(reader) = builder
        .with_batch_size(64)
        .with_verify_crc(control & 2 != 0)
        .build()
    else {
        return;
    };
    let schema = reader.schema();
    for batch in reader.take(MAX_BATCHES) {
        let Ok(batch) = batch else {
            return;
        };
        assert_eq!(batch.schema(), schema);
        for column in batch.columns() {
            if let Err(e) = column.to_data().validate_full() {
                panic!("invalid {} array from the reader: {e}", column.data_type());
            }
        }
    }
});

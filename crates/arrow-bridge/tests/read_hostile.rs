//! Files whose few bytes claim far more than they hold: every size the reader takes
//! from a file meets the bytes present or the batch memory limit before it drives an
//! allocation, so each of these ends in an error naming the column (or reads, a batch
//! at a time), never in an allocation the process cannot survive. The files are built
//! page by page here ([`common::built`]); none is checked in.

use crate::common;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use bytes::Bytes;
use common::built::{self, Chunk};
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use herringbone_arrow_bridge::schema::{SchemaOptions, StringRepresentation};
use herringbone_arrow_bridge::{Error, ErrorKind};
use herringbone_codec::compression::Codec;
use herringbone_codec::encoding::{delta_binary_packed, delta_length_byte_array, plain};
use herringbone_format::metadata::Encoding;

/// The reader's error behind an iterator's `ArrowError`.
fn reader_error(error: arrow_schema::ArrowError) -> &'static Error {
    let arrow_schema::ArrowError::ExternalError(inner) = error else {
        panic!("expected the reader's error, got {error}");
    };
    let inner: &'static (dyn std::error::Error + Send + Sync) = Box::leak(inner);
    inner
        .downcast_ref::<Error>()
        .expect("an arrow-bridge error")
}

/// The first error of reading `file` whole with `configure`d options.
fn first_error(
    file: Vec<u8>,
    configure: impl FnOnce(
        ParquetRecordBatchReaderBuilder<Bytes>,
    ) -> ParquetRecordBatchReaderBuilder<Bytes>,
) -> &'static Error {
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file)).unwrap();
    let reader = configure(builder).build().unwrap();
    for batch in reader {
        if let Err(e) = batch {
            return reader_error(e);
        }
    }
    panic!("the file read without an error");
}

fn read(
    file: Vec<u8>,
    configure: impl FnOnce(
        ParquetRecordBatchReaderBuilder<Bytes>,
    ) -> ParquetRecordBatchReaderBuilder<Bytes>,
) -> Vec<RecordBatch> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file)).unwrap();
    configure(builder)
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

/// The file of the issue: a FIXED_LEN_BYTE_ARRAY column declaring `type_length`
/// 2^31 - 1 whose page holds 4-byte values.
fn huge_fixed_width_file() -> Vec<u8> {
    let values: Vec<u8> = (0..16).collect();
    built::file(
        "message m { required fixed_len_byte_array(2147483647) f; }",
        4,
        vec![Chunk::new(Codec::Uncompressed).v1(&[], &[], &values, 4, Encoding::PLAIN)],
    )
}

#[test]
fn a_fixed_width_of_2_gib_is_an_error_before_anything_is_allocated() {
    let file = huge_fixed_width_file();
    assert!(file.len() < 300, "a small file: {} bytes", file.len());
    let error = first_error(file.clone(), |b| b);
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    let message = error.to_string();
    assert!(
        message.starts_with("row group 0, column f: the batch needs 8 GiB or more, over the 1 GiB batch memory limit"),
        "{message}"
    );
    assert!(message.contains("with_batch_memory_limit"), "{message}");
}

/// One BYTE_ARRAY dictionary value of `len` bytes, and a data page repeating it
/// `rows` times in one RLE run of indices.
fn repeated_dictionary_value(len: usize, rows: usize) -> Vec<u8> {
    let value = vec![b'x'; len];
    let mut dictionary = Vec::new();
    plain::encode_byte_array(&[&value], &mut dictionary).unwrap();
    built::file(
        "message m { required binary s (STRING); }",
        rows as i64,
        vec![Chunk::new(Codec::Snappy).dictionary(&dictionary, 1).v1(
            &[],
            &[],
            &built::index_run(0, rows, 0),
            rows,
            Encoding::RLE_DICTIONARY,
        )],
    )
}

#[test]
fn a_dictionary_index_repeating_a_long_value_stops_at_the_batch_limit() {
    // 8,192 rows of a 1 MiB value are 8 GiB in one batch.
    let file = repeated_dictionary_value(1 << 20, 100_000);
    for strings in [StringRepresentation::Utf8, StringRepresentation::LargeUtf8] {
        let error = first_error(file.clone(), |b| {
            b.with_schema_options(SchemaOptions::new().with_strings(strings))
        });
        assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
        assert!(
            error
                .to_string()
                .starts_with("row group 0, column s, page 1: the batch needs more than the 1 GiB"),
            "{error}"
        );
    }
    // As views, the values are not copied: 16 bytes a row.
    let batches = read(file.clone(), |b| {
        b.with_schema_options(SchemaOptions::new().with_strings(StringRepresentation::Utf8View))
            .with_limit(20_000)
    });
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 20_000);
    // Within a limit that fits a batch, the values read.
    let batches = read(file, |b| {
        b.with_batch_size(16)
            .with_batch_memory_limit(32 << 20)
            .with_limit(32)
    });
    assert_eq!(batches.len(), 2);
    let strings = batches[1].column(0).as_string::<i32>();
    assert_eq!(strings.value(15).len(), 1 << 20);
}

#[test]
fn delta_byte_array_prefixes_cannot_rebuild_values_past_the_limit() {
    // A 64 KiB value, then 10,000 values that repeat it whole (prefix 65,536, empty
    // suffix): 640 MiB of values from a few kilobytes of page.
    let rows = 10_001;
    let long = vec![b'y'; 1 << 16];
    let mut prefixes = vec![1i32 << 16; rows];
    prefixes[0] = 0;
    let mut suffixes: Vec<&[u8]> = vec![&[]; rows];
    suffixes[0] = &long;
    let mut page = Vec::new();
    delta_binary_packed::encode(&prefixes, &mut page);
    delta_length_byte_array::encode(&suffixes, &mut page).unwrap();
    let file = built::file(
        "message m { required binary s (STRING); }",
        rows as i64,
        vec![Chunk::new(Codec::Zstd { level: 1 }).v1(
            &[],
            &[],
            &page,
            rows,
            Encoding::DELTA_BYTE_ARRAY,
        )],
    );
    assert!(file.len() < 20_000, "{} bytes", file.len());
    for strings in [StringRepresentation::Utf8, StringRepresentation::Utf8View] {
        let error = first_error(file.clone(), |b| {
            b.with_batch_memory_limit(64 << 20)
                .with_schema_options(SchemaOptions::new().with_strings(strings))
        });
        assert_eq!(
            error.kind(),
            ErrorKind::LimitExceeded,
            "{strings:?}: {error}"
        );
        assert!(error.to_string().contains("column s"), "{error}");
    }
    // Small batches of the same file read.
    let batches = read(file, |b| b.with_batch_size(100).with_limit(300));
    let last = batches[2].column(0).as_string::<i32>();
    assert_eq!(last.value(99).len(), 1 << 16);
}

#[test]
fn a_page_of_two_billion_levels_reads_a_batch_at_a_time_and_skips_in_one_step() {
    let rows = i32::MAX as usize;
    let file = built::file(
        "message m { optional int64 x; }",
        rows as i64,
        vec![Chunk::new(Codec::Snappy).v1(
            &[],
            &built::level_run(0, rows, 1, true),
            &[],
            rows,
            Encoding::PLAIN,
        )],
    );
    assert!(file.len() < 300, "{} bytes", file.len());
    let batches = read(file.clone(), |b| b.with_limit(3 * 8192));
    assert_eq!(batches.len(), 3);
    assert!(batches.iter().all(|b| b.column(0).null_count() == 8192));
    // The last ten rows, past two billion skipped ones.
    let selection = RowSelection::from(vec![RowSelector::skip(rows - 10), RowSelector::select(10)]);
    let batches = read(file, |b| b.with_row_selection(selection));
    assert_eq!(batches.len(), 1);
    assert_eq!(batches[0].num_rows(), 10);
    assert_eq!(batches[0].column(0).null_count(), 10);
    let _ = batches[0].column(0).as_primitive::<Int64Type>();
}

#[test]
fn one_record_of_a_billion_elements_stops_at_the_batch_limit() {
    // `repeated int32 a`: one row whose list holds 2^30 copies of the dictionary's one
    // value, in three RLE runs (levels and indices).
    let entries = 1usize << 30;
    let mut encoder = herringbone_codec::rle::RleEncoder::new(1);
    encoder.put(0);
    encoder.put_run(1, entries - 1);
    let mut rep = Vec::new();
    encoder.append_to(&mut rep, herringbone_codec::rle::LengthPrefix::With);
    let def = built::level_run(1, entries, 1, true);
    let mut dictionary = Vec::new();
    plain::encode_fixed(&[7i32], &mut dictionary);
    let file = built::file(
        "message m { repeated int32 a; }",
        1,
        vec![
            Chunk::new(Codec::Uncompressed)
                .dictionary(&dictionary, 1)
                .v1(
                    &rep,
                    &def,
                    &built::index_run(0, entries, 0),
                    entries,
                    Encoding::RLE_DICTIONARY,
                ),
        ],
    );
    let error = first_error(file, |b| b.with_batch_memory_limit(64 << 20));
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    assert!(
        error
            .to_string()
            .starts_with("row group 0, column a, page 1: the batch needs"),
        "{error}"
    );
}

#[test]
fn a_dictionary_claiming_more_values_than_its_page_holds_is_an_error() {
    let mut dictionary = Vec::new();
    plain::encode_fixed(&[1i64, 2], &mut dictionary);
    let mut chunk = Chunk::new(Codec::Uncompressed).dictionary(&dictionary, i32::MAX as usize);
    chunk = chunk.v1(
        &[],
        &[],
        &built::index_run(0, 3, 1),
        3,
        Encoding::RLE_DICTIONARY,
    );
    let file = built::file("message m { required int64 x; }", 3, vec![chunk]);
    let error = first_error(file, |b| b);
    assert_eq!(error.kind(), ErrorKind::Corrupt);
    assert!(
        error
            .to_string()
            .contains("dictionary page of 16 bytes cannot hold 2147483647 INT64 values"),
        "{error}"
    );
}

#[test]
fn levels_shorter_than_their_page_claims_are_an_error() {
    // The page says a billion values; its levels hold ten.
    let file = built::file(
        "message m { optional int32 x; }",
        1 << 30,
        vec![Chunk::new(Codec::Uncompressed).v1(
            &[],
            &built::level_run(0, 10, 1, true),
            &[],
            1 << 30,
            Encoding::PLAIN,
        )],
    );
    let error = first_error(file, |b| b);
    assert_eq!(error.kind(), ErrorKind::Corrupt);
    let text = error.to_string();
    assert!(
        text.starts_with("row group 0, column x, page 0: definition levels end 8182 values early"),
        "{text}"
    );
}

#[test]
fn the_batch_limit_is_an_option_naming_the_column() {
    // 3 INT32 columns of 10,000 rows: 40 KB a column per batch of 10,000.
    let column = || {
        let mut values = Vec::new();
        plain::encode_fixed(&(0..10_000).collect::<Vec<i32>>(), &mut values);
        Chunk::new(Codec::Uncompressed).v1(&[], &[], &values, 10_000, Encoding::PLAIN)
    };
    let file = built::file(
        "message m { required int32 a; required int32 b; required int32 c; }",
        10_000,
        vec![column(), column(), column()],
    );
    // Two columns fit 100 KB, the third does not.
    let error = first_error(file.clone(), |b| {
        b.with_batch_size(10_000).with_batch_memory_limit(100_000)
    });
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(
        error
            .to_string()
            .starts_with("row group 0, column c: the batch needs 117.2 KiB or more, over the 97.7 KiB batch memory limit"),
        "{error}"
    );
    let batches = read(file, |b| {
        b.with_batch_size(5_000).with_batch_memory_limit(100_000)
    });
    assert_eq!(batches.len(), 2);
    let c = batches[1].column(2).as_primitive::<Int32Type>();
    assert_eq!(c.value(4_999), 9_999);
}

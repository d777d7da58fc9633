//! The reader's fast paths against arrow-rs's reader on the same files: strings read as
//! `Utf8` / `Binary` (32-bit offsets built directly), `LargeUtf8` and `Utf8View` from
//! PLAIN, DELTA_LENGTH_BYTE_ARRAY and dictionary pages over many small pages; decimals
//! decoded at their Arrow width from INT32, INT64 and FIXED_LEN_BYTE_ARRAY of every
//! encoding, their dictionaries kept at 64 bits or not; lists
//! with runs of empty and null lists across page boundaries, under row selections and
//! batch sizes that cut pages and records anywhere.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder};
use arrow_array::{ArrayRef, BinaryArray, Decimal128Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder as ArrowBuilder,
};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::ColumnPath;

fn write(batch: &RecordBatch, properties: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

/// Small pages (a few dozen values each) so that batches cross them.
fn small_pages(version: WriterVersion) -> parquet::file::properties::WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_writer_version(version)
        .set_data_page_size_limit(300)
        .set_data_page_row_count_limit(37)
        .set_write_batch_size(16)
        .set_max_row_group_row_count(Some(700))
}

/// Asserts that both readers read `file` alike with `schema`, `batch_size` and
/// `selection` (the rows compared in the pieces both readers' batches cut them into).
fn both(file: &Bytes, schema: &SchemaRef, batch_size: usize, selection: Option<RowSelection>) {
    let what = format!("batch size {batch_size}, {selection:?}");
    let mut ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_schema(schema.clone())
        .with_batch_size(batch_size);
    if let Some(selection) = &selection {
        ours = ours.with_row_selection(selection.clone());
    }
    let ours: Vec<RecordBatch> = ours.build().unwrap().map(|b| b.unwrap()).collect();
    let options = ArrowReaderOptions::new().with_schema(schema.clone());
    let mut theirs = ArrowBuilder::try_new_with_options(file.clone(), options)
        .unwrap()
        .with_batch_size(batch_size);
    if let Some(selection) = selection {
        let selectors: Vec<parquet::arrow::arrow_reader::RowSelector> = selection
            .selectors()
            .iter()
            .map(|s| {
                if s.skip {
                    parquet::arrow::arrow_reader::RowSelector::skip(s.row_count)
                } else {
                    parquet::arrow::arrow_reader::RowSelector::select(s.row_count)
                }
            })
            .collect();
        theirs = theirs.with_row_selection(selectors.into());
    }
    let theirs: Vec<RecordBatch> = theirs.build().unwrap().map(|b| b.unwrap()).collect();
    let rows = |batches: &[RecordBatch]| batches.iter().map(|b| b.num_rows()).sum::<usize>();
    assert_eq!(rows(&ours), rows(&theirs), "{what}");
    let (mut i, mut j, mut at_i, mut at_j) = (0, 0, 0, 0);
    loop {
        while i < ours.len() && at_i == ours[i].num_rows() {
            (i, at_i) = (i + 1, 0);
        }
        while j < theirs.len() && at_j == theirs[j].num_rows() {
            (j, at_j) = (j + 1, 0);
        }
        if i == ours.len() || j == theirs.len() {
            break;
        }
        let n = (ours[i].num_rows() - at_i).min(theirs[j].num_rows() - at_j);
        assert_eq!(
            ours[i].slice(at_i, n).columns(),
            theirs[j].slice(at_j, n).columns(),
            "{what}, rows {at_i}.. of batch {i}"
        );
        at_i += n;
        at_j += n;
    }
}

/// Values of every length around the view's inline limit (12) and the block copy (32),
/// some non-ASCII, runs of repeats (dictionary pages until the dictionary is full) and
/// nulls.
fn strings(rows: usize) -> Vec<Option<String>> {
    (0..rows)
        .map(|i| {
            if i % 9 == 4 {
                return None;
            }
            let len = (i * 7) % 41;
            let mut s: String = (0..len)
                .map(|k| (b'a' + ((i + k) % 26) as u8) as char)
                .collect();
            if i % 5 == 0 {
                s.push('é');
            }
            if i < 200 {
                s = format!("repeat {}", i % 6);
            }
            Some(s)
        })
        .collect()
}

fn selections(rows: usize) -> Vec<Option<RowSelection>> {
    vec![
        None,
        Some(RowSelection::from(vec![
            RowSelector::skip(5),
            RowSelector::select(40),
            RowSelector::skip(61),
            RowSelector::select(3),
            RowSelector::skip(1),
            RowSelector::select(rows - 110),
        ])),
        Some(RowSelection::from_consecutive_ranges(
            (0..rows).step_by(97).map(|s| s..s + 13),
            rows,
        )),
    ]
}

#[test]
fn strings_of_every_encoding_and_type_read_like_arrow_rs() {
    let rows = 1500;
    let values = strings(rows);
    let text: ArrayRef = Arc::new(StringArray::from(values.clone()));
    let bytes: ArrayRef = Arc::new(BinaryArray::from(
        values
            .iter()
            .map(|v| v.as_ref().map(|v| v.as_bytes()))
            .collect::<Vec<_>>(),
    ));
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let properties = small_pages(version)
            .set_dictionary_page_size_limit(200)
            .set_column_dictionary_enabled(ColumnPath::from("plain"), false)
            .set_column_dictionary_enabled(ColumnPath::from("delta"), false)
            .set_column_encoding(ColumnPath::from("delta"), Encoding::DELTA_LENGTH_BYTE_ARRAY)
            .build();
        for (column, string_type) in [
            (&text, DataType::Utf8),
            (&bytes, DataType::Binary),
            (&text, DataType::LargeUtf8),
            (&text, DataType::Utf8View),
            (&bytes, DataType::BinaryView),
        ] {
            let batch = RecordBatch::try_from_iter([
                ("plain", column.clone()),
                ("delta", column.clone()),
                ("dict", column.clone()),
            ])
            .unwrap();
            let file = write(&batch, properties.clone());
            let schema = Arc::new(Schema::new(
                ["plain", "delta", "dict"]
                    .map(|name| Field::new(name, string_type.clone(), true))
                    .to_vec(),
            ));
            for batch_size in [1, 7, 64, 333, 2000] {
                for selection in selections(rows) {
                    both(&file, &schema, batch_size, selection);
                }
            }
        }
    }
}

/// Decimal128 values of `precision` digits: runs of repeats (dictionary pages until the
/// dictionary is full), nulls, negative values, and for `wide` values beyond 64 bits.
fn decimals(rows: usize, precision: u8, wide: bool) -> ArrayRef {
    let limit = 10i128.pow(u32::from(precision)) - 1;
    let values: Vec<Option<i128>> = (0..rows)
        .map(|i| {
            let i = i as i128;
            if i % 11 == 3 {
                return None;
            }
            let v = if i < 200 {
                i % 7 - 3
            } else {
                (i * 7_919 - 600_000) * 1_009
            };
            let v = if wide && i % 13 == 5 {
                v * 1_000_000_000_000
            } else {
                v
            };
            Some(v.clamp(-limit, limit))
        })
        .collect();
    Arc::new(
        Decimal128Array::from(values)
            .with_precision_and_scale(precision, 2)
            .unwrap(),
    )
}

#[test]
fn decimals_of_every_storage_and_encoding_read_like_arrow_rs() {
    let rows = 1500;
    // arrow-rs stores precision up to 9 as INT32, up to 18 as INT64, beyond as
    // FIXED_LEN_BYTE_ARRAY of the fewest bytes (9 for 20 digits, 16 for 38).
    let columns = [
        ("int32", decimals(rows, 7, false)),
        ("int64", decimals(rows, 15, false)),
        ("flba9", decimals(rows, 20, false)),
        ("flba16_narrow", decimals(rows, 38, false)),
        ("flba16_wide", decimals(rows, 38, true)),
    ];
    let names = columns.each_ref().map(|(name, _)| *name);
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let schema = batch.schema();
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        // Dictionary pages that fill and fall back to PLAIN; PLAIN alone; and the
        // encodings decoded as stored first: DELTA_BINARY_PACKED (integers),
        // BYTE_STREAM_SPLIT (all).
        let mut plain = small_pages(version).set_dictionary_page_size_limit(200);
        let mut encoded = small_pages(version).set_dictionary_enabled(false);
        let mut unencoded = small_pages(version).set_dictionary_enabled(false);
        for name in names {
            let integer = name.starts_with("int");
            let encoding = if integer {
                Encoding::DELTA_BINARY_PACKED
            } else {
                Encoding::BYTE_STREAM_SPLIT
            };
            plain = plain.set_column_dictionary_enabled(ColumnPath::from(name), true);
            encoded = encoded.set_column_encoding(ColumnPath::from(name), encoding);
            unencoded = unencoded.set_column_encoding(ColumnPath::from(name), Encoding::PLAIN);
        }
        for properties in [plain, encoded, unencoded] {
            let file = write(&batch, properties.build());
            let reader = SerializedFileReader::new(file.clone()).unwrap();
            let stored: Vec<(PhysicalType, i32)> = reader
                .metadata()
                .file_metadata()
                .schema_descr()
                .columns()
                .iter()
                .map(|c| (c.physical_type(), c.type_length()))
                .collect();
            let flba = PhysicalType::FIXED_LEN_BYTE_ARRAY;
            assert_eq!(
                stored,
                [
                    (PhysicalType::INT32, -1),
                    (PhysicalType::INT64, -1),
                    (flba, 9),
                    (flba, 16),
                    (flba, 16)
                ]
            );
            for batch_size in [1, 7, 64, 333, 2000] {
                for selection in selections(rows) {
                    both(&file, &schema, batch_size, selection);
                }
            }
        }
    }
}

#[test]
fn invalid_utf8_in_plain_and_delta_pages_is_an_error_naming_the_column() {
    let bad_byte: Vec<Option<&[u8]>> = (0..100)
        .map(|i| {
            Some(if i == 77 {
                b"bad \xc3(".as_slice()
            } else {
                b"fine".as_slice()
            })
        })
        .collect();
    // "é" cut in two between values 40 and 41: the bytes of the page are UTF-8, the
    // two values are not (a check of the span alone would pass them).
    let split_char: Vec<Option<&[u8]>> = (0..100)
        .map(|i| {
            Some(match i {
                40 => b"caf\xc3".as_slice(),
                41 => b"\xa9 au lait".as_slice(),
                _ => "thé".as_bytes(),
            })
        })
        .collect();
    for (values, name) in [
        (&bad_byte, "plain"),
        (&bad_byte, "delta"),
        (&split_char, "plain"),
        (&split_char, "delta"),
    ] {
        let column: ArrayRef = Arc::new(BinaryArray::from(values.clone()));
        let batch = RecordBatch::try_from_iter([(name, column.clone())]).unwrap();
        let properties = small_pages(WriterVersion::PARQUET_1_0)
            .set_dictionary_enabled(false)
            .set_column_encoding(ColumnPath::from("delta"), Encoding::DELTA_LENGTH_BYTE_ARRAY)
            .build();
        let file = write(&batch, properties);
        for string_type in [DataType::Utf8, DataType::Utf8View] {
            let schema = Arc::new(Schema::new(vec![Field::new(name, string_type, true)]));
            let error = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .with_schema(schema)
                .build()
                .unwrap()
                .find_map(|b| b.err())
                .expect("an error")
                .to_string();
            assert!(
                error.contains("UTF-8") && error.contains(name),
                "{name}: {error}"
            );
        }
    }
}

#[test]
fn lists_with_runs_of_empty_and_null_lists_read_like_arrow_rs_across_pages() {
    let rows = 1200;
    let mut lists = ListBuilder::new(Int64Builder::new());
    for i in 0..rows {
        // Runs: 50 null lists, 50 empty lists, 50 one-element lists, then mixed.
        match (i / 50) % 4 {
            0 => lists.append(false),
            1 => lists.append(true),
            2 => {
                lists.values().append_value(i as i64);
                lists.append(true);
            }
            _ => {
                for k in 0..i % 5 {
                    lists.values().append_option((k != 2).then_some(k as i64));
                }
                lists.append(i % 7 != 0);
            }
        }
    }
    let batch = RecordBatch::try_from_iter([("l", Arc::new(lists.finish()) as ArrayRef)]).unwrap();
    let schema = batch.schema();
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        for dictionary in [false, true] {
            let properties = small_pages(version)
                .set_dictionary_enabled(dictionary)
                .build();
            let file = write(&batch, properties);
            for batch_size in [1, 13, 50, 128, 5000] {
                for selection in selections(rows) {
                    both(&file, &schema, batch_size, selection);
                }
            }
        }
    }
}

//! `set_threads`: the columns of each batch encoded on a thread pool write the same file,
//! byte for byte, as one thread, whatever the properties; errors still name the column.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, MapBuilder, StringBuilder};
use arrow_array::types::Int16Type;
use arrow_array::*;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::write::{
    ArrowWriter, BloomFilterPosition, DataPageVersion, StatisticsLevel, WriterProperties,
    WriterPropertiesBuilder,
};
use herringbone_codec::compression::Codec;
use herringbone_format::metadata::Encoding;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// A batch of `n` rows with flat, dictionary, struct, list and map columns, nulls in most.
fn batch(n: usize, seed: u64) -> RecordBatch {
    let mix = |i: usize, k: u64| {
        let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (seed + k);
        x ^= x >> 29;
        x.wrapping_mul(0xBF58_476D_1CE4_E5B9)
    };
    let valid = |i: usize, k: u64| mix(i, k) % 7 != 0;
    let ints: ArrayRef = Arc::new(Int64Array::from_iter(
        (0..n).map(|i| valid(i, 1).then(|| (mix(i, 2) % 5000) as i64 - 2500)),
    ));
    let doubles: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (0..n).map(|i| (mix(i, 3) % 1_000_000) as f64 / 8.0),
    ));
    let text: ArrayRef =
        Arc::new(StringArray::from_iter((0..n).map(|i| {
            valid(i, 4).then(|| format!("value-{}", mix(i, 5) % 300))
        })));
    let keys: ArrayRef = Arc::new(
        (0..n)
            .map(|i| valid(i, 6).then(|| ["red", "green", "blue"][(mix(i, 7) % 3) as usize]))
            .collect::<DictionaryArray<Int16Type>>(),
    );
    let bools: ArrayRef = Arc::new(BooleanArray::from_iter(
        (0..n).map(|i| valid(i, 8).then(|| mix(i, 9) % 2 == 0)),
    ));
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, false),
    ]);
    let strukt: ArrayRef = Arc::new(StructArray::new(
        fields,
        vec![
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| valid(i, 10).then_some(i as i64)),
            )),
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("s{}", mix(i, 11) % 50)),
            )),
        ],
        Some(NullBuffer::from_iter((0..n).map(|i| valid(i, 12)))),
    ));
    let mut list = ListBuilder::new(Int64Builder::new());
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    for i in 0..n {
        if valid(i, 13) {
            for j in 0..mix(i, 14) % 4 {
                list.values()
                    .append_option(valid(i + j as usize, 15).then_some(j as i64));
            }
            list.append(true);
        } else {
            list.append(false);
        }
        for j in 0..mix(i, 16) % 3 {
            map.keys().append_value(format!("k{j}"));
            map.values().append_value(i as i64 * 10 + j as i64);
        }
        map.append(valid(i, 17)).unwrap();
    }
    RecordBatch::try_from_iter(vec![
        ("ints", ints),
        ("doubles", doubles),
        ("text", text),
        ("keys", keys),
        ("bools", bools),
        ("strukt", strukt),
        ("list", Arc::new(list.finish()) as ArrayRef),
        ("map", Arc::new(map.finish()) as ArrayRef),
    ])
    .unwrap()
}

fn write(batches: &[RecordBatch], props: WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props)).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
    out
}

fn property_sets() -> Vec<(&'static str, WriterPropertiesBuilder)> {
    vec![
        ("defaults", WriterProperties::builder()),
        (
            "small pages and groups, v2, zstd, crc",
            WriterProperties::builder()
                .set_data_page_row_limit(97)
                .set_max_row_group_rows(1000)
                .set_data_page_version(DataPageVersion::V2)
                .set_compression(Codec::Zstd { level: 1 })
                .set_write_crc(true),
        ),
        (
            "dictionary fallback, blooms at the end",
            WriterProperties::builder()
                .set_dictionary_page_size_limit(600)
                .set_bloom_filter("ints", 0.01, 1000)
                .set_bloom_filter("text", 0.01, 1000)
                .set_bloom_filter_position(BloomFilterPosition::End)
                .set_statistics(StatisticsLevel::Chunk),
        ),
        (
            "no dictionary, delta encodings, row groups by bytes",
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .set_column_encoding("ints", Encoding::DELTA_BINARY_PACKED)
                .set_column_encoding("text", Encoding::DELTA_LENGTH_BYTE_ARRAY)
                .set_column_encoding("strukt.b", Encoding::DELTA_BYTE_ARRAY)
                .set_max_row_group_bytes(20_000)
                .set_compression(Codec::Snappy),
        ),
    ]
}

#[test]
fn two_and_more_threads_write_the_same_bytes() {
    let batches: Vec<RecordBatch> = [3000, 1, 0, 2500, 700]
        .iter()
        .enumerate()
        .map(|(i, &n)| batch(n, i as u64))
        .collect();
    for (name, props) in property_sets() {
        let one = write(&batches, props.clone().set_threads(1).build());
        for threads in [2, 3, 8] {
            let many = write(&batches, props.clone().set_threads(threads).build());
            assert!(one == many, "{name}: {threads} threads wrote another file");
        }
        // And the file holds the batches.
        let read: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(one))
            .unwrap()
            .build()
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        let rows: usize = read.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(rows, 3000 + 1 + 2500 + 700, "{name}");
        let expected =
            arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
        let got = arrow_select::concat::concat_batches(&read[0].schema(), &read).unwrap();
        for (c, field) in expected.schema().fields().iter().enumerate() {
            if matches!(field.data_type(), DataType::Dictionary(..)) {
                // Read back as a dictionary or as its values: compare the values.
                let cast = |a: &ArrayRef| arrow_cast::cast(a, &DataType::Utf8).unwrap();
                let (want, have) = (cast(expected.column(c)), cast(got.column(c)));
                assert_eq!(&want, &have, "{name}");
            } else {
                assert_eq!(
                    expected.column(c),
                    got.column(c),
                    "{name}: {}",
                    field.name()
                );
            }
        }
    }
}

#[test]
fn an_error_on_a_pool_thread_names_its_column() {
    // An interval with a sub-millisecond part (no Parquet INTERVAL form), beside other
    // columns, in a struct.
    let interval = DataType::Interval(arrow_schema::IntervalUnit::MonthDayNano);
    let fields = Fields::from(vec![Field::new("when", interval, true)]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("x", DataType::Int32, false),
        Field::new("s", DataType::Struct(fields.clone()), true),
    ]));
    let intervals = IntervalMonthDayNanoArray::from(vec![
        arrow_array::types::IntervalMonthDayNano::new(1, 2, 3_000_000),
        arrow_array::types::IntervalMonthDayNano::new(1, 2, 3),
    ]);
    let s = StructArray::new(fields, vec![Arc::new(intervals)], None);
    let columns: Vec<ArrayRef> = vec![Arc::new(Int32Array::from(vec![1, 2])), Arc::new(s)];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    for threads in [1, 2] {
        let props = WriterProperties::builder().set_threads(threads).build();
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, schema.clone(), Some(props)).unwrap();
        let err = writer.write(&batch).unwrap_err().to_string();
        assert!(
            err.contains("column s.when") && err.contains("nanoseconds 3"),
            "{threads} threads: {err}"
        );
    }
}

#[test]
fn encrypted_files_written_on_threads_read_back() {
    // Encryption draws a fresh nonce per module, so two files never match byte for
    // byte: the file written on three threads over several row groups (each with its
    // own page AADs) must decrypt to the batches.
    use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder as Reader;
    use herringbone_codec::crypto::{FileDecryptionProperties, FileEncryptionProperties};
    let footer = b"0123456789012345".to_vec();
    let column = b"abcdefghijklmnop".to_vec();
    let batches = [batch(700, 1), batch(900, 2)];
    let encryption = FileEncryptionProperties::builder(footer.clone())
        .with_column_key("text", column.clone())
        .build()
        .unwrap();
    let props = WriterProperties::builder()
        .set_threads(3)
        .set_max_row_group_rows(500)
        .set_data_page_row_limit(64)
        .set_encryption(encryption)
        .build();
    let file = write(&batches, props);
    let keys = FileDecryptionProperties::builder()
        .with_footer_key(footer)
        .with_column_key("text", column)
        .build()
        .unwrap();
    let reader = Reader::try_new_with_decryption(Bytes::from(file), &keys)
        .unwrap()
        .build()
        .unwrap();
    let read: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let schema = batches[0].schema();
    let read = arrow_select::concat::concat_batches(&schema, &read).unwrap();
    let want = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
    assert_eq!(read, want);
}

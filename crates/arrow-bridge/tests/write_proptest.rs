//! Random batches written by Herringbone under random properties, read back by arrow-rs
//! and (flat and struct columns) by Herringbone's own reader, and compared equal.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::*;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::write::{
    ArrowWriter, DataPageVersion, StatisticsLevel, WriterProperties,
};
use herringbone_codec::compression::Codec;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Rows {
    ints: Vec<Option<i32>>,
    longs: Vec<Option<i64>>,
    doubles: Vec<Option<f64>>,
    strings: Vec<Option<String>>,
    bools: Vec<Option<bool>>,
    lists: Vec<Option<Vec<Option<i32>>>>,
    struct_valid: Vec<bool>,
}

fn rows() -> impl Strategy<Value = Rows> {
    (0usize..60).prop_flat_map(|n| {
        (
            prop::collection::vec(prop::option::of(-20i32..20), n),
            prop::collection::vec(prop::option::of(any::<i64>()), n),
            prop::collection::vec(
                prop::option::of(prop_oneof![
                    (-5i32..5).prop_map(f64::from),
                    Just(f64::NAN),
                    Just(-0.0),
                    any::<f64>()
                ]),
                n,
            ),
            prop::collection::vec(prop::option::of("[a-c]{0,3}|é{0,80}"), n),
            prop::collection::vec(prop::option::of(any::<bool>()), n),
            prop::collection::vec(
                prop::option::of(prop::collection::vec(prop::option::of(0i32..5), 0..4)),
                n,
            ),
            prop::collection::vec(any::<bool>(), n),
        )
            .prop_map(
                |(ints, longs, doubles, strings, bools, lists, struct_valid)| Rows {
                    ints,
                    longs,
                    doubles,
                    strings,
                    bools,
                    lists,
                    struct_valid,
                },
            )
    })
}

fn batch(rows: &Rows) -> RecordBatch {
    let mut list = ListBuilder::new(Int32Builder::new());
    for l in &rows.lists {
        match l {
            Some(values) => list.append_value(values.iter().copied()),
            None => list.append_null(),
        }
    }
    let strings: ArrayRef = Arc::new(StringArray::from(rows.strings.clone()));
    let longs: ArrayRef = Arc::new(Int64Array::from(rows.longs.clone()));
    let strukt = StructArray::new(
        Fields::from(vec![
            Field::new("l", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ]),
        vec![longs.clone(), strings.clone()],
        Some(NullBuffer::from(rows.struct_valid.clone())),
    );
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("i", Arc::new(Int32Array::from(rows.ints.clone()))),
        ("l", longs),
        ("d", Arc::new(Float64Array::from(rows.doubles.clone()))),
        ("s", strings),
        ("b", Arc::new(BooleanArray::from(rows.bools.clone()))),
        ("st", Arc::new(strukt)),
        ("list", Arc::new(list.finish())),
        (
            "dict",
            Arc::new(
                rows.strings
                    .iter()
                    .map(|s| s.as_deref())
                    .collect::<DictionaryArray<arrow_array::types::Int16Type>>(),
            ),
        ),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

fn props() -> impl Strategy<Value = WriterProperties> {
    (
        prop_oneof![
            Just(Codec::Uncompressed),
            Just(Codec::Snappy),
            Just(Codec::Zstd { level: 1 }),
            Just(Codec::Lz4Raw),
            Just(Codec::Gzip { level: 1 }),
            Just(Codec::Brotli { quality: 1 }),
            Just(Codec::Lz4),
        ],
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(16usize), Just(1 << 20)],
        1usize..20,
        1usize..40,
        prop_oneof![
            Just(StatisticsLevel::None),
            Just(StatisticsLevel::Chunk),
            Just(StatisticsLevel::Page)
        ],
        any::<bool>(),
        prop_oneof![Just(8usize), Just(1 << 20)],
        any::<bool>(),
    )
        .prop_map(
            |(
                codec,
                dict,
                v2,
                page_bytes,
                page_rows,
                group_rows,
                stats,
                crc,
                dict_limit,
                delta,
            )| {
                let mut b = WriterProperties::builder()
                    .set_compression(codec)
                    .set_dictionary_enabled(dict)
                    .set_data_page_version(if v2 {
                        DataPageVersion::V2
                    } else {
                        DataPageVersion::V1
                    })
                    .set_data_page_size_limit(page_bytes)
                    .set_data_page_row_limit(page_rows)
                    .set_max_row_group_rows(group_rows)
                    .set_statistics(stats)
                    .set_write_crc(crc)
                    .set_dictionary_page_size_limit(dict_limit)
                    .set_bloom_filter("s", 0.01, 100);
                if delta {
                    use herringbone_format::metadata::Encoding;
                    b = b
                        .set_column_encoding("i", Encoding::DELTA_BINARY_PACKED)
                        .set_column_encoding("s", Encoding::DELTA_BYTE_ARRAY)
                        .set_column_encoding("st.s", Encoding::DELTA_LENGTH_BYTE_ARRAY)
                        .set_column_encoding("d", Encoding::BYTE_STREAM_SPLIT)
                        .set_column_encoding("b", Encoding::RLE);
                }
                b.build()
            },
        )
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

fn read_arrow_rs(file: &[u8]) -> Vec<RecordBatch> {
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(
        file,
    ))
    .unwrap()
    .with_batch_size(1 << 20)
    .build()
    .unwrap()
    .map(|b| b.unwrap())
    .collect()
}

fn read_herringbone(file: &[u8]) -> Vec<RecordBatch> {
    herringbone_arrow_bridge::ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .unwrap()
        .with_batch_size(1 << 20)
        .with_verify_crc(true)
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

/// Compares column `c` of the concatenation of `read` with `expected`.
fn assert_column_eq(read: &[RecordBatch], expected: &RecordBatch, c: usize, who: &str) {
    let total: usize = read.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(total, expected.num_rows(), "{who}: row count");
    let mut offset = 0;
    for b in read {
        let want = expected.column(c).slice(offset, b.num_rows());
        assert_eq!(
            b.column(c).as_ref(),
            want.as_ref(),
            "{who}: column {c} at row {offset}"
        );
        offset += b.num_rows();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_batches_round_trip(rows in rows(), split in 0usize..60, props in props()) {
        let whole = batch(&rows);
        let split = split.min(whole.num_rows());
        let parts = [whole.slice(0, split), whole.slice(split, whole.num_rows() - split)];
        let file = write(&parts, props);
        let arrow_rs = read_arrow_rs(&file);
        for c in 0..whole.num_columns() {
            assert_column_eq(&arrow_rs, &whole, c, "arrow-rs");
        }
        let ours = read_herringbone(&file);
        for c in 0..whole.num_columns() {
            assert_column_eq(&ours, &whole, c, "herringbone");
        }
    }
}

#[test]
fn empty_file_has_schema_and_no_rows() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
    let mut out = Vec::new();
    let writer = ArrowWriter::try_new(&mut out, schema, None).unwrap();
    let meta = writer.close().unwrap();
    assert_eq!(meta.num_rows, 0);
    assert!(meta.row_groups.is_empty());
    assert!(read_arrow_rs(&out).is_empty());
}

//! Every Arrow type the writer maps, written by Herringbone and read back by arrow-rs.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, MapBuilder, StringBuilder};
use arrow_array::types::{Int32Type, IntervalDayTime};
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer, i256};
use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema, TimeUnit};
use bytes::Bytes;
use herringbone_arrow_bridge::write::{
    ArrowWriter, DataPageVersion, StatisticsLevel, WriterProperties,
};
use herringbone_codec::compression::Codec;
use herringbone_format::metadata::Encoding;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn write(batch: &RecordBatch, props: WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    out
}

/// Time32(Second) and Timestamp(Second) are stored in milliseconds and come back so.
fn expected(array: &ArrayRef) -> ArrayRef {
    match array.data_type() {
        DataType::Time32(TimeUnit::Second) => {
            arrow_cast::cast(array, &DataType::Time32(TimeUnit::Millisecond)).unwrap()
        }
        DataType::Timestamp(TimeUnit::Second, tz) => arrow_cast::cast(
            array,
            &DataType::Timestamp(TimeUnit::Millisecond, tz.clone()),
        )
        .unwrap(),
        _ => array.clone(),
    }
}

fn read_arrow_rs(file: Vec<u8>) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let schema = reader.schema();
    // One batch holds everything (the reader's batches span row groups).
    let mut batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    assert!(batches.len() <= 1);
    batches
        .pop()
        .unwrap_or_else(|| RecordBatch::new_empty(schema))
}

fn flat_batch() -> RecordBatch {
    let n = 7;
    let fields: Vec<(Field, ArrayRef)> = vec![
        (
            Field::new("bool", DataType::Boolean, true),
            Arc::new(BooleanArray::from(vec![
                Some(true),
                None,
                Some(false),
                Some(true),
                None,
                Some(false),
                Some(true),
            ])),
        ),
        (
            Field::new("i8", DataType::Int8, true),
            Arc::new(Int8Array::from(vec![
                Some(-128),
                Some(127),
                None,
                Some(0),
                Some(1),
                Some(-1),
                None,
            ])),
        ),
        (
            Field::new("i16", DataType::Int16, false),
            Arc::new(Int16Array::from(vec![-32768, 32767, 0, 1, 2, 3, 4])),
        ),
        (
            Field::new("i32", DataType::Int32, true),
            Arc::new(Int32Array::from(vec![
                Some(i32::MIN),
                Some(i32::MAX),
                None,
                Some(5),
                Some(5),
                Some(5),
                Some(6),
            ])),
        ),
        (
            Field::new("i64", DataType::Int64, true),
            Arc::new(Int64Array::from(vec![
                Some(i64::MIN),
                Some(i64::MAX),
                None,
                Some(5),
                None,
                Some(5),
                Some(6),
            ])),
        ),
        (
            Field::new("u8", DataType::UInt8, true),
            Arc::new(UInt8Array::from(vec![
                Some(255),
                Some(0),
                None,
                Some(5),
                None,
                Some(5),
                Some(6),
            ])),
        ),
        (
            Field::new("u16", DataType::UInt16, true),
            Arc::new(UInt16Array::from(vec![
                Some(65535),
                Some(0),
                None,
                Some(5),
                None,
                Some(5),
                Some(6),
            ])),
        ),
        (
            Field::new("u32", DataType::UInt32, true),
            Arc::new(UInt32Array::from(vec![
                Some(u32::MAX),
                Some(0),
                None,
                Some(5),
                None,
                Some(5),
                Some(6),
            ])),
        ),
        (
            Field::new("u64", DataType::UInt64, true),
            Arc::new(UInt64Array::from(vec![
                Some(u64::MAX),
                Some(0),
                None,
                Some(5),
                None,
                Some(5),
                Some(6),
            ])),
        ),
        (
            Field::new("f16", DataType::Float16, true),
            Arc::new(Float16Array::from(vec![
                Some(half::f16::from_f32(1.5)),
                None,
                Some(half::f16::NAN),
                Some(half::f16::ZERO),
                Some(half::f16::NEG_ZERO),
                Some(half::f16::MAX),
                Some(half::f16::MIN),
            ])),
        ),
        (
            Field::new("f32", DataType::Float32, true),
            Arc::new(Float32Array::from(vec![
                Some(1.5),
                None,
                Some(f32::NAN),
                Some(0.0),
                Some(-0.0),
                Some(f32::INFINITY),
                Some(-3.0),
            ])),
        ),
        (
            Field::new("f64", DataType::Float64, true),
            Arc::new(Float64Array::from(vec![
                Some(1.5),
                None,
                Some(f64::NAN),
                Some(0.0),
                Some(-0.0),
                Some(f64::NEG_INFINITY),
                Some(-3.0),
            ])),
        ),
        (
            Field::new("d32", DataType::Decimal32(9, 2), true),
            Arc::new(
                Decimal32Array::from(vec![
                    Some(1),
                    None,
                    Some(-999_999_999),
                    Some(999_999_999),
                    Some(0),
                    Some(-1),
                    Some(3),
                ])
                .with_precision_and_scale(9, 2)
                .unwrap(),
            ),
        ),
        (
            Field::new("d64", DataType::Decimal64(18, 3), true),
            Arc::new(
                Decimal64Array::from(vec![
                    Some(1),
                    None,
                    Some(-999_999_999_999),
                    Some(99),
                    Some(0),
                    Some(-1),
                    Some(3),
                ])
                .with_precision_and_scale(18, 3)
                .unwrap(),
            ),
        ),
        (
            Field::new("d128_small", DataType::Decimal128(5, 1), true),
            Arc::new(
                Decimal128Array::from(vec![
                    Some(1),
                    None,
                    Some(-99999),
                    Some(99999),
                    Some(0),
                    Some(-1),
                    Some(3),
                ])
                .with_precision_and_scale(5, 1)
                .unwrap(),
            ),
        ),
        (
            Field::new("d128", DataType::Decimal128(38, 10), true),
            Arc::new(
                Decimal128Array::from(vec![
                    Some(1),
                    None,
                    Some(-(10i128.pow(37))),
                    Some(10i128.pow(37)),
                    Some(0),
                    Some(-1),
                    Some(3),
                ])
                .with_precision_and_scale(38, 10)
                .unwrap(),
            ),
        ),
        (
            Field::new("d256", DataType::Decimal256(50, 4), true),
            Arc::new(
                Decimal256Array::from(vec![
                    Some(i256::from_i128(1)),
                    None,
                    Some(i256::from_i128(-(10i128.pow(37))).wrapping_mul(i256::from_i128(1000))),
                    Some(i256::from_i128(7)),
                    Some(i256::ZERO),
                    Some(i256::MINUS_ONE),
                    Some(i256::from_i128(3)),
                ])
                .with_precision_and_scale(50, 4)
                .unwrap(),
            ),
        ),
        (
            Field::new("date32", DataType::Date32, true),
            Arc::new(Date32Array::from(vec![
                Some(0),
                None,
                Some(-719_162),
                Some(2_932_896),
                Some(19_000),
                Some(1),
                Some(-1),
            ])),
        ),
        (
            Field::new("date64", DataType::Date64, true),
            Arc::new(Date64Array::from(vec![
                Some(0),
                None,
                Some(86_400_000),
                Some(-86_400_000),
                Some(19_000 * 86_400_000),
                Some(0),
                Some(0),
            ])),
        ),
        (
            Field::new("time32s", DataType::Time32(TimeUnit::Second), true),
            Arc::new(Time32SecondArray::from(vec![
                Some(0),
                None,
                Some(86_399),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new("time32ms", DataType::Time32(TimeUnit::Millisecond), true),
            Arc::new(Time32MillisecondArray::from(vec![
                Some(0),
                None,
                Some(86_399_999),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new("time64us", DataType::Time64(TimeUnit::Microsecond), true),
            Arc::new(Time64MicrosecondArray::from(vec![
                Some(0),
                None,
                Some(86_399_999_999),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new("time64ns", DataType::Time64(TimeUnit::Nanosecond), true),
            Arc::new(Time64NanosecondArray::from(vec![
                Some(0),
                None,
                Some(86_399_999_999_999),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new("ts_s", DataType::Timestamp(TimeUnit::Second, None), true),
            Arc::new(TimestampSecondArray::from(vec![
                Some(0),
                None,
                Some(1_700_000_000),
                Some(-1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new(
                "ts_ms_utc",
                DataType::Timestamp(TimeUnit::Millisecond, Some("+00:00".into())),
                true,
            ),
            Arc::new(
                TimestampMillisecondArray::from(vec![
                    Some(0),
                    None,
                    Some(1_700_000_000_000),
                    Some(-1),
                    Some(2),
                    Some(3),
                    Some(4),
                ])
                .with_timezone("+00:00"),
            ),
        ),
        (
            Field::new(
                "ts_us_tz",
                DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into())),
                true,
            ),
            Arc::new(
                TimestampMicrosecondArray::from(vec![
                    Some(0),
                    None,
                    Some(1_700_000_000_000_000),
                    Some(-1),
                    Some(2),
                    Some(3),
                    Some(4),
                ])
                .with_timezone("Europe/Paris"),
            ),
        ),
        (
            Field::new(
                "ts_ns",
                DataType::Timestamp(TimeUnit::Nanosecond, None),
                true,
            ),
            Arc::new(TimestampNanosecondArray::from(vec![
                Some(0),
                None,
                Some(1_700_000_000_000_000_000),
                Some(-1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new("dur_ms", DataType::Duration(TimeUnit::Millisecond), true),
            Arc::new(DurationMillisecondArray::from(vec![
                Some(0),
                None,
                Some(-5),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new("iv_ym", DataType::Interval(IntervalUnit::YearMonth), true),
            Arc::new(IntervalYearMonthArray::from(vec![
                Some(0),
                None,
                Some(14),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            Field::new("iv_dt", DataType::Interval(IntervalUnit::DayTime), true),
            Arc::new(IntervalDayTimeArray::from(vec![
                Some(IntervalDayTime::new(1, 2)),
                None,
                Some(IntervalDayTime::new(3, 86_000_000)),
                Some(IntervalDayTime::ZERO),
                Some(IntervalDayTime::new(5, 5)),
                Some(IntervalDayTime::new(5, 5)),
                Some(IntervalDayTime::new(0, 1)),
            ])),
        ),
        (
            Field::new("utf8", DataType::Utf8, true),
            Arc::new(StringArray::from(vec![
                Some("a"),
                None,
                Some(""),
                Some("héllo"),
                Some("a"),
                Some("zz"),
                Some("a"),
            ])),
        ),
        (
            Field::new("large_utf8", DataType::LargeUtf8, true),
            Arc::new(LargeStringArray::from(vec![
                Some("a"),
                None,
                Some(""),
                Some("héllo"),
                Some("a"),
                Some("zz"),
                Some("a"),
            ])),
        ),
        (
            Field::new("utf8_view", DataType::Utf8View, true),
            Arc::new(StringViewArray::from(vec![
                Some("a"),
                None,
                Some(""),
                Some("a string longer than twelve"),
                Some("a"),
                Some("zz"),
                Some("a"),
            ])),
        ),
        (
            Field::new("binary", DataType::Binary, true),
            Arc::new(BinaryArray::from(vec![
                Some(&b"\x00\xff"[..]),
                None,
                Some(b""),
                Some(b"x"),
                Some(b"\xff"),
                Some(b"x"),
                Some(b"y"),
            ])),
        ),
        (
            Field::new("large_binary", DataType::LargeBinary, true),
            Arc::new(LargeBinaryArray::from(vec![
                Some(&b"\x00\xff"[..]),
                None,
                Some(b""),
                Some(b"x"),
                Some(b"\xff"),
                Some(b"x"),
                Some(b"y"),
            ])),
        ),
        (
            Field::new("binary_view", DataType::BinaryView, true),
            Arc::new(BinaryViewArray::from(vec![
                Some(&b"\x00\xff"[..]),
                None,
                Some(b""),
                Some(b"x"),
                Some(b"\xff"),
                Some(b"x"),
                Some(b"y"),
            ])),
        ),
        (
            Field::new("fsb", DataType::FixedSizeBinary(3), true),
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    vec![
                        Some(b"abc".to_vec()),
                        None,
                        Some(b"\xff\x00\x01".to_vec()),
                        Some(b"abc".to_vec()),
                        None,
                        Some(b"zzz".to_vec()),
                        Some(b"000".to_vec()),
                    ]
                    .into_iter(),
                    3,
                )
                .unwrap(),
            ),
        ),
        (
            Field::new("uuid", DataType::FixedSizeBinary(16), true).with_metadata(
                [("ARROW:extension:name".to_string(), "arrow.uuid".to_string())].into(),
            ),
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    (0..n).map(|i| (i != 1).then(|| vec![i as u8; 16])),
                    16,
                )
                .unwrap(),
            ),
        ),
        (
            Field::new("null", DataType::Null, true),
            Arc::new(NullArray::new(n)),
        ),
        (
            Field::new_dictionary("dict", DataType::Int32, DataType::Utf8, true),
            Arc::new(
                vec![
                    Some("x"),
                    None,
                    Some("y"),
                    Some("x"),
                    Some("x"),
                    None,
                    Some("z"),
                ]
                .into_iter()
                .collect::<DictionaryArray<Int32Type>>(),
            ),
        ),
    ];
    let (fields, columns): (Vec<Field>, Vec<ArrayRef>) = fields.into_iter().unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

fn property_sets() -> Vec<WriterProperties> {
    vec![
        WriterProperties::new(),
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_data_page_version(DataPageVersion::V2)
            .set_compression(Codec::Zstd { level: 3 })
            .set_statistics(StatisticsLevel::Chunk)
            .build(),
        WriterProperties::builder()
            .set_compression(Codec::Snappy)
            .set_data_page_size_limit(8)
            .set_data_page_row_limit(2)
            .set_max_row_group_rows(3)
            .set_write_crc(true)
            .build(),
        WriterProperties::builder()
            .set_compression(Codec::Gzip { level: 6 })
            .set_dictionary_page_size_limit(4)
            .set_data_page_row_limit(2)
            .build(),
    ]
}

#[test]
fn flat_types_round_trip_through_arrow_rs() {
    let batch = flat_batch();
    for (i, props) in property_sets().into_iter().enumerate() {
        let file = write(&batch, props);
        let read = read_arrow_rs(file);
        assert_eq!(read.schema().fields().len(), batch.num_columns());
        for (c, field) in batch.schema().fields().iter().enumerate() {
            assert_eq!(
                read.column(c).data_type(),
                expected(batch.column(c)).data_type(),
                "property set {i}, column {}",
                field.name()
            );
            assert_eq!(
                read.column(c).as_ref(),
                expected(batch.column(c)).as_ref(),
                "property set {i}, column {}",
                field.name()
            );
        }
    }
}

fn nested_batch() -> RecordBatch {
    // list<int32> with nulls at both levels and empty lists.
    let mut list = ListBuilder::new(Int32Builder::new());
    list.append_value([Some(1), None, Some(3)]);
    list.append_null();
    list.append_value([] as [Option<i32>; 0]);
    list.append_value([Some(4)]);
    list.append_value([None]);
    let list = list.finish();
    // struct<a: int32 not null, b: list<utf8>> nullable.
    let mut inner = ListBuilder::new(StringBuilder::new());
    inner.append_value([Some("p"), Some("q")]);
    inner.append_value([None::<&str>]);
    inner.append_null();
    inner.append_value([] as [Option<&str>; 0]);
    inner.append_value([Some("r")]);
    let inner = inner.finish();
    let struct_fields = Fields::from(vec![
        Field::new("a", DataType::Int32, false),
        Field::new("b", inner.data_type().clone(), true),
    ]);
    let strukt = StructArray::new(
        struct_fields,
        vec![
            Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5])),
            Arc::new(inner),
        ],
        Some(NullBuffer::from(vec![true, true, false, true, true])),
    );
    // map<utf8, int32>.
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    map.keys().append_value("k1");
    map.values().append_value(1);
    map.keys().append_value("k2");
    map.values().append_null();
    map.append(true).unwrap();
    map.append(false).unwrap();
    map.append(true).unwrap();
    map.keys().append_value("k3");
    map.values().append_value(3);
    map.append(true).unwrap();
    map.append(true).unwrap();
    let map = map.finish();
    // list<list<int64>>: nested repetition.
    let inner_values = Int64Array::from(vec![Some(1), Some(2), None, Some(4), Some(5), Some(6)]);
    let inner_lists = ListArray::new(
        Arc::new(Field::new_list_field(DataType::Int64, true)),
        OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2, 3, 6])),
        Arc::new(inner_values),
        Some(NullBuffer::from(vec![true, true, false, true])),
    );
    let outer = ListArray::new(
        Arc::new(Field::new_list_field(inner_lists.data_type().clone(), true)),
        OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2, 2, 3, 4])),
        Arc::new(inner_lists),
        Some(NullBuffer::from(vec![true, true, false, true, true])),
    );
    // fixed-size list.
    let fsl = FixedSizeListArray::new(
        Arc::new(Field::new_list_field(DataType::Int32, true)),
        2,
        Arc::new(Int32Array::from(vec![
            Some(1),
            None,
            Some(3),
            Some(4),
            Some(5),
            Some(6),
            Some(7),
            Some(8),
            None,
            None,
        ])),
        Some(NullBuffer::from(vec![true, false, true, true, true])),
    );
    let large = LargeListArray::new(
        Arc::new(Field::new_list_field(DataType::Utf8, false)),
        OffsetBuffer::new(ScalarBuffer::from(vec![0i64, 1, 1, 3, 3, 4])),
        Arc::new(StringArray::from(vec!["a", "b", "c", "d"])),
        Some(NullBuffer::from(vec![true, true, true, false, true])),
    );
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("list", Arc::new(list)),
        ("struct", Arc::new(strukt)),
        ("map", Arc::new(map)),
        ("nested", Arc::new(outer)),
        ("fsl", Arc::new(fsl)),
        ("large", Arc::new(large)),
    ];
    RecordBatch::try_from_iter_with_nullable(columns.into_iter().map(|(n, a)| (n, a, true)))
        .unwrap()
}

#[test]
fn nested_types_round_trip_through_arrow_rs() {
    let batch = nested_batch();
    for (i, props) in property_sets().into_iter().enumerate() {
        let file = write(&batch, props);
        let read = read_arrow_rs(file);
        for (c, field) in batch.schema().fields().iter().enumerate() {
            assert_eq!(
                read.column(c).data_type(),
                expected(batch.column(c)).data_type(),
                "property set {i}, column {}",
                field.name()
            );
            assert_eq!(
                read.column(c).as_ref(),
                expected(batch.column(c)).as_ref(),
                "property set {i}, column {}",
                field.name()
            );
        }
    }
}

#[test]
fn sliced_batches_round_trip() {
    let batch = nested_batch();
    for offset in 0..batch.num_rows() {
        for len in 0..=(batch.num_rows() - offset) {
            let slice = batch.slice(offset, len);
            let read = read_arrow_rs(write(&slice, WriterProperties::new()));
            assert_eq!(read.num_rows(), len);
            for c in 0..slice.num_columns() {
                assert_eq!(
                    read.column(c).as_ref(),
                    expected(slice.column(c)).as_ref(),
                    "{offset}+{len} column {c}"
                );
            }
        }
    }
    let batch = flat_batch();
    let slice = batch.slice(2, 4);
    let read = read_arrow_rs(write(&slice, WriterProperties::new()));
    for c in 0..slice.num_columns() {
        assert_eq!(
            read.column(c).as_ref(),
            expected(slice.column(c)).as_ref(),
            "flat column {c}"
        );
    }
}

#[test]
fn encodings_per_column() {
    let batch = flat_batch();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_column_encoding("i32", Encoding::DELTA_BINARY_PACKED)
        .set_column_encoding("i64", Encoding::DELTA_BINARY_PACKED)
        .set_column_encoding("u64", Encoding::BYTE_STREAM_SPLIT)
        .set_column_encoding("f32", Encoding::BYTE_STREAM_SPLIT)
        .set_column_encoding("f64", Encoding::BYTE_STREAM_SPLIT)
        .set_column_encoding("fsb", Encoding::BYTE_STREAM_SPLIT)
        .set_column_encoding("d128", Encoding::DELTA_BYTE_ARRAY)
        .set_column_encoding("utf8", Encoding::DELTA_LENGTH_BYTE_ARRAY)
        .set_column_encoding("binary", Encoding::DELTA_BYTE_ARRAY)
        .set_column_encoding("bool", Encoding::RLE)
        .build();
    let file = write(&batch, props);
    let meta = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file.clone()))
        .unwrap()
        .metadata()
        .clone();
    let encodings = |name: &str| {
        let rg = meta.row_group(0);
        let col = rg
            .columns()
            .iter()
            .find(|c| c.column_path().string() == name)
            .unwrap();
        col.encodings()
            .map(|e| format!("{e:?}"))
            .collect::<Vec<_>>()
    };
    assert!(encodings("i32").contains(&"DELTA_BINARY_PACKED".to_string()));
    assert!(encodings("f64").contains(&"BYTE_STREAM_SPLIT".to_string()));
    assert!(encodings("utf8").contains(&"DELTA_LENGTH_BYTE_ARRAY".to_string()));
    assert!(encodings("bool").contains(&"RLE".to_string()));
    let read = read_arrow_rs(file);
    for c in 0..batch.num_columns() {
        assert_eq!(
            read.column(c).as_ref(),
            expected(batch.column(c)).as_ref(),
            "column {c}"
        );
    }
    // An encoding that does not fit the type is refused up front.
    let props = WriterProperties::builder()
        .set_column_encoding("utf8", Encoding::DELTA_BINARY_PACKED)
        .build();
    let mut out = Vec::new();
    assert!(ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).is_err());
}

#[test]
fn dictionary_arrays_are_written_from_their_keys() {
    use arrow_array::types::{Int8Type, UInt16Type};
    // Null keys, a null value behind a valid key, unused and duplicate values.
    let values =
        LargeStringArray::from(vec![Some("b"), None, Some("a"), Some("b"), Some("unused")]);
    let keys = Int8Array::from(vec![
        Some(0),
        Some(2),
        None,
        Some(1),
        Some(3),
        Some(2),
        Some(0),
    ]);
    let dict = DictionaryArray::<Int8Type>::try_new(keys, Arc::new(values)).unwrap();
    let ints = DictionaryArray::<UInt16Type>::try_new(
        UInt16Array::from(vec![1, 0, 1, 1, 0, 1, 0]),
        Arc::new(Int64Array::from(vec![-5, 7])),
    )
    .unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("d", dict.data_type().clone(), true),
        Field::new("n", ints.data_type().clone(), false),
    ]));
    let batch = RecordBatch::try_new(schema, vec![Arc::new(dict), Arc::new(ints)]).unwrap();
    for props in property_sets() {
        for slice in [batch.clone(), batch.slice(2, 4)] {
            let file = write(&slice, props.clone());
            let read = read_arrow_rs(file);
            for c in 0..2 {
                // arrow-rs gives dictionaries back (the ARROW:schema hint); compare values.
                let got = arrow_cast::cast(read.column(c), &DataType::Utf8).unwrap();
                let want = arrow_cast::cast(slice.column(c), &DataType::Utf8).unwrap();
                assert_eq!(got.as_ref(), want.as_ref(), "column {c}");
            }
        }
    }
    // The default properties dictionary-encode it.
    let file = write(&batch, WriterProperties::new());
    let meta = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .unwrap()
        .metadata()
        .clone();
    let encodings: Vec<String> = meta
        .row_group(0)
        .column(0)
        .encodings()
        .map(|e| format!("{e:?}"))
        .collect();
    assert!(
        encodings.contains(&"RLE_DICTIONARY".to_string()),
        "{encodings:?}"
    );
}

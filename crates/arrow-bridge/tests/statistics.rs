//! Statistics as Arrow arrays: chunk and page statistics of every kind of column, in the
//! Arrow type the reader produces, with the specification's rules (unsigned order,
//! decimals of every storage, NaN and zero bounds, truncated byte arrays, deprecated
//! `min`/`max`, unknown column orders), for files written by Herringbone and arrow-rs.

use crate::common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use bytes::Bytes;
use half::f16;
use herringbone_arrow_bridge::statistics::{StatisticsArrays, StatisticsConverter};
use herringbone_arrow_bridge::write::WriterProperties;
use herringbone_format::compact::Binary;
use herringbone_format::metadata::ColumnOrder;

fn two_groups(columns: Vec<(&str, ArrayRef)>) -> Bytes {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let half = batch.num_rows() / 2;
    let props = WriterProperties::builder()
        .set_max_row_group_rows(half)
        .build();
    common::write(&[batch], props)
}

fn stats(file: &Bytes, path: &str) -> StatisticsArrays {
    let (metadata, descriptor, mapping) = common::open(file);
    let converter = StatisticsConverter::try_new(path, &metadata, &descriptor, &mapping).unwrap();
    let groups: Vec<usize> = (0..metadata.row_groups.len()).collect();
    converter.row_groups(&metadata, &groups).unwrap()
}

#[test]
fn integers_dates_times_in_their_arrow_types() {
    let file = two_groups(vec![
        (
            "i8",
            Arc::new(Int8Array::from(vec![Some(-5), Some(7), None, Some(3)])) as ArrayRef,
        ),
        (
            "u32",
            Arc::new(UInt32Array::from(vec![
                Some(1),
                Some(u32::MAX),
                Some(3_000_000_000),
                None,
            ])),
        ),
        ("u64", Arc::new(UInt64Array::from(vec![u64::MAX, 0, 5, 9]))),
        (
            "i64",
            Arc::new(Int64Array::from(vec![i64::MIN, 0, -1, i64::MAX])),
        ),
        (
            "d",
            Arc::new(Date32Array::from(vec![10_470, 10_000, 20_000, 19_000])),
        ),
        (
            "d64",
            Arc::new(Date64Array::from(vec![
                86_400_000,
                0,
                2 * 86_400_000,
                3 * 86_400_000,
            ])),
        ),
        (
            "ts",
            Arc::new(TimestampMicrosecondArray::from(vec![5, 1, 9, 7]).with_timezone("UTC")),
        ),
        ("t", Arc::new(Time64NanosecondArray::from(vec![5, 1, 9, 7]))),
        (
            "b",
            Arc::new(BooleanArray::from(vec![true, true, false, true])),
        ),
    ]);
    let s = stats(&file, "i8");
    assert_eq!(s.min.as_primitive::<Int8Type>().values(), &[-5, 3]);
    assert_eq!(s.max.as_primitive::<Int8Type>().values(), &[7, 3]);
    assert_eq!(s.null_count.values(), &[0, 1]);
    assert_eq!(s.row_count.values(), &[2, 2]);
    assert_eq!(s.min_exact, BooleanArray::from(vec![true, true]));

    // Unsigned order: 3,000,000,000 is above 1 (its INT32 bits are negative).
    let s = stats(&file, "u32");
    assert_eq!(
        s.min.as_primitive::<UInt32Type>().values(),
        &[1, 3_000_000_000]
    );
    assert_eq!(
        s.max.as_primitive::<UInt32Type>().values(),
        &[u32::MAX, 3_000_000_000]
    );
    let s = stats(&file, "u64");
    assert_eq!(s.min.as_primitive::<UInt64Type>().values(), &[0, 5]);
    assert_eq!(s.max.as_primitive::<UInt64Type>().values(), &[u64::MAX, 9]);
    let s = stats(&file, "i64");
    assert_eq!(s.min.as_primitive::<Int64Type>().values(), &[i64::MIN, -1]);
    assert_eq!(s.max.as_primitive::<Int64Type>().values(), &[0, i64::MAX]);

    let s = stats(&file, "d");
    assert_eq!(s.min.data_type(), &DataType::Date32);
    assert_eq!(
        s.min.as_primitive::<Date32Type>().values(),
        &[10_000, 19_000]
    );
    // Date64 is stored as days and read back as milliseconds.
    let s = stats(&file, "d64");
    assert_eq!(s.min.data_type(), &DataType::Date64);
    assert_eq!(
        s.min.as_primitive::<Date64Type>().values(),
        &[0, 2 * 86_400_000]
    );
    assert_eq!(
        s.max.as_primitive::<Date64Type>().values(),
        &[86_400_000, 3 * 86_400_000]
    );

    let s = stats(&file, "ts");
    assert_eq!(
        s.min.data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    );
    assert_eq!(
        s.min.as_primitive::<TimestampMicrosecondType>().values(),
        &[1, 7]
    );
    assert_eq!(
        s.max.as_primitive::<TimestampMicrosecondType>().values(),
        &[5, 9]
    );
    let s = stats(&file, "t");
    assert_eq!(
        s.min.as_primitive::<Time64NanosecondType>().values(),
        &[1, 7]
    );

    let s = stats(&file, "b");
    assert_eq!(s.min.as_boolean(), &BooleanArray::from(vec![true, false]));
    assert_eq!(s.max.as_boolean(), &BooleanArray::from(vec![true, true]));
}

#[test]
fn decimals_of_every_storage() {
    let dec = |p: u8, s: i8, v: Vec<i128>| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(p, s)
                .unwrap(),
        )
    };
    let wide: ArrayRef = Arc::new(
        Decimal256Array::from(vec![
            arrow_buffer::i256::from_i128(-7),
            arrow_buffer::i256::from_i128(12),
            arrow_buffer::i256::from_i128(10i128.pow(30))
                .wrapping_mul(arrow_buffer::i256::from_i128(10i128.pow(29))),
            arrow_buffer::i256::from_i128(0),
        ])
        .with_precision_and_scale(60, 2)
        .unwrap(),
    );
    let file = two_groups(vec![
        ("d5", dec(5, 2, vec![-125, 1250, 300, 299])),
        ("d15", dec(15, 2, vec![-1, 10i128.pow(14), 7, 8])),
        ("d30", dec(30, 4, vec![-(10i128.pow(29)), 5, -3, 2])),
        ("d60", wide.clone()),
    ]);
    let s = stats(&file, "d5");
    assert_eq!(s.min.data_type(), &DataType::Decimal128(5, 2));
    assert_eq!(
        s.min.as_primitive::<Decimal128Type>().values(),
        &[-125, 299]
    );
    assert_eq!(
        s.max.as_primitive::<Decimal128Type>().values(),
        &[1250, 300]
    );
    let s = stats(&file, "d15");
    assert_eq!(
        s.max.as_primitive::<Decimal128Type>().values(),
        &[10i128.pow(14), 8]
    );
    // FIXED_LEN_BYTE_ARRAY: big-endian two's complement, compared signed.
    let s = stats(&file, "d30");
    assert_eq!(s.min.data_type(), &DataType::Decimal128(30, 4));
    assert_eq!(
        s.min.as_primitive::<Decimal128Type>().values(),
        &[-(10i128.pow(29)), -3]
    );
    assert_eq!(s.max.as_primitive::<Decimal128Type>().values(), &[5, 2]);
    let s = stats(&file, "d60");
    assert_eq!(s.min.data_type(), &DataType::Decimal256(60, 2));
    let wide = wide.as_primitive::<Decimal256Type>();
    assert_eq!(
        s.min.as_primitive::<Decimal256Type>().values(),
        &[wide.value(0), wide.value(3)]
    );
    assert_eq!(
        s.max.as_primitive::<Decimal256Type>().values(),
        &[wide.value(1), wide.value(2)]
    );
}

#[test]
fn floats_nan_and_zero_rules() {
    let file = two_groups(vec![
        (
            "f",
            Arc::new(Float64Array::from(vec![f64::NAN, 2.5, 0.0, -0.0])) as ArrayRef,
        ),
        (
            "h",
            Arc::new(Float16Array::from(vec![
                f16::from_f32(1.5),
                f16::from_f32(-2.0),
                f16::from_f32(0.0),
                f16::from_f32(4.0),
            ])),
        ),
    ]);
    let s = stats(&file, "f");
    let min = s.min.as_primitive::<Float64Type>();
    let max = s.max.as_primitive::<Float64Type>();
    // NaN never enters the bounds; a zero minimum covers -0.0, a zero maximum +0.0.
    assert_eq!((min.value(0), max.value(0)), (2.5, 2.5));
    assert!(min.value(1) == 0.0 && min.value(1).is_sign_negative());
    assert!(max.value(1) == 0.0 && max.value(1).is_sign_positive());
    assert!(s.nan_count.is_null(0), "the writer did not count NaNs");
    let s = stats(&file, "h");
    assert_eq!(s.min.data_type(), &DataType::Float16);
    assert_eq!(
        s.min.as_primitive::<Float16Type>().values(),
        &[f16::from_f32(-2.0), f16::from_f32(-0.0)]
    );
    assert_eq!(
        s.max.as_primitive::<Float16Type>().values(),
        &[f16::from_f32(1.5), f16::from_f32(4.0)]
    );

    // A NaN bound (from a writer that let one in) makes the pair unusable.
    let (mut metadata, descriptor, mapping) = common::open(&file);
    let chunk = metadata.row_groups[0].columns[0]
        .meta_data
        .as_mut()
        .unwrap();
    chunk.statistics.as_mut().unwrap().max_value = Some(Binary::from(&f64::NAN.to_le_bytes()[..]));
    let converter = StatisticsConverter::try_new("f", &metadata, &descriptor, &mapping).unwrap();
    let s = converter.row_groups(&metadata, &[0, 1]).unwrap();
    assert!(s.min.is_null(0) && s.max.is_null(0));
    assert!(s.min.is_valid(1) && s.max.is_valid(1));
}

#[test]
fn strings_binaries_and_truncated_bounds() {
    let batch = RecordBatch::try_from_iter([
        (
            "s",
            Arc::new(StringArray::from(vec![
                Some("banana"),
                Some("apple"),
                None,
                None,
            ])) as ArrayRef,
        ),
        (
            "long",
            Arc::new(StringArray::from(vec![
                "abcdefgh", "abcdzzzz", "xyz", "xyzw",
            ])),
        ),
        (
            "bin",
            Arc::new(BinaryArray::from(vec![
                &b"\xff\x00"[..],
                b"\x01",
                b"",
                b"\x80",
            ])),
        ),
        (
            "fixed",
            Arc::new(
                FixedSizeBinaryArray::try_from_iter(
                    [b"\x00\x01", b"\xff\x00", b"\x10\x10", b"\x10\x11"].into_iter(),
                )
                .unwrap(),
            ),
        ),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_rows(2)
        .set_statistics_truncate_length(Some(4))
        .build();
    let file = common::write(&[batch], props);
    let s = stats(&file, "s");
    assert_eq!(s.min.data_type(), &DataType::Utf8);
    // Truncated to 4 bytes: a lower bound, and an upper bound with its last byte raised.
    assert_eq!(s.min.as_string::<i32>().value(0), "appl");
    assert_eq!(s.max.as_string::<i32>().value(0), "banb");
    assert!(!s.min_exact.value(0) && !s.max_exact.value(0));
    // The second row group holds only nulls: no bounds, every row null.
    assert!(s.min.is_null(1) && s.max.is_null(1));
    assert_eq!(s.null_count.values(), &[0, 2]);

    let s = stats(&file, "long");
    // Truncated to 4 bytes: "abcd" is a lower bound, "abce" an upper bound, neither a value.
    assert_eq!(s.min.as_string::<i32>().value(0), "abcd");
    assert_eq!(s.max.as_string::<i32>().value(0), "abce");
    assert!(!s.min_exact.value(0));
    assert!(!s.max_exact.value(0));
    // Short enough to be kept whole: exact.
    assert_eq!(s.min.as_string::<i32>().value(1), "xyz");
    assert_eq!(s.max.as_string::<i32>().value(1), "xyzw");
    assert!(s.min_exact.value(1) && s.max_exact.value(1));

    // Unsigned byte order.
    let s = stats(&file, "bin");
    assert_eq!(s.min.as_binary::<i32>().value(0), b"\x01");
    assert_eq!(s.max.as_binary::<i32>().value(0), b"\xff\x00");
    assert_eq!(s.min.as_binary::<i32>().value(1), b"");
    let s = stats(&file, "fixed");
    assert_eq!(s.min.data_type(), &DataType::FixedSizeBinary(2));
    assert_eq!(s.min.as_fixed_size_binary().value(0), b"\x00\x01");
    assert_eq!(s.max.as_fixed_size_binary().value(0), b"\xff\x00");
}

#[test]
fn deprecated_min_max_only_where_signed_and_unknown_orders_refused() {
    let file = two_groups(vec![
        (
            "i",
            Arc::new(Int32Array::from(vec![-3, 4, 5, 6])) as ArrayRef,
        ),
        ("u", Arc::new(UInt32Array::from(vec![1, 2, 3, 4]))),
        ("s", Arc::new(StringArray::from(vec!["a", "b", "c", "d"]))),
    ]);
    let (mut metadata, descriptor, mapping) = common::open(&file);
    // An old writer: only the deprecated fields.
    for group in &mut metadata.row_groups {
        for chunk in &mut group.columns {
            let s = chunk
                .meta_data
                .as_mut()
                .unwrap()
                .statistics
                .as_mut()
                .unwrap();
            s.min = s.min_value.take();
            s.max = s.max_value.take();
        }
    }
    let get = |path: &str, metadata: &herringbone_format::metadata::FileMetaData| {
        StatisticsConverter::try_new(path, metadata, &descriptor, &mapping)
            .unwrap()
            .row_groups(metadata, &[0, 1])
            .unwrap()
    };
    let s = get("i", &metadata);
    assert_eq!(s.min.as_primitive::<Int32Type>().values(), &[-3, 5]);
    // Signed comparison is not the order of unsigned integers or byte arrays.
    assert_eq!(get("u", &metadata).min.null_count(), 2);
    assert_eq!(get("s", &metadata).max.null_count(), 2);
    // Null counts do not depend on the order.
    assert_eq!(get("s", &metadata).null_count.values(), &[0, 0]);

    // A column order this version does not know: bounds unusable.
    let (mut metadata, _, _) = common::open(&file);
    let orders = metadata.column_orders.as_mut().unwrap();
    orders[0] = ColumnOrder::Unrecognized {
        field_id: 9,
        raw: Bytes::new(),
    };
    let s = get("i", &metadata);
    assert_eq!(s.min.null_count(), 2);
    assert_eq!(get("u", &metadata).min.null_count(), 0);
}

#[test]
fn page_statistics_from_the_page_index() {
    let values: Vec<Option<i32>> = (0..100).map(|i| (i % 7 != 0).then_some(100 - i)).collect();
    let names: Vec<String> = (0..100).map(|i| format!("name{i:03}")).collect();
    let batch = RecordBatch::try_from_iter([
        ("x", Arc::new(Int32Array::from(values.clone())) as ArrayRef),
        ("n", Arc::new(StringArray::from(names.clone()))),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_data_page_row_limit(25)
        .set_dictionary_enabled(false)
        .build();
    let file = common::write(&[batch], props);
    let (metadata, descriptor, mapping) = common::open(&file);
    let chunk = &metadata.row_groups[0].columns[0];
    let column_index = herringbone_format::footer::read_column_index(&file, chunk)
        .unwrap()
        .unwrap();
    let offset_index = herringbone_format::footer::read_offset_index(&file, chunk)
        .unwrap()
        .unwrap();
    let converter = StatisticsConverter::try_new("x", &metadata, &descriptor, &mapping).unwrap();
    let s = converter
        .pages(Some(&column_index), &offset_index, 100)
        .unwrap();
    assert_eq!(s.len(), 4);
    assert_eq!(s.row_count.values(), &[25, 25, 25, 25]);
    for page in 0..4 {
        let rows = &values[page * 25..(page + 1) * 25];
        let present: Vec<i32> = rows.iter().flatten().copied().collect();
        assert_eq!(
            s.min.as_primitive::<Int32Type>().value(page),
            *present.iter().min().unwrap()
        );
        assert_eq!(
            s.max.as_primitive::<Int32Type>().value(page),
            *present.iter().max().unwrap()
        );
        assert_eq!(
            s.null_count.value(page) as usize,
            rows.iter().filter(|v| v.is_none()).count()
        );
    }
    // Without a column index only the row counts are known.
    let s = converter.pages(None, &offset_index, 100).unwrap();
    assert_eq!(s.min.null_count(), 4);
    assert_eq!(s.row_count.values(), &[25, 25, 25, 25]);
    // Indexes that disagree are an error naming the column.
    let mut short = column_index.clone();
    short.min_values.pop();
    let e = converter
        .pages(Some(&short), &offset_index, 100)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("column x: column index has 3 min_values for 4 pages"),
        "{e}"
    );
    let e = converter
        .pages(Some(&column_index), &offset_index, 60)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("offset index: page 2 starts at row 50 and the next at 75"),
        "{e}"
    );
}

#[test]
fn files_written_by_arrow_rs() {
    use parquet::file::properties::{EnabledStatistics, WriterProperties as Props};
    let batch = RecordBatch::try_from_iter([
        (
            "u16",
            Arc::new(UInt16Array::from(vec![1, 65_535, 7, 8])) as ArrayRef,
        ),
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![-10, 2_000_000_000_000, 3, 4])
                    .with_precision_and_scale(20, 3)
                    .unwrap(),
            ),
        ),
        (
            "ts",
            Arc::new(TimestampNanosecondArray::from(vec![3, 1, 2, 4]).with_timezone("+02:00")),
        ),
        (
            "s",
            Arc::new(StringViewArray::from(vec!["b", "a", "d", "c"])),
        ),
    ])
    .unwrap();
    let props = Props::builder()
        .set_max_row_group_row_count(Some(2))
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    let file = common::write_arrow_rs(&[batch], props);
    let s = stats(&file, "u16");
    assert_eq!(s.max.as_primitive::<UInt16Type>().values(), &[65_535, 8]);
    let s = stats(&file, "dec");
    assert_eq!(s.min.data_type(), &DataType::Decimal128(20, 3));
    assert_eq!(
        s.max.as_primitive::<Decimal128Type>().values(),
        &[2_000_000_000_000, 4]
    );
    let s = stats(&file, "ts");
    assert_eq!(
        s.min.data_type(),
        &DataType::Timestamp(TimeUnit::Nanosecond, Some("+02:00".into()))
    );
    assert_eq!(
        s.min.as_primitive::<TimestampNanosecondType>().values(),
        &[1, 2]
    );
    let s = stats(&file, "s");
    assert_eq!(s.min.data_type(), &DataType::Utf8View);
    assert_eq!(s.min.as_string_view().value(0), "a");
    assert_eq!(s.max.as_string_view().value(1), "d");
    let _ = Schema::new(vec![Field::new("unused", DataType::Null, true)]);
}

#[test]
fn int96_and_unknown_paths() {
    // INT96 (the corpus file from Spark) has no defined order: no bounds.
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(std::path::Path::new(
        "data/int96_from_spark.parquet",
    )));
    let (metadata, descriptor, mapping) = common::open(&bytes);
    let path = descriptor.column(0).unwrap().path().dotted();
    let converter = StatisticsConverter::try_new(&path, &metadata, &descriptor, &mapping).unwrap();
    let s = converter.row_groups(&metadata, &[0]).unwrap();
    assert!(matches!(s.min.data_type(), DataType::Timestamp(_, _)));
    assert!(s.min.is_null(0) && s.max.is_null(0));
    let e = StatisticsConverter::try_new("nope", &metadata, &descriptor, &mapping).unwrap_err();
    assert!(
        e.to_string().contains("no leaf column at path `nope`"),
        "{e}"
    );
    let e = converter.row_groups(&metadata, &[5]).unwrap_err();
    assert!(e.to_string().contains("row group 5 out of range"), "{e}");
}

//! The canonical JSON renderer against hand-built batches whose oracle rows and checksums
//! are known (values taken from the pyarrow oracles and from Python's `repr`/`json.dumps`).

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    GenericListBuilder, Int32Builder, ListBuilder, MapBuilder, StringBuilder,
};
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, Date32Array, Date64Array,
    Decimal32Array, Decimal64Array, Decimal128Array, Decimal256Array, DictionaryArray,
    DurationMicrosecondArray, FixedSizeBinaryArray, FixedSizeListArray, Float16Array, Float32Array,
    Float64Array, Int8Array, Int32Array, Int64Array, IntervalMonthDayNanoArray, LargeBinaryArray,
    LargeListArray, LargeStringArray, ListViewArray, NullArray, RecordBatch, RunArray, StringArray,
    StringViewArray, StructArray, Time32MillisecondArray, Time64NanosecondArray,
    TimestampMicrosecondArray, TimestampNanosecondArray, UInt64Array,
};
use arrow_buffer::IntervalMonthDayNano;
use arrow_buffer::{ScalarBuffer, i256};
use arrow_schema::{DataType, Field, Fields, Schema};
use half::f16;
use herringbone_testkit::canonical::{
    batch_checksums, canonical_float, canonical_json, canonical_value, column_checksum,
    compare_with_oracle, decimal_text, pyarrow_type_string, rows_json, to_compact_json,
    top_level_null_count,
};
use serde_json::json;

fn texts(array: &dyn Array) -> Vec<String> {
    (0..array.len()).map(|i| canonical_json(array, i)).collect()
}

fn oracle_checksums(relative: &str) -> Vec<String> {
    let oracle = herringbone_testkit::oracle(Path::new(relative)).expect("oracle exists");
    oracle["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c["checksum"].as_str().expect("checksum").to_string())
        .collect()
}

#[test]
fn alltypes_plain_first_row_matches_format_md_example() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, true),
        Field::new("bool_col", DataType::Boolean, true),
        Field::new("tinyint_col", DataType::Int32, true),
        Field::new("smallint_col", DataType::Int32, true),
        Field::new("int_col", DataType::Int32, true),
        Field::new("bigint_col", DataType::Int64, true),
        Field::new("float_col", DataType::Float32, true),
        Field::new("double_col", DataType::Float64, true),
        Field::new("date_string_col", DataType::Binary, true),
        Field::new("string_col", DataType::Binary, true),
        Field::new(
            "timestamp_col",
            DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, None),
            true,
        ),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![4])),
        Arc::new(BooleanArray::from(vec![true])),
        Arc::new(Int32Array::from(vec![0])),
        Arc::new(Int32Array::from(vec![0])),
        Arc::new(Int32Array::from(vec![0])),
        Arc::new(Int64Array::from(vec![0])),
        Arc::new(Float32Array::from(vec![0.0])),
        Arc::new(Float64Array::from(vec![0.0])),
        Arc::new(BinaryArray::from_vec(vec![b"03/01/09"])),
        Arc::new(BinaryArray::from_vec(vec![b"0"])),
        Arc::new(TimestampNanosecondArray::from(vec![
            1_235_865_600_000_000_000,
        ])),
    ];
    let batch = RecordBatch::try_new(schema, columns).unwrap();
    let rows = rows_json(&[batch]);
    assert_eq!(
        to_compact_json(&rows[0]),
        r#"{"id":4,"bool_col":true,"tinyint_col":0,"smallint_col":0,"int_col":0,"bigint_col":0,"float_col":"0.0","double_col":"0.0","date_string_col":{"hex":"30332f30312f3039"},"string_col":{"hex":"30"},"timestamp_col":{"v":"1235865600000000000","unit":"ns"}}"#
    );
    let oracle = herringbone_testkit::oracle(Path::new("data/alltypes_plain.parquet")).unwrap();
    assert_eq!(rows[0], oracle["rows"][0]);
}

#[test]
fn int32_decimal_checksum_matches_oracle() {
    let values = Decimal128Array::from((1..=24).map(|v| v * 100).collect::<Vec<i128>>())
        .with_precision_and_scale(4, 2)
        .unwrap();
    let column: ArrayRef = Arc::new(values);
    assert_eq!(canonical_json(column.as_ref(), 0), "\"1.00\"");
    assert_eq!(canonical_json(column.as_ref(), 23), "\"24.00\"");
    assert_eq!(
        vec![column_checksum(&[column])],
        oracle_checksums("data/int32_decimal.parquet")
    );
}

#[test]
fn checksum_over_several_batches_equals_one_batch() {
    let whole: ArrayRef = Arc::new(
        Decimal128Array::from((1..=24).map(|v| v * 100).collect::<Vec<i128>>())
            .with_precision_and_scale(4, 2)
            .unwrap(),
    );
    let chunks = vec![whole.slice(0, 5), whole.slice(5, 0), whole.slice(5, 19)];
    assert_eq!(column_checksum(&chunks), column_checksum(&[whole]));
    assert_eq!(
        column_checksum(&chunks),
        oracle_checksums("data/int32_decimal.parquet")[0]
    );
}

#[test]
fn float16_column_matches_oracle() {
    let values: Vec<Option<f16>> = vec![
        None,
        Some(f16::from_f32(1.0)),
        Some(f16::from_f32(-2.0)),
        Some(f16::NAN),
        Some(f16::from_f32(0.0)),
        Some(f16::from_f32(-1.0)),
        Some(f16::from_f32(-0.0)),
        Some(f16::from_f32(2.0)),
    ];
    let column: ArrayRef = Arc::new(Float16Array::from(values));
    assert_eq!(
        texts(column.as_ref()),
        [
            "null", "\"1.0\"", "\"-2.0\"", "\"NaN\"", "\"0.0\"", "\"-1.0\"", "\"-0.0\"", "\"2.0\""
        ]
    );
    assert_eq!(top_level_null_count(column.as_ref()), 1);
    assert_eq!(
        vec![column_checksum(&[column])],
        oracle_checksums("data/float16_nonzeros_and_nans.parquet")
    );
}

fn nested_lists_column() -> ArrayRef {
    // list<list<list<string>>>, the three rows of data/nested_lists.snappy.parquet.
    let rows: Vec<Vec<Vec<Option<Vec<&str>>>>> = vec![
        vec![
            vec![Some(vec!["a", "b"]), Some(vec!["c"])],
            vec![None, Some(vec!["d"])],
        ],
        vec![
            vec![Some(vec!["a", "b"]), Some(vec!["c", "d"])],
            vec![None, Some(vec!["e"])],
        ],
        vec![
            vec![Some(vec!["a", "b"]), Some(vec!["c", "d"]), Some(vec!["e"])],
            vec![None, Some(vec!["f"])],
        ],
    ];
    let element = |name: &str, dt: DataType| Arc::new(Field::new(name, dt, true));
    let innermost =
        ListBuilder::new(StringBuilder::new()).with_field(element("element", DataType::Utf8));
    let middle_type = DataType::List(element("element", DataType::Utf8));
    let middle = ListBuilder::new(innermost).with_field(element("element", middle_type));
    let outer_type = DataType::List(element(
        "element",
        DataType::List(element("element", DataType::Utf8)),
    ));
    let mut outer = ListBuilder::new(middle).with_field(element("element", outer_type));
    for row in rows {
        for middle_list in row {
            for inner in middle_list {
                match inner {
                    Some(strings) => {
                        for s in strings {
                            outer.values().values().values().append_value(s);
                        }
                        outer.values().values().append(true);
                    }
                    None => outer.values().values().append(false),
                }
            }
            outer.values().append(true);
        }
        outer.append(true);
    }
    Arc::new(outer.finish())
}

#[test]
fn nested_lists_match_oracle_rows_and_checksums() {
    let a = nested_lists_column();
    let b: ArrayRef = Arc::new(Int32Array::from(vec![1, 1, 1]));
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", a.data_type().clone(), true),
        Field::new("b", DataType::Int32, false),
    ]));
    let batch = RecordBatch::try_new(schema.clone(), vec![a, b]).unwrap();
    assert_eq!(
        to_compact_json(&rows_json(std::slice::from_ref(&batch))[0]),
        r#"{"a":[[["a","b"],["c"]],[null,["d"]]],"b":1}"#
    );
    assert_eq!(
        batch_checksums(std::slice::from_ref(&batch)),
        oracle_checksums("data/nested_lists.snappy.parquet")
    );
    let matched = compare_with_oracle("data/nested_lists.snappy.parquet", &schema, &[batch])
        .expect("matches the oracle");
    assert_eq!(matched.rows, 3);
    assert_eq!(matched.type_differences, vec![]);
}

#[test]
fn compare_with_oracle_reports_the_first_mismatch() {
    let a = nested_lists_column();
    let b: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 1]));
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", a.data_type().clone(), true),
        Field::new("b", DataType::Int64, false),
    ]));
    let b64: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 1]));
    let batch = RecordBatch::try_new(schema.clone(), vec![a.clone(), b64]).unwrap();
    let err = compare_with_oracle("data/nested_lists.snappy.parquet", &schema, &[batch])
        .expect_err("row 1 column b differs");
    assert!(err.contains("row 1, column b"), "{err}");
    assert!(err.contains("ours:    2"), "{err}");
    assert!(err.contains("pyarrow: 1"), "{err}");
    assert!(err.contains("b: int64 | int32"), "{err}");

    let renamed = Arc::new(Schema::new(vec![
        Field::new("x", a.data_type().clone(), true),
        Field::new("b", DataType::Int32, false),
    ]));
    let batch = RecordBatch::try_new(renamed.clone(), vec![a, b]).unwrap();
    let err = compare_with_oracle("data/nested_lists.snappy.parquet", &renamed, &[batch])
        .expect_err("names differ");
    assert!(err.contains("top-level fields differ"), "{err}");
}

#[test]
fn map_column_matches_nonnullable_impala() {
    // Int_Map of data/nonnullable.impala.parquet: one row [["k1", -1]].
    let mut builder = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    builder.keys().append_value("k1");
    builder.values().append_value(-1);
    builder.append(true).unwrap();
    let map: ArrayRef = Arc::new(builder.finish());
    assert_eq!(canonical_json(map.as_ref(), 0), r#"[["k1",-1]]"#);
    assert_eq!(
        column_checksum(&[map]),
        oracle_checksums("data/nonnullable.impala.parquet")[3]
    );
    let id: ArrayRef = Arc::new(Int64Array::from(vec![8]));
    assert_eq!(
        column_checksum(&[id]),
        oracle_checksums("data/nonnullable.impala.parquet")[0]
    );
}

#[test]
fn empty_column_hashes_the_empty_string() {
    let empty: ArrayRef = Arc::new(Int32Array::from(Vec::<i32>::new()));
    assert_eq!(
        column_checksum(&[empty]),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        column_checksum(&[]),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn floats_follow_python_repr() {
    let cases: &[(f64, &str)] = &[
        // 1072269968822823.25 exactly (written as a quotient: the literal trips
        // clippy's precision lint): halfway between ...823.2 and ...823.3, Python
        // picks the even digit.
        (4_289_079_875_291_293.0 / 4.0, "1072269968822823.2"),
        (f64::from(8.986_282_f32), "8.986282348632812"),
        (1e16, "1e+16"),
        (1e15, "1000000000000000.0"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (5e-324, "5e-324"),
        (-0.0, "-0.0"),
        (0.0, "0.0"),
        (f64::NAN, "NaN"),
        (-f64::NAN, "NaN"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
        (1.5, "1.5"),
        (100.0, "100.0"),
        (123_456_789_012_345.0, "123456789012345.0"),
        (1.2345e-7, "1.2345e-07"),
        (2f64.powi(70), "1.1805916207174113e+21"),
        (1.5e300, "1.5e+300"),
        (9_007_199_254_740_992.0, "9007199254740992.0"),
        (f64::from(1.1f32), "1.100000023841858"),
        (f64::from(0.1f32), "0.10000000149011612"),
        (-123.456, "-123.456"),
        (f64::MAX, "1.7976931348623157e+308"),
    ];
    for (x, expected) in cases {
        assert_eq!(canonical_float(*x), *expected, "{x:e}");
    }
    // Float16 widens exactly: the smallest subnormal and 0.1.
    assert_eq!(
        canonical_float(f16::from_bits(1).to_f64()),
        "5.960464477539063e-08"
    );
    assert_eq!(
        canonical_float(f16::from_f32(0.1).to_f64()),
        "0.0999755859375"
    );
    assert_eq!(canonical_float(f16::MAX.to_f64()), "65504.0");
}

#[test]
fn float32_tie_in_a_column() {
    let column = Float32Array::from(vec![8.986_282_f32, 1.1]);
    assert_eq!(
        texts(&column),
        ["\"8.986282348632812\"", "\"1.100000023841858\""]
    );
}

#[test]
fn strings_are_escaped_like_python_json_dumps() {
    let column = StringArray::from(vec![
        "a\"b\\c\u{8}\t\n\u{c}\r\u{0}\u{1f}\u{7f}/é😀\u{2028}",
        "",
    ]);
    assert_eq!(
        canonical_json(&column, 0),
        "\"a\\\"b\\\\c\\b\\t\\n\\f\\r\\u0000\\u001f\u{7f}/é😀\u{2028}\""
    );
    assert_eq!(canonical_json(&column, 1), "\"\"");
    // Object keys use the same escaping.
    assert_eq!(
        to_compact_json(&json!({"k\"\u{1}": [1, null, true]})),
        "{\"k\\\"\\u0001\":[1,null,true]}"
    );
}

#[test]
fn string_families_render_alike() {
    let long = "a string longer than twelve bytes";
    let expected = vec![
        "\"short\"".to_string(),
        "null".to_string(),
        format!("\"{long}\""),
    ];
    let utf8 = StringArray::from(vec![Some("short"), None, Some(long)]);
    let large = LargeStringArray::from(vec![Some("short"), None, Some(long)]);
    let view = StringViewArray::from(vec![Some("short"), None, Some(long)]);
    assert_eq!(texts(&utf8), expected);
    assert_eq!(texts(&large), expected);
    assert_eq!(texts(&view), expected);
    // A sliced view array still finds its rows.
    assert_eq!(texts(&view.slice(2, 1)), vec![format!("\"{long}\"")]);
}

#[test]
fn binary_families_render_as_hex() {
    let data: Vec<Option<&[u8]>> = vec![Some(b"\x00\xff\x10"), None, Some(b"0123456789abcdefXYZ")];
    let expected = [
        r#"{"hex":"00ff10"}"#,
        "null",
        r#"{"hex":"3031323334353637383961626364656658595a"}"#,
    ];
    let binary = BinaryArray::from(data.clone());
    let large = LargeBinaryArray::from(data.clone());
    let view = BinaryViewArray::from(data);
    assert_eq!(texts(&binary), expected);
    assert_eq!(texts(&large), expected);
    assert_eq!(texts(&view), expected);
    let fixed = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        vec![Some(b"\xde\xad"), None].into_iter(),
        2,
    )
    .unwrap();
    assert_eq!(texts(&fixed), [r#"{"hex":"dead"}"#, "null"]);
}

#[test]
fn integers_beyond_2_pow_53_are_strings() {
    let signed = Int64Array::from(vec![
        9_007_199_254_740_992,
        9_007_199_254_740_993,
        -9_007_199_254_740_992,
        -9_007_199_254_740_993,
        i64::MIN,
    ]);
    assert_eq!(
        texts(&signed),
        [
            "9007199254740992",
            "\"9007199254740993\"",
            "-9007199254740992",
            "\"-9007199254740993\"",
            "\"-9223372036854775808\""
        ]
    );
    let unsigned = UInt64Array::from(vec![u64::MAX, 7]);
    assert_eq!(texts(&unsigned), ["\"18446744073709551615\"", "7"]);
    assert_eq!(texts(&Int8Array::from(vec![-128, 127])), ["-128", "127"]);
}

#[test]
fn decimals_are_exact_with_scale_digits() {
    assert_eq!(decimal_text("123400", 3), "123.400");
    assert_eq!(decimal_text("-5", 2), "-0.05");
    assert_eq!(decimal_text("0", 2), "0.00");
    assert_eq!(decimal_text("7", 0), "7");
    assert_eq!(decimal_text("-7", -2), "-700");
    assert_eq!(decimal_text("0", -2), "0");

    let d32 = Decimal32Array::from(vec![Some(-5), None])
        .with_precision_and_scale(9, 2)
        .unwrap();
    assert_eq!(texts(&d32), ["\"-0.05\"", "null"]);
    let d64 = Decimal64Array::from(vec![12])
        .with_precision_and_scale(18, -3)
        .unwrap();
    assert_eq!(texts(&d64), ["\"12000\""]);
    let d128 = Decimal128Array::from(vec![i128::MAX])
        .with_precision_and_scale(38, 10)
        .unwrap();
    assert_eq!(
        texts(&d128),
        ["\"17014118346046923173168730371.5884105727\""]
    );
    let big = i256::from_i128(i128::MAX)
        .wrapping_mul(i256::from_i128(1000))
        .wrapping_neg();
    let d256 = Decimal256Array::from(vec![big])
        .with_precision_and_scale(76, 5)
        .unwrap();
    assert_eq!(
        texts(&d256),
        ["\"-1701411834604692317316873037158841057.27000\""]
    );
}

#[test]
fn temporal_values_carry_raw_integer_and_unit() {
    assert_eq!(
        texts(&Date32Array::from(vec![-1, 19000])),
        [r#"{"v":-1,"unit":"day"}"#, r#"{"v":19000,"unit":"day"}"#]
    );
    assert_eq!(
        texts(&Date64Array::from(vec![86_400_000])),
        [r#"{"v":86400000,"unit":"ms"}"#]
    );
    assert_eq!(
        texts(&Time32MillisecondArray::from(vec![1000])),
        [r#"{"v":1000,"unit":"ms"}"#]
    );
    assert_eq!(
        texts(&Time64NanosecondArray::from(vec![86_399_999_999_999])),
        [r#"{"v":86399999999999,"unit":"ns"}"#]
    );
    let with_tz = TimestampMicrosecondArray::from(vec![Some(1), None]).with_timezone("+02:00");
    assert_eq!(texts(&with_tz), [r#"{"v":1,"unit":"us"}"#, "null"]);
    assert_eq!(
        texts(&DurationMicrosecondArray::from(vec![-5])),
        [r#"{"v":-5,"unit":"us"}"#]
    );
    let interval = IntervalMonthDayNanoArray::from(vec![IntervalMonthDayNano::new(
        1,
        -2,
        9_007_199_254_740_993,
    )]);
    assert_eq!(
        texts(&interval),
        [r#"{"months":1,"days":-2,"nanos":"9007199254740993"}"#]
    );
}

#[test]
fn list_families_render_as_arrays() {
    let list = arrow_array::ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1), None]),
        None,
        Some(vec![]),
    ]);
    let expected = ["[1,null]", "null", "[]"];
    assert_eq!(texts(&list), expected);
    let large = LargeListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1), None]),
        None,
        Some(vec![]),
    ]);
    assert_eq!(texts(&large), expected);
    // A list view whose rows share and reorder the child values.
    let view = ListViewArray::new(
        Arc::new(Field::new_list_field(DataType::Int32, true)),
        ScalarBuffer::from(vec![1, 0, 0]),
        ScalarBuffer::from(vec![1, 0, 2]),
        Arc::new(Int32Array::from(vec![Some(9), None])),
        Some(vec![true, false, true].into()),
    );
    assert_eq!(texts(&view), ["[null]", "null", "[9,null]"]);
    let fixed = FixedSizeListArray::from_iter_primitive::<Int32Type, _, _>(
        vec![
            Some(vec![Some(1), Some(2)]),
            None,
            Some(vec![None, Some(4)]),
        ],
        2,
    );
    assert_eq!(texts(&fixed), ["[1,2]", "null", "[null,4]"]);
    assert_eq!(texts(&fixed.slice(2, 1)), ["[null,4]"]);
    let mut builder: GenericListBuilder<i32, _> = GenericListBuilder::new(Int32Builder::new());
    builder.append(true);
    let empty_only = builder.finish();
    assert_eq!(texts(&empty_only), ["[]"]);
}

#[test]
fn structs_keep_schema_order_and_nulls() {
    let fields = Fields::from(vec![
        Field::new("z", DataType::Int32, true),
        Field::new("a", DataType::Utf8, true),
    ]);
    let array = StructArray::new(
        fields,
        vec![
            Arc::new(Int32Array::from(vec![Some(1), Some(2), None])),
            Arc::new(StringArray::from(vec![Some("x"), Some("y"), None])),
        ],
        Some(vec![true, false, true].into()),
    );
    assert_eq!(
        texts(&array),
        [r#"{"z":1,"a":"x"}"#, "null", r#"{"z":null,"a":null}"#]
    );
    assert_eq!(top_level_null_count(&array), 1);
}

#[test]
fn dictionary_run_end_and_null_types_decode() {
    let dictionary: DictionaryArray<Int32Type> = vec![Some("b"), None, Some("a"), Some("b")]
        .into_iter()
        .collect();
    assert_eq!(texts(&dictionary), ["\"b\"", "null", "\"a\"", "\"b\""]);
    // A key pointing at a null dictionary value is null too.
    let keys = Int32Array::from(vec![0, 1]);
    let values: ArrayRef = Arc::new(StringArray::from(vec![Some("v"), None]));
    let with_null_value = DictionaryArray::new(keys, values);
    assert_eq!(texts(&with_null_value), ["\"v\"", "null"]);

    let run_ends = Int32Array::from(vec![2, 3]);
    let run_values = Int64Array::from(vec![Some(7), None]);
    let runs = RunArray::try_new(&run_ends, &run_values).unwrap();
    assert_eq!(texts(&runs), ["7", "7", "null"]);

    let nulls = NullArray::new(3);
    assert_eq!(texts(&nulls), ["null", "null", "null"]);
    assert_eq!(top_level_null_count(&nulls), 3);
    assert_eq!(canonical_value(&nulls, 1), serde_json::Value::Null);
}

#[test]
fn pyarrow_type_strings() {
    let cases = vec![
        (DataType::Int32, "int32"),
        (DataType::Boolean, "bool"),
        (DataType::Float16, "halffloat"),
        (DataType::Utf8, "string"),
        (DataType::LargeBinary, "large_binary"),
        (DataType::Decimal128(25, 2), "decimal128(25, 2)"),
        (DataType::FixedSizeBinary(4), "fixed_size_binary[4]"),
        (
            DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, None),
            "timestamp[ns]",
        ),
        (
            DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, Some("UTC".into())),
            "timestamp[ms, tz=UTC]",
        ),
        (
            DataType::Time32(arrow_schema::TimeUnit::Millisecond),
            "time32[ms]",
        ),
        (DataType::Date32, "date32[day]"),
        (
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            "dictionary<values=string, indices=int32, ordered=0>",
        ),
        (
            DataType::List(Arc::new(Field::new("element", DataType::Int64, false))),
            "list<element: int64 not null>",
        ),
        (
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Int8, true)), 2),
            "fixed_size_list<item: int8>[2]",
        ),
        (
            DataType::Struct(Fields::from(vec![
                Field::new("a", DataType::Int32, true),
                Field::new("b", DataType::Utf8, false),
            ])),
            "struct<a: int32, b: string not null>",
        ),
        (
            DataType::Map(
                Arc::new(Field::new(
                    "my_map",
                    DataType::Struct(Fields::from(vec![
                        Field::new("key", DataType::Int32, false),
                        Field::new("value", DataType::Int32, true),
                    ])),
                    false,
                )),
                false,
            ),
            "map<int32, int32 ('my_map')>",
        ),
        (
            DataType::Map(
                Arc::new(Field::new(
                    "entries",
                    DataType::Struct(Fields::from(vec![
                        Field::new("key", DataType::Utf8, false),
                        Field::new("value", DataType::Int32, true),
                    ])),
                    false,
                )),
                false,
            ),
            "map<string, int32>",
        ),
    ];
    for (data_type, expected) in cases {
        assert_eq!(pyarrow_type_string(&data_type), expected);
    }
    let uuid = Field::new("u", DataType::FixedSizeBinary(16), true)
        .with_metadata([("ARROW:extension:name".to_string(), "arrow.uuid".to_string())].into());
    assert_eq!(
        herringbone_testkit::canonical::pyarrow_field_type_string(&uuid),
        "extension<arrow.uuid>"
    );
}

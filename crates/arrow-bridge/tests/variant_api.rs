//! Variant columns through the public API: writing them (unshredded, by shape, inferred;
//! the `VARIANT` annotation, statistics on typed leaves, sorted metadata), reading them
//! back (extension type, typed columns, the unshredded option, one path by projection),
//! and `variant_get` on shredded and plain columns giving the same values.

use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, StringArray, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use bytes::Bytes;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::schema::Projection;
use herringbone_arrow_bridge::variant::{
    ShreddedType, VariantShredding, infer_shredding, is_variant_field, json_to_variant, shred,
    unshred, variant_field, variant_get, variant_path_columns, variant_to_json,
};
use herringbone_arrow_bridge::{ArrowWriter, WriterProperties};
use herringbone_codec::variant::{MetadataBuilder, VariantPath, VariantValue};
use herringbone_format::metadata::{FileMetaData, LogicalType};
use herringbone_format::schema::SchemaDescriptor;

const JSON: [&str; 8] = [
    r#"{"a": 1, "b": "x", "t": [1, 2], "o": {"p": 1.5, "q": "s"}, "rest": true}"#,
    r#"{"a": "not an int", "b": "y", "t": [], "o": {"p": 2.25}}"#,
    r#"{"b": null, "t": [3, "four", null], "o": 7}"#,
    r#"[1, {"a": 2}]"#,
    r#"42"#,
    r#"null"#,
    r#"{}"#,
    r#"{"a": 9223372036854775807, "o": {"q": "only q", "z": [true]}}"#,
];

fn json_column(rows: &[Option<&str>]) -> StructArray {
    json_to_variant(&StringArray::from(rows.to_vec())).unwrap()
}

fn all_rows() -> Vec<Option<&'static str>> {
    let mut rows: Vec<Option<&str>> = JSON.iter().map(|s| Some(*s)).collect();
    rows.insert(3, None);
    rows
}

fn shape() -> ShreddedType {
    ShreddedType::parse("a:int64,b:string,t:[int64],o:{p:decimal8(18,2),q:string}").unwrap()
}

fn write(column: ArrayRef, setting: Option<VariantShredding>) -> (Bytes, FileMetaData) {
    let field = variant_field("v").with_data_type(column.data_type().clone());
    let ids: ArrayRef = Arc::new(arrow_array::Int64Array::from_iter_values(
        0..column.len() as i64,
    ));
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        field,
    ]));
    let batch = RecordBatch::try_new(schema.clone(), vec![ids, column]).unwrap();
    let mut builder = WriterProperties::builder();
    if let Some(setting) = setting {
        builder = builder.set_variant_shredding("v", setting);
    }
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, schema, Some(builder.build())).unwrap();
    writer.write(&batch).unwrap();
    let metadata = writer.close().unwrap();
    (Bytes::from(file), metadata)
}

fn read(file: &Bytes, projection: Option<Projection>, unshredded: bool) -> RecordBatch {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_unshredded_variants(unshredded);
    if let Some(projection) = projection {
        builder = builder.with_projection(projection);
    }
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(|b| b.unwrap()).collect();
    arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
}

fn json_of(array: &dyn Array) -> Vec<Option<String>> {
    variant_to_json(array)
        .unwrap()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect()
}

#[test]
fn shredded_writes_read_back_as_shredded_structs_with_the_same_values() {
    let plain = json_column(&all_rows());
    let (file, metadata) = write(
        Arc::new(plain.clone()),
        Some(VariantShredding::Shape(shape())),
    );
    // The group is VARIANT(1), and every leaf of typed_value exists.
    let descriptor = SchemaDescriptor::new(&metadata.schema).unwrap();
    let group = metadata
        .schema
        .iter()
        .find(|e| e.name.as_str() == "v")
        .unwrap();
    assert_eq!(
        group.logical_type,
        Some(LogicalType::Variant {
            specification_version: Some(1)
        })
    );
    let paths: Vec<String> = descriptor
        .columns()
        .iter()
        .map(|c| c.path().dotted())
        .collect();
    assert!(
        paths.contains(&"v.typed_value.o.typed_value.p.typed_value".to_string()),
        "{paths:?}"
    );
    assert!(paths.contains(&"v.typed_value.t.typed_value.list.element.typed_value".to_string()));
    // Statistics on a typed leaf: a's int64 values are 1 and i64::MAX.
    let a = paths
        .iter()
        .position(|p| p == "v.typed_value.a.typed_value")
        .unwrap();
    let stats = metadata.row_groups[0].columns[a]
        .meta_data
        .as_ref()
        .unwrap()
        .statistics
        .as_ref()
        .unwrap();
    assert_eq!(stats.min_value.as_deref(), Some(&1i64.to_le_bytes()[..]));
    assert_eq!(
        stats.max_value.as_deref(),
        Some(&i64::MAX.to_le_bytes()[..])
    );

    let batch = read(&file, None, false);
    let field = batch.schema().field(1).clone();
    assert!(is_variant_field(&field));
    let DataType::Struct(children) = field.data_type() else {
        panic!("not a struct")
    };
    assert_eq!(
        ShreddedType::from_storage_fields(children).unwrap(),
        shape(),
        "the typed_value tree reads as written"
    );
    let column = batch.column(1).as_struct();
    assert_eq!(json_of(column), json_of(&plain));
    // The unshredded option gives the same values as {metadata, value}.
    let unshredded = read(&file, None, true);
    let column = unshredded.column(1).as_struct();
    assert_eq!(column.num_columns(), 2);
    assert_eq!(json_of(column), json_of(&plain));
}

#[test]
fn variant_get_gives_the_same_values_shredded_or_not() {
    let plain = json_column(&all_rows());
    let shredded = shred(&plain, &shape()).unwrap();
    let cases: &[(&str, Option<DataType>)] = &[
        ("$.a", Some(DataType::Int64)),
        ("$.a", Some(DataType::Int8)),
        ("$.a", Some(DataType::Utf8)),
        ("$.b", Some(DataType::Utf8)),
        ("$.t[1]", Some(DataType::Int64)),
        ("$.t[1]", None),
        ("$.t[0]", Some(DataType::Float64)),
        ("$.o.p", Some(DataType::Decimal128(10, 3))),
        ("$.o.p", Some(DataType::Float64)),
        ("$.o.q", Some(DataType::Utf8View)),
        ("$.o.z[0]", Some(DataType::Boolean)),
        ("$.rest", Some(DataType::Boolean)),
        ("$.o", None),
        ("$[1].a", Some(DataType::Int64)),
        ("$", None),
        ("$", Some(DataType::Int32)),
    ];
    for (path, target) in cases {
        let parsed = VariantPath::parse(path).unwrap();
        let from_plain = variant_get(&plain, &parsed, target.as_ref()).unwrap();
        let from_shredded = variant_get(&shredded, &parsed, target.as_ref()).unwrap();
        match target {
            Some(target) => {
                assert_eq!(from_plain.data_type(), target, "{path}");
                assert_eq!(
                    from_shredded.as_ref(),
                    from_plain.as_ref(),
                    "{path} as {target}"
                );
            }
            None => assert_eq!(json_of(&from_shredded), json_of(&from_plain), "{path}"),
        }
    }
    let a = variant_get(
        &shredded,
        &VariantPath::parse("$.a").unwrap(),
        Some(&DataType::Int64),
    )
    .unwrap();
    assert_eq!(
        a.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
        [
            Some(1),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            Some(i64::MAX)
        ]
    );
    let t1 = variant_get(&shredded, &VariantPath::parse("$.t[1]").unwrap(), None).unwrap();
    assert_eq!(
        json_of(&t1),
        [
            Some("2".to_string()),
            None,
            Some("\"four\"".to_string()),
            None,
            None,
            None,
            None,
            None,
            None
        ]
    );
}

#[test]
fn one_path_reads_only_its_leaves() {
    let plain = json_column(&all_rows());
    let (file, metadata) = write(
        Arc::new(plain.clone()),
        Some(VariantShredding::Shape(shape())),
    );
    let descriptor = SchemaDescriptor::new(&metadata.schema).unwrap();
    for (path, target) in [
        ("$.o.p", DataType::Decimal128(18, 2)),
        ("$.a", DataType::Int64),
        ("$.t[0]", DataType::Int64),
        ("$.o.z[0]", DataType::Boolean),
        ("$.rest", DataType::Boolean),
    ] {
        let parsed = VariantPath::parse(path).unwrap();
        let leaves = variant_path_columns(&descriptor, "v", &parsed).unwrap();
        assert!(
            leaves.len() < descriptor.num_columns() - 1,
            "{path}: {leaves:?}"
        );
        let projected = read(&file, Some(Projection::Leaves(leaves)), false);
        let column = projected.column(0);
        let got = variant_get(column.as_ref(), &parsed, Some(&target)).unwrap();
        let want = variant_get(&plain, &parsed, Some(&target)).unwrap();
        assert_eq!(got.as_ref(), want.as_ref(), "{path}");
    }
    let leaves =
        variant_path_columns(&descriptor, "v", &VariantPath::parse("$.o.p").unwrap()).unwrap();
    let names: Vec<String> = leaves
        .iter()
        .map(|&i| descriptor.column(i).unwrap().path().dotted())
        .collect();
    assert_eq!(
        names,
        [
            "v.metadata",
            "v.typed_value.o.typed_value.p.value",
            "v.typed_value.o.typed_value.p.typed_value"
        ]
    );
    let err =
        variant_path_columns(&descriptor, "id", &VariantPath::parse("$").unwrap()).unwrap_err();
    assert!(err.to_string().contains("not a VARIANT group"), "{err}");
}

#[test]
fn written_metadata_is_sorted_per_row() {
    // Row 0's dictionary is in insertion order (b before a) with an unused name.
    let mut names = MetadataBuilder::new();
    names.add("b");
    names.add("unused");
    names.add("a");
    let unsorted = names.finish();
    let value = VariantValue::Object(vec![
        ("a".into(), VariantValue::Int8(1)),
        ("b".into(), VariantValue::Int8(2)),
    ]);
    let dictionary = herringbone_codec::variant::VariantMetadata::try_new(&unsorted).unwrap();
    assert!(!dictionary.is_sorted());
    let mut bytes = Vec::new();
    value.encode_value(&dictionary, &mut bytes).unwrap();
    let mut metadata = BinaryBuilder::new();
    let mut values = BinaryBuilder::new();
    metadata.append_value(&unsorted);
    values.append_value(&bytes);
    let column = StructArray::try_new(
        Fields::from(vec![
            Field::new("metadata", DataType::Binary, false),
            Field::new("value", DataType::Binary, true),
        ]),
        vec![Arc::new(metadata.finish()), Arc::new(values.finish())],
        None,
    )
    .unwrap();
    for setting in [None, Some(VariantShredding::Shape(shape()))] {
        let (file, _) = write(Arc::new(column.clone()), setting);
        let batch = read(&file, None, true);
        let back = batch.column(1).as_struct();
        let m = back.column(0).as_binary::<i32>().value(0);
        let parsed = herringbone_codec::variant::VariantMetadata::try_new(m).unwrap();
        assert!(parsed.is_sorted());
        assert_eq!(parsed.iter().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(json_of(back), [Some(r#"{"a":1,"b":2}"#.to_string())]);
    }
}

#[test]
fn automatic_shredding_infers_from_the_first_rows() {
    let rows: Vec<String> = (0..50)
        .map(|i| {
            format!(
                r#"{{"id": {i}, "when": "t{i}", "n": {{"x": {i}.5}}, "odd{}": 1}}"#,
                i % 2
            )
        })
        .collect();
    let plain = json_column(&rows.iter().map(|s| Some(s.as_str())).collect::<Vec<_>>());
    assert_eq!(
        infer_shredding(&plain, 100).unwrap().to_string(),
        "{id:int64,n:{x:decimal4(9,1)},when:string}"
    );
    let (file, metadata) = write(Arc::new(plain.clone()), Some(VariantShredding::Auto));
    let descriptor = SchemaDescriptor::new(&metadata.schema).unwrap();
    assert!(
        descriptor
            .column_index_by_dotted_path("v.typed_value.n.typed_value.x.typed_value")
            .is_some()
    );
    let batch = read(&file, None, false);
    assert_eq!(json_of(batch.column(1).as_ref()), json_of(&plain));
}

#[test]
fn variants_nested_in_lists_and_structs_are_written_and_reconstructed() {
    let plain = json_column(&[Some(r#"{"k": 1}"#), Some("[2]"), Some(r#"{"k": "three"}"#)]);
    let element = Arc::new(variant_field("item"));
    let list: ArrayRef = Arc::new(
        ListArray::try_new(
            element.clone(),
            OffsetBuffer::new(vec![0, 2, 3].into()),
            Arc::new(plain.clone()),
            None,
        )
        .unwrap(),
    );
    let inner = variant_field("inner");
    let structs: ArrayRef = Arc::new(
        StructArray::try_new(
            Fields::from(vec![inner.clone()]),
            vec![Arc::new(plain.slice(0, 2)) as ArrayRef],
            None,
        )
        .unwrap(),
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new("l", DataType::List(element), true),
        Field::new("s", DataType::Struct(Fields::from(vec![inner])), true),
    ]));
    let batch = RecordBatch::try_new(schema.clone(), vec![list, structs]).unwrap();
    let props = WriterProperties::builder()
        .set_variant_shredding(
            "s.inner",
            VariantShredding::Shape(ShreddedType::parse("k:int64").unwrap()),
        )
        .build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    let metadata = writer.close().unwrap();
    let descriptor = SchemaDescriptor::new(&metadata.schema).unwrap();
    assert!(
        descriptor
            .column_index_by_dotted_path("s.inner.typed_value.k.typed_value")
            .is_some()
    );
    let back = read(&Bytes::from(file), None, true);
    let values = back.column(0).as_list::<i32>().values().clone();
    assert_eq!(json_of(values.as_ref()), json_of(&plain));
    let inner = back.column(1).as_struct().column(0).clone();
    assert_eq!(json_of(inner.as_ref()), json_of(&plain.slice(0, 2)));

    // A setting that names no Variant column is an error.
    let err = ArrowWriter::try_new(
        Vec::new(),
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int32, true)])),
        Some(
            WriterProperties::builder()
                .set_variant_shredding("x", VariantShredding::Auto)
                .build(),
        ),
    )
    .unwrap_err();
    assert!(err.to_string().contains("not a Variant column"), "{err}");
}

#[test]
fn shredded_times_and_timestamps_keep_their_variant_types() {
    // time_ntz and both timestamp kinds, shredded, written, read back, reconstructed.
    let values = [
        VariantValue::TimeNtzMicros(45_296_123_456),
        VariantValue::TimestampMicros(1_700_000_000_000_000),
        VariantValue::TimestampNtzNanos(-5),
    ];
    let mut metadata = BinaryBuilder::new();
    let mut value = BinaryBuilder::new();
    for v in &values {
        let encoded = VariantValue::Object(vec![("x".into(), v.clone())])
            .encode()
            .unwrap();
        metadata.append_value(&encoded.metadata);
        value.append_value(&encoded.value);
    }
    let plain = StructArray::try_new(
        Fields::from(vec![
            Field::new("metadata", DataType::Binary, false),
            Field::new("value", DataType::Binary, true),
        ]),
        vec![Arc::new(metadata.finish()), Arc::new(value.finish())],
        None,
    )
    .unwrap();
    for shape in ["x:time_ntz", "x:timestamp", "x:timestamp_ntz_nanos"] {
        let (file, metadata) = write(
            Arc::new(plain.clone()),
            Some(VariantShredding::Shape(ShreddedType::parse(shape).unwrap())),
        );
        let time = metadata
            .schema
            .iter()
            .filter(|e| e.name.as_str() == "typed_value")
            .find_map(|e| e.logical_type.clone());
        if shape == "x:time_ntz" {
            assert!(matches!(
                time,
                Some(LogicalType::Time {
                    is_adjusted_to_utc: false,
                    ..
                })
            ));
        }
        let batch = read(&file, None, false);
        assert_eq!(
            json_of(batch.column(1).as_ref()),
            json_of(&plain),
            "{shape}"
        );
        let back = unshred(batch.column(1).as_struct()).unwrap();
        assert_eq!(json_of(&back), json_of(&plain), "{shape}");
    }
    let ts = variant_get(
        &shred(&plain, &ShreddedType::parse("x:timestamp").unwrap()).unwrap(),
        &VariantPath::parse("$.x").unwrap(),
        Some(&DataType::Timestamp(
            TimeUnit::Microsecond,
            Some("UTC".into()),
        )),
    )
    .unwrap();
    assert_eq!(
        ts.as_primitive::<TimestampMicrosecondType>()
            .iter()
            .collect::<Vec<_>>(),
        [None, Some(1_700_000_000_000_000), None]
    );
}

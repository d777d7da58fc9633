//! Parquet -> Arrow type mapping, annotation by annotation, the nested-type
//! backward-compatibility rules, levels, projection and the `ARROW:schema` hint.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Fields, IntervalUnit, Schema, TimeUnit};
use base64::Engine as _;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::schema::{
    ArrowSchemaMapping, BinaryRepresentation, IntervalRepresentation, ParquetField,
    ParquetFieldKind, Projection, SchemaOptions, StringRepresentation, parquet_to_arrow,
};
use herringbone_format::metadata::{KeyValue, Type};
use herringbone_format::schema::{SchemaDescriptor, parse_schema};

fn map(text: &str) -> ArrowSchemaMapping {
    map_with(text, &SchemaOptions::default(), None)
}

fn map_with(text: &str, options: &SchemaOptions, kv: Option<&[KeyValue]>) -> ArrowSchemaMapping {
    let descriptor = parse_schema(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    parquet_to_arrow(&descriptor, kv, options).unwrap()
}

fn map_err(text: &str) -> String {
    let descriptor = parse_schema(text).unwrap();
    let err = parquet_to_arrow(&descriptor, None, &SchemaOptions::default())
        .expect_err("mapping must fail");
    assert_eq!(err.kind(), ErrorKind::Schema);
    err.to_string()
}

fn field(name: &str, data_type: DataType, nullable: bool) -> FieldRef {
    Arc::new(Field::new(name, data_type, nullable))
}

fn types(mapping: &ArrowSchemaMapping) -> Vec<(String, DataType, bool)> {
    mapping
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable()))
        .collect()
}

fn utc(unit: TimeUnit) -> DataType {
    DataType::Timestamp(unit, Some("+00:00".into()))
}

#[test]
fn primitive_annotations() {
    let mapping = map("message m {
        required boolean b;
        required int32 i32;
        required int32 i8 (INTEGER(8,true));
        required int32 i16 (INTEGER(16,true));
        required int32 u8 (INTEGER(8,false));
        required int32 u16 (INTEGER(16,false));
        required int32 u32 (INTEGER(32,false));
        required int64 i64;
        required int64 u64 (INTEGER(64,false));
        required int32 legacy_u16 (UINT_16);
        required int64 legacy_i64 (INT_64);
        required int32 d32 (DECIMAL(9,2));
        required int64 d64 (DECIMAL(18,4));
        required fixed_len_byte_array(16) d_flba (DECIMAL(38,10));
        required fixed_len_byte_array(32) d_wide (DECIMAL(76,0));
        required binary d_bytes (DECIMAL(40,3));
        required int32 date (DATE);
        required int32 t_ms (TIME(MILLIS,true));
        required int64 t_us (TIME(MICROS,false));
        required int64 t_ns (TIME(NANOS,true));
        required int64 ts_ms (TIMESTAMP(MILLIS,true));
        required int64 ts_us (TIMESTAMP(MICROS,false));
        required int64 ts_ns (TIMESTAMP(NANOS,true));
        required int64 legacy_ts (TIMESTAMP_MILLIS);
        required int96 int96;
        required float f;
        required double d;
        required fixed_len_byte_array(2) f16 (FLOAT16);
        optional binary s (STRING);
        optional binary e (ENUM);
        optional binary j (JSON);
        optional binary legacy_s (UTF8);
        optional binary bson (BSON);
        optional binary raw;
        optional fixed_len_byte_array(16) uuid (UUID);
        optional fixed_len_byte_array(12) interval (INTERVAL);
        optional fixed_len_byte_array(7) flba;
        optional int32 unknown (UNKNOWN);
    }");
    let expected = vec![
        ("b", DataType::Boolean, false),
        ("i32", DataType::Int32, false),
        ("i8", DataType::Int8, false),
        ("i16", DataType::Int16, false),
        ("u8", DataType::UInt8, false),
        ("u16", DataType::UInt16, false),
        ("u32", DataType::UInt32, false),
        ("i64", DataType::Int64, false),
        ("u64", DataType::UInt64, false),
        ("legacy_u16", DataType::UInt16, false),
        ("legacy_i64", DataType::Int64, false),
        ("d32", DataType::Decimal128(9, 2), false),
        ("d64", DataType::Decimal128(18, 4), false),
        ("d_flba", DataType::Decimal128(38, 10), false),
        ("d_wide", DataType::Decimal256(76, 0), false),
        ("d_bytes", DataType::Decimal256(40, 3), false),
        ("date", DataType::Date32, false),
        ("t_ms", DataType::Time32(TimeUnit::Millisecond), false),
        ("t_us", DataType::Time64(TimeUnit::Microsecond), false),
        ("t_ns", DataType::Time64(TimeUnit::Nanosecond), false),
        ("ts_ms", utc(TimeUnit::Millisecond), false),
        (
            "ts_us",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            false,
        ),
        ("ts_ns", utc(TimeUnit::Nanosecond), false),
        ("legacy_ts", utc(TimeUnit::Millisecond), false),
        (
            "int96",
            DataType::Timestamp(TimeUnit::Nanosecond, None),
            false,
        ),
        ("f", DataType::Float32, false),
        ("d", DataType::Float64, false),
        ("f16", DataType::Float16, false),
        ("s", DataType::Utf8, true),
        ("e", DataType::Utf8, true),
        ("j", DataType::Utf8, true),
        ("legacy_s", DataType::Utf8, true),
        ("bson", DataType::Binary, true),
        ("raw", DataType::Binary, true),
        ("uuid", DataType::FixedSizeBinary(16), true),
        (
            "interval",
            DataType::Interval(IntervalUnit::MonthDayNano),
            true,
        ),
        ("flba", DataType::FixedSizeBinary(7), true),
        ("unknown", DataType::Null, true),
    ];
    let expected: Vec<(String, DataType, bool)> = expected
        .into_iter()
        .map(|(n, t, null)| (n.to_string(), t, null))
        .collect();
    assert_eq!(types(&mapping), expected);
    let uuid = mapping.schema().field_with_name("uuid").unwrap();
    assert_eq!(
        uuid.metadata()
            .get("ARROW:extension:name")
            .map(String::as_str),
        Some("arrow.uuid")
    );
    assert_eq!(mapping.leaf_columns(), (0..38).collect::<Vec<_>>());
}

#[test]
fn options_choose_representations() {
    let text = "message m {
        required int96 t;
        optional binary s (STRING);
        optional binary b;
        optional fixed_len_byte_array(12) i (INTERVAL);
    }";
    let options = SchemaOptions::new()
        .with_int96_unit(TimeUnit::Millisecond)
        .with_strings(StringRepresentation::Utf8View)
        .with_binaries(BinaryRepresentation::LargeBinary)
        .with_interval(IntervalRepresentation::FixedSizeBinary);
    let mapping = map_with(text, &options, None);
    let got: Vec<DataType> = types(&mapping).into_iter().map(|(_, t, _)| t).collect();
    assert_eq!(
        got,
        vec![
            DataType::Timestamp(TimeUnit::Millisecond, None),
            DataType::Utf8View,
            DataType::LargeBinary,
            DataType::FixedSizeBinary(12),
        ]
    );
    let options = SchemaOptions::new()
        .with_strings(StringRepresentation::LargeUtf8)
        .with_binaries(BinaryRepresentation::BinaryView);
    let got: Vec<DataType> = types(&map_with(text, &options, None))
        .into_iter()
        .map(|(_, t, _)| t)
        .collect();
    assert_eq!(got[1], DataType::LargeUtf8);
    assert_eq!(got[2], DataType::BinaryView);
}

#[test]
fn geospatial_columns_carry_geoarrow_metadata() {
    let kv = vec![KeyValue {
        key: "my_crs".into(),
        value: Some("{\"id\": 1}".into()),
    }];
    let mapping = map_with(
        "message m {
            optional binary plain (GEOMETRY);
            optional binary srid (GEOMETRY(\"srid:5070\"));
            optional binary projjson (GEOMETRY(\"projjson:my_crs\"));
            optional binary geo (GEOGRAPHY(\"OGC:CRS83\",VINCENTY));
            optional binary geo_default (GEOGRAPHY);
        }",
        &SchemaOptions::default(),
        Some(&kv),
    );
    let metadata = |name: &str| {
        let f = mapping.schema().field_with_name(name).unwrap();
        assert_eq!(f.data_type(), &DataType::Binary);
        assert_eq!(
            f.metadata().get("ARROW:extension:name").map(String::as_str),
            Some("geoarrow.wkb")
        );
        f.metadata()["ARROW:extension:metadata"].clone()
    };
    assert_eq!(metadata("plain"), r#"{"crs":"OGC:CRS84"}"#);
    assert_eq!(metadata("srid"), r#"{"crs":"5070","crs_type":"srid"}"#);
    assert_eq!(
        metadata("projjson"),
        r#"{"crs":{"id": 1},"crs_type":"projjson"}"#
    );
    assert_eq!(metadata("geo"), r#"{"crs":"OGC:CRS83","edges":"vincenty"}"#);
    assert_eq!(
        metadata("geo_default"),
        r#"{"crs":"OGC:CRS84","edges":"spherical"}"#
    );
    // The file metadata becomes schema metadata.
    assert_eq!(mapping.schema().metadata()["my_crs"], "{\"id\": 1}");
}

#[test]
fn decimals_wider_than_decimal256_are_errors() {
    let err = map_err("message m { required binary d (DECIMAL(77,2)); }");
    assert!(
        err.contains("`d`") && err.contains("DECIMAL(77, 2)"),
        "{err}"
    );
}

#[test]
fn field_ids_go_into_field_metadata() {
    let mapping = map("message m {
        required int32 a = 7;
        optional group l (LIST) = 8 {
            repeated group list { optional int64 element = 9; }
        }
    }");
    let id = |f: &Field| f.metadata().get("PARQUET:field_id").cloned();
    let a = mapping.schema().field(0);
    assert_eq!(id(a), Some("7".to_string()));
    let l = mapping.schema().field(1);
    assert_eq!(id(l), Some("8".to_string()));
    let DataType::List(element) = l.data_type() else {
        panic!("{l:?}")
    };
    assert_eq!(id(element), Some("9".to_string()));
}

/// The list rules of LogicalTypes.md, "Lists", with its own examples.
#[test]
fn list_backward_compatibility_rules() {
    let cases: Vec<(&str, DataType, bool)> = vec![
        // Standard three-level lists.
        (
            "required group my_list (LIST) { repeated group list { optional binary element (STRING); } }",
            DataType::List(field("element", DataType::Utf8, true)),
            false,
        ),
        (
            "optional group my_list (LIST) { repeated group list { required binary element (STRING); } }",
            DataType::List(field("element", DataType::Utf8, false)),
            true,
        ),
        // Two-level: the repeated field is a primitive.
        (
            "optional group my_list (LIST) { repeated int32 element; }",
            DataType::List(field("element", DataType::Int32, false)),
            true,
        ),
        // Two-level: a repeated group with several fields is the element.
        (
            "optional group my_list (LIST) { repeated group element { required binary str (STRING); required int32 num; } }",
            DataType::List(field(
                "element",
                DataType::Struct(Fields::from(vec![
                    Field::new("str", DataType::Utf8, false),
                    Field::new("num", DataType::Int32, false),
                ])),
                false,
            )),
            true,
        ),
        // Two-level: a one-field group named `array`.
        (
            "optional group my_list (LIST) { repeated group array { required binary str (STRING); } }",
            DataType::List(field(
                "array",
                DataType::Struct(Fields::from(vec![Field::new("str", DataType::Utf8, false)])),
                false,
            )),
            true,
        ),
        // Two-level: a one-field group named `<list>_tuple`.
        (
            "optional group my_list (LIST) { repeated group my_list_tuple { required binary str (STRING); } }",
            DataType::List(field(
                "my_list_tuple",
                DataType::Struct(Fields::from(vec![Field::new("str", DataType::Utf8, false)])),
                false,
            )),
            true,
        ),
        // Two-level: a one-field group whose field is repeated.
        (
            "optional group my_list (LIST) { repeated group entry { repeated int32 values; } }",
            DataType::List(field(
                "entry",
                DataType::Struct(Fields::from(vec![Field::new(
                    "values",
                    DataType::List(field("values", DataType::Int32, false)),
                    false,
                )])),
                false,
            )),
            true,
        ),
        // Otherwise three-level, whatever the names.
        (
            "optional group my_list (LIST) { repeated group bag { optional int64 item; } }",
            DataType::List(field("item", DataType::Int64, true)),
            true,
        ),
        // Legacy converted type only.
        (
            "optional group my_list (LIST) { repeated group list { optional int64 element; } }",
            DataType::List(field("element", DataType::Int64, true)),
            true,
        ),
        // Nested LIST in a two-level `array` list (data/old_list_structure.parquet).
        (
            "required group my_list (LIST) { repeated group array (LIST) { repeated int32 array; } }",
            DataType::List(field(
                "array",
                DataType::List(field("array", DataType::Int32, false)),
                false,
            )),
            false,
        ),
    ];
    for (column, expected, nullable) in cases {
        let mapping = map(&format!("message m {{ {column} }}"));
        let f = mapping.schema().field(0);
        assert_eq!(
            (f.data_type(), f.is_nullable()),
            (&expected, nullable),
            "{column}"
        );
    }
}

#[test]
fn unannotated_repeated_fields_are_lists_of_required_elements() {
    let mapping = map("message m {
        repeated int32 numbers;
        optional group phone_numbers {
            repeated group phone { required int64 number; optional binary kind (STRING); }
        }
    }");
    let numbers = mapping.schema().field(0);
    assert_eq!(
        (numbers.data_type(), numbers.is_nullable()),
        (
            &DataType::List(field("numbers", DataType::Int32, false)),
            false
        )
    );
    let phone = DataType::Struct(Fields::from(vec![
        Field::new("number", DataType::Int64, false),
        Field::new("kind", DataType::Utf8, true),
    ]));
    assert_eq!(
        mapping.schema().field(1).data_type(),
        &DataType::Struct(Fields::from(vec![Field::new(
            "phone",
            DataType::List(field("phone", phone, false)),
            false
        )]))
    );
    // Levels: the list is always present; its elements at definition level 1 / 2.
    let numbers = &mapping.fields()[0];
    assert_eq!((numbers.def_level, numbers.rep_level), (0, 0));
    let ParquetFieldKind::List {
        element,
        entry_def_level,
        entry_rep_level,
    } = &numbers.kind
    else {
        panic!("{numbers:?}")
    };
    assert_eq!((*entry_def_level, *entry_rep_level), (1, 1));
    assert_eq!((element.def_level, element.rep_level), (1, 1));
}

#[test]
fn malformed_lists_are_errors() {
    let err =
        map_err("message m { optional group l (LIST) { repeated int32 a; repeated int32 b; } }");
    assert!(err.contains("exactly one child, it has 2"), "{err}");
    let err = map_err("message m { optional group l (LIST) { optional int32 a; } }");
    assert!(err.contains("must be repeated"), "{err}");
}

fn map_of(key: DataType, value: DataType, value_nullable: bool) -> DataType {
    DataType::Map(
        field(
            "key_value",
            DataType::Struct(Fields::from(vec![
                Field::new("key", key, false),
                Field::new("value", value, value_nullable),
            ])),
            false,
        ),
        false,
    )
}

#[test]
fn maps_and_their_legacy_forms() {
    let cases: Vec<(&str, DataType)> = vec![
        (
            "optional group m (MAP) { repeated group key_value { required binary key (STRING); optional int32 value; } }",
            map_of(DataType::Utf8, DataType::Int32, true),
        ),
        // MAP_KEY_VALUE on the repeated group (legacy writers).
        (
            "optional group m (MAP) { repeated group key_value (MAP_KEY_VALUE) { required binary key (UTF8); required int32 value; } }",
            map_of(DataType::Utf8, DataType::Int32, false),
        ),
        // MAP_KEY_VALUE on the map group itself.
        (
            "optional group m (MAP_KEY_VALUE) { repeated group key_value { required binary key (UTF8); optional int32 value; } }",
            map_of(DataType::Utf8, DataType::Int32, true),
        ),
        // An optional key (data/incorrect_map_schema.parquet): keys are non-null in Arrow.
        (
            "optional group m (MAP) { repeated group key_value { optional binary key (STRING); optional binary value (STRING); } }",
            map_of(DataType::Utf8, DataType::Utf8, true),
        ),
        // No value: the list of keys (data/map_no_value.parquet).
        (
            "optional group m (MAP) { repeated group key_value { required int32 key; } }",
            DataType::List(field("key", DataType::Int32, false)),
        ),
    ];
    for (column, expected) in cases {
        let mapping = map(&format!("message m {{ {column} }}"));
        assert_eq!(mapping.schema().field(0).data_type(), &expected, "{column}");
    }

    // A repeated MAP_KEY_VALUE group outside a MAP is a list of structs.
    let mapping = map("message m { repeated group kv (MAP_KEY_VALUE) { required int32 key; } }");
    assert_eq!(
        mapping.schema().field(0).data_type(),
        &DataType::List(field(
            "kv",
            DataType::Struct(Fields::from(vec![Field::new(
                "key",
                DataType::Int32,
                false
            )])),
            false
        ))
    );

    let err = map_err(
        "message m { optional group m (MAP) { repeated group kv { required int32 a; required int32 b; required int32 c; } } }",
    );
    assert!(err.contains("it has 3 fields"), "{err}");
    let err = map_err(
        "message m { optional group m (MAP) { required group kv { required int32 key; } } }",
    );
    assert!(err.contains("must be a repeated group"), "{err}");
}

#[test]
fn optional_map_key_keeps_its_definition_level() {
    let mapping = map("message m {
        optional group m (MAP) { repeated group key_value { optional binary key (STRING); optional binary value (STRING); } }
    }");
    let ParquetFieldKind::Map {
        key,
        value,
        entry_def_level,
        entry_rep_level,
    } = &mapping.fields()[0].kind
    else {
        panic!()
    };
    assert_eq!((*entry_def_level, *entry_rep_level), (2, 1));
    assert!(!key.field.is_nullable());
    assert_eq!(
        key.def_level, 3,
        "the file's optional key is one level deeper"
    );
    assert_eq!(value.def_level, 3);
}

fn check_leaf_levels(field: &ParquetField, descriptor: &SchemaDescriptor) {
    match &field.kind {
        ParquetFieldKind::Primitive {
            column,
            physical_type,
        } => {
            let c = descriptor.column(*column).unwrap();
            assert_eq!(field.def_level, c.max_def_level(), "{}", c.path());
            assert_eq!(field.rep_level, c.max_rep_level(), "{}", c.path());
            assert_eq!(*physical_type, c.physical_type());
        }
        ParquetFieldKind::Struct { children } => {
            children
                .iter()
                .for_each(|c| check_leaf_levels(c, descriptor));
        }
        ParquetFieldKind::List { element, .. } => check_leaf_levels(element, descriptor),
        ParquetFieldKind::Map { key, value, .. } => {
            check_leaf_levels(key, descriptor);
            check_leaf_levels(value, descriptor);
        }
    }
}

const NESTED: &str = "message m {
    required int64 id;
    optional group s {
        optional int32 a;
        required group inner { optional binary b (STRING); repeated int32 c; }
    }
    optional group l (LIST) {
        repeated group list {
            optional group element { optional int32 x; optional int32 y; }
        }
    }
    optional group mp (MAP) {
        repeated group key_value {
            required binary key (STRING);
            optional group value (LIST) { repeated group list { optional double element; } }
        }
    }
}";

#[test]
fn leaf_levels_equal_the_column_descriptors() {
    let descriptor = parse_schema(NESTED).unwrap();
    let mapping = parquet_to_arrow(&descriptor, None, &SchemaOptions::default()).unwrap();
    assert_eq!(mapping.leaf_columns(), (0..8).collect::<Vec<_>>());
    for f in mapping.fields() {
        check_leaf_levels(f, &descriptor);
    }
    // The list `l`: present at 1, non-empty at 2, rep 1; the map's inner list at rep 2.
    let ParquetFieldKind::List {
        entry_def_level,
        entry_rep_level,
        ..
    } = &mapping.fields()[2].kind
    else {
        panic!()
    };
    assert_eq!(
        (
            mapping.fields()[2].def_level,
            *entry_def_level,
            *entry_rep_level
        ),
        (1, 2, 1)
    );
}

#[test]
fn projection_by_roots_and_leaves() {
    let mapping = map(NESTED);
    let roots = mapping.project(&Projection::Roots(vec![3, 0])).unwrap();
    let names: Vec<&str> = roots
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["id", "mp"]);
    assert_eq!(roots.leaf_columns(), vec![0, 6, 7]);

    // Leaf 2 (s.inner.b) and 4 (l.element.x): pruned structs keep the selected children.
    let leaves = mapping.project(&Projection::Leaves(vec![4, 2])).unwrap();
    assert_eq!(leaves.leaf_columns(), vec![2, 4]);
    assert_eq!(
        leaves.schema().field(0).data_type(),
        &DataType::Struct(Fields::from(vec![Field::new(
            "inner",
            DataType::Struct(Fields::from(vec![Field::new("b", DataType::Utf8, true)])),
            false
        )]))
    );
    assert_eq!(
        leaves.schema().field(1).data_type(),
        &DataType::List(field(
            "element",
            DataType::Struct(Fields::from(vec![Field::new("x", DataType::Int32, true)])),
            true
        ))
    );
    // Selecting a map's key keeps the whole value; selecting the value keeps the key.
    assert_eq!(
        mapping
            .project(&Projection::Leaves(vec![6]))
            .unwrap()
            .leaf_columns(),
        vec![6, 7]
    );
    assert_eq!(
        mapping
            .project(&Projection::Leaves(vec![7]))
            .unwrap()
            .leaf_columns(),
        vec![6, 7]
    );
    assert_eq!(
        mapping.project(&Projection::All).unwrap().schema(),
        mapping.schema()
    );

    let err = mapping.project(&Projection::Leaves(vec![8])).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("leaf column 8"), "{err}");
    let err = mapping.project(&Projection::Roots(vec![4])).unwrap_err();
    assert!(err.to_string().contains("root field 4"), "{err}");
}

/// `ARROW:schema` as the Arrow writers store it: base64 of the IPC Schema message with
/// the continuation marker and length prefix.
fn encode_hint(schema: &Schema) -> String {
    let generator = arrow_ipc::writer::IpcDataGenerator::default();
    let mut tracker = arrow_ipc::writer::DictionaryTracker::new(true);
    let encoded = generator.schema_to_bytes_with_dictionary_tracker(
        schema,
        &mut tracker,
        &arrow_ipc::writer::IpcWriteOptions::default(),
    );
    let mut bytes = vec![0xff; 4];
    bytes.extend_from_slice(&(encoded.ipc_message.len() as i32).to_le_bytes());
    bytes.extend_from_slice(&encoded.ipc_message);
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn hint_kv(schema: &Schema) -> Vec<KeyValue> {
    vec![
        KeyValue {
            key: "ARROW:schema".into(),
            value: Some(encode_hint(schema).into()),
        },
        KeyValue {
            key: "other".into(),
            value: Some("kept".into()),
        },
    ]
}

const HINTED: &str = "message m {
    optional binary large (STRING);
    optional binary dict (STRING);
    optional int64 ts (TIMESTAMP(MILLIS,true));
    optional int64 dur;
    optional int64 d64;
    optional int96 legacy;
    optional group ll (LIST) { repeated group list { optional int32 element; } }
    optional group fixed (LIST) { repeated group list { optional int32 element; } }
    optional fixed_len_byte_array(16) wide (DECIMAL(7,3));
    optional binary bad;
    optional fixed_len_byte_array(16) u;
    optional group st { optional binary v; }
}";

fn hint_schema() -> Schema {
    let uuid_metadata: HashMap<String, String> =
        [("ARROW:extension:name".to_string(), "arrow.uuid".to_string())].into();
    Schema::new(vec![
        Field::new("large", DataType::LargeUtf8, true),
        Field::new(
            "dict",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Millisecond, Some("+02:00".into())),
            true,
        ),
        Field::new("dur", DataType::Duration(TimeUnit::Nanosecond), true),
        Field::new("d64", DataType::Date64, true),
        Field::new(
            "legacy",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        ),
        Field::new(
            "ll",
            DataType::LargeList(field("element", DataType::Int32, true)),
            true,
        ),
        Field::new(
            "fixed",
            DataType::FixedSizeList(field("element", DataType::Int32, true), 2),
            true,
        ),
        Field::new("wide", DataType::Decimal256(7, 3), true),
        // Not a faithful reading of a BYTE_ARRAY: ignored.
        Field::new("bad", DataType::Int32, true),
        Field::new("u", DataType::FixedSizeBinary(16), true).with_metadata(uuid_metadata),
        Field::new(
            "st",
            DataType::Struct(Fields::from(vec![Field::new(
                "v",
                DataType::BinaryView,
                true,
            )])),
            true,
        ),
    ])
    .with_metadata([("writer".to_string(), "test".to_string())].into())
}

#[test]
fn arrow_schema_hint_restores_writer_types() {
    let kv = hint_kv(&hint_schema());
    let mapping = map_with(HINTED, &SchemaOptions::default(), Some(&kv));
    assert_eq!(mapping.arrow_schema_hint_error(), None);
    let got: Vec<DataType> = types(&mapping).into_iter().map(|(_, t, _)| t).collect();
    let expected: Vec<DataType> = hint_schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(got[..9], expected[..9]);
    assert_eq!(got[9], DataType::Binary, "incompatible hint ignored");
    assert_eq!(got[10], DataType::FixedSizeBinary(16));
    assert_eq!(got[11], expected[11]);
    assert_eq!(
        mapping.schema().field(10).metadata()["ARROW:extension:name"],
        "arrow.uuid"
    );
    let metadata = mapping.schema().metadata();
    assert_eq!(metadata.get("other").map(String::as_str), Some("kept"));
    assert_eq!(metadata.get("writer").map(String::as_str), Some("test"));
    assert!(!metadata.contains_key("ARROW:schema"));
    // Nullability and levels stay the Parquet ones.
    assert!(mapping.schema().fields().iter().all(|f| f.is_nullable()));

    // Explicit options win over the hint; the hint can be switched off.
    let options = SchemaOptions::new()
        .with_strings(StringRepresentation::Utf8View)
        .with_int96_unit(TimeUnit::Second);
    let got = types(&map_with(HINTED, &options, Some(&kv)));
    assert_eq!(got[0].1, DataType::Utf8View);
    assert_eq!(got[1].1, DataType::Utf8View);
    assert_eq!(got[5].1, DataType::Timestamp(TimeUnit::Second, None));
    let off = SchemaOptions::new().with_arrow_schema_hint(false);
    assert_eq!(
        types(&map_with(HINTED, &off, Some(&kv))),
        types(&map(HINTED))
    );
}

#[test]
fn undecodable_hints_are_ignored_with_a_reason() {
    let plain = types(&map(HINTED));
    for (value, reason) in [
        ("not base64!".to_string(), "not valid base64"),
        (
            base64::engine::general_purpose::STANDARD
                .encode([0xff, 0xff, 0xff, 0xff, 100, 0, 0, 0, 1]),
            "IPC message length 100",
        ),
        (
            base64::engine::general_purpose::STANDARD.encode([1, 2]),
            "too short",
        ),
        (
            base64::engine::general_purpose::STANDARD.encode([8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]),
            "invalid IPC message",
        ),
        (
            encode_hint(&Schema::new(vec![Field::new("only", DataType::Utf8, true)])),
            "ARROW:schema has 1 fields",
        ),
    ] {
        let kv = vec![KeyValue {
            key: "ARROW:schema".into(),
            value: Some(value.into()),
        }];
        let mapping = map_with(HINTED, &SchemaOptions::default(), Some(&kv));
        let error = mapping.arrow_schema_hint_error().expect("hint rejected");
        assert!(error.contains(reason), "{error}");
        assert_eq!(types(&mapping), plain);
    }
}

#[test]
fn physical_types_are_recorded_on_leaves() {
    let mapping = map("message m { required int96 a; optional fixed_len_byte_array(3) b; }");
    let physical: Vec<Type> = mapping
        .fields()
        .iter()
        .map(|f| match f.kind {
            ParquetFieldKind::Primitive { physical_type, .. } => physical_type,
            _ => panic!(),
        })
        .collect();
    assert_eq!(physical, [Type::INT96, Type::FIXED_LEN_BYTE_ARRAY]);
}

#[test]
fn corrupted_hints_never_panic() {
    // Byte flips and truncations of a valid hint: each is either decoded (and applied
    // only where compatible) or ignored with a reason; the mapping itself never fails.
    let valid = base64::engine::general_purpose::STANDARD
        .decode(encode_hint(&hint_schema()))
        .unwrap();
    let plain = map(HINTED);
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 33) as usize
    };
    for round in 0..1500 {
        let mut bytes = valid.clone();
        for _ in 0..1 + round % 4 {
            let i = next() % bytes.len();
            bytes[i] ^= 1 << (next() % 8);
        }
        if round % 5 == 0 {
            bytes.truncate(next() % bytes.len());
        }
        let kv = vec![KeyValue {
            key: "ARROW:schema".into(),
            value: Some(
                base64::engine::general_purpose::STANDARD
                    .encode(&bytes)
                    .into(),
            ),
        }];
        let mapping = map_with(HINTED, &SchemaOptions::default(), Some(&kv));
        assert_eq!(mapping.fields().len(), plain.fields().len());
        assert_eq!(mapping.leaf_columns(), plain.leaf_columns());
    }
}

#[test]
fn supplied_schema_coerces_faithful_types_and_rejects_others() {
    let mapping = map("message m {
        required int96 t;
        optional binary s (STRING);
        optional group l (LIST) { repeated group list { optional int32 element; } }
        optional group mp (MAP) { repeated group key_value { required binary key (STRING); optional int64 value; } }
    }");
    let wanted = Schema::new(vec![
        Field::new(
            "t",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new(
            "s",
            DataType::Dictionary(Box::new(DataType::UInt16), Box::new(DataType::LargeUtf8)),
            true,
        ),
        Field::new(
            "l",
            DataType::LargeList(field("item", DataType::Int32, true)),
            true,
        ),
        Field::new(
            "mp",
            DataType::Map(
                field(
                    "entries",
                    DataType::Struct(Fields::from(vec![
                        Field::new("key", DataType::Utf8View, false),
                        Field::new("value", DataType::Int64, true),
                    ])),
                    false,
                ),
                false,
            ),
            true,
        ),
    ]);
    let coerced = mapping.with_supplied_schema(&wanted).unwrap();
    assert_eq!(coerced.schema().as_ref(), &wanted);
    assert_eq!(coerced.leaf_columns(), mapping.leaf_columns());
    assert_eq!(coerced.fields()[2].def_level, mapping.fields()[2].def_level);

    let reject = |index: usize, replacement: Field, expected: &str| {
        let mut fields: Vec<FieldRef> = wanted.fields().iter().cloned().collect();
        fields[index] = Arc::new(replacement);
        let err = mapping
            .with_supplied_schema(&Schema::new(fields))
            .expect_err("incompatible");
        assert_eq!(err.kind(), ErrorKind::InvalidArgument);
        assert!(err.to_string().contains(expected), "{err}");
    };
    reject(
        1,
        Field::new("s", DataType::Int32, true),
        "field `s` cannot be read as Int32",
    );
    reject(1, Field::new("s", DataType::Utf8, false), "nullable");
    reject(
        0,
        Field::new("x", DataType::Int64, true),
        "field `x` where the file has `t`",
    );
    reject(
        2,
        Field::new(
            "l",
            DataType::List(field("item", DataType::Utf8, true)),
            true,
        ),
        "field `l.item`",
    );
    reject(2, Field::new("l", DataType::Int32, true), "nesting differs");
    let err = mapping
        .with_supplied_schema(&Schema::new(vec![Field::new("t", DataType::Int64, true)]))
        .unwrap_err();
    assert!(err.to_string().contains("1 fields"), "{err}");
    // After a projection the supplied schema covers the projected fields.
    let projected = mapping.project(&Projection::Roots(vec![1])).unwrap();
    let only_s = Schema::new(vec![Field::new("s", DataType::Utf8View, true)]);
    assert_eq!(
        projected
            .with_supplied_schema(&only_s)
            .unwrap()
            .schema()
            .as_ref(),
        &only_s
    );
}

#[test]
fn hint_extension_names_follow_only_adopted_types() {
    let ext = |name: &str| -> HashMap<String, String> {
        [("ARROW:extension:name".to_string(), name.to_string())].into()
    };
    let hint = Schema::new(vec![
        // Adopted type: its extension name comes along.
        Field::new("a", DataType::LargeBinary, true).with_metadata(ext("my.ext")),
        // Rejected type: its extension name must not be pinned on our Binary.
        Field::new("b", DataType::FixedSizeBinary(16), true).with_metadata(ext("arrow.uuid")),
        // Our own extension wins over the hint's.
        Field::new("c", DataType::Binary, true).with_metadata(ext("other.ext")),
    ]);
    let mapping = map_with(
        "message m { optional binary a; optional binary b; optional binary c (GEOMETRY); }",
        &SchemaOptions::default(),
        Some(&hint_kv(&hint)),
    );
    let name = |i: usize| {
        mapping
            .schema()
            .field(i)
            .metadata()
            .get("ARROW:extension:name")
            .cloned()
    };
    assert_eq!(
        mapping.schema().field(0).data_type(),
        &DataType::LargeBinary
    );
    assert_eq!(name(0).as_deref(), Some("my.ext"));
    assert_eq!(mapping.schema().field(1).data_type(), &DataType::Binary);
    assert_eq!(name(1), None);
    assert_eq!(name(2).as_deref(), Some("geoarrow.wkb"));
}

#[test]
fn projection_from_dotted_paths() {
    let descriptor = parse_schema(NESTED).unwrap();
    let leaves = |paths: &[&str]| match Projection::from_paths(&descriptor, paths).unwrap() {
        Projection::Leaves(l) => l,
        other => panic!("{other:?}"),
    };
    assert_eq!(leaves(&["l"]), vec![4, 5]);
    assert_eq!(leaves(&["l.list.element.y", "id"]), vec![0, 5]);
    assert_eq!(leaves(&["mp.key_value.key"]), vec![6]);
    assert_eq!(leaves(&["s.inner", "s.inner.c"]), vec![2, 3]);
    let err = Projection::from_paths(&descriptor, &["s.missing"]).unwrap_err();
    assert!(err.to_string().contains("`s.missing`"), "{err}");
    // `s.in` is not a prefix of `s.inner` segment-wise.
    assert!(Projection::from_paths(&descriptor, &["s.in"]).is_err());
    let mapping = parquet_to_arrow(&descriptor, None, &SchemaOptions::default()).unwrap();
    let projected = mapping
        .project(&Projection::from_paths(&descriptor, &["mp.key_value.key"]).unwrap())
        .unwrap();
    assert_eq!(
        projected.leaf_columns(),
        vec![6, 7],
        "a map keeps its value"
    );
}

#[test]
fn deep_nesting_maps_without_overflow() {
    // Groups nested almost as deep as the descriptor allows (MAX_SCHEMA_DEPTH = 1000),
    // a repeated group every other level.
    let depth = 998;
    let mut text = String::from("message m {\n");
    for i in 0..depth {
        if i % 2 == 0 {
            text.push_str(&format!("optional group g{i} {{\n"));
        } else {
            text.push_str(&format!("repeated group r{i} {{\n"));
        }
    }
    text.push_str("optional int32 leaf;\n");
    for _ in 0..depth {
        text.push_str("}\n");
    }
    text.push('}');
    let descriptor = parse_schema(&text).unwrap();
    let mapping = parquet_to_arrow(&descriptor, None, &SchemaOptions::default()).unwrap();
    let mut field = &mapping.fields()[0];
    let mut groups = 0;
    loop {
        match &field.kind {
            ParquetFieldKind::Struct { children } => field = &children[0],
            ParquetFieldKind::List { element, .. } => field = element,
            ParquetFieldKind::Primitive { column, .. } => {
                assert_eq!(*column, 0);
                break;
            }
            ParquetFieldKind::Map { .. } => panic!("no maps here"),
        }
        groups += 1;
    }
    // Each repeated group is a list around a struct.
    assert_eq!(groups, depth + depth / 2);
    let column = descriptor.column(0).unwrap();
    assert_eq!(
        (field.def_level, field.rep_level),
        (column.max_def_level(), column.max_rep_level())
    );
}

#[test]
fn utc_time_zone_is_configurable() {
    let text = "message m { required int64 t (TIMESTAMP(MICROS,true)); required int64 n (TIMESTAMP(MICROS,false)); }";
    let options = SchemaOptions::new().with_utc_time_zone("UTC");
    let got = types(&map_with(text, &options, None));
    assert_eq!(
        got[0].1,
        DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    );
    assert_eq!(got[1].1, DataType::Timestamp(TimeUnit::Microsecond, None));
    assert_eq!(types(&map(text))[0].1, utc(TimeUnit::Microsecond));
}

//! `SchemaDescriptor::new`: tree building, levels, and every validation rule (the error
//! and its message, or the tolerated case), plus hostile element lists.

use bytes::Bytes;
use herringbone_format::ErrorKind;
use herringbone_format::metadata::{
    ConvertedType, FieldRepetitionType, LogicalType, SchemaElement, TimeUnit, Type,
};
use herringbone_format::schema::{
    ColumnPath, MAX_SCHEMA_DEPTH, MAX_TOTAL_PATH_NAMES, NodeKind, SchemaDescriptor, parse_schema,
};
use proptest::prelude::*;

const REQUIRED: FieldRepetitionType = FieldRepetitionType::REQUIRED;
const OPTIONAL: FieldRepetitionType = FieldRepetitionType::OPTIONAL;
const REPEATED: FieldRepetitionType = FieldRepetitionType::REPEATED;

fn root(children: i32) -> SchemaElement {
    SchemaElement {
        name: "schema".into(),
        num_children: Some(children),
        ..Default::default()
    }
}

fn group(name: &str, children: i32, repetition: FieldRepetitionType) -> SchemaElement {
    SchemaElement {
        name: name.into(),
        num_children: Some(children),
        repetition_type: Some(repetition),
        ..Default::default()
    }
}

fn leaf(name: &str, physical: Type, repetition: FieldRepetitionType) -> SchemaElement {
    SchemaElement {
        name: name.into(),
        type_: Some(physical),
        repetition_type: Some(repetition),
        ..Default::default()
    }
}

fn flba(name: &str, length: i32) -> SchemaElement {
    SchemaElement {
        type_length: Some(length),
        ..leaf(name, Type::FIXED_LEN_BYTE_ARRAY, REQUIRED)
    }
}

fn with_logical(mut e: SchemaElement, logical: LogicalType) -> SchemaElement {
    e.logical_type = Some(logical);
    e
}

fn with_converted(mut e: SchemaElement, converted: ConvertedType) -> SchemaElement {
    e.converted_type = Some(converted);
    e
}

/// The error message of building `elements`, asserting it is an `Invalid` error.
fn invalid(elements: &[SchemaElement]) -> String {
    let err = SchemaDescriptor::new(elements).expect_err("schema should be refused");
    assert_eq!(err.kind(), ErrorKind::Invalid, "{err}");
    err.to_string()
}

/// Builds a one-leaf schema.
fn single(e: SchemaElement) -> herringbone_format::Result<SchemaDescriptor> {
    SchemaDescriptor::new(&[root(1), e])
}

fn single_err(e: SchemaElement) -> String {
    invalid(&[root(1), e])
}

#[test]
fn nested_tree_levels_paths_and_root_fields() {
    // message schema {
    //   required int32 id;
    //   optional group a (LIST) { repeated group list { optional binary element (STRING); } }
    //   optional group m (MAP) { repeated group key_value { required binary key; optional int64 value; } }
    //   repeated int32 r;
    // }
    let elements = vec![
        root(4),
        leaf("id", Type::INT32, REQUIRED),
        with_converted(
            with_logical(group("a", 1, OPTIONAL), LogicalType::List),
            ConvertedType::LIST,
        ),
        group("list", 1, REPEATED),
        with_logical(
            leaf("element", Type::BYTE_ARRAY, OPTIONAL),
            LogicalType::String,
        ),
        with_converted(group("m", 1, OPTIONAL), ConvertedType::MAP),
        with_converted(
            group("key_value", 2, REPEATED),
            ConvertedType::MAP_KEY_VALUE,
        ),
        leaf("key", Type::BYTE_ARRAY, REQUIRED),
        leaf("value", Type::INT64, OPTIONAL),
        leaf("r", Type::INT32, REPEATED),
    ];
    let schema = SchemaDescriptor::new(&elements).unwrap();
    assert_eq!(schema.name(), "schema");
    assert_eq!(schema.num_columns(), 5);
    let summary: Vec<(String, i16, i16, usize)> = schema
        .columns()
        .iter()
        .map(|c| {
            (
                c.path().to_string(),
                c.max_def_level(),
                c.max_rep_level(),
                c.root_field_index(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("id".to_owned(), 0, 0, 0),
            ("a.list.element".to_owned(), 3, 1, 1),
            ("m.key_value.key".to_owned(), 2, 1, 2),
            ("m.key_value.value".to_owned(), 3, 1, 2),
            ("r".to_owned(), 1, 1, 3),
        ]
    );
    assert_eq!(
        (0..5)
            .map(|i| schema.leaf_to_root_field(i).unwrap())
            .collect::<Vec<_>>(),
        vec![0, 1, 2, 2, 3]
    );
    assert_eq!(schema.leaf_to_root_field(5), None);
    assert!(schema.column(5).is_none());

    // Lookups.
    assert_eq!(
        schema.column_index_by_dotted_path("m.key_value.value"),
        Some(3)
    );
    assert_eq!(schema.column_index_by_dotted_path("m.key_value"), None);
    assert_eq!(
        schema
            .column_by_dotted_path("a.list.element")
            .unwrap()
            .name(),
        "element"
    );
    let path = ColumnPath::from(&["m", "key_value", "key"][..]);
    assert_eq!(schema.column_index(&path), Some(2));
    assert_eq!(path.to_string(), "m.key_value.key");
    assert_eq!(path.parts().len(), 3);

    // Tree navigation.
    let root_node = schema.root();
    assert!(root_node.is_group());
    let top: Vec<&str> = schema.children(root_node).map(|n| n.name()).collect();
    assert_eq!(top, ["id", "a", "m", "r"]);
    let element = schema.node(schema.column(1).unwrap().node_id()).unwrap();
    assert_eq!(element.id(), 4);
    assert_eq!(element.parent(), Some(3));
    assert_eq!(schema.node(3).unwrap().name(), "list");
    assert!(matches!(
        element.kind(),
        NodeKind::Primitive {
            physical_type: Type::BYTE_ARRAY,
            column: 1,
            ..
        }
    ));

    // Resolved annotations: LogicalType, or derived from the ConvertedType.
    let string = schema.column(1).unwrap();
    assert_eq!(string.logical_type(), Some(&LogicalType::String));
    assert_eq!(string.converted_type(), Some(ConvertedType::UTF8));
    assert_eq!(string.repetition(), OPTIONAL);
    let m = schema.node(5).unwrap();
    assert_eq!(m.logical_type(), None);
    assert_eq!(m.resolved_logical_type(), Some(LogicalType::Map));
    assert_eq!(
        schema.node(6).unwrap().resolved_logical_type(),
        Some(LogicalType::Map)
    );

    assert_eq!(schema.to_elements(), elements);
}

#[test]
fn descriptors_can_be_shared_across_threads() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<SchemaDescriptor>();
    shareable::<herringbone_format::schema::ColumnDescriptor>();
    shareable::<herringbone_format::schema::Node>();
}

#[test]
fn column_descriptor_reports_decimal_and_flba_fields() {
    let mut d = flba("d", 16);
    d.converted_type = Some(ConvertedType::DECIMAL);
    d.precision = Some(38);
    d.scale = Some(10);
    let schema = single(d).unwrap();
    let c = schema.column(0).unwrap();
    assert_eq!(c.physical_type(), Type::FIXED_LEN_BYTE_ARRAY);
    assert_eq!(c.type_length(), Some(16));
    assert_eq!((c.precision(), c.scale()), (Some(38), Some(10)));
    assert_eq!(
        c.logical_type(),
        Some(&LogicalType::Decimal {
            scale: 10,
            precision: 38
        })
    );
    assert_eq!(c.converted_type(), Some(ConvertedType::DECIMAL));

    // A LogicalType written without the legacy precision/scale fields still reports them.
    let e = with_logical(
        leaf("e", Type::INT64, OPTIONAL),
        LogicalType::Decimal {
            scale: 3,
            precision: 12,
        },
    );
    let schema = single(e).unwrap();
    let c = schema.column(0).unwrap();
    assert_eq!((c.precision(), c.scale()), (Some(12), Some(3)));
    assert_eq!(schema.node(c.node_id()).unwrap().precision(), None);
    assert_eq!(c.converted_type(), Some(ConvertedType::DECIMAL));
}

#[test]
fn structural_errors_name_the_element() {
    let msg = invalid(&[]);
    assert!(msg.contains("empty"), "{msg}");

    let msg = invalid(&[leaf("schema", Type::INT32, REQUIRED)]);
    assert!(
        msg.contains("root element `schema` is not a group"),
        "{msg}"
    );

    let mut typed_root = root(1);
    typed_root.type_ = Some(Type::INT32);
    let msg = invalid(&[typed_root, leaf("a", Type::INT32, REQUIRED)]);
    assert!(msg.contains("a group has physical type INT32"), "{msg}");

    let msg = invalid(&[root(-1)]);
    assert!(msg.contains("negative num_children -1"), "{msg}");

    let msg = invalid(&[root(3), leaf("a", Type::INT32, REQUIRED)]);
    assert!(
        msg.contains("num_children 3 exceeds the 1 elements that follow"),
        "{msg}"
    );

    let msg = invalid(&[
        root(2),
        group("g", -5, OPTIONAL),
        leaf("b", Type::INT32, REQUIRED),
    ]);
    assert!(
        msg.contains("element 1 (`g`): negative num_children -5"),
        "{msg}"
    );

    // Elements left over after the root's subtree.
    let msg = invalid(&[
        root(1),
        leaf("a", Type::INT32, REQUIRED),
        leaf("b", Type::INT32, REQUIRED),
    ]);
    assert!(msg.contains("element 2 (`b`) is outside the tree"), "{msg}");

    // The group takes both leaves; the root's second child is missing.
    let msg = invalid(&[
        root(2),
        group("g", 2, OPTIONAL),
        leaf("a", Type::INT32, REQUIRED),
        leaf("b", Type::INT32, REQUIRED),
    ]);
    assert!(
        msg.contains("element 0 (`schema`): declares 2 children") && msg.contains("1 short"),
        "{msg}"
    );

    let mut untyped = leaf("x", Type::INT32, REQUIRED);
    untyped.type_ = None;
    let msg = single_err(untyped);
    assert!(
        msg.contains("element 1 (`x`): a leaf has no physical type"),
        "{msg}"
    );

    let mut typed_group = group("g", 1, OPTIONAL);
    typed_group.type_ = Some(Type::INT64);
    let msg = invalid(&[root(1), typed_group, leaf("a", Type::INT32, REQUIRED)]);
    assert!(
        msg.contains("element 1 (`g`): a group (1 children) has physical type INT64"),
        "{msg}"
    );

    let msg = single_err(leaf("t", Type(-7), OPTIONAL));
    assert!(msg.contains("unknown physical type Type(-7)"), "{msg}");

    let msg = single_err(leaf("t", Type::INT32, FieldRepetitionType(5)));
    assert!(
        msg.contains("invalid repetition_type FieldRepetitionType(5)"),
        "{msg}"
    );

    for bad in [None, Some(0), Some(-3)] {
        let mut f = flba("f", 1);
        f.type_length = bad;
        let msg = single_err(f);
        assert!(
            msg.contains("FIXED_LEN_BYTE_ARRAY needs a positive type_length"),
            "{msg}"
        );
    }
    // Paths in messages are dotted from the top-level field.
    let msg = invalid(&[
        root(1),
        group("outer", 1, OPTIONAL),
        with_logical(leaf("inner", Type::INT32, OPTIONAL), LogicalType::String),
    ]);
    assert!(msg.contains("element 2 (`outer.inner`)"), "{msg}");
}

#[test]
fn tolerated_structures() {
    // Missing repetition below the root reads as REQUIRED (parquet-cpp does the same).
    let mut e = leaf("a", Type::INT32, REQUIRED);
    e.repetition_type = None;
    let schema = single(e).unwrap();
    assert_eq!(schema.column(0).unwrap().repetition(), REQUIRED);
    assert_eq!(schema.column(0).unwrap().max_def_level(), 0);
    let leaf_node = schema.node(schema.column(0).unwrap().node_id()).unwrap();
    assert_eq!(leaf_node.repetition(), None);

    // num_children = 0 on a leaf (parquet-cpp writes it).
    let mut e = leaf("a", Type::INT32, OPTIONAL);
    e.num_children = Some(0);
    let schema = single(e.clone()).unwrap();
    assert_eq!(schema.num_columns(), 1);
    assert_eq!(schema.to_elements(), vec![root(1), e]);

    // An empty group, and a schema with no columns at all.
    let schema = SchemaDescriptor::new(&[
        root(2),
        group("empty", 0, OPTIONAL),
        leaf("a", Type::INT32, OPTIONAL),
    ])
    .unwrap();
    assert_eq!(schema.num_columns(), 1);
    assert_eq!(schema.leaf_to_root_field(0), Some(1));
    let schema = SchemaDescriptor::new(&[root(0)]).unwrap();
    assert_eq!(schema.num_columns(), 0);
    assert_eq!(schema.to_text(), "message schema {\n}\n");
}

fn decimal(physical: Type, length: Option<i32>, precision: i32, scale: i32) -> SchemaElement {
    let mut e = leaf("d", physical, OPTIONAL);
    e.type_length = length;
    with_logical(e, LogicalType::Decimal { scale, precision })
}

#[test]
fn decimal_rules() {
    let ok = [
        (Type::INT32, None, 1, 0),
        (Type::INT32, None, 9, 9),
        (Type::INT64, None, 18, 2),
        (Type::INT64, None, 5, 2), // precision < 10 on INT64: allowed (spec: a warning)
        (Type::FIXED_LEN_BYTE_ARRAY, Some(4), 9, 0),
        (Type::FIXED_LEN_BYTE_ARRAY, Some(11), 26, 2),
        (Type::FIXED_LEN_BYTE_ARRAY, Some(16), 38, 0),
        (Type::BYTE_ARRAY, None, 500, 10),
    ];
    for (physical, length, p, s) in ok {
        single(decimal(physical, length, p, s))
            .unwrap_or_else(|e| panic!("{physical} {length:?} ({p},{s}): {e}"));
    }
    let refused = [
        (Type::INT32, None, 10, 0, "INT32 holds at most 9 digits"),
        (Type::INT64, None, 19, 0, "INT64 holds at most 18 digits"),
        (
            Type::FIXED_LEN_BYTE_ARRAY,
            Some(4),
            10,
            0,
            "FIXED_LEN_BYTE_ARRAY(4) holds at most 9 digits",
        ),
        (
            Type::FIXED_LEN_BYTE_ARRAY,
            Some(16),
            39,
            0,
            "FIXED_LEN_BYTE_ARRAY(16) holds at most 38 digits",
        ),
        (Type::INT32, None, 0, 0, "precision must be positive, got 0"),
        (
            Type::BYTE_ARRAY,
            None,
            -2,
            0,
            "precision must be positive, got -2",
        ),
        (Type::INT64, None, 5, 6, "scale 6 is outside 0..=5"),
        (Type::INT64, None, 5, -1, "scale -1 is outside 0..=5"),
        (Type::DOUBLE, None, 5, 1, "DECIMAL cannot annotate DOUBLE"),
    ];
    for (physical, length, p, s, expected) in refused {
        let msg = single_err(decimal(physical, length, p, s));
        assert!(msg.contains(expected), "{physical} ({p},{s}): {msg}");
    }

    // The legacy form: precision from the element, scale defaulting to 0.
    let mut legacy = with_converted(leaf("d", Type::INT32, OPTIONAL), ConvertedType::DECIMAL);
    legacy.precision = Some(7);
    let schema = single(legacy.clone()).unwrap();
    assert_eq!(
        schema.column(0).unwrap().logical_type(),
        Some(&LogicalType::Decimal {
            scale: 0,
            precision: 7
        })
    );
    legacy.precision = None;
    let msg = single_err(legacy);
    assert!(msg.contains("DECIMAL without a precision"), "{msg}");
}

#[test]
fn logical_type_placement_rules() {
    use LogicalType as L;
    let time = |unit| L::Time {
        is_adjusted_to_utc: true,
        unit,
    };
    let ts = |unit| L::Timestamp {
        is_adjusted_to_utc: false,
        unit,
    };
    let int = |bit_width, is_signed| L::Integer {
        bit_width,
        is_signed,
    };
    let geometry = L::Geometry { crs: None };
    let geography = L::Geography {
        crs: Some("OGC:CRS84".into()),
        algorithm: None,
    };
    let prim = |t: Type| leaf("c", t, OPTIONAL);
    let ok: Vec<(SchemaElement, L)> = vec![
        (prim(Type::BYTE_ARRAY), L::String),
        (prim(Type::BYTE_ARRAY), L::Enum),
        (prim(Type::BYTE_ARRAY), L::Json),
        (prim(Type::BYTE_ARRAY), L::Bson),
        (prim(Type::BYTE_ARRAY), geometry.clone()),
        (prim(Type::BYTE_ARRAY), geography.clone()),
        (prim(Type::INT32), L::Date),
        (prim(Type::INT32), time(TimeUnit::Millis)),
        (prim(Type::INT64), time(TimeUnit::Micros)),
        (prim(Type::INT64), time(TimeUnit::Nanos)),
        (prim(Type::INT64), ts(TimeUnit::Millis)),
        (prim(Type::INT64), ts(TimeUnit::Nanos)),
        (prim(Type::INT32), int(8, true)),
        (prim(Type::INT32), int(16, false)),
        (prim(Type::INT32), int(32, false)),
        (prim(Type::INT64), int(64, false)),
        (flba("c", 16), L::Uuid),
        (flba("c", 2), L::Float16),
        (prim(Type::INT32), L::Unknown),
        (prim(Type::BOOLEAN), L::Unknown),
    ];
    for (e, logical) in ok {
        let physical = e.type_.unwrap();
        single(with_logical(e, logical.clone()))
            .unwrap_or_else(|err| panic!("{logical:?} on {physical}: {err}"));
    }
    let refused: Vec<(SchemaElement, L, &str)> = vec![
        (
            prim(Type::INT32),
            L::String,
            "must annotate BYTE_ARRAY, not INT32",
        ),
        (
            flba("c", 4),
            L::Enum,
            "must annotate BYTE_ARRAY, not FIXED_LEN_BYTE_ARRAY(4)",
        ),
        (prim(Type::INT64), L::Json, "must annotate BYTE_ARRAY"),
        (prim(Type::INT96), L::Bson, "must annotate BYTE_ARRAY"),
        (flba("c", 8), geometry, "must annotate BYTE_ARRAY"),
        (prim(Type::INT64), geography, "must annotate BYTE_ARRAY"),
        (prim(Type::INT64), L::Date, "must annotate INT32, not INT64"),
        (
            prim(Type::INT64),
            time(TimeUnit::Millis),
            "must annotate INT32",
        ),
        (
            prim(Type::INT32),
            time(TimeUnit::Micros),
            "must annotate INT64",
        ),
        (
            prim(Type::INT32),
            time(TimeUnit::Nanos),
            "must annotate INT64",
        ),
        (
            prim(Type::INT96),
            ts(TimeUnit::Nanos),
            "must annotate INT64, not INT96",
        ),
        (
            prim(Type::INT32),
            ts(TimeUnit::Millis),
            "must annotate INT64",
        ),
        (
            prim(Type::INT32),
            int(64, true),
            "must annotate INT64, not INT32",
        ),
        (
            prim(Type::INT64),
            int(32, true),
            "must annotate INT32, not INT64",
        ),
        (
            prim(Type::INT32),
            int(7, true),
            "bit width 7 is not one of 8, 16, 32, 64",
        ),
        (prim(Type::BYTE_ARRAY), int(8, true), "must annotate INT32"),
        (
            flba("c", 15),
            L::Uuid,
            "must annotate FIXED_LEN_BYTE_ARRAY(16)",
        ),
        (
            prim(Type::BYTE_ARRAY),
            L::Uuid,
            "must annotate FIXED_LEN_BYTE_ARRAY(16)",
        ),
        (
            flba("c", 4),
            L::Float16,
            "must annotate FIXED_LEN_BYTE_ARRAY(2)",
        ),
        (prim(Type::INT32), L::List, "must annotate a group"),
        (prim(Type::BYTE_ARRAY), L::Map, "must annotate a group"),
        (
            prim(Type::BYTE_ARRAY),
            L::Variant {
                specification_version: Some(1),
            },
            "must annotate a group",
        ),
    ];
    for (e, logical, expected) in refused {
        let msg = single_err(with_logical(e, logical.clone()));
        assert!(msg.contains(expected), "{logical:?}: {msg}");
    }
}

#[test]
fn converted_type_placement_rules() {
    use ConvertedType as C;
    let prim = |t: Type| leaf("c", t, OPTIONAL);
    let ok: Vec<(SchemaElement, C)> = vec![
        (prim(Type::BYTE_ARRAY), C::UTF8),
        (prim(Type::BYTE_ARRAY), C::ENUM),
        (prim(Type::BYTE_ARRAY), C::JSON),
        (prim(Type::BYTE_ARRAY), C::BSON),
        (prim(Type::INT32), C::DATE),
        (prim(Type::INT32), C::TIME_MILLIS),
        (prim(Type::INT64), C::TIME_MICROS),
        (prim(Type::INT64), C::TIMESTAMP_MILLIS),
        (prim(Type::INT64), C::TIMESTAMP_MICROS),
        (prim(Type::INT32), C::INT_8),
        (prim(Type::INT32), C::UINT_32),
        (prim(Type::INT64), C::INT_64),
        (prim(Type::INT64), C::UINT_64),
        (flba("c", 12), C::INTERVAL),
        (prim(Type::INT32), C(77)),
    ];
    for (e, converted) in ok {
        single(with_converted(e, converted)).unwrap_or_else(|err| panic!("{converted:?}: {err}"));
    }
    let refused: Vec<(SchemaElement, C, &str)> = vec![
        (
            prim(Type::INT32),
            C::UTF8,
            "UTF8 must annotate BYTE_ARRAY, not INT32",
        ),
        (prim(Type::INT64), C::DATE, "DATE must annotate INT32"),
        (prim(Type::INT64), C::TIME_MILLIS, "must annotate INT32"),
        (
            prim(Type::INT32),
            C::TIMESTAMP_MILLIS,
            "must annotate INT64",
        ),
        (
            prim(Type::INT96),
            C::TIMESTAMP_MICROS,
            "must annotate INT64, not INT96",
        ),
        (prim(Type::INT64), C::INT_8, "must annotate INT32"),
        (prim(Type::INT32), C::UINT_64, "must annotate INT64"),
        (
            flba("c", 8),
            C::INTERVAL,
            "must annotate FIXED_LEN_BYTE_ARRAY(12)",
        ),
        (prim(Type::INT32), C::LIST, "must annotate a group"),
        (prim(Type::INT32), C::MAP_KEY_VALUE, "must annotate a group"),
    ];
    for (e, converted, expected) in refused {
        let msg = single_err(with_converted(e, converted));
        assert!(msg.contains(expected), "{converted:?}: {msg}");
    }
}

#[test]
fn group_annotation_rules() {
    let child = leaf("x", Type::INT32, REQUIRED);
    let build = |g: SchemaElement| SchemaDescriptor::new(&[root(1), g, child.clone()]);
    for logical in [
        LogicalType::List,
        LogicalType::Map,
        LogicalType::Variant {
            specification_version: None,
        },
        LogicalType::Unrecognized {
            field_id: 40,
            raw: Bytes::from_static(&[0]),
        },
    ] {
        build(with_logical(group("g", 1, OPTIONAL), logical.clone()))
            .unwrap_or_else(|e| panic!("{logical:?}: {e}"));
    }
    for converted in [
        ConvertedType::LIST,
        ConvertedType::MAP,
        ConvertedType::MAP_KEY_VALUE,
        ConvertedType(55),
    ] {
        build(with_converted(group("g", 1, OPTIONAL), converted))
            .unwrap_or_else(|e| panic!("{converted:?}: {e}"));
    }
    let err = build(with_logical(group("g", 1, OPTIONAL), LogicalType::String)).unwrap_err();
    assert!(
        err.to_string()
            .contains("logical type String cannot annotate a group"),
        "{err}"
    );
    let err = build(with_converted(group("g", 1, OPTIONAL), ConvertedType::UTF8)).unwrap_err();
    assert!(
        err.to_string()
            .contains("converted type UTF8 cannot annotate a group"),
        "{err}"
    );
}

#[test]
fn unknown_annotations_are_carried_and_logical_type_wins() {
    // An unrecognized LogicalType falls back to the ConvertedType, if any.
    let raw = LogicalType::Unrecognized {
        field_id: 2555,
        raw: Bytes::from_static(&[0]),
    };
    let e = with_converted(
        with_logical(leaf("u", Type::BYTE_ARRAY, OPTIONAL), raw.clone()),
        ConvertedType::UTF8,
    );
    let schema = single(e).unwrap();
    let c = schema.column(0).unwrap();
    assert_eq!(schema.node(c.node_id()).unwrap().logical_type(), Some(&raw));
    assert_eq!(c.logical_type(), Some(&LogicalType::String));
    let schema = single(with_logical(leaf("u", Type::INT32, OPTIONAL), raw)).unwrap();
    assert_eq!(schema.column(0).unwrap().logical_type(), None);
    assert_eq!(schema.column(0).unwrap().converted_type(), None);

    // An unknown ConvertedType value: carried, no resolved annotation.
    let schema = single(with_converted(
        leaf("u", Type::INT32, OPTIONAL),
        ConvertedType(300),
    ))
    .unwrap();
    let c = schema.column(0).unwrap();
    assert_eq!(c.converted_type(), Some(ConvertedType(300)));
    assert_eq!(c.logical_type(), None);

    // Disagreeing annotations: the LogicalType decides, the stored ConvertedType stays.
    let e = with_converted(
        with_logical(
            leaf("t", Type::INT64, OPTIONAL),
            LogicalType::Timestamp {
                is_adjusted_to_utc: false,
                unit: TimeUnit::Nanos,
            },
        ),
        ConvertedType::TIMESTAMP_MILLIS,
    );
    let schema = single(e).unwrap();
    let c = schema.column(0).unwrap();
    assert_eq!(
        c.logical_type(),
        Some(&LogicalType::Timestamp {
            is_adjusted_to_utc: false,
            unit: TimeUnit::Nanos
        })
    );
    assert_eq!(c.converted_type(), Some(ConvertedType::TIMESTAMP_MILLIS));

    // A LogicalType with no stored ConvertedType gets the forward-table one.
    let schema = single(with_logical(
        leaf("t", Type::INT64, OPTIONAL),
        LogicalType::Timestamp {
            is_adjusted_to_utc: false,
            unit: TimeUnit::Micros,
        },
    ))
    .unwrap();
    assert_eq!(
        schema.column(0).unwrap().converted_type(),
        Some(ConvertedType::TIMESTAMP_MICROS)
    );
}

/// root -> g1 -> g2 -> ... -> g{depth} -> leaf
fn chain(depth: usize) -> Vec<SchemaElement> {
    let mut elements = vec![root(1)];
    for i in 0..depth {
        elements.push(group(&format!("g{i}"), 1, OPTIONAL));
    }
    elements.push(leaf("leaf", Type::INT32, OPTIONAL));
    elements
}

#[test]
fn nesting_limit_and_deep_schemas() {
    let deepest = SchemaDescriptor::new(&chain(MAX_SCHEMA_DEPTH)).unwrap();
    let c = deepest.column(0).unwrap();
    assert_eq!(c.max_def_level(), (MAX_SCHEMA_DEPTH + 1) as i16);
    assert_eq!(c.path().parts().len(), MAX_SCHEMA_DEPTH + 1);
    // Printing and parsing the deepest allowed schema works without recursion.
    let text = deepest.to_text();
    assert_eq!(parse_schema(&text).unwrap(), deepest);

    let err = SchemaDescriptor::new(&chain(MAX_SCHEMA_DEPTH + 1)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err}");
    assert!(err.to_string().contains("nest deeper than"), "{err}");

    // A hostile footer claiming 10,000 levels: an error, no stack overflow.
    let err = SchemaDescriptor::new(&chain(10_000)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);

    // The same in text.
    let mut text = String::from("message m {\n");
    for i in 0..10_000 {
        text.push_str(&format!("optional group g{i} {{\n"));
    }
    let err = parse_schema(&text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err}");
}

#[test]
fn hostile_child_counts_do_not_allocate_or_panic() {
    let msg = invalid(&[root(i32::MAX), leaf("a", Type::INT32, REQUIRED)]);
    assert!(msg.contains("exceeds"), "{msg}");
    let msg = invalid(&[root(i32::MIN)]);
    assert!(msg.contains("negative"), "{msg}");
    // Wide but honest: 20,000 leaves.
    let mut wide = vec![root(20_000)];
    wide.extend((0..20_000).map(|i| leaf(&format!("c{i}"), Type::INT64, OPTIONAL)));
    let schema = SchemaDescriptor::new(&wide).unwrap();
    assert_eq!(schema.num_columns(), 20_000);
    assert_eq!(schema.column_index_by_dotted_path("c19999"), Some(19_999));
}

#[test]
fn deep_and_wide_schemas_hit_the_path_budget_not_memory() {
    // 1,000 nested groups, then 5,000 leaves at the bottom: 5 million path names.
    let leaves = 5_000;
    let mut elements = vec![root(1)];
    for i in 0..MAX_SCHEMA_DEPTH {
        let children = if i + 1 == MAX_SCHEMA_DEPTH { leaves } else { 1 };
        elements.push(group(&format!("g{i}"), children, OPTIONAL));
    }
    elements.extend((0..leaves).map(|i| leaf(&format!("c{i}"), Type::INT32, OPTIONAL)));
    let err = SchemaDescriptor::new(&elements).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err}");
    assert!(
        err.to_string()
            .contains(&format!("more than {MAX_TOTAL_PATH_NAMES} names")),
        "{err}"
    );
    // The same shape with fewer leaves is fine.
    let last = elements.len() - leaves as usize - 1;
    elements[last].num_children = Some(100);
    elements.truncate(last + 1 + 100);
    let schema = SchemaDescriptor::new(&elements).unwrap();
    assert_eq!(schema.num_columns(), 100);
    assert_eq!(
        schema.column(99).unwrap().path().parts().len(),
        MAX_SCHEMA_DEPTH + 1
    );
}

fn arbitrary_element() -> impl Strategy<Value = SchemaElement> {
    (
        prop::option::of(-2i32..9),
        prop::option::of(-2i32..20),
        prop::option::of(-1i32..4),
        prop::option::of(-3i32..6),
        prop::option::of(-1i32..23),
        prop::option::of(-2i32..40),
        prop::option::of(-2i32..40),
        "[a-c]{0,2}",
    )
        .prop_map(
            |(t, len, rep, children, converted, scale, precision, name)| SchemaElement {
                type_: t.map(Type),
                type_length: len,
                repetition_type: rep.map(FieldRepetitionType),
                name: name.into(),
                num_children: children,
                converted_type: converted.map(ConvertedType),
                scale,
                precision,
                field_id: None,
                logical_type: None,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any element list either builds a consistent tree or is refused; never a panic.
    #[test]
    fn arbitrary_element_lists_never_panic(elements in prop::collection::vec(arbitrary_element(), 0..40)) {
        if let Ok(schema) = SchemaDescriptor::new(&elements) {
            prop_assert_eq!(schema.to_elements(), elements.clone());
            let leaves = elements.iter().skip(1).filter(|e| e.type_.is_some() && e.num_children.unwrap_or(0) == 0).count();
            prop_assert_eq!(schema.num_columns(), leaves);
            for c in schema.columns() {
                prop_assert!(c.max_rep_level() <= c.max_def_level());
                prop_assert!(c.root_field_index() < schema.root().children().len());
            }
            // Whatever builds also prints and parses back.
            let text = schema.to_text();
            let reparsed = parse_schema(&text);
            prop_assert!(reparsed.is_ok(), "{:?}\n{}", reparsed.err(), text);
        }
    }
}

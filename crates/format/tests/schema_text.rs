//! The textual schema: exact printing, parsing (parquet-mr, arrow-rs and legacy
//! spellings), parse errors with positions, and print -> parse round trips of generated
//! schemas.

use herringbone_format::ErrorKind;
use herringbone_format::metadata::{
    ConvertedType, EdgeInterpolationAlgorithm, FieldRepetitionType, LogicalType, SchemaElement,
    TimeUnit, Type,
};
use herringbone_format::schema::{SchemaDescriptor, parse_message_type, parse_schema};
use proptest::prelude::*;

const EVERY_ANNOTATION: &str = "\
message schema {
  required int32 a (INTEGER(8,true)) = 3;
  optional binary s (STRING);
  optional group b (LIST) {
    repeated group list {
      optional int64 element;
    }
  }
  required fixed_len_byte_array(16) u (UUID);
  optional int64 ts (TIMESTAMP(MICROS,true));
  optional int64 local (TIMESTAMP(NANOS,false));
  required int32 d (DECIMAL(9,2));
  optional fixed_len_byte_array(11) big (DECIMAL(25,2));
  optional binary bd (DECIMAL(40,0));
  optional int32 day (DATE);
  optional int32 t1 (TIME(MILLIS,true));
  optional int64 t2 (TIME(NANOS,false));
  optional int64 u64 (INTEGER(64,false));
  optional binary e (ENUM);
  optional binary j (JSON);
  optional binary bs (BSON);
  optional fixed_len_byte_array(2) h (FLOAT16);
  optional int32 n (UNKNOWN);
  optional boolean flag;
  optional int96 legacy_ts;
  optional float f;
  optional double g;
  optional group m (MAP) = 7 {
    repeated group key_value {
      required binary key (STRING);
      optional int32 value;
    }
  }
  optional group v (VARIANT(1)) {
    required binary metadata;
    optional binary value;
  }
  optional binary geo (GEOMETRY);
  optional binary geo_crs (GEOMETRY(srid:5070));
  optional binary gg (GEOGRAPHY);
  optional binary gg_full (GEOGRAPHY(OGC:CRS84,KARNEY));
  optional binary old_string (UTF8);
  optional int64 old_ts (TIMESTAMP_MILLIS);
  optional int32 old_byte (INT_8);
  optional fixed_len_byte_array(12) iv (INTERVAL);
  optional group old_map (MAP) {
    repeated group map (MAP_KEY_VALUE) {
      required binary key (UTF8);
    }
  }
  repeated int32 plain_repeated;
}
";

#[test]
fn prints_every_annotation_as_parquet_mr_does_and_reads_it_back() {
    let elements = parse_message_type(EVERY_ANNOTATION).unwrap();
    let schema = SchemaDescriptor::new(&elements).unwrap();
    assert_eq!(schema.to_text(), EVERY_ANNOTATION);
    assert_eq!(schema.to_string(), EVERY_ANNOTATION);
    assert_eq!(parse_message_type(&schema.to_text()).unwrap(), elements);

    let find = |name: &str| elements.iter().find(|e| e.name == name).unwrap();
    let a = find("a");
    assert_eq!(a.type_, Some(Type::INT32));
    assert_eq!(a.repetition_type, Some(FieldRepetitionType::REQUIRED));
    assert_eq!(a.field_id, Some(3));
    assert_eq!(
        a.logical_type,
        Some(LogicalType::Integer {
            bit_width: 8,
            is_signed: true
        })
    );
    assert_eq!(a.converted_type, Some(ConvertedType::INT_8));
    let u = find("u");
    assert_eq!(
        (u.type_, u.type_length),
        (Some(Type::FIXED_LEN_BYTE_ARRAY), Some(16))
    );
    assert_eq!(u.logical_type, Some(LogicalType::Uuid));
    assert_eq!(u.converted_type, None);
    let local = find("local");
    assert_eq!(
        local.logical_type,
        Some(LogicalType::Timestamp {
            is_adjusted_to_utc: false,
            unit: TimeUnit::Nanos
        })
    );
    assert_eq!(local.converted_type, None);
    let big = find("big");
    assert_eq!((big.precision, big.scale), (Some(25), Some(2)));
    assert_eq!(big.converted_type, Some(ConvertedType::DECIMAL));
    let m = find("m");
    assert_eq!((m.num_children, m.field_id), (Some(1), Some(7)));
    assert_eq!(m.converted_type, Some(ConvertedType::MAP));
    assert_eq!(
        find("v").logical_type,
        Some(LogicalType::Variant {
            specification_version: Some(1)
        })
    );
    assert_eq!(
        find("geo_crs").logical_type,
        Some(LogicalType::Geometry {
            crs: Some("srid:5070".into())
        })
    );
    assert_eq!(
        find("gg_full").logical_type,
        Some(LogicalType::Geography {
            crs: Some("OGC:CRS84".into()),
            algorithm: Some(EdgeInterpolationAlgorithm::KARNEY)
        })
    );
    // Legacy spellings set only the ConvertedType.
    let old = find("old_ts");
    assert_eq!(
        (old.logical_type.clone(), old.converted_type),
        (None, Some(ConvertedType::TIMESTAMP_MILLIS))
    );
    assert_eq!(find("old_string").converted_type, Some(ConvertedType::UTF8));
    assert_eq!(find("iv").converted_type, Some(ConvertedType::INTERVAL));
    assert_eq!(
        find("map").converted_type,
        Some(ConvertedType::MAP_KEY_VALUE)
    );
    // ... and still resolve to a logical type on the descriptor.
    let old_ts = schema.column_by_dotted_path("old_ts").unwrap();
    assert_eq!(
        old_ts.logical_type(),
        Some(&LogicalType::Timestamp {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Millis
        })
    );
    let levels = schema.column_by_dotted_path("old_map.map.key").unwrap();
    assert_eq!((levels.max_def_level(), levels.max_rep_level()), (2, 1));
}

#[test]
fn parses_arrow_rs_uppercase_and_other_spellings() {
    let arrow_rs = "
        message spark_schema {
          REQUIRED INT32 a (INTEGER(8,true));
          OPTIONAL BYTE_ARRAY s (UTF8);
          REQUIRED FIXED_LEN_BYTE_ARRAY (16) u (UUID);
          OPTIONAL INT64 d (DECIMAL(12));
          OPTIONAL group l (LIST) {
            REPEATED group list {
              OPTIONAL INT32 element (int(16, false));
            }
          };
          optional int32 id_first = 12 (DATE);
          optional int64 lower (timestamp(millis,FALSE));
        };";
    let schema = parse_schema(arrow_rs).unwrap();
    assert_eq!(
        schema.to_text(),
        "message spark_schema {
  required int32 a (INTEGER(8,true));
  optional binary s (UTF8);
  required fixed_len_byte_array(16) u (UUID);
  optional int64 d (DECIMAL(12,0));
  optional group l (LIST) {
    repeated group list {
      optional int32 element (INTEGER(16,false));
    }
  }
  optional int32 id_first (DATE) = 12;
  optional int64 lower (TIMESTAMP(MILLIS,false));
}
"
    );
}

#[test]
fn parses_arrow_rs_59_printer_quirks() {
    // arrow-rs 59 prints field ids as `[id]`, VARIANT's version as an Option, and the
    // GEOGRAPHY algorithm before the CRS.
    let text = "message schema {
      REQUIRED INT32 id [1];
      OPTIONAL group var [2] (VARIANT(Some(1))) {
        REQUIRED BYTE_ARRAY metadata;
        REQUIRED BYTE_ARRAY value;
      }
      OPTIONAL group v0 (VARIANT(None)) {
        REQUIRED BYTE_ARRAY metadata;
        REQUIRED BYTE_ARRAY value;
      }
      OPTIONAL BYTE_ARRAY g1 (GEOGRAPHY(SPHERICAL));
      OPTIONAL BYTE_ARRAY g2 (GEOGRAPHY(KARNEY, OGC:CRS84));
    }";
    let elements = parse_message_type(text).unwrap();
    assert_eq!(elements[1].field_id, Some(1));
    assert_eq!(elements[2].field_id, Some(2));
    assert_eq!(
        elements[2].logical_type,
        Some(LogicalType::Variant {
            specification_version: Some(1)
        })
    );
    assert_eq!(
        elements[5].logical_type,
        Some(LogicalType::Variant {
            specification_version: None
        })
    );
    assert_eq!(
        elements[8].logical_type,
        Some(LogicalType::Geography {
            crs: None,
            algorithm: Some(EdgeInterpolationAlgorithm::SPHERICAL)
        })
    );
    assert_eq!(
        elements[9].logical_type,
        Some(LogicalType::Geography {
            crs: Some("OGC:CRS84".into()),
            algorithm: Some(EdgeInterpolationAlgorithm::KARNEY)
        })
    );
    // Our own printing keeps CRS and algorithm apart: a CRS spelled like an algorithm is
    // quoted.
    let schema = SchemaDescriptor::new(&elements).unwrap();
    assert!(
        schema
            .to_text()
            .contains("optional binary g1 (GEOGRAPHY(,SPHERICAL));"),
        "{}",
        schema.to_text()
    );
    let mut odd = elements.clone();
    odd[8].logical_type = Some(LogicalType::Geography {
        crs: Some("SPHERICAL".into()),
        algorithm: None,
    });
    let text = SchemaDescriptor::new(&odd).unwrap().to_text();
    assert!(text.contains("(GEOGRAPHY(\"SPHERICAL\"))"), "{text}");
    assert_eq!(parse_message_type(&text).unwrap()[8], odd[8]);
}

#[test]
fn names_and_crs_that_are_not_plain_words_are_quoted() {
    let mut elements = parse_message_type("message schema { optional binary x; }").unwrap();
    elements[0].name = "root with space".into();
    elements[1].name = "weird \"name\" \\ ;{}(),= \n\t\u{1}é".into();
    elements[1].logical_type = Some(LogicalType::Geometry {
        crs: Some("{\"type\": \"ProjectedCRS\", \"id\": [1, 2]}".into()),
    });
    elements.push(SchemaElement {
        name: "".into(),
        type_: Some(Type::BYTE_ARRAY),
        repetition_type: Some(FieldRepetitionType::OPTIONAL),
        logical_type: Some(LogicalType::Geography {
            crs: None,
            algorithm: Some(EdgeInterpolationAlgorithm::SPHERICAL),
        }),
        ..Default::default()
    });
    elements[0].num_children = Some(2);
    let schema = SchemaDescriptor::new(&elements).unwrap();
    let text = schema.to_text();
    assert_eq!(
        text,
        "message \"root with space\" {\n  optional binary \"weird \\\"name\\\" \\\\ ;{}(),= \\n\\t\\u{1}é\" \
         (GEOMETRY(\"{\\\"type\\\": \\\"ProjectedCRS\\\", \\\"id\\\": [1, 2]}\"));\n  \
         optional binary \"\" (GEOGRAPHY(,SPHERICAL));\n}\n"
    );
    assert_eq!(parse_message_type(&text).unwrap(), elements);
}

#[test]
fn unrecognized_logical_type_prints_its_converted_type() {
    let mut elements = parse_message_type("message m { optional binary x (UTF8); }").unwrap();
    elements[1].logical_type = Some(LogicalType::Unrecognized {
        field_id: 2555,
        raw: bytes::Bytes::from_static(&[0]),
    });
    let schema = SchemaDescriptor::new(&elements).unwrap();
    assert_eq!(
        schema.to_text(),
        "message m {\n  optional binary x (UTF8);\n}\n"
    );
    elements[1].converted_type = None;
    let schema = SchemaDescriptor::new(&elements).unwrap();
    assert_eq!(schema.to_text(), "message m {\n  optional binary x;\n}\n");
}

#[test]
fn parse_errors_say_what_and_where() {
    let cases: &[(&str, &str)] = &[
        ("", "line 1, column 1: expected `message`, found the end"),
        (
            "schema { }",
            "line 1, column 1: expected `message`, found `schema`",
        ),
        (
            "message m",
            "expected `{` after the message name, found the end",
        ),
        (
            "message m {\n  required int32 a\n}",
            "line 3, column 1: expected `;` after the field, found `}`",
        ),
        (
            "message m {\n  required int33 a;\n}",
            "line 2, column 12: expected `group` or a physical type, found `int33`",
        ),
        (
            "message m {\n  sometimes int32 a;\n}",
            "line 2, column 3: expected `required`, `optional`, `repeated` or `}`, found `sometimes`",
        ),
        (
            "message m { required int32 a (STRNG); }",
            "unknown annotation `STRNG`",
        ),
        (
            "message m { required int32 a (INTEGER(8)); }",
            "annotation INTEGER takes (bitWidth,isSigned), got 1 argument(s)",
        ),
        (
            "message m { required int32 a (INTEGER(x,true)); }",
            "INTEGER: bit width must be an integer",
        ),
        (
            "message m { required int64 a (TIMESTAMP(SECONDS,true)); }",
            "TIMESTAMP: unit must be MILLIS, MICROS or NANOS",
        ),
        (
            "message m { required int64 a (TIME(MILLIS,yes)); }",
            "TIME: isAdjustedToUTC must be true or false",
        ),
        (
            "message m { required binary a (STRING(1)); }",
            "annotation STRING takes no arguments",
        ),
        (
            "message m { required binary a (GEOGRAPHY(x,FLAT)); }",
            "GEOGRAPHY: unknown edge algorithm `FLAT`",
        ),
        (
            "message m { required fixed_len_byte_array a; }",
            "expected `(` before the FIXED_LEN_BYTE_ARRAY length, found `a`",
        ),
        (
            "message m { required fixed_len_byte_array(x) a; }",
            "expected the FIXED_LEN_BYTE_ARRAY length (an integer), found `x`",
        ),
        (
            "message m { required int32 a = x; }",
            "expected a field id (an integer), found `x`",
        ),
        (
            "message m { required int32 \"a; }",
            "line 1, column 28: unterminated quoted string",
        ),
        (
            "message m { required int32 \"a\\q\"; }",
            "unknown escape in a quoted string",
        ),
        (
            "message m { optional group g { required int32 a; }",
            "unclosed group: expected `}`, found the end",
        ),
        (
            "message m { required int32 a; } extra",
            "unexpected `extra` after the message",
        ),
    ];
    for (text, expected) in cases {
        let err = parse_message_type(text).expect_err(text);
        assert_eq!(err.kind(), ErrorKind::Invalid);
        assert!(
            err.to_string().contains(expected),
            "{text:?}: got {err}, expected {expected:?}"
        );
    }
    // Well-formed text with a schema error is caught by parse_schema, not the parser.
    let text = "message m { required int32 a (STRING); }";
    assert!(parse_message_type(text).is_ok());
    let err = parse_schema(text).unwrap_err();
    assert!(
        err.to_string()
            .contains("must annotate BYTE_ARRAY, not INT32"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// Generated schemas: print -> parse gives back the exact element list.

#[derive(Debug, Clone)]
enum Tree {
    Leaf(SchemaElement),
    Group(SchemaElement, Vec<Tree>),
}

fn flatten(tree: &Tree, out: &mut Vec<SchemaElement>) {
    match tree {
        Tree::Leaf(e) => out.push(e.clone()),
        Tree::Group(e, children) => {
            let mut e = e.clone();
            e.num_children = Some(children.len() as i32);
            out.push(e);
            for c in children {
                flatten(c, out);
            }
        }
    }
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z_][a-z0-9_]{0,6}",
        1 => any::<String>(),
        1 => "[ a-z\"\\\\;{}(),=]{0,5}",
    ]
}

fn repetition() -> impl Strategy<Value = FieldRepetitionType> {
    prop_oneof![
        Just(FieldRepetitionType::REQUIRED),
        Just(FieldRepetitionType::OPTIONAL),
        Just(FieldRepetitionType::REPEATED),
    ]
}

fn time_unit() -> impl Strategy<Value = TimeUnit> {
    prop_oneof![
        Just(TimeUnit::Millis),
        Just(TimeUnit::Micros),
        Just(TimeUnit::Nanos)
    ]
}

fn crs() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        "[A-Za-z]{1,5}:[0-9]{1,5}",
        any::<String>(),
        // Values that read as an edge algorithm unless quoted.
        "SPHERICAL|karney| 4|-1",
    ])
}

/// (physical type, type_length, annotation) combinations that validate.
fn leaf_shape() -> impl Strategy<Value = SchemaElement> {
    let logical = |t: Type, len: Option<i32>, l: LogicalType| {
        let (precision, scale) = match l {
            LogicalType::Decimal { precision, scale } => (Some(precision), Some(scale)),
            _ => (None, None),
        };
        SchemaElement {
            type_: Some(t),
            type_length: len,
            converted_type: herringbone_format::schema::converted_type_from_logical(&l),
            logical_type: Some(l),
            precision,
            scale,
            ..Default::default()
        }
    };
    let converted = |t: Type, len: Option<i32>, c: Option<ConvertedType>| SchemaElement {
        type_: Some(t),
        type_length: len,
        converted_type: c,
        ..Default::default()
    };
    let int = |bit_width: i8, is_signed: bool| LogicalType::Integer {
        bit_width,
        is_signed,
    };
    prop_oneof![
        prop_oneof![
            Just(Type::BOOLEAN),
            Just(Type::INT32),
            Just(Type::INT64),
            Just(Type::INT96),
            Just(Type::FLOAT),
            Just(Type::DOUBLE),
            Just(Type::BYTE_ARRAY)
        ]
        .prop_map(move |t| converted(t, None, None)),
        (1i32..40).prop_map(move |n| converted(Type::FIXED_LEN_BYTE_ARRAY, Some(n), None)),
        (prop_oneof![Just(8i8), Just(16), Just(32)], any::<bool>())
            .prop_map(move |(w, s)| logical(Type::INT32, None, int(w, s))),
        any::<bool>().prop_map(move |s| logical(Type::INT64, None, int(64, s))),
        Just(logical(Type::INT32, None, LogicalType::Date)),
        any::<bool>().prop_map(move |u| logical(
            Type::INT32,
            None,
            LogicalType::Time {
                is_adjusted_to_utc: u,
                unit: TimeUnit::Millis
            }
        )),
        (
            any::<bool>(),
            prop_oneof![Just(TimeUnit::Micros), Just(TimeUnit::Nanos)]
        )
            .prop_map(move |(u, unit)| logical(
                Type::INT64,
                None,
                LogicalType::Time {
                    is_adjusted_to_utc: u,
                    unit
                }
            )),
        (any::<bool>(), time_unit()).prop_map(move |(u, unit)| logical(
            Type::INT64,
            None,
            LogicalType::Timestamp {
                is_adjusted_to_utc: u,
                unit
            }
        )),
        (1i32..=9)
            .prop_flat_map(|p| (Just(p), 0..=p))
            .prop_map(move |(precision, scale)| logical(
                Type::INT32,
                None,
                LogicalType::Decimal { scale, precision }
            )),
        (1i32..=18).prop_flat_map(|p| (Just(p), 0..=p)).prop_map(
            move |(precision, scale)| logical(
                Type::INT64,
                None,
                LogicalType::Decimal { scale, precision }
            )
        ),
        (1i32..=38).prop_flat_map(|p| (Just(p), 0..=p)).prop_map(
            move |(precision, scale)| logical(
                Type::FIXED_LEN_BYTE_ARRAY,
                Some(16),
                LogicalType::Decimal { scale, precision }
            )
        ),
        (1i32..=200)
            .prop_flat_map(|p| (Just(p), 0..=p))
            .prop_map(move |(precision, scale)| logical(
                Type::BYTE_ARRAY,
                None,
                LogicalType::Decimal { scale, precision }
            )),
        prop_oneof![
            Just(LogicalType::String),
            Just(LogicalType::Enum),
            Just(LogicalType::Json),
            Just(LogicalType::Bson)
        ]
        .prop_map(move |l| logical(Type::BYTE_ARRAY, None, l)),
        crs().prop_map(move |crs| logical(
            Type::BYTE_ARRAY,
            None,
            LogicalType::Geometry {
                crs: crs.map(Into::into)
            }
        )),
        (crs(), prop::option::of(0i32..7)).prop_map(move |(crs, algorithm)| logical(
            Type::BYTE_ARRAY,
            None,
            LogicalType::Geography {
                crs: crs.map(Into::into),
                algorithm: algorithm.map(EdgeInterpolationAlgorithm)
            }
        )),
        Just(logical(
            Type::FIXED_LEN_BYTE_ARRAY,
            Some(16),
            LogicalType::Uuid
        )),
        Just(logical(
            Type::FIXED_LEN_BYTE_ARRAY,
            Some(2),
            LogicalType::Float16
        )),
        Just(logical(Type::INT32, None, LogicalType::Unknown)),
        Just(converted(
            Type::FIXED_LEN_BYTE_ARRAY,
            Some(12),
            Some(ConvertedType::INTERVAL)
        )),
        prop_oneof![
            Just((Type::BYTE_ARRAY, ConvertedType::UTF8)),
            Just((Type::INT64, ConvertedType::TIMESTAMP_MILLIS)),
            Just((Type::INT64, ConvertedType::TIMESTAMP_MICROS)),
            Just((Type::INT32, ConvertedType::TIME_MILLIS)),
            Just((Type::INT64, ConvertedType::TIME_MICROS)),
            Just((Type::INT32, ConvertedType::INT_8)),
            Just((Type::INT32, ConvertedType::UINT_16)),
            Just((Type::INT64, ConvertedType::INT_64)),
            Just((Type::INT64, ConvertedType::UINT_64)),
        ]
        .prop_map(move |(t, c)| converted(t, None, Some(c))),
    ]
}

fn leaf() -> impl Strategy<Value = Tree> {
    (
        leaf_shape(),
        name(),
        repetition(),
        prop::option::of(any::<i32>()),
    )
        .prop_map(|(mut e, name, rep, id)| {
            e.name = name.into();
            e.repetition_type = Some(rep);
            e.field_id = id;
            Tree::Leaf(e)
        })
}

fn group_annotation() -> impl Strategy<Value = (Option<LogicalType>, Option<ConvertedType>)> {
    prop_oneof![
        3 => Just((None, None)),
        1 => Just((Some(LogicalType::List), Some(ConvertedType::LIST))),
        1 => Just((Some(LogicalType::Map), Some(ConvertedType::MAP))),
        1 => Just((None, Some(ConvertedType::MAP_KEY_VALUE))),
        1 => prop::option::of(any::<i8>()).prop_map(|v| (
            Some(LogicalType::Variant { specification_version: v }),
            None
        )),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        (
            prop::collection::vec(inner, 0..6),
            name(),
            repetition(),
            prop::option::of(any::<i32>()),
            group_annotation(),
        )
            .prop_map(|(children, name, rep, id, (logical, converted))| {
                Tree::Group(
                    SchemaElement {
                        name: name.into(),
                        repetition_type: Some(rep),
                        field_id: id,
                        logical_type: logical,
                        converted_type: converted,
                        ..Default::default()
                    },
                    children,
                )
            })
    })
}

fn schema_elements() -> impl Strategy<Value = Vec<SchemaElement>> {
    (name(), prop::collection::vec(tree(), 0..6)).prop_map(|(root_name, fields)| {
        let root = Tree::Group(
            SchemaElement {
                name: root_name.into(),
                ..Default::default()
            },
            fields,
        );
        let mut out = Vec::new();
        flatten(&root, &mut out);
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_schemas_print_and_parse_back_exactly(elements in schema_elements()) {
        let schema = SchemaDescriptor::new(&elements);
        prop_assert!(schema.is_ok(), "{:?}", schema.err());
        let schema = schema.unwrap();
        let text = schema.to_text();
        let parsed = parse_message_type(&text);
        prop_assert!(parsed.is_ok(), "{:?}\n{}", parsed.err(), text);
        prop_assert_eq!(parsed.unwrap(), elements, "{}", text);
        let reparsed = parse_schema(&text).unwrap();
        prop_assert_eq!(&reparsed, &schema);
        prop_assert_eq!(reparsed.to_text(), text);
    }
}

/// One corruption of a valid element list, as a hostile or broken writer might produce.
#[derive(Debug, Clone)]
enum Mutation {
    NumChildren(i32),
    DropType,
    SetType(i32),
    TypeLength(Option<i32>),
    Repetition(Option<i32>),
    Converted(Option<i32>),
    Precision(Option<i32>),
    Scale(Option<i32>),
    Remove,
    Duplicate,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (-3i32..8).prop_map(Mutation::NumChildren),
        Just(Mutation::DropType),
        (-1i32..9).prop_map(Mutation::SetType),
        prop::option::of(-2i32..20).prop_map(Mutation::TypeLength),
        prop::option::of(-1i32..4).prop_map(Mutation::Repetition),
        prop::option::of(-1i32..23).prop_map(Mutation::Converted),
        prop::option::of(-2i32..45).prop_map(Mutation::Precision),
        prop::option::of(-2i32..45).prop_map(Mutation::Scale),
        Just(Mutation::Remove),
        Just(Mutation::Duplicate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A corrupted schema is refused or builds consistently: never a panic, and what
    /// builds gives its elements back and survives print -> parse.
    #[test]
    fn corrupted_schemas_fail_cleanly(
        mut elements in schema_elements(),
        at in any::<prop::sample::Index>(),
        change in mutation(),
    ) {
        let i = at.index(elements.len());
        let e = &mut elements[i];
        match change {
            Mutation::NumChildren(n) => e.num_children = Some(n),
            Mutation::DropType => e.type_ = None,
            Mutation::SetType(t) => e.type_ = Some(Type(t)),
            Mutation::TypeLength(n) => e.type_length = n,
            Mutation::Repetition(r) => e.repetition_type = r.map(FieldRepetitionType),
            Mutation::Converted(c) => e.converted_type = c.map(ConvertedType),
            Mutation::Precision(p) => e.precision = p,
            Mutation::Scale(s) => e.scale = s,
            Mutation::Remove => {
                elements.remove(i);
            }
            Mutation::Duplicate => {
                let copy = elements[i].clone();
                elements.insert(i, copy);
            }
        }
        match SchemaDescriptor::new(&elements) {
            Ok(schema) => {
                prop_assert_eq!(schema.to_elements(), elements);
                let text = schema.to_text();
                let reparsed = parse_schema(&text);
                prop_assert!(reparsed.is_ok(), "{:?}\n{}", reparsed.err(), text);
                let reparsed = reparsed.unwrap();
                prop_assert_eq!(reparsed.num_columns(), schema.num_columns());
                for (a, b) in reparsed.columns().iter().zip(schema.columns()) {
                    prop_assert_eq!(a.path(), b.path());
                    prop_assert_eq!(a.max_def_level(), b.max_def_level());
                    prop_assert_eq!(a.max_rep_level(), b.max_rep_level());
                    prop_assert_eq!(a.logical_type(), b.logical_type());
                }
            }
            Err(err) => {
                prop_assert!(!err.to_string().is_empty());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary text and damaged schema text: an error or a list, never a panic.
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = parse_message_type(&text);
    }

    #[test]
    fn damaged_schema_text_never_panics(
        cut in any::<prop::sample::Index>(),
        insert in prop_oneof![Just(""), Just("{"), Just("}"), Just("("), Just(")"), Just(";"), Just("\""), Just("\\u{"), Just("= x"), Just("é")],
        keep_tail in any::<bool>(),
    ) {
        let text = EVERY_ANNOTATION;
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let damaged = if keep_tail {
            format!("{}{insert}{}", &text[..at], &text[at..])
        } else {
            format!("{}{insert}", &text[..at])
        };
        if let Ok(elements) = parse_message_type(&damaged) {
            let _ = SchemaDescriptor::new(&elements);
        }
    }
}

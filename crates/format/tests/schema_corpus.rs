//! Every schema of the parquet-testing corpus builds into a `SchemaDescriptor` whose
//! columns (paths, max definition and repetition levels) match pyarrow's printed
//! schema in the oracle, and survives print -> parse -> print.

use bytes::Bytes;
use herringbone_format::ErrorKind;
use herringbone_format::footer::read_metadata;
use herringbone_format::metadata::{FieldRepetitionType, Type};
use herringbone_format::schema::{SchemaDescriptor, parse_message_type, parse_schema};
use herringbone_testkit::{corpus_files, oracle, read_corpus_file};

/// One leaf of pyarrow's (parquet-cpp's) printed schema.
#[derive(Debug, PartialEq)]
struct OracleLeaf {
    path: Vec<String>,
    max_def: i16,
    max_rep: i16,
}

/// Reads the leaves of parquet-cpp's schema printout:
/// `<repetition> <type> field_id=<n> <name>[ (<annotation>)]( {|;)` per node, `}` closing
/// a group. Names may hold spaces, so the name is what lies between `field_id=<n> ` and
/// the trailing annotation.
fn oracle_leaves(text: &str) -> Vec<OracleLeaf> {
    // (name, def, rep) of the open groups; the first is the root.
    let mut open: Vec<(String, i16, i16)> = Vec::new();
    let mut leaves = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "}" {
            open.pop();
            continue;
        }
        let (body, is_group) = if let Some(b) = line.strip_suffix(" {") {
            (b, true)
        } else if let Some(b) = line.strip_suffix(';') {
            (b, false)
        } else {
            panic!("unexpected oracle schema line {line:?}");
        };
        let (repetition, rest) = body.split_once(' ').expect("repetition and the rest");
        let id_at = rest.find("field_id=").expect("field_id in oracle line");
        let after_id = &rest[id_at..];
        let name_start = after_id.find(' ').expect("name after field_id") + 1;
        let mut name = &after_id[name_start..];
        // Drop a trailing ` (annotation)` with balanced parentheses.
        if name.ends_with(')') {
            let mut depth = 0;
            for (i, c) in name.char_indices().rev() {
                match c {
                    ')' => depth += 1,
                    '(' => {
                        depth -= 1;
                        if depth == 0 {
                            name = name[..i].trim_end();
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        let (parent_def, parent_rep) = open.last().map_or((0, 0), |g| (g.1, g.2));
        let is_root = open.is_empty();
        let (def, rep) = if is_root {
            (0, 0)
        } else {
            match repetition {
                "required" => (parent_def, parent_rep),
                "optional" => (parent_def + 1, parent_rep),
                "repeated" => (parent_def + 1, parent_rep + 1),
                other => panic!("unknown repetition {other:?} in {line:?}"),
            }
        };
        if is_group {
            open.push((name.to_owned(), def, rep));
        } else {
            let mut path: Vec<String> = open.iter().skip(1).map(|g| g.0.clone()).collect();
            path.push(name.to_owned());
            leaves.push(OracleLeaf {
                path,
                max_def: def,
                max_rep: rep,
            });
        }
    }
    leaves
}

fn our_leaves(schema: &SchemaDescriptor) -> Vec<OracleLeaf> {
    schema
        .columns()
        .iter()
        .map(|c| OracleLeaf {
            path: c.path().parts().iter().map(ToString::to_string).collect(),
            max_def: c.max_def_level(),
            max_rep: c.max_rep_level(),
        })
        .collect()
}

/// What the text form keeps of a schema: per node the name, repetition, physical type and
/// length, the resolved annotation and the field id, and per column the levels.
fn text_view(schema: &SchemaDescriptor) -> Vec<String> {
    let mut out: Vec<String> = schema
        .nodes()
        .iter()
        .map(|n| {
            let repetition = if n.parent().is_none() {
                None
            } else {
                Some(n.repetition().unwrap_or(FieldRepetitionType::REQUIRED))
            };
            let length = match n.physical_type() {
                Some(Type::FIXED_LEN_BYTE_ARRAY) => n.type_length(),
                _ => None,
            };
            let logical = n.resolved_logical_type();
            // The root's field id is not printed (other parsers reject it).
            let field_id = n.field_id().filter(|_| n.parent().is_some());
            format!(
                "{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{}",
                n.name(),
                repetition,
                n.physical_type(),
                length,
                logical,
                field_id,
                // The legacy annotation with no LogicalType counterpart (INTERVAL).
                n.resolved_converted_type().filter(|_| logical.is_none()),
                n.children().len()
            )
        })
        .collect();
    out.extend(schema.columns().iter().map(|c| {
        format!(
            "{}|{}|{}|{:?}",
            c.path(),
            c.max_def_level(),
            c.max_rep_level(),
            c.logical_type()
        )
    }));
    out
}

#[test]
fn every_corpus_schema_builds_matches_the_oracle_and_round_trips() {
    let files = corpus_files(&["data", "bad_data", "shredded_variant", "variant"]);
    assert!(
        files.len() > 100,
        "corpus looks incomplete: {}",
        files.len()
    );
    let (mut built, mut compared, mut encrypted, mut refused) = (0, 0, 0, Vec::new());
    for rel in &files {
        let name = rel.display().to_string();
        let bytes = Bytes::from(read_corpus_file(rel));
        let meta = match read_metadata(&bytes) {
            Ok(meta) => meta,
            Err(e) if e.kind() == ErrorKind::Encrypted => {
                encrypted += 1;
                continue;
            }
            Err(e) => {
                assert!(
                    rel.starts_with("bad_data"),
                    "{name}: footer does not decode: {e}"
                );
                continue;
            }
        };
        let oracle = oracle(rel);
        let pyarrow_opened_schema = oracle
            .as_ref()
            .is_some_and(|o| o["parquet_schema"].is_string() && o["metadata_error"].is_null());
        let schema = match SchemaDescriptor::new(&meta.schema) {
            Ok(schema) => schema,
            Err(e) => {
                assert!(
                    !pyarrow_opened_schema,
                    "{name}: pyarrow opens this schema, we refuse it: {e}"
                );
                refused.push(format!("{name}: {e}"));
                continue;
            }
        };
        built += 1;
        assert_eq!(
            schema.to_elements(),
            meta.schema,
            "{name}: the tree gives back the footer's element list"
        );

        if let Some(text) = oracle
            .as_ref()
            .and_then(|o| o["parquet_schema"].as_str())
            .filter(|_| pyarrow_opened_schema)
        {
            let expected = oracle_leaves(text);
            assert_eq!(
                our_leaves(&schema),
                expected,
                "{name}: columns (path, max def, max rep) differ from pyarrow's"
            );
            compared += 1;
        }

        // Print -> parse -> print is stable and keeps everything the text can say.
        let text = schema.to_text();
        let reparsed = parse_schema(&text)
            .unwrap_or_else(|e| panic!("{name}: printed schema does not parse: {e}\n{text}"));
        assert_eq!(
            reparsed.to_text(),
            text,
            "{name}: print/parse/print differs"
        );
        assert_eq!(
            text_view(&reparsed),
            text_view(&schema),
            "{name}: parse(print(schema)) lost information\n{text}"
        );
        // The element lists agree where the file's annotations are the ones a writer
        // derives (LogicalType with its forward ConvertedType).
        let elements = parse_message_type(&text).unwrap();
        assert_eq!(elements.len(), meta.schema.len(), "{name}");
    }
    println!(
        "built {built}, compared with pyarrow {compared}, encrypted footers {encrypted}, refused {}",
        refused.len()
    );
    for r in &refused {
        println!("refused: {r}");
    }
    assert!(built > 150, "only {built} corpus schemas built");
    assert!(compared > 150, "only {compared} compared with the oracle");
    // PARQUET-1481 stores physical type -7: pyarrow refuses it too.
    assert!(
        refused.iter().any(|r| r.contains("PARQUET-1481")),
        "refused: {refused:?}"
    );
}

#[test]
fn oracle_printout_reader_reads_levels() {
    // The helper above is itself checked on a known printout (nested_lists.snappy).
    let text = "required group field_id=-1 spark_schema {\n  optional group field_id=-1 a (List) {\n    repeated group field_id=-1 list {\n      optional binary field_id=-1 element (String);\n    }\n  }\n  required int32 field_id=-1 b c;\n}\n";
    assert_eq!(
        oracle_leaves(text),
        vec![
            OracleLeaf {
                path: vec!["a".into(), "list".into(), "element".into()],
                max_def: 3,
                max_rep: 1
            },
            OracleLeaf {
                path: vec!["b c".into()],
                max_def: 0,
                max_rep: 0
            },
        ]
    );
}

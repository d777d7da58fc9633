//! Cross-check of the schema module against arrow-rs `parquet` (dev-dependency only) on
//! every corpus file: the same columns, levels and physical types; arrow-rs's printed
//! schema parses with our parser to the same schema; our printed schema parses with
//! arrow-rs's parser to the same columns.

use bytes::Bytes;
use herringbone_format::ErrorKind;
use herringbone_format::footer::read_metadata;
use herringbone_format::metadata::{EdgeInterpolationAlgorithm, LogicalType, Type};
use herringbone_format::schema::{SchemaDescriptor, parse_schema};
use herringbone_testkit::{corpus_files, read_corpus_file};
use parquet::file::metadata::ParquetMetaDataReader;

/// (dotted path, max def, max rep, physical type) per column.
type Columns = Vec<(String, i16, i16, String)>;

fn arrow_rs_columns(schema: &parquet::schema::types::SchemaDescriptor) -> Columns {
    schema
        .columns()
        .iter()
        .map(|c| {
            (
                c.path().parts().join("."),
                c.max_def_level(),
                c.max_rep_level(),
                c.physical_type().to_string(),
            )
        })
        .collect()
}

fn our_columns(schema: &SchemaDescriptor) -> Columns {
    schema
        .columns()
        .iter()
        .map(|c| {
            (
                c.path().dotted(),
                c.max_def_level(),
                c.max_rep_level(),
                c.physical_type().to_string(),
            )
        })
        .collect()
}

/// Everything our text form carries, per column.
fn detailed(schema: &SchemaDescriptor) -> Vec<String> {
    schema
        .columns()
        .iter()
        .map(|c| {
            let length = match c.physical_type() {
                Type::FIXED_LEN_BYTE_ARRAY => c.type_length(),
                _ => None,
            };
            format!(
                "{}|{}|{}|{}|{length:?}|{:?}|{:?}",
                c.path(),
                c.max_def_level(),
                c.max_rep_level(),
                c.physical_type(),
                c.logical_type().map(spherical_by_default),
                schema.node(c.node_id()).and_then(|n| n.field_id())
            )
        })
        .collect()
}

/// arrow-rs prints an unset GEOGRAPHY algorithm as its default, SPHERICAL.
fn spherical_by_default(logical: &LogicalType) -> LogicalType {
    match logical {
        LogicalType::Geography {
            crs,
            algorithm: None,
        } => LogicalType::Geography {
            crs: crs.clone(),
            algorithm: Some(EdgeInterpolationAlgorithm::SPHERICAL),
        },
        other => other.clone(),
    }
}

fn plain_names(schema: &SchemaDescriptor) -> bool {
    schema.nodes().iter().all(|n| {
        !n.name().is_empty()
            && n.name()
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
    })
}

#[test]
fn corpus_schemas_agree_with_arrow_rs() {
    let files = corpus_files(&["data", "bad_data", "shredded_variant"]);
    let mut compared = 0;
    let mut arrow_text_parsed = 0;
    let mut our_text_parsed_by_arrow = 0;
    let mut skipped = Vec::new();
    for rel in &files {
        let name = rel.display().to_string();
        let bytes = Bytes::from(read_corpus_file(rel));
        let ours = match read_metadata(&bytes) {
            Ok(meta) => match SchemaDescriptor::new(&meta.schema) {
                Ok(schema) => schema,
                Err(e) => {
                    skipped.push(format!("{name}: we refuse the schema: {e}"));
                    continue;
                }
            },
            Err(e) => {
                assert!(
                    e.kind() == ErrorKind::Encrypted || rel.starts_with("bad_data"),
                    "{name}: {e}"
                );
                continue;
            }
        };
        let theirs = match ParquetMetaDataReader::new().parse_and_finish(&bytes) {
            Ok(meta) => meta,
            Err(e) => {
                skipped.push(format!("{name}: arrow-rs cannot read the footer: {e}"));
                continue;
            }
        };
        let their_schema = theirs.file_metadata().schema_descr();
        assert_eq!(
            our_columns(&ours),
            arrow_rs_columns(their_schema),
            "{name}: columns differ from arrow-rs"
        );
        compared += 1;

        // arrow-rs's printout, read by our parser.
        let mut printed = Vec::new();
        parquet::schema::printer::print_schema(&mut printed, their_schema.root_schema());
        let printed = String::from_utf8(printed).unwrap();
        // arrow-rs prints a CRS raw: PROJJSON there is not parseable by anyone.
        let raw_json_crs = printed
            .lines()
            .any(|l| (l.contains("GEOMETRY(") || l.contains("GEOGRAPHY(")) && l.contains('{'));
        if plain_names(&ours) && !printed.contains("_Unknown(") && !raw_json_crs {
            let parsed = parse_schema(&printed).unwrap_or_else(|e| {
                panic!("{name}: arrow-rs's printout does not parse: {e}\n{printed}")
            });
            assert_eq!(
                detailed(&parsed),
                detailed(&ours),
                "{name}: arrow-rs's printout reads differently\n{printed}"
            );
            arrow_text_parsed += 1;
        }

        // Our printout, read by arrow-rs's parser (for what its parser knows).
        let text = ours.to_text();
        let arrow_rs_knows = plain_names(&ours)
            && !["VARIANT", "GEOMETRY", "GEOGRAPHY", "UNKNOWN", "INTERVAL"]
                .iter()
                .any(|t| text.contains(t));
        if arrow_rs_knows {
            let parsed = parquet::schema::parser::parse_message_type(&text)
                .unwrap_or_else(|e| panic!("{name}: arrow-rs cannot parse our text: {e}\n{text}"));
            let descr = parquet::schema::types::SchemaDescriptor::new(parsed.into());
            assert_eq!(
                arrow_rs_columns(&descr),
                our_columns(&ours),
                "{name}: arrow-rs reads our text differently\n{text}"
            );
            our_text_parsed_by_arrow += 1;
        }
    }
    println!(
        "compared {compared}, arrow-rs printouts parsed {arrow_text_parsed}, our printouts \
         parsed by arrow-rs {our_text_parsed_by_arrow}"
    );
    for s in &skipped {
        println!("skipped {s}");
    }
    assert!(compared > 200, "compared only {compared}");
    assert!(arrow_text_parsed > 150, "parsed only {arrow_text_parsed}");
    assert!(
        our_text_parsed_by_arrow > 60,
        "arrow-rs parsed only {our_text_parsed_by_arrow}"
    );
}

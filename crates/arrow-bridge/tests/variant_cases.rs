//! The shredded Variant test vectors of parquet-testing (`shredded_variant/cases.json`):
//! every case's Parquet file reads, column `var`, to its expected `.variant.bin` per row
//! (metadata bytes followed by value bytes), by both routes (the shredded struct then
//! `unshred`, and the reader's unshredded option); every case with an `error_message`
//! fails, as do the two files the cases call invalid with a field both shredded and in
//! `value` (43, 125), which the specification says engines should reject.

use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch, StructArray};
use bytes::Bytes;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::variant::{VariantParts, is_variant_field, unshred};
use herringbone_codec::variant::{Variant, VariantMetadata, VariantValue};

fn read_batches(path: &Path, unshredded: bool) -> Result<Vec<RecordBatch>, String> {
    let bytes = Bytes::from(std::fs::read(path).map_err(|e| e.to_string())?);
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .map_err(|e| e.to_string())?
        .with_unshredded_variants(unshredded)
        .build()
        .map_err(|e| e.to_string())?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

/// A row's metadata and value bytes.
type Row = (Vec<u8>, Vec<u8>);

/// Each row of column `var`, reconstructed: `None` for a null row, else (metadata, value).
fn rows(path: &Path, unshredded: bool) -> Result<Vec<Option<Row>>, String> {
    let mut out = Vec::new();
    for batch in read_batches(path, unshredded)? {
        let index = batch.schema().index_of("var").map_err(|e| e.to_string())?;
        let field = batch.schema().field(index).clone();
        assert!(
            is_variant_field(&field),
            "{}: var is not a Variant field: {field:?}",
            path.display()
        );
        let column = batch.column(index).as_struct().clone();
        let plain: StructArray = if unshredded {
            assert!(column.column_by_name("typed_value").is_none());
            column
        } else {
            unshred(&column).map_err(|e| e.to_string())?
        };
        let parts = VariantParts::try_new(&plain).map_err(|e| e.to_string())?;
        let value = parts.value.expect("an unshredded column has values");
        for row in 0..plain.len() {
            if plain.is_null(row) {
                out.push(None);
                continue;
            }
            out.push(Some((
                parts.metadata.get(row).unwrap().to_vec(),
                value.get(row).unwrap().to_vec(),
            )));
        }
    }
    Ok(out)
}

fn decode(metadata: &[u8], value: &[u8]) -> VariantValue {
    let metadata = VariantMetadata::try_new(metadata).unwrap();
    let variant = Variant::try_new(metadata, value).unwrap();
    variant.validate().unwrap();
    variant.to_owned_value().unwrap()
}

fn expected(dir: &Path, file: &str) -> (Vec<u8>, VariantValue) {
    let bytes = std::fs::read(dir.join(file)).unwrap();
    let (metadata, used) = VariantMetadata::try_new_prefix(&bytes).unwrap();
    let value = decode(metadata.as_bytes(), &bytes[used..]);
    (bytes[..used].to_vec(), value)
}

#[test]
fn every_case_reads_to_its_variants_or_fails() {
    let dir = herringbone_testkit::corpus_root().join("shredded_variant");
    let text = std::fs::read_to_string(dir.join("cases.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("cases.json").display()));
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut passed = 0;
    let mut failed_as_expected = 0;
    let mut failures = Vec::new();
    for case in cases.as_array().unwrap() {
        let number = case["case_number"].as_u64().unwrap();
        let Some(file) = case["parquet_file"].as_str() else {
            continue; // case 3 has no files
        };
        let path = dir.join(file);
        let must_fail = case.get("error_message").is_some() || number == 43 || number == 125;
        for unshredded in [false, true] {
            let result = rows(&path, unshredded);
            if must_fail {
                match result {
                    Err(_) => failed_as_expected += 1,
                    Ok(rows) => failures.push(format!(
                        "case {number} ({file}, unshredded option {unshredded}): expected an \
                         error ({}), read {} rows",
                        case["error_message"],
                        rows.len()
                    )),
                }
                continue;
            }
            let rows = match result {
                Ok(rows) => rows,
                Err(e) => {
                    failures.push(format!("case {number} ({file}): {e}"));
                    continue;
                }
            };
            let files: Vec<Option<&str>> =
                match (case.get("variant_file"), case.get("variant_files")) {
                    (Some(one), _) => vec![one.as_str()],
                    (None, Some(many)) => many
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f.as_str())
                        .collect(),
                    (None, None) => panic!("case {number} has no expected variants"),
                };
            if rows.len() != files.len() {
                failures.push(format!(
                    "case {number}: {} rows, {} expected",
                    rows.len(),
                    files.len()
                ));
                continue;
            }
            for (row, (got, want)) in rows.iter().zip(&files).enumerate() {
                match (got, want) {
                    (None, None) => {}
                    (Some((metadata, value)), Some(want)) => {
                        let (want_metadata, want_value) = expected(&dir, want);
                        let got_value = decode(metadata, value);
                        if got_value != want_value {
                            failures.push(format!(
                                "case {number} row {row}: read {got_value:?}, expected {want_value:?}"
                            ));
                        }
                        if *metadata != want_metadata {
                            failures.push(format!(
                                "case {number} row {row}: metadata {metadata:?}, expected {want_metadata:?}"
                            ));
                        }
                    }
                    (got, want) => failures.push(format!(
                        "case {number} row {row}: read {got:?}, expected {want:?}"
                    )),
                }
            }
            passed += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 137 cases with files, 8 of them errors (6 with an error message, 43 and 125), each
    // read both ways.
    assert_eq!(passed, (137 - 8) * 2);
    assert_eq!(failed_as_expected, 8 * 2);
}

#[test]
fn error_cases_say_what_is_wrong() {
    let dir = herringbone_testkit::corpus_root().join("shredded_variant");
    // Data errors name the row and the level.
    for (file, message) in [
        (
            "case-040.parquet",
            "variant row 0: typed_value.element: invalid variant, conflicting value and typed_value",
        ),
        (
            "case-042.parquet",
            "variant row 0: $: invalid variant, conflicting value and typed_value",
        ),
        (
            "case-087.parquet",
            "variant row 0: $: invalid variant, non-object value with shredded fields",
        ),
        (
            "case-128.parquet",
            "variant row 0: $: invalid variant, non-object value with shredded fields",
        ),
        (
            "case-125-INVALID.parquet",
            "field \"b\" is both shredded in typed_value and present in value",
        ),
    ] {
        let err = rows(&dir.join(file), false).unwrap_err();
        assert!(err.contains(message), "{file}: {err}");
    }
    // Type errors name the type and where it is, before any row is read.
    for (file, message) in [
        (
            "case-127.parquet",
            "unsupported shredded value type: UInt32 at typed_value",
        ),
        (
            "case-137.parquet",
            "unsupported shredded value type: FixedSizeBinary(4) at typed_value",
        ),
    ] {
        let err = rows(&dir.join(file), false).unwrap_err();
        assert!(err.contains(message), "{file}: {err}");
    }
}

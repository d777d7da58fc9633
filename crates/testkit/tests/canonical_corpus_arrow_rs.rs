//! End-to-end check of the canonical renderer before Herringbone's reader exists: the
//! arrow-rs `parquet` reader reads every readable corpus file of `data/` and
//! `shredded_variant/`, and the rendering of what it returns must reproduce pyarrow's
//! checksums and stored rows.
//!
//! arrow-rs legitimately maps a few files differently from pyarrow; those are listed in
//! [`EXPECTED_DIFFERENCES`] with the reason, and every other file must match exactly.

use std::path::Path;

use arrow_array::RecordBatch;
use bytes::Bytes;
use herringbone_testkit::canonical::{compare_with_duckdb_fallback, compare_with_oracle};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// Files not compared at all.
const SKIPPED: &[(&str, &str)] = &[(
    "data/large_string_map.brotli.parquet",
    "1 GiB of strings: too large for a unit test",
)];

/// Files where arrow-rs and pyarrow disagree for a known, legitimate reason.
const EXPECTED_DIFFERENCES: &[(&str, &str)] = &[
    (
        "data/int96_from_spark.parquet",
        "INT96 values outside the timestamp[ns] range: pyarrow and arrow-rs both wrap around, \
         but through different 64-bit arithmetic, so the wrapped values differ (INVENTORY.md)",
    ),
    (
        "data/repeated_no_annotation.parquet",
        "the footer says num_rows = 0 while its row group holds 6 rows: arrow-rs trusts the \
         footer and returns no rows, pyarrow reads the row group",
    ),
    (
        "shredded_variant/case-037.parquet",
        "oracle defect: the UUID typed_value is recorded as {\"unsupported\": \"UUID('...')\"} \
         (pyarrow's Python UUID scalar) instead of FORMAT.md's {\"hex\": ...}; the bytes agree",
    ),
];

fn read_with_arrow_rs(
    relative: &Path,
) -> Result<(arrow_schema::SchemaRef, Vec<RecordBatch>), String> {
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(relative));
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).map_err(|e| e.to_string())?;
    let schema = builder.schema().clone();
    let reader = builder
        .with_batch_size(1024)
        .build()
        .map_err(|e| e.to_string())?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok((schema, batches))
}

#[test]
fn arrow_rs_reads_render_like_the_pyarrow_oracles() {
    let mut matched = 0;
    let mut unexpected = Vec::new();
    let mut expected_seen = Vec::new();
    for relative in herringbone_testkit::corpus_files(&["data", "shredded_variant"]) {
        let name = relative.to_string_lossy().replace('\\', "/");
        if name.ends_with(".encrypted") {
            println!("skip     {name}: encrypted");
            continue;
        }
        if let Some((_, why)) = SKIPPED.iter().find(|(f, _)| *f == name) {
            println!("skip     {name}: {why}");
            continue;
        }
        let Some(oracle) = herringbone_testkit::oracle(&relative) else {
            unexpected.push(format!("{name}: no oracle"));
            continue;
        };
        if oracle["readable_by_pyarrow"] != serde_json::Value::Bool(true) {
            let duckdb_read = oracle["duckdb_fallback"]["readable_by_duckdb"] == true;
            match (duckdb_read, read_with_arrow_rs(&relative)) {
                (true, Ok((schema, batches))) => {
                    match compare_with_duckdb_fallback(&relative, &schema, &batches) {
                        Ok(found) => {
                            matched += 1;
                            println!("ok       {name} ({} rows, as DuckDB reads it)", found.rows);
                        }
                        Err(e) => {
                            println!("MISMATCH {name} (against DuckDB)\n{e}");
                            unexpected.push(format!("{name}: {e}"));
                        }
                    }
                }
                (true, Err(e)) => {
                    println!("skip     {name}: pyarrow cannot read it, arrow-rs fails too: {e}")
                }
                (false, _) => {
                    println!(
                        "skip     {name}: pyarrow cannot read it ({})",
                        oracle["error"]
                    )
                }
            }
            continue;
        }
        let (schema, batches) = match read_with_arrow_rs(&relative) {
            Ok(read) => read,
            Err(e) => {
                println!("skip     {name}: arrow-rs fails: {e}");
                continue;
            }
        };
        let expected = EXPECTED_DIFFERENCES.iter().find(|(f, _)| *f == name);
        match (compare_with_oracle(&relative, &schema, &batches), expected) {
            (Ok(found), None) => {
                matched += 1;
                println!("ok       {name} ({} rows)", found.rows);
                for (column, ours, theirs) in found.type_differences {
                    println!("           type of {column}: arrow-rs {ours}, pyarrow {theirs}");
                }
            }
            (Ok(_), Some((_, why))) => unexpected.push(format!(
                "{name}: listed as an expected difference ({why}) but matches: remove it"
            )),
            (Err(e), Some((_, why))) => {
                expected_seen.push(name.clone());
                println!("expected {name}: {why}\n{e}");
            }
            (Err(e), None) => {
                println!("MISMATCH {name}\n{e}");
                unexpected.push(format!("{name}: {e}"));
            }
        }
    }
    println!(
        "{matched} files match, {} expected differences",
        expected_seen.len()
    );
    assert!(matched >= 40, "only {matched} files matched");
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n\n"));
}

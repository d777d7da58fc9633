//! Conformance of the reader over the parquet-testing corpus: every file of `data/`
//! (recursively) and `shredded_variant/` that pyarrow reads must read with Herringbone to
//! the same canonical values (`compare_with_oracle`), unless it is skipped for a listed
//! reason; `bad_data/` files must fail cleanly (or read), never panic; INT96 values beyond
//! the nanosecond range are an error by default and correct with a coarser unit.

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampMicrosecondType;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{SchemaRef, TimeUnit};
use bytes::Bytes;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::schema::SchemaOptions;
use herringbone_testkit::canonical::compare_with_oracle;

/// The number of files that matched their oracle when this test was last tightened.
const MATCHING_FLOOR: usize = 208;

/// Files skipped for a reason other than the reader's documented limitations.
const SKIPPED: &[(&str, &str)] = &[
    (
        "data/large_string_map.brotli.parquet",
        "two 1 GiB map keys: too large for a unit test",
    ),
    (
        "shredded_variant/case-037.parquet",
        "oracle defect: the UUID typed_value is recorded as {\"unsupported\": \"UUID('...')\"}",
    ),
    (
        "data/int96_from_spark.parquet",
        "INT96 beyond the ns range: pyarrow wraps around; checked separately with microseconds",
    ),
];

fn read(
    relative: &Path,
    batch_size: usize,
    verify_crc: bool,
) -> Result<(SchemaRef, Vec<RecordBatch>), herringbone_arrow_bridge::Error> {
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(relative));
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes)?;
    let reader = builder
        .with_batch_size(batch_size)
        .with_verify_crc(verify_crc)
        .build()?;
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let mut batches = Vec::new();
    for batch in reader {
        batches.push(batch.map_err(|e| {
            herringbone_arrow_bridge::Error::new(ErrorKind::Corrupt, e.to_string())
        })?);
    }
    Ok((schema, batches))
}

/// Whether an error is one of the reader's documented limitations.
fn known_limitation(error: &herringbone_arrow_bridge::Error) -> Option<&'static str> {
    match error.kind() {
        ErrorKind::Encrypted => Some("encrypted: keys required"),
        _ => None,
    }
}

#[test]
fn reads_the_corpus_like_the_pyarrow_oracles() {
    let mut matched = 0;
    let mut limited = 0;
    let mut failures = Vec::new();
    for relative in herringbone_testkit::corpus_files(&["data", "shredded_variant"]) {
        let name = relative.to_string_lossy().replace('\\', "/");
        if let Some((_, why)) = SKIPPED.iter().find(|(f, _)| *f == name) {
            println!("skipped {name}: {why}");
            continue;
        }
        let readable = herringbone_testkit::oracle(&relative)
            .is_some_and(|o| o["readable_by_pyarrow"] == serde_json::Value::Bool(true));
        let result = std::panic::catch_unwind(|| read(&relative, 1000, false));
        let result = match result {
            Ok(result) => result,
            Err(_) => {
                println!("FAILED  {name}: panicked");
                failures.push(format!("{name}: panicked"));
                continue;
            }
        };
        if !readable {
            match result {
                Err(e) if name.ends_with(".encrypted") && e.kind() != ErrorKind::Encrypted => {
                    failures.push(format!("{name}: encrypted file fails with {e}"));
                }
                _ => println!("skipped {name}: pyarrow cannot read it, no oracle"),
            }
            continue;
        }
        match result {
            Ok((schema, batches)) => match compare_with_oracle(&relative, &schema, &batches) {
                Ok(found) => {
                    matched += 1;
                    println!("ok      {name} ({} rows)", found.rows);
                }
                Err(e) => {
                    println!("FAILED  {name}\n{e}");
                    failures.push(format!("{name}: {e}"));
                }
            },
            Err(e) => match known_limitation(&e) {
                Some(why) => {
                    limited += 1;
                    println!("skipped {name}: {why} ({e})");
                }
                None => {
                    println!("FAILED  {name}: {e}");
                    failures.push(format!("{name}: {e}"));
                }
            },
        }
    }
    println!("{matched} files match, {limited} skipped for documented limitations");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        matched >= MATCHING_FLOOR,
        "only {matched} files matched (floor {MATCHING_FLOOR})"
    );
}

#[test]
fn int96_from_spark_reads_correctly_in_microseconds_and_refuses_to_wrap_in_nanoseconds() {
    let relative = Path::new("data/int96_from_spark.parquet");
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(relative));

    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .unwrap()
        .with_schema_options(SchemaOptions::new().with_int96_unit(TimeUnit::Microsecond))
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let values: Vec<Option<i64>> = batches
        .iter()
        .flat_map(|b| {
            b.column(0)
                .as_primitive::<TimestampMicrosecondType>()
                .iter()
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        values,
        vec![
            Some(1704141296123456),
            Some(1704070800000000),
            Some(253402225200000000),
            Some(1735599600000000),
            None,
            Some(9089380393200000000),
        ]
    );

    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .build()
        .unwrap();
    let results: Vec<_> = reader.collect();
    let error = results
        .iter()
        .find_map(|r| r.as_ref().err())
        .expect("nanoseconds cannot hold year 9999: the default read must fail");
    let text = error.to_string();
    assert!(text.contains("with_int96_unit"), "{text}");
    assert!(text.contains("INT96"), "{text}");
}

#[test]
fn bad_data_fails_cleanly_or_reads() {
    let files = herringbone_testkit::corpus_files(&["bad_data"]);
    assert!(!files.is_empty(), "no bad_data files found");
    for relative in files {
        let name = relative.to_string_lossy().replace('\\', "/");
        let outcome = std::panic::catch_unwind(|| read(&relative, 100, true));
        match outcome {
            Ok(Ok((schema, batches))) => {
                let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
                println!("read    {name}: {rows} rows");
                // Rows we return from a damaged file must be the rows pyarrow recovers.
                let readable = herringbone_testkit::oracle(&relative)
                    .is_some_and(|o| o["readable_by_pyarrow"] == serde_json::Value::Bool(true));
                assert!(readable, "{name}: read although pyarrow cannot read it");
                if let Err(e) = compare_with_oracle(&relative, &schema, &batches) {
                    panic!("{name}: recovered rows differ from pyarrow's: {e}");
                }
            }
            Ok(Err(e)) => println!("error   {name}: {e}"),
            Err(_) => panic!("{name}: the reader panicked"),
        }
    }
}

#[test]
fn encrypted_files_say_keys_are_required() {
    let mut seen = 0;
    for relative in herringbone_testkit::corpus_files(&["data"]) {
        let name = relative.to_string_lossy().into_owned();
        if !name.ends_with(".encrypted") {
            continue;
        }
        let error = read(&relative, 1000, false).expect_err("encrypted files need keys");
        assert_eq!(error.kind(), ErrorKind::Encrypted, "{name}: {error}");
        assert!(
            error.to_string().contains("encrypted: keys required"),
            "{name}: {error}"
        );
        assert_eq!(
            error.to_string().matches("keys required").count(),
            1,
            "{name}: the message says it once: {error}"
        );
        seen += 1;
    }
    assert!(seen > 0, "no encrypted files in the corpus");
    let _ = Arc::new(());
}

#[test]
fn crc_verification_catches_the_corrupt_checksum_files_and_passes_the_good_ones() {
    for (file, corrupt) in [
        ("data/datapage_v1-corrupt-checksum.parquet", true),
        ("data/rle-dict-uncompressed-corrupt-checksum.parquet", true),
        ("data/datapage_v1-snappy-compressed-checksum.parquet", false),
        ("data/plain-dict-uncompressed-checksum.parquet", false),
        ("data/rle-dict-snappy-checksum.parquet", false),
    ] {
        let relative = Path::new(file);
        let checked = read(relative, 1000, true);
        match (corrupt, checked) {
            (true, Err(e)) => assert!(e.to_string().contains("CRC"), "{file}: {e}"),
            (true, Ok(_)) => panic!("{file}: corrupt CRC not detected"),
            (false, Err(e)) => panic!("{file}: {e}"),
            (false, Ok((schema, batches))) => {
                compare_with_oracle(relative, &schema, &batches).unwrap();
            }
        }
        let (schema, batches) = read(relative, 1000, false).unwrap();
        compare_with_oracle(relative, &schema, &batches).unwrap();
    }
}

#[test]
fn incorrect_map_schema_reads_as_duckdb_reads_it() {
    // The map's key is OPTIONAL in the file (Presto/Trino output); pyarrow refuses the
    // file, DuckDB reads it as MAP(VARCHAR, VARCHAR) {parent: another, name: report}.
    let (schema, batches) =
        read(Path::new("data/incorrect_map_schema.parquet"), 1000, true).unwrap();
    assert_eq!(schema.fields().len(), 1);
    assert_eq!(schema.field(0).name(), "my_map");
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1);
    let map = batches[0].column(0).as_map();
    assert!(map.is_valid(0));
    let entries = map.value(0);
    let keys = entries.column(0).as_string::<i32>();
    let values = entries.column(1).as_string::<i32>();
    let pairs: Vec<(&str, Option<&str>)> = (0..entries.len())
        .map(|i| (keys.value(i), values.is_valid(i).then(|| values.value(i))))
        .collect();
    assert_eq!(
        pairs,
        vec![("parent", Some("another")), ("name", Some("report"))]
    );
}

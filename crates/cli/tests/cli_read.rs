//! End-to-end tests of the reading commands of `hb` (`cat`, `scan`, `convert`) on corpus
//! files, with values checked against the pyarrow oracles.

use std::path::Path;
use std::process::Output;

use arrow_array::RecordBatch;
use bytes::Bytes;
use herringbone::{ParquetRecordBatchReaderBuilder, SchemaOptions};
use serde_json::{Value, json};

use crate::common;
use common::{fails, hb, temp_dir};

fn corpus(rel: &str) -> String {
    herringbone_testkit::corpus_root()
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

fn oracle_rows(rel: &str) -> Vec<Value> {
    let oracle = herringbone_testkit::oracle(Path::new(rel)).expect("oracle");
    oracle["rows"].as_array().expect("rows").clone()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn ok(args: &[&str]) -> String {
    let out = hb(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    stdout(&out)
}

fn jsonl(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn cat_csv_matches_the_oracle() {
    let rel = "data/alltypes_plain.parquet";
    let text = ok(&[
        "cat",
        &corpus(rel),
        "--format",
        "csv",
        "--columns",
        "id,bool_col,int_col,bigint_col",
    ]);
    let mut expected = String::from("id,bool_col,int_col,bigint_col\n");
    for row in oracle_rows(rel) {
        expected += &format!(
            "{},{},{},{}\n",
            row["id"], row["bool_col"], row["int_col"], row["bigint_col"]
        );
    }
    assert_eq!(text, expected);
}

#[test]
fn cat_table_shows_every_column() {
    let text = ok(&["cat", &corpus("data/alltypes_plain.parquet")]);
    let lines: Vec<&str> = text.lines().collect();
    // Border, header, border, 8 rows, border.
    assert_eq!(lines.len(), 12, "{text}");
    assert!(
        lines[1].starts_with("| id | bool_col | tinyint_col |"),
        "{text}"
    );
    assert!(
        lines[1].trim_end().ends_with("| timestamp_col       |"),
        "{text}"
    );
    // First row: id 4, INT96 timestamp 2009-03-01 00:00 (as nanoseconds by default),
    // the unannotated BYTE_ARRAY columns as text (their bytes are printable UTF-8).
    let first: Vec<&str> = lines[3].split('|').map(str::trim).collect();
    assert_eq!(
        first,
        [
            "",
            "4",
            "true",
            "0",
            "0",
            "0",
            "0",
            "0.0",
            "0.0",
            "03/01/09",
            "0",
            "2009-03-01T00:00:00",
            ""
        ]
    );
    assert!(lines[4].contains("| 10.1 "), "{text}");
}

#[test]
fn cat_jsonl_keeps_the_requested_column_order_and_limit() {
    let rel = "data/alltypes_plain.parquet";
    let rows = jsonl(&ok(&[
        "cat",
        &corpus(rel),
        "--format",
        "jsonl",
        "--columns",
        "double_col,id",
        "--limit",
        "3",
    ]));
    let oracle = oracle_rows(rel);
    assert_eq!(rows.len(), 3);
    for (row, want) in rows.iter().zip(&oracle) {
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["double_col", "id"]);
        assert_eq!(row["id"], want["id"]);
        let double: f64 = want["double_col"].as_str().unwrap().parse().unwrap();
        assert_eq!(row["double_col"].as_f64(), Some(double));
    }
}

#[test]
fn int96_needs_a_coarser_unit_for_spark_dates() {
    let file = corpus("data/int96_from_spark.parquet");
    // Nanoseconds (the default) overflow for the year-9999 value: a clean error that
    // names the option.
    let err = fails(&["cat", &file]);
    assert!(
        err.contains("INT96") && err.contains("--int96-unit"),
        "{err}"
    );
    let rows = jsonl(&ok(&[
        "cat",
        &file,
        "--int96-unit",
        "us",
        "--format",
        "jsonl",
        "--limit",
        "5",
    ]));
    let values: Vec<&Value> = rows.iter().map(|r| &r["a"]).collect();
    assert_eq!(
        values,
        [
            &json!("2024-01-01T20:34:56.123456"),
            &json!("2024-01-01T01:00:00"),
            &json!("9999-12-31T03:00:00"),
            &json!("2024-12-30T23:00:00"),
            &Value::Null,
        ]
    );
    // Milliseconds drop the microseconds of the first value.
    let csv = ok(&[
        "cat",
        &file,
        "--int96-unit",
        "ms",
        "--format",
        "csv",
        "--limit",
        "1",
    ]);
    assert_eq!(csv, "a\n2024-01-01T20:34:56.123\n");
    // The last value, read as microseconds, lies beyond the calendar the formatters know
    // (year ~290,000): printed as its raw count instead of failing the output.
    let csv = ok(&["cat", &file, "--int96-unit", "us", "--format", "csv"]);
    assert_eq!(
        csv.lines().collect::<Vec<_>>(),
        [
            "a",
            "2024-01-01T20:34:56.123456",
            "2024-01-01T01:00:00",
            "9999-12-31T03:00:00",
            "2024-12-30T23:00:00",
            // A null in a one-column CSV: an empty quoted field, not an empty line.
            "\"\"",
            "9089380393200000000 us since 1970-01-01 (beyond the printable calendar)"
        ]
    );
    let table = ok(&["cat", &file, "--int96-unit", "us"]);
    assert!(!table.contains("ERROR"), "{table}");
    assert!(
        table.contains("| 9089380393200000000 us since 1970-01-01"),
        "{table}"
    );
}

#[test]
fn cat_reads_struct_fields_and_leaf_paths() {
    let rel = "data/nested_structs.rust.parquet";
    let file = corpus(rel);
    let oracle = &oracle_rows(rel)[0];
    let rows = jsonl(&ok(&[
        "cat",
        &file,
        "--format",
        "jsonl",
        "--columns",
        "PC_CUR,roll_num.min",
    ]));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["PC_CUR"], oracle["PC_CUR"]);
    assert_eq!(
        rows[0]["roll_num"],
        json!({ "min": oracle["roll_num"]["min"] })
    );

    // A table cell holds a nested value as its JSON text.
    let table = ok(&["cat", &file, "--columns", "PC_CUR"]);
    assert!(
        table.contains(
            r#"| {"min":115,"max":742,"mean":416,"count":495,"sum":206195,"variance":10374} |"#
        ),
        "{table}"
    );

    // CSV holds a nested value as its JSON text.
    let csv = ok(&[
        "cat",
        &file,
        "--format",
        "csv",
        "--columns",
        "roll_num.min,PC_CUR.max",
    ]);
    assert_eq!(
        csv,
        "roll_num,PC_CUR\n\"{\"\"min\"\":190406409000602}\",\"{\"\"max\"\":742}\"\n"
    );
}

#[test]
fn cat_prints_null_structs_and_nulls() {
    let rel = "data/nulls.snappy.parquet";
    let rows = jsonl(&ok(&["cat", &corpus(rel), "--format", "jsonl"]));
    assert_eq!(rows, oracle_rows(rel));
}

#[test]
fn scan_counts_rows_and_batches() {
    let file = corpus("data/alltypes_plain.parquet");
    let text = ok(&[
        "scan",
        &file,
        "--batch-size",
        "3",
        "--columns",
        "id,string_col",
    ]);
    assert!(text.contains("\nrows:          8\n"), "{text}");
    assert!(
        text.contains("\nbatches:       3 (batch size 3)\n"),
        "{text}"
    );
    assert!(text.contains("\ncolumns:       2 top-level\n"), "{text}");
    assert!(text.contains("\nfile bytes:    1851\n"), "{text}");
    assert!(text.contains(" rows/s, "), "{text}");
    assert!(text.contains(" MB/s of file, "), "{text}");

    let text = ok(&[
        "scan",
        &corpus("data/int96_from_spark.parquet"),
        "--int96-unit",
        "s",
    ]);
    assert!(text.contains("\nrows:          6\n"), "{text}");
    fails(&["scan", &corpus("data/int96_from_spark.parquet")]);
}

/// The batches Herringbone's reader returns for `rel` (what `hb convert` should write).
fn read_with_library(rel: &str, options: SchemaOptions) -> Vec<RecordBatch> {
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(Path::new(rel)));
    ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .with_schema_options(options)
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn read_ipc(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    arrow_ipc::reader::FileReader::try_new(file, None)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

#[test]
fn convert_writes_what_the_reader_returns() {
    let dir = temp_dir("read-convert");
    for rel in [
        "data/alltypes_plain.parquet",
        "data/nested_structs.rust.parquet",
        "data/nulls.snappy.parquet",
    ] {
        let out = dir.join("out.arrow");
        let text = ok(&["convert", &corpus(rel), out.to_str().unwrap()]);
        let expected = read_with_library(rel, SchemaOptions::new());
        let rows: usize = expected.iter().map(|b| b.num_rows()).sum();
        assert!(text.starts_with(&format!("wrote {rows} rows")), "{text}");
        assert_eq!(read_ipc(&out), expected, "{rel}");
    }

    // INT96 in microseconds, with a projection, to a .feather name.
    let out = dir.join("spark.feather");
    ok(&[
        "convert",
        &corpus("data/int96_from_spark.parquet"),
        out.to_str().unwrap(),
        "--int96-unit",
        "us",
        "--columns",
        "a",
    ]);
    let expected = read_with_library(
        "data/int96_from_spark.parquet",
        SchemaOptions::new().with_int96_unit(arrow_schema::TimeUnit::Microsecond),
    );
    assert_eq!(read_ipc(&out), expected);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_exits_1_with_one_line() {
    let dir = temp_dir("read-errors");
    let good = corpus("data/alltypes_plain.parquet");
    let bytes = std::fs::read(&good).unwrap();
    // Cut short: the footer is gone.
    let truncated = dir.join("truncated.parquet");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    // Footer intact, column data overwritten: the error comes from decoding pages.
    let mut scrambled = bytes.clone();
    scrambled[4..bytes.len() / 2].fill(0xAB);
    let corrupt = dir.join("corrupt.parquet");
    std::fs::write(&corrupt, &scrambled).unwrap();
    let truncated = truncated.to_str().unwrap();
    let corrupt = corrupt.to_str().unwrap();
    let arrow_out = dir.join("out.arrow");
    let arrow_out = arrow_out.to_str().unwrap();

    for command in ["cat", "scan"] {
        let err = fails(&[command, "/nonexistent/file.parquet"]);
        assert!(err.contains("/nonexistent/file.parquet"), "{err}");
        let err = fails(&[command, &good, "--columns", "id,nope"]);
        assert!(err.contains("no column `nope`"), "{err}");
        let err = fails(&[command, &good, "--columns", "id.x"]);
        assert!(err.contains("no column `id.x`"), "{err}");
        fails(&[command, truncated]);
        fails(&[command, corrupt]);
        fails(&[command, &good, "--int96-unit", "years"]);
    }
    fails(&["cat", &good, "--format", "xml"]);
    fails(&["scan", &good, "--batch-size", "0"]);

    // A bad input leaves no output file behind.
    for input in [truncated, corrupt, "/nonexistent/file.parquet"] {
        fails(&["convert", input, arrow_out]);
        assert!(!Path::new(arrow_out).exists(), "{input}");
    }
    let xml_out = dir.join("out.xml");
    let err = fails(&["convert", &good, xml_out.to_str().unwrap()]);
    assert!(
        err.contains("unsupported output format; supported: .parquet, .arrow, .ipc, .feather, .csv, .jsonl, .ndjson"),
        "{err}"
    );
    assert!(!xml_out.exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_small_corpus_file_reads_or_fails_cleanly() {
    // Files up to 256 KiB keep this quick; the reader's own tests cover the large ones.
    let files = herringbone_testkit::corpus_files(&["data", "bad_data"]);
    let (mut read, mut failed) = (0, 0);
    for rel in files {
        let path = herringbone_testkit::corpus_root().join(&rel);
        if std::fs::metadata(&path).map_or(true, |m| m.len() > 256 * 1024) {
            continue;
        }
        let args = ["cat", path.to_str().unwrap(), "--format", "jsonl"];
        let out = hb(&args);
        match out.status.code() {
            Some(0) => read += 1,
            Some(1) => {
                assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
                failed += 1
            }
            other => panic!("{args:?} exited with {other:?} (a panic is a bug): {out:?}"),
        }
    }
    println!("{read} files printed, {failed} clean errors");
    assert!(read > 50, "{read} files printed, {failed} clean errors");
}

/// Every value of `batches`, concatenated per column, as canonical text (batch sizes
/// may differ between two reads of the same rows).
fn column_text(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let columns = batches.first().map_or(0, |b| b.num_columns());
    (0..columns)
        .map(|c| {
            let mut values = Vec::new();
            for batch in batches {
                let formatter = arrow_cast::display::ArrayFormatter::try_new(
                    batch.column(c).as_ref(),
                    &arrow_cast::display::FormatOptions::default(),
                )
                .unwrap();
                values.extend((0..batch.num_rows()).map(|i| formatter.value(i).to_string()));
            }
            values
        })
        .collect()
}

#[test]
fn convert_to_parquet_applies_the_writer_options() {
    let dir = temp_dir("read-convert-parquet");
    let rel = "data/alltypes_plain.parquet";
    let out = dir.join("out.parquet");
    let text = ok(&[
        "convert",
        &corpus(rel),
        out.to_str().unwrap(),
        "--compression",
        "zstd:5",
        "--page-version",
        "2",
        "--encoding",
        "id=DELTA_BINARY_PACKED",
        "--dictionary",
        "off",
        "--row-group-size",
        "3",
        "--statistics",
        "page",
        "--bloom-filter",
        "string_col:0.05",
        "--crc",
    ]);
    assert!(text.starts_with("wrote 8 rows"), "{text}");

    // The same values come back.
    let written = Bytes::from(std::fs::read(&out).unwrap());
    let read = ParquetRecordBatchReaderBuilder::try_new(written.clone())
        .unwrap()
        .with_verify_crc(true)
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let expected = read_with_library(rel, SchemaOptions::new());
    assert_eq!(read[0].schema(), expected[0].schema());
    assert_eq!(column_text(&read), column_text(&expected));

    // And the file is laid out as asked.
    let metadata = herringbone::read::read_metadata(&written).unwrap();
    assert_eq!(metadata.row_groups.len(), 3, "8 rows in groups of 3");
    let names: Vec<String> = metadata.schema[1..]
        .iter()
        .map(|e| e.name.to_string())
        .collect();
    let id = names.iter().position(|n| n == "id").unwrap();
    let string_col = names.iter().position(|n| n == "string_col").unwrap();
    for group in &metadata.row_groups {
        for (i, chunk) in group.columns.iter().enumerate() {
            let meta = chunk.meta_data.as_ref().unwrap();
            assert_eq!(meta.codec, herringbone::metadata::CompressionCodec::ZSTD);
            assert!(chunk.column_index_offset.is_some() && chunk.offset_index_offset.is_some());
            assert!(meta.dictionary_page_offset.is_none(), "dictionary off");
            assert_eq!(
                meta.bloom_filter_offset.is_some(),
                i == string_col,
                "column {i}"
            );
            if i == id {
                assert!(
                    meta.encodings
                        .contains(&herringbone::metadata::Encoding::DELTA_BINARY_PACKED)
                );
            }
        }
    }

    // Bad writer options are one-line errors, and leave no output behind.
    let bad = dir.join("bad.parquet");
    for (option, value) in [
        ("--compression", "zstd:99"),
        ("--compression", "lzma"),
        ("--encoding", "id=NOPE"),
        ("--page-version", "3"),
        ("--statistics", "some"),
        ("--bloom-filter", "string_col:2"),
    ] {
        let err = fails(&[
            "convert",
            &corpus(rel),
            bad.to_str().unwrap(),
            option,
            value,
        ]);
        assert!(err.contains(option), "{err}");
        assert!(!bad.exists());
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The table streams the first 20 rows by default and says how many it left out;
/// `--limit N` and `--all` change that; JSON lines print every row by default.
#[test]
fn cat_table_prints_twenty_rows_then_says_how_many_more() {
    let file = corpus("data/alltypes_tiny_pages.parquet");
    let body = |text: &str| text.lines().filter(|l| l.starts_with("| ")).count() - 1;

    let table = ok(&["cat", &file, "--columns", "id"]);
    assert_eq!(body(&table), 20, "{table}");
    assert_eq!(
        table.lines().last(),
        Some("... 7280 more rows (--limit N or --all to print more)")
    );

    let table = ok(&["cat", &file, "--columns", "id", "--limit", "3"]);
    assert_eq!(body(&table), 3, "{table}");
    assert!(table.ends_with("... 7297 more rows (--limit N or --all to print more)\n"));

    let table = ok(&["cat", &file, "--columns", "id", "--all"]);
    assert_eq!(body(&table), 7300);
    assert!(!table.contains("more row"));

    assert_eq!(jsonl(&ok(&["cat", &file, "--format", "jsonl"])).len(), 7300);
}

/// Maps with integer keys print as JSON objects keyed by the key's text (arrow-json's
/// writer refuses them: "Only UTF8 keys supported").
#[test]
fn cat_jsonl_prints_maps_with_integer_keys() {
    let rows = jsonl(&ok(&[
        "cat",
        &corpus("data/nested_maps.snappy.parquet"),
        "--format",
        "jsonl",
    ]));
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0]["a"], json!({ "a": { "1": true, "2": false } }));
}

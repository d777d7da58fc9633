//! End-to-end tests of the `hb` binary: output, exit codes, and no panics on the corpus.

use std::path::Path;
use std::process::{Command, Output};

fn hb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hb"))
        .args(args)
        .output()
        .expect("hb runs")
}

fn corpus(rel: &str) -> String {
    herringbone_testkit::corpus_root()
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

#[test]
fn schema_prints_the_message_text() {
    let out = hb(&["schema", &corpus("data/alltypes_plain.parquet")]);
    assert!(out.status.success(), "{out:?}");
    let expected = "message schema {
  optional int32 id;
  optional boolean bool_col;
  optional int32 tinyint_col;
  optional int32 smallint_col;
  optional int32 int_col;
  optional int64 bigint_col;
  optional float float_col;
  optional double double_col;
  optional binary date_string_col;
  optional binary string_col;
  optional int96 timestamp_col;
}
";
    assert_eq!(stdout(&out), expected);
}

#[test]
fn meta_json_has_the_documented_fields() {
    let rel = "data/data_index_bloom_encoding_stats.parquet";
    let out = hb(&["meta", "--json", &corpus(rel)]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("valid JSON");
    let oracle = herringbone_testkit::oracle(Path::new(rel)).expect("oracle");
    assert_eq!(v["num_rows"], oracle["num_rows"]);
    assert_eq!(v["num_row_groups"], oracle["num_row_groups"]);
    assert_eq!(v["created_by"], oracle["created_by"]);
    assert!(v["schema"].as_str().unwrap().starts_with("message "));
    assert!(v["key_value_metadata"].is_object());
    let rg = &v["row_groups"][0];
    assert_eq!(rg["num_rows"], 14);
    assert!(rg["total_byte_size"].as_i64().unwrap() > 0);
    let col = &rg["columns"][0];
    assert_eq!(col["path"], "String");
    assert_eq!(col["physical_type"], "BYTE_ARRAY");
    assert_eq!(col["logical_type"], "STRING");
    assert_eq!(col["compression"], "GZIP");
    assert_eq!(col["num_values"], 14);
    assert!(
        col["encodings"]
            .as_array()
            .unwrap()
            .contains(&"PLAIN".into())
    );
    assert!(col["total_compressed_size"].as_i64().unwrap() > 0);
    assert!(col["total_uncompressed_size"].as_i64().unwrap() > 0);
    assert!(col["bloom_filter_offset"].as_i64().is_some());
    let stats = &col["statistics"];
    assert_eq!(stats["null_count"], 0);
    assert_eq!(stats["min"], "Hello");
    assert_eq!(stats["max"], "today");
}

#[test]
fn meta_tables_show_types_and_statistics() {
    let out = hb(&["meta", &corpus("data/int32_decimal.parquet")]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("rows:            24"), "{text}");
    assert!(text.contains("DECIMAL(4,2)"), "{text}");
    // Statistics are rendered as decimals with the column's scale.
    assert!(text.contains("1.00") && text.contains("24.00"), "{text}");
}

#[test]
fn bad_input_exits_1_with_one_line() {
    let dir = std::env::temp_dir().join(format!("hb-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_parquet = dir.join("not.parquet");
    std::fs::write(&not_parquet, b"hello, this is not a parquet file").unwrap();
    for args in [
        vec!["meta", not_parquet.to_str().unwrap()],
        vec!["schema", "/nonexistent/file.parquet"],
        vec!["meta", &corpus("data/uniform_encryption.parquet.encrypted")],
    ] {
        let out = hb(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.lines().count(),
            1,
            "{args:?}: one-line error, got {err:?}"
        );
        assert!(err.starts_with("hb: "), "{err}");
    }
    let out = hb(&["meta", &corpus("data/uniform_encryption.parquet.encrypted")]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("encrypted"),
        "{out:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_corpus_file_gives_metadata_or_a_clean_error() {
    let files = herringbone_testkit::corpus_files(&["data", "bad_data", "shredded_variant"]);
    assert!(files.len() > 200, "corpus has {} files", files.len());
    let (mut ok, mut failed) = (0, 0);
    for rel in files {
        let path = herringbone_testkit::corpus_root().join(&rel);
        for args in [
            vec!["meta", "--json", path.to_str().unwrap()],
            vec!["schema", path.to_str().unwrap()],
        ] {
            let out = hb(&args);
            match out.status.code() {
                Some(0) => ok += 1,
                Some(1) => failed += 1,
                other => panic!("{args:?} exited with {other:?} (a panic is a bug): {out:?}"),
            }
        }
    }
    println!("{ok} commands succeeded, {failed} reported a clean error");
    assert!(ok > 400);
}

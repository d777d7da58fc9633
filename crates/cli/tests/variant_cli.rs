//! `hb variant` end to end: the binary prints the JSON of corpus Variants and fails with
//! one line on bad input; Variant columns in `hb cat`, `hb convert`, `hb schema`, `hb meta`.

use std::process::Command;

use crate::common;

fn hb() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hb"))
}

#[test]
fn prints_corpus_variant_json() {
    let dir = herringbone_testkit::corpus_root().join("variant");
    let output = hb()
        .arg("variant")
        .arg(dir.join("object_nested.metadata"))
        .arg(dir.join("object_nested.value"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        concat!(
            r#"{"id":1,"observation":{"location":"In the Volcano","time":"12:34:56","#,
            r#""value":{"humidity":456,"temperature":123}},"#,
            r#""species":{"name":"lava monster","population":6789}}"#,
            "\n"
        )
    );
    let output = hb()
        .arg("variant")
        .arg(dir.join("primitive_decimal16.metadata"))
        .arg(dir.join("primitive_decimal16.value"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "12345678912345678.90\n"
    );
}

#[test]
fn bad_value_fails_with_one_line() {
    let dir = herringbone_testkit::corpus_root().join("variant");
    let scratch = std::env::temp_dir().join(format!("hb-variant-cli-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let truncated = scratch.join("truncated.value");
    // An int64 header with only 3 of its 8 bytes.
    std::fs::write(&truncated, [0x18, 1, 2, 3]).unwrap();
    let output = hb()
        .arg("variant")
        .arg(dir.join("primitive_int64.metadata"))
        .arg(&truncated)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&scratch).unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("truncated int64"), "{stderr}");
    assert!(output.stdout.is_empty());
}

/// Runs `hb` with `args` and returns its stdout, failing the test on a non-zero exit.
fn ok(args: &[&str]) -> String {
    let out = common::hb(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn cat_prints_shredded_variants_as_json_in_every_format() {
    // Case 83: four rows of a shredded object column, the first one null.
    let file = herringbone_testkit::corpus_root().join("shredded_variant/case-083.parquet");
    let file = file.to_str().unwrap();
    let jsonl = ok(&["cat", file, "--format", "jsonl"]);
    let rows: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["var"], serde_json::Value::Null);
    // A JSON value, not a quoted string.
    assert!(rows[1]["var"].is_object(), "{jsonl}");
    assert_eq!(rows[1]["var"]["c"]["b"], "iceberg");
    let csv = ok(&["cat", file, "--format", "csv"]);
    assert!(
        csv.lines().nth(2).unwrap().contains(r#"""b"":""iceberg"""#),
        "{csv}"
    );
    let table = ok(&["cat", file]);
    assert!(table.contains(r#""b":"iceberg""#), "{table}");
}

#[test]
fn convert_makes_variant_columns_from_json_lines_and_shreds_them() {
    let dir = common::temp_dir("variant-convert");
    let input = dir.join("in.jsonl");
    std::fs::write(
        &input,
        concat!(
            r#"{"id": 1, "v": {"a": 1, "b": "x", "n": [1.50, 2]}}"#,
            "\n",
            r#"{"id": 2, "v": "just text"}"#,
            "\n\n",
            r#"{"id": 3, "v": null}"#,
            "\n",
            r#"{"id": 4}"#,
            "\n",
            r#"{"v": {"a": 99999999999999, "b": "y"}, "id": 5}"#,
            "\n",
        ),
    )
    .unwrap();
    let input = input.to_str().unwrap();
    let expected = [
        r#"{"id":1,"v":{"a":1,"b":"x","n":[1.50,2]}}"#,
        r#"{"id":2,"v":"just text"}"#,
        r#"{"id":3,"v":null}"#,
        r#"{"id":4,"v":null}"#,
        r#"{"id":5,"v":{"a":99999999999999,"b":"y"}}"#,
    ];
    for (name, extra, shape) in [
        ("plain.parquet", None, "v: unshredded"),
        (
            "auto.parquet",
            Some("v=auto"),
            "v: shredded as {a:int64,b:string}",
        ),
        (
            "shape.parquet",
            Some("v=a:int64,n:[decimal(9,2)]"),
            "v: shredded as {a:int64,n:[decimal4(9,2)]}",
        ),
    ] {
        let output = dir.join(name);
        let output = output.to_str().unwrap();
        let mut args = vec!["convert", input, output, "--variant", "v"];
        if let Some(extra) = extra {
            args.extend(["--shred", extra]);
        }
        ok(&args);
        let schema = ok(&["schema", output]);
        assert!(schema.contains("group v (VARIANT(1))"), "{schema}");
        assert!(
            schema.contains(&format!("variant columns:\n  {shape}\n")),
            "{schema}"
        );
        let meta = ok(&["meta", output]);
        assert!(
            meta.contains(&format!("variant columns:\n  {shape}\n")),
            "{meta}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&ok(&["meta", "--json", output])).unwrap();
        assert_eq!(json["variant_columns"][0]["path"], "v");
        let lines = ok(&["cat", output, "--format", "jsonl"]);
        assert_eq!(lines.lines().collect::<Vec<_>>(), expected, "{name}");
    }
    // Back to JSON lines: the Variant as a JSON value again.
    let back = dir.join("back.jsonl");
    ok(&[
        "convert",
        dir.join("auto.parquet").to_str().unwrap(),
        back.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(&back)
            .unwrap()
            .lines()
            .collect::<Vec<_>>(),
        expected
    );
    // Errors name the problem.
    let err = common::fails(&[
        "convert",
        input,
        dir.join("x.parquet").to_str().unwrap(),
        "--variant",
        "w",
    ]);
    assert!(err.contains("--variant w: no line of the first"), "{err}");
    let err = common::fails(&[
        "convert",
        input,
        dir.join("y.parquet").to_str().unwrap(),
        "--variant",
        "v",
        "--shred",
        "v=a:int65",
    ]);
    assert!(err.contains("unknown type `int65`"), "{err}");
    let err = common::fails(&[
        "convert",
        input,
        dir.join("z.parquet").to_str().unwrap(),
        "--variant",
        "v",
        "--shred",
        "id=auto",
    ]);
    assert!(err.contains("not a Variant column"), "{err}");
}

#[test]
fn convert_parses_a_csv_text_column_as_variants() {
    let dir = common::temp_dir("variant-csv");
    let input = dir.join("in.csv");
    std::fs::write(&input, "id,doc\n1,\"{\"\"k\"\": [1, 2]}\"\n2,7\n").unwrap();
    let output = dir.join("out.parquet");
    ok(&[
        "convert",
        input.to_str().unwrap(),
        output.to_str().unwrap(),
        "--variant",
        "doc",
    ]);
    let lines = ok(&["cat", output.to_str().unwrap(), "--format", "jsonl"]);
    assert_eq!(
        lines.lines().collect::<Vec<_>>(),
        [r#"{"id":1,"doc":{"k":[1,2]}}"#, r#"{"id":2,"doc":7}"#]
    );
}

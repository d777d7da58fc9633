//! `hb pages`, `hb head`, `hb cat --offset`, `hb verify`, `hb rewrite`, `hb merge` and
//! `hb recover` end to end.

use crate::common;

use common::{fails, hb, temp_dir};

fn data(name: &str) -> String {
    herringbone_testkit::corpus_data_dir()
        .join(name)
        .display()
        .to_string()
}

fn stdout(args: &[&str]) -> String {
    let out = hb(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn pages_lists_every_page_with_its_crc() {
    let text = stdout(&["pages", &data("datapage_v1-corrupt-checksum.parquet")]);
    assert!(
        text.contains("row group 0, column a (INT32, UNCOMPRESSED), bytes 4..20540"),
        "{text}"
    );
    assert_eq!(text.matches(" BAD").count(), 2, "{text}");
    assert_eq!(text.matches(" ok").count(), 2, "{text}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "pages",
        "--json",
        &data("alltypes_plain.parquet"),
    ]))
    .unwrap();
    let first = &json[0]["columns"][0]["pages"];
    assert_eq!(first[0]["type"], "dictionary");
    assert_eq!(first[1]["type"], "data v1");
    assert_eq!(first[1]["num_values"], 8);
}

#[test]
fn head_and_cat_offset() {
    let text = stdout(&[
        "head",
        "-n",
        "2",
        "--columns",
        "id",
        "--format",
        "csv",
        &data("alltypes_plain.parquet"),
    ]);
    assert_eq!(text, "id\n4\n5\n");
    let text = stdout(&[
        "cat",
        "--offset",
        "6",
        "--columns",
        "id",
        "--format",
        "csv",
        &data("alltypes_plain.parquet"),
    ]);
    assert_eq!(text, "id\n0\n1\n");
    let text = stdout(&[
        "cat",
        "--offset",
        "6",
        "--limit",
        "1",
        "--columns",
        "id",
        "--format",
        "csv",
        &data("alltypes_plain.parquet"),
    ]);
    assert_eq!(text, "id\n0\n");
}

#[test]
fn verify_exit_statuses_and_json() {
    let ok = hb(&["verify", &data("alltypes_tiny_pages_plain.parquet")]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let bad = hb(&[
        "verify",
        &data("rle-dict-uncompressed-corrupt-checksum.parquet"),
    ]);
    assert_eq!(bad.status.code(), Some(1));
    let text = String::from_utf8(bad.stdout).unwrap();
    assert!(
        text.contains("problem: row group 0, column long_field, page 0, offset 4: crc"),
        "{text}"
    );
    let bad_data = herringbone_testkit::corpus_root().join("bad_data/PARQUET-1481.parquet");
    let unreadable = hb(&["verify", "--json", bad_data.to_str().unwrap()]);
    assert_eq!(unreadable.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&unreadable.stdout).unwrap();
    assert_eq!(json["readable"], false);
    assert_eq!(json["problems"][0]["check"], "schema");
    let missing = hb(&["verify", "/nonexistent.parquet"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn rewrite_and_merge_read_back_equal_and_verify_clean() {
    let dir = temp_dir("tools-rewrite");
    let input = data("alltypes_tiny_pages.parquet");
    let rewritten = dir.join("rewritten.parquet");
    let rewritten = rewritten.to_str().unwrap();
    let text = stdout(&[
        "rewrite",
        &input,
        rewritten,
        "--compression",
        "lzo",
        "--statistics",
        "page",
        "--crc",
        "--bloom-filter",
        "id",
    ]);
    assert!(text.starts_with("wrote 7300 rows"), "{text}");
    assert_eq!(hb(&["verify", rewritten]).status.code(), Some(0));
    let original = stdout(&["cat", "--format", "jsonl", &input]);
    assert_eq!(stdout(&["cat", "--format", "jsonl", rewritten]), original);
    let merged = dir.join("merged.parquet");
    let merged = merged.to_str().unwrap();
    let text = stdout(&["merge", merged, rewritten, rewritten]);
    assert!(
        text.contains("14600 rows in 2 row groups (column chunks copied)"),
        "{text}"
    );
    assert_eq!(hb(&["verify", merged]).status.code(), Some(0));
    assert_eq!(
        stdout(&["cat", "--format", "jsonl", merged]),
        original.repeat(2)
    );
    let reencoded = dir.join("reencoded.parquet");
    let reencoded = reencoded.to_str().unwrap();
    let text = stdout(&["merge", reencoded, rewritten, &input]);
    assert!(
        text.contains("(re-encoded: the Parquet schema of input 1 differs"),
        "{text}"
    );
    assert_eq!(
        stdout(&["cat", "--format", "jsonl", reencoded]),
        original.repeat(2)
    );
    let err = fails(&["merge", rewritten, rewritten]);
    assert!(err.contains("the output would overwrite an input"), "{err}");
}

#[test]
fn recover_a_file_without_its_footer() {
    let dir = temp_dir("tools-recover");
    let input = std::fs::read(data("alltypes_tiny_pages_plain.parquet")).unwrap();
    let cut = dir.join("cut.parquet");
    std::fs::write(&cut, &input[..input.len() - 3000]).unwrap();
    let out = dir.join("recovered.parquet");
    let schema = dir.join("schema.txt");
    std::fs::write(
        &schema,
        stdout(&["schema", &data("alltypes_tiny_pages_plain.parquet")]),
    )
    .unwrap();
    let text = stdout(&[
        "recover",
        cut.to_str().unwrap(),
        out.to_str().unwrap(),
        "--schema",
        schema.to_str().unwrap(),
    ]);
    assert!(
        text.starts_with("recovered 7300 rows in 1 row groups"),
        "{text}"
    );
    assert!(text.contains("(structure from the page headers)"), "{text}");
    assert_eq!(
        stdout(&["cat", "--format", "jsonl", out.to_str().unwrap()]),
        stdout(&[
            "cat",
            "--format",
            "jsonl",
            &data("alltypes_tiny_pages_plain.parquet")
        ])
    );
    let err = fails(&["recover", cut.to_str().unwrap(), out.to_str().unwrap()]);
    assert!(err.contains("give one"), "{err}");
}

//! `hb variant` end to end: the binary prints the JSON of corpus Variants and fails with
//! one line on bad input.

use std::process::Command;

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

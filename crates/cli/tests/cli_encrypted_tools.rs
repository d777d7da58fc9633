//! `hb verify`, `hb pages` and `hb merge` on encrypted files with the key options
//! (`--footer-key`, `--column-key`, `--aad-prefix`, as `hb cat` takes them).

use crate::common;

use common::{fails, hb, temp_dir};

fn data(name: &str) -> String {
    herringbone_testkit::corpus_data_dir()
        .join(name)
        .display()
        .to_string()
}

/// kf, kc1 and kc2 of the corpus (INVENTORY.md) in hex.
const KF: &str = "30313233343536373839303132333435";
const KC1: &str = "double_field=31323334353637383930313233343530";
const KC2: &str = "float_field=31323334353637383930313233343531";
const FILE: &str = "encrypt_columns_and_footer.parquet.encrypted";

fn with_keys<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.extend(["--footer-key", KF, "--column-key", KC1, "--column-key", KC2]);
    all
}

fn stdout(args: &[&str]) -> String {
    let out = hb(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn verify_checks_encrypted_modules_with_the_keys() {
    let text = stdout(&with_keys(&["verify", &data(FILE)]));
    assert!(text.contains(": ok ("), "{text}");
    assert!(text.contains("1 row group read through Arrow"), "{text}");
    assert!(
        text.contains("13 encrypted modules authenticated"),
        "{text}"
    );
    // Without keys the encrypted footer cannot be read: exit 2.
    let out = hb(&["verify", &data(FILE)]);
    assert_eq!(out.status.code(), Some(2));
    // A wrong footer key: exit 2, the tag mismatch named.
    let out = hb(&["verify", "--footer-key", &KC1[13..], &data(FILE)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("tag mismatch"));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&with_keys(&["verify", "--json", &data(FILE)]))).unwrap();
    assert_eq!(json["ok"], true);
    assert_eq!(json["checked"]["encrypted_modules"], 13);
}

#[test]
fn pages_lists_the_pages_of_encrypted_chunks_with_the_keys() {
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&with_keys(&["pages", "--json", &data(FILE)]))).unwrap();
    let columns = json[0]["columns"].as_array().unwrap();
    let double = columns
        .iter()
        .find(|c| c["column"] == "double_field")
        .unwrap();
    assert_eq!(double["problem"], serde_json::Value::Null);
    let pages = double["pages"].as_array().unwrap();
    assert_eq!(pages[0]["type"], "dictionary");
    assert_eq!(pages[1]["type"], "data v1");
    assert_eq!(pages[1]["num_values"], 50);
    // The header module: length, nonce and tag around the Thrift header.
    assert!(pages[1]["header_size"].as_u64().unwrap() > 28);
    // With the footer key only, the columns under their own keys are named.
    let text = stdout(&["pages", "--footer-key", KF, &data(FILE)]);
    assert!(
        text.contains("encrypted column: row group 0: key required: column double_field"),
        "{text}"
    );
    let err = fails(&["pages", &data(FILE)]);
    assert!(err.contains("keys required"), "{err}");
}

#[test]
fn merge_re_encodes_encrypted_inputs_with_the_keys() {
    let dir = temp_dir("encrypted-merge");
    let out = dir.join("merged.parquet");
    let out = out.to_str().unwrap();
    let text = stdout(&with_keys(&["merge", out, &data(FILE), &data(FILE)]));
    assert!(
        text.contains("100 rows in 2 row groups (re-encoded: input 0 is encrypted"),
        "{text}"
    );
    // The output is encrypted with the same keys, as `hb convert` does.
    assert_eq!(hb(&["cat", out]).status.code(), Some(1));
    let rows = stdout(&with_keys(&["cat", "--format", "jsonl", "--all", out]));
    let once = stdout(&with_keys(&[
        "cat",
        "--format",
        "jsonl",
        "--all",
        &data(FILE),
    ]));
    assert_eq!(rows, format!("{once}{once}"));
    assert!(stdout(&with_keys(&["verify", out])).contains(": ok ("));
    // Without keys: refused, naming why.
    let err = fails(&["merge", out, &data(FILE)]);
    assert!(err.contains("keys required"), "{err}");
}

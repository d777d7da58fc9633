//! `hb` on encrypted files: the key options on every reading command (`schema`, `meta`,
//! `cat`, `scan`, `convert`) and the encryption options of `convert` to Parquet.

use crate::common;

use common::{fails, hb, temp_dir};

const FOOTER: &str = "30313233343536373839303132333435"; // "0123456789012345"
const KC1: &str = "31323334353637383930313233343530"; // "1234567890123450", double_field
const KC2: &str = "31323334353637383930313233343531"; // "1234567890123451", float_field

fn corpus(relative: &str) -> String {
    herringbone_testkit::corpus_root()
        .join(relative)
        .to_string_lossy()
        .into_owned()
}

fn stdout(args: &[&str]) -> String {
    let out = hb(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_reading_command_takes_the_keys() {
    let file = corpus("data/encrypt_columns_and_footer.parquet.encrypted");
    let keys = [
        "--footer-key",
        FOOTER,
        "--column-key",
        &format!("double_field={KC1}"),
        "--column-key",
        &format!("float_field={KC2}"),
    ];
    let with = |command: &[&str]| -> Vec<String> {
        command
            .iter()
            .chain(keys.iter())
            .map(|s| s.to_string())
            .collect()
    };
    let schema = stdout(
        &with(&["schema", &file])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(schema.contains("required double double_field"), "{schema}");
    let meta = stdout(
        &with(&["meta", "--json", &file])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(meta.contains("\"double_field\""), "{meta}");
    let scan = stdout(
        &with(&["scan", &file])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(scan.contains("rows:          50\n"), "{scan}");
    let cat = stdout(
        &with(&[
            "cat",
            &file,
            "--columns",
            "double_field",
            "--limit",
            "3",
            "--format",
            "csv",
        ])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
    // The first doubles of the corpus' 50 encrypted rows, as pyarrow reads them.
    let lines: Vec<&str> = cat.lines().collect();
    assert_eq!(lines[0], "double_field");
    let values: Vec<f64> = lines[1..].iter().map(|v| v.parse().unwrap()).collect();
    assert_eq!(values, [0.0, 1.1111111, 2.2222222]);
    // Without the column keys the footer decrypts, the two columns cannot be read.
    let err = fails(&["cat", &file, "--footer-key", FOOTER]);
    // float_field is the first of the two in the schema.
    assert!(
        err.contains("column float_field is encrypted with its own key"),
        "{err}"
    );
    // Without any key the footer cannot be read.
    let err = fails(&["schema", &file]);
    assert!(err.contains("encrypted"), "{err}");
    let err = fails(&["scan", &file, "--footer-key", "0011"]);
    assert!(
        err.contains("--footer-key: expected 32, 48 or 64 hex digits"),
        "{err}"
    );
    let err = fails(&["meta", &file, "--footer-key", KC1]);
    assert!(err.contains("tag mismatch"), "{err}");
    let err = fails(&[
        "scan",
        &file,
        "--footer-key",
        FOOTER,
        "--column-key",
        &format!("nope={KC1}"),
    ]);
    assert!(err.contains("nope"), "{err}");
    // The AAD prefix the file does not store.
    let file = corpus("data/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted");
    let err = fails(&["scan", &file, "--footer-key", FOOTER]);
    assert!(err.contains("AAD prefix"), "{err}");
    let scan = stdout(&[
        "scan",
        &file,
        "--footer-key",
        FOOTER,
        "--aad-prefix",
        "tester",
        "--columns",
        "int32_field",
    ]);
    assert!(scan.contains("rows:          50\n"), "{scan}");
}

#[test]
fn convert_writes_encrypted_parquet_and_reads_it_back() {
    let dir = temp_dir("encryption");
    let source = dir.join("source.parquet");
    let plain = corpus("data/alltypes_plain.parquet");
    std::fs::copy(&plain, &source).unwrap();
    let expected = stdout(&["cat", source.to_str().unwrap(), "--format", "jsonl"]);
    for (name, options) in [
        ("gcm", vec!["--footer-key", FOOTER]),
        (
            "ctr_plaintext_footer",
            vec![
                "--footer-key",
                FOOTER,
                "--encryption-algorithm",
                "gcm-ctr",
                "--plaintext-footer",
            ],
        ),
        (
            "aad",
            vec!["--footer-key", FOOTER, "--aad-prefix", "part-3"],
        ),
        (
            "column_keys",
            vec!["--footer-key", FOOTER, "--column-key", &format!("id={KC1}")],
        ),
    ] {
        let out = dir.join(format!("{name}.parquet"));
        let out = out.to_str().unwrap();
        let mut args = vec!["convert", source.to_str().unwrap(), out];
        args.extend(&options);
        stdout(&args);
        let keys: Vec<&str> = key_options(&options);
        let mut read = vec!["cat", out, "--format", "jsonl"];
        read.extend(&keys);
        assert_eq!(stdout(&read), expected, "{name}");
        let magic = &std::fs::read(out).unwrap()[..4];
        assert_eq!(
            magic,
            if name.contains("plaintext") {
                b"PAR1"
            } else {
                b"PARE"
            },
            "{name}"
        );
    }
    // Column keys: the other columns are plaintext, so with a plaintext footer they read
    // without keys.
    let out = dir.join("plain_columns.parquet");
    let out = out.to_str().unwrap();
    stdout(&[
        "convert",
        source.to_str().unwrap(),
        out,
        "--footer-key",
        FOOTER,
        "--column-key",
        &format!("id={KC1}"),
        "--plaintext-footer",
    ]);
    let cat = stdout(&[
        "cat",
        out,
        "--columns",
        "bool_col",
        "--format",
        "csv",
        "--limit",
        "2",
    ]);
    assert_eq!(cat, "bool_col\ntrue\nfalse\n");
    let err = fails(&["cat", out, "--columns", "id"]);
    assert!(err.contains("encrypted"), "{err}");
    let err = fails(&[
        "convert",
        source.to_str().unwrap(),
        dir.join("x.parquet").to_str().unwrap(),
        "--plaintext-footer",
    ]);
    assert!(err.contains("needs --footer-key"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The key options among `options` (`--footer-key`, `--column-key`, `--aad-prefix` and
/// their values).
fn key_options<'a>(options: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < options.len() {
        if matches!(options[i], "--footer-key" | "--column-key" | "--aad-prefix") {
            out.extend(&options[i..i + 2]);
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn filtered_reads_of_encrypted_files_prune_with_the_keys() {
    // parquet-java's file: 2000 rows in one row group, page indexes on every column,
    // Bloom filters on double_field (kc1) and float_field (kc2).
    let file = corpus("data/encrypt_columns_and_footer_bloom_filter.parquet.encrypted");
    let keys = [
        "--footer-key".to_string(),
        FOOTER.to_string(),
        "--column-key".to_string(),
        format!("double_field={KC1}"),
        "--column-key".to_string(),
        format!("float_field={KC2}"),
    ];
    let run = |command: &[&str]| -> String {
        let args: Vec<&str> = command
            .iter()
            .copied()
            .chain(keys.iter().map(String::as_str))
            .collect();
        stdout(&args)
    };
    let cat = run(&[
        "cat",
        &file,
        "--filter",
        "int32_field >= 1000 AND int32_field < 1003",
        "--format",
        "csv",
    ]);
    assert_eq!(
        cat,
        "double_field,float_field,int32_field,name\n\
         1000.5,1000.25,1000,name_1000\n\
         1001.5,1001.25,1001,name_1001\n\
         1002.5,1002.25,1002,name_1002\n"
    );
    // The decrypted page index of int32_field keeps its second page only.
    let scan = run(&[
        "scan",
        &file,
        "--filter",
        "int32_field >= 1000 AND int32_field < 1003",
    ]);
    assert!(
        scan.contains("rows:          matched 3 of 2000 (1910 left after pruning)"),
        "{scan}"
    );
    assert!(scan.contains("pages:         read 7 of 11"), "{scan}");
    // The decrypted page index of double_field (its own key) keeps its first page.
    let scan = run(&["scan", &file, "--filter", "double_field = 7.5"]);
    assert!(
        scan.contains("rows:          matched 1 of 2000 (942 left after pruning)"),
        "{scan}"
    );
    // The decrypted Bloom filter of double_field rules out a value between its bounds.
    let scan = run(&["scan", &file, "--filter", "double_field = 7.25"]);
    assert!(
        scan.contains("row groups:    read 0 of 1 (skipped: 0 by statistics, 1 by Bloom filters"),
        "{scan}"
    );
    let cat = run(&[
        "cat",
        &file,
        "--filter",
        "double_field = 7.25",
        "--format",
        "csv",
    ]);
    assert!(cat.lines().nth(1).is_none(), "{cat}");
    // Offset and limit count matching rows.
    let cat = run(&[
        "cat",
        &file,
        "--filter",
        "double_field > 1990",
        "--offset",
        "3",
        "--limit",
        "2",
        "--format",
        "csv",
    ]);
    assert_eq!(
        cat,
        "double_field,float_field,int32_field,name\n\
         1993.5,1993.25,1993,name_1993\n\
         1994.5,1994.25,1994,name_1994\n"
    );
    // A filter on a column whose key is missing: an error naming the column.
    let err = fails(&[
        "cat",
        &file,
        "--footer-key",
        FOOTER,
        "--column-key",
        &format!("float_field={KC2}"),
        "--filter",
        "double_field = 7.5",
    ]);
    assert!(
        err.contains("column double_field is encrypted with its own key"),
        "{err}"
    );
}

//! `hb cat --format jsonl` and `--format csv` over every corpus file pyarrow reads (its
//! oracle says `readable_by_pyarrow`): exit 0, and JSON lines hold exactly one JSON object
//! per row, as many rows as pyarrow decoded.
//!
//! One file holds INT96 timestamps outside what nanoseconds can hold
//! (`int96_from_spark.parquet`, year 9999 and the like): pyarrow wraps them around into
//! wrong instants, Herringbone refuses with an error naming `--int96-unit`; that file is
//! printed with `--int96-unit us`, and the test checks it is the only one.
//!
//! The shredded Variant cases that `shredded_variant/cases.json` marks with an
//! `error_message` hold Variants the specification calls invalid (a conflicting `value`
//! and `typed_value`, an unsupported shredded type); pyarrow reads them as plain structs,
//! `hb cat` renders Variants and must refuse them with exit 1 and an error saying why.
//! The `-INVALID` cases (a field both shredded and in `value`) are ones the
//! specification lets a reader either read or refuse: `hb cat` refuses with "invalid
//! variant" or prints every row.
//!
//! Encrypted files are left out (they need keys on the command line). The one file pyarrow
//! itself can only read one row at a time, `large_string_map.brotli.parquet` (two rows of
//! about a gigabyte of map keys each), has its own ignored test: it needs several GB of
//! memory and minutes of a debug build.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs `hb cat FILE --format FORMAT`, handing its stdout to `consume` as it streams;
/// returns the exit code and stderr.
fn cat(
    file: &Path,
    format: &str,
    extra: &[&str],
    consume: impl FnOnce(&mut dyn BufRead),
) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hb"))
        .args(["cat", file.to_str().unwrap(), "--format", format])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hb runs");
    let mut stderr = child.stderr.take().unwrap();
    // Drain stderr on a thread so a chatty failure cannot block the child.
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).ok();
        text
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    consume(&mut stdout);
    // Whatever `consume` left unread.
    std::io::copy(&mut stdout, &mut std::io::sink()).ok();
    let status = child.wait().expect("hb exits");
    (status.code().unwrap_or(-1), errors.join().unwrap())
}

/// The number of JSON lines, each checked to be one JSON object.
fn count_json_objects(file: &Path, out: &mut dyn BufRead) -> usize {
    let mut line = Vec::new();
    let mut count = 0;
    loop {
        line.clear();
        let n = out.read_until(b'\n', &mut line).expect("read hb output");
        if n == 0 {
            return count;
        }
        assert_eq!(
            line.last(),
            Some(&b'\n'),
            "{}: unterminated line",
            file.display()
        );
        let value: Value = serde_json::from_slice(&line).unwrap_or_else(|e| {
            panic!(
                "{}: line {} is not JSON ({e}): {}",
                file.display(),
                count + 1,
                String::from_utf8_lossy(&line[..line.len().min(300)])
            )
        });
        assert!(
            value.is_object(),
            "{}: line {} is not an object",
            file.display(),
            count + 1
        );
        count += 1;
    }
}

/// Corpus files pyarrow reads, with the number of rows it decoded.
fn readable_files(large: bool) -> Vec<(std::path::PathBuf, u64)> {
    let mut files = Vec::new();
    for rel in herringbone_testkit::corpus_files(&["data", "bad_data", "shredded_variant"]) {
        let Some(oracle) = herringbone_testkit::oracle(&rel) else {
            continue;
        };
        if oracle["readable_by_pyarrow"] != Value::Bool(true) || !oracle["decryption"].is_null() {
            continue;
        }
        let streamed = oracle["read_method"] != "pq.read_table";
        if streamed != large {
            continue;
        }
        let rows = oracle["rows_total_decoded"].as_u64().expect("row count");
        files.push((herringbone_testkit::corpus_root().join(&rel), rows));
    }
    files
}

/// The shredded Variant cases expected to fail, by file name (from `cases.json`).
fn invalid_variant_cases() -> Vec<String> {
    let path = herringbone_testkit::corpus_root().join("shredded_variant/cases.json");
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let cases: Value = serde_json::from_str(&text).expect("cases.json is JSON");
    cases
        .as_array()
        .expect("cases.json is an array")
        .iter()
        .filter(|case| case.get("error_message").is_some())
        .filter_map(|case| case["parquet_file"].as_str().map(str::to_string))
        .collect()
}

/// Checks every file; returns the files that needed `--int96-unit us`.
fn check(files: &[(std::path::PathBuf, u64)]) -> Vec<String> {
    let invalid = invalid_variant_cases();
    let mut coarser = Vec::new();
    let mut refused = 0;
    for (file, rows) in files {
        let in_variant_cases = file.parent().and_then(|p| p.file_name())
            == Some(std::ffi::OsStr::new("shredded_variant"));
        let name = file.file_name().unwrap().to_string_lossy();
        if in_variant_cases && invalid.iter().any(|n| *n == name) {
            for format in ["jsonl", "csv", "table"] {
                let (code, err) = cat(file, format, &[], |_| {});
                assert_eq!(
                    code,
                    1,
                    "{}: invalid Variant printed as {format}",
                    file.display()
                );
                let err = err.to_lowercase();
                assert!(
                    err.contains("invalid variant") || err.contains("unsupported"),
                    "{}: {format}: {err}",
                    file.display()
                );
            }
            refused += 1;
            continue;
        }
        let mut objects = 0;
        let mut extra: &[&str] = &[];
        let (mut code, mut err) = cat(file, "jsonl", extra, |out| {
            objects = count_json_objects(file, out)
        });
        if in_variant_cases && name.contains("-INVALID") && code == 1 {
            assert!(err.contains("invalid variant"), "{}: {err}", file.display());
            continue;
        }
        if code == 1 && err.contains("--int96-unit") {
            coarser.push(file.file_name().unwrap().to_string_lossy().into_owned());
            extra = &["--int96-unit", "us"];
            (code, err) = cat(file, "jsonl", extra, |out| {
                objects = count_json_objects(file, out)
            });
        }
        assert_eq!(code, 0, "{}: hb cat --format jsonl: {err}", file.display());
        assert_eq!(objects as u64, *rows, "{}: rows", file.display());

        let mut header = String::new();
        let (code, err) = cat(file, "csv", extra, |out| {
            out.read_line(&mut header).ok();
        });
        assert_eq!(code, 0, "{}: hb cat --format csv: {err}", file.display());
        assert!(header.ends_with('\n'), "{}: no CSV header", file.display());
    }
    assert!(
        invalid.is_empty() || refused > 0,
        "no invalid Variant case among the readable files"
    );
    coarser
}

#[test]
fn cat_jsonl_and_csv_over_every_file_pyarrow_reads() {
    let files = readable_files(false);
    assert!(files.len() > 200, "only {} readable files", files.len());
    assert_eq!(check(&files), ["int96_from_spark.parquet"]);
}

#[test]
#[ignore = "several GB of memory: run with --ignored on a machine with room"]
fn cat_jsonl_and_csv_over_the_file_pyarrow_streams() {
    let files = readable_files(true);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(check(&files).is_empty());
}

//! `hb cat --filter` and `hb scan --filter`: the matching rows, what was pruned, and
//! errors that name the filter's problem.

use crate::common;
use common::{fails, hb, temp_dir};

fn ok(args: &[&str]) -> String {
    let out = hb(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// A CSV of 1,000 rows converted to Parquet in row groups of 100, in a folder of the
/// test's own (`test`): the tests run in parallel and would overwrite one another's file.
fn file(test: &str) -> String {
    let dir = temp_dir(&format!("filter-{test}"));
    let csv = dir.join("t.csv");
    let mut text = String::from("id,flag,day\n");
    for i in 0..1000 {
        text += &format!("{i},{},{}\n", ["R", "A", "N"][i % 3], 10_000 + i / 10);
    }
    std::fs::write(&csv, text).unwrap();
    let parquet = dir.join("t.parquet");
    ok(&[
        "convert",
        csv.to_str().unwrap(),
        parquet.to_str().unwrap(),
        "--row-group-size",
        "100",
        "--bloom-filter",
        "flag",
    ]);
    parquet.to_string_lossy().into_owned()
}

#[test]
fn cat_prints_only_matching_rows() {
    let f = file("cat_prints_only_matching_rows");
    let text = ok(&[
        "cat",
        &f,
        "--format",
        "csv",
        "--filter",
        "id >= 995 AND flag = 'R'",
    ]);
    assert_eq!(text, "id,flag,day\n996,R,10099\n999,R,10099\n");
    let text = ok(&[
        "cat",
        &f,
        "--format",
        "csv",
        "--columns",
        "id",
        "--filter",
        "flag IN ('A') AND id < 5",
    ]);
    assert_eq!(text, "id\n1\n4\n");
    let text = ok(&[
        "cat", &f, "--format", "csv", "--limit", "2", "--filter", "id > 500",
    ]);
    // flag is ["R", "A", "N"][id % 3]: 501 = 3 x 167.
    assert_eq!(text, "id,flag,day\n501,R,10050\n502,A,10050\n");
}

#[test]
fn scan_reports_what_was_pruned() {
    let f = file("scan_reports_what_was_pruned");
    let text = ok(&["scan", &f, "--filter", "id >= 950"]);
    assert!(
        text.contains("row groups:    read 1 of 10 (skipped: 9 by statistics, 0 by Bloom filters"),
        "{text}"
    );
    assert!(text.contains("rows:          matched 50 of 1000"), "{text}");
    assert!(text.contains("pages:         read "), "{text}");
    // A value no row has: the Bloom filters skip what the statistics keep.
    let text = ok(&["scan", &f, "--filter", "flag = 'B'"]);
    assert!(text.contains("row groups:    read 0 of 10"), "{text}");
    assert!(text.contains("rows:          matched 0 of 1000"), "{text}");
}

#[test]
fn filter_errors_name_the_problem() {
    let f = file("filter_errors_name_the_problem");
    let err = fails(&["cat", &f, "--filter", "id >="]);
    assert!(
        err.contains("--filter: expected a literal, found the end of the filter at offset 5"),
        "{err}"
    );
    let err = fails(&["cat", &f, "--filter", "nope = 1"]);
    assert!(
        err.contains("--filter: no column `nope` (the columns are id, flag, day)"),
        "{err}"
    );
    let err = fails(&["scan", &f, "--filter", "day = 'x'"]);
    assert!(
        err.contains("--filter: 'x' is not a number (column day is Int64)"),
        "{err}"
    );
}

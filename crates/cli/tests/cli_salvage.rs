//! `hb cat --salvage` and `hb convert --salvage` end to end: the rows that survive on
//! stdout (or in the output file), the losses on stderr, exit 0 / 3 / 2.

use crate::common;

use common::{fails, hb, temp_dir};

fn data(name: &str) -> String {
    herringbone_testkit::corpus_data_dir()
        .join(name)
        .display()
        .to_string()
}

/// parquet-mr's file whose column `a` fails its CRC in page 0 and column `b` in page 1
/// (2,560 rows a page).
const CORRUPT_CRC: &str = "datapage_v1-corrupt-checksum.parquet";

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let out = hb(args);
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn cat_salvage_prints_the_surviving_rows_and_exits_3() {
    let file = data(CORRUPT_CRC);
    let salvaged = run(&[
        "cat",
        "--salvage",
        "--all",
        "--format",
        "csv",
        "--columns",
        "a",
        &file,
    ]);
    assert_eq!(salvaged.code, Some(3), "{}", salvaged.stderr);
    // Without CRC checks the plain reader reads every row: the survivors are its rows
    // 2560.. exactly.
    let plain = run(&[
        "cat",
        "--all",
        "--format",
        "csv",
        "--columns",
        "a",
        "--offset",
        "2560",
        &file,
    ]);
    assert_eq!(plain.code, Some(0));
    assert_eq!(salvaged.stdout, plain.stdout);
    assert_eq!(salvaged.stdout.lines().count(), 1 + 2560);
    let lines: Vec<&str> = salvaged.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", salvaged.stderr);
    assert!(
        lines[0].starts_with(
            "hb: salvage: row group 0, column a, page 0 (offset 4): rows 0..2560 lost (2560 rows, file rows 0..2560; page): "
        ),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("CRC32 mismatch"), "{}", lines[0]);
    assert_eq!(lines[1], "hb: salvage: 2560 rows dropped, 2560 rows read");
}

#[test]
fn cat_salvage_exits_2_when_no_row_survives() {
    let salvaged = run(&[
        "cat",
        "--salvage",
        "--all",
        "--format",
        "csv",
        &data(CORRUPT_CRC),
    ]);
    assert_eq!(salvaged.code, Some(2), "{}", salvaged.stderr);
    assert_eq!(salvaged.stdout, "a,b\n");
    assert!(
        salvaged.stderr.contains("column a, page 0"),
        "{}",
        salvaged.stderr
    );
    assert!(
        salvaged.stderr.contains("column b, page 1"),
        "{}",
        salvaged.stderr
    );
    assert!(
        salvaged
            .stderr
            .ends_with("hb: salvage: 5120 rows dropped, 0 rows read\n"),
        "{}",
        salvaged.stderr
    );
}

#[test]
fn salvage_of_an_unreadable_file_exits_2() {
    let dir = temp_dir("salvage-unreadable");
    let path = dir.join("not.parquet");
    std::fs::write(&path, b"PAR1 this is not a parquet file PAR1").unwrap();
    let salvaged = run(&["cat", "--salvage", path.to_str().unwrap()]);
    assert_eq!(salvaged.code, Some(2));
    assert!(salvaged.stderr.starts_with("hb: "), "{}", salvaged.stderr);
    assert_eq!(salvaged.stderr.lines().count(), 1, "{}", salvaged.stderr);
}

#[test]
fn salvage_of_a_clean_file_is_a_plain_read() {
    let file = data("alltypes_plain.parquet");
    let salvaged = run(&["cat", "--salvage", "--format", "jsonl", &file]);
    let plain = run(&["cat", "--format", "jsonl", &file]);
    assert_eq!(salvaged.code, Some(0));
    assert_eq!(salvaged.stderr, "");
    assert_eq!(salvaged.stdout, plain.stdout);
}

#[test]
fn convert_salvage_writes_the_surviving_rows() {
    let dir = temp_dir("salvage-convert");
    let out = dir.join("a.csv");
    let converted = run(&[
        "convert",
        "--salvage",
        "--columns",
        "b",
        &data(CORRUPT_CRC),
        out.to_str().unwrap(),
    ]);
    assert_eq!(converted.code, Some(3), "{}", converted.stderr);
    assert!(
        converted.stdout.starts_with("wrote 2560 rows"),
        "{}",
        converted.stdout
    );
    assert!(
        converted
            .stderr
            .contains("column b, page 1 (offset 30808): rows 2560..5120 lost"),
        "{}",
        converted.stderr
    );
    let plain = run(&[
        "cat",
        "--format",
        "csv",
        "--columns",
        "b",
        "--limit",
        "2560",
        &data(CORRUPT_CRC),
    ]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), plain.stdout);
    // Not for other inputs.
    let csv_in = run(&[
        "convert",
        "--salvage",
        out.to_str().unwrap(),
        dir.join("b.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(csv_in.code, Some(2));
    assert!(
        csv_in
            .stderr
            .contains("--salvage applies only to Parquet input")
    );
}

#[test]
fn a_broken_page_header_loses_its_page_by_the_offset_index() {
    let dir = temp_dir("salvage-header");
    let csv = dir.join("in.csv");
    let mut text = String::from("x,s\n");
    for i in 0..10_000 {
        text.push_str(&format!("{i},name-{i}\n"));
    }
    std::fs::write(&csv, &text).unwrap();
    let parquet = dir.join("t.parquet");
    let parquet = parquet.to_str().unwrap();
    let written = run(&[
        "convert",
        "--page-size",
        "1024",
        "--dictionary",
        "off",
        "--crc",
        "--row-group-size",
        "5000",
        csv.to_str().unwrap(),
        parquet,
    ]);
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    let layout: serde_json::Value =
        serde_json::from_str(&run(&["pages", "--json", parquet]).stdout).unwrap();
    let pages = layout[0]["columns"][0]["pages"].as_array().unwrap();
    assert!(pages.len() > 3, "{layout}");
    let first: u64 = pages[..2]
        .iter()
        .map(|p| p["num_values"].as_u64().unwrap())
        .sum();
    let offset = pages[2]["offset"].as_u64().unwrap() as usize;
    // The file has an offset index: it says where page 3 starts and the rows page 2
    // held, so only those are lost.
    let end = first + pages[2]["num_values"].as_u64().unwrap();
    let mut bytes = std::fs::read(parquet).unwrap();
    bytes[offset..offset + 3].fill(0xff);
    std::fs::write(parquet, &bytes).unwrap();

    // Without --salvage the damage is an error (exit 1).
    let err = fails(&["cat", "--all", "--format", "csv", parquet]);
    assert!(err.contains("page 2"), "{err}");
    let salvaged = run(&["cat", "--salvage", "--all", "--format", "csv", parquet]);
    assert_eq!(salvaged.code, Some(3), "{}", salvaged.stderr);
    let want: String = text
        .lines()
        .enumerate()
        .filter(|&(i, _)| i == 0 || !(first + 1..=end).contains(&(i as u64)))
        .map(|(_, line)| format!("{line}\n"))
        .collect();
    assert_eq!(salvaged.stdout, want);
    let expected = format!(
        "hb: salvage: row group 0, column x, page 2 (offset {offset}): rows {first}..{end} lost ({} rows, file rows {first}..{end}; page): page header: ",
        end - first
    );
    assert!(
        salvaged.stderr.starts_with(&expected),
        "{}",
        salvaged.stderr
    );
}

#[test]
fn head_scan_and_rewrite_salvage_too() {
    let file = data(CORRUPT_CRC);
    // Column `a` loses page 0 (rows 0..2560). As `--limit`, `-n` counts the file's rows,
    // lost ones included: the first 2,565 rows are the 5 survivors 2560..2565.
    let head = run(&[
        "head",
        "--salvage",
        "-n",
        "2565",
        "--format",
        "csv",
        "--columns",
        "a",
        &file,
    ]);
    assert_eq!(head.code, Some(3), "{}", head.stderr);
    let plain = run(&[
        "cat",
        "--format",
        "csv",
        "--columns",
        "a",
        "--offset",
        "2560",
        "--limit",
        "5",
        &file,
    ]);
    assert_eq!(head.stdout.lines().count(), 1 + 5);
    assert_eq!(head.stdout, plain.stdout);
    assert!(head.stderr.contains("column a, page 0"), "{}", head.stderr);

    let scan = run(&["scan", "--salvage", "--columns", "a", &file]);
    assert_eq!(scan.code, Some(3), "{}", scan.stderr);
    assert!(scan.stdout.contains("2560"), "{}", scan.stdout);
    assert!(
        scan.stderr
            .ends_with("hb: salvage: 2560 rows dropped, 2560 rows read\n"),
        "{}",
        scan.stderr
    );

    // A rewrite keeps the survivors in a clean file.
    let dir = temp_dir("salvage-rewrite");
    let out = dir.join("b.parquet");
    let out = out.to_str().unwrap();
    let rewritten = run(&["rewrite", "--salvage", "--columns", "b", &file, out]);
    assert_eq!(rewritten.code, Some(3), "{}", rewritten.stderr);
    assert!(
        rewritten.stderr.contains("column b, page 1"),
        "{}",
        rewritten.stderr
    );
    let verified = run(&["verify", out]);
    assert_eq!(verified.code, Some(0), "{}", verified.stdout);
    let back = run(&["cat", "--all", "--format", "csv", out]);
    let want = run(&[
        "cat",
        "--format",
        "csv",
        "--columns",
        "b",
        "--limit",
        "2560",
        &file,
    ]);
    assert_eq!(back.stdout, want.stdout);
    assert_eq!(back.stdout.lines().count(), 1 + 2560);
}

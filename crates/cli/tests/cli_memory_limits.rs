//! `hb scan` under an address-space limit (`ulimit -v`) on the two files of issue #15,
//! built here page by page (none is checked in): a file of 48 INT64 columns of
//! 16,777,216 rows, each column one dictionary page and one data page holding one RLE
//! run, reads a batch at a time within 1 GiB with every row counted; a
//! FIXED_LEN_BYTE_ARRAY column declaring `type_length` 2^31 - 1 ends in exit 1 with a
//! message within 2 GiB, not in an abort.

use crate::built;
use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use built::Chunk;
use herringbone_codec::compression::Codec;
use herringbone_format::metadata::Encoding;

/// `hb ARGS` run by `sh` after `ulimit -v KIB` (the limit covers `hb` alone).
fn hb_limited(kib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_hb"))
        .args(args)
        .output()
        .expect("sh runs")
}

const ROWS: usize = 16_777_216;
const COLUMNS: usize = 48;

/// 48 required INT64 columns, each a one-entry dictionary and one data page whose
/// indices are one RLE run of all 16,777,216 rows.
fn one_page_per_column_file() -> Vec<u8> {
    let fields: String = (0..COLUMNS)
        .map(|c| format!("required int64 c{c}; "))
        .collect();
    let chunks = (0..COLUMNS)
        .map(|c| {
            let value = (c as i64 * 1_000_003).to_le_bytes();
            Chunk::new(Codec::Uncompressed).dictionary(&value, 1).v1(
                &[],
                &[],
                &built::index_run(0, ROWS, 1),
                ROWS,
                Encoding::RLE_DICTIONARY,
            )
        })
        .collect();
    built::file(&format!("message m {{ {fields}}}"), ROWS as i64, chunks)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn scan_of_48_one_page_columns_of_16_million_rows_fits_in_1_gib() {
    let file = one_page_per_column_file();
    assert!(file.len() < 16 * 1024, "a small file: {} bytes", file.len());
    let dir = common::temp_dir("memory-limits-pages");
    let path = write(&dir, "one_page_per_column.parquet", &file);
    let out = hb_limited(1_048_576, &["scan", &path]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout.contains(&format!("rows:          {ROWS}\n")),
        "every row counted: {stdout}"
    );
    assert!(
        stdout.contains(&format!("columns:       {COLUMNS} top-level")),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scan_of_a_2_gib_fixed_width_is_exit_1_with_a_message_within_2_gib() {
    let values: Vec<u8> = (0..16).collect();
    let file = built::file(
        "message m { required fixed_len_byte_array(2147483647) f; }",
        4,
        vec![Chunk::new(Codec::Uncompressed).v1(&[], &[], &values, 4, Encoding::PLAIN)],
    );
    assert!(file.len() < 300, "a small file: {} bytes", file.len());
    let dir = common::temp_dir("memory-limits-flba");
    let path = write(&dir, "huge_fixed_width.parquet", &file);
    let out = hb_limited(2_097_152, &["scan", &path]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.starts_with("hb: ") && stderr.contains("column f"),
        "names the column: {stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

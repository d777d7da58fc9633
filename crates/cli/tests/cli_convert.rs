//! End-to-end tests of `hb convert` between Parquet, Arrow IPC, CSV and JSON lines, and
//! of `hb demo`: values are checked after each round trip.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType, Field, Fields};
use bytes::Bytes;
use herringbone::{ArrowWriter, ParquetRecordBatchReaderBuilder};

use crate::common;
use common::{fails, hb, temp_dir};

/// Runs `hb`, asserts success and a quiet stderr (no progress bar when not a
/// terminal); returns stdout.
fn ok(args: &[&str]) -> String {
    let out = hb(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Flat columns that every format carries exactly (CSV and JSON infer Int64, Float64,
/// Utf8 and Boolean back), with nulls.
fn flat_batch() -> RecordBatch {
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3, -40, 5]))),
        (
            "name",
            Arc::new(StringArray::from(vec![
                Some("ann"),
                None,
                Some("bo, \"jr\""),
                Some("cy"),
                Some("dé"),
            ])),
        ),
        (
            "score",
            Arc::new(Float64Array::from(vec![
                Some(1.5),
                Some(-2.25),
                None,
                Some(1e10),
                Some(0.0),
            ])),
        ),
        (
            "flag",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
                Some(false),
            ])),
        ),
    ];
    RecordBatch::try_from_iter_with_nullable(columns.into_iter().map(|(n, c)| (n, c, true)))
        .unwrap()
}

/// `flat_batch` plus a struct column.
fn nested_batch() -> RecordBatch {
    let flat = flat_batch();
    let fields = Fields::from(vec![
        Field::new("x", DataType::Int64, true),
        Field::new("label", DataType::Utf8, true),
    ]);
    let point = StructArray::try_new(
        fields,
        vec![
            Arc::new(Int64Array::from(vec![
                Some(1),
                Some(2),
                None,
                Some(4),
                Some(5),
            ])) as ArrayRef,
            Arc::new(StringArray::from(vec!["a", "b", "c", "d", "e"])),
        ],
        Some(vec![true, true, true, false, true].into()),
    )
    .unwrap();
    let schema = flat.schema();
    let mut columns: Vec<(&str, ArrayRef, bool)> = schema
        .fields()
        .iter()
        .zip(flat.columns())
        .map(|(f, c)| (f.name().as_str(), c.clone(), true))
        .collect();
    columns.push(("point", Arc::new(point), true));
    RecordBatch::try_from_iter_with_nullable(columns).unwrap()
}

fn write_parquet(path: &Path, batch: &RecordBatch) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

fn read_parquet(path: &Path) -> RecordBatch {
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let batches = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(batches.len(), 1, "a few rows come back as one batch");
    batches.into_iter().next().unwrap()
}

#[test]
fn every_direction_keeps_the_values() {
    let dir = temp_dir("convert-matrix");
    let source = dir.join("source.parquet");
    let expected = flat_batch();
    write_parquet(&source, &expected);
    let formats = ["parquet", "arrow", "csv", "jsonl"];
    // The same rows in every input format.
    for format in &formats[1..] {
        let text = ok(&["convert", s(&source), s(&dir.join(format!("in.{format}")))]);
        assert_eq!(
            text,
            format!(
                "wrote 5 rows in 1 batches to {}\n",
                s(&dir.join(format!("in.{format}")))
            )
        );
    }
    std::fs::copy(&source, dir.join("in.parquet")).unwrap();
    for from in formats {
        for to in formats {
            let input = dir.join(format!("in.{from}"));
            let output = dir.join(format!("out-{from}.{to}"));
            let text = ok(&["convert", s(&input), s(&output)]);
            assert!(text.starts_with("wrote 5 rows"), "{from} -> {to}: {text}");
            // Back to Parquet (unless it is already), then compare with the source.
            let back = if to == "parquet" {
                output
            } else {
                let back = dir.join(format!("back-{from}-{to}.parquet"));
                ok(&["convert", s(&output), s(&back)]);
                back
            };
            let read = read_parquet(&back);
            assert_eq!(read.num_columns(), expected.num_columns(), "{from} -> {to}");
            for (i, field) in expected.schema().fields().iter().enumerate() {
                assert_eq!(
                    read.schema().field(i).name(),
                    field.name(),
                    "{from} -> {to}"
                );
                assert_eq!(
                    read.column(i).as_ref(),
                    expected.column(i).as_ref(),
                    "{from} -> {to}: column {}",
                    field.name()
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn csv_output_is_the_cat_text_with_nested_values_as_json() {
    let dir = temp_dir("convert-csv");
    let source = dir.join("source.parquet");
    write_parquet(&source, &nested_batch());
    let csv = dir.join("out.csv");
    ok(&["convert", s(&source), s(&csv)]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        text,
        "id,name,score,flag,point\n\
         1,ann,1.5,true,\"{\"\"x\"\":1,\"\"label\"\":\"\"a\"\"}\"\n\
         2,,-2.25,false,\"{\"\"x\"\":2,\"\"label\"\":\"\"b\"\"}\"\n\
         3,\"bo, \"\"jr\"\"\",,,\"{\"\"x\"\":null,\"\"label\"\":\"\"c\"\"}\"\n\
         -40,cy,10000000000.0,true,\n\
         5,dé,0.0,false,\"{\"\"x\"\":5,\"\"label\"\":\"\"e\"\"}\"\n"
    );
    // The very text `hb cat --format csv` prints.
    assert_eq!(text, ok(&["cat", s(&source), "--format", "csv"]));
    // `--columns` applies to a Parquet input.
    let some = dir.join("some.csv");
    ok(&["convert", s(&source), s(&some), "--columns", "name,id"]);
    assert_eq!(
        std::fs::read_to_string(&some).unwrap().lines().next(),
        Some("name,id")
    );

    // Without a header line, columns are named by position.
    let headless = dir.join("headless.csv");
    std::fs::write(&headless, "1,x\n2,y\n").unwrap();
    let out = dir.join("headless.jsonl");
    ok(&["convert", s(&headless), s(&out), "--no-header"]);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "{\"column_1\":1,\"column_2\":\"x\"}\n{\"column_1\":2,\"column_2\":\"y\"}\n"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn nested_values_survive_json_lines_and_ipc() {
    let dir = temp_dir("convert-nested");
    let source = dir.join("source.parquet");
    let expected = nested_batch();
    write_parquet(&source, &expected);
    let original = ok(&["cat", s(&source), "--format", "jsonl"]);

    // Parquet -> JSON lines -> Parquet: the struct is inferred back, same rows.
    let jsonl = dir.join("rows.ndjson");
    ok(&["convert", s(&source), s(&jsonl)]);
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap(), original);
    let back = dir.join("from-json.parquet");
    ok(&["convert", s(&jsonl), s(&back)]);
    assert_eq!(ok(&["cat", s(&back), "--format", "jsonl"]), original);
    let read = read_parquet(&back);
    let point = read
        .column_by_name("point")
        .unwrap()
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    assert_eq!(point.null_count(), 1);
    assert_eq!(
        point.column_by_name("x").unwrap().as_ref(),
        &Int64Array::from(vec![Some(1), Some(2), None, None, Some(5)]) as &dyn Array
    );

    // Parquet -> IPC -> Parquet: exactly the same batch, types and all.
    let ipc = dir.join("rows.ipc");
    ok(&["convert", s(&source), s(&ipc)]);
    let back = dir.join("from-ipc.parquet");
    ok(&["convert", s(&ipc), s(&back)]);
    assert_eq!(read_parquet(&back), read_parquet(&source));
    // And with writer options.
    let zstd = dir.join("from-ipc-zstd.parquet");
    ok(&[
        "convert",
        s(&ipc),
        s(&zstd),
        "--compression",
        "zstd:3",
        "--row-group-size",
        "2",
    ]);
    let meta = ok(&["meta", "--json", s(&zstd)]);
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    assert_eq!(meta["num_row_groups"], 3);
    assert_eq!(meta["row_groups"][0]["columns"][0]["compression"], "ZSTD");
    assert_eq!(ok(&["cat", s(&zstd), "--format", "jsonl"]), original);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_inputs_exit_1_with_one_line() {
    let dir = temp_dir("convert-bad");
    let out = dir.join("out.parquet");

    // Rows of different lengths.
    let ragged = dir.join("ragged.csv");
    std::fs::write(&ragged, "a,b\n1,2\n3\n").unwrap();
    let err = fails(&["convert", s(&ragged), s(&out)]);
    assert!(err.contains("ragged.csv"), "{err}");
    assert!(!out.exists());

    // A value that does not fit the type inferred from the first rows.
    let late = dir.join("late.csv");
    let mut text = String::from("n\n");
    for i in 0..10_050 {
        text += &format!("{i}\n");
    }
    text += "oops\n";
    std::fs::write(&late, text).unwrap();
    let err = fails(&["convert", s(&late), s(&out)]);
    assert!(err.contains("late.csv"), "{err}");
    assert!(!out.exists(), "a failed conversion leaves no output");

    let broken = dir.join("broken.jsonl");
    std::fs::write(&broken, "{\"a\": 1}\n{\"a\": \n").unwrap();
    fails(&["convert", s(&broken), s(&out)]);
    assert!(!out.exists());

    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    fails(&["convert", s(&empty), s(&out)]);

    let not_ipc = dir.join("not.arrow");
    std::fs::write(&not_ipc, "definitely not Arrow").unwrap();
    fails(&["convert", s(&not_ipc), s(&out)]);

    let good = dir.join("good.csv");
    std::fs::write(&good, "a\n1\n").unwrap();
    let err = fails(&["convert", s(&good), s(&out), "--columns", "a"]);
    assert_eq!(err, "hb: --columns applies only to Parquet input\n");
    let err = fails(&["convert", s(&good), s(&dir.join("out.txt"))]);
    assert!(err.contains("unsupported output format"), "{err}");
    let err = fails(&["convert", s(&dir.join("in.xls")), s(&out)]);
    assert!(err.contains("unsupported input format"), "{err}");
    fails(&["convert", s(&dir.join("missing.csv")), s(&out)]);
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn demo_writes_reads_back_and_verifies() {
    let out = hb(&["demo", "--rows", "20000"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "Herringbone demo: 20,000 generated orders",
        "== schema",
        "  required int64 ts (TIMESTAMP(MICROS,true));",
        "  optional group attributes (MAP) {",
        "== file",
        "20,000 rows in 8 row groups",
        "compression ratio",
        "  write: 20,000 rows in ",
        "== read back: columns order_id, ts, customer, amount, tags, address.geo.lat of row groups [0, 2, 4, 6]",
        "  read: 10,000 rows in ",
        "rows/s",
        "MB/s",
        "== preview",
        "| order_id | ts ",
        "| 1000000  | 2024-01-01T00:00:00",
        "== check: 10,000 rows x 6 columns read back equal the generated ones: verified",
        "Nobody Q. Atlantis: absent",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // Header, border, 5 rows, border: the preview holds 5 rows.
    let preview = text.split("== preview").nth(1).unwrap();
    assert_eq!(
        preview
            .lines()
            .filter(|l| l.starts_with("| 100000"))
            .count(),
        5
    );
    fails(&["demo", "--rows", "0"]);
}

/// A dictionary column read from several row groups has a new dictionary in each; the
/// IPC file extends one dictionary (delta batches) instead of failing on a replacement.
#[test]
fn dictionaries_of_several_row_groups_go_into_one_ipc_file() {
    use arrow_array::DictionaryArray;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;

    let dir = temp_dir("convert-dictionaries");
    let words = ["north", "south", "east", "west", "up", "down"];
    // Each row group of 4 rows sees a different subset of the words, in another order.
    let keys: Vec<Option<i32>> = (0..24)
        .map(|i: i32| (i % 7 != 3).then_some((i * 5 + i / 4) % 6))
        .collect();
    let column =
        DictionaryArray::<Int32Type>::new(keys.into(), Arc::new(StringArray::from(words.to_vec())));
    let expected: Vec<Option<String>> = column
        .downcast_dict::<StringArray>()
        .unwrap()
        .into_iter()
        .map(|v| v.map(str::to_string))
        .collect();
    let batch = RecordBatch::try_from_iter([("word", Arc::new(column) as ArrayRef)]).unwrap();
    let source = dir.join("words.parquet");
    let properties = herringbone::WriterProperties::builder()
        .set_max_row_group_rows(4)
        .build();
    let file = std::fs::File::create(&source).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();

    let output = dir.join("words.arrow");
    let text = ok(&["convert", s(&source), s(&output)]);
    assert!(text.starts_with("wrote 24 rows in 6 batches"), "{text}");
    let reader =
        arrow_ipc::reader::FileReader::try_new(std::fs::File::open(&output).unwrap(), None)
            .unwrap();
    let mut read = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let column = batch.column(0).as_dictionary::<Int32Type>();
        let values = column.downcast_dict::<StringArray>().unwrap();
        read.extend(values.into_iter().map(|v| v.map(str::to_string)));
        // One dictionary for the file: each value once.
        let dictionary = column.values().as_string::<i32>();
        let mut distinct: Vec<_> = dictionary.iter().collect();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), dictionary.len(), "{dictionary:?}");
    }
    assert_eq!(read, expected);
    std::fs::remove_dir_all(&dir).ok();
}

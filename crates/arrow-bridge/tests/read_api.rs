//! The reader's builder options and sources: files and bytes, projections (roots and
//! leaves inside structs), row groups, batch sizes, limits and offsets, supplied schemas,
//! and the errors of what it does not read.

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, Int32Array, ListArray, RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use herringbone_arrow_bridge::schema::Projection;
use herringbone_testkit::canonical::compare_with_oracle;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

fn write(batch: &RecordBatch, rows_per_group: usize) -> Bytes {
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(rows_per_group))
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

fn collect(builder: ParquetRecordBatchReaderBuilder<Bytes>) -> Vec<RecordBatch> {
    builder
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn ints(batches: &[RecordBatch], column: usize) -> Vec<Option<i32>> {
    batches
        .iter()
        .flat_map(|b| {
            b.column(column)
                .as_primitive::<Int32Type>()
                .iter()
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `a: int32` (0..100, every 7th null) and `s: struct<x: int32, y: utf8>` (null every 5th).
fn sample() -> RecordBatch {
    let a: ArrayRef = Arc::new(Int32Array::from_iter(
        (0..100).map(|i| (i % 7 != 0).then_some(i)),
    ));
    let x: ArrayRef = Arc::new(Int32Array::from_iter((0..100).map(|i| Some(i * 10))));
    let y: ArrayRef = Arc::new(StringArray::from_iter(
        (0..100).map(|i| (i % 3 != 0).then(|| format!("v{i}"))),
    ));
    let fields = Fields::from(vec![
        Field::new("x", DataType::Int32, false),
        Field::new("y", DataType::Utf8, true),
    ]);
    let nulls = arrow_buffer::NullBuffer::from_iter((0..100).map(|i| i % 5 != 0));
    let s: ArrayRef = Arc::new(StructArray::try_new(fields, vec![x, y], Some(nulls)).unwrap());
    RecordBatch::try_from_iter_with_nullable([("a", a, true), ("s", s, true)]).unwrap()
}

#[test]
fn batches_follow_the_batch_size_within_row_groups() {
    let batch = sample();
    let file = write(&batch, 30);
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    assert_eq!(builder.metadata().row_groups.len(), 4);
    let batches = collect(builder.with_batch_size(8));
    let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(
        sizes,
        vec![8, 8, 8, 6, 8, 8, 8, 6, 8, 8, 8, 6, 8, 2],
        "batches do not span row groups"
    );
    let mut at = 0;
    for read in &batches {
        assert_eq!(read, &batch.slice(at, read.num_rows()));
        at += read.num_rows();
    }
}

#[test]
fn reads_from_a_file_like_from_bytes() {
    let batch = sample();
    let bytes = write(&batch, 40);
    let path = std::env::temp_dir().join(format!(
        "herringbone-read-api-{}.parquet",
        std::process::id()
    ));
    std::fs::write(&path, &bytes).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let from_file: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    let from_bytes = collect(ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap());
    assert_eq!(from_file, from_bytes);
    assert_eq!(from_file.len(), 3);
    assert_eq!(from_file[0], batch.slice(0, 40));
}

#[test]
fn a_file_hands_out_exact_ranges_and_refuses_ranges_past_its_end() {
    use herringbone_arrow_bridge::ChunkReader;
    let path = std::env::temp_dir().join(format!(
        "herringbone-read-api-ranges-{}.bin",
        std::process::id()
    ));
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
    std::fs::write(&path, &data).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    assert_eq!(ChunkReader::len(&file), 100_000);
    assert_eq!(file.get_bytes(0..100_000).unwrap(), data[..]);
    assert_eq!(file.get_bytes(99_990..100_000).unwrap(), data[99_990..]);
    assert!(file.get_bytes(5..5).unwrap().is_empty());
    // Past the end, from inside the file or beyond it, however large the range: an error
    // naming the file's length (and no allocation of the range's size).
    for range in [99_990..100_001, 200_000..200_010, 10..u64::MAX / 2] {
        let err = file.get_bytes(range.clone()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{range:?}");
        assert!(
            err.to_string().contains("outside a file of 100000 bytes"),
            "{range:?}: {err}"
        );
    }
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = file.get_bytes(10..5);
    assert!(backwards.is_err());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn projections_select_roots_and_struct_children() {
    let batch = sample();
    let file = write(&batch, 100);

    let roots = collect(
        ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_projection(Projection::Roots(vec![1])),
    );
    assert_eq!(roots[0].num_columns(), 1);
    assert_eq!(roots[0].column(0).as_ref(), batch.column(1).as_ref());

    // Leaf 2 is s.y: the struct keeps that child only, with its own nulls.
    let leaves = collect(
        ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .with_projection(Projection::Leaves(vec![2])),
    );
    let s = leaves[0].column(0).as_struct();
    assert_eq!(s.num_columns(), 1);
    assert_eq!(s.fields()[0].name(), "y");
    assert_eq!(s.nulls(), batch.column(1).nulls());
    // Slots under a null struct are masked: compare the structs, not the bare children.
    let original = batch.column(1).as_struct();
    let expected = StructArray::try_new(
        Fields::from(vec![original.fields()[1].clone()]),
        vec![original.column(1).clone()],
        original.nulls().cloned(),
    )
    .unwrap();
    assert_eq!(s, &expected);
}

#[test]
fn row_groups_offset_and_limit_select_rows() {
    let batch = sample();
    let file = write(&batch, 25);
    let read = collect(
        ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_row_groups(vec![2, 0]),
    );
    let expected: Vec<Option<i32>> = (50..75)
        .chain(0..25)
        .map(|i| (i % 7 != 0).then_some(i))
        .collect();
    assert_eq!(ints(&read, 0), expected);

    let read = collect(
        ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_offset(30)
            .with_limit(31)
            .with_batch_size(10),
    );
    let expected: Vec<Option<i32>> = (30..61).map(|i| (i % 7 != 0).then_some(i)).collect();
    assert_eq!(ints(&read, 0), expected);

    let read = collect(
        ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_offset(1000),
    );
    assert!(read.is_empty());

    let error = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_row_groups(vec![4])
        .build()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArgument, "{error}");
}

#[test]
fn empty_projection_still_counts_rows() {
    let file = write(&sample(), 100);
    let read = collect(
        ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .with_projection(Projection::Roots(vec![]))
            .with_batch_size(64),
    );
    let rows: Vec<usize> = read.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(rows, vec![64, 36]);
    assert!(read.iter().all(|b| b.num_columns() == 0));
}

#[test]
fn lists_read_whole_and_by_leaf_projection() {
    let list: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1), None, Some(3)]),
        None,
        Some(vec![]),
        Some(vec![Some(4)]),
    ]));
    let plain: ArrayRef = Arc::new(Int32Array::from(vec![7, 8, 9, 10]));
    let batch =
        RecordBatch::try_from_iter([("plain", plain.clone()), ("tags", list.clone())]).unwrap();
    let file = write(&batch, 10);
    let read = collect(ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap());
    assert_eq!(read[0].column(0).as_ref(), plain.as_ref());
    assert_eq!(read[0].column(1).as_ref(), list.as_ref());

    // Leaf 1 is `tags.list.element`: projecting it keeps the list around it.
    let read = collect(
        ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .with_projection(Projection::Leaves(vec![1]))
            .with_batch_size(3),
    );
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].num_columns(), 1);
    assert_eq!(read[0].column(0).as_ref(), list.slice(0, 3).as_ref());
    assert_eq!(read[1].column(0).as_ref(), list.slice(3, 1).as_ref());
}

#[test]
fn invalid_utf8_read_as_text_names_the_column() {
    let bytes: ArrayRef = Arc::new(BinaryArray::from(vec![&b"ok"[..], &[0xff, 0xfe][..]]));
    let batch = RecordBatch::try_from_iter([("blob", bytes)]).unwrap();
    let file = write(&batch, 10);
    let schema = Arc::new(Schema::new(vec![Field::new("blob", DataType::Utf8, true)]));
    let results: Vec<_> = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_schema(schema)
        .build()
        .unwrap()
        .collect();
    let error = results[0].as_ref().unwrap_err().to_string();
    assert!(error.contains("blob") && error.contains("UTF-8"), "{error}");
}

#[test]
fn corpus_files_read_alike_at_any_batch_size() {
    for file in [
        "data/alltypes_plain.parquet",
        "data/nested_structs.rust.parquet",
        "data/nulls.snappy.parquet",
        "data/delta_byte_array.parquet",
        "data/dict-page-offset-zero.parquet",
        "data/overflow_i16_page_cnt.parquet",
    ] {
        let relative = Path::new(file);
        let bytes = Bytes::from(herringbone_testkit::read_corpus_file(relative));
        for batch_size in [1, 7, 100_000] {
            let builder = ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).unwrap();
            let schema = builder.schema().unwrap();
            let batches = collect(builder.with_batch_size(batch_size));
            assert!(batches.iter().all(|b| b.num_rows() <= batch_size));
            compare_with_oracle(relative, &schema, &batches)
                .unwrap_or_else(|e| panic!("{file} at batch size {batch_size}: {e}"));
        }
    }
}

#[test]
fn reader_reports_its_schema() {
    let batch = sample();
    let file = write(&batch, 100);
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    assert_eq!(builder.schema().unwrap().fields(), batch.schema().fields());
    let reader = builder.build().unwrap();
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    assert_eq!(schema.fields(), batch.schema().fields());
    assert!(reader.arrow_schema().field(1).data_type().is_nested());
    let _ = reader.into_iter().count();
    let _: Option<&dyn Array> = None;
}

/// Byte mutations of a file's pages (the footer left intact so the reader gets to them)
/// must give errors or rows, never a panic.
#[test]
fn damaged_pages_never_panic() {
    use arrow_array::{BooleanArray, FixedSizeBinaryArray, Float64Array, Int64Array};
    let n = 300;
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "i",
            Arc::new(Int32Array::from_iter(
                (0..n).map(|i| (i % 3 != 0).then_some(i % 17)),
            )),
        ),
        (
            "l",
            Arc::new(Int64Array::from_iter_values(
                (0..n as i64).map(|i| i * 1_000_003),
            )),
        ),
        (
            "d",
            Arc::new(Float64Array::from_iter(
                (0..n).map(|i| (i % 4 != 0).then_some(i as f64 / 3.0)),
            )),
        ),
        (
            "b",
            Arc::new(BooleanArray::from_iter(
                (0..n).map(|i| (i % 5 != 0).then_some(i % 2 == 0)),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter(
                (0..n).map(|i| (i % 6 != 0).then(|| format!("s{}", i % 11))),
            )),
        ),
        (
            "f",
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    (0..n).map(|i| (i % 7 != 0).then_some([i as u8, 1, 2])),
                    3,
                )
                .unwrap(),
            ),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let mut files = Vec::new();
    for (version, dictionary) in [
        (parquet::file::properties::WriterVersion::PARQUET_1_0, true),
        (parquet::file::properties::WriterVersion::PARQUET_2_0, false),
    ] {
        let properties = WriterProperties::builder()
            .set_writer_version(version)
            .set_dictionary_enabled(dictionary)
            .set_data_page_row_count_limit(50)
            .set_write_batch_size(25)
            .build();
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        files.push(out);
    }
    let mut state = 0x1234_5678_9abc_def0_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for file in &files {
        let footer_len =
            u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
        let pages_end = file.len() - 8 - footer_len as usize;
        for _ in 0..600 {
            let mut damaged = file.clone();
            for _ in 0..1 + next() % 3 {
                let at = 4 + (next() as usize) % (pages_end - 4);
                damaged[at] = next() as u8;
            }
            let outcome = std::panic::catch_unwind(|| {
                let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(damaged))
                else {
                    return;
                };
                if let Ok(reader) = builder.with_batch_size(64).build() {
                    for batch in reader {
                        if batch.is_err() {
                            break;
                        }
                    }
                }
            });
            assert!(outcome.is_ok(), "the reader panicked on a damaged page");
        }
    }
}

#[test]
fn readers_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<herringbone_arrow_bridge::ParquetRecordBatchReader>();
    assert_send::<ParquetRecordBatchReaderBuilder<Bytes>>();
    assert_send::<ParquetRecordBatchReaderBuilder<std::fs::File>>();
    let file = write(&sample(), 100);
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let rows = std::thread::spawn(move || reader.map(|b| b.unwrap().num_rows()).sum::<usize>())
        .join()
        .unwrap();
    assert_eq!(rows, 100);
}

/// Bytes that count the ranges fetched from them; `side_by_side` as a file's.
#[derive(Clone)]
struct CountingBytes {
    bytes: Bytes,
    fetched: Arc<std::sync::Mutex<Vec<std::ops::Range<u64>>>>,
    side_by_side: bool,
}

impl herringbone_arrow_bridge::ChunkReader for CountingBytes {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn get_bytes(&self, range: std::ops::Range<u64>) -> herringbone_arrow_bridge::Result<Bytes> {
        self.fetched.lock().unwrap().push(range.clone());
        self.bytes.get_bytes(range)
    }

    fn reads_side_by_side(&self) -> bool {
        self.side_by_side
    }
}

#[test]
fn a_row_selection_reads_its_runs_and_fetches_no_row_group_it_skips_whole() {
    // 100 rows in row groups of 10.
    let file = write(&sample(), 10);
    let input = CountingBytes {
        bytes: file,
        fetched: Arc::default(),
        side_by_side: true,
    };
    let selection = RowSelection::from(vec![
        RowSelector::skip(3),
        RowSelector::select(4),  // rows 3..7
        RowSelector::skip(40),   // rows 7..47: row groups 1..4 whole
        RowSelector::select(15), // rows 47..62
        RowSelector::skip(1),
        RowSelector::select(2), // rows 63..65
    ]);
    let builder = ParquetRecordBatchReaderBuilder::try_new(input.clone()).unwrap();
    let footer_fetches = input.fetched.lock().unwrap().len();
    let batches = builder
        .with_row_selection(selection)
        .with_batch_size(8)
        .with_offset(1)
        .with_limit(17)
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let expected: Vec<Option<i32>> = (4..7)
        .chain(47..61)
        .map(|i| (i % 7 != 0).then_some(i))
        .collect();
    assert_eq!(ints(&batches, 0), expected);
    // Batches hold up to 8 selected rows and never span row groups.
    let sizes: Vec<usize> = batches.iter().map(|b| b.num_rows()).collect();
    assert_eq!(sizes, vec![3, 3, 8, 2, 1]);
    // Row groups 0, 4, 5 and 6 were fetched: one fetch per chunk (a, s.x, s.y) in 0 and
    // 4, whose rows the selection skips in part (pages skipped are not fetched), and one
    // for the three small chunks side by side of 5 and of 6 (the limit ends the
    // selection inside 6: no skip within it is left); 1, 2 and 3 were skipped whole,
    // and nothing after the limit was fetched. Row groups 0 and 4 also had their three
    // offset indexes read, in one fetch each.
    let chunk_fetches = input.fetched.lock().unwrap().len() - footer_fetches;
    assert_eq!(chunk_fetches, 2 * 3 + 2 + 2);
}

#[test]
fn small_chunks_side_by_side_are_fetched_together_and_read_alike() {
    // 300 columns of 50 rows in row groups of 25: 600 chunks of a few hundred bytes.
    let columns: Vec<(String, ArrayRef)> = (0..300)
        .map(|c| {
            let values: Vec<Option<i32>> = (0..50)
                .map(|r| ((r + c) % 11 != 0).then_some(r * 1000 + c))
                .collect();
            let array: ArrayRef = Arc::new(Int32Array::from(values));
            (format!("c{c}"), array)
        })
        .collect();
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = write(&batch, 25);
    // One fetch per row group for its 300 chunks (well under 256 KiB together), not one
    // per chunk.
    let (batches, fetched) = read_counting(&file, true, Projection::All);
    assert_eq!(batches, vec![batch.slice(0, 25), batch.slice(25, 25)]);
    assert_eq!(fetched.len(), 2, "{fetched:?}");
    // A projection of every other column reads the chunks it needs in runs of one: the
    // gaps between them are small, so they are still read together.
    let kept: Vec<usize> = (0..300).step_by(2).collect();
    let (projected, fetched) = read_counting(&file, true, Projection::Leaves(kept.clone()));
    let expected = batch.project(&kept).unwrap();
    assert_eq!(
        projected,
        vec![expected.slice(0, 25), expected.slice(25, 25)]
    );
    assert_eq!(fetched.len(), 2, "{fetched:?}");
    // An input that serves only the ranges asked for (the default) gets a fetch per
    // chunk.
    let (again, fetched) = read_counting(&file, false, Projection::All);
    assert_eq!(again, vec![batch.slice(0, 25), batch.slice(25, 25)]);
    assert_eq!(fetched.len(), 600);
}

/// Reads `file` (with `projection`) through a [`CountingBytes`] input: the batches, and
/// the ranges fetched after the footer.
fn read_counting(
    file: &Bytes,
    side_by_side: bool,
    projection: Projection,
) -> (Vec<RecordBatch>, Vec<std::ops::Range<u64>>) {
    let input = CountingBytes {
        bytes: file.clone(),
        fetched: Arc::default(),
        side_by_side,
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(input.clone()).unwrap();
    let footer_fetches = input.fetched.lock().unwrap().len();
    let batches = builder
        .with_projection(projection)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let fetched = input.fetched.lock().unwrap()[footer_fetches..].to_vec();
    (batches, fetched)
}

#[test]
fn utf8_views_are_checked_per_value_even_when_the_bytes_together_are_utf8() {
    // "é" is 0xC3 0xA9: split across two values, the concatenated buffer is valid
    // UTF-8 but neither value is.
    let schema = Arc::new(Schema::new(vec![Field::new("t", DataType::Utf8View, true)]));
    let cases: [(&[Option<&[u8]>], bool); 3] = [
        (
            &[
                Some(b"ok"),
                None,
                Some("a longer value, é and ü".as_bytes()),
            ],
            true,
        ),
        (&[Some(b"ab\xc3"), Some(b"\xa9cd")], false),
        (&[Some(b"\xff")], false),
    ];
    for (values, valid) in cases {
        let column: ArrayRef = Arc::new(BinaryArray::from(values.to_vec()));
        let file = write(&RecordBatch::try_from_iter([("t", column)]).unwrap(), 10);
        let results: Vec<_> = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .with_schema(schema.clone())
            .build()
            .unwrap()
            .collect();
        if valid {
            let batch = results[0].as_ref().unwrap();
            let read = batch.column(0).as_string_view();
            let got: Vec<Option<&str>> = read.iter().collect();
            let want: Vec<Option<&str>> = values
                .iter()
                .map(|v| v.map(|b| std::str::from_utf8(b).unwrap()))
                .collect();
            assert_eq!(got, want);
        } else {
            let error = results[0].as_ref().unwrap_err().to_string();
            assert!(error.contains("UTF-8") && error.contains('t'), "{error}");
        }
    }
}

#[test]
fn utf8_views_point_into_pages_and_the_dictionary_and_equal_utf8_reads() {
    use arrow_array::builder::{ListBuilder, StringBuilder};
    use parquet::basic::Encoding;
    use parquet::schema::types::ColumnPath;
    // Repeated values first (dictionary pages), then unique ones: the tiny dictionary
    // limit makes the chunk fall back to PLAIN pages part way.
    let values: Vec<Option<String>> = (0..3000)
        .map(|i| match i {
            _ if i % 11 == 0 => None,
            _ if i < 1200 => Some(format!("repeated value number {}", i % 5)),
            _ if i % 3 == 0 => Some(format!("s{i}")),
            _ => Some(format!(
                "a unique value that is longer than twelve bytes {i} é"
            )),
        })
        .collect();
    let mut lists = ListBuilder::new(StringBuilder::new());
    for (i, value) in values.iter().enumerate() {
        for k in 0..i % 4 {
            lists
                .values()
                .append_option(value.as_ref().map(|v| format!("{v}/{k}")));
        }
        lists.append(i % 13 != 0);
    }
    let flat: ArrayRef = Arc::new(StringArray::from(values.clone()));
    let delta: ArrayRef = Arc::new(StringArray::from(values.clone()));
    let batch = RecordBatch::try_from_iter([
        ("flat", flat),
        ("delta", delta),
        ("list", Arc::new(lists.finish()) as ArrayRef),
    ])
    .unwrap();
    let properties = WriterProperties::builder()
        .set_dictionary_page_size_limit(256)
        .set_data_page_size_limit(512)
        .set_write_batch_size(64)
        .set_max_row_group_row_count(Some(1700))
        .set_column_dictionary_enabled(ColumnPath::from("delta"), false)
        .set_column_encoding(ColumnPath::from("delta"), Encoding::DELTA_BYTE_ARRAY)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let file = Bytes::from(out);

    let view_schema = Arc::new(Schema::new(vec![
        Field::new("flat", DataType::Utf8View, true),
        Field::new("delta", DataType::Utf8View, true),
        Field::new(
            "list",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8View, true))),
            true,
        ),
    ]));
    let read = |views: bool, selection: Option<RowSelection>| {
        let mut builder = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_batch_size(700);
        if views {
            builder = builder.with_schema(view_schema.clone());
        }
        if let Some(selection) = selection {
            builder = builder.with_row_selection(selection);
        }
        let batches = collect(builder);
        let mut columns: Vec<Vec<String>> = vec![Vec::new(); 3];
        for batch in &batches {
            for (c, column) in batch.columns().iter().enumerate() {
                let as_utf8 = arrow_cast::cast(
                    column,
                    &match c {
                        2 => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
                        _ => DataType::Utf8,
                    },
                )
                .unwrap();
                let text =
                    arrow_cast::display::ArrayFormatter::try_new(&as_utf8, &Default::default())
                        .unwrap();
                columns[c].extend((0..column.len()).map(|i| text.value(i).to_string()));
            }
            if views {
                assert_eq!(batch.column(0).data_type(), &DataType::Utf8View);
            }
        }
        columns
    };
    let plain = read(false, None);
    assert_eq!(plain[0].len(), 3000);
    assert_eq!(plain[0][1], "repeated value number 1");
    assert_eq!(read(true, None), plain);
    let selection = RowSelection::from(vec![
        RowSelector::skip(5),
        RowSelector::select(1000),
        RowSelector::skip(1500),
        RowSelector::select(300),
    ]);
    assert_eq!(
        read(true, Some(selection.clone())),
        read(false, Some(selection))
    );
}

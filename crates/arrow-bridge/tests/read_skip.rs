//! Skipping is skipping: a row selection reads the same rows as arrow-rs with the same
//! `RowSelection`, and the pages it decodes are exactly those holding selected rows
//! (plus the dictionary pages): every data page wholly inside a skipped run is stepped
//! over without being decompressed. With the chunks' offset indexes (the default when
//! a selection skips rows) every such page is jumped over, its header not even read.
//! Without them (`with_offset_index(false)`) the one exception is stated: a v1 page of
//! a repeated column does not say how many rows it holds, so it is decompressed (its
//! values are still skipped without being decoded).

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowSelection};
use herringbone_arrow_bridge::schema::Projection;
use herringbone_format::footer::{read_metadata, read_offset_index};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{
    ParquetRecordBatchReaderBuilder as ArrowReaderBuilder, RowSelection as ArrowSelection,
    RowSelector as ArrowSelector,
};
use parquet::basic::Compression;
use parquet::file::properties::{WriterProperties, WriterVersion};

const ROWS: usize = 100_000;
const PAGE_ROWS: usize = 1_000;

fn table() -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..ROWS as i64).map(|i| i * 3),
    ));
    let names: ArrayRef = Arc::new(StringArray::from_iter(
        (0..ROWS).map(|i| (i % 7 != 0).then(|| format!("name-{}", i % 100))),
    ));
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..ROWS {
        for j in 0..i % 4 {
            lists.values().append_value((i + j) as i32);
        }
        lists.append(i % 11 != 0);
    }
    let lists: ArrayRef = Arc::new(lists.finish());
    RecordBatch::try_from_iter([("id", ids), ("name", names), ("values", lists)]).unwrap()
}

fn write(version: WriterVersion) -> Bytes {
    let properties = WriterProperties::builder()
        .set_writer_version(version)
        .set_compression(Compression::SNAPPY)
        .set_data_page_row_count_limit(PAGE_ROWS)
        .set_write_batch_size(PAGE_ROWS)
        .set_max_row_group_row_count(Some(ROWS))
        .build();
    let batch = table();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

/// Ten runs of 100 rows spread over the file.
fn ranges() -> Vec<std::ops::Range<usize>> {
    (0..10)
        .map(|i| i * 10_000 + 4_950..i * 10_000 + 5_050)
        .collect()
}

/// Per leaf column: how many pages are read (the data pages holding a selected row and
/// the dictionary page), and how many data pages lie wholly before the last selected
/// row without holding one (from the file's offset index).
fn expected_pages(file: &Bytes) -> Vec<(usize, usize)> {
    let metadata = read_metadata(file).unwrap();
    let last = ranges().last().unwrap().end;
    metadata.row_groups[0]
        .columns
        .iter()
        .map(|chunk| {
            let index = read_offset_index(file, chunk)
                .unwrap()
                .expect("an offset index");
            let starts: Vec<usize> = index
                .page_locations
                .iter()
                .map(|p| p.first_row_index as usize)
                .collect();
            let meta = chunk.meta_data.as_ref().unwrap();
            let mut touched = usize::from(meta.dictionary_page_offset.is_some());
            let mut passed = 0;
            for (i, &start) in starts.iter().enumerate() {
                let end = starts.get(i + 1).copied().unwrap_or(ROWS);
                if start >= last {
                    break;
                }
                if ranges().iter().any(|r| r.start < end && start < r.end) {
                    touched += 1;
                } else {
                    passed += 1;
                }
            }
            (touched, passed)
        })
        .collect()
}

/// Per leaf column, read alone with the selection: (pages decoded, pages skipped).
fn per_column(file: &Bytes, offset_index: bool) -> Vec<(usize, usize)> {
    (0..3)
        .map(|c| {
            let mut reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .with_offset_index(offset_index)
                .with_projection(Projection::Leaves(vec![c]))
                .with_row_selection(RowSelection::from_consecutive_ranges(ranges(), ROWS))
                .build()
                .unwrap();
            for batch in reader.by_ref() {
                batch.unwrap();
            }
            let metrics = reader.metrics();
            (metrics.pages_decoded, metrics.pages_skipped)
        })
        .collect()
}

fn check(version: WriterVersion, offset_index: bool) -> (usize, usize, Vec<(usize, usize)>) {
    let file = write(version);
    let expected = expected_pages(&file);
    let alone = per_column(&file, offset_index);
    // Read alone or together, each column reads the same pages.
    let list_pages = match version {
        WriterVersion::PARQUET_1_0 if !offset_index => (expected[2].0 + expected[2].1, 0),
        _ => expected[2],
    };
    assert_eq!(alone, vec![expected[0], expected[1], list_pages]);
    let selection = RowSelection::from_consecutive_ranges(ranges(), ROWS);
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_offset_index(offset_index)
        .with_row_selection(selection)
        .build()
        .unwrap();
    let mut reader = reader;
    let mut ours = Vec::new();
    for batch in reader.by_ref() {
        ours.push(batch.unwrap());
    }
    let metrics = reader.metrics();

    let selectors: Vec<ArrowSelector> = RowSelection::from_consecutive_ranges(ranges(), ROWS)
        .selectors()
        .iter()
        .map(|s| {
            if s.skip {
                ArrowSelector::skip(s.row_count)
            } else {
                ArrowSelector::select(s.row_count)
            }
        })
        .collect();
    let theirs: Vec<RecordBatch> = ArrowReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_row_selection(ArrowSelection::from(selectors))
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // 1,000 selected rows: one batch on each side.
    assert_eq!((ours.len(), theirs.len()), (1, 1));
    assert_eq!(ours[0].num_rows(), 1_000);
    assert_eq!(
        ours[0].columns(),
        theirs[0].columns(),
        "the same rows as arrow-rs"
    );
    (
        metrics.pages_decoded,
        metrics.pages_skipped,
        expected_pages(&file),
    )
}

#[test]
fn pages_wholly_inside_a_skip_are_not_decompressed_v2() {
    for offset_index in [true, false] {
        let (decoded, skipped, expected) = check(WriterVersion::PARQUET_2_0, offset_index);
        // id, name (with its dictionary page, counted in `touched`), values: v2 pages
        // all say their rows.
        let touched: usize = expected.iter().map(|e| e.0).sum();
        let passed: usize = expected.iter().map(|e| e.1).sum();
        assert!(
            passed > 200,
            "most pages lie between the selected rows: {expected:?}"
        );
        assert_eq!(
            decoded, touched,
            "the pages with selected rows and the dictionaries"
        );
        assert_eq!(
            skipped, passed,
            "every other page before the last selected row"
        );
    }
}

#[test]
fn pages_wholly_inside_a_skip_are_not_decompressed_v1() {
    let (decoded, skipped, expected) = check(WriterVersion::PARQUET_1_0, false);
    let [id, name, values] = expected[..] else {
        panic!("three leaf columns");
    };
    // By the headers: the flat columns skip their pages; the list column's v1 pages
    // are all read up to the last selected row.
    assert_eq!(decoded, id.0 + name.0 + values.0 + values.1);
    assert_eq!(skipped, id.1 + name.1);
    // By the offset index, whose pages start at row boundaries: the list column's
    // pages are skipped too.
    let (decoded, skipped, _) = check(WriterVersion::PARQUET_1_0, true);
    assert_eq!(decoded, id.0 + name.0 + values.0);
    assert_eq!(skipped, id.1 + name.1 + values.1);
}

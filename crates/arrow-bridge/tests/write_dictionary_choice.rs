//! When a column chunk's first page is (nearly) all distinct values, the writer gives up the
//! dictionary before writing that page: the chunk has no dictionary page and every data
//! page is in the column's encoding. Columns with repeats keep it, as do first pages too
//! small to judge. Files are read back by arrow-rs.

use std::sync::Arc;

use arrow_array::{Array, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Encoding;
use parquet::file::metadata::ParquetMetaData;

fn batch(rows: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("key", DataType::Utf8, true),
        Field::new("reading", DataType::Float64, false),
        Field::new("few", DataType::Int32, false),
        // Distinct for the first 1,000 rows, then repeating them.
        Field::new("late", DataType::Int64, false),
        // One value in 500 repeats (0.2%): nearly all distinct.
        Field::new("near", DataType::Int32, false),
        // One value in 50 repeats (2%).
        Field::new("some", DataType::Int32, false),
    ]));
    let id = Int64Array::from_iter_values((0..rows as i64).map(|i| i * 3 + 1));
    let key: StringArray = (0..rows)
        .map(|i| (i % 7 != 0).then(|| format!("key-{}", i * 11)))
        .collect();
    let reading = Float64Array::from_iter_values((0..rows).map(|i| (i as f64).sqrt() * 1.5));
    let few = Int32Array::from_iter_values((0..rows as i32).map(|i| i % 100));
    let late = Int64Array::from_iter_values((0..rows as i64).map(|i| i % 1000));
    let near =
        Int32Array::from_iter_values((0..rows as i32).map(|i| if i % 500 == 7 { 7 } else { i }));
    let some =
        Int32Array::from_iter_values((0..rows as i32).map(|i| if i % 50 == 7 { 7 } else { i }));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(id),
            Arc::new(key),
            Arc::new(reading),
            Arc::new(few),
            Arc::new(late),
            Arc::new(near),
            Arc::new(some),
        ],
    )
    .unwrap()
}

fn write(batch: &RecordBatch, props: WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    out
}

/// Reads the file with arrow-rs: its metadata, and the batches (equal to `expected`).
fn read(file: Vec<u8>, expected: &RecordBatch) -> Arc<ParquetMetaData> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file)).unwrap();
    let metadata = builder.metadata().clone();
    let read: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    let read = arrow_select::concat::concat_batches(&expected.schema(), &read).unwrap();
    assert_eq!(&read, expected);
    metadata
}

/// (has a dictionary page, data pages use the dictionary) of every chunk of `column`.
fn dictionary_use(metadata: &ParquetMetaData, column: usize) -> Vec<(bool, bool)> {
    metadata
        .row_groups()
        .iter()
        .map(|group| {
            let chunk = group.column(column);
            (
                chunk.dictionary_page_offset().is_some(),
                chunk.encodings().any(|e| e == Encoding::RLE_DICTIONARY),
            )
        })
        .collect()
}

#[test]
fn all_distinct_first_pages_are_written_without_a_dictionary() {
    // Two row groups (30,000 and 20,000 rows) of 20,000-row pages: each chunk decides
    // on its own first page.
    let batch = batch(50_000);
    let props = WriterProperties::builder()
        .set_max_row_group_rows(30_000)
        .build();
    let metadata = read(write(&batch, props), &batch);
    assert_eq!(metadata.num_row_groups(), 2);
    for (column, name) in [(0, "id"), (1, "key"), (2, "reading"), (5, "near")] {
        assert_eq!(
            dictionary_use(&metadata, column),
            vec![(false, false); 2],
            "{name}"
        );
        for group in metadata.row_groups() {
            let encodings: Vec<Encoding> = group.column(column).encodings().collect();
            assert!(
                encodings.contains(&Encoding::PLAIN),
                "{name}: {encodings:?}"
            );
        }
    }
    // Repeats in the first page: the dictionary stays for the whole chunk.
    assert_eq!(dictionary_use(&metadata, 3), vec![(true, true); 2], "few");
    assert_eq!(dictionary_use(&metadata, 4), vec![(true, true); 2], "late");
    assert_eq!(dictionary_use(&metadata, 6), vec![(true, true); 2], "some");
    // Statistics still come from the values.
    let id = metadata.row_group(1).column(0).statistics().unwrap();
    assert_eq!(
        id.min_bytes_opt(),
        Some(&(30_000i64 * 3 + 1).to_le_bytes()[..])
    );
    assert_eq!(
        id.max_bytes_opt(),
        Some(&(49_999i64 * 3 + 1).to_le_bytes()[..])
    );
    assert_eq!(
        metadata
            .row_group(0)
            .column(1)
            .statistics()
            .unwrap()
            .null_count_opt(),
        Some(4286)
    );
}

#[test]
fn small_first_pages_keep_the_dictionary() {
    // 1,000 distinct values fill the first (and only) page: too few to judge by.
    let batch = batch(1_000);
    let metadata = read(write(&batch, WriterProperties::new()), &batch);
    for column in 0..7 {
        assert_eq!(
            dictionary_use(&metadata, column),
            vec![(true, true)],
            "{column}"
        );
    }
    // The same at 2,000 rows in 500-row pages: the first page holds 500 values.
    let batch = self::batch(2_000);
    let props = WriterProperties::builder()
        .set_data_page_row_limit(500)
        .build();
    let metadata = read(write(&batch, props), &batch);
    assert_eq!(dictionary_use(&metadata, 0), vec![(true, true)]);
}

#[test]
fn the_choice_follows_the_configured_encoding_and_bloom_filter() {
    // A unique column with a DELTA fallback encoding is written DELTA from its first
    // page; its Bloom filter holds every value though no dictionary page is written.
    let batch = batch(25_000);
    let props = WriterProperties::builder()
        .set_column_encoding(
            "id",
            herringbone_format::metadata::Encoding::DELTA_BINARY_PACKED,
        )
        .set_bloom_filter("id", 0.01, 25_000)
        .build();
    let file = write(&batch, props);
    let reader = parquet::file::serialized_reader::SerializedFileReader::new_with_options(
        Bytes::from(file.clone()),
        parquet::file::serialized_reader::ReadOptionsBuilder::new()
            .with_reader_properties(
                parquet::file::properties::ReaderProperties::builder()
                    .set_read_bloom_filter(true)
                    .build(),
            )
            .build(),
    )
    .unwrap();
    use parquet::file::reader::FileReader;
    let group = reader.get_row_group(0).unwrap();
    let bloom = group.get_column_bloom_filter(0).unwrap();
    let ids = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert!(ids.values().iter().all(|v| bloom.check(v)));
    let metadata = read(file, &batch);
    assert_eq!(dictionary_use(&metadata, 0), vec![(false, false)]);
    let encodings: Vec<Encoding> = metadata.row_group(0).column(0).encodings().collect();
    assert!(
        encodings.contains(&Encoding::DELTA_BINARY_PACKED),
        "{encodings:?}"
    );
}

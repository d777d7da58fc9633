//! Reading a memory-mapped file (`read::map_file`): the same batches as reading the file
//! by `read` calls, batches that outlive the file handle and the mapping's own `Bytes`,
//! and an empty file refused by the reader, not by the mapping.

use std::fs::File;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use herringbone_arrow_bridge::read::{ChunkReader, ParquetRecordBatchReaderBuilder, map_file};
use herringbone_arrow_bridge::schema::{SchemaOptions, StringRepresentation};
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_codec::compression::Codec;

fn table() -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..20_000));
    let names: ArrayRef = Arc::new(StringArray::from_iter((0..20_000).map(|i| {
        (i % 13 != 0).then(|| format!("a string long enough not to be inlined in a view {i}"))
    })));
    RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap()
}

/// A file of `table()` in row groups of 6,000 rows, in a fresh temporary path.
fn written(codec: Codec, name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "herringbone-read-mmap-{}-{name}.parquet",
        std::process::id()
    ));
    let properties = WriterProperties::builder()
        .set_compression(codec)
        .set_max_row_group_rows(6_000)
        .build();
    let batch = table();
    let mut writer = ArrowWriter::try_new(
        File::create(&path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    path
}

fn read_all<T: ChunkReader + 'static>(input: T, views: bool) -> Vec<RecordBatch> {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(input)
        .unwrap()
        .with_batch_size(4_096);
    if views {
        builder = builder
            .with_schema_options(SchemaOptions::new().with_strings(StringRepresentation::Utf8View));
    }
    builder.build().unwrap().map(|b| b.unwrap()).collect()
}

#[test]
fn a_mapped_file_reads_as_the_file_does() {
    for (codec, name) in [(Codec::Uncompressed, "plain"), (Codec::Snappy, "snappy")] {
        let path = written(codec, name);
        for views in [false, true] {
            let by_read = read_all(File::open(&path).unwrap(), views);
            // SAFETY: the test's own file, not changed while it is read.
            let mapped = unsafe { map_file(&File::open(&path).unwrap()) }.unwrap();
            assert_eq!(mapped.len() as u64, std::fs::metadata(&path).unwrap().len());
            let by_map = read_all(mapped, views);
            assert_eq!(by_map, by_read, "{name}, views {views}");
            assert_eq!(by_map.iter().map(|b| b.num_rows()).sum::<usize>(), 20_000);
        }
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn batches_outlive_the_file_handle_and_the_mapping_handle() {
    let path = written(Codec::Uncompressed, "outlive");
    let batches = {
        let file = File::open(&path).unwrap();
        // SAFETY: the test's own file, not changed while it is read.
        let mapped = unsafe { map_file(&file) }.unwrap();
        read_all(mapped, true)
        // `file` and `mapped` dropped here; string views may still point into pages.
    };
    let expected = read_all(File::open(&path).unwrap(), true);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(batches, expected);
}

#[test]
fn an_empty_file_maps_to_nothing_and_the_reader_says_why() {
    let path = std::env::temp_dir().join(format!(
        "herringbone-read-mmap-{}-empty.parquet",
        std::process::id()
    ));
    File::create(&path).unwrap();
    // SAFETY: the test's own file, not changed while it is read.
    let mapped = unsafe { map_file(&File::open(&path).unwrap()) }.unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(mapped.is_empty());
    let error = ParquetRecordBatchReaderBuilder::try_new(mapped).unwrap_err();
    assert!(error.to_string().contains("bytes"), "{error}");
}

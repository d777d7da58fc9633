//! The async writer: the bytes equal the sync writer's; the buffer is handed to the sink
//! as it passes the threshold (so memory stays bounded), counted by a sink wrapper; an
//! `object_store` object written through a multipart upload reads back equal; a
//! completed object refuses more bytes with an error.
#![cfg(feature = "object_store")]

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use futures::TryStreamExt;
use futures::future::BoxFuture;
use herringbone_arrow_bridge::async_read::{ObjectStoreReader, ParquetRecordBatchStreamBuilder};
use herringbone_arrow_bridge::async_write::{AsyncArrowWriter, AsyncFileWriter, ObjectStoreWriter};
use herringbone_arrow_bridge::error::Result;
use herringbone_arrow_bridge::{ArrowWriter, WriterProperties};
use object_store::buffered::BufWriter;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

fn batch(first: i64, rows: i64) -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(first..first + rows));
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        (first..first + rows).map(|i| format!("row {i} {}", i.wrapping_mul(2654435761) % 1000)),
    ));
    RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap()
}

fn batches() -> Vec<RecordBatch> {
    (0..8).map(|i| batch(i * 5_000, 5_000)).collect()
}

fn props() -> WriterProperties {
    WriterProperties::builder()
        .set_max_row_group_rows(10_000)
        .build()
}

fn sync_file(batches: &[RecordBatch]) -> Vec<u8> {
    let mut writer = ArrowWriter::try_new(Vec::new(), batches[0].schema(), Some(props())).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.finish().unwrap();
    writer.into_inner()
}

/// A sink that keeps what it is given and the size of every write.
#[derive(Debug, Default)]
struct CountingSink {
    bytes: Vec<u8>,
    writes: Vec<usize>,
    completed: bool,
}

impl AsyncFileWriter for CountingSink {
    fn write(&mut self, bytes: Bytes) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            assert!(!self.completed, "write after complete");
            self.writes.push(bytes.len());
            self.bytes.extend_from_slice(&bytes);
            Ok(())
        })
    }

    fn complete(&mut self) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.completed = true;
            Ok(())
        })
    }
}

#[test]
fn bytes_equal_the_sync_writers_through_an_async_write() {
    let batches = batches();
    let expected = sync_file(&batches);
    futures::executor::block_on(async {
        let mut writer =
            AsyncArrowWriter::try_new(Vec::<u8>::new(), batches[0].schema(), Some(props()))
                .unwrap();
        for b in &batches {
            writer.write(b).await.unwrap();
        }
        let (file, metadata) = writer.close().await.unwrap();
        assert_eq!(metadata.num_rows, 40_000);
        assert_eq!(file, expected);
    });
}

#[test]
fn the_buffer_goes_to_the_sink_as_it_passes_the_threshold() {
    let batches = batches();
    let expected = sync_file(&batches);
    let threshold = 64 * 1024;
    futures::executor::block_on(async {
        let mut writer =
            AsyncArrowWriter::try_new(CountingSink::default(), batches[0].schema(), Some(props()))
                .unwrap()
                .with_flush_threshold(threshold);
        let mut largest_row_group = 0;
        for b in &batches {
            let before = writer.bytes_written();
            writer.write(b).await.unwrap();
            largest_row_group = largest_row_group.max(writer.bytes_written() - before);
            // Nothing above the threshold stays buffered after a write.
            assert!(
                writer.buffered_bytes() <= threshold,
                "{}",
                writer.buffered_bytes()
            );
        }
        let (sink, _) = writer.close().await.unwrap();
        assert!(sink.completed);
        assert_eq!(sink.bytes, expected);
        // Four row groups of 10,000 rows: handed over one by one, not at the end.
        assert!(sink.writes.len() >= 4, "{:?}", sink.writes);
        let largest = *sink.writes.iter().max().unwrap() as u64;
        assert!(
            largest <= threshold as u64 + largest_row_group,
            "{largest} > {threshold} + {largest_row_group}"
        );
    });
}

#[test]
fn flush_hands_over_everything_encoded() {
    let batches = batches();
    futures::executor::block_on(async {
        let mut writer =
            AsyncArrowWriter::try_new(CountingSink::default(), batches[0].schema(), Some(props()))
                .unwrap();
        writer.write(&batches[0]).await.unwrap();
        assert_eq!(writer.in_progress_rows(), 5_000);
        writer.flush().await.unwrap();
        assert_eq!(writer.in_progress_rows(), 0);
        assert_eq!(writer.buffered_bytes(), 0);
        let written = writer.bytes_written();
        let (sink, metadata) = writer.close().await.unwrap();
        assert_eq!(metadata.row_groups.len(), 1);
        assert_eq!(sink.writes[0] as u64, written);
    });
}

#[tokio::test]
async fn an_object_written_in_parts_reads_back_equal() {
    let batches = batches();
    let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
    let path = Path::from("dir/t.parquet");
    // A small buffer, so that the store's writer turns to a multipart upload.
    let buffered = BufWriter::with_capacity(store.clone(), path.clone(), 100 * 1024);
    let sink = ObjectStoreWriter::from_buf_writer(path.clone(), buffered);
    let mut writer = AsyncArrowWriter::try_new(sink, batches[0].schema(), Some(props()))
        .unwrap()
        .with_flush_threshold(32 * 1024);
    for b in &batches {
        writer.write(b).await.unwrap();
    }
    let (_, metadata) = writer.close().await.unwrap();
    assert_eq!(metadata.num_rows, 40_000);

    let stored = store.get(&path).await.unwrap().bytes().await.unwrap();
    assert_eq!(stored, Bytes::from(sync_file(&batches)));
    let (reader, size) = ObjectStoreReader::open(store, path).await.unwrap();
    let read: Vec<RecordBatch> = ParquetRecordBatchStreamBuilder::try_new(reader, size)
        .await
        .unwrap()
        .with_batch_size(5_000)
        .build()
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(read, batches);
}

#[tokio::test]
async fn a_completed_object_refuses_more_bytes() {
    let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
    let mut sink = ObjectStoreWriter::new(store.clone(), Path::from("t.bin"));
    sink.write(Bytes::from_static(b"abc")).await.unwrap();
    sink.complete().await.unwrap();
    let error = sink.write(Bytes::from_static(b"d")).await.unwrap_err();
    assert!(error.to_string().contains("already complete"), "{error}");
    assert!(sink.complete().await.is_err());
    let stored = store
        .get(&Path::from("t.bin"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(&stored[..], b"abc");
}

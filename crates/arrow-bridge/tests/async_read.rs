//! The async reader: batches equal the sync reader's over `Bytes`, `object_store`'s
//! `InMemory` and local file system stores; the footer takes one request when the size
//! hint covers it; a row group's chunks are coalesced into one request per run of near
//! chunks, and only the projected columns' bytes are fetched (counted by a store
//! wrapper); a store returning short reads is an I/O error, not a panic. A row
//! selection fetches, through the offset index, only the pages holding selected rows.
#![cfg(feature = "object_store")]

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use arrow_array::{ArrayRef, Int64Array, RecordBatch, RecordBatchReader, StringArray};
use bytes::Bytes;
use futures::TryStreamExt;
use futures::future::BoxFuture;
use herringbone_arrow_bridge::async_read::{
    AsyncFileReader, ObjectStoreReader, ParquetRecordBatchStreamBuilder,
};
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, row_group_ranges};
use herringbone_arrow_bridge::schema::Projection;
use herringbone_arrow_bridge::{ArrowWriter, ErrorKind, WriterProperties};
use object_store::ObjectStore;
use object_store::ObjectStoreExt;
use object_store::path::Path;

fn file(rows: i64, group_rows: usize) -> Bytes {
    let a: ArrayRef = Arc::new(Int64Array::from((0..rows).collect::<Vec<_>>()));
    let b: ArrayRef = Arc::new(StringArray::from(
        (0..rows)
            .map(|i| (i % 5 != 0).then(|| format!("value {}", i % 97)))
            .collect::<Vec<_>>(),
    ));
    let c: ArrayRef = Arc::new(Int64Array::from(
        (0..rows).map(|i| i * 7 % 1000).collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_from_iter([("a", a), ("b", b), ("c", c)]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_rows(group_rows)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

fn sync_read(bytes: &Bytes, projection: Projection, groups: Option<Vec<usize>>) -> RecordBatch {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .unwrap()
        .with_projection(projection)
        .with_batch_size(1000);
    if let Some(g) = groups {
        builder = builder.with_row_groups(g);
    }
    let reader = builder.build().unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

/// What the sync reader reads of `bytes` with `selection`.
fn sync_read_selected(
    bytes: &Bytes,
    selection: herringbone_arrow_bridge::read::RowSelection,
) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .unwrap()
        .with_row_selection(selection)
        .build()
        .unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}

/// Counts the requests, ranges and bytes a reader asks of the store.
#[derive(Default)]
struct Counting {
    inner: Bytes,
    requests: AtomicUsize,
    ranges: AtomicUsize,
    bytes: AtomicU64,
    /// Bytes to leave off every answer (a store that misbehaves).
    short_by: usize,
}

impl Counting {
    fn new(inner: Bytes) -> Arc<Self> {
        Arc::new(Self {
            inner,
            ..Self::default()
        })
    }

    fn answer(&self, range: Range<u64>) -> Bytes {
        self.ranges.fetch_add(1, Ordering::SeqCst);
        self.bytes
            .fetch_add(range.end - range.start, Ordering::SeqCst);
        let bytes = self.inner.slice(range.start as usize..range.end as usize);
        bytes.slice(..bytes.len().saturating_sub(self.short_by))
    }

    fn counts(&self) -> (usize, usize, u64) {
        (
            self.requests.swap(0, Ordering::SeqCst),
            self.ranges.swap(0, Ordering::SeqCst),
            self.bytes.swap(0, Ordering::SeqCst),
        )
    }
}

impl AsyncFileReader for Counting {
    fn get_bytes(
        &self,
        range: Range<u64>,
    ) -> BoxFuture<'_, herringbone_arrow_bridge::Result<Bytes>> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { Ok(self.answer(range)) })
    }

    fn get_byte_ranges(
        &self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, herringbone_arrow_bridge::Result<Vec<Bytes>>> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { Ok(ranges.into_iter().map(|r| self.answer(r)).collect()) })
    }
}

#[tokio::test]
async fn stream_equals_the_sync_reader() {
    let bytes = file(10_000, 3_000);
    let size = bytes.len() as u64;
    for (projection, groups) in [
        (Projection::All, None),
        (Projection::Roots(vec![2, 0]), None),
        (Projection::Roots(vec![1]), Some(vec![3, 1])),
    ] {
        let mut builder = ParquetRecordBatchStreamBuilder::try_new(bytes.clone(), size)
            .await
            .unwrap()
            .with_projection(projection.clone())
            .with_batch_size(1000);
        if let Some(g) = &groups {
            builder = builder.with_row_groups(g.clone());
        }
        let stream = builder.build().unwrap();
        let schema = stream.schema().clone();
        let batches: Vec<RecordBatch> = stream.try_collect().await.unwrap();
        assert!(batches.iter().all(|b| b.num_rows() <= 1000));
        let got = concat(&batches);
        assert_eq!(got.schema(), schema);
        assert_eq!(got, sync_read(&bytes, projection, groups));
    }
    // A limit across row groups.
    let batches: Vec<RecordBatch> = ParquetRecordBatchStreamBuilder::try_new(bytes.clone(), size)
        .await
        .unwrap()
        .with_limit(3_500)
        .with_batch_size(2_000)
        .build()
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let rows: Vec<usize> = batches.iter().map(|b| b.num_rows()).collect();
    assert_eq!(rows, [2_000, 1_000, 500]);
    assert_eq!(
        concat(&batches),
        sync_read(&bytes, Projection::All, None).slice(0, 3_500)
    );
}

/// A row filter on the stream: the filter's field decoded first, the others for the
/// kept rows; the rows equal a filter of the whole file.
#[tokio::test]
async fn a_row_filter_keeps_the_same_rows_as_the_sync_reader() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use herringbone_arrow_bridge::read::RowFilter;
    let bytes = file(10_000, 3_000);
    let size = bytes.len() as u64;
    // Rare matches (c is i * 7 % 1000: rows with c < 5), as long runs, and none.
    let keep = |c: i64| c < 5;
    let filter = move || {
        RowFilter::new(vec!["c".into()], move |batch: &RecordBatch| {
            let c = batch.column(0).as_primitive::<Int64Type>();
            Ok(c.iter().map(|v| v.map(keep)).collect())
        })
    };
    let stream = ParquetRecordBatchStreamBuilder::try_new(bytes.clone(), size)
        .await
        .unwrap()
        .with_batch_size(700)
        .with_row_filter(filter())
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = stream.try_collect().await.unwrap();
    let got = concat(&batches);
    let all = sync_read(&bytes, Projection::All, None);
    let c = all.column(2).as_primitive::<Int64Type>();
    let mask: arrow_array::BooleanArray = c.iter().map(|v| v.map(keep)).collect();
    let expected = arrow_select::filter::filter_record_batch(&all, &mask).unwrap();
    assert_eq!(expected.num_rows(), 50);
    assert_eq!(got, expected);
    let sync = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
        .unwrap()
        .with_batch_size(700)
        .with_row_filter(filter())
        .build()
        .unwrap();
    let sync: Vec<RecordBatch> = sync.map(|b| b.unwrap()).collect();
    assert_eq!(concat(&sync), expected);
}

#[tokio::test]
async fn requests_and_bytes_are_counted() {
    let bytes = file(10_000, 2_500);
    let size = bytes.len() as u64;
    let store = Counting::new(bytes.clone());

    // The footer: one request of the hint's bytes when it covers the footer...
    let builder =
        ParquetRecordBatchStreamBuilder::try_new_with_size_hint(store.clone(), size, 16 * 1024)
            .await
            .unwrap();
    assert_eq!(store.counts(), (1, 1, (16 * 1024).min(size)));
    let metadata = builder.metadata().clone();
    let groups = metadata.row_groups.len();
    assert_eq!(groups, 4);
    // ... two when the footer is longer than the hint.
    ParquetRecordBatchStreamBuilder::try_new_with_size_hint(store.clone(), size, 8)
        .await
        .unwrap();
    let (requests, ranges, _) = store.counts();
    assert_eq!((requests, ranges), (2, 2));

    // Columns a and c (leaves 0 and 2) of every row group: one request per row group;
    // near chunks coalesced into one range, far ones (gap 0, b between them) in two.
    let wanted: u64 = (0..groups)
        .flat_map(|g| row_group_ranges(&metadata, g, &[0, 2], size).unwrap())
        .map(|r| r.end - r.start)
        .sum();
    let b_bytes: u64 = (0..groups)
        .flat_map(|g| row_group_ranges(&metadata, g, &[1], size).unwrap())
        .map(|r| r.end - r.start)
        .sum();
    for (gap, ranges_per_group, fetched) in [(0, 2, wanted), (1 << 20, 1, wanted + b_bytes)] {
        let batches: Vec<RecordBatch> = builder_over(&store, size, &metadata)
            .with_projection(Projection::Roots(vec![0, 2]))
            .with_coalesce_gap(gap)
            .build()
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(concat(&batches).num_rows(), 10_000);
        assert_eq!(
            store.counts(),
            (groups, groups * ranges_per_group, fetched),
            "gap {gap}"
        );
    }
    // Selected row groups only: nothing else is fetched.
    let _: Vec<RecordBatch> = builder_over(&store, size, &metadata)
        .with_projection(Projection::Roots(vec![1]))
        .with_row_groups(vec![2])
        .build()
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let only = row_group_ranges(&metadata, 2, &[1], size).unwrap()[0].clone();
    assert_eq!(store.counts(), (1, 1, only.end - only.start));
}

fn builder_over(
    store: &Arc<Counting>,
    size: u64,
    metadata: &Arc<herringbone_format::metadata::FileMetaData>,
) -> ParquetRecordBatchStreamBuilder<Arc<Counting>> {
    ParquetRecordBatchStreamBuilder::new_with_metadata(store.clone(), size, metadata.clone())
        .unwrap()
}

#[tokio::test]
async fn short_reads_and_bad_sizes_are_errors() {
    let bytes = file(1_000, 500);
    let size = bytes.len() as u64;
    let short = Arc::new(Counting {
        inner: bytes.clone(),
        short_by: 3,
        ..Counting::default()
    });
    let err = ParquetRecordBatchStreamBuilder::try_new(short, size)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(err.to_string().contains("returned"), "{err}");
    // A size below the minimum, and a size larger than the object (the footer tail is not
    // where the size says).
    let err = ParquetRecordBatchStreamBuilder::try_new(bytes.clone(), 5)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    let mut padded = bytes.to_vec();
    padded.extend_from_slice(&[0; 100]);
    let err = ParquetRecordBatchStreamBuilder::try_new(Bytes::from(padded), size + 100)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("magic") || err.to_string().contains("PAR1"),
        "{err}"
    );
}

#[tokio::test]
async fn object_stores_in_memory_and_on_disk() {
    let bytes = file(5_000, 2_000);
    let expected = sync_read(&bytes, Projection::All, None);

    let memory: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
    let path = Path::from("data/t.parquet");
    memory.put(&path, bytes.clone().into()).await.unwrap();

    let dir = std::env::temp_dir().join(format!("hb-async-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.parquet"), &bytes).unwrap();
    let local: Arc<dyn ObjectStore> =
        Arc::new(object_store::local::LocalFileSystem::new_with_prefix(&dir).unwrap());

    for (store, path) in [(memory, path), (local, Path::from("t.parquet"))] {
        let (reader, size) = ObjectStoreReader::open(store.clone(), path).await.unwrap();
        assert_eq!(size, bytes.len() as u64);
        let batches: Vec<RecordBatch> = ParquetRecordBatchStreamBuilder::try_new(reader, size)
            .await
            .unwrap()
            .build()
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(concat(&batches), expected);
        let missing = ObjectStoreReader::open(store, Path::from("nope.parquet"))
            .await
            .unwrap_err();
        assert_eq!(missing.kind(), ErrorKind::Io);
        assert!(missing.to_string().contains("nope.parquet"), "{missing}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Columns `a` (unique numbers) and `b` (strings, dictionary-encoded) in pages of
/// `page_rows` rows.
fn paged_file(rows: i64, group_rows: usize, page_rows: usize) -> Bytes {
    let a: ArrayRef = Arc::new(Int64Array::from((0..rows).collect::<Vec<_>>()));
    let b: ArrayRef = Arc::new(StringArray::from(
        (0..rows)
            .map(|i| (i % 5 != 0).then(|| format!("value {}", i % 97)))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_from_iter([("a", a), ("b", b)]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_rows(group_rows)
        .set_data_page_row_limit(page_rows)
        // Unique numbers: PLAIN pages (a dictionary page would hold them all).
        .set_column_dictionary_enabled("a", false)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

#[tokio::test]
async fn a_selection_fetches_only_its_pages_through_the_offset_index() {
    use herringbone_arrow_bridge::read::RowSelection;
    let rows = 40_000;
    let bytes = paged_file(rows, 20_000, 500);
    let size = bytes.len() as u64;
    let store = Counting::new(bytes.clone());
    let metadata = ParquetRecordBatchStreamBuilder::try_new(bytes.clone(), size)
        .await
        .unwrap()
        .metadata()
        .clone();
    // Three runs of 60 rows in row group 0 (one crossing a page boundary), none in
    // row group 1.
    let ranges = [1_000..1_060, 7_480..7_540, 15_000..15_060];
    let selection = || RowSelection::from_consecutive_ranges(ranges.clone(), rows as usize);
    let expected = sync_read_selected(&bytes, selection());
    assert_eq!(expected.num_rows(), 180);
    let whole_group: u64 = row_group_ranges(&metadata, 0, &[0, 1], size)
        .unwrap()
        .iter()
        .map(|r| r.end - r.start)
        .sum();
    let mut fetched = Vec::new();
    for offset_index in [true, false] {
        let batches: Vec<RecordBatch> = builder_over(&store, size, &metadata)
            .with_row_selection(selection())
            .with_offset_index(offset_index)
            // Pages are not merged across the gaps between them (the default gap of
            // 1 MiB would fetch this small row group's pages in one range).
            .with_coalesce_gap(0)
            .with_batch_size(100)
            .build()
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(concat(&batches), expected, "offset index {offset_index}");
        fetched.push(store.counts());
    }
    // Without the index: row group 0 whole (its two chunks side by side: one range),
    // in one request; row group 1 not at all.
    assert_eq!(fetched[1], (1, 1, whole_group));
    // With it: the offset indexes (one request), then the pages (one request): 4 data
    // pages of 500 rows per column and column b's dictionary page, a small part of
    // the row group's 40 data pages per column.
    let (requests, _, bytes_with_index) = fetched[0];
    eprintln!("fetched {bytes_with_index} bytes of the row group's {whole_group}");
    assert_eq!(requests, 2);
    assert!(
        bytes_with_index * 5 < whole_group,
        "{bytes_with_index} bytes fetched of {whole_group}"
    );
}

#[tokio::test]
async fn stream_with_threads_gives_the_batches_of_one_thread() {
    let bytes = file(10_000, 3_000);
    let size = bytes.len() as u64;
    let read = |threads: usize| {
        let bytes = bytes.clone();
        async move {
            ParquetRecordBatchStreamBuilder::try_new(bytes, size)
                .await
                .unwrap()
                .with_batch_size(700)
                .with_limit(9_000)
                .with_threads(threads)
                .build()
                .unwrap()
                .try_collect::<Vec<RecordBatch>>()
                .await
                .unwrap()
        }
    };
    let one = read(1).await;
    assert_eq!(
        concat(&one),
        sync_read(&bytes, Projection::All, None).slice(0, 9_000)
    );
    assert_eq!(read(2).await, one);
    assert_eq!(read(3).await, one);
}

/// A store that answers each request only after yielding to the runtime a few times
/// (as a remote one is not ready at once), and fails every request of several ranges
/// (a row group's chunks; the footer is one range) that touches `failing` (when set).
struct Slow {
    inner: Bytes,
    yields: usize,
    failing: Option<Range<u64>>,
}

impl Slow {
    async fn answer(
        &self,
        ranges: &[Range<u64>],
        may_fail: bool,
    ) -> herringbone_arrow_bridge::Result<Vec<Bytes>> {
        for _ in 0..self.yields {
            tokio::task::yield_now().await;
        }
        if let Some(failing) = self.failing.as_ref().filter(|_| may_fail)
            && ranges
                .iter()
                .any(|r| r.start < failing.end && failing.start < r.end)
        {
            return Err(herringbone_arrow_bridge::Error::new(
                ErrorKind::Io,
                "the store lost its connection",
            ));
        }
        Ok(ranges
            .iter()
            .map(|r| self.inner.slice(r.start as usize..r.end as usize))
            .collect())
    }
}

impl AsyncFileReader for Slow {
    fn get_bytes(
        &self,
        range: Range<u64>,
    ) -> BoxFuture<'_, herringbone_arrow_bridge::Result<Bytes>> {
        Box::pin(async move { Ok(self.answer(&[range], false).await?.remove(0)) })
    }

    fn get_byte_ranges(
        &self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, herringbone_arrow_bridge::Result<Vec<Bytes>>> {
        Box::pin(async move { self.answer(&ranges, true).await })
    }
}

/// Every item of a stream over `store` (batches, then the error that ends it, if any).
async fn stream_items(
    store: Slow,
    size: u64,
    threads: usize,
    selection: Option<herringbone_arrow_bridge::read::RowSelection>,
    offset_index: bool,
) -> (Vec<RecordBatch>, Option<herringbone_arrow_bridge::Error>) {
    let mut builder = ParquetRecordBatchStreamBuilder::try_new(Arc::new(store), size)
        .await
        .unwrap()
        .with_batch_size(300)
        .with_offset_index(offset_index)
        .with_threads(threads);
    if let Some(selection) = selection {
        builder = builder.with_row_selection(selection);
    }
    let mut stream = builder.build().unwrap();
    let mut batches = Vec::new();
    loop {
        match stream.try_next().await {
            Ok(Some(batch)) => batches.push(batch),
            Ok(None) => return (batches, None),
            Err(e) => return (batches, Some(e)),
        }
    }
}

#[tokio::test]
async fn threads_decode_row_groups_ahead_while_their_fetches_are_pending() {
    use herringbone_arrow_bridge::read::RowSelection;
    let rows = 12_000;
    let bytes = paged_file(rows, 1_000, 100);
    let size = bytes.len() as u64;
    // Row groups 0 and 1 whole, 2 and 3 not at all, runs within 4..=9 (some crossing
    // a row group's end), the last rows of the file.
    let ranges = [
        0..2_000,
        4_150..4_420,
        4_990..5_700,
        7_000..7_001,
        8_640..9_950,
        11_900..12_000,
    ];
    let selection = || RowSelection::from_consecutive_ranges(ranges.clone(), rows as usize);
    let expected = sync_read_selected(&bytes, selection());
    assert_eq!(expected.num_rows(), 4_391);
    for yields in [0, 5] {
        for offset_index in [false, true] {
            let slow = || Slow {
                inner: bytes.clone(),
                yields,
                failing: None,
            };
            let (one, error) = stream_items(slow(), size, 1, Some(selection()), offset_index).await;
            assert!(error.is_none(), "{error:?}");
            assert_eq!(concat(&one), expected);
            for threads in [2, 3] {
                let (batches, error) =
                    stream_items(slow(), size, threads, Some(selection()), offset_index).await;
                assert!(error.is_none(), "{error:?}");
                assert_eq!(
                    batches, one,
                    "{threads} threads, {yields} yields, offset index {offset_index}"
                );
            }
            // The whole file.
            let (one, _) = stream_items(slow(), size, 1, None, offset_index).await;
            let (two, error) = stream_items(slow(), size, 2, None, offset_index).await;
            assert!(error.is_none(), "{error:?}");
            assert_eq!(two, one);
            assert_eq!(concat(&two).num_rows(), rows as usize);
        }
    }
}

#[tokio::test]
async fn a_failed_fetch_ends_a_stream_with_threads_after_the_batches_before_it() {
    let bytes = file(6_000, 1_000);
    let size = bytes.len() as u64;
    let metadata = ParquetRecordBatchStreamBuilder::try_new(bytes.clone(), size)
        .await
        .unwrap()
        .metadata()
        .clone();
    // The chunks of row group 3.
    let chunks = row_group_ranges(&metadata, 3, &[0, 1, 2], size).unwrap();
    let failing = chunks[0].start..chunks[chunks.len() - 1].end;
    let expected = sync_read(&bytes, Projection::All, None).slice(0, 3_000);
    for threads in [1, 2, 3] {
        for yields in [0, 4] {
            let store = Slow {
                inner: bytes.clone(),
                yields,
                failing: Some(failing.clone()),
            };
            let (batches, error) = stream_items(store, size, threads, None, false).await;
            let error = error.expect("row group 3's fetch fails");
            assert_eq!(error.kind(), ErrorKind::Io, "{error}");
            assert!(
                error.to_string().contains("fetching row group 3"),
                "{error}"
            );
            assert_eq!(
                concat(&batches),
                expected,
                "{threads} threads, {yields} yields"
            );
        }
    }
}

//! The provider over an `object_store`: SQL results equal those over the same file on
//! local disk, each footer is read once (one ranged request), and scans fetch only the
//! row groups left after pruning and, of those, the projected and filtered columns,
//! one coalesced request per row group; a store that counts requests and bytes checks it.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use bytes::Bytes;
use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::stream::BoxStream;
use herringbone::{ArrowWriter, WriterProperties};
use herringbone_datafusion::HerringboneTable;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetRange, GetResult, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

/// An in-memory store that counts the requests that read data and the bytes they ask for.
#[derive(Debug, Default)]
struct CountingStore {
    inner: InMemory,
    gets: AtomicU64,
    range_calls: AtomicU64,
    bytes: AtomicU64,
}

impl CountingStore {
    fn counts(&self) -> (u64, u64, u64) {
        (
            self.gets.load(Ordering::SeqCst),
            self.range_calls.load(Ordering::SeqCst),
            self.bytes.load(Ordering::SeqCst),
        )
    }
}

impl fmt::Display for CountingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CountingStore")
    }
}

#[async_trait]
impl ObjectStore for CountingStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        if !options.head {
            self.gets.fetch_add(1, Ordering::SeqCst);
            if let Some(GetRange::Bounded(r)) = &options.range {
                self.bytes.fetch_add(r.end - r.start, Ordering::SeqCst);
            }
        }
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
    ) -> object_store::Result<Vec<Bytes>> {
        self.range_calls.fetch_add(1, Ordering::SeqCst);
        let asked: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        self.bytes.fetch_add(asked, Ordering::SeqCst);
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

const GROUP_ROWS: i64 = 5_000;
const GROUPS: i64 = 4;

/// `id` sorted, `kind` a few strings, `price` doubles, `note` long strings (most of the
/// file's bytes), in four row groups.
fn file() -> (RecordBatch, Vec<u8>) {
    let rows = GROUP_ROWS * GROUPS;
    let id: ArrayRef = Arc::new(Int64Array::from((0..rows).collect::<Vec<_>>()));
    let kind: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| ["a", "b", "c"][(i % 3) as usize]),
    ));
    let price: ArrayRef = Arc::new(Float64Array::from(
        (0..rows)
            .map(|i| (i % 100) as f64 / 4.0)
            .collect::<Vec<_>>(),
    ));
    let note: ArrayRef =
        Arc::new(StringArray::from_iter_values((0..rows).map(|i| {
            format!("note {i:08} {}", "x".repeat((i % 61) as usize))
        })));
    let batch =
        RecordBatch::try_from_iter([("id", id), ("kind", kind), ("price", price), ("note", note)])
            .unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_rows(GROUP_ROWS as usize)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    (batch, out)
}

async fn run(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

fn context(partitions: usize) -> SessionContext {
    SessionContext::new_with_config(
        SessionConfig::new()
            .with_target_partitions(partitions)
            .with_batch_size(1024),
    )
}

const QUERIES: &[&str] = &[
    "SELECT count(*), sum(price) FROM t",
    "SELECT kind, count(*), max(note) FROM t WHERE id >= 7000 GROUP BY kind ORDER BY kind",
    "SELECT id, note FROM t WHERE id BETWEEN 12340 AND 12350 ORDER BY id",
    "SELECT id FROM t WHERE kind = 'b' AND price > 24 ORDER BY id LIMIT 7",
    "SELECT * FROM t ORDER BY id DESC LIMIT 3",
    "SELECT count(*) FROM t WHERE note LIKE 'note 0001%'",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_over_a_store_equals_sql_over_a_local_file() {
    let (_, bytes) = file();
    let dir = std::env::temp_dir().join(format!("hb-datafusion-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let local_path: PathBuf = dir.join("t.parquet");
    std::fs::write(&local_path, &bytes).unwrap();
    let store = Arc::new(CountingStore::default());
    store
        .put(&Path::from("data/t.parquet"), bytes.clone().into())
        .await
        .unwrap();
    for partitions in [1, 3] {
        let local = context(partitions);
        local
            .register_table(
                "t",
                Arc::new(HerringboneTable::try_new(vec![local_path.clone()]).unwrap()),
            )
            .unwrap();
        let remote = context(partitions);
        // A prefix: the objects under it are the table.
        let table = HerringboneTable::try_new_in_store(store.clone(), vec![Path::from("data")])
            .await
            .unwrap();
        remote.register_table("t", Arc::new(table)).unwrap();
        for sql in QUERIES {
            assert_eq!(run(&remote, sql).await, run(&local, sql).await, "{sql}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn footers_once_and_only_the_needed_ranges_fetched() {
    let (_, bytes) = file();
    let size = bytes.len() as u64;
    let metadata = herringbone::read::read_metadata(&Bytes::from(bytes.clone())).unwrap();
    let store = Arc::new(CountingStore::default());
    let path = Path::from("t.parquet");
    store.put(&path, bytes.into()).await.unwrap();

    let table = Arc::new(
        HerringboneTable::try_new_in_store(store.clone(), vec![path])
            .await
            .unwrap(),
    );
    // The footer: one ranged request (it is shorter than the 64 KiB hint).
    let (gets, range_calls, footer_bytes) = store.counts();
    assert_eq!((gets, range_calls), (1, 0));
    assert!(footer_bytes <= 64 * 1024, "{footer_bytes}");

    let ctx = context(1);
    ctx.register_table("t", table.clone()).unwrap();
    let counts = table.fetch_counts().clone();

    // One column of every row group: one coalesced request per row group, a small part
    // of the file, nothing fetched the plan did not foresee, no footer read again.
    let total = run(&ctx, "SELECT sum(price) FROM t").await;
    assert!(total.contains("247500.0"), "{total}");
    let (gets_after, range_calls_after, fetched) = store.counts();
    assert_eq!(gets_after, gets, "no request outside the planned fetches");
    assert_eq!(range_calls_after, GROUPS as u64);
    let price_bytes = fetched - footer_bytes;
    assert!(price_bytes * 4 < size, "{price_bytes} of {size} bytes");
    assert_eq!(counts.requests(), GROUPS as u64);
    assert_eq!(counts.bytes(), price_bytes);
    assert_eq!(counts.unplanned(), 0);

    // A filter on the sorted column: statistics keep one row group, and only its
    // chunks of `id` and `note` are fetched, in one request.
    let rows = run(
        &ctx,
        "SELECT id, note FROM t WHERE id BETWEEN 12340 AND 12342",
    )
    .await;
    assert!(rows.contains("note 00012341"), "{rows}");
    let (_, calls, fetched_now) = store.counts();
    // Two requests: the row group's indexes, then the pages pruning keeps (here, with
    // one page per chunk, the chunks).
    assert_eq!(calls, range_calls_after + 2);
    // Between the chunks of `id` and `note` of row group 2 (ranges less than 1 MiB
    // apart are fetched as one) and the page index of `id`, which page pruning reads.
    let group = &metadata.row_groups[2];
    let chunk = |c: usize| {
        let m = group.columns[c].meta_data.as_ref().unwrap();
        let start = m.dictionary_page_offset.unwrap_or(m.data_page_offset) as u64;
        (start, start + m.total_compressed_size as u64)
    };
    let index_bytes: u64 = [
        group.columns[0].column_index_length,
        group.columns[0].offset_index_length,
    ]
    .iter()
    .map(|l| l.unwrap_or(0) as u64)
    .sum();
    let one_group = fetched_now - fetched;
    let needed = (chunk(0).1 - chunk(0).0) + (chunk(3).1 - chunk(3).0);
    assert!(one_group >= needed, "{one_group} < {needed}");
    assert!(
        one_group <= chunk(3).1 - chunk(0).0 + index_bytes,
        "{one_group} bytes for one row group"
    );
    assert_eq!(counts.unplanned(), 0);
}

/// `id` sorted, `note` long strings, in row groups of 5,000 rows and plain data pages of
/// 500.
fn paged_file() -> Vec<u8> {
    let rows = GROUP_ROWS * GROUPS;
    let id: ArrayRef = Arc::new(Int64Array::from((0..rows).collect::<Vec<_>>()));
    let note: ArrayRef =
        Arc::new(StringArray::from_iter_values((0..rows).map(|i| {
            format!("note {i:08} {}", "y".repeat((i % 53) as usize))
        })));
    let batch = RecordBatch::try_from_iter([("id", id), ("note", note)]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_rows(GROUP_ROWS as usize)
        .set_data_page_row_limit(500)
        // Plain pages: distinct values (as in a large file whose dictionary fell back),
        // no dictionary page holding them all ahead of the data pages.
        .set_dictionary_enabled(false)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selective_filter_on_a_sorted_column_fetches_only_the_kept_pages() {
    let bytes = paged_file();
    let metadata = herringbone::read::read_metadata(&Bytes::from(bytes.clone())).unwrap();
    let store = Arc::new(CountingStore::default());
    let path = Path::from("paged.parquet");
    store.put(&path, bytes.clone().into()).await.unwrap();
    let dir = std::env::temp_dir().join(format!("hb-datafusion-paged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let local_path = dir.join("paged.parquet");
    std::fs::write(&local_path, &bytes).unwrap();
    let local = context(1);
    local
        .register_table(
            "t",
            Arc::new(HerringboneTable::try_new(vec![local_path]).unwrap()),
        )
        .unwrap();

    let table = Arc::new(
        HerringboneTable::try_new_in_store(store.clone(), vec![path])
            .await
            .unwrap(),
    );
    let ctx = context(1);
    ctx.register_table("t", table.clone()).unwrap();
    let counts = table.fetch_counts().clone();
    let (_, calls_before, bytes_before) = store.counts();

    // Rows 12,340..=12,342 lie in one page of row group 2 (pages of 500 rows).
    let sql = "SELECT id, note FROM t WHERE id BETWEEN 12340 AND 12342 ORDER BY id";
    let rows = run(&ctx, sql).await;
    assert_eq!(rows, run(&local, sql).await);
    assert!(rows.contains("note 00012341"), "{rows}");
    let (_, calls, fetched) = store.counts();
    // One row group kept by its statistics: its indexes, then its pages.
    assert_eq!(calls - calls_before, 2);
    assert_eq!(counts.unplanned(), 0);
    let fetched = fetched - bytes_before;
    let group = &metadata.row_groups[2];
    let chunk_bytes: u64 = group
        .columns
        .iter()
        .map(|c| c.meta_data.as_ref().unwrap().total_compressed_size as u64)
        .sum();
    let index_bytes: u64 = group
        .columns
        .iter()
        .map(|c| {
            c.column_index_length.unwrap_or(0) as u64 + c.offset_index_length.unwrap_or(0) as u64
        })
        .sum();
    // Ten pages per chunk: one page of each and the indexes are far less than the
    // chunks.
    assert!(
        fetched * 4 < chunk_bytes,
        "{fetched} bytes fetched, the chunks hold {chunk_bytes}"
    );
    assert!(fetched > index_bytes, "{fetched} <= {index_bytes}");

    // A filter keeping rows in pages of two row groups: equal results, fewer bytes than
    // the chunks of those groups.
    let sql = "SELECT count(*), max(note) FROM t WHERE id >= 9990 AND id < 10260";
    let (_, _, before) = store.counts();
    assert_eq!(run(&ctx, sql).await, run(&local, sql).await);
    let (_, _, after) = store.counts();
    let two_groups: u64 = [1, 2]
        .iter()
        .flat_map(|&g| metadata.row_groups[g].columns.iter())
        .map(|c| c.meta_data.as_ref().unwrap().total_compressed_size as u64)
        .sum();
    assert!(
        (after - before) * 3 < two_groups,
        "{} bytes for pages of two row groups of {two_groups}",
        after - before
    );
    assert_eq!(counts.unplanned(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_missing_location_is_an_error_naming_it() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let err = HerringboneTable::try_new_in_store(store, vec![Path::from("nothing/here")])
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("nothing/here"), "{err}");
    assert!(err.contains("no Parquet object"), "{err}");
}

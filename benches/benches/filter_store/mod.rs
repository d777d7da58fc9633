//! The filter bench's object store: object_store's `LocalFileSystem` (what DataFusion
//! reads local files with) counting the requests that read data and the bytes they
//! return, so that Herringbone's provider and DataFusion's Parquet source can be
//! compared by what they fetch, over the same files on disk.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

/// A local folder as an object store, counting reads.
#[derive(Debug)]
pub struct CountingStore {
    inner: LocalFileSystem,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl CountingStore {
    /// The files under `dir`.
    pub fn new(dir: &std::path::Path) -> Self {
        Self {
            inner: LocalFileSystem::new_with_prefix(dir).expect("store folder"),
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    /// Requests and bytes read so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.requests.load(Ordering::SeqCst),
            self.bytes.load(Ordering::SeqCst),
        )
    }
}

impl fmt::Display for CountingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CountingStore({})", self.inner)
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
        let head = options.head;
        let result = self.inner.get_opts(location, options).await?;
        if !head {
            // The range the store serves (a suffix or open range resolved).
            self.requests.fetch_add(1, Ordering::SeqCst);
            self.bytes
                .fetch_add(result.range.end - result.range.start, Ordering::SeqCst);
        }
        Ok(result)
    }

    async fn get_ranges(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
    ) -> object_store::Result<Vec<Bytes>> {
        let blocks = self.inner.get_ranges(location, ranges).await?;
        self.requests.fetch_add(1, Ordering::SeqCst);
        let bytes: u64 = blocks.iter().map(|b| b.len() as u64).sum();
        self.bytes.fetch_add(bytes, Ordering::SeqCst);
        Ok(blocks)
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

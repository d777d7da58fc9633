//! [`ObjectStoreReader`]: an [`AsyncFileReader`] over `object_store` 0.13.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

use super::AsyncFileReader;
use crate::error::{Error, ErrorKind, Result};

/// One object of an [`ObjectStore`], read by range.
///
/// `get_byte_ranges` is one `get_ranges` call (the store may merge or split ranges
/// further as it sees fit).
///
/// ```
/// # futures::executor::block_on(async {
/// use std::sync::Arc;
/// use object_store::{ObjectStore, memory::InMemory, path::Path};
/// use herringbone_arrow_bridge::async_read::{ObjectStoreReader, ParquetRecordBatchStreamBuilder};
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// # use object_store::ObjectStoreExt;
/// # use std::sync::Arc as A;
/// # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
/// # let column: ArrayRef = A::new(Int32Array::from(vec![1, 2, 3]));
/// # let batch = RecordBatch::try_from_iter([("a", column)]).unwrap();
/// # let mut file = Vec::new();
/// # let mut writer = herringbone_arrow_bridge::ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
/// # writer.write(&batch).unwrap();
/// # writer.close().unwrap();
/// # store.put(&Path::from("t.parquet"), file.into()).await.unwrap();
/// let (reader, size) = ObjectStoreReader::open(store, Path::from("t.parquet")).await?;
/// let builder = ParquetRecordBatchStreamBuilder::try_new(reader, size).await?;
/// # Ok::<_, herringbone_arrow_bridge::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct ObjectStoreReader {
    store: Arc<dyn ObjectStore>,
    path: Path,
}

impl ObjectStoreReader {
    /// A reader of `path` in `store` (its size known from a listing or a `head`).
    pub fn new(store: Arc<dyn ObjectStore>, path: Path) -> Self {
        Self { store, path }
    }

    /// The object's path in its store.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A reader of `path` in `store` and the object's size, from one `head` request.
    pub async fn open(store: Arc<dyn ObjectStore>, path: Path) -> Result<(Self, u64)> {
        let meta = store.head(&path).await.map_err(|e| store_error(&path, e))?;
        Ok((Self::new(store, path), meta.size))
    }
}

fn store_error(path: &Path, e: object_store::Error) -> Error {
    Error::new(ErrorKind::Io, format!("object store, {path}: {e}")).with_source(e)
}

impl AsyncFileReader for ObjectStoreReader {
    fn get_bytes(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        Box::pin(async move {
            self.store
                .get_range(&self.path, range)
                .await
                .map_err(|e| store_error(&self.path, e))
        })
    }

    fn get_byte_ranges(&self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, Result<Vec<Bytes>>> {
        Box::pin(async move {
            self.store
                .get_ranges(&self.path, &ranges)
                .await
                .map_err(|e| store_error(&self.path, e))
        })
    }
}

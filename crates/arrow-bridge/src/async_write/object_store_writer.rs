//! [`ObjectStoreWriter`]: an [`AsyncFileWriter`] over `object_store` 0.13.

use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use object_store::ObjectStore;
use object_store::buffered::BufWriter;
use object_store::path::Path;

use super::AsyncFileWriter;
use crate::error::{Error, ErrorKind, Result};

/// One object of an [`ObjectStore`], written through the store's buffered writer: one
/// `put` when the file is small, a multipart upload (parts uploaded while the writer
/// goes on, a bounded number in flight) once it outgrows the buffer. Needs a tokio
/// runtime, as the store does.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use object_store::{ObjectStore, memory::InMemory, path::Path};
/// use herringbone_arrow_bridge::async_write::{AsyncArrowWriter, ObjectStoreWriter};
/// # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
/// # let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// # let batch = RecordBatch::try_from_iter([("a", column)])?;
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// let sink = ObjectStoreWriter::new(store.clone(), Path::from("t.parquet"));
/// let mut writer = AsyncArrowWriter::try_new(sink, batch.schema(), None)?;
/// writer.write(&batch).await?;
/// writer.close().await?;
/// # Ok(()) }
/// ```
pub struct ObjectStoreWriter {
    path: Path,
    writer: BufWriter,
    completed: bool,
}

impl ObjectStoreWriter {
    /// A writer of `path` in `store`.
    pub fn new(store: Arc<dyn ObjectStore>, path: Path) -> Self {
        let writer = BufWriter::new(store, path.clone());
        Self::from_buf_writer(path, writer)
    }

    /// A writer through a [`BufWriter`] set up by the caller (capacity, concurrency,
    /// attributes, tags) for `path`.
    pub fn from_buf_writer(path: Path, writer: BufWriter) -> Self {
        Self {
            path,
            writer,
            completed: false,
        }
    }

    /// The object's path in its store.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, e: object_store::Error) -> Error {
        Error::new(ErrorKind::Io, format!("writing {}", self.path)).with_source(e)
    }

    fn check_open(&self) -> Result<()> {
        if self.completed {
            return Err(Error::invalid_argument(format!(
                "{}: the object is already complete",
                self.path
            )));
        }
        Ok(())
    }
}

impl std::fmt::Debug for ObjectStoreWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectStoreWriter")
            .field("path", &self.path)
            .field("completed", &self.completed)
            .finish_non_exhaustive()
    }
}

impl AsyncFileWriter for ObjectStoreWriter {
    fn write(&mut self, bytes: Bytes) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.check_open()?;
            self.writer.put(bytes).await.map_err(|e| self.error(e))
        })
    }

    fn complete(&mut self) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.check_open()?;
            self.completed = true;
            let writer = &mut self.writer;
            std::future::poll_fn(|cx| {
                tokio::io::AsyncWrite::poll_shutdown(std::pin::Pin::new(&mut *writer), cx)
            })
            .await
            .map_err(|e| {
                Error::new(ErrorKind::Io, format!("completing {}", self.path)).with_source(e)
            })
        })
    }
}
